//! Literals as written in the source (`2.0`, `1_000u64`, `'x'`, `true`), read as typed values.
//!
//! The IR keeps a literal operand's text: its type is decided by the code around it, which the
//! macro cannot see. Readers that know the type a literal has (a rule for `f64 * literal`, a
//! replay of `powi(x, 2)`) read it with [`as_f64`]/[`as_i64`]; [`value`] reads it by the type
//! Rust gives an unconstrained literal (a suffix, else `i32` or `f64`), which is what a context
//! sees of a call's literal arguments before the call runs.

use super::value::Value;

const INT_SUFFIXES: [&str; 12] = [
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
];

/// The digits of a numeric literal without `_` and without its suffix, and the suffix.
fn split(text: &str) -> (String, Option<&str>) {
    let t = text.trim();
    let floaty = !(t.starts_with("0x") || t.starts_with("0o") || t.starts_with("0b"));
    let suffix = INT_SUFFIXES
        .iter()
        .chain(if floaty {
            ["f32", "f64"].iter()
        } else {
            [].iter()
        })
        .find(|s| t.ends_with(*s) && t.len() > s.len())
        .copied();
    let body = suffix.map_or(t, |s| &t[..t.len() - s.len()]);
    (body.chars().filter(|&c| c != '_').collect(), suffix)
}

fn int(body: &str) -> Option<i128> {
    let (neg, digits) = match body.strip_prefix('-') {
        Some(d) => (true, d.trim()),
        None => (false, body),
    };
    let v = if let Some(h) = digits.strip_prefix("0x") {
        i128::from_str_radix(h, 16).ok()?
    } else if let Some(o) = digits.strip_prefix("0o") {
        i128::from_str_radix(o, 8).ok()?
    } else if let Some(b) = digits.strip_prefix("0b") {
        i128::from_str_radix(b, 2).ok()?
    } else {
        digits.parse().ok()?
    };
    Some(if neg { -v } else { v })
}

/// A numeric literal's value as an `f64` (`2.0`, `1e-3`, `0.5_f32` read as the `f32` it is,
/// `3`, `-1.0`).
pub fn as_f64(text: &str) -> Option<f64> {
    // Most float literals are plain decimals (`0.5`, `1e-3`, `2`), which `str::parse` reads as
    // Rust does, without the copy `split` makes (a gradient reads them on every sweep).
    if let Ok(v) = text.parse() {
        return Some(v);
    }
    let (body, suffix) = split(text);
    if suffix == Some("f32") {
        return body.replace(' ', "").parse::<f32>().ok().map(f64::from);
    }
    if let Some(i) = int(&body) {
        return Some(i as f64);
    }
    body.replace(' ', "").parse().ok()
}

/// A literal's value as an `f32`, read as the `f32` Rust makes of it.
pub fn as_f32(text: &str) -> Option<f32> {
    if let Ok(v) = text.parse() {
        return Some(v);
    }
    let (body, _) = split(text);
    body.replace(' ', "").parse().ok()
}

/// An integer literal's value (`2`, `1_000`, `3i32`, `-1`, `0xff`).
pub fn as_i64(text: &str) -> Option<i64> {
    let (body, suffix) = split(text);
    if matches!(suffix, Some("f32" | "f64")) {
        return None;
    }
    int(&body.replace(' ', "")).and_then(|v| i64::try_from(v).ok())
}

/// A literal's value by the type Rust gives it when nothing constrains it.
pub fn value(text: &str) -> Value {
    use super::value::Snapshot;
    let t = text.trim();
    match t {
        "true" => return true.snapshot(),
        "false" => return false.snapshot(),
        "()" => return Value::UNIT,
        _ => {}
    }
    if let Some(c) = t.strip_prefix('\'').and_then(|c| c.strip_suffix('\'')) {
        let mut chars = c.chars();
        if let (Some(ch), None) = (chars.next(), chars.next()) {
            return ch.snapshot();
        }
    }
    if t.starts_with('"') && t.ends_with('"') && t.len() >= 2 {
        return Value::snapshot(t[1..t.len() - 1].to_string()).renamed::<&str>();
    }
    let (body, suffix) = split(t);
    let compact = body.replace(' ', "");
    let numeric = compact
        .trim_start_matches('-')
        .starts_with(|c: char| c.is_ascii_digit());
    if numeric {
        macro_rules! typed {
            ($($s:literal => $ty:ty),*) => {
                match suffix {
                    $(Some($s) => {
                        if let Some(v) = int(&compact).and_then(|v| <$ty>::try_from(v).ok()) {
                            return v.snapshot();
                        }
                    })*
                    Some("f32") => if let Ok(v) = compact.parse::<f32>() { return v.snapshot(); },
                    Some("f64") => if let Ok(v) = compact.parse::<f64>() { return v.snapshot(); },
                    _ => {
                        if let Some(v) = int(&compact).and_then(|v| i32::try_from(v).ok()) {
                            return v.snapshot();
                        }
                        if let Ok(v) = compact.parse::<f64>() { return v.snapshot(); }
                    }
                }
            };
        }
        typed!("i8" => i8, "i16" => i16, "i32" => i32, "i64" => i64, "isize" => isize,
               "u8" => u8, "u16" => u16, "u32" => u32, "u64" => u64, "usize" => usize);
    }
    Value::foreign("literal", Some(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(as_f64("2.0"), Some(2.0));
        assert_eq!(as_f64("1e-3"), Some(1e-3));
        assert_eq!(as_f64("0.1_f32"), Some(0.1f32 as f64));
        assert_eq!(as_f64("1_000.0"), Some(1000.0));
        assert_eq!(as_f64("- 1.5"), Some(-1.5));
        // Read as Rust reads the literal, whichever way: plain decimals by `str::parse`.
        assert_eq!(as_f64("0.1"), Some(0.1));
        assert_eq!(as_f64("1."), Some(1.0));
        assert_eq!(as_f64("3"), Some(3.0));
        assert_eq!(as_f64("0x10"), Some(16.0));
        assert_eq!(as_f64("2.5f64"), Some(2.5));
        assert_eq!(as_f64("9007199254740993"), Some(9007199254740993u64 as f64));
        assert_eq!(as_f32("0.1"), Some(0.1f32));
        assert_eq!(as_f32("16777217"), Some(16777217.0f32));
        assert_eq!(as_f32("1_0.5f32"), Some(10.5));
        assert_eq!(as_i64("3i32"), Some(3));
        assert_eq!(as_i64("0xff"), Some(255));
        assert_eq!(as_i64("-2"), Some(-2));
        assert_eq!(as_i64("2.0"), None);
        assert_eq!(as_f64("x"), None);
        assert_eq!(value("2.0").downcast_ref::<f64>(), Some(&2.0));
        assert_eq!(value("2").downcast_ref::<i32>(), Some(&2));
        assert_eq!(value("2u8").downcast_ref::<u8>(), Some(&2));
        assert_eq!(value("1.5f32").downcast_ref::<f32>(), Some(&1.5));
        assert_eq!(value("'x'").downcast_ref::<char>(), Some(&'x'));
        assert_eq!(value("true").downcast_ref::<bool>(), Some(&true));
        assert_eq!(value("\"hi\"").to_string(), "\"hi\"");
    }
}
