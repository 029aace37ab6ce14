// A `static` in an inner block would exist twice: once in the body that runs when nothing is
// recorded, once in the instrumented copy.
use irtrack::tracked;

#[tracked]
fn count(flag: bool) -> u32 {
    if flag {
        static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    } else {
        0
    }
}

fn main() {}
