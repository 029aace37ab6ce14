//! Values held by trace nodes, and how they are captured from user data.
//!
//! Capture never needs `'static` or `Clone` of the user's type: the code `#[tracked]`
//! generates picks the richest way that applies to the value's type (autoref specialisation,
//! see [`capture`]): a [`Snapshot`] (scalars typed, containers cloned and downcastable), its
//! `Debug` text, or only its type. Scalars are recognised by their type, not their text, also
//! in generic code where the type is a parameter (`T` instantiated with `f64` records an
//! `f64`), through `castaway`'s zero-cost casts.

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// A recorded value: a typed scalar, a snapshot that can be downcast, the `Debug` text of a
/// value that has no snapshot, or only the type of a value that has neither.
#[derive(Clone)]
pub struct Value(pub(crate) Repr);

#[derive(Clone)]
pub(crate) enum Repr {
    Scalar(Scalar, Form),
    Boxed(Arc<Boxed>),
}

/// How a scalar was held: by value or behind a reference (`x::&f64` in a listing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Form {
    Val,
    Ref,
    RefMut,
}

/// A value that is not a scalar, and what is known of it: one allocation, the snapshot (when
/// there is one) inline after the fields (`V` is its type until the `Arc` is made, then
/// `dyn SnapshotValue`; a text or a bare type keeps `()` there).
pub(crate) struct Boxed<V: ?Sized + SnapshotValue = dyn SnapshotValue> {
    pub(crate) type_name: Cow<'static, str>,
    pub(crate) type_id: Option<TypeId>,
    /// For a fixed-size array of floats, its elements (an `[f64; N]` cannot be downcast
    /// without knowing `N`).
    pub(crate) floats: Option<FloatsOf>,
    /// For an `Option` or `Result` of a float, its content (`None` for `None`/`Err`).
    pub(crate) wrapped: Option<WrappedOf>,
    /// For a struct deriving `Snapshot`, its float fields by name (see [`FieldsOf`]).
    pub(crate) fields: Option<FieldsOf>,
    kind: Kind,
    value: V,
}

/// What a [`Boxed`] holds.
enum Kind {
    /// The value itself, in `value`.
    Snapshot,
    /// Its `Debug` text.
    Text(Box<str>),
    /// Only its type.
    Opaque,
}

impl Boxed {
    /// What the value holds, to read.
    pub(crate) fn body(&self) -> Body<'_> {
        match &self.kind {
            Kind::Snapshot => Body::Snapshot(&self.value),
            Kind::Text(t) => Body::Text(t),
            Kind::Opaque => Body::Opaque,
        }
    }
}

/// Reads the value inside an `Option`, `Result` or `Box` kept as a snapshot.
pub(crate) type WrappedOf = fn(&dyn Any) -> Option<Option<Value>>;

/// Reads a field of a struct kept as a snapshot, by name (`"a"`, `"0"`): `#[derive(Snapshot)]`
/// writes one for the fields whose type is written `f64`, `f32`, `Vec<f64>` or `Vec<f32>`, so
/// that a recorded field read can be checked against the value it read from (a struct changed
/// by a method the trace does not see: `Sweep::current_field`).
pub type FieldsOf = fn(&dyn Any, &str) -> Option<Value>;

fn wrapped_option<T: Owned>(a: &dyn Any) -> Option<Option<Value>> {
    let o = a.downcast_ref::<Option<T>>()?;
    Some(o.as_ref().map(|x| Value::snapshot(x.clone())))
}

fn wrapped_result<T: Owned, E: 'static>(a: &dyn Any) -> Option<Option<Value>> {
    let r = a.downcast_ref::<Result<T, E>>()?;
    Some(r.as_ref().ok().map(|x| Value::snapshot(x.clone())))
}

fn wrapped_box<T: Owned>(a: &dyn Any) -> Option<Option<Value>> {
    Some(Some(Value::snapshot(
        (**a.downcast_ref::<Box<T>>()?).clone(),
    )))
}

/// Reads the elements of an array of floats kept as a snapshot.
pub(crate) type FloatsOf = fn(&dyn Any) -> Option<Vec<f64>>;

fn floats_of_array<T: 'static, const N: usize>(a: &dyn Any) -> Option<Vec<f64>> {
    let a = a.downcast_ref::<[T; N]>()?;
    if let Ok(s) = castaway::cast!(&a[..], &[f64]) {
        return Some(s.to_vec());
    }
    castaway::cast!(&a[..], &[f32])
        .ok()
        .map(|s| s.iter().map(|&x| x as f64).collect())
}

/// What a boxed value holds: the value, its `Debug` text, or nothing but its type.
pub(crate) enum Body<'a> {
    Snapshot(&'a dyn SnapshotValue),
    Text(&'a str),
    Opaque,
}

macro_rules! scalars {
    ($($variant:ident($t:ty) = $tag:literal),* $(,)?) => {
        /// A scalar kept typed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub(crate) enum Scalar { Unit, $($variant($t)),* }

        impl Scalar {
            /// The column tag of this scalar's kind (0 for `()`).
            pub(crate) fn tag(&self) -> u8 {
                match self { Scalar::Unit => 0, $(Scalar::$variant(_) => $tag),* }
            }

            fn as_any(&self) -> &dyn Any {
                match self { Scalar::Unit => &(), $(Scalar::$variant(v) => v),* }
            }

            fn fmt_debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    Scalar::Unit => f.write_str("()"),
                    $(Scalar::$variant(v) => fmt::Debug::fmt(v, f)),*
                }
            }

            fn type_name(&self, form: Form) -> &'static str {
                match (self, form) {
                    (Scalar::Unit, Form::Val) => "()",
                    (Scalar::Unit, Form::Ref) => "&()",
                    (Scalar::Unit, Form::RefMut) => "&mut ()",
                    $(
                        (Scalar::$variant(_), Form::Val) => stringify!($t),
                        (Scalar::$variant(_), Form::Ref) => concat!("&", stringify!($t)),
                        (Scalar::$variant(_), Form::RefMut) => concat!("&mut ", stringify!($t)),
                    )*
                }
            }

            fn type_id(&self, form: Form) -> TypeId {
                match (self, form) {
                    (Scalar::Unit, Form::Val) => TypeId::of::<()>(),
                    (Scalar::Unit, Form::Ref) => TypeId::of::<&'static ()>(),
                    (Scalar::Unit, Form::RefMut) => TypeId::of::<&'static mut ()>(),
                    $(
                        (Scalar::$variant(_), Form::Val) => TypeId::of::<$t>(),
                        (Scalar::$variant(_), Form::Ref) => TypeId::of::<&'static $t>(),
                        (Scalar::$variant(_), Form::RefMut) => TypeId::of::<&'static mut $t>(),
                    )*
                }
            }
        }

        /// Recognises a scalar of a type only known as a parameter, by its type.
        fn typed_scalar<T: ?Sized>(v: &T) -> Option<(Scalar, Form)> {
            $(
                if let Ok(x) = castaway::cast!(v, &$t) {
                    return Some((Scalar::$variant(*x), Form::Val));
                }
            )*
            None
        }

        /// [`typed_scalar`] of a sized type: each cast is compiled only where the type is laid
        /// out as the scalar (`same_layout`), so a type records with the few casts it could
        /// pass (five for an 8-byte type, none for most).
        fn typed_scalar_sized<T>(v: &T) -> Option<(Scalar, Form)> {
            $(
                if const { same_layout::<T, $t>() } {
                    if let Ok(x) = castaway::cast!(v, &$t) {
                        return Some((Scalar::$variant(*x), Form::Val));
                    }
                }
            )*
            None
        }

        $(
            impl Snapshot for $t {
                #[inline]
                fn snapshot(&self) -> Value {
                    Value(Repr::Scalar(Scalar::$variant(*self), Form::Val))
                }
            }
            impl Owned for $t {}
        )*
    };
}

