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
use crate::core::tape::{NodeKind, Store};

/// An adaptor between an iterator and the vector it walks, which changes which element the
/// `k`-th item is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Adaptor {
    Rev,
    Skip(usize),
    Take(usize),
    StepBy(usize),
}

impl Adaptor {
    /// How many items it yields from an iterator of `n`.
    fn len(self, n: usize) -> usize {
        match self {
            Adaptor::Rev => n,
            Adaptor::Skip(m) => n.saturating_sub(m),
            Adaptor::Take(m) => n.min(m),
            Adaptor::StepBy(s) => n.div_ceil(s),
        }
    }

    /// Which item of an iterator of `n` its `k`-th item is.
    fn item(self, k: usize, n: usize) -> Option<usize> {
        let inner = match self {
            Adaptor::Rev => n.checked_sub(k + 1)?,
            Adaptor::Skip(m) => k.checked_add(m)?,
            Adaptor::Take(_) => k,
            Adaptor::StepBy(s) => k.checked_mul(s)?,
        };
        (k < self.len(n) && inner < n).then_some(inner)
    }
}

/// An iterator seen down to what it walks: the node it starts from (a vector, a `zip`, an
/// `enumerate`) and the adaptors on the way, outermost first, each with the length of the
/// iterator it adapts.
struct Walk {
    base: NodeId,
    adaptors: Vec<(Adaptor, usize)>,
}

impl Walk {
    /// Which item of the base the `k`-th item of the iterator is.
    fn item(&self, mut k: usize) -> Option<usize> {
        for &(a, n) in &self.adaptors {
            k = a.item(k, n)?;
        }
        Some(k)
    }

    /// How many items the iterator yields.
    fn len(&self, base_len: usize) -> usize {
        self.adaptors
            .iter()
            .rev()
            .fold(base_len, |n, &(a, _)| a.len(n))
    }
}

/// The heads of calls that make an iterator from an iterator (or `iter` from a collection).
const ITERATOR_HEADS: [&str; 10] = [
    "iter",
    "into_iter",
    "cloned",
    "copied",
    "rev",
    "skip",
    "take",
    "step_by",
    "zip",
    "enumerate",
];

/// Whether a call of this head makes an iterator (see [`ITERATOR_HEADS`]).
pub(crate) fn makes_iterator(head: &str) -> bool {
    ITERATOR_HEADS.contains(&head)
}

/// Operand `k` of a call node as a count (a recorded integer or an integer literal).
fn count_operand(store: &Store, node: NodeId, k: usize) -> Option<usize> {
    let r = store.ref_at(node, k);
    let n = if r.is_none() {
        let (_, entry) = store.entry_of(node)?;
        match entry.operands.get(k)? {
            crate::core::ir::Operand::Const(c) => crate::core::literal::as_i64(c)?,
            _ => return None,
        }
    } else {
        store.value_cow(r).as_i64()?
    };
    usize::try_from(n).ok()
}

/// `node` seen through `into_iter`, `iter` of an iterator and the adaptors `rev`, `skip`,
/// `take`, `step_by`, down to a vector (the operand of `v.iter()`, `v.into_iter()`,
/// `(&v).into_iter()`) or a `zip` or `enumerate`.
fn walk(store: &Store, mut node: NodeId) -> Option<Walk> {
    let mut adaptors: Vec<(Adaptor, Option<usize>)> = Vec::new();
    for _ in 0..16 {
        let head = call_head(store, node)?;
        let adaptor = match head {
            "zip" | "enumerate" => {
                return finish(store, node, adaptors);
            }
            // `cloned` and `copied` yield the same floats.
            "iter" | "into_iter" | "cloned" | "copied" => None,
            "rev" => Some(Adaptor::Rev),
            "skip" => Some(Adaptor::Skip(count_operand(store, node, 1)?)),
            "take" => Some(Adaptor::Take(count_operand(store, node, 1)?)),
            // `step_by(0)` panics before it makes an iterator.
            "step_by" => Some(Adaptor::StepBy(
                count_operand(store, node, 1).filter(|&s| s > 0)?,
            )),
            _ => return None,
        };
        let source = store.ref_at(node, 0);
        if source.is_none() {
            return None;
        }
        if let Some(a) = adaptor {
            adaptors.push((a, None));
        } else if !call_head(store, source).is_some_and(makes_iterator) {
            // `v.iter()`, `v.into_iter()`: the vector itself.
            return finish(store, source, adaptors);
        }
        node = source;
    }
    None
}

/// The walk from `base` with these adaptors (outermost first), each given the length of the
/// iterator it adapts.
fn finish(store: &Store, base: NodeId, adaptors: Vec<(Adaptor, Option<usize>)>) -> Option<Walk> {
    let mut n = base_len(store, base)?;
    let mut sized: Vec<(Adaptor, usize)> = adaptors.iter().map(|(a, _)| (*a, 0)).collect();
    for slot in sized.iter_mut().rev() {
        slot.1 = n;
        n = slot.0.len(n);
    }
    Some(Walk {
        base,
        adaptors: sized,
    })
}

