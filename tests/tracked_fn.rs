//! `tracked_fn!`: closures tracked outside any tracked function. Listings are insta snapshots,
//! reviewed by hand (see DEVELOPMENT.md).

mod common;
use common::h;

use irtrack::{track, track_output, tracked, tracked_fn, NodeKind};

/// The children of a node, one listing line each, without the node's own line.
fn children_listing(node: irtrack::NodeRef<'_>) -> Vec<String> {
    node.levels(2)
        .to_string()
        .lines()
        .skip(1)
        .map(str::to_owned)
        .collect()
}

#[test]
fn product_of_untyped_parameters() {
    let (out, trace) = track_output(tracked_fn!(|a, b| a * b), (2.0, 3.0));
    assert_eq!(out, 6.0);
    let root = trace.root();
    assert_eq!(root.kind(), NodeKind::NestedCall);
    assert_eq!(root.function_name(), Some("{{closure}}"));
    insta::assert_snapshot!(root.levels(2).to_string());
    insta::assert_snapshot!(root
        .callee_ir()
        .expect("the closure is tracked")
        .to_string());
}

/// The reason for the `f64` default: `gradient`'s `F: Callable<A>` gives Rust no parameter
/// types to infer. (Through the runtime: the facade's re-export of `gradient` is not assumed
/// here.)
#[test]
fn gradient_of_an_untyped_closure() {
    let g = irtrack_runtime::gradient(tracked_fn!(|a, b| a * b), (2.0, 3.0)).unwrap();
    assert_eq!(g.value, 6.0);
    assert_eq!(g.scalars(), [Some(3.0), Some(2.0)]);
}

#[test]
fn sin_times_x() {
    let trace = track(tracked_fn!(|x: f64| x.sin() * x), (1.0,));
    let root = trace.root();
    assert_eq!(root.kind(), NodeKind::NestedCall);
    assert_eq!(root.value::<f64>(), Some(&(1.0f64.sin() * 1.0)));
    let names: Vec<_> = root.children().map(|c| c.function_name()).collect();
    assert_eq!(names, [None, Some("sin"), Some("*"), None]);
}

/// The body of `h` as a typed closure records the same tape as `h` itself.
#[test]
fn typed_closure_with_a_loop_records_what_the_function_records() {
    let powers = tracked_fn!(|x: f64, n: i32| {
        let mut r = 0.0;
        let mut i = 0;
        while i < n {
            r += x.powi(i);
            i += 1;
        }
        r
    });
    let (out, trace) = track_output(powers, (2.0, 2));
    assert_eq!(out, 3.0);
    let root = trace.root();
    assert_eq!(root.kind(), NodeKind::NestedCall);
    let reference = track(h, (2.0, 2));
    assert_eq!(
        children_listing(root),
        children_listing(reference.root()),
        "closure:\n{root}\nfunction:\n{}",
        reference.root()
    );
    assert_eq!(
        root.callee_ir().unwrap().to_string(),
        reference.root().callee_ir().unwrap().to_string()
    );
}

#[test]
fn typed_closure_over_a_vector_with_a_for_loop() {
    let weighted = tracked_fn!(|v: Vec<f64>, k: usize| {
        let mut total = 0.0;
        for (i, x) in v.iter().enumerate() {
            if i < k {
                total += (i as f64 + 1.0) * x;
            }
        }
        total
    });
    let (out, trace) = track_output(weighted, (vec![0.5, 0.25, 4.0], 2));
    assert_eq!(out, 1.0);
    assert_eq!(weighted(vec![0.5, 0.25, 4.0], 2), out);
    let root = trace.root();
    assert_eq!(root.kind(), NodeKind::NestedCall);
    assert_eq!(
        root.child(1).and_then(|a| a.value::<Vec<f64>>()),
        Some(&vec![0.5, 0.25, 4.0])
    );
    assert_eq!(root.child(2).and_then(|a| a.value::<usize>()), Some(&2));
    // Three iterations, two of which add.
    let adds = root
        .children()
        .filter(|c| c.function_name() == Some("+="))
        .count();
    assert_eq!(adds, 2);
}

/// Captured variables are constants holding their values, as in a closure written in a
/// tracked function.
#[test]
fn captured_variables_are_constants() {
    let scale = 2.0;
    let offsets: Vec<f64> = vec![0.5, 1.5];
    let affine = tracked_fn!(|x| x * scale + offsets.iter().sum::<f64>());
    let (out, trace) = track_output(affine, (3.0,));
    assert_eq!(out, 8.0);
    let root = trace.root();
    insta::assert_snapshot!(root.levels(2).to_string());
    let constants: Vec<_> = root
        .children()
        .filter(|c| c.kind() == NodeKind::Constant)
        .collect();
    assert_eq!(constants.len(), 2);
    assert_eq!(constants[0].value::<f64>(), Some(&2.0));
    // A capture used as a place (here a method receiver) is read like any constant place:
    // its `Debug` text, as in a closure written in a tracked function.
    assert_eq!(constants[1].value_text(), "[0.5, 1.5]");
    // The closure still owns nothing: both variables remain usable.
    assert_eq!(scale + offsets[1], 3.5);
}

