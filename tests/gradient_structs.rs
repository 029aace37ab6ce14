//! Gradients with respect to struct (and tuple) arguments: a model's parameters as fields.

use irtrack::{gradient, track, tracked, Tangent};

#[derive(Clone, Debug)]
struct Layer {
    w: Vec<f64>,
    b: f64,
}

#[derive(Clone, Debug)]
struct Model {
    layer: Layer,
    scale: f64,
    steps: usize,
}

#[tracked]
impl Layer {
    // Indexing two slices in step, as numeric code does.
    #[allow(clippy::needless_range_loop)]
    fn apply(&self, x: &[f64]) -> f64 {
        let mut s = self.b;
        for i in 0..x.len() {
            s += self.w[i] * x[i];
        }
        s.tanh()
    }
}

#[tracked]
fn loss(m: &Model, x: &[f64], y: f64) -> f64 {
    let mut p = m.layer.apply(x);
    for _ in 0..m.steps {
        p *= m.scale;
    }
    (p - y) * (p - y)
}

fn model(w: [f64; 2], b: f64, scale: f64) -> Model {
    Model {
        layer: Layer { w: w.to_vec(), b },
        scale,
        steps: 2,
    }
}

fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6 * x.abs().max(1.0);
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn close(a: f64, b: f64) {
    assert!(
        (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0),
        "{a} vs {b}"
    );
}

#[test]
fn a_struct_argument_gets_the_gradients_of_the_fields_read() {
    let (w, b, scale) = ([0.5, -0.25], 0.1, 1.5);
    let x = [1.0, 2.0];
    let g = gradient(loss, (&model(w, b, scale), &x[..], 0.3)).unwrap();
    assert_eq!(g.value, loss(&model(w, b, scale), &x, 0.3));
    let m = g.wrt[0].as_ref().expect("the model's gradient");
    // Fields by their path, in the order first read; `steps` (an integer) has none.
    let Tangent::Fields(fields) = m else {
        panic!("{m:?}")
    };
    let paths: Vec<&str> = fields.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["layer.b", "layer.w", "scale"]);
    let f = |w: [f64; 2], b: f64, scale: f64| loss(&model(w, b, scale), &x, 0.3);
    close(
        m.field("layer.b").unwrap().as_scalar().unwrap(),
        central(|b| f(w, b, scale), b),
    );
    close(
        m.field("scale").unwrap().as_scalar().unwrap(),
        central(|s| f(w, b, s), scale),
    );
    let dw = m.field("layer.w").unwrap().as_slice().unwrap();
    close(dw[0], central(|w0| f([w0, w[1]], b, scale), w[0]));
    close(dw[1], central(|w1| f([w[0], w1], b, scale), w[1]));
}

#[test]
fn the_annotated_trace_shows_the_struct_gradient_on_the_argument() {
    let mut trace = track(loss, (&model([0.5, -0.25], 0.1, 1.5), &[1.0, 2.0][..], 0.3));
    let grads = trace.backward(1.0).unwrap();
    let arg = trace.root().call_arguments()[0];
    assert_eq!(
        arg.metadata::<Tangent>(irtrack::grad::ADJOINT),
        grads[0].as_ref()
    );
    assert!(arg.to_string().contains("[adjoint = {layer.b: "), "{arg}");
}

#[tracked]
fn pair_product(p: (f64, f64), k: usize) -> f64 {
    p.0 * p.1 * k as f64
}

#[test]
fn tuple_fields_are_fields_too() {
    let g = gradient(pair_product, ((2.0, 5.0), 3)).unwrap();
    assert_eq!(
        g.wrt,
        [
            Some(Tangent::Fields(vec![
                ("0".into(), Tangent::Scalar(15.0)),
                ("1".into(), Tangent::Scalar(6.0))
            ])),
            None
        ]
    );
}

#[tracked]
fn ignores_model(m: &Model, x: f64) -> f64 {
    let _unused = m.steps;
    x * x
}

#[test]
fn a_struct_whose_float_fields_are_not_read_gets_none() {
    let g = gradient(ignores_model, (&model([0.0, 0.0], 0.0, 1.0), 3.0)).unwrap();
    assert_eq!(g.wrt, [None, Some(Tangent::Scalar(6.0))]);
}

// ---- Elements of vectors and arrays of structs (found 2026-11-27 by an adversarial run:
// `layers[i].w` was recorded as a read of `layers` with the index dropped, and the gradient
// summed every element's `w` into one).

#[derive(Clone, Debug)]
struct Unit {
    w: f64,
    b: f64,
}

