//! Emitted by `irtrack::diff::emit_rust` from the programs of `tests/diff.rs`; do not
//! edit. `emitted_modules_are_fresh` fails when it is stale, and
//! `IRTRACK_BLESS=1 cargo test --test diff emitted` writes it again.

/// The program `rosenbrock*` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn rosenbrock_grad(
    x1: Vec<f64>,
) -> Result<impl Fn(f64) -> Result<Vec<f64>, &'static str>, &'static str> {
    let s1 = match x1.get(1_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s2 = match x1.get(0_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%9]: an index out of bounds on these inputs"),
    };
    let s3 = s2 * s2;
    let s4 = s1 - s3;
    let s5 = (1.0_f64) - s2;
    let s6 = (100.0_f64) * s4;
    let s7 = match x1.get(2_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s8 = s1 * s1;
    let s9 = s7 - s8;
    let s10 = (1.0_f64) - s1;
    let s11 = (100.0_f64) * s9;
    let s12 = match x1.get(3_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s13 = s7 * s7;
    let s14 = s12 - s13;
    let s15 = (1.0_f64) - s7;
    let s16 = (100.0_f64) * s14;
    let s17 = match x1.get(4_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s18 = s12 * s12;
    let s19 = s17 - s18;
    let s20 = (1.0_f64) - s12;
    let s21 = (100.0_f64) * s19;
    let s22 = match x1.get(5_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s23 = s17 * s17;
    let s24 = s22 - s23;
    let s25 = (1.0_f64) - s17;
    let s26 = (100.0_f64) * s24;
    let s27 = match x1.get(6_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s28 = s22 * s22;
    let s29 = s27 - s28;
    let s30 = (1.0_f64) - s22;
    let s31 = (100.0_f64) * s29;
    let s32 = match x1.get(7_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s33 = s27 * s27;
    let s34 = s32 - s33;
    let s35 = (1.0_f64) - s27;
    let s36 = (100.0_f64) * s34;
    let s37 = match x1.get(8_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s38 = s32 * s32;
    let s39 = s37 - s38;
    let s40 = (1.0_f64) - s32;
    let s41 = (100.0_f64) * s39;
    let s42 = match x1.get(9_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s43 = s37 * s37;
    let s44 = s42 - s43;
    let s45 = (1.0_f64) - s37;
    let s46 = (100.0_f64) * s44;
    let s47 = vec![0.0_f64; x1.len()];
    Ok(move |v1: f64| -> Result<Vec<f64>, &'static str> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s48 = v1 + v1;
        let s49 = noted1.times(s45, s48);
        let s50 = noted1.times(v1, s44);
        let s51 = noted1.times(v1, s46);
        let s52 = s50 * (100.0_f64);
        let s53 = s51 + s52;
        let s54 = -s49;
        let s55 = -s53;
        let s56 = s55 + s55;
        let s57 = noted1.times(s37, s56);
        let s58 = s54 + s57;
        let s59 = noted1.times(s40, s48);
        let s60 = noted1.times(v1, s39);
        let s61 = noted1.times(v1, s41);
        let s62 = s60 * (100.0_f64);
        let s63 = s61 + s62;
        let s64 = -s59;
        let s65 = s58 + s63;
        let s66 = -s63;
        let s67 = s66 + s66;
        let s68 = noted1.times(s32, s67);
        let s69 = s64 + s68;
        let s70 = noted1.times(s35, s48);
        let s71 = noted1.times(v1, s34);
        let s72 = noted1.times(v1, s36);
        let s73 = s71 * (100.0_f64);
        let s74 = s72 + s73;
        let s75 = -s70;
        let s76 = s69 + s74;
        let s77 = -s74;
        let s78 = s77 + s77;
        let s79 = noted1.times(s27, s78);
        let s80 = s75 + s79;
        let s81 = noted1.times(s30, s48);
        let s82 = noted1.times(v1, s29);
        let s83 = noted1.times(v1, s31);
        let s84 = s82 * (100.0_f64);
        let s85 = s83 + s84;
        let s86 = -s81;
        let s87 = s80 + s85;
        let s88 = -s85;
        let s89 = s88 + s88;
        let s90 = noted1.times(s22, s89);
        let s91 = s86 + s90;
        let s92 = noted1.times(s25, s48);
        let s93 = noted1.times(v1, s24);
        let s94 = noted1.times(v1, s26);
        let s95 = s93 * (100.0_f64);
        let s96 = s94 + s95;
        let s97 = -s92;
        let s98 = s91 + s96;
        let s99 = -s96;
        let s100 = s99 + s99;
        let s101 = noted1.times(s17, s100);
        let s102 = s97 + s101;
        let s103 = noted1.times(s20, s48);
        let s104 = noted1.times(v1, s19);
        let s105 = noted1.times(v1, s21);
        let s106 = s104 * (100.0_f64);
        let s107 = s105 + s106;
        let s108 = -s103;
        let s109 = s102 + s107;
        let s110 = -s107;
        let s111 = s110 + s110;
        let s112 = noted1.times(s12, s111);
        let s113 = s108 + s112;
        let s114 = noted1.times(s15, s48);
        let s115 = noted1.times(v1, s14);
        let s116 = noted1.times(v1, s16);
        let s117 = s115 * (100.0_f64);
        let s118 = s116 + s117;
        let s119 = -s114;
        let s120 = s113 + s118;
        let s121 = -s118;
        let s122 = s121 + s121;
        let s123 = noted1.times(s7, s122);
        let s124 = s119 + s123;
        let s125 = noted1.times(s10, s48);
        let s126 = noted1.times(v1, s9);
        let s127 = noted1.times(v1, s11);
        let s128 = s126 * (100.0_f64);
        let s129 = s127 + s128;
        let s130 = -s125;
        let s131 = s124 + s129;
        let s132 = -s129;
        let s133 = s132 + s132;
        let s134 = noted1.times(s1, s133);
        let s135 = s130 + s134;
        let s136 = noted1.times(s5, s48);
        let s137 = noted1.times(v1, s4);
        let s138 = noted1.times(v1, s6);
        let s139 = s137 * (100.0_f64);
        let s140 = s138 + s139;
        let s141 = -s136;
        let s142 = s135 + s140;
        let s143 = -s140;
        let s144 = s143 + s143;
        let s145 = noted1.times(s2, s144);
        let s146 = s141 + s145;
        let s147 = {
            let mut z = s47.clone();
            z[9_usize] += s53;
            z[8_usize] += s65;
            z[7_usize] += s76;
            z[6_usize] += s87;
            z[5_usize] += s98;
            z[4_usize] += s109;
            z[3_usize] += s120;
            z[2_usize] += s131;
            z[0_usize] += s146;
            z[1_usize] += s142;
            z
        };
        noted1
            .checked(
                s147,
                "rosenbrock*: the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
            )
    })
}

/// The program `rosenbrock*'` (2 directions, a closure each), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn rosenbrock_hvp(
    x1: Vec<f64>,
) -> Result<
    impl Fn(f64) -> Box<dyn Fn(Vec<f64>) -> Result<Vec<f64>, &'static str>>,
    &'static str,
> {
    let s1 = match x1.get(1_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s2 = match x1.get(0_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%9]: an index out of bounds on these inputs"),
    };
    let s3 = s2 * s2;
    let s4 = s1 - s3;
    let s5 = (100.0_f64) * s4;
    let s6 = match x1.get(2_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s7 = s1 * s1;
    let s8 = s6 - s7;
    let s9 = (100.0_f64) * s8;
    let s10 = match x1.get(3_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s11 = s6 * s6;
    let s12 = s10 - s11;
    let s13 = (100.0_f64) * s12;
    let s14 = match x1.get(4_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s15 = s10 * s10;
    let s16 = s14 - s15;
    let s17 = (100.0_f64) * s16;
    let s18 = match x1.get(5_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s19 = s14 * s14;
    let s20 = s18 - s19;
    let s21 = (100.0_f64) * s20;
    let s22 = match x1.get(6_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s23 = s18 * s18;
    let s24 = s22 - s23;
    let s25 = (100.0_f64) * s24;
    let s26 = match x1.get(7_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s27 = s22 * s22;
    let s28 = s26 - s27;
    let s29 = (100.0_f64) * s28;
    let s30 = match x1.get(8_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s31 = s26 * s26;
    let s32 = s30 - s31;
    let s33 = (100.0_f64) * s32;
    let s34 = match x1.get(9_usize) {
        Some(&r) => r,
        None => return Err("rosenbrock [§3:%8]: an index out of bounds on these inputs"),
    };
    let s35 = s30 * s30;
    let s36 = s34 - s35;
    let s37 = (100.0_f64) * s36;
    let s38 = vec![0.0_f64; x1.len()];
    let s39 = vec![0.0_f64; s38.len()];
    Ok(move |v1: f64| -> Box<dyn Fn(Vec<f64>) -> Result<Vec<f64>, &'static str>> {
        let mut noted1 = irtrack::diff::Noted::default();
        let s40 = v1 + v1;
        let s41 = noted1.times(v1, s36);
        let s42 = noted1.times(v1, s37);
        let s43 = s41 * (100.0_f64);
        let s44 = s42 + s43;
        let s45 = -s44;
        let s46 = s45 + s45;
        let s47 = noted1.times(v1, s32);
        let s48 = noted1.times(v1, s33);
        let s49 = s47 * (100.0_f64);
        let s50 = s48 + s49;
        let s51 = -s50;
        let s52 = s51 + s51;
        let s53 = noted1.times(v1, s28);
        let s54 = noted1.times(v1, s29);
        let s55 = s53 * (100.0_f64);
        let s56 = s54 + s55;
        let s57 = -s56;
        let s58 = s57 + s57;
        let s59 = noted1.times(v1, s24);
        let s60 = noted1.times(v1, s25);
        let s61 = s59 * (100.0_f64);
        let s62 = s60 + s61;
        let s63 = -s62;
        let s64 = s63 + s63;
        let s65 = noted1.times(v1, s20);
        let s66 = noted1.times(v1, s21);
        let s67 = s65 * (100.0_f64);
        let s68 = s66 + s67;
        let s69 = -s68;
        let s70 = s69 + s69;
        let s71 = noted1.times(v1, s16);
        let s72 = noted1.times(v1, s17);
        let s73 = s71 * (100.0_f64);
        let s74 = s72 + s73;
        let s75 = -s74;
        let s76 = s75 + s75;
        let s77 = noted1.times(v1, s12);
        let s78 = noted1.times(v1, s13);
        let s79 = s77 * (100.0_f64);
        let s80 = s78 + s79;
        let s81 = -s80;
        let s82 = s81 + s81;
        let s83 = noted1.times(v1, s8);
        let s84 = noted1.times(v1, s9);
        let s85 = s83 * (100.0_f64);
        let s86 = s84 + s85;
        let s87 = -s86;
        let s88 = s87 + s87;
        let s89 = noted1.times(v1, s4);
        let s90 = noted1.times(v1, s5);
        let s91 = s89 * (100.0_f64);
        let s92 = s90 + s91;
        let s93 = -s92;
        let s94 = s93 + s93;
        let s39 = s39.clone();
        let x1 = x1.clone();
        Box::new(move |v2: Vec<f64>| -> Result<Vec<f64>, &'static str> {
            let mut noted2 = noted1;
            if v2.len() != x1.len() {
                return Err("rosenbrock*': v2 must have the length of x1");
            }
            let s95 = match v2.get(1_usize) {
                Some(&r) => r,
                None => {
                    return Err(
                        "rosenbrock [§3:%8]: an index out of bounds on these inputs",
                    );
                }
            };
            let s96 = match v2.get(0_usize) {
                Some(&r) => r,
                None => {
                    return Err(
                        "rosenbrock [§3:%9]: an index out of bounds on these inputs",
                    );
                }
            };
            let s97 = noted2.times(s2, s96);
            let s98 = s97 + s97;
            let s99 = s95 - s98;
            let s100 = -s96;
            let s101 = (100.0_f64) * s99;
            let s102 = match v2.get(2_usize) {
                Some(&r) => r,
                None => {
                    return Err(
                        "rosenbrock [§3:%8]: an index out of bounds on these inputs",
                    );
                }
            };
            let s103 = noted2.times(s1, s95);
            let s104 = s103 + s103;
            let s105 = s102 - s104;
            let s106 = -s95;
            let s107 = (100.0_f64) * s105;
            let s108 = match v2.get(3_usize) {
                Some(&r) => r,
                None => {
                    return Err(
                        "rosenbrock [§3:%8]: an index out of bounds on these inputs",
                    );
                }
            };
            let s109 = noted2.times(s6, s102);
            let s110 = s109 + s109;
            let s111 = s108 - s110;
            let s112 = -s102;
            let s113 = (100.0_f64) * s111;
            let s114 = match v2.get(4_usize) {
                Some(&r) => r,
                None => {
                    return Err(
                        "rosenbrock [§3:%8]: an index out of bounds on these inputs",
                    );
                }
            };
            let s115 = noted2.times(s10, s108);
            let s116 = s115 + s115;
            let s117 = s114 - s116;
            let s118 = -s108;
            let s119 = (100.0_f64) * s117;
            let s120 = match v2.get(5_usize) {
                Some(&r) => r,
                None => {
                    return Err(
                        "rosenbrock [§3:%8]: an index out of bounds on these inputs",
                    );
                }
            };
            let s121 = noted2.times(s14, s114);
            let s122 = s121 + s121;
            let s123 = s120 - s122;
            let s124 = -s114;
            let s125 = (100.0_f64) * s123;
            let s126 = match v2.get(6_usize) {
                Some(&r) => r,
                None => {
                    return Err(
                        "rosenbrock [§3:%8]: an index out of bounds on these inputs",
                    );
                }
            };
            let s127 = noted2.times(s18, s120);
            let s128 = s127 + s127;
            let s129 = s126 - s128;
            let s130 = -s120;
            let s131 = (100.0_f64) * s129;
            let s132 = match v2.get(7_usize) {
                Some(&r) => r,
                None => {
                    return Err(
                        "rosenbrock [§3:%8]: an index out of bounds on these inputs",
                    );
                }
            };
            let s133 = noted2.times(s22, s126);
            let s134 = s133 + s133;
            let s135 = s132 - s134;
            let s136 = -s126;
            let s137 = (100.0_f64) * s135;
            let s138 = match v2.get(8_usize) {
                Some(&r) => r,
                None => {
                    return Err(
                        "rosenbrock [§3:%8]: an index out of bounds on these inputs",
                    );
                }
            };
            let s139 = noted2.times(s26, s132);
            let s140 = s139 + s139;
            let s141 = s138 - s140;
            let s142 = -s132;
            let s143 = (100.0_f64) * s141;
            let s144 = match v2.get(9_usize) {
                Some(&r) => r,
                None => {
                    return Err(
                        "rosenbrock [§3:%8]: an index out of bounds on these inputs",
                    );
                }
            };
            let s145 = noted2.times(s30, s138);
            let s146 = s145 + s145;
            let s147 = s144 - s146;
            let s148 = -s138;
            let s149 = (100.0_f64) * s147;
            let s150 = noted2.times(s40, s148);
            let s151 = noted2.times(v1, s147);
            let s152 = noted2.times(v1, s149);
            let s153 = s151 * (100.0_f64);
            let s154 = s152 + s153;
            let s155 = -s150;
            let s156 = -s154;
            let s157 = s156 + s156;
            let s158 = noted2.times(s46, s138);
            let s159 = noted2.times(s30, s157);
            let s160 = s158 + s159;
            let s161 = s155 + s160;
            let s162 = noted2.times(s40, s142);
            let s163 = noted2.times(v1, s141);
            let s164 = noted2.times(v1, s143);
            let s165 = s163 * (100.0_f64);
            let s166 = s164 + s165;
            let s167 = -s162;
            let s168 = s161 + s166;
            let s169 = -s166;
            let s170 = s169 + s169;
            let s171 = noted2.times(s52, s132);
            let s172 = noted2.times(s26, s170);
            let s173 = s171 + s172;
            let s174 = s167 + s173;
            let s175 = noted2.times(s40, s136);
            let s176 = noted2.times(v1, s135);
            let s177 = noted2.times(v1, s137);
            let s178 = s176 * (100.0_f64);
            let s179 = s177 + s178;
            let s180 = -s175;
            let s181 = s174 + s179;
            let s182 = -s179;
            let s183 = s182 + s182;
            let s184 = noted2.times(s58, s126);
            let s185 = noted2.times(s22, s183);
            let s186 = s184 + s185;
            let s187 = s180 + s186;
            let s188 = noted2.times(s40, s130);
            let s189 = noted2.times(v1, s129);
            let s190 = noted2.times(v1, s131);
            let s191 = s189 * (100.0_f64);
            let s192 = s190 + s191;
            let s193 = -s188;
            let s194 = s187 + s192;
            let s195 = -s192;
            let s196 = s195 + s195;
            let s197 = noted2.times(s64, s120);
            let s198 = noted2.times(s18, s196);
            let s199 = s197 + s198;
            let s200 = s193 + s199;
            let s201 = noted2.times(s40, s124);
            let s202 = noted2.times(v1, s123);
            let s203 = noted2.times(v1, s125);
            let s204 = s202 * (100.0_f64);
            let s205 = s203 + s204;
            let s206 = -s201;
            let s207 = s200 + s205;
            let s208 = -s205;
            let s209 = s208 + s208;
            let s210 = noted2.times(s70, s114);
            let s211 = noted2.times(s14, s209);
            let s212 = s210 + s211;
            let s213 = s206 + s212;
            let s214 = noted2.times(s40, s118);
            let s215 = noted2.times(v1, s117);
            let s216 = noted2.times(v1, s119);
            let s217 = s215 * (100.0_f64);
            let s218 = s216 + s217;
            let s219 = -s214;
            let s220 = s213 + s218;
            let s221 = -s218;
            let s222 = s221 + s221;
            let s223 = noted2.times(s76, s108);
            let s224 = noted2.times(s10, s222);
            let s225 = s223 + s224;
            let s226 = s219 + s225;
            let s227 = noted2.times(s40, s112);
            let s228 = noted2.times(v1, s111);
            let s229 = noted2.times(v1, s113);
            let s230 = s228 * (100.0_f64);
            let s231 = s229 + s230;
            let s232 = -s227;
            let s233 = s226 + s231;
            let s234 = -s231;
            let s235 = s234 + s234;
            let s236 = noted2.times(s82, s102);
            let s237 = noted2.times(s6, s235);
            let s238 = s236 + s237;
            let s239 = s232 + s238;
            let s240 = noted2.times(s40, s106);
            let s241 = noted2.times(v1, s105);
            let s242 = noted2.times(v1, s107);
            let s243 = s241 * (100.0_f64);
            let s244 = s242 + s243;
            let s245 = -s240;
            let s246 = s239 + s244;
            let s247 = -s244;
            let s248 = s247 + s247;
            let s249 = noted2.times(s88, s95);
            let s250 = noted2.times(s1, s248);
            let s251 = s249 + s250;
            let s252 = s245 + s251;
            let s253 = noted2.times(s40, s100);
            let s254 = noted2.times(v1, s99);
            let s255 = noted2.times(v1, s101);
            let s256 = s254 * (100.0_f64);
            let s257 = s255 + s256;
            let s258 = -s253;
            let s259 = s252 + s257;
            let s260 = -s257;
            let s261 = s260 + s260;
            let s262 = noted2.times(s94, s96);
            let s263 = noted2.times(s2, s261);
            let s264 = s262 + s263;
            let s265 = s258 + s264;
            let s266 = {
                let mut z = s39.clone();
                z[9_usize] += s154;
                z[8_usize] += s168;
                z[7_usize] += s181;
                z[6_usize] += s194;
                z[5_usize] += s207;
                z[4_usize] += s220;
                z[3_usize] += s233;
                z[2_usize] += s246;
                z[0_usize] += s265;
                z[1_usize] += s259;
                z
            };
            noted2
                .checked(
                    s266,
                    "rosenbrock*': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
                )
        })
    })
}

/// The program `mixed'` (a direction, in a closure), emitted by `irtrack::diff::emit_rust`.
#[allow(clippy::all, unused_variables, unused_parens)]
pub fn mixed_jvp(
    x1: Vec<f64>,
    x2: f64,
) -> Result<impl Fn(Vec<f64>, f64) -> Result<Vec<f64>, &'static str>, &'static str> {
    let mut noted0 = irtrack::diff::Noted::default();
    let p14 = match x1.get(2_usize) {
        Some(&r) => r,
        None => return Err("mixed [§1:%17]: an index out of bounds on these inputs"),
    };
    let p15 = match x1.get(0_usize) {
        Some(&r) => r,
        None => return Err("mixed [§1:%18]: an index out of bounds on these inputs"),
    };
    let p16 = p14.atan2(p15);
    if p14 == 0.0 && p15 == 0.0 {
        return Err(
            "mixed [§1:%19]: at a tie of an ordering, a kink or a jump of the recorded function; emitted code cannot tell whether the path has a derivative here (it may hold at this point alone): call the program, which checks",
        );
    }
    let p17 = match x1.get(1_usize) {
        Some(&r) => r,
        None => return Err("mixed [§1:%20]: an index out of bounds on these inputs"),
    };
    let p18 = x2.max(p17);
    if x2 == p17 {
        return Err(
            "mixed [§1:%21]: at a tie of an ordering, a kink or a jump of the recorded function; emitted code cannot tell whether the path has a derivative here (it may hold at this point alone): call the program, which checks",
        );
    }
    let s1 = match x1.get(0_usize) {
        Some(&r) => r,
        None => return Err("mixed [§1:%4]: an index out of bounds on these inputs"),
    };
    let s2 = x2.sin();
    let s3 = match x1.get(1_usize) {
        Some(&r) => r,
        None => return Err("mixed [§1:%7]: an index out of bounds on these inputs"),
    };
    let s4 = match x1.get(2_usize) {
        Some(&r) => r,
        None => return Err("mixed [§1:%10]: an index out of bounds on these inputs"),
    };
    let s5 = s4 / x2;
    let s6 = s5.exp();
    let s7 = s4.atan2(s1);
    let s8 = x2.max(s3);
    let s9 = x2.cos();
    let s10 = s3.powi(2_i32);
    let s11 = (3.0_f64) * s10;
    let s12 = s4.hypot(s1);
    let s13 = s12 == (0.0_f64);
    let s14 = noted0.over(s1, s12);
    let s15 = noted0.over(s14, s12);
    let s16 = if s13 { 0.0_f64 } else { s15 };
    let s17 = -s4;
    let s18 = noted0.over(s17, s12);
    let s19 = noted0.over(s18, s12);
    let s20 = if s13 { 0.0_f64 } else { s19 };
    let s21 = x2 >= s3;
    let s22 = s3 != s3;
    let s23 = s21 | s22;
    Ok(move |v1_1: Vec<f64>, v1_2: f64| -> Result<Vec<f64>, &'static str> {
        let mut noted1 = noted0;
        if v1_1.len() != x1.len() {
            return Err("mixed': v1_1 must have the length of x1");
        }
        let s24 = match v1_1.get(0_usize) {
            Some(&r) => r,
            None => return Err("mixed [§1:%4]: an index out of bounds on these inputs"),
        };
        let s25 = noted1.times(v1_2, s9);
        let s26 = noted1.times(s2, s24);
        let s27 = noted1.times(s1, s25);
        let s28 = s26 + s27;
        let s29 = match v1_1.get(1_usize) {
            Some(&r) => r,
            None => return Err("mixed [§1:%7]: an index out of bounds on these inputs"),
        };
        let s30 = noted1.times(s29, s11);
        let s31 = s28 + s30;
        let s32 = match v1_1.get(2_usize) {
            Some(&r) => r,
            None => return Err("mixed [§1:%10]: an index out of bounds on these inputs"),
        };
        let s33 = noted1.times(v1_2, s5);
        let s34 = s32 - s33;
        let s35 = noted1.over(s34, x2);
        let s36 = noted1.times(s6, s35);
        let s37 = noted1.times(s3, s24);
        let s38 = noted1.times(s1, s29);
        let s39 = s37 + s38;
        let s40 = s36 - s39;
        let s41 = noted1.times(s32, s16);
        let s42 = noted1.times(s24, s20);
        let s43 = s41 + s42;
        let s44 = if s23 { v1_2 } else { s29 };
        let s45 = noted1.times(s8, s43);
        let s46 = noted1.times(s7, s44);
        let s47 = s45 + s46;
        let s48 = vec![s31, s40, s47];
        noted1
            .checked(
                s48,
                "mixed': the derivative is infinite or NaN, or took an infinity into a zero; emitted code cannot tell whether that is right: call the program, which returns it or a `ReplayError`",
            )
    })
}
