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
    pub(super) fn path_error(&self, args: &[Value]) -> Option<ReplayError> {
        let (check, primal) = (self.path_check.as_ref()?, self.primal.as_ref()?);
        let args = &args[..primal.inputs.len().min(args.len())];
        let mut tied = false;
        let _ = primal.evaluate(args, &mut |k, operands, result| {
            tied = tied
                || (check.watched.get(k).copied().unwrap_or(false)
                    && matches!(&primal.ops[k].kind, OpKind::Run(o) if at_tie(o, operands, result)));
        });
        if !tied {
            return None;
        }
        (check.refusal)(primal, args, &check.wrt)
    }
}
