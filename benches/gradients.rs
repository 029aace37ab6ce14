//! Gradients: time of one gradient (fresh tape, forward pass, backward pass) over the time of
//! the plain primal function, on the three scalar workloads of issue 6 and the ndarray
//! matrix-vector model. Groups `grad/<workload>`, rows:
//!
//! - `plain`: the primal function from `benches/common/mod.rs`;
//! - `reverse`, `easy_ml`: the peer crates (`benches/common/peers.rs`, checked against finite
//!   differences by `tests/peer_gradients.rs`);
//! - `irtrack`: `irtrack::gradient` on the tracked twins, see [`irtrack_gradients`].
//!
//! Run with `cargo bench --bench gradients`.

mod common;

use common::peers::{easy_ml_ad, reverse_ad};
use common::plain;
use criterion::{black_box, criterion_group, criterion_main, Criterion};

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

criterion_group!(benches, peers, irtrack_gradients);
criterion_main!(benches);
