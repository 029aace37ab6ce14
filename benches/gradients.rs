//! Gradients: time of one gradient (fresh tape, forward pass, backward pass) over the time of
//! the plain primal function, on the three scalar workloads of issue 6 and the ndarray
//! matrix-vector model. Groups `grad/<workload>`, rows:
//!
//! - `plain`: the primal function from `benches/common/mod.rs`;
//! - `reverse`, `easy_ml`: the peer crates (`benches/common/peers.rs`, checked against finite
//!   differences by `tests/peer_gradients.rs`);
//! - `irtrack`: `irtrack::gradient` on the tracked twins, see [`irtrack_gradients`].
//!
//! - `irtrack_record`, `irtrack_sweep`: the two halves of the `irtrack` row, see
//!   [`irtrack_split`];
//! - `compiled`: the gradient program of a trace recorded once, called at a new point, see
//!   [`compiled_gradients`].
//!
//! Then paired ratios (irtrack over the general sweep, irtrack over each peer), see [`paired`].
//!
//! Run with `cargo bench --bench gradients` (`-- paired` for the paired ratios alone).

mod common;

use common::peers::{easy_ml_ad, reverse_ad};
use common::plain;
use criterion::{black_box, criterion_group, Criterion};

/// The peers and the primal on the three scalar workloads, and the primal of the matrix-vector
/// model (no peer: both peers are scalar tapes).
fn peers(c: &mut Criterion) {
    let mut g = c.benchmark_group("grad/h_100");
    g.bench_function("plain", |b| {
        b.iter(|| plain::h(black_box(1.01), black_box(100)))
    });
    g.bench_function("reverse", |b| {
        b.iter(|| reverse_ad::h(black_box(1.01), black_box(100)))
    });
    g.bench_function("easy_ml", |b| {
        b.iter(|| easy_ml_ad::h(black_box(1.01), black_box(100)))
    });
    g.finish();

    let mut g = c.benchmark_group("grad/rec_50");
    g.bench_function("plain", |b| {
        b.iter(|| plain::rec(black_box(0.7), black_box(50)))
    });
    g.bench_function("reverse", |b| {
        b.iter(|| reverse_ad::rec(black_box(0.7), black_box(50)))
    });
    g.bench_function("easy_ml", |b| {
        b.iter(|| easy_ml_ad::rec(black_box(0.7), black_box(50)))
    });
    g.finish();

    let w = common::dense_weights(64);
    let x = common::uniform(1, 64);
    let mut g = c.benchmark_group("grad/dense_64");
    g.bench_function("plain", |b| {
        b.iter(|| plain::dense(black_box(&w), black_box(&x)))
    });
    g.bench_function("reverse", |b| {
        b.iter(|| reverse_ad::dense(black_box(&w), black_box(&x)))
    });
    g.bench_function("easy_ml", |b| {
        b.iter(|| easy_ml_ad::dense(black_box(&w), black_box(&x)))
    });
    g.finish();

    let (a, v) = matvec_inputs();
    let mut g = c.benchmark_group("grad/matvec_256");
    g.bench_function("plain", |b| {
        b.iter(|| common::matvec_plain(black_box(&a), black_box(&v)))
    });
    g.finish();
}

/// The inputs of the matrix-vector model: a 256×256 matrix and a 256-vector, seeded.
fn matvec_inputs() -> (ndarray::Array2<f64>, ndarray::Array1<f64>) {
    let a = ndarray::Array2::from_shape_vec((256, 256), common::uniform(4, 256 * 256))
        .expect("256×256 values");
    let v = ndarray::Array1::from_vec(common::uniform(5, 256));
    (a, v)
}

/// irtrack's gradients, one `irtrack` row in each group of [`peers`], with the same inputs: a
/// fresh trace and a backward pass per iteration (`irtrack::gradient`). Checked against finite
/// differences, next to the peers, in `tests/peer_gradients.rs` (same code: `common::irtrack_ad`).
///
/// - `grad/h_100`: `dh/dx` of `h(1.01, 100)`, the integer bound without a gradient;
/// - `grad/rec_50`: `dr/dx` of the 50-deep recursion;
/// - `grad/dense_64`: the gradient over all 64 inputs `x`, `W` an argument without a gradient;
/// - `grad/matvec_256`: `½‖A x‖²` with `A` a captured `ArcArray` (a constant, shared by the
///   trace, not copied), the gradient over `x` (`Aᵀ A x`).
fn irtrack_gradients(c: &mut Criterion) {
    use common::irtrack_ad;

    let mut g = c.benchmark_group("grad/h_100");
    g.bench_function("irtrack", |b| {
        b.iter(|| irtrack_ad::h(black_box(1.01), black_box(100)))
    });
    g.finish();

    let mut g = c.benchmark_group("grad/rec_50");
    g.bench_function("irtrack", |b| {
        b.iter(|| irtrack_ad::rec(black_box(0.7), black_box(50)))
    });
    g.finish();

    let w = common::dense_weights(64);
    let x = common::uniform(1, 64);
    let mut g = c.benchmark_group("grad/dense_64");
    g.bench_function("irtrack", |b| {
        b.iter(|| irtrack_ad::dense(black_box(&w), black_box(&x)))
    });
    g.finish();

    let (a, v) = matvec_inputs();
    let shared = a.into_shared();
    let mut g = c.benchmark_group("grad/matvec_256");
    g.bench_function("irtrack", |b| {
        b.iter(|| irtrack_ad::matvec(black_box(&shared), black_box(&v)))
    });
    g.finish();
}

