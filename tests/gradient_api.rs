//! The gradient API's edges: what is refused, and how.

use irtrack::grad::ADJOINT;
use irtrack::{gradient, pullback, track, tracked, GradError, Tangent};

#[tracked]
fn square_generic<T: std::ops::Mul<Output = T> + Copy>(x: T) -> T {
    x * x
}

#[tracked]
fn square_debug<T: std::ops::Mul<Output = T> + Copy + std::fmt::Debug>(x: T) -> T {
    x * x
}

/// Generic code records its values typed when `T` is a float, without a `Debug` bound: the
/// gradient is there (it once failed with "make it `#[tracked]`").
#[test]
fn generic_code_without_debug_has_its_gradient() {
    let g = gradient(square_generic::<f64>, (3.0,)).unwrap();
    assert_eq!(g.scalars(), [Some(6.0)]);
    let g = gradient(square_debug::<f64>, (3.0,)).unwrap();
    assert_eq!(g.scalars(), [Some(6.0)]);
    let trace = track(square_generic::<f32>, (1.5f32,));
    assert_eq!(trace.root().value::<f32>(), Some(&2.25));
    assert_eq!(trace.root().child(2).unwrap().value::<f32>(), Some(&2.25));
}

#[tracked]
fn pair(a: f64, b: f64) -> Vec<f64> {
    let s = a + b;
    let p = a * b;
    vec![s, p]
}

#[test]
fn a_seed_of_the_wrong_shape_is_an_error() {
    let (y, back) = pullback(pair, (2.0, 5.0));
    assert_eq!(y, [7.0, 10.0]);
    assert_eq!(
        back.call(vec![1.0, 0.0]).unwrap(),
        [Some(Tangent::Scalar(1.0)), Some(Tangent::Scalar(1.0))]
    );
    assert_eq!(
        back.call(vec![0.0, 1.0]).unwrap(),
        [Some(Tangent::Scalar(5.0)), Some(Tangent::Scalar(2.0))]
    );
    // A seed of another shape than the output's: `Shape`, naming both (it was a `NoRule`
    // blaming `vec!`).
    for seed in [Tangent::Scalar(1.0), Tangent::Vector(vec![1.0, 2.0, 3.0])] {
        let e = back.call(seed).unwrap_err();
        assert!(matches!(e, GradError::Shape { .. }), "{e:?}");
        assert!(e.to_string().contains("vector of 2"), "{e}");
    }
}

#[test]
fn gradient_needs_a_float_output() {
    let e = gradient(pair, (2.0, 5.0)).unwrap_err();
    assert!(matches!(e, GradError::Output { .. }), "{e:?}");
    assert!(e.to_string().contains("use `pullback`"), "{e}");
}

#[tracked]
fn checked_root(x: f64) -> Result<f64, String> {
    if x < 0.0 {
        return Err("negative".to_string());
    }
    Ok(x.sqrt())
}

#[test]
fn ok_outputs_are_differentiated_and_err_outputs_refused() {
    let g = gradient(checked_root, (4.0,)).unwrap();
    assert_eq!(g.value, Ok(2.0));
    assert_eq!(g.scalars(), [Some(0.25)]);
    let e = gradient(checked_root, (-4.0,)).unwrap_err();
    assert!(matches!(e, GradError::Output { .. }), "{e:?}");
}

#[tracked]
fn ignores_its_second(x: f64, _y: f64) -> f64 {
    x * 3.0
}

#[test]
fn an_argument_the_output_does_not_use_gets_zero() {
    let g = gradient(ignores_its_second, (1.0, 2.0)).unwrap();
    assert_eq!(g.scalars(), [Some(3.0), Some(0.0)]);
}

#[test]
fn adjoints_are_kept_only_on_nodes_that_get_one() {
    let mut trace = track(ignores_its_second, (1.0, 2.0));
    trace.backward(2.0).unwrap();
    let root = trace.root();
    let adjoint = |p: usize| root.child(p).unwrap().metadata::<Tangent>(ADJOINT).cloned();
    assert_eq!(adjoint(1), Some(Tangent::Scalar(6.0)));
    assert_eq!(adjoint(2), None);
    assert_eq!(
        root.metadata::<Tangent>(ADJOINT),
        Some(&Tangent::Scalar(2.0))
    );
}

