//! Bytes per recorded node, measured with a counting global allocator (kept out of the timing
//! benchmarks, whose allocations it would slow down). Not a criterion benchmark: each trace is
//! recorded once (allocation counts do not vary between runs) and the figures are printed and
//! written to `target/criterion/irtrack/memory.json` for `scripts/bench-report`.
//!
//! For each workload, around one `track` call:
//! - `peak`: the highest number of heap bytes live at once during `track`, above what was live
//!   before it (the headline figure: what recording needs, growth slack of the arena included);
//! - `retained`: heap bytes still live after `track` returned, i.e. held by the `Trace`;
//! - `total`: every byte requested from the allocator during `track` (a `realloc` counts its new
//!   size), with `allocs` the number of requests.
//!
//! Run with `cargo bench --bench memory`.

mod common;

use common::tracked;
use irtrack::track;
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static TOTAL: AtomicUsize = AtomicUsize::new(0);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY: every method forwards to `System` with the same arguments; the counters are
// bookkeeping only.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
            TOTAL.fetch_add(layout.size(), Relaxed);
            ALLOCS.fetch_add(1, Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            grew(layout.size());
            TOTAL.fetch_add(layout.size(), Relaxed);
            ALLOCS.fetch_add(1, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            // Peak as if the new block were allocated before the old one is freed.
            grew(new_size);
            LIVE.fetch_sub(layout.size(), Relaxed);
            TOTAL.fetch_add(new_size, Relaxed);
            ALLOCS.fetch_add(1, Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

struct Measured {
    nodes: usize,
    peak: usize,
    retained: usize,
    total: usize,
    allocs: usize,
}

fn measure(record: impl Fn() -> irtrack::Trace) -> Measured {
    // Once to warm up lazily initialised state (thread locals), then once more, kept alive
    // while measuring: a dropped trace leaves its buffers for the next recording on the thread,
    // and the figure wanted is what a trace needs, not what reusing them saves.
    drop(black_box(record()));
    let hold = black_box(record());
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let total = TOTAL.load(Relaxed);
    let allocs = ALLOCS.load(Relaxed);
    let trace = black_box(record());
    let m = Measured {
        nodes: trace.len(),
        peak: PEAK.load(Relaxed) - before,
        retained: LIVE.load(Relaxed) - before,
        total: TOTAL.load(Relaxed) - total,
        allocs: ALLOCS.load(Relaxed) - allocs,
    };
    drop(trace);
    drop(hold);
    m
}

/// A workload: records one trace.
type Recording<'a> = Box<dyn Fn() -> irtrack::Trace + 'a>;

fn main() {
    // `cargo bench` passes `--bench` (and any filter); a filter selects workloads by name.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let a = common::uniform(2, 256);
    let v = common::uniform(3, 256);
    let w = common::dense_weights(64);
    let x = common::uniform(1, 64);
    let cases: Vec<(&str, Recording)> = vec![
        (
            "on/h_nodes_1e2",
            Box::new(|| track(tracked::h, (1.000_001, 12))),
        ),
        (
            "on/h_nodes_1e4",
            Box::new(|| track(tracked::h, (1.000_001, 1_250))),
        ),
        (
            "on/h_nodes_1e6",
            Box::new(|| track(tracked::h, (1.000_001, 125_000))),
        ),
        (
            "on/calls_nodes_1e4",
            Box::new(|| track(tracked::calls, (0.5, 700))),
        ),
        (
            "on/calls_nodes_1e6",
            Box::new(|| track(tracked::calls, (0.5, 70_000))),
        ),
        ("on/h_100", Box::new(|| track(tracked::h, (1.01, 100)))),
        ("on/rec_50", Box::new(|| track(tracked::rec, (0.7, 50)))),
        (
            "on/dot_256",
            Box::new(|| track(tracked::dot, (&a[..], &v[..]))),
        ),
        (
            "on/dense_64",
            Box::new(|| track(tracked::dense, (&w[..], &x[..]))),
        ),
    ];
    let mut figures = Vec::new();
    println!(
        "{:<22} {:>9} {:>10} {:>10} {:>10} {:>10}",
        "workload", "nodes", "peak B/n", "kept B/n", "total B/n", "allocs/n"
    );
    for (name, record) in &cases {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let m = measure(record);
        let per = |b: usize| b as f64 / m.nodes as f64;
        println!(
            "{:<22} {:>9} {:>10.1} {:>10.1} {:>10.1} {:>10.3}",
            name,
            m.nodes,
            per(m.peak),
            per(m.retained),
            per(m.total),
            per(m.allocs)
        );
        for (what, value) in [
            ("nodes", m.nodes as f64),
            ("peak_bytes", m.peak as f64),
            ("retained_bytes", m.retained as f64),
            ("total_bytes", m.total as f64),
            ("allocs", m.allocs as f64),
        ] {
            figures.push((format!("{name}:{what}"), value));
        }
    }
    common::write_figures("memory.json", &figures);
}
