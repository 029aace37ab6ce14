//! The fast path of a gradient: a flat tape of `(from, to, partial)` edges built in one pass
//! over the trace, swept backward over `f64` adjoints.
//!
//! The general sweep ([`super::sweep`]) interprets every node of a trace each time: it finds
//! the node's parent call (a walk up the calls), its static entry, its references and its
//! rule (by operator, receiver and operand types), and builds a [`Value`] per operand read.
//! Most traces a gradient is asked for are made only of float arithmetic, float methods,
//! comparisons, integer counters, branches, nested calls and element reads of a vector
//! argument. For those, this module does the same work once per static entry (a [`Plan`]) and
//! once per node (a few loads from the typed columns), writes each active node's partial
//! derivatives into a tape, and the backward pass is a loop over that tape.
//!
//! **Right or an error.** The fast path returns a gradient only for traces in which every node
//! is one it knows exactly what the general sweep does with; at the first node it does not
//! (a user's rule, a closure's capture, an iterator, a field of a struct argument, a float
//! re-encoded as an integer, an `f32`, a witness that fails, a node left by a panic, …) it
//! declines and [`super::gradient`] runs the general sweep, which returns the gradient or the
//! typed error. Where it does answer, it computes the same products and adds them in the same
//! order as the general sweep, so the two agree bit for bit (`tests/gradient_fast.rs` checks
//! that, node kind by node kind, and that the declined cases still get their errors).

use super::custom;
use super::primal::{is_differentiable, primal, Primal};
use super::tangent::Tangent;
use crate::core::ids::NodeId;
use crate::core::ir::{EntryKind, FnIr, IrRef, Operand};
use crate::core::literal;
use crate::core::op::ScalarType;
use crate::core::op::{BinOp, Builtin, CmpOp, FloatFn, Receiver, UnOp};
use crate::core::tape::{Node, NodeKind, Slot, Store, NO_ENTRY};
use crate::core::value::Value;
use std::cell::Cell;
use std::collections::HashMap;

thread_local! {
    /// Set by [`with_general_sweep`]: the fast path declines everything.
    static OFF: Cell<bool> = const { Cell::new(false) };
    /// How many gradients the fast path answered on this thread.
    static TAKEN: Cell<u64> = const { Cell::new(0) };
}

/// Runs `f` with the fast path turned off on this thread, so that every gradient it takes
/// goes through the general sweep: the reference the fast path is tested against.
#[doc(hidden)]
pub fn with_general_sweep<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            OFF.with(|o| o.set(self.0));
        }
    }
    let _restore = Restore(OFF.with(|o| o.replace(true)));
    f()
}

/// How many gradients the fast path has answered on this thread (the rest went through the
/// general sweep): lets a test prove the path it measures is the one taken.
#[doc(hidden)]
pub fn fast_gradients_taken() -> u64 {
    TAKEN.with(Cell::get)
}

/// What a static entry is, for the fast path: computed once per entry of each function met.
#[derive(Clone, Copy)]
struct Plan {
    kind: EntryKind,
    builtin: Option<Builtin>,
    /// The number of data operands (operands and condition; a branch's control carries no
    /// value).
    data: u8,
    /// A block argument (not a function argument).
    block: bool,
    /// For a function argument, its position among the function's parameters.
    position: u32,
    /// An operand is `Operand::None` (a closure, an unrecorded place) in an entry that is not a
    /// special: the general sweep counts it as depending on the inputs.
    unrecorded: bool,
    /// A special (`*r`, a field read) with an operand the trace did not record (a closure's
    /// captured reference): the general sweep refuses it where a value depends on it.
    special_unrecorded: bool,
    /// A method call named `len`, or `next`, with one operand.
    len: bool,
    next: bool,
    /// A branch with a condition or control (the reference after its operands).
    control: bool,
    /// Where the entry's literal operands are in [`Builder::literals`] (`u32::MAX`: none).
    literals: u32,
    /// How many operands the entry has.
    operands: u8,
    /// A call of a callee held in a variable (`f(t)` with `f` a parameter): one that ran
    /// untracked may read what its callee captured.
    held: bool,
    /// A call passing an operand by `&mut` as written (`FnIr::borrows_mut`), or a user's macro
    /// mentioning a `mut` variable: the general sweep refuses later reads of it.
    mut_borrows: bool,
    /// A method call whose only `&mut` note is its receiver's, which a node may make moot
    /// (`core::tape::receiver_note_moot`).
    receiver_note: bool,
    /// An assignment into a place (`w[0] = c`) or a user's macro (which may assign what it
    /// mentions): the general sweep refuses a later read of what it wrote
    /// (`core::writes`), which this path does not follow.
    writes: bool,
}

/// The literal operands of an entry, read as floats and as integers (the first three).
#[derive(Clone, Copy, Default)]
struct Literals {
    floats: [Option<f64>; 3],
    ints: [Option<i64>; 3],
}

impl Plan {
    /// Whether `node` of this entry may have changed an operand through a `&mut`
    /// (`Store::lent_mut`).
    fn lends(&self, node: &Node) -> bool {
        self.mut_borrows
            && !(self.receiver_note
                && crate::core::tape::receiver_note_moot(node.kind, self.builtin, node.receiver))
    }

