//! The fast path of `gradient` (a flat tape swept over `f64` adjoints, `irtrack-runtime`'s
//! `grad/fast.rs`) against the general sweep it stands in for, and against closed forms.
//!
//! For every function here, the gradient with the fast path allowed and the gradient with it
//! turned off (`grad::with_general_sweep`) must be the same, bit for bit, or the same error;
//! the cases the fast path is for must be answered by it (`grad::fast_gradients_taken`), and
//! the refusals of the general sweep (a stale operand, a float re-encoded as bits, a field read
//! through untracked code, a node left by a panic) must still be refusals.

#![allow(clippy::needless_range_loop)]

mod common;
use common::dense;

use irtrack::grad::{fast_gradients_taken, with_general_sweep};
use irtrack::{gradient, pullback, tracked, Callable, GradError, Gradient, Tangent};

/// The bits of a gradient, so that `-0.0`, `0.0` and NaN compare as the same computation.
fn bits(t: &Option<Tangent>) -> Option<Vec<u64>> {
    t.as_ref().map(|t| match t {
        Tangent::Scalar(x) => vec![x.to_bits()],
        Tangent::Vector(v) => v.iter().map(|x| x.to_bits()).collect(),
        // The fields of a struct argument: floats print exactly, so equal text is equal bits.
        other => format!("{other:?}").bytes().map(u64::from).collect(),
    })
}

/// Runs `gradient(f, args)` both ways and checks they agree; returns the fast path's result
/// and whether the fast path answered it.
fn both<F, A>(f: F, args: A) -> (Result<Gradient<F::Output>, GradError>, bool)
where
    F: Callable<A> + Copy,
    A: Clone,
    F::Output: PartialEq + std::fmt::Debug,
{
    let before = fast_gradients_taken();
    let fast = gradient(f, args.clone());
    let taken = fast_gradients_taken() > before;
    let general = with_general_sweep(|| gradient(f, args));
    match (&fast, &general) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.value, b.value);
            let a: Vec<_> = a.wrt.iter().map(bits).collect();
            let b: Vec<_> = b.wrt.iter().map(bits).collect();
            assert_eq!(a, b, "the fast path and the general sweep differ");
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("fast path {a:?}, general sweep {b:?}"),
    }
    (fast, taken)
}

/// The scalar gradient of argument `i`.
fn d<T>(g: &Gradient<T>, i: usize) -> f64 {
    g.wrt[i].as_ref().and_then(Tangent::as_scalar).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

// ---------------------------------------------------------------------------------------------
// What the fast path answers.
// ---------------------------------------------------------------------------------------------

#[tracked]
fn h(x: f64, n: i32) -> f64 {
    let mut r = 0.0;
    let mut i = 0;
    while i < n {
        r += x.powi(i);
        i += 1;
    }
    r
}

#[tracked]
fn rec(x: f64, k: u32) -> f64 {
    if k == 0 {
        x
    } else {
        rec(x, k - 1).sin() * x + 0.5
    }
}

#[test]
fn the_benchmark_workloads_take_the_fast_path() {
    let (g, taken) = both(h, (1.01, 100));
    assert!(taken);
    // d/dx Σ_{i<100} x^i = Σ i x^(i-1).
    let truth: f64 = (1..100).map(|i| i as f64 * 1.01f64.powi(i - 1)).sum();
    assert!(close(d(&g.unwrap(), 0), truth));

    let (g, taken) = both(rec, (0.7, 50));
    assert!(taken);
    // r_k' = cos(r_{k-1}) r_{k-1}' x + sin(r_{k-1}), r_0' = 1.
    let (mut r, mut dr) = (0.7f64, 1.0f64);
    for _ in 0..50 {
        (r, dr) = (r.sin() * 0.7 + 0.5, r.cos() * dr * 0.7 + r.sin());
    }
    let g = g.unwrap();
    assert_eq!(g.value, r);
    assert!(close(d(&g, 0), dr));

    let w: Vec<Vec<f64>> = (0..8)
        .map(|j| {
            (0..8)
                .map(|i| ((i * 7 + j * 3) % 11) as f64 / 20.0 - 0.25)
                .collect()
        })
        .collect();
    let x: Vec<f64> = (0..8).map(|i| (i as f64 - 3.5) / 4.0).collect();
    let (g, taken) = both(dense, (&w[..], &x[..]));
    assert!(taken);
    let g = g.unwrap();
    assert_eq!(g.wrt[0], None);
    let dx = g.wrt[1].as_ref().and_then(Tangent::as_slice).unwrap();
    // d/dx_i Σ_j tanh(s_j) = Σ_j (1 - tanh²(s_j)) W[j][i].
    for i in 0..8 {
        let truth: f64 = (0..8)
            .map(|j| {
                let s: f64 = (0..8).map(|k| w[j][k] * x[k]).sum();
                (1.0 - s.tanh().powi(2)) * w[j][i]
            })
            .sum();
        assert!(close(dx[i], truth), "{} against {truth}", dx[i]);
    }
}

#[tracked]
fn small_terms(x: Vec<f64>) -> f64 {
    let mut s = 1.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    s.ln()
}

const TOINT: f64 = 1.5 / f64::EPSILON;

#[tracked]
fn reduced_square(x: f64) -> f64 {
    let k = x * std::f64::consts::FRAC_2_PI + TOINT - TOINT;
    let r = x - k * std::f64::consts::FRAC_PI_2;
    r * r
}

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
fn relu_sum(x: Vec<f64>, b: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let z = x[i] - b;
        if z > 0.0 {
            s += z;
        }
    }
    s
}

