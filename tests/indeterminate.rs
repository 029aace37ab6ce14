//! A NaN in a derivative made from numbers is an error naming where it was made, never a
//! returned number: `(x - x).sqrt()` is constant, but the chain rule multiplies each partial of
//! `x - x` by `sqrt`'s infinite slope at 0 before they cancel, and `∞ − ∞` is NaN (the class the
//! random-program tester's seed 4 found: units 102, 1267, 2139). A NaN that is the function's
//! own (a NaN argument, a NaN value) passes through as it is.

#![allow(clippy::eq_op)] // The cancellations `x - x`, `x / x` are the subject.

use irtrack::diff::{hessian, hessian_by, jacobian, jvp, vjp, DiffError, HessianMethod};
use irtrack::grad::{register_rule, with_general_sweep, GradError, Indeterminacy};
use irtrack::program::ReplayError;
use irtrack::{gradient, pullback, track, tracked};

#[tracked]
fn sqrt_of_difference(x: f64) -> f64 {
    (x - x).sqrt()
}

#[tracked]
fn acos_of_quotient(x: f64) -> f64 {
    (x / x).acos()
}

#[tracked]
fn difference_bound_first(x: f64) -> f64 {
    let a = x - x;
    a.sqrt()
}

#[tracked]
fn cbrt_of_difference(x: f64) -> f64 {
    (x - x).cbrt() + x
}

#[tracked]
fn difference_of_roots(x: f64) -> f64 {
    x.sqrt() - x.sqrt()
}

#[tracked]
fn through_a_call(x: f64, y: f64) -> f64 {
    sqrt_of_difference(x) * 2.0 + y * y
}

#[tracked]
fn element_difference(v: Vec<f64>) -> f64 {
    (v[0] - v[0]).sqrt() + v[1] * 3.0
}

/// The statement the error names, and the infinite slope it names.
fn cancellation(e: &GradError) -> (String, Option<String>) {
    match e {
        GradError::Indeterminate {
            at,
            cause: Indeterminacy::Cancellation { slope },
        } => (
            at.statement.clone(),
            slope.as_ref().map(|s| s.statement.clone()),
        ),
        e => panic!("not a cancellation: {e:?}"),
    }
}

#[test]
fn a_cancellation_before_an_infinite_slope_is_an_error_naming_both() {
    // Seed 4's three units, at points in and out of the domain's interior: the functions are
    // constant (0, 0, 0) where their values are numbers, so no number but 0 would be right.
    for x in [1.0, -2.5, 1e-300, 7e10] {
        let e = gradient(sqrt_of_difference, (x,)).unwrap_err();
        let (at, slope) = cancellation(&e);
        assert_eq!(at, "%1 (x)", "{e}");
        assert_eq!(slope.as_deref(), Some("%3 = %2.sqrt()"), "{e}");
        let text = e.to_string();
        assert!(
            text.contains("+∞ and −∞") && text.contains("sqrt_of_difference"),
            "{text}"
        );

        let e = gradient(difference_bound_first, (x,)).unwrap_err();
        assert_eq!(cancellation(&e).1.as_deref(), Some("%3 = %2.sqrt()"), "{e}");
    }
    for x in [1.0, 0.5, -3.0, 1e200] {
        let e = gradient(acos_of_quotient, (x,)).unwrap_err();
        assert_eq!(cancellation(&e).1.as_deref(), Some("%3 = %2.acos()"), "{e}");
    }
    let e = gradient(cbrt_of_difference, (2.0,)).unwrap_err();
    assert_eq!(cancellation(&e).1.as_deref(), Some("%3 = %2.cbrt()"), "{e}");
    // Two infinite slopes, one per operand of the cancellation.
    let e = gradient(difference_of_roots, (0.0,)).unwrap_err();
    assert_eq!(cancellation(&e).0, "%1 (x)", "{e}");
}

#[test]
fn the_general_sweep_and_the_fast_path_agree_on_the_error() {
    let fast = gradient(sqrt_of_difference, (2.0,)).unwrap_err();
    let general = with_general_sweep(|| gradient(sqrt_of_difference, (2.0,))).unwrap_err();
    assert_eq!(fast, general);
}

