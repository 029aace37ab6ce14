//! JSON export and import of a recorded trace (cargo feature `serde`).
//!
//! The format is versioned by its top-level `"schema"` field ([`SCHEMA`]) and documented in
//! `docs/trace-format.md`. A document holds the IR of every function the trace entered
//! (`functions`, each as its encoded text, [`FnIr::encode`]), the nested calls (`calls`: node,
//! function, end of its subtree), every node in recording order (`nodes`), the metadata, and,
//! for a primitive root, its arguments. Node `i` is the arena id `#i`; node 0 is the root.
//!
//! Values are typed: a scalar comes back as the scalar it was (`f64`, `u8`, `&f64`, …), a
//! snapshot of a `String` or a vector or option of scalars comes back downcastable, and any
//! other value comes back as its text and type name. An imported trace prints the same listing
//! and its IR is owned by the trace (shared between its calls), so import leaks nothing.
//!
//! Import reads the document in one pass straight into the trace's columns, without an
//! intermediate tree of JSON values.

use crate::core::ids::NodeId;
use crate::core::ir::{FnIr, IrRef};
use crate::core::op::Receiver;
use crate::core::tape::{Call, Callee, MetaKey, Node, NodeKind, Slot, Store, NO_ENTRY};
use crate::core::value::{Body, Repr, Snapshot, Value};
use crate::view::trace::Trace;
use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::any::TypeId;
use std::fmt;
use std::sync::Arc;

/// The schema version this crate writes and reads: the value of the top-level `"schema"`
/// field of an exported trace.
pub const SCHEMA: &str = "irtrack-trace/2";

/// Why [`Trace::from_json`] rejected a document.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonError {
    /// The text is not JSON, or not of the schema's shape (a missing field, a value of the
    /// wrong type).
    Syntax(String),
    /// The `"schema"` field is missing or names a version this crate does not read; `found` is
    /// the field's value, if it is a string.
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
        /// What refers: `"reference"`, `"entry"`, `"function"`, `"call"`, `"metadata"`.
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
                write!(f, "no \"schema\" string field (expected {SCHEMA:?})")
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

// ---- Values -------------------------------------------------------------------------------

/// Snapshot types that come back downcastable, by a tag of the file format.
macro_rules! codecs {
    ($($tag:literal => $t:ty),* $(,)?) => {
        fn snapshot_tag(id: TypeId) -> Option<&'static str> {
            $(if id == TypeId::of::<$t>() { return Some($tag); })*
            None
        }
        fn restore_snapshot(tag: &str, items: &[String]) -> Option<Value> {
            match tag {
                $($tag => Codec::<$t>::restore(items),)*
                _ => None,
            }
        }
        fn snapshot_items(tag: &str, v: &Value) -> Option<Vec<String>> {
            match tag {
                $($tag => v.downcast_ref::<$t>().map(|x| Codec::<$t>::items(x)),)*
                _ => None,
            }
        }
    };
}

codecs!(
    "String" => String,
    "Vec<f64>" => Vec<f64>,
    "Vec<f32>" => Vec<f32>,
    "Vec<i64>" => Vec<i64>,
    "Vec<i32>" => Vec<i32>,
    "Vec<usize>" => Vec<usize>,
    "Vec<u64>" => Vec<u64>,
    "Vec<bool>" => Vec<bool>,
    "Option<f64>" => Option<f64>,
    "Option<f32>" => Option<f32>,
);

struct Codec<T>(std::marker::PhantomData<T>);

impl Codec<String> {
    fn items(s: &str) -> Vec<String> {
        vec![s.to_string()]
    }
    fn restore(items: &[String]) -> Option<Value> {
        match items {
            [s] => Some(Value::snapshot(s.clone())),
            _ => None,
        }
    }
}

macro_rules! vec_codec {
    ($($t:ty),*) => {$(
        impl Codec<Vec<$t>> {
            fn items(v: &[$t]) -> Vec<String> {
                v.iter().map(|x| format!("{x:?}")).collect()
            }
            fn restore(items: &[String]) -> Option<Value> {
                let v: Option<Vec<$t>> = items.iter().map(|s| s.parse().ok()).collect();
                v.map(Value::snapshot)
            }
        }
    )*};
}
vec_codec!(f64, f32, i64, i32, usize, u64, bool);

