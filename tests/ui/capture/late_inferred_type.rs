// The type of `c` is decided only by the later call `use_config(c)`, after irtrack recorded the
// value, and `Config` has no snapshot. Plain Rust accepts this; a tracked body needs the type.
use irtrack::tracked;

#[derive(Debug, Default)]
struct Config {
    scale: f64,
}

fn make<T: Default>() -> T {
    T::default()
}

fn use_config(c: Config) -> f64 {
    c.scale
}

#[tracked]
fn run() -> f64 {
    let c = make();
    use_config(c)
}

fn main() {}
