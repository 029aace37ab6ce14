//! Contexts, written against the public trait only, as a user would.

mod common;
use common::{geom, h};

use irtrack::tracked;
use irtrack::{
    track, track_with, try_track, CallSite, Context, DepthLimit, Draft, Everything, Except,
    NodeKind, NodeRef, Only, Timing,
};
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::cell::Cell;
use std::rc::Rc;

#[tracked]
fn sq(x: f64) -> f64 {
    x * x
}

#[tracked]
fn norm2(x: f64, y: f64) -> f64 {
    (sq(x) + sq(y)).sqrt()
}

#[test]
fn depth_limit_two_on_geom_recursing() {
    // Seed 0 draws 0.73 first: geom recurses, and the recursive call is a primitive.
    let mut rng = StdRng::seed_from_u64(0);
    let trace = track_with(DepthLimit::new(2), geom, (1, 0.5, &mut rng));
    insta::assert_snapshot!(trace.root().to_string());
    let call = trace
        .root()
        .children()
        .find(|c| c.function_name() == Some("geom"))
        .expect("the recursive call");
    assert_eq!(call.kind(), NodeKind::PrimitiveCall);
    assert_eq!(call.value::<i32>(), Some(&3));
}

#[test]
fn depth_limit_two_on_geom_stopping() {
    // Seed 3 draws 0.095 first: geom stops at once, a shorter trace.
    let mut rng = StdRng::seed_from_u64(3);
    let trace = track_with(DepthLimit::new(2), geom, (1, 0.5, &mut rng));
    insta::assert_snapshot!(trace.root().to_string());
    assert_eq!(trace.root().children().len(), 7);
}

#[test]
fn depth_limit_one_makes_the_root_primitive() {
    let trace = track_with(DepthLimit::new(1), norm2, (3.0, 4.0));
    assert_eq!(trace.root().kind(), NodeKind::PrimitiveCall);
    assert_eq!(trace.root().children().len(), 0);
    let trace = track_with(DepthLimit::new(3), norm2, (3.0, 4.0));
    let inner = trace.root().child(3).expect("@3 is sq(x)");
    assert_eq!(inner.kind(), NodeKind::NestedCall);
}

#[test]
fn only_and_except_filter_by_name() {
    let only = track_with(Only::new(["norm2"]), norm2, (3.0, 4.0));
    assert_eq!(only.root().kind(), NodeKind::NestedCall);
    assert!(only
        .root()
        .children()
        .filter(|c| c.function_name() == Some("sq"))
        .all(|c| c.kind() == NodeKind::PrimitiveCall));
    let except = track_with(Except::new(["sq"]), norm2, (3.0, 4.0));
    assert_eq!(except.root().to_string(), only.root().to_string());
    let none = track_with(Only::new(["sq"]), norm2, (3.0, 4.0));
    assert_eq!(
        none.root().kind(),
        NodeKind::PrimitiveCall,
        "the root is filtered too"
    );
}

/// A context that overrides `can_recur` and two node hooks.
struct SquaresArePrimitive {
    jumps: Rc<Cell<usize>>,
}

impl Context for SquaresArePrimitive {
    fn can_recur(&self, call: &CallSite<'_>) -> bool {
        call.callee.name != "sq"
    }

    fn primitive_call(&self, node: &mut Draft<'_>) {
        if node.function_name() == Some("sq") {
            let x = node
                .arguments()
                .next()
                .and_then(|a| a.downcast_ref::<f64>())
                .copied();
            node.set("argument", x.unwrap_or(f64::NAN));
        }
    }

    fn jump(&self, node: &mut Draft<'_>) {
        self.jumps.set(self.jumps.get() + 1);
        node.set("jump", self.jumps.get());
    }
}

