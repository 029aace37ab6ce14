//! The reverse sweep: which nodes depend on the inputs (a forward pass), then adjoints from the
//! output back to the inputs (a backward pass over the arena in reverse order).
//!
//! The arena holds nodes in the order they were recorded, so reverse arena order is a reverse
//! topological order: every use of a node comes after it, and a nested call's children come
//! after the call's node but before anything that uses its value. A call's adjoint is therefore
//! complete when its return is reached, and its arguments' adjoints are complete when the
//! argument nodes are reached, just before the call itself.

mod cone;
mod pins;

use super::custom::{self};
use super::error::{GradError, Indeterminacy, Place};
use super::indeterminate::Watch;
use super::primal::{is_differentiable, primal, Primal};
use super::rules::{self, Contribution, Out, Rule};
use super::site::Site;
use super::tangent::Tangent;
use super::{iter, options, parts};
use crate::core::ids::NodeId;
use crate::core::ir::{Entry, EntryKind, FnIr, IrRef};
use crate::core::op::{float_fn_of, BinOp, Builtin};
use crate::core::tape::{NodeKind, Store};
use crate::core::value::Value;
use crate::view::trace::Trace;
use std::collections::HashMap;
use std::sync::Arc;

type CustomRule = Arc<dyn Fn(&Site<'_>, &Tangent, &mut Out) -> Result<(), String> + Send + Sync>;

#[derive(Clone)]
pub(crate) struct Sweep<'s> {
    trace: &'s Trace,
    store: &'s Store,
    /// Each node's parent (`u32::MAX` for the root).
    parents: std::borrow::Cow<'s, [u32]>,
    root: NodeId,
    /// Depends on a differentiable input.
    active: Vec<bool>,
    /// Inside a call differentiated by a user's rule: not visited.
    skip: Vec<bool>,
    /// Nested calls that a user's rule differentiates.
    custom_calls: HashMap<NodeId, CustomRule>,
    pub(crate) adjoints: Vec<Option<Tangent>>,
    /// Values holding differentiable fields (a struct argument, a field or element of one, the
    /// same value passed on to a callee or cloned): the root argument they come from and their
    /// path in it (`layers[1].w`); `None` for a value made from one by code whose reads the
    /// sweep cannot name (an iterator over it, a struct update `M { w, ..m }`, its version
    /// after a `&mut` call), whose differentiable reads are refused.
    containers: HashMap<NodeId, (NodeId, Option<String>)>,
    /// For a root argument holding fields: the first node that may have changed it in place
    /// (a call or compound assignment on it giving `()`). Its fields read later are not the
    /// argument's recorded values: reading one where the gradient needs it is refused.
    changed: HashMap<NodeId, NodeId>,
    /// Field reads after such a change, with the change.
    stale_reads: HashMap<NodeId, NodeId>,
    /// For a value, the first node of unit value that took it as an operand (`v[0] += x`,
    /// `scale(&mut v)`): a write into it, to name when a later read of it is stale.
    writes: HashMap<NodeId, NodeId>,
    /// For a value, the first call that took it by `&mut` as written (`let _ = f(&mut y)`;
    /// see `FnIr::borrows_mut`): the call may have changed it, so a node recorded after the
    /// call that reads the value's node reads a stale version.
    borrowed_mut: HashMap<NodeId, NodeId>,
    /// The node the backward pass differentiates now (`NodeId::NONE` outside it).
    reading: NodeId,
    /// The first branch taken because an equality of input-dependent values held, with the
    /// comparison (see [`Indeterminacy::Equality`]).
    pinned: Option<(NodeId, NodeId)>,
    /// The orderings of input-dependent floats with finite, different sides ([`ordering`]):
    /// [`forward_checks`](Self::forward_checks) asks whether moving the inputs closes the
    /// margin by which each holds ([`closes`]).
    near_ties: Vec<NodeId>,
    /// The first branch chosen by a test the trace does not show, and the test (see
    /// `Sweep::unseen_decision`).
    unseen: Option<(NodeId, NodeId)>,
    /// Per call, a match guard evaluated unrecorded and its match's scrutinee, until the
    /// match's branch is met.
    open_guards: HashMap<NodeId, (NodeId, NodeId)>,
    /// The first comparison of input-dependent floats whose recorded value its recorded
    /// operands do not give (see `Sweep::comparison_agrees`).
    disagreeing: Option<NodeId>,
    /// Calls irtrack has no rule for that took an input-dependent value and whose result
    /// nothing reads, in recording order (see `Sweep::escaped`).
    kept_for_effect: Vec<NodeId>,
    /// What the orderings of values met at a tie said of them (see [`pins`]).
    ties: pins::Ties,
    /// The same, with sides read through what moves them (see `Sweep::moved_side`).
    moved_ties: pins::Ties,
    /// Orderings at a tie those readings did not settle, read by their slopes before the
    /// backward pass (`sweep/cone.rs`).
    tied: Vec<cone::TiedOrdering>,
    /// Whether to read them (not in the passes that take their slopes).
    read_ties: bool,
    /// Where the backward pass starts: past the last node a sensitivity was given to (the
    /// store's length, but for the passes from a tie's sides).
    end: usize,
    /// The first node met at a tie reading each place (see `Sweep::same_place`).
    places: HashMap<(u32, String), u32>,
    /// For an integer made from a float's bits, how many low bits of them it no longer holds
    /// (`Sweep::coarse_bits`; absent: none).
    coarse: HashMap<NodeId, i32>,
    /// For each node, the root arguments its value may depend on, as bits (argument `k` is bit
    /// `min(k, 63)`): whether a zero slope made by one operand is exact for another
    /// (`rules::zero_is_exact`).
    inputs: Vec<u64>,
    /// Field reads of containers whose value is differentiable (`m.w`): the sources of a
    /// struct argument's gradient, with the root argument and the field's path.
    leaves: Vec<(NodeId, NodeId, String)>,
    /// Whether each node is a leaf (empty while there are none).
    is_leaf: Vec<bool>,
    /// For each `next` call, how many `next` calls on the same iterator came before it.
    /// For each `next` call, how many `next` calls on the same iterator came before it
    /// (`u32::MAX` for other nodes); and for each iterator, how many there were so far.
    next_positions: Vec<u32>,
    next_counts: Vec<u32>,
    /// Iterators (`v.iter()`, `zip`, `enumerate`) met in the forward pass, and those of them
    /// something other than their own `next` used (`it.nth(0)`, `it.by_ref()`, `it.find(…)`
    /// advance them unseen): the elements their later `next` calls yield are not known.
    iterators: std::collections::HashSet<NodeId>,
    advanced: std::collections::HashSet<NodeId>,
    /// Values made from an operation at a corner or an extremum of itself at this point
    /// (`|x|` at 0, `floor` at an integer, `x * x` at 0: `core::ties::at_kink`), and what
    /// they flowed into: an ordering that finds one at a tie may hold at this point alone.
    kinked: std::collections::HashSet<NodeId>,
    /// The calls in which a branch was taken because of an ordering at a tie (a kinked
    /// condition): a value a later jump passes there was chosen at this point only's corner
    /// (`let a = if x < 0.0 { -x } else { x };` at 0 is `|x|` at its corner).
    tie_frames: std::collections::HashSet<NodeId>,
    /// Orderings met at a tie (kinked, as what they decide is taken at the tie), which the
    /// slopes of their sides read: not corners for `tie_frames`.
    ordered_ties: std::collections::HashSet<NodeId>,
    /// A closure's captured value linked to the enclosing function's node for it (see
    /// [`Sweep::capture_source`]), by the constant node that read it.
    captures: HashMap<NodeId, NodeId>,
    /// For a discrete value (an integer, a `bool`, a string) that depends on the inputs other
    /// than piecewise-constantly (`x.to_bits()`, `x.to_string()`, an untracked call): the node
    /// where that dependence began (`u32::MAX` when there is none). Such a value is not a
    /// constant, and no rule differentiates through it.
    taint: Vec<u32>,
    /// Values computed from a tainted one that are not discrete (`f64::from_bits(bits)`):
    /// active, and refused with an error when the output's sensitivity reaches them.
    poisoned: HashMap<NodeId, NodeId>,
    /// The nodes a write into memory may have changed, with the first such write
    /// (`core::writes::written_in_place`): a rule reading one after it reads a value the
    /// trace does not show.
    written: HashMap<NodeId, NodeId>,
    /// The same, by write: what each write may have changed.
    writes_of: HashMap<NodeId, Vec<NodeId>>,
    /// For a sweep from chosen nodes ([`Sweep::from_sources`]): nodes whose values are taken
    /// as given, not as functions of their operands — `true` for the inputs, `false` for
    /// constants. Empty for a sweep from the root's arguments.
    sources: HashMap<NodeId, bool>,
    /// Whether the root's arguments are the inputs (`gradient`, `pullback`, `backward`).
    arguments: bool,
    /// Values that replace recorded ones, for the rules (see [`Site`]'s `values`).
    values: Option<&'s HashMap<NodeId, Value>>,
    /// Set by [`watch`](Self::watch): where a NaN sensitivity is made from numbers.
    watch: Option<Watch>,
    /// Nodes whose sensitivity is a zero that may be a limit (see [`soften`](Self::soften)),
    /// with the node whose slope at infinity made it.
    soft: HashMap<NodeId, NodeId>,
    /// While a node is differentiated: the origin of the limit zero its zero contributions
    /// carry, if they carry one.
    soft_from: Option<NodeId>,
}

impl<'s> Sweep<'s> {
    pub(crate) fn new(trace: &'s Trace, root: NodeId) -> Result<Sweep<'s>, GradError> {
        let mut sweep = Sweep::blank(trace, root, HashMap::new());
        sweep.mark_active();
        sweep.check_arguments_recorded()?;
        Ok(sweep)
    }

    /// A sweep whose inputs are the nodes `sources` maps to `true`, and in which the nodes it
    /// maps to `false` are constants, whatever their operands (the root's arguments are
    /// constants too): what a probabilistic program's score is differentiated with, its
    /// inputs being the selected random choices and its constants the others. Run it with
    /// [`run_from`](Self::run_from); a source's adjoint is never passed to its operands.
    // Used by the `ppl` feature's score gradients.
    #[cfg_attr(not(feature = "ppl"), allow(dead_code))]
    ///
    /// `values`, when given, replace the recorded values of their nodes for the rules (nodes
    /// recomputed in place for other values of the inputs; their types are the recorded ones,
    /// which is all the forward pass looks at).
    pub(crate) fn from_sources(
        trace: &'s Trace,
        root: NodeId,
        sources: HashMap<NodeId, bool>,
        values: Option<&'s HashMap<NodeId, Value>>,
    ) -> Sweep<'s> {
        let mut sweep = Sweep::blank(trace, root, sources);
        sweep.arguments = false;
        sweep.values = values.filter(|v| !v.is_empty());
        sweep.mark_active();
        sweep
    }

    fn blank(trace: &'s Trace, root: NodeId, sources: HashMap<NodeId, bool>) -> Sweep<'s> {
        let store = &trace.store;
        let n = store.len();
        Sweep {
            trace,
            store,
            parents: trace.parents(),
            root,
            active: vec![false; n],
            skip: vec![false; n],
            custom_calls: HashMap::new(),
            adjoints: vec![None; n],
            containers: HashMap::new(),
            changed: HashMap::new(),
            stale_reads: HashMap::new(),
            writes: HashMap::new(),
            borrowed_mut: HashMap::new(),
            reading: NodeId::NONE,
            pinned: None,
            near_ties: Vec::new(),
            unseen: None,
            open_guards: HashMap::new(),
            ties: pins::Ties::default(),
            moved_ties: pins::Ties::default(),
            tied: Vec::new(),
            read_ties: true,
            end: n,
            places: HashMap::new(),
            coarse: HashMap::new(),
            disagreeing: None,
            kept_for_effect: Vec::new(),
            inputs: Vec::new(),
            leaves: Vec::new(),
            is_leaf: Vec::new(),
            next_positions: Vec::new(),
            next_counts: Vec::new(),
            iterators: Default::default(),
            advanced: Default::default(),
            kinked: Default::default(),
            tie_frames: Default::default(),
            ordered_ties: Default::default(),
            captures: HashMap::new(),
            taint: vec![u32::MAX; n],
            poisoned: HashMap::new(),
            written: HashMap::new(),
            writes_of: HashMap::new(),
            sources,
            arguments: true,
            values: None,
            watch: None,
            soft: HashMap::new(),
            soft_from: None,
        }
    }

    /// A float argument whose value was not recorded (kept only as its type) would silently
    /// get no gradient: that is an error instead.
    fn check_arguments_recorded(&self) -> Result<(), GradError> {
        for c in self.store.children(self.root) {
            if self.store.node(c).kind != NodeKind::Argument || self.is_block_argument(c) {
                continue;
            }
            let value = self.store.value_cow(c);
            if float_like(&value) && !is_differentiable(&value) {
                return Err(GradError::Unrecorded {
                    at: self.place(c),
                    type_name: value.type_name().to_string(),
                });
            }
        }
        Ok(())
    }

    pub(super) fn ir_of(&self, id: NodeId) -> Option<&'s FnIr> {
        let parent = self.parent(id);
        if parent.is_none() {
            return None;
        }
        self.store.nested_ir(parent).map(|r| &**r)
    }

    fn parent(&self, id: NodeId) -> NodeId {
        NodeId(self.parents[id.index()])
    }

    /// [`Store::entry_of`], with the parent from the sweep's table instead of a search.
    fn entry_of(&self, id: NodeId) -> Option<(&'s IrRef, &'s Entry)> {
        self.store.entry_under(id, self.parent(id))
    }

    /// [`Store::ref_count`], with the parent from the sweep's table.
    fn ref_count(&self, id: NodeId) -> usize {
        self.store.ref_count_under(id, self.parent(id))
    }

