//! Zeros that are only limits, met by a derivative program's absorbing products.
//!
//! A derivative program multiplies every slope by its tangent with `times`, which gives 0
//! where one factor is 0 and the other infinite: a tangent that is exactly 0 contributes
//! nothing, as in the gradient's sweep. But a 0 made by a formula from nonzero numbers (the
//! slope `-1 / y²` of `1 / y` at `y = ∞`, a product that underflowed) is only a limit, and
//! `0 · ∞` is then any number: `1 / (1 / x)` at 0 has the slope 1, where `times` would say 0.
//! The gradient's sweep refuses such points (`GradError::Indeterminate`); a program run on new
//! inputs must too, or it returns a wrong derivative with no error.
//!
//! The same holds of an infinity made from such a zero: `sqrt(x * x)` at `10⁻²⁰⁰` has the
//! slope 1, but `x * x` is 0 in `f64` and the slope of `sqrt` there ∞, so a derivative program
//! would return ∞. (An infinity made from finite numbers is an overflow, and so is the
//! derivative of `exp(10²⁰⁰)`: that ∞ is returned.)
//!
//! An infinity made from finite nonzero numbers by an operation a differentiation rule made is
//! an overflow of the derivative (the slope -1/x² of `1 / x` at 10⁻¹⁶⁰): alone it is the
//! derivative past `f64`'s range, but a factor below 1 that meets it may bring the true
//! number back (`1 / (1 / x)` has the slope 1 there), and that is [`ReplayError::Overflow`].
//!
//! The check costs nothing on the normal path: `times` and `over` note on their rare way that
//! they absorbed something ([`crate::core::eval::note_absorbed`]), and only then, or when a
//! derivative program's result is infinite, does [`Program::limit_error`] run the program
//! again through the general evaluator, following which zeros are limits and what they made.

use super::{LimitMet, OpKind, Program, ReplayError, Src};
use crate::core::eval::ScalarForm;
use crate::core::op::{ArrayOp, Builtin};
use crate::core::value::Value;
use crate::view::operation::Operation;

impl Program {
    /// Whether a run that gave `out` must be checked for limits: an absorbing product took ∞
    /// or NaN into a zero (`absorbed`), or a derivative's value is infinite or NaN.
    pub(super) fn limits_to_check(&self, absorbed: bool, out: &Value) -> bool {
        absorbed || (self.stages.iter().any(|&s| s > 0) && out.any_float(f64::is_infinite))
    }

