//! Reverse-mode gradients from traces, with Flux.Tracker's interface.
//!
//! A trace already holds what a backward pass needs: every intermediate value and which values
//! each node used. [`gradient`] records a call and walks its trace back from the output,
//! accumulating adjoints through nested calls, loops, branches and recursion; [`pullback`]
//! returns a backpropagator that can be called with any sensitivity of the output;
//! [`Trace::backward`] writes each node's adjoint into its metadata under [`ADJOINT`], adding
//! to what an earlier pass left there (Tracker's `back!`).
//!
//! Primitives are differentiated by rules found by what the callee is — an operator with its
//! operand types, a method with its receiver's type, a path by its full name — never by a bare
//! name. [`register_rule`] gives any function its own rule (Tracker's `@grad`). A value on the
//! path from an input to the output that has no rule is a [`GradError`], never a silent zero.
//!
//! ```
//! use irtrack::{gradient, tracked};
//!
//! #[tracked]
//! fn h(x: f64, n: i32) -> f64 {
//!     let mut r = 0.0;
//!     let mut i = 0;
//!     while i < n {
//!         r += x.powi(i);
//!         i += 1;
//!     }
//!     r
//! }
//!
//! let g = gradient(h, (2.0, 3)).unwrap();
//! assert_eq!(g.value, 7.0); // 1 + x + x²
//! // d/dx = 1 + 2x; the integer bound has no gradient.
//! assert_eq!(g.scalars(), [Some(5.0), None]);
//! ```

mod custom;
mod error;
mod fast;
mod indeterminate;
mod iter;
#[cfg(feature = "ndarray")]
mod ndarray;
mod options;
mod parts;
mod primal;
pub(crate) mod rules;
mod site;
pub(crate) mod sweep;
mod tangent;

pub use custom::{
    register_rule, FromArgument, FromArguments, FromTangent, IntoSensitivities, IntoSensitivity,
};
pub use error::{GradError, Indeterminacy, Place};
#[doc(hidden)]
pub use fast::{fast_gradients_taken, with_general_sweep};
pub use site::Site;
pub use tangent::Tangent;

use crate::core::ids::NodeId;
use crate::core::tape::NodeKind;
use crate::record::session::{track_output, Callable};
use crate::view::trace::Trace;
use sweep::Sweep;

/// The metadata key under which [`Trace::backward`] stores each node's adjoint (a
/// [`Tangent`]).
pub const ADJOINT: &str = "adjoint";

/// The value of a function and its gradient with respect to each argument.
#[derive(Clone, Debug, PartialEq)]
pub struct Gradient<T> {
    /// What the function returned.
    pub value: T,
    /// The gradient for each argument, in order: `None` for an argument that is not
    /// differentiable (an integer, a `bool`, a reference to an RNG), zeros of the argument's
    /// shape for a differentiable argument the output does not depend on.
    pub wrt: Vec<Option<Tangent>>,
}

impl<T> Gradient<T> {
    /// The gradients of float arguments as `f64`s (`None` for every other argument).
    pub fn scalars(&self) -> Vec<Option<f64>> {
        self.wrt
            .iter()
            .map(|t| t.as_ref().and_then(Tangent::as_scalar))
            .collect()
    }
}

