//! Graphviz export of a trace: [`Trace::to_dot`] and [`NodeRef::to_dot`].
//!
//! The output is a `digraph` that `dot -Tsvg` renders:
//!
//! - Every node of the trace is a Graphviz node named `n<arena id>` (unique in the trace),
//!   labelled `@pos: ` and the body of its line in the listing (its location is left out of
//!   the label and kept as the tooltip; values are cut as the listing cuts them).
//! - A nested call is a `subgraph cluster_<arena id>` labelled with the call and its value
//!   (`@8: ⟨geom⟩ → 3::i32`). The cluster holds the call's own node first, then its children.
//! - Data edges go from each node a node [`referenced`](NodeRef::referenced_numbered) to that
//!   node, labelled with the argument number.
//! - Control flow is styled apart: jumps are dashed boxes, returns bold double octagons,
//!   errors red octagons.
//! - A block argument `@p#n` gets a dotted edge labelled `#n` from the jump `@p` that supplied
//!   it; a nested call's function argument gets a dashed edge from the caller's value it was
//!   passed (see [`parent_argument`](NodeRef::parent_argument)), across clusters.
//!
//! Nodes come in listing order and edges in the order of the nodes that use them, so the
//! output is deterministic and suits snapshot tests.

use crate::core::ids::NodeId;
use crate::core::tape::NodeKind;
use crate::view::trace::{Arg, NodeRef, Trace};
use std::collections::HashSet;
use std::fmt::Write;

impl Trace {
    /// The whole trace as a Graphviz `digraph`; the same as `self.root().to_dot()`, see
    /// [`NodeRef::to_dot`] and the [module docs](crate::export::dot) for what it draws.
    ///
    /// ```
    /// use irtrack::{tracked, track};
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 {
    ///     x.sin() + x
    /// }
    ///
    /// let trace = track(f, (1.0,));
    /// let dot = trace.to_dot();
    /// assert!(dot.starts_with("digraph irtrack {"));
    /// // `@3: ⟨+⟩(@2, @1)` uses `@2` as its first argument and `@1` as its second.
    /// let id = |p: usize| trace.root().child(p).unwrap().id().to_string().replace('#', "n");
    /// assert!(dot.contains(&format!("{} -> {} [label=\"1\"", id(2), id(3))));
    /// assert!(dot.contains(&format!("{} -> {} [label=\"2\"", id(1), id(3))));
    /// // Write it out and render it with `dot -Tsvg trace.dot -o trace.svg`:
    /// // std::fs::write("trace.dot", dot)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn to_dot(&self) -> String {
        self.root().to_dot()
    }

    /// The whole trace drawn with `style`; see [`NodeRef::to_dot_styled`].
    ///
    /// ```
    /// use irtrack::{tracked, track_with, Context, Draft, export::dot::DotStyle};
    ///
    /// struct Tag;
    /// impl Context for Tag {
    ///     fn primitive_call(&self, node: &mut Draft<'_>) {
    ///         node.set("checked", true);
    ///     }
    /// }
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 { x.sin() }
    ///
    /// let trace = track_with(Tag, f, (1.0,));
    /// let dot = trace.to_dot_styled(&DotStyle { metadata: true, node: None });
    /// assert!(dot.contains("\\n[checked = true]"));
    /// assert_eq!(trace.to_dot_styled(&DotStyle::default()), trace.to_dot());
    /// ```
    pub fn to_dot_styled(&self, style: &DotStyle<'_>) -> String {
        self.root().to_dot_styled(style)
    }
}

