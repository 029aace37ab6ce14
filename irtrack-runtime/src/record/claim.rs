//! Who a call was made to, and whether a tracked function is that callee — decided by typed
//! keys, never by comparing type names (docs/architecture.md, "Identity: keys, not names").
//!
//! A tracked caller announces each call before making it, with a `Key`:
//! - a call of a path or a local callable announces the callee value's type: a fn item type is
//!   unique to one function (and its generic arguments), a closure type to one closure
//!   expression; a function pointer's or trait object's type says nothing of the code it runs,
//!   so nothing claims it;
//! - a method call announces the receiver's type, at the autoref level written, and the
//!   address of the value it refers to, when the receiver is a place;
//! - an operator announces its left operand's type, which must be the impl's `Self` exactly.
//!
//! A tracked function claims the call if its [`Identity`] matches: its own fn item type for
//! a path call; for a method call, its name and a receiver type that autoderef reaches its
//! `Self` from, at the same address when both are known. A call through `&dyn Trait` claims
//! only the method of the trait impl whose receiver is the very object called (same address
//! and size), so an untracked impl that calls another type's tracked method of the same name
//! on another object is never wired to that body.
//!
//! A closure cannot name its own type, so tracked closures are registered: a closure bound by
//! `let` in a tracked function, a closure passed straight to a tracked callee (registered when
//! the callee records its parameter), and a closure made by `tracked_fn!` (registered when it
//! is made). A closure reached any other way is a primitive.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

/// What a caller knows of a method call's receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Receiver {
    /// The receiver expression's type, lifetimes erased.
    pub(crate) ty: TypeId,
    /// The address of the value the receiver refers to (through one reference or box), or
    /// of the receiver itself; 0 when the receiver was a temporary.
    pub(crate) addr: usize,
    /// The size of that value (`size_of_val`, so a trait object's concrete size).
    pub(crate) size: usize,
    /// Whether the receiver is a fat pointer (to a trait object or a slice).
    pub(crate) fat: bool,
}

/// A type no value has: a receiver whose method is known not to be the float method of its
/// name ([`Receiver::unless_float_method`]) is announced as one of this type, which no rule
/// or operation takes for a float.
struct NotTheFloatMethod;

impl Receiver {
    /// This receiver, or one of no float type where the method `name` (a float method of one
    /// operand by its name: `sin`, `exp`, …) called on `value` by `call` is not the float
    /// type's own. In generic code (`T: Angle` with a `sin` of its own, in degrees) and on a
    /// reference (`(&x).exp()` with a trait for `&f64`) the method resolution may find a
    /// method of that name that is not the float's; its result at the recorded point is the
    /// only witness the rules read, and it agreed by chance where both give 0 or 1 (`sin` of
    /// 0 degrees, `2ˣ` at 0: the gradient was the float method's). So `call` is run at two
    /// points near `value` (further from 0) and compared with the float method there, bit for
    /// bit (a panic there is a difference): the method runs twice more while a trace is
    /// recorded. A `value` or a result of another type than `f64` or `f32` (a
    /// reference) leaves the recorded point as the witness.
    ///
    /// `call` gives the method's result read by [`probe::float_of`] (`None` for a result of
    /// no float type): a method taking `&mut self` or returning a reference (a logger's
    /// `log(&self, msg) -> &Self`) is called in it without its result leaving the closure.
    #[doc(hidden)]
    pub fn unless_float_method<R>(
        self,
        name: &str,
        value: &R,
        call: fn(R) -> Option<f64>,
    ) -> Receiver {
        let Some(f) = crate::core::op::FloatFn::from_name(name, 1) else {
            return self;
        };
        let not_float = Receiver {
            ty: typeid::of::<NotTheFloatMethod>(),
            ..self
        };
        match probe::agrees(f, value, call) {
            Some(false) => not_float,
            // Another type of receiver (a reference in generic code): the result at the point
            // stays the witness.
            _ => self,
        }
    }

