//! An attempt that fails is not a run of the function: a program that leaves its path at a
//! guard, an update in place that finds a branch changed, a `switch` branch or `while_loop`
//! body traced again. Each is followed by another attempt (another path, a run of the
//! function), which must find the injected checkpoints as the function would, and leave one
//! value collected per checkpoint that ran. Found 2026-11-28 by an adversarial run: the failed
//! attempt took the injected value (50 became 0.5, `Ok(50)` became `Ok(88)`), and `collect`
//! saw a checkpoint once per attempt.

use irtrack::ppl::{
    mh, observe, regenerate, sample, simulate, update_choices, ChoiceMap, Normal, PplRng, Selection,
};
use irtrack::program::update::{Change, Updatable};
use irtrack::program::{
    checkpoint, collect, inject, Checkpoints, Input::Dynamic, Program, Retracking,
};
use irtrack::{switch, track, tracked, while_loop, Branches, MaxItersExceeded, Value};
use rand::SeedableRng;

fn inj(key: &str, vals: &[f64]) -> Checkpoints {
    let mut c = Checkpoints::default();
    for &v in vals {
        c.push(key, Value::snapshot(v));
    }
    c
}

#[tracked]
fn gate(x: f64) -> f64 {
    let t = checkpoint(x, "t", "c");
    if t > 2.0 {
        t * 10.0
    } else {
        t
    }
}

/// `Retracking::call_or_retrack` under `inject`: the first path's failed attempt consumes the
/// injected value, the new path is traced without it. Truth: gate(0.5) with t := 5 is 50.
#[test]
fn call_or_retrack_keeps_the_injected_value_for_the_path_it_traces() {
    let want = inject("c", inj("t", &[5.0]), || gate(0.5));
    let mut r = Retracking::track(gate, (0.5,), &[Dynamic]).unwrap();
    let got = inject("c", inj("t", &[5.0]), || r.call_or_retrack((0.5,))).unwrap();
    assert_eq!(want, 50.0);
    assert_eq!(got.as_f64(), Some(want));
}

/// `Retracking::call` (no tracing at all) returns a number from a path reached after a failed
/// one, whose checkpoint read the wrong injected index. Truth 50.
#[test]
fn call_feeds_the_path_it_answers_from_the_first_injected_value() {
    let mut r = Retracking::track(gate, (0.5,), &[Dynamic]).unwrap();
    r.call_or_retrack((5.0,)).unwrap(); // path 1: t > 2
    let _ = inject("c", inj("t", &[5.0]), || r.call_or_retrack((0.5,))); // path 2 (traced without the value)
    let got = inject("c", inj("t", &[5.0]), || r.call((0.5,))).unwrap();
    assert_eq!(got.as_f64(), Some(50.0));
}

#[tracked]
fn br0(x: f64) -> f64 {
    let t = checkpoint(x, "t", "c");
    if t > 2.0 {
        t * 10.0
    } else {
        t
    }
}
#[tracked]
fn br1(x: f64) -> f64 {
    x - 1.0
}
#[tracked]
fn routed(k: i32, x: f64) -> f64 {
    let b = Branches::new().with(0, br0).with(1, br1);
    switch(k, &b, (x,))
}

/// A `switch` branch whose own guard fails is traced again after its checkpoint consumed
/// the injected value. Truth 50.
#[test]
fn a_switch_branch_traced_again_reads_the_injected_value() {
    let p = Program::from_trace(&track(routed, (0, 0.5)), &[Dynamic, Dynamic]).unwrap();
    let want = inject("c", inj("t", &[5.0]), || routed(0, 0.5));
    let got = inject("c", inj("t", &[5.0]), || p.call((0, 0.5))).unwrap();
    assert_eq!(got.as_f64(), Some(want));
}

#[tracked]
fn small(s: &f64) -> bool {
    *s < 50.0
}
#[tracked]
fn body_g(s: f64) -> f64 {
    let t = checkpoint(s * 2.0, "it", "c");
    if t > 20.0 {
        t
    } else {
        t + 1.0
    }
}
#[tracked]
fn loop_g(x: f64) -> Result<f64, MaxItersExceeded> {
    while_loop(small, body_g, x, 20)
}

/// The same in a `while_loop` body: the checkpoint indices shift. Truth Ok(50), irtrack Ok(88).
#[test]
fn a_while_loop_body_traced_again_reads_the_injected_values_in_order() {
    let p = Program::from_trace(&track(loop_g, (1.0,)), &[Dynamic]).unwrap();
    let want = inject("c", inj("it", &[30.0, 1.0, 50.0]), || loop_g(1.0));
    let got = inject("c", inj("it", &[30.0, 1.0, 50.0]), || p.call((1.0,))).unwrap();
    assert_eq!(
        got.downcast_ref::<Result<f64, MaxItersExceeded>>(),
        Some(&want)
    );
}

