//! Delta debugging of a failing unit: try smaller variants (a statement dropped, a branch or a
//! loop replaced by its body, an expression replaced by a literal of its type or by a part of it
//! of the same type, unused helpers dropped), keep the smallest one that still fails the same
//! check, and start again from it until no variant fails.
//!
//! Variants are checked many at once: each is a unit of one generated crate (compiled, and run
//! with the original unit's inputs), so a round costs one build.

use super::ast::*;
use super::emit::Case;
use super::{Config, Crate, Verdict};
use std::collections::HashSet;
use std::time::Instant;

/// Variants per build.
const CHUNK: usize = 40;
/// Builds at most.
const MAX_BUILDS: usize = 40;

/// The smallest variant of `case` found that still fails like `verdict`, and its verdict.
pub fn minimise(
    cfg: &Config,
    case: &Case,
    verdict: &Verdict,
    log: &mut dyn FnMut(&str),
) -> (Case, Verdict) {
    let kind = verdict.kind();
    let mut krate = Crate::new(cfg, &format!("{}-min", cfg.seed), "difftest_min");
    krate.timeout = std::time::Duration::from_secs(20);
    let mut best = (case.clone(), verdict.clone());
    let started = Instant::now();
    let mut builds = 0;
    'rounds: loop {
        let size = best.0.unit.size();
        let mut seen = HashSet::new();
        let mut cands: Vec<(usize, Unit)> = candidates(&best.0.unit)
            .into_iter()
            .filter(|u| seen.insert(u.print(false)))
            .map(|u| (u.size(), u))
            .filter(|(s, _)| *s < size)
            .collect();
        cands.sort_by_key(|c| c.0);
        if cands.is_empty() {
            break;
        }
        for chunk in cands.chunks(CHUNK) {
            if builds >= MAX_BUILDS {
                break 'rounds;
            }
            builds += 1;
            let cases: Vec<Case> = chunk
                .iter()
                .enumerate()
                .map(|(i, (_, u))| Case {
                    name: format!("c{i}"),
                    unit: u.clone(),
                    input_seed: case.input_seed,
                })
                .collect();
            let verdicts = match krate.check(&cases, &mut |_| {}) {
                Ok(v) => v,
                Err(e) => {
                    let first: String = e.lines().take(12).collect::<Vec<_>>().join("\n    ");
                    log(&format!("  minimising: a build failed: {first}"));
                    continue;
                }
            };
            // Candidates are sorted by size: the first that fails alike is the smallest.
            let found = cases
                .iter()
                .find(|c| verdicts.get(&c.name).and_then(Verdict::kind) == kind);
            if let Some(c) = found {
                let v = verdicts[&c.name].clone();
                log(&format!(
                    "  minimising: {} -> {} bytes ({} builds, {:.0?})",
                    size,
                    c.unit.size(),
                    builds,
                    started.elapsed()
                ));
                best = (
                    Case {
                        name: case.name.clone(),
                        ..c.clone()
                    },
                    v,
                );
                continue 'rounds;
            }
        }
        break;
    }
    best
}

/// Visits every block and every expression of a unit, in a fixed order, before their parts.
trait Visit {
    fn block(&mut self, _b: &mut Block) {}
    fn expr(&mut self, _e: &mut Expr) {}
}

fn walk_unit(u: &mut Unit, v: &mut dyn Visit) {
    for s in &mut u.structs {
        for m in &mut s.methods {
            walk_block(&mut m.body, v);
        }
    }
    for h in &mut u.helpers {
        walk_block(&mut h.body, v);
    }
    walk_block(&mut u.entry.body, v);
}

fn walk_block(b: &mut Block, v: &mut dyn Visit) {
    v.block(b);
    for s in &mut b.stmts {
        walk_stmt(s, v);
    }
    if let Some(t) = &mut b.tail {
        walk_expr(t, v);
    }
}

fn walk_stmt(s: &mut Stmt, v: &mut dyn Visit) {
    match s {
        Stmt::Let { init, .. } => {
            if let Some(e) = init {
                walk_expr(e, v);
            }
        }
        Stmt::LetPat { init, .. } => walk_expr(init, v),
        Stmt::LetElse { init, els, .. } => {
            walk_expr(init, v);
            walk_block(els, v);
        }
        Stmt::Assign { place, value, .. } => {
            if let Place::Index(_, i) = place {
                walk_expr(i, v);
            }
            walk_expr(value, v);
        }
        Stmt::Expr(e) | Stmt::Return(e) | Stmt::Break(Some(e)) => walk_expr(e, v),
        Stmt::If { cond, then, els } => {
            walk_expr(cond, v);
            walk_block(then, v);
            if let Some(e) = els {
                walk_block(e, v);
            }
        }
        Stmt::Match { scrutinee, arms } => {
            walk_expr(scrutinee, v);
            for a in arms {
                if let Some(g) = &mut a.guard {
                    walk_expr(g, v);
                }
                walk_block(&mut a.body, v);
            }
        }
        Stmt::While {
            bound, cond, body, ..
        } => {
            walk_expr(bound, v);
            if let Some(c) = cond {
                walk_expr(c, v);
            }
            walk_block(body, v);
        }
        Stmt::For { iter, body, .. } => {
            walk_expr(iter, v);
            walk_block(body, v);
        }
        Stmt::Loop { bound, body, .. } => {
            walk_expr(bound, v);
            walk_block(body, v);
        }
        Stmt::Break(None) | Stmt::Continue | Stmt::Empty => {}
        Stmt::Attr(_, s) => walk_stmt(s, v),
        Stmt::Closure { body, .. } | Stmt::Block(body) => walk_block(body, v),
    }
}

