//! Numerical code from a published crate, tracked as written: statrs 0.18's `digamma`,
//! `ln_gamma` (Lanczos, with its table of coefficients) and the lower regularised incomplete
//! gamma function (`gamma_lr`, a series and a continued fraction), plus bit-level float code
//! in the style of libm. Each function exists twice (tracked and plain, through `both!`); the
//! plain copy is the truth for values, central differences for slopes.
//!
//! These are what a user of a numerics crate records: NaN tests before the arithmetic, `const`
//! tables read by index, loops that stop on a tolerance, `to_bits`. Before 2026-11-27 every
//! gradient through `GAMMA_DK[0]` was refused (the table's element had no recorded operand),
//! and no program of `digamma` could be built (`is_nan` could not be run again).

#![allow(clippy::excessive_precision)]

use irtrack::diff::{vjp, DiffError};
use irtrack::program::{Input, Program, ReplayError};
use irtrack::{gradient, track, track_output, tracked, Callable, GradError};

/// `name::tracked` under `#[tracked]`, `name::plain` as written; inside the body the function's
/// own name is the copy it is in (statrs's `digamma` recurses).
macro_rules! both {
    ($(fn $name:ident ($($a:ident: $t:ty),*) -> $r:ty $body:block)*) => {$(
        #[allow(clippy::all, dead_code, unused_imports)]
        mod $name {
            pub mod t {
                #[allow(unused_imports)]
                use super::super::*;
                #[tracked]
                pub fn $name($($a: $t),*) -> $r $body
            }
            pub mod p {
                #[allow(unused_imports)]
                use super::super::*;
                pub fn $name($($a: $t),*) -> $r $body
            }
            pub use p::$name as plain;
            pub use t::$name as tracked;
        }
    )*};
}

const GAMMA_R: f64 = 10.900511;
const LN_2_SQRT_E_OVER_PI: f64 = 0.6207822376352452223455184457816472122518527279025978;
const LN_PI: f64 = 1.1447298858494001741434273513530587116472948129153;
const GAMMA_DK: &[f64] = &[
    2.48574089138753565546e-5,
    1.05142378581721974210,
    -3.45687097222016235469,
    4.51227709466894823700,
    -2.98285225323576655721,
    1.05639711577126713077,
    -1.95428773191645869583e-1,
    1.70970543404441224307e-2,
    -5.71926117404305781283e-4,
    4.63399473359905636708e-6,
    -2.71994908488607703910e-9,
];

struct Coefficients {
    half: f64,
    r: f64,
}

const LANCZOS: Coefficients = Coefficients {
    half: 0.5,
    r: GAMMA_R,
};

