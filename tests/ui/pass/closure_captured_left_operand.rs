// A captured variable as the left operand of an operator in a closure (its recording was once
// a bare block `{ record; a }`, which ended the statement, so `* y` parsed as a dereference).
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
