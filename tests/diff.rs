//! Derivatives as graphs (`irtrack::diff`): programs differentiated to any order, reverse mode
//! by transposition, the entry points, FrechetDiff's examples on `ndarray` vectors. Every
//! number is checked against a closed form or finite differences.

use irtrack::diff::{
    differentiate, hessian, hessian_by, jacobian, jvp, register_rule, reverse, vjp, DiffError,
    HessianMethod, Rule,
};
use irtrack::program::{Input, Program, ReplayError};
use irtrack::{register_operation, track, tracked, Value};
use ndarray::{array, Array1};

fn close(got: f64, want: f64, rel: f64) -> bool {
    (got - want).abs() <= rel * want.abs().max(1e-300) || got == want
}

/// `d^k f(x)[1, …, 1]`: the program differentiated `k` times, every direction 1.
fn derivative_at(p: &Program, k: usize, x: f64, statics: &[Value]) -> f64 {
    let mut d = p.clone();
    for _ in 0..k {
        d = differentiate(&d, &[0]).unwrap();
    }
    let mut args = vec![Value::snapshot(x)];
    args.extend(statics.iter().cloned());
    args.extend((0..k).map(|_| Value::snapshot(1.0f64)));
    d.call(args).unwrap().as_f64().unwrap()
}

#[tracked]
fn sin_exp(x: f64) -> f64 {
    x.sin() * x.exp()
}

#[test]
fn sin_exp_derivatives_of_orders_1_to_4_match_closed_forms() {
    let p = Program::from_trace(&track(sin_exp, (0.3,)), &[Input::Dynamic]).unwrap();
    let closed = |k: usize, x: f64| -> f64 {
        let (s, c, e) = (x.sin(), x.cos(), x.exp());
        match k {
            1 => e * (s + c),
            2 => 2.0 * e * c,
            3 => 2.0 * e * (c - s),
            4 => -4.0 * e * s,
            _ => unreachable!(),
        }
    };
    for x in [-1.3, 0.2, 0.7, 2.5] {
        for k in 1..=4 {
            let got = derivative_at(&p, k, x, &[]);
            assert!(
                close(got, closed(k, x), 1e-10),
                "order {k} at {x}: {got} vs {}",
                closed(k, x)
            );
        }
    }
}

#[tracked]
fn series(x: f64, n: i32) -> f64 {
    let mut r = 0.0;
    let mut i = 0;
    while i < n {
        r += x.powi(i);
        i += 1;
    }
    r
}

/// `n! / (n - k)!`.
fn falling(n: i32, k: usize) -> f64 {
    (0..k as i32).map(|j| (n - j) as f64).product()
}

#[test]
fn a_loop_differentiates_to_order_4() {
    let n = 7;
    let p =
        Program::from_trace(&track(series, (0.5, n)), &[Input::Dynamic, Input::Static]).unwrap();
    for x in [-1.7f64, 0.5, 1.3] {
        for k in 1..=4 {
            let want: f64 = (k as i32..n)
                .map(|i| falling(i, k) * x.powi(i - k as i32))
                .sum();
            let got = derivative_at(&p, k, x, &[Value::snapshot(n)]);
            assert!(close(got, want, 1e-10), "order {k} at {x}: {got} vs {want}");
        }
    }
}

#[tracked]
fn power(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power(x, n - 1)
    }
}

#[test]
fn a_recursion_differentiates_to_order_4() {
    let n = 6u32;
    let p = Program::from_trace(&track(power, (1.1, n)), &[Input::Dynamic, Input::Static]).unwrap();
    for x in [-0.8f64, 1.1, 2.0] {
        for k in 1..=4 {
            let want = falling(n as i32, k) * x.powi(n as i32 - k as i32);
            let got = derivative_at(&p, k, x, &[Value::snapshot(n)]);
            assert!(close(got, want, 1e-10), "order {k} at {x}: {got} vs {want}");
        }
    }
}

#[tracked]
fn rosenbrock(x: Vec<f64>, n: usize) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    while i + 1 < n {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        s += 100.0 * a * a + b * b;
        i += 1;
    }
    s
}

fn rosenbrock_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for i in 0..n {
        if i + 1 < n {
            h[i][i] += 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
            h[i][i + 1] = -400.0 * x[i];
            h[i + 1][i] = -400.0 * x[i];
        }
        if i > 0 {
            h[i][i] += 200.0;
        }
    }
    h
}

#[test]
fn rosenbrock_hessian_is_exact_at_integer_points() {
    let x: Vec<f64> = vec![1.0, -2.0, 3.0, 0.0, 5.0, -1.0, 2.0, 4.0, -3.0, 1.0];
    let want = rosenbrock_hessian(&x);
    for method in [
        HessianMethod::ForwardOverReverse,
        HessianMethod::ForwardOverForward,
    ] {
        let h = hessian_by(rosenbrock, (x.clone(), 10), method).unwrap();
        assert_eq!((h.rows(), h.cols()), (10, 10));
        for (i, row) in want.iter().enumerate() {
            assert_eq!(&h.row(i), row, "row {i} by {method:?}");
        }
    }
    assert_eq!(
        hessian(rosenbrock, (x.clone(), 10)).unwrap().row(3),
        want[3]
    );
}

#[tracked]
fn mixed(x: Vec<f64>, y: f64, n: i32) -> Vec<f64> {
    let a = x[0] * y.sin() + x[1].powi(n);
    let b = (x[2] / y).exp() - x[0] * x[1];
    let c = x[2].atan2(x[0]) * y.max(x[1]);
    vec![a, b, c]
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(p, q)| p * q).sum()
}

#[test]
fn jvp_and_vjp_agree_with_finite_differences_and_with_each_other() {
    let x = vec![0.7, -1.2, 0.4];
    let y = 1.3;
    let (vx, vy) = (vec![0.3, -0.5, 1.1], 0.7);
    let u = vec![1.5, -0.4, 0.9];
    let j = jvp(mixed, (x.clone(), y, 3), (vx.clone(), vy, ())).unwrap();
    let jv = j.tangent.downcast_ref::<Vec<f64>>().unwrap().clone();
    // Central differences along (vx, vy).
    let h = 1e-6;
    let at = |t: f64| {
        let xs: Vec<f64> = x.iter().zip(&vx).map(|(a, b)| a + t * b).collect();
        mixed(xs, y + t * vy, 3)
    };
    let (p, m) = (at(h), at(-h));
    for i in 0..3 {
        let fd = (p[i] - m[i]) / (2.0 * h);
        assert!(close(jv[i], fd, 1e-7), "J v [{i}]: {} vs {fd}", jv[i]);
    }
    let r = vjp(mixed, (x.clone(), y, 3), u.clone()).unwrap();
    let ux = r.cotangents[0]
        .as_ref()
        .unwrap()
        .downcast_ref::<Vec<f64>>()
        .unwrap()
        .clone();
    let uy = r.cotangents[1].as_ref().unwrap().as_f64().unwrap();
    assert!(r.cotangents[2].is_none(), "an integer has no cotangent");
    // uᵀ J by finite differences, one input at a time.
    for k in 0..4 {
        let bump = |t: f64| {
            let mut xs = x.clone();
            let mut yy = y;
            if k < 3 {
                xs[k] += t;
            } else {
                yy += t;
            }
            dot(&u, &mixed(xs, yy, 3))
        };
        let fd = (bump(h) - bump(-h)) / (2.0 * h);
        let got = if k < 3 { ux[k] } else { uy };
        assert!(close(got, fd, 1e-7), "uᵀJ [{k}]: {got} vs {fd}");
    }
    // ⟨u, J v⟩ = ⟨Jᵀ u, v⟩.
    let left = dot(&u, &jv);
    let right = dot(&ux, &vx) + uy * vy;
    assert!(close(left, right, 1e-12), "{left} vs {right}");
}

