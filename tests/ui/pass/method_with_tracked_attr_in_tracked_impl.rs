// A method marked `#[tracked]` inside a `#[tracked]` impl is tracked once.
use irtrack::tracked;

struct S;

#[tracked]
impl S {
    #[tracked]
    fn f(&self, x: f64) -> f64 {
        x + 1.0
    }
}

fn main() {
    assert_eq!(S.f(1.0), 2.0);
}
