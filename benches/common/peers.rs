//! The three scalar gradient workloads (`h(x, 100)`, the 50-deep recursion and the 64×64 dense
//! layer) written against the peer reverse-mode crates `reverse` 0.2 and `easy-ml` 2.3. Each
//! function builds a fresh tape, runs the forward pass, runs the backward pass and returns the
//! value with its gradient: exactly what one benchmark iteration does.
//!
//! Used by `benches/gradients.rs` and checked against central finite differences by
//! `tests/peer_gradients.rs`, so the numbers benchmarked are known to be right.
#![allow(dead_code)]

/// The `reverse` crate: `Tape`, `Var` (value, tape index, `&Tape`), gradients by `grad().wrt`.
pub mod reverse_ad {
    use reverse::{Gradient, Tape, Var};

    /// `h(x, n) = Σ_{i<n} x^i` and `dh/dx`. The sum starts from the `i = 0` term (a `Var` has
    /// no tape-free zero).
    pub fn h(x: f64, n: i32) -> (f64, f64) {
        assert!(n >= 1);
        let tape = Tape::new();
        let x = tape.add_var(x);
        let mut r = x.powi(0);
        let mut i = 1;
        while i < n {
            r = r + x.powi(i);
            i += 1;
        }
        (r.val(), r.grad().wrt(&x))
    }

    fn rec_var<'a>(x: Var<'a>, k: u32) -> Var<'a> {
        if k == 0 {
            x
        } else {
            rec_var(x, k - 1).sin() * x + 0.5
        }
    }

    /// `r(x, k)` and `dr/dx`.
    pub fn rec(x: f64, k: u32) -> (f64, f64) {
        let tape = Tape::new();
        let x = tape.add_var(x);
        let r = rec_var(x, k);
        (r.val(), r.grad().wrt(&x))
    }

    /// `Σ_j tanh(Σ_i W[j][i] x[i])` and its gradient over every `x[i]`.
    pub fn dense(w: &[Vec<f64>], x: &[f64]) -> (f64, Vec<f64>) {
        let tape = Tape::new();
        let xs = tape.add_vars(x);
        let total: Var = w
            .iter()
            .map(|row| {
                let s: Var = row.iter().zip(&xs).map(|(&wji, &xi)| wji * xi).sum();
                s.tanh()
            })
            .sum();
        (total.val(), total.grad().wrt(&xs))
    }
}

/// `easy-ml`: `WengertList`, `Record` (value, list index, `Option<&WengertList>`), gradients by
/// `derivatives()[&input]`. `Record` has no `powi` or `tanh`: they are added with
/// `Record::unary(f, df)`, the crate's documented way (its own example is `tanh`), which records
/// one operation like a built-in one.
pub mod easy_ml_ad {
    use easy_ml::differentiation::{Record, WengertList};
    use easy_ml::numeric::extra::Sin;

    /// `h(x, n)` and `dh/dx`. `unary` returns a record borrowing its receiver, so the whole
    /// computation stays in one function.
    pub fn h(x: f64, n: i32) -> (f64, f64) {
        assert!(n >= 1);
        let list = WengertList::new();
        let x = Record::variable(x, &list);
        let mut r = x.unary(|v| v.powi(0), |_| 0.0);
        let mut i = 1;
        while i < n {
            r = r + x.unary(|v| v.powi(i), |v| i as f64 * v.powi(i - 1));
            i += 1;
        }
        (r.number, r.derivatives()[&x])
    }

    fn rec_record<'a>(x: Record<'a, f64>, k: u32) -> Record<'a, f64> {
        if k == 0 {
            x
        } else {
            rec_record(x, k - 1).sin() * x + 0.5
        }
    }

    /// `r(x, k)` and `dr/dx`.
    pub fn rec(x: f64, k: u32) -> (f64, f64) {
        let list = WengertList::new();
        let x = Record::variable(x, &list);
        let r = rec_record(x, k);
        (r.number, r.derivatives()[&x])
    }

    /// `Σ_j tanh(Σ_i W[j][i] x[i])` and its gradient over every `x[i]`.
    pub fn dense(w: &[Vec<f64>], x: &[f64]) -> (f64, Vec<f64>) {
        let list = WengertList::new();
        let xs: Vec<Record<f64>> = x.iter().map(|&v| Record::variable(v, &list)).collect();
        let pre: Vec<Record<f64>> = w
            .iter()
            .map(|row| row.iter().zip(&xs).map(|(&wji, &xi)| xi * wji).sum())
            .collect();
        let total: Record<f64> = pre
            .iter()
            .map(|s| {
                s.unary(
                    |v| v.tanh(),
                    |v| {
                        let c = v.cosh();
                        1.0 / (c * c)
                    },
                )
            })
            .sum();
        let d = total.derivatives();
        (total.number, xs.iter().map(|xi| d[xi]).collect())
    }
}