    /// [`Store::refs`], with the parent from the sweep's table.
    fn refs(&self, id: NodeId) -> impl Iterator<Item = NodeId> + 's {
        self.store.refs_under(id, self.parent(id))
    }

    /// The root's function arguments, in order ([`NodeRef::call_arguments`] of the root,
    /// without building the trace's index for it).
    ///
    /// [`NodeRef::call_arguments`]: crate::view::trace::NodeRef::call_arguments
    pub(crate) fn function_arguments(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.store.children(self.root).filter(|&c| {
            self.store.node(c).kind == NodeKind::Argument
                && self.entry_of(c).is_some_and(|(_, e)| e.location.block == 1)
        })
    }

    /// Whether argument node `id` is a block argument (not a function argument).
    fn is_block_argument(&self, id: NodeId) -> bool {
        self.entry_of(id)
            .is_some_and(|(_, e)| e.location.block != 1)
    }

    /// Whether a reference of node `id` (under `parent`) is to an active node.
    fn refers_to_active(&self, id: NodeId, parent: NodeId) -> bool {
        self.store
            .refs_under(id, parent)
            .any(|r| !r.is_none() && self.is_active(r))
    }

    /// Where an argument node's value came from: the value the jump passed for a block
    /// argument, the caller's operand for a function argument (none for the root's arguments).
    fn argument_source(&self, id: NodeId) -> NodeId {
        if self.is_block_argument(id) {
            return self.store.ref_at(id, 0);
        }
        let parent = self.parent(id);
        if parent == self.root || parent.is_none() {
            return NodeId::NONE;
        }
        let position = self
            .store
            .entry_of(id)
            .and_then(|(ir, _)| ir.arg_position(self.store.node(id).entry as usize));
        match position {
            Some(p) => self.store.ref_at(parent, p),
            None => NodeId::NONE,
        }
    }

    pub(crate) fn is_active(&self, id: NodeId) -> bool {
        !id.is_none() && self.active[id.index()]
    }

    /// The root arguments node `id`'s value may depend on: its own bit for a root argument,
    /// its source's for another argument, its references' otherwise (a call's are its
    /// return's).
    fn record_inputs(&mut self, id: NodeId, kind: NodeKind, parent: NodeId) {
        if self.inputs.is_empty() {
            self.inputs = vec![0; self.store.len()];
        }
        let bits = match kind {
            NodeKind::Argument if parent == self.root && !self.is_block_argument(id) => {
                let position = self
                    .store
                    .entry_of(id)
                    .and_then(|(ir, _)| ir.arg_position(self.store.node(id).entry as usize))
                    .unwrap_or(63);
                1u64 << position.min(63)
            }
            NodeKind::Argument => {
                let source = self.argument_source(id);
                if source.is_none() {
                    0
                } else {
                    self.inputs[source.index()]
                }
            }
            _ => {
                // An operand the trace did not record (a closure, which may capture any input:
                // `(0..3).map(|_| c)`) may bring any of them.
                let unrecorded = self
                    .store
                    .entry_under(id, parent)
                    .is_some_and(|(_, e)| e.operands.contains(&crate::core::ir::Operand::None));
                let start = if unrecorded { u64::MAX } else { 0 };
                self.store
                    .refs_under(id, parent)
                    .filter(|r| !r.is_none())
                    .fold(start, |bits, r| bits | self.inputs[r.index()])
            }
        };
        self.inputs[id.index()] = bits;
        if kind == NodeKind::Return && !parent.is_none() {
            self.inputs[parent.index()] |= bits;
        }
    }

    fn mark_active(&mut self) {
        let store = self.store;
        self.written = crate::core::writes::written_in_place(store, 0..store.len() as u32);
        for (&target, &write) in &self.written {
            self.writes_of.entry(write).or_default().push(target);
        }
        for i in 0..store.len() {
            let id = NodeId(i as u32);
            let node = *store.node(id);
            let parent = self.parent(id);
            if parent.is_none() {
                continue;
            }
            if self.skip[parent.index()]
                || (!self.custom_calls.is_empty() && self.custom_calls.contains_key(&parent))
            {
                self.skip[i] = true;
                continue;
            }
            if !self.sources.is_empty() {
                if let Some(&input) = self.sources.get(&id) {
                    self.active[i] = input;
                    continue;
                }
            }
            // A call a context replaced, or whose recorded body another method ran around: its
            // body does not give its value. Not followed: where its operands depend on the
            // inputs, an adjoint reaching it is refused (`backward`).
            if store.node(id).not_from_body() {
                self.skip[i] = true;
                self.active[i] = self.refers_to_active(id, parent);
                continue;
            }
            // A comparison that says input-dependent values are equal (`sweep/pins.rs`), or whose
            // recorded value its recorded operands do not give.
            // Every comparison is read (what it says at a tie is noted for later ones); the
            // first that pins is named.
            if may_pin(store, id, parent) {
                if let Some(site) = Site::new(store, id) {
                    if self.pins_when_evaluated(&site) && self.pinned.is_none() {
                        self.pinned = Some((id, id));
                    }
                    if self.disagreeing.is_none() && !self.comparison_agrees(&site) {
                        self.disagreeing = Some(id);
                    }
                    if self.at_near_tie(&site) {
                        self.near_ties.push(id);
                    }
                }
            } else if jumps_at(store, id, parent) {
                if let Some(site) = Site::new(store, id) {
                    if self.at_near_tie(&site) {
                        self.near_ties.push(id);
                    }
                }
            }
            if node.kind == NodeKind::Special {
                self.note_unseen_guard(id, parent);
            }
            let leaf = match node.kind {
                NodeKind::Special => self.field_of_container(id),
                NodeKind::PrimitiveCall => self.element_of_container(id),
                _ => false,
            };
            if !leaf
                && matches!(
                    node.kind,
                    NodeKind::PrimitiveCall | NodeKind::Special | NodeKind::NestedCall
                )
            {
                self.derive_container(id, &store.value_cow(id));
            }
            let uses_active = || {
                let entry = store.entry_under(id, parent).map(|(_, e)| e);
                // The data operands only: a branch's control condition carries no value.
                let n = match (node.kind, entry) {
                    (NodeKind::NestedCall, _) | (_, None) => store.ref_count_under(id, parent),
                    (_, Some(e)) if e.kind == EntryKind::Argument => {
                        store.ref_count_under(id, parent)
                    }
                    (_, Some(e)) => e.operands.len() + usize::from(!e.condition.is_none()),
                };
                store
                    .refs_under(id, parent)
                    .take(n)
                    .enumerate()
                    .any(|(k, r)| {
                        if r.is_none() {
                            // An operand the trace did not record (a closure, a closure's captured
                            // `self`): it may capture anything, so what it flows into counts as
                            // dependent — for a special node (a field read, a pattern), when its
                            // own value is differentiable.
                            entry.is_some_and(|e| {
                                e.operands.get(k) == Some(&crate::core::ir::Operand::None)
                                    && (e.kind != EntryKind::Special
                                        || is_differentiable(&store.value_cow(id)))
                            })
                        } else {
                            self.active[r.index()]
                        }
                    })
            };
            if matches!(
                node.kind,
                NodeKind::PrimitiveCall | NodeKind::NestedCall | NodeKind::Special
            ) {
                if let Some((ir, _)) = store.entry_under(id, parent) {
                    if ir.has_mut_borrows() {
                        for k in store.lent_mut(ir, id) {
                            let r = store.ref_at(id, k);
                            if !r.is_none() {
                                self.borrowed_mut.entry(r).or_insert(id);
                            }
                        }
                    }
                }
            }
            let value = store.value_cow(id);
            if value.is_unit() && matches!(node.kind, NodeKind::PrimitiveCall | NodeKind::Special) {
                for r in store.refs_under(id, parent).filter(|r| !r.is_none()) {
                    self.writes.entry(r).or_insert(id);
                }
            }
            let active = match node.kind {
                NodeKind::Argument => {
                    if !self.is_block_argument(id) && parent == self.root && !self.arguments {
                        false
                    } else if !self.is_block_argument(id) && parent == self.root {
                        let differentiable = is_differentiable(&value);
                        if !differentiable && is_container(&value) {
                            self.containers.insert(id, (id, Some(String::new())));
                        }
                        differentiable
                    } else {
                        let source = self.argument_source(id);
                        if let Some(container) = self.containers.get(&source).cloned() {
                            self.containers.insert(id, container);
                        }
                        self.is_active(source)
                    }
                }
                NodeKind::Special | NodeKind::PrimitiveCall if leaf => true,
                NodeKind::NestedCall => {
                    if let Some(rule) = self.custom_rule(id).or_else(|| self.unknown_rule(id)) {
                        self.custom_calls.insert(id, rule);
                        uses_active()
                    } else {
                        false
                    }
                }
                NodeKind::Return => {
                    let a = uses_active();
                    if a {
                        self.active[parent.index()] = true;
                    }
                    a
                }
                NodeKind::PrimitiveCall | NodeKind::Special => {
                    // A call of a closure or function held in a variable that ran untracked
                    // (through `&F`, `&dyn Fn`): it may read anything its callee captured.
                    let a = uses_active()
                        || store.holds_callee(id)
                        || (!self.poisoned.is_empty() && self.poisoned.contains_key(&id));
                    // A call or pattern that reads a model through code irtrack does not see
                    // (`m.weight()`, `let Affine { w, b } = m`) may read its float fields: its
                    // value is not a constant, and no rule says how it depends on them.
                    let indexing = store.entry_under(id, parent).is_some_and(|(ir, _)| {
                        ir.builtin(node.entry as usize) == Some(Builtin::Index)
                    });
                    // Indexing a vector of vectors is a read irtrack knows: the element is a
                    // constant unless the outer vector is an input the sweep differentiates.
                    if !a && !indexing && is_differentiable(&value) {
                        if let Some(container) = self.container_operand(id) {
                            self.poisoned.insert(id, container);
                            true
                        } else {
                            false
                        }
                    } else {
                        a
                    }
                }
                // A closure's captured variable may be an input-dependent value of the
                // function that made the closure, which the trace does not link to: let its
                // adjoint arrive, so the backward pass can refuse it (`GradError::Capture`).
                // A link to the node the closure's maker read it from (a `$(closure)` node's
                // operand) makes it that node's copy.
                // Any value that is not a count: a captured `Cell` holds whatever was set in it.
                NodeKind::Constant => {
                    let in_closure =
                        parent != self.root && self.ir_of(id).is_some_and(FnIr::is_closure);
                    match store.capture_source(id, parent).filter(|_| in_closure) {
                        Some(source) if source.is_none() => false,
                        Some(source) => {
                            self.captures.insert(id, source);
                            self.is_active(source)
                        }
                        None => in_closure && !value.is_discrete(),
                    }
                }
                NodeKind::Jump => {
                    if self.pinned.is_none() {
                        if let Some(condition) = self.pinning_match(id, parent) {
                            self.pinned = Some((id, condition));
                        }
                    }
                    if let Some(condition) = self.unseen_decision(id, parent) {
                        self.unseen.get_or_insert((id, condition));
                    }
                    false
                }
                NodeKind::Error => false,
            };
            // Nothing differentiable flows through an integer, a `bool` or a string: counts,
            // comparisons and indices derived from the inputs are constants to the sweep —
            // but only when they depend on the inputs piecewise-constantly. Bits and text of
            // a float are the float itself, re-encoded: a value computed from them is refused.
            self.record_inputs(id, node.kind, parent);
            let tainted = self.tainted_operand(id, node.kind, parent);
            let mut active = active;
            if value.is_discrete() {
                // A float's sign or exponent field (`bits >> 63`, `(bits >> 52) & 0x7ff`) is
                // constant on whole binades: a count, not the float re-encoded.
                if let Some(origin) = tainted {
                    let dropped = self.note_coarse_bits(id);
                    // A count that drops enough bits is constant on intervals of floats: at an
                    // edge of one it holds a side, noted; where that cannot be told it is read
                    // as the float re-encoded, as a finer one is.
                    let placed = dropped >= pins::POINT_BITS && self.note_binade_jump(id, origin);
                    if dropped < pins::BINADE_BITS || !placed {
                        self.taint[i] = origin.0;
                    }
                } else if active && !self.piecewise_constant(id) {
                    self.taint[i] = id.0;
                    self.note_coarse_bits(id);
                }
                if node.kind == NodeKind::Return && self.taint[i] != u32::MAX {
                    self.taint[parent.index()] = self.taint[i];
                }
            } else if let Some(origin) = tainted {
                active = true;
                self.note_coarse_bits(id);
                self.poisoned.insert(id, origin);
                if node.kind == NodeKind::Return {
                    self.active[parent.index()] = true;
                    self.poisoned.insert(parent, origin);
                }
            }
            self.active[i] = active && !value.is_discrete();
            if node.kind == NodeKind::PrimitiveCall && self.refers_to_active(id, parent) {
                self.note_kept_for_effect(id, parent, &value);
            }
            // A write that used an active value (a macro `add_to!(a, x)`, a `&mut` call given
            // `x`) may have made what it changed depend on the inputs, which the trace does
            // not show: what it changed is active from here on, so that its readers' rules
            // find it written (`differentiate`) instead of taking it for a constant.
            if !self.writes_of.is_empty() {
                if let Some(targets) = self.writes_of.get(&id) {
                    let used_active = self.refers_to_active(id, parent);
                    if used_active {
                        for t in targets.clone() {
                            if is_differentiable(&store.value_cow(t))
                                || is_container(&store.value_cow(t))
                            {
                                self.active[t.index()] = true;
                            }
                        }
                    }
                }
            }
            self.note_kink(id, node.kind, parent);
            // A cast to an integer or a sign query is not active itself; its float operand is.
            if matches!(node.kind, NodeKind::PrimitiveCall | NodeKind::Special)
                && (self.active[i] || self.refers_to_active(id, parent))
            {
                self.note_kink_choice(id);
            }
            self.note_iterator_uses(id, node.kind, parent);
            if node.kind == NodeKind::PrimitiveCall {
                self.count_next(id);
            }
        }
    }

    /// A data operand of `id` that is a container which may hold floats, if there is one.
    fn container_operand(&self, id: NodeId) -> Option<NodeId> {
        if self.containers.is_empty() {
            return None;
        }
        let n = match self.entry_of(id) {
            Some((_, e)) => e.operands.len(),
            None => return None,
        };
        self.refs(id).take(n).find(|r| {
            !r.is_none()
                && self.containers.contains_key(r)
                && may_hold_floats(&self.store.value_cow(*r))
        })
    }

    /// The node where the taint of a data operand of `id` began, if one is tainted.
    fn tainted_operand(&self, id: NodeId, kind: NodeKind, parent: NodeId) -> Option<NodeId> {
        // Also through a value that is not discrete but was computed from a tainted one (a
        // `u128` of a float's bits, `f64::from_bits(b)`): what is made from it is tainted too.
        let taint = |r: NodeId| {
            if r.is_none() {
                return None;
            }
            if self.taint[r.index()] != u32::MAX {
                return Some(NodeId(self.taint[r.index()]));
            }
            if self.poisoned.is_empty() {
                return None;
            }
            self.poisoned
                .get(&r)
                .copied()
                .filter(|o| !self.containers.contains_key(o))
        };
        match kind {
            NodeKind::Argument => {
                if parent == self.root && !self.is_block_argument(id) {
                    None
                } else {
                    taint(self.argument_source(id))
                }
            }
            NodeKind::Jump | NodeKind::Error | NodeKind::Constant => None,
            NodeKind::NestedCall => None,
            _ => {
                let n = match self.entry_of(id) {
                    Some((_, e)) => e.operands.len() + usize::from(!e.condition.is_none()),
                    None => self.ref_count(id),
                };
                self.refs(id).take(n).find_map(taint)
            }
        }
    }

    /// Whether a discrete value computed from active operands depends on them only
    /// piecewise-constantly (its derivative is zero wherever it exists): a comparison, a cast
    /// to an integer, a test of a float's class, the length of a vector.
    fn piecewise_constant(&self, id: NodeId) -> bool {
        let Some(mut site) = Site::new(self.store, id) else {
            return false;
        };
        site.values = self.values;
        match site.builtin() {
            Some(Builtin::Compare(_) | Builtin::Cast(_) | Builtin::Unary(_)) => return true,
            Some(Builtin::Bind | Builtin::Guard | Builtin::Deref | Builtin::Clone) => return true,
            // On a float by value the inherent method is found first: the name is the method.
            Some(Builtin::Query(q)) if q.is_test() => return float_by_value(site.receiver()),
            _ => {}
        }
        if site.kind() != EntryKind::MethodCall {
            return false;
        }
        let head = site.head();
        // The comparison methods, by name under the same condition.
        let float_class = matches!(
            head,
            "partial_cmp" | "total_cmp" | "eq" | "ne" | "lt" | "le" | "gt" | "ge"
        );
        if float_class && float_by_value(site.receiver()) {
            return true;
        }
        // The length of a vector or an array of floats (ndarray's `len` counts its
        // elements): checked against the value recorded.
        if matches!(head, "len" | "is_empty") && site.len() == 1 {
            let count = |v: std::borrow::Cow<Value>| {
                v.floats().map(|f| f.len()).or_else(|| {
                    #[cfg(feature = "ndarray")]
                    return crate::core::arrays::array_primal(&v).map(|a| a.len());
                    #[cfg(not(feature = "ndarray"))]
                    None
                })
            };
            if let Some(v) = site.value(0).and_then(count) {
                let out = site.output();
                return match head {
                    "len" => out.as_i64() == Some(v as i64),
                    _ => out.downcast_ref::<bool>() == Some(&(v == 0)),
                };
            }
        }
        false
    }

    /// For a field read `c.f` of a container `c`: records the field as a leaf when its value is
    /// differentiable (and returns true: it is active), or as a container when it holds more
    /// fields.
    fn field_of_container(&mut self, id: NodeId) -> bool {
        if self.containers.is_empty() {
            return false;
        }
        let Some((ir, entry)) = self.entry_of(id) else {
            return false;
        };
        // A read `c.f`, or a struct pattern's binding of a field (`let P { x, .. } = p`: its
        // path names the field; a tuple pattern's positions keep the parts' rule).
        let bound = || {
            let index = self.store.node(id).entry as usize;
            (ir.builtin(index) == Some(Builtin::Bind))
                .then(|| ir.bind_path(index))
                .flatten()
                .filter(|p| !p.split('.').all(|k| k.bytes().all(|b| b.is_ascii_digit())))
        };
        let Some(field) = entry.head.strip_prefix('.').or_else(bound) else {
            return false;
        };
        let base = self.store.ref_at(id, 0);
        let Some((root, prefix)) = self.containers.get(&base).cloned() else {
            return false;
        };
        let path = prefix.map(|prefix| match prefix.is_empty() {
            true => field.to_string(),
            false => format!("{prefix}.{field}"),
        });
        self.part_of_container(id, root, path)
    }

    /// For an element `c[k]` of a container `c` read at a recorded index (`layers[i]` of a
    /// `Vec` of structs) that holds fields in turn: a container at the path `c[k]`, as
    /// [`field_of_container`](Self::field_of_container) makes one. An element that is itself
    /// differentiable (a row of a `Vec<Vec<f64>>`) is a constant, as the argument's type says:
    /// only floats and vectors or arrays of them are differentiable arguments.
    fn element_of_container(&mut self, id: NodeId) -> bool {
        if self.containers.is_empty() {
            return false;
        }
        if is_differentiable(&self.store.value_cow(id)) {
            self.poison_if_unknown(id);
            return false;
        }
        let Some(mut site) = Site::new(self.store, id) else {
            return false;
        };
        site.values = self.values;
        if site.builtin() != Some(Builtin::Index) || site.len() != 2 {
            return false;
        }
        let base = self.store.ref_at(id, 0);
        let Some((root, prefix)) = self.containers.get(&base).cloned() else {
            return false;
        };
        // A range (`v[1..]`) is a container of the same fields, renumbered: unnamed.
        let path = match (prefix, site.integer(1)) {
            (Some(prefix), Some(k)) => Some(format!("{prefix}[{k}]")),
            _ => None,
        };
        self.part_of_container(id, root, path)
    }

    /// A float read (an element, a field) from an argument whose type this process does not
    /// know — a trace read back from JSON keeps a type's name only, and an `Array1<f64>` or a
    /// `[f64; 2]` comes back as its text: whether the argument is differentiable is unknown,
    /// and taking the read for a constant gave the argument no gradient (`None`, as for an
    /// argument that has none) where the recorded trace gave one. Refused where the gradient
    /// needs it.
    fn poison_if_unknown(&mut self, id: NodeId) {
        let base = self.store.ref_at(id, 0);
        let Some((root, _)) = self.containers.get(&base).cloned() else {
            return;
        };
        let value = self.store.value_cow(root);
        if !value.is_scalar() && value.type_id().is_none() {
            self.poisoned.insert(id, base);
        }
    }

    /// A field or element `id` read from the container `root` at `path` (`None`: a path the
    /// sweep cannot name). A differentiable one is a leaf of the gradient (and active); one
    /// holding more fields is a container in turn; one read after `root` may have changed in
    /// place, or at no known path, is active but refused if the gradient needs it.
    fn part_of_container(&mut self, id: NodeId, root: NodeId, path: Option<String>) -> bool {
        let value = self.store.value_cow(id);
        let stale = self.changed.get(&root).copied();
        if let (Some(change), true) = (stale, is_differentiable(&value)) {
            self.stale_reads.insert(id, change);
            return true;
        }
        let Some(path) = path else {
            if is_container(&value) {
                self.containers.insert(id, (root, None));
            }
            return false;
        };
        if stale.is_some() {
            if is_container(&value) {
                self.containers.insert(id, (root, None));
            }
            return false;
        }
        if is_differentiable(&value) {
            self.leaves.push((id, root, path));
            if self.is_leaf.is_empty() {
                self.is_leaf = vec![false; self.store.len()];
            }
            self.is_leaf[id.index()] = true;
            return true;
        }
        if is_container(&value) {
            self.containers.insert(id, (root, Some(path)));
        }
        false
    }

    /// A value computed from a container by anything but a field or element read: a clone of
    /// it is the same container (checked on the values), anything else holding fields a
    /// container at no known path; a call or compound assignment on a container giving `()`
    /// may have changed its root argument in place.
    fn derive_container(&mut self, id: NodeId, value: &Value) {
        if self.containers.is_empty() || self.containers.contains_key(&id) {
            return;
        }
        let Some(from) = self.container_source(id) else {
            return;
        };
        let (root, path) = self.containers[&from].clone();
        let builtin = self
            .store
            .entry_under(id, self.parent(id))
            .and_then(|(ir, _)| ir.builtin(self.store.node(id).entry as usize));
        if value.is_unit() {
            // `println!("{m:?}")` reads; a call or `m.w *= 2.0` may write.
            if builtin != Some(Builtin::Macro) {
                self.changed.entry(root).or_insert(id);
            }
            return;
        }
        if !is_container(value) {
            return;
        }
        let clone =
            builtin == Some(Builtin::Clone) && same_container(&self.store.value_cow(from), value);
        let path = if clone { path } else { None };
        self.containers.insert(id, (root, path));
    }

    /// The first data operand of `id` that is a container, if one is.
    fn container_source(&self, id: NodeId) -> Option<NodeId> {
        let n = match self.entry_of(id) {
            Some((_, e)) => e.operands.len(),
            None => self.ref_count(id),
        };
        self.refs(id)
            .take(n)
            .find(|r| !r.is_none() && self.containers.contains_key(r))
    }

    /// Notes node `id` as [kinked](Sweep::kinked) if an operand is (a block or call argument:
    /// its source; a return: its operand, for the call too), or if it is an active operation
    /// at a corner or an extremum of itself.
    fn note_kink(&mut self, id: NodeId, kind: NodeKind, parent: NodeId) {
        let store = self.store;
        let inherited = !self.kinked.is_empty()
            && match kind {
                NodeKind::Argument => {
                    let source = self.argument_source(id);
                    // A float a later jump passes (a loop's counter or an index is no
                    // corner: what it reads is compared anew).
                    (!source.is_none() && self.kinked.contains(&source))
                        || (self.is_block_argument(id)
                            && self.active[id.index()]
                            && self.tie_frames.contains(&parent))
                }
                // What a call returns after a branch taken at a tie (`fn my_abs(x)` at 0).
                NodeKind::Return if self.tie_frames.contains(&parent) => true,
                _ => store
                    .refs_under(id, parent)
                    .any(|r| !r.is_none() && self.kinked.contains(&r)),
            };
        // A branch decided at a corner (a float's sign bit at 0): what it chooses is at the
        // corner too. One decided by an ordering at a tie that did not pin is read by the
        // slopes of its sides with every other (`sweep/cone.rs`), on the branch taken.
        if kind == NodeKind::Jump
            && inherited
            && store.refs_under(id, parent).any(|r| {
                !r.is_none() && self.kinked.contains(&r) && !self.ordered_ties.contains(&r)
            })
        {
            self.tie_frames.insert(parent);
        }
        // From an active operand (a cast to an integer is not active itself).
        let own = !inherited
            && matches!(kind, NodeKind::PrimitiveCall | NodeKind::Special)
            && (self.active[id.index()] || self.refers_to_active(id, parent))
            && self.at_kink(id, parent);
        if inherited || own {
            self.kinked.insert(id);
            if kind == NodeKind::Return && !parent.is_none() {
                self.kinked.insert(parent);
            }
        }
    }

    /// Whether the float operation of node `id` is at a corner or an extremum of itself
    /// ([`core::ties::at_kink`](crate::core::ties::at_kink)). The operation is told from the
    /// IR first: only one that may be at a corner has its operands read.
    fn at_kink(&self, id: NodeId, parent: NodeId) -> bool {
        let store = self.store;
        let Some((ir, entry)) = store.entry_under(id, parent) else {
            return false;
        };
        let op = match ir.builtin(store.node(id).entry as usize) {
            Some(
                b @ (Builtin::Method(_)
                | Builtin::Binary(_)
                | Builtin::Assign(_)
                | Builtin::Cast(_)
                | Builtin::Query(_)),
            ) => b,
            Some(_) => return false,
            None if entry.kind != EntryKind::Call && entry.kind != EntryKind::MethodCall => {
                return false
            }
            None => {
                let key = match store.callees.get(&id) {
                    Some(crate::core::tape::Callee::Item(k)) => Some(k.id),
                    _ => None,
                };
                match (
                    key.and_then(float_fn_of),
                    key.and_then(crate::core::op::float_query_of),
                ) {
                    (Some(f), _) => Builtin::Method(f),
                    (None, Some(q)) => Builtin::Query(q),
                    // A float computed by an operation irtrack has no rule for
                    // (`x.rem_euclid(1.0)`, an untracked helper): whether it is at a corner is
                    // unknown, so a tie of it is read as one.
                    (None, None) => {
                        return store.node(id).kind == NodeKind::PrimitiveCall
                            && store.f64_of(id).is_some()
                    }
                }
            }
        };
        let Some(site) = Site::new(store, id) else {
            return false;
        };
        let mut x = [None; 3];
        for (k, v) in x.iter_mut().enumerate().take(site.len()) {
            *v = site.scalar(k);
        }
        crate::core::ties::at_kink(op, &x[..site.len().min(3)], site.output().as_f64())
    }

    /// Notes node `id` as an iterator if it makes one, and the iterators it uses otherwise
    /// than by their own `next` as [advanced](Sweep::advanced): a `next` numbers the element it
    /// yields by how many came before it, which holds only while nothing else moved the
    /// iterator (`it.nth(0)` then `it.next()` yields element 1, numbered 0 — every slope went
    /// to the element before). An adapter (`zip`, `enumerate`) made from an iterator already
    /// moved starts mid-way, and is advanced itself, as is a `sum` of one.
    fn note_iterator_uses(&mut self, id: NodeId, kind: NodeKind, parent: NodeId) {
        let head = match kind {
            NodeKind::PrimitiveCall | NodeKind::NestedCall | NodeKind::Special => self
                .store
                .entry_under(id, parent)
                .map(|(_, e)| (e.kind, e.head.as_str())),
            _ => None,
        };
        let method = |name: &str| matches!(head, Some((EntryKind::MethodCall, h)) if h == name);
        if !self.iterators.is_empty() {
            let next = method("next");
            // Reads that do not move an iterator.
            let reads = ["len", "size_hint", "is_empty"].iter().any(|m| method(m));
            let store = self.store;
            for (k, r) in store.refs_under(id, parent).enumerate() {
                if r.is_none() || !self.iterators.contains(&r) {
                    continue;
                }
                if (next || reads) && k == 0 {
                    continue;
                }
                let moved = self.advanced.contains(&r)
                    || self.next_counts.get(r.index()).is_some_and(|&c| c > 0);
                // What takes over an iterator already moved (`zip`, `sum`) starts mid-way.
                if moved {
                    self.advanced.insert(id);
                }
                self.advanced.insert(r);
            }
        }
        // `cloned` and `copied` make an iterator only of one (`Option::copied` is none).
        let of_iterator = || {
            let r = self.store.ref_at(id, 0);
            !r.is_none() && self.iterators.contains(&r)
        };
        let makes = kind == NodeKind::PrimitiveCall
            && matches!(head, Some((EntryKind::MethodCall | EntryKind::Call, h))
            if h.rsplit("::").next().is_some_and(|h| {
                crate::core::walks::makes_iterator(h) && (!matches!(h, "cloned" | "copied") || of_iterator())
            }));
        if makes {
            self.iterators.insert(id);
        }
    }

    /// Numbers the `next` calls on each iterator, in the order they ran.
    fn count_next(&mut self, id: NodeId) {
        let Some((_, entry)) = self.entry_of(id) else {
            return;
        };
        if entry.kind != EntryKind::MethodCall || entry.head != "next" {
            return;
        }
        {
            let iterator = self.store.ref_at(id, 0);
            if iterator.is_none() {
                return;
            }
            let n = self.store.len();
            if self.next_counts.is_empty() {
                self.next_counts = vec![0; n];
                self.next_positions = vec![u32::MAX; n];
            }
            let count = &mut self.next_counts[iterator.index()];
            if !self.advanced.contains(&iterator) {
                self.next_positions[id.index()] = *count;
            }
            *count += 1;
        }
    }

    fn site(&self, id: NodeId) -> Option<Site<'s>> {
        let mut site = Site::new(self.store, id)?;
        site.values = self.values;
        site.needed = site
            .refs
            .iter()
            .take(64)
            .enumerate()
            .fold(0, |bits, (i, &r)| match self.is_active(r) {
                true => bits | 1 << i,
                false => bits,
            });
        if site.refs.len() > 64 {
            site.needed |= u64::MAX;
        }
        Some(site)
    }

    fn custom_rule(&self, id: NodeId) -> Option<CustomRule> {
        if !custom::any() {
            return None;
        }
        let rule = custom::lookup(&self.site(id)?)?;
        // The rule describes the callee's code; a body whose nodes a context or an update
        // replaced is not that code (the rule gave 7 where the intervened function's slope is
        // 1; a tester, 2026-11-28).
        if self.store.body_intervened(id) {
            return Some(Arc::new(|_: &Site<'_>, _: &Tangent, _: &mut Out| {
                Err("a value inside this call's body was replaced (a context's \
                     `Action::Replace`, an update's intervention), so the rule registered for the \
                     function, which describes its code, does not describe this call; \
                     differentiate a trace recorded without the replacement"
                    .to_string())
            }));
        }
        Some(rule)
    }

    /// For a nested call whose callee's key the trace lost (imported from JSON) of a function
    /// named as one given a rule: a rule that refuses, since the registered one may apply and
    /// differentiating the body instead would go around it.
    fn unknown_rule(&self, id: NodeId) -> Option<CustomRule> {
        if !custom::any() || self.store.nested_callee(id).is_some() {
            return None;
        }
        let ir = self.store.nested_ir(id)?;
        if !custom::may_apply_by_name(&ir.name, &ir.module) {
            return None;
        }
        let name = format!("{}::{}", ir.module, ir.name);
        Some(Arc::new(move |_: &Site<'_>, _: &Tangent, _: &mut Out| {
            Err(format!(
                "a rule is registered for a function named `{name}`, and this trace (imported) \
                 does not say which function the call ran, so the rule cannot be found by it: \
                 differentiate a trace recorded in this process, or register the rule for the \
                 imported calls' function under another name"
            ))
        }))
    }

    pub(crate) fn place(&self, id: NodeId) -> Box<Place> {
        if id == self.root {
            // The root is the call of the traced function: its value is the output.
            let ir = self.store.nested_ir(id).map(|ir| &**ir);
            return Box::new(Place {
                function: ir.map_or("?".into(), |ir| ir.name.clone()),
                module: ir.map_or("?".into(), |ir| ir.module.clone()),
                location: None,
                statement: "the output".into(),
            });
        }
        let ir = self.ir_of(id);
        let entry = self.entry_of(id).map(|(_, e)| e);
        Box::new(Place {
            function: ir.map_or("?".into(), |ir| ir.name.clone()),
            module: ir.map_or("?".into(), |ir| ir.module.clone()),
            location: entry.map(|e| e.location),
            // An argument's entry prints as its variable alone (`%1`): add its name.
            statement: entry.map_or_else(String::new, |e| match e.kind {
                EntryKind::Argument if !e.head.is_empty() => format!("{e} ({})", e.head),
                _ => e.to_string(),
            }),
        })
    }

    /// Runs the backward pass from `seed`, the sensitivity of the root's value.
    pub(crate) fn run(&mut self, seed: Tangent) -> Result<(), GradError> {
        // A seed must have the output's shape: rules multiply it elementwise by the output's
        // partials (a vector of 3 against an output of 2 panicked inside ndarray).
        let value = self.store.value_cow(self.root);
        if let Some(p) = super::primal::primal(&value) {
            if !p.fits(&seed) {
                return Err(GradError::Shape {
                    at: self.place(self.root),
                    shapes: (seed.shape(), p.shape()),
                });
            }
        }
        // A rule registered for the function differentiated is its derivative, as at any
        // call of it: its body is not followed (`gradient(f, …)` of a ruled `f` went through
        // the body and ignored the rule).
        if let Some(rule) = self.root_rule() {
            return self.apply_root_rule(&rule, seed);
        }
        self.adjoints[self.root.index()] = Some(seed);
        self.backward()
    }

    /// The rule registered for the root's function, if any (one that refuses where a context
    /// or an update intervened in its body, as [`custom_rule`](Self::custom_rule) does).
    fn root_rule(&self) -> Option<CustomRule> {
        if !custom::any() || !self.arguments {
            return None;
        }
        let rule = custom::lookup_key(self.store.nested_callee(self.root)?)?;
        if self.store.body_intervened(self.root) {
            return Some(Arc::new(|_: &Site<'_>, _: &Tangent, _: &mut Out| {
                Err(
                    "a value inside the function's body was replaced (a context's \
                     `Action::Replace`, an update's intervention), so the rule registered for \
                     it, which describes its code, does not describe this run; differentiate a \
                     trace recorded without the replacement"
                        .to_string(),
                )
            }));
        }
        Some(rule)
    }

    /// Gives the root's arguments the sensitivities `rule` makes of `seed`: the root seen as a
    /// call of its function on its arguments.
    fn apply_root_rule(&mut self, rule: &CustomRule, seed: Tangent) -> Result<(), GradError> {
        let args: Vec<NodeId> = self.function_arguments().collect();
        let Some(ir) = self.store.nested_ir(self.root) else {
            return Ok(());
        };
        let entry = Entry {
            location: crate::core::ir::Location {
                block: 1,
                slot: crate::core::ir::Slot::Var(0),
            },
            kind: EntryKind::Call,
            head: ir.name.to_string(),
            operands: (1..=args.len() as u32)
                .map(crate::core::ir::Operand::Var)
                .collect(),
            condition: crate::core::ir::Operand::None,
            control: crate::core::ir::Operand::None,
            target: 0,
        };
        let site = Site {
            store: self.store,
            node: self.root,
            ir,
            index: usize::MAX,
            entry: &entry,
            refs: args.clone(),
            needed: u64::MAX,
            values: None,
        };
        let mut out = Vec::new();
        if let Err(reason) = rule(&site, &seed, &mut out) {
            return Err(GradError::NoRule {
                callee: entry.head.clone(),
                at: self.place(self.root),
                reason: Some(reason),
            });
        }
        self.adjoints[self.root.index()] = Some(seed);
        for (k, c) in out {
            if let Some(&a) = args.get(k) {
                self.give(a, c)?;
            }
        }
        Ok(())
    }

    /// Runs the backward pass from sensitivities given to nodes (of a sweep
    /// [`from_sources`](Self::from_sources)): each is added to its node's adjoint before the
    /// pass, which is right for any node the pass reaches after every node using it, as it
    /// reaches every node (reverse recording order). Sensitivities of nodes that do not depend
    /// on the inputs are dropped.
    // Used by the `ppl` feature's score gradients.
    #[cfg_attr(not(feature = "ppl"), allow(dead_code))]
    pub(crate) fn run_from(
        &mut self,
        seeds: impl IntoIterator<Item = (NodeId, Tangent)>,
    ) -> Result<(), GradError> {
        for (id, t) in seeds {
            self.give(id, Contribution::Whole(t))?;
        }
        self.backward()
    }

    /// Notes the call `id` if irtrack has no rule for it and it gives a value (a call giving
    /// `()` is a write, `core::writes`): whether its result is read is known once every node
    /// is seen ([`Sweep::escaped`]).
    fn note_kept_for_effect(&mut self, id: NodeId, parent: NodeId, value: &Value) {
        if value.is_unit() {
            return;
        }
        let Some((ir, entry)) = self.store.entry_under(id, parent) else {
            return;
        };
        // A step of an iterator is followed by what it reads (`count_next`); what a call
        // given a `&mut` changes is followed as a write (`core::writes`).
        let step = entry.kind == EntryKind::MethodCall && entry.head == "next";
        if step
            || ir.builtin(self.store.node(id).entry as usize).is_some()
            || self.store.lent_mut(ir, id).next().is_some()
        {
            return;
        }
        if self.custom_rule(id).is_some() {
            return;
        }
        // A float function or comparison called by its path (`f64::max(a, b)`), by its key.
        if let Some(crate::core::tape::Callee::Item(k)) = self.store.callees.get(&id) {
            let float = crate::core::op::float_path_of(k.id).is_some()
                || crate::core::op::float_compare_of(k.id).is_some();
            if float {
                return;
            }
        }
        // A constructor (`Some(x)`, `Point(x, y)`) keeps its operands in the value it makes,
        // which nothing reads; std's adaptors and consumers of iterators and options (`sum`,
        // `map_or`, `collect`) give their result back and keep nothing.
        let constructor = entry.kind == EntryKind::Call
            && entry
                .head
                .rsplit("::")
                .next()
                .is_some_and(|last| last.starts_with(|c: char| c.is_ascii_uppercase()));
        let consumer = entry.kind == EntryKind::MethodCall && gives_back(&entry.head);
        if constructor || consumer {
            return;
        }
        self.kept_for_effect.push(id);
    }

    /// The first call irtrack has no rule for that took an input-dependent value and whose
    /// result nothing reads: it ran for what it does, and it may have kept that value where a
    /// later read gets it back (`c.replace(2.0 * x)` then `c.get()`, a `RefCell`, a map's
    /// entry, a static), which the trace does not show: such a read looks like a constant.
    fn escaped(&self) -> Option<NodeId> {
        if self.kept_for_effect.is_empty() {
            return None;
        }
        let store = self.store;
        let mut read = vec![false; store.len()];
        for i in 0..store.len() {
            let id = NodeId(i as u32);
            let parent = self.parent(id);
            if parent.is_none() {
                continue;
            }
            for r in store.refs_under(id, parent) {
                if !r.is_none() {
                    read[r.index()] = true;
                }
            }
        }
        self.kept_for_effect
            .iter()
            .copied()
            .find(|c| !read[c.index()])
    }

    /// `GradError::NoRule` at node `id`, saying `reason`.
    fn refused(&self, id: NodeId, reason: &str) -> GradError {
        GradError::NoRule {
            callee: self
                .site(id)
                .map_or_else(|| "?".to_string(), |s| s.describe()),
            at: self.place(id),
            reason: Some(reason.to_string()),
        }
    }

    fn backward(&mut self) -> Result<(), GradError> {
        // The path was chosen by a comparison its operands' recorded values contradict.
        if let Some(c) = self.disagreeing {
            return Err(self.refused(
                c,
                "its recorded value is not what its recorded operands give: an operand was \
                     changed after it was recorded (in place through a `&mut` borrow, or in the \
                     file the trace was imported from), so the path it chose is not the one \
                     these values take",
            ));
        }
        // A path that exists at one point only has a slope of its own, also where it makes
        // the output a constant (`if x == 0.0 { return 0.0; }`): refused, wherever it is met.
        // (Refusing only those the output depends on missed effects the trace shows no
        // dependence for: a write in the branch not taken, a merge inside the branch.)
        if let Some((jump, condition)) = self.pinned {
            return Err(GradError::Indeterminate {
                at: self.place(jump),
                cause: Indeterminacy::Equality {
                    condition: self.place(condition),
                },
            });
        }
        if let Some((jump, condition)) = self.unseen {
            return Err(GradError::Indeterminate {
                at: self.place(jump),
                cause: Indeterminacy::Unseen {
                    condition: self.place(condition),
                },
            });
        }
        if self.read_ties && !self.tied.is_empty() {
            self.tie_cone()?;
        }
        let store = self.store;
        let mut out: Out = Vec::new();
        for i in (0..self.end.min(store.len())).rev() {
            if self.skip[i] {
                let id = NodeId(i as u32);
                if self.adjoints[i].is_some() {
                    if let Some(why) = store.not_from_body(id) {
                        return Err(self.refused(id, why));
                    }
                }
                continue;
            }
            let id = NodeId(i as u32);
            if !self.sources.is_empty() && self.sources.contains_key(&id) {
                continue;
            }
            let node = *store.node(id);
            let parent = self.parent(id);
            if parent.is_none() {
                continue;
            }
            self.reading = id;
            // (A read after a change the trace shows is named with that change, below.)
            if node.kind == NodeKind::Special
                && self.adjoints[i].is_some()
                && !self.stale_reads.contains_key(&id)
            {
                self.current_field(id)?;
            }
            match node.kind {
                NodeKind::Return => {
                    let Some(dy) = self.adjoints[parent.index()].clone() else {
                        continue;
                    };
                    let r = store.ref_at(id, 0);
                    if !r.is_none() {
                        self.current(id, r)?;
                        let limit = self.soft.get(&parent).copied();
                        self.carrying(limit, |s| s.give(r, Contribution::Whole(dy.clone())))?;
                    }
                    self.adjoints[i] = Some(dy);
                }
                NodeKind::Argument => {
                    let Some(dy) = self.adjoints[i].clone() else {
                        continue;
                    };
                    let source = self.argument_source(id);
                    if !source.is_none() {
                        self.current(id, source)?;
                        // A block argument copies its source's recorded value: stale where a
                        // write changed the source before the jump.
                        if let Some(&write) = self.written.get(&source) {
                            if write.0 < id.0 && self.is_block_argument(id) {
                                return Err(GradError::Mutation {
                                    at: self.place(write),
                                });
                            }
                        }
                    }
                    let limit = self.soft.get(&id).copied();
                    self.carrying(limit, |s| s.give(source, Contribution::Whole(dy)))?;
                }
                NodeKind::Constant => {
                    if let Some(&source) = self.captures.get(&id) {
                        let Some(dy) = self.adjoints[i].clone() else {
                            continue;
                        };
                        self.give(source, Contribution::Whole(dy))?;
                        continue;
                    }
                    let in_closure = self.ir_of(id).is_some_and(FnIr::is_closure);
                    if self.adjoints[i].is_some()
                        && in_closure
                        && parent != self.root
                        && is_differentiable(&store.value_cow(id))
                    {
                        let at = self.place(id);
                        let variable = self.site(id).map_or("?".into(), |s| s.head().to_string());
                        return Err(GradError::Capture { variable, at });
                    }
                }
                NodeKind::NestedCall
                    if self.custom_calls.is_empty() || !self.custom_calls.contains_key(&id) => {}
                NodeKind::PrimitiveCall | NodeKind::Special | NodeKind::NestedCall => {
                    if !self.active[i] {
                        continue;
                    }
                    let Some(site) = self.site(id) else { continue };
                    let value = store.value_cow(id);
                    if value.is_unit() {
                        if node.kind == NodeKind::Special && site.builtin() == Some(Builtin::Macro)
                        {
                            continue;
                        }
                        return Err(GradError::Mutation { at: self.place(id) });
                    }
                    if value.is_discrete() {
                        continue;
                    }
                    if self.is_leaf.get(i).copied().unwrap_or(false) {
                        continue;
                    }
                    let Some(dy) = self.adjoints[i].take() else {
                        continue;
                    };
                    if let Some(&change) = self.stale_reads.get(&id) {
                        let change = self.place(change);
                        return Err(GradError::NoRule {
                            callee: site.describe(),
                            at: self.place(id),
                            reason: Some(format!(
                                "it reads a field of an argument after {change}, a call or \
                                 compound assignment on that argument giving `()`, which may \
                                 have changed it in place (the trace does not show what such a \
                                 call wrote); read the fields before the call, or bind what \
                                 the call computes to a new variable"
                            )),
                        });
                    }
                    if let Some(origin) = self.poisoned.get(&id) {
                        return Err(match self.containers.contains_key(origin) {
                            true => self.hidden_read(id, *origin),
                            false => self.reinterpreted(id, *origin),
                        });
                    }
                    if node.kind == NodeKind::Special && self.tuple_binding(&site, &dy)? {
                        self.adjoints[i] = Some(dy);
                        continue;
                    }
                    // An adjoint that summed to exactly zero (`s - s`) passes nothing on, as
                    // a zero contribution does (`give`): `0 · ∞` below it (`sqrt` at 0) must
                    // not make the gradient NaN where the function is flat.
                    if dy.as_scalar() == Some(0.0) {
                        if let Some(&origin) = self.soft.get(&id) {
                            self.limit(id, origin, &site, &dy, &mut out)?;
                        }
                        self.adjoints[i] = Some(dy);
                        continue;
                    }
                    // A vector or array holding a limit zero in some element: its rule carries the
                    // limit on (see `give`).
                    let carried = match dy.as_scalar() {
                        None if !self.soft.is_empty() => self.soft.get(&id).copied(),
                        _ => None,
                    };
                    match carried {
                        Some(origin) => self.carrying(Some(origin), |s| {
                            s.differentiate(id, &site, &dy, &mut out)
                        })?,
                        None => self.differentiate(id, &site, &dy, &mut out)?,
                    }
                    self.adjoints[i] = Some(dy);
                }
                NodeKind::Error => {
                    if self.adjoints[parent.index()].is_some() {
                        return Err(GradError::Unconnected {
                            at: self.place(parent),
                            reason: store.value(id).to_string(),
                        });
                    }
                }
                NodeKind::Jump => {}
            }
        }
        // Last: an error the pass met names its cause more exactly.
        if let Some(c) = self.escaped() {
            return Err(self.refused(
                c,
                "it took a value that depends on the inputs and nothing reads its result: \
                     it ran for what it does, and may have kept that value (in a `Cell`, a \
                     `RefCell`, a map, a static) where a later read gets it back, which the \
                     trace does not show, so that read would be taken for a constant; make it \
                     `#[tracked]`, or register it with its rule",
            ));
        }
        Ok(())
    }

    /// A return or an argument passes on the value of the node it refers to: where both are
    /// floats and differ, that node's value was changed in place after it was recorded
    /// (`let _ = triple(&mut y); y`), and the edge is stale.
    fn current(&self, id: NodeId, source: NodeId) -> Result<(), GradError> {
        // Lent to a call before: named as `give` would name it, whatever the values say.
        if let Some(&call) = self.borrowed_mut.get(&source) {
            if call.0 < id.0 && self.is_active(source) {
                return Err(GradError::Mutation {
                    at: self.place(call),
                });
            }
        }
        let (a, b) = (self.store.value_cow(id), self.store.value_cow(source));
        let differ = match (a.by_value().as_f64(), b.by_value().as_f64()) {
            (Some(x), Some(y)) => x.to_bits() != y.to_bits() && !(x.is_nan() && y.is_nan()),
            _ => match (a.floats(), b.floats()) {
                (Some(x), Some(y)) => {
                    x.len() != y.len()
                        || x.iter()
                            .zip(y.iter())
                            .any(|(p, q)| p.to_bits() != q.to_bits() && !(p.is_nan() && q.is_nan()))
                }
                _ => false,
            },
        };
        if !differ {
            return Ok(());
        }
        Err(GradError::NoRule {
            callee: self
                .site(id)
                .map_or_else(|| "?".to_string(), |s| s.describe()),
            at: self.place(id),
            reason: Some(rules::STALE.to_string()),
        })
    }

    /// A field read `p.a` whose recorded value is not the field of the value it read from, as
    /// recorded (a struct deriving `Snapshot` keeps a reader of its float fields): the struct
    /// was changed after it was recorded, by a method the trace does not see (`let _ =
    /// p.flip();` with your own `&mut self` method), so the read's edge is stale.
    fn current_field(&self, id: NodeId) -> Result<(), GradError> {
        let field = self.ir_of(id).is_some_and(|ir| {
            ir.builtin(self.store.node(id).entry as usize) == Some(Builtin::Field)
        });
        if !field {
            return Ok(());
        }
        let Some(site) = Site::new(self.store, id) else {
            return Ok(());
        };
        if site.builtin() != Some(Builtin::Field) {
            return Ok(());
        }
        let (Some(name), Some(&base)) = (site.head().strip_prefix('.'), site.refs.first()) else {
            return Ok(());
        };
        if base.is_none() {
            return Ok(());
        }
        let Some(field) = self.store.value_cow(base).by_value().field(name) else {
            return Ok(());
        };
        let read = self.store.value_cow(id);
        let read = read.by_value();
        let same = crate::core::value::same_f64;
        let agrees = match (field.as_f64(), read.as_f64()) {
            (Some(p), Some(q)) => same(p, q),
            _ => match (field.floats(), read.floats()) {
                (Some(p), Some(q)) => {
                    p.len() == q.len() && p.iter().zip(q.iter()).all(|(a, b)| same(*a, *b))
                }
                _ => true,
            },
        };
        if agrees {
            return Ok(());
        }
        Err(GradError::NoRule {
            callee: site.describe(),
            at: self.place(id),
            reason: Some(
                "the field it read is not the field of the value it read from, as recorded: the \
                 value was changed in place after it was recorded (by a `&mut self` method, \
                 tracked or not: gradients do not follow writes into a struct's fields), so its \
                 edge is stale; read the field before the call, or have the method return the \
                 new value (`p = p.step(dt)` with `fn step(self, dt: f64) -> Self`)"
                    .to_string(),
            ),
        })
    }

    /// `a` in `for (a, b) in x.iter().zip(&y)`: gives `dy` to the element of the vector its
    /// component walks. False when the binding is not such a component.
    fn tuple_binding(&mut self, site: &Site<'s>, dy: &Tangent) -> Result<bool, GradError> {
        let positions = &self.next_positions;
        let found = iter::tuple_binding(site, |next| {
            positions
                .get(next.index())
                .copied()
                .filter(|&k| k != u32::MAX)
                .map(|k| k as usize)
        });
        let Some(target) = found else {
            return Ok(false);
        };
        if let Some((node, len, index)) = target {
            let Some(value) = dy.as_scalar() else {
                return Ok(false);
            };
            self.give(node, Contribution::At { len, index, value })?;
        }
        Ok(true)
    }

    fn differentiate(
        &mut self,
        id: NodeId,
        site: &Site<'s>,
        dy: &Tangent,
        out: &mut Out,
    ) -> Result<(), GradError> {
        // A variable's version after a `&mut` call (`$(&mut xs)`, recorded by `#[tracked]`
        // after `xs.push(x);` or `set(&mut k);`) that depends on the inputs: the call wrote
        // into memory, and no rule says how the new value depends on what it wrote.
        if site.entry.kind == EntryKind::Special && site.head().starts_with("&mut ") {
            let call = site.refs.get(1).copied().filter(|c| !c.is_none());
            return Err(GradError::Mutation {
                at: self.place(call.unwrap_or(id)),
            });
        }
        // An operand read after a call that took it by `&mut` (see `give`): named before a
        // rule's witness finds the stale value, as the call is what to change.
        if !self.borrowed_mut.is_empty() {
            for &r in &site.refs {
                if let Some(&call) = self.borrowed_mut.get(&r) {
                    if call.0 < id.0 && self.is_active(r) {
                        return Err(GradError::Mutation {
                            at: self.place(call),
                        });
                    }
                }
            }
        }
        // A rule reading a value a write into memory changed after it was recorded (`*r =
        // 10.0` then `a * x`): its partials would be taken at the value from before.
        if !self.written.is_empty() {
            for &r in &site.refs {
                if let Some(&write) = self.written.get(&r) {
                    if write.0 < id.0 {
                        return Err(GradError::Mutation {
                            at: self.place(write),
                        });
                    }
                }
            }
        }
        // A special node (`.f1` of a closure's captured `self`) reading a value the trace did
        // not record: its rule would give the adjoint to nothing, a silent zero.
        if site.entry.kind == EntryKind::Special {
            if let Some(reason) = self.unrecorded_operand(site) {
                return Err(GradError::NoRule {
                    callee: site.describe(),
                    at: self.place(id),
                    reason: Some(reason),
                });
            }
        }
        let custom = match self.custom_calls.is_empty() {
            true => self.custom_rule(id),
            false => match self.custom_calls.get(&id) {
                Some(rule) => Some(rule.clone()),
                None => self.custom_rule(id),
            },
        };
        let position = self.next_positions.get(id.index()).copied();
        let iteration = match position.filter(|&k| k != u32::MAX) {
            Some(k) => iter::next(site, k as usize, dy, out),
            // A sum of what is left of an iterator already moved is no sum of its vector.
            None if self.advanced.contains(&id) => options::unwrap(site, dy, out),
            None => iter::sum(site, dy, out)
                .or_else(|| options::unwrap(site, dy, out))
                .or_else(|| {
                    let positions = &self.next_positions;
                    let position = |n: NodeId| {
                        positions
                            .get(n.index())
                            .copied()
                            .filter(|&k| k != u32::MAX)
                            .map(|k| k as usize)
                    };
                    iter::unwrap_element(site, &position, dy, out)
                })
                .or_else(|| iter::element(site, dy, out))
                .or_else(|| iter::fold_extremum(site, dy, out)),
        };
        let result = match (&custom, iteration) {
            (Some(rule), _) => rule(site, dy, out),
            (None, Some(result)) => result,
            (None, None) if parts::rule(site, dy, out) => Ok(()),
            (None, None) => match rules::builtin(site) {
                Some(rule) => rules::apply(&rule, site, dy, out),
                // A checkpoint that passed its value on (nothing injected): the identity.
                None if passed_checkpoint(site) => {
                    out.push((0, Contribution::Whole(dy.clone())));
                    Ok(())
                }
                None if iter::is_vector_iterator(site) => {
                    out.push((0, Contribution::Whole(dy.clone())));
                    Ok(())
                }
                // Stale because an operand was written into in place (`v[0] += x` before
                // `v[0]`): the write is what to name.
                None if rules::stale_operands(site).is_some()
                    && site.refs.iter().any(|r| self.writes.contains_key(r)) =>
                {
                    let write = site.refs.iter().find_map(|r| self.writes.get(r)).copied();
                    return Err(GradError::Mutation {
                        at: self.place(write.unwrap_or(id)),
                    });
                }
                None => {
                    return Err(GradError::NoRule {
                        callee: site.describe(),
                        at: self.place(id),
                        reason: self
                            .unrecorded_operand(site)
                            .or_else(|| match site.builtin() {
                                Some(Builtin::Method(f)) => rules::unproven_method(site, f),
                                // A tuple's or struct's sensitivity names its fields: a
                                // number reached it (a scalar seed for a tuple output).
                                Some(Builtin::Tuple | Builtin::Struct)
                                    if !matches!(dy, Tangent::Fields(_)) =>
                                {
                                    Some(format!(
                                        "it makes a `{}`, whose sensitivity names its fields, \
                                         but it was given a {}; a seed for a tuple or a struct \
                                         output is `Tangent::Fields` (`(\"0\", 1.0)` for a \
                                         tuple's first)",
                                        crate::core::value::short_type_name(
                                            self.store.value_cow(id).type_name()
                                        ),
                                        dy.shape()
                                    ))
                                }
                                Some(Builtin::Bind) => Some(format!(
                                    "it binds a part of a `{}` that depends on the inputs, and \
                                     gradients do not follow a destructuring (of a tuple, a \
                                     struct, an array): compute with the values before they are \
                                     packed together (`let a = x;` for `let (a, b) = (x, 1.0)`)",
                                    site.value(0).map_or_else(
                                        || "?".to_string(),
                                        |v| v.type_name().to_string()
                                    )
                                )),
                                _ => rules::stale_operands(site),
                            }),
                    });
                }
            },
        };
        if let Err(reason) = result {
            return Err(GradError::NoRule {
                callee: site.describe(),
                at: self.place(id),
                reason: Some(reason),
            });
        }
        if let Some(watch) = &mut self.watch {
            watch.rule(id, &self.store.value_cow(id), dy, out);
        }
        // A zero contribution made from a nonzero sensitivity by an operation whose slope is a
        // formula is a limit (`1 / ∞`, an underflow) unless an operand is exactly 0: it carries
        // the mark (`soften`). Looked at only when there is one (the rare case).
        let prone = self.soft_from.is_none()
            && dy.as_scalar().is_some_and(|g| g != 0.0)
            && out
                .iter()
                .any(|(_, c)| matches!(c, Contribution::Whole(t) if t.as_scalar() == Some(0.0)))
            && rules::limit_prone(site);
        for (k, c) in std::mem::take(out) {
            let target = site.refs.get(k).copied().unwrap_or(NodeId::NONE);
            // Only for an operand that depends on the inputs: a constant's sensitivity goes
            // nowhere (`x.powf(0.0)`'s in its literal exponent at x = 1).
            let made_limit = prone
                && self.is_active(target)
                && matches!(&c, Contribution::Whole(t) if t.as_scalar() == Some(0.0))
                && !self.zero_is_exact(site, k);
            // Made from an infinite sensitivity, such a zero is `∞ · 0`: `ln(exp(x))` at
            // -1000, where `exp`'s slope underflowed under `ln`'s infinite one, has the slope
            // 1; `1 / (x * x)` at 0 has none.
            if made_limit && dy.as_scalar().is_some_and(f64::is_infinite) {
                return Err(GradError::Indeterminate {
                    at: self.place(id),
                    cause: Indeterminacy::LimitSlope,
                });
            }
            let limit = if made_limit { Some(id) } else { self.soft_from };
            self.carrying(limit, |s| s.give(target, c))?;
        }
        Ok(())
    }

    /// Whether the zero slope of the site's scalar operation in operand `k` is exact along
    /// `k`'s inputs, so that it may absorb an infinite slope below it (see
    /// [`rules::exact_zero`]): an operand that makes it 0 (exactly 0, and not `k` itself) does
    /// not vary with them — a constant, or a value of other root arguments (`∂(x k)/∂x = k`
    /// at `k = 0` is 0 along `x` whatever `k`'s own slope).
    fn zero_is_exact(&self, site: &Site<'s>, k: usize) -> bool {
        let target = site.refs.get(k).copied().unwrap_or(NodeId::NONE);
        let along = if target.is_none() {
            0
        } else {
            self.inputs.get(target.index()).copied().unwrap_or(u64::MAX)
        };
        rules::exact_zero(site, k, |m| {
            let r = site.refs.get(m).copied().unwrap_or(NodeId::NONE);
            !r.is_none()
                && self.is_active(r)
                && self.inputs.get(r.index()).copied().unwrap_or(u64::MAX) & along != 0
        })
    }

    /// The error for a value computed from a float's re-encoding (bits, text).
    fn reinterpreted(&self, id: NodeId, origin: NodeId) -> GradError {
        let what = Site::new(self.store, origin)
            .map_or_else(|| "a value".to_string(), |s| format!("`{}`", s.describe()));
        let at = self.place(origin);
        GradError::NoRule {
            callee: self
                .site(id)
                .map_or_else(|| "?".to_string(), |s| s.describe()),
            at: self.place(id),
            reason: Some(format!(
                "its value depends on the inputs through {what} at {at}, which re-encodes a \
                 float as an integer or text (its bits, its digits): no rule can follow a value \
                 through that; compute with the float itself, or give the enclosing function a \
                 rule with `irtrack::grad::register_rule`"
            )),
        }
    }

    /// The error for a value read from a model through code irtrack does not see.
    fn hidden_read(&self, id: NodeId, container: NodeId) -> GradError {
        let path = self.containers.get(&container).and_then(|(_, p)| p.clone());
        let what = match path.as_deref() {
            None | Some("") => "an argument".to_string(),
            Some(path) => format!("the field `{path}` of an argument"),
        };
        GradError::NoRule {
            callee: self
                .site(id)
                .map_or_else(|| "?".to_string(), |s| s.describe()),
            at: self.place(id),
            reason: Some(format!(
                "it reads {what} that holds floats, through code irtrack does not see (an \
                 untracked method, a pattern binding), so which fields its value depends on is \
                 unknown; read the fields directly (`m.w`), or make the method `#[tracked]`"
            )),
        }
    }

    fn unrecorded_operand(&self, site: &Site<'_>) -> Option<String> {
        site.entry
            .operands
            .contains(&crate::core::ir::Operand::None)
            .then(|| {
                "it takes a closure, or another value the trace did not record (such as \
                 `self` captured by a closure), that may depend on the inputs; write the \
                 computation as a loop in tracked code, or give the call a rule with \
                 `irtrack::grad::register_rule`"
                    .to_string()
            })
    }

    /// Makes the sweep watch for a NaN sensitivity made from numbers (slower: it copies every
    /// sum); [`indeterminate`](Self::indeterminate) then names where it was made.
    pub(crate) fn watch(&mut self) {
        self.watch = Some(Watch::default());
    }

    /// The error for the first NaN sensitivity a watched sweep saw made from numbers.
    pub(crate) fn indeterminate(&self) -> Option<GradError> {
        self.watch.as_ref()?.error(|id| self.place(id))
    }

    /// A node whose sensitivity is a limit zero (from `origin`): an infinite slope here makes
    /// `0 · ∞`, which is an error; a finite one passes the limit zero on to the operands.
    fn limit(
        &mut self,
        id: NodeId,
        origin: NodeId,
        site: &Site<'s>,
        dy: &Tangent,
        out: &mut Out,
    ) -> Result<(), GradError> {
        if let Some((ds, n)) = rules::builtin_partials(site) {
            let infinite = ds[..n].iter().enumerate().any(|(k, d)| {
                !d.is_finite() && site.refs.get(k).is_some_and(|&r| self.is_active(r))
            });
            if infinite {
                return Err(GradError::Indeterminate {
                    at: self.place(id),
                    cause: Indeterminacy::Limit {
                        zero: self.place(origin),
                    },
                });
            }
        }
        // The zero contributions carry the limit on. A node the sweep cannot differentiate (no
        // rule, a field of a struct it does not follow, a closure's capture) has a slope it
        // does not know, which may be infinite: `0 · ?` is refused, where an exact zero would
        // pass nothing (`t.0 * t.1 * t.2` of `(c, c, c)`, `c = cbrt(x)`, at 0 gave 0 for 1).
        if self
            .carrying(Some(origin), |s| s.differentiate(id, site, dy, out))
            .is_err()
        {
            return Err(GradError::Indeterminate {
                at: self.place(id),
                cause: Indeterminacy::Limit {
                    zero: self.place(origin),
                },
            });
        }
        Ok(())
    }

    /// After a run whose gradient has an infinite element: the first node reached by a nonzero
    /// sensitivity whose slope is infinite at an operand that is 0 only as a limit (made from
    /// nonzero numbers by a product, quotient, power or exponential: an underflow, `1 / ∞`),
    /// as [`Indeterminacy::Underflow`]. An infinite slope at an exact 0 (an argument, a
    /// constant, `x - x`) is the derivative's own and passes.
    pub(crate) fn underflow(&self) -> Option<GradError> {
        let store = self.store;
        // For each node: the node that made the limit zero its value is, or made (`1 / 0`).
        let mut limit = vec![NodeId::NONE; store.len()];
        for i in 0..store.len() {
            let id = NodeId(i as u32);
            let node = store.node(id);
            let Some(y) = store.f64_at(store.slot(id)) else {
                // An array holding a product that underflowed, or made from one.
                #[cfg(feature = "ndarray")]
                if self.is_active(id) && node.kind != NodeKind::NestedCall {
                    if self
                        .site(id)
                        .is_some_and(|s| super::ndarray::underflowed(&s))
                    {
                        limit[i] = id;
                    } else if let Some(r) = store
                        .refs(id)
                        .find(|r| !r.is_none() && !limit[r.index()].is_none())
                    {
                        limit[i] = limit[r.index()];
                    }
                }
                continue;
            };
            if y != 0.0 && !y.is_infinite() {
                // A sum that absorbed a nonzero addend (`x + 1.0` is 1 at x = 1e-20) holds it
                // only as a limit: a zero made from it by cancellation (`(x + 1.0) - 1.0`) is no
                // exact 0.
                if self.absorbed(id, y) {
                    limit[i] = id;
                }
                continue;
            }
            let carried = match node.kind {
                NodeKind::Argument => Some(self.argument_source(id)),
                NodeKind::NestedCall => None,
                _ => store
                    .refs(id)
                    .find(|r| !r.is_none() && !limit[r.index()].is_none()),
            }
            .filter(|r| !r.is_none())
            .map(|r| limit[r.index()])
            .filter(|o| !o.is_none());
            match carried {
                Some(origin) => {
                    limit[i] = origin;
                    // A nested call returns what its return node holds.
                    let parent = self.parent(id);
                    if node.kind == NodeKind::Return && !parent.is_none() {
                        limit[parent.index()] = origin;
                    }
                }
                None if y == 0.0 && self.site(id).is_some_and(|s| makes_limit_zero(&s)) => {
                    limit[i] = id;
                }
                None => {}
            }
        }
        for (id, site) in self.reached_sites() {
            let Some((ds, n)) = rules::builtin_partials(&site) else {
                continue;
            };
            for (k, d) in ds[..n].iter().enumerate() {
                let r = site.refs.get(k).copied().unwrap_or(NodeId::NONE);
                if d.is_infinite() && self.is_active(r) && !limit[r.index()].is_none() {
                    return Some(GradError::Indeterminate {
                        at: self.place(id),
                        cause: Indeterminacy::Underflow {
                            zero: self.place(limit[r.index()]),
                        },
                    });
                }
            }
        }
        self.overflow()
    }

    /// The active nodes a nonzero sensitivity reached, with their sites, in recording order.
    fn reached_sites(&self) -> impl Iterator<Item = (NodeId, Site<'s>)> + '_ {
        (0..self.store.len()).filter_map(move |i| {
            let id = NodeId(i as u32);
            let reached = self.adjoints[i]
                .as_ref()
                .is_some_and(|a| a.as_scalar() != Some(0.0));
            if !reached || !self.is_active(id) {
                return None;
            }
            Some((id, self.site(id)?))
        })
    }

    /// The first node reached by a nonzero sensitivity whose slope reads a subnormal that a
    /// product or quotient of normal numbers made (or a sum of such): it underflowed in part,
    /// keeping a few bits, and a float method's slope (or a quotient's, by its divisor) read at
    /// it is off by as much (`sqrt(x² + y²)` at (3e-162, 4e-162) gave [0.604, 0.805] for
    /// [0.6, 0.8]; a tester, 2026-11-28), as [`Indeterminacy::Underflow`]. Slopes that do not
    /// read it (a product's, a sum's) are exact; an underflow to 0 is
    /// [`underflow`](Self::underflow)'s.
    pub(crate) fn lossy_subnormal(&self) -> Option<GradError> {
        use crate::core::op::BinOp;
        let store = self.store;
        // Which nodes hold such a subnormal; found in recording order, so that a sum's operands
        // are known before it.
        let mut lossy: Vec<bool> = Vec::new();
        for i in 0..store.len() {
            let id = NodeId(i as u32);
            let y = store.f64_at(store.slot(id));
            let made = y.is_some_and(f64::is_subnormal)
                && self.is_active(id)
                && self.site(id).is_some_and(|site| match site.builtin() {
                    Some(Builtin::Binary(BinOp::Mul | BinOp::Div)) => {
                        (0..site.len()).all(|k| site.scalar(k).map_or(true, f64::is_normal))
                    }
                    Some(Builtin::Binary(BinOp::Add | BinOp::Sub)) => site
                        .refs
                        .iter()
                        .any(|r| !r.is_none() && lossy.get(r.index()).copied().unwrap_or(false)),
                    _ => false,
                });
            if made && lossy.is_empty() {
                lossy = vec![false; store.len()];
            }
            if made {
                lossy[i] = true;
            }
        }
        if lossy.is_empty() {
            return None;
        }
        for (id, site) in self.reached_sites() {
            let reads = |k: usize| {
                site.refs
                    .get(k)
                    .is_some_and(|r| !r.is_none() && lossy[r.index()])
            };
            let found = match site.builtin() {
                Some(Builtin::Method(_)) => (0..site.len()).find(|&k| reads(k)),
                Some(Builtin::Binary(BinOp::Div)) => reads(1).then_some(1),
                _ => None,
            };
            if let Some(k) = found {
                return Some(GradError::Indeterminate {
                    at: self.place(id),
                    cause: Indeterminacy::Underflow {
                        zero: self.place(site.refs[k]),
                    },
                });
            }
        }
        None
    }

    /// The checks one forward pass of tangents answers, after the backward pass: an ordering
    /// that holds by a sliver the inputs' moving closes ([`near_tie`],
    /// [`Indeterminacy::NearTie`]), and a sum that rounds an active operand to a coarse grid,
    /// whose rounding the rest of the computation undoes: the slope the rules give through the rounded operand is cancelled
    /// downstream by another path from the same inputs, at a node that reaches the output.
    /// That is the shape of a deliberate rounding (`x·2/π + 1.5·2⁵² − 1.5·2⁵²`, then
    /// `x − k·π/2`: the real numbers' slopes `1 − (2/π)(π/2)` cancel, where the float
    /// function's slope between steps is 1), so the gradient is refused there
    /// ([`Indeterminacy::Rounding`]). A rounding no path cancels is a smooth function's
    /// approximation (`ln(1 + eˣ)` at -35, a long accumulation), whose rules' slope is the
    /// function's; so is one undone at a node that moves the output by less than 2⁻²⁰ of its
    /// size (a compensated sum's error term, the low half of a Veltkamp split). A rounding
    /// undone in part (`2x - (x + 2⁵² - 2⁵²)`) is not seen.
    ///
    /// Found by one forward pass of the direction that moves every scalar input by its own
    /// size (by 1 where it is 0) times a weight of its own ([`direction_weight`]), and so each
    /// element of a vector input and each float field of a struct or tuple input that was
    /// read: each node's tangent, and the part of it that came through a rounded operand. A
    /// vector the computation makes (`collect`, `map`) has no tangent here: an ordering of its
    /// elements is not read.
    pub(crate) fn forward_checks(&self) -> Option<GradError> {
        let store = self.store;
        let n = store.len();
        // Only where some reached sum rounds coarsely (rare): the pass costs a rule per node.
        let any = self
            .reached_sites()
            .any(|(_, site)| self.coarse_operand(&site).is_some());
        if !any && self.near_ties.is_empty() {
            return None;
        }
        let near: std::collections::HashSet<NodeId> = self.near_ties.iter().copied().collect();
        // The output's size: the output times the seed, or the gradient times the inputs.
        let seed = self.adjoints[self.root.index()].as_ref()?;
        let out = store.value_cow(self.root);
        let mut scale = match (seed, out.as_f64(), out.floats()) {
            (Tangent::Scalar(g), Some(y), _) => (g * y).abs(),
            (Tangent::Vector(g), _, Some(y)) => {
                g.iter().zip(y.iter()).map(|(g, y)| (g * y).abs()).sum()
            }
            _ => 0.0,
        };
        for a in self.function_arguments().filter(|&a| self.is_active(a)) {
            let (g, x) = (self.adjoints[a.index()].as_ref(), store.value_cow(a));
            if let (Some(Tangent::Scalar(g)), Some(x)) = (g, x.as_f64()) {
                scale = scale.max((g * x).abs());
            }
        }
        let mut tangent: Vec<Option<f64>> = vec![None; n];
        // The tangents of vectors of floats (an input `Vec<f64>`, slice or array, and what
        // passes one on), element by element: few, so by node.
        let mut vectors: HashMap<NodeId, Vec<f64>> = HashMap::new();
        let mut through: Vec<f64> = vec![0.0; n];
        let mut origin: Vec<NodeId> = vec![NodeId::NONE; n];
        // For a node whose tangent the pass cannot follow, the size of what made it.
        let mut estimate: Vec<f64> = vec![0.0; n];
        // Each input by its own size, times a weight of its own (`direction_weight`); each
        // element of a vector, and each float field a struct or tuple argument was read at,
        // likewise (a bisection on `v[0]` or `p.a` converges as one on `a` does).
        let by_size = |w: f64, x: f64| w * if x == 0.0 { 1.0 } else { x };
        let arguments: Vec<NodeId> = self.function_arguments().collect();
        for (k, &a) in arguments.iter().enumerate() {
            if !self.is_active(a) {
                continue;
            }
            let value = store.value_cow(a);
            if let Some(x) = value.as_f64() {
                tangent[a.index()] = Some(by_size(direction_weight(k, 0), x));
            } else if let Some(xs) = value.floats() {
                let t = (xs.iter().enumerate())
                    .map(|(i, &x)| by_size(direction_weight(k, i), x))
                    .collect();
                vectors.insert(a, t);
            }
        }
        // A field's weight is its path's (numbered by its first read): two reads of `p.a`
        // move together, as two reads of `a` do (with a weight per read, `p.a - (p.a + C -
        // C)` did not cancel).
        let mut paths: Vec<(NodeId, &str)> = Vec::new();
        for (leaf, root, path) in &self.leaves {
            let k = arguments
                .iter()
                .position(|a| a == root)
                .unwrap_or(arguments.len());
            let j = match paths.iter().position(|&(r, p)| r == *root && p == path) {
                Some(j) => j,
                None => {
                    paths.push((*root, path));
                    paths.len() - 1
                }
            };
            if let Some(x) = store.value_cow(*leaf).as_f64() {
                tangent[leaf.index()] = Some(by_size(direction_weight(k, j + 1), x));
            }
        }
        for i in 0..n {
            let id = NodeId(i as u32);
            // An ordering that holds by a sliver, whose margin the inputs' moving by 2⁻³⁶ of
            // their size closes: the path holds within rounding of the point only, as where an
            // iteration converged by comparisons (a bisection), whose path's slope is not its
            // limit's (`cbrt` by bisection gave 0.63 for 0.21). One whose sides move together
            // (`x.next_up() <= x`) holds around the point.
            // So is a jump (`signum`, `floor`, a cast to an integer) whose operand is a sliver
            // from where it jumps (a bisection on `(f(m)).signum()`).
            if near.contains(&id) {
                let Some(site) = self.site(id) else { continue };
                // A side's rate: its tangent, or where the pass cannot follow it (an untracked
                // call, an element of a vector the computation made, a field of a struct it
                // made) the size of what made it (`Sweep::estimated`).
                let rate = |k: usize| {
                    let r = site.refs.get(k).copied().unwrap_or(NodeId::NONE);
                    if r.is_none() || !self.is_active(r) {
                        return Some((0.0, true));
                    }
                    match (tangent[r.index()], estimate[r.index()]) {
                        (Some(t), _) => Some((t, true)),
                        // Made from bits (`f64::from_bits`): not read.
                        (None, 0.0) => None,
                        (None, e) => Some((e, false)),
                    }
                };
                let f32 = |k: usize| {
                    site.value(k)
                        .is_some_and(|v| v.downcast_ref::<f32>().is_some())
                };
                let jump = site
                    .builtin()
                    .filter(|op| !matches!(op, Builtin::Compare(_)));
                let closed = match (jump, site.scalar(0), site.scalar(1), rate(0), rate(1)) {
                    (None, Some(a), Some(b), Some((ta, true)), Some((tb, true))) => {
                        let f32 = f32(0) || f32(1);
                        // 4 ulps of an `f32` are 2⁻²¹ of it already.
                        let ulps = if f32 { 4.0 } else { 1024.0 };
                        closes(a, b, ta, tb, f32) || (ta != tb && within_rounding(a, b, f32, ulps))
                    }
                    // Sizes, not rates: they do not cancel.
                    (None, Some(a), Some(b), Some((ta, _)), Some((tb, _))) => {
                        closes(a, b, ta.abs() + tb.abs(), 0.0, f32(0) || f32(1))
                    }
                    // At the jump itself, the ties' reading decides (`sweep/pins.rs`).
                    (Some(op), ..) => {
                        let k = crate::core::ties::jump_operand(op);
                        match (site.scalar(k), rate(k)) {
                            (Some(x), Some((t, _))) => crate::core::ties::jump_margin(op, x)
                                .is_some_and(|m| m > 0.0 && closes(m, 0.0, t.abs(), 0.0, f32(k))),
                            _ => false,
                        }
                    }
                    _ => false,
                };
                if closed {
                    return Some(GradError::Indeterminate {
                        at: self.place(id),
                        cause: Indeterminacy::NearTie,
                    });
                }
                if jump.is_none() {
                    continue;
                }
            }
            if !self.is_active(id) || tangent[i].is_some() {
                continue;
            }
            let node = store.node(id);
            let copy_from = match node.kind {
                NodeKind::Argument => Some(self.argument_source(id)),
                NodeKind::Return => Some(store.ref_at(id, 0)),
                // A closure's captured variable: the node it was captured from. One the trace
                // does not link (a closure handed to a tracked helper, `bisect(|m| m * m * m -
                // a, …)`) passes its value on: read by its size, as an element is.
                NodeKind::Constant => match self.captures.get(&id) {
                    Some(&source) => Some(source),
                    None => {
                        if let Some(x) = store.value_cow(id).as_f64() {
                            estimate[i] = x.abs();
                        }
                        None
                    }
                },
                _ => None,
            };
            if let Some(src) = copy_from {
                if src.is_none() {
                    continue;
                }
                if tangent[src.index()].is_none() {
                    estimate[i] = estimate[src.index()];
                }
                let (t, r, o) = (
                    tangent[src.index()],
                    through[src.index()],
                    origin[src.index()],
                );
                tangent[i] = t;
                through[i] = r;
                origin[i] = o;
                let v = vectors.get(&src).cloned();
                if let Some(v) = &v {
                    vectors.insert(id, v.clone());
                }
                if node.kind == NodeKind::Return {
                    let call = self.parent(id);
                    if !call.is_none() && call != self.root {
                        tangent[call.index()] = t;
                        through[call.index()] = r;
                        origin[call.index()] = o;
                        estimate[call.index()] = estimate[i];
                        if let Some(v) = v {
                            vectors.insert(call, v);
                        }
                    }
                }
                continue;
            }
            let Some(site) = self.site(id) else { continue };
            // Where the pass cannot follow the node: the size of what made it.
            let unknown = |estimate: &mut Vec<f64>| {
                estimate[i] = self.estimated(&site, &tangent, estimate);
            };
            // A binding of a tuple's element (`let (lo, hi) = (0.0, x)`): that element's.
            if site.builtin() == Some(Builtin::Bind) {
                let element = site
                    .ir
                    .bind_path(site.index)
                    .and_then(|p| p.parse::<usize>().ok());
                let tuple = site
                    .refs
                    .first()
                    .and_then(|&r| self.site(r))
                    .filter(|t| t.builtin() == Some(Builtin::Tuple));
                if let (Some(k), Some(tuple)) = (element, tuple) {
                    let src = tuple.refs.get(k).copied().unwrap_or(NodeId::NONE);
                    // An element that is a literal or a constant moves with nothing.
                    if src.is_none() || !self.is_active(src) {
                        tangent[i] = Some(0.0);
                    } else {
                        tangent[i] = tangent[src.index()];
                        through[i] = through[src.index()];
                        origin[i] = origin[src.index()];
                    }
                    continue;
                }
            }
            // A part of `x.sin_cos()` (`let (s, c) = x.sin_cos()`, `t.0`): `x`'s, times the
            // part's slope.
            let part = match site.builtin() {
                Some(Builtin::Bind) => site.ir.bind_path(site.index),
                Some(Builtin::Field) => site.head().strip_prefix('.'),
                _ => None,
            };
            let pair = site
                .refs
                .first()
                .filter(|r| !r.is_none() && part.is_some())
                .and_then(|&r| self.site(r))
                .filter(|t| {
                    rules::names_sin_cos(t)
                        && rules::builtin(t).is_some_and(|r| matches!(r, Rule::SinCos))
                });
            if let (Some(k @ ("0" | "1")), Some(pair)) = (part, pair) {
                let src = pair.refs.first().copied().unwrap_or(NodeId::NONE);
                if src.is_none() || !self.is_active(src) {
                    tangent[i] = Some(0.0);
                    continue;
                }
                // The part's slope, by the pair's rule given the part's unit sensitivity.
                let unit = Tangent::Fields(vec![(k.to_string(), Tangent::Scalar(1.0))]);
                let mut slope = Vec::new();
                let d = rules::apply(&Rule::SinCos, &pair, &unit, &mut slope)
                    .ok()
                    .and_then(|()| match slope.first() {
                        Some((0, Contribution::Whole(t))) => t.as_scalar(),
                        _ => None,
                    });
                let (Some(d), Some(ts)) = (d, tangent[src.index()]) else {
                    unknown(&mut estimate);
                    continue;
                };
                tangent[i] = Some(d * ts);
                through[i] = d * through[src.index()];
                origin[i] = origin[src.index()];
                continue;
            }
            // A float cast, a deref, a binding passes its operand on.
            let passes = matches!(
                site.builtin(),
                Some(Builtin::Deref | Builtin::Bind | Builtin::Question)
            ) || matches!(site.builtin(), Some(Builtin::Cast(to)) if to.is_float());
            // A vector passed on (`v.clone()`, `*r`, a binding): its elements' tangents.
            let first = site.refs.first().copied().unwrap_or(NodeId::NONE);
            if passes || site.builtin() == Some(Builtin::Clone) {
                if let Some(v) = vectors.get(&first).cloned() {
                    vectors.insert(id, v);
                    continue;
                }
            }
            // The slopes: the rule's contributions to a unit sensitivity (any scalar rule:
            // `max`, `abs`, `clamp` as well as the formulas; an element read, a sum or a dot
            // product of a vector whose tangent is known).
            let unit = || {
                let rule = rules::builtin(&site)?;
                let mut out = Vec::new();
                rules::apply(&rule, &site, &Tangent::Scalar(1.0), &mut out).ok()?;
                Some(out)
            };
            let passed = || vec![(0, Contribution::Whole(Tangent::Scalar(1.0)))];
            // No rule (an untracked call): not read. Its result's size says nothing of its
            // rate (`(now_ms - birth_ms) / 8.64e7` of operands 10¹² was read as moving by
            // 10¹²: its comparisons with 30 days were refused; an audit, 2026-11-28).
            let Some(contributions) = unit().or_else(|| passes.then(passed)) else {
                // An iterator's `sum` or `product` (the sweep's `iter` rules, not a rule per
                // node) passes the elements' sizes on.
                if matches!(site.head(), "sum" | "product") {
                    unknown(&mut estimate);
                }
                continue;
            };
            let mut partials = vec![0.0; site.len().max(1)];
            let mut t = 0.0;
            let mut r = 0.0;
            let mut o = NodeId::NONE;
            let mut known = true;
            for (k, c) in &contributions {
                let src = site.refs.get(*k).copied().unwrap_or(NodeId::NONE);
                if src.is_none() || !self.is_active(src) {
                    continue;
                }
                if let Contribution::Whole(Tangent::Scalar(d)) = c {
                    if *d == 0.0 {
                        continue;
                    }
                    let (Some(ts), Some(p)) = (tangent[src.index()], partials.get_mut(*k)) else {
                        known = false;
                        break;
                    };
                    *p += d;
                    t += d * ts;
                    r += d * through[src.index()];
                    if o.is_none() {
                        o = origin[src.index()];
                    }
                    continue;
                }
                match vectors.get(&src).and_then(|tv| element_rate(c, tv)) {
                    Some(rate) => t += rate,
                    None => {
                        known = false;
                        break;
                    }
                }
            }
            if !known {
                unknown(&mut estimate);
                continue;
            }
            // A coarse rounding of an operand whose grid is coarse against its tangent: what
            // the rules pass through that operand is the rounding's. (The operand is active and
            // its tangent known: an unknown one ended this node above; the output is a float,
            // which `coarse_operand` read.)
            let rounded = self.coarse_operand(&site).and_then(|k| {
                let ts = tangent[site.refs[k].index()]?;
                let y = site.output().as_f64()?;
                coarse_grid(y, ts, site.output_is_f32()).then_some(partials[k] * ts)
            });
            if let Some(through_rounding) = rounded {
                r += through_rounding;
                o = id;
            }
            tangent[i] = Some(t);
            through[i] = r;
            origin[i] = o;
            // Cancelled: the total is a sliver of what came through the rounding, at a node
            // whose value moves the output (a compensated sum's error term, a split's low part,
            // a rounding error itself, moves it by far less than 2⁻²⁰ of its size).
            let cancelled = r != 0.0 && t.abs() < r.abs() / (1u64 << 20) as f64 && !o.is_none();
            let moves = || {
                let g = self.adjoints[i].as_ref().and_then(Tangent::as_scalar)?;
                let v = site.output().as_f64()?;
                Some((g * v).abs())
            };
            if any && cancelled && moves().is_some_and(|m| m > scale / (1u64 << 20) as f64) {
                return Some(GradError::Indeterminate {
                    at: self.place(o),
                    cause: Indeterminacy::Rounding {
                        undone_at: self.place(id),
                    },
                });
            }
        }
        None
    }

    /// The size of what made the node at `site`, a known operation whose operand's tangent the
    /// forward pass cannot follow (an element read through an iterator, of a `vec![…]` or a
    /// struct's field the computation made, a `sum` of them): the largest of its value and its
    /// operands' rates, estimates or values (a vector's largest element), a stand-in for its
    /// rate along the direction that moves every input by its own size, as these operations
    /// pass their operands' values on.
    fn estimated(&self, site: &Site<'_>, tangent: &[Option<f64>], estimate: &[f64]) -> f64 {
        // An integer made from the inputs (their bits, `x.to_bits() + 1`) stands for what is
        // unknown, and so does what is made from it: 0, not read.
        let discrete = |v: &Value| v.scalar_type().is_some_and(|t| !t.is_float());
        let output = site.output();
        if discrete(&output) {
            return 0.0;
        }
        let mut size = output.as_f64().map_or(0.0, f64::abs);
        // Active through a float (not only through an integer the sweep counts as a constant).
        let mut through_a_float = false;
        for k in 0..site.len() {
            let r = site.refs.get(k).copied().unwrap_or(NodeId::NONE);
            if r.is_none() || !self.is_active(r) {
                continue;
            }
            if site.value(k).is_some_and(|v| discrete(&v)) {
                return 0.0;
            }
            through_a_float = true;
            let of = match tangent[r.index()] {
                Some(t) => t.abs(),
                None if estimate[r.index()] > 0.0 => estimate[r.index()],
                None => match site.value(k) {
                    Some(v) => match (v.as_f64(), v.floats()) {
                        (Some(x), _) => x.abs(),
                        (None, Some(xs)) => xs.iter().fold(0.0, |m: f64, x| m.max(x.abs())),
                        _ => 0.0,
                    },
                    None => 0.0,
                },
            };
            size = size.max(of);
        }
        if through_a_float {
            size
        } else {
            0.0
        }
    }

    /// Whether `site` orders input-dependent floats ([`ordering`]), or jumps at an
    /// input-dependent operand (`core::ties::jump_margin`): the forward checks ask whether the
    /// margin is a sliver.
    fn at_near_tie(&self, site: &Site<'_>) -> bool {
        let active = |k: usize| {
            site.refs
                .get(k)
                .is_some_and(|&r| !r.is_none() && self.is_active(r))
        };
        if let Some(op) = site.builtin().filter(|b| !matches!(b, Builtin::Compare(_))) {
            let k = crate::core::ties::jump_operand(op);
            return active(k)
                && site
                    .scalar(k)
                    .is_some_and(|x| crate::core::ties::jump_margin(op, x).is_some());
        }
        let Some(Builtin::Compare(op)) = site.builtin() else {
            return false;
        };
        let active = (0..2).any(|k| {
            site.refs
                .get(k)
                .is_some_and(|&r| !r.is_none() && self.is_active(r))
        });
        match (active, site.scalar(0), site.scalar(1)) {
            (true, Some(a), Some(b)) => ordering(op, a, b),
            _ => false,
        }
    }

    /// The operand of the sum at `site` that it rounds coarsely ([`rounds_coarsely`]) and that
    /// depends on the inputs; or the `f64` operand of an `as f32` (which keeps 24 of its 53
    /// bits: `x - (x as f32) as f64` undoes it).
    fn coarse_operand(&self, site: &Site<'_>) -> Option<usize> {
        let active = |k: usize| {
            let r = site.refs.get(k).copied().unwrap_or(NodeId::NONE);
            !r.is_none() && self.is_active(r)
        };
        if site.builtin() == Some(Builtin::Cast(crate::core::op::ScalarType::F32)) {
            let wide = site
                .value(0)
                .is_some_and(|v| v.downcast_ref::<f64>().is_some());
            return (wide && active(0)).then_some(0);
        }
        if !is_sum(site) {
            return None;
        }
        let s = site.output().as_f64()?;
        (0..2).find(|&k| {
            let r = site.refs.get(k).copied().unwrap_or(NodeId::NONE);
            !r.is_none()
                && self.is_active(r)
                && site
                    .scalar(k)
                    .is_some_and(|a| rounds_coarsely(a, s, site.output_is_f32()))
        })
    }

    /// Whether node `id`, of value `y`, is a sum or difference of an active operand that
    /// gave the other operand back exactly while the active one is a nonzero number (its
    /// contribution was lost in rounding).
    fn absorbed(&self, id: NodeId, y: f64) -> bool {
        if !self.is_active(id) {
            return false;
        }
        let Some(site) = self.site(id) else {
            return false;
        };
        let (Some(a), Some(b), 2) = (site.scalar(0), site.scalar(1), site.len()) else {
            return false;
        };
        crate::core::rounding::sum_absorbed(site.builtin(), [a, b], y, |k| {
            site.refs.get(k).is_some_and(|&r| self.is_active(r))
        })
    }

    /// After a run whose gradient has an infinite element: the first place where the ∞ of a
    /// slope that overflowed (a finite number past `f64`'s range, [`slope_overflowed`]), or of
    /// a sensitivity that overflowed when multiplied by a slope, meets
    /// a factor that may bring it back into range: a sensitivity or a later slope smaller
    /// than 1 in magnitude (`1 / (1 / x)` at 10⁻¹⁶⁰: the slope -10³²⁰ of the inner quotient
    /// meets the outer one's -10⁻³²⁰; the slope of the whole is 1). An overflow that meets
    /// only factors of magnitude 1 or more is a derivative past the range, whose ∞ is right.
    /// Where such an ∞ reaches anything but a builtin operation or an argument (a nested
    /// call's body, a container), this refuses too, rather than follow it.
    fn overflow(&self) -> Option<GradError> {
        let store = self.store;
        let refuse = |id: NodeId| {
            Some(GradError::Indeterminate {
                at: self.place(id),
                cause: Indeterminacy::Overflow,
            })
        };
        // Whether a node's sensitivity is infinite because of an overflowed slope. Nodes come
        // in execution order, and a sensitivity flows to operands that ran earlier; a nested
        // call's body runs after the call's node, and an ∞ that enters it is refused below.
        let mut overflowed = vec![false; store.len()];
        for i in (0..store.len()).rev() {
            let id = NodeId(i as u32);
            let sensitivity = match self.adjoints[i].as_ref().map(|a| a.as_scalar()) {
                Some(Some(s)) if s != 0.0 => s,
                Some(None) if overflowed[i] => return refuse(id),
                _ => continue,
            };
            if !self.is_active(id) {
                continue;
            }
            if store.node(id).kind == NodeKind::Argument {
                let source = self.argument_source(id);
                if overflowed[i] && !source.is_none() {
                    overflowed[source.index()] = true;
                }
                continue;
            }
            let partials = self
                .site(id)
                .and_then(|site| Some((rules::builtin_partials(&site)?, site)));
            let Some(((ds, n), site)) = partials else {
                if overflowed[i] {
                    return refuse(id);
                }
                continue;
            };
            // Whether an infinite slope here is an overflow (not a pole, nor the ∞ of a value
            // that overflowed itself).
            let overflows = !site.builtin().is_some_and(|b| b.pole_away_from_zero())
                && slope_overflowed(&site, n);
            for (k, &d) in ds[..n].iter().enumerate() {
                let r = site.refs.get(k).copied().unwrap_or(NodeId::NONE);
                if d == 0.0 || !self.is_active(r) {
                    continue;
                }
                // An overflowed slope may be brought back into range by a sensitivity below 1,
                // an ∞ that arrived here (`overflowed[i]`) by a slope below 1. A finite
                // sensitivity times a finite slope can overflow too (`1e300 · 1e300`).
                let slope_made = d.is_infinite() && overflows;
                let product_made =
                    d.is_finite() && sensitivity.is_finite() && (sensitivity * d).is_infinite();
                let shrunk = if slope_made {
                    sensitivity.abs() < 1.0
                } else {
                    overflowed[i] && d.abs() < 1.0
                };
                if shrunk {
                    return refuse(id);
                }
                if slope_made || product_made || overflowed[i] {
                    overflowed[r.index()] = true;
                }
            }
        }
        None
    }

    /// Runs `f` with the zero contributions it gives carrying the limit zero made at `origin`
    /// (none when `None`).
    fn carrying<R>(&mut self, origin: Option<NodeId>, f: impl FnOnce(&mut Self) -> R) -> R {
        let outer = std::mem::replace(&mut self.soft_from, origin);
        let r = f(self);
        self.soft_from = outer;
        r
    }

    /// Marks `target` as holding a limit zero from `origin` (giving it a zero sensitivity if it
    /// has none, so the sweep visits it).
    fn soften(&mut self, target: NodeId, origin: NodeId) {
        if !self.is_active(target) {
            return;
        }
        let slot = &mut self.adjoints[target.index()];
        if slot.is_none() {
            *slot = Some(Tangent::Scalar(0.0));
        }
        self.soft.entry(target).or_insert(origin);
    }

    /// Adds a contribution to the adjoint of `target`, if it depends on the inputs.
    fn give(&mut self, target: NodeId, c: Contribution) -> Result<(), GradError> {
        if !self.is_active(target) {
            return Ok(());
        }
        // Read after a call that took it by `&mut`: the call may have changed it, and the
        // node read is the version before (`let _ = triple(&mut y); y`, also where the call
        // left the value as it was at this point, which no witness can see).
        if !self.borrowed_mut.is_empty() && !self.reading.is_none() {
            if let Some(&call) = self.borrowed_mut.get(&target) {
                if call.0 < self.reading.0 {
                    return Err(GradError::Mutation {
                        at: self.place(call),
                    });
                }
            }
        }
        // A zero adjoint contributes nothing, whatever the partials below it: the operand
        // `max`/`min` did not select, or a product with 0, must not turn a NaN or infinite
        // partial (`x.powf(0.5)` at `x < 0`, `sqrt` at 0) into a NaN gradient, and finite
        // differences of the function agree that the contribution is 0.
        if let Contribution::Whole(t) = &c {
            if t.as_scalar() == Some(0.0) {
                if let Some(origin) = self.soft_from {
                    self.soften(target, origin);
                }
                return Ok(());
            }
        }
        // A limit zero given to an element of a vector or array (`v[0]` of `vec![c, c]`, where
        // the product `v[0] * v[1]` made it): the vector carries the mark, so that its own
        // rule passes the limit on to the elements' sources (`cbrt(x)` at 0, whose infinite
        // slope makes it `0 · ∞`).
        if let Some(origin) = self.soft_from {
            if has_zero_element(&c) {
                self.soft.entry(target).or_insert(origin);
            }
        }
        #[cfg(feature = "ndarray")]
        let c = match c {
            Contribution::Whole(t) => {
                Contribution::Whole(conform(t, &self.store.value_cow(target)))
            }
            c => c,
        };
        let watched = self
            .watch
            .is_some()
            .then(|| (self.adjoints[target.index()].clone(), c.clone()));
        let slot = &mut self.adjoints[target.index()];
        let result = match c {
            Contribution::Whole(t) => match slot {
                None => {
                    *slot = Some(t);
                    Ok(())
                }
                Some(a) => a.add_assign(&t),
            },
            Contribution::At { len, index, value } => {
                add_range(slot, len, index, std::slice::from_ref(&value))
            }
            Contribution::Range { len, start, values } => add_range(slot, len, start, &values),
        };
        result.map_err(|shapes| GradError::Shape {
            at: self.place(target),
            shapes,
        })?;
        if let (Some(watch), Some((before, c))) = (&mut self.watch, watched) {
            let after = self.adjoints[target.index()].as_ref();
            watch.sum(target, before.as_ref(), &c, after);
        }
        Ok(())
    }

    /// The adjoint of a function argument of the root, `None` when it is not differentiable;
    /// a differentiable argument the output does not depend on gets zeros of its shape.
    /// A function argument whose sensitivity carries a zero that is only a limit (see
    /// [`soften`](Self::soften)) made by an operation at an infinite operand (`sqrt` of an ∞
    /// that a product made), with that operation. (An operation whose own value is a pole at
    /// finite operands, `0.0.powf(-1.0)`, is ∞ exactly, and its zero slope in the exponent is
    /// exact there.)
    pub(crate) fn soft_argument(&self) -> Option<(NodeId, NodeId)> {
        if self.soft.is_empty() {
            return None;
        }
        self.function_arguments().find_map(|a| {
            let &origin = self.soft.get(&a)?;
            let site = self.site(origin)?;
            (0..site.len())
                .any(|k| site.scalar(k).is_some_and(f64::is_infinite))
                .then_some((a, origin))
        })
    }

    pub(crate) fn argument_gradient(&self, id: NodeId) -> Option<Tangent> {
        if !self.active[id.index()] {
            return self.fields_gradient(id);
        }
        if let Some(t) = &self.adjoints[id.index()] {
            return Some(t.clone());
        }
        Some(zeros(&primal(&self.store.value_cow(id))?))
    }
}

