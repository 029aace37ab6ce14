//! Costs of the `ppl` layer (issue 14).
//!
//! - `ppl/mh_step_1000`: one Metropolis-Hastings step on a model of 1,000 independent latent
//!   choices (each with an observation), changing one: in place from the graph (`mh`) against
//!   running the whole model again under the same interface (`mh_rerun`). Target: ≤ 5 %.
//! - `ppl/update_1000`: one `update` of one choice of the same model to a new value, on the
//!   same arguments: in place from the graph (`update_choices`) against running the model
//!   again (`update` with the trace's arguments). No target.
//! - `ppl/hmc_step_20`: one HMC step (5 leapfrog steps, so 6 gradients and one score) on the
//!   two parameters of a line through 20 points, against the same model returning a
//!   parameter. Each gradient is irtrack's reverse sweep over the graph, at a point off the
//!   recording with the values an update in place computes on the first side and on a run of
//!   the model on the second (a return value depending on the choices); the proposal's score
//!   likewise. No target.
//! - `ppl/simulate_100`: `simulate` of a tracked model of 100 latent choices and 100
//!   observations against the same model written with plain calls (the same `rand_distr`
//!   draws and `statrs` densities, summed into the score). Target: ≤ 3×. The other rows say
//!   where the time goes: `untracked` is the same model as a closure under `simulate` (the
//!   PPL's bookkeeping without recording), `track` records the tracked model with the choices
//!   drawn outside any run (recording without bookkeeping), `track_with_context` records it
//!   with a context that overrides nothing (what having a context costs the recorder).
//!
//! Criterion measures each row; the targets' ratios (and the others above) are then
//! measured paired (blocks of each side in alternation, as `benches/paired.rs` does) and
//! printed as the median with the quartiles and the range of the rounds' ratios. The paired
//! figures go to `target/criterion/irtrack/ppl.json` for `scripts/bench-report`. Run with
//! `cargo bench --bench ppl` (a filter argument, `mh_step`, `hmc` or `simulate`, selects
//! cases).

mod common;

use criterion::Criterion;
use irtrack::ppl::{
    hmc, mh, mh_rerun, observe, sample, simulate, update, update_choices, ChoiceMap, Distribution,
    Hmc, Normal, PplRng, PplTrace, Selection,
};
use irtrack::{tracked, Callable};
use rand::SeedableRng;
use std::hint::black_box;
use std::time::{Duration, Instant};

#[tracked]
fn latent(data: Vec<f64>) -> usize {
    for (i, &y) in data.iter().enumerate() {
        let x = sample(("x", i), Normal::new(0.0, 1.0));
        observe(("y", i), Normal::new(x, 0.5), y);
    }
    data.len()
}

/// A line through 20 points, for HMC on `(a, b)`: returning nothing, its steps are taken in
/// place from the graph.
#[tracked]
fn line(xs: Vec<f64>, ys: Vec<f64>) {
    let a = sample("a", Normal::new(0.0, 2.0));
    let b = sample("b", Normal::new(0.0, 2.0));
    for i in 0..xs.len() {
        observe(("y", i), Normal::new(a + b * xs[i], 0.5), ys[i]);
    }
}

/// The same line returning `b`: a return value that depends on the choices makes every score
/// of an HMC step a run of the model.
#[tracked]
fn line_returning(xs: Vec<f64>, ys: Vec<f64>) -> f64 {
    let a = sample("a", Normal::new(0.0, 2.0));
    let b = sample("b", Normal::new(0.0, 2.0));
    for i in 0..xs.len() {
        observe(("y", i), Normal::new(a + b * xs[i], 0.5), ys[i]);
    }
    b
}

/// The points of `line`.
fn points() -> Points {
    let xs: Vec<f64> = (0..20).map(|i| i as f64 / 10.0 - 1.0).collect();
    let ys = xs
        .iter()
        .map(|x| 0.5 + 1.2 * x + 0.3 * (x * 7.0).sin())
        .collect();
    (xs, ys)
}

/// The arguments of `line`: the points' x and y.
type Points = (Vec<f64>, Vec<f64>);

/// A chain of HMC steps on `(a, b)` of a line model.
struct HmcChain<M: Callable<Points>> {
    trace: Option<PplTrace<M, Points>>,
    rng: PplRng,
}

fn hmc_chain<M: Callable<Points> + Clone>(model: M) -> HmcChain<M> {
    let mut rng = PplRng::seed_from_u64(5);
    let trace = simulate(model, points(), &mut rng).unwrap();
    HmcChain {
        trace: Some(trace),
        rng,
    }
}

