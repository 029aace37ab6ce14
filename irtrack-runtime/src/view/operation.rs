//! Which operation a recorded node performed, by typed key, and running it again on new
//! operand values: the re-executable primitives that replay, incremental update and
//! derivative graphs stand on.
//!
//! A node is re-executable when the trace proves what it computed: an operator on scalars (the
//! orphan rule keeps users from overloading those), a cast, a float method whose receiver is a
//! float by value (or a reference to one, when re-running the float method on the recorded
//! operands gives the recorded value bit for bit), a float class test or bit cast under the
//! same condition (`x.is_nan()`, `x.to_bits()`), a float function called by path
//! (`f64::max`), `v[i]` of a vector of floats, `?`, `*x`, a binding, `vec![…]` of floats, and a
//! call of a function registered with [`register_operation`](crate::core::eval::register_operation).
//! Anything else says why not, and what to do.

use super::trace::NodeRef;
use crate::core::eval::{eval_array, eval_builtin, literal_as, registered, EvalError};
use crate::core::ids::{CalleeKey, NodeId};
use crate::core::ir::{EntryKind, Location, Operand};
use crate::core::literal;
use crate::core::op::{
    float_fn_of, float_query_of, ArrayOp, BinOp, Builtin, FloatFn, Receiver, ScalarType,
};
use crate::core::tape::{Callee, NodeKind};
use crate::core::value::Value;
use std::fmt;

/// What a re-executable node computes, by typed key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operation {
    /// An operation the runtime evaluates itself.
    Builtin(Builtin),
    /// An `ndarray` method on arrays of `f64` (with the `ndarray` feature).
    Array(ArrayOp),
    /// A function registered with
    /// [`register_operation`](crate::core::eval::register_operation), by its fn item.
    Registered(CalleeKey),
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operation::Builtin(b) => write!(f, "{b}"),
            Operation::Array(a) => write!(f, "{a:?}"),
            Operation::Registered(k) => f.write_str(k.name),
        }
    }
}

/// Why a node cannot be run again.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Reason {
    /// An argument, constant, branch, return or error: not an operation.
    NotAnOperation,
    /// A call of a `#[tracked]` function: its children are the operations (replay runs them),
    /// unless the function is also registered as an operation.
    NestedCall,
    /// A call of an untracked function or method that is not registered as an operation.
    Unregistered,
    /// A method call named like a std method (a float method, an array method) whose recorded
    /// value is not what that method gives on the recorded operands: a trait method found
    /// before it ran instead (or the receiver changed in place).
    UnprovenMethod,
    /// A float class test or bit cast (`x.is_nan()`, `x.to_bits()`) on a receiver of a type
    /// parameter's type (in generic code): a trait's method of that name may have run, and a
    /// `bool` agreeing with the std method's at the recorded point proves nothing.
    GenericQuery,
    /// The construct has no evaluation in the runtime (a struct literal, a macro, a field of a
    /// value kept as text, an operator on values that are not scalars).
    Unsupported(String),
    /// Re-run on its recorded operands, the operation does not give the recorded value: an
    /// operand changed after it was recorded (mutated in place through a reference or an
    /// index, which the trace does not show), so the recorded edge cannot be replayed.
    Stale,
    /// Running it failed: overflow, a type mismatch, a registered operation that panicked.
    Eval(EvalError),
    /// A registered operation whose recorded value is not what it computes on its recorded
    /// operands: a context's `Action::Replace` or an update's intervention gave the call
    /// another result, which running the operation again would lose.
    Replaced,
}

/// A node that cannot be re-executed (or failed when it was): which node, where, and what to
/// do.
#[derive(Clone, Debug, PartialEq)]
pub struct ReexecError {
    /// The node.
    pub node: NodeId,
    /// The function it is in (`None` for the root).
    pub function: Option<String>,
    /// Where in that function.
    pub location: Option<Location>,
    /// The node's head as written (`sin`, `+`, `softplus`).
    pub head: String,
    /// Why.
    pub reason: Reason,
}

