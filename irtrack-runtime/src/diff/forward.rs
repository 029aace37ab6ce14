//! Forward differentiation of a program: one new input `v` per differentiated input, and the
//! output `f'(x) v`, built operation by operation in the program's order from the rules.

use super::error::DiffError;
use super::graph::{Graph, Kind};
use super::rules::{self, Rules};
use crate::program::{Like, PartInput, Program, Src};

/// The tangent of every value that depends on a direction.
pub(crate) struct Tangents {
    inputs: Vec<Option<Src>>,
    nodes: Vec<Option<Src>>,
}

impl Tangents {
    /// The tangent of `s` (`None`: zero, `s` does not depend on a direction).
    pub(crate) fn of(&self, s: &Src) -> Option<Src> {
        match s {
            Src::Input(k) => self.inputs.get(*k).cloned().flatten(),
            Src::Op(k) => self.nodes.get(*k).cloned().flatten(),
            Src::Const(_) => None,
        }
    }
}

/// Adds a direction input for each input in `wrt`, at `stage`: `(input, direction)` pairs.
pub(crate) fn directions(
    g: &mut Graph,
    wrt: &[usize],
    stage: u32,
) -> Result<Vec<(usize, Src)>, DiffError> {
    let mut seeds = Vec::with_capacity(wrt.len());
    for (i, &k) in wrt.iter().enumerate() {
        let fail = |reason: String| DiffError::Input { index: k, reason };
        if wrt[..i].contains(&k) {
            return Err(fail("it is listed twice".into()));
        }
        match g.inputs.get(k) {
            None => return Err(fail(format!("the program has {} inputs", g.inputs.len()))),
            Some(PartInput::Static(_)) => {
                return Err(fail(
                    "it is static: the program holds it at its recorded value; build the program \
                     with `Input::Dynamic` for it"
                        .into(),
                ))
            }
            Some(PartInput::Dynamic { .. }) => {}
        }
        let sample = g.value(&Src::Input(k));
        if !Kind::of(&sample).differentiable() {
            return Err(fail(format!(
                "a `{}` has no derivative: differentiate with respect to floats, `Vec<f64>` or \
                 arrays of `f64`",
                sample.type_name()
            )));
        }
        if let Some(PartInput::Dynamic { varies, .. }) = g.inputs.get_mut(k) {
            *varies = true;
        }
        seeds.push((k, g.add_input(sample, stage, Some(Like::Input(k)))));
    }
    Ok(seeds)
}

/// Builds the tangent of every operation that depends on a direction, in the program's order.
pub(crate) fn push_forward(
    g: &mut Graph,
    seeds: &[(usize, Src)],
    rules: &Rules,
) -> Result<Tangents, DiffError> {
    let n = g.nodes.len();
    let mut t = Tangents {
        inputs: vec![None; g.inputs.len()],
        nodes: vec![None; n],
    };
    for (k, v) in seeds {
        t.inputs[*k] = Some(v.clone());
    }
    for i in 0..n {
        let dx: Vec<Option<Src>> = g.nodes[i].args.iter().map(|a| t.of(a)).collect();
        if dx.iter().all(Option::is_none) {
            continue;
        }
        let (op, args) = (g.nodes[i].op, g.nodes[i].args.clone());
        g.origin = g.nodes[i].origin.clone();
        g.making_for = Some(i);
        t.nodes[i] = rules::jvp(g, op, &args, &Src::Op(i), &dx, rules)?;
        if let (Some(tangent), Some(crate::diff::kernels::Kernel::Select)) =
            (&t.nodes[i], crate::diff::kernels::Kernel::of(&op))
        {
            let moved = point_motion(g, &args[0], &t)?;
            if let Some(moved) = moved {
                t.nodes[i] = Some(rules::unknown_where(g, &args[0], &moved, tangent)?);
            }
        }
    }
    g.making_for = None;
    Ok(t)
}

/// For a selection's condition made of equalities of floats that depend on the direction
/// (`a == 0` in a rule: `0ᵇ` has the slope 0 in `b`, `y ln a` elsewhere), how far the direction
/// moves them off their point: the sum of the tangents of their differences, `None` when none
/// moves. Where such a condition holds, the branch it picks holds at that point only, and the
/// tangent of that branch is the slope of the function only along directions that keep it
/// there ([`rules::unknown_where`]).
fn point_motion(g: &mut Graph, cond: &Src, t: &Tangents) -> Result<Option<Src>, DiffError> {
    use crate::core::op::{BinOp, Builtin, CmpOp};
    use crate::view::operation::Operation;
    let mut moved: Option<Src> = None;
    let mut stack = vec![cond.clone()];
    while let Some(s) = stack.pop() {
        let Src::Op(j) = s else { continue };
        let (op, args) = (g.nodes[j].op, g.nodes[j].args.clone());
        match op {
            Operation::Builtin(Builtin::Binary(BinOp::BitAnd | BinOp::BitOr)) => {
                stack.extend(args);
            }
            Operation::Builtin(Builtin::Compare(CmpOp::Eq)) => {
                if !matches!(g.kind(&args[0]), Kind::Float(_)) {
                    continue;
                }
                let d = match (t.of(&args[0]), t.of(&args[1])) {
                    (Some(p), Some(q)) => rules::difference(g, &p, &q)?,
                    (Some(p), None) => p,
                    (None, Some(q)) => q,
                    (None, None) => continue,
                };
                moved = Some(match moved {
                    Some(m) => rules::add(g, &m, &d)?,
                    None => d,
                });
            }
            _ => {}
        }
    }
    Ok(moved)
}

