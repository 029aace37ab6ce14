//! The thread-local recorder: frames of the calls being recorded, and the pending-call slot
//! through which a tracked callee claims a call announced by its tracked caller.
//!
//! Protocol (DESIGN.md, decision 2). A tracked caller evaluates a call's arguments, then
//! *announces* the call with a key naming the callee (its fn-item type name, or a method name and
//! receiver type), then makes the call. A `#[tracked]` callee entered while a matching
//! announcement is pending *claims* it: it opens a nested node and records its body there. When
//! the call returns, the caller's record finds the claimed node, or, if nothing claimed the call,
//! records a primitive. Code running inside a primitive never claims: its key names the primitive.

use crate::context::{CallSite, Context, Draft};
use crate::ir::{Entry, EntryKind, FnIr, Operand};
use crate::node::{CallData, NodeData, NodeId, NodeKind, Store};
use crate::value::Value;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Number of recordings in progress in the whole process. Zero means no tracked function needs
/// to look at its thread's recorder, which keeps the untracked path to one relaxed load.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static CURRENT: RefCell<Option<Shared>> = const { RefCell::new(None) };
}

pub(crate) type Shared = Rc<RefCell<Recorder>>;

pub(crate) const ROOT_ENTRY: u32 = u32::MAX;

/// Who a call was made to, as the caller can tell at the call site.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Key {
    /// A call of a path or a local callable: the callee value's type name (a fn item's type name
    /// is its full path with generic arguments; a closure's ends in `{{closure}}`).
    Fn(&'static str),
    /// A method call or operator: the method name and, when the receiver is a recorded value,
    /// its type name.
    Method {
        name: &'static str,
        receiver: Option<&'static str>,
    },
}

#[derive(Clone, Copy, Debug)]
enum Pending {
    Empty,
    Announced { key: Key, entry: u32 },
    Returned { node: NodeId },
}

/// What `Identity::inner_closure` adds to the function's own type name.
const IDENTITY_SUFFIX: &str = "::{{closure}}::{{closure}}";

/// What a tracked function knows of itself, to check a pending call is made to it.
#[derive(Clone, Copy, Debug)]
pub struct Identity {
    /// The type name of a closure written in a closure in the function's body (the identity is
    /// built by a closure, so that nothing is built unless a recording is active): the
    /// function's own fn-item type name (full path and generic arguments) followed by
    /// `::{{closure}}::{{closure}}`. A closure can name this from inside any function, where
    /// the function itself often cannot be named.
    pub inner_closure: &'static str,
    /// The function's name as written.
    pub name: &'static str,
    /// `type_name::<Self>()` for a method with a receiver.
    pub self_type: Option<&'static str>,
}

impl Identity {
    fn matches(&self, key: Key) -> bool {
        match key {
            Key::Fn(t) => self.inner_closure.strip_suffix(IDENTITY_SUFFIX) == Some(t),
            Key::Method { name, receiver } => {
                name == self.name
                    && match (self.self_type, receiver) {
                        (Some(own), Some(recv)) => {
                            let recv = peel_receiver(recv);
                            recv == own || recv.starts_with("dyn ")
                        }
                        // Without the receiver's type the call may be to another type's
                        // method of the same name: never claim it (decision 2).
                        (Some(_), None) | (None, _) => false,
                    }
            }
        }
    }
}

/// Strips the references and smart pointers that method autoderef looks through.
pub(crate) fn peel_receiver(mut t: &str) -> &str {
    loop {
        let before = t;
        for prefix in ["&mut ", "&"] {
            t = t.strip_prefix(prefix).unwrap_or(t);
        }
        for wrapper in ["alloc::boxed::Box<", "alloc::rc::Rc<", "alloc::sync::Arc<"] {
            if let Some(inner) = t.strip_prefix(wrapper).and_then(|s| s.strip_suffix('>')) {
                t = inner;
            }
        }
        if t == before {
            return t;
        }
    }
}

struct FrameState {
    /// The nested-call node whose children this frame records (NONE for the root pseudo-frame).
    node: NodeId,
    ir: Option<&'static FnIr>,
    children: Vec<NodeId>,
    /// The newest node recorded for each SSA variable of `ir`: what `%i` refers to right now.
    latest: Vec<NodeId>,
    last_jump: NodeId,
    /// The context recording this frame; `None` is the default, which has no hooks to call.
    ctx: Option<Rc<dyn Context>>,
}