impl Sweep<'_> {
    /// The gradient of a struct argument: the adjoints of the fields the computation read
    /// (zeros for a field read that did not reach the output), `None` when it read none.
    fn fields_gradient(&self, argument: NodeId) -> Option<Tangent> {
        let mut fields = Tangent::Fields(Vec::new());
        let mut any = false;
        for (leaf, root, path) in &self.leaves {
            if *root != argument {
                continue;
            }
            let t = match &self.adjoints[leaf.index()] {
                Some(t) => t.clone(),
                None => zeros(&primal(&self.store.value_cow(*leaf))?),
            };
            fields
                .add_assign(&Tangent::Fields(vec![(path.clone(), t)]))
                .ok()?;
            any = true;
        }
        any.then_some(fields)
    }

    /// Gives each struct argument its fields' gradient as its adjoint, for the annotation.
    pub(crate) fn gather_fields(&mut self) {
        let roots: std::collections::BTreeSet<NodeId> =
            self.containers.values().map(|(r, _)| *r).collect();
        for root in roots {
            if self.adjoints[root.index()].is_none() {
                self.adjoints[root.index()] = self.fields_gradient(root);
            }
        }
    }
}

/// Whether a value's type is a float or a vector of floats (also when irtrack kept only its
/// type, or its text: then it has no gradient, and that is an error).
pub(crate) fn float_like(value: &Value) -> bool {
    use std::any::TypeId;
    let floats = [
        TypeId::of::<f64>(),
        TypeId::of::<f32>(),
        TypeId::of::<&'static f64>(),
        TypeId::of::<&'static f32>(),
        TypeId::of::<Vec<f64>>(),
        TypeId::of::<Vec<f32>>(),
        TypeId::of::<&'static [f64]>(),
        TypeId::of::<&'static [f32]>(),
        TypeId::of::<&'static Vec<f64>>(),
    ];
    value.type_id().is_some_and(|t| floats.contains(&t))
}

