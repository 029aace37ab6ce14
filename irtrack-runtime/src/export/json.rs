//! JSON export and import of a recorded trace (cargo feature `serde`).
//!
//! The format is versioned by its top-level `"schema"` field ([`SCHEMA`]) and documented in
//! `docs/trace-format.md`. A document holds the IR of every function the trace entered
//! (`functions`, each as its encoded text, [`FnIr::encode`]), the nested calls (`calls`: node,
//! function, end of its subtree, number of references, value), every node in recording order
//! (`nodes`: kind, entry, references, value), for a primitive root its arguments, the
//! metadata, the nodes' flags (a call whose result a context replaced) and the receiver class of
//! method calls (which float methods' rules need). Node `i` is the arena id `#i`; node 0 is the
//! root.
//!
//! Values are typed: a scalar is written as its type and its value (`["f64","1.5"]`,
//! `["i32",3]`; a float as its shortest exact text, so that it reads back bit for bit), a
//! snapshot of a `String` or of a vector or option of scalars as its type, a tag and its
//! content, and any other value as its type and text. Import restores the scalars and those
//! snapshots typed; an imported trace prints the same listing and exports the same document,
//! and its IR is owned by the trace (shared between its calls), so import leaks nothing.
//!
//! Import reads the document in one pass straight into the trace's columns: no tree of JSON
//! values, no copy of a string that has no escape in it. It then checks the structure in one
//! linear pass and the trace with [`Trace::verify`].

use crate::core::ids::NodeId;
use crate::core::ir::{FnIr, IrRef};
use crate::core::op::Receiver;
use crate::core::tape::{Call, MetaKey, Node, NodeKind, Slot, Store, NO_ENTRY};
use crate::core::value::{Body, Form, Repr, Scalar, Snapshot, Value};
use crate::view::trace::Trace;
use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, SerializeStruct, SerializeTuple};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::any::TypeId;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;
use std::sync::Arc;

/// The schema version this crate writes and reads: the value of the top-level `"schema"`
/// field of an exported trace.
pub const SCHEMA: &str = "irtrack-trace/4";

/// Why [`Trace::from_json`] rejected a document.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonError {
    /// The text is not JSON, or not of the schema's shape: a missing or repeated field, a value
    /// of the wrong type, a number out of its type's range, a float or `char` whose text does
    /// not parse, an unknown scalar type or snapshot tag.
    Syntax(String),
    /// The `"schema"` field is missing, is not the first field, or names a version this crate
    /// does not read; `found` is the field's value, if it is a string.
    Schema {
        /// The schema named by the document.
        found: Option<String>,
    },
    /// A function's IR does not decode.
    Function {
        /// The function's index.
        function: usize,
        /// Why.
        reason: String,
    },
    /// A node refers to a node, a function or an entry that does not exist.
    Dangling {
        /// The referring node.
        node: usize,
        /// What refers: `"reference"`, `"entry"`, `"function"`, `"call"`, `"metadata"`, `"flags"`,
        /// `"receivers"`, `"closures"`.
        field: &'static str,
        /// The number that names nothing.
        target: u64,
    },
    /// The document's nodes and calls do not form a trace (the import checks it with
    /// [`Trace::verify`]).
    Structure(String),
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonError::Syntax(e) => write!(f, "not an {SCHEMA} document: {e}"),
            JsonError::Schema { found: Some(s) } => {
                write!(f, "unsupported schema {s:?} (this crate reads {SCHEMA:?})")
            }
            JsonError::Schema { found: None } => {
                write!(
                    f,
                    "no \"schema\" string as the first field (expected {SCHEMA:?})"
                )
            }
            JsonError::Function { function, reason } => {
                write!(f, "function {function}: {reason}")
            }
            JsonError::Dangling {
                node,
                field,
                target,
            } => write!(f, "node {node}: {field} {target} does not exist"),
            JsonError::Structure(e) => write!(f, "not a trace: {e}"),
        }
    }
}

impl std::error::Error for JsonError {}

// ---- Values: writing -----------------------------------------------------------------------

/// A float as its `Debug` text: the shortest text that parses back to the same value (`"0.1"`,
/// `"1e-7"`, `"-0.0"`, `"inf"`, `"NaN"`, and `"-NaN"` for a NaN with its sign bit set, which
/// `Debug` drops and `copysign` reads), written without an intermediate `String`.
struct FloatOut<T>(T);

/// Whether a float is a NaN with its sign bit set.
trait NegativeNan {
    fn negative_nan(&self) -> bool;
}

impl NegativeNan for f64 {
    fn negative_nan(&self) -> bool {
        self.is_nan() && self.is_sign_negative()
    }
}

impl NegativeNan for f32 {
    fn negative_nan(&self) -> bool {
        self.is_nan() && self.is_sign_negative()
    }
}

impl<T: fmt::Debug + NegativeNan> Serialize for FloatOut<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.negative_nan() {
            return s.serialize_str("-NaN");
        }
        s.collect_str(&format_args!("{:?}", self.0))
    }
}

/// A scalar's content: a JSON number for an integer, `true`/`false` for a `bool`, a string of
/// one character for a `char`, the exact text for a float, `null` for `()`.
struct ScalarOut(Scalar);

impl Serialize for ScalarOut {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Scalar::Unit => s.serialize_unit(),
            Scalar::Bool(v) => s.serialize_bool(v),
            Scalar::Char(v) => s.serialize_char(v),
            Scalar::I8(v) => s.serialize_i8(v),
            Scalar::I16(v) => s.serialize_i16(v),
            Scalar::I32(v) => s.serialize_i32(v),
            Scalar::I64(v) => s.serialize_i64(v),
            Scalar::Isize(v) => s.serialize_i64(v as i64),
            Scalar::U8(v) => s.serialize_u8(v),
            Scalar::U16(v) => s.serialize_u16(v),
            Scalar::U32(v) => s.serialize_u32(v),
            Scalar::U64(v) => s.serialize_u64(v),
            Scalar::Usize(v) => s.serialize_u64(v as u64),
            Scalar::F32(v) => FloatOut(v).serialize(s),
            Scalar::F64(v) => FloatOut(v).serialize(s),
        }
    }
}

