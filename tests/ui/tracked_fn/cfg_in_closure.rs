// `tracked_fn!` cannot learn which `#[cfg]` inside its closure is on (a function-like macro has
// no second stage); a `#[tracked]` function can.
use irtrack::tracked_fn;

fn main() {
    let f = tracked_fn!(|x: f64| {
        #[cfg(feature = "never")]
        let x = x * 2.0;
        x + 1.0
    });
    let _ = f(1.0);
}