/// One irtrack gradient split in two, so a change can be placed: `irtrack_record` records the
/// trace (`pullback`, which keeps it), `irtrack_sweep` runs the forward and backward passes on
/// that kept trace (`Pullback::call`). Their sum is close to the `irtrack` row, which also
/// drops the trace.
fn irtrack_split(c: &mut Criterion) {
    use common::tracked;
    use irtrack::pullback;

    let mut g = c.benchmark_group("grad/h_100");
    g.bench_function("irtrack_record", |b| {
        b.iter(|| pullback(tracked::h, (black_box(1.01), black_box(100))))
    });
    let (_, back) = pullback(tracked::h, (1.01, 100));
    g.bench_function("irtrack_sweep", |b| b.iter(|| back.call(black_box(1.0))));
    g.finish();

    let mut g = c.benchmark_group("grad/rec_50");
    g.bench_function("irtrack_record", |b| {
        b.iter(|| pullback(tracked::rec, (black_box(0.7), black_box(50))))
    });
    let (_, back) = pullback(tracked::rec, (0.7, 50));
    g.bench_function("irtrack_sweep", |b| b.iter(|| back.call(black_box(1.0))));
    g.finish();

    let w = common::dense_weights(64);
    let x = common::uniform(1, 64);
    let mut g = c.benchmark_group("grad/dense_64");
    g.bench_function("irtrack_record", |b| {
        b.iter(|| pullback(tracked::dense, (black_box(&w[..]), black_box(&x[..]))))
    });
    let (_, back) = pullback(tracked::dense, (&w[..], &x[..]));
    g.bench_function("irtrack_sweep", |b| b.iter(|| back.call(black_box(1.0))));
    g.finish();
}

/// A gradient re-evaluated on a compiled program: the trace recorded once, made a
/// [`Program`](irtrack::program::Program), its vector-Jacobian product program built by
/// `irtrack::diff::reverse`, and that program called at a new point each iteration (the
/// `compiled` row; target: at most 3× `plain`). The dense layer's weights are a static input
/// (folded into the program), `x` a dynamic one whose length each call checks.
fn compiled_gradients(c: &mut Criterion) {
    use common::tracked;
    use irtrack::diff::reverse;
    use irtrack::program::{Input, Program};
    use irtrack::track;

    let p = Program::from_trace(
        &track(tracked::h, (1.01, 100)),
        &[Input::Dynamic, Input::Static],
    )
    .expect("h replays");
    let g = reverse(&p, 0).expect("h's vjp program");
    let mut group = c.benchmark_group("grad/h_100");
    group.bench_function("compiled", |b| {
        b.iter(|| g.call((black_box(1.02), 100, 1.0)).unwrap())
    });
    group.finish();

    let p = Program::from_trace(
        &track(tracked::rec, (0.7, 50)),
        &[Input::Dynamic, Input::Static],
    )
    .expect("rec replays");
    let g = reverse(&p, 0).expect("rec's vjp program");
    let mut group = c.benchmark_group("grad/rec_50");
    group.bench_function("compiled", |b| {
        b.iter(|| g.call((black_box(0.71), 50u32, 1.0)).unwrap())
    });
    group.finish();

    let w = common::dense_weights(64);
    let x = common::uniform(1, 64);
    let y = common::uniform(2, 64);
    let p = Program::from_trace(
        &track(tracked::dense, (&w[..], &x[..])),
        &[Input::Static, Input::Dynamic],
    )
    .expect("dense replays");
    let g = reverse(&p, 1).expect("dense's vjp program");
    let mut group = c.benchmark_group("grad/dense_64");
    group.bench_function("compiled", |b| {
        b.iter(|| g.call((&w[..], black_box(&y[..]), 1.0)).unwrap())
    });
    group.finish();
}

