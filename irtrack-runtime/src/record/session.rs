//! Recording entry points ([`track`] and its variants) and the claim check every tracked
//! function runs first.

use super::claim::{Identity, Key};
use super::context::Context;
use super::frame::Frame;
use super::recorder::{Pending, Recorder, Shared, ACTIVE, CURRENT};
use crate::core::ids::NodeId;
use crate::core::ir::StaticIr;
use crate::core::op::Receiver;
use crate::core::tape::{Node, NodeKind, Store, NO_ENTRY};
use crate::core::trace::Trace;
use crate::core::value::{Owned, Value};
use std::cell::RefCell;
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::atomic::Ordering;

/// What the recorder decided for a call of a tracked function.
pub enum Claim {
    /// Not recorded: run the original body.
    No,
    /// Recorded: run the instrumented body with this frame.
    Record(Frame),
    /// A context gave the call's result: return it without running the body.
    Replace(Value),
}

/// Claims the pending call if it is made to the closure (or the function returning
/// `impl Trait`) described by `ir` and `identity`, whose result a context cannot give: the frame
/// to run its instrumented body with. Inlined into every tracked closure: when nothing is being
/// recorded anywhere, this is one relaxed atomic load. (Tracked functions call [`run`] after
/// [`Frame::recording`] instead.)
///
/// The identity comes as a closure: building it stores a few words, which the untracked path
/// should not pay for.
#[inline(always)]
pub fn claim(ir: &'static StaticIr, identity: impl FnOnce() -> Identity) -> Option<Frame> {
    if ACTIVE.load(Ordering::Relaxed) == 0 {
        return None;
    }
    claim_frame(ir, &identity())
}

#[cold]
#[inline(never)]
fn claim_frame(ir: &'static StaticIr, identity: &Identity) -> Option<Frame> {
    match claim_slow(ir, false, identity) {
        Claim::Record(frame) => Some(frame),
        _ => None,
    }
}

#[cold]
#[inline(never)]
fn claim_slow(ir: &'static StaticIr, replaceable: bool, identity: &Identity) -> Claim {
    let Some(rec) = CURRENT.with(|c| c.borrow().clone()) else {
        return Claim::No;
    };
    // Busy means a context hook is running and called tracked code: that code is not recorded.
    let Ok(mut r) = rec.try_borrow_mut() else {
        return Claim::No;
    };
    match r.claim(ir.get(), identity, replaceable) {
        None => Claim::No,
        Some(Ok(())) => {
            let observed = r.frames.last().is_some_and(|f| f.ctx.is_some());
            drop(r);
            // Lazily: a Frame pops its call when dropped, so one must exist only for a claim.
            Claim::Record(Frame {
                rec: Some(rec),
                observed,
            })
        }
        Some(Err(value)) => Claim::Replace(value),
    }
}

impl Frame {
    /// Whether a trace is being recorded anywhere in the process: the check every tracked
    /// function inlines before its original body. When nothing is recorded, this is one relaxed
    /// atomic load, and the function runs as written.
    #[inline(always)]
    pub fn recording() -> bool {
        ACTIVE.load(Ordering::Relaxed) != 0
    }
}

/// Runs a tracked function while a trace is being recorded ([`Frame::recording`]): claims the
/// call if it is the pending one and runs the instrumented copy, `body`, with the frame
/// recording it. A call not claimed runs `body` too, with an inactive frame that records nothing
/// (the instrumented copy computes what the original body does). A call a context replaces
/// returns its value without running, when `restore` (from
/// `(&&&Restore::<T>::new()).restorer()`) can make a `T` of it.
///
/// Never inlined: the function the macro generates keeps only the check and this call in front
/// of its original body, so the instrumented copy, the identity and the claim do not stop the
/// original body's inlining, vectorisation or tail calls.
#[inline(never)]
pub fn run<T>(
    ir: &'static StaticIr,
    restore: Option<fn(Value) -> Option<T>>,
    identity: impl FnOnce() -> Identity,
    body: impl FnOnce(&Frame) -> T,
) -> T {
    match enter(ir, restore, &identity()) {
        Ok(frame) => body(&frame),
        Err(result) => result,
    }
}

