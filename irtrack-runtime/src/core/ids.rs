//! Typed ids: a node of a trace's arena.

use std::fmt;

/// The id of a node in its trace's arena (`#n`); the listing prints positions (`@i`) instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    pub(crate) const NONE: NodeId = NodeId(u32::MAX);

    #[inline]
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub(crate) fn is_none(self) -> bool {
        self == NodeId::NONE
    }

    /// The id's number: the node's index in the arena, in recording order.
    pub fn get(self) -> u32 {
        self.0
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// What identifies a callee value: its type, lifetimes erased (a fn item is one function with
/// its generic arguments, a closure one closure expression), and that type's name, for
/// messages only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CalleeKey {
    /// The type.
    pub id: std::any::TypeId,
    /// Its name (`my_crate::sq`), for printing.
    pub name: &'static str,
}

/// The key of no callee: the slot [`keyed`] fills in before the call's arguments are
/// evaluated. It matches no claim.
pub fn unkeyed() -> CalleeKey {
    enum Unkeyed {}
    CalleeKey {
        id: typeid::of::<Unkeyed>(),
        name: "(no callee)",
    }
}

/// The callee `f`, its key written to `slot` first. A call written `keyed(&mut k, f)(args)`
/// keeps `f` in call position, so a closure argument still gets its parameter types from
/// `f`'s bounds, which a `let`-bound callee loses (`let g = apply; g(|t| t.sin(), x)` is
/// E0282); the key is of the instance the call uses.
#[inline(always)]
pub fn keyed<F>(slot: &mut CalleeKey, f: F) -> F {
    *slot = key_of(&f);
    f
}

/// [`keyed`], which also runs `announce` with the key before it returns the callee.
#[inline(always)]
pub fn keyed_then<F>(slot: &mut CalleeKey, f: F, announce: impl FnOnce(CalleeKey)) -> F {
    *slot = key_of(&f);
    announce(*slot);
    f
}

/// The key of a callee value.
pub fn key_of<F: ?Sized>(_: &F) -> CalleeKey {
    CalleeKey {
        id: typeid::of::<F>(),
        name: std::any::type_name::<F>(),
    }
}
