//! Orderings at a tie on a program's graph, read by their slopes: what `grad/sweep/cone.rs`
//! does on a trace, for derivative programs built from a program (`differentiate`). The
//! orderings that `pins.rs`'s readings of sides leave standing have the difference of their
//! sides differentiated numerically, forward, along each varying input's elements; the path
//! is refused where no direction keeps them all (`core::cone`) or where a difference has the
//! slope 0.

use super::error::DiffError;
use super::graph::Graph;
use crate::core::cone::{cone, Cone};
use crate::core::op::{BinOp, Builtin, FloatFn, UnOp};
use crate::core::ties::{self, AT_MOST};
use crate::program::{PartInput, Src};
use crate::view::operation::Operation;
use std::collections::BTreeMap;

/// An ordering of varying floats at a tie that no reading of sides settled: the node, its
/// sides, and what it said (`AT_MOST` for `a ≤ b`).
pub(super) struct Tied {
    pub(super) node: usize,
    pub(super) sides: [Src; 2],
    pub(super) says: u8,
}

/// `Err` naming the ordering of `tied` that (with those before it) leaves the path no open
/// region around the point, or that compares values whose difference has the slope 0 there
/// (or a slope this reading cannot take). `varies` tells which sources vary with the inputs.
pub(super) fn refuse_closed(
    g: &Graph,
    tied: &[Tied],
    varies: &dyn Fn(&Src) -> bool,
) -> Result<(), DiffError> {
    if tied.is_empty() {
        return Ok(());
    }
    let slopes = Slopes::new(g, varies, tied);
    let mut differences = Vec::with_capacity(tied.len());
    for t in tied {
        let stationary = || DiffError::StationaryTie {
            at: g.nodes[t.node].origin.clone(),
        };
        let (Some(a), Some(b)) = (slopes.of(&t.sides[0]), slopes.of(&t.sides[1])) else {
            return Err(stationary());
        };
        let sign = if t.says == AT_MOST { 1.0 } else { -1.0 };
        let mut u = b;
        for (j, v) in a {
            *u.entry(j).or_insert(0.0) -= v;
        }
        let scale = u.values().fold(0.0_f64, |m, v| m.max(v.abs()));
        if !(scale > 0.0 && scale.is_finite()) {
            return Err(stationary());
        }
        u.values_mut().for_each(|v| *v *= sign);
        differences.push(u);
    }
    // Dense over the directions some difference moves along.
    let used: BTreeMap<usize, usize> = differences
        .iter()
        .flat_map(|u| u.keys().copied())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .enumerate()
        .map(|(i, j)| (j, i))
        .collect();
    let directions: Vec<Vec<f64>> = differences
        .iter()
        .map(|u| {
            let mut d = vec![0.0; used.len()];
            for (j, v) in u {
                d[used[j]] = *v;
            }
            d
        })
        .collect();
    match cone(&directions) {
        Cone::Open => Ok(()),
        Cone::Pinned(k) => Err(DiffError::PointPath {
            at: g.nodes[tied[k].node].origin.clone(),
        }),
    }
}

/// A slope along the directions, by index (absent: 0).
type Slope = BTreeMap<usize, f64>;

/// Numeric slopes of a graph's scalar values along the elements of its varying inputs.
struct Slopes<'g> {
    g: &'g Graph,
    varies: &'g dyn Fn(&Src) -> bool,
    /// Where each input's elements start among the directions (`None`: not varying, or not
    /// floats).
    offsets: Vec<Option<usize>>,
    /// Each node's slope, for the nodes the sides need (`None`: not needed or not read).
    nodes: Vec<Option<Slope>>,
}