/// The value of `f` on `args` and its gradient with respect to every differentiable argument
/// (`f32`, `f64`, vectors and slices of them, and arrays with the `ndarray` feature). `f` must be
/// `#[tracked]` (or a closure made with `irtrack::tracked_fn!`) and return a float, or `Ok`/`Some`
/// of one.
///
/// ```
/// use irtrack::{gradient, tracked, Tangent};
///
/// #[tracked]
/// fn mul(a: f64, b: f64) -> f64 {
///     a * b
/// }
///
/// let g = gradient(mul, (2.0, 3.0)).unwrap();
/// assert_eq!(g.value, 6.0);
/// assert_eq!(g.wrt, [Some(Tangent::Scalar(3.0)), Some(Tangent::Scalar(2.0))]);
/// ```
///
/// A panic in `f` propagates, as it would from calling `f`.
pub fn gradient<F, A>(f: F, args: A) -> Result<Gradient<F::Output>, GradError>
where
    F: Callable<A>,
{
    let (value, trace) = track_output(f, args);
    let seed = scalar_seed(&trace)?;
    let output = output_class(&trace, &seed);
    if fast::enabled() && output == Output::Finite {
        if let Some(tape) = fast::tape(&trace.store, tracked_root(&trace)?.id()) {
            let fast = tape.sweep(1.0);
            // A NaN or an underflow is rare, and the general sweep says what it means.
            if !fast.fall_back
                && !indeterminate::any_nan(&fast.wrt)
                && !indeterminate::any_infinite(&fast.wrt)
            {
                return Ok(Gradient {
                    value,
                    wrt: fast.wrt,
                });
            }
        }
    }
    let sweep = run(&trace, seed.clone())?;
    let wrt = argument_gradients(&sweep);
    // Where the function has no value, every sensitivity is NaN: no NaN or ∞ in them is to
    // be explained.
    if output != Output::NoValue {
        numbers(&trace, &seed, &wrt)?;
        underflow(&sweep, &wrt)?;
    }
    let wrt = output.check(&sweep, wrt)?;
    Ok(Gradient { value, wrt })
}

/// What the output is where the seed reads it (an element with a nonzero sensitivity).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Output {
    Finite,
    /// ±∞: a slope of 0 that reached an argument through an infinite value may be a limit.
    Infinite,
    /// NaN: the function has no value, and no derivative.
    NoValue,
}

impl Output {
    /// The arguments' sensitivities `wrt` as the output allows them: all NaN where the function
    /// has no value (a NaN the function computed: `x.ln() + x * x` at -2 had the slope of
    /// `x * x` alone, a tester, 2026-11-28), an error where its value is infinite and a zero
    /// that is only a limit reached an argument (`(x * x).sqrt()` at 10¹⁶⁰, where `x * x`
    /// overflowed: slope 0 for 1).
    fn check(
        self,
        sweep: &Sweep<'_>,
        wrt: Vec<Option<Tangent>>,
    ) -> Result<Vec<Option<Tangent>>, GradError> {
        match self {
            Output::Finite => Ok(wrt),
            Output::NoValue => Ok(wrt
                .into_iter()
                .map(|t| t.map(|t| t.scaled(f64::NAN)))
                .collect()),
            Output::Infinite => match sweep.soft_argument() {
                Some((argument, origin)) => Err(GradError::Indeterminate {
                    at: sweep.place(argument),
                    cause: Indeterminacy::InfiniteValue {
                        zero: sweep.place(origin),
                    },
                }),
                None => Ok(wrt),
            },
        }
    }
}

/// The class of the output's elements that `seed` reads (a nonzero sensitivity): NaN before ±∞.
fn output_class(trace: &Trace, seed: &Tangent) -> Output {
    let out = trace.root().raw_value();
    let read: Vec<f64> = match seed {
        Tangent::Scalar(s) if *s != 0.0 => out
            .by_value()
            .as_f64()
            .or_else(|| out.wrapped_float().flatten())
            .into_iter()
            .collect(),
        Tangent::Vector(s) => match out.floats() {
            Some(y) => y
                .iter()
                .zip(s)
                .filter(|(_, s)| **s != 0.0)
                .map(|(y, _)| *y)
                .collect(),
            None => Vec::new(),
        },
        #[cfg(feature = "ndarray")]
        Tangent::Array(a) => match out.float_elements() {
            Some(y) => y
                .iter()
                .zip(a.iter())
                .filter(|(_, s)| **s != 0.0)
                .map(|(y, _)| *y)
                .collect(),
            None => Vec::new(),
        },
        _ => Vec::new(),
    };
    if read.iter().any(|y| y.is_nan()) {
        Output::NoValue
    } else if read.iter().any(|y| y.is_infinite()) {
        Output::Infinite
    } else {
        Output::Finite
    }
}

