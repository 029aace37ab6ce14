//! Paths pinned to one point by orderings of values that move with the same input but are not
//! copies of it (found 2026-11-27, listed as left in the stop before): `x <= 0.0 &&
//! 2.0 * x >= 0.0`, `x <= 1.0 && x + 1.0 >= 2.0`, `x - y <= 0.0 && y - x <= 0.0`, a side that
//! does not depend on the inputs computed rather than written (`lo = 1.5_f64.floor() - 1.0`), a compound
//! assignment on the way (`s *= 3.0; s -= 1.0`), a negative scale, an element or a field read
//! twice (`v[0] <= 0.0 && v[0] >= 0.0`: two nodes reading one place). Each gave the pinned
//! branch's slope as the gradient and as a derivative program's answer (5 where the function
//! is `x` everywhere: truth 1; 3 on the diagonal `x == y` of `x + y`, where the function jumps:
//! no derivative). `tests/pinned_paths.rs` asserted one of them, 3 for 1 (`x >= 0.0 &&
//! x + 1.0 <= 1.0` at 0). Now each is `Indeterminacy::Equality` (`DiffError::PointPath` for a
//! derivative program); two ties that let the value move the same way keep the one-sided slope,
//! and off the point the slopes are as before.

use irtrack::diff::{differentiate, hessian, jvp, DiffError};
use irtrack::grad::{with_general_sweep, GradError, Indeterminacy};
use irtrack::program::{Input, Program};
use irtrack::{gradient, track, tracked};

#[tracked]
fn scaled(x: f64) -> f64 {
    if x <= 0.0 && 2.0 * x >= 0.0 {
        x * 5.0
    } else {
        x
    }
}

#[tracked]
fn shifted(x: f64) -> f64 {
    if x <= 1.0 && x + 1.0 >= 2.0 {
        x * 5.0
    } else {
        x
    }
}

#[tracked]
fn negative_scale(x: f64) -> f64 {
    if x <= 0.0 && -2.0 * x <= 0.0 {
        x * 5.0
    } else {
        x
    }
}

#[tracked]
fn divided_and_reversed(x: f64) -> f64 {
    // `1 - x/4 >= 1` is `x <= 0`; with `x >= 0`, `x == 0`.
    if 1.0 - x / 4.0 >= 1.0 && x >= 0.0 {
        x * 5.0
    } else {
        x
    }
}

#[tracked]
fn computed_bound(x: f64) -> f64 {
    let lo = 1.5_f64.floor() - 1.0;
    if x <= lo && x >= 0.0 {
        x * 5.0
    } else {
        x
    }
}

#[tracked]
fn compound_assignments(x: f64) -> f64 {
    let mut s = x;
    s *= 3.0;
    s -= 1.0;
    if x >= 1.0 / 3.0 && s <= 0.0 {
        7.0 * x
    } else {
        x
    }
}

#[tracked]
fn difference_both_ways(x: f64, y: f64) -> f64 {
    if x - y <= 0.0 && y - x <= 0.0 {
        3.0 * x
    } else {
        x + y
    }
}

#[tracked]
fn sum_and_value(x: f64, y: f64) -> f64 {
    // `x + y <= 0` and `x >= -y`: `x == -y`.
    if x + y <= 0.0 && x >= -y {
        10.0 * x
    } else {
        x - y
    }
}

#[tracked]
fn scaled_one_way(x: f64) -> f64 {
    if x <= 0.0 && 2.0 * x <= 0.0 {
        x * 5.0
    } else {
        x
    }
}

#[tracked]
fn difference_one_way(x: f64, y: f64) -> f64 {
    if x - y <= 0.0 && 2.0 * x <= 2.0 * y {
        3.0 * x
    } else {
        x + y
    }
}

#[allow(clippy::double_comparisons)] // The two reads are the subject.
#[tracked]
fn element_read_twice(v: Vec<f64>) -> f64 {
    if v[0] <= 0.0 && v[0] >= 0.0 {
        v[0] * 5.0
    } else {
        v[0]
    }
}

#[derive(Clone, Debug, irtrack::Snapshot)]
pub struct Point {
    pub x: f64,
}

