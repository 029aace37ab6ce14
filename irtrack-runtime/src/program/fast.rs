//! The fast path of a program whose inputs, constants and results are all scalars: typed
//! registers (16 bytes each) and instructions with their operands resolved to register
//! indices, the float operations as direct calls. Anything it has no instruction for runs
//! through the general evaluator on that one instruction.
//!
//! A vector of `f64`s is admitted where the program only reads its elements at constant
//! indices (a loop over a vector, unrolled by the recording): its elements are registers,
//! loaded at the call, so a read is no instruction. And a result that is a vector is admitted
//! where it is a gradient's `index_add` of such elements' cotangents into zeros of an input's
//! length: the pairs are added into a fresh vector at the end, in the kernel's order.

use super::lanes::Lanes;
use super::{InputSlot, OpKind, Program, ReplayError, Src, Step};
use crate::core::op::{BinOp, Builtin, CmpOp, FloatFn, ScalarType, UnOp};
use crate::core::value::{Form, Repr, Scalar, Value};
use crate::view::operation::{run_operation, Operation};
use std::borrow::Cow;

thread_local! {
    static REGISTERS: std::cell::RefCell<Vec<Scalar>> = const { std::cell::RefCell::new(Vec::new()) };
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Code {
    F64Add,
    F64Sub,
    F64Mul,
    F64Div,
    F64Rem,
    F64Neg,
    F64Cmp(CmpOp),
    F64Unary(fn(f64) -> f64),
    F64Binary(fn(f64, f64) -> f64),
    /// A derivative program's `times` and `over` (`core::eval::ScalarForm`).
    F64Times,
    F64Over,
    /// `select(c, a, b)` on a `bool` and two `f64`s (operands `a`, `b`, `c` of the instruction).
    F64Select,
    F64Powi,
    /// `& | ^` on two `bool`s, and `!` on one.
    Logic(fn(bool, bool) -> bool),
    Not,
    /// `+ - *` on two integers of one type, checked.
    IntArith(BinOp),
    IntCmp(CmpOp),
    /// Any other operation, through values.
    General(usize),
    /// A guard: the register must hold this bool.
    Guard(bool),
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Instr {
    pub(crate) code: Code,
    /// The operands' registers. An operation with fewer operands has register 0 in the
    /// others, which exists in every program with an instruction and which no code of that
    /// arity reads (`code_of` chooses a code by the number of operands).
    pub(crate) a: u32,
    pub(crate) b: u32,
    /// The third operand, of `select` (compiled only with three).
    pub(crate) c: u32,
    pub(crate) out: u32,
    /// The operation (for `General` and for errors) or the guard.
    pub(crate) step: u32,
}

/// A compiled program: a register file template (inputs, then constants, then results) and
/// the instructions.
#[derive(Clone, Debug)]
pub(crate) struct Fast {
    template: Vec<Scalar>,
    /// Where the results start in `template`: before are the inputs and constants.
    base: usize,
    /// The scalar dynamic inputs: the argument's position, its register, its type.
    inputs: Vec<(usize, u32, ScalarType)>,
    /// The dynamic inputs that are vectors of `f64`s read at constant indices.
    pub(crate) elements: Vec<Elements>,
    instrs: Vec<Instr>,
    /// For `General` instructions: the operation and its argument registers.
    general: Vec<(Operation, Vec<u32>)>,
    output: u32,
    /// The result, where it is a vector (then `output` is not read).
    pub(crate) scatter: Option<Scatter>,
    /// The same program on bare `f64` registers, when every value it handles is one.
    lanes: Option<Lanes>,
}

/// A dynamic input, a vector of `f64`s, that the program reads only at constant indices (and,
/// in a gradient, for its length): its elements `0..len` are the registers `first..first +
/// len`, written at the call.
#[derive(Clone, Debug)]
pub(crate) struct Elements {
    /// The argument's position among the program's inputs.
    pub(crate) arg: usize,
    pub(crate) first: u32,
    pub(crate) len: usize,
}

/// A result that is a vector of `f64`s: zeros as long as the argument `like`, with the
/// register of each pair added at its index, in order, as a gradient's `index_add` adds them.
#[derive(Clone, Debug)]
pub(crate) struct Scatter {
    pub(crate) like: usize,
    pub(crate) pairs: Vec<(usize, u32)>,
    /// One more than the largest index: a shorter `like` leaves the result to the general
    /// evaluator, which names the index out of bounds.
    pub(crate) min_len: usize,
}

impl Elements {
    /// The slices of `args` for `elements`, in order, where each is a vector of `f64`s at least
    /// as long as the program reads.
    fn slices<'a>(elements: &[Elements], args: &'a [Value]) -> Option<Vec<Cow<'a, [f64]>>> {
        elements
            .iter()
            .map(|e| args.get(e.arg)?.floats().filter(|v| v.len() >= e.len))
            .collect()
    }
}

