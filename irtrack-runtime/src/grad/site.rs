//! A recorded node seen by a gradient rule: its operands' values (recorded or literal), its
//! value, and what it called, by typed key.

use super::primal::{primal, Primal};
use crate::core::ids::NodeId;
use crate::core::ir::{Entry, EntryKind, FnIr, Operand};
use crate::core::literal;
use crate::core::op::{Builtin, Receiver};
use crate::core::tape::{Callee, NodeKind, Store};
use crate::core::value::Value;
use std::borrow::Cow;

/// One node a rule is asked to differentiate.
pub struct Site<'a> {
    pub(crate) store: &'a Store,
    pub(crate) node: NodeId,
    pub(crate) ir: &'a FnIr,
    pub(crate) index: usize,
    pub(crate) entry: &'a Entry,
    pub(crate) refs: Vec<NodeId>,
    /// Which operands depend on the inputs (bit `i` for operand `i`; all set past 64).
    pub(crate) needed: u64,
    /// Values that replace recorded ones (a probabilistic program's nodes recomputed in place
    /// for other values of its choices): a rule then sees the node as it would have been
    /// recorded with those values.
    pub(crate) values: Option<&'a std::collections::HashMap<NodeId, Value>>,
}

impl<'a> Site<'a> {
    pub(crate) fn new(store: &'a Store, node: NodeId) -> Option<Site<'a>> {
        let (ir, entry) = store.entry_of(node)?;
        Some(Site {
            store,
            node,
            ir,
            index: store.node(node).entry as usize,
            entry,
            refs: store.refs(node).collect(),
            needed: u64::MAX,
            values: None,
        })
    }

    /// Whether operand `i` needs a sensitivity: it depends on the inputs. A rule may skip
    /// computing what no input depends on (the gradient of a constant matrix in `A·x`).
    pub fn needs(&self, i: usize) -> bool {
        i >= 64 || self.needed & (1 << i) != 0
    }

    /// The number of operands (for a method call, the receiver is the first).
    pub fn len(&self) -> usize {
        self.entry.operands.len()
    }

    /// Whether the call has no operands.
    pub fn is_empty(&self) -> bool {
        self.entry.operands.is_empty()
    }

    /// The recorded value of operand `i`, when it is a recorded variable.
    pub fn value(&self, i: usize) -> Option<Cow<'a, Value>> {
        let r = *self.refs.get(i)?;
        if r.is_none() || i >= self.len() {
            return None;
        }
        if let Some(v) = self.values.and_then(|m| m.get(&r)) {
            return Some(Cow::Borrowed(v));
        }
        Some(self.store.value_cow(r))
    }

    /// The literal text of operand `i`, when it is a literal.
    pub fn literal(&self, i: usize) -> Option<&'a str> {
        match self.entry.operands.get(i)? {
            Operand::Const(c) => Some(c),
            _ => None,
        }
    }

    /// Operand `i` as a float (a recorded `f64`/`f32`, or a literal read as the float type of
    /// the call's value).
    pub fn scalar(&self, i: usize) -> Option<f64> {
        match self.value(i) {
            Some(v) => v.as_f64(),
            None => {
                let lit = self.literal(i)?;
                if self.output_is_f32() {
                    literal::as_f32(lit).map(f64::from)
                } else {
                    literal::as_f64(lit)
                }
            }
        }
    }

    pub(crate) fn output_is_f32(&self) -> bool {
        self.output().downcast_ref::<f32>().is_some()
    }

    /// Operand `i` as an integer (a recorded integer or an integer literal).
    pub fn integer(&self, i: usize) -> Option<i64> {
        match self.value(i) {
            Some(v) => v.as_i64(),
            None => self.literal(i).and_then(literal::as_i64),
        }
    }

    /// Operand `i` as an integer of any type (`u64` past `i64::MAX` too: a float's bits).
    pub(crate) fn wide_integer(&self, i: usize) -> Option<i128> {
        match self.value(i) {
            Some(v) => v.as_i128(),
            None => self.literal(i).and_then(literal::as_i128),
        }
    }

    pub(crate) fn primal(&self, i: usize) -> Option<Primal<'a>> {
        match self.value(i) {
            Some(Cow::Borrowed(v)) => primal(v),
            Some(Cow::Owned(v)) => v.as_f64().map(Primal::Scalar),
            None => self.scalar(i).map(Primal::Scalar),
        }
    }

    /// Whether operand `i` is a float (recorded or literal).
    pub(crate) fn is_float(&self, i: usize) -> bool {
        self.scalar(i).is_some()
    }

    /// The value the call returned.
    pub fn output(&self) -> Cow<'a, Value> {
        if let Some(v) = self.values.and_then(|m| m.get(&self.node)) {
            return Cow::Borrowed(v);
        }
        self.store.value_cow(self.node)
    }

    /// The callee or operator as written: `sin`, `+`, `f64::max`, `as f64`.
    pub fn head(&self) -> &'a str {
        &self.entry.head
    }

    pub(crate) fn kind(&self) -> EntryKind {
        self.entry.kind
    }

    /// The typed operation the entry names, if the runtime knows it.
    pub(crate) fn builtin(&self) -> Option<Builtin> {
        self.ir.builtin(self.index)
    }

    /// What a method call's receiver type says of the method reached.
    pub(crate) fn receiver(&self) -> Receiver {
        self.store.node(self.node).receiver
    }

    /// Who a call of a path (or a claimed call) reached, by type.
    pub(crate) fn callee(&self) -> Option<Callee> {
        match self.store.node(self.node).kind {
            NodeKind::NestedCall => {
                let id = self.store.nested_callee(self.node)?;
                Some(Callee::Item(crate::core::ids::CalleeKey { id, name: "" }))
            }
            _ => self.store.callees.get(&self.node).copied(),
        }
    }

    /// The callee described for an error: the name written, and for a method its receiver's
    /// type (`sin` on `&f64`).
    pub fn describe(&self) -> String {
        match self.kind() {
            EntryKind::MethodCall => match self.value(0) {
                Some(v) => format!(
                    "{} on `{}`",
                    self.head(),
                    crate::view::listing::short_type_name(v.type_name())
                ),
                None => self.head().to_string(),
            },
            EntryKind::Call => match self.store.callees.get(&self.node) {
                Some(Callee::Item(k)) if !k.name.is_empty() => {
                    k.name.trim_end_matches("::{{constructor}}").to_string()
                }
                _ => self.head().to_string(),
            },
            _ => self.head().to_string(),
        }
    }
}