scalars!(
    Bool(bool) = 1,
    Char(char) = 2,
    I8(i8) = 3,
    I16(i16) = 4,
    I32(i32) = 5,
    I64(i64) = 6,
    Isize(isize) = 7,
    U8(u8) = 8,
    U16(u16) = 9,
    U32(u32) = 10,
    U64(u64) = 11,
    Usize(usize) = 12,
    F32(f32) = 13,
    F64(f64) = 14,
);

impl Scalar {
    /// An integer's value, of any integer type (`u64` past `i64::MAX`: a float's bits).
    pub(crate) fn as_i128(self) -> Option<i128> {
        match self {
            Scalar::U64(v) => Some(v.into()),
            Scalar::Usize(v) => Some(v as i128),
            Scalar::Isize(v) => Some(v as i128),
            other => other.as_i64().map(i128::from),
        }
    }

    /// An integer's value as an `i64`, when it fits.
    pub(crate) fn as_i64(self) -> Option<i64> {
        match self {
            Scalar::I8(v) => Some(v.into()),
            Scalar::I16(v) => Some(v.into()),
            Scalar::I32(v) => Some(v.into()),
            Scalar::I64(v) => Some(v),
            Scalar::Isize(v) => i64::try_from(v).ok(),
            Scalar::U8(v) => Some(v.into()),
            Scalar::U16(v) => Some(v.into()),
            Scalar::U32(v) => Some(v.into()),
            Scalar::U64(v) => i64::try_from(v).ok(),
            Scalar::Usize(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }

    pub(crate) fn as_f64(&self) -> Option<f64> {
        match *self {
            Scalar::F64(v) => Some(v),
            Scalar::F32(v) => Some(v as f64),
            _ => None,
        }
    }
}

/// A cloned value kept by a snapshot: downcastable and printable.
pub trait SnapshotValue: Any + Send + Sync {
    /// The value as `Any`, for downcasting.
    fn as_any(&self) -> &dyn Any;
    /// Writes the value's `Debug` text.
    fn fmt_debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

impl<T: Any + Send + Sync + fmt::Debug> SnapshotValue for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn fmt_debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(feature = "ndarray")]
/// A snapshot printed by its own function instead of its `Debug` (ndarray's `Debug` spans lines
/// and ends in shape and layout details a listing has no room for). Downcasts to `T`.
struct Shown<T> {
    value: T,
    show: fn(&T, &mut fmt::Formatter<'_>) -> fmt::Result,
}

#[cfg(feature = "ndarray")]
impl<T: Any + Send + Sync> SnapshotValue for Shown<T> {
    fn as_any(&self) -> &dyn Any {
        &self.value
    }
    fn fmt_debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (self.show)(&self.value, f)
    }
}

impl Value {
    /// The unit value `()`.
    pub const UNIT: Value = Value(Repr::Scalar(Scalar::Unit, Form::Val));

    /// A snapshot of `value`, in one allocation.
    fn boxed<V: SnapshotValue>(
        type_name: Cow<'static, str>,
        type_id: Option<TypeId>,
        value: V,
    ) -> Value {
        Value::boxed_as(type_name, type_id, Kind::Snapshot, value)
    }

    /// A value known only by its text (`Some`) or type (`None`).
    fn unboxed(
        type_name: Cow<'static, str>,
        type_id: Option<TypeId>,
        text: Option<Box<str>>,
    ) -> Value {
        let kind = match text {
            Some(t) => Kind::Text(t),
            None => Kind::Opaque,
        };
        Value::boxed_as(type_name, type_id, kind, ())
    }

    fn boxed_as<V: SnapshotValue>(
        type_name: Cow<'static, str>,
        type_id: Option<TypeId>,
        kind: Kind,
        value: V,
    ) -> Value {
        let b: Arc<Boxed> = Arc::new(Boxed {
            type_name,
            type_id,
            floats: None,
            wrapped: None,
            fields: None,
            kind,
            value,
        });
        Value(Repr::Boxed(b))
    }

    /// A snapshot of a struct whose float fields `fields` reads (what `#[derive(Snapshot)]`
    /// records).
    #[doc(hidden)]
    pub fn snapshot_with_fields<T: Any + Send + Sync + fmt::Debug>(
        value: T,
        fields: FieldsOf,
    ) -> Value {
        let mut v = Value::snapshot(value);
        if let Repr::Boxed(b) = &mut v.0 {
            if let Some(b) = Arc::get_mut(b) {
                b.fields = Some(fields);
            }
        }
        v
    }

    /// The field `name` of a struct kept as a snapshot with a reader of its float fields.
    pub(crate) fn field(&self, name: &str) -> Option<Value> {
        let Repr::Boxed(b) = &self.0 else {
            return None;
        };
        let read = b.fields?;
        match b.body() {
            Body::Snapshot(v) => read(v.as_any(), name),
            _ => None,
        }
    }

    /// The value inside an `Option`, `Result` or `Box` kept as a snapshot: `Some(Some(x))`
    /// for `Some(x)`/`Ok(x)`/`Box(x)`, `Some(None)` for `None`/`Err(…)`, `None` for any other
    /// value.
    pub fn wrapped(&self) -> Option<Option<Value>> {
        let Repr::Boxed(b) = &self.0 else {
            return None;
        };
        let Body::Snapshot(v) = b.body() else {
            return None;
        };
        b.wrapped.and_then(|f| f(v.as_any()))
    }

    /// The float inside an `Option` or `Result` of a float (see [`Value::wrapped`]).
    pub fn wrapped_float(&self) -> Option<Option<f64>> {
        match self.wrapped()? {
            Some(v) => v.as_f64().map(Some),
            None => Some(None),
        }
    }

    /// The elements of a vector or array of floats (`Vec`, slice or fixed-size array of `f64`
    /// or `f32`), as `f64`s.
    pub fn floats(&self) -> Option<Cow<'_, [f64]>> {
        let Repr::Boxed(b) = &self.0 else {
            return None;
        };
        let Body::Snapshot(v) = b.body() else {
            return None;
        };
        let any = v.as_any();
        if let Some(v) = any.downcast_ref::<Vec<f64>>() {
            return Some(Cow::Borrowed(v));
        }
        if let Some(v) = any.downcast_ref::<Vec<f32>>() {
            return Some(Cow::Owned(v.iter().map(|&x| x as f64).collect()));
        }
        b.floats.and_then(|f| f(any)).map(Cow::Owned)
    }

    /// Whether some float of a float, vector or array of floats satisfies `p` (read where it
    /// is: a vector or array is not copied).
    pub(crate) fn any_float(&self, p: impl Fn(f64) -> bool) -> bool {
        if let Some(x) = self.by_value().as_f64() {
            return p(x);
        }
        if let Some(x) = self.floats() {
            return x.iter().any(|&v| p(v));
        }
        #[cfg(feature = "ndarray")]
        if let Some(a) = crate::core::arrays::array_primal(self) {
            return a.iter().any(|&v| p(v));
        }
        false
    }

    /// The elements of a float, vector or array of floats, in order.
    pub(crate) fn float_elements(&self) -> Option<Vec<f64>> {
        if let Some(x) = self.by_value().as_f64() {
            return Some(vec![x]);
        }
        if let Some(x) = self.floats() {
            return Some(x.into_owned());
        }
        #[cfg(feature = "ndarray")]
        if let Some(a) = crate::core::arrays::array_primal(self) {
            return Some(a.iter().copied().collect());
        }
        None
    }

    /// Like [`Value::snapshot`], printed by `show` instead of `T`'s `Debug`.
    #[cfg(feature = "ndarray")]
    pub(crate) fn snapshot_shown<T: Any + Send + Sync>(
        value: T,
        show: fn(&T, &mut fmt::Formatter<'_>) -> fmt::Result,
    ) -> Value {
        Value::boxed(
            Cow::Borrowed(std::any::type_name::<T>()),
            Some(TypeId::of::<T>()),
            Shown { value, show },
        )
    }

    /// A value that keeps a clone of `value`, recoverable with [`Value::downcast_ref`].
    ///
    /// ```
    /// use irtrack::Value;
    /// let v = Value::snapshot(vec![1.0, 2.0]);
    /// assert_eq!(v.downcast_ref::<Vec<f64>>(), Some(&vec![1.0, 2.0]));
    /// assert_eq!(v.to_string(), "[1.0, 2.0]");
    /// ```
    pub fn snapshot<T: Any + Send + Sync + fmt::Debug>(value: T) -> Value {
        // Each cast is compiled only for a type laid out as its target (`same_layout`).
        if let Some((s, form)) = typed_scalar_sized(&value) {
            return Value(Repr::Scalar(s, form));
        }
        // `()` is one value, as `().snapshot()` makes it: a boxed copy would not compare as
        // the same type (a `jvp` direction `Value::snapshot(())` was refused as "not a `()`").
        if const { same_layout::<T, ()>() } && castaway::cast!(&value, &()).is_ok() {
            return Value::UNIT;
        }
        Value::boxed(
            Cow::Borrowed(std::any::type_name::<T>()),
            Some(TypeId::of::<T>()),
            value,
        )
    }

    /// A value known by its `Debug` text. A scalar, a `String` or a vector of scalars,
    /// recognised by its type, is kept typed.
    ///
    /// ```
    /// use irtrack::Value;
    /// assert_eq!(Value::text(&2.5f32).as_f64(), Some(2.5));
    /// assert_eq!(Value::text(&Some(1)).to_string(), "Some(1)");
    /// assert_eq!(Value::text(&Some(1)).downcast_ref::<Option<i32>>(), None);
    /// // A vector of scalars is recognised by its type too.
    /// assert_eq!(Value::text(&vec![1.0]).downcast_ref::<Vec<f64>>(), Some(&vec![1.0]));
    /// ```
    pub fn text<T: ?Sized + fmt::Debug>(value: &T) -> Value {
        if let Some((s, form)) = typed_scalar(value) {
            return Value(Repr::Scalar(s, form));
        }
        if let Some(v) = typed_container(value) {
            return v;
        }
        Value::unboxed(
            Cow::Borrowed(std::any::type_name::<T>()),
            Some(typeid::of::<T>()),
            Some(format!("{value:?}").into()),
        )
    }

    /// [`Value::text`] of a sized type: the tests for a scalar or a container recognised by its
    /// type are compiled only for the types whose layout can be one (`same_layout`), which is
    /// what capture instantiates for every recorded type.
    pub(crate) fn text_sized<T: fmt::Debug>(value: &T) -> Value {
        if let Some((s, form)) = typed_scalar_sized(value) {
            return Value(Repr::Scalar(s, form));
        }
        if let Some(v) = typed_container_sized(value) {
            return v;
        }
        Value::unboxed(
            Cow::Borrowed(std::any::type_name::<T>()),
            Some(typeid::of::<T>()),
            Some(format!("{value:?}").into()),
        )
    }

    /// A value known only by its type.
    pub fn opaque<T: ?Sized>() -> Value {
        Value::unboxed(
            Cow::Borrowed(std::any::type_name::<T>()),
            Some(typeid::of::<T>()),
            None,
        )
    }

    /// The value of `value` in the richest form its type allows without a bound: a typed
    /// scalar, a clone of a `String` or of a vector of scalars, else only the type. This is
    /// how generic code records `T` (see the module docs).
    pub fn of<T: ?Sized>(value: &T) -> Value {
        if let Some((s, form)) = typed_scalar(value) {
            return Value(Repr::Scalar(s, form));
        }
        if let Some(v) = typed_container(value) {
            return v;
        }
        Value::opaque::<T>()
    }

    /// The same value, reported under the type of `T` (a reference to a snapshot type records
    /// its referent, under the reference's type).
    pub fn renamed<T: ?Sized>(self) -> Value {
        match self.0 {
            Repr::Scalar(s, _) => {
                let form = if typeid::of::<T>() == s.type_id(Form::Ref) {
                    Form::Ref
                } else if typeid::of::<T>() == s.type_id(Form::RefMut) {
                    Form::RefMut
                } else {
                    Form::Val
                };
                Value(Repr::Scalar(s, form))
            }
            Repr::Boxed(mut b) => {
                let (name, id) = (Cow::Borrowed(std::any::type_name::<T>()), typeid::of::<T>());
                // A fresh value (what capture renames) is renamed in place.
                if let Some(fresh) = Arc::get_mut(&mut b) {
                    fresh.type_name = name;
                    fresh.type_id = Some(id);
                    return Value(Repr::Boxed(b));
                }
                let text = match b.body() {
                    Body::Text(t) => Some(t.into()),
                    Body::Opaque => None,
                    // A shared snapshot keeps its own type name; only fresh values are
                    // renamed, so this is not reached by capture.
                    Body::Snapshot(_) => return Value(Repr::Boxed(b)),
                };
                let mut v = Value::unboxed(name, Some(id), text);
                if let Repr::Boxed(new) = &mut v.0 {
                    if let Some(new) = Arc::get_mut(new) {
                        new.floats = b.floats;
                        new.wrapped = b.wrapped;
                        new.fields = b.fields;
                    }
                }
                v
            }
        }
    }

    /// A value known by its text (or, for `None`, only its type) under a type name that need
    /// not be a type of this program: a value read back from JSON.
    pub fn foreign(type_name: impl Into<Cow<'static, str>>, text: Option<&str>) -> Value {
        Value::unboxed(type_name.into(), None, text.map(Into::into))
    }

    /// The full type name of the recorded value, as `std::any::type_name` gives it.
    pub fn type_name(&self) -> &str {
        match &self.0 {
            Repr::Scalar(s, form) => s.type_name(*form),
            Repr::Boxed(b) => &b.type_name,
        }
    }

    /// The `TypeId` of the recorded value's type (lifetimes erased), when the value was
    /// recorded in this process.
    pub fn type_id(&self) -> Option<TypeId> {
        match &self.0 {
            Repr::Scalar(s, form) => Some(s.type_id(*form)),
            Repr::Boxed(b) => b.type_id,
        }
    }

    /// Whether two values have the same type, by `TypeId`. A value without one (read back
    /// from JSON, which keeps only a type's name) is never known to be of the same type: a
    /// name is for printing, and two types can share one, so the checks built on this (a
    /// direction, a replayed result, an updated argument) refuse it rather than guess.
    ///
    /// ```
    /// use irtrack::Value;
    /// assert!(Value::snapshot(1.0f64).same_type(&Value::snapshot(2.0f64)));
    /// assert!(!Value::snapshot(1.0f64).same_type(&Value::snapshot(2.0f32)));
    /// let read_back = Value::foreign("my::Point", Some("Point { x: 1 }"));
    /// assert!(!read_back.same_type(&read_back));
    /// ```
    pub fn same_type(&self, other: &Value) -> bool {
        matches!((self.type_id(), other.type_id()), (Some(a), Some(b)) if a == b)
    }

    /// The value as a `T`, if it was stored as one (scalars, also behind a reference, and
    /// snapshots).
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        match &self.0 {
            Repr::Scalar(s, _) => s.as_any().downcast_ref(),
            Repr::Boxed(b) => match b.body() {
                Body::Snapshot(v) => v.as_any().downcast_ref(),
                Body::Text(_) | Body::Opaque => None,
            },
        }
    }

    /// The value as an `f64`, when it is an `f64` or an `f32` (also behind references).
    ///
    /// ```
    /// use irtrack::Value;
    /// assert_eq!(Value::text(&2.5f32).as_f64(), Some(2.5));
    /// assert_eq!(Value::text(&2).as_f64(), None);
    /// ```
    #[inline]
    pub fn as_f64(&self) -> Option<f64> {
        match &self.0 {
            Repr::Scalar(s, _) => s.as_f64(),
            Repr::Boxed(_) => None,
        }
    }

    /// The value of an integer of any type (also behind references).
    pub(crate) fn as_i128(&self) -> Option<i128> {
        match &self.0 {
            Repr::Scalar(s, _) => s.as_i128(),
            Repr::Boxed(_) => None,
        }
    }

    /// The value as an `i64`, when it is an integer that fits (also behind references).
    pub fn as_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Scalar(s, _) => s.as_i64(),
            Repr::Boxed(_) => None,
        }
    }

    /// The scalar type of a typed scalar (also behind a reference): `F64` for an `f64` or an
    /// `&f64`; `None` for `()` and for values that are not scalars.
    pub fn scalar_type(&self) -> Option<super::op::ScalarType> {
        match &self.0 {
            Repr::Scalar(Scalar::Unit, _) | Repr::Boxed(_) => None,
            Repr::Scalar(s, _) => super::op::ScalarType::from_name(s.type_name(Form::Val)),
        }
    }

    /// Whether both values are the same scalar, references looked through, floats compared
    /// bit for bit (any NaN equal to any NaN).
    pub fn same_scalar(&self, other: &Value) -> bool {
        match (&self.0, &other.0) {
            (Repr::Scalar(Scalar::F64(a), _), Repr::Scalar(Scalar::F64(b), _)) => same_f64(*a, *b),
            (Repr::Scalar(Scalar::F32(a), _), Repr::Scalar(Scalar::F32(b), _)) => {
                same_f64(f64::from(*a), f64::from(*b))
            }
            (Repr::Scalar(a, _), Repr::Scalar(b, _)) => a == b,
            _ => false,
        }
    }

    /// Whether both values are provably the same value, bit for bit: `Some(true)` when they
    /// are, `Some(false)` when they provably differ, `None` when irtrack cannot tell.
    ///
    /// Scalars compare bit for bit (references looked through; `-0.0` is not `0.0`, a NaN
    /// equals only a NaN with the same bits), and so do the floats of a vector, array or
    /// `ndarray` array. A snapshot of a type irtrack knows (a string, the std containers and
    /// pairs of scalars) compares element by element the same way; any other type made only
    /// of scalars, strings and std containers with a derived `Debug` (tuples, nested
    /// vectors, `Result`s) by its `Debug` text, which tells every such value apart but NaNs
    /// (`None` when there is one); two handles to one recorded value are the same. Anything
    /// else — a snapshot of a user's type, whose only comparison would be its `Debug` text
    /// (which can print two values alike) or a `PartialEq` (which calls `-0.0` and `0.0`
    /// equal), a value known only by its type — is `None`.
    pub(crate) fn exact_eq(&self, other: &Value) -> Option<bool> {
        let (x, y) = match (&self.0, &other.0) {
            (Repr::Scalar(a, _), Repr::Scalar(b, _)) => return Some(a.exact(b)),
            (Repr::Boxed(x), Repr::Boxed(y)) => (x, y),
            _ => return Some(false),
        };
        if Arc::ptr_eq(x, y) {
            return Some(true);
        }
        let (Body::Snapshot(p), Body::Snapshot(q)) = (x.body(), y.body()) else {
            // A text and a text or a snapshot, of one type known in this process whose `Debug`
            // is std's.
            let same_type = x.type_id.is_some() && x.type_id == y.type_id;
            if same_type && !x.kind.is_opaque() && !y.kind.is_opaque() {
                return faithful_text(&x.type_name, &self.to_string(), &other.to_string());
            }
            return None;
        };
        let (p, q) = (p.as_any(), q.as_any());
        // Arrays of floats (a fixed size or `ndarray`), read as `f64`s: an `f32`'s conversion
        // is exact except that it can merge two NaNs, so where there is a NaN (of either
        // width: the reading does not say which) they are not told apart.
        let elements = |a: &[f64], b: &[f64]| {
            if a.iter().chain(b).any(|v| v.is_nan()) {
                return None;
            }
            Some(a.len() == b.len() && a.iter().zip(b).all(|(u, v)| u.to_bits() == v.to_bits()))
        };
        if p.type_id() != q.type_id() {
            // The same floats in another container: an array passed on as a slice (`sums(&v)`
            // with `v: [f64; 2]`, which programs took for a value changed in between).
            return match (self.floats(), other.floats()) {
                (Some(a), Some(b)) => elements(&a, &b),
                _ => Some(false),
            };
        }
        if let Some(same) = exact_any(p, q) {
            return Some(same);
        }
        if let (Some(a), Some(b)) = (self.floats(), other.floats()) {
            return elements(&a, &b);
        }
        #[cfg(feature = "ndarray")]
        if let (Some(a), Some(b)) = (
            crate::core::arrays::array_primal(self),
            crate::core::arrays::array_primal(other),
        ) {
            if a.shape() != b.shape() {
                return Some(false);
            }
            let (a, b): (Vec<f64>, Vec<f64>) =
                (a.iter().copied().collect(), b.iter().copied().collect());
            return elements(&a, &b);
        }
        faithful_text(&x.type_name, &self.to_string(), &other.to_string())
    }

    /// The value itself when it is a scalar behind a reference (`&2.0` → `2.0`); else a clone.
    pub fn by_value(&self) -> Value {
        match &self.0 {
            Repr::Scalar(s, _) => Value(Repr::Scalar(*s, Form::Val)),
            Repr::Boxed(_) => self.clone(),
        }
    }

    /// Whether the value is the unit value `()`.
    pub fn is_unit(&self) -> bool {
        matches!(self.0, Repr::Scalar(Scalar::Unit, Form::Val))
    }

    /// Whether the value is a typed scalar: a number, `bool`, `char` or `()`, also behind a
    /// reference.
    pub fn is_scalar(&self) -> bool {
        matches!(self.0, Repr::Scalar(..))
    }

    /// Whether the value is a typed scalar other than `()` held by value, not behind a
    /// reference (a fresh value: nothing can be written through it).
    pub(crate) fn is_scalar_by_value(&self) -> bool {
        matches!(&self.0, Repr::Scalar(s, Form::Val) if *s != Scalar::Unit)
    }

    /// Whether the value is a float (`f32`/`f64`) held by value, not behind a reference.
    pub fn is_float_value(&self) -> bool {
        matches!(
            self.0,
            Repr::Scalar(Scalar::F32(_) | Scalar::F64(_), Form::Val)
        )
    }

    /// Whether the value is discrete: a scalar other than a float (an integer, `bool`, `char`)
    /// or a string. Nothing differentiable flows through such a value.
    pub fn is_discrete(&self) -> bool {
        match &self.0 {
            Repr::Scalar(Scalar::F64(_) | Scalar::F32(_) | Scalar::Unit, _) => false,
            Repr::Scalar(..) => true,
            Repr::Boxed(b) => {
                let str_ids = [
                    TypeId::of::<String>(),
                    TypeId::of::<&'static str>(),
                    TypeId::of::<&'static String>(),
                    TypeId::of::<str>(),
                ];
                b.type_id.is_some_and(|t| str_ids.contains(&t))
            }
        }
    }

    /// Whether only the type of the value is known (it had neither a snapshot nor `Debug`).
    pub fn is_opaque(&self) -> bool {
        matches!(&self.0, Repr::Boxed(b) if matches!(b.kind, Kind::Opaque))
    }

    /// Whether the value is kept only as its `Debug` text.
    pub fn is_text(&self) -> bool {
        matches!(&self.0, Repr::Boxed(b) if matches!(b.kind, Kind::Text(_)))
    }
}