    fn new(ir: &FnIr, index: usize, literals: &mut Vec<Literals>) -> Plan {
        let e = &ir.entries[index];
        // The references recorded: never more than the step says, as `Store::refs` reads.
        let nrefs = ir.step(index).nrefs;
        let data = match e.kind {
            EntryKind::Argument => nrefs,
            _ => (e.operands.len() + usize::from(e.condition != Operand::None)).min(nrefs as usize)
                as u8,
        };
        let mut lits = Literals::default();
        let mut any = false;
        for (k, o) in e.operands.iter().take(3).enumerate() {
            if let Operand::Const(c) = o {
                lits.floats[k] = literal::as_f64(c);
                lits.ints[k] = literal::as_i64(c);
                any = true;
            }
        }
        let at = match any {
            true => {
                literals.push(lits);
                literals.len() as u32 - 1
            }
            false => u32::MAX,
        };
        let method = e.kind == EntryKind::MethodCall;
        Plan {
            kind: e.kind,
            builtin: ir.builtin(index),
            data,
            block: e.location.block != 1,
            position: ir.arg_position(index).map_or(u32::MAX, |p| p as u32),
            // A guard of `&&` and `||` names what it combined.
            unrecorded: e.takes_unrecorded() && !e.combines_conditions(),
            special_unrecorded: e.kind == EntryKind::Special
                && e.operands.contains(&Operand::None)
                && !e.combines_conditions(),
            len: method && e.head == "len" && e.operands.len() == 1,
            next: method && e.head == "next",
            control: e.kind.is_branch()
                && !(e.condition == Operand::None && e.control == Operand::None),
            literals: at,
            operands: e.operands.len().min(255) as u8,
            mut_borrows: ir.borrows_mut(index).next().is_some(),
            receiver_note: method && ir.borrows_mut(index).eq([0]),
            held: ir.holds_callee(index),
            writes: e.writes_place()
                || e.kind == EntryKind::Special
                    && e.head.ends_with('!')
                    && !crate::core::op::macro_only_reads(&e.head),
        }
    }
}

/// One edge of the tape: the adjoint of `from`, times `d` (or as it is), added to `to`'s.
#[derive(Clone, Copy)]
struct Edge {
    from: u32,
    to: u32,
    how: How,
}

#[derive(Clone, Copy)]
enum How {
    /// The whole sensitivity, unchanged (a return, an argument, a pass-through).
    Pass,
    /// The sensitivity times a partial derivative.
    Scale(f64),
    /// The sensitivity added to element `index` of the `vector`-th vector argument.
    At { vector: u32, index: u32 },
}

/// The class of a recorded value, read from its slot without building a [`Value`].
#[derive(Clone, Copy, PartialEq)]
enum Class {
    /// `()`.
    Unit,
    /// An `f64` (by value or behind a reference).
    F64,
    /// An integer, `bool` or `char`.
    Discrete,
    /// A vector of floats.
    Vector,
    /// Anything the fast path does not differentiate: a float may be inside (a struct, an
    /// `f32`, an array) — the node must not be active.
    Other,
    /// A value that is neither discrete nor differentiable nor `()`: a struct argument may
    /// hold floats in fields (the general sweep's containers).
    Container,
}

/// A gradient computed on the fast path: the adjoints the root's arguments get.
pub(crate) struct Fast {
    /// For each function argument of the root, in order: `None` when it is not
    /// differentiable, else its gradient.
    pub(crate) wrt: Vec<Option<Tangent>>,
    /// A product of a sensitivity and a slope underflowed to 0: a limit zero, which the
    /// general sweep follows (`Sweep::soften`); this gradient must not be used.
    pub(crate) fall_back: bool,
}

/// The tape of a trace, seed-independent: built once, swept for any scalar seed.
pub(crate) struct Tape {
    edges: Vec<Edge>,
    root: u32,
    /// The root's function arguments: node, and whether it is active.
    arguments: Vec<(u32, Class, bool)>,
    /// The vector arguments of the root: node and length (a handful: a list is faster to
    /// search than a map).
    vectors: Vec<(u32, usize)>,
    nodes: usize,
}

/// Whether the fast path may answer on this thread (not inside [`with_general_sweep`]).
pub(crate) fn enabled() -> bool {
    !OFF.with(Cell::get)
}

/// Builds the tape of `store`'s trace rooted at `root`, or `None` when the fast path cannot
/// prove it would do what the general sweep does.
pub(crate) fn tape(store: &Store, root: NodeId) -> Option<Tape> {
    // A user's rule may apply to any call: the general sweep looks them up.
    if custom::any() {
        return None;
    }
    Builder::new(store, root)?.run()
}

impl Tape {
    /// The backward pass from the scalar seed `seed`.
    pub(crate) fn sweep(&self, seed: f64) -> Fast {
        let mut adjoint = vec![0.0f64; self.nodes];
        let mut reached = vec![false; self.nodes];
        let mut vectors: Vec<Option<Vec<f64>>> = vec![None; self.vectors.len()];
        adjoint[self.root as usize] = seed;
        reached[self.root as usize] = true;
        let mut fall_back = false;
        for e in self.edges.iter().rev() {
            let from = e.from as usize;
            if !reached[from] {
                continue;
            }
            let dy = adjoint[from];
            let to = e.to as usize;
            // A node whose adjoint summed to exactly zero passes nothing on, as in the general
            // sweep (`s - s` at a point where `s`'s partial is infinite).
            if dy == 0.0 && !matches!(e.how, How::At { .. }) {
                continue;
            }
            let c = match e.how {
                How::Pass => dy,
                // A zero partial passes nothing, whatever `dy` (see `rules::times`).
                How::Scale(0.0) => continue,
                How::Scale(d) => dy * d,
                How::At { vector, index } => {
                    let len = self.vectors[vector as usize].1;
                    let v = vectors[vector as usize].get_or_insert_with(|| vec![0.0; len]);
                    v[index as usize] += dy;
                    continue;
                }
            };
            // As `Sweep::give` does: a zero contribution is not given (the operand `max`/`min`
            // did not select, a product with 0: a NaN partial below it must not make the
            // gradient NaN), so its target is not reached by it. A product of two nonzero
            // numbers that is 0 underflowed: a limit zero, for the general sweep.
            if c == 0.0 {
                if dy != 0.0 && matches!(e.how, How::Scale(d) if d != 0.0) {
                    fall_back = true;
                }
                continue;
            }
            // As `Tangent::add_assign` does: the first contribution is the adjoint.
            if reached[to] {
                adjoint[to] += c;
            } else {
                adjoint[to] = c;
                reached[to] = true;
            }
        }
        TAKEN.with(|t| t.set(t.get() + 1));
        let wrt = self
            .arguments
            .iter()
            .map(|&(id, class, active)| match (class, active) {
                (_, false) => None,
                (Class::Vector, true) => {
                    let k = self.vectors.iter().position(|&(v, _)| v == id)?;
                    let len = self.vectors[k].1;
                    Some(Tangent::Vector(
                        vectors[k].take().unwrap_or_else(|| vec![0.0; len]),
                    ))
                }
                (_, true) => Some(Tangent::Scalar(match reached[id as usize] {
                    true => adjoint[id as usize],
                    false => 0.0,
                })),
            })
            .collect();
        Fast { wrt, fall_back }
    }
}

