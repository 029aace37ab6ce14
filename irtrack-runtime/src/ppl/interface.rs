//! The generative function interface (Gen.jl's names and semantics): [`simulate`],
//! [`generate`], [`update`], [`regenerate`], [`assess`], [`propose`], and the trace they
//! return, [`PplTrace`].
//!
//! Each runs the model, recorded by irtrack under the context that gives choices their
//! addresses, with a [run](super::handler) that decides every choice's value. `update` and
//! `regenerate` re-run the model replaying the previous trace's choices by address (or, for
//! [`update_choices`] and [`regenerate`] on the same arguments, compute the same result in
//! place from the graph when it shows everything the change reaches): an address
//! the previous trace has keeps its value (unless constrained or selected), a new address is
//! drawn, and a previous address the run no longer reaches goes to the discard. Their weights
//! are Gen's:
//!
//! - `generate`: the sum of the log-densities of constrained and observed choices (and factors);
//! - `update`: `log p(t'; x') - log p(t; x)` over the choices the two traces share or that were
//!   constrained, minus the log-densities of the removed choices — new choices drawn from their
//!   prior cancel;
//! - `regenerate`: the same over the choices that were kept, not resampled — the
//!   Metropolis-Hastings acceptance ratio of resampling the selection from the prior.

use super::choices::{ChoiceMap, Choices, Nodes, Origin, Selection};
use super::dist::{register_constructors, PplRng};
use super::error::PplError;
use super::handler::{within, Mode, PplContext, Run};
use super::incremental;
use super::Address;
use crate::core::ids::NodeId;
use crate::core::tape::{NodeKind, Slot};
use crate::core::value::Value;
use crate::record::session::{try_track_with, Callable};
use crate::view::trace::Trace;
use rand::{RngCore, SeedableRng};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A run of a model: its arguments and return value, its random choices with their
/// log-densities, its score, and the irtrack trace of the run (its *graph*). What every
/// interface function and inference step returns.
pub struct PplTrace<M: Callable<A>, A> {
    pub(crate) model: M,
    pub(crate) args: A,
    /// Shared with the traces an update in place makes from this one (`M::Output` need not be
    /// `Clone`).
    pub(crate) retval: Arc<M::Output>,
    /// Shared with the traces an update in place makes from this one: they differ from it only
    /// by their overrides.
    pub(crate) graph: Arc<Trace>,
    pub(crate) choices: Arc<Choices>,
    pub(crate) nodes: Arc<Nodes>,
    pub(crate) score: f64,
    pub(crate) factors: f64,
    /// Whether the model called `factor`: a term of the score the graph does not tie to it.
    pub(crate) factored: bool,
    /// Node values an update in place changed since the graph was recorded.
    pub(crate) overrides: HashMap<NodeId, Value>,
    /// The last node of the graph with an operand the recording could not see (a closure's
    /// capture): an update in place before it cannot know what depends on a change.
    pub(crate) unseen: OnceLock<Option<NodeId>>,
    /// Whether some choice's address is a proper prefix of another's (`x` and `x[1]`): then
    /// selecting one choice also selects others, which an update in place does not look for.
    pub(crate) nested_addresses: OnceLock<bool>,
}

impl<M: Callable<A>, A> fmt::Debug for PplTrace<M, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PplTrace")
            .field("score", &self.score)
            .field("choices", &self.choices.to_map())
            .finish_non_exhaustive()
    }
}

