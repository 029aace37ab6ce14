//! Values held by trace nodes, and how they are captured from user data.
//!
//! Capture never needs `'static` or `Clone` of the user's type: the macro picks the richest of
//! three ways that applies to the value's type (autoref specialisation, see [`capture`]):
//! a [`Snapshot`] (scalars inline, containers cloned and downcastable), its `Debug` text, or only
//! its type name.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A value recorded in a trace node.
///
/// Scalars are stored inline; snapshots are shared clones that [`Value::downcast_ref`] can
/// recover; other values keep their `Debug` text or only their type name.
#[derive(Clone)]
pub struct Value {
    type_name: &'static str,
    repr: Repr,
}

#[derive(Clone)]
enum Repr {
    Scalar(Scalar),
    Snapshot(Arc<dyn SnapshotValue>),
    Text(Arc<str>),
    Opaque,
}

/// Scalars kept inline, each with its exact type so `value::<i32>()` works.
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
enum Scalar {
    Unit(()),
    Bool(bool),
    Char(char),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    Isize(isize),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    Usize(usize),
    F32(f32),
    F64(f64),
}

impl Scalar {
    /// The scalar whose `Debug` text is `text`, when `type_name` names a scalar type.
    fn parse(type_name: &str, text: &str) -> Option<Scalar> {
        Some(match type_name {
            "bool" => Scalar::Bool(text.parse().ok()?),
            "i8" => Scalar::I8(text.parse().ok()?),
            "i16" => Scalar::I16(text.parse().ok()?),
            "i32" => Scalar::I32(text.parse().ok()?),
            "i64" => Scalar::I64(text.parse().ok()?),
            "isize" => Scalar::Isize(text.parse().ok()?),
            "u8" => Scalar::U8(text.parse().ok()?),
            "u16" => Scalar::U16(text.parse().ok()?),
            "u32" => Scalar::U32(text.parse().ok()?),
            "u64" => Scalar::U64(text.parse().ok()?),
            "usize" => Scalar::Usize(text.parse().ok()?),
            "f32" => Scalar::F32(text.parse().ok()?),
            "f64" => Scalar::F64(text.parse().ok()?),
            _ => return None,
        })
    }

    fn as_any(&self) -> &dyn Any {
        match self {
            Scalar::Unit(v) => v,
            Scalar::Bool(v) => v,
            Scalar::Char(v) => v,
            Scalar::I8(v) => v,
            Scalar::I16(v) => v,
            Scalar::I32(v) => v,
            Scalar::I64(v) => v,
            Scalar::Isize(v) => v,
            Scalar::U8(v) => v,
            Scalar::U16(v) => v,
            Scalar::U32(v) => v,
            Scalar::U64(v) => v,
            Scalar::Usize(v) => v,
            Scalar::F32(v) => v,
            Scalar::F64(v) => v,
        }
    }

