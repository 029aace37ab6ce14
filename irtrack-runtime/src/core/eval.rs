//! Running an operation again on new operand values: the built-in operations (arithmetic,
//! comparisons and casts on scalars, the float methods, vector literals) and the functions
//! registered as operations ([`register_operation`]). What later layers replay, update and
//! differentiate stands on this.
//!
//! Evaluation follows Rust's semantics for the operand types, except where Rust would panic or
//! wrap silently: integer overflow and division by zero are [`EvalError`]s (a debug build
//! panics there, a release build wraps; a replayed value must be right or an error).

use super::ids::CalleeKey;
use super::op::{BinOp, Builtin, CmpOp, FloatFn, FloatQuery, ScalarType, UnOp};
use super::value::{Form, Repr, Scalar, Snapshot, Value};
use std::any::TypeId;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};

/// Why an operation could not be run on the values given.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum EvalError {
    /// The operation takes another number of operands.
    Arity {
        /// How many it takes.
        expected: usize,
        /// How many it was given.
        got: usize,
    },
    /// An operand is not of a type the operation takes.
    Type {
        /// The operand, from 0.
        operand: usize,
        /// What it must be.
        expected: String,
        /// What it is.
        got: String,
    },
    /// Integer arithmetic overflowed, or divided by zero.
    Overflow(String),
    /// The operation is not defined there (`clamp` with `lo > hi`, an exponent out of range).
    Domain(String),
    /// A registered operation panicked.
    Panicked(String),
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Arity { expected, got } => {
                write!(f, "takes {expected} operands, given {got}")
            }
            EvalError::Type {
                operand,
                expected,
                got,
            } => write!(f, "operand {} must be {expected}, not `{got}`", operand + 1),
            EvalError::Overflow(m) => write!(f, "{m}"),
            EvalError::Domain(m) => write!(f, "not defined: {m}"),
            EvalError::Panicked(m) => write!(f, "the operation panicked: {m}"),
        }
    }
}

impl std::error::Error for EvalError {}

fn scalar(args: &[Value], i: usize) -> Result<Scalar, EvalError> {
    match args.get(i).map(|v| &v.0) {
        Some(Repr::Scalar(s, _)) => Ok(*s),
        Some(_) => Err(EvalError::Type {
            operand: i,
            expected: "a number, bool or char".into(),
            got: args[i].type_name().to_string(),
        }),
        None => Err(EvalError::Arity {
            expected: i + 1,
            got: args.len(),
        }),
    }
}

fn arity(args: &[Value], n: usize) -> Result<(), EvalError> {
    if args.len() == n {
        Ok(())
    } else {
        Err(EvalError::Arity {
            expected: n,
            got: args.len(),
        })
    }
}

fn value(s: Scalar) -> Value {
    Value(Repr::Scalar(s, Form::Val))
}

fn mismatch(a: Scalar, b: Scalar) -> EvalError {
    EvalError::Type {
        operand: 1,
        expected: format!("of the first operand's type ({})", type_of(a)),
        got: type_of(b),
    }
}

fn type_of(s: Scalar) -> String {
    value(s).type_name().to_string()
}

/// A representation query of a float (`is_nan`, `to_bits`), or `from_bits` of an integer of
/// the float's width.
fn query(q: FloatQuery, x: Scalar) -> Result<Value, EvalError> {
    let want = |expected: &str| EvalError::Type {
        operand: 0,
        expected: expected.into(),
        got: type_of(x),
    };
    macro_rules! test {
        ($x:expr) => {
            Scalar::Bool(match q {
                FloatQuery::IsNan => $x.is_nan(),
                FloatQuery::IsInfinite => $x.is_infinite(),
                FloatQuery::IsFinite => $x.is_finite(),
                FloatQuery::IsNormal => $x.is_normal(),
                FloatQuery::IsSubnormal => $x.is_subnormal(),
                FloatQuery::IsSignPositive => $x.is_sign_positive(),
                FloatQuery::IsSignNegative => $x.is_sign_negative(),
                FloatQuery::ToBits | FloatQuery::FromBits => unreachable!("not a test"),
            })
        };
    }
    Ok(value(match (q, x) {
        (FloatQuery::FromBits, Scalar::U64(u)) => Scalar::F64(f64::from_bits(u)),
        (FloatQuery::FromBits, Scalar::U32(u)) => Scalar::F32(f32::from_bits(u)),
        (FloatQuery::FromBits, _) => return Err(want("a `u64` or `u32`")),
        (FloatQuery::ToBits, Scalar::F64(x)) => Scalar::U64(x.to_bits()),
        (FloatQuery::ToBits, Scalar::F32(x)) => Scalar::U32(x.to_bits()),
        (_, Scalar::F64(x)) => test!(x),
        (_, Scalar::F32(x)) => test!(x),
        _ => return Err(want("an `f64` or `f32`")),
    }))
}

