//! A recorded path that exists at one point only along the differentiated inputs has no
//! derivative there: `if x == 0.0 { 0.0 } else { 1.125 * x }` recorded at 0 is the program
//! `x ↦ 0` guarded by `x == 0`, whose derivative program would answer 0 where the function's
//! slope is 1.125. The gradient's sweep refuses such a path on a trace (`grad/sweep/pins.rs`);
//! this is the same refusal on a program's guards, before a derivative is built: an equality
//! of values that vary with the inputs that held (or an inequality that did not), or two
//! orderings of the same values that together say equal (`x > 0` false and `x < 0` false),
//! also where a side moves with a value one way (`x <= 0.0 && 2.0 * x >= 0.0`).

use super::cone::Tied;
use super::error::DiffError;
use super::graph::Graph;
use crate::core::op::{BinOp, Builtin, CmpOp, FloatFn, UnOp};
use crate::core::ties::{self, flip, Side as _, Ties, AT_LEAST, AT_MOST};
use crate::core::value::Value;
use crate::program::{PartInput, Program, ReplayError, Src};
use crate::view::operation::Operation;

/// The check of a derivative program's path at a call where one of the recorded function's
/// orderings or kinks is at its tie (`program::ties`): the building check on `primal`'s values
/// at `args`, as the call's error.
pub(crate) fn refusal_at(primal: &Program, args: &[Value], wrt: &[usize]) -> Option<ReplayError> {
    let g = Graph::from_parts(primal.parts_at(args)?);
    let (at, reason) = match refuse_point_path(&g, wrt) {
        Ok(()) => return None,
        Err(DiffError::PointPath { at }) => (
            at,
            "the recorded path holds at this point alone along the differentiated inputs (an \
             equality of values that vary with them holds, two orderings of them say equal, or \
             sides taken at a tie, like `max` and `min` of equal values, belong to regions that \
             meet only here), so its slope is no derivative of the function; build the \
             derivative at this point (where `differentiate` says so) or call it off the tie",
        ),
        Err(DiffError::StationaryTie { at }) => (
            at,
            "an ordering of values that vary with the differentiated inputs is at a tie where \
             the difference of its sides has the slope 0, so whether the path holds around \
             this point or at it alone is not known; call the derivative off the tie",
        ),
        Err(DiffError::Replay(e)) => return Some(e),
        Err(e) => {
            return Some(ReplayError::NoDerivative {
                at: g.origin.clone(),
                reason: e.to_string(),
            })
        }
    };
    Some(ReplayError::NoDerivative {
        at,
        reason: reason.into(),
    })
}

