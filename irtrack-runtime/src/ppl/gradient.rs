//! The gradient of a trace's score with respect to some of its continuous choices, by irtrack's
//! reverse sweep over the recorded graph: what [`hmc`](super::hmc) steers by.
//!
//! The score is `Σ log p_c(v_c; θ_c)` over the choices `c`. On the graph, each choice is the
//! node of its `sample` (or `observe`) call, whose operand is the distribution `θ_c`, itself
//! the node of a call of its constructor (`Normal::new(a + b * x, 0.5)`). The sweep takes the
//! selected choices' nodes as its inputs and every other choice's node as a constant (a choice
//! is never a function of its distribution: its value is given), and starts from the
//! log-densities' own derivatives ([`Builtin::log_density_gradient`]): `∂ log p/∂v` on a
//! selected choice's node and on an observed value computed from the selected choices,
//! `∂ log p/∂θ` on the operands of each constructor call whose parameters depend on them.
//! irtrack's rules then carry these back through the operators, float methods, indexing,
//! loops, branches taken and tracked calls between the choices, as for any gradient.
//!
//! At a point other than the trace's, the nodes' values there are those an update in place
//! computes (the recorded graph with the changed nodes' new values beside it, which the rules
//! read instead of the recorded ones), or, where the update cannot be made in place, those of
//! a run of the model at that point. Where the graph cannot
//! give the gradient — a choice made in untracked code, a `factor`, a distribution reaching
//! its choice other than from its constructor, Dirichlet and MvNormal (no rule), or a
//! [`GradError`](crate::grad::GradError) of the sweep (a call without a rule) — the gradient
//! is a central difference of the exact score instead, and says why
//! ([`GradientMethod::FiniteDifferences`]).

use super::choices::{ChoiceMap, Origin, Selection};
use super::dist::{Builtin, PplRng};
use super::error::PplError;
use super::incremental;
use super::infer::unless_impossible;
use super::interface::{update_counted, PplTrace};
use super::Address;
use crate::core::ids::NodeId;
use crate::core::tape::{Callee, NodeKind};
use crate::core::value::Value;
use crate::grad::sweep::Sweep;
use crate::grad::Tangent;
use crate::record::session::Callable;
use crate::view::trace::Arg;
use rand::SeedableRng;
use std::collections::HashMap;

/// Why a gradient at a point of probability zero is [`GradientMethod::Undefined`].
const IMPOSSIBLE: &str = "the score is not finite at this point";

/// How a [`ScoreGradient`] was computed.
#[derive(Clone, Debug, PartialEq)]
pub enum GradientMethod {
    /// By irtrack's reverse sweep over the graph: exact up to rounding.
    Graph,
    /// By central differences of the exact score (steps of `1e-6` relative, down to `1e-12`
    /// where the two sides' differences disagree: a step must not cross a jump or a kink; one
    /// side only, to second order, next to the edge of a support), because the graph could not
    /// give it; `reason` says what stopped it.
    FiniteDifferences {
        /// Why the graph could not give the gradient.
        reason: String,
    },
    /// Not defined at this point, and given as zeros (HMC's exact acceptance test decides on
    /// a trajectory through such a point): the score is not finite there (outside a support),
    /// the model makes other choices there (a branch taken differently), so the score is not a
    /// function of the selected values alone near it, or, where finite differences are used,
    /// the score has a jump or a kink at the point.
    Undefined {
        /// Which of the two.
        reason: String,
    },
}

/// The gradient of a trace's score with respect to selected continuous choices.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreGradient {
    /// The choices, in the order the model made them.
    pub addresses: Vec<Address>,
    /// `∂ score / ∂ value` for each of them.
    pub values: Vec<f64>,
    /// How it was computed.
    pub method: GradientMethod,
}

