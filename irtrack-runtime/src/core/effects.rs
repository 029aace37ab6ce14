//! What a node depends on that its references do not show. References name the values an
//! entry's operands resolved to, as recorded; but a value can change after it was recorded
//! (`v[0] = x` writes into `v`, `c.set(x)` into a `Cell`, `*r = x` into what `r` borrows), and a
//! closure's body reads the variables it captured, which its call does not reference. The
//! queries ([`NodeRef::backward`](crate::NodeRef::backward) and the like) follow both.

use super::ids::NodeId;
use super::tape::{NodeKind, Store};
use super::writes::all_writes_in_place;
use std::collections::HashMap;

/// For each node, the earlier siblings whose effects it reads; and the reverse.
#[derive(Default)]
pub(crate) struct Effects {
    /// The earlier siblings whose effects a node reads, in recording order, each once: every
    /// write in place into a value it references, made before it (the sibling that holds the
    /// write, where it was made inside a call), and for a call of a closure, the node that
    /// made the closure (which references what it captured).
    pub uses: HashMap<NodeId, Vec<NodeId>>,
    /// The later siblings that read a node's effects (the reverse of `uses`).
    pub users: HashMap<NodeId, Vec<NodeId>>,
}

impl Effects {
    /// Finds the effects read in `store`, with each node's parent call (`u32::MAX` for the
    /// root) from the trace's index.
    pub(crate) fn build(store: &Store, parent: &[u32]) -> Effects {
        let mut effects = Effects::default();
        let writes = all_writes_in_place(store);
        if writes.is_empty() && store.closure_values.is_empty() {
            return effects;
        }
        // The ancestor of `n` (or `n` itself) that is a child of call `p`.
        let lift = |mut n: NodeId, p: u32| -> Option<NodeId> {
            while n.index() < parent.len() {
                let q = parent[n.index()];
                if q == p {
                    return Some(n);
                }
                if q == u32::MAX {
                    return None;
                }
                n = NodeId(q);
            }
            None
        };
        for i in 1..store.len() as u32 {
            let id = NodeId(i);
            let p = parent[id.index()];
            if p == u32::MAX {
                continue;
            }
            let mut read: Vec<NodeId> = store.refs(id).filter(|r| !r.is_none()).collect();
            let mut uses: Vec<NodeId> = Vec::new();
            if store.node(id).kind == NodeKind::NestedCall {
                if let Some(made) = store.closure_made_of(id) {
                    // What it captured by reference is read when it is called: a write into it
                    // between the closure's making and its call is read too.
                    read.extend(store.refs(made).filter(|r| !r.is_none()));
                    read.push(made);
                    uses.extend(lift(made, p));
                }
            }
            for r in read {
                for &w in writes.get(&r).into_iter().flatten() {
                    if w.0 < i {
                        uses.extend(lift(w, p));
                    }
                }
            }
            uses.retain(|u| u.0 < i);
            if uses.is_empty() {
                continue;
            }
            uses.sort_unstable();
            uses.dedup();
            for &u in &uses {
                effects.users.entry(u).or_default().push(id);
            }
            effects.uses.insert(id, uses);
        }
        effects
    }
}
