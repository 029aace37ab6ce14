// Items in the body are shared by the tracked and untracked paths: one `static`, one counter.
use irtrack::{track, tracked};
use std::sync::atomic::{AtomicUsize, Ordering};

#[tracked]
fn count(x: f64) -> f64 {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, Ordering::Relaxed);
    x + n as f64
}

fn main() {
    assert_eq!(count(0.0), 0.0);
    let _trace = track(count, (0.0,));
    assert_eq!(count(0.0), 2.0);
}
