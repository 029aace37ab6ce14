// `yield` (coroutines) is not recorded.
use irtrack::tracked;

#[tracked]
fn gen(x: f64) {
    yield x;
}

fn main() {}
