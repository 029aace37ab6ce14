//! The IRTracker-style listing of a trace (README.md, "Tracking a function").

use super::trace::{Arg, NodeRef};
use crate::core::ir::EntryKind;
use crate::core::tape::NodeKind;
use std::fmt::{self, Write};

/// Values longer than this many characters are cut and end in `…`.
pub const VALUE_WIDTH: usize = 60;

/// The listing of a node and some levels of its children; see [`NodeRef::levels`].
///
/// ```
/// use irtrack::{tracked, track};
///
/// #[tracked]
/// fn f(x: f64) -> f64 { x.sin() + x }
///
/// let trace = track(f, (1.0,));
/// assert_eq!(
///     trace.root().levels(2).compact().to_string(),
///     "⟨f⟩(⟨1.0⟩)\n  @1: [Arg:§1:%1]\n  @2: [§1:%2] ⟨sin⟩(@1)\n  @3: [§1:%3] ⟨+⟩(@2, @1)\n  @4: [§1:&1] return @3\n"
/// );
/// assert!(trace.root().levels(2).width(4).to_string().contains("⟨sin⟩(@1) → 0.84…::f64"));
/// ```
#[derive(Clone, Copy)]
pub struct Listing<'t> {
    node: NodeRef<'t>,
    levels: usize,
    compact: bool,
    width: usize,
}

impl<'t> Listing<'t> {
    pub(crate) fn new(node: NodeRef<'t>, levels: usize) -> Self {
        Listing {
            node,
            levels,
            compact: false,
            width: VALUE_WIDTH,
        }
    }

    /// Without values and types: the shape of the computation only.
    pub fn compact(mut self) -> Self {
        self.compact = true;
        self
    }

    /// Cuts values longer than `chars` characters (default [`VALUE_WIDTH`]) with `…`.
    pub fn width(mut self, chars: usize) -> Self {
        self.width = chars;
        self
    }
}

impl fmt::Display for Listing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_tree(f, self.node, 0, self.levels)
    }
}

/// How a line ends after its body: ` → value::Type`, the value alone, or nothing.
enum Tail {
    Arrow,
    Bare,
    Nothing,
}

