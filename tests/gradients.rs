//! The gradient corpus: differentiable tracked functions covering loops, recursion (also
//! stochastic), branches, `?`, nested calls, methods, closures, vectors and slices, the float
//! math methods, casts and `f32`, each gradient checked against central finite differences of
//! the untracked function, and the value against the untracked result.
//!
//! The second half checks the typed errors: a gradient that cannot be taken is an error naming
//! the function and the statement, never a silent zero.

// The tracked functions index vectors in `for i in 0..v.len()` loops on purpose: indexing is
// what they test, and `iter().enumerate()` has no gradient rule.
#![allow(clippy::needless_range_loop)]

mod common;

use irtrack::{gradient, pullback, tracked, Callable, GradError, Gradient, Tangent};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fmt::Debug;

// ---------------------------------------------------------------------------------------------
// The checker.
// ---------------------------------------------------------------------------------------------

/// What one argument of a checked function is, for laying the flat parameter vector out.
#[derive(Clone, Copy, Debug)]
enum L {
    /// A float (`f64` or `f32`): one parameter, a scalar gradient.
    S,
    /// A vector or slice of `n` floats: `n` parameters, a vector gradient.
    V(usize),
    /// Anything else (an integer, a `bool`, an RNG, a struct of constants): no parameter, and
    /// the gradient must be `None`.
    N,
    /// A struct whose float fields the function reads: its gradient must be the fields'
    /// (`Tangent::Fields`), checked against finite differences in `tests/gradient_structs.rs`;
    /// no parameter here.
    F,
}
use L::{F, N, S, V};

/// The precision the function computes in.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Prec {
    F64,
    /// Some value on the path is an `f32`. The function is evaluated at `f32`-exact points with
    /// the larger step `h = 1e-3·max(1, |x|)` and compared with the tolerance `1e-3`:
    /// each `f32` operation rounds with relative error up to `ε = 6e-8`, so the difference
    /// quotient carries a rounding error of about `k·ε·|f| / h ≈ 6e-5·k·|f|` for `k` rounded
    /// operations, and a truncation error of `h²·|f'''| / 6 ≈ 2e-7·|f'''|`; the gradient itself
    /// is computed in `f64` from the recorded `f32` values. `1e-3` leaves a margin of more than
    /// ten over both for the functions below (values and derivatives of order one).
    F32,
}

/// A function's output seen as a real number: a float, or `Ok`/`Some` of one.
trait Real {
    fn real(&self) -> f64;
}

impl Real for f64 {
    fn real(&self) -> f64 {
        *self
    }
}

impl Real for f32 {
    fn real(&self) -> f64 {
        *self as f64
    }
}

impl<E: Debug> Real for Result<f64, E> {
    fn real(&self) -> f64 {
        *self.as_ref().expect("an Ok output")
    }
}

impl Real for Option<f64> {
    fn real(&self) -> f64 {
        self.expect("a Some output")
    }
}

/// Checks `gradient` of one function at one point `p` (the flat list of its differentiable
/// parameters, laid out by `layout`): the value equals the untracked call's exactly, every
/// non-differentiable argument gets `None`, and each partial derivative agrees with the
/// central difference `(f(x + h) - f(x - h)) / 2h` of the untracked function, with the relative
/// step `h = 1e-6·max(1, |x|)`, within `|a - b| ≤ 1e-6·max(1, |a|, |b|)`.
///
/// With a step of `1e-6` relative to `x`, the difference quotient's rounding error is about
/// `ε·|f| / h ≈ 2e-10·|f|` and its truncation error `h²·|f'''| / 6 ≈ 2e-13·|f'''|`, so `1e-6`
/// rejects any wrong rule while leaving room for both.
fn check_at<O: Real + PartialEq + Debug>(
    name: &str,
    layout: &[L],
    point: &[f64],
    prec: Prec,
    eval: impl Fn(&[f64]) -> O,
    grad: impl Fn(&[f64]) -> Gradient<O>,
) {
    let round = |x: f64| match prec {
        Prec::F64 => x,
        Prec::F32 => x as f32 as f64,
    };
    let p: Vec<f64> = point.iter().map(|&x| round(x)).collect();
    let g = grad(&p);
    // The fast path (a flat tape) where it answers, and the general sweep it stands in for:
    // the same gradient, bit for bit (the text of floats is exact).
    let general = irtrack::grad::with_general_sweep(|| grad(&p));
    assert_eq!(
        format!("{:?}", g.wrt),
        format!("{:?}", general.wrt),
        "{name} at {p:?}: the fast path and the general sweep differ"
    );
    let direct = eval(&p);
    assert_eq!(
        g.value, direct,
        "{name} at {p:?}: the value differs from the untracked call's"
    );

    assert_eq!(
        g.wrt.len(),
        layout.len(),
        "{name}: one gradient per argument"
    );
    let mut flat = Vec::new();
    for (k, (arg, t)) in layout.iter().zip(&g.wrt).enumerate() {
        match (arg, t) {
            (N, None) => {}
            (F, Some(Tangent::Fields(_))) => {}
            (S, Some(Tangent::Scalar(d))) => flat.push(*d),
            (V(n), Some(Tangent::Vector(d))) if d.len() == *n => flat.extend_from_slice(d),
            _ => panic!("{name} at {p:?}: argument {k} should be {arg:?}, its gradient is {t:?}"),
        }
    }
    assert_eq!(
        flat.len(),
        p.len(),
        "{name}: the point has one entry per parameter"
    );

    let (rel, tol) = match prec {
        Prec::F64 => (1e-6, 1e-6),
        Prec::F32 => (1e-3, 1e-3),
    };
    for j in 0..p.len() {
        let x = p[j];
        let h = rel * x.abs().max(1.0);
        let (mut plus, mut minus) = (p.clone(), p.clone());
        plus[j] = round(x + h);
        minus[j] = round(x - h);
        let fd = (eval(&plus).real() - eval(&minus).real()) / (plus[j] - minus[j]);
        let a = flat[j];
        let bound = tol * 1f64.max(a.abs()).max(fd.abs());
        assert!(
            (a - fd).abs() <= bound,
            "{name} at {p:?}: d/dp[{j}] is {a}, finite differences give {fd} (|diff| {} > {bound})",
            (a - fd).abs()
        );
    }
}

