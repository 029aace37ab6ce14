//! Typed keys for the operations the runtime knows: operators, the inherent methods of the
//! float types, casts and the constructs of the lowering. An entry's key is decoded from its
//! text once, when its function's IR is built ([`FnIr::builtin`](super::ir::FnIr::builtin));
//! after that, rules and re-execution compare keys, never names.
//!
//! A key says what an entry *would* compute if the call reached the operation it names. For
//! an operator on two floats it always does (the language fixes the operation). For a method
//! call it does only when method resolution provably picks the inherent method, which the
//! recorder decides per node from the receiver's type ([`Receiver`]); a path call is
//! identified by its fn item instead (see `crate::record::claim`).

use super::ir::{Entry, EntryKind, Operand};

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `!x`
    Not,
}

/// A binary arithmetic or bitwise operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

macro_rules! float_fns {
    ($($name:ident = $text:literal / $arity:literal),* $(,)?) => {
        /// An inherent method of `f32`/`f64` the runtime can re-execute and differentiate.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum FloatFn { $($name),* }

        impl FloatFn {
            /// The method of this name taking `arity` operands (the receiver included).
            pub fn from_name(name: &str, arity: usize) -> Option<FloatFn> {
                match (name, arity) {
                    $(($text, $arity) => Some(FloatFn::$name),)*
                    _ => None,
                }
            }

            /// The method's name.
            pub fn name(self) -> &'static str {
                match self { $(FloatFn::$name => $text),* }
            }

            /// How many operands it takes, the receiver included.
            pub fn arity(self) -> usize {
                match self { $(FloatFn::$name => $arity),* }
            }
        }
    };
}

float_fns! {
    Sin = "sin" / 1, Cos = "cos" / 1, Tan = "tan" / 1, Asin = "asin" / 1, Acos = "acos" / 1,
    Atan = "atan" / 1, Sinh = "sinh" / 1, Cosh = "cosh" / 1, Tanh = "tanh" / 1,
    Asinh = "asinh" / 1, Acosh = "acosh" / 1, Atanh = "atanh" / 1, Exp = "exp" / 1,
    Exp2 = "exp2" / 1, ExpM1 = "exp_m1" / 1, Ln = "ln" / 1, Ln1p = "ln_1p" / 1,
    Log10 = "log10" / 1, Log2 = "log2" / 1, Sqrt = "sqrt" / 1, Cbrt = "cbrt" / 1,
    Abs = "abs" / 1, Recip = "recip" / 1, ToDegrees = "to_degrees" / 1,
    ToRadians = "to_radians" / 1, Signum = "signum" / 1, Floor = "floor" / 1,
    Ceil = "ceil" / 1, Round = "round" / 1, RoundTiesEven = "round_ties_even" / 1,
    Trunc = "trunc" / 1, Fract = "fract" / 1, Powi = "powi" / 2, Powf = "powf" / 2,
    Max = "max" / 2, Min = "min" / 2, Atan2 = "atan2" / 2, Hypot = "hypot" / 2,
    Log = "log" / 2, Copysign = "copysign" / 2, MulAdd = "mul_add" / 3, Clamp = "clamp" / 3,
    RemEuclid = "rem_euclid" / 2, DivEuclid = "div_euclid" / 2,
}

/// A method of the float types that reads its receiver's representation instead of computing
/// a number of its type: the class tests (`is_nan`, …) and the bit casts (`to_bits`, and
/// `f64::from_bits` by path). None has a slope; replay and update run them again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum FloatQuery {
    IsNan,
    IsInfinite,
    IsFinite,
    IsNormal,
    IsSubnormal,
    IsSignPositive,
    IsSignNegative,
    ToBits,
    /// `f64::from_bits(u)`, `f32::from_bits(u)`: only ever called by path (its operand is an
    /// integer, not a float receiver).
    FromBits,
}

impl FloatQuery {
    /// The method of this name called on a float receiver with no other operand.
    pub fn from_name(name: &str, arity: usize) -> Option<FloatQuery> {
        if arity != 1 {
            return None;
        }
        Some(match name {
            "is_nan" => FloatQuery::IsNan,
            "is_infinite" => FloatQuery::IsInfinite,
            "is_finite" => FloatQuery::IsFinite,
            "is_normal" => FloatQuery::IsNormal,
            "is_subnormal" => FloatQuery::IsSubnormal,
            "is_sign_positive" => FloatQuery::IsSignPositive,
            "is_sign_negative" => FloatQuery::IsSignNegative,
            "to_bits" => FloatQuery::ToBits,
            _ => return None,
        })
    }

