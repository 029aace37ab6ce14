//! What `sample` does: the run of a model in progress on this thread (its generator, the
//! choices made so far, the constraints and the previous trace it replays, its weight), and the
//! context that gives choices their addresses and their nodes their metadata.
//!
//! `sample` is an ordinary function: a tracked model records its call as a primitive node, and
//! the function itself asks the run for its value. So it works the same from tracked code, from
//! untracked helpers and from proposals that are not tracked at all, and its identity never
//! rests on a name. The [`PplContext`] only tells the run which call it is in (from
//! `before_call`, asked before every call a tracked body makes) and attaches each choice's
//! metadata to the node of the call that made it.

use super::address::{Address, Key};
use super::choices::{Choice, ChoiceMap, Choices, Origin, Selection};
use super::dist::{Distribution, PplRng};
use super::error::PplError;
use crate::core::ids::{key_of, CalleeKey};
use crate::core::value::{Owned, Value};
use crate::record::context::{Action, Call, CallSite, Context, Draft};
use rand::SeedableRng;
use std::any::TypeId;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// What a run does with the choices it meets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Draw every choice not constrained (simulate, generate, propose).
    Draw,
    /// Keep the previous trace's value at each address it has (update).
    Update,
    /// Keep the previous trace's values except at selected addresses (regenerate).
    Regenerate,
    /// Every value is given (assess).
    Assess,
}

/// A sum of log-densities that keeps infinities apart, so that `∞ - ∞` is an error, not NaN.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LogSum {
    finite: f64,
    pos: bool,
    neg: bool,
}

impl LogSum {
    pub(crate) fn add(&mut self, x: f64) {
        if x == f64::INFINITY {
            self.pos = true;
        } else if x == f64::NEG_INFINITY {
            self.neg = true;
        } else {
            self.finite += x;
        }
    }

    /// Whether a term was -∞.
    pub(crate) fn has_neg_infinity(&self) -> bool {
        self.neg
    }

    /// The sum; `Err` for `∞ - ∞`, and for a NaN term (no weight, never read as `+∞`).
    pub(crate) fn value(&self) -> Result<f64, PplError> {
        if self.finite.is_nan() {
            return Err(PplError::UndefinedWeight);
        }
        match (self.pos, self.neg) {
            (true, true) => Err(PplError::UndefinedWeight),
            (true, false) => Ok(f64::INFINITY),
            (false, true) => Ok(f64::NEG_INFINITY),
            (false, false) => Ok(self.finite),
        }
    }
}

/// `new - old`, two sums kept apart. When the new side is impossible the weight is `-∞`,
/// whatever the old side: a move into an impossible trace is never taken.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Weight {
    pub new: LogSum,
    pub old: LogSum,
}

impl Weight {
    pub(crate) fn value(&self) -> Result<f64, PplError> {
        let new = self.new.value()?;
        let old = self.old.value()?;
        Ok(match (new.is_finite(), old.is_finite()) {
            (true, true) => self.new.finite - self.old.finite,
            _ if new == f64::NEG_INFINITY => f64::NEG_INFINITY,
            (false, _) if new == old => return Err(PplError::UndefinedWeight),
            (false, _) => f64::INFINITY,
            (true, false) => -old,
        })
    }
}

/// The call a choice is made in: its address prefix and its unnamed draws so far.
#[derive(Debug, Default)]
pub(crate) struct Scope {
    pub prefix: Address,
    unnamed: RefCell<HashMap<&'static str, u32>>,
}

impl Scope {
    fn new(prefix: Address) -> Scope {
        Scope {
            prefix,
            unnamed: RefCell::default(),
        }
    }

    fn next_unnamed(&self, dist: &'static str) -> u32 {
        let mut m = self.unnamed.borrow_mut();
        let k = m.entry(dist).or_insert(0);
        *k += 1;
        *k - 1
    }
}

/// A run of a model (or a proposal) in progress.
pub(crate) struct Run {
    pub mode: Mode,
    pub rng: PplRng,
    pub scope: Rc<Scope>,
    pub choices: Choices,
    pub previous: Option<Arc<Choices>>,
    pub previous_factors: f64,
    /// Which previous choices this run reached.
    pub visited: Vec<bool>,
    pub constraints: Option<Arc<ChoiceMap>>,
    pub constrained_seen: usize,
    pub selection: Option<Selection>,
    pub weight: Weight,
    pub score: LogSum,
    pub factors: LogSum,
    pub discard: ChoiceMap,
    pub error: Option<PplError>,
    /// Whether a context reports nodes: then choices wait in `pending` for their node.
    pub tracked: bool,
    pub pending: Vec<(usize, CalleeKey)>,
    /// The choices whose node got their metadata, in recording order.
    pub attached: Vec<usize>,
    /// How many choices were drawn.
    pub drawn: usize,
    /// How many times `factor` (or a failed `condition`) was called.
    pub factor_calls: usize,
}

