//! Operations constant between jumps (`floor`, `ceil`, `trunc`, `round`, `signum`, `copysign`'s
//! sign, the sign queries, casts to integers) have the slope 0, and at a jump the value of one
//! side. What is computed from that value holds on that side only, as a branch taken at a tie
//! does: `p.floor() > -0.5` where `p = x³ - x² = 0` at 0 holds at 0 alone (`p` is negative on
//! both sides), and the gradient, derivative programs built there or elsewhere, `jvp` and
//! `hessian` gave the branch's slope, 5 where the function is 0 around (a tester, 2026-11-27).
//! Each jump at its jump point is now an ordering at a tie of its operand against its value
//! (`core::ties::jump_side`), read with every other by the slopes of its sides: a path that
//! holds on one side keeps its one-sided slope, one that holds at the point alone or whose
//! sides meet only there is refused. Truth: closed forms and one-sided differences.

use irtrack::diff::{differentiate, hessian, jvp, reverse};
use irtrack::grad::with_general_sweep;
use irtrack::program::{Input, Program};
use irtrack::{gradient, track, tracked, Callable};

fn stationary_cubic(x: f64) -> f64 {
    x * x * x - x * x
}

#[tracked]
fn floor_holds_at_zero_alone(x: f64) -> f64 {
    let p = x * x * x - x * x;
    if p.floor() > -0.5 {
        5.0 * x
    } else {
        0.0
    }
}

#[tracked]
fn sign_bit_holds_at_zero_alone(x: f64) -> f64 {
    let p = x * x * x - x * x;
    if !p.is_sign_negative() {
        5.0 * x
    } else {
        0.0
    }
}

#[tracked]
fn signum_holds_at_zero_alone(x: f64) -> f64 {
    let p = x * x * x - x * x;
    if p.signum() > 0.0 {
        3.0 * x
    } else {
        x.sin()
    }
}

#[tracked]
fn cast_holds_at_zero_alone(x: f64) -> f64 {
    let p = x * x * x - x * x - 1.0;
    if (p.floor() as i64) > -2 {
        5.0 * x
    } else {
        0.0
    }
}

#[tracked]
fn copysign_holds_at_zero_alone(x: f64) -> f64 {
    let p = x * x * x - x * x;
    if 1.0f64.copysign(p) > 0.0 {
        5.0 * x
    } else {
        0.0
    }
}

#[tracked]
fn floor_against_itself(x: f64) -> f64 {
    x.floor().max(x)
}

#[tracked]
fn ceil_against_itself(x: f64) -> f64 {
    x.ceil().min(x)
}

#[tracked]
fn max_plus_min_by_signum(x: f64, y: f64) -> f64 {
    let mx = (x + y + (x - y) * (x - y).signum()) / 2.0;
    let mn = (x + y - (y - x) * (y - x).signum()) / 2.0;
    mx + mn
}

#[tracked]
fn max_times_min_by_copysign(x: f64, y: f64) -> f64 {
    let mx = (x + y + (x - y).abs().copysign(1.0)) / 2.0;
    let d = y - x;
    let mn = (x + y - d * 1.0f64.copysign(d)) / 2.0;
    let mx2 = (x + y + (x - y) * 1.0f64.copysign(x - y)) / 2.0;
    mx2 * mn + 0.0 * mx
}

#[tracked]
fn floor_gap_times_ceil_gap(x: f64) -> f64 {
    (x - x.floor()) * (x.ceil() - x)
}

#[tracked]
fn two_roundings(x: f64) -> f64 {
    (x - x.round()) * (x - x.round_ties_even())
}

#[tracked]
fn truncated_gaps(x: f64) -> f64 {
    (x - (x as i64) as f64) * (x.ceil() as i64 as f64 - x)
}

fn refused_everywhere<A>(name: &str, f: impl Callable<A> + Copy, args: A, n: usize)
where
    A: irtrack::program::Args + Clone,
{
    assert!(gradient(f, args.clone()).is_err(), "{name}: gradient");
    assert!(
        with_general_sweep(|| gradient(f, args.clone())).is_err(),
        "{name}: general sweep"
    );
    let inputs = vec![Input::Dynamic; n];
    let wrt: Vec<usize> = (0..n).collect();
    let p = Program::from_trace(&track(f, args.clone()), &inputs).unwrap();
    assert!(
        differentiate(&p, &wrt).is_err(),
        "{name}: built at the point"
    );
    assert!(
        reverse(&p, 0).is_err(),
        "{name}: reverse built at the point"
    );
}

