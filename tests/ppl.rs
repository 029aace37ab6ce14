//! Posteriors of the `ppl` layer against exact answers (issue 14).
//!
//! Every chain is seeded, so each test is deterministic. A Monte Carlo mean is compared with
//! the exact value within 4 standard errors, the standard error being the exact posterior
//! standard deviation over the square root of the chain's effective sample size (estimated
//! from its autocorrelations, Geyer's initial positive sequence); each test also asserts the
//! effective sample size it needs, so a chain that stopped mixing fails instead of passing
//! with a wide tolerance.

use irtrack::ppl::{
    generate, hmc, importance_sampling, mh, mh_propose, mh_rerun, observe, sample, simulate,
    Bernoulli, Beta, ChoiceMap, Hmc, Normal, Poisson, PplRng, Selection,
};
use irtrack::tracked;
use rand::SeedableRng;
use std::f64::consts::PI;

/// The effective sample size of a chain (Geyer's initial positive sequence).
fn ess(x: &[f64]) -> f64 {
    let n = x.len();
    let mean = x.iter().sum::<f64>() / n as f64;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
    if var == 0.0 {
        return n as f64;
    }
    let rho = |lag: usize| {
        (0..n - lag)
            .map(|i| (x[i] - mean) * (x[i + lag] - mean))
            .sum::<f64>()
            / (n as f64 * var)
    };
    let mut sum = 0.0;
    let mut lag = 1;
    while lag + 1 < n / 2 {
        let pair = rho(lag) + rho(lag + 1);
        if pair <= 0.0 {
            break;
        }
        sum += pair;
        lag += 2;
    }
    n as f64 / (1.0 + 2.0 * sum)
}

/// Asserts that the chain's mean is `exact` within 4 standard errors, for a target with
/// standard deviation `sd`, and that the chain has at least `min_ess` effective samples.
fn check_mean(what: &str, chain: &[f64], exact: f64, sd: f64, min_ess: f64) {
    let n_eff = ess(chain);
    let mean = chain.iter().sum::<f64>() / chain.len() as f64;
    let tolerance = 4.0 * sd / n_eff.sqrt();
    eprintln!("{what}: mean {mean:.4}, exact {exact:.4}, tolerance {tolerance:.4}, ESS {n_eff:.0}");
    assert!(n_eff >= min_ess, "{what}: ESS {n_eff:.0} < {min_ess}");
    assert!(
        (mean - exact).abs() <= tolerance,
        "{what}: mean {mean} vs exact {exact} (tolerance {tolerance}, ESS {n_eff:.0})"
    );
}

/// Checks the posterior probability of each value in `values` (indicator chains).
fn check_probabilities(what: &str, chain: &[u64], exact: &[(u64, f64)], min_ess: f64) {
    for &(k, p) in exact {
        let ind: Vec<f64> = chain.iter().map(|&v| f64::from(u8::from(v == k))).collect();
        check_mean(
            &format!("{what}: P({k})"),
            &ind,
            p,
            (p * (1.0 - p)).sqrt(),
            min_ess,
        );
    }
}

fn ln_beta(a: f64, b: f64) -> f64 {
    statrs_ln_gamma(a) + statrs_ln_gamma(b) - statrs_ln_gamma(a + b)
}

/// ln Γ by Lanczos (g = 7), accurate to ~1e-13 for the arguments used here.
fn statrs_ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

fn normal_pdf(x: f64, mu: f64, sd: f64) -> f64 {
    (-(x - mu).powi(2) / (2.0 * sd * sd)).exp() / (sd * (2.0 * PI).sqrt())
}

// ---------------------------------------------------------------------------------------------
// Beta-Bernoulli: 8 heads of 10, Beta(2, 2) prior → Beta(10, 4).

#[tracked]
fn coin(flips: Vec<bool>) {
    let p = sample("p", Beta::new(2.0, 2.0));
    for (i, &f) in flips.iter().enumerate() {
        observe(("flip", i), Bernoulli::new(p), f);
    }
}

