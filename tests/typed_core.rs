//! The cases of the issue *Typed core*, each as its minimal repro: calls, claims and gradient
//! rules decided by typed keys (never by a name's text), typed values of generic code,
//! interventions by contexts, control dependence of fall-through branches, and re-executable
//! primitives. Each of these was silently wrong (or impossible) when traces were keyed by text.

use irtrack::{
    gradient, register_operation, track, track_with, tracked, Action, Call, Context, DepthLimit,
    GradError, NodeKind, NodeRef, Operation, Reason, Tangent, Trace, Value,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::cell::RefCell;
use std::rc::Rc;

fn scalars(g: &[Option<Tangent>]) -> Vec<f64> {
    g.iter()
        .map(|t| {
            t.as_ref()
                .and_then(Tangent::as_scalar)
                .expect("a scalar gradient")
        })
        .collect()
}

fn find<'t>(trace: &'t Trace, head: &str) -> NodeRef<'t> {
    trace
        .nodes()
        .find(|n| n.entry().is_some_and(|e| e.head == head))
        .unwrap_or_else(|| panic!("no node `{head}` in\n{}", trace.root()))
}

// ---------------------------------------------------------------------------------------------
// 1. A call through `&dyn Shape` whose untracked impl calls another type's tracked method of
//    the same name: the call is the untracked impl (a primitive), not the tracked body.
// ---------------------------------------------------------------------------------------------

trait Shape {
    fn area(&self) -> f64;
}

struct Square(f64);

struct Scaled {
    inner: Square,
    k: f64,
}

#[tracked]
impl Shape for Square {
    fn area(&self) -> f64 {
        self.0 * self.0
    }
}

// Not tracked: calls `Square::area`, which is.
impl Shape for Scaled {
    fn area(&self) -> f64 {
        self.inner.area() * self.k
    }
}

#[tracked]
fn dyn_area(s: &dyn Shape) -> f64 {
    s.area()
}

#[test]
fn a_dyn_call_reaching_an_untracked_impl_is_not_wired_to_a_tracked_body() {
    let scaled = Scaled {
        inner: Square(3.0),
        k: 2.0,
    };
    let trace = track(dyn_area, (&scaled as &dyn Shape,));
    assert_eq!(trace.root().value::<f64>(), Some(&18.0));
    let call = find(&trace, "area");
    assert_eq!(call.as_f64(), Some(18.0));
    // Before: a nested call holding `Square::area`'s body, with the value 9 inside.
    assert_ne!(call.kind(), NodeKind::NestedCall, "{}", trace.root());
    assert!(call.children().next().is_none());

    // A tracked impl behind the same `dyn` is entered.
    let square = Square(3.0);
    let trace = track(dyn_area, (&square as &dyn Shape,));
    let call = find(&trace, "area");
    assert_eq!(call.kind(), NodeKind::NestedCall);
    assert_eq!(call.as_f64(), Some(9.0));
}

/// Trait objects as iteration gives them: `&&dyn Shape` from a slice of `&dyn`, `&Box<dyn
/// Shape>` from a vector of boxes. Their tracked impls ran as primitives (a tester,
/// 2026-11-27): the probe looked through one reference only, to the inner reference or box.
#[tracked]
fn areas_of_refs(shapes: &[&dyn Shape]) -> f64 {
    let mut total = 0.0;
    for s in shapes {
        total += s.area();
    }
    total
}

#[tracked]
fn areas_of_boxes(shapes: &Vec<Box<dyn Shape>>) -> f64 {
    let mut total = 0.0;
    for s in shapes.iter() {
        total += s.area();
    }
    total
}

