//! Programs that grow a path when a guard fails: [`Retracking`] keeps the Rust function a
//! program was traced from, and [`call_or_retrack`](Retracking::call_or_retrack) tracks it again
//! on a call's arguments when they take a path the program does not have yet.
//!
//! A [`Program`] replays one path and fails with [`ReplayError::Guard`] where new inputs leave
//! it. A `Retracking` holds a **tree of paths keyed by guard outcomes**: its first path is the
//! traced one; when path `p` fails at guard `g` and the call asks for it, the function is
//! tracked on the call's arguments, the new trace becomes a program (with the same
//! [`Input`] mask), and it is linked under `p` at `g`. A later call that fails at `g` of `p`
//! goes straight to that path, and so on down the tree; every path still checks all of its
//! own guards, so a result comes only from a path whose every branch the inputs take. The
//! number of paths is capped ([`DEFAULT_MAX_PATHS`] unless [`max_paths`](Retracking::max_paths)
//! says otherwise): a call that would need one more is [`ReplayError::TooManyPaths`], naming the
//! guard that failed.
//!
//! ```
//! use irtrack::program::{Input, ReplayError, Retracking};
//! use irtrack::tracked;
//!
//! #[tracked]
//! fn relu_sum(x: f64, n: i32) -> f64 {
//!     let mut acc = if x > 0.0 { x } else { 0.0 };
//!     let mut i = 0;
//!     while i < n {
//!         acc += x * 0.5;
//!         i += 1;
//!     }
//!     acc
//! }
//!
//! let mut r = Retracking::track(relu_sum, (1.0, 2), &[Input::Dynamic, Input::Dynamic]).unwrap();
//! // The recorded path: x > 0, two iterations.
//! assert_eq!(r.call((3.0, 2)).unwrap().as_f64(), Some(relu_sum(3.0, 2)));
//! // Another path: `call` fails on the guard, `call_or_retrack` tracks it and keeps it.
//! assert!(matches!(r.call((-1.0, 2)), Err(ReplayError::Guard { .. })));
//! assert_eq!(r.call_or_retrack((-1.0, 2)).unwrap().as_f64(), Some(relu_sum(-1.0, 2)));
//! assert_eq!(r.paths(), 2);
//! assert_eq!(r.call((-4.0, 2)).unwrap().as_f64(), Some(relu_sum(-4.0, 2)));
//! ```

use super::build::Input;
use super::update::Arguments;
use super::{Program, ReplayError};
use crate::core::ids::NodeId;
use crate::core::value::Value;
use crate::record::session::{track_output, Callable};
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;

/// How many paths a [`Retracking`] keeps unless [`Retracking::max_paths`] sets another cap: as
/// many as a `switch` or `while_loop` keeps per function ([`control`](super::control)).
pub const DEFAULT_MAX_PATHS: usize = 16;

/// One path of the tree: its program, and the paths traced where one of its guards failed.
#[derive(Clone, Debug)]
struct Path {
    program: Program,
    /// By the guard's branch node in the trace this path was built from.
    next: HashMap<NodeId, usize>,
    /// The path this one was traced from, and at which guard; `None` for the first.
    parent: Option<(usize, NodeId)>,
}

/// A program that keeps its Rust function and grows a path where a guard fails (see the
/// [module docs](self)).
pub struct Retracking<F, A> {
    f: F,
    inputs: Vec<Input>,
    paths: Vec<Path>,
    max_paths: usize,
    _args: PhantomData<fn(A)>,
}

impl<F, A> fmt::Debug for Retracking<F, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Retracking")
            .field("inputs", &self.inputs)
            .field("paths", &self.paths.len())
            .field("max_paths", &self.max_paths)
            .finish_non_exhaustive()
    }
}