macro_rules! option_codec {
    ($($t:ty),*) => {$(
        impl Codec<Option<$t>> {
            fn items(v: &Option<$t>) -> Vec<String> {
                v.iter().map(|x| format!("{x:?}")).collect()
            }
            fn restore(items: &[String]) -> Option<Value> {
                match items {
                    [] => Some(Value::snapshot(None::<$t>)),
                    [x] => x.parse::<$t>().ok().map(|x| Value::snapshot(Some(x))),
                    _ => None,
                }
            }
        }
    )*};
}
option_codec!(f64, f32);

/// A value in the file: `null` for `()`, `["f64", "1.5"]` for a scalar (its type, and its text,
/// which reads back exactly), `["=", type, text, tag, [items]]` for a snapshot that comes back
/// typed, `["~", type, text]` for a value known by its text, `["_", type]` for one known by
/// its type.
struct ValueOut<'a>(&'a Value);

impl Serialize for ValueOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        match &v.0 {
            Repr::Scalar(..) if v.is_unit() => s.serialize_none(),
            Repr::Scalar(..) => (v.type_name(), v.to_string()).serialize(s),
            Repr::Boxed(b) => match &b.body {
                Body::Opaque => ("_", v.type_name()).serialize(s),
                Body::Text(t) => ("~", v.type_name(), &**t).serialize(s),
                Body::Snapshot(_) => {
                    let typed = b
                        .type_id
                        .and_then(snapshot_tag)
                        .and_then(|tag| snapshot_items(tag, v).map(|items| (tag, items)));
                    match typed {
                        Some((tag, items)) => {
                            ("=", v.type_name(), v.to_string(), tag, items).serialize(s)
                        }
                        None => ("~", v.type_name(), v.to_string()).serialize(s),
                    }
                }
            },
        }
    }
}

/// A value read back.
fn read_value(raw: Option<Vec<serde_json::Value>>) -> Result<Value, String> {
    let Some(raw) = raw else {
        return Ok(Value::UNIT);
    };
    let text = |i: usize| -> Result<&str, String> {
        raw.get(i)
            .and_then(|v| v.as_str())
            .ok_or_else(|| format!("a value has no string at position {i}"))
    };
    let head = text(0)?;
    match head {
        "_" => Ok(Value::foreign(text(1)?.to_string(), None)),
        "~" => Ok(Value::foreign(text(1)?.to_string(), Some(text(2)?))),
        "=" => {
            let items: Vec<String> = raw
                .get(4)
                .and_then(|v| v.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            let restored = restore_snapshot(text(3)?, &items);
            Ok(restored.unwrap_or_else(|| {
                Value::foreign(text(1).unwrap_or("?").to_string(), text(2).ok())
            }))
        }
        ty => scalar(ty, text(1)?)
            .ok_or_else(|| format!("`{}` is not a `{ty}`", text(1).unwrap_or(""))),
    }
}

/// A scalar of the type named `ty` (`f64`, `&mut u8`) from its text.
fn scalar(ty: &str, text: &str) -> Option<Value> {
    let (form, base) = if let Some(b) = ty.strip_prefix("&mut ") {
        (2, b)
    } else if let Some(b) = ty.strip_prefix('&') {
        (1, b)
    } else {
        (0, ty)
    };
    macro_rules! parse {
        ($($name:literal => $t:ty),*) => {
            match base {
                $($name => {
                    let v: $t = text.parse().ok()?;
                    match form {
                        0 => v.snapshot(),
                        1 => v.snapshot().renamed::<&$t>(),
                        _ => v.snapshot().renamed::<&mut $t>(),
                    }
                })*
                "char" => {
                    let c = text.strip_prefix('\'')?.strip_suffix('\'')?;
                    let mut cs = c.chars();
                    let ch = match (cs.next(), cs.next()) {
                        (Some(ch), None) => ch,
                        _ => return None,
                    };
                    match form {
                        0 => ch.snapshot(),
                        1 => ch.snapshot().renamed::<&char>(),
                        _ => ch.snapshot().renamed::<&mut char>(),
                    }
                }
                _ => return None,
            }
        };
    }
    Some(
        parse!("bool" => bool, "i8" => i8, "i16" => i16, "i32" => i32, "i64" => i64,
        "isize" => isize, "u8" => u8, "u16" => u16, "u32" => u32, "u64" => u64,
        "usize" => usize, "f32" => f32, "f64" => f64),
    )
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
    functions: Vec<&'a FnIr>,
    call_function: Vec<u32>,
}

struct Functions<'a>(&'a [&'a FnIr]);
impl Serialize for Functions<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for ir in self.0 {
            seq.serialize_element(&(&ir.name, &ir.module, ir.encode()))?;
        }
        seq.end()
    }
}

