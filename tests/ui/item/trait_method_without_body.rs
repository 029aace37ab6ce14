// A required trait method has no body to record.
use irtrack::tracked;

trait Model {
    #[tracked]
    fn eval(&self, x: f64) -> f64;
}

fn main() {}
