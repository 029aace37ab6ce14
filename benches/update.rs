//! Incremental update (`irtrack::program::update`): one [`Updatable::update`] against a fresh
//! `track` of the same function. Groups `update/<workload>`, rows `track` and `update`:
//!
//! - `terms_tree_1e4`: a sum of 10⁴ terms, one per draw (an untracked call: the model's
//!   independent inputs), added pairwise by a recursion; the update changes one draw
//!   (`Change::node`, a different one each time), so the change reaches the result through
//!   ⌈log₂ 10⁴⌉ = 14 additions. Target (issue 12): ≤ 1 % of a fresh track.
//! - `chain_h_1e4`: the README's `h(x, 10⁴)` (`Σ x^i` as a loop); the update changes `x`, which
//!   every term and every partial sum depends on. Target: ≤ 1.2× a fresh track.
//! - `terms_fold_1e4`: the sum of 10⁴ terms as a loop (`total += term`), one draw changed,
//!   cycling over all of them: every partial sum after the changed term depends on it, so an
//!   update recomputes half the loop on average. No target: an exact update of a left fold
//!   cannot be cheaper than its suffix (an update by difference, `total + new - old`, would
//!   not give the fresh trace's floats).
//!
//! Criterion measures each row; the ratios update/track are then measured paired (blocks of
//! each side in alternation, ABBA, as `benches/paired.rs` does) and printed as the median with
//! the quartiles and the range of the rounds' ratios, and written to
//! `target/criterion/irtrack/update.json` for `scripts/bench-report`. Run with `cargo bench
//! --bench update` (a filter argument selects workloads by name).

mod common;

use criterion::Criterion;
use irtrack::program::update::{Change, Updatable};
use irtrack::{track, tracked, NodeId};
use std::hint::black_box;
use std::time::{Duration, Instant};

const N: usize = 10_000;
const SCALE: f64 = 2.0;

/// Input `i` of the sum-of-terms models: an untracked call, so a primitive node that an
/// update can give another value.
fn draw(i: usize) -> f64 {
    (i as f64 * 0.618).fract()
}

/// `Σ_{lo ≤ i < hi} -(draw(i) · scale)²`, halves added pairwise.
#[tracked]
fn terms_tree(lo: usize, hi: usize, scale: f64) -> f64 {
    if hi - lo == 1 {
        let x = draw(lo);
        -(x * scale).powi(2)
    } else {
        let mid = lo + (hi - lo) / 2;
        terms_tree(lo, mid, scale) + terms_tree(mid, hi, scale)
    }
}

/// `Σ_{i < n} -(draw(i) · scale)²` as a loop.
#[tracked]
fn terms_fold(n: usize, scale: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        let x = draw(i);
        total += -(x * scale).powi(2);
    }
    total
}

/// The nodes of the `draw` calls of `m`'s trace, in the order of their `i`.
fn draws<F, A>(m: &Updatable<F, A>) -> Vec<NodeId>
where
    F: irtrack::Callable<A> + Clone,
    A: irtrack::program::update::Arguments,
{
    let ids: Vec<NodeId> = m
        .trace()
        .nodes()
        .filter(|n| n.function_name() == Some("draw"))
        .map(|n| n.id())
        .collect();
    assert_eq!(ids.len(), N, "one draw per term");
    ids
}

/// The sum of the terms with draw `k` replaced by `x`, in the tree's order of additions.
fn tree_sum(lo: usize, hi: usize, k: usize, x: f64) -> f64 {
    if hi - lo == 1 {
        let d = if lo == k { x } else { draw(lo) };
        -(d * SCALE).powi(2)
    } else {
        let mid = lo + (hi - lo) / 2;
        tree_sum(lo, mid, k, x) + tree_sum(mid, hi, k, x)
    }
}

/// One side of a measurement: a step, run over and over.
type Step<'a> = Box<dyn FnMut() + 'a>;

/// A sum-of-terms model kept updatable, and the update that changes draw after draw.
fn term_updates<F, A>(mut m: Updatable<F, A>) -> impl FnMut()
where
    F: irtrack::Callable<A> + Clone,
    A: irtrack::program::update::Arguments,
{
    let ids = draws(&m);
    let mut t = 0usize;
    move || {
        // 7919 is prime to N: the changed draw moves over all of them, at every depth.
        let k = (t * 7919) % N;
        // A value no earlier update gave this draw, so every update changes something.
        let u = m
            .update([Change::node(ids[k], 1.0 + t as f64 * 1e-6)])
            .expect("an update");
        debug_assert!(u.rerun().is_none());
        black_box(u.recomputed());
        t += 1;
    }
}