    /// As [`unless_float_method`](Receiver::unless_float_method), for a float method of two
    /// operands (`powf`, `atan2`, `hypot`, `max`, `min`, `copysign`, `log`, `rem_euclid`,
    /// `div_euclid`) called on `value` with `arg`: a trait's own method of that name may take
    /// its operands the other way round (`atan2(y, x)`), which gives the float method's result
    /// wherever the two are equal, as at a recorded point `(1, 1)` (the gradient was the float
    /// method's with its partials swapped, and a program replayed it at other points). It is
    /// run at two points that move each operand by a different amount, so no such symmetry
    /// holds.
    #[doc(hidden)]
    pub fn unless_float_method_of_two<R, A>(
        self,
        name: &str,
        value: &R,
        arg: &A,
        call: fn(R, A) -> Option<f64>,
    ) -> Receiver {
        let Some(f) = crate::core::op::FloatFn::from_name(name, 2) else {
            return self;
        };
        match probe::agrees_of_two(f, value, arg, call) {
            Some(false) => Receiver {
                ty: typeid::of::<NotTheFloatMethod>(),
                ..self
            },
            _ => self,
        }
    }
}

/// Who a call was announced to.
// A tag as wide as the alignment: in Rust's layout the method's `operator` flag sits beside a
// one-byte tag, and a key is moved as one span from the byte after the tag, whose loads
// straddle the stores that built it: a store-forwarding stall on every method announced.
#[derive(Clone, Copy, Debug)]
#[repr(C, u64)]
pub(crate) enum Key {
    /// A callee value of this type (fn item, closure, fn pointer).
    Fn(crate::core::ids::CalleeKey),
    /// A method call or an operator; the name is the caller's entry head.
    Method {
        receiver: Receiver,
        /// An operator: the receiver's type is exactly the impl's `Self` (no autoref).
        operator: bool,
    },
    /// A method call or an operator whose receiver is the entry's first operand, already
    /// recorded: its type is read from that node, only when a tracked function asks.
    Recorded {
        /// An operator (see `Method`).
        operator: bool,
    },
    /// A call no tracked function can be the callee of (comparisons, indexing, computed
    /// callees): announced only so a context sees it before it runs.
    Nothing,
}

/// What a tracked function knows of itself, to check a pending call is made to it. Built by
/// the generated code only when a recording is active.
#[derive(Clone, Debug, Default)]
pub struct Identity {
    pub(crate) item: Option<TypeId>,
    /// The address of a closure's static IR, looked up in the closure registry.
    pub(crate) closure: Option<usize>,
    pub(crate) method: Option<MethodIdentity>,
}

/// A method's identity: its name and `Self`.
#[derive(Clone, Debug)]
pub(crate) struct MethodIdentity {
    pub(crate) name: &'static str,
    /// `Self` and the receiver types autoderef reaches `Self` from.
    pub(crate) receivers: [TypeId; 9],
    pub(crate) self_ty: TypeId,
    /// The address of `*self` for a method taking `&self`/`&mut self`; 0 otherwise.
    pub(crate) addr: usize,
    pub(crate) size: usize,
    /// A method of a trait impl: a call through a trait object can reach it.
    pub(crate) trait_impl: bool,
}

impl Identity {
    /// A free function or an associated function, by its fn item (`&h::<T>`, `&Self::new`).
    pub fn function<F>(item: &F) -> Identity {
        let _ = item;
        Identity {
            item: Some(typeid::of::<F>()),
            ..Identity::default()
        }
    }

    /// A closure, by the address of its static IR (see the module docs).
    pub fn closure(ir: &'static crate::core::ir::StaticIr) -> Identity {
        Identity {
            closure: Some(ir as *const _ as usize),
            ..Identity::default()
        }
    }

