// A body's inner attributes stay at the start of the body (they were emitted in front of the
// function, where an inner attribute is an error); a function that calls itself keeps them too.
use irtrack::{track, tracked};

#[tracked]
pub fn f(x1: f64) -> f64 {
    #![allow(unused_mut)]
    let mut y: f64;
    y = x1;
    y
}

#[tracked]
fn fact(n: u64) -> u64 {
    #![allow(clippy::needless_return)]
    if n == 0 {
        return 1;
    }
    return n * fact(n - 1);
}

fn main() {
    assert_eq!(f(2.0), 2.0);
    assert_eq!(fact(5), 120);
    assert_eq!(track(f, (2.0,)).root().value::<f64>(), Some(&2.0));
    assert_eq!(track(fact, (3,)).root().value::<u64>(), Some(&6));
}