#[test]
fn a_path_through_a_jump_that_holds_at_the_point_alone_is_refused() {
    macro_rules! alone {
        ($($f:ident),*) => {$({
            let name = stringify!($f);
            refused_everywhere(name, $f, (0.0,), 1);
            assert!(jvp($f, (0.0,), (1.0,)).is_err(), "{name}: jvp");
            assert!(hessian($f, (0.0,)).is_err(), "{name}: hessian");
            // Built where the path holds on a neighbourhood (x = 2), called at 0.
            let p = Program::from_trace(&track($f, (2.0,)), &[Input::Dynamic]).unwrap();
            let d = differentiate(&p, &[0]).unwrap();
            assert!(d.call((0.0, 1.0)).is_err(), "{name}: called at 0");
            assert!(reverse(&p, 0).unwrap().call((0.0, 1.0)).is_err(), "{name}: reverse at 0");
            // Off the point the slope is the branch's.
            let g = gradient($f, (2.0,)).unwrap().scalars()[0].unwrap();
            let h = 1e-6;
            let want = ($f(2.0 + h) - $f(2.0 - h)) / (2.0 * h);
            assert!((g - want).abs() < 1e-6, "{name}: {g} for {want}");
        })*};
    }
    alone!(
        floor_holds_at_zero_alone,
        sign_bit_holds_at_zero_alone,
        signum_holds_at_zero_alone,
        cast_holds_at_zero_alone,
        copysign_holds_at_zero_alone
    );
    assert_eq!(stationary_cubic(0.0), 0.0);
}

#[test]
fn sides_of_jumps_that_meet_at_the_point_alone_are_refused() {
    // `x.floor().max(x)` is `x`; at 3 `max` took `floor` (x <= 3) where `floor` holds x >= 3.
    for (name, f) in [
        (
            "floor_against_itself",
            floor_against_itself as fn(f64) -> f64,
        ),
        ("ceil_against_itself", ceil_against_itself),
    ] {
        assert_eq!(f(3.0), 3.0, "{name}");
    }
    refused_everywhere("floor_against_itself", floor_against_itself, (3.0,), 1);
    refused_everywhere("ceil_against_itself", ceil_against_itself, (3.0,), 1);
    // `(x - ⌊x⌋)(⌈x⌉ - x)` at 3: slopes -1 and 1 on the two sides, 0 was answered.
    refused_everywhere(
        "floor_gap_times_ceil_gap",
        floor_gap_times_ceil_gap,
        (3.0,),
        1,
    );
    refused_everywhere("truncated_gaps", truncated_gaps, (3.0,), 1);
    // `round` and `round_ties_even` at 2.5 take opposite sides: f(2.5) = -0.25, the limits
    // 0.25.
    refused_everywhere("two_roundings", two_roundings, (2.5,), 1);
    // Built off the jump and called there.
    let p =
        Program::from_trace(&track(floor_gap_times_ceil_gap, (2.5,)), &[Input::Dynamic]).unwrap();
    assert!(differentiate(&p, &[0]).unwrap().call((3.0, 1.0)).is_err());
    let p = Program::from_trace(&track(floor_against_itself, (2.5,)), &[Input::Dynamic]).unwrap();
    assert!(differentiate(&p, &[0]).unwrap().call((3.0, 1.0)).is_err());
    // `max` and `min` written with `signum` and `copysign`: at a tie each took `x`.
    refused_everywhere(
        "max_plus_min_by_signum",
        max_plus_min_by_signum,
        (1.0, 1.0),
        2,
    );
    refused_everywhere(
        "max_times_min_by_copysign",
        max_times_min_by_copysign,
        (1.0, 1.0),
        2,
    );
    assert!(hessian(max_times_min_by_copysign, (1.0, 1.0)).is_err());
    let both = [Input::Dynamic, Input::Dynamic];
    let p = Program::from_trace(&track(max_plus_min_by_signum, (2.0, 1.0)), &both).unwrap();
    let d = differentiate(&p, &[0, 1]).unwrap();
    assert!(d.call((1.0, 1.0, 1.0, 0.0)).is_err());
    assert_eq!(d.call((3.0, 1.0, 1.0, 0.0)).unwrap().as_f64(), Some(1.0));
    assert_eq!(d.call((3.0, 1.0, 0.0, 1.0)).unwrap().as_f64(), Some(1.0));
}

