//! Gradients through loops over iterator adaptors of a vector (`rev`, `skip`, `take`,
//! `step_by`, and these inside or outside `zip` and `enumerate`): the `k`-th item is mapped to
//! the element it is, checked against the recorded vector, and its slope goes there. Until
//! 2026-11-27 each was refused (`NoRule` on `next`). Truth: central differences of the plain
//! function, and the general sweep.

use irtrack::grad::{with_general_sweep, GradError};
use irtrack::{gradient, tracked, Tangent};

#[tracked]
fn reversed_weights(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    let mut w = 1.0;
    for t in v.iter().rev() {
        s += w * t;
        w += 1.0;
    }
    s
}

#[tracked]
fn squares_after_the_first(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for t in v.iter().skip(1) {
        s += t * t;
    }
    s
}

#[tracked]
fn successive_differences(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (a, b) in v.iter().zip(v.iter().skip(1)) {
        s += (b - a) * (b - a);
    }
    s
}

#[tracked]
fn every_other(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for t in v.iter().step_by(2) {
        s += 3.0 * t.exp();
    }
    s
}

#[tracked]
fn first_two(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for &t in v.iter().take(2) {
        s += t.sin();
    }
    s
}

#[tracked]
fn indexed_after_the_first(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (i, t) in v.iter().enumerate().skip(1) {
        s += (i as f64) * t * t;
    }
    s
}

#[tracked]
fn reversed_then_stepped(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    let mut w = 1.0;
    for t in v.iter().skip(1).rev().step_by(2) {
        s += w * t.powi(3);
        w *= 2.0;
    }
    s
}

#[tracked]
fn stepped_then_reversed(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    let mut w = 1.0;
    for t in v.iter().step_by(3).rev() {
        s += w * t.cos();
        w += 0.5;
    }
    s
}

#[tracked]
fn paired_against_reversed(v: Vec<f64>, u: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (a, b) in v.iter().zip(u.iter().rev()) {
        s += a * b.tanh();
    }
    s
}

#[tracked]
fn enumerated_in_reverse(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (i, t) in v.iter().enumerate().rev() {
        s += (1.0 + i as f64) * t.sqrt();
    }
    s
}

#[tracked]
fn taken_past_the_end(v: Vec<f64>) -> f64 {
    let mut s = 1.0;
    for t in v.iter().take(10).skip(2) {
        s *= t;
    }
    s
}

#[tracked]
fn owned_reversed(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    let mut w = 1.0;
    for t in v.into_iter().rev() {
        s += w * t * t;
        w += 1.0;
    }
    s
}

#[tracked]
fn sum_of_the_tail(v: Vec<f64>) -> f64 {
    v.iter().skip(2).sum::<f64>() * v[0]
}

#[tracked]
fn sum_of_every_other_reversed(v: Vec<f64>) -> f64 {
    v.iter().rev().step_by(2).sum::<f64>()
}

fn vector(t: &Option<Tangent>) -> Vec<f64> {
    match t {
        Some(Tangent::Vector(v)) => v.clone(),
        other => panic!("a vector's gradient, not {other:?}"),
    }
}

/// Central differences of `f` at `v`, element by element.
fn differences(f: impl Fn(Vec<f64>) -> f64, v: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..v.len())
        .map(|i| {
            let (mut p, mut m) = (v.to_vec(), v.to_vec());
            p[i] += h;
            m[i] -= h;
            (f(p) - f(m)) / (2.0 * h)
        })
        .collect()
}

fn close(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| (g - w).abs() <= 1e-5 * w.abs().max(1.0))
}

