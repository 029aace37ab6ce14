// A match guard with control flow runs unrecorded: a `break` out of it (to the loop around
// the `match`) would be missing from the trace, so `#[tracked]` refuses it and says where.
use irtrack::tracked;

#[tracked]
fn first_small(xs: &[f64], n: i64) -> f64 {
    let mut i = 0;
    loop {
        if i >= 3 {
            break xs[0];
        }
        i += 1;
        let _ = match n {
            m if if m > 2 {
                break 1.0;
            } else {
                true
            } =>
            {
                xs[1]
            }
            _ => xs[2],
        };
    }
}

// A loop inside the guard may `break` itself: nothing leaves the guard.
#[tracked]
fn searched(xs: &[f64], n: i64) -> f64 {
    match n {
        m if loop {
            if m > 0 {
                break true;
            }
            break false;
        } =>
        {
            xs[0]
        }
        _ => xs[1],
    }
}

fn main() {}
