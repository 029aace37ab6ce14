//! Paths chosen by tests the trace does not show (found 2026-11-27 by an adversarial tester).
//! A `match` guard with `&&` or `||` runs as written, unrecorded, and the arm's bindings were
//! recorded as constants: `match x { t if t > 1.0 && t < 3.0 => 5.0 * t, t => t }` at 2 had the
//! gradient 0 (truth 5), at every point of the interval, not only at a tie. A `bool` computed by
//! untracked code from an input (`if is_zero(x) { 5.0 * x } else { x }` at 0) gave the slope
//! of the branch it chose (5; the function is `x`: truth 1). Now the arm binds its pattern
//! after its branch (its uses are the scrutinee's), and a branch chosen by such a test of
//! input-dependent values is `Indeterminacy::Unseen`; guards of values that do not depend on the
//! inputs, and known tests (comparisons, `f64::eq`, class queries), are read as before. Since
//! the fourth stop of that day, a guard of `&&` and `||` only is lowered without blocks of its
//! own, its operands recorded as they run, and read like any condition; guards with other
//! control flow stay unseen.

use irtrack::grad::{with_general_sweep, GradError, Indeterminacy};
use irtrack::{gradient, track, tracked};

#[tracked]
fn guard_and(x: f64) -> f64 {
    match x {
        t if t > 1.0 && t < 3.0 => 5.0 * t,
        t => t,
    }
}

#[allow(clippy::double_comparisons)] // The unrecorded `||` is the subject.
#[tracked]
fn guard_or_false_at_a_point(x: f64) -> f64 {
    // `5t` everywhere (at 0 the second arm gives 0 = 5 * 0): slope 5, also at 0.
    match x {
        t if t < 0.0 || t > 0.0 => 5.0 * t,
        t => t,
    }
}

#[allow(clippy::double_comparisons)] // The unrecorded `&&` is the subject.
#[tracked]
fn guard_pinned(x: f64) -> f64 {
    match x {
        t if t <= 0.0 && t >= 0.0 => 5.0 * t,
        t => t,
    }
}

#[tracked]
fn guard_on_a_count(x: f64, n: i32) -> f64 {
    match n {
        k if k > 1 && k < 3 => 5.0 * x,
        _ => x,
    }
}

#[tracked]
fn guard_tuple(x: f64, y: f64) -> f64 {
    match (x, y) {
        (a, b) if a > b && a < 10.0 => 5.0 * a * b,
        (a, b) => a + b,
    }
}

fn is_zero(x: f64) -> bool {
    x == 0.0
}

