//! A derivative program called where its recorded path may have no derivative.
//!
//! `differentiate` refuses to build a derivative at a point where the recorded path holds at
//! that point alone, or where sides taken at a tie (`max` and `min` of equal values) belong to
//! regions that meet only there (`diff/pins.rs`). A derivative program built elsewhere runs the
//! same path at every call, so called at such a point it would give the slope of no branch:
//! `x.max(y) + x.min(y)` (which is `x + y`) built at (2, 1) and called at (1, 1) took `x`
//! twice, [2, 0]. So each call looks at the recorded function's own orderings and kinks that
//! move with the differentiated inputs, and only where one of them is at its tie runs the
//! building check again on the function's values at these inputs.
//!
//! The check itself belongs to the derivative layer; a program holds it as a function so that
//! this layer does not import that one.

use super::{OpKind, Program, ReplayError, Src};
use crate::core::op::{Builtin, FloatFn};
use crate::core::ties;
use crate::core::value::Value;
use crate::view::operation::Operation;
use std::sync::Arc;

/// The building check of a derivative program, run on the recorded function's program at a
/// call's inputs (its first ones) with respect to the inputs `wrt`: `Some` where the path
/// has no derivative there.
pub(crate) type Refusal = fn(&Program, &[Value], &[usize]) -> Option<ReplayError>;

/// What a derivative program checks at each call (see the module docs).
#[derive(Clone)]
pub(crate) struct PathCheck {
    /// The recorded function's inputs the derivative is taken with respect to.
    wrt: Arc<[usize]>,
    /// For each operation of the recorded function's program: whether it is an ordering or a
    /// kink whose operands move with those inputs.
    watched: Arc<[bool]>,
    refusal: Refusal,
}

impl std::fmt::Debug for PathCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let watched = self.watched.iter().filter(|w| **w).count();
        write!(f, "PathCheck {{ wrt: {:?}, watched: {watched} }}", self.wrt)
    }
}

/// Whether an operation can take a side at a tie or a corner: a comparison, a kink that
/// chooses an operand or a sign, a jump (`floor`, `signum`, a cast to an integer:
/// `core::ties::jump_sides`), a class query at the edge of a class.
fn can_tie(op: &Operation) -> bool {
    let Operation::Builtin(b) = op else {
        return false;
    };
    match b {
        Builtin::Compare(_) | Builtin::Query(_) => true,
        Builtin::Binary(o) | Builtin::Assign(o) => *o == crate::core::op::BinOp::Rem,
        Builtin::Cast(t) => !t.is_float(),
        Builtin::Method(f) => {
            ties::constant_between_jumps(*f)
                || matches!(
                    f,
                    FloatFn::Max
                        | FloatFn::Min
                        | FloatFn::Hypot
                        | FloatFn::Atan2
                        | FloatFn::Abs
                        | FloatFn::Clamp
                        | FloatFn::Fract
                        | FloatFn::Copysign
                        | FloatFn::RemEuclid
                )
        }
        _ => false,
    }
}

/// Whether `op` is at its tie on these operands: a comparison of equal values, a kink at its
/// corner, a class query at an edge.
fn at_tie(op: &Operation, operands: &[Value], result: &Value) -> bool {
    let Operation::Builtin(b) = op else {
        return false;
    };
    match b {
        Builtin::Compare(_) => match operands {
            [a, b] => same_number(a, b),
            _ => false,
        },
        Builtin::Query(q) => operands
            .first()
            .and_then(Value::as_f64)
            .is_some_and(|x| ties::class_at_edge(*q, x) || ties::at_jump(*b, &[Some(x)])),
        _ => {
            let x: Vec<Option<f64>> = operands.iter().map(Value::as_f64).collect();
            ties::at_kink(*b, &x, result.as_f64()) || ties::at_jump(*b, &x)
        }
    }
}

