//! Contexts change how tracking works without touching the traced code.
//!
//! 1. `DepthLimit::new(2)` on `geom`: the root is recorded, every call inside it (the
//!    recursive `geom` included) is a primitive, as in IRTracker's README.
//! 2. A context written here, against the public trait only, that tags every draw from the
//!    random number generator as a random choice with an address, the way a probabilistic
//!    programming system names its choices.
//!
//! Run with `cargo run --example contexts`.

use irtrack::{track_with, tracked, CallSite, Context, DepthLimit, Draft};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::cell::RefCell;
use std::rc::Rc;

#[tracked]
fn geom(n: i32, beta: f64, rng: &mut StdRng) -> i32 {
    if rng.random::<f64>() < beta {
        n
    } else {
        geom(n + 1, beta, rng)
    }
}

/// Tags each call of `random` with the address `"<call path>/random#<k>"`: the path of
/// nested calls it happened in, and its number among the draws of that call.
struct RandomChoices {
    /// The address of the call this context records (`geom/geom`).
    path: String,
    /// Draws made so far in this call; shared by the hooks of this call only.
    draws: Rc<RefCell<usize>>,
    /// Every address, in order, for the whole trace.
    log: Rc<RefCell<Vec<String>>>,
}

impl Context for RandomChoices {
    fn nested(&self, call: &CallSite<'_>) -> Option<Rc<dyn Context>> {
        Some(Rc::new(RandomChoices {
            path: format!("{}/{}", self.path, call.callee.name),
            draws: Rc::new(RefCell::new(0)),
            log: self.log.clone(),
        }))
    }

    fn primitive_call(&self, node: &mut Draft<'_>) {
        if node.function_name() == Some("random") {
            let k = {
                let mut draws = self.draws.borrow_mut();
                *draws += 1;
                *draws
            };
            let address = format!("{}/random#{k}", self.path);
            self.log.borrow_mut().push(address.clone());
            node.set("choice", address);
        }
    }
}

fn main() {
    for seed in [0, 3] {
        let mut rng = StdRng::seed_from_u64(seed);
        let trace = track_with(DepthLimit::new(2), geom, (1, 0.5, &mut rng));
        println!(
            "DepthLimit::new(2), geom(1, 0.5) with seed {seed}:\n{}",
            trace.root()
        );
    }

    let log = Rc::new(RefCell::new(Vec::new()));
    let ctx = RandomChoices {
        path: String::new(),
        draws: Rc::new(RefCell::new(0)),
        log: log.clone(),
    };
    let mut rng = StdRng::seed_from_u64(0);
    let trace = track_with(ctx, geom, (1, 0.5, &mut rng));
    println!("Random choices, geom(1, 0.5) with seed 0, at three levels:");
    println!("{}", trace.root().levels(3));
    println!("Addresses of the random choices: {:?}", log.borrow());
}