fn timed(f: &mut dyn FnMut(), n: usize) -> Duration {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed()
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// `update / track` per round of alternating blocks (ABBA), each block about 20 ms of its
/// side; printed, and returned as figures named `<name>:<what>`.
fn paired(
    name: &str,
    mut update: Step<'_>,
    mut fresh: Step<'_>,
    rounds: usize,
) -> Vec<(String, f64)> {
    let calls = |f: &mut dyn FnMut()| {
        let mut n = 1;
        while n < 1 << 20 && timed(f, n) < Duration::from_millis(20) {
            n *= 2;
        }
        n
    };
    let (nu, nt) = (calls(&mut *update), calls(&mut *fresh));
    let (mut ratios, mut tu, mut tt) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..rounds {
        let (u, t) = if r % 2 == 0 {
            let u = timed(&mut *update, nu);
            (u, timed(&mut *fresh, nt))
        } else {
            let t = timed(&mut *fresh, nt);
            (timed(&mut *update, nu), t)
        };
        let (u, t) = (
            u.as_secs_f64() * 1e9 / nu as f64,
            t.as_secs_f64() * 1e9 / nt as f64,
        );
        tu.push(u);
        tt.push(t);
        ratios.push(u / t);
    }
    for v in [&mut ratios, &mut tu, &mut tt] {
        v.sort_by(f64::total_cmp);
    }
    let r = |q| quantile(&ratios, q);
    println!(
        "{name}: update / track = {:.4} (quartiles {:.4}–{:.4}, range {:.4}–{:.4}, {rounds} \
         rounds); medians {:.2} µs and {:.2} µs",
        r(0.5),
        r(0.25),
        r(0.75),
        ratios[0],
        ratios[rounds - 1],
        quantile(&tu, 0.5) / 1e3,
        quantile(&tt, 0.5) / 1e3,
    );
    [
        ("ratio", r(0.5)),
        ("q1", r(0.25)),
        ("q3", r(0.75)),
        ("min", ratios[0]),
        ("max", ratios[rounds - 1]),
        ("rounds", rounds as f64),
        ("update_ns", quantile(&tu, 0.5)),
        ("track_ns", quantile(&tt, 0.5)),
    ]
    .into_iter()
    .map(|(what, v)| (format!("{name}:{what}"), v))
    .collect()
}

/// The workloads: name, then a maker of each side (made afresh for criterion and for the
/// paired run, so neither inherits the other's changes).
struct Workload {
    name: &'static str,
    update: fn() -> Step<'static>,
    fresh: fn() -> Step<'static>,
}

fn workloads() -> Vec<Workload> {
    vec![
        Workload {
            name: "terms_tree_1e4",
            update: || Box::new(term_updates(Updatable::track(terms_tree, (0, N, SCALE)))),
            fresh: || {
                Box::new(|| {
                    black_box(track(terms_tree, (0, black_box(N), SCALE)));
                })
            },
        },
        Workload {
            name: "chain_h_1e4",
            update: || {
                let mut m = Updatable::track(common::tracked::h, (1.0001, N as i32));
                let mut t = 0u32;
                Box::new(move || {
                    t += 1;
                    let x = 1.0001 + f64::from(t % 2) * 1e-5;
                    let u = m.update([Change::argument(0, x)]).expect("an update");
                    debug_assert!(u.rerun().is_none());
                    black_box(u.recomputed());
                })
            },
            fresh: || {
                Box::new(|| {
                    black_box(track(common::tracked::h, (black_box(1.0002), N as i32)));
                })
            },
        },
        Workload {
            name: "terms_fold_1e4",
            update: || Box::new(term_updates(Updatable::track(terms_fold, (N, SCALE)))),
            fresh: || {
                Box::new(|| {
                    black_box(track(terms_fold, (black_box(N), SCALE)));
                })
            },
        },
    ]
}

/// The updates give the fresh recordings' results, in place, recomputing what the module
/// docs say: checked once before anything is timed.
fn check() {
    let mut m = Updatable::track(terms_tree, (0, N, SCALE));
    let ids = draws(&m);
    let len = m.trace().len();
    for k in [0, 1, 4999, 5000, N - 1] {
        let u = m.update([Change::node(ids[k], 0.5)]).expect("an update");
        assert!(u.rerun().is_none(), "in place");
        assert!(u.recomputed() < 200, "{} nodes recomputed", u.recomputed());
        assert_eq!(
            m.trace().root().value::<f64>(),
            Some(&tree_sum(0, N, k, 0.5))
        );
        m.undo().unwrap();
    }
    assert_eq!(m.trace().len(), len);

    let mut m = Updatable::track(common::tracked::h, (1.0001, N as i32));
    let u = m.update([Change::argument(0, 1.0002)]).expect("an update");
    assert!(u.rerun().is_none(), "in place");
    assert_eq!(
        m.trace().root().value::<f64>(),
        Some(&common::plain::h(1.0002, N as i32))
    );
}

fn main() {
    check();
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let chosen: Vec<Workload> = workloads()
        .into_iter()
        .filter(|w| {
            // A criterion filter (`update/chain_h_1e4/update`) selects its workload too.
            filter
                .as_deref()
                .map_or(true, |f| w.name.contains(f) || f.contains(w.name))
        })
        .collect();
    for w in &chosen {
        let mut group = c.benchmark_group(format!("update/{}", w.name));
        let mut update = (w.update)();
        group.bench_function("update", |b| b.iter(&mut update));
        let mut fresh = (w.fresh)();
        group.bench_function("track", |b| b.iter(&mut fresh));
        group.finish();
    }
    c.final_summary();
    if std::env::args().any(|a| a == "--list" || a == "--test" || a == "--profile-time") {
        return;
    }
    let mut figures = Vec::new();
    for w in &chosen {
        figures.extend(paired(w.name, (w.update)(), (w.fresh)(), 30));
    }
    common::write_figures("update.json", &figures);
}
