// KNOWN BUG: this is valid Rust and must compile; move it to `pass/` once fixed.
// In a closure, a captured variable is lowered to a block `{ record; a }`; as the left operand
// of `*` at the start of a statement the block ends the statement, and `* y` parses as a
// dereference of `y`.
use irtrack::tracked;

#[tracked]
fn scaled(x: f64) -> f64 {
    let a = 2.0;
    let f = |y: f64| a * y;
    f(x)
}

fn main() {
    assert_eq!(scaled(1.0), 2.0);
}
