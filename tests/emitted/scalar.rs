//! Emitted by `irtrack::diff::emit_rust` from the programs of `tests/diff.rs`; do not
//! edit. `emitted_modules_are_fresh` fails when it is stale, and
//! `IRTRACK_BLESS=1 cargo test --test diff emitted` writes it again.

/// The program `sin_exp'` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn sin_exp_d1(
    x1: f64,
) -> Result<impl Fn(f64) -> Result<f64, &'static str>, &'static str> {
    let s1 = x1.sin();
    let s2 = x1.exp();
    let s3 = x1.cos();
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s4 = noted1.times(v1, s3);
        let s5 = noted1.times(v1, s2);
        let s6 = noted1.times(s2, s4);
        let s7 = noted1.times(s1, s5);
        let s8 = s6 + s7;
        noted1
            .checked(
                s8,
                "sin_exp': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
            )
    })
}

/// The program `sin_exp''` (2 directions, a closure each), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn sin_exp_d2(
    x1: f64,
) -> Result<
    impl Fn(f64) -> Box<dyn Fn(f64) -> Result<f64, &'static str>>,
    &'static str,
> {
    let s1 = x1.sin();
    let s2 = x1.exp();
    let s3 = x1.cos();
    let s4 = -s1;
    Ok(move |v1: f64| -> Box<dyn Fn(f64) -> Result<f64, &'static str>> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s5 = noted1.times(v1, s3);
        let s6 = noted1.times(v1, s2);
        Box::new(move |v2: f64| -> Result<f64, &'static str> {
            let mut noted2 = noted1;
            let s7 = noted2.times(v2, s3);
            let s8 = noted2.times(v2, s2);
            let s9 = noted2.times(v2, s4);
            let s10 = noted2.times(v1, s9);
            let s11 = noted2.times(v1, s8);
            let s12 = noted2.times(s5, s8);
            let s13 = noted2.times(s2, s10);
            let s14 = s12 + s13;
            let s15 = noted2.times(s6, s7);
            let s16 = noted2.times(s1, s11);
            let s17 = s15 + s16;
            let s18 = s14 + s17;
            noted2
                .checked(
                    s18,
                    "sin_exp'': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
                )
        })
    })
}

/// The program `sin_exp'''` (3 directions, a closure each), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn sin_exp_d3(
    x1: f64,
) -> Result<
    impl Fn(f64) -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> Result<f64, &'static str>>>,
    &'static str,
> {
    let s1 = x1.sin();
    let s2 = x1.exp();
    let s3 = x1.cos();
    let s4 = -s1;
    Ok(move |
        v1: f64,
    | -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> Result<f64, &'static str>>> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s5 = noted1.times(v1, s3);
        let s6 = noted1.times(v1, s2);
        Box::new(move |v2: f64| -> Box<dyn Fn(f64) -> Result<f64, &'static str>> {
            let mut noted2 = noted1;
            let s7 = noted2.times(v2, s3);
            let s8 = noted2.times(v2, s2);
            let s9 = noted2.times(v2, s4);
            let s10 = noted2.times(v1, s9);
            let s11 = noted2.times(v1, s8);
            Box::new(move |v3: f64| -> Result<f64, &'static str> {
                let mut noted3 = noted2;
                let s12 = noted3.times(v3, s3);
                let s13 = noted3.times(v3, s2);
                let s14 = noted3.times(v3, s4);
                let s15 = noted3.times(v1, s14);
                let s16 = noted3.times(v1, s13);
                let s17 = noted3.times(v2, s14);
                let s18 = noted3.times(v2, s13);
                let s19 = -s12;
                let s20 = noted3.times(v2, s19);
                let s21 = noted3.times(v1, s20);
                let s22 = noted3.times(v1, s18);
                let s23 = noted3.times(s8, s15);
                let s24 = noted3.times(s5, s18);
                let s25 = s23 + s24;
                let s26 = noted3.times(s10, s13);
                let s27 = noted3.times(s2, s21);
                let s28 = s26 + s27;
                let s29 = s25 + s28;
                let s30 = noted3.times(s7, s16);
                let s31 = noted3.times(s6, s17);
                let s32 = s30 + s31;
                let s33 = noted3.times(s11, s12);
                let s34 = noted3.times(s1, s22);
                let s35 = s33 + s34;
                let s36 = s32 + s35;
                let s37 = s29 + s36;
                noted3
                    .checked(
                        s37,
                        "sin_exp''': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
                    )
            })
        })
    })
}

