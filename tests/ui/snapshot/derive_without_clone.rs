// A snapshot is a clone: the type must be `Clone` (and `Debug + Send + Sync + 'static`).
#[derive(Debug, irtrack::Snapshot)]
struct Point {
    x: f64,
    y: f64,
}

fn main() {}
