//! Programs from traces: the path a trace took, flattened into a typed dataflow program that
//! runs on new inputs without calling the Rust function (autoform's `trace(…).call(…)`).
//!
//! [`Program::from_trace`] takes a trace and marks each root argument [`Input::Static`] (fixed
//! at its recorded value: a later call must pass the same value) or [`Input::Dynamic`] (a
//! value a call may change). Every node that depends only on static inputs is folded to its
//! recorded value — a random draw from a static RNG is a constant, as are loop counters that
//! depend only on static bounds. Every other node must be re-executable
//! ([`NodeRef::operation`](crate::view::trace::NodeRef::operation)), or construction fails
//! naming it. Every branch the trace took on a condition that depends on a dynamic input
//! becomes a **guard**: a call whose inputs would
//! take another path fails with [`ReplayError::Guard`] instead of returning a number from the
//! wrong path. A decision that must stay one at every call is written with [`switch`] or
//! [`while_loop`] ([`control`]): each is one operation of the program, which picks the branch
//! or iterates anew. A program that keeps its function ([`Retracking`], [`retrack`]) can
//! instead track it again where a guard fails
//! ([`call_or_retrack`](Retracking::call_or_retrack)), growing a tree of paths.
//!
//! ```
//! use irtrack::{track, tracked, program::{Input, Program, ReplayError}, Value};
//!
//! #[tracked]
//! fn h(x: f64, n: i32) -> f64 {
//!     let mut r = 0.0;
//!     let mut i = 0;
//!     while i < n {
//!         r += x.powi(i);
//!         i += 1;
//!     }
//!     r
//! }
//!
//! // `n` static: the loop is unrolled, `x` flows through `powi` and `+=`.
//! let trace = track(h, (2.0, 3));
//! let p = Program::from_trace(&trace, &[Input::Dynamic, Input::Static]).unwrap();
//! assert_eq!(p.call((3.0, 3)).unwrap().as_f64(), Some(h(3.0, 3)));
//! // A static input must keep its recorded value.
//! assert!(matches!(p.call((3.0, 4)), Err(ReplayError::Static { .. })));
//!
//! // `n` dynamic: every loop test becomes a guard.
//! let p = Program::from_trace(&trace, &[Input::Dynamic, Input::Dynamic]).unwrap();
//! assert_eq!(p.call((0.5, 3)).unwrap().as_f64(), Some(h(0.5, 3)));
//! let e = p.call((0.5, 4)).unwrap_err();
//! assert!(e.to_string().contains("== false expected"), "{e}");
//! ```

pub(crate) mod build;
pub mod checkpoint;
pub mod control;
mod fast;
mod lanes;
mod limit;
mod parts;
mod patterns;
pub mod retrack;
mod run;
mod ties;
pub mod update;

use crate::core::eval::EvalError;
use crate::core::ids::NodeId;
use crate::core::ir::EntryKind;
use crate::core::ir::Location;
use crate::core::tape::{NodeKind, Store};
use crate::core::value::Value;
use crate::view::operation::{Operation, ReexecError};
use std::fmt;
use std::sync::Arc;

pub use build::Input;
pub use checkpoint::{checkpoint, collect, inject, Checkpoints};
pub use control::{switch, while_loop, BranchArgs, Branches, MaxItersExceeded};
pub(crate) use parts::{PartGuard, PartInput, PartOp, Parts};
pub use retrack::{Retracking, DEFAULT_MAX_PATHS};
pub use update::{Change, Keep, RerunCause, Updatable, Update, UpdateError};

