// On an `impl` block, each method's signature is checked: the error names the method.
use irtrack::tracked;

struct Sensor;

#[tracked]
impl Sensor {
    fn read(&self) -> f64 {
        1.0
    }

    async fn read_later(&self) -> f64 {
        2.0
    }
}

fn main() {}
