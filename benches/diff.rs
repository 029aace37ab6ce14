//! Derivatives as graphs (issue 13): what materialising a Hessian costs, forward over reverse
//! against differentiating twice, and emitted derivative code against the primal.
//!
//! - `hessian_1e4`: the Hessian of FrechetDiff's `g(x) = x[0] * sum(x * roll(x, 1))` at
//!   n = 10⁴ (FrechetDiff's published figure: 1.07 s), by `irtrack::diff::hessian` (the staged
//!   program run by the interpreter, one Hessian-vector product per column) and by the emitted
//!   Hessian-vector product of `tests/emitted/frechet.rs` called once per basis vector. Each
//!   run's matrix is checked against the closed form at a few entries before it counts. Wall
//!   time of whole runs: median, minimum and maximum.
//! - `method/*`: `hessian_by(…, ForwardOverForward)` over `hessian_by(…, ForwardOverReverse)`,
//!   paired (the two sides timed in alternation, as `benches/paired.rs` does; the median of the
//!   rounds' ratios with its quartiles).
//! - `emitted/*`: emitted code of `tests/emitted/` over the primal (the tracked function called
//!   with nothing recorded), paired likewise.
//!
//! Figures go to `target/criterion/irtrack/diff.json` for `scripts/bench-report`. Run with
//! `cargo bench --bench diff` (a filter argument selects cases by name).

mod common;

use irtrack::diff::{hessian, hessian_by, register_rule, HessianMethod, Rule};
use irtrack::{register_operation, tracked};
use ndarray::Array1;
use std::hint::black_box;
use std::time::{Duration, Instant};

#[rustfmt::skip]
#[allow(dead_code)]
#[path = "../tests/emitted/frechet.rs"]
mod emitted_frechet;
#[rustfmt::skip]
#[allow(dead_code)]
#[path = "../tests/emitted/scalar.rs"]
mod emitted_scalar;
#[rustfmt::skip]
#[allow(dead_code)]
#[path = "../tests/emitted/vector.rs"]
mod emitted_vector;

/// A circular shift, Julia's `circshift`: `roll(x, k)[i] = x[i - k]`, indices modulo `n`; two
/// slice copies, as `circshift` is, so that neither side of a comparison pays for a slow shift.
fn roll(x: Array1<f64>, k: i32) -> Array1<f64> {
    let n = x.len();
    if n == 0 {
        return x;
    }
    let s = (k as i64).rem_euclid(n as i64) as usize;
    let Some(xs) = x.as_slice() else {
        return Array1::from_shape_fn(n, |i| x[(i + n - s) % n]);
    };
    let mut out = Vec::with_capacity(n);
    out.extend_from_slice(&xs[n - s..]);
    out.extend_from_slice(&xs[..n - s]);
    Array1::from(out)
}

fn roll_rules() {
    register_operation(roll);
    register_rule(
        roll,
        Rule::linear(0).transpose(|b, args, ct| {
            let back = b.neg(&args[1])?;
            b.call(roll, &[ct.clone(), back])
        }),
    );
}

#[tracked]
fn frechet_f(x: Array1<f64>) -> Array1<f64> {
    &x * &roll(x.clone(), 1)
}

#[tracked]
fn frechet_g(x: Array1<f64>) -> f64 {
    let y = &x * &roll(x.clone(), 1);
    x[0] * y.sum()
}

#[tracked]
fn sin_exp(x: f64) -> f64 {
    x.sin() * x.exp()
}

#[tracked]
fn rosenbrock(x: Vec<f64>, n: usize) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    while i + 1 < n {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        s += 100.0 * a * a + b * b;
        i += 1;
    }
    s
}

/// `∂²g/∂xⱼ∂xₖ` in closed form: `[j = 0](xₖ₋₁ + xₖ₊₁) + [k = 0](xⱼ₋₁ + xⱼ₊₁)
/// + x₀([k = j - 1] + [k = j + 1])`, indices modulo n.
fn closed(x: &Array1<f64>, j: usize, k: usize) -> f64 {
    let n = x.len();
    let (prev, next) = (|j: usize| (j + n - 1) % n, |j: usize| (j + 1) % n);
    let mut v = 0.0;
    if j == 0 {
        v += x[prev(k)] + x[next(k)];
    }
    if k == 0 {
        v += x[prev(j)] + x[next(j)];
    }
    if k == prev(j) {
        v += x[0];
    }
    if k == next(j) {
        v += x[0];
    }
    v
}