#[test]
fn trait_objects_behind_two_references_reach_their_tracked_impls() {
    let (a, b) = (
        Square(2.0),
        Scaled {
            inner: Square(3.0),
            k: 2.0,
        },
    );
    let refs: Vec<&dyn Shape> = vec![&a, &b];
    let trace = track(areas_of_refs, (&refs[..],));
    assert_eq!(trace.root().value::<f64>(), Some(&22.0));
    let calls: Vec<_> = trace
        .root()
        .children()
        .filter(|c| c.entry().is_some_and(|e| e.head == "area"))
        .collect();
    // The tracked impl is entered; the untracked one (which calls `Square::area` on another
    // object) stays a primitive.
    assert_eq!(calls.len(), 2, "{}", trace.root());
    assert_eq!(calls[0].kind(), NodeKind::NestedCall, "{}", trace.root());
    assert_eq!(calls[0].as_f64(), Some(4.0));
    assert_ne!(calls[1].kind(), NodeKind::NestedCall, "{}", trace.root());
    let boxes: Vec<Box<dyn Shape>> = vec![Box::new(Square(2.0)), Box::new(Square(3.0))];
    let trace = track(areas_of_boxes, (&boxes,));
    assert_eq!(trace.root().value::<f64>(), Some(&13.0));
    let nested = trace
        .root()
        .children()
        .filter(|c| c.kind() == NodeKind::NestedCall)
        .count();
    assert_eq!(nested, 2, "{}", trace.root());
}

// ---------------------------------------------------------------------------------------------
// 2. A user trait method on `f64` named like an operator's method: not the product rule.
// ---------------------------------------------------------------------------------------------

trait Combine {
    fn mul(self, o: f64) -> f64;
}

impl Combine for f64 {
    // Named `mul`, computes a sum.
    fn mul(self, o: f64) -> f64 {
        self + o
    }
}

#[tracked]
fn combine(x: f64, y: f64) -> f64 {
    x.mul(y)
}

#[test]
fn a_user_method_named_mul_does_not_get_the_product_rule() {
    // Before: Ok([5, 3]), the product rule. Truth: [1, 1]; with no rule for the user's method
    // the answer is an error naming it.
    match gradient(combine, (3.0, 5.0)) {
        Ok(g) => assert_eq!(scalars(&g.wrt), [1.0, 1.0]),
        Err(e) => assert!(matches!(e, GradError::NoRule { .. }), "{e}"),
    }
}

mod std_mul {
    use irtrack::tracked;
    use std::ops::Mul;

    // The operator's own method, called by name: `f64`'s `Mul`.
    #[tracked]
    pub fn product(x: f64, y: f64) -> f64 {
        x.mul(y)
    }
}

#[test]
fn the_std_mul_method_called_by_name_is_right_or_an_error() {
    match gradient(std_mul::product, (3.0, 5.0)) {
        Ok(g) => assert_eq!(scalars(&g.wrt), [5.0, 3.0]),
        Err(e) => assert!(matches!(e, GradError::NoRule { .. }), "{e}"),
    }
}

// ---------------------------------------------------------------------------------------------
// 3. A trait implemented for `&f64` with a method named like a float method.
// ---------------------------------------------------------------------------------------------

trait DegreesSin {
    fn sin(self) -> f64;
}

impl DegreesSin for &f64 {
    // The sine of an angle in degrees.
    fn sin(self) -> f64 {
        self.to_radians().sin()
    }
}

#[tracked]
fn sine_of_degrees(deg: f64) -> f64 {
    (&deg).sin()
}

