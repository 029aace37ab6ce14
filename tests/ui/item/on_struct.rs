// `#[tracked]` records function bodies; a struct has none.
use irtrack::tracked;

#[tracked]
struct Point {
    x: f64,
    y: f64,
}

fn main() {}
