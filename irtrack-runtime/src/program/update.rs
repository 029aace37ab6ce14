//! Incremental update: change a root argument, a checkpoint or a primitive node's value in a
//! recorded trace and get the trace a fresh recording with that change would give, recomputing
//! only what depends on the change (IRTracker's "update subgraphs without full re-evaluation").
//!
//! [`Updatable::track`] records a trace and keeps the function and its arguments. Each
//! [`update`](Updatable::update) applies a list of [`Change`]s:
//!
//! - **In place**, when every node that depends on a change can be run again
//!   ([`NodeRef::operation`](crate::view::trace::NodeRef::operation)) and no branch condition
//!   changes: the nodes after the changes are visited in recording order, and each one whose
//!   operands changed is recomputed, through block arguments, call arguments and returns, across
//!   nested calls. A node whose new value equals its old one stops the propagation there.
//! - **By running the function again**, when a branch condition flips (the path changes), or
//!   when a node that depends on a change cannot be run again (an untracked call, a write into
//!   memory, a value captured by a closure, a computation that fails on the new values). The
//!   run is recorded under a context that gives every changed node its new value; what else it
//!   keeps of the old trace is the [`Keep`] policy's choice.
//!
//! Either way the result is the trace `track` gives on the new arguments under a context that
//! replaces the result of each node changed so far (a *do-intervention*: later nodes see the
//! new value, the node's operands no longer decide it). The [`Update`] says how many nodes were
//! recomputed, which changed, and whether, and why, the function ran again.
//! [`undo`](Updatable::undo) restores the state before the last update: what a Metropolis-Hastings
//! step needs when it rejects a proposal.
//!
//! ```
//! use irtrack::program::update::{Change, Updatable};
//! use irtrack::{tracked, track};
//!
//! fn draw(i: usize) -> f64 {
//!     (i as f64 * 0.618).fract()
//! }
//!
//! /// A score: the sum of one term per draw.
//! #[tracked]
//! fn score(n: usize, scale: f64) -> f64 {
//!     let mut total = 0.0;
//!     for i in 0..n {
//!         let x = draw(i);
//!         total += -(x * scale).powi(2);
//!     }
//!     total
//! }
//!
//! let mut model = Updatable::track(score, (3, 2.0));
//! // Propose another value for the second draw: only what depends on it is recomputed.
//! let second = model.trace().nodes().filter(|n| n.function_name() == Some("draw")).nth(1).unwrap().id();
//! let update = model.update([Change::node(second, 0.5)]).unwrap();
//! assert!(update.rerun().is_none());
//! let proposed = *model.trace().root().value::<f64>().unwrap();
//! let expected: f64 = [draw(0), 0.5, draw(2)].iter().map(|x| -(x * 2.0f64).powi(2)).sum();
//! assert_eq!(proposed, expected);
//! // Reject it: the trace is what it was.
//! model.undo().unwrap();
//! assert_eq!(model.trace().root().to_string(), track(score, (3, 2.0)).root().to_string());
//! // A new loop bound changes the path: the function runs again.
//! let update = model.update([Change::argument(0, 4usize)]).unwrap();
//! assert!(update.rerun().is_some());
//! assert_eq!(model.trace().root().to_string(), track(score, (4, 2.0)).root().to_string());
//! ```

use crate::core::eval::{eval_builtin, FromValue};
use crate::core::ids::NodeId;
use crate::core::ir::{EntryKind, FnIr, Location, Operand};
use crate::core::literal;
use crate::core::op::{BinOp, Builtin, FloatFn};
use crate::core::tape::{Callee, NodeKind, Slot, NO_ENTRY};
use crate::core::value::{Form, Repr, Scalar, Snapshot, Value};
use crate::record::context::{Action, Call, CallSite, Context};
use crate::record::session::{track, track_with, Callable};
use crate::view::operation::{run_operation, Operation, Reason, ReexecError};
use crate::view::trace::{NodeRef, Trace};
use std::any::TypeId;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Arc;

/// One change an [`update`](Updatable::update) applies.
#[derive(Clone, Debug)]
pub enum Change {
    /// Root argument `index` (from 0) takes `value`, which must be of the argument's type.
    Argument {
        /// The argument, from 0.
        index: usize,
        /// Its new value.
        value: Value,
    },
    /// The primitive call recorded as `node` gives `value` instead of what it computed: a
    /// do-intervention, kept by later updates, also when the function runs again (the node is
    /// found again by its address: the nested calls it is in, its location, and how many
    /// calls at that location its function made before it).
    Node {
        /// The node, in the trace as it is now.
        node: NodeId,
        /// Its new value, of the recorded value's type.
        value: Value,
    },
    /// The `index`-th (from 0, in recording order) [`checkpoint`](super::checkpoint()) named
    /// `key` in `collection` passes `value` on instead of its input: a node change on that
    /// checkpoint's call.
    Checkpoint {
        /// The collection.
        collection: String,
        /// The checkpoint's name.
        key: String,
        /// Which of the checkpoints of that name, from 0.
        index: usize,
        /// The value it passes on.
        value: Value,
    },
}

impl Change {
    /// Root argument `index` (from 0) takes `value`.
    ///
    /// ```
    /// use irtrack::program::update::{Change, Updatable};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 { x * 2.0 }
    ///
    /// let mut m = Updatable::track(f, (1.0,));
    /// m.update([Change::argument(0, 4.0)]).unwrap();
    /// assert_eq!(m.trace().root().value::<f64>(), Some(&8.0));
    /// ```
    pub fn argument(index: usize, value: impl Snapshot) -> Change {
        Change::Argument {
            index,
            value: value.snapshot(),
        }
    }

    /// The primitive call recorded as `node` gives `value` (see [`Change::Node`]).
    ///
    /// ```
    /// use irtrack::program::update::{Change, Updatable};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 { x.sin() + 1.0 }
    ///
    /// let mut m = Updatable::track(f, (1.0,));
    /// let sin = m.trace().root().child(2).unwrap().id();
    /// m.update([Change::node(sin, 0.5)]).unwrap();
    /// assert_eq!(m.trace().root().value::<f64>(), Some(&1.5));
    /// ```
    pub fn node(node: NodeId, value: impl Snapshot) -> Change {
        Change::Node {
            node,
            value: value.snapshot(),
        }
    }

    /// The `index`-th checkpoint named `key` in `collection` passes `value` on (see
    /// [`Change::Checkpoint`]).
    ///
    /// ```
    /// use irtrack::program::checkpoint;
    /// use irtrack::program::update::{Change, Updatable};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 {
    ///     let y = checkpoint(x * 2.0, "doubled", "debug");
    ///     y + 1.0
    /// }
    ///
    /// let mut m = Updatable::track(f, (1.0,));
    /// m.update([Change::checkpoint("debug", "doubled", 0, 10.0)]).unwrap();
    /// assert_eq!(m.trace().root().value::<f64>(), Some(&11.0));
    /// ```
    pub fn checkpoint(collection: &str, key: &str, index: usize, value: impl Snapshot) -> Change {
        Change::Checkpoint {
            collection: collection.to_string(),
            key: key.to_string(),
            index,
            value: value.snapshot(),
        }
    }
}

/// Which recorded results a run of the function again keeps (an update in place keeps every
/// value that does not depend on a change, whatever the policy).
///
/// A call is matched to a recorded node by its address: the nested calls it is in (each by its
/// location in its caller and how many calls at that location the caller made before it), its
/// location, and how many calls at that location its function made before it.
#[derive(Clone, Default)]
pub enum Keep {
    /// Nothing but the changed nodes: the run is a fresh recording with the changes, so the
    /// updated trace is exactly what [`track`] gives under a context replacing
    /// the changed calls' results. A call that reads state the trace does not show (a
    /// thread-local random generator) gives a new value when the function runs again.
    #[default]
    Nothing,
    /// Every primitive call at a recorded address whose arguments are the recorded ones keeps
    /// its recorded result. An argument must be provably the recorded value, bit for bit (a
    /// scalar, the floats of a vector or array, a string, std containers of them); one
    /// irtrack cannot compare (a user's type, a value known only by its `Debug` text or its
    /// type) is not unchanged, and the call runs again — except a method's receiver, which
    /// counts as unchanged when it has the recorded type, whatever its state. That is the
    /// "untouched random draws keep their values" policy of probabilistic programs: a draw
    /// from a generator (`rng.random()`) keeps its value when the path before it changed,
    /// where a fresh run would draw another number from the generator's state. (So a method
    /// that reads numbers irtrack cannot see in its receiver keeps its old result too.) A
    /// generator passed as an argument (`gauss(&mut rng)`) is not kept: irtrack cannot tell
    /// it from any other value it cannot compare.
    Unchanged,
    /// Every primitive call at a recorded address for which the predicate holds keeps its
    /// recorded result, whatever its arguments: the random choices of a model, which a
    /// single-site Metropolis-Hastings step keeps (and rescores) when their parameters change.
    /// In place, such a call that depends on a change keeps its value too.
    Calls(Arc<dyn Fn(&Call<'_>) -> bool + Send + Sync>),
}

impl Keep {
    /// [`Keep::Calls`] with `predicate`.
    ///
    /// ```
    /// use irtrack::program::update::{Change, Keep, Updatable};
    /// use irtrack::tracked;
    ///
    /// fn noise(scale: f64) -> f64 { scale * 0.25 }
    ///
    /// #[tracked]
    /// fn model(scale: f64) -> f64 {
    ///     let e = noise(scale);
    ///     e + scale
    /// }
    ///
    /// let mut m = Updatable::track(model, (1.0,)).keep(Keep::calls(|c| c.name == "noise"));
    /// m.update([Change::argument(0, 2.0)]).unwrap();
    /// // `noise` kept its recorded 0.25.
    /// assert_eq!(m.trace().root().value::<f64>(), Some(&2.25));
    /// ```
    pub fn calls(predicate: impl Fn(&Call<'_>) -> bool + Send + Sync + 'static) -> Keep {
        Keep::Calls(Arc::new(predicate))
    }
}

impl fmt::Debug for Keep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Keep::Nothing => f.write_str("Nothing"),
            Keep::Unchanged => f.write_str("Unchanged"),
            Keep::Calls(_) => f.write_str("Calls(..)"),
        }
    }
}