impl<M, A> PplTrace<M, A>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    /// The joint log-density of the choices (and factors): `log p(t; x)`.
    pub fn score(&self) -> f64 {
        self.score
    }

    /// The choices, by address, in the order the model made them (observed values included).
    pub fn choices(&self) -> ChoiceMap {
        self.choices.to_map()
    }

    /// The addresses of the choices, in the order the model made them.
    pub fn addresses(&self) -> impl ExactSizeIterator<Item = &Address> + '_ {
        self.choices.list.iter().map(|c| &c.address)
    }

    /// How many choices the trace holds.
    pub fn len(&self) -> usize {
        self.choices.list.len()
    }

    /// Whether the model made no choice.
    pub fn is_empty(&self) -> bool {
        self.choices.list.is_empty()
    }

    /// The value of the choice at `address` as a `T`.
    pub fn value<T: Clone + 'static>(&self, address: impl Into<Address>) -> Option<T> {
        let (_, c) = self.choices.get(&address.into().printed_path())?;
        c.value.downcast_ref::<T>().cloned()
    }

    /// The log-density of the choice at `address` under its distribution.
    pub fn log_density(&self, address: impl Into<Address>) -> Option<f64> {
        Some(
            self.choices
                .get(&address.into().printed_path())?
                .1
                .log_density,
        )
    }

    /// Whether the choice at `address` is data: observed by the model or constrained.
    pub fn is_observed(&self, address: impl Into<Address>) -> bool {
        self.choices
            .get(&address.into().printed_path())
            .is_some_and(|(_, c)| c.origin != Origin::Latent)
    }

    /// What the model returned.
    pub fn retval(&self) -> &M::Output {
        &self.retval
    }

    /// The model's arguments.
    pub fn args(&self) -> &A {
        &self.args
    }

    /// The model.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// Whether [`graph`](Self::graph) can return the recorded graph as it is: false after an
    /// inference step changed choices in place (the choices and score are current, the
    /// recording is not).
    pub fn is_graph_current(&self) -> bool {
        self.overrides.is_empty()
    }

    /// The irtrack trace of the run: every node, choices with their `address`, `distribution`,
    /// `parameters`, `logpdf` (and `observed`) metadata. After steps that updated choices in
    /// place, the model is run again on the trace's choices first.
    ///
    /// ```
    /// use irtrack::ppl::{sample, simulate, Normal, PplRng};
    /// use irtrack::tracked;
    /// use rand::SeedableRng;
    ///
    /// #[tracked]
    /// fn model() -> f64 {
    ///     sample("x", Normal::new(0.0, 1.0)) * 2.0
    /// }
    ///
    /// let mut t = simulate(model, (), &mut PplRng::seed_from_u64(3)).unwrap();
    /// let x = t.value::<f64>("x").unwrap();
    /// let graph = t.graph().unwrap();
    /// let node = graph.nodes().find(|n| n.metadata::<String>("address").is_some()).unwrap();
    /// assert_eq!(node.value::<f64>(), Some(&x));
    /// assert_eq!(graph.root().value::<f64>(), Some(&(x * 2.0)));
    /// ```
    ///
    /// # Errors
    /// What running the model again returns ([`PplError::NotReproducible`] if it does not make
    /// the same choices).
    pub fn graph(&mut self) -> Result<&Trace, PplError> {
        if !self.overrides.is_empty() {
            let run = Run::new(Mode::Update, PplRng::seed_from_u64(0))
                .replaying(self.choices.clone(), self.factors);
            let (run, graph, retval) = execute(&self.model, &self.args, run)?;
            if run.drawn > 0 || !run.discard.is_empty() {
                return Err(PplError::NotReproducible(format!(
                    "{} new choices, {} lost",
                    run.drawn,
                    run.discard.len()
                )));
            }
            let fresh = assemble(self.model.clone(), self.args.clone(), run, graph, retval)?;
            *self = fresh;
        }
        Ok(&self.graph)
    }

    /// The graph as recorded, which may be older than the choices (see
    /// [`is_graph_current`](Self::is_graph_current)).
    pub(crate) fn recorded_graph(&self) -> &Trace {
        &self.graph
    }

    /// A copy to apply a step in place to, sharing the graph, the return value and the choices
    /// (copied when the step writes them): `update_choices` and `regenerate` leave the trace
    /// they are given as it was.
    pub(crate) fn share(&self) -> PplTrace<M, A> {
        PplTrace {
            model: self.model.clone(),
            args: self.args.clone(),
            retval: self.retval.clone(),
            graph: self.graph.clone(),
            choices: self.choices.clone(),
            nodes: self.nodes.clone(),
            score: self.score,
            factors: self.factors,
            factored: self.factored,
            overrides: self.overrides.clone(),
            unseen: self.unseen.clone(),
            nested_addresses: self.nested_addresses.clone(),
        }
    }
}

