//! What `#[tracked]` costs when nothing is recorded (`off/…`), and what recording costs
//! (`on/…`). Every tracked function is benchmarked next to its plain twin from
//! `benches/common/mod.rs` (the same tokens compiled without the attribute) in the same process:
//! the `plain` and `tracked` (or `track`) rows of a group are the two sides of a ratio.
//!
//! The node count of every `on/…` trace is computed from the trace (`Trace::len`) and written
//! to `target/criterion/irtrack/nodes.json`; bytes per node come from `benches/memory.rs`.
//! `scripts/bench-report` runs all of this and prints the ratios.
//!
//! Run with `cargo bench --bench overhead` (add `-- --warm-up-time 1 --measurement-time 2`
//! for a quick run, or a filter such as `-- off/`).

mod common;

use common::{plain, tracked};
use criterion::{
    black_box, criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, SamplingMode,
};
use irtrack::{track, track_with, Everything};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// `tiny` of `benches/common/mod.rs` with the per-function opt-out: compiled as written, and
/// recorded as a primitive by tracked callers.
#[irtrack::tracked(primitive)]
#[inline]
fn tiny_primitive(x: f64) -> f64 {
    x * 2.0 + 1.0
}

/// Untracked calls of tracked functions: `claim` finds no recording and the original body runs.
fn off(c: &mut Criterion) {
    let xs: Vec<f64> = (0..1024).map(|i| i as f64 * 0.001).collect();
    // Element-wise: the plain loop is vectorised (SIMD), which a per-call check prevents.
    let mut out = vec![0.0; xs.len()];
    let mut g = c.benchmark_group("off/tiny_map_1024");
    g.bench_function("plain", |b| {
        b.iter(|| {
            for (o, &x) in out.iter_mut().zip(black_box(&xs)) {
                *o = plain::tiny(x);
            }
            black_box(&out);
        })
    });
    g.bench_function("tracked", |b| {
        b.iter(|| {
            for (o, &x) in out.iter_mut().zip(black_box(&xs)) {
                *o = tracked::tiny(x);
            }
            black_box(&out);
        })
    });
    g.finish();
    // The same loop over `tiny` with the per-function opt-out, `#[tracked(primitive)]`: compiled
    // as written, vectorised again.
    let mut g = c.benchmark_group("off/tiny_map_1024_primitive");
    g.bench_function("plain", |b| {
        b.iter(|| {
            for (o, &x) in out.iter_mut().zip(black_box(&xs)) {
                *o = plain::tiny(x);
            }
            black_box(&out);
        })
    });
    g.bench_function("tracked", |b| {
        b.iter(|| {
            for (o, &x) in out.iter_mut().zip(black_box(&xs)) {
                *o = tiny_primitive(x);
            }
            black_box(&out);
        })
    });
    g.finish();
    // A sum: a chain of dependent additions, not vectorised on either side.
    let mut g = c.benchmark_group("off/tiny_sum_1024");
    g.bench_function("plain", |b| {
        b.iter(|| black_box(&xs).iter().map(|&x| plain::tiny(x)).sum::<f64>())
    });
    g.bench_function("tracked", |b| {
        b.iter(|| {
            black_box(&xs)
                .iter()
                .map(|&x| tracked::tiny(x))
                .sum::<f64>()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("off/h_100");
    g.bench_function("plain", |b| {
        b.iter(|| plain::h(black_box(1.01), black_box(100)))
    });
    g.bench_function("tracked", |b| {
        b.iter(|| tracked::h(black_box(1.01), black_box(100)))
    });
    g.finish();

    // The same seed every iteration, so both sides draw the same numbers and recurse equally
    // deep (seeding is setup, outside the timing).
    let depth = plain::geom(
        0,
        common::GEOM_BETA,
        &mut StdRng::seed_from_u64(common::GEOM_SEED),
    );
    let mut g = c.benchmark_group("off/geom");
    g.bench_function(BenchmarkId::new("plain", format!("depth_{depth}")), |b| {
        b.iter_batched_ref(
            || StdRng::seed_from_u64(common::GEOM_SEED),
            |rng| plain::geom(0, black_box(common::GEOM_BETA), rng),
            BatchSize::SmallInput,
        )
    });
    g.bench_function(BenchmarkId::new("tracked", format!("depth_{depth}")), |b| {
        b.iter_batched_ref(
            || StdRng::seed_from_u64(common::GEOM_SEED),
            |rng| tracked::geom(0, black_box(common::GEOM_BETA), rng),
            BatchSize::SmallInput,
        )
    });
    g.finish();

    let mut g = c.benchmark_group("off/rec_50");
    g.bench_function("plain", |b| {
        b.iter(|| plain::rec(black_box(0.7), black_box(50)))
    });
    g.bench_function("tracked", |b| {
        b.iter(|| tracked::rec(black_box(0.7), black_box(50)))
    });
    g.finish();

    let a = common::uniform(2, 256);
    let v = common::uniform(3, 256);
    let mut g = c.benchmark_group("off/dot_256");
    g.bench_function("plain", |b| {
        b.iter(|| plain::dot(black_box(&a), black_box(&v)))
    });
    g.bench_function("tracked", |b| {
        b.iter(|| tracked::dot(black_box(&a), black_box(&v)))
    });
    g.finish();
}

/// One recording workload: `plain` runs the plain twin, `track` records the tracked one.
struct OnCase {
    group: &'static str,
    plain: Box<dyn Fn() -> f64>,
    track: Box<dyn Fn() -> irtrack::Trace>,
    /// Large traces: few, equally long samples, each trace dropped outside the timing.
    large: bool,
}

fn on_cases() -> Vec<OnCase> {
    let mut cases = Vec::new();
    // `h(x, n)` records 9 + 8n nodes: scalar f64 work, one loop, no nested calls.
    for (group, n, large) in [
        ("on/h_nodes_1e2", 12, false),
        ("on/h_nodes_1e4", 1_250, false),
        ("on/h_nodes_1e6", 125_000, true),
    ] {
        cases.push(OnCase {
            group,
            plain: Box::new(move || plain::h(black_box(1.000_001), black_box(n))),
            track: Box::new(move || track(tracked::h, (black_box(1.000_001), black_box(n)))),
            large,
        });
    }
    // A loop calling the tracked `tiny`: one nested call (with its own tape) per iteration.
    for (group, n, large) in [
        ("on/calls_nodes_1e4", 700, false),
        ("on/calls_nodes_1e6", 70_000, true),
    ] {
        cases.push(OnCase {
            group,
            plain: Box::new(move || plain::calls(black_box(0.5), black_box(n))),
            track: Box::new(move || track(tracked::calls, (black_box(0.5), black_box(n)))),
            large,
        });
    }
    cases.push(OnCase {
        group: "on/h_100",
        plain: Box::new(|| plain::h(black_box(1.01), black_box(100))),
        track: Box::new(|| track(tracked::h, (black_box(1.01), black_box(100)))),
        large: false,
    });
    cases.push(OnCase {
        group: "on/rec_50",
        plain: Box::new(|| plain::rec(black_box(0.7), black_box(50))),
        track: Box::new(|| track(tracked::rec, (black_box(0.7), black_box(50)))),
        large: false,
    });
    let a = common::uniform(2, 256);
    let v = common::uniform(3, 256);
    let (a2, v2) = (a.clone(), v.clone());
    cases.push(OnCase {
        group: "on/dot_256",
        plain: Box::new(move || plain::dot(black_box(&a), black_box(&v))),
        track: Box::new(move || track(tracked::dot, (black_box(&a2[..]), black_box(&v2[..])))),
        large: false,
    });
    cases
}

/// Recording: `track(f)` against plain `f`, and nanoseconds per node.
fn on(c: &mut Criterion) {
    // Node counts of the traces benchmarked (only of the groups a filter selects: criterion
    // calls a benchmark's closure only when it runs).
    let nodes = std::cell::RefCell::new(Vec::new());
    for case in &on_cases() {
        let mut g = c.benchmark_group(case.group);
        if case.large {
            g.sample_size(10).sampling_mode(SamplingMode::Flat);
        }
        g.bench_function("plain", |b| b.iter(|| (case.plain)()));
        g.bench_function("track", |b| {
            nodes
                .borrow_mut()
                .push((case.group.to_string(), (case.track)().len() as f64));
            let size = if case.large {
                BatchSize::PerIteration
            } else {
                BatchSize::SmallInput
            };
            b.iter_batched(|| (), |()| (case.track)(), size)
        });
        if case.group == "on/h_100" {
            // An explicit context that overrides nothing: every hook is called and does nothing.
            g.bench_function("track_with_everything", |b| {
                b.iter_batched(
                    || (),
                    |()| track_with(Everything, tracked::h, (black_box(1.01), 100)),
                    BatchSize::SmallInput,
                )
            });
        }
        g.finish();
    }
    common::write_figures("nodes.json", &nodes.into_inner());
}

criterion_group!(benches, off, on);
criterion_main!(benches);
