//! A loop: how variables carried around a `while` become block arguments, and how every
//! reference points at the newest recording of a variable.
//!
//! Run with `cargo run --example loop`.

use irtrack::{track, tracked};

#[tracked]
fn h(x: f64, n: i32) -> f64 {
    let mut r = 0.0;
    let mut i = 0;
    while i < n {
        r += x.powi(i);
        i += 1;
    }
    r
}

fn main() {
    let trace = track(h, (2.0, 2));
    println!("h(2.0, 2):\n{}", trace.root().levels(2));
    println!(
        "The static IR of h:\n{}",
        trace.root().callee_ir().expect("h is tracked")
    );
    println!("h(2.0, 0), where the loop body never runs:");
    println!("{}", track(h, (2.0, 0)).root().levels(2));
}
