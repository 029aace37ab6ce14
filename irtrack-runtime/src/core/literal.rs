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
    as_i128(text).and_then(|v| i64::try_from(v).ok())
}

/// An integer literal's value, wide enough for every integer type's (`u64::MAX`, a hash seed
/// `0xcbf29ce484222325`); `None` for a float literal.
pub fn as_i128(text: &str) -> Option<i128> {
    let (body, suffix) = split(text);
    if matches!(suffix, Some("f32" | "f64")) {
        return None;
    }
    int(&body.replace(' ', ""))
}

/// What a quoted literal is, for its escapes: a `char` or `&str` takes `\u{…}` and `\x00`–`\x7f`,
/// a byte `\x00`–`\xff` and no `\u`.
#[derive(Clone, Copy, PartialEq)]
enum Quoted {
    Char,
    Str,
    Byte,
}

/// Reads the escape after a `\\` from `chars`, as Rust does; `None` for one Rust refuses. A
/// line continuation (`\\` then a newline) gives `Some(None)`: it skips the newline and the
/// whitespace after it.
fn escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, q: Quoted) -> Option<Option<char>> {
    Some(Some(match chars.next()? {
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        '\\' => '\\',
        '0' => '\0',
        '\'' => '\'',
        '"' => '"',
        'x' => {
            let hex: String = [chars.next()?, chars.next()?].iter().collect();
            let v = u8::from_str_radix(&hex, 16).ok()?;
            if v > 0x7f && q != Quoted::Byte {
                return None;
            }
            char::from(v)
        }
        'u' if q != Quoted::Byte => {
            if chars.next()? != '{' {
                return None;
            }
            let mut hex = String::new();
            loop {
                match chars.next()? {
                    '}' => break,
                    '_' if !hex.is_empty() => {}
                    c if c.is_ascii_hexdigit() && hex.len() < 6 => hex.push(c),
                    _ => return None,
                }
            }
            char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?
        }
        '\n' if q == Quoted::Str => {
            while chars
                .next_if(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))
                .is_some()
            {}
            return Some(None);
        }
        _ => return None,
    }))
}

/// The one character between the quotes of a `char` or byte literal, escapes read.
fn single(body: &str, q: Quoted) -> Option<char> {
    let mut chars = body.chars().peekable();
    let c = match chars.next()? {
        '\\' => escape(&mut chars, q)??,
        '\'' | '\n' | '\r' | '\t' => return None,
        c if q == Quoted::Byte && !c.is_ascii() => return None,
        c => c,
    };
    chars.next().is_none().then_some(c)
}

/// The text of a string literal (`"a\tb"`, `r"a\b"`, `r#"say "hi""#`) as Rust reads it:
/// escapes read, raw strings as written; `None` for anything else (a byte string is not a
/// `&str`).
fn string(t: &str) -> Option<String> {
    if let Some(raw) = t.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        let inner = raw[hashes..]
            .strip_prefix('"')?
            .strip_suffix(&raw[..hashes])?
            .strip_suffix('"')?;
        return Some(inner.to_string());
    }
    let inner = t.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(escape(&mut chars, Quoted::Str)?),
            // A bare `"` cannot be inside; a CRLF in the source is read as `\n`.
            '"' => return None,
            '\r' if chars.peek() == Some(&'\n') => {}
            c => out.push(c),
        }
    }
    Some(out)
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
    if let Some(body) = t.strip_prefix('\'').and_then(|c| c.strip_suffix('\'')) {
        if let Some(ch) = single(body, Quoted::Char) {
            return ch.snapshot();
        }
        return Value::foreign("literal", Some(t));
    }
    if let Some(body) = t.strip_prefix("b'").and_then(|c| c.strip_suffix('\'')) {
        if let Some(b) = single(body, Quoted::Byte).and_then(|c| u8::try_from(u32::from(c)).ok()) {
            return b.snapshot();
        }
        return Value::foreign("literal", Some(t));
    }
    if let Some(s) = string(t) {
        return Value::snapshot(s).renamed::<&str>();
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

    /// String, `char` and byte literals are read as Rust reads them: every escape, raw strings.
    #[test]
    fn escapes() {
        let s = |t: &str| value(t).downcast_ref::<String>().cloned();
        assert_eq!(s(r#""a\tb""#).as_deref(), Some("a\tb"));
        assert_eq!(s(r#""\n\r\t\\\0\'\"""#).as_deref(), Some("\n\r\t\\\0'\""));
        assert_eq!(s(r#""\x41\x7f""#).as_deref(), Some("A\x7f"));
        assert_eq!(
            s(r#""\u{e9}\u{1F600}\u{1_0FFFF}""#).as_deref(),
            Some("é😀\u{10FFFF}")
        );
        assert_eq!(s("\"a\\\n    b\""), Some("ab".to_string()));
        assert_eq!(s(r##"r"a\tb""##).as_deref(), Some(r"a\tb"));
        assert_eq!(
            s(r###"r#"say "hi"\n"#"###).as_deref(),
            Some(r#"say "hi"\n"#)
        );
        assert_eq!(s(r#""""#).as_deref(), Some(""));
        // Escapes Rust refuses in a string are not read as some other text.
        assert_eq!(s(r#""\x80""#), None);
        assert_eq!(s(r#""\q""#), None);
        assert_eq!(s(r#""\u{110000}""#), None);
        let c = |t: &str| value(t).downcast_ref::<char>().copied();
        assert_eq!(c(r"'\t'"), Some('\t'));
        assert_eq!(c(r"'\''"), Some('\''));
        assert_eq!(c(r#"'"'"#), Some('"'));
        assert_eq!(c(r"'\\'"), Some('\\'));
        assert_eq!(c(r"'\0'"), Some('\0'));
        assert_eq!(c(r"'\x7f'"), Some('\x7f'));
        assert_eq!(c(r"'\u{10FFFF}'"), Some('\u{10FFFF}'));
        assert_eq!(c("'é'"), Some('é'));
        assert_eq!(c(r"'\x80'"), None);
        assert_eq!(c("'ab'"), None);
        let b = |t: &str| value(t).downcast_ref::<u8>().copied();
        assert_eq!(b("b'a'"), Some(b'a'));
        assert_eq!(b(r"b'\n'"), Some(b'\n'));
        assert_eq!(b(r"b'\xff'"), Some(0xff));
        assert_eq!(b(r"b'\u{61}'"), None);
    }
}
