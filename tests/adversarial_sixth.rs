//! A sixth adversarial round (2026-11-27, the same day: testers D and E, given the README and
//! the source; D audited the fifth round's own mechanisms, E wrote numerical algorithms as
//! published crates do). Each test here returned a silently wrong number on 38e3de2 (or, in the
//! last section, refused smooth code), and now gets the truth or a typed error. Truths: closed
//! forms, central differences of the plain function (checked in `at!`).
#![allow(clippy::all, unused)]

use irtrack::diff::jvp;
use irtrack::{gradient, pullback, tracked};

/// `None` when both gradient and jvp are right or refuse; else what was wrong.
fn check(name: &str, g: Option<f64>, j: Option<f64>, truth: f64, bad: &mut Vec<String>) {
    let ok = |v: f64| (v - truth).abs() <= 1e-6 * truth.abs().max(1.0);
    if let Some(g) = g.filter(|&g| !ok(g)) {
        bad.push(format!("{name}: gradient {g}, truth {truth}"));
    }
    if let Some(j) = j.filter(|&j| !ok(j)) {
        bad.push(format!("{name}: jvp {j}, truth {truth}"));
    }
}

macro_rules! at {
    ($bad:ident, $f:ident, $x:expr, $truth:expr) => {{
        let g = gradient($f, ($x,)).ok().map(|g| g.scalars()[0].unwrap());
        let j = jvp($f, ($x,), (1.0,))
            .ok()
            .map(|j| j.tangent.as_f64().unwrap());
        // The truth, checked against a central difference of the plain function.
        let h = 1e-4;
        let fd = ($f(($x) + h) - $f(($x) - h)) / (2.0 * h);
        assert!(
            (fd - $truth).abs() < 1e-3 * f64::max(1.0, $truth),
            "truth of {}: fd {fd}",
            stringify!($f)
        );
        check(stringify!($f), g, j, $truth, &mut $bad);
    }};
}

// ---------------------------------------------------------------------------------------------
// 1. Integer fast path said through an integer cast (`x as i64` is trunc, a corner at every
//    integer, not in `at_kink`), `rem_euclid`, `div_euclid`: both arms are x², f'(3) = 6.
//    irtrack: gradient 0 (and jvp 0 for the cast).

#[tracked]
fn sq_int_cast(x: f64) -> f64 {
    if x - (x as i64) as f64 <= 0.0 {
        let n = x as i64;
        (n * n) as f64
    } else {
        x * x
    }
}

#[tracked]
fn sq_rem_euclid(x: f64) -> f64 {
    if x.rem_euclid(1.0) <= 0.0 {
        let n = x as i64;
        (n * n) as f64
    } else {
        x * x
    }
}

#[tracked]
fn sq_div_euclid(x: f64) -> f64 {
    if x - x.div_euclid(1.0) <= 0.0 {
        let n = x as i64;
        (n * n) as f64
    } else {
        x * x
    }
}

#[test]
fn integer_fast_path_through_a_cast_or_euclid_gives_the_integer_slope() {
    let mut bad = Vec::new();
    at!(bad, sq_int_cast, 3.0, 6.0);
    at!(bad, sq_rem_euclid, 3.0, 6.0);
    at!(bad, sq_div_euclid, 3.0, 6.0);
    assert!(bad.is_empty(), "{bad:#?}");
}

// ---------------------------------------------------------------------------------------------
// 2. exprel (slope 1/2 at 0) with its special case said through a user-written |x| (a branch,
//    inline or in a tracked helper), the exact shape 39d5038 closed for `x.abs() / 2.0 <= 0.0`.
//    Holds at x = 0 only, in the reals and in floats. irtrack: gradient 0, jvp 0.

