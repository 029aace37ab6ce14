//! The trace of `geom` as a picture: writes `geom.dot` and, when Graphviz is installed,
//! renders it to `geom.svg`.
//!
//! Run with `cargo run --example graph`; both files land in the current directory.
//! Without Graphviz, render `geom.dot` later with `dot -Tsvg geom.dot -o geom.svg`.

use irtrack::{track, tracked};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::process::Command;

#[tracked]
fn geom(n: i32, beta: f64, rng: &mut StdRng) -> i32 {
    if rng.random::<f64>() < beta {
        n
    } else {
        geom(n + 1, beta, rng)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Seed 0 draws 0.73, 0.77, then 0.026: two recursive calls before geom stops.
    let trace = track(geom, (1, 0.5, &mut StdRng::seed_from_u64(0)));
    std::fs::write("geom.dot", trace.to_dot())?;
    println!("wrote geom.dot ({} nodes)", trace.len());

    let has_dot = Command::new("dot")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_dot {
        println!(
            "Graphviz `dot` is not installed, so geom.svg was not rendered. \
             Install it (e.g. `apt-get install graphviz`) and run \
             `dot -Tsvg geom.dot -o geom.svg`."
        );
        return Ok(());
    }
    let status = Command::new("dot")
        .args(["-Tsvg", "geom.dot", "-o", "geom.svg"])
        .status()?;
    if !status.success() {
        return Err(format!("`dot -Tsvg geom.dot -o geom.svg` failed: {status}").into());
    }
    println!("wrote geom.svg");
    Ok(())
}