pub(crate) struct Recorder {
    pub(crate) store: Store,
    frames: Vec<FrameState>,
    pending: Pending,
    /// Child-id buffers of finished frames, reused to avoid an allocation per call.
    spare: Vec<Vec<NodeId>>,
    /// The name of the function passed to `track`, for the root's call site.
    root_name: &'static str,
    /// Error nodes added while a panic unwound, to be given its message.
    pub(crate) errors: Vec<NodeId>,
}

impl Recorder {
    fn new(ctx: Option<Rc<dyn Context>>, root_name: &'static str) -> Self {
        Recorder {
            store: Store::recycled(),
            frames: vec![FrameState {
                node: NodeId::NONE,
                ir: None,
                children: Vec::new(),
                latest: Vec::new(),
                last_jump: NodeId::NONE,
                ctx,
            }],
            pending: Pending::Empty,
            spare: Vec::new(),
            root_name,
            errors: Vec::new(),
        }
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
        let Some(ctx) = self.frames.last().and_then(|f| f.ctx.clone()) else {
            return;
        };
        // A node just stored has no metadata yet, except a nested call, which may have been
        // given some when it was entered.
        let mut metadata = if self.store.metadata.is_empty() {
            Vec::new()
        } else {
            self.store.metadata.remove(&id).unwrap_or_default()
        };
        let node = self.store.node(id);
        let ir = self.frames.last().and_then(|f| f.ir);
        let entry = ir.and_then(|ir| ir.entries.get(node.entry as usize));
        let name = match node.kind {
            NodeKind::PrimitiveCall | NodeKind::NestedCall | NodeKind::Special => entry
                .map(|e| e.head)
                .or(Some(self.root_name).filter(|_| entry.is_none())),
            _ => None,
        };
        let mut draft = Draft {
            kind: node.kind,
            name,
            location: entry.map(|e| e.location),
            ir,
            value: &node.value,
            store: &self.store,
            refs: self.store.refs(id),
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

    fn top(&mut self) -> &mut FrameState {
        self.frames
            .last_mut()
            .expect("the root pseudo-frame is never popped")
    }

    fn push_node(
        &mut self,
        kind: NodeKind,
        entry: u32,
        operands: &[Operand],
        extra: u32,
        value: Value,
    ) -> NodeId {
        let id = NodeId(self.store.nodes.len() as u32);
        let refs_start = self.store.refs.len() as u32;
        let frame = self.frames.last().expect("root pseudo-frame");
        for op in operands {
            let r = match *op {
                Operand::Var(v) => frame
                    .latest
                    .get(v as usize)
                    .copied()
                    .unwrap_or(NodeId::NONE),
                Operand::Const(_) | Operand::None => NodeId::NONE,
            };
            self.store.refs.push(r);
        }
        let frame = self.top();
        frame.children.push(id);
        let position = frame.children.len() as u32;
        let parent = frame.node;
        self.store.nodes.push(NodeData {
            kind,
            parent,
            position,
            entry,
            refs_start,
            refs_len: operands.len() as u32,
            extra,
            value,
        });
        id
    }

    fn define(&mut self, entry: &Entry, node: NodeId) {
        if let Some(var) = entry.location.slot.var() {
            let latest = &mut self.top().latest;
            if let Some(slot) = latest.get_mut(var as usize) {
                *slot = node;
            }
        }
    }

    fn entry(&self, index: u32) -> &'static Entry {
        let ir = self
            .frames
            .last()
            .and_then(|f| f.ir)
            .expect("a frame of a tracked function");
        &ir.entries[index as usize]
    }

    /// Records the node of a statement (or finishes a claimed nested call) for static entry
    /// `index` with `value`.
    fn statement(&mut self, index: u32, value: Value) -> NodeId {
        let entry = self.entry(index);
        let is_call = matches!(
            entry.kind,
            EntryKind::Call | EntryKind::MethodCall | EntryKind::Operator
        );
        // Only a call's own record ends its announcement: anything recorded between the
        // announcement and the call (a constant argument as in `sq(K)`, an element read as in
        // `g(h(x), &v[0])`) leaves it pending.
        let own = match self.pending {
            Pending::Announced { entry, .. } => entry == index,
            Pending::Returned { node } => self.store.node(node).entry == index,
            Pending::Empty => false,
        };
        let pending = if is_call && own {
            std::mem::replace(&mut self.pending, Pending::Empty)
        } else {
            Pending::Empty
        };
        let top_node = self.frames.last().map(|f| f.node);
        let node = match pending {
            Pending::Returned { node }
                if is_call
                    && self.store.node(node).entry == index
                    && Some(self.store.node(node).parent) == top_node =>
            {
                self.finish_nested(node, entry.operands, value);
                node
            }
            _ => {
                let kind = match entry.kind {
                    EntryKind::Call | EntryKind::MethodCall | EntryKind::Operator => {
                        NodeKind::PrimitiveCall
                    }
                    EntryKind::Constant => NodeKind::Constant,
                    EntryKind::Argument => NodeKind::Argument,
                    _ => NodeKind::Special,
                };
                let extra = match (entry.kind, pending) {
                    (EntryKind::Argument, _) if entry.location.block != 1 => self.top().last_jump.0,
                    // Keep who a path call went to: gradient rules are found by it.
                    (
                        EntryKind::Call,
                        Pending::Announced {
                            key: Key::Fn(callee),
                            ..
                        },
                    ) => {
                        self.store.callees.push(callee);
                        self.store.callees.len() as u32 - 1
                    }
                    _ => u32::MAX,
                };
                self.push_node(kind, index, entry.operands, extra, value)
            }
        };
        self.define(entry, node);
        self.hook(node);
        node
    }

    /// Sets the value and argument references of a nested node when its call returns.
    fn finish_nested(&mut self, node: NodeId, operands: &[Operand], value: Value) {
        self.resolve_call_arguments(self.frames.len() - 1, node, operands);
        self.store.nodes[node.index()].value = value;
    }

    /// Resolves a nested node's argument references in the frame of its caller, `frame`.
    fn resolve_call_arguments(&mut self, frame: usize, node: NodeId, operands: &[Operand]) {
        let refs_start = self.store.refs.len() as u32;
        let frame = &self.frames[frame];
        for op in operands {
            let r = match *op {
                Operand::Var(v) => frame
                    .latest
                    .get(v as usize)
                    .copied()
                    .unwrap_or(NodeId::NONE),
                _ => NodeId::NONE,
            };
            self.store.refs.push(r);
        }
        let data = &mut self.store.nodes[node.index()];
        data.refs_start = refs_start;
        data.refs_len = operands.len() as u32;
    }

    /// Records block argument `index`, the `n`-th argument of the last jump, with the value
    /// of the node that jump passed (no need to read the variable, which may be moved by now).
    fn block_argument(&mut self, index: u32, n: usize) -> NodeId {
        let entry = self.entry(index);
        let jump = self.top().last_jump;
        let value = if jump.is_none() {
            Value::UNIT
        } else {
            match self.store.refs(jump).get(n) {
                Some(&from) if !from.is_none() => self.store.node(from).value.clone(),
                _ => Value::UNIT,
            }
        };
        let node = self.push_node(NodeKind::Argument, index, entry.operands, jump.0, value);
        self.define(entry, node);
        self.hook(node);
        node
    }

    fn branch(&mut self, index: u32, value: Value) -> NodeId {
        let entry = self.entry(index);
        let kind = if entry.kind == EntryKind::Return {
            NodeKind::Return
        } else {
            NodeKind::Jump
        };
        let node = if entry.condition == Operand::None {
            self.push_node(kind, index, entry.operands, u32::MAX, value)
        } else {
            let mut ops: Vec<Operand> = entry.operands.to_vec();
            ops.push(entry.condition);
            self.push_node(kind, index, &ops, u32::MAX, value)
        };
        if kind == NodeKind::Jump {
            self.top().last_jump = node;
        }
        self.hook(node);
        node
    }

    fn claim(&mut self, ir: &'static FnIr, identity: &Identity) -> bool {
        let Pending::Announced { key, entry } = self.pending else {
            return false;
        };
        if !identity.matches(key) {
            return false;
        }
        let parent_ctx = self.frames.last().and_then(|f| f.ctx.clone());
        let mut ctx = parent_ctx.clone();
        if let Some(parent) = &parent_ctx {
            let caller = self.frames.last().and_then(|f| f.ir);
            let site_entry = caller.and_then(|ir| ir.entries.get(entry as usize));
            let arguments: Vec<Value> = match site_entry {
                Some(e) => {
                    let frame = self.frames.last().expect("root pseudo-frame");
                    e.operands
                        .iter()
                        .filter_map(|op| match op {
                            Operand::Var(v) => frame.latest.get(*v as usize).copied(),
                            _ => None,
                        })
                        .filter(|n| !n.is_none())
                        .map(|n| self.store.node(n).value.clone())
                        .collect()
                }
                None => Vec::new(),
            };
            let site = CallSite {
                name: site_entry.map(|e| e.head).unwrap_or(self.root_name),
                callee: ir,
                location: site_entry.map(|e| e.location),
                depth: self.frames.len() - 1,
                arguments: &arguments,
            };
            if !parent.can_recur(&site) {
                return false;
            }
            if let Some(nested) = parent.nested(&site) {
                ctx = Some(nested);
            }
        }
        self.pending = Pending::Empty;
        let call = self.store.calls.len() as u32;
        self.store.calls.push(CallData {
            ir,
            callee: match key {
                Key::Fn(callee) => callee,
                Key::Method { .. } => "",
            },
            children_start: 0,
            children_len: 0,
        });
        let node = self.push_node(NodeKind::NestedCall, entry, &[], call, Value::UNIT);
        let children = self.spare.pop().unwrap_or_default();
        self.frames.push(FrameState {
            node,
            ir: Some(ir),
            children,
            latest: vec![NodeId::NONE; ir_var_count(ir)],
            last_jump: NodeId::NONE,
            ctx,
        });
        true
    }

    /// A panic is unwinding out of the open call: its last node is an error.
    fn unwind(&mut self) {
        if self.frames.len() <= 1 {
            return;
        }
        let node = self.push_node(NodeKind::Error, ROOT_ENTRY, &[], u32::MAX, Value::UNIT);
        self.errors.push(node);
        self.hook(node);
        // The call never returns to its caller's record: give it its arguments now, and the
        // panic's message as its value (set by `try_track`).
        let call = self.frames.last().expect("checked above").node;
        let caller = self.frames.len() - 2;
        let entry = self.store.node(call).entry;
        let site = self.frames[caller]
            .ir
            .and_then(|ir| ir.entries.get(entry as usize));
        if let Some(site) = site {
            self.resolve_call_arguments(caller, call, site.operands);
        }
        self.errors.push(call);
    }

    fn pop_frame(&mut self) {
        if self.frames.len() <= 1 {
            return;
        }
        let mut frame = self.frames.pop().expect("checked above");
        let start = self.store.children.len() as u32;
        self.store.children.extend_from_slice(&frame.children);
        let call = self.store.node(frame.node).extra as usize;
        self.store.calls[call].children_start = start;
        self.store.calls[call].children_len = frame.children.len() as u32;
        frame.children.clear();
        self.spare.push(frame.children);
        self.pending = Pending::Returned { node: frame.node };
    }
}

fn ir_var_count(ir: &FnIr) -> usize {
    ir.var_count as usize + 1
}

/// A handle on the frame of a tracked call being recorded, used by the code `#[tracked]`
/// generates. An inactive frame (for functions returning `impl Trait`, which run their
/// instrumented body even when not recorded) records nothing.
pub struct Frame {
    rec: Option<Shared>,
}

impl Frame {
    /// A frame that records nothing.
    pub fn inactive() -> Frame {
        Frame { rec: None }
    }