#[tracked]
fn with_closure(x: f64) -> f64 {
    let scale = 2.0;
    let affine = |y: f64| y * scale + 1.0;
    affine(x)
}

/// The same closure records the same children whether it is written in a tracked function or
/// given to `tracked_fn!`.
#[test]
fn same_tape_as_a_closure_in_a_tracked_function() {
    let scale = 2.0;
    let affine = tracked_fn!(|y: f64| y * scale + 1.0);
    let standalone = track(affine, (3.0,));
    let inside = track(with_closure, (3.0,));
    // @2 makes the closure (`$(closure)`), @3 calls it.
    let call = inside.root().child(3).expect("the call of `affine`");
    assert_eq!(call.kind(), NodeKind::NestedCall);
    assert_eq!(children_listing(standalone.root()), children_listing(call));
    assert_eq!(
        standalone.root().callee_ir().unwrap().to_string(),
        call.callee_ir().unwrap().to_string()
    );
}

#[test]
fn move_closure_and_tuple_patterns() {
    let offset = 1.0;
    let untyped = tracked_fn!(move |(a, b)| a - b + offset);
    let typed = tracked_fn!(|(a, n): (f64, i32)| a.powi(n));
    let (out, trace) = track_output(untyped, ((3.0, 1.0),));
    assert_eq!(out, 3.0);
    assert_eq!(trace.root().kind(), NodeKind::NestedCall);
    let (out, trace) = track_output(typed, ((2.0, 3),));
    assert_eq!(out, 8.0);
    assert_eq!(trace.root().kind(), NodeKind::NestedCall);
}

#[tracked]
fn apply_twice(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    f(f(x))
}

/// A tracked function calling the closure records nested calls, as for a tracked callee.
#[test]
fn tracked_callers_record_nested_calls() {
    let double = tracked_fn!(|y| y * 2.0);
    let trace = track(apply_twice, (double, 1.5));
    let calls: Vec<_> = trace
        .root()
        .children()
        .filter(|c| c.function_name() == Some("f"))
        .collect();
    assert_eq!(calls.len(), 2);
    for call in &calls {
        assert_eq!(call.kind(), NodeKind::NestedCall);
        assert_eq!(call.children().count(), 3, "{call}");
    }
    assert_eq!(calls[1].value::<f64>(), Some(&6.0));
}

/// Untracked, the closure returns what it returns tracked.
#[test]
fn untracked_result_equals_tracked_result() {
    let k = 3;
    let poly = tracked_fn!(|x| {
        let mut acc = 0.0;
        for i in 0..k {
            acc = acc * x + f64::from(i);
        }
        acc
    });
    for x in [-1.5, 0.0, 0.25, 2.0] {
        let (tracked, trace) = track_output(poly, (x,));
        assert_eq!(poly(x), tracked);
        assert_eq!(trace.root().value::<f64>(), Some(&tracked));
    }
    let clamp = tracked_fn!(|x, lo, hi| if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    });
    for x in [-4.0, 0.5, 9.0] {
        assert_eq!(clamp(x, 0.0, 1.0), track_output(clamp, (x, 0.0, 1.0)).0);
    }
}

/// Closures are told apart by their types, not their type names: an untracked closure called
/// by a tracked function is a primitive, even when it calls a tracked closure written in the
/// same function (which once claimed the call, wiring `inner`'s body to `outer`'s call).
#[test]
fn an_untracked_closure_is_not_claimed_by_the_tracked_closure_it_calls() {
    let inner = tracked_fn!(|y| y * 2.0);
    let outer = |y: f64| inner(y) + 1.0;
    let trace = track(apply_twice, (outer, 1.0));
    trace.verify().unwrap();
    let first = trace.root().child(3).expect("the first call of `f`");
    assert_eq!(first.kind(), NodeKind::PrimitiveCall, "{trace}");
    assert_eq!(first.value::<f64>(), Some(&3.0));
    // `inner` itself, called by `track`, is recorded.
    let t = track(inner, (1.5,));
    assert_eq!(t.root().kind(), NodeKind::NestedCall);
    assert_eq!(t.root().value::<f64>(), Some(&3.0));
}