fn walk_expr(e: &mut Expr, v: &mut dyn Visit) {
    v.expr(e);
    match e {
        Expr::T(_, a)
        | Expr::Unary(_, a)
        | Expr::Cast(a, _)
        | Expr::Field(a, _)
        | Expr::Index(_, a)
        | Expr::Some(a)
        | Expr::Try(a)
        | Expr::Closure(_, a) => walk_expr(a, v),
        Expr::Binary(_, a, b) => {
            walk_expr(a, v);
            walk_expr(b, v);
        }
        Expr::Call(_, args) | Expr::VecLit(args) | Expr::Tuple(args) => {
            for a in args {
                walk_expr(a, v);
            }
        }
        Expr::Method(r, _, args) => {
            walk_expr(r, v);
            for a in args {
                walk_expr(a, v);
            }
        }
        Expr::StructLit(_, fields) => {
            for (_, a) in fields {
                walk_expr(a, v);
            }
        }
        Expr::If(c, t, f) => {
            walk_expr(c, v);
            walk_block(t, v);
            walk_block(f, v);
        }
        Expr::Match(s, arms) => {
            walk_expr(s, v);
            for a in arms {
                if let Some(g) = &mut a.guard {
                    walk_expr(g, v);
                }
                walk_block(&mut a.body, v);
            }
        }
        Expr::Block(b) => walk_block(b, v),
        Expr::Loop {
            bound,
            default,
            body,
            ..
        } => {
            walk_expr(bound, v);
            walk_expr(default, v);
            walk_block(body, v);
        }
        Expr::Lit(_) | Expr::Var(_) | Expr::CloneOf(_) | Expr::Raw(_) | Expr::None => {}
    }
}

/// Collects clones of every block and of every typed expression, in visiting order.
#[derive(Default)]
struct Collect {
    blocks: Vec<Block>,
    exprs: Vec<(Ty, Expr)>,
}

impl Visit for Collect {
    fn block(&mut self, b: &mut Block) {
        self.blocks.push(b.clone());
    }
    fn expr(&mut self, e: &mut Expr) {
        if let Expr::T(t, inner) = e {
            self.exprs.push((*t, (**inner).clone()));
        }
    }
}

/// Replaces the `k`-th block, or the inside of the `k`-th typed expression.
struct Replace {
    k: usize,
    seen: usize,
    block: Option<Block>,
    expr: Option<Expr>,
}

impl Visit for Replace {
    fn block(&mut self, b: &mut Block) {
        if let Some(new) = &self.block {
            if self.seen == self.k {
                *b = new.clone();
            }
            self.seen += 1;
        }
    }
    fn expr(&mut self, e: &mut Expr) {
        if let (Some(new), Expr::T(_, inner)) = (&self.expr, &mut *e) {
            if self.seen == self.k {
                **inner = new.clone();
            }
            self.seen += 1;
        }
    }
}

fn with_block(u: &Unit, k: usize, b: Block) -> Unit {
    let mut u = u.clone();
    walk_unit(
        &mut u,
        &mut Replace {
            k,
            seen: 0,
            block: Some(b),
            expr: None,
        },
    );
    u
}

fn with_expr(u: &Unit, k: usize, e: Expr) -> Unit {
    let mut u = u.clone();
    walk_unit(
        &mut u,
        &mut Replace {
            k,
            seen: 0,
            block: None,
            expr: Some(e),
        },
    );
    u
}

/// The smaller variants of `u` to try.
fn candidates(u: &Unit) -> Vec<Unit> {
    let mut c = Collect::default();
    let mut copy = u.clone();
    walk_unit(&mut copy, &mut c);
    // Helpers and methods nothing calls any more, dropped.
    let mut out = vec![cleanup(u.clone())];
    for (k, b) in c.blocks.iter().enumerate() {
        if !b.inner.is_empty() {
            out.push(with_block(
                u,
                k,
                Block {
                    inner: vec![],
                    ..b.clone()
                },
            ));
        }
        for j in 0..b.stmts.len() {
            // Drop statement `j` unless a later one uses what it declares.
            let later = later_text(b, j);
            if declared(&b.stmts[j]).iter().all(|n| !uses_word(&later, n)) {
                let mut nb = b.clone();
                nb.stmts.remove(j);
                out.push(with_block(u, k, nb));
            }
            // Replace it by one of its blocks' statements.
            for inner in inner_blocks(&b.stmts[j]) {
                let mut nb = b.clone();
                nb.stmts.splice(j..=j, inner);
                out.push(with_block(u, k, nb));
            }
        }
    }
    let mut inner_types = Collect::default();
    for (k, (ty, e)) in c.exprs.iter().enumerate() {
        for lit in literals(u, *ty) {
            if *e != lit {
                out.push(with_expr(u, k, lit));
            }
        }
        // A part of the same type in its place (the nearest few).
        inner_types.exprs.clear();
        let mut e2 = e.clone();
        walk_expr(&mut e2, &mut inner_types);
        let mut n = 0;
        for (t, part) in inner_types.exprs.iter() {
            if t == ty && n < 4 {
                n += 1;
                out.push(with_expr(u, k, strip(part).clone()));
            }
        }
    }
    out
}

