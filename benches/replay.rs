//! Programs from traces (`irtrack::program`): one call of a program built from a trace, against
//! the plain Rust function on the same inputs. Groups `replay/<workload>`, rows:
//!
//! - `plain`: the function from `benches/common/mod.rs`, untracked;
//! - `program`: `Program::call` (the compiled form, for these all-scalar programs);
//! - `interpreted`: `Program::call_interpreted` (the general evaluator over values).
//!
//! Target (issue 12): `program` ≤ 5× `plain` on scalar code. Run with `cargo bench --bench
//! replay`; `scripts/bench-report` prints the ratios.

mod common;

use common::{plain, tracked};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use irtrack::program::{Input, Program};
use irtrack::track;

fn replay(c: &mut Criterion) {
    // `h(x, 100)` with `n` static: 200 operations, no guard.
    let trace = track(tracked::h, (1.01, 100));
    let p = Program::from_trace(&trace, &[Input::Dynamic, Input::Static]).expect("h replays");
    assert_eq!(
        p.call((1.02, 100)).unwrap().as_f64(),
        Some(plain::h(1.02, 100))
    );
    let mut g = c.benchmark_group("replay/h_100");
    g.bench_function("plain", |b| {
        b.iter(|| plain::h(black_box(1.02), black_box(100)))
    });
    g.bench_function("program", |b| {
        b.iter(|| p.call((black_box(1.02), 100)).unwrap())
    });
    g.bench_function("interpreted", |b| {
        b.iter(|| p.call_interpreted((black_box(1.02), 100)).unwrap())
    });
    g.finish();

    // The 50-deep recursion `r(x, k)` with `k` dynamic: 50 guards on `k == 0`.
    let trace = track(tracked::rec, (0.7, 50));
    let p = Program::from_trace(&trace, &[Input::Dynamic, Input::Dynamic]).expect("rec replays");
    assert_eq!(
        p.call((0.71, 50u32)).unwrap().as_f64(),
        Some(plain::rec(0.71, 50))
    );
    let mut g = c.benchmark_group("replay/rec_50");
    g.bench_function("plain", |b| {
        b.iter(|| plain::rec(black_box(0.71), black_box(50)))
    });
    g.bench_function("program", |b| {
        b.iter(|| p.call((black_box(0.71), 50u32)).unwrap())
    });
    g.bench_function("interpreted", |b| {
        b.iter(|| p.call_interpreted((black_box(0.71), 50u32)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, replay);
criterion_main!(benches);
