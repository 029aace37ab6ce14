//! The `ppl` layer's interface: weights of `update` and `regenerate` against brute-force
//! re-scoring (property tests), addresses, errors, distributions (`rand_distr`'s draws against
//! `statrs`'s densities), and what a model debugger sees (listing, DOT, JSON).

use irtrack::ppl::{
    assess, draw, generate, mh, mh_rerun, observe, regenerate, regenerate_rerun, sample,
    score_graph, simulate, update, update_choices, Address, Bernoulli, Beta, Categorical,
    ChoiceMap, Dirichlet, Distribution, Exponential, Gamma, Geometric, MvNormal, Normal, Poisson,
    PplError, PplRng, PplTrace, Selection, Uniform,
};
use irtrack::{tracked, Callable, Trace};
use proptest::prelude::*;
use rand::SeedableRng;
use std::collections::HashSet;

// ---------------------------------------------------------------------------------------------
// Weights against brute force.

#[tracked]
fn branchy(scale: f64) -> f64 {
    let n = sample("n", Poisson::new(1.5));
    let mut s = 0.0;
    for i in 0..n {
        s += sample(("x", i), Normal::new(s * 0.5, scale));
    }
    if sample("b", Bernoulli::new(0.5)) {
        s += sample("extra", Gamma::new(2.0, 1.0));
    }
    observe("y", Normal::new(s, 1.0), 0.3);
    s
}

fn addresses<M: Callable<A> + Clone, A: Clone>(t: &PplTrace<M, A>) -> HashSet<Address> {
    t.addresses().cloned().collect()
}

// `branchy` returns a sum of its choices, so no change is ever computed in place; `shallow`
// returns nothing, and a change of `m`, `x[i]` or `extra` reaches only operators,
// constructors and other choices' distributions (in place), while one of `n` or `b` reaches a
// branch (the model runs again).
#[tracked]
fn shallow(scale: f64) {
    let n = sample("n", Poisson::new(1.5));
    let m = sample("m", Normal::new(0.0, scale));
    for i in 0..n {
        sample(("x", i), Normal::new(m * 0.5, scale));
    }
    if sample("b", Bernoulli::new(0.5)) {
        sample("extra", Gamma::new(2.0, 1.0 + m.abs()));
    }
    observe("y", Normal::new(m, 1.0), 0.3);
}

/// The brute-force check of an update from `old` to `new` with constraints `c`: the weight is
/// `log p(t') - log p(t)` less the choices drawn anew, the discard holds the old values of the
/// constrained and removed choices, the constraints hold.
fn check_update<M: Callable<A> + Clone, A: Clone>(
    old: &PplTrace<M, A>,
    new: &PplTrace<M, A>,
    c: &ChoiceMap,
    w: f64,
    discard: &ChoiceMap,
) -> Result<(), TestCaseError> {
    let (before, after) = (addresses(old), addresses(new));
    let fresh: f64 = after
        .iter()
        .filter(|a| !before.contains(*a) && !c.contains(*a))
        .map(|a| new.log_density(a).unwrap())
        .sum();
    let expected = new.score() - old.score() - fresh;
    prop_assert!((w - expected).abs() < 1e-9, "{} vs {}", w, expected);
    let mut discarded: Vec<String> = discard.addresses().map(|a| a.to_string()).collect();
    let mut expected_discard: Vec<String> = before
        .iter()
        .filter(|a| c.contains(*a) || !after.contains(*a))
        .map(|a| a.to_string())
        .collect();
    discarded.sort();
    expected_discard.sort();
    prop_assert_eq!(discarded, expected_discard);
    for (a, v) in discard.iter() {
        prop_assert_eq!(v.to_string(), old.choices().value(a).unwrap().to_string());
    }
    for (a, v) in c.iter() {
        prop_assert_eq!(new.choices().value(a).unwrap().to_string(), v.to_string());
    }
    Ok(())
}

/// Two traces of the same model agree: the same choices (values bit for bit, as their text),
/// scores and log-densities within rounding, and each score is the sum of its log-densities.
fn check_same<M: Callable<A> + Clone, A: Clone>(
    a: &PplTrace<M, A>,
    b: &PplTrace<M, A>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.choices().to_string(), b.choices().to_string());
    prop_assert!(
        (a.score() - b.score()).abs() < 1e-9,
        "{} vs {}",
        a.score(),
        b.score()
    );
    for t in [a, b] {
        let sum: f64 = t.addresses().map(|x| t.log_density(x).unwrap()).sum();
        prop_assert!((t.score() - sum).abs() < 1e-9, "{} vs {}", t.score(), sum);
    }
    for x in a.addresses() {
        let (la, lb) = (a.log_density(x).unwrap(), b.log_density(x).unwrap());
        prop_assert!((la - lb).abs() < 1e-12, "{}: {} vs {}", x, la, lb);
    }
    Ok(())
}

