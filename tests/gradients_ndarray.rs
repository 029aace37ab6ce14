//! Gradients through `ndarray` operations, each checked against central finite differences.

use irtrack::{gradient, tracked, Tangent};
use ndarray::{array, Array, Array1, Array2, Dimension};

/// Central differences of `f` along every element of argument `arg` (an array), with a step
/// relative to each element.
fn check<D: Dimension>(
    tangent: &Option<Tangent>,
    x: &Array<f64, D>,
    f: impl Fn(&Array<f64, D>) -> f64,
) {
    let got = tangent
        .as_ref()
        .expect("a gradient")
        .as_array()
        .expect("an array");
    assert_eq!(got.shape(), x.shape());
    for (i, g) in got.iter().enumerate() {
        let h = 1e-6 * x.iter().nth(i).unwrap().abs().max(1.0);
        let mut plus = x.clone();
        let mut minus = x.clone();
        *plus.iter_mut().nth(i).unwrap() += h;
        *minus.iter_mut().nth(i).unwrap() -= h;
        let fd = (f(&plus) - f(&minus)) / (2.0 * h);
        let tol = 1e-6 * g.abs().max(fd.abs()).max(1.0);
        assert!(
            (g - fd).abs() <= tol,
            "element {i}: gradient {g}, differences {fd}"
        );
    }
}

#[tracked]
fn net(w1: Array2<f64>, b1: Array1<f64>, w2: Array1<f64>, x: Array1<f64>) -> f64 {
    let hidden = (w1.dot(&x) + &b1).mapv(f64::tanh);
    let out = w2.dot(&hidden);
    (out - 0.5) * (out - 0.5)
}

#[test]
fn two_layer_network() {
    let w1 = array![[0.5, -0.3], [0.8, 0.2], [-0.6, 0.4]];
    let b1 = array![0.1, 0.0, -0.1];
    let w2 = array![1.0, -1.5, 0.7];
    let x = array![1.0, 2.0];
    let g = gradient(net, (w1.clone(), b1.clone(), w2.clone(), x.clone())).unwrap();
    assert_eq!(g.value, net(w1.clone(), b1.clone(), w2.clone(), x.clone()));
    check(&g.wrt[0], &w1, |w| {
        net(w.clone(), b1.clone(), w2.clone(), x.clone())
    });
    check(&g.wrt[1], &b1, |b| {
        net(w1.clone(), b.clone(), w2.clone(), x.clone())
    });
    check(&g.wrt[2], &w2, |v| {
        net(w1.clone(), b1.clone(), v.clone(), x.clone())
    });
    check(&g.wrt[3], &x, |v| {
        net(w1.clone(), b1.clone(), w2.clone(), v.clone())
    });
}

#[tracked]
fn elementwise(a: Array1<f64>, b: Array1<f64>, k: f64) -> f64 {
    let c = &a * &b + &a / &b - &b * k;
    let d = 2.0 * &c - k / &b;
    let e = (-d).exp() + c.sin();
    e.sum() + e.mean().unwrap_or(0.0) + c.powi(2).sum()
}

#[test]
fn elementwise_arithmetic_scalars_and_methods() {
    let a = array![0.3, -0.7, 1.1];
    let b = array![1.5, 0.9, -2.0];
    let k = 0.4;
    let g = gradient(elementwise, (a.clone(), b.clone(), k)).unwrap();
    assert_eq!(g.value, elementwise(a.clone(), b.clone(), k));
    check(&g.wrt[0], &a, |v| elementwise(v.clone(), b.clone(), k));
    check(&g.wrt[1], &b, |v| elementwise(a.clone(), v.clone(), k));
    let dk = g.wrt[2].as_ref().unwrap().as_scalar().unwrap();
    let h = 1e-6;
    let fd = (elementwise(a.clone(), b.clone(), k + h) - elementwise(a.clone(), b.clone(), k - h))
        / (2.0 * h);
    assert!((dk - fd).abs() <= 1e-6 * dk.abs().max(1.0), "{dk} vs {fd}");
}

#[tracked]
fn quadratic_form(m: Array2<f64>, x: Array1<f64>) -> f64 {
    let mx = m.t().dot(&x);
    let broadcast = &m + &x;
    x.dot(&mx) + broadcast.sum() + m[[1, 0]] * x[1] + m.dot(&m).sum()
}

#[test]
fn transpose_broadcast_index_and_matrix_products() {
    let m = array![[1.0, 2.0], [3.0, -4.0]];
    let x = array![0.5, -1.5];
    let g = gradient(quadratic_form, (m.clone(), x.clone())).unwrap();
    check(&g.wrt[0], &m, |v| quadratic_form(v.clone(), x.clone()));
    check(&g.wrt[1], &x, |v| quadratic_form(m.clone(), v.clone()));
}

#[tracked]
fn from_vector(v: Vec<f64>, w: Array1<f64>) -> f64 {
    let a = Array1::from_vec(v);
    a.dot(&w)
}