#[test]
fn a_method_on_a_reference_to_f64_is_not_the_float_method() {
    let trace = track(sine_of_degrees, (30.0,));
    let value = *trace.root().value::<f64>().unwrap();
    assert!((value - 0.5).abs() < 1e-12);
    // Before: Ok(cos(30)), `f64::sin`'s rule. Truth: cos(30°)·π/180.
    let truth = 30f64.to_radians().cos() * std::f64::consts::PI / 180.0;
    match gradient(sine_of_degrees, (30.0,)) {
        Ok(g) => assert!((scalars(&g.wrt)[0] - truth).abs() < 1e-12),
        Err(e) => assert!(e.to_string().contains("sin"), "{e}"),
    }
    // Nor is it re-executed as `f64::sin`.
    let node = find(&trace, "sin");
    assert!(node.operation().is_err());

    // With `DegreesSin` in scope, `r.sin()` on `r: &f64` is the degrees method too: an error.
    #[tracked]
    fn sine_by_ref_in_scope(x: f64) -> f64 {
        let r = &x;
        r.sin()
    }
    assert!(gradient(sine_by_ref_in_scope, (0.3,)).is_err());
    // Without it, the float method on a reference reaches `f64::sin` and keeps its rule.
    let g = gradient(plain_sine::sine_by_ref, (0.3,)).unwrap();
    assert_eq!(scalars(&g.wrt), [0.3f64.cos()]);
}

mod plain_sine {
    #[irtrack::tracked]
    pub fn sine_by_ref(x: f64) -> f64 {
        let r = &x;
        r.sin()
    }

    #[irtrack::tracked]
    #[allow(clippy::needless_borrow)]
    pub fn sine_of_a_reference(x: f64) -> f64 {
        (&x).sin()
    }
}

#[test]
fn a_receiver_written_as_a_reference_is_probed_as_one() {
    // With no trait of `&f64` in scope, `(&x).sin()` is `f64::sin`, proven by its value.
    let g = gradient(plain_sine::sine_of_a_reference, (0.3,)).unwrap();
    assert_eq!(scalars(&g.wrt), [0.3f64.cos()]);
    // With `DegreesSin` in scope it is not, at any point the two differ.
    for deg in [30.0, -45.0, 1.0] {
        assert!(gradient(sine_of_degrees, (deg,)).is_err(), "at {deg}");
    }
}

// ---------------------------------------------------------------------------------------------
// 4. A user extension method `.tanh()` on `Array1<f64>` taking `self` by value: found before
//    ndarray's inherent `tanh(&self)`, so it is not ndarray's.
// ---------------------------------------------------------------------------------------------

mod soft {
    use ndarray::Array1;

    pub trait SoftSign {
        fn tanh(self) -> Array1<f64>;
    }

    impl SoftSign for Array1<f64> {
        // Softsign, named `tanh`.
        fn tanh(self) -> Array1<f64> {
            self.mapv(|v| v / (1.0 + v.abs()))
        }
    }
}

#[tracked]
fn soft_sum(a: ndarray::Array1<f64>) -> f64 {
    use soft::SoftSign;
    let s = a.tanh();
    s.sum()
}

#[test]
fn a_user_extension_tanh_on_an_array_is_not_ndarrays_tanh() {
    let a = ndarray::array![0.5, -1.0];
    let trace = track(soft_sum, (a.clone(),));
    let want: f64 = a.iter().map(|v| v / (1.0 + v.abs())).sum();
    assert_eq!(trace.root().value::<f64>(), Some(&want));
    // Before: tanh's rule, 1 - tanh². Truth: 1 / (1 + |v|)².
    match gradient(soft_sum, (a.clone(),)) {
        Ok(g) => {
            let t = g.wrt[0].as_ref().unwrap();
            let got = t.as_slice().expect("a vector gradient");
            for (g, v) in got.iter().zip(a.iter()) {
                assert!((g - 1.0 / (1.0 + v.abs()).powi(2)).abs() < 1e-12);
            }
        }
        Err(e) => assert!(e.to_string().contains("tanh"), "{e}"),
    }
    assert!(find(&trace, "tanh").operation().is_err());
}

// ---------------------------------------------------------------------------------------------
// 5. Generic code records typed values and has gradients.
// ---------------------------------------------------------------------------------------------

#[tracked]
fn poly<T: Copy + std::ops::Add<Output = T> + std::ops::Mul<Output = T>>(x: T, a: T, b: T) -> T {
    a * x * x + b * x
}

