//! Reading recorded values (and literal operands) as the numbers gradient rules work on.

use super::tangent::Tangent;
use crate::value::Value;
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
    if let Some(v) = value.downcast_ref::<Vec<f64>>() {
        return Some(Primal::Vector(Cow::Borrowed(v)));
    }
    if let Some(v) = value.downcast_ref::<Vec<f32>>() {
        return Some(Primal::Vector(Cow::Owned(
            v.iter().map(|&x| x as f64).collect(),
        )));
    }
    #[cfg(feature = "ndarray")]
    if let Some(a) = super::ndarray::array_primal(value) {
        return Some(Primal::Array(a));
    }
    float_array(value).map(|v| Primal::Vector(Cow::Owned(v)))
}

/// A vector of floats read back from its `Debug` text: a fixed-size array `[f64; N]` (its
/// snapshot cannot be downcast without knowing `N`), or a `Vec`/slice recorded as text because
/// its type was decided only after it was recorded (`let w: Vec<f64> = ….collect()`, the
/// operand of `?`). `f32` elements are read as `f32`, so the values are the recorded ones.
fn float_array(value: &Value) -> Option<Vec<f64>> {
    let t = value.type_name().trim_start_matches('&');
    let t = t.strip_prefix("mut ").unwrap_or(t);
    let single = if t.starts_with("[f64; ") || t == "[f64]" || t == "alloc::vec::Vec<f64>" {
        false
    } else if t.starts_with("[f32; ") || t == "[f32]" || t == "alloc::vec::Vec<f32>" {
        true
    } else {
        return None;
    };
    let text = value.to_string();
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    if inner.trim().is_empty() {
        return Some(Vec::new());
    }
    inner
        .split(',')
        .map(|x| {
            let x = x.trim();
            if single {
                x.parse::<f32>().ok().map(f64::from)
            } else {
                x.parse().ok()
            }
        })
        .collect()
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

/// A Rust literal's value as an `f64`: `2.0`, `1e-3`, `0.5_f32`, `3`, `-1.0`.
pub(crate) fn literal_f64(text: &str) -> Option<f64> {
    // Most literals are plain (`2.0`, `0.5`): no copy for them.
    if let Ok(v) = text.parse() {
        return Some(v);
    }
    let t: String = text.chars().filter(|c| *c != '_').collect();
    let t = [
        "f64", "f32", "i32", "i64", "u32", "u64", "usize", "isize", "i8", "i16", "u8", "u16",
    ]
    .iter()
    .find_map(|s| t.strip_suffix(s))
    .unwrap_or(&t);
    t.parse().ok()
}

/// A Rust integer literal's value: `2`, `1_000`, `3i32`, `-1`.
pub(crate) fn literal_i64(text: &str) -> Option<i64> {
    let t: String = text.chars().filter(|c| *c != '_').collect();
    let t = [
        "i32", "i64", "u32", "u64", "usize", "isize", "i8", "i16", "u8", "u16",
    ]
    .iter()
    .find_map(|s| t.strip_suffix(s))
    .unwrap_or(&t);
    t.parse().ok()
}

/// An integer value (an index, a `powi` exponent) from a recorded value.
pub(crate) fn integer(value: &Value) -> Option<i64> {
    macro_rules! try_int {
        ($($t:ty),*) => {$(
            if let Some(v) = value.downcast_ref::<$t>() {
                return i64::try_from(*v).ok();
            }
        )*};
    }
    try_int!(i32, i64, usize, u32, u64, isize, i16, u16, i8, u8);
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(literal_f64("2.0"), Some(2.0));
        assert_eq!(literal_f64("1e-3"), Some(1e-3));
        assert_eq!(literal_f64("0.5_f32"), Some(0.5));
        assert_eq!(literal_f64("1_000.0"), Some(1000.0));
        assert_eq!(literal_i64("3i32"), Some(3));
        assert_eq!(literal_f64("x"), None);
    }

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

    #[test]
    fn arrays_from_text() {
        let v = Value::text(&[1.0f64, 2.5]);
        assert_eq!(float_array(&v), Some(vec![1.0, 2.5]));
        // A `Vec` captured late, as text.
        let v = Value::text(&vec![0.1f64, -3.0]);
        assert_eq!(float_array(&v), Some(vec![0.1, -3.0]));
        let v = Value::text(&vec![0.1f32]);
        assert_eq!(float_array(&v), Some(vec![0.1f32 as f64]));
        assert_eq!(float_array(&Value::text(&vec![1u8])), None);
    }
}