impl Scatter {
    /// The result vector, reading the pairs' registers with `read`; `None` where `like` is too
    /// short for an index.
    fn build(&self, args: &[Value], read: impl Fn(u32) -> Option<f64>) -> Option<Value> {
        let n = args.get(self.like)?.floats()?.len();
        if n < self.min_len {
            return None;
        }
        let mut z = vec![0.0; n];
        for &(i, r) in &self.pairs {
            z[i] += read(r)?;
        }
        Some(Value::snapshot(z))
    }
}

fn scalar_of(v: &Value) -> Option<Scalar> {
    match &v.0 {
        Repr::Scalar(Scalar::Unit, _) | Repr::Boxed(_) => None,
        Repr::Scalar(s, _) => Some(*s),
    }
}

fn f64_unary(f: FloatFn) -> Option<fn(f64) -> f64> {
    Some(match f {
        FloatFn::Sin => f64::sin,
        FloatFn::Cos => f64::cos,
        FloatFn::Tan => f64::tan,
        FloatFn::Asin => f64::asin,
        FloatFn::Acos => f64::acos,
        FloatFn::Atan => f64::atan,
        FloatFn::Sinh => f64::sinh,
        FloatFn::Cosh => f64::cosh,
        FloatFn::Tanh => f64::tanh,
        FloatFn::Asinh => f64::asinh,
        FloatFn::Acosh => f64::acosh,
        FloatFn::Atanh => f64::atanh,
        FloatFn::Exp => f64::exp,
        FloatFn::Exp2 => f64::exp2,
        FloatFn::ExpM1 => f64::exp_m1,
        FloatFn::Ln => f64::ln,
        FloatFn::Ln1p => f64::ln_1p,
        FloatFn::Log10 => f64::log10,
        FloatFn::Log2 => f64::log2,
        FloatFn::Sqrt => f64::sqrt,
        FloatFn::Cbrt => f64::cbrt,
        FloatFn::Abs => f64::abs,
        FloatFn::Recip => f64::recip,
        FloatFn::ToDegrees => f64::to_degrees,
        FloatFn::ToRadians => f64::to_radians,
        FloatFn::Signum => f64::signum,
        FloatFn::Floor => f64::floor,
        FloatFn::Ceil => f64::ceil,
        FloatFn::Round => f64::round,
        FloatFn::RoundTiesEven => f64::round_ties_even,
        FloatFn::Trunc => f64::trunc,
        FloatFn::Fract => f64::fract,
        _ => return None,
    })
}

fn f64_binary(f: FloatFn) -> Option<fn(f64, f64) -> f64> {
    Some(match f {
        FloatFn::Powf => f64::powf,
        FloatFn::Max => f64::max,
        FloatFn::Min => f64::min,
        FloatFn::Atan2 => f64::atan2,
        FloatFn::Hypot => f64::hypot,
        FloatFn::Log => f64::log,
        FloatFn::Copysign => f64::copysign,
        FloatFn::RemEuclid => f64::rem_euclid,
        FloatFn::DivEuclid => f64::div_euclid,
        _ => return None,
    })
}

