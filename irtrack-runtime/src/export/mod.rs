//! Exports of a trace: Graphviz DOT, and JSON (export and import, cargo feature `serde`).

pub mod dot;
#[cfg(feature = "serde")]
pub mod json;
