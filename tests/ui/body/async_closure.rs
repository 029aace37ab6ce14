// An async closure's body runs later, when polled.
use irtrack::tracked;

#[tracked]
fn later(x: f64) -> f64 {
    let f = async move || x * 2.0;
    let _ = f;
    x
}

fn main() {}
