//! Distributions of random choices: sampling from `rand_distr`, log-densities computed here
//! in closed form with care at the ends of each support and at extreme parameters (statrs's,
//! which this module used before, are wrong there: see the note above [`stirlerr`]); statrs's
//! `ln_gamma` and `digamma` are used for normalising constants and gradients.
//!
//! A distribution is a plain value holding its parameters. Its constructor never fails: a
//! parameter out of range (a negative standard deviation, probabilities that do not sum to 1)
//! is reported by [`Distribution::check`] when the distribution is sampled or scored, as a
//! typed [`PplError::InvalidDistribution`](super::PplError::InvalidDistribution) naming the
//! address, so that a model can build a distribution from any value it computed.
//!
//! Every built-in distribution is a [`Snapshot`] (its listing shows its parameters) and its
//! constructor is registered as a re-executable operation, so that an incremental update can
//! recompute a distribution whose parameters depend on a changed choice.

use crate::core::value::{Owned, Snapshot, Value};
use rand::rngs::SmallRng;
use rand::Rng;
use rand_distr::Distribution as _;
use std::fmt;

/// The random number generator choices are drawn with (rand's `SmallRng`): every interface
/// function seeds one from the generator it is given, so a run is deterministic given that
/// generator's seed. Passed to tracked code, it records only its type (`_::&mut PplRng`), not
/// its state.
///
/// ```
/// use irtrack::ppl::PplRng;
/// use rand::{Rng, SeedableRng};
/// let mut a = PplRng::seed_from_u64(9);
/// let mut b = PplRng::seed_from_u64(9);
/// assert_eq!(a.random::<u64>(), b.random::<u64>());
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct PplRng(SmallRng);

impl fmt::Debug for PplRng {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PplRng { .. }")
    }
}

impl rand::RngCore for PplRng {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }
    #[inline]
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    #[inline]
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.0.fill_bytes(dst)
    }
}

impl rand::SeedableRng for PplRng {
    type Seed = <SmallRng as rand::SeedableRng>::Seed;
    fn from_seed(seed: Self::Seed) -> PplRng {
        PplRng(SmallRng::from_seed(seed))
    }
    fn seed_from_u64(state: u64) -> PplRng {
        PplRng(SmallRng::seed_from_u64(state))
    }
}

/// A generator's state is neither readable nor useful in a listing, and formatting it at every
/// call would cost more than the call: it records only its type.
impl Snapshot for PplRng {
    fn snapshot(&self) -> Value {
        Value::opaque::<PplRng>()
    }
}

/// A distribution a random choice is drawn from.
///
/// Implement it for your own distributions; [`name`](Distribution::name) and
/// [`parameters`](Distribution::parameters) are what the trace records, and what
/// [`score_graph`](super::score_graph) needs to score a reloaded trace (which it can do for
/// the built-in distributions only).
///
/// ```
/// use irtrack::ppl::{Distribution, PplRng};
/// use rand::Rng;
///
/// /// A fair die: 1 to 6.
/// #[derive(Clone, Debug)]
/// struct Die;
///
/// impl Distribution for Die {
///     type Value = u64;
///     fn name(&self) -> &'static str { "die" }
///     fn parameters(&self) -> Vec<f64> { Vec::new() }
///     fn check(&self) -> Result<(), String> { Ok(()) }
///     fn draw(&self, rng: &mut PplRng) -> u64 { rng.random_range(1..=6) }
///     fn log_density(&self, x: &u64) -> f64 {
///         if (1..=6).contains(x) { -(6f64.ln()) } else { f64::NEG_INFINITY }
///     }
/// }
///
/// let (trace, _) = irtrack::ppl::generate(|| irtrack::ppl::sample("roll", Die), (), &Default::default(),
///     &mut <PplRng as rand::SeedableRng>::seed_from_u64(1)).unwrap();
/// assert!((1..=6).contains(&trace.value::<u64>("roll").unwrap()));
/// ```
pub trait Distribution: Clone + fmt::Debug + Send + Sync + 'static {
    /// The type of a draw.
    type Value: Owned + Snapshot;

    /// The distribution's name, as traces record it (`"normal"`).
    fn name(&self) -> &'static str;

    /// The parameters, as traces record them.
    fn parameters(&self) -> Vec<f64>;

    /// `Ok` when the parameters define a distribution; else why not.
    fn check(&self) -> Result<(), String>;

    /// A draw; called only after [`check`](Distribution::check) succeeded.
    fn draw(&self, rng: &mut PplRng) -> Self::Value;

    /// The log-density (or log-probability) of `value`: `-∞` outside the support, never NaN
    /// for a value of the support; called only after [`check`](Distribution::check) succeeded.
    fn log_density(&self, value: &Self::Value) -> f64;

    /// Whether draws are `f64`s with a density with respect to Lebesgue measure on an interval,
    /// so that HMC may move them continuously.
    fn is_continuous(&self) -> bool {
        false
    }
}

fn finite(name: &str, x: f64) -> Result<(), String> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(format!("{name} = {x} is not finite"))
    }
}

fn positive(name: &str, x: f64) -> Result<(), String> {
    finite(name, x)?;
    if x > 0.0 {
        Ok(())
    } else {
        Err(format!("{name} = {x} is not positive"))
    }
}

fn probability(name: &str, p: f64) -> Result<(), String> {
    if (0.0..=1.0).contains(&p) {
        Ok(())
    } else {
        Err(format!("{name} = {p} is not in [0, 1]"))
    }
}

/// How far from 1 a vector of probabilities may sum (rounding of a computed softmax).
const SUM_TOLERANCE: f64 = 1e-9;

fn simplex(name: &str, p: &[f64]) -> Result<(), String> {
    if p.is_empty() {
        return Err(format!("{name} is empty"));
    }
    for (i, &x) in p.iter().enumerate() {
        probability(&format!("{name}[{i}]"), x)?;
    }
    let sum: f64 = p.iter().sum();
    if (sum - 1.0).abs() > SUM_TOLERANCE * p.len() as f64 {
        return Err(format!("{name} sums to {sum}, not 1"));
    }
    Ok(())
}

macro_rules! snapshot_dists {
    ($($t:ty),*) => {$(
        impl Owned for $t {}
        impl Snapshot for $t {
            fn snapshot(&self) -> Value {
                Value::snapshot(self.clone())
            }
        }
    )*};
}
snapshot_dists!(
    Normal,
    Uniform,
    Bernoulli,
    Beta,
    Gamma,
    Exponential,
    Poisson,
    Geometric,
    Categorical,
    Dirichlet,
    MvNormal
);

/// The normal distribution with mean `mu` and standard deviation `sigma` (> 0).
///
/// ```
/// use irtrack::ppl::{Distribution, Normal};
/// let d = Normal::new(0.0, 1.0);
/// assert!((d.log_density(&0.0) + 0.5 * (2.0 * std::f64::consts::PI).ln()).abs() < 1e-15);
/// assert!(Normal::new(0.0, -1.0).check().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Normal {
    /// The mean.
    pub mu: f64,
    /// The standard deviation.
    pub sigma: f64,
}

impl Normal {
    /// `N(mu, sigma²)`.
    pub fn new(mu: f64, sigma: f64) -> Normal {
        Normal { mu, sigma }
    }
}

