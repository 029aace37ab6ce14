// A C-variadic function cannot be recorded.
use irtrack::tracked;

#[tracked]
unsafe extern "C" fn sum(n: usize, _args: ...) -> f64 {
    let _ = n;
    0.0
}

fn main() {}
