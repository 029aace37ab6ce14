// An async closure's body runs later, when polled: the same error as in a tracked function.
use irtrack::tracked_fn;

fn main() {
    let _ = tracked_fn!(async |x: f64| x * 2.0);
}