/// `check!(f, [layout], |p| (arguments from p), [point], [point], …)` checks `f` at each point;
/// `check!(f32: …)` checks a function computing in `f32`.
macro_rules! check {
    (f32: $f:expr, $layout:expr, |$p:ident| $args:expr, $($pt:expr),+ $(,)?) => {
        check!(@ Prec::F32, $f, $layout, |$p| $args, $($pt),+)
    };
    ($f:expr, $layout:expr, |$p:ident| $args:expr, $($pt:expr),+ $(,)?) => {
        check!(@ Prec::F64, $f, $layout, |$p| $args, $($pt),+)
    };
    (@ $prec:expr, $f:expr, $layout:expr, |$p:ident| $args:expr, $($pt:expr),+) => {{
        let mut count = 0;
        $(
            check_at(
                stringify!($f),
                &$layout,
                &$pt,
                $prec,
                |$p: &[f64]| Callable::call_with($f, $args),
                |$p: &[f64]| {
                    gradient($f, $args)
                        .unwrap_or_else(|e| panic!("{} at {:?}: {e}", stringify!($f), $p))
                },
            );
            count += 1;
        )+
        count
    }};
}

// ---------------------------------------------------------------------------------------------
// Functions shared with the foundation's corpus (tests/common, tests/corpus.rs).
// ---------------------------------------------------------------------------------------------

use common::{f, h};

#[tracked]
fn sq(x: f64) -> f64 {
    x * x
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Point {
    x: f64,
    y: f64,
}

trait Area {
    fn area(&self) -> f64;
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Circle {
    r: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Rect {
    w: f64,
    h: f64,
}

#[tracked]
impl Area for Circle {
    fn area(&self) -> f64 {
        std::f64::consts::PI * self.r * self.r
    }
}

#[tracked]
impl Area for Rect {
    fn area(&self) -> f64 {
        self.w * self.h
    }
}

#[tracked]
impl Point {
    fn origin() -> Point {
        Point { x: 0.0, y: 0.0 }
    }
    fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }
    fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
}

const HALF: f64 = 0.5;

// Corpus 12: path calls: a free fn, `Type::assoc`, `Trait::method(x)`, `<T as Trait>::method`,
// std fns, a tracked fn called with a named constant. The structs hold constants here: a struct
// holding an input has no tangent (see `struct_holding_an_input_is_no_rule`).
#[tracked]
fn path_calls(x: f64) -> f64 {
    let a = sq(x) + sq(HALF);
    let b = f64::max(x, 1.0);
    let o = Point::origin();
    let c = Circle { r: 1.5 };
    let d = Area::area(&c) * x;
    let e = <Rect as Area>::area(&Rect { w: 0.5, h: 2.0 }) + x;
    let m = std::cmp::max(3, 4) as f64;
    let z: f64 = Default::default();
    a + b + o.x + d + e + m + z + Point::new(0.25, 1.0).norm() * x
}

/// Corpus 12 as written: a `Circle` and a `Rect` built from the input.
#[tracked]
fn path_calls_on_input_structs(x: f64) -> f64 {
    let c = Circle { r: x };
    let d = Area::area(&c);
    let e = <Rect as Area>::area(&Rect { w: x, h: 2.0 });
    d + e
}

#[tracked]
fn apply<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 {
    f(x)
}

// Corpus 19: a closure and a tracked fn passed to a tracked higher-order function. The corpus's
// closure captures the constant `k`; here the constant is written in the closure, since a closure
// reading a captured variable is to be `GradError::Capture` even when the variable is a constant
// (README, "Gradients refuse what the trace cannot vouch for").
#[tracked]
fn higher_order(x: f64) -> f64 {
    let f = sq;
    apply(|y| 2.0 * y, x) + apply(sq, x) + apply(f, x)
}

// Corpus 21: `if`/`else` with values.
#[tracked]
fn sign(x: f64) -> f64 {
    let s = if x < 0.0 { -1.0 } else { 1.0 };
    s * x.abs().sqrt()
}

// Corpus 33: `for` over a slice, a `Vec` by value and by reference. The corpus's loop over
// `v.iter().enumerate()` is an indexed loop here: `Enumerate::next` has no rule (a `NoRule`
// error), only the `next` of `iter()`/`into_iter()` on a vector has.
#[tracked]
fn collection_loops(xs: &[f64], v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for x in xs {
        s += *x;
    }
    for i in 0..v.len() {
        s += i as f64 * v[i];
    }
    for x in &v {
        s -= x / 2.0;
    }
    for x in v {
        s += x;
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Loops.
// ---------------------------------------------------------------------------------------------

/// `for` over a range: `Σ_{i<n} x^i / (i + 1)`.
#[tracked]
fn for_range(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x.powi(i as i32) / (i + 1) as f64;
    }
    s
}

/// `loop` with `break value`: `n` steps of the logistic map.
#[tracked]
fn logistic(r: f64, x0: f64, n: u32) -> f64 {
    let mut x = x0;
    let mut i = 0;
    loop {
        if i == n {
            break x;
        }
        x = r * x * (1.0 - x);
        i += 1;
    }
}

/// `loop` with a data-dependent `break`: Newton's iteration for `√a`.
#[tracked]
fn newton_sqrt(a: f64) -> f64 {
    let mut x = a.max(1.0);
    loop {
        let next = 0.5 * (x + a / x);
        if (next - x).abs() <= 1e-15 * x {
            break next;
        }
        x = next;
    }
}

/// Nested `for` loops over ranges, with an inner bound depending on the outer index.
#[tracked]
fn nested_loops(x: f64, y: f64, n: u32) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..=i {
            let t = x * i as f64 + y * j as f64;
            s += t.sin() / (1 + i + j) as f64;
        }
    }
    s
}

/// Early `continue` in a `for` loop and in a `while` loop.
#[tracked]
fn skip_evens(x: f64, n: i32) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        if i % 2 == 0 {
            continue;
        }
        s += x.powi(i);
    }
    let mut k = 0;
    while k < n {
        k += 1;
        if k > 2 {
            continue;
        }
        s = s * x + 1.0;
    }
    s
}

