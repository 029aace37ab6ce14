//! Node storage: an arena of small nodes addressed by `u32` ids, with side tables for the
//! references of each node and the children of each nested call.

use crate::ir::FnIr;
use crate::value::Value;
use std::fmt;

/// The id of a node in its trace's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    pub(crate) const NONE: NodeId = NodeId(u32::MAX);

    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }

    pub(crate) fn is_none(self) -> bool {
        self == NodeId::NONE
    }
}

/// The arena id prints as `#n`; the printed listing uses positions (`@i`) instead.
impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// What a node records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// A function argument or a block argument (`[Arg:§b:%i]`).
    Argument,
    /// A named constant or captured variable (`[Const:§b:%i]`).
    Constant,
    /// A call that was not recorded inside: an untracked function, method or operator.
    PrimitiveCall,
    /// A call of a `#[tracked]` function, holding that call's own tape as children.
    NestedCall,
    /// A non-call construct: struct literal, macro, cast, field access, pattern binding, `?`.
    Special,
    /// A branch taken (`goto §b`).
    Jump,
    /// A return (`return @i`).
    Return,
    /// A panic unwinding out of the call: the last node of every call it left, holding the
    /// panic's message (see [`try_track`](crate::try_track)).
    Error,
}

#[derive(Clone)]
pub(crate) struct NodeData {
    pub kind: NodeKind,
    pub parent: NodeId,
    /// 1-based position among the parent's children (`@position`); 0 for the root.
    pub position: u32,
    /// Index of the static entry in the parent's function IR; `u32::MAX` for the root.
    pub entry: u32,
    /// Range in `Store::refs`.
    pub refs_start: u32,
    pub refs_len: u32,
    /// Nested call: index in `Store::calls`; block argument: the jump that supplied it;
    /// primitive call of a path: index in `Store::callees`.
    pub extra: u32,
    pub value: Value,
}

/// The tape of one nested call.
pub(crate) struct CallData {
    pub ir: &'static FnIr,
    /// The type name the call was announced with (the callee's full path), or `""` for a
    /// method call, whose identity is its receiver's type and its name.
    pub callee: &'static str,
    pub children_start: u32,
    pub children_len: u32,
}

#[derive(Default)]
pub(crate) struct Store {
    pub nodes: Vec<NodeData>,
    /// Resolved operands, aligned with each node's static operands; `NodeId::NONE` where the
    /// operand is a constant or no value.
    pub refs: Vec<NodeId>,
    pub calls: Vec<CallData>,
    /// The type names (full paths) of the primitive calls of paths, which gradient rules are
    /// found by.
    pub callees: Vec<&'static str>,
    pub children: Vec<NodeId>,
    /// Metadata attached by contexts, in the order set.
    pub metadata: std::collections::HashMap<NodeId, Vec<(&'static str, Value)>>,
}

thread_local! {
    /// The buffers of the last trace dropped on this thread, kept to record the next one: a
    /// fresh arena costs page faults on every node it grows into.
    static SPARE: std::cell::RefCell<Option<Store>> = const { std::cell::RefCell::new(None) };
}

/// A spare store keeps at most this many bytes of buffers.
const SPARE_LIMIT: usize = 256 << 20;

impl Store {
    /// An empty store, reusing the buffers of a trace dropped earlier on this thread.
    pub fn recycled() -> Store {
        SPARE
            .try_with(|s| s.borrow_mut().take())
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    /// Empties the store and keeps its buffers for the next recording on this thread.
    pub fn recycle(mut self) {
        self.nodes.clear();
        self.refs.clear();
        self.calls.clear();
        self.callees.clear();
        self.children.clear();
        self.metadata.clear();
        let bytes = self.nodes.capacity() * std::mem::size_of::<NodeData>()
            + self.refs.capacity() * std::mem::size_of::<NodeId>()
            + self.children.capacity() * std::mem::size_of::<NodeId>()
            + self.calls.capacity() * std::mem::size_of::<CallData>();
        if bytes <= SPARE_LIMIT {
            let _ = SPARE.try_with(|s| *s.borrow_mut() = Some(self));
        }
    }

    pub fn node(&self, id: NodeId) -> &NodeData {
        &self.nodes[id.index()]
    }

    pub fn refs(&self, id: NodeId) -> &[NodeId] {
        let n = self.node(id);
        &self.refs[n.refs_start as usize..(n.refs_start + n.refs_len) as usize]
    }

    pub fn call(&self, id: NodeId) -> Option<&CallData> {
        let n = self.node(id);
        (n.kind == NodeKind::NestedCall).then(|| &self.calls[n.extra as usize])
    }

    pub fn children(&self, id: NodeId) -> &[NodeId] {
        match self.call(id) {
            Some(c) => {
                let start = c.children_start as usize;
                &self.children[start..start + c.children_len as usize]
            }
            None => &[],
        }
    }

    /// The full type name of the callee of a path call (primitive or nested), as announced.
    pub fn callee(&self, id: NodeId) -> Option<&'static str> {
        let n = self.node(id);
        match n.kind {
            NodeKind::NestedCall => {
                Some(self.calls[n.extra as usize].callee).filter(|c| !c.is_empty())
            }
            NodeKind::PrimitiveCall if n.extra != u32::MAX => {
                self.callees.get(n.extra as usize).copied()
            }
            _ => None,
        }
    }

    /// The IR of the function whose tape holds `id` (its parent's callee).
    pub fn ir_of(&self, id: NodeId) -> Option<&'static FnIr> {
        let parent = self.node(id).parent;
        if parent.is_none() {
            return None;
        }
        self.call(parent).map(|c| c.ir)
    }
}
