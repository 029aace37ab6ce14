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

/// The head of a recorded call node, if it is a call (`zip`, `into_iter`).
fn call_head(store: &crate::node::Store, node: NodeId) -> Option<&'static str> {
    if node.is_none() {
        return None;
    }
    let data = store.node(node);
    if data.kind != NodeKind::PrimitiveCall {
        return None;
    }
    let entry = store.ir_of(node)?.entries.get(data.entry as usize)?;
    matches!(entry.kind, EntryKind::MethodCall | EntryKind::Call).then_some(entry.head)
}

/// Which element of a pattern `Some((a, b))` (or `(a, b)`) the binding `name` is, for
/// two-element tuples.
fn tuple_component(pattern: &str, name: &str) -> Option<usize> {
    let inner = pattern.trim();
    let inner = inner
        .strip_prefix("Some")
        .map(str::trim)
        .and_then(|p| p.strip_prefix('(')?.strip_suffix(')'))
        .unwrap_or(inner)
        .trim();
    let inner = inner.strip_prefix('(')?.strip_suffix(')')?;
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    if parts.len() != 2 || parts.iter().any(|p| p.contains(['(', '[', '{'])) {
        return None;
    }
    parts.iter().position(|p| {
        let p = p.trim_start_matches('&');
        let p = p.strip_prefix("mut ").unwrap_or(p);
        let p = p.strip_prefix("ref ").unwrap_or(p);
        p.trim() == name
    })
}

/// Where the sensitivity of a binding `a` in `for (a, b) in x.iter().zip(&y)` or
/// `for (i, a) in x.iter().enumerate()` goes: element `k` of the vector that component walks,
/// as `(node, len, k)`, where the `k`-th `next` produced it. `Some(None)` when the component is
/// the index of `enumerate` (no sensitivity); `None` when the binding is not such a component.
pub(crate) fn tuple_binding(
    site: &Site<'_>,
    next_position: impl Fn(NodeId) -> Option<usize>,
) -> Option<Option<(NodeId, usize, usize)>> {
    let name = site.head().strip_prefix("bind ")?;
    let store = site.store;
    let next = *site.refs.first()?;
    if call_head(store, next)? != "next" {
        return None;
    }
    let k = next_position(next)?;
    // The pattern is the head of the `if … matches` branch taken just before the bindings.
    let parent = store.node(site.node).parent;
    let pattern = (next.0 + 1..site.node.0).find_map(|i| {
        let id = NodeId(i);
        let data = store.node(id);
        if data.kind != NodeKind::Jump || data.parent != parent {
            return None;
        }
        let entry = store.ir_of(id)?.entries.get(data.entry as usize)?;
        (entry.kind == EntryKind::JumpIfMatches).then_some(entry.head)
    })?;
    let component = tuple_component(pattern, name)?;
    // Through the `into_iter` a `for` loop adds, to the adaptor.
    let mut iterator = *store.refs(next).first()?;
    while call_head(store, iterator) == Some("into_iter") {
        let inner = *store.refs(iterator).first()?;
        if !matches!(call_head(store, inner), Some("zip" | "enumerate")) {
            break;
        }
        iterator = inner;
    }
    let walked = match (call_head(store, iterator)?, component) {
        ("enumerate", 0) => return Some(None),
        ("enumerate", 1) => *store.refs(iterator).first()?,
        ("zip", c) => *store.refs(iterator).get(c)?,
        _ => return None,
    };
    if let Some(len) = vector_iterator_len(site, walked) {
        return Some(Some((walked, len, k)));
    }
    // `x.iter().zip(&y)`: the second component walks `y` itself.
    if walked.is_none() {
        return None;
    }
    match super::primal::primal(&store.node(walked).value)? {
        Primal::Vector(v) => Some(Some((walked, v.len(), k))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::tuple_component;

    #[test]
    fn components_of_tuple_patterns() {
        assert_eq!(tuple_component("Some((a, b))", "b"), Some(1));
        assert_eq!(tuple_component("Some((i, &x))", "x"), Some(1));
        assert_eq!(tuple_component("Some((mut a, b))", "a"), Some(0));
        assert_eq!(tuple_component("Some(((a, b), c))", "a"), None);
        assert_eq!(tuple_component("Some(x)", "x"), None);
    }
}