/// `while` with a float condition: the number of iterations depends on `x`.
#[tracked]
fn halvings(x: f64) -> f64 {
    let mut y = x;
    let mut acc = 0.0;
    while y > 1.0 {
        acc += y.ln();
        y /= 2.0;
    }
    acc + y
}

/// A labelled `break` out of nested loops.
#[tracked]
fn labelled(x: f64, n: u32) -> f64 {
    let mut s = x;
    'outer: for i in 0..n {
        let mut j = 0;
        while j < n {
            if i * j > 6 {
                break 'outer;
            }
            s = (s * 0.9).cos() + x;
            j += 1;
        }
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Recursion.
// ---------------------------------------------------------------------------------------------

/// `r(x, k) = r(x, k - 1).sin()·x + 0.5`, `r(x, 0) = x`.
#[tracked]
fn r(x: f64, k: u32) -> f64 {
    if k == 0 {
        x
    } else {
        r(x, k - 1).sin() * x + 0.5
    }
}

/// A `geom`-style stochastic recursion: stop with probability `beta`, else add a term and
/// recurse with a scaled `x`.
#[tracked]
fn geom_sum(x: f64, beta: f64, rng: &mut StdRng) -> f64 {
    if rng.random::<f64>() < beta {
        x
    } else {
        x.sin() + geom_sum(x * 1.1, beta, rng) * beta
    }
}

/// Tree recursion: two recursive calls per level.
#[tracked]
fn tree(x: f64, n: u32) -> f64 {
    if n < 2 {
        x
    } else {
        tree(x.sin(), n - 1) + tree(x * 0.5, n - 2)
    }
}

/// Mutual recursion.
#[tracked]
fn ping(x: f64, n: u32) -> f64 {
    if n == 0 {
        x
    } else {
        pong(x * 1.1, n - 1)
    }
}

#[tracked]
fn pong(x: f64, n: u32) -> f64 {
    if n == 0 {
        x.exp()
    } else {
        ping(x.cos() + x, n - 1)
    }
}

// ---------------------------------------------------------------------------------------------
// Branches and early exits.
// ---------------------------------------------------------------------------------------------

/// `match` on an integer with or-patterns and a wildcard.
#[tracked]
fn piecewise(x: f64, mode: u8) -> f64 {
    match mode {
        0 => x * x,
        1 | 2 => x.exp() - x,
        _ => x.ln() * 2.0,
    }
}

/// `match` on a float with guards, and an early `return`.
#[tracked]
fn guards(x: f64) -> f64 {
    if x > 100.0 {
        return x.sqrt();
    }
    match x {
        v if v < -1.0 => -v.powi(3),
        v if v < 1.0 => v.tanh(),
        v => v.ln() + 1.0,
    }
}

#[tracked]
fn safe_ln(x: f64) -> Option<f64> {
    if x > 0.0 {
        Some(x.ln())
    } else {
        None
    }
}

/// `if let` on an `Option` a tracked call returned.
#[tracked]
fn if_let_option(x: f64, y: f64) -> f64 {
    if let Some(l) = safe_ln(x) {
        l * y
    } else {
        y - x
    }
}

#[tracked]
fn checked_div(a: f64, b: f64) -> Result<f64, String> {
    if b == 0.0 {
        return Err("division by zero".to_string());
    }
    Ok(a / b)
}

/// `?` on `Result`, returning `Ok(x)`.
#[tracked]
fn ratio_chain(a: f64, b: f64, c: f64) -> Result<f64, String> {
    let q = checked_div(a, b)?;
    let r = checked_div(q, c)?;
    Ok(r.sqrt() + q)
}

#[tracked]
fn first_positive(v: &[f64]) -> Option<f64> {
    let mut i = 0;
    while i < v.len() {
        if v[i] > 0.0 {
            return Some(v[i]);
        }
        i += 1;
    }
    None
}

#[tracked]
fn make_pair(a: f64, b: f64) -> Result<Vec<f64>, String> {
    if a < 0.0 {
        return Err("negative".to_string());
    }
    let v = vec![a, b];
    Ok(v)
}

/// `?` on a `Result` of a vector: the unwrapped vector's type is decided after it is recorded,
/// so it is recorded as text.
#[tracked]
fn pair_product(a: f64, b: f64) -> Result<f64, String> {
    let v = make_pair(a, b)?;
    Ok(v[0] * v[1] + v[1].sin())
}

/// `?` on `Option`, returning `Some(x)`.
#[tracked]
fn option_chain(v: Vec<f64>, x: f64) -> Option<f64> {
    let p = first_positive(&v)?;
    let l = safe_ln(p * x)?;
    Some(l * p)
}

// ---------------------------------------------------------------------------------------------
// Nested calls, methods and closures.
// ---------------------------------------------------------------------------------------------

#[tracked]
fn inner(x: f64, y: f64) -> f64 {
    x.sin() * y
}

#[tracked]
fn middle(x: f64, y: f64) -> f64 {
    inner(x, y) + inner(y, x) * sq(x)
}

/// Three levels of tracked calls, one of them called twice with swapped arguments.
#[tracked]
fn nested_calls(x: f64, y: f64) -> f64 {
    middle(x, y).exp() + sq(middle(y, 0.5))
}

/// A model whose parameters are constants: its methods are differentiated with respect to
/// their float arguments.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Model {
    a: f64,
    b: f64,
    degree: i32,
}