criterion_group!(
    benches,
    peers,
    irtrack_gradients,
    irtrack_split,
    compiled_gradients
);

/// Paired ratios, robust to a machine whose speed drifts between criterion's rows (see
/// `benches/paired.rs`): each round times a block of one side and a block of the other (order
/// alternating), a block being as many calls as take about a millisecond; the figure is the
/// median of the rounds' ratios, with the quartiles. Written to
/// `target/criterion/irtrack/grad_paired.json` for `scripts/bench-report`:
///
/// - `<group>:general`: irtrack's gradient on the fast path over the same gradient through the
///   general sweep (`grad::with_general_sweep`, the path every gradient took before the fast
///   path): below 1 is a gain;
/// - `<group>:reverse`, `<group>:easy_ml`: irtrack over each peer (the target is below 1 for
///   both);
/// - `<group>:compiled`: the compiled gradient program (see [`compiled_gradients`]) over the
///   plain primal (target: at most 3).
mod paired {
    use super::common::{self, irtrack_ad, peers};
    use std::hint::black_box;
    use std::time::{Duration, Instant};

    type Side<'a> = Box<dyn FnMut() + 'a>;

    fn block(f: &mut Side<'_>, n: usize) -> Duration {
        let t = Instant::now();
        for _ in 0..n {
            f();
        }
        t.elapsed()
    }

    fn quantile(sorted: &[f64], q: f64) -> f64 {
        let pos = q * (sorted.len() - 1) as f64;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
    }

    /// `(median, q1, q3)` of `a`'s time over `b`'s.
    fn ratio(mut a: Side<'_>, mut b: Side<'_>, budget: Duration) -> (f64, f64, f64) {
        let mut n = 1;
        while n < 1 << 20 && block(&mut a, n).max(block(&mut b, n)) < Duration::from_millis(1) {
            n *= 2;
        }
        let start = Instant::now();
        let mut ratios = Vec::new();
        while ratios.len() < 15 || (start.elapsed() < budget && ratios.len() < 401) {
            let (ta, tb) = if ratios.len() % 2 == 0 {
                let ta = block(&mut a, n);
                (ta, block(&mut b, n))
            } else {
                let tb = block(&mut b, n);
                (block(&mut a, n), tb)
            };
            ratios.push(ta.as_secs_f64() / tb.as_secs_f64());
        }
        ratios.sort_by(|x, y| x.total_cmp(y));
        (
            quantile(&ratios, 0.5),
            quantile(&ratios, 0.25),
            quantile(&ratios, 0.75),
        )
    }

