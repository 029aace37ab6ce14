// An expression syntax the lowering does not know (here unstable `become`).
use irtrack::tracked;

fn g(x: f64) -> f64 {
    x
}

#[tracked]
fn tail(x: f64) -> f64 {
    become g(x)
}

fn main() {}