/// `Err` naming the first comparison of `g` that, with those before it, confines the path to one
/// point along the inputs `wrt` (the comparisons a program keeps decide its guards or its
/// value; see `grad/sweep/pins.rs` for the forms looked at).
pub(crate) fn refuse_point_path(g: &Graph, wrt: &[usize]) -> Result<(), DiffError> {
    let mut varies = vec![false; g.nodes.len()];
    let input_varies = |k: usize| {
        wrt.contains(&k)
            || matches!(
                g.inputs.get(k),
                Some(PartInput::Dynamic { varies: true, .. })
            )
    };
    let src_varies = |varies: &[bool], s: &Src| match s {
        Src::Input(k) => input_varies(*k),
        Src::Op(k) => varies.get(*k).copied().unwrap_or(false),
        Src::Const(_) => false,
    };
    let mut ties = Ties::<Key>::default();
    let mut moved_ties = Ties::<Key>::default();
    let mut tied: Vec<Tied> = Vec::new();
    // Values made from an operation at a corner or an extremum of itself (`|x|` at 0, `floor`
    // at an integer: `core::ties::at_kink`), and what they flowed into.
    let mut kinked = vec![false; g.nodes.len()];
    let src_kinked = |kinked: &[bool], s: &Src| match s {
        Src::Op(k) => kinked.get(*k).copied().unwrap_or(false),
        _ => false,
    };
    for i in 0..g.nodes.len() {
        varies[i] = g.nodes[i].args.iter().any(|a| src_varies(&varies, a));
        let node = &g.nodes[i];
        kinked[i] = node.args.iter().any(|a| src_kinked(&kinked, a))
            || (varies[i]
                && !node.derived
                && match node.op {
                    Operation::Builtin(op) => {
                        let x: Vec<Option<f64>> = node
                            .args
                            .iter()
                            .take(3)
                            .map(|a| g.value(a).as_f64())
                            .collect();
                        ties::at_kink(op, &x, node.value.as_f64())
                    }
                    _ => false,
                });
        // The recorded function's own comparisons: a rule's (a convention's selection at an
        // edge point, in a derivative differentiated again) decides no path of it.
        if node.derived {
            continue;
        }
        // A class query where its answer changes (`x.is_normal()` at 0).
        if let Operation::Builtin(Builtin::Query(q)) = node.op {
            use crate::core::op::FloatQuery::{IsFinite, IsInfinite, IsNormal, IsSubnormal};
            let edge = matches!(q, IsNormal | IsSubnormal | IsFinite | IsInfinite)
                && node.args.first().is_some_and(|a| {
                    src_varies(&varies, a)
                        && g.value(a)
                            .as_f64()
                            .is_some_and(|x| ties::class_at_edge(q, x))
                });
            if edge {
                return Err(DiffError::PointPath {
                    at: node.origin.clone(),
                });
            }
        }
        // `hypot` and `atan2` at the origin have no derivative: along a direction `d` the
        // norm's slope is `|d|`, and every angle is a limit of atan2 there.
        if let Operation::Builtin(Builtin::Method(f @ (FloatFn::Hypot | FloatFn::Atan2))) = node.op
        {
            let zero = |k: usize| {
                node.args
                    .get(k)
                    .is_some_and(|a| g.value(a).as_f64() == Some(0.0))
            };
            let moves = node.args.iter().take(2).any(|a| src_varies(&varies, a));
            if zero(0) && zero(1) && moves {
                return Err(DiffError::Replay(ReplayError::NoDerivative {
                    at: node.origin.clone(),
                    reason: format!(
                        "`{}` at the origin has no derivative (along a direction d the norm's \
                         slope is |d|, and atan2 jumps there): differentiate off the origin",
                        f.name()
                    ),
                }));
            }
        }
        // The side a jump holds at its jump point (`core::ties::jump_sides`,
        // `Sweep::note_jump_side`): an ordering of its operand against its value there.
        if let Operation::Builtin(b) = node.op {
            let x: Vec<Option<f64>> = node
                .args
                .iter()
                .take(2)
                .map(|a| g.value(a).as_f64())
                .collect();
            let sides = ties::jump_sides(b, &x);
            for (k, says) in sides.into_iter().flatten() {
                if let (Some(a), Some(Some(v))) = (node.args.get(k), x.get(k)) {
                    if src_varies(&varies, a)
                        && !made_by_a_jump(g, a, &|s: &Src| src_varies(&varies, s))
                    {
                        tied.push(Tied {
                            node: i,
                            sides: [
                                a.clone(),
                                Src::Const(crate::core::value::Value::snapshot(*v)),
                            ],
                            says,
                        });
                    }
                }
            }
            if sides.iter().any(Option::is_some) {
                continue;
            }
        }
        // The side a kink takes at its corner, an ordering at a tie (`Sweep::note_kink_choice`).
        if let Operation::Builtin(Builtin::Method(
            f @ (FloatFn::Max | FloatFn::Min | FloatFn::Abs | FloatFn::Clamp),
        )) = node.op
        {
            let v = |k: usize| node.args.get(k).and_then(|a| g.value(a).as_f64());
            let moves = |k: usize| node.args.get(k).is_some_and(|a| src_varies(&varies, a));
            match (f, node.args.as_slice()) {
                (FloatFn::Abs, [x]) if v(0) == Some(0.0) && moves(0) => tied.push(Tied {
                    node: i,
                    sides: [
                        x.clone(),
                        Src::Const(crate::core::value::Value::snapshot(0.0f64)),
                    ],
                    says: AT_LEAST,
                }),
                (FloatFn::Max | FloatFn::Min, [a, b])
                    if v(0).is_some()
                        && v(0) == v(1)
                        && (moves(0) || moves(1))
                        && selected(g, a) != selected(g, b) =>
                {
                    tied.push(Tied {
                        node: i,
                        sides: [a.clone(), b.clone()],
                        says: if f == FloatFn::Max { AT_LEAST } else { AT_MOST },
                    })
                }
                (FloatFn::Clamp, [x, lo, hi]) if v(0).is_some() => {
                    // Each bound's ordering where one of its sides varies.
                    if v(0) == v(1) && (moves(0) || moves(1)) {
                        tied.push(Tied {
                            node: i,
                            sides: [x.clone(), lo.clone()],
                            says: AT_LEAST,
                        });
                    }
                    if v(0) == v(2) && (moves(0) || moves(2)) {
                        tied.push(Tied {
                            node: i,
                            sides: [x.clone(), hi.clone()],
                            says: AT_MOST,
                        });
                    }
                }
                _ => {}
            }
            continue;
        }
        let Operation::Builtin(Builtin::Compare(op)) = node.op else {
            continue;
        };
        let [a, b] = node.args.as_slice() else {
            continue;
        };
        let Some(&held) = node.value.by_value().downcast_ref::<bool>() else {
            continue;
        };
        if !(src_varies(&varies, a) || src_varies(&varies, b)) {
            continue;
        }
        // Both sides constant where the jumps keep their sides (`x.floor() >= 3.0` at 3,
        // `(x as i64) >= 1` at 1: the jump's own ordering is noted above): the comparison holds
        // wherever they do.
        let held_constant = |s: &Src| {
            !src_varies(&varies, s) || made_by_a_jump(g, s, &|s: &Src| src_varies(&varies, s))
        };
        if held_constant(a) && held_constant(b) {
            continue;
        }
        let (ka, kb) = (key(g, a), key(g, b));
        let pinned = match op {
            // One value on both sides around the point (`max == r` where `r` is the largest,
            // `x.clamp(0.0, 1.0) == x` inside the bounds): no point.
            CmpOp::Eq | CmpOp::Ne => {
                held == (op == CmpOp::Eq) && ka != kb && selected(g, a) != selected(g, b)
            }
            _ => {
                // Integers at a tie, one made from a float where it jumps (`(x as i64) >= 1`
                // at 1): what `Sweep::tie_of_counts` refuses on a trace.
                let counts = matches!(
                    (g.value(a).as_i128(), g.value(b).as_i128()),
                    (Some(x), Some(y)) if x == y
                );
                if counts && (src_kinked(&kinked, a) || src_kinked(&kinked, b)) {
                    return Err(DiffError::PointPath {
                        at: node.origin.clone(),
                    });
                }
                let (va, vb) = (g.value(a).as_f64(), g.value(b).as_f64());
                let tie = matches!((va, vb), (Some(x), Some(y)) if x == y);
                let Some(says) = ties::says(op, held).filter(|_| tie) else {
                    continue;
                };
                // One value on both sides around the point (`x <= x`, `x.min(cap) >= x` below
                // `cap`): the ordering says the same on a neighbourhood.
                if selected(g, a) == selected(g, b) {
                    continue;
                }
                if src_kinked(&kinked, a) || src_kinked(&kinked, b) {
                    return Err(DiffError::PointPath {
                        at: node.origin.clone(),
                    });
                }
                let zero = Key::Const(0);
                let mut known = 0;
                if kb == zero && va == Some(0.0) {
                    known |= bound(g, a);
                }
                if ka == zero && va == Some(0.0) {
                    known |= flip(bound(g, b));
                }
                ties.note(ka, kb, says | known) || {
                    // The sides read through what moves them (see `grad/sweep/pins.rs`,
                    // `Sweep::moved_side`): `x <= 0.0 && 2.0 * x >= 0.0` holds at 0 alone.
                    // What these readings leave standing is read by its slopes (`cone.rs`).
                    let moves = |s: &Src| src_varies(&varies, s);
                    let standing = Tied {
                        node: i,
                        sides: [a.clone(), b.clone()],
                        says,
                    };
                    let constant =
                        locally_constant(g, a, &moves, 8) && locally_constant(g, b, &moves, 8);
                    let stand = |pinned: bool| {
                        if !pinned && !constant {
                            tied.push(standing);
                        }
                        pinned
                    };
                    match (moved(g, a, &moves), moved(g, b, &moves)) {
                        (Moved::Unknown, _) | (_, Moved::Unknown) => true,
                        (Moved::Fixed, Moved::Fixed) => false,
                        // Both sides move with one source: as the difference of their slopes
                        // (equal: the same value holds on both sides; values that agree to
                        // first order only are read by their slopes).
                        (Moved::Value(x, xs), Moved::Value(y, ys)) if x == y || x == y.negate() => {
                            let signed = |k: Key, s: f64| if is_negated(k) { -s } else { s };
                            let net = signed(x, xs) - signed(y, ys);
                            if net.abs() <= 1e-12 * xs.max(ys) {
                                stand(false)
                            } else {
                                let base = if is_negated(x) { x.negate() } else { x };
                                let side = if net < 0.0 { base.negate() } else { base };
                                stand(moved_ties.note(side, FIXED, says))
                            }
                        }
                        (Moved::Value(x, _), Moved::Fixed) => {
                            stand(moved_ties.note(x, FIXED, says))
                        }
                        (Moved::Fixed, Moved::Value(y, _)) => {
                            stand(moved_ties.note(FIXED, y, says))
                        }
                        (Moved::Pair(p, q), Moved::Fixed) => stand(moved_ties.note(p, q, says)),
                        (Moved::Fixed, Moved::Pair(p, q)) => {
                            stand(moved_ties.note(p, q, flip(says)))
                        }
                        (Moved::Value(x, _), Moved::Value(y, _)) => {
                            stand(moved_ties.note(x, y, says))
                        }
                        _ => stand(false),
                    }
                }
            }
        };
        if pinned {
            return Err(DiffError::PointPath {
                at: node.origin.clone(),
            });
        }
    }
    // An ordering of sides constant where the jumps keep their sides (`clamp` of `x.floor()`
    // at a bound) holds wherever they do.
    tied.retain(|t| {
        !t.sides.iter().all(|s| {
            !src_varies(&varies, s) || made_by_a_jump(g, s, &|s: &Src| src_varies(&varies, s))
        })
    });
    super::cone::refuse_closed(g, &tied, &|s: &Src| src_varies(&varies, s))
}