#[tracked]
impl Model {
    fn eval(&self, x: f64) -> f64 {
        self.a * x.powi(self.degree) + self.b * Self::bump(x)
    }

    fn bump(x: f64) -> f64 {
        (-x * x).exp()
    }

    fn loss(&self, xs: &[f64], t: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..xs.len() {
            let e = self.eval(xs[i]) - t;
            s += e * e;
        }
        s
    }
}

/// Methods of a tracked `impl`: an associated function and `&self` methods.
#[tracked]
fn methods(x: f64, t: f64) -> f64 {
    let m = Model {
        a: 1.5,
        b: -0.5,
        degree: 3,
    };
    m.eval(x) + Model::bump(t) * m.eval(t)
}

/// Closures defined and called inside a tracked function, taking every input as an argument
/// (corpus 18 without its captures): one with an early `return`, one called in a loop.
#[tracked]
fn local_closures(x: f64, y: f64) -> f64 {
    let square_plus = |t: f64| t * t + 1.0;
    let mix = |a: f64, b: f64| a.sin() * b + a;
    let clamp = |t: f64| {
        if t > 10.0 {
            return 10.0;
        }
        t
    };
    let mut s = 0.0;
    for _ in 0..2 {
        s = mix(s, square_plus(x)) + y;
    }
    clamp(s * square_plus(y)) + clamp(x * 100.0)
}

// ---------------------------------------------------------------------------------------------
// Vectors and slices.
// ---------------------------------------------------------------------------------------------

/// Indexing two slices in a loop.
#[tracked]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// A sub-slice `v[1..3]`, indexing it, and `v[i]` with a computed index.
#[tracked]
fn slicing(v: Vec<f64>, k: usize) -> f64 {
    let w = &v[1..3];
    let tail = &v[k..];
    w[0] * w[1] + v[0] / tail[0] + dot(w, &v[2..4])
}

/// `vec![a, b]` built from inputs and read back, a tracked call on the new vectors, and an
/// array literal with a constant element.
#[tracked]
fn build_vec(a: f64, b: f64) -> f64 {
    let p = a * b;
    let v = vec![a, b, p];
    let w0 = v[2];
    let w1 = v[0];
    let w = vec![w0, w1];
    let arr = [b, 2.0, p];
    dot(&v[..2], &w) + v[1] + arr[0] * arr[2] + dot(v.as_slice(), &arr)
}

/// A weighted sum over a `Vec` argument, with a float argument and `len()`.
#[tracked]
fn weighted_mean(v: Vec<f64>, w: f64) -> f64 {
    let mut s = 0.0;
    let mut total = 0.0;
    for i in 0..v.len() {
        let wi = w.powi(i as i32);
        s += v[i] * wi;
        total += wi;
    }
    s / total
}

/// A fixed-size array argument, indexed.
#[tracked]
fn array_arg(v: [f64; 3], x: f64) -> f64 {
    v[0] * x + v[2].exp() - v[1] / x
}

/// A slice of `f32`: the Euclidean norm.
#[tracked]
fn norm32(v: &[f32]) -> f32 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s.sqrt()
}

// ---------------------------------------------------------------------------------------------
// Float math, casts and f32.
// ---------------------------------------------------------------------------------------------

