//! Users' own gradient rules (Flux.Tracker's `@grad`): a pullback given to a function makes it
//! primitive for differentiation, whether it is tracked or not.

use super::primal::Primal;
use super::rules::{Contribution, Out};
use super::site::Site;
use super::tangent::Tangent;
use crate::core::op::Builtin;
use crate::core::tape::Callee;
use std::any::TypeId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

type Erased = dyn Fn(&Site<'_>, &Tangent, &mut Out) -> Result<(), String> + Send + Sync;

fn table() -> &'static RwLock<HashMap<TypeId, Arc<Erased>>> {
    static RULES: OnceLock<RwLock<HashMap<TypeId, Arc<Erased>>>> = OnceLock::new();
    RULES.get_or_init(Default::default)
}

/// The names of the functions given rules (`my_crate::sq`), for traces whose calls lost their
/// keys (imported from JSON): such a call of a function of the same name may be one of them.
fn names() -> &'static RwLock<Vec<&'static str>> {
    static NAMES: OnceLock<RwLock<Vec<&'static str>>> = OnceLock::new();
    NAMES.get_or_init(Default::default)
}

/// Whether a rule was registered for a function named `name` (as written, `sq`) in `module`
/// (`my_crate`) or a module below it: for a nested call whose callee's key the trace does not
/// have (an imported trace), where the rule may apply but cannot be found by the key.
pub(crate) fn may_apply_by_name(name: &str, module: &str) -> bool {
    if !any() {
        return false;
    }
    let names = names().read().unwrap_or_else(|e| e.into_inner());
    names.iter().any(|n| {
        n.rsplit("::").next() == Some(name)
            && n.starts_with(module.split("::").next().unwrap_or(""))
    })
}

/// Whether any rule was registered: when none was, no call's identity needs to be looked up.
static ANY: AtomicBool = AtomicBool::new(false);

/// Whether any rule was registered in this process.
#[inline]
pub(crate) fn any() -> bool {
    ANY.load(Ordering::Acquire)
}

/// The user's rule for the callee of `site`, found by the callee's fn item type; for a float
/// method called by method syntax on a float (`x.tan()`, which is `f64::tan` exactly), by
/// that method's fn item type, as for `f64::tan(x)` (it ran the built-in rule instead).
pub(crate) fn lookup(site: &Site<'_>) -> Option<Arc<Erased>> {
    if !ANY.load(Ordering::Acquire) {
        return None;
    }
    let key = match site.callee() {
        Some(Callee::Item(t)) => t.id,
        _ => {
            let method = site.kind() == crate::core::ir::EntryKind::MethodCall
                && site.receiver() == crate::core::op::Receiver::Float;
            let b = site
                .builtin()
                .filter(|b| method && matches!(b, Builtin::Method(_)))?;
            crate::core::op::float_path_key(b, site.output_is_f32())?
        }
    };
    lookup_key(key)
}

/// The user's rule for the function whose fn item type is `key`.
pub(crate) fn lookup_key(key: TypeId) -> Option<Arc<Erased>> {
    if !ANY.load(Ordering::Acquire) {
        return None;
    }
    let rules = table().read().unwrap_or_else(|e| e.into_inner());
    rules.get(&key).cloned()
}

