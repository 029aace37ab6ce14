//! FrechetDiff's examples (its `docs/src/examples.md`) on `ndarray` vectors: a program recorded
//! from `f(x) = x * roll(x, 1)`, its derivative program and the Rust emitted for both, the
//! Jacobian from basis vectors, the Hessian of `g(x) = x[0] * sum(x * roll(x, 1))` by
//! differentiating twice, and the derivative of the operator `A(f) = ∫₀¹ sin(f(t)) f'(t) dt` on
//! a sampled function.
//!
//! Run with `cargo run --example frechet`.

use irtrack::diff::{differentiate, emit_rust, hessian, jacobian, register_rule, Matrix, Rule};
use irtrack::program::{Input, Program};
use irtrack::{register_operation, track, tracked};
use ndarray::{array, Array1};

/// A circular shift, Julia's `circshift`: `roll(x, k)[i] = x[i - k]`, indices modulo `n`.
/// `ndarray` has none, so it is an operation of our own.
fn roll(x: Array1<f64>, k: i32) -> Array1<f64> {
    let n = x.len() as i64;
    Array1::from_shape_fn(x.len(), |i| x[(i as i64 - k as i64).rem_euclid(n) as usize])
}

#[tracked]
fn f(x: Array1<f64>) -> Array1<f64> {
    &x * &roll(x.clone(), 1)
}

#[tracked]
fn g(x: Array1<f64>) -> f64 {
    let y = &x * &roll(x.clone(), 1);
    x[0] * y.sum()
}

/// `(fᵢ + fᵢ₊₁)/2`: a sampled function's values at the midpoints, one fewer.
fn midpoints(f: Array1<f64>) -> Array1<f64> {
    Array1::from_shape_fn(f.len() - 1, |i| 0.5 * (f[i] + f[i + 1]))
}

/// `fᵢ₊₁ − fᵢ`: its steps, one fewer.
fn steps(f: Array1<f64>) -> Array1<f64> {
    Array1::from_shape_fn(f.len() - 1, |i| f[i + 1] - f[i])
}

/// FrechetDiff's operator `A(f) = ∫₀¹ sin(f(t)) f'(t) dt` (on ApproxFun functions there), on a
/// function sampled at m + 1 points of [0, 1], by the midpoint rule.
#[tracked]
fn a(f: Array1<f64>) -> f64 {
    let m = midpoints(f.clone());
    let d = steps(f.clone());
    (m.mapv(f64::sin) * d).sum()
}

fn print_matrix(m: &Matrix) {
    for i in 0..m.rows() {
        let row: Vec<String> = m
            .row(i)
            .iter()
            .map(|v| {
                if *v == 0.0 {
                    format!("{:>7}", "⋅")
                } else {
                    format!("{v:>7.4}")
                }
            })
            .collect();
        println!("  {}", row.join(" "));
    }
}

