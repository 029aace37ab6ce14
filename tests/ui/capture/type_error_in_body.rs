// A plain type error in a tracked body is reported once, at the user's expression, although the
// body is emitted twice (untracked and instrumented copies).
use irtrack::tracked;

#[tracked]
fn truncate(x: f64) -> i32 {
    let n: i32 = x;
    n
}

fn main() {}
