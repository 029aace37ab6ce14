//! A recorded trace as data: the tape and its root, with the tree index computed on first use.
//! Reading it (node handles, queries, listings) is the `view` layer's; building it is the
//! `record` layer's and JSON import's.

use super::ids::NodeId;
use super::tape::Store;
use std::sync::OnceLock;

/// A recorded trace: an arena of nodes with one root. Owns everything; `Send` and `Sync`.
pub struct Trace {
    pub(crate) store: Store,
    pub(crate) root: NodeId,
    root_name: std::borrow::Cow<'static, str>,
    /// The full type name of what `track` called.
    root_type: &'static str,
    /// Whether what `track` called is a zero-sized fn item or closure (its type names its
    /// code), as opposed to a function pointer or a capturing closure.
    root_named: bool,
    /// Parents, positions and dependents, computed when first asked.
    index: OnceLock<Index>,
    /// What nodes depend on beyond their references, computed when first asked.
    effects: OnceLock<super::effects::Effects>,
    /// Whether the trace was checked when first read (the `verify-traces` feature).
    pub(crate) checked: std::sync::atomic::AtomicBool,
}

/// What a node's place in the tree is, for every node: computed once, in one pass.
pub(crate) struct Index {
    pub parent: Vec<u32>,
    pub position: Vec<u32>,
    /// The children of call `c` (by index in `Store::calls`) are
    /// `children[children_start[c]..children_start[c + 1]]`.
    pub children_start: Vec<u32>,
    pub children: Vec<u32>,
    /// For each node, the nodes that reference it (`dependents_start[i]..[i + 1]`).
    pub dependents_start: Vec<u32>,
    pub dependents: Vec<u32>,
}

impl Trace {
    pub(crate) fn new(
        store: Store,
        root: NodeId,
        root_name: impl Into<std::borrow::Cow<'static, str>>,
        root_type: &'static str,
        root_named: bool,
    ) -> Trace {
        Trace {
            store,
            root,
            root_name: root_name.into(),
            root_type,
            root_named,
            index: OnceLock::new(),
            effects: OnceLock::new(),
            checked: std::sync::atomic::AtomicBool::new(false),
        }
    }

    pub(crate) fn root_name(&self) -> &str {
        &self.root_name
    }

    /// The full type name of the function `track` called, and whether its type names its
    /// code (a fn item or a closure without captures; a function pointer does not).
    pub(crate) fn root_callee(&self) -> (&'static str, bool) {
        (self.root_type, self.root_named)
    }

    pub(crate) fn index(&self) -> &Index {
        self.index.get_or_init(|| Index::build(&self.store))
    }

    /// The effects each node reads that its references do not show ([`Effects`]).
    ///
    /// [`Effects`]: super::effects::Effects
    pub(crate) fn effects(&self) -> &super::effects::Effects {
        self.effects
            .get_or_init(|| super::effects::Effects::build(&self.store, &self.index().parent))
    }

    /// The nested call each node is a child of (`u32::MAX` for the root): the index's, when
    /// it is built, else made alone, without the dependents the index also lists (a gradient
    /// of a fresh trace needs only this; the whole index was a quarter of what a mat-vec
    /// gradient spent outside its two products).
    pub(crate) fn parents(&self) -> std::borrow::Cow<'_, [u32]> {
        match self.index.get() {
            Some(index) => std::borrow::Cow::Borrowed(&index.parent),
            None => std::borrow::Cow::Owned(Index::parents(&self.store)),
        }
    }
}

impl Index {
    /// Each node's parent call (`u32::MAX` for the root).
    fn parents(store: &Store) -> Vec<u32> {
        let mut parent = vec![u32::MAX; store.len()];
        for call in store.calls.iter() {
            for child in store.children(call.node) {
                parent[child.index()] = call.node.0;
            }
        }
        parent
    }

    pub(crate) fn build(store: &Store) -> Index {
        let n = store.len();
        let parent = Index::parents(store);
        let mut position = vec![0; n];
        let mut children_start = Vec::with_capacity(store.calls.len() + 1);
        let mut children = Vec::with_capacity(n.saturating_sub(1));
        for call in store.calls.iter() {
            children_start.push(children.len() as u32);
            for (k, child) in store.children(call.node).enumerate() {
                position[child.index()] = k as u32 + 1;
                children.push(child.0);
            }
        }
        children_start.push(children.len() as u32);
        let mut count = vec![0u32; n + 1];
        for i in 0..n as u32 {
            for r in store.refs(NodeId(i)) {
                if !r.is_none() && r.index() < n {
                    count[r.index()] += 1;
                }
            }
        }
        let mut dependents_start = Vec::with_capacity(n + 1);
        let mut total = 0;
        for c in &count {
            dependents_start.push(total);
            total += c;
        }
        let mut fill = dependents_start.clone();
        let mut dependents = vec![0; total as usize];
        for i in 0..n as u32 {
            for r in store.refs(NodeId(i)) {
                if !r.is_none() && r.index() < n {
                    let at = &mut fill[r.index()];
                    // A node referencing the same node twice is listed once.
                    if *at == dependents_start[r.index()] || dependents[*at as usize - 1] != i {
                        dependents[*at as usize] = i;
                        *at += 1;
                    }
                }
            }
        }
        // Close the gaps left by duplicates.
        let mut compact = Vec::with_capacity(dependents.len());
        let mut starts = Vec::with_capacity(n + 1);
        for i in 0..n {
            starts.push(compact.len() as u32);
            compact.extend_from_slice(&dependents[dependents_start[i] as usize..fill[i] as usize]);
        }
        starts.push(compact.len() as u32);
        Index {
            parent,
            position,
            children_start,
            children,
            dependents_start: starts,
            dependents: compact,
        }
    }
}