/// The frame [`run`] runs the instrumented copy with, or the result a context gave. Generic
/// only over the result type, so that the functions returning one type share it.
#[inline(never)]
fn enter<T>(
    ir: &'static StaticIr,
    restore: Option<fn(Value) -> Option<T>>,
    identity: &Identity,
) -> Result<Frame, T> {
    match claim_slow(ir, restore.is_some(), identity) {
        Claim::Record(frame) => Ok(frame),
        Claim::Replace(value) => {
            let given = value.type_name().to_string();
            match restore.and_then(|restore| restore(value)) {
                Some(result) => Err(result),
                None => wrong_replacement::<T>(&given, &ir.get().name),
            }
        }
        Claim::No => Ok(Frame::inactive()),
    }
}

/// A context's `Action::Replace` or `Action::Reuse` gave a value of another type than the
/// call's result: the documented panic (see `Context::before_call`), not a call that silently
/// keeps its own result.
#[cold]
pub(crate) fn wrong_replacement<T>(given: &str, call: &str) -> ! {
    panic!(
        "a context's `Action::Replace` or `Action::Reuse` gave a `{given}` as the result of \
         `{call}`, which returns a `{}`: give a value of the result's type",
        std::any::type_name::<T>()
    )
}

/// Registers a closure made by `tracked_fn!` as the closure of `ir` and returns it.
pub fn tracked_closure<F>(ir: &'static StaticIr, f: F) -> F {
    super::claim::register_global_closure(typeid::of::<F>(), ir as *const StaticIr as usize);
    f
}

/// Whether a tracked function's result of type `T` can be given by a context instead of
/// running it (`'static + Clone`), by autoref specialisation:
/// `(&&&Restore::<T>::new()).restorer()` (or `.can()`).
pub struct Restore<T>(PhantomData<fn() -> T>);

impl<T> Restore<T> {
    /// The probe for result type `T`.
    #[allow(clippy::new_without_default)]
    #[inline]
    pub fn new() -> Self {
        Restore(PhantomData)
    }
}

/// A result type a context can give.
pub trait RestoreOwned<T> {
    /// Whether a context can give the result.
    fn can(&self) -> bool;
    /// The result from a context's value, if it is of the result type.
    fn restore(&self, value: Value) -> Option<T>;
    /// The function making a result of a context's value, for [`run`].
    fn restorer(&self) -> Option<fn(Value) -> Option<T>>;
}

impl<T: Owned> RestoreOwned<T> for &&Restore<T> {
    fn can(&self) -> bool {
        true
    }
    fn restore(&self, value: Value) -> Option<T> {
        restore_owned(value)
    }
    #[inline]
    fn restorer(&self) -> Option<fn(Value) -> Option<T>> {
        Some(restore_owned::<T>)
    }
}

fn restore_owned<T: Owned>(value: Value) -> Option<T> {
    value.downcast_ref::<T>().cloned()
}

/// A result type a context cannot give.
pub trait RestoreNone<T> {
    /// Whether a context can give the result.
    fn can(&self) -> bool;
    /// Never a result.
    fn restore(&self, value: Value) -> Option<T>;
    /// No function: a context cannot give the result.
    fn restorer(&self) -> Option<fn(Value) -> Option<T>>;
}

impl<T> RestoreNone<T> for &Restore<T> {
    fn can(&self) -> bool {
        false
    }
    fn restore(&self, _: Value) -> Option<T> {
        None
    }
    #[inline]
    fn restorer(&self) -> Option<fn(Value) -> Option<T>> {
        None
    }
}

/// A recording in progress on this thread; restores the previous one (if a trace is recorded
/// from inside tracked code) and the process-wide counter when dropped, also on panic.
pub(crate) struct Session {
    rec: Shared,
    previous: Option<Shared>,
    /// Whether an enclosing recording had seen a checkpoint under an `inject`.
    injected_before: bool,
}

