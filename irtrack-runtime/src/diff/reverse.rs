//! Reverse differentiation of a program by transposition (as JAX derives `vjp` from `jvp`):
//! differentiate forward with a direction `v`, so that every operation depending on `v` is
//! linear in it, then run those operations backwards from a cotangent `u` of the output, each
//! one's transpose sending its cotangent to its operands. What reaches `v` is `uᵀ f'(x)`. The
//! forward rules are the only derivative rules; a transpose exists for the few linear
//! operations they build (sums, scalings, indexing, broadcasting, shifts a user declares
//! linear).

use super::error::DiffError;
use super::forward::{check_output, directions, push_forward};
use super::graph::{name_of, shape, Builder, Graph, Kind, Var};
use super::kernels::Kernel;
use super::rules::{self, Rules};
use crate::core::op::{ArrayOp, BinOp, Builtin, FloatFn, UnOp};
use crate::core::value::Snapshot;
use crate::program::{Like, PartInput, Program, Src};
use crate::view::operation::Operation;

/// The vector-Jacobian product program of `program` for the input `wrt`: it takes the
/// program's inputs and then a cotangent `u` of the output's type, and returns `uᵀ f'(x)`, of
/// the input's type. For a float output and `u = 1` that is the gradient; differentiating it
/// forward gives Hessian-vector products.
///
/// ```
/// use irtrack::diff::reverse;
/// use irtrack::program::{Input, Program};
/// use irtrack::{track, tracked};
///
/// #[tracked]
/// fn f(x: Vec<f64>) -> f64 {
///     x[0] * x[1] + x[1].sin()
/// }
///
/// let p = Program::from_trace(&track(f, (vec![1.0, 2.0],)), &[Input::Dynamic]).unwrap();
/// let g = reverse(&p, 0).unwrap();
/// let grad = g.call((vec![3.0, 0.5], 1.0)).unwrap();
/// assert_eq!(grad.downcast_ref::<Vec<f64>>(), Some(&vec![0.5, 3.0 + 0.5f64.cos()]));
/// ```
///
/// # Errors
/// As [`differentiate`](super::differentiate), and [`DiffError::NoTranspose`] for a user's
/// linear function whose rule has no transpose.
pub fn reverse(program: &Program, wrt: usize) -> Result<Program, DiffError> {
    reverse_with(program, wrt, &Rules::global())
}

/// [`reverse`] with the rules `rules` for users' functions.
///
/// ```
/// use irtrack::diff::{reverse_with, Rule, Rules};
/// use irtrack::program::{Input, Program};
/// use irtrack::{register_operation, track, tracked};
///
/// fn double(x: f64) -> f64 {
///     2.0 * x
/// }
///
/// #[tracked]
/// fn f(x: f64) -> f64 {
///     double(x).sin()
/// }
///
/// register_operation(double);
/// let rules = Rules::new().with(double, Rule::linear(0).transpose(|b, _, ct| b.call(double, &[ct.clone()])));
/// let p = Program::from_trace(&track(f, (0.5,)), &[Input::Dynamic]).unwrap();
/// let g = reverse_with(&p, 0, &rules).unwrap();
/// assert_eq!(g.call((0.5, 1.0)).unwrap().as_f64(), Some(2.0 * 1.0f64.cos()));
/// ```
///
/// # Errors
/// As [`reverse`].
pub fn reverse_with(program: &Program, wrt: usize, rules: &Rules) -> Result<Program, DiffError> {
    let mut g = Graph::from_program(program)?;
    check_output(&g)?;
    super::pins::refuse_point_path(&g, &[wrt])?;
    let stage = g.next_stage();
    let seeds = directions(&mut g, &[wrt], stage)?;
    let v = match seeds[0].1 {
        Src::Input(v) => v,
        _ => unreachable!("a direction is an input"),
    };
    let t = push_forward(&mut g, &seeds, rules)?;
    let out = g.output.clone();
    let sample = g.value(&out);
    // The output's shape as recorded: the path fixes it (a length read is guarded). A shape
    // `shape` does not read is not checked (not taken for a float's).
    let like = shape(&sample).map(Like::Shape);
    let u = g.add_input(sample, stage, like);
    let ct = match t.of(&out) {
        Some(t_out) => Transpose::run(&mut g, v, wrt, &t_out, &u, rules)?,
        None => None,
    };
    let ct = match ct {
        Some(c) => c,
        None => rules::zero(&mut g, &Src::Input(wrt))?,
    };
    g.output = rules::none_without_value(&mut g, &out, ct, Some(&u))?;
    g.name = format!("{}*", g.name);
    let primal_wrt = g.primal_wrt();
    let mut parts = g.into_parts();
    // The direction is not read any more (the transposed operations read only the inputs and
    // `u`): remove it, so the program takes `(x…, u)`.
    let uses_v = |s: &Src| matches!(s, Src::Input(k) if *k == v);
    let used = parts.ops.iter().any(|op| op.args.iter().any(uses_v))
        || parts.guards.iter().any(|g| uses_v(&g.condition))
        || uses_v(&parts.output);
    if used {
        return Err(DiffError::Unsupported {
            at: program_origin(&parts.name),
            reason: "the transposed program still reads the direction (an operation is not \
                     linear in it)"
                .into(),
        });
    }
    let shift = |s: &mut Src| {
        if let Src::Input(k) = s {
            if *k > v {
                *k -= 1;
            }
        }
    };
    for op in &mut parts.ops {
        op.args.iter_mut().for_each(shift);
    }
    for g in &mut parts.guards {
        shift(&mut g.condition);
    }
    shift(&mut parts.output);
    parts.inputs.remove(v);
    debug_assert!(matches!(
        parts.inputs.last(),
        Some(PartInput::Dynamic { .. })
    ));
    Ok(Program::from_parts(parts)
        .deriving_from(program)
        .checking_path(&primal_wrt, super::pins::refusal_at))
}