    fn fmt_debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Unit(v) => fmt::Debug::fmt(v, f),
            Scalar::Bool(v) => fmt::Debug::fmt(v, f),
            Scalar::Char(v) => fmt::Debug::fmt(v, f),
            Scalar::I8(v) => fmt::Debug::fmt(v, f),
            Scalar::I16(v) => fmt::Debug::fmt(v, f),
            Scalar::I32(v) => fmt::Debug::fmt(v, f),
            Scalar::I64(v) => fmt::Debug::fmt(v, f),
            Scalar::Isize(v) => fmt::Debug::fmt(v, f),
            Scalar::U8(v) => fmt::Debug::fmt(v, f),
            Scalar::U16(v) => fmt::Debug::fmt(v, f),
            Scalar::U32(v) => fmt::Debug::fmt(v, f),
            Scalar::U64(v) => fmt::Debug::fmt(v, f),
            Scalar::Usize(v) => fmt::Debug::fmt(v, f),
            Scalar::F32(v) => fmt::Debug::fmt(v, f),
            Scalar::F64(v) => fmt::Debug::fmt(v, f),
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
    /// Like [`Value::snapshot`], printed by `show` instead of `T`'s `Debug`.
    #[cfg(feature = "ndarray")]
    pub(crate) fn snapshot_shown<T: Any + Send + Sync>(
        value: T,
        show: fn(&T, &mut fmt::Formatter<'_>) -> fmt::Result,
    ) -> Value {
        Value {
            type_name: std::any::type_name::<T>(),
            repr: Repr::Snapshot(Arc::new(Shown { value, show })),
        }
    }

    /// The unit value `()`.
    pub const UNIT: Value = Value {
        type_name: "()",
        repr: Repr::Scalar(Scalar::Unit(())),
    };

    /// A value that keeps a clone of `value`, recoverable with [`Value::downcast_ref`].
    ///
    /// ```
    /// use irtrack::Value;
    /// let v = Value::snapshot(vec![1.0, 2.0]);
    /// assert_eq!(v.downcast_ref::<Vec<f64>>(), Some(&vec![1.0, 2.0]));
    /// assert_eq!(v.to_string(), "[1.0, 2.0]");
    /// ```
    pub fn snapshot<T: Any + Send + Sync + fmt::Debug>(value: T) -> Value {
        Value {
            type_name: std::any::type_name::<T>(),
            repr: Repr::Snapshot(Arc::new(value)),
        }
    }

    /// A value known only by its `Debug` text; scalars are recovered from it (their `Debug`
    /// text round-trips exactly), so a scalar captured this way still downcasts.
    pub fn text<T: ?Sized + fmt::Debug>(value: &T) -> Value {
        let type_name = std::any::type_name::<T>();
        let text = format!("{value:?}");
        if let Some(scalar) = Scalar::parse(type_name, &text) {
            return Value {
                type_name,
                repr: Repr::Scalar(scalar),
            };
        }
        Value {
            type_name,
            repr: Repr::Text(text.into()),
        }
    }

    /// A value known only by its type name.
    pub fn opaque<T: ?Sized>() -> Value {
        Value {
            type_name: std::any::type_name::<T>(),
            repr: Repr::Opaque,
        }
    }

    /// The same value, reported under the type name of `T` (used for references to a
    /// snapshot type, whose snapshot is the referent's).
    pub fn renamed<T: ?Sized>(mut self) -> Value {
        self.type_name = std::any::type_name::<T>();
        self
    }

    /// A value known only by its `Debug` text (or, for `None`, only by its type name) and a
    /// type name that need not be a Rust type of this program: a value read back from JSON.
    #[cfg(feature = "serde")]
    pub(crate) fn from_text(type_name: &'static str, text: Option<&str>) -> Value {
        Value {
            type_name,
            repr: match text {
                Some(t) => Repr::Text(t.into()),
                None => Repr::Opaque,
            },
        }
    }

    /// The full type name of the recorded value, as `std::any::type_name` gives it.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }

    /// The value as a `T`, if it was stored as one (inline scalars and snapshots).
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        match &self.repr {
            Repr::Scalar(s) => s.as_any().downcast_ref(),
            Repr::Snapshot(v) => (**v).as_any().downcast_ref(),
            Repr::Text(_) | Repr::Opaque => None,
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
        match self.repr {
            Repr::Scalar(Scalar::F64(v)) => Some(v),
            Repr::Scalar(Scalar::F32(v)) => Some(v as f64),
            _ => None,
        }
    }

    /// Whether the value is the unit value `()`.
    pub fn is_unit(&self) -> bool {
        matches!(self.repr, Repr::Scalar(Scalar::Unit(())))
    }

    /// Whether the value is discrete: a scalar other than a float (an integer, `bool`, `char`)
    /// or a string. Nothing differentiable flows through such a value.
    pub fn is_discrete(&self) -> bool {
        match self.repr {
            Repr::Scalar(Scalar::F64(_) | Scalar::F32(_) | Scalar::Unit(())) => false,
            Repr::Scalar(_) => true,
            _ => {
                let t = self.type_name.trim_start_matches('&');
                t == "str" || t == "alloc::string::String"
            }
        }
    }

    /// Whether only the type of the value is known (it had neither a snapshot nor `Debug`).
    pub fn is_opaque(&self) -> bool {
        matches!(self.repr, Repr::Opaque)
    }
}

/// `Display` writes the value's `Debug` text (or `⟨type⟩` hints for opaque values).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Scalar(s) => s.fmt_debug(f),
            Repr::Snapshot(v) => v.fmt_debug(f),
            Repr::Text(t) => f.write_str(t),
            Repr::Opaque => f.write_str("_"),
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}::{}",
            self,
            crate::print::short_type_name(self.type_name)
        )
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
}

