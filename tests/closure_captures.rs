//! A closure's captured values reach the enclosing function's nodes (2026-11-27). A closure
//! bound by a plain `let` that captures variables is made by a `$(closure)` node whose operands
//! are those variables; a call of it links to that node, and a captured value's uses inside the
//! call link to its operand (`Store::capture_source`). Before, every capture read in a
//! differentiated or replayed computation was refused (`GradError::Capture`, "a closure's
//! captured variable"), constants included. Truths: closed forms, central differences, the
//! plain function.

use irtrack::diff::jvp;
use irtrack::program::{Input, Program};
use irtrack::{gradient, track, tracked, GradError};

fn central(f: fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

/// A case: its name, the function, and its gradient.
type Case = (
    &'static str,
    fn(f64) -> f64,
    fn(f64) -> Result<f64, GradError>,
);

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[tracked]
fn captures_a_constant(x: f64) -> f64 {
    let k = 3.0;
    let f = |t: f64| t * k;
    f(x)
}

#[tracked]
fn captures_the_input(x: f64) -> f64 {
    let f = |t: f64| t * x;
    f(2.0) + x
}

/// `move`: the value is copied when the closure is made, which is what `$(closure)` refers to.
#[tracked]
fn moves_a_square(x: f64) -> f64 {
    let y = x * x;
    let f = move |t: f64| t * y;
    f(2.0) + f(x)
}

/// Made anew in each iteration, from the loop's variables.
#[tracked]
fn made_in_a_loop(x: f64) -> f64 {
    let mut s = 0.0;
    let mut k = x;
    for _ in 0..3 {
        let f = |t: f64| t * k + k;
        s += f(s);
        k *= x;
    }
    s
}

#[tracked]
fn apply_twice<F: Fn(f64) -> f64>(f: F, t: f64) -> f64 {
    f(t) + f(2.0 * t)
}

/// Passed to a tracked function that calls it: linked through the argument.
#[tracked]
fn passed_to_a_helper(x: f64) -> f64 {
    let k = x.sin();
    let f = |t: f64| t * k;
    apply_twice(f, x)
}

/// A later `let` of the captured name does not change what the closure captured.
#[tracked]
fn shadowed_after(x: f64) -> f64 {
    let k = x;
    let f = |t: f64| t * k;
    let k = 10.0;
    f(x) + k
}

/// Several captures, read several times.
#[tracked]
fn gaussian_kernel(x: f64, mu: f64, s: f64) -> f64 {
    let z = |t: f64| (t - mu) / s;
    let k = |t: f64| (-0.5 * z(t) * z(t)).exp();
    k(x) + k(2.0 * x)
}

#[test]
fn gradients_follow_captures() {
    let cases: [Case; 6] = [
        ("constant", captures_a_constant, |x| {
            gradient(captures_a_constant, (x,)).map(|g| g.scalars()[0].unwrap())
        }),
        ("input", captures_the_input, |x| {
            gradient(captures_the_input, (x,)).map(|g| g.scalars()[0].unwrap())
        }),
        ("move", moves_a_square, |x| {
            gradient(moves_a_square, (x,)).map(|g| g.scalars()[0].unwrap())
        }),
        ("loop", made_in_a_loop, |x| {
            gradient(made_in_a_loop, (x,)).map(|g| g.scalars()[0].unwrap())
        }),
        ("helper", passed_to_a_helper, |x| {
            gradient(passed_to_a_helper, (x,)).map(|g| g.scalars()[0].unwrap())
        }),
        ("shadowed", shadowed_after, |x| {
            gradient(shadowed_after, (x,)).map(|g| g.scalars()[0].unwrap())
        }),
    ];
    for (name, f, g) in cases {
        for x in [0.7, -1.3] {
            let got = g(x).unwrap_or_else(|e| panic!("{name} at {x}: {e}"));
            let truth = central(f, x);
            assert!(close(got, truth), "{name} at {x}: {got} vs {truth}");
        }
    }
    // Closed forms: 3; 3 (2 + 1); 4x + 3x².
    assert_eq!(
        gradient(captures_a_constant, (0.7,)).unwrap().scalars(),
        [Some(3.0)]
    );
    assert_eq!(
        gradient(captures_the_input, (0.7,)).unwrap().scalars(),
        [Some(3.0)]
    );
    let g = gradient(moves_a_square, (1.5,)).unwrap().scalars()[0].unwrap();
    assert!(close(g, 4.0 * 1.5 + 3.0 * 1.5 * 1.5), "{g}");
}

#[test]
fn several_captures_and_closures_calling_closures() {
    let (x, mu, s) = (0.4, 0.1, 0.8);
    let g = gradient(gaussian_kernel, (x, mu, s)).unwrap().scalars();
    let k = |t: f64, mu: f64, s: f64| (-0.5 * ((t - mu) / s).powi(2)).exp();
    let f = |x: f64, mu: f64, s: f64| k(x, mu, s) + k(2.0 * x, mu, s);
    let h = 1e-6;
    let truth = [
        (f(x + h, mu, s) - f(x - h, mu, s)) / (2.0 * h),
        (f(x, mu + h, s) - f(x, mu - h, s)) / (2.0 * h),
        (f(x, mu, s + h) - f(x, mu, s - h)) / (2.0 * h),
    ];
    for (k, (got, want)) in g.iter().zip(truth).enumerate() {
        assert!(close(got.unwrap(), want), "∂{k}: {got:?} vs {want}");
    }
}

#[test]
fn derivative_programs_and_programs_follow_captures() {
    for x in [0.7, -1.3] {
        let j = jvp(moves_a_square, (x,), (1.0,))
            .unwrap()
            .tangent
            .as_f64()
            .unwrap();
        assert!(close(j, 4.0 * x + 3.0 * x * x), "jvp at {x}: {j}");
    }
    macro_rules! replays {
        ($f:ident) => {{
            let p = Program::from_trace(&track($f, (0.7,)), &[Input::Dynamic])
                .unwrap_or_else(|e| panic!("{}: {e}", stringify!($f)));
            for x in [0.9, -0.4] {
                assert_eq!(
                    p.call((x,)).unwrap().as_f64().map(f64::to_bits),
                    Some($f(x).to_bits()),
                    "{} at {x}",
                    stringify!($f)
                );
            }
        }};
    }
    replays!(captures_the_input);
    replays!(moves_a_square);
    replays!(made_in_a_loop);
    replays!(passed_to_a_helper);
}

/// A closure that assigns to what it captured: its reads may be of values it wrote, so they
/// are not linked, and are refused as before.
#[tracked]
fn accumulates(x: f64) -> f64 {
    let mut acc = x;
    let mut add = |t: f64| {
        acc += t;
        acc
    };
    add(x) + add(1.0)
}

/// A closure with a closure inside it: its captures are not linked either.
#[tracked]
fn nested_closure(x: f64) -> f64 {
    let k = x * 2.0;
    let f = |t: f64| {
        let g = |u: f64| u * k;
        g(t)
    };
    f(1.0)
}

#[test]
fn captures_a_closure_may_change_are_still_refused() {
    let e = gradient(accumulates, (0.7,)).unwrap_err();
    assert!(matches!(e, GradError::Capture { .. }), "{e:?}");
    let e = gradient(nested_closure, (0.7,)).unwrap_err();
    assert!(matches!(e, GradError::Capture { .. }), "{e:?}");
    let e = Program::from_trace(&track(accumulates, (0.7,)), &[Input::Dynamic]).unwrap_err();
    assert!(
        matches!(e, irtrack::program::ReplayError::Unsupported { .. }),
        "{e}"
    );
}

/// A trace read back from JSON keeps the links from closures' calls to their makers (since
/// `irtrack-trace/4`): its captures are followed as the recording's are.
#[test]
fn an_imported_trace_follows_captures() {
    let mut t = track(captures_the_input, (0.7,));
    let json = t.to_json();
    let mut back = irtrack::Trace::from_json(&json).unwrap();
    assert_eq!(back.backward(1.0).unwrap(), t.backward(1.0).unwrap());
}

#[test]
fn the_listing_shows_what_a_closure_captured() {
    let listing = track(captures_the_input, (0.7,))
        .root()
        .levels(2)
        .to_string();
    assert!(listing.contains("$(closure)(@1)"), "{listing}");
}

// ---- A closure written inside a closure, reading what the outer one captured (the random
// program tester, seed 70, minimised): the inner closure's capture was an operand of no node,
// and the gradient through the `sum` it feeds was 0 for 4.

#[tracked]
fn summed_in_a_closure(x1: f64) -> f64 {
    let c9 = |_p2: f64| -> f64 { (0..4_i64).map(|_k8| x1).sum::<f64>() };
    c9(x1)
}

#[tracked]
fn summed_by_a_bound_closure(x1: f64) -> f64 {
    let c = |p: f64| -> f64 {
        let inner = |k: i64| x1 * k as f64;
        (0..4_i64).map(inner).sum::<f64>() + p
    };
    c(1.0)
}

#[test]
fn a_capture_read_by_a_closure_inside_a_closure_is_a_use() {
    // Right or refused: never the 0 the gradient gave.
    match gradient(summed_in_a_closure, (0.39,)) {
        Ok(g) => assert_eq!(g.scalars(), [Some(4.0)]),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
    match gradient(summed_by_a_bound_closure, (0.39,)) {
        Ok(g) => assert_eq!(g.scalars(), [Some(6.0)]),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
    for (t, x, plain) in [
        (
            track(summed_in_a_closure, (0.39,)),
            1.5,
            summed_in_a_closure(1.5),
        ),
        (
            track(summed_by_a_bound_closure, (0.39,)),
            1.5,
            summed_by_a_bound_closure(1.5),
        ),
    ] {
        t.verify().unwrap();
        if let Ok(p) = Program::from_trace(&t, &[Input::Dynamic]) {
            if let Ok(v) = p.call((x,)) {
                assert_eq!(v.as_f64(), Some(plain));
            }
        }
    }
}

// ---- A `let` with a declared type whose `if` or `match` arms make values that Rust coerces to
// it (a tester, 2026-11-28): the arms pass their values through a local, which now has the
// declared type, so the arm's `Box` of a closure becomes a `Box<dyn Fn>` there (E0308 before)
// and its recording knows the type (E0277 before: `dyn Fn` has no `Debug`).

#[tracked]
fn chosen_closure(x: f64) -> f64 {
    let f: Option<Box<dyn Fn(f64) -> f64>> = if x > 0.0 {
        Some(Box::new(move |t| t * x))
    } else {
        None
    };
    match f {
        Some(g) => g(x),
        None => 0.0,
    }
}

#[tracked]
fn matched_closure(x: f64, k: u8) -> f64 {
    let f: Box<dyn Fn(f64) -> f64> = match k {
        0 => Box::new(move |t| t * x),
        _ => Box::new(|t| t + 1.0),
    };
    let v: Vec<_> = if x > 1.0 { vec![x] } else { Vec::new() };
    f(x) + v.len() as f64
}

#[test]
fn a_declared_type_reaches_the_arms_of_an_if_or_match() {
    for x in [2.0, -1.0] {
        let t = track(chosen_closure, (x,));
        t.verify().unwrap();
        assert_eq!(t.root().value::<f64>(), Some(&chosen_closure(x)));
    }
    for (x, k) in [(2.0, 0), (0.5, 3)] {
        let t = track(matched_closure, (x, k));
        t.verify().unwrap();
        assert_eq!(t.root().value::<f64>(), Some(&matched_closure(x, k)));
    }
    // Called through `Box<dyn Fn>`, the closure runs untracked: refused, not 0.
    assert!(gradient(chosen_closure, (2.0,)).is_err());
}

/// A value moved into a `move` closure written inside a closure (an audit, 2026-11-28: the
/// read of the outer closure's capture was recorded after the `let` had moved it, E0382).
#[tracked]
fn moved_into_inner(x: f64) -> f64 {
    let s = String::from("abcd");
    let c = move |p: f64| -> f64 {
        let g = move || s.len() as f64;
        g() * p
    };
    c(x)
}

#[test]
fn a_capture_moved_into_an_inner_closure_compiles() {
    assert_eq!(
        track(moved_into_inner, (1.5,)).root().value::<f64>(),
        Some(&6.0)
    );
    match gradient(moved_into_inner, (1.5,)) {
        Ok(g) => assert_eq!(g.scalars(), [Some(4.0)]),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}