    pub fn run() {
        let w = common::dense_weights(64);
        let x = common::uniform(1, 64);
        let budget = Duration::from_secs(2);
        let general =
            |f: Box<dyn Fn()>| -> Side { Box::new(move || irtrack::grad::with_general_sweep(&f)) };
        let cases: Vec<(&str, &str, Side, Side)> = vec![
            (
                "grad/h_100",
                "general",
                Box::new(|| {
                    black_box(irtrack_ad::h(black_box(1.01), 100));
                }),
                general(Box::new(|| {
                    black_box(irtrack_ad::h(black_box(1.01), 100));
                })),
            ),
            (
                "grad/h_100",
                "reverse",
                Box::new(|| {
                    black_box(irtrack_ad::h(black_box(1.01), 100));
                }),
                Box::new(|| {
                    black_box(peers::reverse_ad::h(black_box(1.01), 100));
                }),
            ),
            (
                "grad/h_100",
                "easy_ml",
                Box::new(|| {
                    black_box(irtrack_ad::h(black_box(1.01), 100));
                }),
                Box::new(|| {
                    black_box(peers::easy_ml_ad::h(black_box(1.01), 100));
                }),
            ),
            (
                "grad/rec_50",
                "general",
                Box::new(|| {
                    black_box(irtrack_ad::rec(black_box(0.7), 50));
                }),
                general(Box::new(|| {
                    black_box(irtrack_ad::rec(black_box(0.7), 50));
                })),
            ),
            (
                "grad/rec_50",
                "reverse",
                Box::new(|| {
                    black_box(irtrack_ad::rec(black_box(0.7), 50));
                }),
                Box::new(|| {
                    black_box(peers::reverse_ad::rec(black_box(0.7), 50));
                }),
            ),
            (
                "grad/rec_50",
                "easy_ml",
                Box::new(|| {
                    black_box(irtrack_ad::rec(black_box(0.7), 50));
                }),
                Box::new(|| {
                    black_box(peers::easy_ml_ad::rec(black_box(0.7), 50));
                }),
            ),
            (
                "grad/dense_64",
                "general",
                Box::new(|| {
                    black_box(irtrack_ad::dense(black_box(&w), &x));
                }),
                general(Box::new({
                    let (w, x) = (w.clone(), x.clone());
                    move || {
                        black_box(irtrack_ad::dense(black_box(&w), &x));
                    }
                })),
            ),
            (
                "grad/dense_64",
                "reverse",
                Box::new(|| {
                    black_box(irtrack_ad::dense(black_box(&w), &x));
                }),
                Box::new(|| {
                    black_box(peers::reverse_ad::dense(black_box(&w), &x));
                }),
            ),
            (
                "grad/dense_64",
                "easy_ml",
                Box::new(|| {
                    black_box(irtrack_ad::dense(black_box(&w), &x));
                }),
                Box::new(|| {
                    black_box(peers::easy_ml_ad::dense(black_box(&w), &x));
                }),
            ),
        ];
        // The compiled gradient programs over the primal.
        use irtrack::diff::reverse;
        use irtrack::program::{Input, Program};
        let h = Program::from_trace(
            &irtrack::track(common::tracked::h, (1.01, 100)),
            &[Input::Dynamic, Input::Static],
        )
        .map(|p| reverse(&p, 0).expect("h's vjp program"))
        .expect("h replays");
        let rec = Program::from_trace(
            &irtrack::track(common::tracked::rec, (0.7, 50)),
            &[Input::Dynamic, Input::Static],
        )
        .map(|p| reverse(&p, 0).expect("rec's vjp program"))
        .expect("rec replays");
        let (w, y) = (common::dense_weights(64), common::uniform(2, 64));
        let dense = Program::from_trace(
            &irtrack::track(
                common::tracked::dense,
                (&w[..], &common::uniform(1, 64)[..]),
            ),
            &[Input::Static, Input::Dynamic],
        )
        .map(|p| reverse(&p, 1).expect("dense's vjp program"))
        .expect("dense replays");
        let compiled: Vec<(&str, &str, Side, Side)> = vec![
            (
                "grad/h_100",
                "plain",
                Box::new(|| {
                    black_box(h.call((black_box(1.02), 100, 1.0)).unwrap());
                }),
                Box::new(|| {
                    black_box(common::plain::h(black_box(1.02), 100));
                }),
            ),
            (
                "grad/rec_50",
                "plain",
                Box::new(|| {
                    black_box(rec.call((black_box(0.71), 50u32, 1.0)).unwrap());
                }),
                Box::new(|| {
                    black_box(common::plain::rec(black_box(0.71), 50));
                }),
            ),
            (
                "grad/dense_64",
                "plain",
                Box::new(|| {
                    black_box(dense.call((&w[..], black_box(&y[..]), 1.0)).unwrap());
                }),
                Box::new(|| {
                    black_box(common::plain::dense(black_box(&w), black_box(&y)));
                }),
            ),
        ];
        let mut figures = Vec::new();
        for (group, other, a, b) in compiled {
            let (m, q1, q3) = ratio(a, b, budget);
            println!("{group}: compiled / {other}: {m:.3}× ({q1:.3}–{q3:.3})");
            figures.push((format!("{group}:compiled"), m));
            figures.push((format!("{group}:compiled:q1"), q1));
            figures.push((format!("{group}:compiled:q3"), q3));
        }
        for (group, other, a, b) in cases {
            let (m, q1, q3) = ratio(a, b, budget);
            println!("{group}: irtrack / {other}: {m:.3}× ({q1:.3}–{q3:.3})");
            figures.push((format!("{group}:{other}"), m));
            figures.push((format!("{group}:{other}:q1"), q1));
            figures.push((format!("{group}:{other}:q3"), q3));
        }
        common::write_figures("grad_paired.json", &figures);
    }
}

/// Whether the command line selects the paired ratios: no filter, or a filter that names them
/// (`cargo bench --bench gradients -- paired`).
fn paired_selected() -> bool {
    // Criterion's options that take a value: skip it, it is not a filter.
    const VALUED: [&str; 12] = [
        "--warm-up-time",
        "--measurement-time",
        "--sample-size",
        "--profile-time",
        "--save-baseline",
        "--baseline",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--nresamples",
        "--output-format",
        "--color",
    ];
    let mut args = std::env::args().skip(1);
    let mut filter = None;
    while let Some(a) = args.next() {
        if VALUED.contains(&a.as_str()) {
            args.next();
        } else if !a.starts_with('-') {
            filter = Some(a);
        }
    }
    filter.map_or(true, |f| f.contains("paired"))
}

fn main() {
    benches();
    if paired_selected() {
        paired::run();
    }
    Criterion::default().configure_from_args().final_summary();
}
