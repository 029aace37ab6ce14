//! Trace storage: an arena of 16-byte nodes in recording order, their references in one
//! array, their values in typed columns (one per scalar type, so a float costs 8 bytes and a
//! jump nothing), and side tables for nested calls and metadata.
//!
//! A nested call's descendants are recorded while it is open, so they occupy one contiguous
//! range of the arena right after it: the children of a call are found by walking that range
//! and skipping each nested child's own range, and no node stores its parent or position
//! (views compute those once, when first asked; see `crate::view`).

use super::chunked::Chunked;
use super::ids::NodeId;
use super::ir::{FnIr, IrRef};
use super::op::{Builtin, Receiver};
use super::value::{Form, Repr, Scalar, Value};
use std::any::TypeId;
use std::borrow::Cow;
use std::collections::HashMap;

/// The entry index of a node that has no entry (the root, an error).
pub(crate) const NO_ENTRY: u32 = u32::MAX;

/// What a node records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum NodeKind {
    /// A function argument or a block argument (`[Arg:§b:%i]`).
    Argument,
    /// A named constant or captured variable (`[Const:§b:%i]`).
    Constant,
    /// A call that was not recorded inside: an untracked function, method or operator.
    PrimitiveCall,
    /// A call of a `#[tracked]` function, holding that call's own tape as children.
    NestedCall,
    /// A non-call construct: struct literal, macro, cast, field access, pattern binding, `?`.
    Special,
    /// A branch taken (`goto §b`).
    Jump,
    /// A return (`return @i`).
    Return,
    /// A call left without a return node: by a panic unwinding out of it (the last node of
    /// every call it left, holding the panic's message; see [`try_track`](crate::try_track)),
    /// or by a `return` inside a macro, which the lowering cannot see (holding a message that
    /// says so). A consumer that needs the call's value computed by its nodes (a gradient, a
    /// replay) returns an error there.
    Error,
}

/// Where a node's value is: nothing (`()`), a scalar column, or the boxed values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    /// 0: unit; 1..=14: a scalar column, plus `FORM_REF`/`FORM_MUT`; `BOXED`.
    pub tag: u8,
    pub index: u32,
}

const FORM_REF: u8 = 0x10;
const FORM_MUT: u8 = 0x20;
const BOXED: u8 = 0x80;

impl Slot {
    /// Whether the value is a scalar held by value (not behind a reference, not boxed).
    pub(crate) fn is_scalar_by_value(self) -> bool {
        self.tag & (FORM_REF | FORM_MUT | BOXED) == 0 && self.tag & 0x0f != 0
    }

    /// Whether the value is boxed (not a scalar).
    pub(crate) fn is_boxed(self) -> bool {
        self.tag & BOXED != 0
    }

    pub(crate) const UNIT: Slot = Slot { tag: 0, index: 0 };
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    /// The static entry in the parent's IR; `NO_ENTRY` for the root and for errors.
    pub entry: u32,
    /// Start of the node's references in `Store::refs` (their number comes from the entry).
    pub refs: u32,
    /// The value's index in its column; for a nested call, its index in `Store::calls`.
    pub value: u32,
    pub tag: u8,
    pub kind: NodeKind,
    /// For a method call, what its receiver's type says of the method reached.
    pub receiver: Receiver,
    /// `Node::REFS_SET` when a nested call's references were resolved (on return),
    /// `Node::RECORDS_INSIDE` for a primitive call that recorded a trace of its own.
    pub flags: u8,
}

impl Node {
    pub(crate) const REFS_SET: u8 = 1;
    /// A primitive call during which another recording ran (`gradient`, `track`, … called
    /// inside the function being recorded): a derivative through it would be one of higher
    /// order, which the consumers name in their errors.
    pub(crate) const RECORDS_INSIDE: u8 = 2;
    /// A call whose result a context replaced (`Action::Replace`): its value depends on nothing
    /// the call was given (a nested call's body, where it ran, returned another).
    pub(crate) const REPLACED: u8 = 4;
    /// A method call whose tracked body is provably not the method that gave its value: the
    /// body returned another value than the call gave, or received another argument than the
    /// call passed. A method call is claimed by name, receiver type and address, which another
    /// method of that name on the same object shares (an untracked `Tr2::val` that calls the
    /// tracked `Tr1::val`, a wrapper's untracked impl calling its field's tracked one).
    pub(crate) const FOREIGN: u8 = 8;