impl NodeRef<'_> {
    /// This node and everything below it as a Graphviz `digraph` (see the
    /// [module docs](crate::export::dot)). Edges from nodes outside the subtree are left out: the data
    /// edges into this node and, for a nested call, the dashed edges from its caller's values.
    ///
    /// ```
    /// use irtrack::{tracked, track, NodeKind};
    ///
    /// #[tracked]
    /// fn sq(x: f64) -> f64 {
    ///     x * x
    /// }
    ///
    /// #[tracked]
    /// fn g(x: f64) -> f64 {
    ///     sq(x) + 1.0
    /// }
    ///
    /// let trace = track(g, (3.0,));
    /// let call = trace.root().child(2).unwrap();
    /// assert_eq!(call.kind(), NodeKind::NestedCall);
    /// let dot = call.to_dot();
    /// // One cluster, for the call to `sq`, labelled with its position, name and value.
    /// assert_eq!(dot.matches("subgraph cluster_").count(), 1);
    /// assert!(dot.contains("label=\"@2: ⟨sq⟩ → 9.0::f64\""));
    /// // `@2: ⟨*⟩(@1, @1)` inside `sq` uses its argument twice.
    /// assert_eq!(dot.matches("[label=\"1\"").count(), 2); // `*` and `return`
    /// assert_eq!(dot.matches("[label=\"2\"").count(), 1);
    /// ```
    pub fn to_dot(&self) -> String {
        render(*self, None)
    }

    /// Like [`to_dot`](NodeRef::to_dot), styled by `style`: metadata in the labels, extra
    /// Graphviz attributes per node.
    ///
    /// ```
    /// use irtrack::{tracked, track, export::dot::DotStyle};
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 { x.sin() }
    ///
    /// let trace = track(f, (1.0,));
    /// let red = |n: irtrack::NodeRef<'_>| (n.function_name() == Some("sin")).then(|| "color=red".to_string());
    /// let dot = trace.root().to_dot_styled(&DotStyle { metadata: false, node: Some(&red) });
    /// assert_eq!(dot.matches("color=red").count(), 1);
    /// ```
    pub fn to_dot_styled(&self, style: &DotStyle<'_>) -> String {
        render(*self, Some(style))
    }
}

/// A styling hook: extra Graphviz attributes for a node, or `None`.
pub type NodeStyle = dyn Fn(NodeRef<'_>) -> Option<String>;

/// How [`Trace::to_dot_styled`] draws nodes beyond [`Trace::to_dot`].
#[derive(Clone, Copy, Default)]
pub struct DotStyle<'f> {
    /// Whether a node's label shows its metadata, on a second line as `[key = value, …]`.
    pub metadata: bool,
    /// Extra Graphviz attributes for a node (`"style=filled, fillcolor=lightblue"`), written
    /// after the default ones, which they override; `None` keeps the defaults.
    pub node: Option<&'f NodeStyle>,
}

fn render(root: NodeRef<'_>, style: Option<&DotStyle<'_>>) -> String {
    let mut nodes = Vec::new();
    collect(root, &mut nodes);
    let inside: HashSet<NodeId> = nodes.iter().map(|n| n.id()).collect();

    let mut out = String::new();
    out.push_str("digraph irtrack {\n");
    out.push_str("  graph [fontname=\"DejaVu Sans\", fontsize=11, labeljust=l];\n");
    out.push_str("  node [fontname=\"DejaVu Sans\", fontsize=10, shape=box, style=rounded];\n");
    out.push_str("  edge [fontname=\"DejaVu Sans\", fontsize=9];\n");
    write_tree(&mut out, root, 1, style);

    for node in &nodes {
        let to = name(node.id());
        for (k, r) in node.referenced_numbered() {
            if inside.contains(&r.id()) {
                let _ = writeln!(out, "  {} -> {to} [label=\"{k}\"];", name(r.id()));
            }
        }
        if let Some((jump, n)) = node.block_argument_of() {
            if inside.contains(&jump.id()) {
                let _ = writeln!(
                    out,
                    "  {} -> {to} [label=\"#{n}\", style=dotted];",
                    name(jump.id())
                );
            }
        }
        if let Some(Arg::Node(value)) = node.parent_argument() {
            if inside.contains(&value.id()) {
                let _ = writeln!(
                    out,
                    "  {} -> {to} [style=dashed, color=blue, arrowhead=empty];",
                    name(value.id())
                );
            }
        }
    }
    out.push_str("}\n");
    out
}

/// The node and its descendants in listing order (depth first, children in order), from a
/// worklist: a trace as deep as its recursion overflowed the stack by recursion.
fn collect<'t>(node: NodeRef<'t>, out: &mut Vec<NodeRef<'t>>) {
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        out.push(node);
        let first = stack.len();
        stack.extend(node.children());
        stack[first..].reverse();
    }
}

fn name(id: NodeId) -> String {
    format!("n{}", id.0)
}

fn write_tree(out: &mut String, node: NodeRef<'_>, depth: usize, style: Option<&DotStyle<'_>>) {
    // A cluster per nested call, closed after its children: from a worklist (see `collect`).
    enum Item<'t> {
        Open(NodeRef<'t>, usize),
        Close(usize),
    }
    let mut stack = vec![Item::Open(node, depth)];
    while let Some(item) = stack.pop() {
        let (node, depth) = match item {
            Item::Close(depth) => {
                let _ = writeln!(out, "{}}}", "  ".repeat(depth));
                continue;
            }
            Item::Open(node, depth) => (node, depth),
        };
        let indent = "  ".repeat(depth);
        if node.kind() == NodeKind::NestedCall {
            let _ = writeln!(out, "{indent}subgraph cluster_{} {{", node.id().0);
            let _ = writeln!(
                out,
                "{indent}  label=\"{}\"; style=rounded; color=gray50;",
                escape(&cluster_label(node))
            );
            write_node(out, node, depth + 1, style);
            stack.push(Item::Close(depth));
            let first = stack.len();
            stack.extend(node.children().map(|c| Item::Open(c, depth + 1)));
            stack[first..].reverse();
        } else {
            write_node(out, node, depth, style);
        }
    }
}

