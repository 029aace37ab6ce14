//! Paths that exist at one point only. A branch taken because input-dependent values are equal
//! has a slope of its own (`if x == 0.0 { 5.0 * x } else { x.abs() }` is `5x` at 0 only),
//! which is no derivative of the function: the sweep refuses such a path
//! ([`Indeterminacy::Equality`](crate::grad::Indeterminacy::Equality)), naming the condition.
//! Code says "equal" in more ways than `==`, and each is looked at here:
//!
//! - an equality that held, or an inequality that did not (`x == 0.0`, `!(x != y)`, `x.eq(&y)`);
//! - two orderings of the same values that together say equal: `x > 0.0` false, then
//!   `x < 0.0` false (the `else` of a sign test), or `a >= b && b >= a`;
//! - a float matched against a literal pattern (`match x { 0.0 => … }`);
//! - an ordering of floats that was `Equal` deciding a branch (`match x.partial_cmp(&y)`),
//!   whichever arm it took: the arms may group `Equal` with `Less`, with `Greater`, or with
//!   neither, and a tie is a point where the path may change.
//!
//! Orderings are looked at only at a tie (the two sides recorded equal): elsewhere they confine
//! the path to a half-line, which has a one-sided slope like any branch.

use super::{float_by_value, Sweep};
use crate::core::ids::NodeId;
use crate::core::ir::EntryKind;
use crate::core::literal;
use crate::core::op::{Builtin, CmpOp, UnOp};
use crate::core::tape::NodeKind;
use crate::grad::site::Site;
use std::cmp::Ordering;
use std::collections::HashMap;

/// One side of a comparison: a recorded value, or a literal by its value's bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Side {
    Node(u32),
    Literal(u64),
}

/// For a pair of sides met at a tie, what the comparisons so far said: `a ≤ b`, `a ≥ b`.
pub(super) type Ties = HashMap<(Side, Side), u8>;

const AT_MOST: u8 = 1;
const AT_LEAST: u8 = 2;