    /// A method called `name` of `Self = S`. `item` is its fn item when it can be named
    /// (for calls of its path), `this` the value `self` refers to for a method taking
    /// `&self`/`&mut self`, and `trait_impl` whether it implements a trait's method.
    pub fn method<S: ?Sized, F>(
        item: Option<&F>,
        name: &'static str,
        this: Option<&S>,
        trait_impl: bool,
    ) -> Identity {
        let receivers = [
            typeid::of::<&S>(),
            typeid::of::<&mut S>(),
            typeid::of::<&&S>(),
            typeid::of::<&&mut S>(),
            typeid::of::<&mut &S>(),
            typeid::of::<Box<S>>(),
            typeid::of::<std::rc::Rc<S>>(),
            typeid::of::<std::sync::Arc<S>>(),
            typeid::of::<&Box<S>>(),
        ];
        Identity {
            item: item.map(|_| typeid::of::<F>()),
            closure: None,
            method: Some(MethodIdentity {
                name,
                receivers,
                self_ty: typeid::of::<S>(),
                addr: this.map_or(0, |s| s as *const S as *const () as usize),
                size: this.map_or(0, std::mem::size_of_val),
                trait_impl,
            }),
        }
    }

    /// Whether a call announced with `key`, whose caller wrote the callee's name as `name`,
    /// is a call of this function. `closures` are the closures registered by the recording.
    pub(crate) fn matches(
        &self,
        key: &Key,
        name: Option<&str>,
        closures: &HashMap<TypeId, usize>,
    ) -> bool {
        match key {
            Key::Fn(k) => {
                self.item == Some(k.id)
                    || self.closure.is_some_and(|ir| {
                        closures.get(&k.id) == Some(&ir) || global_closure(&k.id) == Some(ir)
                    })
            }
            Key::Method { receiver, operator } => {
                let Some(m) = &self.method else {
                    return false;
                };
                if name != Some(m.name) {
                    return false;
                }
                if *operator {
                    return receiver.ty == m.self_ty;
                }
                let same_object = |must: bool| {
                    if m.addr == 0 || receiver.addr == 0 {
                        return !must;
                    }
                    receiver.addr == m.addr && receiver.size == m.size
                };
                if receiver.ty == m.self_ty || m.receivers.contains(&receiver.ty) {
                    return same_object(false);
                }
                // A trait object: only the impl whose receiver is the object called.
                m.trait_impl && receiver.fat && same_object(true)
            }
            // Resolved to `Method` by the recorder before matching.
            Key::Recorded { .. } | Key::Nothing => false,
        }
    }
}

/// The name a callee is matched by: a method's name, or the trait method an operator calls
/// (`+` is `add`, `+=` is `add_assign`, unary `-` is `neg`).
pub(crate) fn callee_name(entry: &crate::core::ir::Entry) -> Option<&str> {
    use crate::core::op::{BinOp, Builtin, UnOp};
    if entry.kind != crate::core::ir::EntryKind::Operator {
        return Some(&entry.head);
    }
    let bin = |op: BinOp, assign: bool| {
        Some(match (op, assign) {
            (BinOp::Add, false) => "add",
            (BinOp::Sub, false) => "sub",
            (BinOp::Mul, false) => "mul",
            (BinOp::Div, false) => "div",
            (BinOp::Rem, false) => "rem",
            (BinOp::BitAnd, false) => "bitand",
            (BinOp::BitOr, false) => "bitor",
            (BinOp::BitXor, false) => "bitxor",
            (BinOp::Shl, false) => "shl",
            (BinOp::Shr, false) => "shr",
            (BinOp::Add, true) => "add_assign",
            (BinOp::Sub, true) => "sub_assign",
            (BinOp::Mul, true) => "mul_assign",
            (BinOp::Div, true) => "div_assign",
            (BinOp::Rem, true) => "rem_assign",
            (BinOp::BitAnd, true) => "bitand_assign",
            (BinOp::BitOr, true) => "bitor_assign",
            (BinOp::BitXor, true) => "bitxor_assign",
            (BinOp::Shl, true) => "shl_assign",
            (BinOp::Shr, true) => "shr_assign",
        })
    };
    match Builtin::of_entry(entry)? {
        Builtin::Binary(op) => bin(op, false),
        Builtin::Assign(op) => bin(op, true),
        Builtin::Unary(UnOp::Neg) => Some("neg"),
        Builtin::Unary(UnOp::Not) => Some("not"),
        _ => None,
    }
}