/// Runs `model` on `args` under `run`, recorded with the PPL context.
pub(crate) fn execute<M, A>(
    model: &M,
    args: &A,
    mut run: Run,
) -> Result<(Run, Trace, M::Output), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    register_constructors();
    run.tracked = true;
    let (mut run, result) = within(run, || {
        try_track_with(PplContext::default(), model.clone(), args.clone())
    });
    let (mut graph, out) = match result {
        Ok(r) => r,
        // `try_track_with` catches the model's panics; this is one of irtrack's own.
        Err(payload) => std::panic::resume_unwind(payload),
    };
    let out = match out {
        Ok(o) => o,
        Err(payload) => {
            return Err(run
                .error
                .take()
                .unwrap_or_else(|| PplError::Panicked(panic_text(payload.as_ref()))))
        }
    };
    if let Some(e) = run.error.take() {
        return Err(e);
    }
    run.finish()?;
    unit_root(&mut graph);
    Ok((run, graph, out))
}

/// `track` stores a tracked root's `()` result as a value known only by its type (`_::()`),
/// which is not its return's `()` (and `Trace::verify` says so): the root gets `()` back.
fn unit_root(graph: &mut Trace) {
    let root = *graph.store.node(graph.root);
    if root.kind != NodeKind::NestedCall {
        return;
    }
    let c = root.value as usize;
    let Some(call) = graph.store.calls.get(c) else {
        return;
    };
    let v = graph.store.value_at(call.value);
    if v.is_opaque() && v.type_id() == Some(std::any::TypeId::of::<()>()) {
        graph.store.calls[c].value = Slot::UNIT;
    }
}

/// Runs `f` (a proposal, untracked) under `run`.
pub(crate) fn execute_plain<T>(mut run: Run, f: impl FnOnce() -> T) -> Result<(Run, T), PplError> {
    run.tracked = false;
    let (mut run, result) = within(run, f);
    let out = match result {
        Ok(o) => o,
        Err(payload) => {
            return Err(run
                .error
                .take()
                .unwrap_or_else(|| PplError::Panicked(panic_text(payload.as_ref()))))
        }
    };
    if let Some(e) = run.error.take() {
        return Err(e);
    }
    run.finish()?;
    Ok((run, out))
}

pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

pub(crate) fn assemble<M, A>(
    model: M,
    args: A,
    run: Run,
    graph: Trace,
    retval: M::Output,
) -> Result<PplTrace<M, A>, PplError>
where
    M: Callable<A>,
{
    let score = run.score.value()?;
    let factors = run.factors.value()?;
    let mut graph = graph;
    // Choices no node was given (made where nothing was recorded: a model that is a closure,
    // a helper's choices the graph lists only by address): the root says so, so that
    // `score_graph` refuses a graph that does not hold every choice.
    if run.attached.len() < run.choices.list.len() {
        let missing: Vec<String> = (0..run.choices.list.len())
            .filter(|i| !run.attached.contains(i))
            .map(|i| run.choices.list[i].address.to_string())
            .collect();
        let root = graph.root;
        graph.node_mut(root).set("choices_unrecorded", missing);
    }
    let nodes = find_nodes(&graph, &run.attached, run.choices.list.len());
    Ok(PplTrace {
        model,
        args,
        retval: Arc::new(retval),
        graph: Arc::new(graph),
        choices: Arc::new(run.choices),
        nodes: Arc::new(nodes),
        score,
        factors,
        factored: run.factor_calls > 0,
        overrides: HashMap::new(),
        unseen: OnceLock::new(),
        nested_addresses: OnceLock::new(),
    })
}

/// The node of each choice whose call got its metadata: the nodes with an `address`, in
/// recording order, are the attached choices in the order they were attached.
fn find_nodes(graph: &Trace, attached: &[usize], n: usize) -> Nodes {
    let mut ids: Vec<NodeId> = graph
        .store
        .metadata
        .iter()
        .filter(|(_, m)| m.iter().any(|(k, _)| k == "address"))
        .map(|(id, _)| *id)
        .collect();
    let mut nodes = Nodes {
        of_choice: vec![None; n],
        choice_of: HashMap::new(),
    };
    // Another context's `address` metadata would break the pairing: no node is then known.
    if ids.len() != attached.len() {
        return nodes;
    }
    ids.sort_unstable();
    for (id, &c) in ids.into_iter().zip(attached) {
        nodes.of_choice[c] = Some(id);
        nodes.choice_of.insert(id, c);
    }
    nodes
}