/// Floats, each as its exact text.
struct FloatsOut<'a, T>(&'a [T]);

impl<T: fmt::Debug + Copy + NegativeNan> Serialize for FloatsOut<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|&x| FloatOut(x)))
    }
}

/// A value's `Display` text, written without an intermediate `String`.
struct DisplayOut<'a>(&'a Value);

impl Serialize for DisplayOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self.0)
    }
}

// ---- Values: reading -----------------------------------------------------------------------

/// A string, borrowed from the document when it has no escape in it.
#[derive(Clone, Copy)]
struct Text;

impl<'de> Visitor<'de> for Text {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

impl<'de> DeserializeSeed<'de> for Text {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

/// A float from its text (`str::parse` reads back exactly what `{:?}` wrote).
fn float_in<'de, T: FromStr, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    let text = d.deserialize_str(Text)?;
    text.parse()
        .map_err(|_| de::Error::invalid_value(de::Unexpected::Str(&text), &"the text of a float"))
}

/// One float, as a serde value (for arrays of floats).
struct FloatIn<T>(T);

impl<'de, T: FromStr> Deserialize<'de> for FloatIn<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        float_in(d).map(FloatIn)
    }
}

/// An array of float texts, read into a vector.
struct FloatsIn<T>(PhantomData<T>);

impl<'de, T: FromStr> Visitor<'de> for FloatsIn<T> {
    type Value = Vec<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of float texts")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut v = Vec::new();
        while let Some(FloatIn(x)) = seq.next_element()? {
            v.push(x);
        }
        Ok(v)
    }
}

/// `null` or a float text.
struct FloatOptionIn<T>(PhantomData<T>);

impl<'de, T: FromStr> Visitor<'de> for FloatOptionIn<T> {
    type Value = Option<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("null or the text of a float")
    }
    fn visit_none<E>(self) -> Result<Option<T>, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Option<T>, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        float_in(d).map(Some)
    }
}

/// The next element of an array that must have it.
fn element<'de, A: SeqAccess<'de>, T: DeserializeSeed<'de>>(
    seq: &mut A,
    seed: T,
    index: usize,
    what: &'static str,
) -> Result<T::Value, A::Error> {
    seq.next_element_seed(seed)?
        .ok_or_else(|| de::Error::invalid_length(index, &what))
}