/// Checks that the output has a derivative.
pub(crate) fn check_output(g: &Graph) -> Result<(), DiffError> {
    let v = g.value(&g.output);
    if Kind::of(&v).differentiable() {
        return Ok(());
    }
    Err(DiffError::Output {
        reason: format!(
            "`{}` returns a `{}`, which has no derivative: a derivative program returns a float, \
             a `Vec<f64>` or an array of `f64`",
            g.name,
            v.type_name()
        ),
    })
}

/// The derivative of `program` with respect to the inputs `wrt`: a program taking the
/// program's inputs and then one direction per input in `wrt` (of that input's type), and
/// returning `f'(x)·v`, the sum of the directional derivatives. Differentiating the result
/// again gives the second derivative, and so on.
///
/// The derivative program keeps the guards of the recorded path: it is the derivative of the
/// function along that path, and refuses inputs that take another one.
///
/// ```
/// use irtrack::diff::differentiate;
/// use irtrack::program::{Input, Program};
/// use irtrack::{track, tracked};
///
/// #[tracked]
/// fn f(x: f64) -> f64 {
///     x.sin() * x.exp()
/// }
///
/// let p = Program::from_trace(&track(f, (1.0,)), &[Input::Dynamic]).unwrap();
/// let d1 = differentiate(&p, &[0]).unwrap(); // (x, v1) ↦ f'(x) v1
/// let d2 = differentiate(&d1, &[0]).unwrap(); // (x, v1, v2) ↦ f''(x) v1 v2
/// let x = 0.5f64;
/// let f2 = 2.0 * x.exp() * x.cos();
/// let got = d2.call((x, 1.0, 1.0)).unwrap().as_f64().unwrap();
/// assert!((got - f2).abs() < 1e-12 * f2.abs());
/// ```
///
/// # Errors
/// [`DiffError::NoRule`] naming an operation without a rule on the way from an input to the
/// output, [`DiffError::Input`] for an input that is static or not a float, a `Vec<f64>` or an
/// array of `f64`, [`DiffError::Output`] when the output is none of those,
/// [`DiffError::Unsupported`] for a program with a `switch` or `while_loop`.
pub fn differentiate(program: &Program, wrt: &[usize]) -> Result<Program, DiffError> {
    differentiate_with(program, wrt, &Rules::global())
}

/// [`differentiate`] with the rules `rules` for users' functions.
///
/// ```
/// use irtrack::diff::{differentiate_with, Rule, Rules};
/// use irtrack::program::{Input, Program};
/// use irtrack::{register_operation, track, tracked};
///
/// fn double(x: f64) -> f64 {
///     2.0 * x
/// }
///
/// #[tracked]
/// fn f(x: f64) -> f64 {
///     double(x * x)
/// }
///
/// register_operation(double);
/// let p = Program::from_trace(&track(f, (3.0,)), &[Input::Dynamic]).unwrap();
/// let d = differentiate_with(&p, &[0], &Rules::new().with(double, Rule::linear(0))).unwrap();
/// assert_eq!(d.call((3.0, 1.0)).unwrap().as_f64(), Some(12.0));
/// ```
///
/// # Errors
/// As [`differentiate`].
pub fn differentiate_with(
    program: &Program,
    wrt: &[usize],
    rules: &Rules,
) -> Result<Program, DiffError> {
    let mut g = Graph::from_program(program)?;
    check_output(&g)?;
    super::pins::refuse_point_path(&g, wrt)?;
    let stage = g.next_stage();
    let seeds = directions(&mut g, wrt, stage)?;
    let t = push_forward(&mut g, &seeds, rules)?;
    // The product and quotient rules multiply and divide the tangents by the other operand:
    // with directions of their inputs' shapes, the same broadcast as the operation's own, so
    // that an operation between two arrays whose value the derivative does not read need not
    // stay for its shapes to be checked (FrechetDiff's `x * roll(x, 1)` listing).
    let product_rule = |op: &crate::view::operation::Operation| {
        use crate::core::op::{BinOp, Builtin};
        matches!(
            op,
            crate::view::operation::Operation::Builtin(
                Builtin::Binary(BinOp::Mul | BinOp::Div) | Builtin::Assign(BinOp::Mul | BinOp::Div)
            )
        )
    };
    g.broadcast_in_tangent = (0..g.nodes.len())
        .map(|i| product_rule(&g.nodes[i].op) && t.nodes.get(i).is_some_and(Option::is_some))
        .collect();
    let out = g.output.clone();
    let d = match t.of(&out) {
        Some(d) => d,
        None => rules::zero(&mut g, &out)?,
    };
    g.output = rules::none_without_value(&mut g, &out, d, None)?;
    g.name = format!("{}'", g.name);
    let primal_wrt = g.primal_wrt();
    Ok(Program::from_parts(g.into_parts())
        .deriving_from(program)
        .checking_path(&primal_wrt, super::pins::refusal_at))
}
