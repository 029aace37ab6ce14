//! Rust source of a program (FrechetDiff's `emit_code`): a function taking the recorded
//! function's dynamic inputs and returning one closure per differentiation, each operation in
//! the outermost closure whose inputs it needs, so calling `f(x)` once and its closure on many
//! directions computes what depends on `x` once.

use super::error::DiffError;
use super::graph::Kind;
use super::kernels::Kernel;
use crate::core::op::{ArrayOp, BinOp, Builtin, FloatFn, FloatQuery, ScalarType, UnOp};
use crate::core::value::Value;
use crate::program::{Like, Origin, PartInput, Parts, Program, Src};
use crate::view::operation::Operation;
use std::fmt::Write;

/// The Rust source of `program` as a function named `name`, formatted with prettyplease.
///
/// The function takes the program's dynamic inputs of stage 0 (the recorded function's
/// arguments; static ones are constants in the body) and returns
/// `Result<…, &'static str>`: `Err` names the guard of the recorded path the inputs fail.
/// A program differentiated `n` times gives `Ok` of a closure taking the first direction and
/// returning a boxed closure taking the second, and so on; the last returns
/// `f⁽ⁿ⁾(x)(v₁, …, vₙ)` as a `Result` too, `Err` where the emitted code cannot vouch for it:
/// the value is infinite, or a product took an infinity into a zero, which the program itself
/// tells apart from a true value when it is called and emitted code does not
/// ([`Noted`](super::Noted)). Each operation sits in the outermost closure whose inputs it
/// needs.
/// Calls of registered functions are written as calls of their name, which must be in scope
/// where the source is included.
///
/// The emitted code uses `ndarray` for arrays and `irtrack::diff::sum_like` where reverse mode
/// sums a broadcast cotangent; an array operation on shapes that do not fit panics there, as
/// `ndarray`'s operators do. A direction must have its input's shape and a cotangent the
/// recorded output's, as the program checks ([`ReplayError::Shape`]): the last closure returns
/// `Err` when one has not, a closure returning a closure panics.
///
/// [`ReplayError::Shape`]: crate::program::ReplayError::Shape
///
/// ```
/// use irtrack::diff::{differentiate, emit_rust};
/// use irtrack::program::{Input, Program};
/// use irtrack::{track, tracked};
///
/// #[tracked]
/// fn f(x: f64) -> f64 {
///     x.sin() * x
/// }
///
/// let p = Program::from_trace(&track(f, (1.0,)), &[Input::Dynamic]).unwrap();
/// let src = emit_rust(&differentiate(&p, &[0]).unwrap(), "df").unwrap();
/// assert!(src.contains("pub fn df(x1: f64) -> Result<impl Fn(f64) -> Result<f64, &'static str>, &'static str>"), "{src}");
/// assert!(src.contains("let s1 = x1.sin();"), "{src}");
/// assert!(src.contains("let s5 = noted1.times(v1, s3);"), "{src}");
/// // NaN where `f` has no value (`x.sin() * x` at a NaN), whatever the formula gives.
/// assert!(src.contains("let s9 = if s4 { f64::NAN } else { s8 };"), "{src}");
/// ```
///
/// # Errors
/// [`DiffError::Unsupported`] for an operation or a value type the emitter has no Rust for
/// (a `switch`, a `?`, a struct), or a guard on a direction.
pub fn emit_rust(program: &Program, name: &str) -> Result<String, DiffError> {
    let parts = program
        .parts()
        .map_err(|(at, what)| DiffError::Unsupported {
            at,
            reason: format!("`{what}` has no emitted Rust"),
        })?;
    let mut emitter = Emitter::new(&parts, name)?;
    emitter.tie_prelude = tie_prelude(program)?;
    let text = emitter.function()?;
    let file = syn::parse_file(&text).map_err(|e| DiffError::Unsupported {
        at: origin(&parts.name),
        reason: format!("the emitted source does not parse ({e}): {text}"),
    })?;
    Ok(prettyplease::unparse(&file))
}

/// For a derivative program that checks its path at ties (`program::ties`): code computing
/// the recorded function's watched orderings, kinks and jumps (and what they read) from its
/// inputs, each followed by `Err` at its tie. Emitted code holds no building check to run
/// there, so it refuses at every such tie, also where the program answers (one kink alone).
/// The values are computed again (named `p1, p2, …`), cloned, never moved.
fn tie_prelude(program: &Program) -> Result<String, DiffError> {
    let Some((primal, watched)) = program.watched_path() else {
        return Ok(String::new());
    };
    let parts = primal
        .parts()
        .map_err(|(at, what)| DiffError::Unsupported {
            at,
            reason: format!("`{what}` has no emitted Rust"),
        })?;
    let mut e = Emitter::new(&parts, "primal")?;
    e.ties = true;
    for name in &mut e.op_names {
        *name = format!("p{}", &name[1..]);
    }
    e.last.iter_mut().for_each(Vec::clear);
    let mut needed: Vec<bool> = (0..parts.ops.len())
        .map(|k| watched.get(k).copied().unwrap_or(false))
        .collect();
    for k in (0..parts.ops.len()).rev() {
        if needed[k] {
            for a in &parts.ops[k].args {
                if let Src::Op(j) = a {
                    needed[*j] = true;
                }
            }
        }
    }
    let mut out = String::new();
    for k in (0..parts.ops.len()).filter(|&k| needed[k]) {
        let expr = match e.checked_expr(k)? {
            Some(checked) => checked,
            None => e.expr(k)?,
        };
        let _ = writeln!(out, "let {} = {expr};", e.op_names[k]);
        if !watched.get(k).copied().unwrap_or(false) {
            continue;
        }
        if let Some(test) = e.tie_test(k)? {
            let msg = format!(
                "{}: at a tie of an ordering, a kink or a jump of the recorded function; emitted \
                 code cannot tell whether the path has a derivative here (it may hold at this \
                 point alone): call the program, which checks",
                parts.ops[k].origin
            );
            let _ = writeln!(out, "if {test} {{ return Err({msg:?}); }}");
        }
    }
    Ok(out)
}