/// The fast path runs the general sweep's forward checks over its own tape: it answers sums
/// that round small terms (some products of 10⁻⁶ here, which drop 40 bits) and orderings that
/// hold by a margin, and declines a rounding undone downstream and a converged bisection,
/// which the general sweep refuses (it declined every sum dropping 26 bits and more, and
/// answered the reduction past |x| ≈ 10⁸ with the slope 0).
#[test]
fn the_fast_path_checks_roundings_and_margins_itself() {
    let x = vec![0.5, 1e-6, -0.25, 3e-7, 0.125];
    let (g, taken) = both(small_terms, (x.clone(),));
    assert!(taken);
    let s = 1.0 + x.iter().map(|v| v * v).sum::<f64>();
    let dx = g.unwrap().wrt[0].clone().unwrap();
    for (d, v) in dx.as_slice().unwrap().iter().zip(&x) {
        assert!(close(*d, 2.0 * v / s), "{d}");
    }
    let (g, taken) = both(relu_sum, (vec![0.5, -1.0, 2.0, 1e-3], 1e-4));
    assert!(taken);
    let g = g.unwrap();
    assert_eq!(
        g.wrt[0].as_ref().unwrap().as_slice().unwrap(),
        &[1.0, 0.0, 1.0, 1.0]
    );
    assert_eq!(d(&g, 1), -3.0);
    for x in [0.3, 1e9 + 0.3] {
        let (g, taken) = both(reduced_square, (x,));
        assert!(g.is_err() && !taken);
    }
    let (g, taken) = both(cbrt_halving, (0.5,));
    assert!(g.is_err() && !taken);
}

#[tracked]
fn arithmetic(a: f64, b: f64) -> f64 {
    let mut s = a + b;
    s -= a * b;
    s *= a - 2.0;
    s /= b;
    let t = -s % 3.0;
    t + a / (b + 1.0)
}

#[tracked]
fn methods(a: f64, b: f64) -> f64 {
    let u = a.sin() * b.cos() + a.tanh() - b.exp().ln();
    let v = a.abs().sqrt() + b.powf(1.5) + a.max(b) - a.min(b);
    let w = a.atan2(b) + a.hypot(b) + a.mul_add(b, 1.0) + a.clamp(-1.0, 0.5);
    u * v + w + (a * 3.0).powi(3)
}

