//! placeholder, rewritten below
pub use irtrack_macros::{tracked, Snapshot};
pub use irtrack_runtime::*;