/// A value that may hold differentiable fields: neither a number, a vector or an array, nor
/// discrete, nor `()`.
/// Whether a container's value may hold floats: its text shows one (`2.0`, `1e-7`, `NaN`,
/// `inf`: every form `Debug` writes a float in), or irtrack kept only its type. An RNG's
/// state shows integers only, so reading it through its methods (`rng.random()`) is a
/// constant to the sweep.
fn may_hold_floats(value: &Value) -> bool {
    if value.is_opaque() {
        return true;
    }
    let text = value.to_string();
    let b = text.as_bytes();
    let decimal = (1..b.len().saturating_sub(1))
        .any(|i| b[i] == b'.' && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit());
    // `1e-7`, `1e20`: digits starting a number (not inside a name such as `x1e2`), then an
    // exponent.
    let exponent = (0..b.len()).any(|i| {
        let starts = b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
        if !starts {
            return false;
        }
        let mut j = i;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j >= b.len() || b[j] != b'e' {
            return false;
        }
        j += 1;
        if j < b.len() && b[j] == b'-' {
            j += 1;
        }
        j < b.len() && b[j].is_ascii_digit()
    });
    let word = |w: &str| {
        text.match_indices(w).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + w.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    };
    decimal || exponent || word("NaN") || word("inf")
}

