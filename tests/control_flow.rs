//! `switch` and `while_loop` (issue 12, item 3): plain Rust, tracked (one node whose children
//! are the branch taken or the iterations run), and replayed through a `Program`, where they
//! decide again at every call; autoform's examples with numbers for strings.

use irtrack::program::{checkpoint, collect, Input, Program, ReplayError};
use irtrack::{
    register_operation, switch, track, tracked, while_loop, Branches, MaxItersExceeded, Value,
};

use Input::{Dynamic, Static};

// autoform: `branches = {"short": short, "long": long}; routed(kind, text) = switch(kind,
// branches, text)`; numbers for strings, which format! makes opaque.
#[tracked]
fn short(x: f64) -> f64 {
    x + 1.0
}

#[tracked]
fn long(x: f64) -> f64 {
    x * 100.0
}

fn branches() -> Branches<i32, (f64,), f64> {
    Branches::new().with(0, short).with(1, long)
}

#[tracked]
fn routed(kind: i32, x: f64) -> f64 {
    let b = branches();
    switch(kind, &b, (x,))
}

#[test]
fn switch_untracked_is_a_lookup_and_a_call() {
    assert_eq!(routed(0, 2.0), 3.0);
    assert_eq!(routed(1, 2.0), 200.0);
    let b = branches();
    assert!(b.contains(&1) && !b.contains(&2));
    assert_eq!(b.len(), 2);
    assert_eq!(b.keys().copied().collect::<Vec<_>>(), [0, 1]);
    assert_eq!(format!("{b:?}"), "{0: short, 1: long}");
    // A key given again replaces its branch.
    let b = branches().with(0, long);
    assert_eq!(switch(0, &b, (2.0,)), 200.0);
    let missing = std::panic::catch_unwind(|| routed(2, 1.0)).unwrap_err();
    let message = missing.downcast_ref::<String>().unwrap();
    assert!(message.contains("no branch has the key 2"), "{message}");
}

#[test]
fn switch_tracked_is_a_node_whose_child_is_the_branch_taken() {
    let trace = track(routed, (1, 2.0));
    assert_eq!(trace.root().value::<f64>(), Some(&200.0));
    insta::assert_snapshot!(trace.root().levels(4).to_string());
    let call = trace.root().child(5).unwrap();
    assert_eq!(call.function_name(), Some("switch"));
    let branch = call
        .children()
        .find(|n| n.function_name() == Some("branch"));
    assert_eq!(branch.unwrap().callee_ir().unwrap().name, "long");
    insta::assert_snapshot!(call.callee_ir().unwrap().to_string());
}

#[test]
fn switch_replays_the_key_it_is_given() {
    let trace = track(routed, (0, 2.0));
    let p = Program::from_trace(&trace, &[Dynamic, Dynamic]).unwrap();
    insta::assert_snapshot!(p.to_string());
    // `long` was not traced: the program traces it the first time it needs it.
    for (kind, x) in [(0, 5.0), (1, 5.0), (1, -0.25), (0, 7.5), (1, 3.0)] {
        assert_eq!(p.call((kind, x)).unwrap().as_f64(), Some(routed(kind, x)));
    }
    let e = p.call((2, 1.0)).unwrap_err();
    assert!(
        matches!(&e, ReplayError::NoBranch { key, .. } if key == "2"),
        "{e}"
    );
    assert!(
        e.to_string().starts_with("routed [§1:%5]: no branch"),
        "{e}"
    );
    // The key static: the recorded key only.
    let p = Program::from_trace(&trace, &[Static, Dynamic]).unwrap();
    assert_eq!(p.call((0, 4.0)).unwrap().as_f64(), Some(5.0));
    assert!(matches!(
        p.call((1, 4.0)),
        Err(ReplayError::Static { index: 0, .. })
    ));
}

#[tracked]
fn scaled(x: f64, k: i64) -> f64 {
    x * k as f64
}

#[tracked]
fn shifted(x: f64, k: i64) -> f64 {
    if x > 0.0 {
        x + k as f64
    } else {
        x - k as f64
    }
}

