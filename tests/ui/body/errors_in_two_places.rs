// Every body error is reported, not only the first.
use irtrack::tracked;

#[tracked]
fn both(x: f64) -> f64 {
    let a = 'a: {
        break 'a x;
    };
    let b = async { 1.0 };
    let _ = b;
    a
}

fn main() {}
