//! Questions about a recorded trace: what a node used, what used it, and where it sits.
//!
//! These are IRTracker's queries on node handles. [`NodeRef::referenced`] gives the nodes a
//! node directly uses, [`NodeRef::effects_read`] the writes in place and closures' captures it
//! reads besides; [`NodeRef::backward`] and [`NodeRef::forward`] follow both within one call; [`NodeRef::parent_argument`] links a callee's argument to the value its
//! caller passed, so a walk can climb out of a nested call; [`NodeRef::query`] moves along the
//! hierarchy ([`Axis`]).
//!
//! ```
//! use irtrack::{tracked, track, Axis};
//!
//! #[tracked]
//! fn f(x: f64) -> f64 {
//!     x.sin() + x
//! }
//!
//! let trace = track(f, (1.0,));
//! let root = trace.root();
//! let (x, sin, plus, ret) = (
//!     root.child(1).unwrap(),
//!     root.child(2).unwrap(),
//!     root.child(3).unwrap(),
//!     root.child(4).unwrap(),
//! );
//! assert_eq!(plus.referenced(), vec![sin, x]);
//! assert_eq!(ret.backward(), vec![plus, sin, x]);
//! assert_eq!(x.dependents(), vec![sin, plus]);
//! assert_eq!(x.forward(), vec![sin, plus, ret]);
//! assert_eq!(sin.query(Axis::Parent), vec![root]);
//! ```

use super::trace::{Arg, NodeRef};
use crate::core::ids::NodeId;
use crate::core::tape::NodeKind;
use std::collections::{HashSet, VecDeque};

/// A direction to move in from a node along the call hierarchy (IRTracker's axes); see
/// [`NodeRef::query`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    /// The nested call the node was recorded in (none for the root).
    Parent,
    /// The node's children, in execution order (only nested calls have any).
    Child,
    /// The siblings recorded before the node, in execution order.
    Preceding,
    /// The siblings recorded after the node, in execution order.
    Following,
    /// The enclosing nested calls, nearest first, up to the root.
    Ancestor,
    /// Everything below the node, breadth first.
    Descendant,
}

impl<'t> NodeRef<'t> {
    /// Whether the node is a function argument: an argument in the first block of its call.
    fn is_function_argument(&self) -> bool {
        self.kind() == NodeKind::Argument && self.location().is_some_and(|l| l.block == 1)
    }

