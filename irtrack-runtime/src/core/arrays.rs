//! `ndarray` arrays as recorded values: owned arrays and views are kept as owned clones, so
//! `node.value::<Array2<f64>>()` works whatever form the code used.

use super::value::{Owned, Snapshot, Value};
use ndarray::{
    ArrayBase, ArrayViewD, CowArray, Data, Dimension, IxDyn, OwnedArcRepr, OwnedRepr, ViewRepr,
};
use std::fmt;

impl<A: Owned, D: Dimension + Send + Sync + 'static> Owned for ArrayBase<OwnedRepr<A>, D> {}

impl<A: Owned, D: Dimension + Send + Sync + 'static> Snapshot for ArrayBase<OwnedRepr<A>, D> {
    fn snapshot(&self) -> Value {
        kept(self.clone())
    }
    fn into_value(self) -> Value {
        kept(self)
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

/// A registered operation can take owned arrays of `f64` (`fn roll(x: Array1<f64>, k: i64)`):
/// from an array of that dimension, owned or shared.
impl<D: Dimension + 'static> super::eval::FromValue for ndarray::Array<f64, D> {
    fn from_value(v: &Value) -> Option<Self> {
        if let Some(a) = v.downcast_ref::<ndarray::Array<f64, D>>() {
            return Some(a.clone());
        }
        let a = array_primal(v)?;
        a.into_owned().into_dimensionality::<D>().ok()
    }
}

/// An array an operation computed, as a value: moved in, where [`Snapshot::snapshot`] of an
/// array (which borrows it) copies it.
pub(crate) fn array_value<A: Owned, D: Dimension + Send + Sync + 'static>(
    a: ndarray::Array<A, D>,
) -> Value {
    kept(a)
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

/// An array value as a dynamic-dimensional array of `f64` (borrowed when it already is one).
pub(crate) fn array_primal(value: &Value) -> Option<CowArray<'_, f64, IxDyn>> {
    macro_rules! try_f64 {
        ($($t:ty),*) => {$(
            if let Some(a) = value.downcast_ref::<$t>() {
                return Some(CowArray::from(a.view().into_dyn()));
            }
        )*};
    }
    macro_rules! try_f32 {
        ($($t:ty),*) => {$(
            if let Some(a) = value.downcast_ref::<$t>() {
                return Some(CowArray::from(a.mapv(|x| x as f64).into_dyn()));
            }
        )*};
    }
    use ndarray::{Array0, Array1, Array2, Array3, Array4, ArrayD};
    try_f64!(
        Array1<f64>,
        Array2<f64>,
        Array0<f64>,
        Array3<f64>,
        Array4<f64>,
        ArrayD<f64>
    );
    use ndarray::{ArcArray, ArcArray1, ArcArray2, IxDyn as Dyn};
    try_f64!(ArcArray1<f64>, ArcArray2<f64>, ArcArray<f64, Dyn>);
    try_f32!(
        Array1<f32>,
        Array2<f32>,
        Array0<f32>,
        Array3<f32>,
        Array4<f32>,
        ArrayD<f32>
    );
    None
}

/// `a` as a value of the recorded array's type (`Array1<f64>` stays one), or `None` when the
/// recorded value is not an owned array of `f64` of `a`'s dimension.
pub(crate) fn like(a: ndarray::ArrayD<f64>, recorded: &Value) -> Option<Value> {
    use ndarray::{Array0, Array1, Array2, Array3, ArrayD, Ix0, Ix1, Ix2, Ix3};
    macro_rules! as_dim {
        ($($t:ty => $d:ty),*) => {$(
            if recorded.downcast_ref::<$t>().is_some() {
                return a.into_dimensionality::<$d>().ok().map(array_value);
            }
        )*};
    }
    as_dim!(Array0<f64> => Ix0, Array1<f64> => Ix1, Array2<f64> => Ix2, Array3<f64> => Ix3);
    recorded
        .downcast_ref::<ArrayD<f64>>()
        .map(|_| array_value(a))
}