/// Two scalars that compare equal (`-0.0` and `0.0` included); integers too, since a count can
/// be made from a float where it jumps (`(x * 4.0).floor() as usize`).
fn same_number(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => match (a.as_i128(), b.as_i128()) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

impl Program {
    /// This derivative program with the check of its path at each call, with respect to the
    /// recorded function's inputs `wrt`. A program none of whose orderings or kinks moves with
    /// those inputs keeps none (and pays nothing).
    pub(crate) fn checking_path(mut self, wrt: &[usize], refusal: Refusal) -> Program {
        let Some(primal) = &self.primal else {
            return self;
        };
        let mut varies = vec![false; primal.ops.len()];
        let moves = |s: &Src, varies: &[bool]| match s {
            Src::Input(k) => wrt.contains(k),
            Src::Op(k) => varies[*k],
            Src::Const(_) => false,
        };
        let mut watched = vec![false; primal.ops.len()];
        for (k, op) in primal.ops.iter().enumerate() {
            varies[k] = op.args.iter().any(|a| moves(a, &varies));
            watched[k] =
                varies[k] && !op.derived && matches!(&op.kind, OpKind::Run(o) if can_tie(o));
        }
        if watched.iter().any(|w| *w) {
            self.path_check = Some(PathCheck {
                wrt: wrt.into(),
                watched: watched.into(),
                refusal,
            });
        }
        self
    }

    /// Where this program checks its path at ties at each call: the recorded function's
    /// program and which of its operations are watched (for emitted code, `diff/emit.rs`).
    #[cfg(feature = "emit")]
    pub(crate) fn watched_path(&self) -> Option<(&Program, &[bool])> {
        let check = self.path_check.as_ref()?;
        Some((self.primal.as_deref()?, &check.watched))
    }

    /// Where this derivative program holds a check of its path and, on `args`, one of the
    /// recorded function's watched operations is at its tie: the building check's refusal at
    /// these inputs, if it refuses.
    ///
    /// And where a watched ordering holds by a margin that moving the inputs by 2⁻³⁶ of their
    /// size (2⁻²⁰ for `f32`) closes, to first order: the recorded path may hold within
    /// rounding of these inputs only, as where an iteration converged by comparisons (a
    /// bisection), whose path's slope is no derivative of the function (0 for `cbrt`'s 0.21, a
    /// tester, 2026-11-28). The gradient refuses there (`Indeterminacy::NearTie`, the margin
    /// against its sides' rates); here the recorded function's program runs at the inputs so
    /// moved, both ways, and each ordering's margin moves by half the difference of the two
    /// (a central difference: a side of second order at the point, `d * d` at `d = 0`, does
    /// not move it), or by the one run that reached it. Only margins that are a sliver of what
    /// made their sides ([`SLIVER`]) are read so, and only where there is one are the two runs
    /// made. An exact tie is the building check's (above).
    pub(super) fn path_error(&self, args: &[Value]) -> Option<ReplayError> {
        let (check, primal) = (self.path_check.as_ref()?, self.primal.as_ref()?);
        let args = &args[..primal.inputs.len().min(args.len())];
        let watched_ordering = |k: usize| match &primal.ops[k].kind {
            OpKind::Run(o) if check.watched.get(k).copied().unwrap_or(false) => Some(o),
            _ => None,
        };
        // Each operation's size: the largest magnitude among its value and what made it (a
        // residual `m³ - a` near 0 has the size of `m³`; a differentiated input its own, or 1
        // where it is 0, as the move takes it).
        let size_of_input = |k: usize, v: &Value| match magnitude(v) {
            0.0 if check.wrt.contains(&k) => 1.0,
            m => m,
        };
        let margins_at = |args: &[Value], sized: bool| {
            let mut margins: Vec<Option<f64>> = vec![None; primal.ops.len()];
            let mut sizes = vec![0.0f64; if sized { primal.ops.len() } else { 0 }];
            let mut tied = false;
            let _ = primal.evaluate(args, &mut |k, operands, result| {
                if sized {
                    let made = (primal.ops[k].args.iter().zip(operands)).map(|(s, v)| match s {
                        Src::Op(j) => sizes[*j],
                        Src::Input(i) => size_of_input(*i, v),
                        Src::Const(_) => magnitude(v),
                    });
                    sizes[k] = made.fold(magnitude(result), f64::max);
                }
                if let Some(o) = watched_ordering(k) {
                    tied = tied || at_tie(o, operands, result);
                    margins[k] = margin(o, operands);
                    // Only a sliver of what made the sides can a move of 2⁻³⁶ of the inputs
                    // close (at rates up to 2¹⁶): the others need not be moved at all.
                    if sized && margins[k].is_some_and(|m| m.abs() > sizes[k] / SLIVER) {
                        margins[k] = None;
                    }
                }
            });
            (margins, tied)
        };
        let (margins, tied) = margins_at(args, true);
        if tied {
            if let Some(e) = (check.refusal)(primal, args, &check.wrt) {
                return Some(e);
            }
        }
        // The two runs at moved inputs only where a margin is a sliver: a program whose
        // orderings hold by margins (a piecewise function off its breakpoints) pays one run.
        if margins.iter().all(Option::is_none) {
            return None;
        }
        let (up, _) = margins_at(&moved(args, &check.wrt, 1.0)?, false);
        let (down, _) = margins_at(&moved(args, &check.wrt, -1.0)?, false);
        for (k, &m) in margins.iter().enumerate() {
            let Some(m) = m.filter(|m| *m != 0.0) else {
                continue;
            };
            let moves = match (up[k], down[k]) {
                // Within rounding of the moved inputs (2⁻⁵² of them against a move of 2⁻³⁶,
                // and what the sides make of that) the two runs differ by noise alone: a side
                // of second order (`d * d` moved to 10⁻²² both ways) is no first-order move.
                (Some(u), Some(d)) if (u - d).abs() <= (u.abs() + d.abs()) / 4096.0 => continue,
                (Some(u), Some(d)) => (u - d).abs() / 2.0,
                (Some(e), None) | (None, Some(e)) => (e - m).abs(),
                (None, None) => continue,
            };
            if m.abs() <= moves {
                return Some(ReplayError::NoDerivative {
                    at: primal.ops[k].origin.clone(),
                    reason: "the recorded path holds within rounding of these inputs only: this \
                             ordering holds by a margin that moving the differentiated inputs \
                             by 2^-36 of their size (2^-20 for `f32`) closes, as where an \
                             iteration converged by comparisons (a bisection), so its slope is \
                             no derivative of the function; differentiate what the iteration \
                             solves (for a root r of f(r, x) = 0, dr/dx = -(df/dx) / (df/dr))"
                        .into(),
                });
            }
        }
        None
    }
}

/// The margins, against the size of what made their sides, that a move of the inputs may
/// close: 2⁻²⁰ (a move of 2⁻³⁶ of the inputs' size at rates up to 2¹⁶ times the sides').
const SLIVER: f64 = (1u64 << 20) as f64;

/// The largest magnitude of a value's floats (0 for one without floats).
fn magnitude(v: &Value) -> f64 {
    match v.as_f64() {
        Some(x) => x.abs(),
        None => v
            .floats()
            .map_or(0.0, |xs| xs.iter().fold(0.0, |m, x| m.max(x.abs()))),
    }
}

/// An ordering's margin: the difference of its sides, where both are finite floats.
fn margin(op: &Operation, operands: &[Value]) -> Option<f64> {
    let Operation::Builtin(Builtin::Compare(_)) = op else {
        return None;
    };
    match operands {
        [a, b] => Some(a.as_f64()? - b.as_f64()?).filter(|m| m.is_finite()),
        _ => None,
    }
}

/// `args` with each float of the inputs `wrt` (a scalar `f64` or `f32`, the elements of a
/// `Vec<f64>`) moved by `sign` times 2⁻³⁶ (2⁻²⁰ for an `f32`) of its size (of 1 where it is 0),
/// each by a weight of its own (`core::ties::direction_weight`); `None` where no input moves.
fn moved(args: &[Value], wrt: &[usize], sign: f64) -> Option<Vec<Value>> {
    use crate::core::value::{Repr, Scalar};
    let by = |x: f64, w: f64, shift: u32| {
        x + sign * w * if x == 0.0 { 1.0 } else { x.abs() } / (1u64 << shift) as f64
    };
    let mut any = false;
    let moved = args
        .iter()
        .enumerate()
        .map(|(k, v)| {
            if !wrt.contains(&k) {
                return v.clone();
            }
            let w = |i: usize| ties::direction_weight(k, i);
            match &v.0 {
                Repr::Scalar(Scalar::F64(x), form) => {
                    any = true;
                    Value(Repr::Scalar(Scalar::F64(by(*x, w(0), 36)), *form))
                }
                Repr::Scalar(Scalar::F32(x), form) => {
                    any = true;
                    let x = by(f64::from(*x), w(0), 20) as f32;
                    Value(Repr::Scalar(Scalar::F32(x), *form))
                }
                _ => match v.downcast_ref::<Vec<f64>>() {
                    Some(xs) => {
                        any = true;
                        let xs: Vec<f64> = (xs.iter().enumerate())
                            .map(|(i, &x)| by(x, w(i), 36))
                            .collect();
                        Value::snapshot(xs)
                    }
                    None => v.clone(),
                },
            }
        })
        .collect();
    any.then_some(moved)
}