/// A literal's text read as a value of the scalar type `ty` (`2` as an `f64` where it is added
/// to one), or `None` when it is not a literal of that type.
pub fn literal_as(text: &str, ty: ScalarType) -> Option<Value> {
    use super::literal::{as_f32, as_f64, as_i128};
    let t = text.trim();
    let int = || as_i128(t);
    Some(value(match ty {
        ScalarType::F64 => Scalar::F64(as_f64(t)?),
        ScalarType::F32 => Scalar::F32(as_f32(t)?),
        ScalarType::Bool => Scalar::Bool(t.parse().ok()?),
        ScalarType::Char => match super::literal::value(t).downcast_ref::<char>() {
            Some(&c) => Scalar::Char(c),
            None => return None,
        },
        ScalarType::I8 => Scalar::I8(int()?.try_into().ok()?),
        ScalarType::I16 => Scalar::I16(int()?.try_into().ok()?),
        ScalarType::I32 => Scalar::I32(int()?.try_into().ok()?),
        ScalarType::I64 => Scalar::I64(int()?.try_into().ok()?),
        ScalarType::Isize => Scalar::Isize(int()?.try_into().ok()?),
        ScalarType::U8 => Scalar::U8(int()?.try_into().ok()?),
        ScalarType::U16 => Scalar::U16(int()?.try_into().ok()?),
        ScalarType::U32 => Scalar::U32(int()?.try_into().ok()?),
        ScalarType::U64 => Scalar::U64(int()?.try_into().ok()?),
        ScalarType::Usize => Scalar::Usize(int()?.try_into().ok()?),
    }))
}

macro_rules! int_binary {
    ($op:expr, $a:expr, $b:expr, $($variant:ident),*) => {
        match ($a, $b) {
            $((Scalar::$variant(a), Scalar::$variant(b)) => {
                let r = match $op {
                    BinOp::Add => a.checked_add(b),
                    BinOp::Sub => a.checked_sub(b),
                    BinOp::Mul => a.checked_mul(b),
                    BinOp::Div => a.checked_div(b),
                    BinOp::Rem => a.checked_rem(b),
                    BinOp::BitAnd => Some(a & b),
                    BinOp::BitOr => Some(a | b),
                    BinOp::BitXor => Some(a ^ b),
                    BinOp::Shl => u32::try_from(b).ok().and_then(|s| a.checked_shl(s)),
                    BinOp::Shr => u32::try_from(b).ok().and_then(|s| a.checked_shr(s)),
                };
                return r.map(|r| value(Scalar::$variant(r))).ok_or_else(|| {
                    EvalError::Overflow(format!("{a:?} {} {b:?} overflows or divides by zero", $op.symbol()))
                });
            })*
            _ => {}
        }
    };
}

fn binary(op: BinOp, a: Scalar, b: Scalar) -> Result<Value, EvalError> {
    // A shift's right operand may be any integer type.
    if matches!(op, BinOp::Shl | BinOp::Shr) {
        if let Some(n) = value(b).as_i64() {
            let b = match a {
                Scalar::I8(_) => Scalar::I8(i8::try_from(n).unwrap_or(i8::MAX)),
                Scalar::I16(_) => Scalar::I16(i16::try_from(n).unwrap_or(i16::MAX)),
                Scalar::I32(_) => Scalar::I32(i32::try_from(n).unwrap_or(i32::MAX)),
                Scalar::I64(_) => Scalar::I64(n),
                Scalar::Isize(_) => Scalar::Isize(isize::try_from(n).unwrap_or(isize::MAX)),
                Scalar::U8(_) => Scalar::U8(u8::try_from(n).unwrap_or(u8::MAX)),
                Scalar::U16(_) => Scalar::U16(u16::try_from(n).unwrap_or(u16::MAX)),
                Scalar::U32(_) => Scalar::U32(u32::try_from(n).unwrap_or(u32::MAX)),
                Scalar::U64(_) => Scalar::U64(u64::try_from(n).unwrap_or(u64::MAX)),
                Scalar::Usize(_) => Scalar::Usize(usize::try_from(n).unwrap_or(usize::MAX)),
                other => other,
            };
            int_binary!(op, a, b, I8, I16, I32, I64, Isize, U8, U16, U32, U64, Usize);
        }
    }
    int_binary!(op, a, b, I8, I16, I32, I64, Isize, U8, U16, U32, U64, Usize);
    macro_rules! float_binary {
        ($($variant:ident),*) => {
            match (a, b) {
                $((Scalar::$variant(a), Scalar::$variant(b)) => {
                    let r = match op {
                        BinOp::Add => a + b,
                        BinOp::Sub => a - b,
                        BinOp::Mul => a * b,
                        BinOp::Div => a / b,
                        BinOp::Rem => a % b,
                        _ => return Err(EvalError::Type {
                            operand: 0,
                            expected: "an integer or bool for a bitwise operator".into(),
                            got: type_of(Scalar::$variant(a)).into(),
                        }),
                    };
                    return Ok(value(Scalar::$variant(r)));
                })*
                _ => {}
            }
        };
    }
    float_binary!(F32, F64);
    if let (Scalar::Bool(a), Scalar::Bool(b)) = (a, b) {
        return match op {
            BinOp::BitAnd => Ok(value(Scalar::Bool(a & b))),
            BinOp::BitOr => Ok(value(Scalar::Bool(a | b))),
            BinOp::BitXor => Ok(value(Scalar::Bool(a ^ b))),
            _ => Err(EvalError::Type {
                operand: 0,
                expected: "a number for an arithmetic operator".into(),
                got: "bool".into(),
            }),
        };
    }
    Err(mismatch(a, b))
}

