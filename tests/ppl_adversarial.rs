//! Probabilistic programs against hand-computed truths, from the third adversarial round
//! (2026-11-27: a tester who did not write irtrack). Each test failed on 74406f8:
//!
//! - a choice made inside an untracked helper whose result equalled it was taken to be the
//!   helper's call, so in-place steps and score gradients scored it under the helper's
//!   arguments (MH targeted N(0.5, 0.5) for N(0.8, 0.8), 13 standard errors off);
//! - `factor(NaN)` made the weight `+∞` (all of an importance sampler's mass on NaN traces);
//! - `Gamma` at `x = +∞` was NaN, not -∞; a choice whose type changes with the path was a
//!   `TypeMismatch` (now removed and drawn again, its posterior exact below).
//!
//! Truths: Normal log-densities written out by hand (`ln_n` below), conjugate Normal-Normal
//! posteriors in closed form, central differences of those hand-written log joints.

use irtrack::ppl::{
    factor, generate, importance_sampling, mh, observe, sample, score_gradient, simulate,
    update_choices, Bernoulli, ChoiceMap, Exponential, Gamma, Normal, PplError, PplRng, Selection,
};
use irtrack::tracked;
use rand::SeedableRng;

const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// `ln N(x; m, s)`, by hand.
fn ln_n(x: f64, m: f64, s: f64) -> f64 {
    let z = (x - m) / s;
    -0.5 * z * z - s.ln() - LN_SQRT_2PI
}

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-9 * want.abs().max(1.0)
}

// ---------------------------------------------------------------------------------------------
// 1. A choice made in an untracked helper whose return value equals the choice gets the helper's
//    call node as "its" node (`PplContext::primitive_call`: one pending choice, same value). The
//    in-place step and the score gradient then take the first distribution among the helper's
//    operands for the choice's distribution, and the helper's result for the choice's value —
//    neither is true in general.

/// Untracked: samples from a distribution derived from its argument (twice the scale).
fn wide(d: Normal) -> f64 {
    sample("x", Normal::new(d.mu, 2.0 * d.sigma))
}

/// x ~ N(0, 2) (through `wide`), y ~ N(x, 1).
#[tracked]
fn wide_model(y: f64) {
    let x = wide(Normal::new(0.0, 1.0));
    observe("y", Normal::new(x, 1.0), y);
}

/// Prior N(0, 2²), one observation y = 1 with noise 1: posterior N(0.8, 0.8).
/// irtrack: MH redraws `x` from the helper's operand N(0, 1) and scores it there, so the chain
/// targets N(0.5, 0.5): mean 0.504, variance 0.509 over 4000 steps (ESS ≈ 1584), 13 standard
/// errors from 0.8.
#[test]
fn mh_on_a_choice_made_in_an_untracked_helper_targets_the_wrong_posterior() {
    let mut rng = PplRng::seed_from_u64(13);
    let (mut t, _) = generate(wide_model, (1.0,), &ChoiceMap::new(), &mut rng).unwrap();
    let mut chain = Vec::new();
    for _ in 0..4000 {
        t = mh(t, &Selection::of(["x"]), &mut rng).unwrap().0;
        chain.push(t.value::<f64>("x").unwrap());
    }
    let n = chain.len() as f64;
    let mean = chain.iter().sum::<f64>() / n;
    // Generous: posterior sd 0.894, at least 500 effective samples → 4 SE ≈ 0.16.
    assert!(
        (mean - 0.8).abs() < 0.16,
        "posterior mean {mean}, exact 0.8"
    );
}

/// update_choices x → 0.5. Truth (hand): weight = [ln N(0.5; 0, 2) + ln N(1; 0.5, 1)] - old
/// score = 4.905989282923758 at seed 1; new score -2.6872742469692907.
/// irtrack: weight 5.5053864634837035, score -2.0878770664093453 (scored under N(0, 1)).
#[test]
fn update_in_place_of_a_choice_made_in_an_untracked_helper_scores_the_wrong_distribution() {
    let t = simulate(wide_model, (1.0,), &mut PplRng::seed_from_u64(1)).unwrap();
    let x = t.value::<f64>("x").unwrap();
    let old = ln_n(x, 0.0, 2.0) + ln_n(1.0, x, 1.0);
    assert!(close(t.score(), old)); // the run itself scores right
    let (u, w, _) = update_choices(
        &t,
        &ChoiceMap::new().with("x", 0.5),
        &mut PplRng::seed_from_u64(2),
    )
    .unwrap();
    let new = ln_n(0.5, 0.0, 2.0) + ln_n(1.0, 0.5, 1.0);
    assert!(close(u.score(), new), "score {} vs {new}", u.score());
    assert!(close(w, new - old), "weight {w} vs {}", new - old);
}

