//! The workloads of the benchmarks, each written once and compiled twice: `plain::f` exactly as
//! written, and `tracked::f` with `#[tracked]` on it. The two modules hold the same token
//! streams, so every tracked/plain ratio compares identical source. A recursive call inside a
//! body (`geom`, `rec`) names its own module's copy, and `calls` calls its own module's `tiny`.
//!
//! Shared by `benches/overhead.rs`, `benches/memory.rs` and `benches/gradients.rs` (each uses
//! only some of it).
#![allow(dead_code)]

pub mod peers;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

macro_rules! twins {
    ($($item:item)*) => {
        /// The workloads without the attribute.
        pub mod plain {
            #![allow(dead_code)]
            use super::*;
            $($item)*
        }
        /// The same workloads with `#[tracked]`.
        pub mod tracked {
            #![allow(dead_code)]
            use super::*;
            $(#[irtrack::tracked] $item)*
        }
    };
}

twins! {
    /// A tiny arithmetic function, called in a hot loop over a slice.
    #[inline]
    pub fn tiny(x: f64) -> f64 {
        x * 2.0 + 1.0
    }

    /// The loop of the README: `Σ_{i<n} x^i`.
    pub fn h(x: f64, n: i32) -> f64 {
        let mut r = 0.0;
        let mut i = 0;
        while i < n {
            r += x.powi(i);
            i += 1;
        }
        r
    }

    /// Stochastic recursion: stop with `n` with probability `beta`, else recurse with `n + 1`.
    pub fn geom(n: i32, beta: f64, rng: &mut StdRng) -> i32 {
        if rng.random::<f64>() < beta {
            n
        } else {
            geom(n + 1, beta, rng)
        }
    }

    /// `r(x, k) = r(x, k - 1).sin() * x + 0.5`, `r(x, 0) = x`.
    pub fn rec(x: f64, k: u32) -> f64 {
        if k == 0 {
            x
        } else {
            rec(x, k - 1).sin() * x + 0.5
        }
    }

    /// A dot product written as an indexed loop.
    pub fn dot(a: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        let mut i = 0;
        while i < a.len() {
            s += a[i] * b[i];
            i += 1;
        }
        s
    }

    /// `Σ_j tanh(Σ_i W[j][i] x[i])`: a dense layer with a tanh activation, summed.
    pub fn dense(w: &[Vec<f64>], x: &[f64]) -> f64 {
        let mut total = 0.0;
        let mut j = 0;
        while j < w.len() {
            let row = &w[j];
            let mut s = 0.0;
            let mut i = 0;
            while i < x.len() {
                s += row[i] * x[i];
                i += 1;
            }
            total += s.tanh();
            j += 1;
        }
        total
    }

    /// A loop of `n` calls of `tiny`: in a trace, one nested call per iteration.
    pub fn calls(x: f64, n: u32) -> f64 {
        let mut acc = 0.0;
        let mut k = 0;
        while k < n {
            acc += tiny(x + acc * 1e-9);
            k += 1;
        }
        acc
    }
}

/// The gradients of the workloads with irtrack: `(value, gradient)` as the peers return them.
pub mod irtrack_ad {
    use irtrack::{gradient, tracked_fn, Tangent};
    use ndarray::{ArcArray2, Array1};

    fn scalar(t: &Option<Tangent>) -> f64 {
        t.as_ref()
            .and_then(Tangent::as_scalar)
            .expect("a float gradient")
    }

    /// `dh/dx` of `h(x, n)`.
    pub fn h(x: f64, n: i32) -> (f64, f64) {
        let g = gradient(super::tracked::h, (x, n)).expect("h is differentiable");
        (g.value, scalar(&g.wrt[0]))
    }

    /// `dr/dx` of the `k`-deep recursion.
    pub fn rec(x: f64, k: u32) -> (f64, f64) {
        let g = gradient(super::tracked::rec, (x, k)).expect("rec is differentiable");
        (g.value, scalar(&g.wrt[0]))
    }

    /// The gradient of the dense layer over its inputs `x`.
    pub fn dense(w: &[Vec<f64>], x: &[f64]) -> (f64, Vec<f64>) {
        let g = gradient(super::tracked::dense, (w, x)).expect("dense is differentiable");
        let dx = g.wrt[1]
            .as_ref()
            .and_then(Tangent::as_slice)
            .expect("a vector");
        (g.value, dx.to_vec())
    }

    /// The gradient over `x` of `½‖A x‖²`, `A` captured (a constant).
    pub fn matvec(a: &ArcArray2<f64>, x: &Array1<f64>) -> (f64, Array1<f64>) {
        let a = a.clone();
        let model = tracked_fn!(move |x: Array1<f64>| {
            let y = a.dot(&x);
            0.5 * y.dot(&y)
        });
        let g = gradient(model, (x.clone(),)).expect("the model is differentiable");
        let dx = g.wrt[0]
            .as_ref()
            .and_then(Tangent::as_array)
            .expect("an array");
        let dx = dx.into_dimensionality().expect("one dimension").to_owned();
        (g.value, dx)
    }
}

/// The 256×256 matrix-vector model on ndarray: `½‖A x‖²` (gradient `Aᵀ A x`); its gradient
/// with irtrack is [`irtrack_ad::matvec`].
pub fn matvec_plain(a: &ndarray::Array2<f64>, x: &ndarray::Array1<f64>) -> f64 {
    let y = a.dot(x);
    0.5 * y.dot(&y)
}

/// `n` values in `[-1, 1)` from a fixed seed.
pub fn uniform(seed: u64, n: usize) -> Vec<f64> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(-1.0..1.0)).collect()
}

