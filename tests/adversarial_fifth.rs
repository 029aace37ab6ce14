//! A fifth adversarial round (2026-11-27, testers who did not write irtrack, given the README
//! and the source): each test here returned a silently wrong number on a5bc326, and now gets
//! the truth or a typed error. Truths: closed forms, central differences, the plain function.

// The shapes are the testers', as people write them.
#![allow(clippy::iter_nth_zero, clippy::while_let_on_iterator, clippy::useless_vec)]

use irtrack::{gradient, tracked, GradError};

/// The gradient with respect to the first argument, as a vector, or the error.
fn grad_vec(r: Result<irtrack::Gradient<f64>, GradError>) -> Result<Vec<f64>, GradError> {
    r.map(|g| g.wrt[0].as_ref().unwrap().as_slice().unwrap().to_vec())
}

// ---------------------------------------------------------------------------------------------
// An iterator moved by something other than its own `next` (`nth`, `find`, `by_ref()`), then
// read with `next`: the sweep numbered the `next` calls from 0, so every slope went to the
// element before the one read, at every point. s = 1·v1 + 2·v2 at [1, 2, 3]: truth [0, 1, 2],
// a5bc326 [1, 2, 0]. Now the elements of such `next` calls are unknown: `NoRule`.

#[tracked]
fn rest_after_nth(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    it.nth(0);
    let mut s = 0.0;
    let mut k = 1.0;
    while let Some(&e) = it.next() {
        s += k * e;
        k += 1.0;
    }
    s
}

#[tracked]
fn rest_after_find(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    let _first = it.find(|&&e| e > 0.0);
    let mut s = 0.0;
    let mut k = 1.0;
    while let Some(&e) = it.next() {
        s += k * e;
        k += 1.0;
    }
    s
}

#[tracked]
fn rest_after_by_ref(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    for _ in it.by_ref().take(1) {}
    let mut s = 0.0;
    let mut k = 1.0;
    while let Some(&e) = it.next() {
        s += k * e;
        k += 1.0;
    }
    s
}

#[tracked]
fn rest_zipped(v: Vec<f64>) -> f64 {
    let w = vec![1.0, 2.0, 3.0];
    let mut a = v.iter();
    a.nth(0);
    let mut s = 0.0;
    for (x, y) in a.zip(w.iter()) {
        s += x * y;
    }
    s
}

#[tracked]
fn rest_enumerated(v: Vec<f64>) -> f64 {
    let mut a = v.iter();
    a.nth(0);
    let mut s = 0.0;
    for (i, &e) in a.enumerate() {
        s += (i as f64 + 1.0) * e;
    }
    s
}

/// One `next` after `nth(0)`: 5·v1, truth [0, 5, 0] (a5bc326: [5, 0, 0]).
#[tracked]
fn second_after_nth(v: Vec<f64>) -> f64 {
    let mut a = v.iter();
    let _ = a.nth(0);
    let mut s = 0.0;
    if let Some(e) = a.next() {
        s = *e * 5.0;
    }
    s
}

/// The sum of what is left after one `next`: v1 + v2. At v0 = 0 the rest sums to the whole,
/// so the sum's witness held and a5bc326 gave [1, 1, 1] for [0, 1, 1].
#[tracked]
fn sum_after_next(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    let _ = it.next();
    it.sum()
}

/// Not moved otherwise: the plain loops keep their slopes.
#[tracked]
fn weighted(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    let mut s = 0.0;
    let mut k = 1.0;
    while let Some(&e) = it.next() {
        s += k * e;
        k += 1.0;
    }
    s
}

#[tracked]
fn weighted_zip(v: Vec<f64>) -> f64 {
    let w = vec![1.0, 2.0, 3.0];
    let mut s = 0.0;
    for (x, y) in v.iter().zip(w.iter()) {
        s += x * y;
    }
    s
}