impl Distribution for Normal {
    type Value = f64;
    fn name(&self) -> &'static str {
        "normal"
    }
    fn parameters(&self) -> Vec<f64> {
        vec![self.mu, self.sigma]
    }
    fn check(&self) -> Result<(), String> {
        finite("mu", self.mu)?;
        positive("sigma", self.sigma)
    }
    fn draw(&self, rng: &mut PplRng) -> f64 {
        match rand_distr::Normal::new(self.mu, self.sigma) {
            Ok(d) => d.sample(rng),
            Err(_) => f64::NAN,
        }
    }
    fn log_density(&self, x: &f64) -> f64 {
        let d = x - self.mu;
        let mut z = d / self.sigma;
        if d.is_infinite() && x.is_finite() {
            // `x - mu` overflowed (`N(1e308, 1e308)` at `-1e308`): scaled first. Only then: a
            // finite difference over a tiny scale (`N(0.5e300, 1e-10)` at `1e300`) is a `z`
            // beyond any float, where scaling each first gave `∞ - ∞`.
            z = x / self.sigma - self.mu / self.sigma;
        }
        -0.5 * z * z - self.sigma.ln() - LN_SQRT_2PI
    }
    fn is_continuous(&self) -> bool {
        true
    }
}

/// The continuous uniform distribution on `[low, high]` (`low < high`).
///
/// ```
/// use irtrack::ppl::{Distribution, Uniform};
/// assert_eq!(Uniform::new(0.0, 4.0).log_density(&1.0), -(4f64.ln()));
/// assert_eq!(Uniform::new(0.0, 4.0).log_density(&5.0), f64::NEG_INFINITY);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Uniform {
    /// The lower bound.
    pub low: f64,
    /// The upper bound.
    pub high: f64,
}

impl Uniform {
    /// `U(low, high)`.
    pub fn new(low: f64, high: f64) -> Uniform {
        Uniform { low, high }
    }
}

impl Distribution for Uniform {
    type Value = f64;
    fn name(&self) -> &'static str {
        "uniform"
    }
    fn parameters(&self) -> Vec<f64> {
        vec![self.low, self.high]
    }
    fn check(&self) -> Result<(), String> {
        finite("low", self.low)?;
        finite("high", self.high)?;
        if self.low < self.high {
            Ok(())
        } else {
            Err(format!(
                "low = {} is not below high = {}",
                self.low, self.high
            ))
        }
    }
    fn draw(&self, rng: &mut PplRng) -> f64 {
        match rand::distr::Uniform::new(self.low, self.high) {
            Ok(d) => d.sample(rng),
            Err(_) => f64::NAN,
        }
    }
    fn log_density(&self, x: &f64) -> f64 {
        if x.is_nan() {
            f64::NAN
        } else if (self.low..=self.high).contains(x) {
            -uniform_ln_width(self.low, self.high)
        } else {
            f64::NEG_INFINITY
        }
    }
    fn is_continuous(&self) -> bool {
        true
    }
}

/// `ln(high - low)`, also when `high - low` overflows (`U(-1e308, 1e308)`: statrs gives -∞).
fn uniform_ln_width(low: f64, high: f64) -> f64 {
    let w = high - low;
    if w.is_finite() {
        w.ln()
    } else {
        (0.5 * high - 0.5 * low).ln() + std::f64::consts::LN_2
    }
}

/// The Bernoulli distribution: `true` with probability `p`.
///
/// ```
/// use irtrack::ppl::{Bernoulli, Distribution};
/// assert_eq!(Bernoulli::new(0.25).log_density(&true), 0.25f64.ln());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bernoulli {
    /// The probability of `true`.
    pub p: f64,
}

impl Bernoulli {
    /// `Bernoulli(p)`.
    pub fn new(p: f64) -> Bernoulli {
        Bernoulli { p }
    }
}

impl Distribution for Bernoulli {
    type Value = bool;
    fn name(&self) -> &'static str {
        "bernoulli"
    }
    fn parameters(&self) -> Vec<f64> {
        vec![self.p]
    }
    fn check(&self) -> Result<(), String> {
        probability("p", self.p)
    }
    fn draw(&self, rng: &mut PplRng) -> bool {
        match rand::distr::Bernoulli::new(self.p) {
            Ok(d) => d.sample(rng),
            Err(_) => false,
        }
    }
    fn log_density(&self, x: &bool) -> f64 {
        // statrs takes a `p` within 4 ulps of 1 for 1, and gives -∞ for `false` where the
        // truth is `ln(1 - p)`, about -36 (a logistic model's `p` at z ≈ 36).
        if *x {
            self.p.ln()
        } else {
            (-self.p).ln_1p()
        }
    }
}

/// The beta distribution on `[0, 1]` with shapes `a`, `b` (> 0).
///
/// ```
/// use irtrack::ppl::{Beta, Distribution};
/// assert!((Beta::new(2.0, 2.0).log_density(&0.5) - 1.5f64.ln()).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Beta {
    /// The first shape.
    pub a: f64,
    /// The second shape.
    pub b: f64,
}

impl Beta {
    /// `Beta(a, b)`.
    pub fn new(a: f64, b: f64) -> Beta {
        Beta { a, b }
    }
}

impl Distribution for Beta {
    type Value = f64;
    fn name(&self) -> &'static str {
        "beta"
    }
    fn parameters(&self) -> Vec<f64> {
        vec![self.a, self.b]
    }
    fn check(&self) -> Result<(), String> {
        positive("a", self.a)?;
        positive("b", self.b)
    }
    fn draw(&self, rng: &mut PplRng) -> f64 {
        match rand_distr::Beta::new(self.a, self.b) {
            Ok(d) => d.sample(rng),
            Err(_) => f64::NAN,
        }
    }
    fn log_density(&self, x: &f64) -> f64 {
        if x.is_nan() {
            f64::NAN
        } else if *x == 0.0 {
            // statrs gives -∞ at an end whose exponent is negative, where the density is
            // unbounded: `Beta(0.01, 0.01)` draws exactly 0 or 1 a third of the time (they
            // round there), and each such choice weighed nothing (a zero weight).
            beta_end(self.a, self.b)
        } else if *x == 1.0 {
            beta_end(self.b, self.a)
        } else if *x > 0.0 && *x < 1.0 {
            // statrs takes an `x` within 4 ulps of 1 for 1 and gives -∞ there (1,445 of
            // 100,000 draws of `Beta(1, 0.05)`).
            beta_inside(self.a, self.b, *x)
        } else {
            f64::NEG_INFINITY
        }
    }
    fn is_continuous(&self) -> bool {
        true
    }
}

/// The log-density of `Beta` at the end of `[0, 1]` whose exponent is `near - 1`, `far` being
/// the other shape: the limit of `x^(near-1) (1-x)^(far-1) / B(near, far)` there — ∞ for
/// `near < 1`, `1 / B(1, far) = far` for `near = 1`, 0 for `near > 1` (as Distributions.jl and
/// SciPy give it).
fn beta_end(near: f64, far: f64) -> f64 {
    if near < 1.0 {
        f64::INFINITY
    } else if near == 1.0 {
        far.ln()
    } else {
        f64::NEG_INFINITY
    }
}