// Indexing, as numeric code written from the maths does (the case found indexes).
#[allow(clippy::needless_range_loop)]
#[tracked]
fn mlp(layers: Vec<Unit>, x: f64) -> f64 {
    let mut h = x;
    for i in 0..layers.len() {
        h = (layers[i].w * h + layers[i].b).tanh();
    }
    h
}

fn units(v: &[(f64, f64)]) -> Vec<Unit> {
    v.iter().map(|&(w, b)| Unit { w, b }).collect()
}

fn field(t: &Option<Tangent>, path: &str) -> f64 {
    t.as_ref()
        .and_then(|t| t.field(path))
        .and_then(Tangent::as_scalar)
        .unwrap_or_else(|| panic!("no `{path}` in {t:?}"))
}

#[test]
fn each_element_of_a_vector_of_structs_has_its_own_gradient() {
    let at = [(0.5, 0.1), (-1.2, 0.3), (0.8, -0.4)];
    let g = gradient(mlp, (units(&at), 0.7)).unwrap();
    let h = 1e-6;
    for i in 0..at.len() {
        for (name, k) in [("w", 0), ("b", 1)] {
            let nudged = |d: f64| {
                let mut a = at;
                if k == 0 {
                    a[i].0 += d
                } else {
                    a[i].1 += d
                }
                mlp(units(&a), 0.7)
            };
            let fd = (nudged(h) - nudged(-h)) / (2.0 * h);
            let got = field(&g.wrt[0], &format!("[{i}].{name}"));
            assert!(
                (got - fd).abs() < 1e-8,
                "[{i}].{name}: {got}, central difference {fd}"
            );
        }
    }
}

#[derive(Clone, Debug)]
struct Net {
    layers: Vec<Unit>,
}

#[tracked]
fn tuples(v: Vec<(f64, f64)>) -> f64 {
    v[1].0 * 10.0 + v[0].1
}

#[tracked]
fn array_of_structs(v: [Unit; 2]) -> f64 {
    v[0].w * 10.0 + v[1].w
}

#[tracked]
fn nested_vector(n: Net) -> f64 {
    n.layers[0].w * 10.0 + n.layers[1].w
}

#[tracked]
fn through_a_reference(v: Vec<Unit>) -> f64 {
    let a = &v[1];
    a.w * 10.0 + v[0].w
}

#[tracked]
fn vector_of_vectors(v: Vec<Vec<f64>>) -> f64 {
    v[1][0] * 10.0 + v[0][1]
}

#[test]
fn elements_are_named_by_their_index_wherever_they_are() {
    let g = gradient(tuples, (vec![(1.0, 2.0), (3.0, 4.0)],)).unwrap();
    assert_eq!(field(&g.wrt[0], "[1].0"), 10.0);
    assert_eq!(field(&g.wrt[0], "[0].1"), 1.0);
    assert!(g.wrt[0].as_ref().unwrap().field("[0].0").is_none());

    let two = || [Unit { w: 1.0, b: 0.0 }, Unit { w: 2.0, b: 0.0 }];
    let g = gradient(array_of_structs, (two(),)).unwrap();
    assert_eq!(field(&g.wrt[0], "[0].w"), 10.0);
    assert_eq!(field(&g.wrt[0], "[1].w"), 1.0);

    let g = gradient(
        nested_vector,
        (Net {
            layers: two().to_vec(),
        },),
    )
    .unwrap();
    assert_eq!(field(&g.wrt[0], "layers[0].w"), 10.0);
    assert_eq!(field(&g.wrt[0], "layers[1].w"), 1.0);

    let g = gradient(through_a_reference, (two().to_vec(),)).unwrap();
    assert_eq!(field(&g.wrt[0], "[1].w"), 10.0);
    assert_eq!(field(&g.wrt[0], "[0].w"), 1.0);

    // A vector of vectors is not a differentiable argument (README: floats, and vectors and
    // arrays of them): its rows are constants, and its gradient is `None`, as an integer's.
    let g = gradient(vector_of_vectors, (vec![vec![1.0, 2.0], vec![3.0, 4.0]],)).unwrap();
    assert_eq!(g.wrt[0], None);
}

// ---- Copies of a struct argument and changes to it.

#[tracked]
impl Unit {
    fn quadratic(self, x: f64) -> f64 {
        self.w * x * x + self.b
    }
}

#[tracked]
fn method_on_a_clone(m: Unit, x: f64) -> f64 {
    m.clone().quadratic(x) + m.w
}

