// Generic parameters and where clauses are kept as written.
use irtrack::tracked;
use std::ops::{Add, Mul};

#[tracked]
fn dot<T>(xs: &[T], ys: &[T]) -> T
where
    T: Copy + Default + Add<Output = T> + Mul<Output = T>,
{
    let mut acc = T::default();
    for (x, y) in xs.iter().zip(ys) {
        acc = acc + *x * *y;
    }
    acc
}

fn main() {
    assert_eq!(dot(&[1, 2, 3], &[4, 5, 6]), 32);
    assert_eq!(dot(&[0.5], &[2.0]), 1.0);
}
