//! [`Trace::verify`]: the well-formedness of a trace, checked node by node. Every trace
//! `track` records is well formed; a failure is a bug in irtrack (or an imported file that was
//! edited), and the error names the node and what is wrong.

use super::trace::{Arg, NodeRef, Trace};
use crate::core::ids::NodeId;
use crate::core::ir::{EntryKind, Operand};
use crate::core::tape::NodeKind;
use std::fmt;

/// Why [`Trace::verify`] rejected a trace: the first problem found, at a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The node where the problem is (`None` for the trace as a whole).
    pub node: Option<NodeId>,
    /// Where that node is: its function and location, when it has them.
    pub place: String,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.node {
            Some(n) => write!(f, "{n} {}: {}", self.place, self.problem),
            None => f.write_str(&self.problem),
        }
    }
}

impl std::error::Error for VerifyError {}

fn fail<T>(node: NodeRef<'_>, problem: impl Into<String>) -> Result<T, VerifyError> {
    let place = match (node.ir(), node.location()) {
        (Some(ir), Some(loc)) => format!("in `{}` at [{loc}]", ir.name),
        _ => "(the root)".to_string(),
    };
    Err(VerifyError {
        node: Some(node.id()),
        place,
        problem: problem.into(),
    })
}

impl Trace {
    /// With the `verify-traces` feature in a debug build, checks the trace the first time it
    /// is read, and panics with the problem and the listing if it is not well formed:
    /// irtrack's own tests turn this on so that every trace they record is checked.
    #[inline]
    pub(crate) fn check_when_first_read(&self) {
        #[cfg(all(feature = "verify-traces", debug_assertions))]
        if !self
            .checked
            .swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            if let Err(e) = self.verify() {
                panic!("irtrack recorded a malformed trace: {e}\n{}", self.root());
            }
        }
    }

    /// Checks that the trace is well formed:
    /// - the root is a call; a nested call's children start with its function's arguments in
    ///   order and end in a return (or an error left by a panic);
    /// - every node's entry is in its parent's function and fits its kind;
    /// - every reference points at an earlier sibling that defines the variable used, and a
    ///   block argument holds the value its jump passed;
    /// - a branch taken on a condition holds the condition's recorded value (`since @5 ==
    ///   false` refers to a `false`), and the next node is in the branch's target block;
    /// - a call's value is its return's; every node is reachable from the root;
    /// - `referenced` and `dependents` agree.
    ///
    /// ```
    /// use irtrack::{tracked, track};
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 { x.sin() + x }
    ///
    /// track(f, (1.0,)).verify().unwrap();
    /// ```
    pub fn verify(&self) -> Result<(), VerifyError> {
        // A trace checked explicitly is not checked again when read (`verify-traces`).
        self.checked
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let root = self.root();
        if root.parent().is_some() || root.position().is_some() || root.entry().is_some() {
            return fail(root, "the root has a parent, a position or an entry");
        }
        let mut seen = 1;
        match root.kind() {
            NodeKind::NestedCall => {
                // Calls are checked from a worklist, not by recursion: a trace as deep as the
                // recursion it recorded overflowed the stack here (30,000 nested calls, read
                // from JSON, aborted the process).
                let mut calls = vec![root];
                while let Some(call) = calls.pop() {
                    check_call(call, &mut seen, &mut calls)?;
                }
            }
            NodeKind::PrimitiveCall => {
                if root.children().next().is_some() {
                    return fail(root, "a primitive root has children");
                }
            }
            other => return fail(root, format!("the root is a {other:?}, not a call")),
        }
        if seen != self.len() {
            return Err(VerifyError {
                node: None,
                place: String::new(),
                problem: format!(
                    "{} of the trace's {} nodes are reachable from the root",
                    seen,
                    self.len()
                ),
            });
        }
        Ok(())
    }
}

