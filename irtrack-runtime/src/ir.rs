//! The static IR of a tracked function: what `#[tracked]` lowered it to at compile time.
//!
//! Every tracked function carries one [`FnIr`] as a `static`. Its entries are the function's
//! block arguments, statements and branches; a trace node records the index of the entry it
//! executed, so `node.ir()[node.location()]` gives back the statement.

use std::fmt;

/// The lowered IR of one tracked function (or closure), built by `#[tracked]`.
#[derive(Debug)]
pub struct FnIr {
    /// The function's name as written (`h`, `norm`), or the closure's binding name.
    pub name: &'static str,
    /// `module_path!()` where the function is defined.
    pub module: &'static str,
    /// Every block argument, statement and branch, in the order the lowering created them
    /// (the numbers generated code passes to the recorder); listings group them by block.
    pub entries: &'static [Entry],
    /// The number of SSA variables (`%1` to `%var_count`).
    pub var_count: u32,
}

/// One block argument, statement or branch of a [`FnIr`].
#[derive(Debug)]
pub struct Entry {
    /// Where the entry sits: block and SSA variable or branch number.
    pub location: Location,
    /// What the entry does.
    pub kind: EntryKind,
    /// The callee (`sin`, `other::sq`), operator (`+`), special kind (`vec!`), constant name,
    /// or, for a pattern branch, the pattern text.
    pub head: &'static str,
    /// The values the entry uses, in argument order; for a branch, the block arguments it passes.
    pub operands: &'static [Operand],
    /// For a conditional branch, the condition it tests.
    pub condition: Operand,
    /// For a branch, the block it jumps to.
    pub target: u32,
}

/// What an [`Entry`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// The SSA variable `%i`.
    Var(u32),
    /// A literal, as written in the source.
    Const(&'static str),
    /// No value (a condition slot of an unconditional branch).
    None,
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

impl Entry {
    /// A function or block argument `%var` of `block` (`head` names the variable).
    pub const fn argument(block: u32, var: u32, head: &'static str) -> Entry {
        Entry {
            location: Location {
                block,
                slot: Slot::Arg(var),
            },
            kind: EntryKind::Argument,
            head,
            operands: &[],
            condition: Operand::None,
            target: 0,
        }
    }

    /// A named constant or captured variable `%var` of `block`.
    pub const fn constant(block: u32, var: u32, head: &'static str) -> Entry {
        Entry {
            location: Location {
                block,
                slot: Slot::Const(var),
            },
            kind: EntryKind::Constant,
            head,
            operands: &[],
            condition: Operand::None,
            target: 0,
        }
    }

    /// A statement `%var = head(operands)` of `block`.
    pub const fn statement(
        block: u32,
        var: u32,
        kind: EntryKind,
        head: &'static str,
        operands: &'static [Operand],
    ) -> Entry {
        Entry {
            location: Location {
                block,
                slot: Slot::Var(var),
            },
            kind,
            head,
            operands,
            condition: Operand::None,
            target: 0,
        }
    }

    /// The `number`-th branch of `block`, to `target` with block arguments `operands`.
    pub const fn branch(
        block: u32,
        number: u32,
        kind: EntryKind,
        target: u32,
        operands: &'static [Operand],
        condition: Operand,
        head: &'static str,
    ) -> Entry {
        Entry {
            location: Location {
                block,
                slot: Slot::Branch(number),
            },
            kind,
            head,
            operands,
            condition,
            target,
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
        let ops = self.operands;
        if let Some(var) = self.location.slot.var() {
            if self.kind == EntryKind::Argument {
                return write!(f, "%{var}");
            }
            write!(f, "%{var} = ")?;
        }
        match self.kind {
            EntryKind::Argument => Ok(()),
            EntryKind::Constant => f.write_str(self.head),
            EntryKind::Call => write!(f, "{}({})", self.head, List(ops)),
            EntryKind::MethodCall => match ops.split_first() {
                Some((recv, rest)) => write!(f, "{recv}.{}({})", self.head, List(rest)),
                None => write!(f, "{}()", self.head),
            },
            EntryKind::Operator => match ops {
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

impl FnIr {
    /// The entry at `location`, if the function has one there.
    pub fn get(&self, location: Location) -> Option<&Entry> {
        self.entries.iter().find(|e| e.location == location)
    }

    /// The number of blocks.
    pub fn block_count(&self) -> u32 {
        self.entries
            .iter()
            .map(|e| e.location.block)
            .max()
            .unwrap_or(1)
    }
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
