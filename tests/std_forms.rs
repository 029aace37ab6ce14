//! Forms of the standard library and of the language that numeric code writes and that were
//! refused until 2026-11-28 (a tester's round of "Rust as written"): `sin_cos`, `rem_euclid`
//! and `div_euclid` on floats, and destructuring assignment (`(a, b) = (b, a + b)`). Each is
//! checked through every entry point: the gradient against central finite differences of the
//! plain function, a program replayed at other points against the plain function bit for bit,
//! and `jvp` and the Hessian against finite differences of the gradient.

use irtrack::diff::{hessian, jvp};
use irtrack::program::{Input, Program};
use irtrack::{gradient, track, tracked, Tangent};

fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6 * x.abs().max(1.0);
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[track_caller]
fn close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-6 * want.abs().max(1.0),
        "{what}: got {got}, finite differences {want}"
    );
}

/// The gradient of `f` at `x`, which must be `Ok` and a scalar.
macro_rules! grad {
    ($f:expr, $x:expr) => {{
        let x: f64 = $x;
        let g = gradient($f, (x,)).unwrap_or_else(|e| panic!("gradient at {x}: {e}"));
        g.wrt[0]
            .as_ref()
            .and_then(Tangent::as_scalar)
            .expect("a scalar gradient")
    }};
}

/// The gradient, `jvp` and the Hessian at each point, and a program recorded at the first
/// point replayed at the others (where it takes the same path: no point here crosses a wrap).
macro_rules! every_entry_point {
    ($f:expr, $points:expr) => {{
        let points: &[f64] = &$points;
        let p = Program::from_trace(&track($f, (points[0],)), &[Input::Dynamic])
            .unwrap_or_else(|e| panic!("program: {e}"));
        for &x in points {
            close(grad!($f, x), fd($f, x), &format!("gradient at {x}"));
            let j = jvp($f, (x,), (1.0,)).unwrap_or_else(|e| panic!("jvp at {x}: {e}"));
            close(
                j.tangent.as_f64().unwrap(),
                fd($f, x),
                &format!("jvp at {x}"),
            );
            let h = hessian($f, (x,)).unwrap_or_else(|e| panic!("hessian at {x}: {e}"));
            close(
                h.row(0)[0],
                fd(|y| grad!($f, y), x),
                &format!("hessian at {x}"),
            );
            let replayed = p
                .call((x,))
                .unwrap_or_else(|e| panic!("replay at {x}: {e}"));
            assert_eq!(
                replayed.as_f64().map(f64::to_bits),
                Some($f(x).to_bits()),
                "replay at {x}"
            );
        }
    }};
}

/// The gradient of `f` in its one `Vec<f64>` argument at `v` against central finite
/// differences of the plain function, element by element.
macro_rules! vector_gradient_matches {
    ($f:expr, $v:expr) => {{
        let v: Vec<f64> = $v.clone();
        let g = gradient($f, (v.clone(),)).unwrap();
        let g = g.wrt[0].as_ref().unwrap().as_slice().unwrap().to_vec();
        let h = 1e-6;
        for k in 0..v.len() {
            let (mut up, mut down) = (v.clone(), v.clone());
            up[k] += h;
            down[k] -= h;
            let want = ($f(up) - $f(down)) / (2.0 * h);
            assert!(
                (g[k] - want).abs() < 1e-6 * want.abs().max(1.0),
                "{k}: {} vs {want}",
                g[k]
            );
        }
    }};
}

// A rotation by an angle the input makes, its parts bound by a pattern.
#[tracked]
fn rotate(x: f64) -> f64 {
    let (s, c) = (2.0 * x).sin_cos();
    let (px, py) = (1.5, -0.5);
    (c * px - s * py) * (s * px + c * py) + s
}

#[test]
fn sin_cos_bound_by_a_pattern() {
    every_entry_point!(rotate, [0.7, 0.71, -1.3 + 1e-3, 2.0]);
}

// The pair kept whole, its parts read by position.
#[tracked]
fn polar(r: f64) -> f64 {
    let t = r.sin_cos();
    r * t.1 + t.0 * t.0
}

#[test]
fn sin_cos_read_by_position() {
    every_entry_point!(polar, [0.3, 0.35, 1.7]);
}

