//! Paired measurements of the tracked/plain ratios, robust to a machine whose speed drifts.
//!
//! Criterion (`benches/overhead.rs`) measures the `plain` row, then the `tracked` row, seconds
//! apart; on a shared or virtual machine the speed can change between the two by more than the
//! 5 % the off-path target allows (runs on the 2-core machine of the README saw the same
//! function measured 2× apart). Here the two sides run in alternation instead: each round times
//! one block of the plain side and one block of the tracked side (order alternating, ABBA), a
//! block being as many calls as take about a millisecond, and the ratio of a round is
//! tracked/plain of its two blocks. The figure is the median of the rounds' ratios, with the
//! quartiles as its spread. Not a criterion benchmark; results go to
//! `target/criterion/irtrack/paired.json` for `scripts/bench-report`.
//!
//! Run with `cargo bench --bench paired` (a filter argument selects cases by name).

mod common;

use common::{plain, tracked};
use irtrack::track;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// `tiny` of `benches/common/mod.rs` with the per-function opt-out, `#[tracked(primitive)]`:
/// compiled as written, and recorded as a primitive by tracked callers.
#[irtrack::tracked(primitive)]
#[inline]
fn tiny_primitive(x: f64) -> f64 {
    x * 2.0 + 1.0
}

/// Runs `n` calls of one side and returns the time they took (setup excluded).
type Side<'a> = Box<dyn FnMut(usize) -> Duration + 'a>;

/// Times `f` over `n` calls.
fn timed<R>(n: usize, mut f: impl FnMut() -> R) -> Duration {
    let t = Instant::now();
    for _ in 0..n {
        black_box(f());
    }
    t.elapsed()
}

/// Times `n` recordings; the traces are dropped after the clock stops.
fn timed_traces(n: usize, f: impl Fn() -> irtrack::Trace) -> Duration {
    let mut keep = Vec::with_capacity(n);
    let t = Instant::now();
    for _ in 0..n {
        keep.push(f());
    }
    let elapsed = t.elapsed();
    drop(black_box(keep));
    elapsed
}

