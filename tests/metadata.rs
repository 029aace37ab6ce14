//! Metadata set on a recorded trace, and the listing options.

mod common;
use common::h;

use irtrack::track;

#[test]
fn metadata_is_set_read_and_printed_in_order() {
    let mut trace = track(h, (2.0, 1));
    let ret = trace.root().children().last().expect("a return").id();
    let arg = trace.root().child(1).expect("x").id();
    {
        let mut node = trace.node_mut(ret);
        node.set("adjoint", 1.0);
        node.set("label", String::from("out"));
        node.set("adjoint", 2.0); // replaced in place: keeps its first position
        assert_eq!(node.get::<f64>("adjoint"), Some(&2.0));
        assert_eq!(
            node.get::<u32>("adjoint"),
            None,
            "typed: an f64 is not a u32"
        );
        assert_eq!(node.get_or("missing", 7u8), 7);
        assert_eq!(node.get_or_insert_with("count", || 3u32), 3);
        assert_eq!(node.get_or_insert_with("count", || 9u32), 3, "set once");
    }
    trace.node_mut(arg).set("role", String::from("input"));
    let listing = trace.root().levels(2).to_string();
    assert!(
        listing.contains("return @")
            && listing.contains("\t[adjoint = 2.0, label = \"out\", count = 3]\n"),
        "{listing}"
    );
    assert!(
        listing.contains("@1: [Arg:§1:%1] 2.0::f64\t[role = \"input\"]\n"),
        "{listing}"
    );
    assert!(trace.node_mut(ret).remove("label"));
    assert!(!trace.node_mut(ret).remove("label"));
    let node = trace.root().children().last().expect("a return");
    assert_eq!(node.metadata::<f64>("adjoint"), Some(&2.0));
    assert_eq!(node.metadata_or("label", String::from("none")), "none");
}

#[test]
fn compact_and_width_options() {
    let trace = track(h, (2.0, 1));
    let compact = trace.root().levels(2).compact().to_string();
    assert!(compact.starts_with("⟨h⟩(⟨2.0⟩, ⟨1⟩)\n"), "{compact}");
    assert!(
        compact.contains("  @3: [§1:&1] goto §2 (⟨0.0⟩, ⟨0⟩)\n"),
        "{compact}"
    );
    assert!(compact.contains("  @4: [Arg:§2:%3] @3#1\n"), "{compact}");
    assert!(!compact.contains('→'), "no values: {compact}");
    let narrow = trace.root().levels(1).width(1).to_string();
    assert_eq!(narrow, "⟨h⟩(⟨2…⟩, ⟨1⟩) → 1…::f64\n");
    // The default is the full listing, as Display gives it.
    assert_eq!(
        trace.root().levels(usize::MAX).to_string(),
        trace.root().to_string()
    );
}
