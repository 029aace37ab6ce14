// In a tracked `impl` block a `const fn` is left as written, unless it is marked `#[tracked]`
// itself: that asks for what a `const fn` cannot be.
use irtrack::tracked;

struct P(f64);

#[tracked]
impl P {
    const fn new(x: f64) -> Self {
        P(x)
    }

    #[tracked]
    const fn zero() -> Self {
        P(0.0)
    }
}

fn main() {}