impl<'g> Slopes<'g> {
    /// The slopes of every node the sides of `tied` are computed from, in one forward pass
    /// (a graph's nodes are in topological order).
    fn new(g: &'g Graph, varies: &'g dyn Fn(&Src) -> bool, tied: &[Tied]) -> Slopes<'g> {
        let mut dims = 0;
        let offsets = (0..g.inputs.len())
            .map(|k| {
                if !varies(&Src::Input(k)) {
                    return None;
                }
                let PartInput::Dynamic { sample, .. } = &g.inputs[k] else {
                    return None;
                };
                let n = match sample.as_f64() {
                    Some(_) => 1,
                    None => sample.floats()?.len(),
                };
                let at = dims;
                dims += n;
                Some(at)
            })
            .collect();
        let mut needed = vec![false; g.nodes.len()];
        let mut stack: Vec<usize> = tied
            .iter()
            .flat_map(|t| t.sides.iter())
            .filter_map(|s| match s {
                Src::Op(k) => Some(*k),
                _ => None,
            })
            .collect();
        while let Some(k) = stack.pop() {
            if std::mem::replace(&mut needed[k], true) {
                continue;
            }
            stack.extend(g.nodes[k].args.iter().filter_map(|a| match a {
                Src::Op(j) if !needed[*j] => Some(*j),
                _ => None,
            }));
        }
        let mut slopes = Slopes {
            g,
            varies,
            offsets,
            nodes: vec![None; g.nodes.len()],
        };
        for (k, needed) in needed.into_iter().enumerate() {
            if needed {
                slopes.nodes[k] = slopes.node(k);
            }
        }
        slopes
    }

    fn basis(&self, k: usize, element: usize) -> Option<Slope> {
        let at = self.offsets.get(k).copied().flatten()?;
        Some(BTreeMap::from([(at + element, 1.0)]))
    }

    /// The slope of the scalar `s` along each direction; `None` where it is not read (an
    /// operation without numeric partials, an element read by a varying index).
    fn of(&self, s: &Src) -> Option<Slope> {
        if !(self.varies)(s) {
            return Some(Slope::new());
        }
        match s {
            Src::Input(k) => self
                .basis(*k, 0)
                .filter(|_| self.g.value(s).as_f64().is_some()),
            Src::Const(_) => Some(Slope::new()),
            Src::Op(k) => self.nodes[*k].clone(),
        }
    }

    fn node(&self, k: usize) -> Option<Slope> {
        let g = self.g;
        let node = &g.nodes[k];
        let arg = |i: usize| node.args.get(i);
        match node.op {
            Operation::Builtin(
                Builtin::Guard | Builtin::Bind | Builtin::Deref | Builtin::Clone,
            ) => return self.of(arg(0)?),
            Operation::Builtin(Builtin::Cast(t)) if t.is_float() => return self.of(arg(0)?),
            Operation::Builtin(Builtin::Unary(UnOp::Neg)) => {
                let mut t = self.of(arg(0)?)?;
                t.values_mut().for_each(|v| *v = -*v);
                return Some(t);
            }
            Operation::Builtin(Builtin::Index) => {
                if (self.varies)(arg(1)?) {
                    return None;
                }
                let i = usize::try_from(g.value(arg(1)?).as_i64()?).ok()?;
                return match arg(0)? {
                    Src::Input(v) => self.basis(*v, i),
                    Src::Op(v) => match g.nodes[*v].op {
                        Operation::Builtin(Builtin::VecOf | Builtin::ArrayOf) => {
                            self.of(g.nodes[*v].args.get(i)?)
                        }
                        _ => None,
                    },
                    Src::Const(_) => Some(Slope::new()),
                };
            }
            // Constant where they do not jump (where they do, `pins.rs` refused first).
            Operation::Builtin(Builtin::Method(f)) if ties::constant_between_jumps(f) => {
                return Some(Slope::new())
            }
            Operation::Builtin(
                Builtin::Binary(BinOp::Rem) | Builtin::Method(FloatFn::RemEuclid),
            ) => return None,
            _ => {}
        }
        let d = super::pins::partials(g, &k)?;
        let mut out = Slope::new();
        for (i, a) in node.args.iter().enumerate() {
            if !(self.varies)(a) {
                continue;
            }
            let p = *d.get(i)?;
            if !p.is_finite() {
                return None;
            }
            if p == 0.0 {
                continue;
            }
            for (j, t) in self.of(a)? {
                *out.entry(j).or_insert(0.0) += p * t;
            }
        }
        Some(out)
    }
}
