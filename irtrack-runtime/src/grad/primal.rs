//! Reading recorded values (and literal operands) as the numbers gradient rules work on.

use super::tangent::Tangent;
use crate::core::value::Value;
use std::borrow::Cow;

/// A recorded value seen as something differentiable.
#[cfg_attr(not(feature = "ndarray"), allow(dead_code))]
pub(crate) enum Primal<'a> {
    Scalar(f64),
    Vector(Cow<'a, [f64]>),
    #[cfg(feature = "ndarray")]
    Array(ndarray::CowArray<'a, f64, ndarray::IxDyn>),
}

impl Primal<'_> {
    #[cfg(feature = "ndarray")]
    pub(crate) fn len(&self) -> usize {
        match self {
            Primal::Scalar(_) => 1,
            Primal::Vector(v) => v.len(),
            #[cfg(feature = "ndarray")]
            Primal::Array(a) => a.len(),
        }
    }
}

/// `value` as a differentiable primal: a float, a vector of floats (`Vec`, slice or array of
/// `f64`/`f32`, also behind references), or an `ndarray` array of floats.
pub(crate) fn primal(value: &Value) -> Option<Primal<'_>> {
    if let Some(v) = value.as_f64() {
        return Some(Primal::Scalar(v));
    }
    if let Some(v) = value.floats() {
        return Some(Primal::Vector(v));
    }
    #[cfg(feature = "ndarray")]
    if let Some(a) = super::ndarray::array_primal(value) {
        return Some(Primal::Array(a));
    }
    None
}

impl Primal<'_> {
    /// Whether `t` has this value's shape: a scalar for a float, a vector (or a 1-d array) of
    /// the same length for a vector, an array (or a vector) of the same shape for an array.
    pub(crate) fn fits(&self, t: &Tangent) -> bool {
        match (self, t) {
            (Primal::Scalar(_), Tangent::Scalar(_)) => true,
            (Primal::Vector(v), Tangent::Vector(d)) => v.len() == d.len(),
            #[cfg(feature = "ndarray")]
            (Primal::Vector(v), Tangent::Array(d)) => d.ndim() == 1 && d.len() == v.len(),
            #[cfg(feature = "ndarray")]
            (Primal::Array(a), Tangent::Array(d)) => a.shape() == d.shape(),
            #[cfg(feature = "ndarray")]
            (Primal::Array(a), Tangent::Vector(d)) => a.ndim() == 1 && a.len() == d.len(),
            _ => false,
        }
    }

    /// The shape as text, for errors: `float`, `vector of 3`, `array [2, 2]`.
    pub(crate) fn shape(&self) -> String {
        match self {
            Primal::Scalar(_) => "float".into(),
            Primal::Vector(v) => format!("vector of {}", v.len()),
            #[cfg(feature = "ndarray")]
            Primal::Array(a) => format!("array {:?}", a.shape()),
        }
    }
}

/// Whether a value of this kind can carry a sensitivity.
pub(crate) fn is_differentiable(value: &Value) -> bool {
    value.as_f64().is_some() || primal(value).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_fit() {
        let v = [1.0, 2.0];
        let vector = Primal::Vector(Cow::Borrowed(&v));
        assert!(vector.fits(&Tangent::Vector(vec![0.5, 0.5])));
        assert!(!vector.fits(&Tangent::Scalar(1.0)));
        assert!(!vector.fits(&Tangent::Vector(vec![1.0])));
        assert!(Primal::Scalar(1.0).fits(&Tangent::Scalar(2.0)));
        assert!(!Primal::Scalar(1.0).fits(&Tangent::Vector(vec![2.0])));
    }
}
