//! The checks of the generated program (copied into the generated crate as `src/checker.rs`;
//! not compiled as part of irtrack's tests).
//!
//! For each unit, at a few random inputs: the plain function, the tracked function called
//! directly (nothing recording), and `irtrack::track_output` of the tracked function must agree
//! bitwise (floats by `to_bits`; NaN equals NaN), or all panic; the trace must pass
//! `Trace::verify`; and for a function returning `f64` (or `Option<f64>`) of float arguments,
//! `irtrack::gradient` must be a `GradError` ("refused") or agree with central finite
//! differences of the plain function; and so must `irtrack::diff::vjp` with the cotangent 1
//! (the derivative program built by the symbolic rules, a `DiffError` when refused). For a
//! function of floats, integers and `bool`s returning `f64`, the program of its trace with the
//! float arguments dynamic must give the function's value at the recorded point, and at nearby
//! and fresh points either the plain function's value, bitwise, or an error (a guard of the
//! recorded path failing).
//!
//! Each unit prints `START <name>` and then one line `RESULT <name> pass …` or
//! `RESULT <name> fail <check> <message>` (the message with `\n` escaped), flushed at once, so
//! the harness knows where a crash or a hang happened.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fmt::Debug;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// How many inputs each unit is called with.
pub const POINTS: usize = 4;

/// The finite-difference step, relative: `h = STEP·max(1, |x|)`, and `10·h` for the second
/// quotient.
pub const STEP: f64 = 1e-6;
/// A gradient `g` agrees with the difference quotient `d` when `|g - d| ≤ TOL·max(1, |d|)`.
pub const TOL: f64 = 1e-4;

/// The branches a recorded run took, in order: the location (`[§b:&k]`) of every jump and
/// return in the listing, with its nesting depth, without values.
pub fn path(trace: irtrack::Trace) -> String {
    let listing = trace.root().to_string();
    let mut out = String::new();
    for line in listing.lines() {
        let Some(i) = line.find("[§") else { continue };
        let Some(j) = line[i..].find(']') else {
            continue;
        };
        let location = &line[i..i + j + 1];
        let depth = line.len() - line.trim_start().len();
        if location.contains('&') {
            out.push_str(&format!("{depth}{location} "));
        } else if let Some(value) = piecewise_value(line) {
            // The gradient of a step function is 0 on each step: the slope of the path the
            // run took holds only while every step keeps its value (`trunc(x^34)` at 10¹¹
            // changes step many times within a finite difference's step, which then sees
            // the slope of `x^34`; seed 13, unit 852).
            out.push_str(&format!("{depth}{location}={value} "));
        }
    }
    out
}

/// The value of a listing line's piecewise-constant operation (`⟨floor⟩`, `⟨trunc⟩`, a cast to
/// an integer, …), if it is one.
fn piecewise_value(line: &str) -> Option<&str> {
    const STEPS: [&str; 8] = [
        "⟨floor⟩",
        "⟨ceil⟩",
        "⟨round⟩",
        "⟨round_ties_even⟩",
        "⟨trunc⟩",
        "⟨signum⟩",
        "$(as i",
        "$(as u",
    ];
    if !STEPS.iter().any(|s| line.contains(s)) {
        return None;
    }
    line.rsplit_once(" → ").map(|(_, v)| v)
}

/// Output equality: bitwise, NaN equal to NaN.
pub trait Same: Debug {
    fn same(&self, other: &Self) -> bool;
}

impl Same for f64 {
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits() || (self.is_nan() && other.is_nan())
    }
}

impl Same for i64 {
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

impl Same for bool {
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

impl Same for Vec<f64> {
    fn same(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.same(b))
    }
}

impl Same for Option<f64> {
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.same(b),
            (None, None) => true,
            _ => false,
        }
    }
}

/// An output seen as a real number, for finite differences.
pub trait Real {
    fn real(&self) -> Option<f64>;
}

impl Real for f64 {
    fn real(&self) -> Option<f64> {
        Some(*self)
    }
}

impl Real for Option<f64> {
    fn real(&self) -> Option<f64> {
        *self
    }
}