#[tracked]
fn captures_input(x: f64, y: f64) -> f64 {
    let times_x = |t: f64| t * x;
    times_x(y) + y
}

#[tracked]
fn passes_input(x: f64, y: f64) -> f64 {
    let times = |t: f64, k: f64| t * k;
    times(y, x) + y
}

/// A closure that assigns to what it captured: its reads of it may be of values it wrote.
#[tracked]
fn accumulates_input(x: f64, y: f64) -> f64 {
    let mut acc = x;
    let mut add = |t: f64| {
        acc += t;
        acc
    };
    add(y) + add(1.0)
}

/// Since 2026-11-27 a captured value's uses link to the enclosing function's node for it
/// (through the closure's `$(closure)` node), so a closure reading a captured input has its
/// slope, as one passing it as an argument; a closure that assigns to its capture is still
/// refused.
#[test]
fn a_closure_reading_a_captured_input_has_its_slope() {
    // x·y + y: (y, x + 1).
    let g = gradient(captures_input, (0.5, 2.0)).unwrap();
    assert_eq!(g.scalars(), [Some(2.0), Some(1.5)]);
    let g = gradient(passes_input, (0.5, 2.0)).unwrap();
    assert_eq!(g.scalars(), [Some(2.0), Some(1.5)]);
    let e = gradient(accumulates_input, (0.5, 2.0)).unwrap_err();
    assert!(
        matches!(e, GradError::Capture { ref variable, .. } if variable == "acc"),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .contains("pass it to the closure as an argument"),
        "{e}"
    );
}

// A `Vec` on purpose: `vec!` is what is tested.
#[allow(clippy::useless_vec)]
#[tracked]
fn vec_of_expressions(a: f64, b: f64) -> f64 {
    let v = vec![a, b * 2.0, a * b];
    v[0] + v[1] + v[2]
}

#[test]
fn vec_of_expressions_differentiates_each_element() {
    // At b = 0, `b * 2.0` equals `b`: only per-element operands tell them apart.
    let g = gradient(vec_of_expressions, (0.5, 0.0)).unwrap();
    assert_eq!(g.scalars(), [Some(1.0), Some(2.5)]);
}

#[tracked]
fn identity_vec(v: Vec<f64>) -> Vec<f64> {
    v
}

#[test]
fn a_backward_pass_of_another_shape_is_refused_and_changes_nothing() {
    let mut trace = track(identity_vec, (vec![1.0, 2.0],));
    trace.backward(vec![1.0, 2.0]).unwrap();
    let before = trace.to_string();
    let e = trace.backward(vec![1.0]).unwrap_err();
    assert!(matches!(e, GradError::Shape { .. }), "{e:?}");
    assert!(e.to_string().contains("identity_vec"), "{e}");
    assert_eq!(trace.to_string(), before, "no adjoint was written");
}

#[tracked]
fn sum_and_product(a: f64, b: f64) -> (f64, f64) {
    (a + b, a * b)
}

/// A scalar seed for a tuple's output: the error says which seed a tuple takes (it said "make
/// it `#[tracked]`" of the tuple literal; a new user, 2026-11-28).
#[test]
fn a_scalar_seed_for_a_tuple_names_the_fields_seed() {
    let (_, back) = pullback(sum_and_product, (2.0, 5.0));
    let e = back.call(1.0).unwrap_err();
    assert!(e.to_string().contains("Tangent::Fields"), "{e}");
    let g = back
        .call(Tangent::Fields(vec![
            ("0".into(), Tangent::Scalar(1.0)),
            ("1".into(), Tangent::Scalar(1.0)),
        ]))
        .unwrap();
    assert_eq!(g, [Some(Tangent::Scalar(6.0)), Some(Tangent::Scalar(3.0))]);
}