/// Truth (hand): d/dx [ln N(x; 0, 2) + ln N(1; x, 1)] = -x/4 + (1 - x) = 3.522158174657889 at
/// seed 1. irtrack: 5.035453079452623, `GradientMethod::Graph` (the N(0, 1) rule: -x + 1 - x).
#[test]
fn score_gradient_of_a_choice_made_in_an_untracked_helper_uses_the_wrong_distribution() {
    let t = simulate(wide_model, (1.0,), &mut PplRng::seed_from_u64(1)).unwrap();
    let x = t.value::<f64>("x").unwrap();
    let g = score_gradient(&t, &Selection::of(["x"])).unwrap();
    let truth = -x / 4.0 + (1.0 - x);
    assert!(
        (g.values[0] - truth).abs() < 1e-6,
        "gradient {} ({:?}) vs {truth}",
        g.values[0],
        g.method
    );
}

/// Untracked: a rectified draw. Whenever z > 0 the helper returns z itself.
fn rectified(d: Normal) -> f64 {
    sample("z", d).max(0.0)
}

#[tracked]
fn relu_model(y: f64) {
    let h = rectified(Normal::new(0.0, 1.0));
    observe("y", Normal::new(h, 0.5), y);
}

/// From a trace with z > 0, update_choices z → -1. Truth (hand): the mean of y is
/// max(-1, 0) = 0, new score ln N(-1; 0, 1) + ln N(1; 0, 0.5) = -3.6447298858494, weight
/// 0.5997136194311539 (seed 1 of the search below). irtrack: the step in place writes -1 as
/// the helper's result, so the mean is -1: score -9.644729885849399, weight -5.400286380568845.
#[test]
fn update_in_place_takes_an_untracked_helpers_result_for_its_choice() {
    let mut seed = 0;
    let t = loop {
        let t = simulate(relu_model, (1.0,), &mut PplRng::seed_from_u64(seed)).unwrap();
        if t.value::<f64>("z").unwrap() > 0.0 {
            break t;
        }
        seed += 1;
    };
    let z = t.value::<f64>("z").unwrap();
    let old = ln_n(z, 0.0, 1.0) + ln_n(1.0, z, 0.5);
    assert!(close(t.score(), old));
    let (u, w, _) = update_choices(
        &t,
        &ChoiceMap::new().with("z", -1.0),
        &mut PplRng::seed_from_u64(2),
    )
    .unwrap();
    let new = ln_n(-1.0, 0.0, 1.0) + ln_n(1.0, 0.0, 0.5);
    assert!(close(u.score(), new), "score {} vs {new}", u.score());
    assert!(close(w, new - old), "weight {w} vs {}", new - old);
}

/// Untracked: observes with twice the scale of the distribution it is given.
fn wide_obs(d: Normal, y: f64) {
    observe("y", Normal::new(d.mu, 2.0 * d.sigma), y);
}

#[tracked]
fn wide_obs_model(y: f64) {
    let x = sample("x", Normal::new(0.0, 1.0));
    wide_obs(Normal::new(x, 1.0), y);
}

/// The same through an untracked helper that observes (its node's unit value is taken for the
/// observation's). Truth (hand), seed 1: update x → 0.5 weight 0.8570940032651504, score
/// -2.6872742469692907; gradient -x + (1 - x)/4 = 1.5110790873289446.
/// irtrack: weight 1.4564911838250958, score -2.0878770664093453; gradient 3.0177265397263113
/// (Graph).
#[test]
fn an_observation_made_in_an_untracked_helper_is_rescored_and_differentiated_under_the_wrong_distribution(
) {
    let t = simulate(wide_obs_model, (1.0,), &mut PplRng::seed_from_u64(1)).unwrap();
    let x = t.value::<f64>("x").unwrap();
    let truth = |x: f64| ln_n(x, 0.0, 1.0) + ln_n(1.0, x, 2.0);
    assert!(close(t.score(), truth(x)));
    let g = score_gradient(&t, &Selection::of(["x"])).unwrap();
    let dtruth = -x + (1.0 - x) / 4.0;
    let (u, w, _) = update_choices(
        &t,
        &ChoiceMap::new().with("x", 0.5),
        &mut PplRng::seed_from_u64(2),
    )
    .unwrap();
    assert!(
        close(u.score(), truth(0.5)),
        "score {} vs {}",
        u.score(),
        truth(0.5)
    );
    assert!(
        close(w, truth(0.5) - t.score()),
        "weight {w} vs {}",
        truth(0.5) - t.score()
    );
    assert!(
        (g.values[0] - dtruth).abs() < 1e-6,
        "gradient {} ({:?}) vs {dtruth}",
        g.values[0],
        g.method
    );
}

