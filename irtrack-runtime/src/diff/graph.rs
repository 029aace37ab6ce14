//! A program being differentiated: its operations in topological order (every operation
//! reads only inputs, constants and operations before it), each with a value at the recorded
//! point, and a table of the pure operations already present so that building one again
//! returns the existing one (common subexpressions are shared as they are built).

use super::error::DiffError;
use super::kernels::Kernel;
use crate::core::ids::{CalleeKey, NodeId};
use crate::core::op::{ArrayOp, BinOp, Builtin, FloatFn, ScalarType, UnOp};
use crate::core::value::{Snapshot, Value};
use crate::program::{Like, Origin, PartGuard, PartInput, PartOp, Parts, Program, Src};
use crate::view::operation::{run_operation, Operation};
use std::any::TypeId;
use std::collections::HashMap;

/// A value of a program under construction: an input, the result of an operation, or a
/// constant. Rules receive the operands of the operation they differentiate as `Var`s and
/// build their result from them with a [`Builder`].
#[derive(Clone, Debug)]
pub struct Var(pub(crate) Src);

/// What a value is, as far as differentiation cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `f32` or `f64`.
    Float(ScalarType),
    /// `Vec<f64>`.
    Vector,
    /// An owned `ndarray` array of `f64` of this many dimensions.
    Array(usize),
    /// Anything else: no tangent.
    Other,
}

impl Kind {
    pub(crate) fn of(v: &Value) -> Kind {
        match v.scalar_type() {
            Some(t) if t.is_float() => return Kind::Float(t),
            Some(_) => return Kind::Other,
            None => {}
        }
        if v.downcast_ref::<Vec<f64>>().is_some() {
            return Kind::Vector;
        }
        match array_rank(v) {
            Some(n) => Kind::Array(n),
            None => Kind::Other,
        }
    }

    /// Whether values of this kind have tangents.
    pub(crate) fn differentiable(self) -> bool {
        self != Kind::Other
    }
}

/// The number of dimensions of an owned array of `f64` of a type evaluation keeps (an
/// operation on an `Array1<f64>` gives an `Array1<f64>`).
fn array_rank(v: &Value) -> Option<usize> {
    #[cfg(feature = "ndarray")]
    {
        use ndarray::{Array0, Array1, Array2, Array3, ArrayD};
        if v.downcast_ref::<Array1<f64>>().is_some() {
            return Some(1);
        }
        if v.downcast_ref::<Array2<f64>>().is_some() {
            return Some(2);
        }
        if v.downcast_ref::<Array0<f64>>().is_some() {
            return Some(0);
        }
        if v.downcast_ref::<Array3<f64>>().is_some() {
            return Some(3);
        }
        if let Some(a) = v.downcast_ref::<ArrayD<f64>>() {
            return Some(a.ndim());
        }
    }
    let _ = v;
    None
}

/// The shape of a value: a float, a vector's length, an array's shape.
pub(crate) fn shape(v: &Value) -> Option<Vec<usize>> {
    if v.as_f64().is_some() {
        return Some(Vec::new());
    }
    if let Some(x) = v.downcast_ref::<Vec<f64>>() {
        return Some(vec![x.len()]);
    }
    #[cfg(feature = "ndarray")]
    if let Some(a) = crate::core::arrays::array_primal(v) {
        return Some(a.shape().to_vec());
    }
    None
}

