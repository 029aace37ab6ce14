// The recorder frame `__irtrack` is hygienic: the user's body cannot name it.
use irtrack::tracked;

#[tracked]
fn peek(x: f64) -> f64 {
    let _ = &__irtrack;
    x
}

fn main() {}
