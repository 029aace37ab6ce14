//! Compile-fail and compile-pass cases for `#[tracked]` and `#[derive(Snapshot)]`.
//!
//! Every error the macros emit has a case under `tests/ui/<topic>/`, each with a reviewed
//! `.stderr`. Bless changes with `TRYBUILD=overwrite cargo test --test compiletest` and read the
//! diff (see DEVELOPMENT.md).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/signature/*.rs");
    t.compile_fail("tests/ui/item/*.rs");
    t.compile_fail("tests/ui/body/*.rs");
    t.compile_fail("tests/ui/capture/*.rs");
    t.compile_fail("tests/ui/snapshot/*.rs");
    t.compile_fail("tests/ui/hygiene/*.rs");
    t.compile_fail("tests/ui/tracked_fn/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