struct Frame {
    end: u32,
    node: u32,
    /// The frame's function's plans, in [`Builder::fns`].
    fun: usize,
    closure: bool,
}

/// The plans of one function's entries, and their literal operands.
struct FnPlans {
    plans: Vec<Plan>,
    literals: Vec<Literals>,
}

impl FnPlans {
    fn new(ir: &FnIr) -> FnPlans {
        let mut literals = Vec::new();
        let plans = (0..ir.entries.len())
            .map(|i| Plan::new(ir, i, &mut literals))
            .collect();
        FnPlans { plans, literals }
    }
}

thread_local! {
    /// The plans of the functions whose IR the macro keeps (`'static`: its address names it
    /// for the life of the process), made once per thread: reading the literals' text costs
    /// more than the rest of a small gradient's tape.
    static STATIC_PLANS: std::cell::RefCell<HashMap<usize, std::rc::Rc<FnPlans>>> =
        std::cell::RefCell::new(HashMap::new());
}

struct Builder<'s> {
    store: &'s Store,
    root: NodeId,
    active: Vec<bool>,
    /// Each node's value, where it is an `f64` (by value or behind a reference), read once
    /// as the walk passes it: an operand is then one load, not two lookups in the arena.
    floats: Vec<Option<f64>>,
    /// Values that may hold differentiable fields (the general sweep's containers).
    container: Vec<bool>,
    any_container: bool,
    /// The plans of every function met; `by_ir` finds a function's.
    fns: Vec<std::rc::Rc<FnPlans>>,
    by_ir: HashMap<*const FnIr, usize>,
    /// The function of the node being read (an index into `fns`).
    fun: usize,
    /// The orderings of active floats met (their sides' nodes, `NONE` for a literal, and
    /// values): [`forward_checks`](Self::forward_checks) reads their margins.
    orderings: Vec<([NodeId; 2], [f64; 2])>,
    /// The sums that round an active operand coarsely (`sweep::rounds_coarsely`): the sum,
    /// that operand, its partial and the sum's value. [`forward_checks`](Self::forward_checks)
    /// asks whether a path undoes the rounding.
    coarse: Vec<(u32, u32, f64, f64)>,
    tape: Tape,
}