/// The log-density of `Beta(a, b)` at `0 < x < 1`. For `a > 2` and `b > 2`, as a binomial
/// probability, `ln(a + b - 1) + ln binom(a - 1; a + b - 2, x)` with Loader's saddle-point form
/// ([`ln_binomial_raw`]): the direct `(a-1) ln x + (b-1) ln(1-x) - ln B(a, b)` loses up to
/// `|ln B| ε` (1e-10 at `a = b = 1e5`) to cancellation near the mode. Otherwise the direct
/// form, with `ln(1 - x)` computed without rounding `1 - x` for small `x`.
fn beta_inside(a: f64, b: f64, x: f64) -> f64 {
    let (k, n) = (a - 1.0, a + b - 2.0);
    if a > 2.0 && b > 2.0 && n * x >= f64::MIN_POSITIVE {
        return (a + b - 1.0).ln() + ln_binomial_raw(k, b - 1.0, x, 1.0 - x);
    }
    let mut lp = -ln_beta(a, b);
    if a != 1.0 {
        lp += (a - 1.0) * x.ln();
    }
    if b != 1.0 {
        lp += (b - 1.0) * ln_1m(x);
    }
    lp
}

/// `ln(1 - x)` for `x <= 1`: exact `1 - x` above 1/2, `ln_1p(-x)` below.
fn ln_1m(x: f64) -> f64 {
    if x > 0.5 {
        (1.0 - x).ln()
    } else {
        (-x).ln_1p()
    }
}

/// The gamma distribution with `shape` and `scale` (both > 0; mean `shape * scale`).
///
/// ```
/// use irtrack::ppl::{Distribution, Gamma};
/// // Gamma(1, scale) is the exponential distribution with rate 1 / scale.
/// assert!((Gamma::new(1.0, 2.0).log_density(&3.0) - (0.5f64.ln() - 1.5)).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gamma {
    /// The shape.
    pub shape: f64,
    /// The scale.
    pub scale: f64,
}

impl Gamma {
    /// `Gamma(shape, scale)`.
    pub fn new(shape: f64, scale: f64) -> Gamma {
        Gamma { shape, scale }
    }
}

impl Distribution for Gamma {
    type Value = f64;
    fn name(&self) -> &'static str {
        "gamma"
    }
    fn parameters(&self) -> Vec<f64> {
        vec![self.shape, self.scale]
    }
    fn check(&self) -> Result<(), String> {
        positive("shape", self.shape)?;
        positive("scale", self.scale)
    }
    fn draw(&self, rng: &mut PplRng) -> f64 {
        match rand_distr::Gamma::new(self.shape, self.scale) {
            Ok(d) => d.sample(rng),
            Err(_) => f64::NAN,
        }
    }
    fn log_density(&self, x: &f64) -> f64 {
        gamma_log_density(self.shape, self.scale, *x)
    }
    fn is_continuous(&self) -> bool {
        true
    }
}

/// The log-density of `Gamma(k, θ)` at `x`, `(k-1) ln y - y - ln Γ(k) - ln θ` with `y = x/θ`.
/// For `k > 2` as a Poisson probability, `θ f(x) = Poisson(k - 1; y)`, whose saddle-point form
/// ([`ln_poisson_raw`]) has no cancellation between the large terms near the mode. For
/// `k <= 2` the direct form, in which only `y` and `(k - 1) ln y` are large and nothing
/// cancels, except that below `k = 1/2`, `(k - 1) ln y - ln Γ(k)` is written
/// `k ln y + ln(k/y) - ln Γ(k + 1)` (both `ln y` and `ln Γ(k) ≈ -ln k` are large when `k` and
/// `y` are both tiny). `ln y` is `ln x - ln θ` where `x/θ` underflows or overflows. At 0: ∞
/// for `k < 1`, `-ln θ` for `k = 1` exactly, -∞ above (statrs took a shape within 4 ulps of 1
/// for 1 there).
fn gamma_log_density(k: f64, theta: f64, x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    // Below the support, and at its infinite end, where the density's limit is 0 (the terms
    // `(k - 1) ln y` and `-y` would make `∞ - ∞`).
    if x < 0.0 || x == f64::INFINITY {
        return f64::NEG_INFINITY;
    }
    if x == 0.0 {
        return if k < 1.0 {
            f64::INFINITY
        } else if k == 1.0 {
            -theta.ln()
        } else {
            f64::NEG_INFINITY
        };
    }
    let y = x / theta;
    if k > 2.0 && y.is_normal() {
        return ln_poisson_raw(k - 1.0, y) - theta.ln();
    }
    let ln_y = if y.is_normal() {
        y.ln()
    } else {
        x.ln() - theta.ln()
    };
    if k < 0.5 {
        let ratio = k / y;
        let ln_ratio = if ratio.is_normal() {
            ratio.ln()
        } else {
            k.ln() - ln_y
        };
        k * ln_y + ln_ratio - y - ln_gamma(k + 1.0) - theta.ln()
    } else {
        let power = if k == 1.0 { 0.0 } else { (k - 1.0) * ln_y };
        power - y - ln_gamma(k) - theta.ln()
    }
}

/// The exponential distribution with `rate` (> 0).
///
/// ```
/// use irtrack::ppl::{Distribution, Exponential};
/// assert!((Exponential::new(2.0).log_density(&1.0) - (2f64.ln() - 2.0)).abs() < 1e-15);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exponential {
    /// The rate.
    pub rate: f64,
}

impl Exponential {
    /// `Exponential(rate)`.
    pub fn new(rate: f64) -> Exponential {
        Exponential { rate }
    }
}

impl Distribution for Exponential {
    type Value = f64;
    fn name(&self) -> &'static str {
        "exponential"
    }
    fn parameters(&self) -> Vec<f64> {
        vec![self.rate]
    }
    fn check(&self) -> Result<(), String> {
        positive("rate", self.rate)
    }
    fn draw(&self, rng: &mut PplRng) -> f64 {
        match rand_distr::Exp::new(self.rate) {
            Ok(d) => d.sample(rng),
            Err(_) => f64::NAN,
        }
    }
    fn log_density(&self, x: &f64) -> f64 {
        if x.is_nan() {
            f64::NAN
        } else if *x < 0.0 {
            f64::NEG_INFINITY
        } else {
            self.rate.ln() - self.rate * x
        }
    }
    fn is_continuous(&self) -> bool {
        true
    }
}

/// The Poisson distribution with mean `rate` (> 0): counts.
///
/// ```
/// use irtrack::ppl::{Distribution, Poisson};
/// assert!((Poisson::new(2.0).log_density(&0) + 2.0).abs() < 1e-15);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Poisson {
    /// The mean.
    pub rate: f64,
}

impl Poisson {
    /// `Poisson(rate)`.
    pub fn new(rate: f64) -> Poisson {
        Poisson { rate }
    }
}