impl Listing<'_> {
    /// Writes `node` and `levels - 1` levels below it, in order, from a worklist: a trace as
    /// deep as its recursion overflowed the stack here (30,000 nested calls read from JSON).
    fn write_tree(
        &self,
        f: &mut fmt::Formatter<'_>,
        node: NodeRef<'_>,
        indent: usize,
        levels: usize,
    ) -> fmt::Result {
        let mut stack = vec![(node, indent, levels)];
        while let Some((node, indent, levels)) = stack.pop() {
            if levels == 0 {
                continue;
            }
            for _ in 0..indent {
                f.write_str("  ")?;
            }
            self.write_line(f, node)?;
            f.write_char('\n')?;
            let first = stack.len();
            stack.extend(node.children().map(|c| (c, indent + 1, levels - 1)));
            stack[first..].reverse();
        }
        Ok(())
    }

    fn write_line(&self, f: &mut fmt::Formatter<'_>, node: NodeRef<'_>) -> fmt::Result {
        let tail = self.write_body(f, node)?;
        if !self.compact && !matches!(tail, Tail::Nothing) {
            if matches!(tail, Tail::Arrow) {
                f.write_str(" → ")?;
            }
            write!(
                f,
                "{}::{}",
                cut(&node.value_text(), self.width),
                node.type_name()
            )?;
        }
        let mut metadata = node.metadata_values().peekable();
        if metadata.peek().is_some() {
            f.write_str("\t[")?;
            for (i, (key, value)) in metadata.enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{key} = {}", cut(&value.to_string(), self.width))?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }

    /// Everything before the value; says how the value follows.
    fn write_body(
        &self,
        f: &mut fmt::Formatter<'_>,
        node: NodeRef<'_>,
    ) -> Result<Tail, fmt::Error> {
        let is_root = node.parent().is_none();
        if !is_root {
            write!(f, "@{}:", node.position().unwrap_or(0))?;
            if let Some(loc) = node.location() {
                write!(f, " [{loc}]")?;
            }
        }
        let entry = node.entry();
        let head = entry.map(|e| e.head.as_str()).unwrap_or("");
        // A separating space before what follows the location, except for the root.
        let sep = if is_root { "" } else { " " };
        Ok(match node.kind() {
            NodeKind::Argument => match node.block_argument_of() {
                Some((jump, n)) => {
                    write!(f, "{sep}@{}#{n}", jump.position().unwrap_or(0))?;
                    Tail::Arrow
                }
                None => {
                    if !self.compact {
                        f.write_str(sep)?;
                    }
                    Tail::Bare
                }
            },
            NodeKind::Constant => {
                if !self.compact {
                    f.write_str(sep)?;
                }
                Tail::Bare
            }
            NodeKind::Error => {
                write!(f, "{sep}error")?;
                Tail::Arrow
            }
            NodeKind::PrimitiveCall | NodeKind::NestedCall if is_root => {
                write!(f, "⟨{}⟩(", node.function_name().unwrap_or("?"))?;
                let args = node.arguments();
                if args.is_empty() {
                    // A primitive root: the values it was called with.
                    for (i, v) in node.store().root_args.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "⟨{}⟩", cut(&v.to_string(), self.width))?;
                    }
                }
                for (i, arg) in args.into_iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    if let Arg::Node(n) = arg {
                        write!(f, "⟨{}⟩", cut(&n.value_text(), self.width))?;
                    }
                }
                f.write_str(")")?;
                Tail::Arrow
            }
            NodeKind::PrimitiveCall | NodeKind::NestedCall => {
                write!(f, "{sep}⟨{head}⟩(")?;
                write_args(f, &node.arguments())?;
                f.write_str(")")?;
                Tail::Arrow
            }
            NodeKind::Special => {
                write!(f, "{sep}$({head})(")?;
                write_args(f, &node.arguments())?;
                f.write_str(")")?;
                Tail::Arrow
            }
            NodeKind::Return => {
                write!(f, "{sep}return ")?;
                write_args(f, &node.arguments())?;
                Tail::Arrow
            }
            NodeKind::Jump => {
                let Some(entry) = entry else {
                    return Ok(Tail::Arrow);
                };
                write!(f, "{sep}goto §{}", entry.target)?;
                let mut args = node.arguments();
                let condition = (!entry.condition.is_none()).then(|| args.pop()).flatten();
                if !args.is_empty() {
                    f.write_str(" (")?;
                    write_args(f, &args)?;
                    f.write_str(")")?;
                }
                if let Some(c) = condition {
                    f.write_str(" since ")?;
                    write_arg(f, &c)?;
                    match entry.kind {
                        EntryKind::JumpUnless => f.write_str(" == false")?,
                        EntryKind::JumpIfMatches => write!(f, " matches {}", entry.head)?,
                        _ => {}
                    }
                }
                // A jump's value is always `()`: not printed.
                Tail::Nothing
            }
        })
    }
}

fn write_args(f: &mut fmt::Formatter<'_>, args: &[Arg<'_>]) -> fmt::Result {
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write_arg(f, a)?;
    }
    Ok(())
}

fn write_arg(f: &mut fmt::Formatter<'_>, arg: &Arg<'_>) -> fmt::Result {
    match arg {
        Arg::Node(n) => write!(f, "@{}", n.position().unwrap_or(0)),
        Arg::Const(c) => write!(f, "⟨{c}⟩"),
    }
}

/// Cuts `text` to `width` characters, ending in `…` when it was longer; newlines become spaces.
pub(crate) fn cut(text: &str, width: usize) -> String {
    let text = text.replace('\n', " ");
    match text.char_indices().nth(width) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

pub use crate::core::value::short_type_name;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_lose_module_paths() {
        assert_eq!(short_type_name("alloc::vec::Vec<f64>"), "Vec<f64>");
        assert_eq!(
            short_type_name("&mut rand::rngs::std::StdRng"),
            "&mut StdRng"
        );
        assert_eq!(
            short_type_name("core::option::Option<(i32, alloc::string::String)>"),
            "Option<(i32, String)>"
        );
        assert_eq!(short_type_name("&[f64]"), "&[f64]");
        assert_eq!(
            short_type_name("Map<Iter<'_, f64>, m::f::{{closure}}::{{closure}}>"),
            "Map<Iter<'_, f64>, {{closure}}>"
        );
    }

    #[test]
    fn long_values_are_cut() {
        let long = "x".repeat(100);
        let c = cut(&long, VALUE_WIDTH);
        assert_eq!(c.chars().count(), VALUE_WIDTH + 1);
        assert!(c.ends_with('…'));
        assert_eq!(cut("short", VALUE_WIDTH), "short");
    }
}
