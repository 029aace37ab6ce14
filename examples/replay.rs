//! autoform's tracing semantics in Rust (`cargo run --example replay`): a trace replayed as a
//! program on new inputs, where static inputs select the path, a branch on a dynamic input is
//! a guard, `switch` and `while_loop` decide again at every call, and checkpoints report values
//! from later calls; then what goes beyond autoform: a program that traces a new path where a
//! guard fails (`call_or_retrack`), and a trace updated in place when one value changes.

use irtrack::program::update::{Change, Updatable};
use irtrack::program::{checkpoint, collect, Input, Program, Retracking};
use irtrack::{switch, track, tracked, while_loop, Branches, MaxItersExceeded};

use Input::{Dynamic, Static};

// `label(kind, text)`, with numbers for text: `kind` chooses the formula.
#[tracked]
fn label(kind: i32, x: f64) -> f64 {
    if kind == 0 {
        x + 1.0
    } else {
        x * 100.0
    }
}

#[tracked]
fn short(x: f64) -> f64 {
    x + 1.0
}

#[tracked]
fn long(x: f64) -> f64 {
    x * 100.0
}

#[tracked]
fn routed(kind: i32, x: f64) -> f64 {
    let branches = Branches::new().with(0, short).with(1, long);
    switch(kind, &branches, (x,))
}

#[tracked]
fn small(x: &f64) -> bool {
    *x < 100.0
}

#[tracked]
fn double(x: f64) -> f64 {
    x * 2.0
}

#[tracked]
fn grow(x: f64) -> Result<f64, MaxItersExceeded> {
    while_loop(small, double, x, 5)
}

#[tracked]
fn inspectable(x: f64) -> f64 {
    let prompt = x * 2.0 + 1.0;
    checkpoint(prompt, "prompt", "debug")
}

/// Input `i` of `score`: an untracked call, whose result an update can replace.
fn draw(i: usize) -> f64 {
    (i as f64 * 0.618).fract()
}

/// A score with one term per draw, the kind a Metropolis-Hastings step updates.
#[tracked]
fn score(n: usize, scale: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        let x = draw(i);
        total += -(x * scale).powi(2);
    }
    total
}

fn main() {
    println!("Static inputs: `kind` fixed at trace time selects the branch.");
    let p = Program::from_trace(&track(label, (0, 1.0)), &[Static, Dynamic]).unwrap();
    println!("  label(0, 41.0) replayed = {}", p.call((0, 41.0)).unwrap());
    println!(
        "  label(1, 41.0) replayed: {}",
        p.call((1, 41.0)).unwrap_err()
    );

    println!("\nTraced branches: with `kind` dynamic, the `if` is a guard.");
    let p = Program::from_trace(&track(label, (0, 1.0)), &[Dynamic, Dynamic]).unwrap();
    println!("  label(0, 41.0) replayed = {}", p.call((0, 41.0)).unwrap());
    println!(
        "  label(1, 41.0) replayed: {}",
        p.call((1, 41.0)).unwrap_err()
    );

    println!("\n`switch` keeps the decision: traced with kind 0, called with kind 1.");
    let p = Program::from_trace(&track(routed, (0, 1.0)), &[Dynamic, Dynamic]).unwrap();
    print!("{p}");
    println!(
        "  routed(1, 41.0) replayed = {}",
        p.call((1, 41.0)).unwrap()
    );
    println!(
        "  routed(7, 41.0) replayed: {}",
        p.call((7, 41.0)).unwrap_err()
    );

    println!("\n`while_loop` with max_iters = 5: traced from 30.0 (2 bodies), called anew.");
    let p = Program::from_trace(&track(grow, (30.0,)), &[Dynamic]).unwrap();
    print!("{p}");
    println!(
        "  grow(7.0) replayed = {}  (Rust: {:?})",
        p.call((7.0,)).unwrap(),
        grow(7.0)
    );
    println!("  grow(1.0) replayed: {}", p.call((1.0,)).unwrap_err());
    println!("  grow(1.0) in Rust:  {:?}", grow(1.0));

    println!("\nCheckpoints: traced once, collected from a later call.");
    let p = Program::from_trace(&track(inspectable, (0.0,)), &[Dynamic]).unwrap();
    let (out, seen) = collect("debug", || p.call((20.5,)).unwrap());
    println!(
        "  inspectable(20.5) replayed = {out}, collected prompt = {:?}",
        &seen["prompt"]
    );

    println!("\n`call_or_retrack`: where a guard fails, trace the function and keep the path.");
    let mut r = Retracking::track(label, (0, 1.0), &[Dynamic, Dynamic]).unwrap();
    println!("  label(1, 41.0) call: {}", r.call((1, 41.0)).unwrap_err());
    let v = r.call_or_retrack((1, 41.0)).unwrap();
    println!(
        "  label(1, 41.0) call_or_retrack = {v} (Rust: {:?}), {} paths",
        label(1, 41.0),
        r.paths()
    );
    let (parent, guard) = r.parent(1).unwrap();
    println!(
        "  label(1, 2.5) call = {} (path 1, traced where the guard on branch {guard} of path {parent} failed)",
        r.call((1, 2.5)).unwrap(),
    );
    let e = Retracking::track(label, (0, 1.0), &[Dynamic, Dynamic])
        .unwrap()
        .max_paths(1)
        .call_or_retrack((1, 41.0))
        .unwrap_err();
    println!("  with max_paths(1): {e}");

    println!("\nIncremental update: score(1000, 2.0), one term per draw.");
    let mut m = Updatable::track(score, (1000, 2.0));
    let draws: Vec<_> = m
        .trace()
        .nodes()
        .filter(|n| n.function_name() == Some("draw"))
        .map(|n| n.id())
        .collect();
    let u = m.update([Change::node(draws[990], 0.5)]).unwrap();
    println!(
        "  draw 990 := 0.5: {} of {} nodes recomputed in place, {} changed; score = {}",
        u.recomputed(),
        m.trace().len(),
        u.changed().unwrap().len(),
        m.trace().root().value_text()
    );
    let u = m.update([Change::argument(1, 3.0)]).unwrap();
    println!(
        "  scale := 3.0: {} nodes recomputed in place; score = {}",
        u.recomputed(),
        m.trace().root().value_text()
    );
    m.undo().unwrap();
    println!(
        "  undo: scale is {} again; score = {}",
        m.arguments()[1],
        m.trace().root().value_text()
    );
    let u = m.update([Change::argument(0, 1001usize)]).unwrap();
    println!(
        "  n := 1001: the function ran again ({}); {} nodes; draw 990 kept its 0.5: {}",
        u.rerun().unwrap(),
        u.recomputed(),
        m.trace()
            .nodes()
            .filter(|n| n.function_name() == Some("draw"))
            .nth(990)
            .unwrap()
            .value_text()
    );
}
