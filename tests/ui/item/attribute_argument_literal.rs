// A bare literal is not an argument either.
use irtrack::tracked;

#[tracked("sq")]
fn square(x: f64) -> f64 {
    x * x
}

fn main() {}