    /// The first place where, on `args`, a value that is only a limit makes the derivative
    /// indeterminate: an absorbing product meets ∞ with such a zero (a quotient 0), or the
    /// result is infinite because of one. As an error naming it and the operation that
    /// made the limit.
    pub(super) fn limit_error(&self, args: &[Value], at_infinity: bool) -> Option<ReplayError> {
        // For each operation: the one whose limit zero its value carries (a zero it passed
        // on, or an infinity made from it: `1 / 0`), if any. An infinity made from finite
        // numbers is an overflow, whose derivative overflows too: not a limit.
        let mut limit: Vec<Option<usize>> = vec![None; self.ops.len()];
        // For each operation: the one whose overflow its infinite value carries, if any: a
        // rule's operation that made ∞ from finite nonzero numbers (an ∞ at a 0 is a pole, an
        // ∞ made by the recorded function's own operations is that function's overflow).
        let mut overflow: Vec<Option<usize>> = vec![None; self.ops.len()];
        // The overflow whose ∞ met a factor that may have brought it back into range.
        let mut shrunk = None;
        let mut found = None;
        // For each operation: whether it depends on an input a differentiation was taken
        // with respect to, and the zero at this point only its value holds, if any (see
        // `point_zero`).
        let mut varying: Vec<bool> = vec![false; self.ops.len()];
        let mut point: Vec<Option<Zero>> = vec![None; self.ops.len()];
        // For each operation: the product that met ∞ with such a zero (and the zero) whose
        // value its own carries. An error only if it reaches the result: a selection may drop
        // it (the rule of `atan2` divides by the norm and takes 0 at the origin instead).
        let mut at_point: Vec<Option<(usize, Zero)>> = vec![None; self.ops.len()];
        let varies = |j: usize| self.varies.get(j).copied().unwrap_or(false);
        let out = self.evaluate(args, &mut |k, operands, result| {
            if found.is_some() || shrunk.is_some() {
                return;
            }
            let op = &self.ops[k];
            let from = |i: usize| match op.args.get(i) {
                Some(Src::Op(j)) => limit[*j],
                _ => None,
            };
            let kind = match &op.kind {
                OpKind::Run(o) => Some(o),
                _ => None,
            };
            let point_of = |i: usize| match op.args.get(i) {
                Some(Src::Op(j)) => point[*j],
                Some(Src::Input(j)) => {
                    (varies(*j) && operands[i].any_float(|x| x == 0.0)).then_some(Zero::Input(*j))
                }
                _ => None,
            };
            if let Some(form) = kind.and_then(absorbing) {
                if let Some(z) = (0..operands.len()).find_map(|i| {
                    let zero = from(i)?;
                    indeterminate(form, i, operands).then_some(zero)
                }) {
                    found = Some((k, z));
                    return;
                }
                if let Some(z) = (0..operands.len()).find_map(|i| {
                    let zero = point_of(i)?;
                    indeterminate(form, i, operands).then_some(zero)
                }) {
                    at_point[k] = Some((k, z));
                }
            }
            if at_point[k].is_none() {
                let carried = |i: usize| match op.args.get(i) {
                    Some(Src::Op(j)) => at_point[*j],
                    _ => None,
                };
                at_point[k] = match kind.and_then(|o| selected(o, operands)) {
                    Some(pick) => carried(pick),
                    None => (0..operands.len()).find_map(carried),
                };
            }
            varying[k] = op.args.iter().any(|a| match a {
                Src::Input(j) => varies(*j),
                Src::Op(j) => varying[*j],
                Src::Const(_) => false,
            });
            if varying[k] {
                point[k] =
                    point_zero(kind, &op.args, operands, result, point_of).map(|z| match z {
                        Some(z) => z,
                        None => Zero::Op(k),
                    });
            }
            let carried = op.args.iter().enumerate().find_map(|(i, a)| match a {
                Src::Op(j) => overflow[*j].map(|o| (i, o)),
                _ => None,
            });
            if let Some((i, o)) = carried {
                // An overflow's ∞ stands for a finite number past the range: a product with a
                // factor below 1 or a quotient by one above may be any size, and anything
                // that turns ∞ into a finite value (`x / ∞`, `exp(-∞)`) any value, except a
                // product with an exact 0 (a zero tangent).
                let infinite = result.any_float(f64::is_infinite);
                if infinite && !shrinks(kind, i, operands) {
                    overflow[k] = Some(o);
                } else if infinite || !finite_is_right(kind, i, operands) {
                    shrunk = Some(o);
                    return;
                }
            } else if op.derived
                && result.any_float(f64::is_infinite)
                && !operands
                    .iter()
                    .any(|v| v.any_float(|x| x == 0.0 || !x.is_finite()))
            {
                overflow[k] = Some(k);
            }
            if !result.any_float(|y| y == 0.0 || y.is_infinite()) {
                // A sum that absorbed a varying nonzero addend (`x + 1.0` is 1 at 1e-20)
                // holds it only as a limit: a zero made from it by cancellation is no exact 0.
                // The recorded function's own sums (a rule's, `b - 1` in `powf`'s slope, are
                // no computation of the user's).
                if varying[k]
                    && !op.derived
                    && absorbed(kind, &op.args, operands, result, &varying, varies)
                {
                    limit[k] = Some(k);
                }
                return;
            }
            let carried = (0..operands.len()).find_map(from);
            limit[k] = carried.or_else(|| {
                (kind.is_some_and(formula) && unexplained_zero(&op.args, operands, result))
                    .then_some(k)
            });
        });
        if let (None, Some(o)) = (found, shrunk) {
            return Some(ReplayError::Overflow {
                at: self.ops[o].origin.clone(),
                operation: self.ops[o].kind.to_string(),
            });
        }
        // The run above gave the result too: an infinite one made from a limit zero, or a
        // zero that is a limit where the recorded function's value is infinite.
        if let (None, Src::Op(k), Ok(out)) = (found, &self.output, &out) {
            if out.any_float(f64::is_infinite) || at_infinity && out.any_float(|v| v == 0.0) {
                found = limit[*k].map(|z| (*k, z));
            }
        }
        let reached = match &self.output {
            Src::Op(k) => at_point[*k],
            _ => None,
        };
        if let (None, Some((k, z))) = (found, reached) {
            let op = &self.ops[k];
            let (limit, limit_operation) = match z {
                Zero::Op(z) => (self.ops[z].origin.clone(), self.ops[z].kind.to_string()),
                Zero::Input(j) => (
                    super::Origin {
                        node: crate::core::ids::NodeId::NONE,
                        function: self.name.clone(),
                        location: None,
                        position: 0,
                    },
                    format!("input {}", j + 1),
                ),
            };
            return Some(ReplayError::ZeroAtPoint(Box::new(LimitMet {
                at: op.origin.clone(),
                operation: op.kind.to_string(),
                limit,
                limit_operation,
            })));
        }
        let (k, z) = found?;
        let (op, made) = (&self.ops[k], &self.ops[z]);
        Some(ReplayError::Indeterminate(Box::new(LimitMet {
            at: op.origin.clone(),
            operation: op.kind.to_string(),
            limit: made.origin.clone(),
            limit_operation: made.kind.to_string(),
        })))
    }