pub(crate) fn seeded<R: RngCore + ?Sized>(rng: &mut R) -> PplRng {
    PplRng::seed_from_u64(rng.next_u64())
}

/// Runs `model` on `args`, drawing every choice from its distribution (Gen's `simulate`).
///
/// ```
/// use irtrack::ppl::{sample, simulate, Beta, Bernoulli, PplRng};
/// use irtrack::tracked;
/// use rand::SeedableRng;
///
/// #[tracked]
/// fn coin(n: usize) -> usize {
///     let p = sample("p", Beta::new(2.0, 2.0));
///     let mut heads = 0;
///     for i in 0..n {
///         if sample(("flip", i), Bernoulli::new(p)) {
///             heads += 1;
///         }
///     }
///     heads
/// }
///
/// let t = simulate(coin, (10,), &mut PplRng::seed_from_u64(1)).unwrap();
/// assert_eq!(t.len(), 11);
/// let heads = (0..10).filter(|&i| t.value::<bool>(("flip", i)).unwrap()).count();
/// assert_eq!(*t.retval(), heads);
/// let expected: f64 = t.addresses().map(|a| t.log_density(a).unwrap()).sum();
/// assert!((t.score() - expected).abs() < 1e-12);
/// ```
///
/// # Errors
/// An invalid choice ([`PplError`]), or the model's panic ([`PplError::Panicked`]).
pub fn simulate<M, A, R>(model: M, args: A, rng: &mut R) -> Result<PplTrace<M, A>, PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
{
    let run = Run::new(Mode::Draw, seeded(rng));
    let (run, graph, retval) = execute(&model, &args, run)?;
    assemble(model, args, run, graph, retval)
}

/// Runs `model` on `args` with the choices in `constraints` fixed to their values, drawing
/// the others; returns the trace and the log-weight: the log-density of the constrained and
/// observed choices (Gen's `generate`). With the observations as constraints, the weight is
/// an importance weight of the prior as proposal.
///
/// ```
/// use irtrack::ppl::{generate, sample, ChoiceMap, Normal, PplRng};
/// use rand::SeedableRng;
///
/// let model = || {
///     let mu = sample("mu", Normal::new(0.0, 1.0));
///     sample("y", Normal::new(mu, 0.5))
/// };
/// let obs = ChoiceMap::new().with("y", 1.0);
/// let (t, w) = generate(model, (), &obs, &mut PplRng::seed_from_u64(2)).unwrap();
/// assert_eq!(t.value::<f64>("y"), Some(1.0));
/// assert_eq!(w, t.log_density("y").unwrap());
/// ```
///
/// # Errors
/// As [`simulate`]; [`PplError::UnvisitedConstraints`] when a constraint's address is never
/// reached, [`PplError::TypeMismatch`] when its value is not of the choice's type.
pub fn generate<M, A, R>(
    model: M,
    args: A,
    constraints: &ChoiceMap,
    rng: &mut R,
) -> Result<(PplTrace<M, A>, f64), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
{
    generate_shared(model, args, Arc::new(constraints.clone()), rng)
}

pub(crate) fn generate_shared<M, A, R>(
    model: M,
    args: A,
    constraints: Arc<ChoiceMap>,
    rng: &mut R,
) -> Result<(PplTrace<M, A>, f64), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
{
    let run = Run::new(Mode::Draw, seeded(rng)).constrained(constraints);
    let (run, graph, retval) = execute(&model, &args, run)?;
    let weight = run.weight.value()?;
    Ok((assemble(model, args, run, graph, retval)?, weight))
}

/// What an internal update returns beyond Gen's triple: how many choices were drawn.
pub(crate) struct Updated<M: Callable<A>, A> {
    pub trace: PplTrace<M, A>,
    pub weight: f64,
    pub discard: ChoiceMap,
    pub drawn: usize,
}

pub(crate) fn update_counted<M, A, R>(
    trace: &PplTrace<M, A>,
    args: A,
    constraints: &ChoiceMap,
    rng: &mut R,
) -> Result<Updated<M, A>, PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
{
    update_run(trace, args, constraints, seeded(rng))
}

