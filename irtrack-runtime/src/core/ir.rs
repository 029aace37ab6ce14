//! The IR of a tracked function: what `#[tracked]` lowered it to at compile time, or what an
//! import or a later layer built at run time. One definition serves both: the macro builds a
//! [`FnIr`] while lowering, encodes it as one string ([`FnIr::encode`]) that the generated code
//! keeps in a [`StaticIr`], and the runtime decodes that string once, the first time the
//! function is recorded. A trace refers to a function's IR through an [`IrRef`], borrowed for
//! the macro's IR and shared (`Arc`) for IR built at run time, so nothing is leaked.
//!
//! Every entry of a function is a block argument, a statement or a branch. Statements and
//! arguments define the SSA variable `%i` (numbered from 1 across the function), branches are
//! numbered `&k` within their block; generated code names an entry by these numbers, the same
//! ones a listing prints.

use super::op::Builtin;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The lowered IR of one tracked function (or closure).
#[derive(Clone, Debug, PartialEq)]
pub struct FnIr {
    /// The function's name as written (`h`, `norm`), or `{{closure}}` for a closure.
    pub name: String,
    /// `module_path!()` where the function is defined.
    pub module: String,
    /// Every block argument, statement and branch, in the order the lowering created them;
    /// listings group them by block.
    pub entries: Vec<Entry>,
    /// The number of SSA variables (`%1` to `%var_count`).
    pub var_count: u32,
    /// For each variable `%i`, the index of the entry defining it (`u32::MAX` if none).
    var_entry: Vec<u32>,
    /// For each block `b`, where its branches start in `branch_entry` (one more than blocks).
    branch_start: Vec<u32>,
    /// The branches' entry indices, by block, in branch-number order.
    branch_entry: Vec<u32>,
    /// The typed operation each entry performs, when it is one the runtime knows.
    builtins: Vec<Option<Builtin>>,
    /// For an argument entry, its position among its block's arguments (`u32::MAX` else).
    arg_position: Vec<u32>,
    /// What recording each entry does, precomputed (see [`Step`]).
    steps: Vec<Step>,
    /// The steps again, by the variable they define (`var_steps[v]` for `%v`; a variable no
    /// entry defines has entry 0's) and, for branches, in `branch_entry`'s order: what a
    /// recording site finds with one lookup.
    var_steps: Vec<Step>,
    branch_steps: Vec<Step>,
    /// See [`FnIr::is_generic`].
    generic: bool,
    /// The operands passed by `&mut` as written (`f(&mut y)`), as (entry, operand) pairs in
    /// order: see [`FnIr::borrows_mut`].
    mut_borrows: Vec<(u32, u32)>,
    /// The pattern bindings of a part of a tuple, by entry, with the part's path: see
    /// [`FnIr::bind_path`].
    bind_paths: Vec<(u32, String)>,
    /// For struct literals, their fields' names in operand order, by entry: see
    /// [`FnIr::struct_fields`].
    struct_fields: Vec<(u32, String)>,
    /// For a closure's constant entries that read a captured variable: which of the closure's
    /// captures (the operands of its `$(closure)` entry in the enclosing function) it reads, by
    /// entry: see [`FnIr::capture_index`].
    captures: Vec<(u32, u32)>,
    /// For a call of a local variable (`f(x)` with `let f = |t| …`), the variable, by entry:
    /// see [`FnIr::callee_var`].
    callee_vars: Vec<(u32, u32)>,
    /// For a closure's call of a closure it captured (`z(t)` inside `|t| z(t) * 2.0`), the
    /// capture's index, by entry: see [`FnIr::callee_capture`].
    callee_captures: Vec<(u32, u32)>,
    /// The referenced variables of the steps with more than [`Step::INLINE`] references.
    step_refs: Vec<u32>,
}

/// (Internal.) What recording an entry does, in the few words the recorder's hot path reads: the node kind,
/// whether it is a call, the variable it defines, and the variables of the references it
/// pushes (0 for a literal or no value: a frame's table of newest nodes keeps "none" at 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Step {
    /// The entry's kind: 0 argument, 1 block argument, 2 constant, 3 call, 4 special,
    /// 5 jump, 6 return.
    pub(crate) role: u8,
    /// The number of references.
    pub(crate) nrefs: u8,
    /// For a block argument, its position among its block's arguments.
    pub(crate) arg_position: u16,
    /// The variable defined (0 for a branch).
    pub(crate) var: u32,
    /// The entry's index in [`FnIr::entries`].
    pub(crate) entry: u32,
    /// The referenced variables when there are at most [`Step::INLINE`]; else `refs[0]` is
    /// where they start in `FnIr::step_refs`.
    pub(crate) refs: [u32; 3],
}

impl Step {
    pub(crate) const INLINE: usize = 3;
    /// The step of a site the IR has no entry for (generated code and IR disagreeing, which
    /// `#[tracked]` never does): a node of no entry (`NO_ENTRY`), which the listing shows and
    /// every consumer refuses, rather than entry 0's.
    pub(crate) const UNKNOWN: Step = Step {
        role: Step::SPECIAL,
        nrefs: 0,
        arg_position: u16::MAX,
        var: 0,
        entry: crate::core::tape::NO_ENTRY,
        refs: [0; 3],
    };
    pub(crate) const ARGUMENT: u8 = 0;
    pub(crate) const BLOCK_ARGUMENT: u8 = 1;
    pub(crate) const CONSTANT: u8 = 2;
    pub(crate) const CALL: u8 = 3;
    pub(crate) const SPECIAL: u8 = 4;
    pub(crate) const JUMP: u8 = 5;
    pub(crate) const RETURN: u8 = 6;
}

/// One block argument, statement or branch of a [`FnIr`].
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Where the entry sits: block and SSA variable or branch number.
    pub location: Location,
    /// What the entry does.
    pub kind: EntryKind,
    /// The callee (`sin`, `other::sq`), operator (`+`), special kind (`vec!`), constant name,
    /// variable name (for an argument) or, for a pattern branch, the pattern text.
    pub head: String,
    /// The values the entry uses, in argument order; for a branch, the block arguments it passes.
    pub operands: Vec<Operand>,
    /// For a conditional branch, the condition it tests (printed `since …`).
    pub condition: Operand,
    /// For a branch taken because an earlier branch of its block was not (the `goto §3` that
    /// follows `goto §4 since @5 == false`), the condition that decided it. Not printed: the
    /// listing keeps IRTracker's form, and [`NodeRef::control`](crate::NodeRef::control) reads it.
    pub control: Operand,
    /// For a branch, the block it jumps to.
    pub target: u32,
}