    /// Whether a context replaced this call's result ([`Node::REPLACED`]).
    #[inline]
    pub(crate) fn replaced(&self) -> bool {
        self.flags & Node::REPLACED != 0
    }

    /// Whether the call's value is not what its recorded body gave: a context replaced it
    /// ([`Node::REPLACED`]) or another method ran ([`Node::FOREIGN`]). Gradients and programs
    /// do not follow such a call's body or apply its callee's rules.
    #[inline]
    pub(crate) fn not_from_body(&self) -> bool {
        self.flags & (Node::REPLACED | Node::FOREIGN) != 0
    }
}

/// One nested call: its IR, where its subtree ends and its value. 32 bytes: the IR and the
/// callee's type are indices into the store's tables of them ([`Store::call_ir`],
/// [`Store::call_callee`]), which a trace holds once each, not once per call.
#[derive(Clone, Debug)]
pub(crate) struct Call {
    pub node: NodeId,
    /// The call's IR: an index into `Store::irs`.
    pub ir: u32,
    /// One past the last node of the call's subtree (its descendants are `node+1..end`).
    pub end: u32,
    /// The value the call returned (or a panic's message).
    pub value: Slot,
    /// The called function's fn item (or closure) type, when the claim knew it: an index into
    /// `Store::callee_types`, [`Call::NO_CALLEE`] when it did not.
    pub callee: u32,
    /// The number of references the call node has (its arguments), once they are resolved.
    pub ref_count: u32,
    /// The index of the enclosing call in `Store::calls` (`u32::MAX` for the root).
    pub parent: u32,
}

impl Call {
    pub(crate) const NO_CALLEE: u32 = u32::MAX;
}

// A trace of many small calls holds one of these per call (`benches/memory.rs`).
const _: () = assert!(std::mem::size_of::<Call>() == 32);

/// Values held once each, found by a key; the last one found is remembered, since a loop
/// calls the same function again and again.
pub(crate) struct Interned<K, V> {
    pub items: Vec<V>,
    index: HashMap<K, u32>,
    last: Option<(K, u32)>,
}

impl<K, V> Default for Interned<K, V> {
    fn default() -> Self {
        Interned {
            items: Vec::new(),
            index: HashMap::new(),
            last: None,
        }
    }
}

impl<K: Copy + Eq + std::hash::Hash, V> Interned<K, V> {
    /// The index of the value under `key`, `make` added if there is none.
    #[inline]
    pub(crate) fn intern(&mut self, key: K, make: impl FnOnce() -> V) -> u32 {
        match self.last {
            Some((k, i)) if k == key => i,
            _ => self.intern_slow(key, make),
        }
    }

    #[cold]
    fn intern_slow(&mut self, key: K, make: impl FnOnce() -> V) -> u32 {
        let items = &mut self.items;
        let i = *self.index.entry(key).or_insert_with(|| {
            items.push(make());
            (items.len() - 1) as u32
        });
        self.last = Some((key, i));
        i
    }

    pub(crate) fn clear(&mut self) {
        self.items.clear();
        self.index.clear();
        self.last = None;
    }
}

/// Who a primitive call of a path reached, by type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Callee {
    /// A fn item, closure or constructor, by its type.
    Item(super::ids::CalleeKey),
    /// A function pointer or a computed callee: which function ran is not known.
    Unknown,
}