impl fmt::Display for ReexecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.head)?;
        match (&self.function, self.location) {
            (Some(func), Some(loc)) => write!(f, " in `{func}` [{loc}]")?,
            (Some(func), None) => write!(f, " in `{func}`")?,
            _ => {}
        }
        write!(f, " ({}) ", self.node)?;
        match &self.reason {
            Reason::NotAnOperation => f.write_str("is not an operation"),
            Reason::NestedCall => f.write_str(
                "is a call of a tracked function: re-execute the nodes of its body, or register \
                 the function with `irtrack::register_operation`",
            ),
            Reason::Unregistered => f.write_str(
                "calls a function irtrack cannot run again: register it with \
                 `irtrack::register_operation(function)`, or make it `#[tracked]`; a method must \
                 be called by its path (`Type::method(x)`) to be registered",
            ),
            Reason::UnprovenMethod => f.write_str(
                "is a method call whose recorded value is not what the std method of that name \
                 gives: another method (a trait's) ran; make it `#[tracked]`, or call it by its \
                 path and register it with `irtrack::register_operation`",
            ),
            Reason::GenericQuery => f.write_str(
                "is a float class test or bit cast on a value of a generic type, which may be a \
                 trait's method of that name: irtrack cannot tell it from the std method by its \
                 answer; call it by its path (`T::is_nan(x)`) and register that function with \
                 `irtrack::register_operation(<f64 as Trait>::is_nan)`, or write it in code that \
                 is not generic",
            ),
            Reason::Stale => f.write_str(
                "does not give its recorded value when re-run on its recorded operands: an \
                 operand was changed in place after it was recorded (`v[i] = …`, `*r += …`), \
                 which the trace does not show; bind the new value to a fresh variable instead",
            ),
            Reason::Unsupported(what) => write!(f, "cannot be re-executed: {what}"),
            Reason::Replaced => f.write_str(
                "was given another result than its function computes (by a context's \
                 `Action::Replace` or an update's intervention), which running it again would \
                 lose: make the inputs it depends on static, or replay the trace recorded \
                 without the replacement",
            ),
            Reason::Eval(e) => write!(f, "failed when re-executed: {e}"),
        }
    }
}

impl std::error::Error for ReexecError {}

impl<'t> NodeRef<'t> {
    fn reexec_error(&self, reason: Reason) -> ReexecError {
        ReexecError {
            node: self.id(),
            function: self.ir().map(|ir| ir.name.clone()),
            location: self.location(),
            head: self.entry().map_or_else(
                || self.function_name().unwrap_or("?").to_string(),
                |e| e.head.clone(),
            ),
            reason,
        }
    }

