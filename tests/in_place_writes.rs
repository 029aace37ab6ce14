//! Writes into memory and programs: a write whose element depends on a dynamic input
//! (`w[i] = 1.0`), a read at a dynamic index of a vector written before (`w[0] = 10.0; w[i]`),
//! a borrow of an element (`&mut w[i]`) and a user's macro that assigns what it mentions were
//! replayed at their recorded values (a tester, 2026-11-27: `wi(1)` gave 1 for 0). Each is now
//! refused by name, `update` runs the function again, and the forms a program can replay still
//! do, against the plain function.
// The functions write into vectors on purpose: that is what is tested.
#![allow(
    clippy::useless_vec,
    clippy::needless_range_loop,
    clippy::single_element_loop,
    clippy::match_single_binding,
    clippy::vec_init_then_push,
    unused_assignments
)]

use irtrack::program::update::{Change, Updatable};
use irtrack::program::{Input, Program, ReplayError, Retracking};
use irtrack::{track, tracked};
use Input::Dynamic;

/// `f` recorded at `built` with every input dynamic: its program, called at `call`, gives the
/// function's value there or is refused by an error naming one of `words`; an `update` of the
/// recorded trace by `changes` gives the function's value at `updated`.
macro_rules! right_or_refused {
    ($f:ident, built ($($b:expr),*), call ($($c:expr),*), refused $words:expr,
     update [$($change:expr),*] to ($($u:expr),*)) => {{
        let dynamic = [$({ let _ = &$b; Dynamic }),*];
        match Program::from_trace(&track($f, ($($b,)*)), &dynamic) {
            Ok(p) => assert_eq!(
                p.call(($($c,)*)).ok().and_then(|v| v.as_f64()),
                Some($f($($c),*)),
                stringify!($f)
            ),
            Err(e) => {
                let e = e.to_string();
                let words: &[&str] = &$words;
                assert!(words.iter().any(|w| e.contains(w)), "{}: {e}", stringify!($f));
            }
        }
        let mut m = Updatable::track($f, ($($b,)*));
        m.update([$($change),*]).unwrap();
        assert_eq!(m.trace().root().value::<f64>(), Some(&$f($($u),*)), stringify!($f));
    }};
}

#[tracked]
fn write_at(i: usize) -> f64 {
    let mut w = vec![0.0; 2];
    w[i] = 1.0;
    w[0]
}

#[tracked]
fn write_at_sign(x: f64) -> f64 {
    let mut w = vec![0.0; 2];
    let k = (x > 0.0) as usize;
    w[k] = 1.0;
    w[0] * x
}

#[tracked]
fn write_nested(i: usize) -> f64 {
    let mut w = vec![vec![0.0; 2]; 2];
    w[i][1] += 1.0;
    w[0][1]
}

struct Holder {
    w: Vec<f64>,
}

#[tracked]
fn write_field(i: usize) -> f64 {
    let mut s = Holder { w: vec![0.0; 2] };
    s.w[i] = 1.0;
    s.w[0]
}

#[tracked]
fn write_through_borrow(i: usize) -> f64 {
    let mut w = vec![0.0; 2];
    let r = &mut w[i];
    *r = 1.0;
    w[0]
}

#[tracked]
fn read_after_write(x: f64, i: usize) -> f64 {
    let mut w = vec![1.0, 2.0];
    w[0] = 10.0;
    w[i] * x
}

#[tracked]
fn read_after_loop_of_writes(i: usize) -> f64 {
    let mut w = vec![0.0; 3];
    for k in 0..3 {
        w[k] = k as f64 * 5.0;
    }
    w[i]
}

macro_rules! add_to {
    ($a:ident, $x:expr) => {
        $a += $x;
    };
}

#[tracked]
fn macro_assigns(x: f64) -> f64 {
    let mut a = 1.0;
    add_to!(a, x);
    a * 2.0
}

/// What stays replayable: a write of constants read at a constant index (the read's
/// recorded value saw the write), and a loop of prints.
#[tracked]
fn constant_write_read_at_constant(x: f64) -> f64 {
    let mut w = vec![1.0, 2.0];
    w[0] = 10.0;
    println!("{x}");
    w[0] * x + w[1]
}

/// An inclusive range is no write: its bound stays a constant a dynamic input may meet.
#[tracked]
fn inclusive_range(x: f64, n: usize) -> f64 {
    let lo = 1;
    let mut s = 0.0;
    for i in lo..=n {
        s += x * i as f64;
    }
    s + x * lo as f64
}

