//! `Option` and `Result` of a differentiable value: the wrapper's sensitivity is its content's,
//! so `unwrap`, `expect` and `unwrap_or` pass it on (to the default when that was used).
//!
//! These are methods called on a value, so they apply only when the recorded values prove the
//! call did what `Option::unwrap` does: the value is the receiver's content (or the default,
//! for `unwrap_or` of an empty receiver), bit for bit.

use super::rules::{Contribution, Out};
use super::site::Site;
use super::tangent::Tangent;
use crate::core::ir::EntryKind;

/// A float inside `Some(…)` or `Ok(…)`, or nothing for `None`/`Err(…)`; `None` when the value
/// is not such a wrapper of a float (a `Result` whose error type has no snapshot is kept only
/// as text, so it has no rule).
fn content(site: &Site<'_>, i: usize) -> Option<Option<f64>> {
    site.value(i)?.wrapped_float()
}

/// The rule for `o.unwrap()`, `o.expect(m)`, `o.unwrap_or(d)`, `o.unwrap_or_default()` on an
/// `Option` or `Result` of a float, if the site is one.
pub(crate) fn unwrap(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> Option<Result<(), String>> {
    if site.kind() != EntryKind::MethodCall {
        return None;
    }
    let inner = content(site, 0)?;
    let y = site.output().as_f64()?;
    let same = |x: f64| x.to_bits() == y.to_bits();
    match (site.head(), inner) {
        ("unwrap" | "expect" | "unwrap_unchecked", Some(x)) if same(x) => {
            out.push((0, Contribution::Whole(dy.clone())));
        }
        ("unwrap_or", Some(x)) if same(x) => out.push((0, Contribution::Whole(dy.clone()))),
        ("unwrap_or", None) if site.scalar(1).is_some_and(same) => {
            out.push((1, Contribution::Whole(dy.clone())))
        }
        ("unwrap_or_default", Some(x)) if same(x) => out.push((0, Contribution::Whole(dy.clone()))),
        ("unwrap_or_default", None) if y == 0.0 => {}
        _ => return None,
    }
    Some(Ok(()))
}
