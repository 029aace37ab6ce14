//! Issue 11: `#[tracked]` takes all valid Rust and never changes what it computes.
//!
//! Each `repro_<n>` holds the case `n` and further code of the same shapes. Every
//! function is written once, through `both!`, as a tracked function and as a plain one, so a test
//! can compare the two bit for bit; every trace a test reads is verified (`verify-traces`).

use irtrack::{track_output, tracked, Callable};

/// Writes each function twice: `name::tracked` under `#[tracked]`, `name::plain` as written.
macro_rules! both {
    ($($(#[$m:meta])* fn $name:ident $(<$($g:ident: $b:path),*>)? ($($a:ident: $t:ty),*) -> $r:ty $body:block)*) => {$(
        #[allow(dead_code, unused_mut, redundant_semicolons, clippy::all)]
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            #[tracked]
            $(#[$m])*
            pub fn tracked $(<$($g: $b),*>)? ($($a: $t),*) -> $r $body
            $(#[$m])*
            pub fn plain $(<$($g: $b),*>)? ($($a: $t),*) -> $r $body
        }
    )*};
}

/// Central finite difference of `f` at `x`.
fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6 * x.abs().max(1.0);
    (f(x + h) - f(x - h)) / (2.0 * h)
}

/// Checks a tracked `f64 -> f64` function against its plain copy at each point: the untracked
/// call and the recorded call return the plain result bit for bit, the trace is well formed, and
/// the gradient is the central difference (points must be away from kinks) or a typed error.
/// Returns how many gradients were numbers.
fn check_f64<F>(tracked: F, plain: fn(f64) -> f64, xs: &[f64]) -> usize
where
    F: Callable<(f64,), Output = f64> + Fn(f64) -> f64 + Copy,
{
    let mut numbers = 0;
    for &x in xs {
        let want = plain(x);
        assert_eq!(
            tracked(x).to_bits(),
            want.to_bits(),
            "untracked call at {x}"
        );
        let (out, trace) = track_output(tracked, (x,));
        assert_eq!(out.to_bits(), want.to_bits(), "recorded call at {x}");
        trace.verify().unwrap();
        let Ok(g) = irtrack::gradient(tracked, (x,)) else {
            continue;
        };
        assert_eq!(g.value.to_bits(), want.to_bits());
        let d = g.scalars()[0].expect("a float argument has a gradient");
        let fd = central(plain, x);
        assert!(
            (d - fd).abs() <= 1e-5 * fd.abs().max(1.0),
            "gradient at {x}: {d}, central difference {fd}\n{}",
            trace.root()
        );
        numbers += 1;
    }
    numbers
}

// ----- 8: variables declared without a value -----

both! {
    fn deferred_if(x: f64) -> f64 {
        let y: f64;
        if x > 0.0 { y = x * 2.0 } else { y = -x }
        y + 1.0
    }
    fn deferred_returned(x: f64) -> f64 {
        let a: f64;
        if x > 0.0 { a = x * 2.0 } else { a = x }
        a
    }
}

#[test]
fn repro_8_deferred_initialisation_keeps_its_edges() {
    assert_eq!(
        check_f64(deferred_if::tracked, deferred_if::plain, &[-1.5, 2.0]),
        2
    );
    assert_eq!(
        check_f64(
            deferred_returned::tracked,
            deferred_returned::plain,
            &[-1.5, 2.0]
        ),
        2
    );
}

// ----- 10: #[cfg] -----

both! {
    fn cfg_statement(x: f64) -> f64 {
        let mut a = x;
        #[cfg(any())]
        {
            a = 100.0;
        }
        a
    }
    fn cfg_let_tuple(x: f64) -> f64 {
        #[cfg(all())]
        let (a, b) = (x, 2.0 * x);
        #[cfg(any())]
        let (a, b) = (0.0, 0.0);
        a * b
    }
    fn cfg_tail_blocks(x: f64) -> f64 {
        #[cfg(all())]
        {
            x * x
        }
        #[cfg(any())]
        {
            x + 1.0
        }
    }
}

#[test]
fn repro_10_cfg_is_honoured() {
    assert_eq!(
        check_f64(cfg_statement::tracked, cfg_statement::plain, &[1.0, -2.0]),
        2
    );
    // A tuple has no gradient rule: a typed error, never a number.
    check_f64(cfg_let_tuple::tracked, cfg_let_tuple::plain, &[1.0, -2.0]);
    assert_eq!(
        check_f64(
            cfg_tail_blocks::tracked,
            cfg_tail_blocks::plain,
            &[1.0, -2.0]
        ),
        2
    );
}

// ----- 11: values of any type -----

#[derive(Debug, PartialEq)]
pub struct NotClone(u8);

both! {
    fn result_not_clone(a: f64) -> Result<f64, NotClone> {
        return if a < -1.0 { Ok(0.0) } else { Ok(1.0) };
    }
}

both! {
    fn merged_not_clone(a: f64) -> Result<f64, NotClone> {
        let r = if a < -1.0 { Ok(0.0) } else { Ok(a) };
        r
    }
    fn matched_not_clone(a: f64) -> Result<f64, NotClone> {
        if a < -5.0 {
            return Err(NotClone(1));
        }
        let v = match a as i64 {
            0 => Ok(a * 2.0),
            _ => Err(NotClone(2)),
        };
        v
    }
}

#[derive(Debug, PartialEq)]
pub enum ShapeError {
    ShapeTooSmall,
}

pub struct P<F> {
    pub l: F,
}

#[tracked]
impl<F: Copy + PartialOrd + Default> P<F> {
    pub fn new(l: F) -> Result<P<F>, ShapeError> {
        if l < F::default() {
            return Err(ShapeError::ShapeTooSmall);
        }
        Ok(P { l })
    }
}

#[test]
fn repro_11_values_of_any_type_are_recorded() {
    for a in [-2.0, 0.0] {
        let (out, trace) = track_output(result_not_clone::tracked, (a,));
        assert_eq!(out, result_not_clone::plain(a));
        trace.verify().unwrap();
    }
    for a in [-2.0, 0.5, 3.0, -6.0] {
        let (out, trace) = track_output(merged_not_clone::tracked, (a,));
        assert_eq!(out, merged_not_clone::plain(a));
        trace.verify().unwrap();
        let (out, trace) = track_output(matched_not_clone::tracked, (a,));
        assert_eq!(out, matched_not_clone::plain(a));
        trace.verify().unwrap();
    }
    let (out, trace) = track_output(P::<f64>::new, (1.0,));
    assert_eq!(out.map(|p| p.l), Ok(1.0));
    trace.verify().unwrap();
    let (out, _) = track_output(P::<f64>::new, (-1.0,));
    assert!(matches!(out, Err(ShapeError::ShapeTooSmall)));
}

// ----- 12b: never type, associated types, generic closure parameters -----

both! {
    fn nested_returns(x: f64) -> f64 {
        if x > 2.0 {
            if x > 1.0 {
                return 1.0;
            } else if x > 0.5 {
                return 0.0;
            } else {
                return -1.0;
            }
        }
        x
    }
}

/// A float trait of the shape of libm's generic helpers: an associated integer type whose
/// bounds name other associated types, constants of it, and casts whose target is inferred.
pub trait MinInt:
    Copy + core::fmt::Debug + core::ops::BitOr<Output = Self> + core::ops::Shl<u32, Output = Self>
{
    type OtherSign: MinInt;
    type Unsigned: MinInt;
    const ZERO: Self;
    const ONE: Self;
}

pub trait CastInto<T: Copy>: Copy {
    fn cast(self) -> T;
}

impl CastInto<i32> for u32 {
    fn cast(self) -> i32 {
        self as i32
    }
}

pub trait Int:
    MinInt + PartialEq + core::ops::BitAnd<Output = Self> + core::ops::Shr<u32, Output = Self>
{
    fn signed(self) -> <Self::Unsigned as MinInt>::OtherSign;
}

impl MinInt for u64 {
    type OtherSign = i64;
    type Unsigned = u64;
    const ZERO: u64 = 0;
    const ONE: u64 = 1;
}

impl MinInt for i64 {
    type OtherSign = u64;
    type Unsigned = u64;
    const ZERO: i64 = 0;
    const ONE: i64 = 1;
}

impl Int for u64 {
    fn signed(self) -> i64 {
        self as i64
    }
}

pub trait Float:
    Copy
    + core::fmt::Debug
    + PartialOrd
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
{
    type Int: Int<OtherSign = Self::SignedInt, Unsigned = Self::Int>;
    type SignedInt: MinInt<OtherSign = Self::Int, Unsigned = Self::Int>;
    const ZERO: Self;
    const ONE: Self;
    const EPSILON: Self;
    const SIG_BITS: u32;
    const EXP_BIAS: u32;
    const SIGN_MASK: Self::Int;
    fn to_bits(self) -> Self::Int;
    fn from_bits(i: Self::Int) -> Self;
    fn exp(self) -> i32;
}

impl Float for f64 {
    type Int = u64;
    type SignedInt = i64;
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    const EPSILON: f64 = f64::EPSILON;
    const SIG_BITS: u32 = 52;
    const EXP_BIAS: u32 = 1023;
    const SIGN_MASK: u64 = 1 << 63;
    fn to_bits(self) -> u64 {
        f64::to_bits(self)
    }
    fn from_bits(i: u64) -> f64 {
        f64::from_bits(i)
    }
    fn exp(self) -> i32 {
        ((f64::to_bits(self) >> 52) & 0x7ff) as i32
    }
}

/// libm's `ceil`: a deferred `let y: F`, a cast whose target is inferred from a comparison.
#[allow(clippy::needless_late_init)]
#[tracked]
pub fn generic_ceil<F: Float>(x: F) -> F {
    let toint = F::ONE / F::EPSILON;
    let e = x.exp();
    let y: F;
    if e >= (F::SIG_BITS + F::EXP_BIAS).cast() || x == F::ZERO {
        return x;
    }
    y = if x < F::ZERO {
        x - toint + toint - x
    } else {
        x + toint - toint - x
    };
    if y < F::ZERO {
        x + y + F::ONE
    } else {
        x + y
    }
}

/// Shifts by integer literals of `F::Int` values, whose type is settled only by the shift's
/// bound, and a projection through two associated types.
#[tracked]
pub fn generic_bits<F: Float>(x: F) -> F {
    let zero = F::Int::ZERO;
    let ix = x.to_bits();
    if ix << 1 != zero {
        let _signed = ix.signed();
        let kept = (ix & (F::SIGN_MASK >> 1)) | (ix & F::SIGN_MASK) | ix;
        return F::from_bits(kept);
    }
    F::from_bits(ix)
}

/// A closure whose parameter has no written type: it is `F`, known only after the closure.
#[tracked]
pub fn generic_closure<F: Float>(x: F) -> F {
    let force = |v| v;
    let sq = |v: F| v * v;
    force(sq(x))
}

#[test]
fn repro_12b_never_type_and_generic_values() {
    assert_eq!(
        check_f64(nested_returns::tracked, nested_returns::plain, &[3.0, 1.0]),
        2
    );
    // Values only: a gradient differentiates the rounding trick's arithmetic (`x + y` with
    // `y = x + t - t - x` has slope 1), not the step function `ceil` is.
    for x in [1.25, -2.5, 7.0] {
        let (out, trace) = track_output(generic_ceil::<f64>, (x,));
        assert_eq!(out.to_bits(), x.ceil().to_bits());
        assert_eq!(generic_ceil(x).to_bits(), x.ceil().to_bits());
        trace.verify().unwrap();
    }
    for x in [1.5, -3.25, 0.0] {
        let (out, trace) = track_output(generic_bits::<f64>, (x,));
        assert_eq!(out.to_bits(), x.to_bits());
        trace.verify().unwrap();
    }
    assert_eq!(
        check_f64(generic_closure::<f64>, |x| x * x, &[1.5, -2.0]),
        2
    );
}

// ----- 13: edition-2024 syntax (let chains are in the `tracked` docs, an edition-2024 doc test:
// this crate is edition 2021) -----

both! {
    fn labelled_value(x: f64) -> f64 {
        let r = 'done: {
            if x < 0.0 {
                break 'done x * x;
            }
            let mut t = x;
            if t > 2.0 {
                t *= 0.5;
                break 'done t + 1.0;
            }
            t * 3.0
        };
        r + x
    }
    fn labelled_assigns(x: f64) -> f64 {
        let mut acc = x;
        'outer: {
            if x > 1.0 {
                acc *= 2.0;
                break 'outer;
            }
            acc += x.sin();
        }
        acc
    }
    fn labelled_deferred(x: f64) -> f64 {
        let y: f64;
        'pick: {
            if x > 0.0 {
                y = x.exp();
                break 'pick;
            }
            y = -x;
        }
        y * 2.0
    }
    fn loop_deferred(x: f64) -> f64 {
        let y: f64;
        let mut k = 0;
        loop {
            k += 1;
            if k > 2 {
                y = x * k as f64;
                break;
            }
            if x < -5.0 {
                y = x;
                break;
            }
        }
        y
    }
    fn labelled_in_loop(x: f64) -> f64 {
        let mut s = 0.0;
        'outer: for i in 0..4 {
            let step = 'b: {
                if i % 2 == 0 {
                    break 'b x;
                }
                if i == 3 {
                    continue 'outer;
                }
                x * x
            };
            s += step;
        }
        s
    }
}

