//! A fourth look the same day (2026-11-27), by a tester auditing the third round's refusals
//! for what they still let through: value-returning std mutators (`drain`, `split_off`,
//! `splice`) gave the old vector's slopes (each slope shifted one element left after
//! `drain(..1)`, at every point), and a point said by one ordering of a value that cannot go
//! below 0 spelled otherwise (`f64::abs(x)`, `powf(2.0)`, `mul_add(x, x, 0.0)`, `2.0 * |x|`,
//! `max`/`min` with constants, `classify()`, `matches!(x, 0.0)`) gave the special case's slope
//! (0 for `exprel`'s 1/2). Each test failed on d4bd944; an `Ok` must be the truth.

use irtrack::diff::jvp;
use irtrack::grad::with_general_sweep;
use irtrack::{gradient, tracked, GradError, Gradient, Tangent};
use std::num::FpCategory;

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-7 * want.abs().max(1.0)
}

fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6 * x.abs().max(1.0);
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn fdv(f: impl Fn(Vec<f64>) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let h = 1e-6 * x[i].abs().max(1.0);
            let mut a = x.to_vec();
            a[i] += h;
            let mut b = x.to_vec();
            b[i] -= h;
            (f(a) - f(b)) / (2.0 * h)
        })
        .collect()
}

fn vec_of(t: &Tangent) -> Vec<f64> {
    match t {
        Tangent::Vector(v) => v.clone(),
        t => t.as_slice().expect("a vector gradient").to_vec(),
    }
}

