//! The fastest form of a compiled program: every register an `f64`, no type tags.
//!
//! A derivative program of scalar code (a gradient re-evaluated on new inputs) is float
//! arithmetic on float inputs, its integers only constants (`powi`'s exponents). The compiled
//! form of [`super::fast`] checks each operand's type tag at every instruction, which cost a
//! dozen instructions per operation; once the types are proved at compile time, the
//! instructions can read and write bare `f64`s.

use super::fast::{cmp_f64, int_of, Code, Elements, Instr};
use crate::core::op::CmpOp;
use crate::core::value::Scalar;
use std::borrow::Cow;

/// An operation on `f64` registers.
#[derive(Clone, Copy, Debug)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Neg,
    Unary(fn(f64) -> f64),
    Binary(fn(f64, f64) -> f64),
    Times,
    Over,
    /// `powi` by a constant exponent.
    Powi(i32),
    /// `k * a.powi(n)` for the constant `k` in register `b`: a derivative program's slope of
    /// `powi`, `n · xⁿ⁻¹`, fused from its two instructions ([`fuse_scaled_powi`]).
    ScaledPowi(i32),
    /// A comparison of two `f64`s: 1.0 when it holds, else 0.0.
    Cmp(CmpOp),
    /// `& | ^` and `!` on conditions (1.0 or 0.0).
    Logic(fn(bool, bool) -> bool),
    Not,
    /// `a` when the condition `c` (a comparison's register) is 1.0, else `b`.
    Select,
    /// The condition `a` (a comparison's register) must be this; else the guard numbered `c`
    /// fails.
    Guard(bool),
    /// `a + b * c` (or `b * c + a`, the sum's operands in the order written: where both are
    /// NaN, the first one's sign is the result's on x86): a product whose result only this sum
    /// read, fused into it ([`fuse_products`]); the product is rounded, then the sum, as the
    /// two instructions were.
    MulAdd(Order),
    /// `a + times(b, c)`: as `MulAdd`, for a derivative program's absorbing product (a
    /// cotangent times a slope, summed into a gradient).
    TimesAdd(Order),
    /// A run of summing instructions ([`Run`]), the one numbered `c` in `Lanes::runs`.
    Run,
}

/// Which operand of a fused sum comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    AddendFirst,
    ProductFirst,
}

impl Order {
    #[inline(always)]
    fn sum(self, addend: f64, product: f64) -> f64 {
        match self {
            Order::AddendFirst => addend + product,
            Order::ProductFirst => product + addend,
        }
    }
}

/// What a summing instruction adds to its addend `a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Term {
    /// `b * c` (`MulAdd`).
    Product,
    /// `times(b, c)` (`TimesAdd`).
    Absorbing,
    /// `b` (`Add`).
    Alone,
}

/// The order and term of a summing instruction: `MulAdd`, `TimesAdd` or `Add`, whose addend
/// is `a`.
fn summing(op: Op) -> Option<(Order, Term)> {
    match op {
        Op::MulAdd(o) => Some((o, Term::Product)),
        Op::TimesAdd(o) => Some((o, Term::Absorbing)),
        Op::Add => Some((Order::AddendFirst, Term::Alone)),
        _ => None,
    }
}

/// Consecutive summing instructions of one kind ([`summing`]) whose registers step by
/// constant strides, run as one loop ([`find_runs`]): a dot product (each sum adds to the
/// previous one's result, which nothing else reads: `s += w[i] * x[i]`, a primal's `r +=
/// x.powi(i)`, a gradient's `g += times(d, slope)`) or independent sums (`dx[i] += w[i] * d`,
/// the transposed product of a gradient). The same operations in the same order as the
/// instructions they replace, so the same bits; a loop instead of a dispatch per instruction.
#[derive(Clone, Copy, Debug)]
struct Run {
    dot: bool,
    order: Order,
    term: Term,
    len: u32,
    /// First register and stride of the addend (for a dot product, the first one only), the
    /// two factors and the result (for a dot product, only the last one is written).
    acc: (u32, i32),
    b: (u32, i32),
    c: (u32, i32),
    out: (u32, i32),
}

#[derive(Clone, Copy, Debug)]
struct LaneInstr {
    op: Op,
    a: u32,
    b: u32,
    c: u32,
    out: u32,
}

