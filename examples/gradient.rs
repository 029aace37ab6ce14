//! Gradients from traces: a model with stochastic control flow, and a two-layer network on
//! ndarray, each printed with its trace annotated with adjoints.
//!
//! Run with `cargo run --example gradient`.

use irtrack::{gradient, track, tracked, Tangent};
use ndarray::{array, Array1, Array2};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A random walk that keeps going while a coin with bias `p` comes up heads: how many steps it
/// takes is random, and so is the length of the trace.
#[tracked]
fn walk(x: f64, theta: f64, p: f64, rng: &mut StdRng) -> f64 {
    let mut y = x;
    while rng.random::<f64>() < p {
        y = (y * theta).sin() + 0.5 * y;
    }
    y * y
}

/// A two-layer network with a `tanh` hidden layer and a squared error.
#[tracked]
fn loss(w1: Array2<f64>, b1: Array1<f64>, w2: Array1<f64>, x: Array1<f64>, target: f64) -> f64 {
    let hidden = (w1.dot(&x) + &b1).mapv(f64::tanh);
    let out = w2.dot(&hidden);
    let err = out - target;
    err * err
}

fn main() {
    println!("# A stochastic model");
    let g = gradient(walk, (0.3, 1.7, 0.6, &mut StdRng::seed_from_u64(7))).unwrap();
    println!("value {} gradient {:?}\n", g.value, g.wrt);
    let mut trace = track(walk, (0.3, 1.7, 0.6, &mut StdRng::seed_from_u64(7)));
    trace.backward(1.0).unwrap();
    println!("{trace}");

    println!("# A two-layer network");
    let w1 = array![[0.5, -0.3], [0.8, 0.2], [-0.6, 0.4]];
    let b1 = array![0.1, 0.0, -0.1];
    let w2 = array![1.0, -1.5, 0.7];
    let x = array![1.0, 2.0];
    let args = (w1, b1, w2, x, 0.25);
    let g = gradient(loss, args.clone()).unwrap();
    println!("loss {}", g.value);
    for (name, t) in ["w1", "b1", "w2", "x", "target"].iter().zip(&g.wrt) {
        println!(
            "  d/d{name} = {}",
            t.as_ref().map_or("none".into(), Tangent::to_string)
        );
    }
    let mut trace = track(loss, args);
    trace.backward(1.0).unwrap();
    println!("\n{trace}");
}
