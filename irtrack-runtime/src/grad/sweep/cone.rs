//! Orderings at a tie read by their slopes. The readings of `pins.rs` name sides and what
//! moves them; what they cannot name — a side moving with two inputs (`x * y <= 1.0`), a sum
//! compared with one of its terms (`x + y >= y`), a pin made by three orderings (`x <= y && y
//! <= 0.0 && x >= 0.0`), a side through a step of slope 0 (`x.powi(3)` at 0) — is decided here
//! by first-order directions: each ordering still standing after those readings has its
//! sides' difference differentiated with respect to the inputs (a backward pass from the two
//! sides), and the path is refused where no direction of the inputs keeps every ordering
//! strictly (`core::cone`), or where a difference has the slope 0 (nothing is known to first
//! order). Only orderings at a tie are read this way, so a gradient away from ties pays
//! nothing.

use super::Sweep;
use crate::core::cone::{cone, Cone};
use crate::core::ids::NodeId;
use crate::core::op::{BinOp, Builtin, FloatFn};
use crate::core::ties::{self, AT_MOST};
use crate::grad::error::{GradError, Indeterminacy};
use crate::grad::rules::Contribution;
use crate::grad::site::Site;
use crate::grad::tangent::Tangent;

/// An ordering of input-dependent floats met at a tie that no reading of `pins.rs` settled.
#[derive(Clone, Copy, Debug)]
pub(super) struct TiedOrdering {
    /// The comparison.
    pub(super) node: NodeId,
    /// Its two operands (`NodeId::NONE` for a literal).
    pub(super) sides: [NodeId; 2],
    /// What it said: `AT_MOST` for `a ≤ b`, `AT_LEAST` for `a ≥ b`.
    pub(super) says: u8,
}