#[tracked]
fn fractional_part(x: f64) -> f64 {
    x - x.floor()
}

#[tracked]
fn floor_times_x(x: f64) -> f64 {
    x.floor() * x
}

#[tracked]
fn bin_weight(x: f64) -> f64 {
    let bin = (x * 4.0).floor() as usize;
    let w = [1.0, 2.0, 3.0, 4.0, 5.0][bin.min(4)];
    w * x
}

#[tracked]
fn cast_times_x(x: f64) -> f64 {
    (x as i64) as f64 * x
}

#[tracked]
fn sign_times(x: f64) -> f64 {
    x.signum() * x * x
}

#[test]
fn one_jump_alone_keeps_the_side_its_value_is_of() {
    // At a jump the value is that of one side, and the slope that side's (as for a branch
    // taken at a tie): from the right for `floor` at 3.
    macro_rules! one {
        ($f:ident at $x:expr) => {
            gradient($f, ($x,)).unwrap().scalars()[0].unwrap()
        };
    }
    assert_eq!(one!(fractional_part at 3.0), 1.0);
    assert_eq!(one!(floor_times_x at 3.0), 3.0);
    // A bin's edge (x·4 = 2 at 0.5): the bin above, weight 3.
    assert_eq!(one!(bin_weight at 0.5), 3.0);
    // `signum` at +0: the side x ≥ 0, where x·|x| has the slope 0.
    assert_eq!(one!(sign_times at 0.0), 0.0);
    assert_eq!(one!(cast_times_x at 3.0), 3.0);
    assert_eq!(one!(cast_times_x at -3.0), -3.0);
    // Derivative programs built apart and called at the jump agree.
    macro_rules! apart {
        ($($f:ident at $at:expr, built at $build:expr);*) => {$({
            let p = Program::from_trace(&track($f, ($build,)), &[Input::Dynamic]).unwrap();
            let got = differentiate(&p, &[0]).unwrap().call(($at, 1.0)).unwrap();
            assert_eq!(got.as_f64(), Some(one!($f at $at)), "{}", stringify!($f));
        })*};
    }
    apart!(
        fractional_part at 3.0, built at 2.5;
        floor_times_x at 3.0, built at 3.5;
        cast_times_x at 3.0, built at 3.5
    );
}

#[test]
fn emitted_code_refuses_at_every_jump_its_program_watches() {
    // Emitted code holds no building check: it computes the recorded function's watched
    // operations again and returns `Err` at a tie of any (`diff/emit.rs`, `tie_prelude`).
    let p =
        Program::from_trace(&track(floor_holds_at_zero_alone, (2.0,)), &[Input::Dynamic]).unwrap();
    let src = irtrack::diff::emit_rust(&differentiate(&p, &[0]).unwrap(), "d").unwrap();
    assert!(src.contains(".fract() == 0.0"), "{src}");
    assert!(src.contains("call the program, which checks"), "{src}");
    // A function with no ordering, kink or jump has none.
    let p =
        Program::from_trace(&track(stationary_cubic_tracked, (2.0,)), &[Input::Dynamic]).unwrap();
    let src = irtrack::diff::emit_rust(&differentiate(&p, &[0]).unwrap(), "d").unwrap();
    assert!(!src.contains("at a tie"), "{src}");
}

#[tracked]
fn stationary_cubic_tracked(x: f64) -> f64 {
    x * x * x - x * x
}

const MINUS_ONE_BITS: u64 = 0xBFF0_0000_0000_0000;

