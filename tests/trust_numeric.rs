//! The issue *Trust*, case 14: shapes common in numeric code. Each compiles with `#[tracked]`
//! and records the plain function's value; its gradient is checked against central finite
//! differences of the plain function. Those marked `works!` must give the gradient; those
//! marked `refused!` still give a typed error naming the node (right or an error, as the
//! README's Caveats say), never a wrong number.

use irtrack::{gradient, tracked, Tangent};

fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6 * x.abs().max(1.0);
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn scalar(t: &Option<Tangent>) -> f64 {
    t.as_ref()
        .and_then(Tangent::as_scalar)
        .expect("a scalar gradient")
}

/// The gradient in the first argument, which must be `Ok` and within 1e-6 of `fd`.
#[track_caller]
fn check(got: Result<f64, irtrack::GradError>, truth: f64) {
    let g = got.unwrap_or_else(|e| panic!("expected a gradient, got {e}"));
    assert!(
        (g - truth).abs() <= 1e-6 * truth.abs().max(1.0),
        "gradient {g}, finite differences {truth}"
    );
}

#[derive(Clone, Debug)]
struct P {
    a: f64,
    b: f64,
}

// A struct built in the body, its fields read back.
#[tracked]
fn built_struct(x: f64) -> f64 {
    let p = P { a: x, b: 2.0 };
    p.a * p.b + p.a
}

const AT: [f64; 10] = [1.0, 0.5, 0.25, 0.125, 3.0, -1.0, 2.0, 0.1, 7.0, -0.75];

// Indexing a `const` array of coefficients.
#[tracked]
fn const_coefficients(x: f64) -> f64 {
    x * AT[9] + AT[4] * x * x
}

// Tuples of floats built in the arms of an `if` and destructured.
#[tracked]
fn tuple_arms(x: f64) -> f64 {
    let (r, b) = if x > 0.0 {
        (x / 2.0, 0.34)
    } else {
        (x * 3.0, 0.1)
    };
    r + b * x
}

// Horner's rule over a reversed iterator of coefficients.
#[tracked]
fn horner(x: f64) -> f64 {
    let mut acc = 0.0;
    for c in AT.iter().rev() {
        acc = acc * x + c;
    }
    acc
}

// `fold` and `map(..).sum()` with closures written in the tracked function.
#[tracked]
fn fold_and_map(x: f64) -> f64 {
    let v = [1.0, 2.0, 3.0];
    let a = v.iter().fold(0.0, |acc, &b| acc + b * x);
    let s: f64 = v.iter().map(|&b| b * x * x).sum();
    a + s
}

#[tracked]
fn apply(f: impl Fn(f64) -> f64, y: f64) -> f64 {
    f(y)
}

// A higher-order call whose closure captures an input-dependent value.
#[tracked]
fn captured_in_closure(x: f64) -> f64 {
    let k = x * 2.0;
    apply(|t| t * k, 3.0) + apply(|t| t.sin() * x, x)
}

// A generic higher-order function whose closure's parameter type comes from its bound (the
// closure is written without types: `#[tracked]` must keep the callee in call position).
fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    let n = 8;
    let h = (b - a) / n as f64;
    (0..n).map(|i| f(a + (i as f64 + 0.5) * h)).sum::<f64>() * h
}

#[tracked]
fn untyped_closure_arguments(x: f64) -> f64 {
    apply(|t| t.exp(), x * 2.0) + apply(|t| t * 3.0, 1.5)
}

// The same through an untracked higher-order function: it compiles and records the right
// value; the closure is opaque to gradients (refused, naming the call).
#[tracked]
fn untyped_closure_untracked_callee(x: f64) -> f64 {
    let squares: [f64; 3] = std::array::from_fn(|i| (i as f64) * (i as f64));
    let area = integrate(|t| t.cos() * x, 0.0, 1.0);
    area + apply(|t| t * 3.0, x) + squares[2]
}

/// The value recorded equals the plain function's.
fn same_value(f: impl irtrack::Callable<(f64,), Output = f64> + Copy, plain: fn(f64) -> f64) {
    for x in [-1.5, 0.5, 2.0] {
        let (v, _) = irtrack::track_output(f, (x,));
        assert_eq!(v.to_bits(), plain(x).to_bits());
    }
}

macro_rules! works {
    ($name:ident, $f:ident) => {
        #[test]
        fn $name() {
            same_value($f, $f);
            for x in [-1.5, 0.5, 2.0] {
                check(gradient($f, (x,)).map(|g| scalar(&g.wrt[0])), fd($f, x));
            }
        }
    };
}

/// Still refused: a typed error whose message names the node, and never `Ok` with a wrong
/// number (an `Ok` must be right).
macro_rules! refused {
    ($name:ident, $f:ident, $node:expr) => {
        #[test]
        fn $name() {
            same_value($f, $f);
            for x in [-1.5, 0.5, 2.0] {
                match gradient($f, (x,)) {
                    Ok(g) => check(Ok(scalar(&g.wrt[0])), fd($f, x)),
                    Err(e) => assert!(e.to_string().contains($node), "{e}"),
                }
            }
        }
    };
}

works!(repro_14_reversed_iterator, horner);
works!(
    repro_14_closure_parameter_types_from_the_callee,
    untyped_closure_arguments
);
refused!(
    repro_14_closure_given_to_an_untracked_function,
    untyped_closure_untracked_callee,
    "integrate"
);
refused!(repro_14_struct_built_in_the_body, built_struct, ".a");
// Since 2026-11-27 a `const` indexed is a constant node, so its element has an operand.
works!(repro_14_const_array_of_coefficients, const_coefficients);
refused!(repro_14_tuples_built_and_destructured, tuple_arms, "tuple");
refused!(repro_14_fold_and_map_sum, fold_and_map, "sum");
refused!(
    repro_14_closure_capturing_an_input,
    captured_in_closure,
    "captured variable `x`"
);

#[tracked]
fn tanh_scaled(x: f64) -> f64 {
    x.tanh() * 1e30
}

#[tracked]
fn exp_m1_scaled(x: f64) -> f64 {
    x.exp_m1() * 1e30
}