/// Every one-argument float method with a rule.
#[tracked]
fn unary_math(x: f64) -> f64 {
    let a = x.sin() + x.cos() + x.tan() + x.exp() + x.ln() + x.log10() + x.sqrt();
    let b = x.tanh() + x.abs() + x.cbrt() + x.log2() + x.exp2() + x.sinh() + x.cosh();
    let c = x.atan() + x.asinh() + x.recip() + x.ln_1p() + x.exp_m1() + x.to_degrees();
    let y = x / 4.0;
    let d = y.asin() + y.acos() + y.atanh() + (x + 1.0).acosh() + x.to_radians();
    let e = (-x).abs() + x.powi(3) + x.powi(-2) + x.powi(0);
    a + b + c + d + e
}

/// The two- and three-argument float methods, as methods and as paths.
#[tracked]
fn binary_math(x: f64, y: f64) -> f64 {
    let a = x.powf(y) + x.max(y) + x.min(y) + y.atan2(x) + x.hypot(y);
    let b = x.mul_add(y, 2.0) + x.log(y + 1.5) + x.clamp(0.0, 1.5) + (x % y);
    let c = f64::max(x * 2.0, y) + f64::sin(x) * f64::powf(y, 0.5);
    let d = x / y - y * y - -x;
    a + b + c + d
}

/// Casts between floats and from integers.
#[tracked]
fn casts(x: f64, n: i32) -> f64 {
    let y = x as f32;
    let z = (y * 2.0 + 1.0) as f64;
    let w = n as f64 * x;
    z.sin() + w + y as f64
}

/// `f32` arguments and an `f32` output.
#[tracked]
fn single(x: f32, y: f32) -> f32 {
    (x * y).sin() + x.sqrt() * y.exp() - y.powi(2)
}

/// Mixed precision: an `f32` argument widened, an `f64` narrowed.
#[tracked]
fn mixed(x: f32, y: f64) -> f64 {
    let a = x as f64 * y;
    let b = (y as f32).cos() * x;
    a.exp() + b as f64
}

// ---------------------------------------------------------------------------------------------
// The checks.
// ---------------------------------------------------------------------------------------------

#[test]
fn foundation_functions() {
    let mut n = 0;
    n += check!(f, [S], |p| (p[0],), [1.0], [-2.5], [0.0]);
    n += check!(h, [S, N], |p| (p[0], 5), [2.0], [-0.7], [1.3]);
    n += check!(sq, [S], |p| (p[0],), [3.0], [-1.5]);
    n += check!(path_calls, [S], |p| (p[0],), [0.3], [2.0]);
    n += check!(higher_order, [S], |p| (p[0],), [1.5], [-3.0]);
    n += check!(sign, [S], |p| (p[0],), [2.0], [-3.0]);
    n += check!(
        collection_loops,
        [V(3), V(4)],
        |p| (&p[..3], p[3..].to_vec()),
        [1.0, 2.0, 3.0, 0.5, -1.0, 2.0, 4.0]
    );
    assert_eq!(n, 15);
}

#[test]
fn loops() {
    let mut n = 0;
    n += check!(for_range, [S, N], |p| (p[0], 6), [0.8], [-1.7]);
    n += check!(
        logistic,
        [S, S, N],
        |p| (p[0], p[1], 20),
        [3.2, 0.3],
        [2.5, 0.6]
    );
    n += check!(newton_sqrt, [S], |p| (p[0],), [2.0], [10.0], [0.25]);
    n += check!(nested_loops, [S, S, N], |p| (p[0], p[1], 4), [0.7, -0.3]);
    n += check!(skip_evens, [S, N], |p| (p[0], 7), [1.1], [-0.6]);
    n += check!(halvings, [S], |p| (p[0],), [37.0], [0.5]);
    n += check!(labelled, [S, N], |p| (p[0], 5), [0.4]);
    assert_eq!(n, 13);
}

#[test]
fn recursion() {
    let mut n = 0;
    n += check!(r, [S, N], |p| (p[0], 50), [0.7], [1.3], [-0.4]);
    for seed in [0, 1, 3, 42] {
        n += check!(
            geom_sum,
            [S, S, N],
            |p| (p[0], p[1], &mut StdRng::seed_from_u64(seed)),
            [0.9, 0.3]
        );
    }
    n += check!(tree, [S, N], |p| (p[0], 6), [1.2]);
    n += check!(ping, [S, N], |p| (p[0], 5), [0.3]);
    assert_eq!(n, 9);
}

#[test]
fn branches() {
    let mut n = 0;
    for mode in 0..4 {
        n += check!(piecewise, [S, N], |p| (p[0], mode), [1.7]);
    }
    n += check!(guards, [S], |p| (p[0],), [-2.0], [0.3], [5.0], [144.0]);
    n += check!(
        if_let_option,
        [S, S],
        |p| (p[0], p[1]),
        [2.0, 3.0],
        [-2.0, 3.0]
    );
    n += check!(
        ratio_chain,
        [S, S, S],
        |p| (p[0], p[1], p[2]),
        [3.0, 2.0, 0.5]
    );
    n += check!(
        option_chain,
        [V(3), S],
        |p| (p[..3].to_vec(), p[3]),
        [-1.0, 2.0, 3.0, 1.5]
    );
    n += check!(pair_product, [S, S], |p| (p[0], p[1]), [1.5, -0.5]);
    assert_eq!(n, 13);
}