/// Closures made by `tracked_fn!`, which may be made before a recording starts and on another
/// thread: type → the address of their static IR.
fn global_closures() -> &'static RwLock<HashMap<TypeId, usize>> {
    static REGISTRY: OnceLock<RwLock<HashMap<TypeId, usize>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

fn global_closure(t: &TypeId) -> Option<usize> {
    global_closures().read().ok()?.get(t).copied()
}

/// Registers a closure made by `tracked_fn!` (a hash lookup when it is already registered).
pub(crate) fn register_global_closure(t: TypeId, ir: usize) {
    let known = global_closures()
        .read()
        .map(|m| m.get(&t) == Some(&ir))
        .unwrap_or(false);
    if !known {
        if let Ok(mut m) = global_closures().write() {
            m.insert(t, ir);
        }
    }
}

pub use crate::core::ids::{key_of, keyed, keyed_then, unkeyed};

/// What a caller knows of a method's receiver, by autoref specialisation on the receiver
/// place's type: `(&&&&ReceiverProbe(&recv)).receiver()` looks through two references (or a
/// reference to a box), else one reference or box, to the value the method's `self` will
/// refer to.
pub mod probe {
    use super::Receiver;
    use std::mem::size_of;

    /// Wraps a reference to a receiver place.
    pub struct ReceiverProbe<'a, T: ?Sized>(pub &'a T);

    /// Whether `call` (a method named as the float method `f`) gives what `f` gives at two
    /// points near `value`, where `value` is an `f64` or an `f32` (a generic `T` instantiated
    /// with one) and so is the result; `None` for other types.
    pub(super) fn agrees<R>(
        f: crate::core::op::FloatFn,
        value: &R,
        call: fn(R) -> Option<f64>,
    ) -> Option<bool> {
        let wide = float_width::<R>()?;
        let x = read::<R>(value, wide);
        // Near the point, off the values where many functions agree (0, ±1), away from 0 on
        // the point's side (a method checking its domain, `sqrt` of `x >= 0`, is run inside it).
        let (p, q) = (near(x, GOLDEN), near(x, 0.5));
        compare_at(f, wide, &[[p, 0.0], [q, 0.0]], 1, |at| {
            call(make::<R>(at[0], wide))
        })
    }

    /// [`agrees`] for a method of two operands of the receiver's float type: its operands are
    /// moved by different fractions of their sizes (`(x + 1.618 s, y + 0.5 t)`, then `(x + 0.5
    /// s, y + 1.618 t)`), so a method taking them the other way round differs where the
    /// recorded point was symmetric. `None` where an operand or the result is of another type
    /// (`powi`'s `i32`).
    pub(super) fn agrees_of_two<R, A>(
        f: crate::core::op::FloatFn,
        value: &R,
        arg: &A,
        call: fn(R, A) -> Option<f64>,
    ) -> Option<bool> {
        let wide = float_width::<R>()?;
        if float_width::<A>()? != wide {
            return None;
        }
        let (x, y) = (read::<R>(value, wide), read::<A>(arg, wide));
        let points = [
            [near(x, GOLDEN), near(y, 0.5)],
            [near(x, 0.5), near(y, GOLDEN)],
        ];
        compare_at(f, wide, &points, 2, |at| {
            call(make::<R>(at[0], wide), make::<A>(at[1], wide))
        })
    }

    const GOLDEN: f64 = 1.618_033_988_749_895;

    /// `x` moved away from 0 on its side by `k` times a step of its size.
    fn near(x: f64, k: f64) -> f64 {
        x + (x.abs() + 1.0) * 0.0173 * if x < 0.0 { -k } else { k }
    }

    /// Whether `T` is `f64` (`Some(true)`) or `f32` (`Some(false)`).
    fn float_width<T>() -> Option<bool> {
        let t = typeid::of::<T>();
        if t == typeid::of::<f64>() {
            Some(true)
        } else if t == typeid::of::<f32>() {
            Some(false)
        } else {
            None
        }
    }

    /// A float of the width [`float_width`] found, as an `f64` (exactly).
    fn read<T>(v: &T, wide: bool) -> f64 {
        match wide {
            true => bits_as::<T, f64>(v),
            false => f64::from(bits_as::<T, f32>(v)),
        }
    }

    /// `x` as a float of that width (rounded to `f32` where it is one).
    fn make<T>(x: f64, wide: bool) -> T {
        match wide {
            true => bits_as::<f64, T>(&x),
            false => bits_as::<f32, T>(&(x as f32)),
        }
    }

    /// Whether `run` gives the float method `f`'s result, bit for bit, at each of `points`
    /// (their first `arity` coordinates, rounded to `f32` where `wide` is false): `Some(false)`
    /// where it differs or panics (a panic where the float method has a value: not the float
    /// method), `None` where its result is no float or `f` has no value to compare.
    fn compare_at(
        f: crate::core::op::FloatFn,
        wide: bool,
        points: &[[f64; 2]],
        arity: usize,
        run: impl Fn(&[f64]) -> Option<f64>,
    ) -> Option<bool> {
        for point in points {
            let at: Vec<f64> = match wide {
                true => point[..arity].to_vec(),
                false => point[..arity]
                    .iter()
                    .map(|&x| f64::from(x as f32))
                    .collect(),
            };
            let Ok(mine) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&at)))
            else {
                return Some(false);
            };
            let std = match wide {
                true => f.eval_f64(&at, None)?,
                false => {
                    let narrow: Vec<f32> = at.iter().map(|&x| x as f32).collect();
                    f64::from(f.eval_f32(&narrow, None)?)
                }
            };
            if !crate::core::value::same_f64(mine?, std) {
                return Some(false);
            }
        }
        Some(true)
    }

    /// A method's result as an `f64` where it is an `f64` or an `f32` (widened, exactly);
    /// `None` for a result of another type (a reference, `()`, a user's type). The closures
    /// handed to [`Receiver::unless_float_method`](super::Receiver::unless_float_method) read
    /// their result through it, so that a result borrowing the receiver stays in the closure.
    pub fn float_of<T>(v: &T) -> Option<f64> {
        let t = typeid::of::<T>();
        if t == typeid::of::<f64>() {
            Some(bits_as::<T, f64>(v))
        } else if t == typeid::of::<f32>() {
            Some(f64::from(bits_as::<T, f32>(v)))
        } else {
            None
        }
    }

    /// `value` as a `B`, where `A` and `B` are one float type (`f64` or `f32`) by their type
    /// ids, which `agrees` checks first; `A` is generic there, so no safe cast names it.
    #[allow(unsafe_code)]
    fn bits_as<A, B>(value: &A) -> B {
        assert!(
            typeid::of::<A>() == typeid::of::<B>()
                && (typeid::of::<B>() == typeid::of::<f64>()
                    || typeid::of::<B>() == typeid::of::<f32>()),
            "irtrack bug: a float read as another type"
        );
        // SAFETY: `A` and `B` are the same type, `f64` or `f32` (asserted above): a copy of a
        // float's bits as its own type.
        unsafe { std::mem::transmute_copy::<A, B>(value) }
    }

    fn info<R: ?Sized, V: ?Sized>(value: &V) -> Receiver {
        Receiver {
            ty: typeid::of::<R>(),
            addr: value as *const V as *const () as usize,
            size: std::mem::size_of_val(value),
            fat: size_of::<&V>() > size_of::<usize>(),
        }
    }

    /// A receiver behind a reference.
    pub trait ViaRef {
        /// The receiver's facts.
        fn receiver(&self) -> Receiver;
    }
    impl<U: ?Sized> ViaRef for &&ReceiverProbe<'_, &U> {
        fn receiver(&self) -> Receiver {
            info::<&U, U>(*self.0)
        }
    }
    impl<U: ?Sized> ViaRef for &&ReceiverProbe<'_, &mut U> {
        fn receiver(&self) -> Receiver {
            info::<&mut U, U>(&**self.0)
        }
    }
    impl<U: ?Sized> ViaRef for &&ReceiverProbe<'_, Box<U>> {
        fn receiver(&self) -> Receiver {
            info::<Box<U>, U>(&**self.0)
        }
    }
    impl<U: ?Sized> ViaRef for &&ReceiverProbe<'_, std::rc::Rc<U>> {
        fn receiver(&self) -> Receiver {
            info::<std::rc::Rc<U>, U>(&**self.0)
        }
    }
    impl<U: ?Sized> ViaRef for &&ReceiverProbe<'_, std::sync::Arc<U>> {
        fn receiver(&self) -> Receiver {
            info::<std::sync::Arc<U>, U>(&**self.0)
        }
    }

    /// A receiver behind a reference to a reference or a box (`l` in `for l in layers` over
    /// `&[&dyn Layer]`, `&Box<dyn Layer>` from `iter()`): the value the method's `self` will
    /// refer to is two steps away, where a trait object's concrete value is.
    pub trait ViaRefRef {
        /// The receiver's facts.
        fn receiver(&self) -> Receiver;
    }
    impl<U: ?Sized> ViaRefRef for &&&ReceiverProbe<'_, &&U> {
        fn receiver(&self) -> Receiver {
            info::<&&U, U>(**self.0)
        }
    }
    impl<U: ?Sized> ViaRefRef for &&&ReceiverProbe<'_, &&mut U> {
        fn receiver(&self) -> Receiver {
            info::<&&mut U, U>(&***self.0)
        }
    }
    impl<U: ?Sized> ViaRefRef for &&&ReceiverProbe<'_, &Box<U>> {
        fn receiver(&self) -> Receiver {
            info::<&Box<U>, U>(&***self.0)
        }
    }
    impl<U: ?Sized> ViaRefRef for &&&ReceiverProbe<'_, &std::rc::Rc<U>> {
        fn receiver(&self) -> Receiver {
            info::<&std::rc::Rc<U>, U>(&***self.0)
        }
    }
    impl<U: ?Sized> ViaRefRef for &&&ReceiverProbe<'_, &std::sync::Arc<U>> {
        fn receiver(&self) -> Receiver {
            info::<&std::sync::Arc<U>, U>(&***self.0)
        }
    }

    /// A receiver that is the value itself.
    pub trait ViaValue {
        /// The receiver's facts.
        fn receiver(&self) -> Receiver;
    }
    impl<T: ?Sized> ViaValue for &ReceiverProbe<'_, T> {
        fn receiver(&self) -> Receiver {
            info::<T, T>(self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::probe::*;
    use super::*;

    struct Square(f64);
    impl Square {
        fn area(&self) -> f64 {
            self.0 * self.0
        }
    }
    fn sq(x: f64) -> f64 {
        x * x
    }
    fn other(x: f64) -> f64 {
        x
    }

    #[test]
    #[allow(clippy::needless_borrow)]
    fn keys_are_exact() {
        let none = HashMap::new();
        let id = Identity::function(&sq);
        assert!(id.matches(&Key::Fn(key_of(&sq)), None, &none));
        assert!(!id.matches(&Key::Fn(key_of(&other)), None, &none));
        let c = |x: f64| x;
        assert!(!id.matches(&Key::Fn(key_of(&c)), None, &none));

        let s = Square(2.0);
        let t = Square(3.0);
        let m = Identity::method(Some(&Square::area), "area", Some(&s), true);
        let place = (&&&ReceiverProbe(&s)).receiver();
        let key = Key::Method {
            receiver: place,
            operator: false,
        };
        assert!(m.matches(&key, Some("area"), &none));
        assert!(!m.matches(&key, Some("perimeter"), &none));
        let r = &s;
        let through_ref = (&&&ReceiverProbe(&r)).receiver();
        assert!(m.matches(
            &Key::Method {
                receiver: through_ref,
                operator: false
            },
            Some("area"),
            &none
        ));
        // Another object of the same type is not this call's receiver.
        let other_object = (&&&ReceiverProbe(&t)).receiver();
        assert!(!m.matches(
            &Key::Method {
                receiver: other_object,
                operator: false
            },
            Some("area"),
            &none
        ));
        assert_eq!(s.area() + t.area(), 13.0);
    }
}