impl Session {
    pub(crate) fn start(ctx: Option<Rc<dyn Context>>, root_name: &'static str) -> Session {
        let rec: Shared = Rc::new(RefCell::new(Recorder::new(ctx, root_name)));
        let previous = CURRENT.with(|c| c.borrow_mut().replace(rec.clone()));
        // A recording inside a call the outer recording announced (`gradient` called in a
        // tracked function): the outer trace marks that call, so a derivative through it is
        // reported as higher-order use instead of as whichever node lacks a rule first.
        if let Some(mut outer) = previous.as_ref().and_then(|o| o.try_borrow_mut().ok()) {
            if let Pending::Announced { var, depth, .. } = outer.pending {
                outer.recorded_inside = Some((var, depth));
            }
        }
        ACTIVE.fetch_add(1, Ordering::Relaxed);
        let injected_before = crate::core::eval::take_injected(false);
        Session {
            rec,
            previous,
            injected_before,
        }
    }

    pub(crate) fn announce_root<F: ?Sized>(&self) {
        let mut r = self.rec.borrow_mut();
        r.key = Key::Fn(crate::core::ids::CalleeKey {
            id: typeid::of::<F>(),
            name: std::any::type_name::<F>(),
        });
        r.pending = Pending::Announced {
            var: u32::MAX,
            depth: 1,
        };
    }

    fn set_budget(&self, budget: Budget) {
        let mut r = self.rec.borrow_mut();
        if let Some(n) = budget.nodes {
            r.store.nodes.set_limit(n);
        }
        if let Some(b) = budget.bytes {
            r.byte_budget = b;
            r.next_byte_check = 0;
        }
    }

