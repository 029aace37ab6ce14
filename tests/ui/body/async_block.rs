// An async block runs later, when polled, not while the trace is recorded.
use irtrack::tracked;

#[tracked]
fn later(x: f64) -> impl std::future::Future<Output = f64> {
    async move { x * 2.0 }
}

fn main() {}
