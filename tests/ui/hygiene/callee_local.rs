// `__irtrack_callee` (the function value of a call) is hygienic, even inside the call's arguments.
use irtrack::tracked;

fn sq(x: f64) -> f64 {
    x * x
}

#[tracked]
fn outer(x: f64) -> f64 {
    sq(__irtrack_callee(x))
}

fn main() {}
