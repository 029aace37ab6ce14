//! Recording entry points and the read-only view of a recorded trace.

use crate::context::Context;
use crate::ir::{EntryKind, FnIr, Location, Operand};
use crate::node::{NodeId, NodeKind, Store};
use crate::recorder::Session;
use crate::value::Value;
use std::rc::Rc;

/// A recorded trace: an arena of nodes with one root. Owns everything; `Send`.
pub struct Trace {
    pub(crate) store: Store,
    root: NodeId,
    root_name: &'static str,
}

/// Something `track` can call with a tuple of arguments: any `FnOnce` of up to 12 arguments.
pub trait Callable<Args> {
    /// What the call returns.
    type Output;
    /// Calls `self` with the arguments unpacked.
    fn call_with(self, args: Args) -> Self::Output;
}

macro_rules! callable {
    ($(($($a:ident),*)),* $(,)?) => {$(
        impl<Func, Ret, $($a),*> Callable<($($a,)*)> for Func
        where
            Func: FnOnce($($a),*) -> Ret,
        {
            type Output = Ret;
            #[allow(non_snake_case)]
            fn call_with(self, ($($a,)*): ($($a,)*)) -> Ret {
                self($($a),*)
            }
        }
    )*};
}
callable!(
    (),
    (A1),
    (A1, A2),
    (A1, A2, A3),
    (A1, A2, A3, A4),
    (A1, A2, A3, A4, A5),
    (A1, A2, A3, A4, A5, A6),
    (A1, A2, A3, A4, A5, A6, A7),
    (A1, A2, A3, A4, A5, A6, A7, A8),
    (A1, A2, A3, A4, A5, A6, A7, A8, A9),
    (A1, A2, A3, A4, A5, A6, A7, A8, A9, A10),
    (A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11),
    (A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12),
);

/// Calls `f` with the tuple `args` and records its trace.
///
/// If `f` is `#[tracked]`, the root is a nested call holding its tape; otherwise the root is a
/// primitive with no children. A panic in `f` propagates to the caller, and this thread's
/// recorder is left clean.
///
/// ```
/// use irtrack::{tracked, track};
///
/// #[tracked]
/// fn f(x: f64) -> f64 {
///     x.sin() + x
/// }
///
/// let trace = track(f, (1.0,));
/// assert_eq!(trace.root().value::<f64>(), Some(&1.8414709848078965));
/// assert_eq!(
///     trace.root().levels(2).to_string(),
///     "⟨f⟩(⟨1.0⟩) → 1.8414709848078965::f64
///   @1: [Arg:§1:%1] 1.0::f64
///   @2: [§1:%2] ⟨sin⟩(@1) → 0.8414709848078965::f64
///   @3: [§1:%3] ⟨+⟩(@2, @1) → 1.8414709848078965::f64
///   @4: [§1:&1] return @3 → 1.8414709848078965::f64
/// "
/// );
/// ```
pub fn track<F, A>(f: F, args: A) -> Trace
where
    F: Callable<A>,
{
    track_output(f, args).1
}

/// Like [`track`], and also returns what `f` returned.
///
/// ```
/// use irtrack::{tracked, track_output};
///
/// #[tracked]
/// fn halve(v: Vec<f64>) -> Vec<f64> {
///     v.iter().map(|x| x / 2.0).collect()
/// }
///
/// let (out, trace) = track_output(halve, (vec![2.0, 4.0],));
/// assert_eq!(out, vec![1.0, 2.0]);
/// assert_eq!(trace.root().value::<Vec<f64>>(), Some(&out));
/// ```
pub fn track_output<F, A>(f: F, args: A) -> (F::Output, Trace)
where
    F: Callable<A>,
{
    record(None, f, args)
}

/// Like [`track`], with a [`Context`] deciding what is primitive and what each node records.
///
/// ```
/// use irtrack::{tracked, track_with, DepthLimit, NodeKind};
///
/// #[tracked]
/// fn fact(n: u64) -> u64 {
///     if n == 0 { 1 } else { n * fact(n - 1) }
/// }
///
/// // The root is recorded; every call inside it is a primitive.
/// let trace = track_with(DepthLimit::new(2), fact, (5,));
/// let call = trace.root().children().find(|c| c.function_name() == Some("fact")).unwrap();
/// assert_eq!(call.kind(), NodeKind::PrimitiveCall);
/// assert_eq!(call.value::<u64>(), Some(&24));
/// ```
pub fn track_with<C, F, A>(ctx: C, f: F, args: A) -> Trace
where
    C: Context,
    F: Callable<A>,
{
    record(Some(Rc::new(ctx)), f, args).1
}

