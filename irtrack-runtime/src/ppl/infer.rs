//! Inference on traces: Metropolis-Hastings (resimulation, single-site or block, and with a
//! user's proposal), Hamiltonian Monte Carlo on continuous choices, importance sampling.
//! Every step takes a generator and is deterministic given its seed.

use super::choices::{ChoiceMap, Selection};
use super::error::PplError;
use super::gradient;
use super::handler::{Mode, Run};
use super::incremental;
use super::interface::{
    execute_plain, generate_shared, seeded, update_choices_counted, update_counted, PplTrace,
};
use crate::core::value::Value;
use crate::record::session::Callable;
use rand::{Rng, RngCore};
use std::sync::Arc;

/// A proposal's evaluation, `None` when it stopped at a point of probability zero
/// ([`PplError::ImpossiblePoint`]: a distribution made invalid by a value outside a support):
/// the proposal is then rejected, as one of weight -∞ is. Any other error is the caller's.
pub(crate) fn unless_impossible<T>(r: Result<T, PplError>) -> Result<Option<T>, PplError> {
    match r {
        Ok(t) => Ok(Some(t)),
        Err(PplError::ImpossiblePoint { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

fn accept<R: RngCore + ?Sized>(log_ratio: f64, rng: &mut R) -> bool {
    if log_ratio >= 0.0 {
        return true;
    }
    let u: f64 = rng.random();
    u.ln() < log_ratio
}

/// One Metropolis-Hastings step that draws the selected choices anew from their
/// distributions (resimulation MH, Gen's `mh(trace, selection)`): a single-site step when the
/// selection is one address, a block step for several. Returns the trace after the step and
/// whether the proposal was accepted.
///
/// When the selection names choices by their exact addresses and the graph shows that only
/// re-executable nodes and other choices' distributions depend on them, the step is computed
/// in place, from the graph, without running the model (see `docs/ppl.md`); otherwise it runs
/// the model again ([`regenerate`](super::regenerate)). Both give the same chain.
///
/// A selection that holds no latent choice of this trace (an address this run of the model did
/// not reach, as Gen allows in models whose choices come and go, or a misspelt one) draws
/// nothing: the step gives the trace back, accepted (its weight is 0). Check a chain's
/// addresses with [`PplTrace::value`](super::PplTrace::value) when a step never moves.
///
/// ```
/// use irtrack::ppl::{mh, observe, sample, generate, Beta, Bernoulli, ChoiceMap, PplRng, Selection};
/// use irtrack::tracked;
/// use rand::SeedableRng;
///
/// #[tracked]
/// fn coin(flips: Vec<bool>) {
///     let p = sample("p", Beta::new(2.0, 2.0));
///     for (i, &f) in flips.iter().enumerate() {
///         observe(("flip", i), Bernoulli::new(p), f);
///     }
/// }
///
/// let mut rng = PplRng::seed_from_u64(1);
/// let flips = vec![true, true, true, false];
/// let (mut t, _) = generate(coin, (flips,), &ChoiceMap::new(), &mut rng).unwrap();
/// let mut sum = 0.0;
/// for _ in 0..2000 {
///     t = mh(t, &Selection::of(["p"]), &mut rng).unwrap().0;
///     sum += t.value::<f64>("p").unwrap();
/// }
/// // The posterior is Beta(5, 3): mean 0.625.
/// assert!((sum / 2000.0 - 0.625).abs() < 0.05);
/// ```
///
/// # Errors
/// What running the model returns ([`PplError`]).
pub fn mh<M, A, R>(
    mut trace: PplTrace<M, A>,
    selection: &Selection,
    rng: &mut R,
) -> Result<(PplTrace<M, A>, bool), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
{
    let inner = seeded(rng);
    // The attempt draws from a copy: if it gives up, the run draws the same values, so both
    // paths give the same chain.
    let mut attempt = inner.clone();
    // A step that cannot be made in place runs the model again, which must find the injected
    // checkpoints as a run of the model would.
    let in_place = crate::program::checkpoint::attempt_or_leave(|| {
        incremental::regenerate_in_place(&trace, selection, &mut attempt)
    });
    if let Some(step) = in_place {
        let Some(step) = unless_impossible(step)? else {
            return Ok((trace, false));
        };
        if accept(step.weight, rng) {
            incremental::apply(&mut trace, step)?;
            return Ok((trace, true));
        }
        return Ok((trace, false));
    }
    let mut run = Run::new(Mode::Regenerate, inner).replaying(trace.choices.clone(), trace.factors);
    run.selection = Some(selection.clone());
    let Some((run, graph, retval)) =
        unless_impossible(super::interface::execute(&trace.model, &trace.args, run))?
    else {
        return Ok((trace, false));
    };
    let weight = run.weight.value()?;
    let discarded = |a: &super::Address| run.discard.contains(a.clone());
    if loses_data(&trace, |a| !discarded(a)) {
        return Ok((trace, false));
    }
    if accept(weight, rng) {
        let new = super::interface::assemble(
            trace.model.clone(),
            trace.args.clone(),
            run,
            graph,
            retval,
        )?;
        Ok((new, true))
    } else {
        Ok((trace, false))
    }
}

/// Like [`mh`], always running the model again: the reference the in-place step is checked
/// against, and the baseline of its benchmark.
///
/// ```
/// use irtrack::ppl::{mh_rerun, sample, simulate, Normal, PplRng, Selection};
/// use rand::SeedableRng;
///
/// let mut rng = PplRng::seed_from_u64(2);
/// let t = simulate(|| sample("x", Normal::new(0.0, 1.0)), (), &mut rng).unwrap();
/// let (t, accepted) = mh_rerun(t, &Selection::of(["x"]), &mut rng).unwrap();
/// assert!(accepted); // resimulating the only choice is always accepted
/// assert!(t.is_graph_current());
/// ```
///
/// # Errors
/// As [`mh`].
pub fn mh_rerun<M, A, R>(
    trace: PplTrace<M, A>,
    selection: &Selection,
    rng: &mut R,
) -> Result<(PplTrace<M, A>, bool), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
{
    let (new, weight) = super::interface::regenerate_rerun(&trace, selection, rng)?;
    if loses_data(&trace, |a| new.choices.get(a).is_some()) {
        return Ok((trace, false));
    }
    if accept(weight, rng) {
        Ok((new, true))
    } else {
        Ok((trace, false))
    }
}

/// One Metropolis-Hastings step with a user's proposal (Gen's `mh(trace, proposal, args)`):
/// `proposal` reads the current trace and proposes new values by calling
/// [`sample`](super::sample) at the model's addresses (written out in full: the proposal runs
/// untracked). The step updates the trace with the proposed values and accepts with
/// `w - log q(fwd) + log q(bwd)`, where the backward proposal is scored on the new trace with
/// the discarded values.
///
/// ```
/// use irtrack::ppl::{mh_propose, sample, simulate, Normal, PplRng};
/// use rand::SeedableRng;
///
/// let model = || sample("x", Normal::new(3.0, 1.0));
/// let mut rng = PplRng::seed_from_u64(3);
/// let mut t = simulate(model, (), &mut rng).unwrap();
/// let mut sum = 0.0;
/// for _ in 0..3000 {
///     // A random walk around the current value.
///     t = mh_propose(t, |cur| {
///         let x: f64 = cur.value("x").unwrap();
///         sample("x", Normal::new(x, 0.5));
///     }, &mut rng).unwrap().0;
///     sum += t.value::<f64>("x").unwrap();
/// }
/// assert!((sum / 3000.0 - 3.0).abs() < 0.15);
/// ```
///
/// # Errors
/// As [`mh`]; [`PplError::NotReversible`] when the proposal, run on the new trace, cannot
/// propose back the discarded values.
pub fn mh_propose<M, A, R, P>(
    trace: PplTrace<M, A>,
    proposal: P,
    rng: &mut R,
) -> Result<(PplTrace<M, A>, bool), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
    P: Fn(&PplTrace<M, A>),
{
    let (fwd_run, ()) = execute_plain(Run::new(Mode::Draw, seeded(rng)), || proposal(&trace))?;
    let forward = fwd_run.choices.to_map();
    let fwd_score = fwd_run.score.value()?;
    // The same arguments: in place from the graph when it can be.
    // A proposal outside the model's support (a random walk leaving `Beta`'s [0, 1]) has
    // probability zero: rejected, without asking the backward proposal about it.
    let Some(updated) = unless_impossible(update_choices_counted(&trace, &forward, rng))? else {
        return Ok((trace, false));
    };
    if updated.weight == f64::NEG_INFINITY {
        return Ok((trace, false));
    }
    // An observation whose value the model computed from a latent (`observe("y", d, 2.0 * z)`)
    // changes with it and is in the discard, but no proposal draws it: the backward proposal
    // is asked for the latent choices only.
    let latent_discard = latent_only(&updated.discard, &trace);
    let bwd_run = Run::new(Mode::Assess, seeded(rng)).constrained(Arc::new(latent_discard));
    let bwd_score = match execute_plain(bwd_run, || proposal(&updated.trace)) {
        Ok((run, ())) => run.score.value()?,
        Err(PplError::UnvisitedConstraints(v)) => return Err(PplError::NotReversible(v)),
        Err(PplError::MissingValue(a)) => return Err(PplError::NotReversible(vec![a])),
        Err(e) => return Err(e),
    };
    let log_ratio = updated.weight - fwd_score + bwd_score;
    let kept = |a: &super::Address| updated.trace.choices.get(a).is_some();
    if loses_data(&trace, kept) {
        return Ok((trace, false));
    }
    if accept(log_ratio, rng) {
        Ok((updated.trace, true))
    } else {
        Ok((trace, false))
    }
}

/// Hamiltonian Monte Carlo's settings.
///
/// ```
/// use irtrack::ppl::Hmc;
/// let h = Hmc::default();
/// assert_eq!((h.step_size, h.steps), (0.1, 10));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hmc {
    /// The leapfrog step size.
    pub step_size: f64,
    /// How many leapfrog steps a proposal takes (1 makes it MALA).
    pub steps: usize,
}

impl Default for Hmc {
    fn default() -> Hmc {
        Hmc {
            step_size: 0.1,
            steps: 10,
        }
    }
}

/// One HMC step on the selected continuous choices (`f64` choices of normal, uniform, beta,
/// gamma or exponential distributions; observed ones are left alone): momenta drawn from a
/// standard normal, `config.steps` leapfrog steps of `config.step_size` along the gradient of
/// the score, and an exact Metropolis-Hastings test on the score and kinetic energy. A
/// trajectory that leaves a choice's support, or changes which choices the model makes, is
/// rejected. The gradient is [`score_gradient`](super::score_gradient)'s: irtrack's reverse
/// sweep over the graph of the model at each point of the trajectory, or central differences
/// of the exact score where the graph cannot give it (its
/// [`GradientMethod`](super::GradientMethod) says why); the gradient only steers the
/// proposal, the acceptance test uses exact scores. The proposal's score is computed in place
/// from the graph when it shows everything that depends on the selected choices (see [`mh`]),
/// else by running the model. Returns the trace after the step and whether the proposal was
/// accepted.
///
/// ```
/// use irtrack::ppl::{generate, hmc, observe, sample, ChoiceMap, Hmc, Normal, PplRng, Selection};
/// use rand::SeedableRng;
///
/// let model = |y: f64| {
///     let mu = sample("mu", Normal::new(0.0, 1.0));
///     observe("y", Normal::new(mu, 1.0), y);
/// };
/// let mut rng = PplRng::seed_from_u64(4);
/// let (mut t, _) = generate(model, (2.0,), &ChoiceMap::new(), &mut rng).unwrap();
/// let mut sum = 0.0;
/// for _ in 0..400 {
///     t = hmc(t, &Selection::of(["mu"]), &Hmc { step_size: 0.3, steps: 5 }, &mut rng).unwrap().0;
///     sum += t.value::<f64>("mu").unwrap();
/// }
/// // The posterior is N(1, 1/2).
/// assert!((sum / 400.0 - 1.0).abs() < 0.2);
/// ```
///
/// # Errors
/// [`PplError::NotContinuous`] when a selected choice is not a continuous `f64`;
/// [`PplError::BadSettings`] for a NaN or infinite `step_size`; as [`mh`].
pub fn hmc<M, A, R>(
    trace: PplTrace<M, A>,
    selection: &Selection,
    config: &Hmc,
    rng: &mut R,
) -> Result<(PplTrace<M, A>, bool), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
{
    // A NaN step made every trajectory NaN, which read as the model's log-density being NaN.
    if !config.step_size.is_finite() {
        return Err(PplError::BadSettings(format!(
            "`Hmc::step_size` is {}; give a finite step (0 or a negative one moves nothing or \
             backwards, and is allowed)",
            config.step_size
        )));
    }
    let (addresses, q0) = gradient::continuous(&trace, selection)?;
    if addresses.is_empty() {
        return Ok((trace, false));
    }
    let normal = rand_distr::StandardNormal;
    let p0: Vec<f64> = (0..q0.len())
        .map(|_| rng.sample::<f64, _>(normal))
        .collect();
    let kinetic = |p: &[f64]| 0.5 * p.iter().map(|x| x * x).sum::<f64>();
    let eps = config.step_size;
    let mut q = q0.clone();
    let mut p = p0.clone();
    // The trajectory's gradients are computations on the model, not runs of it.
    let mut g =
        crate::program::checkpoint::aside(|| gradient::gradient_at(&trace, &addresses, &q))?.0;
    for _ in 0..config.steps {
        for (pi, gi) in p.iter_mut().zip(&g) {
            *pi += 0.5 * eps * gi;
        }
        for (qi, pi) in q.iter_mut().zip(&p) {
            *qi += eps * pi;
        }
        g = crate::program::checkpoint::aside(|| gradient::gradient_at(&trace, &addresses, &q))?.0;
        for (pi, gi) in p.iter_mut().zip(&g) {
            *pi += 0.5 * eps * gi;
        }
    }
    let snapshots: Vec<Value> = q.iter().map(|&v| Value::snapshot(v)).collect();
    let in_place = crate::program::checkpoint::attempt_or_leave(|| {
        incremental::update_in_place(&trace, &addresses, &snapshots)
    });
    if let Some(step) = in_place {
        let Some(step) = unless_impossible(step)? else {
            return Ok((trace, false));
        };
        let log_ratio = step.weight - kinetic(&p) + kinetic(&p0);
        if !log_ratio.is_nan() && accept(log_ratio, rng) {
            let mut trace = trace;
            incremental::apply(&mut trace, step)?;
            return Ok((trace, true));
        }
        return Ok((trace, false));
    }
    let mut proposed = ChoiceMap::new();
    for (a, &v) in addresses.iter().zip(&q) {
        proposed.insert_value(a.clone(), crate::core::value::Value::snapshot(v));
    }
    let Some(updated) =
        unless_impossible(update_counted(&trace, trace.args.clone(), &proposed, rng))?
    else {
        return Ok((trace, false));
    };
    // The latent choices must stay those of the trace: none drawn, none lost but the proposed
    // ones (whose old values are the discard). Observations may change, appear or go (an
    // observation on one branch only: `if x > 0.0 { observe("y", …) }`); the weight counts
    // them, and the rule is the same both ways, as the chain's balance needs. (It read the
    // new trace: a move that removed an observation was always rejected, the reverse move
    // accepted, and `P(x > 0)` came out 0.99998 for 0.22.)
    let kept = |a: &super::Address| updated.trace.choices.get(a).is_some();
    let structure_kept = updated.drawn == 0
        && updated
            .discard
            .addresses()
            .all(|a| proposed.contains(a.clone()) || trace.is_observed(a.clone()))
        && !loses_data(&trace, kept);
    let log_ratio = updated.weight - kinetic(&p) + kinetic(&p0);
    if structure_kept && !log_ratio.is_nan() && accept(log_ratio, rng) {
        Ok((updated.trace, true))
    } else {
        Ok((trace, false))
    }
}

/// Weighted traces from importance sampling, and the log marginal likelihood estimate.
pub struct Importance<M: Callable<A>, A> {
    /// The traces, each generated with the observations as constraints; a draw at a point of
    /// probability zero (a `condition` that failed) is not kept: its weight is 0, counted in
    /// the marginal likelihood only, so there may be fewer traces than draws.
    pub traces: Vec<PplTrace<M, A>>,
    /// Each trace's log-weight: the log-density of the observations given its other choices.
    pub log_weights: Vec<f64>,
    /// `log (1/n Σ exp(w_i))`: an unbiased estimate of the marginal likelihood, in logs.
    pub log_marginal_likelihood: f64,
}

impl<M: Callable<A>, A> Importance<M, A> {
    /// The weights normalised to sum to 1 (all zero when every trace is impossible). Traces of
    /// infinite weight (a choice where its density is unbounded: `Beta(a < 1, b)` at 0) share
    /// the whole weight equally, the limit of the normalisation.
    pub fn normalized_weights(&self) -> Vec<f64> {
        let max = self
            .log_weights
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        if max == f64::NEG_INFINITY {
            return vec![0.0; self.log_weights.len()];
        }
        if max == f64::INFINITY {
            let k = self.log_weights.iter().filter(|&&l| l == max).count() as f64;
            return self
                .log_weights
                .iter()
                .map(|&l| if l == max { 1.0 / k } else { 0.0 })
                .collect();
        }
        let w: Vec<f64> = self.log_weights.iter().map(|l| (l - max).exp()).collect();
        let s: f64 = w.iter().sum();
        w.into_iter().map(|x| x / s).collect()
    }

    /// The effective sample size `1 / Σ w_i²` of the normalised weights.
    pub fn effective_sample_size(&self) -> f64 {
        let s: f64 = self.normalized_weights().iter().map(|w| w * w).sum();
        if s == 0.0 {
            0.0
        } else {
            1.0 / s
        }
    }

    /// The weighted mean of `f` over the traces; NaN when every trace is impossible (all
    /// weights `-∞`), where the posterior, and so the mean, is undefined (0/0), not 0.
    pub fn mean(&self, f: impl Fn(&PplTrace<M, A>) -> f64) -> f64 {
        if self.log_weights.iter().all(|&w| w == f64::NEG_INFINITY) {
            return f64::NAN;
        }
        self.normalized_weights()
            .iter()
            .zip(&self.traces)
            .map(|(w, t)| if *w == 0.0 { 0.0 } else { w * f(t) })
            .sum()
    }
}

/// Importance sampling with the prior as proposal: `n` traces generated with `observations`
/// as constraints, their weights, and the log marginal likelihood estimate `log p(observations)`.
///
/// ```
/// use irtrack::ppl::{importance_sampling, sample, ChoiceMap, Normal, PplRng};
/// use rand::SeedableRng;
///
/// let model = || {
///     let mu = sample("mu", Normal::new(0.0, 1.0));
///     sample("y", Normal::new(mu, 1.0))
/// };
/// let obs = ChoiceMap::new().with("y", 1.0);
/// let is = importance_sampling(model, (), &obs, 4000, &mut PplRng::seed_from_u64(5)).unwrap();
/// // p(y) = N(y; 0, 2): log p(1) = -0.25 - 0.5 ln(4π).
/// let exact = -0.25 - 0.5 * (4.0 * std::f64::consts::PI).ln();
/// assert!((is.log_marginal_likelihood - exact).abs() < 0.05);
/// assert!((is.mean(|t| t.value::<f64>("mu").unwrap()) - 0.5).abs() < 0.1);
/// ```
///
/// # Errors
/// What [`generate`](super::generate) returns but [`PplError::ImpossiblePoint`] (a draw of
/// weight 0, not kept), and [`PplError::NoSamples`] for `n = 0`.
pub fn importance_sampling<M, A, R>(
    model: M,
    args: A,
    observations: &ChoiceMap,
    n: usize,
    rng: &mut R,
) -> Result<Importance<M, A>, PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
    R: RngCore + ?Sized,
{
    if n == 0 {
        return Err(PplError::NoSamples);
    }
    let constraints = Arc::new(observations.clone());
    let mut traces = Vec::with_capacity(n);
    let mut log_weights = Vec::with_capacity(n);
    for _ in 0..n {
        // A draw at a point of probability zero (a `condition` that failed, a run stopped
        // there) has weight 0: it counts in the marginal likelihood's average and nowhere
        // else (it aborted the whole run).
        let generated = generate_shared(model.clone(), args.clone(), constraints.clone(), rng);
        if let Some((t, w)) = unless_impossible(generated)? {
            traces.push(t);
            log_weights.push(w);
        }
    }
    let max = log_weights
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    let log_marginal_likelihood = if max == f64::NEG_INFINITY {
        f64::NEG_INFINITY
    } else if max == f64::INFINITY {
        f64::INFINITY
    } else {
        max + (log_weights.iter().map(|w| (w - max).exp()).sum::<f64>() / n as f64).ln()
    };
    Ok(Importance {
        traces,
        log_weights,
        log_marginal_likelihood,
    })
}

/// The discarded values of choices that were latent in the old trace, which the backward
/// proposal must propose to return to it: an observation the move changed or removed is data,
/// which no proposal draws. (A latent choice the new path observes is the old trace's latent
/// all the same: excluding it refused a reversible proposal as `NotReversible`.)
fn latent_only<M: Callable<A> + Clone, A: Clone>(
    discard: &ChoiceMap,
    old: &PplTrace<M, A>,
) -> ChoiceMap {
    let mut latent = ChoiceMap::new();
    for (a, v) in discard.iter() {
        if !old.is_observed(a.clone()) {
            latent.insert_value(a.clone(), v.clone());
        }
    }
    latent
}

/// Whether a step from `old` to a trace holding the addresses `new_has` says drops a value
/// `generate` was given as data (a constraint): a branch that leaves such an address discards
/// it, and a branch back draws it as a latent choice, so the two moves do not balance (`mh` on
/// `b ~ Bernoulli; if b { z ~ N }` with `z` constrained settled on the prior of `b`). Such a
/// proposal is rejected: constrained data stays in the chain's traces.
fn loses_data<M: Callable<A>, A>(
    old: &PplTrace<M, A>,
    new_has: impl Fn(&super::Address) -> bool,
) -> bool {
    old.choices
        .list
        .iter()
        .any(|c| c.origin == super::choices::Origin::Constrained && !new_has(&c.address))
}
