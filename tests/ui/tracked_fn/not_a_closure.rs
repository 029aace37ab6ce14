// `tracked_fn!` takes a closure; a function is tracked with the attribute.
use irtrack::{track, tracked_fn};

fn square(x: f64) -> f64 {
    x * x
}

fn main() {
    let _ = track(tracked_fn!(square), (2.0,));
}
