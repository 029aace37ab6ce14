//! Contexts shipped with irtrack, each written only against the public [`Context`] trait.

use super::context::{CallSite, Context, Draft};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::Instant;

/// Records calls down to a fixed depth: at level `max` every call is a primitive.
/// `DepthLimit::new(1)` makes the root itself primitive; `DepthLimit::new(2)` records the root's
/// body with every call in it primitive (IRTracker's `DepthLimitContext`).
///
/// ```
/// use irtrack::{tracked, track_with, DepthLimit, NodeKind};
///
/// #[tracked]
/// fn twice(x: f64) -> f64 { x * 2.0 }
///
/// // Level 1 is the root: it is a primitive, with no children.
/// let trace = track_with(DepthLimit::new(1), twice, (1.5,));
/// assert_eq!(trace.root().kind(), NodeKind::PrimitiveCall);
/// assert_eq!(trace.root().children().len(), 0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct DepthLimit {
    level: usize,
    max: usize,
}

impl DepthLimit {
    /// Recurse into calls above level `max`; the root call is at level 1.
    pub fn new(max: usize) -> Self {
        DepthLimit { level: 1, max }
    }

    /// The level of the calls this context decides on.
    pub fn level(&self) -> usize {
        self.level
    }
}

impl Context for DepthLimit {
    fn can_recur(&self, _: &CallSite<'_>) -> bool {
        self.level < self.max
    }

    fn nested(&self, _: &CallSite<'_>) -> Option<Rc<dyn Context>> {
        Some(Rc::new(DepthLimit {
            level: self.level + 1,
            max: self.max,
        }))
    }
}

/// Records the bodies of the named tracked functions only; every other call is a primitive.
/// Names are the functions' own names (`geom`, `norm`), matched against their IR.
///
/// ```
/// use irtrack::{tracked, track_with, Only, NodeKind};
///
/// #[tracked] fn inner(x: f64) -> f64 { x + 1.0 }
/// #[tracked] fn outer(x: f64) -> f64 { inner(x) * 2.0 }
///
/// let trace = track_with(Only::new(["outer"]), outer, (1.0,));
/// assert_eq!(trace.root().kind(), NodeKind::NestedCall);
/// assert_eq!(trace.root().child(2).unwrap().kind(), NodeKind::PrimitiveCall);
/// ```
#[derive(Clone, Debug)]
pub struct Only {
    names: BTreeSet<String>,
}

impl Only {
    /// Recurse into these functions only.
    pub fn new<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        Only {
            names: names.into_iter().map(Into::into).collect(),
        }
    }
}

impl Context for Only {
    fn can_recur(&self, call: &CallSite<'_>) -> bool {
        self.names.contains(call.callee.name.as_str())
    }
}

/// Records every tracked function except the named ones, which are primitives.
///
/// ```
/// use irtrack::{tracked, track_with, Except, NodeKind};
///
/// #[tracked] fn inner(x: f64) -> f64 { x + 1.0 }
/// #[tracked] fn outer(x: f64) -> f64 { inner(x) * 2.0 }
///
/// let trace = track_with(Except::new(["inner"]), outer, (1.0,));
/// assert_eq!(trace.root().child(2).unwrap().kind(), NodeKind::PrimitiveCall);
/// ```
#[derive(Clone, Debug)]
pub struct Except {
    names: BTreeSet<String>,
}

impl Except {
    /// Treat these functions as primitives.
    pub fn new<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        Except {
            names: names.into_iter().map(Into::into).collect(),
        }
    }
}

impl Context for Except {
    fn can_recur(&self, call: &CallSite<'_>) -> bool {
        !self.names.contains(call.callee.name.as_str())
    }
}

/// Records the wall time of every nested call, in nanoseconds, as its `time_ns` metadata.
///
/// ```
/// use irtrack::{tracked, track_with, Timing};
///
/// #[tracked] fn inner(x: f64) -> f64 { x + 1.0 }
/// #[tracked] fn outer(x: f64) -> f64 { inner(x) * 2.0 }
///
/// let trace = track_with(Timing::new(), outer, (1.0,));
/// let call = trace.root().child(2).unwrap();
/// assert!(call.metadata::<u64>("time_ns").is_some());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Timing {
    /// When each open nested call started, innermost last (shared by the whole trace).
    started: Rc<RefCell<Vec<Instant>>>,
}

impl Timing {
    /// A timing context.
    pub fn new() -> Self {
        Timing::default()
    }
}

impl Context for Timing {
    fn nested(&self, call: &CallSite<'_>) -> Option<Rc<dyn Context>> {
        // Calls nest, so a stack pairs each start with its return below.
        self.started.borrow_mut().push(Instant::now());
        self.record_nested_call(call)
    }

    fn nested_call(&self, node: &mut Draft<'_>) {
        if let Some(start) = self.started.borrow_mut().pop() {
            node.set("time_ns", start.elapsed().as_nanos() as u64);
        }
    }
}