#[test]
fn the_error_names_the_callee_where_the_nan_was_made() {
    let e = gradient(through_a_call, (4.0, 1.5)).unwrap_err();
    let GradError::Indeterminate { at, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(at.function, "sqrt_of_difference", "{e}");
    // Away from the cancellation the same function has its gradient.
    #[tracked]
    fn without(x: f64, y: f64) -> f64 {
        x * 0.0 + y * y
    }
    assert_eq!(
        gradient(without, (4.0, 1.5)).unwrap().scalars(),
        [Some(0.0), Some(3.0)]
    );
}

#[test]
fn a_vector_argument_names_its_element_read() {
    let e = gradient(element_difference, (vec![2.0, 5.0],)).unwrap_err();
    assert!(matches!(e, GradError::Indeterminate { .. }), "{e:?}");
}

#[test]
fn pullback_and_backward_refuse_it_too() {
    let (_, back) = pullback(sqrt_of_difference, (3.0,));
    assert!(matches!(
        back.call(1.0),
        Err(GradError::Indeterminate { .. })
    ));
    let mut trace = track(sqrt_of_difference, (3.0,));
    let e = trace.backward(1.0).unwrap_err();
    assert!(matches!(e, GradError::Indeterminate { .. }), "{e:?}");
    // Nothing was written into the trace.
    let x = trace.root().call_arguments()[0];
    assert!(x
        .metadata::<irtrack::Tangent>(irtrack::grad::ADJOINT)
        .is_none());
}

#[test]
fn a_nan_made_and_then_cut_by_a_zero_partial_leaves_the_right_gradient() {
    // `y = x * 0` gets a NaN sensitivity from `(y - y).sqrt()`, which the zero partial of
    // `x * 0` absorbs: d/dx = 1 exactly.
    #[tracked]
    fn absorbed(x: f64) -> f64 {
        let y = x * 0.0;
        (y - y).sqrt() + x
    }
    assert_eq!(gradient(absorbed, (3.0,)).unwrap().scalars(), [Some(1.0)]);
    assert_eq!(
        vjp(absorbed, (3.0,), 1.0).unwrap().cotangents[0]
            .as_ref()
            .unwrap()
            .as_f64(),
        Some(1.0)
    );
}

#[test]
fn the_functions_own_nan_passes_through() {
    // A NaN value: sqrt of a negative number. Its derivative is NaN, as its value is.
    #[tracked]
    fn root(x: f64) -> f64 {
        x.sqrt() * 2.0
    }
    let g = gradient(root, (-1.0,)).unwrap();
    assert!(g.value.is_nan());
    assert!(g.scalars()[0].unwrap().is_nan());
    // A NaN argument: d(x²)/dx = 2x is NaN; so is d(2x)/dx, whose formula is 2: at a NaN
    // the function has no value, and no derivative (it was 2 until 2026-11-28, when the same
    // rule gave `x.min(f64::NAN)` at a NaN the slope 1).
    #[tracked]
    fn square(x: f64) -> f64 {
        x * x
    }
    let g = gradient(square, (f64::NAN,)).unwrap();
    assert!(g.scalars()[0].unwrap().is_nan());
    #[tracked]
    fn double(x: f64) -> f64 {
        x * 2.0
    }
    assert!(gradient(double, (f64::NAN,)).unwrap().scalars()[0]
        .unwrap()
        .is_nan());
    // A NaN seed.
    let (_, back) = pullback(double, (1.0,));
    assert!(back.call(f64::NAN).unwrap()[0]
        .as_ref()
        .unwrap()
        .as_scalar()
        .unwrap()
        .is_nan());
    // An infinite slope alone is a number: +∞ (the derivative of sqrt at 0 from the right).
    let g = gradient(root, (0.0,)).unwrap();
    assert_eq!(g.scalars(), [Some(f64::INFINITY)]);
}

#[test]
fn a_rule_with_a_nan_partial_where_the_value_is_a_number_is_named() {
    #[tracked]
    fn kink(x: f64) -> f64 {
        x.abs()
    }
    #[tracked]
    fn f(x: f64) -> f64 {
        kink(x) + x
    }
    // A user's rule that says "undefined" at 0 the IEEE way: 0/0.
    register_rule(kink, |(x,): (f64,), dy: f64| dy * x / x.abs());
    let e = gradient(f, (0.0,)).unwrap_err();
    match &e {
        GradError::Indeterminate {
            at,
            cause: Indeterminacy::Partial,
        } => assert_eq!(at.statement, "%2 = kink(%1)", "{e}"),
        e => panic!("{e:?}"),
    }
    assert!(
        e.to_string().contains("not differentiable at this point"),
        "{e}"
    );
    // Elsewhere the rule is a number.
    assert_eq!(gradient(f, (-2.0,)).unwrap().scalars(), [Some(0.0)]);
}

fn indeterminate(e: DiffError) -> String {
    match e {
        DiffError::Indeterminate { operation, at } => format!("{operation} at {at}"),
        e => panic!("not indeterminate: {e:?}"),
    }
}

#[test]
fn derivative_programs_refuse_it_too() {
    // Reverse mode: the two infinite cotangents of `x` are summed.
    let e = vjp(sqrt_of_difference, (2.0,), 1.0).unwrap_err();
    assert!(indeterminate(e).contains("sqrt_of_difference"));
    // Forward mode: the tangents of the two roots are ∞ and ∞, their difference NaN.
    let e = jvp(difference_of_roots, (0.0,), (1.0,)).unwrap_err();
    assert_eq!(indeterminate(e), "- at difference_of_roots [§1:%4]");
    let e = jacobian(difference_of_roots, (0.0,)).unwrap_err();
    assert!(indeterminate(e).starts_with("- at "));
    // Forward over reverse goes through the reverse program's sum.
    let e = hessian(acos_of_quotient, (1.0,)).unwrap_err();
    assert!(indeterminate(e).contains("acos_of_quotient"));
    // Where forward mode sees the cancellation first (the tangent of `x - x` is exactly 0),
    // it has the derivative: 0.
    assert_eq!(
        jvp(sqrt_of_difference, (2.0,), (1.0,))
            .unwrap()
            .tangent
            .as_f64(),
        Some(0.0)
    );
    // Forward twice: the tangent of `x / x` is (v - (x / x) v) / x, 0 here, and 0 everywhere
    // only because `x / x` is 1 everywhere, which no number at this point shows; it meets the
    // infinite slope of `acos` at 1 (0 / 0). Until 2026-11-28 that 0 was taken for exact and
    // the Hessian was 0, the truth (`acos(x / x)` is 0 for every x ≠ 0); but the same
    // arithmetic gives `(v - x v) / x` at x = 1, a 0 at that point only. The derivative
    // cannot tell them apart: an error, as forward over reverse gives.
    let e = hessian_by(acos_of_quotient, (1.0,), HessianMethod::ForwardOverForward).unwrap_err();
    assert!(
        matches!(e, DiffError::Replay(ReplayError::ZeroAtPoint(_))),
        "{e:?}"
    );
}

#[test]
fn derivative_programs_pass_the_functions_own_nan_through() {
    #[tracked]
    fn root(x: f64) -> f64 {
        x.sqrt() * 2.0
    }
    assert!(jvp(root, (-1.0,), (1.0,))
        .unwrap()
        .tangent
        .as_f64()
        .unwrap()
        .is_nan());
    assert!(vjp(root, (-1.0,), 1.0).unwrap().cotangents[0]
        .as_ref()
        .unwrap()
        .as_f64()
        .unwrap()
        .is_nan());
}

#[test]
fn a_quotients_partial_in_its_denominator_does_not_overflow() {
    // d(a / b)/db = -a / b², which b² turns into -0 (at 1e200) or -∞ (at 1e-200) where the
    // derivative is a number: -(a / b) / b is the same derivative without the square. At
    // `x / x` that was also what hid the cancellation: -∞ · 1e-200 + ∞ · (-0) = -∞.
    #[tracked]
    fn quotient(a: f64, b: f64) -> f64 {
        a / b
    }
    for (a, b, truth) in [
        (1e200, 1e200, -1e-200),
        (1e-200, 1e-200, -1e200),
        (3.0, 2.0, -0.75),
    ] {
        let fast = gradient(quotient, (a, b)).unwrap().scalars();
        let general = with_general_sweep(|| gradient(quotient, (a, b)))
            .unwrap()
            .scalars();
        assert_eq!(fast, [Some(1.0 / b), Some(truth)]);
        assert_eq!(general, fast);
        let r = vjp(quotient, (a, b), 1.0).unwrap();
        assert_eq!(r.cotangents[1].as_ref().unwrap().as_f64(), Some(truth));
    }
}

// A zero that is only a limit: `1 / ∞` is 0, but as the slope of `1 / y` at `y = ∞` it stands
// for a small number the infinite slope below it may multiply into anything. `1 / (1 / x)` is
// `x`, slope 1, also at 0 (where `1 / x` is ∞): the sweep used to give 0 (seed 6, unit 530).

#[tracked]
fn reciprocal(x: f64) -> f64 {
    x.powi(-1)
}

#[tracked]
fn reciprocal_twice(x: f64) -> f64 {
    reciprocal(reciprocal(x))
}

#[tracked]
fn quotient_twice(x: f64) -> f64 {
    1.0 / (1.0 / x)
}

#[test]
fn a_limit_zero_times_an_infinite_slope_is_an_error() {
    let e = gradient(reciprocal_twice, (0.0,)).unwrap_err();
    match &e {
        GradError::Indeterminate {
            at,
            cause: Indeterminacy::Limit { zero },
        } => {
            assert_eq!(at.statement, "%2 = %1.powi(-1)", "{e}");
            assert_eq!(zero.function, "reciprocal", "{e}");
        }
        e => panic!("{e:?}"),
    }
    assert!(e.to_string().contains("0 · ∞"), "{e}");
    let e = gradient(quotient_twice, (0.0,)).unwrap_err();
    assert!(
        matches!(&e, GradError::Indeterminate { cause: Indeterminacy::Limit { zero }, .. } if zero.statement == "%3 = 1.0 / %2"),
        "{e:?}"
    );
    let general = with_general_sweep(|| gradient(quotient_twice, (0.0,))).unwrap_err();
    assert_eq!(e, general);
    // Derivative programs: the kernels would absorb the limit zero.
    assert!(matches!(
        vjp(quotient_twice, (0.0,), 1.0),
        Err(DiffError::Limit { .. })
    ));
    assert!(matches!(
        jvp(quotient_twice, (0.0,), (1.0,)),
        Err(DiffError::Limit { .. })
    ));
    assert!(matches!(
        hessian(quotient_twice, (0.0,)),
        Err(DiffError::Limit { .. })
    ));
    // The same where the slope of the outer reciprocal underflows: (10³⁰⁰)⁻² is 0 in `f64`,
    // the inner one's slope -10⁶⁰⁰ is -∞.
    assert!(matches!(
        gradient(reciprocal_twice, (1e-300,)),
        Err(GradError::Indeterminate {
            cause: Indeterminacy::Limit { .. },
            ..
        })
    ));
    assert!(matches!(
        vjp(quotient_twice, (1e-300,), 1.0),
        Err(DiffError::Limit(_))
    ));
    // Away from the infinities, the slope 1 exactly.
    for x in [2.0, -0.5, 1e-100] {
        assert_eq!(
            gradient(reciprocal_twice, (x,)).unwrap().scalars(),
            [Some(1.0)]
        );
        assert_eq!(
            gradient(quotient_twice, (x,)).unwrap().scalars(),
            [Some(1.0)]
        );
        let j = jvp(quotient_twice, (x,), (1.0,)).unwrap().tangent.as_f64();
        assert!((j.unwrap() - 1.0).abs() < 1e-15, "{j:?}");
    }
}

#[test]
fn infinite_values_with_a_right_derivative_keep_it() {
    // The slope of a quotient at 0 is infinite, and that is the answer (one-sided).
    #[tracked]
    fn over(a: f64, b: f64) -> f64 {
        a / b
    }
    let g = gradient(over, (1.0, 0.0)).unwrap();
    assert_eq!(g.scalars()[0], Some(f64::INFINITY));
    let j = jvp(over, (1.0, 0.0), (1.0, 0.0)).unwrap();
    assert_eq!(j.tangent.as_f64(), Some(f64::INFINITY));
    // An infinite value that `min` does not select: its side's slope is exactly 0.
    #[tracked]
    fn capped(x: f64) -> f64 {
        (1.0 / x).min(5.0) + x
    }
    assert_eq!(gradient(capped, (0.0,)).unwrap().scalars(), [Some(1.0)]);
    // A limit zero that meets only finite slopes stays 0: 1 / (x·10⁶⁰⁰) has the slope
    // -10⁻⁶⁰⁰/x², 0 in `f64`.
    #[tracked]
    fn vanishing(x: f64) -> f64 {
        1.0 / ((x * 1e300) * 1e300)
    }
    assert_eq!(gradient(vanishing, (1.0,)).unwrap().scalars(), [Some(-0.0)]);
}

#[tracked]
fn naive_sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[tracked]
fn stable_sigmoid(x: f64) -> f64 {
    x.exp() / (1.0 + x.exp())
}

#[test]
fn a_sigmoid_written_naively_is_refused_far_out_and_its_stable_form_is_not() {
    // exp(1000) is ∞: 1 / (1 + ∞) is 0, its slope a limit, exp's slope ∞.
    let e = gradient(naive_sigmoid, (-1000.0,)).unwrap_err();
    assert!(e.to_string().contains("sigmoid"), "{e}");
    // e^-1000 is 0 in `f64`: so is the slope.
    assert_eq!(
        gradient(stable_sigmoid, (-1000.0,)).unwrap().scalars(),
        [Some(0.0)]
    );
    // Where nothing is infinite the two agree with σ(1 - σ).
    let s = 1.0 / (1.0 + 10f64.exp());
    let want = s * (1.0 - s);
    let a = gradient(naive_sigmoid, (-10.0,)).unwrap().scalars()[0].unwrap();
    let b = gradient(stable_sigmoid, (-10.0,)).unwrap().scalars()[0].unwrap();
    assert!(
        (a - want).abs() < 1e-18 && (b - want).abs() < 1e-18,
        "{a} {b} {want}"
    );
}

// Derivative programs run by the user at new inputs: nothing records a trace there, so the
// programs themselves must refuse a limit zero absorbed by their products (`times` would give
// 0 at `1 / (1 / x)`'s 0, slope 1), and keep the zeros that are exact.

fn programs_of<F: Fn(f64) -> f64 + Copy + 'static>(f: F) -> [irtrack::program::Program; 3] {
    use irtrack::program::{Input, Program};
    let p = Program::from_trace(&track(f, (1.0,)), &[Input::Dynamic]).unwrap();
    let d = irtrack::diff::differentiate(&p, &[0]).unwrap();
    let r = irtrack::diff::reverse(&p, 0).unwrap();
    let dd = irtrack::diff::differentiate(&d, &[0]).unwrap();
    [d, r, dd]
}