impl Run {
    pub(crate) fn new(mode: Mode, rng: PplRng) -> Run {
        Run {
            mode,
            rng,
            scope: Rc::new(Scope::default()),
            choices: Choices::default(),
            previous: None,
            previous_factors: 0.0,
            visited: Vec::new(),
            constraints: None,
            constrained_seen: 0,
            selection: None,
            weight: Weight::default(),
            score: LogSum::default(),
            factors: LogSum::default(),
            discard: ChoiceMap::new(),
            error: None,
            tracked: false,
            pending: Vec::new(),
            attached: Vec::new(),
            drawn: 0,
            factor_calls: 0,
        }
    }

    pub(crate) fn replaying(mut self, previous: Arc<Choices>, factors: f64) -> Run {
        self.visited = vec![false; previous.list.len()];
        // A replay mostly makes the same choices: no rehashing on the way.
        self.choices.list.reserve(previous.list.len());
        Arc::make_mut(&mut self.choices.index).reserve(previous.list.len());
        self.previous = Some(previous);
        self.previous_factors = factors;
        self
    }

    pub(crate) fn constrained(mut self, constraints: Arc<ChoiceMap>) -> Run {
        self.constraints = (!constraints.is_empty()).then_some(constraints);
        self
    }

    fn fail<T>(&mut self, e: PplError) -> Result<T, ()> {
        self.error = Some(e);
        Err(())
    }