fn same_src(a: &Src, b: &Src) -> bool {
    matches!((a, b), (Src::Input(x), Src::Input(y)) | (Src::Op(x), Src::Op(y)) if x == y)
}

fn origin(name: &str) -> Origin {
    Origin {
        node: crate::core::ids::NodeId::NONE,
        function: name.to_string(),
        location: None,
        position: 0,
    }
}

/// The variable of the [`Noted`](super::kernels::Noted) of the closure of stage `s`.
fn noted(s: u32) -> String {
    format!("noted{s}")
}

/// The Rust type of a value.
#[derive(Clone, Debug, PartialEq)]
enum Ty {
    Scalar(ScalarType),
    Vector,
    Array(usize),
}

impl Ty {
    fn of(v: &Value) -> Option<Ty> {
        if let Some(t) = v.scalar_type() {
            return Some(Ty::Scalar(t));
        }
        match Kind::of(v) {
            Kind::Vector => Some(Ty::Vector),
            Kind::Array(r) => Some(Ty::Array(r)),
            _ => None,
        }
    }

    fn rust(&self) -> String {
        match self {
            Ty::Scalar(t) => t.name().to_string(),
            Ty::Vector => "Vec<f64>".into(),
            Ty::Array(r) if *r <= 3 => format!("ndarray::Array{r}<f64>"),
            Ty::Array(_) => "ndarray::ArrayD<f64>".into(),
        }
    }

    fn is_copy(&self) -> bool {
        matches!(self, Ty::Scalar(_))
    }

    fn is_array(&self) -> bool {
        matches!(self, Ty::Array(_))
    }
}

/// A value as the emitted code reads it.
#[derive(Clone)]
struct Atom {
    code: String,
    ty: Ty,
    /// A literal, which needs parentheses as a receiver.
    literal: bool,
    /// Read for the last time, by value: moved rather than cloned.
    last: bool,
}

impl Atom {
    /// The value by value (cloned when it is not `Copy` and read again later).
    fn owned(&self) -> String {
        if self.ty.is_copy() || self.last {
            self.code.clone()
        } else {
            format!("{}.clone()", self.code)
        }
    }

    /// The value as a method receiver.
    fn recv(&self) -> String {
        if self.literal {
            format!("({})", self.code)
        } else {
            self.code.clone()
        }
    }

    /// The value as an operand of an arithmetic operator: arrays by reference, or by value at
    /// their last read, so that `ndarray` writes the result into their buffer instead of a new
    /// one.
    fn operand(&self) -> String {
        if self.ty.is_array() && !self.last {
            format!("&{}", self.code)
        } else {
            self.recv()
        }
    }
}

struct Emitter<'p> {
    parts: &'p Parts,
    name: String,
    input_stage: Vec<u32>,
    op_stage: Vec<u32>,
    /// The number of closures.
    stages: u32,
    /// The variable of each operation: `s1, s2, …` in the order the code runs them (stage by
    /// stage).
    op_names: Vec<String>,
    /// For each operation, the values it reads for the last time ([`last_reads`]).
    last: Vec<Vec<Src>>,
    /// Whether the program checks its path at ties at each call (`program::ties`): the
    /// emitted code refuses at every tie it could be asked about instead.
    ties: bool,
    /// For such a program: the code that computes the recorded function's watched operations
    /// and returns `Err` at the tie of one ([`tie_prelude`]).
    tie_prelude: String,
}

/// For each operation, the values it may move instead of cloning: a dynamic input or an
/// operation's value of its own stage that it reads once and nothing reads after it. A value
/// of an earlier stage is never moved (the closure reading it is `Fn`), nor the output, nor a
/// guard's condition. Without this, each registered call and reverse-mode sum would copy an
/// array it is the last to read.
fn last_reads(parts: &Parts, input_stage: &[u32], op_stage: &[u32]) -> Vec<Vec<Src>> {
    let key = |s: &Src| match s {
        Src::Input(k) if matches!(parts.inputs[*k], PartInput::Dynamic { .. }) => Some((0, *k)),
        Src::Op(k) => Some((1, *k)),
        _ => None,
    };
    let stage = |(kind, k): (u8, usize)| {
        if kind == 0 {
            input_stage[k]
        } else {
            op_stage[k]
        }
    };
    let mut readers: std::collections::HashMap<(u8, usize), Vec<usize>> = Default::default();
    for (j, op) in parts.ops.iter().enumerate() {
        for a in &op.args {
            if let Some(v) = key(a) {
                readers.entry(v).or_default().push(j);
            }
        }
    }
    let mut kept: Vec<(u8, usize)> = parts
        .guards
        .iter()
        .filter_map(|g| key(&g.condition))
        .collect();
    kept.extend(key(&parts.output));
    let mut last = vec![Vec::new(); parts.ops.len()];
    for (v, js) in readers {
        let Some(&j) = js.iter().max() else { continue };
        let once = js.iter().filter(|&&i| i == j).count() == 1;
        if once && !kept.contains(&v) && js.iter().all(|&i| op_stage[i] == stage(v)) {
            last[j].push(if v.0 == 0 {
                Src::Input(v.1)
            } else {
                Src::Op(v.1)
            });
        }
    }
    last
}