/// A recorded path, replayable on new inputs: see the [module docs](self).
#[derive(Clone, Debug)]
pub struct Program {
    /// What each root argument is: a dynamic input, or a static one with its recorded value.
    inputs: Vec<InputSlot>,
    /// The operations and guards, in execution order.
    steps: Vec<Step>,
    /// The operations; `steps` refers to them by index.
    ops: Vec<Op>,
    /// The guards.
    guards: Vec<Guard>,
    /// Where the result comes from.
    output: Src,
    /// The name of the function the trace recorded.
    name: String,
    /// The compiled form, when every value is a scalar.
    fast: Option<fast::Fast>,
    /// Which differentiation added each input (0: the recorded function's own; `k`: the
    /// direction of the `k`-th derivative, `crate::diff`); empty when none did.
    stages: Vec<u32>,
    /// The value each input had when the trace was recorded: a witness of its type and shape.
    samples: Vec<Value>,
    /// Which inputs a differentiation was taken with respect to ([`PartInput::Dynamic`]'s
    /// `varies`); empty when none was.
    varies: Vec<bool>,
    /// For a derivative program (`crate::diff`): the program of the recorded function it
    /// derives from, whose inputs are its first ones. A NaN the function itself has at a
    /// point is its derivative's too; one born from numbers in the derivative alone is not
    /// (`program::limit`).
    primal: Option<Arc<Program>>,
    /// For a derivative program whose recorded function has orderings or kinks that move with
    /// the differentiated inputs: the check that the path has a derivative where a call finds
    /// one of them at its tie (`program::ties`).
    path_check: Option<ties::PathCheck>,
}

#[derive(Clone, Debug)]
enum InputSlot {
    Dynamic {
        type_name: String,
        /// The vector's length, where the path read it (`v.len()`, folded to its recorded
        /// value): a call with another length takes another path, refused as a failed guard
        /// at the read.
        length: Option<(usize, Origin)>,
        /// The shape it must have, for a derivative's direction or cotangent.
        like: Option<Like>,
    },
    Static(Value),
}

/// The shape a derivative program's added input must have: a direction has its input's, a
/// cotangent the recorded output's. Unchecked, a longer one was read in part (a direction
/// `[1, 1, 7]` for a 2-vector gave a derivative, the 7 ignored).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Like {
    /// The shape of input `k` in the same call.
    Input(usize),
    /// This shape (`[]` a float, `[n]` a vector, an array's shape).
    Shape(Vec<usize>),
}

/// Where a value comes from when the program runs.
#[derive(Clone, Debug)]
pub(crate) enum Src {
    /// Root argument `k` (a dynamic one).
    Input(usize),
    /// The result of operation `k`.
    Op(usize),
    /// A value fixed when the program was built.
    Const(Value),
}

impl Src {
    fn is_dynamic(&self) -> bool {
        !matches!(self, Src::Const(_))
    }
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Op(usize),
    Guard(usize),
}

/// One operation: what it runs, on what, and where it came from.
#[derive(Clone, Debug)]
struct Op {
    kind: OpKind,
    args: Vec<Src>,
    origin: Origin,
    /// The value the node recorded (its type is the operation's result type).
    recorded: Value,
    /// Made by a differentiation rule ([`PartOp::derived`]).
    derived: bool,
}

/// What an operation runs.
#[derive(Clone, Debug)]
enum OpKind {
    /// A re-executable operation.
    Run(Operation),
    /// A `switch` or `while_loop`: a decision made at every call.
    Control(Arc<control::Control>),
    /// A tuple with an element that depends on a dynamic input, which a program cannot build:
    /// it stands for the tuple only so that a `switch` can take the elements as its branch's
    /// arguments. Building fails with the error if anything else uses it.
    Tuple(Box<ReplayError>),
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpKind::Run(o) => write!(f, "{o}"),
            OpKind::Control(c) => write!(f, "{c}"),
            OpKind::Tuple(_) => f.write_str("tuple"),
        }
    }
}

/// A branch the trace took on a condition that depends on a dynamic input.
#[derive(Clone, Debug)]
struct Guard {
    condition: Src,
    expected: bool,
    /// The condition's node, as the listing prints it (`@5`), where it has a position.
    condition_at: Option<usize>,
    /// The branch.
    origin: Origin,
}

