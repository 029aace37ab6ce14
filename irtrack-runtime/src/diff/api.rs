//! Entry points on tracked functions: `jvp`, `vjp`, `jacobian`, `hessian`. Each records the
//! function once, builds the program of the recorded path (differentiable arguments dynamic,
//! the others fixed) and differentiates it.

use super::error::DiffError;
use super::forward::differentiate;
use super::graph::{shape, Kind};
use super::reverse::reverse;
use super::stage::Staged;
use crate::core::eval::take_absorbed;
use crate::core::value::{Snapshot, Value};
use crate::program::{Args, Input, Program};
use crate::record::session::{track_output, Callable};
use crate::view::trace::{Arg, Trace};
use std::fmt;

/// The value of a function and its directional derivative ([`jvp`]).
#[derive(Clone, Debug)]
pub struct Jvp<T> {
    /// What the function returned.
    pub value: T,
    /// `f'(x)·v`, of the output's type.
    pub tangent: Value,
}

/// The value of a function and the cotangents of its arguments ([`vjp`]).
#[derive(Clone, Debug)]
pub struct Vjp<T> {
    /// What the function returned.
    pub value: T,
    /// `uᵀ ∂f/∂xᵢ` for each argument, of its type; `None` for an argument that is not
    /// differentiable (an integer, a `bool`, anything but floats, `Vec<f64>` and arrays of
    /// `f64`).
    pub cotangents: Vec<Option<Value>>,
}

/// A dense matrix of `f64`, stored column by column (a Jacobian or Hessian is built a column
/// at a time).
///
/// ```
/// use irtrack::diff::Matrix;
///
/// let m = Matrix::from_columns(2, vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
/// assert_eq!(m[(0, 1)], 3.0);
/// assert_eq!(m.row(1), vec![2.0, 4.0]);
/// ```
#[derive(Clone, PartialEq)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    /// Column-major.
    data: Vec<f64>,
}

impl Matrix {
    /// A matrix of `rows` rows from its columns.
    ///
    /// # Panics
    /// When a column does not have `rows` elements.
    pub fn from_columns(rows: usize, columns: Vec<Vec<f64>>) -> Matrix {
        let cols = columns.len();
        let mut data = Vec::with_capacity(rows * cols);
        for c in columns {
            assert_eq!(
                c.len(),
                rows,
                "a column of {} elements, not {rows}",
                c.len()
            );
            data.extend(c);
        }
        Matrix { rows, cols, data }
    }

    /// How many rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// How many columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> Vec<f64> {
        (0..self.cols).map(|j| self[(i, j)]).collect()
    }

    /// Column `j`.
    pub fn column(&self, j: usize) -> &[f64] {
        &self.data[j * self.rows..(j + 1) * self.rows]
    }

    /// The elements, column by column.
    pub fn as_column_major(&self) -> &[f64] {
        &self.data
    }
}

impl std::ops::Index<(usize, usize)> for Matrix {
    type Output = f64;
    fn index(&self, (i, j): (usize, usize)) -> &f64 {
        assert!(
            i < self.rows && j < self.cols,
            "({i}, {j}) out of a {}×{} matrix",
            self.rows,
            self.cols
        );
        &self.data[j * self.rows + i]
    }
}

impl fmt::Debug for Matrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows: Vec<Vec<f64>> = (0..self.rows).map(|i| self.row(i)).collect();
        f.debug_struct("Matrix").field("rows", &rows).finish()
    }
}

/// How [`hessian_by`] builds a Hessian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HessianMethod {
    /// Differentiate the reverse (gradient) program forward: `n` Hessian-vector products,
    /// each the cost of a few evaluations of `f`.
    ForwardOverReverse,
    /// Differentiate forward twice, as FrechetDiff does: `f''(x)(eᵢ, eⱼ)` for every pair,
    /// `n²` evaluations of the last stage.
    ForwardOverForward,
}