/// Why an update ran the function again instead of updating in place.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RerunCause {
    /// The condition of the branch `node` changed: the path changes there.
    Branch {
        /// The branch.
        node: NodeId,
        /// Its function and location.
        at: String,
    },
    /// A boolean nothing refers to changed: it may have decided a branch the trace does not
    /// link to it (a `match` arm's guard).
    Guard {
        /// The boolean.
        node: NodeId,
        /// Its function and location.
        at: String,
    },
    /// A node that depends on a change cannot be run again.
    NotReexecutable(ReexecError),
    /// A node that depends on a change failed on the new values (an overflow, an index out of
    /// bounds, a `?` on `None`): the function decides what happens.
    Eval(ReexecError),
    /// A value passed on unchanged (a block, call or return argument) is not the value its
    /// source recorded: it was changed in place in between, which the trace does not show.
    Stale {
        /// The node that received the value.
        node: NodeId,
        /// Its function and location.
        at: String,
    },
    /// A closure's captured variable was recorded after a change: the trace does not say
    /// whether it depends on it.
    Capture {
        /// The captured variable's node.
        node: NodeId,
    },
    /// A call recorded after a change takes a value the trace did not record — a closure
    /// (`map(|k| x)`), which may capture a changed variable — so the trace does not say
    /// whether its value depends on the change.
    Unrecorded {
        /// The call.
        node: NodeId,
    },
    /// A call ended without a return node (a `return` inside a macro), so its value is not
    /// connected to the nodes that depend on a change.
    NoReturn {
        /// The call.
        node: NodeId,
    },
    /// The root is a primitive (the function is not `#[tracked]`): there is nothing to update
    /// in place.
    Primitive,
    /// The trace reads state (a method on a `static` or `thread_local!` with interior
    /// mutability: `SCALE.get()`), which may have changed since it was recorded, wherever it
    /// is read: only running the function again reads it anew.
    State {
        /// The read.
        node: NodeId,
    },
}

impl fmt::Display for RerunCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RerunCause::Branch { node, at } => {
                write!(f, "the condition of the branch {node} in {at} changed")
            }
            RerunCause::Guard { node, at } => write!(
                f,
                "the boolean {node} in {at}, which nothing refers to (a `match` guard), changed"
            ),
            RerunCause::NotReexecutable(e) => write!(f, "{e}"),
            RerunCause::Eval(e) => write!(f, "{e}"),
            RerunCause::Stale { node, at } => write!(
                f,
                "{node} in {at} received a value that was changed in place after it was recorded"
            ),
            RerunCause::Capture { node } => write!(
                f,
                "{node} is a closure's captured variable recorded after a change"
            ),
            RerunCause::Unrecorded { node } => write!(
                f,
                "the call {node}, recorded after a change, takes a closure or another value the \
                 trace did not record, which may depend on the change"
            ),
            RerunCause::NoReturn { node } => write!(f, "the call {node} has no return node"),
            RerunCause::Primitive => f.write_str("the root is not a tracked function"),
            RerunCause::State { node } => write!(
                f,
                "the call {node} reads a `static` or `thread_local!` with interior \
                 mutability, which may have changed since"
            ),
        }
    }
}

/// What an [`update`](Updatable::update) did.
#[derive(Clone, Debug)]
pub struct Update {
    recomputed: usize,
    rerun: Option<RerunCause>,
    changed: Vec<NodeId>,
}

impl Update {
    /// How many nodes were computed again: in place, the nodes visited because an operand
    /// changed (operations, passed values, returns); after a run of the function, every node
    /// of the new trace.
    ///
    /// ```
    /// use irtrack::program::update::{Change, Updatable};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn f(x: f64, y: f64) -> f64 { x.sin() + y.cos() }
    ///
    /// let mut m = Updatable::track(f, (1.0, 2.0));
    /// // `y`, `cos` and `+` are recomputed, then the return and the root's value.
    /// assert_eq!(m.update([Change::argument(1, 0.5)]).unwrap().recomputed(), 4);
    /// ```
    pub fn recomputed(&self) -> usize {
        self.recomputed
    }

    /// Why the function ran again, if it did.
    ///
    /// ```
    /// use irtrack::program::update::{Change, RerunCause, Updatable};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn relu(x: f64) -> f64 { if x > 0.0 { x } else { 0.0 } }
    ///
    /// let mut m = Updatable::track(relu, (1.0,));
    /// assert!(m.update([Change::argument(0, 2.0)]).unwrap().rerun().is_none());
    /// let u = m.update([Change::argument(0, -2.0)]).unwrap();
    /// assert!(matches!(u.rerun(), Some(RerunCause::Branch { .. })));
    /// ```
    pub fn rerun(&self) -> Option<&RerunCause> {
        self.rerun.as_ref()
    }

    /// The nodes whose value changed, in recording order, after an update in place (the
    /// changed nodes themselves included); `None` after a run of the function, whose trace's
    /// node ids are new. A score kept outside the trace is updated from these.
    ///
    /// ```
    /// use irtrack::program::update::{Change, Updatable};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn f(x: f64, y: f64) -> f64 { x * y }
    ///
    /// let mut m = Updatable::track(f, (1.0, 2.0));
    /// let u = m.update([Change::argument(0, 3.0)]).unwrap();
    /// let changed: Vec<String> = u.changed().unwrap().iter()
    ///     .map(|&id| m.trace().node(id).unwrap().value_text()).collect();
    /// assert_eq!(changed, ["6.0", "3.0", "6.0", "6.0"]);
    /// ```
    pub fn changed(&self) -> Option<&[NodeId]> {
        self.rerun.is_none().then_some(self.changed.as_slice())
    }
}

/// Why an update could not be applied; the trace is left as it was.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum UpdateError {
    /// A change names something the trace does not have: an argument past the last, a node id
    /// of another trace, a checkpoint that did not run that many times.
    NoSuchTarget(String),
    /// A change's value is not of the type recorded there.
    Type {
        /// What the change is to.
        target: String,
        /// The recorded type.
        expected: String,
        /// The type given.
        got: String,
    },
    /// A node change names a node whose value a context cannot give: not a call (an argument,
    /// a branch, a literal, a cast), a call of a tracked function (its body decides its value),
    /// or a call whose result type irtrack cannot replace.
    NotIntervenable {
        /// The node.
        node: NodeId,
        /// What it is, and what to change instead.
        reason: String,
    },
    /// The function panicked when it ran again on the new values (as a fresh run would).
    Panicked(String),
    /// A changed node was not found again, at its address, with its new value after the
    /// function ran again: the run took the change elsewhere. A bug in irtrack; please report
    /// it with the function.
    Unmatched(String),
    /// [`undo`](Updatable::undo) with no update to undo.
    NothingToUndo,
}

impl fmt::Display for UpdateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpdateError::NoSuchTarget(what) => write!(f, "no such {what} in the trace"),
            UpdateError::Type {
                target,
                expected,
                got,
            } => write!(f, "{target} is a `{expected}`; the change gives a `{got}`"),
            UpdateError::NotIntervenable { node, reason } => {
                write!(f, "{node} cannot be given a value: {reason}")
            }
            UpdateError::Panicked(m) => {
                write!(f, "the function panicked when run on the new values: {m}")
            }
            UpdateError::Unmatched(m) => write!(
                f,
                "after running the function again, {m} (a bug in irtrack: please report it)"
            ),
            UpdateError::NothingToUndo => f.write_str("there is no update to undo"),
        }
    }
}

impl std::error::Error for UpdateError {}

