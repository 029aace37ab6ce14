//! (crate documentation: written by the docs pass)
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use irtrack_macros::{tracked, Snapshot};
pub use irtrack_runtime::{
    ir, print, track, track_output, value, Arg, Callable, Entry, EntryKind, FnIr, Location,
    NodeId, NodeKind, NodeRef, Operand, Owned, Slot, Trace, Value,
};

// The derive and the trait share the name, as serde's do: one is a macro, one a type.
pub use irtrack_runtime::Snapshot;

#[doc(hidden)]
pub use irtrack_runtime::__private;
