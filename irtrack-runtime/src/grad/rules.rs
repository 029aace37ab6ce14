//! The built-in gradient rules: float arithmetic, the float methods, casts, `?` and
//! constructors, indexing into vectors, `vec!` and array literals.
//!
//! A rule is found by a typed key, never by a name: an operator by its operation and its
//! operands' types, a call of a path by its callee's fn item (`f64::sin`), a method call by the
//! inherent method the entry names — when the receiver's type proves method resolution reaches
//! it (a receiver of type `f64` or `f32` itself: inherent methods are found before any trait's).
//! Through a reference (`(&x).sin()`, `x.sin()` with `x: &f64`) a trait implemented for the
//! reference type could be reached instead, so there the rule applies only if re-running the
//! float method on the recorded operands gives the recorded value bit for bit; otherwise the
//! call has no rule, and the gradient is an error naming it.

use super::primal::Primal;
use super::site::Site;
use super::tangent::Tangent;
use crate::core::ir::EntryKind;
use crate::core::op::ScalarType;
use crate::core::op::{float_fn_of, BinOp, Builtin, FloatFn, Receiver, UnOp};
use crate::core::tape::Callee;
use crate::core::value::{Snapshot, Value};

/// What a rule gives one operand.
#[derive(Clone)]
pub(crate) enum Contribution {
    /// A sensitivity of the operand's full shape.
    Whole(Tangent),
    /// A sensitivity for element `index` of a vector of `len` elements, zero elsewhere.
    At {
        len: usize,
        index: usize,
        value: f64,
    },
    /// Sensitivities for elements `start..start + values.len()` of a vector of `len` elements.
    Range {
        len: usize,
        start: usize,
        values: Vec<f64>,
    },
}

/// The sensitivities a rule gives its operands, by operand number.
pub(crate) type Out = Vec<(usize, Contribution)>;

