//! `switch` and `while_loop`: decisions made at run time, recorded as one node each and kept as
//! decisions in a [`Program`] (autoform's `switch` and `while_loop`).
//!
//! A branch on a value that depends on a dynamic input becomes a guard in a program: inputs that
//! take the other path are refused. [`switch`] and [`while_loop`] are for decisions that must
//! stay decisions. Run untracked, they are the obvious Rust (a lookup and a call; a `while`
//! loop with a bound). Tracked, each is a nested call whose children are the traces of the
//! branch taken, or of every condition and body it ran. In a program built from the trace, each
//! is one operation that decides again at every call: `switch` picks the branch for the key it
//! is given, `while_loop` iterates until the condition fails or `max_iters` is reached.
//!
//! ```
//! use irtrack::program::{Input, Program, ReplayError};
//! use irtrack::{switch, track, tracked, while_loop, Branches, MaxItersExceeded};
//!
//! #[tracked]
//! fn short(x: f64) -> f64 {
//!     x + 1.0
//! }
//!
//! #[tracked]
//! fn long(x: f64) -> f64 {
//!     x * 100.0
//! }
//!
//! #[tracked]
//! fn routed(kind: i32, x: f64) -> f64 {
//!     let branches = Branches::new().with(0, short).with(1, long);
//!     switch(kind, &branches, (x,))
//! }
//!
//! // Recorded with `kind = 0`, replayed with `kind = 1`: the program traces `long` on first use.
//! let p = Program::from_trace(&track(routed, (0, 2.0)), &[Input::Dynamic; 2]).unwrap();
//! assert_eq!(p.call((1, 3.0)).unwrap().as_f64(), Some(routed(1, 3.0)));
//! assert!(matches!(p.call((7, 3.0)), Err(ReplayError::NoBranch { .. })));
//!
//! #[tracked]
//! fn small(x: &f64) -> bool {
//!     *x < 100.0
//! }
//!
//! #[tracked]
//! fn double(x: f64) -> f64 {
//!     x * 2.0
//! }
//!
//! #[tracked]
//! fn grow(x: f64) -> Result<f64, MaxItersExceeded> {
//!     while_loop(small, double, x, 10)
//! }
//!
//! assert_eq!(grow(30.0), Ok(120.0));
//! assert_eq!(grow(0.01), Err(MaxItersExceeded { max_iters: 10 }));
//! // Recorded after two iterations, replayed for six.
//! let p = Program::from_trace(&track(grow, (30.0,)), &[Input::Dynamic]).unwrap();
//! let out = p.call((1.6,)).unwrap();
//! assert_eq!(out.downcast_ref::<Result<f64, MaxItersExceeded>>(), Some(&grow(1.6)));
//! assert!(matches!(p.call((0.01,)), Err(ReplayError::MaxIters { max_iters: 10, .. })));
//! ```
//!
//! **What a program can replay.** The branches of a `switch` and the condition and body of a
//! `while_loop` must be `#[tracked]` functions whose bodies a program can replay (see the
//! [module docs](super)). A branch the trace did not take is traced the first time a program
//! needs it, on the argument values of that call; so is a body that never ran, and a branch,
//! condition or body whose recorded path does not fit new values (a guard fails inside it): the
//! program keeps up to 16 paths per function. Tracing one needs its arguments back as Rust
//! values: the values a program computes or is given (scalars, `String`s, vectors, and snapshot
//! types) can be; values recorded only as text cannot, and the call is a
//! [`ReplayError::Unsupported`] naming the function. The arguments of a replayed `switch` are
//! written as a tuple in the call (`switch(k, &b, (x, y))`); the state of a replayed
//! `while_loop` is one value, and its condition and body capture nothing (functions, or
//! closures without captures).
//!
//! **Errors in programs.** A key no branch has is [`ReplayError::NoBranch`] (where the Rust
//! function panics), a loop that reaches `max_iters` is [`ReplayError::MaxIters`] (where the Rust
//! function returns `Err(MaxItersExceeded)`), and a branch, condition or body that cannot be
//! replayed is [`ReplayError::Branch`] naming it.

use super::build::Input;
use super::{Origin, Program, ReplayError};
use crate::core::ids::{key_of, CalleeKey};
use crate::core::ir::StaticIr;
use crate::core::trace::Trace;
use crate::core::value::{Owned, Snapshot, Value};
use crate::record::claim::Identity;
use crate::record::frame::{Frame, RecordDebug, RecordSnapshot, RecordType};
use crate::record::session::{run, short_fn_name, track_output, Callable, Restore, RestoreOwned};
use crate::view::trace::NodeRef;
use std::any::TypeId;
use std::collections::HashMap;
use std::fmt::{self, Debug};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock, RwLock};