fn main() {
    // `roll` is a recorded operation (a program can run it on new inputs), and linear in `x`:
    // its tangent is `roll(v, k)`, and reverse mode shifts a cotangent back by `-k`.
    register_operation(roll);
    register_rule(
        roll,
        Rule::linear(0).transpose(|b, args, ct| {
            let back = b.neg(&args[1])?;
            b.call(roll, &[ct.clone(), back])
        }),
    );

    println!("# f(x) = x * roll(x, 1)\n");
    let x = array![0.45, 0.62, 0.29, 0.46, 0.28, 0.87];
    let program = Program::from_trace(&track(f, (x.clone(),)), &[Input::Dynamic])
        .expect("f has no guard and no untracked value");
    println!("{program}");
    println!(
        "{}",
        emit_rust(&program, "f").expect("f's operations have Rust")
    );

    println!("# Its derivative, v ↦ f'(x)v\n");
    let df = differentiate(&program, &[0]).expect("roll has a rule");
    println!("{df}");
    // Emitted, `roll(x, 1)` sits outside the closure: it is computed once per `x`.
    println!(
        "{}",
        emit_rust(&df, "df").expect("df's operations have Rust")
    );

    let v = array![0.12, -0.5, 0.33, 0.9, -0.27, 0.05];
    let dv = df
        .call((x.clone(), v.clone()))
        .expect("same shape as recorded");
    println!("f'(x)v = {dv}\n");

    // The Jacobian's columns are the derivative along the basis vectors; `jacobian` does the
    // same, computing what depends only on `x` once.
    println!("The Jacobian at x, column j = f'(x)eⱼ:");
    let n = x.len();
    let columns: Vec<Vec<f64>> = (0..n)
        .map(|j| {
            let e = Array1::from_shape_fn(n, |i| if i == j { 1.0 } else { 0.0 });
            let col = df.call((x.clone(), e)).expect("same shape as recorded");
            col.downcast_ref::<Array1<f64>>()
                .expect("f returns an Array1")
                .to_vec()
        })
        .collect();
    let by_columns = Matrix::from_columns(n, columns);
    print_matrix(&by_columns);
    let j = jacobian(f, (x.clone(),)).expect("roll has a rule");
    assert_eq!(j, by_columns);
    println!("(`jacobian(f, (x,))` gives the same matrix)\n");

    println!("# The Hessian of g(x) = x[0] * sum(x * roll(x, 1))\n");
    let program = Program::from_trace(&track(g, (x.clone(),)), &[Input::Dynamic])
        .expect("g has no guard and no untracked value");
    let d1 = differentiate(&program, &[0]).expect("roll has a rule");
    let d2 = differentiate(&d1, &[0]).expect("the rules' own operations have rules");
    println!("{d2}");
    println!(
        "{}",
        emit_rust(&d2, "d2g").expect("d2g's operations have Rust")
    );
    // FrechetDiff's `materialize_hessian`: g''(x)(eᵢ, eⱼ) for every pair.
    let columns: Vec<Vec<f64>> = (0..n)
        .map(|j| {
            (0..n)
                .map(|i| {
                    let e = |k: usize| Array1::from_shape_fn(n, |m| if m == k { 1.0 } else { 0.0 });
                    d2.call((x.clone(), e(i), e(j)))
                        .expect("same shape as recorded")
                        .as_f64()
                        .expect("g returns a float")
                })
                .collect()
        })
        .collect();
    let pairs = Matrix::from_columns(n, columns);
    println!("g''(x)(eᵢ, eⱼ):");
    print_matrix(&pairs);
    let h = hessian(g, (x.clone(),)).expect("roll has a rule and its transpose");
    // The closed form: ∂²g/∂xⱼ∂xₖ = [j = 0](xₖ₋₁ + xₖ₊₁) + [k = 0](xⱼ₋₁ + xⱼ₊₁)
    // + x₀([k = j - 1] + [k = j + 1]), indices modulo n.
    let (prev, next) = (|j: usize| (j + n - 1) % n, |j: usize| (j + 1) % n);
    let closed = |j: usize, k: usize| {
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
    let off = |m: &Matrix| {
        (0..n)
            .flat_map(|j| (0..n).map(move |k| (j, k)))
            .map(|(j, k)| (m[(j, k)] - closed(j, k)).abs())
            .fold(0.0, f64::max)
    };
    println!(
        "largest difference from the closed form: {:e} (pairs), {:e} (`hessian(g, (x,))`, \
         forward over reverse)",
        off(&pairs),
        off(&h)
    );
    println!("\n# An operator on functions: A(f) = ∫₀¹ sin(f(t)) f'(t) dt\n");
    // Both are linear: their tangents are themselves applied to the direction.
    register_operation(midpoints);
    register_operation(steps);
    register_rule(midpoints, Rule::linear(0));
    register_rule(steps, Rule::linear(0));
    let m = 1000;
    let t = Array1::from_shape_fn(m + 1, |i| i as f64 / m as f64);
    let sin_t = t.mapv(f64::sin);
    let program = Program::from_trace(&track(a, (sin_t.clone(),)), &[Input::Dynamic])
        .expect("a has no guard and no untracked value");
    let da = differentiate(&program, &[0]).expect("midpoints and steps have rules");
    println!("{da}");
    let value = a(sin_t.clone());
    let slope = da
        .call((sin_t, t))
        .expect("same shape as recorded")
        .as_f64()
        .expect("a returns a float");
    println!(
        "A(sin) = {value:.10} (exactly 1 - cos(sin 1) = {:.10})",
        1.0 - 1f64.sin().cos()
    );
    println!(
        "A'(sin)(t) = {slope:.10} (exactly sin(sin 1) = {:.10}; FrechetDiff prints 0.7456241416655578)",
        1f64.sin().sin()
    );
}
