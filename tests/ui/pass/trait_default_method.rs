// A provided (default) method inside a trait definition has a body, so it can be tracked.
use irtrack::tracked;

trait Model {
    fn eval(&self, x: f64) -> f64;

    #[tracked]
    fn eval_twice(&self, x: f64) -> f64 {
        self.eval(self.eval(x))
    }
}

struct Double;

impl Model for Double {
    fn eval(&self, x: f64) -> f64 {
        2.0 * x
    }
}

fn main() {
    assert_eq!(Double.eval_twice(1.0), 4.0);
}
