//! Compile-fail and compile-pass cases for `#[tracked]` and `#[derive(Snapshot)]`.
//!
//! Every error the macros emit has a case under `tests/ui/<topic>/`, each with a reviewed
//! `.stderr`. Bless changes with `TRYBUILD=overwrite cargo test --test compiletest` and read the
//! diff (see DEVELOPMENT.md).

#[test]
fn ui() {
    // The cases' crate is built under `target/tests/trybuild` with its own copy of every
    // dependency; without debug info it takes a fraction of the disk (CI once ran out).
    // Only this test runs in this binary, so setting the environment races with nothing.
    std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "false");
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