/// The statements of the blocks inside `s`, each a replacement for `s`.
fn inner_blocks(s: &Stmt) -> Vec<Vec<Stmt>> {
    match s {
        Stmt::If { then, els, .. } => {
            let mut v = vec![then.stmts.clone()];
            if let Some(e) = els {
                v.push(e.stmts.clone());
            }
            v
        }
        Stmt::Match { arms, .. } => arms
            .iter()
            .filter(|a| a.binds.is_empty())
            .map(|a| a.body.stmts.clone())
            .collect(),
        Stmt::While { body, .. } | Stmt::Loop { body, .. } | Stmt::Block(body) => {
            vec![body.stmts.clone()]
        }
        Stmt::Attr(_, s) => vec![vec![(**s).clone()]],
        _ => vec![],
    }
}

/// The names a statement declares in its block.
fn declared(s: &Stmt) -> Vec<String> {
    match s {
        Stmt::Let { name, .. } | Stmt::Closure { name, .. } => vec![name.clone()],
        Stmt::LetPat { binds, .. } => binds.clone(),
        Stmt::LetElse { bind, .. } => vec![bind.clone()],
        Stmt::Attr(_, s) => declared(s),
        _ => vec![],
    }
}

/// The text of the statements after `j` and of the tail.
fn later_text(b: &Block, j: usize) -> String {
    let rest = Block {
        inner: vec![],
        stmts: b.stmts[j + 1..].to_vec(),
        tail: b.tail.clone(),
    };
    let f = Func {
        name: "x".into(),
        receiver: None,
        params: vec![],
        ret: None,
        body: rest,
    };
    Unit {
        structs: vec![],
        helpers: vec![],
        entry: f,
    }
    .print(false)
}

/// Literals of type `ty`, the simplest replacements.
fn literals(u: &Unit, ty: Ty) -> Vec<Expr> {
    let t = |e| Expr::T(ty, Box::new(e));
    match ty {
        Ty::F64 => vec![Expr::Lit(Lit::F(1.0)), Expr::Lit(Lit::F(0.0))],
        Ty::I64 => vec![Expr::Lit(Lit::I(1))],
        Ty::Bool => vec![Expr::Lit(Lit::B(true)), Expr::Lit(Lit::B(false))],
        Ty::VecF64 => vec![Expr::VecLit(vec![t(Expr::Lit(Lit::F(1.0)))])],
        Ty::OptF64 => vec![Expr::Some(Box::new(Expr::Lit(Lit::F(1.0)))), Expr::None],
        Ty::Struct(id) => {
            let fields = u.structs[id as usize]
                .fields
                .iter()
                .map(|(n, ft)| {
                    let lit = literals(u, *ft).into_iter().next().unwrap();
                    (n.clone(), Expr::T(*ft, Box::new(lit)))
                })
                .collect();
            vec![Expr::StructLit(id, fields)]
        }
    }
}

/// Drops helpers and methods nothing calls, and the last struct if nothing names it.
fn cleanup(mut u: Unit) -> Unit {
    loop {
        let before = u.helpers.len()
            + u.structs.len()
            + u.structs.iter().map(|s| s.methods.len()).sum::<usize>();
        let all = u.print(false);
        // Called somewhere other than in its own body (`pub fn h0(` counts once).
        u.helpers
            .retain(|h| count_calls(&all, &h.name) > count_calls(&print_fn(h), &h.name));
        for s in &mut u.structs {
            let methods = s.methods.clone();
            s.methods.retain(|m| {
                let own_calls: usize = methods
                    .iter()
                    .filter(|o| o.name == m.name)
                    .map(|o| method_calls(&print_fn(o), &m.name))
                    .sum();
                method_calls(&all, &m.name) > own_calls
            });
        }
        if let Some(last) = u.structs.last() {
            let name = format!("S{}", last.id);
            let mut rest = u.clone();
            rest.structs.pop();
            if !uses_word(&rest.print(false), &name) {
                u.structs.pop();
            }
        }
        let after = u.helpers.len()
            + u.structs.len()
            + u.structs.iter().map(|s| s.methods.len()).sum::<usize>();
        if after == before {
            return u;
        }
    }
}