/// The arguments of a function an [`Updatable`] keeps: a tuple (up to 8) of values it can
/// rebuild from their recorded [`Value`]s to run the function again — scalars, `String`,
/// `Vec<f64>`. A function taking other arguments (an `&mut` random generator) is wrapped in a
/// tracked function that builds them from such values (a seed).
pub trait Arguments: Sized {
    /// The arguments as values.
    fn to_values(&self) -> Vec<Value>;
    /// The arguments rebuilt from values; `Err(k)` when value `k` is not of argument `k`'s type
    /// (or there are not as many values as arguments: `Err` of the first missing one).
    fn from_values(values: &[Value]) -> Result<Self, usize>;
}

impl Arguments for () {
    fn to_values(&self) -> Vec<Value> {
        Vec::new()
    }
    fn from_values(values: &[Value]) -> Result<(), usize> {
        if values.is_empty() {
            Ok(())
        } else {
            Err(0)
        }
    }
}

macro_rules! arguments {
    ($(($($t:ident $i:tt),+)),* $(,)?) => {$(
        impl<$($t: FromValue + Snapshot),+> Arguments for ($($t,)+) {
            fn to_values(&self) -> Vec<Value> {
                vec![$(self.$i.snapshot()),+]
            }
            fn from_values(values: &[Value]) -> Result<Self, usize> {
                if values.len() != [$($i),+].len() {
                    return Err(values.len().min([$($i),+].len()));
                }
                Ok(($($t::from_value(&values[$i]).ok_or($i as usize)?,)+))
            }
        }
    )*};
}
arguments!(
    (A 0),
    (A 0, B 1),
    (A 0, B 1, C 2),
    (A 0, B 1, C 2, D 3),
    (A 0, B 1, C 2, D 3, E 4),
    (A 0, B 1, C 2, D 3, E 4, F 5),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7),
);

/// A recorded trace that can be updated: the trace, the function that recorded it and its
/// arguments (see the [module docs](self)).
pub struct Updatable<F, A> {
    f: F,
    args: Vec<Value>,
    trace: Trace,
    keep: Keep,
    /// The changed nodes of the trace (do-interventions), by id.
    fixed: HashMap<NodeId, Value>,
    /// Changed nodes whose address the trace does not reach (the path changed), kept for a
    /// later run that reaches it again.
    pending: HashMap<Addr, Value>,
    frames: Frames,
    caches: Caches,
    undo: Option<Undo>,
    _args: PhantomData<fn(A)>,
}

/// What [`Updatable::undo`] restores.
enum Undo {
    /// Values written in place, in the order written, and the interventions they replaced.
    /// Scalars apart, so that a long update neither drops nor frees its old values one by one
    /// (the next update reuses the buffer): a scalar never shares a slot with a boxed value,
    /// so the two are restored independently.
    InPlace {
        scalars: Vec<(NodeId, Scalar, Form)>,
        boxed: Vec<(NodeId, Value)>,
        args: Vec<Value>,
        fixed: Vec<(NodeId, Option<Value>)>,
    },
    /// The whole state before the function ran again.
    Rerun(Box<Before>),
}

struct Before {
    trace: Trace,
    args: Vec<Value>,
    fixed: HashMap<NodeId, Value>,
    pending: HashMap<Addr, Value>,
}

impl<F, A> fmt::Debug for Updatable<F, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Updatable")
            .field("args", &self.args)
            .field("keep", &self.keep)
            .field("changed_nodes", &(self.fixed.len() + self.pending.len()))
            .finish_non_exhaustive()
    }
}

