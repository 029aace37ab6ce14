// The element type of `v` is decided by the later `push`, after irtrack recorded `Vec::new()`,
// and `Config` cannot be cloned into a snapshot. Plain Rust accepts this.
use irtrack::tracked;

#[derive(Debug, Default)]
struct Config {
    scale: f64,
}

#[tracked]
fn run() -> usize {
    let mut v = Vec::new();
    v.push(Config::default());
    v.len()
}

fn main() {}
