//! A seventh adversarial round (2026-11-27, tester H): the sixth round's relaxation (a
//! comparison at a point was refused only where the output depends on it; reverted: it missed
//! a merge inside the point-only branch and a write in the branch not taken) and the corner
//! reading (|x| said by `copysign`, `is_sign_negative`, the sign bit). Each test failed on
//! 7c3b390 with a silently wrong number; it passes with the truth or a typed error. Truths:
//! closed forms, checked against central differences of the plain function. Not closed, and
//! written down in docs/gradients.md: a tie at a smooth extremum (`x.exp_m1() - x <= 0.0`), the
//! same value compared through a scale or a shift (`x <= 0.0 && 2.0 * x >= 0.0`), an element
//! or field of an argument read twice.
#![allow(clippy::all, unused)]

use irtrack::diff::jvp;
use irtrack::{gradient, tracked};

/// Asserts that gradient and jvp of `f` at `x` are the truth or refused, and that the truth is
/// a central difference of the plain function.
macro_rules! right_or_refused {
    ($f:ident, $x:expr, $truth:expr) => {{
        let x: f64 = $x;
        let truth: f64 = $truth;
        let h = 1e-5;
        let fd = ($f(x + h) - $f(x - h)) / (2.0 * h);
        assert!(
            (fd - truth).abs() < 1e-4,
            "truth of {}: fd {fd}",
            stringify!($f)
        );
        let ok = |v: f64| (v - truth).abs() <= 1e-9 * truth.abs().max(1.0);
        if let Ok(g) = gradient($f, (x,)) {
            let g = g.scalars()[0].unwrap();
            assert!(ok(g), "{}: gradient {g}, truth {truth}", stringify!($f));
        }
        if let Ok(j) = jvp($f, (x,), (1.0,)) {
            let j = j.tangent.as_f64().unwrap();
            assert!(ok(j), "{}: jvp {j}, truth {truth}", stringify!($f));
        }
    }};
}

// ---------------------------------------------------------------------------------------------
// 1. A merge INSIDE the point-only branch runs only because that branch was taken, but
//    `output_dependencies` treats every merge as reached "whichever way the branch before it
//    went": a return (or a value passed on) after an inner `if` in the branch `x == 0.0` loses
//    its dependence on `x == 0.0`. f = 2x for x != 0, 0 at 0: slope 2. irtrack: gradient 0
//    (jvp refuses, PointPath).

#[tracked]
fn return_after_inner_if(x: f64) -> f64 {
    if x == 0.0 {
        if x > 1.0 {
            let _ = 1;
        }
        return 0.0;
    }
    2.0 * x
}

#[tracked]
fn value_after_two_inner_ifs(x: f64) -> f64 {
    let r = if x == 0.0 {
        if x > 1.0 {
            let _ = 1;
        }
        if x > 2.0 {
            let _ = 2;
        }
        0.0
    } else {
        2.0 * x
    };
    r
}

#[test]
fn h1_return_after_an_inner_merge_of_a_point_only_branch() {
    right_or_refused!(return_after_inner_if, 0.0, 2.0);
}

#[test]
fn h1_value_after_two_inner_merges_of_a_point_only_branch() {
    right_or_refused!(value_after_two_inner_ifs, 0.0, 2.0);
}

// ---------------------------------------------------------------------------------------------
// 2. State changed in place by the branch NOT taken at the point (an element, a field, a Cell):
//    the read after the merge refers to the container made before the `if`, not to a block
//    argument, so the comparison `x != 0.0` (false at 0) is not "depended on". f = 2x for
//    x != 0, 0 at 0: slope 2. irtrack: gradient 0 (jvp refuses, PointPath).

#[tracked]
fn element_set_off_the_point(x: f64) -> f64 {
    let mut v = vec![0.0];
    if x != 0.0 {
        v[0] = 2.0 * x;
    }
    v[0]
}

struct Holder {
    a: f64,
}

#[tracked]
fn field_set_off_the_point(x: f64) -> f64 {
    let mut s = Holder { a: 0.0 };
    if x != 0.0 {
        s.a = 2.0 * x;
    }
    s.a
}

#[tracked]
fn cell_set_off_the_point(x: f64) -> f64 {
    let c = std::cell::Cell::new(0.0);
    if x != 0.0 {
        c.set(2.0 * x);
    }
    c.get()
}

#[test]
fn h2_element_written_off_the_point_only() {
    right_or_refused!(element_set_off_the_point, 0.0, 2.0);
}

#[test]
fn h2_field_written_off_the_point_only() {
    right_or_refused!(field_set_off_the_point, 0.0, 2.0);
}

#[test]
fn h2_cell_set_off_the_point_only() {
    right_or_refused!(cell_set_off_the_point, 0.0, 2.0);
}

// ---------------------------------------------------------------------------------------------
// 3. An ordering at a tie of a SMOOTH value at its extremum: no single operation is at a kink
//    (`at_kink` knows `x * x`, `cos` at 0, ...), but `exp_m1(x) - x >= 0` everywhere with
//    equality at 0 only, and `sin(x) <= 1` with equality at pi/2 only: the branch is a point.
//    exprel slope 1/2 at 0; the second is x - pi/2 + 1, slope 1. irtrack: gradient 0, jvp 0.