fn unsupported(at: &Origin, reason: impl Into<String>) -> DiffError {
    DiffError::Unsupported {
        at: at.clone(),
        reason: reason.into(),
    }
}

/// A float as a Rust literal of its type, exactly (`{:?}` prints the shortest text that
/// reads back to the same bits).
fn float_literal(x: f64, ty: &str) -> String {
    if x.is_nan() {
        // A NaN's sign is read (`copysign`, `is_sign_negative`): any other than the canonical
        // one is written by its bits.
        if x.to_bits() == f64::NAN.to_bits() {
            format!("{ty}::NAN")
        } else {
            format!("f64::from_bits({:#x})", x.to_bits())
        }
    } else if x.is_infinite() {
        format!(
            "{ty}::{}",
            if x > 0.0 { "INFINITY" } else { "NEG_INFINITY" }
        )
    } else {
        format!("{x:?}_{ty}")
    }
}

fn scalar_literal(v: &Value) -> Option<String> {
    let v = v.by_value();
    let t = v.scalar_type()?;
    Some(match t {
        ScalarType::F64 => float_literal(*v.downcast_ref::<f64>()?, "f64"),
        ScalarType::F32 => {
            let x = *v.downcast_ref::<f32>()?;
            if x.is_finite() {
                format!("{x:?}_f32")
            } else if x.is_nan() && x.to_bits() != f32::NAN.to_bits() {
                format!("f32::from_bits({:#x})", x.to_bits())
            } else {
                float_literal(x as f64, "f32")
            }
        }
        ScalarType::Bool => v.downcast_ref::<bool>()?.to_string(),
        ScalarType::Char => format!("{:?}", v.downcast_ref::<char>()?),
        t => format!("{}_{}", v, t.name()),
    })
}