/// The side `s` is around the point, through copies and operations that return one of their
/// operands unchanged there: `min`/`max` away from a tie, `clamp` inside its bounds, `x * 1.0`,
/// `x / 1.0`, `x + 0.0`, `x - 0.0`, `|x|` away from 0 (negated below it).
/// Whether `s` is the value of an operation constant between its jumps (`floor`, `signum`, a
/// cast to an integer, and back to a float): on the side its own jump holds it is constant.
fn made_by_a_jump(g: &Graph, s: &Src, varies: &dyn Fn(&Src) -> bool) -> bool {
    piecewise_of_jumps(g, s, varies, 8)
}

/// See `Sweep::made_by_a_jump`: a cast of a float to an integer, `floor` and the other
/// operations constant between jumps, and arithmetic of their values with constants; not a
/// cast of another integer (`x.to_bits() as i64`).
fn piecewise_of_jumps(g: &Graph, s: &Src, varies: &dyn Fn(&Src) -> bool, depth: u32) -> bool {
    let Src::Op(k) = s else {
        return false;
    };
    if depth == 0 {
        return false;
    }
    let node = &g.nodes[*k];
    match node.op {
        Operation::Builtin(Builtin::Method(f)) => ties::constant_between_jumps(f),
        Operation::Builtin(Builtin::Cast(t)) => node.args.first().is_some_and(|a| {
            let from_float = g.value(a).scalar_type().is_some_and(|s| s.is_float());
            (from_float && !t.is_float()) || piecewise_of_jumps(g, a, varies, depth - 1)
        }),
        Operation::Builtin(Builtin::Binary(_) | Builtin::Assign(_) | Builtin::Unary(_)) => {
            node.args
                .iter()
                .any(|a| piecewise_of_jumps(g, a, varies, depth - 1))
                && node
                    .args
                    .iter()
                    .all(|a| !varies(a) || piecewise_of_jumps(g, a, varies, depth - 1))
        }
        _ => false,
    }
}

