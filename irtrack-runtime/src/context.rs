//! Contexts: user code that decides what is primitive and what each node records, without
//! touching the traced code (IRTracker's contexts, Cassette's overdubbing).
//!
//! A context is asked whether to recurse into each tracked call ([`Context::can_recur`]), gives
//! the call's body its own context value ([`Context::nested`], so state can flow down the call
//! tree), and sees every node just before it is stored, through one hook per node kind that can
//! inspect the node and attach metadata. Every hook has a default, so `impl Context for T {}`
//! records exactly what [`track`](crate::track) records.

use crate::ir::{FnIr, Location};
use crate::node::NodeKind;
use crate::value::{Owned, Value};
use std::rc::Rc;

/// A tracked call about to be recorded: what [`Context::can_recur`] and [`Context::nested`] see.
#[derive(Clone, Copy, Debug)]
pub struct CallSite<'a> {
    /// The callee as written at the call site (`geom`, `Point::new`, `norm`); for the root, the
    /// function passed to `track_with`.
    pub name: &'static str,
    /// The callee's static IR.
    pub callee: &'static FnIr,
    /// Where the caller made the call; `None` for the root.
    pub location: Option<Location>,
    /// How many calls are open above this one: 0 for the root.
    pub depth: usize,
    /// The values of the arguments the caller passed (constants are not listed).
    pub arguments: &'a [Value],
}

/// A node about to be stored: the hooks inspect it and attach metadata.
pub struct Draft<'a> {
    pub(crate) kind: NodeKind,
    pub(crate) name: Option<&'static str>,
    pub(crate) location: Option<Location>,
    pub(crate) ir: Option<&'static FnIr>,
    pub(crate) value: &'a Value,
    pub(crate) store: &'a crate::node::Store,
    pub(crate) refs: &'a [crate::node::NodeId],
    pub(crate) metadata: &'a mut Vec<(&'static str, Value)>,
}

impl Draft<'_> {
    /// What the node records.
    pub fn kind(&self) -> NodeKind {
        self.kind
    }

    /// For a call, the callee as written at the call site; for a special, its kind.
    pub fn function_name(&self) -> Option<&'static str> {
        self.name
    }

    /// Where in its function's IR the node was recorded; `None` for the root and for errors.
    pub fn location(&self) -> Option<Location> {
        self.location
    }

    /// The IR of the function the node is recorded in.
    pub fn ir(&self) -> Option<&'static FnIr> {
        self.ir
    }

    /// The node's value (a call's result, a jump's `()`, an error's message).
    pub fn value(&self) -> &Value {
        self.value
    }

    /// The values of the node's arguments that are recorded values (constants are not listed).
    pub fn arguments(&self) -> impl Iterator<Item = &Value> + '_ {
        self.refs
            .iter()
            .filter(|r| !r.is_none())
            .map(|&r| &self.store.node(r).value)
    }

    /// Attaches metadata; it prints after a tab as `[key = value, …]`, in the order set.
    pub fn set<T: Owned>(&mut self, key: &'static str, value: T) {
        self.set_value(key, Value::snapshot(value));
    }

    /// Attaches metadata that is already a [`Value`].
    pub fn set_value(&mut self, key: &'static str, value: Value) {
        match self.metadata.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.metadata.push((key, value)),
        }
    }
}

/// Decides what is primitive and what each node records. Every method has a default; an
/// empty `impl` behaves as [`track`](crate::track) does.
///
/// ```
/// use irtrack::{tracked, track_with, Context, Draft};
///
/// /// Marks every call of `sin` as "trig".
/// struct TagTrig;
/// impl Context for TagTrig {
///     fn primitive_call(&self, node: &mut Draft<'_>) {
///         if node.function_name() == Some("sin") {
///             node.set("trig", true);
///         }
///     }
/// }
///
/// #[tracked]
/// fn f(x: f64) -> f64 {
///     x.sin() + x
/// }
///
/// let trace = track_with(TagTrig, f, (1.0,));
/// assert!(trace.root().levels(2).to_string().contains("⟨sin⟩(@1) → 0.8414709848078965::f64\t[trig = true]"));
/// ```
pub trait Context: 'static {
    /// Whether to record the body of a tracked callee as a nested call (`true`), or record the
    /// call as a primitive (`false`), in which case the callee runs as if untracked.
    fn can_recur(&self, call: &CallSite<'_>) -> bool {
        let _ = call;
        true
    }

    /// The context for the body of a call this context recurses into: return a new value to
    /// change it for that call and everything below it (a depth counter, say). The default,
    /// [`record_nested_call`](Context::record_nested_call), keeps this context.
    fn nested(&self, call: &CallSite<'_>) -> Option<Rc<dyn Context>> {
        self.record_nested_call(call)
    }

    /// The default recursion, for a [`nested`](Context::nested) override to fall back on:
    /// the body is recorded with this same context.
    fn record_nested_call(&self, call: &CallSite<'_>) -> Option<Rc<dyn Context>> {
        let _ = call;
        None
    }

    /// A function or block argument.
    fn argument(&self, node: &mut Draft<'_>) {
        let _ = node;
    }

    /// A named constant or captured variable.
    fn constant(&self, node: &mut Draft<'_>) {
        let _ = node;
    }

    /// A call recorded as a primitive (when it returns).
    fn primitive_call(&self, node: &mut Draft<'_>) {
        let _ = node;
    }

    /// A call recorded as a nested call, when it returns (its children are recorded by then).
    fn nested_call(&self, node: &mut Draft<'_>) {
        let _ = node;
    }

    /// A non-call construct: struct literal, macro, cast, field, pattern binding, `?`.
    fn special(&self, node: &mut Draft<'_>) {
        let _ = node;
    }

    /// A branch taken.
    fn jump(&self, node: &mut Draft<'_>) {
        let _ = node;
    }

    /// A return.
    fn ret(&self, node: &mut Draft<'_>) {
        let _ = node;
    }

    /// A panic unwinding out of the call: the last node of each call it leaves.
    fn error(&self, node: &mut Draft<'_>) {
        let _ = node;
    }
}

/// The default context: records everything down to untracked callees, and no metadata.
#[derive(Clone, Copy, Debug, Default)]
pub struct Everything;

impl Context for Everything {}