fn is_container(value: &Value) -> bool {
    !value.is_discrete() && !value.is_unit() && !is_differentiable(value)
}

/// A vector's sensitivity as a vector and an array's as an array, whichever form the rule
/// that gave it used (`Array1::from_vec(v)` passes an array's sensitivity to a vector).
#[cfg(feature = "ndarray")]
fn conform(t: Tangent, value: &Value) -> Tangent {
    match (t, primal(value)) {
        (Tangent::Array(a), Some(Primal::Vector(_))) if a.ndim() == 1 => {
            Tangent::Vector(a.iter().copied().collect())
        }
        (Tangent::Vector(v), Some(Primal::Array(a))) if a.ndim() == 1 && a.len() == v.len() => {
            Tangent::from(ndarray::Array1::from(v))
        }
        (t, _) => t,
    }
}

fn zeros(p: &Primal<'_>) -> Tangent {
    match p {
        Primal::Scalar(_) => Tangent::Scalar(0.0),
        Primal::Vector(v) => Tangent::Vector(vec![0.0; v.len()]),
        #[cfg(feature = "ndarray")]
        Primal::Array(a) => Tangent::Array(Box::new(ndarray::ArrayD::zeros(a.raw_dim()))),
    }
}

fn add_range(
    slot: &mut Option<Tangent>,
    len: usize,
    start: usize,
    values: &[f64],
) -> Result<(), (String, String)> {
    let t = slot.get_or_insert_with(|| Tangent::Vector(vec![0.0; len]));
    match t {
        Tangent::Vector(v) if start + values.len() <= v.len() => {
            v[start..start + values.len()]
                .iter_mut()
                .zip(values)
                .for_each(|(a, b)| *a += b);
            Ok(())
        }
        #[cfg(feature = "ndarray")]
        Tangent::Array(a) if start + values.len() <= a.len() => {
            a.iter_mut()
                .skip(start)
                .zip(values)
                .for_each(|(a, b)| *a += b);
            Ok(())
        }
        t => Err((t.shape(), format!("element {start} of a vector of {len}"))),
    }
}