impl Fast {
    /// Compiles `p`, if every value it handles is a scalar (or a vector of `f64`s as the
    /// module's documentation says) and every operation is a re-executable one (a `switch`
    /// or `while_loop` runs programs of its own).
    pub(crate) fn compile(p: &Program) -> Option<Fast> {
        if !p.ops.iter().all(|op| matches!(op.kind, OpKind::Run(_))) {
            return None;
        }
        let mut template = Vec::new();
        let mut inputs = Vec::new();
        let mut input_reg = Vec::new();
        let mut elements = Vec::new();
        for (pos, slot) in p.inputs.iter().enumerate() {
            match slot {
                InputSlot::Dynamic { type_name, .. } => {
                    let name = super::run::referent(type_name);
                    input_reg.push(None);
                    if is_f64_vector(name) {
                        let len = elements_read(p, pos)?;
                        elements.push(Elements {
                            arg: pos,
                            first: template.len() as u32,
                            len,
                        });
                        template.resize(template.len() + len, Scalar::F64(0.0));
                        continue;
                    }
                    let ty = ScalarType::from_name(name)?;
                    input_reg[pos] = Some(template.len() as u32);
                    inputs.push((pos, template.len() as u32, ty));
                    // A placeholder of the input's type, so instructions are chosen by it.
                    let zero = if ty == ScalarType::Char {
                        Value::snapshot('\0')
                    } else {
                        crate::core::eval::literal_as(
                            if ty == ScalarType::Bool { "false" } else { "0" },
                            ty,
                        )?
                    };
                    template.push(scalar_of(&zero)?);
                }
                InputSlot::Static(_) => input_reg.push(None),
            }
        }
        // The operations that are no instruction: a read of an element (its register is the
        // element's), and the zeros and `index_add` of a vector result.
        let mut alias: Vec<Option<u32>> = vec![None; p.ops.len()];
        let mut zeros = vec![None; p.ops.len()];
        for (k, op) in p.ops.iter().enumerate() {
            let block = |a: &Src| match a {
                Src::Input(i) => elements.iter().find(|e| e.arg == *i),
                _ => None,
            };
            match (vector_form(op), op.args.first().and_then(block)) {
                (Some(VectorForm::Element), Some(e)) => {
                    alias[k] = Some(e.first + const_index(&op.args[1])? as u32);
                }
                (Some(VectorForm::Zeros), Some(e)) => zeros[k] = Some(e.arg),
                _ => {}
            }
        }
        let scatter_op = match &p.output {
            Src::Op(k) => match (vector_form(&p.ops[*k]), p.ops[*k].args.first()) {
                (Some(VectorForm::IndexAdd), Some(Src::Op(z))) if zeros[*z].is_some() => Some(*k),
                _ => None,
            },
            _ => None,
        };
        let skipped = |k: usize| alias[k].is_some() || zeros[k].is_some() || scatter_op == Some(k);
        // Constants get registers as they are met; results are placed after all of them, so
        // collect constants first.
        let mut consts: Vec<(Scalar, u32)> = Vec::new();
        let mut const_reg = |v: &Value, template: &mut Vec<Scalar>| -> Option<u32> {
            let s = scalar_of(v)?;
            if let Some((_, r)) = consts.iter().find(|(c, _)| same_bits(*c, s)) {
                return Some(*r);
            }
            let r = template.len() as u32;
            template.push(s);
            consts.push((s, r));
            Some(r)
        };
        // An operand's register, a result's as `u32::MAX - k` until `base` is known. A vector
        // (an input read by elements, the zeros, the result) is no operand.
        let mut operand = |a: &Src, template: &mut Vec<Scalar>| -> Option<u32> {
            match a {
                Src::Input(k) => input_reg[*k],
                Src::Op(k) if alias[*k].is_some() => alias[*k],
                Src::Op(k) if zeros[*k].is_some() || scatter_op == Some(*k) => None,
                Src::Op(k) => Some(u32::MAX - *k as u32),
                Src::Const(v) => const_reg(v, template),
            }
        };
        let mut srcs_regs: Vec<Vec<u32>> = Vec::with_capacity(p.ops.len());
        let mut guard_regs: Vec<u32> = Vec::with_capacity(p.guards.len());
        let mut pairs = Vec::new();
        for (k, op) in p.ops.iter().enumerate() {
            let mut regs = Vec::with_capacity(op.args.len());
            if scatter_op == Some(k) {
                for pair in op.args[1..].chunks(2) {
                    let [i, t] = pair else { return None };
                    pairs.push((const_index(i)?, operand(t, &mut template)?));
                }
            } else if !skipped(k) {
                for a in &op.args {
                    regs.push(operand(a, &mut template)?);
                }
            }
            srcs_regs.push(regs);
        }
        for g in &p.guards {
            guard_regs.push(operand(&g.condition, &mut template)?);
        }
        let output = match scatter_op {
            Some(_) => 0,
            None => operand(&p.output, &mut template)?,
        };
        let base = template.len() as u32;
        let fix = |r: u32| {
            if r > u32::MAX / 2 {
                base + (u32::MAX - r)
            } else {
                r
            }
        };
        for (k, op) in p.ops.iter().enumerate() {
            // A skipped operation's register is never read: a placeholder.
            template.push(match skipped(k) {
                true => Scalar::F64(0.0),
                false => scalar_of(&op.recorded)?,
            });
        }
        let mut instrs = Vec::with_capacity(p.steps.len());
        let mut general = Vec::new();
        for step in &p.steps {
            match *step {
                Step::Op(k) if skipped(k) => {}
                Step::Op(k) => {
                    let op = &p.ops[k];
                    let OpKind::Run(operation) = &op.kind else {
                        return None;
                    };
                    let operation = *operation;
                    let regs: Vec<u32> = srcs_regs[k].iter().map(|&r| fix(r)).collect();
                    let ty = |i: usize| template.get(regs[i] as usize).map(scalar_type);
                    let out_ty = scalar_type(&template[(base as usize) + k]);
                    let code = code_of(operation, &regs, ty, out_ty);
                    let code = match code {
                        Some(c) => c,
                        None => {
                            general.push((operation, regs.clone()));
                            Code::General(general.len() - 1)
                        }
                    };
                    instrs.push(Instr {
                        code,
                        a: regs.first().copied().unwrap_or(0),
                        b: regs.get(1).copied().unwrap_or(0),
                        c: regs.get(2).copied().unwrap_or(0),
                        out: base + k as u32,
                        step: k as u32,
                    });
                }
                Step::Guard(g) => instrs.push(Instr {
                    code: Code::Guard(p.guards[g].expected),
                    a: fix(guard_regs[g]),
                    b: 0,
                    c: 0,
                    out: 0,
                    step: g as u32,
                }),
            }
        }
        let output = fix(output);
        let scatter = scatter_op.map(|k| {
            let like = zeros[match p.ops[k].args[0] {
                Src::Op(z) => z,
                _ => unreachable!("a scatter's base is a zeros operation"),
            }]
            .expect("a scatter's base is a vector input's zeros");
            let pairs: Vec<(usize, u32)> = pairs.iter().map(|&(i, r)| (i, fix(r))).collect();
            Scatter {
                like,
                // No pair needs no element: any length will do.
                min_len: pairs.iter().fold(0, |n, &(i, _)| n.max(i + 1)),
                pairs,
            }
        });
        let input_regs: Vec<u32> = inputs.iter().map(|&(_, r, _)| r).collect();
        let outputs: Vec<u32> = match &scatter {
            Some(s) => s.pairs.iter().map(|&(_, r)| r).collect(),
            None => vec![output],
        };
        let lanes = Lanes::compile(
            &template,
            base as usize,
            &input_regs,
            &elements,
            &instrs,
            &outputs,
        );
        Some(Fast {
            template,
            base: base as usize,
            inputs,
            elements,
            instrs,
            general,
            output,
            scatter,
            lanes,
        })
    }