/// The snapshot types that come back downcastable: the tag of each in the file, the other
/// types it may be recorded as (a `[f64]` is kept as a `Vec<f64>` named `&[f64]`), how its
/// content is written and read, and how it is kept as a value (as its `Snapshot` impl does).
macro_rules! codecs {
    ($($variant:ident($t:ty) = $tag:literal, [$($alias:ty),*], $write:expr, $read:expr, $keep:expr;)*) => {
        /// A snapshot that has a codec.
        enum Typed<'a> {
            $($variant(&'a $t),)*
        }

        impl<'a> Typed<'a> {
            fn of(v: &'a Value) -> Option<Typed<'a>> {
                $(if let Some(x) = v.downcast_ref::<$t>() {
                    return Some(Typed::$variant(x));
                })*
                None
            }

            fn tag(&self) -> &'static str {
                match self {
                    $(Typed::$variant(_) => $tag,)*
                }
            }
        }

        /// The content of a typed snapshot.
        impl Serialize for Typed<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(Typed::$variant(x) => {
                        let write: fn(&$t, S) -> Result<S::Ok, S::Error> = $write;
                        write(x, s)
                    })*
                }
            }
        }

        /// Reads the content of a snapshot with tag `tag`, recorded under `type_name`.
        fn snapshot_in<'de, D: Deserializer<'de>>(
            tag: &str,
            type_name: &str,
            d: D,
        ) -> Result<Value, D::Error> {
            match tag {
                $($tag => {
                    let read: fn(D) -> Result<$t, D::Error> = $read;
                    let value = read(d)?;
                    let known = [
                        (std::any::type_name::<$t>(), TypeId::of::<$t>()),
                        (std::any::type_name::<&$t>(), TypeId::of::<&'static $t>()),
                        (std::any::type_name::<&mut $t>(), TypeId::of::<&'static mut $t>()),
                        $(
                            (std::any::type_name::<$alias>(), TypeId::of::<$alias>()),
                            (std::any::type_name::<&$alias>(), TypeId::of::<&'static $alias>()),
                            (
                                std::any::type_name::<&mut $alias>(),
                                TypeId::of::<&'static mut $alias>(),
                            ),
                        )*
                    ];
                    let keep: fn($t) -> Value = $keep;
                    Ok(renamed(keep(value), type_name, &known))
                })*
                other => Err(de::Error::custom(format_args!(
                    "`{other}` is not a snapshot tag of {SCHEMA}"
                ))),
            }
        }
    };
}

fn floats_out<T: fmt::Debug + Copy + NegativeNan, S: Serializer>(
    x: &[T],
    s: S,
) -> Result<S::Ok, S::Error> {
    FloatsOut(x).serialize(s)
}

fn float_option_out<T: fmt::Debug + Copy + NegativeNan, S: Serializer>(
    x: &Option<T>,
    s: S,
) -> Result<S::Ok, S::Error> {
    x.map(FloatOut).serialize(s)
}

codecs!(
    String(String) = "String", [str],
        |x, s| x.serialize(s),
        |d| d.deserialize_str(Text).map(Cow::into_owned),
        Value::snapshot;
    VecBool(Vec<bool>) = "Vec<bool>", [[bool]], |x, s| x.serialize(s), Vec::deserialize, Value::snapshot;
    VecChar(Vec<char>) = "Vec<char>", [[char]], |x, s| x.serialize(s), Vec::deserialize, Value::snapshot;
    VecI8(Vec<i8>) = "Vec<i8>", [[i8]], |x, s| x.serialize(s), Vec::deserialize, Value::snapshot;
    VecI16(Vec<i16>) = "Vec<i16>", [[i16]], |x, s| x.serialize(s), Vec::deserialize, Value::snapshot;
    VecI32(Vec<i32>) = "Vec<i32>", [[i32]], |x, s| x.serialize(s), Vec::deserialize, Value::snapshot;
    VecI64(Vec<i64>) = "Vec<i64>", [[i64]], |x, s| x.serialize(s), Vec::deserialize, Value::snapshot;
    VecIsize(Vec<isize>) = "Vec<isize>", [[isize]], |x, s| x.serialize(s), Vec::deserialize, Value::snapshot;
    VecU8(Vec<u8>) = "Vec<u8>", [[u8]], |x, s| x.serialize(s), Vec::deserialize, Value::snapshot;
    VecU16(Vec<u16>) = "Vec<u16>", [[u16]], |x, s| x.serialize(s), Vec::deserialize, Value::snapshot;
    VecU32(Vec<u32>) = "Vec<u32>", [[u32]], |x, s| x.serialize(s), Vec::deserialize, Value::snapshot;
    VecU64(Vec<u64>) = "Vec<u64>", [[u64]], |x, s| x.serialize(s), Vec::deserialize, Value::snapshot;
    VecUsize(Vec<usize>) = "Vec<usize>", [[usize]], |x, s| x.serialize(s), Vec::deserialize, Value::snapshot;
    VecF32(Vec<f32>) = "Vec<f32>", [[f32]],
        |x, s| floats_out(x, s),
        |d| d.deserialize_seq(FloatsIn(PhantomData)),
        Value::snapshot;
    VecF64(Vec<f64>) = "Vec<f64>", [[f64]],
        |x, s| floats_out(x, s),
        |d| d.deserialize_seq(FloatsIn(PhantomData)),
        Value::snapshot;
    OptionBool(Option<bool>) = "Option<bool>", [], |x, s| x.serialize(s), Option::deserialize, |x| x.snapshot();
    OptionChar(Option<char>) = "Option<char>", [], |x, s| x.serialize(s), Option::deserialize, |x| x.snapshot();
    OptionI8(Option<i8>) = "Option<i8>", [], |x, s| x.serialize(s), Option::deserialize, |x| x.snapshot();
    OptionI16(Option<i16>) = "Option<i16>", [], |x, s| x.serialize(s), Option::deserialize, |x| x.snapshot();
    OptionI32(Option<i32>) = "Option<i32>", [], |x, s| x.serialize(s), Option::deserialize, |x| x.snapshot();
    OptionI64(Option<i64>) = "Option<i64>", [], |x, s| x.serialize(s), Option::deserialize, |x| x.snapshot();
    OptionIsize(Option<isize>) = "Option<isize>", [], |x, s| x.serialize(s), Option::deserialize, |x| x.snapshot();
    OptionU8(Option<u8>) = "Option<u8>", [], |x, s| x.serialize(s), Option::deserialize, |x| x.snapshot();
    OptionU16(Option<u16>) = "Option<u16>", [], |x, s| x.serialize(s), Option::deserialize, |x| x.snapshot();
    OptionU32(Option<u32>) = "Option<u32>", [], |x, s| x.serialize(s), Option::deserialize, |x| x.snapshot();
    OptionU64(Option<u64>) = "Option<u64>", [], |x, s| x.serialize(s), Option::deserialize, |x| x.snapshot();
    OptionUsize(Option<usize>) = "Option<usize>", [], |x, s| x.serialize(s), Option::deserialize, |x| x.snapshot();
    OptionF32(Option<f32>) = "Option<f32>", [],
        |x, s| float_option_out(x, s),
        |d| d.deserialize_option(FloatOptionIn(PhantomData)),
        |x| x.snapshot();
    OptionF64(Option<f64>) = "Option<f64>", [],
        |x, s| float_option_out(x, s),
        |d| d.deserialize_option(FloatOptionIn(PhantomData)),
        |x| x.snapshot();
);

/// A restored snapshot under the type name it was recorded with (`&[f64]` for a `Vec<f64>`
/// snapshot of a slice), with that type's id when it is one of `known`.
fn renamed(mut v: Value, type_name: &str, known: &[(&'static str, TypeId)]) -> Value {
    if let Repr::Boxed(b) = &mut v.0 {
        if b.type_name != type_name {
            if let Some(b) = Arc::get_mut(b) {
                b.type_id = known
                    .iter()
                    .find(|(name, _)| *name == type_name)
                    .map(|&(_, id)| id);
                b.type_name = Cow::Owned(type_name.to_owned());
            }
        }
    }
    v
}

/// A value in the file: `null` for `()`; `[type, content]` for a scalar (`["f64","1.5"]`,
/// `["&i32",3]`); `["=", type, tag, content]` for a snapshot that comes back typed;
/// `["~", type, text]` for a value known by its text; `["_", type]` for one known by its type.
struct ValueOut<'a>(&'a Value);

impl Serialize for ValueOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        match &v.0 {
            Repr::Scalar(Scalar::Unit, Form::Val) => s.serialize_none(),
            Repr::Scalar(scalar, _) => (v.type_name(), ScalarOut(*scalar)).serialize(s),
            Repr::Boxed(b) => match b.body() {
                Body::Opaque => ("_", v.type_name()).serialize(s),
                Body::Text(t) => ("~", v.type_name(), t).serialize(s),
                Body::Snapshot(_) => match Typed::of(v) {
                    Some(typed) => ("=", v.type_name(), typed.tag(), typed).serialize(s),
                    None => ("~", v.type_name(), DisplayOut(v)).serialize(s),
                },
            },
        }
    }
}

/// The column tag (as `Scalar::tag` numbers them) and form of a scalar type's name: `f64`,
/// `&u8`, `&mut char`, `()`.
fn scalar_type(name: &str) -> Option<(u8, Form)> {
    let (form, base) = if let Some(b) = name.strip_prefix("&mut ") {
        (Form::RefMut, b)
    } else if let Some(b) = name.strip_prefix('&') {
        (Form::Ref, b)
    } else {
        (Form::Val, name)
    };
    let tag = match base {
        "()" => 0,
        "bool" => 1,
        "char" => 2,
        "i8" => 3,
        "i16" => 4,
        "i32" => 5,
        "i64" => 6,
        "isize" => 7,
        "u8" => 8,
        "u16" => 9,
        "u32" => 10,
        "u64" => 11,
        "usize" => 12,
        "f32" => 13,
        "f64" => 14,
        _ => return None,
    };
    Some((tag, form))
}

