//! `ndarray` arrays as recorded values: owned arrays and views are kept as owned clones, so
//! `node.value::<Array2<f64>>()` works whatever form the code used.

use super::value::{Owned, Snapshot, Value};
use ndarray::{ArrayBase, ArrayViewD, Data, Dimension, OwnedArcRepr, OwnedRepr, ViewRepr};
use std::fmt;

impl<A: Owned, D: Dimension + Send + Sync + 'static> Owned for ArrayBase<OwnedRepr<A>, D> {}

impl<A: Owned, D: Dimension + Send + Sync + 'static> Snapshot for ArrayBase<OwnedRepr<A>, D> {
    fn snapshot(&self) -> Value {
        kept(self.clone())
    }
}

/// A shared array (`ArcArray`) is kept by sharing it, not by copying: record large constant
/// arrays (weights, data) as `ArcArray`s to keep traces small.
impl<A: Owned, D: Dimension + Send + Sync + 'static> Owned for ArrayBase<OwnedArcRepr<A>, D> {}

impl<A: Owned, D: Dimension + Send + Sync + 'static> Snapshot for ArrayBase<OwnedArcRepr<A>, D> {
    fn snapshot(&self) -> Value {
        kept(self.clone())
    }
}

impl<A: Owned, D: Dimension + Send + Sync + 'static> Snapshot for ArrayBase<ViewRepr<&A>, D> {
    fn snapshot(&self) -> Value {
        kept(self.to_owned()).renamed::<Self>()
    }
}

/// An array kept by a trace (owned or shared), printed on one line.
fn kept<S, A, D>(a: ArrayBase<S, D>) -> Value
where
    S: Data<Elem = A> + Send + Sync + 'static,
    A: Owned,
    D: Dimension + Send + Sync + 'static,
{
    Value::snapshot_shown(a, |a, f| nested(a.view().into_dyn(), f))
}

/// Nested brackets on one line: `[[1.0, 2.0], [3.0, 4.0]]`.
pub(crate) fn nested<A: fmt::Debug>(
    a: ArrayViewD<'_, A>,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    if a.ndim() == 0 {
        return match a.iter().next() {
            Some(x) => write!(f, "{x:?}"),
            None => Ok(()),
        };
    }
    f.write_str("[")?;
    for (i, sub) in a.outer_iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        nested(sub, f)?;
    }
    f.write_str("]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{array, Array2};

    #[test]
    fn views_are_kept_as_owned_arrays() {
        let a = array![[1.0, 2.0], [3.0, 4.0]];
        let v = a.t().snapshot();
        assert_eq!(
            v.downcast_ref::<Array2<f64>>(),
            Some(&array![[1.0, 3.0], [2.0, 4.0]])
        );
        assert!(v.type_name().contains("ViewRepr"));
        assert_eq!(v.to_string(), "[[1.0, 3.0], [2.0, 4.0]]");
        let shared = a.into_shared();
        let s = shared.snapshot();
        let kept = s.downcast_ref::<ndarray::ArcArray2<f64>>().unwrap();
        assert_eq!(kept.as_ptr(), shared.as_ptr(), "shared, not copied");
    }
}