both! {
    // statrs's `ln_gamma` for x ≥ 0.5 with its `fold` written as the loop it stands for (a
    // closure handed to `fold` is not recorded; see `a_closure_handed_to_fold_is_refused`).
    fn ln_gamma(x: f64) -> f64 {
        let mut s = GAMMA_DK[0];
        for (i, d) in GAMMA_DK.iter().enumerate().skip(1) {
            s += d / (x + i as f64 - 1.0);
        }
        s.ln() + LN_2_SQRT_E_OVER_PI
            + (x - LANCZOS.half) * ((x - LANCZOS.half + LANCZOS.r) / std::f64::consts::E).ln()
    }

    // As published, with its `fold`.
    fn ln_gamma_fold(x: f64) -> f64 {
        let s = GAMMA_DK
            .iter()
            .enumerate()
            .skip(1)
            .fold(GAMMA_DK[0], |s, t| s + t.1 / (t.0 as f64 - x));
        LN_PI
            - (std::f64::consts::PI * x).sin().ln()
            - s.ln()
            - LN_2_SQRT_E_OVER_PI
            - (0.5 - x) * ((0.5 - x + GAMMA_R) / std::f64::consts::E).ln()
    }

    fn digamma(x: f64) -> f64 {
        let c = 12.0;
        let d1 = -0.57721566490153286;
        let d2 = 1.6449340668482264365;
        let s = 1e-6;
        let s3 = 1.0 / 12.0;
        let s4 = 1.0 / 120.0;
        let s5 = 1.0 / 252.0;
        let s6 = 1.0 / 240.0;
        let s7 = 1.0 / 132.0;
        if x == f64::NEG_INFINITY || x.is_nan() {
            return f64::NAN;
        }
        if x <= 0.0 && x.floor() == x {
            return f64::NEG_INFINITY;
        }
        if x < 0.0 {
            return digamma(1.0 - x) + std::f64::consts::PI / (-std::f64::consts::PI * x).tan();
        }
        if x <= s {
            return d1 - 1.0 / x + d2 * x;
        }
        let mut result = 0.0;
        let mut z = x;
        while z < c {
            result -= 1.0 / z;
            z += 1.0;
        }
        if z >= c {
            let mut r = 1.0 / z;
            result += z.ln() - 0.5 * r;
            r *= r;
            result -= r * (s3 - r * (s4 - r * (s5 - r * (s6 - r * s7))));
        }
        result
    }

    fn gamma_lr(a: f64, x: f64) -> f64 {
        if a.is_nan() || x.is_nan() {
            return f64::NAN;
        }
        let eps = 0.000000000000001;
        let big = 4503599627370496.0;
        let big_inv = 2.22044604925031308085e-16;
        let ax = a * x.ln() - x - ln_gamma::tracked(a);
        if ax < -709.78271289338399 {
            if a < x {
                return 1.0;
            }
            return 0.0;
        }
        if x <= 1.0 || x <= a {
            let mut r2 = a;
            let mut c2 = 1.0;
            let mut ans2 = 1.0;
            loop {
                r2 += 1.0;
                c2 *= x / r2;
                ans2 += c2;
                if c2 / ans2 <= eps {
                    break;
                }
            }
            return ax.exp() * ans2 / a;
        }
        let mut y = 1.0 - a;
        let mut z = x + y + 1.0;
        let mut c = 0;
        let mut p3 = 1.0;
        let mut q3 = x;
        let mut p2 = x + 1.0;
        let mut q2 = z * x;
        let mut ans = p2 / q2;
        loop {
            y += 1.0;
            z += 2.0;
            c += 1;
            let yc = y * f64::from(c);
            let p = p2 * z - p3 * yc;
            let q = q2 * z - q3 * yc;
            p3 = p2;
            p2 = p;
            q3 = q2;
            q2 = q;
            if p.abs() > big {
                p3 *= big_inv;
                p2 *= big_inv;
                q3 *= big_inv;
                q2 *= big_inv;
            }
            if q != 0.0 {
                let nextans = p / q;
                let error = ((ans - nextans) / nextans).abs();
                ans = nextans;
                if error <= eps {
                    break;
                }
            }
        }
        1.0 - ax.exp() * ans
    }

    // libm's way of `copysign`: the magnitude's bits with the sign's.
    fn copysign_bits(x: f64, y: f64) -> f64 {
        let magnitude = x.to_bits() & !(1u64 << 63);
        let sign = y.to_bits() & (1u64 << 63);
        f64::from_bits(magnitude | sign)
    }

    fn guarded_sqrt(x: f64) -> f64 {
        if x.is_finite() && !x.is_sign_negative() && !x.is_subnormal() {
            x.sqrt()
        } else {
            0.0
        }
    }
}

fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6 * x.abs().max(1.0);
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-6 * want.abs().max(1.0),
        "{what}: {got}, central difference {want}"
    );
}

/// Values bit for bit; the gradient and the derivative program's `vjp` against central
/// differences; the program of the trace replayed at nearby points gives the plain function's
/// value bit for bit, or a guard where the path changes.
fn check<F>(tracked: F, plain: fn(f64) -> f64, xs: &[f64]) -> usize
where
    F: Callable<(f64,), Output = f64> + Copy,
{
    let mut replayed = 0;
    for &x in xs {
        let (out, trace) = track_output(tracked, (x,));
        assert_eq!(out.to_bits(), plain(x).to_bits(), "value at {x}");
        let slope = central(plain, x);
        let g = gradient(tracked, (x,)).unwrap_or_else(|e| panic!("gradient at {x}: {e}"));
        close(g.scalars()[0].unwrap(), slope, &format!("gradient at {x}"));
        let v = vjp(tracked, (x,), 1.0).unwrap_or_else(|e| panic!("vjp at {x}: {e}"));
        let v = v.cotangents[0].as_ref().and_then(|c| c.as_f64()).unwrap();
        close(v, slope, &format!("vjp at {x}"));
        let p = Program::from_trace(&trace, &[Input::Dynamic])
            .unwrap_or_else(|e| panic!("program at {x}: {e}"));
        for y in [x, x * (1.0 + 1e-12), x * 1.001, x + 0.5, -x] {
            match p.call((y,)) {
                Ok(v) => {
                    let v = v.as_f64().unwrap();
                    assert_eq!(v.to_bits(), plain(y).to_bits(), "replayed at {y} from {x}");
                    replayed += 1;
                }
                Err(ReplayError::Guard { .. }) => {}
                Err(e) => panic!("replayed at {y} from {x}: {e}"),
            }
        }
    }
    replayed
}