/// `update` by a run of the model, drawing new choices from `inner`.
fn update_run<M, A>(
    trace: &PplTrace<M, A>,
    args: A,
    constraints: &ChoiceMap,
    inner: PplRng,
) -> Result<Updated<M, A>, PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    let run = Run::new(Mode::Update, inner)
        .replaying(trace.choices.clone(), trace.factors)
        .constrained(Arc::new(constraints.clone()));
    let (mut run, graph, retval) = execute(&trace.model, &args, run)?;
    let weight = run.weight.value()?;
    let discard = std::mem::take(&mut run.discard);
    let drawn = run.drawn;
    let new = assemble(trace.model.clone(), args, run, graph, retval)?;
    Ok(Updated {
        trace: new,
        weight,
        discard,
        drawn,
    })
}

/// `update` on the same arguments: in place from the graph when it shows everything the
/// constrained choices reach (see [`incremental`](super::incremental)), else by a run of the
/// model. Both draw from one generator seeded from `rng`, so either consumes `rng` alike.
pub(crate) fn update_choices_counted<M, A, R>(
    trace: &PplTrace<M, A>,
    constraints: &ChoiceMap,
    rng: &mut R,
) -> Result<Updated<M, A>, PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
{
    let inner = seeded(rng);
    let (addresses, values): (Vec<Address>, Vec<Value>) = constraints
        .iter()
        .map(|(a, v)| (a.clone(), v.clone()))
        .unzip();
    // A step that cannot be made in place runs the model again, which must find the injected
    // checkpoints as a run of the model would.
    let in_place = crate::program::checkpoint::attempt_or_leave(|| {
        incremental::update_in_place(trace, &addresses, &values)
    });
    if let Some(step) = in_place {
        let step = step?;
        let weight = step.weight;
        // No choice appears or disappears in place: the discard is the constrained choices'
        // old values, in the order the model made them, as a run lists them.
        let mut old: Vec<(usize, &Address)> = addresses
            .iter()
            .filter_map(|a| Some((trace.choices.get(a)?.0, a)))
            .collect();
        old.sort_unstable_by_key(|(i, _)| *i);
        let mut discard = ChoiceMap::new();
        for (i, a) in old {
            discard.insert_value(a.clone(), trace.choices.list[i].value.clone());
        }
        let mut new = trace.share();
        incremental::apply(&mut new, step)?;
        return Ok(Updated {
            trace: new,
            weight,
            discard,
            drawn: 0,
        });
    }
    update_run(trace, trace.args.clone(), constraints, inner)
}

/// [`update`] with the trace's own arguments: the constrained choices get their new values,
/// and only what depends on them is recomputed, from the graph, when the graph shows all of
/// it (a change reaching only operators, float methods, distributions' constructors and other
/// choices' distributions, in the same call); anything else — a branch condition, the return
/// value, an argument of a nested call, a closure's capture, a new or disappearing choice, a
/// constraint on data or at an address that is not exactly one choice — runs the model again,
/// as `update` does. The weight and discard are `update`'s either way; after a step in place
/// [`is_graph_current`](PplTrace::is_graph_current) is false.
///
/// ```
/// use irtrack::ppl::{observe, sample, simulate, update_choices, ChoiceMap, Normal, PplRng};
/// use irtrack::tracked;
/// use rand::SeedableRng;
///
/// #[tracked]
/// fn model(y: f64) {
///     let mu = sample("mu", Normal::new(0.0, 1.0));
///     observe("y", Normal::new(mu, 1.0), y);
/// }
///
/// let mut rng = PplRng::seed_from_u64(4);
/// let t = simulate(model, (0.5,), &mut rng).unwrap();
/// let (u, w, discard) = update_choices(&t, &ChoiceMap::new().with("mu", 0.2), &mut rng).unwrap();
/// assert!(!u.is_graph_current()); // computed in place: the model did not run
/// assert_eq!(discard.get::<f64>("mu"), t.value::<f64>("mu"));
/// assert!((w - (u.score() - t.score())).abs() < 1e-12);
/// ```
///
/// # Errors
/// As [`update`].
pub fn update_choices<M, A, R>(
    trace: &PplTrace<M, A>,
    constraints: &ChoiceMap,
    rng: &mut R,
) -> Result<(PplTrace<M, A>, f64, ChoiceMap), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
{
    let u = update_choices_counted(trace, constraints, rng)?;
    Ok((u.trace, u.weight, u.discard))
}

