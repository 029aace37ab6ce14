//! JSON export and import of a recorded trace (cargo feature `serde`).
//!
//! The format is versioned by its top-level `"schema"` field ([`SCHEMA`]) and documented in
//! `docs/trace-format.md`. In short: a document holds the static IR of every function the trace
//! entered (`functions`), every node in recording order (`nodes`, node `i` is the arena id
//! `#i`), and the root (`root`, always node 0).
//!
//! Values are exported as their `Debug` text and full type name only. An imported trace prints
//! the same listing, and [`NodeRef::value_text`](crate::NodeRef::value_text) and
//! [`NodeRef::type_name`](crate::NodeRef::type_name) give what they gave before the export, but
//! [`NodeRef::value`](crate::NodeRef::value) (any downcast) is `None`: the original Rust values
//! are not in the file.
//!
//! # Interning
//!
//! A trace refers to its functions' IR, their heads and constants, type names and metadata keys
//! as `&'static` data, because a recorded trace points into the `static` IR that `#[tracked]`
//! generates. An imported trace must do the same, so import leaks what it reads into `'static`
//! memory, through a process-wide table keyed by content: a string, or a whole function (name,
//! module, variable count and entries), is leaked once and then reused by every later import.
//! Importing the same functions and strings again does not grow memory; only data never seen
//! before does, bounded by the distinct functions, type names and keys a process reads. Values'
//! texts are not interned: they belong to the trace and are freed with it.

use crate::ir::{Entry, EntryKind, FnIr, Location, Operand, Slot};
use crate::node::{CallData, NodeData, NodeId, NodeKind, Store};
use crate::trace::Trace;
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Mutex, OnceLock};

/// The schema version this crate writes and reads: the value of the top-level `"schema"`
/// field of an exported trace.
pub const SCHEMA: &str = "irtrack-trace/1";

/// Why [`Trace::from_json`] rejected a document.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonError {
    /// The text is not JSON.
    Syntax(String),
    /// The `"schema"` field is missing or names a version this crate does not read; `found` is
    /// the field's value, if it is a string.
    Schema {
        /// The schema named by the document.
        found: Option<String>,
    },
    /// The JSON does not have the schema's shape (a missing field, a value of the wrong type).
    Shape(String),
    /// A node refers to a node that does not exist.
    DanglingNode {
        /// The referring node.
        node: usize,
        /// What refers: `"parent"`, `"references"`, `"jump"`, `"metadata"` or `"root"`.
        field: &'static str,
        /// The node id that does not exist.
        target: u64,
    },
    /// A node refers to a function, or an entry of a function, that does not exist.
    DanglingFunction {
        /// The referring node.
        node: usize,
        /// The function index.
        function: u64,
        /// The entry index, when the function exists but that entry does not.
        entry: Option<u64>,
    },
    /// The nodes do not form a trace: a second root, a parent that is not a nested call or comes
    /// after its child, positions out of order, a function that is not the parent's callee.
    Structure {
        /// The offending node.
        node: usize,
        /// What is wrong.
        reason: String,
    },
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonError::Syntax(e) => write!(f, "not JSON: {e}"),
            JsonError::Schema { found: Some(s) } => {
                write!(f, "unsupported schema {s:?} (this crate reads {SCHEMA:?})")
            }
            JsonError::Schema { found: None } => {
                write!(f, "no \"schema\" string field (expected {SCHEMA:?})")
            }
            JsonError::Shape(e) => write!(f, "not an {SCHEMA} document: {e}"),
            JsonError::DanglingNode {
                node,
                field,
                target,
            } => write!(
                f,
                "node {node}: {field} names node {target}, which does not exist"
            ),
            JsonError::DanglingFunction {
                node,
                function,
                entry: None,
            } => write!(f, "node {node}: function {function} does not exist"),
            JsonError::DanglingFunction {
                node,
                function,
                entry: Some(e),
            } => write!(f, "node {node}: function {function} has no entry {e}"),
            JsonError::Structure { node, reason } => write!(f, "node {node}: {reason}"),
        }
    }
}

impl std::error::Error for JsonError {}

// ---- The document -------------------------------------------------------------------------

#[derive(Serialize, Deserialize)]
struct Doc {
    schema: String,
    root: u32,
    /// The name `track` gave the root, written only when the root is a primitive call (a
    /// nested root is named by its function's IR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    root_name: Option<String>,
    functions: Vec<FnJson>,
    nodes: Vec<NodeJson>,
}