/// What an [`Entry`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// A function or block argument (`[Arg:§b:%i]`).
    Argument,
    /// A named constant or a variable captured by a closure (`[Const:§b:%i]`).
    Constant,
    /// A call of a path, a local callable or a closure: `%i = f(%j)`.
    Call,
    /// A method call: `%i = %j.m(%k)`; the receiver is the first operand.
    MethodCall,
    /// A binary, unary or compound-assignment operator: `%i = %j + %k`.
    Operator,
    /// A non-call construct (struct literal, macro, cast, field, pattern binding, `?`):
    /// `%i = $(kind)(%j)`.
    Special,
    /// An unconditional branch: `br b (args)`.
    Jump,
    /// A branch taken when `condition` is false: `br b (args) unless %c`.
    JumpUnless,
    /// A branch taken when `condition` matches the pattern in `head`.
    JumpIfMatches,
    /// A return: `return %i`.
    Return,
}

/// Where an entry sits in its function: `§b:%i`, `Arg:§b:%i`, `Const:§b:%i` or `§b:&k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// The block, numbered from 1.
    pub block: u32,
    /// The SSA variable or branch within the block.
    pub slot: Slot,
}

/// The variable or branch part of a [`Location`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// The SSA variable `%i` defined by a statement.
    Var(u32),
    /// The SSA variable `%i` defined as a block argument.
    Arg(u32),
    /// The SSA variable `%i` defined as a constant.
    Const(u32),
    /// The `k`-th branch of the block.
    Branch(u32),
}

/// A value used by an entry: an SSA variable or a literal constant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// The SSA variable `%i`.
    Var(u32),
    /// A literal, as written in the source.
    Const(String),
    /// No value (a closure literal, a place the lowering does not record, or the condition
    /// slot of an unconditional branch).
    None,
}

impl Operand {
    /// The variable, for [`Operand::Var`].
    pub fn var(&self) -> Option<u32> {
        match self {
            Operand::Var(v) => Some(*v),
            _ => None,
        }
    }

    /// Whether this is [`Operand::None`].
    pub fn is_none(&self) -> bool {
        matches!(self, Operand::None)
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.slot {
            Slot::Var(i) => write!(f, "§{}:%{}", self.block, i),
            Slot::Arg(i) => write!(f, "Arg:§{}:%{}", self.block, i),
            Slot::Const(i) => write!(f, "Const:§{}:%{}", self.block, i),
            Slot::Branch(k) => write!(f, "§{}:&{}", self.block, k),
        }
    }
}

impl Slot {
    /// The SSA variable this slot defines, if it defines one.
    pub fn var(self) -> Option<u32> {
        match self {
            Slot::Var(i) | Slot::Arg(i) | Slot::Const(i) => Some(i),
            Slot::Branch(_) => None,
        }
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Var(i) => write!(f, "%{i}"),
            Operand::Const(c) => f.write_str(c),
            Operand::None => f.write_str("_"),
        }
    }
}

impl EntryKind {
    /// Whether the entry is a branch (jump or return).
    pub fn is_branch(self) -> bool {
        matches!(
            self,
            EntryKind::Jump | EntryKind::JumpUnless | EntryKind::JumpIfMatches | EntryKind::Return
        )
    }

    /// Whether the entry is a call (of a path, a method or an operator).
    pub fn is_call(self) -> bool {
        matches!(
            self,
            EntryKind::Call | EntryKind::MethodCall | EntryKind::Operator
        )
    }

    fn code(self) -> char {
        match self {
            EntryKind::Argument => 'a',
            EntryKind::Constant => 'c',
            EntryKind::Call => 'f',
            EntryKind::MethodCall => 'm',
            EntryKind::Operator => 'o',
            EntryKind::Special => 's',
            EntryKind::Jump => 'j',
            EntryKind::JumpUnless => 'u',
            EntryKind::JumpIfMatches => 'p',
            EntryKind::Return => 'r',
        }
    }

    fn from_code(c: &str) -> Option<EntryKind> {
        Some(match c {
            "a" => EntryKind::Argument,
            "c" => EntryKind::Constant,
            "f" => EntryKind::Call,
            "m" => EntryKind::MethodCall,
            "o" => EntryKind::Operator,
            "s" => EntryKind::Special,
            "j" => EntryKind::Jump,
            "u" => EntryKind::JumpUnless,
            "p" => EntryKind::JumpIfMatches,
            "r" => EntryKind::Return,
            _ => return None,
        })
    }
}

impl Entry {
    /// Whether the entry is a call (not a special: a field read, a pattern) that takes a value
    /// the trace does not record — a closure (`map(|k| x)`), which may capture anything — so
    /// that its value may depend on inputs no reference shows; or a `match` guard with control
    /// flow of its own, which runs unrecorded.
    /// Whether this is a match guard of `&&` and `||` only: its own value unrecorded, then
    /// every condition it combined, each recorded where it ran (`$(guard)(_, %a, %b)`;
    /// `docs/lowering.md`).
    pub(crate) fn combines_conditions(&self) -> bool {
        self.kind == EntryKind::Special
            && self.operands.len() > 1
            && self.operands[0] == Operand::None
            && !self.operands[1..].contains(&Operand::None)
            && Builtin::of_entry(self) == Some(Builtin::Guard)
    }

    pub(crate) fn takes_unrecorded(&self) -> bool {
        (self.kind != EntryKind::Special || Builtin::of_entry(self) == Some(Builtin::Guard))
            && self.operands.contains(&Operand::None)
            || self.writes_place() && self.operands.first() == Some(&Operand::None)
    }

    /// Whether this is an assignment into a place (`w[i] = x`, `s.v += x`, `*r = x`): the
    /// lowering writes its head as the place, a space and the operator, and its first operand
    /// is the place's root (`Operand::None` where the trace does not link it: a closure's
    /// captured variable). An inclusive range (`..=`) is none.
    pub(crate) fn writes_place(&self) -> bool {
        self.kind == EntryKind::Special && self.head.ends_with('=') && self.head.contains(' ')
    }

    /// A function or block argument `%var` of `block`, for the variable `name`.
    pub fn argument(block: u32, var: u32, name: impl Into<String>) -> Entry {
        Entry::at(
            block,
            Slot::Arg(var),
            EntryKind::Argument,
            name.into(),
            Vec::new(),
        )
    }

