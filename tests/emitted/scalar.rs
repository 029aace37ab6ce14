//! Emitted by `irtrack::diff::emit_rust` from the programs of `tests/diff.rs`; do not
//! edit. `emitted_modules_are_fresh` fails when it is stale, and
//! `IRTRACK_BLESS=1 cargo test --test diff emitted` writes it again.

/// The program `sin_exp'` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn sin_exp_d1(x1: f64) -> Result<impl Fn(f64) -> f64, &'static str> {
    let s1 = x1.sin();
    let s2 = x1.exp();
    let s3 = x1.cos();
    Ok(move |v1: f64| -> f64 {
        let s4 = v1 * s3;
        let s5 = v1 * s2;
        let s6 = s2 * s4;
        let s7 = s1 * s5;
        let s8 = s6 + s7;
        s8
    })
}

/// The program `sin_exp''` (2 directions, a closure each), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn sin_exp_d2(
    x1: f64,
) -> Result<impl Fn(f64) -> Box<dyn Fn(f64) -> f64>, &'static str> {
    let s1 = x1.sin();
    let s2 = x1.exp();
    let s3 = x1.cos();
    let s4 = -s1;
    Ok(move |v1: f64| -> Box<dyn Fn(f64) -> f64> {
        let s5 = v1 * s3;
        let s6 = v1 * s2;
        Box::new(move |v2: f64| -> f64 {
            let s7 = v2 * s3;
            let s8 = v2 * s2;
            let s9 = v2 * s4;
            let s10 = v1 * s9;
            let s11 = v1 * s8;
            let s12 = s5 * s8;
            let s13 = s2 * s10;
            let s14 = s12 + s13;
            let s15 = s6 * s7;
            let s16 = s1 * s11;
            let s17 = s15 + s16;
            let s18 = s14 + s17;
            s18
        })
    })
}

/// The program `sin_exp'''` (3 directions, a closure each), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn sin_exp_d3(
    x1: f64,
) -> Result<impl Fn(f64) -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> f64>>, &'static str> {
    let s1 = x1.sin();
    let s2 = x1.exp();
    let s3 = x1.cos();
    let s4 = -s1;
    Ok(move |v1: f64| -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> f64>> {
        let s5 = v1 * s3;
        let s6 = v1 * s2;
        Box::new(move |v2: f64| -> Box<dyn Fn(f64) -> f64> {
            let s7 = v2 * s3;
            let s8 = v2 * s2;
            let s9 = v2 * s4;
            let s10 = v1 * s9;
            let s11 = v1 * s8;
            Box::new(move |v3: f64| -> f64 {
                let s12 = v3 * s3;
                let s13 = v3 * s2;
                let s14 = v3 * s4;
                let s15 = v1 * s14;
                let s16 = v1 * s13;
                let s17 = v2 * s14;
                let s18 = v2 * s13;
                let s19 = -s12;
                let s20 = v2 * s19;
                let s21 = v1 * s20;
                let s22 = v1 * s18;
                let s23 = s8 * s15;
                let s24 = s5 * s18;
                let s25 = s23 + s24;
                let s26 = s10 * s13;
                let s27 = s2 * s21;
                let s28 = s26 + s27;
                let s29 = s25 + s28;
                let s30 = s7 * s16;
                let s31 = s6 * s17;
                let s32 = s30 + s31;
                let s33 = s11 * s12;
                let s34 = s1 * s22;
                let s35 = s33 + s34;
                let s36 = s32 + s35;
                let s37 = s29 + s36;
                s37
            })
        })
    })
}

/// The program `sin_exp''''` (4 directions, a closure each), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn sin_exp_d4(
    x1: f64,
) -> Result<
    impl Fn(f64) -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> f64>>>,
    &'static str,
