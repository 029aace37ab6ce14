//! The parts of a tuple. A tuple's sensitivity is that of the parts read from it, by their
//! positions' paths (`Tangent::Fields` with paths `"0"`, `"1.0"`): a part read (`t.1`) or
//! bound (`let (a, b) = t`, `FnIr::bind_path`) gives its sensitivity to the tuple at its path,
//! and the tuple literal that made the tuple gives each part's to the operand at its
//! position. A tracked function returning a tuple passes it on like any value. What the
//! paths do not name (a struct's field, an enum's payload) has no rule here.

use super::rules::{Contribution, Out};
use super::site::Site;
use super::tangent::Tangent;
use crate::core::ir::EntryKind;
use crate::core::op::Builtin;

/// Pushes the contributions of a tuple part's read, bind or literal to `out`; `false` when
/// `site` is none of those (or its sensitivity names a position the literal does not have).
pub(crate) fn rule(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> bool {
    if site.kind() != EntryKind::Special {
        return false;
    }
    let part = |path: String| Contribution::Whole(Tangent::Fields(vec![(path, dy.clone())]));
    // A path is noted only for a tuple pattern matched against its scrutinee, whose value is
    // then a tuple (a `for` loop's pattern binds from `next()`'s `Option`: no path, and the
    // iterator rules have it). A position read (`.1`) is of a tuple or a tuple struct, whose
    // literal is a call without a rule: its parts' sensitivities stop there, an error.
    match site.builtin() {
        Some(Builtin::Bind) => match site.ir.bind_path(site.index) {
            Some(path) => {
                out.push((0, part(path.to_string())));
                true
            }
            None => false,
        },
        Some(Builtin::Field) => {
            let position = site.head().strip_prefix('.').unwrap_or("");
            // `.1`, or `.0.1` for `(t.0).1`.
            let is_position = position
                .split('.')
                .all(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
            if !is_position {
                return false;
            }
            out.push((0, part(position.to_string())));
            true
        }
        Some(Builtin::Tuple) => {
            let Tangent::Fields(parts) = dy else {
                return false;
            };
            let mut given = Vec::with_capacity(parts.len());
            for (path, t) in parts {
                let (first, rest) = match path.split_once('.') {
                    Some((first, rest)) => (first, Some(rest)),
                    None => (path.as_str(), None),
                };
                let Some(k) = first.parse::<usize>().ok().filter(|&k| k < site.len()) else {
                    return false;
                };
                let t = match rest {
                    Some(rest) => Tangent::Fields(vec![(rest.to_string(), t.clone())]),
                    None => t.clone(),
                };
                given.push((k, Contribution::Whole(t)));
            }
            out.extend(given);
            true
        }
        _ => false,
    }
}
