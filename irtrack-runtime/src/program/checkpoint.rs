//! Checkpoints: named values a computation passes through, which a caller can collect or
//! replace, the same way in plain Rust, under `track`, and in [`Program::call`](super::Program::call)
//! (autoform's `checkpoint`/`collect`; `inject` replaces).
//!
//! ```
//! use irtrack::program::{checkpoint, collect, inject, Checkpoints, Input, Program};
//! use irtrack::{track, tracked, Value};
//!
//! #[tracked]
//! fn scaled(x: f64) -> f64 {
//!     let y = checkpoint(x * 2.0, "doubled", "debug");
//!     y + 1.0
//! }
//!
//! // Plain Rust.
//! let (out, seen) = collect("debug", || scaled(3.0));
//! assert_eq!(out, 7.0);
//! assert_eq!(seen["doubled"][0].as_f64(), Some(6.0));
//!
//! // A program built from a trace runs its checkpoints at every call.
//! let p = Program::from_trace(&track(scaled, (1.0,)), &[Input::Dynamic]).unwrap();
//! let (out, seen) = collect("debug", || p.call((5.0,)).unwrap());
//! assert_eq!(out.as_f64(), Some(11.0));
//! assert_eq!(seen["doubled"][0].as_f64(), Some(10.0));
//!
//! // Injected values replace what the checkpoint would pass on.
//! let values = Checkpoints::from([("doubled", vec![Value::snapshot(100.0)])]);
//! assert_eq!(inject("debug", values.clone(), || scaled(3.0)), 101.0);
//! let out = inject("debug", values, || p.call((5.0,)).unwrap());
//! assert_eq!(out.as_f64(), Some(101.0));
//! ```

use crate::core::eval::{register_forward, EvalError, Forward};
use crate::core::ids::{key_of, CalleeKey};
use crate::core::value::{Snapshot, Value};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, OnceLock, RwLock};

/// The values checkpoints passed, by key, each key's in execution order: what
/// [`collect`] returns and [`inject`] takes.
#[derive(Clone, Debug, Default)]
pub struct Checkpoints(BTreeMap<String, Vec<Value>>);

impl Checkpoints {
    /// The values of the checkpoints named `key`, in the order they ran (empty if none ran).
    pub fn get(&self, key: &str) -> &[Value] {
        self.0.get(key).map_or(&[], Vec::as_slice)
    }

    /// The keys that have values, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    /// Whether no checkpoint ran.
    pub fn is_empty(&self) -> bool {
        self.0.values().all(Vec::is_empty)
    }

    /// Adds a value for `key`, after the ones it has.
    pub fn push(&mut self, key: impl Into<String>, value: Value) {
        self.0.entry(key.into()).or_default().push(value);
    }
}

impl std::ops::Index<&str> for Checkpoints {
    type Output = [Value];

    /// The values of `key`; empty when no checkpoint of that key ran.
    fn index(&self, key: &str) -> &[Value] {
        self.get(key)
    }
}

