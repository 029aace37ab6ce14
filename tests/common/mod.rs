//! The reference functions of DESIGN.md, shared by the integration tests so that every test
//! records the same `f`, `h` and `geom`. Each test crate uses only some of them.
#![allow(dead_code)]

use irtrack::tracked;
use rand::rngs::StdRng;
use rand::Rng;

/// `f(x) = sin(x) + x`, IRTracker's first example.
#[tracked]
pub fn f(x: f64) -> f64 {
    x.sin() + x
}

/// The loop of DESIGN.md: `r = Σ_{i<n} x^i`.
#[tracked]
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
#[tracked]
pub fn geom(n: i32, beta: f64, rng: &mut StdRng) -> i32 {
    if rng.random::<f64>() < beta {
        n
    } else {
        geom(n + 1, beta, rng)
    }
}

/// The benchmarks' dense layer, `Σ_j tanh(Σ_i W[j][i] x[i])`, written as numeric code writes it.
#[tracked]
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
