//! Paths that exist at one point only. A branch taken because input-dependent values are equal
//! has a slope of its own (`if x == 0.0 { 5.0 * x } else { x.abs() }` is `5x` at 0 only),
//! which is no derivative of the function: the sweep refuses such a path
//! ([`Indeterminacy::Equality`](crate::grad::Indeterminacy::Equality)), naming the condition.
//! Code says "equal" in many ways, and each is looked at where the comparison is *evaluated*,
//! whatever its value is used for afterwards (a branch's condition, a `match` on a tuple of
//! them, `(x > 0.0) == (x < 0.0)`, an integer made from them):
//!
//! - an equality of input-dependent values that held, or an inequality that did not
//!   (`x == 0.0`, `x != y` false, `x.eq(&y)`); `x != x`, a NaN test, is not one;
//! - orderings of the same values at a tie that together say equal: `x > 0.0` false and
//!   `x < 0.0` false (a sign test's `else`), `a >= b` and `b >= a`, also through copies of the
//!   values (bindings, arguments of tracked helpers, negation: `-x > 0.0` is `x < 0.0`);
//! - the same, with each side read through what moves it one way whatever it is (`2.0 * x`,
//!   `x + 1.0`, `lo - x` with `lo` not input-dependent), a difference of two input-dependent
//!   values as an ordering of the two (`x - y <= 0.0` is `x <= y`), any side that does not
//!   depend on the inputs as one constant, and two reads of one place as one value:
//!   `x <= 0.0 && 2.0 * x >= 0.0`, `v[0] <= 0.0 && v[0] >= 0.0`;
//! - one ordering at a tie of a value that cannot be below it (`x.abs() <= 0.0`,
//!   `x * x > 0.0` false: the special case at 0 of `exprel`);
//! - an ordering of floats (`partial_cmp`, `total_cmp`) that was `Equal`;
//! - at a branch: a float matched against a literal pattern (`match x { 0.0 => … }`).
//!
//! An ordering elsewhere than at a tie confines the path to a half-line, which has a one-sided
//! slope like any branch. Comparisons are read by the methods' names where the receiver's type
//! is unknown (an imported trace): this only ever refuses.

use super::{float_by_value, Sweep};
use crate::core::ids::NodeId;
use crate::core::ir::EntryKind;
use crate::core::literal;
use crate::core::op::{BinOp, Builtin, CmpOp, FloatFn, Receiver, UnOp};
use crate::core::tape::NodeKind;
use crate::core::ties::{self, flip, AT_LEAST, AT_MOST};
use crate::grad::rules;
use crate::grad::site::Site;
use std::cmp::Ordering;

/// One side of a comparison: a recorded value (the node it is a copy of, and whether it was
/// negated on the way), or a literal by its value's bits (`-0.0` read as `0.0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Side {
    Node(u32, bool),
    Literal(u64),
}

impl ties::Side for Side {
    fn negate(self) -> Side {
        match self {
            Side::Node(n, neg) => Side::Node(n, !neg),
            // `FIXED` stands for every value that does not depend on the inputs.
            Side::Literal(FIXED) => self,
            Side::Literal(bits) => Side::Literal((-f64::from_bits(bits) + 0.0).to_bits()),
        }
    }
}

/// What the orderings met at a tie said of their sides.
pub(super) type Ties = ties::Ties<Side>;

/// The side that stands for every value not depending on the inputs, among the sides read
/// through what moves them (no literal's encoding: those are of finite floats).
const FIXED: u64 = u64::MAX;

/// Where a side of an ordering at a tie moves with the inputs (see
/// [`Sweep::moved_side`]).
#[derive(Clone, Copy, Debug)]
enum Moved {
    Fixed,
    /// Moves with a value (negated where it moves the other way), at a slope (its size).
    Value(Side, f64),
    /// `p - q`.
    Pair(Side, Side),
    /// Moves with an input, which way not read (`2.0 * x - x`).
    Unknown,
}

/// How many low bits of a float's encoding an integer made from it may have dropped and still
/// be a point to an equality: with more, it is constant on an interval at least 2⁻²⁶ wide
/// relative to the float (`hx >> 20 == k`, `(ix & 0xfffff) == 0x921fb` of libm), where a path
/// holds on a neighbourhood.
pub(super) const POINT_BITS: i32 = 26;

/// [`Sweep::coarse_bits`] of what may hold a float's bits moved anywhere: no shift makes it
/// coarse again.
const UNKNOWN: i32 = -(1 << 20);

/// How many low bits dropped make an integer made from a float's encoding constant on whole
/// binades (its sign and exponent only): a piecewise-constant count, no longer the float.
pub(super) const BINADE_BITS: i32 = 52;