    /// The operation the node performed, if it can be run again; else why not.
    ///
    /// A built-in operation is also checked on the recorded values: re-run on its recorded
    /// operands it must give the recorded value, else an operand changed after it was recorded
    /// (a mutation in place the trace does not show) and the node is [`Reason::Stale`].
    ///
    /// ```
    /// use irtrack::{track, tracked, view::operation::{Operation, Reason}, BinOp, Builtin};
    ///
    /// fn helper(x: f64) -> f64 { x + 1.0 }
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 {
    ///     let y = x * 2.0;
    ///     helper(y)
    /// }
    ///
    /// let trace = track(f, (1.5,));
    /// let root = trace.root();
    /// assert_eq!(root.child(2).unwrap().operation(), Ok(Operation::Builtin(Builtin::Binary(BinOp::Mul))));
    /// let e = root.child(3).unwrap().operation().unwrap_err();
    /// assert_eq!(e.reason, Reason::Unregistered);
    /// assert!(e.to_string().contains("register_operation"));
    /// ```
    pub fn operation(&self) -> Result<Operation, ReexecError> {
        let op = self.identify()?;
        if let Operation::Registered(key) = op {
            // A registered function computes what the recorded value says, unless a context or
            // an update's intervention gave the call another result (told where the values
            // can be compared: numbers, vectors of them; a distribution's cannot). A volatile
            // one (a checkpoint) acts on each run: it is not run to check it.
            let volatile = crate::core::eval::lookup(key.id).is_some_and(|r| r.volatile);
            if !volatile {
                let again = run_operation(op, &self.operand_values())
                    .map_err(|e| self.reexec_error(Reason::Eval(e)))?;
                if again.exact_eq(&self.raw_value()) == Some(false) {
                    return Err(self.reexec_error(Reason::Replaced));
                }
            }
        } else {
            let again = run_operation(op, &self.operand_values())
                .map_err(|e| self.reexec_error(Reason::Eval(e)))?;
            if !same_value(&again, &self.raw_value()) {
                // A method named like the std one that computes something else is another
                // method (a trait's, found first); any other mismatch is a stale operand.
                let method = self
                    .entry()
                    .is_some_and(|e| e.kind == EntryKind::MethodCall);
                return Err(self.reexec_error(if method {
                    Reason::UnprovenMethod
                } else {
                    Reason::Stale
                }));
            }
        }
        Ok(op)
    }

    /// The operation the node's entry and callee name, before the check on recorded values.
    fn identify(&self) -> Result<Operation, ReexecError> {
        let err = |r| Err(self.reexec_error(r));
        match self.kind() {
            NodeKind::NestedCall => {
                let callee = self.store().nested_callee(self.id());
                return match callee.and_then(|id| registered(id).map(|_| id)) {
                    Some(id) => Ok(Operation::Registered(CalleeKey {
                        id,
                        name: registered_name(id),
                    })),
                    None => err(Reason::NestedCall),
                };
            }
            NodeKind::PrimitiveCall | NodeKind::Special => {}
            _ => return err(Reason::NotAnOperation),
        }
        let (Some(entry), Some(ir)) = (self.entry(), self.ir()) else {
            // A primitive root: what was called is known only by its key.
            return match self.trace.store.callees.get(&self.id()) {
                Some(Callee::Item(k)) if registered(k.id).is_some() => {
                    Ok(Operation::Registered(*k))
                }
                _ => err(Reason::Unregistered),
            };
        };
        let builtin = ir.builtin(self.store().node(self.id()).entry as usize);
        let operands = self.operand_values();
        if let Some(op) = array_operation(entry.kind, &entry.head, builtin, &operands) {
            return Ok(op);
        }
        let scalars = || operands.iter().all(|v| v.scalar_type().is_some());
        let unsupported = |what: &str| err(Reason::Unsupported(what.to_string()));
        match (entry.kind, builtin) {
            (
                EntryKind::Operator,
                Some(
                    b @ (Builtin::Binary(_)
                    | Builtin::Assign(_)
                    | Builtin::Compare(_)
                    | Builtin::Unary(_)),
                ),
            ) => {
                if scalars() {
                    Ok(Operation::Builtin(b))
                } else {
                    unsupported("an operator on values that are not numbers, bools or chars")
                }
            }
            (EntryKind::MethodCall, Some(b @ (Builtin::Method(_) | Builtin::Query(_)))) => {
                let float_receiver = operands
                    .first()
                    .and_then(Value::scalar_type)
                    .is_some_and(ScalarType::is_float);
                match self.store().node(self.id()).receiver {
                    // An integer by value in code that is not generic (`k.max(n)`, `k.abs()`
                    // with `k: i32`): `abs`, `signum`, `rem_euclid`, `div_euclid` are the
                    // integer type's inherent methods, found before any trait's; `max`,
                    // `min`, `clamp` are `Ord`'s, which another trait's method of that name
                    // taking `self` would make ambiguous (a compile error). In generic code a
                    // bound's method may be found instead: refused, as before.
                    _ if !float_receiver
                        && self.integer_by_value(&operands)
                        && self.ir().is_some_and(|ir| !ir.is_generic())
                        && matches!(b, Builtin::Method(_))
                        && self.reaches(b, &operands) =>
                    {
                        Ok(Operation::Builtin(b))
                    }
                    _ if !float_receiver => err(Reason::Unregistered),
                    Receiver::Float => Ok(Operation::Builtin(b)),
                    // A literal receiver (`2.0f64.powi(n)`) is a float by value.
                    Receiver::Unknown if matches!(entry.operands[0], Operand::Const(_)) => {
                        Ok(Operation::Builtin(b))
                    }
                    // A method the recording ran near the point and found another than the
                    // float's (`Receiver::unless_float_method`): no witness makes it one.
                    Receiver::Other => err(Reason::UnprovenMethod),
                    // Another method's bool or integer agrees with the std one's by chance too
                    // often to witness which ran (`is_nan` of a user's trait on a generic `T`):
                    // a query is proven by the receiver's type only.
                    _ if matches!(b, Builtin::Method(_)) && self.reaches(b, &operands) => {
                        Ok(Operation::Builtin(b))
                    }
                    Receiver::FloatRef => err(Reason::UnprovenMethod),
                    Receiver::Generic if matches!(b, Builtin::Query(_)) => {
                        err(Reason::GenericQuery)
                    }
                    Receiver::Generic => err(Reason::UnprovenMethod),
                    _ => err(Reason::Unregistered),
                }
            }
            (EntryKind::MethodCall, Some(Builtin::Clone)) => {
                let same = operands.first().is_some_and(|a| {
                    a.same_scalar(&self.raw_value())
                        || a.floats().is_some() && a.floats() == self.raw_value().floats()
                });
                if same {
                    Ok(Operation::Builtin(Builtin::Clone))
                } else {
                    err(Reason::Unregistered)
                }
            }
            (EntryKind::Call, Some(Builtin::Index))
                if !self.trace.store.callees.contains_key(&self.id()) =>
            {
                let floats = operands
                    .first()
                    .is_some_and(|v| v.floats().is_some() || is_vector_array(v));
                if floats && self.raw_value().scalar_type() == Some(ScalarType::F64) {
                    Ok(Operation::Builtin(Builtin::Index))
                } else if floats {
                    unsupported(
                        "a range of a vector (`&x[a..b]`) is not re-executed, only an element \
                         at an integer index (`x[i]`): index the elements in a loop",
                    )
                } else {
                    unsupported("indexing is re-executed on vectors of `f64` only")
                }
            }
            (EntryKind::Call | EntryKind::MethodCall, _) => {
                match self.trace.store.callees.get(&self.id()) {
                    Some(Callee::Item(k)) => {
                        if let Some(f) = float_fn_of(k.id) {
                            return Ok(Operation::Builtin(Builtin::Method(f)));
                        }
                        if let Some(q) = float_query_of(k.id) {
                            return Ok(Operation::Builtin(Builtin::Query(q)));
                        }
                        // `f64::from(i)`: a conversion without loss, which `as` makes too.
                        if let Some(t) = crate::core::op::conversion_of(k.id) {
                            let cast = Builtin::Cast(t);
                            if operands.len() == 1 && scalars() && self.reaches(cast, &operands) {
                                return Ok(Operation::Builtin(cast));
                            }
                        }
                        if registered(k.id).is_some() {
                            return Ok(Operation::Registered(*k));
                        }
                        err(Reason::Unregistered)
                    }
                    _ => err(Reason::Unregistered),
                }
            }
            (EntryKind::Special, Some(b @ Builtin::Cast(_))) if scalars() => {
                Ok(Operation::Builtin(b))
            }
            (EntryKind::Special, Some(b @ (Builtin::Deref | Builtin::Bind | Builtin::Guard)))
                if operands.len() == 1 && scalars() =>
            {
                Ok(Operation::Builtin(b))
            }
            (EntryKind::Special, Some(Builtin::Question))
                if operands.len() == 1 && operands[0].wrapped().is_some() =>
            {
                Ok(Operation::Builtin(Builtin::Question))
            }
            (EntryKind::Special, Some(b @ (Builtin::VecOf | Builtin::ArrayOf)))
                if operands
                    .iter()
                    .all(|v| v.scalar_type() == Some(ScalarType::F64))
                    && self.raw_value().floats().is_some() =>
            {
                Ok(Operation::Builtin(b))
            }
            (EntryKind::Special, _) => unsupported(
                "struct and tuple literals, field accesses, ranges, macros and casts of values \
                 that are not scalars have no evaluation in the runtime",
            ),
            _ => err(Reason::NotAnOperation),
        }
    }

    /// Whether running the float method or query `op` on `operands` gives the recorded value, bit for
    /// bit: the witness that a call on a reference to a float reached the float method.
    /// Whether the method call's receiver is an integer held by value (not behind a
    /// reference, where a trait of the reference type could be found first).
    fn integer_by_value(&self, operands: &[Value]) -> bool {
        operands.first().is_some_and(|v| {
            v.is_scalar_by_value() && v.scalar_type().is_some_and(|t| t.is_integer())
        })
    }

    fn reaches(&self, op: Builtin, operands: &[Value]) -> bool {
        match eval_builtin(op, &by_value(operands)) {
            Ok(v) => v.same_scalar(&self.raw_value()),
            Err(_) => false,
        }
    }

    /// The values of the node's operands as recorded, in argument order (a method's receiver
    /// first): a recorded variable's value, or a literal read as the type the operation gives
    /// it (`2.0` in `x * 2.0` as `x`'s float type, the `2` of `powi(2)` as an `i32`).
    pub fn operand_values(&self) -> Vec<Value> {
        let Some(entry) = self.entry() else {
            return Vec::new();
        };
        let store = self.store();
        let recorded: Vec<Option<Value>> = entry
            .operands
            .iter()
            .enumerate()
            .map(|(k, op)| match op {
                Operand::Const(_) => None,
                _ => {
                    let r = store.ref_at(self.id(), k);
                    (!r.is_none()).then(|| store.value(r))
                }
            })
            .collect();
        let builtin = self
            .ir()
            .and_then(|ir| ir.builtin(store.node(self.id()).entry as usize));
        let output = self.raw_value().scalar_type();
        let sibling = |k: usize| {
            recorded
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != k)
                .find_map(|(_, v)| v.as_ref().and_then(Value::scalar_type))
        };
        entry
            .operands
            .iter()
            .enumerate()
            .map(|(k, op)| match (op, &recorded[k]) {
                (_, Some(v)) => v.clone(),
                (Operand::Const(text), None) => {
                    let like = match builtin {
                        Some(Builtin::Method(FloatFn::Powi)) if k == 1 => Some(ScalarType::I32),
                        Some(Builtin::Binary(b) | Builtin::Assign(b))
                            if k == 1 && matches!(b, BinOp::Shl | BinOp::Shr) =>
                        {
                            None
                        }
                        Some(Builtin::Binary(_) | Builtin::Assign(_) | Builtin::Method(_)) => {
                            sibling(k).or(output)
                        }
                        Some(Builtin::Compare(_)) => sibling(k),
                        Some(Builtin::Unary(_)) => output,
                        Some(Builtin::Index) => Some(ScalarType::Usize),
                        Some(Builtin::VecOf | Builtin::ArrayOf) => {
                            self.raw_value().floats().map(|_| ScalarType::F64)
                        }
                        // `f64::powi(x, 3)`: the exponent is an `i32`, the rest the output's type.
                        _ if entry.kind == EntryKind::Call => self
                            .trace
                            .store
                            .callees
                            .get(&self.id())
                            .and_then(|c| match c {
                                Callee::Item(key) => match float_fn_of(key.id) {
                                    Some(FloatFn::Powi) if k == 1 => Some(ScalarType::I32),
                                    Some(_) => output,
                                    None => None,
                                },
                                _ => None,
                            }),
                        _ => None,
                    };
                    like.and_then(|t| literal_as(text, t))
                        .unwrap_or_else(|| literal::value(text))
                }
                _ => Value::UNIT,
            })
            .collect()
    }

