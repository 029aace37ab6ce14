// `primitive` is a flag: `#[tracked(primitive)]`, not `primitive = "yes"`.
use irtrack::tracked;

#[tracked(primitive = "yes")]
fn square(x: f64) -> f64 {
    x * x
}

fn main() {}