impl<'s> Builder<'s> {
    fn new(store: &'s Store, root: NodeId) -> Option<Builder<'s>> {
        let n = store.len();
        // The root must be the first node and hold every other in its subtree.
        if root.0 != 0 || store.call(root)?.end as usize != n {
            return None;
        }
        Some(Builder {
            store,
            root,
            active: vec![false; n],
            floats: vec![None; n],
            container: vec![false; n],
            any_container: false,
            fns: Vec::new(),
            by_ir: HashMap::new(),
            fun: 0,
            orderings: Vec::new(),
            coarse: Vec::new(),
            tape: Tape {
                // About one edge per node on arithmetic code.
                edges: Vec::with_capacity(n),
                root: root.0,
                arguments: Vec::new(),
                vectors: Vec::new(),
                nodes: n,
            },
        })
    }

    fn plans_of(&mut self, ir: &IrRef) -> usize {
        let key = &**ir as *const FnIr;
        if let Some(&i) = self.by_ir.get(&key) {
            return i;
        }
        let plans = match ir {
            IrRef::Static(ir) => STATIC_PLANS.with(|cache| {
                cache
                    .borrow_mut()
                    .entry(*ir as *const FnIr as usize)
                    .or_insert_with(|| std::rc::Rc::new(FnPlans::new(ir)))
                    .clone()
            }),
            IrRef::Shared(ir) => std::rc::Rc::new(FnPlans::new(ir)),
        };
        self.fns.push(plans);
        self.by_ir.insert(key, self.fns.len() - 1);
        self.fns.len() - 1
    }

    /// The literal operands of `plan`, an entry of the function being read.
    #[inline(always)]
    fn literals(&self, plan: &Plan) -> Option<&Literals> {
        self.fns[self.fun].literals.get(plan.literals as usize)
    }

    #[inline(always)]
    fn class(&self, id: NodeId) -> Class {
        self.class_at(self.store.slot(id))
    }

    /// The class of the value at `slot` (read from the node the caller holds: a second
    /// lookup of the node in the chunked arena costs as much as the rest of the test).
    #[inline(always)]
    fn class_at(&self, slot: Slot) -> Class {
        const BOXED: u8 = 0x80;
        if slot.tag & BOXED != 0 {
            let v = &self.store.boxed[slot.index as usize];
            return value_class(v);
        }
        match slot.tag & 0x0f {
            0 if slot.tag == 0 => Class::Unit,
            14 => Class::F64,
            1..=12 => Class::Discrete,
            _ => Class::Other,
        }
    }

    /// The first `n` references of `id` (at most [`Refs::MAX`]; more and the fast path
    /// declines).
    #[inline(always)]
    fn refs(&self, node: &Node, n: usize) -> Option<Refs> {
        if n > Refs::MAX {
            return None;
        }
        let start = node.refs as usize;
        let mut refs = Refs {
            ids: [NodeId::NONE; Refs::MAX],
            n: n as u8,
        };
        match self.store.refs.slice(start, n) {
            // Element by element over the four slots (unrolled): `copy_from_slice` of a length
            // known only at run time is a call to `memcpy` for a few bytes.
            Some(ids) => {
                for (k, slot) in refs.ids.iter_mut().enumerate() {
                    if let Some(&r) = ids.get(k) {
                        *slot = r;
                    }
                }
            }
            None => {
                for (k, r) in self.store.refs.range(start, n).enumerate() {
                    refs.ids[k] = r;
                }
            }
        }
        Some(refs)
    }

    #[inline(always)]
    fn is_active(&self, r: NodeId) -> bool {
        !r.is_none() && self.active[r.index()]
    }

    #[inline(always)]
    fn edge(&mut self, from: NodeId, to: NodeId, how: How) {
        if self.is_active(to) {
            self.tape.edges.push(Edge {
                from: from.0,
                to: to.0,
                how,
            });
        }
    }

    /// A float operand: recorded (an `f64` node) or a literal.
    #[inline(always)]
    fn float_operand(&self, refs: &[NodeId], plan: &Plan, k: usize) -> Option<f64> {
        match refs.get(k) {
            Some(r) if !r.is_none() => *self.floats.get(r.index())?,
            _ => *self.literals(plan)?.floats.get(k)?,
        }
    }

    /// Whether a data operand of `node` is active (`None`: more than the fast path reads).
    fn any_active_operand(&self, node: &Node, plan: &Plan) -> Option<bool> {
        let refs = self.refs(node, plan.data as usize)?;
        Some(refs.as_slice().iter().any(|&r| self.is_active(r)))
    }

    /// An integer operand: recorded or a literal.
    fn int_operand(&self, refs: &[NodeId], plan: &Plan, k: usize) -> Option<i64> {
        match refs.get(k) {
            Some(r) if !r.is_none() => self.store.scalar_at(self.store.slot(*r))?.as_i64(),
            _ => *self.literals(plan)?.ints.get(k)?,
        }
    }

    fn run(mut self) -> Option<Tape> {
        let store = self.store;
        let mut frames: Vec<Frame> = Vec::new();
        // In recording order: a walk over the arena's chunks, no lookup per node.
        for (i, &node) in store.nodes.iter().enumerate() {
            let id = NodeId(i as u32);
            while frames.last().is_some_and(|f| i as u32 >= f.end) {
                frames.pop();
            }
            // A call whose body does not give its value: the general sweep refuses what depends
            // on it.
            if node.not_from_body() {
                return None;
            }
            if node.kind == NodeKind::NestedCall {
                // A call of the root is `track`'s own; one inside passing an active value by
                // `&mut` leaves it to the general sweep.
                if let Some(frame) = frames.last() {
                    let plan = self.fns[frame.fun].plans.get(node.entry as usize)?;
                    if plan.lends(&node) && self.any_active_operand(&node, plan)? {
                        return None;
                    }
                }
                let call = store.call(id)?;
                self.floats[i] = float_at(store, call.value);
                let ir = store.call_ir(call);
                let fun = self.plans_of(ir);
                let closure = ir.is_closure();
                frames.push(Frame {
                    end: call.end,
                    node: id.0,
                    fun,
                    closure,
                });
                continue;
            }
            let f = float_at(store, slot_of(&node));
            // A subnormal may have lost precision (a product that underflowed in part): the
            // general sweep judges whether a slope reads it.
            if f.is_some_and(f64::is_subnormal) {
                return None;
            }
            self.floats[i] = f;
            let frame = frames.last()?;
            let parent = NodeId(frame.node);
            let in_root = parent == self.root;
            let closure = frame.closure;
            if node.entry == NO_ENTRY {
                // An error node, or an entry the trace does not know.
                return None;
            }
            // The parent's function has the entry (the trace was recorded from its IR).
            self.fun = frame.fun;
            let plan = *self.fns[frame.fun].plans.get(node.entry as usize)?;
            match node.kind {
                NodeKind::Argument => self.argument(id, &node, parent, in_root, &plan)?,
                NodeKind::Constant => {
                    if !in_root && closure && is_differentiable(&store.value_cow(id)) {
                        return None;
                    }
                }
                NodeKind::Jump => {
                    if plan.control {
                        self.branch(&node, &plan)?;
                    }
                }
                NodeKind::Error => return None,
                NodeKind::Return => {
                    let refs = self.refs(&node, plan.data as usize)?;
                    let refs = refs.as_slice();
                    if plan.unrecorded {
                        return None;
                    }
                    let a = refs.iter().any(|&r| self.is_active(r));
                    if a {
                        self.active[parent.index()] = true;
                        // A discrete value computed from the inputs is tainted, and a value of
                        // another kind is not one the tape carries.
                        if self.class_at(slot_of(&node)) != Class::F64 {
                            return None;
                        }
                    }
                    self.active[i] = a;
                    if let Some(&r) = refs.first() {
                        if !r.is_none() {
                            // The value returned must be the one its operand recorded (a
                            // variable a closure changed through a capture is not: the general
                            // sweep names it).
                            if a && !same_float(self.floats[i], self.floats[r.index()]) {
                                return None;
                            }
                            self.edge(parent, r, How::Pass);
                        }
                    }
                }
                NodeKind::PrimitiveCall | NodeKind::Special => self.operation(id, &node, &plan)?,
                NodeKind::NestedCall => unreachable!("handled above"),
            }
        }
        if self.forward_checks() {
            return None;
        }
        Some(self.tape)
    }

    /// Whether the general sweep's forward checks (`Sweep::forward_checks`) might refuse what
    /// this tape would answer: an ordering of active floats that holds by a margin moving the
    /// inputs closes (`sweep::closes`, a bisection converged), or a rounding a path undoes (a
    /// node whose tangent is a sliver of the part that came through a coarse rounding, as in
    /// `x - (x + 1.5·2⁵² - 1.5·2⁵²)`). Read from one forward pass over the tape along the
    /// general sweep's direction (each input, and each element of a vector input, moved by its
    /// own size times `sweep::direction_weight`), with margins 16 times wider than the general
    /// sweep's, and without its test that the undoing node moves the output (a compensated
    /// sum's error term does not): the general sweep then decides.
    fn forward_checks(&self) -> bool {
        if self.orderings.is_empty() && self.coarse.is_empty() {
            return false;
        }
        // A direction this pass cannot follow: the general sweep decides.
        self.forward_pass_refuses().unwrap_or(true)
    }

    // Kept out of `run`'s body: rare, and inlined it made every tape's loop slower.
    #[inline(never)]
    fn forward_pass_refuses(&self) -> Option<bool> {
        use super::sweep::{closes, coarse_grid, direction_weight, within_rounding};
        let by_size = |w: f64, x: f64| w * if x == 0.0 { 1.0 } else { x };
        let n = self.tape.nodes;
        let mut t = vec![0.0f64; n];
        // The part of each tangent that came through a coarse rounding (0 where none did).
        let mut through = vec![0.0f64; n];
        let mut rounded: HashMap<u32, (u32, f64, f64)> = HashMap::new();
        for &(sum, operand, partial, y) in &self.coarse {
            rounded.entry(sum).or_insert((operand, partial, y));
        }
        let mut elements: Vec<Vec<f64>> = vec![Vec::new(); self.tape.vectors.len()];
        for (k, &(id, class, active)) in self.tape.arguments.iter().enumerate() {
            match (class, active) {
                (Class::F64, true) => {
                    let x = self.floats[id as usize]?;
                    t[id as usize] = by_size(direction_weight(k, 0), x);
                }
                (Class::Vector, true) => {
                    let v = self.tape.vectors.iter().position(|&(a, _)| a == id)?;
                    let value = self.store.value_cow(NodeId(id));
                    elements[v] = (value.floats()?.iter().enumerate())
                        .map(|(i, &x)| by_size(direction_weight(k, i), x))
                        .collect();
                }
                _ => {}
            }
        }
        // A node's edges are consecutive: each group sums into its node's tangent.
        let edges = &self.tape.edges;
        let mut i = 0;
        while i < edges.len() {
            let from = edges[i].from as usize;
            while i < edges.len() && edges[i].from as usize == from {
                let e = &edges[i];
                let to = e.to as usize;
                // An element of a vector input is no rounding's.
                let (c, r) = match e.how {
                    How::Pass => (t[to], through[to]),
                    How::Scale(d) => (d * t[to], d * through[to]),
                    How::At { vector, index } => {
                        (*elements.get(vector as usize)?.get(index as usize)?, 0.0)
                    }
                };
                t[from] += c;
                through[from] += r;
                i += 1;
            }
            if let Some(&(operand, partial, y)) = rounded.get(&(from as u32)) {
                let ta = t[operand as usize];
                if coarse_grid(y, ta, false) {
                    through[from] += partial * ta;
                }
            }
            if cancelled(t[from], through[from]) {
                return Some(true);
            }
        }
        let rate = |r: NodeId| if self.is_active(r) { t[r.index()] } else { 0.0 };
        Some(self.orderings.iter().any(|&([ra, rb], [a, b])| {
            let (ta, tb) = (rate(ra), rate(rb));
            closes(a, b, 16.0 * ta, 16.0 * tb, false)
                || (ta != tb && within_rounding(a, b, false, 16.0 * 1024.0))
        }))
    }

    /// A branch decided by an equality of input-dependent values (`x == 0.0`), an ordering of
    /// them at a tie, or a match of an input-dependent float: the general sweep decides whether
    /// the path exists at this point only (`Indeterminacy::Equality`, `sweep/pins.rs`).
    fn branch(&self, node: &Node, plan: &Plan) -> Option<()> {
        let k = plan.operands as usize;
        self.decided_by(*self.refs(node, k + 1)?.ids.get(k)?)
    }

    /// [`branch`](Self::branch) for the condition that decided it (a branch's, or a match
    /// guard's value).
    fn decided_by(&self, mut condition: NodeId) -> Option<()> {
        loop {
            if condition.is_none() {
                return Some(());
            }
            let c = self.store.node(condition);
            if c.entry == NO_ENTRY {
                return None;
            }
            let cplan = self.fns[self.fun].plans.get(c.entry as usize)?;
            let refs = self.refs(c, cplan.data as usize)?;
            match (cplan.kind, cplan.builtin) {
                // `!c`, or the value `a && b` passes to a block argument: whatever decided it.
                (EntryKind::Argument, _) if cplan.block => {
                    condition = *refs.as_slice().first()?;
                }
                (_, Some(Builtin::Unary(UnOp::Not))) => {
                    condition = *refs.as_slice().first()?;
                }
                (_, Some(Builtin::Compare(CmpOp::Eq | CmpOp::Ne))) | (EntryKind::MethodCall, _) => {
                    return match refs.as_slice().iter().any(|&r| self.is_active(r)) {
                        true => None,
                        false => Some(()),
                    };
                }
                // An ordering at a tie may, with another, say equal (`x > 0.0` false, then
                // `x < 0.0` false).
                (_, Some(Builtin::Compare(_))) => {
                    let refs = refs.as_slice();
                    if !refs.iter().any(|&r| self.is_active(r)) {
                        return Some(());
                    }
                    let a = self.float_operand(refs, cplan, 0);
                    let b = self.float_operand(refs, cplan, 1);
                    return match (a, b) {
                        (Some(a), Some(b)) if a != b => Some(()),
                        _ => None,
                    };
                }
                // A float matched against a pattern (`match x { 0.0 => … }`).
                _ if self.is_active(condition) => return None,
                _ => return Some(()),
            }
        }
    }

    fn argument(
        &mut self,
        id: NodeId,
        node: &Node,
        parent: NodeId,
        in_root: bool,
        plan: &Plan,
    ) -> Option<()> {
        let i = id.index();
        let class = self.class_at(slot_of(node));
        if !plan.block && in_root {
            let active = match class {
                Class::F64 | Class::Vector => true,
                Class::Discrete | Class::Unit => false,
                Class::Container => {
                    // A float kept only as its type would silently get no gradient: the
                    // general sweep says so (`GradError::Unrecorded`).
                    if super::sweep::float_like(&self.store.value_cow(id)) {
                        return None;
                    }
                    self.container[i] = true;
                    self.any_container = true;
                    false
                }
                Class::Other => return None,
            };
            if class == Class::Vector {
                let len = self.store.value_cow(id).floats()?.len();
                self.tape.vectors.push((id.0, len));
            }
            self.active[i] = active;
            self.tape.arguments.push((id.0, class, active));
            return Some(());
        }
        let source = if plan.block {
            self.refs(node, 1)?.ids[0]
        } else {
            // The caller's operand for this parameter: the call node's reference.
            let call = self.store.call(parent)?;
            let p = plan.position;
            if p == u32::MAX || p >= call.ref_count {
                NodeId::NONE
            } else {
                let start = self.store.node(parent).refs as usize + p as usize;
                *self.store.refs.get(start)?
            }
        };
        if !source.is_none() && self.container[source.index()] {
            self.container[i] = true;
        }
        let active = self.is_active(source);
        match class {
            Class::F64 => {}
            Class::Discrete => return Some(()),
            _ if active => return None,
            _ => return Some(()),
        }
        self.active[i] = active;
        if active {
            self.edge(id, source, How::Pass);
        }
        Some(())
    }

    /// A primitive call or a special.
    fn operation(&mut self, id: NodeId, node: &Node, plan: &Plan) -> Option<()> {
        let i = id.index();
        let store = self.store;
        if plan.unrecorded {
            return None;
        }
        let refs = self.refs(node, plan.data as usize)?;
        let refs = refs.as_slice();
        if self.any_container
            && refs
                .iter()
                .any(|r| !r.is_none() && self.container[r.index()])
        {
            // Made from a struct argument: a field, an element, a clone, an iterator over it,
            // a call that may change it. The general sweep names the paths of the reads it can
            // follow and refuses the others; here only what holds no float passes (a count, a
            // comparison), and what holds fields of its own is followed as a container.
            match self.class_at(slot_of(node)) {
                Class::Discrete => {}
                // A row of a `Vec<Vec<f64>>` argument: a constant to both sweeps.
                Class::F64 | Class::Vector if plan.builtin == Some(Builtin::Index) => {}
                Class::Container | Class::Other if !refs.iter().any(|&r| self.is_active(r)) => {
                    self.container[id.index()] = true;
                    return Some(());
                }
                _ => return None,
            }
        }
        // A write into memory (a `&mut` call, an assignment into a place, a user's macro):
        // the general sweep refuses a later read of what it changed, active or not
        // (`core::writes`), which this path does not follow.
        if plan.lends(node) || plan.writes {
            return None;
        }
        if plan.held && node.kind == NodeKind::PrimitiveCall {
            return None;
        }
        if plan.special_unrecorded && !matches!(self.class_at(slot_of(node)), Class::Unit) {
            return None;
        }
        if plan.builtin == Some(Builtin::Guard) {
            match refs.first() {
                Some(&r) if !r.is_none() => self.decided_by(r)?,
                // A guard of `&&` and `||`: the conditions it combined that ran (`NONE`: did
                // not run).
                Some(_) if refs.len() > 1 => {
                    for &r in &refs[1..] {
                        self.decided_by(r)?;
                    }
                }
                // A guard that ran unrecorded (an `if` in it): the general sweep asks its match.
                _ => return None,
            }
        }
        let a = refs.iter().any(|&r| self.is_active(r));
        if a && plan.next && node.kind == NodeKind::PrimitiveCall {
            // The elements of an iterator over an input: the general sweep numbers the `next`
            // calls to know which element each one yields. A `next` on an iterator that does
            // not depend on the inputs (`for i in 0..n`) is a constant to both.
            return None;
        }
        let class = self.class_at(slot_of(node));
        // A call giving `()` is there for what it changes (`std::mem::swap(r, s)` through
        // borrows held in variables): the general sweep follows writes (`core::writes`).
        if class == Class::Unit && node.kind == NodeKind::PrimitiveCall {
            return None;
        }
        if !a {
            if class == Class::Discrete || class == Class::Unit {
                return Some(());
            }
            let indexing = plan.builtin == Some(Builtin::Index);
            if !indexing
                && self.any_container
                && refs
                    .iter()
                    .any(|r| !r.is_none() && self.container[r.index()])
                && is_differentiable(&store.value_cow(id))
            {
                // A read of a struct argument through code irtrack does not see.
                return None;
            }
            return Some(());
        }
        match class {
            Class::Discrete => {
                // A comparison of active values that found them equal, or at a tie, may pin
                // the point (`x > 0.0` and `x < 0.0` both false): the general sweep decides
                // (`sweep/pins.rs`).
                // So does one whose recorded value its operands do not give (one of them was
                // changed after it was recorded).
                if let Some(Builtin::Compare(op)) = plan.builtin {
                    let a = self.float_operand(refs, plan, 0);
                    let b = self.float_operand(refs, plan, 1);
                    let (Some(a), Some(b)) = (a, b) else {
                        return None;
                    };
                    let held = store
                        .value_cow(id)
                        .by_value()
                        .downcast_ref::<bool>()
                        .copied();
                    if a == b || held != Some(op.holds(a, b)) {
                        return None;
                    }
                    // Whether the margin is a sliver is known after the tape's forward pass.
                    if super::sweep::ordering(op, a, b) {
                        let side = |k: usize| refs.get(k).copied().unwrap_or(NodeId::NONE);
                        self.orderings.push(([side(0), side(1)], [a, b]));
                    }
                }
                // A cast to an integer or a sign query at its jump holds one side
                // (`core::ties::jump_sides`): the general sweep reads it.
                if let Some(b @ (Builtin::Cast(_) | Builtin::Query(_))) = plan.builtin {
                    let x = self.float_operand(refs, plan, 0);
                    if crate::core::ties::at_jump(b, &[x]) {
                        return None;
                    }
                    self.jump(b, refs, x);
                }
                // Counts and comparisons of active values: constants only when they depend on
                // them piecewise-constantly.
                let piecewise = matches!(
                    plan.builtin,
                    Some(
                        Builtin::Compare(_)
                            | Builtin::Cast(_)
                            | Builtin::Unary(_)
                            | Builtin::Bind
                            | Builtin::Guard
                            | Builtin::Deref
                            | Builtin::Clone
                    )
                );
                let len = plan.len && self.len_matches(id, refs);
                (piecewise || len).then_some(())
            }
            Class::F64 => {
                self.active[i] = true;
                self.rule(id, node, plan, refs)
            }
            _ => None,
        }
    }

    /// The length of a vector argument of the root.
    fn vector_len(&self, v: NodeId) -> Option<usize> {
        self.tape
            .vectors
            .iter()
            .find(|&&(a, _)| a == v.0)
            .map(|&(_, len)| len)
    }

    /// `v.len()` on an active vector argument gave the vector's recorded length.
    fn len_matches(&self, id: NodeId, refs: &[NodeId]) -> bool {
        let Some(&v) = refs.first() else { return false };
        let Some(len) = self.vector_len(v) else {
            return false;
        };
        self.store.value(id).as_i64() == Some(len as i64)
    }

    /// The edges of an active float node, from the rule the general sweep would apply; `None`
    /// where it would apply another, or none.
    fn rule(&mut self, id: NodeId, node: &Node, plan: &Plan, refs: &[NodeId]) -> Option<()> {
        let store = self.store;
        let slot = slot_of(node);
        // The value by value: the witnesses compare bits.
        if slot.tag != 14 {
            return None;
        }
        let y = store.f64_at(slot)?;
        let n = plan.operands as usize;
        let operand = |k: usize| refs.get(k).copied().unwrap_or(NodeId::NONE);
        match (plan.kind, plan.builtin) {
            (EntryKind::Operator, Some(Builtin::Binary(op) | Builtin::Assign(op))) => {
                if n != 2 {
                    return None;
                }
                let a = self.float_operand(refs, plan, 0)?;
                let b = self.float_operand(refs, plan, 1)?;
                let (r, (da, db)) = match op {
                    BinOp::Add => (a + b, (1.0, 1.0)),
                    BinOp::Sub => (a - b, (1.0, -1.0)),
                    BinOp::Mul => (a * b, (b, a)),
                    BinOp::Div => (a / b, (1.0 / b, -(a / b) / b)),
                    // Where it wraps it holds one side (`core::ties::jump_sides`).
                    BinOp::Rem
                        if crate::core::ties::at_jump(Builtin::Binary(op), &[Some(a), Some(b)]) =>
                    {
                        return None
                    }
                    BinOp::Rem => {
                        let r = a % b;
                        (r, (1.0, -super::rules::rem_quotient(a, b, r)))
                    }
                    _ => return None,
                };
                // The operands must be the ones the operator ran on (no stale edge). A zero
                // slope of a quotient with nonzero operands is a limit (`1 / ∞`, an
                // underflow), and an infinite operand or value may make one: the general
                // sweep follows them (`Sweep::soften`).
                let limit = op == BinOp::Div && a != 0.0 && b != 0.0 && (da == 0.0 || db == 0.0);
                if !same(r, y) || limit || [a, b, y].iter().any(|v| v.is_infinite()) {
                    return None;
                }
                // A sum that rounds an active operand to a coarse grid: whether a path undoes
                // the rounding is read after the tape's forward pass, as the general sweep
                // does (`Sweep::forward_checks`). (Declining every such sum sent a dense
                // layer's small products to the general sweep, 10 times slower; declining
                // those that drop 26 bits or more answered the reduction
                // `x·2/π + 1.5·2⁵² - 1.5·2⁵²` past |x| ≈ 10⁸ with `sin`'s slope 0.)
                if matches!(op, BinOp::Add | BinOp::Sub) {
                    let rounded = [a, b]
                        .iter()
                        .position(|&v| super::sweep::rounds_coarsely(v, y, false));
                    if let Some(k) = rounded.filter(|&k| self.is_active(operand(k))) {
                        let partial = if k == 1 { db } else { da };
                        self.coarse.push((id.0, operand(k).0, partial, y));
                    }
                }
                // Pushed in reverse: the backward pass reads the tape from the end.
                self.edge(id, operand(1), How::Scale(db));
                self.edge(id, operand(0), How::Scale(da));
            }
            (EntryKind::Operator, Some(Builtin::Unary(UnOp::Neg))) => {
                if n != 1 {
                    return None;
                }
                self.float_operand(refs, plan, 0)?;
                self.edge(id, operand(0), How::Scale(-1.0));
            }
            (EntryKind::MethodCall, Some(Builtin::Method(f))) => {
                if !matches!(
                    node.receiver,
                    Receiver::Float | Receiver::FloatRef | Receiver::Generic
                ) {
                    return None;
                }
                if crate::core::ties::jumps(Builtin::Method(f)) {
                    let k = crate::core::ties::jump_operand(Builtin::Method(f));
                    self.jump(
                        Builtin::Method(f),
                        refs.get(k..).unwrap_or(&[]),
                        self.float_operand(refs, plan, k),
                    );
                }
                if f == FloatFn::Powi {
                    if n != 2 {
                        return None;
                    }
                    let x = self.float_operand(refs, plan, 0)?;
                    let k = self.int_operand(refs, plan, 1)?;
                    if !same(x.powi(i32::try_from(k).ok()?), y)
                        || x.is_infinite()
                        || y.is_infinite()
                    {
                        return None;
                    }
                    let d = if k == 0 {
                        0.0
                    } else {
                        k as f64 * x.powi(k as i32 - 1)
                    };
                    // A limit zero (as for quotients above).
                    if d == 0.0 && k != 0 && x != 0.0 {
                        return None;
                    }
                    self.edge(id, operand(0), How::Scale(d));
                    return Some(());
                }
                if n != f.arity() || n > 3 {
                    return None;
                }
                let mut xs = [0.0; 3];
                for (k, x) in xs.iter_mut().enumerate().take(n) {
                    *x = self.float_operand(refs, plan, k)?;
                }
                // The witness: the float method, re-run, gives the recorded value.
                if !same(f.eval_f64(&xs[..n], None)?, y)
                    || y.is_infinite()
                    || xs[..n].iter().any(|x| x.is_infinite())
                {
                    return None;
                }
                // `max`/`min` at a tie and `abs` at 0 take a side, which with other such
                // choices and orderings must leave an open region: the general sweep reads them
                // (`sweep/cone.rs`).
                let corner = match f {
                    FloatFn::Max | FloatFn::Min => n == 2 && xs[0] == xs[1],
                    FloatFn::Abs => xs[0] == 0.0,
                    FloatFn::Clamp => n == 3 && (xs[0] == xs[1] || xs[0] == xs[2]),
                    // A jump at its jump point holds one side (`core::ties::jump_sides`).
                    _ => {
                        let x = [Some(xs[0]), Some(xs[1])];
                        crate::core::ties::at_jump(Builtin::Method(f), &x[..n.min(2)])
                    }
                };
                if corner && refs.iter().take(n).any(|&r| self.is_active(r)) {
                    return None;
                }
                let ds = super::rules::float_partials(f, &xs[..n], y)?;
                // An infinite slope (`cbrt`, `sqrt` at 0) met by a zero sensitivity that is 0
                // only at this point (`u.powi(3)` at `u = 0`) is `0 · ∞`: the general sweep
                // tells such a zero from an exact one (`rules::exact_zero`).
                if ds[..n].iter().any(|d| !d.is_finite()) {
                    return None;
                }
                // A limit zero (as for quotients above).
                if Builtin::Method(f).slope_vanishes_at_infinity()
                    && !xs[..n].contains(&0.0)
                    && ds[..n].contains(&0.0)
                {
                    return None;
                }
                for k in (0..n).rev() {
                    self.edge(id, operand(k), How::Scale(ds[k]));
                }
            }
            (EntryKind::Special, Some(Builtin::Question | Builtin::Deref | Builtin::Bind)) => {
                self.pass_through(id, refs)?;
            }
            (EntryKind::Special, Some(Builtin::Cast(to))) if to.is_float() => {
                // A cast that flushed a number to 0 or to ∞ is no identity: the general sweep
                // names it.
                let x = self.float_operand(refs, plan, 0)?;
                let y = store.f64_at(store.slot(id))?;
                if to == ScalarType::F32 && crate::core::rounding::narrowing_lost(x, y) {
                    return None;
                }
                // An `f64` narrowed to `f32` is a rounding a path may undo
                // (`Sweep::forward_checks`): the general sweep looks.
                if to == ScalarType::F32
                    && store.value_cow(operand(0)).downcast_ref::<f64>().is_some()
                {
                    return None;
                }
                self.pass_through(id, refs)?;
            }
            (EntryKind::Call, Some(Builtin::Index)) => {
                if n != 2 || store.callees.contains_key(&id) {
                    return None;
                }
                let v = operand(0);
                let vector = self.tape.vectors.iter().position(|&(a, _)| a == v.0)?;
                let len = self.tape.vectors[vector].1;
                let k = self.int_operand(refs, plan, 1)?;
                let index = usize::try_from(k).ok().filter(|&k| k < len)?;
                // The element read must be the one the vector recorded: else the vector was
                // changed in place after it was recorded (a closure's `v[0] = 10.0`), and the
                // general sweep names the stale edge (this path gave the written element's
                // slope to the input's).
                let read = store.f64_at(store.slot(id))?;
                let recorded = store.value_cow(v);
                let element = recorded.floats().and_then(|f| f.get(index).copied())?;
                if element.to_bits() != read.to_bits() {
                    return None;
                }
                self.edge(
                    id,
                    v,
                    How::At {
                        vector: vector as u32,
                        index: index as u32,
                    },
                );
            }
            _ => return None,
        }
        Some(())
    }

    /// A jump at 0 (`signum`, a sign query) of the active operand `refs[0]` (the one the jump
    /// reads), of value `x`: how far it is from jumping is read with the orderings' margins
    /// ([`forward_checks`](Self::forward_checks)); at the jump itself, `at_jump` declined.
    fn jump(&mut self, op: Builtin, refs: &[NodeId], x: Option<f64>) {
        let Some(&r) = refs.first().filter(|&&r| self.is_active(r)) else {
            return;
        };
        let margin = x.and_then(|x| crate::core::ties::jump_margin(op, x));
        if let Some(m) = margin.filter(|&m| m > 0.0) {
            self.orderings.push(([r, NodeId::NONE], [m, 0.0]));
        }
    }

    /// `*r`, `x as f64`, `e?`, a binding: operand 0's sensitivity is the value's.
    fn pass_through(&mut self, id: NodeId, refs: &[NodeId]) -> Option<()> {
        let r = refs.first().copied().filter(|r| !r.is_none())?;
        if self.class(r) != Class::F64 {
            return None;
        }
        self.edge(id, r, How::Pass);
        Some(())
    }
}

/// Whether a tangent `t` is a sliver of the part `through` that came through a coarse
/// rounding (`Sweep::forward_checks` reads 2⁻²⁰; this path declines at 2⁻¹⁶).
fn cancelled(t: f64, through: f64) -> bool {
    through != 0.0 && t.abs() < through.abs() / (1u64 << 16) as f64
}

/// Where the value of a node that is not a nested call is.
#[inline(always)]
fn slot_of(node: &Node) -> Slot {
    Slot {
        tag: node.tag,
        index: node.value,
    }
}

/// The value at `slot` where it is an `f64` (by value or behind a reference).
#[inline(always)]
fn float_at(store: &Store, slot: Slot) -> Option<f64> {
    (slot.tag & 0x8f == 14)
        .then(|| store.f64_at(slot))
        .flatten()
}

/// The class of a boxed value.
fn value_class(v: &Value) -> Class {
    if v.is_unit() {
        return Class::Unit;
    }
    if v.is_discrete() {
        return Class::Discrete;
    }
    match primal(v) {
        Some(Primal::Vector(_)) => Class::Vector,
        Some(_) => Class::Other,
        None => Class::Container,
    }
}

/// Two recorded floats that are the same value (both absent counts as the same).
fn same_float(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => same(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// Bit for bit, or both NaN: how the general sweep's witnesses compare a re-run with the
/// recorded value.
fn same(a: f64, b: f64) -> bool {
    crate::core::value::same_f64(a, b)
}

/// The first references of a node, without allocating.
struct Refs {
    ids: [NodeId; Refs::MAX],
    n: u8,
}

impl Refs {
    const MAX: usize = 4;

    fn as_slice(&self) -> &[NodeId] {
        &self.ids[..self.n as usize]
    }
}
