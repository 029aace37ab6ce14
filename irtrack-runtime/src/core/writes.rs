//! What writes into memory may have changed. A trace keeps values, not memory: a write
//! (`w[i] = x`, `*r += x`, a `&mut` call, a user's macro) changes a value whose recorded
//! snapshot is from before, so whatever reads that node afterwards reads a value the trace
//! does not show. Programs, updates and gradients ask here which nodes those are.

use super::ids::NodeId;
use super::ir::EntryKind;
use super::op::Builtin;
use super::tape::{NodeKind, Store};
use std::collections::HashMap;

/// The nodes a write into memory may have changed in place, each with the first such write
/// (of the nodes in `nodes`): the place of an assignment (`w` in `w[0] = 10.0`, `*r += 1.0`,
/// `s.v[k] = x`), an operand passed by `&mut`, the receiver of a method call whose value is
/// `()` (`v.fill(0.0)`, `cell.set(x)`: `&mut self` or interior mutability), what a user's macro
/// mentions (`add_to!(a, x)` may assign `a`), and what each of those was read from
/// ([`mark_written`]). A node that reads one of them after the write reads a value the trace
/// does not show: its recorded value is from before.
pub(crate) fn written_in_place(
    store: &Store,
    nodes: std::ops::Range<u32>,
) -> HashMap<NodeId, NodeId> {
    let mut first = First::default();
    walk_writes(store, nodes, &mut first);
    first.0
}

/// Like [`written_in_place`], with every write that may have changed each node, in recording
/// order, not only the first: what the queries follow (a value read after two writes depends
/// on both).
pub(crate) fn all_writes_in_place(store: &Store) -> HashMap<NodeId, Vec<NodeId>> {
    let mut all = All::default();
    walk_writes(store, 0..store.len() as u32, &mut all);
    for writes in all.0.values_mut() {
        writes.sort_unstable();
    }
    all.0
}

/// What a walk over the writes notes: which write may have changed which node.
trait Marks {
    /// Notes that `write` may have changed node `r`; `false` where walking on from `r` adds
    /// nothing (what it was read from was marked by this write or an earlier one).
    fn mark(&mut self, r: NodeId, write: NodeId) -> bool;
    /// The writes noted for `r` that come before node `before`.
    fn writes_before(&self, r: NodeId, before: NodeId) -> Vec<NodeId>;
    fn is_empty(&self) -> bool;
}

/// The first write of each node.
#[derive(Default)]
struct First(HashMap<NodeId, NodeId>);

