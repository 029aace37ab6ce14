//! Dependency queries and hierarchy axes on node handles (issue 3, first slice): IRTracker's
//! documented query results, and the referenced/dependents invariant on every node of every
//! trace of a small set of tracked functions, also over random inputs.
#![allow(clippy::assign_op_pattern)]

mod common;
use common::{f, h};

use irtrack::{track, tracked, Arg, Axis, NodeKind, NodeRef, Trace};
use proptest::prelude::*;

#[tracked]
fn sq(x: f64) -> f64 {
    x * x
}

#[tracked]
fn calls(x: f64, y: f64) -> f64 {
    let a = sq(x);
    let b = sq(y + 1.0);
    a + b
}

#[tracked]
fn branches(x: f64) -> f64 {
    if x > 1.0 {
        x.ln()
    } else if x < -1.0 {
        -x
    } else {
        x * 2.0
    }
}

#[tracked]
fn matching(v: Option<i32>, k: i32) -> i32 {
    match v {
        Some(a) if a > k => a - k,
        Some(a) => a + k,
        None => k,
    }
}

#[tracked]
fn sum_slice(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in xs {
        s = s + x * 2.0;
    }
    s
}

#[tracked]
fn fact(n: u64) -> u64 {
    if n == 0 {
        1
    } else {
        n * fact(n - 1)
    }
}

#[tracked]
fn closure(x: f64, n: u32) -> f64 {
    let k = 3.0;
    let g = |y: f64| y * k + 1.0;
    let mut acc = x;
    let mut i = 0;
    loop {
        if i >= n {
            break;
        }
        acc = g(acc);
        i += 1;
    }
    acc
}

