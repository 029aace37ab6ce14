//! A fifth adversarial round (2026-11-27, testers who did not write irtrack, given the README
//! and the source): each test here returned a silently wrong number on a5bc326, and now gets
//! the truth or a typed error. Truths: closed forms, central differences, the plain function.

// The shapes are the testers', as people write them.
#![allow(
    clippy::iter_nth_zero,
    clippy::while_let_on_iterator,
    clippy::useless_vec
)]

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
        (
            "by_ref",
            grad_vec(gradient(rest_after_by_ref, (x.clone(),))),
        ),
        ("zip", grad_vec(gradient(rest_zipped, (x.clone(),)))),
        (
            "enumerate",
            grad_vec(gradient(rest_enumerated, (x.clone(),))),
        ),
        (
            "one next",
            grad_vec(gradient(second_after_nth, (x.clone(),))),
        ),
        (
            "general sweep",
            grad_vec(irtrack::grad::with_general_sweep(|| {
                gradient(rest_after_nth, (x.clone(),))
            })),
        ),
    ];
    for (name, got) in shifted {
        // Refused for the step it cannot follow, or as the write into the iterator that a
        // method stepping it by `&mut self` is (`by_ref`, `find`, `position`).
        let refused = matches!(
            got,
            Err(GradError::NoRule { .. } | GradError::Mutation { .. })
        );
        assert!(refused, "{name}: {got:?}");
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
    let j = jvp(cast_sin, (x,), (1.0,))
        .unwrap()
        .tangent
        .as_f64()
        .unwrap();
    assert!(
        (g - truth).abs() < 1e-6 && (j - truth).abs() < 1e-6,
        "{g} {j} {truth}"
    );
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
    assert!(
        matches!(u.rerun(), Some(RerunCause::State { .. })),
        "{:?}",
        u.rerun()
    );
    assert_eq!(m.trace().root().value::<f64>(), Some(&21.0));
    SCALE.with(|c| c.set(2.0));
}

// ---------------------------------------------------------------------------------------------
// Paths that exist at one point only, said in ways the earlier rounds did not read: a value
// that cannot go below a bound through arithmetic (`x.abs() / 2.0 <= 0.0`, `x - x.floor() <=
// 0.0` at an integer, `1.0 - x.abs() >= 1.0`), against a named zero, by a comparison method or
// a path call (`x.abs().le(&0.0)`, `f64::eq(&x, &0.0)`), or by class tests (`!x.is_normal()
// && !x.is_subnormal()`). Each gave the special case's slope (0 for exprel's 1/2, 0 for 6) by
// gradient and by `jvp`. An ordering at a tie whose side passed through a corner or an
// extremum (`core::ties::at_kink`), comparisons by method and path, and class queries where
// their answer changes are now read as the equalities they are.

use irtrack::diff::jvp;

/// Checks `gradient` and `jvp` of `f` at `x` against `truth`; records what is wrong in `bad`.
macro_rules! right_or_err {
    ($bad:ident, $name:expr, $f:ident, $x:expr, $truth:expr) => {{
        let (name, x, truth): (&str, f64, f64) = ($name, $x, $truth);
        if let Ok(g) = gradient($f, (x,)) {
            let got = g.scalars()[0].unwrap();
            if (got - truth).abs() > 1e-9 || got.is_nan() {
                $bad.push(format!("{name}: gradient {got}, truth {truth}"));
            }
        }
        if let Ok(j) = jvp($f, (x,), (1.0,)) {
            let got = j.tangent.as_f64().unwrap();
            if (got - truth).abs() > 1e-9 || got.is_nan() {
                $bad.push(format!("{name}: jvp {got}, truth {truth}"));
            }
        }
    }};
}

// ---------------------------------------------------------------------------------------------
// 1. An integer fast path said by one ordering of a value that cannot go below 0 near a
//    positive integer (`x - x.floor()`, `x.fract()`, `x % 1.0`). Both arms compute x², so
//    f'(3) = 6; irtrack gives 0 (the integer arm's slope), gradient and jvp alike.
// ---------------------------------------------------------------------------------------------

#[tracked]
fn sq_floor_sub(x: f64) -> f64 {
    if x - x.floor() <= 0.0 {
        let n = x as i64;
        (n * n) as f64
    } else {
        x * x
    }
}

