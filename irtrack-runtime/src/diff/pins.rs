//! A recorded path that exists at one point only along the differentiated inputs has no
//! derivative there: `if x == 0.0 { 0.0 } else { 1.125 * x }` recorded at 0 is the program
//! `x ↦ 0` guarded by `x == 0`, whose derivative program would answer 0 where the function's
//! slope is 1.125. The gradient's sweep refuses such a path on a trace (`grad/sweep/pins.rs`);
//! this is the same refusal on a program's guards, before a derivative is built: an equality
//! of values that vary with the inputs that held (or an inequality that did not), or two
//! orderings of the same values that together say equal (`x > 0` false and `x < 0` false).

use super::error::DiffError;
use super::graph::Graph;
use crate::core::op::{Builtin, CmpOp, UnOp};
use crate::program::{PartInput, Src};
use crate::view::operation::Operation;
use std::collections::HashMap;

/// `Err` naming the first guard of `g` that confines the path to one point along the inputs
/// `wrt`.
pub(crate) fn refuse_point_path(g: &Graph, wrt: &[usize]) -> Result<(), DiffError> {
    let mut varies = vec![false; g.nodes.len()];
    let input_varies = |k: usize| {
        wrt.contains(&k)
            || matches!(
                g.inputs.get(k),
                Some(PartInput::Dynamic { varies: true, .. })
            )
    };
    let src_varies = |varies: &[bool], s: &Src| match s {
        Src::Input(k) => input_varies(*k),
        Src::Op(k) => varies.get(*k).copied().unwrap_or(false),
        Src::Const(_) => false,
    };
    for i in 0..g.nodes.len() {
        varies[i] = g.nodes[i].args.iter().any(|a| src_varies(&varies, a));
    }
    // For a pair of sides met at a tie: whether `a ≤ b`, `a ≥ b` were said.
    let mut ties: HashMap<(Key, Key), u8> = HashMap::new();
    for guard in &g.guards {
        let mut expected = guard.expected;
        let mut condition = &guard.condition;
        // Through negations and the pass-throughs a match guard or binding adds.
        let compare = loop {
            let Src::Op(k) = condition else { break None };
            let node = &g.nodes[*k];
            match node.op {
                Operation::Builtin(Builtin::Unary(UnOp::Not)) => expected = !expected,
                Operation::Builtin(Builtin::Guard | Builtin::Bind | Builtin::Deref) => {}
                Operation::Builtin(Builtin::Compare(op)) => break Some((op, &node.args)),
                _ => break None,
            }
            match node.args.first() {
                Some(a) => condition = a,
                None => break None,
            }
        };
        let Some((op, args)) = compare else { continue };
        let [a, b] = args.as_slice() else { continue };
        if !(src_varies(&varies, a) || src_varies(&varies, b)) {
            continue;
        }
        let pinned = match op {
            CmpOp::Eq => expected,
            CmpOp::Ne => !expected,
            _ => {
                let (va, vb) = (g.value(a).as_f64(), g.value(b).as_f64());
                let tie = matches!((va, vb), (Some(x), Some(y)) if x == y);
                // At a tie `<` and `>` are false, `<=` and `>=` true: each says `≤` or `≥`.
                let says = match (op, expected) {
                    _ if !tie => continue,
                    (CmpOp::Le, true) | (CmpOp::Gt, false) => AT_MOST,
                    (CmpOp::Ge, true) | (CmpOp::Lt, false) => AT_LEAST,
                    _ => continue,
                };
                let (ka, kb) = (key(a, va), key(b, vb));
                let (pair, says) = if ka <= kb {
                    ((ka, kb), says)
                } else {
                    ((kb, ka), AT_MOST + AT_LEAST - says)
                };
                let known = ties.entry(pair).or_insert(0);
                *known |= says;
                *known == AT_MOST | AT_LEAST
            }
        };
        if pinned {
            return Err(DiffError::PointPath {
                at: guard.origin.clone(),
            });
        }
    }
    Ok(())
}

const AT_MOST: u8 = 1;
const AT_LEAST: u8 = 2;

/// A side of a comparison: an input, an operation, or a constant by its value's bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    Input(usize),
    Op(usize),
    Const(u64),
}

fn key(s: &Src, value: Option<f64>) -> Key {
    match s {
        Src::Input(k) => Key::Input(*k),
        Src::Op(k) => Key::Op(*k),
        Src::Const(_) => Key::Const(value.map_or(u64::MAX, f64::to_bits)),
    }
}