#[test]
fn calls_methods_and_closures() {
    let mut n = 0;
    n += check!(nested_calls, [S, S], |p| (p[0], p[1]), [0.4, 0.9]);
    n += check!(methods, [S, S], |p| (p[0], p[1]), [0.8, -0.6]);
    let m = Model {
        a: 0.5,
        b: 2.0,
        degree: 2,
    };
    n += check!(Model::eval, [F, S], |p| (&m, p[0]), [1.3]);
    n += check!(
        Model::loss,
        [F, V(3), S],
        |p| (&m, &p[..3], p[3]),
        [0.5, -1.0, 2.0, 0.7]
    );
    n += check!(local_closures, [S, S], |p| (p[0], p[1]), [0.6, -0.2]);
    assert_eq!(n, 5);
}

#[test]
fn vectors_and_slices() {
    let mut n = 0;
    n += check!(
        dot,
        [V(3), V(3)],
        |p| (&p[..3], &p[3..]),
        [1.0, 2.0, 3.0, -1.0, 0.5, 2.0]
    );
    n += check!(
        slicing,
        [V(5), N],
        |p| (p.to_vec(), 3),
        [1.0, 2.0, 3.0, 4.0, 5.0]
    );
    n += check!(build_vec, [S, S], |p| (p[0], p[1]), [1.5, -2.0]);
    n += check!(
        weighted_mean,
        [V(4), S],
        |p| (p[..4].to_vec(), p[4]),
        [1.0, -2.0, 0.5, 3.0, 0.7]
    );
    n += check!(
        array_arg,
        [V(3), S],
        |p| ([p[0], p[1], p[2]], p[3]),
        [0.5, -1.5, 0.25, 2.0]
    );
    n += check!(
        f32: norm32,
        [V(3)],
        |p| (&p.iter().map(|&x| x as f32).collect::<Vec<f32>>()[..],),
        [0.6, -0.8, 1.2]
    );
    assert_eq!(n, 6);
}

#[test]
fn float_math_casts_and_f32() {
    let mut n = 0;
    n += check!(unary_math, [S], |p| (p[0],), [0.7], [1.9]);
    n += check!(
        binary_math,
        [S, S],
        |p| (p[0], p[1]),
        [0.8, 1.3],
        [1.7, 0.6]
    );
    n += check!(f32: casts, [S, N], |p| (p[0], 3), [0.4], [-1.2]);
    n += check!(f32: single, [S, S], |p| (p[0] as f32, p[1] as f32), [0.7, 0.4], [2.0, -0.5]);
    n += check!(f32: mixed, [S, S], |p| (p[0] as f32, p[1]), [0.5, 0.25]);
    assert_eq!(n, 9);
}

/// The helpers the functions above call, checked on their own: `Ok`/`Some` outputs.
#[test]
fn helpers_with_wrapped_outputs() {
    let mut n = 0;
    n += check!(checked_div, [S, S], |p| (p[0], p[1]), [3.0, -0.7]);
    n += check!(safe_ln, [S], |p| (p[0],), [2.5]);
    n += check!(first_positive, [V(3)], |p| (p,), [-1.0, -0.5, 0.25]);
    n += check!(middle, [S, S], |p| (p[0], p[1]), [1.1, -0.4]);
    n += check!(pong, [S, N], |p| (p[0], 4), [0.2]);
    assert_eq!(n, 5);
}

/// The stochastic recursion above really recurses: with `beta = 0.3`, some seed draws at least
/// three times, so its gradient goes through several levels whose number depends on the RNG.
#[test]
fn geom_sum_recurses_for_some_seeds() {
    let depth = |seed| {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut depth = 1;
        while rng.random::<f64>() >= 0.3 {
            depth += 1;
        }
        depth
    };
    let depths: Vec<u32> = [0, 1, 3, 42].into_iter().map(depth).collect();
    assert!(depths.iter().any(|&d| d >= 3), "{depths:?}");
    assert!(depths.iter().any(|&d| d != depths[0]), "{depths:?}");
}

/// The checker rejects a wrong gradient (here `d/dx sin x` given as `sin x`).
#[test]
#[should_panic(expected = "finite differences give")]
fn the_checker_rejects_a_wrong_gradient() {
    check_at(
        "sin",
        &[S],
        &[0.5],
        Prec::F64,
        |p| p[0].sin(),
        |p| Gradient {
            value: p[0].sin(),
            wrt: vec![Some(Tangent::Scalar(p[0].sin()))],
        },
    );
}

/// The README's `h`: `d/dx Σ_{i<n} x^i = Σ_{0<i<n} i·x^(i-1)`, exact at `x = 2` (every term is
/// an integer times a power of two), and `None` for the integer bound.
#[test]
fn readme_h_is_exact() {
    for n in 0..8 {
        let x: f64 = 2.0;
        let want: f64 = (1..n).map(|i| i as f64 * x.powi(i - 1)).sum();
        let g = gradient(h, (x, n)).unwrap();
        assert_eq!(g.value, h(x, n));
        assert_eq!(g.scalars(), [Some(want), None], "n = {n}");
    }
    // 1 + 2x + 3x² at x = 0.5.
    assert_eq!(gradient(h, (0.5, 4)).unwrap().scalars(), [Some(2.75), None]);
}

