//! Gradients through tuples: a part read (`t.1`), bound (`let (a, b) = t`, `match t { (a, _)
//! => … }`) or nested (`(t.0).1`, `let ((a, _), b) = t`) gives its sensitivity to the tuple at
//! its path, and the literal that built the tuple gives each part's to its operand — also
//! across a tracked function returning the tuple (libm's `rem_pio2` returns `(n, y0, y1)` to
//! `sin`). Until 2026-11-27 each of these was `GradError::NoRule` ("gradients do not follow a
//! destructuring"). Truths: closed forms, checked against central differences.

use irtrack::grad::{with_general_sweep, Indeterminacy};
use irtrack::{gradient, tracked, GradError};

#[tracked]
fn sin_and_square(x: f64) -> (f64, f64) {
    (x.sin(), x * x)
}

#[tracked]
fn destructured_result(x: f64) -> f64 {
    let (s, q) = sin_and_square(x);
    s * q
}

#[tracked]
fn parts_read(x: f64) -> f64 {
    let p = sin_and_square(x);
    p.0 + 3.0 * p.1
}

#[tracked]
fn nested(x: f64) -> f64 {
    let t = ((x, 1.0), 3.0 * x);
    let ((a, _), b) = t;
    a * b + (t.0).1
}

#[tracked]
fn matched(x: f64, y: f64) -> f64 {
    match (x * y, x - y) {
        (p, d) if d > 0.0 => p * d,
        (p, _) => p,
    }
}

/// libm's `sin` shape: a reduction returning `(quadrant, y0, y1)`, destructured.
#[tracked]
fn reduce(x: f64) -> (i32, f64, f64) {
    let n = (x / 1.5).floor();
    (n as i32, x - 1.5 * n, 0.0)
}

#[tracked]
fn reduced_sin(x: f64) -> f64 {
    let (n, y0, y1) = reduce(x);
    if n % 2 == 0 {
        y0.sin() + y1
    } else {
        -y0.sin()
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

fn slope(r: Result<irtrack::Gradient<f64>, GradError>, k: usize) -> f64 {
    r.unwrap().scalars()[k].unwrap()
}

fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6 * x.abs().max(1.0);
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn a_tuples_parts_carry_their_slopes() {
    let x = 0.7f64;
    let want = x.cos() * x * x + x.sin() * 2.0 * x;
    assert!(close(slope(gradient(destructured_result, (x,)), 0), want));
    let general = with_general_sweep(|| gradient(destructured_result, (x,)));
    assert!(close(slope(general, 0), want));
    assert!(close(
        slope(gradient(parts_read, (x,)), 0),
        x.cos() + 6.0 * x
    ));
    assert!(close(slope(gradient(nested, (x,)), 0), 6.0 * x));
    // (x y)(x - y) for x > y: ∂x = y(x - y) + x y, ∂y = x(x - y) - x y.
    let (a, b) = (2.0, 0.5);
    let g = gradient(matched, (a, b)).unwrap().scalars();
    assert_eq!(g, [Some(b * (a - b) + a * b), Some(a * (a - b) - a * b)]);
    for x in [0.3, 2.0, 4.0] {
        let got = slope(gradient(reduced_sin, (x,)), 0);
        let want = central(reduced_sin, x);
        assert!((got - want).abs() < 1e-6, "{x}: {got} vs {want}");
    }
}

#[tracked]
fn cube_through_a_tuple(x: f64) -> f64 {
    let c = x.cbrt();
    let (a, b, d) = (c, c, c);
    a * b * d
}

/// A limit zero carried by a tuple's part meets `cbrt`'s infinite slope at 0 (the product is
/// `x`, slope 1): refused, as through a vector, never 0.
#[test]
fn a_limit_zero_in_a_part_is_refused() {
    let e = gradient(cube_through_a_tuple, (0.0,)).unwrap_err();
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
    assert!(close(slope(gradient(cube_through_a_tuple, (0.5,)), 0), 1.0));
}