/// The gradient of `trace`'s score (its joint log-density) with respect to the values of the
/// selected latent continuous `f64` choices, at the trace's values: the gradient
/// [`hmc`](super::hmc) steers by. Computed by irtrack's reverse sweep over the graph
/// ([`GradientMethod::Graph`]), or by finite differences where the graph cannot give it (the
/// method says why).
///
/// ```
/// use irtrack::ppl::{observe, sample, score_gradient, simulate, GradientMethod, Normal, PplRng, Selection};
/// use irtrack::tracked;
/// use rand::SeedableRng;
///
/// #[tracked]
/// fn model(y: f64) {
///     let mu = sample("mu", Normal::new(0.0, 1.0));
///     observe("y", Normal::new(mu, 0.5), y);
/// }
///
/// let t = simulate(model, (1.0,), &mut PplRng::seed_from_u64(1)).unwrap();
/// let g = score_gradient(&t, &Selection::of(["mu"])).unwrap();
/// let mu = t.value::<f64>("mu").unwrap();
/// assert_eq!(g.method, GradientMethod::Graph);
/// assert!((g.values[0] - (-mu + (1.0 - mu) / 0.25)).abs() < 1e-12);
/// ```
///
/// # Errors
/// [`PplError::NotContinuous`] when a selected latent choice is not a continuous `f64`; what
/// running the model returns.
pub fn score_gradient<M, A>(
    trace: &PplTrace<M, A>,
    selection: &Selection,
) -> Result<ScoreGradient, PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    let (addresses, at) = continuous(trace, selection)?;
    // A gradient is a computation on the model, not a run of it: injected checkpoints give
    // every evaluation what they give now, and nothing is collected.
    let (values, method) =
        crate::program::checkpoint::aside(|| gradient_at(trace, &addresses, &at))?;
    Ok(ScoreGradient {
        addresses,
        values,
        method,
    })
}

/// The selected latent choices, which must be continuous `f64`s, and their values.
pub(crate) fn continuous<M, A>(
    trace: &PplTrace<M, A>,
    selection: &Selection,
) -> Result<(Vec<Address>, Vec<f64>), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    let mut addresses = Vec::new();
    let mut values = Vec::new();
    for c in &trace.choices.list {
        if c.origin != Origin::Latent || !selection.contains(&c.address) {
            continue;
        }
        match (c.continuous, c.value.as_f64()) {
            (true, Some(v)) => {
                addresses.push(c.address.clone());
                values.push(v);
            }
            _ => return Err(PplError::NotContinuous(c.address.clone())),
        }
    }
    Ok((addresses, values))
}