fn selected(g: &Graph, s: &Src) -> Key {
    let mut s = s;
    let mut negated = false;
    for _ in 0..64 {
        let (base, n) = copied_from(g, s);
        negated ^= n;
        s = base;
        let Src::Op(k) = s else { break };
        let node = &g.nodes[*k];
        let arg = |i: usize| node.args.get(i);
        let x = |i: usize| arg(i).and_then(|a| g.value(a).as_f64());
        let constant = |i: usize| match arg(i) {
            Some(Src::Const(v)) => v.as_f64(),
            _ => None,
        };
        let next = match node.op {
            Operation::Builtin(Builtin::Method(
                f @ (FloatFn::Min | FloatFn::Max | FloatFn::Clamp),
            )) => {
                ties::selected_operand(f, &[x(0), x(1), x(2)], node.value.as_f64()).and_then(&arg)
            }
            Operation::Builtin(Builtin::Method(FloatFn::Abs)) => match x(0) {
                Some(v) if v != 0.0 => {
                    negated ^= v < 0.0;
                    arg(0)
                }
                _ => None,
            },
            Operation::Builtin(Builtin::Binary(op) | Builtin::Assign(op)) => match op {
                BinOp::Mul | BinOp::Div if constant(1) == Some(1.0) => arg(0),
                BinOp::Mul if constant(0) == Some(1.0) => arg(1),
                BinOp::Add | BinOp::Sub if constant(1) == Some(0.0) => arg(0),
                BinOp::Add if constant(0) == Some(0.0) => arg(1),
                _ => None,
            },
            _ => None,
        };
        match next {
            Some(n) => s = n,
            None => break,
        }
    }
    let k = key(g, s);
    if negated {
        k.negate()
    } else {
        k
    }
}