#[test]
fn jvp_checks_its_directions() {
    let e = jvp(
        mixed,
        (vec![0.7, -1.2, 0.4], 1.3, 3),
        (vec![1.0, 2.0], 1.0, ()),
    )
    .unwrap_err();
    assert!(matches!(e, DiffError::Direction { index: 0, .. }), "{e}");
    assert!(e.to_string().contains("shape [3]"), "{e}");
    let e = jvp(
        mixed,
        (vec![0.7, -1.2, 0.4], 1.3, 3),
        (vec![1.0; 3], 1.0, 1),
    )
    .unwrap_err();
    assert!(matches!(e, DiffError::Direction { index: 2, .. }), "{e}");
}

/// A circular shift (Julia's `circshift`): `roll(x, k)[i] = x[i - k]`, indices modulo `n`.
fn roll(x: Array1<f64>, k: i32) -> Array1<f64> {
    let n = x.len() as i64;
    Array1::from_shape_fn(x.len(), |i| x[(i as i64 - k as i64).rem_euclid(n) as usize])
}

fn roll_rules() {
    register_operation(roll);
    register_rule(
        roll,
        Rule::linear(0).transpose(|b, args, ct| {
            let k = b.neg(&args[1])?;
            b.call(roll, &[ct.clone(), k])
        }),
    );
}

#[tracked]
fn frechet_f(x: Array1<f64>) -> Array1<f64> {
    &x * &roll(x.clone(), 1)
}

#[tracked]
fn frechet_g(x: Array1<f64>) -> f64 {
    let y = &x * &roll(x.clone(), 1);
    x[0] * y.sum()
}

#[test]
fn frechet_jacobian_of_x_times_its_shift() {
    roll_rules();
    let x = array![0.3, -1.2, 2.5, 0.8, -0.6, 1.9];
    let n = x.len();
    let j = jacobian(frechet_f, (x.clone(),)).unwrap();
    for i in 0..n {
        for k in 0..n {
            let prev = (i + n - 1) % n;
            let want = if k == i {
                x[prev]
            } else if k == prev {
                x[i]
            } else {
                0.0
            };
            assert_eq!(j[(i, k)], want, "J[{i}, {k}]");
        }
    }
}

#[test]
fn frechet_derivative_program_is_what_frechetdiff_prints() {
    roll_rules();
    let p = Program::from_trace(
        &track(frechet_f, (array![1.0, 2.0, 3.0],)),
        &[Input::Dynamic],
    )
    .unwrap();
    let d = differentiate(&p, &[0]).unwrap();
    // FrechetDiff's `s2 = circshift(s1, 1)`, `s4 = circshift(s3, 1)`, `s3 .* s2 + s1 .* s4`;
    // `$1` is the `x.clone()` the Rust function passes to `roll`. `times` is `*` where a zero
    // factor stays zero against an infinite one (a derivative program's products).
    assert_eq!(
        d.to_string(),
        "\
program frechet_f'(%1: ArrayBase<OwnedRepr<f64>, Dim<[usize; 1]>>, %2: ArrayBase<OwnedRepr<f64>, Dim<[usize; 1]>>)
  $1 = Copy(%1)\t# frechet_f [§1:%2]
  $2 = diff::roll($1, ⟨1⟩)\t# frechet_f [§1:%3]
  $3 = diff::roll(%2, ⟨1⟩)\t# frechet_f [§1:%3]
  $4 = times(%2, $2)\t# frechet_f [§1:%4]
  $5 = times(%1, $3)\t# frechet_f [§1:%4]
  $6 = +($4, $5)\t# frechet_f [§1:%4]
  return $6
"
    );
    let v = array![0.5, -1.0, 2.0];
    let x = array![1.5, 0.25, -2.0];
    let got = d.call((x.clone(), v.clone())).unwrap();
    let want = &v * &roll(x.clone(), 1) + &x * &roll(v.clone(), 1);
    assert_eq!(got.downcast_ref::<Array1<f64>>(), Some(&want));
}

fn frechet_hessian(x: &Array1<f64>) -> Vec<Vec<f64>> {
    // g = x₀ Σᵢ xᵢ xᵢ₋₁: ∂²g/∂xⱼ∂xₖ = [j = 0](xₖ₋₁ + xₖ₊₁) + [k = 0](xⱼ₋₁ + xⱼ₊₁)
    // + x₀ ([k = j - 1] + [k = j + 1]), indices modulo n.
    let n = x.len();
    let (prev, next) = (|j: usize| (j + n - 1) % n, |j: usize| (j + 1) % n);
    let entry = |j: usize, k: usize| {
        let mut v = 0.0;
        if j == 0 {
            v += x[prev(k)] + x[next(k)];
        }
        if k == 0 {
            v += x[prev(j)] + x[next(j)];
        }
        if k == prev(j) {
            v += x[0];
        }
        if k == next(j) {
            v += x[0];
        }
        v
    };
    (0..n)
        .map(|j| (0..n).map(|k| entry(j, k)).collect())
        .collect()
}

#[test]
fn frechet_hessian_by_differentiating_twice() {
    roll_rules();
    let x = array![0.3, -1.2, 2.5, 0.8, -0.6, 1.9];
    let want = frechet_hessian(&x);
    for method in [
        HessianMethod::ForwardOverForward,
        HessianMethod::ForwardOverReverse,
    ] {
        let h = hessian_by(frechet_g, (x.clone(),), method).unwrap();
        for (i, row) in want.iter().enumerate() {
            for (k, w) in row.iter().enumerate() {
                assert!(
                    close(h[(i, k)], *w, 1e-14),
                    "H[{i}, {k}] by {method:?}: {} vs {w}",
                    h[(i, k)]
                );
            }
        }
    }
}

#[test]
fn frechet_second_derivative_program_is_the_hessians_bilinear_form() {
    roll_rules();
    let x = array![0.3, -1.2, 2.5, 0.8, -0.6, 1.9];
    let p = Program::from_trace(&track(frechet_g, (x.clone(),)), &[Input::Dynamic]).unwrap();
    let d2 = differentiate(&differentiate(&p, &[0]).unwrap(), &[0]).unwrap();
    let h = frechet_hessian(&x);
    // Directions that are not basis vectors: every entry of the Hessian takes part.
    let u = array![0.5, -1.5, 0.25, 2.0, -0.75, 1.0];
    let w = array![-1.0, 0.5, 1.5, -0.25, 2.0, 0.125];
    let want: f64 = (0..x.len())
        .flat_map(|j| (0..x.len()).map(move |k| (j, k)))
        .map(|(j, k)| u[j] * h[j][k] * w[k])
        .sum();
    let got = d2.call((x.clone(), u, w)).unwrap().as_f64().unwrap();
    assert!(close(got, want, 1e-13), "{got} vs {want}");
}

fn unruled(x: f64) -> f64 {
    x * 3.0
}