// ---------------------------------------------------------------------------------------------
// 2. A NaN factor: `LogSum::add` puts NaN in the finite part, `Weight::value` then sees a
//    non-finite new side that is neither -∞ nor equal to the old side and returns +∞.

/// Truth: the log-weight is not a number — a typed error (as a NaN log-density of a choice is,
/// `PplError::NotANumber`). irtrack: `generate` returns Ok with weight +∞ (and `simulate` Ok with
/// score NaN).
#[test]
fn a_nan_factor_is_an_error_not_an_infinite_weight() {
    let model = || {
        let x = sample("x", Normal::new(0.0, 1.0));
        irtrack::ppl::factor(f64::NAN);
        x
    };
    let r = generate(model, (), &ChoiceMap::new(), &mut PplRng::seed_from_u64(1));
    assert!(
        r.is_err(),
        "generate gave weight {:?}",
        r.map(|(_, w)| w).ok()
    );
    let s = simulate(model, (), &mut PplRng::seed_from_u64(1));
    assert!(
        s.is_err(),
        "simulate gave score {:?}",
        s.map(|t| t.score()).ok()
    );
}

#[tracked]
fn log_factor() -> f64 {
    let x = sample("x", Normal::new(0.0, 1.0));
    irtrack::ppl::factor(x.ln()); // NaN for x < 0
    x
}

