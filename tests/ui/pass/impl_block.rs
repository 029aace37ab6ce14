// On an inherent `impl` block every method with a body is tracked.
use irtrack::{track, tracked};

#[derive(Debug, Clone, Copy)]
struct Point {
    x: f64,
    y: f64,
}

#[tracked]
impl Point {
    fn new(x: f64, y: f64) -> Self {
        Point { x, y }
    }

    fn norm2(&self) -> f64 {
        self.x * self.x + self.y * self.y
    }

    fn scale(&mut self, k: f64) {
        self.x *= k;
        self.y *= k;
    }
}

fn main() {
    let mut p = Point::new(3.0, 4.0);
    p.scale(1.0);
    assert_eq!(p.norm2(), 25.0);
    let _trace = track(|x: f64| Point::new(x, 0.0).norm2(), (2.0,));
}