    #[inline]
    fn with<R>(&self, f: impl FnOnce(&mut Recorder) -> R) -> Option<R> {
        self.rec.as_ref().map(|rec| f(&mut rec.borrow_mut()))
    }

    /// Records the statement at static entry `entry` with `value`, which it passes through.
    #[inline]
    pub fn record<T>(&self, entry: u32, value: T, capture: impl FnOnce(&T) -> Value) -> T {
        if self.rec.is_some() {
            let captured = capture(&value);
            self.with(|r| r.statement(entry, captured));
        }
        value
    }

    /// Records the statement or argument at static entry `entry` from a reference to its value.
    #[inline]
    pub fn record_ref<T: ?Sized>(&self, entry: u32, value: &T, capture: impl FnOnce(&T) -> Value) {
        if self.rec.is_some() {
            let captured = capture(value);
            self.with(|r| r.statement(entry, captured));
        }
    }

    /// Records the place at static entry `entry` (a field or element read through a shared
    /// reference, as by a comparison) and passes the reference through.
    #[inline]
    pub fn record_place<'a, T: ?Sized>(
        &self,
        entry: u32,
        place: &'a T,
        capture: impl FnOnce(&T) -> Value,
    ) -> &'a T {
        self.record_ref(entry, place, capture);
        place
    }

    /// Records the return at static entry `entry` from a reference to the returned value (the
    /// residual an early `?` returns).
    #[inline]
    pub fn ret_ref<T: ?Sized>(&self, entry: u32, value: &T, capture: impl FnOnce(&T) -> Value) {
        if self.rec.is_some() {
            let captured = capture(value);
            self.with(|r| r.branch(entry, captured));
        }
    }

    /// Records block argument `entry`, the `n`-th (from 0) argument of the jump just taken,
    /// with the value of the node the jump passed.
    #[inline]
    pub fn block_arg(&self, entry: u32, n: usize) {
        self.with(|r| r.block_argument(entry, n));
    }

    /// Records the branch at static entry `entry` as taken.
    #[inline]
    pub fn jump(&self, entry: u32) {
        self.with(|r| r.branch(entry, Value::UNIT));
    }

    /// Records the return at static entry `entry` with the returned `value`.
    #[inline]
    pub fn ret<T>(&self, entry: u32, value: T, capture: impl FnOnce(&T) -> Value) -> T {
        if self.rec.is_some() {
            let captured = capture(&value);
            self.with(|r| r.branch(entry, captured));
        }
        value
    }

    /// Announces the call at entry `entry` to a callee value (fn item, closure or fn pointer)
    /// whose type name is `callee_type`, after its last evaluated argument `pass`, which it
    /// passes through.
    #[inline]
    pub fn announce_type<T>(&self, entry: u32, callee_type: &'static str, pass: T) -> T {
        self.with(|r| {
            r.pending = Pending::Announced {
                key: Key::Fn(callee_type),
                entry,
            }
        });
        pass
    }

    /// Announces the method call at entry `entry` to a method called `method` on a receiver
    /// of type `receiver_type` (the receiver is a place, read before the call for its type).
    #[inline]
    pub fn announce_method_of<T>(
        &self,
        entry: u32,
        method: &'static str,
        receiver_type: &'static str,
        pass: T,
    ) -> T {
        self.with(|r| {
            r.pending = Pending::Announced {
                key: Key::Method {
                    name: method,
                    receiver: Some(receiver_type),
                },
                entry,
            };
        });
        pass
    }

    /// Announces the method call or operator at entry `entry` to a method called `method`.
    /// When `exact_receiver` is true, the entry's first operand is the receiver value and its
    /// type must match the callee's `Self`.
    #[inline]
    pub fn announce_method<T>(
        &self,
        entry: u32,
        method: &'static str,
        exact_receiver: bool,
        pass: T,
    ) -> T {
        self.with(|r| {
            let receiver = if exact_receiver {
                match r.entry(entry).operands.first() {
                    Some(Operand::Var(v)) => {
                        let frame = r.frames.last().expect("root pseudo-frame");
                        let node = frame
                            .latest
                            .get(*v as usize)
                            .copied()
                            .unwrap_or(NodeId::NONE);
                        (!node.is_none()).then(|| r.store.node(node).value.type_name())
                    }
                    _ => None,
                }
            } else {
                None
            };
            r.pending = Pending::Announced {
                key: Key::Method {
                    name: method,
                    receiver,
                },
                entry,
            };
        });
        pass
    }
}