    /// Whether a derivative program's float result `out` on `args` is 0 where the recorded
    /// function's value is infinite: that zero may be only a limit (the slope of `sqrt` at an
    /// overflowed `x * x`: `(x * x).sqrt()` at 10¹⁶⁰ has the slope 1, and the program gave 0; an
    /// audit, 2026-11-28), which [`limit_error`](Program::limit_error) then reads. The primal
    /// runs again only at such a zero.
    pub(super) fn zero_at_infinity(&self, args: &[Value], out: &Value) -> bool {
        let derivative = self.stages.iter().any(|&s| s > 0);
        if !derivative || out.by_value().as_f64() != Some(0.0) {
            return false;
        }
        let Some(primal) = &self.primal else {
            return false;
        };
        let n = primal.inputs.len().min(args.len());
        matches!(
            primal.call_general(&args[..n]),
            Ok(y) if y.by_value().as_f64().is_some_and(f64::is_infinite)
        )
    }

    /// [`ReplayError::NotANumber`] when a derivative's result `out` on `args` has a NaN that
    /// an operation of the derivative made from numbers, where neither the inputs nor the
    /// recorded function's value at them have one. A NaN born in an operation of the recorded
    /// function (`0.0 / 0.0` in its code) is the function's own.
    pub(super) fn nan_error(&self, args: &[Value], out: &Value) -> Option<ReplayError> {
        let derivative = self.stages.iter().any(|&s| s > 0);
        if !derivative
            || !out.any_float(f64::is_nan)
            || args.iter().any(|v| v.any_float(f64::is_nan))
        {
            return None;
        }
        let op = &self.ops[self.nan_born(args)?];
        if !op.derived {
            return None;
        }
        if let Some(primal) = &self.primal {
            let n = primal.inputs.len().min(args.len());
            match primal.call_general(&args[..n]) {
                Ok(v) if v.any_float(f64::is_nan) => return None,
                _ => {}
            }
        }
        Some(ReplayError::NotANumber {
            at: op.origin.clone(),
            operation: op.kind.to_string(),
        })
    }
}

/// A zero that holds at the inputs only: the operation or input that made it.
#[derive(Clone, Copy, Debug)]
enum Zero {
    Op(usize),
    Input(usize),
}