impl<'p> Emitter<'p> {
    fn new(parts: &'p Parts, name: &str) -> Result<Emitter<'p>, DiffError> {
        if syn::parse_str::<syn::Ident>(name).is_err() {
            return Err(unsupported(
                &origin(&parts.name),
                format!("`{name}` is not a Rust identifier"),
            ));
        }
        let input_stage: Vec<u32> = parts
            .inputs
            .iter()
            .map(|i| match i {
                PartInput::Dynamic { stage, .. } => *stage,
                PartInput::Static(_) => 0,
            })
            .collect();
        let mut op_stage: Vec<u32> = Vec::with_capacity(parts.ops.len());
        for op in &parts.ops {
            let s = op
                .args
                .iter()
                .map(|a| match a {
                    Src::Input(k) => input_stage[*k],
                    Src::Op(k) => op_stage[*k],
                    Src::Const(_) => 0,
                })
                .max()
                .unwrap_or(0);
            op_stage.push(s);
        }
        let stages = input_stage.iter().copied().max().unwrap_or(0);
        let mut order: Vec<usize> = (0..parts.ops.len()).collect();
        order.sort_by_key(|&k| op_stage[k]);
        let mut op_names = vec![String::new(); parts.ops.len()];
        for (i, &k) in order.iter().enumerate() {
            op_names[k] = format!("s{}", i + 1);
        }
        let last = last_reads(parts, &input_stage, &op_stage);
        Ok(Emitter {
            parts,
            name: name.to_string(),
            input_stage,
            op_stage,
            stages,
            op_names,
            last,
            ties: false,
            tie_prelude: String::new(),
        })
    }

    /// Where the program checks its path at ties: the Rust test that operation `k` of the
    /// recorded function's values is at its tie (`program::ties`), for a comparison of two
    /// values, a kink choosing an operand or a sign (`max`, `min`, `clamp`, `abs`, and the
    /// comparisons and `signum` their rules are made of), a class query at an edge.
    fn tie_test(&self, k: usize) -> Result<Option<String>, DiffError> {
        if !self.ties {
            return Ok(None);
        }
        let op = &self.parts.ops[k];
        let Operation::Builtin(b) = op.operation else {
            return Ok(None);
        };
        let mut x = Vec::with_capacity(op.args.len());
        let mut float_operands = true;
        for a in &op.args {
            let atom = self.atom(a, &op.origin)?;
            let Ty::Scalar(t) = atom.ty else {
                return Ok(None);
            };
            float_operands &= t.is_float();
            x.push(atom.code);
        }
        let zero = |a: &str| format!("{a} == 0.0");
        Ok(match (b, x.as_slice()) {
            (Builtin::Compare(_), [a, c]) if !same_src(&op.args[0], &op.args[1]) => {
                Some(format!("{a} == {c}"))
            }
            (Builtin::Method(FloatFn::Max | FloatFn::Min), [a, c]) => Some(format!("{a} == {c}")),
            (Builtin::Method(FloatFn::Hypot | FloatFn::Atan2), [a, b]) => {
                Some(format!("{} && {}", zero(a), zero(b)))
            }
            (Builtin::Method(FloatFn::Abs | FloatFn::Signum), [a]) => Some(zero(a)),
            (
                Builtin::Method(FloatFn::Floor | FloatFn::Ceil | FloatFn::Trunc | FloatFn::Fract),
                [a],
            ) => Some(format!("{a}.fract() == 0.0")),
            (Builtin::Method(FloatFn::Round | FloatFn::RoundTiesEven), [a]) => {
                Some(format!("{a}.fract().abs() == 0.5"))
            }
            (Builtin::Method(FloatFn::Copysign), [a, b]) => {
                Some(format!("{} || {}", zero(a), zero(b)))
            }
            (Builtin::Query(FloatQuery::IsSignNegative | FloatQuery::IsSignPositive), [a]) => {
                Some(zero(a))
            }
            // A float truncated to an integer jumps at integers; a cast between integers
            // (`n as u8`) has no tangent and no tie.
            (Builtin::Cast(t), [a]) if !t.is_float() && float_operands => {
                Some(format!("{a}.fract() == 0.0"))
            }
            // Where they wrap: `a` a nonzero multiple of `b` (`core::ties::jump_sides`).
            (Builtin::Method(FloatFn::RemEuclid | FloatFn::DivEuclid), [a, b]) => Some(format!(
                "{a} != 0.0 && {b} != 0.0 && {a}.rem_euclid({b}) == 0.0"
            )),
            (Builtin::Method(FloatFn::Clamp), [a, lo, hi]) => {
                Some(format!("{a} == {lo} || {a} == {hi}"))
            }
            (Builtin::Query(FloatQuery::IsFinite | FloatQuery::IsInfinite), [a]) => {
                Some(format!("{a}.is_infinite()"))
            }
            (Builtin::Query(FloatQuery::IsNormal | FloatQuery::IsSubnormal), [a]) => Some(format!(
                "({a} == 0.0 || {a}.is_subnormal() || {a}.abs() == {t}::MIN_POSITIVE || \
                 {a}.is_infinite())",
                t = match self.atom(&op.args[0], &op.origin)?.ty {
                    Ty::Scalar(t) => t.name(),
                    _ => "f64",
                }
            )),
            _ => None,
        })
    }

    fn stage(&self, s: &Src) -> u32 {
        match s {
            Src::Input(k) => self.input_stage[*k],
            Src::Op(k) => self.op_stage[*k],
            Src::Const(_) => 0,
        }
    }

    /// The name of input `k`: `x1, x2, …` for the function's own, `v1, v2, …` for the
    /// direction of each differentiation (`v1_1, v1_2` when one took several).
    fn input_name(&self, k: usize) -> String {
        let stage = self.input_stage[k];
        let same: Vec<usize> = (0..self.parts.inputs.len())
            .filter(|&j| {
                self.input_stage[j] == stage
                    && matches!(self.parts.inputs[j], PartInput::Dynamic { .. })
            })
            .collect();
        let pos = same.iter().position(|&j| j == k).unwrap_or(0) + 1;
        match (stage, same.len()) {
            (0, _) => format!("x{pos}"),
            (s, 1) => format!("v{s}"),
            (s, _) => format!("v{s}_{pos}"),
        }
    }

    fn input_ty(&self, k: usize, at: &Origin) -> Result<Ty, DiffError> {
        let v = match &self.parts.inputs[k] {
            PartInput::Dynamic { sample, .. } => sample,
            PartInput::Static(v) => v,
        };
        Ty::of(v).ok_or_else(|| {
            unsupported(
                at,
                format!("an input of type `{}` has no emitted Rust", v.type_name()),
            )
        })
    }

    fn atom(&self, s: &Src, at: &Origin) -> Result<Atom, DiffError> {
        match s {
            Src::Input(k) => Ok(Atom {
                code: self.input_name(*k),
                ty: self.input_ty(*k, at)?,
                literal: false,
                last: false,
            }),
            Src::Op(k) => Ok(Atom {
                code: self.op_names[*k].clone(),
                ty: self.op_ty(*k)?,
                literal: false,
                last: false,
            }),
            Src::Const(v) => self.constant(v, at),
        }
    }

    fn op_ty(&self, k: usize) -> Result<Ty, DiffError> {
        let op = &self.parts.ops[k];
        Ty::of(&op.value).ok_or_else(|| {
            unsupported(
                &op.origin,
                format!(
                    "`{}` gives a `{}`, which has no emitted Rust",
                    op.operation,
                    op.value.type_name()
                ),
            )
        })
    }

    fn constant(&self, v: &Value, at: &Origin) -> Result<Atom, DiffError> {
        if let Some(code) = scalar_literal(v) {
            let ty = Ty::of(v).unwrap_or(Ty::Scalar(ScalarType::F64));
            return Ok(Atom {
                code,
                ty,
                literal: true,
                last: false,
            });
        }
        let ty = Ty::of(v).ok_or_else(|| {
            unsupported(
                at,
                format!("a constant of type `{}` has no emitted Rust", v.type_name()),
            )
        })?;
        let elements = v.float_elements().ok_or_else(|| {
            unsupported(
                at,
                format!(
                    "a constant of type `{}` whose elements are not floats has no emitted Rust",
                    v.type_name()
                ),
            )
        })?;
        let list = elements
            .iter()
            .map(|x| float_literal(*x, "f64"))
            .collect::<Vec<_>>()
            .join(", ");
        // Inline at each use: a constant that is not a scalar is rare (a vector the function
        // built from static inputs), and a `let` would have to be cloned into every closure.
        let code = match &ty {
            Ty::Vector => format!("vec![{list}]"),
            Ty::Array(1) => format!("ndarray::arr1(&[{list}])"),
            Ty::Array(r) => {
                let shape = super::graph::shape(v).unwrap_or_default();
                format!(
                    "ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&{shape:?}), vec![{list}]).expect(\"the recorded shape\").into_dimensionality::<ndarray::Ix{r}>().expect(\"the recorded rank\")"
                )
            }
            Ty::Scalar(_) => unreachable!("scalars are literals"),
        };
        Ok(Atom {
            code,
            ty,
            literal: true,
            last: false,
        })
    }

    /// The expression of operation `k`.
    fn expr(&self, k: usize) -> Result<String, DiffError> {
        let op = &self.parts.ops[k];
        let at = op.origin.clone();
        let args = op
            .args
            .iter()
            .map(|a| {
                let mut atom = self.atom(a, &at)?;
                atom.last = self.last[k].iter().any(|l| same_src(l, a));
                Ok(atom)
            })
            .collect::<Result<Vec<_>, DiffError>>()?;
        let a = |i: usize| args[i].clone();
        let no = |what: &str| unsupported(&at, format!("`{what}` has no emitted Rust"));
        Ok(match op.operation {
            Operation::Builtin(b) => match b {
                Builtin::Binary(o) | Builtin::Assign(o) => {
                    format!("{} {} {}", a(0).operand(), o.symbol(), a(1).operand())
                }
                Builtin::Compare(c) => format!("{} {} {}", a(0).recv(), c.symbol(), a(1).recv()),
                Builtin::Unary(UnOp::Neg) => format!("-{}", a(0).operand()),
                Builtin::Unary(UnOp::Not) => format!("!{}", a(0).recv()),
                Builtin::Method(f) => {
                    let rest: Vec<String> = args[1..].iter().map(|x| x.code.clone()).collect();
                    format!("{}.{}({})", a(0).recv(), f.name(), rest.join(", "))
                }
                Builtin::Query(FloatQuery::FromBits) => match a(0).ty {
                    Ty::Scalar(ScalarType::U64) => format!("f64::from_bits({})", a(0).recv()),
                    Ty::Scalar(ScalarType::U32) => format!("f32::from_bits({})", a(0).recv()),
                    _ => return Err(no("from_bits")),
                },
                Builtin::Query(q) => format!("{}.{}()", a(0).recv(), q.name()),
                Builtin::Cast(t) => format!("{} as {}", a(0).recv(), t.name()),
                Builtin::Index => {
                    let i = match a(1).ty {
                        Ty::Scalar(ScalarType::Usize) => a(1).code,
                        _ => format!("{} as usize", a(1).recv()),
                    };
                    format!("{}[{i}]", a(0).code)
                }
                Builtin::Deref | Builtin::Bind | Builtin::Guard | Builtin::Clone => a(0).owned(),
                Builtin::VecOf | Builtin::ArrayOf => {
                    let items: Vec<String> = args.iter().map(|x| x.recv()).collect();
                    format!("vec![{}]", items.join(", "))
                }
                other => return Err(no(&other.to_string())),
            },
            Operation::Array(o) => match o {
                ArrayOp::Sum => format!("{}.sum()", a(0).code),
                ArrayOp::Dot => format!("{}.dot(&{})", a(0).code, a(1).code),
                ArrayOp::Transpose => format!("{}.t().to_owned()", a(0).code),
                ArrayOp::Copy => a(0).owned(),
                ArrayOp::Map(f) => format!("{}.mapv(f64::{})", a(0).code, f.name()),
                ArrayOp::Powi => format!(
                    "{}.mapv(|e| e.{}({}))",
                    a(0).code,
                    FloatFn::Powi.name(),
                    a(1).recv()
                ),
            },
            Operation::Registered(key) => match Kernel::of(&op.operation) {
                Some(kern) => self.kernel(kern, &args, &at, self.op_stage[k])?,
                None => {
                    let name = key.name.rsplit("::").next().unwrap_or(key.name);
                    let call: Vec<String> = args.iter().map(Atom::owned).collect();
                    format!("{name}({})", call.join(", "))
                }
            },
        })
    }

    /// The expression of operation `k` returning `Err` where the program's evaluation fails
    /// and Rust's would panic or wrap: integer arithmetic and negation (`checked_*`), `clamp`
    /// with bounds out of order or NaN. `None` for every other operation.
    fn checked_expr(&self, k: usize) -> Result<Option<String>, DiffError> {
        let op = &self.parts.ops[k];
        let at = op.origin.clone();
        let args = op
            .args
            .iter()
            .map(|a| self.atom(a, &at))
            .collect::<Result<Vec<_>, DiffError>>()?;
        let integer = |a: &Atom| {
            matches!(a.ty, Ty::Scalar(t) if !t.is_float()
                && !matches!(t, ScalarType::Bool | ScalarType::Char))
        };
        let fail = |what: String| format!("{at}: {what}");
        Ok(match op.operation {
            Operation::Builtin(Builtin::Binary(o) | Builtin::Assign(o))
                if args.len() == 2 && integer(&args[0]) && integer(&args[1]) =>
            {
                let method = match o {
                    BinOp::Add => "checked_add",
                    BinOp::Sub => "checked_sub",
                    BinOp::Mul => "checked_mul",
                    BinOp::Div => "checked_div",
                    BinOp::Rem => "checked_rem",
                    BinOp::Shl | BinOp::Shr => {
                        // Rust masks a shift by the width in a release build: the program
                        // says overflow, as a debug build panics.
                        let method = if o == BinOp::Shl {
                            "checked_shl"
                        } else {
                            "checked_shr"
                        };
                        let msg = fail(format!(
                            "`{}` shifts by the width or more on these inputs",
                            o.symbol()
                        ));
                        return Ok(Some(format!(
                            "match u32::try_from({}).ok().and_then(|s| {}.{method}(s)) {{ \
                             Some(r) => r, None => return Err({msg:?}) }}",
                            args[1].recv(),
                            args[0].recv()
                        )));
                    }
                    _ => return Ok(None),
                };
                let msg = fail(format!(
                    "`{}` overflows or divides by zero on these inputs",
                    o.symbol()
                ));
                Some(format!(
                    "match {}.{method}({}) {{ Some(r) => r, None => return Err({msg:?}) }}",
                    args[0].recv(),
                    args[1].recv()
                ))
            }
            Operation::Builtin(Builtin::Index) if args.len() == 2 => {
                let i = match args[1].ty {
                    Ty::Scalar(ScalarType::Usize) => args[1].code.clone(),
                    _ => format!("{} as usize", args[1].recv()),
                };
                let msg = fail("an index out of bounds on these inputs".into());
                Some(format!(
                    "match {}.get({i}) {{ Some(&r) => r, None => return Err({msg:?}) }}",
                    args[0].code
                ))
            }
            Operation::Builtin(Builtin::Unary(UnOp::Neg)) if integer(&args[0]) => {
                let msg = fail("`-` overflows on these inputs".into());
                Some(format!(
                    "match {}.checked_neg() {{ Some(r) => r, None => return Err({msg:?}) }}",
                    args[0].recv()
                ))
            }
            Operation::Builtin(Builtin::Method(FloatFn::Clamp)) if args.len() == 3 => {
                let msg = fail("`clamp` of bounds out of order or NaN".into());
                Some(format!(
                    "{{ if !({lo} <= {hi}) {{ return Err({msg:?}); }} {x}.clamp({lo}, {hi}) }}",
                    x = args[0].recv(),
                    lo = args[1].recv(),
                    hi = args[2].recv()
                ))
            }
            _ => None,
        })
    }

    /// The expression of a derivative kernel, in a closure of stage `stage`.
    fn kernel(
        &self,
        k: Kernel,
        args: &[Atom],
        at: &Origin,
        stage: u32,
    ) -> Result<String, DiffError> {
        let a = |i: usize| args[i].clone();
        Ok(match k {
            Kernel::Select => format!(
                "if {} {{ {} }} else {{ {} }}",
                a(0).recv(),
                a(1).owned(),
                a(2).owned()
            ),
            Kernel::ZerosLike => match a(0).ty {
                Ty::Scalar(t) => format!("0.0_{}", t.name()),
                Ty::Vector => format!("vec![0.0_f64; {}.len()]", a(0).code),
                Ty::Array(_) => format!("ndarray::Array::zeros({}.raw_dim())", a(0).code),
            },
            Kernel::BroadcastLike => match a(0).ty {
                Ty::Scalar(_) => format!(
                    "ndarray::Array::from_elem({}.raw_dim(), {})",
                    a(1).code,
                    a(0).recv()
                ),
                _ => format!(
                    "{}.broadcast({}.raw_dim()).expect(\"shapes that broadcast\").to_owned()",
                    a(0).code,
                    a(1).code
                ),
            },
            Kernel::SumLike => match a(1).ty {
                Ty::Scalar(_) => match a(0).ty {
                    Ty::Scalar(_) => a(0).code,
                    _ => format!("{}.sum()", a(0).code),
                },
                _ => format!("irtrack::diff::sum_like({}, &{})", a(0).owned(), a(1).code),
            },
            Kernel::IndexAdd => {
                let mut adds = String::new();
                for pair in args[1..].chunks(2) {
                    let i = match pair[0].ty {
                        Ty::Scalar(ScalarType::Usize) => pair[0].code.clone(),
                        _ => format!("{} as usize", pair[0].recv()),
                    };
                    let _ = write!(adds, "z[{i}] += {}; ", pair[1].recv());
                }
                match a(0).ty {
                    Ty::Vector | Ty::Array(1) => {
                        format!("{{ let mut z = {}; {adds}z }}", a(0).owned())
                    }
                    _ => {
                        return Err(unsupported(
                            at,
                            "`index_add` of that type has no emitted Rust",
                        ))
                    }
                }
            }
            Kernel::VecAdd => format!(
                "{}.iter().zip(&{}).map(|(p, q)| p + q).collect::<Vec<f64>>()",
                a(0).code,
                a(1).code
            ),
            Kernel::Times | Kernel::Over => {
                let arg = |x: Atom| {
                    if x.ty.is_array() {
                        format!("&{}", x.code)
                    } else {
                        x.recv()
                    }
                };
                format!(
                    "{}.{}({}, {})",
                    noted(stage),
                    k.name(),
                    arg(a(0)),
                    arg(a(1))
                )
            }
            Kernel::Outer => format!(
                "ndarray::Array2::from_shape_fn(({x}.len(), {y}.len()), |(i, j)| {x}[i] * {y}[j])",
                x = a(0).code,
                y = a(1).code
            ),
        })
    }

    /// The type a closure of stage `s` returns (stage 0: the function's `Ok` type). The last
    /// closure of a derivative returns a `Result` ([`Noted::checked`](super::kernels::Noted)).
    fn returns(&self, s: u32, out: &Ty) -> Result<String, DiffError> {
        if s == self.stages {
            return Ok(if s == 0 {
                out.rust()
            } else {
                format!("Result<{}, &'static str>", out.rust())
            });
        }
        let params = self.params(s + 1)?;
        let tys: Vec<String> = params.iter().map(|(_, t)| t.rust()).collect();
        let inner = self.returns(s + 1, out)?;
        Ok(if s == 0 {
            format!("impl Fn({}) -> {inner}", tys.join(", "))
        } else {
            format!("Box<dyn Fn({}) -> {inner}>", tys.join(", "))
        })
    }

    /// The inputs of stage `s`: name and type.
    fn params(&self, s: u32) -> Result<Vec<(String, Ty)>, DiffError> {
        let at = origin(&self.parts.name);
        (0..self.parts.inputs.len())
            .filter(|&k| {
                self.input_stage[k] == s
                    && matches!(self.parts.inputs[k], PartInput::Dynamic { .. })
            })
            .map(|k| Ok((self.input_name(k), self.input_ty(k, &at)?)))
            .collect()
    }

    /// The stage, name and type of a value read by an operation (`None` for a constant).
    fn value(&self, s: &Src) -> Result<Option<(u32, String, Ty)>, DiffError> {
        let at = origin(&self.parts.name);
        Ok(match s {
            Src::Input(k) => Some((
                self.input_stage[*k],
                self.input_name(*k),
                self.input_ty(*k, &at)?,
            )),
            Src::Op(k) => Some((
                self.op_stage[*k],
                self.op_names[*k].clone(),
                self.op_ty(*k)?,
            )),
            Src::Const(_) => None,
        })
    }

    fn function(self) -> Result<String, DiffError> {
        let parts = self.parts;
        let n = self.stages as usize;
        if let Some(g) = parts.guards.iter().find(|g| self.stage(&g.condition) > 0) {
            return Err(unsupported(
                &g.origin,
                "a guard on a direction has no emitted Rust",
            ));
        }
        let guard = |test: String, g: &crate::program::PartGuard| {
            let msg = format!(
                "{}: {} expected; these inputs take a path the trace did not record",
                g.origin,
                crate::program::guard_condition(g.condition_at, g.expected)
            );
            format!("if {test} {{ return Err({msg:?}); }}\n")
        };
        let mut bodies: Vec<String> = vec![String::new(); n + 1];
        // The lengths of the vectors the path read, checked as the program checks them (a
        // vector of another length takes another path).
        for (k, input) in parts.inputs.iter().enumerate() {
            if let PartInput::Dynamic {
                length: Some((n, at)),
                stage: 0,
                ..
            } = input
            {
                let msg = format!(
                    "{at}: len(argument {}) == {n} expected; these inputs take a path the trace \
                     did not record",
                    k + 1
                );
                let _ = writeln!(
                    bodies[0],
                    "if {}.len() != {n} {{ return Err({msg:?}); }}",
                    self.input_name(k)
                );
            }
        }
        bodies[0].push_str(&self.tie_prelude);
        for g in &parts.guards {
            if let Src::Input(_) = g.condition {
                let c = self.atom(&g.condition, &g.origin)?;
                let test = if g.expected {
                    format!("!{}", c.code)
                } else {
                    c.code
                };
                bodies[0].push_str(&guard(test, g));
            }
        }
        for k in 0..parts.ops.len() {
            let s = self.op_stage[k] as usize;
            let mut e = self.expr(k)?;
            // Where the body returns a `Result` (the function, the last closure), an operation
            // that can fail returns `Err` as the program does, instead of panicking.
            if s == 0 || s == n {
                if let Some(checked) = self.checked_expr(k)? {
                    e = checked;
                }
            }
            let _ = writeln!(bodies[s], "let {} = {e};", self.op_names[k]);
            for g in &parts.guards {
                if matches!(g.condition, Src::Op(c) if c == k) {
                    let test = if g.expected {
                        format!("!{}", self.op_names[k])
                    } else {
                        self.op_names[k].clone()
                    };
                    bodies[s].push_str(&guard(test, g));
                }
            }
        }
        // The values each closure reads from earlier stages, itself or through the closures
        // it creates: a closure of stage t ≥ 2 is created inside the one of stage t - 1, a
        // `Fn` whose captured values it cannot move, so those are cloned first.
        let mut captured: Vec<Vec<(String, u32, Ty)>> = vec![Vec::new(); n + 1];
        let mut note = |v: (u32, String, Ty), reader: u32| {
            for t in (v.0 + 1)..=reader {
                if !captured[t as usize].iter().any(|c| c.0 == v.1) {
                    captured[t as usize].push((v.1.clone(), v.0, v.2.clone()));
                }
            }
        };
        for (k, op) in parts.ops.iter().enumerate() {
            for a in &op.args {
                if let Some(v) = self.value(a)? {
                    note(v, self.op_stage[k]);
                }
            }
        }
        // A direction has its input's shape, a cotangent the recorded output's, as the
        // program checks (`Like`): the closure taking it returns `Err` when it has not (the
        // last one) or panics (one that returns a closure).
        for (j, input) in parts.inputs.iter().enumerate() {
            let PartInput::Dynamic {
                like: Some(like),
                sample,
                stage,
                ..
            } = input
            else {
                continue;
            };
            // A float has no shape to check; a value the graph reads no shape of is not
            // checked (the program's `Like` check answers for it).
            let Some(dims) = crate::diff::graph::shape(sample).filter(|d| !d.is_empty()) else {
                continue;
            };
            let s = *stage as usize;
            let v = self.input_name(j);
            let (test, want) = match like {
                Like::Input(k) => {
                    if let Some(x) = self.value(&Src::Input(*k))? {
                        note(x, *stage);
                    }
                    let x = self.input_name(*k);
                    match dims.len() {
                        1 => (
                            format!("{v}.len() != {x}.len()"),
                            format!("the length of {x}"),
                        ),
                        _ => (
                            format!("{v}.shape() != {x}.shape()"),
                            format!("the shape of {x}"),
                        ),
                    }
                }
                Like::Shape(d) => match d.as_slice() {
                    [m] => (
                        format!("{v}.len() != {m}"),
                        format!("the length {m} of the output"),
                    ),
                    _ => (
                        format!("{v}.shape() != &{d:?}[..]"),
                        format!("the shape {d:?} of the output"),
                    ),
                },
            };
            let msg = format!("{}: {v} must have {want}", parts.name);
            let check = if s == n {
                format!("if {test} {{ return Err({msg:?}); }}\n")
            } else {
                format!("if {test} {{ panic!(\"{{}}\", {msg:?}); }}\n")
            };
            bodies[s].insert_str(0, &check);
        }
        let out = self.atom(&parts.output.clone(), &origin(&parts.name))?;
        let out_value = self.value(&parts.output)?;
        if let Some(v) = out_value.clone() {
            note(v, self.stages);
        }
        let out_code = match &out_value {
            Some((s, _, ty)) if (*s as usize) < n && !ty.is_copy() => {
                format!("{}.clone()", out.code)
            }
            _ => out.code.clone(),
        };
        // Derivatives: each closure with a `times` or `over` has a `Noted` of whether one took
        // ∞ or NaN into a zero (a copy of the one of the closure that created it), and the last
        // closure refuses its value then, or when it is infinite (`Noted::checked`): emitted
        // code keeps none of the bookkeeping `program::limit` needs to tell a true value from
        // an indeterminate one.
        // A program without directions (one built with `diff::Builder`) may have products too:
        // it refuses only what they absorbed, its infinities being its own.
        let mut last_noted: Option<u32> = None;
        for (s, body) in bodies.iter_mut().enumerate() {
            let products = (0..parts.ops.len()).any(|k| {
                self.op_stage[k] as usize == s
                    && matches!(
                        Kernel::of(&parts.ops[k].operation),
                        Some(Kernel::Times | Kernel::Over)
                    )
            });
            if products {
                let from = last_noted.map_or("irtrack::diff::Noted::default()".into(), noted);
                *body = format!("let mut {} = {from};\n{body}", noted(s as u32));
                last_noted = Some(s as u32);
            }
        }
        let message = format!(
            "{}: the derivative is infinite or NaN, or took an infinity into a zero; emitted code \
             cannot tell whether that is right: call the program, which returns it or a \
             `ReplayError`",
            parts.name
        );
        let mut code = if n > 0 {
            let check = last_noted.map_or("irtrack::diff::Noted::default()".into(), noted);
            format!("{check}.checked({out_code}, {message:?})\n")
        } else {
            format!("{out_code}\n")
        };
        for s in (1..=n).rev() {
            let mut clones = String::new();
            if s < n {
                for (name, stage, ty) in &captured[s + 1] {
                    if (*stage as usize) < s && !ty.is_copy() {
                        let _ = writeln!(clones, "let {name} = {name}.clone();");
                    }
                }
            }
            let params = self.params(s as u32)?;
            let list: Vec<String> = params
                .iter()
                .map(|(p, t)| format!("{p}: {}", t.rust()))
                .collect();
            let ret = self.returns(s as u32, &out.ty)?;
            let closure = format!(
                "move |{}| -> {ret} {{\n{}{clones}{code}}}",
                list.join(", "),
                bodies[s]
            );
            code = if s == 1 {
                format!("Ok({closure})\n")
            } else {
                format!("Box::new({closure})\n")
            };
        }
        if n == 0 {
            code = match last_noted {
                Some(_) => {
                    format!("if noted0.absorbed() {{ return Err({message:?}); }}\nOk({out_code})\n")
                }
                None => format!("Ok({out_code})\n"),
            };
        }
        let params = self.params(0)?;
        let list: Vec<String> = params
            .iter()
            .map(|(p, t)| format!("{p}: {}", t.rust()))
            .collect();
        let ret = self.returns(0, &out.ty)?;
        let doc = format!(
            "/// The program `{}` ({}), emitted by `irtrack::diff::emit_rust`.",
            parts.name,
            match n {
                0 => "no direction".to_string(),
                1 => "a direction, in a closure".to_string(),
                n => format!("{n} directions, a closure each"),
            }
        );
        Ok(format!(
            "{doc}\n#[allow(clippy::all, unused_variables, unused_parens)]\npub fn {}({}) -> Result<{ret}, &'static str> {{\n{}{code}}}\n",
            self.name,
            list.join(", "),
            bodies[0],
        ))
    }
}
