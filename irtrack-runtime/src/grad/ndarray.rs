//! Gradient rules for `ndarray` arrays of floats: elementwise arithmetic with broadcasting
//! (scalars included), the float methods elementwise, `dot`, `t()`, `sum`, `mean`, `mapv` of a
//! float function, indexing, and conversions from vectors.

use super::primal::Primal;
use super::rules::{Contribution, Out, Rule};
use super::site::Site;
use super::tangent::Tangent;
use crate::core::ir::EntryKind;
use crate::core::op::{float_fn_of, BinOp, Builtin, FloatFn, UnOp};
use crate::core::tape::Callee;
use ndarray::{Array1, Array2, ArrayD, Axis, CowArray, Ix1, Ix2, IxDyn};

pub(crate) use crate::core::arrays::array_primal;

fn array<'a>(site: &Site<'a>, i: usize) -> Option<CowArray<'a, f64, IxDyn>> {
    match site.primal(i)? {
        Primal::Array(a) => Some(a),
        _ => None,
    }
}

fn is_array(site: &Site<'_>, i: usize) -> bool {
    site.value(i).is_some_and(|v| array_primal(&v).is_some())
}

/// The rule for an array operation, if the site is one. Operators on arrays are ndarray's own
/// (the orphan rule keeps users from implementing them for ndarray's types); a method call is
/// ndarray's inherent method only if a trait method of the same name was not found first, so
/// the methods that compute from their receiver alone are checked against their result.
pub(crate) fn rule(site: &Site<'_>) -> Option<Rule> {
    let head = site.head();
    match (site.kind(), site.builtin()) {
        (EntryKind::Operator, builtin) => {
            let any_array = (0..site.len()).any(|i| is_array(site, i));
            if !any_array {
                return None;
            }
            Some(match builtin? {
                Builtin::Unary(UnOp::Neg) => Rule::General(|_, dy, out| {
                    out.push((0, Contribution::Whole(dy.scaled(-1.0))));
                    Ok(())
                }),
                Builtin::Binary(op) | Builtin::Assign(op) => match op {
                    BinOp::Add => Rule::General(|s, dy, out| elementwise(s, dy, out, Op::Add)),
                    BinOp::Sub => Rule::General(|s, dy, out| elementwise(s, dy, out, Op::Sub)),
                    BinOp::Mul => Rule::General(|s, dy, out| elementwise(s, dy, out, Op::Mul)),
                    BinOp::Div => Rule::General(|s, dy, out| elementwise(s, dy, out, Op::Div)),
                    _ => return None,
                },
                _ => return None,
            })
        }
        (EntryKind::MethodCall, builtin) if is_array(site, 0) => Some(match (head, builtin) {
            ("dot", _) => Rule::General(dot),
            ("t" | "reversed_axes", _) => Rule::General(|_, dy, out| {
                let d = dy_array(dy)?;
                out.push((0, Contribution::Whole(Tangent::from(d.reversed_axes()))));
                Ok(())
            }),
            ("sum", _) if same_result(site, |a| a.sum()) => {
                Rule::General(|s, dy, out| spread(s, dy, out, false))
            }
            ("mean", _) => Rule::General(|s, dy, out| spread(s, dy, out, true)),
            ("to_owned" | "clone" | "view" | "into_owned" | "into_dyn", _) => Rule::PassThrough,
            ("mapv" | "map", _) => Rule::General(mapv),
            ("index", _) => Rule::General(index),
            (_, Some(Builtin::Method(f))) if f.arity() == 1 && elementwise_reaches(site, f) => {
                Rule::General(unary_elementwise)
            }
            ("powi", _) => Rule::General(|s, dy, out| {
                let a = array(s, 0).ok_or("not an array")?;
                let n = s.integer(1).ok_or("the exponent is not an integer")? as i32;
                let d = dy_array(dy)?;
                let g = &d
                    * &a.mapv(|x| {
                        if n == 0 {
                            0.0
                        } else {
                            n as f64 * x.powi(n - 1)
                        }
                    });
                out.push((0, Contribution::Whole(Tangent::from(g))));
                Ok(())
            }),
            _ => return None,
        }),
        (EntryKind::Call, Some(Builtin::Index)) if is_array(site, 0) => Some(Rule::General(index)),
        (EntryKind::Call, _) => {
            let Some(Callee::Item(t)) = site.callee() else {
                return None;
            };
            let from_vector = [
                crate::core::ids::key_of(&ndarray::Array1::<f64>::from_vec).id,
                crate::core::ids::key_of(&<ndarray::Array1<f64> as From<Vec<f64>>>::from).id,
            ]
            .contains(&t.id);
            from_vector.then_some(Rule::General(|s, dy, out| {
                let d = dy_array(dy)?;
                let g: Tangent = match s.primal(0) {
                    Some(Primal::Vector(_)) => Tangent::Vector(d.iter().copied().collect()),
                    _ => Tangent::from(d),
                };
                out.push((0, Contribution::Whole(g)));
                Ok(())
            }))
        }
        _ => None,
    }
}

