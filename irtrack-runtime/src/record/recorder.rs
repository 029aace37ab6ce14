//! The thread-local recorder: frames of the calls being recorded, and the pending-call slot
//! through which a tracked callee claims a call announced by its tracked caller.
//!
//! Protocol (docs/architecture.md, "Identity: keys, not names"). A tracked caller evaluates a
//! call's arguments, then *announces* the call with a [`Key`] (see `claim`), then makes the
//! call. A `#[tracked]` callee entered while a matching announcement is pending *claims* it: it
//! opens a nested node and records its body there. When the call returns, the caller's record
//! finds the claimed node, or, if nothing claimed the call, records a primitive. Code running
//! inside a primitive never claims: the pending key names the primitive.

use super::claim::{Identity, Key};
use super::context::{Action, Call as CallInfo, CallSite, Context, Draft};
use crate::core::ids::NodeId;
use crate::core::ir::{Entry, EntryKind, FnIr, IrRef, Operand, Step};
use crate::core::op::Receiver;
use crate::core::tape::{Call, Callee, Node, NodeKind, Slot, Store, NO_ENTRY};
use crate::core::value::Value;
use std::any::TypeId;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::AtomicUsize;

/// Number of recordings in progress in the whole process. Zero means no tracked function needs
/// to look at its thread's recorder, which keeps the untracked path to one relaxed load.
pub(crate) static ACTIVE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    pub(crate) static CURRENT: RefCell<Option<Shared>> = const { RefCell::new(None) };
}

pub(crate) type Shared = Rc<RefCell<Recorder>>;

#[derive(Clone, Copy, Debug)]
pub(crate) enum Pending {
    Empty,
    /// A call announced by the statement defining `var` in the frame at `depth`, with the
    /// key in [`Recorder::key`] (kept apart: the pending state is read at every call's
    /// statement, the key only by a claim and by a primitive call's record).
    Announced {
        var: u32,
        depth: usize,
    },
    /// A claimed call returned; its node waits for its caller's record.
    Returned {
        node: NodeId,
        depth: usize,
    },
}

pub(crate) struct FrameState {
    /// The nested-call node whose children this frame records (NONE for the root pseudo-frame).
    pub node: NodeId,
    /// Index of the call in `Store::calls`.
    pub call: u32,
    pub ir: Option<&'static FnIr>,
    /// The newest node recorded for each SSA variable of `ir`: what `%i` refers to right now.
    pub latest: Vec<NodeId>,
    pub last_jump: NodeId,
    /// Where the last jump's references start: the values it passed, in order.
    pub last_jump_refs: u32,
    /// The value of the return, once recorded.
    pub returned: Option<Slot>,
    /// The context recording this frame; `None` is the default, which has no hooks to call.
    pub ctx: Option<Rc<dyn Context>>,
    /// Closures the caller passed straight to this call: (parameter, address of their IR).
    pub closure_params: Vec<(usize, usize)>,
}

pub(crate) struct Recorder {
    pub(crate) store: Store,
    pub(crate) frames: Vec<FrameState>,
    pub(crate) pending: Pending,
    /// The key of the call announced last.
    pub(crate) key: Key,
    /// `latest` buffers of finished frames, reused to avoid an allocation per call.
    spare: Vec<Vec<NodeId>>,
    /// The name of the function passed to `track`, for the root's call site.
    pub(crate) root_name: &'static str,
    /// Error nodes added while a panic unwound, to be given its message.
    pub(crate) errors: Vec<NodeId>,
    /// Closures registered during this recording: type → address of their static IR.
    pub(crate) closures: HashMap<TypeId, usize>,
    /// A replacement a context asked for, for the result of the call announced by `var`.
    /// A context's replacement for the result of the call by `var` at a depth, and whether it
    /// replaced the result (`Action::Replace`) or gave the call's own (`Action::Reuse`).
    pub(crate) replacement: Option<(u32, usize, Value, bool)>,
    /// A replaced result was just given to a call: the next node recorded (that call's) is
    /// flagged [`Node::REPLACED`].
    replaced_next: bool,
    /// The call (by `var` and frame depth) a context was last asked about when announced: a
    /// tracked callee that claims it is not asked again.
    asked: Option<(u32, usize)>,
    /// Bytes the trace may hold (`usize::MAX`: no budget), checked at branches and calls
    /// once the trace reaches `next_byte_check` nodes.
    pub(crate) byte_budget: usize,
    pub(crate) next_byte_check: usize,
    /// The statement whose closure arguments a claimed callee registers (caller's IR and var).
    pub(crate) closure_args: Vec<(usize, usize)>,
    /// The call `closure_args` are for: its site and the depth of its caller's frame (only
    /// that call's claim takes them; another clears them).
    pub(crate) closure_args_site: Option<(u32, usize)>,
    /// The announced call (by `var` and frame depth) during which another recording started:
    /// its node is marked `Node::RECORDS_INSIDE`.
    pub(crate) recorded_inside: Option<(u32, usize)>,
}