impl Sweep<'_> {
    /// Notes the ordering `node` of `a` and `b` at a tie, which said `says`, for
    /// [`tie_cone`](Self::tie_cone) (an ordering of sides constant around the point was
    /// settled before: `Sweep::tie_of_orderings`).
    pub(super) fn note_tied(&mut self, node: NodeId, a: NodeId, b: NodeId, says: u8) {
        self.tied.push(TiedOrdering {
            node,
            sides: [a, b],
            says,
        });
    }

    /// The operation of node `id`: told by the IR first (a lookup per active call), or by the
    /// callee's key for a path call (`f64::max(x, y)`, `f64::floor(x)`).
    fn builtin_of(&self, id: NodeId) -> Option<Builtin> {
        match self
            .ir_of(id)
            .and_then(|ir| ir.builtin(self.store.node(id).entry as usize))
        {
            Some(b) => Some(b),
            None => match self.store.callees.get(&id) {
                Some(crate::core::tape::Callee::Item(k)) => crate::core::op::float_fn_of(k.id)
                    .map(Builtin::Method)
                    .or_else(|| crate::core::op::float_query_of(k.id).map(Builtin::Query)),
                _ => None,
            },
        }
    }

    /// Notes the side a jump takes at its jump (`floor` at an integer, `signum` at 0, a cast to
    /// an integer at one: `core::ties::jump_side`) as an ordering at a tie of its operand
    /// against its value there. Not where the operand is itself the value of such an
    /// operation (`x.floor() as i64`): it is constant on the side its own jump took.
    fn note_jump_side(&mut self, id: NodeId, op: Builtin) {
        let Some(site) = Site::new(self.store, id) else {
            return;
        };
        let x: Vec<Option<f64>> = (0..site.len().min(2)).map(|k| site.scalar(k)).collect();
        for (k, says) in ties::jump_sides(op, &x).into_iter().flatten() {
            let r = site.refs.get(k).copied().unwrap_or(NodeId::NONE);
            if r.is_none() || !self.is_active(r) || self.made_by_a_jump(r) {
                continue;
            }
            self.tied.push(TiedOrdering {
                node: id,
                sides: [r, NodeId::NONE],
                says,
            });
        }
    }

    /// A count made from a float's encoding that drops its low bits (`x.to_bits() >> 52`, node
    /// `id`, from the `to_bits` node `origin`) is constant on intervals of floats and jumps at
    /// their edges. Where the float is at one (the count computed again at the next float above
    /// or below differs), the side it keeps is noted as an ordering of the float against its
    /// value, as for a cast at an integer (`core::ties::jump_sides`). `false` where it cannot
    /// be told (an operation it cannot run again, a count that changes on both sides): the
    /// count is then read as the float re-encoded.
    pub(super) fn note_binade_jump(&mut self, id: NodeId, origin: NodeId) -> bool {
        let p = self.store.ref_at(origin, 0);
        if p.is_none() {
            return false;
        }
        let value = self.store.value_cow(p).by_value();
        let Some(x) = value.as_f64().filter(|x| x.is_finite()) else {
            return false;
        };
        let f32 = value.downcast_ref::<f32>().is_some();
        let neighbour = |up: bool| crate::core::rounding::next_float(x, up, f32);
        let here = self.store.value_cow(id).by_value();
        let at = |y: f64| self.count_at(id, origin, y, f32, 16);
        let (Some(above), Some(below)) = (at(neighbour(true)), at(neighbour(false))) else {
            return false;
        };
        let changes = |v: &crate::core::value::Value| v.exact_eq(&here) != Some(true);
        let says = match (changes(&above), changes(&below)) {
            (false, false) => return true,
            (false, true) => ties::AT_LEAST,
            (true, false) => AT_MOST,
            (true, true) => return false,
        };
        if self.is_active(p) {
            self.tied.push(TiedOrdering {
                node: id,
                sides: [p, NodeId::NONE],
                says,
            });
        }
        true
    }

    /// The value node `id`, an integer made from the encoding of the float `origin` reads,
    /// would have were that float `x`: its recorded operations run again from `origin` up, the
    /// operands not made from it as recorded.
    fn count_at(
        &self,
        id: NodeId,
        origin: NodeId,
        x: f64,
        f32: bool,
        depth: u32,
    ) -> Option<crate::core::value::Value> {
        use crate::core::value::Value;
        if id == origin {
            return Some(if f32 {
                Value::snapshot((x as f32).to_bits())
            } else {
                Value::snapshot(x.to_bits())
            });
        }
        if depth == 0 {
            return None;
        }
        let site = Site::new(self.store, id)?;
        let op = site.builtin()?;
        let mut operands: Vec<Option<Value>> = Vec::with_capacity(site.len());
        for k in 0..site.len() {
            let r = site.refs.get(k).copied().unwrap_or(NodeId::NONE);
            operands.push(if r.is_none() {
                None
            } else if r == origin || self.coarse.contains_key(&r) {
                Some(self.count_at(r, origin, x, f32, depth - 1)?.by_value())
            } else {
                Some(self.store.value_cow(r).by_value())
            });
        }
        // A literal operand has the type of the other (`bits - 1`), a shift's amount its own.
        let shift = matches!(
            op,
            Builtin::Binary(BinOp::Shl | BinOp::Shr) | Builtin::Assign(BinOp::Shl | BinOp::Shr)
        );
        let typed = operands.iter().flatten().find_map(Value::scalar_type);
        let operands = operands
            .into_iter()
            .enumerate()
            .map(|(k, v)| match v {
                Some(v) => Some(v),
                None => {
                    let text = site.literal(k)?;
                    match typed.filter(|_| !(shift && k == 1)) {
                        Some(ty) => crate::core::eval::literal_as(text, ty),
                        None => Some(crate::core::literal::value(text)),
                    }
                }
            })
            .collect::<Option<Vec<Value>>>()?;
        crate::view::operation::run_operation(
            crate::view::operation::Operation::Builtin(op),
            &operands,
        )
        .ok()
    }

    /// Whether side `r` of an ordering is constant wherever the jumps noted keep their sides: a
    /// constant, a value that does not move with the inputs, or the value of a jump (`x.floor()`
    /// at 3 is 3 on `[3, 4)`, the side its own ordering keeps). An ordering of two such sides
    /// holds on that whole region (`x.floor() >= 3.0` at 3), so it pins nothing.
    pub(super) fn held_constant(&self, r: NodeId) -> bool {
        self.steady(r) || self.made_by_a_jump(r)
    }

    /// Whether node `r` does not move with the inputs at all: a literal, or a value neither
    /// differentiable and input-dependent nor made from a float's bits. (An integer made from a
    /// float by a cast moves only where the cast jumps, whose side is noted; a `bool`, where
    /// its comparison's tie is.)
    fn steady(&self, r: NodeId) -> bool {
        r.is_none() || (!self.is_active(r) && self.taint[r.index()] == u32::MAX)
    }

    /// Whether node `r` is the value of an operation constant between its jumps (`floor`,
    /// `signum`, a cast of a float to an integer), or computed from such values and constants
    /// alone (`x.floor() + 1.0`, `(x as i64) * 2`, a cast back to a float): constant on the side
    /// each jump keeps. Not a cast of another integer (`x.to_bits() as i64` moves with every
    /// ulp of `x`).
    fn made_by_a_jump(&self, r: NodeId) -> bool {
        self.piecewise_of_jumps(r, 8)
    }

    fn piecewise_of_jumps(&self, r: NodeId, depth: u32) -> bool {
        if depth == 0 || r.is_none() {
            return false;
        }
        let operand = |k: usize| self.store.ref_at(r, k);
        match self.builtin_of(r) {
            Some(Builtin::Method(f)) => ties::constant_between_jumps(f),
            Some(Builtin::Cast(t)) => {
                let source = operand(0);
                if source.is_none() {
                    return false;
                }
                let from_float = self
                    .store
                    .value_cow(source)
                    .scalar_type()
                    .is_some_and(|s| s.is_float());
                (from_float && !t.is_float()) || self.piecewise_of_jumps(source, depth - 1)
            }
            Some(Builtin::Binary(_) | Builtin::Assign(_) | Builtin::Unary(_)) => {
                let refs: Vec<NodeId> = self.store.refs(r).collect();
                refs.iter().any(|&o| self.piecewise_of_jumps(o, depth - 1))
                    && refs
                        .iter()
                        .all(|&o| self.steady(o) || self.piecewise_of_jumps(o, depth - 1))
            }
            _ => false,
        }
    }

    /// Notes the side a kink takes at its corner as an ordering at a tie, for
    /// [`tie_cone`](Self::tie_cone): `max` at a tie takes its first operand, as if it had found
    /// `a >= b`; `min`, `a <= b`; `abs` at 0 the slope 1, `x >= 0` (`grad/rules.rs`). One such
    /// choice is a one-sided slope (ReLU as `x.max(0.0)` at 0); several must leave an open
    /// region together: `x.max(y) + x.min(y)` at a tie took `x` twice, for regions that meet at
    /// the diagonal alone (gradient [2, 0] of `x + y`).
    pub(super) fn note_kink_choice(&mut self, id: NodeId) {
        // Told by the IR first (a lookup per active call), or by the callee's key for a path
        // call (`f64::max(x, y)`): only these have their site read.
        let Some(op) = self.builtin_of(id) else {
            return;
        };
        let jumps = matches!(
            op,
            Builtin::Method(f) if ties::constant_between_jumps(f)
                || matches!(
                    f,
                    FloatFn::Fract | FloatFn::Copysign | FloatFn::Atan2 | FloatFn::RemEuclid
                )
        ) || matches!(
            op,
            Builtin::Query(_)
                | Builtin::Cast(_)
                | Builtin::Binary(BinOp::Rem)
                | Builtin::Assign(BinOp::Rem)
        );
        let f = match op {
            Builtin::Method(f @ (FloatFn::Max | FloatFn::Min | FloatFn::Abs | FloatFn::Clamp)) => f,
            _ if jumps => return self.note_jump_side(id, op),
            _ => return,
        };
        let Some(site) = Site::new(self.store, id) else {
            return;
        };
        let operand = |k: usize| site.refs.get(k).copied().unwrap_or(NodeId::NONE);
        let active = |r: NodeId| !r.is_none() && self.is_active(r);
        let (sides, says) = match f {
            FloatFn::Abs => {
                if site.scalar(0) != Some(0.0) || !active(operand(0)) {
                    return;
                }
                ([operand(0), NodeId::NONE], ties::AT_LEAST)
            }
            // At a bound, the slope goes to `x`: inside, `x >= lo` (`x <= hi`).
            FloatFn::Clamp => {
                let (x, lo, hi) = (site.scalar(0), site.scalar(1), site.scalar(2));
                if x.is_none() {
                    return;
                }
                // Each bound's ordering where one of its sides is input-dependent.
                let at_lo = x == lo && (active(operand(0)) || active(operand(1)));
                let at_hi = x == hi && (active(operand(0)) || active(operand(2)));
                // `lo == hi`: constant along `x`, where the rule gives `x` the slope 1.
                if at_lo && at_hi && active(operand(0)) {
                    for says in [ties::AT_LEAST, AT_MOST] {
                        self.tied.push(TiedOrdering {
                            node: id,
                            sides: [operand(0), operand(1)],
                            says,
                        });
                    }
                    return;
                }
                if at_lo {
                    self.tied.push(TiedOrdering {
                        node: id,
                        sides: [operand(0), operand(1)],
                        says: ties::AT_LEAST,
                    });
                }
                if !at_hi {
                    return;
                }
                ([operand(0), operand(2)], AT_MOST)
            }
            _ => {
                let (a, b) = (site.scalar(0), site.scalar(1));
                if a.is_none() || a != b || !(active(operand(0)) || active(operand(1))) {
                    return;
                }
                let (p, q) = (operand(0), operand(1));
                if !p.is_none() && !q.is_none() && self.one_value(p, q, 4) {
                    return;
                }
                let says = if f == FloatFn::Max {
                    ties::AT_LEAST
                } else {
                    ties::AT_MOST
                };
                ([p, q], says)
            }
        };
        self.tied.push(TiedOrdering {
            node: id,
            sides,
            says,
        });
    }

    /// Whether `r` does not change when the inputs move a little: not input-dependent, or made
    /// by `floor`, `ceil`, `trunc`, `round` or `signum` away from where they jump (there they
    /// are corners, read before), or by an operation of such values only.
    pub(super) fn locally_constant(&self, r: NodeId, depth: u32) -> bool {
        if r.is_none() || !self.is_active(r) {
            return true;
        }
        // What `min`, `max` or `clamp` selected around the point (`x.min(1.0)` at 2).
        let (base, _) = self.selected_base(r);
        if base.is_none() || !self.is_active(base) {
            return true;
        }
        let Some(site) = Site::new(self.store, base) else {
            return false;
        };
        match site.builtin() {
            Some(Builtin::Method(f)) if ties::constant_between_jumps(f) => true,
            // An integer made from a float (`x as i64`), read back as a float.
            Some(Builtin::Cast(_)) if site.scalar(0).is_none() => site
                .refs
                .first()
                .is_some_and(|&o| self.piecewise_constant(o)),
            // Arithmetic of such values; not a field or an element read, whose operand (the
            // container) is not itself input-dependent to the sweep.
            Some(
                Builtin::Binary(_) | Builtin::Assign(_) | Builtin::Unary(_) | Builtin::Method(_),
            ) if depth > 0 => site
                .refs
                .iter()
                .all(|&o| self.locally_constant(o, depth - 1)),
            _ => false,
        }
    }

    /// The value `r` is around the point, through copies and operations that return one of
    /// their operands unchanged there: `min`/`max` away from a tie, `clamp` inside its bounds,
    /// `x * 1.0`, `x / 1.0`, `x + 0.0`, `x - 0.0`, `|x|` away from 0 (negated below it).
    pub(super) fn selected_base(&self, r: NodeId) -> (NodeId, bool) {
        let (mut base, mut negated) = self.copied_from(r);
        if base.is_none() {
            return (base, negated);
        }
        for _ in 0..64 {
            let Some(site) = Site::new(self.store, base) else {
                break;
            };
            let y = site.output().as_f64();
            let operand = |k: usize| site.refs.get(k).copied().filter(|r| !r.is_none());
            // The operand selected: a literal one (`x.min(1.0)` at 2) is a constant around
            // the point, named `NONE` (whatever its value: at a tie, such sides are equal).
            let chosen = |k: usize| Some(site.refs.get(k).copied().unwrap_or(NodeId::NONE));
            let literal = |k: usize| {
                operand(k)
                    .map_or(true, |r| !self.is_active(r))
                    .then(|| site.scalar(k))
                    .flatten()
            };
            let next = match site.builtin() {
                Some(Builtin::Method(f @ (FloatFn::Min | FloatFn::Max | FloatFn::Clamp))) => {
                    let x: Vec<Option<f64>> =
                        (0..site.len().min(3)).map(|k| site.scalar(k)).collect();
                    ties::selected_operand(f, &x, y).and_then(chosen)
                }
                Some(Builtin::Method(FloatFn::Abs)) => match site.scalar(0) {
                    Some(x) if x != 0.0 => {
                        negated ^= x < 0.0;
                        operand(0)
                    }
                    _ => None,
                },
                Some(Builtin::Binary(op) | Builtin::Assign(op)) => match op {
                    BinOp::Mul | BinOp::Div if literal(1) == Some(1.0) => operand(0),
                    BinOp::Mul if literal(0) == Some(1.0) => operand(1),
                    BinOp::Add | BinOp::Sub if literal(1) == Some(0.0) => operand(0),
                    BinOp::Add if literal(0) == Some(0.0) => operand(1),
                    _ => None,
                },
                _ => None,
            };
            let Some(next) = next else {
                break;
            };
            if next.is_none() {
                return (NodeId::NONE, false);
            }
            let (b, n) = self.copied_from(next);
            base = b;
            negated ^= n;
        }
        // Two reads of one place (`v[0]`, `p.x`) met at a tie are one value
        // (`Sweep::same_place`), where nothing wrote into the container.
        if let Some(place) = self.place_of(base) {
            if let Some(&first) = self.places.get(&place) {
                if !self.writes.contains_key(&NodeId(place.0)) {
                    base = NodeId(first);
                }
            }
        }
        (base, negated)
    }

    /// Whether `a` and `b` are one value around the point: [`selected_base`]s that agree, or
    /// one operation of such values (`x + y` and `y + x`, `x.max(y)` computed twice).
    ///
    /// [`selected_base`]: Self::selected_base
    pub(super) fn one_value(&self, a: NodeId, b: NodeId, depth: u32) -> bool {
        let (sa, sb) = (self.selected_base(a), self.selected_base(b));
        if sa == sb {
            return true;
        }
        if sa.1 != sb.1 || sa.0.is_none() || sb.0.is_none() || depth == 0 {
            return false;
        }
        // Two reads of one place (`v[i]`, `v[j]` where `i == j`), nothing written between.
        if let (Some(pa), Some(pb)) = (self.place_of(sa.0), self.place_of(sb.0)) {
            if pa == pb && !self.writes.contains_key(&NodeId(pa.0)) {
                return true;
            }
        }
        let (Some(x), Some(y)) = (Site::new(self.store, sa.0), Site::new(self.store, sb.0)) else {
            return false;
        };
        let op = match (x.builtin(), y.builtin()) {
            (Some(p), Some(q)) if p == q && x.len() == y.len() => p,
            _ => return false,
        };
        if !matches!(
            op,
            Builtin::Binary(_) | Builtin::Unary(_) | Builtin::Method(_) | Builtin::Cast(_)
        ) {
            return false;
        }
        let same = |i: usize, j: usize| match (x.refs.get(i), y.refs.get(j)) {
            (Some(&p), Some(&q)) if !p.is_none() && !q.is_none() => self.one_value(p, q, depth - 1),
            (Some(&p), Some(&q)) if p.is_none() && q.is_none() => {
                (x.scalar(i).is_some()
                    && x.scalar(i).map(f64::to_bits) == y.scalar(j).map(f64::to_bits))
                    || (x.wide_integer(i).is_some() && x.wide_integer(i) == y.wide_integer(j))
            }
            _ => false,
        };
        let n = x.len();
        let commutes = matches!(
            op,
            Builtin::Binary(BinOp::Add | BinOp::Mul)
                | Builtin::Method(FloatFn::Min | FloatFn::Max | FloatFn::Hypot)
        );
        (0..n).all(|i| same(i, i)) || (commutes && n == 2 && same(0, 1) && same(1, 0))
    }

    /// `Err` when the orderings noted at ties ([`note_tied`](Self::note_tied)) confine the path,
    /// to first order, to a set with no interior around the point (`Indeterminacy::Equality`,
    /// naming the ordering that closed it), or one of them compares values whose difference
    /// has the slope 0 here (`Indeterminacy::Stationary`).
    pub(super) fn tie_cone(&self) -> Result<(), GradError> {
        let mut directions = Vec::with_capacity(self.tied.len());
        // One forward pass for all of them: each backward pass starts from a copy.
        let mut template = Sweep::blank(self.trace, self.root, self.sources.clone());
        template.arguments = self.arguments;
        template.values = self.values;
        template.read_ties = false;
        template.mark_active();
        for t in &self.tied {
            if t.sides.iter().all(|&r| self.held_constant(r)) {
                continue;
            }
            let u = self.tie_direction(&template, t)?;
            let scale = u.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
            if !(scale > 0.0 && scale.is_finite()) {
                return Err(GradError::Indeterminate {
                    at: self.place(t.node),
                    cause: Indeterminacy::Stationary {
                        condition: self.place(t.node),
                    },
                });
            }
            directions.push(u);
        }
        // Every direction is over the same inputs, flattened alike (a struct argument's fields
        // in the order first read, zeros for those a side does not read); directions that are
        // not cannot be compared, and no answer is given.
        if let Some(k) = (1..directions.len()).find(|&k| directions[k].len() != directions[0].len())
        {
            let at = self.tied[k].node;
            return Err(GradError::Indeterminate {
                at: self.place(at),
                cause: Indeterminacy::Stationary {
                    condition: self.place(at),
                },
            });
        }
        match cone(&directions) {
            Cone::Open => Ok(()),
            Cone::Pinned(k) => {
                let at = self.tied[k].node;
                Err(GradError::Indeterminate {
                    at: self.place(at),
                    cause: Indeterminacy::Equality {
                        condition: self.place(at),
                    },
                })
            }
        }
    }

    /// The slope, with respect to the inputs (flattened in the order of the gradient), of the
    /// difference of `t`'s sides that the path keeps nonnegative: `b - a` for `a ≤ b`.
    fn tie_direction(&self, template: &Self, t: &TiedOrdering) -> Result<Vec<f64>, GradError> {
        let mut sweep = template.clone();
        // Nothing after the sides (and what they call) has a sensitivity. (A tie of two
        // literals is never noted: one side is input-dependent.)
        let Some(end) = t
            .sides
            .iter()
            .filter(|s| !s.is_none())
            .map(|&s| self.store.call(s).map_or(s.index() + 1, |c| c.end as usize))
            .max()
        else {
            return Ok(Vec::new());
        };
        sweep.end = end;
        let sign = if t.says == AT_MOST { 1.0 } else { -1.0 };
        let [a, b] = t.sides;
        let mut seeds = Vec::with_capacity(2);
        if !a.is_none() {
            seeds.push((a, -sign));
        }
        if !b.is_none() {
            seeds.push((b, sign));
        }
        let sides = |e: GradError| match e {
            GradError::NoRule {
                callee,
                at,
                reason: None,
            } => GradError::NoRule {
                callee,
                at,
                reason: Some(format!(
                    "it computes a side of {}, an ordering of input-dependent values found at a \
                     tie, whose slope tells whether the path holds around this point or at it \
                     alone; differentiate at a point off the tie, or make it `#[tracked]` or give \
                     it a rule with `irtrack::grad::register_rule`",
                    self.place(t.node)
                )),
            },
            e => e,
        };
        for (id, s) in seeds {
            sweep
                .give(id, Contribution::Whole(Tangent::Scalar(s)))
                .map_err(sides)?;
        }
        sweep.backward().map_err(sides)?;
        let mut out = Vec::new();
        let inputs: Vec<NodeId> = if self.arguments {
            sweep.function_arguments().collect()
        } else {
            let mut inputs: Vec<NodeId> = self
                .sources
                .iter()
                .filter(|(_, &input)| input)
                .map(|(&id, _)| id)
                .collect();
            inputs.sort();
            inputs
        };
        for id in inputs {
            if let Some(g) = sweep.argument_gradient(id) {
                flatten(&g, &mut out);
            }
        }
        Ok(out)
    }
}

/// The elements of a sensitivity in a fixed order (a struct's fields in the order first read).
fn flatten(t: &Tangent, out: &mut Vec<f64>) {
    match t {
        Tangent::Scalar(v) => out.push(*v),
        Tangent::Vector(v) => out.extend_from_slice(v),
        #[cfg(feature = "ndarray")]
        Tangent::Array(a) => out.extend(a.iter().copied()),
        Tangent::Fields(fields) => fields.iter().for_each(|(_, t)| flatten(t, out)),
    }
}