/// Whether an infinite slope of `site` (with `n` operands) is an overflow: its value and its
/// float operands are finite and nonzero, so the exact slope is a finite number past `f64`'s
/// range (`1 / x` at 10⁻¹⁶⁰ has the slope -10³²⁰), not the pole of `1 / x` at 0 or of `sqrt`
/// at 0. Where the value itself overflowed (`exp` at 10³), the slope's ∞ is that value's.
fn slope_overflowed(site: &Site<'_>, n: usize) -> bool {
    let normal = |x: f64| x.is_finite() && x != 0.0;
    site.output().as_f64().is_some_and(f64::is_finite)
        && (0..n).all(|i| site.scalar(i).map_or(true, normal))
}

/// Whether a method's receiver is a float by value, in generic code or not: a class test or a
/// comparison then answers with a `bool` or an ordering whichever method of that name ran (a
/// trait's, on a type parameter, included), and such an answer is piecewise constant.
fn float_by_value(r: crate::core::op::Receiver) -> bool {
    use crate::core::op::Receiver;
    matches!(r, Receiver::Float | Receiver::Generic)
}

/// Whether node `id` is a comparison or a float method that compares (`eq`, `partial_cmp`):
/// what `Sweep::pins_when_evaluated` looks at.
/// Whether node `id` is an operation that jumps (`signum`, `floor`, a cast to an integer,
/// `core::ties::jump_margin`).
fn jumps_at(store: &Store, id: NodeId, parent: NodeId) -> bool {
    let Some((ir, _)) = store.entry_under(id, parent) else {
        return false;
    };
    ir.builtin(store.node(id).entry as usize)
        .is_some_and(crate::core::ties::jumps)
}