impl<M: Callable<Points> + Clone> HmcChain<M> {
    fn step(&mut self) -> bool {
        let config = Hmc {
            step_size: 0.05,
            steps: 5,
        };
        let t = self.trace.take().expect("a trace");
        let (t, accepted) = hmc(t, &Selection::of(["a", "b"]), &config, &mut self.rng).unwrap();
        self.trace = Some(t);
        accepted
    }
}

/// The same model, not tracked (a closure is run as written).
fn untracked_model(data: Vec<f64>) -> usize {
    for (i, &y) in data.iter().enumerate() {
        let x = sample(("x", i), Normal::new(0.0, 1.0));
        observe(("y", i), Normal::new(x, 0.5), y);
    }
    data.len()
}

/// The model with plain calls: the same draws and densities, the score summed by hand.
fn plain(data: &[f64], rng: &mut PplRng) -> f64 {
    let mut score = 0.0;
    for &y in data {
        let prior = Normal::new(0.0, 1.0);
        let x = prior.draw(rng);
        score += prior.log_density(&x) + Normal::new(x, 0.5).log_density(&y);
    }
    score
}

fn data(n: usize) -> Vec<f64> {
    (0..n).map(|i| (i as f64 * 0.37).sin()).collect()
}

/// A chain on the 1,000-choice model, stepped by `step` on `x[k]`, `k` cycling. The model's
/// type is its fn item's: through a function pointer it would not be recorded (irtrack cannot
/// tell which function a pointer runs).
struct Chain<M: Callable<(Vec<f64>,)>> {
    trace: Option<PplTrace<M, (Vec<f64>,)>>,
    rng: PplRng,
    k: usize,
}

fn chain<M: Callable<(Vec<f64>,)> + Clone>(model: M) -> Chain<M> {
    let mut rng = PplRng::seed_from_u64(1);
    let trace = simulate(model, (data(1000),), &mut rng).unwrap();
    Chain {
        trace: Some(trace),
        rng,
        k: 0,
    }
}

impl<M: Callable<(Vec<f64>,)> + Clone> Chain<M> {
    fn step(&mut self, in_place: bool) -> bool {
        let t = self.trace.take().expect("a trace");
        let s = Selection::address(("x", self.k));
        self.k = (self.k + 1) % 1000;
        let (t, accepted) = if in_place {
            mh(t, &s, &mut self.rng).unwrap()
        } else {
            mh_rerun(t, &s, &mut self.rng).unwrap()
        };
        self.trace = Some(t);
        accepted
    }

    /// Sets `x[k]` to a new value, `k` cycling, keeping the new trace.
    fn update(&mut self, in_place: bool) -> f64 {
        let t = self.trace.take().expect("a trace");
        let c = ChoiceMap::new().with(("x", self.k), (self.k as f64 * 0.7).sin());
        self.k = (self.k + 1) % 1000;
        let (t, w, _) = if in_place {
            update_choices(&t, &c, &mut self.rng).unwrap()
        } else {
            update(&t, t.args().clone(), &c, &mut self.rng).unwrap()
        };
        self.trace = Some(t);
        w
    }
}

/// A context that overrides no hook.
struct Noop;

impl irtrack::Context for Noop {}

struct Side<'a> {
    name: &'a str,
    run: Box<dyn FnMut() + 'a>,
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

