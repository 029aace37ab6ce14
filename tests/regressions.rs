//! One test per bug found, named `repro_<n>` in the order they were found.

use irtrack::{track, track_output, tracked, NodeKind};

mod other {
    // An untracked function of the same name that calls the tracked one.
    pub fn sq(x: f64) -> f64 {
        super::sq(x) + 1.0
    }
}

#[tracked]
fn sq(x: f64) -> f64 {
    x * x
}

#[tracked]
fn calls_other_then_sq(x: f64) -> f64 {
    other::sq(x) + sq(x)
}

/// Bug 1: a tracked callee that declined a call built its frame handle anyway, and dropping
/// it closed the caller's frame: the caller's next record panicked.
#[test]
fn repro_1_declined_claim_keeps_the_callers_frame() {
    let (out, trace) = track_output(calls_other_then_sq, (3.0,));
    assert_eq!(out, 19.0);
    let root = trace.root();
    let other = root.child(2).expect("@2 is the call of other::sq");
    assert_eq!(other.function_name(), Some("other::sq"));
    assert_eq!(other.kind(), NodeKind::PrimitiveCall);
    assert_eq!(other.children().len(), 0);
    let nested = root.child(3).expect("@3 is the call of sq");
    assert_eq!(nested.kind(), NodeKind::NestedCall);
    assert_eq!(nested.value::<f64>(), Some(&9.0));
}

#[tracked]
fn parse_then_add(a: &str) -> Result<i32, std::num::ParseIntError> {
    let x: i32 = a.parse()?;
    Ok(x + 1)
}

/// Bug 2: `a.parse()?` has an open type when recorded, and capture committed to `Snapshot`,
/// which `ParseIntError` lacks: a valid function did not compile.
#[test]
fn repro_2_values_typed_after_recording_compile_and_record() {
    let trace = track(parse_then_add, ("41",));
    assert_eq!(trace.root().value_text(), "Ok(42)");
    let parse = trace.root().child(2).expect("@2 is parse");
    assert_eq!(parse.value_text(), "Ok(41)");
    let trace = track(parse_then_add, ("x",));
    assert!(trace.root().value_text().starts_with("Err(ParseIntError"));
}

#[tracked]
fn consume_then_break(n: usize) -> usize {
    let mut acc = Vec::new();
    let mut total = 0;
    loop {
        acc = grow(acc);
        if acc.len() >= n {
            total += finish(acc);
            break;
        }
    }
    total
}

fn grow(mut v: Vec<usize>) -> Vec<usize> {
    v.push(v.len());
    v
}

fn finish(v: Vec<usize>) -> usize {
    v.into_iter().sum()
}

/// Bug 3: block arguments were recorded by borrowing the variable after the jump, so a
/// variable moved just before `break` made a valid function fail to compile.
#[test]
fn repro_3_variable_moved_before_break() {
    let (out, trace) = track_output(consume_then_break, (3,));
    assert_eq!(out, consume_then_break(3));
    assert_eq!(trace.root().value::<usize>(), Some(&3));
}

#[tracked]
fn scaled(x: f64) -> f64 {
    let a = 2.0;
    let f = |y: f64| a * y;
    f(x)
}

/// Bug 4: in a closure, a captured variable as the left operand of an operator was recorded as
/// a bare block at the start of a statement, which ended it: `* y` parsed as a dereference.
/// (Also a ui pass case, `tests/ui/pass/closure_captured_left_operand.rs`.)
#[test]
fn repro_4_captured_left_operand() {
    let trace = track(scaled, (3.0,));
    assert_eq!(trace.root().value::<f64>(), Some(&6.0));
    let call = trace.root().child(2).expect("@2 calls the closure");
    assert_eq!(call.kind(), NodeKind::NestedCall);
    let captured = call.child(2).expect("@2 in the closure records the capture");
    assert_eq!(captured.kind(), NodeKind::Constant);
    assert_eq!(captured.value::<f64>(), Some(&2.0));
}

#[tracked]
fn pick(flag: bool) -> i32 {
    if flag {
        const K: i32 = 1;
        K
    } else {
        const K: i32 = 2;
        K
    }
}

/// Bug 5: items of every block were hoisted to the top of the function, so two inner blocks
/// defining the same name collided. (Also `tests/ui/pass/items_in_sibling_blocks.rs`.)
#[test]
fn repro_5_items_keep_their_block_scope() {
    assert_eq!(track(pick, (true,)).root().value::<i32>(), Some(&1));
    assert_eq!(track(pick, (false,)).root().value::<i32>(), Some(&2));
}