fn may_pin(store: &Store, id: NodeId, parent: NodeId) -> bool {
    let Some((ir, entry)) = store.entry_under(id, parent) else {
        return false;
    };
    match entry.kind {
        EntryKind::Operator => matches!(
            ir.builtin(store.node(id).entry as usize),
            Some(Builtin::Compare(_))
        ),
        EntryKind::MethodCall => {
            let head = entry.head.as_str();
            crate::core::op::CmpOp::from_method(head).is_some()
                || crate::core::op::FloatQuery::from_name(head, 1).is_some()
                || matches!(head, "partial_cmp" | "total_cmp" | "classify")
        }
        // `f64::eq(&x, &y)`, `PartialOrd::le(&x, &y)`, `f64::is_normal(x)`, by callee key.
        EntryKind::Call => match store.callees.get(&id) {
            Some(crate::core::tape::Callee::Item(k)) => {
                crate::core::op::float_compare_of(k.id).is_some()
                    || crate::core::op::float_query_of(k.id).is_some()
            }
            _ => false,
        },
        _ => false,
    }
}

/// Whether a contribution to a vector or array gives some element exactly 0.
fn has_zero_element(c: &Contribution) -> bool {
    match c {
        Contribution::At { value, .. } => *value == 0.0,
        Contribution::Range { values, .. } => values.contains(&0.0),
        Contribution::Whole(t) => tangent_has_zero(t),
    }
}