impl Marks for First {
    fn mark(&mut self, r: NodeId, write: NodeId) -> bool {
        // Calls are walked one after another, not in recording order.
        match self.0.get(&r) {
            Some(w) if w.0 <= write.0 => false,
            _ => {
                self.0.insert(r, write);
                true
            }
        }
    }
    fn writes_before(&self, r: NodeId, before: NodeId) -> Vec<NodeId> {
        self.0
            .get(&r)
            .filter(|w| w.0 < before.0)
            .copied()
            .into_iter()
            .collect()
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Every write of each node.
#[derive(Default)]
struct All(HashMap<NodeId, Vec<NodeId>>);

impl Marks for All {
    fn mark(&mut self, r: NodeId, write: NodeId) -> bool {
        let writes = self.0.entry(r).or_default();
        if writes.contains(&write) {
            return false;
        }
        writes.push(write);
        true
    }
    fn writes_before(&self, r: NodeId, before: NodeId) -> Vec<NodeId> {
        self.0.get(&r).map_or_else(Vec::new, |ws| {
            ws.iter().filter(|w| w.0 < before.0).copied().collect()
        })
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn walk_writes(store: &Store, nodes: std::ops::Range<u32>, written: &mut impl Marks) {
    // Call by call, each with its IR at hand: a node's entry found through its parent (a search
    // over the calls per node) made the first update of a 10⁵-node trace take milliseconds.
    for call in store.calls.iter() {
        let ir = store.call_ir(call);
        if call.end <= nodes.start || call.node.0 >= nodes.end {
            continue;
        }
        for id in store.children(call.node) {
            if !nodes.contains(&id.0) {
                continue;
            }
            let node = store.node(id);
            if !matches!(
                node.kind,
                NodeKind::PrimitiveCall | NodeKind::NestedCall | NodeKind::Special
            ) {
                continue;
            }
            let Some(e) = ir.entries.get(node.entry as usize) else {
                continue;
            };
            let mut write = |k: usize| mark_written(store, store.ref_at(id, k), id, written);
            if ir.has_mut_borrows() {
                for k in store.lent_mut(ir, id) {
                    write(k);
                }
            }
            let unit = || store.value_cow(id).is_unit();
            match e.kind {
                EntryKind::Special if e.writes_place() => write(0),
                // In statement or expression position (`let z = set0!(w);`): what it may
                // assign in place is a value held in memory (a vector, a struct) or a `mut`
                // variable's version (`#[tracked]` gives each one a macro mentions a node,
                // `$(&mut a)`); a scalar it reads by value it cannot change.
                EntryKind::Special
                    if e.head.ends_with('!') && !super::op::macro_only_reads(&e.head) =>
                {
                    for k in 0..e.operands.len() {
                        let r = store.ref_at(id, k);
                        if !r.is_none() && (!by_value_scalar(store, r) || is_version(store, r)) {
                            write(k);
                        }
                    }
                }
                EntryKind::MethodCall if node.kind == NodeKind::PrimitiveCall && unit() => write(0),
                _ => {}
            }
        }
    }
    // A block argument records a copy of its source's recorded value (`record::frame`): where
    // the source was written before the jump, the copy is as stale, and what reads the block
    // argument reads a value the trace does not show too. In recording order, so that a loop's
    // header passes it on.
    if !written.is_empty() {
        for call in store.calls.iter() {
            if call.end <= nodes.start || call.node.0 >= nodes.end {
                continue;
            }
            let ir = store.call_ir(call);
            for id in store.children(call.node) {
                let node = store.node(id);
                if node.kind != NodeKind::Argument {
                    continue;
                }
                let block_argument = ir
                    .entries
                    .get(node.entry as usize)
                    .is_some_and(|e| e.location.block > 1);
                let from = store.ref_at(id, 0);
                if !block_argument || from.is_none() {
                    continue;
                }
                for write in written.writes_before(from, id) {
                    written.mark(id, write);
                }
            }
        }
    }
}

/// Marks `r`, written by node `write`, and what it was read from: the base of an element or
/// field, the source of a binding, a method's receiver (`w[0..1].fill(c)` writes `w`), every
/// operand of a call of a path or of a tuple, array or struct literal, any of which may hold
/// a `&mut` (`(&mut w, 1).0[0] = c`, `H(1, &mut w).1[0] = c`), the caller's argument behind a
/// callee's parameter (`fn set(w: &mut Vec<f64>) { w[0] = c }`), and the enclosing function's
/// variable behind a closure's capture.
fn mark_written(store: &Store, r: NodeId, write: NodeId, written: &mut impl Marks) {
    let mut stack = vec![r];
    // A bound on the walk: provenance chains are short; a long one is cut, not followed.
    let mut budget = 256;
    while let Some(r) = stack.pop() {
        if r.is_none() || budget == 0 {
            continue;
        }
        budget -= 1;
        if !written.mark(r, write) {
            continue;
        }
        let node = store.node(r);
        // A scalar held by value is a fresh value (`x * 2.0`), no place holding a borrow: the
        // variable it is the version of is marked, not what it was computed from.
        if by_value_scalar(store, r) {
            continue;
        }
        match node.kind {
            NodeKind::Argument => {
                let Some(parent) = store.parent(r) else {
                    continue;
                };
                // A parameter (block 1): the caller's argument at its position.
                if store.node(parent).kind != NodeKind::NestedCall {
                    continue;
                }
                let Some((_, e)) = store.entry_of(r) else {
                    continue;
                };
                // The parameters are the call's first children, one per argument, in order
                // (where a pattern binds several, the position says nothing: every argument).
                let k = (r.0 - parent.0 - 1) as usize;
                let params_first =
                    (parent.0 + 1..=r.0).all(|c| store.node(NodeId(c)).kind == NodeKind::Argument);
                if e.location.block != 1 {
                    continue;
                }
                let count = store.ref_count(parent);
                if params_first && k < count {
                    stack.push(store.ref_at(parent, k));
                } else {
                    stack.extend((0..count).map(|k| store.ref_at(parent, k)));
                }
            }
            NodeKind::Constant => {
                if let Some(parent) = store.parent(r) {
                    if let Some(source) = store.capture_source(r, parent) {
                        stack.push(source);
                    }
                }
            }
            NodeKind::PrimitiveCall | NodeKind::Special => {
                let Some((ir, e)) = store.entry_of(r) else {
                    continue;
                };
                let whole = matches!(
                    ir.builtin(node.entry as usize),
                    Some(Builtin::Tuple | Builtin::ArrayOf | Builtin::VecOf)
                ) || e.head.ends_with(" {}")
                    || e.kind == EntryKind::Call;
                let n = if whole { e.operands.len() } else { 1 };
                for k in 0..n.min(e.operands.len()) {
                    stack.push(store.ref_at(r, k));
                }
            }
            _ => {}
        }
    }
}

/// Whether node `r` holds a scalar by value (not behind a reference).
fn by_value_scalar(store: &Store, r: NodeId) -> bool {
    store.value_cow(r).is_scalar_by_value()
}

/// Whether node `r` is a `mut` variable's version `#[tracked]` records (`$(&mut a)`).
fn is_version(store: &Store, r: NodeId) -> bool {
    store.node(r).kind == NodeKind::Special
        && store
            .entry_of(r)
            .is_some_and(|(_, e)| e.head.starts_with("&mut "))
}
