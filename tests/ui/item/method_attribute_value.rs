// `#[tracked = …]` on a method of a tracked `impl` is not an argument list.
use irtrack::tracked;

struct P(f64);

#[tracked]
impl P {
    #[tracked = "primitive"]
    fn twice(&self) -> f64 {
        self.0 * 2.0
    }
}

fn main() {}
