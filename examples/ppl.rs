//! Probabilistic programs on traces: Metropolis-Hastings on the geometric recursion observed
//! through a noisy sensor, and HMC on a two-parameter regression, each next to its exact
//! posterior. Run with `cargo run --example ppl` (the `ppl` feature; the facade's own examples
//! have it).
//!
//! Each Monte Carlo figure is printed with its tolerance: 4 standard errors, the standard
//! error being the exact posterior's standard deviation over the square root of the chain's
//! effective sample size (ESS, from its autocorrelations). The chains are seeded, so the output
//! is the same on every run; the example exits with an error if a figure is outside its
//! tolerance.

use irtrack::ppl::{
    generate, hmc, mh, observe, sample, Address, Bernoulli, ChoiceMap, Hmc, Normal, PplRng,
    Selection,
};
use irtrack::tracked;
use rand::SeedableRng;

/// The number of failures before the first success of trials succeeding with probability `p`:
/// each level of the recursion makes one choice, `stop`, nested under its call
/// (`geom/stop`, `geom/geom/stop`, …).
#[tracked]
fn geom(p: f64) -> u64 {
    if sample("stop", Bernoulli::new(p)) {
        0
    } else {
        1 + geom(p)
    }
}

/// `geom`'s depth, seen through a sensor with Gaussian noise of standard deviation 1.
#[tracked]
fn sensor(p: f64, reading: f64) -> u64 {
    let n = geom(p);
    observe("reading", Normal::new(n as f64, 1.0), reading);
    n
}

/// A line `y = a + b x` with Gaussian noise of standard deviation `SIGMA`, priors
/// `a, b ~ N(0, TAU²)`. It returns nothing: HMC's steps then update the trace in place from
/// its graph (a return value that depends on `a` or `b` would make each score a run of the
/// model).
#[tracked]
fn line(xs: Vec<f64>, ys: Vec<f64>) {
    let a = sample("a", Normal::new(0.0, TAU));
    let b = sample("b", Normal::new(0.0, TAU));
    for i in 0..xs.len() {
        observe(("y", i), Normal::new(a + b * xs[i], SIGMA), ys[i]);
    }
}

const SIGMA: f64 = 0.5;
const TAU: f64 = 2.0;

/// The effective sample size of a chain (Geyer's initial positive sequence of
/// autocorrelations).
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

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// Prints `|estimate - exact| ≤ tolerance` as a verdict and counts the misses.
fn verdict(estimate: f64, exact: f64, tolerance: f64, misses: &mut usize) -> &'static str {
    if (estimate - exact).abs() <= tolerance {
        "ok"
    } else {
        *misses += 1;
        "OUTSIDE"
    }
}