#[test]
fn repro_13_labelled_blocks() {
    assert_eq!(
        check_f64(
            labelled_value::tracked,
            labelled_value::plain,
            &[-1.5, 1.0, 3.0]
        ),
        3
    );
    assert_eq!(
        check_f64(
            labelled_assigns::tracked,
            labelled_assigns::plain,
            &[0.5, 2.0]
        ),
        2
    );
    assert_eq!(
        check_f64(
            labelled_deferred::tracked,
            labelled_deferred::plain,
            &[-0.5, 2.0]
        ),
        2
    );
    assert_eq!(
        check_f64(loop_deferred::tracked, loop_deferred::plain, &[-6.0, 1.5]),
        2
    );
    assert_eq!(
        check_f64(
            labelled_in_loop::tracked,
            labelled_in_loop::plain,
            &[-0.5, 2.0]
        ),
        2
    );
}

// ----- 9: inner attributes stay at the start of the body -----

mod inner_attributes {
    use super::*;

    #[tracked]
    pub fn tracked(x: f64) -> f64 {
        #![allow(clippy::let_and_return)]
        let y = x * 3.0;
        y
    }

    #[allow(clippy::let_and_return)]
    pub fn plain(x: f64) -> f64 {
        let y = x * 3.0;
        y
    }
}