    /// Ends the recording; returns the store, the root node if a tracked callee claimed it, and
    /// the error nodes a panic left.
    pub(crate) fn finish(self) -> (Store, Option<NodeId>, Vec<NodeId>) {
        let mut r = self.rec.borrow_mut();
        let root = match r.pending {
            Pending::Returned { node, .. } => Some(node),
            _ => None,
        };
        r.pending = Pending::Empty;
        r.store.nodes.set_limit(usize::MAX);
        let errors = std::mem::take(&mut r.errors);
        // What ran under an `inject` ran in any enclosing recording too.
        let injected = crate::core::eval::take_injected(false);
        crate::core::eval::take_injected(self.injected_before || injected);
        r.store.injected = injected;
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

/// Something `track` can call with a tuple of arguments: any `FnOnce` of up to 12 arguments.
pub trait Callable<Args> {
    /// What the call returns.
    type Output;
    /// Calls `self` with the arguments unpacked.
    fn call_with(self, args: Args) -> Self::Output;
    /// The arguments' values, in the richest form their types allow without a bound (for a
    /// root call that nothing tracked claimed).
    fn values(args: &Args) -> Vec<Value>;
}

macro_rules! callable {
    ($(($($a:ident),*)),* $(,)?) => {$(
        impl<Func, Ret, $($a),*> Callable<($($a,)*)> for Func
        where
            Func: FnOnce($($a),*) -> Ret,
        {
            type Output = Ret;
            #[allow(non_snake_case)]
            fn call_with(self, ($($a,)*): ($($a,)*)) -> Ret {
                self($($a),*)
            }
            #[allow(non_snake_case, unused_variables)]
            fn values(args: &($($a,)*)) -> Vec<Value> {
                let ($($a,)*) = args;
                vec![$(Value::of($a)),*]
            }
        }
    )*};
}
callable!(
    (),
    (A1),
    (A1, A2),
    (A1, A2, A3),
    (A1, A2, A3, A4),
    (A1, A2, A3, A4, A5),
    (A1, A2, A3, A4, A5, A6),
    (A1, A2, A3, A4, A5, A6, A7),
    (A1, A2, A3, A4, A5, A6, A7, A8),
    (A1, A2, A3, A4, A5, A6, A7, A8, A9),
    (A1, A2, A3, A4, A5, A6, A7, A8, A9, A10),
    (A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11),
    (A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12),
);

/// Calls `f` with the tuple `args` and records its trace.
///
/// If `f` is `#[tracked]`, the root is a nested call holding its tape; otherwise the root is a
/// primitive with no children, holding the arguments and the result as far as their types
/// allow. A panic in `f` propagates to the caller, and this thread's recorder is left clean.
///
/// ```
/// use irtrack::{tracked, track};
///
/// #[tracked]
/// fn f(x: f64) -> f64 {
///     x.sin() + x
/// }
///
/// let trace = track(f, (1.0,));
/// assert_eq!(trace.root().value::<f64>(), Some(&1.8414709848078965));
/// assert_eq!(
///     trace.root().levels(2).to_string(),
///     "⟨f⟩(⟨1.0⟩) → 1.8414709848078965::f64
///   @1: [Arg:§1:%1] 1.0::f64
///   @2: [§1:%2] ⟨sin⟩(@1) → 0.8414709848078965::f64
///   @3: [§1:%3] ⟨+⟩(@2, @1) → 1.8414709848078965::f64
///   @4: [§1:&1] return @3 → 1.8414709848078965::f64
/// "
/// );
/// ```
pub fn track<F, A>(f: F, args: A) -> Trace
where
    F: Callable<A>,
{
    track_output(f, args).1
}

/// Like [`track`], and also returns what `f` returned.
///
/// ```
/// use irtrack::{tracked, track_output};
///
/// #[tracked]
/// fn halve(v: Vec<f64>) -> Vec<f64> {
///     v.iter().map(|x| x / 2.0).collect()
/// }
///
/// let (out, trace) = track_output(halve, (vec![2.0, 4.0],));
/// assert_eq!(out, vec![1.0, 2.0]);
/// assert_eq!(trace.root().value::<Vec<f64>>(), Some(&out));
/// ```
pub fn track_output<F, A>(f: F, args: A) -> (F::Output, Trace)
where
    F: Callable<A>,
{
    record(None, f, args)
}

/// Like [`track`], with a [`Context`] deciding what is primitive and what each node records.
///
/// ```
/// use irtrack::{tracked, track_with, DepthLimit, NodeKind};
///
/// #[tracked]
/// fn fact(n: u64) -> u64 {
///     if n == 0 { 1 } else { n * fact(n - 1) }
/// }
///
/// // The root is recorded; every call inside it is a primitive.
/// let trace = track_with(DepthLimit::new(2), fact, (5,));
/// let call = trace.root().children().find(|c| c.function_name() == Some("fact")).unwrap();
/// assert_eq!(call.kind(), NodeKind::PrimitiveCall);
/// assert_eq!(call.value::<u64>(), Some(&24));
/// ```
pub fn track_with<C, F, A>(ctx: C, f: F, args: A) -> Trace
where
    C: Context,
    F: Callable<A>,
{
    record(Some(Rc::new(ctx)), f, args).1
}

/// Like [`track`], but a panic in `f` does not propagate: it returns the trace recorded up to
/// the panic, in which every call the panic left ends in an [`Error`](NodeKind::Error) node
/// holding its message, together with the panic's payload. `f` is treated as unwind safe
/// (see [`std::panic::AssertUnwindSafe`]).
///
/// ```
/// use irtrack::{tracked, try_track, NodeKind};
///
/// #[tracked]
/// fn checked(x: f64) -> f64 {
///     assert!(x >= 0.0, "negative input");
///     x.sqrt()
/// }
///
/// let (trace, result) = try_track(checked, (-1.0,));
/// assert!(result.is_err());
/// let last = trace.root().children().last().unwrap();
/// assert_eq!(last.kind(), NodeKind::Error);
/// assert_eq!(last.value_text(), "\"negative input\"");
/// ```
pub fn try_track<F, A>(f: F, args: A) -> (Trace, std::thread::Result<F::Output>)
where
    F: Callable<A>,
{
    record_catching(None, f, args)
}

/// [`try_track`] with a [`Context`].
pub fn try_track_with<C, F, A>(ctx: C, f: F, args: A) -> (Trace, std::thread::Result<F::Output>)
where
    C: Context,
    F: Callable<A>,
{
    record_catching(Some(Rc::new(ctx)), f, args)
}

/// Limits on the size of one recording (see [`track_within`]). `Budget::default()` has none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// The most nodes the trace may hold.
    pub nodes: Option<usize>,
    /// The most bytes the trace's buffers may hold (checked every 1,024 nodes, at branches and
    /// calls, so a trace stops at most that many nodes past it).
    pub bytes: Option<usize>,
}

impl Budget {
    /// At most `n` nodes.
    pub fn nodes(n: usize) -> Budget {
        Budget {
            nodes: Some(n),
            bytes: None,
        }
    }

