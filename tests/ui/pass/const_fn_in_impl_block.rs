// A `const fn` (and an `extern` fn) in a tracked `impl` block is left as written: it stays
// usable in constants, and the block's other methods are tracked.
use irtrack::tracked;

pub struct Complex<T> {
    pub re: T,
    pub im: T,
}

#[tracked]
impl<T> Complex<T> {
    pub const fn new(re: T, im: T) -> Self {
        Complex { re, im }
    }

    pub extern "C" fn unit() -> u8 {
        1
    }
}

#[tracked]
impl Complex<f64> {
    pub fn norm_sqr(&self) -> f64 {
        self.re * self.re + self.im * self.im
    }
}

const I: Complex<f64> = Complex::new(0.0, 1.0);

fn main() {
    assert_eq!(I.norm_sqr(), 1.0);
    assert_eq!(Complex::<f64>::unit(), 1);
}