/// `collect` sees checkpoints of failed attempts: one checkpoint call in the function,
/// two or three values collected.
#[test]
fn collect_sees_each_checkpoint_that_ran_once() {
    let (_, plain) = collect("c", || gate(5.0));
    let mut r = Retracking::track(gate, (0.5,), &[Dynamic]).unwrap();
    let (_, seen) = collect("c", || r.call_or_retrack((5.0,)).unwrap());
    assert_eq!(plain.get("t").len(), 1);
    let (_, seen2) = collect("c", || r.call((5.0,)).unwrap());
    assert_eq!(seen.get("t").len(), 1);
    assert_eq!(seen2.get("t").len(), 1);
}

/// `Updatable::update` under `inject`: the in-place walk consumes the injected value, finds
/// the branch changed, and the run again reads none. `track` under the same injection gives 50.
#[test]
fn an_update_run_again_reads_the_injected_value() {
    let want = inject("c", inj("t", &[5.0]), || {
        *track(gate, (0.6,)).root().value::<f64>().unwrap()
    });
    let mut m = Updatable::track(gate, (0.5,));
    inject("c", inj("t", &[5.0]), || {
        m.update([Change::argument(0, 0.6)])
    })
    .unwrap();
    assert_eq!(m.trace().root().value::<f64>(), Some(&want));
}

#[tracked]
fn cm(y: f64) {
    let z = sample("z", Normal::new(0.0, 1.0));
    let t = checkpoint(z * 2.0, "t", "c");
    if t > 0.0 {
        observe("y", Normal::new(t, 1.0), y);
    } else {
        observe("y", Normal::new(-t, 2.0), y);
    }
}

/// The same in the PPL: an in-place attempt of `update_choices` consumes the checkpoint's
/// injected value and the run of the model that follows reads none; `collect` sees the
/// checkpoint twice for one run.
#[test]
fn a_model_run_again_by_update_choices_reads_the_injected_value() {
    let t = simulate(cm, (0.5,), &mut PplRng::seed_from_u64(1)).unwrap();
    let z = t.value::<f64>("z").unwrap(); // -1.0088…
    let z2 = z + 0.01;
    let (w, seen) = collect("c", || {
        inject("c", inj("t", &[3.0]), || {
            update_choices(
                &t,
                &ChoiceMap::new().with("z", z2),
                &mut PplRng::seed_from_u64(1),
            )
            .unwrap()
            .1
        })
    });
    let lnn = |x: f64, m: f64, s: f64| {
        let q = (x - m) / s;
        -0.5 * q * q - s.ln() - 0.918_938_533_204_672_8
    };
    // The model run at z2 with t := 3 (what the run again of the update executes under this injection):
    let want = lnn(z2, 0.0, 1.0) + lnn(0.5, 3.0, 1.0) - t.score();
    assert!((w - want).abs() < 1e-12, "{w} for {want}");
    assert_eq!(seen.get("t").len(), 1);
}

/// The log-density of `cm`'s run with `t` given.
fn cm_score(z: f64, t: f64, y: f64) -> f64 {
    let lnn = |x: f64, m: f64, s: f64| {
        let q = (x - m) / s;
        -0.5 * q * q - s.ln() - 0.918_938_533_204_672_8
    };
    lnn(z, 0.0, 1.0)
        + if t > 0.0 {
            lnn(y, t, 1.0)
        } else {
            lnn(y, -t, 2.0)
        }
}

/// `mh` and `regenerate` under `inject`: a step in place that cannot be made (the branch on `t`
/// flips) runs the model, which must read the injected `t` (16 of 40 seeds gave the score of
/// `t = 2z` and collected `t` twice; a tester).
#[test]
fn mh_and_regenerate_run_again_read_the_injected_value() {
    for seed in 0..40u64 {
        let t0 = simulate(cm, (0.5,), &mut PplRng::seed_from_u64(seed)).unwrap();
        let s0 = t0.score();
        let (res, seen) = collect("c", || {
            inject("c", inj("t", &[3.0]), || {
                regenerate(
                    &t0,
                    &Selection::of(["z"]),
                    &mut PplRng::seed_from_u64(seed + 100),
                )
            })
        });
        let (next, _) = res.unwrap();
        let z = next.value::<f64>("z").unwrap();
        assert!(
            (next.score() - cm_score(z, 3.0, 0.5)).abs() < 1e-9,
            "seed {seed}"
        );
        assert_eq!(seen.get("t").len(), 1, "seed {seed}");
        let (res, seen) = collect("c", || {
            inject("c", inj("t", &[3.0]), || {
                mh(
                    t0,
                    &Selection::of(["z"]),
                    &mut PplRng::seed_from_u64(seed + 100),
                )
            })
        });
        let (next, accepted) = res.unwrap();
        let z = next.value::<f64>("z").unwrap();
        let want = if accepted { cm_score(z, 3.0, 0.5) } else { s0 };
        assert!((next.score() - want).abs() < 1e-9, "seed {seed}");
        assert_eq!(
            seen.get("t").len(),
            usize::from(accepted) + usize::from(!accepted),
            "seed {seed}"
        );
    }
}