macro_rules! columns {
    ($($field:ident: $t:ty = $variant:ident / $tag:literal),* $(,)?) => {
        #[derive(Default)]
        pub(crate) struct Columns { $(pub $field: Chunked<$t>,)* }

        impl Columns {
            #[inline(always)]
            pub(crate) fn push(&mut self, s: Scalar) -> u32 {
                match s {
                    Scalar::Unit => 0,
                    $(Scalar::$variant(v) => self.$field.push(v) as u32,)*
                }
            }

            pub(crate) fn get(&self, tag: u8, index: u32) -> Option<Scalar> {
                let i = index as usize;
                Some(match tag & 0x0f {
                    0 => Scalar::Unit,
                    $($tag => Scalar::$variant(*self.$field.get(i)?),)*
                    _ => return None,
                })
            }

            pub(crate) fn any(&self, tag: u8, index: u32) -> Option<&dyn std::any::Any> {
                let i = index as usize;
                Some(match tag & 0x0f {
                    0 => &(),
                    $($tag => self.$field.get(i)? as &dyn std::any::Any,)*
                    _ => return None,
                })
            }

            pub(crate) fn clear(&mut self) {
                $(self.$field.clear();)*
            }

            /// Overwrites the scalar at `index` of `s`'s column; false when there is none.
            pub(crate) fn set(&mut self, index: u32, s: Scalar) -> bool {
                let i = index as usize;
                match s {
                    Scalar::Unit => false,
                    $(Scalar::$variant(v) => match self.$field.get_mut(i) {
                        Some(x) => {
                            *x = v;
                            true
                        }
                        None => false,
                    },)*
                }
            }

            pub(crate) fn capacity_bytes(&self) -> usize {
                0 $(+ self.$field.capacity_bytes())*
            }

            pub(crate) fn held_bytes(&self) -> usize {
                0 $(+ self.$field.held_bytes())*
            }
        }
    };
}

columns!(
    bools: bool = Bool / 1,
    chars: char = Char / 2,
    i8s: i8 = I8 / 3,
    i16s: i16 = I16 / 4,
    i32s: i32 = I32 / 5,
    i64s: i64 = I64 / 6,
    isizes: isize = Isize / 7,
    u8s: u8 = U8 / 8,
    u16s: u16 = U16 / 9,
    u32s: u32 = U32 / 10,
    u64s: u64 = U64 / 11,
    usizes: usize = Usize / 12,
    f32s: f32 = F32 / 13,
    f64s: f64 = F64 / 14,
);

/// Metadata keys: the names contexts and layers give (`adjoint`), or names read from a file.
pub(crate) type MetaKey = Cow<'static, str>;

#[derive(Default)]
pub(crate) struct Store {
    pub nodes: Chunked<Node>,
    /// Resolved operands, in each node's entry's order (operands, condition, control); `NONE`
    /// where the operand is a literal or no value.
    pub refs: Chunked<NodeId>,
    pub columns: Columns,
    pub boxed: Vec<Value>,
    pub calls: Chunked<Call>,
    /// The IRs of the calls (`Call::ir`), each once, by address.
    pub irs: Interned<usize, IrRef>,
    /// The callee types of the calls (`Call::callee`), each once.
    pub callee_types: Interned<TypeId, TypeId>,
    /// The fn items reached by primitive calls of paths.
    pub callees: HashMap<NodeId, Callee>,
    /// For a nested call of a local variable (`f(x)` after `let f = |t| …`, `FnIr::callee_var`),
    /// the node the variable held when it was called: the closure's `$(closure)` node, or an
    /// argument that passed one. A captured value's uses in the call reach the enclosing
    /// function's node through it.
    pub closure_values: HashMap<NodeId, NodeId>,
    /// Metadata attached by contexts and layers, in the order set.
    pub metadata: HashMap<NodeId, Vec<(MetaKey, Value)>>,
    /// The arguments of a primitive root (a root call nothing tracked claimed).
    pub root_args: Vec<Value>,
    /// Whether a checkpoint ran under an `inject` while the trace was recorded (or the trace
    /// was imported, which does not say): a checkpoint's value may then be an injected one.
    pub injected: bool,
}

thread_local! {
    /// The buffers of the last trace dropped on this thread, kept to record the next one: a
    /// fresh arena costs page faults on every node it grows into.
    static SPARE: std::cell::RefCell<Option<Store>> = const { std::cell::RefCell::new(None) };
}

/// A spare store keeps at most this many bytes of buffers.
const SPARE_LIMIT: usize = 256 << 20;

