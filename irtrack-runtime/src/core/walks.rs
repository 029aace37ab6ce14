//! Iterators over vectors of floats seen through their adaptors: which element of which vector
//! the `k`-th item of an iterator is (`v.iter().rev().step_by(2)`), and which part of a pair a
//! pattern binds from a `zip` or an `enumerate`. Read on a trace, by the heads of the calls that
//! made the iterator; each reader checks what it gets against the recorded values (a witness).
//! The gradient's iterator rules (`grad::iter`) and programs (`program::build`) both read them.

use super::ids::NodeId;
use super::ir::EntryKind;
use super::tape::{NodeKind, Store};

/// An adaptor between an iterator and the vector it walks, which changes which element the
/// `k`-th item is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Adaptor {
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
pub(crate) struct Walk {
    pub(crate) base: NodeId,
    adaptors: Vec<(Adaptor, usize)>,
}

impl Walk {
    /// Which item of the base the `k`-th item of the iterator is.
    pub(crate) fn item(&self, mut k: usize) -> Option<usize> {
        for &(a, n) in &self.adaptors {
            k = a.item(k, n)?;
        }
        Some(k)
    }

    /// How many items the iterator yields.
    pub(crate) fn len(&self, base_len: usize) -> usize {
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
pub(crate) fn count_operand(store: &Store, node: NodeId, k: usize) -> Option<usize> {
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
pub(crate) fn walk(store: &Store, mut node: NodeId) -> Option<Walk> {
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
pub(crate) fn finish(
    store: &Store,
    base: NodeId,
    adaptors: Vec<(Adaptor, Option<usize>)>,
) -> Option<Walk> {
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
pub(crate) fn base_len(store: &Store, base: NodeId) -> Option<usize> {
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
pub(crate) fn component_len(store: &Store, node: NodeId) -> Option<usize> {
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
pub(crate) fn vector_walk(store: &Store, node: NodeId) -> Option<(Walk, usize)> {
    let w = walk(store, node)?;
    if matches!(call_head(store, w.base), Some("zip" | "enumerate")) {
        return None;
    }
    let len = store.value_cow(w.base).floats()?.len();
    Some((w, len))
}
/// The head of a recorded call node, if it is a call (`zip`, `into_iter`).
pub(crate) fn call_head(store: &Store, node: NodeId) -> Option<&str> {
    if node.is_none() {
        return None;
    }
    if store.node(node).kind != NodeKind::PrimitiveCall {
        return None;
    }
    let (_, entry) = store.entry_of(node)?;
    matches!(entry.kind, EntryKind::MethodCall | EntryKind::Call).then_some(entry.head.as_str())
}

/// Where the binding `name` is in a pattern of pairs `Some((a, b))` (or `(a, b)`), nested
/// (`Some((i, (a, b)))`: `[1, 0]` for `a`): the position in each pair, outermost first.
pub(crate) fn tuple_path(pattern: &str, name: &str) -> Option<Vec<usize>> {
    let p = pattern.trim();
    let p = p
        .strip_prefix("Some")
        .map(str::trim)
        .and_then(|p| p.strip_prefix('(')?.strip_suffix(')'))
        .unwrap_or(p)
        .trim();
    let path = path_in(p, name)?;
    (!path.is_empty()).then_some(path)
}

fn path_in(p: &str, name: &str) -> Option<Vec<usize>> {
    let p = p.trim();
    if let Some(inner) = p.strip_prefix('(').and_then(|q| q.strip_suffix(')')) {
        let parts = split_top_level(inner)?;
        if parts.len() != 2 {
            return None;
        }
        return parts.iter().enumerate().find_map(|(k, part)| {
            let mut rest = path_in(part, name)?;
            rest.insert(0, k);
            Some(rest)
        });
    }
    if p.contains(['(', ')', '[', '{', ',']) {
        return None;
    }
    let p = p.trim_start_matches('&');
    let p = p.strip_prefix("mut ").unwrap_or(p);
    let p = p.strip_prefix("ref ").unwrap_or(p);
    (p.trim() == name).then(Vec::new)
}

/// The parts of `s` separated by commas outside parentheses; `None` when they do not balance.
fn split_top_level(s: &str) -> Option<Vec<&str>> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, ch) in s.char_indices() {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    (depth == 0).then(|| {
        parts.push(&s[start..]);
        parts
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
pub(crate) fn pair_item(store: &Store, bind: NodeId, next: NodeId, k: usize) -> Option<Item> {
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
    let path = tuple_path(pattern, name)?;
    // Through the `into_iter` a `for` loop adds and the adaptors outside, to the `zip` or
    // `enumerate`, and which of its items the `k`-th is; then, for a nested pattern
    // (`for (i, (a, b)) in x.iter().zip(&y).enumerate()`), into the part at each position.
    let (mut node, mut k) = (store.ref_at(next, 0), k);
    for (depth, &c) in path.iter().enumerate() {
        let last = depth + 1 == path.len();
        let outer = walk(store, node)?;
        let item = outer.item(k)?;
        let walked = match (call_head(store, outer.base)?, c) {
            ("enumerate", 0) => return last.then_some(Item::Position(item)),
            ("enumerate", 1) => store.ref_at(outer.base, 0),
            ("zip", c) => store.ref_at(outer.base, c),
            _ => return None,
        };
        if walked.is_none() {
            return None;
        }
        if !last {
            (node, k) = (walked, item);
            continue;
        }
        let (vector, len, index) = match vector_walk(store, walked) {
            Some((inner, len)) => (inner.base, len, inner.item(item)?),
            // `x.iter().zip(&y)`: the second component walks `y` itself.
            None => (walked, store.value_cow(walked).floats()?.len(), item),
        };
        return (index < len).then_some(Item::Element { vector, len, index });
    }
    None
}
