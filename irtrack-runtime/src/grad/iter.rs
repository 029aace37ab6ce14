//! Iterating over a vector of floats: `for x in &v`, `for &x in v.iter()`, `v.iter().sum()`.
//!
//! Mutating an iterator makes no new node, so every `next` refers to the node that created the
//! iterator; the `k`-th `next` on it yields element `k` (the sweep counts them).

use super::primal::Primal;
use super::rules::{Contribution, Out};
use super::site::Site;
use super::tangent::Tangent;
use crate::ir::EntryKind;
use crate::node::{NodeId, NodeKind};

/// The length of the vector an iterator node walks, when it is `v.iter()` or `v.into_iter()`
/// (also `(&v).into_iter()`, as `for x in &v` desugars) on a vector of floats.
pub(crate) fn vector_iterator_len(site: &Site<'_>, node: NodeId) -> Option<usize> {
    if node.is_none() {
        return None;
    }
    let store = site.store;
    let data = store.node(node);
    if data.kind != NodeKind::PrimitiveCall {
        return None;
    }
    let entry = store.ir_of(node)?.entries.get(data.entry as usize)?;
    let call = matches!(entry.kind, EntryKind::MethodCall | EntryKind::Call);
    if !call || !matches!(entry.head, "iter" | "into_iter") {
        return None;
    }
    let source = *store.refs(node).first()?;
    if source.is_none() {
        return None;
    }
    match super::primal::primal(&store.node(source).value)? {
        Primal::Vector(v) => Some(v.len()),
        _ => None,
    }
}

/// `v.iter()` on a vector: its sensitivity is the vector's.
pub(crate) fn is_vector_iterator(site: &Site<'_>) -> bool {
    vector_iterator_len(site, site.node).is_some()
}

/// `it.sum()` of a vector iterator: every element gets the sum's sensitivity.
pub(crate) fn sum(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> Option<Result<(), String>> {
    if site.kind() != EntryKind::MethodCall || site.head() != "sum" {
        return None;
    }
    let len = vector_iterator_len(site, *site.refs.first()?)?;
    Some(match dy.as_scalar() {
        Some(g) => {
            out.push((0, Contribution::Whole(Tangent::Vector(vec![g; len]))));
            Ok(())
        }
        None => Err(format!("a sum's sensitivity is a {}", dy.shape())),
    })
}

/// The `index`-th `it.next()` of a vector iterator: its element gets the sensitivity.
pub(crate) fn next(
    site: &Site<'_>,
    index: usize,
    dy: &Tangent,
    out: &mut Out,
) -> Option<Result<(), String>> {
    let len = vector_iterator_len(site, *site.refs.first()?)?;
    Some(match dy.as_scalar() {
        Some(value) => {
            out.push((0, Contribution::At { len, index, value }));
            Ok(())
        }
        None => Err(format!("an element's sensitivity is a {}", dy.shape())),
    })
}