impl Store {
    /// An empty store, reusing the buffers of a trace dropped earlier on this thread.
    pub fn recycled() -> Store {
        SPARE
            .try_with(|s| s.borrow_mut().take())
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    /// For a closure's constant node `id` (in the call `parent`) that reads a captured
    /// variable whose uses link (`FnIr::capture_index`): the node the enclosing function had
    /// for the variable where it made the closure — an operand of the `$(closure)` node the
    /// call's callee variable held ([`Store::closure_values`], through the arguments and
    /// bindings that passed the closure on) — when the node read holds that value, bit for
    /// bit; `NONE` for an operand that is a literal. `None` where there is no such link, or the
    /// value read is not the maker's (changed through interior mutability).
    pub(crate) fn capture_source(&self, id: NodeId, parent: NodeId) -> Option<NodeId> {
        let (ir, _) = self.entry_of(id)?;
        let k = ir.capture_index(self.node(id).entry as usize)?;
        let made = self.closure_made_of(parent)?;
        let (_, entry) = self.entry_of(made)?;
        if k >= entry.operands.len() {
            return None;
        }
        let source = self.ref_at(made, k);
        if source.is_none() {
            // A literal is a constant; an operand the maker could not name (a capture of an
            // enclosing closure: `let g = |u| u * k;` inside a closure that captured `k`) or did
            // not record links to nothing.
            return match entry.operands[k] {
                super::ir::Operand::Const(_) => Some(NodeId::NONE),
                _ => None,
            };
        }
        let same = self
            .value_cow(id)
            .by_value()
            .exact_eq(&self.value_cow(source).by_value());
        (same == Some(true)).then_some(source)
    }

    /// For a nested call of a closure, the `$(closure)` node that made it: the node its callee
    /// variable held ([`Store::closure_values`]), through the arguments and bindings that
    /// passed the closure on.
    pub(crate) fn closure_made_of(&self, call: NodeId) -> Option<NodeId> {
        let mut made = *self.closure_values.get(&call)?;
        let is_closure = |n: NodeId| self.makes_closure(n);
        for _ in 0..64 {
            if made.is_none() || is_closure(made) {
                break;
            }
            let (ir, entry) = self.entry_of(made)?;
            made = if self.node(made).kind == NodeKind::Argument {
                // A block argument holds what its jump passed; a call's argument, the
                // call's operand at its position.
                if entry.location.block > 1 {
                    self.ref_at(made, 0)
                } else {
                    let position = ir.arg_position(self.node(made).entry as usize)?;
                    self.ref_at(self.parent(made)?, position)
                }
            } else {
                match ir.builtin(self.node(made).entry as usize) {
                    Some(Builtin::Bind | Builtin::Deref | Builtin::Clone) => self.ref_at(made, 0),
                    _ => return None,
                }
            };
        }
        (!made.is_none() && is_closure(made)).then_some(made)
    }

    /// Whether node `id` made a closure (`$(closure)(captures)`, [`Builtin::Closure`]).
    pub(crate) fn makes_closure(&self, id: NodeId) -> bool {
        self.node(id).kind == NodeKind::Special
            && self.entry_of(id).is_some_and(|(ir, _)| {
                ir.builtin(self.node(id).entry as usize) == Some(Builtin::Closure)
            })
    }

    /// Whether node `id`, a primitive call, called a callee held in a variable, a capture or a
    /// computed expression ([`FnIr::holds_callee`]): a closure that ran so, unclaimed, was not
    /// recorded, and its value may depend on anything the closure captured.
    pub(crate) fn holds_callee(&self, id: NodeId) -> bool {
        self.node(id).kind == NodeKind::PrimitiveCall
            && self
                .entry_of(id)
                .is_some_and(|(ir, _)| ir.holds_callee(self.node(id).entry as usize))
    }

    /// Empties the store and keeps its buffers for the next recording on this thread.
    pub fn recycle(mut self) {
        self.nodes.clear();
        self.refs.clear();
        self.columns.clear();
        self.boxed.clear();
        // A plain vector, counted whole by `capacity_bytes`: a large one left by this trace
        // would be the next trace's size (each boxed value is an allocation anyway).
        self.boxed.shrink_to(1 << 10);
        self.calls.clear();
        self.irs.clear();
        self.callee_types.clear();
        self.callees.clear();
        self.closure_values.clear();
        self.metadata.clear();
        self.root_args.clear();
        if self.held_bytes() <= SPARE_LIMIT {
            let _ = SPARE.try_with(|s| *s.borrow_mut() = Some(self));
        }
    }

    /// Bytes of every buffer the store holds, emptied ones kept for reuse included.
    fn held_bytes(&self) -> usize {
        self.nodes.held_bytes()
            + self.refs.held_bytes()
            + self.columns.held_bytes()
            + self.boxed.capacity() * std::mem::size_of::<Value>()
            + self.calls.held_bytes()
    }

    /// Bytes of the buffers in use (emptied ones kept from an earlier recording on this
    /// thread are not counted: a byte budget and `Trace::memory` measure this trace).
    pub fn capacity_bytes(&self) -> usize {
        self.nodes.capacity_bytes()
            + self.refs.capacity_bytes()
            + self.columns.capacity_bytes()
            + self.boxed.capacity() * std::mem::size_of::<Value>()
            + self.calls.capacity_bytes()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The first primitive call during which another recording ran (`Node::RECORDS_INSIDE`).
    pub(crate) fn first_recording_inside(&self) -> Option<NodeId> {
        (0..self.nodes.len())
            .find(|&i| self.nodes[i].flags & Node::RECORDS_INSIDE != 0)
            .map(|i| NodeId(i as u32))
    }

    #[inline]
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// Stores a value; returns where it is.
    #[inline(always)]
    pub fn put(&mut self, value: Value) -> Slot {
        match value.0 {
            Repr::Scalar(s, form) => self.put_scalar(s, form),
            Repr::Boxed(_) => {
                self.boxed.push(value);
                Slot {
                    tag: BOXED,
                    index: self.boxed.len() as u32 - 1,
                }
            }
        }
    }

    #[inline(always)]
    pub fn put_scalar(&mut self, s: Scalar, form: Form) -> Slot {
        let index = self.columns.push(s);
        let form = match form {
            Form::Val => 0,
            Form::Ref => FORM_REF,
            Form::RefMut => FORM_MUT,
        };
        Slot {
            tag: s.tag() | form,
            index,
        }
    }

    /// The value at `slot`.
    pub fn value_at(&self, slot: Slot) -> Value {
        if slot.tag & BOXED != 0 {
            return self.boxed[slot.index as usize].clone();
        }
        let form = if slot.tag & FORM_MUT != 0 {
            Form::RefMut
        } else if slot.tag & FORM_REF != 0 {
            Form::Ref
        } else {
            Form::Val
        };
        match self.columns.get(slot.tag, slot.index) {
            Some(s) => Value(Repr::Scalar(s, form)),
            None => Value::UNIT,
        }
    }

    /// The value at `slot` as a `T`, borrowed from its column.
    pub fn downcast_at<T: 'static>(&self, slot: Slot) -> Option<&T> {
        if slot.tag & BOXED != 0 {
            return self.boxed[slot.index as usize].downcast_ref();
        }
        self.columns.any(slot.tag, slot.index)?.downcast_ref()
    }

    /// A float value at `slot`, without building a [`Value`].
    #[inline]
    pub fn f64_at(&self, slot: Slot) -> Option<f64> {
        match slot.tag & !(FORM_REF | FORM_MUT) {
            14 => self.columns.f64s.get(slot.index as usize).copied(),
            13 => self
                .columns
                .f32s
                .get(slot.index as usize)
                .map(|&v| v as f64),
            _ => None,
        }
    }

    /// The scalar at `slot`, unless the value is boxed (read from its column, no [`Value`]
    /// built).
    #[inline]
    pub(crate) fn scalar_at(&self, slot: Slot) -> Option<Scalar> {
        if slot.tag & BOXED != 0 {
            return None;
        }
        self.columns.get(slot.tag, slot.index)
    }

    /// Where node `id`'s value is (for a nested call, the call's value).
    #[inline]
    pub fn slot(&self, id: NodeId) -> Slot {
        let n = self.node(id);
        if n.kind == NodeKind::NestedCall {
            return self.calls[n.value as usize].value;
        }
        Slot {
            tag: n.tag,
            index: n.value,
        }
    }

    /// What node `id`'s value, as a method receiver, says of the method reached: a float
    /// held by value, a float behind a reference, or anything else.
    pub fn receiver_class(&self, id: NodeId) -> super::op::Receiver {
        use super::op::Receiver;
        let tag = self.slot(id).tag;
        match (tag & 0x0f, tag & (FORM_REF | FORM_MUT | BOXED)) {
            (13 | 14, 0) => Receiver::Float,
            (13 | 14, f) if f & BOXED == 0 => Receiver::FloatRef,
            _ => Receiver::Other,
        }
    }

    pub fn value(&self, id: NodeId) -> Value {
        self.value_at(self.slot(id))
    }

    /// Replaces node `id`'s value and returns the one it had. The value is written where the
    /// old one was when it is stored the same way (a scalar of the same type and form, or a
    /// boxed value), so that an incremental update (`program::update`) does not grow the
    /// store; otherwise it goes to a new slot the node then points at. A block argument shares
    /// its source's slot: callers write both, and undo in reverse order.
    pub(crate) fn set_value(&mut self, id: NodeId, value: Value) -> Value {
        let slot = self.slot(id);
        let old = self.value_at(slot);
        let written = match &value.0 {
            Repr::Boxed(_) if slot.tag & BOXED != 0 => {
                self.boxed[slot.index as usize] = value;
                return old;
            }
            Repr::Scalar(Scalar::Unit, Form::Val) if slot.tag == 0 => return old,
            Repr::Scalar(s, form) if slot.tag & BOXED == 0 => {
                let form_bits = match form {
                    Form::Val => 0,
                    Form::Ref => FORM_REF,
                    Form::RefMut => FORM_MUT,
                };
                s.tag() != 0 && slot.tag == s.tag() | form_bits && self.columns.set(slot.index, *s)
            }
            _ => false,
        };
        if !written {
            let slot = self.put(value);
            let n = &mut self.nodes[id.index()];
            if n.kind == NodeKind::NestedCall {
                self.calls[n.value as usize].value = slot;
            } else {
                n.value = slot.index;
                n.tag = slot.tag;
            }
        }
        old
    }

    /// Node `id`'s value, borrowed when it is boxed.
    pub fn value_cow(&self, id: NodeId) -> std::borrow::Cow<'_, Value> {
        let slot = self.slot(id);
        if slot.tag & BOXED != 0 {
            return std::borrow::Cow::Borrowed(&self.boxed[slot.index as usize]);
        }
        std::borrow::Cow::Owned(self.value_at(slot))
    }

