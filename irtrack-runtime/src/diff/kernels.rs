//! The operations derivative programs need and traces never record: choosing a tangent by a
//! condition, a zero of a value's shape, broadcasting and its transpose, a one-hot vector, the
//! sum of two vectors, an outer product.
//!
//! Each is a registered operation under a key of its own (a private marker type), so a
//! derivative program runs, prints and replays them as it does any operation, and nothing in
//! `core`, `view` or `program` needs to know them.

use crate::core::eval::{
    over_f32, over_f64, over_lanes_f64, over_noting_f32, over_noting_f64, register_forward,
    register_scalar_form, times_f32, times_f64, times_lanes_f64, times_noting_f32,
    times_noting_f64, EvalError, ScalarForm,
};
use crate::core::ids::CalleeKey;
use crate::core::value::{Snapshot, Value};
use crate::view::operation::Operation;
use std::any::TypeId;
use std::sync::{Arc, OnceLock};

/// An operation of derivative programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kernel {
    /// `select(c, a, b)`: `a` when `c`, else `b` (the derivative of `max`, `min`, `clamp`).
    Select,
    /// `zeros_like(a)`: zero of `a`'s type and shape.
    ZerosLike,
    /// `broadcast_like(t, y)`: `t` broadcast to the shape of the array `y`.
    BroadcastLike,
    /// `sum_like(t, a)`: `t` summed over the axes broadcasting added to `a`'s shape (the
    /// transpose of `broadcast_like`).
    SumLike,
    /// `index_add(v, i₁, t₁, i₂, t₂, …)`: `v` with `tₖ` added at `iₖ` (the transpose of reading
    /// `v[i₁]`, `v[i₂]`, …, gathered into one vector).
    IndexAdd,
    /// `vec_add(a, b)`: the elementwise sum of two `Vec<f64>` of one length.
    VecAdd,
    /// `outer(a, b)`: the matrix `a[i] * b[j]` of two 1-D arrays.
    Outer,
    /// `times(a, b)`: `a * b`, elementwise with broadcasting, but 0 where one factor is 0 and
    /// the other infinite or NaN. Every product a derivative rule builds is one: a slope times
    /// a tangent that is exactly 0 contributes nothing, as in the gradient's sweep, where IEEE
    /// `0 · ∞` would make the whole derivative NaN (`jvp` of `sqrt(x) + y` at `x = 0` along
    /// `y`).
    Times,
    /// `over(a, b)`: `a / b`, but 0 where `a` is 0 and `b` is 0 or NaN (a tangent of 0 over a
    /// vanishing denominator, as [`Times`](Kernel::Times)).
    Over,
}

struct Marker<const K: u8>;

impl Kernel {
    const ALL: [Kernel; 9] = [
        Kernel::Select,
        Kernel::ZerosLike,
        Kernel::BroadcastLike,
        Kernel::SumLike,
        Kernel::IndexAdd,
        Kernel::VecAdd,
        Kernel::Outer,
        Kernel::Times,
        Kernel::Over,
    ];