/// What a guard expects, for the error a failed check gives: `@5 == true`, naming the
/// condition by its position in the listing (by the branch's, where it has none).
pub(crate) fn guard_condition(at: Option<usize>, expected: bool) -> String {
    match at {
        Some(k) => format!("@{k} == {expected}"),
        None => format!("the branch's condition == {expected}"),
    }
}

/// Where a step of a program comes from: the node it replays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The node in the trace the program was built from.
    pub node: NodeId,
    /// The function the node is in.
    pub function: String,
    /// Where in that function.
    pub location: Option<Location>,
    /// The node's position among its call's children (`@5`).
    pub position: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Some(loc) => write!(f, "{} [{loc}]", self.function),
            None => f.write_str(&self.function),
        }
    }
}

/// Where a derivative program met a zero that is only a limit ([`ReplayError::Indeterminate`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LimitMet {
    /// Where the limit decided the result: a product or quotient (`times`, `over`), or the
    /// operation giving the infinite result.
    pub at: Origin,
    /// What it is.
    pub operation: String,
    /// The operation that made the zero.
    pub limit: Origin,
    /// What that is (`/`, `powi`, `*`, …).
    pub limit_operation: String,
}

/// Why a program could not be built from a trace, or could not run.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ReplayError {
    /// `from_trace` was given another number of inputs than the root has arguments, or a call
    /// another number of arguments than the program has inputs.
    Arity {
        /// How many it takes.
        expected: usize,
        /// How many it was given.
        got: usize,
    },
    /// A node that depends on a dynamic input cannot be run again.
    NotReexecutable(ReexecError),
    /// A node that depends on a dynamic input cannot be replayed for another reason: a write
    /// into memory, a `match` on a dynamic value, a captured variable of a closure made inside
    /// the recording (a closure given to `track` captured only constants), a call left
    /// through a `return` irtrack could not see.
    Unsupported {
        /// The node.
        at: Origin,
        /// What it is and what to do.
        reason: String,
    },
    /// A static argument was given a value of another type than the recorded one (`3i32`
    /// where the function took a `usize`: a tuple of literals takes Rust's default types).
    StaticType {
        /// The argument, from 0.
        index: usize,
        /// The recorded value's type.
        recorded: String,
        /// The given value's type.
        given: String,
    },
    /// A static argument was given a value other than the recorded one.
    Static {
        /// The argument, from 0.
        index: usize,
        /// The recorded value.
        recorded: String,
        /// The value given.
        given: String,
    },
    /// A static argument was given a value irtrack cannot prove to be the recorded one, bit
    /// for bit: a snapshot of a user's type (irtrack holds a clone of it, but no comparison
    /// that tells `-0.0` from `0.0`), a value known only by its `Debug` text (two values can
    /// print alike) or only by its type. The constants folded from it could be stale, so
    /// the program refuses rather than guess.
    StaticUnproven {
        /// The argument, from 0.
        index: usize,
        /// Its type.
        type_name: String,
        /// What irtrack holds of it.
        known: &'static str,
    },
    /// A derivative program's direction or cotangent does not have the shape of what it
    /// stands beside: its input's (a direction), the output's (a cotangent).
    Shape {
        /// The argument, from 0.
        index: usize,
        /// The shape it must have, and of what (`vector of 2, as argument 1`).
        expected: String,
        /// The shape given.
        given: String,
    },
    /// A dynamic argument is not of the recorded type.
    Type {
        /// The argument, from 0.
        index: usize,
        /// The recorded type.
        expected: String,
        /// The type given.
        given: String,
    },
    /// A branch condition evaluated differently than when the trace was recorded: the inputs
    /// take another path, which the program does not have.
    Guard {
        /// The branch.
        at: Origin,
        /// The condition's node (`@5`) and the value the recorded path needs.
        condition: String,
    },
    /// An operation failed on the new values (overflow, an index out of bounds, a registered
    /// operation that panicked).
    Eval {
        /// The operation.
        at: Origin,
        /// What failed.
        error: EvalError,
    },
    /// A [`switch`] was given a key none of its branches has (the Rust function panics there).
    NoBranch {
        /// The `switch`.
        at: Origin,
        /// The key.
        key: String,
    },
    /// A [`while_loop`] ran its body `max_iters` times and its condition still held (the Rust
    /// function returns `Err(MaxItersExceeded)` there).
    MaxIters {
        /// The `while_loop`.
        at: Origin,
        /// The bound it was given.
        max_iters: usize,
    },
    /// A branch of a [`switch`], or the condition or body of a [`while_loop`], cannot be
    /// replayed: its program could not be built, or failed.
    Branch {
        /// The `switch` or `while_loop`.
        at: Origin,
        /// The function (`long`, `cond`).
        function: String,
        /// Why, inside that function.
        error: Box<ReplayError>,
    },
    /// A derivative program met a zero that is only a limit where it decides the result: made
    /// by a formula from nonzero numbers (`1 / ∞`, an underflow), it met ∞ in `0 · ∞`, or made
    /// the result infinite (`1 / 0`). The derivative may then be any number: it is
    /// indeterminate at these inputs.
    Indeterminate(Box<LimitMet>),
    /// A derivative program's result is infinite because a part of the derivative overflowed:
    /// the operation at `at` made ∞ from finite nonzero numbers where the recorded function's
    /// values are finite (the slope -1/x² of `1 / x` at 10⁻¹⁶⁰ is -10³²⁰). The ∞ stands for a
    /// number past `f64`'s range or one that later factors would have brought back into it
    /// (`1 / (1 / x)` at 10⁻¹⁶⁰ has the slope 1), and `f64` cannot tell which.
    Overflow {
        /// The operation that overflowed.
        at: Origin,
        /// What it is (`over`, `powi`, …).
        operation: String,
    },
    /// A derivative program met `0 · ∞` (or `0 / 0`) with a zero that holds at these inputs
    /// only: a value computed from a differentiated input that is 0 here but not around
    /// (`2x` at `x = 0` in the derivative of `x * x`, `ln y` at `y = 1`). Only a zero that is
    /// 0 on a neighbourhood (a constant, a direction, the side `max` did not take, `floor`'s
    /// slope) may absorb an infinity; this one makes the derivative indeterminate:
    /// `1 / (x * x)` has no derivative at 0 (∓∞ on the two sides), `x.cbrt().powi(3)` the
    /// slope 1. `limit` and `limit_operation` name the zero: an operation, or an input
    /// (`input 1`) that is 0.
    ZeroAtPoint(Box<LimitMet>),
    /// A derivative program's result is NaN, made from numbers by an operation of the
    /// derivative (`∞ − ∞`, `∞ / ∞`, `0 · ∞` of a product that does not absorb), where neither
    /// the inputs nor the function's own value are NaN: no derivative is NaN, so the program
    /// says where it lost the number instead of returning it (the slope of `atan(exp(x))` at
    /// 710, where `exp` overflowed, is `∞ / ∞` in the rule's arithmetic).
    NotANumber {
        /// The operation that made the NaN.
        at: Origin,
        /// What it is.
        operation: String,
    },
    /// A derivative program was called where the recorded path has no derivative: one of the
    /// recorded function's orderings is at a tie, or a kink at its corner (`max` of equal
    /// values), and the path holds at these inputs alone, or its sides taken there belong to
    /// regions that meet only there (`x.max(y) + x.min(y)` at `x == y` would take `x` twice).
    /// It is the refusal [`differentiate`](crate::diff::differentiate) gives when building at
    /// such a point ([`DiffError::PointPath`](crate::diff::DiffError::PointPath),
    /// [`DiffError::StationaryTie`](crate::diff::DiffError::StationaryTie)), found at a call
    /// of a program built elsewhere.
    NoDerivative {
        /// The ordering or kink that closed the path.
        at: Origin,
        /// What the check found.
        reason: String,
    },
    /// A [`Retracking`] program met a guard that fails where it has no path, and holds as many
    /// paths as it may ([`Retracking::max_paths`]).
    TooManyPaths {
        /// The cap.
        max_paths: usize,
        /// The guard that failed ([`ReplayError::Guard`]).
        guard: Box<ReplayError>,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Arity { expected, got } => write!(
                f,
                "the program takes {expected} argument{}, given {got}",
                if *expected == 1 { "" } else { "s" }
            ),
            ReplayError::StaticType {
                index,
                recorded,
                given,
            } => write!(
                f,
                "argument {} is static, recorded as a `{recorded}`, and was given a `{given}`: \
                 give it as a `{recorded}` (a literal takes its type from a suffix, `3usize`, \
                 where nothing else decides it)",
                index + 1
            ),
            ReplayError::NotReexecutable(e) => {
                write!(f, "depends on a dynamic input but {e}")
            }
            ReplayError::Unsupported { at, reason } => write!(f, "{at}: {reason}"),
            ReplayError::Static {
                index,
                recorded,
                given,
            } => write!(
                f,
                "argument {} is static, recorded as {recorded}, and was given {given}: a \
                 program replays the path its static inputs chose; build another program (or \
                 mark the argument dynamic)",
                index + 1
            ),
            ReplayError::StaticUnproven {
                index,
                type_name,
                known,
            } => write!(
                f,
                "argument {} is static, a `{type_name}` of which irtrack holds {known}, so it \
                 cannot prove this value is the recorded one the program's constants were \
                 folded from: pass only the dynamic arguments with `call_dynamic` (the static \
                 ones keep their recorded values), build a program from a trace on this value, \
                 or pass the numbers it holds as separate arguments",
                index + 1
            ),
            ReplayError::Shape {
                index,
                expected,
                given,
            } => write!(
                f,
                "argument {} must be a {expected}, not a {given}",
                index + 1
            ),
            ReplayError::Type {
                index,
                expected,
                given,
            } => write!(
                f,
                "argument {} must be a `{expected}`, as recorded, not a `{given}`",
                index + 1
            ),
            ReplayError::Guard { at, condition } => write!(
                f,
                "{at}: {condition} expected; these inputs take a path the trace did not record \
                 (track the function on them, or use `irtrack::switch` for a decision made at \
                 run time)"
            ),
            ReplayError::Eval { at, error } => write!(f, "{at}: {error}"),
            ReplayError::NoBranch { at, key } => write!(
                f,
                "{at}: no branch of the `switch` has the key {key} (the Rust function panics here)"
            ),
            ReplayError::MaxIters { at, max_iters } => write!(
                f,
                "{at}: `while_loop` ran its body max_iters = {max_iters} times and its condition \
                 still holds (the Rust function returns `Err(MaxItersExceeded)` here)"
            ),
            ReplayError::Branch {
                at,
                function,
                error,
            } => write!(f, "{at}: `{function}` cannot be replayed: {error}"),
            ReplayError::Overflow { at, operation } => write!(
                f,
                "{at}: the derivative is indeterminate at these inputs: `{operation}`, part of \
                 the derivative, overflowed `f64` from finite numbers and made the result \
                 infinite; the result stands for a number either past `f64`'s range or brought \
                 back into it by smaller factors (`1 / (1 / x)` at 1e-160 has the slope 1): \
                 rescale the inputs, or simplify the expression so that no intermediate \
                 derivative is that large"
            ),
            ReplayError::Indeterminate(met) => write!(
                f,
                "{}: the derivative is indeterminate at these inputs: `{}` meets a 0 that is \
                 only a limit (or an ∞ made from one), made by `{}` at {} from nonzero numbers \
                 (like 1 / ∞, or an underflow); 0 · ∞ may be any number (`1 / (1 / x)` at 0 has \
                 the slope 1): keep the computation away from infinite and vanishing \
                 intermediate values",
                met.at, met.operation, met.limit_operation, met.limit
            ),
            ReplayError::ZeroAtPoint(met) => write!(
                f,
                "{}: the derivative is indeterminate at these inputs: `{}` meets an infinity \
                 with a 0 that holds at this point only, made by `{}` at {} (a value of the \
                 differentiated inputs that is 0 here and not around); 0 · ∞ may be any number \
                 or none (`1 / (x * x)` has no derivative at 0, `x.cbrt().powi(3)` the slope \
                 1): differentiate at a nearby point, or simplify the expression",
                met.at, met.operation, met.limit_operation, met.limit
            ),
            ReplayError::NotANumber { at, operation } => write!(
                f,
                "{at}: the derivative is not a number at these inputs: `{operation}`, part of \
                 the derivative, made NaN from numbers (∞ − ∞, ∞ / ∞, 0 · ∞) where the \
                 function's value is not NaN; the derivative there needs a limit `f64` lost \
                 (an overflow, an underflow): rescale the inputs, or simplify the expression"
            ),
            ReplayError::NoDerivative { at, reason } => write!(
                f,
                "{at}: the derivative program has no derivative at these inputs: {reason}"
            ),
            ReplayError::TooManyPaths { max_paths, guard } => write!(
                f,
                "{guard}; the program already holds max_paths = {max_paths} paths (raise the cap \
                 with `Retracking::max_paths`, or write the decision with `irtrack::switch` or \
                 `irtrack::while_loop`)"
            ),
        }
    }
}