#[tracked]
fn bits_of_minus_one(x: f64) -> f64 {
    let b = x.to_bits();
    if (b >= MINUS_ONE_BITS) & (b <= MINUS_ONE_BITS) | (x >= 1.0) {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn bits_of_one(x: f64) -> f64 {
    let b = x.to_bits();
    if (b >= 0x3FF0_0000_0000_0000) & (b <= 0x3FF0_0000_0000_0000) | (x <= -1.0) {
        5.0 * x
    } else {
        x
    }
}

#[test]
fn orderings_of_a_floats_bits_past_i64_are_ties_too() {
    // The bits of a negative float are past `i64::MAX`: their equality at -1 was not seen as a
    // tie (read through `i64`), and the gradient was 5 where the function jumps (a tester,
    // 2026-11-27); its mirror at +1 was refused.
    assert_eq!((-1.0f64).to_bits(), MINUS_ONE_BITS);
    assert!(gradient(bits_of_minus_one, (-1.0,)).is_err());
    assert!(gradient(bits_of_one, (1.0,)).is_err());
    // Off the point, the slope of `x`.
    assert_eq!(
        gradient(bits_of_minus_one, (-0.5,)).unwrap().scalars(),
        [Some(1.0)]
    );
}

// A second tester's round (2026-11-27): more jumps and corners by a sign — `a % b` where it
// wraps (a side of each operand), `to_bits` at ±0, `atan2` on its cut, `copysign` of ±0 —
// each gave the slope of no side combined with another choice, or a path at a point alone.

#[tracked]
fn wrap_holds_at_zero_alone(x: f64) -> f64 {
    let p = x * x * x - x * x + 1.0;
    if p % 1.0 < 0.5 {
        5.0 * x
    } else {
        0.0
    }
}

#[tracked]
fn sign_bit_by_bits(x: f64) -> f64 {
    let p = x * x * x - x * x;
    if p.to_bits() >> 63 == 0 {
        5.0 * x
    } else {
        0.0
    }
}

#[tracked]
fn cut_holds_at_zero_alone(x: f64) -> f64 {
    let p = x * x * x - x * x;
    if p.atan2(-1.0) > 0.0 {
        5.0 * x
    } else {
        0.0
    }
}

#[tracked]
fn angle_on_the_cut_times_x(x: f64) -> f64 {
    let p = x * x * x - x * x;
    p.atan2(-1.0) * x
}

#[tracked]
fn cut_against_min(x: f64) -> f64 {
    x.atan2(-1.0) * x.min(0.0)
}

#[tracked]
fn wrap_against_min(x: f64) -> f64 {
    let r = x % 1.0;
    r * (1.0 - r) + x.min(3.0)
}

#[tracked]
fn divisor_wrap_against_max(x: f64) -> f64 {
    let r = 3.0 % x;
    0.5 * r * r + r + x.max(1.0)
}

#[tracked]
fn copysign_corner_against_min(x: f64) -> f64 {
    x.copysign(1.0) + x.min(0.0)
}

#[tracked]
fn wrapped(x: f64) -> f64 {
    x % 1.0
}

#[tracked]
fn divisor_wrapped(x: f64) -> f64 {
    3.0 % x
}

#[test]
fn wraps_cuts_and_signs_take_sides_too() {
    macro_rules! refused_at {
        ($($f:ident at $x:expr),*) => {$({
            refused_everywhere(stringify!($f), $f, ($x,), 1);
        })*};
    }
    refused_at!(
        wrap_holds_at_zero_alone at 0.0,
        sign_bit_by_bits at 0.0,
        cut_holds_at_zero_alone at 0.0,
        angle_on_the_cut_times_x at 0.0,
        cut_against_min at 0.0,
        wrap_against_min at 3.0,
        divisor_wrap_against_max at 1.0,
        copysign_corner_against_min at 0.0
    );
    // Built elsewhere and called there.
    let p = Program::from_trace(&track(wrap_against_min, (2.5,)), &[Input::Dynamic]).unwrap();
    assert!(differentiate(&p, &[0]).unwrap().call((3.0, 1.0)).is_err());
    // One wrap alone keeps the side its value is of: `x % 1.0` at 3 from the right (1),
    // `3.0 % x` at 1 from the left (3 - 3x there: -3).
    assert_eq!(gradient(wrapped, (3.0,)).unwrap().scalars(), [Some(1.0)]);
    assert_eq!(
        gradient(divisor_wrapped, (1.0,)).unwrap().scalars(),
        [Some(-3.0)]
    );
    let h = 1e-7;
    assert!(((divisor_wrapped(1.0) - divisor_wrapped(1.0 - h)) / h + 3.0).abs() < 1e-6);
}

// A comparison of a jump's value at a tie (`x.floor() >= 3.0` at 3, `(x as i64) >= 1` at 1, a
// bin at its edge), or `clamp` of one at a bound, holds wherever the jump keeps its side: both
// sides are constant there. These were refused (the point taken for a corner), while the same
// jump compared away from the tie (`(x as i64) > 0` at 1) had its one-sided slope; now both
// have it (a tester's needless refusals, 2026-11-27).

#[tracked]
fn floor_at_its_tie(x: f64) -> f64 {
    if x.floor() >= 3.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn cast_at_its_tie(x: f64) -> f64 {
    if (x as i64) >= 1 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn cast_off_its_tie(x: f64) -> f64 {
    if (x as i64) > 0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn bin_edge(x: f64) -> f64 {
    let b = (x * 4.0).floor();
    if b >= 2.0 {
        3.0 * x
    } else {
        x
    }
}

#[tracked]
fn clamped_floor_and_x(x: f64) -> f64 {
    x.floor().clamp(3.0, 5.0) + x.clamp(3.0, 5.0)
}

#[tracked]
fn stationary_cast_at_its_tie(x: f64) -> f64 {
    let p = x * x * x - x * x + 1.0;
    if (p as i64) >= 1 {
        5.0 * x
    } else {
        x
    }
}

#[test]
fn comparisons_of_a_jumps_value_hold_where_the_jump_keeps_its_side() {
    macro_rules! right_side {
        ($($f:ident at $x:expr => $want:expr),*) => {$({
            let name = stringify!($f);
            let g = gradient($f, ($x,)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(g.scalars(), [Some($want)], "{name}");
            // The slope of the side whose value the function has: from the right here.
            let h = 1e-7;
            let right = ($f($x + h) - $f($x)) / h;
            assert!((right - $want).abs() < 1e-5, "{name}: {right}");
            let general = with_general_sweep(|| gradient($f, ($x,))).unwrap();
            assert_eq!(general.scalars(), [Some($want)], "{name}: general sweep");
            // Derivative programs, built there and built below and called there.
            for build in [$x, $x + 0.25] {
                let p = Program::from_trace(&track($f, (build,)), &[Input::Dynamic]).unwrap();
                let d = differentiate(&p, &[0]).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(d.call(($x, 1.0)).unwrap().as_f64(), Some($want), "{name} from {build}");
            }
        })*};
    }
    right_side!(
        floor_at_its_tie at 3.0 => 5.0,
        cast_at_its_tie at 1.0 => 5.0,
        cast_off_its_tie at 1.0 => 5.0,
        bin_edge at 0.5 => 3.0,
        clamped_floor_and_x at 3.0 => 1.0
    );
    // Where the jump's own side is a point (its operand stationary), refused all the same.
    refused_everywhere(
        "stationary_cast_at_its_tie",
        stationary_cast_at_its_tie,
        (0.0,),
        1,
    );
}

// A third tester's round (2026-11-27): a cast of an integer is no jump. `x.to_bits() as i64`
// moves with every ulp of `x`, but was read as constant where the jumps keep their sides
// (every cast to an integer was taken for a float's): paths at a point alone had the branch's
// slope, `max`/`min` written with signed bits [1.5, 0]. Integers made from a float's bits are
// not constant either where they keep only the exponent (`p.to_bits() >> 52` jumps at powers of
// two). And arithmetic of a jump's value with constants (`x.floor() + 1.0`, `(x as i64) + 1`)
// is constant where the jump keeps its side, in every entry point.

const ONE_AS_I64: i64 = 0x3FF0_0000_0000_0000;

#[allow(clippy::double_comparisons)] // Two orderings, each read at its tie.
#[tracked]
fn signed_bits_at_one(x: f64) -> f64 {
    let b = x.to_bits() as i64;
    if b >= ONE_AS_I64 && b <= ONE_AS_I64 {
        5.0 * x + 1.0
    } else {
        x
    }
}

#[tracked]
fn max_and_min_by_signed_bits(x: f64, y: f64) -> f64 {
    let mx = if (x.to_bits() as i64) >= (y.to_bits() as i64) {
        x
    } else {
        y
    };
    let mn = if (x.to_bits() as i64) <= (y.to_bits() as i64) {
        x
    } else {
        y
    };
    mx + mn * 0.5
}

#[tracked]
fn exponent_at_a_power_of_two(x: f64) -> f64 {
    let p = x * x * x - x * x + 1.0;
    if (p.to_bits() >> 52) >= 1023 {
        5.0 * x + 1.0
    } else {
        x
    }
}

#[tracked]
fn floor_plus_one_at_its_tie(x: f64) -> f64 {
    if x.floor() + 1.0 >= 4.0 {
        5.0 * x
    } else {
        x
    }
}

#[tracked]
fn cast_plus_one_at_its_tie(x: f64) -> f64 {
    if (x as i64) + 1 >= 2 {
        5.0 * x
    } else {
        x
    }
}

#[test]
fn a_cast_of_an_integer_is_no_jump_and_sums_of_jumps_hold() {
    assert!(gradient(signed_bits_at_one, (1.0,)).is_err());
    assert!(with_general_sweep(|| gradient(signed_bits_at_one, (1.0,))).is_err());
    assert!(gradient(max_and_min_by_signed_bits, (1.0, 1.0)).is_err());
    assert!(gradient(exponent_at_a_power_of_two, (0.0,)).is_err());
    // Off the point, the slope of the branch taken.
    assert_eq!(
        gradient(signed_bits_at_one, (1.5,)).unwrap().scalars(),
        [Some(1.0)]
    );
    macro_rules! right_side {
        ($($f:ident at $x:expr => $want:expr),*) => {$({
            let name = stringify!($f);
            assert_eq!(gradient($f, ($x,)).unwrap().scalars(), [Some($want)], "{name}");
            let h = 1e-7;
            assert!((($f($x + h) - $f($x)) / h - $want).abs() < 1e-5, "{name}");
            let j = jvp($f, ($x,), (1.0,)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(j.tangent.as_f64(), Some($want), "{name}: jvp");
            let p = Program::from_trace(&track($f, ($x + 0.25,)), &[Input::Dynamic]).unwrap();
            let d = differentiate(&p, &[0]).unwrap();
            assert_eq!(d.call(($x, 1.0)).unwrap().as_f64(), Some($want), "{name}: program");
        })*};
    }
    right_side!(
        floor_plus_one_at_its_tie at 3.0 => 5.0,
        cast_plus_one_at_its_tie at 1.0 => 5.0
    );
}

// A fourth tester's round (2026-11-27): a count of a float's bits is constant on intervals of
// floats and jumps at their edges, where the bits it drops are all zero; there it holds one
// side, noted like a cast's (`Sweep::note_binade_jump`), for any count that drops enough bits
// to be read as one (it was only for the exponent field). A constant added to the bits before
// they are dropped moves the edges (`(bits + (1 << 51)) >> 52` rounds the exponent): such a
// count is read as the float re-encoded (refused where it decides), not placed by the raw bits.

#[tracked]
fn high_word_at_its_edge(x: f64) -> f64 {
    if (x.to_bits() >> 32) as u32 == 0x3FF8_0000 && x <= 1.5 {
        5.0 * x
    } else {
        7.5
    }
}

#[tracked]
fn mantissa_bit_at_its_edge(x: f64) -> f64 {
    if ((x.to_bits() >> 51) & 1) == 1 && x <= 1.5 {
        5.0 * x
    } else {
        7.5
    }
}

#[tracked]
fn rounded_exponent(x: f64) -> f64 {
    if ((x.to_bits() + (1 << 51)) >> 52) >= 1024 && x <= 1.5 {
        5.0 * x
    } else {
        7.5
    }
}

#[tracked]
fn exponent_below(x: f64) -> f64 {
    if ((x.to_bits() - 1) >> 52) < 1023 && x >= 1.0 {
        5.0 * x
    } else {
        0.0
    }
}

#[tracked]
fn exponent_off_its_edge(x: f64) -> f64 {
    if (x.to_bits() >> 52) >= 1023 {
        5.0 * x
    } else {
        x
    }
}

#[test]
fn counts_of_bits_hold_a_side_at_the_edges_of_their_intervals() {
    for (name, r) in [
        ("high word", gradient(high_word_at_its_edge, (1.5,))),
        ("mantissa bit", gradient(mantissa_bit_at_its_edge, (1.5,))),
        ("rounded exponent", gradient(rounded_exponent, (1.5,))),
        ("exponent below", gradient(exponent_below, (1.0,))),
    ] {
        assert!(r.is_err(), "{name}: {r:?}");
    }
    // Off an edge the count is constant around the point: the branch's slope.
    assert_eq!(
        gradient(exponent_off_its_edge, (1.5,)).unwrap().scalars(),
        [Some(5.0)]
    );
    // At an edge alone, the side it keeps (from above at 2: the exponent is 1024 on [2, 4)).
    assert_eq!(
        gradient(exponent_off_its_edge, (2.0,)).unwrap().scalars(),
        [Some(5.0)]
    );
    assert_eq!(
        gradient(high_word_at_its_edge, (1.25,)).unwrap().scalars(),
        [Some(0.0)]
    );
}
