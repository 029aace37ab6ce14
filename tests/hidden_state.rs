//! State the trace does not show: a value kept by a call irtrack has no rule for (a `Cell`,
//! a `RefCell`, an `Option` or a map changed through `&mut self`, a static) and read back
//! later. The read looked like a constant, and gradients lost what flowed through it (a
//! tester, 2026-11-27: `let c = Cell::new(0.0); let _ = c.replace(2.0 * x); c.get()` had
//! gradient 0 for 2). Each is now refused by name or right, against finite differences.
#![allow(clippy::all, unused_mut)]

use irtrack::{gradient, tracked, GradError};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// `Ok` within 1e-6 of central differences of `f`, or a refusal naming a call.
#[track_caller]
fn right_or_refused(got: Result<irtrack::Gradient<f64>, GradError>, f: fn(f64) -> f64, x: f64) {
    let h = 1e-6;
    let fd = (f(x + h) - f(x - h)) / (2.0 * h);
    match got {
        Ok(g) => {
            let g = g.scalars()[0].unwrap();
            assert!(
                (g - fd).abs() < 1e-5,
                "gradient {g}, finite differences {fd}"
            );
        }
        Err(e) => assert!(
            matches!(e, GradError::NoRule { .. } | GradError::Mutation { .. }),
            "{e:?}"
        ),
    }
}

#[tracked]
fn cell_replaced(x: f64) -> f64 {
    let c = Cell::new(0.0);
    let _old = c.replace(2.0 * x);
    c.get()
}

#[tracked]
fn cell_replaced_in_a_statement(x: f64) -> f64 {
    let c = Cell::new(1.0);
    c.replace(x);
    c.get() * x
}

#[tracked]
fn refcell_replaced(x: f64) -> f64 {
    let r = RefCell::new(0.0);
    let _old = r.replace(2.0 * x);
    let v = *r.borrow();
    v
}

fn put(c: &Cell<f64>, v: f64) -> f64 {
    c.set(v);
    v
}

#[tracked]
fn through_a_helper(x: f64) -> f64 {
    let c = Cell::new(0.0);
    let _ = put(&c, 2.0 * x);
    c.get()
}

#[tracked]
fn map_entry(x: f64) -> f64 {
    let mut m: HashMap<u8, f64> = HashMap::new();
    m.entry(0).or_insert(2.0 * x);
    m[&0]
}

#[derive(Debug)]
struct Acc {
    s: f64,
}

impl Acc {
    fn add(&mut self, x: f64) -> f64 {
        self.s += x;
        self.s
    }
}

#[tracked]
fn shared_accumulator(x: f64) -> f64 {
    let a = Rc::new(RefCell::new(Acc { s: 0.0 }));
    let _ = a.borrow_mut().add(2.0 * x);
    let v = a.borrow().s;
    v
}

#[tracked]
fn aliased_cell(x: f64) -> f64 {
    let a = Rc::new(Cell::new(1.0));
    let b = Rc::clone(&a);
    let _ = b.replace(2.0 * x);
    a.get() * x
}

#[tracked]
fn cell_in_a_loop(x: f64) -> f64 {
    let c = Cell::new(0.0);
    for _ in 0..3 {
        let _ = c.replace(c.get() + x);
    }
    c.get()
}

thread_local! {
    static STASH: Cell<f64> = const { Cell::new(0.0) };
}

#[tracked]
fn thread_local_stash(x: f64) -> f64 {
    let _ = STASH.replace(2.0 * x);
    STASH.get()
}

#[tracked]
fn option_replaced(x: f64) -> f64 {
    let mut o: Option<f64> = None;
    let _old = o.replace(2.0 * x);
    o.unwrap_or(0.0)
}

/// Wrong only where the old and new values agree (x = 0): `take` was not seen to write.
#[tracked]
fn option_taken(x: f64) -> f64 {
    let mut o = Some(x);
    let _a = o.take();
    o.unwrap_or(3.0 * x)
}

#[tracked]
fn option_replaced_by_a_constant(x: f64) -> f64 {
    let mut o = Some(x);
    let _old = o.replace(5.0);
    o.unwrap() * x
}

#[test]
fn values_kept_by_untracked_calls_are_refused_or_right() {
    right_or_refused(gradient(cell_replaced, (1.5,)), cell_replaced, 1.5);
    right_or_refused(
        gradient(cell_replaced_in_a_statement, (-3.7,)),
        cell_replaced_in_a_statement,
        -3.7,
    );
    right_or_refused(gradient(refcell_replaced, (1.5,)), refcell_replaced, 1.5);
    right_or_refused(gradient(through_a_helper, (1.5,)), through_a_helper, 1.5);
    right_or_refused(gradient(map_entry, (1.5,)), map_entry, 1.5);
    right_or_refused(
        gradient(shared_accumulator, (1.5,)),
        shared_accumulator,
        1.5,
    );
    right_or_refused(gradient(aliased_cell, (-3.7,)), aliased_cell, -3.7);
    right_or_refused(gradient(cell_in_a_loop, (1.5,)), cell_in_a_loop, 1.5);
    right_or_refused(
        gradient(thread_local_stash, (1.5,)),
        thread_local_stash,
        1.5,
    );
    right_or_refused(gradient(option_replaced, (1.5,)), option_replaced, 1.5);
    right_or_refused(gradient(option_taken, (0.0,)), option_taken, 0.0);
    right_or_refused(
        gradient(option_replaced_by_a_constant, (5.0,)),
        option_replaced_by_a_constant,
        5.0,
    );
    // And with the general sweep (the fast path declines these).
    for g in [
        irtrack::grad::with_general_sweep(|| gradient(cell_replaced, (1.5,))),
        irtrack::grad::with_general_sweep(|| gradient(thread_local_stash, (1.5,))),
    ] {
        assert!(
            matches!(
                g,
                Err(GradError::NoRule { .. } | GradError::Mutation { .. })
            ),
            "{g:?}"
        );
    }
}

