//! `Retracking::call_or_retrack` (issue 12, item 2): a program that tracks its function again
//! where a guard fails, growing a tree of paths. Every result is checked against the Rust
//! function called untracked on the same arguments, on inputs that take every branch.

mod common;

use common::{f, geom, h};
use irtrack::program::{Input, ReplayError, Retracking, DEFAULT_MAX_PATHS};
use irtrack::tracked;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;
use Input::{Dynamic, Static};

/// `geom` with its draws injected: stop at `n` when `draws[n] < beta`, else recurse.
#[tracked]
fn geom_draws(n: usize, beta: f64, draws: Vec<f64>) -> usize {
    if draws[n] < beta {
        n
    } else {
        geom_draws(n + 1, beta, draws)
    }
}

/// A branch on the sign, then a loop whose length is an input.
#[tracked]
fn shape(x: f64, n: i32) -> f64 {
    let mut acc = if x > 0.0 { x.sqrt() } else { -x * 0.5 };
    let mut i = 0;
    while i < n {
        acc = acc * 0.5 + x;
        i += 1;
    }
    acc
}

/// `geom` of the corpus on a generator seeded by an argument: with the seed static, the draws
/// are constants of the program and `n`, `beta` decide the path.
#[tracked]
fn geom_seeded(seed: u64, n: i32, beta: f64) -> i32 {
    let mut rng = StdRng::seed_from_u64(seed);
    geom(n, beta, &mut rng)
}

/// An untracked function no program can run again.
fn opaque(x: f64) -> f64 {
    x.exp()
}

/// One branch a program replays, the other calls `opaque` on the input.
#[tracked]
fn half_opaque(x: f64) -> f64 {
    if x > 0.0 {
        x * 2.0
    } else {
        opaque(x)
    }
}

fn f64_of(v: irtrack::Value) -> f64 {
    v.as_f64().expect("a float")
}

#[test]
fn geom_with_injected_draws_grows_one_path_per_depth() {
    let mut rng = StdRng::seed_from_u64(7);
    let draws = |rng: &mut StdRng| {
        let mut d: Vec<f64> = (0..11).map(|_| rng.random::<f64>()).collect();
        // The last draw stops every chain, so the function never indexes past the end.
        d.push(0.0);
        d
    };
    let first = draws(&mut rng);
    let mut r = Retracking::track(geom_draws, (0, 0.3, first), &[Dynamic, Dynamic, Dynamic])
        .unwrap()
        .max_paths(64);
    let mut depths = BTreeSet::new();
    let mut cases = Vec::new();
    for _ in 0..300 {
        let d = draws(&mut rng);
        for beta in [0.15, 0.3, 0.6] {
            for n in [0, 2] {
                let want = geom_draws(n, beta, d.clone());
                let got = r.call_or_retrack((n, beta, d.clone())).unwrap();
                assert_eq!(got.downcast_ref::<usize>(), Some(&want));
                depths.insert(want - n);
                cases.push((n, beta, d.clone(), want));
            }
        }
    }
    // Each depth is one path, the first included: a call that takes a known depth reaches its
    // path through the tree and never traces it twice.
    let first_depth = geom_draws(0, 0.3, {
        let mut rng = StdRng::seed_from_u64(7);
        draws(&mut rng)
    });
    depths.insert(first_depth);
    assert!(
        depths.len() > 4,
        "the draws take several depths: {depths:?}"
    );
    assert_eq!(r.paths(), depths.len());
    // Every path but the first hangs under an earlier one.
    assert!((1..r.paths()).all(|k| r.parent(k).is_some_and(|(p, _)| p < k)));
    // Now every case replays without tracking.
    for (n, beta, d, want) in cases {
        assert_eq!(
            r.call((n, beta, d)).unwrap().downcast_ref::<usize>(),
            Some(&want)
        );
    }
}

#[test]
fn every_branch_and_loop_length_replays_to_the_function() {
    let mut r = Retracking::track(shape, (1.0, 2), &[Dynamic, Dynamic]).unwrap();
    let xs = [-2.0, -0.5, 0.0, 0.5, 2.0, 3.25];
    for n in 0..6 {
        for x in xs {
            let got = f64_of(r.call_or_retrack((x, n)).unwrap());
            assert_eq!(got.to_bits(), shape(x, n).to_bits(), "shape({x}, {n})");
        }
    }
    // Two branches times six lengths.
    assert_eq!(r.paths(), 12);
    for n in 0..6 {
        for x in xs {
            let got = f64_of(r.call((x + 0.125, n)).unwrap());
            assert_eq!(got.to_bits(), shape(x + 0.125, n).to_bits());
        }
    }
    // A length none of the calls took is a guard failure without tracking.
    assert!(matches!(r.call((1.0, 6)), Err(ReplayError::Guard { .. })));
}