    /// A named constant or captured variable `%var` of `block`.
    pub fn constant(block: u32, var: u32, head: impl Into<String>) -> Entry {
        Entry::at(
            block,
            Slot::Const(var),
            EntryKind::Constant,
            head.into(),
            Vec::new(),
        )
    }

    /// A statement `%var = head(operands)` of `block`.
    pub fn statement(
        block: u32,
        var: u32,
        kind: EntryKind,
        head: impl Into<String>,
        operands: Vec<Operand>,
    ) -> Entry {
        Entry::at(block, Slot::Var(var), kind, head.into(), operands)
    }

    /// The `number`-th branch of `block`, to `target` with block arguments `operands`.
    pub fn branch(
        block: u32,
        number: u32,
        kind: EntryKind,
        target: u32,
        operands: Vec<Operand>,
        condition: Operand,
        head: impl Into<String>,
    ) -> Entry {
        Entry {
            target,
            condition,
            ..Entry::at(block, Slot::Branch(number), kind, head.into(), operands)
        }
    }

    fn at(block: u32, slot: Slot, kind: EntryKind, head: String, operands: Vec<Operand>) -> Entry {
        Entry {
            location: Location { block, slot },
            kind,
            head,
            operands,
            condition: Operand::None,
            control: Operand::None,
            target: 0,
        }
    }

    /// How many references a node of this entry records: one per operand, then the condition
    /// and the control condition when there are; a block argument records the one value passed.
    pub fn ref_count(&self) -> usize {
        if self.kind == EntryKind::Argument {
            return usize::from(self.location.block != 1);
        }
        self.operands.len()
            + usize::from(!self.condition.is_none())
            + usize::from(!self.control.is_none())
    }
}

struct List<'a>(&'a [Operand]);
impl fmt::Display for List<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, o) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{o}")?;
        }
        Ok(())
    }
}

/// IRTools-style text of one entry: `%5 = %4 < %2`, `br 4 unless %5`, `return %3`.
impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ops = &self.operands;
        if let Some(var) = self.location.slot.var() {
            if self.kind == EntryKind::Argument {
                return write!(f, "%{var}");
            }
            write!(f, "%{var} = ")?;
        }
        match self.kind {
            EntryKind::Argument => Ok(()),
            EntryKind::Constant => f.write_str(&self.head),
            EntryKind::Call => write!(f, "{}({})", self.head, List(ops)),
            EntryKind::MethodCall => match ops.split_first() {
                Some((recv, rest)) => write!(f, "{recv}.{}({})", self.head, List(rest)),
                None => write!(f, "{}()", self.head),
            },
            EntryKind::Operator => match ops.as_slice() {
                [a] => write!(f, "{}{a}", self.head),
                [a, b] => write!(f, "{a} {} {b}", self.head),
                _ => write!(f, "{}({})", self.head, List(ops)),
            },
            EntryKind::Special => write!(f, "$({})({})", self.head, List(ops)),
            EntryKind::Jump | EntryKind::JumpUnless | EntryKind::JumpIfMatches => {
                write!(f, "br {}", self.target)?;
                if !ops.is_empty() {
                    write!(f, " ({})", List(ops))?;
                }
                match self.kind {
                    EntryKind::JumpUnless => write!(f, " unless {}", self.condition),
                    EntryKind::JumpIfMatches => {
                        write!(f, " if {} matches {}", self.condition, self.head)
                    }
                    _ => Ok(()),
                }
            }
            EntryKind::Return => write!(f, "return {}", List(ops)),
        }
    }
}

/// Why an IR could not be built from entries or decoded from text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrError(pub String);

impl fmt::Display for IrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for IrError {}

impl FnIr {
    /// The IR of a function from its entries, checked: variables are numbered `1..=var_count`
    /// once each, branches `1..` within each block, operands name defined variables and
    /// branches target existing blocks.
    ///
    /// ```
    /// use irtrack::{Entry, EntryKind, FnIr, Operand};
    ///
    /// let ir = FnIr::new("twice", "demo", vec![
    ///     Entry::argument(1, 1, "x"),
    ///     Entry::statement(1, 2, EntryKind::Operator, "*", vec![Operand::Var(1), Operand::Const("2.0".into())]),
    ///     Entry::branch(1, 1, EntryKind::Return, 0, vec![Operand::Var(2)], Operand::None, ""),
    /// ]).unwrap();
    /// assert_eq!(ir.to_string(), "1: (%1)\n  %2 = %1 * 2.0\n  return %2\n");
    /// ```
    pub fn new(
        name: impl Into<String>,
        module: impl Into<String>,
        entries: Vec<Entry>,
    ) -> Result<FnIr, IrError> {
        let mut ir = FnIr {
            name: name.into(),
            module: module.into(),
            entries,
            var_count: 0,
            var_entry: Vec::new(),
            branch_start: Vec::new(),
            branch_entry: Vec::new(),
            builtins: Vec::new(),
            arg_position: Vec::new(),
            steps: Vec::new(),
            var_steps: Vec::new(),
            branch_steps: Vec::new(),
            step_refs: Vec::new(),
            generic: false,
            mut_borrows: Vec::new(),
            bind_paths: Vec::new(),
            struct_fields: Vec::new(),
            captures: Vec::new(),
            callee_vars: Vec::new(),
            callee_captures: Vec::new(),
        };
        ir.index()?;
        Ok(ir)
    }

