//! Flux.Tracker's documented examples (its "Taking Gradients", "Tracked Arrays" and "Custom
//! Gradients" sections), exactly, on irtrack.

use irtrack::grad::{register_rule, ADJOINT};
use irtrack::{gradient, pullback, track, tracked, tracked_fn, Tangent};
use ndarray::{array, Array1, Array2};

#[tracked]
fn mul(a: f64, b: f64) -> f64 {
    a * b
}

#[test]
fn gradient_of_a_product() {
    // Tracker.gradient((a, b) -> a*b, 2, 3) # (3.0 (tracked), 2.0 (tracked))
    let g = gradient(mul, (2.0, 3.0)).unwrap();
    assert_eq!(g.value, 6.0);
    assert_eq!(
        g.wrt,
        [Some(Tangent::Scalar(3.0)), Some(Tangent::Scalar(2.0))]
    );
}

#[test]
fn gradient_of_a_closure() {
    let g = gradient(tracked_fn!(|a, b| a * b), (2.0, 3.0)).unwrap();
    assert_eq!(g.value, 6.0);
    assert_eq!(g.scalars(), [Some(3.0), Some(2.0)]);
}

#[test]
fn forward_returns_a_backpropagator() {
    // y, back = forward((a, b) -> a*b, 2, 3); back(1) # (3.0, 2.0)
    let (y, back) = pullback(tracked_fn!(|a, b| a * b), (2.0, 3.0));
    assert_eq!(y, 6.0);
    let sensitivities = back.call(1.0).unwrap();
    assert_eq!(
        sensitivities,
        [Some(Tangent::Scalar(3.0)), Some(Tangent::Scalar(2.0))]
    );
}

#[test]
fn elementwise_product_backpropagates_a_vector_sensitivity() {
    // y, back = forward((a, b) -> a.*b, [1,2,3],[4,5,6]); back([1,1,1]) # ([4,5,6], [1,2,3])
    let (y, back) = pullback(
        tracked_fn!(|a: Array1<f64>, b: Array1<f64>| &a * &b),
        (array![1.0, 2.0, 3.0], array![4.0, 5.0, 6.0]),
    );
    assert_eq!(y, array![4.0, 10.0, 18.0]);
    let s = back.call(array![1.0, 1.0, 1.0]).unwrap();
    assert_eq!(
        s,
        [
            Some(Tangent::from(array![4.0, 5.0, 6.0])),
            Some(Tangent::from(array![1.0, 2.0, 3.0]))
        ]
    );
    // A backpropagator can be called again, with another sensitivity.
    let s = back.call(array![1.0, 0.0, 2.0]).unwrap();
    assert_eq!(s[0], Some(Tangent::from(array![4.0, 0.0, 12.0])));
}

#[test]
fn back_accumulates_into_the_trace() {
    // W = param([1 2; 3 4]); x = param([5, 6]); y = W*x; Tracker.back!(y, [1, -1])
    // W.grad == [5 6; -5 -6]; x.grad == [-2, -2]
    let w: Array2<f64> = array![[1.0, 2.0], [3.0, 4.0]];
    let x: Array1<f64> = array![5.0, 6.0];
    let f = tracked_fn!(|w: Array2<f64>, x: Array1<f64>| w.dot(&x));
    let mut trace = track(f, (w, x));
    assert_eq!(
        trace.root().value::<Array1<f64>>(),
        Some(&array![17.0, 39.0])
    );
    trace.backward(array![1.0, -1.0]).unwrap();
    let grad = |trace: &irtrack::Trace, i: usize| {
        trace.root().call_arguments()[i]
            .metadata::<Tangent>(ADJOINT)
            .cloned()
    };
    assert_eq!(
        grad(&trace, 0),
        Some(Tangent::from(array![[5.0, 6.0], [-5.0, -6.0]]))
    );
    assert_eq!(grad(&trace, 1), Some(Tangent::from(array![-2.0, -2.0])));
    // A second pass adds to the stored gradients, as `back!` does.
    trace.backward(array![1.0, 0.0]).unwrap();
    assert_eq!(
        grad(&trace, 0),
        Some(Tangent::from(array![[10.0, 12.0], [-5.0, -6.0]]))
    );
    assert_eq!(grad(&trace, 1), Some(Tangent::from(array![-1.0, 0.0])));
    // Something else stored under the key is not overwritten: an error, the trace as it was
    // (an `i32` became the gradient; a tester, 2026-11-28).
    let x = trace.root().call_arguments()[1].id();
    trace.node_mut(x).set(ADJOINT, 5i32);
    let e = trace.backward(array![1.0, 0.0]).unwrap_err();
    assert!(e.to_string().contains("i32"), "{e}");
    assert_eq!(trace.node(x).unwrap().metadata::<i32>(ADJOINT), Some(&5));
    assert_eq!(
        grad(&trace, 0),
        Some(Tangent::from(array![[10.0, 12.0], [-5.0, -6.0]]))
    );
}

