//! Building a program: one pass over the trace in recording order (which is execution order),
//! giving every node a source — a constant, a dynamic input, or an operation — then removing
//! the operations nothing uses.

use super::{Guard, InputSlot, Op, Origin, Program, ReplayError, Src, Step};
use crate::core::ids::NodeId;
use crate::core::ir::EntryKind;
use crate::core::op::Builtin;
use crate::core::tape::NodeKind;
use crate::core::trace::Trace;
use crate::core::value::Value;
use crate::view::operation::Operation;
use crate::view::trace::{Arg, NodeRef};

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
    /// The source of each node, by arena index (`None` until the node is seen, and for nodes
    /// without a value).
    src: Vec<Option<Src>>,
    steps: Vec<Step>,
    ops: Vec<Op>,
    guards: Vec<Guard>,
    any_dynamic: bool,
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

fn builtin_of(n: NodeRef<'_>) -> Option<Builtin> {
    n.ir()?.builtin(n.trace().store.node(n.id()).entry as usize)
}

fn origin(n: NodeRef<'_>) -> Origin {
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

/// Whether two recorded values are the same value (scalars and floats bit for bit, other
/// values by their text), so that an edge through which a value passed unchanged can be
/// trusted.
fn same(a: &Value, b: &Value) -> bool {
    if a.same_scalar(b) || (a.floats().is_some() && a.floats() == b.floats()) {
        return true;
    }
    !a.is_opaque() && !b.is_opaque() && a.to_string() == b.to_string()
}

impl<'t> Builder<'t> {
    fn src_of(&self, id: NodeId) -> Src {
        self.src[id.index()].clone().unwrap_or_else(|| {
            Src::Const(self.trace.node(id).map_or(Value::UNIT, |n| n.raw_value()))
        })
    }

    /// The source of a value that passed unchanged from `from` to `at` (a return, a block or
    /// call argument): `from`'s, after checking the recorded values agree — when `from` was
    /// changed in place after it was recorded, the edge is stale.
    fn through(&self, from: NodeRef<'_>, at: NodeRef<'_>) -> Result<Src, ReplayError> {
        let s = self.src_of(from.id());
        if !s.is_dynamic() {
            return Ok(Src::Const(at.raw_value()));
        }
        if !same(&from.raw_value(), &at.raw_value()) {
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
        self.src[id.index()] = Some(s);
    }

    fn push_op(&mut self, n: NodeRef<'_>, operation: Operation, args: Vec<Src>) {
        let k = self.ops.len();
        self.ops.push(Op {
            operation,
            args,
            origin: origin(n),
            recorded: n.raw_value(),
        });
        self.steps.push(Step::Op(k));
        self.set(n.id(), Src::Op(k));
    }

    /// A primitive call, a special, or a registered nested call.
    fn operation(&mut self, n: NodeRef<'_>) -> Result<(), ReplayError> {
        let args = self.operands(n);
        if is_volatile(n) {
            let operation = n.operation().map_err(ReplayError::NotReexecutable)?;
            self.push_op(n, operation, args);
            return Ok(());
        }
        if !args.iter().any(Src::is_dynamic) {
            self.set(n.id(), Src::Const(n.raw_value()));
            return Ok(());
        }
        let value = n.raw_value();
        if value.is_unit() {
            let macro_call = n.kind() == NodeKind::Special && builtin_of(n) == Some(Builtin::Macro);
            if macro_call {
                // `println!`, `assert!`: a macro's effects are not replayed.
                self.set(n.id(), Src::Const(value));
                return Ok(());
            }
            return Err(unsupported(
                n,
                "writes a value that depends on a dynamic input into memory (`v[i] = x`, \
                 `v.push(x)`, `*r = x`), which the trace keeps no new version of: build a new \
                 value instead (`let w = …`)",
            ));
        }
        let operation = n.operation().map_err(ReplayError::NotReexecutable)?;
        self.push_op(n, operation, args);
        // A condition nothing refers to decided a branch the trace does not link to it (a
        // `match` arm's guard `Some(v) if v > x`): the path is right only while it holds.
        if let Some(&expected) = n.value::<bool>() {
            if n.is_unreferenced() {
                let g = self.guards.len();
                self.guards.push(Guard {
                    condition: Src::Op(self.ops.len() - 1),
                    expected,
                    condition_at: n.position().unwrap_or(0),
                    origin: origin(n),
                });
                self.steps.push(Step::Guard(g));
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
                Some(Arg::Node(m)) => self.through(*m, n)?,
                _ => Src::Const(n.raw_value()),
            };
            self.set(n.id(), s);
            return Ok(());
        }
        let k = n.position().unwrap_or(1) - 1;
        if parent.id() == self.trace.root().id() {
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
        let condition = self.src_of(c.id());
        if !condition.is_dynamic() {
            return Ok(());
        }
        let kind = n.entry().map(|e| e.kind);
        // A pattern's test is not a recorded value (and a `match` arm's guard is not the
        // branch's condition), so the path a new value takes cannot be checked.
        let fell_through_a_pattern =
            n.entry().is_some_and(|e| !e.control.is_none()) && c.value::<bool>().is_none();
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
        let g = self.guards.len();
        self.guards.push(Guard {
            condition,
            expected,
            condition_at: c.position().unwrap_or(0),
            origin: origin(n),
        });
        self.steps.push(Step::Guard(g));
        Ok(())
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
        let root = trace.root();
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
        let mut b = Builder {
            trace,
            src: vec![None; trace.len()],
            steps: Vec::new(),
            ops: Vec::new(),
            guards: Vec::new(),
            any_dynamic: false,
        };
        let mut output = None;
        // Nested calls replayed as one registered operation: skip their bodies.
        let mut skip_below: Option<(NodeId, u32)> = None;
        for n in trace.nodes() {
            if n.id() == root.id() {
                continue;
            }
            if let Some((_, end)) = skip_below {
                if n.id().get() < end {
                    continue;
                }
                skip_below = None;
            }
            match n.kind() {
                NodeKind::Argument => b.argument(n, inputs)?,
                NodeKind::Constant => {
                    let in_closure = n.ir().is_some_and(|ir| ir.is_closure());
                    if in_closure && b.any_dynamic {
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
                    let registered = matches!(n.operation(), Ok(Operation::Registered(_)));
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
                    let dynamic = parent.children().any(|c| {
                        c.kind() == NodeKind::Argument
                            && b.src[c.id().index()].as_ref().is_some_and(Src::is_dynamic)
                    });
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
            .map(|(a, i)| {
                let v = match a {
                    Arg::Node(n) => n.raw_value(),
                    Arg::Const(c) => crate::core::literal::value(c),
                };
                match i {
                    Input::Dynamic => InputSlot::Dynamic {
                        type_name: v.type_name().to_string(),
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
            name: root.function_name().unwrap_or("?").to_string(),
            fast: None,
        };
        p.remove_dead();
        p.fast = super::fast::Fast::compile(&p);
        Ok(p)
    }

    /// Removes the operations that neither the output nor a guard uses, renumbering the rest.
    fn remove_dead(&mut self) {
        let mut live = vec![false; self.ops.len()];
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

impl Builder<'_> {
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
