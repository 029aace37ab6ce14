//! Values changed in place through a `&mut` borrow written in an expression (`let _ = f(&mut
//! y)`, `let k = f(&mut w)`), where `#[tracked]` gives the value no new version, read back
//! afterwards (found 2026-11-27 by the third adversarial round, 16 cases). The stale-edge checks
//! compare recorded values, so they missed a change that left the value as it was at the
//! recorded point (0 scaled, 1 squared, a unit vector normalised), and the slice, `to_vec` and
//! `ndarray` rules had no check at all: gradients 2, 0.54, [1, 0], [1, 1, 1], … for 6, 1.08,
//! [0.64, -0.48], [2, 2, 2], …. The macro now notes the operands a call takes by `&mut` as
//! written (and the receiver of a std container's mutating method: `v.swap_remove(0)`), and the
//! sweep refuses a read of such a value after the call (`GradError::Mutation`, naming the
//! call). Each case keeps its truth, and the gradient must be it or that error.

#![allow(clippy::useless_vec)]

use irtrack::{gradient, tracked, GradError, Gradient, Tangent};
use ndarray::{array, Array1};

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-9 * want.abs().max(1.0)
}

/// The error naming the call that took the value by `&mut`; an `Ok` must be right.
fn refused<T>(r: &Result<Gradient<T>, GradError>) {
    if let Err(e) = r {
        assert!(matches!(e, GradError::Mutation { .. }), "{e:?}");
    }
}

/// Right (within 1e-9 relative) or the `&mut` error; never a wrong number.
fn scalar_right_or_error<T>(r: Result<Gradient<T>, GradError>, k: usize, truth: f64) {
    refused(&r);
    if let Ok(g) = r {
        let got = g.wrt[k]
            .as_ref()
            .and_then(Tangent::as_scalar)
            .expect("a scalar gradient");
        assert!(close(got, truth), "gradient {got}, truth {truth}");
    }
}