fn eight_of_ten() -> Vec<bool> {
    (0..10).map(|i| i < 8).collect()
}

#[test]
fn beta_bernoulli_single_site_mh() {
    let mut rng = PplRng::seed_from_u64(11);
    let (mut t, _) = generate(coin, (eight_of_ten(),), &ChoiceMap::new(), &mut rng).unwrap();
    let mut chain = Vec::new();
    for step in 0..6000 {
        t = mh(t, &Selection::of(["p"]), &mut rng).unwrap().0;
        if step >= 200 {
            chain.push(t.value::<f64>("p").unwrap());
        }
    }
    // Beta(10, 4): mean 10/14, variance ab / ((a + b)² (a + b + 1)).
    let (a, b): (f64, f64) = (10.0, 4.0);
    let sd = (a * b / ((a + b) * (a + b) * (a + b + 1.0))).sqrt();
    check_mean("Beta-Bernoulli p", &chain, a / (a + b), sd, 800.0);
    // The in-place steps left the graph stale; asking for it runs the model on the choices.
    assert!(!t.is_graph_current());
    let score = t.score();
    let graph = t.graph().unwrap();
    assert_eq!(irtrack::ppl::score_graph(graph).unwrap().choices.len(), 11);
    assert!((t.score() - score).abs() < 1e-12);
}

#[test]
fn beta_bernoulli_marginal_likelihood() {
    // p(flips) = B(2 + 8, 2 + 2) / B(2, 2) for this sequence.
    let exact = ln_beta(10.0, 4.0) - ln_beta(2.0, 2.0);
    let obs = ChoiceMap::new();
    let n = 3000;
    let is = importance_sampling(
        coin,
        (eight_of_ten(),),
        &obs,
        n,
        &mut PplRng::seed_from_u64(12),
    )
    .unwrap();
    // The estimate's log has standard error sqrt(r / n), r = E[w²]/E[w]² - 1 with
    // w = p^8 (1-p)^2 under Beta(2, 2): E[w²]/E[w]² = B(18, 6) B(2, 2) / B(10, 4)².
    let r = (ln_beta(18.0, 6.0) + ln_beta(2.0, 2.0) - 2.0 * ln_beta(10.0, 4.0)).exp() - 1.0;
    let tolerance = 4.0 * (r / n as f64).sqrt();
    eprintln!(
        "log p(flips): {} vs exact {exact} (tolerance {tolerance}, ESS {:.0})",
        is.log_marginal_likelihood,
        is.effective_sample_size()
    );
    assert!((is.log_marginal_likelihood - exact).abs() < tolerance);
    let mean = is.mean(|t| t.value::<f64>("p").unwrap());
    assert!((mean - 10.0 / 14.0).abs() < 4.0 * 0.1166 / is.effective_sample_size().sqrt());
}

// ---------------------------------------------------------------------------------------------
// The ends of Beta's support.