#[tracked]
fn minus(a: f64, b: f64) -> f64 {
    a - b
}

#[tracked]
fn uses_minus(a: f64, b: f64) -> f64 {
    minus(a * b, b)
}

#[test]
fn custom_gradient_makes_a_function_primitive() {
    // @grad minus(a, b) = minus(data(a), data(b)), Δ -> (Δ, -Δ)
    register_rule(minus, |(_a, _b): (f64, f64), d: f64| (d, -d));
    let mut trace = track(uses_minus, (2.0, 3.0));
    let grads = trace.backward(1.0).unwrap();
    assert_eq!(
        grads,
        [Some(Tangent::Scalar(3.0)), Some(Tangent::Scalar(1.0))]
    );
    // The call still records its body, but the backward pass does not enter it.
    let call = trace
        .root()
        .children()
        .find(|c| c.function_name() == Some("minus"))
        .unwrap();
    assert_eq!(
        call.metadata::<Tangent>(ADJOINT),
        Some(&Tangent::Scalar(1.0))
    );
    assert!(call
        .children()
        .all(|c| c.metadata::<Tangent>(ADJOINT).is_none()));
}

/// `log(Σ exp(v))`, summed term by term: the body records 3n nodes, the rule is one softmax.
#[tracked]
fn log_sum_exp(v: &[f64]) -> f64 {
    let mut m = f64::NEG_INFINITY;
    for &x in v {
        m = m.max(x);
    }
    let mut s = 0.0;
    for &x in v {
        s += (x - m).exp();
    }
    m + s.ln()
}

#[tracked]
fn energy(v: Vec<f64>, t: f64) -> f64 {
    t * log_sum_exp(&v)
}

#[test]
fn custom_gradient_cheaper_than_the_body() {
    let v = vec![0.5, -1.0, 2.0, 0.25];
    let before = gradient(energy, (v.clone(), 2.0));
    register_rule(log_sum_exp, |v: (Vec<f64>,), d: f64| {
        let m = v.0.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = v.0.iter().map(|x| (x - m).exp()).sum();
        (v.0.iter()
            .map(|x| d * (x - m).exp() / z)
            .collect::<Vec<f64>>(),)
    });
    let after = gradient(energy, (v.clone(), 2.0)).unwrap();
    // Softmax times the temperature, and the value of log-sum-exp for the temperature.
    let z: f64 = v.iter().map(|x| x.exp()).sum();
    let soft: Vec<f64> = v.iter().map(|x| 2.0 * x.exp() / z).collect();
    let got = after.wrt[0].as_ref().and_then(Tangent::as_slice).unwrap();
    for (a, b) in got.iter().zip(&soft) {
        assert!((a - b).abs() < 1e-12, "{got:?} vs {soft:?}");
    }
    assert!((after.wrt[1].as_ref().unwrap().as_scalar().unwrap() - z.ln()).abs() < 1e-12);
    // Without the rule the body is differentiated, loops over the slice included: the same
    // gradient, from 3n recorded nodes instead of one rule.
    let before = before.unwrap();
    let got = before.wrt[0].as_ref().and_then(Tangent::as_slice).unwrap();
    for (a, b) in got.iter().zip(&soft) {
        assert!((a - b).abs() < 1e-12, "{got:?} vs {soft:?}");
    }
}