    fn choose<D: Distribution>(
        &mut self,
        local: Option<Address>,
        dist: &D,
        observed: Option<D::Value>,
        entry: CalleeKey,
    ) -> Result<D::Value, ()> {
        let address = match local {
            Some(a) => {
                if let Err(reason) = a.check() {
                    return self.fail(PplError::BadAddress { address: a, reason });
                }
                if self.scope.prefix.is_empty() {
                    a
                } else {
                    self.scope.prefix.join(&a)
                }
            }
            None => {
                let index = self.scope.next_unnamed(dist.name());
                let mut keys = self.scope.prefix.0.clone();
                keys.push(Key::Unnamed {
                    dist: Cow::Borrowed(dist.name()),
                    index,
                });
                Address(keys)
            }
        };
        if let Err(reason) = dist.check() {
            // After a choice or factor of -∞ (in the order the model made them, which is the
            // order its values flow), the point has probability zero whatever this
            // distribution would have been: inference rejects it rather than fail.
            let impossible = self.score.has_neg_infinity() || self.factors.has_neg_infinity();
            return self.fail(PplError::invalid(address, dist.name(), reason, impossible));
        }
        // The index is taken now, with one lookup: a choice that fails below stops the run,
        // whose choices are then dropped.
        let index = self.choices.list.len();
        // The run's own index (not shared yet): `make_mut` does not copy it.
        match Arc::make_mut(&mut self.choices.index).entry(address.clone()) {
            Entry::Occupied(_) => return self.fail(PplError::DuplicateAddress(address)),
            Entry::Vacant(v) => {
                v.insert(index);
            }
        }
        let constraints = self.constraints.clone();
        let constraint = constraints.as_ref().and_then(|c| c.value_at(&address));
        let previous = self.previous.clone();
        // A previous choice of another type at this address (`x ~ Normal` on one path,
        // `x ~ Bernoulli` on another) is not this choice: it is left unvisited (removed, its
        // value discarded) and this one is new.
        //
        // Nor is an observation where the previous trace sampled, or a sample where it observed
        // (`observe("y", …)` on one branch, `sample("y", …)` on the other): the previous choice
        // is gone (a latent one drawn again by the reverse move, data out of the density) and
        // this one is new, of its own origin. Kept, a sample inherited the observation's value
        // and origin and was never drawn again (an MH chain stuck on the data, `update` to
        // arguments that sample it left it observed), and `regenerate` counted the gone
        // latent's density in the old weight (a tester, 2026-11-27).
        let observes = observed.is_some();
        let prev = previous
            .as_ref()
            .and_then(|p| p.get(&address))
            .filter(|(_, p)| typed::<D::Value>(&p.value).is_some())
            .filter(|(_, p)| (p.origin == Origin::Observed) == observes);
        // Data (observed values, `generate`'s constraints) is never drawn again.
        let selected = self.mode == Mode::Regenerate
            && prev.is_some_and(|(_, p)| p.origin == Origin::Latent)
            && self
                .selection
                .as_ref()
                .is_some_and(|s| s.contains(&address));
        let mismatch = |v: &Value| PplError::TypeMismatch {
            address: address.clone(),
            expected: std::any::type_name::<D::Value>(),
            got: crate::core::value::short_type_name(v.type_name()),
        };
        let mut drawn = false;
        let mut constrained = false;
        let (value, origin) = if let Some(v) = observed {
            if let Some(c) = constraint {
                // Scoring a trace's own choices (`assess(m, a, &t.choices())`) gives the data
                // at its address with its value: that is no conflict.
                let stored = Value::snapshot(v.clone());
                if self.mode != Mode::Assess || !same_value(c, &stored) {
                    return self.fail(PplError::ObservedAndConstrained(address));
                }
                self.constrained_seen += 1;
            }
            (v, Origin::Observed)
        } else if let Some(c) = constraint {
            let Some(v) = typed::<D::Value>(c) else {
                return self.fail(mismatch(c));
            };
            self.constrained_seen += 1;
            constrained = true;
            // `update`'s constraints are new values of latent choices (a proposal's); only
            // `generate`'s constraints, and new values of data, are data.
            let origin = match (self.mode, prev) {
                (Mode::Update, Some((_, p))) => p.origin,
                (Mode::Update, None) => Origin::Latent,
                _ => Origin::Constrained,
            };
            (v, origin)
        } else if let Some((_, p)) = prev.filter(|_| !selected && self.mode != Mode::Draw) {
            match typed::<D::Value>(&p.value) {
                Some(v) => (v, p.origin),
                None => return self.fail(mismatch(&p.value)),
            }
        } else if self.mode == Mode::Assess {
            return self.fail(PplError::MissingValue(address));
        } else {
            drawn = true;
            self.drawn += 1;
            (dist.draw(&mut self.rng), Origin::Latent)
        };
        let lp = dist.log_density(&value);
        if lp.is_nan() {
            return self.fail(PplError::NotANumber(address));
        }
        let stored = Value::snapshot(value.clone());
        match prev {
            Some((i, p)) if self.mode != Mode::Draw => {
                self.visited[i] = true;
                if !drawn {
                    self.weight.new.add(lp);
                    self.weight.old.add(p.log_density);
                }
                let replaced =
                    constrained || (origin == Origin::Observed && !same_value(&p.value, &stored));
                if replaced {
                    self.discard.insert_value(address.clone(), p.value.clone());
                }
            }
            _ => {
                if !drawn {
                    self.weight.new.add(lp);
                }
            }
        }
        self.score.add(lp);
        self.choices.list.push(Choice {
            address,
            value: stored,
            log_density: lp,
            dist: dist.name(),
            parameters: dist.parameters(),
            origin,
            continuous: dist.is_continuous() && TypeId::of::<D::Value>() == TypeId::of::<f64>(),
            builtin: super::dist::Builtin::is_builtin::<D>(),
        });
        if self.tracked {
            self.pending.push((index, entry));
        }
        Ok(value)
    }

    /// Ends the run: the weight terms of the previous choices it did not reach, the check
    /// that every constraint was used, the factors.
    pub(crate) fn finish(&mut self) -> Result<(), PplError> {
        if let Some(previous) = self.previous.clone() {
            for (i, c) in previous.list.iter().enumerate() {
                if self.visited.get(i).copied().unwrap_or(false) {
                    continue;
                }
                // Data that is gone (an observation, or a constraint of `generate`, on a
                // branch no longer taken) leaves the new trace's density: its factor counts in
                // the old one's, for `regenerate` as for `update`. A latent choice gone after
                // a regeneration does not: the reverse move would draw it from its prior, as
                // the forward move drew those that appear.
                if self.mode == Mode::Update
                    || (self.mode == Mode::Regenerate && c.origin != Origin::Latent)
                {
                    self.weight.old.add(c.log_density);
                }
                if self.mode != Mode::Draw {
                    self.discard
                        .insert_value(c.address.clone(), c.value.clone());
                }
            }
        }
        if let Some(c) = &self.constraints {
            if self.constrained_seen < c.len() {
                let missing = c
                    .addresses()
                    .filter(|a| !self.choices.index.contains_key(*a))
                    .cloned()
                    .collect();
                return Err(PplError::UnvisitedConstraints(missing));
            }
        }
        let factors = self.factors.value()?;
        self.weight.new.add(factors);
        if self.previous.is_some() && self.mode != Mode::Draw {
            self.weight.old.add(self.previous_factors);
        }
        Ok(())
    }
}