/// `Beta(a, b)`'s log-density at an end of `[0, 1]` is the density's limit there: ∞ where that
/// end's exponent is negative (statrs says -∞), `ln b` at 0 when `a = 1`, -∞ when `a > 1` (as
/// Distributions.jl and SciPy give it). `Beta(0.01, 0.01)` draws exactly 0 or 1 about a third
/// of the time (its draws round there), and until 2026-11-27 each such choice weighed nothing.
#[test]
fn beta_log_density_at_the_ends_of_its_support() {
    use irtrack::ppl::Distribution;
    let (inf, ninf) = (f64::INFINITY, f64::NEG_INFINITY);
    let cases = [
        ((0.5, 0.5), 0.0, inf),
        ((0.5, 0.5), 1.0, inf),
        ((0.5, 3.0), -0.0, inf),
        ((2.0, 0.5), 1.0, inf),
        ((1.0, 3.0), 0.0, 3f64.ln()),
        ((3.0, 1.0), 1.0, 3f64.ln()),
        ((1.0, 1.0), 0.0, 0.0),
        ((1.0, 1.0), 1.0, 0.0),
        ((2.0, 3.0), 0.0, ninf),
        ((2.0, 3.0), 1.0, ninf),
        ((0.5, 0.5), 1.5, ninf),
        ((0.5, 0.5), -1e-300, ninf),
    ];
    for ((a, b), x, want) in cases {
        let got = Beta::new(a, b).log_density(&x);
        assert_eq!(got, want, "Beta({a}, {b}) at {x}");
    }
    // Inside, next to the ends: the density itself, `x^(a-1) (1-x)^(b-1) / B(a, b)`.
    for x in [1e-300f64, 1e-12, 1.0 - 1e-12] {
        let want = -0.5 * x.ln() - 0.5 * (1.0 - x).ln() - PI.ln();
        let got = Beta::new(0.5, 0.5).log_density(&x);
        assert!(
            (got - want).abs() < 1e-12 * want.abs(),
            "{x}: {got} vs {want}"
        );
    }
    let mut rng = PplRng::seed_from_u64(3);
    let d = Beta::new(0.01, 0.01);
    let ends = (0..1000)
        .map(|_| d.draw(&mut rng))
        .filter(|&x| x == 0.0 || x == 1.0)
        .count();
    assert!(ends > 100, "{ends} draws at an end");
}

/// An observation at 0 under `Beta(a, 2)` has infinite likelihood for `a < 1` and none for
/// `a > 1`: the posterior puts all its mass on the models with `a < 1`, and importance sampling
/// shares the weight among the traces of infinite weight instead of making it NaN.
#[tracked]
fn beta_end_model() {
    let small = sample("small", Bernoulli::new(0.5));
    let a = if small { 0.5 } else { 2.0 };
    observe("x", Beta::new(a, 2.0), 0.0);
}