impl std::error::Error for ReplayError {}

/// The arguments of a program call: a tuple of values with snapshots, or values already.
pub trait Args {
    /// The arguments as values.
    fn into_values(self) -> Vec<Value>;

    /// The arguments as values, where `recorded[k]` is a value argument `k` must equal: an
    /// argument proved equal to it without a snapshot ([`Snapshot`]'s `same_as_recorded`) is
    /// that very value (a program's static weights are compared, not copied).
    ///
    /// [`Snapshot`]: crate::core::value::Snapshot
    #[doc(hidden)]
    fn into_values_like(self, recorded: &[Option<&Value>]) -> Vec<Value>
    where
        Self: Sized,
    {
        let _ = recorded;
        self.into_values()
    }
}

impl Args for Vec<Value> {
    fn into_values(self) -> Vec<Value> {
        self
    }
}

impl Args for &[Value] {
    fn into_values(self) -> Vec<Value> {
        self.to_vec()
    }
}

impl Args for () {
    fn into_values(self) -> Vec<Value> {
        Vec::new()
    }
}

macro_rules! args_tuple {
    ($(($($t:ident $i:tt),+)),* $(,)?) => {$(
        impl<$($t: crate::core::value::Snapshot),+> Args for ($($t,)+) {
            fn into_values(self) -> Vec<Value> {
                vec![$(self.$i.snapshot()),+]
            }
            fn into_values_like(self, recorded: &[Option<&Value>]) -> Vec<Value> {
                vec![$(match recorded.get($i).copied().flatten() {
                    Some(r) if self.$i.same_as_recorded(r) == Some(true) => r.clone(),
                    _ => self.$i.snapshot(),
                }),+]
            }
        }
    )*};
}
args_tuple!(
    (A 0),
    (A 0, B 1),
    (A 0, B 1, C 2),
    (A 0, B 1, C 2, D 3),
    (A 0, B 1, C 2, D 3, E 4),
    (A 0, B 1, C 2, D 3, E 4, F 5),
);