#[tracked]
fn uses_unruled(x: f64) -> f64 {
    unruled(x).sin()
}

#[test]
fn an_operation_without_a_rule_is_an_error_naming_it() {
    register_operation(unruled);
    let p = Program::from_trace(&track(uses_unruled, (1.0,)), &[Input::Dynamic]).unwrap();
    let e = differentiate(&p, &[0]).unwrap_err();
    let DiffError::NoRule { operation, .. } = &e else {
        panic!("{e}")
    };
    assert!(operation.ends_with("unruled"), "{e}");
    assert!(e.to_string().contains("register_rule"), "{e}");
}

#[tracked]
fn relu_sum(x: f64) -> f64 {
    let y = if x > 0.0 { x * x } else { 0.5 * x };
    y + 1.0
}

#[test]
fn a_derivative_keeps_the_guards_of_the_recorded_path() {
    let p = Program::from_trace(&track(relu_sum, (2.0,)), &[Input::Dynamic]).unwrap();
    let d = differentiate(&p, &[0]).unwrap();
    assert_eq!(d.call((3.0, 1.0)).unwrap().as_f64(), Some(6.0));
    let e = d.call((-3.0, 1.0)).unwrap_err();
    assert!(matches!(e, ReplayError::Guard { .. }), "{e}");
}

#[tracked]
fn clamp_dyn(x: f64, lo: f64, hi: f64) -> f64 {
    x.clamp(lo, hi) * 2.0
}

#[tracked]
fn int_ratio(x: f64, a: i32, b: i32) -> f64 {
    x * 2.0 + (a / b) as f64
}

/// Casts between integers: their emitted tie tests were `n.fract()` on an `i32`, which does
/// not compile (a tester, 2026-11-27); only the float-to-integer cast jumps.
#[tracked]
fn int_casts(x: f64) -> f64 {
    let n = (x * 10.0) as i32;
    (n as u8) as f64 + (n as i8) as f64 * x
}

#[test]
fn emitted_integer_casts_compile_and_run() {
    use emitted_scalar::int_casts_d1;
    // n = 12 on [1.2, 1.3): the slope is n.
    assert_eq!(int_casts_d1(1.23).unwrap()(1.0), Ok(12.0));
    assert_eq!(int_casts_d1(1.25).unwrap()(2.0), Ok(24.0));
    // No branch depends on n: at 1.31 (n = 13) the slope is 13; at an integer of 10x the
    // cast jumps, and emitted code refuses.
    assert_eq!(int_casts_d1(1.31).unwrap()(1.0), Ok(13.0));
    assert!(int_casts_d1(1.5).is_err());
}

/// Where the function has no value, neither has its derivative: `clamp` with bounds out of
/// order or NaN panics in Rust (the program: `EvalError::Domain`), `a / b` at `b = 0` too (the
/// program: `EvalError::Overflow`). The derivative does not read those operations' values
/// (`d(clamp(x, lo, hi) · 2) = 2 dx` inside the bounds, `d(2x + a/b) = 2 dx`), and dead-code
/// elimination dropped them with their checks: the derivative programs returned 0 and 2 there
/// until 2026-11-28. An operation that can fail now stays in every derivative program, and
/// emitted code returns `Err` where the program does (checked integer arithmetic, `clamp`'s
/// bounds tested) instead of panicking.
#[test]
fn a_derivative_program_fails_where_the_function_has_no_value() {
    let all = [Input::Dynamic, Input::Dynamic, Input::Dynamic];
    let p = Program::from_trace(&track(clamp_dyn, (0.5, 0.0, 1.0)), &all).unwrap();
    let d = differentiate(&p, &[0]).unwrap();
    // Inside the bounds: d/dx (2 clamp(x, 0, 1)) = 2; below them 0 (the bound's tangent).
    assert_eq!(d.call((0.5, 0.0, 1.0, 1.0)).unwrap().as_f64(), Some(2.0));
    assert_eq!(d.call((-0.5, 0.0, 1.0, 1.0)).unwrap().as_f64(), Some(0.0));
    for (lo, hi) in [(1.0, 0.0), (f64::NAN, 1.0), (0.0, f64::NAN)] {
        assert!(
            p.call((0.5, lo, hi)).is_err(),
            "the program at [{lo}, {hi}]"
        );
        let e = d.call((0.5, lo, hi, 1.0)).unwrap_err();
        assert!(
            matches!(&e, ReplayError::Eval { error, .. } if error.to_string().contains("clamp")),
            "the derivative at [{lo}, {hi}]: {e}"
        );
        // And the second derivative, and the gradient.
        let d2 = differentiate(&d, &[0]).unwrap();
        assert!(d2.call((0.5, lo, hi, 1.0, 1.0)).is_err());
        assert!(reverse(&p, 0).unwrap().call((0.5, lo, hi, 1.0)).is_err());
    }
    let q = Program::from_trace(&track(int_ratio, (0.5, 7, 2)), &all).unwrap();
    let dq = differentiate(&q, &[0]).unwrap();
    // d/dx (2x + 7 / 2) = 2.
    assert_eq!(dq.call((0.5, 7, 2, 1.0)).unwrap().as_f64(), Some(2.0));
    for (a, b) in [(7, 0), (i32::MIN, -1)] {
        assert!(q.call((0.5, a, b)).is_err(), "{a} / {b}");
        let e = dq.call((0.5, a, b, 1.0)).unwrap_err();
        assert!(matches!(e, ReplayError::Eval { .. }), "{a} / {b}: {e}");
        assert!(reverse(&q, 0).unwrap().call((0.5, a, b, 1.0)).is_err());
    }
    // The emitted derivatives return `Err` where the program fails, and agree elsewhere.
    use emitted_scalar::{clamp_dyn_d1, int_ratio_d1};
    assert_eq!(clamp_dyn_d1(0.5, 0.0, 1.0).unwrap()(1.0), Ok(2.0));
    assert_eq!(clamp_dyn_d1(-0.5, 0.0, 1.0).unwrap()(1.0), Ok(0.0));
    for (lo, hi) in [(1.0, 0.0), (f64::NAN, 1.0), (0.0, f64::NAN)] {
        let e = clamp_dyn_d1(0.5, lo, hi).err().unwrap();
        assert!(e.contains("clamp"), "{e}");
    }
    // At a bound, the program checks its path there (`program::ties`: one kink alone keeps
    // its side, 2 as if inside); emitted code cannot, and refuses every tie.
    let clamp_d = differentiate(
        &Program::from_trace(
            &track(clamp_dyn, (0.5, 0.0, 1.0)),
            &[Input::Dynamic, Input::Dynamic, Input::Dynamic],
        )
        .unwrap(),
        &[0],
    )
    .unwrap();
    assert_eq!(
        clamp_d.call((0.0, 0.0, 1.0, 1.0)).unwrap().as_f64(),
        Some(2.0)
    );
    for x in [0.0, 1.0] {
        let e = clamp_dyn_d1(x, 0.0, 1.0).err().unwrap();
        assert!(
            e.contains("at a tie") && e.contains("call the program"),
            "{e}"
        );
    }
    assert_eq!(int_ratio_d1(0.5, 7, 2).unwrap()(1.0), Ok(2.0));
    for (a, b) in [(7, 0), (i32::MIN, -1)] {
        let e = int_ratio_d1(0.5, a, b).err().unwrap();
        assert!(e.contains("divides by zero"), "{e}");
    }
}

