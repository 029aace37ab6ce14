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
    let s3 = s1 * s2;
    let s4 = x1.cos();
    let s5 = s3 != s3;
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s6 = noted1.times(v1, s4);
        let s7 = noted1.times(v1, s2);
        let s8 = noted1.times(s2, s6);
        let s9 = noted1.times(s1, s7);
        let s10 = s8 + s9;
        let s11 = if s5 { f64::NAN } else { s10 };
        noted1
            .checked(
                s11,
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
    let s3 = s1 * s2;
    let s4 = x1.cos();
    let s5 = s3 != s3;
    let s6 = -s1;
    Ok(move |v1: f64| -> Box<dyn Fn(f64) -> Result<f64, &'static str>> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s7 = noted1.times(v1, s4);
        let s8 = noted1.times(v1, s2);
        let s9 = noted1.times(s2, s7);
        let s10 = noted1.times(s1, s8);
        let s11 = s9 + s10;
        let s12 = if s5 { f64::NAN } else { s11 };
        let s13 = s12 != s12;
        Box::new(move |v2: f64| -> Result<f64, &'static str> {
            let mut noted2 = noted1;
            let s14 = noted2.times(v2, s4);
            let s15 = noted2.times(v2, s2);
            let s16 = noted2.times(v2, s6);
            let s17 = noted2.times(v1, s16);
            let s18 = noted2.times(v1, s15);
            let s19 = noted2.times(s7, s15);
            let s20 = noted2.times(s2, s17);
            let s21 = s19 + s20;
            let s22 = noted2.times(s8, s14);
            let s23 = noted2.times(s1, s18);
            let s24 = s22 + s23;
            let s25 = s21 + s24;
            let s26 = if s5 { 0.0_f64 } else { s25 };
            let s27 = if s13 { f64::NAN } else { s26 };
            noted2
                .checked(
                    s27,
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
    let s3 = s1 * s2;
    let s4 = x1.cos();
    let s5 = s3 != s3;
    let s6 = -s1;
    Ok(move |
        v1: f64,
    | -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> Result<f64, &'static str>>> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s7 = noted1.times(v1, s4);
        let s8 = noted1.times(v1, s2);
        let s9 = noted1.times(s2, s7);
        let s10 = noted1.times(s1, s8);
        let s11 = s9 + s10;
        let s12 = if s5 { f64::NAN } else { s11 };
        let s13 = s12 != s12;
        Box::new(move |v2: f64| -> Box<dyn Fn(f64) -> Result<f64, &'static str>> {
            let mut noted2 = noted1;
            let s14 = noted2.times(v2, s4);
            let s15 = noted2.times(v2, s2);
            let s16 = noted2.times(v2, s6);
            let s17 = noted2.times(v1, s16);
            let s18 = noted2.times(v1, s15);
            let s19 = noted2.times(s7, s15);
            let s20 = noted2.times(s2, s17);
            let s21 = s19 + s20;
            let s22 = noted2.times(s8, s14);
            let s23 = noted2.times(s1, s18);
            let s24 = s22 + s23;
            let s25 = s21 + s24;
            let s26 = if s5 { 0.0_f64 } else { s25 };
            let s27 = if s13 { f64::NAN } else { s26 };
            let s28 = s27 != s27;
            Box::new(move |v3: f64| -> Result<f64, &'static str> {
                let mut noted3 = noted2;
                let s29 = noted3.times(v3, s4);
                let s30 = noted3.times(v3, s2);
                let s31 = noted3.times(v3, s6);
                let s32 = noted3.times(v1, s31);
                let s33 = noted3.times(v1, s30);
                let s34 = noted3.times(v2, s31);
                let s35 = noted3.times(v2, s30);
                let s36 = -s29;
                let s37 = noted3.times(v2, s36);
                let s38 = noted3.times(v1, s37);
                let s39 = noted3.times(v1, s35);
                let s40 = noted3.times(s15, s32);
                let s41 = noted3.times(s7, s35);
                let s42 = s40 + s41;
                let s43 = noted3.times(s17, s30);
                let s44 = noted3.times(s2, s38);
                let s45 = s43 + s44;
                let s46 = s42 + s45;
                let s47 = noted3.times(s14, s33);
                let s48 = noted3.times(s8, s34);
                let s49 = s47 + s48;
                let s50 = noted3.times(s18, s29);
                let s51 = noted3.times(s1, s39);
                let s52 = s50 + s51;
                let s53 = s49 + s52;
                let s54 = s46 + s53;
                let s55 = if s5 { 0.0_f64 } else { s54 };
                let s56 = if s13 { 0.0_f64 } else { s55 };
                let s57 = if s28 { f64::NAN } else { s56 };
                noted3
                    .checked(
                        s57,
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
    let s3 = s1 * s2;
    let s4 = x1.cos();
    let s5 = s3 != s3;
    let s6 = -s1;
    Ok(move |
        v1: f64,
    | -> Box<
        dyn Fn(f64) -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> Result<f64, &'static str>>>,
    > {
        let mut noted1 = irtrack::diff::Noted::default();
        let s7 = noted1.times(v1, s4);
        let s8 = noted1.times(v1, s2);
        let s9 = noted1.times(s2, s7);
        let s10 = noted1.times(s1, s8);
        let s11 = s9 + s10;
        let s12 = if s5 { f64::NAN } else { s11 };
        let s13 = s12 != s12;
        Box::new(move |
            v2: f64,
        | -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> Result<f64, &'static str>>> {
            let mut noted2 = noted1;
            let s14 = noted2.times(v2, s4);
            let s15 = noted2.times(v2, s2);
            let s16 = noted2.times(v2, s6);
            let s17 = noted2.times(v1, s16);
            let s18 = noted2.times(v1, s15);
            let s19 = noted2.times(s7, s15);
            let s20 = noted2.times(s2, s17);
            let s21 = s19 + s20;
            let s22 = noted2.times(s8, s14);
            let s23 = noted2.times(s1, s18);
            let s24 = s22 + s23;
            let s25 = s21 + s24;
            let s26 = if s5 { 0.0_f64 } else { s25 };
            let s27 = if s13 { f64::NAN } else { s26 };
            let s28 = s27 != s27;
            Box::new(move |v3: f64| -> Box<dyn Fn(f64) -> Result<f64, &'static str>> {
                let mut noted3 = noted2;
                let s29 = noted3.times(v3, s4);
                let s30 = noted3.times(v3, s2);
                let s31 = noted3.times(v3, s6);
                let s32 = noted3.times(v1, s31);
                let s33 = noted3.times(v1, s30);
                let s34 = noted3.times(v2, s31);
                let s35 = noted3.times(v2, s30);
                let s36 = -s29;
                let s37 = noted3.times(v2, s36);
                let s38 = noted3.times(v1, s37);
                let s39 = noted3.times(v1, s35);
                let s40 = noted3.times(s15, s32);
                let s41 = noted3.times(s7, s35);
                let s42 = s40 + s41;
                let s43 = noted3.times(s17, s30);
                let s44 = noted3.times(s2, s38);
                let s45 = s43 + s44;
                let s46 = s42 + s45;
                let s47 = noted3.times(s14, s33);
                let s48 = noted3.times(s8, s34);
                let s49 = s47 + s48;
                let s50 = noted3.times(s18, s29);
                let s51 = noted3.times(s1, s39);
                let s52 = s50 + s51;
                let s53 = s49 + s52;
                let s54 = s46 + s53;
                let s55 = if s5 { 0.0_f64 } else { s54 };
                let s56 = if s13 { 0.0_f64 } else { s55 };
                let s57 = if s28 { f64::NAN } else { s56 };
                let s58 = s57 != s57;
                Box::new(move |v4: f64| -> Result<f64, &'static str> {
                    let mut noted4 = noted3;
                    let s59 = noted4.times(v4, s4);
                    let s60 = noted4.times(v4, s2);
                    let s61 = noted4.times(v4, s6);
                    let s62 = noted4.times(v1, s61);
                    let s63 = noted4.times(v1, s60);
                    let s64 = noted4.times(v2, s61);
                    let s65 = noted4.times(v2, s60);
                    let s66 = -s59;
                    let s67 = noted4.times(v2, s66);
                    let s68 = noted4.times(v1, s67);
                    let s69 = noted4.times(v1, s65);
                    let s70 = noted4.times(v3, s61);
                    let s71 = noted4.times(v3, s60);
                    let s72 = noted4.times(v3, s66);
                    let s73 = noted4.times(v1, s72);
                    let s74 = noted4.times(v1, s71);
                    let s75 = noted4.times(v2, s72);
                    let s76 = noted4.times(v2, s71);
                    let s77 = -s70;
                    let s78 = noted4.times(v2, s77);
                    let s79 = noted4.times(v1, s78);
                    let s80 = noted4.times(v1, s76);
                    let s81 = noted4.times(s32, s65);
                    let s82 = noted4.times(s15, s73);
                    let s83 = s81 + s82;
                    let s84 = noted4.times(s35, s62);
                    let s85 = noted4.times(s7, s76);
                    let s86 = s84 + s85;
                    let s87 = s83 + s86;
                    let s88 = noted4.times(s30, s68);
                    let s89 = noted4.times(s17, s71);
                    let s90 = s88 + s89;
                    let s91 = noted4.times(s38, s60);
                    let s92 = noted4.times(s2, s79);
                    let s93 = s91 + s92;
                    let s94 = s90 + s93;
                    let s95 = s87 + s94;
                    let s96 = noted4.times(s33, s64);
                    let s97 = noted4.times(s14, s74);
                    let s98 = s96 + s97;
                    let s99 = noted4.times(s34, s63);
                    let s100 = noted4.times(s8, s75);
                    let s101 = s99 + s100;
                    let s102 = s98 + s101;
                    let s103 = noted4.times(s29, s69);
                    let s104 = noted4.times(s18, s70);
                    let s105 = s103 + s104;
                    let s106 = noted4.times(s39, s59);
                    let s107 = noted4.times(s1, s80);
                    let s108 = s106 + s107;
                    let s109 = s105 + s108;
                    let s110 = s102 + s109;
                    let s111 = s95 + s110;
                    let s112 = if s5 { 0.0_f64 } else { s111 };
                    let s113 = if s13 { 0.0_f64 } else { s112 };
                    let s114 = if s28 { 0.0_f64 } else { s113 };
                    let s115 = if s58 { f64::NAN } else { s114 };
                    noted4
                        .checked(
                            s115,
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
    let s1 = x1.powi(0_i32);
    let s2 = (0.0_f64) + s1;
    let s3 = x1.powi(1_i32);
    let s4 = s2 + s3;
    let s5 = x1.powi(2_i32);
    let s6 = s4 + s5;
    let s7 = x1.powi(3_i32);
    let s8 = s6 + s7;
    let s9 = x1.powi(4_i32);
    let s10 = s8 + s9;
    let s11 = x1.powi(5_i32);
    let s12 = s10 + s11;
    let s13 = x1.powi(6_i32);
    let s14 = s12 + s13;
    let s15 = (2.0_f64) * x1;
    let s16 = (3.0_f64) * s5;
    let s17 = (4.0_f64) * s7;
    let s18 = (5.0_f64) * s9;
    let s19 = (6.0_f64) * s11;
    let s20 = s14 != s14;
    Ok(move |v1: f64| -> Box<dyn Fn(f64) -> Result<f64, &'static str>> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s21 = noted1.times(v1, s15);
        let s22 = v1 + s21;
        let s23 = noted1.times(v1, s16);
        let s24 = s22 + s23;
        let s25 = noted1.times(v1, s17);
        let s26 = s24 + s25;
        let s27 = noted1.times(v1, s18);
        let s28 = s26 + s27;
        let s29 = noted1.times(v1, s19);
        let s30 = s28 + s29;
        let s31 = if s20 { f64::NAN } else { s30 };
        let s32 = s31 != s31;
        Box::new(move |v2: f64| -> Result<f64, &'static str> {
            let mut noted2 = noted1;
            let s33 = noted2.times(v2, s15);
            let s34 = noted2.times(v2, s16);
            let s35 = noted2.times(v2, s17);
            let s36 = noted2.times(v2, s18);
            let s37 = (2.0_f64) * v2;
            let s38 = noted2.times(v1, s37);
            let s39 = (3.0_f64) * s33;
            let s40 = noted2.times(v1, s39);
            let s41 = s38 + s40;
            let s42 = (4.0_f64) * s34;
            let s43 = noted2.times(v1, s42);
            let s44 = s41 + s43;
            let s45 = (5.0_f64) * s35;
            let s46 = noted2.times(v1, s45);
            let s47 = s44 + s46;
            let s48 = (6.0_f64) * s36;
            let s49 = noted2.times(v1, s48);
            let s50 = s47 + s49;
            let s51 = if s20 { 0.0_f64 } else { s50 };
            let s52 = if s32 { f64::NAN } else { s51 };
            noted2
                .checked(
                    s52,
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
    let s4 = x1 * s3;
    let s5 = x1 * s4;
    let s6 = x1 * s5;
    let s7 = s6 != s6;
    Ok(move |
        v1: f64,
    | -> Box<dyn Fn(f64) -> Box<dyn Fn(f64) -> Result<f64, &'static str>>> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s8 = noted1.times(v1, s1);
        let s9 = noted1.times(x1, v1);
        let s10 = s8 + s9;
        let s11 = noted1.times(v1, s2);
        let s12 = noted1.times(x1, s10);
        let s13 = s11 + s12;
        let s14 = noted1.times(v1, s3);
        let s15 = noted1.times(x1, s13);
        let s16 = s14 + s15;
        let s17 = noted1.times(v1, s4);
        let s18 = noted1.times(x1, s16);
        let s19 = s17 + s18;
        let s20 = noted1.times(v1, s5);
        let s21 = noted1.times(x1, s19);
        let s22 = s20 + s21;
        let s23 = if s7 { f64::NAN } else { s22 };
        let s24 = s23 != s23;
        Box::new(move |v2: f64| -> Box<dyn Fn(f64) -> Result<f64, &'static str>> {
            let mut noted2 = noted1;
            let s25 = noted2.times(v2, s1);
            let s26 = noted2.times(x1, v2);
            let s27 = s25 + s26;
            let s28 = noted2.times(v2, s2);
            let s29 = noted2.times(x1, s27);
            let s30 = s28 + s29;
            let s31 = noted2.times(v2, s3);
            let s32 = noted2.times(x1, s30);
            let s33 = s31 + s32;
            let s34 = noted2.times(v2, s4);
            let s35 = noted2.times(x1, s33);
            let s36 = s34 + s35;
            let s37 = noted2.times(v1, v2);
            let s38 = s37 + s37;
            let s39 = noted2.times(v1, s27);
            let s40 = noted2.times(v2, s10);
            let s41 = noted2.times(x1, s38);
            let s42 = s40 + s41;
            let s43 = s39 + s42;
            let s44 = noted2.times(v1, s30);
            let s45 = noted2.times(v2, s13);
            let s46 = noted2.times(x1, s43);
            let s47 = s45 + s46;
            let s48 = s44 + s47;
            let s49 = noted2.times(v1, s33);
            let s50 = noted2.times(v2, s16);
            let s51 = noted2.times(x1, s48);
            let s52 = s50 + s51;
            let s53 = s49 + s52;
            let s54 = noted2.times(v1, s36);
            let s55 = noted2.times(v2, s19);
            let s56 = noted2.times(x1, s53);
            let s57 = s55 + s56;
            let s58 = s54 + s57;
            let s59 = if s7 { 0.0_f64 } else { s58 };
            let s60 = if s24 { f64::NAN } else { s59 };
            let s61 = s60 != s60;
            Box::new(move |v3: f64| -> Result<f64, &'static str> {
                let mut noted3 = noted2;
                let s62 = noted3.times(v3, s1);
                let s63 = noted3.times(x1, v3);
                let s64 = s62 + s63;
                let s65 = noted3.times(v3, s2);
                let s66 = noted3.times(x1, s64);
                let s67 = s65 + s66;
                let s68 = noted3.times(v3, s3);
                let s69 = noted3.times(x1, s67);
                let s70 = s68 + s69;
                let s71 = noted3.times(v1, v3);
                let s72 = s71 + s71;
                let s73 = noted3.times(v1, s64);
                let s74 = noted3.times(v3, s10);
                let s75 = noted3.times(x1, s72);
                let s76 = s74 + s75;
                let s77 = s73 + s76;
                let s78 = noted3.times(v1, s67);
                let s79 = noted3.times(v3, s13);
                let s80 = noted3.times(x1, s77);
                let s81 = s79 + s80;
                let s82 = s78 + s81;
                let s83 = noted3.times(v1, s70);
                let s84 = noted3.times(v3, s16);
                let s85 = noted3.times(x1, s82);
                let s86 = s84 + s85;
                let s87 = s83 + s86;
                let s88 = noted3.times(v2, v3);
                let s89 = s88 + s88;
                let s90 = noted3.times(v2, s64);
                let s91 = noted3.times(v3, s27);
                let s92 = noted3.times(x1, s89);
                let s93 = s91 + s92;
                let s94 = s90 + s93;
                let s95 = noted3.times(v2, s67);
                let s96 = noted3.times(v3, s30);
                let s97 = noted3.times(x1, s94);
                let s98 = s96 + s97;
                let s99 = s95 + s98;
                let s100 = noted3.times(v2, s70);
                let s101 = noted3.times(v3, s33);
                let s102 = noted3.times(x1, s99);
                let s103 = s101 + s102;
                let s104 = s100 + s103;
                let s105 = noted3.times(v1, s89);
                let s106 = noted3.times(v2, s72);
                let s107 = noted3.times(v3, s38);
                let s108 = s106 + s107;
                let s109 = s105 + s108;
                let s110 = noted3.times(v1, s94);
                let s111 = noted3.times(v2, s77);
                let s112 = noted3.times(v3, s43);
                let s113 = noted3.times(x1, s109);
                let s114 = s112 + s113;
                let s115 = s111 + s114;
                let s116 = s110 + s115;
                let s117 = noted3.times(v1, s99);
                let s118 = noted3.times(v2, s82);
                let s119 = noted3.times(v3, s48);
                let s120 = noted3.times(x1, s116);
                let s121 = s119 + s120;
                let s122 = s118 + s121;
                let s123 = s117 + s122;
                let s124 = noted3.times(v1, s104);
                let s125 = noted3.times(v2, s87);
                let s126 = noted3.times(v3, s53);
                let s127 = noted3.times(x1, s123);
                let s128 = s126 + s127;
                let s129 = s125 + s128;
                let s130 = s124 + s129;
                let s131 = if s7 { 0.0_f64 } else { s130 };
                let s132 = if s24 { 0.0_f64 } else { s131 };
                let s133 = if s61 { f64::NAN } else { s132 };
                noted3
                    .checked(
                        s133,
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
    let s2 = x1 * x1;
    let s3 = s2 + (1.0_f64);
    let s4 = s3 != s3;
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s5 = noted1.times(x1, v1);
        let s6 = s5 + s5;
        let s7 = if s4 { f64::NAN } else { s6 };
        noted1
            .checked(
                s7,
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
    let s3 = s2 != s2;
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s4 = noted1.times(v1, s1);
        let s5 = noted1.over(s4, x1);
        let s6 = -s5;
        let s7 = noted1.times(s2, s6);
        let s8 = noted1.over(s7, s1);
        let s9 = -s8;
        let s10 = if s3 { f64::NAN } else { s9 };
        noted1
            .checked(
                s10,
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
    let s3 = s2 != s2;
    Ok(move |v1: f64| -> Box<dyn Fn(f64) -> Result<f64, &'static str>> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s4 = noted1.times(v1, s1);
        let s5 = noted1.over(s4, x1);
        let s6 = -s5;
        let s7 = noted1.times(s2, s6);
        let s8 = noted1.over(s7, s1);
        let s9 = -s8;
        let s10 = if s3 { f64::NAN } else { s9 };
        let s11 = s10 != s10;
        Box::new(move |v2: f64| -> Result<f64, &'static str> {
            let mut noted2 = noted1;
            let s12 = noted2.times(v2, s1);
            let s13 = noted2.over(s12, x1);
            let s14 = -s13;
            let s15 = noted2.times(s2, s14);
            let s16 = noted2.over(s15, s1);
            let s17 = -s16;
            let s18 = noted2.times(v1, s14);
            let s19 = noted2.times(v2, s5);
            let s20 = s18 - s19;
            let s21 = noted2.over(s20, x1);
            let s22 = -s21;
            let s23 = noted2.times(s6, s17);
            let s24 = noted2.times(s2, s22);
            let s25 = s23 + s24;
            let s26 = noted2.times(s8, s14);
            let s27 = s25 - s26;
            let s28 = noted2.over(s27, s1);
            let s29 = -s28;
            let s30 = if s3 { 0.0_f64 } else { s29 };
            let s31 = if s11 { f64::NAN } else { s30 };
            noted2
                .checked(
                    s31,
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
    let s3 = s2 != s2;
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s4 = -v1;
        let s5 = noted1.over(s4, s1);
        let s6 = noted1.times(s2, s5);
        let s7 = -s6;
        let s8 = noted1.over(s7, x1);
        let s9 = noted1.times(s1, s8);
        let s10 = v1 == (0.0_f64);
        let s11 = if s10 { 0.0_f64 } else { f64::NAN };
        let s12 = if s3 { s11 } else { s9 };
        noted1
            .checked(
                s12,
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
    let s2 = s1 * (2.0_f64);
    let s3 = x1 > x3;
    let s4 = x1 < x2;
    let s5 = s2 != s2;
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let s6 = if s3 { 0.0_f64 } else { v1 };
        let s7 = if s4 { 0.0_f64 } else { s6 };
        let s8 = s7 * (2.0_f64);
        let s9 = if s5 { f64::NAN } else { s8 };
        irtrack::diff::Noted::default()
            .checked(
                s9,
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
    let s1 = x1 * (2.0_f64);
    let s2 = match x2.checked_div(x3) {
        Some(r) => r,
        None => {
            return Err(
                "int_ratio [§1:%5]: `/` overflows or divides by zero on these inputs",
            );
        }
    };
    let s3 = s2 as f64;
    let s4 = s1 + s3;
    let s5 = s4 != s4;
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let s6 = v1 * (2.0_f64);
        let s7 = if s5 { f64::NAN } else { s6 };
        irtrack::diff::Noted::default()
            .checked(
                s7,
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
    let s2 = s1.atan();
    let s3 = noted0.times(s1, s1);
    let s4 = (1.0_f64) + s3;
    let s5 = s2 != s2;
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let mut noted1 = noted0;
        let s6 = noted1.times(v1, s1);
        let s7 = noted1.over(s6, s4);
        let s8 = if s5 { f64::NAN } else { s7 };
        noted1
            .checked(
                s8,
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
    let s2 = x1 * s1;
    let s3 = (1.0_f64).copysign(x1);
    let s4 = s3 * (-1.0_f64);
    let s5 = s2 != s2;
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s6 = noted1.times(v1, s4);
        let s7 = noted1.times(v1, s1);
        let s8 = noted1.times(x1, s6);
        let s9 = s7 + s8;
        let s10 = if s5 { f64::NAN } else { s9 };
        noted1
            .checked(
                s10,
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
    let s3 = s2 as u8;
    let s4 = s3 as f64;
    let s5 = s2 as i8;
    let s6 = s5 as f64;
    let s7 = x1 * s6;
    let s8 = s4 + s7;
    let s9 = s8 != s8;
    Ok(move |v1: f64| -> Result<f64, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s10 = noted1.times(v1, s6);
        let s11 = if s9 { f64::NAN } else { s10 };
        noted1
            .checked(
                s11,
                "int_casts': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
            )
    })
}