/// Panics unless `entry(j, k)` matches the closed form at a spread of entries (the first row
/// and column, the diagonal and both off-diagonals, around the wrap).
fn check(x: &Array1<f64>, entry: impl Fn(usize, usize) -> f64) {
    let n = x.len();
    let mut at = vec![
        (0, 0),
        (0, 1),
        (1, 0),
        (0, n - 1),
        (n - 1, 0),
        (n - 1, n - 2),
    ];
    for j in [1, 2, n / 2, n - 2] {
        let k = |d: usize| (j + d) % n;
        at.extend([(j, j), (j, k(n - 1)), (j, k(1)), (j, 0), (0, j), (j, k(3))]);
    }
    for (j, k) in at {
        let (got, want) = (entry(j, k), closed(x, j, k));
        assert!(
            (got - want).abs() <= 1e-12 * want.abs().max(1.0),
            "H[{j}, {k}] = {got}, the closed form {want}"
        );
    }
}

/// A point of n elements in (0, 1).
fn point(n: usize) -> Array1<f64> {
    Array1::from_shape_fn(n, |i| ((i * 7919 + 13) % 1000) as f64 / 1000.0)
}

/// The CPU time this thread has run, in ns (Linux's `/proc/thread-self/schedstat`), which
/// other processes on a loaded machine do not inflate as they do wall time.
fn thread_cpu_ns() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Median, minimum and maximum wall time of `runs` runs of `f`, and the median of their CPU
/// times when the system tells them.
fn runs(runs: usize, mut f: impl FnMut()) -> (f64, f64, f64, Option<f64>) {
    let mut wall = Vec::with_capacity(runs);
    let mut cpu = Vec::with_capacity(runs);
    for _ in 0..runs {
        let (start, start_cpu) = (Instant::now(), thread_cpu_ns());
        f();
        wall.push(start.elapsed().as_secs_f64() * 1e9);
        if let (Some(a), Some(b)) = (start_cpu, thread_cpu_ns()) {
            cpu.push(b - a);
        }
    }
    wall.sort_by(|a, b| a.total_cmp(b));
    cpu.sort_by(|a, b| a.total_cmp(b));
    let cpu = (cpu.len() == runs).then(|| cpu[runs / 2]);
    (wall[runs / 2], wall[0], wall[runs - 1], cpu)
}

/// The Hessian by the emitted Hessian-vector product, one call per basis vector, column-major.
fn emitted_hessian(x: &Array1<f64>) -> Vec<f64> {
    let n = x.len();
    let hvp = emitted_frechet::frechet_g_hvp(x.clone()).expect("no guard")(1.0);
    let mut data = Vec::with_capacity(n * n);
    let mut e = Array1::zeros(n);
    // Each column is dropped only after the next is made, as `hessian` does: dropped first, it
    // would leave the top of the heap free, which glibc returns to the system, and every array
    // of the next call would fault its pages in again.
    let mut last = None;
    for j in 0..n {
        e[j] = 1.0;
        let column = hvp(e.clone()).expect("a column emitted code vouches for");
        data.extend(column.iter().copied());
        last = Some(column);
        e[j] = 0.0;
    }
    drop(last);
    data
}

/// Times `n` calls of `f`.
fn timed<R>(n: usize, mut f: impl FnMut() -> R) -> Duration {
    let t = Instant::now();
    for _ in 0..n {
        black_box(f());
    }
    t.elapsed()
}