fn compare(op: CmpOp, a: Scalar, b: Scalar) -> Result<Value, EvalError> {
    let ord = match (a, b) {
        (Scalar::F32(x), Scalar::F32(y)) => x.partial_cmp(&y),
        (Scalar::F64(x), Scalar::F64(y)) => x.partial_cmp(&y),
        (Scalar::Bool(x), Scalar::Bool(y)) => x.partial_cmp(&y),
        (Scalar::Char(x), Scalar::Char(y)) => x.partial_cmp(&y),
        (Scalar::Unit, Scalar::Unit) => Some(std::cmp::Ordering::Equal),
        (x, y) if std::mem::discriminant(&x) == std::mem::discriminant(&y) => {
            let (x, y) = (value(x), value(y));
            match (x.as_i64(), y.as_i64()) {
                (Some(x), Some(y)) => x.partial_cmp(&y),
                // u64/usize above i64::MAX.
                _ => match (&x.0, &y.0) {
                    (Repr::Scalar(Scalar::U64(x), _), Repr::Scalar(Scalar::U64(y), _)) => {
                        x.partial_cmp(y)
                    }
                    (Repr::Scalar(Scalar::Usize(x), _), Repr::Scalar(Scalar::Usize(y), _)) => {
                        x.partial_cmp(y)
                    }
                    _ => return Err(mismatch(a, b)),
                },
            }
        }
        _ => return Err(mismatch(a, b)),
    };
    use std::cmp::Ordering::*;
    let r = match op {
        CmpOp::Eq => ord == Some(Equal),
        CmpOp::Ne => ord != Some(Equal),
        CmpOp::Lt => ord == Some(Less),
        CmpOp::Le => matches!(ord, Some(Less | Equal)),
        CmpOp::Gt => ord == Some(Greater),
        CmpOp::Ge => matches!(ord, Some(Greater | Equal)),
    };
    Ok(value(Scalar::Bool(r)))
}

fn unary(op: UnOp, a: Scalar) -> Result<Value, EvalError> {
    macro_rules! neg {
        ($($variant:ident),*) => {
            match a {
                $(Scalar::$variant(x) => return x.checked_neg().map(|r| value(Scalar::$variant(r)))
                    .ok_or_else(|| EvalError::Overflow(format!("-{x:?} overflows"))),)*
                _ => {}
            }
        };
    }
    match op {
        UnOp::Neg => {
            neg!(I8, I16, I32, I64, Isize);
            match a {
                Scalar::F32(x) => Ok(value(Scalar::F32(-x))),
                Scalar::F64(x) => Ok(value(Scalar::F64(-x))),
                other => Err(EvalError::Type {
                    operand: 0,
                    expected: "a signed number".into(),
                    got: type_of(other),
                }),
            }
        }
        UnOp::Not => Ok(value(match a {
            Scalar::Bool(x) => Scalar::Bool(!x),
            Scalar::I8(x) => Scalar::I8(!x),
            Scalar::I16(x) => Scalar::I16(!x),
            Scalar::I32(x) => Scalar::I32(!x),
            Scalar::I64(x) => Scalar::I64(!x),
            Scalar::Isize(x) => Scalar::Isize(!x),
            Scalar::U8(x) => Scalar::U8(!x),
            Scalar::U16(x) => Scalar::U16(!x),
            Scalar::U32(x) => Scalar::U32(!x),
            Scalar::U64(x) => Scalar::U64(!x),
            Scalar::Usize(x) => Scalar::Usize(!x),
            other => {
                return Err(EvalError::Type {
                    operand: 0,
                    expected: "a bool or an integer".into(),
                    got: type_of(other),
                })
            }
        })),
    }
}