/// Constraints for `shallow` from proptest's draws: each of `n`, `b`, `m`, `x[0]` and `extra`
/// when drawn (`x[0]` and `extra` only where the new trace has them).
fn shallow_constraints<M: Callable<(f64,)> + Clone>(
    old: &PplTrace<M, (f64,)>,
    n: Option<u64>,
    b: Option<bool>,
    m: Option<f64>,
    x0: Option<f64>,
    extra: Option<f64>,
) -> ChoiceMap {
    let mut c = ChoiceMap::new();
    if let Some(n) = n {
        c.insert("n", n);
    }
    if let Some(b) = b {
        c.insert("b", b);
    }
    if let Some(m) = m {
        c.insert("m", m);
    }
    if let (Some(x0), true) = (x0, n.unwrap_or_else(|| old.value::<u64>("n").unwrap()) > 0) {
        c.insert(("x", 0), x0);
    }
    if let (Some(e), true) = (extra, b.unwrap_or_else(|| old.value::<bool>("b").unwrap())) {
        c.insert("extra", e);
    }
    c
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Gen's update weight is `log p(t') - log p(t)` less the log-densities of the choices
    /// drawn anew; the discard holds the old values of constrained and removed choices.
    #[test]
    fn update_weight_is_the_score_difference(
        seed in 0u64..10_000,
        n in proptest::option::of(0u64..4),
        b in proptest::option::of(any::<bool>()),
        x0 in proptest::option::of(-2.0f64..2.0),
        scale in 0.5f64..2.0,
    ) {
        let mut rng = PplRng::seed_from_u64(seed);
        let old = simulate(branchy, (1.0,), &mut rng).unwrap();
        let mut c = ChoiceMap::new();
        if let Some(n) = n {
            c.insert("n", n);
        }
        if let Some(b) = b {
            c.insert("b", b);
        }
        let new_n = n.unwrap_or_else(|| old.value::<u64>("n").unwrap());
        if let (Some(x0), true) = (x0, new_n > 0) {
            c.insert(("x", 0), x0);
        }
        let (new, w, discard) = update(&old, (scale,), &c, &mut rng).unwrap();
        check_update(&old, &new, &c, w, &discard)?;
    }

    /// `update_choices` (the same arguments; in place when the graph shows what a change
    /// reaches) against `update` (a run of the model) and against brute-force re-scoring.
    #[test]
    fn update_in_place_agrees_with_a_run_and_with_the_score_difference(
        seed in 0u64..10_000,
        n in proptest::option::of(0u64..4),
        b in proptest::option::of(any::<bool>()),
        m in proptest::option::of(-2.0f64..2.0),
        x0 in proptest::option::of(-2.0f64..2.0),
        extra in proptest::option::of(0.1f64..4.0),
    ) {
        let mut rng = PplRng::seed_from_u64(seed);
        let old = simulate(shallow, (1.0,), &mut rng).unwrap();
        let c = shallow_constraints(&old, n, b, m, x0, extra);
        let (rerun, w_rerun, d_rerun) =
            update(&old, (1.0,), &c, &mut PplRng::seed_from_u64(seed + 1)).unwrap();
        let (new, w, discard) =
            update_choices(&old, &c, &mut PplRng::seed_from_u64(seed + 1)).unwrap();
        check_update(&old, &rerun, &c, w_rerun, &d_rerun)?;
        check_update(&old, &new, &c, w, &discard)?;
        check_same(&new, &rerun)?;
        prop_assert!((w - w_rerun).abs() < 1e-9, "{} vs {}", w, w_rerun);
        prop_assert_eq!(discard.to_string(), d_rerun.to_string());
        // The original trace is left as it was.
        prop_assert!(old.is_graph_current());
    }

    /// Gen's regenerate weight sums `log p'(a) - log p(a)` over the choices kept (present in
    /// both traces and not redrawn).
    #[test]
    fn regenerate_weight_is_the_kept_choices_ratio(
        seed in 0u64..10_000,
        picks in proptest::collection::vec(0usize..4, 0..3),
    ) {
        let names = ["n", "b", "x", "extra"];
        let selection = Selection::of(picks.iter().map(|&i| names[i]));
        let mut rng = PplRng::seed_from_u64(seed);
        let old = simulate(branchy, (1.0,), &mut rng).unwrap();
        let (new, w) = regenerate(&old, &selection, &mut rng).unwrap();
        let before = addresses(&old);
        let expected: f64 = new
            .addresses()
            .filter(|a| before.contains(*a) && (!selection.contains(a) || old.is_observed(*a)))
            .map(|a| new.log_density(a).unwrap() - old.log_density(a).unwrap())
            .sum();
        prop_assert!((w - expected).abs() < 1e-9, "{} vs {}", w, expected);
        // Unselected choices that remain keep their values.
        for a in new.addresses().filter(|a| before.contains(*a) && !selection.contains(a)) {
            prop_assert_eq!(
                new.choices().value(a).unwrap().to_string(),
                old.choices().value(a).unwrap().to_string()
            );
        }
    }

    /// `regenerate` (in place when the selection names choices the graph follows) against
    /// `regenerate_rerun` from the same seed, and both against the kept choices' ratio.
    #[test]
    fn regenerate_in_place_agrees_with_a_run_and_with_the_kept_choices_ratio(
        seed in 0u64..10_000,
        picks in proptest::collection::vec(0usize..6, 0..3),
    ) {
        let names: [Address; 6] = [
            "n".into(), "b".into(), "m".into(), ("x", 0).into(), "extra".into(), "x".into(),
        ];
        let selection = Selection::of(picks.iter().map(|&i| names[i].clone()));
        let mut rng = PplRng::seed_from_u64(seed);
        let old = simulate(shallow, (1.0,), &mut rng).unwrap();
        let (rerun, w_rerun) =
            regenerate_rerun(&old, &selection, &mut PplRng::seed_from_u64(seed + 1)).unwrap();
        let (new, w) = regenerate(&old, &selection, &mut PplRng::seed_from_u64(seed + 1)).unwrap();
        check_same(&new, &rerun)?;
        prop_assert!((w - w_rerun).abs() < 1e-9, "{} vs {}", w, w_rerun);
        let before = addresses(&old);
        let expected: f64 = new
            .addresses()
            .filter(|a| before.contains(*a) && (!selection.contains(a) || old.is_observed(*a)))
            .map(|a| new.log_density(a).unwrap() - old.log_density(a).unwrap())
            .sum();
        prop_assert!((w - expected).abs() < 1e-9, "{} vs {}", w, expected);
        prop_assert!(old.is_graph_current());
    }

    /// `assess` of a trace's choices is its score; `generate` with all of them is too, with
    /// the score as its weight.
    #[test]
    fn assess_and_generate_agree_with_the_score(seed in 0u64..10_000) {
        let mut rng = PplRng::seed_from_u64(seed);
        let t = simulate(branchy, (1.3,), &mut rng).unwrap();
        let mut latent = ChoiceMap::new();
        for (a, v) in t.choices().iter() {
            if a.to_string() != "y" {
                latent.insert_value(a.clone(), v.clone());
            }
        }
        let (lp, s) = assess(branchy, (1.3,), &latent).unwrap();
        prop_assert!((lp - t.score()).abs() < 1e-12);
        prop_assert_eq!(s, *t.retval());
        let (g, w) = generate(branchy, (1.3,), &latent, &mut rng).unwrap();
        prop_assert!((w - t.score()).abs() < 1e-12 && (g.score() - t.score()).abs() < 1e-12);
    }
}

