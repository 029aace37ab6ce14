//! Building a program: one pass over the trace in recording order (which is execution order),
//! giving every node a source — a constant, a dynamic input, or an operation — then removing
//! the operations nothing uses.

use super::control::{Control, ControlKind};
use super::{Guard, InputSlot, Op, OpKind, Origin, Program, ReplayError, Src, Step};
use crate::core::ids::NodeId;
use crate::core::ir::{Entry, EntryKind, Operand};
use crate::core::op::{BinOp, Builtin, CmpOp, FloatFn};
use crate::core::tape::NodeKind;
use crate::core::trace::Trace;
use crate::core::value::Value;
use crate::view::operation::Operation;
use crate::view::trace::{Arg, NodeRef};
use std::collections::HashMap;
use std::sync::Arc;

/// How a root argument enters a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Fixed at the recorded value: everything computed from it alone is folded to its
    /// recorded value, and a call must pass the same value.
    Static,
    /// A value each call gives: everything computed from it is replayed.
    Dynamic,
}

struct Builder<'t> {
    trace: &'t Trace,
    /// The call the program replays: the trace's root, or a call inside it (the branch of a
    /// `switch`).
    root: NodeId,
    /// The arena index of `root`: `src` covers its subtree.
    base: usize,
    /// The source of each node of the subtree, by arena index from `base` (`None` until the
    /// node is seen, and for nodes without a value).
    src: Vec<Option<Src>>,
    steps: Vec<Step>,
    ops: Vec<Op>,
    guards: Vec<Guard>,
    any_dynamic: bool,
    /// The elements of each tuple placeholder (`OpKind::Tuple`), by operation.
    tuples: HashMap<usize, Vec<Src>>,
    /// The fields' names of the placeholders among those that are struct literals, in the
    /// order of their elements.
    fields: HashMap<usize, Vec<String>>,
    /// The placeholders that are `Some(x)` or `Ok(x)` of a dynamic `x` (their one element),
    /// with the variant.
    wrappers: HashMap<usize, Variant>,
    /// The length of each dynamic input's vector the path read (`v.len()`), and where.
    lengths: HashMap<usize, (usize, Origin)>,
    /// Iterators over a dynamic input's vector of floats: the input and its length.
    walks: HashMap<NodeId, Walk>,
    /// How many elements each walk gave so far: one cursor per iterator over an input, shared
    /// by the iterators made from it (`for x in it`, `for x in &mut it` advance `it`).
    cursors: Vec<usize>,
    /// What each `next` on such an iterator returned.
    elements: HashMap<NodeId, Element>,
    /// The cursors of walks an adaptor took (`v.iter().rev()`, `(&mut it).take(2)`): walking
    /// one on afterwards is refused (its cursor does not count what the adaptor gave).
    taken: std::collections::HashSet<usize>,
    /// Ranges with a constant start and a dynamic end (`0..n`), and the iterators made from
    /// them (`Builder::range_iteration`).
    ranges: HashMap<NodeId, RangeWalk>,
    /// What each `next` on such an iterator returned: its position in the range.
    range_elements: HashMap<NodeId, (usize, RangeWalk)>,
    /// The nodes a write into memory may have changed, with the first such write
    /// (`core::writes::written_in_place`).
    written: HashMap<NodeId, NodeId>,
    /// The writes among those that took a dynamic value (`println!("{}", acc.add(x))`): what
    /// they changed depends on the inputs, so a read of it is refused even where every operand
    /// of the read is constant.
    dynamic_writes: std::collections::HashSet<NodeId>,
    /// The writes of `written`, to look a node up among them.
    writes: std::collections::HashSet<NodeId>,
}

/// The variant of an `Option` or `Result` a program made from a dynamic value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Variant {
    Some,
    Ok,
}

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::Some => "Some",
            Variant::Ok => "Ok",
        }
    }

    /// Whether `pattern`, an arm before the one taken, can never match a `Some(x)` or `Ok(x)`:
    /// each of its alternatives is the other variant (`None`, `Err(…)`; `?` is lowered to a test
    /// of `Err(_) | None` on either type).
    fn other_variant(pattern: &str) -> bool {
        pattern.split('|').all(|alt| {
            let a = alt.trim();
            a == "None" || a.starts_with("Err(") && a.ends_with(')')
        })
    }

    /// Whether `pattern`, the arm taken, matches every value of this variant: `Some(v)` (or
    /// `Some(_)`, `Some(..)`, `Some(ref v)`, `Some(mut v)`) where `v` is in `names` (the names
    /// the arm bound: a name it did not bind is a constant, which tests the value), `_`, or a
    /// name bound to the whole.
    fn always_matches(self, pattern: &str, names: &[&str]) -> bool {
        let p = pattern.trim();
        if p == "_" || names.contains(&p) {
            return true;
        }
        let Some(inner) = p
            .strip_prefix(self.name())
            .and_then(|r| r.trim().strip_prefix('('))
            .and_then(|r| r.strip_suffix(')'))
        else {
            return false;
        };
        let inner = inner.trim();
        let name = inner
            .strip_prefix("ref ")
            .or_else(|| inner.strip_prefix("mut "))
            .unwrap_or(inner)
            .trim();
        matches!(inner, "_" | "..") || names.contains(&name)
    }
}

/// What a `next` on a walk returned: element `index` of the walk (`None` past its end).
#[derive(Clone, Copy)]
struct Element {
    walk: Walk,
    index: usize,
}

/// An iterator over a dynamic input's vector of `f64` (through adaptors: `rev`, `skip`, `take`,
/// `step_by`, `copied`, `cloned`, `enumerate`, a `zip` with another such vector): the node that
/// made it, which `grad::iter` reads the adaptors from, how many items it yields, and the
/// cursor (`Builder::cursors`) counting what it gave.
#[derive(Clone, Copy)]
struct Walk {
    node: NodeId,
    len: usize,
    cursor: usize,
    /// Made by a `for` loop's own `into_iter`: its `next`s are the loop's.
    for_loop: bool,
}

/// An iteration over a range with a dynamic end (`for i in 0..n`): how many elements the
/// recorded range had, and how many its iterators gave so far (in `Builder::cursors`).
#[derive(Clone, Copy)]
struct RangeWalk {
    len: usize,
    cursor: usize,
    /// Made by a `for` loop's own `into_iter`: its `next`s are the loop's.
    for_loop: bool,
}

/// Whether the node calls an operation every replay must run (a checkpoint).
fn is_volatile(n: NodeRef<'_>) -> bool {
    match n.trace().store.callees.get(&n.id()) {
        Some(crate::core::tape::Callee::Item(k)) => {
            crate::core::eval::lookup(k.id).is_some_and(|r| r.volatile)
        }
        _ => false,
    }
}

/// Where `n` is `v.len()` or `v.is_empty()` of the vector of floats of dynamic input `k`
/// (`args` are its operands' sources): `k` and the vector's length.
fn length_read(n: NodeRef<'_>, args: &[Src]) -> Option<(usize, usize)> {
    let entry = n.entry()?;
    if entry.kind != EntryKind::MethodCall || n.kind() != NodeKind::PrimitiveCall {
        return None;
    }
    let [Src::Input(k)] = args else {
        return None;
    };
    // A vector or a slice, whose inherent `len` method resolution finds before any trait's
    // taking it by reference; not an array, which has none (a trait's `len` on `[f64; 3]` is
    // found before the slice's).
    let receiver = n.operand_values().into_iter().next()?;
    if is_array(&receiver) {
        return None;
    }
    let len = receiver.floats()?.len();
    let value = n.raw_value();
    let read = match entry.head.as_str() {
        "len" => value.as_i64() == i64::try_from(len).ok(),
        "is_empty" => value.by_value().downcast_ref::<bool>() == Some(&(len == 0)),
        _ => false,
    };
    read.then_some((*k, len))
}

/// Whether `v` is a vector or slice of `f64` (not of `f32`, whose elements a program's index
/// would read as `f64`s), by its value.
fn holds_f64s(v: &Value) -> bool {
    v.by_value().downcast_ref::<Vec<f64>>().is_some()
}

/// Whether `v` is a fixed-size array (`[f64; 3]`, `&[f64; 3]`), by its type.
fn is_array(v: &Value) -> bool {
    let name = super::run::referent(v.type_name());
    name.starts_with('[') && name.contains(';')
}

impl Builder<'_> {
    /// For a binding of a tuple's part (`let (a, b) = t`, `FnIr::bind_path`) or a read of one
    /// (`t.1`, `(t.0).1`) where `t` is a tuple literal of this trace, the operand that made
    /// that part (through nested literals); for a binding, borrow or clone of the whole tuple,
    /// the tuple; `None` otherwise.
    fn tuple_part(&self, n: NodeRef<'_>, args: &[Src]) -> Option<Src> {
        if n.kind() != NodeKind::Special {
            return None;
        }
        let ir = n.ir()?;
        let index = n.trace().store.node(n.id()).entry as usize;
        let mut part = args.first()?.clone();
        let path = match ir.builtin(index)? {
            Builtin::Bind => ir.bind_path(index),
            Builtin::Field => Some(ir.entries.get(index)?.head.strip_prefix('.')?),
            Builtin::Deref | Builtin::Clone => None,
            _ => return None,
        };
        // The whole tuple bound, borrowed or cloned (`let t = (x, y)`): the same tuple. (A
        // binding with no path may also be in a part the lowering could not name, `let (..,
        // a) = t`: the witness below tells.)
        if let Some(path) = path {
            for step in path.split('.') {
                let Src::Op(op) = part else { return None };
                // A position of a tuple, or a field of a struct literal by its name.
                let k = match step.parse::<usize>() {
                    Ok(k) if !self.fields.contains_key(&op) => k,
                    _ => self.fields.get(&op)?.iter().position(|f| f == step)?,
                };
                part = self.tuples.get(&op)?.get(k)?.clone();
            }
        } else if !matches!(part, Src::Op(op) if self.tuples.contains_key(&op)) {
            return None;
        }
        // A witness: the part holds what the node recorded (`a` of `let (.., a) = (x, (y,
        // z))` is `(y, z)`, not the tuple; it read `x` for `a.0`, a tester, 2026-11-28).
        self.holds(&part, &n.raw_value()).then_some(part)
    }

    /// Whether the source `s` recorded `value`, exactly: the witness that a read of a part
    /// (of a tuple, a struct, `Some(x)`) gave what that part's source made.
    fn holds(&self, s: &Src, value: &Value) -> bool {
        let recorded = match s {
            Src::Op(k) => self.ops.get(*k).map(|op| op.recorded.clone()),
            Src::Const(v) => Some(v.clone()),
            Src::Input(k) => match self
                .trace
                .node(self.root)
                .and_then(|r| r.arguments().get(*k).copied())
            {
                Some(Arg::Node(a)) => Some(a.raw_value()),
                _ => None,
            },
        };
        recorded.is_some_and(|r| r.by_value().exact_eq(&value.by_value()) == Some(true))
    }
}

