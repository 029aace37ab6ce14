//! Orderings at a tie read by their slopes (found 2026-11-27, listed as left by the stop
//! before): the readings of sides in `grad/sweep/pins.rs` name what a side is a copy of or
//! moves with, and missed pins that no pair of named sides shows — three orderings of which no
//! two pin (`x <= y && y <= 0.0 && x >= 0.0` at the origin), a sum compared with one of its
//! terms (`x + y >= y`), a side moving with two inputs (`x * y` or `x.hypot(y)` computed
//! twice, `x * y >= 1.0` with both inputs capped), a side that agrees with the other to first
//! order only (`x.sin() <= x` at 0), a struct literal's field. Each gave the pinned branch's
//! slope (5 or [5, 5] where the function is `x` or `x + y` around the point and jumps at it:
//! no derivative), as a gradient and as a derivative program's answer.
//!
//! Now each ordering still standing after those readings has the difference of its sides
//! differentiated with respect to the inputs, and the path is refused where no direction of
//! the inputs keeps every ordering (Gordan's alternative, `core::cone`): `Equality`, or
//! `Stationary` where a difference has the slope 0. Where a direction does (a wedge, a
//! quadrant), the branch's one-sided slope stands, checked here by differences of the function
//! along a direction into the region.

use irtrack::diff::{differentiate, hessian, jvp, DiffError};
use irtrack::grad::{with_general_sweep, GradError, Indeterminacy};
use irtrack::program::{Input, Program};
use irtrack::{gradient, track, tracked, Callable};

#[tracked]
fn three_orderings(x: f64, y: f64) -> f64 {
    if x <= y && y <= 0.0 && x >= 0.0 {
        5.0 * (x + y)
    } else {
        x + y
    }
}

#[tracked]
fn sum_and_its_term(x: f64, y: f64) -> f64 {
    // `x + y >= y` is `x >= 0`.
    if x + y >= y && x <= 0.0 {
        5.0 * x + y
    } else {
        x + y
    }
}

#[allow(clippy::double_comparisons)] // Two comparisons of one product is the subject.
#[tracked]
fn product_twice(x: f64, y: f64) -> f64 {
    if x * y <= 1.0 && x * y >= 1.0 {
        5.0 * (x + y)
    } else {
        x + y
    }
}

#[tracked]
fn hypot_twice(x: f64, y: f64) -> f64 {
    if x.hypot(y) <= 1.0 && x.hypot(y) >= 1.0 {
        5.0 * (x + y)
    } else {
        x + y
    }
}

#[tracked]
fn capped_product(x: f64, y: f64) -> f64 {
    // At (1, 1): `x * y >= 1` with `x <= 1` and `y <= 1` holds there alone.
    if x * y >= 1.0 && x <= 1.0 && y <= 1.0 {
        5.0 * (x + y)
    } else {
        x + y
    }
}

#[tracked]
fn wedge_then_closed(x: f64, y: f64) -> f64 {
    // The first two leave a wedge; the third closes it.
    if x * y <= 1.0 && y >= 1.0 && x >= 1.0 {
        5.0 * y
    } else {
        y
    }
}

#[tracked]
fn elements_pinned(v: Vec<f64>) -> f64 {
    if v[0] + v[1] <= 0.0 && v[0] >= 0.0 && v[1] >= 0.0 {
        5.0 * (v[0] + v[1])
    } else {
        v[0] + v[1]
    }
}