/// `x as T`, with Rust's semantics for every pair of scalar types `as` allows.
fn cast(a: Scalar, to: ScalarType) -> Result<Value, EvalError> {
    macro_rules! numeric {
        ($x:expr) => {{
            let x = $x;
            Ok(value(match to {
                ScalarType::I8 => Scalar::I8(x as i8),
                ScalarType::I16 => Scalar::I16(x as i16),
                ScalarType::I32 => Scalar::I32(x as i32),
                ScalarType::I64 => Scalar::I64(x as i64),
                ScalarType::Isize => Scalar::Isize(x as isize),
                ScalarType::U8 => Scalar::U8(x as u8),
                ScalarType::U16 => Scalar::U16(x as u16),
                ScalarType::U32 => Scalar::U32(x as u32),
                ScalarType::U64 => Scalar::U64(x as u64),
                ScalarType::Usize => Scalar::Usize(x as usize),
                ScalarType::F32 => Scalar::F32(x as f32),
                ScalarType::F64 => Scalar::F64(x as f64),
                ScalarType::Bool | ScalarType::Char => {
                    return Err(EvalError::Type {
                        operand: 0,
                        expected: format!("a value `as {}` allows", to.name()),
                        got: type_of(a),
                    })
                }
            }))
        }};
    }
    match a {
        Scalar::I8(x) => numeric!(x),
        Scalar::I16(x) => numeric!(x),
        Scalar::I32(x) => numeric!(x),
        Scalar::I64(x) => numeric!(x),
        Scalar::Isize(x) => numeric!(x),
        Scalar::U8(x) if to == ScalarType::Char => Ok(value(Scalar::Char(x as char))),
        Scalar::U8(x) => numeric!(x),
        Scalar::U16(x) => numeric!(x),
        Scalar::U32(x) => numeric!(x),
        Scalar::U64(x) => numeric!(x),
        Scalar::Usize(x) => numeric!(x),
        Scalar::F32(x) => numeric!(x),
        Scalar::F64(x) => numeric!(x),
        Scalar::Bool(x) if to == ScalarType::Bool => Ok(value(Scalar::Bool(x))),
        Scalar::Bool(x) => match to {
            ScalarType::F32 | ScalarType::F64 => Err(EvalError::Type {
                operand: 0,
                expected: "an integer for `as` a float".into(),
                got: "bool".into(),
            }),
            _ => numeric!(x as u8),
        },
        Scalar::Char(x) if to == ScalarType::Char => Ok(value(Scalar::Char(x))),
        Scalar::Char(x) => match to {
            ScalarType::F32 | ScalarType::F64 | ScalarType::Bool => Err(EvalError::Type {
                operand: 0,
                expected: "a char `as` an integer".into(),
                got: "char".into(),
            }),
            _ => numeric!(x as u32),
        },
        Scalar::Unit => Err(EvalError::Type {
            operand: 0,
            expected: "a scalar".into(),
            got: "()".into(),
        }),
    }
}

/// Runs the float method `f` on float operands (the receiver first; `powi`'s exponent an
/// integer).
pub fn eval_float(f: FloatFn, args: &[Value]) -> Result<Value, EvalError> {
    arity(args, f.arity())?;
    let int = if f == FloatFn::Powi {
        let n = value(scalar(args, 1)?)
            .as_i64()
            .ok_or_else(|| EvalError::Type {
                operand: 1,
                expected: "an integer exponent".into(),
                got: args[1].type_name().to_string(),
            })?;
        Some(n)
    } else {
        None
    };
    // On the stack: an incremental update evaluates one of these per recomputed node, where a
    // heap vector cost as much as the operation (no float function takes more than 3 operands,
    // and `arity` above checked the count).
    let floats = (0..args.len()).filter(|&i| !(f == FloatFn::Powi && i == 1));
    let domain = || EvalError::Domain(format!("`{}` of {args:?}", f.name()));
    match scalar(args, 0)? {
        Scalar::F32(_) => {
            let (mut xs, mut k) = ([0.0f32; 3], 0);
            for i in floats {
                xs[k] = match scalar(args, i)? {
                    Scalar::F32(x) => x,
                    other => return Err(mismatch(Scalar::F32(0.0), other)),
                };
                k += 1;
            }
            f.eval_f32(&xs[..k], int)
                .map(|r| value(Scalar::F32(r)))
                .ok_or_else(domain)
        }
        Scalar::F64(_) => {
            let (mut xs, mut k) = ([0.0f64; 3], 0);
            for i in floats {
                xs[k] = match scalar(args, i)? {
                    Scalar::F64(x) => x,
                    other => return Err(mismatch(Scalar::F64(0.0), other)),
                };
                k += 1;
            }
            f.eval_f64(&xs[..k], int)
                .map(|r| value(Scalar::F64(r)))
                .ok_or_else(domain)
        }
        other => match int_method(f, other, args) {
            Some(r) => r,
            None => Err(EvalError::Type {
                operand: 0,
                expected: "an f32 or f64".into(),
                got: type_of(other),
            }),
        },
    }
}

