//! Iterating over a vector of floats: `for x in &v`, `for &x in v.iter()`, `v.iter().sum()`.
//!
//! Mutating an iterator makes no new node, so every `next` refers to the node that created the
//! iterator; the `k`-th `next` on it yields element `k` (the sweep counts them).

use super::rules::{Contribution, Out};
use super::site::Site;
use super::tangent::Tangent;
use crate::core::ids::NodeId;
use crate::core::ir::EntryKind;
use crate::core::op::FloatFn;
use crate::core::tape::Store;
use crate::core::walks::{call_head, count_operand, pair_item, vector_walk, Item};

/// The length of the vector an iterator node walks, when it is `v.iter()` or `v.into_iter()`
/// (also `(&v).into_iter()`, as `for x in &v` desugars) on a vector of floats, or one of the
/// adaptors `rev`, `skip`, `take`, `step_by` of one.
pub(crate) fn vector_iterator_len(site: &Site<'_>, node: NodeId) -> Option<usize> {
    vector_walk(site.store, node).map(|(_, len)| len)
}

/// An iterator over a vector, or an adaptor of one: its sensitivity is the vector's.
pub(crate) fn is_vector_iterator(site: &Site<'_>) -> bool {
    vector_iterator_len(site, site.node).is_some()
}

/// `it.fold(init, f64::max)` (or `min`, or `it.reduce(f64::max)`) of a vector iterator: the
/// running maximum is the element (or `init`) it ends at, which gets the sensitivity. Where two
/// of them tie for it, each is a side of a corner (as `max` at a tie) and no one slope is the
/// function's in every direction: refused.
pub(crate) fn fold_extremum(
    site: &Site<'_>,
    dy: &Tangent,
    out: &mut Out,
) -> Option<Result<(), String>> {
    if site.kind() != EntryKind::MethodCall {
        return None;
    }
    let (f_at, init) = match site.head() {
        "fold" if site.len() == 3 => (2, Some(site.scalar(1)?)),
        "reduce" if site.len() == 2 => (1, None),
        _ => return None,
    };
    let f = site.refs.get(f_at).copied().filter(|r| !r.is_none())?;
    let f = site.store.value_cow(f).type_id()?;
    let f = crate::core::op::float_fn_of(f)?;
    if !matches!(f, FloatFn::Max | FloatFn::Min) {
        return None;
    }
    let iterator = site.refs.first().copied().filter(|r| !r.is_none())?;
    let (walk, len) = vector_walk(site.store, iterator)?;
    let items: Vec<usize> = (0..walk.len(len))
        .map(|k| walk.item(k))
        .collect::<Option<_>>()?;
    let v = site.store.value_cow(walk.base);
    let v = v.floats()?;
    // The witness: the fold again, on the recorded vector, gives the recorded value.
    let output = site.output();
    let y = match init {
        Some(_) => output.as_f64()?,
        None => output.by_value().wrapped_float()??,
    };
    let pick = |a: f64, b: f64| {
        if f == FloatFn::Max {
            a.max(b)
        } else {
            a.min(b)
        }
    };
    let again = items.iter().map(|&i| v[i]).fold(init, |acc, x| match acc {
        Some(a) => Some(pick(a, x)),
        None => Some(x),
    });
    if again.map(f64::to_bits) != Some(y.to_bits()) {
        return Some(Err(super::rules::STALE.to_string()));
    }
    let hits: Vec<usize> = items.iter().copied().filter(|&i| v[i] == y).collect();
    let init_hit = init.is_some_and(|a| a == y);
    let g = match dy.as_scalar() {
        Some(g) => g,
        None => {
            return Some(Err(format!(
                "an extremum's sensitivity is a {}",
                dy.shape()
            )))
        }
    };
    match (hits.as_slice(), init_hit) {
        ([i], false) => out.push((
            0,
            Contribution::At {
                len,
                index: *i,
                value: g,
            },
        )),
        ([], true) => out.push((1, Contribution::Whole(dy.clone()))),
        ([], false) => return Some(Err("the extremum is NaN".into())),
        _ => {
            return Some(Err(format!(
                "{} is reached by several of the values it compares (a tie), where it is a \
                 corner and no one slope is its derivative in every direction: differentiate \
                 at a point without the tie",
                if f == FloatFn::Max {
                    "the maximum"
                } else {
                    "the minimum"
                }
            )))
        }
    }
    Some(Ok(()))
}

