//! The patterns of a `match` on an integer, a `char` or a `bool`, read so that a program can
//! check them: a call takes the first arm whose pattern its value matches, so a path through
//! arm `k` holds where the value matches arm `k`'s pattern and none tested before it. Literals,
//! ranges, `_` and bindings, joined by `|`, are tests a program runs as comparisons; any other
//! pattern (a constant's name, a tuple, a slice, `x @ 1..=3`) is not read, and the program
//! refuses the branch as before.

/// One alternative of a pattern.
#[derive(Debug, PartialEq)]
pub(crate) enum Alt<'p> {
    /// `_`: every value.
    Any,
    /// A name: a binding (every value) if the arm binds it, else a constant, which tests the
    /// value (the caller tells which).
    Name(&'p str),
    /// A literal, as written.
    Literal(&'p str),
    /// `lo..=hi`, `lo..hi`, `..=hi`, `lo..`: the bounds as written.
    Range {
        lo: Option<&'p str>,
        hi: Option<&'p str>,
        inclusive: bool,
    },
}

/// The alternatives of `pattern` (a `match` arm's pattern as the IR writes it), or `None` for
/// one this module does not read.
pub(crate) fn alternatives(pattern: &str) -> Option<Vec<Alt<'_>>> {
    split_outside_quotes(pattern, '|')
        .into_iter()
        .map(|a| alternative(a.trim()))
        .collect()
}

fn alternative(a: &str) -> Option<Alt<'_>> {
    if a == "_" {
        return Some(Alt::Any);
    }
    if a.is_empty() || a.contains(['(', '[', '{', '@', ',', '"', ':', '&']) {
        return None;
    }
    if let Some((lo, hi)) = split_range(a, "..=") {
        return Some(Alt::Range {
            lo: bound(lo)?,
            hi: Some(bound(hi)?.filter(|h| !h.is_empty())?),
            inclusive: true,
        });
    }
    if let Some((lo, hi)) = split_range(a, "..") {
        return Some(Alt::Range {
            lo: bound(lo)?,
            hi: bound(hi)?,
            inclusive: false,
        });
    }
    let first = a.chars().next()?;
    if (first.is_alphabetic() || first == '_') && a != "true" && a != "false" {
        return a
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_')
            .then_some(Alt::Name(a));
    }
    literal(a).then_some(Alt::Literal(a))
}

/// A range bound: empty (open) or a literal.
fn bound(b: &str) -> Option<Option<&str>> {
    let b = b.trim();
    if b.is_empty() {
        return Some(None);
    }
    literal(b).then_some(Some(b))
}

/// An integer, `char` or `bool` literal (a float's is not: a `match` on a float pins a point).
fn literal(t: &str) -> bool {
    let t = t.trim();
    if t == "true" || t == "false" || (t.starts_with('\'') && t.ends_with('\'') && t.len() >= 3) {
        return true;
    }
    crate::core::literal::as_i128(t).is_some()
}

/// `a` split at the first `sep` outside a quoted `char`.
fn split_range<'p>(a: &'p str, sep: &str) -> Option<(&'p str, &'p str)> {
    outside_quotes(a)
        .find(|&i| a[i..].starts_with(sep))
        .map(|i| (&a[..i], &a[i + sep.len()..]))
}

/// The byte offsets of `s`'s characters outside a quoted `char` (`'|'`, `'\\'`, `'\''`).
fn outside_quotes(s: &str) -> impl Iterator<Item = usize> + '_ {
    let (mut quoted, mut escaped) = (false, false);
    s.char_indices().filter_map(move |(i, c)| {
        if quoted {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '\'') => quoted = false,
                _ => {}
            }
            return None;
        }
        if c == '\'' {
            quoted = true;
            return None;
        }
        Some(i)
    })
}

/// `s` split at every `sep` outside a quoted `char` (`'|' | 'a'`).
fn split_outside_quotes(s: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    for i in outside_quotes(s) {
        if s[i..].starts_with(sep) {
            parts.push(&s[start..i]);
            start = i + sep.len_utf8();
        }
    }
    parts.push(&s[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_literals_ranges_and_names() {
        assert_eq!(
            alternatives("1 | 2"),
            Some(vec![Alt::Literal("1"), Alt::Literal("2")])
        );
        assert_eq!(
            alternatives("-3..=7"),
            Some(vec![Alt::Range {
                lo: Some("-3"),
                hi: Some("7"),
                inclusive: true
            }])
        );
        assert_eq!(
            alternatives("..0 | 10.."),
            Some(vec![
                Alt::Range {
                    lo: None,
                    hi: Some("0"),
                    inclusive: false
                },
                Alt::Range {
                    lo: Some("10"),
                    hi: None,
                    inclusive: false
                }
            ])
        );
        assert_eq!(
            alternatives("'|' | 'a'..='z'"),
            Some(vec![
                Alt::Literal("'|'"),
                Alt::Range {
                    lo: Some("'a'"),
                    hi: Some("'z'"),
                    inclusive: true
                }
            ])
        );
        assert_eq!(
            alternatives("'\\\\' | '/' | '\\''"),
            Some(vec![
                Alt::Literal("'\\\\'"),
                Alt::Literal("'/'"),
                Alt::Literal("'\\''")
            ])
        );
        assert_eq!(alternatives("k"), Some(vec![Alt::Name("k")]));
        assert_eq!(alternatives("_"), Some(vec![Alt::Any]));
        assert_eq!(alternatives("true"), Some(vec![Alt::Literal("true")]));
        for refused in [
            "Some(x)",
            "(a, b)",
            "x @ 1..=3",
            "[a, ..]",
            "1.5",
            "0.0..=1.0",
            "MAX..=",
        ] {
            assert_eq!(alternatives(refused), None, "{refused}");
        }
    }
}
