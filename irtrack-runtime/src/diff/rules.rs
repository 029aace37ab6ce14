//! Symbolic derivative rules: for each operation, the operations that compute its tangent
//! from its operands, its result and its operands' tangents (FrechetDiff's `diff_rule`, JAX's
//! `jvp` rules). One definition per operation: the built-in ones are the `match` below, keyed
//! by the operation's typed key; a user's function has the [`Rule`] given for it in a
//! [`Rules`] value (or registered with [`register_rule`]).
//!
//! A rule builds operations, so differentiating a derivative applies the rules to the rules'
//! own output: that is how any order comes out of first-order rules. Each operation a rule
//! builds is also evaluated at the recorded point as it is built, so the same definition gives
//! the numeric tangent there (see `docs/derivatives.md` for how the numeric sweep can use it).

use super::error::DiffError;
use super::graph::{name_of, Builder, Graph, Kind, Var};
use super::kernels::Kernel;
use crate::core::eval::literal_as;
use crate::core::op::{ArrayOp, BinOp, Builtin, CmpOp, FloatFn, FloatQuery, ScalarType, UnOp};
use crate::program::Src;
use crate::view::operation::Operation;
use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

type JvpFn = dyn Fn(&mut Builder<'_>, &[Var], &[Option<Var>]) -> Result<Option<Var>, DiffError>
    + Send
    + Sync;
type TransposeFn = dyn Fn(&mut Builder<'_>, &[Var], &Var) -> Result<Var, DiffError> + Send + Sync;

#[derive(Clone)]
enum RuleKind {
    Jvp(Arc<JvpFn>),
    Linear(usize),
}

/// The derivative rule of a user's function (registered with
/// [`register_operation`](crate::register_operation)): either a function building its tangent
/// ([`Rule::jvp`]), or the statement that the function is linear in one operand
/// ([`Rule::linear`]), with that operand's transpose for reverse mode ([`Rule::transpose`]).
///
/// ```
/// use irtrack::diff::{Rule, Rules};
///
/// /// A circular shift: `roll(x, k)[i] = x[i - k]`.
/// fn roll(x: Vec<f64>, k: i64) -> Vec<f64> {
///     let n = x.len() as i64;
///     (0..n).map(|i| x[(i - k).rem_euclid(n) as usize]).collect()
/// }
///
/// // Linear in `x`: its tangent is `roll(dx, k)`, its transpose `roll(ct, -k)`.
/// let rules = Rules::new().with(
///     roll,
///     Rule::linear(0).transpose(|b, args, ct| {
///         let k = b.neg(&args[1])?;
///         b.call(roll, &[ct.clone(), k])
///     }),
/// );
/// # let _ = rules;
/// ```
#[derive(Clone)]
pub struct Rule {
    kind: RuleKind,
    transpose: Option<Arc<TransposeFn>>,
}

impl Rule {
    /// A rule building the tangent of the function's result from its operands (`args`) and
    /// their tangents (`None` for an operand that does not depend on a differentiated input).
    /// `Ok(None)` says the tangent is zero.
    pub fn jvp(
        f: impl Fn(&mut Builder<'_>, &[Var], &[Option<Var>]) -> Result<Option<Var>, DiffError>
            + Send
            + Sync
            + 'static,
    ) -> Rule {
        Rule {
            kind: RuleKind::Jvp(Arc::new(f)),
            transpose: None,
        }
    }

    /// The function is linear in operand `operand`, and its other operands are not
    /// differentiated (a shift, an index, a size): its tangent is the function itself applied
    /// to the operand's tangent.
    pub fn linear(operand: usize) -> Rule {
        Rule {
            kind: RuleKind::Linear(operand),
            transpose: None,
        }
    }

    /// The transpose of a linear function in its linear operand, for reverse mode: given the
    /// operands (`args`, the linear one replaced by a tangent) and a cotangent of the result,
    /// the cotangent of the linear operand.
    pub fn transpose(
        mut self,
        f: impl Fn(&mut Builder<'_>, &[Var], &Var) -> Result<Var, DiffError> + Send + Sync + 'static,
    ) -> Rule {
        self.transpose = Some(Arc::new(f));
        self
    }
}

/// A set of rules for users' functions, keyed by each function's type. The built-in operations
/// have their rules already; [`Rules::global`] holds the rules given to [`register_rule`].
///
/// ```
/// use irtrack::diff::{Rule, Rules};
///
/// fn double(x: f64) -> f64 {
///     2.0 * x
/// }
/// let rules = Rules::new().with(double, Rule::linear(0).transpose(|b, _, ct| b.call(double, &[ct.clone()])));
/// assert!(rules.has(double));
/// ```
#[derive(Clone, Default)]
pub struct Rules {
    map: HashMap<TypeId, Rule>,
}

impl Rules {
    /// No rules for users' functions.
    pub fn new() -> Rules {
        Rules::default()
    }

    /// These rules and `rule` for the function `f` (replacing one it had).
    pub fn with<F: 'static>(mut self, f: F, rule: Rule) -> Rules {
        self.map.insert(crate::core::ids::key_of(&f).id, rule);
        self
    }

    /// Whether `f` has a rule here.
    pub fn has<F: 'static>(&self, f: F) -> bool {
        self.map.contains_key(&crate::core::ids::key_of(&f).id)
    }

    /// The rules registered with [`register_rule`] so far.
    pub fn global() -> Rules {
        global().read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn get(&self, op: &Operation) -> Option<&Rule> {
        match op {
            Operation::Registered(k) => self.map.get(&k.id),
            _ => None,
        }
    }
}

fn global() -> &'static RwLock<Rules> {
    static RULES: OnceLock<RwLock<Rules>> = OnceLock::new();
    RULES.get_or_init(Default::default)
}

/// Gives the function `f` the derivative rule `rule` for [`differentiate`](super::differentiate)
/// and the entry points ([`jvp`](super::jvp), [`hessian`](super::hessian), …), replacing an
/// earlier one. [`differentiate_with`](super::differentiate_with) takes a [`Rules`] value
/// instead.
///
/// ```
/// use irtrack::diff::{register_rule, Rule, Rules};
///
/// fn double(x: f64) -> f64 {
///     2.0 * x
/// }
/// register_rule(double, Rule::linear(0));
/// assert!(Rules::global().has(double));
/// ```
pub fn register_rule<F: 'static>(f: F, rule: Rule) {
    let mut rules = global().write().unwrap_or_else(|e| e.into_inner());
    rules.map.insert(crate::core::ids::key_of(&f).id, rule);
}

// Small constructors over the graph, so the rules below read like the formulas they are.

fn op(g: &mut Graph, o: Operation, args: Vec<Src>) -> Result<Src, DiffError> {
    g.apply(o, args)
}

fn bin(g: &mut Graph, b: BinOp, x: &Src, y: &Src) -> Result<Src, DiffError> {
    op(
        g,
        Operation::Builtin(Builtin::Binary(b)),
        vec![x.clone(), y.clone()],
    )
}

pub(crate) fn add(g: &mut Graph, x: &Src, y: &Src) -> Result<Src, DiffError> {
    if g.kind(x) == Kind::Vector {
        return op(g, Kernel::VecAdd.operation(), vec![x.clone(), y.clone()]);
    }
    bin(g, BinOp::Add, x, y)
}

fn sub(g: &mut Graph, x: &Src, y: &Src) -> Result<Src, DiffError> {
    bin(g, BinOp::Sub, x, y)
}

/// `x - y` of two tangents.
pub(crate) fn difference(g: &mut Graph, x: &Src, y: &Src) -> Result<Src, DiffError> {
    sub(g, x, y)
}

/// The tangent `tangent` of a selection by `cond`, a condition that holds at a point only
/// (equalities of floats), made NaN where `cond` holds and the direction moves off the point
/// by `moved` (not 0): the branch picked there is the function's value at the point, not its
/// formula nearby, so its tangent is not the slope (`0ᵇ`'s slope 0 in `b` at `a = 0` says
/// nothing of `∂²/∂a∂b`, which is -∞ there for `0 < b < 1`). The NaN is born in a derivative's
/// operation, which a run reports as an error (`ReplayError::NotANumber`); a direction that
/// stays on the point (`moved` exactly 0) keeps the tangent, `times` absorbing the NaN.
pub(crate) fn unknown_where(
    g: &mut Graph,
    cond: &Src,
    moved: &Src,
    tangent: &Src,
) -> Result<Src, DiffError> {
    if !matches!(g.kind(tangent), Kind::Float(_)) || !matches!(g.kind(moved), Kind::Float(_)) {
        return Ok(tangent.clone());
    }
    let nan = c(g, tangent, f64::NAN);
    let off = mul(g, moved, &nan)?;
    let poisoned = add(g, tangent, &off)?;
    kernel(
        g,
        Kernel::Select,
        vec![cond.clone(), poisoned, tangent.clone()],
    )
}

/// `x * y` as derivative programs multiply: [`Kernel::Times`], where a zero factor keeps the
/// product zero against an infinite or NaN one (a slope of ∞ times a tangent of 0).
pub(crate) fn mul(g: &mut Graph, x: &Src, y: &Src) -> Result<Src, DiffError> {
    kernel(g, Kernel::Times, vec![x.clone(), y.clone()])
}

/// `x / y` as derivative programs divide: [`Kernel::Over`] (a tangent of 0 over 0 is 0).
pub(crate) fn div(g: &mut Graph, x: &Src, y: &Src) -> Result<Src, DiffError> {
    kernel(g, Kernel::Over, vec![x.clone(), y.clone()])
}

pub(crate) fn neg(g: &mut Graph, x: &Src) -> Result<Src, DiffError> {
    op(
        g,
        Operation::Builtin(Builtin::Unary(UnOp::Neg)),
        vec![x.clone()],
    )
}

fn cmp(g: &mut Graph, c: CmpOp, x: &Src, y: &Src) -> Result<Src, DiffError> {
    op(
        g,
        Operation::Builtin(Builtin::Compare(c)),
        vec![x.clone(), y.clone()],
    )
}

pub(crate) fn kernel(g: &mut Graph, k: Kernel, args: Vec<Src>) -> Result<Src, DiffError> {
    op(g, k.operation(), args)
}

/// The float method `f` on `args`: elementwise for an array receiver.
fn method(g: &mut Graph, f: FloatFn, args: Vec<Src>) -> Result<Src, DiffError> {
    match g.kind(&args[0]) {
        Kind::Array(_) if f == FloatFn::Powi => op(g, Operation::Array(ArrayOp::Powi), args),
        Kind::Array(_) if f.arity() == 1 => op(g, Operation::Array(ArrayOp::Map(f)), args),
        _ => op(g, Operation::Builtin(Builtin::Method(f)), args),
    }
}

/// The tangent `t` of `x as f32` (`y`), made NaN where the cast is no identity: it rounded a
/// nonzero `f64` to 0 or to a subnormal (constant around that point: slope 0 in floats, 1 in
/// the reals) or a finite one to ∞. The NaN is made there, from numbers (`0 / 0`), so the
/// entry points name the cast (`DiffError::Indeterminate`), as the gradient refuses it
/// (`grad::rules::lossy_cast`); anywhere else `t · 1`.
fn lossy_cast_guard(g: &mut Graph, x: &Src, y: &Src, t: Src) -> Result<Src, DiffError> {
    let zero_x = c(g, x, 0.0);
    let inf_x = c(g, x, f64::INFINITY);
    let ax = m1(g, FloatFn::Abs, x)?;
    let nonzero = cmp(g, CmpOp::Ne, x, &zero_x)?;
    let finite = cmp(g, CmpOp::Lt, &ax, &inf_x)?;
    let ay = m1(g, FloatFn::Abs, y)?;
    let tiny = c(g, y, f64::from(f32::MIN_POSITIVE));
    let inf_y = c(g, y, f64::INFINITY);
    let flushed = cmp(g, CmpOp::Lt, &ay, &tiny)?;
    let flushed = bin(g, BinOp::BitAnd, &flushed, &nonzero)?;
    let overflowed = cmp(g, CmpOp::Eq, &ay, &inf_y)?;
    let lossy = bin(g, BinOp::BitOr, &flushed, &overflowed)?;
    let lossy = bin(g, BinOp::BitAnd, &lossy, &finite)?;
    let zero_y = c(g, y, 0.0);
    let one_y = c(g, y, 1.0);
    let den = kernel(g, Kernel::Select, vec![lossy, zero_y, one_y])?;
    let k = bin(g, BinOp::Div, &den, &den)?;
    bin(g, BinOp::Mul, &t, &k)
}

fn m1(g: &mut Graph, f: FloatFn, x: &Src) -> Result<Src, DiffError> {
    method(g, f, vec![x.clone()])
}

fn c(g: &Graph, like: &Src, x: f64) -> Src {
    g.float_like(like, x)
}

/// `x + 0`: `x`, but +0 for -0 (elementwise on arrays), for the slopes whose sign must not
/// follow a zero's sign bit.
fn plus_zero(g: &mut Graph, x: &Src) -> Result<Src, DiffError> {
    let zero = c(g, x, 0.0);
    bin(g, BinOp::Add, x, &zero)
}

/// The sum of the tangents present (`None` when none is).
fn sum(g: &mut Graph, terms: Vec<Option<Src>>) -> Result<Option<Src>, DiffError> {
    let mut total: Option<Src> = None;
    for t in terms.into_iter().flatten() {
        total = Some(match total {
            None => t,
            Some(s) => add(g, &s, &t)?,
        });
    }
    Ok(total)
}

/// `coefficient * dx`, when `dx` is present.
fn scaled(g: &mut Graph, coefficient: &Src, dx: &Option<Src>) -> Result<Option<Src>, DiffError> {
    dx.as_ref().map(|d| mul(g, coefficient, d)).transpose()
}

/// The derivative `d` of the float output `y`, made NaN where `y` is NaN: a function with no
/// value has no derivative, though its formula's terms may all be numbers there (`x.ln() + x *
/// x` at -2 had the second derivative 2, the slope of `x * x` alone; a tester, 2026-11-28).
/// `scale` (a cotangent) keeps a zero one's derivative 0, as a zero seed of the gradient does.
/// Other outputs (vectors, arrays) are left as they are.
pub(crate) fn none_without_value(
    g: &mut Graph,
    y: &Src,
    d: Src,
    scale: Option<&Src>,
) -> Result<Src, DiffError> {
    if !matches!(g.kind(y), Kind::Float(_)) || !matches!(g.kind(&d), Kind::Float(_)) {
        return Ok(d);
    }
    let nan = c(g, &d, f64::NAN);
    let nan = match scale {
        // NaN where the cotangent (or direction) moves the output, 0 where it is 0 (the
        // absorbing product `times(NaN, u)`), chosen rather than multiplied: emitted code
        // refuses a product that absorbed a NaN into a zero (it cannot tell a limit), and so
        // refused every call of such a program with a cotangent of 0 in it (log-sum-exp's
        // gradient at every input; a tester, 2026-11-28).
        Some(u) if matches!(g.kind(u), Kind::Float(_)) => {
            let zero = c(g, u, 0.0);
            let still = cmp(g, CmpOp::Eq, u, &zero)?;
            kernel(g, Kernel::Select, vec![still, zero, nan])?
        }
        _ => nan,
    };
    let no_value = cmp(g, CmpOp::Ne, y, y)?;
    kernel(g, Kernel::Select, vec![no_value, nan, d])
}

/// A zero tangent of `like`'s type and shape.
pub(crate) fn zero(g: &mut Graph, like: &Src) -> Result<Src, DiffError> {
    match g.kind(like) {
        Kind::Float(_) => Ok(c(g, like, 0.0)),
        _ => kernel(g, Kernel::ZerosLike, vec![like.clone()]),
    }
}

/// `t`, a tangent of operand `k` of an elementwise operation whose other operand is `other`,
/// brought to the result `y`'s shape: broadcasting may have widened it.
fn fit(g: &mut Graph, t: Src, other: &Src, y: &Src) -> Result<Src, DiffError> {
    match (g.kind(y), g.kind(other)) {
        (Kind::Array(_), Kind::Array(_)) => kernel(g, Kernel::BroadcastLike, vec![t, y.clone()]),
        (Kind::Array(_), _) if !matches!(g.kind(&t), Kind::Array(_)) => {
            kernel(g, Kernel::BroadcastLike, vec![t, y.clone()])
        }
        _ => Ok(t),
    }
}

/// The tangent of the result of `o` applied to `args` (with result `y`), given the tangents
/// `dx` of its operands; `None` when it is zero.
pub(crate) fn jvp(
    g: &mut Graph,
    o: Operation,
    args: &[Src],
    y: &Src,
    dx: &[Option<Src>],
    rules: &Rules,
) -> Result<Option<Src>, DiffError> {
    let no_rule = |g: &Graph, hint: &str| DiffError::NoRule {
        operation: name_of(&o),
        at: g.origin.clone(),
        hint: hint.to_string(),
    };
    let d = |k: usize| dx.get(k).cloned().flatten();
    match o {
        Operation::Builtin(b) => match b {
            Builtin::Binary(bo) | Builtin::Assign(bo) => {
                binary(g, bo, &args[0], &args[1], y, d(0), d(1))
            }
            Builtin::Unary(UnOp::Neg) => d(0).map(|t| neg(g, &t)).transpose(),
            // Comparisons and `!` give bools: nothing to differentiate.
            Builtin::Unary(UnOp::Not) | Builtin::Compare(_) => Ok(None),
            // A float's bits change with it in no way a slope describes (`from_bits(to_bits(x)
            // & m)` is `|x|`): refused where a tangent reaches them. The class tests give bools,
            // and `from_bits` of an integer is as flat as the integer.
            Builtin::Query(FloatQuery::ToBits) if d(0).is_some() => Err(no_rule(
                g,
                "the bits of a float depend on it with no slope to carry; compute the value \
                 with float operations, or register the function that reads the bits as an \
                 operation with its own rule (`diff::register_rule`)",
            )),
            Builtin::Query(_) => Ok(None),
            Builtin::Method(f) => float_method(g, f, args, y, dx),
            // A cast between floats carries the tangent; a cast to an integer is piecewise
            // constant, as `floor` is.
            Builtin::Cast(to) if to.is_float() => match d(0) {
                Some(t) => {
                    let t = op(g, Operation::Builtin(Builtin::Cast(to)), vec![t])?;
                    let narrowing = to == crate::core::op::ScalarType::F32
                        && g.value(&args[0]).by_value().downcast_ref::<f64>().is_some();
                    if narrowing {
                        lossy_cast_guard(g, &args[0], y, t).map(Some)
                    } else {
                        Ok(Some(t))
                    }
                }
                None => Ok(None),
            },
            Builtin::Cast(_) => Ok(None),
            Builtin::Index => d(0)
                .map(|t| {
                    op(
                        g,
                        Operation::Builtin(Builtin::Index),
                        vec![t, args[1].clone()],
                    )
                })
                .transpose(),
            Builtin::Deref | Builtin::Bind | Builtin::Guard | Builtin::Clone => Ok(d(0)),
            Builtin::VecOf | Builtin::ArrayOf => {
                if dx.iter().all(Option::is_none) {
                    return Ok(None);
                }
                let mut elements = Vec::with_capacity(args.len());
                for (k, a) in args.iter().enumerate() {
                    elements.push(match d(k) {
                        Some(t) => t,
                        None => c(g, a, 0.0),
                    });
                }
                op(g, Operation::Builtin(Builtin::VecOf), elements).map(Some)
            }
            _ => Err(no_rule(
                g,
                "the value it reads depends on a differentiated input, and irtrack has no \
                 derivative for it",
            )),
        },
        Operation::Array(a) => match a {
            ArrayOp::Sum | ArrayOp::Transpose => d(0)
                .map(|t| op(g, Operation::Array(a), vec![t]))
                .transpose(),
            ArrayOp::Copy => Ok(d(0)),
            ArrayOp::Dot => {
                let first = d(0)
                    .map(|t| op(g, Operation::Array(ArrayOp::Dot), vec![t, args[1].clone()]))
                    .transpose()?;
                let second = d(1)
                    .map(|t| op(g, Operation::Array(ArrayOp::Dot), vec![args[0].clone(), t]))
                    .transpose()?;
                sum(g, vec![first, second])
            }
            ArrayOp::Map(f) => unary(g, f, &args[0], y, &d(0)),
            ArrayOp::Powi => powi(g, &args[0], &args[1], &d(0)),
        },
        Operation::Registered(_) => {
            if let Some(k) = Kernel::of(&o) {
                return kernel_jvp(g, k, args, dx);
            }
            let Some(rule) = rules.get(&o).cloned() else {
                return Err(no_rule(
                    g,
                    "give it one: `Rules::new().with(f, Rule::jvp(…))` for `differentiate_with`, \
                     or `irtrack::diff::register_rule(f, …)`",
                ));
            };
            let vars: Vec<Var> = args.iter().cloned().map(Var).collect();
            match rule.kind {
                RuleKind::Jvp(f) => {
                    let tangents: Vec<Option<Var>> =
                        dx.iter().cloned().map(|t| t.map(Var)).collect();
                    f(&mut Builder { g }, &vars, &tangents).map(|r| r.map(|v| v.0))
                }
                RuleKind::Linear(k) => {
                    if let Some(j) = (0..args.len()).find(|&j| j != k && d(j).is_some()) {
                        return Err(no_rule(
                            g,
                            &format!(
                                "its rule says it is linear in operand {} alone, and operand {} \
                                 depends on a differentiated input",
                                k + 1,
                                j + 1
                            ),
                        ));
                    }
                    let Some(t) = d(k) else { return Ok(None) };
                    let mut a = args.to_vec();
                    a[k] = t;
                    op(g, o, a).map(Some)
                }
            }
        }
    }
}

/// The transpose rule of a user's linear function, if it has one: `(operand, rule)`.
pub(crate) fn user_transpose(rules: &Rules, o: &Operation) -> Option<(usize, Arc<TransposeFn>)> {
    let rule = rules.get(o)?;
    match (&rule.kind, &rule.transpose) {
        (RuleKind::Linear(k), Some(t)) => Some((*k, t.clone())),
        _ => None,
    }
}

fn binary(
    g: &mut Graph,
    b: BinOp,
    x: &Src,
    z: &Src,
    y: &Src,
    dx: Option<Src>,
    dz: Option<Src>,
) -> Result<Option<Src>, DiffError> {
    Ok(Some(match b {
        BinOp::Add => match (dx, dz) {
            (Some(p), Some(q)) => add(g, &p, &q)?,
            (Some(p), None) => fit(g, p, z, y)?,
            (None, Some(q)) => fit(g, q, x, y)?,
            (None, None) => return Ok(None),
        },
        BinOp::Sub => match (dx, dz) {
            (Some(p), Some(q)) => sub(g, &p, &q)?,
            (Some(p), None) => fit(g, p, z, y)?,
            (None, Some(q)) => {
                let n = neg(g, &q)?;
                fit(g, n, x, y)?
            }
            (None, None) => return Ok(None),
        },
        BinOp::Mul => {
            let first = dx.map(|p| mul(g, &p, z)).transpose()?;
            let second = dz.map(|q| mul(g, x, &q)).transpose()?;
            match sum(g, vec![first, second])? {
                Some(t) => t,
                None => return Ok(None),
            }
        }
        // d(x / z) = (dx - y dz) / z.
        BinOp::Div => match (dx, dz) {
            (Some(p), Some(q)) => {
                let yq = mul(g, y, &q)?;
                let n = sub(g, &p, &yq)?;
                div(g, &n, z)?
            }
            (Some(p), None) => div(g, &p, z)?,
            (None, Some(q)) => {
                let yq = mul(g, y, &q)?;
                let r = div(g, &yq, z)?;
                neg(g, &r)?
            }
            (None, None) => return Ok(None),
        },
        BinOp::Rem => match remainder(g, x, z, y, dx, dz)? {
            Some(t) => t,
            None => return Ok(None),
        },
        // Bitwise operators on floats do not compile; on integers there is no tangent.
        _ => return Ok(None),
    }))
}

/// The tangent of a remainder `y = x - n z` (`%`, `rem_euclid`) with `n` the integer quotient it
/// was computed with, constant between the wraps: `(x - y) / z` rounded (not `trunc(x / z)`,
/// which is `n + 1` where `x / z` rounds up to an integer: `1.0 % 0.1` is `1 - 9 · 0.1`, but
/// `1.0 / 0.1` is 10), so `dx - n dz`.
fn remainder(
    g: &mut Graph,
    x: &Src,
    z: &Src,
    y: &Src,
    dx: Option<Src>,
    dz: Option<Src>,
) -> Result<Option<Src>, DiffError> {
    let q = dz
        .map(|q| -> Result<Src, DiffError> {
            let multiple = sub(g, x, y)?;
            let ratio = div(g, &multiple, z)?;
            let n = m1(g, FloatFn::Round, &ratio)?;
            let nq = mul(g, &n, &q)?;
            neg(g, &nq)
        })
        .transpose()?;
    sum(g, vec![dx, q])
}

fn float_method(
    g: &mut Graph,
    f: FloatFn,
    args: &[Src],
    y: &Src,
    dx: &[Option<Src>],
) -> Result<Option<Src>, DiffError> {
    let d = |k: usize| dx.get(k).cloned().flatten();
    if f.arity() == 1 {
        return unary(g, f, &args[0], y, &d(0));
    }
    if f == FloatFn::Powi {
        return powi(g, &args[0], &args[1], &d(0));
    }
    let (a, b) = (&args[0], &args[1]);
    Ok(match f {
        // d a^b = b a^(b-1) da + y ln(a) db, as `grad/rules.rs` has it at the edges.
        FloatFn::Powf => {
            let zero = c(g, a, 0.0);
            // A constant exponent 0: a⁰ = 1 is constant, its tangent none at all (a zero
            // tangent would still make NaN with an infinite cotangent: `x.powf(0.0).acos()`).
            let constant_one = matches!(b, Src::Const(_)) && g.value(b).as_f64() == Some(0.0);
            let first = match d(0).filter(|_| !constant_one) {
                Some(da) => {
                    let one = c(g, a, 1.0);
                    let bm1 = sub(g, b, &one)?;
                    let p = method(g, FloatFn::Powf, vec![a.clone(), bm1])?;
                    let k = mul(g, b, &p)?;
                    // a⁰ = 1 for every a: 0 where b = 0 and a is 0 or NaN, where `0 · a^-1`
                    // is NaN. For any other a the product is 0 already there, and its
                    // derivative in b (∂²/∂a∂b = 1/a at b = 0) stays the product's.
                    let b0 = cmp(g, CmpOp::Eq, b, &zero)?;
                    let a0 = cmp(g, CmpOp::Eq, a, &zero)?;
                    let nan = cmp(g, CmpOp::Ne, a, a)?;
                    let degenerate = bin(g, BinOp::BitOr, &a0, &nan)?;
                    let flat = bin(g, BinOp::BitAnd, &b0, &degenerate)?;
                    // 1ᵇ = 1 for every b, NaN included: 0 where a = 1 and b is NaN, as the
                    // gradient's rule.
                    let one_base = cmp(g, CmpOp::Eq, a, &one)?;
                    let b_nan = cmp(g, CmpOp::Ne, b, b)?;
                    let one_nan = bin(g, BinOp::BitAnd, &one_base, &b_nan)?;
                    let flat = bin(g, BinOp::BitOr, &flat, &one_nan)?;
                    let k = kernel(g, Kernel::Select, vec![flat, zero.clone(), k])?;
                    Some(mul(g, &k, &da)?)
                }
                None => None,
            };
            let second = match d(1) {
                Some(db) => {
                    // y ln a, as the gradient's rule: NaN below 0, where aᵇ is a number at
                    // integer b only (`ln a` makes it, so the entry points name it and a
                    // second derivative keeps it). At a = 0: 0ᵇ is 0 for every b > 0 and ∞
                    // for every b < 0, slope 0 (`y ln a` is `0 · -∞` or `∞ · -∞` there);
                    // at b = 0 it jumps (0⁰ = 1), and `b ln a` = `0 · -∞` makes the NaN.
                    let l = m1(g, FloatFn::Ln, a)?;
                    let k = mul(g, y, &l)?;
                    let at_zero = cmp(g, CmpOp::Eq, a, &zero)?;
                    let b0 = cmp(g, CmpOp::Eq, b, &zero)?;
                    let jump = mul(g, b, &l)?;
                    let k0 = kernel(g, Kernel::Select, vec![b0, jump, zero])?;
                    let k = kernel(g, Kernel::Select, vec![at_zero, k0, k])?;
                    Some(mul(g, &k, &db)?)
                }
                None => None,
            };
            sum(g, vec![first, second])?
        }
        // The tangent of the operand `max`/`min` returned (ties and NaN as they break).
        FloatFn::Max | FloatFn::Min => {
            if d(0).is_none() && d(1).is_none() {
                return Ok(None);
            }
            let order = if f == FloatFn::Max {
                CmpOp::Ge
            } else {
                CmpOp::Le
            };
            let first = cmp(g, order, a, b)?;
            let nan = cmp(g, CmpOp::Ne, b, b)?;
            let pick = bin(g, BinOp::BitOr, &first, &nan)?;
            let da = match d(0) {
                Some(t) => t,
                None => c(g, a, 0.0),
            };
            let db = match d(1) {
                Some(t) => t,
                None => c(g, a, 0.0),
            };
            Some(kernel(g, Kernel::Select, vec![pick, da, db])?)
        }
        // d atan2(a, b) = (b da - a db) / (a² + b²), with a² + b² = h², h = hypot(a, b),
        // divided by h twice (a² + b² overflows and underflows long before the quotients do:
        // at (1e-200, 1e-200) it is 0). At (±0, ±0), where atan2 jumps, 0 (as for `floor`),
        // not 0/0.
        FloatFn::Atan2 => {
            if d(0).is_none() && d(1).is_none() {
                return Ok(None);
            }
            let h = method(g, FloatFn::Hypot, vec![a.clone(), b.clone()])?;
            let zero = c(g, a, 0.0);
            let origin = cmp(g, CmpOp::Eq, &h, &zero)?;
            let coefficient = |g: &mut Graph, x: &Src| -> Result<Src, DiffError> {
                let q = div(g, x, &h)?;
                let q = div(g, &q, &h)?;
                kernel(g, Kernel::Select, vec![origin.clone(), zero.clone(), q])
            };
            let first = match d(0) {
                Some(da) => {
                    let k = coefficient(g, b)?;
                    Some(mul(g, &k, &da)?)
                }
                None => None,
            };
            let second = match d(1) {
                Some(db) => {
                    let minus_a = neg(g, a)?;
                    let k = coefficient(g, &minus_a)?;
                    Some(mul(g, &k, &db)?)
                }
                None => None,
            };
            sum(g, vec![first, second])?
        }
        // d hypot(a, b) = (a / y) da + (b / y) db (each coefficient formed first, so that
        // reverse mode multiplies by it and not by 1 / y, infinite at (5e-324, 0)), and 0 at
        // (±0, ±0): the norm's minimum-norm subgradient, not 0/0.
        FloatFn::Hypot => {
            if d(0).is_none() && d(1).is_none() {
                return Ok(None);
            }
            let zero = c(g, a, 0.0);
            let origin = cmp(g, CmpOp::Eq, y, &zero)?;
            let coefficient = |g: &mut Graph, x: &Src| -> Result<Src, DiffError> {
                let q = div(g, x, y)?;
                kernel(g, Kernel::Select, vec![origin.clone(), zero.clone(), q])
            };
            let first = match d(0) {
                Some(da) => {
                    let k = coefficient(g, a)?;
                    Some(mul(g, &k, &da)?)
                }
                None => None,
            };
            let second = match d(1) {
                Some(db) => {
                    let k = coefficient(g, b)?;
                    Some(mul(g, &k, &db)?)
                }
                None => None,
            };
            sum(g, vec![first, second])?
        }
        // log_b(a) = ln a / ln b.
        FloatFn::Log => {
            let lb = m1(g, FloatFn::Ln, b)?;
            let first = match d(0) {
                Some(da) => {
                    // At a = -0 as at +0 (see `Ln`).
                    let a0 = plus_zero(g, a)?;
                    let k = mul(g, &a0, &lb)?;
                    Some(div(g, &da, &k)?)
                }
                None => None,
            };
            let second = match d(1) {
                Some(db) => {
                    let la = m1(g, FloatFn::Ln, a)?;
                    let lb2 = mul(g, &lb, &lb)?;
                    let k = mul(g, b, &lb2)?;
                    let r = div(g, &la, &k)?;
                    let t = mul(g, &r, &db)?;
                    Some(neg(g, &t)?)
                }
                None => None,
            };
            sum(g, vec![first, second])?
        }
        // copysign(a, b) = ±a: -a where the sign bits of a and b differ. The bits are read
        // as `copysign` reads them, also a NaN's (`2.0.copysign(-NaN)` is -2, whose slope
        // `signum(-NaN)` would make NaN).
        FloatFn::Copysign => match d(0) {
            Some(da) => {
                let one = c(g, a, 1.0);
                let sa = method(g, FloatFn::Copysign, vec![one.clone(), a.clone()])?;
                let sb = method(g, FloatFn::Copysign, vec![one, b.clone()])?;
                let s = mul(g, &sa, &sb)?;
                Some(mul(g, &s, &da)?)
            }
            None => None,
        },
        // a - q b with q = a.div_euclid(b).
        FloatFn::RemEuclid => remainder(g, a, b, y, d(0), d(1))?,
        // Piecewise constant, as `floor`.
        FloatFn::DivEuclid => None,
        FloatFn::MulAdd => {
            let first = scaled(g, b, &d(0))?;
            let second = scaled(g, a, &d(1))?;
            sum(g, vec![first, second, d(2)])?
        }
        // The tangent of whichever operand `clamp` returned.
        FloatFn::Clamp => {
            if dx.iter().all(Option::is_none) {
                return Ok(None);
            }
            let (lo, hi) = (&args[1], &args[2]);
            let z = |k: usize, g: &Graph| d(k).unwrap_or_else(|| c(g, a, 0.0));
            let (dv, dlo, dhi) = (z(0, g), z(1, g), z(2, g));
            let above = cmp(g, CmpOp::Gt, a, hi)?;
            let inner = kernel(g, Kernel::Select, vec![above, dhi, dv])?;
            let below = cmp(g, CmpOp::Lt, a, lo)?;
            Some(kernel(g, Kernel::Select, vec![below, dlo, inner])?)
        }
        _ => {
            return Err(DiffError::NoRule {
                operation: f.name().into(),
                at: g.origin.clone(),
                hint: "irtrack has no derivative for it".into(),
            })
        }
    })
}

/// The tangent of `f(x)` (a float method of one argument, or its elementwise form on arrays)
/// by its formula.
fn unary_formula(
    g: &mut Graph,
    f: FloatFn,
    x: &Src,
    y: &Src,
    dx: &Option<Src>,
) -> Result<Option<Src>, DiffError> {
    use FloatFn::*;
    let Some(dx) = dx else { return Ok(None) };
    let one = c(g, x, 1.0);
    let coefficient = match f {
        Sin => m1(g, Cos, x)?,
        Cos => {
            let s = m1(g, Sin, x)?;
            neg(g, &s)?
        }
        // 1 + tan² x.
        Tan => {
            let yy = mul(g, y, y)?;
            add(g, &one, &yy)?
        }
        Asin | Acos => {
            let xx = mul(g, x, x)?;
            let r = sub(g, &one, &xx)?;
            let s = m1(g, Sqrt, &r)?;
            let q = div(g, dx, &s)?;
            return Ok(Some(if f == Acos { neg(g, &q)? } else { q }));
        }
        Atan => {
            let xx = mul(g, x, x)?;
            let r = add(g, &one, &xx)?;
            return div(g, dx, &r).map(Some);
        }
        Sinh => m1(g, Cosh, x)?,
        Cosh => m1(g, Sinh, x)?,
        // `(1 / cosh x)²`, not `1 - y²`, which cancels to 0 past |x| ≈ 19 (see grad's rule).
        Tanh => {
            let c = m1(g, Cosh, x)?;
            let r = div(g, &one, &c)?;
            mul(g, &r, &r)?
        }
        // Not `sqrt(x² ± 1)`: `x²` overflows past 1e154, where the slope is 1/|x|, a number.
        // `hypot` is a float's method only: arrays keep the square.
        Asinh => {
            let r = match g.kind(x) {
                Kind::Float(_) => method(g, Hypot, vec![x.clone(), one])?,
                _ => {
                    let xx = mul(g, x, x)?;
                    let r = add(g, &xx, &one)?;
                    m1(g, Sqrt, &r)?
                }
            };
            return div(g, dx, &r).map(Some);
        }
        Acosh => {
            let below = sub(g, x, &one)?;
            let above = add(g, x, &one)?;
            let (below, above) = (m1(g, Sqrt, &below)?, m1(g, Sqrt, &above)?);
            let r = mul(g, &below, &above)?;
            return div(g, dx, &r).map(Some);
        }
        Atanh => {
            let xx = mul(g, x, x)?;
            let r = sub(g, &one, &xx)?;
            return div(g, dx, &r).map(Some);
        }
        Exp => y.clone(),
        Exp2 => {
            let ln2 = c(g, x, std::f64::consts::LN_2);
            mul(g, y, &ln2)?
        }
        // `eˣ`, not `y + 1`, which rounds to 0 below x ≈ -37.
        ExpM1 => m1(g, Exp, x)?,
        // 1 / x, with -0 as +0: ln is defined for x >= 0 and ln(-0) = ln(0), so its slope
        // there is the one-sided +∞, not 1 / -0 = -∞.
        Ln => {
            let x0 = plus_zero(g, x)?;
            return div(g, dx, &x0).map(Some);
        }
        Ln1p => {
            let r = add(g, &one, x)?;
            return div(g, dx, &r).map(Some);
        }
        Log10 | Log2 => {
            let base = if f == Log10 {
                std::f64::consts::LN_10
            } else {
                std::f64::consts::LN_2
            };
            let lb = c(g, x, base);
            let x0 = plus_zero(g, x)?;
            let r = mul(g, &x0, &lb)?;
            return div(g, dx, &r).map(Some);
        }
        // d sqrt(x) = dx / (2 y), with y = sqrt(-0) = -0 as +0 (+∞, the one-sided slope at 0,
        // not -∞).
        Sqrt => {
            let two = c(g, x, 2.0);
            let y0 = plus_zero(g, y)?;
            let r = mul(g, &two, &y0)?;
            return div(g, dx, &r).map(Some);
        }
        Cbrt => {
            let three = c(g, x, 3.0);
            let yy = mul(g, y, y)?;
            let r = mul(g, &three, &yy)?;
            return div(g, dx, &r).map(Some);
        }
        // -1 for x < 0, else 1 (also at -0, where `signum` is -1: -0 is 0, and abs takes 1
        // there as `grad/rules.rs` does).
        Abs => {
            let x0 = plus_zero(g, x)?;
            m1(g, Signum, &x0)?
        }
        // d(1/x) = -y² dx.
        Recip => {
            let yy = mul(g, y, y)?;
            neg(g, &yy)?
        }
        // Linear: the same scaling applies to the tangent.
        ToDegrees | ToRadians => return m1(g, f, dx).map(Some),
        // Piecewise constant: zero wherever it is differentiable.
        Signum | Floor | Ceil | Round | RoundTiesEven | Trunc => return Ok(None),
        Fract => return Ok(Some(dx.clone())),
        _ => {
            return Err(DiffError::NoRule {
                operation: f.name().into(),
                at: g.origin.clone(),
                hint: "irtrack has no derivative for it".into(),
            })
        }
    };
    mul(g, &coefficient, dx).map(Some)
}

/// The tangent of `f(x)` ([`unary_formula`]), NaN where the function has no value: outside its
/// domain (`ln` of -1.7, `atanh` of 2) its formula's slope (`1 / x`) is no slope of it, as
/// the gradient's rule has it (`grad::rules::unary_at`); a run reports the NaN. (The other
/// formulas are NaN there already: `sqrt`, `asin`, `acos`.) A direction that does not move
/// `x` keeps the tangent 0 (`times` absorbs the NaN).
fn unary(
    g: &mut Graph,
    f: FloatFn,
    x: &Src,
    y: &Src,
    dx: &Option<Src>,
) -> Result<Option<Src>, DiffError> {
    use FloatFn::*;
    let Some(t) = unary_formula(g, f, x, y, dx)? else {
        return Ok(None);
    };
    match (f, dx) {
        (Ln | Log10 | Log2 | Ln1p | Acosh | Atanh, Some(dx))
            if matches!(g.kind(x), Kind::Float(_)) =>
        {
            let no_value = cmp(g, CmpOp::Ne, y, y)?;
            let number = cmp(g, CmpOp::Eq, x, x)?;
            let undefined = bin(g, BinOp::BitAnd, &no_value, &number)?;
            let nan = c(g, &t, f64::NAN);
            let off = mul(g, &nan, dx)?;
            kernel(g, Kernel::Select, vec![undefined, off, t]).map(Some)
        }
        _ => Ok(Some(t)),
    }
}

/// The tangent of `x.powi(n)`: `n x^(n-1) dx`, without `x^(n-1)` where `n` is 0, 1 or 2 (so
/// that `x⁰` has the derivative 0 at `x = 0`, not `0 · ∞`), and 0 where an `n` that is not a
/// constant is 0.
fn powi(g: &mut Graph, x: &Src, n: &Src, dx: &Option<Src>) -> Result<Option<Src>, DiffError> {
    let Some(dx) = dx else { return Ok(None) };
    let nv = g.value(n);
    let ty = nv.scalar_type().unwrap_or(ScalarType::I32);
    let int = |g: &Graph, k: i64| -> Result<Src, DiffError> {
        literal_as(&k.to_string(), ty)
            .map(Src::Const)
            .ok_or_else(|| DiffError::Eval {
                at: g.origin.clone(),
                error: crate::core::eval::EvalError::Overflow(format!(
                    "the exponent {k} of a derivative of `powi` does not fit in {}",
                    ty.name()
                )),
            })
    };
    let coefficient = match (n, nv.as_i64()) {
        (Src::Const(_), Some(0)) => return Ok(None),
        (Src::Const(_), Some(1)) => return Ok(Some(dx.clone())),
        (Src::Const(_), Some(2)) => {
            let two = c(g, x, 2.0);
            mul(g, &two, x)?
        }
        (Src::Const(_), Some(k)) => {
            let e = int(g, k - 1)?;
            let p = method(g, FloatFn::Powi, vec![x.clone(), e])?;
            let kf = c(g, x, k as f64);
            mul(g, &kf, &p)?
        }
        _ => {
            let one = int(g, 1)?;
            let e = bin(g, BinOp::Sub, n, &one)?;
            let p = method(g, FloatFn::Powi, vec![x.clone(), e])?;
            let to = match g.kind(x) {
                Kind::Float(t) => t,
                _ => ScalarType::F64,
            };
            let nf = op(g, Operation::Builtin(Builtin::Cast(to)), vec![n.clone()])?;
            let k = mul(g, &nf, &p)?;
            // x⁰ = 1 for every x: 0 where n = 0, where `0 · 0^-1` is NaN.
            let n0 = int(g, 0)?;
            let flat = cmp(g, CmpOp::Eq, n, &n0)?;
            let z = zero(g, &k)?;
            kernel(g, Kernel::Select, vec![flat, z, k])?
        }
    };
    mul(g, &coefficient, dx).map(Some)
}

fn kernel_jvp(
    g: &mut Graph,
    k: Kernel,
    args: &[Src],
    dx: &[Option<Src>],
) -> Result<Option<Src>, DiffError> {
    let d = |i: usize| dx.get(i).cloned().flatten();
    match k {
        Kernel::ZerosLike => Ok(None),
        Kernel::Select => {
            if d(1).is_none() && d(2).is_none() {
                return Ok(None);
            }
            let a = match d(1) {
                Some(t) => t,
                None => zero(g, &args[1])?,
            };
            let b = match d(2) {
                Some(t) => t,
                None => zero(g, &args[2])?,
            };
            kernel(g, Kernel::Select, vec![args[0].clone(), a, b]).map(Some)
        }
        // Linear in the first operand; the second gives only a shape.
        Kernel::BroadcastLike | Kernel::SumLike => d(0)
            .map(|t| kernel(g, k, vec![t, args[1].clone()]))
            .transpose(),
        // Linear in the base and in the values added; the indices are integers.
        Kernel::IndexAdd => {
            let mut a = Vec::with_capacity(args.len());
            a.push(match d(0) {
                Some(t) => t,
                None => zero(g, &args[0])?,
            });
            for (k, pair) in args[1..].chunks(2).enumerate() {
                a.push(pair[0].clone());
                a.push(match d(2 + 2 * k) {
                    Some(t) => t,
                    None => c(g, &pair[1], 0.0),
                });
            }
            kernel(g, Kernel::IndexAdd, a).map(Some)
        }
        Kernel::VecAdd => sum(g, vec![d(0), d(1)]),
        // The product and quotient rules, in the same absorbing arithmetic.
        Kernel::Times => {
            let first = d(0).map(|t| mul(g, &t, &args[1])).transpose()?;
            let second = d(1).map(|t| mul(g, &args[0], &t)).transpose()?;
            sum(g, vec![first, second])
        }
        // d(a / b) = (da - (a / b) db) / b.
        Kernel::Over => {
            let y = div(g, &args[0], &args[1])?;
            let n = match (d(0), d(1)) {
                (Some(p), Some(q)) => {
                    let yq = mul(g, &y, &q)?;
                    sub(g, &p, &yq)?
                }
                (Some(p), None) => p,
                (None, Some(q)) => {
                    let yq = mul(g, &y, &q)?;
                    neg(g, &yq)?
                }
                (None, None) => return Ok(None),
            };
            div(g, &n, &args[1]).map(Some)
        }
        Kernel::Outer => {
            let first = d(0)
                .map(|t| kernel(g, k, vec![t, args[1].clone()]))
                .transpose()?;
            let second = d(1)
                .map(|t| kernel(g, k, vec![args[0].clone(), t]))
                .transpose()?;
            sum(g, vec![first, second])
        }
    }
}