/// Runs the model again on `args` (its arguments may change), keeping each of `trace`'s
/// choices at an address the new run reaches, except those `constraints` fix to new values;
/// new addresses are drawn. Returns the new trace, the log-weight (see the
/// [module docs](crate::ppl)) and the discard: the previous values of constrained choices and
/// the choices the new run no longer makes (Gen's `update`). `trace` is left as it was.
///
/// `update` always runs the model: it cannot tell whether `args` are the trace's own. On the
/// trace's own arguments, [`update_choices`] gives the same result, in place from the graph
/// when it can.
///
/// ```
/// use irtrack::ppl::{simulate, update, sample, ChoiceMap, Normal, PplRng};
/// use rand::SeedableRng;
///
/// let model = |n: usize| {
///     let mut s = 0.0;
///     for i in 0..n {
///         s += sample(("x", i), Normal::new(0.0, 1.0));
///     }
///     s
/// };
/// let mut rng = PplRng::seed_from_u64(4);
/// let t = simulate(model, (3,), &mut rng).unwrap();
/// // One fewer step and a new value for x[0]: x[2] is discarded, x[0]'s old value too.
/// let (u, w, discard) = update(&t, (2,), &ChoiceMap::new().with(("x", 0), 0.5), &mut rng).unwrap();
/// assert_eq!(u.len(), 2);
/// assert_eq!(discard.len(), 2);
/// assert!((w - (u.score() - t.score())).abs() < 1e-12);
/// ```
///
/// # Errors
/// As [`generate`].
pub fn update<M, A, R>(
    trace: &PplTrace<M, A>,
    args: A,
    constraints: &ChoiceMap,
    rng: &mut R,
) -> Result<(PplTrace<M, A>, f64, ChoiceMap), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
{
    let u = update_counted(trace, args, constraints, rng)?;
    Ok((u.trace, u.weight, u.discard))
}

/// Draws the selected choices anew from their distributions and keeps the others, on the same
/// arguments; returns the new trace and the log-weight whose exponential is the
/// Metropolis-Hastings acceptance ratio of that move (Gen's `regenerate`). Observed choices are
/// never drawn.
///
/// When the selection names choices by their exact addresses and the graph shows everything
/// that depends on them, the new trace is computed in place from the graph, as an [`mh`] step
/// is (see `docs/ppl.md`); otherwise the model runs again ([`regenerate_rerun`]). Both draw the
/// same values from a generator seeded from `rng`, and give the same trace and weight.
///
/// [`mh`]: super::mh
///
/// ```
/// use irtrack::ppl::{regenerate, sample, simulate, Normal, PplRng, Selection};
/// use rand::SeedableRng;
///
/// let model = || {
///     let a = sample("a", Normal::new(0.0, 1.0));
///     sample("b", Normal::new(a, 1.0))
/// };
/// let mut rng = PplRng::seed_from_u64(5);
/// let t = simulate(model, (), &mut rng).unwrap();
/// let (u, w) = regenerate(&t, &Selection::of(["a"]), &mut rng).unwrap();
/// assert_eq!(u.value::<f64>("b"), t.value::<f64>("b"));
/// let expected = u.log_density("b").unwrap() - t.log_density("b").unwrap();
/// assert!((w - expected).abs() < 1e-12);
/// ```
///
/// # Errors
/// As [`simulate`].
pub fn regenerate<M, A, R>(
    trace: &PplTrace<M, A>,
    selection: &Selection,
    rng: &mut R,
) -> Result<(PplTrace<M, A>, f64), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
{
    let inner = seeded(rng);
    // The attempt draws from a copy: if it gives up, the run draws the same values.
    let mut attempt = inner.clone();
    let in_place = crate::program::checkpoint::attempt_or_leave(|| {
        incremental::regenerate_in_place(trace, selection, &mut attempt)
    });
    if let Some(step) = in_place {
        let step = step?;
        let weight = step.weight;
        let mut new = trace.share();
        incremental::apply(&mut new, step)?;
        return Ok((new, weight));
    }
    regenerate_run(trace, selection, inner)
}