#[tracked]
fn two_arguments(key: &'static str, x: f64, k: i64) -> f64 {
    let b = Branches::new()
        .with("scaled", scaled)
        .with("shifted", shifted);
    let y = switch(key, &b, (x * 2.0, k));
    y + 1.0
}

#[test]
fn switch_with_string_keys_and_two_arguments() {
    let trace = track(two_arguments, ("scaled", 1.5, 3));
    let p = Program::from_trace(&trace, &[Dynamic; 3]).unwrap();
    let cases: [(&'static str, f64, i64); 5] = [
        ("scaled", 2.0, 4),
        ("shifted", 2.0, 4),
        // Another path inside `shifted`: traced again, on these values.
        ("shifted", -2.0, 4),
        ("shifted", 3.0, -1),
        ("scaled", -1.0, 0),
    ];
    for (key, x, k) in cases {
        assert_eq!(
            p.call((key, x, k)).unwrap().as_f64(),
            Some(two_arguments(key, x, k)),
            "{key} {x} {k}"
        );
    }
    let e = p.call(("other", 1.0, 1i64)).unwrap_err();
    assert!(matches!(e, ReplayError::NoBranch { .. }), "{e}");
}

// autoform: `while_loop(cond, body, init, max_iters)`.
#[tracked]
fn small(x: &f64) -> bool {
    *x < 100.0
}

#[tracked]
fn double(x: f64) -> f64 {
    x * 2.0
}

#[tracked]
fn grow(x: f64, max_iters: usize) -> Result<f64, MaxItersExceeded> {
    while_loop(small, double, x, max_iters)
}

#[test]
fn while_loop_untracked_is_a_bounded_loop() {
    assert_eq!(grow(30.0, 10), Ok(120.0));
    assert_eq!(grow(100.0, 10), Ok(100.0));
    assert_eq!(grow(30.0, 2), Ok(120.0));
    assert_eq!(grow(30.0, 1), Err(MaxItersExceeded { max_iters: 1 }));
    assert_eq!(grow(300.0, 0), Ok(300.0));
    assert_eq!(grow(3.0, 0), Err(MaxItersExceeded { max_iters: 0 }));
    let e = grow(0.5, 3).unwrap_err();
    assert_eq!(
        e.to_string(),
        "while_loop ran its body max_iters = 3 times and its condition still holds"
    );
}

#[test]
fn while_loop_tracked_writes_the_loop_out() {
    let trace = track(grow, (30.0, 10));
    assert_eq!(
        trace.root().value::<Result<f64, MaxItersExceeded>>(),
        Some(&Ok(120.0))
    );
    insta::assert_snapshot!(trace.root().levels(3).to_string());
    let call = trace.root().child(5).unwrap();
    insta::assert_snapshot!(call.callee_ir().unwrap().to_string());
    let bodies = call
        .children()
        .filter(|n| n.function_name() == Some("body"));
    let names: Vec<&str> = bodies
        .map(|n| n.callee_ir().unwrap().name.as_str())
        .collect();
    assert_eq!(names, ["double", "double"]);
    // Past `max_iters`, the loop returns its error, also tracked.
    let trace = track(grow, (30.0, 1));
    assert_eq!(
        trace.root().value::<Result<f64, MaxItersExceeded>>(),
        Some(&Err(MaxItersExceeded { max_iters: 1 }))
    );
}

#[test]
fn while_loop_replays_other_iteration_counts() {
    let trace = track(grow, (30.0, 10));
    let p = Program::from_trace(&trace, &[Dynamic, Dynamic]).unwrap();
    insta::assert_snapshot!(p.to_string());
    for (x, n) in [
        (30.0, 10),
        (1.0, 10),
        (99.0, 10),
        (150.0, 10),
        (0.75, 8),
        (60.0, 1),
    ] {
        let out = p.call((x, n)).unwrap();
        let want = grow(x, n);
        assert_eq!(
            out.downcast_ref::<Result<f64, MaxItersExceeded>>(),
            Some(&want),
            "{x} {n}"
        );
    }
    let e = p.call((0.01, 10usize)).unwrap_err();
    assert!(
        matches!(e, ReplayError::MaxIters { max_iters: 10, .. }),
        "{e}"
    );
    assert!(grow(0.01, 10).is_err());
    assert!(
        e.to_string().starts_with("grow [§1:%5]: `while_loop` ran"),
        "{e}"
    );
}

#[test]
fn a_body_the_trace_never_ran_is_traced_when_needed() {
    // Recorded with no iteration: the program has only the condition.
    let trace = track(grow, (500.0, 10));
    let p = Program::from_trace(&trace, &[Dynamic, Static]).unwrap();
    assert_eq!(
        p.call((3.0, 10usize)).unwrap().downcast_ref(),
        Some(&grow(3.0, 10))
    );
}

// A body with a branch of its own: each path is traced once, then replayed.
#[tracked]
fn not_one(n: &i64) -> bool {
    *n != 1
}

#[tracked]
fn collatz_step(n: i64) -> i64 {
    if n % 2 == 0 {
        n / 2
    } else {
        3 * n + 1
    }
}

#[tracked]
fn collatz(n: i64) -> Result<i64, MaxItersExceeded> {
    while_loop(not_one, collatz_step, n, 200)
}

#[test]
fn a_body_whose_path_changes_between_iterations_replays() {
    let p = Program::from_trace(&track(collatz, (6,)), &[Dynamic]).unwrap();
    for n in [6, 7, 27, 1, 97] {
        let out = p.call((n,)).unwrap();
        assert_eq!(out.downcast_ref(), Some(&collatz(n)), "{n}");
    }
}

// `?` on a `while_loop` replays (the program's loop gives only `Ok`); `Ok(…)` is a call of the
// constructor, which replays once registered.
#[tracked]
fn grow_then_halve(x: f64) -> Result<f64, MaxItersExceeded> {
    let y = while_loop(small, double, x, 20)?;
    Ok(y / 2.0)
}

#[test]
fn question_mark_after_a_while_loop_replays() {
    register_operation(Ok::<f64, MaxItersExceeded>);
    let p = Program::from_trace(&track(grow_then_halve, (30.0,)), &[Dynamic]).unwrap();
    for x in [1.0, 30.0, 250.0] {
        let out = p.call((x,)).unwrap();
        assert_eq!(out.downcast_ref(), Some(&grow_then_halve(x)), "{x}");
    }
    let e = p.call((1e-9,)).unwrap_err();
    assert!(matches!(e, ReplayError::MaxIters { .. }), "{e}");
}

// Branches a program cannot replay: the error names them.
fn opaque(x: f64) -> f64 {
    x.sqrt() + 1.0
}

#[tracked]
fn calls_opaque(x: f64) -> f64 {
    opaque(x) * 2.0
}

fn untracked_branch(x: f64) -> f64 {
    x - 1.0
}

#[tracked]
fn risky(kind: i32, x: f64) -> f64 {
    let b = Branches::new()
        .with(0, short)
        .with(1, calls_opaque)
        .with(2, untracked_branch);
    switch(kind, &b, (x,))
}

#[test]
fn a_branch_that_cannot_be_replayed_is_an_error_naming_it() {
    // The branch the trace took: building fails.
    let e = Program::from_trace(&track(risky, (1, 4.0)), &[Dynamic, Dynamic]).unwrap_err();
    assert!(
        matches!(&e, ReplayError::Branch { function, error, .. }
            if function == "calls_opaque" && matches!(**error, ReplayError::NotReexecutable(_))),
        "{e}"
    );
    assert!(
        e.to_string().contains("`calls_opaque` cannot be replayed"),
        "{e}"
    );
    assert!(e.to_string().contains("opaque"), "{e}");
    // A branch traced on first use: that call fails, the others still replay.
    let p = Program::from_trace(&track(risky, (0, 4.0)), &[Dynamic, Dynamic]).unwrap();
    let e = p.call((1, 9.0)).unwrap_err();
    assert!(
        matches!(&e, ReplayError::Branch { function, .. } if function == "calls_opaque"),
        "{e}"
    );
    let e = p.call((2, 9.0)).unwrap_err();
    assert!(
        matches!(&e, ReplayError::Branch { function, .. } if function == "untracked_branch"),
        "{e}"
    );
    assert!(e.to_string().contains("primitive"), "{e}");
    assert_eq!(p.call((0, 9.0)).unwrap().as_f64(), Some(10.0));
}

// Arguments a program cannot turn back into Rust values: a value kept as text.
#[derive(Clone, Debug)]
struct Scale(f64);

#[tracked]
fn by_scale(x: f64, s: Scale) -> f64 {
    x * s.0
}

#[tracked]
fn by_offset(x: f64, s: Scale) -> f64 {
    x + s.0
}

#[tracked]
fn with_scale(kind: i32, x: f64) -> f64 {
    let b = Branches::new().with(0, by_scale).with(1, by_offset);
    switch(kind, &b, (x, Scale(3.0)))
}

#[test]
fn arguments_known_only_by_their_text_are_an_error_naming_the_branch() {
    assert_eq!(with_scale(1, 2.0), 5.0);
    let p = Program::from_trace(&track(with_scale, (0, 2.0)), &[Dynamic, Dynamic]).unwrap();
    assert_eq!(p.call((0, 4.0)).unwrap().as_f64(), Some(12.0));
    let e = p.call((1, 4.0)).unwrap_err();
    assert!(matches!(e, ReplayError::Unsupported { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("`by_offset` cannot be traced") && text.contains("argument 2"),
        "{text}"
    );
}

// A checkpoint inside a branch runs at every call of the program, once.
#[tracked]
fn noted(x: f64) -> f64 {
    checkpoint(x * 3.0, "tripled", "debug")
}

#[tracked]
fn routed_noted(kind: i32, x: f64) -> f64 {
    let b = Branches::new().with(0, short).with(1, noted);
    switch(kind, &b, (x,))
}

#[test]
fn checkpoints_in_branches_run_once_per_call() {
    let p = Program::from_trace(&track(routed_noted, (0, 1.0)), &[Dynamic, Dynamic]).unwrap();
    for x in [2.0, 5.0] {
        let (out, seen) = collect("debug", || p.call((1, x)).unwrap());
        assert_eq!(out.as_f64(), Some(x * 3.0));
        let seen: Vec<f64> = seen["tripled"]
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(seen, [x * 3.0]);
    }
}

#[test]
fn the_arguments_of_a_program_call_are_values_too() {
    let p = Program::from_trace(&track(routed, (1, 2.0)), &[Dynamic, Dynamic]).unwrap();
    let out = p
        .call(vec![Value::snapshot(0i32), Value::snapshot(8.0f64)])
        .unwrap();
    assert_eq!(out.as_f64(), Some(9.0));
    // A key of another type than the branches' keys.
    let p = Program::from_trace(&track(two_arguments, ("scaled", 1.0, 1)), &[Dynamic; 3]).unwrap();
    let e = p.call((7i32, 1.0, 1i64)).unwrap_err();
    assert!(matches!(e, ReplayError::Type { index: 0, .. }), "{e}");
}

#[test]
fn what_a_trace_of_a_switch_or_loop_cannot_do_is_a_typed_error() {
    // A trace read back from JSON keeps the listing, not the functions to call.
    let back = irtrack::Trace::from_json(&track(routed, (1, 2.0)).to_json()).unwrap();
    let e = Program::from_trace(&back, &[Dynamic, Dynamic]).unwrap_err();
    assert!(
        e.to_string().contains("a `switch` read back from a file"),
        "{e}"
    );
    let back = irtrack::Trace::from_json(&track(grow, (30.0, 10)).to_json()).unwrap();
    let e = Program::from_trace(&back, &[Dynamic, Dynamic]).unwrap_err();
    assert!(e.to_string().contains("a `while_loop` read back"), "{e}");
    // A gradient passes through a switch's arguments (a tuple's parts, `grad/parts.rs`):
    // `long` is `100 x`.
    let g = irtrack::gradient(routed, (1, 2.0)).unwrap();
    assert_eq!(g.scalars(), [None, Some(100.0)]);
}