    /// Whether it is a class test, giving a `bool`, rather than a bit cast.
    pub fn is_test(self) -> bool {
        !matches!(self, FloatQuery::ToBits | FloatQuery::FromBits)
    }

    /// The method's name.
    pub fn name(self) -> &'static str {
        match self {
            FloatQuery::IsNan => "is_nan",
            FloatQuery::IsInfinite => "is_infinite",
            FloatQuery::IsFinite => "is_finite",
            FloatQuery::IsNormal => "is_normal",
            FloatQuery::IsSubnormal => "is_subnormal",
            FloatQuery::IsSignPositive => "is_sign_positive",
            FloatQuery::IsSignNegative => "is_sign_negative",
            FloatQuery::ToBits => "to_bits",
            FloatQuery::FromBits => "from_bits",
        }
    }
}

macro_rules! float_eval {
    ($t:ty, $name:ident) => {
        /// Runs the method on `args` (the receiver first), as the inherent method of the float
        /// type does; `None` when the arguments do not fit (count, or an exponent out of range).
        pub fn $name(self, args: &[$t], int: Option<i64>) -> Option<$t> {
            let a = |i: usize| args.get(i).copied();
            Some(match self {
                FloatFn::Sin => a(0)?.sin(),
                FloatFn::Cos => a(0)?.cos(),
                FloatFn::Tan => a(0)?.tan(),
                FloatFn::Asin => a(0)?.asin(),
                FloatFn::Acos => a(0)?.acos(),
                FloatFn::Atan => a(0)?.atan(),
                FloatFn::Sinh => a(0)?.sinh(),
                FloatFn::Cosh => a(0)?.cosh(),
                FloatFn::Tanh => a(0)?.tanh(),
                FloatFn::Asinh => a(0)?.asinh(),
                FloatFn::Acosh => a(0)?.acosh(),
                FloatFn::Atanh => a(0)?.atanh(),
                FloatFn::Exp => a(0)?.exp(),
                FloatFn::Exp2 => a(0)?.exp2(),
                FloatFn::ExpM1 => a(0)?.exp_m1(),
                FloatFn::Ln => a(0)?.ln(),
                FloatFn::Ln1p => a(0)?.ln_1p(),
                FloatFn::Log10 => a(0)?.log10(),
                FloatFn::Log2 => a(0)?.log2(),
                FloatFn::Sqrt => a(0)?.sqrt(),
                FloatFn::Cbrt => a(0)?.cbrt(),
                FloatFn::Abs => a(0)?.abs(),
                FloatFn::Recip => a(0)?.recip(),
                FloatFn::ToDegrees => a(0)?.to_degrees(),
                FloatFn::ToRadians => a(0)?.to_radians(),
                FloatFn::Signum => a(0)?.signum(),
                FloatFn::Floor => a(0)?.floor(),
                FloatFn::Ceil => a(0)?.ceil(),
                FloatFn::Round => a(0)?.round(),
                FloatFn::RoundTiesEven => a(0)?.round_ties_even(),
                FloatFn::Trunc => a(0)?.trunc(),
                FloatFn::Fract => a(0)?.fract(),
                FloatFn::Powi => a(0)?.powi(i32::try_from(int?).ok()?),
                FloatFn::Powf => a(0)?.powf(a(1)?),
                FloatFn::Max => a(0)?.max(a(1)?),
                FloatFn::Min => a(0)?.min(a(1)?),
                FloatFn::Atan2 => a(0)?.atan2(a(1)?),
                FloatFn::Hypot => a(0)?.hypot(a(1)?),
                FloatFn::Log => a(0)?.log(a(1)?),
                FloatFn::Copysign => a(0)?.copysign(a(1)?),
                FloatFn::MulAdd => a(0)?.mul_add(a(1)?, a(2)?),
                FloatFn::RemEuclid => a(0)?.rem_euclid(a(1)?),
                FloatFn::DivEuclid => a(0)?.div_euclid(a(1)?),
                FloatFn::Clamp => {
                    let (x, lo, hi) = (a(0)?, a(1)?, a(2)?);
                    // `clamp` panics unless lo <= hi; re-execution refuses instead.
                    if lo
                        .partial_cmp(&hi)
                        .map_or(true, |o| o == std::cmp::Ordering::Greater)
                    {
                        return None;
                    }
                    x.clamp(lo, hi)
                }
            })
        }
    };
}