/// Like [`track`], but a panic in `f` does not propagate: it returns the trace recorded up to
/// the panic, in which every call the panic left ends in an [`Error`](NodeKind::Error) node
/// holding its message, together with the panic's payload. `f` is treated as unwind safe
/// (see [`std::panic::AssertUnwindSafe`]).
///
/// ```
/// use irtrack::{tracked, try_track, NodeKind};
///
/// #[tracked]
/// fn checked(x: f64) -> f64 {
///     assert!(x >= 0.0, "negative input");
///     x.sqrt()
/// }
///
/// let (trace, result) = try_track(checked, (-1.0,));
/// assert!(result.is_err());
/// let last = trace.root().children().last().unwrap();
/// assert_eq!(last.kind(), NodeKind::Error);
/// assert_eq!(last.value_text(), "\"negative input\"");
/// ```
pub fn try_track<F, A>(f: F, args: A) -> (Trace, std::thread::Result<F::Output>)
where
    F: Callable<A>,
{
    record_catching(None, f, args)
}

/// [`try_track`] with a [`Context`].
pub fn try_track_with<C, F, A>(ctx: C, f: F, args: A) -> (Trace, std::thread::Result<F::Output>)
where
    C: Context,
    F: Callable<A>,
{
    record_catching(Some(Rc::new(ctx)), f, args)
}

fn record<F, A>(ctx: Option<Rc<dyn Context>>, f: F, args: A) -> (F::Output, Trace)
where
    F: Callable<A>,
{
    let fn_type = std::any::type_name::<F>();
    let session = Session::start(ctx, short_fn_name(fn_type));
    session.announce_root(fn_type);
    let output = f.call_with(args);
    let (store, claimed, _) = session.finish();
    let trace = Trace::finish::<F::Output>(store, claimed, fn_type, None);
    (output, trace)
}

fn record_catching<F, A>(
    ctx: Option<Rc<dyn Context>>,
    f: F,
    args: A,
) -> (Trace, std::thread::Result<F::Output>)
where
    F: Callable<A>,
{
    let fn_type = std::any::type_name::<F>();
    let session = Session::start(ctx, short_fn_name(fn_type));
    session.announce_root(fn_type);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || f.call_with(args)));
    let (mut store, claimed, errors) = session.finish();
    let message = result
        .as_ref()
        .err()
        .map(|payload| panic_message(payload.as_ref()));
    if let Some(message) = &message {
        for e in errors {
            store.nodes[e.index()].value = message.clone();
        }
    }
    let trace = Trace::finish::<F::Output>(store, claimed, fn_type, message);
    (trace, result)
}

/// A panic payload as a value: its message when it is a string, else its type.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> Value {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        Value::snapshot(s.to_string()).renamed::<&str>()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        Value::snapshot(s.clone())
    } else {
        Value::opaque::<Box<dyn std::any::Any + Send>>()
    }
}

impl Trace {
    /// Builds the trace around its root: the claimed nested call (whose value is its return's,
    /// or the panic's message), or a primitive when nothing claimed the root call.
    fn finish<R>(
        mut store: Store,
        claimed: Option<NodeId>,
        fn_type: &'static str,
        panic: Option<Value>,
    ) -> Trace {
        let root = match claimed {
            Some(root) => {
                let value = store
                    .children(root)
                    .iter()
                    .rev()
                    .map(|&c| store.node(c))
                    .find(|n| n.kind == NodeKind::Return)
                    .map(|n| n.value.clone())
                    .or(panic)
                    .unwrap_or_else(Value::opaque::<R>);
                store.nodes[root.index()].value = value;
                root
            }
            None => {
                store.nodes.clear();
                store.metadata.clear();
                store.nodes.push(crate::node::NodeData {
                    kind: NodeKind::PrimitiveCall,
                    parent: NodeId::NONE,
                    position: 0,
                    entry: crate::recorder::ROOT_ENTRY,
                    refs_start: 0,
                    refs_len: 0,
                    extra: u32::MAX,
                    value: panic.unwrap_or_else(Value::opaque::<R>),
                });
                NodeId(0)
            }
        };
        Trace {
            store,
            root,
            root_name: short_fn_name(fn_type),
        }
    }
}

