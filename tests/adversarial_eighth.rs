//! An eighth adversarial round (2026-11-27, tester I, on the seventh round's fixes): closures
//! called through a parenthesised or computed callee (`(f)(1.0)`, `mk(x)(1.0)`, `(p.0)(1.0)`),
//! made as a block's value, or coming from elsewhere into an update, ran untracked and gave
//! gradients 0 and replayed constants; each failed on 8302d48, and now gets the truth or a typed
//! error. Truths: central differences, the plain function.
#![allow(unused, clippy::all)]
use irtrack::diff::{jvp, vjp};
use irtrack::program::update::{Change, Updatable};
use irtrack::program::{Input, Program};
use irtrack::{gradient, track, tracked};

fn fd(f: &dyn Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-5 * b.abs().max(1.0)
}
macro_rules! check {
    ($f:ident, $x0:expr, $x1:expr) => {{
        let (x0, x1): (f64, f64) = ($x0, $x1);
        let name = stringify!($f);
        let mut bad: Vec<String> = Vec::new();
        let truth = fd(&$f, x0);
        match gradient($f, (x0,)) {
            Ok(g) => {
                let got = g.scalars()[0].unwrap();
                if !close(got, truth) {
                    bad.push(format!("{name} gradient at {x0}: {got}, truth {truth}"));
                }
                if g.value.to_bits() != $f(x0).to_bits() {
                    bad.push(format!("{name} grad value {}", g.value));
                }
            }
            Err(e) => eprintln!("{name} gradient refused: {e}"),
        }
        match jvp($f, (x0,), (1.0,)) {
            Ok(j) => {
                let got = j.tangent.as_f64().unwrap();
                if !close(got, truth) {
                    bad.push(format!("{name} jvp at {x0}: {got}, truth {truth}"));
                }
            }
            Err(e) => eprintln!("{name} jvp refused: {e}"),
        }
        match Program::from_trace(&track($f, (x0,)), &[Input::Dynamic]) {
            Ok(p) => match p.call((x1,)) {
                Ok(v) => {
                    if v.as_f64().map(f64::to_bits) != Some($f(x1).to_bits()) {
                        bad.push(format!(
                            "{name} program at {x1}: {:?}, truth {}",
                            v.as_f64(),
                            $f(x1)
                        ));
                    }
                }
                Err(e) => eprintln!("{name} program call refused: {e}"),
            },
            Err(e) => eprintln!("{name} program refused: {e}"),
        }
        let mut m = Updatable::track($f, (x0,));
        match m.update([Change::argument(0, x1)]) {
            Ok(_) => {
                let v = m.trace().root().value::<f64>().copied();
                if v.map(f64::to_bits) != Some($f(x1).to_bits()) {
                    bad.push(format!("{name} update at {x1}: {:?}, truth {}", v, $f(x1)));
                }
            }
            Err(e) => eprintln!("{name} update refused: {e}"),
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }};
}

#[derive(Clone, Copy, Debug)]
struct Pt {
    x: f64,
    y: f64,
}

#[tracked]
fn p_mut((mut a, b): (f64, f64)) -> f64 {
    a *= b;
    a + b
}
#[tracked]
fn c_mut(x: f64) -> f64 {
    p_mut((x, x * 3.0))
}

#[tracked]
fn p_ref((ref a, b): (f64, f64)) -> f64 {
    *a * b
}
#[tracked]
fn c_ref(x: f64) -> f64 {
    p_ref((x, x + 1.0))
}

#[tracked]
fn p_nested(((a, b), Pt { x, y }): ((f64, f64), Pt), [c, d]: [f64; 2]) -> f64 {
    a * b + x * y + c / d
}
#[tracked]
fn c_nested(x: f64) -> f64 {
    p_nested(((x, 2.0), Pt { x: x * x, y: 3.0 }), [x.sin(), 1.5])
}

#[tracked]
fn p_amp(&x: &f64, &(a, b): &(f64, f64), _: f64) -> f64 {
    x * a - b
}
#[tracked]
fn c_amp(x: f64) -> f64 {
    let t = (x, x * x);
    p_amp(&x, &t, x)
}

#[tracked]
fn p_ref_mut_at(ref r @ _: f64) -> f64 {
    *r * 2.0
}
#[tracked]
fn c_ref_mut_at(x: f64) -> f64 {
    p_ref_mut_at(x) * x
}

#[tracked]
fn p_struct_dotdot(Pt { x, .. }: Pt, #[allow(unused_variables)] (y, _): (f64, f64)) -> f64 {
    x * y
}
#[tracked]
fn c_struct_dotdot(x: f64) -> f64 {
    p_struct_dotdot(Pt { x, y: 5.0 }, (x, 0.0))
}

#[tracked]
fn p_generic<T: Into<f64> + Copy>((a, b): (T, f64), c: impl Fn(f64) -> f64) -> f64 {
    c(a.into()) * b
}
#[tracked]
fn c_generic(x: f64) -> f64 {
    p_generic((2.0f32, x), |t| t + 1.0)
}

#[tracked]
fn p_rec((n, acc): (u32, f64), x: f64) -> f64 {
    if n == 0 {
        acc
    } else {
        p_rec((n - 1, acc * x), x)
    }
}
#[tracked]
fn c_rec(x: f64) -> f64 {
    p_rec((3, 1.0), x)
}

struct M {
    w: f64,
}
#[tracked]
impl M {
    fn m(&self, (a, b): (f64, f64)) -> f64 {
        self.w * a + b
    }
    fn m2(self: &Self, [a, _]: [f64; 2], _: u8) -> f64 {
        self.w * a * a
    }
}
#[tracked]
fn c_method(x: f64) -> f64 {
    let m = M { w: 2.0 };
    m.m((x, x * x)) + m.m2([x, 0.0], 1)
}

trait Tr {
    fn t(&self, p: (f64, f64)) -> f64;
}
#[tracked]
impl Tr for M {
    fn t(&self, (a, b): (f64, f64)) -> f64 {
        a * b * self.w
    }
}
#[tracked]
fn c_trait(x: f64) -> f64 {
    let m = M { w: 3.0 };
    m.t((x, x))
}

#[tracked]
fn p_ret_fn((a, b): (f64, f64)) -> impl Fn(f64) -> f64 {
    move |t| t * a + b
}
#[tracked]
fn c_ret_fn(x: f64) -> f64 {
    let f = p_ret_fn((x, 1.0));
    f(2.0)
}

// root pattern
#[tracked]
fn r_tuple((a, b): (f64, f64)) -> f64 {
    a * b * b
}

#[tracked]
fn p_shadow((x, y): (f64, f64), z: f64) -> f64 {
    let x = x * z;
    x + y
}
#[tracked]
fn c_shadow(x: f64) -> f64 {
    p_shadow((x, 1.0), x)
}

#[test]
fn pat_mut() {
    check!(c_mut, 0.7, 1.3);
}
#[test]
fn pat_ref() {
    check!(c_ref, 0.7, 1.3);
}
#[test]
fn pat_nested() {
    check!(c_nested, 0.7, 1.3);
}
#[test]
fn pat_amp() {
    check!(c_amp, 0.7, 1.3);
}
#[test]
fn pat_ref_mut_at() {
    check!(c_ref_mut_at, 0.7, 1.3);
}
#[test]
fn pat_struct_dotdot() {
    check!(c_struct_dotdot, 0.7, 1.3);
}
#[test]
fn pat_generic() {
    check!(c_generic, 0.7, 1.3);
}
#[test]
fn pat_rec() {
    check!(c_rec, 0.7, 1.3);
}
#[test]
fn pat_method() {
    check!(c_method, 0.7, 1.3);
}
#[test]
fn pat_trait() {
    check!(c_trait, 0.7, 1.3);
}
#[test]
fn pat_ret_fn() {
    check!(c_ret_fn, 0.7, 1.3);
}
#[test]
fn pat_shadow() {
    check!(c_shadow, 0.7, 1.3);
}
#[test]
fn pat_root_tuple() {
    let g = gradient(r_tuple, ((0.7, 1.3),));
    eprintln!("root tuple: {:?}", g.as_ref().map(|g| format!("{:?}", g)));
}

// ---------------- closures ----------------
struct Holder<F: Fn(f64) -> f64> {
    f: F,
}
#[tracked]
fn call_field<F: Fn(f64) -> f64>(h: &Holder<F>, t: f64) -> f64 {
    let g = &h.f;
    g(t)
}
#[tracked]
fn k_struct_field(x: f64) -> f64 {
    let h = Holder {
        f: move |t: f64| t * x,
    };
    call_field(&h, 1.0)
}
#[tracked]
fn k_struct_field_local(x: f64) -> f64 {
    let h = Holder {
        f: move |t: f64| t * x,
    };
    (h.f)(1.0)
}
#[tracked]
fn k_vec_box(x: f64) -> f64 {
    let v: Vec<Box<dyn Fn(f64) -> f64>> = vec![Box::new(move |t| t * x)];
    let g = &v[0];
    g(1.0)
}
#[tracked]
fn mk(a: f64) -> impl Fn(f64) -> f64 {
    move |t| t * a
}
#[tracked]
fn k_returned(x: f64) -> f64 {
    let f = mk(x);
    f(2.0)
}
#[tracked]
fn mk_box(a: f64) -> Box<dyn Fn(f64) -> f64> {
    Box::new(move |t| t * a)
}
#[tracked]
fn k_returned_box(x: f64) -> f64 {
    let f = mk_box(x);
    f(2.0)
}
#[tracked]
fn k_fn_call(x: f64) -> f64 {
    x
}
#[tracked]
fn k_paren(x: f64) -> f64 {
    let f = |t: f64| t * x;
    (f)(1.0)
}
#[tracked]
fn k_ref_paren(x: f64) -> f64 {
    let f = |t: f64| t * x;
    (&f)(1.0)
}
#[tracked]
fn k_clone(x: f64) -> f64 {
    let f = move |t: f64| t * x;
    let g = f.clone();
    g(1.0)
}
#[tracked]
fn k_alias(x: f64) -> f64 {
    let f = |t: f64| t * x;
    let g = &f;
    g(1.0)
}
#[tracked]
fn k_move_alias(x: f64) -> f64 {
    let f = move |t: f64| t * x;
    let g = f;
    g(1.0)
}
#[tracked]
fn k_iter_map(x: f64) -> f64 {
    let f = |t: &f64| t * x;
    [1.0, 2.0].iter().map(f).sum()
}
#[tracked]
fn k_iter_map_inline(x: f64) -> f64 {
    [1.0, 2.0].iter().map(|t| t * x).sum()
}
#[tracked]
fn k_option(x: f64) -> f64 {
    let o = Some(move |t: f64| t * x);
    o.unwrap()(1.0)
}
#[tracked]
fn k_nested(x: f64) -> f64 {
    let f = |t: f64| t * x;
    let g = |t: f64| f(t) + 1.0;
    g(1.0)
}
#[tracked]
fn k_vec_capture(x: f64) -> f64 {
    let v = vec![x, 2.0];
    let f = |t: f64| v[0] * t;
    f(1.0)
}
#[tracked]
fn k_fnmut(x: f64) -> f64 {
    let mut s = x;
    let mut f = |t: f64| {
        s *= t;
        s
    };
    f(2.0)
}
#[tracked]
fn k_fnmut_acc(x: f64) -> f64 {
    let mut acc = 0.0;
    let mut add = |t: f64| acc += t * x;
    add(1.0);
    add(2.0);
    acc
}
#[tracked]
fn k_move_then_reassign(x: f64) -> f64 {
    let mut k = x;
    let f = move |t: f64| t * k;
    k = 5.0;
    f(1.0) + k
}
#[tracked]
fn k_move_then_reassign2(x: f64) -> f64 {
    let mut k = 2.0;
    let f = move |t: f64| t * k;
    k = x;
    f(1.0) + k
}
#[tracked]
fn k_fold(x: f64) -> f64 {
    (0..3).fold(x, |a, _| a * 2.0)
}
#[tracked]
fn k_fold_capture(x: f64) -> f64 {
    (0..3).fold(1.0, |a, _| a * x)
}
#[tracked]
fn k_opt_map_nocap(x: f64) -> f64 {
    Some(x).map(|t| t * 2.0).unwrap()
}
#[tracked]
fn k_loop_closures(x: f64) -> f64 {
    let mut r = 0.0;
    for i in 0..2 {
        let k = x * i as f64;
        let f = move |t: f64| t * k;
        r += f(1.0);
    }
    r
}
#[tracked]
fn k_dyn_ref(x: f64) -> f64 {
    let f = |t: f64| t * x;
    let d: &dyn Fn(f64) -> f64 = &f;
    d(1.0)
}
#[tracked]
fn apply_dyn(f: &dyn Fn(f64) -> f64, t: f64) -> f64 {
    f(t)
}
#[tracked]
fn k_dyn_helper(x: f64) -> f64 {
    apply_dyn(&|t| t * x, 1.0)
}
#[tracked]
fn apply_box(f: Box<dyn Fn(f64) -> f64>, t: f64) -> f64 {
    f(t)
}
#[tracked]
fn k_box_helper(x: f64) -> f64 {
    apply_box(Box::new(move |t| t * x), 1.0)
}
#[tracked]
fn apply_gen<F: Fn(f64) -> f64>(f: F, t: f64) -> f64 {
    f(t)
}
#[tracked]
fn k_gen_helper_cap_then_reassign(x: f64) -> f64 {
    let mut k = 3.0;
    let f = move |t: f64| t * k;
    k = x;
    apply_gen(f, 1.0) * k
}
#[tracked]
fn apply_tuple<F: Fn(f64) -> f64>((f, t): (F, f64)) -> f64 {
    f(t)
}
#[tracked]
fn k_tuple_helper(x: f64) -> f64 {
    x
}
#[tracked]
fn k_cap_struct(x: f64) -> f64 {
    let p = Pt { x, y: 1.0 };
    let f = move |t: f64| t * p.x;
    f(1.0)
}
#[tracked]
fn k_cap_tuple(x: f64) -> f64 {
    let p = (x, 1.0);
    let f = move |t: f64| t * p.0;
    f(1.0)
}
#[tracked]
fn k_cap_closure_in_closure(x: f64) -> f64 {
    let f = move |t: f64| t * x;
    let g = move |t: f64| apply_gen(f, t);
    g(1.0)
}

#[test]
fn clo_vec_box() {
    check!(k_vec_box, 0.7, 1.3);
}
#[test]
fn clo_returned_box() {
    check!(k_returned_box, 0.7, 1.3);
}

#[test]
fn clo_clone() {
    check!(k_clone, 0.7, 1.3);
}
#[test]
fn clo_alias() {
    check!(k_alias, 0.7, 1.3);
}
#[test]
fn clo_move_alias() {
    check!(k_move_alias, 0.7, 1.3);
}
#[test]
fn clo_iter_map() {
    check!(k_iter_map, 0.7, 1.3);
}
#[test]
fn clo_iter_map_inline() {
    check!(k_iter_map_inline, 0.7, 1.3);
}
#[test]
fn clo_nested() {
    check!(k_nested, 0.7, 1.3);
}
#[test]
fn clo_vec_capture() {
    check!(k_vec_capture, 0.7, 1.3);
}
#[test]
fn clo_fnmut() {
    check!(k_fnmut, 0.7, 1.3);
}
#[test]
fn clo_fnmut_acc() {
    check!(k_fnmut_acc, 0.7, 1.3);
}
#[test]
fn clo_move_then_reassign() {
    check!(k_move_then_reassign, 0.7, 1.3);
}
#[test]
fn clo_move_then_reassign2() {
    check!(k_move_then_reassign2, 0.7, 1.3);
}
#[test]
fn clo_fold() {
    check!(k_fold, 0.7, 1.3);
}
#[test]
fn clo_fold_capture() {
    check!(k_fold_capture, 0.7, 1.3);
}
#[test]
fn clo_opt_map_nocap() {
    check!(k_opt_map_nocap, 0.7, 1.3);
}
#[test]
fn clo_loop_closures() {
    check!(k_loop_closures, 0.7, 1.3);
}
#[test]
fn clo_dyn_ref() {
    check!(k_dyn_ref, 0.7, 1.3);
}
#[test]
fn clo_dyn_helper() {
    check!(k_dyn_helper, 0.7, 1.3);
}
#[test]
fn clo_box_helper() {
    check!(k_box_helper, 0.7, 1.3);
}
#[test]
fn clo_gen_reassign() {
    check!(k_gen_helper_cap_then_reassign, 0.7, 1.3);
}
#[test]
fn clo_tuple_helper() {
    check!(k_tuple_helper, 0.7, 1.3);
}
#[test]
fn clo_cap_struct() {
    check!(k_cap_struct, 0.7, 1.3);
}
#[test]
fn clo_cap_tuple() {
    check!(k_cap_tuple, 0.7, 1.3);
}
#[test]
fn clo_cap_closure_in_closure() {
    check!(k_cap_closure_in_closure, 0.7, 1.3);
}

// ---------------- more closure probes ----------------
#[tracked]
fn k_block_callee(x: f64) -> f64 {
    let f = move |t: f64| t * x;
    ({ f })(1.0)
}
#[tracked]
fn k_if_callee(x: f64) -> f64 {
    let f = move |t: f64| t * x;
    (if x > 0.0 { f } else { f })(1.0)
}
#[tracked]
fn k_tuple_field_callee(x: f64) -> f64 {
    let p = (move |t: f64| t * x, 1.0);
    (p.0)(1.0)
}
#[tracked]
fn k_array_callee(x: f64) -> f64 {
    let a = [move |t: f64| t * x];
    let g = &a[0];
    g(1.0)
}
#[tracked]
fn k_identity(x: f64) -> f64 {
    let f = std::convert::identity(move |t: f64| t * x);
    f(1.0)
}
#[tracked]
fn k_block_created(x: f64) -> f64 {
    let f = {
        let k = x * 2.0;
        move |t: f64| t * k
    };
    f(1.0)
}
#[tracked]
fn k_alias_paren(x: f64) -> f64 {
    let f = |t: f64| t * x;
    let g = &f;
    (g)(1.0)
}
#[tracked]
fn k_opt_let(x: f64) -> f64 {
    let o = Some(move |t: f64| t * x);
    let f = o.unwrap();
    f(1.0)
}
#[tracked]
fn k_ret_local(x: f64) -> f64 {
    let f = mk(x);
    let y = f(2.0);
    y * 1.0
}
#[tracked]
fn k_ret_twice(x: f64) -> f64 {
    let f = mk(x);
    f(1.0) + f(2.0)
}
#[tracked]
fn k_ret_const(x: f64) -> f64 {
    let f = mk(2.0);
    f(x)
}
#[tracked]
fn k_ret_box(x: f64) -> f64 {
    let f = mk_box(x);
    f(2.0)
}

#[test]
fn more_identity() {
    check!(k_identity, 0.7, 1.3);
}
#[test]
fn more_opt_let() {
    check!(k_opt_let, 0.7, 1.3);
}
#[test]
fn more_ret_const() {
    check!(k_ret_const, 0.7, 1.3);
}
#[test]
fn more_ret_box() {
    check!(k_ret_box, 0.7, 1.3);
}

// ---------------- probes: needless refusal classification ----------------
#[tracked]
fn pg1((a, b): (f32, f64)) -> f64 {
    a as f64 * b
}
#[tracked]
fn q_pg1(x: f64) -> f64 {
    pg1((2.0f32, x))
}
#[tracked]
fn pg2<T: Into<f64> + Copy>(a: T, b: f64, c: impl Fn(f64) -> f64) -> f64 {
    c(a.into()) * b
}
#[tracked]
fn q_pg2(x: f64) -> f64 {
    pg2(2.0f32, x, |t| t + 1.0)
}
#[tracked]
fn pg3(a: f64, c: impl Fn(f64) -> f64) -> f64 {
    c(a)
}
#[tracked]
fn q_pg3(x: f64) -> f64 {
    pg3(x, |t| t + 1.0)
}
#[test]
fn probe_pg1() {
    check!(q_pg1, 0.7, 1.3);
}
#[test]
fn probe_pg2() {
    check!(q_pg2, 0.7, 1.3);
}
#[test]
fn probe_pg3() {
    check!(q_pg3, 0.7, 1.3);
}

// =======================================================================================
// Confirmed bugs (tester I). Each test fails on 8302d48 with a silently wrong number.

macro_rules! grad_or_err {
    ($f:ident, $x:expr) => {{
        let x: f64 = $x;
        if let Ok(g) = gradient($f, (x,)) {
            let (got, truth) = (g.scalars()[0].unwrap(), fd(&$f, x));
            assert!(
                close(got, truth),
                "{} gradient at {x}: {got}, truth {truth}",
                stringify!($f)
            );
        }
    }};
}
macro_rules! jvp_or_err {
    ($f:ident, $x:expr) => {{
        let x: f64 = $x;
        if let Ok(j) = jvp($f, (x,), (1.0,)) {
            let (got, truth) = (j.tangent.as_f64().unwrap(), fd(&$f, x));
            assert!(
                close(got, truth),
                "{} jvp at {x}: {got}, truth {truth}",
                stringify!($f)
            );
        }
    }};
}
macro_rules! program_or_err {
    ($f:ident, $x0:expr, $x1:expr) => {{
        let (x0, x1): (f64, f64) = ($x0, $x1);
        if let Ok(p) = Program::from_trace(&track($f, (x0,)), &[Input::Dynamic]) {
            if let Ok(v) = p.call((x1,)) {
                assert_eq!(
                    v.as_f64().map(f64::to_bits),
                    Some($f(x1).to_bits()),
                    "{} program at {x1}: {:?}, truth {}",
                    stringify!($f),
                    v.as_f64(),
                    $f(x1)
                );
            }
        }
    }};
}
macro_rules! update_or_err {
    ($f:ident, $x0:expr, $x1:expr) => {{
        let (x0, x1): (f64, f64) = ($x0, $x1);
        let mut m = Updatable::track($f, (x0,));
        if m.update([Change::argument(0, x1)]).is_ok() {
            let v = m.trace().root().value::<f64>().copied();
            assert_eq!(
                v.map(f64::to_bits),
                Some($f(x1).to_bits()),
                "{} update at {x1}: {v:?}, truth {}",
                stringify!($f),
                $f(x1)
            );
        }
    }};
}

// Bug 1: a capturing closure called through a parenthesized callee: `(f)(t)`, `(&f)(t)`,
// `({ f })(t)`, `(if c { f } else { f })(t)`. irtrack: gradient 0, jvp 0, program at 1.3
// gives 0.7 (recorded); truth 1, 1, 1.3.
#[tracked]
fn bug_paren(x: f64) -> f64 {
    let f = |t: f64| t * x;
    (f)(1.0)
}
#[tracked]
fn bug_ref_paren(x: f64) -> f64 {
    let f = |t: f64| t * x;
    (&f)(1.0)
}
#[tracked]
fn bug_if_callee(x: f64) -> f64 {
    let f = move |t: f64| t * x;
    (if x > 0.0 { f } else { f })(1.0)
}
#[test]
fn parenthesized_closure_callee_gradient() {
    grad_or_err!(bug_paren, 0.7);
    grad_or_err!(bug_ref_paren, 0.7);
    grad_or_err!(bug_if_callee, 0.7);
}
#[test]
fn parenthesized_closure_callee_jvp() {
    jvp_or_err!(bug_paren, 0.7);
    jvp_or_err!(bug_ref_paren, 0.7);
    jvp_or_err!(bug_if_callee, 0.7);
}
#[test]
fn parenthesized_closure_callee_program() {
    program_or_err!(bug_paren, 0.7, 1.3);
    program_or_err!(bug_ref_paren, 0.7, 1.3);
    program_or_err!(bug_if_callee, 0.7, 1.3);
}

// Bug 2: a closure created as the value of a block (`let f = { let k = ..; move |t| t * k };`).
// irtrack: gradient 0, jvp 0, program 1.4 and update 1.4 at 1.3; truth 2, 2, 2.6, 2.6.
#[tracked]
fn bug_block_closure(x: f64) -> f64 {
    let f = {
        let k = x * 2.0;
        move |t: f64| t * k
    };
    f(1.0)
}
#[test]
fn closure_made_in_a_block_gradient() {
    grad_or_err!(bug_block_closure, 0.7);
}
#[test]
fn closure_made_in_a_block_jvp() {
    jvp_or_err!(bug_block_closure, 0.7);
}
#[test]
fn closure_made_in_a_block_program() {
    program_or_err!(bug_block_closure, 0.7, 1.3);
}
#[test]
fn closure_made_in_a_block_update() {
    update_or_err!(bug_block_closure, 0.7, 1.3);
}

// Bug 3: a capturing closure called as a field or a method result: `(p.0)(t)`, `(h.f)(t)`,
// `Some(f).unwrap()(t)`. irtrack: gradient 0 (truth 1); update at 1.3 gives 0.7 (truth 1.3).
#[tracked]
fn bug_tuple_field(x: f64) -> f64 {
    let p = (move |t: f64| t * x, 1.0);
    (p.0)(1.0)
}
#[tracked]
fn bug_struct_field(x: f64) -> f64 {
    let h = Holder {
        f: move |t: f64| t * x,
    };
    (h.f)(1.0)
}
#[tracked]
fn bug_unwrap_callee(x: f64) -> f64 {
    Some(move |t: f64| t * x).unwrap()(1.0)
}
#[test]
fn closure_called_as_a_field_gradient() {
    grad_or_err!(bug_tuple_field, 0.7);
    grad_or_err!(bug_struct_field, 0.7);
    grad_or_err!(bug_unwrap_callee, 0.7);
}
#[test]
fn closure_called_as_a_field_update() {
    update_or_err!(bug_tuple_field, 0.7, 1.3);
    update_or_err!(bug_struct_field, 0.7, 1.3);
}

// Bug 4: Updatable::update replays the call of a closure made elsewhere with its old capture:
// returned by a tracked fn (`let f = mk(x); f(2.0)`), or reached through a reference
// (`let g = &a[0]; g(1.0)`). Gradients refuse (right); update at 1.3 gives 1.4 / 0.7
// (truth 2.6 / 1.3).
#[tracked]
fn bug_returned_closure(x: f64) -> f64 {
    let f = mk(x);
    f(2.0)
}
#[tracked]
fn bug_closure_in_array(x: f64) -> f64 {
    let a = [move |t: f64| t * x];
    let g = &a[0];
    g(1.0)
}
#[test]
fn update_replays_returned_closure_with_old_capture() {
    update_or_err!(bug_returned_closure, 0.7, 1.3);
}
#[test]
fn update_replays_closure_through_reference_with_old_capture() {
    update_or_err!(bug_closure_in_array, 0.7, 1.3);
}

// ---------------- round 3 probes ----------------
#[tracked]
fn r_shadow1(x: f64) -> f64 {
    let k = x;
    let f = |t: f64| t * k;
    let k = 5.0;
    f(1.0) + k
}
#[tracked]
fn r_shadow2(x: f64) -> f64 {
    let k = 2.0;
    let f = |t: f64| t * k;
    let k = x;
    f(1.0) * k
}
#[tracked]
fn r_shadow3(x: f64) -> f64 {
    let k = 2.0;
    let f = move |t: f64| t * k;
    let k = x;
    f(1.0) * k
}
#[tracked]
fn pp_cap((a, b): (f64, f64)) -> f64 {
    let f = |t: f64| t * a;
    f(b)
}
#[tracked]
fn r_pp_cap(x: f64) -> f64 {
    pp_cap((x, 1.0))
}
#[tracked]
fn pp_cap2(a: f64, (b, c): (f64, f64)) -> f64 {
    let f = |t: f64| t * a * b;
    f(c)
}
#[tracked]
fn r_pp_cap2(x: f64) -> f64 {
    pp_cap2(x, (2.0, x))
}
#[tracked]
fn pp_setmut(&mut (ref mut a, _): &mut (f64, f64), v: f64) {
    *a = v * 2.0;
}
#[tracked]
fn r_pp_setmut(x: f64) -> f64 {
    let mut p = (1.0, 1.0);
    pp_setmut(&mut p, x);
    p.0
}
#[tracked]
fn pp_amp_mut(&mut y: &mut f64) -> f64 {
    y * 3.0
}
#[tracked]
fn r_pp_amp_mut(x: f64) -> f64 {
    let mut z = x;
    pp_amp_mut(&mut z)
}
#[tracked]
fn pp_at(p @ (a, _): (f64, f64)) -> f64 {
    a * p.1
}
#[tracked]
fn r_pp_at(x: f64) -> f64 {
    pp_at((x, x))
}
#[tracked]
fn app_mut<F: FnMut(f64) -> f64>(f: &mut F, t: f64) -> f64 {
    f(t) + f(t)
}
#[tracked]
fn r_app_mut(x: f64) -> f64 {
    let mut s = 0.0;
    let mut f = |t: f64| {
        s += t * x;
        s
    };
    app_mut(&mut f, 1.0)
}
#[tracked]
fn r_fnmut_k(x: f64) -> f64 {
    let mut k = x;
    {
        let mut f = |t: f64| {
            k += t;
            k
        };
        f(1.0);
    }
    k * 2.0
}
#[tracked]
fn r_arr_map(x: f64) -> f64 {
    let f = |t: f64| t * x;
    let r = [1.0, 2.0].map(f);
    r[1]
}
#[tracked]
fn r_twice<F: Fn(f64) -> f64>(f: F, t: f64) -> f64 {
    f(t) * f(t * 2.0)
}
#[tracked]
fn r_twice_call(x: f64) -> f64 {
    r_twice(move |t: f64| t + x, 1.0)
}
#[tracked]
fn r_twice_call2(x: f64) -> f64 {
    r_twice(|t: f64| t * t, x)
}
#[tracked]
fn r_closure_ret_closure(x: f64) -> f64 {
    let f = move |a: f64| move |t: f64| t * a * x;
    let g = f(2.0);
    g(1.0)
}
#[tracked]
fn r_closure_calls_tracked(x: f64) -> f64 {
    let f = |t: f64| mk(x)(t);
    f(1.0)
}

#[test]
fn r3_shadow1() {
    check!(r_shadow1, 0.7, 1.3);
}
#[test]
fn r3_shadow2() {
    check!(r_shadow2, 0.7, 1.3);
}
#[test]
fn r3_shadow3() {
    check!(r_shadow3, 0.7, 1.3);
}
#[test]
fn r3_pp_cap() {
    check!(r_pp_cap, 0.7, 1.3);
}
#[test]
fn r3_pp_cap2() {
    check!(r_pp_cap2, 0.7, 1.3);
}
#[test]
fn r3_pp_setmut() {
    check!(r_pp_setmut, 0.7, 1.3);
}
#[test]
fn r3_pp_amp_mut() {
    check!(r_pp_amp_mut, 0.7, 1.3);
}
#[test]
fn r3_pp_at() {
    check!(r_pp_at, 0.7, 1.3);
}
#[test]
fn r3_app_mut() {
    check!(r_app_mut, 0.7, 1.3);
}
#[test]
fn r3_fnmut_k() {
    check!(r_fnmut_k, 0.7, 1.3);
}
#[test]
fn r3_arr_map() {
    check!(r_arr_map, 0.7, 1.3);
}
#[test]
fn r3_twice_call() {
    check!(r_twice_call, 0.7, 1.3);
}
#[test]
fn r3_twice_call2() {
    check!(r_twice_call2, 0.7, 1.3);
}
#[test]
fn r3_root_pp_cap() {
    let g = gradient(pp_cap, ((0.7, 1.3),));
    eprintln!(
        "root pp_cap: {:?}",
        g.as_ref()
            .map(|g| format!("{:?}", g.scalars()))
            .map_err(|e| e.to_string())
    );
    let g = gradient(
        irtrack::tracked_fn!(|(a, b): (f64, f64)| a * b),
        ((2.0, 3.0),),
    );
    eprintln!(
        "tracked_fn tuple: {:?}",
        g.as_ref()
            .map(|g| format!("{:?}", g.scalars()))
            .map_err(|e| e.to_string())
    );
}

// Bug 5: a call of the closure a tracked function returns, in one expression: `mk(x)(1.0)`
// (also inside a closure: `|t| mk(x)(t)`). irtrack: gradient 0, jvp 0, program and update at
// 1.3 give 0.7; truth 1, 1, 1.3, 1.3.
#[tracked]
fn bug_call_result_callee(x: f64) -> f64 {
    mk(x)(1.0)
}
#[tracked]
fn bug_call_result_callee_in_closure(x: f64) -> f64 {
    let f = |t: f64| mk(x)(t);
    f(1.0)
}
#[test]
fn call_result_callee_gradient() {
    grad_or_err!(bug_call_result_callee, 0.7);
    grad_or_err!(bug_call_result_callee_in_closure, 0.7);
}
#[test]
fn call_result_callee_jvp() {
    jvp_or_err!(bug_call_result_callee, 0.7);
    jvp_or_err!(bug_call_result_callee_in_closure, 0.7);
}
#[test]
fn call_result_callee_program() {
    program_or_err!(bug_call_result_callee, 0.7, 1.3);
    program_or_err!(bug_call_result_callee_in_closure, 0.7, 1.3);
}
#[test]
fn call_result_callee_update() {
    update_or_err!(bug_call_result_callee, 0.7, 1.3);
}

// Bug 6: a closure returned by a closure (`let g = f(2.0); g(1.0)`): update at 1.3 gives 1.4,
// truth 2.6 (gradient, jvp and program refuse, right).
#[tracked]
fn bug_closure_from_closure(x: f64) -> f64 {
    let f = move |a: f64| move |t: f64| t * a * x;
    let g = f(2.0);
    g(1.0)
}
#[test]
fn update_replays_closure_made_by_closure_with_old_capture() {
    update_or_err!(bug_closure_from_closure, 0.7, 1.3);
}

// ---------------- round 4 probes ----------------
use std::cell::Cell;
use std::rc::Rc;
trait Ap {
    fn ap(&self, t: f64) -> f64;
}
impl<F: Fn(f64) -> f64> Ap for F {
    fn ap(&self, t: f64) -> f64 {
        self(t)
    }
}
#[tracked]
fn s_trait_ap(x: f64) -> f64 {
    let f = move |t: f64| t * x;
    f.ap(1.0)
}
#[tracked]
fn s_rc_dyn(x: f64) -> f64 {
    let f: Rc<dyn Fn(f64) -> f64> = Rc::new(move |t| t * x);
    let g = f.clone();
    g(1.0)
}
#[tracked]
fn s_rc_cell(x: f64) -> f64 {
    let c = Rc::new(Cell::new(x));
    let c2 = c.clone();
    let f = move |t: f64| c2.get() * t;
    f(1.0)
}
#[tracked]
fn lvl2<F: Fn(f64) -> f64>(f: F, t: f64) -> f64 {
    apply_gen(f, t)
}
#[tracked]
fn s_two_levels(x: f64) -> f64 {
    lvl2(move |t: f64| t * x, 1.0)
}
#[tracked]
fn call_holder<F: Fn(f64) -> f64>(h: Holder<F>, t: f64) -> f64 {
    let g = h.f;
    g(t)
}
#[tracked]
fn s_holder_by_value(x: f64) -> f64 {
    call_holder(
        Holder {
            f: move |t: f64| t * x,
        },
        1.0,
    )
}
#[tracked]
fn s_vec_cap(x: f64) -> f64 {
    let v = vec![x * 2.0];
    let f = |i: usize| v[i];
    f(0)
}
#[tracked]
fn s_rc_closure_direct(x: f64) -> f64 {
    let f = Rc::new(move |t: f64| t * x);
    f(1.0)
}
#[tracked]
fn s_box_closure_direct(x: f64) -> f64 {
    let f = Box::new(move |t: f64| t * x);
    f(1.0)
}
#[tracked]
fn s_deref_callee(x: f64) -> f64 {
    let f = Box::new(move |t: f64| t * x);
    (*f)(1.0)
}

#[test]
fn r4_trait_ap() {
    check!(s_trait_ap, 0.7, 1.3);
}
#[test]
fn r4_rc_dyn() {
    check!(s_rc_dyn, 0.7, 1.3);
}
#[test]
fn r4_rc_cell() {
    check!(s_rc_cell, 0.7, 1.3);
}
#[test]
fn r4_two_levels() {
    check!(s_two_levels, 0.7, 1.3);
}
#[test]
fn r4_vec_cap() {
    check!(s_vec_cap, 0.7, 1.3);
}
#[test]
fn r4_rc_closure_direct() {
    check!(s_rc_closure_direct, 0.7, 1.3);
}
#[test]
fn r4_box_closure_direct() {
    check!(s_box_closure_direct, 0.7, 1.3);
}

// Bug 3b: `(*f)(t)` of a boxed capturing closure. irtrack: gradient 0; truth 1.
#[test]
fn closure_called_through_deref_gradient() {
    grad_or_err!(s_deref_callee, 0.7);
}

// Bug 4b: a capturing closure inside a struct passed by value to a tracked helper, which
// moves it out and calls it. update at 1.3 gives 0.7; truth 1.3.
#[test]
fn update_replays_closure_in_struct_argument_with_old_capture() {
    update_or_err!(s_holder_by_value, 0.7, 1.3);
}

// ---------------- round 5 probes ----------------
fn untracked_apply<F: Fn(f64) -> f64>(f: F, t: f64) -> f64 {
    f(t)
}
#[tracked]
fn u_opt_map(x: f64) -> f64 {
    let k = x;
    let f = |t: f64| t * k;
    Some(1.0).map(f).unwrap()
}
#[tracked]
fn u_untracked_apply(x: f64) -> f64 {
    let f = |t: f64| t * x;
    untracked_apply(f, 1.0)
}
#[tracked]
fn u_untracked_apply_ref(x: f64) -> f64 {
    let f = |t: f64| t * x;
    untracked_apply(&f, 1.0)
}
#[tracked]
fn u_cell(x: f64) -> f64 {
    let c = Cell::new(x);
    let f = |t: f64| c.get() * t;
    f(1.0)
}
#[tracked]
fn u_cell_set(x: f64) -> f64 {
    let c = Cell::new(1.0);
    let f = |t: f64| c.get() * t;
    c.set(x);
    f(1.0)
}
#[tracked]
fn u_refcell_set(x: f64) -> f64 {
    let c = std::cell::RefCell::new(1.0);
    let f = |t: f64| *c.borrow() * t;
    *c.borrow_mut() = x;
    f(1.0)
}
struct S2 {
    w: f64,
}
#[tracked]
impl S2 {
    fn m(mut self, (a, b): (f64, f64)) -> f64 {
        self.w *= a;
        self.w + b
    }
}
#[tracked]
fn u_self_by_value(x: f64) -> f64 {
    S2 { w: 2.0 }.m((x, 1.0))
}
#[test]
fn r5_opt_map() {
    check!(u_opt_map, 0.7, 1.3);
}
#[test]
fn r5_untracked_apply() {
    check!(u_untracked_apply, 0.7, 1.3);
}
#[test]
fn r5_untracked_apply_ref() {
    check!(u_untracked_apply_ref, 0.7, 1.3);
}
#[test]
fn r5_cell() {
    check!(u_cell, 0.7, 1.3);
}
#[test]
fn r5_cell_set() {
    check!(u_cell_set, 0.7, 1.3);
}
#[test]
fn r5_refcell_set() {
    check!(u_refcell_set, 0.7, 1.3);
}
#[test]
fn r5_self_by_value() {
    check!(u_self_by_value, 0.7, 1.3);
}
#[tracked]
fn v_for(x: f64) -> f64 {
    let fs: Vec<Box<dyn Fn(f64) -> f64>> = vec![Box::new(move |t| t * x), Box::new(|t| t)];
    let mut r = 0.0;
    for f in &fs {
        r += f(1.0);
    }
    r
}
#[tracked]
fn v_iter_sum(x: f64) -> f64 {
    let fs: Vec<Box<dyn Fn(f64) -> f64>> = vec![Box::new(move |t| t * x)];
    fs.iter().map(|f| f(1.0)).sum()
}
#[tracked]
fn v_arr_for(x: f64) -> f64 {
    let fs = [move |t: f64| t * x];
    let mut r = 0.0;
    for f in fs {
        r += f(1.0);
    }
    r
}
#[test]
fn r6_for() {
    check!(v_for, 0.7, 1.3);
}
#[test]
fn r6_iter_sum() {
    check!(v_iter_sum, 0.7, 1.3);
}

// Bug 4c: closures in an array, called by a `for` loop over it. update at 1.3 gives 0.7; truth 1.3.
#[test]
fn update_replays_closure_from_for_loop_with_old_capture() {
    update_or_err!(v_arr_for, 0.7, 1.3);
}

#[tracked]
fn refmut(ref mut r: f64) -> f64 {
    *r += 1.0;
    *r * 2.0
}
#[tracked]
fn refmut_tuple((ref mut a, b): (f64, f64)) -> f64 {
    *a += b;
    *a
}
/// A `ref mut` binding in a parameter's pattern (E0596 when the hidden parameter was not `mut`).
#[test]
fn a_ref_mut_parameter_compiles_and_runs() {
    assert_eq!(refmut(1.0), 4.0);
    assert_eq!(irtrack::track_output(refmut, (1.0,)).0, 4.0);
    assert_eq!(refmut_tuple((1.0, 2.0)), 3.0);
    let _ = gradient(refmut, (1.0,));
}

struct PlaceHolder<F: Fn(f64) -> f64> {
    f: F,
}
#[tracked]
impl<F: Fn(f64) -> f64> PlaceHolder<F> {
    fn call(&self, t: f64) -> f64 {
        (self.f)(t) * 2.0
    }
}
#[tracked]
fn first_of(v: &Vec<Box<dyn Fn(f64) -> f64>>, t: f64) -> f64 {
    v[0](t) + (*v[0])(t)
}
#[tracked]
fn via_holder(x: f64) -> f64 {
    let h = PlaceHolder {
        f: move |t: f64| t * x,
    };
    h.call(1.0)
}
/// A callee read from a place (`(self.f)(t)`, `v[0](t)`, `(*v[0])(t)`) is called where it is:
/// `#[tracked]` moved it out of the borrow (E0507, seen by tester I). Its call ran untracked,
/// so a gradient through it is refused.
#[test]
fn a_callee_read_from_a_place_compiles() {
    let h = PlaceHolder {
        f: |t: f64| t + 1.0,
    };
    assert_eq!(h.call(1.0), 4.0);
    let v: Vec<Box<dyn Fn(f64) -> f64>> = vec![Box::new(|t| t * 3.0)];
    assert_eq!(first_of(&v, 2.0), 12.0);
    let (out, _t) = irtrack::track_output(via_holder, (0.5,));
    assert_eq!(out, 1.0);
    assert!(gradient(via_holder, (0.5,)).is_err());
}