/// Whether a sensitivity has an element exactly 0 (a tuple's parts included).
fn tangent_has_zero(t: &Tangent) -> bool {
    match t {
        Tangent::Scalar(x) => *x == 0.0,
        Tangent::Vector(v) => v.contains(&0.0),
        #[cfg(feature = "ndarray")]
        Tangent::Array(a) => a.iter().any(|&x| x == 0.0),
        Tangent::Fields(parts) => parts.iter().any(|(_, t)| tangent_has_zero(t)),
    }
}

/// Whether a clone of a container is the container: provably the same value where irtrack can
/// compare it ([`Value::exact_eq`]); else of the same type with the same text (a user's
/// struct known by its `Debug`: a `clone` that changes what it copies would have to keep that
/// text too).
fn same_container(a: &Value, b: &Value) -> bool {
    match a.exact_eq(b) {
        Some(same) => same,
        None => a.same_type(b) && a.to_string() == b.to_string(),
    }
}

/// std's iterator and option adaptors and consumers, which return what they computed and keep
/// nothing of it (`let _ = v.iter().sum::<f64>();`).
fn gives_back(method: &str) -> bool {
    matches!(
        method,
        "sum"
            | "product"
            | "collect"
            | "count"
            | "fold"
            | "map"
            | "map_or"
            | "map_or_else"
            | "filter"
            | "zip"
            | "enumerate"
            | "rev"
            | "skip"
            | "take"
            | "chain"
            | "copied"
            | "cloned"
            | "iter"
            | "into_iter"
            | "unwrap"
            | "unwrap_or"
            | "unwrap_or_else"
            | "unwrap_or_default"
            | "expect"
            | "then_some"
            | "then"
            | "ok"
            | "ok_or"
            | "and_then"
            | "or"
            | "or_else"
            | "len"
            | "is_empty"
            | "to_vec"
            | "to_string"
            | "to_owned"
    )
}

/// Whether the site makes a 0 from nonzero numbers (`rules::makes_limit_zero`), an array
/// product's that underflowed included (`x.dot(&x)` at `1e-170`).
fn makes_limit_zero(site: &Site<'_>) -> bool {
    #[cfg(feature = "ndarray")]
    if super::ndarray::underflowed(site) {
        return true;
    }
    rules::makes_limit_zero(site)
}

/// Whether the sum `s` dropped 12 or more of the bits of its operand `a` (a finite nonzero
/// number): `s`'s ulp is 2¹² times `a`'s or more (in `f32`, 2⁶). Common in sums of terms of
/// different sizes; what decides is whether a path undoes the rounding ([`Sweep::forward_checks`]).
pub(crate) fn rounds_coarsely(a: f64, s: f64, f32: bool) -> bool {
    drops_bits(a, s, f32, if f32 { 6 } else { 12 })
}

/// Whether the grid a sum of value `y` rounds to is coarse against the rate `rate` at which
/// its rounded operand moves along the forward checks' direction (a step above 2⁻⁴⁰ of it):
/// what the rules pass through that operand is then the rounding's.
pub(crate) fn coarse_grid(y: f64, rate: f64, f32: bool) -> bool {
    rate != 0.0 && ulp(y, f32) > rate.abs() / (1u64 << 40) as f64
}

/// Whether the sum `s` dropped `bits` or more of the bits of its operand `a`.
fn drops_bits(a: f64, s: f64, f32: bool, bits: u32) -> bool {
    a != 0.0 && a.is_finite() && s.is_finite() && ulp(s, f32) >= ulp(a, f32) * (1u64 << bits) as f64
}

/// The distance from `|x|` to the next larger number of its type.
fn ulp(x: f64, f32: bool) -> f64 {
    if f32 {
        let a = (x as f32).abs();
        (f32::from_bits(a.to_bits() + 1) - a) as f64
    } else {
        let a = x.abs();
        f64::from_bits(a.to_bits() + 1) - a
    }
}

/// Whether `site` calls `program::checkpoint` (the one operation that must run at every
/// replay), gave its first operand back bit for bit, and no checkpoint ran under an `inject`
/// while the trace was recorded: it passed its value on, the identity of that operand. Under
/// an `inject` a value passed on may be an injected one equal to it, which depends on nothing
/// the call was given: no rule then (one recorded under an `inject` and differentiated outside
/// it had the identity's slope; a tester, 2026-11-28).
fn passed_checkpoint(site: &Site<'_>) -> bool {
    let Some(crate::core::tape::Callee::Item(k)) = site.callee() else {
        return false;
    };
    crate::core::eval::lookup(k.id).is_some_and(|r| r.volatile)
        && !site.store.injected
        && site
            .value(0)
            .is_some_and(|v| v.exact_eq(&site.output()) == Some(true))
}

/// Whether `site` is a scalar sum or difference (`a + b`, `a -= b`).
fn is_sum(site: &Site<'_>) -> bool {
    matches!(
        site.builtin(),
        Some(Builtin::Binary(BinOp::Add | BinOp::Sub) | Builtin::Assign(BinOp::Add | BinOp::Sub))
    )
}

/// Whether `a op b` is an ordering of two finite, different floats: one that may hold by a
/// sliver ([`closes`]). Equalities are the ties' (`sweep/pins.rs`); a near miss of `==` holds
/// around the point.
pub(crate) fn ordering(op: crate::core::op::CmpOp, a: f64, b: f64) -> bool {
    use crate::core::op::CmpOp;
    matches!(op, CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge)
        && a != b
        && a.is_finite()
        && b.is_finite()
}

/// Whether an ordering of `a` and `b`, whose sides move at the rates `ta` and `tb` along the
/// forward checks' direction (every input moved by its own size), holds by a margin that
/// moving the inputs by 2⁻³⁶ of their size closes (2⁻²⁰ for `f32` sides, whose margins are
/// never below 2⁻²⁴ of them). Then the path holds within rounding of the point only, and its
/// slope is the path's, not the function's: an iteration converged by comparisons (a
/// bisection, a golden-section search), also where it compares a residual with 0, whose
/// margin is a sliver of the terms that made it, not of the residual. (At 2⁻³⁰, a timestamp
/// of 1.7·10⁹ compared 0.5 s from a threshold was refused.)
pub(crate) fn closes(a: f64, b: f64, ta: f64, tb: f64, f32: bool) -> bool {
    let shift = if f32 { 20 } else { 36 };
    (a - b).abs() <= (ta - tb).abs() / (1u64 << shift) as f64
}

/// The rate of change of a scalar whose sensitivity gives the vector operand the contribution
/// `c`, where that vector moves at `tv` element by element; `None` for a contribution of another
/// shape.
fn element_rate(c: &Contribution, tv: &[f64]) -> Option<f64> {
    match c {
        Contribution::At { index, value, .. } => Some(value * tv.get(*index)?),
        Contribution::Range { start, values, .. } => {
            let tv = tv.get(*start..start.checked_add(values.len())?)?;
            Some(values.iter().zip(tv).map(|(d, t)| d * t).sum())
        }
        Contribution::Whole(Tangent::Vector(g)) if g.len() == tv.len() => {
            Some(g.iter().zip(tv).map(|(d, t)| d * t).sum())
        }
        _ => None,
    }
}

/// Whether the ordering of `a` and `b` holds by a margin within rounding of its sides (`ulps`
/// of their ulps; the general sweep reads 1,024): where the sides move at different rates,
/// rounding decided it — a golden-section search's last comparisons of `f(c)` and `f(d)`,
/// whose rates differ by the sliver `c - d`, so that no small move of the inputs closes the
/// margin.
pub(crate) fn within_rounding(a: f64, b: f64, f32: bool, ulps: f64) -> bool {
    (a - b).abs() <= ulps * ulp(a.abs().max(b.abs()), f32)
}

pub(crate) use crate::core::ties::direction_weight;
