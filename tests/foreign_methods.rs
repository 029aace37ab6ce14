//! A method call is claimed by the tracked method of its name whose `self` is the call's
//! receiver (type and address). Another method of that name can share the receiver: an untracked
//! impl of another trait on the same object, or a wrapper's untracked impl calling the tracked
//! impl of what it holds (a newtype has its field's address; zero-sized types share one). Where
//! such a method ran and called the tracked one, the tracked body was taken for the call's
//! (found 2026-11-28 by an adversarial run; gradients 2.6 for 7.8, programs 1.4 for -0.1).
//! Now, where the body received or returned another scalar than the call passed or gave, the
//! call is flagged and refused by gradients and programs; these cases are at points where the
//! two methods differ.

use irtrack::program::{Input, Program};
use irtrack::{gradient, track, tracked};

pub trait Squared {
    fn val(&self) -> f64;
}
pub trait Shifted {
    fn val(&self) -> f64;
}
pub struct S {
    x: f64,
}

#[tracked]
impl Squared for S {
    fn val(&self) -> f64 {
        self.x * self.x
    }
}

impl Shifted for S {
    fn val(&self) -> f64 {
        Squared::val(self) + 3.0 * (self.x - 1.0)
    }
}

#[tracked]
fn through_a_bound<T: Shifted>(t: &T) -> f64 {
    t.val()
}

#[tracked]
fn another_trait(x: f64) -> f64 {
    let s = S { x };
    through_a_bound(&s)
}

#[tracked]
fn squared_directly(x: f64) -> f64 {
    let s = S { x };
    Squared::val(&s) + 1.0
}

pub trait Scale {
    fn f(&self, y: f64) -> f64;
}
pub struct Inner {
    k: f64,
}
pub struct Outer(Inner);
pub struct Shifting(Inner);

#[tracked]
impl Scale for Inner {
    fn f(&self, y: f64) -> f64 {
        self.k * y
    }
}

impl Scale for Outer {
    fn f(&self, y: f64) -> f64 {
        self.0.f(y) + 5.0 * (y - 1.0)
    }
}

/// Gives what the inner method gives, for another argument.
impl Scale for Shifting {
    fn f(&self, y: f64) -> f64 {
        self.0.f(y + 1.0)
    }
}

#[tracked]
fn wrapper(x: f64) -> f64 {
    let o = Outer(Inner { k: 2.0 });
    let d: &dyn Scale = &o;
    d.f(x)
}

#[tracked]
fn shifted_argument(x: f64) -> f64 {
    let o = Shifting(Inner { k: 2.0 });
    let d: &dyn Scale = &o;
    d.f(x)
}

#[tracked]
fn inner_itself(x: f64) -> f64 {
    let i = Inner { k: 2.0 };
    let d: &dyn Scale = &i;
    d.f(x) * x
}

pub trait Act {
    fn act(&self, x: f64) -> f64;
}
pub struct Square;
pub struct Other;

#[tracked]
impl Act for Square {
    fn act(&self, x: f64) -> f64 {
        x * x
    }
}

impl Act for Other {
    fn act(&self, x: f64) -> f64 {
        Square.act(x) + 6.0 * (x - 1.0)
    }
}

#[tracked]
fn zero_sized(x: f64) -> f64 {
    let v: Vec<Box<dyn Act>> = vec![Box::new(Other), Box::new(Square)];
    let mut s = 0.0;
    for b in v.iter() {
        s += b.act(x);
    }
    s
}

pub trait Sq {
    fn sq(self) -> f64;
}
pub trait SqShifted {
    fn sq(self) -> f64;
}
#[derive(Clone, Copy)]
pub struct V {
    v: f64,
}

#[tracked]
impl Sq for V {
    fn sq(self) -> f64 {
        self.v * self.v
    }
}

impl SqShifted for V {
    fn sq(self) -> f64 {
        Sq::sq(self) + 4.0 * (self.v - 1.0)
    }
}

#[tracked]
fn by_value_bound<T: SqShifted>(t: T) -> f64 {
    t.sq()
}

#[tracked]
fn by_value(x: f64) -> f64 {
    by_value_bound(V { v: x })
}

fn refused_with_reason(e: impl std::fmt::Display) {
    let e = e.to_string();
    assert!(e.contains("not the method that ran"), "{e}");
}