impl Drop for Frame {
    fn drop(&mut self) {
        if let Some(rec) = &self.rec {
            // Also runs while unwinding: the nested node keeps what was recorded before the panic.
            if let Ok(mut r) = rec.try_borrow_mut() {
                if std::thread::panicking() {
                    r.unwind();
                }
                r.pop_frame();
            }
        }
    }
}

/// Claims the pending call if it is made to the function described by `ir` and `identity`.
/// Inlined into every tracked function: when nothing is being recorded anywhere, this is one
/// relaxed atomic load.
///
/// The identity comes as a closure: building it stores a few words, which the untracked path
/// should not pay for (the stores also kept recursive functions from becoming loops).
#[inline(always)]
pub fn claim(ir: &'static FnIr, identity: impl FnOnce() -> Identity) -> Option<Frame> {
    if ACTIVE.load(Ordering::Relaxed) == 0 {
        return None;
    }
    claim_slow(ir, identity())
}

#[cold]
#[inline(never)]
fn claim_slow(ir: &'static FnIr, identity: Identity) -> Option<Frame> {
    let rec = CURRENT.with(|c| c.borrow().clone())?;
    // Busy means a context hook is running and called tracked code: that code is not recorded.
    let claimed = rec.try_borrow_mut().ok()?.claim(ir, &identity);
    // Lazily: a Frame pops its call when dropped, so one must exist only for a real claim.
    claimed.then(|| Frame { rec: Some(rec) })
}

