//! Emitted by `irtrack::diff::emit_rust` from the programs of `tests/diff.rs`; do not
//! edit. `emitted_modules_are_fresh` fails when it is stale, and
//! `IRTRACK_BLESS=1 cargo test --test diff emitted` writes it again.

use super::roll;

/// The program `frechet_f` (no direction), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn frechet_f(
    x1: ndarray::Array1<f64>,
) -> Result<ndarray::Array1<f64>, &'static str> {
    let s1 = x1.clone();
    let s2 = roll(s1, 1_i32);
    let s3 = x1 * s2;
    Ok(s3)
}

/// The program `frechet_f'` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn frechet_f_d1(
    x1: ndarray::Array1<f64>,
) -> Result<
    impl Fn(ndarray::Array1<f64>) -> Result<ndarray::Array1<f64>, &'static str>,
    &'static str,
> {
    let s1 = x1.clone();
    let s2 = roll(s1, 1_i32);
    Ok(move |v1: ndarray::Array1<f64>| -> Result<ndarray::Array1<f64>, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        if v1.len() != x1.len() {
            return Err("frechet_f': v1 must have the length of x1");
        }
        let s3 = roll(v1.clone(), 1_i32);
        let s4 = noted1.times(&v1, &s2);
        let s5 = noted1.times(&x1, &s3);
        let s6 = s4 + s5;
        noted1
            .checked(
                s6,
                "frechet_f': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
            )
    })
}

/// The program `frechet_g''` (2 directions, a closure each), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn frechet_g_d2(
    x1: ndarray::Array1<f64>,
) -> Result<
    impl Fn(
        ndarray::Array1<f64>,
    ) -> Box<dyn Fn(ndarray::Array1<f64>) -> Result<f64, &'static str>>,
    &'static str,
> {
    let s1 = x1.clone();
    let s2 = roll(s1, 1_i32);
    let s3 = &x1 * &s2;
    let s4 = match x1.get(0_usize) {
        Some(&r) => r,
        None => return Err("frechet_g [§1:%5]: an index out of bounds on these inputs"),
    };
    let s5 = s3.sum();
    let s6 = s4 * s5;
    let s7 = s6 != s6;
    Ok(move |
        v1: ndarray::Array1<f64>,
    | -> Box<dyn Fn(ndarray::Array1<f64>) -> Result<f64, &'static str>> {
        let mut noted1 = irtrack::diff::Noted::default();
        if v1.len() != x1.len() {
            panic!("{}", "frechet_g'': v1 must have the length of x1");
        }
        let s8 = roll(v1.clone(), 1_i32);
        let s9 = noted1.times(&v1, &s2);
        let s10 = noted1.times(&x1, &s8);
        let s11 = s9 + s10;
        let s12 = v1[0_usize];
        let s13 = s11.sum();
        let s14 = noted1.times(s5, s12);
        let s15 = noted1.times(s4, s13);
        let s16 = s14 + s15;
        let s17 = if s7 { f64::NAN } else { s16 };
        let s18 = s17 != s17;
        let s2 = s2.clone();
        let x1 = x1.clone();
        Box::new(move |v2: ndarray::Array1<f64>| -> Result<f64, &'static str> {
            let mut noted2 = noted1;
            if v2.len() != x1.len() {
                return Err("frechet_g'': v2 must have the length of x1");
            }
            let s19 = roll(v2.clone(), 1_i32);
            let s20 = noted2.times(&v2, &s2);
            let s21 = noted2.times(&x1, &s19);
            let s22 = s20 + s21;
            let s23 = match v2.get(0_usize) {
                Some(&r) => r,
                None => {
                    return Err(
                        "frechet_g [§1:%5]: an index out of bounds on these inputs",
                    );
                }
            };
            let s24 = s22.sum();
            let s25 = noted2.times(&v1, &s19);
            let s26 = noted2.times(&v2, &s8);
            let s27 = s25 + s26;
            let s28 = s27.sum();
            let s29 = noted2.times(s12, s24);
            let s30 = noted2.times(s13, s23);
            let s31 = noted2.times(s4, s28);
            let s32 = s30 + s31;
            let s33 = s29 + s32;
            let s34 = if s7 { 0.0_f64 } else { s33 };
            let s35 = if s18 { f64::NAN } else { s34 };
            noted2
                .checked(
                    s35,
                    "frechet_g'': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
                )
        })
    })
}