impl Distribution for Poisson {
    type Value = u64;
    fn name(&self) -> &'static str {
        "poisson"
    }
    fn parameters(&self) -> Vec<f64> {
        vec![self.rate]
    }
    fn check(&self) -> Result<(), String> {
        positive("rate", self.rate)?;
        // rand_distr's rejection sampler is exact up to here.
        if self.rate > 1e15 {
            return Err(format!("rate = {} is above 1e15", self.rate));
        }
        Ok(())
    }
    fn draw(&self, rng: &mut PplRng) -> u64 {
        match rand_distr::Poisson::new(self.rate) {
            // Draws are whole numbers below 2^53 for rates up to 1e15.
            Ok(d) => d.sample(rng) as u64,
            Err(_) => 0,
        }
    }
    fn log_density(&self, k: &u64) -> f64 {
        // statrs's `k ln λ - λ - ln k!` cancels: -24.0 for -18.19 at `k = λ = 1e15`.
        if *k == 0 {
            -self.rate
        } else {
            ln_poisson_raw(*k as f64, self.rate)
        }
    }
}

/// The geometric distribution: the number of failures before the first success of trials
/// that succeed with probability `p` (in `(0, 1]`), so `0, 1, 2, …` (as `rand_distr` counts).
///
/// ```
/// use irtrack::ppl::{Distribution, Geometric};
/// assert!((Geometric::new(0.5).log_density(&2) - 0.125f64.ln()).abs() < 1e-15);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geometric {
    /// The probability of success of each trial.
    pub p: f64,
}

impl Geometric {
    /// `Geometric(p)`, counting failures.
    pub fn new(p: f64) -> Geometric {
        Geometric { p }
    }
}

impl Distribution for Geometric {
    type Value = u64;
    fn name(&self) -> &'static str {
        "geometric"
    }
    fn parameters(&self) -> Vec<f64> {
        vec![self.p]
    }
    fn check(&self) -> Result<(), String> {
        probability("p", self.p)?;
        if self.p == 0.0 {
            return Err("p = 0: no trial ever succeeds".into());
        }
        Ok(())
    }
    fn draw(&self, rng: &mut PplRng) -> u64 {
        match rand_distr::Geometric::new(self.p) {
            Ok(d) => d.sample(rng),
            Err(_) => 0,
        }
    }
    fn log_density(&self, k: &u64) -> f64 {
        // `ln p + k ln(1 - p)`, with `ln(1 - p)` as `ln_1p(-p)` (statrs rounds `1 - p`, and
        // takes a `p` within 4 ulps of 1 for 1).
        if *k == 0 {
            self.p.ln()
        } else {
            self.p.ln() + *k as f64 * (-self.p).ln_1p()
        }
    }
}

/// The categorical distribution over `0..probabilities.len()`: index `i` with probability
/// `probabilities[i]` (which must sum to 1, within rounding).
///
/// ```
/// use irtrack::ppl::{Categorical, Distribution};
/// let d = Categorical::new(vec![0.2, 0.8]);
/// assert_eq!(d.log_density(&1), 0.8f64.ln());
/// assert_eq!(d.log_density(&2), f64::NEG_INFINITY);
/// assert!(Categorical::new(vec![0.2, 0.7]).check().is_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Categorical {
    /// The probability of each index.
    pub probabilities: Vec<f64>,
}

impl Categorical {
    /// `Categorical(probabilities)`.
    pub fn new(probabilities: Vec<f64>) -> Categorical {
        Categorical { probabilities }
    }
}

impl Distribution for Categorical {
    type Value = usize;
    fn name(&self) -> &'static str {
        "categorical"
    }
    fn parameters(&self) -> Vec<f64> {
        self.probabilities.clone()
    }
    fn check(&self) -> Result<(), String> {
        simplex("probabilities", &self.probabilities)
    }
    fn draw(&self, rng: &mut PplRng) -> usize {
        match rand::distr::weighted::WeightedIndex::new(&self.probabilities) {
            Ok(d) => d.sample(rng),
            Err(_) => 0,
        }
    }
    fn log_density(&self, k: &usize) -> f64 {
        if *k >= self.probabilities.len() {
            return f64::NEG_INFINITY;
        }
        // Normalised by the sum, as statrs does (`check` allows a sum off 1 by rounding).
        let total = self.probabilities.iter().fold(0.0, |s, p| s + p);
        (self.probabilities[*k] / total).ln()
    }
}

/// The Dirichlet distribution on the probability simplex with concentrations `alpha` (each
/// positive, at least two). Sampled as normalised `rand_distr` gamma draws; its density is computed
/// here (`statrs` has it only with `nalgebra`).
///
/// ```
/// use irtrack::ppl::{Beta, Dirichlet, Distribution};
/// // A two-dimensional Dirichlet is a beta distribution of the first coordinate.
/// let d = Dirichlet::new(vec![2.0, 3.0]);
/// assert!((d.log_density(&vec![0.3, 0.7]) - Beta::new(2.0, 3.0).log_density(&0.3)).abs() < 1e-12);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Dirichlet {
    /// The concentrations.
    pub alpha: Vec<f64>,
}

impl Dirichlet {
    /// `Dirichlet(alpha)`.
    pub fn new(alpha: Vec<f64>) -> Dirichlet {
        Dirichlet { alpha }
    }
}

impl Distribution for Dirichlet {
    type Value = Vec<f64>;
    fn name(&self) -> &'static str {
        "dirichlet"
    }
    fn parameters(&self) -> Vec<f64> {
        self.alpha.clone()
    }
    fn check(&self) -> Result<(), String> {
        if self.alpha.len() < 2 {
            return Err(format!(
                "alpha has {} concentrations, at least 2 are needed",
                self.alpha.len()
            ));
        }
        for (i, &a) in self.alpha.iter().enumerate() {
            positive(&format!("alpha[{i}]"), a)?;
        }
        Ok(())
    }
    fn draw(&self, rng: &mut PplRng) -> Vec<f64> {
        let mut x: Vec<f64> = self
            .alpha
            .iter()
            .map(|&a| match rand_distr::Gamma::new(a, 1.0) {
                Ok(g) => g.sample(rng),
                Err(_) => f64::NAN,
            })
            .collect();
        let sum: f64 = x.iter().sum();
        if sum > 0.0 {
            x.iter_mut().for_each(|v| *v /= sum);
        } else {
            // Every gamma draw underflowed (all concentrations tiny): the mass is at a vertex,
            // drawn in proportion to the concentrations.
            let total: f64 = self.alpha.iter().sum();
            let mut u = rng.random::<f64>() * total;
            let mut k = self.alpha.len() - 1;
            for (i, a) in self.alpha.iter().enumerate() {
                if u < *a {
                    k = i;
                    break;
                }
                u -= a;
            }
            x.iter_mut()
                .enumerate()
                .for_each(|(i, v)| *v = f64::from(u8::from(i == k)));
        }
        x
    }
    fn log_density(&self, x: &Vec<f64>) -> f64 {
        if x.iter().any(|v| v.is_nan()) {
            return f64::NAN;
        }
        if x.len() != self.alpha.len()
            || x.iter().any(|&v| !(0.0..=1.0).contains(&v))
            || (x.iter().sum::<f64>() - 1.0).abs() > SUM_TOLERANCE * x.len() as f64
        {
            return f64::NEG_INFINITY;
        }
        let total: f64 = self.alpha.iter().sum();
        let big = self.alpha.iter().any(|&a| a > 2.0);
        if big && x.iter().all(|&v| (total * v).is_normal()) && total.is_finite() {
            return dirichlet_saddle_point(&self.alpha, total, x);
        }
        let mut lp = ln_gamma(total);
        for (&a, &v) in self.alpha.iter().zip(x) {
            lp -= ln_gamma(a);
            // (a - 1) ln 0 is -∞ for a > 1, 0 for a = 1 and +∞ for a < 1 (the density's pole).
            if a != 1.0 {
                lp += (a - 1.0) * v.ln();
            }
        }
        lp
    }
}

