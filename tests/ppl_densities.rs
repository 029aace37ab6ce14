//! The built-in distributions' log-densities next to the ends of their supports, in their far
//! tails and at extreme parameters, against closed forms evaluated with mpmath at 50 digits
//! (each case writes its form out); and inference steps whose proposal leaves a support, which
//! are rejections, not errors.
//!
//! statrs 0.18, which `dist.rs` wrapped until 2026-11-28, takes an `x` or `p` within 4 ulps of 1
//! for 1 (`ulps_eq!`) and gives -∞ there, rounds `1 - p`, overflows `high - low`, and sums
//! `k ln λ - λ - ln k!` whose terms cancel at large rates: each case below failed with it.

// The closed forms' values are written as mpmath printed them, to 20 digits.
#![allow(clippy::excessive_precision)]

use irtrack::ppl::{
    generate, hmc, mh_propose, sample, update, update_choices, Bernoulli, Beta, ChoiceMap,
    Dirichlet, Distribution, Gamma, Geometric, Hmc, Normal, Poisson, PplError, PplRng, Selection,
    Uniform,
};
use irtrack::{ppl::observe, tracked};
use rand::SeedableRng;

/// `got` within `rel` of `want`, relatively (absolutely below 1).
fn close(what: &str, got: f64, want: f64, rel: f64) {
    assert!(
        (got - want).abs() <= rel * want.abs().max(1.0),
        "{what}: {got:?}, the closed form gives {want:?} (difference {:e})",
        got - want
    );
}

/// `1 - 2⁻⁵³`, the largest float below 1.
const BELOW_ONE: f64 = 1.0 - f64::EPSILON / 2.0;

/// Within a few ulps of 1 the densities are the closed forms, not -∞. A logistic model gives
/// `p = 1 - 2⁻⁵³` at `z ≈ 37`; `Beta(1, 0.05)` draws land there often.
#[test]
fn densities_next_to_the_ends_of_their_supports() {
    let tol = 1e-15;
    // Bernoulli(p) at false: ln(1 - p) = ln 2⁻⁵³ = -53 ln 2.
    close(
        "Bernoulli(1 - 2⁻⁵³) at false",
        Bernoulli::new(BELOW_ONE).log_density(&false),
        -36.736800569677101399,
        tol,
    );
    // ln(1 - p) = -51 ln 2 at p = 1 - 2⁻⁵¹.
    close(
        "Bernoulli(1 - 2⁻⁵¹) at false",
        Bernoulli::new(1.0 - 4.0 * f64::EPSILON / 2.0).log_density(&false),
        -51.0 * std::f64::consts::LN_2,
        tol,
    );
    // Beta(a, b) at 1 - δ: (a-1) ln(1-δ) + (b-1) ln δ - ln B(a, b), δ = 2⁻⁵³.
    // Beta(2, 2): ln 6 + ln(1 - 2⁻⁵³) - 53 ln 2.
    close(
        "Beta(2, 2) at 1 - 2⁻⁵³",
        Beta::new(2.0, 2.0).log_density(&BELOW_ONE),
        -34.945041100449046509,
        tol,
    );
    // Beta(1/2, 1/2): -ln π - ½ ln(1 - 2⁻⁵³) + 53/2 ln 2.
    close(
        "Beta(0.5, 0.5) at 1 - 2⁻⁵³",
        Beta::new(0.5, 0.5).log_density(&BELOW_ONE),
        17.223670398989150581,
        tol,
    );
    // Beta(2, 1/2): ln(3/4) + ln(1 - 2⁻⁵³) + 53/2 ln 2.
    close(
        "Beta(2, 0.5) at 1 - 2⁻⁵³",
        Beta::new(2.0, 0.5).log_density(&BELOW_ONE),
        18.080718212386769661,
        tol,
    );
    // Beta(2, 2) at 2⁻⁶⁰: ln 6 - 60 ln 2 + ln(1 - 2⁻⁶⁰).
    close(
        "Beta(2, 2) at 2⁻⁶⁰",
        Beta::new(2.0, 2.0).log_density(&2f64.powi(-60)),
        -39.797071364368663565,
        tol,
    );
    // Geometric(p) at k = 1 failure: ln p + ln(1 - p) = ln(1 - 2⁻⁵³) - 53 ln 2.
    close(
        "Geometric(1 - 2⁻⁵³) at 1",
        Geometric::new(BELOW_ONE).log_density(&1),
        -36.73680056967710151,
        tol,
    );
    // Gamma(k, θ) at 0 is the limit of x^(k-1) e^(-x/θ) / (Γ(k) θ^k): ∞ for k < 1, 1/θ for
    // k = 1 exactly, 0 for k > 1, however close k is to 1.
    let e = f64::EPSILON;
    assert_eq!(
        Gamma::new(1.0 + 2.0 * e, 2.0).log_density(&0.0),
        f64::NEG_INFINITY
    );
    assert_eq!(Gamma::new(1.0 - e, 2.0).log_density(&0.0), f64::INFINITY);
    assert_eq!(Gamma::new(1.0, 2.0).log_density(&0.0), -(2f64.ln()));
    // Gamma(1, 1) at 1: e^(-1), exactly -1 in logs.
    assert_eq!(Gamma::new(1.0, 1.0).log_density(&1.0), -1.0);
    // No prior draw of Beta(1, 0.05) scores -∞: 1,445 of 100,000 did (within 4 ulps of 1).
    let mut rng = PplRng::seed_from_u64(7);
    let d = Beta::new(1.0, 0.05);
    let bad = (0..100_000)
        .filter(|_| d.log_density(&d.draw(&mut rng)) == f64::NEG_INFINITY)
        .count();
    assert_eq!(bad, 0, "draws of Beta(1, 0.05) scoring -∞");
}

