//! A program as plain data, for the layers that transform programs (derivative graphs,
//! `crate::diff`): its inputs, its operations in order with what each reads, its guards, and
//! building a program back from them.
//!
//! A transformation reads [`Program::parts`], adds or removes operations, and calls
//! [`Program::from_parts`], which puts every guard right after the operation computing its
//! condition and compiles the fast path again.

use super::fast::Fast;
use super::{Guard, InputSlot, Op, OpKind, Origin, Program, Src, Step};
use crate::core::value::Value;
use crate::view::operation::Operation;
use crate::view::trace::{Arg, NodeRef};

/// How an input enters a program.
#[derive(Clone, Debug)]
pub(crate) enum PartInput {
    /// A value each call passes: of this type, added by the `stage`-th differentiation (0 for
    /// the recorded function's own arguments).
    Dynamic {
        type_name: String,
        stage: u32,
        /// A value of the input's type and shape (the recorded one).
        sample: Value,
        /// Whether a differentiation was taken with respect to it: a zero it holds, or one
        /// computed from it, is a zero at this point only (`program::limit`).
        varies: bool,
        /// The vector's length the path read, and where ([`InputSlot::Dynamic`]).
        length: Option<(usize, Origin)>,
        /// The shape it must have (a derivative's direction, a cotangent).
        like: Option<super::Like>,
    },
    /// Fixed at its recorded value.
    Static(Value),
}

/// One operation.
#[derive(Clone, Debug)]
pub(crate) struct PartOp {
    pub operation: Operation,
    pub args: Vec<Src>,
    pub origin: Origin,
    /// A value of the operation's result type (the recorded one, for a replayed node).
    pub value: Value,
    /// Whether a differentiation rule made it: it computes part of a derivative, not a value
    /// of the recorded function (`program/limit.rs` tells a derivative's overflow by it).
    pub derived: bool,
}

/// One guard: the recorded path needs `condition == expected`.
#[derive(Clone, Debug)]
pub(crate) struct PartGuard {
    pub condition: Src,
    pub expected: bool,
    /// The condition's node, as the listing prints it (`@5`).
    pub condition_at: Option<usize>,
    pub origin: Origin,
}

/// A program taken apart.
#[derive(Clone, Debug)]
pub(crate) struct Parts {
    pub name: String,
    pub inputs: Vec<PartInput>,
    pub ops: Vec<PartOp>,
    pub guards: Vec<PartGuard>,
    pub output: Src,
}

impl Program {
    /// The program's parts; `Err` names the first operation that is not a re-executable one
    /// (a `switch` or `while_loop`, which decides what to run at every call) and says what it
    /// is.
    pub(crate) fn parts(&self) -> Result<Parts, (Origin, String)> {
        let mut ops = Vec::with_capacity(self.ops.len());
        for op in &self.ops {
            let operation = match &op.kind {
                OpKind::Run(o) => *o,
                other => return Err((op.origin.clone(), other.to_string())),
            };
            ops.push(PartOp {
                operation,
                args: op.args.clone(),
                origin: op.origin.clone(),
                value: op.recorded.clone(),
                derived: op.derived,
            });
        }
        let inputs = self
            .inputs
            .iter()
            .enumerate()
            .map(|(k, slot)| match slot {
                InputSlot::Dynamic {
                    type_name,
                    length,
                    like,
                } => PartInput::Dynamic {
                    type_name: type_name.clone(),
                    length: length.clone(),
                    like: like.clone(),
                    stage: self.stages.get(k).copied().unwrap_or(0),
                    sample: self.samples.get(k).cloned().unwrap_or(Value::UNIT),
                    varies: self.varies.get(k).copied().unwrap_or(false),
                },
                InputSlot::Static(v) => PartInput::Static(v.clone()),
            })
            .collect();
        let guards = self
            .guards
            .iter()
            .map(|g| PartGuard {
                condition: g.condition.clone(),
                expected: g.expected,
                condition_at: g.condition_at,
                origin: g.origin.clone(),
            })
            .collect();
        Ok(Parts {
            name: self.name.clone(),
            inputs,
            ops,
            guards,
            output: self.output.clone(),
        })
    }

