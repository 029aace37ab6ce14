// A free function that calls itself runs its original body as an inner function whose calls of
// itself skip the check: generics, `impl Trait` arguments, `mut` parameters, turbofish calls, and
// a local of the same name (which keeps the call as written) all still compile and run as
// written, and a recording still sees every level.
use irtrack::{track, tracked, NodeKind};

#[tracked]
fn count<T: Copy + PartialOrd>(x: T, lo: T, n: u32) -> u32
where
    T: std::fmt::Debug,
{
    if x < lo || n == 0 {
        n
    } else {
        count(x, lo, n - 1)
    }
}

#[tracked]
fn apply(f: impl Fn(f64) -> f64 + Copy, x: f64, k: u32) -> f64 {
    if k == 0 {
        x
    } else {
        apply(f, f(x), k - 1)
    }
}

#[tracked]
#[inline]
fn down(mut n: u32) -> u32 {
    n -= 1;
    if n == 0 {
        0
    } else {
        down(n)
    }
}

#[tracked]
fn plus_n<const N: usize>(k: usize) -> usize {
    if k == 0 {
        N
    } else {
        plus_n::<N>(k - 1) + 1
    }
}

#[tracked]
fn shadowed(n: u64) -> u64 {
    let shadowed = |k: u64| k + 1;
    if n == 0 {
        shadowed(1)
    } else {
        n * shadowed(n - 1)
    }
}

fn main() {
    assert_eq!(count(1.0, 0.0, 5), 0);
    assert_eq!(apply(|x| x * 2.0, 1.0, 3), 8.0);
    assert_eq!(down(4), 0);
    assert_eq!(plus_n::<3>(2), 5);
    assert_eq!(shadowed(3), 9);

    // Recorded, every level is a nested call.
    let trace = track(down, (3,));
    let nested = trace
        .nodes()
        .filter(|n| n.kind() == NodeKind::NestedCall)
        .count();
    assert_eq!(nested, 3);
    let trace = track(plus_n::<3>, (2,));
    assert_eq!(trace.root().value::<usize>(), Some(&5));
}