/// The program `sin_exp''''` (4 directions, a closure each), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn sin_exp_d4(
    x1: f64,
) -> Result<
    impl Fn(
        f64,
    ) -> Box<
            dyn Fn(
                f64,
            ) -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> Result<f64, &'static str>>>,
        >,
    &'static str,
> {
    let s1 = x1.sin();
    let s2 = x1.exp();
    let s3 = x1.cos();
    let s4 = -s1;
    Ok(move |
        v1: f64,
    | -> Box<
        dyn Fn(f64) -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> Result<f64, &'static str>>>,
    > {
        let mut noted1 = irtrack::diff::Noted::default();
        let s5 = noted1.times(v1, s3);
        let s6 = noted1.times(v1, s2);
        Box::new(move |
            v2: f64,
        | -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> Result<f64, &'static str>>> {
            let mut noted2 = noted1;
            let s7 = noted2.times(v2, s3);
            let s8 = noted2.times(v2, s2);
            let s9 = noted2.times(v2, s4);
            let s10 = noted2.times(v1, s9);
            let s11 = noted2.times(v1, s8);
            Box::new(move |v3: f64| -> Box<dyn Fn(f64) -> Result<f64, &'static str>> {
                let mut noted3 = noted2;
                let s12 = noted3.times(v3, s3);
                let s13 = noted3.times(v3, s2);
                let s14 = noted3.times(v3, s4);
                let s15 = noted3.times(v1, s14);
                let s16 = noted3.times(v1, s13);
                let s17 = noted3.times(v2, s14);
                let s18 = noted3.times(v2, s13);
                let s19 = -s12;
                let s20 = noted3.times(v2, s19);
                let s21 = noted3.times(v1, s20);
                let s22 = noted3.times(v1, s18);
                Box::new(move |v4: f64| -> Result<f64, &'static str> {
                    let mut noted4 = noted3;
                    let s23 = noted4.times(v4, s3);
                    let s24 = noted4.times(v4, s2);
                    let s25 = noted4.times(v4, s4);
                    let s26 = noted4.times(v1, s25);
                    let s27 = noted4.times(v1, s24);
                    let s28 = noted4.times(v2, s25);
                    let s29 = noted4.times(v2, s24);
                    let s30 = -s23;
                    let s31 = noted4.times(v2, s30);
                    let s32 = noted4.times(v1, s31);
                    let s33 = noted4.times(v1, s29);
                    let s34 = noted4.times(v3, s25);
                    let s35 = noted4.times(v3, s24);
                    let s36 = noted4.times(v3, s30);
                    let s37 = noted4.times(v1, s36);
                    let s38 = noted4.times(v1, s35);
                    let s39 = noted4.times(v2, s36);
                    let s40 = noted4.times(v2, s35);
                    let s41 = -s34;
                    let s42 = noted4.times(v2, s41);
                    let s43 = noted4.times(v1, s42);
                    let s44 = noted4.times(v1, s40);
                    let s45 = noted4.times(s15, s29);
                    let s46 = noted4.times(s8, s37);
                    let s47 = s45 + s46;
                    let s48 = noted4.times(s18, s26);
                    let s49 = noted4.times(s5, s40);
                    let s50 = s48 + s49;
                    let s51 = s47 + s50;
                    let s52 = noted4.times(s13, s32);
                    let s53 = noted4.times(s10, s35);
                    let s54 = s52 + s53;
                    let s55 = noted4.times(s21, s24);
                    let s56 = noted4.times(s2, s43);
                    let s57 = s55 + s56;
                    let s58 = s54 + s57;
                    let s59 = s51 + s58;
                    let s60 = noted4.times(s16, s28);
                    let s61 = noted4.times(s7, s38);
                    let s62 = s60 + s61;
                    let s63 = noted4.times(s17, s27);
                    let s64 = noted4.times(s6, s39);
                    let s65 = s63 + s64;
                    let s66 = s62 + s65;
                    let s67 = noted4.times(s12, s33);
                    let s68 = noted4.times(s11, s34);
                    let s69 = s67 + s68;
                    let s70 = noted4.times(s22, s23);
                    let s71 = noted4.times(s1, s44);
                    let s72 = s70 + s71;
                    let s73 = s69 + s72;
                    let s74 = s66 + s73;
                    let s75 = s59 + s74;
                    noted4
                        .checked(
                            s75,
                            "sin_exp'''': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
                        )
                })
            })
        })
    })
}

