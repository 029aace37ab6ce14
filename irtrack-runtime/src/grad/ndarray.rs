//! Gradient rules for `ndarray` arrays of floats: elementwise arithmetic with broadcasting
//! (scalars included), the float methods elementwise, `dot`, `t()`, `sum`, `mean`, `mapv` of a
//! float function, indexing, and conversions from vectors.

use super::primal::Primal;
use super::rules::{Contribution, Out, Rule};
use super::site::{canonical, Site};
use super::tangent::Tangent;
use crate::ir::EntryKind;
use crate::value::Value;
use ndarray::{Array1, Array2, ArrayD, Axis, CowArray, Ix1, Ix2, IxDyn};

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
    use ndarray::{Array0, Array3, Array4};
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

fn array<'a>(site: &Site<'a>, i: usize) -> Option<CowArray<'a, f64, IxDyn>> {
    match site.primal(i)? {
        Primal::Array(a) => Some(a),
        _ => None,
    }
}

fn is_array(site: &Site<'_>, i: usize) -> bool {
    site.value(i).is_some_and(|v| array_primal(v).is_some())
}

/// The rule for an array operation, if the site is one.
pub(crate) fn rule(site: &Site<'_>) -> Option<Rule> {
    let head = site.head();
    match site.kind() {
        EntryKind::Operator => {
            let any_array = (0..site.len()).any(|i| is_array(site, i));
            if !any_array {
                return None;
            }
            Some(match (head, site.len()) {
                ("-", 1) => Rule::General(|_, dy, out| {
                    out.push((0, Contribution::Whole(dy.scaled(-1.0))));
                    Ok(())
                }),
                ("+" | "+=", 2) => Rule::General(|s, dy, out| elementwise(s, dy, out, Op::Add)),
                ("-" | "-=", 2) => Rule::General(|s, dy, out| elementwise(s, dy, out, Op::Sub)),
                ("*" | "*=", 2) => Rule::General(|s, dy, out| elementwise(s, dy, out, Op::Mul)),
                ("/" | "/=", 2) => Rule::General(|s, dy, out| elementwise(s, dy, out, Op::Div)),
                _ => return None,
            })
        }
        EntryKind::MethodCall if is_array(site, 0) => Some(match head {
            "dot" => Rule::General(dot),
            "t" | "reversed_axes" => Rule::General(|_, dy, out| {
                let d = dy_array(dy)?;
                out.push((0, Contribution::Whole(Tangent::from(d.reversed_axes()))));
                Ok(())
            }),
            "sum" => Rule::General(|s, dy, out| spread(s, dy, out, false)),
            "mean" => Rule::General(|s, dy, out| spread(s, dy, out, true)),
            "to_owned" | "clone" | "view" | "into_owned" | "into_dyn" => Rule::PassThrough,
            "mapv" | "map" => Rule::General(mapv),
            "index" => Rule::General(index),
            name if super::rules::has_unary(name) && site.len() == 1 => {
                Rule::General(unary_elementwise)
            }
            "powi" => Rule::General(|s, dy, out| {
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
        EntryKind::Call if site.head() == "index" && is_array(site, 0) => {
            Some(Rule::General(index))
        }
        EntryKind::Call => {
            let callee = canonical(site.store.callee(site.node)?);
            let from_vector = callee.starts_with("ndarray::")
                && (callee.ends_with("::from_vec") || callee.ends_with("::from"));
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
    let (da, db) = match op {
        Op::Add => (d.clone(), d),
        Op::Sub => (d.clone(), -d),
        Op::Mul => (&d * &b, &d * &a),
        Op::Div => (&d / &b, -(&d * &a) / (&b * &b)),
    };
    out.push((0, Contribution::Whole(shaped(da, a.shape(), site, 0)?)));
    out.push((1, Contribution::Whole(shaped(db, b.shape(), site, 1)?)));
    Ok(())
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
                out.push((1, Contribution::Whole(Tangent::from(a.t().dot(&d)))));
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

fn outer(a: ndarray::ArrayView1<'_, f64>, b: ndarray::ArrayView1<'_, f64>) -> Array2<f64> {
    let (n, m) = (a.len(), b.len());
    Array2::from_shape_fn((n, m), |(i, j)| a[i] * b[j])
}

fn unary_elementwise(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> Result<(), String> {
    let d = super::rules::unary_derivative(site.head()).ok_or("no derivative")?;
    let a = array(site, 0).ok_or("not an array")?;
    let y = array_primal(site.output())
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

/// `a.mapv(f)` where `f` is a float function the trace names (`f64::tanh`, or a function with
/// a rule of its own is not supported): the derivative of `f` elementwise.
fn mapv(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> Result<(), String> {
    let f = site
        .value(1)
        .map(|v| canonical(v.type_name()))
        .ok_or("`mapv` of a closure: irtrack cannot see into a closure called by ndarray; pass a float method instead (`a.mapv(f64::tanh)`), or write `a.tanh()`")?;
    let name = f
        .strip_prefix("f64::")
        .or_else(|| f.strip_prefix("f32::"))
        .ok_or_else(|| format!("`mapv` of `{f}`, which has no elementwise rule"))?;
    let d = super::rules::unary_derivative(name)
        .ok_or_else(|| format!("`mapv` of `{f}`, which has no derivative rule"))?;
    let a = array(site, 0).ok_or("not an array")?;
    let g = dy_array(dy)?;
    let mut da = a.to_owned();
    ndarray::Zip::from(&mut da)
        .and(&a)
        .and(&g)
        .for_each(|r, &x, &g| *r = g * d(x, f64_apply(name, x)));
    out.push((0, Contribution::Whole(Tangent::from(da))));
    Ok(())
}

/// `f(x)` for the float methods whose derivative uses the value (`tanh`, `exp`, `sqrt`...).
fn f64_apply(name: &str, x: f64) -> f64 {
    match name {
        "tanh" => x.tanh(),
        "exp" => x.exp(),
        "exp2" => x.exp2(),
        "exp_m1" => x.exp_m1(),
        "sqrt" => x.sqrt(),
        "cbrt" => x.cbrt(),
        _ => f64::NAN,
    }
}

/// `a[i]` on a one-dimensional array, `a[[i, j]]` on a two-dimensional one.
fn index(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> Result<(), String> {
    let a = array(site, 0).ok_or("not an array")?;
    let g = dy
        .as_scalar()
        .ok_or("an element's sensitivity is a float")?;
    let at: Vec<usize> = match site.integer(1) {
        Some(i) => vec![i as usize],
        None => {
            let text = site
                .value(1)
                .map(|v| v.to_string())
                .or_else(|| site.literal(1).map(str::to_string))
                .ok_or("unknown index")?;
            text.trim_matches(|c| c == '[' || c == ']' || c == '(' || c == ')')
                .split(',')
                .map(|s| s.trim().parse::<usize>().map_err(|e| e.to_string()))
                .collect::<Result<_, _>>()?
        }
    };
    let mut d = ArrayD::zeros(a.raw_dim());
    *d.get_mut(IxDyn(&at)).ok_or("index out of bounds")? = g;
    out.push((0, Contribution::Whole(Tangent::from(d))));
    Ok(())
}