impl<F, A> Retracking<F, A>
where
    F: Callable<A> + Clone,
    A: Arguments,
{
    /// Tracks `f` on `args` and builds the first path's program with `inputs` (one per
    /// argument, as [`Program::from_trace`] takes them). A panic in `f` propagates, as in
    /// [`track`](crate::track).
    ///
    /// ```
    /// use irtrack::program::{Input, Retracking};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 { x.sin() }
    ///
    /// let r = Retracking::track(f, (1.0,), &[Input::Dynamic]).unwrap();
    /// assert_eq!(r.paths(), 1);
    /// assert_eq!(r.call((2.0,)).unwrap().as_f64(), Some(2f64.sin()));
    /// ```
    ///
    /// # Errors
    /// As [`Program::from_trace`]: the path cannot be replayed.
    pub fn track(f: F, args: A, inputs: &[Input]) -> Result<Self, ReplayError> {
        let (_, trace) = track_output(f.clone(), args);
        let program = Program::from_trace(&trace, inputs)?;
        Ok(Retracking {
            f,
            inputs: inputs.to_vec(),
            paths: vec![Path {
                program,
                next: HashMap::new(),
                parent: None,
            }],
            max_paths: DEFAULT_MAX_PATHS,
            _args: PhantomData,
        })
    }

    /// Sets the most paths the tree may hold (at least 1; [`DEFAULT_MAX_PATHS`] unless set).
    ///
    /// ```
    /// use irtrack::program::{Input, ReplayError, Retracking};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn sign(x: f64) -> f64 { if x > 0.0 { 1.0 } else { -1.0 } }
    ///
    /// let mut r = Retracking::track(sign, (1.0,), &[Input::Dynamic]).unwrap().max_paths(1);
    /// let e = r.call_or_retrack((-1.0,)).unwrap_err();
    /// assert!(matches!(e, ReplayError::TooManyPaths { max_paths: 1, .. }), "{e}");
    /// ```
    pub fn max_paths(mut self, max_paths: usize) -> Self {
        self.max_paths = max_paths.max(1);
        self
    }

    /// The number of paths traced so far.
    ///
    /// ```
    /// use irtrack::program::{Input, Retracking};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn sign(x: f64) -> f64 { if x > 0.0 { 1.0 } else { -1.0 } }
    ///
    /// let mut r = Retracking::track(sign, (1.0,), &[Input::Dynamic]).unwrap();
    /// r.call_or_retrack((-1.0,)).unwrap();
    /// assert_eq!(r.paths(), 2);
    /// ```
    pub fn paths(&self) -> usize {
        self.paths.len()
    }

    /// The paths' programs, in the order they were traced (the first is the one
    /// [`track`](Retracking::track) recorded).
    ///
    /// ```
    /// use irtrack::program::{Input, Retracking};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn sign(x: f64) -> f64 { if x > 0.0 { 1.0 } else { -1.0 } }
    ///
    /// let mut r = Retracking::track(sign, (1.0,), &[Input::Dynamic]).unwrap();
    /// r.call_or_retrack((-1.0,)).unwrap();
    /// assert!(r.programs().all(|p| p.guards() == 1));
    /// ```
    pub fn programs(&self) -> impl ExactSizeIterator<Item = &Program> + '_ {
        self.paths.iter().map(|p| &p.program)
    }

    /// Where path `k` (from 0, as [`programs`](Retracking::programs) orders them) hangs in the
    /// tree: the path it was traced from and the guard of that path which failed (its
    /// [`Origin`](super::Origin)'s node); `None` for the first path and past the last.
    ///
    /// ```
    /// use irtrack::program::{Input, Retracking};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn sign(x: f64) -> f64 { if x > 0.0 { 1.0 } else { -1.0 } }
    ///
    /// let mut r = Retracking::track(sign, (1.0,), &[Input::Dynamic]).unwrap();
    /// r.call_or_retrack((-1.0,)).unwrap();
    /// assert_eq!(r.parent(0), None);
    /// assert_eq!(r.parent(1).map(|(p, _)| p), Some(0));
    /// ```
    pub fn parent(&self, k: usize) -> Option<(usize, NodeId)> {
        self.paths.get(k)?.parent
    }

    /// Runs the path of the tree that `args` take, without tracking: the result of a path
    /// whose every guard holds, or the error of the last path tried.
    ///
    /// ```
    /// use irtrack::program::{Input, ReplayError, Retracking};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn sign(x: f64) -> f64 { if x > 0.0 { 1.0 } else { -1.0 } }
    ///
    /// let r = Retracking::track(sign, (1.0,), &[Input::Dynamic]).unwrap();
    /// assert_eq!(r.call((5.0,)).unwrap().as_f64(), Some(1.0));
    /// assert!(matches!(r.call((-5.0,)), Err(ReplayError::Guard { .. })));
    /// ```
    ///
    /// # Errors
    /// As [`Program::call`]; [`ReplayError::Guard`] when the inputs take a path not traced yet.
    pub fn call(&self, args: A) -> Result<Value, ReplayError> {
        match self.descend(&args.to_values()) {
            Descent::Done(v) => Ok(v),
            Descent::Missed { guard, .. } => Err(guard),
            Descent::Failed(e) => Err(e),
        }
    }

    /// Runs the path `args` take; when a guard fails where the tree has no path yet, tracks
    /// the function on `args`, adds the new path under the guard that failed and returns the
    /// function's result. A static argument that differs from the recorded one is still
    /// [`ReplayError::Static`]: a path is traced for the static values of the first. A panic
    /// of the function when tracked again propagates.
    ///
    /// ```
    /// use irtrack::program::{Input, Retracking};
    /// use irtrack::tracked;
    ///
    /// #[tracked]
    /// fn steps(x: f64, n: i32) -> f64 {
    ///     let mut i = 0;
    ///     let mut y = x;
    ///     while i < n {
    ///         y = y * 0.5 + 1.0;
    ///         i += 1;
    ///     }
    ///     y
    /// }
    ///
    /// let mut r = Retracking::track(steps, (1.0, 0), &[Input::Dynamic, Input::Dynamic]).unwrap();
    /// for n in [3, 1, 3, 0, 2] {
    ///     assert_eq!(r.call_or_retrack((2.0, n)).unwrap().as_f64(), Some(steps(2.0, n)));
    /// }
    /// assert_eq!(r.paths(), 4);
    /// ```
    ///
    /// # Errors
    /// As [`Program::call`], but a guard that fails where the tree has room for another path;
    /// [`ReplayError::TooManyPaths`] when it has none; the errors of
    /// [`Program::from_trace`] when the new path cannot be replayed.
    pub fn call_or_retrack(&mut self, args: A) -> Result<Value, ReplayError> {
        let values = args.to_values();
        let (at, node, guard) = match self.descend(&values) {
            Descent::Done(v) => return Ok(v),
            Descent::Missed { at, node, guard } => (at, node, guard),
            Descent::Failed(e) => return Err(e),
        };
        if self.paths.len() >= self.max_paths {
            return Err(ReplayError::TooManyPaths {
                max_paths: self.max_paths,
                guard: Box::new(guard),
            });
        }
        let before = super::checkpoint::mark();
        let (_, trace) = track_output(self.f.clone(), args);
        let program = Program::from_trace(&trace, &self.inputs)?;
        // The new path must replay the arguments it was traced on, to what the function
        // returned: else the tree would hold a path that gives another result. A check, not a
        // run: it sees the checkpoints' injected values as the run did, and collects none.
        let recorded = trace.root().raw_value();
        match super::checkpoint::again(&before, || program.call(values)) {
            Ok(v) if same(&v, &recorded) => {}
            Ok(v) => {
                let ReplayError::Guard { at: origin, .. } = guard else {
                    return Err(guard);
                };
                return Err(ReplayError::Unsupported {
                    at: origin,
                    reason: format!(
                        "the path traced on these arguments replays them to {v}, not to the \
                         function's {recorded} (a bug in irtrack: please report it)"
                    ),
                });
            }
            Err(e) => return Err(e),
        }
        let k = self.paths.len();
        self.paths.push(Path {
            program,
            next: HashMap::new(),
            parent: Some((at, node)),
        });
        self.paths[at].next.insert(node, k);
        Ok(recorded)
    }

    /// Walks the tree from the first path, following the path traced where a guard failed.
    fn descend(&self, values: &[Value]) -> Descent {
        let mut at = 0;
        loop {
            let e = match self.paths[at].program.call(values.to_vec()) {
                Ok(v) => return Descent::Done(v),
                Err(e) => e,
            };
            let ReplayError::Guard { at: origin, .. } = &e else {
                return Descent::Failed(e);
            };
            let node = origin.node;
            match self.paths[at].next.get(&node) {
                // Paths are numbered as they are added, under existing ones: the walk only
                // goes to higher numbers, so it ends.
                Some(&next) => at = next,
                None => return Descent::Missed { at, node, guard: e },
            }
        }
    }
}

/// Where a walk down the tree ended.
enum Descent {
    /// A path whose every guard held: its result.
    Done(Value),
    /// Guard `node` of path `at` failed, and nothing hangs there.
    Missed {
        at: usize,
        node: NodeId,
        guard: ReplayError,
    },
    /// Any other error.
    Failed(ReplayError),
}

/// Whether a replayed result is the recorded one: a scalar bit for bit (any NaN for a NaN:
/// the function's own result is what the call returns), anything else as
/// `Value::exact_eq` proves it (values that only print alike are not the same).
fn same(a: &Value, b: &Value) -> bool {
    a.same_scalar(b) || a.exact_eq(b) == Some(true)
}