/// A compiled program whose inputs, results and float constants are all `f64`.
#[derive(Clone, Debug)]
pub(crate) struct Lanes {
    template: Vec<f64>,
    /// Inputs and constants: the registers before the results.
    base: usize,
    /// The registers of the scalar dynamic inputs, in the program's order.
    inputs: Vec<u32>,
    /// The vectors read by elements: each one's first register and how many it reads.
    elements: Vec<(u32, usize)>,
    instrs: Vec<LaneInstr>,
    runs: Vec<Run>,
    /// Which compiled program this is: the thread's registers keep the constants of the last
    /// one that ran, which a call of the same program need not write again.
    id: u64,
}

/// The next [`Lanes::id`].
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

thread_local! {
    /// The registers of the last program run on this thread, and its id.
    static REGISTERS: std::cell::RefCell<(Vec<f64>, u64)> =
        const { std::cell::RefCell::new((Vec::new(), 0)) };
}

impl Lanes {
    /// The `f64` form of a compiled program, when every register it reads or writes holds an
    /// `f64` (an integer constant read only as `powi`'s exponent is folded into the
    /// instruction) and it has no guard and no operation without an `f64` instruction.
    pub(crate) fn compile(
        template: &[Scalar],
        base: usize,
        inputs: &[u32],
        elements: &[Elements],
        instrs: &[Instr],
        outputs: &[u32],
    ) -> Option<Lanes> {
        // Registers a call writes: an exponent there is no constant, nor is a factor.
        let variable = |r: u32| {
            inputs.contains(&r)
                || elements
                    .iter()
                    .any(|e| (e.first..e.first + e.len as u32).contains(&r))
        };
        // Registers holding an `f64`, and registers holding a `bool` (as 1.0 or 0.0).
        let float = |r: u32| matches!(template.get(r as usize), Some(Scalar::F64(_))).then_some(r);
        let boolean =
            |r: u32| matches!(template.get(r as usize), Some(Scalar::Bool(_))).then_some(r);
        let mut lanes = Vec::with_capacity(instrs.len());
        for ins in instrs {
            let floats = |n: usize| -> Option<(u32, u32, u32)> {
                Some((
                    float(ins.a)?,
                    if n > 1 { float(ins.b)? } else { 0 },
                    float(ins.out)?,
                ))
            };
            let (op, (a, b, out), c) = match ins.code {
                Code::F64Add => (Op::Add, floats(2)?, 0),
                Code::F64Sub => (Op::Sub, floats(2)?, 0),
                Code::F64Mul => (Op::Mul, floats(2)?, 0),
                Code::F64Div => (Op::Div, floats(2)?, 0),
                Code::F64Rem => (Op::Rem, floats(2)?, 0),
                Code::F64Neg => (Op::Neg, floats(1)?, 0),
                Code::F64Unary(f) => (Op::Unary(f), floats(1)?, 0),
                Code::F64Binary(f) => (Op::Binary(f), floats(2)?, 0),
                Code::F64Times => (Op::Times, floats(2)?, 0),
                Code::F64Over => (Op::Over, floats(2)?, 0),
                Code::F64Powi => {
                    // A constant exponent (not an input, not a result) that fits an `i32`.
                    let e = ins.b as usize;
                    if e >= base || variable(ins.b) {
                        return None;
                    }
                    let n = i32::try_from(int_of(template[e])?).ok()?;
                    (Op::Powi(n), floats(1)?, 0)
                }
                Code::F64Cmp(o) => {
                    let (a, b) = (float(ins.a)?, float(ins.b)?);
                    (Op::Cmp(o), (a, b, boolean(ins.out)?), 0)
                }
                Code::Logic(f) => {
                    let (a, b) = (boolean(ins.a)?, boolean(ins.b)?);
                    (Op::Logic(f), (a, b, boolean(ins.out)?), 0)
                }
                Code::Not => (Op::Not, (boolean(ins.a)?, 0, boolean(ins.out)?), 0),
                Code::F64Select => {
                    let (a, b, out) = (float(ins.b)?, float(ins.c)?, float(ins.out)?);
                    (Op::Select, (a, b, out), boolean(ins.a)?)
                }
                // The guard's number in `c`, which only the operations that read it load.
                Code::Guard(expected) => (Op::Guard(expected), (boolean(ins.a)?, 0, 0), ins.step),
                _ => return None,
            };
            lanes.push(LaneInstr { op, a, b, c, out });
        }
        for &r in inputs.iter().chain(outputs) {
            float(r)?;
        }
        let lanes = fuse_scaled_powi(lanes, template.len(), base, &variable, outputs);
        let lanes = fuse_products(lanes, template.len(), outputs);
        let lanes = gather_chains(lanes, template.len(), outputs);
        let (lanes, runs) = find_runs(lanes, template.len(), outputs);
        let template = template
            .iter()
            .map(|s| match *s {
                Scalar::F64(x) => x,
                Scalar::Bool(b) => f64::from(u8::from(b)),
                // Never read: only a folded exponent is of another type.
                _ => 0.0,
            })
            .collect();
        Some(Lanes {
            template,
            base,
            inputs: inputs.to_vec(),
            elements: elements.iter().map(|e| (e.first, e.len)).collect(),
            instrs: lanes,
            runs,
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    /// Runs the program on its scalar dynamic inputs' values, in order, and the vectors it
    /// reads by elements (as long as it reads, or longer): what `finish` makes of the
    /// registers at the end, or the number of the guard that failed; `None` when an input is
    /// not an `f64` (`None` in `inputs`).
    pub(crate) fn run<R>(
        &self,
        inputs: impl Iterator<Item = Option<f64>>,
        vectors: &[Cow<'_, [f64]>],
        finish: impl FnOnce(&[f64]) -> R,
    ) -> Option<Result<R, u32>> {
        REGISTERS.with(|cell| match cell.try_borrow_mut() {
            Ok(mut last) => {
                let (regs, id) = &mut *last;
                let same = *id == self.id;
                *id = self.id;
                self.run_in(inputs, vectors, finish, regs, same)
            }
            Err(_) => self.run_in(inputs, vectors, finish, &mut Vec::new(), false),
        })
    }

    fn run_in<R>(
        &self,
        inputs: impl Iterator<Item = Option<f64>>,
        vectors: &[Cow<'_, [f64]>],
        finish: impl FnOnce(&[f64]) -> R,
        regs: &mut Vec<f64>,
        same: bool,
    ) -> Option<Result<R, u32>> {
        // As in `Fast::run`: results are written before they are read, so only the inputs
        // and constants are set; and no instruction writes below `base`, so after a run of
        // this very program the constants are still there (the dense layer's 4,096 weights:
        // 32 KB a call).
        if regs.len() >= self.template.len() {
            if !same {
                regs[..self.base].copy_from_slice(&self.template[..self.base]);
            }
        } else {
            regs.clear();
            regs.extend_from_slice(&self.template);
        }
        for (&r, x) in self.inputs.iter().zip(inputs) {
            regs[r as usize] = x?;
        }
        for (&(first, len), v) in self.elements.iter().zip(vectors) {
            regs[first as usize..first as usize + len].copy_from_slice(v.get(..len)?);
        }
        for ins in &self.instrs {
            let a = regs[ins.a as usize];
            let b = regs[ins.b as usize];
            regs[ins.out as usize] = match ins.op {
                Op::Add => a + b,
                Op::Sub => a - b,
                Op::Mul => a * b,
                Op::Div => a / b,
                Op::Rem => a % b,
                Op::Neg => -a,
                Op::Unary(f) => f(a),
                Op::Binary(f) => f(a, b),
                Op::Times => crate::core::eval::times_f64(a, b),
                Op::Over => crate::core::eval::over_f64(a, b),
                Op::Powi(n) => a.powi(n),
                Op::ScaledPowi(n) => b * a.powi(n),
                Op::Cmp(o) => f64::from(u8::from(cmp_f64(o, a, b))),
                Op::Logic(f) => f64::from(u8::from(f(a != 0.0, b != 0.0))),
                Op::Not => f64::from(u8::from(a == 0.0)),
                Op::Select => match regs[ins.c as usize] != 0.0 {
                    true => a,
                    false => b,
                },
                Op::Guard(expected) => {
                    if (a != 0.0) != expected {
                        return Some(Err(ins.c));
                    }
                    continue;
                }
                Op::MulAdd(order) => order.sum(a, b * regs[ins.c as usize]),
                Op::TimesAdd(order) => {
                    order.sum(a, crate::core::eval::times_f64(b, regs[ins.c as usize]))
                }
                Op::Run => {
                    run(&self.runs[ins.c as usize], regs);
                    continue;
                }
            };
        }
        Some(Ok(finish(regs)))
    }
}

/// Runs `r` on the registers `regs`. Not inlined: the dispatch loop of [`Lanes::run_in`]
/// compiles tighter without the loops' five forms in it (`h`'s gradient program: 13.6k → 12.8k
/// instructions a call, callgrind).
#[inline(never)]
fn run(r: &Run, regs: &mut [f64]) {
    use crate::core::eval::times_f64;
    // The order of the sums and their term decided once, outside the loops.
    let first = |a: f64, t: f64| a + t;
    let second = |a: f64, t: f64| t + a;
    match (r.order, r.term) {
        (Order::AddendFirst, Term::Product) => run_summing(r, regs, first, |b, c| b * c),
        (Order::ProductFirst, Term::Product) => run_summing(r, regs, second, |b, c| b * c),
        (Order::AddendFirst, Term::Absorbing) => run_summing(r, regs, first, times_f64),
        (Order::ProductFirst, Term::Absorbing) => run_summing(r, regs, second, times_f64),
        (_, Term::Alone) => run_summing(r, regs, first, |b, _| b),
    }
}

#[inline(always)]
fn run_summing(
    r: &Run,
    regs: &mut [f64],
    sum: impl Fn(f64, f64) -> f64,
    term: impl Fn(f64, f64) -> f64,
) {
    let len = r.len as usize;
    let (mut b, mut c) = (r.b.0 as isize, r.c.0 as isize);
    let (sb, sc) = (r.b.1 as isize, r.c.1 as isize);
    if r.dot {
        let mut acc = regs[r.acc.0 as usize];
        if sb == 1 && sc == 1 {
            let (b, c) = (b as usize, c as usize);
            for (&x, &y) in regs[b..b + len].iter().zip(&regs[c..c + len]) {
                acc = sum(acc, term(x, y));
            }
        } else {
            for _ in 0..len {
                acc = sum(acc, term(regs[b as usize], regs[c as usize]));
                b += sb;
                c += sc;
            }
        }
        let last = r.out.0 as isize + r.out.1 as isize * (len as isize - 1);
        regs[last as usize] = acc;
    } else {
        let (mut a, mut o) = (r.acc.0 as isize, r.out.0 as isize);
        let (sa, so) = (r.acc.1 as isize, r.out.1 as isize);
        for _ in 0..len {
            regs[o as usize] = sum(regs[a as usize], term(regs[b as usize], regs[c as usize]));
            a += sa;
            b += sb;
            c += sc;
            o += so;
        }
    }
}

/// The registers an operation reads, of `a`, `b`, `c`.
fn reads(op: Op) -> [bool; 3] {
    match op {
        Op::Neg | Op::Unary(_) | Op::Powi(_) | Op::Not | Op::Guard(_) => [true, false, false],
        Op::Select | Op::MulAdd(_) | Op::TimesAdd(_) => [true, true, true],
        Op::Run => [false, false, false],
        _ => [true, true, false],
    }
}

/// How many instructions read each of `registers` registers (an output counts as one).
fn uses_of(lanes: &[LaneInstr], registers: usize, outputs: &[u32]) -> Vec<u32> {
    let mut uses = vec![0u32; registers];
    for l in lanes {
        for (r, read) in [l.a, l.b, l.c].into_iter().zip(reads(l.op)) {
            if read {
                uses[r as usize] += 1;
            }
        }
    }
    for &r in outputs {
        uses[r as usize] += 1;
    }
    uses
}

/// The instructions of `lanes` not marked in `dead`, in order.
fn live(lanes: Vec<LaneInstr>, dead: &[bool]) -> Vec<LaneInstr> {
    lanes
        .into_iter()
        .zip(dead)
        .filter_map(|(l, &d)| (!d).then_some(l))
        .collect()
}

/// Fuses each product (`*`, or a derivative program's `times`) that only one sum reads into
/// that sum, at the sum's place (`MulAdd`, `TimesAdd`): half the instructions of a dot
/// product. The same two operations on the same values (registers are written once).
fn fuse_products(mut lanes: Vec<LaneInstr>, registers: usize, outputs: &[u32]) -> Vec<LaneInstr> {
    let uses = uses_of(&lanes, registers, outputs);
    let mut product: Vec<Option<usize>> = vec![None; registers];
    for (i, l) in lanes.iter().enumerate() {
        if matches!(l.op, Op::Mul | Op::Times) {
            product[l.out as usize] = Some(i);
        }
    }
    let mut dead = vec![false; lanes.len()];
    for j in 0..lanes.len() {
        let l = lanes[j];
        if !matches!(l.op, Op::Add) {
            continue;
        }
        let single = |r: u32| product[r as usize].filter(|&i| uses[r as usize] == 1 && !dead[i]);
        // `a + p` or `p + a` (a sum of two products fuses the second).
        let (i, addend, order) = match (single(l.b), single(l.a)) {
            (Some(i), _) => (i, l.a, Order::AddendFirst),
            (None, Some(i)) => (i, l.b, Order::ProductFirst),
            _ => continue,
        };
        let m = lanes[i];
        lanes[j] = LaneInstr {
            op: match m.op {
                Op::Times => Op::TimesAdd(order),
                _ => Op::MulAdd(order),
            },
            a: addend,
            b: m.a,
            c: m.b,
            out: l.out,
        };
        dead[i] = true;
    }
    live(lanes, &dead)
}

/// Replaces runs of at least [`MIN_RUN`] consecutive summing instructions of one kind whose
/// registers step by constant strides with one [`Run`] each.
fn find_runs(
    lanes: Vec<LaneInstr>,
    registers: usize,
    outputs: &[u32],
) -> (Vec<LaneInstr>, Vec<Run>) {
    let uses = uses_of(&lanes, registers, outputs);
    let stride = |x: u32, y: u32| i32::try_from(y as i64 - x as i64).ok();
    let mut out = Vec::with_capacity(lanes.len());
    let mut runs = Vec::new();
    let mut i = 0;
    while i < lanes.len() {
        let first = lanes[i];
        let Some(kind) = summing(first.op) else {
            out.push(first);
            i += 1;
            continue;
        };
        let next = lanes.get(i + 1).filter(|l| summing(l.op) == Some(kind));
        let Some(second) = next.copied() else {
            out.push(first);
            i += 1;
            continue;
        };
        // A dot product's addend is the previous sum: its stride is not read.
        let dot = second.a == first.out && uses[first.out as usize] == 1;
        let addend = if dot {
            Some(0)
        } else {
            stride(first.a, second.a)
        };
        let (sa, sb, sc, so) = match (
            addend,
            stride(first.b, second.b),
            stride(first.c, second.c),
            stride(first.out, second.out),
        ) {
            (Some(a), Some(b), Some(c), Some(o)) => (a, b, c, o),
            _ => {
                out.push(first);
                i += 1;
                continue;
            }
        };
        let at = |(f, s): (u32, i32), k: usize| f as i64 + s as i64 * k as i64;
        // Extend while the next instruction is the run's k-th.
        let mut len = 1;
        while let Some(l) = lanes.get(i + len) {
            let k = len;
            let fits = summing(l.op) == Some(kind)
                && l.b as i64 == at((first.b, sb), k)
                && l.c as i64 == at((first.c, sc), k)
                && l.out as i64 == at((first.out, so), k)
                && if dot {
                    l.a == lanes[i + k - 1].out && uses[lanes[i + k - 1].out as usize] == 1
                } else {
                    l.a as i64 == at((first.a, sa), k)
                };
            if !fits {
                break;
            }
            len += 1;
        }
        // Independent sums may run in any order only where none reads another's result.
        let independent = dot || {
            let written: std::collections::HashSet<u32> =
                lanes[i..i + len].iter().map(|l| l.out).collect();
            lanes[i..i + len]
                .iter()
                .all(|l| ![l.a, l.b, l.c].iter().any(|r| written.contains(r)))
        };
        if len < MIN_RUN || !independent {
            out.push(first);
            i += 1;
            continue;
        }
        out.push(LaneInstr {
            op: Op::Run,
            a: 0,
            b: 0,
            c: runs.len() as u32,
            out: lanes[i + len - 1].out,
        });
        runs.push(Run {
            dot,
            order: kind.0,
            term: kind.1,
            len: len as u32,
            acc: (first.a, sa),
            b: (first.b, sb),
            c: (first.c, sc),
            out: (first.out, so),
        });
        i += len;
    }
    (out, runs)
}

/// Moves the members of each chain of sums (each one's addend the result of the one before,
/// which nothing else reads) to the place of the last one, where other instructions were
/// written between them: a primal's `r += x.powi(i)` computes each power between two sums.
/// The chain is then consecutive, one [`Run`] for [`find_runs`]; chains whose registers do not
/// step by constant strides (which no run could take) stay as written. The same values: each
/// member reads registers written before its own place (registers are written once) or the
/// member before it, and only the member after it reads its result; a guard between them
/// fails the call whatever the sums gave.
fn gather_chains(lanes: Vec<LaneInstr>, registers: usize, outputs: &[u32]) -> Vec<LaneInstr> {
    let uses = uses_of(&lanes, registers, outputs);
    let mut writer: Vec<Option<usize>> = vec![None; registers];
    for (i, l) in lanes.iter().enumerate() {
        if summing(l.op).is_some() {
            writer[l.out as usize] = Some(i);
        }
    }
    // Each sum's member before it in its chain, and whether one comes after it.
    let mut before: Vec<Option<usize>> = vec![None; lanes.len()];
    let mut followed = vec![false; lanes.len()];
    for (j, l) in lanes.iter().enumerate() {
        let Some(kind) = summing(l.op) else { continue };
        if let Some(i) = writer[l.a as usize] {
            if uses[l.a as usize] == 1 && summing(lanes[i].op) == Some(kind) {
                before[j] = Some(i);
                followed[i] = true;
            }
        }
    }
    let mut moved = vec![false; lanes.len()];
    let mut chains = std::collections::HashMap::new();
    for last in 0..lanes.len() {
        if followed[last] || before[last].is_none() {
            continue;
        }
        let (mut members, mut k) = (vec![last], last);
        while let Some(i) = before[k] {
            members.push(i);
            k = i;
        }
        members.reverse();
        let consecutive = members.windows(2).all(|w| w[1] == w[0] + 1);
        // A member beside a sum of its kind may already be in a run of independent sums
        // (`dx[i] += w[j][i] * d[j]` for each `j`, the chains running across them): that run
        // is faster than the chains' dot products, whose sums wait on each other.
        let alone = |m: usize| {
            let kind = summing(lanes[m].op);
            let beside = |k: Option<usize>| k.and_then(|k| lanes.get(k)).map(|l| summing(l.op));
            beside(m.checked_sub(1)) != Some(kind) && beside(Some(m + 1)) != Some(kind)
        };
        let strided = |r: fn(&LaneInstr) -> u32| {
            let step = |w: &[usize]| r(&lanes[w[1]]) as i64 - r(&lanes[w[0]]) as i64;
            let first = step(&members[..2]);
            members.windows(2).all(|w| step(w) == first)
        };
        if members.len() < MIN_RUN
            || consecutive
            || !members.iter().all(|&m| alone(m))
            || !(strided(|l| l.b) && strided(|l| l.c) && strided(|l| l.out))
        {
            continue;
        }
        for &m in &members[..members.len() - 1] {
            moved[m] = true;
        }
        chains.insert(last, members);
    }
    if chains.is_empty() {
        return lanes;
    }
    let mut out = Vec::with_capacity(lanes.len());
    for (i, l) in lanes.iter().enumerate() {
        match chains.get(&i) {
            Some(members) => out.extend(members.iter().map(|&m| lanes[m])),
            None if !moved[i] => out.push(*l),
            None => {}
        }
    }
    out
}

/// The fewest instructions a [`Run`] replaces: below, the dispatch it saves does not pay for
/// its loop's setup.
const MIN_RUN: usize = 4;

/// Fuses each `powi` by a constant whose result only a product with a constant reads (`k ·
/// x.powi(n)`: the slope of `x.powi(n + 1)` a derivative rule writes) into one instruction
/// at the product's place: a quarter fewer instructions in the gradient program of a loop of
/// powers. Bit for bit the same: the same two operations, on the same values (registers are
/// written once, so `x` holds at the product what it held at the `powi`).
fn fuse_scaled_powi(
    mut lanes: Vec<LaneInstr>,
    registers: usize,
    base: usize,
    variable: &impl Fn(u32) -> bool,
    outputs: &[u32],
) -> Vec<LaneInstr> {
    let constant = |r: u32| (r as usize) < base && !variable(r);
    // For each register: how many instructions read it, and the `powi` that writes it, if one
    // does.
    let uses = uses_of(&lanes, registers, outputs);
    let mut powi = vec![None; registers];
    for (i, l) in lanes.iter().enumerate() {
        if let Op::Powi(n) = l.op {
            powi[l.out as usize] = Some((i, n));
        }
    }
    let mut dead = vec![false; lanes.len()];
    for j in 0..lanes.len() {
        let l = lanes[j];
        if !matches!(l.op, Op::Mul) {
            continue;
        }
        let (k, r) = match (constant(l.a), constant(l.b)) {
            (true, false) => (l.a, l.b),
            (false, true) => (l.b, l.a),
            _ => continue,
        };
        let Some((i, n)) = powi[r as usize].filter(|_| uses[r as usize] == 1) else {
            continue;
        };
        lanes[j] = LaneInstr {
            op: Op::ScaledPowi(n),
            a: lanes[i].a,
            b: k,
            c: 0,
            out: l.out,
        };
        dead[i] = true;
    }
    live(lanes, &dead)
}
