//! The two derivative tables give the same numbers, and the right ones.
//!
//! irtrack differentiates the std float operations twice: `grad/rules.rs` holds numeric
//! partials (`irtrack::gradient`: its fast path and its general sweep), `diff/rules.rs`
//! symbolic rules that build derivative programs (`irtrack::diff::vjp`, by transposition, and
//! `irtrack::diff::jvp`, forward). For every float method of `FloatFn`, the operators
//! `+ - * / %` and unary `-`, on `f64` and on `f32`, at a grid of points holding the edge
//! points (±0, ±1, small negatives, ties, the points where a branch switches, NaN operands
//! the function is defined at), each of the four paths must give what a closed form written
//! here gives (`f64`: within 1e-12 relative; `f32`: 1e-5 relative and 1e-6 absolute, its own
//! rounding), and the closed form is checked against central finite differences wherever the
//! function is smooth at the point, so that tables wrong in the same way are caught.
//!
//! A NaN derivative is allowed only where the function itself is NaN (or undefined: the base
//! ±0 of `log`); there the paths must agree where they give numbers. No path may return an
//! error for these operations. That holds for `jvp` along a basis direction too where the
//! partial in *another* argument is infinite (`a / b` at b = 0 along (1, 0)): derivative
//! programs multiply with `times`, in which the direction's 0 absorbs the ∞ (as the
//! gradient's sweep does), where IEEE `∞ · 0` made it NaN.
//!
//! Where the derivative does not exist, the closed form states irtrack's convention:
//! - `abs` at ±0: 1 (−1 only for `x < 0`); `max`/`min` at a tie: the first operand's; a NaN
//!   operand of `max`/`min`: the other's (the one returned); `clamp` on a bound: `x`'s;
//! - the steps (`signum`, `floor`, `ceil`, `round`, `round_ties_even`, `trunc`, and `fract`,
//!   `%` at their jumps): the slope of the piece the point's value is on (`%`: of the quotient
//!   the remainder was computed with);
//! - `sqrt`, `ln`, `log2`, `log10`, `log`'s argument at −0: as at +0 (−0 is 0; the one-sided
//!   derivative from the right, +∞, not −∞);
//! - `powf`: ∂/∂a is 0 where b = 0 (a⁰ = 1 for every a: true, also at a = 0), ∂/∂b is 0 where
//!   a = 0 and b ≠ 0 (0ᵇ = 0 for every b > 0, ∞ for every b < 0) and none where a < 0 (the
//!   function is a number at integer b only: an error since 2026-11-27, where 0 was given) or
//!   where a is 0 or NaN and b = 0 (aᵇ jumps to 1 there: an error since the same day, where 0
//!   was given); ∂/∂a is 0 at a = 1 with b NaN (1ᵇ = 1 for every b in IEEE, the value
//!   defined at that one point);
//! - `atan2` and `hypot` at (±0, ±0): 0 (`hypot`'s minimum-norm subgradient; `atan2` jumps
//!   there, and a jump gets 0 as `floor`'s does).
//!
//! The repro tests after the sweep name each divergence found and fixed; the last tests check
//! second derivatives (`powf`, `sqrt`, `abs`) at the edge points against closed forms.

use irtrack::diff::{differentiate, hessian, jvp, vjp};
use irtrack::grad::with_general_sweep;
use irtrack::program::{Input, Program};
use irtrack::{gradient, track, tracked, Callable, GradError, Gradient, Snapshot, Value};
use std::fmt::Debug;

// The operations, once for `f64` and once for `f32` (`f64_ops::sin`, `f32_ops::sin`, …).
macro_rules! float_ops {
    ($m:ident, $t:ty) => {
        mod $m {
            use irtrack::tracked;

            #[tracked]
            pub fn sin(x: $t) -> $t {
                x.sin()
            }

            #[tracked]
            pub fn cos(x: $t) -> $t {
                x.cos()
            }

            #[tracked]
            pub fn tan(x: $t) -> $t {
                x.tan()
            }

            #[tracked]
            pub fn asin(x: $t) -> $t {
                x.asin()
            }

            #[tracked]
            pub fn acos(x: $t) -> $t {
                x.acos()
            }

            #[tracked]
            pub fn atan(x: $t) -> $t {
                x.atan()
            }

            #[tracked]
            pub fn sinh(x: $t) -> $t {
                x.sinh()
            }

            #[tracked]
            pub fn cosh(x: $t) -> $t {
                x.cosh()
            }

            #[tracked]
            pub fn tanh(x: $t) -> $t {
                x.tanh()
            }

            #[tracked]
            pub fn asinh(x: $t) -> $t {
                x.asinh()
            }

            #[tracked]
            pub fn acosh(x: $t) -> $t {
                x.acosh()
            }

            #[tracked]
            pub fn atanh(x: $t) -> $t {
                x.atanh()
            }

            #[tracked]
            pub fn exp(x: $t) -> $t {
                x.exp()
            }

            #[tracked]
            pub fn exp2(x: $t) -> $t {
                x.exp2()
            }

            #[tracked]
            pub fn exp_m1(x: $t) -> $t {
                x.exp_m1()
            }

            #[tracked]
            pub fn ln(x: $t) -> $t {
                x.ln()
            }

            #[tracked]
            pub fn ln_1p(x: $t) -> $t {
                x.ln_1p()
            }

            #[tracked]
            pub fn log10(x: $t) -> $t {
                x.log10()
            }

            #[tracked]
            pub fn log2(x: $t) -> $t {
                x.log2()
            }

            #[tracked]
            pub fn sqrt(x: $t) -> $t {
                x.sqrt()
            }

            #[tracked]
            pub fn cbrt(x: $t) -> $t {
                x.cbrt()
            }

            #[tracked]
            pub fn abs(x: $t) -> $t {
                x.abs()
            }

            #[tracked]
            pub fn recip(x: $t) -> $t {
                x.recip()
            }

            #[tracked]
            pub fn to_degrees(x: $t) -> $t {
                x.to_degrees()
            }

            #[tracked]
            pub fn to_radians(x: $t) -> $t {
                x.to_radians()
            }

            #[tracked]
            pub fn signum(x: $t) -> $t {
                x.signum()
            }

            #[tracked]
            pub fn floor(x: $t) -> $t {
                x.floor()
            }

            #[tracked]
            pub fn ceil(x: $t) -> $t {
                x.ceil()
            }

            #[tracked]
            pub fn round(x: $t) -> $t {
                x.round()
            }

            #[tracked]
            pub fn round_ties_even(x: $t) -> $t {
                x.round_ties_even()
            }

            #[tracked]
            pub fn trunc(x: $t) -> $t {
                x.trunc()
            }

            #[tracked]
            pub fn fract(x: $t) -> $t {
                x.fract()
            }

            #[tracked]
            pub fn powf(x: $t, y: $t) -> $t {
                x.powf(y)
            }

            #[tracked]
            pub fn max(x: $t, y: $t) -> $t {
                x.max(y)
            }

            #[tracked]
            pub fn min(x: $t, y: $t) -> $t {
                x.min(y)
            }

            #[tracked]
            pub fn atan2(x: $t, y: $t) -> $t {
                x.atan2(y)
            }

            #[tracked]
            pub fn hypot(x: $t, y: $t) -> $t {
                x.hypot(y)
            }

            #[tracked]
            pub fn log(x: $t, y: $t) -> $t {
                x.log(y)
            }

            #[tracked]
            pub fn copysign(x: $t, y: $t) -> $t {
                x.copysign(y)
            }

            #[tracked]
            pub fn mul_add(x: $t, y: $t, z: $t) -> $t {
                x.mul_add(y, z)
            }

            #[tracked]
            pub fn clamp(x: $t, lo: $t, hi: $t) -> $t {
                x.clamp(lo, hi)
            }

            #[tracked]
            pub fn powi(x: $t, n: i32) -> $t {
                x.powi(n)
            }

            #[tracked]
            pub fn add(x: $t, y: $t) -> $t {
                x + y
            }

            #[tracked]
            pub fn sub(x: $t, y: $t) -> $t {
                x - y
            }

            #[tracked]
            pub fn mul(x: $t, y: $t) -> $t {
                x * y
            }

            #[tracked]
            pub fn div(x: $t, y: $t) -> $t {
                x / y
            }

            #[tracked]
            pub fn rem(x: $t, y: $t) -> $t {
                x % y
            }

            #[tracked]
            pub fn neg(x: $t) -> $t {
                -x
            }
        }
    };
}