/// `tanh` rounds to ±1 past |x| ≈ 19 and `exp_m1` to -1 below -37, but their slopes there are
/// numbers (sech² x and eˣ): a slope computed from the rounded value was exactly 0, for the
/// gradient and for derivative programs alike (found 2026-11-27 by an adversarial run).
#[test]
fn slopes_in_the_flat_tails_of_tanh_and_exp_m1() {
    let sech2 = |x: f64| 4.0 / (x.exp() + (-x).exp()).powi(2);
    for x in [19.5, 25.0, -30.0, 300.0] {
        let truth = 1e30 * sech2(x);
        let g = gradient(tanh_scaled, (x,)).unwrap().scalars()[0].unwrap();
        assert!(
            (g - truth).abs() <= 1e-12 * truth,
            "tanh at {x}: {g}, truth {truth}"
        );
        let v = irtrack::diff::jvp(tanh_scaled, (x,), (1.0,))
            .unwrap()
            .tangent;
        let v = v.as_f64().unwrap();
        assert!(
            (v - truth).abs() <= 1e-12 * truth,
            "jvp of tanh at {x}: {v}, truth {truth}"
        );
    }
    for x in [-40.0f64, -300.0, 1.0] {
        let truth = 1e30 * x.exp();
        let g = gradient(exp_m1_scaled, (x,)).unwrap().scalars()[0].unwrap();
        assert!(
            (g - truth).abs() <= 1e-15 * truth,
            "exp_m1 at {x}: {g}, truth {truth}"
        );
        let v = irtrack::diff::jvp(exp_m1_scaled, (x,), (1.0,))
            .unwrap()
            .tangent;
        let v = v.as_f64().unwrap();
        assert!(
            (v - truth).abs() <= 1e-15 * truth,
            "jvp of exp_m1 at {x}: {v}, truth {truth}"
        );
    }
}

// Powers at the edges of their domain (a tester, 2026-11-27): `x.powf(x)` at 0 had slope 0
// in every API, for ln h → -∞ on the right (0⁰ = 1 but 0ʰ = 0); a negative base to the power
// x had a second derivative 0 and a first-order `jvp`/`vjp` of NaN without error.

#[tracked]
fn self_power(x: f64) -> f64 {
    x.powf(x)
}

#[tracked]
fn power_of(x: f64, y: f64) -> f64 {
    x.powf(y)
}

#[tracked]
fn negative_base(x: f64) -> f64 {
    (-2.0f64).powf(x)
}

#[tracked]
fn both_bases(x: f64) -> f64 {
    2.0f64.powf(x) + (-2.0f64).powf(x)
}

#[tracked]
fn zero_base(x: f64) -> f64 {
    0.0f64.powf(x)
}

#[test]
fn powers_where_no_slope_exists_are_refused() {
    use irtrack::diff::{differentiate, hessian, jvp, vjp};
    use irtrack::program::{Input, Program};
    use irtrack::track;
    assert!(gradient(self_power, (0.0,)).is_err());
    assert!(gradient(power_of, (0.0, 0.0)).is_err());
    assert!(gradient(zero_base, (0.0,)).is_err());
    assert!(jvp(self_power, (0.0,), (1.0,)).is_err());
    assert!(vjp(self_power, (0.0,), 1.0).is_err());
    assert!(hessian(self_power, (0.0,)).is_err());
    let p = Program::from_trace(&track(self_power, (0.5,)), &[Input::Dynamic]).unwrap();
    assert!(differentiate(&p, &[0]).unwrap().call((0.0, 1.0)).is_err());
    for x in [2.0, 3.0] {
        assert!(gradient(negative_base, (x,)).is_err());
        assert!(jvp(negative_base, (x,), (1.0,)).is_err());
        assert!(vjp(negative_base, (x,), 1.0).is_err());
        assert!(hessian(negative_base, (x,)).is_err());
        assert!(hessian(both_bases, (x,)).is_err());
        let p = Program::from_trace(&track(negative_base, (x,)), &[Input::Dynamic]).unwrap();
        let d = differentiate(&p, &[0]).unwrap();
        assert!(d.call((x, 1.0)).is_err());
        assert!(differentiate(&d, &[0])
            .unwrap()
            .call((x, 1.0, 1.0))
            .is_err());
    }
    // Where a slope exists it is still given.
    check(
        gradient(self_power, (0.5,)).map(|g| scalar(&g.wrt[0])),
        fd(|x| x.powf(x), 0.5),
    );
    let g = gradient(power_of, (0.0, 2.0)).unwrap();
    assert_eq!(g.scalars(), [Some(0.0), Some(0.0)]);
    let g = gradient(zero_base, (2.0,)).unwrap();
    assert_eq!(g.scalars(), [Some(0.0)]);
    let j = jvp(self_power, (0.5,), (1.0,)).unwrap();
    assert!((j.tangent.as_f64().unwrap() - fd(|x| x.powf(x), 0.5)).abs() < 1e-6);
}

#[tracked]
fn base_and_exponent(v: Vec<f64>) -> f64 {
    v[0].powf(v[1])
}