/// The first call of `trace` a rule registered with [`register_rule`] applies to, with the
/// callee described, for the layers that do not read those rules (derivative programs).
pub(crate) fn registered_rule_in(trace: &Trace) -> Option<(NodeId, String)> {
    if !custom::any() {
        return None;
    }
    // The function differentiated itself (its rule is its derivative, as `gradient` takes it).
    let root = trace.root();
    if let Some(key) = trace.store.nested_callee(root.id()) {
        if custom::lookup_key(key).is_some() {
            return Some((root.id(), format!("`{}`", trace.root_name())));
        }
    }
    (0..trace.store.len() as u32).map(NodeId).find_map(|id| {
        let kind = trace.store.node(id).kind;
        if !matches!(kind, NodeKind::PrimitiveCall | NodeKind::NestedCall) {
            return None;
        }
        let site = site::Site::new(&trace.store, id)?;
        custom::lookup(&site)?;
        Some((id, site.describe()))
    })
}

/// The value of `f` on `args` and a backpropagator: given a sensitivity of the output's shape, it
/// returns the sensitivities of the arguments (`None` for arguments that are not
/// differentiable). It can be called any number of times.
///
/// ```
/// use irtrack::{pullback, tracked};
///
/// #[tracked]
/// fn scale(v: Vec<f64>, k: f64) -> Vec<f64> {
///     let a = v[0] * k;
///     let b = v[1] * k;
///     vec![a, b]
/// }
///
/// let (y, back) = pullback(scale, (vec![1.0, 2.0], 10.0));
/// assert_eq!(y, [10.0, 20.0]);
/// let dx = back.call(vec![1.0, 1.0]).unwrap();
/// assert_eq!(dx[0].as_ref().and_then(|t| t.as_slice()), Some(&[10.0, 10.0][..]));
/// assert_eq!(dx[1].as_ref().and_then(|t| t.as_scalar()), Some(3.0));
/// ```
pub fn pullback<F, A>(f: F, args: A) -> (F::Output, Pullback)
where
    F: Callable<A>,
{
    let (value, trace) = track_output(f, args);
    (
        value,
        Pullback {
            trace,
            tape: std::sync::OnceLock::new(),
        },
    )
}

/// A backpropagator returned by [`pullback`]: it owns the trace of the call.
pub struct Pullback {
    trace: Trace,
    /// The fast path's tape, built at the first call with a float sensitivity (`None` when
    /// the trace needs the general sweep).
    tape: std::sync::OnceLock<Option<fast::Tape>>,
}

impl Pullback {
    /// The sensitivities of the arguments for the sensitivity `seed` of the output.
    pub fn call(&self, seed: impl Into<Tangent>) -> Result<Vec<Option<Tangent>>, GradError> {
        let seed = seed.into();
        let output = output_class(&self.trace, &seed);
        if let (Tangent::Scalar(s), true, Output::Finite) = (&seed, fast::enabled(), output) {
            let tape = self.tape.get_or_init(|| {
                let root = tracked_root(&self.trace).ok()?;
                fast::tape(&self.trace.store, root.id())
            });
            if let Some(tape) = tape {
                let fast = tape.sweep(*s);
                if !fast.fall_back
                    && !indeterminate::any_nan(&fast.wrt)
                    && !indeterminate::any_infinite(&fast.wrt)
                {
                    return Ok(fast.wrt);
                }
            }
        }
        let sweep = run(&self.trace, seed.clone())?;
        let wrt = argument_gradients(&sweep);
        if output != Output::NoValue {
            numbers(&self.trace, &seed, &wrt)?;
            underflow(&sweep, &wrt)?;
        }
        output.check(&sweep, wrt)
    }

    /// The recorded trace.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// The recorded trace, to annotate with [`Trace::backward`].
    pub fn into_trace(self) -> Trace {
        self.trace
    }
}