    /// The program's parts with the values of a run on `args` in place of the recorded ones
    /// (the inputs' samples too): what building from a trace at those inputs would see, for a
    /// check made at a call (`program::ties`). `None` where the program cannot be taken apart
    /// or the run fails.
    pub(crate) fn parts_at(&self, args: &[Value]) -> Option<Parts> {
        let mut parts = self.parts().ok()?;
        let mut values: Vec<Option<Value>> = vec![None; self.ops.len()];
        self.evaluate(args, &mut |k, _, result| values[k] = Some(result.clone()))
            .ok()?;
        for (op, v) in parts.ops.iter_mut().zip(values) {
            if let Some(v) = v {
                op.value = v;
            }
        }
        for (input, v) in parts.inputs.iter_mut().zip(args) {
            if let PartInput::Dynamic { sample, .. } = input {
                *sample = v.clone();
            }
        }
        Some(parts)
    }

    /// This program as a derivative of `program`, whose inputs are its first ones: it keeps
    /// the program of the recorded function (`program`'s own, when `program` is a derivative
    /// too), where a NaN of the derivative is checked against the function's value
    /// (`program::limit`).
    pub(crate) fn deriving_from(mut self, program: &Program) -> Program {
        self.primal = Some(
            program
                .primal
                .clone()
                .unwrap_or_else(|| std::sync::Arc::new(program.clone())),
        );
        self
    }

    /// Builds a program from parts whose operations read only inputs, constants and earlier
    /// operations. Each guard is checked right after its condition is computed.
    pub(crate) fn from_parts(parts: Parts) -> Program {
        let mut steps = Vec::with_capacity(parts.ops.len() + parts.guards.len());
        let mut after: Vec<Vec<usize>> = vec![Vec::new(); parts.ops.len()];
        for (g, guard) in parts.guards.iter().enumerate() {
            match guard.condition {
                Src::Op(k) if k < after.len() => after[k].push(g),
                _ => steps.push(Step::Guard(g)),
            }
        }
        for (k, guards) in after.iter().enumerate() {
            steps.push(Step::Op(k));
            steps.extend(guards.iter().map(|&g| Step::Guard(g)));
        }
        let mut stages = Vec::with_capacity(parts.inputs.len());
        let mut samples = Vec::with_capacity(parts.inputs.len());
        let mut varies = Vec::with_capacity(parts.inputs.len());
        let inputs = parts
            .inputs
            .into_iter()
            .map(|i| match i {
                PartInput::Dynamic {
                    type_name,
                    stage,
                    sample,
                    varies: v,
                    length,
                    like,
                } => {
                    stages.push(stage);
                    samples.push(sample);
                    varies.push(v);
                    InputSlot::Dynamic {
                        type_name,
                        length,
                        like,
                    }
                }
                PartInput::Static(v) => {
                    stages.push(0);
                    samples.push(v.clone());
                    varies.push(false);
                    InputSlot::Static(v)
                }
            })
            .collect();
        let ops = parts
            .ops
            .into_iter()
            .map(|op| Op {
                kind: OpKind::Run(op.operation),
                args: op.args,
                origin: op.origin,
                recorded: op.value,
                derived: op.derived,
            })
            .collect();
        let guards = parts
            .guards
            .into_iter()
            .map(|g| Guard {
                condition: g.condition,
                expected: g.expected,
                condition_at: g.condition_at,
                origin: g.origin,
            })
            .collect();
        let mut p = Program {
            inputs,
            steps,
            ops,
            guards,
            output: parts.output,
            name: parts.name,
            fast: None,
            stages,
            samples,
            varies,
            primal: None,
            path_check: None,
        };
        p.fast = Fast::compile(&p);
        p
    }
}

/// The values the call `root` was given, in order (a literal argument read as its value).
pub(super) fn recorded_arguments(root: NodeRef<'_>) -> Vec<Value> {
    root.arguments()
        .into_iter()
        .map(|a| match a {
            Arg::Node(n) => n.raw_value(),
            Arg::Const(c) => crate::core::literal::value(c),
        })
        .collect()
}
