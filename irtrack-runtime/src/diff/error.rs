//! Why a program could not be differentiated, emitted, or a derivative evaluated.

use crate::core::eval::EvalError;
use crate::program::{Origin, ReplayError};
use std::fmt;

/// Why a derivative could not be built or evaluated. Every variant names what failed; none
/// stands for a number that would have been wrong.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum DiffError {
    /// An operation on the path from a differentiated input to the output has no symbolic rule
    /// (a registered function nobody gave a [`Rule`](super::Rule), an operation whose result
    /// is not a float).
    NoRule {
        /// The operation, as the program listing prints it.
        operation: String,
        /// Where it came from.
        at: Origin,
        /// What to do.
        hint: String,
    },
    /// Reverse mode needs the transpose of a linear operation, and it has none (a registered
    /// function whose [`Rule`](super::Rule) gives no transpose).
    NoTranspose {
        /// The operation.
        operation: String,
        /// Where it came from.
        at: Origin,
    },
    /// The program makes a decision at every call (a `switch`, a `while_loop`), which a
    /// derivative program cannot see through.
    Unsupported {
        /// The operation.
        at: Origin,
        /// What it is.
        reason: String,
    },
    /// An input cannot be differentiated with respect to.
    Input {
        /// The input, from 0.
        index: usize,
        /// Why.
        reason: String,
    },
    /// The output has no derivative (an integer, a `bool`, a value kept as text), or an entry
    /// point needs another kind of output.
    Output {
        /// Why.
        reason: String,
    },
    /// A tangent or cotangent passed to an entry point is not of its argument's type.
    Direction {
        /// The argument (or `0` for the output's cotangent), from 0.
        index: usize,
        /// The type it must have.
        expected: String,
        /// The type given.
        given: String,
    },
    /// An operation failed on the recorded values while the derivative was built.
    Eval {
        /// The operation.
        at: Origin,
        /// What failed.
        error: EvalError,
    },
    /// A derivative would be NaN, made from numbers where the function's value is one: the
    /// operation `operation` of the derivative program makes a NaN from operands that have
    /// none — `∞ − ∞` after an infinite slope (`(x - x).sqrt()` is constant, but the chain rule
    /// multiplies each part of `x - x` by `sqrt`'s slope at 0 before they cancel), `0 / 0`. No
    /// derivative is NaN; a NaN from a NaN argument or value is returned as it is.
    Indeterminate {
        /// The operation, as the program listing prints it.
        operation: String,
        /// The node of the trace it was derived from.
        at: Origin,
    },
    /// The derivative meets `0 · ∞`: a slope that is 0 only as a limit (`1 / y` at `y = ∞`,
    /// or a product that underflowed) times an infinite one, which may be any number
    /// (`1 / (1 / x)` at 0 has the slope 1), where a derivative program's kernels would give
    /// 0. The gradient's error says where ([`GradError::Indeterminate`](crate::GradError)).
    Limit(Box<crate::grad::GradError>),
    /// The program's path exists at one point only along the differentiated inputs: its guard
    /// `at` holds only where two values that vary with them are equal (`x == 0.0` held, or
    /// `x > 0.0` and `x < 0.0` both failed), so the path's slope is no derivative of the
    /// function. Record the function at another point, or write the special case so that it
    /// agrees with its neighbourhood.
    PointPath {
        /// The guard.
        at: Origin,
    },
    /// The recorded path was chosen by an ordering of values that vary with the differentiated
    /// inputs at a tie, where the difference of the two has the slope 0 (`x.sin() <= x` at 0, a
    /// side through a step of slope 0) or a slope this check cannot
    /// take: whether the path holds around the point or at it alone is not known, so its slope
    /// need not be the function's. Record the function at a point off the tie.
    StationaryTie {
        /// The comparison.
        at: Origin,
    },
    /// Building the program from the trace, or running a derivative program, failed.
    Replay(ReplayError),
    /// Higher-order use: the function takes a derivative itself (`gradient`, `jvp`, `track`, …
    /// called inside it, or inside a function it calls), a call the program of its trace cannot
    /// run or differentiate. Differentiate the inner function's program instead
    /// ([`differentiate`](super::differentiate) twice, [`hessian`](super::hessian)).
    HigherOrder {
        /// The call inside which another recording ran.
        at: Origin,
        /// What failed because of it.
        cause: Box<DiffError>,
    },
}

