//! Reading recorded values (and literal operands) as the numbers gradient rules work on.

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

/// A fixed-size array `[f64; N]` (or `f32`), read back from its `Debug` text: its snapshot
/// cannot be downcast without knowing `N`.
fn float_array(value: &Value) -> Option<Vec<f64>> {
    let t = value.type_name().trim_start_matches('&');
    let t = t.strip_prefix("mut ").unwrap_or(t);
    if !(t.starts_with("[f64; ") || t.starts_with("[f32; ")) {
        return None;
    }
    let text = value.to_string();
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    if inner.trim().is_empty() {
        return Some(Vec::new());
    }
    inner.split(',').map(|x| x.trim().parse().ok()).collect()
}

/// Whether a value of this kind can carry a sensitivity.
pub(crate) fn is_differentiable(value: &Value) -> bool {
    value.as_f64().is_some() || primal(value).is_some()
}

/// A Rust literal's value as an `f64`: `2.0`, `1e-3`, `0.5_f32`, `3`, `-1.0`.
pub(crate) fn literal_f64(text: &str) -> Option<f64> {
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
    fn arrays_from_text() {
        let v = Value::text(&[1.0f64, 2.5]);
        assert_eq!(float_array(&v), Some(vec![1.0, 2.5]));
    }
}