    /// Runs the node's operation again on `operands` (one value per operand, in the order of
    /// [`operand_values`](Self::operand_values)) and returns its result: what the node would
    /// have recorded had its operands had those values.
    ///
    /// ```
    /// use irtrack::{track, tracked, Value};
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 {
    ///     x.sin() * 2.0
    /// }
    ///
    /// let trace = track(f, (1.0,));
    /// let mul = trace.root().child(3).unwrap();
    /// assert_eq!(mul.reexecute(&mul.operand_values()).unwrap().as_f64(), mul.as_f64());
    /// let other = mul.reexecute(&[Value::snapshot(0.5f64), Value::snapshot(2.0f64)]).unwrap();
    /// assert_eq!(other.as_f64(), Some(1.0));
    /// ```
    pub fn reexecute(&self, operands: &[Value]) -> Result<Value, ReexecError> {
        let eval = |r: Result<Value, EvalError>| r.map_err(|e| self.reexec_error(Reason::Eval(e)));
        eval(run_operation(self.operation()?, operands))
    }
}

fn registered_name(id: std::any::TypeId) -> &'static str {
    crate::core::eval::registered_key(id).map_or("?", |k| k.name)
}

/// Runs `op` on `operands` (what [`NodeRef::reexecute`] does once the node's operation is
/// known).
pub(crate) fn run_operation(op: Operation, operands: &[Value]) -> Result<Value, EvalError> {
    match op {
        Operation::Builtin(Builtin::Index) => index(operands),
        Operation::Builtin(Builtin::Question) => question(operands),
        Operation::Builtin(b) => eval_builtin(b, &by_value(operands)),
        Operation::Array(a) => eval_array(a, operands),
        Operation::Registered(k) => match registered(k.id) {
            Some(f) => f(operands),
            None => Err(EvalError::Domain(format!("`{}` is not registered", k.name))),
        },
    }
}