/// The Dirichlet log-density `ln Γ(A) - Σ ln Γ(αᵢ) + Σ (αᵢ - 1) ln xᵢ` (`A = Σ αᵢ`, every
/// `A xᵢ` a normal float) with each `ln Γ(t)` written `(t - 1/2) ln t - t + ln √(2π) +
/// stirlerr(t)`, so that the large terms cancel on paper, as in Loader's binomial form:
/// `stirlerr(A) - Σ stirlerr(αᵢ) - (n - 1) ln √(2π) - Σ bd0(αᵢ, A xᵢ) + A (Σ xᵢ - 1) +
/// (Σ ln αᵢ - ln A)/2 - Σ ln xᵢ`. The direct sum loses `|ln Γ(A)| ε`: 5e-10 at `α = (1e5, 2e5, 3e5)`.
fn dirichlet_saddle_point(alpha: &[f64], total: f64, x: &[f64]) -> f64 {
    // Σ xᵢ - 1, compensated (Neumaier): the values sum to 1 only within rounding, and `A`
    // multiplies the difference.
    let (mut sum, mut carry) = (-1.0f64, 0.0f64);
    for &v in x {
        let t = sum + v;
        carry += if sum.abs() >= v.abs() {
            (sum - t) + v
        } else {
            (v - t) + sum
        };
        sum = t;
    }
    let off = sum + carry;
    let mut lp =
        stirlerr(total) - (alpha.len() - 1) as f64 * LN_SQRT_2PI + total * off - 0.5 * total.ln();
    for (&a, &v) in alpha.iter().zip(x) {
        lp += -stirlerr(a) - bd0(a, total * v) + 0.5 * a.ln() - v.ln();
    }
    lp
}

/// The multivariate normal distribution with `mean` and a symmetric positive definite
/// `covariance` (a square matrix, by rows). Sampled as `mean + L z` with `L` the Cholesky
/// factor and `z` standard normal draws from `rand_distr`; its density is computed here
/// (`statrs` has it only with `nalgebra`).
///
/// ```
/// use irtrack::ppl::{Distribution, MvNormal, Normal};
/// let d = MvNormal::new(vec![0.0, 1.0], vec![vec![4.0, 0.0], vec![0.0, 1.0]]);
/// let product = Normal::new(0.0, 2.0).log_density(&0.5) + Normal::new(1.0, 1.0).log_density(&-1.0);
/// assert!((d.log_density(&vec![0.5, -1.0]) - product).abs() < 1e-12);
/// assert!(MvNormal::new(vec![0.0], vec![vec![-1.0]]).check().is_err());
/// ```
#[derive(Clone, PartialEq)]
pub struct MvNormal {
    mean: Vec<f64>,
    covariance: Vec<Vec<f64>>,
    /// The lower Cholesky factor by rows (`n * n`), or why there is none.
    cholesky: Result<Vec<f64>, String>,
}

impl fmt::Debug for MvNormal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MvNormal")
            .field("mean", &self.mean)
            .field("covariance", &self.covariance)
            .finish()
    }
}

impl MvNormal {
    /// `N(mean, covariance)`; the Cholesky factor is computed here, once.
    pub fn new(mean: Vec<f64>, covariance: Vec<Vec<f64>>) -> MvNormal {
        let cholesky = cholesky(&mean, &covariance);
        MvNormal {
            mean,
            covariance,
            cholesky,
        }
    }

    /// The mean.
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// The covariance, by rows.
    pub fn covariance(&self) -> &[Vec<f64>] {
        &self.covariance
    }
}