/// The content of a scalar of the type with tag `.0` (see [`scalar_type`]).
struct ScalarIn(u8);

impl<'de> DeserializeSeed<'de> for ScalarIn {
    type Value = Scalar;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Scalar, D::Error> {
        Ok(match self.0 {
            1 => Scalar::Bool(bool::deserialize(d)?),
            2 => {
                let text = d.deserialize_str(Text)?;
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Scalar::Char(c),
                    _ => {
                        return Err(de::Error::invalid_value(
                            de::Unexpected::Str(&text),
                            &"a string of one character",
                        ))
                    }
                }
            }
            3 => Scalar::I8(i8::deserialize(d)?),
            4 => Scalar::I16(i16::deserialize(d)?),
            5 => Scalar::I32(i32::deserialize(d)?),
            6 => Scalar::I64(i64::deserialize(d)?),
            7 => Scalar::Isize(isize::deserialize(d)?),
            8 => Scalar::U8(u8::deserialize(d)?),
            9 => Scalar::U16(u16::deserialize(d)?),
            10 => Scalar::U32(u32::deserialize(d)?),
            11 => Scalar::U64(u64::deserialize(d)?),
            12 => Scalar::Usize(usize::deserialize(d)?),
            13 => Scalar::F32(float_in(d)?),
            14 => Scalar::F64(float_in(d)?),
            _ => {
                <()>::deserialize(d)?;
                Scalar::Unit
            }
        })
    }
}

/// Reads a value (see [`ValueOut`]).
#[derive(Clone, Copy)]
struct ValueIn;

impl<'de> DeserializeSeed<'de> for ValueIn {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for ValueIn {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value: null or an array")
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::UNIT)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::UNIT)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_seq(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let head = element(&mut seq, Text, 0, "a value's kind or type")?;
        match &*head {
            "_" => {
                let ty = element(&mut seq, Text, 1, "a type name")?;
                Ok(Value::foreign(ty.into_owned(), None))
            }
            "~" => {
                let ty = element(&mut seq, Text, 1, "a type name")?;
                let text = element(&mut seq, Text, 2, "a value's text")?;
                Ok(Value::foreign(ty.into_owned(), Some(&text)))
            }
            "=" => {
                let ty = element(&mut seq, Text, 1, "a type name")?;
                let tag = element(&mut seq, Text, 2, "a snapshot tag")?;
                element(
                    &mut seq,
                    SnapshotIn {
                        tag: &tag,
                        type_name: &ty,
                    },
                    3,
                    "a snapshot's content",
                )
            }
            name => {
                let (tag, form) = scalar_type(name).ok_or_else(|| {
                    de::Error::custom(format_args!(
                        "`{name}` is neither a scalar type nor a value kind (`=`, `~`, `_`)"
                    ))
                })?;
                let scalar = element(&mut seq, ScalarIn(tag), 1, "a scalar")?;
                Ok(Value(Repr::Scalar(scalar, form)))
            }
        }
    }
}

struct SnapshotIn<'a> {
    tag: &'a str,
    type_name: &'a str,
}

impl<'de> DeserializeSeed<'de> for SnapshotIn<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        snapshot_in(self.tag, self.type_name, d)
    }
}

// ---- Export -------------------------------------------------------------------------------

fn kind_code(k: NodeKind) -> u8 {
    match k {
        NodeKind::Argument => 0,
        NodeKind::Constant => 1,
        NodeKind::PrimitiveCall => 2,
        NodeKind::NestedCall => 3,
        NodeKind::Special => 4,
        NodeKind::Jump => 5,
        NodeKind::Return => 6,
        NodeKind::Error => 7,
    }
}

fn kind_of(code: u8) -> Option<NodeKind> {
    Some(match code {
        0 => NodeKind::Argument,
        1 => NodeKind::Constant,
        2 => NodeKind::PrimitiveCall,
        3 => NodeKind::NestedCall,
        4 => NodeKind::Special,
        5 => NodeKind::Jump,
        6 => NodeKind::Return,
        7 => NodeKind::Error,
        _ => return None,
    })
}

struct DocOut<'a> {
    trace: &'a Trace,
    /// Every function entered, once, in order of first call.
    functions: Vec<&'a FnIr>,
    /// The index in `functions` of each call's function.
    call_function: Vec<u32>,
}

struct FunctionsOut<'a>(&'a [&'a FnIr]);

impl Serialize for FunctionsOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|ir| (&ir.name, &ir.module, ir.encode())))
    }
}

struct CallsOut<'a>(&'a DocOut<'a>);

impl Serialize for CallsOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let store = &self.0.trace.store;
        let mut seq = s.serialize_seq(Some(store.calls.len()))?;
        for (c, f) in store.calls.iter().zip(&self.0.call_function) {
            let value = store.value_at(c.value);
            seq.serialize_element(&(c.node.0, f, c.end, c.ref_count, ValueOut(&value)))?;
        }
        seq.end()
    }
}

/// A node: `[kind, entry, references, value]`, without the value for a nested call (its value
/// is its call's).
struct NodeOut<'a>(&'a Store, NodeId);

impl Serialize for NodeOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let NodeOut(store, id) = *self;
        let n = store.node(id);
        let nested = n.kind == NodeKind::NestedCall;
        let mut t = s.serialize_tuple(if nested { 3 } else { 4 })?;
        t.serialize_element(&kind_code(n.kind))?;
        t.serialize_element(&(n.entry != NO_ENTRY).then_some(n.entry))?;
        t.serialize_element(&RefsOut(store, id))?;
        if !nested {
            let value = store.value_at(Slot {
                tag: n.tag,
                index: n.value,
            });
            t.serialize_element(&ValueOut(&value))?;
        }
        t.end()
    }
}

/// A node's references: node numbers, `null` for a literal operand or no value.
struct RefsOut<'a>(&'a Store, NodeId);

