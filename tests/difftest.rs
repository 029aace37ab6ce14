//! The random-program differential tester (issue 11; docs/testing.md): generates well-typed
//! Rust functions, compiles each plain and `#[tracked]` in a generated crate under
//! `target/difftest/<seed>/`, and checks that both copies agree bitwise, that every trace
//! verifies, and that every gradient irtrack returns matches finite differences.
//!
//! `cargo test --test difftest` runs the CI seed (a few hundred units). The long run:
//!
//! ```sh
//! IRTRACK_DIFFTEST_COUNT=10000 IRTRACK_DIFFTEST_SEED=1 cargo test --release --test difftest -- --nocapture
//! ```

#[path = "difftest/mod.rs"]
mod difftest;

use difftest::Verdict;
use std::path::Path;

#[test]
fn random_programs_agree_with_irtrack() {
    let cfg = difftest::Config::from_env(Path::new(env!("CARGO_MANIFEST_DIR")));
    eprintln!(
        "difftest: seed {}, {} units, batches of {}, {} build, features {:?}",
        cfg.seed,
        cfg.count,
        cfg.batch,
        if cfg.release { "release" } else { "debug" },
        cfg.features
    );
    let mut log = |s: &str| eprintln!("{s}");
    let sum = difftest::run(&cfg, &mut log);
    eprintln!("{}", sum.line());
    eprint!("{}", sum.details());
    eprintln!("({:.0?})", sum.elapsed);
    if sum.failed == 0 {
        return;
    }
    // A unit that does not compile plain is a bug of the generator: show a few as they are.
    for (case, verdict) in sum
        .failures
        .iter()
        .filter(|(_, v)| v.kind().is_some_and(|k| k.starts_with("generator")))
        .take(3)
    {
        eprintln!(
            "\n--- generator bug in {} ---\n{}",
            case.name,
            difftest::report(case, verdict)
        );
    }
    // The first failure of each kind, as it is.
    let mut shown = Vec::new();
    for (case, verdict) in &sum.failures {
        if let Verdict::Fail { check, message } = verdict {
            if !shown.contains(&verdict.kind()) {
                shown.push(verdict.kind());
                let first: String = message.lines().take(6).collect::<Vec<_>>().join("\n    ");
                eprintln!("first {check} failure: {}: {first}", case.name);
            }
        }
    }
    // The first failure of each kind (up to `cfg.minimise` kinds), minimised.
    let mut kinds_done = Vec::new();
    for (case, verdict) in &sum.failures {
        let kind = verdict.kind();
        let generator = kind.as_ref().is_some_and(|k| k.starts_with("generator"));
        if generator || kinds_done.contains(&kind) || kinds_done.len() >= cfg.minimise {
            continue;
        }
        kinds_done.push(kind.clone());
        eprintln!(
            "\nminimising {} ({}, {} bytes):",
            case.name,
            kind.unwrap_or_default(),
            case.unit.size()
        );
        let (small, v) = difftest::minimise::minimise(&cfg, case, verdict, &mut log);
        eprintln!(
            "\n--- failing program {} (seed {}), minimised from {} to {} bytes ---",
            case.name,
            cfg.seed,
            case.unit.size(),
            small.unit.size()
        );
        eprintln!("{}", difftest::report(&small, &v));
    }
    panic!("{}", sum.line());
}