#[tracked]
fn exprel_user_abs(x: f64) -> f64 {
    let a = if x < 0.0 { -x } else { x };
    if a / 2.0 <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn my_abs(x: f64) -> f64 {
    if x < 0.0 {
        -x
    } else {
        x
    }
}

#[tracked]
fn exprel_user_abs_fn(x: f64) -> f64 {
    if my_abs(x) + 1.0 <= 1.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[test]
fn point_path_through_a_user_written_abs() {
    let mut bad = Vec::new();
    at!(bad, exprel_user_abs, 0.0, 0.5);
    at!(bad, exprel_user_abs_fn, 0.0, 0.5);
    assert!(bad.is_empty(), "{bad:#?}");
}

// ---------------------------------------------------------------------------------------------
// 4. x <= 0 and x >= 0 (a point), the second said of the same value through a vector element,
//    a cast, a loop accumulator, a tracked helper's return, a tuple part, an
//    Option. irtrack: gradient 0 for all (jvp 0 for vec, cast, loop; jvp refuses the helper's
//    return with PointPath: gradient and jvp disagree). Truth 1/2.

#[tracked]
fn ident(x: f64) -> f64 {
    x
}

#[tracked]
fn exprel_vec_side(x: f64) -> f64 {
    let v = vec![x];
    if !(x > 0.0) && !(v[0] < 0.0) {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_cast_side(x: f64) -> f64 {
    if x <= 0.0 && (x as f32) >= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_loop_side(x: f64) -> f64 {
    let mut acc = 0.0;
    let mut pinned = true;
    for i in 0..2 {
        acc += x;
        if i == 0 {
            pinned &= acc <= 0.0;
        } else {
            pinned &= acc >= 0.0;
        }
    }
    if pinned {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_helper_side(x: f64) -> f64 {
    if x <= 0.0 && ident(x) >= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_tuple_side(x: f64) -> f64 {
    let t = (x, 1.0);
    if x <= 0.0 && t.0 >= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_option_side(x: f64) -> f64 {
    if x <= 0.0 && Some(x).unwrap() >= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[test]
fn point_path_said_of_one_value_through_a_container_cast_or_helper_is_refused() {
    let mut bad = Vec::new();
    at!(bad, exprel_vec_side, 0.0, 0.5);
    at!(bad, exprel_cast_side, 0.0, 0.5);
    at!(bad, exprel_loop_side, 0.0, 0.5);
    at!(bad, exprel_helper_side, 0.0, 0.5);
    at!(bad, exprel_tuple_side, 0.0, 0.5);
    at!(bad, exprel_option_side, 0.0, 0.5);
    assert!(bad.is_empty(), "{bad:#?}");
}

// ---------------------------------------------------------------------------------------------

// 5. A zero made by rounding (cancellation), not an exact zero, under sqrt: ((x + 1) - 1).sqrt()
//    at 1e-20 (f64) or in f32 at 1e-9. The f32 cast that flushes to 0 is refused (f2fb025); the
//    f32/f64 addition that rounds x away is not. irtrack: +inf from gradient, jvp, and forward
//    and reverse derivative programs. Truth: the real slope 1/(2√x) = 5e9 (f64), 15811 (f32);
//    the float function is constant 0 there (slope 0). +inf is neither.

#[tracked]
fn sqrt_cancel(x: f64) -> f64 {
    ((x + 1.0) - 1.0).sqrt()
}

#[tracked]
fn sqrt_cancel_f32(x: f64) -> f64 {
    let y = (x as f32 + 1.0) - 1.0;
    y.sqrt() as f64
}

#[test]
fn a_zero_made_by_cancellation_is_no_exact_zero_under_sqrt() {
    use irtrack::diff::{differentiate, reverse};
    use irtrack::program::{Input, Program};
    let mut bad = Vec::new();
    for (name, x, g, j) in [
        (
            "f64",
            1e-20,
            gradient(sqrt_cancel, (1e-20,))
                .ok()
                .map(|g| g.scalars()[0].unwrap()),
            jvp(sqrt_cancel, (1e-20,), (1.0,))
                .ok()
                .map(|j| j.tangent.as_f64().unwrap()),
        ),
        (
            "f32",
            1e-9,
            gradient(sqrt_cancel_f32, (1e-9,))
                .ok()
                .map(|g| g.scalars()[0].unwrap()),
            jvp(sqrt_cancel_f32, (1e-9,), (1.0,))
                .ok()
                .map(|j| j.tangent.as_f64().unwrap()),
        ),
    ] {
        for (how, v) in [("gradient", g), ("jvp", j)] {
            if let Some(v) = v.filter(|v| v.is_infinite()) {
                bad.push(format!("{name} {how} at {x:e}: {v}"));
            }
        }
    }
    // Derivative programs traced at 1 and called at 1e-20.
    let p = Program::from_trace(&irtrack::track(sqrt_cancel, (1.0,)), &[Input::Dynamic]).unwrap();
    let d = differentiate(&p, &[0]).unwrap();
    let r = reverse(&p, 0).unwrap();
    for (how, v) in [
        (
            "forward program",
            d.call((1e-20, 1.0)).ok().and_then(|v| v.as_f64()),
        ),
        (
            "reverse program",
            r.call((1e-20, 1.0)).ok().and_then(|v| v.as_f64()),
        ),
    ] {
        if let Some(v) = v.filter(|v| v.is_infinite()) {
            bad.push(format!("{how} at 1e-20: {v}"));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

// ---------------------------------------------------------------------------------------------

// 6. State read other than by a method on the named static itself: a `static mut`, a field of
//    a static (`CFG.scale.load()`), an element of a static array (`ARR[0].load()`), a path call
//    (`AtomicU64::load(&PLAIN, ..)`). Program and update fold it: traced with state 2, called
//    at x = 3 after the state became 7, both give 6; the function gives 21.

use std::sync::atomic::{AtomicU64, Ordering as AO};

struct Config {
    scale: AtomicU64,
}
static CFG: Config = Config {
    scale: AtomicU64::new(2),
};
static ARR: [AtomicU64; 1] = [AtomicU64::new(2)];
static PLAIN: AtomicU64 = AtomicU64::new(2);

#[tracked]
fn by_static_field(x: f64) -> f64 {
    let s = CFG.scale.load(AO::Relaxed) as f64;
    x * s
}

#[tracked]
fn by_static_element(x: f64) -> f64 {
    let s = ARR[0].load(AO::Relaxed) as f64;
    x * s
}

#[tracked]
fn by_path_call(x: f64) -> f64 {
    let s = AtomicU64::load(&PLAIN, AO::Relaxed) as f64;
    x * s
}

macro_rules! state_case {
    ($bad:ident, $f:ident, $set:expr) => {{
        use irtrack::program::update::{Change, Updatable};
        use irtrack::program::{Input, Program};
        let set = $set;
        set(2);
        let p = Program::from_trace(&irtrack::track($f, (1.0,)), &[Input::Dynamic]);
        let mut m = Updatable::track($f, (1.0,));
        set(7);
        let truth = $f(3.0);
        if let Ok(p) = p {
            if let Ok(v) = p.call((3.0,)) {
                if v.as_f64() != Some(truth) {
                    $bad.push(format!(
                        "{}: program {:?}, truth {truth}",
                        stringify!($f),
                        v.as_f64()
                    ));
                }
            }
        }
        if m.update([Change::argument(0, 3.0)]).is_ok() {
            let v = m.trace().root().value::<f64>().copied();
            if v != Some(truth) {
                $bad.push(format!("{}: update {:?}, truth {truth}", stringify!($f), v));
            }
        }
        set(2);
    }};
}

#[test]
fn state_read_through_a_field_an_element_or_a_path_call_is_no_constant() {
    let mut bad = Vec::new();
    state_case!(bad, by_static_field, |v: u64| CFG
        .scale
        .store(v, AO::Relaxed));
    state_case!(bad, by_static_element, |v: u64| ARR[0]
        .store(v, AO::Relaxed));
    state_case!(bad, by_path_call, |v: u64| PLAIN.store(v, AO::Relaxed));
    assert!(bad.is_empty(), "{bad:#?}");
}

// =============================================================================================
// Needless refusals (smooth, valid code refused; tester D): each asserts the gradient is given
// and right; on 38e3de2 each was refused.

fn given(r: Result<irtrack::Gradient<f64>, irtrack::GradError>) -> Vec<f64> {
    let g = r.unwrap_or_else(|e| panic!("refused: {e}"));
    g.wrt
        .iter()
        .flat_map(|t| {
            let t = t.as_ref().unwrap();
            match t.as_slice() {
                Some(s) => s.to_vec(),
                None => vec![t.as_scalar().unwrap()],
            }
        })
        .collect()
}

/// Softmax with max subtraction, cross-entropy, and an accuracy metric, at tied logits (a
/// zero-initialised last layer): `p0 >= 0.5` at p0 = 1/2 is refused because `max` tied.
#[tracked]
fn softmax_ce_with_accuracy(z: Vec<f64>) -> f64 {
    let m = z[0].max(z[1]);
    let e0 = (z[0] - m).exp();
    let e1 = (z[1] - m).exp();
    let p0 = e0 / (e0 + e1);
    let mut correct = 0;
    if p0 >= 0.5 {
        correct += 1;
    }
    let _ = correct;
    -(p0.ln())
}

#[test]
fn softmax_with_an_accuracy_metric_at_tied_logits_is_refused_not_wrong() {
    // Refused (the metric's tie is read as a point, wherever it is used): a needless refusal
    // left, since reading only what the output depends on missed writes in the branch not
    // taken (tester H). Off the tie, the gradient.
    assert!(gradient(softmax_ce_with_accuracy, (vec![0.0, 0.0],)).is_err());
    let g = given(gradient(softmax_ce_with_accuracy, (vec![0.5, 0.0],)));
    let p0 = 1.0 / (1.0 + (-0.5f64).exp());
    assert!(
        (g[0] - (p0 - 1.0)).abs() < 1e-12 && (g[1] - (1.0 - p0)).abs() < 1e-12,
        "{g:?}"
    );
}

/// ReLU then ELU (C¹ at 0), zero init: ∂/∂b = 1 whatever ReLU's convention; refused.
#[tracked]
fn guarded_by_is_finite(x: f64) -> f64 {
    if !x.is_finite() {
        return 0.0;
    }
    x * x + x
}

#[tracked]
fn loss_asserted_finite(w: f64) -> f64 {
    let loss = (w - 1.0) * (w - 1.0);
    assert!(loss.is_finite());
    loss
}

#[test]
fn is_finite_at_zero_holds_on_a_neighbourhood() {
    assert_eq!(given(gradient(guarded_by_is_finite, (0.0,))), vec![1.0]);
    assert_eq!(given(gradient(loss_asserted_finite, (1.0,))), vec![0.0]);
}

/// A metric downstream of a kink, off the output's path: refused at the tie.
#[tracked]
fn metric_after_kink(w: f64) -> f64 {
    let r = (w - 1.0).max(0.0) + w;
    let mut count = 0;
    if r > 1.0 {
        count += 1;
    }
    let _ = count;
    w * w
}

#[test]
fn a_metric_after_a_corner_is_refused_not_wrong() {
    assert!(gradient(metric_after_kink, (1.0,)).is_err());
    assert_eq!(given(gradient(metric_after_kink, (1.5,))), vec![3.0]);
}

/// `it.len()` (no move) taints like a float's bits; `v[1..].iter()` has no rule.

// =============================================================================================
// Tester E: numerical algorithms written as published crates write them.

/// The gradient of the first argument, or `None` for a typed error.
fn slope<F: irtrack::Callable<(f64,), Output = f64>>(f: F, x: f64) -> Option<f64> {
    gradient(f, (x,)).ok().map(|g| g.scalars()[0].unwrap())
}

fn assert_slope_or_error(got: Option<f64>, truth: f64, what: &str) {
    if let Some(g) = got {
        assert!(
            (g - truth).abs() <= 1e-6 * truth.abs().max(1.0),
            "{what}: gradient {g}, truth {truth}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// A float literal pattern nested in a tuple, array, `Option` or struct pattern is an equality
// like `match x { 0.0 => … }` (which is refused: `Indeterminacy::Equality`), but the sweep does
// not read it: the special case's slope (0) is returned. `exprel(x) = (eˣ − 1)/x` with its
// special case at 0, as special-function crates write it with a second parameter alongside:
// the slope at 0 is 1/2 (central differences of the plain function: 0.4999999999).

#[tracked]
fn exprel_tuple(x: f64) -> f64 {
    match (x, 1.0) {
        (0.0, _) => 1.0,
        (_, s) => s * x.exp_m1() / x,
    }
}

#[tracked]
fn exprel_option(x: f64) -> f64 {
    match Some(x) {
        Some(0.0) => 1.0,
        _ => x.exp_m1() / x,
    }
}

#[tracked]
fn exprel_array(x: f64) -> f64 {
    match [x, 1.0] {
        [0.0, _] => 1.0,
        [_, s] => s * x.exp_m1() / x,
    }
}

#[tracked]
fn exprel_if_let(x: f64) -> f64 {
    if let (0.0, _) = (x, 2) {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_matches(x: f64) -> f64 {
    if matches!((x, 2), (0.0, _)) {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Pt {
    pub x: f64,
    pub y: f64,
}

#[tracked]
fn exprel_struct(x: f64) -> f64 {
    let p = Pt { x, y: 1.0 };
    match p {
        Pt { x: 0.0, .. } => 1.0,
        _ => p.y * x.exp_m1() / x,
    }
}

#[test]
fn a_float_literal_nested_in_a_tuple_pattern_is_an_equality() {
    // irtrack returned 0.
    assert_slope_or_error(
        slope(exprel_tuple, 0.0),
        0.5,
        "match (x, 1.0) { (0.0, _) => … }",
    );
}

#[test]
fn a_float_literal_nested_in_an_option_pattern_is_an_equality() {
    // irtrack returned 0.
    assert_slope_or_error(
        slope(exprel_option, 0.0),
        0.5,
        "match Some(x) { Some(0.0) => … }",
    );
}

#[test]
fn a_float_literal_nested_in_an_array_pattern_is_an_equality() {
    // irtrack returned 0.
    assert_slope_or_error(
        slope(exprel_array, 0.0),
        0.5,
        "match [x, 1.0] { [0.0, _] => … }",
    );
}

#[test]
fn a_float_literal_in_if_let_and_matches_of_a_tuple_is_an_equality() {
    // irtrack returned 0 for both.
    assert_slope_or_error(slope(exprel_if_let, 0.0), 0.5, "if let (0.0, _) = (x, 2)");
    assert_slope_or_error(
        slope(exprel_matches, 0.0),
        0.5,
        "matches!((x, 2), (0.0, _))",
    );
}

#[test]
fn a_float_literal_in_a_struct_pattern_is_an_equality() {
    // irtrack returned 0.
    assert_slope_or_error(slope(exprel_struct, 0.0), 0.5, "Pt { x: 0.0, .. }");
}

#[test]
fn pullback_agrees_on_a_nested_literal_pattern() {
    // irtrack returned Ok([Some(0.0)]).
    let (_, pb) = pullback(exprel_tuple, (0.0,));
    if let Ok(w) = pb.call(1.0) {
        let g = w[0].as_ref().unwrap().as_scalar().unwrap();
        assert!((g - 0.5).abs() < 1e-9, "pullback {g}, truth 0.5");
    }
}

// ---------------------------------------------------------------------------------------------
// An integer literal pattern on a float's bits pins the point as `x.to_bits() == 0` does (which
// is refused), but the `match` is not read: libm-style `match x.to_bits() { 0 => … }` at +0
// gave the special case's slope 0; `exprel`'s slope at 0 is 1/2.

#[tracked]
fn exprel_bits(x: f64) -> f64 {
    match x.to_bits() {
        0 => 1.0,
        _ => x.exp_m1() / x,
    }
}

#[test]
fn an_integer_literal_pattern_on_the_bits_is_an_equality() {
    // irtrack returned 0.
    assert_slope_or_error(slope(exprel_bits, 0.0), 0.5, "match x.to_bits() { 0 => … }");
}

// ---------------------------------------------------------------------------------------------
// "Is x an integer" said by an ordering at the wrap of `rem_euclid(1.0)` (the positive
// fractional part, as periodic code writes it), or by a truncating cast compared back with
// `x`: a point path like `x - x.floor() <= 0.0` and `x % 1.0 <= 0.0` (both refused), but the
// sweep does not see it and returns the table's slope 0. Here the table holds x² at the
// integers, so the function is x² everywhere: slope 6 at 3 (the gamma-function idiom
// `if x is an integer { return FACTORIAL[x as usize - 1] }` gave 0 for Γ'(4) = 7.5367 alike).

const SQUARES: [f64; 5] = [0.0, 1.0, 4.0, 9.0, 16.0];

#[tracked]
fn square_rem_euclid(x: f64) -> f64 {
    if x.rem_euclid(1.0) <= 0.0 && x >= 0.0 && x < 5.0 {
        return SQUARES[x as usize];
    }
    x * x
}

/// `x` at the integers (x ≥ 0) said by a truncating cast, else `x * x`: x² everywhere on x ≥ 0.
#[tracked]
fn square_cast(x: f64) -> f64 {
    let t = (x as i64) as f64;
    if x - t <= 0.0 {
        return t * t;
    }
    x * x
}

#[test]
fn an_ordering_at_the_wrap_of_rem_euclid_is_an_equality() {
    assert_slope_or_error(slope(square_rem_euclid, 2.5), 5.0, "off the integers");
    // irtrack returned 0.
    assert_slope_or_error(
        slope(square_rem_euclid, 3.0),
        6.0,
        "x.rem_euclid(1.0) <= 0.0",
    );
}

#[test]
fn a_truncating_cast_compared_back_is_an_equality() {
    use irtrack::diff::{hessian, jvp, vjp};
    // irtrack returned 0 for the gradient, `jvp`, `vjp` and 0 for the Hessian (truth 2).
    assert_slope_or_error(slope(square_cast, 3.0), 6.0, "x - (x as i64) as f64 <= 0.0");
    if let Ok(j) = jvp(square_cast, (3.0,), (1.0,)) {
        let d = j.tangent.as_f64().unwrap();
        assert!((d - 6.0).abs() < 1e-9, "jvp {d}, truth 6");
    }
    if let Ok(v) = vjp(square_cast, (3.0,), 1.0) {
        let d = v.cotangents[0].as_ref().unwrap().as_f64().unwrap();
        assert!((d - 6.0).abs() < 1e-9, "vjp {d}, truth 6");
    }
    if let Ok(h) = hessian(square_cast, (3.0,)) {
        assert!(
            (h.row(0)[0] - 2.0).abs() < 1e-9,
            "hessian {}, truth 2",
            h.row(0)[0]
        );
    }
}

#[tracked]
fn square_div_euclid(x: f64) -> f64 {
    if x >= 0.0 && x < 5.0 && x - x.div_euclid(1.0) <= 0.0 {
        return SQUARES[x as usize];
    }
    x * x
}

#[test]
fn an_ordering_at_the_jump_of_div_euclid_is_an_equality() {
    // irtrack returned 0 (`x - x.floor() <= 0.0` is refused).
    assert_slope_or_error(
        slope(square_div_euclid, 3.0),
        6.0,
        "x - x.div_euclid(1.0) <= 0.0",
    );
}

// =============================================================================================

#[tracked]
fn chosen_before(x: f64) -> f64 {
    let a = 5.0 * x;
    let b = x.abs();
    let y = if x == 0.0 { a } else { b };
    y
}

#[tracked]
fn flag_set(x: f64) -> f64 {
    let mut s = 1.0;
    if x.abs() <= 0.0 {
        s = 5.0;
    }
    s * x
}

#[tracked]
fn pinned_helper(x: f64) -> f64 {
    if x == 0.0 {
        5.0 * x
    } else {
        x.abs()
    }
}

#[tracked]
fn uses_helper(x: f64) -> f64 {
    let y = pinned_helper(x);
    y + 1.0
}

#[tracked]
fn loop_pinned(x: f64) -> f64 {
    let mut s = x;
    let mut k = 0;
    while k < 3 && x.abs() <= 0.0 {
        s = s * 5.0;
        k += 1;
    }
    s
}

#[tracked]
fn captured_flag(x: f64) -> f64 {
    let flag = x.abs() <= 0.0;
    let f = |t: f64| if flag { 5.0 * t } else { t };
    f(x)
}

#[tracked]
fn cast_flag(x: f64) -> f64 {
    let flag = (x.abs() <= 0.0) as i32 as f64;
    x * (1.0 + 4.0 * flag)
}

#[tracked]
fn unused_metric(x: f64) -> f64 {
    let mut n = 0;
    if x.abs() <= 0.0 {
        n += 1;
    }
    let _ = n;
    x * 3.0
}

/// A comparison that finds a point is refused wherever it is met: through a value chosen
/// before the branch, a flag set in it, a helper, a loop's trip count, a captured flag, a cast
/// flag, and also where the output does not use it (the metric).
#[test]
fn comparisons_at_a_point_are_refused_wherever_they_decide() {
    for (name, r) in [
        (
            "chosen_before",
            gradient(chosen_before, (0.0,)).map(|g| g.scalars()),
        ),
        ("flag_set", gradient(flag_set, (0.0,)).map(|g| g.scalars())),
        (
            "uses_helper",
            gradient(uses_helper, (0.0,)).map(|g| g.scalars()),
        ),
        (
            "loop_pinned",
            gradient(loop_pinned, (0.0,)).map(|g| g.scalars()),
        ),
        (
            "captured_flag",
            gradient(captured_flag, (0.0,)).map(|g| g.scalars()),
        ),
        (
            "cast_flag",
            gradient(cast_flag, (0.0,)).map(|g| g.scalars()),
        ),
        (
            "unused_metric",
            gradient(unused_metric, (0.0,)).map(|g| g.scalars()),
        ),
    ] {
        assert!(r.is_err(), "{name}: {r:?}");
    }
}

// An equality of a value with a copy of itself holds everywhere: no point (Brent's method as
// usually written starts with `c = a; fc = fa;` and tests `fa != fc`, refused at every
// parameter before). A float cast is no copy there: `(x as f32) as f64 == x` holds where `x`
// is an `f32` only.

#[tracked]
fn brent_start(p: f64) -> f64 {
    let a = p * p - 2.0;
    let fa = a * 3.0;
    let c = a;
    let fc = fa;
    if fa != fc {
        1.0
    } else {
        c * p
    }
}

#[tracked]
fn negated_twice(x: f64) -> f64 {
    let y = -x;
    if -y == x {
        2.0 * x
    } else {
        0.0
    }
}

#[tracked]
fn representable_in_f32(x: f64) -> f64 {
    if (x as f32) as f64 == x {
        5.0 * x
    } else {
        x
    }
}

#[test]
fn an_equality_of_a_value_with_its_copy_is_no_point() {
    // (p² - 2) p: 3p² - 2.
    assert_eq!(
        gradient(brent_start, (1.5,)).unwrap().scalars(),
        [Some(4.75)]
    );
    assert_eq!(
        gradient(negated_twice, (1.5,)).unwrap().scalars(),
        [Some(2.0)]
    );
    assert!(gradient(representable_in_f32, (0.5,)).is_err());
}

/// `[e; n]` repeats its one operand: its sensitivity is the elements' summed (tester E: it was
/// `NoRule`). `vec![x; n]` stays refused: the macro mentions `x` as `vec![x, 2.0 * x]` does.
#[tracked]
fn repeated(x: f64) -> f64 {
    let a = [x * 2.0; 3];
    a[0] + a[1] * 3.0 + a[2] * 5.0
}

#[test]
fn an_array_repeat_differentiates_its_operand() {
    // 2x + 6x + 10x.
    assert_eq!(gradient(repeated, (1.5,)).unwrap().scalars(), [Some(18.0)]);
}
