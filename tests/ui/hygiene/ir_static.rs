// The static IR sits in a block behind a hygienic local, so the user's body cannot name it
// (it was once a plain item of the function body, `__IRTRACK_IR`, which could be named).
use irtrack::tracked;

#[tracked]
fn peek(x: f64) -> f64 {
    let ir: &irtrack::FnIr = __irtrack_ir;
    let _ = ir;
    x
}

fn main() {
    assert_eq!(peek(1.0), 1.0);
}
