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