    fn index(&mut self) -> Result<(), IrError> {
        let err = |m: String| Err(IrError(m));
        let vars = self
            .entries
            .iter()
            .filter_map(|e| e.location.slot.var())
            .max()
            .unwrap_or(0);
        let blocks = self
            .entries
            .iter()
            .map(|e| e.location.block.max(e.target))
            .max()
            .unwrap_or(1)
            .max(1);
        // Every variable is defined by an entry and every block is entered or has one; larger
        // numbers come from a damaged encoding and must not size the tables below.
        if vars as usize > self.entries.len() || blocks as usize > self.entries.len() + 1 {
            return err(format!(
                "numbers out of range: %{vars} or §{blocks} in a function of {} entries",
                self.entries.len()
            ));
        }
        self.var_count = vars;
        self.var_entry = vec![u32::MAX; vars as usize + 1];
        let mut per_block: Vec<Vec<(u32, u32)>> = vec![Vec::new(); blocks as usize + 1];
        for (i, e) in self.entries.iter().enumerate() {
            let b = e.location.block;
            if b == 0 {
                return err(format!(
                    "entry {i} is in block 0; blocks are numbered from 1"
                ));
            }
            match e.location.slot {
                Slot::Branch(k) => {
                    if !e.kind.is_branch() {
                        return err(format!("entry {i} is at a branch slot but is {:?}", e.kind));
                    }
                    per_block[b as usize].push((k, i as u32));
                }
                slot => {
                    let v = slot.var().unwrap_or(0);
                    if e.kind.is_branch() || v == 0 {
                        return err(format!("entry {i} defines no variable"));
                    }
                    let consistent = matches!(
                        (slot, e.kind),
                        (Slot::Arg(_), EntryKind::Argument)
                            | (Slot::Const(_), EntryKind::Constant)
                            | (
                                Slot::Var(_),
                                EntryKind::Call
                                    | EntryKind::MethodCall
                                    | EntryKind::Operator
                                    | EntryKind::Special
                            )
                    );
                    if !consistent {
                        return err(format!(
                            "entry {i}: slot {slot:?} does not fit {:?}",
                            e.kind
                        ));
                    }
                    let at = &mut self.var_entry[v as usize];
                    if *at != u32::MAX {
                        return err(format!("%{v} is defined twice"));
                    }
                    *at = i as u32;
                }
            }
            for op in e
                .operands
                .iter()
                .chain([&e.condition, &e.control])
                .filter_map(Operand::var)
            {
                if op == 0 || op > vars {
                    return err(format!("entry {i} uses %{op}, which no entry defines"));
                }
            }
            if e.kind.is_branch() && e.kind != EntryKind::Return && e.target == 0 {
                return err(format!("branch entry {i} has no target block"));
            }
        }
        self.branch_start = Vec::with_capacity(blocks as usize + 2);
        self.branch_entry.clear();
        self.branch_start.push(0);
        for (b, mut branches) in per_block.into_iter().enumerate() {
            branches.sort_unstable();
            for (n, (k, _)) in branches.iter().enumerate() {
                if *k != n as u32 + 1 {
                    return err(format!("block {b}: branches are not numbered 1, 2, …"));
                }
            }
            self.branch_entry.extend(branches.iter().map(|(_, i)| *i));
            self.branch_start.push(self.branch_entry.len() as u32);
        }
        self.builtins = self.entries.iter().map(Builtin::of_entry).collect();
        let mut args_seen = vec![0u32; blocks as usize + 1];
        self.arg_position = self
            .entries
            .iter()
            .map(|e| match e.kind {
                EntryKind::Argument => {
                    let n = &mut args_seen[e.location.block as usize];
                    *n += 1;
                    *n - 1
                }
                _ => u32::MAX,
            })
            .collect();
        self.step_refs.clear();
        let mut steps = Vec::with_capacity(self.entries.len());
        for (i, e) in self.entries.iter().enumerate() {
            let role = match e.kind {
                EntryKind::Argument if e.location.block == 1 => Step::ARGUMENT,
                EntryKind::Argument => Step::BLOCK_ARGUMENT,
                EntryKind::Constant => Step::CONSTANT,
                k if k.is_call() => Step::CALL,
                EntryKind::Special => Step::SPECIAL,
                EntryKind::Return => Step::RETURN,
                _ => Step::JUMP,
            };
            let vars: Vec<u32> = if role == Step::BLOCK_ARGUMENT || role == Step::ARGUMENT {
                Vec::new()
            } else {
                e.operands
                    .iter()
                    .chain(
                        [&e.condition, &e.control]
                            .into_iter()
                            .filter(|o| !o.is_none()),
                    )
                    .map(|o| o.var().unwrap_or(0))
                    .collect()
            };
            let mut refs = [0; 3];
            if vars.len() <= Step::INLINE {
                refs[..vars.len()].copy_from_slice(&vars);
            } else {
                refs[0] = self.step_refs.len() as u32;
                self.step_refs.extend_from_slice(&vars);
            }
            let nrefs = u8::try_from(vars.len())
                .map_err(|_| IrError(format!("entry {i} has more than 255 operands")))?;
            steps.push(Step {
                role,
                nrefs,
                arg_position: u16::try_from(self.arg_position[i].min(u16::MAX as u32))
                    .unwrap_or(u16::MAX),
                var: e.location.slot.var().unwrap_or(0),
                entry: i as u32,
                refs,
            });
        }
        self.var_steps = self
            .var_entry
            .iter()
            .map(|&i| steps.get(i as usize).copied().unwrap_or(Step::UNKNOWN))
            .collect();
        self.branch_steps = self
            .branch_entry
            .iter()
            .map(|&i| steps[i as usize])
            .collect();
        self.steps = steps;
        Ok(())
    }

    /// The step of the entry defining `%var`; [`Step::UNKNOWN`] when none does.
    #[inline]
    pub(crate) fn var_step(&self, var: u32) -> &Step {
        self.var_steps.get(var as usize).unwrap_or(&Step::UNKNOWN)
    }

    /// The step of branch `&k` of `block`; [`Step::UNKNOWN`] when there is none.
    #[inline]
    pub(crate) fn branch_step(&self, block: u32, k: u32) -> &Step {
        let i = self.branch_start.get(block as usize).and_then(|&start| {
            let end = *self.branch_start.get(block as usize + 1)?;
            let i = start + k.checked_sub(1)?;
            (i < end).then_some(i)
        });
        i.and_then(|i| self.branch_steps.get(i as usize))
            .unwrap_or(&Step::UNKNOWN)
    }

    /// The recording step of entry `index`.
    #[inline]
    pub(crate) fn step(&self, index: usize) -> &Step {
        &self.steps[index]
    }

    /// The referenced variables of `step`.
    #[inline]
    pub(crate) fn step_vars<'a>(&'a self, step: &'a Step) -> &'a [u32] {
        let n = step.nrefs as usize;
        if n <= Step::INLINE {
            &step.refs[..n]
        } else {
            let start = step.refs[0] as usize;
            &self.step_refs[start..start + n]
        }
    }

    /// Whether this is the IR of a closure (named `{{closure}}` by the lowering).
    pub fn is_closure(&self) -> bool {
        self.name == "{{closure}}"
    }

