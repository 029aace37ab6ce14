//! Contexts: user code that decides what is primitive, what each node records, and what a
//! call returns, without touching the traced code (IRTracker's contexts, Cassette's
//! overdubbing, Pyro's effect handlers).
//!
//! A context is asked whether to recurse into each tracked call ([`Context::can_recur`]), gives
//! the call's body its own context value ([`Context::nested`], so state can flow down the call
//! tree), sees every call before it runs and may give its result ([`Context::before_call`]),
//! and sees every node just before it is stored, through one hook per node kind that can
//! inspect the node and attach metadata. Every hook has a default, so `impl Context for T {}`
//! records exactly what [`track`](crate::track) records.
//!
//! # Interventions
//!
//! [`Context::before_call`] returns an [`Action`]; it is asked once per call, before the call
//! runs: when a tracked caller announces the call (its arguments evaluated), or, for a tracked
//! function called from code irtrack does not see, when it is entered. `Action::Replace(v)`
//! makes `v` the call's result:
//! - a call of a tracked function whose result type is `'static + Clone`
//!   ([`Call::replaceable`]) is **skipped**: its body does not run, and the trace records a
//!   primitive call with the value `v`;
//! - any other call **runs**, and its result is then replaced by `v` when the result is a
//!   scalar, a `String`, a vector of scalars or an `Option` of a float (a random draw, a
//!   count, a vector of samples); a result of another type keeps its value. Rust cannot skip
//!   a call whose result type the caller cannot name without changing what the caller
//!   borrows; make the function `#[tracked]` to make it skippable.
//!
//! A replacement must have the result's type: `Action::Replace` (or `Action::Reuse`) of an
//! `i32` for a call returning an `f64` (either kind above) **panics**, naming both types (`try_track` keeps
//! the trace up to it), rather than leave the call's own result where the context asked for
//! another.
//!
//! # Composition
//!
//! A pair `(A, B)` is a context (and so is a pair of pairs): `A` is the outer handler and `B`
//! the inner one, as in a stack of handlers where `B` was pushed last. A call is seen by `B`
//! first; the first context that returns [`Action::Replace`] decides, and the other is not
//! asked. Both must agree to recurse (`can_recur` is `A && B`); node hooks run `B` then `A`,
//! on the same node, so `A` sees the metadata `B` attached; `nested` gives the pair of both
//! nested contexts.

use crate::core::ir::{FnIr, Location};
use crate::core::tape::NodeKind;
use crate::core::value::{Owned, Value};
use std::rc::Rc;

/// A tracked call about to be recorded: what [`Context::can_recur`] and [`Context::nested`] see.
#[derive(Clone, Copy, Debug)]
pub struct CallSite<'a> {
    /// The callee as written at the call site (`geom`, `Point::new`, `norm`); for the root, the
    /// function passed to `track_with`.
    pub name: &'a str,
    /// The callee's IR.
    pub callee: &'a FnIr,
    /// Where the caller made the call; `None` for the root.
    pub location: Option<Location>,
    /// How many calls are open above this one: 0 for the root.
    pub depth: usize,
    /// The values the caller passed, in order; a literal argument is its value by the type
    /// Rust gives an unconstrained literal (`0.0` is an `f64`, `2` an `i32`).
    pub arguments: &'a [Value],
}

/// A call about to run: what [`Context::before_call`] sees.
#[derive(Clone, Copy, Debug)]
pub struct Call<'a> {
    /// The callee, operator or method as written (`normal`, `+`, `sin`).
    pub name: &'a str,
    /// The callee's IR, for a call of a tracked function.
    pub callee: Option<&'a FnIr>,
    /// Where the caller made the call; `None` for the root.
    pub location: Option<Location>,
    /// How many calls are open above the caller: 0 in the root's body.
    pub depth: usize,
    /// The values the caller passed, in order, literals included (see
    /// [`CallSite::arguments`]).
    pub arguments: &'a [Value],
    /// Whether [`Action::Replace`] is known to skip the call (a tracked function whose result
    /// type is `'static + Clone`, asked when it is entered). A call a tracked caller announces
    /// is asked before irtrack can know whether a tracked function will claim it, so this is
    /// `false` there; a `Replace` still skips such a call if a tracked function with such a
    /// result claims it (see the module docs).
    pub replaceable: bool,
}

