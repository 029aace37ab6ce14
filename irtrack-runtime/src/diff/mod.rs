//! Derivatives as graphs (FrechetDiff's any-order differentiation): a [`Program`] is
//! differentiated into another program, which can be differentiated again, run, or emitted as
//! Rust source.
//!
//! See `docs/derivatives.md` for how it works.

mod api;
mod cone;
#[cfg(feature = "emit")]
mod emit;
mod error;
mod forward;
mod graph;
mod kernels;
mod pins;
mod reverse;
mod rules;
mod stage;

pub use api::{hessian, hessian_by, jacobian, jvp, vjp, HessianMethod, Jvp, Matrix, Vjp};
#[cfg(feature = "emit")]
pub use emit::emit_rust;
pub use error::DiffError;
pub use forward::{differentiate, differentiate_with};
pub use graph::{Builder, Var};
#[cfg(feature = "ndarray")]
pub use kernels::sum_like;
pub use kernels::{over, times, Absorbing, Floats, Noted};
pub use reverse::{reverse, reverse_with};
pub use rules::{register_rule, Rule, Rules};

#[allow(unused_imports)]
use crate::program::Program;
