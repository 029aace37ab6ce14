//! The parts of a tuple. A tuple's sensitivity is that of the parts read from it, by their
//! positions' paths (`Tangent::Fields` with paths `"0"`, `"1.0"`): a part read (`t.1`) or
//! bound (`let (a, b) = t`, `FnIr::bind_path`) gives its sensitivity to the tuple at its path,
//! and the tuple literal that made the tuple gives each part's to the operand at its
//! position. A tracked function returning a tuple passes it on like any value. What the
//! paths do not name (a struct's field, an enum's payload) has no rule here.

use super::rules::{Contribution, Out};
use super::site::Site;
use super::tangent::Tangent;
use crate::core::ids::NodeId;
use crate::core::ir::EntryKind;
use crate::core::op::Builtin;
use crate::core::tape::NodeKind;

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
                // A named field (`m.w`) of a struct this trace made (`W { w: 2.0 * x }`, also
                // passed to a tracked method as `self`): its sensitivity goes to the struct at
                // the field's name, which the literal gives to the operand that made it.
                if position.is_empty() || !made_by_literal(site, position) {
                    return false;
                }
                out.push((0, part(position.to_string())));
                return true;
            }
            out.push((0, part(position.to_string())));
            true
        }
        Some(Builtin::Struct) => {
            let Some(names) = site.ir.struct_fields(site.index) else {
                return false;
            };
            let names: Vec<&str> = names.collect();
            literal(dy, out, |first| names.iter().position(|n| *n == first))
        }
        Some(Builtin::Tuple) => literal(dy, out, |first| {
            first.parse::<usize>().ok().filter(|&k| k < site.len())
        }),
        _ => false,
    }
}

/// A literal's rule: each part's sensitivity (by its path, `Tangent::Fields`) goes to the
/// operand `operand` finds for the path's first name, the rest of the path with it; `false`
/// when a name is none of the literal's.
fn literal(dy: &Tangent, out: &mut Out, operand: impl Fn(&str) -> Option<usize>) -> bool {
    let Tangent::Fields(parts) = dy else {
        return false;
    };
    let mut given = Vec::with_capacity(parts.len());
    for (path, t) in parts {
        let (first, rest) = match path.split_once('.') {
            Some((first, rest)) => (first, Some(rest)),
            None => (path.as_str(), None),
        };
        let Some(k) = operand(first) else {
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

/// Whether the field at `path` of the value a field read reads was made by a struct literal
/// of this trace (`W { w: 2.0 * x }`, `Outer { inner: W { .. } }` for `.inner.w`), directly or
/// passed on unchanged through arguments (a tracked method's `self`) and bindings, and the read
/// gave the value that literal's operand recorded (a witness: a change in place the trace does
/// not show would differ), also out of a tracked function that returned it. The literals name
/// their fields (`FnIr::struct_fields`), so the
/// read's sensitivity has an operand to go to. A struct made anywhere else (an argument of the
/// root, an untracked constructor) keeps the rules it had.
fn made_by_literal(site: &Site<'_>, path: &str) -> bool {
    let store = site.store;
    let mut at = match site.refs.first() {
        Some(&r) if !r.is_none() => r,
        _ => return false,
    };
    // The path's names still to find, first first: a binding from a tuple's position
    // (`let (a, y) = make(x)`) puts the position before them.
    let mut names: std::collections::VecDeque<&str> = path.split('.').collect();
    for _ in 0..256 {
        let Some(name) = names.front().copied() else {
            // Every segment was a literal's operand: the read must have given its value (a
            // literal constant written in the source, `W { b: 1.0 }`, has no node and passes
            // nothing on).
            if at.is_none() {
                return true;
            }
            let (read, made) = (store.value_cow(site.node), store.value_cow(at));
            return read.exact_eq(&made) == Some(true);
        };
        if at.is_none() {
            return false;
        }
        let node = store.node(at);
        let Some((ir, entry)) = store.entry_of(at) else {
            return false;
        };
        match node.kind {
            NodeKind::Special => {
                let index = node.entry as usize;
                if let Some(fields) = ir.struct_fields(index) {
                    let Some(k) = fields.into_iter().position(|n| n == name) else {
                        return false;
                    };
                    at = store.ref_at(at, k);
                    names.pop_front();
                } else if ir.builtin(index) == Some(Builtin::Tuple) {
                    let Some(k) = name
                        .parse::<usize>()
                        .ok()
                        .filter(|&k| k < entry.operands.len())
                    else {
                        return false;
                    };
                    at = store.ref_at(at, k);
                    names.pop_front();
                } else if ir.builtin(index) == Some(Builtin::Bind) {
                    if let Some(p) = ir.bind_path(index) {
                        for (i, position) in p.split('.').enumerate() {
                            names.insert(i, position);
                        }
                    }
                    at = store.ref_at(at, 0);
                } else {
                    return false;
                }
            }
            NodeKind::Argument if entry.location.block != 1 => at = store.ref_at(at, 0),
            NodeKind::Argument => {
                let Some(parent) = store.parent(at) else {
                    return false;
                };
                let Some(p) = ir.arg_position(node.entry as usize) else {
                    return false;
                };
                if store.node(parent).kind != NodeKind::NestedCall {
                    return false;
                }
                at = store.ref_at(parent, p);
            }
            // A tracked function's result (`make(x)`, a tracked `Mul` of a user's number
            // type): what its return returned, unless the call's value is not its body's.
            NodeKind::NestedCall => {
                if node.not_from_body() {
                    return false;
                }
                let Some(call) = store.call(at) else {
                    return false;
                };
                let last = NodeId(call.end.saturating_sub(1));
                if call.end <= at.0 + 1
                    || store.node(last).kind != NodeKind::Return
                    || store.parent(last) != Some(at)
                {
                    return false;
                }
                at = store.ref_at(last, 0);
            }
            _ => return false,
        }
    }
    false
}