/// For an operation that depends on a differentiated input and whose `result` has a zero:
/// whether that zero holds at these inputs only (`Some`: carried from the zero `point_of` an
/// operand gives, or `Some(None)`: made here), or on a neighbourhood (`None`). A zero of a
/// piecewise-constant operation (`floor`, `signum`, a cast to an integer) is exact, as is a
/// product with a factor that is an exact zero (a constant 0, a zero direction) and a
/// selection of an exact zero; any other zero of a value that varies with the inputs (`2x` at
/// `x = 0`, `ln y` at `y = 1`, `x - 1` at `x = 1`) is 0 here only. Arrays are judged as a
/// whole: a zero element anywhere counts, which turns a wrong derivative into an error, never
/// the reverse.
fn point_zero(
    kind: Option<&Operation>,
    args: &[Src],
    operands: &[Value],
    result: &Value,
    point_of: impl Fn(usize) -> Option<Zero>,
) -> Option<Option<Zero>> {
    use crate::core::op::{BinOp, FloatFn};
    if !result.any_float(|y| y == 0.0) {
        return None;
    }
    let op = kind?;
    let flat = |f: FloatFn| {
        matches!(
            f,
            FloatFn::Floor
                | FloatFn::Ceil
                | FloatFn::Round
                | FloatFn::RoundTiesEven
                | FloatFn::Trunc
                | FloatFn::DivEuclid
                | FloatFn::Signum
        )
    };
    let exact_zero = |i: usize| {
        operands.get(i).is_some_and(|v| {
            v.float_elements()
                .is_some_and(|e| e.iter().all(|&x| x == 0.0))
        }) && point_of(i).is_none()
    };
    match op {
        Operation::Builtin(Builtin::Method(f)) if flat(*f) => return None,
        Operation::Array(ArrayOp::Map(f)) if flat(*f) => return None,
        Operation::Builtin(Builtin::Cast(t)) if !t.is_float() => return None,
        Operation::Builtin(Builtin::Compare(_) | Builtin::Query(_)) => return None,
        // `a.powf(∞)` is 0 for every |a| < 1, a neighbourhood of its zeros, when the ∞ is a
        // constant (`x.powf(1.0 / 0.0)`).
        Operation::Builtin(Builtin::Method(FloatFn::Powf))
            if matches!(args.get(1), Some(Src::Const(_)))
                && operands.get(1).and_then(Value::as_f64) == Some(f64::INFINITY) =>
        {
            return None
        }
        _ => {}
    }
    let product = matches!(
        op,
        Operation::Builtin(Builtin::Binary(BinOp::Mul) | Builtin::Assign(BinOp::Mul))
    ) || absorbing(op) == Some(ScalarForm::Times);
    let quotient = matches!(
        op,
        Operation::Builtin(Builtin::Binary(BinOp::Div) | Builtin::Assign(BinOp::Div))
    ) || absorbing(op) == Some(ScalarForm::Over);
    if (product && (exact_zero(0) || exact_zero(1))) || (quotient && exact_zero(0)) {
        return None;
    }
    if let Some(pick) = selected(op, operands) {
        return point_of(pick).map(Some);
    }
    if matches!(op, Operation::Registered(k) if crate::core::eval::is_exact_zero(k.id)) {
        return None;
    }
    if let Some(z) = (0..operands.len()).find_map(&point_of) {
        return Some(Some(z));
    }
    unexplained_zero(args, operands, result).then_some(None)
}

/// What an operation does to the size of a number it takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Size {
    /// Multiplies it (`times`, `*`).
    Times,
    /// Divides it, or by it (`over`, `/`).
    Over,
    /// Keeps it or passes it on: sums, negations, selections, copies, reads of elements,
    /// reshapes (a derivative program's structural operations), rounding, `abs`. Registered
    /// operations but `times` and `over` are counted here: in a derivative program they are
    /// its structural kernels (`select`, broadcasts, sums of elements) or a user's operation
    /// its rules call on a tangent, linear in it (`roll`); a nonlinear one that shrank an
    /// overflow's ∞ would go unrefused.
    Keeps,
    /// Any other function of it (`exp`, `powi`, a dot product).
    Changes,
}