    /// At most `n` bytes.
    pub fn bytes(n: usize) -> Budget {
        Budget {
            nodes: None,
            bytes: Some(n),
        }
    }
}

/// A recording stopped because its trace passed its [`Budget`].
pub struct OverBudget {
    /// The budget.
    pub budget: Budget,
    /// The trace recorded until it stopped: every call it left ends in an
    /// [`Error`](NodeKind::Error) node saying so (one node per open call, past the budget).
    pub trace: Box<Trace>,
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the recording of `{}` passed its budget ({:?}) after {} nodes ({} bytes) and was \
             stopped; raise the budget, or record a smaller part (a `DepthLimit` context)",
            self.trace.root_name(),
            self.budget,
            self.trace.len(),
            self.trace.memory()
        )
    }
}

impl std::fmt::Debug for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for OverBudget {}

/// Like [`track_output`], stopping the computation when its trace passes `budget`: a runaway
/// loop or recursion ends in a typed error holding the trace so far, and the thread can track
/// again. The computation is stopped by unwinding out of it (without running the panic hook),
/// so code inside it that catches panics (`catch_unwind`) can keep it running; a panic of `f`
/// itself propagates as it would from [`track_output`].
///
/// ```
/// use irtrack::{tracked, track_within, Budget};
///
/// #[tracked]
/// fn count_up(limit: u64) -> u64 {
///     let mut i = 0;
///     while i < limit {
///         i += 1;
///     }
///     i
/// }
///
/// assert_eq!(track_within(Budget::nodes(1_000), count_up, (10,)).unwrap().0, 10);
/// let stopped = track_within(Budget::nodes(1_000), count_up, (u64::MAX,)).unwrap_err();
/// assert!(stopped.trace.len() <= 1_100);
/// assert!(stopped.to_string().contains("budget"));
/// // The thread records again.
/// assert_eq!(irtrack::track(count_up, (3,)).root().value::<u64>(), Some(&3));
/// ```
pub fn track_within<F, A>(budget: Budget, f: F, args: A) -> Result<(F::Output, Trace), OverBudget>
where
    F: Callable<A>,
{
    track_within_with_ctx(budget, None, f, args)
}

/// [`track_within`] with a [`Context`].
pub fn track_within_with<C, F, A>(
    budget: Budget,
    ctx: C,
    f: F,
    args: A,
) -> Result<(F::Output, Trace), OverBudget>
where
    C: Context,
    F: Callable<A>,
{
    track_within_with_ctx(budget, Some(Rc::new(ctx)), f, args)
}