    /// The entry at `location`, if the function has one there.
    pub fn get(&self, location: Location) -> Option<&Entry> {
        let i = match location.slot {
            Slot::Branch(k) => self.branch_index(location.block, k)?,
            slot => self.var_index(slot.var()?)?,
        };
        self.entries
            .get(i as usize)
            .filter(|e| e.location == location)
    }

    /// The index in [`entries`](FnIr::entries) of the entry defining `%var`.
    pub fn var_index(&self, var: u32) -> Option<u32> {
        self.var_entry
            .get(var as usize)
            .copied()
            .filter(|&i| i != u32::MAX)
    }

    /// The index in [`entries`](FnIr::entries) of branch `&k` of block `block`.
    pub fn branch_index(&self, block: u32, k: u32) -> Option<u32> {
        let start = *self.branch_start.get(block as usize)?;
        let end = *self.branch_start.get(block as usize + 1)?;
        let i = start + k.checked_sub(1)?;
        (i < end).then(|| self.branch_entry[i as usize])
    }

    /// For argument entry `index`, its position (from 0) among its block's arguments: which
    /// value of a jump into the block it receives.
    pub fn arg_position(&self, index: usize) -> Option<usize> {
        self.arg_position
            .get(index)
            .filter(|&&p| p != u32::MAX)
            .map(|&p| p as usize)
    }

    /// The typed operation of entry `index`, when the runtime knows it (see [`Builtin`]).
    pub fn builtin(&self, index: usize) -> Option<Builtin> {
        self.builtins.get(index).copied().flatten()
    }

    /// The number of blocks.
    pub fn block_count(&self) -> u32 {
        (self.branch_start.len().saturating_sub(2) as u32).max(
            self.entries
                .iter()
                .map(|e| e.location.block)
                .max()
                .unwrap_or(1),
        )
    }