/// Far tails and extreme parameters, where the naive formulas cancel or overflow.
#[test]
fn densities_at_extreme_parameters() {
    // Poisson(λ) at k: k ln λ - λ - ln k!. The three terms are 3e16 at λ = k = 1e15.
    close(
        "Poisson(1e15) at 1e15",
        Poisson::new(1e15).log_density(&1_000_000_000_000_000),
        -18.188326730660015455,
        1e-14,
    );
    close(
        "Poisson(1e10) at 1e10",
        Poisson::new(1e10).log_density(&10_000_000_000),
        -12.431863998183234495,
        1e-14,
    );
    close(
        "Poisson(1e10) at 1e10 + 1e5",
        Poisson::new(1e10).log_density(&10_000_100_000),
        -12.931867331499901195,
        1e-14,
    );
    // Geometric(p) at k: ln p + k ln(1 - p), with ln(1 - p) = -p - p²/2 - …
    close(
        "Geometric(1e-15) at 1e15",
        Geometric::new(1e-15).log_density(&1_000_000_000_000_000),
        -35.53877639491068576,
        1e-15,
    );
    // Uniform(-1e308, 1e308): -ln(2e308), although high - low overflows.
    close(
        "Uniform(-1e308, 1e308) at 0",
        Uniform::new(-1e308, 1e308).log_density(&0.0),
        -709.88935582272601599,
        1e-15,
    );
    // Normal(μ, σ) at x: -((x-μ)/σ)²/2 - ln σ - ln √(2π), although x - μ overflows.
    close(
        "Normal(1.7e308, 1e308) at -1.7e308",
        Normal::new(1.7e308, 1e308).log_density(&-1.7e308),
        -715.89514717537074289,
        1e-15,
    );
    // Beta and Dirichlet with large concentrations: ln Γ terms of 1e6 cancel to 1e1.
    close(
        "Beta(1e5, 1e5) at 0.4",
        Beta::new(1e5, 1e5).log_density(&0.4),
        -4076.2813863108704905,
        1e-14,
    );
    close(
        "Beta(1e10, 1e10) at 0.5 + 1e-6",
        Beta::new(1e10, 1e10).log_density(&(0.5 + 1e-6)),
        11.593707702594593189,
        // The density's slope in x is -8e4 there: half an ulp of x (5.6e-17) moves it by
        // 4.5e-12, and `n x` rounded in Loader's form by 2e-12.
        1e-12,
    );
    // ln Γ(6e5) - Σ ln Γ(αᵢ) + Σ (αᵢ - 1) ln xᵢ.
    close(
        "Dirichlet(1e5, 2e5, 3e5) at (0.17, 0.33, 0.5)",
        Dirichlet::new(vec![1e5, 2e5, 3e5]).log_density(&vec![0.17, 0.33, 0.5]),
        -16.555627425614904575,
        1e-13,
    );
    // Gamma(k, θ) at x: (k-1) ln x - x/θ - k ln θ - ln Γ(k).
    close(
        "Gamma(1e10, 1) at 1e10",
        Gamma::new(1e10, 1.0).log_density(&1e10),
        -12.431863998183234495,
        1e-14,
    );
    close(
        "Gamma(1e6, 1e-6) at 1",
        Gamma::new(1e6, 1e-6).log_density(&1.0),
        5.9888166624441309769,
        1e-14,
    );
    // x/θ underflows: ln x - 2 ln θ - x/θ.
    close(
        "Gamma(2, 1e300) at 1e-300",
        Gamma::new(2.0, 1e300).log_density(&1e-300),
        -2072.3265836946411157,
        1e-15,
    );
    // k/x underflows: -x/θ dominates.
    close(
        "Gamma(1e-300, 1) at 1e300",
        Gamma::new(1e-300, 1.0).log_density(&1e300),
        -1e300,
        1e-15,
    );
}