#[test]
fn loops_over_adaptors_have_the_slopes_of_the_elements_they_read() {
    let v = vec![0.7, 1.3, 2.1, 0.4, 1.9, 3.2, 0.8];
    macro_rules! check {
        ($($f:ident),*) => {$({
            let name = stringify!($f);
            let g = gradient($f, (v.clone(),)).unwrap_or_else(|e| panic!("{name}: {e}"));
            let got = vector(&g.wrt[0]);
            let want = differences($f, &v);
            assert!(close(&got, &want), "{name}: {got:?} for {want:?}");
            assert_eq!(g.value, $f(v.clone()), "{name}");
            let general = with_general_sweep(|| gradient($f, (v.clone(),))).unwrap();
            assert_eq!(vector(&general.wrt[0]), got, "{name}: the general sweep");
        })*};
    }
    check!(
        reversed_weights,
        squares_after_the_first,
        successive_differences,
        every_other,
        first_two,
        indexed_after_the_first,
        reversed_then_stepped,
        stepped_then_reversed,
        enumerated_in_reverse,
        taken_past_the_end,
        owned_reversed,
        sum_of_the_tail,
        sum_of_every_other_reversed
    );
    // Two vectors of different lengths: the zip stops at the shorter.
    let u = vec![0.3, -1.2, 0.9];
    let g = gradient(paired_against_reversed, (v.clone(), u.clone())).unwrap();
    let dv = differences(|v| paired_against_reversed(v, u.clone()), &v);
    let du = differences(|u| paired_against_reversed(v.clone(), u), &u);
    assert!(close(&vector(&g.wrt[0]), &dv), "{:?} for {dv:?}", g.wrt[0]);
    assert!(close(&vector(&g.wrt[1]), &du), "{:?} for {du:?}", g.wrt[1]);
    // Short vectors: empty walks and single items.
    for v in [vec![], vec![1.5], vec![1.5, 2.5]] {
        let g = gradient(successive_differences, (v.clone(),)).unwrap();
        let want = differences(successive_differences, &v);
        assert!(close(&vector(&g.wrt[0]), &want), "{v:?}");
    }
}

#[tracked]
fn moved_before_the_adaptor(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    let first = it.next().unwrap();
    let mut s = *first;
    for t in it.rev() {
        s += 2.0 * t;
    }
    s
}

#[test]
fn an_adaptor_of_an_iterator_already_moved_is_not_numbered_from_its_start() {
    // `it.rev()` after one `next`: its items are not those of a fresh walk; refused (or
    // right), never the slope of other elements.
    let v = vec![1.0, 2.0, 3.0];
    match gradient(moved_before_the_adaptor, (v.clone(),)) {
        Ok(g) => {
            let want = differences(moved_before_the_adaptor, &v);
            assert!(close(&vector(&g.wrt[0]), &want), "{:?} for {want:?}", g.wrt);
        }
        Err(GradError::NoRule { .. }) => {}
        Err(e) => panic!("{e:?}"),
    }
}

// Elements read through an `Option<&f64>` (`it.next().unwrap()`, `v.first()`, `v.last()`,
// `v.get(i)`, then `unwrap`, `expect`, `copied`, `cloned`), which the trace keeps as text:
// the element is told by the call and checked against the recorded vector. Running extremes
// by `fold(init, f64::max)` and `reduce(f64::min)`: the element the fold ends at. Each was
// `NoRule` until 2026-11-27.

#[tracked]
fn first_two_by_hand(v: Vec<f64>) -> f64 {
    let mut it = v.iter().rev().skip(1);
    let a = it.next().unwrap();
    let b = it.next().expect("two");
    a * b * 2.0
}

#[tracked]
fn ends_and_middle(v: Vec<f64>) -> f64 {
    let a = v.first().unwrap();
    let b = v.last().copied().unwrap_or(0.0);
    let c = v.get(2).cloned().unwrap();
    a * b + c.sin()
}

#[tracked]
fn largest(v: Vec<f64>) -> f64 {
    v.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
}

#[tracked]
fn smallest_after_the_first(v: Vec<f64>) -> f64 {
    v.iter().skip(1).copied().reduce(f64::min).unwrap()
}

#[tracked]
fn softmax_first(v: Vec<f64>) -> f64 {
    let m = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let mut z = 0.0;
    for x in &v {
        z += (x - m).exp();
    }
    (v[0] - m).exp() / z
}

#[tracked]
fn capped_largest(v: Vec<f64>) -> f64 {
    v.iter().copied().fold(2.0, f64::max) * 3.0
}