/// `crate::module::f` → `f`; `<T as Tr>::m` → `m`; closures keep `{{closure}}`.
fn short_fn_name(path: &'static str) -> &'static str {
    let base = match path.find('<') {
        Some(i) if !path.starts_with('<') => &path[..i],
        _ => path,
    };
    base.rsplit("::").next().unwrap_or(base)
}

impl Trace {
    /// The root node: the call `track` made.
    pub fn root(&self) -> NodeRef<'_> {
        NodeRef {
            trace: self,
            id: self.root,
        }
    }

    /// The number of nodes in the trace, at every level.
    pub fn len(&self) -> usize {
        self.store.nodes.len()
    }

    /// Whether the trace has no node (never: it always has a root).
    pub fn is_empty(&self) -> bool {
        self.store.nodes.is_empty()
    }

    /// Every node, in the order it was recorded.
    pub fn nodes(&self) -> impl Iterator<Item = NodeRef<'_>> + '_ {
        (0..self.store.nodes.len() as u32).map(move |i| NodeRef {
            trace: self,
            id: NodeId(i),
        })
    }

    pub(crate) fn root_name(&self) -> &'static str {
        self.root_name
    }

    /// A trace made of a store built elsewhere (an import), with its root and root name.
    #[cfg(feature = "serde")]
    pub(crate) fn from_parts(store: Store, root: NodeId, root_name: &'static str) -> Trace {
        Trace {
            store,
            root,
            root_name,
        }
    }

    /// A handle to change node `id`'s metadata after recording (adjoints are written so).
    ///
    /// ```
    /// use irtrack::{tracked, track};
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 { x.sin() + x }
    ///
    /// let mut trace = track(f, (1.0,));
    /// let ret = trace.root().child(4).unwrap().id();
    /// trace.node_mut(ret).set("adjoint", 1.0);
    /// assert_eq!(trace.node_mut(ret).get_or_insert_with("visits", || 0u32), 0);
    /// assert_eq!(trace.root().child(4).unwrap().metadata::<f64>("adjoint"), Some(&1.0));
    /// assert!(trace.root().levels(2).to_string().ends_with("\t[adjoint = 1.0, visits = 0]\n"));
    /// ```
    ///
    /// # Panics
    /// If `id` is not a node of this trace (ids come from [`NodeRef::id`] of the same trace).
    pub fn node_mut(&mut self, id: NodeId) -> NodeMut<'_> {
        assert!(
            id.index() < self.store.nodes.len(),
            "{id} is not a node of this trace"
        );
        NodeMut { trace: self, id }
    }
}

/// Changes one node's metadata; see [`Trace::node_mut`].
pub struct NodeMut<'t> {
    trace: &'t mut Trace,
    id: NodeId,
}

impl NodeMut<'_> {
    fn entries(&mut self) -> &mut Vec<(&'static str, Value)> {
        self.trace.store.metadata.entry(self.id).or_default()
    }

    /// Sets `key` to `value` (replacing it, in place, if set); printed in the order first set.
    pub fn set<T: crate::value::Owned>(&mut self, key: &'static str, value: T) {
        self.set_value(key, Value::snapshot(value));
    }

    /// Sets `key` to a [`Value`].
    pub fn set_value(&mut self, key: &'static str, value: Value) {
        let entries = self.entries();
        match entries.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => entries.push((key, value)),
        }
    }

    /// The value under `key`, if it is stored as a `T`.
    pub fn get<T: 'static>(&self, key: &str) -> Option<&T> {
        self.trace
            .store
            .metadata
            .get(&self.id)?
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.downcast_ref())
    }

    /// The value under `key` as a `T`, or `default` when it is missing or of another type.
    pub fn get_or<T: Clone + 'static>(&self, key: &str, default: T) -> T {
        self.get(key).cloned().unwrap_or(default)
    }

    /// The value under `key`, first setting it to `make()` when it is missing or not a `T`.
    /// Returns a copy; write changes back with [`set`](NodeMut::set).
    pub fn get_or_insert_with<T: crate::value::Owned>(
        &mut self,
        key: &'static str,
        make: impl FnOnce() -> T,
    ) -> T {
        if let Some(v) = self.get::<T>(key) {
            return v.clone();
        }
        let v = make();
        self.set(key, v.clone());
        v
    }

    /// Removes `key`; returns whether it was set.
    pub fn remove(&mut self, key: &str) -> bool {
        let entries = self.entries();
        let before = entries.len();
        entries.retain(|(k, _)| *k != key);
        before != entries.len()
    }
}