/// The trace of `f(args)`, the program of its path with the differentiable arguments dynamic,
/// and which arguments those are.
fn program_of<F, A>(f: F, args: A) -> Result<(F::Output, Trace, Program, Vec<usize>), DiffError>
where
    F: Callable<A>,
{
    let (value, trace) = track_output(f, args);
    let values = arguments(&trace);
    let inputs: Vec<Input> = values
        .iter()
        .map(|v| {
            if Kind::of(v).differentiable() {
                Input::Dynamic
            } else {
                Input::Static
            }
        })
        .collect();
    let wrt = (0..inputs.len())
        .filter(|&k| inputs[k] == Input::Dynamic)
        .collect();
    let program =
        Program::from_trace(&trace, &inputs).map_err(|e| higher_order(&trace, e.into()))?;
    if let Some(e) = gradient_rule_in(&trace) {
        return Err(e);
    }
    // A zero slope that is only a limit meeting an infinite one: the chain rule's `0 · ∞`,
    // which the derivative program's kernels would make 0. The gradient's sweep sees where;
    // the product of the slopes along a path is the same in every mode.
    if let Some(e) = crate::grad::limit(&trace) {
        return Err(DiffError::Limit(Box::new(e)));
    }
    Ok((value, trace, program, wrt))
}

/// The first call of the trace a rule registered with `grad::register_rule` applies to, as an
/// error: derivative programs differentiate with `diff`'s rules, so they would differentiate
/// the body (or the float method's own rule) where `gradient` applies the registered one (300
/// against -1.44 for a rule given to `f64::cos`; a tester, 2026-11-28).
fn gradient_rule_in(trace: &Trace) -> Option<DiffError> {
    let (id, operation) = crate::grad::registered_rule_in(trace)?;
    Some(DiffError::NoRule {
        operation,
        at: crate::program::build::origin(trace.root().at(id)),
        hint: "a rule registered with `irtrack::grad::register_rule` applies to it, which \
               derivative programs do not read (they differentiate with `diff`'s rules): give \
               it a rule with `diff::Rules` and `differentiate_with`, or take the gradient with \
               `irtrack::gradient`"
            .to_string(),
    })
}

/// `cause`, or [`DiffError::HigherOrder`] naming the call inside which another recording ran
/// (a derivative taken inside `f`), which is why a program of `f` cannot be built: the
/// builder's own error would name whichever node it met first.
fn higher_order(trace: &Trace, cause: DiffError) -> DiffError {
    let Some(id) = trace.store.first_recording_inside() else {
        return cause;
    };
    DiffError::HigherOrder {
        at: crate::program::build::origin(trace.root().at(id)),
        cause: Box::new(cause),
    }
}

fn arguments(trace: &Trace) -> Vec<Value> {
    trace
        .root()
        .arguments()
        .into_iter()
        .map(|a| match a {
            Arg::Node(n) => n.raw_value(),
            Arg::Const(c) => crate::core::literal::value(c),
        })
        .collect()
}

/// Checks that `given` can stand for a direction of `like` (same type and shape).
fn check_direction(index: usize, like: &Value, given: &Value) -> Result<(), DiffError> {
    let fits =
        Kind::of(like) == Kind::of(given) && given.same_type(like) && shape(like) == shape(given);
    if fits {
        return Ok(());
    }
    let describe = |v: &Value| match shape(v) {
        Some(s) if !s.is_empty() => format!("{} of shape {s:?}", v.type_name()),
        _ => v.type_name().to_string(),
    };
    Err(DiffError::Direction {
        index,
        expected: describe(like),
        given: describe(given),
    })
}