    /// The name a listing prints.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kernel::Select => "select",
            Kernel::ZerosLike => "zeros_like",
            Kernel::BroadcastLike => "broadcast_like",
            Kernel::SumLike => "sum_like",
            Kernel::IndexAdd => "index_add",
            Kernel::VecAdd => "vec_add",
            Kernel::Outer => "outer",
            Kernel::Times => "times",
            Kernel::Over => "over",
        }
    }

    fn type_id(self) -> TypeId {
        match self {
            Kernel::Select => TypeId::of::<Marker<0>>(),
            Kernel::ZerosLike => TypeId::of::<Marker<1>>(),
            Kernel::BroadcastLike => TypeId::of::<Marker<2>>(),
            Kernel::SumLike => TypeId::of::<Marker<3>>(),
            Kernel::IndexAdd => TypeId::of::<Marker<4>>(),
            Kernel::VecAdd => TypeId::of::<Marker<5>>(),
            Kernel::Outer => TypeId::of::<Marker<6>>(),
            Kernel::Times => TypeId::of::<Marker<7>>(),
            Kernel::Over => TypeId::of::<Marker<8>>(),
        }
    }

    /// The operation, registered on first use.
    pub(crate) fn operation(self) -> Operation {
        static REGISTERED: OnceLock<()> = OnceLock::new();
        REGISTERED.get_or_init(|| {
            for k in Kernel::ALL {
                let forward = Arc::new(move |args: &[Value]| k.eval(args));
                match k {
                    Kernel::Times => register_scalar_form(k.key(), forward, ScalarForm::Times),
                    Kernel::Over => register_scalar_form(k.key(), forward, ScalarForm::Over),
                    Kernel::Select => register_scalar_form(k.key(), forward, ScalarForm::Select),
                    Kernel::ZerosLike => {
                        register_scalar_form(k.key(), forward, ScalarForm::Zeros);
                        crate::core::eval::mark_exact_zero(k.type_id());
                    }
                    Kernel::IndexAdd => {
                        register_scalar_form(k.key(), forward, ScalarForm::IndexAdd)
                    }
                    _ => register_forward(k.key(), forward, false),
                }
            }
        });
        Operation::Registered(self.key())
    }

    fn key(self) -> CalleeKey {
        CalleeKey {
            id: self.type_id(),
            name: self.name(),
        }
    }

    /// The kernel an operation is, if it is one.
    pub(crate) fn of(op: &Operation) -> Option<Kernel> {
        match op {
            Operation::Registered(k) => Kernel::ALL.into_iter().find(|c| c.type_id() == k.id),
            _ => None,
        }
    }

    /// How many operands it takes (`index_add`: at least this many, two more at a time).
    pub(crate) fn arity(self) -> usize {
        match self {
            Kernel::ZerosLike => 1,
            Kernel::Select | Kernel::IndexAdd => 3,
            _ => 2,
        }
    }

    /// Runs the kernel.
    pub(crate) fn eval(self, args: &[Value]) -> Result<Value, EvalError> {
        let fits = match self {
            Kernel::IndexAdd => args.len() >= 3 && args.len() % 2 == 1,
            _ => args.len() == self.arity(),
        };
        if !fits {
            return Err(EvalError::Arity {
                expected: self.arity(),
                got: args.len(),
            });
        }
        match self {
            Kernel::Select => match args[0].by_value().downcast_ref::<bool>() {
                Some(true) => Ok(args[1].clone()),
                Some(false) => Ok(args[2].clone()),
                None => Err(type_error(0, "a bool", &args[0])),
            },
            Kernel::ZerosLike => zeros_like(&args[0]),
            Kernel::BroadcastLike => arrays::broadcast_like(&args[0], &args[1]),
            Kernel::SumLike => arrays::sum_like(&args[0], &args[1]),
            Kernel::IndexAdd => index_add(&args[0], &args[1..]),
            Kernel::VecAdd => match (vector(&args[0]), vector(&args[1])) {
                (Some(a), Some(b)) if a.len() == b.len() => Ok(Value::snapshot(
                    a.iter().zip(b).map(|(p, q)| p + q).collect::<Vec<f64>>(),
                )),
                (Some(a), Some(b)) => Err(EvalError::Domain(format!(
                    "vectors of lengths {} and {} added",
                    a.len(),
                    b.len()
                ))),
                (None, _) => Err(type_error(0, "a `Vec<f64>`", &args[0])),
                (_, None) => Err(type_error(1, "a `Vec<f64>`", &args[1])),
            },
            Kernel::Outer => arrays::outer(&args[0], &args[1]),
            Kernel::Times => absorbing(args, times_f64, times_lanes_f64, times_f32),
            Kernel::Over => absorbing(args, over_f64, over_lanes_f64, over_f32),
        }
    }
}

/// [`Kernel::Times`] or [`Kernel::Over`] on two floats of one type, or elementwise on arrays.
fn absorbing(
    args: &[Value],
    f: impl Fn(f64, f64) -> f64,
    lanes: impl Fn(f64, f64) -> (f64, bool),
    f32: impl Fn(f32, f32) -> f32,
) -> Result<Value, EvalError> {
    use crate::core::op::ScalarType;
    let (a, b) = (args[0].by_value(), args[1].by_value());
    match (a.scalar_type(), b.scalar_type()) {
        (Some(ScalarType::F32), Some(ScalarType::F32)) => {
            match (a.downcast_ref::<f32>(), b.downcast_ref::<f32>()) {
                (Some(p), Some(q)) => Ok(f32(*p, *q).snapshot()),
                _ => Err(type_error(0, "an `f32`", &a)),
            }
        }
        (Some(ScalarType::F64), Some(ScalarType::F64)) => match (a.as_f64(), b.as_f64()) {
            (Some(p), Some(q)) => Ok(f(p, q).snapshot()),
            _ => Err(type_error(0, "an `f64`", &a)),
        },
        (Some(_), Some(_)) => Err(type_error(1, &format!("a `{}`", a.type_name()), &b)),
        _ => arrays::absorbing(&a, &b, lanes),
    }
}