#[tracked]
fn atan_of_exp(x: f64) -> f64 {
    x.exp().atan()
}

#[tracked]
fn nan_of_its_own(x: f64) -> f64 {
    (x - 1.0).sqrt() + x
}

/// No derivative is NaN. `atan(exp(x))` is π/2 at 710 and its slope `e^x / (1 + e^2x)` about
/// e^-710 ≈ 4.5e-309, but `exp(710)` overflows and the rule's `over(dx, 1 + x²)` is ∞ / ∞; the
/// second and third derivatives of `sin(x) exp(x)` there (2 e^x cos x, 2 e^x (cos x - sin x),
/// past `f64`'s range) are ∞ − ∞. Until 2026-11-28 the derivative programs returned NaN
/// (`jvp` refused: it looks where a NaN was born); now `Program::call` does the same for every
/// derivative program and returns `ReplayError::NotANumber` naming the operation. A NaN the
/// function itself has (`sqrt` below its domain) or one in the inputs passes through, and a
/// program that is no derivative returns its NaN as it is. Emitted code refuses every NaN
/// (`Noted::checked`).
#[test]
fn a_derivative_never_returns_a_nan_made_from_numbers() {
    let p = Program::from_trace(&track(atan_of_exp, (1.0,)), &[Input::Dynamic]).unwrap();
    let d = differentiate(&p, &[0]).unwrap();
    assert_eq!(
        p.call((710.0,)).unwrap().as_f64(),
        Some(std::f64::consts::FRAC_PI_2)
    );
    match d.call((710.0, 1.0)).unwrap_err() {
        ReplayError::NotANumber { operation, at } => {
            assert_eq!(operation, "over");
            assert_eq!(at.function, "atan_of_exp");
        }
        e => panic!("{e:?}"),
    }
    // Elsewhere the closed form 1 / (e^-x + e^x).
    for x in [-3.0f64, 0.0, 1.0, 20.0] {
        let want = 1.0 / ((-x).exp() + x.exp());
        let got = d.call((x, 1.0)).unwrap().as_f64().unwrap();
        assert!(close(got, want, 1e-14), "{x}: {got} vs {want}");
    }
    // `jvp` refuses too (the gradient's sweep sees the limit first).
    assert!(jvp(atan_of_exp, (710.0,), (1.0,)).is_err());
    let p = Program::from_trace(&track(sin_exp, (1.0,)), &[Input::Dynamic]).unwrap();
    let d2 = nth(&p, 2);
    let d3 = nth(&p, 3);
    let e = d2.call((710.0, 1.0, 1.0)).unwrap_err();
    assert!(matches!(e, ReplayError::NotANumber { .. }), "{e:?}");
    let e = d3.call((710.0, 1.0, 1.0, 1.0)).unwrap_err();
    assert!(matches!(e, ReplayError::NotANumber { .. }), "{e:?}");
    assert!(e.to_string().contains("not a number"), "{e}");
    // 709: 2 e^709 cos(709) is a number.
    let x = 709.0f64;
    let got = d2.call((x, 1.0, 1.0)).unwrap().as_f64().unwrap();
    assert!(close(got, 2.0 * x.exp() * x.cos(), 1e-9), "{got}");
    // The function's own NaN: sqrt(x - 1) + x below 1 is NaN, and so is its derivative.
    let p = Program::from_trace(&track(nan_of_its_own, (2.0,)), &[Input::Dynamic]).unwrap();
    let d = differentiate(&p, &[0]).unwrap();
    assert!(p.call((0.5,)).unwrap().as_f64().unwrap().is_nan());
    assert!(d.call((0.5, 1.0)).unwrap().as_f64().unwrap().is_nan());
    // 1 / (2 sqrt(x - 1)) + 1 at 2: 1.5.
    assert_eq!(d.call((2.0, 1.0)).unwrap().as_f64(), Some(1.5));
    // A NaN input passes through.
    let d = differentiate(
        &Program::from_trace(&track(atan_of_exp, (1.0,)), &[Input::Dynamic]).unwrap(),
        &[0],
    )
    .unwrap();
    assert!(d.call((f64::NAN, 1.0)).unwrap().as_f64().unwrap().is_nan());
    // Emitted code refuses the NaN, and agrees elsewhere.
    use emitted_scalar::atan_of_exp_d1;
    assert!(atan_of_exp_d1(710.0).unwrap()(1.0).is_err());
    assert_eq!(
        atan_of_exp_d1(1.0).unwrap()(1.0).map(f64::to_bits),
        Ok(d.call((1.0, 1.0)).unwrap().as_f64().unwrap().to_bits())
    );
}

#[test]
fn static_and_integer_inputs_are_refused() {
    let p =
        Program::from_trace(&track(series, (0.5, 3)), &[Input::Dynamic, Input::Static]).unwrap();
    let e = differentiate(&p, &[1]).unwrap_err();
    assert!(matches!(e, DiffError::Input { index: 1, .. }), "{e}");
    let p =
        Program::from_trace(&track(series, (0.5, 3)), &[Input::Dynamic, Input::Dynamic]).unwrap();
    let e = differentiate(&p, &[1]).unwrap_err();
    assert!(e.to_string().contains("i32"), "{e}");
}

#[test]
fn reverse_gives_the_gradient() {
    let p = Program::from_trace(
        &track(rosenbrock, (vec![1.0; 4], 4)),
        &[Input::Dynamic, Input::Static],
    )
    .unwrap();
    let g = reverse(&p, 0).unwrap();
    let x = vec![0.5, -1.0, 2.0, 1.5];
    let grad = g.call((x.clone(), 4usize, 1.0)).unwrap();
    let grad = grad.downcast_ref::<Vec<f64>>().unwrap().clone();
    let h = 1e-6;
    for k in 0..4 {
        let mut a = x.clone();
        let mut b = x.clone();
        a[k] += h;
        b[k] -= h;
        let fd = (rosenbrock(a, 4) - rosenbrock(b, 4)) / (2.0 * h);
        assert!(close(grad[k], fd, 1e-7), "{k}: {} vs {fd}", grad[k]);
    }
}

// Emitted Rust, checked in (`emitted_modules_are_fresh` regenerates it) and called below.

#[rustfmt::skip]
#[path = "emitted/scalar.rs"]
mod emitted_scalar;
#[rustfmt::skip]
#[path = "emitted/vector.rs"]
mod emitted_vector;
#[rustfmt::skip]
#[path = "emitted/frechet.rs"]
mod emitted_frechet;

/// `program` differentiated `k` times with respect to its first input.
fn nth(program: &Program, k: usize) -> Program {
    (0..k).fold(program.clone(), |p, _| differentiate(&p, &[0]).unwrap())
}

