// A snapshot is an owned clone, which a borrowing type cannot have.
#[derive(Clone, Debug, irtrack::Snapshot)]
struct Window<'a> {
    xs: &'a [f64],
}

fn main() {}