/// The program `series''` (2 directions, a closure each), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn series_d2(
    x1: f64,
) -> Result<
    impl Fn(f64) -> Box<dyn Fn(f64) -> Result<f64, &'static str>>,
    &'static str,
> {
    let s1 = x1.powi(2_i32);
    let s2 = x1.powi(3_i32);
    let s3 = x1.powi(4_i32);
    let s4 = (2.0_f64) * x1;
    let s5 = (3.0_f64) * s1;
    let s6 = (4.0_f64) * s2;
    let s7 = (5.0_f64) * s3;
    Ok(move |v1: f64| -> Box<dyn Fn(f64) -> Result<f64, &'static str>> {
        Box::new(move |v2: f64| -> Result<f64, &'static str> {
            let mut noted2 = irtrack::diff::Noted::default();
            let s8 = noted2.times(v2, s4);
            let s9 = noted2.times(v2, s5);
            let s10 = noted2.times(v2, s6);
            let s11 = noted2.times(v2, s7);
            let s12 = (2.0_f64) * v2;
            let s13 = noted2.times(v1, s12);
            let s14 = (3.0_f64) * s8;
            let s15 = noted2.times(v1, s14);
            let s16 = s13 + s15;
            let s17 = (4.0_f64) * s9;
            let s18 = noted2.times(v1, s17);
            let s19 = s16 + s18;
            let s20 = (5.0_f64) * s10;
            let s21 = noted2.times(v1, s20);
            let s22 = s19 + s21;
            let s23 = (6.0_f64) * s11;
            let s24 = noted2.times(v1, s23);
            let s25 = s22 + s24;
            noted2
                .checked(
                    s25,
                    "series'': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
                )
        })
    })
}

/// The program `power'''` (3 directions, a closure each), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn power_d3(
    x1: f64,
) -> Result<
    impl Fn(f64) -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> Result<f64, &'static str>>>,
    &'static str,
