//! Where rounding made an operation lose its slope: a number the result no longer depends on.
//! The gradient's sweep (`grad/sweep.rs`, `grad/rules.rs`, `grad/fast.rs`) asks this of a
//! trace's nodes and derivative programs (`program/limit.rs`) of a program's operations, so
//! both refuse the same points.

use super::op::{BinOp, Builtin};

/// Whether an `f64 as f32` cast of `x` that gave `y` flushed a nonzero number to zero (or
/// into the subnormals, where its slope is no longer 1) or overflowed a finite one to ∞.
pub(crate) fn narrowing_lost(x: f64, y: f64) -> bool {
    let flushed = x != 0.0 && x.is_finite() && (y as f32).abs() < f32::MIN_POSITIVE;
    let overflowed = x.is_finite() && y.is_infinite();
    flushed || overflowed
}

/// Whether `op` on scalar operands `a`, `b` with result `y` is a sum or difference that gave
/// one operand back bit for bit while the other, a nonzero finite number for which `varies`
/// (by operand position) holds, was lost in rounding.
pub(crate) fn sum_absorbed(
    op: Option<Builtin>,
    [a, b]: [f64; 2],
    y: f64,
    varies: impl Fn(usize) -> bool,
) -> bool {
    let sum = matches!(
        op,
        Some(Builtin::Binary(BinOp::Add | BinOp::Sub) | Builtin::Assign(BinOp::Add | BinOp::Sub))
    );
    let lost = |kept: f64, other: f64, k: usize| {
        kept.to_bits() == y.to_bits() && other != 0.0 && other.is_finite() && varies(k)
    };
    sum && (lost(a, b, 1) || lost(b, a, 0))
}

/// The next float above (`up`) or below `x`, of `x`'s own type (`f32` where `single`): one ulp
/// away, through ±0 to the smallest subnormal of the other sign.
pub(crate) fn next_float(x: f64, up: bool, single: bool) -> f64 {
    fn step(bits: u64, zero: bool, positive: bool, up: bool, least_negative: u64) -> u64 {
        match (zero, up) {
            (true, true) => 1,
            (true, false) => least_negative,
            _ if positive == up => bits + 1,
            _ => bits - 1,
        }
    }
    if single {
        let y = x as f32;
        let bits = step(y.to_bits().into(), y == 0.0, y > 0.0, up, 0x8000_0001);
        f32::from_bits(bits as u32) as f64
    } else {
        f64::from_bits(step(
            x.to_bits(),
            x == 0.0,
            x > 0.0,
            up,
            0x8000_0000_0000_0001,
        ))
    }
}