fn cholesky(mean: &[f64], cov: &[Vec<f64>]) -> Result<Vec<f64>, String> {
    let n = mean.len();
    if n == 0 {
        return Err("the mean is empty".into());
    }
    for (i, &m) in mean.iter().enumerate() {
        finite(&format!("mean[{i}]"), m)?;
    }
    if cov.len() != n || cov.iter().any(|r| r.len() != n) {
        return Err(format!("the covariance is not a {n}×{n} matrix"));
    }
    for (i, row) in cov.iter().enumerate() {
        for (j, &c) in row.iter().enumerate() {
            finite(&format!("covariance[{i}][{j}]"), c)?;
            if (c - cov[j][i]).abs() > 1e-12 * (c.abs() + cov[j][i].abs()) {
                return Err(format!("the covariance is not symmetric at [{i}][{j}]"));
            }
        }
    }
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut s = cov[i][j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            if i == j {
                if s <= 0.0 || !s.is_finite() {
                    return Err("the covariance is not positive definite".into());
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    Ok(l)
}

impl Distribution for MvNormal {
    type Value = Vec<f64>;
    fn name(&self) -> &'static str {
        "mvnormal"
    }
    /// The mean, then the covariance by rows.
    fn parameters(&self) -> Vec<f64> {
        let mut p = self.mean.clone();
        p.extend(self.covariance.iter().flatten());
        p
    }
    fn check(&self) -> Result<(), String> {
        self.cholesky.as_ref().map(|_| ()).map_err(Clone::clone)
    }
    fn draw(&self, rng: &mut PplRng) -> Vec<f64> {
        let n = self.mean.len();
        let Ok(l) = &self.cholesky else {
            return vec![f64::NAN; n];
        };
        let z: Vec<f64> = (0..n)
            .map(|_| rng.sample::<f64, _>(rand_distr::StandardNormal))
            .collect();
        (0..n)
            .map(|i| self.mean[i] + (0..=i).map(|k| l[i * n + k] * z[k]).sum::<f64>())
            .collect()
    }
    fn log_density(&self, x: &Vec<f64>) -> f64 {
        let n = self.mean.len();
        let Ok(l) = &self.cholesky else {
            return f64::NAN;
        };
        if x.iter().any(|v| v.is_nan()) {
            return f64::NAN;
        }
        // An infinite coordinate is infinitely far in the metric of a positive definite
        // covariance: the density's limit is 0 (the triangular solve would make `∞ - ∞`).
        if x.len() != n || x.iter().any(|v| v.is_infinite()) {
            return f64::NEG_INFINITY;
        }
        // Solve L y = x - mean; the quadratic form is |y|².
        let mut y = vec![0.0; n];
        let mut log_det = 0.0;
        for i in 0..n {
            let mut s = x[i] - self.mean[i];
            for k in 0..i {
                s -= l[i * n + k] * y[k];
            }
            y[i] = s / l[i * n + i];
            log_det += l[i * n + i].ln();
        }
        let q: f64 = y.iter().map(|v| v * v).sum();
        -0.5 * (n as f64 * (2.0 * std::f64::consts::PI).ln() + q) - log_det
    }
}

// Log-densities computed with care. statrs's own formulas are right in the middle of a support
// and wrong near its ends and at extreme parameters: it takes an `x` or `p` within 4 ulps of 1
// for 1 (Beta, Bernoulli, Geometric, Gamma's shape at 0), rounds `1 - p`, overflows
// `high - low`, and sums `k ln λ - λ - ln k!` whose terms cancel for large `λ`. The forms
// below avoid each of those; `tests/ppl_densities.rs` checks them against closed forms
// evaluated to 50 digits.

/// `ln √(2π)`.
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// `stirlerr(n) = ln Γ(n + 1) - (n + 1/2) ln n + n - ln √(2π)` at `n = 0.5, 1, …, 15`, computed
/// with mpmath at 40 digits.
#[allow(clippy::excessive_precision)]
const STIRLERR_HALVES: [f64; 30] = [
    0.1534264097200273452913839,   // 0.5
    0.08106146679532725821967026,  // 1.0
    0.0548141210519176538961387,   // 1.5
    0.04134069595540929409382208,  // 2.0
    0.03316287351993628748511051,  // 2.5
    0.02767792568499833914878929,  // 3.0
    0.02374616365629749597133028,  // 3.5
    0.02079067210376509311152277,  // 4.0
    0.01848845053267318523077936,  // 4.5
    0.01664469118982119216319487,  // 5.0
    0.01513497322191737887351384,  // 5.5
    0.01387612882307074799874573,  // 6.0
    0.01281046524292022692425066,  // 6.5
    0.01189670994589177009505572,  // 7.0
    0.01110455975820691732663076,  // 7.5
    0.01041126526197209649747857,  // 8.0
    0.009799416126158803298390373, // 8.5
    0.009255462182712732917728637, // 9.0
    0.008768700134139385462955047, // 9.5
    0.008330563433362871256469319, // 10.0
    0.007934114564314020547249562, // 10.5
    0.007573675487951840794972024, // 11.0
    0.007244554301320383179546197, // 11.5
    0.006942840107209529865664153, // 12.0
    0.006665247032707682442356181, // 12.5
    0.006408994188004207068439631, // 13.0
    0.006171712263039457647534605, // 13.5
    0.005951370112758847735624416, // 14.0
    0.005746216513010115682026102, // 14.5
    0.00555473355196280137103869,  // 15.0
];

/// The error of Stirling's formula for `ln n!` (`n > 0`): `ln Γ(n + 1) - (n + 1/2) ln n + n -
/// ln √(2π)`. Tabulated at half-integers up to 15; above, the asymptotic series `1/(12n) -
/// 1/(360n³) + 1/(1260n⁵) - 1/(1680n⁷) + 1/(1188n⁹)` (the next term is below 3e-16 of it at
/// 15); elsewhere below 15 from `ln_gamma` (within about 3e-14).
fn stirlerr(n: f64) -> f64 {
    if n > 15.0 {
        let nn = n * n;
        return (1.0 / 12.0
            - (1.0 / 360.0 - (1.0 / 1260.0 - (1.0 / 1680.0 - (1.0 / 1188.0) / nn) / nn) / nn)
                / nn)
            / n;
    }
    let twice = 2.0 * n;
    if twice == twice.floor() && twice >= 1.0 {
        return STIRLERR_HALVES[twice as usize - 1];
    }
    ln_gamma(n + 1.0) - (n + 0.5) * n.ln() + n - LN_SQRT_2PI
}

/// statrs's `ln_gamma`, except at whole numbers up to 23, where `ln (x - 1)!` is the
/// logarithm of an exact product (statrs gives -4.4e-16 for `ln Γ(1)`).
fn ln_gamma(x: f64) -> f64 {
    if x == x.floor() && (1.0..=23.0).contains(&x) {
        // (x - 1)! is exact in f64 up to 22!.
        return (1..x as u32).map(f64::from).product::<f64>().ln();
    }
    statrs::function::gamma::ln_gamma(x)
}

/// The deviance term `x ln(x / m) + m - x` (`x, m > 0`), which is small where `x ≈ m` and
/// is then summed as the series `(x - m) v + Σ 2x v^(2j+1) / (2j+1)`, `v = (x - m)/(x + m)`
/// (Loader 2000), instead of as a difference of large terms.
fn bd0(x: f64, m: f64) -> f64 {
    if (x - m).abs() < 0.1 * (x + m) {
        let mut v = (x - m) / (x + m);
        let mut s = (x - m) * v;
        if s.abs() < f64::MIN_POSITIVE {
            return s;
        }
        let mut ej = 2.0 * x * v;
        v *= v;
        // |v| < 0.1: each term is below a hundredth of the one before.
        for j in 1..200 {
            ej *= v;
            let next = s + ej / f64::from(2 * j + 1);
            if next == s {
                return s;
            }
            s = next;
        }
        return s;
    }
    let ratio = x / m;
    let ln_ratio = if ratio.is_normal() {
        ratio.ln()
    } else {
        x.ln() - m.ln()
    };
    x * ln_ratio + m - x
}

/// `ln(λ^x e^(-λ) / Γ(x + 1))` for `x >= 0` (not necessarily whole) and `λ > 0`: the
/// saddle-point form `-ln √(2πx) - stirlerr(x) - bd0(x, λ)` (Loader 2000), whose terms are
/// small where the probability is large. The direct form `x ln λ - λ - ln Γ(x + 1)` gives -24.0
/// for -18.19 at `x = λ = 1e15` (its terms are 3e16); it is used only where `λ` is so small
/// beside `x` that nothing cancels.
fn ln_poisson_raw(x: f64, lambda: f64) -> f64 {
    if x <= lambda * f64::MIN_POSITIVE {
        return -lambda;
    }
    if lambda < x * f64::MIN_POSITIVE {
        return -lambda + x * lambda.ln() - ln_gamma(x + 1.0);
    }
    -0.5 * (2.0 * std::f64::consts::PI).ln() - 0.5 * x.ln() - stirlerr(x) - bd0(x, lambda)
}

/// `ln(C(x + y, x) p^x q^y)` for `x, y > 0`, `p + q = 1` (`p, q > 0`, each given, so that the
/// one near 0 is exact), by the saddle-point form of Loader (2000):
/// `stirlerr(n) - stirlerr(x) - stirlerr(y) - bd0(x, np) - bd0(y, nq) - ln √(2π x y / n)`.
fn ln_binomial_raw(x: f64, y: f64, p: f64, q: f64) -> f64 {
    let n = x + y;
    let lc = stirlerr(n) - stirlerr(x) - stirlerr(y) - bd0(x, n * p) - bd0(y, n * q);
    lc - 0.5 * ((2.0 * std::f64::consts::PI).ln() + x.ln() + y.ln() - n.ln())
}

/// `ln B(a, b) = ln Γ(a) + ln Γ(b) - ln Γ(a + b)`. With Stirling's formula written out where
/// an argument is 10 or more, so that the large `ln Γ` terms cancel on paper rather than in
/// floating point: `ln Γ(x) = (x - 1/2) ln x - x + ln √(2π) + stirlerr(x)` (`stirlerr(x)` is
/// also `ln Γ(x) - (x - 1/2) ln x + x - ln √(2π)`).
fn ln_beta(a: f64, b: f64) -> f64 {
    let (p, q) = if a < b { (a, b) } else { (b, a) };
    let s = p + q;
    if p >= 10.0 {
        let corr = stirlerr(p) + stirlerr(q) - stirlerr(s);
        -0.5 * q.ln() + LN_SQRT_2PI + corr + (p - 0.5) * (p / s).ln() + q * (-p / s).ln_1p()
    } else if q >= 10.0 {
        let corr = stirlerr(q) - stirlerr(s);
        ln_gamma(p) + corr + p - p * s.ln() + (q - 0.5) * (-p / s).ln_1p()
    } else {
        ln_gamma(p) + ln_gamma(q) - ln_gamma(s)
    }
}

/// A built-in distribution rebuilt from the name and parameters a trace recorded: what scores
/// a reloaded trace and redraws a choice in an incremental update.
#[derive(Clone, Debug)]
pub(crate) enum Builtin {
    Normal(Normal),
    Uniform(Uniform),
    Bernoulli(Bernoulli),
    Beta(Beta),
    Gamma(Gamma),
    Exponential(Exponential),
    Poisson(Poisson),
    Geometric(Geometric),
    Categorical(Categorical),
    Dirichlet(Dirichlet),
    MvNormal(MvNormal),
}

macro_rules! each_builtin {
    ($b:expr, $d:ident => $body:expr) => {
        match $b {
            Builtin::Normal($d) => $body,
            Builtin::Uniform($d) => $body,
            Builtin::Bernoulli($d) => $body,
            Builtin::Beta($d) => $body,
            Builtin::Gamma($d) => $body,
            Builtin::Exponential($d) => $body,
            Builtin::Poisson($d) => $body,
            Builtin::Geometric($d) => $body,
            Builtin::Categorical($d) => $body,
            Builtin::Dirichlet($d) => $body,
            Builtin::MvNormal($d) => $body,
        }
    };
}

impl Builtin {
    /// The distribution named `name` with `parameters` (as [`Distribution::parameters`]
    /// gives them); `None` for a name that is not built in or parameters of the wrong count.
    pub(crate) fn from_parameters(name: &str, p: &[f64]) -> Option<Builtin> {
        let two = || (p.len() == 2).then(|| (p[0], p[1]));
        let one = || (p.len() == 1).then(|| p[0]);
        Some(match name {
            "normal" => two().map(|(a, b)| Builtin::Normal(Normal::new(a, b)))?,
            "uniform" => two().map(|(a, b)| Builtin::Uniform(Uniform::new(a, b)))?,
            "bernoulli" => one().map(|a| Builtin::Bernoulli(Bernoulli::new(a)))?,
            "beta" => two().map(|(a, b)| Builtin::Beta(Beta::new(a, b)))?,
            "gamma" => two().map(|(a, b)| Builtin::Gamma(Gamma::new(a, b)))?,
            "exponential" => one().map(|a| Builtin::Exponential(Exponential::new(a)))?,
            "poisson" => one().map(|a| Builtin::Poisson(Poisson::new(a)))?,
            "geometric" => one().map(|a| Builtin::Geometric(Geometric::new(a)))?,
            "categorical" => Builtin::Categorical(Categorical::new(p.to_vec())),
            "dirichlet" => Builtin::Dirichlet(Dirichlet::new(p.to_vec())),
            "mvnormal" => {
                // n + n² parameters.
                let n = ((((1 + 4 * p.len()) as f64).sqrt() - 1.0) / 2.0).round() as usize;
                if n == 0 || n + n * n != p.len() {
                    return None;
                }
                let cov = p[n..].chunks(n).map(<[f64]>::to_vec).collect();
                Builtin::MvNormal(MvNormal::new(p[..n].to_vec(), cov))
            }
            _ => return None,
        })
    }

    /// The built-in distribution a recorded value holds (a sample node's operand).
    pub(crate) fn from_value(v: &Value) -> Option<Builtin> {
        macro_rules! try_types {
            ($($t:ident),*) => {$(
                if let Some(d) = v.downcast_ref::<$t>() {
                    return Some(Builtin::$t(d.clone()));
                }
            )*};
        }
        try_types!(
            Normal,
            Uniform,
            Bernoulli,
            Beta,
            Gamma,
            Exponential,
            Poisson,
            Geometric,
            Categorical,
            Dirichlet,
            MvNormal
        );
        None
    }

    /// Whether `D` is one of the built-in distributions (by type, not by its name: a user's
    /// distribution may be called `"normal"`).
    pub(crate) fn is_builtin<D: 'static>() -> bool {
        use std::any::TypeId;
        let d = TypeId::of::<D>();
        [
            TypeId::of::<Normal>(),
            TypeId::of::<Uniform>(),
            TypeId::of::<Bernoulli>(),
            TypeId::of::<Beta>(),
            TypeId::of::<Gamma>(),
            TypeId::of::<Exponential>(),
            TypeId::of::<Poisson>(),
            TypeId::of::<Geometric>(),
            TypeId::of::<Categorical>(),
            TypeId::of::<Dirichlet>(),
            TypeId::of::<MvNormal>(),
        ]
        .contains(&d)
    }

    pub(crate) fn name(&self) -> &'static str {
        each_builtin!(self, d => d.name())
    }

    pub(crate) fn parameters(&self) -> Vec<f64> {
        each_builtin!(self, d => d.parameters())
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        each_builtin!(self, d => d.check())
    }

    pub(crate) fn draw(&self, rng: &mut PplRng) -> Value {
        each_builtin!(self, d => Value::snapshot(d.draw(rng)))
    }

    /// The log-density of a recorded value; `None` when the value is not of the
    /// distribution's type (a value read back from JSON is typed for every built-in type).
    pub(crate) fn log_density(&self, v: &Value) -> Option<f64> {
        each_builtin!(self, d => typed_value(d, v).map(|x| d.log_density(&x)))
    }
}

