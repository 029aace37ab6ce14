// `let` inside an `&&` chain is not lowered.
use irtrack::tracked;

#[tracked]
fn first_positive(xs: &[f64]) -> f64 {
    if let Some(x) = xs.first() && *x > 0.0 {
        *x
    } else {
        0.0
    }
}

fn main() {}