/// The source of each module under `tests/emitted/`.
fn emitted_modules() -> Vec<(&'static str, String)> {
    use irtrack::diff::emit_rust;
    roll_rules();
    let header = |preamble: &str| {
        format!(
            "//! Emitted by `irtrack::diff::emit_rust` from the programs of `tests/diff.rs`; do not\n\
             //! edit. `emitted_modules_are_fresh` fails when it is stale, and\n\
             //! `IRTRACK_BLESS=1 cargo test --test diff emitted` writes it again.\n{preamble}"
        )
    };
    let module = |preamble: &str, functions: Vec<(&str, Program)>| {
        let mut src = header(preamble);
        for (name, p) in functions {
            src.push('\n');
            src.push_str(&emit_rust(&p, name).unwrap());
        }
        src
    };
    let dynamic = |t: &irtrack::Trace| Program::from_trace(t, &[Input::Dynamic]).unwrap();
    let sin_exp_p = dynamic(&track(sin_exp, (0.3,)));
    let series_p =
        Program::from_trace(&track(series, (0.5, 7)), &[Input::Dynamic, Input::Static]).unwrap();
    let power_p =
        Program::from_trace(&track(power, (1.1, 6u32)), &[Input::Dynamic, Input::Static]).unwrap();
    let relu_p = dynamic(&track(relu_sum, (2.0,)));
    let recip_p = dynamic(&track(recip_recip, (0.5,)));
    let all3 = [Input::Dynamic, Input::Dynamic, Input::Dynamic];
    let clamp_p = Program::from_trace(&track(clamp_dyn, (0.5, 0.0, 1.0)), &all3).unwrap();
    let ratio_p = Program::from_trace(&track(int_ratio, (0.5, 7, 2)), &all3).unwrap();
    let atan_exp_p = dynamic(&track(atan_of_exp, (1.0,)));
    let nan_sign_p = dynamic(&track(neg_nan_sign, (1.5,)));
    let nan_sign_sq_p = dynamic(&track(neg_nan_sign_sq, (1.5,)));
    let both = [Input::Dynamic, Input::Dynamic];
    let shift_p = Program::from_trace(&track(shift_scale, (3u32, 1.5)), &both).unwrap();
    let pick_p = Program::from_trace(&track(pick, (vec![1.0, 2.0], 1.5)), &both).unwrap();
    let casts_p = dynamic(&track(int_casts, (1.23,)));
    let scalar = module(
        "",
        vec![
            ("sin_exp_d1", nth(&sin_exp_p, 1)),
            ("sin_exp_d2", nth(&sin_exp_p, 2)),
            ("sin_exp_d3", nth(&sin_exp_p, 3)),
            ("sin_exp_d4", nth(&sin_exp_p, 4)),
            ("series_d2", nth(&series_p, 2)),
            ("power_d3", nth(&power_p, 3)),
            ("relu_sum_d1", nth(&relu_p, 1)),
            ("recip_recip_d1", nth(&recip_p, 1)),
            ("recip_recip_d2", nth(&recip_p, 2)),
            ("recip_recip_grad", reverse(&recip_p, 0).unwrap()),
            ("clamp_dyn_d1", nth(&clamp_p, 1)),
            ("int_ratio_d1", nth(&ratio_p, 1)),
            ("atan_of_exp_d1", nth(&atan_exp_p, 1)),
            ("neg_nan_sign_p", nan_sign_p),
            ("neg_nan_sign_sq_d1", nth(&nan_sign_sq_p, 1)),
            ("shift_scale_p", shift_p),
            ("pick_p", pick_p),
            ("int_casts_d1", nth(&casts_p, 1)),
        ],
    );
    let rosen = Program::from_trace(
        &track(rosenbrock, (vec![1.0; 10], 10)),
        &[Input::Dynamic, Input::Static],
    )
    .unwrap();
    let rosen_grad = reverse(&rosen, 0).unwrap();
    let mixed_p = Program::from_trace(
        &track(mixed, (vec![0.7, -1.2, 0.4], 1.3, 3)),
        &[Input::Dynamic, Input::Dynamic, Input::Static],
    )
    .unwrap();
    let vector = module(
        "",
        vec![
            ("rosenbrock_grad", rosen_grad.clone()),
            ("rosenbrock_hvp", differentiate(&rosen_grad, &[0]).unwrap()),
            ("mixed_jvp", differentiate(&mixed_p, &[0, 1]).unwrap()),
        ],
    );
    let f = dynamic(&track(frechet_f, (array![1.0, 2.0, 3.0],)));
    let g = dynamic(&track(frechet_g, (array![1.0, 2.0, 3.0],)));
    let frechet = module(
        "\nuse super::roll;\n",
        vec![
            ("frechet_f", f.clone()),
            ("frechet_f_d1", nth(&f, 1)),
            ("frechet_g_d2", nth(&g, 2)),
            ("frechet_g_grad", reverse(&g, 0).unwrap()),
            (
                "frechet_g_hvp",
                differentiate(&reverse(&g, 0).unwrap(), &[0]).unwrap(),
            ),
        ],
    );
    vec![
        ("tests/emitted/scalar.rs", scalar),
        ("tests/emitted/vector.rs", vector),
        ("tests/emitted/frechet.rs", frechet),
    ]
}

#[test]
fn emitted_modules_are_fresh() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("IRTRACK_BLESS").is_some();
    let mut stale = Vec::new();
    for (path, src) in emitted_modules() {
        let file = root.join(path);
        if std::fs::read_to_string(&file).ok().as_deref() == Some(src.as_str()) {
            continue;
        }
        if bless {
            std::fs::write(&file, &src).unwrap();
        } else {
            stale.push(path);
        }
    }
    assert!(
        stale.is_empty(),
        "stale emitted code in {stale:?}: run `IRTRACK_BLESS=1 cargo test --test diff emitted`, \
         review the diff and commit it"
    );
}

#[test]
fn emitted_scalar_derivatives_match_closed_forms() {
    use emitted_scalar::*;
    for x in [-1.3f64, 0.2, 0.7, 2.5] {
        let (s, c, e) = (x.sin(), x.cos(), x.exp());
        let got = [
            sin_exp_d1(x).unwrap()(1.0).unwrap(),
            sin_exp_d2(x).unwrap()(1.0)(1.0).unwrap(),
            sin_exp_d3(x).unwrap()(1.0)(1.0)(1.0).unwrap(),
            sin_exp_d4(x).unwrap()(1.0)(1.0)(1.0)(1.0).unwrap(),
        ];
        let want = [e * (s + c), 2.0 * e * c, 2.0 * e * (c - s), -4.0 * e * s];
        for (k, (g, w)) in got.iter().zip(want).enumerate() {
            assert!(close(*g, w, 1e-10), "order {} at {x}: {g} vs {w}", k + 1);
        }
        // Multilinear in the directions.
        let d2 = sin_exp_d2(x).unwrap();
        assert!(close(d2(2.0)(-3.0).unwrap(), -6.0 * want[1], 1e-12));
        let series_want: f64 = (2..7).map(|i| falling(i, 2) * x.powi(i - 2)).sum();
        assert!(close(
            series_d2(x).unwrap()(1.0)(1.0).unwrap(),
            series_want,
            1e-10
        ));
        let power_want = falling(6, 3) * x.powi(3);
        assert!(close(
            power_d3(x).unwrap()(1.0)(1.0)(1.0).unwrap(),
            power_want,
            1e-10
        ));
    }
    assert_eq!(relu_sum_d1(3.0).unwrap()(1.0), Ok(6.0));
    let e = relu_sum_d1(-3.0).err().unwrap();
    assert!(
        e.contains("relu_sum") && e.contains("== true expected"),
        "{e}"
    );
}

#[tracked]
fn recip_recip(x: f64) -> f64 {
    1.0 / (1.0 / x)
}