#[tracked]
fn sin_cos_f32(x: f32) -> f32 {
    let (s, c) = x.sin_cos();
    s * c
}

#[test]
fn sin_cos_of_f32() {
    let g = gradient(sin_cos_f32, (0.7f32,)).unwrap();
    let g = g.wrt[0].as_ref().and_then(Tangent::as_scalar).unwrap();
    // d/dx sin x cos x = cos 2x, at the f32 point.
    close(g, (2.0 * f64::from(0.7f32)).cos(), "gradient");
    let p = Program::from_trace(&track(sin_cos_f32, (0.7f32,)), &[Input::Dynamic]).unwrap();
    let v = p.call((0.9f32,)).unwrap();
    assert_eq!(v.downcast_ref::<f32>(), Some(&sin_cos_f32(0.9)));
}

// A bisection on the sine part: the near-tie reading follows the part (its slope is the
// path's, 0, not the inverse sine's).
#[tracked]
fn arcsine_by_bisection(a: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.5f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        let (s, _) = mid.sin_cos();
        if s > a {
            hi = mid
        } else {
            lo = mid
        }
    }
    lo
}

#[test]
fn a_bisection_on_a_sin_cos_part_is_refused() {
    let e = gradient(arcsine_by_bisection, (0.5,)).unwrap_err();
    assert!(e.to_string().contains("2^-36"), "{e}");
}

/// A pair returned whole is not a program's output (its parts are).
#[tracked]
fn pair(x: f64) -> (f64, f64) {
    x.sin_cos()
}

#[test]
fn a_pair_used_whole_is_refused_by_programs() {
    let e = Program::from_trace(&track(pair, (0.7,)), &[Input::Dynamic])
        .and_then(|p| p.call((0.9,)))
        .unwrap_err();
    assert!(e.to_string().contains("used whole"), "{e}");
}

// An angle wrapped into [0, 2π) (`rem_euclid`) and the turns it took (`div_euclid`).
#[tracked]
fn wrapped_angle(x: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    let a = (3.0 * x).rem_euclid(tau);
    let turns = (3.0 * x).div_euclid(tau);
    a * a + turns * x + x.rem_euclid(-0.75)
}

#[test]
fn rem_euclid_and_div_euclid() {
    every_entry_point!(wrapped_angle, [2.5, 2.51, 2.6]);
    every_entry_point!(wrapped_angle, [-2.5, -2.45]);
}

// In the divisor too: `a - q b` moves with `b` by `-q`.
#[tracked]
fn by_divisor(b: f64) -> f64 {
    7.3f64.rem_euclid(b) * b
}

#[test]
fn rem_euclid_in_its_divisor() {
    every_entry_point!(by_divisor, [1.1, 1.15, -1.1]);
}

// Where it wraps (`a` a multiple of `b`), the value holds on one side: a branch taken there is
// the side's, and the gradient is that side's slope.
#[tracked]
fn sawtooth_branch(x: f64) -> f64 {
    if x.rem_euclid(1.0) < 0.5 {
        2.0 * x
    } else {
        3.0 * x
    }
}

#[test]
fn at_a_wrap_the_side_that_holds() {
    // x.rem_euclid(1.0) is 0 at 3 and near 0 just above it: the first branch, slope 2.
    assert_eq!(grad!(sawtooth_branch, 3.0), 2.0);
    assert_eq!(grad!(sawtooth_branch, -3.0), 2.0);
    assert_eq!(grad!(sawtooth_branch, 2.75), 3.0);
    // A program recorded at 3 replays the branch where it holds and is guarded elsewhere.
    let p = Program::from_trace(&track(sawtooth_branch, (3.0,)), &[Input::Dynamic]).unwrap();
    assert_eq!(p.call((3.25,)).unwrap().as_f64(), Some(6.5));
    assert!(p.call((2.75,)).is_err());
}

// Fibonacci-like updates by destructuring assignment.
#[tracked]
fn fibonacci_like(x: f64) -> f64 {
    let (mut a, mut b) = (x, 1.0);
    for _ in 0..4 {
        (a, b) = (b, a + b * x);
    }
    a * b
}