> {
    let s1 = x1 * (1.0_f64);
    let s2 = x1 * s1;
    let s3 = x1 * s2;
    Ok(move |
        v1: f64,
    | -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> Result<f64, &'static str>>> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s4 = noted1.times(v1, s1);
        let s5 = noted1.times(x1, v1);
        let s6 = s4 + s5;
        let s7 = noted1.times(v1, s2);
        let s8 = noted1.times(x1, s6);
        let s9 = s7 + s8;
        let s10 = noted1.times(v1, s3);
        let s11 = noted1.times(x1, s9);
        let s12 = s10 + s11;
        Box::new(move |v2: f64| -> Box<dyn Fn(f64) -> Result<f64, &'static str>> {
            let mut noted2 = noted1;
            let s13 = noted2.times(v2, s1);
            let s14 = noted2.times(x1, v2);
            let s15 = s13 + s14;
            let s16 = noted2.times(v2, s2);
            let s17 = noted2.times(x1, s15);
            let s18 = s16 + s17;
            let s19 = noted2.times(v2, s3);
            let s20 = noted2.times(x1, s18);
            let s21 = s19 + s20;
            let s22 = noted2.times(v1, v2);
            let s23 = s22 + s22;
            let s24 = noted2.times(v1, s15);
            let s25 = noted2.times(v2, s6);
            let s26 = noted2.times(x1, s23);
            let s27 = s25 + s26;
            let s28 = s24 + s27;
            let s29 = noted2.times(v1, s18);
            let s30 = noted2.times(v2, s9);
            let s31 = noted2.times(x1, s28);
            let s32 = s30 + s31;
            let s33 = s29 + s32;
            let s34 = noted2.times(v1, s21);
            let s35 = noted2.times(v2, s12);
            let s36 = noted2.times(x1, s33);
            let s37 = s35 + s36;
            let s38 = s34 + s37;
            Box::new(move |v3: f64| -> Result<f64, &'static str> {
                let mut noted3 = noted2;
                let s39 = noted3.times(v3, s1);
                let s40 = noted3.times(x1, v3);
                let s41 = s39 + s40;
                let s42 = noted3.times(v3, s2);
                let s43 = noted3.times(x1, s41);
                let s44 = s42 + s43;
                let s45 = noted3.times(v3, s3);
                let s46 = noted3.times(x1, s44);
                let s47 = s45 + s46;
                let s48 = noted3.times(v1, v3);
                let s49 = s48 + s48;
                let s50 = noted3.times(v1, s41);
                let s51 = noted3.times(v3, s6);
                let s52 = noted3.times(x1, s49);
                let s53 = s51 + s52;
                let s54 = s50 + s53;
                let s55 = noted3.times(v1, s44);
                let s56 = noted3.times(v3, s9);
                let s57 = noted3.times(x1, s54);
                let s58 = s56 + s57;
                let s59 = s55 + s58;
                let s60 = noted3.times(v1, s47);
                let s61 = noted3.times(v3, s12);
                let s62 = noted3.times(x1, s59);
                let s63 = s61 + s62;
                let s64 = s60 + s63;
                let s65 = noted3.times(v2, v3);
                let s66 = s65 + s65;
                let s67 = noted3.times(v2, s41);
                let s68 = noted3.times(v3, s15);
                let s69 = noted3.times(x1, s66);
                let s70 = s68 + s69;
                let s71 = s67 + s70;
                let s72 = noted3.times(v2, s44);
                let s73 = noted3.times(v3, s18);
                let s74 = noted3.times(x1, s71);
                let s75 = s73 + s74;
                let s76 = s72 + s75;
                let s77 = noted3.times(v2, s47);
                let s78 = noted3.times(v3, s21);
                let s79 = noted3.times(x1, s76);
                let s80 = s78 + s79;
                let s81 = s77 + s80;
                let s82 = noted3.times(v1, s66);
                let s83 = noted3.times(v2, s49);
                let s84 = noted3.times(v3, s23);
                let s85 = s83 + s84;
                let s86 = s82 + s85;
                let s87 = noted3.times(v1, s71);
                let s88 = noted3.times(v2, s54);
                let s89 = noted3.times(v3, s28);
                let s90 = noted3.times(x1, s86);
                let s91 = s89 + s90;
                let s92 = s88 + s91;
                let s93 = s87 + s92;
                let s94 = noted3.times(v1, s76);
                let s95 = noted3.times(v2, s59);
                let s96 = noted3.times(v3, s33);
                let s97 = noted3.times(x1, s93);
                let s98 = s96 + s97;
                let s99 = s95 + s98;
                let s100 = s94 + s99;
                let s101 = noted3.times(v1, s81);
                let s102 = noted3.times(v2, s64);
                let s103 = noted3.times(v3, s38);
                let s104 = noted3.times(x1, s100);
                let s105 = s103 + s104;
                let s106 = s102 + s105;
                let s107 = s101 + s106;
                noted3
                    .checked(
                        s107,
                        "power''': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
                    )
            })
        })
    })
}

/// The program `relu_sum'` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn relu_sum_d1(
    x1: f64,
) -> Result<impl Fn(f64) -> Result<f64, &'static str>, &'static str> {
    let p1 = x1 > (0.0_f64);
    if x1 == 0.0_f64 {
        return Err(
            "relu_sum [§1:%2]: at a tie of an ordering, a kink or a jump of the recorded function; emitted code cannot tell whether the path has a derivative here (it may hold at this point alone): call the program, which checks",
        );
    }
    let s1 = x1 > (0.0_f64);
    if !s1 {
        return Err(
            "relu_sum [§1:&2]: @2 == true expected; these inputs take a path the trace did not record",
        );
    }
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s2 = noted1.times(x1, v1);
        let s3 = s2 + s2;
        noted1
            .checked(
                s3,
                "relu_sum': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
            )
    })
}