/// What still differentiates: calls whose result is read, and a cell read only.
#[tracked]
fn read_results(x: f64) -> f64 {
    let c = Cell::new(2.0);
    let k = c.get();
    let v = vec![x, 2.0 * x];
    let s: f64 = v.iter().sum();
    s * k + x.sin()
}

#[test]
fn calls_whose_results_are_read_still_differentiate() {
    right_or_refused(gradient(read_results, (0.7,)), read_results, 0.7);
    assert!(gradient(read_results, (0.7,)).is_ok());
}

// A second round (a tester, 2026-11-27): calls inside a std printing macro, which only reads
// what it mentions but runs the expressions it is given, and a user's `&mut self` method
// named like a float method.

#[tracked]
fn printed_accumulation(x: f64) -> f64 {
    let mut a = Acc { s: 1.0 };
    println!("total {}", a.add(x));
    a.s * x
}

#[tracked]
fn printed_pop(x: f64) -> f64 {
    let mut v = vec![x, 2.0 * x, 3.0];
    println!("dropped {:?}", v.pop());
    v[1] * x
}

#[tracked]
fn printed_cell(x: f64) -> f64 {
    let c = Cell::new(0.0);
    println!("old {}", c.replace(2.0 * x));
    c.get() * x
}

struct Extremes {
    hi: f64,
}

impl Extremes {
    /// Named like `f64::max`; keeps the largest value seen.
    fn max(&mut self, v: f64) -> f64 {
        if v > self.hi {
            self.hi = v;
        }
        self.hi
    }
}

#[tracked]
fn running_max(x: f64) -> f64 {
    let mut st = Extremes { hi: -10.0 };
    st.max(2.0 * x);
    st.hi * x
}

/// Still differentiated: a float method on a `mut` float, reads of a `mut` vector, `get`.
#[tracked]
fn float_methods_on_mut(x: f64) -> f64 {
    let mut best = x * x;
    let m = best.max(0.5);
    best += 1.0;
    let mut v = vec![x, 2.0];
    let a = v.get(1).copied().unwrap_or(0.0);
    let o = best.total_cmp(&2.0);
    println!("{} {:?} {}", m, o, v.len());
    m * best * a + v[0]
}

#[test]
fn calls_inside_printing_macros_and_float_named_methods_are_refused_or_right() {
    right_or_refused(
        gradient(printed_accumulation, (1.5,)),
        printed_accumulation,
        1.5,
    );
    right_or_refused(gradient(printed_pop, (1.5,)), printed_pop, 1.5);
    right_or_refused(gradient(printed_cell, (1.5,)), printed_cell, 1.5);
    right_or_refused(gradient(running_max, (1.5,)), running_max, 1.5);
    for g in [
        gradient(printed_accumulation, (1.5,)),
        gradient(printed_cell, (1.5,)),
        gradient(running_max, (1.5,)),
    ] {
        assert!(g.is_err(), "{g:?}");
    }
    use irtrack::program::{Input, Program};
    use irtrack::track;
    for (p, f) in [
        (
            Program::from_trace(&track(printed_accumulation, (1.5,)), &[Input::Dynamic]),
            printed_accumulation as fn(f64) -> f64,
        ),
        (
            Program::from_trace(&track(printed_cell, (1.5,)), &[Input::Dynamic]),
            printed_cell,
        ),
    ] {
        // Programs built from the trace (the pointer only names the plain function).
        if let Ok(p) = p {
            assert_eq!(p.call((2.5,)).ok().and_then(|v| v.as_f64()), Some(f(2.5)));
        }
    }
    // Derivative programs: the jvp was 2.5 for 4.
    for j in [
        irtrack::diff::jvp(printed_accumulation, (1.5,), (1.0,)),
        irtrack::diff::jvp(printed_cell, (1.5,), (1.0,)),
        irtrack::diff::jvp(running_max, (1.5,), (1.0,)),
    ] {
        assert!(j.is_err(), "{j:?}");
    }
    let g = gradient(float_methods_on_mut, (1.5,)).expect("no write");
    let h = 1e-6;
    let fd = (float_methods_on_mut(1.5 + h) - float_methods_on_mut(1.5 - h)) / (2.0 * h);
    assert!(
        (g.scalars()[0].unwrap() - fd).abs() < 1e-5,
        "{:?} {fd}",
        g.scalars()
    );
}
