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
fn imported_values_are_text() {
    let trace = track(f, (1.0,));
    let back = Trace::from_json(&trace.to_json()).unwrap();
    let (a, b) = (
        trace.root().child(2).unwrap(),
        back.root().child(2).unwrap(),
    );
    assert_eq!(a.value::<f64>(), Some(&0.8414709848078965));
    assert_eq!(b.value::<f64>(), None);
    assert_eq!(b.value_text(), "0.8414709848078965");
    assert_eq!(b.type_name(), "f64");
    assert_eq!(b.function_name(), Some("sin"));
    // The static IR comes back: `ir()[location]` is the statement.
    let ir = b.ir().unwrap();
    assert_eq!(ir[b.location().unwrap()].to_string(), "%2 = %1.sin()");
    assert_eq!(
        ir.to_string(),
        trace.root().callee_ir().unwrap().to_string()
    );
    // Metadata too, as text.
    let tagged = track_with(Tag, f, (1.0,));
    let back = Trace::from_json(&tagged.to_json()).unwrap();
    let ret = back.root().child(4).unwrap();
    assert_eq!(ret.metadata::<u32>("k"), None);
    let meta: Vec<_> = ret
        .metadata_values()
        .map(|(k, v)| (k, v.to_string(), v.type_name()))
        .collect();
    assert_eq!(meta, [("k", "1".to_string(), "u32")]);
}

#[test]
fn importing_again_reuses_the_interned_ir() {
    let json = track(geom, (1, 0.2, &mut StdRng::seed_from_u64(3))).to_json();
    let a = Trace::from_json(&json).unwrap();
    let b = Trace::from_json(&json).unwrap();
    let (ia, ib) = (a.root().callee_ir().unwrap(), b.root().callee_ir().unwrap());
    assert!(
        std::ptr::eq(ia, ib),
        "one leaked FnIr per distinct function"
    );
    assert!(std::ptr::eq(ia.name, ib.name));
}

#[test]
fn a_primitive_root_keeps_its_kind_name_and_value() {
    // With the whole call primitive, the root has no IR; its name, value and kind come back.
    let trace = track_with(DepthLimit::new(1), sq, (3.0,));
    assert_eq!(trace.root().kind(), NodeKind::PrimitiveCall);
    let back = Trace::from_json(&trace.to_json()).unwrap();
    assert_eq!(back.root().to_string(), trace.root().to_string());
    assert_eq!(back.root().function_name(), Some("sq"));
    assert_eq!(back.to_json(), trace.to_json());
    assert_eq!(back.root().kind(), NodeKind::PrimitiveCall);
    assert_eq!(back.root().value_text(), trace.root().value_text());
    assert_eq!(back.root().type_name(), trace.root().type_name());
    assert!(back.root().raw_value().is_opaque());
}

#[test]
fn the_schema_is_versioned() {
    let json = track(f, (1.0,)).to_json();
    assert_eq!(SCHEMA, "irtrack-trace/1");
    assert!(json.starts_with("{\n  \"schema\": \"irtrack-trace/1\","));
}

#[test]
fn invalid_json_is_an_error() {
    let err = Trace::from_json("{\"schema\": ").unwrap_err();
    assert!(matches!(err, JsonError::Syntax(_)), "{err:?}");
    assert!(err.to_string().starts_with("not JSON"));
    let as_error: &dyn std::error::Error = &err;
    assert!(!as_error.to_string().is_empty());
}

#[test]
fn a_wrong_schema_version_is_an_error() {
    let json = track(f, (1.0,))
        .to_json()
        .replace("irtrack-trace/1", "irtrack-trace/2");
    assert_eq!(
        Trace::from_json(&json).unwrap_err(),
        JsonError::Schema {
            found: Some("irtrack-trace/2".into())
        }
    );
    assert_eq!(
        Trace::from_json("{}").unwrap_err(),
        JsonError::Schema { found: None }
    );
    assert_eq!(
        Trace::from_json("[1, 2]").unwrap_err(),
        JsonError::Schema { found: None }
    );
}

#[test]
fn the_wrong_shape_is_an_error() {
    let json = track(f, (1.0,))
        .to_json()
        .replacen("\"nodes\"", "\"knots\"", 1);
    assert!(matches!(Trace::from_json(&json), Err(JsonError::Shape(_))));
    let json =
        track(f, (1.0,))
            .to_json()
            .replacen("\"kind\": \"operator\"", "\"kind\": \"teleport\"", 1);
    assert!(matches!(Trace::from_json(&json), Err(JsonError::Shape(_))));
}

/// A one-node trace with the given root node fields.
fn one_node(root_fields: &str) -> String {
    format!(
        r#"{{"schema": "irtrack-trace/1", "root": 0, "functions": [],
            "nodes": [{{"kind": "primitive_call", "parent": null, "position": null,
                        "function": null, "entry": null, {root_fields}
                        "value": {{"type": "i32", "text": "1"}}}}]}}"#
    )
}

#[test]
fn a_reference_to_a_missing_node_is_an_error() {
    assert!(Trace::from_json(&one_node(r#""references": [],"#)).is_ok());
    assert_eq!(
        Trace::from_json(&one_node(r#""references": [null, 5],"#)).unwrap_err(),
        JsonError::DanglingNode {
            node: 0,
            field: "references",
            target: 5
        }
    );
    // A parent that does not exist, in a real export.
    let json = track(f, (1.0,))
        .to_json()
        .replacen("\"parent\": 0,", "\"parent\": 99,", 1);
    assert_eq!(
        Trace::from_json(&json).unwrap_err(),
        JsonError::DanglingNode {
            node: 1,
            field: "parent",
            target: 99
        }
    );
}

#[test]
fn other_broken_structure_is_an_error() {
    let json = track(f, (1.0,)).to_json();
    // An entry index past the function's entries.
    let bad = json.replacen("\"entry\": 1,", "\"entry\": 1000,", 1);
    assert!(matches!(
        Trace::from_json(&bad),
        Err(JsonError::DanglingFunction {
            entry: Some(1000),
            ..
        })
    ));
    // A callee that does not exist.
    let bad = json.replacen("\"callee\": 0", "\"callee\": 4", 1);
    assert!(matches!(
        Trace::from_json(&bad),
        Err(JsonError::DanglingFunction { function: 4, .. })
    ));
    // Positions out of order.
    let bad = json.replacen("\"position\": 2,", "\"position\": 7,", 1);
    assert!(matches!(
        Trace::from_json(&bad),
        Err(JsonError::Structure { node: 2, .. })
    ));
    // No nodes at all.
    let empty = r#"{"schema": "irtrack-trace/1", "root": 0, "root_name": "g",
                    "functions": [], "nodes": []}"#;
    assert!(matches!(
        Trace::from_json(empty),
        Err(JsonError::DanglingNode { field: "root", .. })
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
                assert!(outcome.is_ok(), "a panic on {replacement} at {start}");
            }
        }
    }
}
