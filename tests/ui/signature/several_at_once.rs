// Every signature error is reported, not only the first.
use irtrack::tracked;

#[tracked]
const unsafe extern "C" fn both(x: f64) -> f64 {
    x
}

fn main() {}