/// The gradient of the score with respect to the choices at `addresses` when they hold `at`
/// (the others as in `trace`), and how it was computed; zeros where it is not defined
/// ([`GradientMethod::Undefined`]).
pub(crate) fn gradient_at<M, A>(
    trace: &PplTrace<M, A>,
    addresses: &[Address],
    at: &[f64],
) -> Result<(Vec<f64>, GradientMethod), PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    let zeros = |reason: &str| {
        let reason = reason.to_string();
        (vec![0.0; at.len()], GradientMethod::Undefined { reason })
    };
    let here = trace.is_graph_current()
        && addresses.iter().zip(at).all(|(a, x)| {
            trace
                .choices
                .get(a)
                .and_then(|(_, c)| c.value.as_f64())
                .is_some_and(|v| v.to_bits() == x.to_bits())
        });
    let moved;
    let snapshots: Vec<Value> = at.iter().map(|&v| Value::snapshot(v)).collect();
    let t = if here {
        trace
    } else if let Some(step) = crate::program::checkpoint::attempt_or_leave(|| {
        incremental::update_in_place(trace, addresses, &snapshots)
    }) {
        // The graph with the nodes the change reaches recomputed beside it: the trace's
        // overrides.
        let Some(step) = unless_impossible(step)? else {
            return Ok(zeros(IMPOSSIBLE));
        };
        let mut t = trace.share();
        incremental::apply(&mut t, step)?;
        moved = t;
        &moved
    } else {
        let mut c = ChoiceMap::new();
        for (a, v) in addresses.iter().zip(snapshots) {
            c.insert_value(a.clone(), v);
        }
        // Draws nothing when the structure is kept (a run that draws is refused below).
        let u = update_counted(trace, trace.args.clone(), &c, &mut PplRng::seed_from_u64(0));
        let Some(u) = unless_impossible(u)? else {
            return Ok(zeros(IMPOSSIBLE));
        };
        // The same latent choices: observations may change, appear or go (their old values
        // are in the discard too). The gradient must be the score's at this point whatever
        // trace it is asked from: HMC's leapfrog is reversible only then (a zero where the
        // starting trace observed something the point does not made the forward and backward
        // trajectories differ, and the chain's target wrong).
        let same_latents = u
            .discard
            .addresses()
            .all(|a| c.contains(a.clone()) || trace.is_observed(a.clone()));
        if u.drawn > 0 || !same_latents {
            return Ok(zeros("the model makes other choices at this point"));
        }
        moved = u.trace;
        &moved
    };
    if !t.score.is_finite() {
        return Ok(zeros(IMPOSSIBLE));
    }
    match on_graph(t, addresses) {
        Ok(g) => Ok((g, GradientMethod::Graph)),
        Err(reason) => Ok(match finite_differences(trace, addresses, at, t.score)? {
            Ok(g) => (g, GradientMethod::FiniteDifferences { reason }),
            Err(why) => zeros(&why),
        }),
    }
}