> {
    let s1 = x1.sin();
    let s2 = x1.exp();
    let s3 = x1.cos();
    let s4 = -s1;
    Ok(move |v1: f64| -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> f64>>> {
        let s5 = v1 * s3;
        let s6 = v1 * s2;
        Box::new(move |v2: f64| -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> f64>> {
            let s7 = v2 * s3;
            let s8 = v2 * s2;
            let s9 = v2 * s4;
            let s10 = v1 * s9;
            let s11 = v1 * s8;
            Box::new(move |v3: f64| -> Box<dyn Fn(f64) -> f64> {
                let s12 = v3 * s3;
                let s13 = v3 * s2;
                let s14 = v3 * s4;
                let s15 = v1 * s14;
                let s16 = v1 * s13;
                let s17 = v2 * s14;
                let s18 = v2 * s13;
                let s19 = -s12;
                let s20 = v2 * s19;
                let s21 = v1 * s20;
                let s22 = v1 * s18;
                Box::new(move |v4: f64| -> f64 {
                    let s23 = v4 * s3;
                    let s24 = v4 * s2;
                    let s25 = v4 * s4;
                    let s26 = v1 * s25;
                    let s27 = v1 * s24;
                    let s28 = v2 * s25;
                    let s29 = v2 * s24;
                    let s30 = -s23;
                    let s31 = v2 * s30;
                    let s32 = v1 * s31;
                    let s33 = v1 * s29;
                    let s34 = v3 * s25;
                    let s35 = v3 * s24;
                    let s36 = v3 * s30;
                    let s37 = v1 * s36;
                    let s38 = v1 * s35;
                    let s39 = v2 * s36;
                    let s40 = v2 * s35;
                    let s41 = -s34;
                    let s42 = v2 * s41;
                    let s43 = v1 * s42;
                    let s44 = v1 * s40;
                    let s45 = s15 * s29;
                    let s46 = s8 * s37;
                    let s47 = s45 + s46;
                    let s48 = s18 * s26;
                    let s49 = s5 * s40;
                    let s50 = s48 + s49;
                    let s51 = s47 + s50;
                    let s52 = s13 * s32;
                    let s53 = s10 * s35;
                    let s54 = s52 + s53;
                    let s55 = s21 * s24;
                    let s56 = s2 * s43;
                    let s57 = s55 + s56;
                    let s58 = s54 + s57;
                    let s59 = s51 + s58;
                    let s60 = s16 * s28;
                    let s61 = s7 * s38;
                    let s62 = s60 + s61;
                    let s63 = s17 * s27;
                    let s64 = s6 * s39;
                    let s65 = s63 + s64;
                    let s66 = s62 + s65;
                    let s67 = s12 * s33;
                    let s68 = s11 * s34;
                    let s69 = s67 + s68;
                    let s70 = s22 * s23;
                    let s71 = s1 * s44;
                    let s72 = s70 + s71;
                    let s73 = s69 + s72;
                    let s74 = s66 + s73;
                    let s75 = s59 + s74;
                    s75
                })
            })
        })
    })
}

/// The program `series''` (2 directions, a closure each), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn series_d2(
    x1: f64,
) -> Result<impl Fn(f64) -> Box<dyn Fn(f64) -> f64>, &'static str> {
    let s1 = x1.powi(2_i32);
    let s2 = x1.powi(3_i32);
    let s3 = x1.powi(4_i32);
    let s4 = (2.0_f64) * x1;
    let s5 = (3.0_f64) * s1;
    let s6 = (4.0_f64) * s2;
    let s7 = (5.0_f64) * s3;
    Ok(move |v1: f64| -> Box<dyn Fn(f64) -> f64> {
        Box::new(move |v2: f64| -> f64 {
            let s8 = v2 * s4;
            let s9 = v2 * s5;
            let s10 = v2 * s6;
            let s11 = v2 * s7;
            let s12 = (2.0_f64) * v2;
            let s13 = v1 * s12;
            let s14 = (3.0_f64) * s8;
            let s15 = v1 * s14;
            let s16 = s13 + s15;
            let s17 = (4.0_f64) * s9;
            let s18 = v1 * s17;
            let s19 = s16 + s18;
            let s20 = (5.0_f64) * s10;
            let s21 = v1 * s20;
            let s22 = s19 + s21;
            let s23 = (6.0_f64) * s11;
            let s24 = v1 * s23;
            let s25 = s22 + s24;
            s25
        })
    })
}

