//! A seventh adversarial round (2026-11-27, tester G) on closure-capture linking (5e542b8,
//! cc4621d): each test failed on 7c3b390 with a silently wrong number, or a panic where a
//! value or a typed error is due (a parameter written as a pattern, or `_`, made the trace
//! malformed: one argument node per binding, not per parameter).

// The shapes are the tester's, as people write them.
#![allow(clippy::unnecessary_map_on_constructor)]
use irtrack::diff::jvp;
use irtrack::program::{Input, Program};
use irtrack::{gradient, track, tracked};
use std::cell::{Cell, RefCell};

fn fd(f: fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

/// A right gradient, or a typed error.
macro_rules! grad_ok {
    ($f:ident, $x:expr) => {{
        let x: f64 = $x;
        let r = gradient($f, (x,));
        if let Ok(g) = r {
            let got = g.scalars()[0].unwrap();
            let truth = fd($f, x);
            assert!(close(got, truth), "gradient at {x}: {got}, truth {truth}");
        }
    }};
}

/// A right tangent, or a typed error.
macro_rules! jvp_ok {
    ($f:ident, $x:expr) => {{
        let x: f64 = $x;
        if let Ok(j) = jvp($f, (x,), (1.0,)) {
            let got = j.tangent.as_f64().unwrap();
            let truth = fd($f, x);
            assert!(close(got, truth), "jvp at {x}: {got}, truth {truth}");
        }
    }};
}

/// A program recorded at `x0` gives the plain function's value at `x1`, or refuses.
macro_rules! program_ok {
    ($f:ident, $x0:expr, $x1:expr) => {{
        let (x0, x1): (f64, f64) = ($x0, $x1);
        if let Ok(p) = Program::from_trace(&track($f, (x0,)), &[Input::Dynamic]) {
            if let Ok(v) = p.call((x1,)) {
                assert_eq!(
                    v.as_f64().map(f64::to_bits),
                    Some($f(x1).to_bits()),
                    "program at {x1}: {:?}, truth {}",
                    v.as_f64(),
                    $f(x1)
                );
            }
        }
    }};
}

// ---------------------------------------------------------------------------------------
// Bug 1: a closure passed to a helper whose parameters include a destructuring pattern and a
// `_` is linked to the WRONG argument (FnIr::arg_position counts bound identifiers, the call's
// operands count parameters): `f`'s capture follows `g`'s `$(closure)` operand when the values
// agree bit for bit.

#[tracked]
fn shift_helper<F: Fn(f64) -> f64, G: Fn(f64) -> f64>(
    (a, b): (f64, f64),
    f: F,
    _g: G,
    _: f64,
) -> f64 {
    f(a) * b
}

/// = 2.0 for every x: `f` captures the constant 2.0, `g` captures x and is never called.
#[tracked]
fn shifted_closure(x: f64) -> f64 {
    let k = 2.0;
    let f = |t: f64| t * k;
    let g = |t: f64| t * x;
    shift_helper((1.0, 1.0), f, g, 0.0)
}

#[test]
fn helper_with_a_tuple_pattern_links_the_wrong_closure() {
    // irtrack: gradient 1.0, jvp 1.0, program at 3.0 gives 3.0; truth 0, 0, 2.0.
    grad_ok!(shifted_closure, 2.0);
    jvp_ok!(shifted_closure, 2.0);
    program_ok!(shifted_closure, 2.0, 3.0);
}

// ---------------------------------------------------------------------------------------
// Bug 2: a closure that reads a captured reference through `*r` records `$(*)(_)`: the value
// is treated as a constant, so the gradient and tangent are 0 and a program replays the
// recorded value.

#[tracked]
fn deref_captured_ref(x: f64) -> f64 {
    let y = x * x;
    let r = &y;
    let f = |t: f64| *r * t;
    f(1.0)
}

#[tracked]
fn deref_captured_mut_ref(x: f64) -> f64 {
    let mut y = x * x;
    let r = &mut y;
    let f = |t: f64| *r * t;
    f(1.0)
}

#[test]
fn deref_of_a_captured_reference() {
    // irtrack: gradient 0, jvp 0, program (recorded at 1.0) at 0.7 gives 1.0; truth 2x, 2x, 0.49.
    for x in [0.7, 1.0] {
        grad_ok!(deref_captured_ref, x);
        jvp_ok!(deref_captured_ref, x);
    }
    program_ok!(deref_captured_ref, 1.0, 0.7);
}

#[test]
fn deref_of_a_captured_mut_reference() {
    // irtrack: gradient 0; truth 2x.
    for x in [0.7, 1.0] {
        grad_ok!(deref_captured_mut_ref, x);
        jvp_ok!(deref_captured_mut_ref, x);
    }
    program_ok!(deref_captured_mut_ref, 1.0, 0.7);
}

// ---------------------------------------------------------------------------------------
// Bug 3: a captured Cell / RefCell read inside a closure: gradient 0 (in the enclosing function
// the same `c.get()` is refused, NoRule).

#[tracked]
fn captured_cell(x: f64) -> f64 {
    let c = Cell::new(x);
    let f = |t: f64| c.get() * t;
    f(1.0)
}

#[tracked]
fn captured_refcell(x: f64) -> f64 {
    let c = RefCell::new(x);
    let f = |t: f64| *c.borrow() * t;
    f(1.0)
}

#[test]
fn captured_cell_read() {
    // irtrack: gradient 0; truth 1.
    grad_ok!(captured_cell, 0.7);
}

#[test]
fn captured_refcell_read() {
    // irtrack: gradient 0; truth 1.
    grad_ok!(captured_refcell, 0.7);
}

// ---------------------------------------------------------------------------------------
// Panics: a tracked helper with a destructuring or `_` parameter, called from tracked code:
// "irtrack recorded a malformed trace: ... the call passes 2 arguments to a function of 3".

#[tracked]
fn tuple_param((a, b): (f64, f64), c: f64) -> f64 {
    a * b * c
}

#[tracked]
fn calls_tuple_param(x: f64) -> f64 {
    tuple_param((x, 2.0), x)
}

#[tracked]
fn underscore_param(_: f64, c: f64) -> f64 {
    c * c
}

#[tracked]
fn calls_underscore_param(x: f64) -> f64 {
    underscore_param(0.0, x)
}

#[test]
fn tuple_pattern_parameter_does_not_panic() {
    grad_ok!(calls_tuple_param, 0.7);
}

#[test]
fn underscore_parameter_does_not_panic() {
    grad_ok!(calls_underscore_param, 0.7);
}

// ---------------------------------------------------------------------------------------
// Bug 4: a let-bound closure that captures an input, passed by reference to a tracked generic
// helper (`f: &F`): the helper's `f(t)` is recorded as a primitive with no children, nothing
// links or refuses the capture: gradient 0, jvp 0, a program replays the recorded value.

#[tracked]
fn by_ref_gen<F: Fn(f64) -> f64>(f: &F, t: f64) -> f64 {
    f(t)
}

/// = x.
#[tracked]
fn closure_by_ref_to_helper(x: f64) -> f64 {
    let k = x;
    let f = |t: f64| t * k;
    by_ref_gen(&f, 1.0)
}

/// = x; the closure written in place, behind `&`.
#[tracked]
fn closure_literal_by_ref_to_helper(x: f64) -> f64 {
    by_ref_gen(&|t: f64| t * x, 1.0)
}

#[test]
fn closure_passed_by_reference_to_a_tracked_helper() {
    // irtrack: gradient 0, jvp 0, program (recorded at 1.0) at 0.7 gives 1.0; truth 1, 1, 0.7.
    grad_ok!(closure_by_ref_to_helper, 0.7);
    jvp_ok!(closure_by_ref_to_helper, 0.7);
    program_ok!(closure_by_ref_to_helper, 1.0, 0.7);
}

#[test]
fn closure_literal_passed_by_reference_to_a_tracked_helper() {
    // irtrack: gradient 0, jvp 0, program at 0.7 gives 1.0; truth 1, 1, 0.7.
    grad_ok!(closure_literal_by_ref_to_helper, 0.7);
    jvp_ok!(closure_literal_by_ref_to_helper, 0.7);
    program_ok!(closure_literal_by_ref_to_helper, 1.0, 0.7);
}

// ---------------------------------------------------------------------------------------
// Bug 5: a let-bound capturing closure passed to an untracked call
// (`Option::map`, a plain generic fn): the operand is now the `$(closure)` node, which
// programs take as a constant; the same closure written in place is refused ("takes a
// closure"). jvp 0 and a program replays the recorded value.

fn untracked_apply<F: Fn(f64) -> f64>(f: F, t: f64) -> f64 {
    f(t)
}

/// = x.
#[tracked]
fn closure_to_untracked_fn(x: f64) -> f64 {
    let k = x;
    let f = |t: f64| t * k;
    untracked_apply(f, 1.0)
}

/// = x.
#[tracked]
fn closure_to_option_map(x: f64) -> f64 {
    let k = x;
    let f = |t: f64| t * k;
    Some(1.0).map(f).unwrap()
}

#[test]
fn let_bound_closure_passed_to_an_untracked_call() {
    // irtrack: jvp 0 (truth 1); program recorded at 1.0 gives 1.0 at 0.7 (truth 0.7).
    // (gradient refuses: "no gradient rule", correct.)
    jvp_ok!(closure_to_untracked_fn, 0.7);
    program_ok!(closure_to_untracked_fn, 1.0, 0.7);
}

#[test]
fn let_bound_closure_passed_to_option_map() {
    // irtrack: jvp 0 (truth 1); program recorded at 1.0 gives 1.0 at 0.7 (truth 0.7).
    jvp_ok!(closure_to_option_map, 0.7);
    program_ok!(closure_to_option_map, 1.0, 0.7);
}