/// The branches of a [`switch`]: a key for each `#[tracked]` function, which all take the
/// arguments `A` (a tuple) and return an `R`.
///
/// ```
/// use irtrack::{switch, tracked, Branches};
///
/// #[tracked]
/// fn short(x: f64) -> f64 {
///     x + 1.0
/// }
///
/// #[tracked]
/// fn long(x: f64) -> f64 {
///     x * 100.0
/// }
///
/// let branches = Branches::new().with("short", short).with("long", long);
/// assert!(branches.contains(&"long"));
/// assert_eq!(switch("long", &branches, (2.0,)), 200.0);
/// assert_eq!(format!("{branches:?}"), r#"{"short": short, "long": long}"#);
/// ```
pub struct Branches<K, A, R> {
    arms: Vec<(K, Arc<dyn Arm<A, R>>)>,
}

/// A branch, its function's type erased but kept where it is called, so that the call is the
/// fn item's own (a tracked function claims a call by its fn item's type; a call through a `fn`
/// pointer would not be claimed).
trait Arm<A, R>: Send + Sync {
    fn call(&self, args: A) -> R;
    fn callee(&self) -> CalleeKey;
    fn track(&self, args: A) -> (R, Trace);
}

struct FnArm<F>(F);

impl<F, A, R> Arm<A, R> for FnArm<F>
where
    F: Callable<A, Output = R> + Copy + Send + Sync + 'static,
{
    fn call(&self, args: A) -> R {
        self.0.call_with(args)
    }

    fn callee(&self) -> CalleeKey {
        key_of(&self.0)
    }

    fn track(&self, args: A) -> (R, Trace) {
        track_output(self.0, args)
    }
}

impl<K, A, R> Branches<K, A, R> {
    /// No branches yet.
    pub fn new() -> Self {
        Branches { arms: Vec::new() }
    }

    /// Adds the branch `f` for `key`; a key given again has its branch replaced. `f` is a
    /// function (or a closure without captures) taking the arguments `A` as separate
    /// parameters: for `A = (f64, i32)`, `fn f(x: f64, n: i32) -> R`.
    pub fn with<F>(mut self, key: K, f: F) -> Self
    where
        K: PartialEq,
        F: Callable<A, Output = R> + Copy + Send + Sync + 'static,
    {
        let arm: Arc<dyn Arm<A, R>> = Arc::new(FnArm(f));
        match self.arms.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = arm,
            None => self.arms.push((key, arm)),
        }
        self
    }

    /// Whether a branch has `key`.
    pub fn contains(&self, key: &K) -> bool
    where
        K: PartialEq,
    {
        self.arms.iter().any(|(k, _)| k == key)
    }

    /// The keys, in the order they were added.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.arms.iter().map(|(k, _)| k)
    }

    /// The number of branches.
    pub fn len(&self) -> usize {
        self.arms.len()
    }

    /// Whether there is no branch.
    pub fn is_empty(&self) -> bool {
        self.arms.is_empty()
    }

    fn position(&self, key: &K) -> Option<usize>
    where
        K: PartialEq,
    {
        self.arms.iter().position(|(k, _)| k == key)
    }

    fn name(&self, arm: usize) -> &'static str {
        short_fn_name(self.arms[arm].1.callee().name)
    }
}

impl<K, A, R> Default for Branches<K, A, R> {
    fn default() -> Self {
        Branches::new()
    }
}

impl<K: Clone, A, R> Clone for Branches<K, A, R> {
    fn clone(&self) -> Self {
        Branches {
            arms: self.arms.clone(),
        }
    }
}

impl<K: Debug, A, R> Debug for Branches<K, A, R> {
    /// `{0: short, 1: long}`: each key and its function's name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, (k, _)) in self.arms.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{k:?}: {}", self.name(i))?;
        }
        f.write_str("}")
    }
}

/// A trace keeps the branches as a handle a program can call them through, without their types.
impl<K, A, R> Snapshot for Branches<K, A, R>
where
    K: PartialEq + Clone + Debug + Send + Sync + 'static,
    A: BranchArgs,
    R: Debug + 'static,
{
    fn snapshot(&self) -> Value {
        Value::snapshot(SwitchTable(Arc::new(self.clone()))).renamed::<Self>()
    }
}

/// The arguments of the branches of a [`switch`]: a tuple of up to six values, each
/// `Clone + Debug + 'static`, so that the switch can record them and a program can turn the
/// values it computes back into them to trace a branch the trace did not take. Implemented for
/// `()` and tuples; not for other types.
pub trait BranchArgs: Sized + Debug + 'static + sealed::Sealed {
    /// The number of arguments.
    const ARITY: usize;
    /// Each argument's value, as a trace records it.
    fn values(&self) -> Vec<Value>;
    /// The arguments from values; `Err(i)` names the first that is not of its type.
    fn from_values(values: &[Value]) -> Result<Self, usize>;
}

mod sealed {
    pub trait Sealed {}
}

impl sealed::Sealed for () {}

