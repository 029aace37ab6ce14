//! Where a NaN in a gradient was born.
//!
//! A NaN sensitivity made from numbers is never a derivative: `(x - x).sqrt()` is constant, but
//! the chain rule multiplies each partial of `x - x` by `sqrt`'s infinite slope at 0 before they
//! cancel, and `∞ − ∞` is NaN (every AD tool answers NaN there). Right-or-error makes that an
//! error naming the node. Finding the node costs a second, watchful sweep, so it runs only when
//! a gradient has a NaN; a NaN carried in from a NaN input or value is the function's own and
//! passes through as it is.

use super::error::{GradError, Indeterminacy, Place};
use super::primal::{primal, Primal};
use super::rules::Contribution;
use super::tangent::Tangent;
use crate::core::ids::NodeId;
use crate::core::value::Value;

/// What the watchful sweep saw: the first node (in the sweep's order, from the output back) at
/// which a NaN sensitivity was made from numbers, and the last operation before it whose
/// partial turned a finite sensitivity infinite.
#[derive(Clone, Default)]
pub(crate) struct Watch {
    pub(crate) born: Option<(NodeId, Born)>,
    infinite: Option<NodeId>,
}

/// How a NaN was made.
#[derive(Clone, Copy)]
pub(crate) enum Born {
    /// Two sensitivities of one value summed to NaN (`+∞` and `−∞`), at the infinite-slope
    /// operation named, when there was one.
    Sum(Option<NodeId>),
    /// A rule gave a NaN partial where its operation's value is a number.
    Partial,
}

impl Watch {
    /// A rule at `id` (whose value is `value`) turned the sensitivity `dy` into `out`.
    pub(crate) fn rule(
        &mut self,
        id: NodeId,
        value: &Value,
        dy: &Tangent,
        out: &[(usize, Contribution)],
    ) {
        if has_nan(dy) {
            return;
        }
        let values = out.iter().flat_map(|(_, c)| contribution(c).into_iter());
        let (mut nan, mut infinite) = (false, false);
        for v in values {
            nan |= v.is_nan();
            infinite |= v.is_infinite();
        }
        if nan && self.born.is_none() && primal(value).is_some_and(|p| numbers(&primal_flat(&p))) {
            self.born = Some((id, Born::Partial));
        }
        if infinite && finite(&flat(dy)) {
            self.infinite = Some(id);
        }
    }

    /// The sensitivity of `target` went from `before` to `after` by adding `c`.
    pub(crate) fn sum(
        &mut self,
        target: NodeId,
        before: Option<&Tangent>,
        c: &Contribution,
        after: Option<&Tangent>,
    ) {
        if self.born.is_some() {
            return;
        }
        let (Some(before), Some(after)) = (before, after) else {
            return;
        };
        let (b, a) = (flat(before), flat(after));
        let made = match c {
            Contribution::Whole(t) => {
                let t = flat(t);
                match a.len() == b.len() && a.len() == t.len() {
                    true => (0..a.len()).any(|i| a[i].is_nan() && !b[i].is_nan() && !t[i].is_nan()),
                    // A struct's sensitivity that gained a field: by the whole.
                    false => !numbers(&a) && numbers(&b) && numbers(&t),
                }
            }
            Contribution::At { index, value, .. } => {
                let i = *index;
                i < a.len() && i < b.len() && a[i].is_nan() && !b[i].is_nan() && !value.is_nan()
            }
            Contribution::Range { start, values, .. } => values.iter().enumerate().any(|(k, v)| {
                let i = start + k;
                i < a.len() && i < b.len() && a[i].is_nan() && !b[i].is_nan() && !v.is_nan()
            }),
        };
        if made {
            self.born = Some((target, Born::Sum(self.infinite)));
        }
    }

    /// The error for what was seen, with `place` naming nodes.
    pub(crate) fn error(&self, place: impl Fn(NodeId) -> Box<Place>) -> Option<GradError> {
        let (at, born) = self.born?;
        let cause = match born {
            Born::Sum(slope) => Indeterminacy::Cancellation {
                slope: slope.map(&place),
            },
            Born::Partial => Indeterminacy::Partial,
        };
        Some(GradError::Indeterminate {
            at: place(at),
            cause,
        })
    }
}

/// Whether any gradient has a NaN element.
pub(crate) fn any_nan<'a>(grads: impl IntoIterator<Item = &'a Option<Tangent>>) -> bool {
    grads.into_iter().flatten().any(has_nan)
}

/// Whether a gradient has an infinite element.
pub(crate) fn any_infinite<'a>(grads: impl IntoIterator<Item = &'a Option<Tangent>>) -> bool {
    grads
        .into_iter()
        .flatten()
        .any(|t| any_element(t, f64::is_infinite))
}

/// Whether a tangent has a NaN element.
pub(crate) fn has_nan(t: &Tangent) -> bool {
    any_element(t, f64::is_nan)
}

/// Whether some element of a tangent satisfies `p` (generic, so that `p` is inlined into the
/// loops: through a `fn` pointer, the scans of a 256-element gradient were 4 % of it). A
/// slice is scanned whole, without an early exit, which lets the loop vectorise: the answer
/// is almost always "none", which a scan that stops at the first hit reads whole as well.
fn any_element(t: &Tangent, p: impl Fn(f64) -> bool + Copy) -> bool {
    let any = |s: &[f64]| s.iter().fold(false, |hit, &x| hit | p(x));
    match t {
        Tangent::Scalar(v) => p(*v),
        Tangent::Vector(v) => any(v),
        #[cfg(feature = "ndarray")]
        Tangent::Array(a) => match a.as_slice_memory_order() {
            Some(s) => any(s),
            None => a.iter().any(|&x| p(x)),
        },
        Tangent::Fields(fields) => fields.iter().any(|(_, t)| any_element(t, p)),
    }
}

/// Every element of a tangent, fields in order.
pub(crate) fn flat(t: &Tangent) -> Vec<f64> {
    match t {
        Tangent::Scalar(v) => vec![*v],
        Tangent::Vector(v) => v.clone(),
        #[cfg(feature = "ndarray")]
        Tangent::Array(a) => a.iter().copied().collect(),
        Tangent::Fields(fields) => fields.iter().flat_map(|(_, t)| flat(t)).collect(),
    }
}

fn primal_flat(p: &Primal<'_>) -> Vec<f64> {
    match p {
        Primal::Scalar(v) => vec![*v],
        Primal::Vector(v) => v.to_vec(),
        #[cfg(feature = "ndarray")]
        Primal::Array(a) => a.iter().copied().collect(),
    }
}

fn contribution(c: &Contribution) -> Vec<f64> {
    match c {
        Contribution::Whole(t) => flat(t),
        Contribution::At { value, .. } => vec![*value],
        Contribution::Range { values, .. } => values.clone(),
    }
}

/// No element is NaN.
fn numbers(v: &[f64]) -> bool {
    !v.iter().any(|x| x.is_nan())
}

fn finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}