impl FloatFn {
    float_eval!(f64, eval_f64);
    float_eval!(f32, eval_f32);
}

/// The parts of `x.sin_cos()` recorded as `y`, when `y` is the float method's pair of `x`, bit
/// for bit, in the type `y` holds (`f64` or `f32`): the witness that a call named `sin_cos`
/// on a float reached the float method on current operands.
pub(crate) fn sin_cos_parts(
    x: f64,
    y: &super::value::Value,
) -> Option<(super::value::Value, super::value::Value)> {
    use super::value::Value;
    let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan();
    if let Some(&(s, c)) = y.downcast_ref::<(f64, f64)>() {
        let (s2, c2) = x.sin_cos();
        return (same(s, s2) && same(c, c2)).then(|| (Value::snapshot(s), Value::snapshot(c)));
    }
    // Widening an `f32` is exact: equal bits as `f64`, equal bits as `f32`.
    let &(s, c) = y.downcast_ref::<(f32, f32)>()?;
    let (s2, c2) = (x as f32).sin_cos();
    (same(s.into(), s2.into()) && same(c.into(), c2.into()))
        .then(|| (Value::snapshot(s), Value::snapshot(c)))
}

/// The float functions and representation queries named by path (`f64::sin`, `f32::max`,
/// `f64::is_nan`), by their fn item types: a call of a path whose callee is one of these is
/// that operation, exactly. One table for both.
pub(crate) fn float_path_of(item: std::any::TypeId) -> Option<Builtin> {
    float_paths().get(&item).map(|&(b, _)| b)
}

/// The fn item type of the float function `b` of `f32` (`f32`) or `f64`: the key a rule
/// registered for `f64::tan` is found by, also for a call `x.tan()` of it by method syntax.
pub(crate) fn float_path_key(b: Builtin, f32: bool) -> Option<std::any::TypeId> {
    float_paths()
        .iter()
        .find(|(_, &(c, w))| c == b && w == f32)
        .map(|(&t, _)| t)
}

/// The table of [`float_path_of`]: each fn item type, its operation and whether it is
/// `f32`'s.
fn float_paths() -> &'static std::collections::HashMap<std::any::TypeId, (Builtin, bool)> {
    use std::collections::HashMap;
    use std::sync::OnceLock;
    static TABLE: OnceLock<HashMap<std::any::TypeId, (Builtin, bool)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = HashMap::new();
        macro_rules! add {
                ($wrap:ident($kind:ident): $($name:ident = $variant:ident),*) => {$(
                    t.insert(
                        super::ids::key_of(&f64::$name).id,
                        (Builtin::$wrap($kind::$variant), false),
                    );
                    t.insert(
                        super::ids::key_of(&f32::$name).id,
                        (Builtin::$wrap($kind::$variant), true),
                    );
                )*};
            }
        add!(
            Method(FloatFn):
            sin = Sin,
            cos = Cos,
            tan = Tan,
            asin = Asin,
            acos = Acos,
            atan = Atan,
            sinh = Sinh,
            cosh = Cosh,
            tanh = Tanh,
            asinh = Asinh,
            acosh = Acosh,
            atanh = Atanh,
            exp = Exp,
            exp2 = Exp2,
            exp_m1 = ExpM1,
            ln = Ln,
            ln_1p = Ln1p,
            log10 = Log10,
            log2 = Log2,
            sqrt = Sqrt,
            cbrt = Cbrt,
            abs = Abs,
            recip = Recip,
            to_degrees = ToDegrees,
            to_radians = ToRadians,
            signum = Signum,
            floor = Floor,
            ceil = Ceil,
            round = Round,
            round_ties_even = RoundTiesEven,
            trunc = Trunc,
            fract = Fract,
            powi = Powi,
            powf = Powf,
            max = Max,
            min = Min,
            atan2 = Atan2,
            hypot = Hypot,
            log = Log,
            copysign = Copysign,
            mul_add = MulAdd,
            clamp = Clamp,
            rem_euclid = RemEuclid,
            div_euclid = DivEuclid
        );
        add!(
            Query(FloatQuery):
            is_nan = IsNan,
            is_infinite = IsInfinite,
            is_finite = IsFinite,
            is_normal = IsNormal,
            is_subnormal = IsSubnormal,
            is_sign_positive = IsSignPositive,
            is_sign_negative = IsSignNegative,
            to_bits = ToBits,
            from_bits = FromBits
        );
        t.insert(
            super::ids::key_of(&f64::sin_cos).id,
            (Builtin::SinCos, false),
        );
        t.insert(
            super::ids::key_of(&f32::sin_cos).id,
            (Builtin::SinCos, true),
        );
        t
    })
}