impl BranchArgs for () {
    const ARITY: usize = 0;
    fn values(&self) -> Vec<Value> {
        Vec::new()
    }
    fn from_values(_: &[Value]) -> Result<(), usize> {
        Ok(())
    }
}

macro_rules! branch_args {
    ($(($($t:ident $i:tt),+)),* $(,)?) => {$(
        impl<$($t: Clone + Debug + 'static),+> sealed::Sealed for ($($t,)+) {}
        impl<$($t: Clone + Debug + 'static),+> BranchArgs for ($($t,)+) {
            const ARITY: usize = [$($i),+].len();
            fn values(&self) -> Vec<Value> {
                vec![$(Value::text(&self.$i)),+]
            }
            fn from_values(values: &[Value]) -> Result<Self, usize> {
                Ok(($(
                    values
                        .get($i)
                        .and_then(|v| v.downcast_ref::<$t>())
                        .cloned()
                        .ok_or($i as usize)?,
                )+))
            }
        }
    )*};
}
branch_args!(
    (A 0),
    (A 0, B 1),
    (A 0, B 1, C 2),
    (A 0, B 1, C 2, D 3),
    (A 0, B 1, C 2, D 3, E 4),
    (A 0, B 1, C 2, D 3, E 4, F 5),
);

/// Runs the branch of `branches` whose key is `key` on `args`, and returns its result.
///
/// Tracked, the call is a nested node `⟨switch⟩(key, branches, args)` whose children record the
/// key, the branches, the arguments, which branch was selected (`$(select)`), each argument
/// (`$(.0)`, …) and the branch's own trace as a nested call. In a program it is one operation
/// that picks the branch again at every call (see the [module docs](self)).
///
/// ```
/// use irtrack::{switch, track, tracked, Branches};
///
/// #[tracked]
/// fn short(x: f64) -> f64 {
///     x + 1.0
/// }
///
/// #[tracked]
/// fn long(x: f64) -> f64 {
///     x * 100.0
/// }
///
/// #[tracked]
/// fn routed(kind: i32, x: f64) -> f64 {
///     let branches = Branches::new().with(0, short).with(1, long);
///     switch(kind, &branches, (x,))
/// }
///
/// assert_eq!(routed(1, 2.0), 200.0);
/// let trace = track(routed, (1, 2.0));
/// let call = trace.root().children().find(|n| n.function_name() == Some("switch")).unwrap();
/// let selected = call.children().find(|n| n.function_name() == Some("branch")).unwrap();
/// assert_eq!(selected.callee_ir().unwrap().name, "long");
/// ```
///
/// # Panics
/// When no branch has `key` (as indexing a map does); [`Branches::contains`] tells beforehand.
#[track_caller]
pub fn switch<K, A, R>(key: K, branches: &Branches<K, A, R>, args: A) -> R
where
    K: PartialEq + Clone + Debug + Send + Sync + 'static,
    A: BranchArgs,
    R: Debug + 'static,
{
    let location = std::panic::Location::caller();
    if !Frame::recording() {
        let Some(arm) = branches.position(&key) else {
            no_branch(&key, branches, location)
        };
        return branches.arms[arm].1.call(args);
    }
    // No restorer: `R` need not be a type a context can give (`Owned`), so a context cannot
    // replace a switch's result; it can replace the branch's.
    run(
        switch_ir(A::ARITY),
        None,
        || Identity::function(&switch::<K, A, R>),
        move |fr| record_switch(fr, key, branches, args, location),
    )
}

#[cold]
fn no_branch<K: Debug, A, R>(
    key: &K,
    branches: &Branches<K, A, R>,
    location: &std::panic::Location<'_>,
) -> ! {
    panic!(
        "irtrack::switch at {location}: no branch has the key {key:?}; the keys are {:?}",
        branches.keys().collect::<Vec<_>>()
    )
}

fn record_switch<K, A, R>(
    fr: &Frame,
    key: K,
    branches: &Branches<K, A, R>,
    args: A,
    location: &'static std::panic::Location<'static>,
) -> R
where
    K: PartialEq + Clone + Debug + Send + Sync + 'static,
    A: BranchArgs,
    R: Debug + 'static,
{
    RecordDebug::rec(&&fr.param(1, 0, &key));
    RecordSnapshot::rec(&&&fr.param(2, 1, branches));
    RecordDebug::rec(&&fr.param(3, 2, &args));
    let Some(arm) = branches.position(&key) else {
        no_branch(&key, branches, location)
    };
    fr.record(4, branches.name(arm), |name| {
        Value::snapshot(name.to_string()).renamed::<&str>()
    });
    for (i, v) in args.values().into_iter().enumerate() {
        fr.record(5 + i as u32, v, Value::clone);
    }
    let var = 5 + A::ARITY as u32;
    let f = &branches.arms[arm].1;
    fr.call(var, f.callee(), ());
    let out = fr.record(var, f.call(args), |r| Value::text(r));
    RecordDebug::rec(&&fr.ret(1, 1, out))
}

/// The IR of `switch` for branches of `arity` arguments:
///
/// ```text
/// 1: (%1, %2, %3)                  key, branches, arguments
///   %4 = $(select)(%2, %1)         the branch's name
///   %5 = $(.0)(%3)                 each argument
///   %6 = branch(%5)                the branch, a nested call
///   return %6
/// ```
fn switch_ir(arity: usize) -> &'static StaticIr {
    switch_irs()
        .get(arity)
        .expect("BranchArgs is implemented up to six arguments")
}