/// One argument of the entry, for the gradient check.
pub enum Arg {
    /// An `f64`: a scalar gradient, checked.
    F(f64),
    /// A `Vec<f64>`: a gradient of its length, checked element by element.
    V(Vec<f64>),
    /// An integer or a `bool`: the gradient must be `None`.
    N,
    /// A struct or an `Option`: not checked.
    S,
}

pub fn arb_f64(rng: &mut StdRng) -> f64 {
    match rng.random_range(0..10) {
        0 => [0.0, 1.0, -1.0, 0.5, 2.0, -0.0][rng.random_range(0..6)],
        1 => rng.random_range(-100.0..100.0),
        2 => rng.random_range(-4i32..=4) as f64,
        _ => rng.random_range(-3.0..3.0),
    }
}

pub fn arb_i64(rng: &mut StdRng) -> i64 {
    match rng.random_range(0..20) {
        0 => [i64::MAX, i64::MIN, 1 << 40, -1000][rng.random_range(0..4)],
        1..=3 => rng.random_range(-1000..1000),
        _ => rng.random_range(-10..=10),
    }
}

pub fn arb_bool(rng: &mut StdRng) -> bool {
    rng.random_bool(0.5)
}

pub fn arb_vec(rng: &mut StdRng) -> Vec<f64> {
    let n = rng.random_range(1..=4);
    (0..n).map(|_| arb_f64(rng)).collect()
}

pub fn arb_opt(rng: &mut StdRng) -> Option<f64> {
    if rng.random_bool(0.8) {
        Some(arb_f64(rng))
    } else {
        None
    }
}

/// What a call did: its value, or the panic's message.
type Run<T> = Result<T, String>;

fn run<T>(f: impl FnOnce() -> T) -> Run<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        if let Some(s) = p.downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = p.downcast_ref::<String>() {
            s.clone()
        } else {
            "(a panic without a message)".to_string()
        }
    })
}

fn show<T: Debug>(r: &Run<T>) -> String {
    match r {
        Ok(v) => format!("{v:?}"),
        Err(m) => format!("panicked: {m}"),
    }
}

/// The checks of one unit.
pub struct Checker {
    name: String,
    pub rng: StdRng,
    failure: Option<(String, String)>,
    refused: usize,
    refusals: Vec<String>,
    skipped: usize,
    compared: usize,
    gradients: usize,
    /// The same for `vjp`: calls that returned cotangents, that were refused, and the
    /// coordinates compared.
    vjps: usize,
    vjp_refused: usize,
    vjp_compared: usize,
    /// Programs built and run at the recorded point; the points they were run at after it
    /// that gave a value (compared), and that gave an error (a guard, mostly).
    replays: usize,
    replay_compared: usize,
    replay_refused: usize,
}

/// Which derivative a check is of.
#[derive(Clone, Copy, PartialEq)]
enum Which {
    Gradient,
    Vjp,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Which::Gradient => "gradient",
            Which::Vjp => "vjp",
        }
    }
}

impl Checker {
    pub fn new(name: &str, seed: u64) -> Checker {
        println!("START {name}");
        let _ = std::io::stdout().flush();
        Checker {
            name: name.to_string(),
            rng: StdRng::seed_from_u64(seed),
            failure: None,
            refused: 0,
            refusals: vec![],
            skipped: 0,
            compared: 0,
            gradients: 0,
            vjps: 0,
            vjp_refused: 0,
            vjp_compared: 0,
            replays: 0,
            replay_compared: 0,
            replay_refused: 0,
        }
    }

    pub fn failed(&self) -> bool {
        self.failure.is_some()
    }

    fn fail(&mut self, check: &str, message: String) {
        if self.failure.is_none() {
            self.failure = Some((check.to_string(), message));
        }
    }

