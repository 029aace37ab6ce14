//! Graphviz export: a reviewed snapshot of a small trace's DOT, structural checks on the DOT
//! of `geom`, and a render with `dot -Tsvg` where Graphviz is installed.

mod common;
use common::{f, geom, h};

use irtrack::{track, tracked, Trace};
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::io::Write;
use std::process::{Command, Stdio};

#[tracked]
fn quoted(s: &str) -> String {
    format!("{s} \"q\" \\ {{}}\nnext")
}

/// Seed 0: two recursive calls before geom stops (three nested calls in all).
fn geom_trace() -> Trace {
    track(geom, (1, 0.5, &mut StdRng::seed_from_u64(0)))
}

/// The Graphviz name of a node: `n` and its arena id.
fn name(node: irtrack::NodeRef<'_>) -> String {
    format!("n{}", node.id().to_string().trim_start_matches('#'))
}

/// Checks that braces balance outside double-quoted strings, and that quotes close.
fn assert_balanced(dot: &str) {
    let mut depth = 0i64;
    let mut in_string = false;
    let mut chars = dot.chars();
    while let Some(c) = chars.next() {
        if in_string {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                assert!(depth >= 0, "a `}}` closes nothing:\n{dot}");
            }
            _ => {}
        }
    }
    assert!(!in_string, "a string is not closed:\n{dot}");
    assert_eq!(depth, 0, "braces do not balance:\n{dot}");
}

/// Renders `dot_text` with `dot -Tsvg`; `None` when Graphviz is not installed.
fn render_svg(dot_text: &str) -> Option<String> {
    let installed = Command::new("dot")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        return None;
    }
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dot starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(dot_text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "dot -Tsvg failed: {}\n{dot_text}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).expect("SVG is UTF-8"))
}

const SKIPPED: &str = "skipped: graphviz `dot` is not installed (apt-get install graphviz)";

#[test]
fn dot_of_sin_plus_x() {
    let trace = track(f, (1.0,));
    let dot = trace.to_dot();
    assert_balanced(&dot);
    insta::assert_snapshot!(dot);
}

#[test]
fn dot_of_geom_has_a_cluster_per_call_and_every_data_edge() {
    let trace = geom_trace();
    let dot = trace.to_dot();
    assert_balanced(&dot);
    assert!(dot.starts_with("digraph irtrack {\n"));

    let calls: Vec<_> = trace
        .nodes()
        .filter(|n| n.kind() == irtrack::NodeKind::NestedCall)
        .collect();
    assert_eq!(calls.len(), 3, "geom with seed 0 recurses twice");
    assert_eq!(dot.matches("subgraph cluster_").count(), calls.len());
    for call in &calls {
        let id = call.id().to_string();
        let id = id.trim_start_matches('#');
        assert_eq!(dot.matches(&format!("subgraph cluster_{id} {{")).count(), 1);
    }

    // Every node once, every data edge of the listing with its argument number.
    let mut data_edges = 0;
    for node in trace.nodes() {
        let declaration = format!("{} [label=", name(node));
        let declared = dot
            .lines()
            .filter(|l| l.trim_start().starts_with(&declaration))
            .count();
        assert_eq!(declared, 1, "{node:?} is declared once");
        for (k, r) in node.referenced_numbered() {
            let edge = format!("  {} -> {} [label=\"{k}\"];\n", name(r), name(node));
            assert!(dot.contains(&edge), "missing {edge:?} for {node:?}");
            data_edges += 1;
        }
        if let Some(irtrack::Arg::Node(v)) = node.parent_argument() {
            let edge = format!("  {} -> {} [style=dashed", name(v), name(node));
            assert!(dot.contains(&edge), "missing {edge:?} for {node:?}");
        }
    }
    // Node declarations and data edges are the only `[label=` in it (no block arguments here).
    assert_eq!(dot.matches("[label=\"").count(), trace.len() + data_edges);
}

#[test]
fn dot_links_block_arguments_to_their_jumps() {
    let trace = track(h, (2.0, 2));
    let dot = trace.to_dot();
    assert_balanced(&dot);
    let mut block_args = 0;
    for node in trace.nodes() {
        if let Some((jump, n)) = node.block_argument_of() {
            let edge = format!(
                "  {} -> {} [label=\"#{n}\", style=dotted];\n",
                name(jump),
                name(node)
            );
            assert!(dot.contains(&edge), "missing {edge:?}");
            block_args += 1;
        }
    }
    assert!(block_args > 0);
    assert_eq!(dot.matches("style=dotted]").count(), block_args);
}

#[test]
fn dot_escapes_quotes_backslashes_and_newlines() {
    let trace = track(quoted, ("a\\b",));
    let dot = trace.to_dot();
    assert_balanced(&dot);
    // The value's Debug text is `"a\\b \"q\" \\ {}\nnext"` (Debug already escaped the
    // newline); in DOT every quote and backslash of it is escaped again.
    assert!(
        dot.contains(r#"\"a\\\\b \\\"q\\\" \\\\ {}\\nnext\"::String"#),
        "{dot}"
    );
    if let Some(svg) = render_svg(&dot) {
        assert!(svg.contains("<svg"));
    }
}

#[test]
fn dot_of_a_subtree_keeps_only_its_nodes() {
    let trace = geom_trace();
    let inner = trace.root().child(8).unwrap();
    let dot = inner.to_dot();
    assert_balanced(&dot);
    assert_eq!(dot.matches("subgraph cluster_").count(), 2);
    assert!(!dot.contains(&format!("{} [", name(trace.root()))));
    // No edge from the caller's values into the subtree.
    for (_, r) in inner.referenced_numbered() {
        assert!(!dot.contains(&format!("{} ->", name(r))));
    }
}

#[test]
fn dot_of_geom_renders_with_graphviz() {
    let dot = geom_trace().to_dot();
    match render_svg(&dot) {
        Some(svg) => assert!(svg.contains("<svg"), "no <svg in dot's output:\n{svg}"),
        None => println!("{SKIPPED}"),
    }
}