#[derive(Clone, Serialize, Deserialize, PartialEq, Eq, Hash)]
struct FnJson {
    name: String,
    module: String,
    var_count: u32,
    entries: Vec<EntryJson>,
}

#[derive(Clone, Serialize, Deserialize, PartialEq, Eq, Hash)]
struct EntryJson {
    location: LocationJson,
    kind: KindJson,
    head: String,
    operands: Vec<Option<OperandJson>>,
    condition: Option<OperandJson>,
    target: u32,
}

#[derive(Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash)]
struct LocationJson {
    block: u32,
    #[serde(flatten)]
    slot: SlotJson,
}

#[derive(Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
enum SlotJson {
    Var(u32),
    Arg(u32),
    Const(u32),
    Branch(u32),
}

#[derive(Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
enum KindJson {
    Argument,
    Constant,
    Call,
    MethodCall,
    Operator,
    Special,
    Jump,
    JumpUnless,
    JumpIfMatches,
    Return,
}

#[derive(Clone, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
enum OperandJson {
    Var(u32),
    Const(String),
}

#[derive(Serialize, Deserialize)]
struct NodeJson {
    kind: NodeKindJson,
    parent: Option<u32>,
    position: Option<u32>,
    function: Option<u32>,
    entry: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    callee: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    jump: Option<u32>,
    references: Vec<Option<u32>>,
    value: ValueJson,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    metadata: Vec<(String, ValueJson)>,
}

#[derive(Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum NodeKindJson {
    Argument,
    Constant,
    PrimitiveCall,
    NestedCall,
    Special,
    Jump,
    Return,
    Error,
}

#[derive(Serialize, Deserialize)]
struct ValueJson {
    #[serde(rename = "type")]
    type_name: String,
    text: Option<String>,
}

// ---- Conversions --------------------------------------------------------------------------

fn location_json(l: Location) -> LocationJson {
    LocationJson {
        block: l.block,
        slot: match l.slot {
            Slot::Var(i) => SlotJson::Var(i),
            Slot::Arg(i) => SlotJson::Arg(i),
            Slot::Const(i) => SlotJson::Const(i),
            Slot::Branch(k) => SlotJson::Branch(k),
        },
    }
}

fn location_ir(l: LocationJson) -> Location {
    Location {
        block: l.block,
        slot: match l.slot {
            SlotJson::Var(i) => Slot::Var(i),
            SlotJson::Arg(i) => Slot::Arg(i),
            SlotJson::Const(i) => Slot::Const(i),
            SlotJson::Branch(k) => Slot::Branch(k),
        },
    }
}

fn kind_json(k: EntryKind) -> KindJson {
    match k {
        EntryKind::Argument => KindJson::Argument,
        EntryKind::Constant => KindJson::Constant,
        EntryKind::Call => KindJson::Call,
        EntryKind::MethodCall => KindJson::MethodCall,
        EntryKind::Operator => KindJson::Operator,
        EntryKind::Special => KindJson::Special,
        EntryKind::Jump => KindJson::Jump,
        EntryKind::JumpUnless => KindJson::JumpUnless,
        EntryKind::JumpIfMatches => KindJson::JumpIfMatches,
        EntryKind::Return => KindJson::Return,
    }
}

fn kind_ir(k: KindJson) -> EntryKind {
    match k {
        KindJson::Argument => EntryKind::Argument,
        KindJson::Constant => EntryKind::Constant,
        KindJson::Call => EntryKind::Call,
        KindJson::MethodCall => EntryKind::MethodCall,
        KindJson::Operator => EntryKind::Operator,
        KindJson::Special => EntryKind::Special,
        KindJson::Jump => EntryKind::Jump,
        KindJson::JumpUnless => EntryKind::JumpUnless,
        KindJson::JumpIfMatches => EntryKind::JumpIfMatches,
        KindJson::Return => EntryKind::Return,
    }
}

fn node_kind_json(k: NodeKind) -> NodeKindJson {
    match k {
        NodeKind::Argument => NodeKindJson::Argument,
        NodeKind::Constant => NodeKindJson::Constant,
        NodeKind::PrimitiveCall => NodeKindJson::PrimitiveCall,
        NodeKind::NestedCall => NodeKindJson::NestedCall,
        NodeKind::Special => NodeKindJson::Special,
        NodeKind::Jump => NodeKindJson::Jump,
        NodeKind::Return => NodeKindJson::Return,
        NodeKind::Error => NodeKindJson::Error,
    }
}