/// Whether two values are the same: scalars and floats bit for bit, arrays by shape and bits.
fn same_value(a: &Value, b: &Value) -> bool {
    // Element by element, bit for bit, a NaN the same as a NaN (a vector made with a NaN
    // element, `vec![x.ln(), …]` at a negative `x`, gives a NaN again: not a stale operand).
    let same_floats = match (a.floats(), b.floats()) {
        (Some(x), Some(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|(&p, &q)| crate::core::value::same_f64(p, q))
        }
        _ => false,
    };
    if a.same_scalar(b) || same_floats {
        return true;
    }
    #[cfg(feature = "ndarray")]
    if crate::core::arrays::same_array(a, b) {
        return true;
    }
    false
}

/// The `ndarray` operation a node is, if its operands are arrays of floats.
fn array_operation(
    kind: EntryKind,
    head: &str,
    builtin: Option<Builtin>,
    operands: &[Value],
) -> Option<Operation> {
    #[cfg(feature = "ndarray")]
    {
        use crate::core::op::UnOp;
        let is_array = |v: &Value| crate::core::arrays::array_primal(v).is_some();
        if !operands.iter().any(is_array) {
            return None;
        }
        match (kind, builtin) {
            (
                EntryKind::Operator,
                Some(
                    b @ (Builtin::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div)
                    | Builtin::Assign(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div)
                    | Builtin::Unary(UnOp::Neg)),
                ),
            ) => return Some(Operation::Builtin(b)),
            (EntryKind::MethodCall, _) if is_array(&operands[0]) => {}
            _ => return None,
        }
        let op = match (head, builtin) {
            ("dot", _) => ArrayOp::Dot,
            ("t" | "reversed_axes", _) => ArrayOp::Transpose,
            ("sum", _) => ArrayOp::Sum,
            ("to_owned" | "clone" | "view" | "into_owned", _) => ArrayOp::Copy,
            ("powi", _) => ArrayOp::Powi,
            ("mapv" | "map", _) => ArrayOp::Map(operands.get(1)?.type_id().and_then(float_fn_of)?),
            (_, Some(Builtin::Method(f))) if f.arity() == 1 => ArrayOp::Map(f),
            _ => return None,
        };
        Some(Operation::Array(op))
    }
    #[cfg(not(feature = "ndarray"))]
    {
        let _ = (kind, head, builtin, operands);
        None
    }
}