fn program_origin(name: &str) -> crate::program::Origin {
    crate::program::Origin {
        node: crate::core::ids::NodeId::NONE,
        function: name.to_string(),
        location: None,
        position: 0,
    }
}

/// What an operation's transpose sends to one operand.
enum Back {
    /// A cotangent of the operand's shape.
    Dense(Src),
    /// `value` at `index` of a vector shaped like `like`, zero elsewhere (the transpose of
    /// reading one element): gathered, with the others sent to the same vector, into one
    /// `index_add`, so a gradient of `n` elements read one by one costs `O(n)`, not `O(n²)`.
    At { like: Src, index: Src, value: Src },
}

/// The cotangent sent to a value so far.
#[derive(Default)]
struct Acc {
    dense: Option<Src>,
    /// `index, value` pairs.
    sparse: Vec<Src>,
    like: Option<Src>,
}

impl Acc {
    fn add(&mut self, g: &mut Graph, back: Back) -> Result<(), DiffError> {
        match back {
            Back::Dense(c) => {
                self.dense = Some(match self.dense.take() {
                    None => c,
                    Some(before) => rules::add(g, &before, &c)?,
                });
            }
            Back::At { like, index, value } => {
                self.like.get_or_insert(like);
                self.sparse.push(index);
                self.sparse.push(value);
            }
        }
        Ok(())
    }

    fn finish(self, g: &mut Graph) -> Result<Option<Src>, DiffError> {
        if self.sparse.is_empty() {
            return Ok(self.dense);
        }
        let base = match (self.dense, self.like) {
            (Some(d), _) => d,
            (None, Some(like)) => rules::kernel(g, Kernel::ZerosLike, vec![like])?,
            (None, None) => unreachable!("a sparse cotangent has a shape"),
        };
        let mut args = vec![base];
        args.extend(self.sparse);
        rules::kernel(g, Kernel::IndexAdd, args).map(Some)
    }
}

/// The transposition of the operations linear in the direction `v`.
struct Transpose<'r> {
    /// The input `v` is a direction of.
    x: usize,
    v: usize,
    /// Which operations depend on `v` (are linear in it).
    linear: Vec<bool>,
    rules: &'r Rules,
}