impl Serialize for RefsOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.refs(self.1).map(|r| (!r.is_none()).then_some(r.0)))
    }
}

struct NodesOut<'a>(&'a Store);

impl Serialize for NodesOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let store = self.0;
        let mut seq = s.serialize_seq(Some(store.len()))?;
        for i in 0..store.len() as u32 {
            seq.serialize_element(&NodeOut(store, NodeId(i)))?;
        }
        seq.end()
    }
}

/// The names of the node flags a document carries, with their bits: a call whose result a
/// context replaced (`Action::Replace`), a primitive call during which another recording ran,
/// a method call whose recorded body is not the method that ran. Gradients and programs read
/// them; a trace read without them would be differentiated through a replaced result.
const FLAG_NAMES: [(&str, u8); 3] = [
    ("replaced", Node::REPLACED),
    ("records_inside", Node::RECORDS_INSIDE),
    ("foreign_body", Node::FOREIGN),
];

/// Flags: `[node, name]`, one per flag set, by node.
struct FlagsOut<'a>(&'a Store);

impl Serialize for FlagsOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for (i, n) in self.0.nodes.iter().enumerate() {
            for (name, bit) in FLAG_NAMES {
                if n.flags & bit != 0 {
                    seq.serialize_element(&(i as u32, name))?;
                }
            }
        }
        seq.end()
    }
}

/// The names of the receiver classes a method call node can have (`Receiver`), but
/// `Unknown`, which a node without an entry in `receivers` has.
const RECEIVER_NAMES: [(&str, Receiver); 4] = [
    ("float", Receiver::Float),
    ("float_ref", Receiver::FloatRef),
    ("generic", Receiver::Generic),
    ("other", Receiver::Other),
];

/// Receivers: `[node, class]` for each method call whose receiver's class is known, by node.
/// Rules read it: a float method's rule applies to a call whose receiver is a float.
struct ReceiversOut<'a>(&'a Store);

impl Serialize for ReceiversOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for (i, n) in self.0.nodes.iter().enumerate() {
            if let Some((name, _)) = RECEIVER_NAMES.iter().find(|(_, r)| *r == n.receiver) {
                seq.serialize_element(&(i as u32, name))?;
            }
        }
        seq.end()
    }
}

/// Closures: `[call, maker]` for each nested call of a closure held in a variable, the node
/// that made the closure (`Store::closure_values`), by call. A captured value's uses in the call
/// reach the enclosing function's node for it through the maker.
struct ClosuresOut<'a>(&'a Store);

impl Serialize for ClosuresOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut pairs: Vec<(u32, u32)> = self
            .0
            .closure_values
            .iter()
            .map(|(c, m)| (c.0, m.0))
            .collect();
        pairs.sort_unstable();
        s.collect_seq(pairs)
    }
}

/// Metadata: `[node, key, value]`, by node, each node's in the order set.
struct MetadataOut<'a>(&'a Store);

impl Serialize for MetadataOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let metadata = &self.0.metadata;
        let mut ids: Vec<NodeId> = metadata.keys().copied().collect();
        ids.sort_unstable();
        let mut seq = s.serialize_seq(None)?;
        for id in ids {
            for (k, v) in &metadata[&id] {
                seq.serialize_element(&(id.0, k.as_ref(), ValueOut(v)))?;
            }
        }
        seq.end()
    }
}

struct ValuesOut<'a>(&'a [Value]);

impl Serialize for ValuesOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(ValueOut))
    }
}

impl Serialize for DocOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let store = &self.trace.store;
        let mut st = s.serialize_struct("Trace", 10)?;
        st.serialize_field("schema", SCHEMA)?;
        st.serialize_field("root_name", self.trace.root_name())?;
        st.serialize_field("functions", &FunctionsOut(&self.functions))?;
        st.serialize_field("calls", &CallsOut(self))?;
        st.serialize_field("nodes", &NodesOut(store))?;
        st.serialize_field("root_args", &ValuesOut(&store.root_args))?;
        st.serialize_field("metadata", &MetadataOut(store))?;
        st.serialize_field("flags", &FlagsOut(store))?;
        st.serialize_field("receivers", &ReceiversOut(store))?;
        st.serialize_field("closures", &ClosuresOut(store))?;
        st.end()
    }
}