/// The integer methods named as float methods, on an integer receiver `x` with operands of its
/// type: `abs`, `signum` (signed types), `max`, `min`, `clamp`, `rem_euclid`, `div_euclid`,
/// as the integer types compute them, where Rust would panic (an overflow in debug builds,
/// `clamp` with `min > max`, a remainder by 0) an error; `None` for another method, whose
/// float name this receiver has not (`sqrt` of an `i32` is no method).
fn int_method(f: FloatFn, x: Scalar, args: &[Value]) -> Option<Result<Value, EvalError>> {
    use FloatFn::{Abs, Clamp, DivEuclid, Max, Min, RemEuclid, Signum};
    if !matches!(f, Abs | Signum | Max | Min | Clamp | RemEuclid | DivEuclid) {
        return None;
    }
    let fails = || {
        EvalError::Overflow(format!(
            "`{}` of {args:?} overflows or divides by 0",
            f.name()
        ))
    };
    macro_rules! of {
        ($variant:ident, $abs:expr, $signum:expr) => {{
            let Scalar::$variant(a) = x else {
                return None;
            };
            let operand = |i: usize| -> Result<_, EvalError> {
                match scalar(args, i)? {
                    Scalar::$variant(b) => Ok(b),
                    other => Err(mismatch(x, other)),
                }
            };
            let r = (|| -> Result<Option<_>, EvalError> {
                Ok(match f {
                    Abs => $abs(a),
                    Signum => $signum(a),
                    Max => Some(a.max(operand(1)?)),
                    Min => Some(a.min(operand(1)?)),
                    Clamp => {
                        let (lo, hi) = (operand(1)?, operand(2)?);
                        (lo <= hi).then(|| a.clamp(lo, hi))
                    }
                    RemEuclid => a.checked_rem_euclid(operand(1)?),
                    _ => a.checked_div_euclid(operand(1)?),
                })
            })();
            Some(r.and_then(|r| r.map(|r| value(Scalar::$variant(r))).ok_or_else(fails)))
        }};
    }
    match x {
        Scalar::I8(_) => of!(I8, |a: i8| a.checked_abs(), |a: i8| Some(a.signum())),
        Scalar::I16(_) => of!(I16, |a: i16| a.checked_abs(), |a: i16| Some(a.signum())),
        Scalar::I32(_) => of!(I32, |a: i32| a.checked_abs(), |a: i32| Some(a.signum())),
        Scalar::I64(_) => of!(I64, |a: i64| a.checked_abs(), |a: i64| Some(a.signum())),
        Scalar::Isize(_) => of!(Isize, |a: isize| a.checked_abs(), |a: isize| Some(
            a.signum()
        )),
        // No `abs` or `signum` on unsigned types: a call of one was no such method.
        Scalar::U8(_) => of!(U8, |_: u8| None, |_: u8| None),
        Scalar::U16(_) => of!(U16, |_: u16| None, |_: u16| None),
        Scalar::U32(_) => of!(U32, |_: u32| None, |_: u32| None),
        Scalar::U64(_) => of!(U64, |_: u64| None, |_: u64| None),
        Scalar::Usize(_) => of!(Usize, |_: usize| None, |_: usize| None),
        _ => None,
    }
}

/// Runs the built-in operation `op` on `args`.
///
/// ```
/// use irtrack::{core::eval::eval_builtin, BinOp, Builtin, Value};
///
/// let r = eval_builtin(Builtin::Binary(BinOp::Mul), &[Value::snapshot(3.0f64), Value::snapshot(2.0f64)]);
/// assert_eq!(r.unwrap().downcast_ref::<f64>(), Some(&6.0));
/// let e = eval_builtin(Builtin::Binary(BinOp::Add), &[Value::snapshot(i32::MAX), Value::snapshot(1i32)]);
/// assert!(e.is_err());
/// ```
pub fn eval_builtin(op: Builtin, args: &[Value]) -> Result<Value, EvalError> {
    match op {
        Builtin::Binary(b) | Builtin::Assign(b) => {
            arity(args, 2)?;
            #[cfg(feature = "ndarray")]
            if !(args[0].is_scalar() && args[1].is_scalar()) {
                return super::arrays::eval(super::arrays::ArrayEval::Binary(b), args);
            }
            binary(b, scalar(args, 0)?, scalar(args, 1)?)
        }
        Builtin::Compare(c) => {
            arity(args, 2)?;
            compare(c, scalar(args, 0)?, scalar(args, 1)?)
        }
        Builtin::Unary(u) => {
            arity(args, 1)?;
            #[cfg(feature = "ndarray")]
            if u == UnOp::Neg && !args[0].is_scalar() {
                return super::arrays::eval(super::arrays::ArrayEval::Neg, args);
            }
            unary(u, scalar(args, 0)?)
        }
        Builtin::Method(f) => eval_float(f, args),
        Builtin::Query(q) => {
            arity(args, 1)?;
            query(q, scalar(args, 0)?)
        }
        Builtin::Cast(to) => {
            arity(args, 1)?;
            cast(scalar(args, 0)?, to)
        }
        Builtin::VecOf | Builtin::ArrayOf if args.iter().all(|a| a.as_f64().is_some()) => {
            let v: Vec<f64> = args.iter().filter_map(Value::as_f64).collect();
            Ok(match op {
                Builtin::VecOf => Value::snapshot(v),
                _ => Value::snapshot(v),
            })
        }
        Builtin::Deref | Builtin::Clone | Builtin::Bind | Builtin::Guard => {
            arity(args, 1)?;
            Ok(args[0].clone())
        }
        other => Err(EvalError::Domain(format!(
            "{other:?} has no evaluation of its own"
        ))),
    }
}