fn switch_irs() -> &'static [StaticIr] {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    static IRS: OnceLock<Vec<StaticIr>> = OnceLock::new();
    IRS.get_or_init(|| {
        let texts = TEXTS.get_or_init(|| (0..=6).map(switch_text).collect());
        texts
            .iter()
            .map(|t| StaticIr::new("switch", module_path!(), t))
            .collect()
    })
}

fn switch_text(arity: usize) -> String {
    let mut t = String::from("a|1|1|0|key||\na|1|2|0|branches||\na|1|3|0|args||\n");
    t.push_str("s|1|4|0|select|||%2|%1\n");
    for i in 0..arity {
        t.push_str(&format!("s|1|{}|0|.{i}|||%3\n", 5 + i));
    }
    let call = 5 + arity;
    t.push_str(&format!("f|1|{call}|0|branch||"));
    for i in 0..arity {
        t.push_str(&format!("|%{}", 5 + i));
    }
    t.push_str(&format!("\nr|1|1|0||||%{call}\n"));
    t
}

/// A `while_loop` that ran its body `max_iters` times and whose condition still held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MaxItersExceeded {
    /// The bound the loop was given.
    pub max_iters: usize,
}

impl fmt::Display for MaxItersExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "while_loop ran its body max_iters = {} times and its condition still holds",
            self.max_iters
        )
    }
}

impl std::error::Error for MaxItersExceeded {}

impl Owned for MaxItersExceeded {}

impl Snapshot for MaxItersExceeded {
    fn snapshot(&self) -> Value {
        Value::snapshot(*self)
    }
}

/// Runs `body` on the state, starting from `init`, while `cond` holds of it, at most
/// `max_iters` times: `Ok` with the state in which `cond` failed, or `Err` when `cond` still
/// held after `max_iters` runs of `body`. `cond` is evaluated at most `max_iters + 1` times.
///
/// `cond` takes the state by reference and `body` by value; both are functions or closures
/// without captures (`Copy + Send + Sync + 'static`). The state is a value a trace keeps a
/// clone of ([`Snapshot`] and [`Owned`]: numbers, strings, vectors, tuples of those, and types
/// deriving `irtrack::Snapshot`).
///
/// Tracked, the call is a nested node `⟨while_loop⟩(cond, body, init, max_iters)` whose children
/// are the loop written out: at each iteration the state and count as block arguments, the
/// condition as a nested call `⟨cond⟩`, the test of the count against `max_iters`, the body as a
/// nested call `⟨body⟩`. In a program it is one operation that iterates again at every call (see
/// the [module docs](self)).
///
/// ```
/// use irtrack::{track, tracked, while_loop, MaxItersExceeded};
///
/// #[tracked]
/// fn small(x: &f64) -> bool {
///     *x < 100.0
/// }
///
/// #[tracked]
/// fn double(x: f64) -> f64 {
///     x * 2.0
/// }
///
/// assert_eq!(while_loop(small, double, 30.0, 10), Ok(120.0));
/// assert_eq!(while_loop(small, double, 30.0, 1), Err(MaxItersExceeded { max_iters: 1 }));
///
/// #[tracked]
/// fn grow(x: f64) -> Result<f64, MaxItersExceeded> {
///     while_loop(small, double, x, 10)
/// }
///
/// let trace = track(grow, (30.0,));
/// let call = trace.root().children().find(|n| n.function_name() == Some("while_loop"));
/// let bodies = call.unwrap().children().filter(|n| n.function_name() == Some("body")).count();
/// assert_eq!(bodies, 2);
/// ```
///
/// # Errors
/// [`MaxItersExceeded`] when `cond` still holds after `max_iters` runs of `body`.
pub fn while_loop<S, C, B>(
    cond: C,
    body: B,
    init: S,
    max_iters: usize,
) -> Result<S, MaxItersExceeded>
where
    S: Owned + Snapshot,
    C: for<'a> Callable<(&'a S,), Output = bool> + Copy + Send + Sync + 'static,
    B: Callable<(S,), Output = S> + Copy + Send + Sync + 'static,
{
    if !Frame::recording() {
        let mut state = init;
        for _ in 0..max_iters {
            if !cond.call_with((&state,)) {
                return Ok(state);
            }
            state = body.call_with((state,));
        }
        return if cond.call_with((&state,)) {
            Err(MaxItersExceeded { max_iters })
        } else {
            Ok(state)
        };
    }
    let restore = RestoreOwned::restorer(&&&Restore::<Result<S, MaxItersExceeded>>::new());
    run(
        loop_ir(),
        restore,
        || Identity::function(&while_loop::<S, C, B>),
        move |fr| record_loop(fr, cond, body, init, max_iters),
    )
}