fn vector_right_or_error<T>(r: Result<Gradient<T>, GradError>, truth: &[f64]) {
    refused(&r);
    if let Ok(g) = r {
        let got: Vec<f64> = match g.wrt[0].as_ref().expect("a gradient") {
            Tangent::Vector(v) => v.clone(),
            #[allow(unreachable_patterns)]
            t => t
                .as_array()
                .expect("a vector or array")
                .iter()
                .copied()
                .collect(),
        };
        assert_eq!(got.len(), truth.len());
        for (a, b) in got.iter().zip(truth) {
            assert!(close(*a, *b), "gradient {got:?}, truth {truth:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 1. A value changed in place by an untracked `&mut` helper whose result is used (`let _ =
//    f(&mut y)`): the stale-edge check compares recorded values, so it does not fire where the
//    change leaves the value as it was at the recorded point (0 scaled, 1 squared, a unit vector
//    normalised), yet the derivative of the change is not 1.
// ---------------------------------------------------------------------------------------------

fn triple(v: &mut f64) -> bool {
    *v *= 3.0;
    true
}

#[tracked]
fn tripled_in_place(x: f64) -> f64 {
    let mut y = x * 2.0;
    let _ = triple(&mut y);
    y
}

/// `y = 6x`: slope 6. Before: `Ok(2.0)` at x = 0 (at x = 1.5 it refuses, as tests/trust_runtime.rs
/// checks).
#[test]
fn stale_scalar_unchanged_at_zero() {
    assert_eq!(tripled_in_place(0.0), 0.0);
    scalar_right_or_error(gradient(tripled_in_place, (0.0,)), 0, 6.0);
}

fn square_in_place(v: &mut f64) -> bool {
    *v = *v * *v;
    true
}

#[tracked]
fn sine_of_squared(x: f64) -> f64 {
    let mut y = x;
    let _ = square_in_place(&mut y);
    y.sin()
}

/// `sin(x²)` at 1: slope `2 cos 1` = 1.0806. Before: `Ok(0.5403)` (`cos 1`).
#[test]
fn stale_scalar_squared_at_one() {
    scalar_right_or_error(gradient(sine_of_squared, (1.0,)), 0, 2.0 * 1f64.cos());
}

fn normalize(v: &mut [f64]) -> f64 {
    let n = v.iter().map(|e| e * e).sum::<f64>().sqrt();
    for e in v.iter_mut() {
        *e /= n;
    }
    n
}

#[tracked]
fn first_of_normalized(v: Vec<f64>) -> f64 {
    let mut w = v.clone();
    let _n = normalize(&mut w);
    w[0]
}

/// `v₀ / |v|` at the unit vector (0.6, 0.8): gradient (1 - 0.36, -0.48) = (0.64, -0.48).
/// Before: `Ok([1.0, 0.0])`.
#[test]
fn stale_vector_normalized_unit_vector() {
    vector_right_or_error(
        gradient(first_of_normalized, (vec![0.6, 0.8],)),
        &[0.64, -0.48],
    );
}

fn scale_all(v: &mut [f64]) -> usize {
    for e in v.iter_mut() {
        *e *= 2.0;
    }
    v.len()
}

#[tracked]
fn sum_of_doubled(v: Vec<f64>) -> f64 {
    let mut w = v.clone();
    let _n = scale_all(&mut w);
    let s: f64 = w.iter().sum();
    s
}

/// `2 Σ v`: gradient (2, 2, 2). irtrack at v = 0: `Ok([1.0, 1.0, 1.0])` (the second round's
/// witness on `v.iter().sum()` passes because the zero vector doubled is the zero vector; at
/// v = (1, 1) it refuses).
#[test]
fn stale_vector_sum_at_zeros() {
    vector_right_or_error(gradient(sum_of_doubled, (vec![0.0; 3],)), &[2.0, 2.0, 2.0]);
}

// ---------------------------------------------------------------------------------------------
// 2. A slice of a vector changed in place: `v[a..b]` (and what is made from it) is not checked
//    against the vector it refers to, so its edge to the old vector is followed at ordinary
//    points. (`w[0]` directly is refused; `&w[0..1]` then `[0]` is not.)
// ---------------------------------------------------------------------------------------------

fn triple_first(v: &mut [f64]) -> usize {
    v[0] *= 3.0;
    1
}

#[tracked]
fn element_of_slice(v: Vec<f64>) -> f64 {
    let mut w = v.clone();
    let _k = triple_first(&mut w);
    let u = &w[0..1];
    u[0]
}

/// `3 v₀`: gradient (3, 0). Before: `Ok([1.0, 0.0])`.
#[test]
fn slice_of_a_vector_changed_in_place() {
    assert_eq!(element_of_slice(vec![0.5, 1.5]), 1.5);
    vector_right_or_error(gradient(element_of_slice, (vec![0.5, 1.5],)), &[3.0, 0.0]);
}

#[tracked]
fn element_of_to_vec(v: Vec<f64>) -> f64 {
    let mut w = v.clone();
    let _k = triple_first(&mut w);
    let u = w[..].to_vec();
    u[0]
}

/// `3 v₀`: gradient (3, 0). Before: `Ok([1.0, 0.0])`.
#[test]
fn to_vec_of_a_slice_of_a_vector_changed_in_place() {
    vector_right_or_error(gradient(element_of_to_vec, (vec![0.5, 1.5],)), &[3.0, 0.0]);
}

#[tracked]
fn sum_of_full_slice(v: Vec<f64>) -> f64 {
    let mut w = v.clone();
    let _n = scale_all(&mut w);
    let s: f64 = w[..].iter().sum();
    s
}

/// `2 Σ v`: gradient (2, 2, 2). Before: `Ok([1.0, 1.0, 1.0])` (the same sum without `[..]`
/// is refused since the second round).
#[test]
fn sum_over_a_slice_of_a_vector_changed_in_place() {
    vector_right_or_error(
        gradient(sum_of_full_slice, (vec![0.5, -1.5, 2.0],)),
        &[2.0, 2.0, 2.0],
    );
}

#[tracked]
fn tail_of_mut_argument(mut v: Vec<f64>) -> f64 {
    let _ = scale_all(&mut v);
    let u = &v[1..];
    u[0] * 5.0
}

/// `10 v₁`: gradient (0, 10, 0). Before: `Ok([0.0, 5.0, 0.0])`.
#[test]
fn tail_slice_of_an_argument_changed_in_place() {
    vector_right_or_error(
        gradient(tail_of_mut_argument, (vec![0.5, -1.5, 2.0],)),
        &[0.0, 10.0, 0.0],
    );
}

// ---------------------------------------------------------------------------------------------
// 3. ndarray: after `let _ = f(&mut a)`, every array rule follows the stale edge to the old
//    array: indexing, `*` by a scalar, negation, `mean`, `dot`, `mapv`, `powi`, `view`, `t()`.
//    (Only `a.sum()`, `a.clone()` and `a.sin()` refuse.) The scalar operators' re-run check
//    has no array counterpart.
// ---------------------------------------------------------------------------------------------

fn triple_first_elem(a: &mut Array1<f64>) -> usize {
    a[0] *= 3.0;
    1
}

#[tracked]
fn nd_index(x: Array1<f64>) -> f64 {
    let mut a = x.clone();
    let _k = triple_first_elem(&mut a);
    a[0]
}

/// `3 x₀`: gradient (3, 0, 0). Before: `Ok([1.0, 0.0, 0.0])`.
#[test]
fn nd_index_of_an_array_changed_in_place() {
    vector_right_or_error(
        gradient(nd_index, (array![0.5, -1.5, 2.0],)),
        &[3.0, 0.0, 0.0],
    );
}

#[tracked]
fn nd_scaled(x: Array1<f64>) -> f64 {
    let mut a = x.clone();
    let _k = triple_first_elem(&mut a);
    let b = &a * 2.0;
    b[0]
}

/// `6 x₀`: gradient (6, 0, 0). Before: `Ok([2.0, 0.0, 0.0])`.
#[test]
fn nd_product_with_a_scalar_of_an_array_changed_in_place() {
    vector_right_or_error(
        gradient(nd_scaled, (array![0.5, -1.5, 2.0],)),
        &[6.0, 0.0, 0.0],
    );
}

#[tracked]
fn nd_mean(x: Array1<f64>) -> f64 {
    let mut a = x.clone();
    let _k = triple_first_elem(&mut a);
    a.mean().unwrap()
}

/// `(3 x₀ + x₁ + x₂) / 3`: gradient (1, 1/3, 1/3). Before: `Ok([1/3, 1/3, 1/3])`.
#[test]
fn nd_mean_of_an_array_changed_in_place() {
    vector_right_or_error(
        gradient(nd_mean, (array![0.5, -1.5, 2.0],)),
        &[1.0, 1.0 / 3.0, 1.0 / 3.0],
    );
}

#[tracked]
fn nd_dot(x: Array1<f64>) -> f64 {
    let mut a = x.clone();
    let _k = triple_first_elem(&mut a);
    a.dot(&x)
}

/// `3 x₀² + x₁² + x₂²` at (0.5, -1.5, 2): gradient (3, -3, 4). Before: `Ok([1.0, -3.0, 4.0])`.
#[test]
fn nd_dot_of_an_array_changed_in_place() {
    vector_right_or_error(
        gradient(nd_dot, (array![0.5, -1.5, 2.0],)),
        &[3.0, -3.0, 4.0],
    );
}

#[tracked]
fn nd_mapv(x: Array1<f64>) -> f64 {
    let mut a = x.clone();
    let _k = triple_first_elem(&mut a);
    let b = a.mapv(f64::sin);
    b[0]
}

/// `sin(3 x₀)` at 0.5: gradient (3 cos 1.5, 0, 0) = (0.2122, 0, 0). Before: `Ok([cos 0.5 =
/// 0.8776, 0, 0])`.
#[test]
fn nd_mapv_of_an_array_changed_in_place() {
    vector_right_or_error(
        gradient(nd_mapv, (array![0.5, -1.5, 2.0],)),
        &[3.0 * 1.5f64.cos(), 0.0, 0.0],
    );
}

#[tracked]
fn nd_neg(x: Array1<f64>) -> f64 {
    let mut a = x.clone();
    let _k = triple_first_elem(&mut a);
    let b = -&a;
    b[0]
}

/// `-3 x₀`: gradient (-3, 0, 0). Before: `Ok([-1.0, -0.0, -0.0])`.
#[test]
fn nd_negation_of_an_array_changed_in_place() {
    vector_right_or_error(
        gradient(nd_neg, (array![0.5, -1.5, 2.0],)),
        &[-3.0, 0.0, 0.0],
    );
}

#[tracked]
fn nd_powi_sum(x: Array1<f64>) -> f64 {
    let mut a = x.clone();
    let _k = triple_first_elem(&mut a);
    a.powi(2).sum()
}

/// `9 x₀² + x₁² + x₂²` at (0.5, -1.5, 2): gradient (9, -3, 4). Before: `Ok([1.0, -3.0, 4.0])`.
#[test]
fn nd_powi_of_an_array_changed_in_place() {
    vector_right_or_error(
        gradient(nd_powi_sum, (array![0.5, -1.5, 2.0],)),
        &[9.0, -3.0, 4.0],
    );
}

// ---------------------------------------------------------------------------------------------
// 4. The same class by other writes, and what is not refused.
// ---------------------------------------------------------------------------------------------

#[tracked]
fn swap_removed(x: f64) -> f64 {
    let mut v = vec![x, x * x];
    let first = v.swap_remove(0);
    first + v[0]
}

#[tracked]
fn replaced(x: f64) -> f64 {
    let mut a = x;
    let old = std::mem::replace(&mut a, 3.0 * x);
    old + a
}

/// `x + x²` read as `v[0]` after `swap_remove(0)` moved `x²` there: at x = 1 both are 1, and
/// the element read of the recorded vector gave the slope of `x` (2 for 3). `mem::replace`
/// leaves `a = 3x`: slope 4, not 2.
#[test]
fn other_writes_through_mut_are_refused() {
    assert_eq!(swap_removed(1.0), 2.0);
    scalar_right_or_error(gradient(swap_removed, (1.0,)), 0, 3.0);
    assert!(gradient(swap_removed, (1.0,)).is_err());
    scalar_right_or_error(gradient(replaced, (1.0,)), 0, 4.0);
    assert!(gradient(replaced, (1.0,)).is_err());
}

fn draw(state: &mut u64) -> f64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
    (*state >> 11) as f64 / (1u64 << 53) as f64
}

#[tracked]
fn read_before_and_counter(x: f64, seed: u64) -> f64 {
    let mut y = x * 2.0;
    let z = y * y;
    let mut s = seed;
    let u = draw(&mut s);
    let _ = triple(&mut y);
    z + u * x
}

/// What the borrow does not touch keeps its slope: a value read before the call, and a
/// generator's state (not differentiable) passed by `&mut`.
#[test]
fn reads_before_the_call_and_other_borrows_keep_their_slopes() {
    let u = draw(&mut 7);
    let g = gradient(read_before_and_counter, (1.5, 7)).unwrap();
    assert_eq!(g.scalars()[0], Some(8.0 * 1.5 + u));
    for x in [0.0, 1.5] {
        assert!(gradient(tripled_in_place, (x,)).is_err());
    }
}

// A field read after your own untracked `&mut self` method that changed the field (a fourth
// tester, 2026-11-27): the read referred to the struct as it was before the call, so the
// gradient was the old field's (4 for -2). A struct deriving `Snapshot` now keeps a reader of
// its float fields, and the sweep checks each field read against the field of the value it
// read from.

#[derive(Clone, Debug, irtrack::Snapshot)]
pub struct Flippable {
    pub a: f64,
    pub b: f64,
}

impl Flippable {
    fn flip(&mut self) -> f64 {
        self.a = -self.a;
        1.0
    }
}

#[tracked]
fn read_after_a_flip(p: Flippable) -> f64 {
    let mut p = p;
    let a0 = p.a;
    let _ = p.flip();
    let a1 = p.a;
    a1 * 3.0 + a0 + p.b
}

#[tracked]
fn read_before_a_flip(p: Flippable) -> f64 {
    let mut p = p;
    let (a0, b) = (p.a, p.b);
    let _ = p.flip();
    a0 * 3.0 + b
}

#[test]
fn a_field_changed_by_an_unseen_method_is_not_read_stale() {
    // Truth: -3a + a + b, gradient (-2, 1); refused, as the read cannot be followed.
    let g = gradient(read_after_a_flip, (Flippable { a: 1.0, b: 2.0 },));
    match g {
        Err(GradError::NoRule {
            reason: Some(r), ..
        }) => assert!(r.contains("read the field before the call"), "{r}"),
        other => panic!("{other:?}"),
    }
    // Read before the call: right.
    let g = gradient(read_before_a_flip, (Flippable { a: 1.0, b: 2.0 },)).unwrap();
    assert_eq!(
        g.wrt[0],
        Some(Tangent::Fields(vec![
            ("a".into(), Tangent::Scalar(3.0)),
            ("b".into(), Tangent::Scalar(1.0)),
        ]))
    );
}
