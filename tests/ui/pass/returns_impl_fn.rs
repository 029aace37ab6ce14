// A function returning `impl Fn` is tracked, and so is the closure it returns.
use irtrack::tracked;

#[tracked]
fn affine(a: f64, b: f64) -> impl Fn(f64) -> f64 {
    move |x| a * x + b
}

fn main() {
    let f = affine(2.0, 1.0);
    assert_eq!(f(3.0), 7.0);
}