fn record_loop<S, C, B>(
    fr: &Frame,
    cond: C,
    body: B,
    init: S,
    max_iters: usize,
) -> Result<S, MaxItersExceeded>
where
    S: Owned + Snapshot,
    C: for<'a> Callable<(&'a S,), Output = bool> + Copy + Send + Sync + 'static,
    B: Callable<(S,), Output = S> + Copy + Send + Sync + 'static,
{
    if fr.is_active() {
        register_loop::<S, C, B>(cond, body);
    }
    RecordType::rec(&fr.param(1, 0, &cond));
    RecordType::rec(&fr.param(2, 1, &body));
    RecordSnapshot::rec(&&&fr.param(3, 2, &init));
    RecordSnapshot::rec(&&&fr.param(4, 3, &max_iters));
    fr.jump(1, 1);
    fr.block_arg(5, 0);
    RecordSnapshot::rec(&&&fr.block_value(6, &0usize));
    let mut state = init;
    let mut done = 0usize;
    loop {
        fr.call(7, key_of(&cond), ());
        let go = fr.record(7, cond.call_with((&state,)), Snapshot::snapshot);
        if !go {
            fr.jump(2, 1);
            let out = fr.record(11, Ok(state), Snapshot::snapshot);
            return RecordSnapshot::rec(&&&fr.ret(5, 1, out));
        }
        fr.jump(2, 2);
        let more = fr.record(8, fr.announce(8, done < max_iters), Snapshot::snapshot);
        if !more {
            fr.jump(3, 1);
            let out = fr.record(12, Err(MaxItersExceeded { max_iters }), Snapshot::snapshot);
            return RecordSnapshot::rec(&&&fr.ret(6, 1, out));
        }
        fr.jump(3, 2);
        fr.call(9, key_of(&body), ());
        state = fr.record(9, body.call_with((state,)), Snapshot::snapshot);
        done = fr.record(10, fr.announce(10, done + 1), Snapshot::snapshot);
        fr.jump_args(4, 1, &[5, 6]);
    }
}

/// The IR of `while_loop`, one block per step of the loop:
///
/// ```text
/// 1: (%1, %2, %3, %4)        cond, body, init, max_iters
///   br 2 (%3, 0)
/// 2: (%5, %6)                the state, the bodies run so far
///   %7 = cond(%5)
///   br 5 unless %7
///   br 3
/// 3:
///   %8 = %6 < %4
///   br 6 unless %8
///   br 4
/// 4:
///   %9 = body(%5)
///   %10 = %6 + 1
///   br 2 (%9, %10)
/// 5:
///   %11 = $(Ok)(%5)
///   return %11
/// 6:
///   %12 = $(Err)(%4)
///   return %12
/// ```
fn loop_ir() -> &'static StaticIr {
    static IR: StaticIr = StaticIr::new(
        "while_loop",
        module_path!(),
        "a|1|1|0|cond||\na|1|2|0|body||\na|1|3|0|init||\na|1|4|0|max_iters||\n\
         j|1|1|2||||%3|'0\na|2|5|0|state||\na|2|6|0|done||\n\
         f|2|7|0|cond|||%5\nu|2|1|5||%7|\nj|2|2|3|||%7\n\
         o|3|8|0|<|||%6|%4\nu|3|1|6||%8|\nj|3|2|4|||%8\n\
         f|4|9|0|body|||%5\no|4|10|0|+|||%6|'1\nj|4|1|2||||%9|%10\n\
         s|5|11|0|Ok|||%5\nr|5|1|0||||%11\n\
         s|6|12|0|Err|||%4\nr|6|1|0||||%12\n",
    );
    &IR
}

/// What a program needs of a `while_loop`'s condition and body, their types erased.
pub(crate) trait LoopFns: Send + Sync {
    fn names(&self) -> (&'static str, &'static str);
    /// Traces the condition on `state`: its result and trace.
    fn track_cond(&self, state: &Value) -> Result<(Value, Trace), String>;
    /// Traces the body on `state`: its result and trace.
    fn track_body(&self, state: &Value) -> Result<(Value, Trace), String>;
    /// `Ok(state)`, as the loop returns it.
    fn ok(&self, state: &Value) -> Result<Value, String>;
}

struct LoopOf<S, C, B> {
    cond: C,
    body: B,
    state: PhantomData<fn() -> S>,
}

impl<S, C, B> LoopOf<S, C, B>
where
    S: Owned + Snapshot,
{
    fn state(value: &Value) -> Result<&S, String> {
        value.downcast_ref::<S>().ok_or_else(|| {
            format!(
                "its state is a `{}` here, which irtrack cannot turn back into a `{}`",
                value.type_name(),
                std::any::type_name::<S>()
            )
        })
    }
}