/// `1 / (1 / x)` has the slope 1 everywhere, but at 0 its derivative programs multiply the
/// slope 0 of `1 / u` at `u = ∞` (a limit) by the infinite slope of `1 / x`, and at 1e±160 a
/// slope overflows (-1e320) and then meets a factor that should have brought it back. The
/// programs refuse those points (`ReplayError`); the emitted code returned 0 and ∞ there until
/// 2026-11-27. Now it never returns a value its program would not: it refuses what it cannot
/// vouch for (a zero that took an infinity, an infinite value) and agrees elsewhere, bit for bit.
#[test]
fn emitted_derivatives_refuse_what_they_cannot_vouch_for() {
    use emitted_scalar::*;
    let p = Program::from_trace(&track(recip_recip, (0.5,)), &[Input::Dynamic]).unwrap();
    let (d1, grad) = (differentiate(&p, &[0]).unwrap(), reverse(&p, 0).unwrap());
    let d2 = differentiate(&d1, &[0]).unwrap();
    let f64_of = |r: Result<Value, ReplayError>| r.map(|v| *v.downcast_ref::<f64>().unwrap());
    let points = [
        0.0, -0.0, 1e-160, -1e-160, 1e160, -1e160, 1e-155, 1e-200, 1e200, 1e-100, 1e100, 0.5, -3.0,
    ];
    let mut refused = 0;
    for x in points {
        let cases = [
            (f64_of(d1.call((x, 1.0))), recip_recip_d1(x).unwrap()(1.0)),
            (
                f64_of(grad.call((x, 1.0))),
                recip_recip_grad(x).unwrap()(1.0),
            ),
            (
                f64_of(d2.call((x, 1.0, 1.0))),
                recip_recip_d2(x).unwrap()(1.0)(1.0),
            ),
        ];
        for (k, (program, emitted)) in cases.into_iter().enumerate() {
            match emitted {
                Ok(e) => assert_eq!(
                    program.map(f64::to_bits).ok(),
                    Some(e.to_bits()),
                    "case {k} at {x}"
                ),
                Err(e) => {
                    assert!(
                        e.starts_with("recip_recip") && e.contains("cannot tell"),
                        "{e}"
                    );
                    refused += 1;
                }
            }
        }
    }
    assert!(refused >= 6, "{refused}");
    // Elsewhere the slope 1, as the program gives it.
    for x in [0.5, -3.0, 1e-100, 1e100] {
        assert_eq!(recip_recip_d1(x).unwrap()(2.0), Ok(2.0), "{x}");
        assert_eq!(recip_recip_grad(x).unwrap()(-1.5), Ok(-1.5), "{x}");
        // A cotangent of 0 gives 0: the mask that makes the derivative NaN where the function
        // has no value took the NaN into that zero, which emitted code refused at every input
        // (log-sum-exp's gradient never answered; a tester, 2026-11-28).
        assert_eq!(recip_recip_grad(x).unwrap()(0.0), Ok(0.0), "{x}");
    }
    // A zero direction that meets the infinite slope at 0 is an exact zero, which the program
    // tells apart and emitted code does not: refused, not answered wrongly.
    assert!(recip_recip_d1(0.0).unwrap()(0.0).is_err());
}

fn basis(n: usize) -> Vec<Vec<f64>> {
    (0..n)
        .map(|j| (0..n).map(|i| if i == j { 1.0 } else { 0.0 }).collect())
        .collect()
}

#[test]
fn emitted_reverse_programs_give_the_gradient_and_the_hessian() {
    use emitted_vector::*;
    let x: Vec<f64> = vec![1.0, -2.0, 3.0, 0.0, 5.0, -1.0, 2.0, 4.0, -3.0, 1.0];
    let grad = rosenbrock_grad(x.clone()).unwrap()(1.0).unwrap();
    let h = 1e-6;
    for k in 0..10 {
        let (mut a, mut b) = (x.clone(), x.clone());
        a[k] += h;
        b[k] -= h;
        let fd = (rosenbrock(a, 10) - rosenbrock(b, 10)) / (2.0 * h);
        assert!(close(grad[k], fd, 1e-7), "{k}: {} vs {fd}", grad[k]);
    }
    // Hessian-vector products with basis vectors: the Hessian, exactly.
    let want = rosenbrock_hessian(&x);
    let hvp = rosenbrock_hvp(x.clone()).unwrap()(1.0);
    for (j, e) in basis(10).into_iter().enumerate() {
        let column = hvp(e).unwrap();
        for (i, row) in want.iter().enumerate() {
            assert_eq!(column[i], row[j], "H[{i}, {j}]");
        }
    }
}

#[test]
fn emitted_jvp_of_two_inputs_matches_finite_differences() {
    let (x, y) = (vec![0.7, -1.2, 0.4], 1.3);
    let (vx, vy) = (vec![0.3, -0.5, 1.1], 0.7);
    let jv = emitted_vector::mixed_jvp(x.clone(), y).unwrap()(vx.clone(), vy).unwrap();
    let h = 1e-6;
    let at = |t: f64| {
        let xs: Vec<f64> = x.iter().zip(&vx).map(|(a, b)| a + t * b).collect();
        mixed(xs, y + t * vy, 3)
    };
    let (p, m) = (at(h), at(-h));
    for i in 0..3 {
        let fd = (p[i] - m[i]) / (2.0 * h);
        assert!(close(jv[i], fd, 1e-7), "[{i}]: {} vs {fd}", jv[i]);
    }
}

#[test]
fn emitted_frechet_examples() {
    use emitted_frechet::*;
    let x = array![0.3, -1.2, 2.5, 0.8, -0.6, 1.9];
    let n = x.len();
    assert_eq!(frechet_f(x.clone()).unwrap(), &x * &roll(x.clone(), 1));
    // The Jacobian from basis vectors, as FrechetDiff's example builds it.
    let df = frechet_f_d1(x.clone()).unwrap();
    for (k, e) in basis(n).into_iter().enumerate() {
        let column = df(Array1::from(e)).unwrap();
        for i in 0..n {
            let prev = (i + n - 1) % n;
            let want = if k == i {
                x[prev]
            } else if k == prev {
                x[i]
            } else {
                0.0
            };
            assert_eq!(column[i], want, "J[{i}, {k}]");
        }
    }
    let want = frechet_hessian(&x);
    let d2 = frechet_g_d2(x.clone()).unwrap();
    let grad = frechet_g_grad(x.clone()).unwrap()(1.0).unwrap();
    let h = 1e-6;
    for (j, ej) in basis(n).into_iter().enumerate() {
        let row = d2(Array1::from(ej));
        for (k, ek) in basis(n).into_iter().enumerate() {
            assert!(
                close(row(Array1::from(ek)).unwrap(), want[j][k], 1e-14),
                "H[{j}, {k}]"
            );
        }
        let (mut a, mut b) = (x.clone(), x.clone());
        a[j] += h;
        b[j] -= h;
        let fd = (frechet_g(a) - frechet_g(b)) / (2.0 * h);
        assert!(close(grad[j], fd, 1e-7), "∇g[{j}]: {} vs {fd}", grad[j]);
    }
    // Forward over reverse: one Hessian column per basis vector.
    let hvp = frechet_g_hvp(x.clone()).unwrap()(1.0);
    for (k, ek) in basis(n).into_iter().enumerate() {
        let column = hvp(Array1::from(ek)).unwrap();
        for j in 0..n {
            assert!(close(column[j], want[j][k], 1e-14), "H[{j}, {k}]");
        }
    }
}

