// A trait definition has no bodies to record: track its impls instead.
use irtrack::tracked;

#[tracked]
trait Model {
    fn eval(&self, x: f64) -> f64;
}

fn main() {}