/// The gradient by the reverse sweep over `trace`'s graph, its nodes' values being the trace's
/// overrides where it has them (after updates in place) and the recorded ones elsewhere; `Err`
/// says why the graph cannot give it.
fn on_graph<M, A>(trace: &PplTrace<M, A>, addresses: &[Address]) -> Result<Vec<f64>, String>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    let graph = trace.recorded_graph();
    if graph.root().kind() != NodeKind::NestedCall {
        return Err("the model is not tracked, so its graph has no node for any choice".into());
    }
    if trace.factored {
        return Err(
            "the model calls `factor`, whose argument the graph does not tie to \
                    the score"
                .into(),
        );
    }
    let choices = &trace.choices;
    let mut sources = HashMap::with_capacity(choices.list.len());
    let mut node_of = Vec::with_capacity(choices.list.len());
    for (i, c) in choices.list.iter().enumerate() {
        let Some(n) = trace.nodes.of_choice.get(i).copied().flatten() else {
            return Err(format!(
                "the choice `{}` was made in code irtrack did not record (an untracked \
                 helper), so the graph does not show what its density depends on",
                c.address
            ));
        };
        sources.insert(n, false);
        node_of.push(n);
    }
    let mut inputs = Vec::with_capacity(addresses.len());
    for a in addresses {
        let (i, _) = choices
            .get(a)
            .ok_or_else(|| format!("`{a}` is not a choice of the trace"))?;
        sources.insert(node_of[i], true);
        inputs.push(node_of[i]);
    }
    let overrides = &trace.overrides;
    let value_of = |r: &crate::view::trace::NodeRef<'_>| match overrides.get(&r.id()) {
        Some(v) => v.clone(),
        None => r.raw_value(),
    };
    let mut sweep = Sweep::from_sources(graph, graph.root, sources, Some(overrides));
    let mut seeds: Vec<(NodeId, Tangent)> = Vec::new();
    for (i, c) in choices.list.iter().enumerate() {
        let n = node_of[i];
        let selected = inputs.contains(&n);
        let node = graph.node(n).ok_or("a choice's node is not in the graph")?;
        let args = node.arguments();
        let active = |a: &Arg<'_>| matches!(a, Arg::Node(r) if sweep.is_active(r.id()));
        if !selected && !args.iter().any(active) {
            // Neither its value nor anything it was given depends on the selected choices.
            continue;
        }
        let address = &c.address;
        let (k, dist) = args
            .iter()
            .enumerate()
            .find_map(|(k, a)| match a {
                Arg::Node(r) => Builtin::from_value(&value_of(r)).map(|d| (k, d)),
                Arg::Const(_) => None,
            })
            .ok_or_else(|| {
                format!(
                    "the distribution of `{address}` is not a built-in one recorded in the graph"
                )
            })?;
        let (dv, dp) = dist.log_density_gradient(&c.value).ok_or_else(|| {
            format!(
                "the {} distribution of `{address}` has no gradient rule for its log-density",
                dist.name()
            )
        })?;
        if selected {
            let dv = dv.ok_or_else(|| format!("`{address}` is not a continuous f64"))?;
            seeds.push((n, Tangent::Scalar(dv)));
        }
        for (j, a) in args.iter().enumerate() {
            if j == k || !active(a) {
                continue;
            }
            let Arg::Node(r) = a else { continue };
            // `observe(address, dist, value)`: a value computed from the selected choices.
            match (c.origin, dv) {
                (Origin::Observed, Some(dv)) if j == args.len() - 1 => {
                    seeds.push((r.id(), Tangent::Scalar(dv)));
                }
                _ => {
                    return Err(format!(
                        "operand {} of the choice `{address}` depends on the selected choices",
                        j + 1
                    ))
                }
            }
        }
        let Arg::Node(d) = &args[k] else { continue };
        if !sweep.is_active(d.id()) {
            continue;
        }
        // The parameters depend on the selected choices: through the constructor's operands.
        let constructed = matches!(
            graph.store.callees.get(&d.id()),
            Some(Callee::Item(key)) if dist.constructor() == Some(key.id)
        );
        if !constructed {
            return Err(format!(
                "the distribution of `{address}` depends on the selected choices, and reaches \
                 the choice other than from a call of its constructor ({}::new) in the same \
                 function; construct it where it is sampled",
                dist.name()
            ));
        }
        let operands = d.arguments();
        if let Builtin::Categorical(_) = dist {
            if let Some(Arg::Node(p)) = operands.first() {
                seeds.push((p.id(), Tangent::Vector(dp)));
            }
        } else {
            if operands.len() != dp.len() {
                return Err(format!(
                    "the constructor of `{address}`'s distribution has {} operands for {} \
                     parameters",
                    operands.len(),
                    dp.len()
                ));
            }
            for (p, g) in operands.iter().zip(dp) {
                if let Arg::Node(p) = p {
                    seeds.push((p.id(), Tangent::Scalar(g)));
                }
            }
        }
    }
    sweep.run_from(seeds).map_err(|e| e.to_string())?;
    Ok(inputs
        .iter()
        .map(|n| {
            sweep.adjoints[n.index()]
                .as_ref()
                .and_then(Tangent::as_scalar)
                .unwrap_or(0.0)
        })
        .collect())
}

/// The gradient by central differences of the exact score: each score computed from the graph
/// in place when it shows everything that depends on the choices (as an `mh` step is), else by
/// a run of the model on its choices. A component whose scores are not finite (the edge of a
/// support) is zero.
fn finite_differences<M, A>(
    trace: &PplTrace<M, A>,
    addresses: &[Address],
    at: &[f64],
    here: f64,
) -> Result<Result<Vec<f64>, String>, PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    // The runs draw nothing (a run that would is refused below).
    let mut rng = PplRng::seed_from_u64(0);
    let mut score_at = |values: &[f64]| -> Result<f64, PplError> {
        // Each evaluation sees the injected checkpoints as the others do.
        crate::program::checkpoint::aside(|| score_at_point(trace, addresses, values, &mut rng))
    };
    let mut g = Vec::with_capacity(at.len());
    for i in 0..at.len() {
        let mut moved = |d: f64| -> Result<f64, PplError> {
            let mut v = at.to_vec();
            v[i] += d;
            score_at(&v)
        };
        match slope(here, at[i], &mut moved)? {
            Some(d) => g.push(d),
            None => {
                return Ok(Err(format!(
                    "the score has no derivative in `{}` here: its differences on the two \
                     sides disagree at every step down to 1e-12 (a jump or a kink at this \
                     point, or the edge of a support)",
                    addresses[i]
                )))
            }
        }
    }
    Ok(Ok(g))
}

