// Labelled blocks are lowered (issue 11, case 13): a `break 'label value` jumps to the block's
// exit with its value.
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