#[test]
fn a_derivative_program_run_at_a_limit_point_is_an_error() {
    use irtrack::program::Program;
    let refused = |name: &str, got: Result<irtrack::Value, ReplayError>| match got {
        Err(e @ ReplayError::Indeterminate(_)) => {
            assert!(e.to_string().contains("only a limit"), "{name}: {e}");
        }
        other => panic!("{name}: {other:?}"),
    };
    let every_way = |name: &str, [d, r, dd]: &[Program; 3], x: f64| {
        refused(&format!("{name} jvp at {x}"), d.call((x, 1.0)));
        refused(&format!("{name} vjp at {x}"), r.call((x, 1.0)));
        refused(&format!("{name} jvp at {x}"), d.call_interpreted((x, 1.0)));
        refused(&format!("{name} vjp at {x}"), r.call_interpreted((x, 1.0)));
        refused(&format!("{name} 2nd at {x}"), dd.call((x, 1.0, 1.0)));
    };
    // (Fn items, not pointers: a call through a pointer is not claimed.)
    let quotient = programs_of(quotient_twice);
    let powers = programs_of(reciprocal_twice);
    every_way("1 / (1 / x)", &quotient, 0.0);
    every_way("powi(powi(x, -1), -1)", &powers, 0.0);
    // Slopes of 10⁶⁰⁰ and 10⁻⁶⁰⁰: ∞ and 0 in `f64`.
    every_way("powi(powi(x, -1), -1)", &powers, 1e-300);
    for [d, r, _] in [&quotient, &powers] {
        for x in [2.0, -0.5, 1e-100] {
            assert_eq!(r.call((x, 1.0)).unwrap().as_f64(), Some(1.0), "{x}");
            let j = d.call((x, 1.0)).unwrap().as_f64().unwrap();
            assert!((j - 1.0).abs() < 1e-15, "{x}: {j}");
        }
    }
}

// `x * x` is 0 in `f64` at 10⁻²⁰⁰, so the slope of `sqrt` there is ∞; the slope of
// `sqrt(x * x)` is 1. Every AD tool that differentiates the operations run says ∞.
#[tracked]
fn magnitude(x: f64) -> f64 {
    (x * x).sqrt()
}

// `exp(-1000)` is 0 in `f64`, `ln 0` is -∞ and its slope there ∞; `ln(exp(x))` is `x`.
#[tracked]
fn log_of_exp(x: f64) -> f64 {
    x.exp().ln()
}