/// The property tests above on 400 seeded cases, counting how often each step was computed in
/// place: both paths must be taken often, or the comparison would test one path only.
#[test]
fn in_place_steps_are_taken_and_agree_with_reruns() {
    use rand::Rng;
    let names: [Address; 6] = [
        "n".into(),
        "b".into(),
        "m".into(),
        ("x", 0).into(),
        "extra".into(),
        "x".into(),
    ];
    let (mut updates, mut regenerates) = ((0, 0), (0, 0));
    let cases = 400;
    for seed in 0..cases {
        let mut rng = PplRng::seed_from_u64(1_000 + seed);
        let old = simulate(shallow, (1.0,), &mut rng).unwrap();
        let mut maybe = |p: f64| rng.random::<f64>() < p;
        let (n, b, m, x0, extra) = (maybe(0.15), maybe(0.15), maybe(0.5), maybe(0.5), maybe(0.5));
        let c = shallow_constraints(
            &old,
            n.then(|| rng.random_range(0..4)),
            b.then(|| rng.random()),
            m.then(|| rng.random_range(-2.0..2.0)),
            x0.then(|| rng.random_range(-2.0..2.0)),
            extra.then(|| rng.random_range(0.1..4.0)),
        );
        let (rerun, w_rerun, d_rerun) =
            update(&old, (1.0,), &c, &mut PplRng::seed_from_u64(seed)).unwrap();
        let (new, w, discard) = update_choices(&old, &c, &mut PplRng::seed_from_u64(seed)).unwrap();
        check_update(&old, &new, &c, w, &discard).unwrap();
        check_same(&new, &rerun).unwrap();
        assert!((w - w_rerun).abs() < 1e-9, "{w} vs {w_rerun}");
        assert_eq!(discard.to_string(), d_rerun.to_string());
        updates.0 += 1;
        updates.1 += usize::from(!new.is_graph_current());

        let picks = rng.random_range(0..3);
        let selection = Selection::of((0..picks).map(|_| names[rng.random_range(0..6)].clone()));
        let (rerun, w_rerun) =
            regenerate_rerun(&old, &selection, &mut PplRng::seed_from_u64(seed)).unwrap();
        let (new, w) = regenerate(&old, &selection, &mut PplRng::seed_from_u64(seed)).unwrap();
        check_same(&new, &rerun).unwrap();
        assert!((w - w_rerun).abs() < 1e-9, "{w} vs {w_rerun}");
        regenerates.0 += 1;
        regenerates.1 += usize::from(!new.is_graph_current());
    }
    eprintln!(
        "in place: {} of {} updates, {} of {} regenerates",
        updates.1, updates.0, regenerates.1, regenerates.0
    );
    // Each path, for each function, in at least a fifth of the cases.
    for (all, in_place) in [updates, regenerates] {
        assert!(
            in_place * 5 >= all && (all - in_place) * 5 >= all,
            "{in_place} of {all} in place"
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_trace() {
    let a = simulate(branchy, (1.0,), &mut PplRng::seed_from_u64(5)).unwrap();
    let b = simulate(branchy, (1.0,), &mut PplRng::seed_from_u64(5)).unwrap();
    assert_eq!(a.choices().to_string(), b.choices().to_string());
    assert_eq!(a.score().to_bits(), b.score().to_bits());
}

// ---------------------------------------------------------------------------------------------
// Addresses.

#[tracked]
fn component(k: usize) -> f64 {
    sample("x", Normal::new(k as f64, 1.0)) + draw(Normal::new(0.0, 1.0))
}

#[tracked]
fn two_components() -> f64 {
    let a = component(0);
    let b = component(1);
    a + b + draw(Normal::new(0.0, 1.0))
}

#[test]
fn calls_nest_addresses_and_unnamed_draws_count_by_distribution() {
    let t = simulate(two_components, (), &mut PplRng::seed_from_u64(1)).unwrap();
    let a: Vec<String> = t.addresses().map(|a| a.to_string()).collect();
    assert_eq!(
        a,
        [
            "component/x",
            "component/normal#0",
            "component[1]/x",
            "component[1]/normal#0",
            "normal#0"
        ]
    );
    for a in t.addresses() {
        assert_eq!(Address::parse(&a.to_string()).as_ref(), Some(a));
    }
}

#[test]
fn listing_shows_each_choice_with_its_address_and_log_density() {
    let mut t = simulate(two_components, (), &mut PplRng::seed_from_u64(1)).unwrap();
    let lp = t
        .log_density(Address::parse("component[1]/x").unwrap())
        .unwrap();
    let listing = t.graph().unwrap().to_string();
    assert!(
        listing.contains(&format!(
            "\t[address = \"component[1]/x\", distribution = \"normal\", parameters = [1.0, 1.0], logpdf = {lp:?}]"
        )),
        "{listing}"
    );
}

#[tracked]
fn with_rng(rng: &mut PplRng) -> f64 {
    let u: f64 = rand::Rng::random(rng);
    u * 2.0
}

#[test]
fn a_generator_records_its_type_only() {
    let mut rng = PplRng::seed_from_u64(1);
    let trace = irtrack::track(with_rng, (&mut rng,));
    let line = format!("{:?}", trace.root().child(1).unwrap());
    assert_eq!(line, "@1: [Arg:§1:%1] _::&mut PplRng");
}

// ---------------------------------------------------------------------------------------------
// Errors.

#[test]
fn errors_are_typed() {
    let mut rng = PplRng::seed_from_u64(1);
    let twice = || sample("x", Normal::new(0.0, 1.0)) + sample("x", Normal::new(0.0, 1.0));
    assert!(matches!(
        simulate(twice, (), &mut rng),
        Err(PplError::DuplicateAddress(a)) if a.to_string() == "x"
    ));
    let bad = || sample("s", Normal::new(0.0, -1.0));
    let e = simulate(bad, (), &mut rng).unwrap_err();
    assert!(e.to_string().contains("sigma = -1 is not positive"), "{e}");
    let slash = || sample(String::from("a/b"), Normal::new(0.0, 1.0));
    assert!(matches!(
        simulate(slash, (), &mut rng),
        Err(PplError::BadAddress { .. })
    ));
    let model = || sample("x", Normal::new(0.0, 1.0));
    let wrong = ChoiceMap::new().with("x", true);
    assert!(matches!(
        generate(model, (), &wrong, &mut rng),
        Err(PplError::TypeMismatch { .. })
    ));
    let elsewhere = ChoiceMap::new().with("z", 1.0);
    assert!(matches!(
        generate(model, (), &elsewhere, &mut rng),
        Err(PplError::UnvisitedConstraints(v)) if v[0].to_string() == "z"
    ));
    let obs = |y: f64| observe("y", Normal::new(0.0, 1.0), y);
    assert!(matches!(
        generate(obs, (1.0,), &ChoiceMap::new().with("y", 2.0), &mut rng),
        Err(PplError::ObservedAndConstrained(_))
    ));
    assert!(matches!(
        assess(model, (), &ChoiceMap::new()),
        Err(PplError::MissingValue(_))
    ));
    let nan = || sample("x", Normal::new(0.0, 1.0));
    assert!(matches!(
        generate(nan, (), &ChoiceMap::new().with("x", f64::NAN), &mut rng),
        Err(PplError::NotANumber(_))
    ));
    // A literal count is converted when exact.
    let count = || sample("k", Poisson::new(2.0));
    let (t, _) = generate(count, (), &ChoiceMap::new().with("k", 3), &mut rng).unwrap();
    assert_eq!(t.value::<u64>("k"), Some(3));
}

#[test]
fn a_panicking_model_is_an_error_and_the_thread_runs_models_again() {
    let mut rng = PplRng::seed_from_u64(1);
    let boom = || -> f64 {
        let x = sample("x", Normal::new(0.0, 1.0));
        assert!(x > 100.0, "too small");
        x
    };
    assert!(matches!(simulate(boom, (), &mut rng), Err(PplError::Panicked(m)) if m == "too small"));
    let ok = simulate(|| sample("x", Normal::new(0.0, 1.0)), (), &mut rng).unwrap();
    assert_eq!(ok.len(), 1);
}

static FLIP: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[tracked]
fn hidden_randomness(data: f64) -> f64 {
    let x = sample("x", Normal::new(0.0, 1.0));
    observe("y", Normal::new(x, 1.0), data);
    // Randomness `sample` does not see decides an address.
    if FLIP.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 2 == 0 {
        sample("a", Normal::new(0.0, 1.0))
    } else {
        sample("b", Normal::new(0.0, 1.0))
    }
}

#[test]
fn a_model_with_randomness_sample_does_not_see_is_refused() {
    let mut rng = PplRng::seed_from_u64(1);
    let mut t = simulate(hidden_randomness, (0.5,), &mut rng).unwrap();
    let mut moved = false;
    for _ in 0..20 {
        let (next, accepted) = mh(t, &Selection::of(["x"]), &mut rng).unwrap();
        t = next;
        moved |= accepted;
    }
    assert!(moved && !t.is_graph_current());
    assert!(matches!(t.graph(), Err(PplError::NotReproducible(_))));
}

// ---------------------------------------------------------------------------------------------
// In place or not, the answer is the same.

#[tracked]
fn captured(y: f64) -> f64 {
    let x = sample("x", Normal::new(0.0, 1.0));
    let shift = irtrack::tracked_fn!(|v: f64| -> f64 { v + x });
    let m = shift(0.0);
    observe("y", Normal::new(m, 1.0), y);
    m
}

#[test]
fn a_closure_capturing_a_choice_runs_the_model_again() {
    // The closure's use of `x` is not an edge of the graph: an update in place could not see
    // that `y`'s distribution depends on `x`, so the step must run the model.
    let mut rng = PplRng::seed_from_u64(3);
    let (mut t, _) = generate(captured, (2.0,), &ChoiceMap::new(), &mut rng).unwrap();
    for _ in 0..30 {
        t = mh(t, &Selection::of(["x"]), &mut rng).unwrap().0;
        assert!(t.is_graph_current());
        let x = t.value::<f64>("x").unwrap();
        let expected =
            Normal::new(x, 1.0).log_density(&2.0) + Normal::new(0.0, 1.0).log_density(&x);
        assert!((t.score() - expected).abs() < 1e-12);
    }
}

// `x`'s sign reaches the observation only as the sign of a zero in a vector: `x * 0.0` is
// `-0.0` for a negative `x`, and `1.0 / v[0]` is then `-∞`. A `Vec` on purpose: the step
// compares vectors of floats apart from scalars.
#[allow(clippy::useless_vec)]
#[tracked]
fn signed_zero(y: f64) {
    let x = sample("x", Normal::new(0.0, 1.0));
    let v = vec![x * 0.0];
    let s = (1.0 / v[0]).signum();
    observe("y", Normal::new(s, 1.0), y);
}

#[test]
fn an_in_place_step_tells_minus_zero_from_zero_in_a_vector() {
    // `[-0.0] == [0.0]` as vectors of f64: an in-place step comparing them so would stop at
    // `v`, keep `y`'s old log-density, and give a score the choices do not have.
    let mut rng = PplRng::seed_from_u64(81);
    let mut t = simulate(signed_zero, (1.0,), &mut rng).unwrap();
    let mut flips = 0;
    for _ in 0..100 {
        let before = t.value::<f64>("x").unwrap().is_sign_negative();
        t = mh(t, &Selection::of(["x"]), &mut rng).unwrap().0;
        let x = t.value::<f64>("x").unwrap();
        flips += usize::from(x.is_sign_negative() != before);
        let (score, ()) = assess(signed_zero, (1.0,), &ChoiceMap::new().with("x", x)).unwrap();
        assert!(
            (t.score() - score).abs() < 1e-12,
            "{} vs {score}",
            t.score()
        );
    }
    // Both signs were visited, and the steps were taken in place.
    assert!(flips > 5, "{flips} sign changes");
    assert!(!t.is_graph_current());
}

// A choice's address can also be the prefix of others: selecting `x` selects `x[1]` too.
#[tracked]
fn prefix_and_below() {
    sample("x", Normal::new(0.0, 1.0));
    sample(("x", 1), Normal::new(0.0, 1.0));
}

#[test]
fn selecting_an_address_resamples_the_choices_below_it_in_place_too() {
    let mut rng = PplRng::seed_from_u64(91);
    let t = simulate(prefix_and_below, (), &mut rng).unwrap();
    let below = t.value::<f64>(("x", 1)).unwrap();
    // Resimulating choices no observation scores is always accepted: both change.
    let (a, accepted) = mh(t, &Selection::of(["x"]), &mut rng).unwrap();
    assert!(accepted);
    assert_ne!(a.value::<f64>(("x", 1)).unwrap(), below);
    let mut b = simulate(prefix_and_below, (), &mut PplRng::seed_from_u64(91)).unwrap();
    let mut rng = PplRng::seed_from_u64(92);
    let mut rerun = simulate(prefix_and_below, (), &mut PplRng::seed_from_u64(91)).unwrap();
    let mut rng2 = PplRng::seed_from_u64(92);
    for _ in 0..5 {
        b = mh(b, &Selection::of(["x"]), &mut rng).unwrap().0;
        rerun = mh_rerun(rerun, &Selection::of(["x"]), &mut rng2).unwrap().0;
        assert_eq!(b.choices().to_string(), rerun.choices().to_string());
    }
}

// A line through noisy points; the second model takes a branch on `b`, which an update in place
// follows only while the branch taken stays the same.
#[tracked]
fn slope(xs: Vec<f64>, ys: Vec<f64>) {
    let a = sample("a", Normal::new(0.0, 2.0));
    let b = sample("b", Normal::new(0.0, 2.0));
    for i in 0..xs.len() {
        observe(("y", i), Normal::new(a + b * xs[i], 0.5), ys[i]);
    }
}

#[tracked]
fn kinked(xs: Vec<f64>, ys: Vec<f64>) {
    let a = sample("a", Normal::new(0.0, 2.0));
    let b = sample("b", Normal::new(0.0, 2.0));
    let sd = if b > 0.0 { 0.5 } else { 0.7 };
    for i in 0..xs.len() {
        observe(("y", i), Normal::new(a + b * xs[i], sd), ys[i]);
    }
}

#[test]
fn hmc_scores_in_place_as_a_run_of_the_model_would() {
    let xs = vec![-1.0, -0.5, 0.0, 0.5, 1.0];
    let ys = vec![-0.4, 0.1, 0.7, 1.0, 1.6];
    let config = irtrack::ppl::Hmc {
        step_size: 0.05,
        steps: 5,
    };
    let both = Selection::of(["a", "b"]);
    let brute = |a: f64, b: f64| {
        let c = ChoiceMap::new().with("a", a).with("b", b);
        assess(slope, (xs.clone(), ys.clone()), &c).unwrap().0
    };
    let mut rng = PplRng::seed_from_u64(101);
    let mut t = simulate(slope, (xs.clone(), ys.clone()), &mut rng).unwrap();
    let mut accepted = 0;
    for _ in 0..40 {
        let (next, ok) = irtrack::ppl::hmc(t, &both, &config, &mut rng).unwrap();
        t = next;
        accepted += usize::from(ok);
        let (a, b) = (t.value::<f64>("a").unwrap(), t.value::<f64>("b").unwrap());
        assert!((t.score() - brute(a, b)).abs() < 1e-9);
    }
    // The steps were taken in place, and moved.
    assert!(
        accepted > 30 && !t.is_graph_current(),
        "{accepted} accepted"
    );

    // Flat data: `b` is near 0 and the chain crosses the kink, where the step in place gives up
    // and runs the model.
    let flat = vec![0.3, 0.2, 0.35, 0.25, 0.3];
    let brute_flat = |a: f64, b: f64| {
        let c = ChoiceMap::new().with("a", a).with("b", b);
        assess(kinked, (xs.clone(), flat.clone()), &c).unwrap().0
    };
    let mut t = simulate(kinked, (xs.clone(), flat.clone()), &mut rng).unwrap();
    let (mut accepted, mut crossings) = (0, 0);
    for _ in 0..60 {
        let before = t.value::<f64>("b").unwrap() > 0.0;
        let (next, ok) = irtrack::ppl::hmc(t, &both, &config, &mut rng).unwrap();
        t = next;
        accepted += usize::from(ok);
        let (a, b) = (t.value::<f64>("a").unwrap(), t.value::<f64>("b").unwrap());
        crossings += usize::from((b > 0.0) != before);
        assert!((t.score() - brute_flat(a, b)).abs() < 1e-9);
    }
    assert!(
        accepted > 40 && crossings > 3,
        "{accepted} accepted, {crossings} crossings"
    );
}

// ---------------------------------------------------------------------------------------------
// The gradient HMC steers by, against the closed form of the log joint.

// Normal-Normal: mu ~ N(0, 2), y_i ~ N(mu, 1).
#[tracked]
fn normal_normal(ys: Vec<f64>) {
    let mu = sample("mu", Normal::new(0.0, 2.0));
    for (i, &y) in ys.iter().enumerate() {
        observe(("y", i), Normal::new(mu, 1.0), y);
    }
}

/// `d/dmu` of `log N(mu; 0, 2) + Σ log N(y_i; mu, 1)`.
fn normal_normal_gradient(mu: f64, ys: &[f64]) -> f64 {
    -mu / 4.0 + ys.iter().map(|y| y - mu).sum::<f64>()
}

/// `(d/da, d/db)` of `slope`'s log joint: `a, b ~ N(0, 2)`, `y_i ~ N(a + b x_i, 0.5)`.
fn slope_gradient(a: f64, b: f64, xs: &[f64], ys: &[f64]) -> (f64, f64) {
    let r: Vec<f64> = xs.iter().zip(ys).map(|(x, y)| y - a - b * x).collect();
    let da = -a / 4.0 + r.iter().sum::<f64>() / 0.25;
    let db = -b / 4.0 + r.iter().zip(xs).map(|(r, x)| r * x).sum::<f64>() / 0.25;
    (da, db)
}

// The regression through a tracked helper and a loop-carried sum of squares scored as a
// factor-free observation: the sweep follows calls, block arguments and a branch taken.
#[tracked]
fn predict(a: f64, b: f64, x: f64) -> f64 {
    a + b * x
}

#[tracked]
fn slope_in_calls(xs: Vec<f64>, ys: Vec<f64>) -> f64 {
    let a = sample("a", Normal::new(0.0, 2.0));
    let b = sample("b", Normal::new(0.0, 2.0));
    let mut last = 0.0;
    for i in 0..xs.len() {
        let m = predict(a, b, xs[i]);
        let sd = if b > 100.0 { 1.0 } else { 0.5 };
        observe(("y", i), Normal::new(m, sd), ys[i]);
        last = m;
    }
    last
}

// `slope` returning `b`: a change of `a` is made in place, one of `b` reaches the return and
// runs the model.
#[tracked]
fn slope_returning_b(xs: Vec<f64>, ys: Vec<f64>) -> f64 {
    let a = sample("a", Normal::new(0.0, 2.0));
    let b = sample("b", Normal::new(0.0, 2.0));
    for i in 0..xs.len() {
        observe(("y", i), Normal::new(a + b * xs[i], 0.5), ys[i]);
    }
    b
}

// A location and a log-scale: `m ~ N(0, 2)`, `s ~ N(0, 1)`, `y_i ~ N(m, exp(s))`. Its
// gradient depends on intermediate values (`exp(s)`), so at a point set in place the rules must
// read the values recomputed there, not the recorded ones.
#[tracked]
fn log_scale(ys: Vec<f64>) {
    let m = sample("m", Normal::new(0.0, 2.0));
    let s = sample("s", Normal::new(0.0, 1.0));
    let sd = s.exp();
    for (i, &y) in ys.iter().enumerate() {
        observe(("y", i), Normal::new(m, sd), y);
    }
}

/// `(d/dm, d/ds)` of `log_scale`'s log joint.
fn log_scale_gradient(m: f64, s: f64, ys: &[f64]) -> (f64, f64) {
    let w = (-2.0 * s).exp();
    let dm = -m / 4.0 + ys.iter().map(|y| (y - m) * w).sum::<f64>();
    let ds = -s + ys.iter().map(|y| (y - m) * (y - m) * w - 1.0).sum::<f64>();
    (dm, ds)
}

#[tracked]
fn factored(y: f64) {
    let mu = sample("mu", Normal::new(0.0, 2.0));
    irtrack::ppl::factor(-(mu - y) * (mu - y) / 2.0);
}

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-10 * want.abs().max(1.0)
}

#[test]
fn the_gradient_hmc_uses_is_the_closed_form_one() {
    use irtrack::ppl::{score_gradient, update_choices, GradientMethod};
    use rand::Rng;
    let ys = vec![0.3, -0.4, 1.2, 0.8, 0.1];
    let xs = vec![-1.0, -0.5, 0.0, 0.5, 1.0];
    let ly = vec![-0.4, 0.1, 0.7, 1.0, 1.6];
    for seed in 0..20 {
        let mut rng = PplRng::seed_from_u64(seed);
        // At the recorded values, and (after an update in place, whose graph is stale) at
        // values the graph did not record: the latter on the graph with the values the update
        // computed beside it.
        let t = simulate(normal_normal, (ys.clone(),), &mut rng).unwrap();
        let mu = rng.random_range(-3.0..3.0);
        let (u, _, _) = update_choices(&t, &ChoiceMap::new().with("mu", mu), &mut rng).unwrap();
        assert!(!u.is_graph_current());
        for t in [&t, &u] {
            let g = score_gradient(t, &Selection::of(["mu"])).unwrap();
            assert_eq!(g.method, GradientMethod::Graph);
            let want = normal_normal_gradient(t.value::<f64>("mu").unwrap(), &ys);
            assert!(close(g.values[0], want), "{} vs {want}", g.values[0]);
        }

        let both = Selection::of(["a", "b"]);
        let t = simulate(slope, (xs.clone(), ly.clone()), &mut rng).unwrap();
        let c = ChoiceMap::new()
            .with("a", rng.random_range(-3.0..3.0))
            .with("b", rng.random_range(-3.0..3.0));
        let (u, _, _) = update_choices(&t, &c, &mut rng).unwrap();
        let v = simulate(slope_in_calls, (xs.clone(), ly.clone()), &mut rng).unwrap();
        // A stale graph where the update to the point cannot be made in place (`b` reaches
        // the return): the gradient is taken on a run of the model there.
        let r = simulate(slope_returning_b, (xs.clone(), ly.clone()), &mut rng).unwrap();
        let a = ChoiceMap::new().with("a", rng.random_range(-3.0..3.0));
        let (r, _, _) = update_choices(&r, &a, &mut rng).unwrap();
        assert!(!r.is_graph_current());
        macro_rules! ab {
            ($t:expr) => {
                ($t.value::<f64>("a").unwrap(), $t.value::<f64>("b").unwrap())
            };
        }
        let cases = [
            (score_gradient(&t, &both).unwrap(), ab!(t)),
            (score_gradient(&u, &both).unwrap(), ab!(u)),
            (score_gradient(&v, &both).unwrap(), ab!(v)),
            (score_gradient(&r, &both).unwrap(), ab!(r)),
        ];
        for (g, (a, b)) in cases {
            assert_eq!(g.method, GradientMethod::Graph);
            let (da, db) = slope_gradient(a, b, &xs, &ly);
            assert!(
                close(g.values[0], da) && close(g.values[1], db),
                "{:?} vs {da}, {db}",
                g.values
            );
        }
        // Only `b` selected: `a` is a constant.
        let g = score_gradient(&t, &Selection::of(["b"])).unwrap();
        let (a, b) = (t.value::<f64>("a").unwrap(), t.value::<f64>("b").unwrap());
        assert!(close(g.values[0], slope_gradient(a, b, &xs, &ly).1));

        let t = simulate(log_scale, (ys.clone(),), &mut rng).unwrap();
        let c = ChoiceMap::new()
            .with("m", rng.random_range(-2.0..2.0))
            .with("s", rng.random_range(-1.0..1.0));
        let (u, _, _) = update_choices(&t, &c, &mut rng).unwrap();
        assert!(!u.is_graph_current());
        let sel = Selection::of(["m", "s"]);
        for t in [&t, &u] {
            let g = score_gradient(t, &sel).unwrap();
            assert_eq!(g.method, GradientMethod::Graph);
            let (m, s) = (t.value::<f64>("m").unwrap(), t.value::<f64>("s").unwrap());
            let (dm, ds) = log_scale_gradient(m, s, &ys);
            assert!(
                close(g.values[0], dm) && close(g.values[1], ds),
                "{:?} vs {dm}, {ds}",
                g.values
            );
        }
    }
}

#[test]
fn a_score_the_graph_cannot_differentiate_falls_back_to_finite_differences_and_says_why() {
    use irtrack::ppl::{score_gradient, GradientMethod};
    let t = simulate(factored, (1.5,), &mut PplRng::seed_from_u64(3)).unwrap();
    let g = score_gradient(&t, &Selection::of(["mu"])).unwrap();
    let mu = t.value::<f64>("mu").unwrap();
    let want = -mu / 4.0 - (mu - 1.5);
    assert!(
        matches!(&g.method, GradientMethod::FiniteDifferences { reason } if reason.contains("factor")),
        "{:?}",
        g.method
    );
    assert!(
        (g.values[0] - want).abs() < 1e-6,
        "{} vs {want}",
        g.values[0]
    );
    // A model that is not tracked: no graph nodes.
    let closure = |y: f64| {
        let mu = sample("mu", Normal::new(0.0, 2.0));
        observe("y", Normal::new(mu, 1.0), y);
    };
    let t = simulate(closure, (1.5,), &mut PplRng::seed_from_u64(3)).unwrap();
    let g = score_gradient(&t, &Selection::of(["mu"])).unwrap();
    assert!(matches!(g.method, GradientMethod::FiniteDifferences { .. }));
    let mu = t.value::<f64>("mu").unwrap();
    assert!((g.values[0] - (-mu / 4.0 + 1.5 - mu)).abs() < 1e-6);
    // Outside a support the gradient is not defined, and says so.
    #[tracked]
    fn bounded(y: f64) {
        let x = sample("x", Uniform::new(0.0, 1.0));
        observe("y", Exponential::new(x), y);
    }
    let t = simulate(bounded, (2.0,), &mut PplRng::seed_from_u64(4)).unwrap();
    let (u, _, _) = irtrack::ppl::update_choices(
        &t,
        &ChoiceMap::new().with("x", 1.5),
        &mut PplRng::seed_from_u64(5),
    )
    .unwrap();
    assert_eq!(u.score(), f64::NEG_INFINITY);
    let g = score_gradient(&u, &Selection::of(["x"])).unwrap();
    assert!(
        matches!(&g.method, GradientMethod::Undefined { reason } if reason.contains("not finite")),
        "{:?}",
        g.method
    );
    assert_eq!(g.values, [0.0]);
    // Inside, the exponential's rate is the choice: d/dx (ln x - x y) = 1/x - y.
    let g = score_gradient(&t, &Selection::of(["x"])).unwrap();
    let x = t.value::<f64>("x").unwrap();
    assert_eq!(g.method, GradientMethod::Graph);
    assert!(
        close(g.values[0], 1.0 / x - 2.0),
        "{} vs {}",
        g.values[0],
        1.0 / x - 2.0
    );
}

#[test]
fn an_hmc_chain_is_deterministic_given_its_seed() {
    let xs = vec![-1.0, -0.5, 0.0, 0.5, 1.0];
    let ys = vec![-0.4, 0.1, 0.7, 1.0, 1.6];
    let config = irtrack::ppl::Hmc {
        step_size: 0.05,
        steps: 5,
    };
    let chain = |model_calls: bool| {
        let mut rng = PplRng::seed_from_u64(7);
        let mut values = Vec::new();
        if model_calls {
            let mut t = simulate(slope_in_calls, (xs.clone(), ys.clone()), &mut rng).unwrap();
            for _ in 0..30 {
                t = irtrack::ppl::hmc(t, &Selection::of(["a", "b"]), &config, &mut rng)
                    .unwrap()
                    .0;
                values.push((
                    t.value::<f64>("a").unwrap().to_bits(),
                    t.value::<f64>("b").unwrap().to_bits(),
                ));
            }
        } else {
            let mut t = simulate(slope, (xs.clone(), ys.clone()), &mut rng).unwrap();
            for _ in 0..30 {
                t = irtrack::ppl::hmc(t, &Selection::of(["a", "b"]), &config, &mut rng)
                    .unwrap()
                    .0;
                values.push((
                    t.value::<f64>("a").unwrap().to_bits(),
                    t.value::<f64>("b").unwrap().to_bits(),
                ));
            }
        }
        values
    };
    for calls in [false, true] {
        let (a, b) = (chain(calls), chain(calls));
        assert_eq!(a, b);
        // It moved.
        assert!(a.windows(2).filter(|w| w[0] != w[1]).count() > 20);
    }
}

// ---------------------------------------------------------------------------------------------
// What a model debugger sees.

#[tracked]
fn geom(p: f64) -> u64 {
    if sample("stop", Bernoulli::new(p)) {
        0
    } else {
        1 + geom(p)
    }
}

#[tracked]
fn debugged(y: f64) -> u64 {
    let n = geom(0.3);
    let w = sample("w", Dirichlet::new(vec![1.0, 2.0, 3.0]));
    let k = sample("k", Categorical::new(w.clone()));
    let m = sample(
        "m",
        MvNormal::new(vec![0.0, 0.0], vec![vec![1.0, 0.5], vec![0.5, 2.0]]),
    );
    observe("y", Normal::new(n as f64 + m[0] + k as f64, 1.0), y);
    n
}

#[test]
fn a_saved_trace_reloads_and_scores() {
    let mut t = simulate(debugged, (2.0,), &mut PplRng::seed_from_u64(9)).unwrap();
    let score = t.score();
    let json = t.graph().unwrap().to_json();
    let back = Trace::from_json(&json).unwrap();
    let scored = score_graph(&back).unwrap();
    assert_eq!(scored.choices.len(), t.len());
    assert!(
        (scored.score - score).abs() < 1e-12,
        "{} vs {score}",
        scored.score
    );
    // Addresses, distributions, parameters and log-densities come back typed.
    let node = back
        .nodes()
        .find(|n| n.metadata::<String>("address").map(String::as_str) == Some("geom/stop"))
        .unwrap();
    assert_eq!(
        node.metadata::<String>("distribution").unwrap(),
        "bernoulli"
    );
    assert_eq!(node.metadata::<Vec<f64>>("parameters").unwrap(), &vec![0.3]);
    assert!(node.metadata::<f64>("logpdf").is_some());
    assert_eq!(back.to_string(), t.graph().unwrap().to_string());
}

#[test]
fn dot_highlights_choices_and_observations() {
    let mut t = simulate(debugged, (2.0,), &mut PplRng::seed_from_u64(9)).unwrap();
    let dot = irtrack::ppl::dot(t.graph().unwrap());
    assert_eq!(dot.matches("fillcolor=salmon").count(), 1);
    assert_eq!(dot.matches("fillcolor=lightblue").count(), t.len() - 1);
    assert!(dot.contains("\\n[address = \\\"w\\\", distribution = \\\"dirichlet\\\""));
}

// ---------------------------------------------------------------------------------------------
// Distributions: rand_distr's draws against statrs's (or our) densities.

/// Draws `n` values and compares the share in each bin with the integral of the density
/// there: each bin with at least 20 expected draws must be within 5 binomial
/// standard deviations.
fn check_continuous<D: Distribution<Value = f64>>(d: D, lo: f64, hi: f64, seed: u64) {
    let (n, bins) = (20_000usize, 20usize);
    let mut rng = PplRng::seed_from_u64(seed);
    let mut counts = vec![0usize; bins];
    for _ in 0..n {
        let x = d.draw(&mut rng);
        assert!(
            d.log_density(&x) > f64::NEG_INFINITY,
            "{d:?} drew {x} outside its support"
        );
        if (lo..hi).contains(&x) {
            counts[((x - lo) / (hi - lo) * bins as f64) as usize] += 1;
        }
    }
    let width = (hi - lo) / bins as f64;
    for (b, &count) in counts.iter().enumerate() {
        // The midpoint rule: it never evaluates a pole at a bin's edge (Gamma(0.8) at 0).
        let (a, steps) = (lo + b as f64 * width, 1000);
        let h = width / steps as f64;
        let p: f64 = (0..steps)
            .map(|i| d.log_density(&(a + (i as f64 + 0.5) * h)).exp() * h)
            .sum();
        let expected = p * n as f64;
        if expected < 20.0 {
            continue;
        }
        let z = (count as f64 - expected) / (expected * (1.0 - p)).sqrt();
        assert!(
            z.abs() < 5.0,
            "{d:?}, bin {b}: {count} draws, {expected:.1} expected"
        );
    }
}

fn check_discrete<D: Distribution>(d: D, values: &[D::Value], seed: u64)
where
    D::Value: PartialEq,
{
    let n = 20_000usize;
    let mut rng = PplRng::seed_from_u64(seed);
    let draws: Vec<D::Value> = (0..n).map(|_| d.draw(&mut rng)).collect();
    for v in values {
        let p = d.log_density(v).exp();
        let count = draws.iter().filter(|x| *x == v).count() as f64;
        let sd = (n as f64 * p * (1.0 - p)).sqrt().max(1.0);
        assert!(
            (count - n as f64 * p).abs() < 5.0 * sd,
            "{d:?} at {v:?}: {count} draws, {} expected",
            n as f64 * p
        );
    }
    let total: f64 = values.iter().map(|v| d.log_density(v).exp()).sum();
    assert!(
        total > 0.99,
        "{d:?}: the values checked hold {total} of the mass"
    );
}

#[test]
fn draws_match_densities() {
    check_continuous(Normal::new(1.0, 2.0), -7.0, 9.0, 1);
    check_continuous(Uniform::new(-1.0, 3.0), -1.0, 3.0, 2);
    check_continuous(Beta::new(2.0, 5.0), 0.0, 1.0, 3);
    check_continuous(Beta::new(0.7, 0.9), 0.0, 1.0, 4);
    check_continuous(Gamma::new(2.5, 1.5), 0.0, 15.0, 5);
    check_continuous(Gamma::new(0.8, 1.0), 0.0, 6.0, 6);
    check_continuous(Exponential::new(1.5), 0.0, 5.0, 7);
    check_discrete(Bernoulli::new(0.3), &[true, false], 8);
    check_discrete(Poisson::new(3.5), &(0..16).collect::<Vec<u64>>(), 9);
    check_discrete(Poisson::new(30.0), &(5..70).collect::<Vec<u64>>(), 10);
    check_discrete(Geometric::new(0.35), &(0..20).collect::<Vec<u64>>(), 11);
    check_discrete(Categorical::new(vec![0.1, 0.6, 0.3]), &[0, 1, 2], 12);
}

#[test]
fn dirichlet_and_mvnormal_draws_match_their_densities() {
    // A Dirichlet's first coordinate is Beta(a0, sum - a0).
    let alpha = vec![1.5, 2.0, 3.5];
    let mut rng = PplRng::seed_from_u64(13);
    let d = Dirichlet::new(alpha.clone());
    let beta = Beta::new(1.5, 5.5);
    let (n, bins) = (20_000, 10);
    let mut counts = vec![0usize; bins];
    for _ in 0..n {
        let x = d.draw(&mut rng);
        assert!(d.log_density(&x).is_finite());
        counts[((x[0] * bins as f64) as usize).min(bins - 1)] += 1;
    }
    for (b, &c) in counts.iter().enumerate() {
        let (lo, hi) = (b as f64 / bins as f64, (b + 1) as f64 / bins as f64);
        let steps = 200;
        let h = (hi - lo) / steps as f64;
        let p: f64 = (0..steps)
            .map(|i| beta.log_density(&(lo + (i as f64 + 0.5) * h)).exp() * h)
            .sum();
        let z = (c as f64 - p * n as f64) / (n as f64 * p * (1.0 - p)).sqrt();
        assert!(z.abs() < 5.0, "Dirichlet bin {b}: {c} vs {}", p * n as f64);
    }
    // The density integrates to 1 on the simplex (a grid over the first two coordinates).
    let steps = 400;
    let h = 1.0 / steps as f64;
    let mut mass = 0.0;
    for i in 0..steps {
        for j in 0..steps {
            let (a, b) = ((i as f64 + 0.5) * h, (j as f64 + 0.5) * h);
            if a + b < 1.0 {
                mass += d.log_density(&vec![a, b, 1.0 - a - b]).exp() * h * h;
            }
        }
    }
    assert!((mass - 1.0).abs() < 0.01, "Dirichlet mass {mass}");

    // MvNormal: sample moments, and the density against the bivariate formula.
    let cov = vec![vec![2.0, 0.6], vec![0.6, 1.0]];
    let m = MvNormal::new(vec![1.0, -1.0], cov.clone());
    let draws: Vec<Vec<f64>> = (0..n).map(|_| m.draw(&mut rng)).collect();
    let mean0 = draws.iter().map(|x| x[0]).sum::<f64>() / n as f64;
    let mean1 = draws.iter().map(|x| x[1]).sum::<f64>() / n as f64;
    let c01 = draws
        .iter()
        .map(|x| (x[0] - mean0) * (x[1] - mean1))
        .sum::<f64>()
        / n as f64;
    let v0 = draws.iter().map(|x| (x[0] - mean0).powi(2)).sum::<f64>() / n as f64;
    assert!((mean0 - 1.0).abs() < 5.0 * (2.0f64 / n as f64).sqrt());
    assert!((mean1 + 1.0).abs() < 5.0 * (1.0 / n as f64).sqrt());
    assert!(
        (v0 - 2.0).abs() < 0.1 && (c01 - 0.6).abs() < 0.06,
        "{v0} {c01}"
    );
    let (x, y) = (0.3, 0.2);
    let (s1, s2, rho) = (2f64.sqrt(), 1.0, 0.6 / 2f64.sqrt());
    let (dx, dy) = ((x - 1.0) / s1, (y + 1.0) / s2);
    let q = (dx * dx - 2.0 * rho * dx * dy + dy * dy) / (1.0 - rho * rho);
    let exact = -(2.0 * std::f64::consts::PI * s1 * s2 * (1.0 - rho * rho).sqrt()).ln() - q / 2.0;
    assert!((m.log_density(&vec![x, y]) - exact).abs() < 1e-12);
    assert!(
        MvNormal::new(vec![0.0, 0.0], vec![vec![1.0, 2.0], vec![2.0, 1.0]])
            .check()
            .is_err()
    );
}

#[tracked]
fn observes(y: Vec<f64>) {
    let m = sample("m", Normal::new(0.0, 1.0));
    let cov = vec![vec![1.0, 0.0], vec![0.0, 1.0]];
    observe("y", MvNormal::new(vec![m, m], cov), y);
}

/// An observation whose value changes goes to the discard with its old value, also from
/// `[0.0, 1.0]` to `[-0.0, 1.0]` (vectors were compared with `==`, which calls them the same,
/// and the discard lost the old value).
#[test]
fn an_observation_changed_to_minus_zero_is_discarded() {
    let mut rng = PplRng::seed_from_u64(3);
    let old = simulate(observes, (vec![0.0, 1.0],), &mut rng).unwrap();
    let (_, _, discard) = update(&old, (vec![-0.0, 1.0],), &ChoiceMap::new(), &mut rng).unwrap();
    let y = discard.iter().find(|(a, _)| a.to_string() == "y");
    let old_y = y.and_then(|(_, v)| v.floats().map(|f| f.into_owned()));
    let old_y = old_y.expect("y's old value is discarded");
    assert_eq!(old_y[0].to_bits(), 0.0f64.to_bits());
    let (_, _, discard) = update(&old, (vec![0.0, 1.0],), &ChoiceMap::new(), &mut rng).unwrap();
    assert!(discard.iter().all(|(a, _)| a.to_string() != "y"));
}

// ---------------------------------------------------------------------------------------------
// One address observed on one path and sampled on another (a tester, 2026-11-27): the new
// choice inherited the previous one's origin. A sample took the observation's value, stayed
// observed and was never drawn again (an MH chain gave P(b) = 0.50 for the exact 0.0044), and
// `regenerate` counted a latent choice that became an observation in the old weight.

#[tracked]
fn observed_or_sampled() {
    let b = sample("b", Bernoulli::new(0.5));
    if b {
        observe("y", Normal::new(0.0, 1.0), 3.0);
    } else {
        sample("y", Normal::new(0.0, 1.0));
    }
}

#[tracked]
fn observed_if(flag: bool) {
    let mu = sample("mu", Normal::new(0.0, 1.0));
    if flag {
        observe("y", Normal::new(mu, 1.0), 2.0);
    } else {
        sample("y", Normal::new(mu, 1.0));
    }
}

fn ln_std_normal(x: f64) -> f64 {
    -0.5 * x * x - 0.5 * (2.0 * std::f64::consts::PI).ln()
}

#[test]
fn a_latent_choice_that_becomes_an_observation_leaves_the_old_weight() {
    let mut rng = PplRng::seed_from_u64(11);
    let t0 = loop {
        let t = simulate(observed_or_sampled, (), &mut rng).unwrap();
        if t.value::<bool>("b") == Some(false) {
            break t;
        }
    };
    let (u, w) = (0..)
        .map(|s| regenerate(&t0, &Selection::of(["b"]), &mut PplRng::seed_from_u64(s)).unwrap())
        .find(|(u, _)| u.value::<bool>("b") == Some(true))
        .unwrap();
    assert!(u.is_observed("y"));
    // p(t') q(t | t') / (p(t) q(t' | t)) = [.5 N(3)] [.5 N(y0)] / ([.5 N(y0)] [.5]) = N(3).
    assert!((w - ln_std_normal(3.0)).abs() < 1e-9, "{w}");
    // And back: the observation is gone, y drawn from its prior (its density in neither).
    let (back, w_back) = (0..)
        .map(|s| regenerate(&u, &Selection::of(["b"]), &mut PplRng::seed_from_u64(s)).unwrap())
        .find(|(v, _)| v.value::<bool>("b") == Some(false))
        .unwrap();
    assert!(!back.is_observed("y"));
    assert!((w_back + ln_std_normal(3.0)).abs() < 1e-9, "{w_back}");
}

#[test]
fn mh_on_a_branch_between_data_and_a_latent_choice_finds_the_posterior() {
    // b = 1 weighs .5 N(3; 0, 1); b = 0 weighs .5 (y integrates out).
    let n3 = ln_std_normal(3.0).exp();
    let exact = n3 / (n3 + 1.0);
    let mut rng = PplRng::seed_from_u64(11);
    let mut t = simulate(observed_or_sampled, (), &mut rng).unwrap();
    let n = 20_000;
    let mut hits = 0usize;
    for _ in 0..n {
        t = mh(t, &Selection::of(["b"]), &mut rng).unwrap().0;
        hits += t.value::<bool>("b").unwrap() as usize;
    }
    let p = hits as f64 / n as f64;
    assert!((p - exact).abs() < 0.01, "P(b) = {p}, exact {exact}");
}

#[test]
fn update_to_arguments_that_sample_an_observed_address_makes_it_latent() {
    let mut rng = PplRng::seed_from_u64(1);
    let t = simulate(observed_if, (true,), &mut rng).unwrap();
    let (mut u, w, _) = update(&t, (false,), &ChoiceMap::new(), &mut rng).unwrap();
    assert!(!u.is_observed("y"));
    // The observation left the density, the new y was drawn from its prior: the weight is
    // minus the observation's log-density.
    let mu: f64 = t.value("mu").unwrap();
    assert!((w - -ln_std_normal(2.0 - mu)).abs() < 1e-9, "{w}");
    // The prior again: y ~ N(mu, 1), mu ~ N(0, 1), both means 0.
    let (mut sy, mut smu) = (0.0, 0.0);
    for _ in 0..4000 {
        u = mh(u, &Selection::all(), &mut rng).unwrap().0;
        sy += u.value::<f64>("y").unwrap();
        smu += u.value::<f64>("mu").unwrap();
    }
    assert!(
        (sy / 4000.0).abs() < 0.3 && (smu / 4000.0).abs() < 0.3,
        "{sy} {smu}"
    );
}

/// `score_graph` scores what the graph holds: it gave a wrong total with no error for
/// choices made in an untracked helper (2 of 5 choices scored), for a model that is a closure
/// (0, for -1.89), and for a user's distribution named like a built-in one (scored as
/// `Normal { sigma: tau }`). Each is now refused by name (a tester, 2026-11-27).
fn helper_choice(mu: f64) -> f64 {
    sample("h", Normal::new(mu, 2.0))
}

#[tracked]
fn with_untracked_helper(y: f64) {
    let x = sample("x", Normal::new(0.0, 1.0));
    let h = helper_choice(x);
    observe("y", Normal::new(h, 1.0), y);
}

/// N(mu, 1/tau), named `"normal"` with parameters `[mu, tau]`.
#[derive(Clone, Debug)]
struct NormalPrecision {
    mu: f64,
    tau: f64,
}

impl Distribution for NormalPrecision {
    type Value = f64;
    fn name(&self) -> &'static str {
        "normal"
    }
    fn parameters(&self) -> Vec<f64> {
        vec![self.mu, self.tau]
    }
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
    fn draw(&self, rng: &mut PplRng) -> f64 {
        self.mu + Normal::new(0.0, 1.0).draw(rng) / self.tau.sqrt()
    }
    fn log_density(&self, x: &f64) -> f64 {
        0.5 * self.tau.ln()
            - 0.5 * (2.0 * std::f64::consts::PI).ln()
            - 0.5 * self.tau * (x - self.mu).powi(2)
    }
}

#[tracked]
fn with_user_distribution() -> f64 {
    sample("x", NormalPrecision { mu: 0.0, tau: 4.0 })
}

#[test]
fn score_graph_refuses_a_graph_without_every_choice() {
    let unscorable = |r: Result<_, PplError>, address: &str| match r {
        Err(PplError::Unscorable { address: a, reason }) => {
            assert_eq!(a, address, "{reason}")
        }
        r => panic!("{:?}", r.map(|s: irtrack::ppl::GraphScore| s.score)),
    };
    let mut t = simulate(with_untracked_helper, (0.3,), &mut PplRng::seed_from_u64(3)).unwrap();
    unscorable(score_graph(t.graph().unwrap()), "h");
    let closure = |y: f64| {
        let x = sample("x", Normal::new(0.0, 1.0));
        observe("y", Normal::new(x, 1.0), y);
    };
    let mut t = simulate(closure, (0.3,), &mut PplRng::seed_from_u64(3)).unwrap();
    unscorable(score_graph(t.graph().unwrap()), "x");
    let mut t = simulate(with_user_distribution, (), &mut PplRng::seed_from_u64(3)).unwrap();
    unscorable(score_graph(t.graph().unwrap()), "x");
    // Through JSON as well: the flags are metadata.
    let back = Trace::from_json(&t.graph().unwrap().to_json()).unwrap();
    unscorable(score_graph(&back), "x");
    // The trace's own score is the user's density.
    let x = t.value::<f64>("x").unwrap();
    let want = NormalPrecision { mu: 0.0, tau: 4.0 }.log_density(&x);
    assert!((t.score() - want).abs() < 1e-12);
}

/// Data given to `generate` stays: a move to a branch that does not reach a constrained
/// address would drop it, and the move back would draw it as a latent choice, so the two do not
/// balance (a tester, 2026-11-27: `mh` on `b` settled on the prior, 0.49995, with `z` no longer
/// data in any later state). Such a proposal is rejected.
#[tracked]
fn data_on_one_branch() {
    let b = sample("b", Bernoulli::new(0.5));
    if b {
        let _z = sample("z", Normal::new(0.0, 1.0));
    }
}

#[test]
fn constrained_data_is_never_dropped_by_a_step() {
    let data = ChoiceMap::new().with("z", 0.3);
    // A start where `b` (latent) is true, so that `z` is reached.
    let start = || {
        (0..)
            .find_map(|seed| {
                let mut rng = PplRng::seed_from_u64(seed);
                generate(data_on_one_branch, (), &data, &mut rng).ok()
            })
            .unwrap()
            .0
    };
    let mut rng = PplRng::seed_from_u64(5);
    for rerun in [false, true] {
        let mut t = start();
        for _ in 0..300 {
            t = if rerun {
                mh_rerun(t, &Selection::of(["b"]), &mut rng).unwrap().0
            } else {
                mh(t, &Selection::of(["b"]), &mut rng).unwrap().0
            };
            assert_eq!(t.value::<bool>("b"), Some(true));
            assert!(t.is_observed("z"));
            assert_eq!(t.value::<f64>("z"), Some(0.3));
        }
    }
}

/// A name that is an address's printed form is read as that address by the choice maps and
/// the trace's queries too (they took it as one name: `None`, `false` and unvisited
/// constraints for an address the trace has).
#[test]
fn printed_addresses_are_read_as_addresses() {
    let t = simulate(debugged, (2.0,), &mut PplRng::seed_from_u64(9)).unwrap();
    let a = Address::parse("geom/stop").unwrap();
    assert!(t.value::<bool>("geom/stop").is_some());
    assert_eq!(t.value::<bool>("geom/stop"), t.value::<bool>(a.clone()));
    assert_eq!(t.log_density("geom/stop"), t.log_density(a.clone()));
    let c = ChoiceMap::new().with("geom/stop", true);
    assert!(c.contains(a));
}
