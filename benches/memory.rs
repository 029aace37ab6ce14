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
//! And for JSON (`json/h_nodes_1e6`: a trace of `h(x, 125000)`, about 10⁶ nodes), written to
//! `json.json` next to it:
//! - `recorded_bytes`: heap bytes the recorded trace keeps (as `retained` above;
//!   `recorded_memory_bytes` is what `Trace::memory` says of it);
//! - `export_ns`, `import_ns`: wall time of `trace.to_json()` and of `Trace::from_json(&json)`,
//!   the median of five runs (`std::time::Instant`; not a criterion benchmark), and `verify_ns`
//!   the part of an import that is `Trace::verify` (timed on a freshly recorded trace);
//! - `import_peak_bytes`: the highest number of heap bytes live at once during `from_json`,
//!   above what was live before it (the JSON text, owned by the caller, is not counted; the
//!   trace it returns is), and `import_kept_bytes` what the imported trace keeps;
//! - `json_bytes`: the length of the text; `import_timed_out_s`: 0, or the time after which
//!   the imports were given up (their figures are then missing).
//!
//! Run with `cargo bench --bench memory` (`cargo bench --bench memory -- json` for the JSON rows
//! only).

mod common;

use common::tracked;
use irtrack::track;
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc;
use std::time::{Duration, Instant};

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
    let json_case = "json/h_nodes_1e6";
    if !filter.as_deref().is_some_and(|f| !json_case.contains(f)) {
        let figures = measure_json(json_case, || track(tracked::h, (1.000_001, 125_000)));
        // All of the file's figures are written at once: none left from an earlier run.
        let _ = std::fs::remove_file(common::figures_dir().join("json.json"));
        common::write_figures("json.json", &figures);
    }
}

/// The median of `runs` timings of `f`, in nanoseconds, and the last result.
fn median_ns<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        drop(last.take());
        let start = Instant::now();
        let out = black_box(f());
        times.push(start.elapsed().as_nanos() as f64);
        last = Some(out);
    }
    times.sort_by(f64::total_cmp);
    (times[runs / 2], last.expect("at least one run"))
}

/// How long the imports of `measure_json` may take together before they are given up.
const IMPORT_BUDGET: Duration = Duration::from_secs(120);

/// Export and import of one trace: times, and bytes against what the recorded trace keeps.
///
/// The imports run on a worker thread, given up after [`IMPORT_BUDGET`] (the figures then say
/// so): an import that scales badly must not hang the whole report.
fn measure_json(
    name: &str,
    record: impl Fn() -> irtrack::Trace + Copy + Send + 'static,
) -> Vec<(String, f64)> {
    let recorded = measure(record);
    let trace = black_box(record());
    let memory = trace.memory();
    let (export_ns, json) = median_ns(5, || trace.to_json());
    drop(trace);
    let mut figures = vec![
        ("nodes", recorded.nodes as f64),
        ("recorded_bytes", recorded.retained as f64),
        ("recorded_memory_bytes", memory as f64),
        ("export_ns", export_ns),
        ("json_bytes", json.len() as f64),
    ];
    let (send, receive) = mpsc::channel::<(&'static str, f64)>();
    let nodes = recorded.nodes;
    std::thread::spawn(move || {
        // The peak of one import first, with nothing else running.
        let before = LIVE.load(Relaxed);
        PEAK.store(before, Relaxed);
        let back = black_box(irtrack::Trace::from_json(&json).expect("import"));
        let peak = PEAK.load(Relaxed) - before;
        let kept = LIVE.load(Relaxed) - before;
        assert_eq!(back.len(), nodes, "the import has every node");
        drop(back);
        let _ = send.send(("import_peak_bytes", peak as f64));
        let _ = send.send(("import_kept_bytes", kept as f64));
        let (import_ns, back) = median_ns(5, || irtrack::Trace::from_json(&json).expect("import"));
        drop(back);
        let _ = send.send(("import_ns", import_ns));
        // The part of an import that is `Trace::verify`: a fresh trace's first check, which
        // builds its index as the import's does.
        let fresh = record();
        let (verify_ns, _) = median_ns(1, || fresh.verify().expect("a recorded trace verifies"));
        let _ = send.send(("verify_ns", verify_ns));
    });
    let deadline = Instant::now() + IMPORT_BUDGET;
    let mut timed_out = false;
    for _ in 0..4 {
        match receive.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(figure) => figures.push(figure),
            Err(_) => {
                timed_out = true;
                break;
            }
        }
    }
    figures.push((
        "import_timed_out_s",
        if timed_out {
            IMPORT_BUDGET.as_secs_f64()
        } else {
            0.0
        },
    ));
    let get = |what: &str| figures.iter().find(|(k, _)| *k == what).map(|&(_, v)| v);
    let ms = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{:.1} ms", v / 1e6));
    let ratio = |a: Option<f64>, b: Option<f64>| {
        a.zip(b)
            .map_or("—".to_string(), |(a, b)| format!("{:.2}x", a / b))
    };
    let (import, verify) = (get("import_ns"), get("verify_ns"));
    let peak = get("import_peak_bytes");
    println!(
        "\n{:<22} {:>9} {:>10} {:>10} {:>8} {:>10} {:>8} {:>12} {:>12} {:>8}",
        "json",
        "nodes",
        "export",
        "import",
        "imp/exp",
        "verify",
        "w/o ver.",
        "recorded B",
        "imp. peak B",
        "peak/rec"
    );
    println!(
        "{:<22} {:>9} {:>10} {:>10} {:>8} {:>10} {:>8} {:>12} {:>12} {:>8}",
        name,
        recorded.nodes,
        ms(Some(export_ns)),
        ms(import),
        ratio(import, Some(export_ns)),
        ms(verify),
        ratio(import.zip(verify).map(|(i, v)| i - v), Some(export_ns)),
        recorded.retained,
        peak.map_or("—".to_string(), |p| format!("{p:.0}")),
        ratio(peak, Some(recorded.retained as f64)),
    );
    if timed_out {
        println!(
            "{:<22} the imports did not finish in {} s: figures missing above were not measured",
            "",
            IMPORT_BUDGET.as_secs()
        );
    }
    figures
        .into_iter()
        .map(|(what, v)| (format!("{name}:{what}"), v))
        .collect()
}