#[test]
fn generic_code_records_typed_values_and_differentiates() {
    let trace = track(poly::<f64>, (2.0, 3.0, 1.0));
    // Before: `_` everywhere (no `Debug` bound on `T`).
    assert_eq!(trace.root().value::<f64>(), Some(&14.0));
    for n in trace.root().children() {
        if n.kind() != NodeKind::Jump {
            assert!(n.as_f64().is_some(), "{n:?} has no typed value");
        }
    }
    let listing = trace.root().to_string();
    assert!(!listing.contains("_::"), "{listing}");
    // Before: "make it `#[tracked]`". d/dx = 2ax + b, d/da = x², d/db = x.
    let g = gradient(poly::<f64>, (2.0, 3.0, 1.0)).unwrap();
    assert_eq!(scalars(&g.wrt), [13.0, 4.0, 2.0]);
    // The same function on integers records integers.
    let trace = track(poly::<i64>, (2, 3, 1));
    assert_eq!(trace.root().value::<i64>(), Some(&14));
}

// ---------------------------------------------------------------------------------------------
// 6. Contexts intervene: see a primitive before it runs with its literal arguments, replace a
//    random draw's value (a constraint), skip a tracked call; two contexts compose in the
//    documented order.
// ---------------------------------------------------------------------------------------------

fn normal(mu: f64, sigma: f64, rng: &mut StdRng) -> f64 {
    let u1: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
    let u2: f64 = rng.random();
    mu + sigma * (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

#[tracked]
fn expensive(x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..100 {
        s += (x + i as f64).sqrt();
    }
    s
}

#[tracked]
fn model(rng: &mut StdRng) -> f64 {
    let z = normal(0.0, 1.0, rng);
    let w = expensive(z);
    z + w
}

/// Constrains `normal` to a value and records the arguments it saw.
#[derive(Clone)]
struct Constrain {
    value: f64,
    seen: Rc<RefCell<Vec<String>>>,
}

impl Context for Constrain {
    fn before_call(&self, call: &Call<'_>) -> Action {
        if call.name == "normal" {
            let shown: Vec<String> = call.arguments.iter().map(|a| a.to_string()).collect();
            self.seen.borrow_mut().push(shown.join(", "));
            return Action::Replace(Value::snapshot(self.value));
        }
        Action::Run
    }
}

/// Skips `expensive`, giving its result.
#[derive(Clone)]
struct Skip(f64);

impl Context for Skip {
    fn before_call(&self, call: &Call<'_>) -> Action {
        if call.name == "expensive" {
            return Action::Replace(Value::snapshot(self.0));
        }
        Action::Run
    }
}

#[test]
fn a_context_constrains_a_random_draw_and_sees_its_literal_arguments() {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let ctx = Constrain {
        value: 0.25,
        seen: seen.clone(),
    };
    let mut rng = StdRng::seed_from_u64(1);
    let trace = track_with(ctx, model, (&mut rng,));
    let draw = find(&trace, "normal");
    assert_eq!(draw.as_f64(), Some(0.25));
    // Before: only the rng was visible.
    let seen = seen.borrow();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].starts_with("0.0, 1.0, "), "{}", seen[0]);
    let want = 0.25 + expensive(0.25);
    assert_eq!(trace.root().value::<f64>(), Some(&want));
}

#[test]
fn a_context_skips_a_tracked_call() {
    let mut rng = StdRng::seed_from_u64(1);
    let trace = track_with(Skip(7.0), model, (&mut rng,));
    let call = find(&trace, "expensive");
    // Skipped: a primitive, the body not entered (no `sqrt` anywhere).
    assert_eq!(call.kind(), NodeKind::PrimitiveCall, "{}", trace.root());
    assert!(trace.nodes().all(|n| n.function_name() != Some("sqrt")));
    assert_eq!(call.as_f64(), Some(7.0));
    assert!(call.children().next().is_none());
    let z = find(&trace, "normal").as_f64().unwrap();
    assert_eq!(trace.root().value::<f64>(), Some(&(z + 7.0)));
}