/// Whether `s` does not change when the inputs move a little: not varying, or made by
/// `floor`, `ceil`, `trunc`, `round` or `signum` away from where they jump (there it is a
/// corner, refused before), or by an operation of such values only.
fn locally_constant(g: &Graph, s: &Src, varies: &dyn Fn(&Src) -> bool, depth: u32) -> bool {
    if !varies(s) {
        return true;
    }
    // What `min`, `max` or `clamp` selected around the point (`x.min(1.0)` at 2).
    let base = match selected(g, s) {
        Key::Const(_) => return true,
        Key::Input(..) => return false,
        Key::Op(k, _) => Src::Op(k),
    };
    let Src::Op(k) = &base else { return false };
    let node = &g.nodes[*k];
    match node.op {
        Operation::Builtin(Builtin::Method(f)) if ties::constant_between_jumps(f) => true,
        // An integer made from a float (`x as i64`), read back as a float.
        Operation::Builtin(Builtin::Cast(_))
            if node
                .args
                .first()
                .is_some_and(|a| g.value(a).as_f64().is_none()) =>
        {
            true
        }
        // Arithmetic of such values; not a field or an element read of a container.
        Operation::Builtin(
            Builtin::Binary(_) | Builtin::Assign(_) | Builtin::Unary(_) | Builtin::Method(_),
        ) if depth > 0 => node
            .args
            .iter()
            .all(|a| locally_constant(g, a, varies, depth - 1)),
        _ => false,
    }
}