#[tracked]
fn exprel_special_case_at_a_smooth_minimum(x: f64) -> f64 {
    if x.exp_m1() - x <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn special_case_at_the_top_of_sin(x: f64) -> f64 {
    if x.sin() >= 1.0 {
        1.0
    } else {
        x - std::f64::consts::FRAC_PI_2 + 1.0
    }
}

// ---------------------------------------------------------------------------------------------
// 4. A user-written |x| with no tie to read: `x.copysign(1.0)` is |x| (at_kink marks copysign
//    only at a zero SIGN operand), `is_sign_negative` and the sign bit decide a branch without
//    any comparison at a tie. `a <= 0.0` then holds at x = 0 only. exprel: slope 1/2.
//    irtrack: gradient 0 (and jvp 0 for the first two).

#[tracked]
fn exprel_through_copysign(x: f64) -> f64 {
    if x.copysign(1.0) <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_through_is_sign_negative(x: f64) -> f64 {
    let a = if x.is_sign_negative() { -x } else { x };
    if a <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_through_the_sign_bit(x: f64) -> f64 {
    let a = if x.to_bits() >> 63 == 1 { -x } else { x };
    if a <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[test]
fn h4_abs_said_by_copysign() {
    right_or_refused!(exprel_through_copysign, 0.0, 0.5);
}

#[test]
fn h4_abs_said_by_is_sign_negative() {
    right_or_refused!(exprel_through_is_sign_negative, 0.0, 0.5);
}

#[test]
fn h4_abs_said_by_the_sign_bit() {
    right_or_refused!(exprel_through_the_sign_bit, 0.0, 0.5);
}

// ---------------------------------------------------------------------------------------------
// 5. Section 1 and 2 together, through tracked helpers: a `&mut` parameter written only off
//    the point, the helper's return after the `if` (a merge); and an early return after an
//    inner loop and `if` inside a helper. Slope 2. irtrack: gradient 0 (jvp refuses).

#[tracked]
fn set_off_the_point(o: &mut f64, x: f64) {
    if x != 0.0 {
        *o = 2.0 * x;
    }
    let _ = 0;
}

#[tracked]
fn written_through_a_mut_parameter(x: f64) -> f64 {
    let mut o = 0.0;
    set_off_the_point(&mut o, x);
    o
}

#[tracked]
fn helper_returning_early(x: f64) -> f64 {
    if x == 0.0 {
        if x > 1.0 {
            let _ = 2;
        }
        return 0.0;
    }
    2.0 * x
}

#[tracked]
fn through_a_helper(x: f64) -> f64 {
    helper_returning_early(x) + 0.0
}

#[test]
fn h5_mut_parameter_written_off_the_point_only() {
    right_or_refused!(written_through_a_mut_parameter, 0.0, 2.0);
}

#[test]
fn h5_helper_returning_after_an_inner_merge() {
    right_or_refused!(through_a_helper, 0.0, 2.0);
}

#[tracked]
fn closure_returning_after_an_inner_if(x: f64) -> f64 {
    let f = |t: f64| -> f64 {
        if t == 0.0 {
            if t > 1.0 {
                let _ = 1;
            }
            return 0.0;
        }
        2.0 * t
    };
    f(x)
}

#[test]
fn h5_closure_returning_after_an_inner_merge() {
    right_or_refused!(closure_returning_after_an_inner_if, 0.0, 2.0);
}

// ---------------------------------------------------------------------------------------------
// 6. `x <= 0` and `x >= 0` said of the same value through a strictly monotone step (`2 * x`,
//    `x + 1 >= 1`, `exp(x) >= 1`): the two orderings confine x to 0, but the sides are different
//    nodes, so each reads as a half-line. exprel: slope 1/2. irtrack: gradient 0, jvp 0.

#[tracked]
fn exprel_sides_scaled(x: f64) -> f64 {
    if x <= 0.0 && 2.0 * x >= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[tracked]
fn exprel_sides_shifted(x: f64) -> f64 {
    if x <= 0.0 && x + 1.0 >= 1.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

// ---------------------------------------------------------------------------------------------
// 7. `v[0] <= 0 && v[0] >= 0` on a slice argument, `p.x <= 0 && p.x >= 0` on a struct
//    argument: each read is a node of its own, so the two orderings of the same element or field
//    are not paired. exprel: slope 1/2. irtrack: gradient [0.0] and {x: 0.0}.

#[tracked]
fn exprel_element_read_twice(v: &[f64]) -> f64 {
    let x = v[0];
    if v[0] <= 0.0 && v[0] >= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[derive(Clone, Copy)]
struct Pt {
    x: f64,
}

#[tracked]
fn exprel_field_read_twice(p: Pt) -> f64 {
    let x = p.x;
    if p.x <= 0.0 && p.x >= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}

// Section 3 in derivative programs: the hessian of exprel at 0 is 1/3 (1 + x/2 + x²/6 + ...).
// irtrack: hessian [[0.0]].