impl Kind {
    fn is_opaque(&self) -> bool {
        matches!(self, Kind::Opaque)
    }
}

/// Compares two values of the type named `type_name` by their `Debug` texts, when that
/// proves them equal or different: the type is made only of scalars, strings and std
/// containers whose `Debug` is derived, prints every element in order and tells every value
/// apart (`-0.0` from `0.0`, a string's escapes), so equal texts are equal values and
/// different texts different values — except NaNs, which all print `NaN` (`None` then), and
/// containers whose order is not the value's (a `HashMap`, not in the list).
fn faithful_text(type_name: &str, a: &str, b: &str) -> Option<bool> {
    const STD: [&str; 28] = [
        "f32",
        "f64",
        "i8",
        "i16",
        "i32",
        "i64",
        "i128",
        "isize",
        "u8",
        "u16",
        "u32",
        "u64",
        "u128",
        "usize",
        "bool",
        "char",
        "str",
        "mut",
        "alloc::string::String",
        "alloc::vec::Vec",
        "alloc::boxed::Box",
        "alloc::collections::vec_deque::VecDeque",
        "alloc::collections::btree::map::BTreeMap",
        "alloc::collections::btree::set::BTreeSet",
        "core::option::Option",
        "core::result::Result",
        "core::ops::range::Range",
        "core::ops::range::RangeInclusive",
    ];
    let faithful = type_name
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .filter(|w| !w.is_empty())
        .all(|w| STD.contains(&w) || w.chars().all(|c| c.is_ascii_digit()));
    if !faithful || a.contains("NaN") || b.contains("NaN") {
        return None;
    }
    Some(a == b)
}

