//! Running a derivative program in stages, as its emitted closures do: the operations that
//! read only the inputs of stage 0 once, then those of stage 1 for each direction, and so on.
//! A Hessian column or a Jacobian column then costs only the operations that read its
//! direction.

use super::error::DiffError;
use crate::core::value::Value;
use crate::program::{PartInput, Parts, Program, ReplayError, Src};
use crate::view::operation::run_operation;

/// A program split by stage.
pub(crate) struct Staged {
    parts: Parts,
    /// The stage of each operation: the highest stage of the inputs it depends on.
    op_stage: Vec<u32>,
    /// The guards to check after each operation (those whose condition it computes).
    after: Vec<Vec<usize>>,
    /// The guards on an input, with the input's stage.
    on_inputs: Vec<(usize, u32)>,
}

/// The values computed so far: every operation of the stages run.
pub(crate) struct Env {
    regs: Vec<Option<Value>>,
    inputs: Vec<Value>,
}

impl Staged {
    pub(crate) fn new(p: &Program) -> Result<Staged, DiffError> {
        let parts = p.parts().map_err(|(at, what)| DiffError::Unsupported {
            at,
            reason: format!("`{what}` cannot be run in stages"),
        })?;
        let input_stage: Vec<u32> = parts
            .inputs
            .iter()
            .map(|i| match i {
                PartInput::Dynamic { stage, .. } => *stage,
                PartInput::Static(_) => 0,
            })
            .collect();
        let mut op_stage = Vec::with_capacity(parts.ops.len());
        let stage_of = |s: &Src, op_stage: &[u32]| match s {
            Src::Input(k) => input_stage[*k],
            Src::Op(k) => op_stage[*k],
            Src::Const(_) => 0,
        };
        for op in &parts.ops {
            let s = op
                .args
                .iter()
                .map(|a| stage_of(a, &op_stage))
                .max()
                .unwrap_or(0);
            op_stage.push(s);
        }
        let mut after = vec![Vec::new(); parts.ops.len()];
        let mut on_inputs = Vec::new();
        for (i, g) in parts.guards.iter().enumerate() {
            match g.condition {
                Src::Op(k) => after[k].push(i),
                ref s => on_inputs.push((i, stage_of(s, &op_stage))),
            }
        }
        Ok(Staged {
            parts,
            op_stage,
            after,
            on_inputs,
        })
    }

    /// An environment with `inputs` (values for the inputs of later stages may be anything:
    /// [`run`](Staged::run) sets them) and nothing computed.
    pub(crate) fn env(&self, inputs: Vec<Value>) -> Env {
        Env {
            regs: vec![None; self.parts.ops.len()],
            inputs,
        }
    }

    /// Runs the operations of stage `stage` on `env` (whose earlier stages have run), with
    /// the inputs `set` (`(index, value)`) changed first.
    pub(crate) fn run(
        &self,
        env: &mut Env,
        stage: u32,
        set: &[(usize, Value)],
    ) -> Result<(), DiffError> {
        for (k, v) in set {
            env.inputs[*k] = v.clone();
        }
        let mut operands = Vec::new();
        for &(i, s) in &self.on_inputs {
            if s == stage {
                let g = &self.parts.guards[i];
                check(g, &env.read(&g.condition))?;
            }
        }
        for (k, op) in self.parts.ops.iter().enumerate() {
            if self.op_stage[k] != stage {
                continue;
            }
            operands.clear();
            operands.extend(op.args.iter().map(|a| env.read(a)));
            let v = run_operation(op.operation, &operands).map_err(|error| {
                DiffError::Replay(ReplayError::Eval {
                    at: op.origin.clone(),
                    error,
                })
            })?;
            env.regs[k] = Some(v);
            for &i in &self.after[k] {
                let g = &self.parts.guards[i];
                check(g, &env.read(&g.condition))?;
            }
        }
        Ok(())
    }

    /// The output, once every stage it needs has run.
    pub(crate) fn output(&self, env: &Env) -> Value {
        env.read(&self.parts.output)
    }
}

fn check(g: &crate::program::PartGuard, v: &Value) -> Result<(), DiffError> {
    if v.by_value().downcast_ref::<bool>() == Some(&g.expected) {
        return Ok(());
    }
    Err(DiffError::Replay(ReplayError::Guard {
        at: g.origin.clone(),
        condition: crate::program::guard_condition(g.condition_at, g.expected),
    }))
}

impl Env {
    fn read(&self, s: &Src) -> Value {
        match s {
            Src::Input(k) => self.inputs[*k].clone(),
            Src::Op(k) => self.regs[*k].clone().unwrap_or(Value::UNIT),
            Src::Const(v) => v.clone(),
        }
    }
}