/// Like [`regenerate`], always running the model again: the reference the step in place is
/// checked against.
///
/// ```
/// use irtrack::ppl::{regenerate, regenerate_rerun, sample, simulate, Normal, PplRng, Selection};
/// use rand::SeedableRng;
///
/// let model = |y: f64| {
///     let a = sample("a", Normal::new(0.0, 1.0));
///     irtrack::ppl::observe("y", Normal::new(a, 1.0), y);
/// };
/// let t = simulate(model, (0.3,), &mut PplRng::seed_from_u64(5)).unwrap();
/// let s = Selection::of(["a"]);
/// let (u, w) = regenerate_rerun(&t, &s, &mut PplRng::seed_from_u64(6)).unwrap();
/// let (v, x) = regenerate(&t, &s, &mut PplRng::seed_from_u64(6)).unwrap();
/// assert_eq!(u.value::<f64>("a"), v.value::<f64>("a"));
/// assert!(u.is_graph_current());
/// assert!((w - x).abs() < 1e-12);
/// ```
///
/// # Errors
/// As [`simulate`].
pub fn regenerate_rerun<M, A, R>(
    trace: &PplTrace<M, A>,
    selection: &Selection,
    rng: &mut R,
) -> Result<(PplTrace<M, A>, f64), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
{
    regenerate_run(trace, selection, seeded(rng))
}

fn regenerate_run<M, A>(
    trace: &PplTrace<M, A>,
    selection: &Selection,
    inner: PplRng,
) -> Result<(PplTrace<M, A>, f64), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    let mut run = Run::new(Mode::Regenerate, inner).replaying(trace.choices.clone(), trace.factors);
    run.selection = Some(selection.clone());
    let (run, graph, retval) = execute(&trace.model, &trace.args, run)?;
    let weight = run.weight.value()?;
    let new = assemble(trace.model.clone(), trace.args.clone(), run, graph, retval)?;
    Ok((new, weight))
}

/// The joint log-density of `choices` under the model on `args`, and what the model returns
/// with them; every choice the model makes must have a value (Gen's `assess`).
///
/// ```
/// use irtrack::ppl::{assess, sample, ChoiceMap, Normal};
///
/// let model = || sample("x", Normal::new(0.0, 1.0));
/// let (lp, x) = assess(model, (), &ChoiceMap::new().with("x", 0.0)).unwrap();
/// assert_eq!(x, 0.0);
/// assert!((lp + 0.5 * (2.0 * std::f64::consts::PI).ln()).abs() < 1e-15);
/// ```
///
/// # Errors
/// [`PplError::MissingValue`] for a choice without a value, [`PplError::UnvisitedConstraints`]
/// for a value at an address the model never reaches, and as [`simulate`].
pub fn assess<M, A>(model: M, args: A, choices: &ChoiceMap) -> Result<(f64, M::Output), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    let run =
        Run::new(Mode::Assess, PplRng::seed_from_u64(0)).constrained(Arc::new(choices.clone()));
    let (run, _, retval) = execute(&model, &args, run)?;
    Ok((run.score.value()?, retval))
}

/// Runs `model` on `args`, drawing every choice, and returns the choices, their joint
/// log-density and what the model returned (Gen's `propose`).
///
/// ```
/// use irtrack::ppl::{propose, sample, Bernoulli, PplRng};
/// use rand::SeedableRng;
///
/// let (choices, lp, b) = propose(|| sample("b", Bernoulli::new(0.25)), (), &mut PplRng::seed_from_u64(1)).unwrap();
/// assert_eq!(choices.get::<bool>("b"), Some(b));
/// assert_eq!(lp, if b { 0.25f64.ln() } else { 0.75f64.ln() });
/// ```
///
/// # Errors
/// As [`simulate`].
pub fn propose<M, A, R>(
    model: M,
    args: A,
    rng: &mut R,
) -> Result<(ChoiceMap, f64, M::Output), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
{
    let run = Run::new(Mode::Draw, seeded(rng));
    let (run, _, retval) = execute(&model, &args, run)?;
    Ok((run.choices.to_map(), run.score.value()?, retval))
}