impl Scalar {
    /// The same scalar, floats bit for bit.
    pub(crate) fn exact(&self, other: &Scalar) -> bool {
        match (self, other) {
            (Scalar::F64(a), Scalar::F64(b)) => a.to_bits() == b.to_bits(),
            (Scalar::F32(a), Scalar::F32(b)) => a.to_bits() == b.to_bits(),
            (a, b) => a == b,
        }
    }
}

/// Equality that proves two values the same: floats bit for bit, everything else by `==` on
/// types whose `==` is structural.
trait Exact {
    fn exact(&self, other: &Self) -> bool;
}

impl Exact for f64 {
    fn exact(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl Exact for f32 {
    fn exact(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

macro_rules! exact_by_eq {
    ($($t:ty),*) => {$(
        impl Exact for $t {
            fn exact(&self, other: &Self) -> bool {
                self == other
            }
        }
    )*};
}
exact_by_eq!(
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    bool,
    char,
    String,
    ()
);

impl<T: Exact> Exact for [T] {
    fn exact(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.exact(b))
    }
}

impl<T: Exact> Exact for Vec<T> {
    fn exact(&self, other: &Self) -> bool {
        self[..].exact(&other[..])
    }
}

impl<T: Exact> Exact for std::collections::VecDeque<T> {
    fn exact(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.exact(b))
    }
}

impl<T: Exact> Exact for Option<T> {
    fn exact(&self, other: &Self) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.exact(b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl<T: Exact> Exact for Box<T> {
    fn exact(&self, other: &Self) -> bool {
        (**self).exact(other)
    }
}

impl<A: Exact, B: Exact> Exact for (A, B) {
    fn exact(&self, other: &Self) -> bool {
        self.0.exact(&other.0) && self.1.exact(&other.1)
    }
}

impl<A: Exact, B: Exact, C: Exact> Exact for (A, B, C) {
    fn exact(&self, other: &Self) -> bool {
        self.0.exact(&other.0) && self.1.exact(&other.1) && self.2.exact(&other.2)
    }
}

/// Compares two snapshots of the same type when it is one [`Exact`] knows; `None` otherwise.
fn exact_any(p: &dyn Any, q: &dyn Any) -> Option<bool> {
    macro_rules! try_types {
        ($($t:ty),* $(,)?) => {$(
            if let (Some(a), Some(b)) = (p.downcast_ref::<$t>(), q.downcast_ref::<$t>()) {
                return Some(a.exact(b));
            }
        )*};
    }
    macro_rules! containers {
        ($($t:ty),*) => {$(
            try_types!($t, Vec<$t>, Option<$t>, Vec<Vec<$t>>, Box<$t>, std::collections::VecDeque<$t>, Vec<Option<$t>>);
        )*};
    }
    containers!(
        f64, f32, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool, char,
        String
    );
    try_types!(
        (f64, f64),
        (f64, f64, f64),
        (f32, f32),
        (f32, f32, f32),
        (i32, i32),
        (i64, i64),
        (usize, usize),
        (f64, i64),
        (f64, usize),
        (usize, f64),
        (i64, f64),
        Vec<(f64, f64)>,
        Vec<(usize, f64)>,
        Vec<(usize, usize)>,
    );
    None
}

/// A clone of a common container of a type known only as a parameter: `String`, `Vec` of a
/// scalar.
/// Whether `T` and `U` have the same size, alignment, need of drop and room for niches (the
/// sizes of `Option<T>` and `Option<Option<T>>` tell a reference from an integer, and a slice
/// iterator from an `Option<f64>`): a necessary condition for `T` to be `U`, decided at compile
/// time, so that a test `if const { same_layout::<T, U>() }` compiles what it guards only for
/// the types that may be `U`.
pub(crate) const fn same_layout<T, U>() -> bool {
    use std::mem::{align_of, needs_drop, size_of};
    size_of::<T>() == size_of::<U>()
        && align_of::<T>() == align_of::<U>()
        && needs_drop::<T>() == needs_drop::<U>()
        && size_of::<Option<T>>() == size_of::<Option<U>>()
        && size_of::<Option<Option<T>>>() == size_of::<Option<Option<U>>>()
}

/// Calls `$then!` with the containers that capture keeps typed (a `String`, vectors of
/// scalars, an `Option` of a float): one list for [`typed_container`],
/// [`typed_container_sized`] and the replacements of `record::frame`.
macro_rules! typed_containers {
    ($then:ident) => {
        $then!(
            String,
            Vec<f64>,
            Vec<f32>,
            Vec<i64>,
            Vec<i32>,
            Vec<usize>,
            Vec<bool>,
            Option<f64>,
            Option<f32>
        )
    };
}
pub(crate) use typed_containers;

/// [`typed_container`] of a sized type, each cast compiled only where the layout allows it.
fn typed_container_sized<T>(v: &T) -> Option<Value> {
    macro_rules! try_clone {
        ($($t:ty),*) => {$(
            if const { same_layout::<T, $t>() } {
                if let Ok(x) = castaway::cast!(v, &$t) {
                    return Some(Snapshot::snapshot(x));
                }
            }
        )*};
    }
    typed_containers!(try_clone);
    None
}

fn typed_container<T: ?Sized>(v: &T) -> Option<Value> {
    macro_rules! try_clone {
        ($($t:ty),*) => {$(
            if let Ok(x) = castaway::cast!(v, &$t) {
                return Some(Snapshot::snapshot(x));
            }
        )*};
    }
    typed_containers!(try_clone);
    None
}

/// `Display` writes the value's `Debug` text (`_` for a value known only by its type).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Scalar(s, _) => s.fmt_debug(f),
            Repr::Boxed(b) => match b.body() {
                Body::Snapshot(v) => v.fmt_debug(f),
                Body::Text(t) => f.write_str(t),
                Body::Opaque => f.write_str("_"),
            },
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}::{}", self, short_type_name(self.type_name()))
    }
}

/// Types whose recorded value is a clone that can be downcast, not only its text.
///
/// Implemented for the scalars, `String`, `str`, the std containers of snapshot types,
/// tuples, arrays, and references to any of these (a reference records its referent). Derive it
/// for your own types with `#[derive(irtrack::Snapshot)]` (they must be `Clone + Debug + Send +
/// Sync + 'static`):
///
/// ```
/// #[derive(Clone, Debug, irtrack::Snapshot)]
/// struct Point { x: f64, y: f64 }
///
/// use irtrack::Snapshot;
/// let v = Point { x: 1.0, y: 2.0 }.snapshot();
/// assert_eq!(v.downcast_ref::<Point>().map(|p| p.y), Some(2.0));
/// ```
#[diagnostic::on_unimplemented(
    message = "irtrack cannot tell how to record a value of type `{Self}` here",
    label = "the type of this value was not known yet when irtrack recorded it",
    note = "add a type annotation where the value is bound (`let x: T = ...`), or derive `irtrack::Snapshot` for `{Self}`"
)]
pub trait Snapshot {
    /// Records `self` as a [`Value`].
    fn snapshot(&self) -> Value;