impl<K: Into<String>, const N: usize> From<[(K, Vec<Value>); N]> for Checkpoints {
    fn from(pairs: [(K, Vec<Value>); N]) -> Checkpoints {
        Checkpoints(pairs.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }
}

enum Scope {
    Collect {
        collection: String,
        seen: Checkpoints,
    },
    Inject {
        collection: String,
        /// Each key's values, and how many checkpoints of the key took one.
        values: BTreeMap<String, (Vec<Value>, usize)>,
    },
}

thread_local! {
    static SCOPES: RefCell<Vec<Scope>> = const { RefCell::new(Vec::new()) };
}

/// Pops the scope it pushed, also when `f` panics.
struct Pop;

impl Drop for Pop {
    fn drop(&mut self) {
        SCOPES.with(|s| s.borrow_mut().pop());
    }
}

/// Runs `f`, collecting the values of every checkpoint of `collection` that runs inside it
/// (in plain code, tracked code, or a program call), and returns `f`'s result with them.
/// Collections nest: every enclosing `collect` of the collection sees a value.
pub fn collect<R>(collection: &str, f: impl FnOnce() -> R) -> (R, Checkpoints) {
    SCOPES.with(|s| {
        s.borrow_mut().push(Scope::Collect {
            collection: collection.to_string(),
            seen: Checkpoints::default(),
        })
    });
    let pop = Pop;
    let out = f();
    let scope = SCOPES.with(|s| s.borrow_mut().pop());
    std::mem::forget(pop);
    match scope {
        Some(Scope::Collect { seen, .. }) => (out, seen),
        _ => (out, Checkpoints::default()),
    }
}

/// Runs `f` with the checkpoints of `collection` returning `values` instead of their own: the
/// `i`-th checkpoint of a key that runs returns that key's `i`-th value; a key without (more)
/// values passes its value on. The innermost `inject` of a collection decides.
///
/// # Panics
/// A checkpoint in plain or tracked code panics when the value injected is not of its type.
pub fn inject<R>(collection: &str, values: Checkpoints, f: impl FnOnce() -> R) -> R {
    SCOPES.with(|s| {
        s.borrow_mut().push(Scope::Inject {
            collection: collection.to_string(),
            values: values.0.into_iter().map(|(k, v)| (k, (v, 0))).collect(),
        })
    });
    let _pop = Pop;
    f()
}

/// What a checkpoint passes on: an injected value if an enclosing `inject` has one for it,
/// else `value`; every enclosing `collect` of the collection records what is passed on.
fn pass(value: Value, key: &str, collection: &str) -> Value {
    SCOPES.with(|s| {
        let mut scopes = s.borrow_mut();
        let injected = scopes.iter_mut().rev().find_map(|scope| match scope {
            Scope::Inject {
                collection: c,
                values,
            } if c == collection => Some(values.get_mut(key).and_then(|(v, taken)| {
                let next = v.get(*taken).cloned();
                *taken += next.is_some() as usize;
                next
            })),
            _ => None,
        });
        let out = injected.flatten().unwrap_or(value);
        for scope in scopes.iter_mut() {
            if let Scope::Collect {
                collection: c,
                seen,
            } = scope
            {
                if c == collection {
                    seen.push(key, out.clone());
                }
            }
        }
        out
    })
}

/// Where each active [`collect`] and [`inject`] of this thread stands: how many values each
/// key has collected, or has taken of those injected.
pub(crate) struct Mark(Vec<BTreeMap<String, usize>>);

/// The current [`Mark`], when a `collect` or `inject` is active.
pub(crate) fn mark() -> Option<Mark> {
    SCOPES.with(|s| {
        let scopes = s.borrow();
        (!scopes.is_empty()).then(|| {
            Mark(
                scopes
                    .iter()
                    .map(|scope| match scope {
                        Scope::Collect { seen, .. } => {
                            seen.0.iter().map(|(k, v)| (k.clone(), v.len())).collect()
                        }
                        Scope::Inject { values, .. } => values
                            .iter()
                            .map(|(k, (_, taken))| (k.clone(), *taken))
                            .collect(),
                    })
                    .collect(),
            )
        })
    })
}

/// Puts the active `inject`s where `mark` found them, and, when `collected`, the active
/// `collect`s too (the values collected since are dropped).
fn restore(mark: &Mark, collected: bool) {
    SCOPES.with(|s| {
        let mut scopes = s.borrow_mut();
        // An attempt pushes and pops its own scopes (`Pop`, also on a panic): the stack is the
        // one marked.
        if scopes.len() != mark.0.len() {
            debug_assert!(false, "the checkpoint scopes changed during an attempt");
            return;
        }
        for (scope, at) in scopes.iter_mut().zip(&mark.0) {
            match scope {
                Scope::Collect { seen, .. } if collected => {
                    seen.0.retain(|k, _| at.contains_key(k));
                    for (k, v) in seen.0.iter_mut() {
                        if let Some(&n) = at.get(k) {
                            v.truncate(n);
                        }
                    }
                }
                Scope::Collect { .. } => {}
                // Its keys are the ones it was given, every one of them marked.
                Scope::Inject { values, .. } => {
                    for (k, &n) in at {
                        if let Some((_, taken)) = values.get_mut(k) {
                            *taken = n;
                        }
                    }
                }
            }
        }
    })
}

/// Runs `check`, a second run of what ran since `from` (a program checked against the run of
/// the function it was traced from), as that run: the active [`inject`]s give it the values
/// they gave since `from`, and afterwards everything is as before it (no value collected
/// twice, none injected twice).
pub(crate) fn again<T>(from: &Option<Mark>, check: impl FnOnce() -> T) -> T {
    let (Some(from), Some(after)) = (from, mark()) else {
        return check();
    };
    restore(from, false);
    let out = check();
    restore(&after, true);
    out
}

/// Runs `evaluate`, a computation on the model that is not a run of it (a score or a gradient
/// at another point), with the active [`inject`]s giving what they give now and everything as
/// before afterwards: nothing injected is taken, nothing is collected.
#[cfg_attr(not(feature = "ppl"), allow(dead_code))]
pub(crate) fn aside<T>(evaluate: impl FnOnce() -> T) -> T {
    again(&mark(), evaluate)
}

/// Runs `attempt`; where it fails, undoes what it did to the active [`collect`]s and
/// [`inject`]s. An attempt that fails is not a run of the function: a program that leaves its
/// path at a guard, an update in place that finds a branch changed, is followed by another
/// attempt (another path, a run of the function), which must find the values injected as the
/// function would and leave one value collected per checkpoint that ran (a failed path read
/// an injected value, and the run after it read the next one or none).
pub(crate) fn attempt<T, E>(attempt: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    let Some(at) = mark() else {
        return attempt();
    };
    let out = attempt();
    if out.is_err() {
        restore(&at, true);
    }
    out
}

/// Runs `attempt`, which gives `None` where it could not do its work and left it to another
/// way; then undoes what it did to the active `collect`s and `inject`s, as [`attempt`] does.
#[cfg_attr(not(feature = "ppl"), allow(dead_code))]
pub(crate) fn attempt_or_leave<T>(attempt: impl FnOnce() -> Option<T>) -> Option<T> {
    self::attempt(|| attempt().ok_or(())).ok()
}

fn active() -> bool {
    SCOPES.with(|s| !s.borrow().is_empty())
}

/// Whether an [`inject`] is active on this thread: a checkpoint may then pass on a value
/// that is not the one it was given, even one equal to it.
fn injecting() -> bool {
    SCOPES.with(|s| s.borrow().iter().any(|s| matches!(s, Scope::Inject { .. })))
}

/// Passes `value` on, named `key` in `collection`: returns `value`, or what an enclosing
/// [`inject`] gives for it, and shows it to every enclosing [`collect`] of `collection`. In a
/// program built from a trace, a checkpoint runs at every call, also when its value depends
/// only on static inputs. Costs one thread-local read when no `collect` or `inject` is active.
///
/// # Panics
/// When an injected value is not a `T`.
pub fn checkpoint<T: Snapshot + Clone + 'static>(value: T, key: &str, collection: &str) -> T {
    if crate::record::frame::Frame::recording() {
        register_checkpoint(key_of(&checkpoint::<T>));
        // The trace cannot tell an injected value from the one given: it notes that one may be.
        if injecting() {
            crate::core::eval::note_injected();
        }
    }
    if !active() {
        return value;
    }
    let out = pass(value.snapshot(), key, collection);
    match out.downcast_ref::<T>() {
        Some(v) => v.clone(),
        None => panic!(
            "the value injected for checkpoint `{key}` of `{collection}` is a `{}`, not a `{}`",
            out.type_name(),
            std::any::type_name::<T>()
        ),
    }
}