fn size(kind: Option<&Operation>) -> Size {
    use crate::core::op::{BinOp, UnOp};
    let Some(op) = kind else {
        return Size::Changes;
    };
    match op {
        Operation::Builtin(Builtin::Binary(b) | Builtin::Assign(b)) => match b {
            BinOp::Mul => Size::Times,
            BinOp::Div => Size::Over,
            BinOp::Add | BinOp::Sub => Size::Keeps,
            _ => Size::Changes,
        },
        Operation::Builtin(
            Builtin::Unary(UnOp::Neg)
            | Builtin::Clone
            | Builtin::Index
            | Builtin::Field
            | Builtin::Bind
            | Builtin::Guard
            | Builtin::Deref,
        ) => Size::Keeps,
        // Functions that keep an overflow's size or choose between operands: on a number
        // past the range they give what they give on ∞ (`trunc`, `abs`, `max`, `signum`).
        Operation::Builtin(Builtin::Method(f)) => {
            use crate::core::op::FloatFn::*;
            match f {
                Abs | Floor | Ceil | Round | RoundTiesEven | Trunc | Signum | Max | Min
                | Copysign | Clamp | RemEuclid | DivEuclid => Size::Keeps,
                _ => Size::Changes,
            }
        }
        Operation::Builtin(_) => Size::Changes,
        Operation::Array(ArrayOp::Transpose | ArrayOp::Sum | ArrayOp::Copy) => Size::Keeps,
        Operation::Array(_) => Size::Changes,
        Operation::Registered(_) => match absorbing(op) {
            Some(ScalarForm::Times) => Size::Times,
            Some(_) => Size::Over,
            None => Size::Keeps,
        },
    }
}

/// Whether operand `i`, an overflow's ∞, meets what may bring it back into range: a
/// product's other factor below 1 in magnitude, a quotient's denominator above 1, any other
/// function that changes a number's size.
fn shrinks(kind: Option<&Operation>, i: usize, operands: &[Value]) -> bool {
    let other = |j: usize, p: fn(f64) -> bool| operands.get(j).is_some_and(|v| v.any_float(p));
    match size(kind) {
        Size::Times => other(1 - i.min(1), |x| x.abs() < 1.0),
        Size::Over => i != 0 || other(1, |x| x.abs() > 1.0),
        Size::Keeps => false,
        Size::Changes => true,
    }
}

/// Whether a finite result made from operand `i`, an overflow's ∞, is right: a product with
/// an exact 0 (a zero tangent), or a structural operation (a selection that took the other
/// side, `zeros_like`).
fn finite_is_right(kind: Option<&Operation>, i: usize, operands: &[Value]) -> bool {
    match size(kind) {
        Size::Times => operands
            .get(1 - i.min(1))
            .is_some_and(|v| !v.any_float(|x| x != 0.0)),
        Size::Keeps => true,
        Size::Over | Size::Changes => false,
    }
}

/// The operand a derivative program's `select` returned (1 or 2), if `op` is one.
fn selected(op: &Operation, operands: &[Value]) -> Option<usize> {
    let Operation::Registered(k) = op else {
        return None;
    };
    if crate::core::eval::lookup(k.id)?.scalar != Some(ScalarForm::Select) {
        return None;
    }
    let c = *operands.first()?.by_value().downcast_ref::<bool>()?;
    Some(if c { 1 } else { 2 })
}

/// The form of a derivative program's absorbing product or quotient.
fn absorbing(op: &Operation) -> Option<ScalarForm> {
    match op {
        Operation::Registered(k) => crate::core::eval::lookup(k.id)?
            .scalar
            .filter(|f| matches!(f, ScalarForm::Times | ScalarForm::Over)),
        _ => None,
    }
}