/// `aᵇ` at `a = 0`, `0 < b`: its slope in `b` is 0 on the line `a = 0` (`0ᵇ = 0`), which the
/// rule picks by `a == 0`, a condition that holds at that point only; differentiated again in
/// `a`, that 0 gave the mixed partial 0 (and the Hessian +∞ on one side of its diagonal, 0 on
/// the other), where `∂²/∂a∂b = a^(b-1) (1 + b ln a)` tends to -∞ (found 2026-11-28 by an
/// adversarial run). A tangent of a branch picked by such a point condition is refused where
/// the direction moves off the point; along the line it is kept.
#[test]
fn a_slope_that_holds_at_a_point_only_is_not_differentiated_off_it() {
    use irtrack::diff::{differentiate, hessian_by, HessianMethod};
    use irtrack::program::{Input, Program};
    use irtrack::track;
    for b in [0.25, 0.5, 1.5, 2.0] {
        for method in [
            HessianMethod::ForwardOverReverse,
            HessianMethod::ForwardOverForward,
        ] {
            // Where b > 1 the limit is 0, which may be given; where b < 1, no number is right.
            match hessian_by(base_and_exponent, (vec![0.0, b],), method) {
                Ok(h) => assert!(b > 1.0 && h[(0, 1)] == 0.0 && h[(1, 0)] == 0.0, "{h:?}"),
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
        let p = Program::from_trace(
            &track(power_of, (2.0, 3.0)),
            &[Input::Dynamic, Input::Dynamic],
        )
        .unwrap();
        let d2 = differentiate(&differentiate(&p, &[0, 1]).unwrap(), &[0, 1]).unwrap();
        // b first, then a: the 0 of the line, moved off it.
        let r = d2.call((0.0, b, 0.0, 1.0, 1.0, 0.0));
        assert!(r.is_err(), "b = {b}: {r:?}");
        // Along the line (b, then b again) 0ᵇ = 0: the second derivative 0.
        assert_eq!(
            d2.call((0.0, b, 0.0, 1.0, 0.0, 1.0)).unwrap().as_f64(),
            Some(0.0)
        );
        // a twice: b (b - 1) a^(b-2), ±∞ or 2 at a = 0.
        let aa = d2
            .call((0.0, b, 1.0, 0.0, 1.0, 0.0))
            .unwrap()
            .as_f64()
            .unwrap();
        let truth = if b == 2.0 {
            2.0
        } else if b < 1.0 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        assert_eq!(aa, truth, "b = {b}");
    }
    // Off the point the Hessian is the closed form's.
    let (a, b) = (2.0f64, 0.5f64);
    let h = hessian_by(
        base_and_exponent,
        (vec![a, b],),
        HessianMethod::ForwardOverReverse,
    )
    .unwrap();
    let mixed = a.powf(b - 1.0) * (1.0 + b * a.ln());
    assert!((h[(0, 1)] - mixed).abs() < 1e-12 && (h[(1, 0)] - mixed).abs() < 1e-12);
}

#[tracked]
fn log_of(x: f64) -> f64 {
    x.ln()
}

#[tracked]
fn atanh_of(x: f64) -> f64 {
    x.atanh()
}

/// Where a float method has no value (NaN made from a number: `ln` of -1), it has no slope:
/// NaN, not the formula's finite value there (`1 / x` gave -1; a tester, 2026-11-28). (Where
/// such a NaN meets a zero sensitivity, `x.ln_1p() * 0.0 + x * x` at -1.5, the product with 0
/// absorbs it, as every zero sensitivity does: -3, the slope of `x * x`.)
#[test]
fn no_value_no_slope() {
    for (g, x) in [
        (gradient(log_of, (-1.0,)), -1.0),
        (gradient(atanh_of, (2.0,)), 2.0),
    ] {
        let g = g.unwrap();
        assert!(g.value.is_nan(), "{x}");
        let s = g.scalars()[0].unwrap();
        assert!(s.is_nan(), "{x}: {s}");
    }
    // Inside the domain, the slopes.
    assert_eq!(gradient(log_of, (2.0,)).unwrap().scalars(), [Some(0.5)]);
    assert_eq!(gradient(atanh_of, (0.0,)).unwrap().scalars(), [Some(1.0)]);
}

// ---- Rounding by a large addend (a tester on libm's range reduction, 2026-11-28): `x · 2/π +
// 1.5·2⁵² - 1.5·2⁵²` rounds to an integer, whose slope is 0, but the rules gave the real
// numbers' 2/π, so `sin` reduced this way had the gradient 0 (or 1e-16) for `cos x` at every
// point past π/4, and `jvp` the same. Refused where a path from the same inputs undoes the
// rounding's slope (`Indeterminacy::Rounding`), whatever else the output adds; a rounding no
// path undoes (`ln(1 + eˣ)` at -35, a long accumulation, a compensated sum) keeps the rules'
// slope, which is the smooth function's (a regression audit of the first form of the check).

const TOINT: f64 = 1.5 / f64::EPSILON;

#[tracked]
fn sin_by_reduction(x: f64) -> f64 {
    let f_n = x * std::f64::consts::FRAC_2_PI + TOINT - TOINT;
    let r = x - f_n * std::f64::consts::FRAC_PI_2;
    let q = (f_n as i64) & 3;
    if q == 0 {
        r.sin()
    } else if q == 1 {
        r.cos()
    } else if q == 2 {
        -r.sin()
    } else {
        -r.cos()
    }
}

/// The reduction with no branch on the quadrant after it: the fast path answers it unless it
/// hands such sums to the general sweep.
#[tracked]
fn reduced_square(x: f64) -> f64 {
    let f_n = x * std::f64::consts::FRAC_2_PI + TOINT - TOINT;
    let r = x - f_n * std::f64::consts::FRAC_PI_2;
    r * r
}

#[tracked]
fn reduction_plus(x: f64, y: f64) -> f64 {
    sin_by_reduction(x) + 1e4 + y * y
}

#[tracked]
fn fraction_plus(x: f64) -> f64 {
    let k = x + TOINT - TOINT;
    (x - k) + 1000.0 * x
}

#[tracked]
fn rounded_in_f32(x: f32) -> f32 {
    let k = x + 12_582_912.0 - 12_582_912.0; // 1.5 · 2²³: rounds to an integer in f32
    x - k
}

#[tracked]
fn time_offset(t0: f64, dt: f64) -> f64 {
    (t0 + dt) - t0
}

#[tracked]
fn long_accumulation(x: f64, n: i32) -> f64 {
    let mut s = 1e6;
    for _ in 0..n {
        s += x * 1e-3;
    }
    s
}

#[tracked]
fn kahan(x: f64, n: i32) -> f64 {
    let (mut sum, mut c) = (1e8, 0.0);
    for _ in 0..n {
        let y = x * 1e-3 - c;
        let t = sum + y;
        c = (t - sum) - y;
        sum = t;
    }
    sum
}

#[tracked]
fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

#[tracked]
fn residual_squared(w: f64, b: f64) -> f64 {
    let r = w * 1.0 + b - 3.0;
    r * r
}

#[test]
fn a_rounding_the_computation_undoes_is_refused_and_no_other() {
    use irtrack::grad::{GradError, Indeterminacy};
    let refused = |e: GradError| {
        matches!(
            e,
            GradError::Indeterminate {
                cause: Indeterminacy::Rounding { .. },
                ..
            }
        )
    };
    for x in [0.3, 0.5, 4.0, 10.0, -9.0, 80.0, 1e6, 1e9] {
        let s = sin_by_reduction(x);
        assert!(
            (s - x.sin()).abs() < 1e-6,
            "the reduction computes sin at {x}: {s}"
        );
        let e = gradient(sin_by_reduction, (x,)).unwrap_err();
        assert!(refused(e.clone()), "at {x}: {e}");
        assert!(e.to_string().contains("cancels"), "{e}");
        let e = irtrack::diff::jvp(sin_by_reduction, (x,), (1.0,)).unwrap_err();
        assert!(e.to_string().contains("coarse grid"), "{e}");
        // Whatever the output adds beside it.
        assert!(refused(gradient(reduction_plus, (x, 100.0)).unwrap_err()));
    }
    // Past |x| ≈ 10⁸ the sum drops fewer than 26 bits of `x·2/π`, which the fast path
    // answered (the gradient 0 for `2r`); up to 10¹² it drops 12 or more.
    for x in [0.3, 4.0, 1e6, 1e9 + 0.3, 1e12 + 0.3] {
        let e = gradient(reduced_square, (x,)).unwrap_err();
        assert!(refused(e.clone()), "at {x}: {e}");
    }
    assert!(refused(gradient(fraction_plus, (3.3,)).unwrap_err()));
    assert!(refused(gradient(rounded_in_f32, (2.3f32,)).unwrap_err()));
    assert!(refused(
        gradient(rounded_in_f32, (20000.5f32,)).unwrap_err()
    ));

    // Roundings nothing undoes: the rules' slopes, checked against closed forms.
    let g = gradient(time_offset, (1e10, 1.5)).unwrap();
    assert_eq!(g.scalars(), [Some(0.0), Some(1.0)]);
    assert_eq!(
        gradient(time_offset, (1e10, 1e-5)).unwrap().scalars()[1],
        Some(1.0)
    );
    let g = gradient(long_accumulation, (1.0, 1000)).unwrap();
    assert!((g.scalars()[0].unwrap() - 1.0).abs() < 1e-12);
    let g = gradient(kahan, (1.0, 1000)).unwrap();
    assert!(
        (g.scalars()[0].unwrap() - 1.0).abs() < 1e-12,
        "{:?}",
        g.scalars()
    );
    for x in [-35.0f64, -40.0, -20.0, 0.5] {
        let sigma = 1.0 / (1.0 + (-x).exp());
        let g = gradient(softplus, (x,)).unwrap().scalars()[0].unwrap();
        assert!(
            (g - sigma).abs() <= 1e-12 * sigma,
            "softplus' at {x}: {g} for {sigma}"
        );
    }
    // A fit near its optimum: the residual is a few ulps, its slope 2r is no rounding.
    let b = 2.0 + 4.0 * f64::EPSILON;
    let g = gradient(residual_squared, (1.0, b)).unwrap();
    let r = 1.0 + b - 3.0;
    assert_eq!(g.scalars(), [Some(2.0 * r), Some(2.0 * r)]);
}

#[tracked]
fn fraction_by_cast(x: f64) -> f64 {
    x - (x as f32) as f64
}

#[tracked]
fn through_f32(x: f64) -> f64 {
    let y = (x as f32) as f64;
    y * y
}

/// `x as f32` keeps 24 of 53 bits: undone by `x - (x as f32) as f64` (the gradient was 0 for
/// 1), kept as the rounding of a smooth function elsewhere.
#[test]
fn a_cast_to_f32_undone_is_refused() {
    let e = gradient(fraction_by_cast, (3.3,)).unwrap_err();
    assert!(e.to_string().contains("cancels"), "{e}");
    let g = gradient(through_f32, (3.3,)).unwrap().scalars()[0].unwrap();
    let y = 3.3f32 as f64;
    assert_eq!(g, 2.0 * y);
}

#[tracked]
fn cbrt_by_bisection(a: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, a.max(1.0));
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if mid * mid * mid < a {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[tracked]
fn implied_rate(price: f64) -> f64 {
    let (mut lo, mut hi): (f64, f64) = (0.0, 1.0);
    while hi - lo > 1e-13 {
        let mid = 0.5 * (lo + hi);
        if 100.0 * (-5.0 * mid).exp() > price {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[tracked]
fn a_few_halvings(a: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, a.max(1.0));
    for _ in 0..5 {
        let mid = 0.5 * (lo + hi);
        if mid * mid * mid < a {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo + hi
}

/// A bisection converged by comparisons has the slope of the path it took (`cbrt` by
/// bisection: 0.63 for 0.21, the implied rate 0 for -0.0025; a tester's workflows, 2026-11-28):
/// its last comparisons hold by a sliver, and the gradient is refused there
/// (`Indeterminacy::NearTie`), by `jvp` too. A few halvings, whose comparisons hold by a
/// margin, keep the path's slope, which is the function's there (piecewise linear in `a`).
#[test]
fn a_bisection_converged_by_comparisons_is_refused() {
    use irtrack::grad::{GradError, Indeterminacy};
    for a in [0.5, 2.0, 10.0] {
        assert!((cbrt_by_bisection(a) - a.cbrt()).abs() < 1e-12);
        let e = gradient(cbrt_by_bisection, (a,)).unwrap_err();
        assert!(
            matches!(
                e,
                GradError::Indeterminate {
                    cause: Indeterminacy::NearTie,
                    ..
                }
            ),
            "{e}"
        );
        assert!(irtrack::diff::jvp(cbrt_by_bisection, (a,), (1.0,)).is_err());
    }
    assert!(gradient(implied_rate, (80.0,)).is_err());
    let h = 1e-6;
    let fd = (a_few_halvings(2.0 + h) - a_few_halvings(2.0 - h)) / (2.0 * h);
    let g = gradient(a_few_halvings, (2.0,)).unwrap().scalars()[0].unwrap();
    assert!((g - fd).abs() < 1e-6, "{g} {fd}");
}

// ---- Bisections the near-tie check missed (a tester on root finders, 2026-11-28, third
// stop). The check read only orderings whose sides were within 2⁻³⁶ of each other, so a
// bisection on the sign of a residual (`f(mid) > 0.0`, the usual form), whose margin is a
// sliver of the terms that made the residual, not of the residual, kept its path's slope (0,
// or `x/(a+1)` where the bracket depends on `a`); and the direction moved only `f64`
// arguments, so a bisection on `v[0]`, `p.a`, `t.0` or in `f32` was not seen at all.

#[tracked]
fn root_by_sign(a: f64, b: f64) -> f64 {
    // The root of x³ - a x - b in [0, 10].
    let (mut lo, mut hi) = (0.0, 10.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        let fm = mid * mid * mid - a * mid - b;
        if fm > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
        if hi - lo < 1e-13 {
            break;
        }
    }
    0.5 * (lo + hi)
}

#[tracked]
fn root_by_product(a: f64) -> f64 {
    // √a by the sign of f(lo)·f(mid), the bracket [0, a + 1] moving with `a`.
    let (mut lo, mut hi) = (0.0, a + 1.0);
    let mut flo = lo * lo - a;
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        let fmid = mid * mid - a;
        if flo * fmid <= 0.0 {
            hi = mid;
        } else {
            lo = mid;
            flo = fmid;
        }
    }
    (lo + hi) / 2.0
}

#[tracked]
fn root_by_tolerance(a: f64) -> f64 {
    // ln a, stopping where |f(mid)| is small.
    let (mut lo, mut hi, mut mid): (f64, f64, f64) = (0.0, 4.0, 2.0);
    for _ in 0..200 {
        mid = (lo + hi) / 2.0;
        let fm = mid.exp() - a;
        if fm.abs() < 1e-12 {
            break;
        }
        if fm < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    mid
}

#[tracked]
fn golden_section(v: Vec<f64>) -> f64 {
    // The minimiser of (x - a)² + b sin x.
    let (a, b) = (v[0], v[1]);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (-5.0, 5.0);
    let mut c = hi - ratio * (hi - lo);
    let mut d = lo + ratio * (hi - lo);
    while (hi - lo).abs() > 1e-10 {
        let fc = (c - a) * (c - a) + b * c.sin();
        let fd = (d - a) * (d - a) + b * d.sin();
        if fc < fd {
            hi = d;
        } else {
            lo = c;
        }
        c = hi - ratio * (hi - lo);
        d = lo + ratio * (hi - lo);
    }
    (hi + lo) / 2.0
}

/// `cbrt(a)` by 80 halvings, of an `a` read as the caller wrote it.
#[tracked]
fn cbrt_halving(a: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 2.0);
    for _ in 0..80 {
        let m = 0.5 * (lo + hi);
        if m * m * m > a {
            hi = m;
        } else {
            lo = m;
        }
    }
    lo
}

#[tracked]
fn cbrt_of_element(v: Vec<f64>) -> f64 {
    let a = v[0];
    let (mut lo, mut hi) = (0.0, 2.0);
    for _ in 0..80 {
        let m = 0.5 * (lo + hi);
        if m * m * m > a {
            hi = m;
        } else {
            lo = m;
        }
    }
    lo
}

#[tracked]
fn cbrt_of_array(v: [f64; 2]) -> f64 {
    cbrt_halving(v[1])
}

#[tracked]
fn cbrt_of_helper(v: Vec<f64>) -> f64 {
    cbrt_halving(v[0])
}

#[derive(Clone, Debug, irtrack::Snapshot)]
pub struct Cube {
    pub volume: f64,
}

#[tracked]
fn cbrt_of_field(c: Cube) -> f64 {
    let a = c.volume;
    cbrt_halving(a)
}

#[tracked]
fn cbrt_of_tuple(t: (f64, f64)) -> f64 {
    let a = t.0;
    cbrt_halving(a)
}

#[tracked]
fn cbrt_in_f32(a: f32) -> f32 {
    let (mut lo, mut hi) = (0.0f32, 2.0f32);
    for _ in 0..40 {
        let m = 0.5 * (lo + hi);
        if m * m * m > a {
            hi = m;
        } else {
            lo = m;
        }
    }
    lo
}

fn near_tie(e: &irtrack::grad::GradError) -> bool {
    use irtrack::grad::{GradError, Indeterminacy};
    matches!(
        e,
        GradError::Indeterminate {
            cause: Indeterminacy::NearTie,
            ..
        }
    )
}

#[test]
fn a_bisection_on_a_residuals_sign_is_refused() {
    use irtrack::diff::{hessian, jvp, vjp};
    for (a, b) in [(2.0, 3.0), (1.0, 1.0)] {
        let x = root_by_sign(a, b);
        assert!((x * x * x - a * x - b).abs() < 1e-11);
        let e = gradient(root_by_sign, (a, b)).unwrap_err();
        assert!(near_tie(&e), "{e}");
        assert!(e.to_string().contains("2^-36"), "{e}");
        assert!(jvp(root_by_sign, (a, b), (1.0, 0.0)).is_err());
        assert!(vjp(root_by_sign, (a, b), 1.0).is_err());
    }
    // The path's slope here was x/(a + 1), 0.471 for 1/(2√2) = 0.354, from every entry point.
    assert!((root_by_product(2.0) - 2f64.sqrt()).abs() < 1e-12);
    assert!(near_tie(&gradient(root_by_product, (2.0,)).unwrap_err()));
    assert!(jvp(root_by_product, (2.0,), (1.0,)).is_err());
    assert!(vjp(root_by_product, (2.0,), 1.0).is_err());
    assert!(hessian(root_by_product, (2.0,)).is_err());
    assert!((root_by_tolerance(3.0) - 3f64.ln()).abs() < 1e-11);
    assert!(near_tie(&gradient(root_by_tolerance, (3.0,)).unwrap_err()));
    assert!(jvp(root_by_tolerance, (3.0,), (1.0,)).is_err());
}

#[test]
fn a_bisection_on_an_element_a_field_or_an_f32_is_refused() {
    use irtrack::diff::{hessian, jvp};
    let truth = 0.5f64.cbrt();
    assert!((cbrt_of_element(vec![0.5]) - truth).abs() < 1e-12);
    let e = gradient(cbrt_of_element, (vec![0.5],)).unwrap_err();
    assert!(near_tie(&e), "{e}");
    assert!(jvp(cbrt_of_element, (vec![0.5],), (vec![1.0],)).is_err());
    assert!(hessian(cbrt_of_element, (vec![0.5],)).is_err());
    assert!(near_tie(
        &gradient(cbrt_of_array, ([7.0, 0.5],)).unwrap_err()
    ));
    assert!(near_tie(
        &gradient(cbrt_of_helper, (vec![0.5],)).unwrap_err()
    ));
    let e = gradient(cbrt_of_field, (Cube { volume: 0.5 },)).unwrap_err();
    assert!(near_tie(&e), "{e}");
    assert!(near_tie(
        &gradient(cbrt_of_tuple, ((0.5, 3.0),)).unwrap_err()
    ));
    assert!((cbrt_in_f32(0.5) - 0.5f32.cbrt()).abs() < 1e-6);
    assert!(near_tie(&gradient(cbrt_in_f32, (0.5f32,)).unwrap_err()));
    assert!(jvp(cbrt_in_f32, (0.5f32,), (1.0f32,)).is_err());
    // A golden-section search: its gradient, vjp and Hessian were all 0, where the
    // minimiser's slopes are [1, -0.5] (x* = 0 at a = 1, b = 2).
    assert!(golden_section(vec![1.0, 2.0]).abs() < 1e-7);
    assert!(near_tie(
        &gradient(golden_section, (vec![1.0, 2.0],)).unwrap_err()
    ));
    assert!(hessian(golden_section, (vec![1.0, 2.0],)).is_err());
}

// The same bisection, with its input reaching the comparison by ways the forward pass did
// not follow (a regression audit, 2026-11-28, third stop): each returned the path's slope 0.

#[tracked]
fn cbrt_by_closure(a: f64) -> f64 {
    let f = |m: f64| m * m * m - a;
    let (mut lo, mut hi) = (0.0, 2.0);
    for _ in 0..80 {
        let m = 0.5 * (lo + hi);
        if f(m) > 0.0 {
            hi = m;
        } else {
            lo = m;
        }
    }
    lo
}

fn residual(m: f64, a: f64) -> f64 {
    m * m * m - a
}

#[tracked]
fn cbrt_by_untracked(a: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 2.0);
    for _ in 0..80 {
        let m = 0.5 * (lo + hi);
        if residual(m, a) > 0.0 {
            hi = m;
        } else {
            lo = m;
        }
    }
    lo
}

#[tracked]
fn cbrt_by_signum(a: f64) -> f64 {
    let (mut lo, mut hi): (f64, f64) = (0.0, 2.0);
    for _ in 0..80 {
        let m = 0.5 * (lo + hi);
        if (m * m * m - a).signum() > 0.0 {
            hi = m;
        } else {
            lo = m;
        }
    }
    lo
}

#[tracked]
fn cbrts_of_elements(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for &a in &v {
        s += cbrt_halving(a);
    }
    s
}

#[tracked]
fn cbrt_of_sum(v: Vec<f64>) -> f64 {
    let a: f64 = v.iter().sum();
    cbrt_halving(a)
}

// A `Vec` made in the body is the point.
#[allow(clippy::useless_vec)]
#[tracked]
fn cbrt_of_made_vector(x: f64) -> f64 {
    let w = vec![x, 1.0];
    cbrt_halving(w[0])
}

#[tracked]
fn field_read_twice(c: Cube) -> f64 {
    c.volume - (c.volume + TOINT - TOINT)
}

#[tracked]
fn cbrt_by_sign_steps(a: f64) -> f64 {
    let (mut m, mut step): (f64, f64) = (1.0, 0.5);
    for _ in 0..80 {
        m -= step.copysign(m * m * m - a);
        step *= 0.5;
    }
    m
}

#[tracked]
fn bisect_on<F: Fn(f64) -> f64>(f: F, mut lo: f64, mut hi: f64) -> f64 {
    for _ in 0..80 {
        let m = 0.5 * (lo + hi);
        if f(m) > 0.0 {
            hi = m;
        } else {
            lo = m;
        }
    }
    lo
}

#[tracked]
fn cbrt_by_handed_closure(a: f64) -> f64 {
    bisect_on(|m: f64| m * m * m - a, 0.0, 2.0)
}

#[tracked]
fn after_threshold(t: f64) -> f64 {
    let dt = t - 1.7e9;
    if dt > 0.5 {
        2.0 * dt
    } else {
        dt
    }
}

#[test]
fn a_bisection_the_pass_cannot_follow_is_still_refused() {
    assert!(near_tie(&gradient(cbrt_by_closure, (0.5,)).unwrap_err()));
    // Through an untracked helper the residual's rate is unknown: not read (its size is no
    // stand-in for it: a difference of timestamps of 10¹² over 8.64·10⁷ moves by far less).
    assert!(gradient(cbrt_by_untracked, (0.5,)).is_ok());
    assert!(near_tie(&gradient(cbrt_by_signum, (0.5,)).unwrap_err()));
    // A closure handed to a tracked bisection, its input a capture the trace does not link
    // (it answered 0; an audit, 2026-11-28).
    assert!(near_tie(
        &gradient(cbrt_by_handed_closure, (0.5,)).unwrap_err()
    ));
    // The sign a `copysign` takes (it answered 0, and `jvp` 0; an audit, 2026-11-28).
    assert!((cbrt_by_sign_steps(0.5) - 0.5f64.cbrt()).abs() < 1e-12);
    assert!(near_tie(&gradient(cbrt_by_sign_steps, (0.5,)).unwrap_err()));
    let e = gradient(cbrts_of_elements, (vec![0.5, 0.3],)).unwrap_err();
    assert!(near_tie(&e), "{e}");
    assert!(near_tie(
        &gradient(cbrt_of_sum, (vec![0.25, 0.25],)).unwrap_err()
    ));
    assert!(near_tie(
        &gradient(cbrt_of_made_vector, (0.5,)).unwrap_err()
    ));
    // Two reads of one field move together: the rounding undone is seen.
    let e = gradient(field_read_twice, (Cube { volume: 3.3 },)).unwrap_err();
    assert!(e.to_string().contains("cancels"), "{e}");
    // A margin of 0.5 on a timestamp of 1.7·10⁹ is no sliver (refused when inputs moved by
    // 2⁻³⁰ of their size closed margins).
    let g = gradient(after_threshold, (1.7e9 + 1.0,)).unwrap();
    assert_eq!(g.scalars(), [Some(2.0)]);
}

#[tracked]
fn hinge_sum(v: Vec<f64>, margin: f64) -> f64 {
    let mut s = 0.0;
    for &x in &v {
        let r = 2.0 * x - margin;
        if r > 0.0 {
            s += r * r;
        }
    }
    s
}

#[tracked]
fn largest(v: Vec<f64>) -> f64 {
    let mut m = v[0];
    for &x in &v[1..] {
        if x > m {
            m = x;
        }
    }
    m
}

/// Orderings of input-dependent values that hold by a margin keep their branch's slope, on
/// vector elements too, with residuals small against the terms that made them but not a
/// sliver (1e-7 of them and more).
#[test]
fn orderings_that_hold_by_a_margin_keep_their_slopes() {
    for m in [1.0, 1.0 - 1e-7, 3.0] {
        let v = vec![0.5, 1.5, -2.0, 0.75];
        let g = gradient(hinge_sum, (v.clone(), m)).unwrap();
        let dv: Vec<f64> = v
            .iter()
            .map(|&x| match 2.0 * x - m > 0.0 {
                true => 4.0 * (2.0 * x - m),
                false => 0.0,
            })
            .collect();
        let dm: f64 = v
            .iter()
            .filter(|&&x| 2.0 * x - m > 0.0)
            .map(|&x| -2.0 * (2.0 * x - m))
            .sum();
        assert_eq!(g.wrt[0].as_ref().unwrap().as_slice().unwrap(), &dv[..]);
        assert!((g.scalars()[1].unwrap() - dm).abs() < 1e-12);
    }
    for v in [vec![3.0, 1.0, 2.0, 5.0, 4.0], vec![1.0, 1.0 + 1e-7, 0.5]] {
        let g = gradient(largest, (v.clone(),)).unwrap();
        let top = (0..v.len()).fold(0, |k, i| if v[i] > v[k] { i } else { k });
        let one_hot: Vec<f64> = (0..v.len()).map(|i| f64::from(i == top)).collect();
        assert_eq!(g.wrt[0].as_ref().unwrap().as_slice().unwrap(), &one_hot[..]);
    }
}

#[tracked]
fn share_of(x: f64, y: f64) -> f64 {
    x / (x + y)
}

#[tracked]
fn dekker_square(x: f64) -> f64 {
    let sp = 134_217_729.0 * x;
    let xh = sp - (sp - x);
    let xl = x - xh;
    let hi = x * x;
    let lo = ((xh * xh - hi) + 2.0 * xh * xl) + xl * xl;
    hi + lo + x
}

/// Expressions of degree 0 (`x / (x + y)`) and error-free transformations (a Veltkamp split)
/// round coarsely and cancel without undoing anything the output depends on: their slopes are
/// the rules' (both were refused by the check's first direction and threshold; a regression
/// audit, 2026-11-28).
#[test]
fn ratios_and_exact_splits_keep_their_slopes() {
    for (x, y) in [(1.0, 1e4), (1.0, 1e6), (3.0, 2e5)] {
        let g = gradient(share_of, (x, y)).unwrap().scalars();
        let s: f64 = x + y;
        assert!((g[0].unwrap() - y / (s * s)).abs() <= 1e-12 * (y / (s * s)));
        assert!((g[1].unwrap() + x / (s * s)).abs() <= 1e-12 * (x / (s * s)));
    }
    let g = gradient(dekker_square, (1.1,)).unwrap().scalars()[0].unwrap();
    assert!((g - 3.2).abs() < 1e-12, "{g}");
}

#[tracked]
fn next_above(x: f64) -> f64 {
    let up = f64::from_bits(x.to_bits() + 1);
    let k = if x < up { 2.0 } else { 3.0 };
    k * x
}

/// Sides a sliver apart that move together hold around the point: not a near tie (a random
/// program compared `x.next_up()` with `x`; the difftest, 2026-11-28).
#[test]
fn an_ordering_whose_sides_move_together_is_no_near_tie() {
    let g = gradient(next_above, (1.5,)).unwrap();
    assert_eq!(g.scalars(), [Some(2.0)]);
}

#[tracked]
fn logs_of(v: Vec<f64>) -> f64 {
    v[0].log10() + v[1].log2()
}

#[tracked]
fn outside_domains(x: f64) -> f64 {
    x.atanh() + (-x).acosh() + (-x - 1.5).ln_1p() + (-x).ln()
}

/// A function with no value at the point (`log10` of -1.7) has no slope there: the gradient
/// is NaN, and derivative programs said `1 / (x ln 10)`, -0.2555, for `vjp` (a tester,
/// 2026-11-28, third stop); now their entry points refuse, naming the operation. Since the
/// fourth stop, no element of the gradient is a number there (`log2`'s slope was kept for
/// `v[1]`, and for a direction not moving `v[0]`): the function has no value, whichever way
/// the inputs move.
#[test]
fn derivative_programs_give_no_slope_where_the_function_has_no_value() {
    use irtrack::diff::{jvp, vjp};
    let v = vec![-1.7, 1.9];
    assert!(logs_of(v.clone()).is_nan());
    let g = gradient(logs_of, (v.clone(),)).unwrap();
    let dv = g.wrt[0].as_ref().unwrap().as_slice().unwrap().to_vec();
    assert!(dv[0].is_nan() && dv[1].is_nan(), "{dv:?}");
    match vjp(logs_of, (v.clone(),), 1.0) {
        Err(_) => {}
        Ok(r) => {
            let c = r.cotangents[0].as_ref().unwrap().floats().unwrap().to_vec();
            assert!(c[0].is_nan(), "{c:?}");
        }
    }
    let no_slope = |r: Result<irtrack::diff::Jvp<f64>, irtrack::diff::DiffError>| match r {
        Err(_) => true,
        Ok(j) => j.tangent.as_f64().is_some_and(f64::is_nan),
    };
    assert!(no_slope(jvp(logs_of, (v.clone(),), (vec![1.0, 0.0],))));
    // A direction that does not move the element without a value: no slope either.
    assert!(no_slope(jvp(logs_of, (v,), (vec![0.0, 1.0],))));
    // Each of `atanh`, `acosh`, `ln_1p`, `ln` outside its domain at x = 2.
    assert!(outside_domains(2.0).is_nan());
    assert!(no_slope(jvp(outside_domains, (2.0,), (1.0,))));
    // Inside its domain, `log10`'s slope.
    let j = jvp(logs_of, (vec![1.7, 1.9],), (vec![1.0, 0.0],)).unwrap();
    let t = j.tangent.as_f64().unwrap();
    assert!(
        (t - 1.0 / (1.7 * std::f64::consts::LN_10)).abs() < 1e-15,
        "{t}"
    );
}

// HSV's hue as colour crates write it: which channel is the largest is told by comparing it
// with the `max` computed from them, which is that channel on a neighbourhood of any point
// where one channel is strictly the largest.
#[tracked]
fn hue(r: f64, g: f64, b: f64) -> f64 {
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let d = max - min;
    let h = if max == r {
        ((g - b) / d).rem_euclid(6.0)
    } else if max == g {
        (b - r) / d + 2.0
    } else {
        (r - g) / d + 4.0
    };
    60.0 * h
}

// A value compared with its own clamp: inside the bounds they are one value.
#[tracked]
fn inside_unit(x: f64) -> f64 {
    let c = x.clamp(0.0, 1.0);
    if c == x {
        x * x
    } else {
        c + x.abs().min(x * x)
    }
}

/// An equality of a value with what `max`, `min` or `clamp` selected from it holds wherever
/// the selection does: not a point (a tester's round of colour code, 2026-11-28: refused as
/// `Equality`). At a tie of the channels, or at a bound, it is a point: still refused.
#[test]
fn an_equality_with_a_selected_operand_holds_around_the_point() {
    for (r, g, b) in [
        (0.8, 0.3, 0.5),
        (0.2, 0.9, 0.1),
        (0.1, 0.35, 0.6),
        (0.3, 0.2, 0.25),
    ] {
        let got = gradient(hue, (r, g, b)).unwrap_or_else(|e| panic!("at ({r}, {g}, {b}): {e}"));
        let h = 1e-6;
        let want = [
            (hue(r + h, g, b) - hue(r - h, g, b)) / (2.0 * h),
            (hue(r, g + h, b) - hue(r, g - h, b)) / (2.0 * h),
            (hue(r, g, b + h) - hue(r, g, b - h)) / (2.0 * h),
        ];
        for (k, w) in want.iter().enumerate() {
            let d = got.scalars()[k].unwrap();
            assert!(
                (d - w).abs() < 1e-5 * w.abs().max(1.0),
                "∂{k} at ({r}, {g}, {b}): {d} vs {w}"
            );
        }
        // Derivative programs read it as the gradient does.
        let j = irtrack::diff::jvp(hue, (r, g, b), (1.0, 0.0, 0.0)).unwrap();
        assert!((j.tangent.as_f64().unwrap() - got.scalars()[0].unwrap()).abs() < 1e-9);
    }
    // Two channels tie for the largest: which branch holds depends on the direction.
    assert!(gradient(hue, (0.8, 0.8, 0.5)).is_err());
    for x in [0.4, 0.75, -0.5, 1.5] {
        let g = gradient(inside_unit, (x,)).unwrap().scalars()[0].unwrap();
        let h = 1e-6;
        let want = (inside_unit(x + h) - inside_unit(x - h)) / (2.0 * h);
        assert!((g - want).abs() < 1e-6, "at {x}: {g} vs {want}");
    }
    // At the bound, `c == x` holds on one side only.
    assert!(gradient(inside_unit, (1.0,)).is_err());
}

/// A bisection generic in its residual, as root-finding crates write it.
#[tracked]
fn bisect_by<F: Fn(f64) -> f64>(f: F, lo0: f64, hi0: f64) -> f64 {
    let (mut lo, mut hi) = (lo0, hi0);
    for _ in 0..200 {
        let m = 0.5 * (lo + hi);
        if f(m) > 0.0 {
            hi = m;
        } else {
            lo = m;
        }
    }
    0.5 * (lo + hi)
}

#[tracked]
fn cbrt_by_generic_bisection(a: f64) -> f64 {
    bisect_by(|t: f64| t * t * t - a, 0.0, 10.0)
}

/// Derivative programs of converged bisections, built where the gradient refuses (a near
/// tie), gave the path's slope when called there or elsewhere: `cbrt` by halvings 0.7071 for
/// 0.3536 at 2 (and its second derivative 0), by a closure's residual 0 for 0.2100, a bracket
/// moving with `a` 0.4 for 0 (a tester, 2026-11-28). Each call now runs the recorded
/// function's program at the inputs moved by 2⁻³⁶ of their size where an ordering holds by
/// a sliver, and refuses (`ReplayError::NoDerivative`) where that takes another branch.
/// A few halvings, whose orderings hold by margins, keep their slope (the function's).
#[test]
fn derivative_programs_of_converged_bisections_are_refused() {
    use irtrack::diff::{differentiate, reverse};
    use irtrack::program::{Input, Program, ReplayError};
    let refused = |r: Result<irtrack::Value, ReplayError>, what: &str| match r {
        Err(ReplayError::NoDerivative { reason, .. }) => {
            assert!(reason.contains("within rounding"), "{what}: {reason}")
        }
        other => panic!("{what}: {other:?}"),
    };
    macro_rules! check {
        ($f:ident, $at:expr, $calls:expr) => {{
            let p = Program::from_trace(&irtrack::track($f, ($at,)), &[Input::Dynamic]).unwrap();
            let (d, r) = (differentiate(&p, &[0]).unwrap(), reverse(&p, 0).unwrap());
            for x in $calls {
                // Only points on the recorded path answer at all; there, no number.
                if p.call((x,)).is_ok() {
                    refused(d.call((x, 1.0)), stringify!($f));
                    refused(r.call((x, 1.0)), stringify!($f));
                }
            }
            refused(d.call(($at, 1.0)), stringify!($f));
            let dd = differentiate(&d, &[0]).unwrap();
            assert!(dd.call(($at, 1.0, 1.0)).is_err(), stringify!($f));
        }};
    }
    check!(cbrt_by_bisection, 2.0, [2.0 + 1e-15, 0.5]);
    check!(cbrt_by_generic_bisection, 2.0, [2.0 - 1e-15, 3.0]);
    check!(cbrt_by_closure, 2.0, [2.0 - 1e-15]);
    check!(implied_rate, 80.0, [80.0 + 1e-12]);
    check!(root_by_product, 2.0, [2.0 + 1e-15]);
    check!(root_by_tolerance, 3.0, [3.0 + 1e-13]);
    check!(cbrt_halving, 0.7, [0.7 + 1e-15]);
    let p = Program::from_trace(
        &irtrack::track(root_by_sign, (1.0, 2.0)),
        &[Input::Dynamic; 2],
    )
    .unwrap();
    let d = differentiate(&p, &[0, 1]).unwrap();
    refused(d.call((1.0, 2.0, 1.0, 0.0)), "root_by_sign");
    // At 0, where the bisection's sides are tiny (`m³` near 0): the gradient refuses, and so
    // do the programs (an audit found them answering 0; the function has no derivative there).
    assert!(gradient(cbrt_halving, (0.0,)).is_err());
    check!(cbrt_halving, 0.0, [0.0]);
    // A few halvings: the path holds around the point, and its slope is the function's.
    let p =
        Program::from_trace(&irtrack::track(a_few_halvings, (2.0,)), &[Input::Dynamic]).unwrap();
    let d = differentiate(&p, &[0]).unwrap();
    let g = d.call((2.0, 1.0)).unwrap().as_f64().unwrap();
    let h = 1e-6;
    let fd = (a_few_halvings(2.0 + h) - a_few_halvings(2.0 - h)) / (2.0 * h);
    assert!((g - fd).abs() < 1e-6, "{g} {fd}");
}

#[tracked]
fn sinc_at_one(x: f64) -> f64 {
    let d = x - 1.0;
    if d * d < 1e-30 {
        1.0 - d * d / 6.0
    } else {
        d.sin() / d
    }
}

#[tracked]
fn divided_square(x: f64, y: f64) -> f64 {
    // x + y everywhere.
    let d = x - y;
    if d * d < 1e-28 {
        x + y
    } else {
        (x * x - y * y) / d
    }
}

/// A special case guarded by a side of second order at the point (`d * d < ε` at `d = 0`)
/// holds around it to first order, and the gradient answers there (0, and [1, 1]): so do the
/// derivative programs. Moving the inputs by 2⁻³⁶ of their size crosses `ε`, and the first
/// form of the programs' near-tie check, which looked for a guard failing there, refused (an
/// audit, 2026-11-28); the margins' central differences do not move.
#[test]
fn a_second_order_guard_at_its_point_is_no_near_tie() {
    use irtrack::diff::{differentiate, reverse};
    use irtrack::program::{Input, Program};
    let g = gradient(sinc_at_one, (1.0,)).unwrap().scalars()[0].unwrap();
    assert_eq!(g, 0.0);
    let p = Program::from_trace(&irtrack::track(sinc_at_one, (1.0,)), &[Input::Dynamic]).unwrap();
    let d = differentiate(&p, &[0]).unwrap().call((1.0, 1.0)).unwrap();
    assert_eq!(d.as_f64(), Some(0.0));
    let r = reverse(&p, 0).unwrap().call((1.0, 1.0)).unwrap();
    assert_eq!(r.as_f64(), Some(0.0));
    for at in [1.0, 3.0] {
        let g = gradient(divided_square, (at, at)).unwrap().scalars();
        assert_eq!(g, [Some(1.0), Some(1.0)]);
        let p = Program::from_trace(
            &irtrack::track(divided_square, (at, at)),
            &[Input::Dynamic; 2],
        )
        .unwrap();
        let d = differentiate(&p, &[0, 1])
            .unwrap()
            .call((at, at, 1.0, 0.0))
            .unwrap();
        assert_eq!(d.as_f64(), Some(1.0));
    }
}