    /// Plain, tracked called directly, and tracked under `track_output` must agree; the trace
    /// must verify. Returns the plain output when the plain call did not panic.
    pub fn value<T: Same>(
        &mut self,
        args: &str,
        plain: impl FnOnce() -> T,
        direct: impl FnOnce() -> T,
        tracked: impl FnOnce() -> (T, irtrack::Trace),
    ) -> Option<T> {
        if self.failed() {
            return None;
        }
        let p = run(plain);
        let d = run(direct);
        let agree = |a: &Run<T>, b: &Run<T>| match (a, b) {
            (Ok(x), Ok(y)) => x.same(y),
            (Err(_), Err(_)) => true,
            _ => false,
        };
        if !agree(&p, &d) {
            self.fail(
                "value-direct",
                format!(
                    "f({args}): plain {} but the tracked function called directly {}",
                    show(&p),
                    show(&d)
                ),
            );
            return None;
        }
        let t = run(tracked);
        let (out, trace) = match t {
            Ok((out, trace)) => (Ok(out), Some(trace)),
            Err(m) => (Err(m), None),
        };
        if !agree(&p, &out) {
            self.fail(
                "value-tracked",
                format!(
                    "f({args}): plain {} but under track_output {}",
                    show(&p),
                    show(&out)
                ),
            );
            return None;
        }
        if let Some(trace) = trace {
            if let Err(e) = trace.verify() {
                let listing = trace.to_string();
                let listing: String = listing.lines().take(80).collect::<Vec<_>>().join("\n");
                self.fail(
                    "verify",
                    format!("f({args}): Trace::verify: {e}\ntrace:\n{listing}"),
                );
                return None;
            }
        }
        p.ok()
    }

    /// The gradient at `args` against central differences of `plain` (a function of the
    /// float arguments, laid out flat as in `layout`).
    pub fn gradient<T: Same + Real>(
        &mut self,
        args: &str,
        layout: &[Arg],
        out: &T,
        plain: impl Fn(&[f64]) -> T,
        path: impl Fn(&[f64]) -> String,
        grad: impl FnOnce() -> Result<irtrack::Gradient<T>, irtrack::GradError>,
    ) {
        self.derivative(Which::Gradient, args, layout, out, plain, path, || {
            grad().map_err(|e| kind(&e))
        })
    }

    /// `vjp` with the cotangent 1 at `args`, as [`gradient`](Self::gradient).
    pub fn vjp<T: Same + Real>(
        &mut self,
        args: &str,
        layout: &[Arg],
        out: &T,
        plain: impl Fn(&[f64]) -> T,
        path: impl Fn(&[f64]) -> String,
        vjp: impl FnOnce() -> Result<irtrack::diff::Vjp<T>, irtrack::diff::DiffError>,
    ) {
        self.derivative(Which::Vjp, args, layout, out, plain, path, || {
            let r = vjp().map_err(|e| kind(&e))?;
            let wrt = r
                .cotangents
                .iter()
                .map(|c| {
                    let c = c.as_ref()?;
                    if let Some(x) = c.as_f64() {
                        return Some(irtrack::Tangent::Scalar(x));
                    }
                    c.downcast_ref::<Vec<f64>>()
                        .map(|v| irtrack::Tangent::Vector(v.clone()))
                })
                .collect();
            Ok(irtrack::Gradient {
                value: r.value,
                wrt,
            })
        })
    }