// Higher-order use: a gradient of a function that itself calls `gradient`.

#[tracked]
fn cubed_times(x: f64, y: f64) -> f64 {
    x * x * x * y
}

/// `∂/∂x (x³ y)` at `y = 3`: `9 x²`, taken inside a tracked function.
#[tracked]
fn inner_gradient(x: f64) -> f64 {
    let g = irtrack::gradient(cubed_times, (x, 3.0)).unwrap();
    g.scalars()[0].unwrap()
}

/// The same through an untracked helper: the helper's call is what takes the derivative.
fn helper(x: f64) -> f64 {
    irtrack::gradient(cubed_times, (x, 3.0)).unwrap().scalars()[0].unwrap()
}

#[tracked]
fn inner_gradient_in_helper(x: f64) -> f64 {
    helper(x) + x
}

#[test]
fn a_gradient_of_a_gradient_is_a_typed_error_naming_the_inner_call() {
    use irtrack::GradError;
    // Recording does not disturb the inner gradient: the traced value is the untracked one.
    let x = 2.0;
    assert_eq!(inner_gradient(x), 9.0 * x * x);
    let t = track(inner_gradient, (x,));
    assert_eq!(t.root().value::<f64>(), Some(&(9.0 * x * x)));

    let e = irtrack::gradient(inner_gradient, (x,)).unwrap_err();
    let GradError::HigherOrder { at, cause } = &e else {
        panic!("{e}")
    };
    assert_eq!(at.function, "inner_gradient", "{e}");
    assert!(at.statement.contains("gradient"), "{e}");
    assert!(matches!(**cause, GradError::NoRule { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("higher-order") && text.contains("irtrack::diff"),
        "{text}"
    );

    let e = irtrack::gradient(inner_gradient_in_helper, (x,)).unwrap_err();
    let GradError::HigherOrder { at, .. } = &e else {
        panic!("{e}")
    };
    assert!(at.statement.contains("helper"), "{e}");

    // The other ways into a backward pass say the same.
    let (_, back) = irtrack::pullback(inner_gradient, (x,));
    let e = back.call(1.0).unwrap_err();
    assert!(matches!(e, GradError::HigherOrder { .. }), "{e}");
    let mut t = track(inner_gradient, (x,));
    let e = t.backward(1.0).unwrap_err();
    assert!(matches!(e, GradError::HigherOrder { .. }), "{e}");
}

#[test]
fn derivative_entry_points_name_higher_order_use_too() {
    let x = 2.0;
    for e in [
        jvp(inner_gradient, (x,), (1.0,)).map(|_| ()).unwrap_err(),
        hessian(inner_gradient, (x,)).map(|_| ()).unwrap_err(),
        vjp(inner_gradient, (x,), 1.0).map(|_| ()).unwrap_err(),
    ] {
        let DiffError::HigherOrder { at, .. } = &e else {
            panic!("{e}")
        };
        assert_eq!(at.function, "inner_gradient", "{e}");
        assert!(at.location.is_some(), "{e}");
        assert!(e.to_string().contains("higher-order"), "{e}");
    }
}

#[test]
fn the_advice_of_the_higher_order_error_gives_the_derivative_of_the_gradient() {
    // d/dx (9 x²) = 18 x, from the inner function's program differentiated twice, and as the
    // Hessian's first entry.
    let p = Program::from_trace(
        &track(cubed_times, (2.0, 3.0)),
        &[Input::Dynamic, Input::Static],
    )
    .unwrap();
    for x in [-1.5, 2.0, 3.25] {
        let got = derivative_at(&p, 2, x, &[Value::snapshot(3.0f64)]);
        assert!(close(got, 18.0 * x, 1e-12), "{got} vs {}", 18.0 * x);
        let h = hessian(cubed_times, (x, 3.0)).unwrap();
        assert!(close(h[(0, 0)], 18.0 * x, 1e-12), "{:?}", h);
    }
}

// FrechetDiff's third example, an operator on functions, `A(f) = ∫₀¹ sin(f(t)) f'(t) dt`
// (with ApproxFun there), on functions sampled at m + 1 points of [0, 1]: the midpoint rule,
// `A_h(f) = Σᵢ sin((fᵢ + fᵢ₊₁)/2)·(fᵢ₊₁ − fᵢ)`.

/// `(fᵢ + fᵢ₊₁)/2`, one element fewer than `f`.
fn midpoints(f: Array1<f64>) -> Array1<f64> {
    Array1::from_shape_fn(f.len() - 1, |i| 0.5 * (f[i] + f[i + 1]))
}

/// `fᵢ₊₁ − fᵢ`, one element fewer than `f`.
fn steps(f: Array1<f64>) -> Array1<f64> {
    Array1::from_shape_fn(f.len() - 1, |i| f[i + 1] - f[i])
}

fn operator_rules() {
    register_operation(midpoints);
    register_operation(steps);
    register_rule(midpoints, Rule::linear(0));
    register_rule(steps, Rule::linear(0));
}

#[tracked]
fn operator_a(f: Array1<f64>) -> f64 {
    let m = midpoints(f.clone());
    let d = steps(f.clone());
    (m.mapv(f64::sin) * d).sum()
}

#[test]
fn frechet_operator_example_on_sampled_functions() {
    operator_rules();
    let m = 2000;
    let t = Array1::from_shape_fn(m + 1, |i| i as f64 / m as f64);
    let f = t.mapv(f64::sin);
    let g = t.clone();
    // A(sin) = 1 − cos(sin 1) and A'(f)g = sin(f(1)) g(1) − sin(f(0)) g(0) = sin(sin 1), the
    // figures FrechetDiff prints (0.33363…, 0.74562…), up to the rule's O(h²).
    let value = operator_a(f.clone());
    assert!((value - (1.0 - 1f64.sin().cos())).abs() < 1e-7, "{value}");
    let j = jvp(operator_a, (f.clone(),), (g.clone(),)).unwrap();
    let d = j.tangent.as_f64().unwrap();
    assert!((d - 1f64.sin().sin()).abs() < 1e-7, "{d}");
    assert!((d - 0.7456241416655578).abs() < 1e-7, "{d}");
    // Exactly, the derivative of the sum: Σ cos(f̄ᵢ) ḡᵢ Δfᵢ + sin(f̄ᵢ) Δgᵢ.
    let (fm, fd) = (midpoints(f.clone()), steps(f.clone()));
    let (gm, gd) = (midpoints(g.clone()), steps(g.clone()));
    let want: f64 = (0..m)
        .map(|i| fm[i].cos() * gm[i] * fd[i] + fm[i].sin() * gd[i])
        .sum();
    assert!(close(d, want, 1e-12), "{d} vs {want}");
}

/// `Value::snapshot(())` is the unit value `().snapshot()` is, not a boxed `()` of another
/// type (a direction made that way was refused with "must be a `()` … not a `()`").
#[test]
fn a_unit_value_is_the_unit_value() {
    use irtrack::Snapshot;
    let u = Value::snapshot(());
    assert!(u.is_unit());
    assert!(u.same_type(&().snapshot()));
    assert_eq!(u.to_string(), ().snapshot().to_string());
}

// Emitted code that differed from the program (the fifth adversarial round, 2026-11-27): a
// NaN constant lost its sign (`-f64::NAN` was written `f64::NAN`, which `copysign` reads:
// +3 for -3), a shift by the width or more was masked (`1u32 << 40` gave 256 in a release
// build, where the program says overflow), and an index out of bounds panicked where the
// program returns an error.

#[tracked]
fn neg_nan_sign(x: f64) -> f64 {
    let c = -f64::NAN;
    x.copysign(c) * 2.0
}

#[tracked]
fn neg_nan_sign_sq(x: f64) -> f64 {
    let c = -f64::NAN;
    x.copysign(c) * x
}

#[tracked]
fn shift_scale(n: u32, x: f64) -> f64 {
    x * (1u32 << n) as f64
}

#[tracked]
fn pick(v: Vec<f64>, x: f64) -> f64 {
    let i = x as usize;
    v[i] * x
}

#[test]
fn emitted_code_keeps_a_nan_constants_sign() {
    use emitted_scalar::*;
    assert_eq!(neg_nan_sign(1.5), -3.0);
    assert_eq!(neg_nan_sign_p(1.5), Ok(-3.0));
    // -|x|·x has the slope -2|x|.
    for x in [1.5, -0.5] {
        assert_eq!(neg_nan_sign_sq_d1(x).unwrap()(1.0), Ok(-2.0 * f64::abs(x)));
    }
}

#[test]
fn emitted_shifts_and_indices_out_of_range_are_errors() {
    use emitted_scalar::*;
    assert_eq!(shift_scale_p(3, 1.5), Ok(shift_scale(3, 1.5)));
    assert!(shift_scale_p(40, 1.5).is_err());
    assert!(shift_scale_p(32, 1.5).is_err());
    assert_eq!(pick_p(vec![1.0, 2.0], 1.5), Ok(pick(vec![1.0, 2.0], 1.5)));
    assert!(pick_p(vec![1.0, 2.0], 5.0).is_err());
}

// ---- Two derivative programs' wrong numbers (a tester probing bad input, 2026-11-28).

/// A zero that is only a limit absorbed a NaN: `cos x · exp x` at -∞, `exp` 0 there as a limit
/// and `cos` NaN, gave the derivative 0 of a function that is NaN there (`gradient` refused).
#[test]
fn a_limit_zero_meeting_a_nan_is_indeterminate() {
    let p = Program::from_trace(&track(sin_exp, (0.3,)), &[Input::Dynamic]).unwrap();
    assert!(p
        .call((f64::NEG_INFINITY,))
        .unwrap()
        .as_f64()
        .unwrap()
        .is_nan());
    let d = differentiate(&p, &[0]).unwrap();
    let e = d.call((f64::NEG_INFINITY, 1.0)).unwrap_err();
    assert!(matches!(e, ReplayError::Indeterminate(_)), "{e}");
    let r = reverse(&p, 0).unwrap();
    assert!(matches!(
        r.call((f64::NEG_INFINITY, 1.0)),
        Err(ReplayError::Indeterminate(_))
    ));
    // An exact zero still absorbs a NaN: the direction 0.
    assert_eq!(d.call((-1e300, 0.0)).unwrap().as_f64(), Some(0.0));
    // Elsewhere the derivative is the closed form.
    let x = -2.0f64;
    let got = d.call((x, 1.0)).unwrap().as_f64().unwrap();
    assert!(close(got, x.exp() * (x.sin() + x.cos()), 1e-12));
}

#[tracked]
fn squares(x: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for t in &x {
        s += t * t;
    }
    s
}

#[tracked]
fn halves(x: Vec<f64>) -> Vec<f64> {
    vec![x[0] * 0.5, x[1] * 0.5]
}

/// A direction or cotangent of another length than its input's or the output's was read in
/// part: `[1, 1, 7]` for a 2-vector gave 6, the 7 ignored; a 3-element cotangent for a
/// 2-element output gave `[0.5, 0.5]`. Now `ReplayError::Shape`, naming the argument.
#[test]
fn a_direction_or_cotangent_of_another_shape_is_refused() {
    let p = Program::from_trace(&track(squares, (vec![1.0, 2.0],)), &[Input::Dynamic]).unwrap();
    let d = differentiate(&p, &[0]).unwrap();
    assert_eq!(
        d.call((vec![1.0, 2.0], vec![1.0, 1.0])).unwrap().as_f64(),
        Some(2.0 + 4.0)
    );
    for v in [vec![1.0, 1.0, 7.0], vec![1.0]] {
        let e = d.call((vec![1.0, 2.0], v)).unwrap_err();
        assert!(matches!(e, ReplayError::Shape { index: 1, .. }), "{e}");
        assert!(e.to_string().contains("argument 2"), "{e}");
    }
    let dd = differentiate(&d, &[0]).unwrap();
    let e = dd
        .call((vec![1.0, 2.0], vec![1.0, 1.0], vec![1.0, 1.0, 1.0]))
        .unwrap_err();
    assert!(matches!(e, ReplayError::Shape { index: 2, .. }), "{e}");

    let p = Program::from_trace(&track(halves, (vec![1.0, 2.0],)), &[Input::Dynamic]).unwrap();
    let r = reverse(&p, 0).unwrap();
    let ct = r.call((vec![1.0, 2.0], vec![1.0, 1.0])).unwrap();
    assert_eq!(ct.downcast_ref::<Vec<f64>>(), Some(&vec![0.5, 0.5]));
    let e = r.call((vec![1.0, 2.0], vec![1.0, 1.0, 1.0])).unwrap_err();
    assert!(matches!(e, ReplayError::Shape { index: 1, .. }), "{e}");
}

#[tracked]
fn on_an_array(x: [f64; 2]) -> f64 {
    x[0] * x[0] * x[1] + x[1].powf(2.5)
}

/// A fixed-size array is differentiable to `gradient` but not to derivative programs: `jvp`,
/// `jacobian` and `hessian` say so and what to take instead (they said "the first argument is
/// the one differentiated" of the first argument, and that its direction must be a `()`, "like
/// the argument"; a tester, 2026-11-28, third stop).
#[test]
fn a_fixed_size_array_is_refused_with_what_to_take_instead() {
    let g = irtrack::gradient(on_an_array, ([1.5, 2.0],)).unwrap();
    let dx = g.wrt[0].as_ref().unwrap().as_slice().unwrap().to_vec();
    assert_eq!(dx[0], 2.0 * 1.5 * 2.0);
    for e in [
        irtrack::diff::hessian(on_an_array, ([1.5, 2.0],)).unwrap_err(),
        irtrack::diff::jacobian(on_an_array, ([1.5, 2.0],)).unwrap_err(),
        irtrack::diff::jvp(on_an_array, ([1.5, 2.0],), ([1.0, 0.0],)).unwrap_err(),
    ] {
        let text = e.to_string();
        assert!(text.starts_with("argument 1: "), "{text}");
        assert!(
            text.contains("[f64; 2]") && text.contains("take it as a `Vec<f64>`"),
            "{text}"
        );
    }
    // An integer given a direction: said so, not "like the argument".
    let e = irtrack::diff::jvp(sin_exp_scaled, (0.5, 3), (1.0, 1)).unwrap_err();
    assert!(
        e.to_string().contains("argument 2 is not differentiated"),
        "{e}"
    );
}

#[tracked]
fn sin_exp_scaled(x: f64, k: i32) -> f64 {
    x.sin() * x.exp() * k as f64
}
