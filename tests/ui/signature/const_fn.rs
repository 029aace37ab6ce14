// Recording is a run-time side effect, which a `const fn` cannot have.
use irtrack::tracked;

#[tracked]
const fn double(x: i32) -> i32 {
    x * 2
}

fn main() {}