/// The program `recip_recip'` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn recip_recip_d1(
    x1: f64,
) -> Result<impl Fn(f64) -> Result<f64, &'static str>, &'static str> {
    let s1 = (1.0_f64) / x1;
    let s2 = (1.0_f64) / s1;
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s3 = noted1.times(v1, s1);
        let s4 = noted1.over(s3, x1);
        let s5 = -s4;
        let s6 = noted1.times(s2, s5);
        let s7 = noted1.over(s6, s1);
        let s8 = -s7;
        noted1
            .checked(
                s8,
                "recip_recip': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
            )
    })
}

/// The program `recip_recip''` (2 directions, a closure each), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn recip_recip_d2(
    x1: f64,
) -> Result<
    impl Fn(f64) -> Box<dyn Fn(f64) -> Result<f64, &'static str>>,
    &'static str,
> {
    let s1 = (1.0_f64) / x1;
    let s2 = (1.0_f64) / s1;
    Ok(move |v1: f64| -> Box<dyn Fn(f64) -> Result<f64, &'static str>> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s3 = noted1.times(v1, s1);
        let s4 = noted1.over(s3, x1);
        let s5 = -s4;
        let s6 = noted1.times(s2, s5);
        let s7 = noted1.over(s6, s1);
        Box::new(move |v2: f64| -> Result<f64, &'static str> {
            let mut noted2 = noted1;
            let s8 = noted2.times(v2, s1);
            let s9 = noted2.over(s8, x1);
            let s10 = -s9;
            let s11 = noted2.times(s2, s10);
            let s12 = noted2.over(s11, s1);
            let s13 = -s12;
            let s14 = noted2.times(v1, s10);
            let s15 = noted2.times(v2, s4);
            let s16 = s14 - s15;
            let s17 = noted2.over(s16, x1);
            let s18 = -s17;
            let s19 = noted2.times(s5, s13);
            let s20 = noted2.times(s2, s18);
            let s21 = s19 + s20;
            let s22 = noted2.times(s7, s10);
            let s23 = s21 - s22;
            let s24 = noted2.over(s23, s1);
            let s25 = -s24;
            noted2
                .checked(
                    s25,
                    "recip_recip'': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
                )
        })
    })
}

/// The program `recip_recip*` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn recip_recip_grad(
    x1: f64,
) -> Result<impl Fn(f64) -> Result<f64, &'static str>, &'static str> {
    let s1 = (1.0_f64) / x1;
    let s2 = (1.0_f64) / s1;
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s3 = -v1;
        let s4 = noted1.over(s3, s1);
        let s5 = noted1.times(s2, s4);
        let s6 = -s5;
        let s7 = noted1.over(s6, x1);
        let s8 = noted1.times(s1, s7);
        noted1
            .checked(
                s8,
                "recip_recip*: the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
            )
    })
}

/// The program `clamp_dyn'` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn clamp_dyn_d1(
    x1: f64,
    x2: f64,
    x3: f64,
) -> Result<impl Fn(f64) -> Result<f64, &'static str>, &'static str> {
    let p1 = {
        if !(x2 <= x3) {
            return Err("clamp_dyn [§1:%4]: `clamp` of bounds out of order or NaN");
        }
        x1.clamp(x2, x3)
    };
    if x1 == x2 || x1 == x3 {
        return Err(
            "clamp_dyn [§1:%4]: at a tie of an ordering, a kink or a jump of the recorded function; emitted code cannot tell whether the path has a derivative here (it may hold at this point alone): call the program, which checks",
        );
    }
    let s1 = {
        if !(x2 <= x3) {
            return Err("clamp_dyn [§1:%4]: `clamp` of bounds out of order or NaN");
        }
        x1.clamp(x2, x3)
    };
    let s2 = x1 > x3;
    let s3 = x1 < x2;
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let s4 = if s2 { 0.0_f64 } else { v1 };
        let s5 = if s3 { 0.0_f64 } else { s4 };
        let s6 = s5 * (2.0_f64);
        irtrack::diff::Noted::default()
            .checked(
                s6,
                "clamp_dyn': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
            )
    })
}