// Rules that could not be right (a tester, 2026-11-27): each gave a number.

fn square_fp(x: f64) -> f64 {
    x * x
}

fn cube_fp(x: f64) -> f64 {
    x * x * x
}

#[tracked]
fn through_a_pointer(x: f64) -> f64 {
    let p: fn(f64) -> f64 = cube_fp;
    p(x)
}

fn make_scale(k: f64) -> impl Fn(f64) -> f64 + Copy + Send + Sync + 'static {
    move |x| x * k
}

#[tracked]
fn through_a_capturing_closure(x: f64) -> f64 {
    let f = make_scale(3.0);
    f(x)
}

#[tracked]
fn difference(a: f64, b: f64) -> f64 {
    a - b
}

#[tracked]
fn uses_difference(x: f64, y: f64) -> f64 {
    difference(x, y) * 2.0
}

#[tracked]
fn product_of_two(a: f64, b: f64) -> f64 {
    a * b
}

#[tracked]
fn uses_product(x: f64) -> f64 {
    product_of_two(x, 3.0)
}

#[test]
fn rules_that_cannot_be_right_are_errors() {
    // A rule for a function pointer would apply to every function of its signature (4 for
    // 12), one for a capturing closure to every capture (2 for 3).
    register_rule(square_fp as fn(f64) -> f64, |(x,): (f64,), d: f64| {
        2.0 * x * d
    });
    let e = gradient(through_a_pointer, (2.0,)).unwrap_err();
    assert!(e.to_string().contains("function pointer"), "{e}");
    register_rule(make_scale(2.0), |(_x,): (f64,), d: f64| 2.0 * d);
    let e = gradient(through_a_capturing_closure, (1.5,)).unwrap_err();
    assert!(e.to_string().contains("capturing closure"), "{e}");
    // A rule of fewer arguments than the function gave the others 0 (`[2, 0]` for `[2, -2]`).
    register_rule(difference, |(_a,): (f64,), d: f64| d);
    let e = gradient(uses_difference, (3.0, 1.0)).unwrap_err();
    assert!(e.to_string().contains("argument"), "{e}");
    // A vector for a float argument was dropped (`None` for 3).
    register_rule(product_of_two, |(a, b): (f64, f64), d: f64| {
        (vec![b * d, 1.0], a * d)
    });
    let e = gradient(uses_product, (2.0,)).unwrap_err();
    assert!(e.to_string().contains("shape"), "{e}");
}

#[tracked]
fn by_path(x: f64) -> f64 {
    f64::exp_m1(x)
}

#[tracked]
fn by_method(x: f64) -> f64 {
    x.exp_m1()
}

/// A rule for `f64::exp_m1` applied to a call by its path but not to `x.exp_m1()`, the same
/// function (a tester, 2026-11-27: two gradients of one function by how it was called).
#[test]
fn a_float_methods_rule_applies_however_it_is_called() {
    register_rule(f64::exp_m1, |(_x,): (f64,), d: f64| 100.0 * d);
    let a = gradient(by_path, (0.5,)).unwrap();
    let b = gradient(by_method, (0.5,)).unwrap();
    assert_eq!(a.scalars(), [Some(100.0)]);
    assert_eq!(b.scalars(), [Some(100.0)]);
}

#[tracked]
fn product_for_a_short_rule(a: f64, b: f64) -> f64 {
    a * b
}

#[tracked]
fn uses_product_for_a_short_rule(a: f64, b: f64) -> f64 {
    product_for_a_short_rule(a, b) + 0.0
}

