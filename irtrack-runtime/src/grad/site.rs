//! A recorded call seen by a gradient rule: its operands' values (recorded or literal), its
//! value, and who it called.

use super::primal::{integer, literal_f64, literal_i64, primal, Primal};
use crate::ir::{Entry, EntryKind, Operand};
use crate::node::{NodeId, NodeKind, Store};
use crate::value::Value;

/// One node a rule is asked to differentiate.
pub struct Site<'a> {
    pub(crate) store: &'a Store,
    pub(crate) node: NodeId,
    pub(crate) entry: &'static Entry,
    pub(crate) refs: &'a [NodeId],
    /// Which operands depend on the inputs (bit `i` for operand `i`; all set past 64).
    pub(crate) needed: u64,
}

impl<'a> Site<'a> {
    pub(crate) fn new(store: &'a Store, node: NodeId, entry: &'static Entry) -> Site<'a> {
        Site {
            store,
            node,
            entry,
            refs: store.refs(node),
            needed: u64::MAX,
        }
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
    pub fn value(&self, i: usize) -> Option<&'a Value> {
        let r = *self.refs.get(i)?;
        (!r.is_none()).then(|| &self.store.node(r).value)
    }

    /// The literal text of operand `i`, when it is a literal.
    pub fn literal(&self, i: usize) -> Option<&'static str> {
        match self.entry.operands.get(i)? {
            Operand::Const(c) => Some(c),
            _ => None,
        }
    }

    /// Operand `i` as a float (a recorded `f64`/`f32` or a float literal).
    pub fn scalar(&self, i: usize) -> Option<f64> {
        match self.value(i) {
            Some(v) => v.as_f64(),
            None => self.literal(i).and_then(literal_f64),
        }
    }

    /// Operand `i` as an integer (a recorded integer or an integer literal).
    pub fn integer(&self, i: usize) -> Option<i64> {
        match self.value(i) {
            Some(v) => integer(v),
            None => self.literal(i).and_then(literal_i64),
        }
    }

    pub(crate) fn primal(&self, i: usize) -> Option<Primal<'a>> {
        match self.value(i) {
            Some(v) => primal(v),
            None => self.literal(i).and_then(literal_f64).map(Primal::Scalar),
        }
    }

    /// Whether operand `i` is a float (recorded or literal).
    pub(crate) fn is_float(&self, i: usize) -> bool {
        self.scalar(i).is_some()
    }

    /// The value the call returned.
    pub fn output(&self) -> &'a Value {
        &self.store.node(self.node).value
    }

    /// The callee or operator as written: `sin`, `+`, `f64::max`, `as f64`.
    pub fn head(&self) -> &'static str {
        self.entry.head
    }

    pub(crate) fn kind(&self) -> EntryKind {
        self.entry.kind
    }

    /// The type name of a method call's receiver, references and smart pointers peeled.
    pub(crate) fn receiver_type(&self) -> Option<&'a str> {
        if self.entry.kind != EntryKind::MethodCall {
            return None;
        }
        match self.value(0) {
            Some(v) => Some(peel(v.type_name())),
            None => self
                .literal(0)
                .map(|l| if l.ends_with("f32") { "f32" } else { "f64" }),
        }
    }

    /// The full identity of the callee: `f64::sin` for `x.sin()` or `f64::sin(x)`,
    /// `my_crate::minus` for `minus(a, b)`, `my_crate::Point::norm` for `p.norm()`; `None` for
    /// operators and specials.
    pub fn identity(&self) -> Option<String> {
        let node = self.store.node(self.node);
        match (self.entry.kind, node.kind) {
            (EntryKind::Call, _) => self.store.callee(self.node).map(canonical),
            (EntryKind::MethodCall, NodeKind::PrimitiveCall | NodeKind::NestedCall) => self
                .receiver_type()
                .map(|r| format!("{}::{}", canonical(r), self.entry.head)),
            _ => None,
        }
    }
}

pub(crate) use crate::recorder::peel_receiver as peel;

/// One spelling per callee: the inherent methods of the float types are `f64::sin`, whether
/// named through `core`, `std` or a method call.
pub(crate) fn canonical(name: &str) -> String {
    for float in ["f64", "f32"] {
        for krate in ["core", "std"] {
            let prefix = format!("{krate}::{float}::<impl {float}>::");
            if let Some(rest) = name.strip_prefix(&prefix) {
                return format!("{float}::{rest}");
            }
        }
    }
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_methods_have_one_spelling() {
        assert_eq!(canonical("core::f64::<impl f64>::max"), "f64::max");
        assert_eq!(canonical("std::f32::<impl f32>::sin"), "f32::sin");
        assert_eq!(canonical("my::minus"), "my::minus");
    }
}
