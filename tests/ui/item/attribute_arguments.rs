// `#[tracked]` takes no arguments.
use irtrack::tracked;

#[tracked(name = "sq")]
fn square(x: f64) -> f64 {
    x * x
}

fn main() {}