/// Gives `function` its own pullback: every call of it, tracked or not, is then differentiated
/// by `pullback` instead of through its body (Flux.Tracker's `@grad`), and so is `function`
/// itself when it is the function differentiated (`gradient(function, …)`, `pullback`).
///
/// `pullback` gets the call's arguments, as a tuple of `f64`, `f32`, integers, `Vec<f64>` (for
/// vectors and slices) or arrays, and the sensitivity of the call's value; it returns the
/// sensitivities of the arguments, as a tuple in argument order (`()` for an argument that has
/// none), or a single value for a one-argument function. Rules are process-wide and found by
/// the function itself (its fn item's type), never by a name; registering again replaces the
/// rule. A rule applies to every call of the function by its path (`minus(a, b)`,
/// `Point::norm(&p)`), and to method calls of it (`p.norm()`) when the method is `#[tracked]`
/// (an untracked method called with method syntax cannot be identified: Rust picks the method
/// by the receiver's type at compile time).
///
/// Where a rule cannot be right, the gradient is an error naming the call (`GradError::NoRule`
/// with the reason): a rule registered for a function pointer or a closure that captures
/// (whose type is every function of that signature's, every capture's), a rule taking another
/// number of arguments than the call has, and a sensitivity of another shape than its
/// argument's.
///
/// ```
/// use irtrack::{gradient, tracked, grad::register_rule};
///
/// #[tracked]
/// fn minus(a: f64, b: f64) -> f64 {
///     a - b
/// }
///
/// #[tracked]
/// fn f(x: f64, y: f64) -> f64 {
///     minus(x * x, y)
/// }
///
/// register_rule(minus, |(_a, _b): (f64, f64), dy: f64| (dy, -dy));
/// let g = gradient(f, (3.0, 1.0)).unwrap();
/// assert_eq!(g.value, 8.0);
/// assert_eq!(g.scalars(), [Some(6.0), Some(-1.0)]);
/// ```
pub fn register_rule<F, A, D, S, P>(function: F, pullback: P)
where
    F: 'static,
    A: FromArguments,
    D: FromTangent,
    S: IntoSensitivities,
    P: Fn(A, D) -> S + Send + Sync + 'static,
{
    let key = crate::core::ids::key_of(&function);
    // A fn item, or a closure that captures nothing, is one function: its type says which. A
    // function pointer's type is every function of that signature's, and a closure that
    // captures is one type for every capture (`make_scale(2.0)`, `make_scale(3.0)`): a rule
    // given one would apply to calls of others (a tester, 2026-11-27: 4 for 12).
    let one_function = std::mem::size_of::<F>() == 0;
    let erased: Arc<Erased> = Arc::new(move |site: &Site<'_>, dy: &Tangent, out: &mut Out| {
        if !one_function {
            return Err(format!(
                "a rule is registered for a function pointer or a capturing closure of type `{}`, \
                 whose type does not say which function ran (every function of that signature, \
                 every capture): register it for the fn item (`register_rule(f, …)`)",
                std::any::type_name::<F>()
            ));
        }
        if site.len() != A::ARITY {
            return Err(format!(
                "the rule takes {} argument(s) (`{}`), the call has {}: give the rule every \
                 argument, `()` where one has no sensitivity",
                A::ARITY,
                std::any::type_name::<A>(),
                site.len()
            ));
        }
        let args = A::from_arguments(site).ok_or_else(|| {
            format!(
                "the rule's arguments `{}` do not match the call's",
                std::any::type_name::<A>()
            )
        })?;
        let dy = D::from_tangent(dy).ok_or_else(|| {
            format!(
                "the rule takes a sensitivity of type `{}`, the call's is a {}",
                std::any::type_name::<D>(),
                dy.shape()
            )
        })?;
        let sensitivities = pullback(args, dy).into_sensitivities();
        // One per argument (`()` where one has none): a rule returning fewer left the others a
        // sensitivity of 0 it never claimed (a tester, 2026-11-28).
        if sensitivities.len() != site.len() {
            return Err(format!(
                "the rule returned {} sensitivities for a call of {} argument(s): return one \
                 per argument, as a tuple in argument order, `()` where one has none",
                sensitivities.len(),
                site.len()
            ));
        }
        for (i, s) in sensitivities.into_iter().enumerate() {
            if let Some(s) = s {
                if !fits(site, i, &s) {
                    return Err(format!(
                        "the rule's sensitivity of argument {} is a {}, which is not the \
                         argument's shape",
                        i + 1,
                        s.shape()
                    ));
                }
                out.push((i, Contribution::Whole(s)));
            }
        }
        Ok(())
    });
    table()
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key.id, erased);
    names()
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .push(key.name);
    ANY.store(true, Ordering::Release);
}

/// A type a rule can take an argument as.
pub trait FromArgument: Sized {
    /// Operand `i` of the call, if it is of this type.
    fn from_argument(site: &Site<'_>, i: usize) -> Option<Self>;
}

impl FromArgument for f64 {
    fn from_argument(site: &Site<'_>, i: usize) -> Option<f64> {
        site.scalar(i)
    }
}

impl FromArgument for f32 {
    fn from_argument(site: &Site<'_>, i: usize) -> Option<f32> {
        site.scalar(i).map(|v| v as f32)
    }
}

macro_rules! integer_argument {
    ($($t:ty),*) => {$(
        impl FromArgument for $t {
            fn from_argument(site: &Site<'_>, i: usize) -> Option<$t> {
                site.integer(i).and_then(|v| <$t>::try_from(v).ok())
            }
        }
    )*};
}
integer_argument!(i32, i64, u32, u64, usize, isize);

impl FromArgument for Vec<f64> {
    fn from_argument(site: &Site<'_>, i: usize) -> Option<Vec<f64>> {
        match site.primal(i)? {
            Primal::Vector(v) => Some(v.into_owned()),
            #[cfg(feature = "ndarray")]
            Primal::Array(a) if a.ndim() == 1 => Some(a.iter().copied().collect()),
            _ => None,
        }
    }
}

#[cfg(feature = "ndarray")]
impl<D: ndarray::Dimension> FromArgument for ndarray::Array<f64, D> {
    fn from_argument(site: &Site<'_>, i: usize) -> Option<Self> {
        match site.primal(i)? {
            Primal::Array(a) => a.into_owned().into_dimensionality().ok(),
            _ => None,
        }
    }
}

/// Whether sensitivity `s` has the shape of operand `i` of the call: a float's a float, a
/// vector's a vector of its length, an array's its shape (a rule's vector for a float
/// argument was dropped, and the argument given no gradient).
fn fits(site: &Site<'_>, i: usize, s: &Tangent) -> bool {
    match (site.primal(i), s) {
        (Some(Primal::Scalar(_)), Tangent::Scalar(_)) => true,
        (Some(Primal::Vector(v)), Tangent::Vector(t)) => v.len() == t.len(),
        #[cfg(feature = "ndarray")]
        (Some(Primal::Array(a)), Tangent::Array(t)) => a.shape() == t.shape(),
        #[cfg(feature = "ndarray")]
        (Some(Primal::Array(a)), Tangent::Vector(t)) => a.ndim() == 1 && a.len() == t.len(),
        #[cfg(feature = "ndarray")]
        (Some(Primal::Vector(v)), Tangent::Array(t)) => t.ndim() == 1 && t.len() == v.len(),
        // An operand of no float shape (a struct, a recorded text): what the sweep makes of a
        // sensitivity there is its own check.
        (None, _) => true,
        _ => false,
    }
}

/// The arguments of a call as a tuple a rule takes.
pub trait FromArguments: Sized {
    /// How many arguments the tuple has.
    const ARITY: usize;

