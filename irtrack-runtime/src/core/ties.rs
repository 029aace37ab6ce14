//! What orderings of the same two values say at a tie. At a tie (`a == b`), `a < b` and `a > b`
//! are false and `a <= b`, `a >= b` true: each comparison says `a ≤ b` or `a ≥ b`, and with one
//! of the other kind met before, or with what a side is (`|x|` is never below 0), they say
//! `a == b`: the point is pinned. The gradient's sweep reads this on a trace
//! (`grad/sweep/pins.rs`) and derivative programs on a program (`diff/pins.rs`), each naming
//! its sides its own way.

use super::op::{BinOp, Builtin, CmpOp};
use std::collections::HashMap;
use std::hash::Hash;

/// Whether `op`, evaluated on operands `x` (floats where they are, `None` for others) with
/// result `y`, is at a point where it is not smooth: `|x|` at 0, `max`/`min` at a tie, `floor`
/// at an integer, `hypot` at the origin, `ln` at 0, `a % b` where it wraps, `atan2` on its cut.
/// A value made from one is at a corner of the function of the inputs, where its slope (a
/// convention) says nothing of which way it moves, so a comparison that finds it at a tie may
/// hold at that point alone (`x.abs() / 2.0 <= 0.0`, `x - x.floor() <= 0.0` at 3, `1.0 -
/// x.abs() >= 1.0`). A smooth operation at a stationary point (`x * x` or `x.cos()` at 0) is
/// none: its slope there is its derivative, which the reading of ties by slopes takes
/// (`x * x <= 0.0` is refused as stationary or by what `x * x` is, `x + y * y >= -1.0` holds on
/// a half-plane). `powi` and `powf` at 0 stay corners (a negative exponent is a pole).
pub(crate) fn at_kink(op: Builtin, x: &[Option<f64>], y: Option<f64>) -> bool {
    use super::op::FloatFn::*;
    let a = x.first().copied().flatten();
    let b = x.get(1).copied().flatten();
    let zero = |v: Option<f64>| v == Some(0.0);
    let integer = |v: Option<f64>| v.is_some_and(|v| v.is_finite() && v.fract() == 0.0);
    match op {
        Builtin::Method(f) => match f {
            Abs | Signum | Sqrt | Cbrt | Ln | Log2 | Log10 | Recip => zero(a),
            Ln1p => a == Some(-1.0),
            Log => zero(a) || zero(b),
            Floor | Ceil | Trunc | Fract => integer(a),
            Round | RoundTiesEven => a.is_some_and(|v| v.fract().abs() == 0.5),
            Max | Min => a.is_some() && a == b,
            Clamp => a.is_some() && (a == b || a == x.get(2).copied().flatten()),
            // `x.copysign(1.0)` is `|x|`.
            Copysign => zero(a) || zero(b),
            Powf => zero(a),
            Powi => zero(a),
            Hypot => zero(a) && zero(b),
            // At the origin, and on its cut (`y == 0` with `x < 0`), where it jumps from π
            // to -π.
            Atan2 => zero(a) && (zero(b) || b.is_some_and(|x| x < 0.0)),
            // The ends of their domains, past which they are NaN.
            Asin | Acos | Atanh => a.is_some_and(|v| v.abs() == 1.0),
            Acosh => a == Some(1.0),
            // Where they wrap: `a` a nonzero multiple of `b`.
            RemEuclid | DivEuclid => euclid_wraps(a, b),
            _ => false,
        },
        // The sign of a float, read at ±0 (`x.is_sign_negative()`, the sign bit): what it
        // decides is a corner (`if x.is_sign_negative() { -x } else { x }` is `|x|`).
        Builtin::Query(
            super::op::FloatQuery::IsSignNegative
            | super::op::FloatQuery::IsSignPositive
            | super::op::FloatQuery::ToBits,
        ) => zero(a),
        // A float cast to an integer jumps at each integer (`x as i64` truncates).
        Builtin::Cast(t) if !t.is_float() => a.is_some_and(|v| v.is_finite() && v.fract() == 0.0),
        Builtin::Binary(o) | Builtin::Assign(o) => match o {
            BinOp::Div => zero(b),
            BinOp::Rem => zero(y) && a.is_some_and(|v| v != 0.0 && v.is_finite()),
            _ => false,
        },
        _ => false,
    }
}

/// Whether `a.rem_euclid(b)` wraps at `(a, b)`: `a` a nonzero multiple of a nonzero `b`.
fn euclid_wraps(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) if a.is_finite() && b.is_finite() => {
            a != 0.0 && b != 0.0 && a.rem_euclid(b) == 0.0
        }
        _ => false,
    }
}

