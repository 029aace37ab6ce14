//! The main job: the trace of a recursive model with stochastic control flow.
//!
//! `geom(n, beta, rng)` flips a biased coin: with probability `beta` it stops and returns
//! `n`, otherwise it recurses with `n + 1`. How deep the trace goes is decided at run time by
//! the random draws, which is what an extended Wengert list records and a static graph cannot.
//!
//! Run with `cargo run --example geom`.

use irtrack::{track, tracked, NodeKind};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[tracked]
fn geom(n: i32, beta: f64, rng: &mut StdRng) -> i32 {
    if rng.random::<f64>() < beta {
        n
    } else {
        geom(n + 1, beta, rng)
    }
}

fn main() {
    // Seed 3 draws 0.095 first: below beta, so geom stops at once.
    // Seed 0 draws 0.73, 0.77, then 0.026: two recursive calls before it stops.
    for seed in [3, 0] {
        let mut rng = StdRng::seed_from_u64(seed);
        let trace = track(geom, (1, 0.5, &mut rng));
        let root = trace.root();
        println!("geom(1, 0.5) with seed {seed}, at three levels:");
        println!("{}", root.levels(3));
        let depth = std::iter::successors(Some(root), |n| {
            n.children().find(|c| c.kind() == NodeKind::NestedCall)
        })
        .count();
        println!(
            "result {} after {depth} call(s) of geom; {} nodes in the whole trace\n",
            root.value::<i32>().expect("geom returns an i32"),
            trace.len()
        );
    }
    let trace = track(geom, (1, 0.5, &mut StdRng::seed_from_u64(0)));
    println!("The static IR of geom, which every node's location indexes:");
    print!("{}", trace.root().callee_ir().expect("geom is tracked"));
}
