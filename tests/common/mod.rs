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