#[tracked]
fn early(xs: Vec<i32>, target: i32) -> Option<usize> {
    let mut i = 0;
    while i < xs.len() {
        if xs[i] == target {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Positions of a list of siblings.
// Values changed after they were recorded, and closures' captures: what a node reads that its
// references do not show. `backward` from each return missed the argument `x` (2026-11-28).

#[tracked]
fn element_written(x: f64) -> f64 {
    let mut v = vec![0.0; 2];
    v[0] = x;
    v[0] * 2.0
}

#[tracked]
fn through_a_borrow(x: f64) -> f64 {
    let mut a = 0.0;
    {
        let r = &mut a;
        *r = x;
    }
    a + 1.0
}

#[tracked]
fn captured(x: f64) -> f64 {
    let c = |t: f64| t * x;
    c(2.0)
}

#[tracked]
fn in_a_cell(x: f64) -> f64 {
    let c = std::cell::Cell::new(0.0);
    c.set(x);
    c.get() * 2.0
}

struct Holder {
    a: f64,
}

#[tracked]
fn field_written(x: f64) -> f64 {
    let mut s = Holder { a: 0.0 };
    s.a = x;
    s.a * 2.0
}

#[tracked]
fn written_twice(x: f64, y: f64) -> f64 {
    let mut v = [1.0, 2.0];
    v[1] += x;
    v[1] *= y;
    v[1] * 2.0
}

#[tracked]
fn fill(v: &mut [f64], x: f64) {
    v[1] = x;
}

#[tracked]
fn written_by_a_callee(x: f64) -> f64 {
    let mut v = vec![0.0; 3];
    fill(&mut v, x);
    v[1] + 1.0
}

#[tracked]
#[allow(unused_assignments)]
fn unwritten(x: f64, y: f64) -> f64 {
    let mut v = [y, 0.0];
    let t = v[0] * 2.0;
    v[1] = x;
    t
}

#[tracked]
fn closure_made_before_the_write(x: f64) -> f64 {
    let c = std::cell::Cell::new(0.0);
    let get = || c.get();
    c.set(x);
    get() * 2.0
}

#[tracked]
fn replaced_in_a_cell(x: f64) -> f64 {
    let c = std::cell::Cell::new(0.0);
    let _old = c.replace(x);
    c.get() * 2.0
}

#[tracked]
fn atomic(x: f64) -> f64 {
    let a = std::sync::atomic::AtomicU64::new(1);
    a.fetch_add(x as u64, std::sync::atomic::Ordering::Relaxed);
    a.load(std::sync::atomic::Ordering::Relaxed) as f64
}

fn effects_corpus() -> Vec<Trace> {
    vec![
        track(element_written, (1.5,)),
        track(through_a_borrow, (1.5,)),
        track(captured, (1.5,)),
        track(in_a_cell, (1.5,)),
        track(field_written, (1.5,)),
        track(written_twice, (1.5, 2.0)),
        track(written_by_a_callee, (1.5,)),
        track(unwritten, (1.5, 2.0)),
        track(closure_made_before_the_write, (1.5,)),
        track(replaced_in_a_cell, (1.5,)),
        track(atomic, (3.0,)),
    ]
}

#[test]
fn a_value_read_after_a_write_depends_on_what_was_written() {
    for trace in effects_corpus() {
        let root = trace.root();
        let ret = root.children().last().unwrap();
        let args: Vec<_> = root
            .children()
            .filter(|c| c.kind() == NodeKind::Argument)
            .collect();
        let back = ret.backward();
        let name = root.function_name().unwrap_or_default().to_string();
        if name == "unwritten" {
            // The read comes before the write: `t` depends on `y` only.
            assert_eq!(back.iter().filter(|n| args.contains(n)).count(), 1);
            assert!(
                !back.contains(&args[0]) && back.contains(&args[1]),
                "{trace}"
            );
            assert!(!args[0].forward().contains(&ret), "{trace}");
            continue;
        }
        for a in &args {
            assert!(back.contains(a), "{name}: {a:?} not in backward\n{trace}");
            assert!(
                a.forward().contains(&ret),
                "{name}: return not in forward\n{trace}"
            );
            assert!(ret.backward_with_control().contains(a), "{name}\n{trace}");
        }
        // Each effect read is an earlier sibling, and the reader is among what follows it.
        for n in trace.nodes() {
            for e in n.effects_read() {
                assert!(e.parent() == n.parent() && e.position() < n.position());
                assert!(e.forward().contains(&n));
            }
        }
    }
}

fn at(nodes: &[NodeRef<'_>]) -> Vec<usize> {
    nodes.iter().map(|n| n.position().unwrap()).collect()
}

#[test]
fn irtracker_results_on_f() {
    let trace = track(f, (1.0,));
    let root = trace.root();
    let n = |p| root.child(p).unwrap();
    assert_eq!(at(&n(4).backward()), [3, 2, 1]);
    assert_eq!(n(1).dependents(), vec![n(2), n(3)]);
    assert_eq!(n(2).kind(), NodeKind::PrimitiveCall);
    assert_eq!(n(3).function_name(), Some("+"));
    assert_eq!(at(&n(1).forward()), [2, 3, 4]);
    assert_eq!(n(3).referenced_numbered(), vec![(1, n(2)), (2, n(1))]);
    assert_eq!(n(3).referenced(), vec![n(2), n(1)]);
    assert!(n(1).referenced().is_empty());
    assert!(n(1).backward().is_empty());
    assert!(n(4).forward().is_empty());
    assert!(root.referenced().is_empty());
    assert_eq!(root.call_arguments(), vec![n(1)]);
    assert_eq!(n(1).parent_argument().map(|_| ()), None);
}

#[test]
fn irtracker_results_on_h() {
    let trace = track(h, (2.0, 2));
    let root = trace.root();
    let n = |p| root.child(p).unwrap();
    // @12: [Arg:§2:%3] @11#1, with @11: goto §2 (@9, @10).
    assert_eq!(n(12).block_argument_of(), Some((n(11), 1)));
    assert_eq!(n(12).referenced(), vec![n(9)]);
    assert_eq!(n(12).referenced_numbered(), vec![(1, n(9))]);
    assert_eq!(n(13).referenced(), vec![n(10)]);
    // The first header's arguments got constants: nothing is referenced.
    assert!(n(4).referenced().is_empty());
    assert!(n(5).referenced().is_empty());
    // The second iteration's powi, @16: ⟨powi⟩(@1, @13), uses that iteration's header arg.
    assert_eq!(n(16).function_name(), Some("powi"));
    assert_eq!(n(16).referenced(), vec![n(1), n(13)]);
    // The return, @24: return @20, references the last header's accumulator.
    assert_eq!(n(24).kind(), NodeKind::Return);
    assert_eq!(n(24).referenced(), vec![n(20)]);
    assert_eq!(n(20).referenced(), vec![n(17)]);
    // The jump @11 references what it passes; @9 feeds the jump and, through it, @12.
    assert_eq!(n(11).referenced(), vec![n(9), n(10)]);
    assert_eq!(n(9).dependents(), vec![n(11), n(12)]);
    // The conditional jump @23: goto §4 since @22 == false references its condition.
    assert_eq!(n(23).referenced(), vec![n(22)]);
    // Everything the return depends on.
    assert_eq!(
        at(&n(24).backward()),
        [20, 17, 12, 16, 9, 1, 13, 4, 8, 10, 5]
    );
    // x feeds every power, every sum after it, every jump carrying those, and the return.
    assert_eq!(at(&n(1).forward()), [8, 9, 11, 12, 16, 17, 19, 20, 24]);
}

#[test]
fn hierarchy_axes() {
    let trace = track(calls, (2.0, 3.0));
    let root = trace.root();
    let kids: Vec<_> = root.children().collect();
    assert_eq!(root.query(Axis::Parent), vec![]);
    assert_eq!(root.query(Axis::Ancestor), vec![]);
    assert_eq!(root.query(Axis::Preceding), vec![]);
    assert_eq!(root.query(Axis::Following), vec![]);
    assert_eq!(root.query(Axis::Child), kids);
    let sq_calls: Vec<_> = kids
        .iter()
        .copied()
        .filter(|c| c.kind() == NodeKind::NestedCall)
        .collect();
    assert_eq!(sq_calls.len(), 2);
    let second = sq_calls[1];
    let pos = second.position().unwrap();
    assert_eq!(second.query(Axis::Preceding), kids[..pos - 1].to_vec());
    assert_eq!(second.query(Axis::Following), kids[pos..].to_vec());
    assert_eq!(second.query(Axis::Parent), vec![root]);
    let inner = second.child(2).unwrap();
    assert_eq!(inner.function_name(), Some("*"));
    assert_eq!(inner.query(Axis::Ancestor), vec![second, root]);
    // Breadth first: all of the root's children, then the first call's, then the second's.
    let mut expected = kids.clone();
    expected.extend(sq_calls[0].children());
    expected.extend(sq_calls[1].children());
    assert_eq!(root.query(Axis::Descendant), expected);
    assert_eq!(inner.query(Axis::Descendant), vec![]);
    // ir() at location() gives the original statement.
    let loc = inner.location().unwrap();
    assert_eq!(inner.ir().unwrap()[loc].to_string(), "%2 = %1 * %1");
}

#[test]
fn call_arguments_and_parent_argument_cross_calls() {
    let trace = track(calls, (2.0, 3.0));
    let root = trace.root();
    let sq_calls: Vec<_> = root
        .children()
        .filter(|c| c.kind() == NodeKind::NestedCall)
        .collect();
    let x = root.child(1).unwrap();
    let y = root.child(2).unwrap();
    // sq(x): the callee's argument is the caller's @1.
    let arg = sq_calls[0].call_arguments();
    assert_eq!(arg.len(), 1);
    assert!(matches!(arg[0].parent_argument(), Some(Arg::Node(n)) if n == x));
    // sq(y + 1.0): the callee's argument is the caller's `+` node.
    let arg = sq_calls[1].call_arguments();
    let plus = match arg[0].parent_argument() {
        Some(Arg::Node(n)) => n,
        other => panic!("expected a node, got {other:?}"),
    };
    assert_eq!(plus.function_name(), Some("+"));
    assert_eq!(plus.referenced(), vec![y]);
    // Climbing: the callee's return depends on its argument, which came from the caller.
    let ret = sq_calls[1].children().last().unwrap();
    assert!(ret.backward().contains(&arg[0]));
    // Only function arguments, never block arguments; nothing for a non-call.
    let trace = track(h, (2.0, 2));
    let root = trace.root();
    assert_eq!(at(&root.call_arguments()), [1, 2]);
    assert!(root.child(3).unwrap().call_arguments().is_empty());
    assert_eq!(root.child(12).unwrap().parent_argument().map(|_| ()), None);
}

/// The invariant on one trace: for every node `c` and every `r` in `referenced(c)`, `c` is in
/// `dependents(r)`, and conversely; `backward`/`forward` stay among the node's siblings.
fn check_invariant(trace: &Trace) -> Result<(), String> {
    for c in trace.nodes() {
        let refs = c.referenced();
        for r in &refs {
            if !r.dependents().contains(&c) {
                return Err(format!("{c:?} references {r:?}, not among its dependents"));
            }
            if r.parent() != c.parent() || r.position() >= c.position() {
                return Err(format!("{c:?} references {r:?}, not an earlier sibling"));
            }
        }
        for d in c.dependents() {
            if !d.referenced().contains(&c) {
                return Err(format!("{d:?} is a dependent of {c:?} not referencing it"));
            }
        }
        let parent = c.parent();
        for b in c.backward().into_iter().chain(c.forward()) {
            if b.parent() != parent || b == c {
                return Err(format!("{b:?} reached from {c:?} outside its call"));
            }
        }
        if let Some(Arg::Node(p)) = c.parent_argument() {
            if Some(p.parent()) != c.parent().map(|call| call.parent()) {
                return Err(format!("{c:?}: parent argument {p:?} not in the caller"));
            }
        }
    }
    Ok(())
}

fn corpus() -> Vec<Trace> {
    vec![
        track(f, (1.0,)),
        track(h, (2.0, 2)),
        track(h, (2.0, 0)),
        track(calls, (2.0, 3.0)),
        track(branches, (3.0,)),
        track(branches, (-3.0,)),
        track(branches, (0.5,)),
        track(matching, (Some(5), 2)),
        track(matching, (Some(1), 2)),
        track(matching, (None, 2)),
        track(sum_slice, (&[1.0, 2.0, 3.0][..],)),
        track(fact, (4,)),
        track(closure, (1.0, 3)),
        track(early, (vec![4, 5, 6], 5)),
        track(early, (vec![4, 5, 6], 7)),
    ]
    .into_iter()
    .chain(effects_corpus())
    .collect()
}

#[test]
fn invariant_on_every_node_of_every_trace() {
    for trace in corpus() {
        if let Err(e) = check_invariant(&trace) {
            panic!("{e}\nin\n{trace}");
        }
    }
}

#[test]
fn forward_and_backward_agree() {
    // `b` is in backward(a) exactly when `a` is in forward(b).
    for trace in corpus() {
        for a in trace.nodes() {
            for b in a.backward() {
                assert!(b.forward().contains(&a), "{a:?} / {b:?}");
            }
            for b in a.forward() {
                assert!(b.backward().contains(&a), "{a:?} / {b:?}");
            }
        }
    }
}

fn checked(trace: Trace) -> Result<(), TestCaseError> {
    check_invariant(&trace).map_err(|e| TestCaseError::fail(format!("{e}\nin\n{trace}")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn invariant_on_h(x in -10.0f64..10.0, n in 0i32..6) {
        checked(track(h, (x, n)))?;
    }

    #[test]
    fn invariant_on_slices(xs in proptest::collection::vec(-1e3f64..1e3, 0..8)) {
        checked(track(sum_slice, (&xs[..],)))?;
    }

    #[test]
    fn invariant_on_branches_and_calls(x in -5.0f64..5.0, y in -5.0f64..5.0) {
        checked(track(branches, (x,)))?;
        checked(track(calls, (x, y)))?;
    }

    #[test]
    fn invariant_on_match_recursion_closure(v in proptest::option::of(-5i32..5), k in -5i32..5, n in 0u64..6) {
        checked(track(matching, (v, k)))?;
        checked(track(fact, (n,)))?;
        checked(track(closure, (k as f64, n as u32)))?;
    }

    #[test]
    fn invariant_on_early_return(xs in proptest::collection::vec(0i32..4, 0..6), t in 0i32..4) {
        checked(track(early, (xs, t)))?;
    }
}

struct Scale {
    k: f64,
}

#[tracked]
impl Scale {
    fn apply(&self, x: f64) -> f64 {
        x * self.k
    }
}

#[tracked]
fn method_and_closure(x: f64) -> f64 {
    let s = Scale { k: 2.0 };
    let g = |y: f64| y + 1.0;
    s.apply(x) + g(x)
}

#[test]
fn parent_argument_of_a_method_receiver_and_a_closure_argument() {
    let trace = track(method_and_closure, (1.5,));
    let root = trace.root();
    let n = |p| root.child(p).unwrap();
    let (x, s, apply, g) = (n(1), n(2), n(3), n(4));
    assert_eq!(apply.function_name(), Some("apply"));
    assert_eq!(g.function_name(), Some("g"));
    // The receiver is the method's first argument, as in the call's arguments.
    let params = apply.call_arguments();
    assert_eq!(params.len(), 2);
    assert!(matches!(params[0].parent_argument(), Some(Arg::Node(p)) if p == s));
    assert!(matches!(params[1].parent_argument(), Some(Arg::Node(p)) if p == x));
    // A closure's argument: the closure itself is not an argument of its call.
    let params = g.call_arguments();
    assert_eq!(params.len(), 1);
    assert!(matches!(params[0].parent_argument(), Some(Arg::Node(p)) if p == x));
    assert_eq!(x.dependents(), vec![apply, g]);
    check_invariant(&trace).unwrap();
}