fn refused(p: Result<Program, ReplayError>, names: &str) {
    match p {
        Err(e) => {
            let text = e.to_string();
            assert!(text.contains(names), "{text}");
        }
        Ok(p) => panic!("built:\n{p}"),
    }
}

#[test]
fn a_write_at_a_dynamic_index_is_refused() {
    let writes = "writes a value that depends on a dynamic input into memory";
    refused(
        Program::from_trace(&track(write_at, (0usize,)), &[Dynamic]),
        writes,
    );
    refused(
        Program::from_trace(&track(write_at_sign, (1.0,)), &[Dynamic]),
        writes,
    );
    refused(
        Program::from_trace(&track(write_nested, (0usize,)), &[Dynamic]),
        writes,
    );
    refused(
        Program::from_trace(&track(write_field, (0usize,)), &[Dynamic]),
        writes,
    );
    refused(
        Program::from_trace(&track(write_through_borrow, (0usize,)), &[Dynamic]),
        writes,
    );
    // Derivative programs stand on programs: refused too (they gave the slope 0 for 1).
    assert!(irtrack::diff::hessian(write_at_sign, (1.0,)).is_err());
    // The write's node refers to the index it wrote at.
    let t = track(write_at, (1usize,));
    let listing = t.to_string();
    assert!(listing.contains("(w[i] =)(@2, ⟨1.0⟩, @1)"), "{listing}");
}

#[test]
fn a_read_after_a_write_is_refused_where_it_mixes_in_a_dynamic_input() {
    let reads = "after a write into memory changed it in place";
    refused(
        Program::from_trace(&track(read_after_write, (2.0, 1usize)), &[Dynamic, Dynamic]),
        reads,
    );
    refused(
        Program::from_trace(&track(read_after_loop_of_writes, (0usize,)), &[Dynamic]),
        reads,
    );
    let p =
        Program::from_trace(&track(constant_write_read_at_constant, (1.0,)), &[Dynamic]).unwrap();
    let q =
        Program::from_trace(&track(inclusive_range, (1.0, 3)), &[Dynamic, Input::Static]).unwrap();
    assert_eq!(
        q.call((2.5, 3usize)).unwrap().as_f64(),
        Some(inclusive_range(2.5, 3))
    );
    // A static argument of another type says so, and which type to give.
    let e = q.call((2.5, 3i32)).unwrap_err().to_string();
    assert!(e.contains("`usize`") && e.contains("`i32`"), "{e}");
    for x in [2.0, -3.5] {
        assert_eq!(
            p.call((x,)).unwrap().as_f64(),
            Some(constant_write_read_at_constant(x))
        );
    }
}

macro_rules! set_to {
    ($a:ident, $x:expr) => {
        $a = $x;
    };
}

/// `a` depends on `x` before the macro, and not after it: the slope is 0, not 2.
#[tracked]
fn macro_overwrites(x: f64) -> f64 {
    let mut a = x;
    set_to!(a, 3.0);
    a * 2.0
}

#[test]
fn a_macro_that_may_assign_what_it_mentions_is_refused() {
    refused(
        Program::from_trace(&track(macro_assigns, (5.0,)), &[Dynamic]),
        "may assign what it mentions",
    );
    // The gradient was 0 (truth 2) and 2 (truth 0).
    for g in [
        irtrack::gradient(macro_assigns, (5.0,)),
        irtrack::gradient(macro_overwrites, (3.0,)),
    ] {
        match g {
            Err(irtrack::GradError::Mutation { at }) => {
                assert!(at.to_string().contains('!'), "{at}")
            }
            g => panic!("{g:?}"),
        }
    }
    // A print only reads: the gradient is the function's.
    let g = irtrack::gradient(constant_write_read_at_constant, (2.0,)).unwrap();
    assert_eq!(g.wrt[0].as_ref().and_then(|t| t.as_scalar()), Some(10.0));
}