#[test]
fn repro_9_inner_attributes() {
    assert_eq!(
        check_f64(
            inner_attributes::tracked,
            inner_attributes::plain,
            &[1.0, -2.0]
        ),
        2
    );
}

// ----- more of the same shapes -----

both! {
    /// libm's `exp`: several variables declared without a value, assigned in nested branches.
    fn deferred_nested(x: f64) -> f64 {
        let hi: f64;
        let lo: f64;
        let k: i32;
        if x.abs() > 0.5 {
            if x > 0.0 {
                k = 1;
                hi = x - 0.5;
                lo = 0.25;
            } else {
                k = -1;
                hi = x + 0.5;
                lo = -0.25;
            }
        } else {
            k = 0;
            hi = x;
            lo = 0.0;
        }
        (hi - lo) * k as f64 + hi * hi
    }
    /// A deferred variable assigned in a `match`, and one assigned only on some arms and
    /// assigned again before it is read.
    fn deferred_match(x: f64) -> f64 {
        let y;
        let mut z: f64;
        match (x * 2.0) as i64 {
            0 => {
                y = x + 1.0;
            }
            1 | 2 => y = x * x,
            _ => y = -x,
        }
        z = y * 0.5;
        y + z
    }
    /// `if` without `else` in a loop body whose arms return: the never type must not leak.
    fn returns_in_loop(x: f64) -> f64 {
        let mut t = x;
        for _ in 0..3 {
            if t > 10.0 {
                if t > 20.0 {
                    return t;
                } else {
                    return -t;
                }
            }
            t *= 3.0;
        }
        t
    }
    /// A `match` whose arms all return, in statement position.
    fn match_all_return(x: f64) -> f64 {
        if x > 0.0 {
            match x as i64 {
                0 => return x,
                1 => return x * 2.0,
                _ => return x * 3.0,
            }
        }
        x.sin()
    }
}

