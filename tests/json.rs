//! JSON export and import (`Trace::to_json`, `Trace::from_json`; docs/trace-format.md).
//!
//! The facade's tests turn on the runtime's `serde` feature through the root dev-dependency on
//! `irtrack-runtime`, so the API is here as `irtrack::…`.

mod common;
use common::{f, geom, h};

use irtrack::{
    track, track_with, tracked, try_track, Context, DepthLimit, Draft, JsonError, NodeKind, Trace,
    SCHEMA,
};
use rand::rngs::StdRng;
use rand::SeedableRng;

#[tracked]
fn sum_for(v: Vec<i64>) -> i64 {
    let mut s = 0;
    for x in v.iter() {
        s += x * 2;
    }
    s
}

#[tracked]
fn branch(x: f64) -> f64 {
    if x < 0.0 {
        -x
    } else {
        x * 2.0
    }
}

#[tracked]
fn classify(o: Option<i32>) -> &'static str {
    match o {
        Some(0) => "zero",
        Some(n) if n > 0 => "positive",
        Some(_) => "negative",
        None => "none",
    }
}

#[tracked]
fn parse_sum(a: &str, b: &str) -> Result<i64, std::num::ParseIntError> {
    let x: i64 = a.parse()?;
    let y: i64 = b.parse()?;
    Ok(x + y)
}

