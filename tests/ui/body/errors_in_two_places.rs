// Every body error is reported, not only the first.
use irtrack::tracked;

#[tracked]
fn both(x: f64) -> f64 {
    let c = async move |y: f64| y;
    let _ = c;
    let b = async { 1.0 };
    let _ = b;
    x
}

fn main() {}