impl Recorder {
    pub(crate) fn new(ctx: Option<Rc<dyn Context>>, root_name: &'static str) -> Self {
        Recorder {
            store: Store::recycled(),
            frames: vec![FrameState {
                node: NodeId::NONE,
                call: u32::MAX,
                ir: None,
                latest: Vec::new(),
                last_jump: NodeId::NONE,
                last_jump_refs: 0,
                returned: None,
                ctx,
                closure_params: Vec::new(),
            }],
            pending: Pending::Empty,
            key: Key::Nothing,
            spare: Vec::new(),
            root_name,
            errors: Vec::new(),
            closures: HashMap::new(),
            replacement: None,
            replaced_next: false,
            asked: None,
            byte_budget: usize::MAX,
            next_byte_check: usize::MAX,
            closure_args: Vec::new(),
            closure_args_site: None,
            recorded_inside: None,
        }
    }

    #[inline]
    pub(crate) fn top(&mut self) -> &mut FrameState {
        self.frames
            .last_mut()
            .expect("the root pseudo-frame is never popped")
    }

    #[inline]
    fn top_ir(&self) -> &'static FnIr {
        self.frames
            .last()
            .and_then(|f| f.ir)
            .expect("a frame of a tracked function")
    }

    /// Shows node `id`, just stored, to the context of the frame it was recorded in. Without
    /// a context (plain `track`), this is one test, inlined.
    #[inline]
    fn hook(&mut self, id: NodeId) {
        if self.frames.last().is_some_and(|f| f.ctx.is_some()) {
            self.hook_context(id);
        }
    }

    #[inline(never)]
    fn hook_context(&mut self, id: NodeId) {
        let Some(frame) = self.frames.last() else {
            return;
        };
        let Some(ctx) = frame.ctx.clone() else {
            return;
        };
        let ir = frame.ir;
        // A node just stored has no metadata yet, except a nested call, which may have been
        // given some when it was entered.
        let mut metadata = if self.store.metadata.is_empty() {
            Vec::new()
        } else {
            self.store.metadata.remove(&id).unwrap_or_default()
        };
        let node = *self.store.node(id);
        let entry = ir.and_then(|ir| ir.entries.get(node.entry as usize));
        let name = match node.kind {
            NodeKind::PrimitiveCall | NodeKind::NestedCall | NodeKind::Special => entry
                .map(|e| e.head.as_str())
                .or(Some(self.root_name).filter(|_| entry.is_none())),
            _ => None,
        };
        let value = self.store.value(id);
        // The arguments: the operands and the condition, not a branch's control condition.
        let count = match (node.kind, entry) {
            (NodeKind::Argument, _) | (_, None) => self.store.ref_count(id),
            (_, Some(e)) => e.operands.len() + usize::from(!e.condition.is_none()),
        };
        let args: Vec<Value> = self
            .store
            .refs(id)
            .take(count)
            .filter(|r| !r.is_none())
            .map(|r| self.store.value(r))
            .collect();
        let callee = match self.store.callees.get(&id) {
            Some(crate::core::tape::Callee::Item(k)) => Some(*k),
            _ => None,
        };
        let mut draft = Draft {
            kind: node.kind,
            name,
            callee,
            location: entry.map(|e| e.location),
            ir,
            value: &value,
            args: &args,
            metadata: &mut metadata,
        };
        match node.kind {
            NodeKind::Argument => ctx.argument(&mut draft),
            NodeKind::Constant => ctx.constant(&mut draft),
            NodeKind::PrimitiveCall => ctx.primitive_call(&mut draft),
            NodeKind::NestedCall => ctx.nested_call(&mut draft),
            NodeKind::Special => ctx.special(&mut draft),
            NodeKind::Jump => ctx.jump(&mut draft),
            NodeKind::Return => ctx.ret(&mut draft),
            NodeKind::Error => ctx.error(&mut draft),
        }
        if !metadata.is_empty() {
            self.store.metadata.insert(id, metadata);
        }
    }

    /// The node variable `v` refers to in the top frame.
    #[inline]
    fn resolve(&self, op: &Operand) -> NodeId {
        match op {
            Operand::Var(v) => self
                .frames
                .last()
                .and_then(|f| f.latest.get(*v as usize))
                .copied()
                .unwrap_or(NodeId::NONE),
            _ => NodeId::NONE,
        }
    }

    /// Pushes the references of `entry`'s operands, condition and control; returns the start.
    #[inline]
    fn push_refs(&mut self, entry: &Entry) -> u32 {
        let start = self.store.refs.len() as u32;
        let Some(frame) = self.frames.last() else {
            return start;
        };
        let latest = &frame.latest;
        let refs = &mut self.store.refs;
        let resolve = |op: &Operand| match op {
            Operand::Var(v) => latest.get(*v as usize).copied().unwrap_or(NodeId::NONE),
            _ => NodeId::NONE,
        };
        for op in &entry.operands {
            refs.push(resolve(op));
        }
        if !entry.condition.is_none() {
            refs.push(resolve(&entry.condition));
        }
        if !entry.control.is_none() {
            refs.push(resolve(&entry.control));
        }
        start
    }

    /// Pushes the references of a step in the top frame; returns where they start. Variable 0
    /// stands for a literal or no value, and `latest[0]` is always "none".
    #[inline(always)]
    fn push_step_refs(store: &mut Store, frame: &FrameState, ir: &FnIr, step: &Step) -> u32 {
        let latest = &frame.latest;
        store.refs.extend_map(ir.step_vars(step), |v| {
            latest.get(v as usize).copied().unwrap_or(NodeId::NONE)
        }) as u32
    }

    #[inline]
    fn push_node(&mut self, node: impl FnOnce() -> Node) -> NodeId {
        NodeId(self.store.nodes.push_with(node) as u32)
    }

    /// See [`Frame::forget`](super::frame::Frame::forget).
    pub(crate) fn forget(&mut self, first: u32, last: u32) {
        let latest = &mut self.top().latest;
        let end = (last as usize + 1).min(latest.len());
        if let Some(vars) = latest.get_mut(first as usize..end) {
            vars.fill(NodeId::NONE);
        }
    }

    #[inline(always)]
    fn define(&mut self, entry: &Entry, node: NodeId) {
        if let Some(var) = entry.location.slot.var() {
            if let Some(slot) = self.top().latest.get_mut(var as usize) {
                *slot = node;
            }
        }
    }

    /// Records the statement or argument defining `var` with the value stored at `slot`, or
    /// finishes the claimed nested call it made.
    #[inline(always)]
    pub(crate) fn statement(&mut self, var: u32, slot: Slot) -> NodeId {
        let depth = self.frames.len();
        let Some(ir) = self.frames.last().and_then(|f| f.ir) else {
            return NodeId::NONE;
        };
        let step = ir.var_step(var);
        let index = step.entry;
        // A call ends its own announcement (the common case, handled here) or finds its
        // claimed node (the slow path). Anything recorded between an announcement and its
        // call (a constant argument as in `sq(K)`) leaves it pending.
        let (kind, receiver, announced) = match step.role {
            Step::CONSTANT => (NodeKind::Constant, Receiver::Unknown, false),
            Step::ARGUMENT | Step::BLOCK_ARGUMENT => (NodeKind::Argument, Receiver::Unknown, false),
            Step::CALL => match self.pending {
                Pending::Empty => (NodeKind::PrimitiveCall, Receiver::Unknown, false),
                Pending::Announced { var: v, depth: d }
                    if v == var && d == depth && self.recorded_inside.is_none() =>
                {
                    self.pending = Pending::Empty;
                    let receiver = self.announced_receiver(ir, index);
                    (NodeKind::PrimitiveCall, receiver, true)
                }
                _ => return self.call_statement(var, index, slot, depth),
            },
            _ => (NodeKind::Special, Receiver::Unknown, false),
        };
        let Some(frame) = self.frames.last_mut() else {
            return NodeId::NONE;
        };
        let refs = Self::push_step_refs(&mut self.store, frame, ir, step);
        let id = NodeId(self.store.nodes.push_with(|| Node {
            entry: index,
            refs,
            value: slot.index,
            tag: slot.tag,
            kind,
            receiver,
            flags: 0,
        }) as u32);
        if let Some(l) = frame.latest.get_mut(var as usize) {
            *l = id;
        }
        let observed = frame.ctx.is_some();
        if self.replaced_next {
            self.flag_replaced(id);
        }
        if announced && ir.entries[index as usize].kind == EntryKind::Call {
            self.note_callee(id);
        }
        if observed {
            self.hook_context(id);
        }
        id
    }

    /// What the announced key says of a method call's receiver (entry `index` of `ir`).
    #[inline]
    fn announced_receiver(&self, ir: &FnIr, index: u32) -> Receiver {
        let entry = &ir.entries[index as usize];
        if entry.kind != EntryKind::MethodCall {
            return Receiver::Unknown;
        }
        let receiver = match self.key {
            Key::Method { receiver, .. } => receiver_class(receiver.ty),
            Key::Recorded { .. } => self.recorded_receiver_class(entry),
            _ => Receiver::Unknown,
        };
        match receiver {
            Receiver::Float if ir.is_generic() => Receiver::Generic,
            r => r,
        }
    }

    /// Notes the callee the announced key names for the primitive call `id`.
    #[inline(never)]
    fn note_callee(&mut self, id: NodeId) {
        let callee = match self.key {
            Key::Fn(t) => Callee::Item(t),
            _ => Callee::Unknown,
        };
        self.store.callees.insert(id, callee);
    }

    /// A call's statement while a claimed call is pending, or an announcement that is not
    /// this statement's, or one during which another recording ran.
    #[inline(never)]
    fn call_statement(&mut self, var: u32, index: u32, slot: Slot, depth: usize) -> NodeId {
        let ir = self.top_ir();
        let entry = &ir.entries[index as usize];
        let pending = match self.pending {
            Pending::Announced {
                var: v, depth: d, ..
            } if v == var && d == depth => std::mem::replace(&mut self.pending, Pending::Empty),
            Pending::Returned { node, depth: d }
                if d == depth && self.store.node(node).entry == index =>
            {
                std::mem::replace(&mut self.pending, Pending::Empty)
            }
            _ => Pending::Empty,
        };
        let node = match pending {
            Pending::Returned { node, .. } => {
                self.finish_nested(node, entry, slot);
                node
            }
            _ => {
                let announced = matches!(pending, Pending::Announced { .. });
                let receiver = if announced {
                    self.announced_receiver(ir, index)
                } else {
                    Receiver::Unknown
                };
                let frame = self.frames.last().expect("the root pseudo-frame");
                let refs =
                    Self::push_step_refs(&mut self.store, frame, ir, ir.step(index as usize));
                let flags = match pending {
                    Pending::Announced { var, depth, .. }
                        if self.recorded_inside == Some((var, depth)) =>
                    {
                        self.recorded_inside = None;
                        Node::RECORDS_INSIDE
                    }
                    _ => 0,
                };
                let id = self.push_node(|| Node {
                    entry: index,
                    refs,
                    value: slot.index,
                    tag: slot.tag,
                    kind: NodeKind::PrimitiveCall,
                    receiver,
                    flags,
                });
                if announced && entry.kind == EntryKind::Call {
                    self.note_callee(id);
                }
                id
            }
        };
        self.flag_replaced(node);
        self.define(entry, node);
        self.hook(node);
        node
    }

    /// Sets the value and argument references of a nested node when its call returns.
    fn finish_nested(&mut self, node: NodeId, entry: &Entry, slot: Slot) {
        let refs = self.push_refs(entry);
        let count = self.store.refs.len() as u32 - refs;
        let n = &mut self.store.nodes[node.index()];
        n.refs = refs;
        n.flags |= Node::REFS_SET;
        let call = n.value as usize;
        let end = self.store.calls[call].end;
        let slot = self.call_value(node, end, slot);
        let claimed_by_self = matches!(entry.kind, EntryKind::MethodCall | EntryKind::Operator);
        if claimed_by_self && self.foreign_body(node, entry, end, refs, count, slot) {
            self.store.nodes[node.index()].flags |= Node::FOREIGN;
        }
        let c = &mut self.store.calls[call];
        c.ref_count = count;
        c.value = slot;
    }

    /// Whether the tracked body recorded under the method or operator call `node` (of `entry`,
    /// its subtree ending before `end`, its `count` operands from `refs` on, its value at
    /// `slot`) is provably not the method its caller called: its return differs from the
    /// call's value, or a parameter from the operand passed (scalars, bit for bit), or a
    /// parameter holds a struct where a number was passed. Claims match a method by name,
    /// receiver type and address, which another method of that name on the same object shares
    /// ([`Node::FOREIGN`]).
    #[inline(never)]
    fn foreign_body(
        &self,
        node: NodeId,
        entry: &Entry,
        end: u32,
        refs: u32,
        count: u32,
        slot: Slot,
    ) -> bool {
        let store = &self.store;
        let differ = |a: Slot, b: Slot| match (store.scalar_at(a), store.scalar_at(b)) {
            (Some(a), Some(b)) => {
                std::mem::discriminant(&a) == std::mem::discriminant(&b) && !a.exact(&b)
            }
            _ => false,
        };
        if end > node.0 + 1 {
            let last = NodeId(end - 1);
            if store.node(last).kind == NodeKind::Return && differ(slot, store.slot(last)) {
                return true;
            }
        }
        // The parameters are the call's first children, one per operand where no pattern
        // binds several.
        let params = (node.0 + 1..end)
            .take_while(|&c| store.node(NodeId(c)).kind == NodeKind::Argument)
            .count() as u32;
        // A scalar passed by value arrives as that scalar (a generic parameter included): a
        // parameter holding anything else (a user's number type) is another method's (`a *
        // 2.0` of an untracked `Mul<f64>` calling the tracked `Mul<Dual>`).
        let kind_differs =
            |passed: Slot, param: Slot| passed.is_scalar_by_value() && param.is_boxed();
        params == count
            && (0..count).any(|k| {
                let param = store.slot(NodeId(node.0 + 1 + k));
                let passed = store.refs[(refs + k) as usize];
                if passed.is_none() {
                    // A literal passed (`a * 2.0`): a number arrives as a number.
                    return param.is_boxed()
                        && matches!(
                            entry.operands.get(k as usize),
                            Some(Operand::Const(text))
                                if crate::core::literal::value(text).is_scalar_by_value()
                        );
                }
                let passed = store.slot(passed);
                differ(passed, param) || kind_differs(passed, param)
            })
    }

    /// The value a finished nested call holds: the one its caller captured, unless the
    /// caller could capture it by its type alone (generic code: `_`) while the callee's
    /// return, whose type is written in its signature, captured more of a value of that very
    /// type. The call's value is the value returned, so the node then holds the return's.
    fn call_value(&mut self, node: NodeId, end: u32, slot: Slot) -> Slot {
        let caller = self.store.value_at(slot);
        if !caller.is_opaque() || end == 0 || end - 1 <= node.0 {
            return slot;
        }
        let last = NodeId(end - 1);
        if self.store.node(last).kind != NodeKind::Return || self.store.parent(last) != Some(node) {
            return slot;
        }
        let returned = self.store.value(last);
        if returned.is_opaque()
            || returned.type_id().is_none()
            || returned.type_id() != caller.type_id()
        {
            return slot;
        }
        self.store.put(returned)
    }

    /// Records block argument `var`, the `n`-th argument of the last jump, with the value of
    /// the node that jump passed (no need to read the variable, which may be moved by now).
    #[inline]
    pub(crate) fn block_argument(&mut self, var: u32, n: usize) -> NodeId {
        let Some(frame) = self.frames.last_mut() else {
            return NodeId::NONE;
        };
        let Some(ir) = frame.ir else {
            return NodeId::NONE;
        };
        let id = Self::push_block_argument(&mut self.store, frame, ir, var, n, None);
        if frame.ctx.is_some() {
            self.hook_context(id);
        }
        id
    }

    /// Records branch `&k` of `block`, a jump passing the values of `%vars[0]`, `%vars[1]`, …
    /// as the target block's arguments: [`branch`](Recorder::branch), then a block argument
    /// per variable, in one loop.
    #[inline]
    pub(crate) fn jump_with_args(&mut self, block: u32, k: u32, vars: &[u32]) {
        self.branch(block, k, Slot::UNIT);
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        let (Some(ir), None) = (frame.ir, &frame.ctx) else {
            // A context sees each node as it is recorded.
            for (n, &var) in vars.iter().enumerate() {
                self.block_argument(var, n);
            }
            return;
        };
        for (n, &var) in vars.iter().enumerate() {
            Self::push_block_argument(&mut self.store, frame, ir, var, n, None);
        }
    }

    /// Records a block argument from the variable's value (its jump passed a literal, or the
    /// value of a branching expression); it references what the jump passed, if a node.
    pub(crate) fn block_argument_value(&mut self, var: u32, slot: Slot) -> NodeId {
        let Some(frame) = self.frames.last_mut() else {
            return NodeId::NONE;
        };
        let Some(ir) = frame.ir else {
            return NodeId::NONE;
        };
        let n = ir.var_step(var).arg_position as usize;
        let id = Self::push_block_argument(&mut self.store, frame, ir, var, n, Some(slot));
        if frame.ctx.is_some() {
            self.hook_context(id);
        }
        id
    }

    /// Pushes block argument `var` of `frame`, referencing what its last jump passed as
    /// argument `n`, with the value at `slot` (`None`: that node's value), and makes it the
    /// variable's newest node. Contexts are the callers' to tell.
    #[inline(always)]
    fn push_block_argument(
        store: &mut Store,
        frame: &mut FrameState,
        ir: &FnIr,
        var: u32,
        n: usize,
        slot: Option<Slot>,
    ) -> NodeId {
        let entry = ir.var_step(var).entry;
        // The jump's first references are the values it passes, in order.
        let from = if frame.last_jump.is_none() {
            NodeId::NONE
        } else {
            let start = frame.last_jump_refs as usize;
            store.refs.get(start + n).copied().unwrap_or(NodeId::NONE)
        };
        let slot = slot.unwrap_or_else(|| match from.is_none() {
            true => Slot::UNIT,
            false => store.slot(from),
        });
        let refs = store.refs.push(from) as u32;
        let id = NodeId(store.nodes.push_with(|| Node {
            entry,
            refs,
            value: slot.index,
            tag: slot.tag,
            kind: NodeKind::Argument,
            receiver: Receiver::Unknown,
            flags: 0,
        }) as u32);
        if let Some(l) = frame.latest.get_mut(var as usize) {
            *l = id;
        }
        id
    }

    /// Records branch `&k` of `block` as taken (a return with the value at `slot`).
    #[inline]
    pub(crate) fn branch(&mut self, block: u32, k: u32, slot: Slot) -> NodeId {
        if self.store.len() >= self.next_byte_check {
            self.check_bytes();
        }
        let Some(frame) = self.frames.last_mut() else {
            return NodeId::NONE;
        };
        let Some(ir) = frame.ir else {
            return NodeId::NONE;
        };
        let step = ir.branch_step(block, k);
        let index = step.entry;
        let kind = if step.role == Step::RETURN {
            NodeKind::Return
        } else {
            NodeKind::Jump
        };
        let refs = Self::push_step_refs(&mut self.store, frame, ir, step);
        let id = NodeId(self.store.nodes.push_with(|| Node {
            entry: index,
            refs,
            value: slot.index,
            tag: slot.tag,
            kind,
            receiver: Receiver::Unknown,
            flags: 0,
        }) as u32);
        match kind {
            NodeKind::Jump => {
                frame.last_jump = id;
                frame.last_jump_refs = refs;
            }
            _ => frame.returned = Some(slot),
        }
        if frame.ctx.is_some() {
            self.hook_context(id);
        }
        id
    }

    /// The values a call announced by `var` is made with (literals by their default type).
    fn call_arguments(&self, var: u32) -> Vec<Value> {
        let Some(ir) = self.frames.last().and_then(|f| f.ir) else {
            return Vec::new();
        };
        let Some(index) = ir.var_index(var) else {
            return Vec::new();
        };
        ir.entries[index as usize]
            .operands
            .iter()
            .map(|op| match op {
                Operand::Var(_) => {
                    let r = self.resolve(op);
                    if r.is_none() {
                        Value::opaque::<()>()
                    } else {
                        self.store.value(r)
                    }
                }
                Operand::Const(c) => crate::core::literal::value(c),
                Operand::None => Value::opaque::<()>(),
            })
            .collect()
    }

    /// Announces the call made by the statement defining `var`; a context sees it first.
    #[inline]
    /// Notes that argument `k` of the call `%var` (about to be announced or announced) is the
    /// closure of the IR at `ir`, for each pair, so that its claim registers their types.
    pub(crate) fn set_closure_args(
        &mut self,
        var: u32,
        closures: impl Iterator<Item = (usize, usize)>,
    ) {
        self.closure_args.clear();
        self.closure_args.extend(closures);
        self.closure_args_site = Some((var, self.frames.len()));
    }

    pub(crate) fn announce(&mut self, var: u32, key: Key) {
        let depth = self.frames.len();
        self.pending = Pending::Announced { var, depth };
        self.key = key;
        if self.frames.last().is_some_and(|f| f.ctx.is_some()) {
            self.before_primitive(var, depth);
        }
    }

    #[inline(never)]
    fn before_primitive(&mut self, var: u32, depth: usize) {
        let Some(frame) = self.frames.last() else {
            return;
        };
        let (Some(ctx), Some(ir)) = (frame.ctx.clone(), frame.ir) else {
            return;
        };
        let Some(entry) = ir.var_index(var).map(|i| &ir.entries[i as usize]) else {
            return;
        };
        let arguments = self.call_arguments(var);
        self.asked = Some((var, depth));
        let call = CallInfo {
            name: &entry.head,
            callee: None,
            location: Some(entry.location),
            depth: depth - 1,
            arguments: &arguments,
            replaceable: false,
        };
        match ctx.before_call(&call) {
            Action::Replace(v) => self.replacement = Some((var, depth, v, true)),
            Action::Reuse(v) => self.replacement = Some((var, depth, v, false)),
            Action::Run => {}
        }
    }

    /// The closures the caller of the top frame passed as arguments.
    pub(crate) fn frame_closure_args(&self) -> &[(usize, usize)] {
        self.frames.last().map_or(&[], |f| &f.closure_params)
    }

    /// The receiver of the method call by `var`: its first operand, already recorded.
    pub(crate) fn recorded_receiver(&self, var: u32) -> Option<super::claim::Receiver> {
        let ir = self.frames.last()?.ir?;
        let entry = &ir.entries[ir.var_index(var)? as usize];
        let node = self.resolve(entry.operands.first()?);
        if node.is_none() {
            return None;
        }
        Some(super::claim::Receiver {
            ty: self.store.value(node).type_id()?,
            addr: 0,
            size: 0,
            fat: false,
        })
    }

    /// What the recorded receiver (first operand) of a method call says of the method reached,
    /// from its value's column alone.
    fn recorded_receiver_class(&self, entry: &Entry) -> Receiver {
        let Some(op) = entry.operands.first() else {
            return Receiver::Unknown;
        };
        let node = self.resolve(op);
        if node.is_none() {
            return Receiver::Unknown;
        }
        self.store.receiver_class(node)
    }

    /// The replacement a context asked for the result of the call by `var`, if any.
    pub(crate) fn take_replacement(&mut self, var: u32) -> Option<Value> {
        let depth = self.frames.len();
        match &self.replacement {
            Some((v, d, ..)) if *v == var && *d == depth => {
                let (_, _, value, replaced) = self.replacement.take()?;
                self.replaced_next = replaced;
                Some(value)
            }
            _ => None,
        }
    }

    /// Flags node `id` replaced if a replaced result was just given ([`Node::REPLACED`]).
    fn flag_replaced(&mut self, id: NodeId) {
        if self.replaced_next && !id.is_none() {
            self.replaced_next = false;
            self.store.nodes[id.index()].flags |= Node::REPLACED;
        }
    }

    /// Whether a pending call is made to the function of `ir` and `identity`; if so, opens
    /// its nested node (or, when a context replaces its result, returns the replacement).
    pub(crate) fn claim(
        &mut self,
        ir: &'static FnIr,
        identity: &Identity,
        replaceable: bool,
    ) -> Option<Result<(), Value>> {
        if self.store.len() >= self.next_byte_check {
            self.check_bytes();
        }
        let Pending::Announced { var, depth } = self.pending else {
            return None;
        };
        let key = self.key;
        if depth != self.frames.len() {
            return None;
        }
        let caller_ir = self.frames.last().and_then(|f| f.ir);
        let site_entry = caller_ir.and_then(|c| c.var_index(var).map(|i| &c.entries[i as usize]));
        let name = site_entry.and_then(super::claim::callee_name);
        let key = match key {
            Key::Recorded { operator } => match self.recorded_receiver(var) {
                Some(receiver) => Key::Method { receiver, operator },
                None => return None,
            },
            key => key,
        };
        if !identity.matches(&key, name, &self.closures) {
            return None;
        }
        let parent_ctx = self.frames.last().and_then(|f| f.ctx.clone());
        let mut ctx = parent_ctx.clone();
        if let Some(parent) = &parent_ctx {
            let arguments = match site_entry {
                Some(_) => self.call_arguments(var),
                None => Vec::new(),
            };
            let site = CallSite {
                name: site_entry.map_or(self.root_name, |e| e.head.as_str()),
                callee: ir,
                location: site_entry.map(|e| e.location),
                depth: self.frames.len() - 1,
                arguments: &arguments,
            };
            let call = CallInfo {
                name: site.name,
                callee: Some(ir),
                location: site.location,
                depth: site.depth,
                arguments: &arguments,
                replaceable,
            };
            // A call its caller announced was asked about then, once; its answer stands.
            let action = if self.asked == Some((var, depth)) {
                match &self.replacement {
                    Some((v, d, ..)) if *v == var && *d == depth => {
                        let (_, _, value, replaced) =
                            self.replacement.take().expect("just matched");
                        match replaced {
                            true => Action::Replace(value),
                            false => Action::Reuse(value),
                        }
                    }
                    _ => Action::Run,
                }
            } else {
                parent.before_call(&call)
            };
            let given = match action {
                Action::Replace(v) => Some((v, true)),
                Action::Reuse(v) => Some((v, false)),
                Action::Run => None,
            };
            if let Some((v, replaced)) = given {
                if replaceable {
                    // The call is not entered: its caller records a primitive with this value.
                    self.replaced_next = replaced;
                    return Some(Err(v));
                }
                // The result type cannot be given: the call runs and its result is replaced
                // when the caller records it (see `Context::before_call`).
                self.replacement = Some((var, self.frames.len(), v, replaced));
            }
            if !parent.can_recur(&site) {
                return None;
            }
            if let Some(nested) = parent.nested(&site) {
                ctx = Some(nested);
            }
        }
        self.pending = Pending::Empty;
        let call = self.store.calls.len() as u32;
        let entry = if site_entry.is_some() {
            caller_ir.and_then(|c| c.var_index(var)).unwrap_or(NO_ENTRY)
        } else {
            NO_ENTRY
        };
        let parent_call = self.frames.last().map_or(u32::MAX, |f| f.call);
        let node = self.push_node(|| Node {
            entry,
            refs: 0,
            value: call,
            tag: 0,
            kind: NodeKind::NestedCall,
            receiver: Receiver::Unknown,
            flags: 0,
        });
        // A call of a local variable: the node the variable holds (a `$(closure)` node); of a
        // closure the calling closure captured: that capture's operand of the node that made
        // the calling closure.
        if let Some(c) = caller_ir.filter(|c| c.has_callee_vars()) {
            let value = if let Some(v) = c.callee_var(entry as usize) {
                self.frames
                    .last()
                    .and_then(|f| f.latest.get(v as usize).copied())
                    .unwrap_or(NodeId::NONE)
            } else if let Some(k) = c.callee_capture(entry as usize) {
                self.frames
                    .last()
                    .and_then(|f| self.store.closure_made_of(f.node))
                    .map_or(NodeId::NONE, |made| self.store.ref_at(made, k))
            } else {
                NodeId::NONE
            };
            if !value.is_none() {
                self.store.closure_values.insert(node, value);
            }
        }
        let ir_index = self.store.intern_ir(IrRef::Static(ir));
        let callee = self.store.intern_callee(match key {
            Key::Fn(k) => Some(k.id),
            _ => identity.item,
        });
        self.store.calls.push(Call {
            node,
            ir: ir_index,
            end: u32::MAX,
            value: Slot::UNIT,
            callee,
            ref_count: 0,
            parent: parent_call,
        });
        let mut latest = self.spare.pop().unwrap_or_default();
        latest.clear();
        latest.resize(ir.var_count as usize + 1, NodeId::NONE);
        // The closures its caller wrote in this call's arguments, if they were given for it.
        let closure_params = if self.closure_args_site.take() == Some((var, depth)) {
            std::mem::take(&mut self.closure_args)
        } else {
            self.closure_args.clear();
            Vec::new()
        };
        self.frames.push(FrameState {
            node,
            call,
            ir: Some(ir),
            latest,
            last_jump: NodeId::NONE,
            last_jump_refs: 0,
            returned: None,
            ctx,
            closure_params,
        });
        Some(Ok(()))
    }

    /// Stops the recording when the trace holds more bytes than its budget. Every loop
    /// iteration passes a branch and every recursion a claim, so a runaway trace meets this.
    #[cold]
    fn check_bytes(&mut self) {
        self.next_byte_check = self.store.len() + 1024;
        if self.store.capacity_bytes() > self.byte_budget {
            self.byte_budget = usize::MAX;
            self.next_byte_check = usize::MAX;
            crate::core::chunked::over_limit();
        }
    }

    /// The open call returned without a return node: through a `return` (or `?`) inside a
    /// macro, which the lowering cannot see. Its last node is an error saying so, so that no
    /// consumer takes the call's value for one its nodes computed.
    #[cold]
    fn left_without_return(&mut self) {
        let slot = self.store.put(Value::snapshot(String::from(
            "returned by a `return` irtrack cannot see (inside a macro)",
        )));
        let node = self.push_node(|| Node {
            entry: NO_ENTRY,
            refs: 0,
            value: slot.index,
            tag: slot.tag,
            kind: NodeKind::Error,
            receiver: Receiver::Unknown,
            flags: 0,
        });
        self.hook(node);
    }

    /// A panic is unwinding out of the open call: its last node is an error.
    pub(crate) fn unwind(&mut self) {
        if self.frames.len() <= 1 {
            return;
        }
        let node = self.push_node(|| Node {
            entry: NO_ENTRY,
            refs: 0,
            value: 0,
            tag: 0,
            kind: NodeKind::Error,
            receiver: Receiver::Unknown,
            flags: 0,
        });
        self.errors.push(node);
        self.hook(node);
        // The call never returns to its caller's record: give it its arguments now, and the
        // panic's message as its value (set by `try_track`).
        let frame = self.frames.len() - 1;
        let call = self.frames[frame].node;
        let entry = self.store.node(call).entry;
        let caller = self.frames[frame - 1].ir;
        if let Some(site) = caller.and_then(|ir| ir.entries.get(entry as usize)) {
            // Resolve in the caller's frame: take this frame off for the lookup.
            let top = self.frames.pop().expect("checked above");
            let refs = self.push_refs(site);
            let count = self.store.refs.len() as u32 - refs;
            self.frames.push(top);
            let n = &mut self.store.nodes[call.index()];
            n.refs = refs;
            n.flags |= Node::REFS_SET;
            let c = n.value as usize;
            self.store.calls[c].ref_count = count;
        }
        self.errors.push(call);
    }

    pub(crate) fn pop_frame(&mut self) {
        if self.frames.len() <= 1 {
            return;
        }
        let unseen_return =
            self.frames.last().is_some_and(|f| f.returned.is_none()) && !std::thread::panicking();
        if unseen_return {
            self.left_without_return();
        }
        let frame = self.frames.pop().expect("checked above");
        let end = self.store.len() as u32;
        let c = &mut self.store.calls[frame.call as usize];
        c.end = end;
        if let Some(slot) = frame.returned {
            c.value = slot;
        }
        self.spare.push(frame.latest);
        self.pending = Pending::Returned {
            node: frame.node,
            depth: self.frames.len(),
        };
    }
}

/// What a method call's receiver type says of the method reached (see [`Receiver`]).
fn receiver_class(t: TypeId) -> Receiver {
    if t == TypeId::of::<f64>() || t == TypeId::of::<f32>() {
        Receiver::Float
    } else if t == TypeId::of::<&'static f64>()
        || t == TypeId::of::<&'static f32>()
        || t == TypeId::of::<&'static mut f64>()
        || t == TypeId::of::<&'static mut f32>()
    {
        Receiver::FloatRef
    } else {
        Receiver::Other
    }
}
