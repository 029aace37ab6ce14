//! The read-only view of a recorded trace: [`Trace`], node handles ([`NodeRef`]) and metadata
//! changes after recording ([`NodeMut`]).

use crate::core::ids::NodeId;
use crate::core::ir::{Entry, FnIr, IrRef, Location, Operand};
use crate::core::tape::{MetaKey, NodeKind, Store};
pub use crate::core::trace::Trace;
use crate::core::value::Value;

impl Trace {
    /// The root node: the call `track` made.
    pub fn root(&self) -> NodeRef<'_> {
        self.check_when_first_read();
        NodeRef {
            trace: self,
            id: self.root,
        }
    }

    /// The number of nodes in the trace, at every level.
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// Whether the trace has no node (never: it always has a root).
    pub fn is_empty(&self) -> bool {
        self.store.len() == 0
    }

    /// Every node, in the order it was recorded.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = NodeRef<'_>> + '_ {
        self.check_when_first_read();
        (0..self.store.len() as u32).map(move |i| NodeRef {
            trace: self,
            id: NodeId(i),
        })
    }

    /// The node with id `id`, if the trace has one.
    pub fn node(&self, id: NodeId) -> Option<NodeRef<'_>> {
        self.check_when_first_read();
        (id.index() < self.store.len()).then_some(NodeRef { trace: self, id })
    }

    /// Bytes of memory the trace's buffers hold.
    pub fn memory(&self) -> usize {
        self.store.capacity_bytes()
    }

    /// The ids of the children of node `id` (none unless it is a nested call).
    pub(crate) fn children_ids(&self, id: NodeId) -> &[u32] {
        let n = self.store.node(id);
        if n.kind != NodeKind::NestedCall {
            return &[];
        }
        let index = self.index();
        let c = n.value as usize;
        match (index.children_start.get(c), index.children_start.get(c + 1)) {
            (Some(&a), Some(&b)) => &index.children[a as usize..b as usize],
            _ => &[],
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
            id.index() < self.store.len(),
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
    fn entries(&mut self) -> &mut Vec<(MetaKey, Value)> {
        self.trace.store.metadata.entry(self.id).or_default()
    }

    /// Sets `key` to `value` (replacing it, in place, if set); printed in the order first set.
    pub fn set<T: crate::core::value::Owned>(&mut self, key: &'static str, value: T) {
        self.set_value(key, Value::snapshot(value));
    }

    /// Sets `key` to a [`Value`].
    pub fn set_value(&mut self, key: impl Into<MetaKey>, value: Value) {
        let key = key.into();
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
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.downcast_ref())
    }

    /// The value under `key` as a `T`, or `default` when it is missing or of another type.
    pub fn get_or<T: Clone + 'static>(&self, key: &str, default: T) -> T {
        self.get(key).cloned().unwrap_or(default)
    }

    /// The value under `key`, first setting it to `make()` when it is missing or not a `T`.
    /// Returns a copy; write changes back with [`set`](NodeMut::set).
    pub fn get_or_insert_with<T: crate::core::value::Owned>(
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
        entries.retain(|(k, _)| k != key);
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
    /// A literal written in the source, as written (`_` for a value the lowering does not
    /// record, such as a closure).
    Const(&'t str),
}

impl PartialEq for NodeRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.trace, other.trace) && self.id == other.id
    }
}
impl Eq for NodeRef<'_> {}