#[test]
fn a_user_context_changes_what_is_recorded() {
    let jumps = Rc::new(Cell::new(0));
    let ctx = SquaresArePrimitive {
        jumps: jumps.clone(),
    };
    let trace = track_with(ctx, norm2, (3.0, 4.0));
    let sq_calls: Vec<NodeRef<'_>> = trace
        .root()
        .children()
        .filter(|c| c.function_name() == Some("sq"))
        .collect();
    assert_eq!(sq_calls.len(), 2);
    for (call, x) in sq_calls.iter().zip([3.0, 4.0]) {
        assert_eq!(call.kind(), NodeKind::PrimitiveCall);
        assert_eq!(call.children().len(), 0);
        assert_eq!(call.metadata::<f64>("argument"), Some(&x));
    }
    assert_eq!(jumps.get(), 0, "norm2 has no branch");
    let trace = track_with(
        SquaresArePrimitive {
            jumps: jumps.clone(),
        },
        h,
        (2.0, 2),
    );
    let numbered: Vec<usize> = trace
        .root()
        .children()
        .filter_map(|c| c.metadata::<usize>("jump").copied())
        .collect();
    assert_eq!(
        numbered,
        [1, 2, 3, 4, 5, 6],
        "every jump of h(2.0, 2), in order"
    );
    assert_eq!(jumps.get(), 6);
}

/// A context that attaches metadata to every node kind it sees.
struct Tagger;

impl Context for Tagger {
    fn argument(&self, node: &mut Draft<'_>) {
        node.set("role", String::from("input"));
    }

    fn ret(&self, node: &mut Draft<'_>) {
        node.set("role", String::from("output"));
        node.set(
            "finite",
            node.value()
                .downcast_ref::<f64>()
                .is_some_and(|v| v.is_finite()),
        );
    }
}

#[test]
fn metadata_prints_after_a_tab() {
    let listing = track_with(Tagger, sq, (1.5,)).root().levels(2).to_string();
    insta::assert_snapshot!(listing);
    assert!(listing.contains("@1: [Arg:§1:%1] 1.5::f64\t[role = \"input\"]"));
    assert!(listing.contains("→ 2.25::f64\t[role = \"output\", finite = true]"));
}

#[tracked]
fn level3(x: f64) -> f64 {
    let y = x + 1.0;
    if y > 2.0 {
        panic!("too large: {y}");
    }
    y
}

#[tracked]
fn level2(x: f64) -> f64 {
    level3(x * 2.0) + 1.0
}

#[tracked]
fn level1(x: f64) -> f64 {
    let a = sq(x);
    level2(a) - 1.0
}

#[test]
fn a_panic_three_calls_deep_keeps_the_trace() {
    let (trace, result) = try_track(level1, (2.0,));
    let payload = result.expect_err("level3 panics");
    assert_eq!(
        payload.downcast_ref::<String>().map(String::as_str),
        Some("too large: 9")
    );
    insta::assert_snapshot!(trace.root().to_string());
    // Every level ends in the error node holding the message.
    let mut node = trace.root();
    for name in ["level2", "level3"] {
        let last = node.children().last().expect("a last node");
        assert_eq!(
            last.kind(),
            NodeKind::Error,
            "in {}",
            node.function_name().unwrap()
        );
        assert_eq!(last.value_text(), "\"too large: 9\"");
        node = node
            .children()
            .find(|c| c.function_name() == Some(name))
            .expect("the nested call");
        assert_eq!(node.kind(), NodeKind::NestedCall);
    }
    assert_eq!(
        node.children().last().map(|c| c.kind()),
        Some(NodeKind::Error)
    );
    // The thread records again, and the same call without the panic is whole.
    let (trace, result) = try_track(level1, (0.5,));
    assert_eq!(result.ok(), Some(level1(0.5)));
    assert_eq!(
        trace.root().children().last().map(|c| c.kind()),
        Some(NodeKind::Return)
    );
    assert_eq!(track(sq, (3.0,)).root().value::<f64>(), Some(&9.0));
}