/// A side of a comparison: an input or an operation (the one it is a copy of, through
/// bindings, guards and negations, and whether it was negated), or a constant by its value's
/// bits (`-0.0` read as `0.0`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    Input(usize, bool),
    Op(usize, bool),
    Const(u64),
}

impl ties::Side for Key {
    fn negate(self) -> Key {
        match self {
            Key::Input(i, n) => Key::Input(i, !n),
            Key::Op(i, n) => Key::Op(i, !n),
            // `FIXED` stands for every value that does not vary, negated ones included.
            Key::Const(u64::MAX) => self,
            Key::Const(bits) => Key::Const((-f64::from_bits(bits) + 0.0).to_bits()),
        }
    }
}

fn key(g: &Graph, s: &Src) -> Key {
    let (base, negated) = copied_from(g, s);
    match base {
        Src::Input(k) => Key::Input(*k, negated),
        Src::Op(k) => Key::Op(*k, negated),
        Src::Const(v) => Key::Const(v.as_f64().map_or(u64::MAX, |x| (x + 0.0).to_bits())),
    }
}

/// Whether `k` is a source negated on the way.
fn is_negated(k: Key) -> bool {
    matches!(k, Key::Input(_, true) | Key::Op(_, true))
}

/// The side that stands for every value not varying with the inputs, among the sides read
/// through what moves them.
const FIXED: Key = Key::Const(u64::MAX);

/// Where a side of an ordering at a tie moves with the inputs: with a value (up, or down where
/// negated), as the difference of two (`p - q`; `p + q` is `p - (-q)`), or not at all.
#[derive(Clone, Copy, PartialEq)]
enum Moved {
    Fixed,
    /// Moves with a source (negated where it moves the other way), at a slope (its size).
    Value(Key, f64),
    Pair(Key, Key),
    /// Moves with an input, which way not read (`2.0 * x - x`).
    Unknown,
    /// A sum or product of varying values, or another operation: not read.
    Other,
}

fn moved(g: &Graph, s: &Src, varies: &dyn Fn(&Src) -> bool) -> Moved {
    if !varies(s) {
        return Moved::Fixed;
    }
    let (base, slope) = monotone_base(g, s, varies);
    let as_key = |s: &Src, n: bool| match s {
        Src::Input(k) => Key::Input(*k, n),
        Src::Op(k) => Key::Op(*k, n),
        Src::Const(_) => FIXED,
    };
    if let Src::Op(k) = base {
        let node = &g.nodes[*k];
        if let (Operation::Builtin(Builtin::Binary(op @ (BinOp::Add | BinOp::Sub))), [p, q]) =
            (node.op, node.args.as_slice())
        {
            if varies(p) && varies(q) {
                let (p, ps) = monotone_base(g, p, varies);
                let (q, qs) = monotone_base(g, q, varies);
                let qs = if op == BinOp::Add { -qs } else { qs };
                if as_key(p, false) == as_key(q, false) {
                    // Both move with one source, their slopes cancelling (`x - x`).
                    return Moved::Unknown;
                }
                // `x + 2.0 * y` is no ordering of `x` and `-y`: read by its slopes (`cone.rs`).
                if (ps.abs() - qs.abs()).abs() > 1e-12 * ps.abs().max(qs.abs()) {
                    return Moved::Other;
                }
                let (p, q) = (as_key(p, ps < 0.0), as_key(q, qs < 0.0));
                return match slope < 0.0 {
                    false => Moved::Pair(p, q),
                    true => Moved::Pair(q, p),
                };
            }
            return Moved::Other;
        }
    }
    Moved::Value(as_key(base, slope < 0.0), slope.abs())
}

/// The source `s` moves with, through copies and the steps that move a value one way near
/// this point (adding, subtracting, multiplying or dividing by a value that does not vary and
/// is not 0, negation, a float method of one varying operand whose slope is not 0), and
/// whether it moves the other way.
fn monotone_base<'g>(g: &'g Graph, s: &'g Src, varies: &dyn Fn(&Src) -> bool) -> (&'g Src, f64) {
    monotone_base_within(g, s, varies, 4)
}

