//! Why a gradient could not be taken.

use crate::core::ir::Location;
use std::fmt;

/// Where in the traced program a gradient failed: the function and the statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The tracked function whose tape holds the node (`{{closure}}` for a closure).
    pub function: String,
    /// `module_path!()` of that function.
    pub module: String,
    /// The statement's location in the function's IR (`§1:%3`).
    pub location: Option<Location>,
    /// The statement as lowered (`%3 = %1.sin()`).
    pub statement: String,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` in `{}::{}`",
            self.statement, self.module, self.function
        )?;
        if let Some(l) = self.location {
            write!(f, " at [{l}]")?;
        }
        Ok(())
    }
}

/// Why a gradient or a backward pass failed. Nothing is ever silently given a zero gradient:
/// a value on the path from an input to the output that irtrack cannot differentiate is one of
/// these errors.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum GradError {
    /// A call with no gradient rule uses a value that depends on the inputs, and its value
    /// reaches the output.
    NoRule {
        /// The callee as written (`sin`, `collect`, `my::f`) or its full path when known.
        callee: String,
        /// Where the call is.
        at: Box<Place>,
        /// Why no rule applies, when a rule exists but could not be used.
        reason: Option<String>,
    },
    /// An input-dependent value is written into a place (`v[i] += x`, `v.push(x)`, `*r = x`),
    /// or a value is read after a call that took it by `&mut` (`let _ = f(&mut y); y`): the
    /// trace keeps values, not the memory they were written to, so the write cannot be
    /// differentiated.
    Mutation {
        /// What the write was.
        at: Box<Place>,
    },
    /// A closure called inside the traced computation uses a variable it captured: irtrack
    /// cannot tell whether that variable depends on the inputs.
    Capture {
        /// The captured variable's name.
        variable: String,
        /// The closure.
        at: Box<Place>,
    },
    /// A float argument's value was not recorded (a generic `T` whose bounds have neither
    /// `Debug` nor `irtrack::Snapshot` keeps only its type name), so nothing can be computed
    /// from it.
    Unrecorded {
        /// The argument.
        at: Box<Place>,
        /// Its type.
        type_name: String,
    },
    /// The function passed to `gradient` is not `#[tracked]` (nor a `tracked_fn!` closure),
    /// or was passed in a form that hides which function it is (a function pointer).
    NotTracked {
        /// Its name.
        function: String,
        /// Why its body was not recorded, when that is known.
        reason: Option<String>,
    },
    /// The output is not differentiable (`gradient` needs an `f64` or `f32`, or `Ok`/`Some`
    /// of one), or a seed does not have the output's shape.
    Output {
        /// What was wrong.
        reason: String,
    },
    /// A call's value reaches the output but no recorded node computed it: the call left
    /// through a `return` inside a macro, which the lowering cannot see (its last node is an
    /// `error`).
    Unconnected {
        /// The call.
        at: Box<Place>,
        /// What the trace says of it.
        reason: String,
    },
    /// Two sensitivities of one value had different shapes.
    Shape {
        /// The value's place.
        at: Box<Place>,
        /// The two shapes.
        shapes: (String, String),
    },
    /// [`Trace::backward`](crate::Trace::backward) found a value that is not a [`Tangent`]
    /// stored under [`ADJOINT`](crate::grad::ADJOINT) at a node it would add to: it is left as
    /// it was, with every other node's.
    ///
    /// [`Tangent`]: crate::Tangent
    NotAnAdjoint {
        /// The node.
        at: Box<Place>,
        /// The type of the value stored there.
        found: String,
    },
    /// A gradient element would be NaN, made from numbers where the function's value is one: no
    /// derivative is NaN, so this is the chain rule failing at `at` — `∞ − ∞` after an
    /// infinite slope (`(x - x).sqrt()` at any `x`, constant but NaN in every AD tool), or a
    /// rule at a point where its operation is not differentiable. A NaN that comes from a NaN
    /// argument or value is returned as it is.
    Indeterminate {
        /// Where the NaN was made: the value whose sensitivities cancelled, or the operation
        /// whose rule gave it.
        at: Box<Place>,
        /// How.
        cause: Indeterminacy,
    },
    /// Higher-order use: the function differentiated takes a derivative itself (`gradient`,
    /// `pullback`, `track`, … called inside it, or inside a function it calls), and the
    /// backward pass could not go through that call, a primitive of the outer trace with no
    /// rule. `irtrack::diff` differentiates programs to any order (`hessian`, or `differentiate`
    /// a `Program` twice).
    HigherOrder {
        /// The call inside which another recording ran.
        at: Box<Place>,
        /// Where the backward pass stopped.
        cause: Box<GradError>,
    },
}

