// A method of a tracked `impl` takes the same arguments as `#[tracked]`: `primitive` or none.
use irtrack::tracked;

struct P(f64);

#[tracked]
impl P {
    #[tracked(inline)]
    fn twice(&self) -> f64 {
        self.0 * 2.0
    }
}

fn main() {}
