// A closure's static IR `__IRTRACK_CLOSURE_<n>` exists only in the instrumented copy of the
// body, so the user's closure cannot name it (the untracked copy has no such item).
use irtrack::tracked;

#[tracked]
fn peek(x: f64) -> f64 {
    let f = |y: f64| {
        let _ = &__IRTRACK_CLOSURE_1;
        y
    };
    f(x)
}

fn main() {}
