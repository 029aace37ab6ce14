//! Paths that exist at one point only, said without `==` (found 2026-11-27 by the third
//! adversarial round and the leftovers of the second): a sign test's `else` (`x > 0.0` false,
//! then `x < 0.0` false), `a >= b && b >= a`, a float matched against a literal pattern, a
//! `match` on `partial_cmp`/`total_cmp` that was `Equal`, and an equality in a `match` guard.
//! Each gave the special case's slope (5 where the function is `|x|` around 0) as the
//! gradient; a derivative program of a path pinned by `==` answered at the point too (0 for
//! 1.125). Now each is `Indeterminacy::Equality` (or `DiffError::PointPath`), and off the
//! point, or at a tie reached by one ordering, the slopes are the one-sided ones as before.

use irtrack::diff::{differentiate, jvp, vjp, DiffError};
use irtrack::grad::{with_general_sweep, GradError, Indeterminacy};
use irtrack::program::{Input, Program};
use irtrack::{gradient, track, tracked};
use std::cmp::Ordering;

#[tracked]
fn sign_test(x: f64) -> f64 {
    if x > 0.0 {
        x
    } else if x < 0.0 {
        -x
    } else {
        5.0 * x
    }
}

#[tracked]
fn both_ways(x: f64, y: f64) -> f64 {
    if x >= y && y >= x {
        5.0 * x
    } else {
        x * y
    }
}

#[allow(clippy::neg_cmp_op_on_partial_ord)] // The negated ordering is the subject.
#[tracked]
fn at_most_and_not_below(x: f64) -> f64 {
    if x <= 0.0 && !(x < 0.0) {
        5.0 * x
    } else {
        x.abs()
    }
}

#[tracked]
fn literal_pattern(x: f64) -> f64 {
    match x {
        0.0 => 5.0 * x,
        _ => x.abs(),
    }
}

#[tracked]
fn partial_order(x: f64) -> f64 {
    match x.partial_cmp(&0.0) {
        Some(Ordering::Less) => -x,
        Some(Ordering::Greater) => x,
        _ => 5.0 * x,
    }
}

#[tracked]
fn total_order(x: f64) -> f64 {
    match x.total_cmp(&0.0) {
        Ordering::Equal => 5.0 * x,
        _ => x.abs(),
    }
}

#[tracked]
fn unwrapped_order(x: f64) -> f64 {
    match x.partial_cmp(&0.0).unwrap() {
        Ordering::Less => -x,
        Ordering::Greater => x,
        Ordering::Equal => 5.0 * x,
    }
}

#[tracked]
fn equality_guard(x: f64) -> f64 {
    match x {
        n if n == 0.0 => 5.0 * n,
        n => n.abs(),
    }
}

#[tracked]
fn ordering_guards(x: f64) -> f64 {
    match x {
        n if n > 0.0 => n,
        n if n < 0.0 => -n,
        n => 5.0 * n,
    }
}

fn pinned(name: &str, e: GradError) {
    match e {
        GradError::Indeterminate {
            cause: Indeterminacy::Equality { .. },
            ..
        } => {}
        e => panic!("{name}: {e:?}"),
    }
}

/// The checks of one function `f` that is `|x|` around 0 and `5x` at 0 alone.
macro_rules! check_pinned_at_zero {
    ($($f:ident),*) => {$({
        let name = stringify!($f);
        assert_eq!($f(0.0), 0.0);
        assert_eq!(($f(1e-9), $f(-1e-9)), (1e-9, 1e-9), "{name}");
        pinned(name, gradient($f, (0.0,)).unwrap_err());
        pinned(name, with_general_sweep(|| gradient($f, (0.0,))).unwrap_err());
        assert!(jvp($f, (0.0,), (1.0,)).is_err(), "{name}");
        // Off the point, the slope of |x|.
        for x in [0.5f64, -0.5] {
            let g = gradient($f, (x,)).unwrap().scalars()[0].unwrap();
            assert_eq!(g, x.signum(), "{name} at {x}");
        }
    })*};
}

#[test]
fn a_point_said_without_equality_is_refused() {
    check_pinned_at_zero!(
        sign_test,
        at_most_and_not_below,
        literal_pattern,
        partial_order,
        total_order,
        unwrapped_order,
        equality_guard,
        ordering_guards
    );
    pinned("both_ways", gradient(both_ways, (1.0, 1.0)).unwrap_err());
    assert!(vjp(both_ways, (1.0, 1.0), 1.0).is_err());
    assert_eq!(
        gradient(both_ways, (1.0, 2.0)).unwrap().scalars(),
        [Some(2.0), Some(1.0)]
    );
}

#[tracked]
fn one_sided(x: f64) -> f64 {
    if x >= 0.0 {
        2.0 * x
    } else {
        -x
    }
}

#[tracked]
fn ties_one_way(x: f64) -> f64 {
    // Two orderings at a tie that both hold on `x <= 0`: a half-line, no point pinned.
    let y = x + 1.0;
    if x <= 0.0 && y <= 1.0 {
        3.0 * x
    } else {
        x
    }
}

/// One ordering at a tie confines the path to a half-line: the one-sided slope, as before;
/// so do two that let the value move the same way.
#[test]
fn one_ordering_at_a_tie_keeps_its_one_sided_slope() {
    assert_eq!(gradient(one_sided, (0.0,)).unwrap().scalars(), [Some(2.0)]);
    assert_eq!(
        gradient(ties_one_way, (0.0,)).unwrap().scalars(),
        [Some(3.0)]
    );
}

#[tracked]
fn special_case_at_zero(x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x * 1.125
    }
}

/// A derivative program of a path that exists at one point only answered there: 0 for
/// `special_case_at_zero` (truth 1.125), 5 for `sign_test` (no derivative).
#[test]
fn a_derivative_program_of_a_point_path_is_refused() {
    macro_rules! check {
        ($f:ident, $slope:expr) => {{
            let name = stringify!($f);
            let p = Program::from_trace(&track($f, (0.0,)), &[Input::Dynamic]).unwrap();
            match differentiate(&p, &[0]) {
                Err(e @ DiffError::PointPath { .. }) => {
                    assert!(e.to_string().contains("one point only"), "{name}: {e}")
                }
                other => panic!("{name}: {:?}", other.map(|_| ())),
            }
            assert!(irtrack::diff::reverse(&p, 0).is_err(), "{name}");
            // Recorded elsewhere, the derivative program refuses the point by its guards.
            let p = Program::from_trace(&track($f, (2.0,)), &[Input::Dynamic]).unwrap();
            let d = differentiate(&p, &[0]).unwrap();
            assert!(d.call((0.0, 1.0)).is_err(), "{name}");
            assert_eq!(d.call((3.0, 1.0)).unwrap().as_f64(), Some($slope), "{name}");
        }};
    }
    check!(special_case_at_zero, 1.125);
    check!(sign_test, 1.0);
}
