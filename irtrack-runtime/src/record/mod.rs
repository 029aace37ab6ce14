//! Recording: the recorder behind the code `#[tracked]` generates, the claim protocol that
//! decides which tracked function a call reached, contexts and their interventions, and the
//! entry points (`track` and its variants).

pub mod claim;
pub mod context;
pub mod contexts;
pub mod frame;
pub(crate) mod recorder;
pub mod session;