// Nested, with a `_` place and a swap.
#[tracked]
fn swaps(x: f64) -> f64 {
    let (mut p, mut q, mut r) = (x, 2.0 * x, 0.5);
    ((p, _), r) = ((q, p), r * x);
    (p, q) = (q * r, p);
    p - q * r
}

#[test]
fn destructuring_assignment() {
    every_entry_point!(fibonacci_like, [0.7, 0.8, -1.3]);
    every_entry_point!(swaps, [0.7, -0.2, 3.0]);
}

// Loops over a dynamic vector through the std's iterator adaptors.
#[tracked]
fn weighted(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (i, &x) in v.iter().enumerate() {
        s += x * x * i as f64;
    }
    s
}

#[tracked]
fn dot_zip(v: Vec<f64>, w: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (a, b) in v.iter().zip(&w) {
        s += a * b.sin();
    }
    s
}

#[tracked]
fn horner_rev(v: Vec<f64>, x: f64) -> f64 {
    let mut s = 0.0;
    for c in v.iter().rev().copied() {
        s = s * x + c;
    }
    s
}

#[tracked]
fn every_other(v: Vec<f64>) -> f64 {
    let mut s = 1.0;
    for (k, x) in v.iter().rev().step_by(2).enumerate() {
        s = s * x + k as f64;
    }
    s + v.iter().skip(1).sum::<f64>()
}

/// `enumerate`, `zip` (with an iterator or a vector), `rev`, `copied`, `step_by` and `skip`
/// on a dynamic input's vector replay (each program refused them: "an iterator of a dynamic
/// input's vector, used otherwise than by a `for` loop", a tester, 2026-11-28), and their
/// derivative programs agree with the gradient.
#[test]
fn iterator_adaptors_in_programs() {
    use irtrack::diff::jvp;
    let v = vec![1.0, 2.0, 3.0, 4.5, -0.5];
    let u = vec![1.5, -2.0, 3.25, -1.0, 7.0];
    let dyn1 = [Input::Dynamic];
    let dyn2 = [Input::Dynamic, Input::Dynamic];
    let p = Program::from_trace(&track(weighted, (v.clone(),)), &dyn1).unwrap();
    assert_eq!(
        p.call((u.clone(),)).unwrap().as_f64(),
        Some(weighted(u.clone()))
    );
    let p = Program::from_trace(&track(dot_zip, (v.clone(), v.clone())), &dyn2).unwrap();
    assert_eq!(
        p.call((u.clone(), v.clone())).unwrap().as_f64(),
        Some(dot_zip(u.clone(), v.clone()))
    );
    // The pair is as long as the shorter vector: another length is another path.
    assert!(p.call((u.clone(), vec![1.0])).is_err());
    let p = Program::from_trace(&track(horner_rev, (v.clone(), 0.5)), &dyn2).unwrap();
    assert_eq!(
        p.call((u.clone(), -1.25)).unwrap().as_f64(),
        Some(horner_rev(u.clone(), -1.25))
    );
    let p = Program::from_trace(&track(every_other, (v.clone(),)), &dyn1).unwrap();
    assert_eq!(
        p.call((u.clone(),)).unwrap().as_f64(),
        Some(every_other(u.clone()))
    );
    assert!(p.call((vec![1.0, 2.0],)).is_err());
    // jvp along a direction against the gradient's inner product with it.
    let d = vec![0.5, -1.0, 0.25, 2.0, 1.0];
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let g = gradient(weighted, (u.clone(),)).unwrap();
    let j = jvp(weighted, (u.clone(),), (d.clone(),)).unwrap();
    let want = dot(g.wrt[0].as_ref().unwrap().as_slice().unwrap(), &d);
    assert!((j.tangent.as_f64().unwrap() - want).abs() < 1e-12);
    let g = gradient(dot_zip, (u.clone(), v.clone())).unwrap();
    let j = jvp(dot_zip, (u.clone(), v.clone()), (d.clone(), d.clone())).unwrap();
    let want = dot(g.wrt[0].as_ref().unwrap().as_slice().unwrap(), &d)
        + dot(g.wrt[1].as_ref().unwrap().as_slice().unwrap(), &d);
    assert!((j.tangent.as_f64().unwrap() - want).abs() < 1e-12);
    let g = gradient(horner_rev, (u.clone(), -1.25)).unwrap();
    let j = jvp(horner_rev, (u.clone(), -1.25), (d.clone(), 1.0)).unwrap();
    let want = dot(g.wrt[0].as_ref().unwrap().as_slice().unwrap(), &d)
        + g.wrt[1].as_ref().unwrap().as_scalar().unwrap();
    assert!((j.tangent.as_f64().unwrap() - want).abs() < 1e-9 * want.abs().max(1.0));
}