/// How many items a walk's base yields: a vector's length, the shorter of a `zip`'s two, an
/// `enumerate`'s iterator's.
fn base_len(store: &Store, base: NodeId) -> Option<usize> {
    match call_head(store, base) {
        Some("zip") => {
            let a = component_len(store, store.ref_at(base, 0))?;
            let b = component_len(store, store.ref_at(base, 1))?;
            Some(a.min(b))
        }
        Some("enumerate") => component_len(store, store.ref_at(base, 0)),
        _ => Some(store.value_cow(base).floats()?.len()),
    }
}

/// How many items an operand of `zip` or `enumerate` yields: an iterator's, or a vector's
/// (`x.iter().zip(&y)`).
fn component_len(store: &Store, node: NodeId) -> Option<usize> {
    if node.is_none() {
        return None;
    }
    if call_head(store, node).is_some_and(makes_iterator) {
        let w = walk(store, node)?;
        return Some(w.len(base_len(store, w.base)?));
    }
    Some(store.value_cow(node).floats()?.len())
}

/// A walk whose base is a vector of floats, with the vector's length.
fn vector_walk(store: &Store, node: NodeId) -> Option<(Walk, usize)> {
    let w = walk(store, node)?;
    if matches!(call_head(store, w.base), Some("zip" | "enumerate")) {
        return None;
    }
    let len = store.value_cow(w.base).floats()?.len();
    Some((w, len))
}

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

/// What the `k`-th item of an iterator gave to a binding: an element of a vector, or the
/// position `enumerate` counted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Item {
    /// Element `index` of the vector node `vector`, of `len` elements.
    Element {
        vector: NodeId,
        len: usize,
        index: usize,
    },
    /// The `k` of `enumerate`.
    Position(usize),
}

/// How many items the iterator node `node` yields (a vector's iterator through the adaptors
/// [`walk`] reads, a `zip` or an `enumerate` of such).
pub(crate) fn items(store: &Store, node: NodeId) -> Option<usize> {
    let w = walk(store, node)?;
    Some(w.len(base_len(store, w.base)?))
}

/// The vector node and the index of the element the `k`-th item of the iterator node `node`
/// is, where its items are elements of one vector (no `zip` or `enumerate`).
pub(crate) fn walked_element(store: &Store, node: NodeId, k: usize) -> Option<(NodeId, usize)> {
    let (w, len) = vector_walk(store, node)?;
    let index = w.item(k)?;
    (index < len).then_some((w.base, index))
}

/// What the binding `bind` took from the `k`-th item of the iterator `next` was called on:
/// the element of the vector the item walks (through the adaptors), or for a `zip` or an
/// `enumerate`, the part its pattern names (`for (i, &x) in v.iter().enumerate()`). Not
/// checked against the bound value: the caller's witness.
pub(crate) fn bound_item(store: &Store, bind: NodeId, next: NodeId, k: usize) -> Option<Item> {
    let outer = walk(store, store.ref_at(next, 0))?;
    if !matches!(call_head(store, outer.base), Some("zip" | "enumerate")) {
        let len = store.value_cow(outer.base).floats()?.len();
        let index = outer.item(k)?;
        return (index < len).then_some(Item::Element {
            vector: outer.base,
            len,
            index,
        });
    }
    pair_item(store, bind, next, k)
}

/// [`bound_item`] for an iterator of pairs (`zip`, `enumerate`): the part the binding's
/// pattern names.
fn pair_item(store: &Store, bind: NodeId, next: NodeId, k: usize) -> Option<Item> {
    let (_, entry) = store.entry_of(bind)?;
    let name = entry.head.strip_prefix("bind ")?;
    // The pattern is the head of the `if … matches` branch taken just before the binding
    // (the nearest: an item matched twice, `if let Some((_, b)) = item` then `if let Some((b,
    // _)) = item`, binds `b` by each pattern in turn), on the same item.
    let parent = store.parent(bind);
    let (jump, pattern) = (next.0 + 1..bind.0).rev().find_map(|i| {
        let id = NodeId(i);
        if store.node(id).kind != NodeKind::Jump || store.parent(id) != parent {
            return None;
        }
        let (_, entry) = store.entry_of(id)?;
        (entry.kind == EntryKind::JumpIfMatches).then_some((id, entry.head.as_str()))
    })?;
    let scrutinee = store.ref_at(jump, 0);
    if !scrutinee.is_none() && scrutinee != next {
        return None;
    }
    let component = tuple_component(pattern, name)?;
    // Through the `into_iter` a `for` loop adds and the adaptors outside, to the `zip` or
    // `enumerate`, and which of its items the `k`-th is.
    let outer = walk(store, store.ref_at(next, 0))?;
    let k = outer.item(k)?;
    let walked = match (call_head(store, outer.base)?, component) {
        ("enumerate", 0) => return Some(Item::Position(k)),
        ("enumerate", 1) => store.ref_at(outer.base, 0),
        ("zip", c) => store.ref_at(outer.base, c),
        _ => return None,
    };
    if walked.is_none() {
        return None;
    }
    let (vector, len, index) = match vector_walk(store, walked) {
        Some((inner, len)) => (inner.base, len, inner.item(k)?),
        // `x.iter().zip(&y)`: the second component walks `y` itself.
        None => (walked, store.value_cow(walked).floats()?.len(), k),
    };
    (index < len).then_some(Item::Element { vector, len, index })
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
