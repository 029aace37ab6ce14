//! Metropolis-Hastings steps in place: resample a few choices and recompute only what depends
//! on them, from the trace's graph, instead of running the model again.
//!
//! A step starts at the nodes of the selected choices and visits, in recording order, the
//! nodes that use a changed value ([`NodeRef::dependents`]; a value some branch tests, or
//! another call uses, ends the attempt):
//! - a choice node whose distribution changed is rescored (its value stays; a selected one is
//!   drawn from its new distribution);
//! - a node irtrack can run again ([`NodeRef::operation`]: an operator, a float method, a
//!   built-in distribution's constructor, a registered function) is recomputed, and its users
//!   are visited when its value changed;
//! - anything else — a branch, a return, an argument of a nested call, an untracked call, a
//!   choice whose address or observed value changed — ends the attempt, and the step runs the
//!   model again instead ([`regenerate`](super::regenerate)). So does a graph in which a
//!   closure captured a value or a call ended without a return after the first change: the
//!   trace does not show what those depend on. So does a selection whose addresses are not
//!   exactly choices, or a trace in which one choice's address is the prefix of another's
//!   (selecting `x` selects `x[1]`).
//!
//! The new values are kept beside the graph (the trace's overrides) until the graph is asked
//! for, when the model runs again on the current choices.

use super::choices::{Choices, Origin, Selection};
use super::dist::{Builtin, PplRng};
use super::handler::{LogSum, Weight};
use super::interface::PplTrace;
use super::{Address, PplError};
use crate::core::ids::NodeId;
use crate::core::tape::NodeKind;
use crate::core::value::Value;
use crate::record::session::Callable;
use crate::view::operation::run_operation;
use crate::view::trace::{Arg, NodeRef, Trace};
use std::collections::{BTreeSet, HashMap};

/// A step computed beside the graph, to apply if accepted.
pub(crate) struct InPlace {
    /// New node values.
    side: HashMap<NodeId, Value>,
    /// Choices with a new value or log-density: index, value, log-density, parameters.
    rescored: Vec<(usize, Value, f64, Vec<f64>)>,
    /// The regenerate weight.
    pub weight: f64,
}

/// The last node whose dependents the graph may not show, or `Some(NodeId(u32::MAX))` when the
/// graph has an error node (a call without a return).
fn unseen(graph: &Trace) -> Option<NodeId> {
    let store = &graph.store;
    let mut last = None;
    for call in store.calls.iter() {
        if !store.call_ir(call).is_closure() {
            continue;
        }
        for child in store.children(call.node) {
            if store.node(child).kind == NodeKind::Constant {
                last = last.max(Some(child));
            }
        }
    }
    for node in graph.nodes() {
        match node.kind() {
            NodeKind::Error => return Some(NodeId(u32::MAX)),
            NodeKind::PrimitiveCall | NodeKind::Special | NodeKind::NestedCall
                if node
                    .arguments()
                    .iter()
                    .any(|a| matches!(a, Arg::Const("_"))) =>
            {
                last = last.max(Some(node.id()));
            }
            _ => {}
        }
    }
    last
}

/// The nodes that use `node`'s value, or `None` when some node refers to it in a way an update
/// in place cannot follow: as a branch's condition (a control reference, which
/// [`NodeRef::dependents`] leaves out), or from another call.
fn users(node: NodeRef<'_>) -> Option<Vec<NodeId>> {
    let index = node.trace().index();
    let i = node.id().index();
    let all = &index.dependents
        [index.dependents_start[i] as usize..index.dependents_start[i + 1] as usize];
    let data: Vec<NodeId> = node.dependents().iter().map(NodeRef::id).collect();
    all.iter()
        .all(|&d| data.contains(&NodeId(d)))
        .then_some(data)
}

/// The value of `node` now: a new value of this step, an override of an earlier one, or the
/// recorded value.
fn current(
    node: NodeRef<'_>,
    side: &HashMap<NodeId, Value>,
    overrides: &HashMap<NodeId, Value>,
) -> Value {
    side.get(&node.id())
        .or_else(|| overrides.get(&node.id()))
        .cloned()
        .unwrap_or_else(|| node.raw_value())
}