impl Builder<'_> {
    /// `x.sin_cos()`: `x.sin()` and `x.cos()`, each an operation of its own with the part it
    /// recorded, and the pair as a tuple of them, which the reads of its parts take apart
    /// (`let (s, c) = x.sin_cos()`): what runs, differentiates and compiles are the two float
    /// methods.
    fn sin_cos(&mut self, n: NodeRef<'_>, args: Vec<Src>, parts: (Value, Value)) {
        let pair: Vec<Src> = [(FloatFn::Sin, parts.0), (FloatFn::Cos, parts.1)]
            .into_iter()
            .map(|(f, recorded)| {
                let op = Operation::Builtin(Builtin::Method(f));
                self.push_plain(n, op, args.clone(), recorded)
            })
            .collect();
        let whole = unsupported(
            n,
            "is the pair `sin_cos` gives, used whole: a program runs its parts; bind them \
             (`let (s, c) = x.sin_cos()`) or read them (`t.0`) where the pair is made",
        );
        self.tuples.insert(self.ops.len(), pair.clone());
        self.push_op(n, OpKind::Tuple(Box::new(whole)), pair);
    }
}

impl Builder<'_> {
    /// `Some(x)` and `Ok(x)` of a dynamic `x` (a placeholder holding `x`, which a use of the
    /// whole refuses), and what reads them: `?`, `unwrap`, `expect`, `unwrap_or…` (the
    /// content), `is_some`, `is_ok` (true). The variant is the path's: the branch that made it
    /// is guarded where it depends on a dynamic input. `true` where `n` was one of these.
    fn wrapping(&mut self, n: NodeRef<'_>, args: &[Src]) -> Result<bool, ReplayError> {
        let Some(entry) = n.entry() else {
            return Ok(false);
        };
        let wrapper = |b: &Self| match args.first() {
            Some(Src::Op(k)) => b.wrappers.get(k).map(|&v| (v, b.tuples[k][0].clone())),
            _ => None,
        };
        // A constructor, proven by its value: the operand wrapped, bit for bit.
        let head = entry.head.rsplit("::").next().unwrap_or("");
        if entry.kind == EntryKind::Call
            && args.len() == 1
            && args[0].is_dynamic()
            && matches!(head, "Some" | "Ok")
        {
            let variant = if head == "Some" {
                Variant::Some
            } else {
                Variant::Ok
            };
            let wrapped = n.raw_value().wrapped();
            let content = n.operand_values().into_iter().next();
            let holds = match (wrapped, content) {
                (Some(Some(inner)), Some(x)) => inner.exact_eq(&x.by_value()) == Some(true),
                _ => false,
            };
            if !holds {
                return Ok(false);
            }
            let k = self.ops.len();
            self.tuples.insert(k, args.to_vec());
            self.wrappers.insert(k, variant);
            let why = format!(
                "is `{}(…)` of a value that depends on a dynamic input, used whole (returned, or \
                 passed to code irtrack does not see): a program reads its content (`match`, \
                 `if let`, `?`, `unwrap`)",
                variant.name()
            );
            self.placeholder(n, args, why);
            return Ok(true);
        }
        // `o.unwrap_or(d)` of an `o` that is `None` whatever the inputs (a constant of the
        // path) and a dynamic default: the default, checked against what the call gave.
        if entry.kind == EntryKind::MethodCall
            && entry.head == "unwrap_or"
            && args.len() == 2
            && args[1].is_dynamic()
        {
            let none = match &args[0] {
                Src::Const(v) => v.wrapped().is_some_and(|w| w.is_none()),
                _ => false,
            };
            let default = n.operand_values().get(1).map(Value::by_value);
            if none && default.is_some_and(|d| d.exact_eq(&n.raw_value().by_value()) == Some(true))
            {
                self.set(n.id(), args[1].clone());
                return Ok(true);
            }
        }
        let Some((variant, content)) = wrapper(self) else {
            return Ok(false);
        };
        let recorded = n.raw_value();
        let reads_content = match (entry.kind, builtin_of(n)) {
            // `?`, and a pattern's binding of the content (`Some(v)`): the witness below tells
            // it from a binding of the whole (`w @ Some(_)`).
            (EntryKind::Special, Some(Builtin::Question)) => true,
            (EntryKind::Special, Some(Builtin::Bind)) => n.ir().is_some_and(|ir| {
                ir.bind_path(n.store().node(n.id()).entry as usize)
                    .is_none()
            }),
            (EntryKind::MethodCall, _) => match entry.head.as_str() {
                "unwrap" | "expect" | "unwrap_or" | "unwrap_or_default" | "unwrap_or_else" => true,
                "is_some" | "is_ok" | "is_none" | "is_err" => {
                    let answer = matches!(entry.head.as_str(), "is_some" | "is_ok");
                    let fits = matches!(
                        (variant, entry.head.as_str()),
                        (Variant::Some, "is_some" | "is_none") | (Variant::Ok, "is_ok" | "is_err")
                    );
                    if !fits || recorded.by_value().downcast_ref::<bool>() != Some(&answer) {
                        return Ok(false);
                    }
                    self.set(n.id(), Src::Const(recorded));
                    return Ok(true);
                }
                _ => false,
            },
            _ => false,
        };
        if !reads_content {
            return Ok(false);
        }
        // The witness: what the read gave is the content, as recorded.
        if !self.holds(&content, &recorded) {
            return Ok(false);
        }
        self.set(n.id(), content);
        Ok(true)
    }

    /// Whether the branch `n`, a pattern's test of `Some(x)` or `Ok(x)` the program made
    /// (`Builder::wrapping`), is decided by the variant, which the path fixed: the arms tested
    /// before it can match only the other variant (`None`, `Err(…)`), and the one taken, if it
    /// is, matches every value of this one (`Some(v)` binding `v`, `Some(_)`, `_`).
    fn decided_by_variant(&self, n: NodeRef<'_>, scrutinee: &Src) -> bool {
        let Src::Op(k) = scrutinee else {
            return false;
        };
        let Some(&variant) = self.wrappers.get(k) else {
            return false;
        };
        let (Some(entry), Some(ir)) = (n.entry(), n.parent().and_then(|p| p.callee_ir())) else {
            return false;
        };
        let taken = entry.kind == EntryKind::JumpIfMatches;
        let tested = if taken {
            &entry.condition
        } else {
            &entry.control
        };
        for e in &ir.entries {
            if e.location.block != entry.location.block {
                continue;
            }
            if e.location == entry.location {
                break;
            }
            match e.kind {
                EntryKind::JumpIfMatches
                    if &e.condition == tested && Variant::other_variant(&e.head) => {}
                EntryKind::Jump | EntryKind::JumpUnless | EntryKind::JumpIfMatches => return false,
                _ => {}
            }
        }
        if !taken {
            return true;
        }
        // The names the taken arm binds: the `bind` entries of its block from the scrutinee.
        let binds: Vec<&str> = (ir.entries.iter().enumerate())
            .filter(|&(i, e)| {
                e.location.block == entry.target
                    && ir.builtin(i) == Some(Builtin::Bind)
                    && e.operands.first() == Some(&entry.condition)
            })
            .map(|(_, e)| e.head.trim_start_matches("bind ").trim())
            .collect();
        variant.always_matches(&entry.head, &binds)
    }
}

/// The parts of the pair `x.sin_cos()` recorded at `n`, when `n` is that call on a float
/// receiver (its type, or a literal) and the pair is the float method's of the recorded `x`
/// (`core::op::sin_cos_parts`).
fn sin_cos_parts(n: NodeRef<'_>) -> Option<(Value, Value)> {
    use crate::core::op::Receiver;
    let entry = n.entry()?;
    if n.kind() != NodeKind::PrimitiveCall {
        return None;
    }
    match entry.kind {
        // By method syntax, on a float receiver (its type, or a literal).
        EntryKind::MethodCall if builtin_of(n) == Some(Builtin::SinCos) => {
            match n.store().node(n.id()).receiver {
                Receiver::Float | Receiver::FloatRef => {}
                Receiver::Unknown if matches!(entry.operands.first(), Some(Operand::Const(_))) => {}
                _ => return None,
            }
        }
        // By its path (`f64::sin_cos(x)`), by the fn item's key.
        EntryKind::Call => match n.store().callees.get(&n.id()) {
            Some(crate::core::tape::Callee::Item(k)) if crate::core::op::is_sin_cos_path(k.id) => {}
            _ => return None,
        },
        _ => return None,
    }
    let x = n.operand_values().first()?.by_value().as_f64()?;
    crate::core::op::sin_cos_parts(x, &n.raw_value())
}

/// Whether `v` is a `Range` (`a..b`, not `a..=b`) of one of the integer types, by its type.
fn is_integer_range(v: &Value) -> bool {
    macro_rules! any_of {
        ($($t:ty),*) => { false $(|| v.downcast_ref::<std::ops::Range<$t>>().is_some())* };
    }
    any_of!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize)
}

/// The refusal of a walk on an iterator after an adaptor took it (`(&mut it).take(2)`, then
/// `for x in it`).
fn taken(n: NodeRef<'_>) -> ReplayError {
    unsupported(
        n,
        "walks an iterator of a dynamic input's vector on after an adaptor took it by reference \
         (`(&mut it).take(2)` then `for x in it`): the program cannot tell where the adaptor \
         left it; loop over the indices (`for i in 2..v.len()`)",
    )
}