#[tracked]
fn sq_fract(x: f64) -> f64 {
    if x.fract() <= 0.0 {
        let n = x as i64;
        (n * n) as f64
    } else {
        x * x
    }
}

#[tracked]
fn sq_rem(x: f64) -> f64 {
    if x % 1.0 > 0.0 {
        x * x
    } else {
        let n = x as i64;
        (n * n) as f64
    }
}

#[test]
fn integer_fast_path_by_fract_gives_the_integer_slope() {
    let mut bad: Vec<String> = Vec::new();
    right_or_err!(bad, "x - x.floor() <= 0", sq_floor_sub, 3.0, 6.0);
    right_or_err!(bad, "x.fract() <= 0", sq_fract, 3.0, 6.0);
    right_or_err!(bad, "x % 1.0 > 0 (else)", sq_rem, 3.0, 6.0);
    assert!(bad.is_empty(), "{bad:#?}");
}

// ---------------------------------------------------------------------------------------------
// 2. `exprel` (exp_m1(x)/x, slope 1/2 at 0) with its special case at 0 said as
//    `x.abs() <= 0.0`, which irtrack refuses, but with the 0 spelled otherwise: a named
//    constant, a struct field. The gradient is 0; jvp refuses (DiffError::PointPath).
// ---------------------------------------------------------------------------------------------

const ZERO: f64 = 0.0;

#[tracked]
fn exprel_const_zero(x: f64) -> f64 {
    if x.abs() <= ZERO {
        1.0
    } else {
        x.exp_m1() / x
    }
}

struct Tol {
    tol: f64,
}