/// The score of `trace` with the choices at `addresses` holding `values`: by an update in place
/// where the graph shows the change, else by a run of the model (`NaN` where that run draws).
fn score_at_point<M, A>(
    trace: &PplTrace<M, A>,
    addresses: &[Address],
    values: &[f64],
    rng: &mut PplRng,
) -> Result<f64, PplError>
where
    M: Callable<A> + Clone,
    A: Clone,
{
    let snapshots: Vec<Value> = values.iter().map(|&v| Value::snapshot(v)).collect();
    let in_place = crate::program::checkpoint::attempt_or_leave(|| {
        incremental::update_in_place(trace, addresses, &snapshots)
    });
    if let Some(step) = in_place {
        return Ok(unless_impossible(step)?.map_or(f64::NEG_INFINITY, |s| trace.score + s.weight));
    }
    let mut c = ChoiceMap::new();
    for (a, v) in addresses.iter().zip(snapshots) {
        c.insert_value(a.clone(), v);
    }
    let Some(u) = unless_impossible(update_counted(trace, trace.args.clone(), &c, rng))? else {
        return Ok(f64::NEG_INFINITY);
    };
    if u.drawn > 0 {
        return Ok(f64::NAN);
    }
    Ok(u.trace.score)
}

/// The slope at `x` of a function whose value there is `here`, from its values `moved(d)` at
/// `x + d`: a central difference where the two sides' differences agree (a step that crosses
/// a jump, a kink or a support's edge makes them disagree: `if z > 0 { 0 } else { -5 }` at
/// `z = 1e-9` gave 2.5·10⁶ for 0.3), with steps from `1e-6` (relative) down to `1e-12`; a
/// one-sided difference of second order where one side is outside the support (an
/// `Exponential` at `1e-8`, whose other side was taken for a slope 0); `None` where no step
/// gives agreeing differences.
fn slope(
    here: f64,
    x: f64,
    moved: &mut impl FnMut(f64) -> Result<f64, PplError>,
) -> Result<Option<f64>, PplError> {
    let scale = x.abs().max(1.0);
    for k in 0..4 {
        let h = 1e-6 * scale * 0.01f64.powi(k);
        let (a, b) = (moved(h)?, moved(-h)?);
        // Rounding in the scores, amplified by the step, and the second-order term of a
        // smooth function's one-sided differences.
        let noise = 64.0 * f64::EPSILON * here.abs().max(a.abs()).max(b.abs()).max(1.0) / h;
        let agree = |p: f64, q: f64| (p - q).abs() <= noise + 1e-3 * p.abs().max(q.abs()).max(1.0);
        match (a.is_finite(), b.is_finite()) {
            (true, true) => {
                let (forward, backward) = ((a - here) / h, (here - b) / h);
                if agree(forward, backward) {
                    return Ok(Some((a - b) / (2.0 * h)));
                }
            }
            (true, false) | (false, true) => {
                let s = if a.is_finite() { 1.0 } else { -1.0 };
                let (near, far) = (if s > 0.0 { a } else { b }, moved(2.0 * s * h)?);
                if far.is_finite() {
                    let (first, second) = ((near - here) / h, (far - near) / h);
                    if agree(first, second) {
                        return Ok(Some(s * (-3.0 * here + 4.0 * near - far) / (2.0 * h)));
                    }
                }
            }
            (false, false) => return Ok(None),
        }
    }
    Ok(None)
}