type Side<'a> = Box<dyn FnMut(usize) -> Duration + 'a>;

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// `b/a` measured in alternation (ABBA), blocks of about a millisecond: the median of the
/// rounds' ratios, its quartiles, and the median ns per call of each side.
fn paired(mut a: Side, mut b: Side, budget: Duration) -> [f64; 5] {
    let mut n = 1;
    while n < 1 << 20 {
        if a(n).max(b(n)) >= Duration::from_millis(1) {
            break;
        }
        n *= 2;
    }
    let start = Instant::now();
    let (mut ratios, mut ta, mut tb) = (Vec::new(), Vec::new(), Vec::new());
    while ratios.len() < 15 || (start.elapsed() < budget && ratios.len() < 401) {
        let (x, y) = if ratios.len() % 2 == 0 {
            let x = a(n);
            (x, b(n))
        } else {
            let y = b(n);
            (a(n), y)
        };
        ratios.push(y.as_secs_f64() / x.as_secs_f64());
        ta.push(x.as_secs_f64() * 1e9 / n as f64);
        tb.push(y.as_secs_f64() * 1e9 / n as f64);
    }
    for v in [&mut ratios, &mut ta, &mut tb] {
        v.sort_by(|p, q| p.total_cmp(q));
    }
    [
        quantile(&ratios, 0.5),
        quantile(&ratios, 0.25),
        quantile(&ratios, 0.75),
        quantile(&ta, 0.5),
        quantile(&tb, 0.5),
    ]
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |name: &str| filter.as_deref().map_or(true, |f| name.contains(f));
    roll_rules();
    let mut figures: Vec<(String, f64)> = Vec::new();

    if wanted("hessian_1e4") {
        let x = point(10_000);
        let mut report = |name: &str, n: usize, (m, lo, hi, cpu): (f64, f64, f64, Option<f64>)| {
            let cpu_text = cpu.map_or(String::new(), |c| format!(", CPU {c:.3e} ns"));
            println!("{name}: median {m:.3e} ns (range {lo:.3e}–{hi:.3e}){cpu_text}, {n} runs");
            figures.extend([
                (format!("{name}:median_ns"), m),
                (format!("{name}:min_ns"), lo),
                (format!("{name}:max_ns"), hi),
            ]);
            if let Some(c) = cpu {
                figures.push((format!("{name}:cpu_ns"), c));
            }
        };
        let interpreted = runs(3, || {
            let h = hessian(frechet_g, (x.clone(),)).expect("roll has its rules");
            check(&x, |j, k| h[(j, k)]);
        });
        report("hessian_1e4/interpreted", 3, interpreted);
        let emitted = runs(5, || {
            let h = emitted_hessian(&x);
            check(&x, |j, k| h[k * x.len() + j]);
        });
        report("hessian_1e4/emitted", 5, emitted);
    }

    let xg = point(64);
    let xr: Vec<f64> = (0..10).map(|i| (i as f64 * 0.37).sin() + 0.5).collect();
    let x4 = point(10_000);
    let xv = point(10_000);
    let budget = Duration::from_secs(3);
    let cases: Vec<(&str, Side, Side)> = vec![
        (
            "method/frechet_g_64",
            Box::new(|n| {
                timed(n, || {
                    hessian_by(frechet_g, (xg.clone(),), HessianMethod::ForwardOverReverse)
                })
            }),
            Box::new(|n| {
                timed(n, || {
                    hessian_by(frechet_g, (xg.clone(),), HessianMethod::ForwardOverForward)
                })
            }),
        ),
        (
            "method/rosenbrock_10",
            Box::new(|n| {
                timed(n, || {
                    hessian_by(
                        rosenbrock,
                        (xr.clone(), 10),
                        HessianMethod::ForwardOverReverse,
                    )
                })
            }),
            Box::new(|n| {
                timed(n, || {
                    hessian_by(
                        rosenbrock,
                        (xr.clone(), 10),
                        HessianMethod::ForwardOverForward,
                    )
                })
            }),
        ),
        (
            "emitted/sin_exp_d1",
            Box::new(|n| timed(n, || sin_exp(black_box(0.7)))),
            Box::new(|n| {
                timed(n, || {
                    emitted_scalar::sin_exp_d1(black_box(0.7)).unwrap()(1.0).unwrap()
                })
            }),
        ),
        (
            "emitted/sin_exp_d4",
            Box::new(|n| timed(n, || sin_exp(black_box(0.7)))),
            Box::new(|n| {
                timed(n, || {
                    emitted_scalar::sin_exp_d4(black_box(0.7)).unwrap()(1.0)(1.0)(1.0)(1.0).unwrap()
                })
            }),
        ),
        (
            "emitted/rosenbrock_grad_10",
            Box::new(|n| timed(n, || rosenbrock(black_box(xr.clone()), 10))),
            Box::new(|n| {
                timed(n, || {
                    emitted_vector::rosenbrock_grad(black_box(xr.clone())).unwrap()(1.0).unwrap()
                })
            }),
        ),
        (
            "emitted/frechet_f_1e4",
            Box::new(|n| timed(n, || frechet_f(black_box(xv.clone())))),
            Box::new(|n| timed(n, || emitted_frechet::frechet_f(black_box(xv.clone())))),
        ),
        (
            "emitted/frechet_f_jvp_1e4",
            Box::new(|n| timed(n, || frechet_f(black_box(xv.clone())))),
            Box::new(|n| {
                timed(n, || {
                    emitted_frechet::frechet_f_d1(black_box(xv.clone())).unwrap()(x4.clone())
                        .unwrap()
                })
            }),
        ),
        (
            "emitted/frechet_g_grad_1e4",
            Box::new(|n| timed(n, || frechet_g(black_box(xv.clone())))),
            Box::new(|n| {
                timed(n, || {
                    emitted_frechet::frechet_g_grad(black_box(xv.clone())).unwrap()(1.0).unwrap()
                })
            }),
        ),
    ];
    for (name, a, b) in cases {
        if !wanted(name) {
            continue;
        }
        let [median, q1, q3, a_ns, b_ns] = paired(a, b, budget);
        println!(
            "{name}: {median:.2}× ({q1:.2}–{q3:.2}); {a_ns:.4e} ns against {b_ns:.4e} ns per call"
        );
        for (k, v) in [
            ("ratio", median),
            ("q1", q1),
            ("q3", q3),
            ("base_ns", a_ns),
            ("ns", b_ns),
        ] {
            figures.push((format!("{name}:{k}"), v));
        }
    }
    common::write_figures("diff.json", &figures);
}