#[derive(Clone, Copy, Debug)]
struct V3 {
    x: f64,
    y: f64,
    z: f64,
}

#[tracked]
impl V3 {
    fn new(x: f64, y: f64, z: f64) -> V3 {
        V3 { x, y, z }
    }

    fn dot(&self, o: &V3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    fn scale(self, k: f64) -> V3 {
        V3 {
            x: self.x * k,
            y: self.y * k,
            z: self.z * k,
        }
    }
}

#[tracked]
fn geometry(t: f64) -> f64 {
    let a = V3::new(t, 2.0 * t.sin(), 1.0);
    let b = a.scale(0.5 + t);
    a.dot(&b) + b.z
}

#[derive(Clone, Debug)]
struct Body {
    pos: f64,
    vel: f64,
}

#[tracked]
fn euler_step(b: Body, dt: f64) -> Body {
    Body {
        vel: b.vel - 9.8 * dt,
        pos: b.pos + b.vel * dt,
    }
}

#[tracked]
fn fall(v0: f64) -> f64 {
    let mut b = Body { pos: 0.0, vel: v0 };
    for _ in 0..3 {
        b = euler_step(b, 0.1);
    }
    b.pos * b.vel
}

#[tracked]
fn written_into(v0: f64, y: f64) -> f64 {
    let mut b = Body { pos: 0.0, vel: v0 };
    b.pos = b.vel * y;
    b.pos + b.vel
}

/// Struct literals of the trace, read by their fields (also in tracked methods and through
/// tracked functions that take and return them), replay and differentiate: programs refused
/// every struct literal ("struct and tuple literals … cannot be re-executed", a tester,
/// 2026-11-28). A struct written into is still refused, saying so.
#[test]
fn struct_literals_in_programs() {
    every_entry_point!(geometry, [0.7, 0.9, -1.2]);
    every_entry_point!(fall, [0.7, 0.9, -1.2]);
    let e = Program::from_trace(
        &track(written_into, (0.7, 1.0)),
        &[Input::Dynamic, Input::Dynamic],
    )
    .and_then(|p| p.call((0.9, 2.0)))
    .unwrap_err();
    assert!(e.to_string().contains("struct literal used whole"), "{e}");
}

#[tracked]
fn safe_ln(x: f64) -> Option<f64> {
    if x > 0.0 {
        Some(x.ln())
    } else {
        None
    }
}

#[tracked]
fn ln_or_zero(x: f64) -> f64 {
    match safe_ln(x) {
        Some(v) => v * x,
        None => 0.0,
    }
}

#[tracked]
fn ln_if_let(x: f64) -> f64 {
    let shifted = safe_ln(x + 2.0).unwrap() + safe_ln(x + 1.0).unwrap_or(0.5);
    if let Some(v) = safe_ln(x) {
        v * shifted
    } else {
        -1.0
    }
}

#[tracked]
fn ln_squared(x: f64) -> Option<f64> {
    let v = safe_ln(x)?;
    Some(v * v)
}

#[tracked]
fn through_question_mark(x: f64) -> f64 {
    ln_squared(x).unwrap_or(0.0) * x
}

// The variant asked for (`is_some`): a gradient refuses the test (an `Option` may come from code
// it does not see), a program replays it where its path made the `Some`.
#[tracked]
fn variant_tested(x: f64) -> f64 {
    let known = safe_ln(x).is_some();
    if known {
        x * 2.0
    } else {
        0.0
    }
}

const ONE: f64 = 1.0;

// An arm before the one taken tests the content (`Some(ONE)`, a constant): the path holds only
// while the content is not 1, which the variant does not say.
#[tracked]
fn content_tested(x: f64) -> f64 {
    match safe_ln(x) {
        Some(ONE) => 5.0,
        Some(v) => v,
        None => 0.0,
    }
}

/// `Some(x)` of a dynamic value, read back by `match`, `if let`, `?`, `unwrap`, `unwrap_or` and
/// `is_some` in programs (each refused: "`Some` … calls a function irtrack cannot run again", a
/// tester, 2026-11-28); the variant is the path's, whose branch is guarded, so an input that
/// makes `None` is a guard error. A pattern that tests the content is refused.
#[test]
fn options_in_programs() {
    every_entry_point!(ln_or_zero, [0.7, 0.9, 3.0]);
    every_entry_point!(ln_if_let, [0.7, 0.9, 3.0]);
    every_entry_point!(through_question_mark, [0.7, 0.9, 3.0]);
    macro_rules! guarded_at_none {
        ($($f:ident),*) => {$(
            let p = Program::from_trace(&track($f, (0.7,)), &[Input::Dynamic]).unwrap();
            assert!(p.call((-0.5,)).is_err());
        )*};
    }
    guarded_at_none!(ln_or_zero, ln_if_let, through_question_mark);
    let p = Program::from_trace(&track(variant_tested, (0.7,)), &[Input::Dynamic]).unwrap();
    assert_eq!(p.call((0.9,)).unwrap().as_f64(), Some(1.8));
    assert!(p.call((-0.9,)).is_err());
    let e = Program::from_trace(&track(content_tested, (0.7,)), &[Input::Dynamic])
        .and_then(|p| p.call((0.9,)))
        .unwrap_err();
    assert!(e.to_string().contains("pattern"), "{e}");
}

#[tracked]
fn simpson<F: Fn(f64) -> f64>(f: F, a: f64, b: f64, n: usize) -> f64 {
    let h = (b - a) / n as f64;
    let mut s = f(a) + f(b);
    for i in 1..n {
        let t = a + i as f64 * h;
        s += if i % 2 == 1 { 4.0 * f(t) } else { 2.0 * f(t) };
    }
    s * h / 3.0
}

// A closure written as the argument, capturing the input (and a local made from it).
#[tracked]
fn integral(k: f64) -> f64 {
    let shift = k * k;
    simpson(|t| (k * t).sin() + shift, 0.0, 1.0, 10)
}

struct Integrator {
    n: usize,
}

#[tracked]
impl Integrator {
    fn run<F: Fn(f64) -> f64>(&self, f: F) -> f64 {
        simpson(f, 0.0, 2.0, self.n)
    }
}

// Through a tracked method, the closure passed on.
#[tracked]
fn integral_by_method(k: f64) -> f64 {
    let i = Integrator { n: 8 };
    i.run(|t| (k - t).exp())
}

/// A closure written as a call's argument links its captures to the variables they hold, as
/// one bound by `let` does: gradients, programs and derivative programs follow them (the
/// gradient refused, "the closure … uses the captured variable `k`", a tester, 2026-11-28).
#[test]
fn closures_written_as_arguments() {
    every_entry_point!(integral, [0.7, 0.9, -1.3]);
    every_entry_point!(integral_by_method, [0.7, 0.9, -1.3]);
}

#[tracked]
fn first_n(v: Vec<f64>, n: usize) -> f64 {
    let mut s = 0.0;
    for x in v.iter().take(n) {
        s = s * 2.0 + x;
    }
    s + v.iter().skip(n).step_by(n).sum::<f64>()
}

#[tracked]
fn walked_on_after_take(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    let mut s = 0.0;
    for x in (&mut it).take(2) {
        s += x;
    }
    let mut t = 0.0;
    for x in it {
        t = t * 3.0 + x;
    }
    s * 10.0 + t
}

/// A count given to `take`, `skip` or `step_by` that depends on a dynamic input is guarded
/// (the program kept the recorded count: `take(n)` recorded at 3 gave 7 at `n = 2` for 0; an
/// audit, 2026-11-28), and an iterator walked on after an adaptor took it by reference is
/// refused (its walk started again at element 0, unseen where the elements were equal).
#[test]
fn iterator_adaptors_are_guarded() {
    let v = vec![1.0, 2.0, 3.0, 4.0, 5.0];
    let u = vec![0.5, -1.0, 7.0, 2.5, 3.25];
    let p = Program::from_trace(
        &track(first_n, (v.clone(), 3)),
        &[Input::Dynamic, Input::Dynamic],
    )
    .unwrap();
    assert_eq!(
        p.call((u.clone(), 3usize)).unwrap().as_f64(),
        Some(first_n(u.clone(), 3))
    );
    assert!(p.call((u.clone(), 2usize)).is_err());
    assert!(p.call((u.clone(), 4usize)).is_err());
    for recorded in [vec![0.0; 5], v.clone()] {
        let r = Program::from_trace(&track(walked_on_after_take, (recorded,)), &[Input::Dynamic])
            .and_then(|p| p.call((u.clone(),)));
        match r {
            Ok(x) => assert_eq!(x.as_f64(), Some(walked_on_after_take(u.clone()))),
            Err(e) => assert!(e.to_string().contains("adaptor took it"), "{e}"),
        }
    }
}

#[tracked]
fn on_pair<F: Fn((f64, f64)) -> f64>(f: F, t: f64) -> f64 {
    f((t, 2.0)) + f((1.0, t))
}

// A closure whose parameter is a typed tuple pattern, written as an argument.
#[tracked]
fn pair_closure(x: f64) -> f64 {
    let k = 1.5;
    on_pair(|(a, b): (f64, f64)| a * b * k + a.sin(), x)
}

/// A closure's typed pattern parameter is one argument, bound by a `let` (it made one argument
/// per binding: a call of one argument met a closure of two, a malformed trace; an audit,
/// 2026-11-28). (A program refuses it: the tuple made in the generic `on_pair` is recorded by
/// its type only.)
#[test]
fn a_closures_pattern_parameter_is_one_argument() {
    for x in [0.7, 0.9, -1.3] {
        track(pair_closure, (x,)).verify().unwrap();
        close(grad!(pair_closure, x), fd(pair_closure, x), "gradient");
    }
}

#[tracked]
fn mean_of<F: Fn(f64) -> f64>(f: F, n: usize) -> f64 {
    let mut s = 0.0;
    (0..n).for_each(|i| s += f(i as f64));
    s / n as f64 + (0..n).map(|i| f(i as f64)).fold(0.0, f64::max)
}

/// A closure inside a tracked function calling a callable the function took (`f: F`) compiles:
/// the macro passed the captured `f` by value to its key reader, a move out of an `FnMut`
/// closure (E0507; an audit, 2026-11-28). Its value is the plain function's.
#[test]
fn a_closure_calling_a_captured_callable_compiles() {
    let (v, t) = irtrack::track_output(mean_of, (|t: f64| t * 0.5, 4));
    t.verify().unwrap();
    assert_eq!(v, 0.75 + 1.5);
}

// `sin_cos` called by its path.
#[tracked]
fn by_path(x: f64) -> f64 {
    let (s, c) = f64::sin_cos(x * 1.5);
    s * x - c
}

#[test]
fn sin_cos_by_its_path() {
    every_entry_point!(by_path, [0.7, 0.75, -1.3]);
}

// `sin_cos` on the elements of a vector, through references.
#[tracked]
fn angles(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for t in v.iter() {
        let (a, b) = t.sin_cos();
        s += a * b + a;
    }
    s
}

/// `sin_cos` on a reference to a float is the float method where the recorded pair says so,
/// as `sin` on one is (it had no rule, and programs could not run it again; a tester,
/// 2026-11-28).
#[test]
fn sin_cos_on_a_reference() {
    let v = vec![0.3, -1.2, 2.5];
    let g = gradient(angles, (v.clone(),)).unwrap();
    let g = g.wrt[0].as_ref().unwrap().as_slice().unwrap().to_vec();
    for (k, &x) in v.iter().enumerate() {
        let want = (2.0 * x).cos() + x.cos();
        assert!((g[k] - want).abs() < 1e-12, "{k}: {} vs {want}", g[k]);
    }
    let p = Program::from_trace(&track(angles, (v.clone(),)), &[Input::Dynamic]).unwrap();
    let u = vec![0.1, 0.2, 0.4];
    assert_eq!(p.call((u.clone(),)).unwrap().as_f64(), Some(angles(u)));
}

// A nested pattern over a pair of walks: consecutive differences, weighted by position.
#[tracked]
fn weighted_steps(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (i, (a, b)) in v.iter().zip(v.iter().skip(1)).enumerate() {
        s += (b - a) * (b - a) * (i + 1) as f64;
    }
    s
}

/// A nested pattern in a loop (`for (i, (a, b)) in ….zip(…).enumerate()`) binds the parts it
/// names (the gradient and programs refused it: "binds a part of an element … that is not the
/// element itself"; tester E and audit C, 2026-11-28).
#[test]
fn nested_patterns_over_zip_and_enumerate() {
    let v = vec![1.0, 2.5, 2.0, 4.0];
    vector_gradient_matches!(weighted_steps, v);
    let p = Program::from_trace(&track(weighted_steps, (v.clone(),)), &[Input::Dynamic]).unwrap();
    let u = vec![0.5, -1.0, 3.0, 2.0];
    assert_eq!(
        p.call((u.clone(),)).unwrap().as_f64(),
        Some(weighted_steps(u))
    );
}

#[tracked]
fn through_deref(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for t in v.iter() {
        s += (*t).sin();
        let (a, b) = (*t).sin_cos();
        s += a * b;
    }
    let r = &s;
    (*r).exp()
}

/// A float method called on what a reference points at (`(*r).sin()`, which the README
/// advises where a trait of the reference type could be found first) is recorded with its
/// receiver: it was not ("takes a closure, or another value the trace did not record"), so
/// the README's advice led to a refusal (a tester, 2026-11-28).
#[test]
fn a_method_on_what_a_reference_points_at() {
    let v = vec![0.5, 1.0];
    vector_gradient_matches!(through_deref, v);
    let p = Program::from_trace(&track(through_deref, (v,)), &[Input::Dynamic]).unwrap();
    let u = vec![0.25, 2.0];
    assert_eq!(
        p.call((u.clone(),)).unwrap().as_f64(),
        Some(through_deref(u))
    );
}

#[derive(Clone, Copy, Debug)]
struct Pt {
    x: f64,
    y: f64,
}

#[tracked]
fn make_pt(t: f64) -> Pt {
    Pt {
        x: t * 2.0,
        y: t.sin(),
    }
}

// A struct taken apart by a pattern (`let Pt { x, y } = …`, also renamed and with `..`).
#[tracked]
fn struct_pattern(t: f64) -> f64 {
    let Pt { x, y } = make_pt(t);
    let Pt { y: w, .. } = make_pt(x);
    x * y + w
}

/// A struct pattern's bindings name their fields (`FnIr::bind_path`), as a read `p.x` does:
/// gradients and programs follow them (each binding was refused: "a part of a struct"; an
/// audit, 2026-11-28).
#[test]
fn struct_patterns() {
    every_entry_point!(struct_pattern, [0.7, 0.9, -1.3]);
    // An argument taken apart: each field's slope, by its name.
    let g = gradient(argument_pattern, (Pt { x: 2.0, y: 3.0 },)).unwrap();
    let Some(Tangent::Fields(fields)) = &g.wrt[0] else {
        panic!("{:?}", g.wrt)
    };
    let slope = |name: &str| {
        fields
            .iter()
            .find(|(p, _)| p == name)
            .and_then(|(_, t)| t.as_scalar())
    };
    assert_eq!(slope("x"), Some(3.0 + 2.0f64.cos()));
    assert_eq!(slope("y"), Some(2.0));
}

#[tracked]
fn argument_pattern(p: Pt) -> f64 {
    let Pt { x, y: w } = p;
    x * w + x.sin()
}

#[tracked]
fn ln_or(x: f64, fallback: f64) -> f64 {
    safe_ln(x).unwrap_or(fallback * 2.0) + fallback
}

/// `unwrap_or` of an `Option` that is `None` on the path, with a dynamic default: the default
/// (it was "cannot run again"; an audit, 2026-11-28). Where the path makes `Some`, a guard.
#[test]
fn unwrap_or_of_none_replays_its_default() {
    let p = Program::from_trace(
        &track(ln_or, (-1.0, 0.5)),
        &[Input::Dynamic, Input::Dynamic],
    )
    .unwrap();
    assert_eq!(
        p.call((-2.0, 1.5)).unwrap().as_f64(),
        Some(ln_or(-2.0, 1.5))
    );
    assert!(p.call((2.0, 1.5)).is_err());
}

#[tracked]
fn integer_methods(k: i32, n: i32, x: f64) -> f64 {
    let a = k.abs() + n.signum();
    let b = k.max(n) - k.min(n);
    let c = k.clamp(-3, 7) + k.rem_euclid(5) * 10 + n.div_euclid(4);
    let u = (n as u32).max(3) - (n as u32).min(9) / 2;
    x * (a + b + c) as f64 + u as f64
}

/// The integer methods named as float methods (`abs`, `signum`, `max`, `min`, `clamp`,
/// `rem_euclid`, `div_euclid`) on dynamic integers replay (they were "cannot run again", a
/// tester, 2026-11-28): the function's value at every point, bit for bit, and an error where
/// Rust would panic (`i32::MIN.abs()` overflows, `rem_euclid` by 0 is no case here).
#[test]
fn integer_methods_replay() {
    use irtrack::program::{Input, Program};
    let p = Program::from_trace(
        &track(integer_methods, (4, -6, 1.5)),
        &[Input::Dynamic, Input::Dynamic, Input::Dynamic],
    )
    .unwrap();
    for k in [-9, -1, 0, 3, 4, 12, 1 << 20] {
        for n in [-7, -6, 0, 5, 11] {
            let want = integer_methods(k, n, 2.5);
            let got = p.call((k, n, 2.5)).unwrap().as_f64().unwrap();
            assert_eq!(got.to_bits(), want.to_bits(), "at ({k}, {n})");
        }
    }
    assert!(p.call((i32::MIN, 1, 2.5)).is_err());
    let g = irtrack::gradient(integer_methods, (4, -6, 1.5)).unwrap();
    assert_eq!(
        g.scalars().last().copied().flatten(),
        Some(f64::from(4 - 1 + 10 + 4 + 40 - 2))
    );
    // In generic code a bound's `max` may be found instead: not replayed as `Ord::max`.
    let p = Program::from_trace(
        &track(larger::<i32>, (4, 9)),
        &[Input::Dynamic, Input::Dynamic],
    );
    assert!(p.is_err() || p.unwrap().call((1, 5)).unwrap().downcast_ref::<i32>() == Some(&1));
}

/// A trait's `max` on `i32` (in scope beside `Ord`, a call `k.max(n)` on an `i32` would be
/// ambiguous: E0034), reached through a generic bound.
mod generic_max {
    use irtrack::tracked;