impl Program {
    /// The number of operations the program runs (dead ones removed).
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the program runs no operation: its result is a constant (or an input).
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Which form [`call`](Program::call) runs: `"f64 lanes"` (every value an `f64`, no type
    /// tags), `"scalars"` (typed scalar registers) or `"interpreted"` (values). For tests and
    /// benchmarks that must know the path they measure.
    #[doc(hidden)]
    pub fn compiled_form(&self) -> &'static str {
        match &self.fast {
            Some(f) if f.has_lanes() => "f64 lanes",
            Some(_) => "scalars",
            None => "interpreted",
        }
    }

    /// The number of guards it checks.
    pub fn guards(&self) -> usize {
        self.guards.len()
    }

    /// The function the trace recorded.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for Program {
    /// A listing of the program: inputs, operations in order with their guards, the output.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let src = |s: &Src| match s {
            Src::Input(k) => format!("%{}", k + 1),
            Src::Op(k) => format!("${}", k + 1),
            Src::Const(v) => format!("⟨{v}⟩"),
        };
        write!(f, "program {}(", self.name)?;
        for (k, input) in self.inputs.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            match input {
                InputSlot::Dynamic { type_name, .. } => write!(
                    f,
                    "%{}: {}",
                    k + 1,
                    crate::core::value::short_type_name(type_name)
                )?,
                InputSlot::Static(v) => write!(f, "%{} = {v} (static)", k + 1)?,
            }
        }
        f.write_str(")\n")?;
        for step in &self.steps {
            match *step {
                Step::Op(k) => {
                    let op = &self.ops[k];
                    let args: Vec<String> = op.args.iter().map(src).collect();
                    writeln!(
                        f,
                        "  ${} = {}({})\t# {}",
                        k + 1,
                        op.kind,
                        args.join(", "),
                        op.origin
                    )?;
                }
                Step::Guard(g) => {
                    let g = &self.guards[g];
                    writeln!(
                        f,
                        "  guard {} == {}\t# {}",
                        src(&g.condition),
                        g.expected,
                        g.origin
                    )?;
                }
            }
        }
        writeln!(f, "  return {}", src(&self.output))
    }
}