#[test]
fn an_infinite_gradient_made_by_an_underflow_is_an_error() {
    for (e, name) in [
        (gradient(magnitude, (1e-200,)).unwrap_err(), "magnitude"),
        (
            with_general_sweep(|| gradient(magnitude, (1e-200,))).unwrap_err(),
            "magnitude (general sweep)",
        ),
        (
            pullback(magnitude, (1e-200,)).1.call(1.0).unwrap_err(),
            "magnitude (pullback)",
        ),
    ] {
        match &e {
            GradError::Indeterminate {
                cause: Indeterminacy::Underflow { zero },
                ..
            } => assert_eq!(zero.statement, "%2 = %1 * %1", "{name}: {e}"),
            e => panic!("{name}: {e:?}"),
        }
        assert!(e.to_string().contains("only as a limit"), "{name}: {e}");
    }
    // The mirror: `exp`'s slope at -1000 underflows to 0 under `ln`'s infinite one; the
    // gradient was 0.
    for e in [
        gradient(log_of_exp, (-1000.0,)).unwrap_err(),
        with_general_sweep(|| gradient(log_of_exp, (-1000.0,))).unwrap_err(),
        pullback(log_of_exp, (-1000.0,)).1.call(1.0).unwrap_err(),
    ] {
        match &e {
            GradError::Indeterminate {
                at,
                cause: Indeterminacy::LimitSlope,
            } => assert_eq!(at.statement, "%2 = %1.exp()", "{e}"),
            e => panic!("{e:?}"),
        }
        assert!(e.to_string().contains("only as a limit"), "{e}");
    }
    assert!(vjp(log_of_exp, (-1000.0,), 1.0).is_err());
    assert!(jvp(log_of_exp, (-1000.0,), (1.0,)).is_err());
    // Away from the underflow, and at an exact 0, the gradients are right.
    assert_eq!(gradient(magnitude, (3.0,)).unwrap().scalars(), [Some(1.0)]);
    assert_eq!(
        gradient(magnitude, (-1e-100,)).unwrap().scalars(),
        [Some(-1.0)]
    );
    // At 0 `sqrt(x * x)` is `|x|`, which has no derivative: `x * x`'s slope `2x` is 0 there
    // only, and meets `sqrt`'s infinite one (it was 0, before a zero at a point was told from
    // an exact one).
    assert!(matches!(
        gradient(magnitude, (0.0,)),
        Err(GradError::Indeterminate { .. })
    ));
    assert_eq!(
        gradient(log_of_exp, (-700.0,)).unwrap().scalars(),
        [Some(1.0)]
    );
    // An infinite slope at an exact 0 is the derivative's own: `sqrt` at 0, `1 / x` at 0.
    #[tracked]
    fn root(x: f64) -> f64 {
        x.sqrt()
    }
    assert_eq!(
        gradient(root, (0.0,)).unwrap().scalars(),
        [Some(f64::INFINITY)]
    );
    #[tracked]
    fn inverse(x: f64) -> f64 {
        1.0 / x
    }
    assert_eq!(
        gradient(inverse, (0.0,)).unwrap().scalars(),
        [Some(f64::NEG_INFINITY)]
    );
    // An overflow is not a limit: the slope of `exp` at 10³ overflows with its value.
    #[tracked]
    fn grow(x: f64) -> f64 {
        x.exp()
    }
    assert_eq!(
        gradient(grow, (1e3,)).unwrap().scalars(),
        [Some(f64::INFINITY)]
    );
}

#[test]
fn an_infinite_derivative_made_by_an_underflow_is_an_error() {
    let [d, r, _] = programs_of(magnitude);
    for p in [&d, &r] {
        let e = p.call((1e-200, 1.0)).unwrap_err();
        assert!(e.to_string().contains("`*`"), "{e}");
        assert_eq!(p.call((3.0, 1.0)).unwrap().as_f64(), Some(1.0));
    }
    // At 0 exactly, `x * x` is 0, and the slope of `sqrt` ∞ there in earnest; the tangent 2x
    // that meets it is 0 at this point only. Until 2026-11-28 that 0 absorbed the ∞ and the
    // derivative was 0; but `sqrt(x * x)` is |x|, whose slope is -1 on the left and 1 on the
    // right (central differences: (|h| - |-h|) / 2h = 0, one-sided ±1): no derivative.
    for p in [&d, &r] {
        let e = p.call((0.0, 1.0)).unwrap_err();
        assert!(matches!(e, ReplayError::ZeroAtPoint(_)), "{e:?}");
    }
    // A derivative that is infinite in earnest stays: the slope of `1 / x` at 0.
    #[tracked]
    fn inverse(x: f64) -> f64 {
        1.0 / x
    }
    let [d, r, _] = programs_of(inverse);
    assert_eq!(
        d.call((0.0, 1.0)).unwrap().as_f64(),
        Some(f64::NEG_INFINITY)
    );
    assert_eq!(
        r.call((0.0, 1.0)).unwrap().as_f64(),
        Some(f64::NEG_INFINITY)
    );
}

#[test]
fn a_derivative_program_keeps_the_zeros_that_are_exact() {
    // The side `min` does not take has the slope 0 exactly, even where its own is infinite.
    #[tracked]
    fn capped(x: f64) -> f64 {
        (1.0 / x).min(5.0) + x
    }
    let [d, r, _] = programs_of(capped);
    assert_eq!(r.call((0.0, 1.0)).unwrap().as_f64(), Some(1.0));
    assert_eq!(d.call((0.0, 1.0)).unwrap().as_f64(), Some(1.0));
    // A zero tangent along `y` meets the infinite slope of `sqrt` at 0: `jvp` along `y` is 1.
    #[tracked]
    fn root_plus(x: f64, y: f64) -> f64 {
        x.sqrt() + y
    }
    use irtrack::program::{Input, Program};
    let p = Program::from_trace(&track(root_plus, (1.0, 1.0)), &[Input::Dynamic; 2]).unwrap();
    let d = irtrack::diff::differentiate(&p, &[0, 1]).unwrap();
    assert_eq!(d.call((0.0, 2.0, 0.0, 1.0)).unwrap().as_f64(), Some(1.0));
    // The naive sigmoid far out: refused, as `gradient` refuses it; its stable form is not.
    let [_, r, _] = programs_of(naive_sigmoid);
    assert!(r.call((-1000.0, 1.0)).is_err());
    let [_, r, _] = programs_of(stable_sigmoid);
    assert_eq!(r.call((-1000.0, 1.0)).unwrap().as_f64(), Some(0.0));
}