/// Whether the callee `item` is `f64::sin_cos` or `f32::sin_cos`, by its fn item type.
pub(crate) fn is_sin_cos_path(item: std::any::TypeId) -> bool {
    float_path_of(item) == Some(Builtin::SinCos)
}

/// The float function named by the path whose fn item type is `item` (`f64::sin`).
pub fn float_fn_of(item: std::any::TypeId) -> Option<FloatFn> {
    match float_path_of(item)? {
        Builtin::Method(f) => Some(f),
        _ => None,
    }
}

/// The float type a path call whose fn item type is `item` converts to without loss:
/// `f64::from(i)` (or `<f64 as From<i32>>::from`: one fn item however the path is written)
/// from the integer and float types with a `From` impl for `f64` or `f32`, which is what `as`
/// computes for them.
pub fn conversion_of(item: std::any::TypeId) -> Option<ScalarType> {
    use std::collections::HashMap;
    use std::sync::OnceLock;
    static TABLE: OnceLock<HashMap<std::any::TypeId, ScalarType>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let mut t = HashMap::new();
            macro_rules! add {
                ($to:ident = $ty:ident: $($from:ty),*) => {$(
                    t.insert(super::ids::key_of(&<$to as From<$from>>::from).id, ScalarType::$ty);
                )*};
            }
            add!(f64 = F64: i8, i16, i32, u8, u16, u32, f32);
            add!(f32 = F32: i8, i16, u8, u16);
            t
        })
        .get(&item)
        .copied()
}

/// The comparison a path call whose fn item type is `item` makes: `f64::eq(&a, &b)`,
/// `PartialEq::eq(&a, &b)`, `PartialOrd::le(&a, &b)` on `f64` or `f32` (the trait methods of
/// the float impls, one fn item each however the path is written).
pub fn float_compare_of(item: std::any::TypeId) -> Option<CmpOp> {
    use std::collections::HashMap;
    use std::sync::OnceLock;
    static TABLE: OnceLock<HashMap<std::any::TypeId, CmpOp>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let mut t = HashMap::new();
            macro_rules! add {
                ($($ty:ident),*) => {$(
                    t.insert(super::ids::key_of(&<$ty as PartialEq>::eq).id, CmpOp::Eq);
                    t.insert(super::ids::key_of(&<$ty as PartialEq>::ne).id, CmpOp::Ne);
                    t.insert(super::ids::key_of(&<$ty as PartialOrd>::lt).id, CmpOp::Lt);
                    t.insert(super::ids::key_of(&<$ty as PartialOrd>::le).id, CmpOp::Le);
                    t.insert(super::ids::key_of(&<$ty as PartialOrd>::gt).id, CmpOp::Gt);
                    t.insert(super::ids::key_of(&<$ty as PartialOrd>::ge).id, CmpOp::Ge);
                )*};
            }
            add!(f64, f32);
            t
        })
        .get(&item)
        .copied()
}

impl CmpOp {
    /// The comparison a method of this name on a float makes (`x.le(&y)`).
    pub fn from_method(name: &str) -> Option<CmpOp> {
        Some(match name {
            "eq" => CmpOp::Eq,
            "ne" => CmpOp::Ne,
            "lt" => CmpOp::Lt,
            "le" => CmpOp::Le,
            "gt" => CmpOp::Gt,
            "ge" => CmpOp::Ge,
            _ => return None,
        })
    }
}

/// The representation query named by the path whose fn item type is `item` (`f64::is_nan`,
/// `f32::from_bits`).
pub fn float_query_of(item: std::any::TypeId) -> Option<FloatQuery> {
    match float_path_of(item)? {
        Builtin::Query(q) => Some(q),
        _ => None,
    }
}