#[tracked]
fn closures(x: f64, k: f64) -> f64 {
    let g = |y: f64| y * k;
    g(x) + g(2.0)
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Point {
    x: f64,
    y: f64,
}

#[tracked]
impl Point {
    fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
    fn scaled(self, k: f64) -> Point {
        Point {
            x: self.x * k,
            y: self.y * k,
        }
    }
}

#[tracked]
fn methods(a: f64) -> f64 {
    let p = Point { x: a, y: 2.0 };
    p.scaled(2.0).norm()
}

#[tracked]
fn sq(x: f64) -> f64 {
    x * x
}

#[tracked]
fn checked(x: f64) -> f64 {
    let y = sq(x) - 1.0;
    assert!(y >= 0.0, "negative: {y}");
    y.sqrt()
}

#[tracked]
fn outer(x: f64) -> f64 {
    checked(x) + 1.0
}

/// Attaches metadata to every return.
struct Tag;

impl Context for Tag {
    fn ret(&self, node: &mut Draft<'_>) {
        node.set("k", 1u32)
    }
}

/// Every trace the round trip is checked on, with a name for failure messages.
fn corpus() -> Vec<(&'static str, Trace)> {
    let mut rng = StdRng::seed_from_u64(0);
    let mut rng2 = StdRng::seed_from_u64(7);
    let mut with_metadata_later = track(sq, (3.0,));
    let ret = with_metadata_later.root().child(3).unwrap().id();
    with_metadata_later.node_mut(ret).set("adjoint", 1.0);
    let (panicked, result) = try_track(outer, (0.5,));
    assert!(result.is_err());
    let (no_panic, result) = try_track(outer, (2.0,));
    assert!(result.is_ok());
    vec![
        ("f", track(f, (1.0,))),
        ("h: while loop", track(h, (2.0, 3))),
        ("sum_for: for loop", track(sum_for, (vec![1, 2, 3],))),
        ("branch: then", track(branch, (-1.5,))),
        ("branch: else", track(branch, (1.5,))),
        ("match", track(classify, (Some(4),))),
        ("match none", track(classify, (None,))),
        ("? passes", track(parse_sum, ("12", "30"))),
        ("? returns early", track(parse_sum, ("12", "x"))),
        ("closures", track(closures, (1.5, 3.0))),
        ("methods", track(methods, (1.5,))),
        ("geom: recursion", track(geom, (1, 0.5, &mut rng))),
        ("geom: seed 7", track(geom, (1, 0.3, &mut rng2))),
        ("context metadata", track_with(Tag, h, (2.0, 2))),
        ("metadata set later", with_metadata_later),
        ("try_track: error nodes", panicked),
        ("try_track: no panic", no_panic),
    ]
}

#[test]
fn every_trace_round_trips() {
    for (name, trace) in corpus() {
        let json = trace.to_json();
        let back = Trace::from_json(&json).unwrap_or_else(|e| panic!("{name}: {e}\n{json}"));
        assert_eq!(
            back.root().to_string(),
            trace.root().to_string(),
            "{name}: the listing"
        );
        assert_eq!(back.to_json(), json, "{name}: exporting the import");
        assert_eq!(back.len(), trace.len(), "{name}");
        for (a, b) in trace.nodes().zip(back.nodes()) {
            assert_eq!(a.kind(), b.kind(), "{name}");
            assert_eq!(a.value_text(), b.value_text(), "{name}");
            assert_eq!(a.type_name(), b.type_name(), "{name}");
            assert_eq!(a.location(), b.location(), "{name}");
            assert_eq!(
                a.entry().map(|e| e.to_string()),
                b.entry().map(|e| e.to_string()),
                "{name}"
            );
            assert_eq!(a.function_name(), b.function_name(), "{name}");
            assert_eq!(
                a.referenced().iter().map(|r| r.id()).collect::<Vec<_>>(),
                b.referenced().iter().map(|r| r.id()).collect::<Vec<_>>(),
                "{name}"
            );
        }
    }
}

#[test]
fn the_corpus_covers_what_it_claims() {
    let corpus = corpus();
    let all = |name: &str| {
        let (_, t) = corpus.iter().find(|(n, _)| *n == name).unwrap();
        t.root().to_string()
    };
    assert!(all("context metadata").contains("\t[k = 1]"));
    assert!(all("metadata set later").contains("\t[adjoint = 1.0]"));
    assert!(all("try_track: error nodes").contains("error → \"negative: -0.75\""));
    assert!(all("geom: recursion").contains("⟨geom⟩"));
    assert!(all("? returns early").contains("Err("));
}

#[test]
fn imported_values_are_typed() {
    let trace = track(f, (1.0,));
    let back = Trace::from_json(&trace.to_json()).unwrap();
    let (a, b) = (
        trace.root().child(2).unwrap(),
        back.root().child(2).unwrap(),
    );
    assert_eq!(a.value::<f64>(), Some(&0.8414709848078965));
    assert_eq!(b.value::<f64>(), Some(&0.8414709848078965));
    assert_eq!(b.value_text(), "0.8414709848078965");
    assert_eq!(b.type_name(), "f64");
    assert_eq!(b.function_name(), Some("sin"));
    // The IR comes back: `ir()[location]` is the statement.
    let ir = b.ir().unwrap();
    assert_eq!(ir[b.location().unwrap()].to_string(), "%2 = %1.sin()");
    assert_eq!(
        ir.to_string(),
        trace.root().callee_ir().unwrap().to_string()
    );
    // Metadata too, typed.
    let tagged = track_with(Tag, f, (1.0,));
    let back = Trace::from_json(&tagged.to_json()).unwrap();
    let ret = back.root().child(4).unwrap();
    assert_eq!(ret.metadata::<u32>("k"), Some(&1));
    // Vectors of floats and strings come back downcastable; other values as text.
    let v = track(sum_for, (vec![1, 2, 3],));
    let back = Trace::from_json(&v.to_json()).unwrap();
    assert_eq!(
        back.root().child(1).unwrap().value::<Vec<i64>>(),
        Some(&vec![1, 2, 3])
    );
    let p = track(methods, (1.5,));
    let back = Trace::from_json(&p.to_json()).unwrap();
    let point = back.root().child(2).unwrap();
    assert_eq!(point.value_text(), "Point { x: 1.5, y: 2.0 }");
    assert!(point.raw_value().is_text());
}

#[test]
fn an_import_owns_its_ir() {
    let mut rng = StdRng::seed_from_u64(0);
    let json = track(geom, (1, 0.5, &mut rng)).to_json();
    let a = Trace::from_json(&json).unwrap();
    // The calls of one function share one IR.
    let outer = a.root();
    let inner = outer
        .children()
        .find(|c| c.kind() == NodeKind::NestedCall)
        .expect("geom recursed");
    assert!(std::ptr::eq(
        outer.callee_ir().unwrap(),
        inner.callee_ir().unwrap()
    ));
    // A second import has its own (nothing is interned or leaked process-wide).
    let b = Trace::from_json(&json).unwrap();
    assert!(!std::ptr::eq(
        a.root().callee_ir().unwrap(),
        b.root().callee_ir().unwrap()
    ));
    assert_eq!(a.root().to_string(), b.root().to_string());
}

#[test]
fn a_primitive_root_keeps_its_kind_name_and_value() {
    // With the whole call primitive, the root has no IR; its name, value and kind come back.
    let trace = track_with(DepthLimit::new(1), sq, (3.0,));
    assert_eq!(trace.root().kind(), NodeKind::PrimitiveCall);
    assert_eq!(trace.root().value::<f64>(), Some(&9.0));
    assert_eq!(trace.root().to_string(), "⟨sq⟩(⟨3.0⟩) → 9.0::f64\n");
    let back = Trace::from_json(&trace.to_json()).unwrap();
    assert_eq!(back.root().to_string(), trace.root().to_string());
    assert_eq!(back.root().function_name(), Some("sq"));
    assert_eq!(back.to_json(), trace.to_json());
    assert_eq!(back.root().kind(), NodeKind::PrimitiveCall);
    assert_eq!(back.root().value::<f64>(), Some(&9.0));
}

#[test]
fn the_schema_is_versioned() {
    let json = track(f, (1.0,)).to_json();
    assert_eq!(SCHEMA, "irtrack-trace/2");
    assert!(
        json.starts_with("{\"schema\":\"irtrack-trace/2\","),
        "{json}"
    );
}

#[test]
fn invalid_json_is_an_error() {
    let err = Trace::from_json("{\"schema\": ").unwrap_err();
    assert!(matches!(err, JsonError::Syntax(_)), "{err:?}");
    let as_error: &dyn std::error::Error = &err;
    assert!(!as_error.to_string().is_empty());
}

#[test]
fn a_wrong_schema_version_is_an_error() {
    let json = track(f, (1.0,))
        .to_json()
        .replace("irtrack-trace/2", "irtrack-trace/1");
    assert_eq!(
        Trace::from_json(&json).unwrap_err(),
        JsonError::Schema {
            found: Some("irtrack-trace/1".into())
        }
    );
    assert_eq!(
        Trace::from_json("{}").unwrap_err(),
        JsonError::Schema { found: None }
    );
    assert!(Trace::from_json("[1, 2]").is_err());
}

#[test]
fn the_wrong_shape_is_an_error() {
    let json = track(f, (1.0,)).to_json();
    // A node kind that does not exist.
    let bad = json.replacen("\"nodes\":[[3,", "\"nodes\":[[9,", 1);
    assert!(
        matches!(Trace::from_json(&bad), Err(JsonError::Syntax(_))),
        "{bad}"
    );
    // A string where a number belongs.
    let bad = json.replacen("\"calls\":[[0,", "\"calls\":[[\"zero\",", 1);
    assert!(matches!(Trace::from_json(&bad), Err(JsonError::Syntax(_))));
}

/// A one-node trace: a primitive root with the given references.
fn one_node(refs: &str) -> String {
    format!(
        r#"{{"schema": "irtrack-trace/2", "root_name": "g", "functions": [], "calls": [],
            "nodes": [[2, null, {refs}, ["i32", "1"]]], "root_args": [], "metadata": []}}"#
    )
}