impl Trace {
    /// The trace as JSON in the [`SCHEMA`] format (`docs/trace-format.md`): functions' IR,
    /// calls, nodes with their references and typed values, metadata.
    ///
    /// ```
    /// use irtrack::{tracked, track, Trace};
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 {
    ///     x.sin() + x
    /// }
    ///
    /// let trace = track(f, (1.0,));
    /// let json = trace.to_json();
    /// assert!(json.starts_with("{\"schema\":\"irtrack-trace/4\""));
    /// let back = Trace::from_json(&json).unwrap();
    /// assert_eq!(back.root().to_string(), trace.root().to_string());
    /// // Values come back typed.
    /// assert_eq!(back.root().value::<f64>(), Some(&1.8414709848078965));
    /// ```
    pub fn to_json(&self) -> String {
        let store = &self.store;
        let mut functions: Vec<&FnIr> = Vec::new();
        let mut numbers: HashMap<*const FnIr, u32> = HashMap::new();
        let mut call_function = Vec::with_capacity(store.calls.len());
        for c in store.calls.iter() {
            let ir: &FnIr = store.call_ir(c);
            let f = *numbers.entry(ir as *const FnIr).or_insert_with(|| {
                functions.push(ir);
                functions.len() as u32 - 1
            });
            call_function.push(f);
        }
        let doc = DocOut {
            trace: self,
            functions,
            call_function,
        };
        // About 30 bytes a node; a good guess saves copying the text as it grows.
        let mut out = Vec::with_capacity(32 * store.len() + 1024);
        serde_json::to_writer(&mut out, &doc)
            .expect("a trace document has only string keys and values whose Debug succeeds");
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    /// Reads a trace written by [`Trace::to_json`] (schema [`SCHEMA`]), with its scalars and
    /// its snapshots of strings and of vectors and options of scalars typed. Bad input is an
    /// `Err`, never a panic; the trace read is checked with [`Trace::verify`].
    ///
    /// ```
    /// use irtrack::{JsonError, Trace};
    ///
    /// assert!(matches!(Trace::from_json("{"), Err(JsonError::Syntax(_))));
    /// assert!(matches!(
    ///     Trace::from_json(r#"{"schema": "irtrack-trace/1"}"#),
    ///     Err(JsonError::Schema { .. })
    /// ));
    /// ```
    pub fn from_json(json: &str) -> Result<Trace, JsonError> {
        let mut de = serde_json::Deserializer::from_str(json);
        let doc = DocSeed
            .deserialize(&mut de)
            .map_err(|e| match schema_error(&e.to_string()) {
                Some(found) => JsonError::Schema { found },
                None => JsonError::Syntax(e.to_string()),
            })?;
        de.end().map_err(|e| JsonError::Syntax(e.to_string()))?;
        let doc = doc?;
        let mut store = doc.store;
        // The document does not say whether a checkpoint ran under an `inject`: one may have.
        store.injected = true;
        let trace = Trace::new(store, NodeId(0), doc.root_name, "", true);
        trace
            .verify()
            .map_err(|e| JsonError::Structure(e.to_string()))?;
        Ok(trace)
    }
}

const SCHEMA_MARK: &str = "irtrack schema: ";

fn schema_error(message: &str) -> Option<Option<String>> {
    let at = message.find(SCHEMA_MARK)?;
    let rest = &message[at + SCHEMA_MARK.len()..];
    let found = rest.split(" at line").next().unwrap_or(rest);
    Some((found != "<none>").then(|| found.to_string()))
}

// ---- Import -------------------------------------------------------------------------------

/// A call as read, before it is checked against the nodes: node, function, end of its subtree,
/// number of references, and where its value was put.
struct CallIn {
    node: u32,
    function: u32,
    end: u32,
    ref_count: u32,
    value: Slot,
}

struct Doc {
    store: Store,
    root_name: String,
}

struct DocSeed;

impl<'de> DeserializeSeed<'de> for DocSeed {
    type Value = Result<Doc, JsonError>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(DocVisitor)
    }
}

struct DocVisitor;

/// The fields of a document, each read at most once.
const FIELDS: [&str; 10] = [
    "schema",
    "root_name",
    "functions",
    "calls",
    "nodes",
    "root_args",
    "metadata",
    "flags",
    "receivers",
    "closures",
];

impl<'de> Visitor<'de> for DocVisitor {
    type Value = Result<Doc, JsonError>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an {SCHEMA} document")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut store = Store::default();
        let mut seen = [false; FIELDS.len()];
        let mut root_name = String::new();
        let mut functions: Vec<Arc<FnIr>> = Vec::new();
        let mut calls: Vec<CallIn> = Vec::new();
        let mut failure: Option<JsonError> = None;
        let mut flags: Vec<(u32, String)> = Vec::new();
        let mut receivers: Vec<(u32, String)> = Vec::new();
        let mut closures: Vec<(u32, u32)> = Vec::new();
        while let Some(key) = map.next_key_seed(Text)? {
            let field = FIELDS.iter().position(|f| *f == key);
            if !seen[0] && field != Some(0) {
                return Err(de::Error::custom(format_args!("{SCHEMA_MARK}<none>")));
            }
            let Some(field) = field else {
                map.next_value::<de::IgnoredAny>()?;
                continue;
            };
            if std::mem::replace(&mut seen[field], true) {
                return Err(de::Error::duplicate_field(FIELDS[field]));
            }
            match field {
                0 => {
                    let s: serde_json::Value = map.next_value()?;
                    match s.as_str() {
                        Some(SCHEMA) => {}
                        Some(other) => {
                            return Err(de::Error::custom(format_args!("{SCHEMA_MARK}{other}")))
                        }
                        None => return Err(de::Error::custom(format_args!("{SCHEMA_MARK}<none>"))),
                    }
                }
                1 => root_name = map.next_value()?,
                2 => {
                    let raw: Vec<(String, String, String)> = map.next_value()?;
                    for (k, (name, module, text)) in raw.into_iter().enumerate() {
                        match FnIr::decode(&name, &module, &text) {
                            Ok(ir) => functions.push(Arc::new(ir)),
                            Err(e) => {
                                failure.get_or_insert(JsonError::Function {
                                    function: k,
                                    reason: e.to_string(),
                                });
                            }
                        }
                    }
                }
                3 => map.next_value_seed(CallsIn {
                    store: &mut store,
                    calls: &mut calls,
                })?,
                4 => map.next_value_seed(NodesIn {
                    store: &mut store,
                    failure: &mut failure,
                })?,
                5 => map.next_value_seed(ValuesIn(&mut store.root_args))?,
                6 => map.next_value_seed(MetadataIn(&mut store))?,
                7 => flags = map.next_value()?,
                8 => receivers = map.next_value()?,
                _ => closures = map.next_value()?,
            }
        }
        if !seen[0] {
            return Err(de::Error::custom(format_args!("{SCHEMA_MARK}<none>")));
        }
        if let Some(e) = failure {
            return Ok(Err(e));
        }
        if let Err(e) = set_flags(&mut store, &flags)
            .and_then(|()| set_receivers(&mut store, &receivers))
            .and_then(|()| set_closures(&mut store, &closures))
        {
            return Ok(Err(e));
        }
        Ok(attach_calls(store, &functions, calls).map(|store| Doc { store, root_name }))
    }
}

/// Node `node` of `store`, which a document's `field` names.
fn node_at<'s>(
    store: &'s mut Store,
    node: u32,
    field: &'static str,
) -> Result<&'s mut Node, JsonError> {
    store
        .nodes
        .get_mut(node as usize)
        .ok_or(JsonError::Dangling {
            node: node as usize,
            field,
            target: node.into(),
        })
}