/// The consequence: importance sampling gives every trace with x < 0 an infinite weight (11 of
/// 20 at seed 1), so the weighted mean of x is -0.882 and the log marginal likelihood +∞; an MH
/// chain started at x > 0 moves to x < 0 (every proposal there has weight +∞) and stays, with
/// score NaN. Truth: an error (or, at the least, no weight +∞ from a NaN).
#[test]
fn importance_sampling_puts_all_the_mass_on_nan_traces() {
    let r = importance_sampling(
        log_factor,
        (),
        &ChoiceMap::new(),
        20,
        &mut PplRng::seed_from_u64(1),
    );
    if let Ok(is) = r {
        assert!(
            is.log_weights.iter().all(|w| *w != f64::INFINITY),
            "log weights {:?}",
            is.log_weights
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Over-refusals (lower priority).

#[tracked]
fn switch_type() -> f64 {
    if sample("b", Bernoulli::new(0.5)) {
        sample("x", Normal::new(0.0, 1.0))
    } else if sample("x", Bernoulli::new(0.5)) {
        1.0
    } else {
        0.0
    }
}

/// One address holding an f64 on one path and a bool on the other (a valid model; Gen treats
/// the old value as discarded and draws the new one). irtrack: MH on `b` fails with
/// `TypeMismatch { address: "x", expected: "bool", got: "f64" }` within 10 steps at seed 1.
#[test]
fn a_path_change_that_changes_a_choices_type_is_not_an_error() {
    let mut rng = PplRng::seed_from_u64(1);
    let mut t = simulate(switch_type, (), &mut rng).unwrap();
    for _ in 0..10 {
        t = mh(t, &Selection::of(["b"]), &mut rng).unwrap().0;
    }
}

/// `Gamma` at x = +∞ (outside its support (0, ∞), as Normal's and Exponential's -∞ are):
/// log-density -∞, weight -∞. irtrack: `PplError::NotANumber("x")` ((k-1)·∞ - ∞).
#[test]
fn gamma_at_infinity_has_log_density_minus_infinity() {
    let t = simulate(
        || sample("x", Gamma::new(2.0, 1.0)),
        (),
        &mut PplRng::seed_from_u64(1),
    )
    .unwrap();
    let (_, w, _) = update_choices(
        &t,
        &ChoiceMap::new().with("x", f64::INFINITY),
        &mut PplRng::seed_from_u64(1),
    )
    .unwrap();
    assert_eq!(w, f64::NEG_INFINITY);
}

#[tracked]
fn type_by_path(y: f64) {
    if sample("b", Bernoulli::new(0.3)) {
        let x = sample("x", Normal::new(0.0, 1.0));
        observe("y", Normal::new(x, 1.0), y);
    } else {
        let x = sample("x", Bernoulli::new(0.5));
        observe("y", Normal::new(if x { 1.0 } else { 0.0 }, 1.0), y);
    }
}

/// The posterior of `b` when `x` changes type with it, by MH on both (independent proposals
/// from the prior): p(b | y = 1) ∝ 0.3 N(1; 0, √2) against 0.7 (N(1; 1, 1) + N(1; 0, 1)) / 2,
/// 0.22709; within 4 standard errors of the chain's effective size.
#[test]
fn a_choice_whose_type_changes_with_the_path_has_the_exact_posterior() {
    let pdf = |x: f64, m: f64, v: f64| {
        (-(x - m) * (x - m) / (2.0 * v)).exp() / (2.0 * std::f64::consts::PI * v).sqrt()
    };
    let one = 0.3 * pdf(1.0, 0.0, 2.0);
    let zero = 0.7 * 0.5 * (pdf(1.0, 1.0, 1.0) + pdf(1.0, 0.0, 1.0));
    let exact = one / (one + zero);
    let mut rng = PplRng::seed_from_u64(5);
    let (mut t, _) = generate(type_by_path, (1.0,), &ChoiceMap::new(), &mut rng).unwrap();
    let mut chain = Vec::new();
    for _ in 0..20_000 {
        t = mh(t, &Selection::of(["b", "x"]), &mut rng).unwrap().0;
        chain.push(f64::from(u8::from(t.value::<bool>("b").unwrap())));
    }
    let n = chain.len() as f64;
    let mean = chain.iter().sum::<f64>() / n;
    // Independent proposals accepted about half the time: at least n / 4 effective samples.
    let tolerance = 4.0 * (exact * (1.0 - exact)).sqrt() / (n / 4.0).sqrt();
    eprintln!("P(b) {mean:.4}, exact {exact:.5}, tolerance {tolerance:.4}");
    assert!(
        (mean - exact).abs() < tolerance,
        "P(b) {mean} vs {exact} (±{tolerance})"
    );
}

/// The error `factor(NaN)` gives names the call.
#[test]
fn a_nan_factor_names_its_call() {
    let model = || {
        factor_twice();
    };
    let e = simulate(model, (), &mut PplRng::seed_from_u64(1)).unwrap_err();
    assert_eq!(e, PplError::NotANumberFactor { call: 1 });
}

fn factor_twice() {
    irtrack::ppl::factor(-1.0);
    irtrack::ppl::factor(f64::NAN);
}

// ---------------------------------------------------------------------------------------------
// A user's own helper that is *called* `sample` (or `observe`): the node of its call was taken
// for the choice by its written name, and the choice was then rescored under the helper's
// arguments. The choice's node is now the call whose callee key is the entry point that made
// the choice (`Draft::callee`).

mod mine {
    use irtrack::ppl::Normal;

    /// Untracked, named like the entry point: samples with twice the scale it is given.
    pub fn sample(address: &'static str, d: Normal) -> f64 {
        irtrack::ppl::sample(address, Normal::new(d.mu, 2.0 * d.sigma))
    }

    /// Untracked, named like the entry point: observes with twice the scale it is given.
    pub fn observe(address: &'static str, d: Normal, y: f64) {
        irtrack::ppl::observe(address, Normal::new(d.mu, 2.0 * d.sigma), y);
    }
}

/// x ~ N(0, 2) (through `mine::sample`), y ~ N(x, 2) (through `mine::observe`).
#[tracked]
fn named_like_the_entry_points(y: f64) {
    let x = mine::sample("x", Normal::new(0.0, 1.0));
    mine::observe("y", Normal::new(x, 1.0), y);
}

/// Truth (hand): score ln N(x; 0, 2) + ln N(1; x, 2); after x → 0.5 the same at 0.5; score
/// gradient -x/4 + (1 - x)/4. With the name check (a5bc326): the update scored x under N(0, 1)
/// and y under N(x, 1), the gradient was -x + (1 - x).
#[test]
fn a_helper_named_sample_is_not_the_choice_it_makes() {
    let t = simulate(
        named_like_the_entry_points,
        (1.0,),
        &mut PplRng::seed_from_u64(1),
    )
    .unwrap();
    let x = t.value::<f64>("x").unwrap();
    let truth = |x: f64| ln_n(x, 0.0, 2.0) + ln_n(1.0, x, 2.0);
    assert!(close(t.score(), truth(x)));
    let (u, w, _) = update_choices(
        &t,
        &ChoiceMap::new().with("x", 0.5),
        &mut PplRng::seed_from_u64(2),
    )
    .unwrap();
    assert!(
        close(u.score(), truth(0.5)),
        "score {} vs {}",
        u.score(),
        truth(0.5)
    );
    assert!(close(w, truth(0.5) - truth(x)), "weight {w}");
    let g = score_gradient(&t, &Selection::of(["x"])).unwrap();
    let dtruth = -x / 4.0 + (1.0 - x) / 4.0;
    assert!(
        (g.values[0] - dtruth).abs() < 1e-6,
        "gradient {} ({:?}) vs {dtruth}",
        g.values[0],
        g.method
    );
}

/// The entry points called by path, and `draw`, are still their choices' nodes.
#[tracked]
fn by_path(y: f64) -> f64 {
    let x = irtrack::ppl::sample("x", Normal::new(0.0, 1.0));
    let e = irtrack::ppl::draw(Normal::new(0.0, 1.0));
    irtrack::ppl::observe("y", Normal::new(x + e, 1.0), y);
    x
}

#[test]
fn entry_points_called_by_path_are_their_choices_nodes() {
    let mut t = simulate(by_path, (1.0,), &mut PplRng::seed_from_u64(3)).unwrap();
    let listing = t.graph().unwrap().root().levels(2).to_string();
    for address in ["\"x\"", "\"normal#0\"", "\"y\""] {
        assert!(
            listing.contains(&format!("address = {address}")),
            "{address} not on its node:\n{listing}"
        );
    }
    assert!(!listing.contains("choices = "), "{listing}");
}

// ---------------------------------------------------------------------------------------------
// The fifth round (a tester who did not write irtrack). `regenerate` left out the density of
// data that a changed branch no longer reaches (an observation, or a constraint of
// `generate`), while it counted data that appears: its weight was 0 for -1.3836, and MH
// targeted P(b) = 0.494 for the exact 0.7996 (more than 30 standard errors off). Importance
// sampling's mean over traces all impossible was 0.0 (undefined: now NaN), and with no samples
// its log marginal likelihood claimed -∞ (now `PplError::NoSamples`). `Normal::log_density`
// was NaN (∞ - ∞) far out in the tail over a tiny scale: -∞.

use irtrack::ppl::{regenerate, Uniform};

#[tracked]
fn maybe_obs() {
    let b = sample("b", Bernoulli::new(0.5));
    if b {
        observe("y", Normal::new(0.0, 0.1), 0.0);
    }
}

// BUG 1 -------------------------------------------------------------------------------------
// b ~ Bernoulli(0.5); if b { observe y ~ N(0, 0.1) at 0 }. Target ∝ exp(score):
// P(b) = N(0;0,0.1) / (1 + N(0;0,0.1)) = 3.989/4.989 = 0.7996.
// regenerate's weight counts an observation that appears (0 → 1: +ln 3.989) but not one that
// disappears (1 → 0: 0 instead of -ln 3.989 = -1.3836), so MH targets P(b) = 0.5.

#[test]
fn regenerate_weighs_an_observation_that_disappears() {
    let t = (0..)
        .map(|seed| simulate(maybe_obs, (), &mut PplRng::seed_from_u64(seed)).unwrap())
        .find(|t| t.value::<bool>("b").unwrap())
        .unwrap();
    let mut s = 0;
    let (u, w) = loop {
        let (u, w) = regenerate(&t, &Selection::of(["b"]), &mut PplRng::seed_from_u64(s)).unwrap();
        if !u.value::<bool>("b").unwrap() {
            break (u, w);
        }
        s += 1;
    };
    // p(t') / p(t) × q(t | t') / q(t' | t) = [0.5] / [0.5 · N(0; 0, 0.1)] × 0.5 / 0.5.
    let truth = u.score() - t.score();
    assert!((truth + ln_n(0.0, 0.0, 0.1)).abs() < 1e-12);
    assert!((w - truth).abs() < 1e-9, "weight {w}, truth {truth}");
}

#[test]
fn mh_posterior_with_an_observation_inside_a_stochastic_branch() {
    let mut rng = PplRng::seed_from_u64(5);
    let mut t = simulate(maybe_obs, (), &mut rng).unwrap();
    let n = 20000;
    let mut k = 0;
    for _ in 0..n {
        t = mh(t, &Selection::of(["b"]), &mut rng).unwrap().0;
        k += t.value::<bool>("b").unwrap() as usize;
    }
    let d = ln_n(0.0, 0.0, 0.1).exp();
    let truth = d / (1.0 + d); // 0.7996
                               // sd of the indicator 0.4; even at an ESS of n/10 one standard error is 0.009.
    let est = k as f64 / n as f64;
    assert!(
        (est - truth).abs() < 0.04,
        "P(b) by MH {est}, exact {truth}"
    );
}

/// The same with data given as `generate`'s constraint (origin `Constrained`) instead of `observe`.
#[tracked]
fn maybe_sample() {
    let b = sample("b", Bernoulli::new(0.5));
    if b {
        sample("y", Normal::new(0.0, 0.1));
    }
}

#[test]
fn regenerate_weighs_a_constrained_choice_that_disappears() {
    let data = ChoiceMap::new().with("y", 0.0);
    let t = (0..)
        .filter_map(|seed| generate(maybe_sample, (), &data, &mut PplRng::seed_from_u64(seed)).ok())
        .map(|(t, _)| t)
        .next()
        .unwrap();
    assert!(t.value::<bool>("b").unwrap());
    let (u, w) = (0..)
        .map(|s| regenerate(&t, &Selection::of(["b"]), &mut PplRng::seed_from_u64(s)).unwrap())
        .find(|(u, _)| !u.value::<bool>("b").unwrap())
        .unwrap();
    let truth = u.score() - t.score(); // -ln N(0; 0, 0.1) = -1.3836
    assert!((w - truth).abs() < 1e-9, "weight {w}, truth {truth}");
}

// BUG 2 -------------------------------------------------------------------------------------
// Importance sampling where every trace is impossible (weight -∞): the posterior is undefined,
// but `mean` returns 0.0 (normalized weights all 0, so the weighted sum is 0) — a number for a
// posterior expectation that has none. With n = 0 traces the log marginal likelihood is -∞
// (a claim that p(data) = 0) instead of an error.

#[tracked]
fn never(y: f64) -> f64 {
    let x = sample("x", Normal::new(5.0, 1.0));
    observe("y", Uniform::new(0.0, 1.0), y);
    x
}

#[test]
fn importance_mean_of_an_impossible_posterior_is_undefined() {
    let is = importance_sampling(
        never,
        (2.0,),
        &ChoiceMap::new(),
        100,
        &mut PplRng::seed_from_u64(1),
    )
    .unwrap();
    assert!(is.log_weights.iter().all(|w| *w == f64::NEG_INFINITY));
    let m = is.mean(|t| t.value::<f64>("x").unwrap());
    // Every trace has x near 5; no weighting of them can give 0 (a5bc326 did): 0/0.
    assert!(m.is_nan(), "posterior mean of x reported as {m}");
}

#[test]
fn importance_sampling_with_no_samples_is_an_error() {
    // p(y = 0.5) = 1 here; an estimate from no samples is no estimate, not log 0 (a5bc326).
    let e = importance_sampling(
        never,
        (0.5,),
        &ChoiceMap::new(),
        0,
        &mut PplRng::seed_from_u64(1),
    )
    .err();
    assert_eq!(e, Some(PplError::NoSamples));
}

// BUG 3 -------------------------------------------------------------------------------------
// `Normal::log_density` is NaN at a finite value of its support when `x - mu` is finite but
// `(x - mu) / sigma` overflows and the rescue `x / sigma - mu / sigma` is `∞ - ∞`. The trait
// promises "never NaN for a value of the support"; the truth is -0.5 z² with z = 5e309: -∞.
// Inside a model the same point is `PplError::NotANumber` instead of a weight of -∞.

#[test]
fn normal_log_density_far_out_in_the_tail_is_minus_infinity() {
    use irtrack::ppl::Distribution;
    let lp = Normal::new(0.5e300, 1e-10).log_density(&1e300);
    assert_eq!(lp, f64::NEG_INFINITY, "log-density {lp}");
}

/// `mh_propose` of a move that removes an observation (b: true → false in `maybe_obs`) was
/// `NotReversible(["y"])`: the removed observation, no longer in the new trace, was taken for
/// a latent choice the backward proposal must propose. With a proposal that flips `b`, the
/// chain targets the exact P(b) = 0.7996.
#[test]
fn mh_propose_may_remove_an_observation() {
    let mut rng = PplRng::seed_from_u64(11);
    let mut t = simulate(maybe_obs, (), &mut rng).unwrap();
    let n = 20000;
    let mut k = 0;
    for _ in 0..n {
        t = irtrack::ppl::mh_propose(
            t,
            |cur| {
                let b: bool = cur.value("b").unwrap();
                sample("b", Bernoulli::new(if b { 0.0 } else { 1.0 }));
            },
            &mut rng,
        )
        .unwrap()
        .0;
        k += usize::from(t.value::<bool>("b").unwrap());
    }
    let d = ln_n(0.0, 0.0, 0.1).exp();
    let truth = d / (1.0 + d);
    let est = k as f64 / n as f64;
    assert!(
        (est - truth).abs() < 0.04,
        "P(b) by MH {est}, exact {truth}"
    );
}

/// `assess` of a trace's own choices, data included, scores the trace (it was
/// `ObservedAndConstrained` for any model with an `observe`); a different value at the
/// observed address is still that error.
#[test]
fn assess_scores_a_traces_own_choices() {
    let t = simulate(wide_obs_model, (1.0,), &mut PplRng::seed_from_u64(4)).unwrap();
    let (score, ()) = irtrack::ppl::assess(wide_obs_model, (1.0,), &t.choices()).unwrap();
    assert!(close(score, t.score()), "{score} vs {}", t.score());
    let other = t.choices().clone().with("y", 2.0);
    let e = irtrack::ppl::assess(wide_obs_model, (1.0,), &other).unwrap_err();
    assert!(matches!(e, PplError::ObservedAndConstrained(_)), "{e}");
}

/// A latent choice on one branch, an observation at its address on the other: a proposal that
/// flips `b` and, going to the latent branch, draws `z` is reversible (the backward proposal
/// proposes the old latent `z`), but was refused as `NotReversible(["z"])` (a tester,
/// 2026-11-27). The chain targets P(b) ∝ ½ N(0.3; 0, 1) against ½ N(0.5; 0, √2).
#[tracked]
fn observed_or_latent() {
    let b = sample("b", Bernoulli::new(0.5));
    if b {
        observe("z", Normal::new(0.0, 1.0), 0.3);
    } else {
        let z = sample("z", Normal::new(0.0, 1.0));
        observe("y", Normal::new(z, 1.0), 0.5);
    }
}

#[test]
fn mh_propose_back_to_a_latent_that_became_data() {
    let mut rng = PplRng::seed_from_u64(3);
    let mut t = simulate(observed_or_latent, (), &mut rng).unwrap();
    let n = 20000;
    let mut k = 0;
    for _ in 0..n {
        t = irtrack::ppl::mh_propose(
            t,
            |cur| {
                let b: bool = cur.value("b").unwrap();
                sample("b", Bernoulli::new(if b { 0.0 } else { 1.0 }));
                if b {
                    sample("z", Normal::new(0.0, 1.0));
                }
            },
            &mut rng,
        )
        .unwrap()
        .0;
        k += usize::from(t.value::<bool>("b").unwrap());
    }
    let (on, off) = (ln_n(0.3, 0.0, 1.0).exp(), ln_n(0.5, 0.0, 2f64.sqrt()).exp());
    let truth = on / (on + off);
    let est = k as f64 / n as f64;
    assert!(
        (est - truth).abs() < 0.03,
        "P(b) by MH {est}, exact {truth}"
    );
}

// score_gradient's finite differences near a jump, a support's edge and a kink (2026-11-28,
// an adversarial run: 2,500,000.3 for 0.3, and 0 for -1.7).

#[tracked]
fn step_factor(y: f64) {
    let z = sample("z", Normal::new(0.0, 1.0));
    factor(if z > 0.0 { 0.0 } else { -5.0 });
    observe("y", Normal::new(z, 1.0), y);
}

/// `score_gradient`'s finite-difference fallback across a jump of the score within its step:
/// 2 500 000.3 for the exact 0.3 (the score is smooth on (0, ∞) and z = 1e-9 is inside it).
#[test]
fn a_finite_difference_does_not_step_across_a_jump() {
    let t = simulate(step_factor, (0.3,), &mut PplRng::seed_from_u64(1)).unwrap();
    let (t2, _, _) = update_choices(
        &t,
        &ChoiceMap::new().with("z", 1e-9),
        &mut PplRng::seed_from_u64(1),
    )
    .unwrap();
    let g = score_gradient(&t2, &Selection::of(["z"])).unwrap();
    let want = -1e-9 + (0.3 - 1e-9);
    assert!((g.values[0] - want).abs() < 1e-4);
}

#[tracked]
fn near_edge(y: f64) {
    let r = sample("r", Exponential::new(2.0));
    factor(0.0);
    observe("y", Normal::new(r, 1.0), y);
}

/// The same fallback within 1e-6 of a support's edge gives 0 for the exact -1.7.
#[test]
fn a_finite_difference_next_to_a_supports_edge_is_one_sided() {
    let t = simulate(near_edge, (0.3,), &mut PplRng::seed_from_u64(1)).unwrap();
    let (t2, _, _) = update_choices(
        &t,
        &ChoiceMap::new().with("r", 1e-8),
        &mut PplRng::seed_from_u64(1),
    )
    .unwrap();
    let g = score_gradient(&t2, &Selection::of(["r"])).unwrap();
    let want = -2.0 + (0.3 - 1e-8);
    assert!((g.values[0] - want).abs() < 1e-4);
}

#[tracked]
fn kinked(y: f64) {
    let z = sample("z", Normal::new(0.0, 1.0));
    factor(-3.0 * z.abs());
    observe("y", Normal::new(z, 1.0), y);
}

/// At a kink of the score itself (`|z|` at 0) no step makes the two sides agree: the gradient
/// is not defined there, and says so (zeros, `GradientMethod::Undefined`), where the central
/// difference gave the mean of the two slopes.
#[test]
fn a_finite_difference_at_a_kink_is_undefined() {
    let t = simulate(kinked, (0.3,), &mut PplRng::seed_from_u64(1)).unwrap();
    let (t0, _, _) = update_choices(
        &t,
        &ChoiceMap::new().with("z", 0.0),
        &mut PplRng::seed_from_u64(1),
    )
    .unwrap();
    let g = score_gradient(&t0, &Selection::of(["z"])).unwrap();
    assert!(
        matches!(g.method, irtrack::ppl::GradientMethod::Undefined { .. }),
        "{:?} {:?}",
        g.values,
        g.method
    );
    // Off the kink: -z + (y - z) - 3 sign(z).
    let (t1, _, _) = update_choices(
        &t,
        &ChoiceMap::new().with("z", 0.4),
        &mut PplRng::seed_from_u64(1),
    )
    .unwrap();
    let g = score_gradient(&t1, &Selection::of(["z"])).unwrap();
    assert!(
        (g.values[0] - (-0.4 + (0.3 - 0.4) - 3.0)).abs() < 1e-6,
        "{:?}",
        g.values
    );
}

#[tracked]
fn bounded_coin(y: bool) -> f64 {
    let x = sample("x", Normal::new(0.5, 0.5));
    irtrack::ppl::condition(0.0 < x && x < 1.0);
    observe("y", Bernoulli::new(x), y);
    x
}

/// A draw at a point of probability zero (here `Bernoulli::new(x)` outside `[0, 1]`, past a
/// `condition` that failed) has weight 0, and the other draws are the posterior's. One such
/// draw, about a third of them, aborted the whole run with `ImpossiblePoint` (a tester,
/// 2026-11-28).
#[test]
fn importance_sampling_gives_impossible_draws_weight_zero() {
    let n = 20_000;
    let is = importance_sampling(
        bounded_coin,
        (true,),
        &ChoiceMap::new(),
        n,
        &mut PplRng::seed_from_u64(3),
    )
    .unwrap();
    assert!(is.traces.len() < n, "{}", is.traces.len());
    // The exact posterior ∝ x φ((x - 0.5) / 0.5) on (0, 1), by Simpson's rule.
    let density = |x: f64| {
        x * (-2.0 * (x - 0.5) * (x - 0.5)).exp() / (0.5 * (2.0 * std::f64::consts::PI).sqrt())
    };
    let simpson = |f: &dyn Fn(f64) -> f64| {
        let m = 2000;
        let h = 1.0 / m as f64;
        (0..=m)
            .map(|k| {
                let w = if k == 0 || k == m {
                    1.0
                } else if k % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                w * f(k as f64 * h)
            })
            .sum::<f64>()
            * h
            / 3.0
    };
    let evidence = simpson(&density);
    let mean = simpson(&|x| x * density(x)) / evidence;
    assert!(
        (is.log_marginal_likelihood - evidence.ln()).abs() < 0.03,
        "{} vs {}",
        is.log_marginal_likelihood,
        evidence.ln()
    );
    let got = is.mean(|t| t.value::<f64>("x").unwrap());
    assert!((got - mean).abs() < 0.01, "{got} vs {mean}");
}