/// Replaces `normal` by a fixed value.
#[derive(Clone)]
struct Fix(f64);

impl Context for Fix {
    fn before_call(&self, call: &Call<'_>) -> Action {
        if call.name == "normal" {
            return Action::Replace(Value::snapshot(self.0));
        }
        Action::Run
    }
}

#[test]
fn composed_contexts_ask_the_inner_one_first() {
    // `(A, B)`: B is the inner handler, pushed last; it sees the call first and its
    // replacement wins.
    let mut rng = StdRng::seed_from_u64(1);
    let trace = track_with((Fix(1.0), Fix(2.0)), model, (&mut rng,));
    assert_eq!(find(&trace, "normal").as_f64(), Some(2.0));
    let mut rng = StdRng::seed_from_u64(1);
    let trace = track_with((Fix(2.0), Fix(1.0)), model, (&mut rng,));
    assert_eq!(find(&trace, "normal").as_f64(), Some(1.0));
    // Different concerns compose: the constraint and the skip both apply.
    let seen = Rc::new(RefCell::new(Vec::new()));
    let mut rng = StdRng::seed_from_u64(1);
    let ctx = (
        Constrain {
            value: 0.5,
            seen: seen.clone(),
        },
        Skip(3.0),
    );
    let trace = track_with(ctx, model, (&mut rng,));
    assert_eq!(trace.root().value::<f64>(), Some(&3.5));
    assert_eq!(seen.borrow().len(), 1);
}

#[test]
fn depth_limit_one_keeps_the_roots_value_and_arguments() {
    let trace = track_with(DepthLimit::new(1), expensive, (1.0,));
    let root = trace.root();
    assert_eq!(root.kind(), NodeKind::PrimitiveCall);
    // Before: the root became a primitive without its value.
    assert_eq!(root.value::<f64>(), Some(&expensive(1.0)));
    let args = root.argument_values();
    assert_eq!(args.len(), 1);
    assert_eq!(args[0].as_f64(), Some(1.0));
}

// ---------------------------------------------------------------------------------------------
// 7. A branch taken by fall-through references the condition that decided it.
// ---------------------------------------------------------------------------------------------

#[tracked]
#[allow(clippy::manual_clamp)]
fn clip(x: f64) -> f64 {
    if x > 1.0 {
        1.0
    } else if x < -1.0 {
        -1.0
    } else {
        x
    }
}

#[test]
fn every_branch_taken_references_its_condition() {
    for x in [2.0, -2.0, 0.5] {
        let trace = track(clip, (x,));
        let jumps: Vec<NodeRef<'_>> = trace
            .nodes()
            .filter(|n| n.kind() == NodeKind::Jump)
            .collect();
        assert!(!jumps.is_empty());
        for j in &jumps {
            let e = j.entry().unwrap();
            let conditional = !e.condition.is_none() || !e.control.is_none();
            if conditional {
                let c = j
                    .control()
                    .unwrap_or_else(|| panic!("{j:?} has no control\n{}", trace.root()));
                assert!(c.value::<bool>().is_some(), "{c:?}");
            }
        }
        // The return's backward slice with control reaches the comparisons.
        let ret = trace.root().children().last().unwrap();
        let slice = ret.backward_with_control();
        let compares = slice
            .iter()
            .filter(|n| n.entry().is_some_and(|e| e.head == ">" || e.head == "<"))
            .count();
        assert!(compares >= 1, "x = {x}\n{}", trace.root());
    }
    // x = 0.5 took the `else` by falling through both tests: its jump references `x < -1`.
    let trace = track(clip, (0.5,));
    let last_jump = trace
        .nodes()
        .filter(|n| n.kind() == NodeKind::Jump)
        .last()
        .unwrap();
    assert_eq!(last_jump.control().unwrap().entry().unwrap().head, "<");
}