macro_rules! absorbing_scalars {
    ($($t:ty: $times:ident, $over:ident, $times_noting:ident, $over_noting:ident;)*) => {$(
        impl Absorbing for $t {
            type Output = $t;
            // With a branch to a cold path, not the branch-free form of the array loops: a
            // scalar chain runs a dozen products, and the branch-free test cost emitted code
            // half again its time (`sin_exp_d4`, 56 → 83 ns).
            #[inline]
            fn times_noting(self, rhs: $t) -> ($t, bool) {
                $times_noting(self, rhs)
            }
            #[inline]
            fn over_noting(self, rhs: $t) -> ($t, bool) {
                $over_noting(self, rhs)
            }
            #[inline]
            fn times(self, rhs: $t) -> $t {
                $times(self, rhs)
            }
            #[inline]
            fn over(self, rhs: $t) -> $t {
                $over(self, rhs)
            }
        }
    )*};
}

absorbing_scalars! {
    f64: times_f64, over_f64, times_noting_f64, over_noting_f64;
    f32: times_f32, over_f32, times_noting_f32, over_noting_f32;
}

/// The products and quotients of derivative programs (`times`, `over` in their listings), for
/// code emitted by `diff::emit_rust` (feature `emit`): `a * b` and `a / b`, except that a zero
/// tangent stays zero where IEEE arithmetic would give NaN (`0 · ∞`, `0 / 0`), as the
/// gradient's sweep treats it. Implemented for `f64`, `f32`, and (feature `ndarray`) for
/// references to arrays of `f64`, with a scalar or another array (broadcasting as `*` does).
///
/// ```
/// use irtrack::diff::{over, times};
///
/// assert_eq!(times(0.0, f64::INFINITY), 0.0);
/// assert_eq!(times(2.0, 3.0), 6.0);
/// assert_eq!(over(0.0, 0.0), 0.0);
/// assert_eq!(over(1.0, 0.0), f64::INFINITY);
/// ```
pub trait Absorbing<Rhs = Self>: Sized {
    /// The result's type.
    type Output;
    /// `self * rhs`, 0 where a zero factor meets an infinite or NaN one, and whether it did.
    fn times_noting(self, rhs: Rhs) -> (Self::Output, bool);
    /// `self / rhs`, 0 where `self` is 0 and `rhs` is 0 or NaN, and whether it was.
    fn over_noting(self, rhs: Rhs) -> (Self::Output, bool);
    /// `self * rhs`, 0 where a zero factor meets an infinite or NaN one.
    fn times(self, rhs: Rhs) -> Self::Output {
        self.times_noting(rhs).0
    }
    /// `self / rhs`, 0 where `self` is 0 and `rhs` is 0 or NaN.
    fn over(self, rhs: Rhs) -> Self::Output {
        self.over_noting(rhs).0
    }
}

/// [`Absorbing::times`].
#[inline]
pub fn times<A: Absorbing<B>, B>(a: A, b: B) -> A::Output {
    a.times(b)
}

/// [`Absorbing::over`].
#[inline]
pub fn over<A: Absorbing<B>, B>(a: A, b: B) -> A::Output {
    a.over(b)
}

/// For code emitted by `diff::emit_rust` (feature `emit`): [`times`] and [`over`] that remember
/// whether one of them took ∞ or NaN into a zero, and the check of the derivative at the end.
///
/// A derivative is indeterminate where a zero that is only a limit, or a slope that
/// overflowed, went into it. A program called on new inputs (`Program::call`) looks for those
/// only where one of its products took an infinity into a zero or its result is infinite, and
/// then returns the value or a `ReplayError` naming the operation. Emitted code keeps none of
/// the bookkeeping that look needs, so it refuses at both signs: each of its closures with a
/// product has a `Noted` (a copy of the one of the closure that created it), and the last
/// closure returns [`checked`](Noted::checked)'s verdict. It never returns a value its program
/// would refuse, and refuses some its program returns (a pole's true ∞; a zero direction
/// meeting an infinite slope).
///
/// ```
/// use irtrack::diff::Noted;
///
/// let mut noted = Noted::default();
/// assert_eq!(noted.times(2.0, 3.0), 6.0);
/// assert_eq!(noted.checked(6.0, "refused"), Ok(6.0));
/// assert_eq!(noted.checked(f64::INFINITY, "refused"), Err("refused"));
/// assert_eq!(noted.checked(f64::NAN, "refused"), Err("refused"));
/// assert_eq!(noted.times(0.0, f64::INFINITY), 0.0);
/// assert_eq!(noted.checked(0.0, "refused"), Err("refused"));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Noted {
    absorbed: bool,
}

