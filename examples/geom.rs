use irtrack::{track, tracked};
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
    let mut rng = StdRng::seed_from_u64(3);
    let t = track(geom, (1, 0.5, &mut rng));
    println!("{}", t.root().levels(3));
}
