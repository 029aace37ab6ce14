// A closure cannot `break` out of a loop around it.
use irtrack::tracked;

#[tracked]
fn stop(xs: &[f64]) -> f64 {
    'outer: for x in xs {
        let check = |y: f64| {
            if y > 0.0 {
                break 'outer;
            }
        };
        check(*x);
    }
    0.0
}

fn main() {}