/// `it.sum()` of a vector iterator: every element it yields gets the sum's sensitivity.
pub(crate) fn sum(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> Option<Result<(), String>> {
    if site.kind() != EntryKind::MethodCall || site.head() != "sum" {
        return None;
    }
    let iterator = *site.refs.first()?;
    let (walk, len) = vector_walk(site.store, iterator)?;
    let items: Vec<usize> = (0..walk.len(len))
        .map(|k| walk.item(k))
        .collect::<Option<_>>()?;
    // The witness that the vector summed is the one recorded (not changed in place through a
    // `&mut` since): its recorded elements, summed in order, give the sum's value.
    let elements = site.store.value_cow(walk.base);
    let out_value = site.output();
    if let (Some(v), Some(y)) = (elements.floats(), out_value.by_value().as_f64()) {
        let sum_from = |start: f64| items.iter().fold(start, |a, &i| a + v[i]);
        let sum32_from = |start: f32| items.iter().fold(start, |a, &i| a + v[i] as f32) as f64;
        let same = |s: f64| crate::core::value::same_f64(s, y);
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
            let mut whole = vec![0.0; len];
            for &i in &items {
                whole[i] += g;
            }
            out.push((0, Contribution::Whole(Tangent::Vector(whole))));
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
    let (walk, len) = vector_walk(site.store, iterator)?;
    // Past the end the call returned `None`, which nothing reads a slope from.
    let index = walk.item(index)?;
    // The witness, where the element read can be seen: it is the recorded vector's.
    let elements = site.store.value_cow(walk.base);
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

/// Which element of which vector of floats a `next` of a vector iterator (the `k`-th, told by
/// `position`), `first`, `last` or `get(i)` returned: `(vector, len, index)`. What they return
/// (an `Option<&f64>`) the trace keeps as text, so the element is told by the call.
fn element_of(
    store: &Store,
    node: NodeId,
    position: &dyn Fn(NodeId) -> Option<usize>,
) -> Option<(NodeId, usize, usize)> {
    let head = call_head(store, node)?;
    if head == "next" {
        let k = position(node)?;
        let (w, len) = vector_walk(store, store.ref_at(node, 0))?;
        return Some((w.base, len, w.item(k)?));
    }
    if !matches!(head, "first" | "last" | "get") {
        return None;
    }
    let v = store.ref_at(node, 0);
    if v.is_none() {
        return None;
    }
    let len = store.value_cow(v).floats()?.len();
    let index = match head {
        "first" => 0,
        "last" => len.checked_sub(1)?,
        _ => count_operand(store, node, 1)?,
    };
    (index < len).then_some((v, len, index))
}

/// `o.unwrap()`, `o.expect(m)`, `o.copied()`, `o.cloned()` of an element of a vector of floats
/// ([`element_of`]): the float it gives is checked against the recorded vector's element, and
/// the sensitivity passes to `o`.
pub(crate) fn unwrap_element(
    site: &Site<'_>,
    position: &dyn Fn(NodeId) -> Option<usize>,
    dy: &Tangent,
    out: &mut Out,
) -> Option<Result<(), String>> {
    if site.kind() != EntryKind::MethodCall
        || !matches!(site.head(), "unwrap" | "expect" | "copied" | "cloned")
    {
        return None;
    }
    let o = *site.refs.first()?;
    let (v, _, index) = element_of(site.store, o, position)?;
    let output = site.output();
    let y = match site.head() {
        "copied" | "cloned" => output.by_value().wrapped_float()??,
        _ => output.as_f64()?,
    };
    let e = site.store.value_cow(v).floats()?.get(index).copied()?;
    if e.to_bits() != y.to_bits() {
        return Some(Err(super::rules::STALE.to_string()));
    }
    out.push((0, Contribution::Whole(dy.clone())));
    Some(Ok(()))
}

/// `v.first()`, `v.last()`, `v.get(i)` of a vector of floats: the element gets the sensitivity
/// (what reads the float out of the `Option` checked it, [`unwrap_element`]).
pub(crate) fn element(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> Option<Result<(), String>> {
    if site.kind() != EntryKind::MethodCall || !matches!(site.head(), "first" | "last" | "get") {
        return None;
    }
    let (_, len, index) = element_of(site.store, site.node, &|_| None)?;
    Some(match dy.as_scalar() {
        Some(value) => {
            out.push((0, Contribution::At { len, index, value }));
            Ok(())
        }
        None => Err(format!("an element's sensitivity is a {}", dy.shape())),
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
    let store = site.store;
    let next = *site.refs.first()?;
    if call_head(store, next)? != "next" {
        return None;
    }
    let k = next_position(next)?;
    let (vector, len, index) = match pair_item(store, site.node, next, k)? {
        Item::Position(_) => return Some(None),
        Item::Element { vector, len, index } => (vector, len, index),
    };
    // The witness: the value bound is the recorded vector's element (a user's `iter` that
    // walks another way, or an item matched by another pattern, would not be).
    let element = store.value_cow(vector).floats()?.get(index).copied()?;
    let bound = site.output().by_value().as_f64()?;
    (element.to_bits() == bound.to_bits()).then_some(Some((vector, len, index)))
}

#[cfg(test)]
mod tests {
    use crate::core::walks::tuple_path;

    #[test]
    fn paths_in_tuple_patterns() {
        assert_eq!(tuple_path("Some((a, b))", "b"), Some(vec![1]));
        assert_eq!(tuple_path("Some((i, &x))", "x"), Some(vec![1]));
        assert_eq!(tuple_path("Some((mut a, b))", "a"), Some(vec![0]));
        assert_eq!(tuple_path("Some(((a, b), c))", "a"), Some(vec![0, 0]));
        assert_eq!(tuple_path("Some((i, (a, b)))", "b"), Some(vec![1, 1]));
        assert_eq!(tuple_path("Some((i, (&a, &b)))", "a"), Some(vec![1, 0]));
        assert_eq!(tuple_path("Some(x)", "x"), None);
        assert_eq!(tuple_path("Some((a, b, c))", "a"), None);
        assert_eq!(tuple_path("Some(([a, b], c))", "a"), None);
    }
}