    /// Records `self` as a [`Value`], moving it in where the type allows (an owned array, a
    /// `Vec`, a `String` are not copied): for a value that is not needed afterwards, such as
    /// what a registered operation returns.
    ///
    /// ```
    /// use irtrack::Snapshot;
    /// let v = vec![1.0, 2.0].into_value();
    /// assert_eq!(v.downcast_ref::<Vec<f64>>(), Some(&vec![1.0, 2.0]));
    /// ```
    fn into_value(self) -> Value
    where
        Self: Sized,
    {
        self.snapshot()
    }

    /// Whether `recorded` holds a snapshot equal to `self` bit for bit, told without making a
    /// snapshot of `self`; `None` where this way cannot tell. A program compares its static
    /// arguments so instead of copying them at every call (a dense layer's 4,096 weights,
    /// 64 allocations).
    #[doc(hidden)]
    fn same_as_recorded(&self, recorded: &Value) -> Option<bool> {
        let _ = recorded;
        None
    }
}

/// Two floats the same value: bit for bit, or both NaN (any payload). How a re-run is compared
/// with what was recorded (witnesses, stale checks); an `f32` compares widened, exactly.
pub(crate) fn same_f64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// `a` and `b` equal bit for bit, by the types [`Exact`] knows (a test of `T` that
/// monomorphisation folds for floats and vectors of floats); `None` for other types.
fn exact_of<T: Any>(a: &T, b: &T) -> Option<bool> {
    let (p, q) = (a as &dyn Any, b as &dyn Any);
    if let (Some(x), Some(y)) = (p.downcast_ref::<f64>(), q.downcast_ref::<f64>()) {
        return Some(x.to_bits() == y.to_bits());
    }
    if let (Some(x), Some(y)) = (p.downcast_ref::<Vec<f64>>(), q.downcast_ref::<Vec<f64>>()) {
        return Some(same_bits(x, y));
    }
    exact_any(p, q)
}