    /// The argument entries of `block`, in order: a jump into it passes one value for each.
    pub fn block_arguments(&self, block: u32) -> impl Iterator<Item = &Entry> + '_ {
        self.entries
            .iter()
            .filter(move |e| e.kind == EntryKind::Argument && e.location.block == block)
    }

    /// The whole IR as one line of text, which [`FnIr::decode`] reads back: what the code
    /// `#[tracked]` generates keeps in a [`StaticIr`].
    ///
    /// Each entry is written as `kind|block|number|target|head|condition|control|operands…`,
    /// entries separated by newlines, `|`, `\` and newlines inside text escaped with `\`;
    /// an operand is `%i`, `_`, or `'` and a literal's text.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        if self.generic {
            out.push_str("g\n");
        }
        for e in &self.entries {
            let (number, _) = match e.location.slot {
                Slot::Var(v) | Slot::Arg(v) | Slot::Const(v) => (v, 0),
                Slot::Branch(k) => (k, 0),
            };
            out.push(e.kind.code());
            out.push_str(&format!("|{}|{}|{}|", e.location.block, number, e.target));
            escape(&mut out, &e.head);
            for op in [&e.condition, &e.control] {
                out.push('|');
                if !op.is_none() {
                    encode_operand(&mut out, op);
                }
            }
            for op in &e.operands {
                out.push('|');
                encode_operand(&mut out, op);
            }
            out.push('\n');
        }
        for &(e, k) in &self.mut_borrows {
            out.push_str(&format!("w|{e}|{k}\n"));
        }
        for (e, path) in &self.bind_paths {
            out.push_str(&format!("t|{e}|{path}\n"));
        }
        for (e, names) in &self.struct_fields {
            out.push_str(&format!("d|{e}|{names}\n"));
        }
        for &(e, k) in &self.captures {
            out.push_str(&format!("k|{e}|{k}\n"));
        }
        for &(e, v) in &self.callee_vars {
            out.push_str(&format!("l|{e}|{v}\n"));
        }
        for &(e, k) in &self.callee_captures {
            out.push_str(&format!("n|{e}|{k}\n"));
        }
        out
    }

    /// For a closure's constant entry `index` that reads a variable the closure captured from
    /// the function it was written in, which of its captures that is: the position of the
    /// variable among the operands of the `$(closure)` entry that made the closure there (so
    /// a use of the captured value links to the node the enclosing function had for it).
    /// `None` for other entries, and for a capture the closure assigns to (its value there may
    /// be one the closure wrote) or of a closure not bound by a plain `let`.
    pub fn capture_index(&self, index: usize) -> Option<usize> {
        self.captures
            .binary_search_by_key(&(index as u32), |&(e, _)| e)
            .ok()
            .map(|k| self.captures[k].1 as usize)
    }

    /// Records [`FnIr::capture_index`] of entry `index`; `#[tracked]` does it, and
    /// [`FnIr::encode`] keeps it.
    pub fn set_capture_index(&mut self, index: usize, capture: usize) {
        let pair = (index as u32, capture as u32);
        match self.captures.binary_search_by_key(&pair.0, |&(e, _)| e) {
            Ok(k) => self.captures[k] = pair,
            Err(k) => self.captures.insert(k, pair),
        }
    }

    /// For a call entry `index` whose callee is a local variable (`f(x)` after `let f = |t|
    /// …`), that variable: the recorder links the call's node to the value the variable held
    /// (the closure's `$(closure)` node, or an argument passing one), through which a captured
    /// value's uses reach the enclosing function's node. `u32::MAX` for a local the IR holds no
    /// node for (a closure made as a block's value), or a computed callee (`(f)(t)`): a held
    /// callee, linked to nothing.
    pub fn callee_var(&self, index: usize) -> Option<u32> {
        self.callee_vars
            .binary_search_by_key(&(index as u32), |&(e, _)| e)
            .ok()
            .map(|k| self.callee_vars[k].1)
    }

    /// Whether entry `index` calls a callee held in a variable, a capture or a computed
    /// expression (`f(t)` with `f` a parameter, `(f)(t)`, `mk(x)(t)`) rather than a function by
    /// its path: a closure that ran so, unclaimed, was not recorded, and its value may depend
    /// on anything the closure captured.
    pub fn holds_callee(&self, index: usize) -> bool {
        self.has_callee_vars()
            && (self.callee_var(index).is_some() || self.callee_capture(index).is_some())
    }

    /// Whether any call's callee is a local variable or a captured one ([`FnIr::callee_var`],
    /// [`FnIr::callee_capture`]).
    pub fn has_callee_vars(&self) -> bool {
        !self.callee_vars.is_empty() || !self.callee_captures.is_empty()
    }

    /// For a closure's call entry `index` whose callee is a closure it captured (`z(t)` in
    /// `|t| z(t) * 2.0`), the capture's index (as [`FnIr::capture_index`]): the call's node
    /// links to the operand of that index of the `$(closure)` node that made this closure.
    pub fn callee_capture(&self, index: usize) -> Option<usize> {
        self.callee_captures
            .binary_search_by_key(&(index as u32), |&(e, _)| e)
            .ok()
            .map(|k| self.callee_captures[k].1 as usize)
    }

    /// Records [`FnIr::callee_capture`] of entry `index`; `#[tracked]` does it, and
    /// [`FnIr::encode`] keeps it.
    pub fn set_callee_capture(&mut self, index: usize, capture: usize) {
        let pair = (index as u32, capture as u32);
        match self
            .callee_captures
            .binary_search_by_key(&pair.0, |&(e, _)| e)
        {
            Ok(k) => self.callee_captures[k] = pair,
            Err(k) => self.callee_captures.insert(k, pair),
        }
    }

    /// Records [`FnIr::callee_var`] of entry `index`; `#[tracked]` does it, and
    /// [`FnIr::encode`] keeps it.
    pub fn set_callee_var(&mut self, index: usize, var: u32) {
        let pair = (index as u32, var);
        match self.callee_vars.binary_search_by_key(&pair.0, |&(e, _)| e) {
            Ok(k) => self.callee_vars[k] = pair,
            Err(k) => self.callee_vars.insert(k, pair),
        }
    }

    /// Whether the function is generic (it has type parameters, its own or its impl's) or is a
    /// closure of unknown surroundings: a method call's receiver may then have a type
    /// parameter's type, for which method resolution picks a trait's method even where the
    /// value at run time is an `f64` with an inherent method of that name. A receiver's type
    /// at run time proves which method ran only in code that is not generic.
    pub fn is_generic(&self) -> bool {
        self.generic
    }

    /// Marks the function generic (see [`FnIr::is_generic`]); `#[tracked]` does it, and
    /// [`FnIr::encode`] keeps it.
    pub fn set_generic(&mut self, generic: bool) {
        self.generic = generic;
    }

    /// The operands of entry `index` that the call passes by `&mut` as written (`f(&mut y)`,
    /// `mem::replace(&mut a, b)`): the call may change them, and the trace keeps no new version
    /// of a value changed inside an expression (`let _ = f(&mut y)`), so a later read of the
    /// operand's node is of the value before the call. A method's receiver borrowed by autoref
    /// is among them where the method may take `&mut self`, which the macro does not see: std's
    /// mutating methods on a local (`v.push(x)`), and any method but the float types' and
    /// std's reading ones on a receiver rooted in a `mut` binding, a local holding a `&mut` or
    /// `self` in a `&mut self` method (`acc.add(x)`). Where the call reached a tracked method,
    /// the receiver note is moot: its body's writes say what it changed (see
    /// `Store::lent_mut`).
    ///
    /// ```
    /// use irtrack::{track, tracked};
    ///
    /// fn bump(v: &mut f64) -> bool {
    ///     *v += 1.0;
    ///     true
    /// }
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 {
    ///     let mut y = x;
    ///     let _ = bump(&mut y);
    ///     y
    /// }
    ///
    /// let trace = track(f, (1.0,));
    /// let ir = trace.root().children().next().unwrap().ir().unwrap();
    /// let call = ir.entries.iter().position(|e| e.head == "bump").unwrap();
    /// assert_eq!(ir.borrows_mut(call).collect::<Vec<_>>(), [0]);
    /// ```
    pub fn borrows_mut(&self, index: usize) -> impl Iterator<Item = usize> + '_ {
        let start = self
            .mut_borrows
            .partition_point(|&(e, _)| (e as usize) < index);
        self.mut_borrows[start..]
            .iter()
            .take_while(move |&&(e, _)| e as usize == index)
            .map(|&(_, k)| k as usize)
    }

    /// For a pattern binding (`$(bind b)`), the path of the part of its operand it binds, when
    /// that is a part of a tuple: `"1"` for `b` in `let (a, b) = t`, `"0.1"` for `x` in
    /// `let ((_, x), _) = t`. `None` for a binding of the whole, or of a part irtrack does not
    /// name (a struct's field, an enum's payload).
    pub fn bind_path(&self, index: usize) -> Option<&str> {
        self.bind_paths
            .binary_search_by_key(&(index as u32), |(e, _)| *e)
            .ok()
            .map(|k| self.bind_paths[k].1.as_str())
    }

    /// For a struct literal (`W { w: 2.0 * x, b }`), its fields' names in operand order (a
    /// `..base` is the operand after them): `#[tracked]` notes them as the entry's path
    /// ([`FnIr::set_bind_path`], comma-separated), so a field read of the struct is followed to
    /// the operand that made the field.
    pub fn struct_fields(&self, index: usize) -> Option<std::str::Split<'_, char>> {
        self.struct_fields
            .binary_search_by_key(&(index as u32), |(e, _)| *e)
            .ok()
            .map(|k| self.struct_fields[k].1.split(','))
    }

    /// Records the fields' names of struct literal `index` (see [`FnIr::struct_fields`]);
    /// `#[tracked]` does it, and [`FnIr::encode`] keeps it.
    pub fn set_struct_fields(&mut self, index: usize, names: String) {
        match self
            .struct_fields
            .binary_search_by_key(&(index as u32), |(e, _)| *e)
        {
            Ok(k) => self.struct_fields[k].1 = names,
            Err(k) => self.struct_fields.insert(k, (index as u32, names)),
        }
    }

    /// Records that binding `index` binds the part of its operand at `path` (see
    /// [`FnIr::bind_path`]); `#[tracked]` does it, and [`FnIr::encode`] keeps it.
    pub fn set_bind_path(&mut self, index: usize, path: String) {
        match self
            .bind_paths
            .binary_search_by_key(&(index as u32), |(e, _)| *e)
        {
            Ok(k) => self.bind_paths[k].1 = path,
            Err(k) => self.bind_paths.insert(k, (index as u32, path)),
        }
    }

    /// Whether any entry passes an operand by `&mut` (see [`FnIr::borrows_mut`]).
    pub fn has_mut_borrows(&self) -> bool {
        !self.mut_borrows.is_empty()
    }

    /// Records that entry `index` passes its operand `operand` by `&mut` (see
    /// [`FnIr::borrows_mut`]); `#[tracked]` does it, and [`FnIr::encode`] keeps it.
    pub fn set_borrows_mut(&mut self, index: usize, operand: usize) {
        let pair = (index as u32, operand as u32);
        if let Err(at) = self.mut_borrows.binary_search(&pair) {
            self.mut_borrows.insert(at, pair);
        }
    }

    /// Reads back what [`FnIr::encode`] wrote.
    pub fn decode(name: &str, module: &str, text: &str) -> Result<FnIr, IrError> {
        let mut entries = Vec::new();
        let mut generic = false;
        let mut mut_borrows = Vec::new();
        let mut bind_paths = Vec::new();
        let mut struct_fields = Vec::new();
        let mut captures = Vec::new();
        let mut callee_vars = Vec::new();
        let mut callee_captures = Vec::new();
        for (n, line) in split_unescaped(text, '\n').into_iter().enumerate() {
            if line.is_empty() {
                continue;
            }
            if n == 0 && line == "g" {
                generic = true;
                continue;
            }
            let fields = split_unescaped(line, '|');
            let bad = || IrError(format!("line {}: `{line}` is not an IR entry", n + 1));
            if fields.first() == Some(&"t") {
                let (Some(e), Some(path)) = (fields.get(1), fields.get(2)) else {
                    return Err(bad());
                };
                let e = e.parse::<usize>().map_err(|_| bad())?;
                // Positions of tuples and names of structs' fields (`1.0`, `p.x`).
                let valid = !path.is_empty()
                    && path.split('.').all(|k| {
                        !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    });
                if fields.len() != 3 || !valid {
                    return Err(bad());
                }
                bind_paths.push((e, path.to_string()));
                continue;
            }
            if fields.first() == Some(&"d") {
                let (Some(e), Some(names)) = (fields.get(1), fields.get(2)) else {
                    return Err(bad());
                };
                let e = e.parse::<usize>().map_err(|_| bad())?;
                let valid = names.split(',').all(|n| {
                    !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                });
                if fields.len() != 3 || !valid {
                    return Err(bad());
                }
                struct_fields.push((e, names.to_string()));
                continue;
            }
            if matches!(fields.first(), Some(&"k" | &"l" | &"n")) {
                let pair = match fields.as_slice() {
                    [_, e, k] => (e.parse::<usize>(), k.parse::<u32>()),
                    _ => return Err(bad()),
                };
                match (pair, fields[0]) {
                    ((Ok(e), Ok(k)), "k") => captures.push((e, k)),
                    ((Ok(e), Ok(k)), "l") => callee_vars.push((e, k)),
                    ((Ok(e), Ok(k)), _) => callee_captures.push((e, k)),
                    _ => return Err(bad()),
                }
                continue;
            }
            if fields.first() == Some(&"w") {
                let pair = match fields.as_slice() {
                    [_, e, k] => (e.parse::<usize>(), k.parse::<usize>()),
                    _ => return Err(bad()),
                };
                match pair {
                    (Ok(e), Ok(k)) => mut_borrows.push((e, k)),
                    _ => return Err(bad()),
                }
                continue;
            }
            if fields.len() < 7 {
                return Err(bad());
            }
            let kind = EntryKind::from_code(fields[0]).ok_or_else(bad)?;
            let num = |s: &str| s.parse::<u32>().map_err(|_| bad());
            let (block, number, target) = (num(fields[1])?, num(fields[2])?, num(fields[3])?);
            let head = unescape(fields[4]);
            let operand = |s: &str| decode_operand(s).ok_or_else(bad);
            let condition = if fields[5].is_empty() {
                Operand::None
            } else {
                operand(fields[5])?
            };
            let control = if fields[6].is_empty() {
                Operand::None
            } else {
                operand(fields[6])?
            };
            let operands = fields[7..]
                .iter()
                .map(|s| operand(s))
                .collect::<Result<Vec<_>, _>>()?;
            let slot = match kind {
                EntryKind::Argument => Slot::Arg(number),
                EntryKind::Constant => Slot::Const(number),
                k if k.is_branch() => Slot::Branch(number),
                _ => Slot::Var(number),
            };
            entries.push(Entry {
                location: Location { block, slot },
                kind,
                head,
                operands,
                condition,
                control,
                target,
            });
        }
        let mut ir = FnIr::new(name, module, entries)?;
        ir.generic = generic;
        for (e, path) in bind_paths {
            if !ir
                .entries
                .get(e)
                .is_some_and(|x| x.kind == EntryKind::Special)
            {
                return Err(IrError(format!("entry {e} is no pattern binding")));
            }
            ir.set_bind_path(e, path);
        }
        for (e, names) in struct_fields {
            if !ir.entries.get(e).is_some_and(|x| {
                super::op::Builtin::of_entry(x) == Some(super::op::Builtin::Struct)
            }) {
                return Err(IrError(format!("entry {e} is no struct literal")));
            }
            ir.set_struct_fields(e, names);
        }
        for (e, k) in captures {
            if !ir
                .entries
                .get(e)
                .is_some_and(|x| x.kind == EntryKind::Constant)
            {
                return Err(IrError(format!("entry {e} is no captured variable")));
            }
            ir.set_capture_index(e, k as usize);
        }
        for (e, k) in callee_captures {
            if !ir.entries.get(e).is_some_and(|x| x.kind == EntryKind::Call) {
                return Err(IrError(format!(
                    "entry {e} is no call of a captured closure"
                )));
            }
            ir.set_callee_capture(e, k as usize);
        }
        for (e, v) in callee_vars {
            if !ir.entries.get(e).is_some_and(|x| x.kind == EntryKind::Call) || v == 0 {
                return Err(IrError(format!("entry {e} is no call of a variable")));
            }
            ir.set_callee_var(e, v);
        }
        for (e, k) in mut_borrows {
            let operands = ir.entries.get(e).map_or(0, |x| x.operands.len());
            if k >= operands {
                return Err(IrError(format!(
                    "entry {e} has no operand {k} to pass by `&mut`"
                )));
            }
            ir.set_borrows_mut(e, k);
        }
        Ok(ir)
    }
}