    /// The call's operands, if they are of these types.
    fn from_arguments(site: &Site<'_>) -> Option<Self>;
}

macro_rules! from_arguments {
    ($(($($t:ident $i:tt),+)),* $(,)?) => {$(
        impl<$($t: FromArgument),+> FromArguments for ($($t,)+) {
            const ARITY: usize = [$($i),+].len();
            fn from_arguments(site: &Site<'_>) -> Option<Self> {
                Some(($($t::from_argument(site, $i)?,)+))
            }
        }
    )*};
}
from_arguments!(
    (A 0),
    (A 0, B 1),
    (A 0, B 1, C 2),
    (A 0, B 1, C 2, D 3),
    (A 0, B 1, C 2, D 3, E 4),
    (A 0, B 1, C 2, D 3, E 4, F 5),
);

/// A type a rule can take the sensitivity of the call's value as.
pub trait FromTangent: Sized {
    /// The sensitivity as this type, if it has this shape.
    fn from_tangent(t: &Tangent) -> Option<Self>;
}

impl FromTangent for f64 {
    fn from_tangent(t: &Tangent) -> Option<f64> {
        t.as_scalar()
    }
}

impl FromTangent for Vec<f64> {
    fn from_tangent(t: &Tangent) -> Option<Vec<f64>> {
        t.as_slice().map(<[f64]>::to_vec)
    }
}

impl FromTangent for Tangent {
    fn from_tangent(t: &Tangent) -> Option<Tangent> {
        Some(t.clone())
    }
}

#[cfg(feature = "ndarray")]
impl<D: ndarray::Dimension> FromTangent for ndarray::Array<f64, D> {
    fn from_tangent(t: &Tangent) -> Option<Self> {
        t.as_array()?.to_owned().into_dimensionality().ok()
    }
}

/// What a rule can return for one argument: its sensitivity, or `()` for none.
pub trait IntoSensitivity {
    /// The sensitivity, `None` when the argument has none.
    fn into_sensitivity(self) -> Option<Tangent>;
}

impl IntoSensitivity for f64 {
    fn into_sensitivity(self) -> Option<Tangent> {
        Some(Tangent::Scalar(self))
    }
}

impl IntoSensitivity for f32 {
    fn into_sensitivity(self) -> Option<Tangent> {
        Some(Tangent::Scalar(self as f64))
    }
}

impl IntoSensitivity for Vec<f64> {
    fn into_sensitivity(self) -> Option<Tangent> {
        Some(Tangent::Vector(self))
    }
}

impl IntoSensitivity for Tangent {
    fn into_sensitivity(self) -> Option<Tangent> {
        Some(self)
    }
}

impl IntoSensitivity for () {
    fn into_sensitivity(self) -> Option<Tangent> {
        None
    }
}

impl<T: IntoSensitivity> IntoSensitivity for Option<T> {
    fn into_sensitivity(self) -> Option<Tangent> {
        self.and_then(T::into_sensitivity)
    }
}

#[cfg(feature = "ndarray")]
impl<D: ndarray::Dimension> IntoSensitivity for ndarray::Array<f64, D> {
    fn into_sensitivity(self) -> Option<Tangent> {
        Some(Tangent::from(self))
    }
}

/// What a rule returns: the sensitivities of all arguments.
pub trait IntoSensitivities {
    /// The sensitivities in argument order.
    fn into_sensitivities(self) -> Vec<Option<Tangent>>;
}

impl IntoSensitivities for f64 {
    fn into_sensitivities(self) -> Vec<Option<Tangent>> {
        vec![self.into_sensitivity()]
    }
}

impl IntoSensitivities for Vec<f64> {
    fn into_sensitivities(self) -> Vec<Option<Tangent>> {
        vec![self.into_sensitivity()]
    }
}

macro_rules! into_sensitivities {
    ($(($($t:ident),+)),* $(,)?) => {$(
        impl<$($t: IntoSensitivity),+> IntoSensitivities for ($($t,)+) {
            #[allow(non_snake_case)]
            fn into_sensitivities(self) -> Vec<Option<Tangent>> {
                let ($($t,)+) = self;
                vec![$($t.into_sensitivity()),+]
            }
        }
    )*};
}
into_sensitivities!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F),
);