#[test]
fn an_array_derivative_program_refuses_a_limit_zero_elementwise() {
    use irtrack::program::{Input, Program, ReplayError};
    use ndarray::{array, Array1};
    #[tracked]
    fn twice_inverted(x: Array1<f64>) -> f64 {
        let y = 1.0 / &x;
        let z = 1.0 / &y;
        z.sum()
    }
    let trace = track(twice_inverted, (array![1.0, 2.0],));
    let p = Program::from_trace(&trace, &[Input::Dynamic]).unwrap();
    let r = irtrack::diff::reverse(&p, 0).unwrap();
    // Element 0 at 0: its slope is 1, which `times` would have made 0.
    match r.call((array![0.0, 2.0], 1.0)) {
        Err(e @ ReplayError::Indeterminate(_)) => {
            assert!(e.to_string().contains("only a limit"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    let g = r.call((array![3.0, -0.5], 1.0)).unwrap();
    assert_eq!(g.downcast_ref::<Array1<f64>>().unwrap(), &array![1.0, 1.0]);
}

// An overflowed slope: `1 / x` at 10⁻¹⁶⁰ has the slope -10³²⁰, past `f64`'s range, so it is
// -∞ in `f64`. Where nothing smaller meets it, the derivative is past the range too and -∞ is
// its value; where a factor below 1 meets it, the product may be any size: `1 / (1 / x)` has
// the slope 1 everywhere, and at 10⁻¹⁶⁰ every sweep and derivative program used to return ∞.

#[tracked]
fn scaled_reciprocal(x: f64) -> f64 {
    1e-300 * x.powi(-1)
}

#[tracked]
fn scaled_up(x: f64) -> f64 {
    x * 1e-300 * 1e300 * 1e300
}

#[test]
fn an_overflowed_slope_met_by_a_smaller_factor_is_an_error() {
    let overflow = |name: &str, e: GradError| match &e {
        GradError::Indeterminate {
            cause: Indeterminacy::Overflow,
            ..
        } => assert!(e.to_string().contains("overflowed"), "{name}: {e}"),
        e => panic!("{name}: {e:?}"),
    };
    for x in [1e-160, 1e-155, 1e160] {
        overflow("gradient", gradient(quotient_twice, (x,)).unwrap_err());
        overflow(
            "general sweep",
            with_general_sweep(|| gradient(quotient_twice, (x,))).unwrap_err(),
        );
        overflow(
            "pullback",
            pullback(quotient_twice, (x,)).1.call(1.0).unwrap_err(),
        );
    }
    // The sensitivity 10⁻³⁰⁰ meets the slope -10³²⁰ of `powi`: the slope of the whole is
    // -10²⁰, well inside the range.
    overflow(
        "scaled",
        gradient(scaled_reciprocal, (1e-160,)).unwrap_err(),
    );
    let e = gradient(quotient_twice, (1e-160,)).unwrap_err();
    match &e {
        GradError::Indeterminate { at, .. } => assert_eq!(at.statement, "%2 = 1.0 / %1", "{e}"),
        e => panic!("{e:?}"),
    }
    // Programs: the same points refused, by the operation of the derivative that overflowed.
    let refused = |name: &str, got: Result<irtrack::Value, ReplayError>| match got {
        Err(e @ ReplayError::Overflow { .. }) => {
            assert!(e.to_string().contains("overflowed"), "{name}: {e}")
        }
        other => panic!("{name}: {other:?}"),
    };
    let [d, r, _] = programs_of(quotient_twice);
    refused("jvp at 1e-160", d.call((1e-160, 1.0)));
    refused(
        "jvp at 1e-160, interpreted",
        d.call_interpreted((1e-160, 1.0)),
    );
    refused("vjp at 1e160", r.call((1e160, 1.0)));
    refused(
        "vjp at 1e160, interpreted",
        r.call_interpreted((1e160, 1.0)),
    );
    let [d, r, _] = programs_of(scaled_reciprocal);
    refused("scaled jvp", d.call((1e-160, 1.0)));
    refused("scaled vjp", r.call((1e-160, 1.0)));
    assert!(jvp(scaled_reciprocal, (1e-160,), (1.0,)).is_err());
    assert!(vjp(scaled_reciprocal, (1e-160,), 1.0).is_err());
    // No slope overflows, but the sensitivity does on its way back: 10³⁰⁰ · 10³⁰⁰, then
    // 10⁻³⁰⁰; the slope of the whole is 10³⁰⁰, and the sweep gave ∞.
    let e = gradient(scaled_up, (1.0,)).unwrap_err();
    overflow("sensitivity", e);
    refused("scaled_up vjp", programs_of(scaled_up)[1].call((1.0, 1.0)));
    let j = programs_of(scaled_up)[0].call((1.0, 1.0)).unwrap().as_f64();
    assert_eq!(j, Some(1e300 * (1e-300 * 1e300)));
    // Away from the overflow, the same functions' derivatives are right.
    assert_eq!(
        gradient(quotient_twice, (1e-100,)).unwrap().scalars(),
        [Some(1.0)]
    );
    let g = gradient(scaled_reciprocal, (1e-100,)).unwrap().scalars()[0].unwrap();
    assert!((g + 1e-100).abs() <= 1e-115, "{g}");
}

#[test]
fn a_derivative_past_the_range_keeps_its_infinity() {
    // `1 / x` at 10⁻¹⁶⁰: the slope -10³²⁰ overflows and nothing smaller meets it.
    #[tracked]
    fn inverse(x: f64) -> f64 {
        1.0 / x
    }
    assert_eq!(
        gradient(inverse, (1e-160,)).unwrap().scalars(),
        [Some(f64::NEG_INFINITY)]
    );
    let [d, r, _] = programs_of(inverse);
    assert_eq!(
        d.call((1e-160, 1.0)).unwrap().as_f64(),
        Some(f64::NEG_INFINITY)
    );
    assert_eq!(
        r.call((1e-160, 1.0)).unwrap().as_f64(),
        Some(f64::NEG_INFINITY)
    );
    // Twice that: a factor of 2 cannot bring it back.
    #[tracked]
    fn doubled(x: f64) -> f64 {
        2.0 * (1.0 / x)
    }
    assert_eq!(
        gradient(doubled, (1e-160,)).unwrap().scalars(),
        [Some(f64::NEG_INFINITY)]
    );
    // `asin` at 1: its slope is infinite in earnest (a pole), not an overflow, and the
    // factor 0.5 keeps it infinite.
    #[tracked]
    fn half_asin(x: f64) -> f64 {
        (0.5 * x).asin()
    }
    assert_eq!(
        gradient(half_asin, (2.0,)).unwrap().scalars(),
        [Some(f64::INFINITY)]
    );
}

#[tracked]
fn inv_square(x: f64) -> f64 {
    1.0 / (x * x)
}

#[tracked]
fn log2_base(y: f64) -> f64 {
    2.0f64.log(y)
}

#[tracked]
fn cube_of_cbrt(x: f64) -> f64 {
    x.cbrt().powi(3)
}

#[tracked]
fn root_squared(x: f64) -> f64 {
    x.sqrt() * x.sqrt()
}

#[tracked]
fn inverse_square(x: f64) -> f64 {
    1.0 / (x * x)
}

#[tracked]
fn acos_of_cos(x: f64) -> f64 {
    x.cos().acos()
}

#[tracked]
fn constant_zero_factor(x: f64) -> f64 {
    0.0 * x.sqrt() + x
}

/// A slope that is 0 at this point only — made by an input-dependent operand that is 0 here
/// (`3u²` of `u.powi(3)` at `u = cbrt(0) = 0`, `2x` of `x * x`, `-sin x` at 0) — meeting an
/// infinite slope is `0 · ∞`, which the point does not decide: `x.cbrt().powi(3)` is `x`, with
/// the slope 1, and `sqrt(x)²` too; `1 / x²` has no derivative at 0, and `acos(cos x)` is `|x|`
/// there. All four gave 0 (found 2026-11-27 by an adversarial run); now each is an error. A
/// zero that is exact around the point (a constant factor 0, a flat operation) still absorbs
/// the infinity.
#[test]
fn a_zero_slope_at_a_point_does_not_absorb_an_infinite_one() {
    for e in [
        gradient(cube_of_cbrt, (0.0,)).unwrap_err(),
        gradient(root_squared, (0.0,)).unwrap_err(),
        gradient(inverse_square, (0.0,)).unwrap_err(),
        gradient(acos_of_cos, (0.0,)).unwrap_err(),
        with_general_sweep(|| gradient(cube_of_cbrt, (0.0,))).unwrap_err(),
        pullback(cube_of_cbrt, (0.0,)).1.call(1.0).unwrap_err(),
    ] {
        assert!(matches!(e, GradError::Indeterminate { .. }), "{e}");
    }
    assert!(jvp(cube_of_cbrt, (0.0,), (1.0,)).is_err());
    assert!(vjp(inverse_square, (0.0,), 1.0).is_err());
    // Off the point, the slopes are the closed forms.
    let g = gradient(cube_of_cbrt, (0.5,)).unwrap().scalars()[0].unwrap();
    assert!((g - 1.0).abs() < 1e-12, "{g}");
    assert_eq!(
        gradient(constant_zero_factor, (0.0,)).unwrap().scalars(),
        [Some(1.0)]
    );
}

#[tracked]
fn floor_times_root(x: f64) -> f64 {
    x.floor() * x.sqrt()
}

#[tracked]
fn scaled_root(x: f64, y: f64) -> f64 {
    y * x.sqrt()
}

fn zero_at_point(name: &str, got: Result<irtrack::Value, ReplayError>) {
    match got {
        Err(e @ ReplayError::ZeroAtPoint(_)) => {
            assert!(
                e.to_string().contains("holds at this point only"),
                "{name}: {e}"
            )
        }
        other => panic!("{name}: {other:?}"),
    }
}

/// A zero may absorb an infinity only where it is zero on a neighbourhood: a constant, a
/// direction, a piecewise-constant operation's value. A value of the differentiated inputs
/// that is 0 at this point only (`2x` at `x = 0`, `ln y` at `y = 1`) meeting ∞ is `0 · ∞`:
/// until 2026-11-28 derivative programs took it for an exact 0 and answered, wrongly:
///
/// - `1 / (x * x)` at 0: f' = -2 / x³ is +∞ on the left and -∞ on the right (no derivative),
///   f'' = 6 / x⁴ → +∞; the programs gave 0 (or -0) and the Hessian -∞.
/// - `2.0.log(y)` = ln 2 / ln y at y = 1 (a pole): f'' = ln 2 (ln y + 2) / (y² ln³ y) is ±∞
///   on the two sides; the second derivative program gave -0.
/// - `x.cbrt().powi(3)` = x: slope 1 everywhere; at 0 the programs gave 0 (3 y² = 0 times
///   cbrt's infinite slope).
///
/// Now each is `ReplayError::ZeroAtPoint` (in `jvp`, `vjp`, `jacobian`, `hessian`:
/// `DiffError::Replay` of it, or `DiffError::Limit` where the gradient's sweep on the trace
/// finds it first), and the exact zeros still absorb.
#[test]
fn a_zero_at_one_point_only_does_not_absorb_an_infinity() {
    let [d, r, dd] = programs_of(inv_square);
    zero_at_point("inv_square'", d.call((0.0, 1.0)));
    zero_at_point("inv_square*", r.call((0.0, 1.0)));
    zero_at_point("inv_square''", dd.call((0.0, 1.0, 1.0)));
    assert!(matches!(
        jvp(inv_square, (0.0,), (1.0,)),
        Err(DiffError::Replay(ReplayError::ZeroAtPoint(_)) | DiffError::Limit(_))
    ));
    assert!(matches!(
        vjp(inv_square, (0.0,), 1.0),
        Err(DiffError::Replay(ReplayError::ZeroAtPoint(_)) | DiffError::Limit(_))
    ));
    for method in [
        HessianMethod::ForwardOverReverse,
        HessianMethod::ForwardOverForward,
    ] {
        let h = hessian_by(inv_square, (0.0,), method);
        assert!(
            matches!(
                h,
                Err(DiffError::Replay(ReplayError::ZeroAtPoint(_)) | DiffError::Limit(_))
            ),
            "{method:?}: {h:?}"
        );
    }
    // Elsewhere the closed forms: f' = -2 / x³, f'' = 6 / x⁴.
    for x in [0.5f64, -2.0, 3.0] {
        assert_eq!(d.call((x, 1.0)).unwrap().as_f64(), Some(-2.0 / x.powi(3)));
        assert_eq!(r.call((x, 1.0)).unwrap().as_f64(), Some(-2.0 / x.powi(3)));
        let h = hessian(inv_square, (x,)).unwrap()[(0, 0)];
        assert!((h - 6.0 / x.powi(4)).abs() <= 1e-12 * h.abs(), "{x}: {h}");
    }

    let [_, _, dd] = programs_of(log2_base);
    zero_at_point("log2_base''", dd.call((1.0, 1.0, 1.0)));
    for y in [3.0f64, 0.5, 1.5] {
        let l = y.ln();
        let want = 2f64.ln() * (l + 2.0) / (y * y * l.powi(3));
        let got = dd.call((y, 1.0, 1.0)).unwrap().as_f64().unwrap();
        assert!(
            (got - want).abs() <= 1e-12 * want.abs(),
            "{y}: {got} vs {want}"
        );
    }

    let [d, r, _] = programs_of(cube_of_cbrt);
    zero_at_point("cube_of_cbrt'", d.call((0.0, 1.0)));
    zero_at_point("cube_of_cbrt*", r.call((0.0, 1.0)));
    assert!(jvp(cube_of_cbrt, (0.0,), (1.0,)).is_err());
    assert!(jacobian(cube_of_cbrt, (0.0,)).is_err());
    // (h - (-h)) / 2h = 1 on either side; the programs give 1 up to rounding elsewhere.
    for x in [8.0f64, -0.001, 1e-10] {
        let got = d.call((x, 1.0)).unwrap().as_f64().unwrap();
        assert!((got - 1.0).abs() < 1e-12, "{x}: {got}");
    }

    // Exact zeros absorb as before. `floor(x)` is 0 on [0, 1): its zero times sqrt's infinite
    // slope at 0 is 0, the slope of `floor(x) sqrt(x)` on the right of 0 ((f(h) - f(0)) / h
    // = 0).
    let [d, _, _] = programs_of(floor_times_root);
    assert_eq!(d.call((0.0, 1.0)).unwrap().as_f64(), Some(0.0));
    // A factor that does not depend on the differentiated input: `y sqrt(x)` at y = 0 is 0
    // for every x, so its derivative in x is 0 even at x = 0.
    use irtrack::program::{Input, Program};
    let p = Program::from_trace(
        &track(scaled_root, (1.0, 1.0)),
        &[Input::Dynamic, Input::Dynamic],
    )
    .unwrap();
    let d = irtrack::diff::differentiate(&p, &[0]).unwrap();
    assert_eq!(d.call((0.0, 0.0, 1.0)).unwrap().as_f64(), Some(0.0));
    // Differentiated in y as well, y's 0 holds at this point only, and it meets sqrt's infinite
    // slope: refused. (Here the truth is 0 — |k √h| ≤ |(h, k)| √h, so `y sqrt(x)` is
    // differentiable at the origin with derivative 0 — but the same numbers arise where there
    // is no derivative, as in `1 / (x * x)` above: an error, never a guess.)
    let d = irtrack::diff::differentiate(&p, &[0, 1]).unwrap();
    zero_at_point("scaled_root' in x and y", d.call((0.0, 0.0, 1.0, 0.0)));
    // A zero direction is exact: along y only, sqrt(0) · 1 = 0.
    assert_eq!(d.call((0.0, 0.0, 0.0, 1.0)).unwrap().as_f64(), Some(0.0));
}

#[tracked]
fn mul_add_with_zero_bias(x: f64, b: f64) -> f64 {
    let c = x.cbrt();
    c.mul_add(c * c, b)
}

/// A zero addend of `mul_add` says nothing of its slope in the factors: `cbrt(x)·cbrt(x)² + b`
/// is `x + b`, and the zero `b` (a common initial bias) made the gradient in `x` 0 at 0 (found
/// by a second adversarial run). The slope in a factor is the other factor, at the point only.
#[test]
fn a_zero_addend_does_not_make_a_factors_slope_exact() {
    assert!(matches!(
        gradient(mul_add_with_zero_bias, (0.0, 0.0)),
        Err(GradError::Indeterminate { .. })
    ));
    let g = gradient(mul_add_with_zero_bias, (0.5, 0.0))
        .unwrap()
        .scalars();
    assert!(
        (g[0].unwrap() - 1.0).abs() < 1e-12 && g[1] == Some(1.0),
        "{g:?}"
    );
}

#[allow(clippy::useless_vec)]
#[tracked]
fn cube_through_a_vector(x: f64) -> f64 {
    let c = x.cbrt();
    let v = vec![c, c, c];
    v[0] * v[1] * v[2]
}

#[tracked]
fn cube_through_an_array(x: f64) -> f64 {
    let c = x.cbrt();
    let a = [c, c, c];
    a[0] * a[1] * a[2]
}

#[allow(clippy::useless_vec)]
#[tracked]
fn square_of_root_through_a_vector(x: f64, y: f64) -> f64 {
    let v = vec![x.sqrt(), y];
    v[0] * v[0] + v[1]
}

/// The same `0 · ∞` with the zero carried by an element of a vector or array (the second
/// adversarial round's leftover): `vec![c, c, c]` of `cbrt(x)` multiplied out is `x`, slope 1;
/// at 0 each product's slope is 0 at the point only, and the element reads gave the vector
/// that zero without the mark, so `cbrt`'s infinite slope met a plain 0: gradient 0. The
/// vector now carries the mark to its elements' sources.
#[test]
fn a_zero_at_a_point_carried_by_a_vector_does_not_absorb_an_infinity() {
    for e in [
        gradient(cube_through_a_vector, (0.0,)).unwrap_err(),
        gradient(cube_through_an_array, (0.0,)).unwrap_err(),
        with_general_sweep(|| gradient(cube_through_a_vector, (0.0,))).unwrap_err(),
    ] {
        assert!(
            matches!(
                e,
                GradError::Indeterminate {
                    cause: Indeterminacy::Limit { .. },
                    ..
                }
            ),
            "{e:?}"
        );
    }
    assert!(gradient(square_of_root_through_a_vector, (0.0, 2.0)).is_err());
    assert!(jvp(cube_through_a_vector, (0.0,), (1.0,)).is_err());
    // Off the point, the slope of `x`; the other element's slope is its own.
    let g = gradient(cube_through_a_vector, (0.5,)).unwrap().scalars()[0].unwrap();
    assert!((g - 1.0).abs() < 1e-12, "{g}");
    assert_eq!(
        gradient(square_of_root_through_a_vector, (4.0, 2.0))
            .unwrap()
            .scalars(),
        [Some(1.0), Some(1.0)]
    );
}

#[tracked]
fn norm_of_tiny(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

/// Squares that underflow in part, to subnormals that keep a few bits: a slope read at them is
/// off by as much ([0.604, 0.805] for [0.6, 0.8] at (3e-162, 4e-162); a tester, 2026-11-28).
/// Refused, as a full underflow to 0 is; at normal magnitudes, the closed form.
#[test]
fn a_product_that_underflowed_in_part_is_refused() {
    let e = gradient(norm_of_tiny, (3e-162, 4e-162)).unwrap_err();
    assert!(
        matches!(
            e,
            GradError::Indeterminate {
                cause: Indeterminacy::Underflow { .. },
                ..
            }
        ),
        "{e:?}"
    );
    let g = gradient(norm_of_tiny, (3e-100, 4e-100)).unwrap();
    let s: Vec<f64> = g.scalars().into_iter().map(Option::unwrap).collect();
    assert!(
        (s[0] - 0.6).abs() < 1e-12 && (s[1] - 0.8).abs() < 1e-12,
        "{s:?}"
    );
}

// Functions with no value at the point whose formulas' terms are numbers there: a term with
// a NaN slope dropped by a second derivative, a constant 0 times a NaN, ∞ − ∞, `min`/`clamp`
// of a NaN (a tester's adversarial round, 2026-11-28: finite gradients, `jvp`s, `vjp`s and
// Hessians for all of these).
#[tracked]
fn log_plus_square(x: f64) -> f64 {
    x.ln() + x * x
}

#[tracked]
fn zero_times_nan(x: f64) -> f64 {
    0.0 * (x - 1.0).sqrt() + x
}

#[tracked]
fn overflow_difference(x: f64) -> f64 {
    x.exp() - x.exp()
}

#[tracked]
fn squares_cancelled(x: f64) -> f64 {
    x * x - x * x + x
}

#[tracked]
fn min_of_nan(x: f64) -> f64 {
    x.min(f64::NAN) + x.clamp(0.0, 1.0)
}

#[tracked]
fn two_logs(v: Vec<f64>) -> f64 {
    v[0].exp2() * v[1].log2() + v[0].log10() * v[1].exp()
}

/// A function whose value is NaN has no derivative: every entry point gives NaN (or refuses),
/// never the number its formula's other terms make.
#[test]
fn no_value_no_derivative() {
    let nan_or_refused_scalar = |r: Result<f64, String>, what: &str| {
        if let Ok(v) = r {
            assert!(v.is_nan(), "{what}: {v}");
        }
    };
    macro_rules! every {
        ($f:ident, $x:expr) => {{
            let x: f64 = $x;
            assert!($f(x).is_nan());
            let what = concat!(stringify!($f), " at ");
            nan_or_refused_scalar(
                gradient($f, (x,))
                    .map(|g| g.scalars()[0].unwrap())
                    .map_err(|e| e.to_string()),
                &format!("gradient {what}{x}"),
            );
            nan_or_refused_scalar(
                jvp($f, (x,), (1.0,))
                    .map(|j| j.tangent.as_f64().unwrap())
                    .map_err(|e| e.to_string()),
                &format!("jvp {what}{x}"),
            );
            nan_or_refused_scalar(
                vjp($f, (x,), 1.0)
                    .map(|v| v.cotangents[0].as_ref().unwrap().as_f64().unwrap())
                    .map_err(|e| e.to_string()),
                &format!("vjp {what}{x}"),
            );
            for method in [
                HessianMethod::ForwardOverReverse,
                HessianMethod::ForwardOverForward,
            ] {
                nan_or_refused_scalar(
                    hessian_by($f, (x,), method)
                        .map(|h| h.row(0)[0])
                        .map_err(|e| e.to_string()),
                    &format!("hessian {what}{x}"),
                );
            }
            let (_, back) = pullback($f, (x,));
            nan_or_refused_scalar(
                back.call(1.0)
                    .map(|g| g[0].as_ref().unwrap().as_scalar().unwrap())
                    .map_err(|e| e.to_string()),
                &format!("pullback {what}{x}"),
            );
        }};
    }
    every!(log_plus_square, -2.0);
    every!(zero_times_nan, 0.0);
    every!(overflow_difference, 1000.0);
    every!(squares_cancelled, 1e200);
    every!(min_of_nan, f64::NAN);
    // Not refused where the function has no value: the NaN is the answer (∞ − ∞ at 1000 was
    // refused as a NaN made from numbers).
    for (f, x) in [
        (overflow_difference as fn(f64) -> f64, 1000.0),
        (squares_cancelled, 1e200),
    ] {
        assert!(f(x).is_nan());
    }
    assert!(
        gradient(overflow_difference, (1000.0,)).unwrap().scalars()[0]
            .unwrap()
            .is_nan()
    );
    assert!(gradient(squares_cancelled, (1e200,)).unwrap().scalars()[0]
        .unwrap()
        .is_nan());
    // Two arguments: the whole Hessian.
    let h = hessian(two_logs, (vec![-1.0, 2.0],)).unwrap();
    assert!((0..2).all(|i| h.row(i).iter().all(|v| v.is_nan())), "{h:?}");
    // A derivative program built by hand, differentiated twice, at the point.
    use irtrack::diff::differentiate;
    use irtrack::program::{Input, Program};
    let p = Program::from_trace(&track(log_plus_square, (2.0,)), &[Input::Dynamic]).unwrap();
    let d2 = differentiate(&differentiate(&p, &[0]).unwrap(), &[0]).unwrap();
    let v = d2.call((-2.0, 1.0, 1.0)).unwrap().as_f64().unwrap();
    assert!(v.is_nan(), "{v}");
    // Where it has a value, the derivatives are the formula's.
    assert_eq!(d2.call((2.0, 1.0, 1.0)).unwrap().as_f64(), Some(2.0 - 0.25));
}

#[tracked]
fn overflowed_norm(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for x in &v {
        s += x * x;
    }
    s.sqrt()
}

#[tracked]
fn root_of_square(x: f64) -> f64 {
    (x * x).sqrt()
}

#[tracked]
fn fourth_root(x: f64) -> f64 {
    (x * x * x * x).powf(0.25)
}

/// An infinite output reached by a zero slope that is a limit (`sqrt`'s slope at ∞, where a
/// product overflowed) is refused: it gave the gradient 0 where the slope is 1 (a tester,
/// 2026-11-28). An infinite output with its own slope (`exp` overflowing, a pole) keeps it.
#[test]
fn an_overflowed_value_has_no_zero_slope() {
    for e in [
        gradient(root_of_square, (1e160,)).err(),
        gradient(fourth_root, (1e80,)).err(),
        gradient(overflowed_norm, (vec![1e155, 1.0],)).err(),
    ] {
        let e = e.expect("refused");
        assert!(
            matches!(
                e,
                GradError::Indeterminate {
                    cause: Indeterminacy::InfiniteValue { .. },
                    ..
                }
            ),
            "{e}"
        );
    }
    assert!(jvp(root_of_square, (1e160,), (1.0,)).is_err());
    assert!(vjp(root_of_square, (1e160,), 1.0).is_err());
    assert!(hessian(fourth_root, (1e80,)).is_err());
    // In range, the slope.
    assert_eq!(
        gradient(root_of_square, (1e150,)).unwrap().scalars(),
        [Some(1.0)]
    );
    // An infinite value with a slope of its own.
    assert_eq!(
        gradient(overflow_exp, (1000.0,)).unwrap().scalars(),
        [Some(f64::INFINITY)]
    );
}

#[tracked]
fn overflow_exp(x: f64) -> f64 {
    x.exp()
}

#[tracked]
fn with_a_nan_element(x: f64) -> Vec<f64> {
    vec![2.0 * x, (x - 1.0).ln(), x.sin()]
}

/// A vector output with an element that has no value: that element's row of the Jacobian is
/// NaN, a cotangent that reads it gives NaN, one that does not gives the others' derivative;
/// programs replay it (its `vec!` was refused as "does not give its recorded value": NaN is not
/// equal to NaN; an audit, 2026-11-28).
#[test]
fn a_vector_output_with_an_element_without_value() {
    use irtrack::program::{Input, Program};
    let p = Program::from_trace(&track(with_a_nan_element, (0.5,)), &[Input::Dynamic]).unwrap();
    let v = p.call((0.25,)).unwrap();
    let v = v.downcast_ref::<Vec<f64>>().unwrap();
    assert_eq!(v[0], 0.5);
    assert!(v[1].is_nan());
    assert_eq!(v[2], 0.25f64.sin());
    let j = jacobian(with_a_nan_element, (0.5,)).unwrap();
    assert_eq!(j.row(0), vec![2.0]);
    assert!(j.row(1)[0].is_nan());
    assert_eq!(j.row(2), vec![0.5f64.cos()]);
    let reads_others = vjp(with_a_nan_element, (0.5,), vec![1.0, 0.0, 1.0]).unwrap();
    let c = reads_others.cotangents[0]
        .as_ref()
        .unwrap()
        .as_f64()
        .unwrap();
    assert!((c - (2.0 + 0.5f64.cos())).abs() < 1e-15, "{c}");
    let reads_it = vjp(with_a_nan_element, (0.5,), vec![1.0, 1.0, 1.0]).unwrap();
    assert!(reads_it.cotangents[0]
        .as_ref()
        .unwrap()
        .as_f64()
        .unwrap()
        .is_nan());
}

/// A derivative program built by hand and called where an intermediate overflows: its zero
/// slope is only a limit, refused as the entry points refuse it (it gave 0 for 1; an audit,
/// 2026-11-28). Elsewhere it answers.
#[test]
fn a_derivative_program_refuses_a_zero_slope_at_an_overflow() {
    use irtrack::diff::{differentiate, reverse};
    use irtrack::program::{Input, Program};
    let p = Program::from_trace(&track(root_of_square, (3.0,)), &[Input::Dynamic]).unwrap();
    let d = differentiate(&p, &[0]).unwrap();
    let r = reverse(&p, 0).unwrap();
    assert!(d.call((1e160, 1.0)).is_err());
    assert!(r.call((1e160, 1.0)).is_err());
    assert_eq!(d.call((2.0, 1.0)).unwrap().as_f64(), Some(1.0));
    assert_eq!(r.call((-2.0, 1.0)).unwrap().as_f64(), Some(-1.0));
}
