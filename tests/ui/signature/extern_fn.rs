// Foreign callers of an `extern "C"` function bypass the recorder.
use irtrack::tracked;

#[tracked]
extern "C" fn double(x: f64) -> f64 {
    x * 2.0
}

fn main() {}