fn node_kind_ir(k: NodeKindJson) -> NodeKind {
    match k {
        NodeKindJson::Argument => NodeKind::Argument,
        NodeKindJson::Constant => NodeKind::Constant,
        NodeKindJson::PrimitiveCall => NodeKind::PrimitiveCall,
        NodeKindJson::NestedCall => NodeKind::NestedCall,
        NodeKindJson::Special => NodeKind::Special,
        NodeKindJson::Jump => NodeKind::Jump,
        NodeKindJson::Return => NodeKind::Return,
        NodeKindJson::Error => NodeKind::Error,
    }
}

fn operand_json(o: Operand) -> Option<OperandJson> {
    match o {
        Operand::Var(i) => Some(OperandJson::Var(i)),
        Operand::Const(c) => Some(OperandJson::Const(c.to_owned())),
        Operand::None => None,
    }
}

fn fn_json(ir: &FnIr) -> FnJson {
    FnJson {
        name: ir.name.to_owned(),
        module: ir.module.to_owned(),
        var_count: ir.var_count,
        entries: ir
            .entries
            .iter()
            .map(|e| EntryJson {
                location: location_json(e.location),
                kind: kind_json(e.kind),
                head: e.head.to_owned(),
                operands: e.operands.iter().map(|&o| operand_json(o)).collect(),
                condition: operand_json(e.condition),
                target: e.target,
            })
            .collect(),
    }
}

fn value_json(v: &Value) -> ValueJson {
    ValueJson {
        type_name: v.type_name().to_owned(),
        text: (!v.is_opaque()).then(|| v.to_string()),
    }
}

// ---- Interning ----------------------------------------------------------------------------

/// The process-wide table of data leaked by imports, keyed by content, so that importing the
/// same functions and strings again reuses what the first import leaked (see the module docs).
#[derive(Default)]
struct Interner {
    strs: HashSet<&'static str>,
    fns: HashMap<FnJson, &'static FnIr>,
}

fn interner() -> std::sync::MutexGuard<'static, Interner> {
    static TABLE: OnceLock<Mutex<Interner>> = OnceLock::new();
    let table = TABLE.get_or_init(Default::default);
    // The table stays consistent if a holder panicked: every insert is a single step.
    table
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Interner {
    fn str(&mut self, s: &str) -> &'static str {
        if let Some(&interned) = self.strs.get(s) {
            return interned;
        }
        let leaked: &'static str = Box::leak(s.to_owned().into_boxed_str());
        self.strs.insert(leaked);
        leaked
    }

    fn operand(&mut self, o: &Option<OperandJson>) -> Operand {
        match o {
            Some(OperandJson::Var(i)) => Operand::Var(*i),
            Some(OperandJson::Const(c)) => Operand::Const(self.str(c)),
            None => Operand::None,
        }
    }

    fn function(&mut self, f: &FnJson) -> &'static FnIr {
        if let Some(&ir) = self.fns.get(f) {
            return ir;
        }
        let entries: Vec<Entry> = f
            .entries
            .iter()
            .map(|e| {
                let operands: Vec<Operand> = e.operands.iter().map(|o| self.operand(o)).collect();
                Entry {
                    location: location_ir(e.location),
                    kind: kind_ir(e.kind),
                    head: self.str(&e.head),
                    operands: Box::leak(operands.into_boxed_slice()),
                    condition: self.operand(&e.condition),
                    target: e.target,
                }
            })
            .collect();
        let ir: &'static FnIr = Box::leak(Box::new(FnIr {
            name: self.str(&f.name),
            module: self.str(&f.module),
            entries: Box::leak(entries.into_boxed_slice()),
            var_count: f.var_count,
        }));
        self.fns.insert(f.clone(), ir);
        ir
    }
}

// ---- Export -------------------------------------------------------------------------------

