// NOT hygienic: the static IR `__IRTRACK_IR` is an item, and `Span::mixed_site()` only hides
// locals, so the user's body can name it. This case documents that; it is not an API.
use irtrack::tracked;

#[tracked]
fn peek(x: f64) -> f64 {
    let ir: &irtrack::FnIr = &__IRTRACK_IR;
    let _ = ir;
    x
}

fn main() {
    assert_eq!(peek(1.0), 1.0);
}