/// [`monotone_base`], where the varying operands of an operation that all move with one source
/// move it by the sum of their slopes (`x * x`, `x * x.exp()` at 0); `depth` bounds how deep
/// such operands are read.
fn monotone_base_within<'g>(
    g: &'g Graph,
    s: &'g Src,
    varies: &dyn Fn(&Src) -> bool,
    depth: u32,
) -> (&'g Src, f64) {
    let (mut base, negated) = copied_from(g, s);
    let mut slope = if negated { -1.0 } else { 1.0 };
    for _ in 0..64 {
        let Src::Op(k) = base else { break };
        let node = &g.nodes[*k];
        let Some(d) = partials(g, k) else {
            break;
        };
        let moving: Vec<usize> = (0..node.args.len())
            .filter(|&i| varies(&node.args[i]) && d.get(i).is_some_and(|&p| p != 0.0))
            .collect();
        if moving.is_empty() || moving.iter().any(|&i| !d[i].is_finite()) {
            break;
        }
        let (next, step) = if let [i] = moving[..] {
            let (b, n) = copied_from(g, &node.args[i]);
            (b, if n { -d[i] } else { d[i] })
        } else {
            if depth == 0 {
                break;
            }
            let ways: Vec<(&Src, f64)> = moving
                .iter()
                .map(|&i| {
                    let (b, s) = monotone_base_within(g, &node.args[i], varies, depth - 1);
                    (b, s * d[i])
                })
                .collect();
            let same = |a: &Src, b: &Src| match (a, b) {
                (Src::Op(x), Src::Op(y)) | (Src::Input(x), Src::Input(y)) => x == y,
                _ => false,
            };
            if ways.iter().any(|w| !same(w.0, ways[0].0)) {
                break;
            }
            (ways[0].0, ways.iter().map(|w| w.1).sum())
        };
        if !(step.is_finite() && step != 0.0) {
            break;
        }
        base = next;
        slope *= step;
    }
    (base, slope)
}

/// The partial derivatives of node `k` of `g` in its operands at their recorded values, for
/// the arithmetic operators, `powi` and the float methods with a rule.
pub(super) fn partials(g: &Graph, k: &usize) -> Option<Vec<f64>> {
    let node = &g.nodes[*k];
    let f = |i: usize| node.args.get(i).and_then(|a| g.value(a).as_f64());
    Some(match node.op {
        Operation::Builtin(Builtin::Binary(op) | Builtin::Assign(op)) => {
            let (a, b) = (f(0)?, f(1)?);
            match op {
                BinOp::Add => vec![1.0, 1.0],
                BinOp::Sub => vec![1.0, -1.0],
                BinOp::Mul => vec![b, a],
                BinOp::Div => vec![1.0 / b, -a / (b * b)],
                _ => return None,
            }
        }
        Operation::Builtin(Builtin::Method(FloatFn::Powi)) => {
            let x = f(0)?;
            let n = node.args.get(1).and_then(|a| g.value(a).as_i64())?;
            let n = i32::try_from(n).ok()?;
            vec![f64::from(n) * x.powi(n - 1), 0.0]
        }
        Operation::Builtin(Builtin::Method(m)) => {
            let xs: Option<Vec<f64>> = node.args.iter().map(|a| g.value(a).as_f64()).collect();
            crate::grad::rules::float_partials(m, &xs?, node.value.as_f64()?)?.to_vec()
        }
        _ => return None,
    })
}