impl<S, C, B> LoopFns for LoopOf<S, C, B>
where
    S: Owned + Snapshot,
    C: for<'a> Callable<(&'a S,), Output = bool> + Copy + Send + Sync + 'static,
    B: Callable<(S,), Output = S> + Copy + Send + Sync + 'static,
{
    fn names(&self) -> (&'static str, &'static str) {
        (
            short_fn_name(key_of(&self.cond).name),
            short_fn_name(key_of(&self.body).name),
        )
    }

    fn track_cond(&self, state: &Value) -> Result<(Value, Trace), String> {
        let s = Self::state(state)?;
        let (go, trace) = track_output(self.cond, (s,));
        Ok((go.snapshot(), trace))
    }

    fn track_body(&self, state: &Value) -> Result<(Value, Trace), String> {
        let s = Self::state(state)?.clone();
        let (next, trace) = track_output(self.body, (s,));
        Ok((next.snapshot(), trace))
    }

    fn ok(&self, state: &Value) -> Result<Value, String> {
        let s = Self::state(state)?.clone();
        Ok(Ok::<S, MaxItersExceeded>(s).snapshot())
    }
}

type LoopRegistry = RwLock<HashMap<TypeId, Arc<dyn LoopFns>>>;

/// The loops recorded so far, by the type of their `while_loop::<S, C, B>`: the type is the
/// loop's identity, since only condition and body functions without captures (zero-sized) are
/// registered, and a zero-sized type has one value.
fn loops() -> &'static LoopRegistry {
    static LOOPS: OnceLock<LoopRegistry> = OnceLock::new();
    LOOPS.get_or_init(Default::default)
}

fn register_loop<S, C, B>(cond: C, body: B)
where
    S: Owned + Snapshot,
    C: for<'a> Callable<(&'a S,), Output = bool> + Copy + Send + Sync + 'static,
    B: Callable<(S,), Output = S> + Copy + Send + Sync + 'static,
{
    if std::mem::size_of::<C>() != 0 || std::mem::size_of::<B>() != 0 {
        return;
    }
    let id = key_of(&while_loop::<S, C, B>).id;
    if loops()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .contains_key(&id)
    {
        return;
    }
    let fns: Arc<dyn LoopFns> = Arc::new(LoopOf::<S, C, B> {
        cond,
        body,
        state: PhantomData,
    });
    loops()
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id, fns);
}

/// What a program needs of a `switch`'s branches, their types erased.
pub(crate) trait Table: Send + Sync {
    fn describe(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    fn len(&self) -> usize;
    /// The branch for `key`; `Err` when the key's type is not the branches' key type.
    fn select(&self, key: &Value) -> Result<Option<usize>, String>;
    fn name(&self, arm: usize) -> &'static str;
    /// Traces branch `arm` on `args`: its result and trace.
    fn track(&self, arm: usize, args: &[Value]) -> Result<(Value, Trace), String>;
}

impl<K, A, R> Table for Branches<K, A, R>
where
    K: PartialEq + Clone + Debug + Send + Sync + 'static,
    A: BranchArgs,
    R: Debug + 'static,
{
    fn describe(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Debug::fmt(self, f)
    }

    fn len(&self) -> usize {
        self.arms.len()
    }

    fn select(&self, key: &Value) -> Result<Option<usize>, String> {
        if let Some(k) = key.downcast_ref::<K>() {
            return Ok(self.position(k));
        }
        // A string key given as another string type (`&str` for `String`) is compared by its
        // text, which for strings is the value; no other type is compared by text.
        if is_string(key.type_name()) && is_string(std::any::type_name::<K>()) {
            let text = key.to_string();
            return Ok(self.arms.iter().position(|(k, _)| format!("{k:?}") == text));
        }
        Err(format!(
            "the key is a `{}`, and the branches' keys are `{}`",
            key.type_name(),
            std::any::type_name::<K>()
        ))
    }

    fn name(&self, arm: usize) -> &'static str {
        Branches::name(self, arm)
    }

    fn track(&self, arm: usize, args: &[Value]) -> Result<(Value, Trace), String> {
        let a = A::from_values(args).map_err(|i| {
            format!(
                "argument {} of `{}` is a `{}` (`{}`) here, which irtrack cannot turn back into \
                 the type the branch takes; pass values a program computes or is given (numbers, \
                 `String`s, vectors, snapshot types)",
                i + 1,
                self.name(arm),
                args.get(i).map_or("nothing", |v| v.type_name()),
                args.get(i).map_or(String::new(), |v| v.to_string()),
            )
        })?;
        let (out, trace) = self.arms[arm].1.track(a);
        Ok((Value::text(&out), trace))
    }
}

fn is_string(type_name: &str) -> bool {
    matches!(
        super::run::referent(type_name),
        "str" | "String" | "alloc::string::String"
    )
}