    pub(crate) fn has_lanes(&self) -> bool {
        self.lanes.is_some()
    }

    /// Runs the compiled program on `args` (already checked by `Program::check`).
    pub(crate) fn run(&self, p: &Program, args: &[Value]) -> Result<Value, ReplayError> {
        // The vectors read by elements; one shorter than the program reads goes the general
        // way, which names the index out of bounds.
        let slices = match self.elements.is_empty() {
            true => Vec::new(),
            false => match Elements::slices(&self.elements, args) {
                Some(s) => s,
                None => return p.call_general(args),
            },
        };
        if let Some(lanes) = &self.lanes {
            let scalars = self
                .inputs
                .iter()
                .map(|&(pos, _, _)| match scalar_of(&args[pos]) {
                    Some(Scalar::F64(x)) => Some(x),
                    _ => None,
                });
            // `None`: an input that is not an `f64`, for the typed registers below.
            let finish = |regs: &[f64]| match &self.scatter {
                Some(s) => s.build(args, |r| regs.get(r as usize).copied()),
                None => Some(Value(Repr::Scalar(
                    Scalar::F64(regs[self.output as usize]),
                    Form::Val,
                ))),
            };
            match lanes.run(scalars, &slices, finish) {
                Some(Ok(Some(v))) => return Ok(v),
                Some(Ok(None)) => return p.call_general(args),
                Some(Err(g)) => return Err(guard_failed(p, g)),
                None => {}
            }
        }
        // The thread's register file, reused: a program of a few hundred operations spends a
        // tenth of its time allocating and copying a fresh one. Busy when a program runs
        // inside an operation of another (a registered function that calls one).
        REGISTERS.with(|cell| match cell.try_borrow_mut() {
            Ok(mut regs) => self.run_in(p, args, &slices, &mut regs),
            Err(_) => self.run_in(p, args, &slices, &mut Vec::new()),
        })
    }