#[test]
fn more_shapes_of_cases_8_and_12b() {
    assert_eq!(
        check_f64(
            deferred_nested::tracked,
            deferred_nested::plain,
            &[-1.5, 0.25, 2.0]
        ),
        3
    );
    assert_eq!(
        check_f64(
            deferred_match::tracked,
            deferred_match::plain,
            &[0.1, 0.7, 3.0]
        ),
        3
    );
    assert_eq!(
        check_f64(
            returns_in_loop::tracked,
            returns_in_loop::plain,
            &[1.0, 1.5, -2.0]
        ),
        3
    );
    assert_eq!(
        check_f64(
            match_all_return::tracked,
            match_all_return::plain,
            &[0.5, 1.5, 2.5, -1.0]
        ),
        4
    );
}

// A deferred variable's trace: the merge block's argument refers to the value computed in the
// arm that ran (the issue's `⟨_⟩` is gone).
#[test]
fn repro_8_the_merge_argument_refers_to_the_arm() {
    let (_, trace) = track_output(deferred_if::tracked, (2.0,));
    let text = trace.root().to_string();
    assert!(!text.contains("⟨_⟩"), "{text}");
    let ret = trace.root().children().last().unwrap();
    assert_eq!(ret.value::<f64>(), Some(&5.0));
}

// ----- 10, more places a `cfg` can be -----

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    pub a: f64,
    #[cfg(any())]
    pub gone: f64,
    pub b: f64,
}