    /// The nodes this node directly uses, in argument order, duplicates kept, constants
    /// skipped.
    ///
    /// For a call, a special, a jump or a return these are the [`Arg::Node`]s of
    /// [`arguments`](NodeRef::arguments). A block argument `@p#n` references what flowed into
    /// it: the node that is the jump `@p`'s `n`-th argument (nothing when that was a constant).
    /// A function argument references nothing inside its call (see
    /// [`parent_argument`](NodeRef::parent_argument) to reach the caller's value), and neither
    /// does the root. All results are earlier siblings of the node.
    ///
    /// ```
    /// use irtrack::{tracked, track};
    ///
    /// #[tracked]
    /// fn h(x: f64, n: i32) -> f64 {
    ///     let mut r = 0.0;
    ///     let mut i = 0;
    ///     while i < n {
    ///         r += x.powi(i);
    ///         i += 1;
    ///     }
    ///     r
    /// }
    ///
    /// let trace = track(h, (2.0, 2));
    /// let root = trace.root();
    /// let at = |p| root.child(p).unwrap();
    /// // `@9: ⟨+=⟩(@4, @8)` uses the loop's accumulator and the power.
    /// assert_eq!(at(9).referenced(), vec![at(4), at(8)]);
    /// // `@12: [Arg:§2:%3] @11#1` is what the jump `@11: goto §2 (@9, @10)` passed first.
    /// assert_eq!(at(12).referenced(), vec![at(9)]);
    /// // `@4: [Arg:§2:%3] @3#1` got the constant `0.0`: nothing is referenced.
    /// assert!(at(4).referenced().is_empty());
    /// ```
    pub fn referenced(&self) -> Vec<NodeRef<'t>> {
        self.referenced_numbered()
            .into_iter()
            .map(|(_, n)| n)
            .collect()
    }

    /// Like [`referenced`](NodeRef::referenced), with each node's argument number, counted
    /// from 1 over all arguments, constants included (the callee is not an argument). A block
    /// argument's single reference is numbered 1.
    pub fn referenced_numbered(&self) -> Vec<(usize, NodeRef<'t>)> {
        if self.parent().is_none() {
            return Vec::new();
        }
        if self.kind() == NodeKind::Argument {
            return match self.block_argument_of() {
                Some((jump, n)) => match jump.arguments().get(n - 1) {
                    Some(Arg::Node(node)) => vec![(1, *node)],
                    _ => Vec::new(),
                },
                None => Vec::new(),
            };
        }
        self.arguments()
            .into_iter()
            .enumerate()
            .filter_map(|(i, a)| match a {
                Arg::Node(n) => Some((i + 1, n)),
                Arg::Const(_) => None,
            })
            .collect()
    }

    /// The earlier siblings whose effects this node reads, which its references do not show,
    /// in execution order: a write in place into a value it references, made before it
    /// (`v[0] = x` before `v[0]`, `c.set(x)` before `c.get()`, `*r = x` before reading what `r`
    /// borrows; a call that made the write inside it stands for it), and for a call of a
    /// closure, the node that made the closure, which references what it captured.
    ///
    /// ```
    /// use irtrack::{tracked, track};
    ///
    /// #[tracked]
    /// fn f(x: f64) -> f64 {
    ///     let mut v = vec![0.0; 2];
    ///     v[0] = x;
    ///     v[0] * 2.0
    /// }
    ///
    /// let trace = track(f, (1.5,));
    /// let root = trace.root();
    /// let at = |p| root.child(p).unwrap();
    /// // `@4: ⟨index⟩(@2, ⟨0⟩)` references the vector as made (`@2`), which `@3: v[0] = @1`
    /// // wrote into before the read.
    /// assert_eq!(at(4).referenced(), vec![at(2)]);
    /// assert_eq!(at(4).effects_read(), vec![at(3)]);
    /// assert!(at(6).backward().contains(&at(1)));
    /// ```
    pub fn effects_read(&self) -> Vec<NodeRef<'t>> {
        self.trace
            .effects()
            .uses
            .get(&self.id)
            .map_or_else(Vec::new, |uses| uses.iter().map(|&u| self.at(u)).collect())
    }

    /// The later siblings that read this node's effects
    /// ([`effects_read`](NodeRef::effects_read) the other way).
    fn effects_readers(&self) -> Vec<NodeRef<'t>> {
        self.trace
            .effects()
            .users
            .get(&self.id)
            .map_or_else(Vec::new, |users| {
                users.iter().map(|&u| self.at(u)).collect()
            })
    }

    /// Everything in the node's call that it depends on, without the node itself: the
    /// transitive closure of [`referenced`](NodeRef::referenced) and
    /// [`effects_read`](NodeRef::effects_read) (so a value read after a write in place depends
    /// on what was written), breadth first from the node, each node once. The walk stays inside
    /// the node's call (all results are its siblings).
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
    /// let root = trace.root();
    /// let ret = root.child(4).unwrap();
    /// let positions: Vec<_> = ret.backward().iter().map(|n| n.position().unwrap()).collect();
    /// assert_eq!(positions, [3, 2, 1]);
    /// ```
    pub fn backward(&self) -> Vec<NodeRef<'t>> {
        let mut seen: HashSet<NodeId> = HashSet::from([self.id]);
        let mut queue = VecDeque::from([*self]);
        let mut out = Vec::new();
        while let Some(node) = queue.pop_front() {
            let mut next = node.referenced();
            next.extend(node.effects_read());
            for r in next {
                if seen.insert(r.id) {
                    out.push(r);
                    queue.push_back(r);
                }
            }
        }
        out
    }

    /// The later siblings that reference this node (by [`referenced`](NodeRef::referenced)),
    /// in execution order, each once. Read from an index of reverse edges built once per
    /// trace, so a walk over a long loop stays linear.
    pub fn dependents(&self) -> Vec<NodeRef<'t>> {
        let index = self.trace.index();
        let (a, b) = (
            index.dependents_start[self.id.index()] as usize,
            index.dependents_start[self.id.index() + 1] as usize,
        );
        let parent = self.parent();
        index.dependents[a..b]
            .iter()
            .map(|&d| self.at(NodeId(d)))
            // A call's argument references resolve in its caller: keep siblings only, and
            // only those whose data references (not a control reference) use this node.
            .filter(|d| d.parent() == parent && d.referenced().contains(self))
            .collect()
    }

    /// Whether no node refers to this one at all, by data or control.
    pub(crate) fn is_unreferenced(&self) -> bool {
        let index = self.trace.index();
        index.dependents_start[self.id.index()] == index.dependents_start[self.id.index() + 1]
    }

    /// Every later sibling that depends on the node, without the node itself, in execution
    /// order: the transitive closure of [`dependents`](NodeRef::dependents) and of the nodes
    /// that read its effects ([`effects_read`](NodeRef::effects_read) the other way), the
    /// converse of [`backward`](NodeRef::backward).
    pub fn forward(&self) -> Vec<NodeRef<'t>> {
        let mut reached: HashSet<NodeId> = HashSet::from([self.id]);
        let mut queue = VecDeque::from([*self]);
        let mut out = Vec::new();
        while let Some(node) = queue.pop_front() {
            let mut next = node.dependents();
            next.extend(node.effects_readers());
            for d in next {
                if reached.insert(d.id) {
                    out.push(d);
                    queue.push_back(d);
                }
            }
        }
        out.sort_by_key(|n| n.id);
        out
    }

    /// Like [`backward`](NodeRef::backward), following control dependence too: from each node
    /// reached, also the condition that decided the branch into its block (the branch node
    /// before it and that branch's [`control`](NodeRef::control) condition), so a value
    /// computed in the arm of an `if` depends on the `if`'s condition. Breadth first, each node
    /// once, inside the node's call.
    ///
    /// ```
    /// use irtrack::{tracked, track};
    ///
    /// #[tracked]
    /// fn relu(x: f64) -> f64 {
    ///     if x > 0.0 { x * 2.0 } else { 0.0 }
    /// }
    ///
    /// let trace = track(relu, (2.0,));
    /// let root = trace.root();
    /// let times = root.child(4).unwrap(); // @4: [§2:%3] ⟨*⟩(@1, ⟨2.0⟩)
    /// let cond = root.child(2).unwrap();  // @2: [§1:%2] ⟨>⟩(@1, ⟨0.0⟩)
    /// assert!(!times.backward().contains(&cond));
    /// assert!(times.backward_with_control().contains(&cond));
    /// ```
    pub fn backward_with_control(&self) -> Vec<NodeRef<'t>> {
        let mut seen: HashSet<NodeId> = HashSet::from([self.id]);
        let mut queue = VecDeque::from([*self]);
        let mut out = Vec::new();
        while let Some(node) = queue.pop_front() {
            let mut next = node.referenced();
            next.extend(node.effects_read());
            if let Some(branch) = node.entered_by() {
                next.push(branch);
                next.extend(branch.control());
            }
            if let Some(c) = node.control() {
                next.push(c);
            }
            for r in next {
                if seen.insert(r.id) {
                    out.push(r);
                    queue.push_back(r);
                }
            }
        }
        out
    }

    /// The branch taken into the block this node is in: the last jump before it among its
    /// siblings (none in the function's first block before any jump).
    pub fn entered_by(&self) -> Option<NodeRef<'t>> {
        let parent = self.parent()?;
        let pos = self.position()?;
        parent
            .children()
            .take(pos - 1)
            .rev()
            .find(|c| c.kind() == NodeKind::Jump)
    }

    /// For a nested call (the root included), its function arguments: the children in its
    /// first block of kind [`Argument`](NodeKind::Argument), in order, never block arguments.
    /// Empty for any other node.
    pub fn call_arguments(&self) -> Vec<NodeRef<'t>> {
        self.children()
            .filter(|c| c.is_function_argument())
            .collect()
    }

    /// For a function argument of a nested call, the value the caller passed: the `n`-th
    /// argument of the call node for the callee's `n`-th parameter (IRTracker's `Parent`
    /// link). It lets a backward walk climb out of a callee into its caller's nodes. `None`
    /// for any other node, and for the root's arguments (their values came from outside the
    /// trace).
    pub fn parent_argument(&self) -> Option<Arg<'t>> {
        if !self.is_function_argument() {
            return None;
        }
        let call = self.parent()?;
        call.parent()?;
        let entry = self.entry()?;
        let n = self
            .ir()?
            .block_arguments(1)
            .position(|e| e.location == entry.location)?;
        call.arguments().get(n).copied()
    }

    /// The nodes reached from this one along `axis`; see [`Axis`].
    ///
    /// ```
    /// use irtrack::{tracked, track, Axis};
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
    /// let root = trace.root();
    /// let call = root.child(2).unwrap();
    /// assert_eq!(call.function_name(), Some("sq"));
    /// let times = call.child(2).unwrap();
    /// assert_eq!(times.query(Axis::Ancestor), vec![call, root]);
    /// assert_eq!(call.query(Axis::Preceding), vec![root.child(1).unwrap()]);
    /// assert_eq!(root.query(Axis::Descendant).len(), root.children().len() + call.children().len());
    /// ```
    pub fn query(&self, axis: Axis) -> Vec<NodeRef<'t>> {
        match axis {
            Axis::Parent => self.parent().into_iter().collect(),
            Axis::Child => self.children().collect(),
            Axis::Preceding | Axis::Following => {
                let (Some(parent), Some(pos)) = (self.parent(), self.position()) else {
                    return Vec::new();
                };
                let siblings = parent.children();
                if axis == Axis::Preceding {
                    siblings.take(pos - 1).collect()
                } else {
                    siblings.skip(pos).collect()
                }
            }
            Axis::Ancestor => std::iter::successors(self.parent(), |p| p.parent()).collect(),
            Axis::Descendant => {
                let mut out = Vec::new();
                let mut queue: VecDeque<NodeRef<'t>> = self.children().collect();
                while let Some(node) = queue.pop_front() {
                    out.push(node);
                    queue.extend(node.children());
                }
                out
            }
        }
    }
}