fn vector_right_or_err<T>(name: &str, r: Result<Gradient<T>, GradError>, truth: &[f64]) {
    if let Ok(g) = r {
        let got = vec_of(g.wrt[0].as_ref().unwrap());
        assert_eq!(got.len(), truth.len(), "{name}");
        for (a, b) in got.iter().zip(truth) {
            assert!(close(*a, *b), "{name}: gradient {got:?}, truth {truth:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// A1. `Vec::drain` then a `for` loop over the vector: every point, not a special one.
//
// `drain` takes `&mut self` by autoref and returns a value (a `Drain`), so it is neither in
// the macro's list of std mutating methods (`is_std_mutating_method`) nor a unit-valued call;
// the vector gets no new version. The `for &e in &q` loop's `next` rule then hands the k-th
// binding's sensitivity to element k of the *old* vector, and nothing checks the element's
// value against the binding (`q[i]` and `q.iter().sum()` do check, and refuse).
//
// drop_first_sq(v) = Σ_{i≥1} v[i]²: truth [0, 2 v1, 2 v2] = [0, 4, 6] at [1, 2, 3];
// irtrack gives [4, 6, 0] (each slope given to the element one to the left), fast path and
// general sweep alike.
// ---------------------------------------------------------------------------------------------

#[tracked]
fn drop_first_sq(v: Vec<f64>) -> f64 {
    let mut q = v.clone();
    q.drain(..1);
    let mut s = 0.0;
    for &e in &q {
        s += e * e;
    }
    s
}

#[test]
fn a1_drain_then_loop_gives_the_shifted_slopes() {
    let x = vec![1.0, 2.0, 3.0];
    let truth = [0.0, 4.0, 6.0];
    let f = fdv(drop_first_sq, &x);
    assert!(
        f.iter().zip(&truth).all(|(a, b)| (a - b).abs() < 1e-5),
        "{f:?}"
    );
    vector_right_or_err(
        "drop_first_sq",
        gradient(drop_first_sq, (x.clone(),)),
        &truth,
    );
    vector_right_or_err(
        "drop_first_sq (general sweep)",
        with_general_sweep(|| gradient(drop_first_sq, (x.clone(),))),
        &truth,
    );
}

// ---------------------------------------------------------------------------------------------
// A2. Other value-returning std mutators (`drain`, `split_off`, `splice`), then
// `iter().sum()`, at points where what they removed sums to 0 (so the stale-edge witness on
// `sum` passes): the old vector's slope, 1 for an element that is no longer there.
//
// f(v) = v[0] after removing/replacing the tail; at v = [1, 0] truth [1, 0]; irtrack [1, 1].
// ---------------------------------------------------------------------------------------------

#[tracked]
fn split_off_sum(v: Vec<f64>) -> f64 {
    let mut w = v.clone();
    let _tail = w.split_off(1);
    w.iter().sum()
}

#[tracked]
fn drain_tail_sum(v: Vec<f64>) -> f64 {
    let mut w = v.clone();
    let _ = w.drain(1..);
    w.iter().sum()
}

#[tracked]
fn splice_tail_sum(v: Vec<f64>) -> f64 {
    let mut w = v.clone();
    let _old: Vec<f64> = w.splice(1.., [0.0]).collect();
    w.iter().sum()
}

#[test]
fn a2_value_returning_mutators_then_sum() {
    let x = vec![1.0, 0.0];
    let truth = [1.0, 0.0];
    for (name, f) in [
        ("split_off_sum", split_off_sum as fn(Vec<f64>) -> f64),
        ("drain_tail_sum", drain_tail_sum),
        ("splice_tail_sum", splice_tail_sum),
    ] {
        let d = fdv(f, &x);
        assert!(
            d.iter().zip(&truth).all(|(a, b)| (a - b).abs() < 1e-5),
            "{name} {d:?}"
        );
    }
    // Called directly (a function pointer would hide the function from `gradient`).
    let mut wrong = Vec::new();
    macro_rules! check {
        ($($f:ident),*) => {$(
            if let Ok(g) = gradient($f, (x.clone(),)) {
                let got = vec_of(g.wrt[0].as_ref().unwrap());
                if got != truth {
                    wrong.push(format!("{}: {got:?}", stringify!($f)));
                }
            }
        )*};
    }
    check!(split_off_sum, drain_tail_sum, splice_tail_sum);
    assert!(wrong.is_empty(), "truth {truth:?}:\n{}", wrong.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// A3. Points said by one ordering at a tie of a value that cannot go below 0, spelled in ways
// the pin list (|x|, x*x, even powi, sqrt, hypot) misses. Each is exprel: (e^x - 1)/x with the
// special case 1 at 0. Truth at 0: exprel'(0) = 1/2. irtrack: 0 (the special case's slope).
//
// - `f64::abs(x) <= 0.0` (the path form of abs): `gradient` gives 0 while `jvp` refuses it
//   (`DiffError::PointPath`): the two sides disagree on the same code.
// - `x.powf(2.0) <= 0.0`, `x.mul_add(x, 0.0) <= 0.0`, `2.0 * x.abs() <= 0.0`,
//   `x.abs().max(0.0) <= 0.0`, `x.abs().min(1.0) <= 0.0`: gradient and jvp both 0.
// - `match x.classify() { FpCategory::Zero => … }` (libm style): 0, while the same test with
//   `==` (`x.classify() == FpCategory::Zero`) is refused.
// - `matches!(x, 0.0)`: 0, while `if let 0.0 = x` and `match x { 0.0 => … }` are refused.
// ---------------------------------------------------------------------------------------------

#[tracked]
fn exprel_fabs(x: f64) -> f64 {
    if f64::abs(x) <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}
#[tracked]
fn exprel_powf(x: f64) -> f64 {
    if x.powf(2.0) <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}
#[tracked]
fn exprel_mul_add(x: f64) -> f64 {
    if x.mul_add(x, 0.0) <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}
#[tracked]
fn exprel_scaled_abs(x: f64) -> f64 {
    if 2.0 * x.abs() <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}
#[tracked]
fn exprel_abs_max(x: f64) -> f64 {
    if x.abs().max(0.0) <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}
#[tracked]
fn exprel_abs_min(x: f64) -> f64 {
    if x.abs().min(1.0) <= 0.0 {
        1.0
    } else {
        x.exp_m1() / x
    }
}
#[tracked]
fn exprel_classify(x: f64) -> f64 {
    match x.classify() {
        FpCategory::Zero => 1.0,
        _ => x.exp_m1() / x,
    }
}
#[tracked]
fn exprel_matches(x: f64) -> f64 {
    if matches!(x, 0.0) {
        1.0
    } else {
        x.exp_m1() / x
    }
}

#[test]
fn a3_point_paths_spelled_otherwise_give_the_special_case_slope() {
    let mut wrong = Vec::new();
    // Called directly (a function pointer would hide the function from `gradient`).
    macro_rules! check {
        ($($f:ident),*) => {$({
            let name = stringify!($f);
            assert_eq!($f(0.0), 1.0);
            assert!((fd($f, 0.0) - 0.5).abs() < 1e-6, "{name}");
            assert!((fd($f, 1e-3) - 0.5003334).abs() < 1e-6, "{name}");
            if let Ok(g) = gradient($f, (0.0,)) {
                let got = g.scalars()[0].unwrap();
                if !close(got, 0.5) {
                    wrong.push(format!("{name}: gradient {got}"));
                }
            }
            if let Ok(j) = jvp($f, (0.0,), (1.0,)) {
                let got = j.tangent.as_f64().unwrap();
                if !close(got, 0.5) {
                    wrong.push(format!("{name}: jvp {got}"));
                }
            }
        })*};
    }
    check!(
        exprel_fabs,
        exprel_powf,
        exprel_mul_add,
        exprel_scaled_abs,
        exprel_abs_max,
        exprel_abs_min,
        exprel_classify,
        exprel_matches
    );
    assert!(wrong.is_empty(), "truth 0.5 at 0:\n{}", wrong.join("\n"));
}