// ---------------------------------------------------------------------------------------------
// 8. Re-executable primitives.
// ---------------------------------------------------------------------------------------------

fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

fn not_registered(x: f64) -> f64 {
    x * 3.0
}

#[tracked]
fn uses_helpers(x: f64, n: i32) -> f64 {
    let a = softplus(x) * 2.0;
    let b = not_registered(a);
    let c = (n as f64).powi(n) + f64::max(b, 0.5);
    c - a.sin()
}

#[test]
fn primitives_run_again_on_new_operands_or_say_why_not() {
    register_operation(softplus);
    let trace = track(uses_helpers, (0.5, 2));
    for n in trace.nodes() {
        if let Ok(op) = n.operation() {
            let again = n.reexecute(&n.operand_values()).unwrap();
            assert!(again.same_scalar(&n.raw_value()), "{n:?} as {op}");
        }
    }
    let sp = find(&trace, "softplus");
    assert!(matches!(sp.operation(), Ok(Operation::Registered(_))));
    let v = sp.reexecute(&[Value::snapshot(0.0f64)]).unwrap();
    assert_eq!(v.as_f64(), Some(2f64.ln()));
    let nr = find(&trace, "not_registered");
    let e = nr.operation().unwrap_err();
    assert_eq!(e.reason, Reason::Unregistered);
    let text = e.to_string();
    assert!(
        text.contains("not_registered") && text.contains("register_operation"),
        "{text}"
    );
    let powi = find(&trace, "powi");
    let v = powi
        .reexecute(&[Value::snapshot(3.0f64), Value::snapshot(3i32)])
        .unwrap();
    assert_eq!(v.as_f64(), Some(27.0));
    let max = find(&trace, "f64::max");
    assert!(matches!(max.operation(), Ok(Operation::Builtin(_))));
    // Integer overflow is an error, not a wrapped number.
    let cast = trace
        .nodes()
        .find(|n| n.entry().is_some_and(|e| e.head == "as f64"))
        .unwrap();
    assert_eq!(
        cast.reexecute(&[Value::snapshot(7i32)]).unwrap().as_f64(),
        Some(7.0)
    );
    let e = cast.reexecute(&[Value::snapshot(1.5f64)]);
    assert!(e.is_ok(), "`as f64` of an f64 is allowed");
    let sub = find(&trace, "-");
    let wrong = sub.reexecute(&[Value::snapshot(1i32), Value::snapshot(1.0f64)]);
    assert!(matches!(wrong, Err(e) if matches!(e.reason, Reason::Eval(_))));
}

#[tracked]
fn int_math(a: i32, b: i32) -> i32 {
    a * b + 1
}

#[test]
fn integer_overflow_on_re_execution_is_an_error() {
    let trace = track(int_math, (3, 4));
    let mul = find(&trace, "*");
    assert_eq!(
        mul.reexecute(&[Value::snapshot(5i32), Value::snapshot(6i32)])
            .unwrap()
            .downcast_ref::<i32>(),
        Some(&30)
    );
    let e = mul
        .reexecute(&[Value::snapshot(i32::MAX), Value::snapshot(2i32)])
        .unwrap_err();
    assert!(e.to_string().contains("overflow"), "{e}");
}

#[tracked]
fn mutated(v: Vec<f64>) -> f64 {
    let mut w = v;
    let before = w[0];
    w[0] = 5.0;
    let after = w[0];
    before + after
}

#[test]
fn a_node_whose_operand_changed_in_place_is_not_re_executable() {
    let trace = track(mutated, (vec![1.0, 2.0],));
    assert_eq!(trace.root().value::<f64>(), Some(&6.0));
    let reads: Vec<NodeRef<'_>> = trace
        .nodes()
        .filter(|n| n.entry().is_some_and(|e| e.head == "index"))
        .collect();
    // The read after `w[0] = 5.0` refers to the vector as recorded before the write: running
    // it again would give 1.0, so it says so instead.
    let stale = reads.iter().find(|n| n.as_f64() == Some(5.0)).unwrap();
    match stale.operation() {
        Err(e) => assert_eq!(e.reason, Reason::Stale, "{e}"),
        Ok(op) => {
            let again = stale.reexecute(&stale.operand_values()).unwrap();
            assert_eq!(again.as_f64(), Some(5.0), "{op}");
        }
    }
}

