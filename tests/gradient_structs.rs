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
