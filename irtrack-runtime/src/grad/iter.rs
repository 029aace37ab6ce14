//! Iterating over a vector of floats: `for x in &v`, `for &x in v.iter()`, `v.iter().sum()`.
//!
//! Mutating an iterator makes no new node, so every `next` refers to the node that created the
//! iterator; the `k`-th `next` on it yields element `k` (the sweep counts them).

use super::rules::{Contribution, Out};
use super::site::Site;
use super::tangent::Tangent;
use crate::core::ids::NodeId;
use crate::core::ir::EntryKind;
use crate::core::tape::{NodeKind, Store};

/// The length of the vector an iterator node walks, when it is `v.iter()` or `v.into_iter()`
/// (also `(&v).into_iter()`, as `for x in &v` desugars) on a vector of floats.
pub(crate) fn vector_iterator_len(site: &Site<'_>, node: NodeId) -> Option<usize> {
    let source = walked_vector(site.store, node)?;
    let v = site.store.value_cow(source);
    v.floats().map(|v| v.len())
}

/// The vector an iterator node walks: the operand of `v.iter()` or `v.into_iter()`, also
/// through the `into_iter` a `for` loop adds to an iterator (`for t in v.iter()`).
fn walked_vector(store: &Store, mut node: NodeId) -> Option<NodeId> {
    for _ in 0..8 {
        if node.is_none() {
            return None;
        }
        let head = call_head(store, node)?;
        if head != "iter" && head != "into_iter" {
            return None;
        }
        let source = store.ref_at(node, 0);
        if source.is_none() {
            return None;
        }
        // `into_iter` of `v.iter()`: the same walk.
        if head == "into_iter" && matches!(call_head(store, source), Some("iter" | "into_iter")) {
            node = source;
            continue;
        }
        return Some(source);
    }
    None
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
    let iterator = *site.refs.first()?;
    let len = vector_iterator_len(site, iterator)?;
    // The witness that the vector summed is the one recorded (not changed in place through a
    // `&mut` since): its recorded elements, summed in order, give the sum's value.
    let source = site.store.ref_at(iterator, 0);
    let elements = site.store.value_cow(source);
    let out_value = site.output();
    if let (Some(v), Some(y)) = (elements.floats(), out_value.by_value().as_f64()) {
        let sum_from = |start: f64| v.iter().fold(start, |a, b| a + b);
        let sum32_from = |start: f32| v.iter().fold(start, |a, &b| a + b as f32) as f64;
        let same = |s: f64| s.to_bits() == y.to_bits() || (s.is_nan() && y.is_nan());
        let current = match site.output_is_f32() {
            true => same(sum32_from(0.0)) || same(sum32_from(-0.0)),
            false => same(sum_from(0.0)) || same(sum_from(-0.0)),
        };
        if !current {
            return Some(Err(super::rules::STALE.to_string()));
        }
    }
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
    let iterator = *site.refs.first()?;
    let len = vector_iterator_len(site, iterator)?;
    // The witness, where the element read can be seen: it is the recorded vector's.
    let source = walked_vector(site.store, iterator).unwrap_or(NodeId::NONE);
    if source.is_none() {
        return None;
    }
    let elements = site.store.value_cow(source);
    if let (Some(v), Some(Some(x))) = (elements.floats(), site.output().by_value().wrapped_float())
    {
        if v.get(index).is_some_and(|e| e.to_bits() != x.to_bits()) {
            return Some(Err(super::rules::STALE.to_string()));
        }
    }
    Some(match dy.as_scalar() {
        Some(value) => {
            out.push((0, Contribution::At { len, index, value }));
            Ok(())
        }
        None => Err(format!("an element's sensitivity is a {}", dy.shape())),
    })
}

/// The head of a recorded call node, if it is a call (`zip`, `into_iter`).
fn call_head(store: &Store, node: NodeId) -> Option<&str> {
    if node.is_none() {
        return None;
    }
    if store.node(node).kind != NodeKind::PrimitiveCall {
        return None;
    }
    let (_, entry) = store.entry_of(node)?;
    matches!(entry.kind, EntryKind::MethodCall | EntryKind::Call).then_some(entry.head.as_str())
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
    let parent = store.parent(site.node);
    let pattern = (next.0 + 1..site.node.0).find_map(|i| {
        let id = NodeId(i);
        if store.node(id).kind != NodeKind::Jump || store.parent(id) != parent {
            return None;
        }
        let (_, entry) = store.entry_of(id)?;
        (entry.kind == EntryKind::JumpIfMatches).then_some(entry.head.as_str())
    })?;
    let component = tuple_component(pattern, name)?;
    // Through the `into_iter` a `for` loop adds, to the adaptor.
    let mut iterator = store.ref_at(next, 0);
    while call_head(store, iterator) == Some("into_iter") {
        let inner = store.ref_at(iterator, 0);
        if !matches!(call_head(store, inner), Some("zip" | "enumerate")) {
            break;
        }
        iterator = inner;
    }
    let walked = match (call_head(store, iterator)?, component) {
        ("enumerate", 0) => return Some(None),
        ("enumerate", 1) => store.ref_at(iterator, 0),
        ("zip", c) => store.ref_at(iterator, c),
        _ => return None,
    };
    if let Some(len) = vector_iterator_len(site, walked) {
        return Some(Some((walked, len, k)));
    }
    // `x.iter().zip(&y)`: the second component walks `y` itself.
    if walked.is_none() {
        return None;
    }
    let v = store.value_cow(walked);
    let len = v.floats()?.len();
    Some(Some((walked, len, k)))
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
