//! The IRTracker-style listing of a trace (DESIGN.md, "Trace text format").

use crate::ir::{EntryKind, Operand};
use crate::node::NodeKind;
use crate::trace::{Arg, NodeRef};
use std::fmt::{self, Write};

/// Values longer than this many characters are cut and end in `…`.
pub const VALUE_WIDTH: usize = 60;

/// The listing of a node and some levels of its children; see [`NodeRef::levels`].
pub struct Listing<'t> {
    pub(crate) node: NodeRef<'t>,
    pub(crate) levels: usize,
}

impl fmt::Display for Listing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_tree(f, self.node, 0, self.levels)
    }
}

fn write_tree(
    f: &mut fmt::Formatter<'_>,
    node: NodeRef<'_>,
    indent: usize,
    levels: usize,
) -> fmt::Result {
    if levels == 0 {
        return Ok(());
    }
    for _ in 0..indent {
        f.write_str("  ")?;
    }
    write_line(f, node)?;
    f.write_char('\n')?;
    for child in node.children() {
        write_tree(f, child, indent + 1, levels - 1)?;
    }
    Ok(())
}

fn write_line(f: &mut fmt::Formatter<'_>, node: NodeRef<'_>) -> fmt::Result {
    write_body(f, node)?;
    let mut metadata = node.metadata_values().peekable();
    if metadata.peek().is_some() {
        f.write_str("\t[")?;
        for (i, (key, value)) in metadata.enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{key} = {}", cut(&value.to_string()))?;
        }
        f.write_str("]")?;
    }
    Ok(())
}

fn write_body(f: &mut fmt::Formatter<'_>, node: NodeRef<'_>) -> fmt::Result {
    let is_root = node.parent().is_none();
    if !is_root {
        write!(f, "@{}: ", node.position().unwrap_or(0))?;
        if let Some(loc) = node.location() {
            write!(f, "[{loc}] ")?;
        }
    }
    let entry = node.entry();
    let head = entry.map(|e| e.head).unwrap_or("");
    match node.kind() {
        NodeKind::Argument => {
            if let Some((jump, n)) = node.block_argument_of() {
                write!(f, "@{}#{n} → ", jump.position().unwrap_or(0))?;
            }
            write_value(f, node)
        }
        NodeKind::Constant => write_value(f, node),
        NodeKind::Error => {
            f.write_str("error → ")?;
            write_value(f, node)
        }
        NodeKind::PrimitiveCall | NodeKind::NestedCall if is_root => {
            write!(f, "⟨{}⟩(", node.function_name().unwrap_or("?"))?;
            for (i, arg) in node.arguments().into_iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                if let Arg::Node(n) = arg {
                    write!(f, "⟨{}⟩", cut(&n.value_text()))?;
                }
            }
            f.write_str(") → ")?;
            write_value(f, node)
        }
        NodeKind::PrimitiveCall | NodeKind::NestedCall => {
            write!(f, "⟨{head}⟩(")?;
            write_args(f, &node.arguments())?;
            f.write_str(") → ")?;
            write_value(f, node)
        }
        NodeKind::Special => {
            write!(f, "$({head})(")?;
            write_args(f, &node.arguments())?;
            f.write_str(") → ")?;
            write_value(f, node)
        }
        NodeKind::Return => {
            f.write_str("return ")?;
            write_args(f, &node.arguments())?;
            f.write_str(" → ")?;
            write_value(f, node)
        }
        NodeKind::Jump => {
            let Some(entry) = entry else { return Ok(()) };
            write!(f, "goto §{}", entry.target)?;
            let mut args = node.arguments();
            let condition = (entry.condition != Operand::None)
                .then(|| args.pop())
                .flatten();
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
            Ok(())
        }
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

fn write_value(f: &mut fmt::Formatter<'_>, node: NodeRef<'_>) -> fmt::Result {
    write!(f, "{}::{}", cut(&node.value_text()), node.type_name())
}

/// Cuts `text` to [`VALUE_WIDTH`] characters, ending in `…` when it was longer.
fn cut(text: &str) -> String {
    let text = text.replace('\n', " ");
    match text.char_indices().nth(VALUE_WIDTH) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

/// Drops module paths from a type name: `alloc::vec::Vec<f64>` → `Vec<f64>`,
/// `&mut rand::rngs::std::StdRng` → `&mut StdRng`.
pub fn short_type_name(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    let mut segment_start = 0;
    let mut chars = full.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            out.truncate(segment_start);
            continue;
        }
        // `{{closure}}` counts as a name, so `f::{{closure}}::{{closure}}` keeps its last one.
        if !(c.is_alphanumeric() || c == '_' || c == '{' || c == '}') {
            out.push(c);
            segment_start = out.len();
            continue;
        }
        out.push(c);
    }
    out
}

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
        let c = cut(&long);
        assert_eq!(c.chars().count(), VALUE_WIDTH + 1);
        assert!(c.ends_with('…'));
        assert_eq!(cut("short"), "short");
    }
}