/// The value of `f` at `args` and its directional derivative `f'(x)·v` along `tangents`: one
/// tangent per argument, of the argument's type, and `()` for an argument that is not
/// differentiable (an integer, a `bool`, …).
///
/// ```
/// use irtrack::diff::jvp;
/// use irtrack::tracked;
///
/// #[tracked]
/// fn f(x: f64, y: f64, n: i32) -> f64 {
///     x.powi(n) * y
/// }
///
/// // ∂f/∂x · 1 + ∂f/∂y · 2 = 3 x² y + 2 x³ at (2, 5).
/// let j = jvp(f, (2.0, 5.0, 3), (1.0, 2.0, ())).unwrap();
/// assert_eq!(j.value, 40.0);
/// assert_eq!(j.tangent.as_f64(), Some(76.0));
/// ```
///
/// # Errors
/// [`DiffError::Direction`] for a tangent of the wrong type or shape, and those of
/// [`differentiate`](super::differentiate) and of building the program
/// ([`DiffError::Replay`]).
pub fn jvp<F, A, T>(f: F, args: A, tangents: T) -> Result<Jvp<F::Output>, DiffError>
where
    F: Callable<A>,
    T: Args,
{
    let tangents = tangents.into_values();
    let (value, trace, program, wrt) = program_of(f, args)?;
    let values = arguments(&trace);
    if tangents.len() != values.len() {
        return Err(DiffError::Replay(crate::program::ReplayError::Arity {
            expected: values.len(),
            got: tangents.len(),
        }));
    }
    for (k, (x, t)) in values.iter().zip(&tangents).enumerate() {
        if wrt.contains(&k) {
            check_direction(k, x, t)?;
        } else if !t.is_unit() {
            // A fixed-size array or a slice of floats: differentiable to `gradient`, not here.
            if x.floats().is_some() {
                return Err(DiffError::Input {
                    index: k,
                    reason: format!("a `{}` {NOT_A_PROGRAM_TANGENT}", x.type_name()),
                });
            }
            return Err(DiffError::Direction {
                index: k,
                expected: "()".into(),
                given: t.type_name().to_string(),
            });
        }
    }
    let d = differentiate(&program, &wrt)?;
    let mut call = values;
    call.extend(wrt.iter().map(|&k| tangents[k].clone()));
    let tangent = d.call(call.clone())?;
    numbers(&d, &call, &trace, &tangent)?;
    let tangent = nan_where_no_value(tangent, &trace.root().raw_value());
    Ok(Jvp { value, tangent })
}

/// The value of `f` at `args` and `uᵀ f'(x)` for the cotangent `u` of its output: one
/// cotangent per argument (`None` for those that are not differentiable). With a float output
/// and `u = 1.0` this is the gradient.
///
/// ```
/// use irtrack::diff::vjp;
/// use irtrack::tracked;
///
/// #[tracked]
/// fn f(x: Vec<f64>, k: f64) -> Vec<f64> {
///     let a = x[0] * k;
///     let b = x[1] * x[0];
///     vec![a, b]
/// }
///
/// let r = vjp(f, (vec![2.0, 3.0], 10.0), vec![1.0, 1.0]).unwrap();
/// assert_eq!(r.cotangents[0].as_ref().unwrap().downcast_ref::<Vec<f64>>(), Some(&vec![13.0, 2.0]));
/// assert_eq!(r.cotangents[1].as_ref().unwrap().as_f64(), Some(2.0));
/// ```
///
/// # Errors
/// [`DiffError::Direction`] for a cotangent of another type or shape than the output, and
/// those of [`reverse`](super::reverse).
pub fn vjp<F, A>(f: F, args: A, cotangent: impl Snapshot) -> Result<Vjp<F::Output>, DiffError>
where
    F: Callable<A>,
{
    let u = cotangent.snapshot();
    let (value, trace, program, wrt) = program_of(f, args)?;
    let out = trace.root().raw_value();
    check_direction(0, &out, &u)?;
    let values = arguments(&trace);
    let mut cotangents = vec![None; values.len()];
    for &k in &wrt {
        let r = reverse(&program, k)?;
        let mut call = values.clone();
        call.push(u.clone());
        let cotangent = r.call(call.clone())?;
        numbers(&r, &call, &trace, &cotangent)?;
        cotangents[k] = Some(cotangent);
    }
    // An output element with no value that `u` reads: no derivative of the whole.
    let read_without_value = match (elements(&out), elements(&u)) {
        (Some(y), Some(u)) => y.iter().zip(&u).any(|(y, u)| y.is_nan() && *u != 0.0),
        _ => false,
    };
    if read_without_value {
        for c in cotangents.iter_mut().flatten() {
            *c = all_nan(c);
        }
    }
    Ok(Vjp { value, cotangents })
}