impl Transpose<'_> {
    /// The cotangent of `v` given the cotangent `u` of `t_out` (`None`: zero).
    fn run(
        g: &mut Graph,
        v: usize,
        x: usize,
        t_out: &Src,
        u: &Src,
        rules: &Rules,
    ) -> Result<Option<Src>, DiffError> {
        let n = g.nodes.len();
        let mut tr = Transpose {
            x,
            v,
            linear: vec![false; n],
            rules,
        };
        for k in 0..n {
            tr.linear[k] = g.nodes[k].args.iter().any(|a| tr.is_linear(a));
        }
        let mut ct: Vec<Acc> = (0..n).map(|_| Acc::default()).collect();
        let mut ct_v = Acc::default();
        tr.accumulate(g, t_out, Back::Dense(u.clone()), &mut ct, &mut ct_v)?;
        for k in (0..n).rev() {
            if !tr.linear[k] {
                continue;
            }
            let Some(c) = std::mem::take(&mut ct[k]).finish(g)? else {
                continue;
            };
            g.origin = g.nodes[k].origin.clone();
            let args = g.nodes[k].args.clone();
            for (j, a) in args.iter().enumerate() {
                if !tr.is_linear(a) {
                    continue;
                }
                let back = tr.rule(g, k, j, &c)?;
                tr.accumulate(g, a, back, &mut ct, &mut ct_v)?;
            }
        }
        ct_v.finish(g)
    }

    fn is_linear(&self, s: &Src) -> bool {
        match s {
            Src::Input(k) => *k == self.v,
            Src::Op(k) => self.linear.get(*k).copied().unwrap_or(false),
            Src::Const(_) => false,
        }
    }

    fn accumulate(
        &self,
        g: &mut Graph,
        target: &Src,
        back: Back,
        ct: &mut [Acc],
        ct_v: &mut Acc,
    ) -> Result<(), DiffError> {
        match target {
            Src::Input(k) if *k == self.v => ct_v.add(g, back),
            Src::Op(k) => ct[*k].add(g, back),
            _ => Ok(()),
        }
    }

    /// A value not linear in `v` with the shape of the linear value `s`: what a cotangent of
    /// `s` must be shaped like. Found through the operations `s` comes from: an operand of
    /// the same shape, or the result of the operation whose rule built `s`.
    fn witness(&self, g: &Graph, s: &Src) -> Option<Src> {
        let k = match s {
            Src::Input(k) if *k == self.v => return Some(Src::Input(self.x)),
            Src::Op(k) if self.is_linear(s) => *k,
            other => return Some(other.clone()),
        };
        let node = &g.nodes[k];
        let want = shape(&node.value)?;
        let same = |a: &Src| shape(&g.value(a)).as_ref() == Some(&want);
        if let Some(a) = node.args.iter().find(|a| !self.is_linear(a) && same(a)) {
            return Some(a.clone());
        }
        if let Some(p) = node.made_for.map(Src::Op).filter(|p| same(p)) {
            return Some(p);
        }
        node.args
            .iter()
            .filter(|a| self.is_linear(a) && same(a))
            .find_map(|a| self.witness(g, a))
    }

    fn no_transpose(&self, g: &Graph, k: usize) -> DiffError {
        DiffError::NoTranspose {
            operation: name_of(&g.nodes[k].op),
            at: g.nodes[k].origin.clone(),
        }
    }

    fn shape_of(&self, g: &Graph, k: usize, s: &Src) -> Result<Src, DiffError> {
        self.witness(g, s).ok_or_else(|| self.no_transpose(g, k))
    }

    /// The cotangent `c` of operation `k`'s result sent to a value shaped like its operand
    /// `j`, which broadcasting may have widened (an elementwise operation whose other operand
    /// is `other`).
    fn unbroadcast(&self, g: &mut Graph, k: usize, j: usize, c: Src) -> Result<Src, DiffError> {
        let args = g.nodes[k].args.clone();
        let (a, other) = (&args[j], &args[1 - j]);
        match (Kind::of(&g.nodes[k].value), g.kind(a), g.kind(other)) {
            (Kind::Array(_), Kind::Float(_), _) => g.apply(Operation::Array(ArrayOp::Sum), vec![c]),
            (Kind::Array(_), Kind::Array(_), Kind::Array(_)) => {
                let w = self.shape_of(g, k, a)?;
                rules::kernel(g, Kernel::SumLike, vec![c, w])
            }
            _ => Ok(c),
        }
    }

    /// The transpose of operation `k` in its operand `j`, applied to the cotangent `c`.
    fn rule(&self, g: &mut Graph, k: usize, j: usize, c: &Src) -> Result<Back, DiffError> {
        if let Builtin::Index = match g.nodes[k].op {
            Operation::Builtin(b) => b,
            _ => Builtin::Tuple,
        } {
            let w = self.shape_of(g, k, &g.nodes[k].args[0].clone())?;
            return Ok(Back::At {
                like: w,
                index: g.nodes[k].args[1].clone(),
                value: c.clone(),
            });
        }
        self.dense_rule(g, k, j, c).map(Back::Dense)
    }

    /// The transpose of operation `k` (other than an index) in its operand `j`.
    fn dense_rule(&self, g: &mut Graph, k: usize, j: usize, c: &Src) -> Result<Src, DiffError> {
        let node = g.nodes[k].clone();
        let args = &node.args;
        let nonlinear = || self.no_transpose(g, k);
        let other_linear = |i: usize| args.get(i).is_some_and(|a| self.is_linear(a));
        match node.op {
            Operation::Builtin(b) => match b {
                Builtin::Binary(BinOp::Add) | Builtin::Assign(BinOp::Add) => {
                    self.unbroadcast(g, k, j, c.clone())
                }
                Builtin::Binary(BinOp::Sub) | Builtin::Assign(BinOp::Sub) => {
                    let back = self.unbroadcast(g, k, j, c.clone())?;
                    if j == 0 {
                        Ok(back)
                    } else {
                        rules::neg(g, &back)
                    }
                }
                Builtin::Binary(BinOp::Mul) | Builtin::Assign(BinOp::Mul) => {
                    if other_linear(1 - j) {
                        return Err(nonlinear());
                    }
                    let p = rules::mul(g, c, &args[1 - j])?;
                    self.unbroadcast(g, k, j, p)
                }
                Builtin::Binary(BinOp::Div) | Builtin::Assign(BinOp::Div) if j == 0 => {
                    if other_linear(1) {
                        return Err(nonlinear());
                    }
                    let p = rules::div(g, c, &args[1])?;
                    self.unbroadcast(g, k, j, p)
                }
                Builtin::Unary(UnOp::Neg) => rules::neg(g, c),
                Builtin::Cast(_) => match g.kind(&args[0]) {
                    Kind::Float(t) => {
                        g.apply(Operation::Builtin(Builtin::Cast(t)), vec![c.clone()])
                    }
                    _ => Err(nonlinear()),
                },
                Builtin::VecOf | Builtin::ArrayOf => g.apply(
                    Operation::Builtin(Builtin::Index),
                    vec![c.clone(), Src::Const(j.snapshot())],
                ),
                Builtin::Method(f @ (FloatFn::ToDegrees | FloatFn::ToRadians)) => {
                    g.apply(Operation::Builtin(Builtin::Method(f)), vec![c.clone()])
                }
                Builtin::Deref | Builtin::Bind | Builtin::Guard | Builtin::Clone => Ok(c.clone()),
                _ => Err(nonlinear()),
            },
            Operation::Array(a) => match a {
                ArrayOp::Sum => {
                    let w = self.shape_of(g, k, &args[0])?;
                    rules::kernel(g, Kernel::BroadcastLike, vec![c.clone(), w])
                }
                ArrayOp::Transpose => {
                    g.apply(Operation::Array(ArrayOp::Transpose), vec![c.clone()])
                }
                ArrayOp::Copy => Ok(c.clone()),
                ArrayOp::Map(f @ (FloatFn::ToDegrees | FloatFn::ToRadians)) => {
                    g.apply(Operation::Array(ArrayOp::Map(f)), vec![c.clone()])
                }
                ArrayOp::Dot => {
                    if other_linear(1 - j) {
                        return Err(nonlinear());
                    }
                    let rank = |s: &Src, g: &Graph| match g.kind(s) {
                        Kind::Array(r) => r,
                        _ => 0,
                    };
                    let (ra, rb) = (rank(&args[0], g), rank(&args[1], g));
                    let dot = |g: &mut Graph, p: Src, q: Src| {
                        g.apply(Operation::Array(ArrayOp::Dot), vec![p, q])
                    };
                    let transpose = |g: &mut Graph, p: &Src| {
                        g.apply(Operation::Array(ArrayOp::Transpose), vec![p.clone()])
                    };
                    let (a0, a1) = (args[0].clone(), args[1].clone());
                    match (j, ra, rb) {
                        (0, 1, 1) => rules::mul(g, c, &a1),
                        (1, 1, 1) => rules::mul(g, &a0, c),
                        (0, 2, 1) => rules::kernel(g, Kernel::Outer, vec![c.clone(), a1]),
                        (1, 2, 1) => dot(g, c.clone(), a0),
                        (0, 1, 2) => dot(g, a1, c.clone()),
                        (1, 1, 2) => rules::kernel(g, Kernel::Outer, vec![a0, c.clone()]),
                        (0, 2, 2) => {
                            let bt = transpose(g, &a1)?;
                            dot(g, c.clone(), bt)
                        }
                        (1, 2, 2) => {
                            let at = transpose(g, &a0)?;
                            dot(g, at, c.clone())
                        }
                        _ => Err(nonlinear()),
                    }
                }
                _ => Err(nonlinear()),
            },
            Operation::Registered(_) => {
                if let Some(kern) = Kernel::of(&node.op) {
                    return self.kernel_rule(g, k, kern, j, c);
                }
                match rules::user_transpose(self.rules, &node.op) {
                    Some((lin, f)) if lin == j => {
                        let vars: Vec<Var> = args.iter().cloned().map(Var).collect();
                        f(&mut Builder { g }, &vars, &Var(c.clone())).map(|v| v.0)
                    }
                    _ => Err(nonlinear()),
                }
            }
        }
    }

    fn kernel_rule(
        &self,
        g: &mut Graph,
        k: usize,
        kern: Kernel,
        j: usize,
        c: &Src,
    ) -> Result<Src, DiffError> {
        let args = g.nodes[k].args.clone();
        match (kern, j) {
            (Kernel::Select, 1 | 2) => {
                let z = rules::zero(g, c)?;
                let (a, b) = if j == 1 {
                    (c.clone(), z)
                } else {
                    (z, c.clone())
                };
                rules::kernel(g, Kernel::Select, vec![args[0].clone(), a, b])
            }
            (Kernel::BroadcastLike, 0) => {
                let w = self.shape_of(g, k, &args[0])?;
                rules::kernel(g, Kernel::SumLike, vec![c.clone(), w])
            }
            (Kernel::SumLike, 0) => {
                let w = self.shape_of(g, k, &args[0])?;
                rules::kernel(g, Kernel::BroadcastLike, vec![c.clone(), w])
            }
            // Products and quotients the rules built: linear in one operand, as `*` and `/`.
            (Kernel::Times, 0 | 1) => {
                if self.is_linear(&args[1 - j]) {
                    return Err(self.no_transpose(g, k));
                }
                let p = rules::mul(g, c, &args[1 - j])?;
                self.unbroadcast(g, k, j, p)
            }
            (Kernel::Over, 0) => {
                if self.is_linear(&args[1]) {
                    return Err(self.no_transpose(g, k));
                }
                let p = rules::div(g, c, &args[1])?;
                self.unbroadcast(g, k, j, p)
            }
            (Kernel::IndexAdd, 0) => Ok(c.clone()),
            (Kernel::IndexAdd, j) if j % 2 == 0 => g.apply(
                Operation::Builtin(Builtin::Index),
                vec![c.clone(), args[j - 1].clone()],
            ),
            (Kernel::VecAdd, _) => Ok(c.clone()),
            (Kernel::Outer, 0) => g.apply(
                Operation::Array(ArrayOp::Dot),
                vec![c.clone(), args[1].clone()],
            ),
            (Kernel::Outer, 1) => g.apply(
                Operation::Array(ArrayOp::Dot),
                vec![args[0].clone(), c.clone()],
            ),
            _ => Err(self.no_transpose(g, k)),
        }
    }
}