impl Noted {
    /// [`times`], noting whether it took ∞ or NaN into a zero.
    #[inline]
    pub fn times<A: Absorbing<B>, B>(&mut self, a: A, b: B) -> A::Output {
        let (r, hit) = a.times_noting(b);
        self.absorbed |= hit;
        r
    }

    /// [`over`], noting whether it took a NaN into a zero.
    #[inline]
    pub fn over<A: Absorbing<B>, B>(&mut self, a: A, b: B) -> A::Output {
        let (r, hit) = a.over_noting(b);
        self.absorbed |= hit;
        r
    }

    /// Whether a product or quotient took ∞ or NaN into a zero.
    pub fn absorbed(self) -> bool {
        self.absorbed
    }

    /// The derivative `value`, or `Err(message)` where emitted code cannot vouch for it: a
    /// product took an infinity into a zero (right only if that zero was exact), or `value` has
    /// an infinite element (an overflow a smaller factor should have brought back, or an ∞
    /// made from a zero that was only a limit, as well as a true pole) or a NaN (made from
    /// numbers, `∞ − ∞`, or the function's own: emitted code cannot tell which).
    ///
    /// # Errors
    /// `message`, as above.
    pub fn checked<T: Floats>(self, value: T, message: &'static str) -> Result<T, &'static str> {
        if self.absorbed || value.any_non_finite() {
            return Err(message);
        }
        Ok(value)
    }
}

/// A value [`Noted::checked`] can look into: a float, an integer or `bool` (never infinite), a
/// `Vec<f64>` or (feature `ndarray`) an array of `f64`.
pub trait Floats {
    /// Whether an element is ±∞.
    fn any_infinite(&self) -> bool;

    /// Whether an element is ±∞ or NaN (for a type of no NaN, [`any_infinite`](Floats::any_infinite)).
    fn any_non_finite(&self) -> bool {
        self.any_infinite()
    }
}

macro_rules! floats_of_scalars {
    (floats: $($f:ty),*; others: $($t:ty),*) => {
        $(impl Floats for $f {
            fn any_infinite(&self) -> bool {
                self.is_infinite()
            }
            fn any_non_finite(&self) -> bool {
                !self.is_finite()
            }
        })*
        $(impl Floats for $t {
            fn any_infinite(&self) -> bool {
                false
            }
        })*
    };
}

floats_of_scalars! {
    floats: f64, f32;
    others: bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
}

impl Floats for Vec<f64> {
    fn any_infinite(&self) -> bool {
        self.iter().any(|x| x.is_infinite())
    }
    fn any_non_finite(&self) -> bool {
        self.iter().any(|x| !x.is_finite())
    }
}

#[cfg(feature = "ndarray")]
impl<S: ndarray::Data<Elem = f64>, D: ndarray::Dimension> Floats for ndarray::ArrayBase<S, D> {
    fn any_infinite(&self) -> bool {
        self.iter().any(|x| x.is_infinite())
    }
    fn any_non_finite(&self) -> bool {
        self.iter().any(|x| !x.is_finite())
    }
}

#[cfg(feature = "ndarray")]
mod absorbing_arrays {
    use super::Absorbing;
    use crate::core::eval::{over_lanes_f64, times_lanes_f64};
    use ndarray::{Array, ArrayBase, CowArray, Data, DimMax, Dimension};

