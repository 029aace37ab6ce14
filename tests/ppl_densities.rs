//! The built-in distributions' log-densities next to the ends of their supports, in their far
//! tails and at extreme parameters, against closed forms evaluated with mpmath at 50 digits
//! (each case writes its form out).
//!
//! statrs 0.18, which `dist.rs` wrapped until 2026-11-28, takes an `x` or `p` within 4 ulps of 1
//! for 1 (`ulps_eq!`) and gives -∞ there, rounds `1 - p`, overflows `high - low`, and sums
//! `k ln λ - λ - ln k!` whose terms cancel at large rates: each case below failed with it.

// The closed forms' values are written as mpmath printed them, to 20 digits.
#![allow(clippy::excessive_precision)]

use irtrack::ppl::{
    Bernoulli, Beta, Dirichlet, Distribution, Gamma, Geometric, Normal, Poisson, PplRng, Uniform,
};
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