/// `a / b` per round of alternating blocks (ABBA), each block about 20 ms of the slower side;
/// prints the median ratio with its quartiles and range, and adds them, with each side's median
/// time per call, to `figures` under `key`.
fn paired(
    key: &str,
    what: &str,
    mut a: Side<'_>,
    mut b: Side<'_>,
    rounds: usize,
    figures: &mut Vec<(String, f64)>,
) {
    let calls = |f: &mut dyn FnMut()| {
        let mut n = 1;
        while n < 1 << 20 && timed(f, n) < Duration::from_millis(20) {
            n *= 2;
        }
        n
    };
    let (na, nb) = (calls(&mut *a.run), calls(&mut *b.run));
    let mut ratios = Vec::with_capacity(rounds);
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for r in 0..rounds {
        let (x, y) = if r % 2 == 0 {
            let x = timed(&mut *a.run, na);
            (x, timed(&mut *b.run, nb))
        } else {
            let y = timed(&mut *b.run, nb);
            (timed(&mut *a.run, na), y)
        };
        let (x, y) = (
            x.as_secs_f64() * 1e9 / na as f64,
            y.as_secs_f64() * 1e9 / nb as f64,
        );
        ta.push(x);
        tb.push(y);
        ratios.push(x / y);
    }
    for v in [&mut ratios, &mut ta, &mut tb] {
        v.sort_by(f64::total_cmp);
    }
    let (median, q1, q3) = (
        quantile(&ratios, 0.5),
        quantile(&ratios, 0.25),
        quantile(&ratios, 0.75),
    );
    let (a_ns, b_ns) = (quantile(&ta, 0.5), quantile(&tb, 0.5));
    println!(
        "{what}: {} / {} = {median:.4} (quartiles {q1:.4}–{q3:.4}, range {:.4}–{:.4}, \
         {rounds} rounds); medians {:.2} µs and {:.2} µs",
        a.name,
        b.name,
        ratios[0],
        ratios[rounds - 1],
        a_ns / 1e3,
        b_ns / 1e3,
    );
    for (k, v) in [
        ("ratio", median),
        ("q1", q1),
        ("q3", q3),
        ("min", ratios[0]),
        ("max", ratios[rounds - 1]),
        ("rounds", rounds as f64),
        ("a_ns", a_ns),
        ("b_ns", b_ns),
    ] {
        figures.push((format!("{key}:{k}"), v));
    }
}

/// The filter among criterion's arguments: the first that is neither an option nor the value
/// of one (`scripts/bench-report` passes `--warm-up-time 1 --measurement-time 2`).
fn filter_argument(args: impl Iterator<Item = String>) -> Option<String> {
    const WITH_VALUE: [&str; 12] = [
        "--warm-up-time",
        "--measurement-time",
        "--sample-size",
        "--profile-time",
        "--save-baseline",
        "--baseline",
        "--load-baseline",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--nresamples",
        "--color",
    ];
    let mut args = args;
    while let Some(a) = args.next() {
        if WITH_VALUE.contains(&a.as_str()) {
            args.next();
        } else if !a.starts_with('-') {
            return Some(a);
        }
    }
    None
}