/// How a NaN sensitivity was made from numbers ([`GradError::Indeterminate`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Indeterminacy {
    /// The value's sensitivities are `+∞` and `−∞`, whose sum has no value: the partials of a
    /// cancellation (`x - x`, `x / x`) each multiplied by an infinite slope before they cancel.
    Cancellation {
        /// The operation whose infinite slope made the infinite sensitivities (`sqrt` at 0,
        /// `acos` at 1), when one did.
        slope: Option<Box<Place>>,
    },
    /// The operation's rule gives a NaN partial derivative where its value is a number: it is
    /// not differentiable there (`atan2` at the origin).
    Partial,
    /// The value's sensitivity is 0 only as a limit — the slope of `zero`, taken at an infinite
    /// operand or value (`1 / ∞`), or at an input-dependent operand that is 0 at this point
    /// only (`3u²` of `u.powi(3)` at `u = 0`) — and the operation's slope is infinite (or NaN):
    /// `0 · ∞` may be any number (`1 / (1 / x)` at 0 and `x.cbrt().powi(3)` at 0 have the
    /// slope 1, `x * x.sqrt()` at 0 the slope 0).
    Limit {
        /// The operation whose slope at infinity made the zero.
        zero: Box<Place>,
    },
    /// The computation compared values that depend on the inputs and found them equal
    /// (`if x == 0.0 { return 0.0; }`, `x.to_bits() == ONE_BITS`, a sign test's `else` after
    /// `x > 0.0` and `x < 0.0` both failed, `x.abs() <= 0.0`, an `Equal` ordering): what it
    /// does there exists at this point only, so its slope need not be the function's (statrs's
    /// `erf` returns `0.0` at `x == 0.0`, a path of slope 0, where `erf` has the slope 1.128).
    /// Orderings at a tie say it together when no direction of the inputs keeps them all (`x
    /// <= y`, `y <= 0.0` and `x >= 0.0` at the origin), read by their sides' slopes.
    /// `at` is the comparison or branch that completed the equality.
    Equality {
        /// The comparison that said equal (the last one, for orderings).
        condition: Box<Place>,
    },
    /// The path was chosen by a test of values that depend on the inputs that irtrack does
    /// not see: a match guard with control flow other than `&&` and `||` (an `if` in it; it
    /// runs as written, unrecorded), a guard of `&&` and `||` one of whose conditions is such a
    /// test, or a `bool`
    /// computed by untracked code (`if is_zero(x)`, `if v.iter().any(|&t| t == 0.0)`). Whether
    /// the path holds around this point or at it alone is unknown, so its slope need not be the
    /// function's.
    Unseen {
        /// The guard, or the untracked call that computed the condition.
        condition: Box<Place>,
    },
    /// The computation compared values that depend on the inputs at a tie, and the difference
    /// of the two has the slope 0 here, or no finite slope (`x.sin() <= x` at 0, `x.tan() >=
    /// x` at 0, a side through a step of slope 0, or of infinite slope): to first order the
    /// comparison says nothing of which way the inputs may move, so whether the path holds
    /// around the point or at it alone is not known (with `x <= 0.0`, `x.sin() <= x` holds at 0
    /// alone), and its slope need not be the function's.
    Stationary {
        /// The comparison.
        condition: Box<Place>,
    },
    /// The operation's slope is 0 only as a limit (taken at an infinite operand or value,
    /// underflowed: `exp` at -1000, or 0 at this point only: `2x` of `x * x` at 0) and its
    /// sensitivity is infinite: `∞ · 0` may be any number (`ln(exp(x))` at -1000 has the
    /// slope 1; `1 / (x * x)` at 0 has none).
    LimitSlope,
    /// The operation's slope is infinite at an operand that is 0 only as a limit — made by
    /// `zero` from nonzero numbers, an underflow or `1 / ∞` — so it stands for a large finite
    /// slope, and the infinite gradient is not the derivative (`sqrt(x * x)` at `10⁻²⁰⁰`:
    /// `x * x` is 0 in `f64`, the slope of the whole is 1).
    Underflow {
        /// The operation that made the zero.
        zero: Box<Place>,
    },
    /// The operation's slope overflowed — its value and operands are finite and nonzero, but
    /// its slope is past `f64`'s range (`1 / x` at 10⁻¹⁶⁰ has the slope -10³²⁰) — or its
    /// product with a finite sensitivity did (`1e300 · 1e300`), so the
    /// gradient's infinity stands for a finite number that smaller slopes further on may have
    /// brought back into range (`1 / (1 / x)` at 10⁻¹⁶⁰ has the slope 1), or for a derivative
    /// that is itself past the range: which one, `f64` cannot tell.
    Overflow,
    /// The output is infinite, and a sensitivity of 0 reached an argument through an
    /// operation whose slope is 0 only as a limit at an infinite operand or value (`sqrt`'s
    /// `1 / (2 √∞)`): where that ∞ is an overflow of finite numbers, the real slope is a number
    /// the 0 does not say (`(x * x).sqrt()` at 10¹⁶⁰, where `x * x` overflows, has the slope 1).
    InfiniteValue {
        /// The operation whose slope at ∞ made the zero.
        zero: Box<Place>,
    },
    /// An ordering of values that depend on the inputs holds by a sliver: a margin that moving
    /// the inputs by 2⁻³⁶ of their size closes (2⁻²⁰ for `f32`). The path holds within
    /// rounding of the point only, and its slope is the path's, not the function's — where an
    /// iteration converges by comparisons (a bisection: `cbrt` by bisection had the path's
    /// slope 0.63 for 0.21; one on the sign of a residual, the slope 0).
    NearTie,
    /// A sum rounded an input-dependent operand to a coarse grid (it kept at most half its
    /// bits: `x + 2⁵²` rounds `x` to an integer), and the computation undid the rounding's
    /// slope: at `undone_at`, another path from the same inputs cancels what the rules pass
    /// through the rounded operand (`x − (x + 2⁵² − 2⁵²)`, libm's range reduction of `sin`).
    /// The function is a staircase of steps that wide, whose slope between steps is not the
    /// real numbers' slope the rules give (`sin` so reduced had the gradient 0 for `cos x`).
    Rounding {
        /// Where the rounding's slope is cancelled.
        undone_at: Box<Place>,
    },
}