pub trait DegreesSine: Copy + std::ops::Mul<Output = Self> {
    fn sin(self) -> Self;
}
impl DegreesSine for f64 {
    fn sin(self) -> f64 {
        self.to_radians().sin()
    }
}

#[tracked]
fn heading<T: DegreesSine>(deg: T, speed: T) -> T {
    speed * deg.sin()
}

pub trait Real: Copy + std::ops::Mul<Output = Self> {
    fn sin(self) -> Self;
    fn exp(self) -> Self;
}
impl Real for f64 {
    fn sin(self) -> f64 {
        f64::sin(self)
    }
    fn exp(self) -> f64 {
        f64::exp(self)
    }
}

#[tracked]
fn sin_exp<T: Real>(x: T) -> T {
    x.sin() * x.exp()
}

/// A generic trait method named as a float method is the float method only if it gives what
/// the float method gives near the point, not only at it: `sin` in degrees gives 0 at 0 as
/// `f64::sin` does, and got its rule (the gradient 10 for 10·π/180) and its replay (`sin` of
/// 30 radians for 30 degrees; a tester, 2026-11-28, third stop). A trait that forwards to
/// the float methods keeps their rules, at 0 as elsewhere.
#[test]
fn a_generic_method_agreeing_at_the_point_only_is_not_the_float_method() {
    assert!(gradient(heading::<f64>, (0.0, 10.0)).is_err());
    let p = irtrack::program::Program::from_trace(
        &track(heading::<f64>, (0.0, 10.0)),
        &[
            irtrack::program::Input::Dynamic,
            irtrack::program::Input::Dynamic,
        ],
    );
    assert!(p.is_err());
    for x in [0.0, 0.7] {
        let g = gradient(sin_exp::<f64>, (x,)).unwrap().scalars()[0].unwrap();
        let truth = (x.cos() + x.sin()) * x.exp();
        assert!((g - truth).abs() < 1e-15, "{g} {truth}");
    }
}

/// A trait of two-operand methods named as the float ones, taking the operands the other way
/// round (`atan2(y, x)`, as some geometry crates write it) or forwarding in order.
pub trait Planar: Copy {
    fn atan2(self, o: Self) -> Self;
    fn powf(self, e: Self) -> Self;
    fn hypot(self, o: Self) -> Self;
}
impl Planar for f64 {
    fn atan2(self, o: f64) -> f64 {
        f64::atan2(o, self)
    }
    fn powf(self, e: f64) -> f64 {
        f64::powf(e, self)
    }
    fn hypot(self, o: f64) -> f64 {
        f64::hypot(self, o)
    }
}
impl Planar for f32 {
    fn atan2(self, o: f32) -> f32 {
        f32::atan2(o, self)
    }
    fn powf(self, e: f32) -> f32 {
        f32::powf(self, e)
    }
    fn hypot(self, o: f32) -> f32 {
        f32::hypot(self, o)
    }
}

#[tracked]
fn angle<T: Planar>(x: T, y: T) -> T {
    x.atan2(y)
}

#[tracked]
fn power<T: Planar>(x: T, y: T) -> T {
    x.powf(y)
}

#[tracked]
fn length<T: Planar>(x: T, y: T) -> T {
    x.hypot(y)
}