impl Trace {
    /// The trace as pretty-printed JSON in the [`SCHEMA`] format (`docs/trace-format.md`):
    /// functions' IR, nodes with their references, values as text and type name, metadata.
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
    /// assert!(json.contains("\"schema\": \"irtrack-trace/1\""));
    /// let back = Trace::from_json(&json).unwrap();
    /// assert_eq!(back.root().to_string(), trace.root().to_string());
    /// // Values come back as text: the listing is kept, downcasts are not.
    /// assert_eq!(back.root().value_text(), "1.8414709848078965");
    /// assert_eq!(back.root().value::<f64>(), None);
    /// ```
    pub fn to_json(&self) -> String {
        let store = &self.store;
        let root = self.root().id();
        // Functions in order of first use by a nested call, deduplicated by identity.
        let mut functions: Vec<&'static FnIr> = Vec::new();
        let mut fn_index: HashMap<*const FnIr, u32> = HashMap::new();
        let mut index_of = |ir: &'static FnIr| -> u32 {
            *fn_index.entry(ir as *const FnIr).or_insert_with(|| {
                functions.push(ir);
                functions.len() as u32 - 1
            })
        };
        let callees: Vec<Option<u32>> = (0..store.nodes.len() as u32)
            .map(|i| store.call(NodeId(i)).map(|c| index_of(c.ir)))
            .collect();
        let nodes = store
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let id = NodeId(i as u32);
                let has_parent = !n.parent.is_none();
                let function = has_parent
                    .then(|| callees.get(n.parent.index()).copied().flatten())
                    .flatten();
                let ir = store.ir_of(id);
                let entry = ir
                    .filter(|ir| (n.entry as usize) < ir.entries.len())
                    .map(|_| n.entry);
                let jump =
                    (n.kind == NodeKind::Argument && !NodeId(n.extra).is_none()).then_some(n.extra);
                NodeJson {
                    kind: node_kind_json(n.kind),
                    parent: has_parent.then_some(n.parent.0),
                    position: has_parent.then_some(n.position),
                    function,
                    entry,
                    callee: callees[i],
                    jump,
                    references: store
                        .refs(id)
                        .iter()
                        .map(|r| (!r.is_none()).then_some(r.0))
                        .collect(),
                    value: value_json(&n.value),
                    metadata: store
                        .metadata
                        .get(&id)
                        .into_iter()
                        .flatten()
                        .map(|(k, v)| ((*k).to_owned(), value_json(v)))
                        .collect(),
                }
            })
            .collect();
        let doc = Doc {
            schema: SCHEMA.to_owned(),
            root: root.0,
            root_name: (self.root().kind() != NodeKind::NestedCall)
                .then(|| self.root_name().to_owned()),
            functions: functions.iter().map(|ir| fn_json(ir)).collect(),
            nodes,
        };
        serde_json::to_string_pretty(&doc).expect("a trace document has only string keys")
    }

    /// Reads a trace written by [`Trace::to_json`] (schema [`SCHEMA`]).
    ///
    /// Values come back as their text and type name: the listing, `value_text()` and
    /// `type_name()` are as before the export, `value::<T>()` is `None`. Function IR, heads,
    /// type names and metadata keys are interned process-wide (see `irtrack_runtime::json`).
    /// Bad input is an `Err`, never a panic.
    ///
    /// ```
    /// use irtrack::{JsonError, Trace};
    ///
    /// assert!(matches!(Trace::from_json("{"), Err(JsonError::Syntax(_))));
    /// assert!(matches!(
    ///     Trace::from_json(r#"{"schema": "irtrack-trace/0"}"#),
    ///     Err(JsonError::Schema { .. })
    /// ));
    /// ```
    pub fn from_json(json: &str) -> Result<Trace, JsonError> {
        let raw: serde_json::Value =
            serde_json::from_str(json).map_err(|e| JsonError::Syntax(e.to_string()))?;
        match raw.get("schema").and_then(|s| s.as_str()) {
            Some(SCHEMA) => {}
            found => {
                return Err(JsonError::Schema {
                    found: found.map(str::to_owned),
                })
            }
        }
        let doc: Doc = serde_json::from_value(raw).map_err(|e| JsonError::Shape(e.to_string()))?;
        let store = build_store(&doc)?;
        // The name shows only for a primitive root; a nested root is named by its IR.
        let root_name = interner().str(doc.root_name.as_deref().unwrap_or("?"));
        Ok(Trace::from_parts(
            store,
            crate::node::NodeId(doc.root),
            root_name,
        ))
    }
}

// ---- Import -------------------------------------------------------------------------------

