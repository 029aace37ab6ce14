// Labelled blocks are not lowered yet.
use irtrack::tracked;

#[tracked]
fn clamp(x: f64) -> f64 {
    let y = 'done: {
        if x < 0.0 {
            break 'done 0.0;
        }
        x
    };
    y
}

fn main() {}