/// Integers given in another integer type (a literal `3` for a count) are converted when
/// exact; any other value must be of the type itself.
pub(crate) fn typed<T: Owned>(v: &Value) -> Option<T> {
    if let Some(x) = v.downcast_ref::<T>() {
        return Some(x.clone());
    }
    let t = TypeId::of::<T>();
    let any: Box<dyn std::any::Any> = if let Some(i) = v.as_i64() {
        if t == TypeId::of::<u64>() {
            Box::new(u64::try_from(i).ok()?)
        } else if t == TypeId::of::<usize>() {
            Box::new(usize::try_from(i).ok()?)
        } else if t == TypeId::of::<i64>() {
            Box::new(i)
        } else {
            return None;
        }
    } else if let (Some(x), true) = (v.as_f64(), t == TypeId::of::<f64>()) {
        Box::new(x)
    } else if let (Some(x), true) = (v.floats(), t == TypeId::of::<Vec<f64>>()) {
        Box::new(x.into_owned())
    } else {
        return None;
    };
    any.downcast::<T>().ok().map(|b| *b)
}

/// Whether two choice values are the same: bit for bit where irtrack can compare them
/// (`-0.0` is not `0.0`), else by their text.
pub(crate) fn same_value(a: &Value, b: &Value) -> bool {
    match a.exact_eq(b) {
        Some(same) => same,
        None => !a.is_scalar() && !b.is_scalar() && a.to_string() == b.to_string(),
    }
}

thread_local! {
    static RUNS: RefCell<Vec<Run>> = const { RefCell::new(Vec::new()) };
    /// What `sample` draws from outside any run.
    static OUTSIDE: RefCell<PplRng> = RefCell::new(PplRng::seed_from_u64(0));
}

/// The unwinding payload that stops a run whose model made an invalid choice (the error is
/// in the run). Raised with `resume_unwind`, so no panic hook prints it.
pub(crate) struct Abort;

/// Runs `f` with `run` as this thread's innermost run; returns the run as `f` left it, also
/// when `f` unwinds (the payload is then `f`'s).
pub(crate) fn within<T>(run: Run, f: impl FnOnce() -> T) -> (Run, std::thread::Result<T>) {
    RUNS.with(|r| r.borrow_mut().push(run));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let run = RUNS
        .with(|r| r.borrow_mut().pop())
        .expect("the run pushed above is still on the stack");
    (run, result)
}

enum Stop<V> {
    Outside(Option<V>),
    Abort,
    Reentrant,
}

/// A choice made by the entry point whose key is `entry` (`sample::<D, A>`, …): the node of a
/// call is the choice's only if it called that very function.
fn choose<D: Distribution>(
    local: Option<Address>,
    dist: D,
    observed: Option<D::Value>,
    entry: CalleeKey,
) -> D::Value {
    let outcome = RUNS.with(|runs| {
        let Ok(mut runs) = runs.try_borrow_mut() else {
            return Err(Stop::Reentrant);
        };
        match runs.last_mut() {
            None => Err(Stop::Outside(observed)),
            Some(run) => run
                .choose(local, &dist, observed, entry)
                .map_err(|()| Stop::Abort),
        }
    });
    match outcome {
        Ok(v) => v,
        Err(Stop::Abort) => std::panic::resume_unwind(Box::new(Abort)),
        Err(Stop::Reentrant) => panic!("{}", PplError::Reentrant),
        Err(Stop::Outside(observed)) => {
            if let Err(reason) = dist.check() {
                panic!("the {} distribution is not valid: {reason}", dist.name());
            }
            match observed {
                Some(v) => v,
                None => OUTSIDE.with(|r| dist.draw(&mut r.borrow_mut())),
            }
        }
    }
}