/// How a node is differentiated.
#[derive(Clone)]
pub(crate) enum Rule {
    /// `y = f(x)` on floats: `dy/dx` from `x` and `y`.
    Unary(fn(f64, f64) -> f64),
    /// `y = f(a, b)` on floats: `(dy/da, dy/db)` from `a`, `b` and `y`.
    Binary(BinaryDerivative),
    /// `y = f(a, b, c)` on floats.
    Ternary(TernaryDerivative),
    /// `x.powi(n)`: the exponent is an integer.
    PowI,
    /// `x.sin_cos()`: its sensitivity names its parts (`"0"`, the sine; `"1"`, the cosine).
    SinCos,
    /// The value is operand 0's (casts between floats, `?`, `Ok`, `Some`, `*r`, bindings).
    PassThrough,
    /// `v[i]` or `v[a..b]` on a vector of floats.
    Index,
    /// `vec![a, b, c]` of recorded floats, or an array `[a, b, 1.0]`.
    VecOf,
    /// `[x; n]`: every element is the one operand.
    Repeat,
    /// Anything else: arrays.
    #[cfg_attr(not(feature = "ndarray"), allow(dead_code))]
    General(fn(&Site<'_>, &Tangent, &mut Out) -> Result<(), String>),
}

/// The derivative of the float methods of one argument.
fn unary(f: FloatFn) -> Option<fn(f64, f64) -> f64> {
    use FloatFn::*;
    Some(match f {
        Sin => |x, _| x.cos(),
        Cos => |x, _| -x.sin(),
        Tan => |x, _| 1.0 / (x.cos() * x.cos()),
        Asin => |x, _| 1.0 / (1.0 - x * x).sqrt(),
        Acos => |x, _| -1.0 / (1.0 - x * x).sqrt(),
        Atan => |x, _| 1.0 / (1.0 + x * x),
        Sinh => |x, _| x.cosh(),
        Cosh => |x, _| x.sinh(),
        // Not `1 - y²`: `y` rounds to ±1 past |x| ≈ 19, where the slope is still a number
        // (1.7e-17 at 20); `1 / cosh x`, squared after the division, keeps it to |x| ≈ 355.
        Tanh => |x, _| {
            let r = x.cosh().recip();
            r * r
        },
        // Not `sqrt(x² ± 1)`: `x²` overflows past 1e154, where the slope is 1/|x|, a number.
        Asinh => |x, _| 1.0 / x.hypot(1.0),
        Acosh => |x, _| 1.0 / ((x - 1.0).sqrt() * (x + 1.0).sqrt()),
        Atanh => |x, _| 1.0 / (1.0 - x * x),
        Exp => |_, y| y,
        Exp2 => |_, y| y * std::f64::consts::LN_2,
        // Not `y + 1`: that rounds to 0 below x ≈ -37, where the slope `eˣ` is a number.
        ExpM1 => |x, _| x.exp(),
        // `x + 0.0` is `x`, but +0 for -0: ln(-0) = ln(0), and its slope there is the
        // one-sided +∞, not 1 / -0 = -∞ (the same for the logarithms below and `sqrt`).
        Ln => |x, _| 1.0 / (x + 0.0),
        Ln1p => |x, _| 1.0 / (1.0 + x),
        Log10 => |x, _| 1.0 / ((x + 0.0) * std::f64::consts::LN_10),
        Log2 => |x, _| 1.0 / ((x + 0.0) * std::f64::consts::LN_2),
        Sqrt => |_, y| 0.5 / (y + 0.0),
        Cbrt => |_, y| 1.0 / (3.0 * y * y),
        Abs => |x, _| if x < 0.0 { -1.0 } else { 1.0 },
        // -y², not -1 / x²: `x²` loses its digits as a subnormal where `y²` is a number.
        Recip => |_, y| -(y * y),
        ToDegrees => |_, _| 180.0 / std::f64::consts::PI,
        ToRadians => |_, _| std::f64::consts::PI / 180.0,
        // Piecewise constant: zero almost everywhere.
        Signum | Floor | Ceil | Round | RoundTiesEven | Trunc => |_, _| 0.0,
        Fract => |_, _| 1.0,
        _ => return None,
    })
}

/// The derivative of the float method `f` of one argument, from `x` and `y = f(x)`.
#[cfg(feature = "ndarray")]
pub(crate) fn unary_derivative(f: FloatFn) -> Option<fn(f64, f64) -> f64> {
    unary(f)
}

/// `(dy/da, dy/db)` from `a`, `b` and `y`.
type BinaryDerivative = fn(f64, f64, f64) -> (f64, f64);

/// `(dy/da, dy/db, dy/dc)` from `a`, `b`, `c` and `y`.
type TernaryDerivative = fn(f64, f64, f64, f64) -> (f64, f64, f64);

/// The derivatives of the arithmetic operators on floats.
fn operator(op: BinOp) -> Option<BinaryDerivative> {
    Some(match op {
        BinOp::Add => |_, _, _| (1.0, 1.0),
        BinOp::Sub => |_, _, _| (1.0, -1.0),
        BinOp::Mul => |a, b, _| (b, a),
        // -y / b, not -a / b²: b² overflows (or underflows) where the quotient does not.
        BinOp::Div => |_, b, y| (1.0 / b, -y / b),
        BinOp::Rem => |a, b, y| (1.0, -rem_quotient(a, b, y)),
        _ => return None,
    })
}

/// The integer quotient `n` of `y = a % b = a - n b`: `(a - y) / b` rounded. Not
/// `trunc(a / b)`, which is `n + 1` where `a / b` rounds up to an integer (`1.0 % 0.1` is
/// `1 - 9 · 0.1`, but `1.0 / 0.1` is 10).
pub(crate) fn rem_quotient(a: f64, b: f64, y: f64) -> f64 {
    ((a - y) / b).round()
}

/// The derivatives of the float methods of two arguments (`a.f(b)`).
fn binary(f: FloatFn) -> Option<BinaryDerivative> {
    use FloatFn::*;
    Some(match f {
        // Products where a zero factor absorbs an infinite one, as derivative programs'
        // `times`: `x^0` is 1 for every `x`, slope 0 also at `x = 0` (`0 · 0^-1`), and
        // `x^∞` is 0 for |x| < 1, slope 0 (`∞ · x^∞ = ∞ · 0`).
        Powf => |a, b, y| {
            use crate::core::eval::times_f64;
            // In b: y ln a for a > 0; none below 0, where aᵇ is a number at integer b only
            // (NaN, which the sweep refuses: it was 0). At a = 0: 0ᵇ is 0 for every b > 0 and
            // ∞ for every b < 0, slope 0; at b = 0 it jumps (0⁰ = 1: `x.powf(x)` at 0 had
            // slope 0, for ln h → -∞ on the right), none.
            let db = if a > 0.0 {
                times_f64(y, a.ln())
            } else if a < 0.0 || b == 0.0 {
                f64::NAN
            } else {
                0.0
            };
            // 1ᵇ = 1 for every b, NaN included (IEEE): the slope in a is 0 there, by the
            // convention for a value defined at one point only (`(x / x).powf(NaN)` is 1).
            let da = if a == 1.0 && b.is_nan() {
                0.0
            } else {
                times_f64(b, a.powf(b - 1.0))
            };
            (da, db)
        },
        // Ties go to the first operand, as `max`/`min` return it.
        Max => |a, b, _| {
            if a >= b || b.is_nan() {
                (1.0, 0.0)
            } else {
                (0.0, 1.0)
            }
        },
        Min => |a, b, _| {
            if a <= b || b.is_nan() {
                (1.0, 0.0)
            } else {
                (0.0, 1.0)
            }
        },
        // `a² + b²` as `hypot(a, b)²`, divided by `hypot` twice: it overflows and underflows long
        // before the quotients do (at (1e-200, 1e-200) it is 0). At (±0, ±0), where atan2
        // jumps (every angle is a limit there), no slope: NaN, which the sweep names
        // (`Indeterminacy::Partial`).
        Atan2 => |a, b, _| {
            let h = a.hypot(b);
            if h == 0.0 && a == 0.0 && b == 0.0 {
                (f64::NAN, f64::NAN)
            } else {
                (b / h / h, -a / h / h)
            }
        },
        // At (±0, ±0) the norm's slope along a direction `d` is `|d|`, of no linear map: NaN.
        // (Its minimum-norm subgradient 0 was taken until 2026-11-27: with `|x|`'s side at 0,
        // `x.hypot(0.0) - x.abs()`, which is 0, had the slope -1.)
        Hypot => |a, b, y| {
            if y == 0.0 && a == 0.0 && b == 0.0 {
                (f64::NAN, f64::NAN)
            } else {
                (a / y, b / y)
            }
        },
        Log => |a, b, _| {
            let lb = b.ln();
            (1.0 / ((a + 0.0) * lb), -a.ln() / (b * lb * lb))
        },
        Copysign => |a, b, _| {
            // The sign bits decide, as `copysign` does: `(-0.0).copysign(-0.0)` keeps `a`.
            let same = a.is_sign_negative() == b.is_sign_negative();
            (if same { 1.0 } else { -1.0 }, 0.0)
        },
        // `a - q b` with `q = a.div_euclid(b)` an integer, constant between the wraps.
        RemEuclid => |a, b, y| (1.0, -rem_quotient(a, b, y)),
        DivEuclid => |_, _, _| (0.0, 0.0),
        _ => return None,
    })
}

fn ternary(f: FloatFn) -> Option<TernaryDerivative> {
    Some(match f {
        FloatFn::MulAdd => |a, b, _, _| (b, a, 1.0),
        FloatFn::Clamp => |x, lo, hi, _| {
            if x < lo {
                (0.0, 1.0, 0.0)
            } else if x > hi {
                (0.0, 0.0, 1.0)
            } else {
                (1.0, 0.0, 0.0)
            }
        },
        _ => return None,
    })
}

/// A unary rule's slope `d` at `x`, where the value is `y`: NaN where the operation has no value
/// there (`ln` of -1, `atanh` of 2: a NaN made from a number), not the formula's finite value
/// (`1 / x` gave -1 for `ln` at -1).
fn unary_at(d: fn(f64, f64) -> f64, x: f64, y: f64) -> f64 {
    if y.is_nan() && !x.is_nan() {
        f64::NAN
    } else {
        d(x, y)
    }
}

/// The rule for the float method `f`.
fn float_method(f: FloatFn) -> Option<Rule> {
    match f.arity() {
        1 => unary(f).map(Rule::Unary),
        2 if f == FloatFn::Powi => Some(Rule::PowI),
        2 => binary(f).map(Rule::Binary),
        3 => ternary(f).map(Rule::Ternary),
        _ => None,
    }
}

/// The partial derivatives of the float method `f` (not `powi`) at `xs` with value `y`, as
/// its rule computes them: the fast path's tape holds these, so the products it forms are the
/// general sweep's.
pub(crate) fn float_partials(f: FloatFn, xs: &[f64], y: f64) -> Option<[f64; 3]> {
    Some(match (float_method(f)?, xs) {
        (Rule::Unary(d), [x]) => [unary_at(d, *x, y), 0.0, 0.0],
        (Rule::Binary(d), [a, b]) => {
            let (da, db) = d(*a, *b, y);
            [da, db, 0.0]
        }
        (Rule::Ternary(d), [a, b, c]) => {
            let (da, db, dc) = d(*a, *b, *c, y);
            [da, db, dc]
        }
        _ => return None,
    })
}

/// Whether the site's operation made its value 0 only as a limit
/// ([`Builtin::zero_is_a_limit`], with no operand 0): the same test as derivative programs'
/// (`program/limit.rs`), on a trace.
pub(crate) fn makes_limit_zero(site: &Site<'_>) -> bool {
    // `x.powf(∞)` at `|x| < 1` is 0 on a neighbourhood: a constant ∞ makes an exact zero.
    site.builtin().is_some_and(Builtin::zero_is_a_limit)
        && (0..site.len()).all(|i| match site.scalar(i) {
            Some(x) => x != 0.0 && !(x.is_infinite() && site.literal(i).is_some()),
            None => true,
        })
}

/// Whether a zero partial of the site's operation can be a limit: its slope is a formula of
/// its operands, so where an operand or the value is infinite a zero slope is `1 / ∞`, which
/// may stand for any small number (`Builtin::slope_vanishes_at_infinity`).
pub(crate) fn limit_prone(site: &Site<'_>) -> bool {
    site.builtin()
        .is_some_and(Builtin::slope_vanishes_at_infinity)
}

/// The partial derivatives of the site's builtin rule, when it has a scalar one, with how many
/// there are.
pub(crate) fn builtin_partials(site: &Site<'_>) -> Option<([f64; 3], usize)> {
    builtin(site).and_then(|r| scalar_partials(&r, site).ok().flatten())
}

/// The partial derivatives of a scalar rule at the site's operands, with how many there are
/// (`Ok(None)` for the other rules; `Err` when an operand is not what the rule reads).
pub(crate) fn scalar_partials(
    rule: &Rule,
    site: &Site<'_>,
) -> Result<Option<([f64; 3], usize)>, String> {
    let scalar = |i: usize| {
        site.scalar(i)
            .ok_or_else(|| format!("operand {} is not a float", i + 1))
    };
    let y = || site.output().as_f64().unwrap_or(f64::NAN);
    Ok(Some(match rule {
        Rule::Unary(d) => ([unary_at(*d, scalar(0)?, y()), 0.0, 0.0], 1),
        Rule::Binary(d) => {
            let (da, db) = d(scalar(0)?, scalar(1)?, y());
            ([da, db, 0.0], 2)
        }
        Rule::Ternary(d) => {
            let (da, db, dc) = d(scalar(0)?, scalar(1)?, scalar(2)?, y());
            ([da, db, dc], 3)
        }
        Rule::PowI => {
            let x = scalar(0)?;
            let n = site
                .integer(1)
                .ok_or("the exponent of `powi` is not an integer")?;
            let d = if n == 0 {
                0.0
            } else {
                n as f64 * x.powi(n as i32 - 1)
            };
            ([d, 0.0, 0.0], 1)
        }
        _ => return Ok(None),
    }))
}

/// Whether a zero slope of the site's scalar operation is exact around the point, so that it
/// may absorb an infinite slope below it: the exponent of `powi` is 0, or an operand that
/// does not vary with the differentiated one (a literal, a constant, another input) is
/// exactly 0 (the slope of `a · b` in `a` where `b` is a constant 0). Any other zero slope of an operation
/// whose slope is a formula ([`limit_prone`]) is a limit — `1 / ∞`, a number too small for
/// `f64`, or a slope that is 0 only at this point because an input-dependent operand is
/// (`2x` of `x · x` at 0, `3u²` of `u.powi(3)` at `u = 0`): met by an infinite slope it makes
/// `0 · ∞`, whose value the point alone does not decide (`x.cbrt().powi(3)` is `x`, slope 1;
/// `x · x.sqrt()` has slope 0).
///
/// For the slope in operand `k`: `varies(m)` says whether operand `m` varies with what `k`
/// does (an input-dependent value of the same root arguments); a zero made by an operand
/// other than `k` that does not is exact along `k`.
pub(crate) fn exact_zero(site: &Site<'_>, k: usize, varies: impl Fn(usize) -> bool) -> bool {
    use FloatFn::{Atan2, MulAdd, Powf, Powi};
    // The operand whose zero makes the slope in `k` zero, by the slope's formula; a zero of
    // any other operand says nothing of it (a zero addend of `mul_add`).
    let maker = match site.builtin() {
        Some(Builtin::Method(Powi)) => return site.integer(1) == Some(0),
        Some(Builtin::Binary(BinOp::Mul) | Builtin::Assign(BinOp::Mul)) => Some(1 - k.min(1)),
        // ∂(a / b)/∂b = -a / b².
        Some(Builtin::Binary(BinOp::Div) | Builtin::Assign(BinOp::Div)) => (k == 1).then_some(0),
        // ∂(a b + c)/∂a = b, ∂/∂b = a.
        Some(Builtin::Method(MulAdd)) => match k {
            0 => Some(1),
            1 => Some(0),
            _ => None,
        },
        // ∂(x^y)/∂x = y x^(y-1): flat in x where y is a constant 0.
        Some(Builtin::Method(Powf)) => (k == 0).then_some(1),
        // ∂ atan2(y, x)/∂y = x / (x² + y²), ∂/∂x = -y / (x² + y²).
        Some(Builtin::Method(Atan2)) => Some(1 - k.min(1)),
        _ => None,
    };
    maker.is_some_and(|m| m != k && site.scalar(m) == Some(0.0) && !varies(m))
}

/// Whether running the float method `f` on the site's operands gives its recorded value, bit
/// for bit: the witness that a call method resolution may have sent elsewhere reached `f`.
pub(crate) fn reaches(site: &Site<'_>, f: FloatFn) -> bool {
    let out = site.output();
    let int = if f == FloatFn::Powi {
        site.integer(1)
    } else {
        None
    };
    let same = |a: u64, b: u64, nan: bool| a == b || nan;
    if let Some(&y) = out.downcast_ref::<f32>() {
        let args: Option<Vec<f32>> = (0..site.len())
            .filter(|&i| !(f == FloatFn::Powi && i == 1))
            .map(|i| site.scalar(i).map(|x| x as f32))
            .collect();
        return match args.and_then(|a| f.eval_f32(&a, int)) {
            Some(r) => same(
                r.to_bits() as u64,
                y.to_bits() as u64,
                r.is_nan() && y.is_nan(),
            ),
            None => false,
        };
    }
    let Some(&y) = out.downcast_ref::<f64>() else {
        return false;
    };
    let args: Option<Vec<f64>> = (0..site.len())
        .filter(|&i| !(f == FloatFn::Powi && i == 1))
        .map(|i| site.scalar(i))
        .collect();
    match args.and_then(|a| f.eval_f64(&a, int)) {
        Some(r) => same(r.to_bits(), y.to_bits(), r.is_nan() && y.is_nan()),
        None => false,
    }
}

/// Whether `site` calls `sin_cos` on a float: by method syntax (`x.sin_cos()`, its receiver
/// checked by [`builtin`]) or by its path (`f64::sin_cos(x)`).
pub(crate) fn names_sin_cos(site: &Site<'_>) -> bool {
    site.builtin() == Some(Builtin::SinCos)
        || matches!(site.callee(), Some(Callee::Item(t)) if crate::core::op::is_sin_cos_path(t.id))
}

/// Whether the recorded pair of a `sin_cos` call is `(x.sin(), x.cos())` of its recorded
/// operand, bit for bit (`core::op::sin_cos_parts`).
pub(crate) fn sin_cos_reached(site: &Site<'_>) -> bool {
    site.scalar(0)
        .is_some_and(|x| crate::core::op::sin_cos_parts(x, &site.output()).is_some())
}

/// Why a method call named like a float method has no rule, for the error.
pub(crate) fn unproven_method(site: &Site<'_>, f: FloatFn) -> Option<String> {
    match site.receiver() {
        Receiver::FloatRef => Some(format!(
            "the receiver is a reference to a float, so this call could reach a trait method \
             of the reference type instead of `f64::{}`, and re-running `f64::{}` on the \
             recorded operands does not give the recorded value: it is not the float method; \
             make the method `#[tracked]`, give it a rule, or call the float method on the \
             float itself (`(*x).{}()`)",
            f.name(),
            f.name(),
            f.name()
        )),
        Receiver::Float | Receiver::Generic if !reaches(site, f) => Some(format!(
            "re-running `f64::{}` on the recorded operands does not give the recorded value: \
             another method of that name ran (a trait method found first, such as one \
             implemented for `&f64` and called as `(&x).{}()`); make it `#[tracked]` or give \
             it a rule",
            f.name(),
            f.name()
        )),
        _ => None,
    }
}

/// Whether re-running the scalar operation `op` on the site's recorded operands gives its
/// recorded value, bit for bit (so the operands the trace links are the ones it ran on).
pub(crate) fn operands_current(site: &Site<'_>, op: Builtin) -> bool {
    let args: Option<Vec<Value>> = (0..site.len())
        .map(|i| match site.value(i) {
            Some(v) => Some(v.into_owned().by_value()),
            None => {
                let x = site.scalar(i)?;
                Some(if site.output_is_f32() {
                    (x as f32).snapshot()
                } else {
                    x.snapshot()
                })
            }
        })
        .collect();
    match args.map(|a| crate::core::eval::eval_builtin(op, &a)) {
        Some(Ok(v)) => v.same_scalar(&site.output()),
        _ => false,
    }
}

/// Whether `v[k]`, read at a recorded integer index, is the element the vector `v` recorded
/// (else the vector changed in place after it was recorded: `scale(&mut v[0])` then `v[0]`).
/// A range's read is not checked here.
fn element_current(site: &Site<'_>, v: &[f64]) -> bool {
    let Some(k) = site.integer(1) else {
        return true;
    };
    let (Some(x), Some(y)) = (
        usize::try_from(k).ok().and_then(|k| v.get(k)),
        site.output().by_value().as_f64(),
    ) else {
        return false;
    };
    x.to_bits() == y.to_bits()
}

/// Why a float cast is no identity at this point: it rounded a nonzero number to 0 or to a
/// subnormal `f32` (`1e-50 as f32` is 0 on a whole neighbourhood, whose slope is 0, not 1),
/// or a finite one to ∞ (`1e300 as f32`). Elsewhere a cast to `f32` rounds as any `f32`
/// operation does, and its slope is 1.
pub(crate) fn lossy_cast(site: &Site<'_>) -> Option<String> {
    // Only `f64 as f32` narrows (`f32 as f64` and `f64 as f64` are exact).
    if site.builtin() != Some(Builtin::Cast(ScalarType::F32)) {
        return None;
    }
    let x = *site.value(0)?.by_value().downcast_ref::<f64>()?;
    let y = site.output().as_f64()?;
    crate::core::rounding::narrowing_lost(x, y).then(|| {
        format!(
            "it rounds {x:e} to {y:e}, which no slope of 1 describes (the cast is constant \
             around this point, or past the type's range): keep the computation in `f64` here"
        )
    })
}

/// Why a float operator, cast or element read has no rule, for the error: its operands are
/// stale.
pub(crate) fn stale_operands(site: &Site<'_>) -> Option<String> {
    let b = site.builtin()?;
    let floats = (0..site.len()).all(|i| site.is_float(i));
    let stale = match (site.kind(), b) {
        (EntryKind::Operator, _) => floats && !operands_current(site, b),
        (EntryKind::Special, Builtin::Cast(to)) if to.is_float() && floats => {
            if let Some(reason) = lossy_cast(site) {
                return Some(reason);
            }
            !operands_current(site, b)
        }
        (EntryKind::Special, Builtin::Deref) => {
            site.output().as_f64().is_some() && !witness_pass_through(site)
        }
        (EntryKind::Call, Builtin::Index) => match site.primal(0) {
            Some(Primal::Vector(v)) => !element_current(site, &v),
            _ => false,
        },
        _ => false,
    };
    stale.then(|| STALE.to_string())
}

/// Why an edge whose operand changed in place after it was recorded has no rule.
pub(crate) const STALE: &str = "re-running it on the values its operands recorded does not \
     give its value: an operand was changed in place after it was recorded (through a `&mut` \
     borrow, `*r = …`), which the trace does not show, so its edge is stale; pass values and \
     bind results (`let k = f(k)`) instead of mutating through references";

/// The built-in rule for a site, if there is one.
pub(crate) fn builtin(site: &Site<'_>) -> Option<Rule> {
    let all_float = || (0..site.len()).all(|i| site.is_float(i));
    match (site.kind(), site.builtin()) {
        (EntryKind::Operator, Some(b @ (Builtin::Binary(op) | Builtin::Assign(op)))) => {
            if all_float() {
                // The rule reads its operands' recorded values: they must be the ones the
                // operator ran on (an operand changed through `&mut` after it was recorded is
                // a stale edge).
                return operands_current(site, b)
                    .then(|| operator(op).map(Rule::Binary))
                    .flatten();
            }
            array_rule(site)
        }
        (EntryKind::Operator, Some(b @ Builtin::Unary(UnOp::Neg))) => {
            if all_float() {
                // As for the binary operators: a witness that the operand is current.
                return operands_current(site, b).then_some(Rule::Unary(|_, _| -1.0));
            }
            array_rule(site)
        }
        // The receiver's class says which method resolution could reach; the recorded values
        // must agree too (a witness: a receiver written `(&x)` is recorded as `x`, and a
        // trait method of `&f64` named `sin` is found before `f64::sin`).
        (EntryKind::MethodCall, Some(Builtin::Method(f))) => match site.receiver() {
            Receiver::Float | Receiver::FloatRef | Receiver::Generic if reaches(site, f) => {
                float_method(f)
            }
            Receiver::Float | Receiver::FloatRef | Receiver::Generic => None,
            // A literal receiver (`2.0f64.powi(n)`) is a float by value.
            Receiver::Unknown if site.value(0).is_none() && site.is_float(0) => {
                reaches(site, f).then(|| float_method(f)).flatten()
            }
            _ => array_rule(site),
        },
        // On a float, or a reference to one (as for the other float methods: the recorded pair
        // is the witness); not on a generic receiver, whose trait method of that name one
        // recorded pair does not tell from the float method.
        (EntryKind::MethodCall, Some(Builtin::SinCos)) => match site.receiver() {
            Receiver::Float | Receiver::FloatRef => sin_cos_reached(site).then_some(Rule::SinCos),
            Receiver::Unknown if site.value(0).is_none() && site.is_float(0) => {
                sin_cos_reached(site).then_some(Rule::SinCos)
            }
            _ => None,
        },
        (EntryKind::MethodCall, Some(Builtin::Clone)) => {
            witness_pass_through(site).then_some(Rule::PassThrough)
        }
        (EntryKind::MethodCall, _) => {
            if matches!(site.head(), "to_vec" | "into_owned" | "as_slice")
                && witness_pass_through(site)
            {
                return Some(Rule::PassThrough);
            }
            array_rule(site)
        }
        (EntryKind::Call, Some(Builtin::Index)) if site.callee().is_none() => {
            match site.primal(0) {
                Some(Primal::Vector(v)) => element_current(site, &v).then_some(Rule::Index),
                _ => array_rule(site),
            }
        }
        (EntryKind::Call, _) => match site.callee()? {
            Callee::Item(t) => {
                if crate::core::op::is_sin_cos_path(t.id) {
                    return sin_cos_reached(site).then_some(Rule::SinCos);
                }
                if let Some(f) = float_fn_of(t.id) {
                    // The callee is exact; the witness checks the operands are current.
                    return reaches(site, f).then(|| float_method(f)).flatten();
                }
                if is_wrapping_constructor(site) {
                    return Some(Rule::PassThrough);
                }
                array_rule(site)
            }
            Callee::Unknown => None,
        },
        (EntryKind::Special, Some(Builtin::Question)) => Some(Rule::PassThrough),
        // `*r` reads what `r` points at now, which a write through another borrow may have
        // changed since `r` was recorded: the values must agree.
        (EntryKind::Special, Some(Builtin::Deref)) => {
            witness_pass_through(site).then_some(Rule::PassThrough)
        }
        (EntryKind::Special, Some(Builtin::Bind)) => {
            binds_the_whole(site).then_some(Rule::PassThrough)
        }
        (EntryKind::Special, Some(b @ Builtin::Cast(to))) => {
            (to.is_float() && operands_current(site, b) && lossy_cast(site).is_none())
                .then_some(Rule::PassThrough)
        }
        (EntryKind::Special, Some(Builtin::VecOf | Builtin::ArrayOf)) => Some(Rule::VecOf),
        (EntryKind::Special, Some(Builtin::Repeat)) => Some(Rule::Repeat),
        _ => None,
    }
}

/// Whether a pattern's binding is its whole operand (`x @ _`, `&x`, `ref x`) or the float a
/// `Some` or `Ok` holds: then its sensitivity is the operand's, as it is. A component of a tuple
/// or a struct is not (`let (a, b) = (x, 1.0)`): passing each component's sensitivity to the
/// whole added them into one — `a - b` got `1 + (-1) = 0` for `x`, with no error (seed 16 of
/// the differential tester, unit 1891). Such a binding has no rule: a typed error.
fn binds_the_whole(site: &Site<'_>) -> bool {
    let Some(operand) = site.value(0) else {
        return false;
    };
    let out = site.output();
    if same_values(&operand, &out) {
        return true;
    }
    let Some(y) = out.by_value().as_f64() else {
        return false;
    };
    if let Some(Some(x)) = operand.by_value().wrapped_float() {
        return x.to_bits() == y.to_bits();
    }
    // `next()` of a slice iterator in `for &x in v`: an `Option<&f64>`, which holds one float
    // (kept as text, so the type says it).
    use std::any::TypeId;
    let one_float = [
        TypeId::of::<Option<&'static f64>>(),
        TypeId::of::<Option<&'static mut f64>>(),
        TypeId::of::<Option<&'static f32>>(),
        TypeId::of::<Option<&'static mut f32>>(),
    ];
    operand
        .by_value()
        .type_id()
        .is_some_and(|t| one_float.contains(&t))
}

/// Whether the value is its single operand's, unchanged (a clone, a conversion to a vector):
/// checked on the recorded values, so a user's method of the same name that computes anything
/// else gets no rule.
fn witness_pass_through(site: &Site<'_>) -> bool {
    match site.value(0) {
        Some(a) => same_values(&a, &site.output()),
        None => false,
    }
}

/// Whether two recorded values are the same floats, bit for bit (a float, a vector of floats,
/// an array of floats).
pub(crate) fn same_values(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => return x.to_bits() == y.to_bits(),
        (None, None) => {}
        _ => return false,
    }
    match (a.floats(), b.floats()) {
        (Some(x), Some(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|(p, q)| p.to_bits() == q.to_bits())
        }
        _ => {
            #[cfg(feature = "ndarray")]
            if let (Some(x), Some(y)) = (
                super::ndarray::array_primal(a),
                super::ndarray::array_primal(b),
            ) {
                return x.shape() == y.shape()
                    && x.iter()
                        .zip(y.iter())
                        .all(|(p, q)| p.to_bits() == q.to_bits());
            }
            false
        }
    }
}

/// `Ok(x)`, `Some(x)`, `Box::new(x)` of a differentiable value: a call of one argument,
/// written as one of those constructors, whose value is the argument wrapped, unchanged.
fn is_wrapping_constructor(site: &Site<'_>) -> bool {
    let last = site.head().rsplit("::").next().unwrap_or("");
    if site.len() != 1 || !matches!(last, "Some" | "Ok" | "new" | "Continue") {
        return false;
    }
    if last == "new" && !site.head().ends_with("Box::new") {
        return false;
    }
    let output = site.output();
    let Some(Some(inner)) = output.wrapped() else {
        // A `Result` whose error type has no snapshot is kept as its text: the value is the
        // operand wrapped if it prints as the operand inside the constructor (floats print
        // exactly, so equal text is equal bits).
        let operand = match site.value(0) {
            Some(x) if x.as_f64().is_some() || x.floats().is_some() => x.to_string(),
            Some(_) => return false,
            None => match site.scalar(0) {
                Some(x) => format!("{x:?}"),
                None => return false,
            },
        };
        return output.is_text() && output.to_string() == format!("{last}({operand})");
    };
    match site.value(0) {
        Some(x) => same_values(&x, &inner),
        None => site
            .scalar(0)
            .zip(inner.as_f64())
            .is_some_and(|(x, y)| x.to_bits() == y.to_bits()),
    }
}

/// Whether node `id` is a wrapping constructor (`Ok(x)`, `Some(x)`) of a float: what a float
/// output inside `Ok` kept as text comes from.
pub(crate) fn wraps_a_float(
    store: &crate::core::tape::Store,
    id: crate::core::ids::NodeId,
) -> bool {
    let Some(site) = Site::new(store, id) else {
        return false;
    };
    site.kind() == EntryKind::Call && site.is_float(0) && is_wrapping_constructor(&site)
}

#[cfg(feature = "ndarray")]
fn array_rule(site: &Site<'_>) -> Option<Rule> {
    super::ndarray::rule(site)
}

#[cfg(not(feature = "ndarray"))]
fn array_rule(_: &Site<'_>) -> Option<Rule> {
    None
}

/// Applies `rule` to `site` with the output's sensitivity `dy`.
/// `dy · d`, where a zero partial gives zero whatever the sensitivity: an operation that is
/// locally constant in an operand (`round`, `floor`, the side `max` did not take) passes
/// nothing to it, even when what it feeds has an infinite derivative (`acos` at 1 of
/// `x.round()`: `-inf · 0` would be NaN; the composite is flat, its derivative 0).
fn times(dy: f64, d: f64) -> f64 {
    if d == 0.0 {
        0.0
    } else {
        dy * d
    }
}

pub(crate) fn apply(
    rule: &Rule,
    site: &Site<'_>,
    dy: &Tangent,
    out: &mut Out,
) -> Result<(), String> {
    let dy_scalar = || {
        dy.as_scalar()
            .ok_or_else(|| format!("a float's sensitivity is a {}", dy.shape()))
    };
    match rule {
        Rule::Unary(_) | Rule::Binary(_) | Rule::Ternary(_) | Rule::PowI => {
            if let Some((ds, n)) = scalar_partials(rule, site)? {
                let g = dy_scalar()?;
                for (i, &d) in ds[..n].iter().enumerate() {
                    out.push((i, Contribution::Whole(Tangent::Scalar(times(g, d)))));
                }
            }
        }
        Rule::SinCos => {
            let Tangent::Fields(parts) = dy else {
                return Err(format!(
                    "its sensitivity is a {}, where a pair's names its parts",
                    dy.shape()
                ));
            };
            let x = site
                .scalar(0)
                .ok_or_else(|| "its operand is not a float".to_string())?;
            let mut g = 0.0;
            for (path, t) in parts {
                let t = t
                    .as_scalar()
                    .ok_or_else(|| format!("its part `{path}` has a {}", t.shape()))?;
                g += match path.as_str() {
                    "0" => times(t, x.cos()),
                    "1" => -times(t, x.sin()),
                    _ => return Err(format!("a pair has no part `{path}`")),
                };
            }
            out.push((0, Contribution::Whole(Tangent::Scalar(g))));
        }
        Rule::PassThrough => {
            // A wrapper (`Some(x)`, `Ok(x)`, a reference) has its content's sensitivity; a value
            // of another shape is not the whole operand: a pattern binding one element of an
            // array (`let [a, b] = v`) must not give the element's sensitivity to all of `v`.
            if let Some(p) = site.primal(0) {
                if !p.fits(dy) {
                    return Err(format!(
                        "its sensitivity is a {}, but its operand is a {}: the value is a part \
                         of the operand, and the trace does not record which part; index the \
                         operand instead (`v[0]`, `v[1..]`)",
                        dy.shape(),
                        p.shape()
                    ));
                }
            }
            out.push((0, Contribution::Whole(dy.clone())))
        }
        Rule::Index => index(site, dy, out)?,
        Rule::VecOf => {
            let d = dy
                .as_slice()
                .ok_or_else(|| format!("a vector's sensitivity is a {}", dy.shape()))?;
            // The macro stays opaque: its operands are the variables it mentions, once each, in
            // order, not its elements. They are its elements only if there are as many as the
            // vector's and each holds its element's value (`vec![a, b * 2.0]` mentions `a`
            // and `b` but its second element is not `b`).
            let output = site.output();
            let elements = super::primal::primal(&output);
            let literal_elements = site.len() == d.len()
                && matches!(&elements, Some(Primal::Vector(e)) if e.len() == d.len())
                && (0..site.len()).all(|i| {
                    let element = match &elements {
                        Some(Primal::Vector(e)) => e[i],
                        _ => f64::NAN,
                    };
                    let operand = site.scalar(i);
                    operand.is_some_and(|v| v.to_bits() == element.to_bits())
                });
            if !literal_elements {
                return Err(
                    "`vec!` is differentiated only when its elements are different variables \
                     (`vec![a, b, c]`): bind each element to a variable of its own first"
                        .into(),
                );
            }
            for (i, g) in d.iter().enumerate() {
                out.push((i, Contribution::Whole(Tangent::Scalar(*g))));
            }
        }
        Rule::Repeat => {
            let d = dy
                .as_slice()
                .ok_or_else(|| format!("an array's sensitivity is a {}", dy.shape()))?;
            // The witness: every element holds the operand's value.
            let x = site.scalar(0).ok_or("its element is not a float")?;
            let same = match super::primal::primal(&site.output()) {
                Some(Primal::Vector(e)) => {
                    e.len() == d.len() && e.iter().all(|v| v.to_bits() == x.to_bits())
                }
                _ => false,
            };
            if !same {
                return Err(STALE.to_string());
            }
            out.push((0, Contribution::Whole(Tangent::Scalar(d.iter().sum()))));
        }
        Rule::General(f) => f(site, dy, out)?,
    }
    Ok(())
}

/// `v[i]` and `v[a..b]` on vectors of floats.
fn index(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> Result<(), String> {
    let len = match site.primal(0) {
        Some(Primal::Vector(v)) => v.len(),
        #[cfg(feature = "ndarray")]
        Some(p @ Primal::Array(_)) => p.len(),
        _ => return Err("indexing is differentiated on vectors of floats".into()),
    };
    if let Some(i) = site.integer(1) {
        let g = dy
            .as_scalar()
            .ok_or_else(|| format!("an element's sensitivity is a {}", dy.shape()))?;
        out.push((
            0,
            Contribution::At {
                len,
                index: i as usize,
                value: g,
            },
        ));
        return Ok(());
    }
    let values = dy
        .as_slice()
        .ok_or_else(|| format!("a slice's sensitivity is a {}", dy.shape()))?
        .to_vec();
    let start = slice_start(site, len, values.len())?;
    if start + values.len() > len {
        return Err("the slice's sensitivity has the wrong length".into());
    }
    out.push((0, Contribution::Range { len, start, values }));
    Ok(())
}

/// Where the slice `v[range]` of `taken` elements starts in `v` (of `len` elements). A range
/// the trace recorded is read; a range written with variables in the index (`v[k..]`,
/// `v[..k]`, `v[a..b]`) is kept as text, so a bound that is a variable is found from the other
/// bound and the slice's length, and when both are variables, from where the slice's values
/// occur in `v` (an error when they occur at more than one place).
fn slice_start(site: &Site<'_>, len: usize, taken: usize) -> Result<usize, String> {
    if let Some(v) = site.value(1) {
        let (start, end) =
            recorded_range(&v).ok_or("the index is neither an integer nor a range")?;
        let end = end.unwrap_or(len);
        if end.saturating_sub(start) != taken {
            return Err("the slice's sensitivity has the wrong length".into());
        }
        return Ok(start);
    }
    let text = site
        .literal(1)
        .ok_or("the index is neither an integer nor a range")?;
    let (start, end) = range_bounds(text).ok_or("the index is neither an integer nor a range")?;
    let end = match end {
        Bound::Open => Some(len),
        Bound::At(e) => Some(e),
        Bound::Variable => None,
    };
    let start = match (start, end) {
        (Bound::Open, _) => 0,
        (Bound::At(s), _) => s,
        (Bound::Variable, Some(e)) => e
            .checked_sub(taken)
            .ok_or("the slice's sensitivity has the wrong length")?,
        (Bound::Variable, None) => find_slice(site, text, len, taken)?,
    };
    if end.is_some_and(|e| e != start + taken) {
        return Err("the slice's sensitivity has the wrong length".into());
    }
    Ok(start)
}

/// Where the slice a node holds occurs in the vector it was taken from, when that is one place.
fn find_slice(site: &Site<'_>, text: &str, len: usize, taken: usize) -> Result<usize, String> {
    let v = match site.primal(0) {
        Some(Primal::Vector(v)) => v,
        _ => return Err("slicing is differentiated on vectors of floats".into()),
    };
    let output = site.output();
    let part = match super::primal::primal(&output) {
        Some(Primal::Vector(part)) if part.len() == taken => part,
        _ => {
            return Err(format!(
                "the bounds of `{text}` were not recorded, nor the slice's values; bind the \
                 range to a variable first (`let r = a..b;`)"
            ))
        }
    };
    let mut at = (0..=len.saturating_sub(taken)).filter(|&s| {
        v[s..s + taken]
            .iter()
            .zip(part.iter())
            .all(|(a, b)| a.to_bits() == b.to_bits())
    });
    match (at.next(), at.next()) {
        (Some(s), None) => Ok(s),
        _ => Err(format!(
            "the bounds of `{text}` were not recorded, and the slice's values occur at more \
             than one place in the vector; bind the range to a variable first (`let r = a..b;`)"
        )),
    }
}

/// The bounds of a recorded range value (`a..b`, `a..=b`, `a..`, `..b`), by its type.
fn recorded_range(v: &crate::core::value::Value) -> Option<(usize, Option<usize>)> {
    use std::ops::{Range, RangeFrom, RangeInclusive, RangeTo, RangeToInclusive};
    if let Some(r) = v.downcast_ref::<Range<usize>>() {
        return Some((r.start, Some(r.end)));
    }
    if let Some(r) = v.downcast_ref::<RangeInclusive<usize>>() {
        return Some((*r.start(), Some(r.end() + 1)));
    }
    if let Some(r) = v.downcast_ref::<RangeFrom<usize>>() {
        return Some((r.start, None));
    }
    if let Some(r) = v.downcast_ref::<RangeTo<usize>>() {
        return Some((0, Some(r.end)));
    }
    if let Some(r) = v.downcast_ref::<RangeToInclusive<usize>>() {
        return Some((0, Some(r.end + 1)));
    }
    None
}

/// One bound of a range written in an index.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Bound {
    /// Left out: the start or the end of the vector.
    Open,
    /// A literal (an inclusive end already plus one).
    At(usize),
    /// A variable: its value is not in the text.
    Variable,
}

/// The bounds of a range as written in an index: `1..3`, `k..`, `..=n`, `a..b`.
fn range_bounds(text: &str) -> Option<(Bound, Bound)> {
    let (a, b) = text.split_once("..")?;
    let bound = |t: &str| {
        let t = t.trim();
        if t.is_empty() {
            Some(Bound::Open)
        } else if let Some(n) = crate::core::literal::as_i64(t) {
            usize::try_from(n).ok().map(Bound::At)
        } else if t.chars().all(|c| c.is_alphanumeric() || c == '_') {
            Some(Bound::Variable)
        } else {
            None
        }
    };
    let start = bound(a)?;
    let end = match b.trim().strip_prefix('=') {
        Some(inclusive) => match bound(inclusive)? {
            Bound::At(e) => Bound::At(e + 1),
            Bound::Open => return None,
            Bound::Variable => Bound::Variable,
        },
        None => bound(b)?,
    };
    Some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_with_variables() {
        use Bound::*;
        assert_eq!(range_bounds("1..3"), Some((At(1), At(3))));
        assert_eq!(range_bounds("k.."), Some((Variable, Open)));
        assert_eq!(range_bounds("..=n"), Some((Open, Variable)));
        assert_eq!(range_bounds("a..b"), Some((Variable, Variable)));
        assert_eq!(range_bounds("2..=4usize"), Some((At(2), At(5))));
        assert_eq!(range_bounds("k + 1.."), None);
        assert_eq!(range_bounds("k"), None);
    }
}