#[tracked]
fn fields_of_a_clone(m: Unit, x: f64) -> f64 {
    let q = m.clone();
    q.w * x + q.b * q.b
}

#[test]
fn a_clone_of_a_struct_argument_is_the_argument() {
    // Was `{w: 1}` (the clone's reads were constants) and `None`.
    let g = gradient(method_on_a_clone, (Unit { w: 0.5, b: 1.5 }, 2.0)).unwrap();
    assert_eq!(field(&g.wrt[0], "w"), 5.0); // x² + 1
    assert_eq!(field(&g.wrt[0], "b"), 1.0);
    let g = gradient(fields_of_a_clone, (Unit { w: 0.5, b: 1.5 }, 2.0)).unwrap();
    assert_eq!(field(&g.wrt[0], "w"), 2.0);
    assert_eq!(field(&g.wrt[0], "b"), 3.0);
}

#[tracked]
fn struct_update(m: Unit, x: f64) -> f64 {
    let q = Unit { w: 2.0, ..m };
    q.w * x + q.b * 10.0
}

#[tracked]
fn iterated(v: Vec<Unit>, x: f64) -> f64 {
    let mut s = 0.0;
    for m in &v {
        s += m.w * x;
    }
    s
}

impl Unit {
    fn weight(&self) -> f64 {
        self.w
    }
    fn set_w_from_b(&mut self) {
        self.w = self.b * 3.0;
    }
}

#[tracked]
fn untracked_read(m: Unit, x: f64) -> f64 {
    m.weight() * x + m.b
}

#[tracked]
fn compound_field(mut m: Unit, x: f64) -> f64 {
    m.w *= 2.0;
    m.w * x
}

#[tracked]
fn changed_by_a_method(mut m: Unit, x: f64) -> f64 {
    m.set_w_from_b();
    m.w * x
}

#[test]
fn reads_the_sweep_cannot_follow_are_refused_not_zero() {
    // Each of these gave a wrong gradient or `None` (which means "not differentiable") for an
    // argument the output depends on.
    let e = gradient(struct_update, (Unit { w: 0.5, b: 1.5 }, 2.0)).unwrap_err();
    assert!(matches!(e, irtrack::GradError::NoRule { .. }), "{e}");
    let e = gradient(iterated, (vec![Unit { w: 0.5, b: 1.5 }], 2.0)).unwrap_err();
    assert!(matches!(e, irtrack::GradError::NoRule { .. }), "{e}");
    // `Debug` writes 1e-7 and 1e20 without a decimal point: the struct still holds floats.
    for (w, b) in [(0.5, 1.5), (1e-7, 1e20)] {
        let e = gradient(untracked_read, (Unit { w, b }, 2.0)).unwrap_err();
        assert!(e.to_string().contains("weight"), "{e}");
    }
    // A field changed in place is not the argument's field any more.
    for e in [
        gradient(compound_field, (Unit { w: 0.5, b: 1.5 }, 2.0)).unwrap_err(),
        gradient(changed_by_a_method, (Unit { w: 0.5, b: 1.5 }, 2.0)).unwrap_err(),
    ] {
        assert!(
            e.to_string().contains("may have changed it in place"),
            "{e}"
        );
    }
}

// A struct built inside the function from its inputs, its fields read directly, through a
// tracked `&self` method, or through a nested literal: each read's slope now goes to the
// operand that made the field (a tester, 2026-11-27: `NoRule` on `.w`, where the code is as
// a model is written).

#[derive(Clone, Debug)]
struct Affine {
    w: f64,
    b: f64,
}

#[tracked]
impl Affine {
    fn at(&self, z: f64) -> f64 {
        self.w * z + self.b
    }
}

#[tracked]
fn built_from_inputs(x: f64) -> f64 {
    let m = Affine {
        w: x * 2.0,
        b: x.sin(),
    };
    m.at(2.0) + m.w * m.b
}

#[derive(Clone, Debug)]
struct Stack {
    first: Affine,
    k: f64,
}

#[tracked]
fn nested_literals(x: f64) -> f64 {
    let s = Stack {
        first: Affine { w: x, b: 1.0 },
        k: x * x,
    };
    s.first.w * s.k + s.first.b
}

#[tracked]
fn changed_after_it_was_built(x: f64) -> f64 {
    let mut m = Affine { w: x, b: 1.0 };
    m.w = 3.0;
    m.w * x
}

#[tracked]
fn update_syntax(x: f64) -> f64 {
    let base = Affine { w: 1.0, b: x };
    let m = Affine { w: x, ..base };
    m.b * m.w
}

