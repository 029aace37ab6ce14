//! What `#[tracked]` costs when nothing is recorded, and what recording costs: each tracked
//! function is benchmarked next to an identical plain one in the same process. Compare the
//! `plain` and `tracked` rows of a group; `issue 6` turns these into a ratio report.
//!
//! Run with `cargo bench --bench overhead`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use irtrack::{track, track_with, tracked, Everything};

fn tiny_plain(x: f64) -> f64 {
    x * 2.0 + 1.0
}

#[tracked]
fn tiny_tracked(x: f64) -> f64 {
    x * 2.0 + 1.0
}

fn h_plain(x: f64, n: i32) -> f64 {
    let mut r = 0.0;
    let mut i = 0;
    while i < n {
        r += x.powi(i);
        i += 1;
    }
    r
}

#[tracked]
fn h_tracked(x: f64, n: i32) -> f64 {
    let mut r = 0.0;
    let mut i = 0;
    while i < n {
        r += x.powi(i);
        i += 1;
    }
    r
}

fn rec_plain(x: f64, k: u32) -> f64 {
    if k == 0 {
        x
    } else {
        rec_plain(x, k - 1).sin() * x + 0.5
    }
}

#[tracked]
fn rec_tracked(x: f64, k: u32) -> f64 {
    if k == 0 {
        x
    } else {
        rec_tracked(x, k - 1).sin() * x + 0.5
    }
}

fn untracked_path(c: &mut Criterion) {
    let xs: Vec<f64> = (0..1024).map(|i| i as f64 * 0.001).collect();
    let mut g = c.benchmark_group("off/tiny_over_1024_slice");
    g.bench_function("plain", |b| {
        b.iter(|| black_box(&xs).iter().map(|&x| tiny_plain(x)).sum::<f64>())
    });
    g.bench_function("tracked", |b| {
        b.iter(|| black_box(&xs).iter().map(|&x| tiny_tracked(x)).sum::<f64>())
    });
    g.finish();
    let mut g = c.benchmark_group("off/h_100");
    g.bench_function("plain", |b| b.iter(|| h_plain(black_box(1.01), 100)));
    g.bench_function("tracked", |b| b.iter(|| h_tracked(black_box(1.01), 100)));
    g.finish();
    let mut g = c.benchmark_group("off/recursion_50");
    g.bench_function("plain", |b| b.iter(|| rec_plain(black_box(0.7), 50)));
    g.bench_function("tracked", |b| b.iter(|| rec_tracked(black_box(0.7), 50)));
    g.finish();
}

fn recording(c: &mut Criterion) {
    let mut g = c.benchmark_group("on/h_100");
    g.bench_function("plain", |b| b.iter(|| h_plain(black_box(1.01), 100)));
    g.bench_function("track", |b| {
        b.iter(|| track(h_tracked, (black_box(1.01), 100)))
    });
    // An explicit context that overrides nothing: every hook is called and does nothing.
    g.bench_function("track_with_everything", |b| {
        b.iter(|| track_with(Everything, h_tracked, (black_box(1.01), 100)))
    });
    g.finish();
}

criterion_group!(benches, untracked_path, recording);
criterion_main!(benches);