struct Calls<'a>(&'a DocOut<'a>);
impl Serialize for Calls<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let calls = &self.0.trace.store.calls;
        let mut seq = s.serialize_seq(Some(calls.len()))?;
        for (c, f) in calls.iter().zip(&self.0.call_function) {
            seq.serialize_element(&(
                c.node.0,
                f,
                c.end,
                c.ref_count,
                ValueOut(&self.0.trace.store.value_at(c.value)),
            ))?;
        }
        seq.end()
    }
}

struct Nodes<'a>(&'a Trace);
impl Serialize for Nodes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let store = &self.0.store;
        let mut seq = s.serialize_seq(Some(store.len()))?;
        let mut refs: Vec<Option<u32>> = Vec::new();
        for i in 0..store.len() as u32 {
            let id = NodeId(i);
            let n = store.node(id);
            refs.clear();
            refs.extend(store.refs(id).map(|r| (!r.is_none()).then_some(r.0)));
            let entry = (n.entry != NO_ENTRY).then_some(n.entry);
            if n.kind == NodeKind::NestedCall {
                seq.serialize_element(&(kind_code(n.kind), entry, &refs))?;
            } else {
                let value = store.value_at(Slot {
                    tag: n.tag,
                    index: n.value,
                });
                seq.serialize_element(&(kind_code(n.kind), entry, &refs, ValueOut(&value)))?;
            }
        }
        seq.end()
    }
}

struct Metadata<'a>(&'a Trace);
impl Serialize for Metadata<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut all: Vec<(&NodeId, &Vec<(MetaKey, Value)>)> =
            self.0.store.metadata.iter().collect();
        all.sort_by_key(|(id, _)| **id);
        let mut seq = s.serialize_seq(None)?;
        for (id, entries) in all {
            for (k, v) in entries {
                seq.serialize_element(&(id.0, k.as_ref(), ValueOut(v)))?;
            }
        }
        seq.end()
    }
}

struct Values<'a>(&'a [Value]);
impl Serialize for Values<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for v in self.0 {
            seq.serialize_element(&ValueOut(v))?;
        }
        seq.end()
    }
}

impl Serialize for DocOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Trace", 7)?;
        st.serialize_field("schema", SCHEMA)?;
        st.serialize_field("root_name", self.trace.root_name())?;
        st.serialize_field("functions", &Functions(&self.functions))?;
        st.serialize_field("calls", &Calls(self))?;
        st.serialize_field("nodes", &Nodes(self.trace))?;
        st.serialize_field("root_args", &Values(&self.trace.store.root_args))?;
        st.serialize_field("metadata", &Metadata(self.trace))?;
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
    /// assert!(json.contains("\"schema\":\"irtrack-trace/2\""));
    /// let back = Trace::from_json(&json).unwrap();
    /// assert_eq!(back.root().to_string(), trace.root().to_string());
    /// // Values come back typed.
    /// assert_eq!(back.root().value::<f64>(), Some(&1.8414709848078965));
    /// ```
    pub fn to_json(&self) -> String {
        let mut functions: Vec<&FnIr> = Vec::new();
        let mut call_function = Vec::with_capacity(self.store.calls.len());
        for c in &self.store.calls {
            let f = match functions.iter().position(|ir| std::ptr::eq(*ir, &*c.ir)) {
                Some(f) => f,
                None => {
                    functions.push(&c.ir);
                    functions.len() - 1
                }
            };
            call_function.push(f as u32);
        }
        let doc = DocOut {
            trace: self,
            functions,
            call_function,
        };
        serde_json::to_string(&doc).expect("a trace document has only string keys")
    }

    /// Reads a trace written by [`Trace::to_json`] (schema [`SCHEMA`]). Bad input is an
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
        let trace = Trace::new(doc.store, NodeId(0), doc.root_name, "", true);
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