fn by_value(operands: &[Value]) -> Vec<Value> {
    operands.iter().map(Value::by_value).collect()
}

/// Whether `v` is a one-dimensional `ndarray` array of floats (indexed as a vector is).
fn is_vector_array(v: &Value) -> bool {
    #[cfg(feature = "ndarray")]
    if let Some(a) = crate::core::arrays::array_primal(v) {
        return a.ndim() == 1;
    }
    let _ = v;
    false
}

fn index(operands: &[Value]) -> Result<Value, EvalError> {
    #[cfg(feature = "ndarray")]
    if let (Some(a), Some(i)) = (
        operands
            .first()
            .and_then(crate::core::arrays::array_primal)
            .filter(|a| a.ndim() == 1),
        operands.get(1).and_then(Value::as_i64),
    ) {
        return usize::try_from(i)
            .ok()
            .and_then(|i| a.get(ndarray::IxDyn(&[i])).copied())
            .map(|x| crate::core::value::Snapshot::snapshot(&x))
            .ok_or_else(|| {
                EvalError::Domain(format!("index {i} out of bounds of {} elements", a.len()))
            });
    }
    let (Some(v), Some(i)) = (
        operands.first().and_then(Value::floats),
        operands.get(1).and_then(Value::as_i64),
    ) else {
        return Err(EvalError::Type {
            operand: 0,
            expected: "a vector of floats and an index".into(),
            got: operands
                .first()
                .map_or("nothing".into(), |v| v.type_name().to_string()),
        });
    };
    usize::try_from(i)
        .ok()
        .and_then(|i| v.get(i).copied())
        .map(|x| crate::core::value::Snapshot::snapshot(&x))
        .ok_or_else(|| {
            EvalError::Domain(format!("index {i} out of bounds of {} elements", v.len()))
        })
}

fn question(operands: &[Value]) -> Result<Value, EvalError> {
    match operands.first().and_then(Value::wrapped) {
        Some(Some(inner)) => Ok(inner),
        Some(None) => Err(EvalError::Domain(
            "`?` of an `Err` or `None`: the function would return early here".into(),
        )),
        None => Err(EvalError::Type {
            operand: 0,
            expected: "an `Option` or `Result` with a snapshot".into(),
            got: operands
                .first()
                .map_or("nothing".into(), |v| v.type_name().to_string()),
        }),
    }
}