both! {
    fn cfg_arms_fields_args(x: f64) -> f64 {
        let p = Pair {
            a: x,
            #[cfg(any())]
            gone: 100.0,
            b: 2.0 * x,
        };
        let k = match (x * 2.0) as i64 {
            #[cfg(any())]
            0 => 100.0,
            #[cfg(all())]
            0 => 3.0,
            _ => 5.0,
        };
        let v = [p.a, #[cfg(any())] 100.0, p.b];
        let m = f64::max(v[0], v[1]);
        #[cfg_attr(all(), allow(unused_variables))]
        let unused = 1.0;
        #[cfg(not(any()))]
        let w = m * k;
        #[cfg(any())]
        let w = 0.0;
        w + x
    }
    fn cfg_shadowed_let(x: f64) -> f64 {
        let t = x + 1.0;
        #[cfg(any())]
        let t = 100.0;
        #[cfg(all())]
        let t = t * t;
        t
    }
    // Seed 15, unit 732 of the differential tester: a block inside `vec!`, whose elements the
    // lowering lowers, with a `let` configured out: its IR referred to that binding.
    fn cfg_inside_vec(x: f64) -> f64 {
        let v: Vec<f64> = vec![x, {
            let a: f64 = x * 3.0;
            #[cfg(any())]
            let a: f64 = x + x;
            #[cfg(all())]
            let a = a * x;
            a
        }];
        v[1] + v[0]
    }
    fn cfg_deferred(x: f64) -> f64 {
        let y: f64;
        #[cfg(all())]
        {
            y = x * 4.0;
        }
        #[cfg(any())]
        {
            y = 0.0;
        }
        y
    }
}

#[test]
fn cfg_inside_vec_elements_is_honoured() {
    assert_eq!(
        check_f64(cfg_inside_vec::tracked, cfg_inside_vec::plain, &[0.5, -3.0]),
        2
    );
}

#[test]
fn repro_10_cfg_on_arms_fields_elements_and_lets() {
    // `Pair` is no `Snapshot`: a gradient through its field reads is a typed error.
    check_f64(
        cfg_arms_fields_args::tracked,
        cfg_arms_fields_args::plain,
        &[0.25, 2.0],
    );
    assert_eq!(
        check_f64(
            cfg_shadowed_let::tracked,
            cfg_shadowed_let::plain,
            &[0.5, -3.0]
        ),
        2
    );
    assert_eq!(
        check_f64(cfg_deferred::tracked, cfg_deferred::plain, &[0.5, -3.0]),
        2
    );
    // The IR holds the compiled code only: no entry mentions the configured-out literal.
    let (_, trace) = track_output(cfg_statement::tracked, (1.0,));
    let ir = trace.root().callee_ir().unwrap().to_string();
    assert!(!ir.contains("100"), "{ir}");
}

// Found by the fuzzer: an empty statement (`;;`) is valid Rust.
both! {
    fn empty_statements(x: f64) -> f64 {
        let a = x * 2.0;;
        ;
        a + 1.0
    }
}

#[test]
fn repro_fuzz_1_empty_statements() {
    assert_eq!(
        check_f64(
            empty_statements::tracked,
            empty_statements::plain,
            &[1.0, -2.0]
        ),
        2
    );
}

// ----- found by the differential tester: a value mutated by an untracked call, then merged -----

both! {
    fn push_then_merge(x: f64) -> f64 {
        let mut v = vec![1.0];
        let w = if x > 0.0 {
            v.push(x);
            v
        } else {
            v
        };
        w.len() as f64 * x
    }
}

// The merge's value is the node the arm passed: the merge block's argument takes that node's
// value. Read afresh instead, it would be `[1.0, x]` where the node the argument refers to
// holds `[1.0]` (`push` mutates `v` unseen), and the trace would not verify. The mutation is
// what a consumer must not look through: the gradient where `push` ran is the typed error
// naming it, the other one a number.
#[test]
fn repro_difftest_push_then_merge() {
    assert_eq!(
        check_f64(
            push_then_merge::tracked,
            push_then_merge::plain,
            &[1.5, -2.0]
        ),
        1
    );
    let (out, trace) = track_output(push_then_merge::tracked, (1.5,));
    assert_eq!(out.to_bits(), push_then_merge::plain(1.5).to_bits());
    trace.verify().unwrap();
    assert!(matches!(
        irtrack::gradient(push_then_merge::tracked, (1.5,)),
        Err(irtrack::GradError::Mutation { .. })
    ));
}

// Found by the differential tester (seed 1, unit 250): a variable assigned in the right
// operand of `||`/`&&` has a new version only when that operand ran; the merge must carry the
// old one otherwise (the trace failed `verify`, and a gradient could read a version never made).
both! {
    fn assigned_in_short_circuit(x: f64) -> f64 {
        let mut a = x;
        let b = x > 0.0;
        let c = b || {
            a -= a * x;
            a > 1.0
        };
        let d = !b && {
            a *= 3.0;
            true
        };
        if c && d { a + 1.0 } else { a * x }
    }
}

#[test]
fn variables_assigned_in_a_short_circuit_operand_merge() {
    check_f64(
        assigned_in_short_circuit::tracked,
        assigned_in_short_circuit::plain,
        &[-1.5, -0.25, 0.5, 2.0],
    );
}

fn bump(k: &mut f64) {
    *k += 1.5;
}

// A local passed by `&mut` in a loop and a branch: its new versions merge like assignments
// (the loop header and the `if`'s merge carry `k`), and the trace verifies.
both! {
    fn mut_borrow_in_loop_and_branch(x: f64) -> f64 {
        let mut k = 1.0;
        let mut v: Vec<f64> = Vec::new();
        for i in 0..4 {
            if i % 2 == 0 {
                bump(&mut k);
            } else {
                v.push(k);
            }
        }
        k * x + v.len() as f64
    }
}

#[test]
fn locals_passed_by_mut_get_new_versions_that_merge() {
    let n = check_f64(
        mut_borrow_in_loop_and_branch::tracked,
        mut_borrow_in_loop_and_branch::plain,
        &[-1.5, 0.5, 2.0],
    );
    assert_eq!(
        n, 3,
        "k's last version is a constant 4.0: every gradient is exact"
    );
}

// Found by the differential tester (seed 1, unit 3299): a match guard with control flow of its
// own (a `match` inside the guard) opened blocks between the scrutinee's block and the arm's
// branch, and the trace failed verify. Such a guard runs as written, unrecorded.
both! {
    fn guard_with_control_flow(x: f64) -> f64 {
        let mut y4: i64;
        match -(-2_i64) {
            m5 if {
                match (x > 100.0, false) {
                    (true, _) => {}
                    (false, true) => {
                        let _a7: i64 = m5 & ((-m5) - (m5 + m5));
                    }
                    _ => {}
                }
                true
            } => {
                y4 = match (false, false) {
                    (true, _) => m5,
                    (false, true) => -4,
                    _ => (0..0_i64).sum::<i64>(),
                };
            }
            2 => {
                y4 = 0;
            }
            _ => {
                y4 = -4;
            }
        }
        x * 2.0 + y4 as f64
    }
}

#[test]
fn match_guards_with_control_flow_are_kept_as_written() {
    check_f64(
        guard_with_control_flow::tracked,
        guard_with_control_flow::plain,
        &[-1.4, -0.3, 0.6, 1.1, 1.6],
    );
}

// Found by the differential tester (seed 2, unit 2431): a loop whose body pushes onto a vector
// declared before it, left before the push ran. The push gives the vector a new version, but the
// loop's header and exit did not carry it as they carry an assigned variable, so the read after
// the loop referred to the version inside the body, never recorded: `Trace::verify` failed
// ("was not resolved to a node") and `backward` of the result lost its origin.
#[tracked]
fn pushes_in_a_loop(x: f64, n: i64) -> Vec<f64> {
    let mut a: Vec<f64> = vec![1.0];
    let mut i: i64 = 0;
    loop {
        if i >= n {
            break;
        }
        i += 1;
        a.push(x * i as f64);
    }
    a.clone()
}

#[tracked]
fn pushes_in_a_while(x: f64, n: i64) -> f64 {
    let mut a: Vec<f64> = Vec::new();
    let mut i = 0;
    while i < n {
        a.push(x);
        i += 1;
    }
    a.iter().sum::<f64>() + a.len() as f64
}

#[test]
fn a_vector_pushed_in_a_loop_is_carried_through_it() {
    for n in [0, 1, 3] {
        let (out, trace) = track_output(pushes_in_a_loop, (2.0, n));
        assert_eq!(out.len(), 1 + n as usize);
        trace.verify().unwrap();
        let (out, trace) = track_output(pushes_in_a_while, (2.0, n));
        assert_eq!(out, 3.0 * n as f64);
        trace.verify().unwrap();
    }
}

#[tracked]
fn fill_through_a_reference(v: &mut Vec<f64>, x: f64, n: i64) -> usize {
    let mut i = 0;
    while i < n {
        v.push(x);
        i += 1;
    }
    v.len()
}

#[tracked]
fn pop_in_a_loop(mut v: Vec<f64>) -> f64 {
    let mut total = 0.0;
    while let Some(x) = v.pop() {
        total += x;
    }
    total + v.len() as f64
}

#[test]
fn a_vector_behind_a_reference_or_popped_in_a_loop_records_a_valid_trace() {
    for n in [0, 2] {
        let mut v = vec![1.0];
        let (len, trace) = track_output(
            |v: &mut Vec<f64>| fill_through_a_reference(v, 2.0, n),
            (&mut v,),
        );
        assert_eq!(len, 1 + n as usize);
        trace.verify().unwrap();
    }
    for v in [vec![], vec![1.0, 2.0, 3.5]] {
        let want: f64 = v.iter().sum();
        let (out, trace) = track_output(pop_in_a_loop, (v,));
        assert_eq!(out, want);
        trace.verify().unwrap();
    }
}

// Found by the differential tester (seed 3, unit 784): a `let` switched off by `#[cfg]` inside
// a macro's arguments (`vec![…]`, whose contents the lowering parses but whose `cfg`s are
// resolved by rustc only after it) left the recording of its bindings behind: a compile error
// naming bindings that did not exist. The recording now carries the `let`'s `cfg`.
#[tracked]
#[allow(unused_variables, unused_mut)]
fn cfg_let_inside_vec(v: f64) -> Vec<f64> {
    vec![
        {
            let mut i: i64 = 0;
            loop {
                if i >= 3 {
                    break v * 2.0;
                }
                i += 1;
                #[cfg(any())]
                let (a, mut b): (f64, i64) = (v, 1);
                #[cfg(all())]
                let (c, d): (f64, f64) = (v, v + 1.0);
            }
        },
        v,
    ]
}

#[test]
fn a_cfg_let_inside_a_macro_argument_compiles_and_records() {
    let (out, trace) = track_output(cfg_let_inside_vec, (1.5,));
    assert_eq!(out, vec![3.0, 1.5]);
    trace.verify().unwrap();
}

// ----- places read through `&` whose base is not a path (found copying statrs) -----
//
// `&v.as_slice()[i]` recorded the element by value: a copy in a temporary, so returning the
// borrow did not compile (E0515), an unsized range (`[f64]`, `str`) did not compile (E0277),
// and a non-`Copy` element could not be moved out. The place is now read through a reference;
// a `let` that extends the base's temporary gets the base in a hidden local first.

pub fn doubled(v: &[f64]) -> Vec<f64> {
    v.iter().map(|x| 2.0 * x).collect()
}

pub fn sum(v: &[f64]) -> f64 {
    v.iter().sum()
}

pub struct Outer {
    pub inner: Inner,
}

pub struct Inner {
    pub c: Vec<f64>,
}

impl Outer {
    pub fn b(&self) -> &Inner {
        &self.inner
    }
}

pub struct Data<D>(pub D);

#[tracked]
impl<D: AsRef<[f64]>> std::ops::Index<usize> for Data<D> {
    type Output = f64;
    fn index(&self, i: usize) -> &f64 {
        &self.0.as_ref()[i]
    }
}

#[tracked]
fn data_at(d: &Data<Vec<f64>>, i: usize) -> f64 {
    d[i] + 1.0
}

both! {
    fn elem_of_method_result(v: &Vec<f64>, i: usize) -> &f64 {
        &v.as_slice()[i]
    }
    fn range_of_method_result(v: &Vec<f64>) -> f64 {
        let s = &v.as_slice()[1..];
        s[0]
    }
    fn elem_of_call(v: &Vec<f64>) -> f64 {
        let r = &doubled(v)[1];
        let s = sum(&doubled(v)[1..]);
        *r + s
    }
    fn elem_of_collected(v: &Vec<f64>) -> f64 {
        let first = &v.iter().collect::<Vec<_>>()[0];
        **first + **(&v.iter().collect::<Vec<_>>()[1])
    }
    fn range_of_field_of_method(a: &Outer) -> f64 {
        let s = &(a.b().c)[1..3];
        sum(s) + sum(&(a.b().c)[..1])
    }
    fn tail_of_str(s: &String) -> &str {
        &s.as_str()[1..]
    }
    fn receivers(v: &Vec<f64>) -> usize {
        v.as_slice()[1..].len() + doubled(v)[..1].len()
    }
    fn writes_through(v: &mut Vec<f64>) -> f64 {
        v.as_mut_slice()[0] = 5.0;
        *&mut v.as_mut_slice()[1] += 1.0;
        let r = &mut v.as_mut_slice()[2];
        *r *= 2.0;
        v[0] + v[1] + v[2]
    }
    fn not_copy(v: &Vec<String>) -> usize {
        let n = &v.as_slice()[0];
        let same = v.as_slice()[0] == v.as_slice()[1];
        n.len() + (&v.as_slice()[1]).len() + usize::from(same)
    }
    fn extended_elsewhere(v: &Vec<f64>) -> f64 {
        let t = (&v.as_slice()[0], 1.0);
        let r = { &doubled(v)[1] };
        // Through an arm (`match`, `if`), only a base that is a borrow itself: an arm's value
        // passes through a local of the instrumented copy.
        let m = match v.len() {
            0 => &v.as_slice()[..],
            _ => &v.as_slice()[1..],
        };
        *t.0 + t.1 + *r + m[0]
    }
    fn through_deref(v: &Vec<f64>) -> f64 {
        let b = Box::new(v.clone());
        let r = &(*b)[0];
        let s = &(*Box::new(v.clone()))[1];
        *r + *s
    }
}

#[test]
fn places_read_through_a_reference_with_a_base_that_is_not_a_path() {
    let v = vec![1.0, 2.0, 3.0];
    for i in 0..3 {
        let (out, trace) = track_output(elem_of_method_result::tracked, (&v, i));
        assert_eq!(out.to_bits(), elem_of_method_result::plain(&v, i).to_bits());
        // The borrow is of `v`'s element itself.
        assert!(std::ptr::eq(out, &v[i]));
        trace.verify().unwrap();
        // The element is a node of its own, `index(@as_slice, @i)`, holding its value.
        let index = trace
            .root()
            .children()
            .find(|c| c.function_name() == Some("index"))
            .expect("an index node");
        assert_eq!(index.value::<f64>(), Some(&v[i]));
    }
    macro_rules! agree {
        ($f:ident, $($a:expr),*) => {{
            let (out, trace) = track_output($f::tracked, ($($a,)*));
            assert_eq!(out, $f::plain($($a),*), stringify!($f));
            trace.verify().unwrap();
            out
        }};
    }
    assert_eq!(agree!(range_of_method_result, &v), 2.0);
    assert_eq!(agree!(elem_of_call, &v), 14.0);
    assert_eq!(agree!(elem_of_collected, &v), 3.0);
    let a = Outer {
        inner: Inner {
            c: vec![1.0, 2.0, 3.0, 4.0],
        },
    };
    assert_eq!(agree!(range_of_field_of_method, &a), 6.0);
    let s = String::from("abc");
    assert_eq!(agree!(tail_of_str, &s), "bc");
    assert_eq!(agree!(receivers, &v), 3);
    let mut w = v.clone();
    let (out, trace) = track_output(writes_through::tracked, (&mut w,));
    let mut p = v.clone();
    assert_eq!(out, writes_through::plain(&mut p));
    assert_eq!(w, p);
    trace.verify().unwrap();
    let names = vec![String::from("ab"), String::from("ab")];
    assert_eq!(agree!(not_copy, &names), 5);
    assert_eq!(agree!(extended_elsewhere, &v), 8.0);
    assert_eq!(agree!(through_deref, &v), 3.0);
    let d = Data(v.clone());
    let (out, trace) = track_output(data_at, (&d, 1));
    assert_eq!(out, 3.0);
    trace.verify().unwrap();
}

// ---- A closure whose value is a closure (found 2026-11-27 by the third adversarial round):
// `let mk = |a: f64| move |t: f64| a * t;` did not compile under `#[tracked]` (E0308: the
// instrumented copy of the body and the one as written made two closure types). Such a closure
// is left as written, and a gradient through it is refused, never wrong.

#[tracked]
fn closure_making_closures(x: f64) -> f64 {
    let mk = |a: f64| move |t: f64| a * t;
    let boxed = |a: f64| Box::new(move |t: f64| a + t);
    let doubled = |v: &[f64]| v.iter().map(|e| e * 2.0).collect::<Vec<f64>>();
    let f = mk(2.0);
    let g = boxed(1.0);
    f(x) + g(x) + doubled(&[x])[0]
}

#[test]
fn a_closure_returning_a_closure_compiles_and_runs() {
    let (value, trace) = irtrack::track_output(closure_making_closures, (1.5,));
    assert_eq!(value, 3.0 + 2.5 + 3.0);
    trace.verify().unwrap();
    assert!(irtrack::gradient(closure_making_closures, (1.5,)).is_err());
}

// ---- A loop's dry run left its `&mut` notes behind (a tester on rand_distr's `btpe`,
// 2026-11-28): a loop whose deferred variable every way out assigns is lowered twice, and the
// first lowering's note that `v.ln()` (on a `mut` local) may write its receiver stayed, naming the
// entry that took its number in the second: an entry without operands made every `track` panic
// ("irtrack bug: … no operand 0 to pass by `&mut`"), one with operands got a false note.

fn to_i64(x: f64) -> i64 {
    x as i64
}

both! {
    fn deferred_in_loop(x: f64) -> f64 {
        let mut y: i64;
        loop {
            let mut v = x * 2.0;
            if x > 0.5 {
                if v > 10.0 {
                    continue;
                } else {
                    y = 2;
                }
            } else if x > 0.2 {
                y = to_i64(v.ln());
                if y < 0 {
                    continue;
                } else {
                    v *= 2.0;
                }
            } else {
                y = 3;
            }
            let _ = v;
            break;
        }
        y as f64 * x
    }

    fn deferred_float_in_loop(x: f64) -> f64 {
        let y: f64;
        let mut k = 0;
        loop {
            let mut v = x * 2.0 + k as f64;
            k += 1;
            if v > 3.0 {
                y = v.ln() * x;
                break;
            } else {
                v = v.sqrt();
                if v > 100.0 {
                    y = v;
                    break;
                }
            }
        }
        y + x
    }
}

#[test]
fn a_loops_dry_run_leaves_no_notes_behind() {
    // At 0.3, `y < 0` compares `to_i64(ln 0.6) = 0` with 0, read through an untracked call as a
    // tie: refused (`Indeterminacy::Equality`), not wrong.
    assert_eq!(
        check_f64(
            deferred_in_loop::tracked,
            deferred_in_loop::plain,
            &[0.1, 0.3, 0.6, 0.9]
        ),
        3
    );
    assert_eq!(
        check_f64(
            deferred_float_in_loop::tracked,
            deferred_float_in_loop::plain,
            &[0.3, 1.3, 2.5]
        ),
        3
    );
}

// ---- `_ => unreachable!()` in a `match` whose value is an enum without `Snapshot` (a tester
// adapting rand_distr's `Binomial::new`, 2026-11-28): the arm's value was recorded, and its type,
// an inference variable when the probe asked, made a compile error pointing at the macro. A
// macro that never returns (`panic!`, `unreachable!`, `todo!`, `unimplemented!`) gives no value
// to record.

#[derive(Clone, Copy, Debug)]
enum Method {
    Double(f64),
    Triple(f64),
    Nothing,
}

#[tracked]
fn diverging_arm(x: f64, k: u8) -> f64 {
    let m = match k {
        0 => Method::Double(x),
        1 => Method::Triple(x),
        2 => Method::Nothing,
        _ => unreachable!("no method {k}"),
    };
    let n = if k < 3 { m } else { panic!("no method") };
    match n {
        Method::Double(v) => v * 2.0,
        Method::Triple(v) => v * 3.0,
        Method::Nothing => {
            if x > 100.0 {
                todo!()
            } else {
                0.0
            }
        }
    }
}

#[test]
fn a_diverging_macro_in_value_position_compiles() {
    for (k, want) in [(0, 2.0 * 1.5), (1, 3.0 * 1.5), (2, 0.0)] {
        let (out, trace) = track_output(diverging_arm, (1.5, k));
        assert_eq!(out, want);
        trace.verify().unwrap();
    }
    let (trace, result) = irtrack::try_track(diverging_arm, (1.5, 7));
    assert!(result.is_err());
    trace.verify().unwrap();
    assert_eq!(
        trace.root().children().last().unwrap().kind(),
        irtrack::NodeKind::Error
    );
}