impl std::hash::Hash for NodeRef<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl<'t> NodeRef<'t> {
    pub(crate) fn store(&self) -> &'t Store {
        &self.trace.store
    }

    pub(crate) fn at(&self, id: NodeId) -> NodeRef<'t> {
        NodeRef {
            trace: self.trace,
            id,
        }
    }

    /// The node's id in the trace's arena.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// The trace the node belongs to.
    pub fn trace(&self) -> &'t Trace {
        self.trace
    }

    /// What the node records.
    pub fn kind(&self) -> NodeKind {
        self.store().node(self.id).kind
    }

    /// The children of a nested call, in execution order; empty for other nodes.
    pub fn children(
        &self,
    ) -> impl ExactSizeIterator<Item = NodeRef<'t>> + DoubleEndedIterator + 't {
        let trace = self.trace;
        trace.children_ids(self.id).iter().map(move |&id| NodeRef {
            trace,
            id: NodeId(id),
        })
    }

    /// The child printed as `@pos` (positions start at 1).
    pub fn child(&self, pos: usize) -> Option<NodeRef<'t>> {
        let id = *self.trace.children_ids(self.id).get(pos.checked_sub(1)?)?;
        Some(self.at(NodeId(id)))
    }

    /// The nested call this node was recorded in; `None` for the root.
    pub fn parent(&self) -> Option<NodeRef<'t>> {
        let p = self.trace.index().parent[self.id.index()];
        (p != u32::MAX).then(|| self.at(NodeId(p)))
    }

    /// The position `@pos` among the parent's children; `None` for the root.
    pub fn position(&self) -> Option<usize> {
        let p = self.trace.index().position[self.id.index()];
        (p != 0).then_some(p as usize)
    }

    /// The IR of the function this node was recorded in; `None` for the root.
    pub fn ir(&self) -> Option<&'t FnIr> {
        // The index's parent is one load; the store's is a search over the calls.
        let p = self.trace.index().parent[self.id.index()];
        if p == u32::MAX {
            return None;
        }
        self.store().nested_ir(NodeId(p)).map(|ir| &**ir)
    }

    /// For a nested call, the IR of the called function (whose statements its children ran).
    pub fn callee_ir(&self) -> Option<&'t FnIr> {
        self.store().nested_ir(self.id).map(|ir| &**ir)
    }

    /// For a nested call, a shared handle on the called function's IR.
    pub fn callee_ir_ref(&self) -> Option<IrRef> {
        self.store().nested_ir(self.id).cloned()
    }

    /// The entry this node executed; `None` for the root and for errors.
    pub fn entry(&self) -> Option<&'t Entry> {
        let e = self.store().node(self.id).entry;
        self.ir()?.entries.get(e as usize)
    }

    /// Where in the function's IR the node was recorded (`§2:%5`); `None` for the root.
    pub fn location(&self) -> Option<Location> {
        self.entry().map(|e| e.location)
    }

    /// The recorded value, if it was stored as a `T` (scalars and [`Snapshot`](crate::Snapshot)
    /// types). Jumps hold `()`.
    pub fn value<T: 'static>(&self) -> Option<&'t T> {
        let store = self.store();
        store.downcast_at(store.slot(self.id))
    }

    /// The recorded value as captured: a typed scalar, a snapshot, `Debug` text, or only a
    /// type.
    pub fn raw_value(&self) -> Value {
        self.store().value(self.id)
    }

    /// The value as an `f64`, when it is a float (also behind a reference).
    pub fn as_f64(&self) -> Option<f64> {
        self.store().f64_of(self.id)
    }

    /// The value's `Debug` text in full (`_` when only its type is known).
    pub fn value_text(&self) -> String {
        self.raw_value().to_string()
    }

    /// The value's type name with module paths dropped (`Vec<f64>`, `&mut StdRng`).
    pub fn type_name(&self) -> String {
        super::listing::short_type_name(self.raw_value().type_name())
    }

    /// For a call, the name of the function called as written at the call site (`sin`,
    /// `other::sq`, `+`); for the root, the function passed to `track`. `None` otherwise.
    pub fn function_name(&self) -> Option<&'t str> {
        if self.id == self.trace.root {
            return Some(
                self.callee_ir()
                    .map(|ir| ir.name.as_str())
                    .unwrap_or(self.trace.root_name()),
            );
        }
        match self.kind() {
            NodeKind::PrimitiveCall | NodeKind::NestedCall => self.entry().map(|e| e.head.as_str()),
            _ => None,
        }
    }

    /// The values the node uses, in argument order: a call's arguments (the receiver first for
    /// a method), a special's operands, a jump's block arguments then its condition, a return's
    /// value. For the root, its function's argument nodes (none for a primitive root: its
    /// values are in [`argument_values`](Self::argument_values)).
    pub fn arguments(&self) -> Vec<Arg<'t>> {
        if self.id == self.trace.root {
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
        let store = self.store();
        let condition = [&entry.condition];
        let statics = entry
            .operands
            .iter()
            .chain(condition.into_iter().filter(|c| !c.is_none()));
        statics
            .enumerate()
            .map(|(k, op)| {
                let r = store.ref_at(self.id, k);
                match op {
                    Operand::Const(c) => Arg::Const(c.as_str()),
                    _ if r.is_none() => Arg::Const("_"),
                    _ => Arg::Node(self.at(r)),
                }
            })
            .collect()
    }

    /// The values of the node's arguments, in order: for the root, the values `track` called
    /// it with (also when the root is a primitive, under a [`DepthLimit`](crate::DepthLimit)
    /// of 1, and has no argument nodes); for any other node, [`operand_values`](Self::operand_values)
    /// (recorded values, and literals read as their type).
    ///
    /// ```
    /// use irtrack::{track_with, tracked, DepthLimit};
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 { x.sin() }
    ///
    /// let trace = track_with(DepthLimit::new(1), f, (0.5,));
    /// assert_eq!(trace.root().argument_values()[0].as_f64(), Some(0.5));
    /// ```
    pub fn argument_values(&self) -> Vec<Value> {
        if self.id != self.trace.root {
            return self.operand_values();
        }
        let nodes = self.arguments();
        if nodes.is_empty() {
            return self.store().root_args.clone();
        }
        nodes
            .into_iter()
            .map(|a| match a {
                Arg::Node(n) => n.raw_value(),
                Arg::Const(c) => crate::core::literal::value(c),
            })
            .collect()
    }

    /// For a branch, the node of the condition that decided it, whichever way it went: the
    /// condition a conditional branch tests (`goto §4 since @5 == false`), or, for a branch
    /// taken because an earlier branch of its block was not, that branch's condition (the
    /// `goto §3` after it). `None` for an unconditional branch and for other nodes.
    ///
    /// ```
    /// use irtrack::{tracked, track};
    ///
    /// #[tracked]
    /// fn relu(x: f64) -> f64 {
    ///     if x > 0.0 { x } else { 0.0 }
    /// }
    ///
    /// let trace = track(relu, (2.0,));
    /// let root = trace.root();
    /// // @2: [§1:%2] ⟨>⟩(@1, ⟨0.0⟩) → true, then @3: [§1:&2] goto §2
    /// let taken = root.child(3).unwrap();
    /// assert_eq!(taken.control(), root.child(2));
    /// ```
    pub fn control(&self) -> Option<NodeRef<'t>> {
        let entry = self.entry()?;
        if !entry.kind.is_branch() {
            return None;
        }
        if entry.condition.is_none() && entry.control.is_none() {
            return None;
        }
        let r = self.store().ref_at(self.id, entry.operands.len());
        (!r.is_none()).then(|| self.at(r))
    }

    /// The metadata attached to the node (by a [`Context`](crate::Context) or a layer), in the
    /// order it was set.
    pub fn metadata_values(&self) -> impl Iterator<Item = (&'t str, &'t Value)> + 't {
        self.store()
            .metadata
            .get(&self.id)
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.as_ref(), v))
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
        let entry = self.entry()?;
        if entry.location.block == 1 {
            return None;
        }
        // The arguments follow the jump that passed them, in order.
        let ir = self.ir()?;
        let n = ir
            .block_arguments(entry.location.block)
            .position(|e| e.location == entry.location)?;
        let jump = NodeId(self.id.0.checked_sub(n as u32 + 1)?);
        let j = self.at(jump);
        (j.kind() == NodeKind::Jump).then_some((j, n + 1))
    }

    /// The listing of this node and `levels - 1` levels of children below it.
    pub fn levels(&self, levels: usize) -> super::listing::Listing<'t> {
        super::listing::Listing::new(*self, levels)
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