/// The weights of the 64×64 dense layer, scaled so that no tanh saturates.
pub fn dense_weights(n: usize) -> Vec<Vec<f64>> {
    (0..n)
        .map(|j| {
            uniform(1000 + j as u64, n)
                .into_iter()
                .map(|w| w / (n as f64).sqrt())
                .collect()
        })
        .collect()
}

/// The seed of the `geom` benchmarks (it recurses 19 deep) and the `beta` it stops with.
pub const GEOM_SEED: u64 = 1;
pub const GEOM_BETA: f64 = 0.05;

/// Where the benchmarks write the figures criterion does not measure (node counts, bytes):
/// `irtrack/` inside criterion's own output directory, found the way criterion finds it
/// (`$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`, else `target/criterion` of this
/// package). `scripts/bench-report` reads them from there.
pub fn figures_dir() -> std::path::PathBuf {
    use std::path::PathBuf;
    let criterion = if let Some(home) = std::env::var_os("CRITERION_HOME") {
        PathBuf::from(home)
    } else if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        PathBuf::from(target).join("criterion")
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/criterion")
    };
    criterion.join("irtrack")
}

/// Writes `figures` (name → number) as a flat JSON object to `figures_dir()/file`, merged with
/// what an earlier run of another benchmark filter left there.
pub fn write_figures(file: &str, figures: &[(String, f64)]) {
    let dir = figures_dir();
    std::fs::create_dir_all(&dir).expect("create the figures directory");
    let path = dir.join(file);
    let mut all: std::collections::BTreeMap<String, f64> = std::collections::BTreeMap::new();
    if let Ok(old) = std::fs::read_to_string(&path) {
        // The file is our own flat `{"name": number, …}`: one pair per line.
        for line in old.lines() {
            let line = line.trim().trim_end_matches(',');
            if let Some((k, v)) = line.split_once(": ") {
                if let Ok(v) = v.parse::<f64>() {
                    all.insert(k.trim_matches('"').to_string(), v);
                }
            }
        }
    }
    for (k, v) in figures {
        all.insert(k.clone(), *v);
    }
    let body: Vec<String> = all.iter().map(|(k, v)| format!("  \"{k}\": {v}")).collect();
    std::fs::write(&path, format!("{{\n{}\n}}\n", body.join(",\n"))).expect("write figures");
}