impl fmt::Display for DiffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiffError::NoRule {
                operation,
                at,
                hint,
            } => write!(
                f,
                "{at}: `{operation}` has no symbolic derivative rule: {hint}"
            ),
            DiffError::NoTranspose { operation, at } => write!(
                f,
                "{at}: `{operation}` has no transpose, which reverse mode needs: give its rule one \
                 (`Rule::linear(k).transpose(…)`)"
            ),
            DiffError::Unsupported { at, reason } => write!(f, "{at}: {reason}"),
            DiffError::Input { index, reason } => {
                write!(f, "argument {}: {reason}", index + 1)
            }
            DiffError::Output { reason } => f.write_str(reason),
            DiffError::Direction {
                index,
                expected,
                given,
            } if expected == "()" => write!(
                f,
                "argument {} is not differentiated (an integer, a `bool`, a value of no float \
                 type): its direction must be `()`, not a `{given}`",
                index + 1
            ),
            DiffError::Direction {
                index,
                expected,
                given,
            } => write!(
                f,
                "the direction for argument {} must be a `{expected}`, like the argument, not a \
                 `{given}`",
                index + 1
            ),
            DiffError::Eval { at, error } => write!(f, "{at}: {error}"),
            DiffError::Indeterminate { operation, at } => write!(
                f,
                "{at}: the derivative is NaN, not a number: `{operation}` in its derivative \
                 program makes a NaN from numbers (∞ − ∞ after an infinite slope, such as \
                 `sqrt` at 0 in `(x - x).sqrt()`); the function may be differentiable here, but \
                 the chain rule cannot tell: cancel in the source (`0.0` for `x - x`), or keep \
                 the operation away from the point where its slope is infinite"
            ),
            DiffError::Limit(e) => write!(f, "no derivative is given: {e}"),
            DiffError::StationaryTie { at } => write!(
                f,
                "{at}: the recorded path was chosen by an ordering at a tie of values that vary \
                 with the differentiated inputs, whose difference has the slope 0 there (`x.sin() \
                 <= x` at 0), or a slope this check cannot take, so whether the path holds around the point or \
                 at it alone is not known and its slope need not be the function's; record the \
                 function at a point off the tie, or compare values whose difference moves with \
                 the inputs there (`x <= 0.0` for `x.sin() <= x`)"
            ),
            DiffError::PointPath { at } => write!(
                f,
                "{at}: the recorded path holds at one point only along the differentiated \
                 inputs (an equality of values that vary with them held, or two orderings of \
                 them say equal), so its slope is no derivative of the function; record the \
                 function at another point, or write the special case so that it agrees with \
                 its neighbourhood"
            ),
            DiffError::Replay(e) => write!(f, "{e}"),
            DiffError::HigherOrder { at, cause } => write!(
                f,
                "{at}: takes a derivative (records a trace of its own) inside the function being \
                 differentiated; a derivative of a function that calls `gradient`, `jvp`, … \
                 (higher-order use) is not supported: differentiate the inner function's \
                 program twice (`irtrack::diff::differentiate`, `hessian`) instead ({cause})"
            ),
        }
    }
}

impl std::error::Error for DiffError {}

impl From<ReplayError> for DiffError {
    /// A derivative program's NaN made from numbers ([`ReplayError::NotANumber`]) is the
    /// entry points' [`DiffError::Indeterminate`], as where they look for it themselves.
    fn from(e: ReplayError) -> DiffError {
        match e {
            ReplayError::NotANumber { at, operation } => DiffError::Indeterminate { operation, at },
            e => DiffError::Replay(e),
        }
    }
}