/// Whether node `id` is a method called on a named constant that holds state: a std type with
/// interior mutability (`SCALE.get()` on a `thread_local!` `Cell`, `COUNTER.load(..)` on a
/// `static` atomic, a `Mutex`, a `OnceLock`), whose value may change between runs, so the
/// call's recorded value is no constant, whatever its operands. A constant table
/// (`const DK: &[f64]`) or a value (`f64::consts::PI`) is not one.
///
/// Told by the receiver's type name: whether a type has interior mutability is not
/// observable in stable Rust (`Freeze` is unstable), and a name can only make this refuse. A
/// user type that wraps such a cell is not seen (docs/replay.md).
pub(crate) fn reads_state(store: &Store, id: NodeId) -> bool {
    if store.node(id).kind != NodeKind::PrimitiveCall {
        return false;
    }
    // A method's receiver, or a path call's first argument (`AtomicU64::load(&C, ..)`).
    if !store
        .entry_of(id)
        .is_some_and(|(_, e)| matches!(e.kind, EntryKind::MethodCall | EntryKind::Call))
    {
        return false;
    }
    // Through fields, elements and borrows (`CFG.scale.load(..)`, `ARR[0].load(..)`) to a named
    // constant, any of them of a state type.
    let mut r = store.ref_at(id, 0);
    let mut state = false;
    for _ in 0..16 {
        if r.is_none() {
            return false;
        }
        let v = store.value_cow(r);
        state |= (v.is_text() || v.is_opaque()) && is_state_type(v.type_name());
        match store.node(r).kind {
            NodeKind::Constant => return state,
            NodeKind::Special => {}
            NodeKind::PrimitiveCall
                if store.entry_of(r).is_some_and(|(ir, _)| {
                    ir.builtin(store.node(r).entry as usize)
                        == Some(crate::core::op::Builtin::Index)
                }) => {}
            _ => return false,
        }
        r = store.ref_at(r, 0);
    }
    false
}

/// Whether a type (by its name) is a std type with interior mutability.
fn is_state_type(name: &str) -> bool {
    name.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| {
            matches!(
                word,
                "Cell"
                    | "RefCell"
                    | "UnsafeCell"
                    | "OnceCell"
                    | "LazyCell"
                    | "LocalKey"
                    | "Mutex"
                    | "RwLock"
                    | "OnceLock"
                    | "LazyLock"
            ) || word.starts_with("Atomic")
        })
}