#[test]
fn updates_and_retracking_run_the_function_again() {
    let mut m = Updatable::track(write_at, (0usize,));
    let u = m.update([Change::argument(0, 1usize)]).unwrap();
    assert!(u.rerun().is_some());
    assert_eq!(m.trace().root().value::<f64>(), Some(&write_at(1)));

    let mut m = Updatable::track(write_at_sign, (1.0,));
    let u = m.update([Change::argument(0, -1.0)]).unwrap();
    assert!(u.rerun().is_some());
    assert_eq!(m.trace().root().value::<f64>(), Some(&write_at_sign(-1.0)));

    let mut m = Updatable::track(read_after_write, (2.0, 1usize));
    let u = m.update([Change::argument(1, 0usize)]).unwrap();
    assert!(u.rerun().is_some());
    assert_eq!(
        m.trace().root().value::<f64>(),
        Some(&read_after_write(2.0, 0))
    );

    // The in-place path still serves a change the write does not see.
    let u = m.update([Change::argument(0, 3.0)]).unwrap();
    assert!(u.rerun().is_none());
    assert_eq!(
        m.trace().root().value::<f64>(),
        Some(&read_after_write(3.0, 0))
    );

    assert!(Retracking::track(write_at_sign, (1.0,), &[Dynamic]).is_err());
}

// A second round (a tester, 2026-11-27): writes the first round's fix did not see.

#[tracked]
fn fill_through_range(x: f64, i: usize) -> f64 {
    let mut w = vec![1.0, 2.0];
    w[0..1].fill(10.0);
    w[i] * x
}

#[tracked]
fn closure_writes(x: f64, i: usize) -> f64 {
    let mut w = vec![1.0, 2.0];
    let mut set = |k: usize| w[k] = 10.0;
    set(0);
    w[i] * x
}

#[tracked]
fn closure_writes_input(mut v: Vec<f64>) -> f64 {
    let mut s = || v[0] = 10.0;
    s();
    v[0] * v[0] + v[1]
}

#[tracked]
fn borrow_in_tuple(x: f64, i: usize) -> f64 {
    let mut w = vec![1.0, 2.0];
    let pair = (&mut w, 1);
    pair.0[0] = 10.0;
    w[i] * x
}

#[tracked]
fn borrow_in_array(x: f64, i: usize) -> f64 {
    let mut w = vec![1.0, 2.0];
    for r in [&mut w] {
        r[0] = 10.0;
    }
    w[i] * x
}

#[tracked]
fn borrow_in_match(x: f64, i: usize) -> f64 {
    let mut w = vec![1.0, 2.0];
    match &mut w {
        r => r[0] = 10.0,
    }
    w[i] * x
}

/// A user's macro named like `log`'s.
macro_rules! info {
    ($a:ident, $x:expr) => {
        $a += $x;
    };
}

#[tracked]
fn user_info(x: f64) -> f64 {
    let mut a = 1.0;
    info!(a, x);
    a * 2.0
}

/// Only reads: `dbg!` and `println!` of an accumulator.
#[tracked]
fn prints(x: f64) -> f64 {
    let mut acc = x * 2.0;
    println!("{acc}");
    dbg!(acc);
    acc += 1.0;
    acc * x
}

#[test]
fn writes_seen_through_receivers_closures_and_holders() {
    // Each `#[tracked]` fn item passed as itself (a fn pointer is recorded as a primitive).
    right_or_refused!(
        fill_through_range,
        built (2.0, 1usize), call (3.0, 0usize), refused ["write", "closure"],
        update [Change::argument(1, 0usize)] to (2.0, 0usize)
    );
    right_or_refused!(
        closure_writes,
        built (2.0, 1usize), call (3.0, 0usize), refused ["write", "closure"],
        update [Change::argument(1, 0usize)] to (2.0, 0usize)
    );
    right_or_refused!(
        borrow_in_tuple,
        built (2.0, 1usize), call (3.0, 0usize), refused ["write", "closure"],
        update [Change::argument(1, 0usize)] to (2.0, 0usize)
    );
    right_or_refused!(
        borrow_in_array,
        built (2.0, 1usize), call (3.0, 0usize), refused ["write", "closure"],
        update [Change::argument(1, 0usize)] to (2.0, 0usize)
    );
    right_or_refused!(
        borrow_in_match,
        built (2.0, 1usize), call (3.0, 0usize), refused ["write", "closure"],
        update [Change::argument(1, 0usize)] to (2.0, 0usize)
    );
    // The closure wrote a dynamic input: the program, the update and the gradient (both
    // sweeps) refuse; the gradient was [20, 1] for [0, 1].
    assert!(
        Program::from_trace(&track(closure_writes_input, (vec![1.0, 2.0],)), &[Dynamic]).is_err()
    );
    let mut m = Updatable::track(closure_writes_input, (vec![10.0, 2.0],));
    m.update([Change::argument(0, vec![1.0, 2.0])]).unwrap();
    assert_eq!(m.trace().root().value::<f64>(), Some(&102.0));
    assert!(irtrack::gradient(closure_writes_input, (vec![1.0, 2.0],)).is_err());
    assert!(irtrack::grad::with_general_sweep(|| irtrack::gradient(
        closure_writes_input,
        (vec![1.0, 2.0],)
    ))
    .is_err());
}