/// The basis of `x`'s space (a float, a `Vec<f64>` or a 1-D array), each vector made when it
/// is asked for.
struct Basis {
    kind: Kind,
    len: usize,
}

impl Basis {
    fn of(x: &Value) -> Result<Basis, DiffError> {
        let kind = Kind::of(x);
        let len = match kind {
            Kind::Float(_) => 1,
            Kind::Vector => x.float_elements().map_or(0, |e| e.len()),
            #[cfg(feature = "ndarray")]
            Kind::Array(1) => x.float_elements().map_or(0, |e| e.len()),
            _ => {
                return Err(DiffError::Input {
                    index: 0,
                    reason: format!(
                        "a Jacobian or Hessian is taken with respect to a float, a `Vec<f64>` or \
                         a 1-D array of `f64`, not a `{}`",
                        x.type_name()
                    ),
                })
            }
        };
        Ok(Basis { kind, len })
    }

    /// `eⱼ`, of `x`'s type.
    fn vector(&self, j: usize) -> Value {
        match self.kind {
            Kind::Float(crate::core::op::ScalarType::F32) => 1.0f32.snapshot(),
            Kind::Float(_) => 1.0f64.snapshot(),
            #[cfg(feature = "ndarray")]
            Kind::Array(_) => {
                let mut e = ndarray::Array1::zeros(self.len);
                e[j] = 1.0;
                crate::core::arrays::array_value(e)
            }
            _ => {
                let mut e = vec![0.0; self.len];
                e[j] = 1.0;
                Value::snapshot(e)
            }
        }
    }
}

fn column(v: &Value, what: &str) -> Result<Vec<f64>, DiffError> {
    let mut out = Vec::new();
    append_column(v, what, &mut out)?;
    Ok(out)
}

/// Appends the elements of `v` to `out` (a matrix being filled column by column, without a
/// copy of the column in between) and says how many there were.
fn append_column(v: &Value, what: &str, out: &mut Vec<f64>) -> Result<usize, DiffError> {
    if let Some(x) = v.by_value().as_f64() {
        out.push(x);
        return Ok(1);
    }
    #[cfg(feature = "ndarray")]
    if let Some(a) = crate::core::arrays::array_primal(v) {
        match a.as_slice() {
            Some(s) => out.extend_from_slice(s),
            None => out.extend(a.iter().copied()),
        }
        return Ok(a.len());
    }
    if let Some(x) = v.floats() {
        out.extend_from_slice(&x);
        return Ok(x.len());
    }
    Err(DiffError::Output {
        reason: format!(
            "{what} needs a float, `Vec<f64>` or array output, and the derivative is a `{}`",
            v.type_name()
        ),
    })
}

/// The Jacobian of `f` with respect to its first argument at `args` (the other arguments held
/// at their values): one column per element of the argument, each a directional derivative
/// along a basis vector, with what depends only on `args` computed once.
///
/// ```
/// use irtrack::diff::jacobian;
/// use irtrack::tracked;
///
/// #[tracked]
/// fn f(x: Vec<f64>) -> Vec<f64> {
///     let a = x[0] * x[1];
///     let b = x[1].sin();
///     vec![a, b]
/// }
///
/// let j = jacobian(f, (vec![2.0, 0.0],)).unwrap();
/// assert_eq!(j.row(0), vec![0.0, 2.0]);
/// assert_eq!(j.row(1), vec![0.0, 1.0]);
/// ```
///
/// # Errors
/// [`DiffError::Input`] when the first argument is not a float, a `Vec<f64>` or a 1-D array,
/// and those of [`differentiate`](super::differentiate).
pub fn jacobian<F, A>(f: F, args: A) -> Result<Matrix, DiffError>
where
    F: Callable<A>,
{
    let (_, trace, program, wrt) = program_of(f, args)?;
    let values = arguments(&trace);
    first_differentiable(&wrt, &values)?;
    let d = differentiate(&program, &[0])?;
    let staged = Staged::new(&d)?;
    let v = values.len();
    let mut inputs = values.clone();
    inputs.push(values[0].clone());
    let mut env = staged.env(inputs);
    let _ = take_absorbed();
    staged.run(&mut env, 0, &[])?;
    let early = take_absorbed();
    let basis = Basis::of(&values[0])?;
    let rows = column(&trace.root().raw_value(), "a Jacobian")?.len();
    let mut columns = Vec::with_capacity(basis.len);
    // One environment for every column, as in `hessian_by`.
    let mut at = env;
    for j in 0..basis.len {
        staged.run(&mut at, 1, &[(v, basis.vector(j))])?;
        let out = staged.output(&at);
        let c = column(&out, "a Jacobian")?;
        let absorbed = take_absorbed() || early;
        if absorbed || c.iter().any(|x| !x.is_finite()) {
            let mut call = values.clone();
            call.push(basis.vector(j));
            vouch(&d, &call, &trace, &out)?;
        }
        columns.push(c);
    }
    // The rows of output elements with no value: no derivative.
    if let Some(y) = elements(&trace.root().raw_value()) {
        for c in &mut columns {
            for (v, y) in c.iter_mut().zip(&y) {
                if y.is_nan() {
                    *v = f64::NAN;
                }
            }
        }
    }
    Ok(Matrix::from_columns(rows, columns))
}