/// The operand whose sign a jump of `op` reads: the second of `copysign` (`1.0.copysign(r)`,
/// the sign of `r`), else the first.
pub(crate) fn jump_operand(op: Builtin) -> usize {
    usize::from(op == Builtin::Method(super::op::FloatFn::Copysign))
}

/// How far the operand `x` of `op` ([`jump_operand`]) is from the point where its sign flips
/// what `op` gives: `signum`, `copysign`'s sign, the sign queries and `to_bits` (its sign bit)
/// at 0. `None` for another operation,
/// or a non-finite operand. (0 is at the jump: what that says is the ties' reading,
/// [`jump_sides`].) The jumps at the integers (`floor`, `fract`, a cast to an integer) are not
/// read here: a table lookup or a sawtooth a sliver from a knot has the slope of its side,
/// which is its slope there (an audit of the first form, which read them, 2026-11-28).
pub(crate) fn jump_margin(op: Builtin, x: f64) -> Option<f64> {
    (x.is_finite() && jumps(op)).then_some(x.abs())
}

/// Whether `op` jumps at 0 by an operand's sign (see [`jump_margin`]; that operand is
/// [`jump_operand`]).
#[inline]
pub(crate) fn jumps(op: Builtin) -> bool {
    use super::op::FloatQuery::*;
    match op {
        Builtin::Method(f) => {
            matches!(f, super::op::FloatFn::Signum | super::op::FloatFn::Copysign)
        }
        Builtin::Query(q) => matches!(q, IsSignNegative | IsSignPositive | ToBits),
        _ => false,
    }
}

/// Whether `f` is constant between the points where it jumps (`floor`, `ceil`, `trunc`,
/// `round`, `signum`): away from them (at them it is a corner, [`at_kink`]) its value does not
/// move with its operand.
pub(crate) fn constant_between_jumps(f: super::op::FloatFn) -> bool {
    use super::op::FloatFn::*;
    matches!(
        f,
        Floor | Ceil | Trunc | Round | RoundTiesEven | Signum | DivEuclid
    )
}

/// Where `op` jumps at its operands `x` (`floor` at an integer, `round` at a half, `signum`,
/// the sign queries and `to_bits` at ±0, a cast to an integer at a nonzero integer, `a % b`
/// where it wraps, `atan2` on its cut), or turns a corner by a sign (`copysign` of ±0): for
/// each operand that decides it, the side on which the value is the one it has here, as an
/// ordering of that operand against its value here, said at a tie (`floor(3.0)` is 3 on `[3,
/// 4)`: `AT_LEAST`). Between jumps these operations are constant (or smooth); at one, the
/// value is that of one side only, so what is computed from it holds on that side, as a branch
/// taken at a tie does (`p.floor() > -0.5` where `p = 0` holds only where `p >= 0`, which may
/// be the point alone). Empty where there is no jump (`trunc` and casts are continuous at 0).
pub(crate) fn jump_sides(op: Builtin, x: &[Option<f64>]) -> [Option<(usize, u8)>; 2] {
    use super::op::FloatFn::*;
    use super::op::FloatQuery::{IsSignNegative, IsSignPositive, ToBits};
    let at = |k: usize| x.get(k).copied().flatten().filter(|v| v.is_finite());
    let integer = |v: f64| v.fract() == 0.0;
    let away_from_zero = |v: f64| if v > 0.0 { AT_LEAST } else { AT_MOST };
    let by_sign = |v: f64| {
        if v.is_sign_negative() {
            AT_MOST
        } else {
            AT_LEAST
        }
    };
    let one = |s: Option<(usize, u8)>| [s, None];
    match op {
        Builtin::Method(f) => match f {
            Floor => one(at(0).filter(|&v| integer(v)).map(|_| (0, AT_LEAST))),
            Ceil => one(at(0).filter(|&v| integer(v)).map(|_| (0, AT_MOST))),
            Trunc | Fract => one(at(0)
                .filter(|&v| integer(v) && v != 0.0)
                .map(|v| (0, away_from_zero(v)))),
            Round => one(at(0)
                .filter(|v| v.fract().abs() == 0.5)
                .map(|v| (0, away_from_zero(v)))),
            RoundTiesEven => one(at(0).filter(|v| v.fract().abs() == 0.5).map(|v| {
                let up = v.round_ties_even() > v;
                (0, if up { AT_LEAST } else { AT_MOST })
            })),
            Signum => one(at(0).filter(|&v| v == 0.0).map(|v| (0, by_sign(v)))),
            // `|a|` with the sign of `b`: a corner at `a = ±0` (the side of `a`'s sign bit,
            // whose slope its rule takes), a jump at `b = ±0`.
            Copysign => [
                at(0).filter(|&v| v == 0.0).map(|v| (0, by_sign(v))),
                at(1).filter(|&v| v == 0.0).map(|v| (1, by_sign(v))),
            ],
            // `a - |b| floor(a / |b|)` (and its quotient): where `a` is a multiple `k |b|`,
            // k ≠ 0, the value holds where `a` grows, and where `|b|` shrinks for k > 0 (grows
            // for k < 0: `floor(a / |b|)` stays k as `a / |b|` moves towards 0 from below).
            RemEuclid | DivEuclid => match (at(0), at(1)) {
                (Some(a), Some(b)) if euclid_wraps(Some(a), Some(b)) => {
                    let shrinks = if b > 0.0 { AT_MOST } else { AT_LEAST };
                    [
                        Some((0, AT_LEAST)),
                        Some((1, if a > 0.0 { shrinks } else { flip(shrinks) })),
                    ]
                }
                _ => [None, None],
            },
            // On its cut (`y = ±0`, `x < 0`) it is ±π by the sign of `y`.
            Atan2 => one(at(0)
                .filter(|&y| y == 0.0 && at(1).is_some_and(|x| x < 0.0))
                .map(|y| (0, by_sign(y)))),
            _ => [None, None],
        },
        Builtin::Query(IsSignNegative | IsSignPositive | ToBits) => {
            one(at(0).filter(|&v| v == 0.0).map(|v| (0, by_sign(v))))
        }
        // An unsigned type takes every negative number to 0: no jump below 1.
        Builtin::Cast(t) if !t.is_float() => {
            use super::op::ScalarType::{Usize, U16, U32, U64, U8};
            let unsigned = matches!(t, U8 | U16 | U32 | U64 | Usize);
            one(at(0)
                .filter(|&v| integer(v) && v != 0.0 && !(unsigned && v < 0.0))
                .map(|v| (0, away_from_zero(v))))
        }
        // `a % b` is `a - trunc(a / b) b`: where it wraps (`a / b` a nonzero integer k), its
        // value holds where |a / b| ≥ |k|: `a` away from 0, `b` towards 0.
        Builtin::Binary(BinOp::Rem) | Builtin::Assign(BinOp::Rem) => match (at(0), at(1)) {
            (Some(a), Some(b)) if a != 0.0 && b != 0.0 && a % b == 0.0 => [
                Some((0, away_from_zero(a))),
                Some((1, if b > 0.0 { AT_MOST } else { AT_LEAST })),
            ],
            _ => [None, None],
        },
        _ => [None, None],
    }
}