impl<F, A> Updatable<F, A>
where
    F: Callable<A> + Clone,
    A: Arguments,
{
    /// Calls `f` with `args`, records its trace, and keeps `f` and the arguments' values to
    /// update it. A panic in `f` propagates, as in [`track`].
    ///
    /// ```
    /// use irtrack::program::update::Updatable;
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 { x.sin() }
    ///
    /// let m = Updatable::track(f, (1.0,));
    /// assert_eq!(m.trace().root().value::<f64>(), Some(&1f64.sin()));
    /// assert_eq!(m.arguments()[0].as_f64(), Some(1.0));
    /// ```
    pub fn track(f: F, args: A) -> Updatable<F, A> {
        let values = args.to_values();
        let trace = track(f.clone(), args);
        Updatable {
            f,
            args: values,
            trace,
            keep: Keep::Nothing,
            fixed: HashMap::new(),
            pending: HashMap::new(),
            frames: Frames::default(),
            caches: Caches::default(),
            undo: None,
            _args: PhantomData,
        }
    }

    /// Sets what a run of the function again keeps of the old trace (see [`Keep`]; the
    /// default keeps nothing but the changed nodes).
    ///
    /// ```
    /// use irtrack::program::update::{Keep, Updatable};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 { x.sin() }
    ///
    /// let m = Updatable::track(f, (1.0,)).keep(Keep::Unchanged);
    /// assert!(matches!(m.policy(), Keep::Unchanged));
    /// ```
    pub fn keep(mut self, keep: Keep) -> Self {
        self.keep = keep;
        self
    }

    /// The [`Keep`] policy in force.
    ///
    /// ```
    /// use irtrack::program::update::{Keep, Updatable};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 { x.sin() }
    ///
    /// assert!(matches!(Updatable::track(f, (1.0,)).policy(), Keep::Nothing));
    /// ```
    pub fn policy(&self) -> &Keep {
        &self.keep
    }

    /// The trace as updated so far.
    ///
    /// ```
    /// use irtrack::program::update::Updatable;
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 { x * 2.0 }
    ///
    /// assert_eq!(Updatable::track(f, (1.0,)).trace().len(), 4);
    /// ```
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// The root arguments' values, as changed so far.
    ///
    /// ```
    /// use irtrack::program::update::{Change, Updatable};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn f(x: f64, n: i32) -> f64 { x * n as f64 }
    ///
    /// let mut m = Updatable::track(f, (1.0, 2));
    /// m.update([Change::argument(1, 5)]).unwrap();
    /// assert_eq!(m.arguments()[1].downcast_ref::<i32>(), Some(&5));
    /// ```
    pub fn arguments(&self) -> &[Value] {
        &self.args
    }

    /// The trace, giving up the ability to update it.
    ///
    /// ```
    /// use irtrack::program::update::Updatable;
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 { x * 2.0 }
    ///
    /// let trace = Updatable::track(f, (1.0,)).into_trace();
    /// assert_eq!(trace.root().value::<f64>(), Some(&2.0));
    /// ```
    pub fn into_trace(self) -> Trace {
        self.trace
    }

    /// Applies `changes` (in order: a later change of the same target wins) and returns what
    /// the update did. The trace is then the one [`track`] records on the
    /// changed arguments under a context that replaces the result of every node changed so
    /// far (and, when the function ran again, that keeps what the [`Keep`] policy keeps).
    ///
    /// ```
    /// use irtrack::program::update::{Change, Updatable};
    /// use irtrack::{track, tracked};
    ///
    /// #[tracked]
    /// fn h(x: f64, n: i32) -> f64 {
    ///     let mut r = 0.0;
    ///     let mut i = 0;
    ///     while i < n {
    ///         r += x.powi(i);
    ///         i += 1;
    ///     }
    ///     r
    /// }
    ///
    /// let mut m = Updatable::track(h, (2.0, 3));
    /// let u = m.update([Change::argument(0, 0.5)]).unwrap();
    /// assert!(u.rerun().is_none() && u.recomputed() < m.trace().len());
    /// assert_eq!(m.trace().root().to_string(), track(h, (0.5, 3)).root().to_string());
    /// ```
    ///
    /// # Errors
    /// [`UpdateError::NoSuchTarget`], [`UpdateError::Type`] or
    /// [`UpdateError::NotIntervenable`] for a change that cannot apply;
    /// [`UpdateError::Panicked`] when the function, run again, panicked. The trace is then
    /// unchanged.
    pub fn update(
        &mut self,
        changes: impl IntoIterator<Item = Change>,
    ) -> Result<Update, UpdateError> {
        let mut args = self.args.clone();
        let mut nodes: Vec<(NodeId, Value)> = Vec::new();
        let mut args_changed = Vec::new();
        for change in changes {
            match change {
                Change::Argument { index, value } => {
                    let Some(old) = args.get(index) else {
                        return Err(UpdateError::NoSuchTarget(format!(
                            "argument {} (the function takes {})",
                            index + 1,
                            args.len()
                        )));
                    };
                    if old.type_id() != value.type_id() || value.type_id().is_none() {
                        return Err(UpdateError::Type {
                            target: format!("argument {}", index + 1),
                            expected: crate::core::value::short_type_name(old.type_name()),
                            got: crate::core::value::short_type_name(value.type_name()),
                        });
                    }
                    args[index] = value;
                    args_changed.retain(|&k| k != index);
                    args_changed.push(index);
                }
                Change::Node { node, value } => {
                    self.check_intervenable(node, &value)?;
                    nodes.retain(|(n, _)| *n != node);
                    nodes.push((node, value));
                }
                Change::Checkpoint {
                    collection,
                    key,
                    index,
                    value,
                } => {
                    let node = find_checkpoint(&self.trace, &collection, &key, index)?;
                    self.check_intervenable(node, &value)?;
                    nodes.retain(|(n, _)| *n != node);
                    nodes.push((node, value));
                }
            }
        }
        if let Err(k) = A::from_values(&args) {
            return Err(UpdateError::Type {
                target: format!("argument {}", k + 1),
                expected: std::any::type_name::<A>().to_string(),
                got: args
                    .get(k)
                    .map_or("nothing".into(), |v| v.type_name().to_string()),
            });
        }
        let cause = if self.trace.root().kind() == NodeKind::NestedCall {
            let mut seeds = Vec::with_capacity(args_changed.len() + nodes.len());
            for &k in &args_changed {
                match root_parameter(&self.trace, k) {
                    Some(p) => seeds.push((p, args[k].clone())),
                    None => {
                        seeds.clear();
                        break;
                    }
                }
            }
            if seeds.len() == args_changed.len() {
                seeds.extend(nodes.iter().cloned());
                // A change that cannot be made in place runs the function again, which must
                // find the injected checkpoints as a run of the function would.
                match super::checkpoint::attempt(|| self.in_place(&seeds, &nodes)) {
                    Ok(update) => {
                        if let Some(Undo::InPlace { args: a, .. }) = &mut self.undo {
                            *a = std::mem::replace(&mut self.args, args);
                        }
                        return Ok(update);
                    }
                    Err(cause) => cause,
                }
            } else {
                RerunCause::Primitive
            }
        } else {
            RerunCause::Primitive
        };
        self.run_again(args, nodes, cause)
    }

    /// Restores the trace, arguments and changed nodes as they were before the last update
    /// (once: a second call without an update in between fails).
    ///
    /// ```
    /// use irtrack::program::update::{Change, Updatable};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 { if x > 0.0 { x.sqrt() } else { 0.0 } }
    ///
    /// let mut m = Updatable::track(f, (4.0,));
    /// let before = m.trace().root().to_string();
    /// m.update([Change::argument(0, -1.0)]).unwrap();
    /// m.undo().unwrap();
    /// assert_eq!(m.trace().root().to_string(), before);
    /// assert!(m.undo().is_err());
    /// ```
    ///
    /// # Errors
    /// [`UpdateError::NothingToUndo`] when no update was made since the last undo.
    pub fn undo(&mut self) -> Result<(), UpdateError> {
        match self.undo.take() {
            None => Err(UpdateError::NothingToUndo),
            Some(Undo::InPlace {
                scalars,
                boxed,
                args,
                fixed,
            }) => {
                for &(id, s, form) in scalars.iter().rev() {
                    self.trace.store.set_value(id, Value(Repr::Scalar(s, form)));
                }
                for (id, old) in boxed.into_iter().rev() {
                    self.trace.store.set_value(id, old);
                }
                for (id, old) in fixed.into_iter().rev() {
                    match old {
                        Some(v) => self.fixed.insert(id, v),
                        None => {
                            self.trace.store.set_replaced(id, false);
                            self.fixed.remove(&id)
                        }
                    };
                }
                self.args = args;
                Ok(())
            }
            Some(Undo::Rerun(before)) => {
                let Before {
                    trace,
                    args,
                    fixed,
                    pending,
                } = *before;
                self.trace = trace;
                self.args = args;
                self.fixed = fixed;
                self.pending = pending;
                self.caches = Caches::default();
                Ok(())
            }
        }
    }

    /// Checks that node `id` can be given `value` by a context (a call a tracked caller
    /// announces, whose result type the recorder can replace) and that `value` is of its type.
    fn check_intervenable(&self, id: NodeId, value: &Value) -> Result<(), UpdateError> {
        let Some(n) = self.trace.node(id) else {
            return Err(UpdateError::NoSuchTarget(format!("node {id}")));
        };
        let refuse = |reason: &str| {
            Err(UpdateError::NotIntervenable {
                node: id,
                reason: reason.to_string(),
            })
        };
        let is_call = n.entry().is_some_and(|e| {
            matches!(
                e.kind,
                EntryKind::Call | EntryKind::MethodCall | EntryKind::Operator
            )
        });
        match n.kind() {
            NodeKind::PrimitiveCall if is_call => {}
            NodeKind::NestedCall => {
                return refuse(
                    "it is a call of a tracked function, whose body computes its value; change \
                     a node of its body, or an argument",
                )
            }
            NodeKind::PrimitiveCall => return refuse("it is the root; change an argument instead"),
            _ => {
                return refuse(
                    "only a call's result can be replaced (not an argument, a literal, a \
                     branch, a cast or a field); change the call that computes it",
                )
            }
        }
        let recorded = n.raw_value();
        if !replaceable(&recorded) {
            return refuse(&format!(
                "a context can replace only results that are scalars, `String`s, vectors of \
                 scalars or `Option`s of floats, not a `{}`",
                n.type_name()
            ));
        }
        if recorded.type_id() != value.type_id() {
            return Err(UpdateError::Type {
                target: format!("node {id}"),
                expected: n.type_name(),
                got: crate::core::value::short_type_name(value.type_name()),
            });
        }
        Ok(())
    }

    /// Phase one visits the forward set without writing (a node's operation is identified
    /// on its recorded operands, which must still be there); phase two writes.
    fn in_place(
        &mut self,
        seeds: &[(NodeId, Value)],
        nodes: &[(NodeId, Value)],
    ) -> Result<Update, RerunCause> {
        let trace = &self.trace;
        self.caches.prepare(trace);
        if let Some(node) = self.caches.state_read {
            return Err(RerunCause::State { node });
        }
        if let Some(lowest) = seeds.iter().map(|(id, _)| id.0).min() {
            if let Some(c) = self.caches.captured_after(lowest) {
                return Err(RerunCause::Capture { node: c });
            }
            if let Some(c) = self.caches.last_unrecorded.filter(|c| c.0 > lowest) {
                return Err(RerunCause::Unrecorded { node: c });
            }
            if let Some(c) = self.caches.last_held.filter(|c| c.0 > lowest) {
                return Err(RerunCause::Unrecorded { node: c });
            }
            if let Some(e) = self.caches.error {
                return Err(RerunCause::NoReturn { node: e });
            }
        }
        let fixed = &self.fixed;
        let any_fixed = !fixed.is_empty() || !nodes.is_empty();
        let is_fixed = |id: NodeId| {
            any_fixed && (fixed.contains_key(&id) || nodes.iter().any(|(n, _)| *n == id))
        };
        // The buffer of the last walk: a large update would otherwise grow a new one each time.
        let side = std::mem::take(&mut self.caches.side);
        let mut walk = Walk {
            trace,
            caches: &mut self.caches,
            keep: &self.keep,
            side,
            recomputed: 0,
            scratch: Vec::new(),
            may_keep: any_fixed || matches!(self.keep, Keep::Calls(_)),
        };
        let result = walk.run(seeds, &is_fixed);
        let Walk {
            mut side,
            recomputed,
            ..
        } = walk;
        self.caches.clear_marks(&side);
        if let Err(cause) = result {
            side.clear();
            self.caches.side = side;
            return Err(cause);
        }
        let (mut scalars, mut boxed) = match self.undo.take() {
            Some(Undo::InPlace {
                mut scalars,
                mut boxed,
                ..
            }) => {
                scalars.clear();
                boxed.clear();
                (scalars, boxed)
            }
            _ => (Vec::with_capacity(side.len()), Vec::new()),
        };
        let mut changed = Vec::with_capacity(side.len());
        // In the order found, mostly the recording order: undo writes back in reverse order,
        // which restores a slot shared by a block argument and its source whatever the order
        // (sorting the values instead cost as much as the writes on long updates).
        let mut side = side;
        for (id, v) in side.drain(..) {
            match self.trace.store.set_value(id, v) {
                Value(Repr::Scalar(s, form)) => scalars.push((id, s, form)),
                old => boxed.push((id, old)),
            }
            changed.push(id);
        }
        self.caches.side = side;
        if changed.windows(2).any(|w| w[0].0 > w[1].0) {
            changed.sort_unstable_by_key(|id| id.0);
        }
        let mut undo_fixed = Vec::with_capacity(nodes.len());
        for (id, v) in nodes {
            undo_fixed.push((*id, self.fixed.insert(*id, v.clone())));
            // A do-intervention replaces the call's result, as a context's `Action::Replace`
            // (which a run of the function again uses): what reads the trace must know it
            // (a custom rule of an enclosing call describes code whose result this is not).
            self.trace.store.set_replaced(*id, true);
        }
        self.undo = Some(Undo::InPlace {
            scalars,
            boxed,
            args: Vec::new(),
            fixed: undo_fixed,
        });
        Ok(Update {
            recomputed,
            rerun: None,
            changed,
        })
    }

    /// Runs the function again on `args` under a context giving every changed node its value
    /// (and keeping what the policy keeps), then finds the changed nodes in the new trace.
    fn run_again(
        &mut self,
        args: Vec<Value>,
        nodes: Vec<(NodeId, Value)>,
        cause: RerunCause,
    ) -> Result<Update, UpdateError> {
        let mut replace = self.pending.clone();
        let keeps = !matches!(self.keep, Keep::Nothing);
        let mut kept = HashMap::new();
        if !self.fixed.is_empty() || !nodes.is_empty() || keeps {
            let addresses = addresses(&self.trace, &mut self.frames);
            for (id, v) in self.fixed.iter().chain(nodes.iter().map(|(n, v)| (n, v))) {
                match addresses.get(id) {
                    Some(a) => {
                        replace.insert(*a, v.clone());
                    }
                    None => {
                        return Err(UpdateError::Unmatched(format!(
                            "the changed node {id} has no address"
                        )))
                    }
                }
            }
            if keeps {
                for (id, a) in &addresses {
                    let n = NodeRef {
                        trace: &self.trace,
                        id: *id,
                    };
                    let arguments = match self.keep {
                        Keep::Unchanged => Some((
                            recorded_call_arguments(n),
                            n.entry().is_some_and(|e| e.kind == EntryKind::MethodCall),
                        )),
                        _ => None,
                    };
                    kept.insert(*a, (n.raw_value(), arguments));
                }
            }
        }
        let values = match A::from_values(&args) {
            Ok(v) => v,
            Err(k) => {
                return Err(UpdateError::Type {
                    target: format!("argument {}", k + 1),
                    expected: std::any::type_name::<A>().to_string(),
                    got: args
                        .get(k)
                        .map_or("nothing".into(), |v| v.type_name().to_string()),
                })
            }
        };
        let f = self.f.clone();
        let (result, frames) = if replace.is_empty() && !keeps {
            let result =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || track(f, values)));
            (result, None)
        } else {
            let shared = Rc::new(Shared {
                frames: RefCell::new(std::mem::take(&mut self.frames)),
                replace,
                keep: self.keep.clone(),
                kept,
            });
            let ctx = Rerun {
                shared: shared.clone(),
                frame: OUTSIDE,
                counts: RefCell::new(HashMap::new()),
            };
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                track_with(ctx, f, values)
            }));
            match Rc::try_unwrap(shared) {
                Ok(s) => (result, Some((s.frames.into_inner(), s.replace))),
                Err(_) => {
                    return Err(UpdateError::Unmatched(
                        "the context of the run outlived it".into(),
                    ))
                }
            }
        };
        let (frames, mut replace) = match frames {
            Some((frames, replace)) => (Some(frames), replace),
            None => (None, HashMap::new()),
        };
        if let Some(frames) = frames {
            self.frames = frames;
        }
        let new = match result {
            Ok(t) => t,
            Err(payload) => return Err(UpdateError::Panicked(panic_text(payload.as_ref()))),
        };
        let mut fixed = HashMap::new();
        if !replace.is_empty() {
            for (id, a) in addresses(&new, &mut self.frames) {
                if let Some(v) = replace.remove(&a) {
                    let got = new.store.value(id);
                    if !identical(&got, &v) {
                        return Err(UpdateError::Unmatched(format!(
                            "the node {id} at the address of a changed node holds {got}, not {v}"
                        )));
                    }
                    fixed.insert(id, v);
                }
            }
        }
        let recomputed = new.len();
        let old = std::mem::replace(&mut self.trace, new);
        self.undo = Some(Undo::Rerun(Box::new(Before {
            trace: old,
            args: std::mem::replace(&mut self.args, args),
            fixed: std::mem::replace(&mut self.fixed, fixed),
            pending: std::mem::replace(&mut self.pending, replace),
        })));
        self.caches = Caches::default();
        Ok(Update {
            recomputed,
            rerun: Some(cause),
            changed: Vec::new(),
        })
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// The node of the root's parameter `k`.
fn root_parameter(trace: &Trace, k: usize) -> Option<NodeId> {
    let root = trace.root();
    let p = root.child(k + 1)?;
    let is_param = p.kind() == NodeKind::Argument && p.location().is_some_and(|l| l.block == 1);
    is_param.then(|| p.id())
}