/// A recording in progress on this thread; restores the previous one (if a trace is recorded
/// from inside tracked code) and the process-wide counter when dropped, also on panic.
pub(crate) struct Session {
    rec: Shared,
    previous: Option<Shared>,
}

impl Session {
    pub(crate) fn start(ctx: Option<Rc<dyn Context>>, root_name: &'static str) -> Session {
        let rec: Shared = Rc::new(RefCell::new(Recorder::new(ctx, root_name)));
        let previous = CURRENT.with(|c| c.borrow_mut().replace(rec.clone()));
        ACTIVE.fetch_add(1, Ordering::Relaxed);
        Session { rec, previous }
    }

    pub(crate) fn announce_root(&self, fn_type: &'static str) {
        self.rec.borrow_mut().pending = Pending::Announced {
            key: Key::Fn(fn_type),
            entry: ROOT_ENTRY,
        };
    }

    /// Ends the recording; returns the store, the root node if a tracked callee claimed it, and
    /// the error nodes a panic left.
    pub(crate) fn finish(self) -> (Store, Option<NodeId>, Vec<NodeId>) {
        let mut r = self.rec.borrow_mut();
        let root = match r.pending {
            Pending::Returned { node } => Some(node),
            _ => None,
        };
        r.pending = Pending::Empty;
        let errors = std::mem::take(&mut r.errors);
        (std::mem::take(&mut r.store), root, errors)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
        ACTIVE.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Runs the instrumented body of a tracked function. Never inlined, so the instrumented copy
/// stays out of the original function's code and does not stop its inlining or vectorisation.
#[inline(never)]
pub fn run<T>(body: impl FnOnce() -> T) -> T {
    body()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receivers_are_peeled_like_autoderef() {
        assert_eq!(peel_receiver("&mut alloc::boxed::Box<m::Foo>"), "m::Foo");
        assert_eq!(peel_receiver("&&m::Foo"), "m::Foo");
    }

    #[test]
    fn path_keys_match_only_the_same_function() {
        let sq = Identity {
            inner_closure: "c::sq::{{closure}}::{{closure}}",
            name: "sq",
            self_type: None,
        };
        assert!(sq.matches(Key::Fn("c::sq")));
        assert!(!sq.matches(Key::Fn("c::other::sq")));
        assert!(!sq.matches(Key::Method {
            name: "sq",
            receiver: None
        }));
        let closure = Identity {
            inner_closure: "c::f::{{closure}}::{{closure}}::{{closure}}",
            name: "{{closure}}",
            self_type: None,
        };
        assert!(closure.matches(Key::Fn("c::f::{{closure}}")));
        assert!(!closure.matches(Key::Fn("c::f")));
    }
}
