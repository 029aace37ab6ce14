// `#[derive(Snapshot)]` on a generic struct: recorded as a downcastable clone.
use irtrack::Snapshot;

#[derive(Clone, Debug, irtrack::Snapshot)]
struct Pair<T> {
    a: T,
    b: T,
}

fn main() {
    let v = Pair { a: 1.0f64, b: 2.0 }.snapshot();
    assert_eq!(v.downcast_ref::<Pair<f64>>().map(|p| p.b), Some(2.0));
    let _ = Pair { a: 1, b: 2 }.a;
}