#[tracked]
fn casts_and_branches(x: f64, n: i64) -> f64 {
    let k = n as f64;
    let m = (x * 4.0) as i64;
    let y = if x < 0.5 { x * k } else { x / k };
    let r = &y;
    let z = *r;
    match m {
        0 => z,
        1 | 2 => z * x,
        _ => z + m as f64,
    }
}

#[tracked]
fn square(x: f64) -> f64 {
    x * x
}

#[tracked]
fn nested(x: f64, y: f64) -> f64 {
    let a = square(x) + square(y);
    let b = square(a.sin());
    a * b + square(2.0)
}

#[tracked]
fn unused(x: f64, y: f64) -> f64 {
    let _ = y * 2.0;
    x + 1.0
}

#[tracked]
fn sum_of_squares(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

#[test]
fn each_rule_of_the_fast_path_matches_the_general_sweep() {
    for (a, b) in [(0.3, 1.7), (-0.4, 2.6), (0.45, 0.9)] {
        let (g, taken) = both(arithmetic, (a, b));
        assert!(taken);
        let g = g.unwrap();
        // Central differences of the untracked arithmetic: an independent check.
        let f = |a: f64, b: f64| {
            let mut s = a + b;
            s -= a * b;
            s *= a - 2.0;
            s /= b;
            -s % 3.0 + a / (b + 1.0)
        };
        let e = 1e-6;
        assert!((d(&g, 0) - (f(a + e, b) - f(a - e, b)) / (2.0 * e)).abs() < 1e-6);
        assert!((d(&g, 1) - (f(a, b + e) - f(a, b - e)) / (2.0 * e)).abs() < 1e-6);

        let (_, taken) = both(methods, (a, b));
        assert!(taken);
    }
    for x in [0.1, 0.3, 0.6, 0.9] {
        let (_, taken) = both(casts_and_branches, (x, 3));
        assert!(taken);
    }
    let (g, taken) = both(nested, (0.3, 0.8));
    assert!(taken);
    assert!(g.is_ok());
    // An argument the output does not depend on gets a zero, not nothing.
    let (g, taken) = both(unused, (0.3, 0.8));
    assert!(taken);
    assert_eq!(g.unwrap().wrt[1], Some(Tangent::Scalar(0.0)));
    let v = [1.0, -2.0, 0.5];
    let (g, taken) = both(sum_of_squares, (&v[..],));
    assert!(taken);
    assert_eq!(
        g.unwrap().wrt[0],
        Some(Tangent::Vector(vec![2.0, -4.0, 1.0]))
    );
}

// `s - s` on purpose: a sensitivity that cancels to zero above an infinite partial.
#[allow(clippy::eq_op)]
#[tracked]
fn cancelled(x: f64) -> f64 {
    let s = x.sqrt();
    let flat = s - s;
    flat * 2.0 + x.max(0.5)
}

/// Zero contributions are not given, as the general sweep does, whether a partial is zero
/// (`max` at the side it did not take) or a sensitivity cancels to zero above an infinite
/// partial (`sqrt` at 0): the fast path must not differ from the general sweep there either.
#[test]
fn zero_contributions_are_not_given_as_in_the_general_sweep() {
    for x in [0.25, 1.0, 4.0] {
        let (_, taken) = both(cancelled, (x,));
        assert!(taken);
    }
    // At 0 `sqrt`'s slope is infinite: the fast path declines any infinite slope (one may meet
    // a zero that is 0 at this point only, which the general sweep tells from an exact one:
    // `x.cbrt().powi(3)`), and the general sweep's cancelled sensitivity passes nothing on.
    let (g, taken) = both(cancelled, (0.0,));
    assert!(!taken);
    assert_eq!(g.unwrap().scalars(), [Some(0.0)]);
    for seed in [0.0, -0.0, 1.0] {
        let (_, back) = pullback(rec, (0.7, 5));
        let fast = back.call(seed).unwrap();
        let general = with_general_sweep(|| back.call(seed)).unwrap();
        assert_eq!(bits(&fast[0]), bits(&general[0]));
    }
}

#[test]
fn a_pullback_reuses_its_tape_for_any_float_sensitivity() {
    let (y, back) = pullback(rec, (0.7, 20));
    let g = with_general_sweep(|| back.call(1.0)).unwrap();
    let before = fast_gradients_taken();
    for seed in [1.0, -2.5, 0.0] {
        let fast = back.call(seed).unwrap();
        let general = with_general_sweep(|| back.call(seed)).unwrap();
        assert_eq!(bits(&fast[0]), bits(&general[0]));
        assert_eq!(fast[1], None);
    }
    assert_eq!(fast_gradients_taken(), before + 3);
    assert_eq!(y, rec(0.7, 20));
    assert!(g[0].is_some());
}

// ---------------------------------------------------------------------------------------------
// What it declines, so that the general sweep answers or refuses.
// ---------------------------------------------------------------------------------------------

#[tracked]
fn through_bits(x: f64) -> f64 {
    f64::from_bits(x.to_bits() & (u64::MAX / 2))
}

fn scale_in_place(k: &mut f64, by: f64) {
    *k *= by;
}

#[tracked]
fn stale(x: f64) -> f64 {
    let mut k = 2.0;
    scale_in_place(&mut k, x);
    k * x
}

#[tracked]
fn with_f32(x: f32) -> f32 {
    x * x
}

#[tracked]
fn by_iterator(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for x in &v {
        s += x * 2.0;
    }
    s
}

#[derive(Clone, Debug, irtrack::Snapshot)]
struct Lin {
    w: f64,
    b: f64,
}

#[tracked]
fn model(m: &Lin, x: f64) -> f64 {
    m.w * x + m.b
}

#[test]
fn what_the_fast_path_cannot_prove_goes_to_the_general_sweep() {
    // A float re-encoded as bits: an error naming it, both ways.
    let (g, taken) = both(through_bits, (-2.5,));
    assert!(!taken);
    assert!(g.is_err());
    // An operand changed in place after it was recorded: the witness fails, and the general
    // sweep gives its answer (an error, or the right value: 4x).
    let (g, taken) = both(stale, (5.0,));
    assert!(!taken);
    if let Ok(g) = g {
        assert_eq!(d(&g, 0), 20.0);
    }
    // `f32`, iterators, fields of a struct argument: not on the fast path, still right.
    let (g, taken) = both(with_f32, (1.5,));
    assert!(!taken);
    assert_eq!(g.unwrap().wrt[0], Some(Tangent::Scalar(3.0)));
    let (g, taken) = both(by_iterator, (vec![1.0, 2.0],));
    assert!(!taken);
    assert_eq!(g.unwrap().wrt[0], Some(Tangent::Vector(vec![2.0, 2.0])));
    let (g, taken) = both(model, (&Lin { w: 2.0, b: 1.0 }, 3.0));
    assert!(!taken);
    assert_eq!(d(&g.unwrap(), 1), 2.0);
}

#[tracked]
fn guard_of_and(x: f64) -> f64 {
    // A match on a float declines the fast path by itself: the guard is on a count's arm.
    match (x as i64).signum() {
        1 if x > 1.0 && x < 3.0 => 5.0 * x,
        _ => x,
    }
}

fn is_zero(x: f64) -> bool {
    x == 0.0
}

#[tracked]
fn guard_of_an_untracked_test(x: f64) -> f64 {
    match (x as i64).signum() {
        0 | 1 if is_zero(x) || x > 1.0 => 5.0 * x,
        _ => x,
    }
}

/// A match guard of `&&` and `||` names the conditions that ran: the fast path reads them as
/// the general sweep does (bit for bit), and declines one computed by untracked code.
#[test]
fn a_guard_of_and_and_or_takes_the_fast_path() {
    for (x, slope) in [(2.5, 5.0), (0.5, 1.0), (3.5, 1.0)] {
        let (g, taken) = both(guard_of_and, (x,));
        assert!(taken, "{x}");
        assert_eq!(d(&g.unwrap(), 0), slope);
    }
    for x in [0.0, 2.0] {
        let (g, _) = both(guard_of_an_untracked_test, (x,));
        assert!(g.is_err());
    }
}