/// Runs the `ndarray` operation `op` on `args` (the receiver first).
///
/// # Errors
/// [`EvalError::Domain`] without the `ndarray` feature, or when shapes do not fit.
pub fn eval_array(op: super::op::ArrayOp, args: &[Value]) -> Result<Value, EvalError> {
    #[cfg(feature = "ndarray")]
    {
        super::arrays::eval(super::arrays::ArrayEval::Method(op), args)
    }
    #[cfg(not(feature = "ndarray"))]
    {
        let _ = args;
        Err(EvalError::Domain(format!(
            "{op:?} needs irtrack's `ndarray` feature"
        )))
    }
}

pub(crate) type Forward = dyn Fn(&[Value]) -> Result<Value, EvalError> + Send + Sync;

/// A registered operation.
#[derive(Clone)]
pub(crate) struct Registered {
    pub key: CalleeKey,
    pub forward: Arc<Forward>,
    /// Whether every replay must run it, even on values fixed when the program was built (a
    /// checkpoint, whose result depends on what is collected or injected at run time).
    pub volatile: bool,
    /// What it is on two `f64`s, for the scalar fast path of programs (`program/fast.rs`),
    /// where it is one of the forms that path runs inline.
    pub scalar: Option<ScalarForm>,
}

/// A registered operation's form that the programs' fast path runs inline
/// (`program/fast.rs`): the products, quotients and choices of derivative programs on `f64`s,
/// and the zeros and `index_add` their gradients of vectors end with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScalarForm {
    /// [`times_f64`].
    Times,
    /// [`over_f64`].
    Over,
    /// `if c { a } else { b }` on a `bool` and two `f64`s (a derivative program's `select`).
    Select,
    /// `zeros_like(v)`: zeros of `v`'s type and shape.
    Zeros,
    /// `index_add(v, i₁, t₁, i₂, t₂, …)`: `v` with each `tₖ` added at `iₖ`, in order.
    IndexAdd,
}

macro_rules! absorbing_fns {
    ($($t:ty: $times:ident, $over:ident, $times_noting:ident, $over_noting:ident, $times_lanes:ident, $over_lanes:ident;)*) => {$(
        /// `p * q`, or 0 where IEEE arithmetic would give NaN from a zero factor (`0 · ∞`,
        /// `0 · NaN`): a derivative program's product, where a zero tangent stays zero. An
        /// absorbed ∞ or NaN is noted on the thread ([`take_absorbed`]).
        #[inline]
        pub(crate) fn $times(p: $t, q: $t) -> $t {
            let (r, absorbed) = $times_noting(p, q);
            if absorbed {
                note_absorbed();
            }
            r
        }

        /// `p / q`, or 0 where `p` is 0 and IEEE arithmetic would give NaN (`0 / 0`,
        /// `0 / NaN`), noted as [`times`]'s is.
        #[inline]
        pub(crate) fn $over(p: $t, q: $t) -> $t {
            let (r, absorbed) = $over_noting(p, q);
            if absorbed {
                note_absorbed();
            }
            r
        }

        /// The product above, and whether it absorbed ∞ or NaN into a zero. For scalar code:
        /// the test is a branch that never goes the rare way, off the product's dependency
        /// chain.
        #[inline]
        pub(crate) fn $times_noting(p: $t, q: $t) -> ($t, bool) {
            let r = p * q;
            if r.is_nan() {
                return absorbed(p == 0.0 || q == 0.0, r);
            }
            (r, false)
        }

        /// The quotient above, and whether it absorbed a NaN into a zero.
        #[inline]
        pub(crate) fn $over_noting(p: $t, q: $t) -> ($t, bool) {
            let r = p / q;
            if r.is_nan() {
                return absorbed(p == 0.0, r);
            }
            (r, false)
        }

        /// [`times_noting`] without a branch, for loops over arrays: a kernel ORs the flag over
        /// its elements and the loop still vectorises.
        #[inline]
        #[allow(dead_code)]
        pub(crate) fn $times_lanes(p: $t, q: $t) -> ($t, bool) {
            let r = p * q;
            let absorbed = r.is_nan() & ((p == 0.0) | (q == 0.0));
            (if absorbed { 0.0 } else { r }, absorbed)
        }

        /// [`over_noting`] without a branch, for loops over arrays.
        #[inline]
        #[allow(dead_code)]
        pub(crate) fn $over_lanes(p: $t, q: $t) -> ($t, bool) {
            let r = p / q;
            let absorbed = r.is_nan() & (p == 0.0);
            (if absorbed { 0.0 } else { r }, absorbed)
        }
    )*};
}

/// The rare way of `times` and `over`: 0 where a zero tangent met ∞ or NaN (and `true`: it
/// absorbed one), else the NaN.
#[cold]
#[inline(never)]
fn absorbed<T: From<f32>>(zero: bool, nan: T) -> (T, bool) {
    if zero {
        (T::from(0.0), true)
    } else {
        (nan, false)
    }
}