impl Trace {
    /// Runs a backward pass from `seed`, the sensitivity of the root's value, stores every
    /// node's adjoint in its metadata under [`ADJOINT`] — adding to the adjoint an earlier pass
    /// stored, as Tracker's `back!` accumulates — and returns the adjoints of the root's
    /// arguments from this pass alone.
    ///
    /// ```
    /// use irtrack::{track, tracked, grad::ADJOINT, Tangent};
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 {
    ///     x.sin() * x
    /// }
    ///
    /// let mut trace = track(f, (1.0,));
    /// trace.backward(1.0).unwrap();
    /// trace.backward(1.0).unwrap();
    /// let x = trace.root().call_arguments()[0];
    /// let twice = 2.0 * (1.0f64.cos() + 1.0f64.sin());
    /// assert_eq!(x.metadata::<Tangent>(ADJOINT), Some(&Tangent::Scalar(twice)));
    /// ```
    pub fn backward(
        &mut self,
        seed: impl Into<Tangent>,
    ) -> Result<Vec<Option<Tangent>>, GradError> {
        let seed = seed.into();
        let mut sweep = run(self, seed.clone())?;
        let grads = argument_gradients(&sweep);
        numbers(self, &seed, &grads)?;
        underflow(&sweep, &grads)?;
        sweep.gather_fields();
        // Every sum first, then the writes: a shape mismatch leaves the trace as it was.
        let mut totals = Vec::new();
        for (i, adjoint) in sweep.adjoints.iter().enumerate() {
            let Some(adjoint) = adjoint else { continue };
            let id = NodeId(i as u32);
            let stored = self
                .store
                .metadata
                .get(&id)
                .and_then(|m| m.iter().find(|(k, _)| k == ADJOINT).map(|(_, v)| v));
            // A value of another kind under the key is the user's or a context's: not replaced
            // (an `i32` 5 became 5.44): an error, the trace left as it was.
            if let Some(v) = stored.filter(|v| v.downcast_ref::<Tangent>().is_none()) {
                return Err(GradError::NotAnAdjoint {
                    at: sweep.place(id),
                    found: v.type_name().to_string(),
                });
            }
            let before = stored.and_then(|v| v.downcast_ref::<Tangent>());
            let total = match before {
                Some(before) => {
                    let mut total = before.clone();
                    total
                        .add_assign(adjoint)
                        .map_err(|shapes| GradError::Shape {
                            at: sweep.place(id),
                            shapes,
                        })?;
                    total
                }
                None => adjoint.clone(),
            };
            totals.push((id, total));
        }
        drop(sweep);
        for (id, total) in totals {
            self.node_mut(id).set(ADJOINT, total);
        }
        Ok(grads)
    }
}

/// The root of a trace of a tracked function (a primitive root has no body to differentiate).
fn tracked_root(trace: &Trace) -> Result<crate::view::trace::NodeRef<'_>, GradError> {
    let root = trace.root();
    if root.kind() != NodeKind::NestedCall {
        let (type_name, named) = trace.root_callee();
        let reason = (!named).then(|| {
            format!(
                "it was called through a value of type `{type_name}`, a function pointer or a \
                 closure irtrack does not track, which does not say which function it runs; \
                 pass the `#[tracked]` function itself (`gradient(f, args)`, not \
                 `gradient(f as fn(..) -> _, args)`), or wrap a closure in `tracked_fn!`"
            )
        });
        return Err(GradError::NotTracked {
            function: trace.root_name().to_string(),
            reason,
        });
    }
    Ok(root)
}

fn run(trace: &Trace, seed: Tangent) -> Result<Sweep<'_>, GradError> {
    let root = tracked_root(trace)?;
    let mut sweep = Sweep::new(trace, root.id())?;
    if let Err(cause) = sweep.run(seed) {
        // A derivative taken inside the function is a primitive of this trace with no rule;
        // the sweep stops wherever a rule is first missing on the way back to it, which would
        // name an innocent `unwrap` or field access.
        return Err(match trace.store.first_recording_inside() {
            Some(id) => GradError::HigherOrder {
                at: sweep.place(id),
                cause: Box::new(cause),
            },
            None => cause,
        });
    }
    Ok(sweep)
}

