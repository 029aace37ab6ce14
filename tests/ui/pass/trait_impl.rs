// On a trait impl, the methods keep implementing the trait.
use irtrack::tracked;

trait Model {
    fn eval(&self, x: f64) -> f64;
}

struct Affine {
    a: f64,
    b: f64,
}

#[tracked]
impl Model for Affine {
    fn eval(&self, x: f64) -> f64 {
        self.a * x + self.b
    }
}

fn run(m: &dyn Model) -> f64 {
    m.eval(2.0)
}

fn main() {
    assert_eq!(run(&Affine { a: 3.0, b: 1.0 }), 7.0);
}