#[tracked]
fn field_read_twice(p: Point) -> f64 {
    if p.x <= 0.0 && 2.0 * p.x >= 0.0 {
        p.x * 5.0
    } else {
        p.x
    }
}

#[tracked]
fn through_exp(x: f64) -> f64 {
    if x.exp() <= 1.0 && x >= 0.0 {
        x + 4.0 * x
    } else {
        x
    }
}

#[tracked]
fn through_ln(x: f64) -> f64 {
    if x.ln() <= 0.0 && x >= 1.0 {
        x + 4.0 * (x - 1.0)
    } else {
        x
    }
}

#[tracked]
fn through_reciprocal(x: f64) -> f64 {
    // `2 / x` falls as `x` rises: `2 / x >= 2` is `x <= 1`.
    if 2.0 / x >= 2.0 && x >= 1.0 {
        x + 4.0 * (x - 1.0)
    } else {
        x
    }
}

#[tracked]
fn through_sin(x: f64) -> f64 {
    if x.sin() <= 0.0 && x >= 0.0 {
        x + 4.0 * x
    } else {
        x
    }
}

#[tracked]
fn scaled_by_an_input(x: f64, w: f64) -> f64 {
    // At `x == 0`, `w * x` moves with `x` alone (its slope along `w` is `x`, 0).
    if w * x <= 0.0 && x >= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn curvature_of_a_pinned_branch(x: f64) -> f64 {
    if x.exp() <= 1.0 && x >= 0.0 {
        5.0 * x * x
    } else {
        x * x
    }
}

#[tracked]
fn through_exp_one_way(x: f64) -> f64 {
    if x.exp() <= 1.0 && x <= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn added_to_itself(x: f64) -> f64 {
    if x + x <= 0.0 && x >= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn cast_to_f32(x: f64) -> f64 {
    if (x as f32) <= 0.0 && x >= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn same_expression_twice(x: f64) -> f64 {
    if x.sin() <= 0.0 && x.sin() >= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn counted_comparisons(x: f64) -> f64 {
    let a = (x.exp() <= 1.0) as i32;
    let b = (x >= 0.0) as i32;
    if a + b == 2 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn array_literal_element(x: f64) -> f64 {
    let v = [x, 1.0];
    if v[0] <= 0.0 && x >= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn differences_of_scales(x: f64) -> f64 {
    if 2.0 * x - x <= 0.0 && x - 2.0 * x <= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn negated_pair(x: f64, y: f64) -> f64 {
    // `-x <= y` is `x >= -y`; with `x <= -y`, `x == -y`.
    if -x <= y && x <= -y {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn destructured_tuple(x: f64) -> f64 {
    let (a, _b) = (x * 2.0, 1.0);
    if a <= 0.0 && x >= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn two_parts_of_a_tuple(x: f64, y: f64) -> f64 {
    // `a` and `b` are different values: one tie each, a quadrant, no point pinned.
    let (a, b) = (x, y);
    if a <= 0.0 && b >= 0.0 {
        5.0 * x + y
    } else {
        x + y
    }
}

#[tracked]
fn square_at_one(x: f64) -> f64 {
    // `x * x` moves with `x` both ways at once: as `x` (at 1).
    if x * x <= 1.0 && x >= 1.0 {
        5.0 * x - 4.0
    } else {
        x
    }
}

#[tracked]
fn unit_disc(x: f64) -> f64 {
    let r2 = x * x + 1.0;
    if r2 <= 2.0 && x >= 1.0 {
        5.0 * x - 4.0
    } else {
        x
    }
}

#[tracked]
fn product_with_itself_shifted(x: f64) -> f64 {
    if x * (x + 1.0) <= 2.0 && x >= 1.0 {
        5.0 * x - 4.0
    } else {
        x
    }
}

#[tracked]
fn cube_by_powi(x: f64) -> f64 {
    if x.powi(3) <= 1.0 && x >= 1.0 {
        5.0 * x - 4.0
    } else {
        x
    }
}

#[tracked]
fn times_its_exp(x: f64) -> f64 {
    if x * x.exp() <= 0.0 && x >= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn over_itself_plus_one(x: f64) -> f64 {
    if x / (x + 1.0) <= 0.0 && x >= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn not_capped(x: f64) -> f64 {
    // Below the cap `x.min(3.0) >= x` holds around the point (the same value, the same slope).
    if x.min(3.0) >= x {
        x * x
    } else {
        3.0 * x
    }
}

#[tracked]
fn times_one_at_most_itself(x: f64) -> f64 {
    if x * 1.0 <= x {
        x * x
    } else {
        0.0
    }
}

fn refused(name: &str, e: GradError) {
    match e {
        GradError::Indeterminate {
            cause: Indeterminacy::Equality { .. },
            ..
        } => {}
        e => panic!("{name}: expected an equality, got {e:?}"),
    }
}

fn program_refused(name: &str, p: &Program, wrt: &[usize]) {
    match differentiate(p, wrt) {
        Err(DiffError::PointPath { .. }) => {}
        Ok(d) => panic!("{name}: a derivative program at a pinned point: {d:?}"),
        Err(e) => panic!("{name}: {e:?}"),
    }
}

/// Central differences of a function of one variable: the truth off the point.
fn slope(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn pinned_through_a_monotone_step_is_refused() {
    macro_rules! one_input {
        ($($f:ident at $x:expr),*) => {$({
            let name = stringify!($f);
            refused(name, gradient($f, ($x,)).unwrap_err());
            refused(name, with_general_sweep(|| gradient($f, ($x,))).unwrap_err());
            assert!(jvp($f, ($x,), (1.0,)).is_err(), "{name}: jvp");
            let p = Program::from_trace(&track($f, ($x,)), &[Input::Dynamic]).unwrap();
            program_refused(name, &p, &[0]);
            // Off the point, the slope of the branch taken (1), checked against differences.
            let x1 = $x + 0.25;
            let g = gradient($f, (x1,)).unwrap().scalars()[0].unwrap();
            assert!((g - slope($f, x1)).abs() < 1e-6, "{name} at {x1}: {g}");
        })*};
    }
    one_input!(
        scaled at 0.0,
        shifted at 1.0,
        negative_scale at 0.0,
        divided_and_reversed at 0.0,
        computed_bound at 0.0,
        compound_assignments at 1.0 / 3.0,
        through_exp at 0.0,
        through_ln at 1.0,
        through_reciprocal at 1.0,
        through_sin at 0.0,
        added_to_itself at 0.0,
        cast_to_f32 at 0.0,
        same_expression_twice at 0.0,
        array_literal_element at 0.0,
        differences_of_scales at 0.0,
        square_at_one at 1.0,
        unit_disc at 1.0,
        product_with_itself_shifted at 1.0,
        cube_by_powi at 1.0,
        times_its_exp at 0.0,
        over_itself_plus_one at 0.0
    );
    // A tuple literal has no program (not re-executable): the gradient alone.
    refused(
        "destructured_tuple",
        gradient(destructured_tuple, (0.0,)).unwrap_err(),
    );
}

#[test]
fn pinned_by_a_difference_of_two_inputs_is_refused() {
    macro_rules! two_inputs {
        ($($f:ident at $x:expr, $y:expr);*) => {$({
            let (name, x, y) = (stringify!($f), $x, $y);
            refused(name, gradient($f, (x, y)).unwrap_err());
            assert!(hessian($f, (x, y)).is_err(), "{name}: hessian");
            let p = Program::from_trace(&track($f, (x, y)), &[Input::Dynamic, Input::Dynamic])
                .unwrap();
            program_refused(name, &p, &[0, 1]);
            // One input differentiated, the other fixed: the same point along it.
            program_refused(name, &p, &[0]);
        })*};
    }
    two_inputs!(difference_both_ways at 1.0, 1.0; sum_and_value at 1.0, -1.0);
    // Off the diagonal: `x + y`'s slopes.
    assert_eq!(
        gradient(difference_both_ways, (1.0, 2.0))
            .unwrap()
            .scalars(),
        [Some(1.0), Some(1.0)]
    );
}

/// Ties that let the value move one way bound a half-line: the one-sided slope of the branch
/// taken, as for one ordering (the convention at a kink, docs/gradients.md).
#[test]
fn ties_that_agree_keep_the_one_sided_slope() {
    assert_eq!(
        gradient(scaled_one_way, (0.0,)).unwrap().scalars(),
        [Some(5.0)]
    );
    assert_eq!(
        gradient(difference_one_way, (1.0, 1.0)).unwrap().scalars(),
        [Some(3.0), Some(0.0)]
    );
    assert_eq!(
        gradient(two_parts_of_a_tuple, (0.0, 0.0))
            .unwrap()
            .scalars(),
        [Some(5.0), Some(1.0)]
    );
    let p = Program::from_trace(&track(scaled_one_way, (0.0,)), &[Input::Dynamic]).unwrap();
    let d = differentiate(&p, &[0]).unwrap();
    assert_eq!(d.call((0.0, 1.0)).unwrap().as_f64(), Some(5.0));
}

/// Two reads of one place are two nodes: an element, a field.
#[test]
fn pinned_through_two_reads_of_one_place_is_refused() {
    refused(
        "element",
        gradient(element_read_twice, (vec![0.0],)).unwrap_err(),
    );
    refused(
        "field",
        gradient(field_read_twice, (Point { x: 0.0 },)).unwrap_err(),
    );
    let p =
        Program::from_trace(&track(element_read_twice, (vec![0.0],)), &[Input::Dynamic]).unwrap();
    program_refused("element", &p, &[0]);
    // Off the point: the slope of `v[0]`.
    let g = gradient(element_read_twice, (vec![0.5],)).unwrap();
    assert_eq!(g.wrt[0], Some(irtrack::Tangent::Vector(vec![1.0])));
}

/// Through a step whose slope is not 0 here (a float method, a product with another input):
/// the slope's sign says which way the side moves.
#[test]
fn pinned_through_a_step_with_a_slope_is_refused() {
    refused(
        "scaled_by_an_input",
        gradient(scaled_by_an_input, (0.0, 2.0)).unwrap_err(),
    );
    // The second derivative of the pinned branch (10) is not the function's (2).
    assert!(hessian(curvature_of_a_pinned_branch, (0.0,)).is_err());
    let p = Program::from_trace(
        &track(curvature_of_a_pinned_branch, (0.0,)),
        &[Input::Dynamic],
    )
    .unwrap();
    program_refused("curvature_of_a_pinned_branch", &p, &[0]);
    // Two ties that let `x` go down: the one-sided slope.
    assert_eq!(
        gradient(through_exp_one_way, (0.0,)).unwrap().scalars(),
        [Some(5.0)]
    );
}

/// Comparisons counted as integers (`(x >= 0.0) as i32`), and a pair said with mixed
/// negations (`-x <= y` and `x <= -y`): each ordering is read where it is evaluated.
#[test]
fn pinned_through_counts_and_negations_is_refused() {
    refused(
        "counted_comparisons",
        gradient(counted_comparisons, (0.0,)).unwrap_err(),
    );
    refused(
        "negated_pair",
        gradient(negated_pair, (1.0, -1.0)).unwrap_err(),
    );
    let p = Program::from_trace(
        &track(negated_pair, (1.0, -1.0)),
        &[Input::Dynamic, Input::Dynamic],
    )
    .unwrap();
    program_refused("negated_pair", &p, &[0, 1]);
}

/// Two sides that move with one value at the same slope hold their ordering around the point
/// (they are one value there): no pin, at every point (both were refused everywhere by a
/// reading that did not compare the slopes). A slope that differs says which way.
#[test]
fn sides_of_one_value_at_one_slope_do_not_pin() {
    for x in [0.5, 1.0, -2.0] {
        let g = gradient(not_capped, (x,)).unwrap().scalars()[0].unwrap();
        assert_eq!(g, 2.0 * x);
        let g = gradient(times_one_at_most_itself, (x,)).unwrap().scalars()[0].unwrap();
        assert_eq!(g, 2.0 * x);
        let p = Program::from_trace(&track(not_capped, (x,)), &[Input::Dynamic]).unwrap();
        let d = differentiate(&p, &[0]).unwrap();
        assert_eq!(d.call((x, 1.0)).unwrap().as_f64(), Some(2.0 * x));
    }
}