/// Two slices of `f64` equal bit for bit: one pass with no exit, which vectorises.
fn same_bits(x: &[f64], y: &[f64]) -> bool {
    x.len() == y.len()
        && x.iter()
            .zip(y)
            .fold(0u64, |acc, (u, v)| acc | (u.to_bits() ^ v.to_bits()))
            == 0
}

impl Snapshot for () {
    fn snapshot(&self) -> Value {
        Value::UNIT
    }
}
impl Owned for () {}

#[diagnostic::on_unimplemented(
    message = "irtrack cannot keep a clone of `{Self}` in a trace",
    label = "the type of this value was not known yet when irtrack recorded it",
    note = "add a type annotation where the value is bound (`let x: T = ...`) or a turbofish (`.parse::<T>()`), or derive `Clone`, `Debug` and `irtrack::Snapshot` for `{Self}`"
)]
/// Owned types a snapshot can clone: `Clone + Debug + Send + Sync + 'static`, implemented for
/// concrete types only (never through a lifetime bound), so that capture picks a snapshot
/// exactly when one is possible and falls back to `Debug` otherwise.
pub trait Owned: Clone + fmt::Debug + Send + Sync + 'static {}

macro_rules! owned {
    ($(impl[$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> Owned for $t {}
        impl<$($g)*> Snapshot for $t {
            fn snapshot(&self) -> Value {
                Value::snapshot(self.clone())
            }
            fn into_value(self) -> Value {
                Value::snapshot(self)
            }
            fn same_as_recorded(&self, recorded: &Value) -> Option<bool> {
                exact_of(self, recorded.downcast_ref::<Self>()?)
            }
        }
    )*};
}
owned!(
    impl[] String,
    impl[] i128,
    impl[] u128,
    impl[T: Owned] Vec<T>,

    impl[T: Owned] std::collections::VecDeque<T>,
    impl[K: Owned, V: Owned] std::collections::BTreeMap<K, V>,
    impl[K: Owned, V: Owned] std::collections::HashMap<K, V>,
    impl[T: Owned] std::ops::Range<T>,
    impl[T: Owned] std::ops::RangeInclusive<T>,
    impl[T: Owned] std::ops::RangeFrom<T>,
    impl[T: Owned] std::ops::RangeTo<T>,
    impl[T: Owned] std::ops::RangeToInclusive<T>,
    impl[] std::ops::RangeFull,
    impl[] std::cmp::Ordering,
    impl[] std::num::FpCategory,
);

macro_rules! tuple_snapshot {
    ($(($($t:ident),+)),* $(,)?) => {$(
        owned!(impl[$($t: Owned),+] ($($t,)+));
    )*};
}
tuple_snapshot!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F)
);