/// A call in the file: node, function, end of its subtree, number of references, value.
type CallIn = (u32, u32, u32, u32, Option<Vec<serde_json::Value>>);

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

impl<'de> Visitor<'de> for DocVisitor {
    type Value = Result<Doc, JsonError>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an {SCHEMA} document")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut store = Store::default();
        let mut schema_seen = false;
        let mut root_name = String::new();
        let mut functions: Vec<Arc<FnIr>> = Vec::new();
        let mut calls: Vec<CallIn> = Vec::new();
        let mut failure: Option<JsonError> = None;
        while let Some(key) = map.next_key::<String>()? {
            if !schema_seen && key != "schema" {
                return Err(de::Error::custom(format!("{SCHEMA_MARK}<none>")));
            }
            match key.as_str() {
                "schema" => {
                    let s: serde_json::Value = map.next_value()?;
                    match s.as_str() {
                        Some(SCHEMA) => schema_seen = true,
                        Some(other) => {
                            return Err(de::Error::custom(format!("{SCHEMA_MARK}{other}")))
                        }
                        None => return Err(de::Error::custom(format!("{SCHEMA_MARK}<none>"))),
                    }
                }
                "root_name" => root_name = map.next_value()?,
                "functions" => {
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
                "calls" => calls = map.next_value()?,
                "nodes" => {
                    if let Err(e) = map.next_value_seed(NodesSeed(&mut store))? {
                        failure.get_or_insert(e);
                    }
                }
                "root_args" => {
                    let raw: Vec<Option<Vec<serde_json::Value>>> = map.next_value()?;
                    for v in raw {
                        store
                            .root_args
                            .push(read_value(v).map_err(de::Error::custom)?);
                    }
                }
                "metadata" => {
                    let raw: Vec<(u32, String, Option<Vec<serde_json::Value>>)> =
                        map.next_value()?;
                    for (node, k, v) in raw {
                        if node as usize >= store.len() {
                            failure.get_or_insert(JsonError::Dangling {
                                node: node as usize,
                                field: "metadata",
                                target: node.into(),
                            });
                            continue;
                        }
                        let v = read_value(v).map_err(de::Error::custom)?;
                        store
                            .metadata
                            .entry(NodeId(node))
                            .or_default()
                            .push((MetaKey::Owned(k), v));
                    }
                }
                _ => {
                    let _: de::IgnoredAny = map.next_value()?;
                }
            }
        }
        if !schema_seen {
            return Err(de::Error::custom(format!("{SCHEMA_MARK}<none>")));
        }
        if let Some(e) = failure {
            return Ok(Err(e));
        }
        Ok(attach_calls(store, functions, calls).map(|store| Doc { store, root_name }))
    }
}