/// `pullback` of a function returning a vector, against finite differences of `seed · f`.
#[test]
fn pullback_of_a_vector_output() {
    let (y, back) = pullback(scaled, (vec![1.0, -2.0, 0.5], 1.5));
    assert_eq!(y, scaled(vec![1.0, -2.0, 0.5], 1.5));
    let seed = [0.3, -1.0, 2.0];
    let d = back.call(seed.to_vec()).unwrap();
    let mut flat = d[0].as_ref().and_then(|t| t.as_slice()).unwrap().to_vec();
    flat.push(d[1].as_ref().and_then(|t| t.as_scalar()).unwrap());
    let p: [f64; 4] = [1.0, -2.0, 0.5, 1.5];
    let f = |p: &[f64]| -> f64 {
        let y = scaled(p[..3].to_vec(), p[3]);
        y.iter().zip(seed).map(|(a, b)| a * b).sum()
    };
    for j in 0..p.len() {
        let hj = 1e-6 * p[j].abs().max(1.0);
        let (mut plus, mut minus) = (p, p);
        plus[j] += hj;
        minus[j] -= hj;
        let fd = (f(&plus) - f(&minus)) / (plus[j] - minus[j]);
        let bound = 1e-6 * 1f64.max(fd.abs()).max(flat[j].abs());
        assert!(
            (flat[j] - fd).abs() <= bound,
            "d/dp[{j}]: {} vs {fd}",
            flat[j]
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Typed errors: never a silent zero.
// ---------------------------------------------------------------------------------------------

/// A vector output: `gradient` needs a float.
#[tracked]
fn scaled(v: Vec<f64>, k: f64) -> Vec<f64> {
    let a = v[0] * k;
    let b = v[1] * k;
    let c = v[2] * k.sin();
    vec![a, b, c]
}

#[tracked]
fn write_index(v: Vec<f64>, x: f64) -> f64 {
    let mut v = v;
    v[0] += x;
    v[0] * 2.0
}

#[tracked]
fn push_input(x: f64) -> f64 {
    let mut v = vec![1.0];
    v.push(x);
    v[1] * 2.0
}

/// Not tracked.
fn triple(x: f64) -> f64 {
    3.0 * x
}

#[tracked]
fn calls_untracked(x: f64) -> f64 {
    let y = x.sin();
    triple(y) + x
}

// Corpus 55: a tracked fn called through an untracked module function.
mod other {
    pub fn sq(x: f64) -> f64 {
        super::sq(x)
    }
}

#[tracked]
fn uses_other(x: f64) -> f64 {
    other::sq(x) + sq(x)
}

#[tracked]
fn map_collect(v: Vec<f64>, x: f64) -> f64 {
    let w: Vec<f64> = v.iter().map(|e| e * x).collect();
    w[0] + w[1]
}

// A `Vec` on purpose: `vec!` is what is tested.
#[allow(clippy::useless_vec)]
#[tracked]
fn vec_of_expression(a: f64, b: f64) -> f64 {
    let v = vec![a, b * 2.0];
    v[0] + v[1]
}

#[tracked]
fn array_pattern(v: [f64; 2]) -> f64 {
    let [a, b] = v;
    a * 2.0 + b
}

/// The error's text: it must name the function and the statement.
fn message<T: Debug>(r: Result<Gradient<T>, GradError>) -> (GradError, String) {
    let e = r.expect_err("the gradient must be an error");
    let text = e.to_string();
    (e, text)
}

#[test]
fn writing_an_input_into_a_vector_element_is_a_mutation() {
    let (e, text) = message(gradient(write_index, (vec![1.0, 2.0], 0.5)));
    let GradError::Mutation { at } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(at.function, "write_index");
    assert!(text.contains("gradients::write_index"), "{text}");
    assert!(text.contains("v[0] +="), "{text}");
}

#[test]
fn pushing_an_input_is_a_mutation() {
    let (e, text) = message(gradient(push_input, (0.5,)));
    let GradError::Mutation { at } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(at.function, "push_input");
    assert!(text.contains("push"), "{text}");
    assert!(text.contains("gradients::push_input"), "{text}");
}

#[test]
fn an_untracked_helper_on_the_path_has_no_rule() {
    let (e, text) = message(gradient(calls_untracked, (0.5,)));
    let GradError::NoRule { callee, at, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(callee, "gradients::triple");
    assert_eq!(at.function, "calls_untracked");
    assert_eq!(at.statement, "%3 = triple(%2)");
    assert_eq!(at.location.map(|l| l.to_string()).as_deref(), Some("§1:%3"));
    assert!(
        text.contains("`gradients::triple`")
            && text.contains("`%3 = triple(%2)` in `gradients::calls_untracked` at [§1:%3]"),
        "{text}"
    );

    // Corpus 55: a tracked function reached through an untracked one is still a primitive.
    let (e, text) = message(gradient(uses_other, (0.5,)));
    assert!(
        matches!(&e, GradError::NoRule { callee, .. } if callee == "gradients::other::sq"),
        "{e:?}"
    );
    assert!(text.contains("gradients::uses_other"), "{text}");
}

#[test]
fn map_with_a_closure_then_collect_has_no_rule() {
    let (e, text) = message(gradient(map_collect, (vec![1.0, 2.0], 0.5)));
    let GradError::NoRule { callee, at, .. } = &e else {
        panic!("{e:?}")
    };
    assert!(callee.contains("collect"), "{callee}");
    assert_eq!(at.function, "map_collect");
    assert!(text.contains("collect()"), "{text}");
}

#[test]
fn an_untracked_function_is_not_tracked() {
    let (e, text) = message(gradient(triple, (0.5,)));
    assert!(matches!(e, GradError::NotTracked { .. }), "{e:?}");
    assert!(
        text.contains("triple") && text.contains("not #[tracked]"),
        "{text}"
    );
}

#[test]
fn a_vector_output_is_an_output_error() {
    let (e, text) = message(gradient(scaled, (vec![1.0, 2.0, 3.0], 0.5)));
    assert!(matches!(e, GradError::Output { .. }), "{e:?}");
    assert!(
        text.contains("`scaled`") && text.contains("pullback"),
        "{text}"
    );
}

/// A struct holding an input, built in the function: its field read in the tracked `area`
/// is followed to the literal's operand (since 2026-11-27; it was `NoRule` on `.r`): d/dx of
/// `π x² + 2x`.
#[test]
fn struct_holding_an_input_is_followed_to_its_literal() {
    let x = 0.5;
    let g = gradient(path_calls_on_input_structs, (x,)).unwrap();
    let truth = 2.0 * std::f64::consts::PI * x + 2.0;
    assert!(
        (g.scalars()[0].unwrap() - truth).abs() < 1e-12,
        "{:?}",
        g.scalars()
    );
}

/// Regression: `vec![a, b * 2.0]` recorded the variables it mentions (`a`, `b`), and its second
/// element was given `b`'s sensitivity as if it were `b` (d/db was 1, not 2). The macro now
/// records each element, so the gradient is right (also checked by finite differences).
#[test]
fn vec_of_an_expression_differentiates_its_elements() {
    let g = gradient(vec_of_expression, (1.0, 1.5)).unwrap();
    assert_eq!(g.scalars(), [Some(1.0), Some(2.0)]);
    check!(
        vec_of_expression,
        [S, S],
        |p| (p[0], p[1]),
        [1.0, 1.5],
        [0.5, 0.0]
    );
}

/// Regression: `let [a, b] = v` gave each binding's sensitivity to all of `v`, so the gradient
/// of `2a + b` with respect to `[f64; 2]` was the scalar `3.0`.
#[test]
fn binding_part_of_an_array_is_no_rule_not_a_wrong_gradient() {
    let (e, text) = message(gradient(array_pattern, ([1.0, 2.0],)));
    let GradError::NoRule { callee, at, reason } = &e else {
        panic!("{e:?}")
    };
    assert!(callee.starts_with("bind "), "{callee}");
    assert_eq!(at.function, "array_pattern");
    assert!(
        reason.as_deref().unwrap_or("").contains("destructuring"),
        "{text}"
    );
}

/// `zip` and `enumerate` over slices: the bindings of the tuple pattern reach the elements.
#[tracked]
fn zipped(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.iter().zip(y.iter()) {
        s += a * b;
    }
    for (&a, b) in x.iter().zip(y) {
        s += a.sin() * b;
    }
    for (i, a) in y.iter().enumerate() {
        s += a * a * (i as f64 + 1.0);
    }
    s
}

#[test]
fn zip_and_enumerate_loops() {
    let n = check!(
        zipped,
        [V(3), V(3)],
        |p| (&p[..3], &p[3..]),
        [1.0, -2.0, 0.5, 3.0, 0.25, -1.5]
    );
    assert_eq!(n, 1);
}

#[tracked]
fn through_a_checkpoint(x: f64) -> f64 {
    let t = irtrack::program::checkpoint(x * 2.0, "t", "c");
    t * x
}

/// A checkpoint with nothing injected passes its value on: the identity (it was `NoRule`, with
/// no hint; a tester, 2026-11-28). An injected value depends on nothing the call was given:
/// refused, not a slope through the value the call did not return.
#[test]
fn a_checkpoint_is_the_identity_when_nothing_is_injected() {
    // d/dx (2x · x) = 4x.
    let g = irtrack::gradient(through_a_checkpoint, (1.5,)).unwrap();
    assert_eq!(g.scalars(), [Some(6.0)]);
    let mut values = irtrack::program::Checkpoints::default();
    values.push("t", irtrack::Value::snapshot(10.0f64));
    let injected = irtrack::program::inject("c", values, || {
        irtrack::gradient(through_a_checkpoint, (1.5,))
    });
    let e = injected.unwrap_err().to_string();
    assert!(e.contains("checkpoint"), "{e}");
    // Injected the very value it would pass on: still no slope through it.
    let mut values = irtrack::program::Checkpoints::default();
    values.push("t", irtrack::Value::snapshot(3.0f64));
    let same = irtrack::program::inject("c", values, || {
        irtrack::gradient(through_a_checkpoint, (1.5,))
    });
    assert!(same.is_err());
    // Recorded under the inject, differentiated outside it: still no slope through it (it had
    // the identity's, 6 for 3); recorded outside, differentiated inside one: the identity.
    let mut values = irtrack::program::Checkpoints::default();
    values.push("t", irtrack::Value::snapshot(3.0f64));
    let (_, back) = irtrack::program::inject("c", values, || {
        irtrack::pullback(through_a_checkpoint, (1.5,))
    });
    assert!(back.call(1.0).is_err());
    let (_, back) = irtrack::pullback(through_a_checkpoint, (1.5,));
    let inside = irtrack::program::inject("other", Default::default(), || back.call(1.0));
    assert_eq!(
        inside.unwrap()[0].as_ref().and_then(Tangent::as_scalar),
        Some(6.0)
    );
}