#[test]
fn infinite_weights_share_the_posterior() {
    let is = importance_sampling(
        beta_end_model,
        (),
        &ChoiceMap::new(),
        200,
        &mut PplRng::seed_from_u64(8),
    )
    .unwrap();
    let k = is
        .log_weights
        .iter()
        .filter(|&&w| w == f64::INFINITY)
        .count();
    assert!(k > 50 && k < 150, "{k} of 200 with small = true");
    let weights = is.normalized_weights();
    assert!(weights.iter().all(|w| w.is_finite()));
    assert!((weights.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert_eq!(
        is.mean(|t| f64::from(u8::from(t.value::<bool>("small").unwrap()))),
        1.0
    );
    assert!((is.effective_sample_size() - k as f64).abs() < 1e-9);
    assert_eq!(is.log_marginal_likelihood, f64::INFINITY);
}

// ---------------------------------------------------------------------------------------------
// Normal-Normal: mu ~ N(0, 2²), y_i ~ N(mu, 1).

const YS: [f64; 4] = [1.2, 0.8, 2.1, 1.5];

#[tracked]
fn normal_normal(ys: Vec<f64>) {
    let mu = sample("mu", Normal::new(0.0, 2.0));
    for (i, &y) in ys.iter().enumerate() {
        observe(("y", i), Normal::new(mu, 1.0), y);
    }
}

fn normal_normal_exact() -> (f64, f64) {
    let precision = 1.0 / 4.0 + YS.len() as f64;
    (YS.iter().sum::<f64>() / precision, (1.0 / precision).sqrt())
}

#[test]
fn normal_normal_random_walk_proposal() {
    let mut rng = PplRng::seed_from_u64(21);
    let (mut t, _) = generate(normal_normal, (YS.to_vec(),), &ChoiceMap::new(), &mut rng).unwrap();
    let mut chain = Vec::new();
    for step in 0..5000 {
        t = mh_propose(
            t,
            |cur| {
                let mu: f64 = cur.value("mu").unwrap();
                sample("mu", Normal::new(mu, 0.6));
            },
            &mut rng,
        )
        .unwrap()
        .0;
        if step >= 200 {
            chain.push(t.value::<f64>("mu").unwrap());
        }
    }
    let (m, sd) = normal_normal_exact();
    check_mean("Normal-Normal mu (random walk)", &chain, m, sd, 600.0);
}

#[test]
fn normal_normal_hmc() {
    let mut rng = PplRng::seed_from_u64(22);
    let (mut t, _) = generate(normal_normal, (YS.to_vec(),), &ChoiceMap::new(), &mut rng).unwrap();
    let config = Hmc {
        step_size: 0.2,
        steps: 4,
    };
    let mut chain = Vec::new();
    let mut accepted = 0;
    for step in 0..1500 {
        let (next, a) = hmc(t, &Selection::of(["mu"]), &config, &mut rng).unwrap();
        t = next;
        accepted += usize::from(a);
        if step >= 100 {
            chain.push(t.value::<f64>("mu").unwrap());
        }
    }
    assert!(accepted > 1200, "HMC accepted {accepted} of 1500");
    let (m, sd) = normal_normal_exact();
    check_mean("Normal-Normal mu (HMC)", &chain, m, sd, 500.0);
    // A step that cannot run is the settings' error, not the model's NaN log-density (a
    // tester, 2026-11-28).
    for step_size in [f64::NAN, f64::INFINITY] {
        let bad = Hmc {
            step_size,
            steps: 4,
        };
        let (fresh, _) =
            generate(normal_normal, (YS.to_vec(),), &ChoiceMap::new(), &mut rng).unwrap();
        let e = hmc(fresh, &Selection::of(["mu"]), &bad, &mut rng).unwrap_err();
        assert!(matches!(e, irtrack::ppl::PplError::BadSettings(_)), "{e}");
        assert!(e.to_string().contains("step_size"), "{e}");
    }
    let var = chain.iter().map(|x| (x - m).powi(2)).sum::<f64>() / chain.len() as f64;
    // The variance's relative standard error is about sqrt(2 / ESS) ≈ 0.06 here.
    assert!(
        (var / (sd * sd) - 1.0).abs() < 0.25,
        "variance {var} vs {}",
        sd * sd
    );
}

/// An observation on one branch only: `y` is observed where `x > 0`. A move of `x` across 0
/// adds or removes the observation; HMC accepted the first and always rejected the second (a
/// tester, 2026-11-27: `P(x > 0 | y = 0)` 0.99998 for the exact
/// `Z₁ / (Z₁ + Z₀)`, `Z₁ = N(0; 0, √2) · ½`, `Z₀ = ½`: 0.2201).
#[tracked]
fn observed_on_one_branch(y: f64) {
    let x = sample("x", Normal::new(0.0, 1.0));
    if x > 0.0 {
        observe("y", Normal::new(x, 1.0), y);
    }
}

#[test]
fn hmc_moves_an_observation_in_and_out_alike() {
    let z1 = 0.5 / (4.0 * std::f64::consts::PI).sqrt();
    let exact = z1 / (z1 + 0.5);
    let mut rng = PplRng::seed_from_u64(11);
    let (mut t, _) = generate(observed_on_one_branch, (0.0,), &ChoiceMap::new(), &mut rng).unwrap();
    let config = Hmc {
        step_size: 0.6,
        steps: 3,
    };
    let (mut above, mut n, mut crossings) = (0usize, 0usize, 0usize);
    for step in 0..6000 {
        let before = t.value::<f64>("x").unwrap() > 0.0;
        t = hmc(t, &Selection::of(["x"]), &config, &mut rng).unwrap().0;
        let now = t.value::<f64>("x").unwrap() > 0.0;
        crossings += usize::from(before != now);
        if step >= 500 {
            above += usize::from(now);
            n += 1;
        }
    }
    let p = above as f64 / n as f64;
    assert!(crossings > 100, "{crossings} crossings");
    // The chain's autocorrelation makes its standard error a few times the binomial 0.006.
    assert!((p - exact).abs() < 0.06, "P(x > 0) = {p}, exact {exact}");
}

/// Observations at other addresses on the two sides of a branch, and an observed value
/// computed from the moved choice: HMC's gradient at a point was zero where the trace it was
/// asked from observed something the point does not (or observed another value), so the
/// forward and backward trajectories differed and the chain's target was wrong (a tester,
/// 2026-11-27: `P(x > 0)` 0.88 for 0.708; a posterior variance 0.028 for 0.0385).
#[tracked]
fn observes_by_side() {
    let x = sample("x", Normal::new(0.0, 1.0));
    if x > 0.0 {
        observe("y", Normal::new(x, 0.5), 1.0);
    } else {
        observe("w", Normal::new(x, 2.0), -1.0);
    }
}

#[tracked]
fn observes_the_choice() {
    let x = sample("x", Normal::new(0.0, 1.0));
    observe("y", Normal::new(1.0, 0.2), x);
}

fn normal_density(x: f64, mu: f64, sigma: f64) -> f64 {
    (-0.5 * ((x - mu) / sigma).powi(2)).exp() / (sigma * (2.0 * PI).sqrt())
}

#[test]
fn hmc_gradients_do_not_depend_on_the_starting_trace() {
    // P(x > 0) by quadrature of N(x; 0, 1) · (x > 0 ? N(1; x, 0.5) : N(-1; x, 2)).
    let (mut above, mut all) = (0.0, 0.0);
    for k in 0..160_000 {
        let x = -8.0 + 16.0 * (k as f64 + 0.5) / 160_000.0;
        let p = normal_density(x, 0.0, 1.0)
            * if x > 0.0 {
                normal_density(1.0, x, 0.5)
            } else {
                normal_density(-1.0, x, 2.0)
            };
        all += p;
        if x > 0.0 {
            above += p;
        }
    }
    let exact = above / all;
    let mut rng = PplRng::seed_from_u64(11);
    let (mut t, _) = generate(observes_by_side, (), &ChoiceMap::new(), &mut rng).unwrap();
    let config = Hmc {
        step_size: 0.5,
        steps: 3,
    };
    let (mut n_above, mut n) = (0usize, 0usize);
    for step in 0..6000 {
        t = hmc(t, &Selection::of(["x"]), &config, &mut rng).unwrap().0;
        if step >= 500 {
            n_above += usize::from(t.value::<f64>("x").unwrap() > 0.0);
            n += 1;
        }
    }
    let p = n_above as f64 / n as f64;
    assert!((p - exact).abs() < 0.05, "P(x > 0) = {p}, exact {exact}");

    // N(x; 0, 1) · N(x; 1, 0.2): the posterior is N(1/1.04 · … ) with variance 0.04/1.04.
    let var_exact = 0.04 / 1.04;
    let mean_exact = 1.0 / 1.04;
    let (mut t, _) = generate(observes_the_choice, (), &ChoiceMap::new(), &mut rng).unwrap();
    let config = Hmc {
        step_size: 0.3,
        steps: 1,
    };
    let mut chain = Vec::new();
    for step in 0..8000 {
        t = hmc(t, &Selection::of(["x"]), &config, &mut rng).unwrap().0;
        if step >= 500 {
            chain.push(t.value::<f64>("x").unwrap());
        }
    }
    let m = chain.iter().sum::<f64>() / chain.len() as f64;
    let v = chain.iter().map(|x| (x - m).powi(2)).sum::<f64>() / chain.len() as f64;
    assert!((m - mean_exact).abs() < 0.03, "mean {m} vs {mean_exact}");
    assert!(
        (v / var_exact - 1.0).abs() < 0.15,
        "variance {v} vs {var_exact}"
    );
}

/// An observation of a value computed from a latent (`y = 2z` observed at its computed value,
/// so the density is N(2z; 0, 1) times the prior N(z; 0, 1): the posterior of `z` is N(0, 1/5)).
/// HMC rejected every step (the observation's changed value was taken for a change of the
/// model's structure) and stayed at its start; `mh_propose` failed as not reversible.
#[tracked]
fn observes_a_computed_value() {
    let z = sample("z", Normal::new(0.0, 1.0));
    observe("y", Normal::new(0.0, 1.0), z * 2.0);
}

#[test]
fn an_observation_computed_from_a_latent_moves_with_it() {
    let mut rng = PplRng::seed_from_u64(8);
    let (mut t, _) = generate(observes_a_computed_value, (), &ChoiceMap::new(), &mut rng).unwrap();
    let config = Hmc {
        step_size: 0.2,
        steps: 4,
    };
    let (mut chain, mut accepted) = (Vec::new(), 0);
    for step in 0..1500 {
        let (next, a) = hmc(t, &Selection::of(["z"]), &config, &mut rng).unwrap();
        t = next;
        accepted += usize::from(a);
        if step >= 100 {
            chain.push(t.value::<f64>("z").unwrap());
        }
    }
    assert!(accepted > 400, "HMC accepted {accepted} of 1500");
    let sd = (1.0f64 / 5.0).sqrt();
    check_mean("z given y = 2z (HMC)", &chain, 0.0, sd, 200.0);
    let var = chain.iter().map(|x| x * x).sum::<f64>() / chain.len() as f64;
    assert!(
        (var / (sd * sd) - 1.0).abs() < 0.25,
        "variance {var} vs 0.2"
    );
    let mut walked = 0;
    for _ in 0..200 {
        let (next, a) = mh_propose(
            t,
            |cur| {
                let z: f64 = cur.value("z").unwrap();
                sample("z", Normal::new(z, 0.5));
            },
            &mut rng,
        )
        .unwrap();
        t = next;
        walked += usize::from(a);
    }
    assert!(walked > 50, "random walk accepted {walked} of 200");
}

// ---------------------------------------------------------------------------------------------
// The geometric recursion with a noisy observation of its depth.

#[tracked]
fn geom(p: f64) -> u64 {
    if sample("stop", Bernoulli::new(p)) {
        0
    } else {
        1 + geom(p)
    }
}

#[tracked]
fn geom_observed(p: f64, y: f64) -> u64 {
    let n = geom(p);
    observe("obs", Normal::new(n as f64, 1.0), y);
    n
}

/// P(n | y) ∝ p (1-p)^n N(y; n, 1), summed to n = 200 (the rest is below 1e-60).
fn geom_exact(p: f64, y: f64) -> Vec<f64> {
    let w: Vec<f64> = (0..200)
        .map(|n| p * (1.0 - p).powi(n) * normal_pdf(y, n as f64, 1.0))
        .collect();
    let z: f64 = w.iter().sum();
    w.into_iter().map(|x| x / z).collect()
}

/// The address of the `stop` choice at recursion depth `k` (from 0): `geom/…/geom/stop`.
fn stop_at(k: usize) -> irtrack::ppl::Address {
    irtrack::ppl::Address::parse(&format!("{}stop", "geom/".repeat(k + 1))).unwrap()
}

#[test]
fn geom_posterior_over_depth() {
    let (p, y) = (0.4, 3.0);
    let mut rng = PplRng::seed_from_u64(31);
    let (mut t, _) = generate(geom_observed, (p, y), &ChoiceMap::new(), &mut rng).unwrap();
    let mut chain = Vec::new();
    for step in 0..2500 {
        // A resimulation of everything, then a flip of each of the first depths' `stop`: each
        // kernel leaves the posterior invariant, so their composition does.
        t = mh(t, &Selection::all(), &mut rng).unwrap().0;
        for k in 0..6 {
            t = mh(t, &Selection::address(stop_at(k)), &mut rng).unwrap().0;
        }
        assert_eq!(
            t.len() as u64,
            t.retval() + 2,
            "one stop per level, and the observation"
        );
        if step >= 200 {
            chain.push(*t.retval());
        }
    }
    let exact = geom_exact(p, y);
    let probabilities: Vec<(u64, f64)> = (0..6).map(|n| (n as u64, exact[n])).collect();
    check_probabilities("geom depth", &chain, &probabilities, 600.0);
}

// ---------------------------------------------------------------------------------------------
// A two-component mixture: the posterior over the component.

#[tracked]
fn mixture(x: f64) -> bool {
    let z = sample("z", Bernoulli::new(0.3));
    let mu = if z { 2.0 } else { -1.0 };
    observe("x", Normal::new(mu, 1.0), x);
    z
}

#[test]
fn mixture_component_posterior() {
    let x = 0.5;
    let (a, b) = (
        0.3 * normal_pdf(x, 2.0, 1.0),
        0.7 * normal_pdf(x, -1.0, 1.0),
    );
    let exact = a / (a + b);
    let mut rng = PplRng::seed_from_u64(41);
    let (mut t, _) = generate(mixture, (x,), &ChoiceMap::new(), &mut rng).unwrap();
    let mut chain = Vec::new();
    for step in 0..8000 {
        t = mh(t, &Selection::of(["z"]), &mut rng).unwrap().0;
        if step >= 100 {
            chain.push(u64::from(*t.retval()));
        }
    }
    check_probabilities("mixture z", &chain, &[(1, exact)], 2000.0);
}

// ---------------------------------------------------------------------------------------------
// A loop whose length is a random choice.

#[tracked]
fn random_length(y: f64) -> u64 {
    let n = sample("n", Poisson::new(2.0));
    let mut total = 0.0;
    for i in 0..=n {
        total += sample(("x", i), Normal::new(0.0, 1.0));
    }
    observe("sum", Normal::new(total, 1.0), y);
    n
}

#[test]
fn random_length_loop_posterior() {
    // The sum of n + 1 standard normals is N(0, n + 1): y | n ~ N(0, n + 2), so
    // P(n | y) ∝ Poisson(n; 2) N(y; 0, n + 2).
    let y = 3.5;
    let w: Vec<f64> = (0..60u64)
        .map(|n| {
            let pois =
                (-2.0f64).exp() * 2f64.powi(n as i32) / (1..=n).map(|k| k as f64).product::<f64>();
            pois * normal_pdf(y, 0.0, ((n + 2) as f64).sqrt())
        })
        .collect();
    let z: f64 = w.iter().sum();
    let mut rng = PplRng::seed_from_u64(51);
    let (mut t, _) = generate(random_length, (y,), &ChoiceMap::new(), &mut rng).unwrap();
    let mut chain = Vec::new();
    for step in 0..5000 {
        t = mh(t, &Selection::of(["n"]), &mut rng).unwrap().0;
        // `x` selects every x[i]: a block move of the loop's choices.
        t = mh(t, &Selection::of(["x"]), &mut rng).unwrap().0;
        for i in 0..4u64 {
            t = mh(t, &Selection::address(("x", i)), &mut rng).unwrap().0;
        }
        assert_eq!(t.len() as u64, t.retval() + 3);
        if step >= 200 {
            chain.push(*t.retval());
        }
    }
    let exact: Vec<(u64, f64)> = (0..4).map(|n| (n as u64, w[n] / z)).collect();
    check_probabilities("random length n", &chain, &exact, 500.0);
}

// ---------------------------------------------------------------------------------------------
// In place and by re-running, MH gives the same chain.

#[tracked]
fn independent(data: Vec<f64>) {
    for (i, &y) in data.iter().enumerate() {
        let x = sample(("x", i), Normal::new(0.0, 1.0));
        observe(("y", i), Normal::new(x, 0.5), y);
    }
}

#[test]
fn in_place_and_rerun_mh_agree() {
    let data: Vec<f64> = (0..20).map(|i| (i as f64 * 0.37).sin()).collect();
    let start = simulate(independent, (data,), &mut PplRng::seed_from_u64(61)).unwrap();
    let replay = |in_place: bool| {
        let mut rng = PplRng::seed_from_u64(62);
        let (mut t, _, _) = irtrack::ppl::update(
            &start,
            start.args().clone(),
            &ChoiceMap::new(),
            &mut PplRng::seed_from_u64(0),
        )
        .unwrap();
        let mut accepted = 0;
        for step in 0..300 {
            let s = Selection::address(("x", step % 20));
            let (next, a) = if in_place {
                mh(t, &s, &mut rng).unwrap()
            } else {
                mh_rerun(t, &s, &mut rng).unwrap()
            };
            t = next;
            accepted += usize::from(a);
        }
        (t, accepted)
    };
    let (mut a, na) = replay(true);
    let (mut b, nb) = replay(false);
    assert!(!a.is_graph_current() && b.is_graph_current());
    assert_eq!(na, nb);
    assert!(na > 50 && na < 290, "{na} accepted");
    for i in 0..20 {
        assert_eq!(
            a.value::<f64>(("x", i)).unwrap().to_bits(),
            b.value::<f64>(("x", i)).unwrap().to_bits()
        );
    }
    assert!((a.score() - b.score()).abs() < 1e-9);
    let (ga, gb) = (
        a.graph().unwrap().to_string(),
        b.graph().unwrap().to_string(),
    );
    assert_eq!(ga, gb);
}

// ---------------------------------------------------------------------------------------------
// Simulation-based calibration of MH on the Normal-Normal model.

#[tracked]
fn sbc_model(n: usize) {
    let mu = sample("mu", Normal::new(0.0, 1.0));
    for i in 0..n {
        sample(("y", i), Normal::new(mu, 1.0));
    }
}

#[test]
fn mh_is_calibrated() {
    // For each replication: draw mu* and data from the model, run MH from the prior on the
    // data, and rank mu* among 9 thinned posterior draws. If MH targets the posterior, the
    // rank is uniform on 0..=9 (Talts et al. 2018). 200 replications, 10 bins: a chi-square
    // statistic with 9 degrees of freedom, below 27.9 with probability 0.999.
    let mut rng = PplRng::seed_from_u64(71);
    let (replications, draws, thin) = (200, 9, 15);
    let mut bins = [0usize; 10];
    for _ in 0..replications {
        let truth = simulate(sbc_model, (2,), &mut rng).unwrap();
        let mu_star: f64 = truth.value("mu").unwrap();
        let data = ChoiceMap::new()
            .with(("y", 0), truth.value::<f64>(("y", 0)).unwrap())
            .with(("y", 1), truth.value::<f64>(("y", 1)).unwrap());
        let (mut t, _) = generate(sbc_model, (2,), &data, &mut rng).unwrap();
        let mut rank = 0;
        for _ in 0..draws {
            for _ in 0..thin {
                t = mh(t, &Selection::of(["mu"]), &mut rng).unwrap().0;
            }
            rank += usize::from(t.value::<f64>("mu").unwrap() < mu_star);
        }
        bins[rank] += 1;
    }
    let expected = replications as f64 / 10.0;
    let chi2: f64 = bins
        .iter()
        .map(|&b| (b as f64 - expected).powi(2) / expected)
        .sum();
    eprintln!("SBC ranks {bins:?}, chi² = {chi2:.1}");
    assert!(chi2 < 27.9, "SBC ranks {bins:?}: chi² = {chi2}");
}
