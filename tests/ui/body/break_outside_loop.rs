// `break` must jump to an enclosing loop of the same function.
use irtrack::tracked;

#[tracked]
fn stop(x: f64) -> f64 {
    if x > 0.0 {
        break;
    }
    x
}

fn main() {}