fn attach_calls(
    mut store: Store,
    functions: Vec<Arc<FnIr>>,
    calls: Vec<CallIn>,
) -> Result<Store, JsonError> {
    let n = store.len();
    if n == 0 {
        return Err(JsonError::Structure("a trace has a root node".into()));
    }
    let mut open: Vec<usize> = Vec::new();
    let mut last = None;
    for (k, (node, function, end, ref_count, value)) in calls.into_iter().enumerate() {
        let dangling = |field, target: u32| JsonError::Dangling {
            node: node as usize,
            field,
            target: target.into(),
        };
        if node as usize >= n || store.nodes[node as usize].kind != NodeKind::NestedCall {
            return Err(dangling("call", node));
        }
        if last.is_some_and(|l| l >= node) || end <= node || end as usize > n {
            return Err(JsonError::Structure(format!(
                "call {k} at node {node} ends at {end}: calls must be in node order and end after their node"
            )));
        }
        last = Some(node);
        let ir = functions
            .get(function as usize)
            .cloned()
            .ok_or_else(|| dangling("function", function))?;
        while open.last().is_some_and(|&c| store.calls[c].end <= node) {
            open.pop();
        }
        let parent = open.last().map_or(u32::MAX, |&c| c as u32);
        if let Some(&p) = open.last() {
            if end > store.calls[p].end {
                return Err(JsonError::Structure(format!(
                    "call {k} at node {node} ends after its enclosing call"
                )));
            }
        }
        let value = read_value(value).map_err(JsonError::Syntax)?;
        let value = store.put(value);
        store.nodes[node as usize].value = store.calls.len() as u32;
        store.calls.push(Call {
            node: NodeId(node),
            ir: IrRef::Shared(ir),
            end,
            value,
            callee: None,
            ref_count,
            parent,
        });
        open.push(store.calls.len() - 1);
    }
    // Every nested node has its call, and the references a node has are what its entry needs.
    let mut next_refs = 0u32;
    for i in 0..n {
        let node = store.nodes[i];
        if node.refs != next_refs {
            return Err(JsonError::Structure(format!(
                "node {i}: references out of order"
            )));
        }
        if node.kind == NodeKind::NestedCall
            && store
                .calls
                .get(node.value as usize)
                .map_or(true, |c| c.node.0 as usize != i)
        {
            return Err(JsonError::Dangling {
                node: i,
                field: "call",
                target: i as u64,
            });
        }
        if i > 0 && store.parent(NodeId(i as u32)).is_none() {
            return Err(JsonError::Structure(format!(
                "node {i} is in no call: only node 0 (the root) has no parent"
            )));
        }
        let expected = if node.kind == NodeKind::NestedCall {
            store.calls[node.value as usize].ref_count as usize
        } else if node.entry != NO_ENTRY {
            let Some(ir) = store.ir_of(NodeId(i as u32)) else {
                return Err(JsonError::Structure(format!(
                    "node {i} has an entry but no function"
                )));
            };
            match ir.entries.get(node.entry as usize) {
                Some(e) => e.ref_count(),
                None => {
                    return Err(JsonError::Dangling {
                        node: i,
                        field: "entry",
                        target: node.entry.into(),
                    })
                }
            }
        } else {
            0
        };
        let given = match store.nodes.get(i + 1) {
            Some(next) => next.refs - node.refs,
            None => store.refs.len() as u32 - node.refs,
        };
        if given as usize != expected {
            return Err(JsonError::Structure(format!(
                "node {i} has {given} references where its entry has {expected}"
            )));
        }
        next_refs = node.refs + given;
    }
    let _ = Callee::Unknown;
    Ok(store)
}

/// Reads the `nodes` array straight into the store.
struct NodesSeed<'s>(&'s mut Store);

impl<'de> DeserializeSeed<'de> for NodesSeed<'_> {
    type Value = Result<(), JsonError>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for NodesSeed<'_> {
    type Value = Result<(), JsonError>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of nodes")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let store = self.0;
        let mut failure = None;
        while let Some(node) = seq.next_element::<NodeIn>()? {
            let i = store.len();
            let Some(kind) = kind_of(node.0) else {
                return Err(de::Error::custom(format!(
                    "node {i}: kind {} is not a node kind",
                    node.0
                )));
            };
            let refs = store.refs.len() as u32;
            for r in &node.2 {
                let r = match *r {
                    Some(r) if (r as usize) < i || (kind == NodeKind::NestedCall) => NodeId(r),
                    Some(r) => {
                        failure.get_or_insert(JsonError::Dangling {
                            node: i,
                            field: "reference",
                            target: r.into(),
                        });
                        NodeId::NONE
                    }
                    None => NodeId::NONE,
                };
                store.refs.push(r);
            }
            let slot = match node.3 {
                Some(v) => {
                    let v = read_value(Some(v))
                        .map_err(|e| de::Error::custom(format!("node {i}: {e}")))?;
                    store.put(v)
                }
                None => Slot::UNIT,
            };
            store.nodes.push(Node {
                entry: node.1.unwrap_or(NO_ENTRY),
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
        }
        Ok(match failure {
            Some(e) => Err(e),
            None => Ok(()),
        })
    }
}

/// One node in the file: kind, entry, references, value (none for a nested call, whose value
/// is its call's).
#[derive(Deserialize)]
struct NodeIn(
    u8,
    Option<u32>,
    Vec<Option<u32>>,
    #[serde(default)] Option<Vec<serde_json::Value>>,
);