/// Whether a context's replacement reaches a call whose result is `v` (the types
/// `record::frame` can overwrite).
fn replaceable(v: &Value) -> bool {
    let Some(t) = v.type_id() else {
        return false;
    };
    [
        TypeId::of::<f64>(),
        TypeId::of::<f32>(),
        TypeId::of::<bool>(),
        TypeId::of::<char>(),
        TypeId::of::<i8>(),
        TypeId::of::<i16>(),
        TypeId::of::<i32>(),
        TypeId::of::<i64>(),
        TypeId::of::<isize>(),
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<usize>(),
        TypeId::of::<String>(),
        TypeId::of::<Vec<f64>>(),
        TypeId::of::<Vec<f32>>(),
        TypeId::of::<Vec<i64>>(),
        TypeId::of::<Vec<i32>>(),
        TypeId::of::<Vec<usize>>(),
        TypeId::of::<Vec<bool>>(),
        TypeId::of::<Option<f64>>(),
        TypeId::of::<Option<f32>>(),
    ]
    .contains(&t)
}

/// The `index`-th checkpoint call named `key` in `collection`.
fn find_checkpoint(
    trace: &Trace,
    collection: &str,
    key: &str,
    index: usize,
) -> Result<NodeId, UpdateError> {
    // Names are matched as the strings they are (a `Debug` text would be escaped).
    let text = |v: &Value| v.downcast_ref::<String>().cloned();
    trace
        .nodes()
        .filter(|n| n.kind() == NodeKind::PrimitiveCall)
        .filter(|n| match trace.store.callees.get(&n.id()) {
            Some(Callee::Item(k)) => crate::core::eval::lookup(k.id).is_some_and(|r| r.volatile),
            _ => false,
        })
        .filter(|n| {
            let args = n.operand_values();
            args.len() == 3
                && text(&args[1]).as_deref() == Some(key)
                && text(&args[2]).as_deref() == Some(collection)
        })
        .nth(index)
        .map(|n| n.id())
        .ok_or_else(|| {
            UpdateError::NoSuchTarget(format!(
                "checkpoint `{key}` of `{collection}` number {}",
                index + 1
            ))
        })
}

/// Whether two values are provably the same value (`Value::exact_eq`): scalars bit for bit
/// (the form of a reference looked through), floats of containers bit for bit, known
/// containers element by element, a shared value by identity. Values that only print alike
/// are not: a propagation stopped on them would leave a stale number.
fn identical(a: &Value, b: &Value) -> bool {
    a.exact_eq(b) == Some(true)
}

/// `new` stored as `old` is (a scalar of the same type in `old`'s form), or `None` when it is
/// of another type: passing it on would change the recorded type.
fn like(new: &Value, old: &Value) -> Option<Value> {
    match (&new.0, &old.0) {
        (Repr::Scalar(s, _), Repr::Scalar(o, form)) if s.tag() == o.tag() => {
            Some(Value(Repr::Scalar(*s, *form)))
        }
        (Repr::Boxed(n), Repr::Boxed(o)) if n.type_name == o.type_name => Some(new.clone()),
        _ => None,
    }
}

/// Where a node is and what it is: `function [location]`.
fn place(n: NodeRef<'_>) -> String {
    match (n.ir(), n.location()) {
        (Some(ir), Some(loc)) => format!("{} [{loc}]", ir.name),
        _ => n.function_name().unwrap_or("the root").to_string(),
    }
}

/// The values a call's `before_call` sees for a recorded node: recorded values, literals by
/// their default type (as the recorder gives them).
fn recorded_call_arguments(n: NodeRef<'_>) -> Vec<Value> {
    let Some(entry) = n.entry() else {
        return Vec::new();
    };
    entry
        .operands
        .iter()
        .enumerate()
        .map(|(k, op)| match op {
            Operand::Var(_) => {
                let r = n.trace.store.ref_at(n.id, k);
                if r.is_none() {
                    Value::opaque::<()>()
                } else {
                    n.trace.store.value(r)
                }
            }
            Operand::Const(c) => literal::value(c),
            Operand::None => Value::opaque::<()>(),
        })
        .collect()
}

/// Arguments a call saw are the recorded ones: each provably the same value
/// ([`identical`]), except that a method's receiver irtrack cannot compare (`receiver`: a
/// generator, `rng.random()`, whose state moved when the path before the call changed) counts
/// as unchanged when it has the recorded type. Any other argument irtrack cannot compare (a
/// user's type, a value known only by its text or type, behind a reference or not) is not
/// unchanged: the call runs again.
fn same_arguments(now: &[Value], then: &[Value], receiver: bool) -> bool {
    now.len() == then.len()
        && now
            .iter()
            .zip(then)
            .enumerate()
            .all(|(k, (a, b))| match a.exact_eq(b) {
                Some(same) => same,
                None => k == 0 && receiver && a.same_type(b),
            })
}