/// A generic method of two operands named as a float method, which takes them the other way
/// round, gives the float method's result wherever the operands are equal: at `(1, 1)` it got
/// `atan2`'s rule (the gradient [0.5, -0.5] for [-0.5, 0.5]) and a program replayed
/// `f64::atan2` at other points (0.165 for 1.406 at (0.5, 3); a tester, 2026-11-28). It is
/// now run near the point with each operand moved by its own amount, and is no float method
/// there: refused. Methods that forward in order keep the float rules, at symmetric points
/// too, for `f64` and `f32`.
#[test]
fn a_generic_method_of_two_operands_taken_the_other_way_is_not_the_float_method() {
    use irtrack::program::{Input, Program};
    for (x, y) in [(1.0, 1.0), (2.0, 2.0), (0.5, 3.0)] {
        assert!(
            gradient(angle::<f64>, (x, y)).is_err(),
            "atan2 at ({x}, {y})"
        );
        assert!(
            gradient(power::<f64>, (x, y)).is_err(),
            "powf at ({x}, {y})"
        );
        let p = Program::from_trace(&track(angle::<f64>, (x, y)), &[Input::Dynamic; 2]);
        if let Ok(p) = p {
            let got = p.call((0.5, 3.0)).map(|v| v.as_f64());
            assert!(got.is_err() || got == Ok(Some(angle(0.5, 3.0))), "{got:?}");
        }
        let g = gradient(length::<f64>, (x, y)).unwrap().scalars();
        let r = x.hypot(y);
        assert!((g[0].unwrap() - x / r).abs() < 1e-15 && (g[1].unwrap() - y / r).abs() < 1e-15);
        let g = gradient(angle::<f32>, (x as f32, y as f32));
        assert!(g.is_err(), "f32 atan2 at ({x}, {y})");
        let g = gradient(power::<f32>, (x as f32, y as f32))
            .unwrap()
            .scalars();
        let (xf, yf) = (f64::from(x as f32), f64::from(y as f32));
        let want = [yf * xf.powf(yf - 1.0), xf.powf(yf) * xf.ln()];
        for k in 0..2 {
            assert!(
                (g[k].unwrap() - want[k]).abs() < 1e-5 * want[k].abs().max(1.0),
                "{g:?}"
            );
        }
    }
}

/// Generic code calling methods named as float methods that are no float methods: one taking
/// `&mut self` (a running maximum), one returning a reference (a logger), of one operand and
/// of two. The check that runs such a method near the point must compile for them (the first
/// form of the two-operand check did not: E0596 and E0515, an audit, 2026-11-28) and leave
/// them alone.
pub trait Running {
    fn max(&mut self, v: f64);
    fn floor(&mut self);
}
pub struct Peak(pub f64);
impl Running for Peak {
    fn max(&mut self, v: f64) {
        if v > self.0 {
            self.0 = v
        }
    }
    fn floor(&mut self) {
        self.0 = self.0.floor()
    }
}
pub trait Logger {
    fn log(&self, m: &str) -> &Self;
    fn round(&self) -> &Self;
}
pub struct Quiet;
impl Logger for Quiet {
    fn log(&self, _m: &str) -> &Self {
        self
    }
    fn round(&self) -> &Self {
        self
    }
}

#[tracked]
fn running_peak<A: Running>(mut a: A, v: f64) -> A {
    a.max(v);
    a.floor();
    a
}

#[tracked]
fn chatty<L: Logger>(l: L, x: f64) -> f64 {
    let msg = "hello";
    l.log(msg);
    l.round();
    x * 2.0
}

#[test]
fn methods_named_as_float_methods_that_take_mut_self_or_return_references_compile() {
    assert_eq!(running_peak(Peak(1.0), 2.5).0, 2.0);
    let t = track(running_peak::<Peak>, (Peak(1.0), 2.5));
    t.verify().unwrap();
    assert_eq!(
        track(chatty::<Quiet>, (Quiet, 1.5)).root().value::<f64>(),
        Some(&3.0)
    );
    let g = gradient(chatty::<Quiet>, (Quiet, 1.5)).unwrap();
    assert_eq!(g.scalars().last().copied().flatten(), Some(2.0));
}