/// Makes the checkpoint of one type re-executable in programs, once.
fn register_checkpoint(key: CalleeKey) {
    static SEEN: OnceLock<RwLock<HashSet<std::any::TypeId>>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    if seen
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&key.id)
    {
        return;
    }
    seen.write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key.id);
    let forward: Arc<Forward> = Arc::new(|args: &[Value]| {
        let text = |i: usize| -> Result<String, EvalError> {
            let v = args.get(i).ok_or(EvalError::Arity {
                expected: 3,
                got: args.len(),
            })?;
            // A key or collection name is matched as the string it is; its `Debug` text
            // (escaped) would silently match nothing. A `&str` recorded as that text (a
            // `const K: &str` read where its type may still be open) is read back as the string
            // literal `Debug` writes, escapes included, which is exact.
            let literal = || {
                let string = v.type_id() == Some(typeid::of::<&str>())
                    || v.type_id() == Some(typeid::of::<String>());
                (v.is_text() && string)
                    .then(|| crate::core::literal::value(&v.to_string()))
                    .and_then(|l| l.downcast_ref::<String>().cloned())
            };
            v.downcast_ref::<String>()
                .cloned()
                .or_else(literal)
                .ok_or_else(|| {
                    EvalError::Domain(format!(
                        "the {} of a checkpoint was recorded as `{v}`, not as a string, so it \
                     cannot be matched",
                        if i == 1 { "key" } else { "collection" }
                    ))
                })
        };
        let value = args.first().cloned().ok_or(EvalError::Arity {
            expected: 3,
            got: 0,
        })?;
        let (key, collection) = (text(1)?, text(2)?);
        let out = pass(value.clone(), &key, &collection);
        // The function panics on a value of another type (`checkpoint`): a program must not
        // return it.
        if !out.by_value().same_type(&value.by_value()) {
            return Err(EvalError::Domain(format!(
                "the value injected for checkpoint `{key}` of `{collection}` is a `{}`, not a \
                 `{}` (the function panics here)",
                out.type_name(),
                value.type_name()
            )));
        }
        Ok(out)
    });
    register_forward(key, forward, true);
}