/// A random choice at `address`, drawn from `dist`: call it from a model, tracked or not.
///
/// Under an interface function ([`simulate`](super::simulate), [`generate`](super::generate),
/// [`update`](super::update), …) the run decides the value — a constraint, the previous trace's
/// value, or a fresh draw from the run's seeded generator — and records the choice with its
/// log-density; in a tracked model the call's node carries `address`, `distribution`,
/// `parameters` and `logpdf` metadata. A choice made inside a call of a tracked function is
/// nested under that call's address (see [`Address`]). An invalid distribution, a duplicate
/// address or a constraint of the wrong type stops the run, which returns the error.
///
/// ```
/// use irtrack::ppl::{sample, simulate, Bernoulli, Normal, PplRng};
/// use irtrack::tracked;
/// use rand::SeedableRng;
///
/// #[tracked]
/// fn model(n: usize) -> f64 {
///     let mu = sample("mu", Normal::new(0.0, 1.0));
///     let mut total = 0.0;
///     for i in 0..n {
///         if sample(("keep", i), Bernoulli::new(0.5)) {
///             total += mu;
///         }
///     }
///     total
/// }
///
/// let mut trace = simulate(model, (3,), &mut PplRng::seed_from_u64(7)).unwrap();
/// assert_eq!(trace.choices().len(), 4);
/// let listing = trace.graph().unwrap().root().levels(2).to_string();
/// assert!(listing.contains("[address = \"keep[2]\", distribution = \"bernoulli\""), "{listing}");
/// ```
///
/// # Panics
/// Outside any interface function, `sample` draws from a generator of this thread (seeded
/// with 0) and panics when `dist` is invalid (there is no run to return the error); it also
/// panics when called from a [`Distribution`]'s own methods.
pub fn sample<D: Distribution, A: Into<Address>>(address: A, dist: D) -> D::Value {
    choose(Some(address.into()), dist, None, key_of(&sample::<D, A>))
}

/// An unnamed random choice: its address is the distribution's name and how many unnamed
/// draws of that distribution its call made before (`normal#0`), so it does not change when
/// code around it changes.
///
/// ```
/// use irtrack::ppl::{draw, simulate, Normal, PplRng};
/// use rand::SeedableRng;
///
/// let noise = || draw(Normal::new(0.0, 1.0)) + draw(Normal::new(0.0, 1.0));
/// let trace = simulate(noise, (), &mut PplRng::seed_from_u64(1)).unwrap();
/// let addresses: Vec<String> = trace.choices().addresses().map(|a| a.to_string()).collect();
/// assert_eq!(addresses, ["normal#0", "normal#1"]);
/// ```
///
/// # Panics
/// As [`sample`].
pub fn draw<D: Distribution>(dist: D) -> D::Value {
    choose(None, dist, None, key_of(&draw::<D>))
}

/// Data: a choice at `address` whose value is `value`, scored by `dist` (Pyro's `obs=`). It
/// adds its log-density to the trace's score and to the weight of
/// [`generate`](super::generate); inference never changes it.
///
/// ```
/// use irtrack::ppl::{generate, observe, sample, ChoiceMap, Normal, PplRng};
/// use rand::SeedableRng;
///
/// let model = |y: f64| {
///     let mu = sample("mu", Normal::new(0.0, 1.0));
///     observe("y", Normal::new(mu, 1.0), y);
/// };
/// let given = ChoiceMap::new().with("mu", 0.0);
/// let (trace, w) = generate(model, (2.0,), &given, &mut PplRng::seed_from_u64(1)).unwrap();
/// let n = |x: f64| -0.5 * x * x - 0.5 * (2.0 * std::f64::consts::PI).ln();
/// assert!((w - (n(0.0) + n(2.0))).abs() < 1e-12);
/// assert!((trace.score() - w).abs() < 1e-12);
/// ```
///
/// # Panics
/// As [`sample`].
pub fn observe<D: Distribution, A: Into<Address>>(address: A, dist: D, value: D::Value) {
    choose(
        Some(address.into()),
        dist,
        Some(value),
        key_of(&observe::<D, A>),
    );
}

