//! Values a program or an update must prove equal before it reuses what was computed from
//! them, and names written with escapes. Each case is checked against the plain Rust function
//! on the same inputs: a program returns its number or a typed error, never another number.

use irtrack::program::update::{Change, Keep, Updatable};
use irtrack::program::{checkpoint, collect, inject, Checkpoints, Input, Program, ReplayError};
use irtrack::{track, tracked, Value};
use Input::{Dynamic, Static};

fn f64_of(r: Result<Value, ReplayError>) -> f64 {
    r.unwrap().as_f64().unwrap()
}

// ---- Static float containers are compared bit for bit.

#[tracked]
fn recip_first(x: f64, v: Vec<f64>) -> f64 {
    x + 1.0 / v[0]
}

#[tracked]
fn sign_second(x: f64, v: [f64; 2]) -> f64 {
    x * v[1].signum()
}

#[tracked]
fn recip_first_f32(x: f32, v: Vec<f32>) -> f32 {
    x + 1.0 / v[0]
}

#[tracked]
fn nan_bits(x: f64, v: Vec<f64>) -> f64 {
    x + v[0].is_sign_negative() as i32 as f64
}

#[test]
fn a_static_vector_with_minus_zero_is_not_one_with_zero() {
    // Recorded at [-0.0]: 1 / -0.0 = -inf is folded. Rust at [0.0] gives +inf.
    let p =
        Program::from_trace(&track(recip_first, (1.0, vec![-0.0])), &[Dynamic, Static]).unwrap();
    assert_eq!(recip_first(2.0, vec![0.0]), f64::INFINITY);
    let e = p.call((2.0, vec![0.0])).unwrap_err();
    assert!(matches!(e, ReplayError::Static { index: 1, .. }), "{e}");
    assert_eq!(
        f64_of(p.call((2.0, vec![-0.0]))),
        recip_first(2.0, vec![-0.0])
    );

    // Recorded at [1.0, 0.0]: signum 1.0 is folded. Rust at [1.0, -0.0] gives -2.0.
    let p =
        Program::from_trace(&track(sign_second, (1.0, [1.0, 0.0])), &[Dynamic, Static]).unwrap();
    assert_eq!(sign_second(2.0, [1.0, -0.0]), -2.0);
    let e = p.call((2.0, [1.0, -0.0])).unwrap_err();
    assert!(matches!(e, ReplayError::Static { index: 1, .. }), "{e}");
    assert_eq!(
        f64_of(p.call((2.0, [1.0, 0.0]))),
        sign_second(2.0, [1.0, 0.0])
    );

    // A vector of f32 too, compared as f32s.
    let p = Program::from_trace(
        &track(recip_first_f32, (1.0f32, vec![-0.0f32])),
        &[Dynamic, Static],
    )
    .unwrap();
    assert_eq!(recip_first_f32(2.0, vec![0.0]), f32::INFINITY);
    let e = p.call((2.0f32, vec![0.0f32])).unwrap_err();
    assert!(matches!(e, ReplayError::Static { index: 1, .. }), "{e}");
}

#[test]
fn a_static_nan_is_the_same_value_only_with_the_same_bits() {
    // The sign of a NaN is observable: a NaN with another sign is another value.
    let negative = -f64::NAN;
    assert!(negative.is_sign_negative());
    let p =
        Program::from_trace(&track(nan_bits, (1.0, vec![f64::NAN])), &[Dynamic, Static]).unwrap();
    assert_eq!(
        f64_of(p.call((2.0, vec![f64::NAN]))),
        nan_bits(2.0, vec![f64::NAN])
    );
    assert_eq!(nan_bits(2.0, vec![negative]), 3.0);
    let e = p.call((2.0, vec![negative])).unwrap_err();
    assert!(matches!(e, ReplayError::Static { index: 1, .. }), "{e}");
    // A scalar static NaN alike.
    #[tracked]
    fn nan_scalar(x: f64, s: f64) -> f64 {
        x + s.is_sign_negative() as i32 as f64
    }
    let p = Program::from_trace(&track(nan_scalar, (1.0, f64::NAN)), &[Dynamic, Static]).unwrap();
    assert_eq!(f64_of(p.call((2.0, f64::NAN))), nan_scalar(2.0, f64::NAN));
    let e = p.call((2.0, negative)).unwrap_err();
    assert!(matches!(e, ReplayError::Static { index: 1, .. }), "{e}");
}