#[test]
fn the_default_context_records_what_track_records() {
    let mut r1 = StdRng::seed_from_u64(0);
    let mut r2 = StdRng::seed_from_u64(0);
    assert_eq!(
        track_with(Everything, geom, (1, 0.5, &mut r1))
            .root()
            .to_string(),
        track(geom, (1, 0.5, &mut r2)).root().to_string()
    );
    assert_eq!(
        track_with(Everything, h, (2.0, 3)).root().to_string(),
        track(h, (2.0, 3)).root().to_string()
    );
    struct Empty;
    impl Context for Empty {}
    assert_eq!(
        track_with(Empty, norm2, (3.0, 4.0)).root().to_string(),
        track(norm2, (3.0, 4.0)).root().to_string()
    );
}

#[test]
fn timing_records_the_wall_time_of_nested_calls() {
    let trace = track_with(Timing::new(), norm2, (3.0, 4.0));
    let calls: Vec<_> = trace
        .root()
        .children()
        .filter(|c| c.kind() == NodeKind::NestedCall)
        .collect();
    assert_eq!(calls.len(), 2);
    for c in calls {
        assert!(c.metadata::<u64>("time_ns").is_some(), "{c:?}");
    }
}

/// Context state flows down: each nested call sees its own depth.
struct Depth(usize);

impl Context for Depth {
    fn nested(&self, _: &CallSite<'_>) -> Option<Rc<dyn Context>> {
        Some(Rc::new(Depth(self.0 + 1)))
    }

    fn ret(&self, node: &mut Draft<'_>) {
        node.set("depth", self.0);
    }
}

#[test]
fn context_values_flow_down_the_call_tree() {
    let trace = track_with(Depth(0), level1, (0.5,));
    let ret = |n: NodeRef<'_>| {
        n.children()
            .last()
            .and_then(|r| r.metadata::<usize>("depth").copied())
    };
    assert_eq!(ret(trace.root()), Some(1));
    let two = trace
        .root()
        .children()
        .find(|c| c.function_name() == Some("level2"))
        .unwrap();
    assert_eq!(ret(two), Some(2));
    let three = two
        .children()
        .find(|c| c.function_name() == Some("level3"))
        .unwrap();
    assert_eq!(ret(three), Some(3));
}

/// A replacement of another type than the call's result panics with both types named; before
/// 2026-11-27 the call silently kept its own result.
#[test]
fn a_replacement_of_another_type_panics_naming_both() {
    struct WrongType;
    impl irtrack::Context for WrongType {
        fn before_call(&self, call: &irtrack::Call<'_>) -> irtrack::Action {
            if call.name == "sin" || call.name == "double" {
                irtrack::Action::Replace(irtrack::Value::snapshot(2i32))
            } else {
                irtrack::Action::Run
            }
        }
    }
    #[irtrack::tracked]
    fn double(x: f64) -> f64 {
        x * 2.0
    }
    #[irtrack::tracked]
    fn uses_sin(x: f64) -> f64 {
        x.sin() + 1.0
    }
    #[irtrack::tracked]
    fn uses_double(x: f64) -> f64 {
        double(x) + 1.0
    }
    for run in [
        (|| drop(irtrack::track_with(WrongType, uses_sin, (1.0,)))) as fn(),
        || drop(irtrack::track_with(WrongType, uses_double, (1.0,))),
    ] {
        let payload = std::panic::catch_unwind(run).unwrap_err();
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(
            message.contains("`i32`") && message.contains("f64"),
            "{message}"
        );
    }
}

// A call a context replaced (a tester, 2026-11-27): a registered rule of the callee was still
// applied (`backward` [6, -1] where the result was the constant 2), and replacing a generic
// tracked function's result kept its body, whose return differed (a malformed trace: the
// gradient 7 for 1, a program 12 where the trace recorded 8).

#[tracked]
fn minus_for_replacement(a: f64, b: f64) -> f64 {
    a - b
}

