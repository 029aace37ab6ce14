//! Reading a recorded trace: node handles, queries along data and control dependence and the
//! call hierarchy, the IRTracker-style listing, and the well-formedness check.

pub mod listing;
pub mod operation;
pub mod query;
pub mod trace;
pub mod verify;