impl<T: Owned> Owned for Box<T> {}
impl<T: Owned> Snapshot for Box<T> {
    fn snapshot(&self) -> Value {
        let mut v = Value::snapshot(self.clone());
        if let Repr::Boxed(b) = &mut v.0 {
            if let Some(b) = Arc::get_mut(b) {
                b.wrapped = Some(wrapped_box::<T>);
            }
        }
        v
    }
}

impl<T: Owned> Owned for Option<T> {}
impl<T: Owned> Snapshot for Option<T> {
    fn snapshot(&self) -> Value {
        let mut v = Value::snapshot(self.clone());
        if let Repr::Boxed(b) = &mut v.0 {
            if let Some(b) = Arc::get_mut(b) {
                b.wrapped = Some(wrapped_option::<T>);
            }
        }
        v
    }
}

impl<T: Owned, E: Owned> Owned for Result<T, E> {}
impl<T: Owned, E: Owned> Snapshot for Result<T, E> {
    fn snapshot(&self) -> Value {
        let mut v = Value::snapshot(self.clone());
        if let Repr::Boxed(b) = &mut v.0 {
            if let Some(b) = Arc::get_mut(b) {
                b.wrapped = Some(wrapped_result::<T, E>);
            }
        }
        v
    }
}

impl<T: Owned, const N: usize> Owned for [T; N] {}
impl<T: Owned, const N: usize> Snapshot for [T; N] {
    fn snapshot(&self) -> Value {
        let mut v = Value::snapshot(self.clone());
        if let Repr::Boxed(b) = &mut v.0 {
            if let Some(b) = Arc::get_mut(b) {
                b.floats = Some(floats_of_array::<T, N>);
            }
        }
        v
    }
}

impl Snapshot for str {
    fn snapshot(&self) -> Value {
        Value::snapshot(self.to_owned()).renamed::<str>()
    }
}