thread_local! {
    /// Set where a `times` or `over` may have absorbed ∞ or NaN into a zero: the program that
    /// ran it then checks that zero was not only a limit (`program::limit`).
    static ABSORBED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Notes that a `times` or `over` may have absorbed ∞ or NaN into a zero on this thread.
#[cold]
#[inline(never)]
pub(crate) fn note_absorbed() {
    ABSORBED.with(|a| a.set(true));
}

/// Whether a `times` or `over` may have absorbed ∞ or NaN since the last call; clears it.
pub(crate) fn take_absorbed() -> bool {
    ABSORBED.with(|a| a.replace(false))
}

absorbing_fns! {
    f64: times_f64, over_f64, times_noting_f64, over_noting_f64, times_lanes_f64, over_lanes_f64;
    f32: times_f32, over_f32, times_noting_f32, over_noting_f32, times_lanes_f32, over_lanes_f32;
}

type Registry = RwLock<HashMap<TypeId, Registered>>;

fn operations() -> &'static Registry {
    static OPS: OnceLock<Registry> = OnceLock::new();
    OPS.get_or_init(Default::default)
}

/// The forward function registered for the fn item `key`, if one was.
pub(crate) fn registered(key: TypeId) -> Option<Arc<Forward>> {
    lookup(key).map(|r| r.forward)
}

/// The registration of the fn item `key`, if it has one.
pub(crate) fn lookup(key: TypeId) -> Option<Registered> {
    let ops = operations().read().unwrap_or_else(|e| e.into_inner());
    ops.get(&key).cloned()
}

thread_local! {
    /// Whether a checkpoint ran under an `inject` while this thread's recording ran: its value
    /// may then be an injected one, also one equal to what it was given.
    static INJECTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Notes that a checkpoint ran under an `inject` during a recording (`program::checkpoint`).
pub(crate) fn note_injected() {
    INJECTED.with(|i| i.set(true));
}

/// Whether a checkpoint ran under an `inject` since the last [`take_injected`], and resets it
/// to `was` (a recording saves the flag when it starts, and the trace keeps it when it ends).
pub(crate) fn take_injected(was: bool) -> bool {
    INJECTED.with(|i| i.replace(was))
}

/// The key a function was registered under, if it was.
pub(crate) fn registered_key(key: TypeId) -> Option<CalleeKey> {
    lookup(key).map(|r| r.key)
}

/// Registers `forward` as the operation of the callee `key`, replacing an earlier one.
pub(crate) fn register_forward(key: CalleeKey, forward: Arc<Forward>, volatile: bool) {
    insert(Registered {
        key,
        forward,
        volatile,
        scalar: None,
    });
}

/// Marks the registered operation `key` as one whose value is zero whatever its operands (a
/// derivative program's `zeros_like`): its zeros hold on a neighbourhood (`program::limit`).
pub(crate) fn mark_exact_zero(key: TypeId) {
    exact_zeros()
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key);
}

/// Whether [`mark_exact_zero`] marked `key`.
pub(crate) fn is_exact_zero(key: TypeId) -> bool {
    exact_zeros()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&key)
}

fn exact_zeros() -> &'static RwLock<std::collections::HashSet<TypeId>> {
    static ZEROS: OnceLock<RwLock<std::collections::HashSet<TypeId>>> = OnceLock::new();
    ZEROS.get_or_init(Default::default)
}

/// [`register_forward`] for an operation of two floats that is `scalar` on two `f64`s.
pub(crate) fn register_scalar_form(key: CalleeKey, forward: Arc<Forward>, scalar: ScalarForm) {
    insert(Registered {
        key,
        forward,
        volatile: false,
        scalar: Some(scalar),
    });
}

fn insert(r: Registered) {
    operations()
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(r.key.id, r);
}

/// A type a registered operation takes an argument as: read from a recorded [`Value`].
pub trait FromValue: Sized {
    /// The value as this type, if it is one.
    fn from_value(v: &Value) -> Option<Self>;
}

macro_rules! from_scalar {
    ($($t:ty),*) => {$(
        impl FromValue for $t {
            fn from_value(v: &Value) -> Option<$t> {
                v.by_value().downcast_ref::<$t>().copied()
            }
        }
    )*};
}
from_scalar!(bool, char, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);

impl FromValue for Vec<f64> {
    fn from_value(v: &Value) -> Option<Vec<f64>> {
        v.floats().map(|f| f.into_owned())
    }
}

impl FromValue for String {
    fn from_value(v: &Value) -> Option<String> {
        v.downcast_ref::<String>().cloned()
    }
}

/// The arguments of a registered operation, as a tuple.
pub trait FromValues: Sized {
    /// How many values it takes.
    const ARITY: usize;
    /// The values as this tuple, or which one is not of its type.
    fn from_values(args: &[Value]) -> Result<Self, EvalError>;
}