impl Builtin {
    /// The derivatives of the log-density at `v` where it is finite: with respect to the value
    /// (`Some` for an `f64` of a continuous distribution) and to each parameter, in the order
    /// of [`parameters`](Self::parameters) (for Categorical, each probability). `None` for
    /// Dirichlet and MvNormal, which have no rule, and for a value of another type. The
    /// formulas are those of the densities `log_density` computes: for Categorical,
    /// `ln(p_k / Σ p)`, since the probabilities are normalised. Checked against central
    /// differences of `log_density` in this module's tests.
    pub(crate) fn log_density_gradient(&self, v: &Value) -> Option<(Option<f64>, Vec<f64>)> {
        use statrs::function::gamma::digamma;
        Some(match self {
            Builtin::Normal(d) => {
                let x = v.as_f64()?;
                let z = (x - d.mu) / d.sigma;
                (
                    Some(-z / d.sigma),
                    vec![z / d.sigma, (z * z - 1.0) / d.sigma],
                )
            }
            Builtin::Uniform(d) => {
                v.as_f64()?;
                // 1 / (high - low), also when the difference overflows.
                let w = d.high - d.low;
                let inv = if w.is_finite() {
                    1.0 / w
                } else {
                    0.5 / (0.5 * d.high - 0.5 * d.low)
                };
                (Some(0.0), vec![inv, -inv])
            }
            Builtin::Beta(d) => {
                let x = v.as_f64()?;
                let both = digamma(d.a + d.b);
                (
                    Some((d.a - 1.0) / x - (d.b - 1.0) / (1.0 - x)),
                    vec![
                        x.ln() - digamma(d.a) + both,
                        (1.0 - x).ln() - digamma(d.b) + both,
                    ],
                )
            }
            Builtin::Gamma(d) => {
                // (k - 1) ln x - x / θ - k ln θ - ln Γ(k), θ the scale.
                let x = v.as_f64()?;
                let (k, t) = (d.shape, d.scale);
                (
                    Some((k - 1.0) / x - 1.0 / t),
                    vec![x.ln() - t.ln() - digamma(k), x / (t * t) - k / t],
                )
            }
            Builtin::Exponential(d) => {
                let x = v.as_f64()?;
                (Some(-d.rate), vec![1.0 / d.rate - x])
            }
            Builtin::Bernoulli(d) => {
                let b = *v.downcast_ref::<bool>()?;
                (None, vec![if b { 1.0 / d.p } else { -1.0 / (1.0 - d.p) }])
            }
            Builtin::Poisson(d) => {
                let k = typed_value(d, v)? as f64;
                (None, vec![k / d.rate - 1.0])
            }
            Builtin::Geometric(d) => {
                let k = typed_value(d, v)? as f64;
                (None, vec![1.0 / d.p - k / (1.0 - d.p)])
            }
            Builtin::Categorical(d) => {
                let k = typed_value(d, v)?;
                let total: f64 = d.probabilities.iter().sum();
                let g = (0..d.probabilities.len())
                    .map(|j| {
                        let own = if j == k {
                            1.0 / d.probabilities[k]
                        } else {
                            0.0
                        };
                        own - 1.0 / total
                    })
                    .collect();
                (None, g)
            }
            Builtin::Dirichlet(_) | Builtin::MvNormal(_) => return None,
        })
    }