#[tracked]
fn exprel_field_zero(x: f64) -> f64 {
    let c = Tol { tol: 0.0 };
    if x.abs() <= c.tol {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[test]
fn point_path_against_a_named_zero() {
    let mut bad: Vec<String> = Vec::new();
    right_or_err!(bad, "x.abs() <= ZERO", exprel_const_zero, 0.0, 0.5);
    right_or_err!(bad, "x.abs() <= c.tol", exprel_field_zero, 0.0, 0.5);
    assert!(bad.is_empty(), "{bad:#?}");
}

// ---------------------------------------------------------------------------------------------
// 3. The same special case with |x| passed through operations that keep it non-negative but
//    that the sign reading does not follow: `/ 2.0`, `+ 1.0 <= 1.0`, an accumulation `s +=`,
//    `|x| * |x|` (two abs nodes), `clamp`, an array/vec element. Gradient 0, truth 1/2.
// ---------------------------------------------------------------------------------------------

#[tracked]
fn exprel_div(x: f64) -> f64 {
    if x.abs() / 2.0 <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_plus_one(x: f64) -> f64 {
    if x.abs() + 1.0 <= 1.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_accumulated(x: f64) -> f64 {
    let mut s = 0.0;
    for _ in 0..2 {
        s += x.abs();
    }
    if s <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_abs_times_abs(x: f64) -> f64 {
    if x.abs() * x.abs() <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_clamp(x: f64) -> f64 {
    if x.abs().clamp(0.0, 1.0) <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_vec_element(x: f64) -> f64 {
    let v = vec![x.abs()];
    if v[0] <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[test]
fn point_path_through_non_negative_arithmetic() {
    let mut bad: Vec<String> = Vec::new();
    right_or_err!(bad, "|x| / 2 <= 0", exprel_div, 0.0, 0.5);
    right_or_err!(bad, "|x| + 1 <= 1", exprel_plus_one, 0.0, 0.5);
    right_or_err!(bad, "s += |x|; s <= 0", exprel_accumulated, 0.0, 0.5);
    right_or_err!(bad, "|x| * |x| <= 0", exprel_abs_times_abs, 0.0, 0.5);
    right_or_err!(bad, "|x|.clamp(0, 1) <= 0", exprel_clamp, 0.0, 0.5);
    right_or_err!(bad, "vec![|x|][0] <= 0", exprel_vec_element, 0.0, 0.5);
    assert!(bad.is_empty(), "{bad:#?}");
}

// ---------------------------------------------------------------------------------------------
// 4. The comparison written as a method call (`PartialOrd::le`, `ge`): gradient 0, truth 1/2.
// ---------------------------------------------------------------------------------------------

#[tracked]
fn exprel_le_method(x: f64) -> f64 {
    if x.abs().le(&0.0) {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_ge_method(x: f64) -> f64 {
    if 0.0f64.ge(&x.abs()) {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[test]
fn point_path_by_comparison_methods() {
    let mut bad: Vec<String> = Vec::new();
    right_or_err!(bad, "x.abs().le(&0.0)", exprel_le_method, 0.0, 0.5);
    right_or_err!(bad, "0.0.ge(&x.abs())", exprel_ge_method, 0.0, 0.5);
    assert!(bad.is_empty(), "{bad:#?}");
}

// ---------------------------------------------------------------------------------------------
// 5. Other functions bounded at their value at 0: `|x|^3`, `|x|.powf(0.5)`, `tanh|x|`,
//    `ln|x| <= -inf`, `1/|x| >= inf`, `exp(-|x|) >= 1`, `hypot(x, c) <= c`, `1 - |x| >= 1`.
// ---------------------------------------------------------------------------------------------

#[tracked]
fn exprel_cube(x: f64) -> f64 {
    if x.abs().powi(3) <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_powf(x: f64) -> f64 {
    if x.abs().powf(0.5) <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_tanh(x: f64) -> f64 {
    if x.abs().tanh() <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_ln(x: f64) -> f64 {
    if x.abs().ln() <= f64::NEG_INFINITY {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_recip(x: f64) -> f64 {
    if 1.0 / x.abs() >= f64::INFINITY {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_exp(x: f64) -> f64 {
    if (-x.abs()).exp() >= 1.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_hypot(x: f64) -> f64 {
    if x.hypot(1e-300) <= 1e-300 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_one_minus(x: f64) -> f64 {
    if 1.0 - x.abs() >= 1.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[test]
fn point_path_through_other_bounded_functions() {
    let mut bad: Vec<String> = Vec::new();
    right_or_err!(bad, "|x|^3 <= 0", exprel_cube, 0.0, 0.5);
    right_or_err!(bad, "|x|^0.5 <= 0", exprel_powf, 0.0, 0.5);
    right_or_err!(bad, "tanh|x| <= 0", exprel_tanh, 0.0, 0.5);
    right_or_err!(bad, "ln|x| <= -inf", exprel_ln, 0.0, 0.5);
    right_or_err!(bad, "1/|x| >= inf", exprel_recip, 0.0, 0.5);
    right_or_err!(bad, "exp(-|x|) >= 1", exprel_exp, 0.0, 0.5);
    right_or_err!(bad, "hypot(x, c) <= c", exprel_hypot, 0.0, 0.5);
    right_or_err!(bad, "1 - |x| >= 1", exprel_one_minus, 0.0, 0.5);
    assert!(bad.is_empty(), "{bad:#?}");
}

// ---------------------------------------------------------------------------------------------
// 6. `x == 0.0` is refused (Indeterminacy::Equality), but the same equality by a path call
//    (`f64::eq(&x, &0.0)`, `PartialEq::eq`), or the point said by class tests
//    (`is_sign_positive() && !is_normal() && !is_subnormal()`, i.e. classify() == Zero, which
//    irtrack refuses) or by `x.recip().is_infinite()`, gives the special case's slope 0.
// ---------------------------------------------------------------------------------------------

#[tracked]
fn exprel_f64_eq(x: f64) -> f64 {
    if f64::eq(&x, &0.0) {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_partial_eq(x: f64) -> f64 {
    if PartialEq::eq(&x, &0.0) {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_class_tests(x: f64) -> f64 {
    if x.is_sign_positive() && !x.is_normal() && !x.is_subnormal() {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_recip_infinite(x: f64) -> f64 {
    if x.recip().is_infinite() {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[test]
fn equality_spelled_as_a_path_call_or_class_test() {
    let mut bad: Vec<String> = Vec::new();
    right_or_err!(bad, "f64::eq(&x, &0.0)", exprel_f64_eq, 0.0, 0.5);
    right_or_err!(bad, "PartialEq::eq(&x, &0.0)", exprel_partial_eq, 0.0, 0.5);
    right_or_err!(bad, "+0 by class tests", exprel_class_tests, 0.0, 0.5);
    right_or_err!(
        bad,
        "x.recip().is_infinite()",
        exprel_recip_infinite,
        0.0,
        0.5
    );
    assert!(bad.is_empty(), "{bad:#?}");
}

/// Away from the special points the same functions have their slopes.
#[test]
fn the_same_functions_away_from_the_point_have_their_slopes() {
    let exprel_slope = |x: f64| (x * x.exp() - x.exp_m1()) / (x * x);
    for (name, g) in [
        ("div", gradient(exprel_div, (0.5,))),
        ("plus one", gradient(exprel_plus_one, (0.5,))),
        ("le method", gradient(exprel_le_method, (0.5,))),
        ("f64::eq", gradient(exprel_f64_eq, (0.5,))),
        ("class tests", gradient(exprel_class_tests, (0.5,))),
    ] {
        let got = g.unwrap_or_else(|e| panic!("{name}: {e}")).scalars()[0].unwrap();
        assert!((got - exprel_slope(0.5)).abs() < 1e-12, "{name}: {got}");
    }
    let g = gradient(sq_floor_sub, (3.5,)).unwrap().scalars()[0].unwrap();
    assert_eq!(g, 7.0);
}

/// A derivative program built from a trace at the special point refuses it
/// (`DiffError::PointPath`), as the gradient does.
#[test]
fn derivative_programs_refuse_the_same_points() {
    use irtrack::diff::{differentiate, DiffError};
    use irtrack::program::{Input, Program};
    for (name, trace) in [
        ("floor", irtrack::track(sq_floor_sub, (3.0,))),
        ("div", irtrack::track(exprel_div, (0.0,))),
        ("plus one", irtrack::track(exprel_plus_one, (0.0,))),
    ] {
        let p = Program::from_trace(&trace, &[Input::Dynamic]).unwrap();
        let d = differentiate(&p, &[0]);
        assert!(
            matches!(d, Err(DiffError::PointPath { .. })),
            "{name}: {:?}",
            d.err()
        );
    }
}

// Left by the fourth round and closed by the same reading: a point said by orderings of
// different values, each through a corner (`x.max(0.0) <= x.min(0.0)` holds at 0 only; two
// `clamp`s at their bounds). Gradient 5 (the special case's) for the function's 1.

#[tracked]
fn max_below_min(x: f64) -> f64 {
    if x.max(0.0) <= x.min(0.0) {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn clamps_meet(x: f64) -> f64 {
    // x ≤ 0 makes the right side 0, x ≥ 0 the left: both at 0 only.
    if x.clamp(-1.0, 0.0) >= x.clamp(0.0, 1.0) {
        5.0 * x
    } else {
        x
    }
}

#[test]
fn orderings_of_corners_that_meet_at_one_point_are_refused() {
    let mut bad: Vec<String> = Vec::new();
    right_or_err!(bad, "max <= min", max_below_min, 0.0, 1.0);
    right_or_err!(bad, "two clamps", clamps_meet, 0.0, 1.0);
    assert!(bad.is_empty(), "{bad:#?}");
    assert!(gradient(max_below_min, (0.0,)).is_err());
    assert_eq!(
        gradient(max_below_min, (0.5,)).unwrap().scalars(),
        [Some(1.0)]
    );
}

#[tracked]
fn squares_by_iter(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for t in v.iter() {
        s += t * t;
    }
    s
}

#[tracked]
fn squares_by_copied_pattern(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for &t in v.iter() {
        s += 3.0 * t * t;
    }
    s
}

#[tracked]
fn rest_after_first(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    let first = it.next().unwrap();
    let mut s = *first;
    for t in it {
        s += 2.0 * t;
    }
    s
}

/// `for t in v.iter()` (a piecewise-code tester, 2026-11-27): the loop's `into_iter` of the
/// iterator hid the vector it walks, and every such loop was refused (`NoRule` on `next`);
/// `for t in &v` worked. An iterator moved before the loop still has no known elements.
#[test]
fn a_loop_over_v_iter_walks_v() {
    let g = grad_vec(gradient(squares_by_iter, (vec![1.0, 2.0, -3.0],))).unwrap();
    assert_eq!(g, [2.0, 4.0, -6.0]);
    let g = grad_vec(gradient(squares_by_copied_pattern, (vec![1.0, 2.0],))).unwrap();
    assert_eq!(g, [6.0, 12.0]);
    assert!(matches!(
        grad_vec(gradient(rest_after_first, (vec![1.0, 2.0, 3.0],))),
        Err(GradError::NoRule { .. })
    ));
}