#[test]
fn another_methods_result_is_refused_not_differentiated_as_the_tracked_one() {
    let x = 1.3;
    assert_eq!(another_trait(x), x * x + 3.0 * (x - 1.0));
    refused_with_reason(gradient(another_trait, (x,)).unwrap_err());
    refused_with_reason(gradient(wrapper, (x,)).unwrap_err());
    refused_with_reason(gradient(zero_sized, (x,)).unwrap_err());
    refused_with_reason(gradient(by_value, (x,)).unwrap_err());
    // (Programs refuse `S { x }` of a dynamic `x` before they reach the call.)
    for trace in [track(another_trait, (x,)), track(by_value, (x,))] {
        trace.verify().unwrap();
        assert!(Program::from_trace(&trace, &[Input::Dynamic]).is_err());
    }
    for trace in [
        track(wrapper, (x,)),
        track(zero_sized, (x,)),
        track(shifted_argument, (x,)),
    ] {
        trace.verify().unwrap();
        let e = Program::from_trace(&trace, &[Input::Dynamic]).unwrap_err();
        refused_with_reason(e);
        // The value recorded is the one the program gave, not the tracked body's.
        let p = Program::from_trace(&trace, &[Input::Static]).unwrap();
        assert_eq!(p.call((x,)).unwrap().as_f64(), trace.root().as_f64());
    }
}

#[test]
fn an_argument_the_tracked_body_was_not_passed_is_refused() {
    // The two methods give the same value; the tracked one was given `x + 1`, not `x`: replayed
    // as the tracked body, the program gave 2x for 2x + 2.
    let x = 0.5;
    assert_eq!(shifted_argument(x), 2.0 * (x + 1.0));
    let trace = track(shifted_argument, (x,));
    refused_with_reason(Program::from_trace(&trace, &[Input::Dynamic]).unwrap_err());
}

#[test]
fn the_tracked_method_itself_is_still_followed() {
    let x = 1.3;
    let g = gradient(squared_directly, (x,)).unwrap();
    assert_eq!(g.scalars(), [Some(2.0 * x)]);
    let g = gradient(inner_itself, (x,)).unwrap();
    assert_eq!(g.scalars(), [Some(4.0 * x)]);
    let p = Program::from_trace(&track(inner_itself, (x,)), &[Input::Dynamic]).unwrap();
    assert_eq!(p.call((0.7,)).unwrap().as_f64(), Some(inner_itself(0.7)));
}

#[derive(Clone, Copy, Debug)]
pub struct Dual {
    v: f64,
    d: f64,
}

#[tracked]
impl std::ops::AddAssign for Dual {
    fn add_assign(&mut self, o: Dual) {
        self.v += o.v;
        self.d += o.d;
    }
}

#[tracked]
fn tracked_add_assign(x: f64) -> f64 {
    let mut a = Dual { v: x, d: 1.0 };
    let b = Dual { v: x * x, d: 2.0 };
    a += b;
    a.v + a.d
}

/// `a += b` claimed by a tracked `add_assign` holds `a` after it, and its body returns `()`:
/// a well-formed trace (`verify` said "a call's value is not its return's").
#[test]
fn a_tracked_compound_assignment_records_a_well_formed_trace() {
    let x = 1.3;
    let trace = track(tracked_add_assign, (x,));
    trace.verify().unwrap();
    assert_eq!(trace.root().as_f64(), Some(x + x * x + 3.0));
    match gradient(tracked_add_assign, (x,)) {
        Ok(g) => assert_eq!(g.scalars(), [Some(1.0 + 2.0 * x)]),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

#[test]
fn the_flag_survives_an_import() {
    let trace = track(wrapper, (1.3,));
    let json = trace.to_json();
    assert!(json.contains(r#""foreign_body"]"#), "{json}");
    let mut back = irtrack::Trace::from_json(&json).unwrap();
    refused_with_reason(back.backward(1.0).unwrap_err());
}

#[derive(Clone, Copy, Debug)]
pub struct D2 {
    v: f64,
    d: f64,
}

#[tracked]
impl std::ops::Mul for D2 {
    type Output = D2;
    fn mul(self, o: D2) -> D2 {
        D2 {
            v: self.v * o.v,
            d: self.d * o.v + self.v * o.d,
        }
    }
}

/// An untracked `Mul<f64>` that calls the tracked `Mul<D2>` (and changes the result).
impl std::ops::Mul<f64> for D2 {
    type Output = D2;
    fn mul(self, k: f64) -> D2 {
        let r = self * D2 { v: k, d: 0.0 };
        D2 {
            v: r.v * self.d,
            d: r.d,
        }
    }
}

#[tracked]
fn scaled_dual(x: f64) -> f64 {
    let a = D2 { v: x, d: x };
    (a * 2.0).v
}

/// An operator's call with a number where the tracked impl received a struct is another impl's
/// (`a * 2.0` of an untracked `Mul<f64>` calling the tracked `Mul<D2>`): refused, where at
/// x = 1, the values agreeing, the gradient was 2 for 4 (a tester, 2026-11-28).
#[test]
fn a_number_passed_where_the_body_received_a_struct_is_another_impls() {
    for x in [1.0, 1.3] {
        assert_eq!(scaled_dual(x), 2.0 * x * x);
        assert!(gradient(scaled_dual, (x,)).is_err(), "{x}");
        track(scaled_dual, (x,)).verify().unwrap();
    }
}