impl fmt::Display for GradError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GradError::NoRule { callee, at, reason } => {
                // A method is described with its receiver's type quoted (`sin on \`&f64\``).
                if callee.contains('`') {
                    write!(f, "no gradient rule for {callee}")?;
                } else {
                    write!(f, "no gradient rule for `{callee}`")?;
                }
                write!(f, ", used by {at} on the path from an input to the output")?;
                match reason {
                    Some(r) => write!(f, ": {r}"),
                    None => write!(f, "; make it `#[tracked]` or give it a rule with `irtrack::grad::register_rule`"),
                }
            }
            GradError::Mutation { at } => write!(
                f,
                "{at} writes into a place a value that depends on the inputs, or takes by `&mut` \
                 a value read after it (as a method called on a `mut` binding may, through \
                 `&mut self`), which it may have changed in place; gradients cannot follow \
                 writes through memory: compute a new value instead (`let v2 = …`, `r = r + x`, \
                 `let y = f(y)`), or make the method `#[tracked]`"
            ),
            GradError::Capture { variable, at } => write!(
                f,
                "the closure {at} uses the captured variable `{variable}`, which may depend on \
                 the inputs: pass it to the closure as an argument"
            ),
            GradError::Unrecorded { at, type_name } => write!(
                f,
                "the value of {at} (a `{type_name}`) was not recorded: add a `Debug` bound to \
                 the generic parameter so irtrack can keep it"
            ),
            GradError::NotTracked {
                function,
                reason: Some(reason),
            } => write!(f, "the body of `{function}` was not recorded: {reason}"),
            GradError::NotTracked {
                function,
                reason: None,
            } => write!(
                f,
                "`{function}` is not #[tracked]: its body was not recorded, so it cannot be \
                 differentiated; add #[tracked] or wrap a closure in `tracked_fn!`"
            ),
            GradError::Output { reason } => f.write_str(reason),
            GradError::Unconnected { at, reason } => write!(
                f,
                "the value of {at} reaches the output, but no recorded node computed it ({reason}): \
                 write the `return` outside the macro, or make the macro produce a value the \
                 function returns"
            ),
            GradError::Shape { at, shapes } => write!(
                f,
                "the sensitivities of {at} have different shapes: {} and {}; a seed must have \
                 the shape of the output (and of the seeds of earlier `backward` passes on the \
                 same trace), and a custom rule must return sensitivities of its arguments' shapes",
                shapes.0, shapes.1
            ),
            GradError::Indeterminate {
                at,
                cause: Indeterminacy::Cancellation { slope },
            } => {
                write!(
                    f,
                    "the gradient is NaN, not a number: the sensitivities of {at} are +∞ and −∞, \
                     whose sum has no value"
                )?;
                if let Some(slope) = slope {
                    write!(f, " (they are infinite because the slope of {slope} is infinite here)")?;
                }
                f.write_str(
                    "; the function may well be differentiable here (`(x - x).sqrt()` is \
                     constant), but the chain rule multiplies each part of a cancellation by the \
                     infinite slope before the parts cancel: cancel in the source (write `0.0` for \
                     `x - x`), or keep the operation away from the point where its slope is \
                     infinite",
                )
            }
            GradError::Indeterminate {
                at,
                cause: Indeterminacy::Partial,
            } => write!(
                f,
                "the gradient is NaN, not a number: the rule of {at} gives a NaN partial \
                 derivative at these operands, where its value is a number — the operation is \
                 not differentiable at this point; handle the point apart (a branch), or give \
                 the operation the rule you want with `irtrack::grad::register_rule`"
            ),
            GradError::Indeterminate {
                at,
                cause: Indeterminacy::Limit { zero },
            } => write!(
                f,
                "the gradient is indeterminate at {at}: its sensitivity is 0 only as a limit or \
                 only at this point (the slope of {zero} at an infinite value, like 1 / ∞, or at \
                 an operand that is 0 here but not nearby, like `2 * x` for `x * x` at 0), and \
                 its own slope is infinite here; 0 · ∞ may be any number (`1 / (1 / x)` and \
                 `x.cbrt().powi(3)` at 0 have the slope 1, `x * x.sqrt()` the slope 0): keep the \
                 computation away from infinite intermediate values and such points (a stable \
                 formulation, such as `x.exp() / (1.0 + x.exp())` for the sigmoid of a large \
                 negative `x`)"
            ),
            GradError::Indeterminate {
                at,
                cause: Indeterminacy::Equality { condition },
            } => write!(
                f,
                "the gradient is indeterminate at {at}: {condition} found values that depend on \
                 the inputs equal (by itself, or with an ordering before it, as `x > 0.0` and \
                 `x < 0.0` both false, or with what a value is, as `x.abs() <= 0.0`), so what \
                 the computation does there exists at this point only and its slope need not be \
                 the function's (a special case `if x == 0.0 {{ \
                 return 0.0; }}` has the slope 0 whatever the function's is): differentiate at a \
                 point off the equality, or write the special case so that it agrees with the \
                 general formula's slope"
            ),
            GradError::Indeterminate {
                at,
                cause: Indeterminacy::Unseen { condition },
            } => write!(
                f,
                "the gradient is indeterminate at {at}: the path was chosen by {condition}, a test \
                 of values that depend on the inputs that irtrack does not record, so \
                 whether the path holds around this point or at it alone is unknown: write \
                 a match guard with an `if` as nested `if`s in the arm's body, make a \
                 predicate `#[tracked]`, and write a test given to untracked code as a \
                 closure (`v.iter().any(|t| …)`) as a loop in tracked code"
            ),
            GradError::Indeterminate {
                at,
                cause: Indeterminacy::Stationary { condition },
            } => write!(
                f,
                "the gradient is indeterminate at {at}: {condition} found values that depend on \
                 the inputs equal where their difference has the slope 0 or none finite (`x.sin() \
                 <= x` at 0, a side through a step of slope 0), so whether the path holds around this \
                 point or at it alone is not known and its slope need not be the function's: \
                 differentiate at a point off the tie, or compare values whose difference moves \
                 with the inputs there (`x <= 0.0` for `x.sin() <= x`)"
            ),
            GradError::Indeterminate {
                at,
                cause: Indeterminacy::LimitSlope,
            } => write!(
                f,
                "the gradient is indeterminate at {at}: its slope is 0 only as a limit or only at \
                 this point (at an infinite value, underflowed like e^-1000, or at an operand \
                 that is 0 here but not nearby, like `2 * x` for `x * x` at 0) and its \
                 sensitivity is infinite (0 · ∞ may be any number: `ln(exp(x))` at -1000 has the \
                 slope 1, `1 / (x * x)` at 0 has none): keep the computation away from vanishing \
                 and infinite intermediate values (`x` for `ln(exp(x))`, `ln_1p`/`exp_m1` and \
                 log-sum-exp forms)"
            ),
            GradError::Indeterminate {
                at,
                cause: Indeterminacy::InfiniteValue { zero },
            } => write!(
                f,
                "the gradient is indeterminate at {at}: the output is infinite, and the \
                 sensitivity that reached this argument is 0 only as a limit (the slope of \
                 {zero} at an infinite operand or value, like 1 / ∞); where that ∞ is an \
                 overflow of finite numbers the real slope is another number (`(x * x).sqrt()` \
                 at 1e160 has the slope 1): keep intermediate values in range (`x.abs()` for \
                 `sqrt(x * x)`, `x.hypot(y)` for `sqrt(x * x + y * y)`)"
            ),
            GradError::Indeterminate {
                at,
                cause: Indeterminacy::Underflow { zero },
            } => write!(
                f,
                "the gradient is indeterminate at {at}: its slope is infinite at an operand that \
                 is 0 only as a limit (made by {zero} from nonzero numbers: an underflow, or \
                 1 / ∞), so the slope stands for a large finite number and the infinite \
                 gradient is not the derivative (`sqrt(x * x)` at 1e-200 has the slope 1): \
                 keep the computation away from vanishing intermediate values (`x.abs()` for \
                 `sqrt(x * x)`, `x.hypot(y)` for `sqrt(x * x + y * y)`)"
            ),
            GradError::Indeterminate {
                at,
                cause: Indeterminacy::Rounding { undone_at },
            } => write!(
                f,
                "the gradient is indeterminate at {at}: this sum rounds an operand that depends \
                 on the inputs to a coarse grid (adding a large number drops its low bits: \
                 `x + 2^52` rounds `x` to an integer), and {undone_at} cancels the slope the \
                 rules pass through that rounding with another path from the same inputs (as \
                 `x - (x + 2^52 - 2^52)` does): the function is a staircase there, whose slope \
                 between steps is not the real numbers' slope the rules give; round explicitly \
                 (`x.round()`, whose slope is 0)"
            ),
            GradError::NotAnAdjoint { at, found } => write!(
                f,
                "{at} holds a `{found}` under the metadata key \"adjoint\", where `backward` \
                 adds the node's sensitivity (a `Tangent`): remove it or store it under another \
                 key; the trace was left as it was"
            ),
            GradError::Indeterminate {
                at,
                cause: Indeterminacy::NearTie,
            } => write!(
                f,
                "the gradient is indeterminate at {at}: this comparison (or sign test) of values \
                 that depend on the inputs holds by a margin that moving the inputs by 2^-36 of their size \
                 (2^-20 for f32) closes, so the path it chose holds within rounding of these \
                 inputs only, and the path's slope is not \
                 the function's (an iteration that converges by comparisons, a bisection, has \
                 the slope of the path it took, not of its limit): differentiate the limit \
                 instead (a `register_rule` with the implicit-function slope, or Newton steps)"
            ),
            GradError::Indeterminate {
                at,
                cause: Indeterminacy::Overflow,
            } => write!(
                f,
                "the gradient is indeterminate at {at}: its slope, or the product of its slope \
                 and sensitivity, overflowed `f64` where its value and operands are finite \
                 (`1 / x` at 1e-160 has the slope -1e320), so the infinite gradient stands for a \
                 number either past `f64`'s range or brought back into it by smaller slopes \
                 (`1 / (1 / x)` at 1e-160 has the slope 1): rescale the inputs, or simplify the \
                 expression so that no intermediate slope is that large"
            ),
            GradError::HigherOrder { at, cause } => write!(
                f,
                "{at} takes a derivative (records a trace of its own) inside the function being \
                 differentiated: a gradient of a function that calls `gradient` (higher-order \
                 use) is not supported; build the higher derivative with `irtrack::diff` \
                 (`hessian`, or `differentiate` a `Program` twice). The backward pass stopped \
                 at: {cause}"
            ),
        }
    }
}

impl std::error::Error for GradError {}