/// Sets the flags read on their nodes: each names a node and a flag this schema has, and only a
/// call can be replaced, only a primitive call record inside.
fn set_flags(store: &mut Store, flags: &[(u32, String)]) -> Result<(), JsonError> {
    for (node, name) in flags {
        let n = node_at(store, *node, "flags")?;
        let Some(&(_, bit)) = FLAG_NAMES.iter().find(|(f, _)| f == name) else {
            return Err(JsonError::Syntax(format!(
                "flags: `{name}` is not a node flag of {SCHEMA} (known: replaced, \
                 records_inside, foreign_body)"
            )));
        };
        let fits = match n.kind {
            NodeKind::NestedCall => bit == Node::REPLACED || bit == Node::FOREIGN,
            NodeKind::PrimitiveCall if bit == Node::FOREIGN => false,
            NodeKind::PrimitiveCall => true,
            _ => false,
        };
        if !fits {
            return Err(JsonError::Structure(format!(
                "node {node} is flagged `{name}`, which a {:?} node cannot be",
                n.kind
            )));
        }
        n.flags |= bit;
    }
    Ok(())
}

/// Sets the receiver classes read on their nodes, each a primitive call (a method call; a
/// nested call's receiver is not read).
fn set_receivers(store: &mut Store, receivers: &[(u32, String)]) -> Result<(), JsonError> {
    for (node, name) in receivers {
        let n = node_at(store, *node, "receivers")?;
        let Some(&(_, class)) = RECEIVER_NAMES.iter().find(|(r, _)| r == name) else {
            return Err(JsonError::Syntax(format!(
                "receivers: `{name}` is not a receiver class of {SCHEMA} (known: float, \
                 float_ref, generic, other)"
            )));
        };
        if n.kind != NodeKind::PrimitiveCall {
            return Err(JsonError::Structure(format!(
                "node {node} has a receiver class, which a {:?} node cannot have",
                n.kind
            )));
        }
        n.receiver = class;
    }
    Ok(())
}

/// Links each nested call of a closure read to the node that made it: both must exist, the
/// call be a nested call and the maker come before it.
fn set_closures(store: &mut Store, closures: &[(u32, u32)]) -> Result<(), JsonError> {
    for &(call, maker) in closures {
        for (node, target) in [(call, call), (call, maker)] {
            if target as usize >= store.len() {
                return Err(JsonError::Dangling {
                    node: node as usize,
                    field: "closures",
                    target: target.into(),
                });
            }
        }
        if store.nodes[call as usize].kind != NodeKind::NestedCall || maker >= call {
            return Err(JsonError::Structure(format!(
                "node {call} is linked to the closure made by node {maker}: only a nested call \
                 is, to an earlier node"
            )));
        }
        store.closure_values.insert(NodeId(call), NodeId(maker));
    }
    Ok(())
}

/// Checks the nodes read against their calls and functions in one pass over the nodes, and
/// links each nested call node to its call: calls must be in node order, each on a nested
/// call node and ending after it, inside its enclosing call; every node but the root must be
/// in a call; each node's entry must exist in its parent's function and its references must be
/// as many as the entry's operands (for a nested call, as its call says).
fn attach_calls(
    mut store: Store,
    functions: &[Arc<FnIr>],
    calls: Vec<CallIn>,
) -> Result<Store, JsonError> {
    let n = store.len();
    if n == 0 {
        return Err(JsonError::Structure("a trace has a root node".into()));
    }
    if let Some(id) = store.metadata.keys().find(|id| id.index() >= n) {
        return Err(JsonError::Dangling {
            node: id.index(),
            field: "metadata",
            target: id.0.into(),
        });
    }
    // The calls enclosing the current node, innermost last (indices in `store.calls`).
    let mut open: Vec<usize> = Vec::new();
    for i in 0..n {
        while open
            .last()
            .is_some_and(|&c| store.calls[c].end as usize <= i)
        {
            open.pop();
        }
        if i > 0 && open.is_empty() {
            return Err(JsonError::Structure(format!(
                "node {i} is in no call: only node 0 (the root) has no parent"
            )));
        }
        let node = store.nodes[i];
        let entry_refs = if node.entry == NO_ENTRY {
            0
        } else {
            let Some(&parent) = open.last() else {
                return Err(JsonError::Structure(format!(
                    "node {i} has an entry but no function"
                )));
            };
            match store
                .call_ir(&store.calls[parent])
                .entries
                .get(node.entry as usize)
            {
                Some(e) => e.ref_count(),
                None => {
                    return Err(JsonError::Dangling {
                        node: i,
                        field: "entry",
                        target: node.entry.into(),
                    })
                }
            }
        };
        let given = match store.nodes.get(i + 1) {
            Some(next) => next.refs - node.refs,
            None => store.refs.len() as u32 - node.refs,
        } as usize;
        let expected = if node.kind == NodeKind::NestedCall {
            let k = store.calls.len();
            let Some(call) = calls.get(k).filter(|c| c.node as usize == i) else {
                return Err(JsonError::Dangling {
                    node: i,
                    field: "call",
                    target: i as u64,
                });
            };
            if call.end as usize <= i || call.end as usize > n {
                return Err(JsonError::Structure(format!(
                    "call {k} at node {i} ends at {}: a call ends after its node and at most at the last node",
                    call.end
                )));
            }
            if let Some(&p) = open.last() {
                if call.end > store.calls[p].end {
                    return Err(JsonError::Structure(format!(
                        "call {k} at node {i} ends after its enclosing call"
                    )));
                }
            }
            let Some(ir) = functions.get(call.function as usize) else {
                return Err(JsonError::Dangling {
                    node: i,
                    field: "function",
                    target: call.function.into(),
                });
            };
            if let Some(r) = store
                .refs
                .range(node.refs as usize, given)
                .find(|r| !r.is_none() && r.index() >= n)
            {
                return Err(JsonError::Dangling {
                    node: i,
                    field: "reference",
                    target: r.0.into(),
                });
            }
            let ir = store.intern_ir(IrRef::Shared(ir.clone()));
            store.calls.push(Call {
                node: NodeId(i as u32),
                ir,
                end: call.end,
                value: call.value,
                callee: Call::NO_CALLEE,
                ref_count: call.ref_count,
                parent: open.last().map_or(u32::MAX, |&p| p as u32),
            });
            store.nodes[i].value = k as u32;
            open.push(k);
            call.ref_count as usize
        } else {
            entry_refs
        };
        if given != expected {
            return Err(JsonError::Structure(format!(
                "node {i} has {given} references where its entry has {expected}"
            )));
        }
    }
    if let Some(extra) = calls.get(store.calls.len()) {
        return Err(JsonError::Dangling {
            node: extra.node as usize,
            field: "call",
            target: extra.node.into(),
        });
    }
    Ok(store)
}