/// The operand values of `node` now, and whether any changed in this step; `None` when the
/// operands cannot be matched to their nodes.
fn operands_now(
    node: NodeRef<'_>,
    side: &HashMap<NodeId, Value>,
    overrides: &HashMap<NodeId, Value>,
) -> Option<(Vec<Value>, Vec<bool>)> {
    let mut values = node.operand_values();
    let args = node.arguments();
    if args.len() != values.len() {
        return None;
    }
    let mut changed = vec![false; values.len()];
    for (k, a) in args.iter().enumerate() {
        if let Arg::Node(n) = a {
            if side.contains_key(&n.id()) {
                changed[k] = true;
            }
            if side.contains_key(&n.id()) || overrides.contains_key(&n.id()) {
                values[k] = current(*n, side, overrides);
            }
        }
    }
    Some((values, changed))
}

/// Whether a recomputed value is the one recorded, for scalars and vectors of floats, bit for
/// bit as [`Value::same_scalar`] compares floats (`-0.0` is not `0.0`: `1.0 / v[0]` tells them
/// apart). Any other value (a distribution) counts as changed, which only visits its users
/// again: comparing such values by their text would cost a formatting per visit and would
/// call two values the same whenever their `Debug` hides what differs.
fn unchanged(new: &Value, old: &Value) -> bool {
    if new.same_scalar(old) {
        return true;
    }
    match (new.floats(), old.floats()) {
        (Some(a), Some(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b.iter())
                    .all(|(&x, &y)| crate::core::value::same_f64(x, y))
        }
        _ => false,
    }
}

/// Whether some choice's address is a proper prefix of another choice's.
fn nested_addresses(choices: &Choices) -> bool {
    choices.list.iter().any(|c| {
        let keys = c.address.keys();
        (1..keys.len()).any(|n| {
            choices
                .index
                .contains_key(&Address::from(keys[..n].to_vec()))
        })
    })
}

/// Resamples the choices `selection` names (exact addresses) in place; `None` when the step
/// must run the model instead.
pub(crate) fn regenerate_in_place<M, A>(
    trace: &PplTrace<M, A>,
    selection: &Selection,
    rng: &mut PplRng,
) -> Option<Result<InPlace, PplError>>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    let Selection::Of(addresses) = selection else {
        return None;
    };
    step_in_place(trace, addresses, New::Draw(rng))
}

/// Sets the latent choices at `addresses` to `values` in place, as [`update`](super::update)
/// with those constraints and the same arguments would: the weight is the new score minus the
/// old. `None` when the step must run the model instead.
pub(crate) fn update_in_place<M, A>(
    trace: &PplTrace<M, A>,
    addresses: &[Address],
    values: &[Value],
) -> Option<Result<InPlace, PplError>>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    if addresses.len() != values.len() {
        return None;
    }
    step_in_place(trace, addresses, New::Given(values))
}