#[tracked]
fn uses_minus_for_replacement(x: f64, y: f64) -> f64 {
    minus_for_replacement(x * x, y)
}

#[tracked]
fn generic_square<T: Copy + std::ops::Mul<Output = T>>(x: T) -> T {
    x * x
}

#[tracked]
fn uses_generic_square(x: f64) -> f64 {
    generic_square(x) + x
}

/// Replaces the result of every call named `.0`, `.2` calls deep or deeper, by `.1`.
struct ReplaceNamed(&'static str, f64, usize);

impl Context for ReplaceNamed {
    fn before_call(&self, call: &irtrack::Call<'_>) -> irtrack::Action {
        if call.name == self.0 && call.depth >= self.2 {
            irtrack::Action::Replace(irtrack::Value::snapshot(self.1))
        } else {
            irtrack::Action::Run
        }
    }
}

#[test]
fn a_replaced_result_is_not_differentiated_through_or_replayed() {
    irtrack::grad::register_rule(minus_for_replacement, |(_a, _b): (f64, f64), d: f64| {
        (d, -d)
    });
    let mut t = track_with(
        ReplaceNamed("minus_for_replacement", 2.0, 0),
        uses_minus_for_replacement,
        (3.0, 1.0),
    );
    assert_eq!(t.root().value::<f64>(), Some(&2.0));
    assert!(t.backward(1.0).is_err());
    let mut t = track_with(
        ReplaceNamed("generic_square", 5.0, 0),
        uses_generic_square,
        (3.0,),
    );
    assert_eq!(t.root().value::<f64>(), Some(&8.0));
    t.verify().unwrap();
    assert!(t.backward(1.0).is_err());
    let p = irtrack::program::Program::from_trace(&t, &[irtrack::program::Input::Dynamic]);
    assert!(p.is_err(), "{:?}", p.map(|p| p.call((3.0,))));
}

// A value replaced inside the body of a call whose function has a registered rule, or is a
// registered operation (a tester, 2026-11-28): the rule was applied as if the body ran its
// code (7 for the slope 1), and a program replayed the operation over the intervened body (30
// for 14).

#[tracked]
fn square_with_a_rule(x: f64) -> f64 {
    x * x
}

#[tracked]
fn uses_square_with_a_rule(x: f64) -> f64 {
    square_with_a_rule(x) + x
}

#[tracked]
fn abs_squared_operation(x: f64) -> f64 {
    let a = x.abs();
    a * a
}

#[tracked]
fn uses_abs_squared_operation(x: f64) -> f64 {
    abs_squared_operation(x) + x
}

#[test]
fn a_rule_or_an_operation_does_not_describe_an_intervened_body() {
    irtrack::grad::register_rule(square_with_a_rule, |(x,): (f64,), d: f64| 2.0 * x * d);
    let mut t = track_with(ReplaceNamed("*", 7.0, 1), uses_square_with_a_rule, (3.0,));
    assert_eq!(t.root().value::<f64>(), Some(&10.0));
    let e = t.backward(1.0).unwrap_err();
    assert!(e.to_string().contains("replaced"), "{e}");
    // Without the replacement the rule applies: 2x + 1.
    let mut t = irtrack::track(uses_square_with_a_rule, (3.0,));
    assert_eq!(
        t.backward(1.0).unwrap()[0],
        Some(irtrack::Tangent::Scalar(7.0))
    );

    irtrack::register_operation(abs_squared_operation);
    // `abs` replaced by the value it had: the operation's re-run would agree at the point.
    let t = track_with(
        ReplaceNamed("abs", 3.0, 1),
        uses_abs_squared_operation,
        (3.0,),
    );
    match irtrack::program::Program::from_trace(&t, &[irtrack::program::Input::Dynamic]) {
        Ok(p) => assert_eq!(p.call((5.0,)).unwrap().as_f64(), Some(9.0 + 5.0)),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}