/// A rule returning fewer sensitivities than the call has arguments is refused: the others got
/// a sensitivity of 0 it never claimed (`[3, 0]` for `[3, 2]`; a tester, 2026-11-28).
#[test]
fn a_rule_returning_too_few_sensitivities_is_an_error() {
    irtrack::grad::register_rule(product_for_a_short_rule, |(_a, b): (f64, f64), d: f64| {
        b * d
    });
    let e = gradient(uses_product_for_a_short_rule, (2.0, 3.0)).unwrap_err();
    assert!(e.to_string().contains("one per argument"), "{e}");
}

#[tracked]
fn clipped_identity(x: f64) -> f64 {
    x
}

#[tracked]
fn uses_clipped_identity(x: f64) -> f64 {
    clipped_identity(3.0 * x) * x
}

/// Derivative programs do not read `grad::register_rule`'s rules: their entry points refuse a
/// function a registered rule applies to, naming it (they differentiated the body: `vjp` gave
/// 12 where `gradient`, through the rule, gave 3; a tester, 2026-11-28).
#[test]
fn derivative_programs_refuse_calls_a_gradient_rule_applies_to() {
    register_rule(clipped_identity, |(_x,): (f64,), d: f64| d.clamp(-0.5, 0.5));
    // x · clip(3x): the rule's slope of the call is clamp(x, ±0.5) · 3 = 1.5 at x = 2, plus 6.
    let g = gradient(uses_clipped_identity, (2.0,)).unwrap();
    assert_eq!(g.scalars(), [Some(0.5 * 3.0 + 6.0)]);
    for e in [
        irtrack::diff::jvp(uses_clipped_identity, (2.0,), (1.0,)).err(),
        irtrack::diff::vjp(uses_clipped_identity, (2.0,), 1.0).err(),
        irtrack::diff::hessian(uses_clipped_identity, (2.0,)).err(),
    ] {
        let e = e.expect("refused");
        assert!(e.to_string().contains("register_rule"), "{e}");
    }
}

#[tracked]
fn ruled_at_the_root(x: f64, y: f64) -> f64 {
    // A body whose own slopes are not the rule's: (2x y, x²).
    x * x * y
}

#[tracked]
fn ruled_with_too_few(x: f64) -> f64 {
    x * 3.0
}

/// A function given a rule and differentiated itself: the rule is its derivative, as at any
/// call of it (`gradient(f, …)` followed the body and ignored the rule; found 2026-11-28).
#[test]
fn the_function_differentiated_takes_its_own_rule() {
    register_rule(ruled_at_the_root, |(x, _y): (f64, f64), d: f64| {
        (10.0 * x * d, -d)
    });
    let g = gradient(ruled_at_the_root, (2.0, 5.0)).unwrap();
    assert_eq!(g.value, 20.0);
    assert_eq!(g.scalars(), [Some(20.0), Some(-1.0)]);
    let (_, back) = pullback(ruled_at_the_root, (2.0, 5.0));
    let wrt = back.call(0.5).unwrap();
    let got: Vec<_> = wrt
        .iter()
        .map(|t| t.as_ref().and_then(Tangent::as_scalar))
        .collect();
    assert_eq!(got, [Some(10.0), Some(-0.5)]);
    // Called from another tracked function, the same rule (as before).
    assert_eq!(
        gradient(calls_ruled_at_the_root, (2.0,)).unwrap().scalars(),
        [Some(20.0 - 1.0)]
    );
    // Derivative programs do not read the rule: they refuse, naming the function.
    let e = irtrack::diff::jvp(ruled_at_the_root, (2.0, 5.0), (1.0, 0.0)).unwrap_err();
    assert!(e.to_string().contains("ruled_at_the_root"), "{e}");
    // A rule of another arity is an error at the root too, not a partial gradient.
    register_rule(ruled_with_too_few, |(_x, _k): (f64, f64), d: f64| (d, d));
    let e = gradient(ruled_with_too_few, (1.0,)).unwrap_err();
    assert!(e.to_string().contains("takes 2 argument"), "{e}");
}

#[tracked]
fn calls_ruled_at_the_root(x: f64) -> f64 {
    ruled_at_the_root(x, x)
}