    /// `f` elementwise over `a` and `b` broadcast together, in one pass, and whether an
    /// element took ∞ or NaN into a zero: the interpreter's loops
    /// ([`super::arrays::absorbing`]), so emitted code computes what a program does.
    ///
    /// # Panics
    /// When the shapes do not broadcast, as `&a * &b` does.
    fn zip<S, S2, D, E>(
        a: &ArrayBase<S, D>,
        b: &ArrayBase<S2, E>,
        f: impl Fn(f64, f64) -> (f64, bool),
    ) -> (Array<f64, <D as DimMax<E>>::Output>, bool)
    where
        S: Data<Elem = f64>,
        S2: Data<Elem = f64>,
        D: Dimension + DimMax<E>,
        E: Dimension,
    {
        let x = CowArray::from(a.view().into_dyn());
        let y = CowArray::from(b.view().into_dyn());
        let (r, absorbed) = super::arrays::lanes(&x, &y, f).unwrap_or_else(|e| panic!("{e}"));
        let r = r
            .into_dimensionality()
            .expect("the broadcast shape has the larger operand's number of dimensions");
        (r, absorbed)
    }

    /// `f` of each element of `a` with a scalar, as [`zip`] does.
    fn with_scalar<S: Data<Elem = f64>, D: Dimension>(
        a: &ArrayBase<S, D>,
        f: impl Fn(f64) -> (f64, bool),
    ) -> (Array<f64, D>, bool) {
        let x = CowArray::from(a.view().into_dyn());
        let scalar = CowArray::from(ndarray::arr0(0.0).into_dyn());
        let (r, absorbed) =
            super::arrays::lanes(&x, &scalar, |p, _| f(p)).expect("a scalar broadcasts");
        let r = r
            .into_dimensionality()
            .expect("the result has the array's shape");
        (r, absorbed)
    }

    impl<S, S2, D, E> Absorbing<&ArrayBase<S2, E>> for &ArrayBase<S, D>
    where
        S: Data<Elem = f64>,
        S2: Data<Elem = f64>,
        D: Dimension + DimMax<E>,
        E: Dimension,
    {
        type Output = Array<f64, <D as DimMax<E>>::Output>;
        #[inline]
        fn times_noting(self, rhs: &ArrayBase<S2, E>) -> (Self::Output, bool) {
            zip(self, rhs, times_lanes_f64)
        }
        #[inline]
        fn over_noting(self, rhs: &ArrayBase<S2, E>) -> (Self::Output, bool) {
            zip(self, rhs, over_lanes_f64)
        }
    }

    impl<S: Data<Elem = f64>, D: Dimension> Absorbing<f64> for &ArrayBase<S, D> {
        type Output = Array<f64, D>;
        #[inline]
        fn times_noting(self, rhs: f64) -> (Array<f64, D>, bool) {
            with_scalar(self, |p| times_lanes_f64(p, rhs))
        }
        #[inline]
        fn over_noting(self, rhs: f64) -> (Array<f64, D>, bool) {
            with_scalar(self, |p| over_lanes_f64(p, rhs))
        }
    }

    impl<S: Data<Elem = f64>, D: Dimension> Absorbing<&ArrayBase<S, D>> for f64 {
        type Output = Array<f64, D>;
        #[inline]
        fn times_noting(self, rhs: &ArrayBase<S, D>) -> (Array<f64, D>, bool) {
            with_scalar(rhs, |q| times_lanes_f64(self, q))
        }
        #[inline]
        fn over_noting(self, rhs: &ArrayBase<S, D>) -> (Array<f64, D>, bool) {
            with_scalar(rhs, |q| over_lanes_f64(self, q))
        }
    }
}

fn type_error(operand: usize, expected: &str, got: &Value) -> EvalError {
    EvalError::Type {
        operand,
        expected: expected.into(),
        got: got.type_name().to_string(),
    }
}

fn vector(v: &Value) -> Option<&Vec<f64>> {
    v.downcast_ref::<Vec<f64>>()
}

fn zeros_like(a: &Value) -> Result<Value, EvalError> {
    let a = a.by_value();
    if a.downcast_ref::<f64>().is_some() {
        return Ok(0.0f64.snapshot());
    }
    if a.downcast_ref::<f32>().is_some() {
        return Ok(0.0f32.snapshot());
    }
    if let Some(v) = vector(&a) {
        return Ok(Value::snapshot(vec![0.0; v.len()]));
    }
    arrays::zeros_like(&a).ok_or_else(|| type_error(0, "a float, `Vec<f64>` or array of `f64`", &a))
}

fn index_add(base: &Value, pairs: &[Value]) -> Result<Value, EvalError> {
    if let Some(v) = base.floats() {
        let mut z = v.into_owned();
        add_at(&mut z, pairs)?;
        return Ok(Value::snapshot(z));
    }
    arrays::index_add(base, pairs)
}

/// `z[i] += x` for each pair `(i, x)` of `index_add`'s operands after the first.
fn add_at(z: &mut [f64], pairs: &[Value]) -> Result<(), EvalError> {
    for (k, pair) in pairs.chunks(2).enumerate() {
        let i = pair[0]
            .as_i64()
            .and_then(|i| usize::try_from(i).ok())
            .ok_or_else(|| type_error(1 + 2 * k, "an index", &pair[0]))?;
        let x = pair[1]
            .as_f64()
            .ok_or_else(|| type_error(2 + 2 * k, "an `f64`", &pair[1]))?;
        let len = z.len();
        *z.get_mut(i).ok_or_else(|| {
            EvalError::Domain(format!("index {i} out of bounds of {len} elements"))
        })? += x;
    }
    Ok(())
}

#[cfg(feature = "ndarray")]
mod arrays {
    use super::type_error;
    use crate::core::arrays::{array_primal, array_value, like};
    use crate::core::eval::EvalError;
    use crate::core::value::{Snapshot, Value};
    use ndarray::{ArrayD, Axis, CowArray, IxDyn};