macro_rules! scalar_snapshot {
    ($($t:ty => $v:ident),* $(,)?) => {$(
        impl Snapshot for $t {
            #[inline]
            fn snapshot(&self) -> Value {
                Value { type_name: stringify!($t), repr: Repr::Scalar(Scalar::$v(*self)) }
            }
        }
    )*};
}
scalar_snapshot!(
    () => Unit, bool => Bool, char => Char,
    i8 => I8, i16 => I16, i32 => I32, i64 => I64, isize => Isize,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64, usize => Usize,
    f32 => F32, f64 => F64,
);

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
        }
    )*};
}
macro_rules! owned_scalar {
    ($($t:ty),*) => {$( impl Owned for $t {} )*};
}
owned_scalar!(
    (),
    bool,
    char,
    i8,
    i16,
    i32,
    i64,
    isize,
    u8,
    u16,
    u32,
    u64,
    usize,
    f32,
    f64
);
owned!(
    impl[] String,
    impl[] i128,
    impl[] u128,
    impl[T: Owned] Vec<T>,
    impl[T: Owned] Option<T>,
    impl[T: Owned, E: Owned] Result<T, E>,
    impl[T: Owned] Box<T>,
    impl[T: Owned] std::collections::VecDeque<T>,
    impl[K: Owned, V: Owned] std::collections::BTreeMap<K, V>,
    impl[K: Owned, V: Owned] std::collections::HashMap<K, V>,
    impl[T: Owned, const N: usize] [T; N],
    impl[T: Owned] std::ops::Range<T>,
    impl[T: Owned] std::ops::RangeInclusive<T>,
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

impl Snapshot for str {
    fn snapshot(&self) -> Value {
        Value::snapshot(self.to_owned()).renamed::<str>()
    }
}

impl<T: Owned> Snapshot for [T] {
    fn snapshot(&self) -> Value {
        Value::snapshot(self.to_vec()).renamed::<[T]>()
    }
}

impl<T: ?Sized + Snapshot> Snapshot for &T {
    fn snapshot(&self) -> Value {
        (**self).snapshot().renamed::<&T>()
    }
}

impl<T: ?Sized + Snapshot> Snapshot for &mut T {
    fn snapshot(&self) -> Value {
        (**self).snapshot().renamed::<&mut T>()
    }
}

/// Autoref specialisation: `(&&&Probe(&v)).__irtrack_capture()` picks the first impl whose
/// bound holds — [`Snapshot`], then `Debug`, then the type name alone — so capture works on
/// any type without a trait bound on the user's code.
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

    /// Capture for a value whose type may be decided only after it is recorded (a call
    /// like `parse()` or `collect()`, an operand of `?`). Method resolution commits to the
    /// first candidate when the type is still open, so here `Debug` comes first: every
    /// error type and most results have it, and scalars are recovered from their text.
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

    /// Late capture of the type name alone.
    pub trait LateViaTypeName {
        /// Captures the probed value.
        fn __irtrack_capture(&self) -> Value;
    }
    impl<T: ?Sized> LateViaTypeName for LateProbe<'_, T> {
        fn __irtrack_capture(&self) -> Value {
            Value::opaque::<T>()
        }
    }

    /// Capture of the type name alone.
    pub trait ViaTypeName {
        /// Captures the probed value.
        fn __irtrack_capture(&self) -> Value;
    }
    impl<T: ?Sized> ViaTypeName for Probe<'_, T> {
        fn __irtrack_capture(&self) -> Value {
            Value::opaque::<T>()
        }
    }
}

#[cfg(test)]
// The extra borrows are the autoref specialisation under test, not noise.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::capture::*;

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
        assert_eq!(
            (&&&Probe(&&i)).__irtrack_capture().downcast_ref::<i32>(),
            Some(&7)
        );
    }
}