fn track_within_with_ctx<F, A>(
    budget: Budget,
    ctx: Option<Rc<dyn Context>>,
    f: F,
    args: A,
) -> Result<(F::Output, Trace), OverBudget>
where
    F: Callable<A>,
{
    let (trace, result) = record_catching_within(ctx, budget, f, args);
    match result {
        Ok(out) => Ok((out, trace)),
        Err(payload) if payload.is::<crate::core::chunked::OverLimit>() => Err(OverBudget {
            budget,
            trace: Box::new(trace),
        }),
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

fn record<F, A>(ctx: Option<Rc<dyn Context>>, f: F, args: A) -> (F::Output, Trace)
where
    F: Callable<A>,
{
    let fn_type = std::any::type_name::<F>();
    let arguments = F::values(&args);
    let session = Session::start(ctx, short_fn_name(fn_type));
    session.announce_root::<F>();
    let output = f.call_with(args);
    let (store, claimed, _) = session.finish();
    let value = Value::of(&output);
    let trace = finish::<F>(store, claimed, fn_type, arguments, value);
    (output, trace)
}

fn record_catching<F, A>(
    ctx: Option<Rc<dyn Context>>,
    f: F,
    args: A,
) -> (Trace, std::thread::Result<F::Output>)
where
    F: Callable<A>,
{
    record_catching_within(ctx, Budget::default(), f, args)
}

fn record_catching_within<F, A>(
    ctx: Option<Rc<dyn Context>>,
    budget: Budget,
    f: F,
    args: A,
) -> (Trace, std::thread::Result<F::Output>)
where
    F: Callable<A>,
{
    let fn_type = std::any::type_name::<F>();
    let arguments = F::values(&args);
    let session = Session::start(ctx, short_fn_name(fn_type));
    session.set_budget(budget);
    session.announce_root::<F>();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || f.call_with(args)));
    let (mut store, claimed, errors) = session.finish();
    let value = match &result {
        Ok(output) => Value::of(output),
        Err(payload) => panic_message(payload.as_ref()),
    };
    if result.is_err() {
        for e in errors {
            let slot = store.put(value.clone());
            match store.nodes[e.index()].kind {
                NodeKind::NestedCall => {
                    let c = store.nodes[e.index()].value as usize;
                    store.calls[c].value = slot;
                }
                _ => {
                    let n = &mut store.nodes[e.index()];
                    n.value = slot.index;
                    n.tag = slot.tag;
                }
            }
        }
    }
    let trace = finish::<F>(store, claimed, fn_type, arguments, value);
    (trace, result)
}

/// Builds the trace around its root: the claimed nested call (whose value is its return's, or
/// the panic's message), or a primitive when nothing claimed the root call.
fn finish<F>(
    mut store: Store,
    claimed: Option<NodeId>,
    fn_type: &'static str,
    arguments: Vec<Value>,
    output: Value,
) -> Trace {
    let root = match claimed {
        Some(root) => {
            let c = store.nodes[root.index()].value as usize;
            if store.calls[c].value == crate::core::tape::Slot::UNIT && !output.is_unit() {
                // No return was recorded (a panic, or a return the lowering could not see):
                // the value is what the call returned.
                store.calls[c].value = store.put(output);
            }
            root
        }
        None => {
            store.nodes.clear();
            store.refs.clear();
            store.calls.clear();
            store.metadata.clear();
            store.callees.clear();
            let slot = store.put(output);
            store.nodes.push(Node {
                entry: NO_ENTRY,
                refs: 0,
                value: slot.index,
                tag: slot.tag,
                kind: NodeKind::PrimitiveCall,
                receiver: Receiver::Unknown,
                flags: 0,
            });
            store.root_args = arguments;
            NodeId(0)
        }
    };
    Trace::new(
        store,
        root,
        short_fn_name(fn_type),
        fn_type,
        std::mem::size_of::<F>() == 0,
    )
}

/// A panic payload as a value: its message when it is a string, else its type.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> Value {
    if payload.is::<crate::core::chunked::OverLimit>() {
        return Value::snapshot("stopped: the trace passed its budget".to_string());
    }
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        Value::snapshot(s.to_string()).renamed::<&str>()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        Value::snapshot(s.clone())
    } else {
        Value::opaque::<Box<dyn std::any::Any + Send>>()
    }
}

/// `crate::module::f` → `f`; `<T as Tr>::m` → `m`; closures keep `{{closure}}`.
pub(crate) fn short_fn_name(path: &'static str) -> &'static str {
    let base = match path.find('<') {
        Some(i) if !path.starts_with('<') => &path[..i],
        _ => path,
    };
    base.rsplit("::").next().unwrap_or(base)
}
