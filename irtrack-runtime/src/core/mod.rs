//! The core: typed ids, the IR of tracked functions, typed operation keys, values and the tape
//! that stores a trace. Nothing here knows how a trace is recorded or read.

#[cfg(feature = "ndarray")]
pub(crate) mod arrays;
pub(crate) mod chunked;
pub(crate) mod cone;
pub(crate) mod effects;
pub mod eval;
pub mod ids;
pub mod ir;
pub mod literal;
pub mod op;
pub(crate) mod rounding;
pub(crate) mod tape;
pub(crate) mod ties;
pub(crate) mod trace;
pub mod value;
pub(crate) mod walks;
pub(crate) mod writes;

pub use ids::NodeId;