/// A scalar type a cast can target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ScalarType {
    Bool,
    Char,
    I8,
    I16,
    I32,
    I64,
    Isize,
    U8,
    U16,
    U32,
    U64,
    Usize,
    F32,
    F64,
}

impl ScalarType {
    /// The type named `name` (`f64`, `usize`), when it is a scalar.
    pub fn from_name(name: &str) -> Option<ScalarType> {
        Some(match name {
            "bool" => ScalarType::Bool,
            "char" => ScalarType::Char,
            "i8" => ScalarType::I8,
            "i16" => ScalarType::I16,
            "i32" => ScalarType::I32,
            "i64" => ScalarType::I64,
            "isize" => ScalarType::Isize,
            "u8" => ScalarType::U8,
            "u16" => ScalarType::U16,
            "u32" => ScalarType::U32,
            "u64" => ScalarType::U64,
            "usize" => ScalarType::Usize,
            "f32" => ScalarType::F32,
            "f64" => ScalarType::F64,
            _ => return None,
        })
    }

    /// Whether the type is one of the integer types.
    pub fn is_integer(self) -> bool {
        !matches!(
            self,
            ScalarType::Bool | ScalarType::Char | ScalarType::F32 | ScalarType::F64
        )
    }

    /// Whether it is `f32` or `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F32 | ScalarType::F64)
    }

    /// The type's name.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::Char => "char",
            ScalarType::I8 => "i8",
            ScalarType::I16 => "i16",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::Isize => "isize",
            ScalarType::U8 => "u8",
            ScalarType::U16 => "u16",
            ScalarType::U32 => "u32",
            ScalarType::U64 => "u64",
            ScalarType::Usize => "usize",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
        }
    }
}

/// The typed operation of an IR entry, decoded from its text once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `-x`, `!x`.
    Unary(UnOp),
    /// `a + b` and the other arithmetic and bitwise operators.
    Binary(BinOp),
    /// `a += b`: the node's value is `a`'s new value.
    Assign(BinOp),
    /// `a < b` and the other comparisons.
    Compare(CmpOp),
    /// `x.sin()` and the other float methods: what the call computes when it reaches the
    /// inherent method (see the module docs).
    Method(FloatFn),
    /// `x.is_nan()`, `x.to_bits()` and the other representation queries of the float types,
    /// under the same condition as [`Builtin::Method`]; `f64::from_bits(u)` by path.
    Query(FloatQuery),
    /// `x.sin_cos()`, under the same condition as [`Builtin::Method`]: the pair `(x.sin(),
    /// x.cos())`. Its parts are what is read (`let (s, c) = x.sin_cos()`): gradients take
    /// each part's slope, programs run `sin` and `cos`.
    SinCos,
    /// `x as T` for a scalar `T`.
    Cast(ScalarType),
    /// `v[i]`, `v[a..b]` read for a value.
    Index,
    /// `e?`: the content of `Ok`/`Some`.
    Question,
    /// `*r` read for a value.
    Deref,
    /// A variable bound by a pattern from its operand (`let (a, b) = t`, a `match` arm).
    Bind,
    /// The value of a `match` arm's guard (`Some(v) if v > x`), which decided with the arm's
    /// pattern whether the arm was taken: recorded as its own node (`$(guard)(%c)`), so that
    /// what replays, updates or differentiates the path sees the condition. Its value is its
    /// operand's; an operand the trace did not record (a guard with control flow of its own,
    /// which runs as written) is `Operand::None`.
    Guard,
    /// `s.f`, `t.0`.
    Field,
    /// `vec![a, b]` of expressions.
    VecOf,
    /// `[a, b]`.
    ArrayOf,
    /// `(a, b)`.
    Tuple,
    /// `[x; n]`.
    Repeat,
    /// A closure bound by `let` made (`$(closure)(captures)`): its operands are the variables
    /// it captured, its value the closure (by its type). Nothing re-runs it; calls of the
    /// closure and uses of its captures link to it (`Store::closure_values`).
    Closure,
    /// `a..b`, `a..=b` and the other range expressions.
    Range,
    /// A struct literal `P { … }`.
    Struct,
    /// A macro call `name!(…)` (opaque).
    Macro,
    /// `x.clone()`, `x.to_owned()` — by name only; see [`Builtin::Method`] for when a method
    /// call reaches the std method.
    Clone,
}