fn escape(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

fn encode_operand(out: &mut String, op: &Operand) {
    match op {
        Operand::Var(v) => out.push_str(&format!("%{v}")),
        Operand::None => out.push('_'),
        Operand::Const(c) => {
            out.push('\'');
            escape(out, c);
        }
    }
}

fn decode_operand(s: &str) -> Option<Operand> {
    if s == "_" {
        return Some(Operand::None);
    }
    if let Some(v) = s.strip_prefix('%') {
        return v.parse().ok().map(Operand::Var);
    }
    s.strip_prefix('\'').map(|c| Operand::Const(unescape(c)))
}

/// Splits at `sep` where it is not escaped by a backslash.
fn split_unescaped(text: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == sep {
            out.push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    out.push(&text[start..]);
    out
}

fn unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Indexing by a node's location gives the original statement.
///
/// # Panics
/// Panics if the function has no entry at `location`; use [`FnIr::get`] to ask first.
impl std::ops::Index<Location> for FnIr {
    type Output = Entry;
    fn index(&self, location: Location) -> &Entry {
        self.get(location)
            .unwrap_or_else(|| panic!("{} has no entry at [{location}]", self.name))
    }
}

/// IRTools-style listing: `1: (%1, %2)`, indented statements, branches.
impl fmt::Display for FnIr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for block in 1..=self.block_count() {
            let in_block = || {
                self.entries
                    .iter()
                    .filter(move |e| e.location.block == block)
            };
            write!(f, "{block}:")?;
            let args: Vec<String> = in_block()
                .filter(|e| e.kind == EntryKind::Argument)
                .map(|e| e.to_string())
                .collect();
            if !args.is_empty() {
                write!(f, " ({})", args.join(", "))?;
            }
            writeln!(f)?;
            for e in in_block().filter(|e| e.kind != EntryKind::Argument) {
                writeln!(f, "  {e}")?;
            }
        }
        Ok(())
    }
}