/// The node operand `k` of `n` refers to, if it is one.
fn operand_node(n: NodeRef<'_>, k: usize) -> Option<NodeId> {
    match n.arguments().get(k) {
        Some(Arg::Node(m)) => Some(m.id()),
        _ => None,
    }
}

fn builtin_of(n: NodeRef<'_>) -> Option<Builtin> {
    n.ir()?.builtin(n.trace().store.node(n.id()).entry as usize)
}

/// Where a node is, for an error: its function's name (empty when the node has none, as an
/// imported primitive root), location, and position among its siblings (0 for the root).
pub(crate) fn origin(n: NodeRef<'_>) -> Origin {
    Origin {
        node: n.id(),
        function: n
            .ir()
            .map(|ir| ir.name.clone())
            .or_else(|| n.function_name().map(str::to_string))
            .unwrap_or_default(),
        location: n.location(),
        position: n.position().unwrap_or(0),
    }
}

fn unsupported(n: NodeRef<'_>, reason: impl Into<String>) -> ReplayError {
    ReplayError::Unsupported {
        at: origin(n),
        reason: reason.into(),
    }
}

/// Whether two recorded values are the same value, so that an edge through which a value
/// passed unchanged can be trusted: bit for bit where irtrack can compare them
/// (`Value::exact_eq`), else by their text. The text is no proof (a user's `Debug` can print
/// two values alike), but this check only backs up the others: a value that depends on a
/// dynamic input cannot be changed in place without a write or an `&mut` call, which a
/// program refuses on their own.
fn same(a: &Value, b: &Value) -> bool {
    match a.exact_eq(b) {
        Some(same) => same,
        None => !a.is_opaque() && !b.is_opaque() && a.to_string() == b.to_string(),
    }
}

impl<'t> Builder<'t> {
    fn src_of(&self, id: NodeId) -> Src {
        let known = id
            .index()
            .checked_sub(self.base)
            .and_then(|i| self.src.get(i).cloned().flatten());
        known.unwrap_or_else(|| {
            Src::Const(self.trace.node(id).map_or(Value::UNIT, |n| n.raw_value()))
        })
    }

    /// Whether `id` has been given a source that depends on a dynamic input.
    fn is_dynamic(&self, id: NodeId) -> bool {
        id.index()
            .checked_sub(self.base)
            .and_then(|i| self.src.get(i))
            .is_some_and(|s| s.as_ref().is_some_and(Src::is_dynamic))
    }

    /// The operation behind `s`, when it is one.
    fn op_of(&self, s: &Src) -> Option<&Op> {
        match s {
            Src::Op(k) => self.ops.get(*k),
            _ => None,
        }
    }

    /// Whether `s` is the result of a `while_loop`, which a program only ever gives as `Ok`.
    fn is_loop(&self, s: &Src) -> bool {
        self.op_of(s)
            .is_some_and(|op| matches!(&op.kind, OpKind::Control(c) if c.is_loop()))
    }

    /// The source of a value that passed unchanged from `from` to `at` (a return, a block or
    /// call argument): `from`'s, after checking the recorded values agree — when `from` was
    /// changed in place after it was recorded, the edge is stale.
    fn through(&self, from: NodeRef<'_>, at: NodeRef<'_>) -> Result<Src, ReplayError> {
        let s = self.src_of(from.id());
        if !s.is_dynamic() {
            return Ok(Src::Const(at.raw_value()));
        }
        // A closure passed on (also on from an argument that held it: a closure written as a
        // call's argument is recorded by a marker, not by its type): its value is no number to
        // compare, and it is used only by the calls that follow its captures.
        let closure = from.store().makes_closure(from.id())
            || self
                .op_of(&s)
                .is_some_and(|op| from.store().makes_closure(op.origin.node));
        if !closure && !same(&from.raw_value(), &at.raw_value()) {
            return Err(unsupported(
                at,
                format!(
                    "the value it passes on is not the one recorded at {} (@{}): it was changed \
                     in place in between (`v[i] = …`, `*r += …`, a `&mut` call), which the \
                     trace does not show; bind new values to fresh variables",
                    origin(from),
                    from.position().unwrap_or(0)
                ),
            ));
        }
        Ok(s)
    }