impl Builtin {
    /// Whether the operation's slope is a formula of its operands that can be 0 as a limit
    /// where an operand or the value is infinite (`1 / ∞` for `1 / x`, `powi(-1)`, `sin`,
    /// `powf`, …): a product, a quotient or a float method other than the piecewise ones
    /// (`floor`, `abs`, `max`, …), whose slopes are constants of their kind.
    pub(crate) fn slope_vanishes_at_infinity(self) -> bool {
        use FloatFn::*;
        match self {
            Builtin::Binary(op) | Builtin::Assign(op) => matches!(op, BinOp::Mul | BinOp::Div),
            Builtin::Method(f) => !matches!(
                f,
                Signum
                    | Floor
                    | Ceil
                    | Round
                    | RoundTiesEven
                    | Trunc
                    | Abs
                    | Fract
                    | ToDegrees
                    | ToRadians
                    | Max
                    | Min
                    | Copysign
                    | Clamp
                    | RemEuclid
                    | DivEuclid
            ),
            _ => false,
        }
    }

    /// Whether a zero value of the operation, at operands none of which is 0, is only a limit
    /// (an underflow, `1 / ∞`) that may stand for a small number: a product, a quotient, a
    /// power, an exponential. Other float methods have exact zeros at nonzero points (`ln 1`,
    /// `acos 1`); sums and selections make such a zero only by carrying one. The gradient's
    /// sweep (`grad::rules::makes_limit_zero`) and derivative programs (`program::limit`)
    /// decide by it.
    pub(crate) fn zero_is_a_limit(self) -> bool {
        use FloatFn::{Exp, Exp2, Powf, Powi};
        match self {
            Builtin::Binary(op) | Builtin::Assign(op) => matches!(op, BinOp::Mul | BinOp::Div),
            Builtin::Method(f) => matches!(f, Exp | Exp2 | Powf | Powi),
            _ => false,
        }
    }

    /// Whether the operation's slope is infinite in earnest at a finite nonzero operand where
    /// its value is finite: `asin` and `acos` at ±1, `acosh` at 1, `atanh` at ±1. Every other
    /// builtin's slope is infinite at such a point only by overflowing (`1 / x` at 10⁻¹⁶⁰),
    /// which the gradient's sweep (`grad::sweep`) refuses where that ∞ may stand for a finite
    /// number.
    pub(crate) fn pole_away_from_zero(self) -> bool {
        use FloatFn::{Acos, Acosh, Asin, Atanh};
        matches!(self, Builtin::Method(Asin | Acos | Acosh | Atanh))
    }

    /// The operation an entry names, if the runtime knows it.
    pub fn of_entry(e: &Entry) -> Option<Builtin> {
        let head = e.head.as_str();
        let arity = e.operands.len();
        match e.kind {
            EntryKind::Operator => operator(head, arity),
            EntryKind::MethodCall => match head {
                "clone" | "to_owned" if arity == 1 => Some(Builtin::Clone),
                "sin_cos" if arity == 1 => Some(Builtin::SinCos),
                _ => FloatFn::from_name(head, arity)
                    .map(Builtin::Method)
                    .or_else(|| FloatQuery::from_name(head, arity).map(Builtin::Query)),
            },
            EntryKind::Call if head == "index" && is_lowered_index(e) => Some(Builtin::Index),
            EntryKind::Special => special(head),
            _ => None,
        }
    }
}

/// `v[i]` is lowered to a call entry with the head `index` and two operands; a user's function
/// called `index` is a call of a path, whose identity the recorder keeps instead.
fn is_lowered_index(e: &Entry) -> bool {
    e.operands.len() == 2 && !matches!(e.operands[0], Operand::Const(_))
}