/// The IR of a tracked function as the generated code keeps it: a `static` holding the
/// encoded text, decoded the first time the function is recorded.
pub struct StaticIr {
    name: &'static str,
    module: &'static str,
    text: &'static str,
    decoded: OnceLock<FnIr>,
}

impl StaticIr {
    /// The IR `#[tracked]` encoded for the function `name` of `module`.
    pub const fn new(name: &'static str, module: &'static str, text: &'static str) -> StaticIr {
        StaticIr {
            name,
            module,
            text,
            decoded: OnceLock::new(),
        }
    }

    /// The decoded IR. The text was written by the macro from a checked [`FnIr`], so decoding
    /// cannot fail unless the macro and the runtime disagree on the format, which their shared
    /// definition rules out; that would be a bug in irtrack, reported by this panic.
    pub fn get(&'static self) -> &'static FnIr {
        self.decoded.get_or_init(|| {
            FnIr::decode(self.name, self.module, self.text).unwrap_or_else(|e| {
                panic!(
                    "irtrack bug: the IR of `{}::{}` does not decode ({e}); please report it",
                    self.module, self.name
                )
            })
        })
    }
}

/// The IR of the function a nested call ran: the macro's, borrowed for the whole program, or
/// one built at run time (an imported trace, a derivative), shared.
#[derive(Clone, Debug)]
pub enum IrRef {
    /// IR kept by the code `#[tracked]` generated.
    Static(&'static FnIr),
    /// IR built at run time.
    Shared(Arc<FnIr>),
}

impl std::ops::Deref for IrRef {
    type Target = FnIr;
    fn deref(&self) -> &FnIr {
        match self {
            IrRef::Static(ir) => ir,
            IrRef::Shared(ir) => ir,
        }
    }
}

impl IrRef {
    /// Whether two references are to the same function's IR (the same object).
    pub fn same(&self, other: &IrRef) -> bool {
        std::ptr::eq::<FnIr>(&**self, &**other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h() -> FnIr {
        let v = Operand::Var;
        let c = |s: &str| Operand::Const(s.into());
        FnIr::new(
            "h",
            "m",
            vec![
                Entry::argument(1, 1, "x"),
                Entry::argument(1, 2, "n"),
                Entry::branch(
                    1,
                    1,
                    EntryKind::Jump,
                    2,
                    vec![c("0.0"), c("0")],
                    Operand::None,
                    "",
                ),
                Entry::argument(2, 3, "r"),
                Entry::argument(2, 4, "i"),
                Entry::statement(2, 5, EntryKind::Operator, "<", vec![v(4), v(2)]),
                Entry::branch(2, 1, EntryKind::JumpUnless, 4, vec![], v(5), ""),
                Entry {
                    control: v(5),
                    ..Entry::branch(2, 2, EntryKind::Jump, 3, vec![], Operand::None, "")
                },
                Entry::statement(3, 6, EntryKind::MethodCall, "powi", vec![v(1), v(4)]),
                Entry::statement(3, 7, EntryKind::Operator, "+=", vec![v(3), v(6)]),
                Entry::statement(3, 8, EntryKind::Operator, "+=", vec![v(4), c("1")]),
                Entry::branch(
                    3,
                    1,
                    EntryKind::Jump,
                    2,
                    vec![v(7), v(8)],
                    Operand::None,
                    "",
                ),
                Entry::branch(4, 1, EntryKind::Return, 0, vec![v(3)], Operand::None, ""),
            ],
        )
        .unwrap()
    }

    #[test]
    fn encoding_round_trips() {
        let ir = h();
        let text = ir.encode();
        assert_eq!(FnIr::decode("h", "m", &text).unwrap(), ir);
        assert_eq!(ir.var_index(5), Some(5));
        assert_eq!(ir.branch_index(2, 2), Some(7));
        assert_eq!(ir.branch_index(2, 3), None);
        assert_eq!(ir.block_count(), 4);
    }

    #[test]
    fn text_with_separators_round_trips() {
        let ir = FnIr::new(
            "f",
            "m",
            vec![
                Entry::statement(
                    1,
                    1,
                    EntryKind::Special,
                    "a|b\\c\nd",
                    vec![Operand::Const("\"|\\n\"".into())],
                ),
                Entry::branch(
                    1,
                    1,
                    EntryKind::Return,
                    0,
                    vec![Operand::Var(1)],
                    Operand::None,
                    "",
                ),
            ],
        )
        .unwrap();
        assert_eq!(FnIr::decode("f", "m", &ir.encode()).unwrap(), ir);
    }

    #[test]
    fn bad_ir_is_an_error() {
        let e = FnIr::new(
            "f",
            "m",
            vec![Entry::branch(
                1,
                1,
                EntryKind::Return,
                0,
                vec![Operand::Var(3)],
                Operand::None,
                "",
            )],
        );
        assert!(e.is_err());
        assert!(FnIr::decode("f", "m", "x|1").is_err());
    }
}
