// A tracked function that nothing calls is still dead code: the expansion keeps the user's
// braces, so the item is not taken for macro-generated (issue 11, case 12).
#![deny(dead_code)]
use irtrack::tracked;

#[tracked]
fn unused(x: f64) -> f64 {
    x * 2.0
}

struct S;

#[tracked]
impl S {
    fn unused_method(&self) -> f64 {
        1.0
    }
}

fn main() {
    let _ = S;
}