fn build_store(doc: &Doc) -> Result<Store, JsonError> {
    let n = doc.nodes.len();
    if doc.root as usize >= n {
        return Err(JsonError::DanglingNode {
            node: 0,
            field: "root",
            target: doc.root.into(),
        });
    }
    if doc.root != 0 {
        return Err(JsonError::Structure {
            node: doc.root as usize,
            reason: "the root must be node 0".into(),
        });
    }
    let mut table = interner();
    let functions: Vec<&'static FnIr> = doc.functions.iter().map(|f| table.function(f)).collect();
    let mut store = Store::default();
    let mut children: Vec<Vec<NodeId>> = vec![Vec::new(); n];
    for (i, node) in doc.nodes.iter().enumerate() {
        let kind = node_kind_ir(node.kind);
        let structure = |reason: &str| JsonError::Structure {
            node: i,
            reason: reason.to_owned(),
        };
        let dangling = |field: &'static str, target: u32| JsonError::DanglingNode {
            node: i,
            field,
            target: target.into(),
        };
        let function_at = |f: u32| {
            functions
                .get(f as usize)
                .copied()
                .ok_or(JsonError::DanglingFunction {
                    node: i,
                    function: f.into(),
                    entry: None,
                })
        };
        // Parent, position and function: the root has none; every other node sits in an earlier
        // nested call, at the next position, and was recorded in that call's callee.
        let (parent, position, entry) = match node.parent {
            None if i == 0 => {
                if node.position.is_some() || node.function.is_some() || node.entry.is_some() {
                    return Err(structure("the root has no position, function or entry"));
                }
                (NodeId::NONE, 0, u32::MAX)
            }
            None => return Err(structure("only node 0 (the root) has no parent")),
            Some(p) => {
                if p as usize >= n {
                    return Err(dangling("parent", p));
                }
                if p as usize >= i {
                    return Err(structure("a parent must come before its children"));
                }
                let parent = &doc.nodes[p as usize];
                let Some(callee) = parent
                    .callee
                    .filter(|_| parent.kind == NodeKindJson::NestedCall)
                else {
                    return Err(structure("the parent is not a nested call"));
                };
                let siblings = &mut children[p as usize];
                siblings.push(NodeId(i as u32));
                if node.position != Some(siblings.len() as u32) {
                    return Err(structure(&format!(
                        "position must be {}, the next among its parent's children",
                        siblings.len()
                    )));
                }
                if node.function != Some(callee) {
                    return Err(structure("function must be the parent's callee"));
                }
                let ir = function_at(callee)?;
                let entry = match node.entry {
                    None => u32::MAX,
                    Some(e) if (e as usize) < ir.entries.len() => e,
                    Some(e) => {
                        return Err(JsonError::DanglingFunction {
                            node: i,
                            function: callee.into(),
                            entry: Some(e.into()),
                        })
                    }
                };
                (NodeId(p), siblings.len() as u32, entry)
            }
        };
        let extra = match (kind, node.callee, node.jump) {
            (NodeKind::NestedCall, Some(f), None) => {
                function_at(f)?;
                store.calls.len() as u32 // the call is pushed below, in node order
            }
            (NodeKind::NestedCall, _, _) => {
                return Err(structure("a nested call has a callee and no jump"))
            }
            (_, Some(_), _) => return Err(structure("only a nested call has a callee")),
            (NodeKind::Argument, None, Some(j)) if (j as usize) < n => j,
            (NodeKind::Argument, None, Some(j)) => return Err(dangling("jump", j)),
            (_, None, Some(_)) => return Err(structure("only a block argument has a jump")),
            (_, None, None) => u32::MAX,
        };
        if let (NodeKind::NestedCall, Some(f)) = (kind, node.callee) {
            store.calls.push(CallData {
                ir: functions[f as usize],
                callee: "",
                children_start: 0,
                children_len: 0,
            });
        }
        let refs_start = store.refs.len() as u32;
        for r in &node.references {
            store.refs.push(match *r {
                Some(r) if (r as usize) < n => NodeId(r),
                Some(r) => return Err(dangling("references", r)),
                None => NodeId::NONE,
            });
        }
        if !node.metadata.is_empty() {
            let metadata = node
                .metadata
                .iter()
                .map(|(k, v)| (table.str(k), import_value(&mut table, v)))
                .collect();
            store.metadata.insert(NodeId(i as u32), metadata);
        }
        store.nodes.push(NodeData {
            kind,
            parent,
            position,
            entry,
            refs_start,
            refs_len: node.references.len() as u32,
            extra,
            value: import_value(&mut table, &node.value),
        });
    }
    // Children of each call, in the calls' order.
    for (i, node) in store.nodes.iter().enumerate() {
        if node.kind == NodeKind::NestedCall {
            let call = &mut store.calls[node.extra as usize];
            call.children_start = store.children.len() as u32;
            call.children_len = children[i].len() as u32;
            store.children.extend_from_slice(&children[i]);
        }
    }
    Ok(store)
}

fn import_value(table: &mut Interner, v: &ValueJson) -> Value {
    Value::from_text(table.str(&v.type_name), v.text.as_deref())
}