/// A dropped trace gives its buffers to the next recording on the thread that drops it.
impl Drop for Trace {
    fn drop(&mut self) {
        std::mem::take(&mut self.store).recycle();
    }
}

impl std::fmt::Display for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.root(), f)
    }
}

impl std::fmt::Debug for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.root(), f)
    }
}

/// A copyable handle on one node of a [`Trace`].
#[derive(Clone, Copy)]
pub struct NodeRef<'t> {
    pub(crate) trace: &'t Trace,
    pub(crate) id: NodeId,
}

/// An argument of a call or a value used by a node: another node, or a literal constant.
#[derive(Clone, Copy, Debug)]
pub enum Arg<'t> {
    /// A value recorded by a node.
    Node(NodeRef<'t>),
    /// A literal written in the source, as written.
    Const(&'static str),
}

impl PartialEq for NodeRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.trace, other.trace) && self.id == other.id
    }
}
impl Eq for NodeRef<'_> {}

impl<'t> NodeRef<'t> {
    fn data(&self) -> &'t crate::node::NodeData {
        self.trace.store.node(self.id)
    }

    fn at(&self, id: NodeId) -> NodeRef<'t> {
        NodeRef {
            trace: self.trace,
            id,
        }
    }

    /// The node's id in the trace's arena.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// What the node records.
    pub fn kind(&self) -> NodeKind {
        self.data().kind
    }

    /// The children of a nested call, in execution order; empty for other nodes.
    pub fn children(&self) -> impl ExactSizeIterator<Item = NodeRef<'t>> + 't {
        let trace = self.trace;
        trace
            .store
            .children(self.id)
            .iter()
            .map(move |&id| NodeRef { trace, id })
    }

    /// The child printed as `@pos` (positions start at 1).
    pub fn child(&self, pos: usize) -> Option<NodeRef<'t>> {
        let id = *self
            .trace
            .store
            .children(self.id)
            .get(pos.checked_sub(1)?)?;
        Some(self.at(id))
    }

    /// The nested call this node was recorded in; `None` for the root.
    pub fn parent(&self) -> Option<NodeRef<'t>> {
        let p = self.data().parent;
        (!p.is_none()).then(|| self.at(p))
    }

    /// The position `@pos` among the parent's children; `None` for the root.
    pub fn position(&self) -> Option<usize> {
        let data = self.data();
        (!data.parent.is_none()).then_some(data.position as usize)
    }

    /// The IR of the function this node was recorded in; `None` for the root.
    pub fn ir(&self) -> Option<&'static FnIr> {
        self.trace.store.ir_of(self.id)
    }

    /// For a nested call, the IR of the called function (whose statements its children ran).
    pub fn callee_ir(&self) -> Option<&'static FnIr> {
        self.trace.store.call(self.id).map(|c| c.ir)
    }

    /// The static entry this node executed; `None` for the root.
    pub fn entry(&self) -> Option<&'static crate::ir::Entry> {
        let i = self.data().entry;
        self.ir().and_then(|ir| ir.entries.get(i as usize))
    }

    /// Where in the function's IR the node was recorded (`§2:%5`); `None` for the root.
    pub fn location(&self) -> Option<Location> {
        self.entry().map(|e| e.location)
    }

    /// The recorded value, if it was stored as a `T` (scalars and [`Snapshot`](crate::Snapshot)
    /// types). Jumps hold `()`.
    pub fn value<T: 'static>(&self) -> Option<&'t T> {
        self.data().value.downcast_ref()
    }

    /// The recorded value as captured: a snapshot, `Debug` text, or only a type name.
    pub fn raw_value(&self) -> &'t Value {
        &self.data().value
    }

    /// The value's `Debug` text in full (`_` when only its type is known).
    pub fn value_text(&self) -> String {
        self.data().value.to_string()
    }

    /// The value's type name with module paths dropped (`Vec<f64>`, `&mut StdRng`).
    pub fn type_name(&self) -> String {
        crate::print::short_type_name(self.data().value.type_name())
    }

    /// For a call, the name of the function called as written at the call site (`sin`,
    /// `other::sq`, `+`); for the root, the function passed to `track`. `None` otherwise.
    pub fn function_name(&self) -> Option<&'static str> {
        if self.data().parent.is_none() {
            return Some(
                self.callee_ir()
                    .map(|ir| ir.name)
                    .unwrap_or(self.trace.root_name()),
            );
        }
        match self.kind() {
            NodeKind::PrimitiveCall | NodeKind::NestedCall => self.entry().map(|e| e.head),
            _ => None,
        }
    }

    /// The values the node uses, in argument order: a call's arguments (the receiver first for
    /// a method), a special's operands, a jump's block arguments then its condition, a return's
    /// value. For the root, its function's argument nodes.
    pub fn arguments(&self) -> Vec<Arg<'t>> {
        if self.data().parent.is_none() {
            return self
                .children()
                .filter(|c| {
                    c.kind() == NodeKind::Argument && c.location().is_some_and(|l| l.block == 1)
                })
                .map(Arg::Node)
                .collect();
        }
        let Some(entry) = self.entry() else {
            return Vec::new();
        };
        let refs = self.trace.store.refs(self.id);
        let condition = [entry.condition];
        let statics = entry
            .operands
            .iter()
            .chain(condition.iter().filter(|c| **c != Operand::None));
        statics
            .zip(refs)
            .map(|(op, &r)| match op {
                Operand::Const(c) => Arg::Const(c),
                _ if r.is_none() => Arg::Const("_"),
                _ => Arg::Node(self.at(r)),
            })
            .collect()
    }

    /// The metadata attached to the node (by a [`Context`]), in the order it was set.
    pub fn metadata_values(&self) -> impl Iterator<Item = (&'static str, &'t Value)> + 't {
        self.trace
            .store
            .metadata
            .get(&self.id)
            .into_iter()
            .flatten()
            .map(|(k, v)| (*k, v))
    }

    /// The metadata value under `key`, if it is stored as a `T`.
    pub fn metadata<T: 'static>(&self, key: &str) -> Option<&'t T> {
        self.metadata_values()
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.downcast_ref())
    }

    /// The metadata value under `key` as a `T`, or `default`.
    pub fn metadata_or<T: Clone + 'static>(&self, key: &str, default: T) -> T {
        self.metadata(key).cloned().unwrap_or(default)
    }

    /// For a block argument `@p#n`, the jump `@p` that supplied it and `n`.
    pub fn block_argument_of(&self) -> Option<(NodeRef<'t>, usize)> {
        if self.kind() != NodeKind::Argument {
            return None;
        }
        let jump = NodeId(self.data().extra);
        if jump.is_none() {
            return None;
        }
        let entry = self.entry()?;
        let ir = self.ir()?;
        let n = ir
            .entries
            .iter()
            .filter(|e| e.kind == EntryKind::Argument && e.location.block == entry.location.block)
            .position(|e| std::ptr::eq(e, entry))?;
        Some((self.at(jump), n + 1))
    }

    /// The listing of this node and `levels - 1` levels of children below it.
    pub fn levels(&self, levels: usize) -> crate::print::Listing<'t> {
        crate::print::Listing::new(*self, levels)
    }
}

/// `Debug` is the node's own line of the listing, without a newline.
impl std::fmt::Debug for NodeRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let line = self.levels(1).to_string();
        f.write_str(line.trim_end_matches('\n'))
    }
}

/// The full nested listing of the node and everything below it.
impl std::fmt::Display for NodeRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.levels(usize::MAX))
    }
}
