//! Programs from traces: replay on new inputs equals the Rust function wherever the recorded
//! path applies, and is a typed error where it does not (docs/replay.md).

mod common;

use common::{geom, h};
use irtrack::program::{checkpoint, collect, inject, Checkpoints, Input, Program, ReplayError};
use irtrack::{register_operation, track, tracked, Value};
use rand::rngs::StdRng;
use rand::SeedableRng;

use Input::{Dynamic, Static};

#[test]
fn h_replays_with_n_static_on_any_x() {
    let trace = track(h, (2.0, 5));
    let p = Program::from_trace(&trace, &[Dynamic, Static]).unwrap();
    assert_eq!(p.guards(), 0, "{p}");
    for x in [-3.0, -0.5, 0.0, 0.25, 1.0, 7.5, f64::INFINITY] {
        let got = p.call((x, 5)).unwrap().as_f64().unwrap();
        let want = h(x, 5);
        assert!(
            got == want || got.is_nan() && want.is_nan(),
            "x = {x}: {got} vs {want}"
        );
    }
    insta::assert_snapshot!(p.to_string());
}

#[test]
fn h_with_n_dynamic_guards_every_loop_test() {
    let trace = track(h, (2.0, 3));
    let p = Program::from_trace(&trace, &[Dynamic, Dynamic]).unwrap();
    assert_eq!(p.guards(), 4, "{p}");
    assert_eq!(p.call((1.5, 3)).unwrap().as_f64(), Some(h(1.5, 3)));
    // Another trip count is another path: the first loop test that differs says so.
    let e = p.call((1.5, 2)).unwrap_err();
    assert!(matches!(e, ReplayError::Guard { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "h [§2:&2]: @22 == true expected; these inputs take a path the trace did not record \
         (track the function on them, or use `irtrack::switch` for a decision made at run time)"
    );
    let e = p.call((1.5, 4)).unwrap_err();
    assert!(e.to_string().contains("== false expected"), "{e}");
}

#[test]
fn geom_replays_its_recorded_draws_on_new_arguments() {
    let record = |seed: u64| {
        let mut rng = StdRng::seed_from_u64(seed);
        track(geom, (0, 0.3, &mut rng))
    };
    let mut checked = 0;
    let mut refused = 0;
    for seed in 0..20 {
        let trace = record(seed);
        let p = Program::from_trace(&trace, &[Dynamic, Dynamic, Static]).unwrap();
        for beta in [0.05, 0.2, 0.3, 0.5, 0.8, 0.95] {
            for n in [0, 3, -2] {
                let mut rng = StdRng::seed_from_u64(seed);
                let want = geom(n, beta, &mut rng);
                match p.call_dynamic((n, beta)) {
                    Ok(v) => {
                        assert_eq!(v.downcast_ref::<i32>(), Some(&want), "seed {seed}");
                        checked += 1;
                    }
                    Err(ReplayError::Guard { .. }) => refused += 1,
                    Err(e) => panic!("{e}"),
                }
            }
        }
    }
    assert!(
        checked > 50 && refused > 50,
        "{checked} replayed, {refused} refused"
    );
}

#[test]
fn geom_with_every_input_static_is_a_constant() {
    let mut rng = StdRng::seed_from_u64(4);
    let trace = track(geom, (0, 0.3, &mut rng));
    let p = Program::from_trace(&trace, &[Static, Static, Static]).unwrap();
    assert!(p.is_empty() && p.guards() == 0, "{p}");
    let want = *trace.root().value::<i32>().unwrap();
    assert_eq!(
        p.call_dynamic(()).unwrap().downcast_ref::<i32>(),
        Some(&want)
    );
    // A static input must be passed with its recorded value.
    let e = p
        .call(vec![Value::snapshot(1), Value::snapshot(0.3), Value::UNIT])
        .unwrap_err();
    assert!(matches!(e, ReplayError::Static { index: 0, .. }), "{e}");
}

// autoform's static `kind` selecting a branch, and the same branch traced on a dynamic `kind`.
#[tracked]
fn label(kind: u8, x: f64) -> f64 {
    if kind == 0 {
        x * 2.0
    } else {
        x + 100.0
    }
}

#[test]
fn a_static_kind_selects_the_branch_and_a_dynamic_one_is_guarded() {
    let short = Program::from_trace(&track(label, (0, 1.0)), &[Static, Dynamic]).unwrap();
    assert_eq!(short.guards(), 0);
    assert_eq!(short.call((0u8, 21.0)).unwrap().as_f64(), Some(42.0));
    assert!(matches!(
        short.call((1u8, 21.0)),
        Err(ReplayError::Static { index: 0, .. })
    ));
    let traced = Program::from_trace(&track(label, (0, 1.0)), &[Dynamic, Dynamic]).unwrap();
    assert_eq!(traced.call((0u8, 3.0)).unwrap().as_f64(), Some(6.0));
    let e = traced.call((1u8, 3.0)).unwrap_err();
    assert!(matches!(e, ReplayError::Guard { .. }), "{e}");
    assert!(e.to_string().starts_with("label [§1:&2]"), "{e}");
}

#[test]
fn arguments_are_checked() {
    let p = Program::from_trace(&track(label, (0, 1.0)), &[Static, Dynamic]).unwrap();
    assert!(matches!(
        p.call((0u8,)),
        Err(ReplayError::Arity {
            expected: 2,
            got: 1
        })
    ));
    let e = p.call((0u8, 3i32)).unwrap_err();
    assert!(matches!(e, ReplayError::Type { index: 1, .. }), "{e}");
    assert!(matches!(
        Program::from_trace(&track(label, (0, 1.0)), &[Dynamic]),
        Err(ReplayError::Arity { .. })
    ));
}

fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

fn opaque_helper(x: f64) -> f64 {
    x * 3.0
}

#[tracked]
fn with_helpers(x: f64) -> f64 {
    let a = softplus(x);
    opaque_helper(a) + 1.0
}

#[test]
fn an_untracked_call_on_a_dynamic_value_must_be_registered() {
    register_operation(softplus);
    let trace = track(with_helpers, (0.5,));
    let e = Program::from_trace(&trace, &[Dynamic]).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("opaque_helper")
            && text.contains("with_helpers")
            && text.contains("register_operation"),
        "{text}"
    );
    register_operation(opaque_helper);
    let p = Program::from_trace(&trace, &[Dynamic]).unwrap();
    for x in [-1.0, 0.0, 2.0] {
        assert_eq!(p.call((x,)).unwrap().as_f64(), Some(with_helpers(x)));
    }
    // With the input static, nothing needs to run again.
    let p = Program::from_trace(&trace, &[Static]).unwrap();
    assert!(p.is_empty());
}

#[tracked]
fn square(x: f64) -> f64 {
    x * x
}

#[tracked]
fn nested(x: f64, y: f64) -> f64 {
    let a = square(x);
    let b = square(y + a);
    (a - b).abs().sqrt()
}

#[test]
fn nested_calls_replay_through_their_bodies() {
    let trace = track(nested, (1.0, 2.0));
    let p = Program::from_trace(&trace, &[Dynamic, Dynamic]).unwrap();
    for (x, y) in [(0.5, 0.25), (-3.0, 1.0), (2.0, -4.0)] {
        assert_eq!(p.call((x, y)).unwrap().as_f64(), Some(nested(x, y)));
    }
    let p = Program::from_trace(&trace, &[Static, Dynamic]).unwrap();
    assert_eq!(p.call((1.0, 5.0)).unwrap().as_f64(), Some(nested(1.0, 5.0)));
}

#[tracked]
fn writes(v: Vec<f64>, x: f64) -> f64 {
    let mut w = v;
    w[0] = x;
    w[0] + w[1]
}

#[test]
fn a_write_of_a_dynamic_value_into_memory_is_refused() {
    let trace = track(writes, (vec![1.0, 2.0], 3.0));
    let e = Program::from_trace(&trace, &[Static, Dynamic]).unwrap_err();
    assert!(matches!(e, ReplayError::Unsupported { .. }), "{e}");
    assert!(
        e.to_string().contains("w[0] =") || e.to_string().contains("memory"),
        "{e}"
    );
    // Static, the write is part of the recorded path: folded.
    let p = Program::from_trace(&trace, &[Static, Static]).unwrap();
    assert_eq!(p.call((vec![1.0, 2.0], 3.0)).unwrap().as_f64(), Some(5.0));
}

#[tracked]
fn closure_capture(x: f64) -> f64 {
    let k = x * 2.0;
    let f = |y: f64| y * k;
    f(1.0)
}

#[tracked]
fn closure_argument(x: f64) -> f64 {
    let f = |y: f64| y * 2.0;
    f(x) + 1.0
}

#[tracked]
fn closure_assigning_its_capture(x: f64) -> f64 {
    let mut k = x * 2.0;
    let mut f = |y: f64| {
        k += y;
        k
    };
    f(1.0)
}

/// A captured value links to the enclosing function's node for it (2026-11-27: a program
/// refused every capture of a dynamic value), unless the closure assigns to it.
#[test]
fn closures_replay_unless_they_assign_their_captures() {
    let trace = track(closure_capture, (1.5,));
    let p = Program::from_trace(&trace, &[Dynamic]).unwrap();
    assert_eq!(p.call((4.0,)).unwrap().as_f64(), Some(closure_capture(4.0)));
    let trace = track(closure_assigning_its_capture, (1.5,));
    let e = Program::from_trace(&trace, &[Dynamic]).unwrap_err();
    assert!(e.to_string().contains("captured"), "{e}");
    let trace = track(closure_argument, (1.5,));
    let p = Program::from_trace(&trace, &[Dynamic]).unwrap();
    assert_eq!(p.call((4.0,)).unwrap().as_f64(), Some(9.0));
}

#[tracked]
#[allow(clippy::match_overlapping_arm)]
fn matches(k: i32, x: f64) -> f64 {
    match k {
        0 if x > 1.0 => x,
        0 => -x,
        _ => x * 10.0,
    }
}

#[test]
fn a_match_on_a_dynamic_value_checks_its_pattern_and_an_arm_guard_is_a_guard() {
    let trace = track(matches, (0, 2.0));
    // `k` dynamic: the taken arm's pattern `0` and its guard are both checked (since
    // 2026-11-28; it was refused).
    let p = Program::from_trace(&trace, &[Dynamic, Dynamic]).unwrap();
    assert_eq!(p.call((0, 5.0)).unwrap().as_f64(), Some(5.0));
    for (k, x) in [(1, 5.0), (0, 0.5)] {
        let e = p.call((k, x)).unwrap_err();
        assert!(matches!(e, ReplayError::Guard { .. }), "{e}");
    }
    // The second arm, after the first's guard failed: whether that guard ran depends on the
    // first pattern, so the path is refused.
    let e = Program::from_trace(&track(matches, (0, 0.5)), &[Dynamic, Dynamic]).unwrap_err();
    assert!(e.to_string().contains("match"), "{e}");
    // `k` static: the arm's guard `x > 1.0` decided the path, so it is checked.
    let p = Program::from_trace(&trace, &[Static, Dynamic]).unwrap();
    assert_eq!(p.call((0, 5.0)).unwrap().as_f64(), Some(5.0));
    let e = p.call((0, 0.5)).unwrap_err();
    assert!(matches!(e, ReplayError::Guard { .. }), "{e}");
}

#[tracked]
fn int_ops(a: i32, b: i32) -> i32 {
    a * b + 1
}

#[test]
fn overflow_on_new_values_is_an_error_not_a_wrapped_number() {
    let p = Program::from_trace(&track(int_ops, (3, 4)), &[Dynamic, Dynamic]).unwrap();
    assert_eq!(p.call((5, 6)).unwrap().downcast_ref::<i32>(), Some(&31));
    let e = p.call((i32::MAX, 2)).unwrap_err();
    assert!(matches!(e, ReplayError::Eval { .. }), "{e}");
}

// autoform's `inspectable`: a checkpoint recorded once, collected when the program runs later.
#[tracked]
fn inspectable(x: f64, n: i32) -> f64 {
    let mut acc = 0.0;
    for i in 0..n {
        let term = checkpoint(x * i as f64, "term", "debug");
        acc += term;
    }
    checkpoint(acc, "total", "debug")
}

#[test]
fn checkpoints_are_collected_and_injected_in_plain_tracked_and_replayed_code() {
    // Plain.
    let (out, seen) = collect("debug", || inspectable(2.0, 3));
    assert_eq!(out, 6.0);
    let terms: Vec<f64> = seen["term"].iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(terms, [0.0, 2.0, 4.0]);
    // Another collection sees nothing.
    let (_, other) = collect("other", || inspectable(2.0, 3));
    assert!(other.is_empty());
    // Tracked, with an injected value: the trace records what the checkpoint returned.
    let values = Checkpoints::from([("term", vec![Value::snapshot(10.0), Value::snapshot(20.0)])]);
    let trace = inject("debug", values.clone(), || track(inspectable, (2.0, 3)));
    assert_eq!(trace.root().value::<f64>(), Some(&34.0));
    // Replayed: the program built outside any `collect` runs its checkpoints at every call.
    let trace = track(inspectable, (1.0, 3));
    let p = Program::from_trace(&trace, &[Dynamic, Static]).unwrap();
    let (out, seen) = collect("debug", || p.call((5.0, 3)).unwrap());
    assert_eq!(out.as_f64(), Some(15.0));
    let terms: Vec<f64> = seen["term"].iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(terms, [0.0, 5.0, 10.0]);
    assert_eq!(seen["total"][0].as_f64(), Some(15.0));
    let out = inject("debug", values, || p.call((5.0, 3)).unwrap());
    assert_eq!(out.as_f64(), Some(40.0));
    // With every input static, the checkpoints still run.
    let p = Program::from_trace(&trace, &[Static, Static]).unwrap();
    let (_, seen) = collect("debug", || p.call((1.0, 3)).unwrap());
    assert_eq!(seen["term"].len(), 3);
}

#[tracked]
fn mixed(x: f64, y: f64, k: i64, m: i32) -> f64 {
    let a = (x * y - x / (y + 0.5)).sin() + x.abs().sqrt() * y.cos();
    let b = x.max(y).powi(m) + x.atan2(y) - (-y).exp().ln_1p();
    let c = (k * 3 - 7) as f64 + (m + 2) as f64 * 0.5;
    if a > b {
        a * c - x.hypot(y)
    } else {
        b / (c + 1.0) + (x % 2.5)
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// The compiled form of a scalar program and the general evaluator agree, bit for bit,
    /// on results and on which error.
    #[test]
    fn the_compiled_form_agrees_with_the_interpreter(
        x in -5.0f64..5.0, y in -5.0f64..5.0, k in -1000i64..1000, m in -3i32..4,
    ) {
        let trace = track(mixed, (1.0, 2.0, 3, 2));
        let p = Program::from_trace(&trace, &[Dynamic, Dynamic, Dynamic, Dynamic]).unwrap();
        let fast = p.call((x, y, k, m));
        let slow = p.call_interpreted((x, y, k, m));
        match (&fast, &slow) {
            (Ok(a), Ok(b)) => {
                proptest::prop_assert!(a.same_scalar(b), "{a} vs {b}");
                let want = mixed(x, y, k, m);
                proptest::prop_assert!(a.as_f64().is_some_and(|v| v.to_bits() == want.to_bits() || v.is_nan() && want.is_nan()));
            }
            (Err(a), Err(b)) => proptest::prop_assert_eq!(a, b),
            _ => proptest::prop_assert!(false, "{fast:?} vs {slow:?}"),
        }
    }
}

/// `h`'s loop of powers: its gradient program is a slope `i · x^(i-1)` per term, which the
/// `f64` form fuses into one instruction each; `3.0 * x.powi(3)` read twice is not fused.
#[tracked]
fn powers(x: f64, n: i32) -> f64 {
    let c = 3.0 * x.powi(3);
    h(x, n) + c * c + c
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// The fused slopes of `powi` give, bit for bit, what the interpreter gives, and the
    /// gradient of the function (checked against its closed form).
    #[test]
    fn fused_powers_agree_with_the_interpreter(x in -3.0f64..3.0, n in 0i32..12) {
        let p = Program::from_trace(&track(powers, (1.5, n)), &[Dynamic, Static]).unwrap();
        let r = irtrack::diff::reverse(&p, 0).unwrap();
        let d = irtrack::diff::differentiate(&p, &[0]).unwrap();
        for q in [&r, &d] {
            proptest::prop_assert_eq!(q.compiled_form(), "f64 lanes", "{}", q);
        }
        for x in [x, 0.0, -0.0, 1e-200, 1e200] {
            let fast = r.call((x, n, 1.0)).unwrap();
            let slow = r.call_interpreted((x, n, 1.0)).unwrap();
            proptest::prop_assert!(fast.same_scalar(&slow), "{fast} vs {slow} at {x}");
            let fast = d.call((x, n, 1.0)).unwrap();
            let slow = d.call_interpreted((x, n, 1.0)).unwrap();
            proptest::prop_assert!(fast.same_scalar(&slow), "{fast} vs {slow} at {x}");
        }
        let g = r.call((x, n, 1.0)).unwrap().as_f64().unwrap();
        let c = 3.0 * x.powi(3);
        let want = (1..n).map(|i| f64::from(i) * x.powi(i - 1)).sum::<f64>() + (2.0 * c + 1.0) * 9.0 * x * x;
        proptest::prop_assert!((g - want).abs() <= 1e-9 * want.abs().max(1.0), "{g} vs {want}");
    }
}

/// A sum of terms with a slope each: the gradient program sums `times(cotangent, slope)`
/// over the terms, and the primal's own sum is computed between the terms (`r += …`).
#[tracked]
fn weighted_powers(x: f64, n: i32) -> f64 {
    let mut r = 0.0;
    let mut i = 1;
    while i < n {
        r += (x * f64::from(i)).sin() * x.powi(i);
        i += 1;
    }
    r
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// The `f64` form runs chains of sums as loops (a primal's `r += x.powi(i)`, a gradient's
    /// `g += times(d, slope)`, gathered where other instructions were written between them):
    /// bit for bit the interpreter's results, with a zero cotangent absorbing an infinite
    /// slope and its limit checked as the interpreter checks it, and the closed forms.
    #[test]
    fn chains_of_sums_agree_with_the_interpreter(x in -3.0f64..3.0, n in 1i32..14, d in -2.0f64..2.0) {
        let mut programs = Vec::new();
        for p in [
            Program::from_trace(&track(h, (1.5, n)), &[Dynamic, Static]).unwrap(),
            Program::from_trace(&track(weighted_powers, (1.5, n)), &[Dynamic, Static]).unwrap(),
        ] {
            programs.push(irtrack::diff::reverse(&p, 0).unwrap());
            programs.push(p);
        }
        for (k, q) in programs.iter().enumerate() {
            proptest::prop_assert_eq!(q.compiled_form(), "f64 lanes", "{}", q);
            // The gradient programs take the cotangent after the function's arguments.
            let args = |x: f64, d: f64| match k % 2 {
                0 => vec![Value::snapshot(x), Value::snapshot(n), Value::snapshot(d)],
                _ => vec![Value::snapshot(x), Value::snapshot(n)],
            };
            for (x, d) in [(x, d), (x, 0.0), (1e200, 0.0), (1e200, d), (f64::INFINITY, 0.0), (-0.0, d), (f64::NAN, d)] {
                let fast = q.call(args(x, d));
                let slow = q.call_interpreted(args(x, d));
                proptest::prop_assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{} at {}", q, x);
            }
        }
        let g = programs[0].call((x, n, d)).unwrap().as_f64().unwrap();
        let want = d * (1..n).map(|i| f64::from(i) * x.powi(i - 1)).sum::<f64>();
        proptest::prop_assert!((g - want).abs() <= 1e-9 * want.abs().max(1.0), "{g} vs {want}");
    }
}

/// A bisection of 200 steps: its derivative programs have more guards than registers.
#[tracked]
fn cube_root_by_halving(a: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 10.0);
    let mut i = 0;
    while i < 200 {
        let m = 0.5 * (lo + hi);
        if m * m * m - a > 0.0 {
            hi = m
        } else {
            lo = m
        }
        i += 1;
    }
    0.5 * (lo + hi)
}

/// The `f64` form read a guard's number as a register: a derivative program with more guards
/// than registers, run first on a thread (whose register file was still empty), panicked with
/// an index out of bounds (a tester, 2026-11-28). It answers as the interpreter does.
#[test]
fn a_guard_number_is_not_a_register() {
    let p = Program::from_trace(&track(cube_root_by_halving, (2.0,)), &[Dynamic]).unwrap();
    for q in [
        irtrack::diff::differentiate(&p, &[0]).unwrap(),
        irtrack::diff::reverse(&p, 0).unwrap(),
    ] {
        assert_eq!(q.compiled_form(), "f64 lanes");
        let slow = format!("{:?}", q.call_interpreted((2.0, 1.0)));
        let fast = std::thread::spawn(move || format!("{:?}", q.call((2.0, 1.0))))
            .join()
            .expect("no panic");
        assert_eq!(fast, slow);
    }
}

/// No branch on the inputs and no integer input: every value of its programs is an `f64`.
#[tracked]
fn smooth(x: f64, y: f64, m: i32) -> f64 {
    let a = (x * y - x / (y + 0.5)).sin() + x.abs().sqrt() * y.cos();
    let b = x.max(y).powi(m) + x.atan2(y) - (-y).exp().ln_1p() + (x % 2.5) - (-x).tanh();
    a * b - x.hypot(y) / (1.0 + a * a)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// The `f64` form of a program and of its derivative programs (with `times`, `over` and
    /// `powi` by constant exponents) agrees with the general evaluator bit for bit, and the
    /// program with the function.
    #[test]
    fn the_f64_form_agrees_with_the_interpreter(x in -5.0f64..5.0, y in -5.0f64..5.0, m in -3i32..4) {
        let trace = track(smooth, (1.0, 2.0, m));
        let p = Program::from_trace(&trace, &[Dynamic, Dynamic, Static]).unwrap();
        let d = irtrack::diff::differentiate(&p, &[0, 1]).unwrap();
        let r = irtrack::diff::reverse(&p, 1).unwrap();
        for q in [&p, &d, &r] {
            proptest::prop_assert_eq!(q.compiled_form(), "f64 lanes", "{}", q);
        }
        let same = |a: Value, b: Value| a.same_scalar(&b);
        let fast = p.call((x, y, m)).unwrap();
        let want = smooth(x, y, m);
        proptest::prop_assert!(fast.as_f64().is_some_and(|v| v.to_bits() == want.to_bits() || v.is_nan() && want.is_nan()));
        proptest::prop_assert!(same(fast, p.call_interpreted((x, y, m)).unwrap()));
        let args = (x, y, m, 0.5, -1.5);
        proptest::prop_assert!(same(d.call(args).unwrap(), d.call_interpreted(args).unwrap()));
        let args = (x, y, m, 1.0);
        proptest::prop_assert!(same(r.call(args).unwrap(), r.call_interpreted(args).unwrap()));
    }

    /// With guards: the recorded branch is replayed on bare `f64`s, and a point that takes the
    /// other branch is the same guard error.
    #[test]
    fn the_f64_form_checks_guards_as_the_interpreter(x in -5.0f64..5.0, y in -5.0f64..5.0) {
        let p = Program::from_trace(&track(branchy, (1.0, 2.0)), &[Dynamic, Dynamic]).unwrap();
        proptest::prop_assert_eq!(p.compiled_form(), "f64 lanes");
        proptest::prop_assert!(p.guards() > 0);
        match (p.call((x, y)), p.call_interpreted((x, y))) {
            (Ok(a), Ok(b)) => {
                proptest::prop_assert!(a.same_scalar(&b));
                proptest::prop_assert_eq!(a.as_f64(), Some(branchy(x, y)));
            }
            (Err(a), Err(b)) => {
                proptest::prop_assert_eq!(&a, &b);
                proptest::prop_assert!(matches!(a, ReplayError::Guard { .. }), "{}", a);
            }
            (a, b) => proptest::prop_assert!(false, "{a:?} vs {b:?}"),
        }
    }
}

#[tracked]
fn branchy(x: f64, y: f64) -> f64 {
    let d = x - y;
    if d < 0.0 {
        d * d
    } else if x * y >= 1.0 {
        x.ln_1p() + y
    } else {
        d.sqrt()
    }
}

#[test]
fn integer_overflow_is_the_same_error_compiled_or_interpreted() {
    let p = Program::from_trace(&track(mixed, (1.0, 2.0, 3, 2)), &[Dynamic; 4]).unwrap();
    let fast = p.call((1.0, 2.0, i64::MAX, 2)).unwrap_err();
    let slow = p.call_interpreted((1.0, 2.0, i64::MAX, 2)).unwrap_err();
    assert_eq!(fast, slow);
    assert!(matches!(fast, ReplayError::Eval { .. }), "{fast}");
}

/// A closure passed to an untracked call (`map`) may capture a dynamic input; the trace does
/// not record the closure, so a program would fold the call into its recorded value and replay
/// it at every input (found by the differential tester's `vjp` check: `vjp` was 0, truth 2).
#[tracked]
fn captured_by_map(n: i64, x: f64) -> f64 {
    (0..n).map(|_| x).sum::<f64>() + x
}

#[test]
fn a_call_taking_a_closure_is_refused_when_an_input_is_dynamic() {
    let trace = track(captured_by_map, (2, -4.0));
    let e = Program::from_trace(&trace, &[Static, Dynamic]).unwrap_err();
    assert!(
        matches!(&e, ReplayError::Unsupported { reason, .. } if reason.contains("closure")),
        "{e}"
    );
    let e = irtrack::diff::vjp(captured_by_map, (2, -4.0), 1.0).unwrap_err();
    assert!(e.to_string().contains("closure"), "{e}");
    // With every input static nothing can change: the program is the recorded value.
    let p = Program::from_trace(&trace, &[Static, Static]).unwrap();
    assert_eq!(p.call((2i64, -4.0)).unwrap().as_f64(), Some(-12.0));
}

#[tracked]
fn softplus_model(x: f64) -> f64 {
    let a = softplus(x);
    a * 2.0 + x
}

/// A registered operation whose result a context replaced: the program of that trace ran the
/// function again and lost the replacement (2.43 where the trace says 200.48; found
/// 2026-11-27 by an adversarial run). Now the node is not re-executable, and says why.
#[test]
fn a_replaced_result_of_a_registered_operation_is_not_replayed() {
    irtrack::register_operation(softplus);
    struct Hundred;
    impl irtrack::Context for Hundred {
        fn before_call(&self, call: &irtrack::Call<'_>) -> irtrack::Action {
            match call.name {
                "softplus" => irtrack::Action::Replace(irtrack::Value::snapshot(100.0f64)),
                _ => irtrack::Action::Run,
            }
        }
    }
    let trace = irtrack::track_with(Hundred, softplus_model, (0.5,));
    assert_eq!(trace.root().value::<f64>(), Some(&200.5));
    let e = Program::from_trace(&trace, &[Input::Dynamic]).unwrap_err();
    // (Named by the replacement itself since the node is flagged replaced, 2026-11-27.)
    let text = e.to_string();
    assert!(
        text.contains("another result") || text.contains("replaced its result"),
        "{e}"
    );
    // Without the replacement the same function replays.
    let p = Program::from_trace(&track(softplus_model, (0.5,)), &[Input::Dynamic]).unwrap();
    assert_eq!(p.call((1.0,)).unwrap().as_f64(), Some(softplus_model(1.0)));
}

// ---- Match guards (found 2026-11-27 by the third adversarial round): the arm's branch records
// only its pattern, so a guard that decided the arm was checked only when its condition was a
// boolean nothing else referred to. A guard on a value used elsewhere, a guard calling a tracked
// function, and a guard with `&&` replayed the recorded arm at inputs taking the other one (1.0
// where the function gives 100.5). The guard is now a node of its own (`$(guard)(%c)`), checked
// like a branch's condition; a guard with control flow of its own, which runs unrecorded, is
// refused in a program with dynamic inputs.

#[tracked]
fn guard_on_a_used_bool(k: i32, x: f64) -> f64 {
    let big = x > 1.0;
    let r = match k {
        0 if big => x * 2.0,
        _ => x + 100.0,
    };
    r + big as i32 as f64
}

#[tracked]
fn is_big(x: f64) -> bool {
    x > 1.0
}

#[tracked]
fn guard_calling_tracked(k: i32, x: f64) -> f64 {
    match k {
        0 if is_big(x) => x * 2.0,
        _ => x + 100.0,
    }
}

#[tracked]
fn guard_with_and(k: i32, x: f64) -> f64 {
    match k {
        0 if x > 1.0 && x < 3.0 => x * 2.0,
        _ => x + 100.0,
    }
}

#[test]
fn a_match_guard_that_decided_the_arm_is_checked() {
    for x0 in [2.0, 0.5] {
        let p =
            Program::from_trace(&track(guard_on_a_used_bool, (0, x0)), &[Static, Dynamic]).unwrap();
        assert_eq!(
            p.call((0, x0)).unwrap().as_f64(),
            Some(guard_on_a_used_bool(0, x0))
        );
        let other = 2.5 - x0;
        assert!(
            matches!(p.call((0, other)), Err(ReplayError::Guard { .. })),
            "{x0}"
        );
        let p = Program::from_trace(&track(guard_calling_tracked, (0, x0)), &[Static, Dynamic])
            .unwrap();
        assert_eq!(
            p.call((0, x0)).unwrap().as_f64(),
            Some(guard_calling_tracked(0, x0))
        );
        assert!(p.call((0, other)).is_err(), "{x0}");
    }
    // A guard of `&&` and `||`: each condition that ran is checked (the fourth stop of
    // 2026-11-27; it was refused as unrecorded). At 2 both ran; at 0.5 only the first.
    let p = Program::from_trace(&track(guard_with_and, (0, 2.0)), &[Static, Dynamic]).unwrap();
    assert_eq!(p.call((0, 2.5)).unwrap().as_f64(), Some(5.0));
    for other in [0.5, 3.5] {
        assert!(
            matches!(p.call((0, other)), Err(ReplayError::Guard { .. })),
            "{other}"
        );
    }
    let p = Program::from_trace(&track(guard_with_and, (0, 0.5)), &[Static, Dynamic]).unwrap();
    assert_eq!(p.call((0, -4.0)).unwrap().as_f64(), Some(96.0));
    assert!(matches!(p.call((0, 2.0)), Err(ReplayError::Guard { .. })));
    // A guard with an `if` inside runs unrecorded: refused where an input is dynamic.
    let e = Program::from_trace(&track(guard_with_if, (0, 2.0)), &[Static, Dynamic]).unwrap_err();
    assert!(
        e.to_string().contains("`match` guard with control flow"),
        "{e}"
    );
    // Static throughout, the unrecorded guard is the recorded one.
    let p = Program::from_trace(&track(guard_with_if, (0, 2.0)), &[Static, Static]).unwrap();
    assert_eq!(p.call((0, 2.0)).unwrap().as_f64(), Some(4.0));
}

#[tracked]
fn guard_with_if(k: i32, x: f64) -> f64 {
    match k {
        0 if if x > 1.0 { x < 3.0 } else { false } => x * 2.0,
        _ => x + 100.0,
    }
}

#[test]
fn update_and_retrack_see_a_match_guard() {
    use irtrack::program::{Change, Retracking, Updatable};
    let mut m = Updatable::track(guard_on_a_used_bool, (0, 2.0));
    m.update([Change::argument(1, 0.5)]).unwrap();
    assert_eq!(
        m.trace().root().value::<f64>(),
        Some(&guard_on_a_used_bool(0, 0.5))
    );
    let mut m = Updatable::track(guard_with_and, (0, 2.0));
    m.update([Change::argument(1, 0.5)]).unwrap();
    assert_eq!(
        m.trace().root().value::<f64>(),
        Some(&guard_with_and(0, 0.5))
    );
    let mut r = Retracking::track(guard_calling_tracked, (0, 2.0), &[Static, Dynamic]).unwrap();
    assert_eq!(
        r.call_or_retrack((0, 0.5)).unwrap().as_f64(),
        Some(guard_calling_tracked(0, 0.5))
    );
}

#[tracked]
fn unused_checkpoint(x: f64) -> f64 {
    checkpoint(x, "v", "c");
    let y = checkpoint(x * 2.0, "v", "c");
    y + 1.0
}

/// A checkpoint whose value nothing uses runs at every call of a program too (found
/// 2026-11-27 by the third adversarial round): it was removed as dead code, so the second
/// checkpoint took the first injected value (11 where the function gives 21) and `collect` saw
/// one "v" of two.
#[test]
fn an_unused_checkpoint_still_runs() {
    let values = || Checkpoints::from([("v", vec![Value::snapshot(10.0), Value::snapshot(20.0)])]);
    let want = inject("c", values(), || unused_checkpoint(1.0));
    assert_eq!(want, 21.0);
    let p = Program::from_trace(&track(unused_checkpoint, (1.0,)), &[Dynamic]).unwrap();
    let got = inject("c", values(), || p.call((1.0,))).unwrap();
    assert_eq!(got.as_f64(), Some(want));
    let (_, seen) = collect("c", || p.call((3.0,)).unwrap());
    let (_, plain) = collect("c", || unused_checkpoint(3.0));
    let floats = |vs: &[Value]| vs.iter().map(|v| v.as_f64()).collect::<Vec<_>>();
    assert_eq!(floats(seen.get("v")), floats(plain.get("v")));
    assert_eq!(plain.get("v").len(), 2);
}

#[tracked]
fn checked_sqrt(x: f64) -> f64 {
    assert!(x >= 0.0, "x must be nonnegative, got {x}");
    debug_assert!(x.is_finite());
    assert_ne!(x, 1.0);
    x.sqrt()
}

/// An assertion's condition is checked where a program replays the path (found 2026-11-27 by
/// the third adversarial round: recorded at 4 and replayed at -1, the program returned NaN
/// where the function panics). `assert!`, `assert_eq!`, `assert_ne!` and their `debug_` forms
/// record their condition and a guard of it.
#[test]
fn an_assertion_is_a_guard() {
    assert!(std::panic::catch_unwind(|| checked_sqrt(-1.0)).is_err());
    assert!(std::panic::catch_unwind(|| checked_sqrt(1.0)).is_err());
    let p = Program::from_trace(&track(checked_sqrt, (4.0,)), &[Dynamic]).unwrap();
    assert_eq!(p.call((9.0,)).unwrap().as_f64(), Some(3.0));
    // (`debug_assert!` is compiled out of a release build, in the function as in the trace.)
    let infinite = if cfg!(debug_assertions) {
        f64::INFINITY
    } else {
        1.0
    };
    for x in [-1.0, 1.0, infinite] {
        assert!(
            matches!(p.call((x,)), Err(ReplayError::Guard { .. })),
            "{x}"
        );
    }
    // The gradient is the function's.
    assert_eq!(
        irtrack::gradient(checked_sqrt, (4.0,)).unwrap().scalars(),
        [Some(0.25)]
    );
}

#[tracked]
fn powers_by_path(x: f64) -> f64 {
    f64::powi(x, 3) + f32::powi(x as f32, 2) as f64
}

#[tracked]
fn fnv_step(h: u64, byte: u8) -> u64 {
    ((h ^ byte as u64) >> 1) ^ 0xcbf29ce484222325
}

/// Valid code a program refused (the third adversarial round): the exponent of `f64::powi`
/// called by path was read as an `f64`, and an integer literal above `i64::MAX` was no number.
#[test]
fn powi_by_path_and_wide_literals_replay() {
    let p = Program::from_trace(&track(powers_by_path, (2.0,)), &[Dynamic]).unwrap();
    assert_eq!(p.call((3.0,)).unwrap().as_f64(), Some(powers_by_path(3.0)));
    let p = Program::from_trace(&track(fnv_step, (5, 7)), &[Dynamic, Dynamic]).unwrap();
    let got = p.call((0xdead_beef_u64, 200u8)).unwrap();
    assert_eq!(got.downcast_ref::<u64>(), Some(&fnv_step(0xdead_beef, 200)));
}

// A loop over a dynamic vector's indices (`for i in 0..v.len()`): `v.len()` was no
// re-executable operation, so no program, `jvp` or `hessian` of such a function could be built
// (2026-11-27, a tester). The program keeps the recorded length and each call checks the input
// against it, as a guard at the read: another length takes another path.

#[allow(clippy::needless_range_loop)] // Indexing records each element read.
#[tracked]
fn cubes_by_index(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i] * v[i];
    }
    if v.is_empty() {
        return -1.0;
    }
    s
}