/// One operation.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub op: Operation,
    pub args: Vec<Src>,
    pub origin: Origin,
    /// Its value at the recorded point (for a derivative, with each direction set to the
    /// input it is a direction of).
    pub value: Value,
    /// The operation whose rule built it, when a rule did.
    pub made_for: Option<usize>,
    /// Whether a rule made it, in this differentiation or an earlier one ([`PartOp::derived`]).
    pub derived: bool,
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum OpKey {
    Builtin(Builtin),
    Array(ArrayOp),
    Registered(TypeId),
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum ArgKey {
    Input(usize),
    Op(usize),
    F64(u64),
    F32(u32),
    Int(ScalarType, i64),
    Bool(bool),
    Char(char),
}

fn arg_key(s: &Src) -> Option<ArgKey> {
    Some(match s {
        Src::Input(k) => ArgKey::Input(*k),
        Src::Op(k) => ArgKey::Op(*k),
        Src::Const(v) => {
            let v = v.by_value();
            match v.scalar_type()? {
                ScalarType::F64 => ArgKey::F64(v.downcast_ref::<f64>()?.to_bits()),
                ScalarType::F32 => ArgKey::F32(v.downcast_ref::<f32>()?.to_bits()),
                ScalarType::Bool => ArgKey::Bool(*v.downcast_ref::<bool>()?),
                ScalarType::Char => ArgKey::Char(*v.downcast_ref::<char>()?),
                t => ArgKey::Int(t, v.as_i64()?),
            }
        }
    })
}

/// Whether running `op` twice on the same values gives the same value and does nothing else:
/// the built-in operations and the kernels. A user's registered operation may draw random
/// numbers or count its calls, so it is never shared or folded.
fn pure(op: &Operation) -> bool {
    match op {
        Operation::Builtin(_) | Operation::Array(_) => true,
        Operation::Registered(_) => Kernel::of(op).is_some(),
    }
}

/// `args` in one order for a commutative operation (`+` and `*` on floats and arrays commute
/// exactly), so that `v * x` and `x * v` are one operation.
fn canonical(op: &Operation, mut args: Vec<Src>) -> Vec<Src> {
    let rank = |s: &Src| match s {
        Src::Input(k) => Some((0, *k)),
        Src::Op(k) => Some((1, *k)),
        Src::Const(_) => None,
    };
    let commutes = matches!(
        op,
        Operation::Builtin(Builtin::Binary(BinOp::Add | BinOp::Mul))
    ) || Kernel::of(op) == Some(Kernel::Times);
    if commutes && args.len() == 2 {
        if let (Some(a), Some(b)) = (rank(&args[0]), rank(&args[1])) {
            if b < a {
                args.swap(0, 1);
            }
        }
    }
    args
}

/// `times` by a finite nonzero constant is `*`, and `over` by one is `/`, bit for bit (their NaN
/// test can only pass with a zero or non-finite factor): written so, they cost a product.
fn plain_by_constant(op: Operation, args: &[Src]) -> Operation {
    let finite_nonzero = |s: &Src| match s {
        Src::Const(v) => {
            matches!(v.scalar_type(), Some(ScalarType::F64 | ScalarType::F32))
                && v.as_f64().is_some_and(|x| x.is_finite() && x != 0.0)
        }
        _ => false,
    };
    match (Kernel::of(&op), args) {
        (Some(Kernel::Times), [a, b]) if finite_nonzero(a) || finite_nonzero(b) => {
            Operation::Builtin(Builtin::Binary(BinOp::Mul))
        }
        (Some(Kernel::Over), [_, b]) if finite_nonzero(b) => {
            Operation::Builtin(Builtin::Binary(BinOp::Div))
        }
        _ => op,
    }
}

fn op_key(op: &Operation) -> OpKey {
    match op {
        Operation::Builtin(b) => OpKey::Builtin(*b),
        Operation::Array(a) => OpKey::Array(*a),
        Operation::Registered(k) => OpKey::Registered(k.id),
    }
}

/// A program being transformed.
pub(crate) struct Graph {
    pub name: String,
    pub inputs: Vec<PartInput>,
    pub nodes: Vec<Node>,
    pub guards: Vec<PartGuard>,
    pub output: Src,
    memo: HashMap<(OpKey, Vec<ArgKey>), usize>,
    /// Where the operations built now come from (the operation being differentiated).
    pub origin: Origin,
    /// The operation whose rule runs now.
    pub making_for: Option<usize>,
    /// How many of `nodes` are the program's own (read from it, not built by a rule now).
    own: usize,
    /// The program's own operations whose tangent, built by a forward rule, performs the same
    /// broadcast of the same shapes (the tangent of `a * b` on two arrays is
    /// `times(da, b) + times(a, db)`): their shapes are checked without them.
    pub broadcast_in_tangent: Vec<bool>,
}

impl Graph {
    /// The program's operations, or the first one differentiation cannot see through.
    pub(crate) fn from_program(program: &Program) -> Result<Graph, DiffError> {
        let parts = program
            .parts()
            .map_err(|(at, what)| DiffError::Unsupported {
                at,
                reason: format!(
                    "`{what}` decides what to run at every call, and a derivative program has \
                     one path: differentiate a program without `switch` or `while_loop` (record \
                     the branch or the loop itself)"
                ),
            })?;
        Ok(Graph::from_parts(parts))
    }

    pub(crate) fn from_parts(parts: Parts) -> Graph {
        let origin = Origin {
            node: NodeId::NONE,
            function: parts.name.clone(),
            location: None,
            position: 0,
        };
        let mut g = Graph {
            name: parts.name,
            inputs: parts.inputs,
            nodes: Vec::with_capacity(parts.ops.len()),
            guards: parts.guards,
            output: parts.output,
            memo: HashMap::new(),
            origin,
            making_for: None,
            own: 0,
            broadcast_in_tangent: Vec::new(),
        };
        // Operations computing the same thing are merged as the program is read, so that
        // `x[0]` read three times is one operation, and rules reuse what the program has.
        let mut remap: Vec<Src> = Vec::with_capacity(parts.ops.len());
        let fix = |s: &Src, remap: &[Src]| match s {
            Src::Op(k) => remap[*k].clone(),
            other => other.clone(),
        };
        for op in parts.ops {
            let args = canonical(
                &op.operation,
                op.args.iter().map(|a| fix(a, &remap)).collect(),
            );
            let key = g.key(&op.operation, &args);
            if let Some(&k) = key.as_ref().and_then(|key| g.memo.get(key)) {
                remap.push(Src::Op(k));
                continue;
            }
            let k = g.nodes.len();
            if let Some(key) = key {
                g.memo.insert(key, k);
            }
            g.nodes.push(Node {
                op: op.operation,
                args,
                origin: op.origin,
                value: op.value,
                made_for: None,
                derived: op.derived,
            });
            remap.push(Src::Op(k));
        }
        for guard in &mut g.guards {
            guard.condition = fix(&guard.condition, &remap);
        }
        g.output = fix(&g.output, &remap);
        g.own = g.nodes.len();
        g
    }

    /// Whether operation `k` can fail on other inputs than the recorded ones: integer
    /// arithmetic (overflow, a division by zero), `clamp` (bounds out of order or NaN), `powi`
    /// with an exponent that is not a constant (past `i32`), indexing, `?`, arithmetic between
    /// two arrays or vectors (shapes that do not broadcast), `dot`, and a user's registered
    /// operation. Float arithmetic, the other float methods, casts, comparisons and copies
    /// give a value for every input. (Arithmetic between two arrays whose tangent a forward
    /// rule built is checked by that tangent: [`Graph::broadcast_in_tangent`].)
    fn can_fail(&self, k: usize) -> bool {
        let node = &self.nodes[k];
        let integer = |s: &Src| {
            self.value(s)
                .by_value()
                .scalar_type()
                .is_some_and(|t| !t.is_float() && !matches!(t, ScalarType::Bool | ScalarType::Char))
        };
        let arrays = node
            .args
            .iter()
            .filter(|a| matches!(self.kind(a), Kind::Vector | Kind::Array(_)))
            .count();
        let dynamic_exponent = || !matches!(node.args.get(1), Some(Src::Const(_)));
        match node.op {
            Operation::Builtin(b) => match b {
                Builtin::Binary(_) | Builtin::Assign(_) => {
                    node.args.iter().any(integer)
                        || (arrays >= 2
                            && !self.broadcast_in_tangent.get(k).copied().unwrap_or(false))
                }
                Builtin::Unary(UnOp::Neg) => node.args.iter().any(integer),
                Builtin::Method(FloatFn::Clamp) => true,
                Builtin::Method(FloatFn::Powi) => dynamic_exponent(),
                Builtin::Unary(_)
                | Builtin::Compare(_)
                | Builtin::Method(_)
                | Builtin::Query(_)
                | Builtin::Cast(_)
                | Builtin::Deref
                | Builtin::Bind
                | Builtin::Guard
                | Builtin::Clone
                | Builtin::Field
                | Builtin::VecOf
                | Builtin::ArrayOf => false,
                _ => true,
            },
            Operation::Array(ArrayOp::Dot) => true,
            Operation::Array(ArrayOp::Powi) => dynamic_exponent(),
            Operation::Array(_) => false,
            Operation::Registered(_) => Kernel::of(&node.op).is_none(),
        }
    }

    fn key(&self, op: &Operation, args: &[Src]) -> Option<(OpKey, Vec<ArgKey>)> {
        if !pure(op) {
            return None;
        }
        let args = args.iter().map(arg_key).collect::<Option<Vec<_>>>()?;
        Some((op_key(op), args))
    }

    /// The value `s` has at the recorded point.
    pub(crate) fn value(&self, s: &Src) -> Value {
        match s {
            Src::Input(k) => match &self.inputs[*k] {
                PartInput::Dynamic { sample, .. } => sample.clone(),
                PartInput::Static(v) => v.clone(),
            },
            Src::Op(k) => self.nodes[*k].value.clone(),
            Src::Const(v) => v.clone(),
        }
    }

    pub(crate) fn kind(&self, s: &Src) -> Kind {
        Kind::of(&self.value(s))
    }

    /// The stage of each input (see `PartInput::Dynamic`).
    pub(crate) fn input_stage(&self, k: usize) -> u32 {
        match &self.inputs[k] {
            PartInput::Dynamic { stage, .. } => *stage,
            PartInput::Static(_) => 0,
        }
    }

    /// The recorded function's own inputs a differentiation was taken with respect to (this
    /// one's or an earlier one's): where its orderings move.
    pub(crate) fn primal_wrt(&self) -> Vec<usize> {
        (0..self.inputs.len())
            .filter(|&k| {
                self.input_stage(k) == 0
                    && matches!(self.inputs[k], PartInput::Dynamic { varies: true, .. })
            })
            .collect()
    }

    /// One more than the highest stage: the stage of the directions a differentiation adds.
    pub(crate) fn next_stage(&self) -> u32 {
        (0..self.inputs.len())
            .map(|k| self.input_stage(k))
            .max()
            .unwrap_or(0)
            + 1
    }

    /// Adds a dynamic input of `sample`'s type at `stage`, of the shape `like` says (any, for
    /// `None`), and returns it.
    pub(crate) fn add_input(&mut self, sample: Value, stage: u32, like: Option<Like>) -> Src {
        self.inputs.push(PartInput::Dynamic {
            type_name: sample.type_name().to_string(),
            stage,
            sample,
            varies: false,
            length: None,
            like,
        });
        Src::Input(self.inputs.len() - 1)
    }

    /// `op` on `args`: an existing operation when one computes the same, a constant when
    /// every operand is one, an operand when the operation is an identity on it (`x * 1.0`,
    /// `-(-x)`); else a new operation.
    pub(crate) fn apply(&mut self, op: Operation, args: Vec<Src>) -> Result<Src, DiffError> {
        let op = plain_by_constant(op, &args);
        let args = canonical(&op, args);
        if let Some(s) = self.simplify(&op, &args) {
            return Ok(s);
        }
        let key = self.key(&op, &args);
        if let Some(&k) = key.as_ref().and_then(|key| self.memo.get(key)) {
            return Ok(Src::Op(k));
        }
        let values: Vec<Value> = args.iter().map(|a| self.value(a)).collect();
        let value = run_operation(op, &values).map_err(|error| DiffError::Eval {
            at: self.origin.clone(),
            error,
        })?;
        if pure(&op) && args.iter().all(|a| matches!(a, Src::Const(_))) {
            return Ok(Src::Const(value));
        }
        let k = self.nodes.len();
        if let Some(key) = key {
            self.memo.insert(key, k);
        }
        self.nodes.push(Node {
            op,
            args,
            origin: self.origin.clone(),
            value,
            made_for: self.making_for,
            derived: true,
        });
        Ok(Src::Op(k))
    }

    /// The operand an operation is an identity on, exactly (in IEEE arithmetic too).
    fn simplify(&self, op: &Operation, args: &[Src]) -> Option<Src> {
        let is = |s: &Src, x: f64| match s {
            Src::Const(v) => v.by_value().as_f64() == Some(x) && v.scalar_type().is_some(),
            _ => false,
        };
        // The constant must not decide the result's type: `x * 1.0` is `x` when `x` is a
        // float of the constant's type or an array.
        let keeps_type = |x: &Src, c: &Src| match (self.kind(x), self.kind(c)) {
            (Kind::Float(a), Kind::Float(b)) => a == b,
            (Kind::Array(_), Kind::Float(ScalarType::F64)) => true,
            _ => false,
        };
        let product = matches!(op, Operation::Builtin(Builtin::Binary(BinOp::Mul)))
            || Kernel::of(op) == Some(Kernel::Times);
        let quotient = matches!(op, Operation::Builtin(Builtin::Binary(BinOp::Div)))
            || Kernel::of(op) == Some(Kernel::Over);
        match (op, args) {
            (_, [a, b]) if product && is(b, 1.0) && keeps_type(a, b) => Some(a.clone()),
            (_, [a, b]) if product && is(a, 1.0) && keeps_type(b, a) => Some(b.clone()),
            (_, [a, b]) if quotient && is(b, 1.0) && keeps_type(a, b) => Some(a.clone()),
            (Operation::Builtin(Builtin::Unary(UnOp::Neg)), [Src::Op(k)]) => {
                match (&self.nodes[*k].op, self.nodes[*k].args.as_slice()) {
                    (Operation::Builtin(Builtin::Unary(UnOp::Neg)), [inner]) => Some(inner.clone()),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Removes what neither the output nor a guard uses, renumbering the rest (in order, so
    /// the order stays topological), and gives the parts of the program.
    ///
    /// An operation of the program's own that can fail on other inputs ([`Graph::can_fail`])
    /// stays even when the derivative does not read its value: where the function has no
    /// value (`a / b` at `b = 0`, `x.clamp(lo, hi)` at `lo > hi`), its derivative program fails
    /// as the program does, instead of answering.
    pub(crate) fn into_parts(self) -> Parts {
        let mut live: Vec<bool> = (0..self.nodes.len())
            .map(|k| k < self.own && self.can_fail(k))
            .collect();
        let mark = |s: &Src, live: &mut Vec<bool>| {
            if let Src::Op(k) = s {
                live[*k] = true;
            }
        };
        mark(&self.output, &mut live);
        for g in &self.guards {
            mark(&g.condition, &mut live);
        }
        for k in (0..self.nodes.len()).rev() {
            if live[k] {
                for a in &self.nodes[k].args {
                    mark(a, &mut live);
                }
            }
        }
        let mut renumber = vec![usize::MAX; self.nodes.len()];
        let mut ops = Vec::new();
        let fix = |s: &Src, renumber: &[usize]| match s {
            Src::Op(k) => Src::Op(renumber[*k]),
            other => other.clone(),
        };
        for (k, node) in self.nodes.into_iter().enumerate() {
            if !live[k] {
                continue;
            }
            renumber[k] = ops.len();
            ops.push(PartOp {
                operation: node.op,
                args: node.args.iter().map(|a| fix(a, &renumber)).collect(),
                origin: node.origin,
                value: node.value,
                derived: node.derived,
            });
        }
        let guards = self
            .guards
            .into_iter()
            .map(|g| PartGuard {
                condition: fix(&g.condition, &renumber),
                ..g
            })
            .collect();
        Parts {
            name: self.name,
            inputs: self.inputs,
            ops,
            guards,
            output: fix(&self.output, &renumber),
        }
    }

    /// A constant of `like`'s float type (an `f64` for arrays and vectors).
    pub(crate) fn float_like(&self, like: &Src, x: f64) -> Src {
        Src::Const(match self.kind(like) {
            Kind::Float(ScalarType::F32) => (x as f32).snapshot(),
            _ => x.snapshot(),
        })
    }
}

/// Builds operations into a program: what a [`Rule`](super::Rule) uses to write a derivative.
/// Each operation is evaluated at the recorded point as it is built (so a rule can look at
/// values with [`value`](Builder::value)), shared with an identical one already built, and
/// folded when all its operands are constants.
///
/// ```
/// use irtrack::diff::{differentiate_with, Rule, Rules};
/// use irtrack::program::{Input, Program};
/// use irtrack::{register_operation, track, tracked};
///
/// fn cube(x: f64) -> f64 {
///     x * x * x
/// }
///
/// #[tracked]
/// fn f(x: f64) -> f64 {
///     cube(x) + 1.0
/// }
///
/// register_operation(cube);
/// // d cube(x) = 3 x² dx, written with the builder.
/// let rules = Rules::new().with(
///     cube,
///     Rule::jvp(|b, args, tangents| {
///         let Some(dx) = &tangents[0] else { return Ok(None) };
///         let x = &args[0];
///         let three = b.constant(3.0);
///         let xx = b.mul(x, x)?;
///         let c = b.mul(&three, &xx)?;
///         Ok(Some(b.mul(&c, dx)?))
///     }),
/// );
/// let p = Program::from_trace(&track(f, (2.0,)), &[Input::Dynamic]).unwrap();
/// let d = differentiate_with(&p, &[0], &rules).unwrap();
/// assert_eq!(d.call((2.0, 1.0)).unwrap().as_f64(), Some(12.0));
/// ```
pub struct Builder<'g> {
    pub(crate) g: &'g mut Graph,
}

impl Builder<'_> {
    /// `op` on `args`.
    ///
    /// # Errors
    /// [`DiffError::Eval`] when the operation fails on the recorded values.
    pub fn apply(&mut self, op: Operation, args: &[Var]) -> Result<Var, DiffError> {
        let args = args.iter().map(|a| a.0.clone()).collect();
        self.g.apply(op, args).map(Var)
    }

    /// A call of the function `f`, registered with
    /// [`register_operation`](crate::register_operation).
    ///
    /// # Errors
    /// [`DiffError::NoRule`] when `f` is not registered, [`DiffError::Eval`] when it fails on
    /// the recorded values.
    pub fn call<F: 'static>(&mut self, f: F, args: &[Var]) -> Result<Var, DiffError> {
        let key = crate::core::ids::key_of(&f);
        match crate::core::eval::registered_key(key.id) {
            Some(key) => self.apply(Operation::Registered(key), args),
            None => Err(DiffError::NoRule {
                operation: key.name.to_string(),
                at: self.g.origin.clone(),
                hint: "a rule calls it, and it is not registered: register it with \
                       `irtrack::register_operation`"
                    .into(),
            }),
        }
    }

    /// A constant.
    pub fn constant(&mut self, v: impl Snapshot) -> Var {
        Var(Src::Const(v.snapshot()))
    }

    /// The value `v` has at the recorded point (for a direction: the value of the input it
    /// is a direction of).
    pub fn value(&self, v: &Var) -> Value {
        self.g.value(&v.0)
    }

    /// `a + b`.
    ///
    /// # Errors
    /// As [`apply`](Builder::apply).
    pub fn add(&mut self, a: &Var, b: &Var) -> Result<Var, DiffError> {
        self.apply(
            Operation::Builtin(Builtin::Binary(BinOp::Add)),
            &[a.clone(), b.clone()],
        )
    }

    /// `a - b`.
    ///
    /// # Errors
    /// As [`apply`](Builder::apply).
    pub fn sub(&mut self, a: &Var, b: &Var) -> Result<Var, DiffError> {
        self.apply(
            Operation::Builtin(Builtin::Binary(BinOp::Sub)),
            &[a.clone(), b.clone()],
        )
    }

    /// `a * b`.
    ///
    /// # Errors
    /// As [`apply`](Builder::apply).
    pub fn mul(&mut self, a: &Var, b: &Var) -> Result<Var, DiffError> {
        self.apply(
            Operation::Builtin(Builtin::Binary(BinOp::Mul)),
            &[a.clone(), b.clone()],
        )
    }

    /// `a / b`.
    ///
    /// # Errors
    /// As [`apply`](Builder::apply).
    pub fn div(&mut self, a: &Var, b: &Var) -> Result<Var, DiffError> {
        self.apply(
            Operation::Builtin(Builtin::Binary(BinOp::Div)),
            &[a.clone(), b.clone()],
        )
    }

    /// `-a`.
    ///
    /// # Errors
    /// As [`apply`](Builder::apply).
    pub fn neg(&mut self, a: &Var) -> Result<Var, DiffError> {
        self.apply(
            Operation::Builtin(Builtin::Unary(UnOp::Neg)),
            std::slice::from_ref(a),
        )
    }

    /// A zero of `a`'s type and shape.
    ///
    /// # Errors
    /// As [`apply`](Builder::apply).
    pub fn zeros_like(&mut self, a: &Var) -> Result<Var, DiffError> {
        match self.g.kind(&a.0) {
            Kind::Float(_) => Ok(Var(self.g.float_like(&a.0, 0.0))),
            _ => self.apply(Kernel::ZerosLike.operation(), std::slice::from_ref(a)),
        }
    }
}

/// The key of a user's function, for messages.
pub(crate) fn name_of(op: &Operation) -> String {
    match op {
        Operation::Registered(CalleeKey { name, .. }) => name.to_string(),
        other => other.to_string(),
    }
}