    fn run_in(
        &self,
        p: &Program,
        args: &[Value],
        slices: &[Cow<'_, [f64]>],
        regs: &mut Vec<Scalar>,
    ) -> Result<Value, ReplayError> {
        // Only the inputs and constants need their values: each result's register is written
        // by its operation before anything reads it (operations refer to earlier ones only),
        // so what an earlier run left there is never seen.
        if regs.len() >= self.template.len() {
            regs[..self.base].copy_from_slice(&self.template[..self.base]);
        } else {
            regs.clear();
            regs.extend_from_slice(&self.template);
        }
        for &(pos, r, ty) in &self.inputs {
            match scalar_of(&args[pos]) {
                Some(s) if scalar_type(&s) == ty => regs[r as usize] = s,
                _ => return p.call_general(args),
            }
        }
        for (e, v) in self.elements.iter().zip(slices) {
            let block = &mut regs[e.first as usize..e.first as usize + e.len];
            for (r, &x) in block.iter_mut().zip(v.iter()) {
                *r = Scalar::F64(x);
            }
        }
        for ins in &self.instrs {
            let a = regs[ins.a as usize];
            let b = regs[ins.b as usize];
            let out = match (ins.code, a, b) {
                (Code::F64Add, Scalar::F64(x), Scalar::F64(y)) => Scalar::F64(x + y),
                (Code::F64Sub, Scalar::F64(x), Scalar::F64(y)) => Scalar::F64(x - y),
                (Code::F64Mul, Scalar::F64(x), Scalar::F64(y)) => Scalar::F64(x * y),
                (Code::F64Div, Scalar::F64(x), Scalar::F64(y)) => Scalar::F64(x / y),
                (Code::F64Times, Scalar::F64(x), Scalar::F64(y)) => {
                    Scalar::F64(crate::core::eval::times_f64(x, y))
                }
                (Code::F64Over, Scalar::F64(x), Scalar::F64(y)) => {
                    Scalar::F64(crate::core::eval::over_f64(x, y))
                }
                (Code::F64Select, Scalar::Bool(c), b) => match c {
                    true => b,
                    false => regs[ins.c as usize],
                },
                (Code::F64Rem, Scalar::F64(x), Scalar::F64(y)) => Scalar::F64(x % y),
                (Code::Logic(f), Scalar::Bool(x), Scalar::Bool(y)) => Scalar::Bool(f(x, y)),
                (Code::Not, Scalar::Bool(x), _) => Scalar::Bool(!x),
                (Code::F64Neg, Scalar::F64(x), _) => Scalar::F64(-x),
                (Code::F64Cmp(c), Scalar::F64(x), Scalar::F64(y)) => Scalar::Bool(cmp_f64(c, x, y)),
                (Code::F64Unary(f), Scalar::F64(x), _) => Scalar::F64(f(x)),
                (Code::F64Binary(f), Scalar::F64(x), Scalar::F64(y)) => Scalar::F64(f(x, y)),
                (Code::F64Powi, Scalar::F64(x), n) => {
                    match int_of(n).and_then(|n| i32::try_from(n).ok()) {
                        Some(n) => Scalar::F64(x.powi(n)),
                        None => return self.general(p, ins, regs),
                    }
                }
                (Code::IntArith(o), x, y) => match int_arith(o, x, y) {
                    Some(r) => r,
                    None => return self.general(p, ins, regs),
                },
                // As `i128`s: a `u64` past `i64::MAX` compares too (it was refused as having
                // no value, where the interpreter gave one).
                (Code::IntCmp(c), x, y) => match (x.as_i128(), y.as_i128()) {
                    (Some(x), Some(y)) => Scalar::Bool(cmp_ord(c, x.cmp(&y))),
                    _ => return self.general(p, ins, regs),
                },
                (Code::Guard(expected), Scalar::Bool(v), _) => {
                    if v != expected {
                        return Err(guard_failed(p, ins.step));
                    }
                    continue;
                }
                (Code::General(k), _, _) => {
                    let (op, ref arg_regs) = self.general[k];
                    let values: Vec<Value> = arg_regs
                        .iter()
                        .map(|&r| Value(Repr::Scalar(regs[r as usize], Form::Val)))
                        .collect();
                    let v = run_operation(op, &values).map_err(|error| ReplayError::Eval {
                        at: p.ops[ins.step as usize].origin.clone(),
                        error,
                    })?;
                    match scalar_of(&v) {
                        Some(s) => s,
                        None => return p.call_general(args),
                    }
                }
                // An operand of another type than compiled for: let the general path decide.
                _ => return p.call_general(args),
            };
            regs[ins.out as usize] = out;
        }
        let Some(scatter) = &self.scatter else {
            return Ok(Value(Repr::Scalar(regs[self.output as usize], Form::Val)));
        };
        let read = |r: u32| match regs[r as usize] {
            Scalar::F64(x) => Some(x),
            _ => None,
        };
        match scatter.build(args, read) {
            Some(v) => Ok(v),
            None => p.call_general(args),
        }
    }

    /// An instruction whose fast form cannot give the answer (an overflow, an exponent out of
    /// range): the general evaluator gives the error.
    #[cold]
    fn general(&self, p: &Program, ins: &Instr, regs: &[Scalar]) -> Result<Value, ReplayError> {
        let op = &p.ops[ins.step as usize];
        let values: Vec<Value> = [ins.a, ins.b]
            .iter()
            .take(op.args.len())
            .map(|&r| Value(Repr::Scalar(regs[r as usize], Form::Val)))
            .collect();
        // Only re-executable operations are compiled (see `compile`).
        let OpKind::Run(operation) = &op.kind else {
            return Err(ReplayError::Unsupported {
                at: op.origin.clone(),
                reason: "not a compiled operation".into(),
            });
        };
        match run_operation(*operation, &values) {
            Err(error) => Err(ReplayError::Eval {
                at: op.origin.clone(),
                error,
            }),
            Ok(_) => Err(ReplayError::Eval {
                at: op.origin.clone(),
                error: crate::core::eval::EvalError::Domain(
                    "the operation has no value on these operands".into(),
                ),
            }),
        }
    }
}

/// The error of the guard numbered `g` of `p`.
#[cold]
fn guard_failed(p: &Program, g: u32) -> ReplayError {
    let g = &p.guards[g as usize];
    ReplayError::Guard {
        at: g.origin.clone(),
        condition: super::guard_condition(g.condition_at, g.expected),
    }
}

/// `a o b` for two integers of one type, `None` on overflow (the general evaluator then gives
/// the error) or for other operands.
fn int_arith(o: BinOp, a: Scalar, b: Scalar) -> Option<Scalar> {
    macro_rules! arith {
        ($($v:ident),*) => {
            match (a, b) {
                $((Scalar::$v(x), Scalar::$v(y)) => Some(Scalar::$v(match o {
                    BinOp::Add => x.checked_add(y)?,
                    BinOp::Sub => x.checked_sub(y)?,
                    BinOp::Mul => x.checked_mul(y)?,
                    _ => return None,
                })),)*
                _ => None,
            }
        };
    }
    arith!(I8, I16, I32, I64, Isize, U8, U16, U32, U64, Usize)
}

/// Whether a dynamic input's type (behind its references) is a vector of `f64`s, read by
/// the general evaluator as one (`Value::floats`).
fn is_f64_vector(name: &str) -> bool {
    matches!(
        name.strip_prefix("alloc::vec::").unwrap_or(name),
        "Vec<f64>" | "[f64]"
    )
}

/// What a vector operation is to the fast path.
#[derive(Clone, Copy, PartialEq, Eq)]
enum VectorForm {
    /// `v[i]`.
    Element,
    /// `zeros_like(v)`.
    Zeros,
    /// `index_add(v, i₁, t₁, …)`.
    IndexAdd,
}

fn vector_form(op: &super::Op) -> Option<VectorForm> {
    use crate::core::eval::ScalarForm;
    match op.kind {
        OpKind::Run(Operation::Builtin(Builtin::Index)) if op.args.len() == 2 => {
            Some(VectorForm::Element)
        }
        OpKind::Run(Operation::Registered(k)) => match crate::core::eval::lookup(k.id)?.scalar? {
            ScalarForm::Zeros if op.args.len() == 1 => Some(VectorForm::Zeros),
            ScalarForm::IndexAdd if op.args.len() % 2 == 1 => Some(VectorForm::IndexAdd),
            _ => None,
        },
        _ => None,
    }
}

/// A constant index (a non-negative integer).
fn const_index(a: &Src) -> Option<usize> {
    match a {
        Src::Const(v) => usize::try_from(int_of(scalar_of(v)?)?).ok(),
        _ => None,
    }
}

/// How many elements of the vector input `arg` the program reads (one more than the largest
/// index), where it reads it only by `v[i]` at constant indices and by `zeros_like(v)`.
fn elements_read(p: &Program, arg: usize) -> Option<usize> {
    let mut len = 0;
    let is_arg = |a: &Src| matches!(a, Src::Input(i) if *i == arg);
    for op in &p.ops {
        for (j, a) in op.args.iter().enumerate() {
            if !is_arg(a) {
                continue;
            }
            match (vector_form(op), j) {
                (Some(VectorForm::Element), 0) => len = len.max(const_index(&op.args[1])? + 1),
                (Some(VectorForm::Zeros), 0) => {}
                _ => return None,
            }
        }
    }
    let read = p.guards.iter().map(|g| &g.condition).chain([&p.output]);
    if read.into_iter().any(is_arg) {
        return None;
    }
    Some(len)
}

fn same_bits(a: Scalar, b: Scalar) -> bool {
    match (a, b) {
        (Scalar::F64(x), Scalar::F64(y)) => x.to_bits() == y.to_bits(),
        (Scalar::F32(x), Scalar::F32(y)) => x.to_bits() == y.to_bits(),
        (x, y) => x == y,
    }
}

fn scalar_type(s: &Scalar) -> ScalarType {
    ScalarType::from_name(Value(Repr::Scalar(*s, Form::Val)).type_name())
        .unwrap_or(ScalarType::Bool)
}

pub(crate) fn int_of(s: Scalar) -> Option<i64> {
    Value(Repr::Scalar(s, Form::Val)).as_i64()
}

fn cmp_ord(c: CmpOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match c {
        CmpOp::Eq => o == Equal,
        CmpOp::Ne => o != Equal,
        CmpOp::Lt => o == Less,
        CmpOp::Le => o != Greater,
        CmpOp::Gt => o == Greater,
        CmpOp::Ge => o != Less,
    }
}

pub(crate) fn cmp_f64(c: CmpOp, x: f64, y: f64) -> bool {
    match c {
        CmpOp::Eq => x == y,
        CmpOp::Ne => x != y,
        CmpOp::Lt => x < y,
        CmpOp::Le => x <= y,
        CmpOp::Gt => x > y,
        CmpOp::Ge => x >= y,
    }
}

/// The fast instruction for an operation on operands of the given types, if there is one.
fn code_of(
    op: Operation,
    regs: &[u32],
    ty: impl Fn(usize) -> Option<ScalarType>,
    out: ScalarType,
) -> Option<Code> {
    use ScalarType as T;
    let two = regs.len() == 2;
    let (t0, t1) = (ty(0), if two { ty(1) } else { None });
    let f64s = t0 == Some(T::F64) && (!two || t1 == Some(T::F64));
    let b = match op {
        Operation::Builtin(b) => b,
        // `select(c, a, b)`: its operands' types checked here, so that the instruction need
        // only look at the condition's.
        Operation::Registered(k)
            if regs.len() == 3
                && t0 == Some(T::Bool)
                && ty(1) == Some(T::F64)
                && ty(2) == Some(T::F64)
                && out == T::F64 =>
        {
            use crate::core::eval::ScalarForm;
            return match crate::core::eval::lookup(k.id)?.scalar? {
                ScalarForm::Select => Some(Code::F64Select),
                _ => None,
            };
        }
        // A registered operation with a form on two `f64`s (a derivative program's `times`).
        Operation::Registered(k) if f64s && two && out == T::F64 => {
            use crate::core::eval::ScalarForm;
            return crate::core::eval::lookup(k.id)?
                .scalar
                .and_then(|f| match f {
                    ScalarForm::Times => Some(Code::F64Times),
                    ScalarForm::Over => Some(Code::F64Over),
                    _ => None,
                });
        }
        _ => return None,
    };
    let int_like = |t: Option<ScalarType>| {
        matches!(
            t,
            Some(
                T::I8
                    | T::I16
                    | T::I32
                    | T::I64
                    | T::Isize
                    | T::U8
                    | T::U16
                    | T::U32
                    | T::U64
                    | T::Usize
            )
        )
    };
    Some(match b {
        Builtin::Binary(o) | Builtin::Assign(o) if f64s && two && out == T::F64 => match o {
            BinOp::Add => Code::F64Add,
            BinOp::Sub => Code::F64Sub,
            BinOp::Mul => Code::F64Mul,
            BinOp::Div => Code::F64Div,
            BinOp::Rem => Code::F64Rem,
            _ => return None,
        },
        Builtin::Binary(o @ (BinOp::Add | BinOp::Sub | BinOp::Mul))
        | Builtin::Assign(o @ (BinOp::Add | BinOp::Sub | BinOp::Mul))
            if two && t0 == t1 && int_like(t0) =>
        {
            Code::IntArith(o)
        }
        Builtin::Unary(UnOp::Neg) if t0 == Some(T::F64) && !two => Code::F64Neg,
        Builtin::Binary(o) if two && t0 == Some(T::Bool) && t1 == Some(T::Bool) => match o {
            BinOp::BitAnd => Code::Logic(|x, y| x & y),
            BinOp::BitOr => Code::Logic(|x, y| x | y),
            BinOp::BitXor => Code::Logic(|x, y| x ^ y),
            _ => return None,
        },
        Builtin::Unary(UnOp::Not) if t0 == Some(T::Bool) && !two => Code::Not,
        Builtin::Compare(c) if f64s && two => Code::F64Cmp(c),
        Builtin::Compare(c) if two && t0 == t1 && int_like(t0) => Code::IntCmp(c),
        Builtin::Method(FloatFn::Powi) if t0 == Some(T::F64) && int_like(t1) => Code::F64Powi,
        Builtin::Method(f) if f64s && f.arity() == 1 && !two => Code::F64Unary(f64_unary(f)?),
        Builtin::Method(f) if f64s && f.arity() == 2 && two => Code::F64Binary(f64_binary(f)?),
        _ => return None,
    })
}