#[tracked]
fn untracked_predicate(x: f64) -> f64 {
    if is_zero(x) {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn known_path_comparison(x: f64) -> f64 {
    if f64::eq(&x, &0.0) {
        1.0
    } else {
        x.exp_m1() / x
    }
}

fn bucket(x: f64) -> i32 {
    if x == 0.0 {
        0
    } else {
        1
    }
}

#[tracked]
fn guard_by_untracked_code(x: f64) -> f64 {
    match x {
        t if is_zero(t) => 5.0 * t,
        t => t,
    }
}

#[tracked]
fn match_on_untracked_code(x: f64) -> f64 {
    match is_zero(x) {
        true => 5.0 * x,
        false => x,
    }
}

#[tracked]
fn untracked_code_second_in_and(x: f64) -> f64 {
    if x < 5.0 && is_zero(x) {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn compared_count_from_untracked_code(x: f64) -> f64 {
    if bucket(x) < 1 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn cast_bool_from_untracked_code(x: f64) -> f64 {
    let k = is_zero(x) as i32;
    if k > 0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn closure_changes_its_capture(x: f64) -> f64 {
    let mut s = x;
    let mut c = || s *= 3.0;
    c();
    s
}

fn unseen(name: &str, e: GradError) {
    match e {
        GradError::Indeterminate {
            cause: Indeterminacy::Unseen { .. },
            ..
        } => {}
        e => panic!("{name}: expected an unseen test, got {e:?}"),
    }
}

/// A guard of `&&` and `||` only records its operands as they run (the fourth stop of
/// 2026-11-27; before, it ran unrecorded and every gradient through it was refused as unseen):
/// each comparison is read like any condition, so the slopes are the function's off its
/// ties, one-sided at a tie that leaves a half-line, and refused where the comparisons pin.
#[test]
fn a_guard_of_and_and_or_is_read_like_any_condition() {
    let slope = |f: fn(f64) -> f64, x: f64| (f(x + 1e-6) - f(x - 1e-6)) / 2e-6;
    for x in [2.0, 0.5, 5.0, 2.999] {
        let g = gradient(guard_and, (x,)).unwrap().scalars()[0].unwrap();
        assert!(
            (g - slope(guard_and, x)).abs() < 1e-6,
            "guard_and at {x}: {g}"
        );
        let general = with_general_sweep(|| gradient(guard_and, (x,))).unwrap();
        assert_eq!(general.scalars()[0], Some(g), "guard_and at {x}");
    }
    // At the tie `t > 1.0` is false: the half-line `t <= 1`, where the function is `t`.
    assert_eq!(gradient(guard_and, (1.0,)).unwrap().scalars(), [Some(1.0)]);
    // `t < 0.0` and `t > 0.0` both false: a sign test's `else`, the point alone.
    match gradient(guard_or_false_at_a_point, (0.0,)).unwrap_err() {
        GradError::Indeterminate {
            cause: Indeterminacy::Equality { .. },
            ..
        } => {}
        e => panic!("{e:?}"),
    }
    assert_eq!(
        gradient(guard_or_false_at_a_point, (1.0,))
            .unwrap()
            .scalars(),
        [Some(5.0)]
    );
    assert!(matches!(
        gradient(guard_pinned, (0.0,)).unwrap_err(),
        GradError::Indeterminate {
            cause: Indeterminacy::Equality { .. },
            ..
        }
    ));
    // `5ab` at (2, 1).
    assert_eq!(
        gradient(guard_tuple, (2.0, 1.0)).unwrap().scalars(),
        [Some(5.0), Some(10.0)]
    );
    // What replays a path still cannot check such a guard (its value is no node).
    assert!(irtrack::diff::jvp(guard_and, (2.0,), (1.0,)).is_err());
}

#[tracked]
fn guard_and_untracked(x: f64) -> f64 {
    match x {
        t if is_zero(t) || t > 1.0 => 5.0 * t,
        t => t,
    }
}

#[tracked]
fn guard_with_an_if(x: f64) -> f64 {
    match x {
        t if if t > 1.0 { t < 3.0 } else { false } => 5.0 * t,
        t => t,
    }
}

#[allow(clippy::needless_range_loop, clippy::manual_range_contains)] // As written in the wild.
#[tracked]
fn guards_in_a_loop(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        let x = v[i];
        s += match x {
            t if t > 1.0 && t * t < 9.0 => 5.0 * t,
            t if t < -1.0 || t > 100.0 => 2.0 * t,
            t => t,
        };
    }
    s
}

/// What such a guard cannot read stays unseen: a test computed by untracked code among its
/// operands, a guard with control flow of another kind.
#[test]
fn guards_that_are_not_seen_are_refused() {
    for x in [0.0, 2.0] {
        unseen(
            "untracked",
            gradient(guard_and_untracked, (x,)).unwrap_err(),
        );
        unseen("if", gradient(guard_with_an_if, (x,)).unwrap_err());
    }
}

/// In a loop, a guard names only the conditions that ran in its own iteration (those that
/// did not are `_`, not the previous iteration's nodes), and the trace verifies.
#[test]
fn guards_in_a_loop_name_what_ran() {
    let v = vec![2.0, 0.5, -3.0, 200.0, 4.0];
    let t = track(guards_in_a_loop, (v.clone(),));
    t.verify().unwrap();
    let listing = t.to_string();
    assert!(listing.contains("$(guard)(⟨_⟩, @"), "{listing}");
    let g = gradient(guards_in_a_loop, (v,)).unwrap();
    assert_eq!(
        g.wrt[0],
        Some(irtrack::Tangent::Vector(vec![5.0, 1.0, 2.0, 2.0, 1.0]))
    );
}

/// The arm's binding is the scrutinee's value in the trace (it was a constant).
#[test]
fn the_arm_of_a_guard_with_control_flow_binds_its_pattern() {
    let t = track(guard_and, (2.0,));
    t.verify().unwrap();
    let listing = t.to_string();
    assert!(listing.contains("$(bind t)(@1)"), "{listing}");
    assert!(!listing.contains("[Const:"), "{listing}");
    assert_eq!(t.root().as_f64(), Some(10.0));
}

#[test]
fn a_guard_on_values_that_do_not_depend_on_the_inputs_is_read_as_before() {
    let g = gradient(guard_on_a_count, (1.0, 2)).unwrap();
    assert_eq!(g.scalars(), [Some(5.0), None]);
    let g = gradient(guard_on_a_count, (1.0, 5)).unwrap();
    assert_eq!(g.scalars(), [Some(1.0), None]);
}

#[test]
fn a_branch_chosen_by_untracked_code_on_an_input_is_refused() {
    unseen("at 0", gradient(untracked_predicate, (0.0,)).unwrap_err());
    unseen("at 1", gradient(untracked_predicate, (1.0,)).unwrap_err());
    // A comparison known by its path is read as one: its slope away from 0.
    let g = gradient(known_path_comparison, (0.5,)).unwrap().scalars()[0].unwrap();
    let truth = (0.5 * 0.5f64.exp() - 0.5f64.exp_m1()) / 0.25;
    assert!((g - truth).abs() < 1e-12, "{g}");
}

#[allow(clippy::manual_contains)] // The closure given to `any` is the subject.
#[tracked]
fn any_is_zero(v: Vec<f64>) -> f64 {
    // At v[1] == 0 the branch holds at that point alone (the function is 2·v[0] elsewhere).
    if v.iter().any(|&t| t == 0.0) {
        5.0 * v[0]
    } else {
        2.0 * v[0]
    }
}

#[allow(clippy::needless_range_loop)] // Indexing records each element read.
#[tracked]
fn loop_is_zero(v: Vec<f64>) -> f64 {
    let mut zero = false;
    for i in 0..v.len() {
        if v[i] == 0.0 {
            zero = true;
        }
    }
    if zero {
        5.0 * v[0]
    } else {
        2.0 * v[0]
    }
}

/// A test given to untracked code as a closure is not seen: refused at the point where it
/// pins the path (5 for 2 before) and, with it, wherever it decides; written as a loop in
/// tracked code, its comparisons are read.
#[test]
fn a_test_in_a_closure_given_to_untracked_code_is_unseen() {
    unseen("any", gradient(any_is_zero, (vec![1.0, 0.0],)).unwrap_err());
    unseen("any", gradient(any_is_zero, (vec![1.0, 3.0],)).unwrap_err());
    assert!(gradient(loop_is_zero, (vec![1.0, 0.0],)).is_err());
    let g = gradient(loop_is_zero, (vec![1.0, 3.0],)).unwrap();
    assert_eq!(g.wrt[0], Some(irtrack::Tangent::Vector(vec![2.0, 0.0])));
}

#[tracked]
fn position_of_zero(v: Vec<f64>) -> f64 {
    // At v[1] == 0 the first arm holds at that point alone (the function is v[0] around it).
    match v.iter().position(|&t| t == 0.0) {
        Some(_) => 5.0 * v[0],
        None => v[0],
    }
}

#[allow(clippy::redundant_pattern_matching)] // The match on the search's answer is the subject.
#[tracked]
fn binary_search_of_an_input(v: Vec<f64>) -> f64 {
    if let Ok(_) = [0.0, 1.0, 2.0].binary_search_by(|k| k.partial_cmp(&v[1]).unwrap()) {
        5.0 * v[0]
    } else {
        v[0]
    }
}

/// A search by untracked code whose answer holds no float — `position`'s `Option<usize>`, a
/// binary search's `Result<usize, usize>` — decides like a `bool` it computed: `Some(_)` at
/// `v[1] == 0` gave 5 for 1 (the fourth stop of 2026-11-27; listed as left before). Unseen, as
/// `any` is, also where the search finds nothing.
#[test]
fn a_search_by_untracked_code_is_unseen() {
    for v in [vec![1.0, 0.0], vec![1.0, 3.0]] {
        unseen(
            "position",
            gradient(position_of_zero, (v.clone(),)).unwrap_err(),
        );
        unseen(
            "binary_search_by",
            gradient(binary_search_of_an_input, (v,)).unwrap_err(),
        );
    }
}

/// The same tests reached other ways (a tester's audit of the above, 2026-11-27): a recorded
/// guard computed by untracked code, a `match` on its result, `&&` with it second, a count it
/// returned compared, its `bool` cast to an integer. Each gave 5 for 1 at 0.
#[test]
fn untracked_tests_reached_other_ways_are_unseen() {
    for (name, g) in [
        ("guard", gradient(guard_by_untracked_code, (0.0,))),
        ("match", gradient(match_on_untracked_code, (0.0,))),
        ("and", gradient(untracked_code_second_in_and, (0.0,))),
        (
            "count",
            gradient(compared_count_from_untracked_code, (0.0,)),
        ),
        ("cast", gradient(cast_bool_from_untracked_code, (0.0,))),
    ] {
        unseen(name, g.unwrap_err());
    }
}

/// A closure that changes a captured variable: the fast path took the value returned for the
/// one bound before the call (gradient 1, truth 3); both sweeps refuse it now.
#[test]
fn a_capture_changed_by_a_closure_is_not_passed_through() {
    assert!(gradient(closure_changes_its_capture, (0.7,)).is_err());
    assert!(with_general_sweep(|| gradient(closure_changes_its_capture, (0.7,))).is_err());
}

#[tracked]
fn exponent_test(x: f64) -> f64 {
    // libm's way of testing a range: the high word of the bits, ordered as the float.
    let hx = (x.to_bits() >> 32) as u32;
    if hx < 0x3ff0_0000 {
        x * 2.0
    } else {
        x * 3.0
    }
}

/// A test on a float's bits through operations irtrack knows is read as before (the sweep
/// follows the bits kept), not as an unseen one.
#[test]
fn a_test_on_known_operations_of_the_bits_is_read() {
    assert_eq!(
        gradient(exponent_test, (0.5,)).unwrap().scalars(),
        [Some(2.0)]
    );
    assert_eq!(
        gradient(exponent_test, (1.5,)).unwrap().scalars(),
        [Some(3.0)]
    );
}