#[test]
fn an_iterator_moved_otherwise_than_by_next_has_no_known_elements() {
    let x = vec![1.0, 2.0, 3.0];
    let shifted = [
        ("nth(0)", grad_vec(gradient(rest_after_nth, (x.clone(),)))),
        ("find", grad_vec(gradient(rest_after_find, (x.clone(),)))),
        ("by_ref", grad_vec(gradient(rest_after_by_ref, (x.clone(),)))),
        ("zip", grad_vec(gradient(rest_zipped, (x.clone(),)))),
        ("enumerate", grad_vec(gradient(rest_enumerated, (x.clone(),)))),
        ("one next", grad_vec(gradient(second_after_nth, (x.clone(),)))),
        (
            "general sweep",
            grad_vec(irtrack::grad::with_general_sweep(|| {
                gradient(rest_after_nth, (x.clone(),))
            })),
        ),
    ];
    for (name, got) in shifted {
        assert!(
            matches!(got, Err(GradError::NoRule { .. })),
            "{name}: {got:?}"
        );
    }
    let rest = grad_vec(gradient(sum_after_next, (vec![0.0, 1.0, 1.0],)));
    assert!(matches!(rest, Err(GradError::NoRule { .. })), "{rest:?}");
}

#[test]
fn iterators_not_moved_otherwise_keep_their_slopes() {
    let x = vec![1.0, 2.0, 3.0];
    let g = grad_vec(gradient(weighted, (x.clone(),))).unwrap();
    assert_eq!(g, [1.0, 2.0, 3.0]);
    let g = grad_vec(gradient(weighted_zip, (x.clone(),))).unwrap();
    assert_eq!(g, [1.0, 2.0, 3.0]);
}

// ---------------------------------------------------------------------------------------------
// The slope of `a.powf(b)` in `b` at a negative base: b ↦ (-1.5)^b is a number at integer b
// only (NaN between), so it has no derivative; a5bc326 said 0. Now an error, for the gradient
// and for a derivative program alike; at a positive base it is y ln a, and at a = 0, 0.

#[tracked]
fn power(x: f64, y: f64) -> f64 {
    x.powf(y)
}

#[test]
fn the_exponents_slope_at_a_negative_base_is_an_error() {
    let g = gradient(power, (-1.5, 2.0));
    assert!(g.is_err(), "{:?}", g.map(|g| g.scalars()));
    let j = irtrack::diff::jvp(power, (-1.5, 2.0), (0.0, 1.0));
    assert!(j.is_err(), "{:?}", j.map(|j| j.tangent));
    let g = gradient(power, (1.5, 2.0)).unwrap().scalars();
    assert_eq!(g, [Some(2.0 * 1.5), Some(1.5f64.powf(2.0) * 1.5f64.ln())]);
    let g = gradient(power, (0.0, 2.0)).unwrap().scalars();
    assert_eq!(g, [Some(0.0), Some(0.0)]);
    // The slope in a at a negative base with an integer exponent is there.
    let j = irtrack::diff::jvp(power, (-1.5, 2.0), (1.0, 0.0)).unwrap();
    assert_eq!(j.tangent.as_f64(), Some(2.0 * -1.5));
}

// ---------------------------------------------------------------------------------------------
// A cast `f64 as f32` that rounds a nonzero number to 0 (or to a subnormal, or a finite one
// to ∞) is no identity: it is constant around that point. `((x * x) as f32).sqrt()` at 1e-30
// had the slope ∞ and `(x as f32) as f64 / x` at 1e-50 the slope 1e50 (0 in floats, 0 in the
// reals), by gradient and `jvp` alike. Both now name the cast; elsewhere a cast to `f32` keeps
// the slope 1 of any rounding.

#[tracked]
fn sqrt_of_square_cast(x: f64) -> f64 {
    ((x * x) as f32).sqrt() as f64
}

#[tracked]
fn cast_over_self(x: f64) -> f64 {
    (x as f32) as f64 / x
}