#[test]
fn a_vectors_length_read_by_the_path_is_checked_at_each_call() {
    let p = Program::from_trace(&track(cubes_by_index, (vec![1.0, 2.0],)), &[Dynamic]).unwrap();
    assert_eq!(p.call((vec![3.0, -1.0],)).unwrap().as_f64(), Some(26.0));
    for other in [vec![], vec![1.0], vec![1.0, 2.0, 3.0]] {
        match p.call((other.clone(),)) {
            Err(ReplayError::Guard { condition, .. }) => {
                assert!(condition.contains("len(argument 1) == 2"), "{condition}")
            }
            e => panic!("{other:?}: {e:?}"),
        }
    }
    // Derivative programs keep the check: a longer vector would be read in part.
    let d = irtrack::diff::differentiate(&p, &[0]).unwrap();
    assert_eq!(
        d.call((vec![3.0, -1.0], vec![1.0, 1.0])).unwrap().as_f64(),
        Some(30.0)
    );
    assert!(d.call((vec![3.0, -1.0, 2.0], vec![1.0, 1.0, 1.0])).is_err());
    // `hessian` and `jvp`, against the closed form (6 v_i on the diagonal).
    let h = irtrack::diff::hessian(cubes_by_index, (vec![1.5, -2.0, 0.5],)).unwrap();
    for i in 0..3 {
        for j in 0..3 {
            let want = if i == j {
                6.0 * [1.5, -2.0, 0.5][i]
            } else {
                0.0
            };
            assert_eq!(h[(i, j)], want, "H[{i}][{j}]");
        }
    }
    // A tree of paths grows one per length.
    let mut r =
        irtrack::program::Retracking::track(cubes_by_index, (vec![1.0],), &[Dynamic]).unwrap();
    for v in [
        vec![2.0],
        vec![1.0, 1.0],
        vec![],
        vec![1.0, 2.0, 3.0],
        vec![0.5],
    ] {
        let got = r.call_or_retrack((v.clone(),)).unwrap();
        assert_eq!(got.as_f64(), Some(cubes_by_index(v.clone())), "{v:?}");
    }
}