fn main() {
    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();

    let mut group = c.benchmark_group("ppl/mh_step_1000");
    let mut in_place = chain(latent);
    group.bench_function("in_place", |b| b.iter(|| black_box(in_place.step(true))));
    let mut rerun = chain(latent);
    group.bench_function("rerun", |b| b.iter(|| black_box(rerun.step(false))));
    group.finish();

    let mut group = c.benchmark_group("ppl/update_1000");
    let mut in_place = chain(latent);
    group.bench_function("in_place", |b| b.iter(|| black_box(in_place.update(true))));
    let mut rerun = chain(latent);
    group.bench_function("rerun", |b| b.iter(|| black_box(rerun.update(false))));
    group.finish();

    let mut group = c.benchmark_group("ppl/hmc_step_20");
    let mut in_place = hmc_chain(line);
    group.bench_function("in_place", |b| b.iter(|| black_box(in_place.step())));
    let mut rerun = hmc_chain(line_returning);
    group.bench_function("rerun", |b| b.iter(|| black_box(rerun.step())));
    group.finish();

    let mut group = c.benchmark_group("ppl/simulate_100");
    let d = data(100);
    let mut rng = PplRng::seed_from_u64(2);
    group.bench_function("tracked", |b| {
        b.iter(|| black_box(simulate(latent, (d.clone(),), &mut rng).unwrap().score()))
    });
    group.bench_function("untracked", |b| {
        b.iter(|| {
            black_box(
                simulate(untracked_model, (d.clone(),), &mut rng)
                    .unwrap()
                    .score(),
            )
        })
    });
    group.bench_function("plain", |b| b.iter(|| black_box(plain(&d, &mut rng))));
    // What the tracked side is made of: the recording alone (`track`: the choices drawn outside
    // any run, so no PPL bookkeeping), and the recording with a context that overrides nothing
    // (the recorder's per-node cost of having a context at all).
    group.bench_function("track", |b| {
        b.iter(|| black_box(irtrack::track(latent, (d.clone(),))))
    });
    group.bench_function("track_with_context", |b| {
        b.iter(|| black_box(irtrack::track_with(Noop, latent, (d.clone(),))))
    });
    group.finish();
    c.final_summary();

    if std::env::args().any(|a| a == "--list" || a == "--test" || a == "--profile-time") {
        return;
    }
    // `cargo bench` passes `--bench` (and any filter); a filter selects the paired cases too.
    let filter = filter_argument(std::env::args().skip(1));
    let wanted = |group: &str| {
        filter
            .as_deref()
            .map_or(true, |f| group.contains(f) || f.starts_with(group))
    };
    let mut figures = Vec::new();
    if wanted("ppl/mh_step_1000") {
        let (mut fast, mut slow) = (chain(latent), chain(latent));
        paired(
            "ppl/mh_step_1000",
            "one MH step, 1000 latent choices",
            Side {
                name: "in place",
                run: Box::new(|| {
                    black_box(fast.step(true));
                }),
            },
            Side {
                name: "re-run",
                run: Box::new(|| {
                    black_box(slow.step(false));
                }),
            },
            30,
            &mut figures,
        );
    }
    if wanted("ppl/update_1000") {
        let (mut fast, mut slow) = (chain(latent), chain(latent));
        // Each side must really take its path: a step in place leaves the graph stale.
        fast.update(true);
        slow.update(false);
        assert!(!fast.trace.as_ref().unwrap().is_graph_current());
        assert!(slow.trace.as_ref().unwrap().is_graph_current());
        paired(
            "ppl/update_1000",
            "one update of one choice, 1000 latent choices",
            Side {
                name: "in place",
                run: Box::new(|| {
                    black_box(fast.update(true));
                }),
            },
            Side {
                name: "re-run",
                run: Box::new(|| {
                    black_box(slow.update(false));
                }),
            },
            30,
            &mut figures,
        );
    }
    if wanted("ppl/hmc_step_20") {
        let (mut fast, mut slow) = (hmc_chain(line), hmc_chain(line_returning));
        paired(
            "ppl/hmc_step_20",
            "one HMC step (5 leapfrog steps) on a line through 20 points",
            Side {
                name: "in place",
                run: Box::new(|| {
                    black_box(fast.step());
                }),
            },
            Side {
                name: "re-run",
                run: Box::new(|| {
                    black_box(slow.step());
                }),
            },
            30,
            &mut figures,
        );
    }
    if wanted("ppl/simulate_100") {
        let mut r1 = PplRng::seed_from_u64(3);
        let mut r2 = PplRng::seed_from_u64(3);
        paired(
            "ppl/simulate_100",
            "simulate, 100 latent choices and 100 observations",
            Side {
                name: "tracked",
                run: Box::new(|| {
                    black_box(simulate(latent, (d.clone(),), &mut r1).unwrap().score());
                }),
            },
            Side {
                name: "plain",
                run: Box::new(|| {
                    black_box(plain(&d, &mut r2));
                }),
            },
            30,
            &mut figures,
        );
        let (mut r3, mut r4) = (PplRng::seed_from_u64(3), PplRng::seed_from_u64(3));
        paired(
            "ppl/simulate_100_untracked",
            "simulate, 100 latent choices and 100 observations",
            Side {
                name: "untracked under simulate",
                run: Box::new(|| {
                    black_box(
                        simulate(untracked_model, (d.clone(),), &mut r3)
                            .unwrap()
                            .score(),
                    );
                }),
            },
            Side {
                name: "plain",
                run: Box::new(|| {
                    black_box(plain(&d, &mut r4));
                }),
            },
            30,
            &mut figures,
        );
        // Where the tracked side's time goes, paired step by step: the PPL run and its context
        // over a context that does nothing, and that over recording without a context.
        let mut r5 = PplRng::seed_from_u64(3);
        paired(
            "ppl/simulate_100_ppl_over_context",
            "simulate, 100 latent choices and 100 observations",
            Side {
                name: "tracked under simulate",
                run: Box::new(|| {
                    black_box(simulate(latent, (d.clone(),), &mut r5).unwrap().score());
                }),
            },
            Side {
                name: "track_with a context doing nothing",
                run: Box::new(|| {
                    black_box(irtrack::track_with(Noop, latent, (d.clone(),)));
                }),
            },
            30,
            &mut figures,
        );
        paired(
            "ppl/simulate_100_context_over_track",
            "recording, 100 latent choices and 100 observations",
            Side {
                name: "track_with a context doing nothing",
                run: Box::new(|| {
                    black_box(irtrack::track_with(Noop, latent, (d.clone(),)));
                }),
            },
            Side {
                name: "track",
                run: Box::new(|| {
                    black_box(irtrack::track(latent, (d.clone(),)));
                }),
            },
            30,
            &mut figures,
        );
    }
    common::write_figures("ppl.json", &figures);
}
