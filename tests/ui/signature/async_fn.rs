// An `async fn` runs when polled, not when called: it cannot be recorded.
use irtrack::tracked;

#[tracked]
async fn fetch(x: f64) -> f64 {
    x * 2.0
}

fn main() {}