/// Whether operand `i`, holding a zero that is only a limit, meets what makes `0 · ∞` of it:
/// an infinity or a NaN in a product, a zero or NaN denominator under it as a quotient's
/// numerator. (An exact zero absorbs a NaN, as the gradient's sweep does: the side of `max`
/// not taken; a limit zero is no zero, and its product with NaN is none.)
fn indeterminate(form: ScalarForm, i: usize, operands: &[Value]) -> bool {
    let other = |j: usize, bad: fn(f64) -> bool| operands.get(j).is_some_and(|v| v.any_float(bad));
    if !operands.get(i).is_some_and(|v| v.any_float(|x| x == 0.0)) {
        return false;
    }
    // A NaN factor too: `0 · NaN` is 0 only for an exact zero (`cos x · exp x` at -∞, whose
    // `exp` is 0 as a limit, gave the derivative 0 of a function that is NaN there).
    match (form, i) {
        (ScalarForm::Times, 0) => other(1, |x| x.is_infinite() || x.is_nan()),
        (ScalarForm::Times, _) => other(0, |x| x.is_infinite() || x.is_nan()),
        (ScalarForm::Over, 0) => other(1, |x| x == 0.0 || x.is_nan()),
        _ => false,
    }
}

/// Whether a scalar sum or difference gave one operand back exactly while the other, which
/// varies with the differentiated inputs, is a nonzero number: that one was lost in rounding.
fn absorbed(
    kind: Option<&Operation>,
    args: &[Src],
    operands: &[Value],
    result: &Value,
    varying: &[bool],
    varies: impl Fn(usize) -> bool,
) -> bool {
    let (Some(y), [a, b]) = (result.as_f64(), operands) else {
        return false;
    };
    let (Some(a), Some(b)) = (a.as_f64(), b.as_f64()) else {
        return false;
    };
    let builtin = match kind {
        Some(Operation::Builtin(b)) => Some(*b),
        _ => None,
    };
    crate::core::rounding::sum_absorbed(builtin, [a, b], y, |i| match args.get(i) {
        Some(Src::Input(j)) => varies(*j),
        Some(Src::Op(j)) => varying.get(*j).copied().unwrap_or(false),
        _ => false,
    })
}

/// An operation whose value is 0 at nonzero operands only as a limit
/// ([`Builtin::zero_is_a_limit`], elementwise for arrays; `times` and `over` are products).
fn formula(op: &Operation) -> bool {
    match op {
        Operation::Builtin(b) => b.zero_is_a_limit(),
        Operation::Array(a) => match a {
            ArrayOp::Powi => true,
            ArrayOp::Map(f) => Builtin::Method(*f).zero_is_a_limit(),
            ArrayOp::Dot | ArrayOp::Transpose | ArrayOp::Sum | ArrayOp::Copy => false,
        },
        Operation::Registered(_) => absorbing(op).is_some(),
    }
}

/// Whether `result` has a zero where no operand is 0 or a constant ∞ (`x.powf(∞)` at
/// `|x| < 1` is 0 on a neighbourhood: its zero is exact; `1 / y` at a computed `y = ∞` is
/// not). An operand explains an element when it is a scalar or has the result's size (the
/// element at the same place); anything else (a broadcast, a matrix product) explains
/// nothing: a zero taken for a limit only turns a wrong derivative into an error.
fn unexplained_zero(args: &[Src], operands: &[Value], result: &Value) -> bool {
    let Some(r) = result.float_elements() else {
        return false;
    };
    let elements: Vec<(bool, Vec<f64>)> = operands
        .iter()
        .zip(args)
        .filter_map(|(v, a)| Some((matches!(a, Src::Const(_)), v.float_elements()?)))
        .collect();
    let explains = |constant: bool, x: f64| x == 0.0 || (constant && x.is_infinite());
    r.iter().enumerate().any(|(i, &y)| {
        y == 0.0
            && !elements.iter().any(|(c, e)| match e.len() {
                1 => explains(*c, e[0]),
                n => n == r.len() && explains(*c, e[i]),
            })
    })
}
