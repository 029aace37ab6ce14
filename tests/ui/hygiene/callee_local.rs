// `__irtrack_key` (the key of the callee a call announces) is hygienic, even inside the call's
// arguments.
use irtrack::tracked;

fn sq(x: f64) -> f64 {
    x * x
}

#[tracked]
fn outer(x: f64) -> f64 {
    sq(__irtrack_key.id)
}

fn main() {}