/// `Err` when a gradient has a NaN element made from numbers — never a derivative, see
/// [`GradError::Indeterminate`] — found by a second sweep that watches every sum. A NaN from
/// the seed, an argument or a value is the function's own and stays.
fn numbers(trace: &Trace, seed: &Tangent, grads: &[Option<Tangent>]) -> Result<(), GradError> {
    if !indeterminate::any_nan(grads) || indeterminate::has_nan(seed) {
        return Ok(());
    }
    let mut sweep = Sweep::new(trace, tracked_root(trace)?.id())?;
    sweep.watch();
    sweep.run(seed.clone())?;
    match sweep.indeterminate() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// `Err` when a gradient has an infinite element made by an infinite slope at a zero that is
/// only a limit ([`Indeterminacy::Underflow`]); found after the sweep, only then.
fn underflow(sweep: &Sweep<'_>, grads: &[Option<Tangent>]) -> Result<(), GradError> {
    if let Some(e) = sweep.lossy_subnormal().or_else(|| sweep.forward_checks()) {
        return Err(e);
    }
    if !indeterminate::any_infinite(grads) {
        return Ok(());
    }
    match sweep.underflow() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The error of a gradient of `trace`'s root that meets `0 · ∞` with a limit zero or a zero
/// at a point only ([`Indeterminacy::Limit`], [`Indeterminacy::LimitSlope`]), or runs on a
/// path that exists at one point only ([`Indeterminacy::Equality`]), for derivative programs,
/// whose kernels cannot tell a limit zero from an exact one and whose guards hold at that one
/// point, or rounds coarsely where the output depends on the rounding
/// ([`Indeterminacy::Rounding`]). `None` for any other outcome, or an output that is not a
/// float.
pub(crate) fn limit(trace: &Trace) -> Option<GradError> {
    let seed = scalar_seed(trace).ok()?;
    let mut sweep = Sweep::new(trace, tracked_root(trace).ok()?.id()).ok()?;
    let output = output_class(trace, &seed);
    let run = sweep.run(seed);
    // A sum that rounds coarsely where the output depends on the rounding: the path's
    // derivative is a staircase's at this point, whatever the kernels compute. An infinite
    // output reached by a zero that is only a limit: the gradient's refusal.
    if run.is_ok() {
        return sweep.forward_checks().or_else(|| match output {
            Output::Infinite => output.check(&sweep, Vec::new()).err(),
            _ => None,
        });
    }
    match run {
        Err(
            e @ GradError::Indeterminate {
                cause:
                    Indeterminacy::Limit { .. }
                    | Indeterminacy::LimitSlope
                    | Indeterminacy::Equality { .. }
                    | Indeterminacy::NearTie
                    | Indeterminacy::Unseen { .. }
                    | Indeterminacy::Stationary { .. },
                ..
            },
        ) => Some(e),
        _ => None,
    }
}

/// The seed `1.0` for a float output (also inside `Ok` or `Some`).
fn scalar_seed(trace: &Trace) -> Result<Tangent, GradError> {
    use std::any::TypeId;
    let value = tracked_root(trace)?.raw_value();
    // A float output known only by its type: the sweep reports why.
    let float_type = value
        .type_id()
        .is_some_and(|t| t == TypeId::of::<f64>() || t == TypeId::of::<f32>());
    if value.as_f64().is_some() || float_type || matches!(value.wrapped_float(), Some(Some(_))) {
        return Ok(Tangent::Scalar(1.0));
    }
    // `Ok(x)` of a float whose error type has no snapshot: the returned node is the
    // constructor of a float.
    let root = trace.root();
    let returned = root
        .children()
        .last()
        .filter(|r| r.kind() == NodeKind::Return)
        .and_then(|r| r.referenced().first().copied());
    if returned.is_some_and(|n| rules::wraps_a_float(&trace.store, n.id())) {
        return Ok(Tangent::Scalar(1.0));
    }
    Err(GradError::Output {
        reason: format!(
            "`gradient` needs a float output (or `Ok`/`Some` of one), and `{}` returned `{}` \
             of type `{}`; use `pullback` with a sensitivity of the output's shape",
            trace.root_name(),
            value,
            value.type_name()
        ),
    })
}

fn argument_gradients(sweep: &Sweep<'_>) -> Vec<Option<Tangent>> {
    sweep
        .function_arguments()
        .map(|a| sweep.argument_gradient(a))
        .collect()
}