float_ops!(f64_ops, f64);
float_ops!(f32_ops, f32);

// ---------------------------------------------------------------------------------------------
// The harness.
// ---------------------------------------------------------------------------------------------

/// `f64` or `f32`.
trait Float: Copy + Debug + Send + Sync + Snapshot + 'static {
    /// Relative tolerance between a path and the closed form.
    const REL: f64;
    /// Absolute tolerance (`f32` rounds derivatives like `1 - tanh²` to 0).
    const ABS: f64;
    fn of(x: f64) -> Self;
    fn wide(self) -> f64;
}

impl Float for f64 {
    const REL: f64 = 1e-12;
    const ABS: f64 = 0.0;
    fn of(x: f64) -> f64 {
        x
    }
    fn wide(self) -> f64 {
        self
    }
}

impl Float for f32 {
    const REL: f64 = 1e-4;
    const ABS: f64 = 1e-6;
    fn of(x: f64) -> f32 {
        x as f32
    }
    fn wide(self) -> f64 {
        self as f64
    }
}

/// The partial derivatives one path gives, one per float argument, or its error.
type Side = Result<Vec<f64>, String>;

/// The value of a function at a point and the derivatives each path gives there.
struct Run {
    value: f64,
    sides: Vec<(&'static str, Side)>,
    rel: f64,
    abs: f64,
}

/// Runs the tracked function `f` at `args` through the four paths: `gradient` (its fast path,
/// then its general sweep), `vjp` with the cotangent 1 (the reverse program) and `jvp` along
/// each basis direction (the forward program). `wrt` are the float arguments, of `n`.
fn run<T: Float, A: Clone, F: Callable<A, Output = T> + Copy>(
    f: F,
    args: A,
    wrt: &[usize],
    n: usize,
) -> Run {
    let value = f.call_with(args.clone()).wide();
    let numeric = |g: Result<Gradient<T>, GradError>| -> Side {
        let s = g.map_err(|e| e.to_string())?.scalars();
        wrt.iter()
            .map(|&k| s[k].ok_or_else(|| format!("no gradient for argument {}", k + 1)))
            .collect()
    };
    let fast = numeric(gradient(f, args.clone()));
    let general = numeric(with_general_sweep(|| gradient(f, args.clone())));
    let reverse = vjp(f, args.clone(), T::of(1.0))
        .map_err(|e| e.to_string())
        .and_then(|r| {
            wrt.iter()
                .map(|&k| {
                    r.cotangents[k]
                        .as_ref()
                        .and_then(Value::as_f64)
                        .ok_or_else(|| format!("no cotangent for argument {}", k + 1))
                })
                .collect()
        });
    let forward = wrt
        .iter()
        .map(|&k| {
            let direction: Vec<Value> = (0..n)
                .map(|j| match (j == k, wrt.contains(&j)) {
                    (true, _) => T::of(1.0).snapshot(),
                    (false, true) => T::of(0.0).snapshot(),
                    (false, false) => ().snapshot(),
                })
                .collect();
            let j = jvp(f, args.clone(), direction).map_err(|e| e.to_string())?;
            j.tangent
                .as_f64()
                .ok_or_else(|| "the tangent is not a float".to_string())
        })
        .collect();
    Run {
        value,
        sides: vec![
            ("gradient", fast),
            ("gradient (general sweep)", general),
            ("vjp", reverse),
            ("jvp", forward),
        ],
        rel: T::REL,
        abs: T::ABS,
    }
}

/// One operation: its tracked functions, the function itself and its derivative's closed
/// form, and the points it is checked at.
struct Op {
    name: &'static str,
    /// The tracked `f64` function at a point.
    run64: fn(&[f64]) -> Run,
    /// The tracked `f32` function at a point (given in `f64`, exactly representable).
    run32: fn(&[f64]) -> Run,
    /// The function, untracked, in `f64`: for finite differences.
    f: fn(&[f64]) -> f64,
    /// The partial derivatives in the float arguments: closed forms, with irtrack's conventions
    /// where the derivative does not exist (see the module's documentation).
    truth: fn(&[f64]) -> Vec<f64>,
    /// The float arguments (`powi`'s exponent is not one).
    floats: &'static [usize],
    /// Points where a NaN derivative, or the error that a derivative is NaN, is allowed although
    /// the function is not NaN (the base ±0 of `log`, which is no base at all).
    undefined: fn(&[f64]) -> bool,
    /// An absolute tolerance of its own in `f64` (`tanh`: `1 - tanh²` is what both tables
    /// compute, exact to `f64`'s epsilon, absolutely).
    abs: f64,
    points: Vec<Vec<f64>>,
}

fn never(_: &[f64]) -> bool {
    false
}

fn close(a: f64, b: f64, rel: f64, abs: f64) -> bool {
    a == b || (a - b).abs() <= rel * a.abs().max(b.abs()) + abs
}

/// The failures of one path's run against the closed form at `p`.
fn check_run(op: &Op, ty: &str, p: &[f64], r: &Run, failures: &mut Vec<String>) {
    let at = format!("{} ({ty}) at {p:?}", op.name);
    let mut numbers = Vec::new();
    for (path, side) in &r.sides {
        match side {
            Ok(d) => numbers.push((*path, d.clone())),
            // Where the derivative is undefined, the error that says so is an answer: a NaN
            // made from numbers, or a zero at this point only meeting ∞ (`log` in its base at
            // 0: -ln a / (b ln² b) is ∓∞ as b → 0+; at (1, 1) the function is 0 / 0). Where
            // the function itself is NaN the derivative is undefined too. So is a derivative
            // program's limit zero meeting a NaN slope (`powf`'s `aᵇ ln a` at a = -1e-200,
            // b = 2, where aᵇ underflowed and ln a is NaN; since 2026-11-28).
            Err(e)
                if ((op.undefined)(p) || r.value.is_nan())
                    && (e.contains("is NaN, not a number")
                        || e.contains("holds at this point only")
                        || e.contains("a 0 that is only a limit")) => {}
            // `clamp` with `x == lo == hi`: constant along `x`, where its rule gives `x` the
            // slope 1; no derivative (the differences skip it too): refused as a point (since the fourth
            // stop of 2026-11-27), by every path.
            Err(e)
                if op.name == "clamp"
                    && p[0] == p[1]
                    && p[1] == p[2]
                    && (e.contains("found values that depend on the inputs equal")
                        || e.contains("holds at one point only")) => {}
            // `hypot` and `atan2` at (±0, ±0): along a direction `d` the norm's slope is
            // `|d|`, and atan2 jumps; no derivative, refused by every path (since the fifth
            // stop of 2026-11-27: the norm's minimum-norm subgradient 0 was taken, which with
            // `|x|`'s side gave `x.hypot(0.0) - x.abs()` the slope -1).
            Err(e)
                if matches!(op.name, "hypot" | "atan2")
                    && p[0] == 0.0
                    && p[1] == 0.0
                    && (e.contains("not differentiable at this point")
                        || e.contains("at the origin has no derivative")) => {}
            Err(e) => failures.push(format!("{at}: {path} errs: {e}")),
        }
    }
    if r.value.is_nan() || (op.undefined)(p) {
        // The function is NaN (or undefined) here: the paths agree where they give numbers.
        for (i, (pa, a)) in numbers.iter().enumerate() {
            for (pb, b) in &numbers[i + 1..] {
                for k in 0..a.len() {
                    let (x, y) = (a[k], b[k]);
                    if !(x.is_nan() || y.is_nan() || close(x, y, r.rel, r.abs)) {
                        failures.push(format!(
                            "{at} (value {}): ∂{k}: {pa} gives {x:e}, {pb} {y:e}",
                            r.value
                        ));
                    }
                }
            }
        }
        return;
    }
    let truth = (op.truth)(p);
    let abs = if ty == "f64" { op.abs } else { r.abs };
    for (path, d) in &numbers {
        for (k, (&got, &want)) in d.iter().zip(&truth).enumerate() {
            if want.is_nan() {
                failures.push(format!(
                    "{at}: the closed form of ∂{k} is NaN where the function is {}",
                    r.value
                ));
            } else if !close(got, want, r.rel, abs) {
                failures.push(format!(
                    "{at} (value {}): ∂{k}: {path} gives {got:e}, the truth is {want:e}",
                    r.value
                ));
            }
        }
    }
}

/// Checks the closed form against central differences in argument `k` at `p`, where the
/// function is smooth there: `Some(true)` when it agrees, `None` when the point is not smooth
/// (a kink, a jump, a bound of the domain within reach of the step).
fn finite_difference(op: &Op, p: &[f64], k: usize, want: f64) -> Option<bool> {
    let x = p[k];
    let h = 1e-6 * x.abs().max(1.0);
    let at = |dx: f64| {
        let mut q = p.to_vec();
        q[k] = x + dx;
        (op.f)(&q)
    };
    let (fm, f0, fp) = (at(-h), (op.f)(p), at(h));
    let (hm, hp) = (at(-h / 2.0), at(h / 2.0));
    if ![fm, f0, fp, hm, hp].iter().all(|v| v.is_finite()) {
        return None;
    }
    // What rounding the values alone puts into a quotient.
    let noise = 10.0 * f64::EPSILON * fm.abs().max(f0.abs()).max(fp.abs()) / h;
    let central = (fp - fm) / (2.0 * h);
    let half = (hp - hm) / h;
    let (forward, backward) = ((fp - f0) / h, (f0 - fm) / h);
    // `clamp` with lo = hi is constant along each axis but not along the diagonal: no
    // derivative, and its convention (x's) is no slope a difference along x shows.
    if op.name == "clamp" && p[1] == p[2] {
        return None;
    }
    // A step of 1 or more crosses the jumps of the integer parts (past 2⁵², where every float
    // is an integer, `floor` is the identity on floats and the quotient says 1).
    const STEPS: [&str; 6] = [
        "floor",
        "ceil",
        "round",
        "round_ties_even",
        "trunc",
        "fract",
    ];
    if STEPS.contains(&op.name) && h >= 0.5 {
        return None;
    }
    // The same for the saw of `a % b`, whose teeth are |b| wide.
    if op.name == "%" && h >= p[1].abs() / 2.0 {
        return None;
    }
    let smooth = (forward - backward).abs() <= 1e-2 * forward.abs().max(backward.abs()) + noise
        && (central - half).abs() <= 1e-6 * central.abs().max(half.abs()) + noise;
    if !smooth {
        return None;
    }
    Some((want - central).abs() <= 1e-5 * want.abs().max(central.abs()) + noise)
}

/// Sweeps one operation over its points, in `f64` and `f32`.
fn sweep(op: &Op) -> Vec<String> {
    let mut failures = Vec::new();
    let mut smooth = vec![0; op.floats.len()];
    for p in &op.points {
        let r = (op.run64)(p);
        check_run(op, "f64", p, &r, &mut failures);
        if !r.value.is_nan() && !(op.undefined)(p) {
            let truth = (op.truth)(p);
            for (i, &k) in op.floats.iter().enumerate() {
                match finite_difference(op, p, k, truth[i]) {
                    Some(true) => smooth[i] += 1,
                    Some(false) => failures.push(format!(
                        "{} at {p:?}: the closed form of ∂{i}, {:e}, is not the finite \
                         difference's",
                        op.name, truth[i]
                    )),
                    None => {}
                }
            }
        }
        // In `f32`: the same point rounded, unless it leaves `f32`'s range.
        let q: Vec<f64> = p.iter().map(|&x| x as f32 as f64).collect();
        if q.iter().zip(p).all(|(a, b)| a.is_finite() == b.is_finite()) {
            let r = (op.run32)(&q);
            check_run(op, "f32", &q, &r, &mut failures);
        }
    }
    for (i, n) in smooth.iter().enumerate() {
        if *n < 3 {
            failures.push(format!(
                "{}: ∂{i} checked against finite differences at {n} points only",
                op.name
            ));
        }
    }
    failures
}

fn sweep_all(ops: Vec<Op>) {
    let mut failures = Vec::new();
    for op in &ops {
        failures.extend(sweep(op));
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// The points.
// ---------------------------------------------------------------------------------------------

const NAN: f64 = f64::NAN;

/// The points of the functions of one argument: ±0, ±1, the domains' bounds and points just
/// inside and outside them, half-integers (where `round` ties), integers (where the steps
/// jump), small negatives, NaN.
fn unary_points() -> Vec<Vec<f64>> {
    [
        0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1e-3, -1e-3, 0.3, -0.7, 3.0, 0.999,
        -0.999, 1.001, -1.001, 10.0, 2.0, -3.3, NAN,
        // Where a square overflows or underflows but the slope is a number.
        1e200, -1e200, 1e-200, -1e-200, 3e-160,
    ]
    .iter()
    .map(|&x| vec![x])
    .collect()
}

/// Every pair of the levels, and `extra`.
fn pairs(extra: &[[f64; 2]]) -> Vec<Vec<f64>> {
    const LEVELS: [f64; 14] = [
        0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, 1e-3, -1.7, 1e200, -1e-200, 3e-160,
    ];
    let mut out = Vec::new();
    for a in LEVELS {
        for b in LEVELS {
            out.push(vec![a, b]);
        }
    }
    out.extend(extra.iter().map(|p| p.to_vec()));
    out
}

// ---------------------------------------------------------------------------------------------
// The operations.
// ---------------------------------------------------------------------------------------------

macro_rules! op1 {
    ($name:literal, $f64:path, $f32:path, |$x:ident| $value:expr, |$y:ident| $truth:expr) => {
        Op {
            name: $name,
            run64: |p| run($f64, (p[0],), &[0], 1),
            run32: |p| run($f32, (p[0] as f32,), &[0], 1),
            f: |p| {
                let $x = p[0];
                $value
            },
            truth: |p| {
                let $y: f64 = p[0];
                vec![$truth]
            },
            floats: &[0],
            undefined: never,
            abs: 0.0,
            points: unary_points(),
        }
    };
}

macro_rules! op2 {
    ($name:literal, $f64:path, $f32:path, |$a:ident, $b:ident| $value:expr,
     |$c:ident, $d:ident| $truth:expr, $extra:expr) => {
        Op {
            name: $name,
            run64: |p| run($f64, (p[0], p[1]), &[0, 1], 2),
            run32: |p| run($f32, (p[0] as f32, p[1] as f32), &[0, 1], 2),
            f: |p| {
                let ($a, $b) = (p[0], p[1]);
                $value
            },
            truth: |p| {
                let ($c, $d): (f64, f64) = (p[0], p[1]);
                $truth.to_vec()
            },
            floats: &[0, 1],
            undefined: never,
            abs: 0.0,
            points: pairs($extra),
        }
    };
}

macro_rules! op3 {
    ($name:literal, $f64:path, $f32:path, |$a:ident, $b:ident, $e:ident| $value:expr,
     |$x:ident, $y:ident, $z:ident| $truth:expr, $points:expr) => {
        Op {
            name: $name,
            run64: |p| run($f64, (p[0], p[1], p[2]), &[0, 1, 2], 3),
            run32: |p| run($f32, (p[0] as f32, p[1] as f32, p[2] as f32), &[0, 1, 2], 3),
            f: |p| {
                let ($a, $b, $e) = (p[0], p[1], p[2]);
                $value
            },
            truth: |p| {
                let ($x, $y, $z): (f64, f64, f64) = (p[0], p[1], p[2]);
                $truth.to_vec()
            },
            floats: &[0, 1, 2],
            undefined: never,
            abs: 0.0,
            points: $points,
        }
    };
}

/// `1 / x` where `x`'s sign does not matter at 0 (the one-sided derivative of a function
/// defined for `x >= 0`): +∞ at ±0.
fn inv_nonneg(x: f64) -> f64 {
    if x == 0.0 {
        f64::INFINITY
    } else {
        1.0 / x
    }
}

fn unary_ops() -> Vec<Op> {
    use std::f64::consts::{LN_10, LN_2, PI};
    let mut tanh = op1!("tanh", f64_ops::tanh, f32_ops::tanh, |x| x.tanh(), |x| {
        1.0 / (x.cosh() * x.cosh())
    });
    tanh.abs = 4.0 * f64::EPSILON;
    vec![
        op1!("sin", f64_ops::sin, f32_ops::sin, |x| x.sin(), |x| x.cos()),
        op1!("cos", f64_ops::cos, f32_ops::cos, |x| x.cos(), |x| -x.sin()),
        op1!("tan", f64_ops::tan, f32_ops::tan, |x| x.tan(), |x| {
            1.0 / (x.cos() * x.cos())
        }),
        op1!("asin", f64_ops::asin, f32_ops::asin, |x| x.asin(), |x| {
            1.0 / (1.0 - x * x).sqrt()
        }),
        op1!("acos", f64_ops::acos, f32_ops::acos, |x| x.acos(), |x| {
            -1.0 / (1.0 - x * x).sqrt()
        }),
        op1!("atan", f64_ops::atan, f32_ops::atan, |x| x.atan(), |x| {
            1.0 / (1.0 + x * x)
        }),
        op1!("sinh", f64_ops::sinh, f32_ops::sinh, |x| x.sinh(), |x| x
            .cosh()),
        op1!("cosh", f64_ops::cosh, f32_ops::cosh, |x| x.cosh(), |x| x
            .sinh()),
        tanh,
        op1!(
            "asinh",
            f64_ops::asinh,
            f32_ops::asinh,
            |x| x.asinh(),
            |x| { 1.0 / x.hypot(1.0) }
        ),
        op1!(
            "acosh",
            f64_ops::acosh,
            f32_ops::acosh,
            |x| x.acosh(),
            |x| { 1.0 / ((x - 1.0).sqrt() * (x + 1.0).sqrt()) }
        ),
        op1!(
            "atanh",
            f64_ops::atanh,
            f32_ops::atanh,
            |x| x.atanh(),
            |x| { 1.0 / (1.0 - x * x) }
        ),
        op1!("exp", f64_ops::exp, f32_ops::exp, |x| x.exp(), |x| x.exp()),
        op1!("exp2", f64_ops::exp2, f32_ops::exp2, |x| x.exp2(), |x| {
            x.exp2() * LN_2
        }),
        op1!(
            "exp_m1",
            f64_ops::exp_m1,
            f32_ops::exp_m1,
            |x| x.exp_m1(),
            |x| { x.exp() }
        ),
        op1!("ln", f64_ops::ln, f32_ops::ln, |x| x.ln(), |x| inv_nonneg(
            x
        )),
        op1!(
            "ln_1p",
            f64_ops::ln_1p,
            f32_ops::ln_1p,
            |x| x.ln_1p(),
            |x| { 1.0 / (1.0 + x) }
        ),
        op1!(
            "log10",
            f64_ops::log10,
            f32_ops::log10,
            |x| x.log10(),
            |x| { inv_nonneg(x) / LN_10 }
        ),
        op1!("log2", f64_ops::log2, f32_ops::log2, |x| x.log2(), |x| {
            inv_nonneg(x) / LN_2
        }),
        op1!("sqrt", f64_ops::sqrt, f32_ops::sqrt, |x| x.sqrt(), |x| {
            0.5 * inv_nonneg(x.sqrt())
        }),
        op1!("cbrt", f64_ops::cbrt, f32_ops::cbrt, |x| x.cbrt(), |x| {
            let c = x.cbrt();
            1.0 / (3.0 * c * c)
        }),
        op1!("abs", f64_ops::abs, f32_ops::abs, |x| x.abs(), |x| {
            if x < 0.0 {
                -1.0
            } else {
                1.0
            }
        }),
        op1!(
            "recip",
            f64_ops::recip,
            f32_ops::recip,
            |x| x.recip(),
            |x| { -(1.0 / x) * (1.0 / x) }
        ),
        op1!(
            "to_degrees",
            f64_ops::to_degrees,
            f32_ops::to_degrees,
            |x| x.to_degrees(),
            |_x| { 180.0 / PI }
        ),
        op1!(
            "to_radians",
            f64_ops::to_radians,
            f32_ops::to_radians,
            |x| x.to_radians(),
            |_x| { PI / 180.0 }
        ),
        op1!(
            "signum",
            f64_ops::signum,
            f32_ops::signum,
            |x| x.signum(),
            |_x| 0.0
        ),
        op1!(
            "floor",
            f64_ops::floor,
            f32_ops::floor,
            |x| x.floor(),
            |_x| 0.0
        ),
        op1!("ceil", f64_ops::ceil, f32_ops::ceil, |x| x.ceil(), |_x| 0.0),
        op1!(
            "round",
            f64_ops::round,
            f32_ops::round,
            |x| x.round(),
            |_x| 0.0
        ),
        op1!(
            "round_ties_even",
            f64_ops::round_ties_even,
            f32_ops::round_ties_even,
            |x| x.round_ties_even(),
            |_x| 0.0
        ),
        op1!(
            "trunc",
            f64_ops::trunc,
            f32_ops::trunc,
            |x| x.trunc(),
            |_x| 0.0
        ),
        op1!(
            "fract",
            f64_ops::fract,
            f32_ops::fract,
            |x| x.fract(),
            |_x| 1.0
        ),
        op1!("neg", f64_ops::neg, f32_ops::neg, |x| -x, |_x| -1.0),
    ]
}

/// The quotient `a % b` was computed with: the integer `q` with `a - q b` exactly the
/// remainder (found by `mul_add`, which rounds once: for the right `q` the exact `a - q b` is
/// the remainder, a float; for a neighbour it is off by `b`). `a / b` rounds to an integer
/// when the quotient is just below one (`1.0 % 0.1` is `1 - 9 · 0.1`, but `1.0 / 0.1` is
/// `10.0`).
fn rem_quotient(a: f64, b: f64) -> f64 {
    let r = a % b;
    let t = (a / b).trunc();
    [t, t - 1.0, t + 1.0]
        .into_iter()
        .find(|q| (-q).mul_add(b, a) == r)
        .unwrap_or(t)
}

fn powf_truth(a: f64, b: f64) -> [f64; 2] {
    // a⁰ = 1 for every a; otherwise b a^(b-1) (+∞ at a = ±0 for 0 < b < 1, the one-sided
    // derivative).
    let da = if b == 0.0 { 0.0 } else { b * a.powf(b - 1.0) };
    // aᵇ ln a for a > 0; 0ᵇ = 0 for b > 0 and ∞ for b < 0; none for a < 0 (a number at
    // integer b only), nor at b = 0 where a is 0 or NaN (aᵇ is 1 there only).
    let db = if a > 0.0 {
        a.powf(b) * a.ln()
    } else if a < 0.0 || b == 0.0 {
        f64::NAN
    } else {
        0.0
    };
    [da, db]
}

/// `atan2`'s partials, without overflow or underflow in `a² + b²` (hypot² is that, scaled).
fn atan2_truth(a: f64, b: f64) -> [f64; 2] {
    let h = a.hypot(b);
    if h == 0.0 {
        return [0.0, 0.0];
    }
    [b / h / h, -a / h / h]
}

fn binary_ops() -> Vec<Op> {
    let inf = f64::INFINITY;
    vec![
        op2!(
            "+",
            f64_ops::add,
            f32_ops::add,
            |a, b| a + b,
            |_a, _b| [1.0, 1.0],
            &[]
        ),
        op2!(
            "-",
            f64_ops::sub,
            f32_ops::sub,
            |a, b| a - b,
            |_a, _b| [1.0, -1.0],
            &[]
        ),
        op2!(
            "*",
            f64_ops::mul,
            f32_ops::mul,
            |a, b| a * b,
            |a, b| [b, a],
            &[]
        ),
        op2!(
            "/",
            f64_ops::div,
            f32_ops::div,
            |a, b| a / b,
            |a, b| [1.0 / b, -(a / b) / b],
            // Where b² overflows or underflows but the slope is a number.
            &[
                [1e200, 1e200],
                [1e-200, 1e-200],
                [-3e150, 2e160],
                [5e-170, -1e-160]
            ]
        ),
        op2!(
            "%",
            f64_ops::rem,
            f32_ops::rem,
            |a, b| a % b,
            |a, b| [1.0, -rem_quotient(a, b)],
            &[
                [1.0, 0.1],
                [0.3, 0.1],
                [5.5, 2.0],
                [-5.5, 2.0],
                [5.5, -2.0],
                [-5.5, -2.0],
                [6.0, 3.0],
                [7.0, 0.7],
                [100.0, 0.3],
                [2.0, inf],
                [-2.0, inf],
            ]
        ),
        Op {
            // ∂/∂b has no value below 0, nor at b = 0 where a is 0 or NaN: the error that
            // says so is the answer there.
            undefined: |p| p[0] < 0.0 || (p[1] == 0.0 && (p[0] == 0.0 || p[0].is_nan())),
            ..op2!(
                "powf",
                f64_ops::powf,
                f32_ops::powf,
                |a, b| a.powf(b),
                |a, b| powf_truth(a, b),
                &[
                    [0.0, 0.5],
                    [-0.0, 0.5],
                    [0.0, 1.5],
                    [0.0, -0.5],
                    [-2.0, 0.5],
                    [2.0, 0.3],
                    [0.3, 2.5],
                    [1.0, 0.0],
                    [4.0, -1.5],
                    [NAN, 0.0],
                    [NAN, -0.0]
                ]
            )
        },
        op2!(
            "max",
            f64_ops::max,
            f32_ops::max,
            |a, b| a.max(b),
            |a, b| if a >= b || b.is_nan() {
                [1.0, 0.0]
            } else {
                [0.0, 1.0]
            },
            &[[NAN, 1.0], [1.0, NAN], [NAN, NAN], [0.0, -0.0], [-0.0, 0.0]]
        ),
        op2!(
            "min",
            f64_ops::min,
            f32_ops::min,
            |a, b| a.min(b),
            |a, b| if a <= b || b.is_nan() {
                [1.0, 0.0]
            } else {
                [0.0, 1.0]
            },
            &[[NAN, 1.0], [1.0, NAN], [NAN, NAN], [0.0, -0.0], [-0.0, 0.0]]
        ),
        op2!(
            "atan2",
            f64_ops::atan2,
            f32_ops::atan2,
            |a, b| a.atan2(b),
            |a, b| atan2_truth(a, b),
            &[
                [1e-200, 1e-200],
                [-3e-170, 1e-170],
                [1e200, 1e200],
                [1e300, -2e300]
            ]
        ),
        op2!(
            "hypot",
            f64_ops::hypot,
            f32_ops::hypot,
            |a, b| a.hypot(b),
            |a, b| {
                let h = a.hypot(b);
                if h == 0.0 {
                    [0.0, 0.0]
                } else {
                    [a / h, b / h]
                }
            },
            &[[1e-200, 1e-200], [1e200, 1e200], [5e-324, 0.0]]
        ),
        {
            let mut op = op2!(
                "log",
                f64_ops::log,
                f32_ops::log,
                |a, b| a.log(b),
                |a, b| {
                    let lb = b.ln();
                    let a0 = a + 0.0;
                    [1.0 / (a0 * lb), -a0.ln() / (b * lb * lb)]
                },
                &[
                    [8.0, 2.0],
                    [0.5, 10.0],
                    [3.0, 0.5],
                    [0.0, 10.0],
                    [-0.0, 10.0]
                ]
            );
            // Base ±0 is no base: `ln a / ln 0` is ∓0, and its slope in the base is 0 · ∞.
            op.undefined = |p| p[1] == 0.0;
            op
        },
        op2!(
            "copysign",
            f64_ops::copysign,
            f32_ops::copysign,
            |a, b| a.copysign(b),
            |a, b| [
                if a.is_sign_negative() == b.is_sign_negative() {
                    1.0
                } else {
                    -1.0
                },
                0.0
            ],
            &[
                [2.0, NAN],
                [2.0, -NAN],
                [-2.0, NAN],
                [-2.0, -NAN],
                [0.0, NAN]
            ]
        ),
    ]
}

fn ternary_ops() -> Vec<Op> {
    const LEVELS: [f64; 6] = [0.0, -0.0, 1.0, -1.0, 2.5, -0.5];
    let mut cube = Vec::new();
    for a in LEVELS {
        for b in LEVELS {
            for c in LEVELS {
                cube.push(vec![a, b, c]);
            }
        }
    }
    let mut clamped = Vec::new();
    for x in [-2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 0.25, NAN] {
        for (lo, hi) in [
            (-1.0, 1.0),
            (0.0, 0.0),
            (-0.0, 0.0),
            (0.0, -0.0),
            (1.0, 1.0),
            (-1.0, 0.5),
            (0.5, 2.0),
            (-3.0, 3.0),
        ] {
            clamped.push(vec![x, lo, hi]);
        }
    }
    vec![
        op3!(
            "mul_add",
            f64_ops::mul_add,
            f32_ops::mul_add,
            |a, b, c| a.mul_add(b, c),
            |a, b, _c| [b, a, 1.0],
            cube
        ),
        op3!(
            "clamp",
            f64_ops::clamp,
            f32_ops::clamp,
            // `clamp` panics unless lo <= hi (a finite difference moving a bound past the other).
            |x, lo, hi| if lo <= hi { x.clamp(lo, hi) } else { NAN },
            |x, lo, hi| if x < lo {
                [0.0, 1.0, 0.0]
            } else if x > hi {
                [0.0, 0.0, 1.0]
            } else {
                [1.0, 0.0, 0.0]
            },
            clamped
        ),
    ]
}

fn powi_op() -> Op {
    let mut points = Vec::new();
    for x in unary_points() {
        for n in [-3, -2, -1, 0, 1, 2, 3, 5] {
            points.push(vec![x[0], n as f64]);
        }
    }
    Op {
        name: "powi",
        run64: |p| run(f64_ops::powi, (p[0], p[1] as i32), &[0], 2),
        run32: |p| run(f32_ops::powi, (p[0] as f32, p[1] as i32), &[0], 2),
        f: |p| p[0].powi(p[1] as i32),
        truth: |p| {
            let (x, n) = (p[0], p[1] as i32);
            vec![if n == 0 {
                0.0
            } else {
                n as f64 * x.powi(n - 1)
            }]
        },
        floats: &[0],
        undefined: never,
        abs: 0.0,
        points,
    }
}

#[test]
fn unary_operations_agree_with_the_truth() {
    sweep_all(unary_ops());
}

#[test]
fn binary_operations_agree_with_the_truth() {
    sweep_all(binary_ops());
}

#[test]
fn ternary_operations_and_powi_agree_with_the_truth() {
    let mut ops = ternary_ops();
    ops.push(powi_op());
    sweep_all(ops);
}

// ---------------------------------------------------------------------------------------------
// The divergences found, one repro each: every path must give the closed form's numbers.
// ---------------------------------------------------------------------------------------------

/// Every path of `r` refuses.
fn refused_by_every_path(r: Run) {
    for (path, side) in &r.sides {
        assert!(side.is_err(), "{path}: {side:?}");
    }
}

/// Every path of `r` gives `want` (within 1e-12 relative).
fn assert_paths(r: Run, want: &[f64]) {
    for (path, side) in &r.sides {
        let got = side.as_ref().unwrap_or_else(|e| panic!("{path}: {e}"));
        for (k, (&g, &w)) in got.iter().zip(want).enumerate() {
            assert!(
                close(g, w, 1e-12, 0.0),
                "{path}: ∂{k} is {g:e}, the truth {w:e}"
            );
        }
    }
}

#[tracked]
fn powf_zero(x: f64) -> f64 {
    x.powf(0.0)
}

/// `x.powf(0.0)` at x = ±0 was `0 · 0^-1 = NaN` in reverse and forward mode (the numeric rule
/// and the truth: 0, as `x⁰ = 1` for every x); at a NaN base (`NaN.powf(0.0)` is 1) too. In
/// the exponent there is none (`0⁰ = 1`, `0ʰ = 0`): with both operands differentiated, every
/// path refuses.
#[test]
fn powf_with_exponent_zero_at_base_zero() {
    for a in [0.0, -0.0, NAN] {
        assert_paths(run(powf_zero, (a,), &[0], 1), &[0.0]);
        // (At a NaN base a NaN derivative is the input's own, as everywhere.)
        for (path, side) in run(f64_ops::powf, (a, 0.0), &[0, 1], 2).sides {
            let nan = side.as_ref().is_ok_and(|d| d[1].is_nan());
            assert!(side.is_err() || (a.is_nan() && nan), "{path}: {side:?}");
        }
    }
}

#[tracked]
fn acos_of_powf_zero(x: f64) -> f64 {
    x.powf(0.0).acos()
}

/// `x.powf(0.0)` is the constant 1; `acos` has the slope -∞ there. The derivative programs
/// gave NaN (`-∞ · 0`: the tangent of `x⁰` was a zero, not none) where the gradient and the
/// truth give 0: a literal exponent 0 now has no tangent at all, as `powi(0)` has.
#[test]
fn powf_with_a_literal_exponent_zero_is_constant() {
    for x in [0.5, 0.0, 2.0] {
        assert_paths(run(acos_of_powf_zero, (x,), &[0], 1), &[0.0]);
    }
}

/// ∂/∂b of `a.powf(b)` at a <= 0 was `y · ln a`: NaN at (0, 2) (`0 · -∞`) and at (-2, 3)
/// (`ln -2`), in reverse mode, and its NaN made the forward tangent in a NaN too (`NaN · 0`):
/// `jvp` along (1, 0) at (-2, 3) gave NaN for 12. The numeric rule: 0 at a = 0 (0ᵇ = 0 for
/// b > 0); below 0 there is none (the fifth adversarial round: it was 0), and only the slope
/// in a is a number.
#[test]
fn powf_exponent_slope_at_base_not_positive() {
    assert_paths(run(f64_ops::powf, (0.0, 2.0), &[0, 1], 2), &[0.0, 0.0]);
    for r in [
        run(f64_ops::powf, (-2.0, 3.0), &[0, 1], 2),
        run(f32_ops::powf, (-2.0, 3.0), &[0, 1], 2),
    ] {
        for (path, side) in &r.sides {
            assert!(side.is_err(), "{path}: {side:?}");
        }
    }
    let j = irtrack::diff::jvp(f64_ops::powf, (-2.0, 3.0), (1.0, 0.0)).unwrap();
    assert_eq!(j.tangent.as_f64(), Some(12.0));
}

/// `(-0.0).abs()` had the slope `signum(-0) = -1` in the derivative programs; the numeric
/// rule gives 1, as at +0 (-0 is 0).
#[test]
fn abs_at_negative_zero() {
    assert_paths(run(f64_ops::abs, (-0.0,), &[0], 1), &[1.0]);
    assert_paths(run(f32_ops::abs, (-0.0f32,), &[0], 1), &[1.0]);
}

/// At x = -0 both tables gave -∞ for `sqrt` (`0.5 / sqrt(-0) = 0.5 / -0`) and the logarithms
/// (`1 / -0`): -0 is 0, and the slope there is the one-sided +∞.
#[test]
fn sqrt_and_logarithms_at_negative_zero() {
    let inf = f64::INFINITY;
    assert_paths(run(f64_ops::sqrt, (-0.0,), &[0], 1), &[inf]);
    assert_paths(run(f64_ops::ln, (-0.0,), &[0], 1), &[inf]);
    assert_paths(run(f64_ops::log2, (-0.0,), &[0], 1), &[inf]);
    assert_paths(run(f64_ops::log10, (-0.0,), &[0], 1), &[inf]);
    assert_paths(run(f32_ops::sqrt, (-0.0f32,), &[0], 1), &[inf]);
    assert_paths(run(f32_ops::ln, (-0.0f32,), &[0], 1), &[inf]);
    // ∂/∂a of log_10(a) at a = -0: +∞; ∂/∂b: -ln(0) / (10 ln²10) = +∞ as well (`jvp` along
    // either axis multiplies the other, infinite partial by 0, which `times` makes 0).
    let r = run(f64_ops::log, (-0.0, 10.0), &[0, 1], 2);
    for (path, side) in &r.sides {
        assert_eq!(side.as_ref().unwrap(), &[inf, inf], "{path}");
    }
}

/// `hypot` at (±0, ±0) was `0 / 0 = NaN` in both tables (the function is 0 there; its
/// minimum-norm subgradient is 0); at (5e-324, 0) reverse mode gave NaN for ∂/∂b (`0 · 1/y`
/// with `1/y = ∞`), the truth 0.
#[test]
fn hypot_at_the_origin() {
    // No derivative: the slope along `d` is `|d|` (refused since 2026-11-27; it was 0).
    for (a, b) in [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0)] {
        refused_by_every_path(run(f64_ops::hypot, (a, b), &[0, 1], 2));
        refused_by_every_path(run(f32_ops::hypot, (a as f32, b as f32), &[0, 1], 2));
    }
    assert_paths(run(f64_ops::hypot, (5e-324, 0.0), &[0, 1], 2), &[1.0, 0.0]);
}

/// `atan2` at (±0, ±0) was `0 / 0 = NaN` in both tables (then 0, now refused); at
/// (1e-200, 1e-200) `a² + b²` underflowed to 0 and both tables gave (+∞, -∞) for
/// (5e199, -5e199); at (1e200, 1e200) it overflowed and they gave 0 for ±5e-201.
#[test]
fn atan2_at_the_origin_and_far_from_it() {
    // Every angle is a limit at the origin: refused (since 2026-11-27; it was 0).
    for (a, b) in [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0)] {
        refused_by_every_path(run(f64_ops::atan2, (a, b), &[0, 1], 2));
    }
    assert_paths(
        run(f64_ops::atan2, (1e-200, 1e-200), &[0, 1], 2),
        &[5e199, -5e199],
    );
    assert_paths(
        run(f64_ops::atan2, (1e200, 1e200), &[0, 1], 2),
        &[5e-201, -5e-201],
    );
}

/// `copysign`'s slope in its first operand was `signum(a) · signum(b)`: NaN for a NaN `b`,
/// whose sign bit `copysign` reads (`2.0.copysign(-NaN)` is -2: slope -1, as the numeric rule
/// has it).
#[test]
fn copysign_reads_the_sign_bit_of_nan() {
    assert_paths(
        run(f64_ops::copysign, (2.0, -f64::NAN), &[0, 1], 2),
        &[-1.0, 0.0],
    );
    assert_paths(
        run(f64_ops::copysign, (2.0, f64::NAN), &[0, 1], 2),
        &[1.0, 0.0],
    );
    assert_paths(
        run(f32_ops::copysign, (-2.0, f32::NAN), &[0, 1], 2),
        &[-1.0, 0.0],
    );
}

/// ∂/∂b of `a % b` was `-trunc(a / b)` in both tables: -10 at (1.0, 0.1), but `1.0 % 0.1` is
/// `1 - 9 · 0.1` (0.1 is a little more than a tenth; `1.0 / 0.1` rounds up to 10): the slope
/// is -9. Likewise -1000 for -999 at (1.0, 0.001).
#[test]
fn rem_slope_uses_the_quotient_of_the_remainder() {
    assert_paths(run(f64_ops::rem, (1.0, 0.1), &[0, 1], 2), &[1.0, -9.0]);
    assert_paths(run(f64_ops::rem, (1.0, 0.001), &[0, 1], 2), &[1.0, -999.0]);
    assert_paths(run(f64_ops::rem, (-1.0, 0.001), &[0, 1], 2), &[1.0, 999.0]);
    assert_paths(run(f64_ops::rem, (5.5, 2.0), &[0, 1], 2), &[1.0, -2.0]);
    assert_paths(
        run(f32_ops::rem, (1.0f32, 0.1f32), &[0, 1], 2),
        &[1.0, -9.0],
    );
}

/// `x.powi(n)` with `n` an input of the program (not a constant): `n x^(n-1)` was
/// `0 · 0^-1 = NaN` at n = 0, x = 0; the truth is 0.
#[test]
fn powi_with_a_dynamic_exponent_zero_at_zero() {
    let p = Program::from_trace(
        &track(f64_ops::powi, (0.0, 0)),
        &[Input::Dynamic, Input::Dynamic],
    )
    .unwrap();
    let d = differentiate(&p, &[0]).unwrap();
    for (x, n, want) in [
        (0.0, 0, 0.0),
        (0.0, 1, 1.0),
        (0.0, 2, 0.0),
        (2.0, 3, 12.0),
        (2.0, 0, 0.0),
        (0.0, -1, f64::NEG_INFINITY),
    ] {
        let got = d
            .call(vec![x.snapshot(), n.snapshot(), 1.0f64.snapshot()])
            .unwrap()
            .as_f64()
            .unwrap();
        assert!(
            close(got, want, 1e-12, 0.0),
            "x = {x}, n = {n}: {got} vs {want}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Second derivatives at the edge points, against closed forms.
// ---------------------------------------------------------------------------------------------

#[tracked]
fn powf_of_vector(x: Vec<f64>) -> f64 {
    x[0].powf(x[1])
}

/// The Hessian of `a^b`: `[[b(b-1)a^(b-2), a^(b-1)(1 + b ln a)], [·, aᵇ ln²a]]` for a > 0,
/// and at a = 0 the limits from a > 0 (b > 1) or an error, or the slopes of the conventions
/// (b = 0: a⁰ is constant in a).
#[test]
fn powf_hessian_at_edge_points() {
    let ln2 = 2f64.ln();
    type Case = ((f64, f64), [[f64; 2]; 2]);
    let cases: [Case; 5] = [
        // At b = 0 the mixed derivative is 1/a: the guard of ∂/∂a at b = 0 is only at a = 0.
        ((2.0, 0.0), [[0.0, 0.5], [0.5, ln2 * ln2]]),
        ((0.5, 0.0), [[0.0, 2.0], [2.0, ln2 * ln2]]),
        (
            (2.0, 3.0),
            [
                [12.0, 4.0 * (1.0 + 3.0 * ln2)],
                [4.0 * (1.0 + 3.0 * ln2), 8.0 * ln2 * ln2],
            ],
        ),
        ((0.0, 2.0), [[2.0, 0.0], [0.0, 0.0]]),
        ((0.0, 3.0), [[0.0, 0.0], [0.0, 0.0]]),
    ];
    for ((a, b), want) in cases {
        // At a = 0 the slope in b is 0 on the line a = 0 only (`0ᵇ = 0`), picked by `a == 0`:
        // its derivative in a is refused there (the limit, 0 for b > 1, is -∞ for b < 1:
        // `trust_numeric.rs`); given, it is the limit.
        let h = match hessian(powf_of_vector, (vec![a, b],)) {
            Ok(h) => h,
            Err(e) if a == 0.0 => {
                assert!(e.to_string().contains("times"), "{e}");
                continue;
            }
            Err(e) => panic!("({a}, {b}): {e}"),
        };
        for i in 0..2 {
            for j in 0..2 {
                assert!(
                    close(h[(i, j)], want[i][j], 1e-12, 1e-300),
                    "({a}, {b}): H[{i}][{j}] = {}, the truth {}",
                    h[(i, j)],
                    want[i][j]
                );
            }
        }
    }
    // At a < 0 the function has no slope in b: no Hessian (it had one, with ∂/∂b taken as 0).
    assert!(hessian(powf_of_vector, (vec![-2.0, 2.0],)).is_err());
}

/// `d^k f(x)` along the direction 1: the program of `f` differentiated `k` times.
fn derivative(p: &Program, k: usize, x: f64, statics: &[Value]) -> f64 {
    let mut d = p.clone();
    for _ in 0..k {
        d = differentiate(&d, &[0]).unwrap();
    }
    let mut args = vec![x.snapshot()];
    args.extend(statics.iter().cloned());
    args.extend((0..k).map(|_| 1.0f64.snapshot()));
    d.call(args).unwrap().as_f64().unwrap()
}

/// `x^b` twice in x, `b` fixed: `b(b-1)x^(b-2)`, 0 at b ∈ {0, 1} for every x (also 0, where
/// the formula is `0 · ∞`), and the one-sided limit at x = 0 otherwise.
#[test]
fn powf_second_derivative_in_the_base() {
    let p = Program::from_trace(
        &track(f64_ops::powf, (1.0, 2.0)),
        &[Input::Dynamic, Input::Static],
    )
    .unwrap();
    let inf = f64::INFINITY;
    for (x, b, want) in [
        (0.0, 0.0, 0.0),
        (-0.0, 0.0, 0.0),
        (0.0, 1.0, 0.0),
        (0.0, 2.0, 2.0),
        (0.0, 3.0, 0.0),
        (0.0, 0.5, -inf),
        (3.0, 0.0, 0.0),
        (3.0, 2.5, 2.5 * 1.5 * 3f64.powf(0.5)),
    ] {
        let p = Program::from_trace(
            &track(f64_ops::powf, (x, b)),
            &[Input::Dynamic, Input::Static],
        )
        .unwrap();
        let got = derivative(&p, 2, x, &[b.snapshot()]);
        assert!(
            close(got, want, 1e-12, 0.0),
            "x = {x}, b = {b}: {got} vs {want}"
        );
    }
    let _ = p;
}

#[tracked]
fn sqrt_of_vector(x: Vec<f64>) -> f64 {
    x[0].sqrt()
}

#[tracked]
fn abs_of_vector(x: Vec<f64>) -> f64 {
    x[0].abs()
}

/// `sqrt''(x) = -1 / (4 x^1.5)`: -1/32 at 4, and at ±0 the one-sided -∞; `abs''` is 0
/// everywhere it has one, and 0 by the convention at ±0 (the slope ±1 is constant).
#[test]
fn sqrt_and_abs_second_derivatives_at_edge_points() {
    let inf = f64::INFINITY;
    for (x, want) in [(4.0, -1.0 / 32.0), (0.25, -2.0), (0.0, -inf), (-0.0, -inf)] {
        let p = Program::from_trace(&track(f64_ops::sqrt, (x,)), &[Input::Dynamic]).unwrap();
        let got = derivative(&p, 2, x, &[]);
        assert!(
            close(got, want, 1e-12, 0.0),
            "sqrt'' at {x}: {got} vs {want}"
        );
        let h = hessian(sqrt_of_vector, (vec![x],)).unwrap();
        assert!(
            close(h[(0, 0)], want, 1e-12, 0.0),
            "sqrt Hessian at {x}: {}",
            h[(0, 0)]
        );
    }
    for x in [0.0, -0.0, -2.0, 3.0] {
        let p = Program::from_trace(&track(f64_ops::abs, (x,)), &[Input::Dynamic]).unwrap();
        assert_eq!(
            derivative(&p, 1, x, &[]),
            if x < 0.0 { -1.0 } else { 1.0 },
            "abs' at {x}"
        );
        assert_eq!(derivative(&p, 2, x, &[]), 0.0, "abs'' at {x}");
        assert_eq!(
            hessian(abs_of_vector, (vec![x],)).unwrap()[(0, 0)],
            0.0,
            "at {x}"
        );
    }
}

#[tracked]
fn abs_of_array(x: ndarray::Array1<f64>) -> f64 {
    x.mapv(f64::abs).sum()
}

#[tracked]
fn sqrt_of_array(x: ndarray::Array1<f64>) -> f64 {
    x.mapv(f64::sqrt).sum()
}

#[tracked]
fn ln_of_array(x: ndarray::Array1<f64>) -> f64 {
    x.mapv(f64::ln).sum()
}

/// The gradient and the reverse program of `f` at the array `x`.
fn array_paths<F: Callable<(ndarray::Array1<f64>,), Output = f64> + Copy>(
    f: F,
    x: ndarray::Array1<f64>,
) -> [Vec<f64>; 2] {
    let g = gradient(f, (x.clone(),)).unwrap();
    let numeric = g.wrt[0]
        .as_ref()
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .copied()
        .collect();
    let r = vjp(f, (x,), 1.0).unwrap();
    let ct = r.cotangents[0].as_ref().unwrap();
    let reverse = ct.downcast_ref::<ndarray::Array1<f64>>().unwrap().to_vec();
    [numeric, reverse]
}

/// The same slopes at -0 elementwise on arrays (`mapv`), where the rules are the float
/// methods' (the sign fix is `x + 0`, elementwise too): the gradient and the reverse program.
#[test]
fn array_elements_at_negative_zero() {
    use ndarray::array;
    let inf = f64::INFINITY;
    let cases = [
        (
            array_paths(abs_of_array, array![-0.0, 2.0, -3.0]),
            vec![1.0, 1.0, -1.0],
        ),
        (
            array_paths(sqrt_of_array, array![-0.0, 4.0]),
            vec![inf, 0.25],
        ),
        (array_paths(ln_of_array, array![-0.0, 2.0]), vec![inf, 0.5]),
    ];
    for ([numeric, reverse], want) in cases {
        assert_eq!(numeric, want, "gradient");
        assert_eq!(reverse, want, "vjp");
    }
}

#[tracked]
fn edges_mixed(x: f64, y: f64) -> f64 {
    x.powf(y) + x.hypot(y) + x.atan2(y) + x.copysign(y) + x.abs().sqrt() + (x % y) + y.ln()
}

/// The rules' new operations (selects on comparisons, `hypot` in `atan2`'s slope, `x + 0`,
/// `copysign(1, a)`, `round` in `%`'s) differentiate again and emit as Rust, to order 2, and
/// the second-order program agrees with the Hessian at a point where everything is smooth.
#[test]
fn edge_rules_differentiate_again_and_emit() {
    let p = Program::from_trace(
        &track(edges_mixed, (1.3, 0.7)),
        &[Input::Dynamic, Input::Dynamic],
    )
    .unwrap();
    let d1 = differentiate(&p, &[0, 1]).unwrap();
    let d2 = differentiate(&d1, &[0, 1]).unwrap();
    for (program, name) in [(&d1, "d1"), (&d2, "d2")] {
        let src = irtrack::diff::emit_rust(program, name).unwrap();
        assert!(src.contains(&format!("pub fn {name}(")), "{src}");
    }
    // f''(x)[e_i, e_j] from the program differentiated twice, against finite differences of
    // the gradient.
    let (x, y) = (1.3, 0.7);
    let grad = |x: f64, y: f64| gradient(edges_mixed, (x, y)).unwrap().scalars();
    for i in 0..2 {
        for j in 0..2 {
            let e = |k: usize| if k == i { 1.0 } else { 0.0 };
            let f = |k: usize| if k == j { 1.0 } else { 0.0 };
            let args: Vec<Value> = [x, y, e(0), e(1), f(0), f(1)]
                .iter()
                .map(|v| v.snapshot())
                .collect();
            let got = d2.call(args).unwrap().as_f64().unwrap();
            let h = 1e-6;
            let (xp, yp) = (x + h * f(0), y + h * f(1));
            let (xm, ym) = (x - h * f(0), y - h * f(1));
            let want = (grad(xp, yp)[i].unwrap() - grad(xm, ym)[i].unwrap()) / (2.0 * h);
            assert!(
                (got - want).abs() <= 1e-6 * want.abs().max(1.0),
                "H[{i}][{j}] = {got}, the difference quotient {want}"
            );
        }
    }
}

#[tracked]
fn sqrt_plus(x: f64, y: f64) -> f64 {
    x.sqrt() + y
}

#[tracked]
fn acos_of_scaled(x: f64, k: f64) -> f64 {
    (x * k + 1.0).acos()
}

/// A zero tangent beside an infinite slope: forward mode multiplied `∞ · 0` (IEEE NaN) where
/// the direction does not move the argument whose slope is infinite. `sqrt(x) + y` at x = 0
/// along y gave NaN, the truth 1; the Jacobian's column along y likewise.
#[test]
fn a_zero_tangent_absorbs_an_infinite_slope_in_forward_mode() {
    let j = jvp(sqrt_plus, (0.0, 2.0), (0.0, 1.0)).unwrap();
    assert_eq!(j.tangent.as_f64(), Some(1.0));
    let j = jvp(sqrt_plus, (0.0, 2.0), (1.0, 0.0)).unwrap();
    assert_eq!(j.tangent.as_f64(), Some(f64::INFINITY));
    // Its Hessian: ∂²/∂x² = −x^(−3/2)/4 = −∞ at 0, and the rest 0, not NaN.
    let h = hessian(sqrt_plus_vec, (vec![0.0, 2.0],)).unwrap();
    assert_eq!(h.row(1), vec![0.0, 0.0]);
    assert_eq!(h[(0, 1)], 0.0);
    assert_eq!(h[(0, 0)], f64::NEG_INFINITY);
}

#[tracked]
fn sqrt_plus_vec(v: Vec<f64>) -> f64 {
    v[0].sqrt() + v[1]
}

/// A zero slope under an infinite cotangent: `acos(x k + 1)` at (0.5, 0) does not depend on
/// `x` along the line k = 0 (∂/∂x = k = 0), but the cotangent reaching `x k` is acos'(1) = −∞,
/// and reverse mode gave `−∞ · 0` = NaN; the gradient's sweep and the truth give 0.
#[test]
fn a_zero_slope_absorbs_an_infinite_cotangent_in_reverse_mode() {
    let g = gradient(acos_of_scaled, (0.5, 0.0)).unwrap().scalars();
    let r = vjp(acos_of_scaled, (0.5, 0.0), 1.0).unwrap();
    let c: Vec<f64> = r
        .cotangents
        .iter()
        .map(|c| c.as_ref().unwrap().as_f64().unwrap())
        .collect();
    assert_eq!(g[0], Some(0.0));
    assert_eq!(c[0], 0.0);
    assert_eq!(Some(c[1]), g[1]);
    assert_eq!(c[1], f64::NEG_INFINITY);
}

#[tracked]
fn sqrt_each(x: ndarray::Array1<f64>) -> ndarray::Array1<f64> {
    x.mapv(f64::sqrt)
}

/// Elementwise, the same: the column of the Jacobian of `sqrt` along e₁ at x = (0, 4) is
/// (0, 1/4), where the element at 0 multiplied its infinite slope by the direction's 0.
#[test]
fn a_zero_direction_element_absorbs_an_infinite_slope() {
    let j = irtrack::diff::jacobian(sqrt_each, (ndarray::array![0.0, 4.0],)).unwrap();
    assert_eq!(j.column(0), &[f64::INFINITY, 0.0]);
    assert_eq!(j.column(1), &[0.0, 0.25]);
}
