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

/// The key of a callee value.
pub fn key_of<F: ?Sized>(_: &F) -> CalleeKey {
    CalleeKey {
        id: typeid::of::<F>(),
        name: std::any::type_name::<F>(),
    }
}