/// What a context decides for a call about to run.
#[derive(Clone, Debug, Default)]
pub enum Action {
    /// Let the call run.
    #[default]
    Run,
    /// Make this value the call's result (see the module docs for when the call still runs).
    /// What the call was given no longer decides its result: the node is flagged replaced,
    /// and gradients and programs refuse to follow a dependence through it (a rule of the
    /// callee, its body where it ran, would be another function's).
    Replace(Value),
    /// Make this value the call's result as the call's own: the value it gives on these
    /// arguments (a memo; an update keeping an unchanged call's result). Gradients and
    /// programs follow the call as if it had run.
    Reuse(Value),
}

/// A node about to be stored: the hooks inspect it and attach metadata.
pub struct Draft<'a> {
    pub(crate) kind: NodeKind,
    pub(crate) name: Option<&'a str>,
    pub(crate) callee: Option<crate::core::ids::CalleeKey>,
    pub(crate) location: Option<Location>,
    pub(crate) ir: Option<&'a FnIr>,
    pub(crate) value: &'a Value,
    pub(crate) args: &'a [Value],
    pub(crate) metadata: &'a mut Vec<(crate::core::tape::MetaKey, Value)>,
}

impl Draft<'_> {
    /// What the node records.
    pub fn kind(&self) -> NodeKind {
        self.kind
    }

    /// For a call, the callee as written at the call site; for a special, its kind.
    pub fn function_name(&self) -> Option<&str> {
        self.name
    }

    /// For a call of a fn item or closure, the callee's key: which function ran, by its type
    /// (exact, where [`function_name`](Draft::function_name) is only what was written).
    /// `None` for a method call, a call through a function pointer, and other nodes.
    pub fn callee(&self) -> Option<crate::core::ids::CalleeKey> {
        self.callee
    }

    /// Where in its function's IR the node was recorded; `None` for the root and for errors.
    pub fn location(&self) -> Option<Location> {
        self.location
    }

    /// The IR of the function the node is recorded in.
    pub fn ir(&self) -> Option<&FnIr> {
        self.ir
    }

    /// The node's value (a call's result, a jump's `()`, an error's message).
    pub fn value(&self) -> &Value {
        self.value
    }

    /// The values of the node's arguments that are recorded values (constants are not listed).
    pub fn arguments(&self) -> impl Iterator<Item = &Value> + '_ {
        self.args.iter()
    }

    /// Attaches metadata; it prints after a tab as `[key = value, …]`, in the order set.
    pub fn set<T: Owned>(&mut self, key: &'static str, value: T) {
        self.set_value(key, Value::snapshot(value));
    }

    /// Attaches metadata that is already a [`Value`].
    pub fn set_value(&mut self, key: &'static str, value: Value) {
        match self.metadata.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.metadata.push((key.into(), value)),
        }
    }
}