/// Adds `log_weight` to the trace's score (and to the weights, as an observation's
/// log-density would): a soft constraint. Outside any interface function it does nothing.
///
/// ```
/// use irtrack::ppl::{factor, simulate, PplRng};
/// use rand::SeedableRng;
///
/// let t = simulate(|| factor(-1.5), (), &mut PplRng::seed_from_u64(1)).unwrap();
/// assert_eq!(t.score(), -1.5);
/// ```
pub fn factor(log_weight: f64) {
    RUNS.with(|runs| {
        if let Ok(mut runs) = runs.try_borrow_mut() {
            if let Some(run) = runs.last_mut() {
                if log_weight.is_nan() && run.error.is_none() {
                    run.error = Some(PplError::NotANumberFactor {
                        call: run.factor_calls,
                    });
                }
                run.factors.add(log_weight);
                run.factor_calls += 1;
                run.score.add(log_weight);
            }
        }
    });
}

/// A hard constraint: a trace where `holds` is false is impossible (score `-∞`).
///
/// ```
/// use irtrack::ppl::{condition, sample, simulate, Normal, PplRng};
/// use rand::SeedableRng;
///
/// let t = simulate(|| condition(sample("x", Normal::new(0.0, 1.0)) > 10.0), (),
///     &mut PplRng::seed_from_u64(1)).unwrap();
/// assert_eq!(t.score(), f64::NEG_INFINITY);
/// ```
pub fn condition(holds: bool) {
    if !holds {
        factor(f64::NEG_INFINITY);
    }
}

/// The context a model is tracked with: addresses by call, metadata on choice nodes.
#[derive(Default)]
pub(crate) struct PplContext {
    scope: Rc<Scope>,
    /// How many calls of each tracked function this body made so far.
    calls: RefCell<HashMap<String, u32>>,
}

impl Context for PplContext {
    fn nested(&self, site: &CallSite<'_>) -> Option<Rc<dyn Context>> {
        if site.depth == 0 {
            return None;
        }
        let name = site.callee.name.clone();
        let k = {
            let mut calls = self.calls.borrow_mut();
            let n = calls.entry(name.clone()).or_insert(0);
            *n += 1;
            *n - 1
        };
        let mut keys = self.scope.prefix.0.clone();
        keys.push(Key::Name(Cow::Owned(name)));
        if k > 0 {
            keys.push(Key::Index(i64::from(k)));
        }
        Some(Rc::new(PplContext {
            scope: Rc::new(Scope::new(Address(keys))),
            calls: RefCell::default(),
        }))
    }

    fn before_call(&self, _: &Call<'_>) -> Action {
        RUNS.with(|runs| {
            if let Ok(mut runs) = runs.try_borrow_mut() {
                if let Some(run) = runs.last_mut() {
                    if !Rc::ptr_eq(&run.scope, &self.scope) {
                        run.scope = self.scope.clone();
                    }
                }
            }
        });
        Action::Run
    }

    fn primitive_call(&self, node: &mut Draft<'_>) {
        RUNS.with(|runs| {
            let Ok(mut runs) = runs.try_borrow_mut() else {
                return;
            };
            let Some(run) = runs.last_mut() else {
                return;
            };
            if run.pending.is_empty() {
                return;
            }
            let pending = std::mem::take(&mut run.pending);
            if let [(i, entry)] = pending[..] {
                let c = &run.choices.list[i];
                // The node is the choice only if it is the call of the `sample`, `observe` or
                // `draw` that made it, by key: an untracked helper that makes one choice and
                // returns a value equal to it (`fn wide(d) -> f64 { sample("x",
                // Normal::new(d.mu, 2.0 * d.sigma)) }`, `sample("z", d).max(0.0)` at z > 0) is
                // not, and taking it for one scored and updated the choice under the helper's
                // arguments; nor is a helper of the user's that is also called `sample`.
                let own = node.callee() == Some(entry)
                    && (same_value(node.value(), &c.value)
                        || (c.origin == Origin::Observed && node.value().is_unit()));
                if own {
                    node.set("address", c.address.to_string());
                    node.set("distribution", c.dist.to_string());
                    node.set("parameters", c.parameters.clone());
                    node.set("logpdf", c.log_density);
                    if !c.builtin {
                        node.set("user_distribution", true);
                    }
                    if c.origin != Origin::Latent {
                        node.set("observed", true);
                    }
                    run.attached.push(i);
                    return;
                }
            }
            // An untracked call made these choices: the node lists them, and belongs to none.
            let addresses: Vec<String> = pending
                .iter()
                .map(|&(i, _)| run.choices.list[i].address.to_string())
                .collect();
            node.set("choices", addresses);
        });
    }
}