struct Paired {
    median: f64,
    q1: f64,
    q3: f64,
    rounds: usize,
    plain_ns: f64,
    tracked_ns: f64,
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

fn paired(mut plain_side: Side, mut tracked_side: Side, budget: Duration) -> Paired {
    // Calls per block: about a millisecond of the slower side, at least one call.
    let mut n = 1;
    while n < 1 << 20 {
        let t = plain_side(n).max(tracked_side(n));
        if t >= Duration::from_millis(1) {
            break;
        }
        n *= 2;
    }
    let start = Instant::now();
    let (mut ratios, mut p_times, mut t_times) = (Vec::new(), Vec::new(), Vec::new());
    while ratios.len() < 15 || (start.elapsed() < budget && ratios.len() < 401) {
        let (p, t) = if ratios.len() % 2 == 0 {
            let p = plain_side(n);
            (p, tracked_side(n))
        } else {
            let t = tracked_side(n);
            (plain_side(n), t)
        };
        ratios.push(t.as_secs_f64() / p.as_secs_f64());
        p_times.push(p.as_secs_f64() * 1e9 / n as f64);
        t_times.push(t.as_secs_f64() * 1e9 / n as f64);
    }
    for v in [&mut ratios, &mut p_times, &mut t_times] {
        v.sort_by(|a, b| a.total_cmp(b));
    }
    Paired {
        median: quantile(&ratios, 0.5),
        q1: quantile(&ratios, 0.25),
        q3: quantile(&ratios, 0.75),
        rounds: ratios.len(),
        plain_ns: quantile(&p_times, 0.5),
        tracked_ns: quantile(&t_times, 0.5),
    }
}

// The sides of the slice and `geom` cases: generic over the function (a fn item, not a `fn`
// pointer), so that each side's function is inlined into its loop as in `benches/overhead.rs`.

/// `out[i] = f(xs[i])` over the slice.
fn map<'a>(xs: &'a [f64], f: impl Fn(f64) -> f64 + 'a) -> impl FnMut(usize) -> Duration + 'a {
    move |n: usize| {
        let mut out = vec![0.0; xs.len()];
        timed(n, || {
            for (o, &x) in out.iter_mut().zip(black_box(xs)) {
                *o = f(x);
            }
            black_box(&out);
        })
    }
}

/// `Σ f(xs[i])` over the slice.
fn sum<'a>(xs: &'a [f64], f: impl Fn(f64) -> f64 + 'a) -> impl FnMut(usize) -> Duration + 'a {
    move |n: usize| timed(n, || black_box(xs).iter().map(|&x| f(x)).sum::<f64>())
}

/// `geom` from a freshly seeded generator per call (seeding outside the clock).
fn geom(f: impl Fn(i32, f64, &mut StdRng) -> i32) -> impl FnMut(usize) -> Duration {
    move |n: usize| {
        let mut rngs: Vec<StdRng> = (0..n)
            .map(|_| StdRng::seed_from_u64(common::GEOM_SEED))
            .collect();
        let t = Instant::now();
        for rng in &mut rngs {
            black_box(f(0, black_box(common::GEOM_BETA), rng));
        }
        t.elapsed()
    }
}

fn main() {
    // `cargo bench` passes `--bench` (and any filter); a filter selects cases by name.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let xs: Vec<f64> = (0..1024).map(|i| i as f64 * 0.001).collect();
    let a = common::uniform(2, 256);
    let v = common::uniform(3, 256);
    let off = Duration::from_secs(2);
    let on = Duration::from_secs(3);
    let cases: Vec<(&str, Side, Side, Duration)> = vec![
        (
            "off/tiny_map_1024",
            Box::new(map(&xs, plain::tiny)),
            Box::new(map(&xs, tracked::tiny)),
            off,
        ),
        (
            "off/tiny_map_1024_primitive",
            Box::new(map(&xs, plain::tiny)),
            Box::new(map(&xs, tiny_primitive)),
            off,
        ),
        (
            "off/tiny_sum_1024",
            Box::new(sum(&xs, plain::tiny)),
            Box::new(sum(&xs, tracked::tiny)),
            off,
        ),
        (
            "off/h_100",
            Box::new(|n| timed(n, || plain::h(black_box(1.01), black_box(100)))),
            Box::new(|n| timed(n, || tracked::h(black_box(1.01), black_box(100)))),
            off,
        ),
        (
            "off/geom",
            Box::new(geom(plain::geom)),
            Box::new(geom(tracked::geom)),
            off,
        ),
        (
            "off/rec_50",
            Box::new(|n| timed(n, || plain::rec(black_box(0.7), black_box(50)))),
            Box::new(|n| timed(n, || tracked::rec(black_box(0.7), black_box(50)))),
            off,
        ),
        (
            "off/dot_256",
            Box::new(|n| timed(n, || plain::dot(black_box(&a), black_box(&v)))),
            Box::new(|n| timed(n, || tracked::dot(black_box(&a), black_box(&v)))),
            off,
        ),
        (
            "on/h_100",
            Box::new(|n| timed(n, || plain::h(black_box(1.01), black_box(100)))),
            Box::new(|n| timed_traces(n, || track(tracked::h, (black_box(1.01), 100)))),
            on,
        ),
        (
            "on/h_nodes_1e6",
            Box::new(|n| timed(n, || plain::h(black_box(1.000_001), black_box(125_000)))),
            Box::new(|n| {
                timed_traces(n, || {
                    track(tracked::h, (black_box(1.000_001), black_box(125_000)))
                })
            }),
            on,
        ),
        (
            "on/calls_nodes_1e6",
            Box::new(|n| timed(n, || plain::calls(black_box(0.5), black_box(70_000)))),
            Box::new(|n| {
                timed_traces(n, || {
                    track(tracked::calls, (black_box(0.5), black_box(70_000)))
                })
            }),
            on,
        ),
    ];
    let mut figures = Vec::new();
    println!(
        "{:<28} {:>8} {:>17} {:>7} {:>13} {:>13}",
        "case", "ratio", "quartiles", "rounds", "plain ns", "tracked ns"
    );
    for (name, p, t, budget) in cases {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let r = paired(p, t, budget);
        println!(
            "{:<28} {:>7.3}× {:>7.3}–{:<7.3}  {:>7} {:>13.1} {:>13.1}",
            name, r.median, r.q1, r.q3, r.rounds, r.plain_ns, r.tracked_ns
        );
        for (what, value) in [
            ("ratio", r.median),
            ("q1", r.q1),
            ("q3", r.q3),
            ("rounds", r.rounds as f64),
            ("plain_ns", r.plain_ns),
            ("tracked_ns", r.tracked_ns),
        ] {
            figures.push((format!("{name}:{what}"), value));
        }
    }
    common::write_figures("paired.json", &figures);
}