    pub(super) fn zeros_like(a: &Value) -> Option<Value> {
        let shape = array_primal(a)?.raw_dim();
        like(ArrayD::zeros(shape), a)
    }

    /// `index_add` on a 1-D array: one copy of it, as a 1-D array of `f64`.
    pub(super) fn index_add(base: &Value, pairs: &[Value]) -> Result<Value, EvalError> {
        let mut a = array_primal(base)
            .and_then(|a| a.into_owned().into_dimensionality::<ndarray::Ix1>().ok())
            .ok_or_else(|| type_error(0, "a vector", base))?;
        if a.as_slice().is_none() {
            a = a.iter().copied().collect();
        }
        let z = a
            .as_slice_mut()
            .expect("an array collected from an iterator is contiguous");
        super::add_at(z, pairs)?;
        Ok(array_value(a))
    }

    pub(super) fn broadcast_like(t: &Value, y: &Value) -> Result<Value, EvalError> {
        let target = array_primal(y).ok_or_else(|| type_error(1, "an array of `f64`", y))?;
        let shape = target.raw_dim();
        if let Some(x) = t.by_value().as_f64() {
            return like(ArrayD::from_elem(shape, x), y)
                .ok_or_else(|| type_error(1, "an owned array of `f64`", y));
        }
        let a = array_primal(t).ok_or_else(|| type_error(0, "a float or an array", t))?;
        if a.shape() == target.shape() {
            return Ok(t.clone());
        }
        let b = a.broadcast(shape.clone()).ok_or_else(|| {
            EvalError::Domain(format!(
                "shape {:?} does not broadcast to {:?}",
                a.shape(),
                target.shape()
            ))
        })?;
        like(b.to_owned(), y).ok_or_else(|| type_error(1, "an owned array of `f64`", y))
    }

    pub(super) fn sum_like(t: &Value, a: &Value) -> Result<Value, EvalError> {
        let a = a.by_value();
        if t.by_value().as_f64().is_some() {
            if a.as_f64().is_some() {
                return Ok(t.by_value());
            }
            return Err(type_error(
                0,
                "an array (the shape of operand 2 or wider)",
                t,
            ));
        }
        let ct = array_primal(t).ok_or_else(|| type_error(0, "a float or an array", t))?;
        if a.downcast_ref::<f64>().is_some() {
            return Ok(ct.sum().snapshot());
        }
        let target = array_primal(&a).ok_or_else(|| type_error(1, "a float or an array", &a))?;
        if ct.shape() == target.shape() {
            return Ok(t.clone());
        }
        let mut r: ArrayD<f64> = ct.into_owned();
        while r.ndim() > target.ndim() {
            r = r.sum_axis(Axis(0));
        }
        for (k, &n) in target.shape().iter().enumerate() {
            if n == 1 && r.shape().get(k).is_some_and(|&m| m != 1) {
                r = r.sum_axis(Axis(k)).insert_axis(Axis(k));
            }
        }
        if r.shape() != target.shape() {
            return Err(EvalError::Domain(format!(
                "shape {:?} does not sum to {:?}",
                r.shape(),
                target.shape()
            )));
        }
        like(
            r.into_dimensionality::<IxDyn>()
                .map_err(|e| EvalError::Domain(e.to_string()))?,
            &a,
        )
        .ok_or_else(|| type_error(1, "an owned array of `f64`", &a))
    }

