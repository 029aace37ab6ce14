// `__irtrack_value` (the result of a short-circuit `&&`) is hygienic.
use irtrack::tracked;

#[tracked]
fn both(a: bool, b: bool) -> bool {
    a && (b || __irtrack_value)
}

fn main() {}