#[test]
fn elements_read_through_options_and_running_extremes() {
    let v = vec![0.7, 1.3, 2.1, 0.4, 1.9, 3.2, 0.8];
    macro_rules! check {
        ($($f:ident),*) => {$({
            let name = stringify!($f);
            let g = gradient($f, (v.clone(),)).unwrap_or_else(|e| panic!("{name}: {e}"));
            let got = vector(&g.wrt[0]);
            let want = differences($f, &v);
            assert!(close(&got, &want), "{name}: {got:?} for {want:?}");
            let general = with_general_sweep(|| gradient($f, (v.clone(),))).unwrap();
            assert_eq!(vector(&general.wrt[0]), got, "{name}: the general sweep");
        })*};
    }
    check!(
        first_two_by_hand,
        ends_and_middle,
        largest,
        smallest_after_the_first,
        softmax_first,
        capped_largest
    );
    // The cap wins: its own slope, none to the vector.
    let small = vec![0.5, 1.0, 1.5];
    let g = gradient(capped_largest, (small.clone(),)).unwrap();
    assert_eq!(vector(&g.wrt[0]), vec![0.0; 3]);
    // A tie for the extremum is a corner: refused, not the slope of one of them.
    for tied in [vec![1.0, 3.0, 3.0], vec![2.0, 1.0, 0.5]] {
        let e = gradient(largest, (tied.clone(),));
        let e2 = gradient(capped_largest, (tied.clone(),));
        assert!(e.is_err() || tied[0] == 2.0, "{tied:?}: {e:?}");
        assert!(e2.is_err(), "{tied:?}: {e2:?}");
    }
}

// One item matched by two patterns: each binding is read by the pattern just before it (a
// tester, 2026-11-27: the first pattern after the `next` was read for both, and `b` of the
// second `if let` got the slope of `b` of the first: [0, 0, 0, 0, 11] for [10, 0, 0, 0, 1]).

#[tracked]
fn one_item_two_patterns(v: Vec<f64>) -> f64 {
    let mut it = v.iter().zip(v.iter().rev());
    let item = it.next();
    let mut s = 0.0;
    if let Some((_, b)) = item {
        s += b * 1.0;
    }
    if let Some((b, _)) = item {
        s += b * 10.0;
    }
    s
}

#[tracked]
fn one_item_swapped_names(x: Vec<f64>) -> f64 {
    let mut it = x.iter().zip(x.iter().skip(1));
    let item = it.next();
    let mut s = 0.0;
    if let Some((b, a)) = item {
        s += 100.0 * a + b;
    }
    if let Some((a, b)) = item {
        s += 10.0 * a + 1000.0 * b;
    }
    s
}

#[tracked]
fn index_then_element(v: Vec<f64>) -> f64 {
    let mut it = v.iter().enumerate().rev();
    let item = it.next();
    let mut s = 0.0;
    if let Some((i, _)) = item {
        s += i as f64;
    }
    if let Some((_, t)) = item {
        s += 7.0 * t;
    }
    s
}

#[test]
fn an_item_matched_twice_binds_by_each_pattern() {
    let v = vec![0.7, 1.3, 2.1, 0.4, 1.9];
    for (name, f) in [
        (
            "one_item_two_patterns",
            one_item_two_patterns as fn(Vec<f64>) -> f64,
        ),
        ("one_item_swapped_names", one_item_swapped_names),
        ("index_then_element", index_then_element),
    ] {
        let want = differences(f, &v);
        let g = match name {
            "one_item_two_patterns" => gradient(one_item_two_patterns, (v.clone(),)),
            "one_item_swapped_names" => gradient(one_item_swapped_names, (v.clone(),)),
            _ => gradient(index_then_element, (v.clone(),)),
        };
        match g {
            Ok(g) => assert!(
                close(&vector(&g.wrt[0]), &want),
                "{name}: {:?} for {want:?}",
                g.wrt
            ),
            Err(e) => panic!("{name}: {e}"),
        }
    }
}
