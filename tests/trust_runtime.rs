//! The cases of the issue *Trust* that the runtime decides: each a minimal repro whose
//! gradient was silently wrong (or whose trace was silently empty). Now each is right, checked
//! against central finite differences, or a typed error naming the node.

use irtrack::{gradient, track, tracked, GradError, Tangent};

fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6 * x.abs().max(1.0);
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn scalar(t: &Option<Tangent>) -> f64 {
    t.as_ref()
        .and_then(Tangent::as_scalar)
        .expect("a scalar gradient")
}

/// Right (within `tol` of finite differences) or an error; never a wrong number.
fn right_or_error(got: Result<f64, GradError>, truth: f64, tol: f64) {
    match got {
        Ok(g) => assert!(
            (g - truth).abs() <= tol * truth.abs().max(1.0),
            "gradient {g}, truth {truth}"
        ),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

// 1. Bit-level float code: an integer reinterpretation on the path is an error, not a zero.
#[tracked]
fn fabs(x: f64) -> f64 {
    f64::from_bits(x.to_bits() & (u64::MAX / 2))
}

#[tracked]
fn halve_exponent(x: f64) -> f64 {
    let bits = x.to_bits();
    let y = f64::from_bits(bits - (1u64 << 52));
    y * 3.0
}

#[test]
fn repro_1_bit_level_float_code() {
    for x in [-2.5, 0.75, 3.0] {
        let g = gradient(fabs, (x,));
        right_or_error(g.map(|g| scalar(&g.wrt[0])), fd(fabs, x), 1e-6);
        let g = gradient(halve_exponent, (x,));
        right_or_error(g.map(|g| scalar(&g.wrt[0])), fd(halve_exponent, x), 1e-6);
    }
    // Specifically: never the old silent 0.0.
    assert!(gradient(fabs, (-2.5,)).map(|g| scalar(&g.wrt[0])) != Ok(0.0));
}

// 2. Nested field paths are kept apart.
#[derive(Clone, Debug, irtrack::Snapshot)]
struct Lin {
    w: f64,
}

#[derive(Clone, Debug, irtrack::Snapshot)]
struct Net {
    l1: Lin,
    l2: Lin,
}

#[tracked]
fn two_layers(net: Net, x: f64) -> f64 {
    net.l1.w * x + net.l2.w
}

// A parameter named like its function (`fn net(net: Net)`) compiles and claims its calls.
#[tracked]
fn net(net: Net, x: f64) -> f64 {
    two_layers(net, x)
}

#[test]
fn a_parameter_named_like_its_function() {
    let n = Net {
        l1: Lin { w: 2.0 },
        l2: Lin { w: 5.0 },
    };
    let trace = track(net, (n, 3.0));
    assert_eq!(trace.root().value::<f64>(), Some(&11.0));
    assert_eq!(trace.root().kind(), irtrack::NodeKind::NestedCall);
}

#[test]
fn repro_2_nested_field_paths() {
    let n = Net {
        l1: Lin { w: 2.0 },
        l2: Lin { w: 5.0 },
    };
    match gradient(two_layers, (n, 3.0)) {
        Ok(g) => {
            let t = g.wrt[0].as_ref().expect("a gradient for the model");
            let get = |p: &str| t.field(p).and_then(Tangent::as_scalar);
            assert_eq!(get("l1.w"), Some(3.0), "{t:?}");
            assert_eq!(get("l2.w"), Some(1.0), "{t:?}");
            assert_eq!(scalar(&g.wrt[1]), 2.0);
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

// 3. Iterator state: a consumed head is not also summed.
#[tracked]
fn head_and_rest(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    let first = *it.next().unwrap();
    let rest: f64 = it.sum();
    10.0 * first + rest
}

#[tracked]
fn nth_then_next(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    it.nth(1);
    let t = *it.next().unwrap();
    t * 2.0
}

fn vector_gradient(r: Result<irtrack::Gradient<f64>, GradError>) -> Option<Vec<f64>> {
    match r {
        Ok(g) => {
            let t = g.wrt[0].as_ref().expect("a gradient");
            Some(match t.as_slice() {
                Some(s) => s.to_vec(),
                None => t
                    .as_array()
                    .expect("a vector gradient")
                    .iter()
                    .copied()
                    .collect(),
            })
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            None
        }
    }
}

#[test]
fn repro_3_iterator_state() {
    if let Some(g) = vector_gradient(gradient(head_and_rest, (vec![1.0, 2.0, 3.0],))) {
        assert_eq!(g, [10.0, 1.0, 1.0]);
    }
    if let Some(g) = vector_gradient(gradient(nth_then_next, (vec![1.0, 2.0, 3.0],))) {
        assert_eq!(g, [0.0, 0.0, 2.0]);
    }
}

// 4. Mutation through `&mut`.
fn set_to_three(k: &mut f64) {
    *k = 3.0;
}

#[tracked]
fn through_mut(x: f64) -> f64 {
    let mut k = 2.0;
    set_to_three(&mut k);
    x * k
}

fn scale_in_place(k: &mut f64, by: f64) {
    *k *= by;
}

#[tracked]
fn scaled_by_input(x: f64) -> f64 {
    let mut k = 2.0;
    scale_in_place(&mut k, x);
    k * x
}

#[test]
fn repro_4_mutation_through_mut() {
    right_or_error(
        gradient(through_mut, (5.0,)).map(|g| scalar(&g.wrt[0])),
        3.0,
        1e-9,
    );
    // d/dx (2x · x) = 4x.
    right_or_error(
        gradient(scaled_by_input, (5.0,)).map(|g| scalar(&g.wrt[0])),
        20.0,
        1e-9,
    );
    assert_eq!(
        track(through_mut, (5.0,)).root().value::<f64>(),
        Some(&15.0)
    );
    // `set_to_three(&mut k);` gives `k` a new version, whose value is the one `x * k` used:
    // the gradient is exact (it was a stale-edge error), and the listing no longer says
    // `x * 2.0`.
    let g = gradient(through_mut, (5.0,)).expect("k's new version is a constant 3");
    assert_eq!(scalar(&g.wrt[0]), 3.0);
    let listing = track(through_mut, (5.0,)).root().to_string();
    assert!(
        listing.contains("$(&mut k)(⟨2.0⟩, @2) → 3.0") && listing.contains("⟨*⟩(@1, @3)"),
        "{listing}"
    );
    // Through an input-dependent call the new version is a mutation: an error naming the call.
    match gradient(scaled_by_input, (5.0,)) {
        Err(GradError::Mutation { at }) => assert!(at.statement.contains("scale_in_place")),
        other => panic!("{other:?}"),
    }
}

// 4, second half: after `xs.push(a); xs.push(b);` the vector's uses refer to its new versions,
// so a query from the result reaches both pushed values (it reached neither).
// The pushes are the point: they are what makes new versions.
#[allow(clippy::vec_init_then_push)]
#[tracked]
fn pushed_then_summed(x: f64) -> f64 {
    let mut xs = Vec::new();
    xs.push(x * 2.0);
    xs.push(x.sin());
    xs.iter().sum()
}

#[test]
fn repro_4_pushed_values_are_reached_from_the_result() {
    let trace = track(pushed_then_summed, (0.5,));
    let root = trace.root();
    let ret = root.children().last().expect("a return");
    let reached: Vec<String> = ret.backward().iter().map(|n| n.to_string()).collect();
    let reaches = |s: &str| reached.iter().any(|n| n.contains(s));
    assert!(
        reaches("⟨*⟩(@1, ⟨2.0⟩)") && reaches("⟨sin⟩(@1)"),
        "{reached:#?}"
    );
    assert!(reaches("$(&mut xs)"), "{reached:#?}");
    match gradient(pushed_then_summed, (0.5,)) {
        Err(GradError::Mutation { at }) => assert!(at.statement.contains("push")),
        other => panic!("{other:?}"),
    }
}

// 5. Destructuring a struct parameter, and an untracked getter.
#[derive(Clone, Debug, irtrack::Snapshot)]
struct Affine {
    w: f64,
    b: f64,
}

impl Affine {
    fn weight(&self) -> f64 {
        self.w
    }
}

#[tracked]
fn destructured(m: Affine, x: f64) -> f64 {
    let Affine { w, b } = m;
    w * x + b
}

#[tracked]
fn through_getter(m: Affine, x: f64) -> f64 {
    m.weight() * x + m.b
}

#[test]
fn repro_5_destructuring_and_getters() {
    let m = Affine { w: 2.0, b: 1.0 };
    for r in [
        gradient(destructured, (m.clone(), 3.0)),
        gradient(through_getter, (m.clone(), 3.0)),
    ] {
        match r {
            Ok(g) => {
                let t = g.wrt[0].as_ref().expect("a gradient for the model");
                let get = |p: &str| t.field(p).and_then(Tangent::as_scalar);
                assert_eq!(get("w"), Some(3.0), "{t:?}");
                assert_eq!(get("b"), Some(1.0), "{t:?}");
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
}

// 6. An array-valued `unwrap` is not taken for a scalar.
#[tracked]
fn array_unwrap(a: ndarray::Array1<f64>) -> f64 {
    a.sum() * 2.0 + a.mean().unwrap()
}

#[test]
fn repro_6_array_valued_unwrap() {
    let a = ndarray::array![1.0, 2.0, 4.0];
    if let Some(g) = vector_gradient(gradient(array_unwrap, (a,))) {
        let want = 2.0 + 1.0 / 3.0;
        for v in g {
            assert!((v - want).abs() < 1e-12, "{v}");
        }
    }
}

// 7b. A tracked function passed as a function pointer.
#[tracked]
fn sq(x: f64) -> f64 {
    x * x
}

#[test]
fn repro_7b_function_pointers() {
    let trace = track(sq as fn(f64) -> f64, (3.0,));
    assert_eq!(trace.root().value::<f64>(), Some(&9.0));
    // Recorded, or says why: never a root with no arguments and no children silently.
    let root = trace.root();
    assert!(
        root.children().next().is_some() || root.argument_values().len() == 1,
        "{root}"
    );
    match gradient(sq as fn(f64) -> f64, (3.0,)) {
        Ok(g) => assert_eq!(scalar(&g.wrt[0]), 6.0),
        Err(e) => assert!(e.to_string().contains("pointer"), "{e}"),
    }
}

// A node budget stops a runaway trace with a typed error and leaves the thread able to track.
#[tracked]
fn runaway(x: f64) -> f64 {
    let mut s = x;
    loop {
        s = s * 0.5 + 1.0;
        if s.is_nan() {
            return s;
        }
    }
}

#[tracked]
fn deep(n: u64) -> u64 {
    if n == 0 {
        0
    } else {
        1 + deep(n - 1)
    }
}

#[test]
fn a_budget_stops_a_runaway_trace() {
    use irtrack::{track_within, Budget};
    let stopped = track_within(Budget::nodes(5_000), runaway, (1.0,)).unwrap_err();
    assert!(stopped.trace.len() >= 5_000 && stopped.trace.len() < 5_100);
    stopped.trace.verify().unwrap();
    assert!(stopped.to_string().contains("budget"), "{stopped}");
    let stopped = track_within(Budget::bytes(1 << 20), runaway, (1.0,)).unwrap_err();
    assert!(
        stopped.trace.memory() < 2 << 20,
        "{}",
        stopped.trace.memory()
    );
    // Each call the stop leaves gets its error node, past the budget.
    let stopped = track_within(Budget::nodes(2_000), deep, (100_000,)).unwrap_err();
    let errors = stopped
        .trace
        .nodes()
        .filter(|n| n.kind() == irtrack::NodeKind::Error)
        .count();
    assert!(errors > 100);
    assert!(
        stopped.trace.len() <= 2_000 + errors,
        "{}",
        stopped.trace.len()
    );
    // Within budget, the result and the trace are those of `track`.
    let (out, trace) = track_within(Budget::nodes(1_000), deep, (20,)).unwrap();
    assert_eq!(out, 20);
    assert_eq!(
        trace.root().to_string(),
        track(deep, (20,)).root().to_string()
    );
    // The thread tracks again, without a budget.
    assert_eq!(track(deep, (3,)).root().value::<u64>(), Some(&3));
}

// Found by the differential tester: the operand `min`/`max` does not select gets a zero
// adjoint, and a NaN partial below it (`powf` of a negative base) must not make the gradient
// NaN; finite differences say 0 for the unselected side.
#[tracked]
fn min_over_a_nan_branch(x1: f64, x2: f64) -> f64 {
    f64::min(x2.cos(), x1.mul_add(x2.powf(0.5), x2 * x2))
}

#[tracked]
fn max_over_a_nan_branch(x: f64) -> f64 {
    f64::max(f64::powf(x, std::f64::consts::PI), (-38.5_f64).fract())
}

#[test]
fn an_unselected_nan_branch_contributes_nothing() {
    let (x1, x2) = (-2.7, -1.093);
    let g = gradient(min_over_a_nan_branch, (x1, x2)).unwrap();
    assert_eq!(g.value, x2.cos());
    assert_eq!(scalar(&g.wrt[0]), 0.0);
    let truth = fd(|t| min_over_a_nan_branch(x1, t), x2);
    assert!(
        (scalar(&g.wrt[1]) - truth).abs() < 1e-6,
        "{:?} vs {truth}",
        g.wrt[1]
    );
    assert!((scalar(&g.wrt[1]) + x2.sin()).abs() < 1e-12);
    let g = gradient(max_over_a_nan_branch, (-1.0,)).unwrap();
    assert_eq!(scalar(&g.wrt[0]), 0.0);
    assert_eq!(fd(max_over_a_nan_branch, -1.0), 0.0);
}

// Found by the differential tester (seed 1, unit 963): inside a tracked method, a closure that
// reads a field of the captured `self` records `$(.f1)(_)` (the closure does not record
// `self`); the gradient through it was a silent 0 (truth 1). Now a typed error naming the read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Holder {
    pub flag: bool,
    pub f1: f64,
}

#[tracked]
impl Holder {
    pub fn via_closure(self, t: f64) -> f64 {
        let read = |_p: f64| -> f64 { self.f1 };
        read(t) * 2.0
    }
}

#[tracked]
fn through_captured_self(x: f64, t: f64) -> f64 {
    (Holder { flag: true, f1: x }).via_closure(t)
}

#[test]
fn a_field_of_a_captured_self_is_an_error_not_a_zero() {
    let f = |x: f64| through_captured_self(x, 1.0);
    let truth = fd(f, 2.0);
    assert!((truth - 2.0).abs() < 1e-6);
    let got = gradient(through_captured_self, (2.0, 1.0));
    right_or_error(got.clone().map(|g| scalar(&g.wrt[0])), truth, 1e-6);
    let e = got.expect_err("the read of the captured `self` is refused");
    assert!(e.to_string().contains(".f1"), "{e}");
}

// A method called on a place inside a temporary (`opts(x)[1].unwrap()`) was recorded with the
// temporary as its receiver (`⟨unwrap⟩(@2)`, @2 the whole vector), a wrong data edge for a
// debugger; the receiver is not recorded, and the node says so.
fn options_of(x: f64) -> Vec<Option<f64>> {
    vec![Some(x), Some(2.0 * x)]
}

#[tracked]
fn element_of_a_temporary(x: f64) -> f64 {
    options_of(x)[1].unwrap() * 3.0
}

#[test]
fn a_place_in_a_temporary_is_not_the_temporary() {
    let trace = track(element_of_a_temporary, (2.0,));
    let listing = trace.root().to_string();
    assert!(listing.contains("⟨unwrap⟩(⟨_⟩) → 4.0"), "{listing}");
    assert_eq!(trace.root().value::<f64>(), Some(&12.0));
    let e = gradient(element_of_a_temporary, (2.0,)).expect_err("the receiver is unknown");
    assert!(e.to_string().contains("unwrap"), "{e}");
}

// Found by the differential tester (seed 1, unit 2175): `x.round().acos()` at 0.81 is
// `acos(1)`, whose derivative is -inf; `round`'s partial is 0, and -inf·0 made the gradient
// NaN. A zero partial passes nothing: the function is flat there, its derivative 0.
#[tracked]
fn flat_into_infinite_slope(x: f64) -> f64 {
    x.round().acos() + x.floor().sqrt()
}

#[test]
fn a_zero_partial_passes_nothing() {
    for x in [0.8128, 0.3, 1.2] {
        let g = gradient(flat_into_infinite_slope, (x,)).unwrap();
        assert_eq!(scalar(&g.wrt[0]), 0.0, "at {x}");
        assert_eq!(fd(flat_into_infinite_slope, x), 0.0, "at {x}");
    }
}

// An adjoint that sums to zero (`s - s`) passes nothing on: `sqrt`'s infinite partial at 0
// must not make a flat function's gradient NaN (both the fast tape and the general sweep).
// `s - s` on purpose: an adjoint that cancels.
#[allow(clippy::eq_op)]
#[tracked]
fn cancelled_at_a_singularity(x: f64) -> f64 {
    let s = x.sqrt();
    s - s + 2.0 * x
}

#[test]
fn an_adjoint_that_cancels_passes_nothing() {
    let g = gradient(cancelled_at_a_singularity, (0.0,)).unwrap();
    assert_eq!(scalar(&g.wrt[0]), 2.0);
    let mut trace = track(cancelled_at_a_singularity, (0.0,));
    let general = trace.backward(1.0).unwrap();
    assert_eq!(general[0].as_ref().and_then(Tangent::as_scalar), Some(2.0));
}

// Found by the differential tester (seed 1, unit 5572): `x.copysign(x)` is `x`, slope 1, also
// at `-0.0`; the rule compared `a < 0.0` (false for -0.0) with `b`'s sign bit and said -1.
#[tracked]
fn own_sign(x: f64) -> f64 {
    x.copysign(x) + x.copysign(-1.0) * 0.5
}

#[test]
fn copysign_follows_sign_bits() {
    for x in [-0.0, 0.0, -2.0, 3.0] {
        let g = gradient(own_sign, (x,)).unwrap();
        let truth = 1.0 + if x.is_sign_negative() { 0.5 } else { -0.5 };
        assert_eq!(scalar(&g.wrt[0]), truth, "at {x:?}");
    }
    assert!((fd(own_sign, -2.0) - 1.5).abs() < 1e-6);
}

// Found by the differential tester (seed 1, unit 7559): `x.powf(0.0)` is 1 everywhere; at
// `x = -0.0` its rule computed `0 · (-0)^-1 = 0 · -inf`, NaN.
#[tracked]
fn zeroth_power(x: f64) -> f64 {
    f64::powf(x, 0.0) + x
}

#[test]
fn a_zeroth_power_is_flat_at_zero() {
    for x in [-0.0, 0.0, 2.0] {
        let g = gradient(zeroth_power, (x,)).unwrap();
        assert_eq!(scalar(&g.wrt[0]), 1.0, "at {x:?}");
    }
}

// Found by the differential tester (seed 2, unit 1913): `x.powf(∞)` is 0 for |x| < 1, so its
// slope there is 0; `b · x^(b-1)` was `∞ · 0` = NaN. Derivative programs (`vjp`) agree.
#[tracked]
fn infinite_power(x: f64) -> f64 {
    f64::powf(x, 1.0 / 0.0)
}

#[test]
fn an_infinite_power_is_flat_below_one() {
    for x in [0.0, 0.5, 0.9674606690241632, -0.5] {
        let g = gradient(infinite_power, (x,)).unwrap();
        assert_eq!(scalar(&g.wrt[0]), 0.0, "at {x:?}");
        let r = irtrack::diff::vjp(infinite_power, (x,), 1.0).unwrap();
        assert_eq!(
            r.cotangents[0].as_ref().and_then(|c| c.as_f64()),
            Some(0.0),
            "vjp at {x:?}"
        );
    }
    // Above 1 the power is ∞ on a neighbourhood: its slope is ∞, not NaN.
    let g = gradient(infinite_power, (2.0,)).unwrap();
    assert_eq!(scalar(&g.wrt[0]), f64::INFINITY);
}

// Found by the differential tester (seed 3, unit 1664): `(x / x).powf(NaN)` is 1 (IEEE: 1ᵇ = 1
// for every b), constant in x; the slope of `powf` in its base at (1, NaN) was `NaN · 1`, and
// the gradient NaN. Both derivative tables now give 0 there.
#[tracked]
#[allow(clippy::eq_op)]
fn one_to_a_nan_power(x: f64, y: f64) -> f64 {
    (x / x).powf((5.0f64).asin()) + 0.0 * y
}

#[test]
fn one_to_a_nan_power_is_flat() {
    let (x, y) = (1.971147681579172, -1.476168489395305);
    assert_eq!(one_to_a_nan_power(x, y), 1.0);
    let g = gradient(one_to_a_nan_power, (x, y)).unwrap();
    assert_eq!(scalar(&g.wrt[0]), 0.0);
    let r = irtrack::diff::vjp(one_to_a_nan_power, (x, y), 1.0).unwrap();
    assert_eq!(r.cotangents[0].as_ref().and_then(|c| c.as_f64()), Some(0.0));
}

// Found by the differential tester (seed 16, unit 1891): a binding of a destructured tuple
// passed its whole sensitivity to the tuple, so the components' sensitivities were added into
// one: `let (a, b) = (x, 1.0); a - b` had the gradient 1 + (-1) = 0, truth 1, with no error.
// A tuple's parts now have paths (`grad/parts.rs`): the slope is 1. A struct's destructuring
// is still a typed error naming the binding.
#[tracked]
fn destructured_tuple(x: f64) -> f64 {
    let (a, b): (f64, f64) = (x, 1.0_f64);
    a - b
}

#[derive(Clone, Copy, Debug)]
pub struct Pair2 {
    pub a: f64,
    pub b: f64,
}

#[tracked]
fn destructured_struct(x: f64) -> f64 {
    let p = Pair2 { a: x, b: 2.0 * x };
    let Pair2 { a, b } = p;
    a - b
}

#[tracked]
fn bound_from_an_option(x: f64) -> f64 {
    match Some(x) {
        Some(v) => v * 3.0,
        None => 0.0,
    }
}

#[test]
fn a_destructured_binding_is_its_part_or_an_error_not_a_sum() {
    assert_eq!(
        gradient(destructured_tuple, (0.5,)).unwrap().scalars(),
        [Some(1.0)]
    );
    assert_eq!(
        irtrack::grad::with_general_sweep(|| gradient(destructured_tuple, (0.5,)))
            .unwrap()
            .scalars(),
        [Some(1.0)]
    );
    // A struct pattern binds each field by its name (since 2026-11-28, fourth stop; before,
    // a typed error naming the binding: never the sum `1 + (-2)` of its parts' slopes given to
    // the whole): a - b = x - 2x.
    assert_eq!(
        gradient(destructured_struct, (0.5,)).unwrap().scalars(),
        [Some(-1.0)]
    );
    assert_eq!(
        irtrack::grad::with_general_sweep(|| gradient(destructured_struct, (0.5,)))
            .unwrap()
            .scalars(),
        [Some(-1.0)]
    );
    // Derivative programs take the tuple apart as its parts (since 2026-11-28, third stop;
    // an error before).
    let v = irtrack::diff::vjp(destructured_tuple, (0.5,), 1.0).unwrap();
    assert_eq!(
        v.cotangents[0].as_ref().and_then(irtrack::Value::as_f64),
        Some(1.0)
    );
    // A binding of the float an `Option` holds is that float: its slope passes.
    let g = gradient(bound_from_an_option, (0.5,)).unwrap();
    assert_eq!(scalar(&g.wrt[0]), 3.0);
}

// ---- Stale edges: a local changed through `&mut` inside an expression (`let _ = f(&mut y)`),
// where `#[tracked]` gives it no new version, was read back at its old recorded value by a
// return, a callee's argument, a negation, a cast and an element read (found 2026-11-27 by an
// adversarial run: gradients 2, 36, -10 and 6 where the truths are 6, 108, -12 and 9).

fn triple(v: &mut f64) -> bool {
    *v *= 3.0;
    true
}

#[tracked]
fn stale_return(x: f64) -> f64 {
    let mut y = x * 2.0;
    let _ = triple(&mut y);
    y
}

#[tracked]
fn square(y: f64) -> f64 {
    y * y
}

#[tracked]
fn stale_argument(x: f64) -> f64 {
    let mut y = x * 2.0;
    let _ = triple(&mut y);
    square(y)
}

#[tracked]
fn stale_negation(x: f64) -> f64 {
    let mut y = x * 2.0;
    let _ = triple(&mut y);
    (-y) * x
}

#[tracked]
fn stale_cast(x: f64) -> f64 {
    let mut y = x * 2.0;
    let _ = triple(&mut y);
    (y as f32) as f64
}

#[allow(clippy::useless_vec)]
#[tracked]
fn stale_element(x: f64) -> f64 {
    let mut v = vec![x, 2.0 * x];
    let _ = triple(&mut v[0]);
    v[0] * x
}

#[test]
fn an_edge_to_a_value_changed_in_place_is_refused() {
    let results = [
        ("return", gradient(stale_return, (1.5,))),
        ("argument", gradient(stale_argument, (1.5,))),
        ("negation", gradient(stale_negation, (1.5,))),
        ("cast", gradient(stale_cast, (1.5,))),
        ("element", gradient(stale_element, (1.5,))),
    ];
    for (name, result) in results {
        let e = result.unwrap_err();
        assert!(e.to_string().contains("changed in place"), "{name}: {e}");
    }
}

// ---- Paths taken because an equality held (found 2026-11-27 in statrs's `erf` and libm's
// `log2`, tracked as published): the special case's slope was returned as the function's.

#[tracked]
fn erf_small(x: f64) -> f64 {
    // statrs's `erf` for |x| < 1e-10, with its special case at 0.
    if x.is_nan() {
        f64::NAN
    } else if x == 0.0 {
        0.0
    } else {
        x * 1.125 + x * 0.003379167095512574
    }
}

#[tracked]
fn log2_with_shortcut(x: f64) -> f64 {
    // libm's shortcut at exactly 1.0, by the bits.
    if x.to_bits() == 0x3ff0000000000000 {
        return 0.0;
    }
    x.ln() / std::f64::consts::LN_2
}

#[allow(clippy::eq_op)]
#[tracked]
fn nan_test_by_inequality(x: f64) -> f64 {
    if x != x {
        return f64::NAN;
    }
    x * 3.0
}

#[allow(clippy::if_same_then_else)]
#[tracked]
fn constant_either_way(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        1.0
    }
}

#[test]
fn a_path_taken_because_an_equality_held_is_refused() {
    // At 0 the path is `return 0.0`, slope 0; erf's slope there is 1.128.
    let e = gradient(erf_small, (0.0,)).unwrap_err();
    assert!(
        matches!(e, GradError::Indeterminate { .. }) && e.to_string().contains("x == 0.0"),
        "{e}"
    );
    let e = gradient(log2_with_shortcut, (1.0,)).unwrap_err();
    assert!(matches!(e, GradError::Indeterminate { .. }), "{e}");
    // Derivative programs too: their guard `x == 0.0` holds at that point only.
    assert!(irtrack::diff::vjp(erf_small, (0.0,), 1.0).is_err());
    assert!(irtrack::diff::jvp(erf_small, (0.0,), (1.0,)).is_err());
    // Off the equality, the same functions have their slopes.
    let g = scalar(&gradient(erf_small, (1e-12,)).unwrap().wrt[0]);
    assert!((g - std::f64::consts::FRAC_2_SQRT_PI).abs() < 1e-15);
    let g = scalar(&gradient(log2_with_shortcut, (2.0,)).unwrap().wrt[0]);
    assert!((g - 0.5 / std::f64::consts::LN_2).abs() < 1e-15);
    // `x != x` holds wherever `x` is a number: not a point.
    assert_eq!(
        scalar(&gradient(nan_test_by_inequality, (0.0,)).unwrap().wrt[0]),
        3.0
    );
    // Refused even where both paths agree: the point alone cannot tell.
    assert!(gradient(constant_either_way, (0.0,)).is_err());
    assert_eq!(
        scalar(&gradient(constant_either_way, (1.0,)).unwrap().wrt[0]),
        0.0
    );
}

#[tracked]
fn not_not_equal(x: f64) -> f64 {
    if !(x == 0.0) {
        2.0 * x
    } else {
        0.0
    }
}

#[tracked]
fn equal_by_method(x: f64) -> f64 {
    if x.eq(&0.0) {
        0.0
    } else {
        2.0 * x
    }
}

/// The same through a negation and through `eq` (found by a second adversarial run: both
/// gave 0 at 0, where the function `2x` has the slope 2).
#[test]
fn an_equality_behind_a_negation_or_a_method_is_seen() {
    assert!(matches!(
        gradient(not_not_equal, (0.0,)),
        Err(GradError::Indeterminate { .. })
    ));
    assert!(matches!(
        gradient(equal_by_method, (0.0,)),
        Err(GradError::Indeterminate { .. })
    ));
    assert!(irtrack::diff::vjp(not_not_equal, (0.0,), 1.0).is_err());
    assert_eq!(
        scalar(&gradient(not_not_equal, (0.5,)).unwrap().wrt[0]),
        2.0
    );
    assert_eq!(
        scalar(&gradient(equal_by_method, (0.5,)).unwrap().wrt[0]),
        2.0
    );
}

fn scale_all(v: &mut [f64]) -> usize {
    for e in v.iter_mut() {
        *e *= 2.0;
    }
    v.len()
}

#[allow(clippy::useless_vec)]
#[tracked]
fn stale_sum(x: f64) -> f64 {
    let mut v = vec![x, x];
    let _n = scale_all(&mut v);
    let s: f64 = v.iter().sum();
    s
}

/// A vector changed in place, then summed: the sum's rule gave the slope of the old vector (2
/// where the truth is 4; found by a second adversarial run). The same walked by `for e in &v`
/// is not caught yet: its elements are kept as text (docs/testing.md).
#[test]
fn a_sum_of_a_vector_changed_in_place_is_refused() {
    let e = gradient(stale_sum, (1.0,)).unwrap_err();
    assert!(e.to_string().contains("changed in place"), "{e}");
    // Unchanged, the same sum has its slope.
    #[allow(clippy::useless_vec)]
    #[tracked]
    fn fresh_sum(x: f64) -> f64 {
        let v = vec![x, 3.0 * x];
        v.iter().sum()
    }
    assert_eq!(scalar(&gradient(fresh_sum, (1.0,)).unwrap().wrt[0]), 4.0);
}

// ---- A float's sign or exponent field is a count, not the float (found 2026-11-27 by a tester
// running libm as published): `ui >> 63 != 0` (the sign, in libm's `tanh`) was taken for an
// equality pinning the point, and an exponent `(ui >> 52) & 0x7ff` made every value computed
// from it "a float re-encoded" (refused). Integers made from a float's bits are followed
// through shifts, masks, casts and added constants: one keeping only the sign and exponent is
// a piecewise-constant count; an equality of one that keeps at least 2^-26 relative of the
// float (most of its bits) still pins, as does one of the bits themselves.

#[tracked]
fn scaled_by_exponent(x: f64) -> f64 {
    let bits = x.to_bits();
    let negative = bits >> 63 != 0;
    let k = ((bits >> 52) & 0x7ff) as i32 - 1023;
    let s = if negative { -1.0 } else { 1.0 };
    s * x * k as f64
}

#[tracked]
fn special_case_by_bits(x: f64) -> f64 {
    if x.to_bits() == 0x3ff0_0000_0000_0000 {
        0.0
    } else {
        2.0 * x
    }
}

#[tracked]
fn special_case_by_high_bits(x: f64) -> f64 {
    if x.to_bits() >> 1 == 0x3ff0_0000_0000_0000 >> 1 {
        0.0
    } else {
        2.0 * x
    }
}

#[test]
fn a_floats_sign_and_exponent_are_counts() {
    // x in [4, 8): k = 2; slope s k.
    assert_eq!(
        gradient(scaled_by_exponent, (5.0,)).unwrap().scalars(),
        [Some(2.0)]
    );
    assert_eq!(
        gradient(scaled_by_exponent, (-5.0,)).unwrap().scalars(),
        [Some(-2.0)]
    );
    for e in [
        gradient(special_case_by_bits, (1.0,)).unwrap_err(),
        gradient(special_case_by_high_bits, (1.0,)).unwrap_err(),
    ] {
        assert!(
            matches!(
                e,
                GradError::Indeterminate {
                    cause: irtrack::grad::Indeterminacy::Equality { .. },
                    ..
                }
            ),
            "{e:?}"
        );
    }
    assert_eq!(
        gradient(special_case_by_bits, (1.5,)).unwrap().scalars(),
        [Some(2.0)]
    );
}

#[tracked]
fn mantissa_rebuilt_by_doubling(x: f64) -> f64 {
    let bits = x.to_bits();
    let mut c = (bits & 0xF_FFFF_FFFF_FFFF) as u128;
    let mut i = 0;
    while i < 52 {
        c = c + c;
        i += 1;
    }
    let m = (c >> 52) as u64;
    f64::from_bits((1023u64 << 52) | m)
}

/// Each doubling is `c + c` of the previous: a chain the count walks once per node.
#[tracked]
fn doubled_many_times(x: f64) -> f64 {
    let c0 = x.to_bits() & 0xF;
    let c1 = c0 + c0;
    let c2 = c1 + c1;
    let c3 = c2 + c2;
    let c4 = c3 + c3;
    let c5 = c4 + c4;
    let c6 = c5 + c5;
    let c7 = c6 + c6;
    let c8 = c7 + c7;
    x * (c8 >> 60) as f64
}

/// Bits moved up and back down are still the float's: doubling a mantissa 52 times in a
/// `u128` and shifting it back rebuilt `x` from what the sweep took for counts (gradient 0 for
/// 1; the taint was lost through the `u128`, which is not a scalar). Each addition of two
/// values made from the bits now counts one bit moved up, a value made from a tainted one
/// that is not discrete passes the taint on, and the count is kept per node, so n doublings
/// cost n steps (each one looked at both operands again, 2^n in all: found by the fourth
/// round's last tester, whose 52 doublings did not finish).
#[test]
fn bits_moved_up_and_back_are_the_float() {
    let e = gradient(mantissa_rebuilt_by_doubling, (1.3,)).unwrap_err();
    assert!(matches!(e, GradError::NoRule { .. }), "{e:?}");
    assert_eq!(mantissa_rebuilt_by_doubling(1.3), 1.3);
    // Eight doublings of four bits, shifted down by 60: 0 whatever `x`, a count (bits moved
    // up 8 and down 60 leave 52 dropped), so the slope is that of `x * 0`.
    assert_eq!(doubled_many_times(1.3), 0.0);
    assert_eq!(
        gradient(doubled_many_times, (1.3,)).unwrap().scalars(),
        [Some(0.0)]
    );
}

#[tracked]
fn two_arguments(x: f64, n: i64) -> f64 {
    x * n as f64
}

/// Found 2026-11-27 by a tester: a budget of one or two nodes stopped the recording before the
/// root's arguments were all recorded, and the trace it returned failed `verify`; and a byte
/// budget (and `Trace::memory`) counted the emptied buffers a dropped trace leaves to the next
/// recording on its thread (6 MB for a 5-node trace after a trace of 10⁶ nodes: "over
/// budget after 1 node").
#[test]
fn a_tiny_budget_and_reused_buffers() {
    use irtrack::{track_within, Budget};
    for n in 0..=4 {
        match track_within(Budget::nodes(n), two_arguments, (0.7, 5)) {
            Err(stopped) => stopped.trace.verify().unwrap(),
            Ok((out, trace)) => {
                trace.verify().unwrap();
                assert_eq!(out, 3.5);
            }
        }
    }
    let fresh = track(two_arguments, (0.7, 5)).memory();
    drop(track(runaway_for, (0.5, 200_000)));
    let after = track(two_arguments, (0.7, 5));
    assert!(
        after.memory() <= fresh.max(1 << 16),
        "{} bytes after a large trace, {fresh} fresh",
        after.memory()
    );
    let (out, _) = track_within(Budget::bytes(1 << 20), two_arguments, (0.7, 5)).unwrap();
    assert_eq!(out, 3.5);
}

#[tracked]
fn runaway_for(x: f64, n: u32) -> f64 {
    let mut s = 0.0;
    for _ in 0..n {
        s += x;
    }
    s
}