#[test]
fn only_the_std_printing_macros_are_taken_to_read_only() {
    assert!(Program::from_trace(&track(user_info, (5.0,)), &[Dynamic]).is_err());
    assert!(matches!(
        irtrack::gradient(user_info, (2.0,)),
        Err(irtrack::GradError::Mutation { .. })
    ));
    let g = irtrack::gradient(prints, (1.5,)).unwrap();
    // acc·x = (2x + 1)·x: 4x + 1.
    assert_eq!(g.wrt[0].as_ref().and_then(|t| t.as_scalar()), Some(7.0));
    let p = Program::from_trace(&track(prints, (1.5,)), &[Dynamic]).unwrap();
    assert_eq!(p.call((2.0,)).unwrap().as_f64(), Some(prints(2.0)));
}

// A third round (a tester, 2026-11-27): writes inside tracked callees reached by a `&mut` not
// written at the call, and variables bound to a literal (no node to mark) written through a
// borrow.

#[tracked]
fn set10(w: &mut Vec<f64>) {
    w[0] = 10.0;
}

#[tracked]
fn through_rebound_borrow(x: f64, i: usize) -> f64 {
    let mut w = vec![1.0, 2.0];
    let r = &mut w;
    let r2 = r;
    set10(r2);
    w[i] * x
}

#[tracked]
fn passed_on(w: &mut Vec<f64>, x: f64, i: usize) -> f64 {
    set10(w);
    w[i] * x
}

#[tracked]
fn through_a_callee(x: f64, i: usize) -> f64 {
    let mut w = vec![1.0, 2.0];
    passed_on(&mut w, x, i)
}

macro_rules! set0 {
    ($w:ident) => {{
        $w[0] = 10.0;
        0.0
    }};
}

#[tracked]
fn expression_macro(x: f64, i: usize) -> f64 {
    let mut w = vec![1.0, 2.0];
    let z = set0!(w);
    w[i] * x + z
}

#[tracked]
fn bump_ret(a: &mut f64) -> f64 {
    *a = 10.0;
    0.0
}

#[tracked]
fn literal_through_call(x: f64) -> f64 {
    let mut a = 1.0;
    let _z = bump_ret(&mut a);
    a * x
}

#[tracked]
fn literal_through_borrow(x: f64) -> f64 {
    let mut a = 1.0;
    let r = &mut a;
    *r = 10.0;
    a * x
}

#[tracked]
fn literal_decides(x: f64) -> f64 {
    let mut a = 1.0;
    let _z = bump_ret(&mut a);
    if a < x {
        1.0
    } else {
        2.0
    }
}

#[test]
fn writes_behind_callees_and_literals() {
    right_or_refused!(
        through_rebound_borrow,
        built (2.0, 1usize), call (3.0, 0usize), refused ["write"],
        update [Change::argument(0, 3.0), Change::argument(1, 0usize)] to (3.0, 0usize)
    );
    right_or_refused!(
        through_a_callee,
        built (2.0, 1usize), call (3.0, 0usize), refused ["write"],
        update [Change::argument(0, 3.0), Change::argument(1, 0usize)] to (3.0, 0usize)
    );
    right_or_refused!(
        expression_macro,
        built (2.0, 1usize), call (3.0, 0usize), refused ["write"],
        update [Change::argument(0, 3.0), Change::argument(1, 0usize)] to (3.0, 0usize)
    );
    right_or_refused!(literal_through_call, built (0.0), call (3.0), refused ["write"],
        update [Change::argument(0, 3.0)] to (3.0));
    right_or_refused!(literal_through_borrow, built (0.0), call (3.0), refused ["write"],
        update [Change::argument(0, 3.0)] to (3.0));
    right_or_refused!(literal_decides, built (20.0), call (5.0), refused ["write"],
        update [Change::argument(0, 5.0)] to (5.0));
    // The gradients at 0 were 1 (the value before the write) for 10: refused now, in both
    // sweeps.
    for g in [
        irtrack::gradient(literal_through_call, (0.0,)),
        irtrack::gradient(literal_through_borrow, (0.0,)),
        irtrack::grad::with_general_sweep(|| irtrack::gradient(literal_through_borrow, (0.0,))),
    ] {
        assert!(
            matches!(g, Err(irtrack::GradError::Mutation { .. })),
            "{g:?}"
        );
    }
}