#[test]
fn fields_of_a_struct_built_inside_are_followed_to_what_made_them() {
    for x in [0.7, -1.3] {
        for (f, g) in [
            (
                built_from_inputs as fn(f64) -> f64,
                gradient(built_from_inputs, (x,)),
            ),
            (nested_literals, gradient(nested_literals, (x,))),
            (
                built_from_inputs,
                irtrack::grad::with_general_sweep(|| gradient(built_from_inputs, (x,))),
            ),
        ] {
            let g = g.unwrap().scalars()[0].unwrap();
            close(g, central(f, x));
        }
    }
    // Changed in place after it was built, or built from a base the literal does not name:
    // refused, as before.
    assert!(gradient(changed_after_it_was_built, (0.7,)).is_err());
    assert!(gradient(update_syntax, (0.7,)).is_err());
}

// A user's number types with tracked operators: a field read of a struct a tracked function
// returned (`(a * a + a).v`, `make(x).d`) was refused ("no gradient rule for `.v`"), so dual
// and complex numbers could not be differentiated at all (a tester, 2026-11-28). The read's
// sensitivity now follows the call to what its body returned.

#[derive(Clone, Copy, Debug)]
pub struct Dual {
    v: f64,
    d: f64,
}

#[tracked]
impl std::ops::Add for Dual {
    type Output = Dual;
    fn add(self, o: Dual) -> Dual {
        Dual {
            v: self.v + o.v,
            d: self.d + o.d,
        }
    }
}

#[tracked]
impl std::ops::Mul for Dual {
    type Output = Dual;
    fn mul(self, o: Dual) -> Dual {
        Dual {
            v: self.v * o.v,
            d: self.d * o.v + self.v * o.d,
        }
    }
}

/// `x³ + x` by dual numbers: its value part and its derivative part `3x² + 1`.
#[tracked]
fn dual_cubic(x: f64) -> f64 {
    let a = Dual { v: x, d: 1.0 };
    let b = a * a * a + a;
    b.v + 0.5 * b.d
}

#[derive(Clone, Copy, Debug)]
pub struct Complex {
    re: f64,
    im: f64,
}

#[tracked]
impl Complex {
    fn times(self, o: Complex) -> Complex {
        Complex {
            re: self.re * o.re - self.im * o.im,
            im: self.re * o.im + self.im * o.re,
        }
    }
    fn conj(self) -> Complex {
        Complex {
            re: self.re,
            im: -self.im,
        }
    }
    fn norm2(&self) -> f64 {
        self.re * self.re + self.im * self.im
    }
}

#[tracked]
fn complex_norm(x: f64) -> f64 {
    let z = Complex {
        re: x,
        im: 2.0 * x - 1.0,
    };
    let w = z.times(z.conj()).times(z);
    w.norm2() + w.re
}

#[tracked]
fn pair_of(x: f64) -> (Dual, f64) {
    (Dual { v: x * x, d: 1.0 }, 3.0 * x)
}

#[tracked]
fn through_a_tuple(x: f64) -> f64 {
    let (a, y) = pair_of(x);
    a.v * y
}

#[tracked]
fn written_after_the_literal(x: f64) -> Dual {
    let mut d = Dual { v: x * x, d: 1.0 };
    d.v = 5.0 * x;
    d
}

#[tracked]
fn reads_a_written_struct(x: f64) -> f64 {
    written_after_the_literal(x).v
}

#[test]
fn fields_of_structs_tracked_functions_return_are_differentiated() {
    let plain_cubic = |x: f64| x * x * x + x + 0.5 * (3.0 * x * x + 1.0);
    for x in [-1.3, 0.0, 0.7, 2.0] {
        let g = gradient(dual_cubic, (x,)).unwrap();
        assert_eq!(g.value, dual_cubic(x));
        close(g.scalars()[0].unwrap(), 3.0 * x * x + 1.0 + 3.0 * x);
        close(g.scalars()[0].unwrap(), central(plain_cubic, x));
        let g = gradient(complex_norm, (x,)).unwrap();
        assert_eq!(g.value, complex_norm(x));
        close(g.scalars()[0].unwrap(), central(complex_norm, x));
        let g = gradient(through_a_tuple, (x,)).unwrap();
        close(g.scalars()[0].unwrap(), 9.0 * x * x);
    }
    // At x = 5 the literal's `x * x` and the write's `5x` agree: the write is what refuses.
    assert!(gradient(reads_a_written_struct, (5.0,)).is_err());
}