    /// `f` elementwise over two operands (arrays of `f64` or floats) broadcast together, of
    /// the widest array operand's type. `f` tells, with each element, whether it absorbed ∞
    /// or NaN into a zero; if any did, that is noted for `program::limit` to look closer.
    pub(super) fn absorbing(
        a: &Value,
        b: &Value,
        f: impl Fn(f64, f64) -> (f64, bool),
    ) -> Result<Value, EvalError> {
        use ndarray::arr0;
        fn operand(i: usize, v: &Value) -> Result<CowArray<'_, f64, IxDyn>, EvalError> {
            match v.as_f64() {
                Some(x) => Ok(CowArray::from(arr0(x).into_dyn())),
                None => array_primal(v).ok_or_else(|| type_error(i, "a float or an array", v)),
            }
        }
        let (x, y) = (operand(0, a)?, operand(1, b)?);
        let widest = if x.ndim() >= y.ndim() && array_primal(a).is_some() {
            a
        } else {
            b
        };
        let (r, absorbed) = lanes(&x, &y, f)?;
        if absorbed {
            crate::core::eval::note_absorbed();
        }
        Ok(crate::core::arrays::like_or_dyn(r, widest))
    }

    /// `f` elementwise over `x` and `y` broadcast together, and whether any element absorbed
    /// ∞ or NaN into a zero (`f` tells, with each).
    pub(super) fn lanes(
        x: &CowArray<'_, f64, IxDyn>,
        y: &CowArray<'_, f64, IxDyn>,
        f: impl Fn(f64, f64) -> (f64, bool),
    ) -> Result<(ArrayD<f64>, bool), EvalError> {
        let (r, absorbed) = match contiguous(x, y, &f) {
            Some(done) => done,
            None => {
                let shape = broadcast_shape(x.shape(), y.shape())?;
                let (Some(xb), Some(yb)) = (x.broadcast(shape.clone()), y.broadcast(shape)) else {
                    unreachable!("the shapes were checked to broadcast");
                };
                let mut absorbed = false;
                let r = ndarray::Zip::from(&xb).and(&yb).map_collect(|&p, &q| {
                    let (r, hit) = f(p, q);
                    absorbed |= hit;
                    r
                });
                (r, absorbed)
            }
        };
        Ok((r, absorbed))
    }

    /// The shape two operands broadcast to (NumPy's rules), or why they do not.
    fn broadcast_shape(x: &[usize], y: &[usize]) -> Result<IxDyn, EvalError> {
        let n = x.len().max(y.len());
        let pad = |s: &[usize]| {
            let mut p = vec![1; n - s.len()];
            p.extend_from_slice(s);
            p
        };
        let mut shape = Vec::with_capacity(n);
        for (&p, &q) in pad(x).iter().zip(&pad(y)) {
            if p != q && p != 1 && q != 1 {
                return Err(EvalError::Domain(format!(
                    "shapes {x:?} and {y:?} do not broadcast"
                )));
            }
            shape.push(p.max(q));
        }
        Ok(IxDyn(&shape))
    }

    /// The common case of [`absorbing`]: two operands of one shape in standard layout, or a
    /// scalar with such an array, in plain loops over slices with a local accumulator (the
    /// form LLVM vectorises; the general path's `Zip` does not, and a test with an early exit
    /// in the loop would keep it from vectorising: 2× slower). `None` for any other shape
    /// (broadcasts, views with strides), which the general path takes.
    fn contiguous(
        x: &CowArray<'_, f64, IxDyn>,
        y: &CowArray<'_, f64, IxDyn>,
        f: &impl Fn(f64, f64) -> (f64, bool),
    ) -> Option<(ArrayD<f64>, bool)> {
        let (p, q) = (x.as_slice()?, y.as_slice()?);
        let mut absorbed = false;
        let mut put = |r: &mut f64, a: f64, b: f64| {
            let (y, hit) = f(a, b);
            absorbed |= hit;
            *r = y;
        };
        let (shape, r) = if x.shape() == y.shape() {
            let mut r = vec![0.0; p.len()];
            for ((r, &a), &b) in r.iter_mut().zip(p).zip(q) {
                put(r, a, b);
            }
            (x.raw_dim(), r)
        } else if x.ndim() == 0 {
            let mut r = vec![0.0; q.len()];
            for (r, &b) in r.iter_mut().zip(q) {
                put(r, p[0], b);
            }
            (y.raw_dim(), r)
        } else if y.ndim() == 0 {
            let mut r = vec![0.0; p.len()];
            for (r, &a) in r.iter_mut().zip(p) {
                put(r, a, q[0]);
            }
            (x.raw_dim(), r)
        } else {
            return None;
        };
        Some((ArrayD::from_shape_vec(shape, r).ok()?, absorbed))
    }