/// The branches a trace keeps, callable by a program.
#[derive(Clone)]
pub(crate) struct SwitchTable(pub(crate) Arc<dyn Table>);

impl Debug for SwitchTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.describe(f)
    }
}

/// Which control-flow function a nested call ran, known by the identity of its IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ControlKind {
    Switch { arity: usize },
    Loop,
}

impl ControlKind {
    /// What `n` calls, if it is a `switch` or a `while_loop`.
    ///
    /// # Errors
    /// A call of one whose IR is not this process's own (a trace read from JSON): its
    /// branches are not functions a program can call.
    pub(crate) fn of(n: NodeRef<'_>) -> Result<Option<ControlKind>, ReplayError> {
        let Some(ir) = n.callee_ir() else {
            return Ok(None);
        };
        if std::ptr::eq(ir, loop_ir().get()) {
            return Ok(Some(ControlKind::Loop));
        }
        if let Some(arity) = switch_irs().iter().position(|s| std::ptr::eq(ir, s.get())) {
            return Ok(Some(ControlKind::Switch { arity }));
        }
        if ir.module == module_path!() && matches!(ir.name.as_str(), "switch" | "while_loop") {
            return Err(ReplayError::Unsupported {
                at: super::build::origin(n),
                reason: format!(
                    "a `{}` read back from a file: its functions are not this program's; build \
                     the program from the trace `track` recorded",
                    ir.name
                ),
            });
        }
        Ok(None)
    }
}

/// A `switch` or `while_loop` in a program: the decision, made again at every call, and the
/// programs of the functions it runs.
pub(crate) enum Control {
    Switch {
        table: SwitchTable,
        arms: Vec<Paths>,
    },
    Loop {
        fns: Arc<dyn LoopFns>,
        cond: Paths,
        body: Paths,
    },
}

impl fmt::Display for Control {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Control::Switch { table, .. } => write!(f, "switch{table:?}"),
            Control::Loop { fns, .. } => {
                let (c, b) = fns.names();
                write!(f, "while_loop[{c}, {b}]")
            }
        }
    }
}

impl Debug for Control {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The most paths a program keeps for one function of a `switch` or `while_loop`.
const MAX_PATHS: usize = 16;

/// The programs of one function's paths, tried in order.
pub(crate) struct Paths {
    programs: RwLock<Vec<Arc<Program>>>,
    /// The function's arguments: static where the caller passes a constant, so that what
    /// depends only on it is folded (a field of a struct argument).
    inputs: Vec<Input>,
}

impl Paths {
    fn new(inputs: Vec<Input>, known: Option<Program>) -> Paths {
        Paths {
            programs: RwLock::new(known.into_iter().map(Arc::new).collect()),
            inputs,
        }
    }

    /// Runs the first path that fits `args`; when none does (or none is known yet), traces the
    /// function on them (`retrace`): the value of that run is the result, and its path is kept.
    fn run(
        &self,
        args: Vec<Value>,
        function: &str,
        at: &Origin,
        retrace: impl FnOnce() -> Result<(Value, Trace), String>,
    ) -> Result<Value, ReplayError> {
        let inside = |error: ReplayError| ReplayError::Branch {
            at: at.clone(),
            function: function.to_string(),
            error: Box::new(error),
        };
        let known = self
            .programs
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let mut missed = None;
        for p in &known {
            match p.call_passed(args.clone()) {
                Ok(v) => return Ok(v),
                Err(e @ ReplayError::Guard { .. }) => missed = Some(e),
                Err(e) => return Err(inside(e)),
            }
        }
        if known.len() >= MAX_PATHS {
            if let Some(e) = missed {
                return Err(inside(e));
            }
        }
        let (value, trace) = retrace().map_err(|reason| ReplayError::Unsupported {
            at: at.clone(),
            reason: format!("`{function}` cannot be traced: {reason}"),
        })?;
        let p = Program::from_trace(&trace, &self.inputs).map_err(inside)?;
        self.programs
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arc::new(p));
        Ok(value)
    }
}

/// The program of the function a control call ran at `call` (a nested call of a tracked
/// function).
fn path_of(
    call: NodeRef<'_>,
    inputs: &[Input],
    function: &str,
    at: &Origin,
) -> Result<Program, ReplayError> {
    Program::from_call(call.trace(), call, inputs).map_err(|error| ReplayError::Branch {
        at: at.clone(),
        function: function.to_string(),
        error: Box::new(error),
    })
}

