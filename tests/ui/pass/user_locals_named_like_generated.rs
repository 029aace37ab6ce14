// The user's own locals may use the generated names: hygiene keeps the two apart.
use irtrack::{track, tracked};

fn sq(x: f64) -> f64 {
    x * x
}

#[tracked]
fn shadow(x: f64, flag: bool) -> f64 {
    let __irtrack = x + 1.0;
    let __irtrack_callee = sq(__irtrack);
    let __irtrack_value = flag && __irtrack_callee > 0.0;
    if __irtrack_value {
        __irtrack_callee
    } else {
        0.0
    }
}

fn main() {
    assert_eq!(shadow(1.0, true), 4.0);
    let trace = track(shadow, (1.0, true));
    let _ = trace.root();
}