#[test]
fn corpus_functions_replay_on_every_path() {
    // `h`: the loop's length is the dynamic `n`.
    let mut r = Retracking::track(h, (2.0, 3), &[Dynamic, Dynamic]).unwrap();
    for (x, n) in [(0.5, 0), (1.5, 4), (-2.0, 1), (3.0, 3), (0.25, 7), (1.1, 4)] {
        let got = f64_of(r.call_or_retrack((x, n)).unwrap());
        assert_eq!(got.to_bits(), h(x, n).to_bits(), "h({x}, {n})");
    }
    assert_eq!(r.paths(), 5);

    // `f` has no branch: one path serves every input.
    let mut r = Retracking::track(f, (1.0,), &[Dynamic]).unwrap();
    for x in [-3.0, 0.0, 0.7, 12.5] {
        assert_eq!(
            f64_of(r.call_or_retrack((x,)).unwrap()).to_bits(),
            f(x).to_bits()
        );
    }
    assert_eq!(r.paths(), 1);

    // `geom` on a static seed: its draws are constants, `n` and `beta` pick the depth.
    let mut r = Retracking::track(geom_seeded, (3u64, 0, 0.5), &[Static, Dynamic, Dynamic])
        .unwrap()
        .max_paths(32);
    for beta in [0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99] {
        for n in [0, 5, -3] {
            let want = geom(n, beta, &mut StdRng::seed_from_u64(3));
            let got = r.call_or_retrack((3u64, n, beta)).unwrap();
            assert_eq!(got.downcast_ref::<i32>(), Some(&want), "beta {beta}, n {n}");
        }
    }
    assert!(r.paths() > 1);
}

#[test]
fn a_static_argument_that_differs_is_still_an_error() {
    let mut r = Retracking::track(shape, (1.0, 2), &[Dynamic, Static]).unwrap();
    assert_eq!(
        f64_of(r.call_or_retrack((-1.0, 2)).unwrap()).to_bits(),
        shape(-1.0, 2).to_bits()
    );
    let e = r.call_or_retrack((1.0, 3)).unwrap_err();
    assert!(matches!(e, ReplayError::Static { index: 1, .. }), "{e}");
    assert_eq!(r.paths(), 2);

    let mut r =
        Retracking::track(geom_seeded, (3u64, 0, 0.5), &[Static, Dynamic, Dynamic]).unwrap();
    let e = r.call_or_retrack((4u64, 0, 0.5)).unwrap_err();
    assert!(matches!(e, ReplayError::Static { index: 0, .. }), "{e}");
    assert_eq!(r.paths(), 1);
}

#[test]
fn the_cap_on_paths_is_a_typed_error_naming_the_guard() {
    assert_eq!(DEFAULT_MAX_PATHS, 16);
    let mut r = Retracking::track(shape, (1.0, 0), &[Dynamic, Dynamic])
        .unwrap()
        .max_paths(3);
    for n in [1, 2] {
        r.call_or_retrack((1.0, n)).unwrap();
    }
    assert_eq!(r.paths(), 3);
    let e = r.call_or_retrack((1.0, 3)).unwrap_err();
    let ReplayError::TooManyPaths { max_paths, guard } = &e else {
        panic!("{e}");
    };
    assert_eq!(*max_paths, 3);
    let ReplayError::Guard { at, .. } = &**guard else {
        panic!("{guard}");
    };
    assert_eq!(at.function, "shape");
    assert!(e.to_string().contains("max_paths = 3"), "{e}");
    assert_eq!(r.paths(), 3);
    // The paths it has still run.
    for n in 0..3 {
        assert_eq!(
            f64_of(r.call_or_retrack((0.75, n)).unwrap()).to_bits(),
            shape(0.75, n).to_bits()
        );
    }
}

#[test]
fn the_default_cap_holds_sixteen_paths() {
    let mut r = Retracking::track(h, (1.5, 0), &[Dynamic, Dynamic]).unwrap();
    for n in 1..16 {
        r.call_or_retrack((1.5, n)).unwrap();
    }
    assert_eq!(r.paths(), 16);
    assert!(matches!(
        r.call_or_retrack((1.5, 16)),
        Err(ReplayError::TooManyPaths { max_paths: 16, .. })
    ));
}

#[test]
fn a_new_path_that_cannot_be_replayed_is_an_error_and_is_not_kept() {
    let mut r = Retracking::track(half_opaque, (1.0,), &[Dynamic]).unwrap();
    assert_eq!(f64_of(r.call_or_retrack((3.0,)).unwrap()), 6.0);
    let e = r.call_or_retrack((-1.0,)).unwrap_err();
    assert!(matches!(e, ReplayError::NotReexecutable(_)), "{e}");
    assert!(e.to_string().contains("opaque"), "{e}");
    assert_eq!(r.paths(), 1);
    // The first branch still replays.
    assert_eq!(f64_of(r.call((0.5,)).unwrap()), 1.0);
}