/// The float elements of a float, a vector or an array of floats (as a matrix's column).
fn elements(v: &Value) -> Option<Vec<f64>> {
    column(v, "").ok()
}

/// `v` with every float element NaN (a float, a `Vec` of `f64` or `f32`, an array).
fn all_nan(v: &Value) -> Value {
    let v = v.by_value();
    if let Some(&x) = v.downcast_ref::<f32>() {
        return (x * f32::NAN).snapshot();
    }
    if v.as_f64().is_some() {
        return f64::NAN.snapshot();
    }
    if let Some(x) = v.downcast_ref::<Vec<f64>>() {
        return Value::snapshot(vec![f64::NAN; x.len()]);
    }
    if let Some(x) = v.downcast_ref::<Vec<f32>>() {
        return Value::snapshot(vec![f32::NAN; x.len()]);
    }
    #[cfg(feature = "ndarray")]
    if let Some(a) = crate::core::arrays::array_primal(&v) {
        let nan = a.mapv(|_| f64::NAN);
        if let Ok(a1) = nan.clone().into_dimensionality::<ndarray::Ix1>() {
            return crate::core::arrays::array_value(a1);
        }
        if let Ok(a2) = nan.into_dimensionality::<ndarray::Ix2>() {
            return crate::core::arrays::array_value(a2);
        }
    }
    v
}

/// A derivative `t` of the output `y`, NaN where `y` has no value (its elements that are NaN;
/// all of it for a float output): `differentiate` does it for a float output, this for the
/// elements of vectors.
fn nan_where_no_value(t: Value, y: &Value) -> Value {
    let Some(ys) = elements(y) else {
        return t;
    };
    if !ys.iter().any(|y| y.is_nan()) {
        return t;
    }
    if ys.len() == 1 {
        return all_nan(&t);
    }
    match t.by_value().downcast_ref::<Vec<f64>>() {
        Some(ts) if ts.len() == ys.len() => Value::snapshot(
            ts.iter()
                .zip(&ys)
                .map(|(t, y)| if y.is_nan() { f64::NAN } else { *t })
                .collect::<Vec<f64>>(),
        ),
        _ => all_nan(&t),
    }
}

/// Checks a derivative computed in stages (`Staged`, which keeps none of the bookkeeping of
/// `program::limit`) where a product absorbed an infinity or the result is not finite: the
/// program run on `inputs` as `Program::call` runs it, which returns the same value or the
/// error that says why it is none (a zero that is only a limit or holds at this point only
/// meeting ∞, an overflow, a NaN made from numbers).
fn vouch(p: &Program, inputs: &[Value], trace: &Trace, result: &Value) -> Result<(), DiffError> {
    p.call(inputs.to_vec())?;
    numbers(p, inputs, trace, result)
}