/// The source `s` is a copy of, and whether an odd number of negations was met.
fn copied_from<'g>(g: &'g Graph, mut s: &'g Src) -> (&'g Src, bool) {
    let mut negated = false;
    while let Src::Op(k) = s {
        let node = &g.nodes[*k];
        match node.op {
            Operation::Builtin(
                Builtin::Guard | Builtin::Bind | Builtin::Deref | Builtin::Clone,
            ) => {}
            Operation::Builtin(Builtin::Unary(UnOp::Neg)) => negated = !negated,
            // A float cast keeps the sign and the order (`x as f32`).
            Operation::Builtin(Builtin::Cast(t)) if t.is_float() => {}
            // An element of a vector or array literal by a constant index (`[x, 1.0][0]`).
            Operation::Builtin(Builtin::Index) => {
                let element = match node.args.as_slice() {
                    [Src::Op(v), k] => {
                        let literal = &g.nodes[*v];
                        let k = g.value(k).as_i64().and_then(|k| usize::try_from(k).ok());
                        match (literal.op, k) {
                            (Operation::Builtin(Builtin::VecOf | Builtin::ArrayOf), Some(k)) => {
                                literal.args.get(k)
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                };
                match element {
                    Some(e) => {
                        s = e;
                        continue;
                    }
                    None => break,
                }
            }
            _ => break,
        }
        match node.args.first() {
            Some(a) => s = a,
            None => break,
        }
    }
    (s, negated)
}

/// `AT_LEAST` for a value that is never below 0 near the point (`|x|`, `x * x`, an even
/// power, `sqrt`, `hypot`, a positive constant times, a sum, a `max` with, a `min` of such
/// values), `AT_MOST` for its negation, else 0 (as `grad/sweep/pins.rs` reads a trace).
fn bound(g: &Graph, s: &Src) -> u8 {
    match sign(g, s, 8) {
        Some(true) => AT_LEAST,
        Some(false) => AT_MOST,
        None => 0,
    }
}

fn sign(g: &Graph, s: &Src, depth: u32) -> Option<bool> {
    if depth == 0 {
        return None;
    }
    let (base, negated) = copied_from(g, s);
    let Src::Op(k) = base else {
        // A constant's sign by its value.
        return match base {
            Src::Const(v) => v.as_f64().map(|x| (x >= 0.0) != negated),
            _ => None,
        };
    };
    let node = &g.nodes[*k];
    let arg = |i: usize| node.args.get(i);
    let sign_of = |i: usize| arg(i).and_then(|a| sign(g, a, depth - 1));
    let same = |i: usize, j: usize| match (arg(i), arg(j)) {
        (Some(a), Some(b)) => {
            let (ka, kb) = (key(g, a), key(g, b));
            ka == kb && !matches!(ka, Key::Const(_))
        }
        _ => false,
    };
    let literal = |i: usize| match arg(i) {
        Some(Src::Const(v)) => v.as_f64(),
        _ => None,
    };
    let nonnegative = match node.op {
        Operation::Builtin(Builtin::Method(FloatFn::Abs | FloatFn::Sqrt | FloatFn::Hypot)) => true,
        Operation::Builtin(Builtin::Method(FloatFn::Powi)) => arg(1)
            .and_then(|e| g.value(e).as_i64())
            .is_some_and(|n| n % 2 == 0),
        Operation::Builtin(Builtin::Method(FloatFn::Powf)) => {
            literal(1).is_some_and(|p| p.fract() == 0.0 && p % 2.0 == 0.0 && p != 0.0)
        }
        Operation::Builtin(Builtin::Method(FloatFn::MulAdd)) => {
            same(0, 1) && sign_of(2) == Some(true)
        }
        Operation::Builtin(Builtin::Method(FloatFn::Max)) => {
            sign_of(0) == Some(true) || sign_of(1) == Some(true)
        }
        Operation::Builtin(Builtin::Method(FloatFn::Min)) => {
            sign_of(0) == Some(true) && sign_of(1) == Some(true)
        }
        Operation::Builtin(Builtin::Binary(BinOp::Mul)) => {
            same(0, 1)
                || (literal(0).is_some_and(|c| c > 0.0) && sign_of(1) == Some(true))
                || (literal(1).is_some_and(|c| c > 0.0) && sign_of(0) == Some(true))
        }
        Operation::Builtin(Builtin::Binary(BinOp::Add)) => {
            sign_of(0) == Some(true) && sign_of(1) == Some(true)
        }
        _ => false,
    };
    nonnegative.then_some(!negated)
}