// A fourth round (a tester, 2026-11-27): what the lowering's own changes broke or missed.

macro_rules! set_get {
    ($a:ident, $v:expr) => {{
        $a = $v;
        $a
    }};
}

/// An uninitialised `mut` variable mentioned by an expression macro (compiles: nothing reads
/// it before the macro).
#[tracked]
fn uninit_then_macro(x: f64) -> f64 {
    let mut y;
    let z = set_get!(y, x * 2.0);
    y += 1.0;
    z + y
}

macro_rules! emit {
    ($out:ident, $v:expr) => {
        $out.push($v);
    };
}

/// A statement macro that moves a `mut` variable it mentions (compiles: nothing reads it
/// after the macro).
#[tracked]
fn macro_moves(x: f64) -> f64 {
    let mut rows: Vec<Vec<f64>> = Vec::new();
    let mut row = Vec::new();
    row.push(x);
    emit!(rows, row);
    rows[0][0] * 2.0
}

fn inc(a: &mut f64) -> f64 {
    *a += 1.0;
    *a
}

#[tracked]
fn borrow_in_an_arm(x: f64) -> f64 {
    let mut a = 0.0;
    if x > -100.0 {
        let _t = inc(&mut a) + 1.0;
    }
    x.max(a)
}

#[tracked]
fn borrows_in_a_loop(x: f64) -> f64 {
    let mut a = 0.0;
    for _ in 0..3 {
        let _t = inc(&mut a);
    }
    a * x
}

macro_rules! bump {
    ($c:ident) => {{
        $c += 1.0;
        $c
    }};
}

#[tracked]
fn expression_macro_in_an_arm(x: f64) -> f64 {
    let mut c = 1.0;
    if x > -100.0 {
        let _t = bump!(c);
    }
    c * x
}

#[tracked]
fn lent_element_at_a_computed_index(i: usize) -> f64 {
    let mut w = vec![0.0, 0.0, 0.0];
    inc(&mut w[i + 1]);
    w[1]
}

#[test]
fn the_lowerings_own_changes() {
    assert_eq!(
        track(uninit_then_macro, (1.5,)).root().value::<f64>(),
        Some(&uninit_then_macro(1.5))
    );
    assert_eq!(track(macro_moves, (1.5,)).root().value::<f64>(), Some(&3.0));
    // What the macro pushed is not seen: refused, not a slope of 0.
    assert!(matches!(
        irtrack::gradient(macro_moves, (1.5,)),
        Err(irtrack::GradError::Mutation { .. })
    ));
    right_or_refused!(borrow_in_an_arm, built (5.0), call (0.5), refused ["write", "macro"],
        update [Change::argument(0, 0.5)] to (0.5));
    right_or_refused!(borrows_in_a_loop, built (0.0), call (2.5), refused ["write", "macro"],
        update [Change::argument(0, 2.5)] to (2.5));
    right_or_refused!(expression_macro_in_an_arm, built (0.0), call (5.0),
        refused ["write", "macro"], update [Change::argument(0, 5.0)] to (5.0));
    // Gradients there were the values from before the writes (0 for 3, 1 for 2).
    for g in [
        irtrack::gradient(borrows_in_a_loop, (0.0,)),
        irtrack::gradient(expression_macro_in_an_arm, (0.0,)),
    ] {
        assert!(
            matches!(g, Err(irtrack::GradError::Mutation { .. })),
            "{g:?}"
        );
    }
    // The borrow's node is recorded after its index (it referred to one not yet recorded).
    let t = track(lent_element_at_a_computed_index, (0usize,));
    assert_eq!(t.root().value::<f64>(), Some(&1.0));
    match Program::from_trace(&t, &[Dynamic]) {
        Ok(p) => assert_eq!(p.call((1usize,)).ok().and_then(|v| v.as_f64()), Some(0.0)),
        Err(e) => assert!(e.to_string().contains("write"), "{e}"),
    }
}

// A fifth round (a tester, 2026-11-27).

macro_rules! decl {
    ($a:ident, $x:expr) => {
        let $a = $x;
    };
}