/// Whether the reverse index lists `user` among the nodes that reference `used` (so that
/// `used.dependents()` contains it: they are siblings, checked by the caller).
fn lists(used: NodeRef<'_>, user: NodeRef<'_>) -> bool {
    let index = used.trace().index();
    let (a, b) = (
        index.dependents_start[used.id().index()] as usize,
        index.dependents_start[used.id().index() + 1] as usize,
    );
    index.dependents[a..b]
        .binary_search(&user.id().get())
        .is_ok()
}

/// Whether two nodes recorded the same value: scalars compared typed, other values by text.
fn same_recorded(a: NodeRef<'_>, b: NodeRef<'_>) -> bool {
    let (x, y) = (a.raw_value(), b.raw_value());
    if x.is_scalar() && y.is_scalar() {
        return x.same_scalar(&y) || x.to_string() == y.to_string();
    }
    x.to_string() == y.to_string()
}

/// Checks one nested call and its children, and puts the nested calls among them on `calls`.
fn check_call<'t>(
    call: NodeRef<'t>,
    seen: &mut usize,
    calls: &mut Vec<NodeRef<'t>>,
) -> Result<(), VerifyError> {
    let Some(ir) = call.callee_ir() else {
        return fail(call, "a nested call has no IR");
    };
    let kids: Vec<NodeRef<'_>> = call.children().collect();
    *seen += kids.len();
    let params: Vec<_> = ir.block_arguments(1).collect();
    // A recording stopped by its budget ends in an error node, possibly before all the
    // arguments were recorded (a budget of one node).
    let stopped = kids.last().is_some_and(|k| k.kind() == NodeKind::Error);
    if kids.len() < params.len() && !stopped {
        return fail(call, "fewer children than the function has arguments");
    }
    for (k, e) in kids.iter().zip(&params) {
        if stopped && k.kind() == NodeKind::Error {
            break;
        }
        if k.kind() != NodeKind::Argument || k.location() != Some(e.location) {
            return fail(
                *k,
                "the function's arguments are not its first children, in order",
            );
        }
    }
    if call.parent().is_some() && call.arguments().len() != params.len() {
        return fail(
            call,
            format!(
                "the call passes {} arguments to a function of {}",
                call.arguments().len(),
                params.len()
            ),
        );
    }
    for (i, c) in kids.iter().enumerate() {
        let pos = i + 1;
        if c.position() != Some(pos) || c.parent() != Some(call) {
            return fail(*c, format!("its position is not @{pos} of its parent"));
        }
        if c.kind() == NodeKind::Error {
            continue;
        }
        let Some(entry) = c.entry() else {
            return fail(*c, "a child has no entry");
        };
        let kind_ok = match c.kind() {
            NodeKind::Argument => entry.kind == EntryKind::Argument,
            NodeKind::Constant => entry.kind == EntryKind::Constant,
            NodeKind::PrimitiveCall | NodeKind::NestedCall => entry.kind.is_call(),
            NodeKind::Special => entry.kind == EntryKind::Special,
            NodeKind::Jump => matches!(
                entry.kind,
                EntryKind::Jump | EntryKind::JumpUnless | EntryKind::JumpIfMatches
            ),
            NodeKind::Return => entry.kind == EntryKind::Return,
            NodeKind::Error => true,
        };
        if !kind_ok {
            return fail(
                *c,
                format!("a {:?} node at a {:?} entry", c.kind(), entry.kind),
            );
        }
        let statics: Vec<&Operand> = entry
            .operands
            .iter()
            .chain((!entry.condition.is_none()).then_some(&entry.condition))
            .collect();
        let args = c.arguments();
        if args.len() != statics.len() {
            return fail(*c, "one argument per operand");
        }
        // A match guard of `&&` and `||` (its value unrecorded, the conditions it combined
        // after it) names no node for a condition that did not run.
        let combined_guard = entry.combines_conditions();
        for (k, (op, arg)) in statics.iter().zip(&args).enumerate() {
            match (op, arg) {
                (Operand::Var(_), Arg::Const("_")) if combined_guard && k > 0 => {}
                (Operand::Const(s), Arg::Const(t)) if s == t => {}
                (Operand::Var(v), Arg::Node(n)) => {
                    if n.parent() != Some(call) {
                        return fail(*c, format!("%{v} refers outside its call"));
                    }
                    if !lists(*n, *c) {
                        return fail(
                            *c,
                            format!(
                                "it references {}, which does not list it as a dependent",
                                n.id()
                            ),
                        );
                    }
                    if n.position().map_or(true, |p| p >= pos) {
                        return fail(*c, format!("%{v} refers to a later node"));
                    }
                    if n.location().and_then(|l| l.slot.var()) != Some(*v) {
                        return fail(*c, format!("%{v} refers to a node that does not define it"));
                    }
                }
                (Operand::Var(v), Arg::Const("_")) => {
                    return fail(*c, format!("%{v} was not resolved to a node"));
                }
                (Operand::None, Arg::Const("_")) => {}
                (op, arg) => return fail(*c, format!("operand {op:?} recorded as {arg:?}")),
            }
        }
        match c.kind() {
            NodeKind::Argument if entry.location.block != 1 => {
                let Some((jump, n)) = c.block_argument_of() else {
                    return fail(*c, "a block argument follows no jump");
                };
                let Some(jentry) = jump.entry() else {
                    return fail(jump, "a jump has no entry");
                };
                if jentry.target != entry.location.block {
                    return fail(*c, "a block argument of a jump to another block");
                }
                if let Some(Arg::Node(v)) = jump.arguments().get(n - 1) {
                    if !lists(*v, *c) {
                        return fail(
                            *c,
                            format!(
                                "it references {}, which does not list it as a dependent",
                                v.id()
                            ),
                        );
                    }
                    if !same_recorded(*v, *c) {
                        return fail(
                            *c,
                            format!("it holds another value than {} passed", jump.id()),
                        );
                    }
                }
            }
            NodeKind::Jump => {
                if entry.kind == EntryKind::JumpUnless {
                    if let Some(Arg::Node(cn)) = args.last() {
                        if cn.value::<bool>() != Some(&false) {
                            return fail(*c, "a branch taken unless a condition that is not false");
                        }
                    }
                }
                if let Some(next) = kids.get(pos) {
                    if next.kind() != NodeKind::Error
                        && next.location().map(|l| l.block) != Some(entry.target)
                    {
                        return fail(*next, "the node after a jump is not in its target block");
                    }
                }
            }
            NodeKind::Return if pos != kids.len() => {
                return fail(*c, "a return does not end its call");
            }
            _ => {}
        }
        if c.kind() == NodeKind::NestedCall {
            calls.push(*c);
        } else if c.children().next().is_some() {
            return fail(*c, "only nested calls have children");
        }
    }
    let Some(last) = kids.last() else {
        return fail(call, "a nested call has no children");
    };
    match last.kind() {
        NodeKind::Return => {
            let (v, r) = (call.raw_value(), last.raw_value());
            // A call a context replaced holds the replacement, not what its body returned; one
            // whose body another method ran around, what that method returned.
            let replaced = call.store().not_from_body(call.id()).is_some();
            // A compound assignment (`a += b` claimed by a tracked `add_assign`) holds the
            // place's value after it; its body returns `()`.
            let assigned = r.is_unit()
                && call.entry().is_some_and(|e| {
                    matches!(
                        crate::core::op::Builtin::of_entry(e),
                        Some(crate::core::op::Builtin::Assign(_))
                    )
                });
            if !replaced
                && !assigned
                && !r.is_opaque()
                && (v.to_string() != r.to_string() || call.type_name() != last.type_name())
            {
                return fail(call, "a call's value is not its return's");
            }
        }
        NodeKind::Error => {}
        _ => return fail(*last, "a finished call does not end in a return"),
    }
    Ok(())
}