fn operator(head: &str, arity: usize) -> Option<Builtin> {
    use BinOp::*;
    if arity == 1 {
        return match head {
            "-" => Some(Builtin::Unary(UnOp::Neg)),
            "!" => Some(Builtin::Unary(UnOp::Not)),
            _ => None,
        };
    }
    if arity != 2 {
        return None;
    }
    let bin = |s: &str| {
        Some(match s {
            "+" => Add,
            "-" => Sub,
            "*" => Mul,
            "/" => Div,
            "%" => Rem,
            "&" => BitAnd,
            "|" => BitOr,
            "^" => BitXor,
            "<<" => Shl,
            ">>" => Shr,
            _ => return None,
        })
    };
    let cmp = match head {
        "==" => Some(CmpOp::Eq),
        "!=" => Some(CmpOp::Ne),
        "<" => Some(CmpOp::Lt),
        "<=" => Some(CmpOp::Le),
        ">" => Some(CmpOp::Gt),
        ">=" => Some(CmpOp::Ge),
        _ => None,
    };
    if let Some(c) = cmp {
        return Some(Builtin::Compare(c));
    }
    match head.strip_suffix('=') {
        Some(op) => bin(op).map(Builtin::Assign),
        None => bin(head).map(Builtin::Binary),
    }
}

fn special(head: &str) -> Option<Builtin> {
    if let Some(ty) = head.strip_prefix("as ") {
        return ScalarType::from_name(ty.trim()).map(Builtin::Cast);
    }
    if head.starts_with("bind ") {
        return Some(Builtin::Bind);
    }
    if head == "guard" {
        return Some(Builtin::Guard);
    }
    // `.0`, `.w`; not a range (`..`, `..=`).
    if head.starts_with('.') && !head.starts_with("..") {
        return Some(Builtin::Field);
    }
    Some(match head {
        "?" => Builtin::Question,
        "*" => Builtin::Deref,
        "vec!" => Builtin::VecOf,
        "array" => Builtin::ArrayOf,
        "tuple" => Builtin::Tuple,
        "array repeat" => Builtin::Repeat,
        "closure" => Builtin::Closure,
        ".." | "..=" => Builtin::Range,
        h if h.ends_with(" {}") => Builtin::Struct,
        h if h.ends_with('!') => Builtin::Macro,
        _ => return None,
    })
}

impl BinOp {
    /// The operator as written (`+`, `<<`).
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
        }
    }
}

impl CmpOp {
    /// The operator as written (`<=`).
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

impl std::fmt::Display for Builtin {
    /// The operation as the listing writes its head: `+`, `+=`, `<`, `-`, `sin`, `as f64`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Builtin::Unary(UnOp::Neg) => f.write_str("-"),
            Builtin::Unary(UnOp::Not) => f.write_str("!"),
            Builtin::Binary(b) => f.write_str(b.symbol()),
            Builtin::Assign(b) => write!(f, "{}=", b.symbol()),
            Builtin::Compare(c) => f.write_str(c.symbol()),
            Builtin::Method(m) => f.write_str(m.name()),
            Builtin::Query(q) => f.write_str(q.name()),
            Builtin::SinCos => f.write_str("sin_cos"),
            Builtin::Cast(t) => write!(f, "as {}", t.name()),
            Builtin::Index => f.write_str("index"),
            Builtin::Question => f.write_str("?"),
            Builtin::Deref => f.write_str("*"),
            Builtin::Bind => f.write_str("bind"),
            Builtin::Guard => f.write_str("guard"),
            Builtin::Field => f.write_str("field"),
            Builtin::VecOf => f.write_str("vec!"),
            Builtin::ArrayOf => f.write_str("array"),
            Builtin::Tuple => f.write_str("tuple"),
            Builtin::Repeat => f.write_str("array repeat"),
            Builtin::Closure => f.write_str("closure"),
            Builtin::Range => f.write_str(".."),
            Builtin::Struct => f.write_str("struct"),
            Builtin::Macro => f.write_str("macro"),
            Builtin::Clone => f.write_str("clone"),
        }
    }
}

/// An `ndarray` operation on arrays of `f64` the runtime can run again (with the `ndarray`
/// feature): the methods the gradient rules know. Operators on arrays are [`Builtin`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrayOp {
    /// `a.dot(&b)` for 1-D and 2-D operands.
    Dot,
    /// `a.t()`, `a.reversed_axes()`.
    Transpose,
    /// `a.sum()`.
    Sum,
    /// A float method applied elementwise (`a.tanh()` of ndarray's, `a.mapv(f64::tanh)`).
    Map(FloatFn),
    /// `a.powi(n)` elementwise.
    Powi,
    /// `a.to_owned()`, `a.clone()`, `a.view()`, `a.into_owned()`.
    Copy,
}