// ---------------------------------------------------------------------------------------------
// Updating in place.
// ---------------------------------------------------------------------------------------------

/// What visiting a node does, found once per node of a trace (an operation is identified and
/// checked on the recorded values, which is what costs).
#[derive(Clone, Debug)]
enum Step {
    /// Run the operation again on its operands; `guard`: a boolean nothing refers to.
    Op {
        op: Operation,
        /// Where its operands are in [`Caches::operands`] (start, end): one pool, in the
        /// order steps are found, rather than an allocation each.
        operands: (u32, u32),
        /// Where its value is (see [`Src`]).
        slot: Slot,
        guard: bool,
    },
    /// A block argument: its value is its source's. `stale`: the two values differ (the source
    /// was changed in place after it was passed on, which the trace does not show). Found once:
    /// an update in place writes a block argument whenever it writes its source, so values
    /// that agree keep agreeing and values that differ keep differing until a run again.
    /// `form`: how the argument holds a scalar (by value or behind a reference), which a
    /// new scalar takes; `None` for other values.
    Pass {
        from: NodeId,
        stale: bool,
        form: Option<Form>,
    },
    /// A nested call: changed arguments go to its parameters.
    Call,
    /// A return: its value is its argument's, and its call's value too.
    Return { call: NodeId },
    /// A branch: the path changes when its condition does.
    Jump { control: NodeId },
    /// Reaching it means running the function again.
    /// (Boxed: a cause is large, and a walk reads steps by the thousand.)
    Barrier(Box<RerunCause>),
    /// Nothing depends on anything here (constants, the root's parameters).
    Inert,
}

/// An operand: a node, with where its value is (a slot stays put while values are written in
/// place, which is how an update writes: a new value has the old one's type and form), or a
/// literal.
#[derive(Clone, Debug)]
enum Src {
    Node(NodeId, Slot),
    Lit(Value),
}

const NONE: u32 = u32::MAX;

/// Per-trace state kept between updates in place: the steps found so far, the marks of a walk
/// (all clear between walks), and facts found by one scan of the trace.
#[derive(Default)]
struct Caches {
    step_of: Vec<u32>,
    steps: Vec<Step>,
    /// The index in the walk's new values of each node given one (`NONE` otherwise).
    slot_of: Vec<u32>,
    /// Nodes to visit, one bit each.
    dirty: Vec<u64>,
    scanned: bool,
    /// The last node that is a closure's captured variable.
    last_capture: Option<NodeId>,
    /// The last call with an operand the trace did not record (a closure passed to it).
    last_unrecorded: Option<NodeId>,
    /// A node that ends a call without a return.
    error: Option<NodeId>,
    /// A read of state that may change between runs (`super::reads_state`).
    state_read: Option<NodeId>,
    /// The last call of a closure held in a variable or computed (`FnIr::holds_callee`):
    /// it ran untracked, and may read a captured value a change reached.
    last_held: Option<NodeId>,
    /// The nodes a write into memory may have changed, with the first such write
    /// (`core::writes::written_in_place`).
    written: HashMap<NodeId, NodeId>,
    /// The new values of a walk (empty between walks; kept for its capacity).
    side: Vec<(NodeId, Value)>,
    /// The operands of the operations of `steps`.
    operands: Vec<Src>,
}

impl Caches {
    fn prepare(&mut self, trace: &Trace) {
        let n = trace.len();
        if self.step_of.len() != n {
            self.step_of = vec![NONE; n];
            self.slot_of = vec![NONE; n];
            self.dirty = vec![0; n.div_ceil(64) + 1];
            self.steps.clear();
            self.operands.clear();
        }
        if !self.scanned {
            self.scanned = true;
            let store = &trace.store;
            for call in store.calls.iter() {
                if !store.call_ir(call).is_closure() {
                    continue;
                }
                for child in store.children(call.node) {
                    if store.node(child).kind == NodeKind::Constant {
                        self.last_capture = self.last_capture.max(Some(child));
                    }
                }
            }
            self.written = crate::core::writes::written_in_place(store, 0..n as u32);
            // One pass: the first error and state read, the last call with an unrecorded
            // operand and the last call of a held callee.
            for id in (0..n as u32).map(NodeId) {
                let kind = store.node(id).kind;
                if kind == NodeKind::Error && self.error.is_none() {
                    self.error = Some(id);
                }
                if !matches!(
                    kind,
                    NodeKind::PrimitiveCall | NodeKind::NestedCall | NodeKind::Special
                ) {
                    continue;
                }
                if self.state_read.is_none() && super::reads_state(store, id) {
                    self.state_read = Some(id);
                }
                if store.holds_callee(id) {
                    self.last_held = Some(id);
                }
                if store
                    .entry_of(id)
                    .is_some_and(|(_, e)| e.takes_unrecorded())
                {
                    self.last_unrecorded = Some(id);
                }
            }
        }
    }

    fn captured_after(&self, id: u32) -> Option<NodeId> {
        self.last_capture.filter(|c| c.0 > id)
    }

    fn clear_marks(&mut self, side: &[(NodeId, Value)]) {
        for (id, _) in side {
            self.slot_of[id.index()] = NONE;
        }
    }

    fn step(&mut self, trace: &Trace, id: NodeId) -> usize {
        let k = self.step_of[id.index()];
        if k != NONE {
            return k as usize;
        }
        let mut step = find_step(NodeRef { trace, id }, &mut self.operands);
        // An operation reading a value a write into memory changed after it was recorded
        // (`w[0] = 10.0` before `w[i]`) would run on the value from before: run the function.
        if let Step::Op {
            operands: (a, b), ..
        } = step
        {
            let stale = self.operands[a as usize..b as usize].iter().any(
                |o| matches!(o, Src::Node(r, _) if self.written.get(r).is_some_and(|w| w.0 < id.0)),
            );
            if stale {
                let at = place(NodeRef { trace, id });
                step = Step::Barrier(Box::new(RerunCause::Stale { node: id, at }));
            }
        }
        // A block argument copies its source's recorded value, stale where a write changed
        // the source before the jump.
        if let Step::Pass { from, .. } = step {
            if self.written.get(&from).is_some_and(|w| w.0 < id.0) {
                let at = place(NodeRef { trace, id });
                step = Step::Barrier(Box::new(RerunCause::Stale { node: id, at }));
            }
        }
        self.steps.push(step);
        let k = self.steps.len() - 1;
        self.step_of[id.index()] = k as u32;
        k
    }
}

fn find_step(n: NodeRef<'_>, pool: &mut Vec<Src>) -> Step {
    let store = &n.trace.store;
    match n.kind() {
        NodeKind::Argument => match n.location() {
            Some(l) if l.block > 1 => {
                let from = store.ref_at(n.id, 0);
                if from.is_none() {
                    // A literal passed on: nothing to propagate.
                    return Step::Inert;
                }
                let (was, is) = (store.value(from), store.value(n.id));
                Step::Pass {
                    from,
                    stale: !identical(&was, &is) || like(&was, &is).is_none(),
                    form: match is.0 {
                        Repr::Scalar(_, form) => Some(form),
                        Repr::Boxed(_) => None,
                    },
                }
            }
            _ => Step::Inert,
        },
        NodeKind::Constant => Step::Inert,
        NodeKind::PrimitiveCall | NodeKind::Special => match n.operation() {
            Ok(op) => {
                let values = n.operand_values();
                let start = pool.len() as u32;
                match n.entry() {
                    Some(e) => pool.extend(e.operands.iter().enumerate().map(|(k, o)| {
                        let r = store.ref_at(n.id, k);
                        match o {
                            Operand::Var(_) if !r.is_none() => Src::Node(r, store.slot(r)),
                            _ => Src::Lit(values.get(k).cloned().unwrap_or(Value::UNIT)),
                        }
                    })),
                    // A registered primitive root: its arguments never change in place.
                    None => return Step::Barrier(Box::new(RerunCause::Primitive)),
                };
                Step::Op {
                    op,
                    operands: (start, pool.len() as u32),
                    slot: store.slot(n.id),
                    guard: n.value::<bool>().is_some() && n.is_unreferenced(),
                }
            }
            Err(e) => Step::Barrier(Box::new(RerunCause::NotReexecutable(e))),
        },
        NodeKind::NestedCall => {
            let last = n.children().last();
            if last.is_some_and(|c| c.kind() == NodeKind::Error) {
                return Step::Barrier(Box::new(RerunCause::NoReturn { node: n.id }));
            }
            Step::Call
        }
        NodeKind::Jump => Step::Jump {
            control: n.control().map_or(NodeId::NONE, |c| c.id),
        },
        NodeKind::Return => Step::Return {
            call: n.parent().map_or(NodeId::NONE, |p| p.id),
        },
        NodeKind::Error => Step::Barrier(Box::new(RerunCause::NoReturn { node: n.id })),
    }
}