/// Whether the site is an array product with a product of nonzero factors that is 0: an
/// elementwise `a * b` with such an element, or a `dot` (of vectors, or of a matrix and a
/// vector) with such a term. Such a zero is an underflow, 0 only as a limit: an infinite
/// slope there (`sqrt` of the sum of squares at `1e-170`) meets no exact zero.
pub(crate) fn underflowed(site: &Site<'_>) -> bool {
    let underflows = |p: f64, q: f64| p != 0.0 && q != 0.0 && p * q == 0.0;
    let operand = |i: usize| -> Option<ArrayD<f64>> {
        match site.primal(i)? {
            Primal::Array(a) => Some(a.into_owned()),
            Primal::Scalar(x) => Some(ArrayD::from_elem(IxDyn(&[]), x)),
            _ => None,
        }
    };
    match (site.kind(), site.builtin()) {
        (EntryKind::Operator, Some(Builtin::Binary(BinOp::Mul) | Builtin::Assign(BinOp::Mul))) => {
            let (Some(a), Some(b)) = (operand(0), operand(1)) else {
                return false;
            };
            let Some(shape) = co_broadcast(a.shape(), b.shape()) else {
                return false;
            };
            let (Some(a), Some(b)) = (a.broadcast(shape.clone()), b.broadcast(shape)) else {
                return false;
            };
            ndarray::Zip::from(&a)
                .and(&b)
                .fold(false, |found, &p, &q| found || underflows(p, q))
        }
        (EntryKind::MethodCall, _) if site.head() == "dot" => {
            let (Some(a), Some(b)) = (operand(0), operand(1)) else {
                return false;
            };
            match (a.ndim(), b.ndim()) {
                (1, 1) => a.iter().zip(b.iter()).any(|(&p, &q)| underflows(p, q)),
                (2, 1) => a
                    .rows()
                    .into_iter()
                    .any(|row| row.iter().zip(b.iter()).any(|(&p, &q)| underflows(p, q))),
                _ => false,
            }
        }
        _ => false,
    }
}