/// `Err` when the derivative `result` of the program `p` run on `inputs` has a NaN made from
/// numbers, which no derivative is ([`DiffError::Indeterminate`] names the operation). A NaN
/// in the inputs or in the function's value is the function's own and passes through.
fn numbers(p: &Program, inputs: &[Value], trace: &Trace, result: &Value) -> Result<(), DiffError> {
    if !has_nan(result) || has_nan(&trace.root().raw_value()) || inputs.iter().any(has_nan) {
        return Ok(());
    }
    match p.nan_birth(inputs) {
        Some((at, operation)) => Err(DiffError::Indeterminate { operation, at }),
        None => Ok(()),
    }
}

fn has_nan(v: &Value) -> bool {
    v.any_float(f64::is_nan)
}

/// Why a fixed-size array or a slice of floats has no direction in a derivative program.
const NOT_A_PROGRAM_TANGENT: &str = "is not differentiated by derivative programs, which take \
    `f64`, `f32`, `Vec<f64>` and 1-D `ndarray` arrays: take it as a `Vec<f64>` (`gradient` takes \
    fixed-size arrays and slices of floats too)";

fn first_differentiable(wrt: &[usize], values: &[Value]) -> Result<(), DiffError> {
    if wrt.first() == Some(&0) {
        return Ok(());
    }
    let first = values.first();
    let reason = match first {
        Some(v) if v.floats().is_some() => format!(
            "the first argument, which a Jacobian or Hessian is taken with respect to, is a \
             `{}`, which {NOT_A_PROGRAM_TANGENT}",
            v.type_name()
        ),
        _ => format!(
            "the first argument, which a Jacobian or Hessian is taken with respect to, is a \
             `{}`, which has no derivative: put the differentiated argument first",
            first.map_or("()", |v| v.type_name())
        ),
    };
    Err(DiffError::Input { index: 0, reason })
}

/// The Hessian of `f` (with a float output) with respect to its first argument at `args`, the
/// other arguments held at their values, by the faster method measured
/// ([`HessianMethod::ForwardOverReverse`]; `benches/diff.rs`).
///
/// ```
/// use irtrack::diff::hessian;
/// use irtrack::tracked;
///
/// #[tracked]
/// fn f(x: Vec<f64>) -> f64 {
///     x[0] * x[0] * x[1]
/// }
///
/// let h = hessian(f, (vec![3.0, 2.0],)).unwrap();
/// assert_eq!(h.row(0), vec![4.0, 6.0]);
/// assert_eq!(h.row(1), vec![6.0, 0.0]);
/// ```
///
/// # Errors
/// [`DiffError::Output`] when `f` does not return a float, and those of [`jacobian`].
pub fn hessian<F, A>(f: F, args: A) -> Result<Matrix, DiffError>
where
    F: Callable<A>,
{
    hessian_by(f, args, HessianMethod::ForwardOverReverse)
}