#[test]
fn a_reference_to_a_missing_node_is_an_error() {
    let t = Trace::from_json(&one_node("[]")).unwrap();
    assert_eq!(t.root().to_string(), "⟨g⟩() → 1::i32\n");
    assert_eq!(
        Trace::from_json(&one_node("[null, 5]")).unwrap_err(),
        JsonError::Dangling {
            node: 0,
            field: "reference",
            target: 5
        }
    );
}

#[test]
fn other_broken_structure_is_an_error() {
    let json = track(f, (1.0,)).to_json();
    // An entry index past the function's entries.
    let bad = json.replacen("[2,1,[1]", "[2,1000,[1]", 1);
    assert!(
        matches!(
            Trace::from_json(&bad),
            Err(JsonError::Dangling {
                field: "entry",
                target: 1000,
                ..
            })
        ),
        "{bad}"
    );
    // A call of a function that does not exist.
    let bad = json.replacen("\"calls\":[[0,0,", "\"calls\":[[0,4,", 1);
    assert!(matches!(
        Trace::from_json(&bad),
        Err(JsonError::Dangling {
            field: "function",
            target: 4,
            ..
        })
    ));
    // A call that ends before its node.
    let bad = json.replacen("\"calls\":[[0,0,5,", "\"calls\":[[0,0,0,", 1);
    assert!(
        matches!(Trace::from_json(&bad), Err(JsonError::Structure(_))),
        "{bad}"
    );
    // No nodes at all.
    let empty = r#"{"schema": "irtrack-trace/2", "root_name": "g", "functions": [],
                    "calls": [], "nodes": [], "root_args": [], "metadata": []}"#;
    assert!(matches!(
        Trace::from_json(empty),
        Err(JsonError::Structure(_))
    ));
}

#[test]
fn no_edited_number_makes_import_panic() {
    // Every number of two real exports, replaced by a few others: `from_json` returns `Ok` or
    // `Err`, and whatever it accepts prints, exports and answers queries without panicking.
    let (panicked, _) = try_track(outer, (0.5,));
    let mut rng = StdRng::seed_from_u64(1);
    for json in [
        panicked.to_json(),
        track_with(Tag, geom, (1, 0.4, &mut rng)).to_json(),
    ] {
        let digits: Vec<usize> = json
            .char_indices()
            .filter(|&(i, c)| {
                c.is_ascii_digit() && !json[..i].ends_with(|p: char| p.is_ascii_digit())
            })
            .map(|(i, _)| i)
            .collect();
        for &start in &digits {
            let end = start
                + json[start..]
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(0);
            for replacement in ["0", "1", "2", "5", "4294967295"] {
                let edited = format!("{}{replacement}{}", &json[..start], &json[end..]);
                let outcome = std::panic::catch_unwind(|| {
                    if let Ok(t) = Trace::from_json(&edited) {
                        let _ = t.root().to_string();
                        let _ = t.to_json();
                        for n in t.nodes() {
                            let _ = (n.referenced(), n.dependents(), n.arguments());
                        }
                    }
                });
                assert!(
                    outcome.is_ok(),
                    "a panic on {replacement} at {start}:\n{edited}"
                );
            }
        }
    }
}