/// A user's macro that declares a variable: it was recorded as a named constant, and the
/// gradient took it for one (6 for 12).
#[tracked]
fn macro_declares(x: f64) -> f64 {
    decl!(b, x * 2.0);
    b * x
}

/// `&mut` held in variables, passed to a call that writes through them.
#[tracked]
fn swap_through_bindings(x: f64) -> f64 {
    let mut a = 1.0;
    let mut b = 2.0;
    let (r, s) = (&mut a, &mut b);
    std::mem::swap(r, s);
    a * x
}

#[test]
fn macro_declared_variables_and_borrows_held_in_variables() {
    assert_eq!(
        track(macro_declares, (3.0,)).root().value::<f64>(),
        Some(&18.0)
    );
    assert!(irtrack::gradient(macro_declares, (3.0,)).is_err());
    assert!(
        irtrack::grad::with_general_sweep(|| irtrack::gradient(macro_declares, (3.0,))).is_err()
    );
    // Recorded at 0, where the value before the write gives the same product.
    match Program::from_trace(&track(swap_through_bindings, (0.0,)), &[Dynamic]) {
        Ok(p) => assert_eq!(p.call((3.0,)).ok().and_then(|v| v.as_f64()), Some(6.0)),
        Err(e) => assert!(e.to_string().contains("write"), "{e}"),
    }
    let mut m = Updatable::track(swap_through_bindings, (0.0,));
    m.update([Change::argument(0, 3.0)]).unwrap();
    assert_eq!(m.trace().root().value::<f64>(), Some(&6.0));
    let g = irtrack::gradient(swap_through_bindings, (0.0,));
    assert!(
        g.as_ref().is_err()
            || g.as_ref().unwrap().wrt[0]
                .as_ref()
                .and_then(|t| t.as_scalar())
                == Some(2.0),
        "{g:?}"
    );
}

/// `ref mut` bindings of a variable bound to a literal (no node to mark before): the slope of
/// the value before the write was given (1 for 10).
#[tracked]
fn ref_mut_in_a_match(x: f64) -> f64 {
    let mut a = 1.0;
    match a {
        ref mut r => *r = 10.0,
    }
    a * x
}

#[allow(clippy::toplevel_ref_arg)]
#[tracked]
fn ref_mut_in_a_let(x: f64) -> f64 {
    let mut a = 1.0;
    let ref mut r = a;
    *r = 10.0;
    a * x
}

#[test]
fn ref_mut_bindings_write_what_they_borrow() {
    for g in [
        irtrack::gradient(ref_mut_in_a_match, (0.0,)),
        irtrack::gradient(ref_mut_in_a_let, (0.0,)),
    ] {
        assert!(
            g.as_ref().is_err()
                || g.as_ref().unwrap().wrt[0]
                    .as_ref()
                    .and_then(|t| t.as_scalar())
                    == Some(10.0),
            "{g:?}"
        );
    }
    for (p, f) in [
        (
            Program::from_trace(&track(ref_mut_in_a_match, (0.0,)), &[Dynamic]),
            ref_mut_in_a_match as fn(f64) -> f64,
        ),
        (
            Program::from_trace(&track(ref_mut_in_a_let, (0.0,)), &[Dynamic]),
            ref_mut_in_a_let,
        ),
    ] {
        if let Ok(p) = p {
            assert_eq!(p.call((3.0,)).ok().and_then(|v| v.as_f64()), Some(f(3.0)));
        }
    }
}

macro_rules! inc {
    ($n:ident) => {
        $n += 1
    };
}

/// A counter a user's macro bumps in a loop, read only by the loop's test: the program folds
/// it as before this stop (the block arguments passing it on were refused, a tester's
/// regression check).
#[tracked]
fn macro_counter(x: f64) -> f64 {
    let mut n = 0;
    let mut acc = 0.0;
    while n < 2 {
        acc += x * x;
        inc!(n);
    }
    acc
}

#[test]
fn a_counter_a_macro_bumps_still_replays() {
    let p = Program::from_trace(&track(macro_counter, (1.5,)), &[Dynamic]).unwrap();
    assert_eq!(p.call((2.5,)).unwrap().as_f64(), Some(macro_counter(2.5)));
}

// A method that takes `&mut self` and returns a value (a tester's leftover of 2026-11-27):
// `#[tracked]` cannot see a method's `self`, and nothing showed that `a.add(x)` changed `a`.