/// [`hessian`] by the method `method`.
///
/// ```
/// use irtrack::diff::{hessian_by, HessianMethod};
/// use irtrack::tracked;
///
/// #[tracked]
/// fn f(x: Vec<f64>) -> f64 {
///     x[0] * x[0] * x[1]
/// }
///
/// let a = hessian_by(f, (vec![3.0, 2.0],), HessianMethod::ForwardOverForward).unwrap();
/// let b = hessian_by(f, (vec![3.0, 2.0],), HessianMethod::ForwardOverReverse).unwrap();
/// assert_eq!(a, b);
/// ```
///
/// # Errors
/// As [`hessian`].
pub fn hessian_by<F, A>(f: F, args: A, method: HessianMethod) -> Result<Matrix, DiffError>
where
    F: Callable<A>,
{
    let (_, trace, program, wrt) = program_of(f, args)?;
    let values = arguments(&trace);
    first_differentiable(&wrt, &values)?;
    let out = trace.root().raw_value();
    if !matches!(Kind::of(&out), Kind::Float(_)) {
        return Err(DiffError::Output {
            reason: format!(
                "a Hessian needs a float output, and `{}` returns a `{}`",
                program.name(),
                out.type_name()
            ),
        });
    }
    let basis = Basis::of(&values[0])?;
    let n = basis.len;
    let v = values.len();
    // No value, no derivative (the formula's other terms may be numbers: `x.ln() + x * x` at
    // -2 had the Hessian 2).
    if out.by_value().as_f64().is_some_and(f64::is_nan) {
        return Ok(Matrix {
            rows: n,
            cols: n,
            data: vec![f64::NAN; n * n],
        });
    }
    match method {
        HessianMethod::ForwardOverReverse => {
            // (x…, u) ↦ uᵀ f'(x), then (x…, u, w) ↦ u f''(x) w.
            let g = reverse(&program, 0)?;
            let h = differentiate(&g, &[0])?;
            let staged = Staged::new(&h)?;
            let one = if matches!(
                Kind::of(&out),
                Kind::Float(crate::core::op::ScalarType::F32)
            ) {
                1.0f32.snapshot()
            } else {
                1.0f64.snapshot()
            };
            let mut inputs = values.clone();
            inputs.push(one.clone());
            inputs.push(values[0].clone());
            let mut env = staged.env(inputs);
            let _ = take_absorbed();
            staged.run(&mut env, 0, &[])?;
            staged.run(&mut env, 1, &[])?;
            let early = take_absorbed();
            // Each column is written straight into the matrix, each basis vector made when its
            // column is: at n = 10⁴ the basis alone would be as large as the Hessian (800 MB).
            let mut data = Vec::with_capacity(n * n);
            // One environment serves every column: each operation of the last stage replaces
            // its value of the last column once the new one is made, so the heap never has a
            // column's worth of arrays free at its top, which glibc's malloc would return to the
            // system (past 128 KB) for every array of the next column to fault its pages in
            // again (5× the time of the column at n = 10⁴, `benches/diff.rs`).
            let mut at = env;
            for j in 0..n {
                staged.run(&mut at, 2, &[(v + 1, basis.vector(j))])?;
                let out = staged.output(&at);
                let len = append_column(&out, "a Hessian", &mut data)?;
                // Checked where it was just written (a copy of each column would cost a tenth
                // of the whole at n = 10⁴).
                // (a fold without an early exit, which vectorises).
                let odd = data[data.len() - len..]
                    .iter()
                    .fold(false, |a, x| a | !x.is_finite());
                if odd || take_absorbed() || early {
                    let mut call = values.clone();
                    call.push(one.clone());
                    call.push(basis.vector(j));
                    vouch(&h, &call, &trace, &out)?;
                }
                if len != n {
                    return Err(DiffError::Output {
                        reason: format!("a Hessian-vector product of {len} elements, not {n}"),
                    });
                }
            }
            Ok(Matrix {
                rows: n,
                cols: n,
                data,
            })
        }
        HessianMethod::ForwardOverForward => {
            let d2 = differentiate(&differentiate(&program, &[0])?, &[0])?;
            let staged = Staged::new(&d2)?;
            let mut inputs = values.clone();
            inputs.push(values[0].clone());
            inputs.push(values[0].clone());
            let mut env = staged.env(inputs);
            let _ = take_absorbed();
            staged.run(&mut env, 0, &[])?;
            let early = take_absorbed();
            let basis: Vec<Value> = (0..n).map(|j| basis.vector(j)).collect();
            let mut columns = Vec::with_capacity(n);
            // One environment, as for forward over reverse: a stage's run replaces the values
            // of its operations only.
            for ei in &basis {
                staged.run(&mut env, 1, &[(v, ei.clone())])?;
                let column_early = take_absorbed() || early;
                let mut col = Vec::with_capacity(n);
                for ej in &basis {
                    staged.run(&mut env, 2, &[(v + 1, ej.clone())])?;
                    let out = staged.output(&env);
                    if take_absorbed() || column_early || out.any_float(|x| !x.is_finite()) {
                        let mut call = values.clone();
                        call.push(ei.clone());
                        call.push(ej.clone());
                        vouch(&d2, &call, &trace, &out)?;
                    }
                    let x = out.by_value().as_f64();
                    col.push(x.ok_or_else(|| DiffError::Output {
                        reason: "a second derivative that is not a float".into(),
                    })?);
                }
                columns.push(col);
            }
            Ok(Matrix::from_columns(n, columns))
        }
    }
}