    /// The type of the fn item of the distribution's constructor (`Normal::new`), by which a
    /// graph's call of it is recognised; `None` for MvNormal, whose constructor is not a
    /// re-executable operation.
    pub(crate) fn constructor(&self) -> Option<std::any::TypeId> {
        use crate::core::ids::key_of;
        Some(match self {
            Builtin::Normal(_) => key_of(&Normal::new).id,
            Builtin::Uniform(_) => key_of(&Uniform::new).id,
            Builtin::Bernoulli(_) => key_of(&Bernoulli::new).id,
            Builtin::Beta(_) => key_of(&Beta::new).id,
            Builtin::Gamma(_) => key_of(&Gamma::new).id,
            Builtin::Exponential(_) => key_of(&Exponential::new).id,
            Builtin::Poisson(_) => key_of(&Poisson::new).id,
            Builtin::Geometric(_) => key_of(&Geometric::new).id,
            Builtin::Categorical(_) => key_of(&Categorical::new).id,
            Builtin::Dirichlet(_) => key_of(&Dirichlet::new).id,
            Builtin::MvNormal(_) => return None,
        })
    }

    /// The distribution with `parameters` in place of its own (same count; Categorical's
    /// probabilities), for the tests' finite differences.
    #[cfg(test)]
    fn with_parameters(&self, p: &[f64]) -> Option<Builtin> {
        match self {
            Builtin::Categorical(_) => Some(Builtin::Categorical(Categorical::new(p.to_vec()))),
            _ => Builtin::from_parameters(self.name(), p),
        }
    }
}

/// `v` as a value of `D`'s type (integers read back as another integer type converted).
fn typed_value<D: Distribution>(_: &D, v: &Value) -> Option<D::Value> {
    if let Some(x) = v.downcast_ref::<D::Value>() {
        return Some(x.clone());
    }
    let i = v.as_i64()?;
    let any: Box<dyn std::any::Any> = match std::any::TypeId::of::<D::Value>() {
        t if t == std::any::TypeId::of::<u64>() => Box::new(u64::try_from(i).ok()?),
        t if t == std::any::TypeId::of::<usize>() => Box::new(usize::try_from(i).ok()?),
        _ => return None,
    };
    any.downcast::<D::Value>().ok().map(|b| *b)
}

/// Registers the built-in constructors as re-executable operations, once per process.
pub(crate) fn register_constructors() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        use crate::core::eval::register_operation;
        register_operation(Normal::new);
        register_operation(Uniform::new);
        register_operation(Bernoulli::new);
        register_operation(Beta::new);
        register_operation(Gamma::new);
        register_operation(Exponential::new);
        register_operation(Poisson::new);
        register_operation(Geometric::new);
        register_operation(Categorical::new);
        register_operation(Dirichlet::new);
    });
}

#[cfg(test)]
mod gradient_tests {
    use super::*;

    /// Each rule against central differences of the log-density, in the value and in each
    /// parameter, at points inside the supports (relative error 1e-6: a difference quotient
    /// with step 1e-6 is good to about 1e-8 relative here).
    #[test]
    fn log_density_gradients_match_finite_differences() {
        let cases: Vec<(Builtin, Value)> = vec![
            (
                Builtin::Normal(Normal::new(0.3, 1.7)),
                Value::snapshot(-0.8),
            ),
            (
                Builtin::Uniform(Uniform::new(-1.0, 2.5)),
                Value::snapshot(0.4),
            ),
            (Builtin::Beta(Beta::new(2.5, 0.7)), Value::snapshot(0.35)),
            (Builtin::Gamma(Gamma::new(1.8, 0.6)), Value::snapshot(1.3)),
            (
                Builtin::Exponential(Exponential::new(2.2)),
                Value::snapshot(0.9),
            ),
            (
                Builtin::Bernoulli(Bernoulli::new(0.3)),
                Value::snapshot(true),
            ),
            (
                Builtin::Bernoulli(Bernoulli::new(0.3)),
                Value::snapshot(false),
            ),
            (Builtin::Poisson(Poisson::new(3.4)), Value::snapshot(5u64)),
            (
                Builtin::Geometric(Geometric::new(0.35)),
                Value::snapshot(4u64),
            ),
            (
                Builtin::Categorical(Categorical::new(vec![0.2, 0.5, 0.3])),
                Value::snapshot(1usize),
            ),
        ];
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * b.abs().max(1.0);
        for (d, v) in cases {
            let (dv, dp) = d.log_density_gradient(&v).unwrap();
            let lp = |d: &Builtin, v: &Value| d.log_density(v).unwrap();
            if let (Some(dv), Some(x)) = (dv, v.as_f64()) {
                let h = 1e-6;
                let fd =
                    (lp(&d, &Value::snapshot(x + h)) - lp(&d, &Value::snapshot(x - h))) / (2.0 * h);
                assert!(close(dv, fd), "{d:?} at {v}: d/dx {dv} vs {fd}");
            }
            let p = d.parameters();
            assert_eq!(dp.len(), p.len(), "{d:?}");
            for k in 0..p.len() {
                let h = 1e-6 * p[k].abs().max(1.0);
                let (mut up, mut down) = (p.clone(), p.clone());
                up[k] += h;
                down[k] -= h;
                let fd = (lp(&d.with_parameters(&up).unwrap(), &v)
                    - lp(&d.with_parameters(&down).unwrap(), &v))
                    / (2.0 * h);
                assert!(
                    close(dp[k], fd),
                    "{d:?} at {v}: parameter {k}: {} vs {fd}",
                    dp[k]
                );
            }
        }
        let mv = Builtin::MvNormal(MvNormal::new(vec![0.0], vec![vec![1.0]]));
        assert!(mv
            .log_density_gradient(&Value::snapshot(vec![0.0]))
            .is_none());
    }
}