#[test]
fn vectors_become_arrays() {
    let g = gradient(from_vector, (vec![1.0, 2.0], array![3.0, 4.0])).unwrap();
    assert_eq!(g.wrt[0], Some(Tangent::Vector(vec![3.0, 4.0])));
    assert_eq!(g.wrt[1], Some(Tangent::from(array![1.0, 2.0])));
}

/// The 256×256 matrix-vector model of the benchmarks: `Σ tanh(W·x)`.
#[tracked]
fn matvec(w: Array2<f64>, x: Array1<f64>) -> f64 {
    w.dot(&x).mapv(f64::tanh).sum()
}

#[test]
fn matrix_vector_model() {
    let n = 16;
    let w = Array2::from_shape_fn((n, n), |(i, j)| ((i * 7 + j * 3) % 11) as f64 / 20.0 - 0.25);
    let x = Array1::from_shape_fn(n, |i| (i as f64 / n as f64) - 0.5);
    let g = gradient(matvec, (w.clone(), x.clone())).unwrap();
    check(&g.wrt[1], &x, |v| matvec(w.clone(), v.clone()));
    check(&g.wrt[0], &w, |m| matvec(m.clone(), x.clone()));
}

#[tracked]
fn mapv_of_a_closure(a: Array1<f64>) -> f64 {
    a.mapv(|v| v * v).sum()
}

#[test]
fn mapv_of_a_closure_is_an_error_not_a_zero() {
    let e = gradient(mapv_of_a_closure, (array![1.0, 2.0],)).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("mapv"), "{text}");
    assert!(text.contains("mapv_of_a_closure"), "{text}");
}

#[test]
fn a_captured_shared_matrix_is_a_constant_and_is_not_copied() {
    let n = 8;
    let w = Array2::from_shape_fn((n, n), |(i, j)| ((i + 2 * j) % 5) as f64 / 4.0 - 0.5);
    let shared = w.clone().into_shared();
    let model = irtrack::tracked_fn!(move |x: Array1<f64>| {
        let y = shared.dot(&x);
        0.5 * y.dot(&y)
    });
    let x = Array1::from_shape_fn(n, |i| i as f64 / 3.0 - 1.0);
    let g = gradient(model, (x.clone(),)).unwrap();
    // ½‖W x‖² has gradient Wᵀ W x.
    let want = w.t().dot(&w.dot(&x));
    let got = g.wrt[0].as_ref().unwrap().as_array().unwrap().to_owned();
    for (a, b) in got.iter().zip(want.iter()) {
        assert!((a - b).abs() < 1e-12, "{got} vs {want}");
    }
    check(&g.wrt[0], &x, |v| 0.5 * w.dot(v).dot(&w.dot(v)));
}

#[tracked]
fn quotients(a: Array1<f64>, b: Array1<f64>, k: f64) -> f64 {
    (&a / &b).sum() + (&a / k).sum()
}

/// The partials of an elementwise quotient in its denominator, `-(a / b) / b`, where `b²`
/// leaves `f64`'s range but the slope does not (`-a / b²` gave -0 and -∞ there), the same as
/// the scalar rule's.
#[test]
fn quotients_where_the_denominators_square_overflows() {
    let a = array![1e200, 1e-200, 3.0, -5e-170];
    let b = array![1e200, 1e-200, 2.0, 1e-160];
    let k = 1e180;
    let g = gradient(quotients, (a.clone(), b.clone(), k)).unwrap();
    let da = g.wrt[0].as_ref().and_then(Tangent::as_array).unwrap();
    let db = g.wrt[1].as_ref().and_then(Tangent::as_array).unwrap();
    for i in 0..a.len() {
        assert_eq!(da[i], 1.0 / b[i] + 1.0 / k, "∂a[{i}]");
        assert_eq!(db[i], -(a[i] / b[i]) / b[i], "∂b[{i}]");
        assert!(db[i].is_finite() && db[i] != 0.0, "∂b[{i}] = {}", db[i]);
    }
    let dk = g.wrt[2].as_ref().and_then(Tangent::as_scalar).unwrap();
    let want: f64 = a.iter().map(|&x| -(x / k) / k).sum();
    assert!((dk - want).abs() <= 1e-12 * want.abs(), "{dk} vs {want}");
}

/// ndarray's `len` is a count, constant around the point (it was taken for a float's bits
/// re-encoded, and the gradient refused as `Indeterminacy::Unseen`, a tester, 2026-11-27).
#[irtrack::tracked]
fn mean_of_squares(x: ndarray::Array1<f64>) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i];
    }
    s / n as f64
}

#[test]
fn an_arrays_length_is_a_constant_count() {
    let x = ndarray::array![1.0, 2.0, 3.0];
    let g = irtrack::gradient(mean_of_squares, (x.clone(),)).unwrap();
    let g = g.wrt[0]
        .as_ref()
        .and_then(|t| t.as_array())
        .unwrap()
        .to_owned();
    // 2 x_i / n.
    for (i, gi) in g.iter().enumerate() {
        assert!((gi - 2.0 * x[i] / 3.0).abs() < 1e-15, "{gi}");
    }
}

// Zeros that hold at a point only, met by infinite slopes inside array operations (a tester,
// 2026-11-28): the elementwise rules multiplied as `times` does, absorbing an infinite
// sensitivity into any zero partial, where the scalar sweep follows which zeros are limits.
// Each gave a number; the scalar forms were refused.