// ---- A static user type is never checked by its Debug text.

#[derive(Clone, irtrack::Snapshot)]
pub struct Model {
    pub w: Vec<f64>,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Model({} weights)", self.w.len())
    }
}

#[tracked]
fn predict(x: f64, m: &Model) -> f64 {
    x * m.w[0] + m.w[1]
}

#[derive(Clone, Debug, irtrack::Snapshot)]
pub struct Cfg {
    pub k: f64,
}

#[tracked]
fn scaled(x: f64, c: &Cfg) -> f64 {
    x * c.k
}

#[test]
fn a_static_user_type_that_cannot_be_compared_is_an_error() {
    let m1 = Model { w: vec![2.0, 1.0] };
    let m2 = Model { w: vec![-3.0, 0.5] };
    // Both print "Model(2 weights)"; the program folded m1's weights.
    assert_eq!(format!("{m1:?}"), format!("{m2:?}"));
    assert_eq!(predict(4.0, &m2), -11.5);
    let p = Program::from_trace(&track(predict, (1.0, &m1)), &[Dynamic, Static]).unwrap();
    let e = p.call((4.0, &m2)).unwrap_err();
    assert!(
        matches!(e, ReplayError::StaticUnproven { index: 1, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("call_dynamic"), "{e}");
    // The same weights given again cannot be proven the same either…
    let e = p.call((4.0, &m1)).unwrap_err();
    assert!(
        matches!(e, ReplayError::StaticUnproven { index: 1, .. }),
        "{e}"
    );
    // …but `call_dynamic` keeps the recorded value, and is right.
    assert_eq!(f64_of(p.call_dynamic((4.0,))), predict(4.0, &m1));

    // A derived Debug is no proof either (a `Debug` can be written to print 2.04 as 2.0).
    let p =
        Program::from_trace(&track(scaled, (1.0, &Cfg { k: 2.0 })), &[Dynamic, Static]).unwrap();
    let e = p.call((3.0, &Cfg { k: 5.0 })).unwrap_err();
    assert!(
        matches!(e, ReplayError::StaticUnproven { index: 1, .. }),
        "{e}"
    );
    assert_eq!(f64_of(p.call_dynamic((3.0,))), scaled(3.0, &Cfg { k: 2.0 }));
}

#[tracked]
fn pair_and_text(x: f64, p: (f64, Vec<f64>), s: &str) -> f64 {
    x * p.0 + p.1[0] + s.len() as f64
}

#[test]
fn static_std_values_are_compared_by_value() {
    // Tuples, vectors and strings are compared element by element (floats bit for bit).
    let t = track(pair_and_text, (1.0, (2.0, vec![3.0]), "ab"));
    let p = Program::from_trace(&t, &[Dynamic, Static, Static]).unwrap();
    let want = pair_and_text(5.0, (2.0, vec![3.0]), "ab");
    assert_eq!(f64_of(p.call((5.0, (2.0, vec![3.0]), "ab"))), want);
    let e = p.call((5.0, (2.0, vec![-0.0]), "ab")).unwrap_err();
    assert!(matches!(e, ReplayError::Static { index: 1, .. }), "{e}");
    let e = p.call((5.0, (2.0, vec![3.0]), "ba")).unwrap_err();
    assert!(matches!(e, ReplayError::Static { index: 2, .. }), "{e}");
}

// ---- Checkpoint keys and collection names are the strings the source writes.

#[tracked]
fn ck_tab(x: f64) -> f64 {
    checkpoint(x * 2.0, "a\tb", "c")
}

#[tracked]
fn ck_quote(x: f64) -> f64 {
    checkpoint(x * 2.0, "say \"hi\"", "c\"1")
}

#[tracked]
fn ck_backslash(x: f64) -> f64 {
    checkpoint(x * 2.0, "a\\b", "c\\d")
}

#[tracked]
fn ck_controls(x: f64) -> f64 {
    checkpoint(x * 2.0, "\n\r\0\'", "c")
}

#[tracked]
fn ck_hex_unicode(x: f64) -> f64 {
    checkpoint(x * 2.0, "\x41\x7f\u{e9}\u{1F600}", "\u{63}")
}

#[tracked]
fn ck_raw(x: f64) -> f64 {
    checkpoint(x * 2.0, r"a\tb", r#"say "hi""#)
}

#[tracked]
fn ck_continued(x: f64) -> f64 {
    checkpoint(
        x * 2.0,
        "long \
         key",
        "c",
    )
}

#[tracked]
fn ck_local(x: f64) -> f64 {
    let key = "a\\b\t";
    checkpoint(x * 2.0, key, "c")
}

/// Injects 100 at `key` of `collection` into the plain function, its trace's program, and
/// collects what each shows; both must agree, and the injection must be seen.
fn injected_alike(f: fn(f64) -> f64, p: Program, key: &str, collection: &str) {
    let values = || Checkpoints::from([(key.to_string(), vec![Value::snapshot(100.0f64)])]);
    let plain = inject(collection, values(), || f(1.0));
    assert_eq!(
        plain, 100.0,
        "the plain function takes the injected value at {key:?}"
    );
    let replayed = inject(collection, values(), || f64_of(p.call((1.0,))));
    assert_eq!(replayed, plain, "key {key:?} of {collection:?}");
    let (_, seen) = collect(collection, || f(3.0));
    let (_, seen_replayed) = collect(collection, || p.call((3.0,)).unwrap());
    assert_eq!(seen[key][0].as_f64(), Some(6.0));
    assert_eq!(seen_replayed[key][0].as_f64(), Some(6.0), "key {key:?}");
}

#[test]
fn checkpoint_names_with_escapes_match_in_programs() {
    macro_rules! alike {
        ($f:ident, $key:expr, $collection:expr) => {
            let p = Program::from_trace(&track($f, (1.0,)), &[Dynamic]).unwrap();
            injected_alike($f, p, $key, $collection);
        };
    }
    alike!(ck_tab, "a\tb", "c");
    alike!(ck_quote, "say \"hi\"", "c\"1");
    alike!(ck_backslash, "a\\b", "c\\d");
    alike!(ck_controls, "\n\r\0'", "c");
    alike!(ck_hex_unicode, "A\u{7f}é😀", "c");
    alike!(ck_raw, "a\\tb", "say \"hi\"");
    alike!(ck_continued, "long key", "c");
    alike!(ck_local, "a\\b\t", "c");
}

#[test]
fn an_update_finds_a_checkpoint_named_with_escapes() {
    let mut m = Updatable::track(ck_tab, (1.0,));
    m.update([Change::checkpoint("c", "a\tb", 0, 7.0)]).unwrap();
    let want = inject(
        "c",
        Checkpoints::from([("a\tb", vec![Value::snapshot(7.0f64)])]),
        || ck_tab(1.0),
    );
    assert_eq!(m.trace().root().value::<f64>(), Some(&want));
}

#[tracked]
fn ck_ret(x: f64) -> f64 {
    checkpoint(x * 2.0, "k", "c")
}

#[test]
fn a_value_of_another_type_injected_into_a_program_is_an_error() {
    // The plain function panics (`checkpoint` downcasts to its type); the program must not
    // return the i32.
    let wrong = || Checkpoints::from([("k", vec![Value::snapshot(5i32)])]);
    assert!(std::panic::catch_unwind(|| inject("c", wrong(), || ck_ret(1.0))).is_err());
    let p = Program::from_trace(&track(ck_ret, (1.0,)), &[Dynamic]).unwrap();
    let e = inject("c", wrong(), || p.call((1.0,))).unwrap_err();
    assert!(matches!(e, ReplayError::Eval { .. }), "{e}");
}

// ---- Char literals with escapes replay.

#[tracked]
fn classify(c: char, x: f64) -> f64 {
    let tab = (c == '\t') as i32 as f64;
    let quote = (c == '\'') as i32 as f64;
    let wide = (c == '\u{e9}') as i32 as f64;
    x + tab + 2.0 * quote + 4.0 * wide + (c < '\x20') as i32 as f64 * 8.0
}

#[test]
fn char_literals_with_escapes_replay() {
    let p = Program::from_trace(&track(classify, ('x', 1.0)), &[Dynamic, Dynamic]).unwrap();
    for c in ['\t', '\'', 'é', ' ', 'z', '\0', '\\'] {
        assert_eq!(f64_of(p.call((c, 0.5))), classify(c, 0.5), "{c:?}");
    }
}

// ---- Keep::Unchanged re-runs a call whose arguments it cannot compare.

struct Opaque(f64);

fn helper(o: &Opaque) -> f64 {
    o.0 * 2.0
}

#[tracked]
fn hidden(x: f64) -> f64 {
    let o = Opaque(x);
    helper(&o) + 1.0
}

#[derive(Clone)]
struct Hid {
    v: f64,
}

impl std::fmt::Debug for Hid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Hid")
    }
}

fn helper_hid(o: &Hid) -> f64 {
    o.v * 2.0
}

#[tracked]
fn hidden_text(x: f64) -> f64 {
    let o = Hid { v: x };
    helper_hid(&o) + 1.0
}

#[test]
fn keep_unchanged_reruns_a_call_whose_arguments_it_cannot_compare() {
    let mut m = Updatable::track(hidden, (1.0,)).keep(Keep::Unchanged);
    m.update([Change::argument(0, 2.0)]).unwrap();
    assert_eq!(m.trace().root().value::<f64>(), Some(&hidden(2.0)));
    let mut m = Updatable::track(hidden_text, (1.0,)).keep(Keep::Unchanged);
    m.update([Change::argument(0, 2.0)]).unwrap();
    assert_eq!(m.trace().root().value::<f64>(), Some(&hidden_text(2.0)));
}

#[tracked]
fn weighted_rows(w: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut j = 0;
    while j < w.len() {
        s += w[j][0] * x[0] + 1.0 / w[j][1];
        j += 1;
    }
    s
}

/// A static argument a call passes by reference (a slice of rows, a slice of floats) is
/// compared with the recorded one in place rather than copied at each call: still bit for
/// bit, so one ulp, the sign of a zero, a NaN's sign and a row's length each make it
/// another value, and the same values (in another allocation) are the recorded ones.
#[test]
fn a_static_slice_of_rows_is_compared_in_place_bit_for_bit() {
    let w = vec![vec![0.5, -0.0], vec![2.0, 4.0]];
    let p = Program::from_trace(
        &track(weighted_rows, (&w[..], &[1.0][..])),
        &[Static, Dynamic],
    )
    .unwrap();
    let same = w.clone();
    assert_eq!(
        f64_of(p.call((&same[..], &[3.0][..]))),
        weighted_rows(&same, &[3.0])
    );
    let mut changed = Vec::new();
    for (j, i, v) in [(0, 0, 0.5f64.next_up()), (0, 1, 0.0), (1, 1, -f64::NAN)] {
        let mut w2 = w.clone();
        w2[j][i] = v;
        changed.push(w2);
    }
    let mut longer = w.clone();
    longer[1].push(1.0);
    changed.push(longer);
    changed.push(w[..1].to_vec());
    for w2 in &changed {
        let e = p.call((&w2[..], &[3.0][..])).unwrap_err();
        assert!(
            matches!(
                e,
                ReplayError::Static { index: 0, .. } | ReplayError::Guard { .. }
            ),
            "{w2:?}: {e}"
        );
    }
    // A static slice of floats alike.
    #[tracked]
    fn scaled(v: &[f64], x: f64) -> f64 {
        x / v[1]
    }
    let p =
        Program::from_trace(&track(scaled, (&[1.0, -0.0][..], 2.0)), &[Static, Dynamic]).unwrap();
    assert_eq!(f64_of(p.call((&[1.0, -0.0][..], 3.0))), f64::NEG_INFINITY);
    let e = p.call((&[1.0, 0.0][..], 3.0)).unwrap_err();
    assert!(matches!(e, ReplayError::Static { index: 0, .. }), "{e}");
}
