//! Probabilistic programs on traces (the `ppl` feature; `docs/ppl.md`): addressed random
//! choices in ordinary `#[tracked]` functions, Gen's generative function interface, and
//! inference (Metropolis-Hastings, HMC, importance sampling).
//!
//! A model is any function (tracked for nested addresses, graphs and in-place updates) that
//! makes random choices with [`sample`] and gives data with [`observe`]. Its run is a
//! [`PplTrace`]: the choices by [`Address`], their log-densities, the score, and the irtrack
//! trace of the run with each choice's metadata. [`simulate`], [`generate`], [`update`],
//! [`regenerate`], [`assess`] and [`propose`] are Gen's interface; [`mh`], [`mh_propose`],
//! [`hmc`] and [`importance_sampling`] infer. Every run draws from a generator seeded from the
//! one it is given: the same seed gives the same trace.
//!
//! ```
//! use irtrack::ppl::{generate, mh, observe, sample, ChoiceMap, Bernoulli, PplRng, Selection};
//! use irtrack::tracked;
//! use rand::SeedableRng;
//!
//! /// The number of failures before a success, observed through a noisy sensor.
//! #[tracked]
//! fn geom(p: f64) -> u64 {
//!     if sample("stop", Bernoulli::new(p)) { 0 } else { 1 + geom(p) }
//! }
//!
//! let mut rng = PplRng::seed_from_u64(1);
//! let (mut t, _) = generate(geom, (0.5,), &ChoiceMap::new(), &mut rng).unwrap();
//! // Recursive calls nest addresses: `stop`, `geom/stop`, `geom/geom/stop`, …
//! assert_eq!(t.len() as u64, t.retval() + 1);
//! t = mh(t, &Selection::all(), &mut rng).unwrap().0;
//! assert_eq!(t.len() as u64, t.retval() + 1);
//! ```

mod address;
mod choices;
mod dist;
mod error;
mod gradient;
mod handler;
mod incremental;
mod infer;
mod inspect;
mod interface;

pub use address::{Address, Key};
pub use choices::{ChoiceMap, Selection};
pub use dist::{
    Bernoulli, Beta, Categorical, Dirichlet, Distribution, Exponential, Gamma, Geometric, MvNormal,
    Normal, Poisson, PplRng, Uniform,
};
pub use error::PplError;
pub use gradient::{score_gradient, GradientMethod, ScoreGradient};
pub use handler::{condition, draw, factor, observe, sample};
pub use infer::{hmc, importance_sampling, mh, mh_propose, mh_rerun, Hmc, Importance};
pub use inspect::{choice_style, dot, score_graph, GraphScore};
pub use interface::{
    assess, generate, propose, regenerate, regenerate_rerun, simulate, update, update_choices,
    PplTrace,
};