impl Control {
    /// The `switch` recorded at `n` (children `kids`): its branches and the program of the
    /// branch taken, whose arguments are `inputs`.
    pub(crate) fn switch(
        n: NodeRef<'_>,
        kids: &[NodeRef<'_>],
        inputs: Vec<Input>,
    ) -> Result<Control, ReplayError> {
        let arity = inputs.len();
        let at = super::build::origin(n);
        let unsupported = |reason: &str| ReplayError::Unsupported {
            at: at.clone(),
            reason: reason.to_string(),
        };
        let table = kids
            .get(1)
            .and_then(|k| k.raw_value().downcast_ref::<SwitchTable>().cloned())
            .ok_or_else(|| unsupported("the branches of the `switch` were not recorded"))?;
        let taken = kids
            .first()
            .map(|k| table.0.select(&k.raw_value()))
            .transpose()
            .map_err(|r| unsupported(&r))?
            .flatten()
            .ok_or_else(|| unsupported("the recorded key has no branch"))?;
        let name = table.0.name(taken);
        let call = kids
            .get(4 + arity)
            .copied()
            .ok_or_else(|| unsupported("the branch's call was not recorded"))?;
        let program = path_of(call, &inputs, name, &at)?;
        let arms = (0..table.0.len())
            .map(|i| Paths::new(inputs.clone(), (i == taken).then(|| program.clone())))
            .collect();
        Ok(Control::Switch { table, arms })
    }

    /// The `while_loop` recorded at `n` (children `kids`): its functions and the programs of
    /// the first condition and body it ran.
    pub(crate) fn while_loop(n: NodeRef<'_>, kids: &[NodeRef<'_>]) -> Result<Control, ReplayError> {
        let at = super::build::origin(n);
        let callee = n.trace().store.nested_callee(n.id());
        let fns = callee
            .and_then(|id| {
                loops()
                    .read()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(&id)
                    .cloned()
            })
            .ok_or_else(|| ReplayError::Unsupported {
                at: at.clone(),
                reason: "the condition or the body of the `while_loop` is a closure that \
                         captures variables: pass functions (or closures without captures), \
                         and what they need in the state"
                    .into(),
            })?;
        let (cond_name, body_name) = fns.names();
        let first = |var: u32| {
            kids.iter()
                .find(|k| k.location().and_then(|l| l.slot.var()) == Some(var))
                .copied()
        };
        let state = [Input::Dynamic];
        let cond = first(7)
            .map(|c| path_of(c, &state, cond_name, &at))
            .transpose()?;
        let body = first(9)
            .map(|c| path_of(c, &state, body_name, &at))
            .transpose()?;
        Ok(Control::Loop {
            fns,
            cond: Paths::new(state.to_vec(), cond),
            body: Paths::new(state.to_vec(), body),
        })
    }

    /// Runs the decision on `args`: a switch's key and its branch's arguments; a loop's
    /// initial state and `max_iters`.
    pub(crate) fn run(&self, args: &[Value], at: &Origin) -> Result<Value, ReplayError> {
        match self {
            Control::Switch { table, arms } => {
                let (key, args) = args.split_first().ok_or(ReplayError::Arity {
                    expected: 1,
                    got: 0,
                })?;
                let arm = table
                    .0
                    .select(key)
                    .map_err(|reason| ReplayError::Unsupported {
                        at: at.clone(),
                        reason,
                    })?
                    .ok_or_else(|| ReplayError::NoBranch {
                        at: at.clone(),
                        key: key.to_string(),
                    })?;
                let name = table.0.name(arm);
                arms[arm].run(args.to_vec(), name, at, || table.0.track(arm, args))
            }
            Control::Loop { fns, cond, body } => {
                let (cond_name, body_name) = fns.names();
                let mut state = args.first().cloned().unwrap_or(Value::UNIT);
                let max_iters = args
                    .get(1)
                    .and_then(Value::as_i64)
                    .and_then(|m| usize::try_from(m).ok())
                    .ok_or_else(|| ReplayError::Eval {
                        at: at.clone(),
                        error: crate::core::eval::EvalError::Type {
                            operand: 3,
                            expected: "a `usize`".into(),
                            got: args.get(1).map_or("nothing", |v| v.type_name()).into(),
                        },
                    })?;
                for done in 0.. {
                    let go = cond.run(vec![state.clone()], cond_name, at, || {
                        fns.track_cond(&state)
                    })?;
                    let Some(&go) = go.downcast_ref::<bool>() else {
                        return Err(ReplayError::Unsupported {
                            at: at.clone(),
                            reason: format!("`{cond_name}` gave a `{}`", go.type_name()),
                        });
                    };
                    if !go {
                        break;
                    }
                    if done == max_iters {
                        return Err(ReplayError::MaxIters {
                            at: at.clone(),
                            max_iters,
                        });
                    }
                    state = body.run(vec![state.clone()], body_name, at, || {
                        fns.track_body(&state)
                    })?;
                }
                fns.ok(&state).map_err(|reason| ReplayError::Unsupported {
                    at: at.clone(),
                    reason,
                })
            }
        }
    }

    /// Whether this is a `while_loop`, whose value is always an `Ok` in a program.
    pub(crate) fn is_loop(&self) -> bool {
        matches!(self, Control::Loop { .. })
    }
}