/// How a method call's receiver was written, as far as its type tells: whether method
/// resolution provably reaches an inherent method of the float types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Receiver {
    /// Not a method call, or nothing is known of the receiver.
    #[default]
    Unknown,
    /// A receiver of type `f32` or `f64` itself: inherent methods are found first, before any
    /// trait method, so a float method name is the float method.
    Float,
    /// A reference to a float (`&f64`, `&mut f32`): a trait implemented for the reference
    /// type could be found before the inherent method, so the call is the float method only
    /// if its result says so (see `crate::grad`).
    FloatRef,
    /// A receiver that is an `f32` or `f64` at run time in generic code (see
    /// [`FnIr::is_generic`](super::ir::FnIr::is_generic)): its written type may be a type
    /// parameter, whose trait methods are found instead of the inherent ones, so the call is the
    /// float method only if its result says so, as for [`Receiver::FloatRef`].
    Generic,
    /// A receiver of any other type.
    Other,
}

/// Whether the macro `head` (`println!`, or its path) only reads what it mentions: the std's
/// printing, assertion and value-making macros (`vec!`, `format!`) and `dbg!` (by a bare name
/// or an `std::`/`core::` path), and
/// `log`'s named by their path (`log::info!`: a bare `info!` may be a user's macro of that
/// name). `write!` and `writeln!` write into their first operand. Any other macro that mentions
/// a variable may assign it (`add_to!(a, x)`): `#[tracked]` gives a mentioned `mut` variable
/// a new version after it, and gradients and programs refuse what depends on such a macro.
/// Shared with `#[tracked]`.
#[doc(hidden)]
pub fn macro_only_reads(head: &str) -> bool {
    let path: String = head.trim_end_matches('!').split_whitespace().collect();
    let path = path.trim_start_matches("::");
    let (prefix, name) = match path.rsplit_once("::") {
        Some((p, n)) => (Some(p), n),
        None => (None, path),
    };
    let std = matches!(
        name,
        "print"
            | "println"
            | "eprint"
            | "eprintln"
            | "format_args"
            | "assert"
            | "assert_eq"
            | "assert_ne"
            | "debug_assert"
            | "debug_assert_eq"
            | "debug_assert_ne"
            | "dbg"
            // Values made from what they mention.
            | "vec"
            | "format"
            | "matches"
            | "concat"
            | "stringify"
            | "panic"
            | "todo"
            | "unimplemented"
            | "unreachable"
    ) && matches!(prefix, None | Some("std" | "core" | "alloc"));
    let log = matches!(name, "trace" | "debug" | "info" | "warn" | "error" | "log")
        && prefix == Some("log");
    std || log
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_decode_to_keys() {
        let e = |head: &str, n: usize| {
            Entry::statement(1, 1, EntryKind::Operator, head, vec![Operand::None; n])
        };
        assert_eq!(
            Builtin::of_entry(&e("+", 2)),
            Some(Builtin::Binary(BinOp::Add))
        );
        assert_eq!(
            Builtin::of_entry(&e("+=", 2)),
            Some(Builtin::Assign(BinOp::Add))
        );
        assert_eq!(
            Builtin::of_entry(&e("<=", 2)),
            Some(Builtin::Compare(CmpOp::Le))
        );
        assert_eq!(
            Builtin::of_entry(&e("<<=", 2)),
            Some(Builtin::Assign(BinOp::Shl))
        );
        assert_eq!(
            Builtin::of_entry(&e("-", 1)),
            Some(Builtin::Unary(UnOp::Neg))
        );
        let m = Entry::statement(1, 1, EntryKind::MethodCall, "powi", vec![Operand::None; 2]);
        assert_eq!(Builtin::of_entry(&m), Some(Builtin::Method(FloatFn::Powi)));
        // `sin` with an argument is not `f64::sin`.
        let m = Entry::statement(1, 1, EntryKind::MethodCall, "sin", vec![Operand::None; 2]);
        assert_eq!(Builtin::of_entry(&m), None);
        let s = Entry::statement(1, 1, EntryKind::Special, "as f32", vec![Operand::None]);
        assert_eq!(Builtin::of_entry(&s), Some(Builtin::Cast(ScalarType::F32)));
    }
}