/// The program `power'''` (3 directions, a closure each), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn power_d3(
    x1: f64,
) -> Result<impl Fn(f64) -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> f64>>, &'static str> {
    let s1 = x1 * (1.0_f64);
    let s2 = x1 * s1;
    let s3 = x1 * s2;
    Ok(move |v1: f64| -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> f64>> {
        let s4 = v1 * s1;
        let s5 = x1 * v1;
        let s6 = s4 + s5;
        let s7 = v1 * s2;
        let s8 = x1 * s6;
        let s9 = s7 + s8;
        let s10 = v1 * s3;
        let s11 = x1 * s9;
        let s12 = s10 + s11;
        Box::new(move |v2: f64| -> Box<dyn Fn(f64) -> f64> {
            let s13 = v2 * s1;
            let s14 = x1 * v2;
            let s15 = s13 + s14;
            let s16 = v2 * s2;
            let s17 = x1 * s15;
            let s18 = s16 + s17;
            let s19 = v2 * s3;
            let s20 = x1 * s18;
            let s21 = s19 + s20;
            let s22 = v1 * v2;
            let s23 = s22 + s22;
            let s24 = v1 * s15;
            let s25 = v2 * s6;
            let s26 = x1 * s23;
            let s27 = s25 + s26;
            let s28 = s24 + s27;
            let s29 = v1 * s18;
            let s30 = v2 * s9;
            let s31 = x1 * s28;
            let s32 = s30 + s31;
            let s33 = s29 + s32;
            let s34 = v1 * s21;
            let s35 = v2 * s12;
            let s36 = x1 * s33;
            let s37 = s35 + s36;
            let s38 = s34 + s37;
            Box::new(move |v3: f64| -> f64 {
                let s39 = v3 * s1;
                let s40 = x1 * v3;
                let s41 = s39 + s40;
                let s42 = v3 * s2;
                let s43 = x1 * s41;
                let s44 = s42 + s43;
                let s45 = v3 * s3;
                let s46 = x1 * s44;
                let s47 = s45 + s46;
                let s48 = v1 * v3;
                let s49 = s48 + s48;
                let s50 = v1 * s41;
                let s51 = v3 * s6;
                let s52 = x1 * s49;
                let s53 = s51 + s52;
                let s54 = s50 + s53;
                let s55 = v1 * s44;
                let s56 = v3 * s9;
                let s57 = x1 * s54;
                let s58 = s56 + s57;
                let s59 = s55 + s58;
                let s60 = v1 * s47;
                let s61 = v3 * s12;
                let s62 = x1 * s59;
                let s63 = s61 + s62;
                let s64 = s60 + s63;
                let s65 = v2 * v3;
                let s66 = s65 + s65;
                let s67 = v2 * s41;
                let s68 = v3 * s15;
                let s69 = x1 * s66;
                let s70 = s68 + s69;
                let s71 = s67 + s70;
                let s72 = v2 * s44;
                let s73 = v3 * s18;
                let s74 = x1 * s71;
                let s75 = s73 + s74;
                let s76 = s72 + s75;
                let s77 = v2 * s47;
                let s78 = v3 * s21;
                let s79 = x1 * s76;
                let s80 = s78 + s79;
                let s81 = s77 + s80;
                let s82 = v1 * s66;
                let s83 = v2 * s49;
                let s84 = v3 * s23;
                let s85 = s83 + s84;
                let s86 = s82 + s85;
                let s87 = v1 * s71;
                let s88 = v2 * s54;
                let s89 = v3 * s28;
                let s90 = x1 * s86;
                let s91 = s89 + s90;
                let s92 = s88 + s91;
                let s93 = s87 + s92;
                let s94 = v1 * s76;
                let s95 = v2 * s59;
                let s96 = v3 * s33;
                let s97 = x1 * s93;
                let s98 = s96 + s97;
                let s99 = s95 + s98;
                let s100 = s94 + s99;
                let s101 = v1 * s81;
                let s102 = v2 * s64;
                let s103 = v3 * s38;
                let s104 = x1 * s100;
                let s105 = s103 + s104;
                let s106 = s102 + s105;
                let s107 = s101 + s106;
                s107
            })
        })
    })
}

/// The program `relu_sum'` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn relu_sum_d1(x1: f64) -> Result<impl Fn(f64) -> f64, &'static str> {
    let s1 = x1 > (0.0_f64);
    if !s1 {
        return Err(
            "relu_sum [§1:&2]: @2 == true expected; these inputs take a path the trace did not record",
        );
    }
    Ok(move |v1: f64| -> f64 {
        let s2 = x1 * v1;
        let s3 = s2 + s2;
        s3
    })
}