/// An untracked accumulator whose `add` changes it and returns the new total.
struct Acc {
    s: f64,
}

impl Acc {
    fn add(&mut self, x: f64) -> f64 {
        self.s += x;
        self.s
    }
}

/// The result of `add` unused: `a.s` read after it is `x`, not the literal's 0.
#[tracked]
fn acc_result_unused(x: f64) -> f64 {
    let mut a = Acc { s: 0.0 };
    let _ = a.add(x);
    a.s * x
}

/// Through a `&mut` held in a variable.
#[tracked]
fn acc_through_a_borrow(x: f64) -> f64 {
    let mut a = Acc { s: 0.0 };
    let r = &mut a;
    let _ = r.add(x);
    a.s * x
}

struct Owner {
    acc: Acc,
}

impl Owner {
    /// On a field of `self` in a tracked `&mut self` method.
    #[tracked]
    fn step(&mut self, x: f64) -> f64 {
        let _ = self.acc.add(x);
        self.acc.s * x
    }
}

#[tracked]
fn acc_in_a_method(x: f64) -> f64 {
    let mut o = Owner {
        acc: Acc { s: 1.0 },
    };
    o.step(x)
}

/// A trait method of `f64` taking `&mut self`.
trait Bump {
    fn bump(&mut self) -> f64;
}

impl Bump for f64 {
    fn bump(&mut self) -> f64 {
        *self += 1.0;
        *self
    }
}

#[tracked]
fn bumped_literal(x: f64) -> f64 {
    let mut a = 1.0;
    let _k = a.bump();
    a * x
}

/// What stays as it was: a method that cannot change its receiver (by value, or a std read)
/// on a `mut` binding, and constants changed by a method read at constants.
#[tracked]
#[allow(unused_mut)]
fn reads_of_mut_bindings(x: f64) -> f64 {
    let mut s = x * x;
    let r = s.sqrt();
    s += r;
    let mut v = vec![x, 2.0];
    let n = v.len() as f64;
    let mut a = Acc { s: 1.0 };
    let _k = a.add(1.0);
    s * a.s * v[0] * n
}

#[test]
fn a_method_that_takes_mut_self_writes_its_receiver() {
    // The gradients were 2 (the slope with `a.s` taken for the constant 0) for 4, and 3 for 5.
    for (g, truth) in [
        (irtrack::gradient(acc_result_unused, (2.0,)), 4.0),
        (irtrack::gradient(acc_through_a_borrow, (2.0,)), 4.0),
        (irtrack::gradient(acc_in_a_method, (2.0,)), 6.0),
        (irtrack::gradient(bumped_literal, (2.0,)), 2.0),
        (
            irtrack::grad::with_general_sweep(|| irtrack::gradient(acc_result_unused, (2.0,))),
            4.0,
        ),
    ] {
        match g {
            Ok(g) => assert_eq!(g.scalars(), [Some(truth)]),
            Err(e) => assert!(
                matches!(
                    e,
                    irtrack::GradError::Mutation { .. } | irtrack::GradError::NoRule { .. }
                ),
                "{e:?}"
            ),
        }
    }
    // (Each by its fn item: a fn pointer is not `#[tracked]`.)
    right_or_refused!(acc_result_unused, built (2.0), call (3.0), refused ["run again"],
        update [Change::argument(0, 3.0)] to (3.0));
    right_or_refused!(acc_through_a_borrow, built (2.0), call (3.0), refused ["run again"],
        update [Change::argument(0, 3.0)] to (3.0));
    right_or_refused!(acc_in_a_method, built (2.0), call (3.0), refused ["run again"],
        update [Change::argument(0, 3.0)] to (3.0));
    right_or_refused!(bumped_literal, built (2.0), call (3.0), refused ["re-run"],
        update [Change::argument(0, 3.0)] to (3.0));
    // Not writes: the gradient and the program are the function's.
    let g = irtrack::gradient(reads_of_mut_bindings, (2.0,)).unwrap();
    let h = 1e-6;
    let fd = (reads_of_mut_bindings(2.0 + h) - reads_of_mut_bindings(2.0 - h)) / (2.0 * h);
    assert!(
        (g.scalars()[0].unwrap() - fd).abs() < 1e-5,
        "{:?} {fd}",
        g.scalars()
    );
    right_or_refused!(reads_of_mut_bindings, built (2.0), call (3.0), refused ["len"],
        update [Change::argument(0, 3.0)] to (3.0));
}