impl Sweep<'_> {
    /// Whether evaluating `site` (a comparison, an ordering of floats) says that
    /// input-dependent values are equal at this point, with what was said before.
    pub(super) fn pins_when_evaluated(&mut self, site: &Site<'_>) -> bool {
        if self.held_equality(site)
            || self.tie_of_orderings(site)
            || self.tie_of_counts(site)
            || self.class_at_edge(site)
            || self.total_order_at_signed_zeros(site)
        {
            return true;
        }
        // `x.partial_cmp(&y)` or `x.total_cmp(&y)` that was `Equal`.
        let value = site.output();
        let value = value.by_value();
        // Kept as text (an imported trace): read as written, which only ever refuses.
        let equal = value.downcast_ref::<Ordering>() == Some(&Ordering::Equal)
            || value.downcast_ref::<Option<Ordering>>() == Some(&Some(Ordering::Equal))
            || (value.is_text() && matches!(value.to_string().as_str(), "Equal" | "Some(Equal)"));
        if equal && self.float_method(site, &["partial_cmp", "total_cmp"]) {
            return true;
        }
        // `x.classify()` that was `FpCategory::Zero`: ±0 only.
        let zero = value.downcast_ref::<std::num::FpCategory>()
            == Some(&std::num::FpCategory::Zero)
            || (value.is_text() && value.to_string() == "Zero");
        zero && self.float_method(site, &["classify"])
    }

    /// Whether the comparison `site` of input-dependent floats gave what its recorded operands
    /// give: where it did not, an operand was changed after it was recorded (in place, or in
    /// the file an imported trace was read from), and the path it chose is not the one its
    /// operands' values take.
    pub(super) fn comparison_agrees(&self, site: &Site<'_>) -> bool {
        let Some(Builtin::Compare(op)) = site.builtin() else {
            return true;
        };
        if site.len() != 2 || !site.refs.iter().take(2).any(|&r| self.is_active(r)) {
            return true;
        }
        let (Some(a), Some(b)) = (site.scalar(0), site.scalar(1)) else {
            return true;
        };
        let Some(&held) = site.output().by_value().downcast_ref::<bool>() else {
            return true;
        };
        op.holds(a, b) == held
    }

    /// Notes a match guard that ran unrecorded (one with `&&` or `||`): its operand is not in
    /// the trace. Whether it decided between values that depend on the inputs is the match's
    /// scrutinee's to say: found here (the node of the variable its block's arms test), and
    /// read when the match's branch is met, next in the same call (a later arm's, where the
    /// guard was false). A recorded guard whose value untracked code computed
    /// (`t if is_zero(t)`) decides unseen by itself.
    pub(super) fn note_unseen_guard(&mut self, id: NodeId, parent: NodeId) {
        let store = self.store;
        let Some(site) = Site::new(store, id) else {
            return;
        };
        if site.builtin() != Some(Builtin::Guard) {
            return;
        }
        if let Some(&r) = site.refs.first().filter(|r| !r.is_none()) {
            if let Some(test) = self.unseen_test(r) {
                self.unseen.get_or_insert((id, test));
            }
            return;
        }
        // A guard of `&&` and `||` only names the conditions it combined (those that ran; the
        // others are `NONE`): each is a recorded node, read like any condition (comparisons
        // where they were evaluated), and one computed by untracked code decides unseen. A
        // condition the lowering did not record leaves it unseen.
        if site.entry.combines_conditions() {
            for &r in site.refs.iter().skip(1).filter(|r| !r.is_none()) {
                if let Some(test) = self.unseen_test(r) {
                    self.unseen.get_or_insert((id, test));
                    return;
                }
            }
            return;
        }
        let Some((ir, guard)) = store.entry_under(id, parent) else {
            return;
        };
        let block = guard.location.block;
        let tested = ir.entries.iter().find_map(|e| {
            (e.kind == EntryKind::JumpIfMatches && e.location.block == block)
                .then(|| e.condition.var())
                .flatten()
        });
        // The scrutinee's node: the newest node of that variable before the guard, in this
        // call (none found: taken as depending on the inputs).
        let scrutinee = tested.and_then(|v| {
            (0..id.0).rev().take(1 << 16).map(NodeId).find(|&n| {
                self.parent(n) == parent
                    && store
                        .entry_under(n, parent)
                        .is_some_and(|(_, e)| e.location.slot.var() == Some(v))
            })
        });
        self.open_guards
            .insert(parent, (id, scrutinee.unwrap_or(NodeId::NONE)));
    }

    /// The test that chose branch `id` where the trace does not show it and it looked at
    /// values that depend on the inputs: an unrecorded match guard on such a scrutinee, or a
    /// condition or scrutinee computed from such values by untracked code (see
    /// [`unseen_test`](Self::unseen_test)).
    pub(super) fn unseen_decision(&mut self, id: NodeId, parent: NodeId) -> Option<NodeId> {
        let store = self.store;
        if let Some((guard, scrutinee)) = self.open_guards.remove(&parent) {
            let varies =
                |r: NodeId| r.is_none() || self.is_active(r) || self.taint[r.index()] != u32::MAX;
            if varies(scrutinee) {
                return Some(guard);
            }
        }
        let (_, entry) = store.entry_under(id, parent)?;
        // The branch's condition or scrutinee, or for a branch taken because the one before it
        // was not, the condition that decided that (its control).
        if entry.condition.is_none() && entry.control.is_none() {
            return None;
        }
        let tested = store.ref_at(id, entry.operands.len());
        if tested.is_none() {
            return None;
        }
        self.unseen_test(tested)
    }

    /// The untracked call behind the test `r` (a `bool`, or a value a `match` or a comparison
    /// looks at), through `!`, bindings, guards, casts, block arguments and comparisons'
    /// operands, where it computed a discrete value from input-dependent ones (`is_zero(x)`,
    /// `bucket(x) < 1`, `v.iter().position(..)`): the sweep marks such a value tainted, as it
    /// is not piecewise constant to it. A known test (a comparison, a float class query, also
    /// by its callee's key) is read by the rest of this module.
    fn unseen_test(&self, r: NodeId) -> Option<NodeId> {
        self.unseen_test_within(r, 4)
    }

    /// [`unseen_test`](Self::unseen_test), reading comparisons' operands `depth` deep.
    fn unseen_test_within(&self, mut c: NodeId, depth: u32) -> Option<NodeId> {
        let store = self.store;
        for _ in 0..64 {
            if c.is_none() {
                return None;
            }
            if store.node(c).kind == NodeKind::Argument {
                c = self.argument_source(c);
                continue;
            }
            let site = Site::new(store, c)?;
            match site.builtin() {
                Some(
                    Builtin::Unary(UnOp::Not)
                    | Builtin::Bind
                    | Builtin::Guard
                    | Builtin::Clone
                    | Builtin::Deref
                    | Builtin::Cast(_),
                ) if site.len() == 1 => c = *site.refs.first()?,
                // A comparison is read by the rest of this module; what it compares may be an
                // untracked call's count (`bucket(x) < 1`).
                Some(Builtin::Compare(_)) if depth > 0 => {
                    return site
                        .refs
                        .iter()
                        .take(2)
                        .find_map(|&r| self.unseen_test_within(r, depth - 1));
                }
                // An operation irtrack knows (`bits >> 32`, `k + 1`) is read by the rest of
                // the sweep (`coarse_bits`); a call it does not know is the test.
                Some(_) => return None,
                None => {
                    // A discrete answer of untracked code (`v.iter().any(..)`), or an index
                    // wrapped in an `Option` or `Result` (`position`, a binary search),
                    // computed from input-dependent values. (Told by its type: an iterator's
                    // `next` gives `None` at its end, which holds no float either.)
                    let wrapped = || self.is_active(c) && holds_an_index(&store.value_cow(c));
                    let unknown = (self.taint[c.index()] != u32::MAX || wrapped())
                        && store.node(c).kind == NodeKind::PrimitiveCall
                        && self.comparison(&site).is_none()
                        && !matches!(site.callee(), Some(crate::core::tape::Callee::Item(k))
                            if crate::core::op::float_query_of(k.id).is_some());
                    return unknown.then_some(c);
                }
            }
        }
        None
    }

    /// The condition that confines the path through branch `id` to one point of the inputs by
    /// what the branch itself tests, if it does: a float matched against a literal pattern.
    pub(super) fn pinning_match(&mut self, id: NodeId, parent: NodeId) -> Option<NodeId> {
        let store = self.store;
        let (_, entry) = store.entry_under(id, parent)?;
        if entry.kind != EntryKind::JumpIfMatches {
            return None;
        }
        let scrutinee = store.ref_at(id, entry.operands.len());
        if scrutinee.is_none() {
            return None;
        }
        // A float matched against a literal pattern; an integer made from a float's bits
        // against an integer one (`match x.to_bits() { 0 => … }`); a tuple, array, `Option` or
        // struct holding an input-dependent value against a pattern with a float literal
        // inside (`match (x, 1.0) { (0.0, _) => … }`).
        let whole = (self.is_active(scrutinee) && store.value_cow(scrutinee).as_f64().is_some()
            || self.depends(scrutinee) && store.value_cow(scrutinee).is_discrete())
            && point_pattern(&entry.head);
        let holds = || {
            self.depends(scrutinee)
                || store
                    .refs(scrutinee)
                    .any(|r| !r.is_none() && self.depends(r))
        };
        let nested = !whole && has_float_literal(&entry.head) && holds();
        (whole || nested).then_some(scrutinee)
    }

    /// Whether `site` is an equality of input-dependent values that held (`x == 0.0` true,
    /// `x != y` false, also of a float's bits). `x != x` (a NaN test) holds wherever `x` is a
    /// number, and is not one.
    fn held_equality(&self, site: &Site<'_>) -> bool {
        let equal_when = match self.comparison(site) {
            Some(CmpOp::Eq) => true,
            Some(CmpOp::Ne) => false,
            _ => return false,
        };
        let value = site.output();
        if value.by_value().downcast_ref::<bool>() != Some(&equal_when) || site.len() != 2 {
            return false;
        }
        // Orderings compared (`a.partial_cmp(&b) == Some(Ordering::Less)`): `Less` and
        // `Greater` hold on open sets; only `Equal` is a point (read where it was made).
        let ordering = |k: usize| {
            let v = site.value(k)?;
            let v = v.by_value();
            if let Some(o) = v.downcast_ref::<Ordering>() {
                return Some(Some(*o));
            }
            if let Some(o) = v.downcast_ref::<Option<Ordering>>() {
                return Some(*o);
            }
            // Kept as its `Debug` text, of a type std writes one way.
            use std::any::TypeId;
            let ty = v.type_id()?;
            let text = v.to_string();
            let of = |s: &str| match s {
                "Less" => Some(Ordering::Less),
                "Equal" => Some(Ordering::Equal),
                "Greater" => Some(Ordering::Greater),
                _ => None,
            };
            if ty == TypeId::of::<Ordering>() {
                return of(&text).map(Some);
            }
            if ty == TypeId::of::<Option<Ordering>>() {
                return match text.strip_prefix("Some(").and_then(|t| t.strip_suffix(')')) {
                    Some(inner) => of(inner).map(Some),
                    None => (text == "None").then_some(None),
                };
            }
            None
        };
        if let (Some(x), Some(y)) = (ordering(0), ordering(1)) {
            if x != Some(Ordering::Equal) && y != Some(Ordering::Equal) {
                return false;
            }
        }
        let (a, b) = (site.refs[0], site.refs[1]);
        // A value against itself, also through copies (`c = a; fc = fa;` then `fa != fc`, as
        // Brent's method starts): equal everywhere, no point.
        if !a.is_none() && !b.is_none() && self.selected_from(a) == self.selected_from(b) {
            return false;
        }
        self.depends(a) || self.depends(b)
    }

    /// Whether `site` is an ordering of integers at a tie one of which was made from a float
    /// where it jumps or re-encodes it: a cast at an integer (`(x as i64) >= 1` at 1, a bin
    /// `(x * 4.0).floor() as usize` at its edge), the float's bits (`x.to_bits() >= ONE`). The
    /// integer moves with the float one way or holds at this point alone, which no slope
    /// says: refused, like an ordering at a tie of a corner.
    fn tie_of_counts(&self, site: &Site<'_>) -> bool {
        let Some(op) = self.comparison(site) else {
            return false;
        };
        if matches!(op, CmpOp::Eq | CmpOp::Ne) || site.len() != 2 || site.refs.len() < 2 {
            return false;
        }
        let (Some(a), Some(b)) = (site.wide_integer(0), site.wide_integer(1)) else {
            return false;
        };
        // A count constant on the side its jump keeps (`(x as i64) >= 1` at 1, where the cast
        // holds `x >= 1`: `Sweep::note_jump_side`) against another such, or a constant.
        let (ra, rb) = (site.refs[0], site.refs[1]);
        if self.held_constant(ra) && self.held_constant(rb) {
            return false;
        }
        a == b
            && site.refs[..2].iter().any(|&r| {
                !r.is_none() && (self.kinked.contains(&r) || self.taint[r.index()] != u32::MAX)
            })
    }

    /// Whether `site` is `total_cmp` of input-dependent floats that are equal (`-0.0` and
    /// `0.0`): its `Less` or `Greater` is said at a tie of the values, where either sign is at
    /// this point alone.
    fn total_order_at_signed_zeros(&self, site: &Site<'_>) -> bool {
        if !self.float_method(site, &["total_cmp"]) || site.len() != 2 {
            return false;
        }
        let (Some(a), Some(b)) = (site.scalar(0), site.scalar(1)) else {
            return false;
        };
        a == b
            && site.refs[..2]
                .iter()
                .any(|&r| !r.is_none() && self.depends(r))
    }

    /// Whether `site` is an ordering (`<`, `<=`, `>`, `>=`) of floats, one of them
    /// input-dependent, at a tie, that with an ordering of the same sides met before (or with
    /// what one side is: `|x|` is never below 0) says they are equal.
    fn tie_of_orderings(&mut self, site: &Site<'_>) -> bool {
        let Some(op) = self.comparison(site) else {
            return false;
        };
        if matches!(op, CmpOp::Eq | CmpOp::Ne) || site.len() != 2 || site.refs.len() < 2 {
            return false;
        }
        let (ra, rb) = (site.refs[0], site.refs[1]);
        if !(self.is_active(ra) || self.is_active(rb)) {
            return false;
        }
        let (Some((a, va)), Some((b, vb))) = (self.side(site, 0), self.side(site, 1)) else {
            return false;
        };
        if va != vb || va.is_nan() {
            return false;
        }
        let Some(&held) = site.output().by_value().downcast_ref::<bool>() else {
            return false;
        };
        let Some(says) = ties::says(op, held) else {
            return false;
        };
        // One value on both sides around the point (`x <= x`, `x.min(cap) >= x` below `cap`,
        // `x * 1.0 <= x`): the ordering says the same on a neighbourhood.
        if self.one_value(ra, rb, 4) {
            return false;
        }
        // Both sides constant where the jumps keep their sides (`x.floor() >= 3.0` at 3, where
        // `floor` holds `x >= 3`: `Sweep::note_jump_side`): the ordering holds wherever they do.
        if self.held_constant(ra) && self.held_constant(rb) {
            return false;
        }
        // Both sides constant around the point (`x.floor() <= 3.0` at 3.5, `x.max(0.0) <= 0.0`
        // at -1): the ordering holds on a neighbourhood. (A side at a corner was read first.)
        let constant = |s: &Self| s.locally_constant(ra, 8) && s.locally_constant(rb, 8);
        // The branch this ordering decides is taken at a corner of the function: what it
        // chooses is kinked (`Sweep::tie_frames`).
        self.kinked.insert(site.node);
        self.ordered_ties.insert(site.node);
        // A side at a corner or an extremum (`x.abs() / 2.0`, `x - x.floor()` at an integer,
        // `x.hypot(c)` at 0): the ordering may hold at this point alone, whatever the slope
        // conventions say of the side.
        if [ra, rb]
            .iter()
            .any(|r| !r.is_none() && self.kinked.contains(r))
        {
            return true;
        }
        if constant(self) {
            self.kinked.remove(&site.node);
            return false;
        }
        // What a side is bounded by: a value that is never below (above) 0 is at least (at
        // most) 0 on both sides of the point.
        let bound = |s: Side, r: NodeId| match (s, self.sign_of(r)) {
            (Side::Node(..), Some(true)) => AT_LEAST,
            (Side::Node(..), Some(false)) => AT_MOST,
            _ => 0,
        };
        let zero = Side::Literal(0);
        let mut known = 0;
        if b == zero && va == 0.0 {
            known |= bound(a, ra);
        }
        if a == zero && va == 0.0 {
            known |= flip(bound(b, rb));
        }
        if self.ties.note(a, b, says | known) {
            return true;
        }
        // The same sides read through what moves them monotonically (`2.0 * x`, `x + 1.0`,
        // `lo - x` with `lo` not input-dependent), any side that is not input-dependent
        // standing for every other (at a tie they are all equal to the value compared), and a
        // difference or sum of two input-dependent values against such a side as an ordering
        // of the two (`x - y <= 0.0` is `x <= y`): `x <= 0.0 && 2.0 * x >= 0.0` holds at 0
        // alone. Kept apart from the sides above, so that it only ever adds a pin.
        let said = says;
        let (Some(ma), Some(mb)) = (self.moved_side(ra), self.moved_side(rb)) else {
            self.note_tied(site.node, ra, rb, said);
            return false;
        };
        let (ma, mb) = (self.same_place(ma), self.same_place(mb));
        let (a, b, says) = match (ma, mb) {
            // A side that moves with an input one way or the other: the path may hold here
            // alone.
            (Moved::Unknown, _) | (_, Moved::Unknown) => return true,
            (Moved::Fixed, Moved::Fixed) => return false,
            // Both sides move with one value (`x <= 2.0 * x` at 0, `x.min(cap) >= x` below
            // `cap`): the ordering moves as the difference of their slopes; where they are
            // equal it holds on both sides to first order (a stationary side is a corner,
            // read above).
            (Moved::Value(Side::Node(x, xn), xs), Moved::Value(Side::Node(y, yn), ys))
                if x == y =>
            {
                let signed = |n: bool, s: f64| if n { -s } else { s };
                let net = signed(xn, xs) - signed(yn, ys);
                if net.abs() <= 1e-12 * xs.max(ys) {
                    // The same value on both sides (`x.min(cap) >= x` below `cap`, `x * 1.0 <=
                    // x`) holds around the point; sides that only agree to first order
                    // (`x.sin() <= x` at 0) are read by their slopes (`Sweep::tie_cone`).
                    if !self.one_value(ra, rb, 4) {
                        self.note_tied(site.node, ra, rb, said);
                    }
                    return false;
                }
                (Side::Node(x, net < 0.0), Side::Literal(FIXED), says)
            }
            (Moved::Value(a, _), Moved::Fixed) => (a, Side::Literal(FIXED), says),
            (Moved::Fixed, Moved::Value(b, _)) => (Side::Literal(FIXED), b, says),
            (Moved::Pair(p, q), Moved::Fixed) => (p, q, says),
            (Moved::Fixed, Moved::Pair(p, q)) => (p, q, flip(says)),
            (Moved::Value(a, _), Moved::Value(b, _)) => (a, b, says),
            // A sum compared with a value: no ordering of two sides says what it moves.
            _ => {
                self.note_tied(site.node, ra, rb, said);
                return false;
            }
        };
        if self.moved_ties.note(a, b, says) {
            return true;
        }
        self.note_tied(site.node, ra, rb, said);
        false
    }

    /// `moved` with each value read from a place (an element `v[k]` by a constant index, a
    /// field `p.x`) named by the first read of that place from the same value met at a tie:
    /// `v[0] <= 0.0 && v[0] >= 0.0` reads the element twice, in two nodes. A place written
    /// between two reads is a new value (or, written behind the trace's back, the reads only
    /// ever add a pin).
    fn same_place(&mut self, moved: Moved) -> Moved {
        let mut name = |side: Side| match side {
            Side::Node(id, negated) => match self.place_of(NodeId(id)) {
                Some(place) => Side::Node(*self.places.entry(place).or_insert(id), negated),
                None => side,
            },
            literal => literal,
        };
        match moved {
            Moved::Value(a, slope) => Moved::Value(name(a), slope),
            Moved::Pair(a, b) => Moved::Pair(name(a), name(b)),
            other => other,
        }
    }

    /// The place node `id` read: the value it read from (through copies) and the element's
    /// index or the field's name.
    pub(super) fn place_of(&self, id: NodeId) -> Option<(u32, String)> {
        let site = Site::new(self.store, id)?;
        let from = *site.refs.first()?;
        if from.is_none() {
            return None;
        }
        let at = match site.builtin()? {
            Builtin::Index if site.len() == 2 => site.integer(1)?.to_string(),
            Builtin::Field if site.len() == 1 => site.head().to_string(),
            _ => return None,
        };
        Some((self.copied_from(from).0 .0, at))
    }

    /// Where a side of an ordering at a tie moves with the inputs (see
    /// [`tie_of_orderings`](Self::tie_of_orderings)): with a value it is a copy of or moves
    /// with (up, or down where negated, at the slope given), or the difference of two (`p -
    /// q`, `p + q` as `p - (-q)`); `Fixed` where it does not depend on the inputs. `None` where
    /// it is none of these.
    fn moved_side(&self, r: NodeId) -> Option<Moved> {
        if r.is_none() || !self.is_active(r) {
            return Some(Moved::Fixed);
        }
        let (base, slope) = self.monotone_base(r);
        let value =
            |base: NodeId, slope: f64| Moved::Value(Side::Node(base.0, slope < 0.0), slope.abs());
        let Some(site) = Site::new(self.store, base) else {
            return Some(value(base, slope));
        };
        if let Some(Builtin::Binary(op @ (BinOp::Add | BinOp::Sub))) = site.builtin() {
            let (p, q) = (site.refs.first().copied(), site.refs.get(1).copied());
            if let (Some(p), Some(q)) = (p, q) {
                // One value less itself (`v[i] - v[j]` where `i == j`): 0 around the point.
                if op == BinOp::Sub && self.one_value(p, q, 4) {
                    return Some(Moved::Fixed);
                }
                if site.len() == 2 && self.is_active(p) && self.is_active(q) {
                    let (p, ps) = self.monotone_base(p);
                    let (q, qs) = self.monotone_base(q);
                    // `p + q` is `p - (-q)`; a negated whole swaps the two.
                    let qs = if op == BinOp::Add { -qs } else { qs };
                    if p == q {
                        // `2.0 * x - x` moves with `x` (where the slopes differ): it was not
                        // read as one value above because it is not one here.
                        return Some(Moved::Unknown);
                    }
                    // `x + 2.0 * y` is no ordering of `x` and `-y`: read by its slopes
                    // (`sweep/cone.rs`).
                    if (ps.abs() - qs.abs()).abs() > 1e-12 * ps.abs().max(qs.abs()) {
                        return None;
                    }
                    let (p, q) = (Side::Node(p.0, ps < 0.0), Side::Node(q.0, qs < 0.0));
                    return Some(match slope < 0.0 {
                        false => Moved::Pair(p, q),
                        true => Moved::Pair(q, p),
                    });
                }
            }
        }
        Some(value(base, slope))
    }

    /// The value `r` moves with, through copies and the steps that move a value one way near
    /// this point (an operation of input-dependent operands that all move with one value, with
    /// a nonzero slope: `2.0 * x`, `x + 1.0`, `lo - x`, `x.exp()`, `c / x`, `x * x` at 1,
    /// compound assignments), and the slope of `r` along it (negative where it moves the
    /// other way).
    fn monotone_base(&self, r: NodeId) -> (NodeId, f64) {
        self.monotone_base_within(r, 4)
    }

    /// [`monotone_base`](Self::monotone_base); `depth` bounds how deep the operands of an
    /// operation of several moving operands are read.
    fn monotone_base_within(&self, r: NodeId, depth: u32) -> (NodeId, f64) {
        let (mut base, negated) = self.copied_from(r);
        let mut slope = if negated { -1.0 } else { 1.0 };
        for _ in 0..64 {
            let Some(site) = Site::new(self.store, base) else {
                break;
            };
            let active = |k: usize| {
                site.refs
                    .get(k)
                    .is_some_and(|&r| !r.is_none() && self.is_active(r))
            };
            if !(0..site.len()).any(active) {
                break;
            }
            let Some((partials, n)) = rules::builtin_partials(&site) else {
                break;
            };
            // The input-dependent operands it moves with to first order (`w * x` at `x == 0`
            // moves with `x` alone): the others' partials are 0.
            let moving: Vec<usize> = (0..site.len())
                .filter(|&k| active(k) && partials.get(k) != Some(&0.0))
                .collect();
            if moving.is_empty() || moving.iter().any(|&k| k >= n || !partials[k].is_finite()) {
                break;
            }
            let (next, d) = if let [k] = moving[..] {
                let (b, flips) = self.copied_from(site.refs[k]);
                (b, if flips { -partials[k] } else { partials[k] })
            } else {
                // Several operands moving with one value: the sum of their slopes along it.
                if depth == 0 {
                    break;
                }
                let ways: Vec<(NodeId, f64)> = moving
                    .iter()
                    .map(|&k| {
                        let (b, s) = self.monotone_base_within(site.refs[k], depth - 1);
                        (b, s * partials[k])
                    })
                    .collect();
                if ways.iter().any(|w| w.0 != ways[0].0) {
                    break;
                }
                (ways[0].0, ways.iter().map(|w| w.1).sum())
            };
            if !(d.is_finite() && d != 0.0) {
                break;
            }
            base = next;
            slope *= d;
        }
        (base, slope)
    }

    /// The comparison `site` makes of two floats, one of them input-dependent: an operator
    /// (`x <= y`), a method on a float (`x.le(&y)`, `x.eq(&y)`), or a path call of the float
    /// impls' trait methods (`f64::eq(&x, &y)`, `PartialOrd::le(&x, &y)`), by its callee's key.
    fn comparison(&self, site: &Site<'_>) -> Option<CmpOp> {
        match site.builtin() {
            Some(Builtin::Compare(op)) => return Some(op),
            Some(_) => return None,
            None => {}
        }
        let op = match site.kind() {
            // On a float: by the receiver's type, or where it is a literal (`0.0.ge(&y)`) or
            // unknown, by both operands being floats.
            EntryKind::MethodCall => CmpOp::from_method(site.head()).filter(|_| {
                self.float_method(site, &[site.head()])
                    || (site.receiver() != Receiver::Other
                        && site.len() == 2
                        && site.scalar(0).is_some()
                        && site.scalar(1).is_some())
            })?,
            EntryKind::Call => match site.callee()? {
                crate::core::tape::Callee::Item(k) => crate::core::op::float_compare_of(k.id)?,
                crate::core::tape::Callee::Unknown => return None,
            },
            _ => return None,
        };
        site.refs
            .iter()
            .take(2)
            .any(|&r| self.depends(r))
            .then_some(op)
    }

    /// Whether `site` asks a float class query (`is_normal`, `is_subnormal`, `is_finite`,
    /// `is_infinite`) of an input-dependent value where the answer changes
    /// ([`ties::class_at_edge`]): at 0 `!x.is_normal() && !x.is_subnormal()` is `x == 0`.
    fn class_at_edge(&self, site: &Site<'_>) -> bool {
        use crate::core::op::FloatQuery::{IsFinite, IsInfinite, IsNormal, IsSubnormal};
        let query = match site.builtin() {
            Some(Builtin::Query(q)) => Some(q),
            _ => match site.callee() {
                Some(crate::core::tape::Callee::Item(k)) => crate::core::op::float_query_of(k.id),
                _ => None,
            },
        };
        let Some(q @ (IsNormal | IsSubnormal | IsFinite | IsInfinite)) = query else {
            return false;
        };
        let r = site.refs.first().copied().unwrap_or(NodeId::NONE);
        !r.is_none()
            && self.is_active(r)
            && site.scalar(0).is_some_and(|x| ties::class_at_edge(q, x))
    }

    /// Whether the recorded value `r` cannot be below 0 near this point (`Some(true)`), or
    /// above it (`Some(false)`), by what computed it: `|x|`, `sqrt`, `hypot`, `x * x`, an even
    /// power (`powi(2)`, `powf(2.0)`), a positive constant times, a sum, a `max` with, or a
    /// `min` of such values, and negations of them.
    fn sign_of(&self, r: NodeId) -> Option<bool> {
        self.sign_within(r, 8)
    }

    fn sign_within(&self, r: NodeId, depth: u32) -> Option<bool> {
        if depth == 0 {
            return None;
        }
        let (base, negated) = self.copied_from(r);
        let site = Site::new(self.store, base)?;
        // An operand's sign: a literal's by its value, a node's by what computed it.
        let operand = |k: usize| -> Option<bool> {
            match site.refs.get(k) {
                Some(&o) if !o.is_none() => self.sign_within(o, depth - 1),
                _ => site.scalar(k).map(|v| v >= 0.0),
            }
        };
        let positive_literal = |k: usize| {
            !site.refs.get(k).is_some_and(|r| !r.is_none())
                && site.scalar(k).is_some_and(|v| v > 0.0)
        };
        let nonnegative = match self.float_fn(&site) {
            Some(FloatFn::Abs | FloatFn::Sqrt | FloatFn::Hypot) => true,
            Some(FloatFn::Powi) => site.integer(1).is_some_and(|n| n % 2 == 0),
            Some(FloatFn::Powf) => site
                .scalar(1)
                .is_some_and(|p| p.fract() == 0.0 && p % 2.0 == 0.0 && p != 0.0),
            // `x.mul_add(x, c)` with `c` not below 0.
            Some(FloatFn::MulAdd) => {
                self.same_value(&site, 0, 1) && matches!(operand(2), Some(true))
                    || site.scalar(2) == Some(0.0) && self.same_value(&site, 0, 1)
            }
            // `max(g, c)` with either not below 0; `min` of two such.
            Some(FloatFn::Max) => operand(0) == Some(true) || operand(1) == Some(true),
            Some(FloatFn::Min) => operand(0) == Some(true) && operand(1) == Some(true),
            Some(_) => false,
            None => match site.builtin() {
                Some(Builtin::Binary(BinOp::Mul)) => {
                    self.same_value(&site, 0, 1)
                        || (positive_literal(0) && operand(1) == Some(true))
                        || (positive_literal(1) && operand(0) == Some(true))
                }
                Some(Builtin::Binary(BinOp::Add)) => {
                    operand(0) == Some(true) && operand(1) == Some(true)
                }
                _ => false,
            },
        };
        nonnegative.then_some(!negated)
    }

    /// Whether operands `a` and `b` of `site` are the same recorded value (copies included).
    fn same_value(&self, site: &Site<'_>, a: usize, b: usize) -> bool {
        match (site.refs.get(a), site.refs.get(b)) {
            (Some(&x), Some(&y)) if !x.is_none() && !y.is_none() => {
                self.copied_from(x) == self.copied_from(y)
            }
            _ => false,
        }
    }

    /// The float method or function `site` calls, where irtrack knows it is one: a method on a
    /// receiver known to be a float (as for the rules), or an `f64::…` function by its path.
    fn float_fn(&self, site: &Site<'_>) -> Option<FloatFn> {
        match site.builtin() {
            Some(Builtin::Method(f)) => {
                let receiver = site.receiver();
                (float_by_value(receiver) || receiver == Receiver::FloatRef).then_some(f)
            }
            _ => match site.callee()? {
                crate::core::tape::Callee::Item(k) => crate::core::op::float_fn_of(k.id),
                _ => None,
            },
        }
    }

    /// Side `k` of a comparison and its value as an `f64`: a recorded float (named by the node
    /// it is a copy of: each guard of a `match` binds the scrutinee anew, a helper's argument
    /// is its caller's operand), or a literal read as the type of the other side (`0.1`
    /// against an `f32` is `0.1f32`).
    fn side(&self, site: &Site<'_>, k: usize) -> Option<(Side, f64)> {
        let r = *site.refs.get(k)?;
        if !r.is_none() {
            let (base, negated) = self.copied_from(r);
            return Some((Side::Node(base.0, negated), site.value(k)?.as_f64()?));
        }
        side_literal(site, k)
    }

    /// The node `r` is a copy of, through bindings, dereferences, clones, block arguments,
    /// a tracked function's arguments and negations, and whether an odd number of negations
    /// was met.
    pub(super) fn copied_from(&self, r: NodeId) -> (NodeId, bool) {
        self.copy_of(r, false)
    }

    /// [`copied_from`](Self::copied_from) through exact copies only (no float cast: `(x as
    /// f32) as f64 == x` holds where `x` is an `f32`, not everywhere).
    fn exactly_copied_from(&self, r: NodeId) -> (NodeId, bool) {
        self.copy_of(r, true)
    }

    /// [`exactly_copied_from`](Self::exactly_copied_from), also through what `max`, `min`
    /// and `clamp` selected away from a tie (`r.max(g)` with `r > g` is `r` around the
    /// point) and `abs` away from 0 (`x` or `-x`): a value it is on a neighbourhood, so that
    /// `max == r` (HSV's hue) or `x.clamp(0.0, 1.0) == x` inside the bounds is no point.
    fn selected_from(&self, r: NodeId) -> (NodeId, bool) {
        let (mut base, mut negated) = self.exactly_copied_from(r);
        for _ in 0..64 {
            let Some(site) = Site::new(self.store, base) else {
                break;
            };
            let y = site.output().as_f64();
            let next = match self.float_fn(&site) {
                Some(f @ (FloatFn::Min | FloatFn::Max | FloatFn::Clamp)) => {
                    let x: Vec<Option<f64>> =
                        (0..site.len().min(3)).map(|k| site.scalar(k)).collect();
                    // The operand selected holds the value, bit for bit (a witness that the
                    // method is the float one).
                    ties::selected_operand(f, &x, y)
                        .filter(|&k| x[k].map(f64::to_bits) == y.map(f64::to_bits))
                        .and_then(|k| site.refs.get(k).copied())
                }
                Some(FloatFn::Abs) => match (site.scalar(0), y) {
                    (Some(x), Some(y)) if x != 0.0 && x.abs().to_bits() == y.to_bits() => {
                        negated ^= x < 0.0;
                        site.refs.first().copied()
                    }
                    _ => None,
                },
                _ => None,
            };
            match next {
                Some(n) if !n.is_none() => {
                    let (b, neg) = self.exactly_copied_from(n);
                    base = b;
                    negated ^= neg;
                }
                _ => break,
            }
        }
        (base, negated)
    }

    fn copy_of(&self, mut r: NodeId, exact: bool) -> (NodeId, bool) {
        let mut negated = false;
        for _ in 0..64 {
            if r.is_none() {
                break;
            }
            if self.store.node(r).kind == NodeKind::Argument {
                let source = self.argument_source(r);
                if source.is_none() {
                    break;
                }
                r = source;
                continue;
            }
            let store = self.store;
            // A tracked helper's value is what its return refers to (`fn id(x) { x }`).
            if store.node(r).kind == NodeKind::NestedCall {
                let returned = store.call(r).and_then(|c| {
                    let ret = NodeId(c.end.checked_sub(1)?);
                    (store.node(ret).kind == NodeKind::Return && store.parent(ret) == Some(r))
                        .then(|| store.ref_at(ret, 0))
                });
                match returned {
                    Some(s) if !s.is_none() => {
                        r = s;
                        continue;
                    }
                    _ => break,
                }
            }
            let Some(site) = Site::new(self.store, r) else {
                break;
            };
            let next = match site.builtin() {
                // A binding of a part of a tuple (`let (a, _) = (2.0 * x, 1.0)`) is that part
                // of a tuple literal; of another value's part, itself (not the whole).
                Some(Builtin::Bind) if site.len() == 1 => match site.ir.bind_path(site.index) {
                    None => site.refs.first().copied(),
                    Some(path) => site
                        .refs
                        .first()
                        .and_then(|&t| self.tuple_literal_part(t, path)),
                },
                Some(Builtin::Deref | Builtin::Clone) if site.len() == 1 => {
                    site.refs.first().copied()
                }
                Some(Builtin::Unary(UnOp::Neg)) => {
                    negated = !negated;
                    site.refs.first().copied()
                }
                // A float cast keeps the sign and the order (`x as f32`).
                Some(Builtin::Cast(t)) if !exact && t.is_float() && site.len() == 1 => {
                    site.refs.first().copied()
                }
                // An element of a vector or array literal (`vec![x][0]`), a part of a tuple
                // literal (`(x, 1.0).0`).
                Some(Builtin::Index) => {
                    let v = site.refs.first().copied().unwrap_or(NodeId::NONE);
                    let k = site.integer(1).and_then(|k| usize::try_from(k).ok());
                    match ((!v.is_none()).then(|| Site::new(store, v)).flatten(), k) {
                        (Some(vs), Some(k))
                            if matches!(vs.builtin(), Some(Builtin::VecOf | Builtin::ArrayOf))
                                && vs.len() > k =>
                        {
                            vs.refs.get(k).copied()
                        }
                        _ => None,
                    }
                }
                Some(Builtin::Field) => {
                    let t = site.refs.first().copied().unwrap_or(NodeId::NONE);
                    let k = site
                        .head()
                        .strip_prefix('.')
                        .and_then(|k| k.parse::<usize>().ok());
                    match ((!t.is_none()).then(|| Site::new(store, t)).flatten(), k) {
                        (Some(ts), Some(k))
                            if ts.builtin() == Some(Builtin::Tuple) && ts.len() > k =>
                        {
                            ts.refs.get(k).copied()
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            match next {
                Some(s) if !s.is_none() => r = s,
                _ => break,
            }
        }
        (r, negated)
    }

    /// The part at `path` (`"1"`, `"0.1"`) of the tuple literal `t` is, through copies, where
    /// `t` is one.
    fn tuple_literal_part(&self, t: NodeId, path: &str) -> Option<NodeId> {
        let mut node = t;
        for k in path.split('.') {
            if node.is_none() {
                return None;
            }
            let (base, negated) = self.copied_from(node);
            let site = Site::new(self.store, base)?;
            let k: usize = k.parse().ok()?;
            if negated || site.builtin() != Some(Builtin::Tuple) || k >= site.len() {
                return None;
            }
            node = *site.refs.get(k)?;
        }
        (!node.is_none()).then_some(node)
    }

    /// Whether `site` calls one of the float methods `names` on a float (by its receiver's
    /// type, or where that is unknown, by the recorded receiver's value).
    fn float_method(&self, site: &Site<'_>, names: &[&str]) -> bool {
        if site.kind() != EntryKind::MethodCall || !names.contains(&site.head()) {
            return false;
        }
        let float = match site.receiver() {
            Receiver::Float | Receiver::Generic | Receiver::FloatRef => true,
            Receiver::Unknown => site
                .value(0)
                .is_some_and(|v| v.by_value().as_f64().is_some()),
            Receiver::Other => false,
        };
        float && site.refs.iter().take(2).any(|&r| self.depends(r))
    }

    /// Whether `r` is a recorded value that depends on the inputs finely enough to pin a point
    /// (an active float, or an integer made from a float's bits that keeps most of them).
    fn depends(&self, r: NodeId) -> bool {
        !r.is_none()
            && (self.active[r.index()]
                || (self.taint[r.index()] != u32::MAX && self.coarse_bits(r) < POINT_BITS))
    }

    /// For an integer node `r` made from a float's encoding (`x.to_bits()`), how many of the
    /// encoding's low bits it no longer holds, as noted in the forward pass
    /// ([`Sweep::note_coarse_bits`]); negative where bits were moved up (`c << 4`, `c + c`).
    pub(super) fn coarse_bits(&self, r: NodeId) -> i32 {
        self.coarse.get(&r).copied().unwrap_or(UNKNOWN)
    }

    /// Notes [`Sweep::coarse_bits`] of node `id`, an integer made from a float's encoding,
    /// from its operands' (noted before it, as the pass goes in recording order): 0 for the
    /// bits themselves, `n` more after `>> n` and `n` fewer after `<< n`, the trailing zeros of
    /// a mask more after `& mask`, unchanged through casts, copies, and a constant added or
    /// combined; the finer of two such values combined by `|` or `^`, one fewer than the finer
    /// for `+` and `-` (a sum of two moves bits up: `c + c` is `c << 1`); for anything else (a
    /// product), so few that no shift makes it coarse again. Returns it.
    pub(super) fn note_coarse_bits(&mut self, id: NodeId) -> i32 {
        let c = self.coarse_of(id);
        self.coarse.insert(id, c);
        c
    }

    fn coarse_of(&self, id: NodeId) -> i32 {
        use crate::core::op::FloatQuery;
        // A block or call argument holds the value passed to it.
        if self.store.node(id).kind == NodeKind::Argument {
            let source = self.argument_source(id);
            return if source.is_none() {
                UNKNOWN
            } else {
                self.coarse_bits(source)
            };
        }
        let Some(site) = Site::new(self.store, id) else {
            return UNKNOWN;
        };
        let operand = |k: usize| site.refs.get(k).copied().filter(|o| !o.is_none());
        // A side made from the bits, or a plain number (a literal, a count).
        let of_bits = |k: usize| operand(k).is_some_and(|o| self.taint[o.index()] != u32::MAX);
        let coarse = |k: usize| operand(k).map_or(UNKNOWN, |o| self.coarse_bits(o));
        let amount = |k: usize| {
            site.integer(k)
                .and_then(|n| i32::try_from(n).ok())
                .filter(|n| (0..=128).contains(n))
        };
        let to_bits = site.builtin() == Some(Builtin::Query(FloatQuery::ToBits))
            || matches!(site.callee(), Some(crate::core::tape::Callee::Item(k))
                if crate::core::op::float_query_of(k.id) == Some(FloatQuery::ToBits));
        if to_bits {
            return 0;
        }
        let shift =
            |b: Builtin, op: BinOp| matches!(b, Builtin::Binary(o) | Builtin::Assign(o) if o == op);
        let Some(b) = site.builtin() else {
            return UNKNOWN;
        };
        match b {
            _ if shift(b, BinOp::Shr) && !of_bits(1) => {
                amount(1).map_or(UNKNOWN, |n| coarse(0).saturating_add(n))
            }
            _ if shift(b, BinOp::Shl) && !of_bits(1) => {
                amount(1).map_or(UNKNOWN, |n| coarse(0).saturating_sub(n))
            }
            _ if shift(b, BinOp::BitAnd) => {
                // The mask is the side that is not made from the bits.
                let (mask, value) = match (of_bits(0), of_bits(1)) {
                    (true, false) => (site.integer(1), 0),
                    (false, true) => (site.integer(0), 1),
                    _ => return UNKNOWN,
                };
                let zeros = mask.map_or(0, |m| (m as u64).trailing_zeros() as i32);
                coarse(value).saturating_add(zeros)
            }
            Builtin::Cast(_) | Builtin::Bind | Builtin::Deref | Builtin::Clone => coarse(0),
            _ if [BinOp::Add, BinOp::Sub, BinOp::BitOr, BinOp::BitXor]
                .iter()
                .any(|&op| shift(b, op)) =>
            {
                match (of_bits(0), of_bits(1)) {
                    (true, false) => coarse(0),
                    (false, true) => coarse(1),
                    (true, true) => {
                        let finer = coarse(0).min(coarse(1));
                        let sum = shift(b, BinOp::Add) || shift(b, BinOp::Sub);
                        if sum {
                            finer.saturating_sub(1)
                        } else {
                            finer
                        }
                    }
                    (false, false) => UNKNOWN,
                }
            }
            _ => UNKNOWN,
        }
    }
}

/// A literal side of a comparison (see [`Sweep::side`]).
/// Whether `value` is an index or a count wrapped in an `Option` or a `Result`, as searches
/// return them (`position`, `rposition`, `binary_search_by`, `checked_sub`).
fn holds_an_index(value: &crate::core::value::Value) -> bool {
    use std::any::TypeId;
    let ids = [
        TypeId::of::<Option<usize>>(),
        TypeId::of::<Result<usize, usize>>(),
        TypeId::of::<Option<u32>>(),
        TypeId::of::<Option<u64>>(),
        TypeId::of::<Option<i32>>(),
        TypeId::of::<Option<i64>>(),
        TypeId::of::<Option<isize>>(),
        TypeId::of::<Option<bool>>(),
    ];
    value.type_id().is_some_and(|t| ids.contains(&t))
}

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
    // `-0.0` is `0.0` to a comparison.
    Some((Side::Literal((v + 0.0).to_bits()), v))
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

/// Whether a pattern has a float literal inside it that matches a point (`(0.0, _)`,
/// `Some(-1.5)`, `Pt { x: 0.0, .. }`), not in a range (`0.0..=1.0` holds on an interval).
fn has_float_literal(pattern: &str) -> bool {
    if pattern.contains("..=") || pattern.contains("..0") || pattern.contains("..-") {
        return false;
    }
    pattern
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_'))
        .map(|t| t.trim_end_matches("..").trim_end_matches('_'))
        .any(|t| {
            t.starts_with(|c: char| c.is_ascii_digit())
                && !t.contains("..")
                && !t.starts_with("0x")
                && !t.starts_with("0b")
                && !t.starts_with("0o")
                && (t.contains('.') || t.contains('e') || t.ends_with("f64") || t.ends_with("f32"))
                && !t.ends_with('.')
        })
}

#[cfg(test)]
mod tests {
    use super::{has_float_literal, point_pattern};

    #[test]
    fn float_literals_inside_patterns() {
        for p in [
            "(0.0, _)",
            "Some(-1.5)",
            "[0.0, _]",
            "Pt { x: 0.0, .. }",
            "(_, 1e-3)",
        ] {
            assert!(has_float_literal(p), "{p}");
        }
        for p in [
            "(a, _)",
            "Some(x)",
            "(0, _)",
            "0.0..=1.0",
            "(1..3, _)",
            "Pt { x, .. }",
            "(0x7ff00000, _)",
        ] {
            assert!(!has_float_literal(p), "{p}");
        }
    }

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