    pub fn f64_of(&self, id: NodeId) -> Option<f64> {
        self.f64_at(self.slot(id))
    }

    pub fn call(&self, id: NodeId) -> Option<&Call> {
        let n = self.node(id);
        (n.kind == NodeKind::NestedCall).then(|| &self.calls[n.value as usize])
    }

    /// How many references node `id` has.
    pub fn ref_count(&self, id: NodeId) -> usize {
        let n = self.node(id);
        if n.kind == NodeKind::NestedCall || n.entry == NO_ENTRY {
            return self.ref_count_under(id, NodeId::NONE);
        }
        self.ref_count_under(id, self.parent(id).unwrap_or(NodeId::NONE))
    }

    /// [`ref_count`](Self::ref_count) of a node whose parent call the caller knows (the
    /// search for it is most of what the lookup costs).
    pub(crate) fn ref_count_under(&self, id: NodeId, parent: NodeId) -> usize {
        let n = self.node(id);
        if n.kind == NodeKind::NestedCall {
            return self.calls[n.value as usize].ref_count as usize;
        }
        if n.entry == NO_ENTRY || parent.is_none() {
            return 0;
        }
        // The step plan is compact (the entries are not): one small load per node.
        match self.nested_ir(parent) {
            Some(ir) => {
                let step = ir.step(n.entry as usize);
                if step.role == super::ir::Step::BLOCK_ARGUMENT {
                    1
                } else {
                    step.nrefs as usize
                }
            }
            None => 0,
        }
    }