#[tracked]
fn sine_below_itself(x: f64) -> f64 {
    // `sin x <= x` holds for `x >= 0`: with `x <= 0`, at 0 alone.
    if x.sin() <= x && x <= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn tangent_above_itself(x: f64) -> f64 {
    if x.tan() >= x && x <= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[derive(Clone, Debug, irtrack::Snapshot)]
pub struct Bound {
    pub at: f64,
}

#[tracked]
fn struct_literal_field(x: f64) -> f64 {
    let b = Bound { at: x };
    if b.at <= 0.0 && x >= 0.0 {
        5.0 * x
    } else {
        x
    }
}

// Open regions: the branch holds on a wedge, a strip's corner, a quadrant.

#[tracked]
fn wedge(x: f64, y: f64) -> f64 {
    if x * y <= 1.0 && y >= 1.0 {
        5.0 * y + x
    } else {
        y
    }
}

#[tracked]
fn wedge_of_a_vector(v: Vec<f64>) -> f64 {
    if v[0] * v[1] <= 1.0 && v[1] >= 1.0 {
        5.0 * v[1] + v[0] * v[1]
    } else {
        v[1]
    }
}

#[tracked]
fn two_planes(x: f64, y: f64) -> f64 {
    if x + y <= 1.0 && x - y <= 1.0 {
        5.0 * x + y
    } else {
        x
    }
}

#[tracked]
fn quadrant(x: f64, y: f64) -> f64 {
    if x <= 0.0 && y <= 0.0 {
        3.0 * x - 2.0 * y
    } else {
        x * y
    }
}

#[tracked]
fn floor_below(x: f64) -> f64 {
    // `floor(x)` is 3 around 3.5: the ordering holds on a neighbourhood.
    if x.floor() <= 3.0 {
        5.0 * x
    } else {
        x
    }
}

#[allow(clippy::eq_op, clippy::nonminimal_bool, clippy::double_comparisons)] // The subject.
#[tracked]
fn itself_both_ways(x: f64) -> f64 {
    if x <= x && x >= x {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn max_with_smaller(x: f64, y: f64) -> f64 {
    // Where `x > y`, `x.max(y)` is `x` around the point.
    if x.max(y) >= x {
        5.0 * x
    } else {
        x
    }
}

fn refused(name: &str, e: GradError, stationary: bool) {
    match e {
        GradError::Indeterminate {
            cause: Indeterminacy::Equality { .. },
            ..
        } if !stationary => {}
        GradError::Indeterminate {
            cause: Indeterminacy::Stationary { .. },
            ..
        } if stationary => {}
        e => panic!("{name}: expected a refusal (stationary: {stationary}), got {e:?}"),
    }
}

fn program_refused<A>(name: &str, f: impl Callable<A>, args: A, dynamic: usize) {
    let inputs = vec![Input::Dynamic; dynamic];
    let p = Program::from_trace(&track(f, args), &inputs).unwrap();
    let wrt: Vec<usize> = (0..dynamic).collect();
    match differentiate(&p, &wrt) {
        Err(DiffError::PointPath { .. } | DiffError::StationaryTie { .. }) => {}
        Ok(d) => panic!("{name}: a derivative program at a pinned point: {d:?}"),
        Err(e) => panic!("{name}: {e:?}"),
    }
}

#[test]
fn pins_no_pair_of_sides_shows_are_refused() {
    macro_rules! two_inputs {
        ($($f:ident at $x:expr, $y:expr);*) => {$({
            let (name, x, y) = (stringify!($f), $x, $y);
            refused(name, gradient($f, (x, y)).unwrap_err(), false);
            refused(name, with_general_sweep(|| gradient($f, (x, y))).unwrap_err(), false);
            assert!(hessian($f, (x, y)).is_err(), "{name}: hessian");
            assert!(jvp($f, (x, y), (1.0, 0.0)).is_err(), "{name}: jvp");
            program_refused(name, $f, (x, y), 2);
            // Off the point, the slopes of `x + y` (or `y`), by differences.
            let (x1, y1) = (x + 0.375, y - 0.25);
            let g = gradient($f, (x1, y1)).unwrap().scalars();
            let h = 1e-6;
            let dx = ($f(x1 + h, y1) - $f(x1 - h, y1)) / (2.0 * h);
            let dy = ($f(x1, y1 + h) - $f(x1, y1 - h)) / (2.0 * h);
            assert!((g[0].unwrap() - dx).abs() < 1e-6 && (g[1].unwrap() - dy).abs() < 1e-6,
                "{name} at ({x1}, {y1}): {g:?} for [{dx}, {dy}]");
        })*};
    }
    two_inputs!(
        three_orderings at 0.0, 0.0;
        sum_and_its_term at 0.0, 1.0;
        product_twice at 1.0, 1.0;
        hypot_twice at 0.6, 0.8;
        capped_product at 1.0, 1.0;
        wedge_then_closed at 1.0, 1.0
    );
    refused(
        "elements_pinned",
        gradient(elements_pinned, (vec![0.0, 0.0],)).unwrap_err(),
        false,
    );
    program_refused("elements_pinned", elements_pinned, (vec![0.0, 0.0],), 1);
}

#[test]
fn sides_agreeing_to_first_order_only_are_refused() {
    macro_rules! one_input {
        ($($f:ident),*) => {$({
            let name = stringify!($f);
            refused(name, gradient($f, (0.0,)).unwrap_err(), true);
            refused(name, with_general_sweep(|| gradient($f, (0.0,))).unwrap_err(), true);
            assert!(jvp($f, (0.0,), (1.0,)).is_err(), "{name}: jvp");
            program_refused(name, $f, (0.0,), 1);
            // The message says what to do.
            let text = gradient($f, (0.0,)).unwrap_err().to_string();
            assert!(text.contains("slope 0") && text.contains("off the tie"), "{text}");
            // Off the point: the slope 1 below, where the branch is not taken.
            assert_eq!(gradient($f, (0.25,)).unwrap().scalars(), [Some(1.0)], "{name}");
        })*};
    }
    one_input!(sine_below_itself, tangent_above_itself);
}

#[test]
fn a_struct_literal_field_at_a_tie_is_an_error_naming_the_ordering() {
    // The branch holds at x = 0 alone (`b.at <= 0.0 && x >= 0.0`): an error that names an
    // ordering, where the branch's 5 was returned. (Until the field read of a struct built in
    // the function had a rule, 2026-11-27, the error was that it had none, at a tie.)
    let e = gradient(struct_literal_field, (0.0,)).unwrap_err();
    match &e {
        GradError::NoRule {
            reason: Some(r), ..
        } => assert!(r.contains("at a tie") && r.contains("<= 0.0"), "{r}"),
        GradError::Indeterminate { at, .. } => {
            assert!(at.statement.contains(">= 0.0"), "{e:?}")
        }
        e => panic!("{e:?}"),
    }
    // Away from the tie the comparison is not read, and the gradient is the one it was.
    assert_eq!(
        gradient(struct_literal_field, (0.5,)).unwrap().scalars(),
        [Some(1.0)]
    );
}

/// The change of `f` from `(x, y)` a step `h` along `d`, over `h`: the one-sided slope along
/// a direction into the region where the branch holds.
fn along(f: impl Fn(f64, f64) -> f64, (x, y): (f64, f64), d: (f64, f64)) -> f64 {
    let h = 1e-7;
    (f(x + h * d.0, y + h * d.1) - f(x, y)) / h
}

#[test]
fn open_regions_keep_the_one_sided_slope() {
    macro_rules! open {
        ($($f:ident at $x:expr, $y:expr, into $d:expr);*) => {$({
            let (name, p, d) = (stringify!($f), ($x, $y), $d);
            let g = gradient($f, p).unwrap().scalars();
            let (gx, gy) = (g[0].unwrap(), g[1].unwrap());
            let truth = along($f, p, d);
            assert!((gx * d.0 + gy * d.1 - truth).abs() < 1e-5, "{name}: {g:?} along {d:?}: {truth}");
            assert_eq!(with_general_sweep(|| gradient($f, p)).unwrap().scalars(), g, "{name}");
            // A derivative program gives the same along the same direction.
            let prog = Program::from_trace(&track($f, p), &[Input::Dynamic, Input::Dynamic]).unwrap();
            let dp = differentiate(&prog, &[0, 1]).unwrap();
            let v = dp.call((p.0, p.1, d.0, d.1)).unwrap().as_f64().unwrap();
            assert!((v - truth).abs() < 1e-5, "{name}: program {v} for {truth}");
        })*};
    }
    open!(
        wedge at 1.0, 1.0, into (-1.0, 0.5);
        two_planes at 1.0, 0.0, into (-1.0, 0.25);
        quadrant at 0.0, 0.0, into (-1.0, -2.0);
        max_with_smaller at 2.0, 1.0, into (1.0, 1.0)
    );
    assert_eq!(
        gradient(wedge, (1.0, 1.0)).unwrap().scalars(),
        [Some(1.0), Some(5.0)]
    );
    // A derivative with respect to some inputs is checked along those alone, the others held:
    // at the wedge's apex the region is a half-line along x (1, the branch's slope) and a
    // point along y (refused), while the gradient, of all inputs together, reads the wedge.
    let prog =
        Program::from_trace(&track(wedge, (1.0, 1.0)), &[Input::Dynamic, Input::Dynamic]).unwrap();
    let along_x = irtrack::diff::reverse(&prog, 0).unwrap();
    assert_eq!(along_x.call((1.0, 1.0, 1.0)).unwrap().as_f64(), Some(1.0));
    assert!(irtrack::diff::reverse(&prog, 1).is_err());
    assert!(differentiate(&prog, &[1]).is_err());
    // A wedge's Hessian: the branch's (`x * y` has the cross term 1).
    let h = hessian(wedge_of_a_vector, (vec![1.0, 1.0],)).unwrap();
    assert_eq!((h[(0, 0)], h[(0, 1)], h[(1, 1)]), (0.0, 1.0, 0.0));
    // An ordering that holds on a neighbourhood.
    assert_eq!(
        gradient(floor_below, (3.5,)).unwrap().scalars(),
        [Some(5.0)]
    );
    assert_eq!(
        gradient(itself_both_ways, (2.0,)).unwrap().scalars(),
        [Some(5.0)]
    );
    let p = Program::from_trace(&track(floor_below, (3.5,)), &[Input::Dynamic]).unwrap();
    assert_eq!(
        differentiate(&p, &[0])
            .unwrap()
            .call((3.5, 1.0))
            .unwrap()
            .as_f64(),
        Some(5.0)
    );
}

// Found by a tester of the above (2026-11-27): fields of a struct or tuple argument were taken
// as constant around the point (a field read's operand, the argument, is no float), so their
// orderings were never read (5 for a jump: no derivative); `atan2` at its cut was no corner.

#[derive(Clone, Debug, irtrack::Snapshot)]
pub struct Pair {
    pub a: f64,
    pub b: f64,
}

#[tracked]
fn capped_fields(p: Pair) -> f64 {
    if p.a <= 1.0 && p.b <= 1.0 && p.a * p.b >= 1.0 {
        5.0 * (p.a + p.b)
    } else {
        p.a + p.b
    }
}

#[tracked]
fn fields_sine(p: Pair) -> f64 {
    if p.a.sin() <= p.a && p.a <= 0.0 {
        5.0 * p.a + p.b
    } else {
        p.a + p.b
    }
}

#[tracked]
fn capped_tuple(t: (f64, f64)) -> f64 {
    if t.0 <= 1.0 && t.1 <= 1.0 && t.0 * t.1 >= 1.0 {
        5.0 * (t.0 + t.1)
    } else {
        t.0 + t.1
    }
}

#[tracked]
fn angle_at_its_cut(x: f64, y: f64) -> f64 {
    // `atan2` jumps from π to -π across `y == 0` where `x < 0`: the branch holds on that
    // line alone, and the function is `x + y` around the point.
    if y.atan2(x) >= std::f64::consts::PI {
        5.0 * y + x
    } else {
        y + x
    }
}

#[test]
fn fields_and_a_cut_are_read() {
    let p = Pair { a: 1.0, b: 1.0 };
    refused(
        "capped_fields",
        gradient(capped_fields, (p.clone(),)).unwrap_err(),
        false,
    );
    refused(
        "capped_fields",
        with_general_sweep(|| gradient(capped_fields, (p,))).unwrap_err(),
        false,
    );
    let p = Pair { a: 0.0, b: 2.0 };
    refused(
        "fields_sine",
        gradient(fields_sine, (p,)).unwrap_err(),
        true,
    );
    refused(
        "capped_tuple",
        gradient(capped_tuple, ((1.0, 1.0),)).unwrap_err(),
        false,
    );
    assert!(gradient(angle_at_its_cut, (-1.0, 0.0)).is_err());
    assert!(jvp(angle_at_its_cut, (-1.0, 0.0), (0.0, 1.0)).is_err());
    program_refused("angle_at_its_cut", angle_at_its_cut, (-1.0, 0.0), 2);
    // Off the cut: `x + y`'s slopes.
    assert_eq!(
        gradient(angle_at_its_cut, (-1.0, 0.5)).unwrap().scalars(),
        [Some(1.0), Some(1.0)]
    );
    // Off the tie, the fields' slopes.
    let g = gradient(capped_fields, (Pair { a: 0.5, b: 0.5 },)).unwrap();
    assert_eq!(
        g.wrt[0],
        Some(irtrack::Tangent::Fields(vec![
            ("a".into(), irtrack::Tangent::Scalar(1.0)),
            ("b".into(), irtrack::Tangent::Scalar(1.0)),
        ]))
    );
}

// The same tester's needless refusals: sides constant around the point through `clamp`,
// `min` or `max` (the selected operand is a literal), one value written twice (`x + y` and
// `y + x`), a sum with unequal slopes read as an ordering of its terms, and a ReLU in a loop
// at 0 (every float the loop carried after the first tie was taken for a corner, the
// counter too).

#[tracked]
fn clamped_below(x: f64) -> f64 {
    if x.clamp(0.0, 1.0) >= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn capped_above(x: f64) -> f64 {
    if x.min(1.0) >= 1.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn rectified_below(x: f64) -> f64 {
    if x.max(0.0) <= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[allow(clippy::eq_op)] // One value written two ways is the subject.
#[tracked]
fn sum_both_ways(x: f64, y: f64) -> f64 {
    if x + y <= y + x {
        5.0 * x + y
    } else {
        x
    }
}

#[allow(clippy::eq_op)] // One value written two ways is the subject.
#[tracked]
fn product_both_ways(x: f64, y: f64) -> f64 {
    if x * y >= y * x {
        5.0 * x + y
    } else {
        x
    }
}

#[tracked]
fn unequal_slopes(x: f64, y: f64) -> f64 {
    // A wedge at the origin: `d = (-3, 2)` keeps both.
    if x + 2.0 * y >= 0.0 && x + y <= 0.0 {
        5.0 * x + y
    } else {
        x
    }
}

#[tracked]
fn relu_in_a_loop(b: Vec<f64>) -> f64 {
    let mut out = 0.0;
    let mut j = 0;
    while j < b.len() {
        let a = b[j];
        let r = if a > 0.0 { a } else { 0.0 };
        out += (j as f64 + 1.0) * r;
        j += 1;
    }
    out
}

#[test]
fn sides_constant_or_one_value_are_not_refused() {
    macro_rules! five_around {
        ($($f:ident at $x:expr),*) => {$({
            let (name, x) = (stringify!($f), $x);
            let truth = ($f(x + 1e-6) - $f(x - 1e-6)) / 2e-6;
            let g = gradient($f, (x,)).unwrap().scalars()[0].unwrap();
            assert!((g - truth).abs() < 1e-6 && g == 5.0, "{name}: {g} for {truth}");
        })*};
    }
    five_around!(clamped_below at -0.5, capped_above at 2.0, rectified_below at -1.0);
    for g in [
        gradient(sum_both_ways, (1.0, 2.0)),
        gradient(product_both_ways, (1.0, 2.0)),
    ] {
        assert_eq!(g.unwrap().scalars(), [Some(5.0), Some(1.0)]);
    }
    let g = gradient(unequal_slopes, (0.0, 0.0)).unwrap().scalars();
    let (gx, gy) = (g[0].unwrap(), g[1].unwrap());
    let truth = along(unequal_slopes, (0.0, 0.0), (-3.0, 2.0));
    assert!(
        (gx * -3.0 + gy * 2.0 - truth).abs() < 1e-5,
        "{g:?} for {truth}"
    );
}

#[test]
fn relu_units_tied_at_zero_keep_the_one_sided_slope() {
    // The quadrant `b <= 0`: slope 0 for every unit; off the ties, `j + 1` where `b[j] > 0`.
    let g = gradient(relu_in_a_loop, (vec![0.0, 0.0],)).unwrap();
    assert_eq!(g.wrt[0], Some(irtrack::Tangent::Vector(vec![0.0, 0.0])));
    let b: Vec<f64> = (0..200)
        .map(|k| if k % 3 == 0 { 0.5 } else { 0.0 })
        .collect();
    let g = gradient(relu_in_a_loop, (b.clone(),)).unwrap();
    let want: Vec<f64> = (0..200)
        .map(|k| if k % 3 == 0 { k as f64 + 1.0 } else { 0.0 })
        .collect();
    assert_eq!(g.wrt[0], Some(irtrack::Tangent::Vector(want)));
}

// A second tester's needless refusals (2026-11-27): a smooth term at a stationary point (`y *
// y` at 0) was a corner that made every later value one, so a half-plane was refused; an
// equality of orderings (`partial_cmp(..) == Some(Less)`) was read as an equality of floats;
// one value less itself (`v[i] - v[j]` where `i == j`) as moving.

#[tracked]
fn paraboloid_side(x: f64, y: f64) -> f64 {
    // `x >= -1 - y²` holds on the half-plane `x >= -1` around (-1, 0).
    if x + y * y >= -1.0 {
        5.0 * x + 2.0 * y
    } else {
        x + y
    }
}

#[tracked]
fn unit_disc_boundary(a: f64, b: f64) -> f64 {
    if a * a + b * b <= 1.0 {
        3.0 * a + b
    } else {
        a - b
    }
}

#[tracked]
fn relu_unit(w: f64, x: f64, b: f64) -> f64 {
    let z = w * x + b;
    if z > 0.0 {
        z
    } else {
        0.0
    }
}

#[tracked]
fn ordered_less(a: f64, b: f64) -> f64 {
    if a.partial_cmp(&b) == Some(std::cmp::Ordering::Less) {
        5.0 * a
    } else {
        a + b
    }
}

#[allow(clippy::needless_range_loop)] // Indexing records each element read.
#[tracked]
fn pairwise(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        for j in 0..v.len() {
            let d = v[i] - v[j];
            if d > 0.0 {
                s += d * d;
            }
        }
    }
    s
}

#[test]
fn smooth_terms_orderings_and_differences_of_one_value_are_read() {
    assert_eq!(
        gradient(paraboloid_side, (-1.0, 0.0)).unwrap().scalars(),
        [Some(5.0), Some(2.0)]
    );
    // On the circle at (1, 0): the disc's side, one-sided (inwards along -a).
    let g = gradient(unit_disc_boundary, (1.0, 0.0)).unwrap().scalars();
    assert_eq!(g, [Some(3.0), Some(1.0)]);
    let truth = along(unit_disc_boundary, (1.0, 0.0), (-1.0, 0.25));
    // Along (-1, 0.25): 3 · -1 + 1 · 0.25.
    assert!((-3.0 + 0.25 - truth).abs() < 1e-5, "{truth}");
    // A ReLU unit at w = x = b = 0: `z <= 0` to first order along `b` alone: the half-space
    // `b <= 0`, where the unit is 0.
    assert_eq!(
        gradient(relu_unit, (0.0, 0.0, 0.0)).unwrap().scalars(),
        [Some(0.0), Some(0.0), Some(0.0)]
    );
    assert_eq!(
        gradient(ordered_less, (1.0, 2.0)).unwrap().scalars(),
        [Some(5.0), Some(0.0)]
    );
    // Σ over pairs with v[i] > v[j] of (v[i] - v[j])²: (v1 - v0)² + (v2 - v0)² + (v2 - v1)²
    // here, whose gradient is [-5, -2, 7]; checked by differences too.
    let v = vec![1.0, 1.5, 3.0];
    let g = gradient(pairwise, (v.clone(),)).unwrap();
    assert_eq!(
        g.wrt[0],
        Some(irtrack::Tangent::Vector(vec![-5.0, -2.0, 7.0]))
    );
    for (k, want) in [-5.0, -2.0, 7.0].into_iter().enumerate() {
        let (mut up, mut down) = (v.clone(), v.clone());
        up[k] += 1e-6;
        down[k] -= 1e-6;
        let fd = (pairwise(up) - pairwise(down)) / 2e-6;
        assert!((fd - want).abs() < 1e-5, "{k}: {fd}");
    }
}

#[allow(clippy::needless_range_loop)] // Indexing records each element read.
#[tracked]
fn relu_layer(w: Vec<f64>, b: Vec<f64>, v: Vec<f64>, x: Vec<f64>) -> f64 {
    let n = x.len();
    let mut out = 0.0;
    for j in 0..b.len() {
        let mut a = b[j];
        for i in 0..n {
            a += w[j * n + i] * x[i];
        }
        let r = if a > 0.0 { a } else { 0.0 };
        out += v[j] * r;
    }
    out
}

/// What reading ties costs, printed (no time limit): a ReLU layer whose units all sit at 0
/// (zero weights and biases) against the same layer off its ties. Run with `cargo test
/// --release --test tie_directions -- --ignored --nocapture`; `docs/performance.md` quotes it.
#[test]
#[ignore = "a measurement: run it by name, in a release build"]
fn what_ties_cost() {
    use std::time::Instant;
    for (h, n) in [(64, 16), (256, 16), (1024, 4)] {
        let x: Vec<f64> = (0..n).map(|i| 0.1 + i as f64 * 0.01).collect();
        let w = vec![0.0; h * n];
        let v: Vec<f64> = (0..h).map(|k| 1.0 + k as f64 * 0.1).collect();
        let off: Vec<f64> = (0..h).map(|k| 0.05 + k as f64 * 1e-3).collect();
        let mut times = Vec::new();
        for b in [off, vec![0.0; h]] {
            let mut best = f64::INFINITY;
            for _ in 0..3 {
                let t = Instant::now();
                let g = gradient(relu_layer, (w.clone(), b.clone(), v.clone(), x.clone()));
                best = best.min(t.elapsed().as_secs_f64());
                assert!(g.is_ok());
            }
            times.push(best);
        }
        println!(
            "{h} units × {n} inputs: off the ties {:.2} ms, every unit at 0 {:.2} ms ({:.0}×)",
            times[0] * 1e3,
            times[1] * 1e3,
            times[1] / times[0]
        );
    }
}

// A third tester's wrong numbers (2026-11-27): ties the readings of floats did not see,
// because the sides were integers made from the float where it jumps, or the float's bits, or
// a total order that tells -0.0 from 0.0. Each gave 5 where the function is `x` around the
// point (or jumps there).

#[tracked]
fn cast_at_an_integer(x: f64) -> f64 {
    if (x as i64) >= 1 && x <= 1.0 {
        5.0 * x - 4.0
    } else {
        x
    }
}

#[tracked]
fn bin_at_its_edge(x: f64) -> f64 {
    let bin = (x * 4.0).floor() as usize;
    if bin >= 2 && x <= 0.5 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn bits_ordered(x: f64) -> f64 {
    if x.to_bits() >= 1.0f64.to_bits() && x <= 1.0 {
        5.0 * x - 4.0
    } else {
        x
    }
}

#[tracked]
fn total_order_of_zeros(x: f64) -> f64 {
    if x.total_cmp(&0.0) == std::cmp::Ordering::Less && x >= 0.0 {
        5.0 * x
    } else {
        x
    }
}

#[test]
fn ties_of_integers_made_from_floats_and_of_signed_zeros_are_refused() {
    for (name, e) in [
        ("cast", gradient(cast_at_an_integer, (1.0,)).unwrap_err()),
        ("bin", gradient(bin_at_its_edge, (0.5,)).unwrap_err()),
        ("bits", gradient(bits_ordered, (1.0,)).unwrap_err()),
        (
            "total_cmp",
            gradient(total_order_of_zeros, (-0.0,)).unwrap_err(),
        ),
    ] {
        refused(name, e, false);
    }
    assert!(jvp(cast_at_an_integer, (1.0,), (1.0,)).is_err());
    program_refused("cast", cast_at_an_integer, (1.0,), 1);
    program_refused("bin", bin_at_its_edge, (0.5,), 1);
    // Off the jumps: the slope of the branch taken.
    assert_eq!(
        gradient(cast_at_an_integer, (0.5,)).unwrap().scalars(),
        [Some(1.0)]
    );
    assert_eq!(
        gradient(bin_at_its_edge, (0.4,)).unwrap().scalars(),
        [Some(1.0)]
    );
    assert_eq!(
        gradient(cast_at_an_integer, (1.5,)).unwrap().scalars(),
        [Some(1.0)]
    );
}

// A fourth tester's wrong numbers (2026-11-27): `max` and `min` at a tie each take their
// first operand, `abs` at 0 the slope 1 — a side each; combined, the sides could be of regions
// that meet at the point alone, and the gradient was that of no branch: `x.max(y) + x.min(y)`
// (which is `x + y`) gave [2, 0] at (1, 1). Each such choice is now an ordering at a tie for
// the reading by slopes: one alone keeps its one-sided slope (ReLU as `x.max(0.0)` at 0).

#[tracked]
fn max_plus_min(x: f64, y: f64) -> f64 {
    x.max(y) + x.min(y)
}

#[tracked]
fn max_times_min(x: f64, y: f64) -> f64 {
    x.max(y) * x.min(y)
}

#[tracked]
fn max_less_min(x: f64, y: f64) -> f64 {
    x.max(y) - x.min(y)
}

#[tracked]
fn sorted_three(a: f64, b: f64) -> f64 {
    let c = 0.5;
    let lo = a.min(b).min(c);
    let hi = a.max(b).max(c);
    let mid = a + b + c - lo - hi;
    lo + 2.0 * mid + 3.0 * hi
}

#[allow(clippy::needless_range_loop)] // Indexing records each element read.
#[tracked]
fn running_extremes(v: Vec<f64>) -> f64 {
    let mut hi = f64::NEG_INFINITY;
    let mut lo = f64::INFINITY;
    for k in 0..v.len() {
        hi = hi.max(v[k]);
        lo = lo.min(v[k]);
    }
    hi + lo
}

#[tracked]
fn abs_and_min(x: f64) -> f64 {
    // |x| + min(x, 0) is x for x >= 0 and 0 below: one-sided slopes 1 and 0, not 2.
    x.abs() + x.min(0.0)
}

#[tracked]
fn relu_by_max(x: f64) -> f64 {
    x.max(0.0)
}

#[tracked]
fn max_of_a_value_and_itself(x: f64) -> f64 {
    x.max(x) * 3.0
}

#[test]
fn kinks_that_took_incompatible_sides_are_refused() {
    for (name, r) in [
        ("max + min", gradient(max_plus_min, (1.0, 1.0))),
        ("max * min", gradient(max_times_min, (2.0, 2.0))),
        ("max - min", gradient(max_less_min, (1.0, 1.0))),
        ("sorted", gradient(sorted_three, (0.5, 0.5))),
    ] {
        refused(name, r.unwrap_err(), false);
    }
    refused(
        "max + min, general sweep",
        with_general_sweep(|| gradient(max_plus_min, (1.0, 1.0))).unwrap_err(),
        false,
    );
    refused(
        "running",
        gradient(running_extremes, (vec![1.0, 1.0, 1.0],)).unwrap_err(),
        false,
    );
    refused(
        "abs and min",
        gradient(abs_and_min, (0.0,)).unwrap_err(),
        false,
    );
    assert!(jvp(max_times_min, (2.0, 2.0), (1.0, 0.0)).is_err());
    assert!(hessian(max_times_min, (2.0, 2.0)).is_err());
    program_refused("max * min", max_times_min, (2.0, 2.0), 2);
    // Off the ties, the slopes of `x + y` and `x y`.
    assert_eq!(
        gradient(max_plus_min, (1.0, 2.0)).unwrap().scalars(),
        [Some(1.0), Some(1.0)]
    );
    assert_eq!(
        gradient(max_times_min, (3.0, 2.0)).unwrap().scalars(),
        [Some(2.0), Some(3.0)]
    );
    let g = gradient(running_extremes, (vec![1.0, 3.0, 2.0],)).unwrap();
    assert_eq!(
        g.wrt[0],
        Some(irtrack::Tangent::Vector(vec![1.0, 1.0, 0.0]))
    );
}

#[test]
fn one_kink_at_its_corner_keeps_its_side() {
    // ReLU as `max` at 0: the side `x >= 0`, slope 1, as before; `|x|` at 0, slope 1.
    assert_eq!(
        gradient(relu_by_max, (0.0,)).unwrap().scalars(),
        [Some(1.0)]
    );
    assert_eq!(
        gradient(max_of_a_value_and_itself, (2.0,))
            .unwrap()
            .scalars(),
        [Some(3.0)]
    );
    let p = Program::from_trace(&track(relu_by_max, (0.0,)), &[Input::Dynamic]).unwrap();
    assert_eq!(
        differentiate(&p, &[0])
            .unwrap()
            .call((0.0, 1.0))
            .unwrap()
            .as_f64(),
        Some(1.0)
    );
}

// A last audit (2026-11-27): `clamp` at a bound takes a side too (the slope goes to `x`, as
// if inside), and a path call (`f64::max(x, y)`) is the method; each gave the slope of no
// branch combined with another kink (2 for 1).

#[tracked]
fn clamp_plus_min(x: f64) -> f64 {
    x.clamp(0.0, 1.0) + x.min(0.0)
}

#[tracked]
fn clamp_at_its_top_plus_max(x: f64) -> f64 {
    x.clamp(0.0, 1.0) + x.max(1.0)
}

#[tracked]
fn max_plus_min_by_path(x: f64, y: f64) -> f64 {
    f64::max(x, y) + f64::min(x, y)
}

#[tracked]
fn clamp_alone(x: f64) -> f64 {
    3.0 * x.clamp(0.0, 1.0)
}

#[test]
fn clamps_and_path_calls_take_sides_too() {
    refused(
        "clamp + min",
        gradient(clamp_plus_min, (0.0,)).unwrap_err(),
        false,
    );
    refused(
        "clamp + max",
        gradient(clamp_at_its_top_plus_max, (1.0,)).unwrap_err(),
        false,
    );
    refused(
        "path max + min",
        gradient(max_plus_min_by_path, (1.0, 1.0)).unwrap_err(),
        false,
    );
    refused(
        "path max + min, general sweep",
        with_general_sweep(|| gradient(max_plus_min_by_path, (1.0, 1.0))).unwrap_err(),
        false,
    );
    program_refused("clamp + min", clamp_plus_min, (0.0,), 1);
    // One clamp at its bound keeps its side (inside): 3.
    assert_eq!(
        gradient(clamp_alone, (0.0,)).unwrap().scalars(),
        [Some(3.0)]
    );
    assert_eq!(
        gradient(max_plus_min_by_path, (1.0, 2.0))
            .unwrap()
            .scalars(),
        [Some(1.0), Some(1.0)]
    );
}

// A derivative program is built at one point and called at others, on the path it recorded.
// Called where one of the function's orderings or kinks is at its tie, it took the sides it
// had: `x.max(y) + x.min(y)` built at (2, 1) gave [2, 0] at (1, 1) (a fifth tester,
// 2026-11-27), and a path that holds at a point alone there gave the branch's slope (`(x - 1)
// x² >= 0` holds for x ≥ 1 and at 0 alone: 5 for 0). At such a call the program runs the
// building check again on the function's values there (`program::ties`): a number where a
// derivative built there would give one, `ReplayError::NoDerivative` where it would refuse.

#[tracked]
fn cubic_holds_at_zero_alone(x: f64) -> f64 {
    if (x - 1.0) * x * x >= 0.0 {
        5.0 * x
    } else {
        0.0
    }
}

fn no_derivative(name: &str, got: Result<irtrack::Value, irtrack::program::ReplayError>) {
    match got {
        Err(irtrack::program::ReplayError::NoDerivative { at, reason }) => {
            assert!(!reason.is_empty() && at.function.len() > 1, "{name}");
        }
        other => panic!("{name}: expected NoDerivative, got {other:?}"),
    }
}

#[test]
fn derivative_programs_called_at_a_tie_check_their_path_there() {
    use irtrack::diff::reverse;
    let both = [Input::Dynamic, Input::Dynamic];
    // Sides of regions that meet at the tie alone, built off the tie.
    macro_rules! apart {
        ($($f:ident),*) => {$({
            let name = stringify!($f);
            let p = Program::from_trace(&track($f, (2.0, 1.0)), &both).unwrap();
            let d = differentiate(&p, &[0, 1]).unwrap();
            no_derivative(name, d.call((1.0, 1.0, 1.0, 0.0)));
            no_derivative(name, d.call((-0.5, -0.5, 0.0, 1.0)));
            no_derivative(name, reverse(&p, 0).unwrap().call((1.0, 1.0, 1.0)));
            let d2 = differentiate(&d, &[0, 1]).unwrap();
            no_derivative(name, d2.call((1.0, 1.0, 1.0, 0.0, 0.0, 1.0)));
            // Built at the tie, the same refusal; gradients there too.
            let at = Program::from_trace(&track($f, (1.0, 1.0)), &both).unwrap();
            assert!(differentiate(&at, &[0, 1]).is_err(), "{name}");
            assert!(gradient($f, (1.0, 1.0)).is_err(), "{name}");
            // Off the tie, on the recorded side, the slopes by differences.
            let (x, y) = (3.0, 0.5);
            for e in [(1.0, 0.0), (0.0, 1.0)] {
                let got = d.call((x, y, e.0, e.1)).unwrap().as_f64().unwrap();
                let want = along($f, (x, y), e);
                assert!((got - want).abs() < 1e-6, "{name} along {e:?}: {got} for {want}");
            }
        })*};
    }
    apart!(max_plus_min, max_times_min, max_less_min);
    // A path that holds at the tie alone.
    let p =
        Program::from_trace(&track(cubic_holds_at_zero_alone, (2.0,)), &[Input::Dynamic]).unwrap();
    let d = differentiate(&p, &[0]).unwrap();
    assert_eq!(d.call((3.0, 1.0)).unwrap().as_f64(), Some(5.0));
    no_derivative("isolated", d.call((0.0, 1.0)));
    no_derivative("isolated", reverse(&p, 0).unwrap().call((0.0, 1.0)));
    // The guard of the other path: not a tie.
    assert!(matches!(
        d.call((0.5, 1.0)),
        Err(irtrack::program::ReplayError::Guard { .. })
    ));
    // One kink alone at its corner keeps its side, as a derivative built there and the
    // gradient do: ReLU built at 1 and called at 0.
    let p = Program::from_trace(&track(relu_by_max, (1.0,)), &[Input::Dynamic]).unwrap();
    let d = differentiate(&p, &[0]).unwrap();
    assert_eq!(d.call((0.0, 1.0)).unwrap().as_f64(), Some(1.0));
    assert_eq!(
        gradient(relu_by_max, (0.0,)).unwrap().scalars(),
        [Some(1.0)]
    );
    // Three tied values sorted by `min` and `max`, built apart.
    let p = Program::from_trace(&track(sorted_three, (0.1, 0.9)), &both).unwrap();
    let d = differentiate(&p, &[0, 1]).unwrap();
    no_derivative("sorted", d.call((0.5, 0.5, 1.0, 0.0)));
    assert!(d.call((0.2, 0.8, 1.0, 0.0)).unwrap().as_f64().is_some());
}
