// One closure per `tracked_fn!`.
use irtrack::tracked_fn;

fn main() {
    let _ = tracked_fn!(|x: f64| x, |y: f64| y);
}