/// Reads the `nodes` array straight into the store.
struct NodesIn<'s> {
    store: &'s mut Store,
    failure: &'s mut Option<JsonError>,
}

impl<'de> DeserializeSeed<'de> for NodesIn<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for NodesIn<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of nodes")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(()) = seq.next_element_seed(NodeIn {
            store: &mut *self.store,
            failure: &mut *self.failure,
        })? {}
        Ok(())
    }
}

/// One node: `[kind, entry, references, value]` (no value for a nested call).
struct NodeIn<'s> {
    store: &'s mut Store,
    failure: &'s mut Option<JsonError>,
}

impl<'de> DeserializeSeed<'de> for NodeIn<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for NodeIn<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a node: [kind, entry, references, value]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let store = self.store;
        let i = store.len();
        let code: u8 = element(&mut seq, PhantomData, 0, "a node kind")?;
        let kind = kind_of(code).ok_or_else(|| {
            de::Error::custom(format_args!("node {i}: kind {code} is not a node kind"))
        })?;
        let entry: Option<u32> = element(&mut seq, PhantomData, 1, "an entry")?;
        let refs = store.refs.len() as u32;
        element(
            &mut seq,
            RefsIn {
                store: &mut *store,
                node: i,
                nested: kind == NodeKind::NestedCall,
                failure: self.failure,
            },
            2,
            "references",
        )?;
        let slot = if kind == NodeKind::NestedCall {
            if seq.next_element::<de::IgnoredAny>()?.is_some() {
                return Err(de::Error::custom(format_args!(
                    "node {i}: a nested call has no value in `nodes` (its value is its call's)"
                )));
            }
            Slot::UNIT
        } else {
            let value = element(&mut seq, ValueIn, 3, "a value")?;
            store.put(value)
        };
        store.nodes.push(Node {
            entry: entry.unwrap_or(NO_ENTRY),
            refs,
            value: slot.index,
            tag: slot.tag,
            kind,
            receiver: Receiver::Unknown,
            flags: if kind == NodeKind::NestedCall {
                Node::REFS_SET
            } else {
                0
            },
        });
        Ok(())
    }
}

/// A node's references, pushed to the store: earlier nodes (a nested call's may be checked
/// only once every node is read) or `null`.
struct RefsIn<'s> {
    store: &'s mut Store,
    node: usize,
    nested: bool,
    failure: &'s mut Option<JsonError>,
}

impl<'de> DeserializeSeed<'de> for RefsIn<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RefsIn<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of node numbers or nulls")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(r) = seq.next_element::<Option<u32>>()? {
            let r = match r {
                Some(r) if (r as usize) < self.node || self.nested => NodeId(r),
                Some(r) => {
                    self.failure.get_or_insert(JsonError::Dangling {
                        node: self.node,
                        field: "reference",
                        target: r.into(),
                    });
                    NodeId::NONE
                }
                None => NodeId::NONE,
            };
            self.store.refs.push(r);
        }
        Ok(())
    }
}

/// Reads the `calls` array: each call's value goes to the store, the rest is checked once the
/// nodes are read ([`attach_calls`]).
struct CallsIn<'s> {
    store: &'s mut Store,
    calls: &'s mut Vec<CallIn>,
}

impl<'de> DeserializeSeed<'de> for CallsIn<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for CallsIn<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of calls")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(call) = seq.next_element_seed(OneCallIn(&mut *self.store))? {
            self.calls.push(call);
        }
        Ok(())
    }
}

/// One call: `[node, function, end, references, value]`.
struct OneCallIn<'s>(&'s mut Store);

impl<'de> DeserializeSeed<'de> for OneCallIn<'_> {
    type Value = CallIn;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<CallIn, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for OneCallIn<'_> {
    type Value = CallIn;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a call: [node, function, end, references, value]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CallIn, A::Error> {
        let node = element(&mut seq, PhantomData, 0, "a node")?;
        let function = element(&mut seq, PhantomData, 1, "a function")?;
        let end = element(&mut seq, PhantomData, 2, "the end of the call")?;
        let ref_count = element(&mut seq, PhantomData, 3, "a number of references")?;
        let value = element(&mut seq, ValueIn, 4, "a value")?;
        Ok(CallIn {
            node,
            function,
            end,
            ref_count,
            value: self.0.put(value),
        })
    }
}

/// Reads an array of values.
struct ValuesIn<'s>(&'s mut Vec<Value>);

impl<'de> DeserializeSeed<'de> for ValuesIn<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ValuesIn<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of values")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(v) = seq.next_element_seed(ValueIn)? {
            self.0.push(v);
        }
        Ok(())
    }
}

/// Reads the `metadata` array into the store (nodes are checked once all are read).
struct MetadataIn<'s>(&'s mut Store);

impl<'de> DeserializeSeed<'de> for MetadataIn<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for MetadataIn<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of metadata: [node, key, value]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some((node, key, value)) = seq.next_element_seed(MetaEntryIn)? {
            self.0
                .metadata
                .entry(NodeId(node))
                .or_default()
                .push((MetaKey::Owned(key), value));
        }
        Ok(())
    }
}

/// One metadata entry: `[node, key, value]`.
struct MetaEntryIn;

impl<'de> DeserializeSeed<'de> for MetaEntryIn {
    type Value = (u32, String, Value);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for MetaEntryIn {
    type Value = (u32, String, Value);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a metadata entry: [node, key, value]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let node = element(&mut seq, PhantomData, 0, "a node")?;
        let key = element(&mut seq, Text, 1, "a key")?;
        let value = element(&mut seq, ValueIn, 2, "a value")?;
        Ok((node, key.into_owned(), value))
    }
}