/// The program `frechet_g*` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn frechet_g_grad(
    x1: ndarray::Array1<f64>,
) -> Result<impl Fn(f64) -> Result<ndarray::Array1<f64>, &'static str>, &'static str> {
    let s1 = x1.clone();
    let s2 = roll(s1, 1_i32);
    let s3 = &x1 * &s2;
    let s4 = match x1.get(0_usize) {
        Some(&r) => r,
        None => return Err("frechet_g [§1:%5]: an index out of bounds on these inputs"),
    };
    let s5 = s3.sum();
    Ok(move |v1: f64| -> Result<ndarray::Array1<f64>, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s6 = noted1.times(v1, s4);
        let s7 = noted1.times(v1, s5);
        let s8 = ndarray::Array::from_elem(s3.raw_dim(), s6);
        let s9 = irtrack::diff::sum_like(s8.clone(), &s2);
        let s10 = irtrack::diff::sum_like(s8, &x1);
        let s11 = noted1.times(&x1, &s10);
        let s12 = irtrack::diff::sum_like(s11, &s2);
        let s13 = noted1.times(&s2, &s9);
        let s14 = irtrack::diff::sum_like(s13, &x1);
        let s15 = roll(s12, -1_i32);
        let s16 = s14 + s15;
        let s17 = {
            let mut z = s16;
            z[0_usize] += s7;
            z
        };
        noted1
            .checked(
                s17,
                "frechet_g*: the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
            )
    })
}

/// The program `frechet_g*'` (2 directions, a closure each), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn frechet_g_hvp(
    x1: ndarray::Array1<f64>,
) -> Result<
    impl Fn(
        f64,
    ) -> Box<dyn Fn(ndarray::Array1<f64>) -> Result<ndarray::Array1<f64>, &'static str>>,
    &'static str,
> {
    let s1 = x1.clone();
    let s2 = roll(s1, 1_i32);
    let s3 = &x1 * &s2;
    let s4 = match x1.get(0_usize) {
        Some(&r) => r,
        None => return Err("frechet_g [§1:%5]: an index out of bounds on these inputs"),
    };
    Ok(move |
        v1: f64,
    | -> Box<dyn Fn(ndarray::Array1<f64>) -> Result<ndarray::Array1<f64>, &'static str>> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s5 = noted1.times(v1, s4);
        let s6 = ndarray::Array::from_elem(s3.raw_dim(), s5);
        let s7 = irtrack::diff::sum_like(s6.clone(), &s2);
        let s8 = irtrack::diff::sum_like(s6, &x1);
        let s9 = noted1.times(&x1, &s8);
        let s10 = irtrack::diff::sum_like(s9, &s2);
        let s11 = noted1.times(&s2, &s7);
        let s12 = irtrack::diff::sum_like(s11, &x1);
        let s13 = roll(s10, -1_i32);
        let s14 = s12 + s13;
        let s2 = s2.clone();
        let x1 = x1.clone();
        let s3 = s3.clone();
        Box::new(move |
            v2: ndarray::Array1<f64>,
        | -> Result<ndarray::Array1<f64>, &'static str> {
            let mut noted2 = noted1;
            if v2.len() != x1.len() {
                return Err("frechet_g*': v2 must have the length of x1");
            }
            let s15 = roll(v2.clone(), 1_i32);
            let s16 = noted2.times(&v2, &s2);
            let s17 = noted2.times(&x1, &s15);
            let s18 = s16 + s17;
            let s19 = match v2.get(0_usize) {
                Some(&r) => r,
                None => {
                    return Err(
                        "frechet_g [§1:%5]: an index out of bounds on these inputs",
                    );
                }
            };
            let s20 = s18.sum();
            let s21 = noted2.times(v1, s19);
            let s22 = noted2.times(v1, s20);
            let s23 = ndarray::Array::from_elem(s3.raw_dim(), s21);
            let s24 = irtrack::diff::sum_like(s23.clone(), &s2);
            let s25 = irtrack::diff::sum_like(s23, &x1);
            let s26 = noted2.times(&v2, &s8);
            let s27 = noted2.times(&x1, &s25);
            let s28 = s26 + s27;
            let s29 = irtrack::diff::sum_like(s28, &s2);
            let s30 = noted2.times(&s7, &s15);
            let s31 = noted2.times(&s2, &s24);
            let s32 = s30 + s31;
            let s33 = irtrack::diff::sum_like(s32, &x1);
            let s34 = roll(s29, -1_i32);
            let s35 = s33 + s34;
            let s36 = {
                let mut z = s35;
                z[0_usize] += s22;
                z
            };
            noted2
                .checked(
                    s36,
                    "frechet_g*': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
                )
        })
    })
}