/// Whether `op` is at a jump of its own ([`jump_sides`]).
pub(crate) fn at_jump(op: Builtin, x: &[Option<f64>]) -> bool {
    jump_sides(op, x).iter().any(Option::is_some)
}

/// Which operand `min`, `max` or `clamp` returns around the point, where that is one operand
/// unchanged (`x.min(1.0)` at 2 is `1.0`; `x.clamp(lo, hi)` inside its bounds is `x`): `None`
/// at a tie or a bound, or for another operation. `x` are the operands' values, `y` the result.
pub(crate) fn selected_operand(
    f: super::op::FloatFn,
    x: &[Option<f64>],
    y: Option<f64>,
) -> Option<usize> {
    use super::op::FloatFn::*;
    let at = |k: usize| x.get(k).copied().flatten();
    match f {
        Min | Max => match (at(0), at(1)) {
            (Some(a), Some(b)) if a != b => Some(if Some(a) == y { 0 } else { 1 }),
            _ => None,
        },
        Clamp => match (at(0), at(1), at(2)) {
            (Some(v), Some(lo), Some(hi)) if lo < v && v < hi => Some(0),
            (Some(v), Some(lo), Some(_)) if v < lo => Some(1),
            (Some(v), Some(_), Some(hi)) if v > hi => Some(2),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a float class query looked at a value where its answer changes: `is_finite` and
/// `is_infinite` at ±∞; `is_normal` and `is_subnormal` at 0, a subnormal or the least normal
/// magnitude. `!x.is_normal() && !x.is_subnormal()` at 0 is `x == 0`; `is_finite()` at 0 holds
/// on a neighbourhood.
pub(crate) fn class_at_edge(q: super::op::FloatQuery, x: f64) -> bool {
    use super::op::FloatQuery::{IsFinite, IsInfinite, IsNormal, IsSubnormal};
    match q {
        IsFinite | IsInfinite => x.is_infinite(),
        IsNormal | IsSubnormal => {
            x == 0.0 || x.is_subnormal() || x.abs() == f64::MIN_POSITIVE || x.is_infinite()
        }
        _ => false,
    }
}

/// `a ≤ b` was said.
pub(crate) const AT_MOST: u8 = 1;
/// `a ≥ b` was said.
pub(crate) const AT_LEAST: u8 = 2;

/// `≤` for `≥` and back (both and neither stay).
pub(crate) fn flip(said: u8) -> u8 {
    ((said & AT_MOST) << 1) | ((said & AT_LEAST) >> 1)
}

/// What `a op b`, which gave `held`, says at a tie; `None` for what says nothing there (an
/// equality: looked at by itself).
pub(crate) fn says(op: CmpOp, held: bool) -> Option<u8> {
    match (op, held) {
        (CmpOp::Le, true) | (CmpOp::Gt, false) => Some(AT_MOST),
        (CmpOp::Ge, true) | (CmpOp::Lt, false) => Some(AT_LEAST),
        _ => None,
    }
}

/// A side of a comparison: a value (possibly negated on the way), or a constant.
pub(crate) trait Side: Copy + Eq + Hash + Ord {
    /// The same side negated (`-x` for `x`, `-c` for `c`).
    fn negate(self) -> Self;
}

/// For each pair of sides met at a tie, what was said of them.
#[derive(Clone, Debug)]
pub(crate) struct Ties<K>(HashMap<(K, K), u8>);

impl<K> Default for Ties<K> {
    fn default() -> Self {
        Ties(HashMap::new())
    }
}

impl<K: Side> Ties<K> {
    /// Notes that `a` and `b` were found `said` (`AT_MOST`, `AT_LEAST`, or both from what the
    /// sides are) at a tie, and returns whether all said so far makes them equal. The pair is
    /// kept in one of its four equivalent forms (`-x ≤ c` is `x ≥ -c`, `-x ≤ y` is `x ≥ -y`).
    pub(crate) fn note(&mut self, a: K, b: K, said: u8) -> bool {
        // `a ≤ b` is `-a ≥ -b`, `b ≥ a` and `-b ≤ -a`: the least of the four pairs names them
        // all (`-x ≤ y` and `x ≤ -y` are one pair, said both ways).
        let forms = [
            ((a, b), said),
            ((a.negate(), b.negate()), flip(said)),
            ((b, a), flip(said)),
            ((b.negate(), a.negate()), said),
        ];
        let Some(&(key, said)) = forms.iter().min_by(|x, y| x.0.cmp(&y.0)) else {
            return false;
        };
        let all = self.0.entry(key).or_insert(0);
        *all |= said;
        *all == AT_MOST | AT_LEAST
    }
}

impl CmpOp {
    /// Whether `a op b` holds.
    ///
    /// ```
    /// use irtrack::CmpOp;
    /// assert!(CmpOp::Le.holds(1.0, 1.0));
    /// assert!(!CmpOp::Eq.holds(f64::NAN, f64::NAN));
    /// ```
    pub fn holds(self, a: f64, b: f64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}

/// The weight of element `i` of input `k` (`i` = 0 for a scalar) in the direction the checks
/// for near ties and roundings move the inputs along (the gradient's forward checks, a
/// derivative program's near ties), in [1, 2): unequal weights, so that an expression of
/// degree 0 (`x / (x + y)`) does not have the tangent 0, which would read as cancelled, and
/// two inputs at a tie do not move together.
pub(crate) fn direction_weight(k: usize, i: usize) -> f64 {
    1.0 + (k as f64 * 0.618_033_988_749_895 + i as f64 * 0.414_213_562_373_095).fract()
}

#[cfg(test)]
mod tests {
    use super::{flip, Side, Ties, AT_LEAST, AT_MOST};

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    enum S {
        X(bool),
        C(i64),
    }

    impl Side for S {
        fn negate(self) -> S {
            match self {
                S::X(n) => S::X(!n),
                S::C(c) => S::C(-c),
            }
        }
    }

    #[test]
    fn flips() {
        assert_eq!(flip(AT_MOST), AT_LEAST);
        assert_eq!(flip(AT_LEAST), AT_MOST);
        assert_eq!(flip(AT_MOST | AT_LEAST), AT_MOST | AT_LEAST);
        assert_eq!(flip(0), 0);
    }

    #[test]
    fn two_orderings_of_a_sign_test_say_equal() {
        // `x > 0` false (x ≤ 0), then `0 < x`… false said the other way round (x ≤ 0 again).
        let mut t = Ties::default();
        assert!(!t.note(S::X(false), S::C(0), AT_MOST));
        assert!(!t.note(S::C(0), S::X(false), AT_LEAST));
        // `-x > 0` false is `x ≥ 0`.
        assert!(t.note(S::X(true), S::C(0), AT_MOST));
    }
}
