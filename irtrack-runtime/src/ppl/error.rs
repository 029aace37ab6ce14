//! Errors of the probabilistic layer: every weight, score and log-density is right or one of
//! these.

use super::address::Address;
use std::fmt;

/// Why a run of a model, an inference step or a reload could not give a right answer.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum PplError {
    /// Two choices of one run have the same address.
    DuplicateAddress(Address),
    /// An address's name would print ambiguously.
    BadAddress {
        /// The address.
        address: Address,
        /// What is wrong.
        reason: String,
    },
    /// A choice's distribution has parameters out of range.
    InvalidDistribution {
        /// The choice.
        address: Address,
        /// The distribution's name.
        distribution: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A choice's distribution has parameters out of range at a point that an earlier choice
    /// or factor of the same run already makes impossible (a log-density of -∞: a value
    /// outside its support, a failed `condition`), typically because the parameters were
    /// computed from that value (`Bernoulli::new(p)` after `p = 1.2` left `Beta`'s support).
    /// The point has probability zero whatever follows, so `mh`, `mh_propose` and `hmc`
    /// reject a proposal that reaches one; the functions that must return a trace there
    /// (`generate`, `update`, …) return this error.
    ImpossiblePoint {
        /// The choice whose distribution is not valid.
        address: Address,
        /// The distribution's name.
        distribution: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A value given for a choice (a constraint, a replayed value) is not of the type its
    /// distribution draws.
    TypeMismatch {
        /// The choice.
        address: Address,
        /// The type the distribution draws.
        expected: &'static str,
        /// The type of the value given.
        got: String,
    },
    /// A log-density came out NaN (a NaN value).
    NotANumber(Address),
    /// A log-weight given to [`factor`](super::factor) was NaN (`factor(x.ln())` at `x < 0`):
    /// the `call`-th call of `factor` in the run, from 0. A NaN weight would be no weight; it
    /// was read as `+∞` before, putting all of an importance sampler's mass on such traces.
    NotANumberFactor {
        /// Which call of `factor`, from 0.
        call: usize,
    },
    /// A weight or score is `∞ - ∞` (a density with a pole and an impossible value in one
    /// trace).
    UndefinedWeight,
    /// An estimate was asked of no samples (`importance_sampling` with `n = 0`): there is
    /// none, where `log p = -∞` would claim the data impossible.
    NoSamples,
    /// Constraints at addresses the run never reached.
    UnvisitedConstraints(Vec<Address>),
    /// An address the model observes was also constrained.
    ObservedAndConstrained(Address),
    /// Scoring a choice map ([`assess`](super::assess)) reached a choice it has no value for.
    MissingValue(Address),
    /// The trace has no choice at this address.
    NoSuchChoice(Address),
    /// HMC was asked to move a choice that is not a continuous `f64`.
    NotContinuous(Address),
    /// The model panicked.
    Panicked(String),
    /// The model, run again on its own choices, did not make the same choices: it draws
    /// randomness `sample` does not see (a thread-local generator), so a trace of it cannot be
    /// updated by address.
    NotReproducible(String),
    /// A user proposal is not reversible: the backward proposal cannot give back the choices
    /// the forward move discarded.
    NotReversible(Vec<Address>),
    /// A reloaded trace cannot be scored: a choice names a distribution that is not built in,
    /// or its value or parameters do not fit it.
    Unscorable {
        /// The choice.
        address: String,
        /// Why.
        reason: String,
    },
    /// `sample` was called from inside a distribution's own methods.
    Reentrant,
    /// An inference algorithm's settings cannot run (a NaN or infinite HMC step).
    BadSettings(String),
}

impl PplError {
    /// An invalid distribution of the choice at `address`: [`PplError::ImpossiblePoint`] when
    /// an earlier choice or factor already scored -∞ (`impossible`), else
    /// [`PplError::InvalidDistribution`].
    pub(crate) fn invalid(
        address: Address,
        distribution: &'static str,
        reason: String,
        impossible: bool,
    ) -> PplError {
        match impossible {
            true => PplError::ImpossiblePoint {
                address,
                distribution,
                reason,
            },
            false => PplError::InvalidDistribution {
                address,
                distribution,
                reason,
            },
        }
    }
}

impl fmt::Display for PplError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PplError::DuplicateAddress(a) => write!(
                f,
                "two choices of one run have the address `{a}`: give each its own name, or an \
                 index (`(\"x\", i)`)"
            ),
            PplError::BadAddress { address, reason } => {
                write!(f, "the address `{address}` is not usable: {reason}")
            }
            PplError::InvalidDistribution {
                address,
                distribution,
                reason,
            } => write!(
                f,
                "the {distribution} distribution of `{address}` is not valid: {reason}"
            ),
            PplError::ImpossiblePoint {
                address,
                distribution,
                reason,
            } => write!(
                f,
                "the {distribution} distribution of `{address}` is not valid ({reason}) at a \
                 point an earlier choice or factor already makes impossible (log-density -∞)"
            ),
            PplError::TypeMismatch {
                address,
                expected,
                got,
            } => write!(
                f,
                "the value given for `{address}` is a `{got}`, and its distribution draws \
                 `{expected}`"
            ),
            PplError::NotANumber(a) => write!(f, "the log-density of `{a}` is NaN"),
            PplError::NotANumberFactor { call } => write!(
                f,
                "the log-weight given to `factor` (call {call} of the run) is NaN: keep what it \
                 is computed from in its domain (return -∞ for an impossible point)"
            ),
            PplError::NoSamples => {
                f.write_str("no samples were asked for: an estimate needs at least one (n ≥ 1)")
            }
            PplError::UndefinedWeight => f.write_str(
                "the weight is ∞ - ∞: one trace holds both an impossible value and a value at a \
                 pole of its density",
            ),
            PplError::UnvisitedConstraints(v) => {
                write!(f, "constraints at addresses the model never reached: ")?;
                list(f, v)
            }
            PplError::ObservedAndConstrained(a) => write!(
                f,
                "`{a}` is observed by the model and also constrained; constrain only latent \
                 choices"
            ),
            PplError::MissingValue(a) => write!(f, "no value was given for the choice `{a}`"),
            PplError::NoSuchChoice(a) => write!(f, "the trace has no choice at `{a}`"),
            PplError::NotContinuous(a) => write!(
                f,
                "`{a}` is not a continuous `f64` choice (normal, uniform, beta, gamma, \
                 exponential): HMC cannot move it"
            ),
            PplError::Panicked(m) => write!(f, "the model panicked: {m}"),
            PplError::NotReproducible(m) => write!(
                f,
                "the model did not make the same choices when run again on them ({m}): all its \
                 randomness must come from `sample`"
            ),
            PplError::NotReversible(v) => {
                write!(
                    f,
                    "the proposal cannot propose back the discarded choices: "
                )?;
                list(f, v)
            }
            PplError::Unscorable { address, reason } => {
                write!(f, "the choice `{address}` cannot be scored: {reason}")
            }
            PplError::Reentrant => f.write_str(
                "`sample` was called from a distribution's own methods (draw, log_density, check)",
            ),
            PplError::BadSettings(reason) => {
                write!(f, "the inference settings cannot run: {reason}")
            }
        }
    }
}

fn list(f: &mut fmt::Formatter<'_>, v: &[Address]) -> fmt::Result {
    for (i, a) in v.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "`{a}`")?;
    }
    Ok(())
}

impl std::error::Error for PplError {}