/// [`like`], or `a` itself (dynamic-dimensional) when the recorded value is no owned array of
/// `f64` of `a`'s dimension; without a copy of `a` either way.
pub(crate) fn like_or_dyn(a: ndarray::ArrayD<f64>, recorded: &Value) -> Value {
    use ndarray::{Array0, Array1, Array2, Array3, Ix0, Ix1, Ix2, Ix3};
    macro_rules! as_dim {
        ($($t:ty => $d:ty),*) => {$(
            if recorded.downcast_ref::<$t>().is_some() && Some(a.ndim()) == <$d>::NDIM {
                if let Ok(a) = a.into_dimensionality::<$d>() {
                    return array_value(a);
                }
                unreachable!("the number of dimensions was checked");
            }
        )*};
    }
    as_dim!(Array0<f64> => Ix0, Array1<f64> => Ix1, Array2<f64> => Ix2, Array3<f64> => Ix3);
    array_value(a)
}

/// Runs an array operator (`+ - * /` with broadcasting and scalars, unary `-`) or an
/// [`ArrayOp`](super::op::ArrayOp) on values; the result has the type of the widest array
/// operand when that is an owned array of `f64`.
pub(crate) fn eval(op: ArrayEval, args: &[Value]) -> Result<Value, super::eval::EvalError> {
    use super::eval::EvalError;
    use super::op::{ArrayOp, BinOp};
    use ndarray::{ArrayD, Ix1, Ix2};
    let array = |i: usize| -> Result<CowArray<'_, f64, IxDyn>, EvalError> {
        args.get(i)
            .and_then(array_primal)
            .ok_or_else(|| EvalError::Type {
                operand: i,
                expected: "an array of floats".into(),
                got: args
                    .get(i)
                    .map_or("nothing".into(), |v| v.type_name().to_string()),
            })
    };
    let shape = |e: ndarray::ShapeError| EvalError::Domain(e.to_string());
    let widest = args
        .iter()
        .filter_map(|v| array_primal(v).map(|a| (a.ndim(), v)))
        .max_by_key(|(n, _)| *n)
        .map(|(_, v)| v.clone());
    let out = |a: ArrayD<f64>| -> Value {
        match &widest {
            Some(w) => like_or_dyn(a, w),
            None => array_value(a),
        }
    };
    match op {
        ArrayEval::Neg => Ok(out(array(0)?.mapv(|x| -x))),
        ArrayEval::Binary(b) => {
            // Operands are borrowed: a copy of each would double the time of an operation on
            // large arrays (a Hessian of 10⁴ columns runs millions of them, `benches/diff.rs`).
            let operand = |i: usize| -> Result<CowArray<'_, f64, IxDyn>, EvalError> {
                match args.get(i).and_then(Value::as_f64) {
                    Some(x) => Ok(CowArray::from(ndarray::arr0(x).into_dyn())),
                    None => array(i),
                }
            };
            let (x, y) = (operand(0)?, operand(1)?);
            type Operand<'a> = CowArray<'a, f64, IxDyn>;
            let broadcast = |x: &Operand<'_>, y: &Operand<'_>| -> Result<ArrayD<f64>, EvalError> {
                Ok(match b {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    BinOp::Div => x / y,
                    other => {
                        return Err(EvalError::Domain(format!("{other:?} of arrays")));
                    }
                })
            };
            // `&x op &y` co-broadcasts and panics on shapes that do not broadcast: check first.
            let dims = x.ndim().max(y.ndim());
            let pad = |a: &Operand<'_>| {
                let mut s = vec![1; dims - a.ndim()];
                s.extend_from_slice(a.shape());
                s
            };
            let (sx, sy) = (pad(&x), pad(&y));
            if sx
                .iter()
                .zip(&sy)
                .any(|(&p, &q)| p != q && p != 1 && q != 1)
            {
                return Err(EvalError::Domain(format!(
                    "shapes {:?} and {:?} do not broadcast",
                    x.shape(),
                    y.shape()
                )));
            }
            Ok(out(broadcast(&x, &y)?))
        }
        ArrayEval::Method(ArrayOp::Dot) => {
            let (a, b) = (array(0)?, array(1)?);
            let fits = |n: usize, m: usize| {
                if n != m {
                    Err(EvalError::Domain(format!("`dot` of lengths {n} and {m}")))
                } else {
                    Ok(())
                }
            };
            match (a.ndim(), b.ndim()) {
                (1, 1) => {
                    fits(a.len(), b.len())?;
                    let a = a.into_dimensionality::<Ix1>().map_err(shape)?;
                    let b = b.into_dimensionality::<Ix1>().map_err(shape)?;
                    Ok(a.dot(&b).snapshot())
                }
                (2, 1) => {
                    let a = a.into_dimensionality::<Ix2>().map_err(shape)?;
                    let b = b.into_dimensionality::<Ix1>().map_err(shape)?;
                    fits(a.ncols(), b.len())?;
                    Ok(array_value(a.dot(&b)))
                }
                (1, 2) => {
                    let a = a.into_dimensionality::<Ix1>().map_err(shape)?;
                    let b = b.into_dimensionality::<Ix2>().map_err(shape)?;
                    fits(a.len(), b.nrows())?;
                    Ok(array_value(a.dot(&b)))
                }
                (2, 2) => {
                    let a = a.into_dimensionality::<Ix2>().map_err(shape)?;
                    let b = b.into_dimensionality::<Ix2>().map_err(shape)?;
                    fits(a.ncols(), b.nrows())?;
                    Ok(array_value(a.dot(&b)))
                }
                (n, m) => Err(EvalError::Domain(format!(
                    "`dot` of {n}-D and {m}-D arrays"
                ))),
            }
        }
        ArrayEval::Method(ArrayOp::Transpose) => Ok(out(array(0)?.into_owned().reversed_axes())),
        ArrayEval::Method(ArrayOp::Sum) => Ok(array(0)?.sum().snapshot()),
        ArrayEval::Method(ArrayOp::Map(f)) => {
            let a = array(0)?;
            let mut bad = false;
            let r = a.mapv(|x| {
                f.eval_f64(&[x], None).unwrap_or_else(|| {
                    bad = true;
                    f64::NAN
                })
            });
            if bad {
                return Err(EvalError::Domain(format!("`{}` elementwise", f.name())));
            }
            Ok(out(r))
        }
        ArrayEval::Method(ArrayOp::Powi) => {
            let a = array(0)?;
            let n = args
                .get(1)
                .and_then(Value::as_i64)
                .and_then(|n| i32::try_from(n).ok())
                .ok_or_else(|| EvalError::Type {
                    operand: 1,
                    expected: "an `i32` exponent".into(),
                    got: args
                        .get(1)
                        .map_or("nothing".into(), |v| v.type_name().to_string()),
                })?;
            Ok(out(a.mapv(|x| x.powi(n))))
        }
        ArrayEval::Method(ArrayOp::Copy) => Ok(out(array(0)?.into_owned())),
    }
}

/// What [`eval`] runs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ArrayEval {
    Neg,
    Binary(super::op::BinOp),
    Method(super::op::ArrayOp),
}

/// Whether two values are the same arrays of floats, shape and bits (NaN equal to NaN).
pub(crate) fn same_array(a: &Value, b: &Value) -> bool {
    match (array_primal(a), array_primal(b)) {
        (Some(x), Some(y)) => {
            x.shape() == y.shape()
                && x.iter()
                    .zip(y.iter())
                    .all(|(&p, &q)| super::value::same_f64(p, q))
        }
        _ => false,
    }
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
