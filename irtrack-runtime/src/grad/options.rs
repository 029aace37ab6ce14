//! `Option` and `Result` of a differentiable value: the wrapper's sensitivity is its content's,
//! so `unwrap`, `expect` and `unwrap_or` pass it on (to the default when that was used).

use super::rules::{Contribution, Out};
use super::site::Site;
use super::tangent::Tangent;
use crate::ir::EntryKind;

/// Whether a value's text shows an empty wrapper (`None`, `Err(…)`).
fn is_empty(text: &str) -> bool {
    text == "None" || text.starts_with("Err(")
}

/// The rule for `o.unwrap()`, `o.expect(m)`, `o.unwrap_or(d)`, `o.unwrap_or_default()` on an
/// `Option` or `Result`, if the site is one.
pub(crate) fn unwrap(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> Option<Result<(), String>> {
    if site.kind() != EntryKind::MethodCall {
        return None;
    }
    let receiver = site.receiver_type()?;
    let wrapper = receiver.starts_with("core::option::Option<")
        || receiver.starts_with("core::result::Result<");
    if !wrapper {
        return None;
    }
    let empty = site.value(0).is_some_and(|v| is_empty(&v.to_string()));
    match site.head() {
        "unwrap" | "expect" | "unwrap_unchecked" => {
            out.push((0, Contribution::Whole(dy.clone())));
        }
        "unwrap_or" => {
            let from = if empty { 1 } else { 0 };
            out.push((from, Contribution::Whole(dy.clone())));
        }
        "unwrap_or_default" => {
            if !empty {
                out.push((0, Contribution::Whole(dy.clone())));
            }
        }
        _ => return None,
    }
    Some(Ok(()))
}