    pub trait Larger: Copy {
        fn max(self, o: Self) -> Self;
    }
    impl Larger for i32 {
        // Not `Ord::max`: the first operand, whatever the second.
        fn max(self, _o: i32) -> i32 {
            self
        }
    }

    #[tracked]
    pub fn larger<T: Larger>(a: T, b: T) -> T {
        a.max(b)
    }
}
use generic_max::larger;

#[tracked]
fn riemann_sum(n: u32, a: f64) -> f64 {
    let h = 1.0 / f64::from(n);
    let mut s = 0.0;
    let mut i = 0u32;
    while i < n {
        let t = (f64::from(i) + 0.5) * h;
        s += (a * t).sin() * h;
        i += 1;
    }
    s + f64::from(2.5f32) * f64::from(-3i8)
}

/// `f64::from(i)` of an integer (and of an `f32`) is the cast `as` makes: programs replay it
/// (it was "cannot run again"), and derivative programs take its slope.
#[test]
fn conversions_by_from_replay() {
    let p = Program::from_trace(
        &track(riemann_sum, (8, 1.5)),
        &[Input::Static, Input::Dynamic],
    )
    .unwrap();
    for a in [0.0, 1.5, -2.25, 40.0] {
        let got = p.call((8u32, a)).unwrap().as_f64().unwrap();
        assert_eq!(got.to_bits(), riemann_sum(8, a).to_bits(), "at {a}");
    }
    let d = irtrack::diff::differentiate(&p, &[1]).unwrap();
    let g = d.call((8u32, 1.5, 1.0)).unwrap().as_f64().unwrap();
    let want: f64 = (0..8)
        .map(|i| {
            let t = (f64::from(i) + 0.5) / 8.0;
            t * (1.5 * t).cos() / 8.0
        })
        .sum();
    assert!((g - want).abs() < 1e-12, "{g} {want}");
}