// Loops over a dynamic vector's elements (`for x in &v`, `for &x in v.iter()`) and
// `v.iter().sum()`: the iterator and its `next`s are no values a program computes, so no
// program, `jvp` or `hessian` of them could be built (2026-11-27, a tester). The path they took
// is told by the vector's length, which each call checks: the `k`-th element bound by the loop
// is read by an index, a sum is the elements' sum in order. Any other use of the iterator or
// of what `next` gave is refused, naming it.

#[tracked]
fn cubes_by_reference(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for x in &v {
        s += x * x * x;
    }
    s
}

#[tracked]
fn sines_by_iterator(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for &x in v.iter() {
        s += x.sin() * x;
    }
    s
}

#[tracked]
fn cubed_sum(v: Vec<f64>) -> f64 {
    v.iter().sum::<f64>().powi(3)
}

#[tracked]
fn first_by_hand(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    let a = it.next().unwrap();
    a * 2.0
}

#[test]
fn loops_over_a_dynamic_vectors_elements_replay() {
    let v = vec![1.0, 2.0, -0.5];
    let w = vec![0.25, -3.0, 1.5];
    macro_rules! replays {
        ($($f:ident),*) => {$({
            let name = stringify!($f);
            let p = Program::from_trace(&track($f, (v.clone(),)), &[Dynamic]).unwrap();
            assert_eq!(p.call((w.clone(),)).unwrap().as_f64(), Some($f(w.clone())), "{name}");
            assert!(matches!(p.call((vec![1.0],)), Err(ReplayError::Guard { .. })), "{name}");
        })*};
    }
    replays!(cubes_by_reference, sines_by_iterator, cubed_sum);
    // Hessians against closed forms.
    let h = irtrack::diff::hessian(cubes_by_reference, (w.clone(),)).unwrap();
    let h2 = irtrack::diff::hessian(sines_by_iterator, (w.clone(),)).unwrap();
    let h3 = irtrack::diff::hessian(cubed_sum, (w.clone(),)).unwrap();
    let total: f64 = w.iter().sum();
    for i in 0..3 {
        for j in 0..3 {
            let x = w[i];
            let diagonal = |d: f64| if i == j { d } else { 0.0 };
            assert_eq!(h[(i, j)], diagonal(6.0 * x), "cubes H[{i}][{j}]");
            let want = diagonal(2.0 * x.cos() - x * x.sin());
            assert!((h2[(i, j)] - want).abs() < 1e-12, "sines H[{i}][{j}]");
            assert!((h3[(i, j)] - 6.0 * total).abs() < 1e-12, "sum H[{i}][{j}]");
        }
    }
    // What `next` gave, used otherwise than bound by a loop: refused, named.
    match Program::from_trace(&track(first_by_hand, (v.clone(),)), &[Dynamic]) {
        Err(ReplayError::Unsupported { reason, .. }) => {
            assert!(reason.contains("element read by `next`"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

// An array has no inherent `len`: a trait's `len` on `[f64; 3]` is found before the slice's, so
// an array's `len` is not folded (a tester's program gave 6 for 4 with a `len` that counts
// nonzero entries); emitted code checks a vector's length as its program does.

trait Nonzeros {
    fn len(&self) -> usize;
}

impl Nonzeros for [f64; 3] {
    fn len(&self) -> usize {
        self.iter().filter(|&&t| t != 0.0).count()
    }
}

#[tracked]
fn weighted_by_nonzeros(v: [f64; 3], x: f64) -> f64 {
    x * v.len() as f64
}

#[test]
fn an_arrays_len_is_not_folded_and_emitted_code_checks_lengths() {
    assert_eq!(weighted_by_nonzeros([1.0, 0.0, 3.0], 2.0), 4.0);
    match Program::from_trace(
        &track(weighted_by_nonzeros, ([1.0, 2.0, 3.0], 2.0)),
        &[Dynamic, Dynamic],
    ) {
        Ok(p) => assert_eq!(
            p.call(([1.0, 0.0, 3.0], 2.0)).ok().and_then(|v| v.as_f64()),
            Some(4.0)
        ),
        Err(e) => assert!(matches!(e, ReplayError::NotReexecutable(_)), "{e:?}"),
    }
    let p = Program::from_trace(&track(cubes_by_index, (vec![1.0, 2.0],)), &[Dynamic]).unwrap();
    let src = irtrack::diff::emit_rust(&p, "cubes").unwrap();
    assert!(src.contains("if x1.len() != 2"), "{src}");
}

// A walk goes on from where it is (a fifth tester, 2026-11-27): a `for` loop over an iterator
// that already gave elements, `&mut it` then `it.next()`, or `it.sum()` after a `next`,
// started again at element 0 (13 for 5, a vjp [2, 2, 0] for [0, 2, 2], a sum 13 for 12); an
// `f32` vector's sum was replayed in `f64`. Iterators made from one share its cursor, a sum
// takes what is left, and only vectors of `f64` are walked.

#[tracked]
fn squares_after_the_first(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    it.next();
    let mut s = 0.0;
    for x in it {
        s += x * x;
    }
    s
}

#[tracked]
fn sum_after_the_first(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    it.next();
    let s: f64 = it.sum();
    s * s
}

#[tracked]
fn first_then_next(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    let mut s = 0.0;
    #[allow(clippy::never_loop)]
    for x in &mut it {
        s += x;
        break;
    }
    #[allow(clippy::never_loop)]
    for y in &mut it {
        s += 100.0 * y;
        break;
    }
    s
}

#[tracked]
fn f32_sum(v: Vec<f32>) -> f64 {
    let s: f32 = v.iter().sum();
    s as f64
}

#[test]
fn a_walk_goes_on_from_where_it_is() {
    // Built where neighbours are equal (a bound element matches at the wrong index too).
    for (build, call) in [
        (vec![1.0, 1.0, 1.0], vec![1.0, 2.0, 3.0]),
        (vec![0.0, 0.0, 0.0], vec![-1.0, 0.5, 4.0]),
    ] {
        macro_rules! replays {
            ($($f:ident),*) => {$({
                let p = Program::from_trace(&track($f, (build.clone(),)), &[Dynamic]).unwrap();
                assert_eq!(
                    p.call((call.clone(),)).unwrap().as_f64(),
                    Some($f(call.clone())),
                    "{} from {build:?}",
                    stringify!($f)
                );
            })*};
        }
        replays!(
            squares_after_the_first,
            sum_after_the_first,
            first_then_next
        );
    }
    // Derivatives at the recorded point: the first element has no slope.
    let g = irtrack::diff::vjp(squares_after_the_first, (vec![1.0, 1.0, 1.0],), 1.0).unwrap();
    assert_eq!(
        g.cotangents[0]
            .as_ref()
            .and_then(|c| c.downcast_ref::<Vec<f64>>()),
        Some(&vec![0.0, 2.0, 2.0])
    );
    let h = irtrack::diff::hessian(sum_after_the_first, (vec![0.0, 1.0, 2.0],)).unwrap();
    for i in 0..3 {
        for j in 0..3 {
            let want = if i > 0 && j > 0 { 2.0 } else { 0.0 };
            assert_eq!(h[(i, j)], want, "H[{i}][{j}]");
        }
    }
    // An `f32` vector is not walked (its elements would be read as `f64`s).
    assert!(Program::from_trace(&track(f32_sum, (vec![1.0f32, 2.0, 3.0],)), &[Dynamic]).is_err());
}

// A sixth tester (2026-11-27): a pattern on what `next` gave that tests the element's value
// (`Some(&1.0)`) was replayed without a guard (the branch taken at recording for any input of
// the same length: 100 for 5), and a user's free function named `into_iter`, `iter` or `sum`
// was replayed as the std's walk (11 for 17). Such a pattern is refused now, naming it, and a
// path call is a walk only by the std fn item's key (or as a `for` loop's own `into_iter`).

#[tracked]
fn zero_first(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    match it.next() {
        Some(&0.0) => 100.0,
        Some(x) => *x,
        None => -1.0,
    }
}

#[tracked]
fn one_first(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    if let Some(&1.0) = it.next() {
        5.0
    } else {
        7.0
    }
}

fn into_iter(v: &[f64]) -> std::iter::Rev<std::slice::Iter<'_, f64>> {
    v.iter().rev()
}

#[tracked]
fn doubling_by_a_users_walk(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for x in into_iter(&v) {
        s = 2.0 * s + x;
    }
    s
}

#[tracked]
fn first_bound(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    match it.next() {
        Some(x) if *x > 0.0 => *x * 2.0,
        Some(x) => -x,
        None => 0.0,
    }
}

#[test]
fn patterns_on_elements_and_users_walks_are_not_taken_for_the_lengths() {
    for (name, r) in [
        (
            "zero_first",
            Program::from_trace(&track(zero_first, (vec![0.0, 1.0],)), &[Dynamic]),
        ),
        (
            "one_first",
            Program::from_trace(&track(one_first, (vec![1.0, 1.0],)), &[Dynamic]),
        ),
    ] {
        match r {
            Err(ReplayError::Unsupported { reason, .. }) => {
                assert!(
                    reason.contains("tests the element's value"),
                    "{name}: {reason}"
                )
            }
            Ok(p) => {
                let got = p.call((vec![5.0, 1.0],)).ok().and_then(|v| v.as_f64());
                panic!("{name}: built, {got:?} at [5, 1]")
            }
            Err(e) => panic!("{name}: {e:?}"),
        }
    }
    // A user's function named like the std's: not the std's walk (refused, or right).
    let build = vec![1.0, 2.0, 1.0];
    match Program::from_trace(&track(doubling_by_a_users_walk, (build,)), &[Dynamic]) {
        Ok(p) => assert_eq!(
            p.call((vec![1.0, 2.0, 3.0],)).ok().and_then(|v| v.as_f64()),
            Some(doubling_by_a_users_walk(vec![1.0, 2.0, 3.0]))
        ),
        Err(e) => assert!(matches!(e, ReplayError::NotReexecutable(_)), "{e:?}"),
    }
    // A name in a pattern outside a `for` loop may be a constant's: refused (see below).
    assert!(Program::from_trace(&track(first_bound, (vec![2.0, 1.0],)), &[Dynamic]).is_err());
}

// A pattern's name may be a constant (`const one: f64 = 1.0;` makes `Some(&one)` test the
// value), which its spelling does not tell: a name counts as a binding only where the trace
// shows it binding the element (a seventh tester, 2026-11-27: 100 for 10).

#[allow(non_upper_case_globals)]
const one: f64 = 1.0;

#[allow(non_upper_case_globals)] // The point: a constant spelled as a binding.
#[tracked]
fn a_constant_named_like_a_binding(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    match it.next() {
        Some(&one) => 100.0,
        Some(x) => *x * 2.0,
        None => -1.0,
    }
}

#[allow(non_upper_case_globals)] // The point: a constant spelled as a binding.
#[tracked]
fn a_constant_not_matched(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    if let Some(&one) = it.next() {
        5.0
    } else {
        v[0] * 3.0
    }
}

#[test]
fn a_name_in_a_pattern_is_a_binding_only_where_the_trace_shows_it() {
    for build in [vec![1.0, 2.0], vec![3.0, 2.0]] {
        for (name, r) in [
            (
                "matched first",
                Program::from_trace(
                    &track(a_constant_named_like_a_binding, (build.clone(),)),
                    &[Dynamic],
                ),
            ),
            (
                "if let",
                Program::from_trace(&track(a_constant_not_matched, (build.clone(),)), &[Dynamic]),
            ),
        ] {
            if let Ok(p) = r {
                for call in [vec![5.0, 2.0], vec![1.0, 2.0]] {
                    let got = p.call((call.clone(),)).ok().and_then(|v| v.as_f64());
                    let want = match name {
                        "matched first" => a_constant_named_like_a_binding(call.clone()),
                        _ => a_constant_not_matched(call.clone()),
                    };
                    assert!(
                        got.is_none() || got == Some(want),
                        "{name} from {build:?} at {call:?}: {got:?} for {want}"
                    );
                }
            }
        }
    }
    // Loops still replay: their pattern binds.
    let p = Program::from_trace(&track(cubes_by_reference, (vec![1.0, 2.0],)), &[Dynamic]).unwrap();
    assert_eq!(p.call((vec![2.0, 3.0],)).unwrap().as_f64(), Some(35.0));
}

// Even `None` may be a constant's name (an eighth tester, 2026-11-27): `const None:
// Option<&f64> = Some(&1.0)` makes `None =>` test the value. A taken `None` is read by the
// length only where `next` was past the end.

#[allow(non_upper_case_globals)] // The point: a constant named `None`.
#[tracked]
fn none_shadowed(v: Vec<f64>) -> f64 {
    const None: Option<&'static f64> = Some(&1.0);
    let mut it = v.iter();
    match it.next() {
        None => 100.0,
        _ => v[0] * 2.0,
    }
}

#[tracked]
fn one_or_none(v: Vec<f64>) -> f64 {
    let mut it = v.iter();
    it.next();
    match it.next() {
        Some(_) => v[1] * 2.0,
        None => v[0],
    }
}

#[test]
fn a_none_pattern_is_read_by_the_length_only_past_the_end() {
    for build in [vec![2.0, 3.0], vec![1.0, 3.0]] {
        if let Ok(p) = Program::from_trace(&track(none_shadowed, (build.clone(),)), &[Dynamic]) {
            for call in [vec![1.0, 3.0], vec![2.0, 3.0]] {
                let got = p.call((call.clone(),)).ok().and_then(|v| v.as_f64());
                let want = none_shadowed(call.clone());
                assert!(
                    got.is_none() || got == Some(want),
                    "{build:?} at {call:?}: {got:?} for {want}"
                );
            }
        }
    }
    // A real `None` past the end, and `Some(_)`: replayed.
    let p = Program::from_trace(&track(one_or_none, (vec![4.0],)), &[Dynamic]).unwrap();
    assert_eq!(p.call((vec![7.0],)).unwrap().as_f64(), Some(7.0));
    let p = Program::from_trace(&track(one_or_none, (vec![4.0, 5.0],)), &[Dynamic]).unwrap();
    assert_eq!(p.call((vec![7.0, 1.5],)).unwrap().as_f64(), Some(3.0));
}

/// A layer over a vector read element by element (`x.len()` folded and checked), and a
/// function reading a vector at fixed indices only (a longer vector is fine, a shorter one an
/// index out of bounds).
#[tracked]
fn layer(x: &[f64], b: f64) -> f64 {
    let mut total = 0.0;
    let mut j = 0;
    while j < 3 {
        let mut s = b;
        let mut i = 0;
        while i < x.len() {
            s += (0.3 * (i + j) as f64 - 0.4) * x[i];
            i += 1;
        }
        total += s.tanh();
        j += 1;
    }
    total
}

#[tracked]
fn corners(x: Vec<f64>, k: i32) -> f64 {
    x[0].powi(k) * x[2] + x[1] * x[0]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// Programs of vectors read by elements, and their gradient programs ending in an
    /// `index_add`, run on `f64` registers: the elements are registers loaded at the call.
    /// Bit for bit the interpreter's results and errors (shorter and longer vectors
    /// included), and the gradients' closed forms.
    #[test]
    fn vectors_read_by_elements_run_compiled(
        x in proptest::collection::vec(-2.0f64..2.0, 2..6), b in -1.0f64..1.0, k in 1i32..4,
    ) {
        fn same(q: &Program, args: impl irtrack::program::Args + Clone) -> Result<Result<Value, ReplayError>, proptest::test_runner::TestCaseError> {
            let (fast, slow) = (q.call(args.clone()), q.call_interpreted(args));
            proptest::prop_assert_eq!(format!("{fast:?}"), format!("{slow:?}"));
            Ok(fast)
        }
        let p = Program::from_trace(&track(layer, (&[0.5, -1.0, 2.0][..], 0.1)), &[Dynamic, Dynamic]).unwrap();
        let g = irtrack::diff::reverse(&p, 0).unwrap();
        let d = irtrack::diff::differentiate(&p, &[0, 1]).unwrap();
        for q in [&p, &g, &d] {
            proptest::prop_assert_eq!(q.compiled_form(), "f64 lanes", "{}", q);
        }
        let got = same(&g, (&x[..], b, 1.0))?;
        let _ = same(&d, (&x[..], b, &x[..], 0.5))?;
        if x.len() == 3 {
            // ∂/∂x_i Σ_j tanh(b + Σ_i a_ij x_i) = Σ_j a_ij (1 - tanh²(s_j)).
            let a = |i: usize, j: usize| 0.3 * (i + j) as f64 - 0.4;
            let s: Vec<f64> = (0..3).map(|j| b + (0..3).map(|i| a(i, j) * x[i]).sum::<f64>()).collect();
            let got = got.unwrap();
            let got = got.floats().unwrap();
            for i in 0..3 {
                let want: f64 = (0..3).map(|j| a(i, j) * (1.0 - s[j].tanh().powi(2))).sum();
                proptest::prop_assert!((got[i] - want).abs() < 1e-12, "{} vs {want}", got[i]);
            }
        } else {
            let guard = matches!(got, Err(ReplayError::Guard { .. }));
            proptest::prop_assert!(guard, "{got:?}");
        }

        let p = Program::from_trace(&track(corners, (vec![1.5, 2.0, 3.0], k)), &[Dynamic, Static]).unwrap();
        let g = irtrack::diff::reverse(&p, 0).unwrap();
        proptest::prop_assert_eq!(g.compiled_form(), "f64 lanes", "{}", g);
        let got = same(&g, (x.clone(), k, 1.0))?;
        if x.len() >= 3 {
            let got = got.unwrap();
            let got = got.floats().unwrap();
            let kf = f64::from(k);
            let want = [kf * x[0].powi(k - 1) * x[2] + x[1], x[0], x[0].powi(k)];
            proptest::prop_assert_eq!(got.len(), x.len());
            for i in 0..x.len() {
                let w = want.get(i).copied().unwrap_or(0.0);
                proptest::prop_assert!((got[i] - w).abs() <= 1e-12 * w.abs().max(1.0), "{i}: {} vs {w}", got[i]);
            }
        }
    }
}

#[tracked]
fn compares_wide(a: u64, b: u64, x: f64) -> f64 {
    if a > b {
        x * 2.0
    } else {
        x
    }
}

/// `u64`s past `i64::MAX` compare in the compiled form as in the interpreter (it refused them
/// as an operation without a value, where the interpreter gave the branch).
#[test]
fn wide_unsigned_comparisons_run_compiled() {
    let p = Program::from_trace(
        &track(compares_wide, (3u64, 1u64, 1.0)),
        &[Dynamic, Dynamic, Dynamic],
    )
    .unwrap();
    assert_eq!(p.compiled_form(), "scalars");
    for (a, b) in [(u64::MAX, 3), (u64::MAX, u64::MAX - 1), (1u64 << 63, 5)] {
        let fast = p.call((a, b, 1.5)).unwrap();
        let slow = p.call_interpreted((a, b, 1.5)).unwrap();
        assert!(fast.same_scalar(&slow), "{fast} vs {slow}");
        assert_eq!(fast.as_f64(), Some(compares_wide(a, b, 1.5)));
    }
    for (a, b) in [(3, u64::MAX), (u64::MAX, u64::MAX)] {
        assert_eq!(
            p.call((a, b, 1.5)).err(),
            p.call_interpreted((a, b, 1.5)).err()
        );
        assert!(matches!(
            p.call((a, b, 1.5)),
            Err(ReplayError::Guard { .. })
        ));
    }
}

#[tracked]
fn product_of_slice(v: &[f64]) -> f64 {
    v[0] * v[1] + v[1]
}

/// An array passed on as a slice (a tester, 2026-11-27): the callee's argument (`&[f64]`) was
/// compared with the array recorded (`[f64; 2]`) by type, found different, and the program,
/// `jvp`, `vjp` and `hessian` refused it as changed in between.
#[tracked]
fn array_as_slice(x: f64) -> f64 {
    let v = [2.0, x];
    product_of_slice(&v)
}

#[test]
fn an_array_passed_as_a_slice_replays() {
    let p = Program::from_trace(&track(array_as_slice, (1.5,)), &[Dynamic]).unwrap();
    for x in [2.5, -1.0, 0.0] {
        assert_eq!(p.call((x,)).unwrap().as_f64(), Some(array_as_slice(x)));
    }
    let j = irtrack::diff::jvp(array_as_slice, (1.5,), (1.0,)).unwrap();
    assert_eq!(j.tangent.as_f64(), Some(3.0));
}

/// A closure given straight to `track` (or to `hessian`, `jvp`) captured what it captured
/// before the recording began: it depends on none of the closure's arguments, the program's
/// inputs, and is a constant of the program (it was refused as "the trace does not say whether
/// it depends on a dynamic input"; found 2026-11-28 by an adversarial run).
#[test]
fn a_root_closures_captures_are_constants() {
    let a = 3.0;
    let f = irtrack::tracked_fn!(move |x: f64| a * x * x + x);
    let p = Program::from_trace(&track(f, (2.0,)), &[Input::Dynamic]).unwrap();
    assert_eq!(p.call((5.0,)).unwrap().as_f64(), Some(3.0 * 25.0 + 5.0));
    let h = irtrack::diff::hessian(f, (2.0,)).unwrap();
    assert_eq!(h[(0, 0)], 2.0 * a);
    let j = irtrack::diff::jvp(f, (2.0,), (1.0,)).unwrap();
    assert_eq!(j.tangent.as_f64(), Some(2.0 * a * 2.0 + 1.0));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// A dense layer's programs run their dot products and the gradient's transposed product
    /// as loops over registers (`program/lanes.rs`, runs of fused products): bit for bit the
    /// interpreter's, and the gradient the closed form's.
    #[test]
    fn dense_layers_run_their_products_as_loops(
        x in proptest::collection::vec(-1.0f64..1.0, 9),
        seed in 0u64..1000,
    ) {
        let w: Vec<Vec<f64>> = (0..7)
            .map(|j| (0..9).map(|i| ((seed + 13 * j + 5 * i) as f64 * 0.618).sin()).collect())
            .collect();
        let x0 = [0.25; 9];
        let p = Program::from_trace(&track(common::dense, (&w[..], &x0[..])), &[Static, Dynamic]).unwrap();
        let g = irtrack::diff::reverse(&p, 1).unwrap();
        for q in [&p, &g] {
            proptest::prop_assert_eq!(q.compiled_form(), "f64 lanes", "{}", q);
        }
        let fast = p.call((&w[..], &x[..])).unwrap();
        let slow = p.call_interpreted((&w[..], &x[..])).unwrap();
        proptest::prop_assert_eq!(format!("{fast:?}"), format!("{slow:?}"));
        proptest::prop_assert_eq!(fast.as_f64(), Some(common::dense(&w, &x)));
        let fast = g.call((&w[..], &x[..], 1.0)).unwrap();
        let slow = g.call_interpreted((&w[..], &x[..], 1.0)).unwrap();
        proptest::prop_assert_eq!(format!("{fast:?}"), format!("{slow:?}"));
        let got = fast.floats().unwrap();
        let s: Vec<f64> = w.iter().map(|row| row.iter().zip(&x).map(|(a, b)| a * b).sum()).collect();
        for i in 0..9 {
            let want: f64 = (0..7).map(|j| w[j][i] * (1.0 - s[j].tanh().powi(2))).sum();
            proptest::prop_assert!((got[i] - want).abs() < 1e-12, "{} vs {want}", got[i]);
        }
    }
}

#[tracked]
fn sign_of_an_affine(w: f64, x: f64, y: f64) -> f64 {
    1.0f64.copysign(w * x + y)
}

/// A product fused into the sum that reads it keeps the sum's operand order (with two NaNs,
/// `0 · ∞` and a NaN argument, x86 gives the first one's sign, which `copysign` shows). Rust
/// leaves a NaN's sign unspecified, and an optimising build may commute the sum: there only the
/// NaN is checked.
#[test]
fn a_fused_product_keeps_its_sums_operand_order() {
    let p = Program::from_trace(
        &track(sign_of_an_affine, (2.0, 3.0, 1.0)),
        &[Dynamic, Dynamic, Dynamic],
    )
    .unwrap();
    for args in [
        (0.0, f64::INFINITY, f64::NAN),
        (0.0, f64::INFINITY, -f64::NAN),
        (2.0, 3.0, 1.0),
    ] {
        let fast = p.call(args).unwrap().as_f64().unwrap();
        let slow = p.call_interpreted(args).unwrap().as_f64().unwrap();
        let plain = sign_of_an_affine(args.0, args.1, args.2);
        if cfg!(debug_assertions) || !args.2.is_nan() {
            assert_eq!(fast.to_bits(), slow.to_bits(), "{args:?}");
            assert_eq!(fast.to_bits(), plain.to_bits(), "{args:?}");
        }
    }
}

const ESCAPED_KEY: &str = "plain\tkey\u{e9}\"";

#[tracked]
fn keyed_by_a_const(x: f64) -> f64 {
    let y = checkpoint(x * 2.0, ESCAPED_KEY, "c");
    y + 1.0
}

/// A checkpoint keyed by a `const K: &str` (recorded as its `Debug` text, where its type may be
/// open) is matched by the string it is, escapes included; its program was refused at every
/// call ("recorded as `\"plainkey\"`, not as a string"; a tester, 2026-11-28).
#[test]
fn a_checkpoint_keyed_by_a_const_str_replays() {
    let p = Program::from_trace(&track(keyed_by_a_const, (1.0,)), &[Dynamic]).unwrap();
    assert_eq!(p.call((2.0,)).unwrap().as_f64(), Some(5.0));
    let values = Checkpoints::from([(ESCAPED_KEY, vec![Value::snapshot(100.0)])]);
    assert_eq!(
        inject("c", values.clone(), || p.call((2.0,)))
            .unwrap()
            .as_f64(),
        Some(101.0)
    );
    assert_eq!(inject("c", values, || keyed_by_a_const(2.0)), 101.0);
}

#[tracked]
fn repeat(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    while i < n {
        s += x;
        i += 1;
    }
    s
}

/// A static argument given as another type (a tuple's literal `3` is an `i32`) says which type
/// to give; its message advised building another program (a new user, 2026-11-28).
#[test]
fn a_static_argument_of_another_type_names_the_type_to_give() {
    let p = Program::from_trace(&track(repeat, (1.0, 3)), &[Dynamic, Static]).unwrap();
    assert_eq!(p.call((2.0, 3usize)).unwrap().as_f64(), Some(6.0));
    let e = p.call((2.0, 3)).unwrap_err();
    assert!(
        matches!(e, ReplayError::StaticType { index: 1, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("give it as a `usize`"), "{e}");
    let e = p.call((2.0, 4usize)).unwrap_err();
    assert!(matches!(e, ReplayError::Static { .. }), "{e:?}");
    let e = p.call((2.0,)).unwrap_err();
    assert_eq!(e.to_string(), "the program takes 2 arguments, given 1");
}

// ---- A `match` on an integer, a `char`, a `bool` (a tester replaying libm and rand_distr,
// 2026-11-28: `match n & 3` was refused, "a pattern's test cannot be replayed yet").

macro_rules! twice {
    ($($(#[$m:meta])* fn $name:ident($($a:ident: $t:ty),*) -> $r:ty $body:block)*) => {$(
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            #[tracked]
            pub fn tracked($($a: $t),*) -> $r $body
            #[allow(dead_code)]
            pub fn plain($($a: $t),*) -> $r $body
        }
    )*};
}

twice! {
    fn octant(x: f64, n: i64) -> f64 {
        let q = n & 7;
        match q {
            0 => x.sin(),
            1 | 2 => x.cos(),
            3..=4 => -x,
            k => x * k as f64,
        }
    }

    fn by_char(x: f64, c: char) -> f64 {
        match c {
            'a'..='f' => x + 1.0,
            '|' | '-' => x * 2.0,
            _ => x,
        }
    }

    fn signs(x: f64, n: i32, b: bool) -> f64 {
        let s = match n {
            ..0 => -1.0,
            0 => 0.0,
            1.. => 1.0,
        };
        match b {
            true => s * x,
            false => s + x,
        }
    }

    fn guarded_first(x: f64, n: i64) -> f64 {
        match n {
            k if k > 2 => -x,
            0 => x,
            _ => 2.0 * x,
        }
    }
}

/// Each program answers exactly the plain function where the value takes the recorded arm, and
/// fails a guard elsewhere; every point is covered by the program of some recorded arm.
#[test]
fn a_match_on_an_integer_char_or_bool_is_replayed() {
    let dynamic = [Input::Dynamic, Input::Dynamic];
    for rec in 0..8 {
        let p = Program::from_trace(&track(octant::tracked, (0.5, rec)), &dynamic).unwrap();
        let mut answered = 0;
        for n in -9..20i64 {
            match p.call((0.7, n)) {
                Ok(v) => {
                    assert_eq!(v.as_f64(), Some(octant::plain(0.7, n)), "{rec} → {n}");
                    answered += 1;
                }
                Err(ReplayError::Guard { .. }) => {
                    // Another arm: a program of that arm answers.
                    let q = Program::from_trace(&track(octant::tracked, (0.5, n)), &dynamic);
                    assert!(q.unwrap().call((0.7, n)).is_ok(), "{n}");
                }
                Err(e) => panic!("{rec} → {n}: {e}"),
            }
        }
        assert!(answered >= 3, "{rec}: {answered}");
    }
    for rec in ['c', '|', 'z'] {
        let p = Program::from_trace(&track(by_char::tracked, (0.5, rec)), &dynamic).unwrap();
        for c in ['a', 'f', 'g', '|', '-', '+', 'z', 'é'] {
            if let Ok(v) = p.call((1.5, c)) {
                assert_eq!(v.as_f64(), Some(by_char::plain(1.5, c)), "{rec} → {c}");
            }
        }
    }
    let inputs = [Input::Dynamic, Input::Dynamic, Input::Dynamic];
    for (n, b) in [(-4, true), (0, false), (7, true)] {
        let p = Program::from_trace(&track(signs::tracked, (0.5, n, b)), &inputs).unwrap();
        for m in [i32::MIN, -1, 0, 1, i32::MAX] {
            for c in [true, false] {
                if let Ok(v) = p.call((2.0, m, c)) {
                    assert_eq!(v.as_f64(), Some(signs::plain(2.0, m, c)), "{m} {c}");
                    assert_eq!((m.signum(), c), (n.signum(), b));
                }
            }
        }
    }
    // An arm with a guard tested before the one taken: still refused (whether its guard ran
    // depends on its pattern); taken itself, it is replayed with its guard.
    for rec in [0, 1] {
        let e = Program::from_trace(&track(guarded_first::tracked, (0.5, rec)), &dynamic);
        assert!(matches!(e, Err(ReplayError::Unsupported { .. })));
    }
    let p = Program::from_trace(&track(guarded_first::tracked, (0.5, 5)), &dynamic).unwrap();
    assert_eq!(p.call((0.7, 9i64)).unwrap().as_f64(), Some(-0.7));
    assert!(p.call((0.7, 1i64)).is_err());
}

#[tracked]
fn haversine(v: Vec<f64>) -> f64 {
    let (lat1, lon1, lat2, lon2) = (v[0], v[1], v[2], v[3]);
    let dlat = lat2 - lat1;
    let dlon = lon2 - lon1;
    let a = (dlat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (dlon / 2.0).sin().powi(2);
    2.0 * a.sqrt().asin()
}

#[tracked]
fn nested_parts(x: f64, y: f64) -> f64 {
    let t = (x * y, (x + y, x - y));
    let u = t;
    let (p, (s, d)) = u;
    p + s * d + (t.1).0
}

#[tracked]
fn written_part(x: f64, y: f64) -> f64 {
    let mut t = (x, y);
    t.0 += 1.0;
    let (a, b) = t;
    a * b
}

/// A tuple built to be taken apart (`let (a, b) = (v[0], v[1])`, `t.1`) is no value a program
/// computes with: each part read is the operand that made it, and the tuple is dead. It was
/// "`tuple` cannot be re-executed", which refused `jvp`, `vjp` and `hessian` of haversine,
/// a Student-t density and Lotka-Volterra written this way (a tester, 2026-11-28, third
/// stop). A tuple written in place keeps the error: its parts are not the literal's.
#[test]
fn tuples_taken_apart_replay_through_their_parts() {
    let p =
        Program::from_trace(&track(haversine, (vec![0.1, 0.2, 0.4, 0.9],)), &[Dynamic]).unwrap();
    for v in [vec![0.2, 0.3, 0.5, 1.0], vec![-1.0, 2.0, 0.7, -2.5]] {
        let got = p.call((v.clone(),)).unwrap().as_f64().unwrap();
        assert_eq!(got.to_bits(), haversine(v).to_bits());
    }
    let p = Program::from_trace(&track(nested_parts, (1.5, 0.5)), &[Dynamic, Dynamic]).unwrap();
    for (x, y) in [(2.0, 3.0), (-1.0, 0.25)] {
        let got = p.call((x, y)).unwrap().as_f64().unwrap();
        assert_eq!(got, nested_parts(x, y));
    }
    // d/dx of xy + (x + y)(x - y) + (x + y) = y + 2x + 1.
    let j = irtrack::diff::jvp(nested_parts, (1.5, 0.5), (1.0, 0.0)).unwrap();
    assert_eq!(j.tangent.as_f64(), Some(4.5));
    let h = irtrack::diff::hessian(haversine, (vec![0.1, 0.2, 0.4, 0.9],)).unwrap();
    let g = |v: Vec<f64>| {
        irtrack::gradient(haversine, (v,)).unwrap().wrt[0]
            .clone()
            .unwrap()
    };
    let eps = 1e-6;
    for i in 0..4 {
        let mut up = vec![0.1, 0.2, 0.4, 0.9];
        let mut down = up.clone();
        up[i] += eps;
        down[i] -= eps;
        let (gu, gd) = (g(up), g(down));
        for j in 0..4 {
            let fd = (gu.as_slice().unwrap()[j] - gd.as_slice().unwrap()[j]) / (2.0 * eps);
            assert!(
                (h.row(i)[j] - fd).abs() < 1e-6,
                "{i} {j}: {} {fd}",
                h.row(i)[j]
            );
        }
    }
    let e = Program::from_trace(&track(written_part, (1.5, 0.5)), &[Dynamic, Dynamic]);
    assert!(e.is_err());
}

#[tracked]
fn weighted_sum(x: f64, n: i32) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x * i as f64;
    }
    s
}

#[tracked]
fn triangle(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 1..n {
        for j in 0..i {
            s += x.powi(j as i32) / (i as f64);
        }
    }
    s
}

#[tracked]
fn mapped_range(x: f64, n: u32) -> f64 {
    (0..n).map(|i| x * i as f64).sum()
}

/// A `for` loop over a range whose end is a dynamic input (`for i in 0..n`) replays: each call
/// checks that the range has the recorded length (the end is the recorded one, or, for an
/// empty range, not past the start), and the loop's elements are the recorded positions. It
/// was refused ("`..` cannot be re-executed"; the range was read as a field access), where the
/// same loop written with `while` replayed (a tester, 2026-11-28, third stop).
#[test]
fn a_for_loop_over_a_dynamic_range_replays_its_length() {
    let p = Program::from_trace(&track(weighted_sum, (1.5, 4)), &[Dynamic, Dynamic]).unwrap();
    for x in [2.0, -1.0, 0.0] {
        let got = p.call((x, 4)).unwrap().as_f64().unwrap();
        assert_eq!(got, weighted_sum(x, 4));
    }
    for n in [3, 5, -1] {
        assert!(matches!(p.call((2.0, n)), Err(ReplayError::Guard { .. })));
    }
    // An empty range holds for every end not past its start.
    let p = Program::from_trace(&track(weighted_sum, (1.5, -2)), &[Dynamic, Dynamic]).unwrap();
    for n in [-5, 0] {
        assert_eq!(p.call((2.0, n)).unwrap().as_f64(), Some(0.0));
    }
    assert!(p.call((2.0, 1)).is_err());
    // Nested: the inner range's end is an element of the outer one, a constant of the path.
    let p = Program::from_trace(&track(triangle, (1.5, 4)), &[Dynamic, Dynamic]).unwrap();
    for x in [2.0, 0.5] {
        assert_eq!(p.call((x, 4usize)).unwrap().as_f64(), Some(triangle(x, 4)));
    }
    assert!(p.call((2.0, 5usize)).is_err());
    // An adaptor over such a range is refused, naming the range.
    let e = Program::from_trace(&track(mapped_range, (1.5, 4)), &[Dynamic, Dynamic]).unwrap_err();
    assert!(e.to_string().contains("a range with a dynamic end"), "{e}");
}

#[tracked]
fn last_part(x: f64, y: f64, z: f64) -> f64 {
    let t = (x, (y, z));
    let (.., a) = t;
    a.0 * 3.0
}

#[tracked]
fn part_of_a_pair(x: f64, y: f64) -> f64 {
    let arr = [(1.0, 2.0), (3.0, y)];
    let (_, [_, a]) = (x, arr);
    a.1 - y + x
}

#[tracked]
fn usize_range(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x * i as f64;
    }
    s
}

/// A binding in a part of a tuple pattern the lowering cannot name (`let (.., a) = t`, a
/// struct or array pattern inside a tuple) has no path: it was taken for the whole tuple, and
/// `a.0` replayed `x` where it is `y`, at the recorded point too (a tester, 2026-11-28, third
/// stop). A part is taken only where it holds what the binding recorded; else the tuple is
/// refused, naming it. And an empty range whose start is an unsuffixed literal checks its end
/// in the end's type (`0..n` with `n: usize` recorded at 0 failed every call on `i32`).
#[test]
fn a_tuple_part_is_taken_only_where_it_holds_what_was_bound() {
    match Program::from_trace(
        &track(last_part, (1.0, 2.0, 3.0)),
        &[Dynamic, Dynamic, Dynamic],
    ) {
        Ok(p) => {
            for (x, y, z) in [(1.0, 2.0, 3.0), (4.0, 5.0, 6.0)] {
                let got = p.call((x, y, z)).unwrap().as_f64();
                assert_eq!(got, Some(last_part(x, y, z)));
            }
        }
        Err(e) => assert!(e.to_string().contains("tuple"), "{e}"),
    }
    match Program::from_trace(&track(part_of_a_pair, (10.0, 0.5)), &[Dynamic, Dynamic]) {
        Ok(p) => {
            for (x, y) in [(10.0, 0.5), (-1.0, 4.0)] {
                let got = p.call((x, y)).unwrap().as_f64();
                assert_eq!(got, Some(part_of_a_pair(x, y)));
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
    let p = Program::from_trace(&track(usize_range, (1.5, 0usize)), &[Dynamic, Dynamic]).unwrap();
    assert_eq!(p.call((2.0, 0usize)).unwrap().as_f64(), Some(0.0));
    assert!(matches!(
        p.call((2.0, 3usize)),
        Err(ReplayError::Guard { .. })
    ));
}

// ---- `macro_rules!` written in a tracked function's body (a tester, 2026-11-28): a call of
// one reads what its rules mention, which its own tokens need not.

#[tracked]
fn twice_plus_one(x: f64) -> f64 {
    macro_rules! twice {
        () => {
            x * 2.0
        };
    }
    twice!() + 1.0
}

#[tracked]
fn sign_by_macro(x: f64) -> f64 {
    macro_rules! positive {
        () => {
            x > 0.0
        };
    }
    if positive!() {
        1.0
    } else {
        -1.0
    }
}

#[tracked]
fn squared_local(x: f64) -> f64 {
    // A variable bound before the macro (E0425 under `#[tracked]` before: the macro was
    // hoisted above it), and a macro that writes one.
    let y = x + 1.0;
    let mut z = 0.0;
    macro_rules! square {
        () => {
            y * y
        };
    }
    macro_rules! bump {
        () => {
            z += x
        };
    }
    bump!();
    square!() + z
}

/// A local macro that reads a dynamic input through its rules (`twice!()`) was a node of no
/// operand, which programs folded into a constant and `update` kept: 4.0 for 7.0 at 3, and
/// `sign_by_macro` had no guard (1.0 for -1.0). Now the call's node has the variables its
/// rules mention: programs refuse or replay the function's value, and `update` runs again.
#[test]
fn a_local_macro_reads_what_its_rules_mention() {
    use irtrack::program::update::{Change, Updatable};
    macro_rules! replays_right {
        ($f:ident, $at:expr, $points:expr) => {{
            let t = track($f, ($at,));
            t.verify().unwrap();
            assert_eq!(t.root().value::<f64>(), Some(&$f($at)));
            if let Ok(p) = Program::from_trace(&t, &[Dynamic]) {
                for x in $points {
                    match p.call((x,)) {
                        Ok(v) => assert_eq!(v.as_f64(), Some($f(x)), "{} at {x}", stringify!($f)),
                        Err(e) => assert!(!e.to_string().is_empty()),
                    }
                }
            }
            let mut m = Updatable::track($f, ($at,));
            m.update([Change::argument(0, 3.0)]).unwrap();
            assert_eq!(m.trace().root().value::<f64>(), Some(&$f(3.0)));
        }};
    }
    replays_right!(twice_plus_one, 1.5, [3.0, -2.0, 0.0]);
    replays_right!(sign_by_macro, 1.5, [3.0, -2.0, 0.0]);
    replays_right!(squared_local, 1.5, [3.0, -2.0]);
    assert_eq!(squared_local(2.0), 11.0);
}

// Regressions an audit found in the first form of the above (2026-11-28): an item calling the
// local macro (it was left below the hoisted item: "cannot find macro"), a metavariable named
// as a `mut` local borrowed elsewhere (taken for it: E0502), and a binding shadowed after the
// macro's definition (the call read the later one: 103 for 106).

#[tracked]
fn item_calls_local_macro(x: f64) -> f64 {
    macro_rules! sq {
        ($e:expr) => {
            $e * $e
        };
    }
    fn helper(t: f64) -> f64 {
        sq!(t) + 1.0
    }
    macro_rules! k {
        () => {
            3.0
        };
    }
    const C: f64 = k!();
    helper(x) * C
}

#[tracked]
fn metavariable_named_as_a_local(y: f64) -> f64 {
    let mut x = 1.0;
    let mut inc = || x += 1.0;
    macro_rules! dbl {
        ($x:expr) => {
            $x * 2.0
        };
    }
    let z = dbl!(y);
    inc();
    x + z
}

#[tracked]
fn shadowed_after_the_macro(x: f64) -> f64 {
    let y = x * 2.0;
    macro_rules! gy {
        () => {
            y
        };
    }
    let y = 100.0;
    gy!() + y
}

#[test]
fn local_macros_keep_items_metavariables_and_hygiene() {
    use irtrack::program::update::{Change, Updatable};
    assert_eq!(
        track(item_calls_local_macro, (2.0,)).root().value::<f64>(),
        Some(&15.0)
    );
    assert_eq!(
        track(metavariable_named_as_a_local, (1.5,))
            .root()
            .value::<f64>(),
        Some(&5.0)
    );
    let t = track(shadowed_after_the_macro, (1.5,));
    t.verify().unwrap();
    assert_eq!(t.root().value::<f64>(), Some(&103.0));
    match irtrack::gradient(shadowed_after_the_macro, (1.5,)) {
        Ok(g) => assert_eq!(g.scalars(), [Some(2.0)]),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
    if let Ok(p) = Program::from_trace(&t, &[Dynamic]) {
        for x in [3.0, -2.0] {
            if let Ok(v) = p.call((x,)) {
                assert_eq!(v.as_f64(), Some(shadowed_after_the_macro(x)));
            }
        }
    }
    let mut m = Updatable::track(shadowed_after_the_macro, (1.5,));
    m.update([Change::argument(0, 3.0)]).unwrap();
    assert_eq!(m.trace().root().value::<f64>(), Some(&106.0));
}

#[tracked]
fn macro_scopes(w: f64, x: f64) -> f64 {
    macro_rules! m {
        () => {
            w * 2.0
        };
    }
    let inner = {
        macro_rules! m {
            () => {
                x * 3.0
            };
        }
        m!()
    };
    m!() + inner
}

/// A local macro is the one of its block: after an inner block that defined its own `m!`, a
/// call of `m!` is the outer one's, reading `w` (the inner one's rules were taken: 6 for 13
/// when replayed; an audit, 2026-11-28).
#[test]
fn a_local_macro_is_its_blocks() {
    use irtrack::program::update::{Change, Updatable};
    let t = track(macro_scopes, (1.0, 1.0));
    if let Ok(p) = Program::from_trace(&t, &[Dynamic, Dynamic]) {
        for (w, x) in [(5.0, 1.0), (1.0, -2.0), (-3.0, 4.0)] {
            if let Ok(v) = p.call((w, x)) {
                assert_eq!(v.as_f64(), Some(macro_scopes(w, x)), "at ({w}, {x})");
            }
        }
    }
    let mut m = Updatable::track(macro_scopes, (1.0, 1.0));
    m.update([Change::argument(0, 5.0)]).unwrap();
    assert_eq!(
        m.trace().root().value::<f64>(),
        Some(&macro_scopes(5.0, 1.0))
    );
}

#[tracked]
fn macro_in_a_closure(x: f64) -> f64 {
    macro_rules! twice {
        () => {
            x * 2.0
        };
    }
    let c = |p: f64| twice!() + p;
    c(1.0)
}

#[tracked]
fn capture_in_a_macro_in_a_closure(x: f64) -> f64 {
    macro_rules! plus_one {
        ($e:expr) => {
            $e + 1.0
        };
    }
    let c = |p: f64| plus_one!(x) * p;
    c(2.0)
}

/// A local macro called in a closure reads the closure's captures (its rules' `x`, or an `x`
/// the call passes): a use of each, as the closure's own uses are. It was a node of no operand
/// (gradient 0 for 2, replay and `update` the recorded 4.0 for 7.0; an audit, 2026-11-28).
#[test]
fn a_macro_in_a_closure_reads_its_captures() {
    use irtrack::program::update::{Change, Updatable};
    for (name, g, want) in [
        ("rules", irtrack::gradient(macro_in_a_closure, (1.5,)), 2.0),
        (
            "call",
            irtrack::gradient(capture_in_a_macro_in_a_closure, (1.5,)),
            2.0,
        ),
    ] {
        match g {
            Ok(g) => assert_eq!(g.scalars(), [Some(want)], "{name}"),
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
    let t = track(macro_in_a_closure, (1.5,));
    t.verify().unwrap();
    if let Ok(p) = Program::from_trace(&t, &[Dynamic]) {
        if let Ok(v) = p.call((3.0,)) {
            assert_eq!(v.as_f64(), Some(7.0));
        }
    }
    let mut m = Updatable::track(macro_in_a_closure, (1.5,));
    m.update([Change::argument(0, 3.0)]).unwrap();
    assert_eq!(m.trace().root().value::<f64>(), Some(&7.0));
    let mut m = Updatable::track(capture_in_a_macro_in_a_closure, (1.5,));
    m.update([Change::argument(0, 3.0)]).unwrap();
    assert_eq!(m.trace().root().value::<f64>(), Some(&8.0));
}