#[test]
fn digamma_records_replays_and_differentiates() {
    let points = [0.1, 0.3, 0.7, 1.5, 3.0, 7.5, 11.9, 20.0, -0.4, -2.5];
    let replayed = check(digamma::tracked, digamma::plain, &points);
    // Replay reaches points beyond the recorded one (same loop count: `x + 1e-12`).
    assert!(replayed >= 2 * points.len(), "{replayed} replays");
    // Below 1e-6 the published code takes its expansion `d1 - 1/x + d2 x`.
    let g = gradient(digamma::tracked, (1e-7,)).unwrap().scalars()[0].unwrap();
    let want = 1.0 / (1e-7 * 1e-7) + 1.6449340668482264365;
    assert!((g - want).abs() <= 1e-15 * want, "{g} vs {want}");
    // digamma' is trigamma: ψ'(1) = π²/6.
    let g = gradient(digamma::tracked, (1.0,)).unwrap();
    let pi2_6 = std::f64::consts::PI.powi(2) / 6.0;
    assert!((g.scalars()[0].unwrap() - pi2_6).abs() < 1e-6);
}

#[test]
fn a_constant_table_read_by_index_has_a_recorded_operand() {
    check(
        ln_gamma::tracked,
        ln_gamma::plain,
        &[0.5, 0.7, 1.5, 3.0, 20.0],
    );
    // d/dx ln Γ(x) = ψ(x), against the closed forms ψ(1) = -γ and ψ(1/2) = -γ - 2 ln 2.
    let gamma = 0.5772156649015329;
    for (x, psi) in [(1.0, -gamma), (0.5, -gamma - 2.0 * 2f64.ln())] {
        let g = gradient(ln_gamma::tracked, (x,)).unwrap().scalars()[0].unwrap();
        assert!((g - psi).abs() < 1e-9, "ψ({x}) = {psi}, gradient {g}");
    }
    // The element is read through a constant node holding the table, and a field of a
    // constant struct through one holding the struct.
    let trace = track(ln_gamma::tracked, (1.5,));
    let listing = trace.root().levels(2).to_string();
    let lines: Vec<&str> = listing.lines().collect();
    assert!(
        lines[2].starts_with("  @2: [Const:§1:%2] [2.4857408913875355e-5"),
        "{listing}"
    );
    assert!(lines[3].contains("⟨index⟩(@2, ⟨0⟩)"), "{listing}");
    assert!(listing.contains("_::Coefficients\n"), "{listing}");
    assert!(listing.contains("$(.half)(@"), "{listing}");
    assert!(!listing.contains("⟨_⟩"), "{listing}");
}

#[test]
fn a_closure_handed_to_fold_is_refused() {
    // The closure captures `x`, which the trace cannot see through `fold`: an error, never a
    // gradient that misses the closure's slope.
    let e = gradient(ln_gamma_fold::tracked, (0.3,)).unwrap_err();
    assert!(matches!(e, GradError::NoRule { .. }), "{e}");
    assert!(e.to_string().contains("fold"), "{e}");
    let e = vjp(ln_gamma_fold::tracked, (0.3,), 1.0).unwrap_err();
    assert!(e.to_string().contains("closure"), "{e}");
}