fn main() {
    let mut rng = PplRng::seed_from_u64(2026);
    let mut misses = 0;

    // --- MH on geom, with an observation of its depth. -----------------------------------
    let (p, reading) = (0.4, 3.0);
    let (mut t, _) = generate(sensor, (p, reading), &ChoiceMap::new(), &mut rng).unwrap();
    let (burn_in, sweeps) = (200, 3_000);
    let mut depths = Vec::with_capacity(sweeps);
    for sweep in 0..burn_in + sweeps {
        // A resimulation of every choice, then a flip proposal at each of the first depths
        // (a `stop` the trace does not have is left alone): each kernel leaves the posterior
        // invariant, so the sweep does.
        t = mh(t, &Selection::all(), &mut rng).unwrap().0;
        for k in 0..6 {
            let stop = Address::parse(&format!("{}stop", "geom/".repeat(k + 1))).unwrap();
            t = mh(t, &Selection::address(stop), &mut rng).unwrap().0;
        }
        if sweep >= burn_in {
            depths.push(*t.retval());
        }
    }
    // P(n | reading) ∝ p (1-p)^n N(reading; n, 1); the terms past n = 200 are below 1e-60.
    let w: Vec<f64> = (0..200)
        .map(|n| p * (1.0 - p).powi(n) * (-(reading - n as f64).powi(2) / 2.0).exp())
        .collect();
    let z: f64 = w.iter().sum();
    println!("geom(p = {p}) observed as {reading} ± 1: posterior over the depth n");
    println!("({sweeps} MH sweeps after {burn_in} of burn-in; tolerance 4 sd / √ESS)");
    println!("  n      MH    exact   tolerance    ESS");
    for (n, wn) in w.iter().enumerate().take(7) {
        let exact = wn / z;
        let indicator: Vec<f64> = depths
            .iter()
            .map(|&d| f64::from(u8::from(d == n as u64)))
            .collect();
        let (estimate, n_eff) = (mean(&indicator), ess(&indicator));
        let tolerance = 4.0 * (exact * (1.0 - exact) / n_eff).sqrt();
        println!(
            "  {n}  {estimate:>6.4}   {exact:>6.4}   ± {tolerance:.4}   {n_eff:>5.0}   {}",
            verdict(estimate, exact, tolerance, &mut misses)
        );
    }
    println!("the last trace (each choice with its address and log-density):");
    print!("{}", t.graph().unwrap().root().levels(3));

    // --- HMC on a two-parameter model. ---------------------------------------------------
    let xs: Vec<f64> = (0..12).map(|i| i as f64 / 4.0 - 1.5).collect();
    // A line with a deterministic wiggle as its noise, so the data are the same on every run.
    let ys: Vec<f64> = xs
        .iter()
        .enumerate()
        .map(|(i, x)| 0.7 + 1.3 * x + 0.4 * ((i * 7919) as f64).sin())
        .collect();
    let (mut t, _) = generate(line, (xs.clone(), ys.clone()), &ChoiceMap::new(), &mut rng).unwrap();
    let config = Hmc {
        step_size: 0.05,
        steps: 5,
    };
    let both = Selection::of(["a", "b"]);
    let (burn_in, steps) = (100, 1_000);
    let (mut a_chain, mut b_chain, mut accepted) = (Vec::new(), Vec::new(), 0);
    for i in 0..burn_in + steps {
        let (next, ok) = hmc(t, &both, &config, &mut rng).unwrap();
        t = next;
        if i >= burn_in {
            accepted += usize::from(ok);
            a_chain.push(t.value::<f64>("a").unwrap());
            b_chain.push(t.value::<f64>("b").unwrap());
        }
    }
    // Conjugate Gaussian regression: the posterior of (a, b) is Gaussian with precision
    // P = XᵀX / σ² + I / τ² (X's rows are (1, x)) and mean P⁻¹ Xᵀy / σ².
    let (n, sx, sxx) = (
        xs.len() as f64,
        xs.iter().sum::<f64>(),
        xs.iter().map(|x| x * x).sum::<f64>(),
    );
    let (sy, sxy) = (
        ys.iter().sum::<f64>(),
        xs.iter().zip(&ys).map(|(x, y)| x * y).sum::<f64>(),
    );
    let s2 = SIGMA * SIGMA;
    let (p00, p01, p11) = (
        n / s2 + 1.0 / (TAU * TAU),
        sx / s2,
        sxx / s2 + 1.0 / (TAU * TAU),
    );
    let det = p00 * p11 - p01 * p01;
    let (c00, c01, c11) = (p11 / det, -p01 / det, p00 / det);
    let exact = [
        ("a", c00 * sy / s2 + c01 * sxy / s2, c00.sqrt(), &a_chain),
        ("b", c01 * sy / s2 + c11 * sxy / s2, c11.sqrt(), &b_chain),
    ];
    println!(
        "\nHMC on y = a + b x ({} points, σ = {SIGMA}, priors N(0, {TAU}²)): \
         {steps} steps after {burn_in} of burn-in, {accepted} accepted",
        xs.len()
    );
    println!(
        "(tolerance: 4 sd / √ESS for a mean, 4 sd / √(2 ESS²) for a standard deviation, ESS² \
         being the squared deviations' ESS)"
    );
    println!(
        "        HMC mean    exact   tolerance         ESS    HMC sd   exact sd   tolerance        ESS²"
    );
    for (name, m, sd, chain) in exact {
        let (estimate, n_eff) = (mean(chain), ess(chain));
        // The spread's error depends on how fast the squared deviations mix, which can be much
        // slower than the values themselves (a trajectory that nearly reverses a value keeps
        // its square).
        let squares: Vec<f64> = chain.iter().map(|v| (v - estimate).powi(2)).collect();
        let (spread, n_eff_sq) = (mean(&squares).sqrt(), ess(&squares));
        let (tol_mean, tol_sd) = (4.0 * sd / n_eff.sqrt(), 4.0 * sd / (2.0 * n_eff_sq).sqrt());
        let v_mean = verdict(estimate, m, tol_mean, &mut misses);
        let v_sd = verdict(spread, sd, tol_sd, &mut misses);
        println!(
            "  {name}    {estimate:>8.4} {m:>8.4}   ± {tol_mean:.4} {v_mean:<7} {n_eff:>5.0}   \
             {spread:>6.4}   {sd:>8.4}   ± {tol_sd:.4} {v_sd:<7} {n_eff_sq:>5.0}"
        );
    }
    if misses > 0 {
        eprintln!("{misses} figure(s) outside their tolerance");
        std::process::exit(1);
    }
}