#[tracked]
fn cube_then_cbrt(x: ndarray::Array1<f64>) -> f64 {
    (&(&x * &x) * &x).mapv(f64::cbrt).sum()
}

#[tracked]
fn reciprocal_twice(x: ndarray::Array1<f64>) -> f64 {
    (1.0 / &(1.0 / &x)).sum()
}

#[tracked]
fn norm_of_squares(x: ndarray::Array1<f64>) -> f64 {
    (&x * &x).sum().sqrt()
}

#[tracked]
fn norm_by_dot(x: ndarray::Array1<f64>) -> f64 {
    x.dot(&x).sqrt()
}

#[tracked]
fn distance(a: ndarray::Array1<f64>, b: ndarray::Array1<f64>) -> f64 {
    let d = &a - &b;
    (&d * &d).sum().sqrt()
}

#[test]
fn zeros_at_a_point_met_by_infinite_slopes_are_refused_in_arrays() {
    use ndarray::array;
    // Σx written as ∛(x³) and 1/(1/x): [0, 1] for [1, 1].
    assert!(irtrack::gradient(cube_then_cbrt, (array![0.0, 2.0],)).is_err());
    assert!(irtrack::gradient(reciprocal_twice, (array![0.0, 2.0],)).is_err());
    // The norm at its cone point, and the distance between equal points: [0, 0].
    assert!(irtrack::gradient(norm_of_squares, (array![0.0, 0.0],)).is_err());
    assert!(irtrack::gradient(distance, (array![1.0, 2.0], array![1.0, 2.0])).is_err());
    // Squares that underflow: the value 0, the gradient [∞, ∞] for [0.71, 0.71].
    for g in [
        irtrack::gradient(norm_by_dot, (array![1e-170, 1e-170],)),
        irtrack::gradient(norm_of_squares, (array![1e-170, 1e-170],)),
    ] {
        assert!(
            matches!(g, Err(irtrack::GradError::Indeterminate { .. })),
            "{:?}",
            g.map(|g| g.wrt)
        );
    }
    // Away from those points: the closed forms.
    let wrt = |g: irtrack::Gradient<f64>| -> Vec<f64> {
        g.wrt[0]
            .as_ref()
            .and_then(|t| t.as_array())
            .unwrap()
            .iter()
            .copied()
            .collect()
    };
    let close = |got: Vec<f64>, want: [f64; 2]| {
        assert!(
            got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-12),
            "{got:?} vs {want:?}"
        );
    };
    close(
        wrt(irtrack::gradient(cube_then_cbrt, (array![-1.5, 2.0],)).unwrap()),
        [1.0, 1.0],
    );
    close(
        wrt(irtrack::gradient(reciprocal_twice, (array![-1.5, 2.0],)).unwrap()),
        [1.0, 1.0],
    );
    close(
        wrt(irtrack::gradient(norm_by_dot, (array![3.0, 4.0],)).unwrap()),
        [0.6, 0.8],
    );
}

#[tracked]
fn tanh_layer(w: ndarray::Array2<f64>, x: ndarray::Array1<f64>) -> ndarray::Array1<f64> {
    w.dot(&x).mapv(f64::tanh)
}

/// A seed of another shape than the output's is `GradError::Shape` (it panicked in ndarray).
#[test]
fn a_seed_of_the_wrong_shape_is_an_error() {
    use ndarray::array;
    let (_, back) = irtrack::pullback(
        tanh_layer,
        (array![[0.5, -0.3], [0.1, 0.8]], array![1.0, 2.0]),
    );
    for seed in [
        irtrack::Tangent::Vector(vec![1.0, 2.0, 3.0]),
        irtrack::Tangent::Scalar(1.0),
    ] {
        let e = back.call(seed).unwrap_err();
        assert!(matches!(e, irtrack::GradError::Shape { .. }), "{e}");
    }
    assert!(back.call(vec![1.0, 0.5]).is_ok());
}

#[tracked]
fn masked_roots(x: ndarray::Array1<f64>) -> f64 {
    let mask = ndarray::array![1.0, 0.0, 1.0];
    (&x * &mask).mapv(f64::sqrt).sum()
}

/// A constant mask's zeros are zeros on a neighbourhood: the infinite slope of `sqrt` at the
/// masked element meets an exact 0, and the gradient is the closed form's (refused for a while
/// on 2026-11-28, when every zero partial met by ∞ was).
#[test]
fn a_constant_masks_zeros_absorb_infinite_slopes() {
    let g = irtrack::gradient(masked_roots, (ndarray::array![0.5, 0.3, 2.0],)).unwrap();
    let d = g.wrt[0]
        .as_ref()
        .and_then(|t| t.as_array())
        .unwrap()
        .to_owned();
    let want = [0.5 / 0.5f64.sqrt(), 0.0, 0.5 / 2f64.sqrt()];
    for (got, want) in d.iter().zip(want) {
        assert!((got - want).abs() < 1e-12, "{d} vs {want:?}");
    }
}