    /// The program of the trace at `layout` (its float arguments dynamic): its value at the
    /// recorded point must be `out`; at other points (a nudge, a step, a fresh draw of every
    /// float) it must give the plain function's value bitwise, or an error.
    pub fn replay(
        &mut self,
        args: &str,
        layout: &[Arg],
        out: &f64,
        plain: impl Fn(&[f64]) -> f64,
        replay: impl Fn(&[f64]) -> Result<f64, String>,
    ) {
        if self.failed() {
            return;
        }
        let flat = flatten(layout);
        match run(|| replay(&flat)) {
            Err(m) => {
                self.fail(
                    "replay-panic",
                    format!("f({args}): the program panicked: {m}"),
                );
                return;
            }
            Ok(Err(kind)) => {
                self.refusals.push(format!("replay:{kind}"));
                return;
            }
            Ok(Ok(v)) if !v.same(out) => {
                self.fail(
                    "replay-value",
                    format!("f({args}) = {out:?}, but its program gives {v:?} at the same point"),
                );
                return;
            }
            Ok(Ok(_)) => self.replays += 1,
        }
        let nudge: Vec<f64> = flat.iter().map(|x| x + 1e-9 * x.abs().max(1.0)).collect();
        let step: Vec<f64> = flat.iter().map(|x| x - 1e-3 * x.abs().max(1.0)).collect();
        let fresh: Vec<f64> = flat.iter().map(|_| arb_f64(&mut self.rng)).collect();
        for q in [nudge, step, fresh] {
            let want = match run(|| plain(&q)) {
                Ok(w) => w,
                // The function panics there: the program may not (a macro's effects, an
                // `assert!`, are not replayed).
                Err(_) => continue,
            };
            match run(|| replay(&q)) {
                Err(m) => {
                    self.fail(
                        "replay-panic",
                        format!("f({args}): the program panicked at {q:?}: {m}"),
                    );
                    return;
                }
                Ok(Err(_)) => self.replay_refused += 1,
                Ok(Ok(v)) if !v.same(&want) => {
                    self.fail(
                        "replay-wrong",
                        format!(
                            "f({args}) = {out:?}: its program at the floats {q:?} gives {v:?}, \
                             the function {want:?}"
                        ),
                    );
                    return;
                }
                Ok(Ok(_)) => self.replay_compared += 1,
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn derivative<T: Same + Real>(
        &mut self,
        which: Which,
        args: &str,
        layout: &[Arg],
        out: &T,
        plain: impl Fn(&[f64]) -> T,
        path: impl Fn(&[f64]) -> String,
        grad: impl FnOnce() -> Result<irtrack::Gradient<T>, String>,
    ) {
        let name = which.name();
        if self.failed() || out.real().is_none() {
            return;
        }
        let g = match run(grad) {
            Err(m) => {
                self.fail(
                    &format!("{name}-panic"),
                    format!("f({args}) = {out:?}, but irtrack's {name} panicked: {m}"),
                );
                return;
            }
            Ok(Err(kind)) => {
                match which {
                    Which::Gradient => {
                        self.refused += 1;
                        self.refusals.push(kind);
                    }
                    Which::Vjp => {
                        self.vjp_refused += 1;
                        self.refusals.push(format!("vjp:{kind}"));
                    }
                }
                return;
            }
            Ok(Ok(g)) => g,
        };
        match which {
            Which::Gradient => self.gradients += 1,
            Which::Vjp => self.vjps += 1,
        }
        if !g.value.same(out) {
            self.fail(
                &format!("{name}-value"),
                format!(
                    "f({args}) = {out:?}, but irtrack's {name} has the value {:?}",
                    g.value
                ),
            );
            return;
        }
        if g.wrt.len() != layout.len() {
            self.fail(
                &format!("{name}-shape"),
                format!(
                    "f({args}): {} arguments but {} gradients",
                    layout.len(),
                    g.wrt.len()
                ),
            );
            return;
        }
        let flat = flatten(layout);
        let mut at = 0;
        for (i, (a, t)) in layout.iter().zip(&g.wrt).enumerate() {
            let got: Vec<f64> = match (a, t) {
                (Arg::N, None) | (Arg::S, _) => continue,
                (Arg::N, Some(t)) => {
                    self.fail(
                        &format!("{name}-shape"),
                        format!(
                            "f({args}): argument {} is not a float but has the gradient {t}",
                            i + 1
                        ),
                    );
                    return;
                }
                (Arg::F(_), Some(t)) if t.as_scalar().is_some() => vec![t.as_scalar().unwrap()],
                (Arg::V(xs), Some(t)) if t.as_slice().is_some_and(|s| s.len() == xs.len()) => {
                    t.as_slice().unwrap().to_vec()
                }
                (_, t) => {
                    self.fail(
                        &format!("{name}-shape"),
                        format!(
                            "f({args}): argument {} is a float value but its gradient is {}",
                            i + 1,
                            t.as_ref().map(|t| t.to_string()).unwrap_or("None".into())
                        ),
                    );
                    return;
                }
            };
            for (k, gk) in got.into_iter().enumerate() {
                let j = at + k;
                match self.difference(&plain, &path, &flat, j) {
                    None if which == Which::Gradient => self.skipped += 1,
                    None => {}
                    Some(d) => {
                        match which {
                            Which::Gradient => self.compared += 1,
                            Which::Vjp => self.vjp_compared += 1,
                        }
                        let ok = (gk - d).abs() <= TOL * d.abs().max(1.0);
                        if !ok {
                            let at = match a {
                                Arg::V(_) => format!("argument {} element {k}", i + 1),
                                _ => format!("argument {}", i + 1),
                            };
                            self.fail(
                                &format!("{name}-wrong"),
                                format!(
                                    "f({args}) = {out:?}: the {name} for {at} is {gk:?}, \
                                     finite differences say {d:?}"
                                ),
                            );
                            return;
                        }
                    }
                }
            }
            at += match a {
                Arg::F(_) => 1,
                Arg::V(xs) => xs.len(),
                _ => 0,
            };
        }
    }

    /// The central difference of `f` in coordinate `j`, or `None` where it is unreliable: a
    /// panic or a non-finite value at the point or nearby, the central quotients at steps `h`
    /// and `10·h` disagree (a kink or a branch switch close by, or rounding noise), or the
    /// forward and backward quotients at step `h` disagree (a kink at the point itself, which
    /// central quotients average over), or the output is so large that its rounding over the
    /// step hides the slope.
    fn difference<T: Real>(
        &self,
        f: &impl Fn(&[f64]) -> T,
        path: &impl Fn(&[f64]) -> String,
        p: &[f64],
        j: usize,
    ) -> Option<f64> {
        let at = |x: f64| -> Option<(f64, f64)> {
            let mut a = p.to_vec();
            a[j] = x;
            let y = run(|| f(&a)).ok()?.real()?;
            y.is_finite().then_some((x, y))
        };
        let h = STEP * p[j].abs().max(1.0);
        // The gradient is the derivative of the path the run took; where the path at `x ± h`
        // is another (`if x - x != 3.0 * x` holds everywhere but at 0), the quotients see the
        // function across a branch switch, not that path's slope.
        let route = |x: f64| -> Option<String> {
            let mut a = p.to_vec();
            a[j] = x;
            run(|| path(&a)).ok()
        };
        let here = route(p[j])?;
        for x in [p[j] + h, p[j] - h, p[j] + 10.0 * h, p[j] - 10.0 * h] {
            if route(x)? != here {
                return None;
            }
        }
        let (x0, y0) = at(p[j])?;
        let (xp, yp) = at(p[j] + h)?;
        let (xm, ym) = at(p[j] - h)?;
        let (xp10, yp10) = at(p[j] + 10.0 * h)?;
        let (xm10, ym10) = at(p[j] - 10.0 * h)?;
        let central = (yp - ym) / (xp - xm);
        let central10 = (yp10 - ym10) / (xp10 - xm10);
        let forward = (yp - y0) / (xp - x0);
        let backward = (y0 - ym) / (x0 - xm);
        let close = |a: f64, b: f64| (a - b).abs() <= TOL * a.abs().max(1.0);
        // A quotient cannot see a slope smaller than the output's rounding over the step
        // (`4^49 + x`: `x` is below the ulp of the sum, so every quotient is 0).
        let resolution = 8.0 * f64::EPSILON * y0.abs().max(yp.abs()).max(ym.abs()) / h;
        let resolved = resolution <= TOL * central.abs().max(1.0);
        (central.is_finite() && resolved && close(central, central10) && close(forward, backward))
            .then_some(central)
    }

    /// Prints the unit's result line.
    pub fn finish(self) {
        let line = match &self.failure {
            None => format!(
                "RESULT {} pass refused={} skipped={} compared={} gradients={} vjps={} \
                 vjp_refused={} vjp_compared={} replays={} replay_compared={} \
                 replay_refused={} refusals={}",
                self.name,
                self.refused,
                self.skipped,
                self.compared,
                self.gradients,
                self.vjps,
                self.vjp_refused,
                self.vjp_compared,
                self.replays,
                self.replay_compared,
                self.replay_refused,
                self.refusals.join(",")
            ),
            Some((check, message)) => format!(
                "RESULT {} fail {check} {}",
                self.name,
                message.replace('\\', "\\\\").replace('\n', "\\n")
            ),
        };
        println!("{line}");
        let _ = std::io::stdout().flush();
    }
}

/// The float arguments of `layout`, laid out flat.
fn flatten(layout: &[Arg]) -> Vec<f64> {
    let mut flat = Vec::new();
    for a in layout {
        match a {
            Arg::F(x) => flat.push(*x),
            Arg::V(xs) => flat.extend(xs),
            _ => {}
        }
    }
    flat
}

/// The kind of an error: its variant's name.
pub fn kind(e: &impl Debug) -> String {
    format!("{e:?}")
        .chars()
        .take_while(|c| c.is_alphanumeric())
        .collect()
}

/// Silences the panic messages of the panics the checks catch.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}