/// The shape two shapes broadcast to together, if they do.
fn co_broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let at = |s: &[usize], k: usize| {
        if k < n - s.len() {
            1
        } else {
            s[k - (n - s.len())]
        }
    };
    (0..n)
        .map(|k| match (at(a, k), at(b, k)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// Whether the array method `f`, run elementwise on the receiver, gives the recorded result.
fn elementwise_reaches(site: &Site<'_>, f: FloatFn) -> bool {
    let (Some(a), out) = (array(site, 0), site.output()) else {
        return false;
    };
    let Some(y) = array_primal(&out) else {
        return false;
    };
    a.shape() == y.shape()
        && a.iter().zip(y.iter()).all(|(&x, &y)| {
            f.eval_f64(&[x], None)
                .is_some_and(|r| crate::core::value::same_f64(r, y))
        })
}

/// Whether `f` of the receiver gives the recorded float result.
fn same_result(
    site: &Site<'_>,
    f: impl Fn(&ndarray::CowArray<'_, f64, ndarray::IxDyn>) -> f64,
) -> bool {
    match (array(site, 0), site.output().as_f64()) {
        (Some(a), Some(y)) => crate::core::value::same_f64(f(&a), y),
        _ => false,
    }
}

/// `a.sum()` and `a.mean()`: every element gets the result's sensitivity (over the element
/// count for the mean).
fn spread(site: &Site<'_>, dy: &Tangent, out: &mut Out, mean: bool) -> Result<(), String> {
    let a = array(site, 0).ok_or("not an array")?;
    let g = dy
        .as_scalar()
        .ok_or_else(|| format!("the {}'s sensitivity is not a float", site.head()))?;
    let g = match mean {
        true => g / a.len().max(1) as f64,
        false => g,
    };
    let d = ArrayD::from_elem(a.raw_dim(), g);
    out.push((0, Contribution::Whole(Tangent::from(d))));
    Ok(())
}

fn dy_array(dy: &Tangent) -> Result<ArrayD<f64>, String> {
    match dy {
        Tangent::Array(a) => Ok((**a).clone()),
        Tangent::Vector(v) => Ok(Array1::from(v.clone()).into_dyn()),
        Tangent::Scalar(v) => Ok(ndarray::arr0(*v).into_dyn()),
        Tangent::Fields(_) => Err("an array's sensitivity is a struct's".into()),
    }
}

#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

/// An operand of an elementwise operation: an array or a float.
fn operand(site: &Site<'_>, i: usize) -> Result<ArrayD<f64>, String> {
    match site.primal(i) {
        Some(Primal::Array(a)) => Ok(a.into_owned()),
        Some(Primal::Scalar(x)) => Ok(ndarray::arr0(x).into_dyn()),
        Some(Primal::Vector(v)) => Ok(Array1::from(v.into_owned()).into_dyn()),
        None => Err(format!("operand {} is neither an array nor a float", i + 1)),
    }
}

fn elementwise(site: &Site<'_>, dy: &Tangent, out: &mut Out, op: Op) -> Result<(), String> {
    let a = operand(site, 0)?;
    let b = operand(site, 1)?;
    let d = dy_array(dy)?;
    // The scalar rules' partials, elementwise, times the sensitivity: a zero sensitivity times
    // an infinite or NaN partial is 0, as `times` makes it. A zero partial that is a value of an
    // operand no input moves (a constant mask, `&x * &m` with `m` 0 or 1) is 0 on a
    // neighbourhood, and an infinite sensitivity times it is 0 too; but one of an operand that
    // depends on the inputs may hold at this point only (`x * x` at 0 under `sqrt`, or `cbrt`),
    // where the scalar sweep follows which zeros are limits and arrays are not followed element
    // by element: there the product is NaN, which the sweep refuses where it was made from
    // numbers (it gave `[0, 1]` for `[1, 1]`). The quotient's partial in `b` is `-(a / b) / b`:
    // `b²` overflows or underflows where it is a number; at an infinite `b` that depends on the
    // inputs its zeros (and `1 / b`'s) are only limits (`1 / (1 / x)` at 0, slope 1), NaN too.
    fn absorbing(p: f64, q: f64) -> f64 {
        crate::core::eval::times_lanes_f64(p, q).0
    }
    fn strict(p: f64, q: f64) -> f64 {
        if p == 0.0 {
            absorbing(p, q)
        } else {
            p * q
        }
    }
    let times = |x: &ArrayD<f64>, moves: bool| zip(&d, x, if moves { strict } else { absorbing });
    let (a_moves, b_moves) = (site.needs(0), site.needs(1));
    let limit = |slope: f64, b: f64| {
        if b.is_infinite() && b_moves {
            f64::NAN
        } else {
            slope
        }
    };
    let (da, db) = match op {
        Op::Add => (d.clone(), d),
        Op::Sub => (d.clone(), -d),
        Op::Mul => (times(&b, b_moves)?, times(&a, a_moves)?),
        Op::Div => {
            let q = &a / &b;
            let over_b = b.mapv(|b| limit(1.0 / b, b));
            let quotient = ndarray::Zip::from(&q)
                .and_broadcast(&b)
                .map_collect(|&q, &b| limit(-(q / b), b));
            (times(&over_b, b_moves)?, times(&quotient, true)?)
        }
    };
    out.push((0, Contribution::Whole(shaped(da, a.shape(), site, 0)?)));
    out.push((1, Contribution::Whole(shaped(db, b.shape(), site, 1)?)));
    Ok(())
}

/// `f(d, x)` elementwise, `x` broadcast to the shape of `d` (the operation's result).
fn zip(d: &ArrayD<f64>, x: &ArrayD<f64>, f: fn(f64, f64) -> f64) -> Result<ArrayD<f64>, String> {
    let x = x.broadcast(d.raw_dim()).ok_or_else(|| {
        format!(
            "an operand of shape {:?} does not broadcast to the result's {:?}",
            x.shape(),
            d.shape()
        )
    })?;
    Ok(ndarray::Zip::from(d).and(&x).map_collect(|&p, &q| f(p, q)))
}

/// A sensitivity reduced to an operand's shape: summed over the axes the operand was
/// broadcast along; a float operand gets the total.
fn shaped(g: ArrayD<f64>, shape: &[usize], site: &Site<'_>, i: usize) -> Result<Tangent, String> {
    if site.scalar(i).is_some() {
        return Ok(Tangent::Scalar(g.sum()));
    }
    let mut g = g;
    while g.ndim() > shape.len() {
        g = g.sum_axis(Axis(0));
    }
    for (axis, &n) in shape.iter().enumerate() {
        if n == 1 && g.shape()[axis] != 1 {
            g = g.sum_axis(Axis(axis)).insert_axis(Axis(axis));
        }
    }
    if g.shape() != shape {
        return Err(format!(
            "a sensitivity of shape {:?} does not fit an operand of shape {shape:?}",
            g.shape()
        ));
    }
    Ok(match site.primal(i) {
        Some(Primal::Vector(_)) => Tangent::Vector(g.iter().copied().collect()),
        _ => Tangent::from(g),
    })
}

fn dot(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> Result<(), String> {
    let a = array(site, 0).ok_or("the receiver of `dot` is not an array")?;
    let b = array(site, 1).ok_or("the argument of `dot` is not an array")?;
    let err = |e: ndarray::ShapeError| e.to_string();
    match (a.ndim(), b.ndim()) {
        (1, 1) => {
            let g = dy
                .as_scalar()
                .ok_or("the sensitivity of a dot product is a float")?;
            out.push((0, Contribution::Whole(Tangent::from(&b * g))));
            out.push((1, Contribution::Whole(Tangent::from(&a * g))));
        }
        (2, 1) => {
            let a = a.into_dimensionality::<Ix2>().map_err(err)?;
            let b = b.into_dimensionality::<Ix1>().map_err(err)?;
            let d = dy_array(dy)?.into_dimensionality::<Ix1>().map_err(err)?;
            if site.needs(0) {
                let da = outer(d.view(), b.view());
                out.push((0, Contribution::Whole(Tangent::from(da))));
            }
            if site.needs(1) {
                let db = transposed_times(a.view(), d.view());
                out.push((1, Contribution::Whole(Tangent::from(db))));
            }
        }
        (1, 2) => {
            let a = a.into_dimensionality::<Ix1>().map_err(err)?;
            let b = b.into_dimensionality::<Ix2>().map_err(err)?;
            let d = dy_array(dy)?.into_dimensionality::<Ix1>().map_err(err)?;
            out.push((0, Contribution::Whole(Tangent::from(b.dot(&d)))));
            out.push((
                1,
                Contribution::Whole(Tangent::from(outer(a.view(), d.view()))),
            ));
        }
        (2, 2) => {
            let a = a.into_dimensionality::<Ix2>().map_err(err)?;
            let b = b.into_dimensionality::<Ix2>().map_err(err)?;
            let d = dy_array(dy)?.into_dimensionality::<Ix2>().map_err(err)?;
            out.push((0, Contribution::Whole(Tangent::from(d.dot(&b.t())))));
            out.push((1, Contribution::Whole(Tangent::from(a.t().dot(&d)))));
        }
        (m, n) => return Err(format!("`dot` of {m}- and {n}-dimensional arrays")),
    }
    Ok(())
}

/// `aᵀ d`: the rows of `a` scaled by `d` and summed ([`rows_times`]) when they are contiguous.
/// ndarray's own `a.t().dot(&d)` walks the transposed matrix with strided reads, which took
/// five times the forward product `a.dot(&x)` on a 256×256 matrix (`benches/gradients.rs`,
/// `grad/matvec_256`).
fn transposed_times(
    a: ndarray::ArrayView2<'_, f64>,
    d: ndarray::ArrayView1<'_, f64>,
) -> Array1<f64> {
    let n = a.ncols();
    let (Some(m), Some(ds)) = (a.as_slice(), d.as_slice()) else {
        return a.t().dot(&d);
    };
    if n == 0 || ds.len() != a.nrows() {
        return a.t().dot(&d);
    }
    Array1::from(rows_times_widest(m, ds, n))
}

/// [`rows_times`] compiled for the widest vectors this CPU has: AVX's four `f64` lanes where it
/// has them, else the two of SSE2 that every x86-64 (and the crate's default target) has. The
/// same operations on each element in the same order, so the same result to the bit
/// (`widest_rows_times_is_the_portable_one`); 6.0 → 4.2 µs for `aᵀ d` at 256×256, 1.8 µs of
/// the 18.6 µs mat-vec gradient (`grad/matvec_256`, 2026-11-27, AMD EPYC).
fn rows_times_widest(m: &[f64], ds: &[f64], n: usize) -> Vec<f64> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx") {
        #[target_feature(enable = "avx")]
        #[allow(unsafe_code)]
        unsafe fn rows_times_avx(m: &[f64], ds: &[f64], n: usize) -> Vec<f64> {
            rows_times(m, ds, n)
        }
        // SAFETY: the only requirement of a `target_feature` function is that the CPU has the
        // feature, which was just checked.
        #[allow(unsafe_code)]
        return unsafe { rows_times_avx(m, ds, n) };
    }
    rows_times(m, ds, n)
}

/// `mᵀ ds` for the row-major `ds.len() × n` matrix `m`: its rows scaled by `ds` and summed,
/// eight rows per pass over the result. Each pass reads and writes the result once, so the
/// fewer passes, the less traffic besides the matrix's own (four rows per pass: 1.3× slower at
/// 256×256; sixteen no faster). Inlined into each caller, which decides the vectors' width.
#[inline(always)]
fn rows_times(m: &[f64], ds: &[f64], n: usize) -> Vec<f64> {
    let mut r = vec![0.0; n];
    let (blocks, rest) = m.split_at(m.len() / (8 * n) * (8 * n));
    for (block, d8) in blocks.chunks_exact(8 * n).zip(ds.chunks_exact(8)) {
        let row = |k: usize| &block[k * n..(k + 1) * n];
        let (a0, a1, a2, a3, a4, a5, a6, a7) = (
            row(0),
            row(1),
            row(2),
            row(3),
            row(4),
            row(5),
            row(6),
            row(7),
        );
        for (j, rj) in r.iter_mut().enumerate() {
            *rj += (d8[0] * a0[j] + d8[1] * a1[j] + d8[2] * a2[j] + d8[3] * a3[j])
                + (d8[4] * a4[j] + d8[5] * a5[j] + d8[6] * a6[j] + d8[7] * a7[j]);
        }
    }
    let tail = &ds[ds.len() / 8 * 8..];
    for (row, &di) in rest.chunks_exact(n).zip(tail) {
        for (rj, &aj) in r.iter_mut().zip(row) {
            *rj += di * aj;
        }
    }
    r
}

fn outer(a: ndarray::ArrayView1<'_, f64>, b: ndarray::ArrayView1<'_, f64>) -> Array2<f64> {
    let (n, m) = (a.len(), b.len());
    Array2::from_shape_fn((n, m), |(i, j)| a[i] * b[j])
}

fn unary_elementwise(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> Result<(), String> {
    let Some(Builtin::Method(f)) = site.builtin() else {
        return Err("not a float method".into());
    };
    let d = super::rules::unary_derivative(f).ok_or("no derivative")?;
    let a = array(site, 0).ok_or("not an array")?;
    let output = site.output();
    let y = array_primal(&output)
        .map(|y| y.into_owned())
        .unwrap_or_else(|| a.to_owned());
    let g = dy_array(dy)?;
    let mut da = a.to_owned();
    ndarray::Zip::from(&mut da)
        .and(&a)
        .and(&y)
        .and(&g)
        .for_each(|r, &x, &y, &g| *r = g * d(x, y));
    out.push((0, Contribution::Whole(Tangent::from(da))));
    Ok(())
}

/// `a.mapv(f)` where `f` is a float function named by its path (`f64::tanh`): the derivative
/// of `f` elementwise. The function is recognised by its fn item, recorded as the constant
/// argument of the call.
fn mapv(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> Result<(), String> {
    const CLOSURE: &str = "`mapv` of a closure: irtrack cannot see into a closure called by ndarray; pass a float method instead (`a.mapv(f64::tanh)`), or write `a.tanh()`";
    let arg = site.refs.get(1).copied().ok_or(CLOSURE)?;
    if arg.is_none() {
        return Err(CLOSURE.into());
    }
    let f = site
        .store
        .value(arg)
        .type_id()
        .and_then(float_fn_of)
        .ok_or_else(|| {
            format!(
                "`mapv` of `{}`, which has no elementwise rule",
                site.store.value(arg).type_name()
            )
        })?;
    let d = super::rules::unary_derivative(f).ok_or_else(|| {
        format!(
            "`mapv` of `f64::{}`, which has no derivative rule",
            f.name()
        )
    })?;
    let a = array(site, 0).ok_or("not an array")?;
    let g = dy_array(dy)?;
    let mut da = a.to_owned();
    ndarray::Zip::from(&mut da)
        .and(&a)
        .and(&g)
        .for_each(|r, &x, &g| *r = g * d(x, f.eval_f64(&[x], None).unwrap_or(f64::NAN)));
    out.push((0, Contribution::Whole(Tangent::from(da))));
    Ok(())
}

/// `a[i]` on a one-dimensional array, `a[[i, j]]` on a two-dimensional one.
fn index(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> Result<(), String> {
    let a = array(site, 0).ok_or("not an array")?;
    let g = dy
        .as_scalar()
        .ok_or("an element's sensitivity is a float")?;
    let at: Vec<usize> = match site.integer(1) {
        Some(i) => vec![i as usize],
        None => match site.value(1) {
            Some(v) => {
                if let Some(ix) = v.downcast_ref::<[usize; 2]>() {
                    ix.to_vec()
                } else if let Some(ix) = v.downcast_ref::<(usize, usize)>() {
                    vec![ix.0, ix.1]
                } else if let Some(ix) = v.downcast_ref::<[usize; 3]>() {
                    ix.to_vec()
                } else {
                    return Err(format!("an index of type `{}`", v.type_name()));
                }
            }
            None => {
                let text = site.literal(1).ok_or("unknown index")?;
                text.trim_matches(|c| c == '[' || c == ']' || c == '(' || c == ')')
                    .split(',')
                    .map(|s| {
                        crate::core::literal::as_i64(s)
                            .and_then(|i| usize::try_from(i).ok())
                            .ok_or_else(|| format!("`{text}` is not an index"))
                    })
                    .collect::<Result<_, _>>()?
            }
        },
    };
    let mut d = ArrayD::zeros(a.raw_dim());
    *d.get_mut(IxDyn(&at)).ok_or("index out of bounds")? = g;
    out.push((0, Contribution::Whole(Tangent::from(d))));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel compiled for the widest vectors gives the portable one's result to the bit,
    /// on shapes with and without tails (of rows, and of columns for the vectors' lanes),
    /// with values of every magnitude, whose sums round differently in any other order.
    #[test]
    fn widest_rows_times_is_the_portable_one() {
        for (rows, cols) in [(256, 256), (19, 7), (8, 1), (3, 5), (33, 130)] {
            let m: Vec<f64> = (0..rows * cols)
                .map(|k| ((k * 7919 % 1013) as f64 - 506.0) * 10f64.powi((k % 17) as i32 - 8))
                .collect();
            let ds: Vec<f64> = (0..rows).map(|i| (i as f64 * 0.61).sin() * 1e3).collect();
            let wide = rows_times_widest(&m, &ds, cols);
            let portable = rows_times(&m, &ds, cols);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&wide), bits(&portable), "{rows}×{cols}");
        }
    }

    /// `aᵀ d` by rows against the product written out, on shapes with and without a tail of
    /// fewer than eight rows, and on a transposed (non-contiguous) matrix.
    #[test]
    fn transposed_times_is_the_transposed_product() {
        for (rows, cols) in [(8, 5), (7, 3), (1, 4), (3, 1), (256, 256)] {
            let a = Array2::from_shape_fn((rows, cols), |(i, j)| {
                ((i * 31 + j * 17) % 13) as f64 / 7.0 - 0.9
            });
            let d = Array1::from_shape_fn(rows, |i| (i as f64 * 0.37).sin());
            let r = transposed_times(a.view(), d.view());
            for j in 0..cols {
                let truth: f64 = (0..rows).map(|i| a[[i, j]] * d[i]).sum();
                assert!((r[j] - truth).abs() <= 1e-12 * truth.abs().max(1.0));
            }
            let t = a.t();
            let e = Array1::from_shape_fn(cols, |j| j as f64 - 1.5);
            let r = transposed_times(t, e.view());
            for i in 0..rows {
                let truth: f64 = (0..cols).map(|j| a[[i, j]] * e[j]).sum();
                assert!((r[i] - truth).abs() <= 1e-12 * truth.abs().max(1.0));
            }
        }
    }
}