// ---------------------------------------------------------------------------------------------
// Proposals outside a support.

/// Beta(2, 2) prior on `p`, Bernoulli(p) flips: a proposal with `p` outside [0, 1] has prior
/// density 0, and `Bernoulli::new(p)` is then not a distribution at all.
#[tracked]
fn coin(flips: Vec<bool>) {
    let p = sample("p", Beta::new(2.0, 2.0));
    for (i, &heads) in flips.iter().enumerate() {
        observe(("flip", i), Bernoulli::new(p), heads);
    }
}

fn flips() -> Vec<bool> {
    (0..10).map(|i| i != 3 && i != 7).collect()
}

/// A leapfrog trajectory or a random-walk proposal that takes `p` out of [0, 1] is rejected:
/// the point has probability 0 (the Beta prior is 0 there) whatever the flips' distributions
/// would be. Before 2026-11-28 both returned `InvalidDistribution` (HMC with step 0.08: 179
/// of 4,000 steps; the random walk: 376 of 3,000).
#[test]
fn a_proposal_that_leaves_a_support_is_rejected() {
    let mut rng = PplRng::seed_from_u64(31);
    let (mut t, _) = generate(coin, (flips(),), &ChoiceMap::new(), &mut rng).unwrap();
    let config = Hmc {
        step_size: 0.08,
        steps: 8,
    };
    let mut accepted = 0;
    for _ in 0..400 {
        let (next, a) = hmc(t, &Selection::of(["p"]), &config, &mut rng).unwrap();
        t = next;
        accepted += usize::from(a);
        let p: f64 = t.value("p").unwrap();
        assert!((0.0..=1.0).contains(&p));
    }
    assert!(
        accepted < 400 && accepted > 200,
        "{accepted} of 400 accepted"
    );
    let mut rejected = 0;
    for _ in 0..400 {
        let (next, a) = mh_propose(
            t,
            |cur| {
                let p: f64 = cur.value("p").unwrap();
                sample("p", Normal::new(p, 0.2));
            },
            &mut rng,
        )
        .unwrap();
        t = next;
        rejected += usize::from(!a);
    }
    assert!(rejected > 40, "{rejected} of 400 rejected");
}

/// Asked for a trace at such a point, `update` (a run of the model) and `update_choices` (in
/// place from the graph) both say why they cannot give one: `ImpossiblePoint`, naming the
/// first flip.
#[test]
fn an_update_to_a_point_of_probability_zero_says_so() {
    let mut rng = PplRng::seed_from_u64(2);
    let (t, _) = generate(coin, (flips(),), &ChoiceMap::new(), &mut rng).unwrap();
    let outside = ChoiceMap::new().with("p", 1.2);
    for e in [
        update(&t, (flips(),), &outside, &mut rng).err(),
        update_choices(&t, &outside, &mut rng).err(),
    ] {
        match e {
            Some(PplError::ImpossiblePoint {
                address,
                distribution,
                ..
            }) => {
                assert_eq!(address.to_string(), "flip[0]");
                assert_eq!(distribution, "bernoulli");
            }
            other => panic!("{other:?}"),
        }
    }
}

/// A model whose distribution is invalid at a point of positive density is the model's fault,
/// and stays an error: `x ~ N(0.5, 0.1)` can be 1.2, and `Bernoulli(1.2)` is not a distribution.
#[tracked]
fn unguarded(flip: bool) {
    let x = sample("x", Normal::new(0.5, 0.1));
    observe("flip", Bernoulli::new(x), flip);
}

#[test]
fn an_invalid_distribution_at_a_possible_point_is_an_error() {
    let mut rng = PplRng::seed_from_u64(5);
    let (t, _) = generate(unguarded, (true,), &ChoiceMap::new(), &mut rng).unwrap();
    let e = mh_propose(
        t,
        |_| {
            sample("x", Normal::new(1.2, 1e-9));
        },
        &mut rng,
    )
    .err();
    assert!(
        matches!(e, Some(PplError::InvalidDistribution { .. })),
        "{e:?}"
    );
}