/// What the selected choices of a step in place get.
enum New<'a> {
    /// A draw from their (new) distribution: regenerate.
    Draw(&'a mut PplRng),
    /// These values, in the order of the addresses: update.
    Given(&'a [Value]),
}

fn step_in_place<M, A>(
    trace: &PplTrace<M, A>,
    addresses: &[Address],
    mut new: New<'_>,
) -> Option<Result<InPlace, PplError>>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    let graph = trace.recorded_graph();
    // A selected address selects the choices below it too (`x` selects `x[1]`).
    if *trace
        .nested_addresses
        .get_or_init(|| nested_addresses(&trace.choices))
    {
        return None;
    }
    // Each selected choice's node, choice and position among the addresses.
    let mut selected = Vec::with_capacity(addresses.len());
    for (k, a) in addresses.iter().enumerate() {
        // An address that names a call (a prefix of several choices) needs a scan: not here.
        let (i, c) = trace.choices.get(a)?;
        if c.origin == Origin::Latent {
            selected.push((trace.nodes.of_choice.get(i).copied().flatten()?, i, k));
        } else if matches!(new, New::Given(_)) {
            // A new value of data: `update` records it as such, which this step does not.
            return None;
        }
    }
    let first = selected.iter().map(|(n, _, _)| *n).min()?;
    let unseen = *trace.unseen.get_or_init(|| unseen(graph));
    if unseen.is_some_and(|u| u >= first) {
        return None;
    }
    let overrides = &trace.overrides;
    let mut side: HashMap<NodeId, Value> = HashMap::new();
    let mut rescored: Vec<(usize, Value, f64, Vec<f64>)> = Vec::new();
    let mut weight = Weight::default();
    let mut queue: BTreeSet<NodeId> = selected.iter().map(|(n, _, _)| *n).collect();
    let position = |id: NodeId| {
        selected
            .iter()
            .find(|(n, _, _)| *n == id)
            .map(|(_, _, k)| *k)
    };
    while let Some(id) = queue.pop_first() {
        let node = graph.node(id)?;
        if let Some(&ci) = trace.nodes.choice_of.get(&id) {
            let choice = &trace.choices.list[ci];
            let (operands, changed) = operands_now(node, &side, overrides)?;
            // The distribution is the operand holding a built-in one; any other operand (the
            // address, an observed value) must be as recorded.
            let k = operands
                .iter()
                .position(|v| Builtin::from_value(v).is_some())?;
            if changed.iter().enumerate().any(|(j, &c)| c && j != k) {
                return None;
            }
            let dist = Builtin::from_value(&operands[k])?;
            if let Err(reason) = dist.check() {
                // As a run decides (`Run::choose`): after a choice of log-density -∞ the
                // point is impossible. Where a factor is -∞ the graph does not say whether it
                // came first: the run decides.
                if trace.factors == f64::NEG_INFINITY {
                    return None;
                }
                let new_lp = |j: usize| {
                    rescored
                        .iter()
                        .find(|(i, ..)| *i == j)
                        .map_or(trace.choices.list[j].log_density, |r| r.2)
                };
                let impossible = (0..ci).any(|j| new_lp(j) == f64::NEG_INFINITY);
                return Some(Err(PplError::invalid(
                    choice.address.clone(),
                    dist.name(),
                    reason,
                    impossible,
                )));
            }
            let (value, lp) = if let Some(k) = position(id) {
                match &mut new {
                    New::Draw(rng) => {
                        let v = dist.draw(rng);
                        let lp = dist.log_density(&v)?;
                        (v, lp)
                    }
                    New::Given(values) => {
                        // A value of another type than the choice's: `update` says which.
                        if values[k].type_id() != choice.value.type_id() {
                            return None;
                        }
                        let lp = dist.log_density(&values[k])?;
                        weight.new.add(lp);
                        weight.old.add(choice.log_density);
                        (values[k].clone(), lp)
                    }
                }
            } else {
                let lp = dist.log_density(&choice.value)?;
                weight.new.add(lp);
                weight.old.add(choice.log_density);
                (choice.value.clone(), lp)
            };
            if lp.is_nan() {
                return Some(Err(PplError::NotANumber(choice.address.clone())));
            }
            if position(id).is_some() {
                side.insert(id, value.clone());
                queue.extend(users(node)?);
            }
            rescored.push((ci, value, lp, dist.parameters()));
            continue;
        }
        match node.kind() {
            NodeKind::PrimitiveCall | NodeKind::Special => {}
            _ => return None,
        }
        // The operation once: `reexecute` would find it again.
        let operation = node.operation().ok()?;
        let (operands, _) = operands_now(node, &side, overrides)?;
        let new = run_operation(operation, &operands).ok()?;
        if unchanged(&new, &current(node, &side, overrides)) {
            continue;
        }
        side.insert(id, new);
        queue.extend(users(node)?);
    }
    Some(weight.value().map(|weight| InPlace {
        side,
        rescored,
        weight,
    }))
}

/// Makes an accepted step part of the trace.
pub(crate) fn apply<M, A>(trace: &mut PplTrace<M, A>, step: InPlace) -> Result<(), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    let choices = std::sync::Arc::make_mut(&mut trace.choices);
    for (ci, value, lp, parameters) in step.rescored {
        let c = &mut choices.list[ci];
        c.value = value;
        c.log_density = lp;
        c.parameters = parameters;
    }
    let mut score = LogSum::default();
    for c in &choices.list {
        score.add(c.log_density);
    }
    score.add(trace.factors);
    trace.score = score.value()?;
    trace.overrides.extend(step.side);
    Ok(())
}