macro_rules! from_values {
    ($(($($t:ident $i:tt),+)),* $(,)?) => {$(
        impl<$($t: FromValue),+> FromValues for ($($t,)+) {
            const ARITY: usize = [$($i),+].len();
            fn from_values(args: &[Value]) -> Result<Self, EvalError> {
                arity(args, Self::ARITY)?;
                Ok(($($t::from_value(&args[$i]).ok_or_else(|| EvalError::Type {
                    operand: $i,
                    expected: format!("a `{}`", std::any::type_name::<$t>()),
                    got: args[$i].type_name().to_string(),
                })?,)+))
            }
        }
    )*};
}
from_values!(
    (A 0),
    (A 0, B 1),
    (A 0, B 1, C 2),
    (A 0, B 1, C 2, D 3),
    (A 0, B 1, C 2, D 3, E 4),
    (A 0, B 1, C 2, D 3, E 4, F 5),
);

/// A function a registered operation calls, by its argument tuple.
pub trait Operation<Args>: Send + Sync + 'static {
    /// What it returns.
    type Output;
    /// Calls it.
    fn apply(&self, args: Args) -> Self::Output;
}

macro_rules! operation {
    ($(($($a:ident),+)),* $(,)?) => {$(
        impl<Func, Ret, $($a),+> Operation<($($a,)+)> for Func
        where
            Func: Fn($($a),+) -> Ret + Send + Sync + 'static,
        {
            type Output = Ret;
            #[allow(non_snake_case)]
            fn apply(&self, ($($a,)+): ($($a,)+)) -> Ret {
                self($($a),+)
            }
        }
    )*};
}
operation!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F)
);

/// Registers `function` as an operation: a recorded call of it (by its path, or a method call
/// of a `#[tracked]` method) can then be run again on new argument values — replayed,
/// updated — as the built-in operations can. `function` must be a fn item or a closure whose
/// arguments are scalars, `Vec<f64>` or `String` and whose result has a snapshot. Its
/// gradient rule, if any, is registered separately ([`register_rule`](crate::grad::register_rule)).
///
/// ```
/// use irtrack::{register_operation, track, tracked};
///
/// fn softplus(x: f64) -> f64 {
///     (1.0 + x.exp()).ln()
/// }
///
/// #[tracked]
/// fn model(x: f64) -> f64 {
///     softplus(x) * 2.0
/// }
///
/// register_operation(softplus);
/// let trace = track(model, (0.5,));
/// let call = trace.root().child(2).unwrap();
/// assert!(call.operation().is_ok());
/// let again = call.reexecute(&[irtrack::Value::snapshot(0.0f64)]).unwrap();
/// assert_eq!(again.as_f64(), Some(2f64.ln()));
/// ```
pub fn register_operation<F, A>(function: F)
where
    F: Operation<A> + Clone,
    A: FromValues + 'static,
    F::Output: Snapshot,
{
    let key = super::ids::key_of(&function);
    let forward: Arc<Forward> = Arc::new(move |args: &[Value]| {
        let a = A::from_values(args)?;
        let f = function.clone();
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || f.apply(a)))
            .map(|out| out.into_value())
            .map_err(|p| {
                EvalError::Panicked(
                    p.downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| p.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "a panic".into()),
                )
            })
    });
    register_forward(key, forward, false);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_follows_the_operand_type() {
        let v = |x: Value| x;
        let f = eval_builtin(
            Builtin::Binary(BinOp::Div),
            &[v(7.0f64.snapshot()), v(2.0f64.snapshot())],
        )
        .unwrap();
        assert_eq!(f.downcast_ref::<f64>(), Some(&3.5));
        let i = eval_builtin(
            Builtin::Binary(BinOp::Div),
            &[7i32.snapshot(), 2i32.snapshot()],
        )
        .unwrap();
        assert_eq!(i.downcast_ref::<i32>(), Some(&3));
        assert!(matches!(
            eval_builtin(
                Builtin::Binary(BinOp::Div),
                &[7i32.snapshot(), 0i32.snapshot()]
            ),
            Err(EvalError::Overflow(_))
        ));
        assert!(eval_builtin(
            Builtin::Binary(BinOp::Add),
            &[1i32.snapshot(), 1.0f64.snapshot()]
        )
        .is_err());
        let c = eval_builtin(
            Builtin::Compare(CmpOp::Lt),
            &[1u64.snapshot(), 2u64.snapshot()],
        )
        .unwrap();
        assert_eq!(c.downcast_ref::<bool>(), Some(&true));
        let n = eval_builtin(
            Builtin::Compare(CmpOp::Lt),
            &[f64::NAN.snapshot(), 2.0f64.snapshot()],
        )
        .unwrap();
        assert_eq!(n.downcast_ref::<bool>(), Some(&false));
        let s = eval_builtin(Builtin::Cast(ScalarType::U8), &[300.7f64.snapshot()]).unwrap();
        assert_eq!(s.downcast_ref::<u8>(), Some(&255));
        let p = eval_builtin(
            Builtin::Method(FloatFn::Powi),
            &[2.0f64.snapshot(), 3i32.snapshot()],
        )
        .unwrap();
        assert_eq!(p.downcast_ref::<f64>(), Some(&8.0));
    }
}