#[test]
fn incomplete_gamma_in_both_arguments() {
    // The series (x ≤ 1 or x ≤ a) and the continued fraction. The gradient is the slope of the
    // iterations the recording ran; these points are far enough from a change of count for
    // central differences of the function to agree with it.
    for (a, x) in [(0.5, 0.3), (7.0, 3.0), (2.0, 1.5)] {
        let (out, trace) = track_output(gamma_lr::tracked, (a, x));
        assert_eq!(out.to_bits(), gamma_lr::plain(a, x).to_bits());
        let g = gradient(gamma_lr::tracked, (a, x)).unwrap();
        let [da, dx] = [g.scalars()[0].unwrap(), g.scalars()[1].unwrap()];
        close(da, central(|a| gamma_lr::plain(a, x), a), "∂/∂a");
        close(dx, central(|x| gamma_lr::plain(a, x), x), "∂/∂x");
        // ∂P/∂x is the density of Gamma(a, 1): x^(a-1) e^(-x) / Γ(a).
        let density = ((a - 1.0) * x.ln() - x - ln_gamma::plain(a)).exp();
        assert!(
            (dx - density).abs() < 1e-9 * density.max(1.0),
            "{dx} vs {density}"
        );
        let p = Program::from_trace(&trace, &[Input::Dynamic, Input::Dynamic]).unwrap();
        let v = p.call((a, x)).unwrap().as_f64().unwrap();
        assert_eq!(v.to_bits(), out.to_bits());
    }
}

#[test]
fn float_bits_replay_and_refuse_a_slope() {
    let trace = track(copysign_bits::tracked, (1.5, -2.0));
    let p = Program::from_trace(&trace, &[Input::Dynamic, Input::Dynamic]).unwrap();
    for (x, y) in [
        (1.5, -2.0),
        (-3.25, 4.0),
        (0.0, -0.0),
        (f64::INFINITY, -1.0),
        (-7e-310, 1.0),
    ] {
        let v = p.call((x, y)).unwrap().as_f64().unwrap();
        assert_eq!(
            v.to_bits(),
            copysign_bits::plain(x, y).to_bits(),
            "({x}, {y})"
        );
    }
    // `from_bits` of the magnitude's bits is `|x|` with a sign: a slope irtrack cannot carry
    // through bits. Both derivatives refuse, naming the bits, rather than saying 0.
    let e = vjp(copysign_bits::tracked, (1.5, -2.0), 1.0).unwrap_err();
    assert!(matches!(e, DiffError::NoRule { .. }), "{e}");
    assert!(e.to_string().contains("to_bits"), "{e}");
    let e = gradient(copysign_bits::tracked, (1.5, -2.0)).unwrap_err();
    assert!(matches!(e, GradError::NoRule { .. }), "{e}");
}

#[test]
fn float_class_tests_are_guards() {
    let trace = track(guarded_sqrt::tracked, (4.0,));
    let p = Program::from_trace(&trace, &[Input::Dynamic]).unwrap();
    assert_eq!(p.call((9.0,)).unwrap().as_f64(), Some(3.0));
    for y in [-1.0, f64::INFINITY, f64::NAN, 1e-310, -0.0] {
        assert!(
            matches!(p.call((y,)), Err(ReplayError::Guard { .. })),
            "{y} takes the other branch"
        );
    }
    let g = gradient(guarded_sqrt::tracked, (4.0,)).unwrap();
    assert_eq!(g.scalars()[0], Some(0.25));
    let v = vjp(guarded_sqrt::tracked, (4.0,), 1.0).unwrap();
    assert_eq!(
        v.cotangents[0].as_ref().and_then(|c| c.as_f64()),
        Some(0.25)
    );
}

/// A trait of the user's with a method named like a float class test, called on a generic
/// `T` (method resolution picks the trait's, whatever `T` is).
pub trait Tolerance {
    #[allow(clippy::wrong_self_convention)]
    fn is_nan(self) -> bool;
}

impl Tolerance for f64 {
    fn is_nan(self) -> bool {
        self > 1.0
    }
}

#[tracked]
fn generic_test<T: Tolerance + Copy>(x: T) -> f64 {
    if x.is_nan() {
        1.0
    } else {
        2.0
    }
}

#[test]
fn a_trait_method_named_like_a_float_test_is_not_taken_for_it() {
    // At 0.5 both `is_nan`s say false: agreement on the recorded point proves nothing for a
    // bool. Replaying the trait's test as `f64::is_nan` would return 2.0 at 3.0 (the function
    // returns 1.0).
    let trace = track(generic_test::<f64>, (0.5,));
    match Program::from_trace(&trace, &[Input::Dynamic]) {
        Err(e) => assert!(e.to_string().contains("is_nan"), "{e}"),
        Ok(p) => assert_eq!(p.call((3.0,)).ok().and_then(|v| v.as_f64()), Some(1.0)),
    }
}
