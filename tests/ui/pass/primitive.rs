// `#[tracked(primitive)]` compiles a function as written: tracked callers record its calls as
// primitives. In a tracked `impl` it opts one method out.
use irtrack::{track, tracked, NodeKind};

#[tracked(primitive)]
#[inline]
fn tiny(x: f64) -> f64 {
    x * 2.0 + 1.0
}

#[tracked]
fn sum(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for &x in xs {
        s += tiny(x);
    }
    s
}

struct P {
    x: f64,
}

#[tracked]
impl P {
    fn twice_plus(&self, y: f64) -> f64 {
        self.twice() + y
    }

    #[tracked(primitive)]
    fn twice(&self) -> f64 {
        self.x * 2.0
    }
}

#[tracked]
fn use_p(p: &P, y: f64) -> f64 {
    p.twice_plus(y)
}

fn main() {
    // Untracked, both are the functions as written.
    assert_eq!(tiny(1.0), 3.0);
    assert_eq!(sum(&[1.0, 2.0]), 8.0);

    let trace = track(sum, (&[1.0, 2.0][..],));
    let calls: Vec<_> = trace
        .root()
        .children()
        .filter(|c| c.function_name() == Some("tiny"))
        .collect();
    assert_eq!(calls.len(), 2);
    assert!(calls.iter().all(|c| c.kind() == NodeKind::PrimitiveCall));
    assert_eq!(calls[1].value::<f64>(), Some(&5.0));

    let p = P { x: 1.5 };
    let trace = track(use_p, (&p, 1.0));
    assert_eq!(trace.root().value::<f64>(), Some(&4.0));
    let method = trace.nodes().find(|n| n.function_name() == Some("twice")).unwrap();
    assert_eq!(method.kind(), NodeKind::PrimitiveCall);
    // The tracked method around it is a nested call.
    let outer = trace.nodes().find(|n| n.function_name() == Some("twice_plus")).unwrap();
    assert_eq!(outer.kind(), NodeKind::NestedCall);
    assert_eq!(method.parent(), Some(outer));
}
