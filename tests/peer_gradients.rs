//! The gradients benchmarked in `benches/gradients.rs` (irtrack's, and the peers': `reverse` and
//! `easy-ml`'s `Record`), checked against central finite differences of the plain primal functions, so the
//! benchmark compares right answers. The code checked is the code benchmarked: both include
//! `benches/common/`.

#[path = "../benches/common/mod.rs"]
mod common;

use common::irtrack_ad;
use common::peers::{easy_ml_ad, reverse_ad};
use common::plain;

/// Central difference of `f` at `x` with a step relative to `x`.
fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let e = 1e-6 * x.abs().max(1.0);
    (f(x + e) - f(x - e)) / (2.0 * e)
}

#[track_caller]
fn assert_close(what: &str, got: f64, want: f64, rel: f64) {
    let tol = rel * want.abs().max(1.0);
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, want {want} (|diff| {} > {tol})",
        (got - want).abs()
    );
}

#[test]
fn h_100_gradients_match_finite_differences() {
    for x in [0.3, 1.01, -0.9] {
        let value = plain::h(x, 100);
        let fd = central(|x| plain::h(x, 100), x);
        for (peer, (v, g)) in [
            ("reverse", reverse_ad::h(x, 100)),
            ("easy-ml", easy_ml_ad::h(x, 100)),
            ("irtrack", irtrack_ad::h(x, 100)),
        ] {
            assert_close(&format!("{peer} h value at {x}"), v, value, 1e-12);
            assert_close(&format!("{peer} dh/dx at {x}"), g, fd, 1e-6);
        }
    }
}

#[test]
fn recursion_50_gradients_match_finite_differences() {
    for x in [0.7, 1.3, -0.4] {
        let value = plain::rec(x, 50);
        let fd = central(|x| plain::rec(x, 50), x);
        for (peer, (v, g)) in [
            ("reverse", reverse_ad::rec(x, 50)),
            ("easy-ml", easy_ml_ad::rec(x, 50)),
            ("irtrack", irtrack_ad::rec(x, 50)),
        ] {
            assert_close(&format!("{peer} r value at {x}"), v, value, 1e-12);
            assert_close(&format!("{peer} dr/dx at {x}"), g, fd, 1e-6);
        }
    }
}

#[test]
fn dense_64_gradients_match_finite_differences() {
    let w = common::dense_weights(64);
    let x = common::uniform(1, 64);
    let value = plain::dense(&w, &x);
    let fd: Vec<f64> = (0..x.len())
        .map(|i| {
            central(
                |xi| {
                    let mut x = x.clone();
                    x[i] = xi;
                    plain::dense(&w, &x)
                },
                x[i],
            )
        })
        .collect();
    for (peer, (v, g)) in [
        ("reverse", reverse_ad::dense(&w, &x)),
        ("easy-ml", easy_ml_ad::dense(&w, &x)),
        ("irtrack", irtrack_ad::dense(&w, &x)),
    ] {
        assert_close(&format!("{peer} dense value"), v, value, 1e-12);
        assert_eq!(g.len(), 64, "{peer}: one partial per input");
        for (i, (gi, fdi)) in g.iter().zip(&fd).enumerate() {
            assert_close(&format!("{peer} d/dx[{i}]"), *gi, *fdi, 1e-6);
        }
    }
}

/// The tracked twins compute what the plain ones do (the benchmark ratios compare equal work).
#[test]
fn tracked_twins_compute_the_plain_results() {
    let w = common::dense_weights(64);
    let x = common::uniform(1, 64);
    assert_eq!(common::tracked::h(1.01, 100), plain::h(1.01, 100));
    assert_eq!(common::tracked::rec(0.7, 50), plain::rec(0.7, 50));
    assert_eq!(
        common::tracked::dense(&w, &x),
        plain::dense(&w, &x),
        "dense"
    );
    assert_eq!(
        common::tracked::dot(&x, &x),
        plain::dot(&x, &x),
        "dot product"
    );
}

#[test]
fn matvec_256_gradient_matches_finite_differences() {
    let a = ndarray::Array2::from_shape_vec((256, 256), common::uniform(4, 256 * 256)).unwrap();
    let x = ndarray::Array1::from_vec(common::uniform(5, 256));
    let (value, g) = irtrack_ad::matvec(&a.clone().into_shared(), &x);
    assert_close(
        "irtrack matvec value",
        value,
        common::matvec_plain(&a, &x),
        1e-12,
    );
    for i in 0..256 {
        let fd = central(
            |xi| {
                let mut x = x.clone();
                x[i] = xi;
                common::matvec_plain(&a, &x)
            },
            x[i],
        );
        assert_close(&format!("irtrack d/dx[{i}]"), g[i], fd, 1e-6);
    }
}