/// Decides what is primitive, what each node records and what calls return. Every method has
/// a default; an empty `impl` behaves as [`track`](crate::track) does.
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

    /// A call about to run, with every argument value: let it run, or give its result (see
    /// the module docs). Called for every call the caller announces (paths, methods,
    /// operators) once its arguments are evaluated, and for a tracked call when it is entered.
    ///
    /// ```
    /// use irtrack::{tracked, track_with, Action, Call, Context, Value};
    ///
    /// fn draw(u: f64) -> f64 { u * 10.0 }
    ///
    /// #[tracked]
    /// fn model(u: f64) -> f64 { draw(u) + 1.0 }
    ///
    /// /// Constrains every `draw` to 2.0.
    /// struct Constrain;
    /// impl Context for Constrain {
    ///     fn before_call(&self, call: &Call<'_>) -> Action {
    ///         match call.name {
    ///             "draw" => Action::Replace(Value::snapshot(2.0f64)),
    ///             _ => Action::Run,
    ///         }
    ///     }
    /// }
    ///
    /// let trace = track_with(Constrain, model, (0.5,));
    /// assert_eq!(trace.root().value::<f64>(), Some(&3.0));
    /// ```
    fn before_call(&self, call: &Call<'_>) -> Action {
        let _ = call;
        Action::Run
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

/// A shared context, as [`Context::nested`] returns them.
impl Context for Rc<dyn Context> {
    fn can_recur(&self, call: &CallSite<'_>) -> bool {
        (**self).can_recur(call)
    }
    fn nested(&self, call: &CallSite<'_>) -> Option<Rc<dyn Context>> {
        (**self).nested(call)
    }
    fn before_call(&self, call: &Call<'_>) -> Action {
        (**self).before_call(call)
    }
    fn argument(&self, node: &mut Draft<'_>) {
        (**self).argument(node)
    }
    fn constant(&self, node: &mut Draft<'_>) {
        (**self).constant(node)
    }
    fn primitive_call(&self, node: &mut Draft<'_>) {
        (**self).primitive_call(node)
    }
    fn nested_call(&self, node: &mut Draft<'_>) {
        (**self).nested_call(node)
    }
    fn special(&self, node: &mut Draft<'_>) {
        (**self).special(node)
    }
    fn jump(&self, node: &mut Draft<'_>) {
        (**self).jump(node)
    }
    fn ret(&self, node: &mut Draft<'_>) {
        (**self).ret(node)
    }
    fn error(&self, node: &mut Draft<'_>) {
        (**self).error(node)
    }
}

/// Two contexts as a stack: `A` outside, `B` inside (see the module docs). Both are `Clone`
/// (a context whose state is behind an `Rc` is), so that a pair can keep one of them for a
/// nested call while the other changes.
///
/// ```
/// use irtrack::{tracked, track_with, Action, Call, Context, Draft, Value};
///
/// #[derive(Clone)]
/// struct Tag(&'static str);
/// impl Context for Tag {
///     fn primitive_call(&self, node: &mut Draft<'_>) {
///         node.set(self.0, true);
///     }
/// }
///
/// #[tracked]
/// fn f(x: f64) -> f64 { x.sin() }
///
/// let trace = track_with((Tag("outer"), Tag("inner")), f, (1.0,));
/// // The inner context attached its metadata first.
/// assert!(trace.root().levels(2).to_string().contains("[inner = true, outer = true]"));
/// ```
impl<A: Context + Clone, B: Context + Clone> Context for (A, B) {
    fn can_recur(&self, call: &CallSite<'_>) -> bool {
        self.0.can_recur(call) && self.1.can_recur(call)
    }
    fn nested(&self, call: &CallSite<'_>) -> Option<Rc<dyn Context>> {
        match (self.0.nested(call), self.1.nested(call)) {
            (None, None) => None,
            (a, b) => {
                let a: Rc<dyn Context> = a.unwrap_or_else(|| Rc::new(self.0.clone()));
                let b: Rc<dyn Context> = b.unwrap_or_else(|| Rc::new(self.1.clone()));
                Some(Rc::new((a, b)))
            }
        }
    }
    fn before_call(&self, call: &Call<'_>) -> Action {
        match self.1.before_call(call) {
            Action::Run => self.0.before_call(call),
            replace => replace,
        }
    }
    fn argument(&self, node: &mut Draft<'_>) {
        self.1.argument(node);
        self.0.argument(node);
    }
    fn constant(&self, node: &mut Draft<'_>) {
        self.1.constant(node);
        self.0.constant(node);
    }
    fn primitive_call(&self, node: &mut Draft<'_>) {
        self.1.primitive_call(node);
        self.0.primitive_call(node);
    }
    fn nested_call(&self, node: &mut Draft<'_>) {
        self.1.nested_call(node);
        self.0.nested_call(node);
    }
    fn special(&self, node: &mut Draft<'_>) {
        self.1.special(node);
        self.0.special(node);
    }
    fn jump(&self, node: &mut Draft<'_>) {
        self.1.jump(node);
        self.0.jump(node);
    }
    fn ret(&self, node: &mut Draft<'_>) {
        self.1.ret(node);
        self.0.ret(node);
    }
    fn error(&self, node: &mut Draft<'_>) {
        self.1.error(node);
        self.0.error(node);
    }
}