/// One walk over the nodes that depend on the changes, computing their new values beside the
/// trace.
struct Walk<'a> {
    trace: &'a Trace,
    caches: &'a mut Caches,
    keep: &'a Keep,
    /// New values, in the order found.
    side: Vec<(NodeId, Value)>,
    recomputed: usize,
    scratch: Vec<Value>,
    /// Whether a node may keep its value although an operand changed (a changed node, or
    /// one [`Keep::Calls`] keeps): when not, that check is skipped.
    may_keep: bool,
}

impl Walk<'_> {
    /// [`current`](Walk::current) of a node whose slot is known.
    fn current_at(&self, id: NodeId, slot: Slot) -> Value {
        match self.caches.slot_of[id.index()] {
            NONE => {
                debug_assert_eq!(slot, self.trace.store.slot(id));
                self.trace.store.value_at(slot)
            }
            k => self.side[k as usize].1.clone(),
        }
    }

    fn current(&self, id: NodeId) -> Value {
        match self.caches.slot_of[id.index()] {
            NONE => self.trace.store.value(id),
            k => self.side[k as usize].1.clone(),
        }
    }

    fn changed(&self, id: NodeId) -> bool {
        !id.is_none() && self.caches.slot_of[id.index()] != NONE
    }

    fn set(&mut self, id: NodeId, v: Value) {
        match self.caches.slot_of[id.index()] {
            NONE => {
                self.caches.slot_of[id.index()] = self.side.len() as u32;
                self.side.push((id, v));
            }
            k => self.side[k as usize].1 = v,
        }
    }

    /// Marks the nodes that use `id`; returns the highest marked.
    fn mark_dependents(&mut self, id: NodeId, hi: &mut u32) {
        let index = self.trace.index();
        let (a, b) = (
            index.dependents_start[id.index()] as usize,
            index.dependents_start[id.index() + 1] as usize,
        );
        for &d in &index.dependents[a..b] {
            self.caches.dirty[d as usize / 64] |= 1 << (d % 64);
            *hi = (*hi).max(d);
        }
    }

    fn run(
        &mut self,
        seeds: &[(NodeId, Value)],
        fixed: &dyn Fn(NodeId) -> bool,
    ) -> Result<(), RerunCause> {
        let mut hi = 0;
        let mut lo = u32::MAX;
        for (id, v) in seeds {
            let old = self.trace.store.value(*id);
            let v = like(v, &old).unwrap_or_else(|| v.clone());
            if identical(&v, &old) && !self.changed(*id) {
                continue;
            }
            self.set(*id, v);
            self.mark_dependents(*id, &mut hi);
            lo = lo.min(id.0);
        }
        if lo == u32::MAX {
            return Ok(());
        }
        let mut w = lo as usize / 64;
        let mut result = Ok(());
        while w <= hi as usize / 64 {
            let bits = self.caches.dirty[w];
            if bits == 0 {
                w += 1;
                continue;
            }
            let b = bits.trailing_zeros() as usize;
            self.caches.dirty[w] &= !(1 << b);
            let id = NodeId((w * 64 + b) as u32);
            if let Err(cause) = self.visit(id, fixed, &mut hi) {
                result = Err(cause);
                break;
            }
        }
        // Leave no mark for the next walk.
        for word in &mut self.caches.dirty[w.min(hi as usize / 64)..=hi as usize / 64] {
            *word = 0;
        }
        result
    }

    fn visit(
        &mut self,
        id: NodeId,
        fixed: &dyn Fn(NodeId) -> bool,
        hi: &mut u32,
    ) -> Result<(), RerunCause> {
        let k = self.caches.step(self.trace, id);
        let n = NodeRef {
            trace: self.trace,
            id,
        };
        match &self.caches.steps[k] {
            Step::Inert => Ok(()),
            Step::Op { .. } | Step::Barrier(_) if self.may_keep && (fixed(id) || self.kept(n)) => {
                Ok(())
            }
            Step::Barrier(cause) => Err((**cause).clone()),
            Step::Op { op, guard, .. } => {
                let (op, guard) = (*op, *guard);
                self.recomputed += 1;
                if let Some(done) = self.float_step(id, k, op, hi) {
                    return done;
                }
                let new = self.evaluate(k, op).map_err(|e| {
                    RerunCause::Eval(ReexecError {
                        node: id,
                        function: n.ir().map(|ir| ir.name.clone()),
                        location: n.location(),
                        head: n.entry().map_or_else(String::new, |e| e.head.clone()),
                        reason: Reason::Eval(e),
                    })
                })?;
                let old = self.trace.store.value(id);
                let Some(new) = like(&new, &old) else {
                    return Err(RerunCause::Stale {
                        node: id,
                        at: place(n),
                    });
                };
                if identical(&new, &old) {
                    return Ok(());
                }
                if guard {
                    return Err(RerunCause::Guard {
                        node: id,
                        at: place(n),
                    });
                }
                self.set(id, new);
                self.mark_dependents(id, hi);
                Ok(())
            }
            &Step::Pass { from, stale, form } => {
                if !self.changed(from) {
                    return Ok(());
                }
                self.recomputed += 1;
                // Values keep their types (`like`), so a scalar stays one: only its form to set.
                let new = match (self.current(from), form) {
                    (Value(Repr::Scalar(s, _)), Some(form)) => Some(Value(Repr::Scalar(s, form))),
                    (v, _) => like(&v, &self.trace.store.value(id)),
                };
                let (false, Some(new)) = (stale, new) else {
                    return Err(RerunCause::Stale {
                        node: id,
                        at: place(n),
                    });
                };
                self.set(id, new);
                self.mark_dependents(id, hi);
                Ok(())
            }
            Step::Call => {
                let trace = self.trace;
                let count = trace.store.ref_count(id);
                let params = trace.children_ids(id);
                let is_param = |p: Option<&u32>| {
                    p.is_some_and(|&p| {
                        let p = NodeRef {
                            trace,
                            id: NodeId(p),
                        };
                        p.kind() == NodeKind::Argument && p.location().is_some_and(|l| l.block == 1)
                    })
                };
                // Argument k of the call is the callee's parameter k, when the callee's first
                // children are exactly one parameter per argument.
                let exact =
                    (0..count).all(|k| is_param(params.get(k))) && !is_param(params.get(count));
                for (k, r) in trace.store.refs(id).enumerate() {
                    if !self.changed(r) {
                        continue;
                    }
                    let (true, Some(&p)) = (exact, params.get(k)) else {
                        return Err(RerunCause::Stale {
                            node: id,
                            at: place(n),
                        });
                    };
                    let p = NodeId(p);
                    self.recomputed += 1;
                    let new = self.passed(r, p)?;
                    self.set(p, new);
                    self.mark_dependents(p, hi);
                }
                Ok(())
            }
            &Step::Return { call } => {
                let r = self.trace.store.ref_at(id, 0);
                if !self.changed(r) || call.is_none() {
                    return Ok(());
                }
                self.recomputed += 2;
                let new = self.passed(r, id)?;
                self.set(id, new);
                let value = self.passed(id, call)?;
                self.set(call, value);
                if call != self.trace.root {
                    self.mark_dependents(call, hi);
                }
                Ok(())
            }
            &Step::Jump { control } => {
                if self.changed(control) {
                    return Err(RerunCause::Branch {
                        node: id,
                        at: place(n),
                    });
                }
                Ok(())
            }
        }
    }

    /// The new value `to` receives from `from`, unchanged: the recorded values must agree
    /// (else something changed the value in place in between) and be of one type.
    fn passed(&self, from: NodeId, to: NodeId) -> Result<Value, RerunCause> {
        let store = &self.trace.store;
        let old = store.value(to);
        let stale = || RerunCause::Stale {
            node: to,
            at: place(NodeRef {
                trace: self.trace,
                id: to,
            }),
        };
        if !identical(&store.value(from), &old) {
            return Err(stale());
        }
        like(&self.current(from), &old).ok_or_else(stale)
    }

    /// Step `k` (node `id`), when it is arithmetic or a float method on `f64`s held as scalars:
    /// computed on the floats, without building values (what most of a long numeric update
    /// is); `None` takes the general path ([`evaluate`](Walk::evaluate)), which gives the same
    /// results (`eval_builtin`'s float arms), and the errors.
    fn float_step(
        &mut self,
        id: NodeId,
        k: usize,
        op: Operation,
        hi: &mut u32,
    ) -> Option<Result<(), RerunCause>> {
        let Step::Op {
            operands: (a, b),
            slot,
            ..
        } = self.caches.steps[k]
        else {
            return None;
        };
        let operands = &self.caches.operands[a as usize..b as usize];
        let float = |o: &Src| -> Option<f64> {
            let v = match o {
                Src::Node(r, slot) => self.current_at(*r, *slot),
                Src::Lit(v) => v.clone(),
            };
            match v.0 {
                Repr::Scalar(Scalar::F64(x), _) => Some(x),
                _ => None,
            }
        };
        let new = match op {
            Operation::Builtin(Builtin::Binary(b) | Builtin::Assign(b)) if operands.len() == 2 => {
                let (x, y) = (float(&operands[0])?, float(&operands[1])?);
                match b {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    BinOp::Div => x / y,
                    BinOp::Rem => x % y,
                    _ => return None,
                }
            }
            Operation::Builtin(Builtin::Method(f)) if operands.len() == f.arity() => {
                let (mut xs, mut n, mut int) = ([0.0; 3], 0, None);
                for (i, o) in operands.iter().enumerate() {
                    if f == FloatFn::Powi && i == 1 {
                        let v = match o {
                            Src::Node(r, slot) => self.current_at(*r, *slot),
                            Src::Lit(v) => v.clone(),
                        };
                        int = Some(v.as_i64()?);
                    } else {
                        *xs.get_mut(n)? = float(o)?;
                        n += 1;
                    }
                }
                f.eval_f64(&xs[..n], int)?
            }
            _ => return None,
        };
        debug_assert_eq!(slot, self.trace.store.slot(id));
        let Repr::Scalar(Scalar::F64(old), form) = self.trace.store.value_at(slot).0 else {
            return None;
        };
        if new.to_bits() == old.to_bits() {
            return Some(Ok(()));
        }
        self.set(id, Value(Repr::Scalar(Scalar::F64(new), form)));
        self.mark_dependents(id, hi);
        Some(Ok(()))
    }

    /// Runs the operation of step `k` on the operands' current values.
    fn evaluate(&mut self, k: usize, op: Operation) -> Result<Value, crate::core::eval::EvalError> {
        let mut args = std::mem::take(&mut self.scratch);
        args.clear();
        if let Step::Op {
            operands: (a, b), ..
        } = self.caches.steps[k]
        {
            for o in &self.caches.operands[a as usize..b as usize] {
                args.push(match o {
                    Src::Node(r, slot) => self.current_at(*r, *slot),
                    Src::Lit(v) => v.clone(),
                });
            }
        }
        let result = match op {
            Operation::Builtin(b) if !matches!(b, Builtin::Index | Builtin::Question) => {
                for a in args.iter_mut() {
                    if a.is_scalar() {
                        *a = a.by_value();
                    }
                }
                eval_builtin(b, &args)
            }
            _ => run_operation(op, &args),
        };
        self.scratch = args;
        result
    }

    /// Whether the [`Keep::Calls`] policy keeps primitive call `n`.
    fn kept(&self, n: NodeRef<'_>) -> bool {
        let Keep::Calls(predicate) = self.keep else {
            return false;
        };
        if n.kind() != NodeKind::PrimitiveCall {
            return false;
        }
        let Some(entry) = n.entry() else {
            return false;
        };
        let arguments: Vec<Value> = entry
            .operands
            .iter()
            .enumerate()
            .map(|(k, op)| match op {
                Operand::Var(_) => {
                    let r = self.trace.store.ref_at(n.id, k);
                    if r.is_none() {
                        Value::opaque::<()>()
                    } else {
                        self.current(r)
                    }
                }
                Operand::Const(c) => literal::value(c),
                Operand::None => Value::opaque::<()>(),
            })
            .collect();
        let depth = std::iter::successors(n.parent(), |p| p.parent()).count() - 1;
        predicate(&Call {
            name: &entry.head,
            callee: None,
            location: Some(entry.location),
            depth,
            arguments: &arguments,
            replaceable: false,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Addresses, and running the function again.
// ---------------------------------------------------------------------------------------------

/// A call's address: its frame (see [`Frames`]), its location, and how many calls at that
/// location the frame made before it.
type Addr = (u32, Location, u32);

/// Frames by path, numbered once for the life of an [`Updatable`] so that addresses of
/// different traces compare: a frame is its caller's frame, the call's location there (none
/// for the root), how many calls at that location the caller made before, and the callee's
/// IR (a call site can reach other functions).
#[derive(Default)]
struct Frames {
    ids: HashMap<(u32, Option<Location>, u32, usize), u32>,
}

const ROOT_PARENT: u32 = u32::MAX;
const OUTSIDE: u32 = u32::MAX;

impl Frames {
    fn intern(&mut self, key: (u32, Option<Location>, u32, usize)) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(key).or_insert(next)
    }
}

fn ir_key(ir: &FnIr) -> usize {
    ir as *const FnIr as usize
}

/// The address of every primitive call of `trace`.
fn addresses(trace: &Trace, frames: &mut Frames) -> HashMap<NodeId, Addr> {
    let store = &trace.store;
    let mut out = HashMap::new();
    let root = store.node(trace.root);
    if root.kind != NodeKind::NestedCall {
        return out;
    }
    let mut own = vec![NONE; store.calls.len()];
    let rc = root.value as usize;
    own[rc] = frames.intern((
        ROOT_PARENT,
        None,
        0,
        ir_key(store.call_ir(&store.calls[rc])),
    ));
    let mut counts: HashMap<Option<Location>, u32> = HashMap::new();
    for c in 0..store.calls.len() {
        let frame = own[c];
        if frame == NONE {
            continue;
        }
        let call = &store.calls[c];
        counts.clear();
        for child in store.children(call.node) {
            let node = store.node(child);
            if !matches!(node.kind, NodeKind::PrimitiveCall | NodeKind::NestedCall) {
                continue;
            }
            let location = (node.entry != NO_ENTRY)
                .then(|| {
                    store
                        .call_ir(call)
                        .entries
                        .get(node.entry as usize)
                        .map(|e| e.location)
                })
                .flatten();
            let count = counts.entry(location).or_insert(0);
            let occurrence = *count;
            *count += 1;
            match (node.kind, location) {
                (NodeKind::PrimitiveCall, Some(l)) => {
                    out.insert(child, (frame, l, occurrence));
                }
                (NodeKind::NestedCall, _) => {
                    let inner = node.value as usize;
                    own[inner] = frames.intern((
                        frame,
                        location,
                        occurrence,
                        ir_key(store.call_ir(&store.calls[inner])),
                    ));
                }
                _ => {}
            }
        }
    }
    out
}

/// What every frame of a run again shares.
struct Shared {
    frames: RefCell<Frames>,
    /// The changed nodes' values, by address.
    replace: HashMap<Addr, Value>,
    keep: Keep,
    /// The old trace's primitive results (and, for [`Keep::Unchanged`], their arguments and
    /// whether the first is a method's receiver).
    kept: HashMap<Addr, (Value, Option<RecordedArguments>)>,
}

/// A kept call's recorded arguments, and whether the first is a method's receiver.
type RecordedArguments = (Vec<Value>, bool);

/// The context of a run again, one per frame: it numbers the calls its frame makes by
/// location, gives a changed node's call its value, and keeps what the policy keeps.
struct Rerun {
    shared: Rc<Shared>,
    frame: u32,
    counts: RefCell<HashMap<Option<Location>, u32>>,
}

impl Context for Rerun {
    fn before_call(&self, call: &Call<'_>) -> Action {
        let occurrence = {
            let mut counts = self.counts.borrow_mut();
            let c = counts.entry(call.location).or_insert(0);
            *c += 1;
            *c - 1
        };
        let (Some(location), true) = (call.location, self.frame != OUTSIDE) else {
            return Action::Run;
        };
        let address = (self.frame, location, occurrence);
        if let Some(v) = self.shared.replace.get(&address) {
            return Action::Replace(v.clone());
        }
        let Some((value, arguments)) = self.shared.kept.get(&address) else {
            return Action::Run;
        };
        let keep = match (&self.shared.keep, arguments) {
            (Keep::Unchanged, Some((then, receiver))) => {
                same_arguments(call.arguments, then, *receiver)
            }
            (Keep::Calls(p), _) => p(call),
            _ => false,
        };
        if keep {
            Action::Reuse(value.clone())
        } else {
            Action::Run
        }
    }

    fn nested(&self, site: &CallSite<'_>) -> Option<Rc<dyn Context>> {
        let occurrence = self
            .counts
            .borrow()
            .get(&site.location)
            .map_or(0, |c| c.saturating_sub(1));
        let parent = if self.frame == OUTSIDE {
            ROOT_PARENT
        } else {
            self.frame
        };
        let location = if self.frame == OUTSIDE {
            None
        } else {
            site.location
        };
        let occurrence = if self.frame == OUTSIDE { 0 } else { occurrence };
        let frame = self.shared.frames.borrow_mut().intern((
            parent,
            location,
            occurrence,
            ir_key(site.callee),
        ));
        Some(Rc::new(Rerun {
            shared: self.shared.clone(),
            frame,
            counts: RefCell::new(HashMap::new()),
        }))
    }
}