#[tracked]
fn cast_sin(x: f64) -> f64 {
    ((x as f32).sin() as f64) * x
}

#[test]
fn a_cast_that_flushes_to_zero_has_no_slope_of_one() {
    use irtrack::diff::jvp;
    for (name, g, j) in [
        (
            "sqrt of a square",
            gradient(sqrt_of_square_cast, (1e-30,)).map(|g| g.scalars()),
            jvp(sqrt_of_square_cast, (1e-30,), (1.0,)).map(|j| j.tangent.as_f64()),
        ),
        (
            "over itself",
            gradient(cast_over_self, (1e-50,)).map(|g| g.scalars()),
            jvp(cast_over_self, (1e-50,), (1.0,)).map(|j| j.tangent.as_f64()),
        ),
    ] {
        assert!(g.is_err(), "{name}: gradient {g:?}");
        assert!(j.is_err(), "{name}: jvp {j:?}");
    }
    // In range, the cast rounds as any f32 operation: d/dx (sin(x) x) within f32's rounding.
    let x: f64 = 0.7;
    let truth = x.sin() + x * x.cos();
    let g = gradient(cast_sin, (x,)).unwrap().scalars()[0].unwrap();
    let j = jvp(cast_sin, (x,), (1.0,)).unwrap().tangent.as_f64().unwrap();
    assert!((g - truth).abs() < 1e-6 && (j - truth).abs() < 1e-6, "{g} {j} {truth}");
}

// ---------------------------------------------------------------------------------------------
// State read through a named constant (`SCALE.get()` on a `thread_local!`, a `static`
// atomic's `load`) has no dynamic operand, so a program folded it to its recorded value, and
// `update` kept it: after the state changed, the program gave 2 for 7 and the update 6 for
// 21. A program now refuses such a read; an update runs the function again.

thread_local! { static SCALE: std::cell::Cell<f64> = const { std::cell::Cell::new(2.0) }; }

static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(2);

#[tracked]
fn scaled_by_state(x: f64) -> f64 {
    let s = SCALE.get();
    x * s
}

#[tracked]
fn scaled_by_static(x: f64) -> f64 {
    let n = COUNT.load(std::sync::atomic::Ordering::Relaxed) as f64;
    x * n
}

/// A constant of a value type is a constant: its program folds it.
#[tracked]
fn scaled_by_pi(x: f64) -> f64 {
    x * std::f64::consts::PI.sqrt()
}

#[test]
fn a_program_does_not_fix_state_at_its_recorded_value() {
    use irtrack::program::{Input, Program, ReplayError};
    use irtrack::track;
    SCALE.with(|c| c.set(2.0));
    let e = Program::from_trace(&track(scaled_by_state, (1.0,)), &[Input::Dynamic]).err();
    assert!(matches!(e, Some(ReplayError::Unsupported { .. })), "{e:?}");
    let e = Program::from_trace(&track(scaled_by_static, (1.0,)), &[Input::Dynamic]).err();
    assert!(matches!(e, Some(ReplayError::Unsupported { .. })), "{e:?}");
    let p = Program::from_trace(&track(scaled_by_pi, (1.0,)), &[Input::Dynamic]).unwrap();
    assert_eq!(p.call((2.0,)).unwrap().as_f64(), Some(scaled_by_pi(2.0)));
}

#[test]
fn an_update_reads_state_anew() {
    use irtrack::program::update::{Change, RerunCause, Updatable};
    SCALE.with(|c| c.set(2.0));
    let mut m = Updatable::track(scaled_by_state, (1.0,));
    SCALE.with(|c| c.set(7.0));
    let u = m.update([Change::argument(0, 3.0)]).unwrap();
    assert!(matches!(u.rerun(), Some(RerunCause::State { .. })), "{:?}", u.rerun());
    assert_eq!(m.trace().root().value::<f64>(), Some(&21.0));
    SCALE.with(|c| c.set(2.0));
}