/// The program `int_ratio'` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn int_ratio_d1(
    x1: f64,
    x2: i32,
    x3: i32,
) -> Result<impl Fn(f64) -> Result<f64, &'static str>, &'static str> {
    let s1 = match x2.checked_div(x3) {
        Some(r) => r,
        None => {
            return Err(
                "int_ratio [§1:%5]: `/` overflows or divides by zero on these inputs",
            );
        }
    };
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let s2 = v1 * (2.0_f64);
        irtrack::diff::Noted::default()
            .checked(
                s2,
                "int_ratio': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
            )
    })
}

/// The program `atan_of_exp'` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn atan_of_exp_d1(
    x1: f64,
) -> Result<impl Fn(f64) -> Result<f64, &'static str>, &'static str> {
    let mut noted0 = irtrack::diff::Noted::default();
    let s1 = x1.exp();
    let s2 = noted0.times(s1, s1);
    let s3 = (1.0_f64) + s2;
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let mut noted1 = noted0;
        let s4 = noted1.times(v1, s1);
        let s5 = noted1.over(s4, s3);
        noted1
            .checked(
                s5,
                "atan_of_exp': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
            )
    })
}

/// The program `neg_nan_sign` (no direction), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn neg_nan_sign_p(x1: f64) -> Result<f64, &'static str> {
    let s1 = x1.copysign(f64::from_bits(0xfff8000000000000));
    let s2 = s1 * (2.0_f64);
    Ok(s2)
}

/// The program `neg_nan_sign_sq'` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn neg_nan_sign_sq_d1(
    x1: f64,
) -> Result<impl Fn(f64) -> Result<f64, &'static str>, &'static str> {
    let p1 = x1.copysign(f64::from_bits(0xfff8000000000000));
    if x1 == 0.0 || f64::from_bits(0xfff8000000000000) == 0.0 {
        return Err(
            "neg_nan_sign_sq [§1:%4]: at a tie of an ordering, a kink or a jump of the recorded function; emitted code cannot tell whether the path has a derivative here (it may hold at this point alone): call the program, which checks",
        );
    }
    let s1 = x1.copysign(f64::from_bits(0xfff8000000000000));
    let s2 = (1.0_f64).copysign(x1);
    let s3 = s2 * (-1.0_f64);
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s4 = noted1.times(v1, s3);
        let s5 = noted1.times(v1, s1);
        let s6 = noted1.times(x1, s4);
        let s7 = s5 + s6;
        noted1
            .checked(
                s7,
                "neg_nan_sign_sq': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
            )
    })
}

/// The program `shift_scale` (no direction), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn shift_scale_p(x1: u32, x2: f64) -> Result<f64, &'static str> {
    let s1 = match u32::try_from(x1).ok().and_then(|s| (1_u32).checked_shl(s)) {
        Some(r) => r,
        None => {
            return Err(
                "shift_scale [§1:%3]: `<<` shifts by the width or more on these inputs",
            );
        }
    };
    let s2 = s1 as f64;
    let s3 = x2 * s2;
    Ok(s3)
}

/// The program `pick` (no direction), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn pick_p(x1: Vec<f64>, x2: f64) -> Result<f64, &'static str> {
    let s1 = x2 as usize;
    let s2 = match x1.get(s1) {
        Some(&r) => r,
        None => return Err("pick [§1:%4]: an index out of bounds on these inputs"),
    };
    let s3 = s2 * x2;
    Ok(s3)
}

/// The program `int_casts'` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn int_casts_d1(
    x1: f64,
) -> Result<impl Fn(f64) -> Result<f64, &'static str>, &'static str> {
    let p1 = x1 * (10.0_f64);
    let p2 = p1 as i32;
    if p1.fract() == 0.0 {
        return Err(
            "int_casts [§1:%3]: at a tie of an ordering, a kink or a jump of the recorded function; emitted code cannot tell whether the path has a derivative here (it may hold at this point alone): call the program, which checks",
        );
    }
    let p3 = p2 as u8;
    let p5 = p2 as i8;
    let s1 = x1 * (10.0_f64);
    let s2 = s1 as i32;
    let s3 = s2 as i8;
    let s4 = s3 as f64;
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s5 = noted1.times(v1, s4);
        noted1
            .checked(
                s5,
                "int_casts': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
            )
    })
}