    pub fn refs(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let start = self.node(id).refs as usize;
        self.refs.range(start, self.ref_count(id))
    }

    /// [`refs`](Self::refs) of a node whose parent call the caller knows.
    pub(crate) fn refs_under(
        &self,
        id: NodeId,
        parent: NodeId,
    ) -> impl Iterator<Item = NodeId> + '_ {
        let start = self.node(id).refs as usize;
        self.refs.range(start, self.ref_count_under(id, parent))
    }

    pub fn ref_at(&self, id: NodeId, k: usize) -> NodeId {
        if k >= self.ref_count(id) {
            return NodeId::NONE;
        }
        self.refs[self.node(id).refs as usize + k]
    }

    /// The innermost call whose subtree holds `id` (its parent), by binary search over the
    /// calls, which are in node order; `None` for the root.
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        let i = self.calls.partition_point(|c| c.node.0 < id.0);
        let mut c = i.checked_sub(1)?;
        loop {
            let call = &self.calls[c];
            if id.0 < call.end {
                return Some(call.node);
            }
            c = match call.parent {
                u32::MAX => return None,
                p => p as usize,
            };
        }
    }

    /// The children of nested call `id`, in order.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        match self.call(id) {
            Some(c) => Children {
                store: self,
                next: id.0 + 1,
                end: c.end,
            },
            None => Children {
                store: self,
                next: 0,
                end: 0,
            },
        }
    }

    /// A call's IR.
    #[inline]
    pub(crate) fn call_ir(&self, call: &Call) -> &IrRef {
        &self.irs.items[call.ir as usize]
    }

    /// A call's callee type, when the claim knew it.
    #[inline]
    pub(crate) fn call_callee(&self, call: &Call) -> Option<TypeId> {
        self.callee_types.items.get(call.callee as usize).copied()
    }

    /// The IR of the function the nested call `id` ran; `None` for any other node.
    pub(crate) fn nested_ir(&self, id: NodeId) -> Option<&IrRef> {
        self.call(id).map(|c| self.call_ir(c))
    }

    /// The callee type of the nested call `id`, when the claim knew it.
    pub(crate) fn nested_callee(&self, id: NodeId) -> Option<TypeId> {
        self.call(id).and_then(|c| self.call_callee(c))
    }

    /// The index of `ir` in `irs`, added if it is not there (by address: one IR, one entry).
    #[inline]
    pub(crate) fn intern_ir(&mut self, ir: IrRef) -> u32 {
        let address = &*ir as *const FnIr as usize;
        self.irs.intern(address, || ir)
    }

    /// The index of `callee` in `callee_types`, added if it is not there;
    /// [`Call::NO_CALLEE`] for `None`.
    #[inline]
    pub(crate) fn intern_callee(&mut self, callee: Option<TypeId>) -> u32 {
        match callee {
            Some(t) => self.callee_types.intern(t, || t),
            None => Call::NO_CALLEE,
        }
    }

    /// The entry node `id` executed, with its IR.
    pub fn entry_of(&self, id: NodeId) -> Option<(&IrRef, &super::ir::Entry)> {
        if self.node(id).entry == NO_ENTRY {
            return None;
        }
        self.entry_under(id, self.parent(id)?)
    }

    /// [`entry_of`](Self::entry_of) a node whose parent call the caller knows.
    pub(crate) fn entry_under(
        &self,
        id: NodeId,
        parent: NodeId,
    ) -> Option<(&IrRef, &super::ir::Entry)> {
        let e = self.node(id).entry;
        if e == NO_ENTRY || parent.is_none() {
            return None;
        }
        let ir = self.nested_ir(parent)?;
        ir.entries.get(e as usize).map(|entry| (ir, entry))
    }

    /// Flags call `id` as replaced ([`Node::REPLACED`]), or not.
    pub(crate) fn set_replaced(&mut self, id: NodeId, replaced: bool) {
        let n = &mut self.nodes[id.index()];
        if replaced {
            n.flags |= Node::REPLACED;
        } else {
            n.flags &= !Node::REPLACED;
        }
    }

    /// Whether a node inside nested call `id`'s body is not what its code gave: a result a
    /// context or an update replaced. A rule registered for the callee, or the callee replayed
    /// as a registered operation, describes its code, not that body. (A call inside whose
    /// recorded body is another method's, `Node::FOREIGN`, still gave the value its code gives.)
    pub(crate) fn body_intervened(&self, id: NodeId) -> bool {
        let Some(call) = self.call(id) else {
            return false;
        };
        (id.0 + 1..call.end).any(|i| self.nodes[i as usize].replaced())
    }

    /// Why call `id`'s value is not what its recorded body gave, if it is not
    /// ([`Node::not_from_body`]): what gradients and programs say when they refuse it.
    pub(crate) fn not_from_body(&self, id: NodeId) -> Option<&'static str> {
        let n = self.node(id);
        if n.replaced() {
            Some(
                "a context replaced its result (`Action::Replace`), so what it was given does \
                 not decide its value and no rule of the callee applies; use a trace recorded \
                 without the replacement, or give the call's own value with `Action::Reuse`",
            )
        } else if n.flags & Node::FOREIGN != 0 {
            Some(
                "the tracked method recorded inside this call is not the method that ran: it \
                 returned or received another value than the call gave or passed (another \
                 method of that name ran on the same object, such as an untracked impl of \
                 another trait, or of a wrapper, that calls the tracked one); make that method \
                 `#[tracked]` too, or call the tracked one directly",
            )
        } else {
            None
        }
    }

    /// The operands node `id` (of entry `entry` of `ir`) may have changed through a `&mut`
    /// ([`FnIr::borrows_mut`](super::ir::FnIr::borrows_mut)), but a method's receiver where the
    /// call reached a tracked method (the callee's own writes into its `self` say what changed:
    /// `core::writes` follows a parameter back to the caller's argument; a `&self` method
    /// changes nothing), or a float method of a float receiver (`f64::max` takes `self` by
    /// value; where another method of the name may have run, the rules' witness decides).
    pub(crate) fn lent_mut<'a>(
        &self,
        ir: &'a super::ir::FnIr,
        id: NodeId,
    ) -> impl Iterator<Item = usize> + 'a {
        let node = self.node(id);
        let method = ir
            .entries
            .get(node.entry as usize)
            .is_some_and(|e| e.kind == super::ir::EntryKind::MethodCall);
        let receiver_kept =
            method && receiver_note_moot(node.kind, ir.builtin(node.entry as usize), node.receiver);
        ir.borrows_mut(node.entry as usize)
            .filter(move |&k| !(receiver_kept && k == 0))
    }
}

/// Whether a method call's note that it may write its receiver (`FnIr::borrows_mut`, operand
/// 0) is moot for a node of this kind, key and receiver class: the call reached a tracked
/// method, whose writes into its `self` its body shows, or a float method of a float receiver,
/// which takes `self` by value (where another method of the name may have run, the rules'
/// witness decides).
pub(crate) fn receiver_note_moot(
    kind: NodeKind,
    builtin: Option<Builtin>,
    receiver: Receiver,
) -> bool {
    match kind {
        NodeKind::NestedCall => true,
        NodeKind::PrimitiveCall => {
            matches!(builtin, Some(Builtin::Method(_) | Builtin::Query(_)))
                && matches!(
                    receiver,
                    Receiver::Float | Receiver::FloatRef | Receiver::Generic
                )
        }
        _ => false,
    }
}

/// The children of a nested call: its subtree's range, skipping nested grandchildren.
pub(crate) struct Children<'s> {
    store: &'s Store,
    next: u32,
    end: u32,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    #[inline]
    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let id = NodeId(self.next);
        self.next = match self.store.call(id) {
            Some(c) => c.end,
            None => self.next + 1,
        };
        Some(id)
    }
}