    /// Refuses an operation that reads a value a write into memory changed after it was
    /// recorded (`w[0] = 10.0` before `w[i]`), where the value is dynamic or beside a dynamic
    /// operand, or the write took a dynamic value: the program would run it on the value from
    /// before the write. (Where every operand and the write are constant, the node's own
    /// recorded value is kept, which saw the write.)
    fn check_fresh(&mut self, n: NodeRef<'_>, args: &[Src]) -> Result<(), ReplayError> {
        if self.written.is_empty() {
            return Ok(());
        }
        let mixed = args.iter().any(Src::is_dynamic);
        if mixed && self.writes.contains(&n.id()) {
            self.dynamic_writes.insert(n.id());
        }
        for (a, s) in n.arguments().iter().zip(args) {
            let Arg::Node(m) = a else { continue };
            let Some(&write) = self.written.get(&m.id()) else {
                continue;
            };
            // A dynamic value written over would be read from the call's argument, not from
            // what the write left; a constant one only matters beside a dynamic operand.
            let dynamic_write = self.dynamic_writes.contains(&write);
            if !(s.is_dynamic() || mixed || dynamic_write) || write.get() >= n.id().get() {
                continue;
            }
            // Named by position where the node has one (the root's children and a call's
            // do), else by its place alone: no made-up `@0`.
            let at_position = |r: NodeRef<'_>| {
                r.position()
                    .map_or_else(String::new, |p| format!(" (@{p})"))
            };
            let at = self.trace.node(write).map_or_else(String::new, |w| {
                format!(" at {}{}", origin(w), at_position(w))
            });
            return Err(unsupported(
                n,
                format!(
                    "reads {}{} after a write into memory changed it in place{at} (`w[0] = …`, \
                     `*r += …`, a `&mut` call): the trace keeps its value from before the write, \
                     which the program would read at new inputs; bind new values to fresh \
                     variables (`let w2 = …`) instead of writing into them",
                    origin(*m),
                    at_position(*m)
                ),
            ));
        }
        Ok(())
    }

    /// The sources of a node's operands, in order (literals as constants of their type).
    fn operands(&self, n: NodeRef<'_>) -> Vec<Src> {
        let values = n.operand_values();
        n.arguments()
            .into_iter()
            .take(values.len())
            .zip(values)
            .map(|(a, v)| match a {
                Arg::Node(m) => self.src_of(m.id()),
                Arg::Const(_) => Src::Const(v),
            })
            .collect()
    }

    fn set(&mut self, id: NodeId, s: Src) {
        if let Some(slot) = id
            .index()
            .checked_sub(self.base)
            .and_then(|i| self.src.get_mut(i))
        {
            *slot = Some(s);
        }
    }

    fn push_op(&mut self, n: NodeRef<'_>, kind: OpKind, args: Vec<Src>) {
        let k = self.ops.len();
        self.ops.push(Op {
            kind,
            args,
            origin: origin(n),
            recorded: n.raw_value(),
            derived: false,
        });
        self.steps.push(Step::Op(k));
        self.set(n.id(), Src::Op(k));
    }

    /// A primitive call, a special, or a registered nested call.
    fn operation(&mut self, n: NodeRef<'_>) -> Result<(), ReplayError> {
        // The node that made a closure holds the closure, not a value computed from its
        // operands (the captured variables, which its uses link to): nothing runs it.
        if n.store().makes_closure(n.id()) {
            // A closure that captured a dynamic input: its calls that were recorded follow
            // the captures (`Store::capture_source`), but code irtrack does not see that is
            // handed it (`Some(1.0).map(f)`) may call it: whatever uses the value itself fails.
            if self.operands(n).iter().any(Src::is_dynamic) {
                let e = unsupported(
                    n,
                    "is a closure that captured a dynamic input, handed to code irtrack does not \
                     see (or kept): the program cannot tell what that code computes with it; \
                     call the closure from tracked code, or pass the input as an argument",
                );
                let args = self.operands(n);
                let k = self.ops.len();
                self.tuples.insert(k, args.clone());
                self.push_op(n, OpKind::Tuple(Box::new(e)), args);
            } else {
                self.set(n.id(), Src::Const(n.raw_value()));
            }
            return Ok(());
        }
        // A call of a closure or function held in a variable that ran untracked (through
        // `&F`, `&dyn Fn`): it may read anything its callee captured.
        if self.any_dynamic && n.store().holds_callee(n.id()) {
            return Err(unsupported(
                n,
                "calls a closure or function held in a variable that ran untracked (passed as \
                 `&F` or `&dyn Fn`): it may read a dynamic input it captured; pass the closure \
                 by value (`F`) to the tracked function, or the input as an argument",
            ));
        }
        let args = self.operands(n);
        if self.vector_iteration(n, &args)? || self.range_iteration(n, &args) {
            return Ok(());
        }
        self.check_fresh(n, &args)?;
        // A part of a tuple the trace built (`let (a, b) = (v[0], v[1])`, `t.1`): the operand
        // that made it. Nothing runs: the tuple itself is no value a program computes with
        // (while only its parts are read, it is dead).
        if let Some(part) = self.tuple_part(n, &args) {
            self.set(n.id(), part);
            return Ok(());
        }
        if self.wrapping(n, &args)? {
            return Ok(());
        }
        // A tuple a program cannot build, used by anything but a `switch`, a part's read or
        // a tuple around it: its own error.
        let nested = n.kind() == NodeKind::Special && builtin_of(n) == Some(Builtin::Tuple);
        let tuple = args
            .iter()
            .find_map(|a| match self.op_of(a).map(|o| &o.kind) {
                Some(OpKind::Tuple(e)) if !nested => Some(e),
                _ => None,
            });
        if let Some(e) = tuple {
            return Err((**e).clone());
        }
        if is_volatile(n) {
            let operation = n.operation().map_err(ReplayError::NotReexecutable)?;
            self.push_op(n, OpKind::Run(operation), args);
            return Ok(());
        }
        // An operand the trace did not record — a closure (`map(|k| x)`), which may capture a
        // dynamic input, or a place it does not follow — may make the value depend on a dynamic
        // input no source shows: folding it into a constant would replay the recorded value at
        // every input (the gradient's sweep counts such an operand as active, too).
        // A guard of `&&` and `||` names the conditions it combined that ran: while each
        // keeps its recorded value, the guard does (the same operands run, in the same order),
        // so each is a guard of the program and the guard's own value a constant.
        if n.entry().is_some_and(Entry::combines_conditions) {
            for arg in n.arguments().iter().skip(1) {
                let Arg::Node(c) = arg else { continue };
                let condition = self.src_of(c.id());
                if !condition.is_dynamic() {
                    continue;
                }
                let Some(&expected) = c.value::<bool>() else {
                    return Err(unsupported(n, "a guard's condition that is not a `bool`"));
                };
                self.push_guard(condition, expected, *c, n);
            }
            self.set(n.id(), Src::Const(n.raw_value()));
            return Ok(());
        }
        if self.any_dynamic
            && n.entry().is_some_and(Entry::takes_unrecorded)
            && builtin_of(n) == Some(Builtin::Guard)
        {
            return Err(unsupported(
                n,
                "is a `match` guard with control flow of its own (`&&`, `||`, an `if`), whose \
                 value is no node: the program cannot check it on new inputs; compute \
                 the condition before the `match` (`let ok = a && b;`) and write `if ok`",
            ));
        }
        // A special reading a value the trace did not record (`*r` of a closure's captured
        // reference): it may be a dynamic input's.
        let special_unrecorded = n.kind() == NodeKind::Special
            && n.entry()
                .is_some_and(|e| e.operands.contains(&Operand::None))
            && !n.raw_value().is_unit()
            && builtin_of(n) != Some(Builtin::Macro);
        if self.any_dynamic && special_unrecorded {
            return Err(unsupported(
                n,
                "reads a value the trace did not record (in a closure, through a captured \
                 reference): it may depend on a dynamic input; capture the value itself, or \
                 pass it as an argument",
            ));
        }
        let blind_write = n
            .entry()
            .is_some_and(|e| e.writes_place() && e.takes_unrecorded());
        if self.any_dynamic && blind_write {
            return Err(unsupported(
                n,
                "writes into a variable the trace does not link (a closure's captured \
                 variable): what it changed is not known, and a later read would replay \
                 the value from before; return the new value from the closure instead",
            ));
        }
        if self.any_dynamic && n.entry().is_some_and(Entry::takes_unrecorded) {
            return Err(unsupported(
                n,
                "takes a closure (or another value the trace did not record), which may capture \
                 a dynamic input: the program cannot tell whether its value changes with the \
                 inputs; write the computation as a loop in the tracked function, or pass what \
                 the closure uses as an argument of a registered operation",
            ));
        }
        if !args.iter().any(Src::is_dynamic) {
            if super::reads_state(n.store(), n.id()) {
                return Err(unsupported(
                    n,
                    "reads state: a method called on a `static` or `thread_local!` with \
                     interior mutability (`SCALE.get()`, `COUNT.load(..)`), whose value may \
                     change between runs, so the program cannot fix it at the recorded one; \
                     pass the state in as an argument",
                ));
            }
            self.set(n.id(), Src::Const(n.raw_value()));
            return Ok(());
        }
        let value = n.raw_value();
        if value.is_unit() {
            let macro_call = n.kind() == NodeKind::Special && builtin_of(n) == Some(Builtin::Macro);
            let head = n.entry().map_or("", |e| e.head.as_str());
            if macro_call && crate::core::op::macro_only_reads(head) {
                // `println!`, `assert!`: a macro's effects are not replayed.
                self.set(n.id(), Src::Const(value));
                return Ok(());
            }
            if macro_call {
                return Err(unsupported(
                    n,
                    "is a macro that mentions a value depending on a dynamic input and may \
                     assign what it mentions (`add_to!(a, x)`), which the trace does not show: \
                     write it as a function returning the new value (`a = add(a, x)`)",
                ));
            }
            return Err(unsupported(
                n,
                "writes a value that depends on a dynamic input into memory (`v[i] = x`, \
                 `v.push(x)`, `*r = x`), which the trace keeps no new version of: build a new \
                 value instead (`let w = …`)",
            ));
        }
        let builtin = if n.kind() == NodeKind::Special {
            builtin_of(n)
        } else {
            None
        };
        // `?` on a `while_loop`: its recorded operand may be kept as text, but the program's
        // loop gives an `Ok` snapshot, which `?` reads.
        if builtin == Some(Builtin::Question) && args.len() == 1 && self.is_loop(&args[0]) {
            self.push_op(n, OpKind::Run(Operation::Builtin(Builtin::Question)), args);
            return Ok(());
        }
        // `v.len()` (or `v.is_empty()`) of a dynamic input's vector of floats: the recorded
        // value, which each call checks the input against (a failed guard where it differs):
        // the path took its loops' bounds from it (`for i in 0..v.len()`).
        if let Some((k, len)) = length_read(n, &args) {
            self.lengths.entry(k).or_insert((len, origin(n)));
            self.set(n.id(), Src::Const(n.raw_value()));
            return Ok(());
        }
        if let Some(parts) = sin_cos_parts(n) {
            self.sin_cos(n, args, parts);
            return Ok(());
        }
        let operation = match n.operation() {
            Ok(o) => o,
            Err(e) if matches!(builtin, Some(Builtin::Tuple | Builtin::Struct)) => {
                let k = self.ops.len();
                if builtin == Some(Builtin::Struct) {
                    // Its fields' names, in operand order; a `..base` operand after them is
                    // not named, and a field it gave is not found (refused where read).
                    let names = n.ir().and_then(|ir| {
                        ir.struct_fields(n.store().node(n.id()).entry as usize)
                            .map(|f| f.map(str::to_string).collect())
                    });
                    let Some(names) = names else {
                        return Err(ReplayError::NotReexecutable(e));
                    };
                    self.fields.insert(k, names);
                }
                self.tuples.insert(k, args.clone());
                let e = match builtin {
                    Some(Builtin::Struct) => unsupported(
                        n,
                        "is a struct literal used whole (written into, passed to code irtrack \
                         does not see, or returned): a program takes apart only the fields read \
                         from it (`p.x`, also in tracked methods); build a new struct instead of \
                         writing into one",
                    ),
                    _ => ReplayError::NotReexecutable(e),
                };
                self.push_op(n, OpKind::Tuple(Box::new(e)), args);
                return Ok(());
            }
            Err(e) => return Err(ReplayError::NotReexecutable(e)),
        };
        self.push_op(n, OpKind::Run(operation), args);
        // A condition nothing refers to decided a branch the trace does not link to it (a
        // `match` arm's guard `Some(v) if v > x`): the path is right only while it holds.
        if let Some(&expected) = n.value::<bool>() {
            if n.is_unreferenced() {
                self.push_guard(Src::Op(self.ops.len() - 1), expected, n, n);
            }
        }
        Ok(())
    }

    fn argument(&mut self, n: NodeRef<'_>, inputs: &[Input]) -> Result<(), ReplayError> {
        let parent = n.parent().expect("an argument is inside a call");
        let block = n.location().map_or(1, |l| l.block);
        if block > 1 {
            let (jump, k) = n
                .block_argument_of()
                .ok_or_else(|| unsupported(n, "a block argument without its jump"))?;
            let s = match jump.arguments().get(k - 1) {
                // A block argument copying a value a write changed is written too
                // (`core::writes`): what reads it beside a dynamic input is refused there
                // (`check_fresh`); a counter a macro bumps in a loop folds as before.
                Some(Arg::Node(m)) => self.through(*m, n)?,
                _ => Src::Const(n.raw_value()),
            };
            self.set(n.id(), s);
            return Ok(());
        }
        let k = n.position().unwrap_or(1) - 1;
        if parent.id() == self.root {
            let s = match inputs.get(k) {
                Some(Input::Dynamic) => {
                    self.any_dynamic = true;
                    Src::Input(k)
                }
                _ => Src::Const(n.raw_value()),
            };
            self.set(n.id(), s);
            return Ok(());
        }
        let s = match parent.arguments().get(k) {
            Some(Arg::Node(m)) => self.through(*m, n)?,
            _ => Src::Const(n.raw_value()),
        };
        self.set(n.id(), s);
        Ok(())
    }

    fn jump(&mut self, n: NodeRef<'_>) -> Result<(), ReplayError> {
        let Some(c) = n.control() else {
            return Ok(());
        };
        // A `for` loop's (or an `if let`'s) test of what `next` gave on a dynamic vector: it
        // is decided by the element's index against the vector's length, which each call
        // checks (`Builder::vector_iteration`).
        if self.elements.contains_key(&c.id()) {
            if self.decided_by_length(n, c) {
                return Ok(());
            }
            return Err(unsupported(
                n,
                "a pattern on what `next` gave, outside a `for` loop, that tests the element's \
                 value (`Some(&1.0)`) or names it (`Some(x)`: a name may be a constant, which \
                 tests the value, and the program cannot tell): loop with `for x in …`, or test \
                 `Some(_)` and read the element by index",
            ));
        }
        // A `for` loop's test of what `next` gave on a range with a dynamic end: decided by
        // the element's position against the range's length, which each call checks.
        if let Some((_, walk)) = self.range_elements.get(&c.id()) {
            if walk.for_loop {
                return Ok(());
            }
            return Err(unsupported(
                n,
                "a pattern on what `next` gave on a range with a dynamic end, outside a `for` \
                 loop: loop with `for i in a..n`",
            ));
        }
        let condition = self.src_of(c.id());
        if !condition.is_dynamic() {
            return Ok(());
        }
        let kind = n.entry().map(|e| e.kind);
        if kind == Some(EntryKind::Jump) && self.is_loop(&condition) && falls_through_question(n) {
            // A program's `while_loop` gives only `Ok` (it fails instead of giving `Err`), so
            // the `?` after it falls through as it did when recorded.
            return Ok(());
        }
        if self.decided_by_variant(n, &condition) {
            return Ok(());
        }
        // A pattern's test is not a recorded value (and a `match` arm's guard is not the
        // branch's condition), so the path a new value takes cannot be checked.
        let fell_through_a_pattern =
            n.entry().is_some_and(|e| !e.control.is_none()) && c.value::<bool>().is_none();
        if (kind == Some(EntryKind::JumpIfMatches) || fell_through_a_pattern)
            && self.pattern_guards(n, c, &condition)?
        {
            return Ok(());
        }
        if kind == Some(EntryKind::JumpIfMatches) || fell_through_a_pattern {
            return Err(unsupported(
                n,
                "a `match`, `if let` or `while let` on a value that depends on a dynamic \
                 input: a pattern's test cannot be replayed yet; mark the input static, or \
                 decide with `if` on comparisons (or `irtrack::switch`)",
            ));
        }
        let Some(&expected) = c.value::<bool>() else {
            return Err(unsupported(
                n,
                "a branch on a condition that is not a `bool`",
            ));
        };
        self.push_guard(condition, expected, c, n);
        Ok(())
    }

    /// Whether the jump `n`, on `c`, what `next` gave, is decided by the position alone: the
    /// pattern of a `for` loop (irrefutable, so every name in it binds), or one without a name
    /// (`Some(_)`, `_`) — a name's spelling does not tell a binding from a constant (`Some(&one)`
    /// with a `const one` tests the value, and the trace records it as bound all the same; even
    /// `None` may be a local constant's name) — or the fall-through after such patterns. A
    /// taken `None` is one where `next` was past the end (else it was a constant's).
    fn decided_by_length(&self, n: NodeRef<'_>, c: NodeRef<'_>) -> bool {
        if self.elements.get(&c.id()).is_some_and(|e| e.walk.for_loop) {
            return true;
        }
        let (Some(ir), Some(entry)) = (n.ir(), n.entry()) else {
            return false;
        };
        let nameless = |p: &str| matches!(p.trim(), "_" | "Some(_)");
        if entry.kind == EntryKind::JumpIfMatches {
            let past_the_end = self
                .elements
                .get(&c.id())
                .is_some_and(|e| e.index >= e.walk.len);
            return nameless(&entry.head) || (entry.head.trim() == "None" && past_the_end);
        }
        let (Some(var), crate::core::ir::Slot::Branch(k)) =
            (entry.control.var(), entry.location.slot)
        else {
            return false;
        };
        let tests: Vec<&crate::core::ir::Entry> = (1..k)
            .filter_map(|j| ir.branch_index(entry.location.block, j))
            .map(|i| &ir.entries[i as usize])
            .filter(|e| e.kind == EntryKind::JumpIfMatches && e.condition.var() == Some(var))
            .collect();
        !tests.is_empty() && tests.iter().all(|e| nameless(&e.head))
    }

    /// A placeholder for `n` (an iterator, what `next` gave): building fails with `why` where
    /// anything uses it.
    fn placeholder(&mut self, n: NodeRef<'_>, args: &[Src], why: String) {
        let e = unsupported(n, why);
        self.push_op(n, OpKind::Tuple(Box::new(e)), args.to_vec());
    }

    /// Iteration over a range with a constant start and a dynamic end (`for i in 0..n`): the
    /// path is told by the range's length, which each call checks (a guard that the end is
    /// the recorded one, or, for an empty range, not past the start), so the `k`-th `next`
    /// gives the recorded `start + k`, a constant where the loop binds it. The range, its
    /// iterators and the `next`s are placeholders, so that any other use of them fails to
    /// build, naming it. `true` where `n` was one of these.
    fn range_iteration(&mut self, n: NodeRef<'_>, args: &[Src]) -> bool {
        let Some(entry) = n.entry() else {
            return false;
        };
        let operand_node = |k: usize| operand_node(n, k);
        let placeholder = |b: &mut Self, what: &str| {
            let why = format!(
                "{what} with a dynamic end, used otherwise than by a `for` loop binding its \
                 elements: loop with `for i in a..n`"
            );
            b.placeholder(n, args, why);
        };
        if n.kind() == NodeKind::Special && builtin_of(n) == Some(Builtin::Range) {
            let (Some(start), Some(end)) = (args.first(), args.get(1)) else {
                return false;
            };
            // `a..n` only (`a..=n` counts otherwise), of an integer type.
            if start.is_dynamic() || !end.is_dynamic() || !is_integer_range(&n.raw_value()) {
                return false;
            }
            let recorded_end = match n.arguments().get(1) {
                Some(Arg::Node(m)) => m.raw_value(),
                _ => return false,
            };
            let (Src::Const(first), Some(b)) = (start, recorded_end.as_i128()) else {
                return false;
            };
            let Some(a) = first.as_i128() else {
                return false;
            };
            let Ok(len) = usize::try_from((b - a).max(0)) else {
                return false;
            };
            // The end the path needs: the recorded one, or any not past the start (of the
            // end's type: an unsuffixed literal start is recorded as an `i32`).
            let (op, bound) = match len {
                0 => {
                    let Some(ty) = recorded_end.scalar_type() else {
                        return false;
                    };
                    let cast = crate::core::eval::eval_builtin(
                        Builtin::Cast(ty),
                        std::slice::from_ref(first),
                    );
                    let Ok(start) = cast else {
                        return false;
                    };
                    (CmpOp::Le, Src::Const(start))
                }
                _ => (CmpOp::Eq, Src::Const(recorded_end)),
            };
            self.guard_comparison(n, op, end.clone(), bound);
            self.cursors.push(0);
            let walk = RangeWalk {
                len,
                cursor: self.cursors.len() - 1,
                for_loop: false,
            };
            self.ranges.insert(n.id(), walk);
            placeholder(self, "a range");
            return true;
        }
        if n.kind() != NodeKind::PrimitiveCall {
            return false;
        }
        let Some(walk) = operand_node(0).and_then(|m| self.ranges.get(&m).copied()) else {
            return false;
        };
        let call = match entry.kind {
            EntryKind::MethodCall => true,
            EntryKind::Call => std_walk_call(n),
            _ => false,
        };
        match entry.head.rsplit("::").next().unwrap_or("") {
            "into_iter" if call => {
                let walk = RangeWalk {
                    for_loop: entry.kind == EntryKind::Call
                        && !n.store().callees.contains_key(&n.id()),
                    ..walk
                };
                self.ranges.insert(n.id(), walk);
                placeholder(self, "an iterator of a range");
                true
            }
            "next" if call => {
                let i = self.cursors[walk.cursor];
                self.cursors[walk.cursor] = (i + 1).min(walk.len);
                self.range_elements.insert(n.id(), (i, walk));
                placeholder(self, "an element read by `next` of a range");
                true
            }
            _ => false,
        }
    }

    /// Iteration over a dynamic input's vector of floats (`for x in &v`, `for &x in v.iter()`,
    /// `v.iter().sum()`): the iterator and each `next` are no values a program computes, but
    /// the path they took is told by the vector's length, which each call checks (as for
    /// `v.len()`): the `k`-th `next` gives element `k`, read by an index where the loop binds
    /// it, and `sum` is the sum of the elements in order. The iterator and the `next`s are
    /// placeholders, so that any other use of them fails to build, naming it. `true` where `n`
    /// was one of these.
    fn vector_iteration(&mut self, n: NodeRef<'_>, args: &[Src]) -> Result<bool, ReplayError> {
        let Some(entry) = n.entry() else {
            return Ok(false);
        };
        let operand_node = |k: usize| operand_node(n, k);
        let placeholder = |b: &mut Self, what: &str| {
            let why = format!(
                "{what} of a dynamic input's vector, used otherwise than by a `for` loop \
                 binding its elements or by `sum`: bind the elements in a `for` loop, or loop \
                 over the indices (`for i in 0..v.len()`)"
            );
            b.placeholder(n, args, why);
        };
        // A `for` loop's `into_iter` is a path call (`IntoIterator::into_iter(&v)`): one of the
        // std's by its key, not a function of the same name (`fn into_iter(v: &Vec<f64>)`).
        let call = n.kind() == NodeKind::PrimitiveCall
            && match entry.kind {
                EntryKind::MethodCall => true,
                EntryKind::Call => std_walk_call(n),
                _ => false,
            };
        match entry.head.rsplit("::").next().unwrap_or("") {
            "iter" | "into_iter" if call => {
                let walk = match (args.first(), operand_node(0)) {
                    (Some(Src::Input(k)), _) => {
                        // Of `f64`s only: the program's index reads them as they are.
                        let len = n
                            .operand_values()
                            .first()
                            .filter(|v| !is_array(v) && holds_f64s(v))
                            .and_then(|v| v.floats().map(|f| f.len()));
                        let Some(len) = len else {
                            return Ok(false);
                        };
                        self.cursors.push(0);
                        self.lengths.entry(*k).or_insert((len, origin(n)));
                        Walk {
                            node: n.id(),
                            len,
                            cursor: self.cursors.len() - 1,
                            for_loop: false,
                        }
                    }
                    // An iterator of an iterator (the `into_iter` a `for` loop adds, `&mut
                    // it`) walks on from where that one is: the same cursor.
                    (_, Some(m)) => match self.walk_at(n, Some(m))? {
                        Some(w) => w,
                        None => return Ok(false),
                    },
                    _ => return Ok(false),
                };
                // The `for` loop's own `into_iter`, which `#[tracked]` writes unannounced.
                let walk = Walk {
                    for_loop: entry.kind == EntryKind::Call
                        && !n.store().callees.contains_key(&n.id()),
                    ..walk
                };
                self.walks.insert(n.id(), walk);
                placeholder(self, "an iterator");
                Ok(true)
            }
            // An adaptor of such an iterator not yet walked (`v.iter().rev()`, `.enumerate()`,
            // `.zip(&w)` with `w` another dynamic input's vector or its iterator): an iterator
            // of its own, whose items `grad::iter` reads through the adaptors.
            head @ ("rev" | "skip" | "take" | "step_by" | "copied" | "cloned" | "enumerate"
            | "zip")
                if n.kind() == NodeKind::PrimitiveCall && entry.kind == EntryKind::MethodCall =>
            {
                let fresh = |b: &Self, m: Option<NodeId>| {
                    m.and_then(|m| b.walks.get(&m).copied())
                        .filter(|w| b.cursors[w.cursor] == 0 && !b.taken.contains(&w.cursor))
                };
                let Some(inner) = fresh(self, operand_node(0)) else {
                    return Ok(false);
                };
                let other = fresh(self, operand_node(1));
                // A count that depends on a dynamic input (`take(n)`): the path's items are the
                // recorded count's, which each call checks (it was kept unchecked: `take(n)`
                // replayed the recorded `n`; an audit, 2026-11-28).
                if matches!(head, "take" | "skip" | "step_by") {
                    if let Some(count) = args.get(1).filter(|c| c.is_dynamic()) {
                        let Some(recorded) = n.operand_values().get(1).map(Value::by_value) else {
                            return Ok(false);
                        };
                        self.guard_comparison(n, CmpOp::Eq, count.clone(), Src::Const(recorded));
                    }
                }
                // The walks it takes are the adaptor's now: one walked on afterwards (through
                // `&mut it`) would start where its own cursor is, not after what the adaptor gave.
                self.taken.insert(inner.cursor);
                if let (true, Some(w)) = (head == "zip", other) {
                    self.taken.insert(w.cursor);
                }
                if head == "zip" && other.is_none() {
                    // `zip(&w)`: the other vector itself, a dynamic input's of `f64`s.
                    let len = n
                        .operand_values()
                        .get(1)
                        .filter(|v| !is_array(v) && holds_f64s(v))
                        .and_then(|v| v.floats().map(|f| f.len()));
                    match (args.get(1), len) {
                        (Some(Src::Input(j)), Some(len)) => {
                            self.lengths.entry(*j).or_insert((len, origin(n)));
                        }
                        _ => return Ok(false),
                    }
                }
                let Some(len) = crate::core::walks::items(n.store(), n.id()) else {
                    return Ok(false);
                };
                self.cursors.push(0);
                let walk = Walk {
                    node: n.id(),
                    len,
                    cursor: self.cursors.len() - 1,
                    for_loop: false,
                };
                self.walks.insert(n.id(), walk);
                placeholder(self, "an iterator");
                Ok(true)
            }
            "next" if call => {
                let Some(walk) = self.walk_at(n, operand_node(0))? else {
                    return Ok(false);
                };
                let i = self.cursors[walk.cursor];
                self.cursors[walk.cursor] = (i + 1).min(walk.len);
                self.elements.insert(n.id(), Element { walk, index: i });
                placeholder(self, "an element read by `next`");
                Ok(true)
            }
            "sum" if call => {
                let Some(walk) = self.walk_at(n, operand_node(0))? else {
                    return Ok(false);
                };
                let recorded = n.raw_value().by_value();
                let Some(y) = recorded.as_f64() else {
                    return Ok(false);
                };
                // What is left of the walk: from its cursor to the end, which it consumes, each
                // an element of one dynamic input's vector (not a pair).
                let from = self.cursors[walk.cursor].min(walk.len);
                let mut read = Vec::with_capacity(walk.len - from);
                for p in from..walk.len {
                    let item = crate::core::walks::walked_element(n.store(), walk.node, p);
                    let Some((input, index)) = item.and_then(|(v, i)| match self.src_of(v) {
                        Src::Input(k) => Some((k, i)),
                        _ => None,
                    }) else {
                        return Ok(false);
                    };
                    let Some(e) = self
                        .input_floats(n, input)
                        .and_then(|e| e.get(index).copied())
                    else {
                        return Ok(false);
                    };
                    read.push((input, index, e));
                }
                self.cursors[walk.cursor] = walk.len;
                let rest: Vec<f64> = read.iter().map(|r| r.2).collect();
                // `f64`'s `Sum` folds from -0.0 (from 0.0 before Rust 1.81): the start that gives
                // the recorded value.
                let fold = |start: f64| rest.iter().fold(start, |a, b| a + b);
                let start = if fold(-0.0).to_bits() == y.to_bits() {
                    -0.0
                } else if fold(0.0).to_bits() == y.to_bits() {
                    0.0
                } else {
                    return Err(unsupported(
                        n,
                        "a `sum` of a vector's elements that is not their sum in order from 0 \
                         (another `Sum` than `f64`'s): sum them in a `for` loop",
                    ));
                };
                let mut acc = Src::Const(Value::snapshot(start));
                for &(input, index, e) in &read {
                    let element = self.push_plain(
                        n,
                        Operation::Builtin(Builtin::Index),
                        vec![Src::Input(input), Src::Const(Value::snapshot(index))],
                        Value::snapshot(e),
                    );
                    acc = self.push_plain(
                        n,
                        Operation::Builtin(Builtin::Binary(BinOp::Add)),
                        vec![acc, element],
                        Value::snapshot(0.0f64),
                    );
                }
                match acc {
                    Src::Op(j) => {
                        self.ops[j].recorded = n.raw_value();
                        self.set(n.id(), Src::Op(j));
                    }
                    other => self.set(n.id(), other),
                }
                Ok(true)
            }
            _ if n.kind() == NodeKind::Special
                && builtin_of(n) == Some(Builtin::Bind)
                && operand_node(0).is_some_and(|m| self.range_elements.contains_key(&m)) =>
            {
                // The element itself: the recorded `start + k`, which the range's guard keeps.
                let (i, walk) = operand_node(0)
                    .and_then(|m| self.range_elements.get(&m).copied())
                    .expect("checked above");
                if i >= walk.len || n.raw_value().as_i128().is_none() {
                    return Err(unsupported(
                        n,
                        "binds a part of what `next` gave on a range with a dynamic end that is \
                         not the element itself",
                    ));
                }
                self.set(n.id(), Src::Const(n.raw_value()));
                Ok(true)
            }
            _ if n.kind() == NodeKind::Special && builtin_of(n) == Some(Builtin::Bind) => {
                let Some((next, &Element { index: i, .. })) =
                    operand_node(0).and_then(|m| self.elements.get(&m).map(|e| (m, e)))
                else {
                    return Ok(false);
                };
                let not_the_element = || {
                    unsupported(
                        n,
                        "binds a part of an element of a dynamic vector's iterator that is not \
                         the element itself (or, of a `zip` or `enumerate`, one of its parts)",
                    )
                };
                let bound = n.raw_value().by_value();
                match crate::core::walks::bound_item(n.store(), n.id(), next, i) {
                    // `enumerate`'s count: the position, which the lengths' guards keep.
                    Some(crate::core::walks::Item::Position(k)) => {
                        if bound.as_i128() != i128::try_from(k).ok() {
                            return Err(not_the_element());
                        }
                        self.set(n.id(), Src::Const(n.raw_value()));
                    }
                    Some(crate::core::walks::Item::Element { vector, index, .. }) => {
                        let Src::Input(k) = self.src_of(vector) else {
                            return Err(not_the_element());
                        };
                        // The element itself (`Some(x)`, `Some(&x)`, a part of a pair), checked
                        // against the vector's.
                        let element = self.input_floats(n, k).and_then(|e| e.get(index).copied());
                        match (bound.as_f64(), element) {
                            (Some(b), Some(e)) if b.to_bits() == e.to_bits() => {}
                            _ => return Err(not_the_element()),
                        }
                        let index = Src::Const(Value::snapshot(index));
                        self.push_op(
                            n,
                            OpKind::Run(Operation::Builtin(Builtin::Index)),
                            vec![Src::Input(k), index],
                        );
                    }
                    None => return Err(not_the_element()),
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// The walk the iterator node `m` is, if it is one; refused where an adaptor took it
    /// before (`(&mut it).take(2)`, then `for x in it`).
    fn walk_at(&self, n: NodeRef<'_>, m: Option<NodeId>) -> Result<Option<Walk>, ReplayError> {
        match m.and_then(|m| self.walks.get(&m).copied()) {
            Some(w) if self.taken.contains(&w.cursor) => Err(taken(n)),
            w => Ok(w),
        }
    }

    /// The recorded elements of dynamic input `k`'s vector of floats.
    fn input_floats(&self, n: NodeRef<'_>, k: usize) -> Option<Vec<f64>> {
        let root = n.trace().node(self.root)?;
        match root.arguments().get(k)? {
            Arg::Node(a) => a.raw_value().floats().map(|f| f.to_vec()),
            Arg::Const(_) => None,
        }
    }

    /// An operation of node `n`'s making that is not `n` itself (a part of `sum`), recorded as
    /// `value`.
    fn push_plain(&mut self, n: NodeRef<'_>, op: Operation, args: Vec<Src>, value: Value) -> Src {
        let k = self.ops.len();
        self.ops.push(Op {
            kind: OpKind::Run(op),
            args,
            origin: origin(n),
            recorded: value,
            derived: false,
        });
        self.steps.push(Step::Op(k));
        Src::Op(k)
    }

    /// A guard at `n` that `a op b` holds on every call, as it did when recorded (a length, a
    /// count the path was taken with).
    fn guard_comparison(&mut self, n: NodeRef<'_>, op: CmpOp, a: Src, b: Src) {
        let operation = Operation::Builtin(Builtin::Compare(op));
        let holds = self.push_plain(n, operation, vec![a, b], Value::snapshot(true));
        self.push_guard(holds, true, n, n);
    }

    /// Guards for the arm a `match` took at branch `n` on the value of `scrutinee` (node `c`),
    /// an integer, a `char` or a `bool`: its pattern matches (for a pattern branch taken) and
    /// none of the patterns tested before it in its block does ([`super::patterns`]). `false`
    /// where a pattern is not one of those read there, or an earlier arm has a guard (whether
    /// it was tested depends on its pattern): the caller refuses the branch.
    fn pattern_guards(
        &mut self,
        n: NodeRef<'_>,
        c: NodeRef<'_>,
        scrutinee: &Src,
    ) -> Result<bool, ReplayError> {
        use super::patterns::{alternatives, Alt};
        use crate::core::op::{CmpOp, ScalarType};
        let value = c.raw_value();
        let ty = match value.scalar_type() {
            Some(ScalarType::F64 | ScalarType::F32) | None => return Ok(false),
            Some(t) => t,
        };
        let (Some(entry), Some(ir)) = (n.entry(), n.parent().and_then(|p| p.callee_ir())) else {
            return Ok(false);
        };
        let taken = entry.kind == EntryKind::JumpIfMatches;
        let tested = if taken {
            &entry.condition
        } else {
            &entry.control
        };
        // The arms tested before this branch, each with the names it binds; then this one's.
        let mut arms: Vec<(&str, bool, Vec<&str>)> = Vec::new();
        let (mut binds, mut guarded) = (Vec::new(), false);
        for (i, e) in ir.entries.iter().enumerate() {
            if e.location.block != entry.location.block {
                continue;
            }
            if e.location == entry.location {
                break;
            }
            match e.kind {
                EntryKind::JumpIfMatches if !guarded && &e.condition == tested => {
                    arms.push((e.head.as_str(), false, std::mem::take(&mut binds)));
                }
                EntryKind::Jump | EntryKind::JumpUnless | EntryKind::JumpIfMatches => {
                    return Ok(false)
                }
                _ => match ir.builtin(i) {
                    Some(Builtin::Bind) => binds.push(e.head.trim_start_matches("bind ").trim()),
                    Some(Builtin::Guard) => guarded = true,
                    _ => {}
                },
            }
        }
        if taken {
            arms.push((entry.head.as_str(), true, binds));
        }
        let recorded = [value.clone()];
        let mut tests = Vec::new();
        for (pattern, expected, names) in arms {
            let Some(alts) = alternatives(pattern) else {
                return Ok(false);
            };
            let every = alts
                .iter()
                .any(|a| matches!(a, Alt::Any) || matches!(a, Alt::Name(x) if names.contains(x)));
            if alts
                .iter()
                .any(|a| matches!(a, Alt::Name(x) if !names.contains(x)))
            {
                return Ok(false);
            }
            match (every, expected) {
                (true, true) => continue,
                (true, false) => return Ok(false),
                _ => tests.push((alts, expected)),
            }
        }
        // The comparisons, built only once every pattern is read.
        for (alts, expected) in tests {
            let mut any: Option<(Src, Value)> = None;
            for alt in alts {
                let mut all: Option<(Src, Value)> = None;
                let parts: Vec<(CmpOp, &str)> = match alt {
                    Alt::Literal(l) => vec![(CmpOp::Eq, l)],
                    Alt::Range { lo, hi, inclusive } => lo
                        .map(|l| (CmpOp::Ge, l))
                        .into_iter()
                        .chain(hi.map(|h| (if inclusive { CmpOp::Le } else { CmpOp::Lt }, h)))
                        .collect(),
                    Alt::Any | Alt::Name(_) => unreachable!("matched above"),
                };
                for (op, text) in parts {
                    let Some(bound) = crate::core::eval::literal_as(text, ty) else {
                        return Ok(false);
                    };
                    let operation = Operation::Builtin(Builtin::Compare(op));
                    let v = crate::view::operation::run_operation(
                        operation,
                        &[recorded[0].clone(), bound.clone()],
                    )
                    .map_err(|_| unsupported(n, "a pattern's bound of another type"))?;
                    let s = self.push_plain(
                        n,
                        operation,
                        vec![scrutinee.clone(), Src::Const(bound)],
                        v.clone(),
                    );
                    all = Some(match all {
                        None => (s, v),
                        Some(prev) => self.join(n, BinOp::BitAnd, prev, (s, v))?,
                    });
                }
                let Some(this) = all else { continue };
                any = Some(match any {
                    None => this,
                    Some(prev) => self.join(n, BinOp::BitOr, prev, this)?,
                });
            }
            if let Some((s, _)) = any {
                self.push_guard(s, expected, c, n);
            }
        }
        Ok(true)
    }

    /// `a op b` of two recorded `bool`s, as an operation of node `n`'s making.
    fn join(
        &mut self,
        n: NodeRef<'_>,
        op: BinOp,
        a: (Src, Value),
        b: (Src, Value),
    ) -> Result<(Src, Value), ReplayError> {
        let operation = Operation::Builtin(Builtin::Binary(op));
        let v = crate::view::operation::run_operation(operation, &[a.1, b.1])
            .map_err(|e| unsupported(n, format!("a pattern's test: {e}")))?;
        let s = self.push_plain(n, operation, vec![a.0, b.0], v.clone());
        Ok((s, v))
    }

    /// A step checking that `condition` (the value of node `at`) is `expected`, for the path
    /// through `n`. The condition's position names it in the error a failed check gives
    /// (`@k`; the branch, where it has none: `program::guard_condition`).
    fn push_guard(&mut self, condition: Src, expected: bool, at: NodeRef<'_>, n: NodeRef<'_>) {
        let g = self.guards.len();
        self.guards.push(Guard {
            condition,
            expected,
            condition_at: at.position(),
            origin: origin(n),
        });
        self.steps.push(Step::Guard(g));
    }
}

impl Program {
    /// Builds the program of the path `trace` took, with each root argument static or
    /// dynamic as `inputs` says (one per argument).
    ///
    /// # Errors
    /// [`ReplayError::Arity`] when `inputs` does not have one entry per root argument;
    /// [`ReplayError::NotReexecutable`] or [`ReplayError::Unsupported`] naming the first node
    /// that depends on a dynamic input and cannot be replayed, and what to do about it.
    pub fn from_trace(trace: &Trace, inputs: &[Input]) -> Result<Program, ReplayError> {
        Program::from_call(trace, trace.root(), inputs)
    }

    /// Builds the program of the call `root` of `trace` (the root, or a nested call whose
    /// arguments are then the inputs).
    pub(crate) fn from_call(
        trace: &Trace,
        root: NodeRef<'_>,
        inputs: &[Input],
    ) -> Result<Program, ReplayError> {
        if root.kind() != NodeKind::NestedCall {
            return Err(unsupported(
                root,
                "the root was recorded as a primitive (not `#[tracked]`, or under a depth \
                 limit of 1): there is no body to replay",
            ));
        }
        let arity = root.arguments().len();
        if inputs.len() != arity {
            return Err(ReplayError::Arity {
                expected: arity,
                got: inputs.len(),
            });
        }
        let base = root.id().index();
        let end = trace
            .store
            .call(root.id())
            .map_or(trace.len(), |c| c.end as usize);
        let mut b = Builder {
            trace,
            root: root.id(),
            base,
            src: vec![None; end.saturating_sub(base)],
            steps: Vec::new(),
            ops: Vec::new(),
            guards: Vec::new(),
            any_dynamic: false,
            tuples: HashMap::new(),
            fields: HashMap::new(),
            taken: std::collections::HashSet::new(),
            wrappers: HashMap::new(),
            lengths: HashMap::new(),
            walks: HashMap::new(),
            cursors: Vec::new(),
            elements: HashMap::new(),
            ranges: HashMap::new(),
            range_elements: HashMap::new(),
            written: crate::core::writes::written_in_place(&trace.store, base as u32..end as u32),
            dynamic_writes: Default::default(),
            writes: Default::default(),
        };
        b.writes = b.written.values().copied().collect();
        let mut output = None;
        // Nested calls replayed as one operation: skip their bodies.
        let mut skip_below: Option<(NodeId, u32)> = None;
        for n in (base + 1..end).filter_map(|i| trace.node(NodeId(i as u32))) {
            if let Some((_, end)) = skip_below {
                if n.id().get() < end {
                    continue;
                }
                skip_below = None;
            }
            // A call whose body does not give its value (a context replaced it, or another
            // method ran around the tracked one): a constant where nothing it was given is
            // dynamic; refused otherwise.
            if let Some(why) = trace.store.not_from_body(n.id()) {
                if b.operands(n).iter().any(Src::is_dynamic) {
                    return Err(unsupported(n, why));
                }
                b.set(n.id(), Src::Const(n.raw_value()));
                if let Some(call) = trace.store.call(n.id()) {
                    skip_below = Some((n.id(), call.end));
                }
                continue;
            }
            match n.kind() {
                NodeKind::Argument => b.argument(n, inputs)?,
                NodeKind::Constant => {
                    let in_closure = n.ir().is_some_and(|ir| ir.is_closure());
                    // A captured value linked to the enclosing function's node for it is
                    // that node's copy (`Store::capture_source`).
                    let link = match (in_closure, n.parent()) {
                        (true, Some(p)) => trace.store.capture_source(n.id(), p.id()),
                        _ => None,
                    };
                    if let Some(source) = link {
                        let s = match trace.node(source) {
                            Some(from) => b.through(from, n)?,
                            None => Src::Const(n.raw_value()),
                        };
                        b.set(n.id(), s);
                        continue;
                    }
                    // The root's captures were made before the recording: they depend on none
                    // of its arguments, the program's inputs.
                    let at_root = n.parent().is_some_and(|p| p.parent().is_none());
                    if in_closure && !at_root && b.any_dynamic {
                        return Err(unsupported(
                            n,
                            "a closure's captured variable: the trace does not say whether \
                             it depends on a dynamic input; pass it to the closure as an \
                             argument",
                        ));
                    }
                    b.set(n.id(), Src::Const(n.raw_value()));
                }
                NodeKind::PrimitiveCall | NodeKind::Special => b.operation(n)?,
                NodeKind::NestedCall => {
                    if let Some(kind) = ControlKind::of(n)? {
                        b.control(n, kind)?;
                        let end = trace.store.call(n.id()).map_or(0, |c| c.end);
                        skip_below = Some((n.id(), end));
                        continue;
                    }
                    // Replayed as the registered function only where its body is that
                    // function's code (no value inside replaced: 30 where the intervened
                    // model gave 14; a tester, 2026-11-28).
                    let registered = matches!(n.operation(), Ok(Operation::Registered(_)))
                        && !trace.store.body_intervened(n.id());
                    if registered && b.operands(n).iter().any(Src::is_dynamic) {
                        b.operation(n)?;
                        let end = trace.store.call(n.id()).map_or(0, |c| c.end);
                        skip_below = Some((n.id(), end));
                    }
                    // Otherwise its body is replayed; its value is set by its return.
                }
                NodeKind::Jump => b.jump(n)?,
                NodeKind::Return => {
                    let parent = n.parent().expect("a return is inside a call");
                    let s = match n.arguments().first() {
                        Some(Arg::Node(m)) => b.through(*m, n)?,
                        _ => Src::Const(n.raw_value()),
                    };
                    if parent.id() == root.id() {
                        output = Some(b.through_root(s, n, root)?);
                    } else {
                        b.set(parent.id(), s);
                    }
                }
                NodeKind::Error => {
                    let parent = n.parent().expect("an error is inside a call");
                    let dynamic = parent
                        .children()
                        .any(|c| c.kind() == NodeKind::Argument && b.is_dynamic(c.id()));
                    if dynamic || parent.id() == root.id() && b.any_dynamic {
                        return Err(unsupported(
                            n,
                            "the call ended without a return node (a panic, or a `return` \
                             inside a macro): its value is not connected to its nodes",
                        ));
                    }
                    let value = Src::Const(parent.raw_value());
                    if parent.id() == root.id() {
                        output = Some(value);
                    } else {
                        b.set(parent.id(), value);
                    }
                }
            }
        }
        let output = output.unwrap_or_else(|| Src::Const(root.raw_value()));
        let slots = root
            .arguments()
            .into_iter()
            .zip(inputs)
            .enumerate()
            .map(|(k, (a, i))| {
                let v = match a {
                    Arg::Node(n) => n.raw_value(),
                    Arg::Const(c) => crate::core::literal::value(c),
                };
                match i {
                    Input::Dynamic => InputSlot::Dynamic {
                        type_name: v.type_name().to_string(),
                        length: b.lengths.get(&k).cloned(),
                        like: None,
                    },
                    Input::Static => InputSlot::Static(v),
                }
            })
            .collect();
        let mut p = Program {
            inputs: slots,
            steps: b.steps,
            ops: b.ops,
            guards: b.guards,
            output,
            name: root
                .callee_ir()
                .map(|ir| ir.name.clone())
                .or_else(|| root.function_name().map(str::to_string))
                .unwrap_or_else(|| "?".into()),
            fast: None,
            stages: Vec::new(),
            samples: super::parts::recorded_arguments(root),
            varies: Vec::new(),
            primal: None,
            path_check: None,
        };
        p.remove_dead();
        // A tuple placeholder still used: something other than a `switch` needs the tuple.
        if let Some(OpKind::Tuple(e)) = p
            .ops
            .iter()
            .map(|o| &o.kind)
            .find(|k| matches!(k, OpKind::Tuple(_)))
        {
            return Err((**e).clone());
        }
        p.fast = super::fast::Fast::compile(&p);
        Ok(p)
    }

    /// Removes the operations that neither the output nor a guard uses, renumbering the rest.
    /// A volatile operation (a checkpoint) runs at every call whether its value is used or not:
    /// `inject` and `collect` count its calls.
    fn remove_dead(&mut self) {
        let mut live: Vec<bool> = self
            .ops
            .iter()
            .map(|op| match &op.kind {
                OpKind::Run(Operation::Registered(key)) => {
                    crate::core::eval::lookup(key.id).is_some_and(|r| r.volatile)
                }
                _ => false,
            })
            .collect();
        let mark = |s: &Src, live: &mut Vec<bool>| {
            if let Src::Op(k) = s {
                live[*k] = true;
            }
        };
        mark(&self.output, &mut live);
        for g in &self.guards {
            mark(&g.condition, &mut live);
        }
        for k in (0..self.ops.len()).rev() {
            if live[k] {
                for a in self.ops[k].args.clone() {
                    mark(&a, &mut live);
                }
            }
        }
        let mut renumber = vec![usize::MAX; self.ops.len()];
        let mut kept = Vec::new();
        for (k, op) in std::mem::take(&mut self.ops).into_iter().enumerate() {
            if live[k] {
                renumber[k] = kept.len();
                kept.push(op);
            }
        }
        let fix = |s: &mut Src| {
            if let Src::Op(k) = s {
                *k = renumber[*k];
            }
        };
        for op in &mut kept {
            op.args.iter_mut().for_each(fix);
        }
        for g in &mut self.guards {
            fix(&mut g.condition);
        }
        fix(&mut self.output);
        self.steps.retain(|s| match s {
            Step::Op(k) => live[*k],
            Step::Guard(_) => true,
        });
        for s in &mut self.steps {
            if let Step::Op(k) = s {
                *k = renumber[*k];
            }
        }
        self.ops = kept;
    }
}

/// Whether the path call `n` is one of the std's functions a walk over a vector of `f64` is
/// made of (`IntoIterator::into_iter` of a vector, a slice or their iterators,
/// `Iterator::next`), by the fn item's key, or a `for` loop's own `into_iter`.
fn std_walk_call(n: NodeRef<'_>) -> bool {
    use crate::core::ids::key_of;
    use std::any::TypeId;
    use std::collections::HashSet;
    use std::sync::OnceLock;
    static KEYS: OnceLock<HashSet<TypeId>> = OnceLock::new();
    let keys = KEYS.get_or_init(|| {
        type SliceIter = std::slice::Iter<'static, f64>;
        type VecIter = std::vec::IntoIter<f64>;
        [
            key_of(&<&'static Vec<f64> as IntoIterator>::into_iter).id,
            key_of(&<&'static mut Vec<f64> as IntoIterator>::into_iter).id,
            key_of(&<&'static [f64] as IntoIterator>::into_iter).id,
            key_of(&<Vec<f64> as IntoIterator>::into_iter).id,
            key_of(&<SliceIter as IntoIterator>::into_iter).id,
            key_of(&<&'static mut SliceIter as IntoIterator>::into_iter).id,
            key_of(&<VecIter as IntoIterator>::into_iter).id,
            key_of(&<&'static mut VecIter as IntoIterator>::into_iter).id,
            key_of(&<SliceIter as Iterator>::next).id,
            key_of(&<VecIter as Iterator>::next).id,
            key_of(&<&'static mut SliceIter as Iterator>::next).id,
        ]
        .into_iter()
        .collect()
    });
    match n.store().callees.get(&n.id()) {
        // The `for` loop's own call, which `#[tracked]` writes and does not announce.
        None => true,
        Some(crate::core::tape::Callee::Item(k)) => keys.contains(&k.id),
        Some(crate::core::tape::Callee::Unknown) => false,
    }
}

/// Whether the jump `n` is the fall-through of a `?` (taken when the value `?` tests is neither
/// `Err` nor `None`).
fn falls_through_question(n: NodeRef<'_>) -> bool {
    let (Some(ir), Some(entry)) = (n.ir(), n.entry()) else {
        return false;
    };
    let (Some(var), crate::core::ir::Slot::Branch(k)) = (entry.control.var(), entry.location.slot)
    else {
        return false;
    };
    (1..k).all(|j| {
        ir.branch_index(entry.location.block, j)
            .map(|i| &ir.entries[i as usize])
            .is_some_and(|e| {
                e.kind == EntryKind::JumpIfMatches
                    && e.condition.var() == Some(var)
                    && e.head == "Err(_) | None"
            })
    })
}

impl Builder<'_> {
    /// A `switch` or `while_loop` at `n`: one operation deciding at every call.
    fn control(&mut self, n: NodeRef<'_>, kind: ControlKind) -> Result<(), ReplayError> {
        let kids: Vec<NodeRef<'_>> = n.children().collect();
        if kids.last().map(|k| k.kind()) != Some(NodeKind::Return) {
            return Err(unsupported(
                n,
                "the call ended without a return (a panic): there is no decision to replay",
            ));
        }
        // Each value the caller passed, through the parameter that received it.
        let mut params = Vec::new();
        for (a, p) in n.arguments().into_iter().zip(&kids) {
            params.push(match a {
                Arg::Node(m) => self.through(m, *p)?,
                Arg::Const(_) => Src::Const(p.raw_value()),
            });
        }
        let (control, args) = match kind {
            ControlKind::Switch { arity } => {
                if params.get(1).is_some_and(Src::is_dynamic) {
                    return Err(unsupported(
                        n,
                        "the branches of the `switch` depend on a dynamic input: build them from \
                         constants",
                    ));
                }
                let elements = match params.get(2) {
                    Some(Src::Const(_)) => (0..arity)
                        .map(|i| Src::Const(kids.get(4 + i).map_or(Value::UNIT, |k| k.raw_value())))
                        .collect(),
                    Some(Src::Op(k)) if self.tuples.contains_key(k) => self.tuples[k].clone(),
                    _ => {
                        return Err(unsupported(
                            n,
                            "the arguments of the `switch` are a tuple value that depends on a \
                             dynamic input, whose elements a program cannot take apart: write \
                             the tuple in the call (`switch(key, &branches, (x, y))`)",
                        ))
                    }
                };
                let key = params.first().cloned().unwrap_or(Src::Const(Value::UNIT));
                let inputs = elements
                    .iter()
                    .map(|e: &Src| {
                        if e.is_dynamic() {
                            Input::Dynamic
                        } else {
                            Input::Static
                        }
                    })
                    .collect();
                let control = Control::switch(n, &kids, inputs)?;
                (control, std::iter::once(key).chain(elements).collect())
            }
            ControlKind::Loop => {
                let control = Control::while_loop(n, &kids)?;
                (
                    control,
                    params.get(2..4).map(<[Src]>::to_vec).unwrap_or_default(),
                )
            }
        };
        self.push_op(n, OpKind::Control(Arc::new(control)), args);
        Ok(())
    }

    /// The root's return: its recorded value must be the root's (a value changed in place
    /// after the return was recorded would not be).
    fn through_root(
        &self,
        s: Src,
        ret: NodeRef<'_>,
        root: NodeRef<'_>,
    ) -> Result<Src, ReplayError> {
        if !s.is_dynamic() {
            return Ok(Src::Const(root.raw_value()));
        }
        if !same(&ret.raw_value(), &root.raw_value()) {
            return Err(unsupported(
                ret,
                "the value returned is not the one recorded by the return",
            ));
        }
        Ok(s)
    }
}
