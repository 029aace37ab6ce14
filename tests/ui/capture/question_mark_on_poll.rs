// `?` on `Poll<Result<_, _>>` is valid Rust, but the tracked copy only knows
// `Result`, `Option` and `ControlFlow`.
use irtrack::tracked;
use std::task::Poll;

#[tracked]
fn ready(p: Poll<Result<f64, String>>) -> Result<Poll<f64>, String> {
    let v = p?;
    Ok(v)
}

fn main() {}