impl<T: Owned> Snapshot for [T] {
    fn snapshot(&self) -> Value {
        Value::snapshot(self.to_vec()).renamed::<[T]>()
    }
    fn same_as_recorded(&self, recorded: &Value) -> Option<bool> {
        let r = recorded.downcast_ref::<Vec<T>>()?;
        if let (Some(x), Ok(y)) = (
            (r as &dyn Any).downcast_ref::<Vec<f64>>(),
            castaway::cast!(self, &[f64]),
        ) {
            return Some(same_bits(x, y));
        }
        if r.len() != self.len() {
            return Some(false);
        }
        for (a, b) in self.iter().zip(r) {
            if !exact_of(a, b)? {
                return Some(false);
            }
        }
        Some(true)
    }
}

impl<T: ?Sized + Snapshot> Snapshot for &T {
    fn snapshot(&self) -> Value {
        (**self).snapshot().renamed::<&T>()
    }
    fn same_as_recorded(&self, recorded: &Value) -> Option<bool> {
        (**self).same_as_recorded(recorded)
    }
}

impl<T: ?Sized + Snapshot> Snapshot for &mut T {
    fn snapshot(&self) -> Value {
        (**self).snapshot().renamed::<&mut T>()
    }
    fn same_as_recorded(&self, recorded: &Value) -> Option<bool> {
        (**self).same_as_recorded(recorded)
    }
}

/// Autoref specialisation: `(&&&Probe(&v)).__irtrack_capture()` picks the first impl whose
/// bound holds — [`Snapshot`], then `Debug`, then the type alone — so capture works on any type
/// without a trait bound on the user's code. Each level still records a scalar typed when the
/// value's type is one (generic code).
pub mod capture {
    use super::{Snapshot, Value};
    use std::fmt::Debug;

    /// Wraps a reference to the value being captured.
    pub struct Probe<'a, T: ?Sized>(pub &'a T);

    /// Capture through [`Snapshot`].
    pub trait ViaSnapshot {
        /// Captures the probed value.
        fn __irtrack_capture(&self) -> Value;
    }
    impl<T: ?Sized + Snapshot> ViaSnapshot for &&Probe<'_, T> {
        #[inline]
        fn __irtrack_capture(&self) -> Value {
            self.0.snapshot()
        }
    }

    /// Capture through `Debug`.
    pub trait ViaDebug {
        /// Captures the probed value.
        fn __irtrack_capture(&self) -> Value;
    }
    impl<T: ?Sized + Debug> ViaDebug for &Probe<'_, T> {
        fn __irtrack_capture(&self) -> Value {
            Value::text(self.0)
        }
    }

    /// Capture of what the type alone allows.
    pub trait ViaType {
        /// Captures the probed value.
        fn __irtrack_capture(&self) -> Value;
    }
    impl<T: ?Sized> ViaType for Probe<'_, T> {
        fn __irtrack_capture(&self) -> Value {
            Value::of(self.0)
        }
    }

    /// Capture for a value whose type may be decided only after it is recorded (a call
    /// like `parse()` or `collect()`, an operand of `?`). Method resolution commits to the
    /// first candidate when the type is still open, so here `Debug` comes first: every
    /// error type and most results have it.
    pub struct LateProbe<'a, T: ?Sized>(pub &'a T);

    /// Late capture through `Debug`.
    pub trait LateViaDebug {
        /// Captures the probed value.
        fn __irtrack_capture(&self) -> Value;
    }
    impl<T: ?Sized + Debug> LateViaDebug for &LateProbe<'_, T> {
        fn __irtrack_capture(&self) -> Value {
            Value::text(self.0)
        }
    }

    /// Late capture of what the type alone allows.
    pub trait LateViaType {
        /// Captures the probed value.
        fn __irtrack_capture(&self) -> Value;
    }
    impl<T: ?Sized> LateViaType for LateProbe<'_, T> {
        fn __irtrack_capture(&self) -> Value {
            Value::of(self.0)
        }
    }
}

/// Drops module paths from a type name: `alloc::vec::Vec<f64>` → `Vec<f64>`,
/// `&mut rand::rngs::std::StdRng` → `&mut StdRng`.
pub fn short_type_name(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    let mut segment_start = 0;
    let mut chars = full.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            out.truncate(segment_start);
            continue;
        }
        // `{{closure}}` counts as a name, so `f::{{closure}}::{{closure}}` keeps its last one.
        if !(c.is_alphanumeric() || c == '_' || c == '{' || c == '}') {
            out.push(c);
            segment_start = out.len();
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
// The extra borrows are the autoref specialisation under test, not noise.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::capture::*;
    use super::*;

    struct NoDebug;
    #[derive(Debug)]
    struct OnlyDebug(#[allow(dead_code)] u8);

    #[test]
    fn capture_picks_the_richest_form() {
        let x = 1.5f64;
        let v = (&&&Probe(&x)).__irtrack_capture();
        assert_eq!(v.downcast_ref::<f64>(), Some(&1.5));
        let d = (&&&Probe(&OnlyDebug(3))).__irtrack_capture();
        assert_eq!(d.to_string(), "OnlyDebug(3)");
        assert!(d.downcast_ref::<OnlyDebug>().is_none());
        let o = (&&&Probe(&NoDebug)).__irtrack_capture();
        assert!(o.is_opaque());
        assert!(o.type_name().ends_with("NoDebug"));
    }

    #[test]
    fn references_record_their_referent() {
        let v = vec![1.0f64, 2.0];
        let r: &[f64] = &v;
        let cap = (&&&Probe(&r)).__irtrack_capture();
        assert_eq!(cap.downcast_ref::<Vec<f64>>(), Some(&v));
        assert_eq!(cap.type_name(), "&[f64]");
        let words = ["a"];
        let borrowed: Option<&str> = words.first().copied();
        // A reference inside a container has no 'static clone: capture falls back to Debug.
        assert_eq!(
            (&&&Probe(&borrowed)).__irtrack_capture().to_string(),
            "Some(\"a\")"
        );
        let i = 7i32;
        let r = (&&&Probe(&&i)).__irtrack_capture();
        assert_eq!(r.downcast_ref::<i32>(), Some(&7));
        assert_eq!(r.type_name(), "&i32");
    }

    fn generic<T>(x: T) -> Value {
        (&&&Probe(&x)).__irtrack_capture()
    }

    #[test]
    fn generic_values_are_typed() {
        assert_eq!(generic(2.5f64).downcast_ref::<f64>(), Some(&2.5));
        assert_eq!(generic(3u8).downcast_ref::<u8>(), Some(&3));
        assert_eq!(
            generic(vec![1.0f64]).downcast_ref::<Vec<f64>>(),
            Some(&vec![1.0])
        );
        assert!(generic(NoDebug).is_opaque());
    }
}