fn write_node(out: &mut String, node: NodeRef<'_>, depth: usize, styled: Option<&DotStyle<'_>>) {
    let indent = "  ".repeat(depth);
    let style = match node.kind() {
        NodeKind::Argument => "shape=ellipse, style=solid",
        NodeKind::Constant => "shape=ellipse, style=filled, fillcolor=gray92",
        NodeKind::PrimitiveCall => "shape=box, style=rounded",
        NodeKind::NestedCall => "shape=box, style=\"rounded,bold\"",
        NodeKind::Special => "shape=box, style=\"rounded,filled\", fillcolor=lightyellow",
        NodeKind::Jump => "shape=box, style=dashed",
        NodeKind::Return => "shape=doubleoctagon, style=bold",
        NodeKind::Error => "shape=octagon, style=bold, color=red, fontcolor=red",
    };
    let mut text = label(node);
    if styled.is_some_and(|s| s.metadata) && node.metadata_values().next().is_some() {
        text.push_str("\n[");
        for (i, (k, v)) in node.metadata_values().enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            let _ = write!(text, "{k} = {}", cut(&format!("{v}")));
        }
        text.push(']');
    }
    let _ = write!(
        out,
        "{indent}{} [label=\"{}\", {style}",
        name(node.id()),
        escape(&text)
    );
    if let Some(loc) = node.location() {
        let _ = write!(out, ", tooltip=\"{}\"", escape(&loc.to_string()));
    }
    if let Some(extra) = styled.and_then(|s| s.node).and_then(|f| f(node)) {
        let _ = write!(out, ", {extra}");
    }
    out.push_str("];\n");
}

/// `@pos: ` and the body of the node's listing line: the line without its location and
/// metadata. The root's label is its whole line.
fn label(node: NodeRef<'_>) -> String {
    // The listing's line is `@pos: [location] body\t[metadata]`; print.rs keeps the body's
    // writer private, so the line is taken apart here.
    let line = format!("{node:?}");
    let line = match node.metadata_values().next() {
        Some(_) => line.rfind("\t[").map_or(line.as_str(), |i| &line[..i]),
        None => line.as_str(),
    };
    let Some(pos) = node.position() else {
        return line.to_string();
    };
    let prefix = format!("@{pos}: ");
    let body = line.strip_prefix(prefix.as_str()).unwrap_or(line);
    let body = match node.location() {
        Some(loc) => body
            .strip_prefix(format!("[{loc}] ").as_str())
            .unwrap_or(body),
        None => body,
    };
    format!("{prefix}{body}")
}

/// `@pos: ⟨name⟩ → value::Type` for a nested call (no `@pos: ` for the root).
fn cluster_label(node: NodeRef<'_>) -> String {
    let mut s = String::new();
    if let Some(pos) = node.position() {
        let _ = write!(s, "@{pos}: ");
    }
    let _ = write!(
        s,
        "⟨{}⟩ → {}::{}",
        node.function_name().unwrap_or("?"),
        cut(&node.value_text()),
        node.type_name()
    );
    s
}

/// Cuts a value as the listing does.
fn cut(text: &str) -> String {
    crate::view::listing::cut(text, crate::view::listing::VALUE_WIDTH)
}

/// Escapes text for a double-quoted DOT string used as a label: quotes and backslashes are
/// escaped (so `\n`, `\l` and the like in values stay literal), newlines become `\n`.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_quotes_backslashes_and_newlines() {
        assert_eq!(escape(r#"say "hi"\n"#), r#"say \"hi\"\\n"#);
        assert_eq!(escape("a\nb\r\n"), "a\\nb\\n");
        assert_eq!(escape("⟨+⟩ → {}"), "⟨+⟩ → {}");
    }

    #[test]
    fn cut_matches_the_listing() {
        let long = "x".repeat(100);
        assert_eq!(
            cut(&long).chars().count(),
            crate::view::listing::VALUE_WIDTH + 1
        );
        assert_eq!(cut("a\nb"), "a b");
    }
}