    pub(super) fn outer(a: &Value, b: &Value) -> Result<Value, EvalError> {
        let x = array_primal(a)
            .filter(|x| x.ndim() == 1)
            .ok_or_else(|| type_error(0, "a 1-D array", a))?;
        let y = array_primal(b)
            .filter(|y| y.ndim() == 1)
            .ok_or_else(|| type_error(1, "a 1-D array", b))?;
        let (x, y): (Vec<f64>, Vec<f64>) =
            (x.iter().copied().collect(), y.iter().copied().collect());
        Ok(array_value(ndarray::Array2::from_shape_fn(
            (x.len(), y.len()),
            |(i, j)| x[i] * y[j],
        )))
    }
}

#[cfg(not(feature = "ndarray"))]
mod arrays {
    use crate::core::eval::EvalError;
    use crate::core::value::Value;

    fn needs() -> EvalError {
        EvalError::Domain("arrays need irtrack's `ndarray` feature".into())
    }
    pub(super) fn zeros_like(_: &Value) -> Option<Value> {
        None
    }
    pub(super) fn index_add(base: &Value, _: &[Value]) -> Result<Value, EvalError> {
        Err(super::type_error(0, "a vector", base))
    }
    pub(super) fn absorbing(
        a: &Value,
        _: &Value,
        _: impl Fn(f64, f64) -> (f64, bool),
    ) -> Result<Value, EvalError> {
        Err(super::type_error(
            0,
            "a float of the second operand's type",
            a,
        ))
    }
    pub(super) fn broadcast_like(_: &Value, _: &Value) -> Result<Value, EvalError> {
        Err(needs())
    }
    pub(super) fn sum_like(t: &Value, a: &Value) -> Result<Value, EvalError> {
        match (t.as_f64(), a.as_f64()) {
            (Some(_), Some(_)) => Ok(t.by_value()),
            _ => Err(needs()),
        }
    }
    pub(super) fn outer(_: &Value, _: &Value) -> Result<Value, EvalError> {
        Err(needs())
    }
}

/// `t` summed over the axes broadcasting added to `like`'s shape (the transpose of
/// broadcasting `like` to `t`'s shape): what code emitted by
/// `diff::emit_rust` (feature `emit`) calls where a reverse-mode program sends a cotangent back
/// to an operand that was broadcast.
///
/// `t` is taken by value so that a cotangent of `like`'s shape, the common case, is returned
/// as it is, without a copy.
///
/// ```
/// use ndarray::{array, Array1};
///
/// let t = array![[1.0, 2.0], [3.0, 4.0]];
/// let like: Array1<f64> = array![0.0, 0.0];
/// assert_eq!(irtrack::diff::sum_like(t, &like), array![4.0, 6.0]);
/// ```
///
/// # Panics
/// When `t`'s shape is not `like`'s broadcast.
#[cfg(feature = "ndarray")]
pub fn sum_like<D, E>(
    t: ndarray::Array<f64, D>,
    like: &ndarray::Array<f64, E>,
) -> ndarray::Array<f64, E>
where
    D: ndarray::Dimension + 'static,
    E: ndarray::Dimension + 'static,
{
    use ndarray::Axis;
    let mut r = t.into_dyn();
    while r.ndim() > like.ndim() {
        r = r.sum_axis(Axis(0));
    }
    for (k, &n) in like.shape().iter().enumerate() {
        if n == 1 && r.shape()[k] != 1 {
            r = r.sum_axis(Axis(k)).insert_axis(Axis(k));
        }
    }
    assert_eq!(
        r.shape(),
        like.shape(),
        "a cotangent that does not sum to its operand's shape"
    );
    r.into_dimensionality::<E>()
        .expect("the shape was checked above")
}