impl Sweep<'_> {
    /// The condition that confines the path through branch `id` (with the branches taken before
    /// it) to one point of the inputs, if one does; `id` is a branch or a match guard.
    pub(super) fn pinning_condition(&mut self, id: NodeId, parent: NodeId) -> Option<NodeId> {
        let store = self.store;
        let (ir, entry) = store.entry_under(id, parent)?;
        let decided = if entry.kind.is_branch() {
            if entry.condition.is_none() && entry.control.is_none() {
                return None;
            }
            store.ref_at(id, entry.operands.len())
        } else if ir.builtin(store.node(id).entry as usize) == Some(Builtin::Guard) {
            store.ref_at(id, 0)
        } else {
            return None;
        };
        // Through negations (whichever way `!(x == 0.0)` went, the path depends on whether the
        // equality held) and the block arguments `&&` and `||` pass their values in.
        let mut condition = decided;
        loop {
            if condition.is_none() {
                return None;
            }
            // A block argument (the value of `a && b`): the value passed to it.
            if store.node(condition).kind == NodeKind::Argument && self.is_block_argument(condition)
            {
                condition = self.argument_source(condition);
                continue;
            }
            let site = Site::new(store, condition)?;
            if site.builtin() != Some(Builtin::Unary(UnOp::Not)) {
                break;
            }
            condition = site.refs.first().copied()?;
        }
        let pinned = self.held_equality(condition)
            || self.tie_of_orderings(condition)
            || (entry.kind == EntryKind::JumpIfMatches
                && self.is_active(condition)
                && store.value_cow(condition).as_f64().is_some()
                && point_pattern(&entry.head))
            || self.equal_ordering(condition);
        pinned.then_some(condition)
    }

    /// Whether `condition` is an equality of input-dependent values that held (`x == 0.0` true,
    /// `x != y` false, also of a float's bits). `x != x` (a NaN test) holds wherever `x` is a
    /// number, and is not one.
    fn held_equality(&self, condition: NodeId) -> bool {
        let Some(site) = Site::new(self.store, condition) else {
            return false;
        };
        // `==` and `!=`, or `eq`/`ne` called on a float.
        let float_method = |name: &str| {
            site.kind() == EntryKind::MethodCall
                && site.head() == name
                && float_by_value(site.receiver())
        };
        let equal_when = match site.builtin() {
            Some(Builtin::Compare(CmpOp::Eq)) => true,
            Some(Builtin::Compare(CmpOp::Ne)) => false,
            _ if float_method("eq") => true,
            _ if float_method("ne") => false,
            _ => return false,
        };
        let value = site.output();
        if value.by_value().downcast_ref::<bool>() != Some(&equal_when) || site.len() != 2 {
            return false;
        }
        let (a, b) = (site.refs[0], site.refs[1]);
        if a == b && !a.is_none() {
            return false;
        }
        self.depends(a) || self.depends(b)
    }

    /// Whether `condition` is an ordering (`<`, `<=`, `>`, `>=`) of floats, one of them
    /// input-dependent, met at a tie, that with an ordering of the same sides met before says
    /// they are equal.
    fn tie_of_orderings(&mut self, condition: NodeId) -> bool {
        let Some(site) = Site::new(self.store, condition) else {
            return false;
        };
        let Some(Builtin::Compare(op)) = site.builtin() else {
            return false;
        };
        if matches!(op, CmpOp::Eq | CmpOp::Ne) || site.len() != 2 || site.refs.len() < 2 {
            return false;
        }
        let (ra, rb) = (site.refs[0], site.refs[1]);
        if !(self.is_active(ra) || self.is_active(rb)) {
            return false;
        }
        let (Some((a, va)), Some((b, vb))) = (self.side(&site, 0), self.side(&site, 1)) else {
            return false;
        };
        if va != vb || va.is_nan() {
            return false;
        }
        let Some(&held) = site.output().by_value().downcast_ref::<bool>() else {
            return false;
        };
        // At a tie, `<` and `>` are false, `<=` and `>=` true: each says one of `≤`, `≥`.
        let says = match (op, held) {
            (CmpOp::Le, true) | (CmpOp::Gt, false) => AT_MOST,
            (CmpOp::Ge, true) | (CmpOp::Lt, false) => AT_LEAST,
            _ => return false,
        };
        let (key, says) = if a <= b {
            ((a, b), says)
        } else {
            ((b, a), AT_MOST + AT_LEAST - says)
        };
        let known = self.ties.entry(key).or_insert(0);
        *known |= says;
        *known == AT_MOST | AT_LEAST
    }

    /// Whether `condition` (a match's scrutinee, through `unwrap` and bindings) is an ordering
    /// of floats (`partial_cmp`, `total_cmp`) one of which depends on the inputs, and was
    /// `Equal`.
    fn equal_ordering(&self, condition: NodeId) -> bool {
        let value = self.store.value_cow(condition);
        let value = value.by_value();
        let equal = value.downcast_ref::<Ordering>() == Some(&Ordering::Equal)
            || value.downcast_ref::<Option<Ordering>>() == Some(&Some(Ordering::Equal));
        if !equal {
            return false;
        }
        let mut at = condition;
        for _ in 0..8 {
            let Some(site) = Site::new(self.store, at) else {
                return false;
            };
            let passes = matches!(
                site.builtin(),
                Some(Builtin::Bind | Builtin::Deref | Builtin::Clone)
            ) || (site.kind() == EntryKind::MethodCall
                && matches!(site.head(), "unwrap" | "expect"));
            if passes {
                match site.refs.first() {
                    Some(&r) if !r.is_none() => at = r,
                    _ => return false,
                }
                continue;
            }
            return site.kind() == EntryKind::MethodCall
                && matches!(site.head(), "partial_cmp" | "total_cmp")
                && float_by_value(site.receiver())
                && site.refs.iter().take(2).any(|&r| self.depends(r));
        }
        false
    }

    /// Whether `r` is a recorded value that depends on the inputs.
    fn depends(&self, r: NodeId) -> bool {
        !r.is_none() && (self.active[r.index()] || self.taint[r.index()] != u32::MAX)
    }

    /// Side `k` of a comparison and its value as an `f64`: a recorded float (named by the node
    /// it is a copy of: each guard of a `match` binds the scrutinee anew), or a literal read as
    /// the type of the other side (`0.1` against an `f32` is `0.1f32`).
    fn side(&self, site: &Site<'_>, k: usize) -> Option<(Side, f64)> {
        let r = *site.refs.get(k)?;
        if !r.is_none() {
            return Some((Side::Node(self.copied_from(r).0), site.value(k)?.as_f64()?));
        }
        side_literal(site, k)
    }

    /// The node `r` is a copy of, through bindings, dereferences and clones.
    fn copied_from(&self, mut r: NodeId) -> NodeId {
        for _ in 0..16 {
            let Some(site) = Site::new(self.store, r) else {
                break;
            };
            let copies = matches!(
                site.builtin(),
                Some(Builtin::Bind | Builtin::Deref | Builtin::Clone)
            );
            match site.refs.first() {
                Some(&s) if copies && site.len() == 1 && !s.is_none() => r = s,
                _ => break,
            }
        }
        r
    }
}

/// A literal side of a comparison (see [`Sweep::side`]).
fn side_literal(site: &Site<'_>, k: usize) -> Option<(Side, f64)> {
    let text = site.literal(k)?;
    let other_f32 = site
        .value(1 - k)
        .is_some_and(|v| v.by_value().downcast_ref::<f32>().is_some());
    let v = if other_f32 {
        f64::from(literal::as_f32(text)?)
    } else {
        literal::as_f64(text)?
    };
    Some((Side::Literal(v.to_bits()), v))
}

/// Whether a pattern matches a float at isolated points only: literals and named constants
/// (`0.0`, `-1.5 | 2.0`, `ZERO`, `f64::MAX`), not a range or a binding.
fn point_pattern(pattern: &str) -> bool {
    pattern.split('|').all(|alt| {
        let alt = alt.trim();
        !alt.is_empty()
            && !alt.contains("..")
            && (alt.contains("::")
                || alt
                    .trim_start_matches('-')
                    .starts_with(|c: char| c.is_ascii_digit() || c.is_ascii_uppercase()))
    })
}

#[cfg(test)]
mod tests {
    use super::point_pattern;

    #[test]
    fn point_patterns() {
        for p in ["0.0", "-1.5", "0.0 | 1.0", "ZERO", "f64::MAX", "1e-3"] {
            assert!(point_pattern(p), "{p}");
        }
        for p in ["n", "_", "0.0..=1.0", "..0.0", "x if x > 0.0", "0.0 | n"] {
            assert!(!point_pattern(p), "{p}");
        }
    }
}
