//! Generation of random well-typed units.
//!
//! The generator keeps the variables in scope with their types and what may be done with them
//! (read, assign, mutate through a method), the functions and closures that can be called, and
//! the context of the code being generated (the function's return type, the enclosing loops,
//! whether `?` is allowed). Every expression is generated for a wanted type, so every program
//! is well typed by construction; loops run at most a few times (a counter with a small bound,
//! incremented first), recursion takes a depth parameter bounded at the call, integer division
//! and remainder have divisors in 1..=8, indices are taken modulo a length that is never zero,
//! and the generated crate wraps integer overflow (`overflow-checks = false`). Whatever panics
//! anyway must panic in both copies.

use super::ast::{self, *};
use rand::rngs::StdRng;
use rand::Rng;

/// Which constructs the generator may use. [`Features::ci`] is what the fixed-seed CI run and
/// the documented long run use; every construct it leaves out is listed, with the failure it
/// provokes, in docs/testing.md.
#[derive(Clone, Copy, Debug)]
pub struct Features {
    pub deferred_init: bool,
    pub cfg: bool,
    pub inner_attrs: bool,
    pub closures: bool,
    pub iterators: bool,
    pub structs: bool,
    /// `&mut self` methods, `v.push(e)`, field and index assignments.
    pub mutation: bool,
    pub recursion: bool,
    pub try_op: bool,
    pub shadowing: bool,
    pub let_else: bool,
    pub destructuring: bool,
    /// `f64::from_bits(x.to_bits() …)`.
    pub bits: bool,
    /// Empty statements (`;`).
    pub empty_stmt: bool,
}

impl Features {
    /// Everything the generator can write.
    pub fn all() -> Features {
        Features {
            deferred_init: true,
            cfg: true,
            inner_attrs: true,
            closures: true,
            iterators: true,
            structs: true,
            mutation: true,
            recursion: true,
            try_op: true,
            shadowing: true,
            let_else: true,
            destructuring: true,
            bits: true,
            empty_stmt: true,
        }
    }

    /// The constructs the CI run uses: all of them, less the known failures listed in
    /// docs/testing.md.
    pub fn ci() -> Features {
        Features::all()
    }

    /// Parses `IRTRACK_DIFFTEST_FEATURES`: `all`, `ci`, or a comma-separated list of changes
    /// to `ci` such as `-bits,+cfg`.
    pub fn parse(text: &str) -> Result<Features, String> {
        let mut f = Features::ci();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if part == "all" {
                f = Features::all();
                continue;
            }
            if part == "ci" {
                f = Features::ci();
                continue;
            }
            let (on, name) = match part.split_at(1) {
                ("+", n) => (true, n),
                ("-", n) => (false, n),
                _ => return Err(format!("`{part}`: write +name or -name")),
            };
            let slot = match name {
                "deferred_init" => &mut f.deferred_init,
                "cfg" => &mut f.cfg,
                "inner_attrs" => &mut f.inner_attrs,
                "closures" => &mut f.closures,
                "iterators" => &mut f.iterators,
                "structs" => &mut f.structs,
                "mutation" => &mut f.mutation,
                "recursion" => &mut f.recursion,
                "try_op" => &mut f.try_op,
                "shadowing" => &mut f.shadowing,
                "let_else" => &mut f.let_else,
                "destructuring" => &mut f.destructuring,
                "bits" => &mut f.bits,
                "empty_stmt" => &mut f.empty_stmt,
                _ => return Err(format!("unknown feature `{name}`")),
            };
            *slot = on;
        }
        Ok(f)
    }
}

/// Statements to end a block with, made in the block's scope.
type End<'a> = Option<&'a dyn Fn(&mut Gen) -> Vec<Stmt>>;

/// A callable function's signature.
#[derive(Clone, Debug)]
struct Sig {
    name: String,
    params: Vec<Ty>,
    ret: Ty,
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    ty: Ty,
    /// How a read is written (`x`, `(*e)`, `(k as i64)`).
    read: String,
    mutable: bool,
    init: bool,
    /// Loop counters, binders and captured variables are read-only.
    assignable: bool,
    /// A stored closure: its parameter types (its `ty` is its return type).
    closure: Option<Vec<Ty>>,
}

#[derive(Clone, Debug)]
struct Ctx {
    /// The return type of the function or closure being generated (`None`: `()`).
    ret: Option<Ty>,
    /// The enclosing loops, innermost last: the type a `break` must carry, if any.
    loops: Vec<Option<Ty>>,
    /// The loop (an index into `loops`) whose head (bound, `break` default) is being
    /// generated: that code runs before the counter moves, so a `continue` there would loop
    /// for ever.
    head_of: Option<usize>,
    /// `?` is allowed (the function returns `Option<f64>` and this is not a closure).
    can_try: bool,
    /// Calls to the recursive helper are allowed (its name and how many are left).
    rec_calls: usize,
    /// Variables below this index in the scope are read-only here (inside a closure).
    readonly_below: usize,
    /// Vectors and structs below this index are read-only here (inside a block in an
    /// expression, which may be the argument of a method borrowing them).
    frozen_below: usize,
    /// Helpers callable here (indices into `Gen::sigs`).
    callable: Vec<usize>,
    /// Inside the recursive helper's recursive branch.
    in_rec: bool,
    /// Inside a match guard: nothing may jump out of it (`#[tracked]` refuses a `return`,
    /// `?`, or a `break`/`continue` of an outer loop there, since a guard with control flow
    /// runs unrecorded).
    in_guard: bool,
}

/// The generator of one unit.
pub struct Gen {
    rng: StdRng,
    f: Features,
    structs: Vec<StructDef>,
    sigs: Vec<Sig>,
    /// The recursive helper's signature, if the unit has one (`r(d: i64, …)`).
    rec: Option<Sig>,
    scope: Vec<Var>,
    ctx: Ctx,
    fresh: usize,
    /// Statements left for the function being generated.
    budget: i32,
}

const NICE_F: &[f64] = &[
    0.0, 0.5, 1.0, 2.0, 3.0, 0.25, 1.5, 0.1, 10.0, 0.001, 100.0, 0.75, 2.5, 1e-3, 4.0,
];

/// Generates one unit.
pub fn unit(rng: StdRng, f: Features) -> Unit {
    let mut g = Gen {
        rng,
        f,
        structs: Vec::new(),
        sigs: Vec::new(),
        rec: None,
        scope: Vec::new(),
        ctx: Ctx {
            ret: None,
            loops: vec![],
            head_of: None,
            can_try: false,
            rec_calls: 0,
            readonly_below: 0,
            frozen_below: 0,
            callable: vec![],
            in_rec: false,
            in_guard: false,
        },
        fresh: 0,
        budget: 0,
    };
    g.unit()
}

impl Gen {
    fn p(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    fn n(&mut self, lo: usize, hi: usize) -> usize {
        self.rng.random_range(lo..=hi)
    }

    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.rng.random_range(0..xs.len())].clone()
    }

    fn name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    fn scalar_ty(&mut self) -> Ty {
        *self.pick_weighted(&[(Ty::F64, 6), (Ty::I64, 3), (Ty::Bool, 2)])
    }

    fn pick_weighted<'a, T>(&mut self, xs: &'a [(T, u32)]) -> &'a T {
        let total: u32 = xs.iter().map(|x| x.1).sum();
        let mut k = self.rng.random_range(0..total);
        for (x, w) in xs {
            if k < *w {
                return x;
            }
            k -= w;
        }
        unreachable!()
    }

    /// Any value type, structs included when the unit has some.
    fn any_ty(&mut self) -> Ty {
        let mut xs = vec![
            (Ty::F64, 8),
            (Ty::I64, 4),
            (Ty::Bool, 2),
            (Ty::VecF64, 2),
            (Ty::OptF64, 1),
        ];
        for s in &self.structs {
            xs.push((Ty::Struct(s.id), 1));
        }
        *self.pick_weighted(&xs)
    }

    // -----------------------------------------------------------------------------------------
    // Units, functions, structs.
    // -----------------------------------------------------------------------------------------

    fn unit(&mut self) -> Unit {
        // Structs: their fields first, so every signature can mention them.
        if self.f.structs && self.p(0.35) {
            let count = self.n(1, 2);
            for id in 0..count as u8 {
                let mut fields = Vec::new();
                let nf = self.n(1, 3);
                for k in 0..nf {
                    let ty = self.scalar_ty();
                    fields.push((format!("f{k}"), ty));
                }
                if id == 1 && self.p(0.6) {
                    fields.push(("inner".to_string(), Ty::Struct(0)));
                }
                let snapshot = self.p(0.5);
                self.structs.push(StructDef {
                    id,
                    fields,
                    snapshot,
                    methods: vec![],
                });
            }
        }
        // Method signatures.
        let mut method_sigs: Vec<(u8, Receiver, Sig)> = Vec::new();
        for s in 0..self.structs.len() {
            let id = self.structs[s].id;
            let count = self.n(0, 2);
            for k in 0..count {
                let recv = if self.f.mutation && self.p(0.3) {
                    Receiver::Mut
                } else if self.p(0.25) {
                    Receiver::Value
                } else {
                    Receiver::Ref
                };
                let np = self.n(0, 2);
                let params = (0..np).map(|_| self.scalar_ty()).collect();
                let ret = match recv {
                    Receiver::Value if self.p(0.5) => Ty::Struct(id),
                    _ => self.scalar_ty(),
                };
                method_sigs.push((
                    id,
                    recv,
                    Sig {
                        name: format!("m{k}"),
                        params,
                        ret,
                    },
                ));
            }
        }
        // Helper signatures: `h0`, `h1`, … each may call the later ones.
        let nh = *self.pick_weighted(&[(0usize, 3), (1, 3), (2, 2)]);
        for k in 0..nh {
            let np = self.n(1, 3);
            let params = (0..np).map(|_| self.any_ty()).collect();
            let ret = self.any_ty();
            self.sigs.push(Sig {
                name: format!("h{k}"),
                params,
                ret,
            });
        }
        if self.f.recursion && self.p(0.25) {
            let np = self.n(1, 2);
            let mut params = vec![Ty::I64];
            params.extend((0..np).map(|_| self.scalar_ty()));
            let ret = *self.pick_weighted(&[(Ty::F64, 4), (Ty::I64, 1), (Ty::VecF64, 1)]);
            self.rec = Some(Sig {
                name: "r".into(),
                params,
                ret,
            });
        }
        // The entry's signature: mostly `f64`s in, `f64` out, so most units get a gradient.
        let np = self.n(1, 3);
        let mut params = Vec::new();
        for _ in 0..np {
            let t = if self.p(0.6) { Ty::F64 } else { self.any_ty() };
            params.push(t);
        }
        let ret = *self.pick_weighted(&[
            (Ty::F64, 12),
            (Ty::I64, 2),
            (Ty::Bool, 1),
            (Ty::VecF64, 2),
            (Ty::OptF64, if self.f.try_op { 3 } else { 1 }),
        ]);

        // Bodies. Methods first (they call nothing), then helpers from the last to the first.
        for (id, recv, sig) in method_sigs {
            let m = self.function(&sig, Some((id, recv)), vec![]);
            self.structs[id as usize].methods.push(m);
        }
        let mut helpers = Vec::new();
        if let Some(rec) = self.rec.clone() {
            helpers.push(self.recursive(&rec));
        }
        for k in (0..self.sigs.len()).rev() {
            let sig = self.sigs[k].clone();
            let callable: Vec<usize> = (k + 1..self.sigs.len()).collect();
            let h = self.function(&sig, None, callable);
            helpers.insert(0, h);
        }
        let entry_sig = Sig {
            name: "f".into(),
            params,
            ret,
        };
        let callable: Vec<usize> = (0..self.sigs.len()).collect();
        let entry = self.function(&entry_sig, None, callable);
        let mut unit = Unit {
            structs: self.structs.clone(),
            helpers,
            entry,
        };
        // Every helper and method runs: the entry calls those nothing else calls (its
        // parameters are still in scope here).
        let calls = self.calls_of_uncalled(&unit);
        unit.entry.body.stmts.splice(0..0, calls);
        unit
    }

    /// `let _ = h(…);` for each helper or method only its own body calls, if any.
    fn calls_of_uncalled(&mut self, u: &Unit) -> Vec<Stmt> {
        let all = u.print(false);
        let mut out = Vec::new();
        let ignore = |ty: Ty, call: Expr| Stmt::Let {
            name: "_".into(),
            mutable: false,
            ty: Some(ty),
            init: Some(Expr::T(ty, Box::new(call))),
        };
        for h in &u.helpers {
            if count_calls(&all, &h.name) > count_calls(&print_fn(h), &h.name) {
                continue;
            }
            let mut args = Vec::new();
            for (i, (_, t)) in h.params.iter().enumerate() {
                if i == 0 && self.rec.as_ref().is_some_and(|r| r.name == h.name) {
                    args.push(Expr::Lit(Lit::I(self.rng.random_range(0..=3))));
                } else {
                    args.push(self.expr(*t, 1));
                }
            }
            let ret = h.ret.unwrap();
            let s = ignore(ret, Expr::Call(h.name.clone(), args));
            out.push(s);
        }
        for sd in &u.structs {
            for m in &sd.methods {
                if method_calls(&all, &m.name) > method_calls(&print_fn(m), &m.name) {
                    continue;
                }
                let recv = self.struct_lit(sd.id, 0);
                let args = m.params.iter().map(|(_, t)| self.expr(*t, 1)).collect();
                match m.ret {
                    Some(ret) => {
                        let call = Expr::Method(Box::new(recv), m.name.clone(), args);
                        let s = ignore(ret, call);
                        out.push(s);
                    }
                    None => {
                        let s = self.name("s");
                        out.push(Stmt::Block(Block {
                            inner: vec![],
                            stmts: vec![
                                Stmt::Let {
                                    name: s.clone(),
                                    mutable: true,
                                    ty: Some(Ty::Struct(sd.id)),
                                    init: Some(recv),
                                },
                                Stmt::Expr(Expr::Method(
                                    Box::new(Expr::Var(s)),
                                    m.name.clone(),
                                    args,
                                )),
                            ],
                            tail: None,
                        }));
                    }
                }
            }
        }
        out
    }

    fn param_name(&mut self, ty: Ty) -> String {
        let p = match ty {
            Ty::F64 => "x",
            Ty::I64 => "n",
            Ty::Bool => "b",
            Ty::VecF64 => "v",
            Ty::OptF64 => "o",
            Ty::Struct(_) => "s",
        };
        self.name(p)
    }

    fn begin_fn(&mut self, ret: Option<Ty>, callable: Vec<usize>, budget: i32) {
        self.scope.clear();
        self.fresh = 0;
        self.budget = budget;
        self.ctx = Ctx {
            ret,
            loops: vec![],
            head_of: None,
            can_try: ret == Some(Ty::OptF64),
            rec_calls: 0,
            readonly_below: 0,
            frozen_below: 0,
            callable,
            in_rec: false,
            in_guard: false,
        };
    }

    fn push_var(&mut self, name: &str, ty: Ty, mutable: bool, assignable: bool) {
        self.scope.push(Var {
            name: name.to_string(),
            ty,
            read: name.to_string(),
            mutable,
            init: true,
            assignable,
            closure: None,
        });
    }

    fn function(
        &mut self,
        sig: &Sig,
        method: Option<(u8, Receiver)>,
        callable: Vec<usize>,
    ) -> Func {
        let budget = self.n(2, 12) as i32;
        let ret = if matches!(method, Some((_, Receiver::Mut))) {
            None
        } else {
            Some(sig.ret)
        };
        self.begin_fn(ret, callable, budget);
        if let Some((id, recv)) = method {
            self.scope.push(Var {
                name: "self".into(),
                ty: Ty::Struct(id),
                read: if recv == Receiver::Value {
                    "self"
                } else {
                    "(*self)"
                }
                .into(),
                mutable: recv == Receiver::Mut,
                init: true,
                assignable: false,
                closure: None,
            });
        }
        let mut params = Vec::new();
        for &t in &sig.params {
            let n = self.param_name(t);
            self.push_var(&n, t, false, false);
            params.push((n, t));
        }
        // A `&mut self` method changes a field.
        let assign_field = |g: &mut Self| g.field_assign_of("self").into_iter().collect();
        let end: End = if method.is_some_and(|(_, r)| r == Receiver::Mut) {
            Some(&assign_field)
        } else {
            None
        };
        let mut body = self.block_with(ret, 0, end);
        if self.f.inner_attrs && self.p(0.15) {
            body.inner.push(self.inner_attr());
        }
        Func {
            name: sig.name.clone(),
            receiver: method.map(|m| m.1),
            params,
            ret,
            body,
        }
    }

    /// `fn r(d: i64, …) -> T { if d <= 0 { base } else { … r(d - 1, …) … } }`
    fn recursive(&mut self, sig: &Sig) -> Func {
        let budget = self.n(2, 6) as i32;
        self.begin_fn(Some(sig.ret), vec![], budget);
        let mut params = vec![("d".to_string(), Ty::I64)];
        self.push_var("d", Ty::I64, false, false);
        for &t in &sig.params[1..] {
            let n = self.param_name(t);
            self.push_var(&n, t, false, false);
            params.push((n, t));
        }
        self.ctx.in_rec = true;
        let base = self.block(Some(sig.ret), 1);
        self.ctx.rec_calls = 2;
        let mut step = self.block(Some(sig.ret), 1);
        if self.ctx.rec_calls == 2 {
            // Make sure it recurses at least once: the tail becomes `tail + r(d - 1, …)` or
            // the like.
            // (outside the block, whose `let`s may shadow the parameters).
            let call = self.rec_call().unwrap();
            let inner = Box::new(Expr::Block(Box::new(step)));
            step = Block {
                tail: Some(Box::new(match sig.ret {
                    Ty::F64 => Expr::Binary(BinOp::Add, inner, Box::new(call)),
                    Ty::I64 => Expr::Binary(BinOp::BitXor, inner, Box::new(call)),
                    _ => call,
                })),
                ..Block::default()
            };
        }
        self.ctx.in_rec = false;
        let body = Block {
            inner: vec![],
            stmts: vec![],
            tail: Some(Box::new(Expr::If(
                Box::new(Expr::Binary(
                    BinOp::Le,
                    Box::new(Expr::Var("d".into())),
                    Box::new(Expr::Lit(Lit::I(0))),
                )),
                Box::new(base),
                Box::new(step),
            ))),
        };
        Func {
            name: sig.name.clone(),
            receiver: None,
            params,
            ret: Some(sig.ret),
            body,
        }
    }

    fn inner_attr(&mut self) -> String {
        self.pick(&[
            "allow(unused_variables)".to_string(),
            "allow(unused_mut)".to_string(),
            "allow(unused_assignments, unreachable_code)".to_string(),
            "allow(clippy::all)".to_string(),
            "deny(unused_unsafe)".to_string(),
        ])
    }

    // -----------------------------------------------------------------------------------------
    // Blocks and statements.
    // -----------------------------------------------------------------------------------------

    /// A block whose tail has type `tail` (none for `()`), at nesting `depth`.
    fn block(&mut self, tail: Option<Ty>, depth: usize) -> Block {
        self.block_with(tail, depth, None)
    }

    /// A block ending with the statements `end` makes, generated in the block's scope (a
    /// variable the block shadows must not be taken for the outer one).
    fn block_with(&mut self, tail: Option<Ty>, depth: usize, end: End) -> Block {
        let mark = self.scope.len();
        let mut b = Block::default();
        let want = if depth == 0 {
            self.budget.max(1)
        } else {
            self.n(0, 3) as i32
        };
        let mut k = 0;
        while k < want && self.budget > 0 {
            self.budget -= 1;
            k += 1;
            let mut stmts = self.stmt(depth);
            b.stmts.append(&mut stmts);
        }
        if let Some(end) = end {
            let mut stmts = end(self);
            b.stmts.append(&mut stmts);
        }
        if let Some(t) = tail {
            b.tail = Some(Box::new(self.expr(t, 2)));
        }
        self.scope.truncate(mark);
        b
    }

    /// Variables that may be assigned here, with a type filter.
    fn assignable(&self, pred: impl Fn(&Var) -> bool) -> Vec<usize> {
        (self.ctx.readonly_below..self.scope.len())
            .filter(|&i| {
                let v = &self.scope[i];
                let frozen =
                    i < self.ctx.frozen_below && matches!(v.ty, Ty::VecF64 | Ty::Struct(_));
                v.mutable
                    && v.init
                    && v.assignable
                    && !frozen
                    && v.closure.is_none()
                    && self.visible(i)
                    && pred(v)
            })
            .collect()
    }

    /// Whether scope entry `i` is not shadowed by a later one of the same name.
    fn visible(&self, i: usize) -> bool {
        let n = &self.scope[i].name;
        !self.scope[i + 1..].iter().any(|v| &v.name == n)
    }

    fn readable(&self, ty: Ty) -> Vec<usize> {
        (0..self.scope.len())
            .filter(|&i| {
                let v = &self.scope[i];
                v.ty == ty && v.init && v.closure.is_none() && self.visible(i)
            })
            .collect()
    }

    /// One statement (or a few that belong together), at nesting `depth`.
    fn stmt(&mut self, depth: usize) -> Vec<Stmt> {
        let in_loop = !self.ctx.loops.is_empty();
        let deep = depth >= 3;
        let choices: Vec<(u8, u32)> = vec![
            (0, 10),                       // let
            (1, 8),                        // assignment
            (2, if deep { 0 } else { 4 }), // if
            (3, if deep { 0 } else { 2 }), // match
            (
                4,
                if deep || self.ctx.loops.len() >= 2 {
                    0
                } else {
                    3
                },
            ), // loops
            (5, if self.f.deferred_init { 3 } else { 0 }), // deferred init
            (6, if self.ctx.in_guard { 0 } else { 2 }), // early return
            (7, if in_loop { 3 } else { 0 }), // break / continue
            (8, if self.f.cfg { 2 } else { 0 }), // #[cfg]
            (9, if self.f.closures { 2 } else { 0 }), // closure
            (10, if self.f.mutation { 4 } else { 0 }), // mutation
            (11, if deep { 0 } else { 1 }), // block statement
            (12, if self.f.destructuring { 2 } else { 0 }), // destructuring
            (
                13,
                if self.f.let_else && !(self.ctx.in_guard && self.ctx.loops.is_empty()) {
                    1
                } else {
                    0
                },
            ), // let … else
            (14, 1),                       // `let _ = e;`
            (15, if self.f.empty_stmt { 1 } else { 0 }), // `;`
        ];
        let which = *self.pick_weighted(&choices);
        match which {
            0 => vec![self.let_stmt()],
            1 => self.assign_stmt().into_iter().collect(),
            2 => vec![self.if_stmt(depth)],
            3 => vec![self.match_stmt(depth)],
            4 => self.loop_stmt(depth),
            5 => self.deferred_init(depth),
            6 => vec![self.early_return(depth)],
            7 => vec![self.break_stmt()],
            8 => self.cfg_stmt(depth),
            9 => vec![self.closure_stmt()],
            10 => self.mutation_stmt().into_iter().collect(),
            11 => {
                let mut b = self.block(None, depth + 1);
                if self.f.inner_attrs && self.p(0.3) {
                    b.inner.push(self.inner_attr());
                }
                vec![Stmt::Block(b)]
            }
            12 => self.destructure(),
            13 => self.let_else(),
            15 => vec![Stmt::Empty],
            _ => {
                let t = self.any_ty();
                vec![Stmt::Let {
                    name: "_".into(),
                    mutable: false,
                    ty: Some(t),
                    init: Some(self.expr(t, 2)),
                }]
            }
        }
    }

    fn let_stmt(&mut self) -> Stmt {
        let ty = self.any_ty();
        let init = self.expr(ty, 3);
        let mutable = self.p(0.5);
        let name = self.let_name(ty);
        let annotate = !is_typed(&init) || self.p(0.5);
        self.push_var(&name, ty, mutable, true);
        Stmt::Let {
            name,
            mutable,
            ty: annotate.then_some(ty),
            init: Some(init),
        }
    }

    /// A fresh name, or (shadowing) the name of a variable in scope.
    fn let_name(&mut self, _ty: Ty) -> String {
        if self.f.shadowing && self.p(0.15) {
            let names: Vec<String> = self
                .scope
                .iter()
                .filter(|v| {
                    v.name != "self" && v.name != "d" && v.closure.is_none() && v.read == v.name
                })
                .map(|v| v.name.clone())
                .collect();
            if !names.is_empty() {
                return self.pick(&names);
            }
        }
        self.name("a")
    }

    fn compound_op(&mut self, ty: Ty) -> Option<BinOp> {
        if self.p(0.4) {
            return None;
        }
        Some(match ty {
            Ty::F64 => self.pick(&[BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Rem]),
            Ty::I64 => self.pick(&[
                BinOp::Add,
                BinOp::Sub,
                BinOp::Mul,
                BinOp::BitAnd,
                BinOp::BitOr,
                BinOp::BitXor,
                BinOp::Div,
                BinOp::Shl,
            ]),
            Ty::Bool => self.pick(&[BinOp::BitAnd, BinOp::BitOr, BinOp::BitXor]),
            _ => return None,
        })
    }

    /// The right operand of `op` on `ty`: a divisor in 1..=8 for integer division and
    /// remainder, a shift in 0..=31.
    fn operand(&mut self, op: BinOp, ty: Ty, depth: usize) -> Expr {
        let e = self.expr(ty, depth);
        match (op, ty) {
            (BinOp::Div | BinOp::Rem, Ty::I64) => safe_divisor(e),
            // A float remainder is a sawtooth of period |divisor|: below the finite-difference
            // step (`x % f64::EPSILON`) the quotient sees noise where the slope is 1.
            (BinOp::Rem, Ty::F64) => Expr::Method(
                Box::new(Expr::Method(Box::new(e), "abs".into(), vec![])),
                "max".into(),
                vec![Expr::Lit(Lit::F(0.5))],
            ),
            (BinOp::Shl | BinOp::Shr, Ty::I64) => {
                Expr::Binary(BinOp::BitAnd, Box::new(e), Box::new(Expr::Lit(Lit::I(31))))
            }
            _ => e,
        }
    }

    fn assign_stmt(&mut self) -> Option<Stmt> {
        let vars = self.assignable(|_| true);
        if vars.is_empty() {
            return self.mutation_stmt();
        }
        let i = self.pick(&vars);
        let (name, ty) = (self.scope[i].name.clone(), self.scope[i].ty);
        let op = self.compound_op(ty);
        let value = match op {
            Some(op) => self.operand(op, ty, 2),
            None => self.expr(ty, 3),
        };
        Some(Stmt::Assign {
            place: Place::Var(name),
            op,
            value,
        })
    }

    /// `s.f = e`, `v[i] += e`, `v.push(e)`, `s.m(…)` on mutable variables.
    fn mutation_stmt(&mut self) -> Option<Stmt> {
        let structs = self.assignable(|v| matches!(v.ty, Ty::Struct(_)));
        let vecs = self.assignable(|v| v.ty == Ty::VecF64);
        let mut options = Vec::new();
        if !structs.is_empty() {
            options.push(0);
            options.push(1);
        }
        if !vecs.is_empty() {
            options.push(2);
            options.push(3);
        }
        if options.is_empty() {
            return None;
        }
        match self.pick(&options) {
            0 => {
                let i = self.pick(&structs);
                let name = self.scope[i].name.clone();
                self.field_assign_of(&name)
            }
            1 => {
                let i = self.pick(&structs);
                let (name, Ty::Struct(id)) = (self.scope[i].name.clone(), self.scope[i].ty) else {
                    unreachable!()
                };
                let muts: Vec<Func> = self.structs[id as usize]
                    .methods
                    .iter()
                    .filter(|m| m.receiver == Some(Receiver::Mut))
                    .cloned()
                    .collect();
                if muts.is_empty() {
                    return self.field_assign_of(&name);
                }
                let m = self.pick(&muts);
                let args = m.params.iter().map(|(_, t)| self.expr(*t, 2)).collect();
                Some(Stmt::Expr(Expr::Method(
                    Box::new(Expr::Var(name)),
                    m.name.clone(),
                    args,
                )))
            }
            2 => {
                let i = self.pick(&vecs);
                let name = self.scope[i].name.clone();
                let op = if self.p(0.5) {
                    None
                } else {
                    Some(self.pick(&[BinOp::Add, BinOp::Mul, BinOp::Sub]))
                };
                let idx = self.expr(Ty::I64, 1);
                let value = self.expr(Ty::F64, 2);
                Some(Stmt::Assign {
                    place: Place::Index(name, idx),
                    op,
                    value,
                })
            }
            _ => {
                let i = self.pick(&vecs);
                let name = self.scope[i].name.clone();
                let value = self.expr(Ty::F64, 2);
                Some(Stmt::Expr(Expr::Method(
                    Box::new(Expr::Var(name)),
                    "push".into(),
                    vec![value],
                )))
            }
        }
    }

    /// `s.f = e` or `s.inner.f op= e` for the struct variable `name` (assumed mutable).
    fn field_assign_of(&mut self, name: &str) -> Option<Stmt> {
        let ty = self.scope.iter().rev().find(|v| v.name == name)?.ty;
        let Ty::Struct(id) = ty else { return None };
        let mut path = Vec::new();
        let mut def = self.structs[id as usize].clone();
        loop {
            let (fname, fty) = self.pick(&def.fields);
            path.push(fname);
            match fty {
                Ty::Struct(inner) => def = self.structs[inner as usize].clone(),
                t => {
                    let op = self.compound_op(t);
                    let value = match op {
                        Some(op) => self.operand(op, t, 2),
                        None => self.expr(t, 2),
                    };
                    return Some(Stmt::Assign {
                        place: Place::Field(name.to_string(), path),
                        op,
                        value,
                    });
                }
            }
        }
    }

    fn if_stmt(&mut self, depth: usize) -> Stmt {
        let cond = self.expr(Ty::Bool, 2);
        let then = self.block(None, depth + 1);
        let els = if self.p(0.5) {
            if self.p(0.3) {
                // `else if`
                let inner = self.if_stmt(depth + 1);
                Some(Block {
                    stmts: vec![inner],
                    ..Block::default()
                })
            } else {
                Some(self.block(None, depth + 1))
            }
        } else {
            None
        };
        Stmt::If { cond, then, els }
    }

    fn match_stmt(&mut self, depth: usize) -> Stmt {
        let (scrutinee, arms) = self.match_parts(None, depth + 1, None);
        Stmt::Match { scrutinee, arms }
    }

    /// A scrutinee and arms whose bodies have type `ty` (or `()`).
    fn match_parts(&mut self, ty: Option<Ty>, depth: usize, end: End) -> (Expr, Vec<Arm>) {
        let kind = self.n(
            0,
            if self.readable(Ty::OptF64).is_empty() {
                2
            } else {
                3
            },
        );
        let mut arms = Vec::new();
        let arm = |g: &mut Self, pat: &str, binds: Vec<(String, Ty)>, guard: bool| {
            let mark = g.scope.len();
            for (n, t) in &binds {
                g.push_var(n, *t, false, false);
            }
            // A guard sees the scrutinee borrowed: it assigns nothing outside.
            let readonly = std::mem::replace(&mut g.ctx.readonly_below, g.scope.len());
            let outside = g.ctx.clone();
            g.ctx.loops.clear();
            g.ctx.head_of = None;
            g.ctx.can_try = false;
            g.ctx.in_guard = true;
            let guard = guard.then(|| g.expr(Ty::Bool, 1));
            g.ctx.loops = outside.loops;
            g.ctx.head_of = outside.head_of;
            g.ctx.can_try = outside.can_try;
            g.ctx.in_guard = outside.in_guard;
            g.ctx.readonly_below = readonly;
            let body = g.block_with(ty, depth, end);
            g.scope.truncate(mark);
            Arm {
                pat: pat.to_string(),
                binds,
                guard,
                body,
            }
        };
        match kind {
            0 => {
                // Integers: literals, alternatives, ranges, a binding with a guard, `_`.
                let scrutinee = self.expr(Ty::I64, 2);
                let n = self.n(1, 3);
                let mut lo = self.rng.random_range(-3..3);
                for _ in 0..n {
                    let pat = match self.n(0, 3) {
                        0 => format!("{lo}"),
                        1 => format!("{lo} | {}", lo + 1),
                        2 => format!("{lo}..={}", lo + 2),
                        _ => {
                            let b = self.name("m");
                            let a = arm(self, &b.clone(), vec![(b, Ty::I64)], true);
                            arms.push(a);
                            lo += 3;
                            continue;
                        }
                    };
                    let a = arm(self, &pat, vec![], false);
                    arms.push(a);
                    lo += 3;
                }
                let a = arm(self, "_", vec![], false);
                arms.push(a);
                (scrutinee, arms)
            }
            1 => {
                let scrutinee = self.expr(Ty::Bool, 2);
                let a = arm(self, "true", vec![], false);
                arms.push(a);
                let a = arm(self, "false", vec![], false);
                arms.push(a);
                (scrutinee, arms)
            }
            2 => {
                let scrutinee = Expr::Tuple(vec![self.expr(Ty::Bool, 1), self.expr(Ty::Bool, 1)]);
                let a = arm(self, "(true, _)", vec![], false);
                arms.push(a);
                let a = arm(self, "(false, true)", vec![], false);
                arms.push(a);
                let a = arm(self, "_", vec![], false);
                arms.push(a);
                (scrutinee, arms)
            }
            _ => {
                let scrutinee = self.expr(Ty::OptF64, 2);
                let t = self.name("t");
                if self.p(0.4) {
                    let a = arm(
                        self,
                        &format!("Some({t})"),
                        vec![(t.clone(), Ty::F64)],
                        true,
                    );
                    arms.push(a);
                }
                let a = arm(self, &format!("Some({t})"), vec![(t, Ty::F64)], false);
                arms.push(a);
                let a = arm(self, "None", vec![], false);
                arms.push(a);
                (scrutinee, arms)
            }
        }
    }

    fn loop_bound(&mut self) -> Expr {
        if self.p(0.5) {
            Expr::Lit(Lit::I(self.rng.random_range(0..=4)))
        } else {
            let e = self.expr(Ty::I64, 1);
            Expr::Method(Box::new(e), "rem_euclid".into(), vec![Expr::Lit(Lit::I(4))])
        }
    }

    fn loop_stmt(&mut self, depth: usize) -> Vec<Stmt> {
        // The counter stays declared after the loop, but is not used there.
        let mark = self.scope.len();
        let s = self.loop_stmt_inner(depth);
        self.scope.truncate(mark);
        s
    }

    fn loop_stmt_inner(&mut self, depth: usize) -> Vec<Stmt> {
        let mut s = self.loop_stmt_kind(depth);
        // Loop bodies may have inner attributes too.
        if self.f.inner_attrs && self.p(0.1) {
            let attr = self.inner_attr();
            if let Some(
                Stmt::While { body, .. } | Stmt::Loop { body, .. } | Stmt::For { body, .. },
            ) = s.last_mut()
            {
                body.inner.push(attr);
            }
        }
        s
    }

    fn loop_stmt_kind(&mut self, depth: usize) -> Vec<Stmt> {
        let kind = self.n(0, 2);
        match kind {
            0 => {
                let counter = self.name("i");
                // The condition is outside the loop's body, where `break` is an error.
                let loops = std::mem::take(&mut self.ctx.loops);
                let bound = self.loop_bound();
                self.push_var(&counter, Ty::I64, false, false);
                let cond = self.p(0.3).then(|| self.expr(Ty::Bool, 1));
                self.ctx.loops = loops;
                self.ctx.loops.push(None);
                let body = self.block(None, depth + 1);
                self.ctx.loops.pop();
                vec![Stmt::While {
                    counter,
                    bound,
                    cond,
                    body,
                }]
            }
            1 => {
                let counter = self.name("i");
                // The bound is tested inside the loop.
                self.ctx.loops.push(None);
                let head = self.ctx.head_of.replace(self.ctx.loops.len() - 1);
                let bound = self.loop_bound();
                self.ctx.head_of = head;
                self.push_var(&counter, Ty::I64, false, false);
                let body = self.block(None, depth + 1);
                self.ctx.loops.pop();
                vec![Stmt::Loop {
                    counter,
                    bound,
                    body,
                }]
            }
            _ => {
                let mark = self.scope.len();
                let (pat, iter, borrowed) = self.for_head();
                // The vector iterated over is borrowed during the loop.
                let was = borrowed.map(|i| std::mem::replace(&mut self.scope[i].assignable, false));
                self.ctx.loops.push(None);
                let body = self.block(None, depth + 1);
                self.ctx.loops.pop();
                if let (Some(i), Some(was)) = (borrowed, was) {
                    self.scope[i].assignable = was;
                }
                self.scope.truncate(mark);
                vec![Stmt::For { pat, iter, body }]
            }
        }
    }

    /// A binder that reads as `read` (a reference `e` reads as `(*e)`).
    fn bind(&mut self, name: &str, ty: Ty, read: String) {
        self.scope.push(Var {
            name: name.to_string(),
            ty,
            read,
            mutable: false,
            init: true,
            assignable: false,
            closure: None,
        });
    }

    /// The pattern and iterator of a `for` loop, its binders pushed in scope, and the scope
    /// index of the vector it borrows.
    fn for_head(&mut self) -> (String, Expr, Option<usize>) {
        let vecs = self.readable(Ty::VecF64);
        let kind = if vecs.is_empty() {
            self.n(0, 1)
        } else {
            self.n(0, 6)
        };
        match kind {
            0 => {
                let k = self.name("k");
                let hi = self.loop_bound();
                let iter = Expr::Raw(format!("0..{}", ast::expr(&hi, true)));
                self.bind(&k, Ty::I64, k.clone());
                (k, iter, None)
            }
            1 => {
                let k = self.name("k");
                let n = self.rng.random_range(0..=4);
                let iter = if self.p(0.5) {
                    Expr::Raw(format!("(0..{n}_i64).rev()"))
                } else {
                    Expr::Raw(format!("(0..{}_i64).step_by(2)", n + 1))
                };
                self.bind(&k, Ty::I64, k.clone());
                (k, iter, None)
            }
            _ => {
                let i = self.pick(&vecs);
                let v = self.scope[i].read.clone();
                let e = self.name("e");
                let (pat, iter) = match kind {
                    2 => {
                        self.bind(&e, Ty::F64, e.clone());
                        (format!("&{e}"), Expr::Raw(format!("{v}.iter()")))
                    }
                    3 => {
                        self.bind(&e, Ty::F64, format!("(*{e})"));
                        (e, Expr::Raw(format!("{v}.iter()")))
                    }
                    4 => {
                        self.bind(&e, Ty::F64, e.clone());
                        (e, Expr::Raw(format!("{v}.clone()")))
                    }
                    5 => {
                        let k = self.name("k");
                        self.bind(&e, Ty::F64, e.clone());
                        self.bind(&k, Ty::I64, format!("({k} as i64)"));
                        (
                            format!("({k}, &{e})"),
                            Expr::Raw(format!("{v}.iter().enumerate()")),
                        )
                    }
                    _ => {
                        self.bind(&e, Ty::F64, e.clone());
                        (format!("&{e}"), Expr::Raw(format!("{v}.iter().rev()")))
                    }
                };
                let borrowed = (kind != 4).then_some(i);
                (pat, iter, borrowed)
            }
        }
    }

    /// `let y: T;` and an `if`/`match` assigning `y` in every arm (or right after).
    fn deferred_init(&mut self, depth: usize) -> Vec<Stmt> {
        let ty = self.any_ty();
        let name = self.name("y");
        let mutable = self.p(0.3);
        let decl = Stmt::Let {
            name: name.clone(),
            mutable,
            ty: Some(ty),
            init: None,
        };
        let assign = |g: &mut Self| {
            let value = g.expr(ty, 2);
            vec![Stmt::Assign {
                place: Place::Var(name.clone()),
                op: None,
                value,
            }]
        };
        let second = match self.n(0, 2) {
            0 => {
                let value = self.expr(ty, 3);
                Stmt::Assign {
                    place: Place::Var(name.clone()),
                    op: None,
                    value,
                }
            }
            1 => {
                let cond = self.expr(Ty::Bool, 2);
                let then = self.block_with(None, depth + 1, Some(&assign));
                let els = self.block_with(None, depth + 1, Some(&assign));
                Stmt::If {
                    cond,
                    then,
                    els: Some(els),
                }
            }
            _ => {
                let (scrutinee, arms) = self.match_parts(None, depth + 1, Some(&assign));
                Stmt::Match { scrutinee, arms }
            }
        };
        self.push_var(&name, ty, mutable, true);
        vec![decl, second]
    }

    fn early_return(&mut self, depth: usize) -> Stmt {
        let value = self.ctx.ret.map(|t| self.expr(t, 2));
        let ret = match value {
            Some(v) => Stmt::Return(v),
            None => Stmt::Expr(Expr::Raw("return".into())),
        };
        if depth > 0 && self.p(0.2) {
            return ret;
        }
        let cond = self.expr(Ty::Bool, 2);
        Stmt::If {
            cond,
            then: Block {
                stmts: vec![ret],
                ..Block::default()
            },
            els: None,
        }
    }

    fn can_continue(&self) -> bool {
        self.ctx.head_of != Some(self.ctx.loops.len().wrapping_sub(1))
    }

    fn break_stmt(&mut self) -> Stmt {
        let inner = *self.ctx.loops.last().unwrap();
        let s = match (inner, self.n(0, 2)) {
            (_, 0) if self.can_continue() => Stmt::Continue,
            (Some(t), _) => Stmt::Break(Some(self.expr(t, 2))),
            (None, _) => Stmt::Break(None),
        };
        let cond = self.expr(Ty::Bool, 2);
        Stmt::If {
            cond,
            then: Block {
                stmts: vec![s],
                ..Block::default()
            },
            els: None,
        }
    }

    /// `#[cfg(…)]` on statements: switched off, switched on, or a pair of `let`s of which the
    /// build profile keeps one.
    fn cfg_stmt(&mut self, depth: usize) -> Vec<Stmt> {
        match self.n(0, 3) {
            0 => {
                // Switched off: its declarations go out of scope again.
                let mark = self.scope.len();
                let budget = self.budget;
                let mut s = self.stmt(depth + 1);
                self.budget = budget;
                self.scope.truncate(mark);
                let attr =
                    self.pick(&["cfg(any())", "cfg(not(all()))", "cfg(feature = \"never\")"]);
                s.drain(..)
                    .map(|x| Stmt::Attr(attr.into(), Box::new(x)))
                    .collect()
            }
            1 => {
                let attr = self.pick(&["cfg(all())", "cfg(not(any()))", "allow(unused)"]);
                let s = self.stmt(depth + 1);
                s.into_iter()
                    .map(|x| Stmt::Attr(attr.into(), Box::new(x)))
                    .collect()
            }
            2 => {
                // A block that runs in one profile only.
                let attr = self.pick(&["cfg(debug_assertions)", "cfg(not(debug_assertions))"]);
                let b = self.block(None, depth + 1);
                vec![Stmt::Attr(attr.into(), Box::new(Stmt::Block(b)))]
            }
            _ => {
                let ty = self.scalar_ty();
                let name = self.name("a");
                let e1 = self.expr(ty, 2);
                let e2 = self.expr(ty, 2);
                self.push_var(&name, ty, false, true);
                let mk = |init| Stmt::Let {
                    name: name.clone(),
                    mutable: false,
                    ty: Some(ty),
                    init: Some(init),
                };
                vec![
                    Stmt::Attr("cfg(debug_assertions)".into(), Box::new(mk(e1))),
                    Stmt::Attr("cfg(not(debug_assertions))".into(), Box::new(mk(e2))),
                ]
            }
        }
    }

    /// `let c = |a: T, …| -> R { … };` capturing only immutable variables.
    fn closure_stmt(&mut self) -> Stmt {
        let np = self.n(1, 2);
        let ret = self.scalar_ty();
        let saved_ctx = self.ctx.clone();
        let saved_budget = self.budget;
        let saved_scope = self.scope.clone();
        // The closure sees the immutable variables, read-only (a shadowed variable is dropped
        // first, so a mutable one cannot uncover an older immutable one of its name).
        let visible: Vec<bool> = (0..self.scope.len()).map(|i| self.visible(i)).collect();
        let mut k = 0;
        self.scope.retain(|_| {
            k += 1;
            visible[k - 1]
        });
        self.scope.retain(|v| !v.mutable);
        let mut params = Vec::new();
        let readonly_below = self.scope.len();
        for _ in 0..np {
            let t = self.scalar_ty();
            let n = self.name("p");
            params.push((n, t));
        }
        for (n, t) in &params {
            self.push_var(n, *t, false, false);
        }
        self.ctx = Ctx {
            ret: Some(ret),
            loops: vec![],
            head_of: None,
            can_try: false,
            rec_calls: 0,
            readonly_below,
            frozen_below: 0,
            callable: saved_ctx.callable.clone(),
            // A closure in the recursive helper must not call it from outside either: in
            // the base case `|p| r(0, …)` would recurse for ever (seed 1, unit 9297).
            in_rec: saved_ctx.in_rec,
            in_guard: false,
        };
        self.budget = self.n(0, 3) as i32;
        let body = self.block(Some(ret), 1);
        self.ctx = saved_ctx;
        self.budget = saved_budget;
        self.scope = saved_scope;
        let name = self.name("c");
        self.scope.push(Var {
            name: name.clone(),
            ty: ret,
            read: name.clone(),
            mutable: false,
            init: true,
            assignable: false,
            closure: Some(params.iter().map(|p| p.1).collect()),
        });
        Stmt::Closure {
            name,
            params,
            ret,
            body,
        }
    }

    /// `let (a, b) = (e1, e2);` or `let S0 { f0, f1, .. } = s;`
    fn destructure(&mut self) -> Vec<Stmt> {
        let structs: Vec<usize> = (0..self.structs.len()).collect();
        if !structs.is_empty() && self.p(0.5) {
            let id = self.pick(&structs) as u8;
            let init = self.expr(Ty::Struct(id), 2);
            let def = self.structs[id as usize].clone();
            let mut names = Vec::new();
            let mut binds = Vec::new();
            for (f, t) in &def.fields {
                if self.p(0.6) {
                    let n = self.name("a");
                    names.push(format!("{f}: {n}"));
                    binds.push((n, *t));
                }
            }
            if names.len() < def.fields.len() {
                names.push("..".into());
            }
            for (n, t) in &binds {
                self.push_var(n, *t, false, true);
            }
            return vec![Stmt::LetPat {
                pat: format!("S{id} {{ {} }}", names.join(", ")),
                binds: binds.iter().map(|b| b.0.clone()).collect(),
                init,
            }];
        }
        let t1 = self.scalar_ty();
        let t2 = self.any_ty();
        let e1 = self.expr(t1, 2);
        let e2 = self.expr(t2, 2);
        let a = self.name("a");
        let b = self.name("a");
        let mb = if self.p(0.3) { "mut " } else { "" };
        self.push_var(&a, t1, false, true);
        self.push_var(&b, t2, !mb.is_empty(), true);
        vec![Stmt::LetPat {
            pat: format!("({a}, {mb}{b}): ({}, {})", t1.rust(), t2.rust()),
            binds: vec![a, b],
            init: Expr::Tuple(vec![e1, e2]),
        }]
    }

    /// `let Some(t) = o else { return …; };`
    fn let_else(&mut self) -> Vec<Stmt> {
        let o = self.expr(Ty::OptF64, 2);
        // In a match guard only a jump of a loop inside the guard may leave the `else`
        // (`#[tracked]` refuses a `return` out of a guard with control flow, as documented).
        let div = if !self.ctx.loops.is_empty() && (self.ctx.in_guard || self.p(0.5)) {
            match self.ctx.loops.last().unwrap() {
                Some(t) => Stmt::Break(Some(self.expr(*t, 1))),
                None if self.can_continue() => self.pick(&[Stmt::Break(None), Stmt::Continue]),
                None => Stmt::Break(None),
            }
        } else {
            match self.ctx.ret {
                Some(t) => Stmt::Return(self.expr(t, 1)),
                None => Stmt::Expr(Expr::Raw("return".into())),
            }
        };
        let t = self.name("t");
        self.push_var(&t, Ty::F64, false, true);
        vec![Stmt::LetElse {
            bind: t,
            init: o,
            els: Block {
                stmts: vec![div],
                ..Block::default()
            },
        }]
    }

    // -----------------------------------------------------------------------------------------
    // Expressions.
    // -----------------------------------------------------------------------------------------

    fn var_expr(&mut self, ty: Ty) -> Option<Expr> {
        let vars = self.readable(ty);
        if vars.is_empty() {
            return None;
        }
        let i = self.pick(&vars);
        let v = &self.scope[i];
        Some(if ty == Ty::VecF64 {
            if v.read == v.name {
                Expr::CloneOf(v.name.clone())
            } else {
                Expr::Method(Box::new(Expr::Raw(v.read.clone())), "clone".into(), vec![])
            }
        } else if v.read == v.name {
            Expr::Var(v.name.clone())
        } else {
            Expr::Raw(v.read.clone())
        })
    }

    fn lit_f(&mut self) -> f64 {
        if self.p(0.7) {
            self.pick(NICE_F)
        } else {
            (self.rng.random_range(-400..400) as f64) / 8.0
        }
    }

    fn leaf(&mut self, ty: Ty) -> Expr {
        if self.p(0.7) {
            if let Some(v) = self.var_expr(ty) {
                return v;
            }
        }
        match ty {
            Ty::F64 => {
                let x = self.lit_f();
                if self.p(0.1) {
                    Expr::Raw(
                        self.pick(&["std::f64::consts::PI".to_string(), "f64::EPSILON".into()]),
                    )
                } else {
                    Expr::Lit(Lit::F(x))
                }
            }
            Ty::I64 => Expr::Lit(Lit::I(self.rng.random_range(-5..=10))),
            Ty::Bool => Expr::Lit(Lit::B(self.p(0.5))),
            Ty::VecF64 => {
                let n = self.n(1, 3);
                Expr::VecLit((0..n).map(|_| self.leaf(Ty::F64)).collect())
            }
            Ty::OptF64 => {
                if self.p(0.7) {
                    Expr::Some(Box::new(self.leaf(Ty::F64)))
                } else {
                    Expr::None
                }
            }
            Ty::Struct(id) => self.struct_lit(id, 0),
        }
    }

    fn struct_lit(&mut self, id: u8, depth: usize) -> Expr {
        let def = self.structs[id as usize].clone();
        let fields = def
            .fields
            .iter()
            .map(|(n, t)| (n.clone(), self.expr(*t, depth)))
            .collect();
        Expr::StructLit(id, fields)
    }

    /// An expression of type `ty`, at most `depth` levels of operators deep.
    pub fn expr(&mut self, ty: Ty, depth: usize) -> Expr {
        let e = self.expr_untyped(ty, depth);
        Expr::T(ty, Box::new(e))
    }

    fn expr_untyped(&mut self, ty: Ty, depth: usize) -> Expr {
        if depth == 0 || self.p(0.2) {
            return self.leaf(ty);
        }
        let d = depth - 1;
        // Common productions for every type.
        let roll = self.rng.random_range(0..100);
        if roll < 12 {
            if let Some(e) = self.common(ty, d) {
                return e;
            }
        }
        match ty {
            Ty::F64 => self.f64_expr(d),
            Ty::I64 => self.i64_expr(d),
            Ty::Bool => self.bool_expr(d),
            Ty::VecF64 => self.vec_expr(d),
            Ty::OptF64 => self.opt_expr(d),
            Ty::Struct(id) => self.struct_expr(id, d),
        }
    }

    /// `if`, `match`, blocks, value loops and calls, for any type.
    fn common(&mut self, ty: Ty, d: usize) -> Option<Expr> {
        let frozen = std::mem::replace(&mut self.ctx.frozen_below, self.scope.len());
        let e = self.common_unfrozen(ty, d);
        self.ctx.frozen_below = frozen;
        e
    }

    fn common_unfrozen(&mut self, ty: Ty, d: usize) -> Option<Expr> {
        let nesting_ok = self.budget > 0;
        match self.n(0, 6) {
            0 if nesting_ok => {
                let c = self.expr(Ty::Bool, d);
                self.budget -= 1;
                let t = self.block(Some(ty), 2);
                let f = self.block(Some(ty), 2);
                Some(Expr::If(Box::new(c), Box::new(t), Box::new(f)))
            }
            1 if nesting_ok => {
                self.budget -= 1;
                let (s, arms) = self.match_parts(Some(ty), 2, None);
                Some(Expr::Match(Box::new(s), arms))
            }
            2 if nesting_ok => {
                self.budget -= 1;
                Some(Expr::Block(Box::new(self.block(Some(ty), 2))))
            }
            3 if nesting_ok && self.ctx.loops.len() < 2 => {
                self.budget -= 1;
                let counter = self.name("i");
                // The bound and the default are evaluated inside the loop.
                self.ctx.loops.push(Some(ty));
                let head = self.ctx.head_of.replace(self.ctx.loops.len() - 1);
                let bound = self.loop_bound();
                let default = self.expr(ty, 1);
                self.ctx.head_of = head;
                self.push_var(&counter, Ty::I64, false, false);
                let mark = self.scope.len() - 1;
                let early_break = |g: &mut Self| {
                    let v = g.expr(ty, 1);
                    let c = g.expr(Ty::Bool, 1);
                    vec![Stmt::If {
                        cond: c,
                        then: Block {
                            stmts: vec![Stmt::Break(Some(v))],
                            ..Block::default()
                        },
                        els: None,
                    }]
                };
                let end: End = if self.p(0.6) {
                    Some(&early_break)
                } else {
                    None
                };
                let body = self.block_with(None, 2, end);
                self.ctx.loops.pop();
                self.scope.truncate(mark);
                Some(Expr::Loop {
                    counter,
                    bound: Box::new(bound),
                    default: Box::new(default),
                    body: Box::new(body),
                })
            }
            4 => self.call(ty, d),
            5 => self.method_on_struct(ty, d),
            _ => {
                if self.ctx.in_rec
                    && self.ctx.loops.is_empty()
                    && self.rec.as_ref().is_some_and(|r| r.ret == ty)
                {
                    self.rec_call()
                } else {
                    self.call(ty, d)
                }
            }
        }
    }

    /// A call of a helper, the recursive helper or a stored closure returning `ty`.
    fn call(&mut self, ty: Ty, d: usize) -> Option<Expr> {
        let mut options: Vec<(String, Vec<Ty>)> = Vec::new();
        for &k in &self.ctx.callable {
            if self.sigs[k].ret == ty {
                options.push((self.sigs[k].name.clone(), self.sigs[k].params.clone()));
            }
        }
        for (i, v) in self.scope.iter().enumerate() {
            if let Some(ps) = &v.closure {
                if v.ty == ty && self.visible(i) {
                    options.push((v.name.clone(), ps.clone()));
                }
            }
        }
        let rec_ok = self.rec.as_ref().is_some_and(|r| r.ret == ty)
            && !self.ctx.in_rec
            && self.ctx.ret.is_some()
            && self.scope.iter().all(|v| v.name != "self")
            && self.ctx.callable.len() == self.sigs.len();
        if rec_ok && self.p(0.5) {
            // A call from outside: the depth is bounded here.
            let rec = self.rec.clone().unwrap();
            let depth = if self.p(0.5) {
                Expr::Lit(Lit::I(self.rng.random_range(0..=4)))
            } else {
                let e = self.expr(Ty::I64, 1);
                Expr::Method(Box::new(e), "rem_euclid".into(), vec![Expr::Lit(Lit::I(5))])
            };
            let mut args = vec![depth];
            for &t in &rec.params[1..] {
                args.push(self.expr(t, d.min(1)));
            }
            return Some(Expr::Call(rec.name, args));
        }
        if options.is_empty() {
            return None;
        }
        let (name, params) = self.pick(&options);
        let args = params.iter().map(|t| self.expr(*t, d.min(2))).collect();
        Some(Expr::Call(name, args))
    }

    /// `r(d - 1, …)` inside the recursive helper (at most twice per body).
    fn rec_call(&mut self) -> Option<Expr> {
        if self.ctx.rec_calls == 0 {
            return None;
        }
        self.ctx.rec_calls -= 1;
        let rec = self.rec.clone()?;
        let mut args = vec![Expr::Binary(
            BinOp::Sub,
            Box::new(Expr::Var("d".into())),
            Box::new(Expr::Lit(Lit::I(1))),
        )];
        for &t in &rec.params[1..] {
            args.push(self.expr(t, 1));
        }
        Some(Expr::Call(rec.name, args))
    }

    /// A method of a struct variable returning `ty`, or a field of type `ty`.
    fn method_on_struct(&mut self, ty: Ty, d: usize) -> Option<Expr> {
        let mut options = Vec::new();
        for s in &self.structs {
            for m in &s.methods {
                if m.ret == Some(ty) {
                    options.push((s.id, m.clone()));
                }
            }
        }
        let fields = self.field_reads(ty);
        if !fields.is_empty() && (options.is_empty() || self.p(0.5)) {
            return Some(self.pick(&fields));
        }
        if options.is_empty() {
            return None;
        }
        let (id, m) = self.pick(&options);
        let recv = match self.var_expr(Ty::Struct(id)) {
            Some(v) => v,
            None => self.struct_lit(id, 0),
        };
        let args = m
            .params
            .iter()
            .map(|(_, t)| self.expr(*t, d.min(1)))
            .collect();
        Some(Expr::Method(Box::new(recv), m.name.clone(), args))
    }

    /// Field reads `s.f`, `s.inner.f` of type `ty` from struct variables in scope.
    fn field_reads(&self, ty: Ty) -> Vec<Expr> {
        let mut out = Vec::new();
        for (i, v) in self.scope.iter().enumerate() {
            let Ty::Struct(id) = v.ty else { continue };
            if !v.init || !self.visible(i) {
                continue;
            }
            let base = Expr::Var(v.name.clone());
            for (f, t) in &self.structs[id as usize].fields {
                let e = Expr::Field(Box::new(base.clone()), f.clone());
                if *t == ty {
                    out.push(e.clone());
                }
                if let Ty::Struct(inner) = t {
                    for (g, u) in &self.structs[*inner as usize].fields {
                        if *u == ty {
                            out.push(Expr::Field(Box::new(e.clone()), g.clone()));
                        }
                    }
                }
            }
        }
        out
    }

    fn vec_var(&mut self) -> Option<String> {
        let vecs = self.readable(Ty::VecF64);
        if vecs.is_empty() {
            return None;
        }
        let i = self.pick(&vecs);
        Some(self.scope[i].read.clone())
    }

    /// A closure body over binders `names` of type `f64` (read as themselves), returning `ty`.
    fn closure_body(&mut self, binds: &[(&str, Ty, String)], ty: Ty, d: usize) -> Expr {
        let saved = self.ctx.clone();
        let mark = self.scope.len();
        self.ctx.readonly_below = self.scope.len();
        self.ctx.loops.clear();
        self.ctx.ret = Some(ty);
        self.ctx.can_try = false;
        self.ctx.rec_calls = 0;
        for (n, t, r) in binds {
            self.bind(n, *t, r.clone());
        }
        let budget = self.budget;
        self.budget = budget.min(1);
        let e = self.expr(ty, d.min(2));
        self.budget = budget;
        self.scope.truncate(mark);
        self.ctx = saved;
        e
    }

    /// An iterator chain over a `Vec` in scope (or a range) producing `ty`.
    fn chain(&mut self, ty: Ty, d: usize) -> Option<Expr> {
        if !self.f.iterators {
            return None;
        }
        let v = self.vec_var();
        let e = self.name("e");
        let raw = Expr::Raw;
        let m = |r: Expr, name: &str, args: Vec<Expr>| {
            Expr::Method(Box::new(r), name.to_string(), args)
        };
        match (ty, v) {
            (Ty::F64, Some(v)) => {
                let iter = m(raw(v.clone()), "iter", vec![]);
                Some(match self.n(0, 6) {
                    0 => m(iter, "sum::<f64>", vec![]),
                    1 => {
                        let body = self.closure_body(&[(&e, Ty::F64, e.clone())], Ty::F64, d);
                        m(
                            m(
                                iter,
                                "map",
                                vec![Expr::Closure(vec![format!("&{e}")], Box::new(body))],
                            ),
                            "sum::<f64>",
                            vec![],
                        )
                    }
                    2 => {
                        let acc = self.name("acc");
                        let init = Expr::Raw(ast::expr(&self.expr(Ty::F64, 1), true));
                        let body = self.closure_body(
                            &[(&acc, Ty::F64, acc.clone()), (&e, Ty::F64, e.clone())],
                            Ty::F64,
                            d,
                        );
                        m(
                            iter,
                            "fold",
                            vec![
                                init,
                                Expr::Closure(vec![acc, format!("&{e}")], Box::new(body)),
                            ],
                        )
                    }
                    3 => m(
                        m(iter, "cloned", vec![]),
                        "fold",
                        vec![raw("f64::NEG_INFINITY".into()), raw("f64::max".into())],
                    ),
                    4 => {
                        let w = self.vec_var().unwrap_or(v.clone());
                        let a = self.name("e");
                        let body = self.closure_body(
                            &[(&e, Ty::F64, e.clone()), (&a, Ty::F64, a.clone())],
                            Ty::F64,
                            d,
                        );
                        m(
                            m(
                                m(iter, "zip", vec![raw(format!("{w}.iter()"))]),
                                "map",
                                vec![Expr::Closure(vec![format!("(&{e}, &{a})")], Box::new(body))],
                            ),
                            "sum::<f64>",
                            vec![],
                        )
                    }
                    5 => {
                        let k = self.name("k");
                        let body = self.closure_body(
                            &[
                                (&k, Ty::I64, format!("({k} as i64)")),
                                (&e, Ty::F64, e.clone()),
                            ],
                            Ty::F64,
                            d,
                        );
                        m(
                            m(
                                m(iter, "enumerate", vec![]),
                                "map",
                                vec![Expr::Closure(vec![format!("({k}, &{e})")], Box::new(body))],
                            ),
                            "sum::<f64>",
                            vec![],
                        )
                    }
                    _ => {
                        let n = self.rng.random_range(0..3);
                        m(
                            m(m(iter, "rev", vec![]), "skip", vec![raw(format!("{n}"))]),
                            "sum::<f64>",
                            vec![],
                        )
                    }
                })
            }
            (Ty::F64, None) => {
                let k = self.name("k");
                let n = self.rng.random_range(0..=4);
                let body = self.closure_body(&[(&k, Ty::I64, k.clone())], Ty::F64, d);
                Some(m(
                    m(
                        raw(format!("(0..{n}_i64)")),
                        "map",
                        vec![Expr::Closure(vec![k], Box::new(body))],
                    ),
                    "sum::<f64>",
                    vec![],
                ))
            }
            (Ty::I64, Some(v)) => {
                let iter = m(raw(v.clone()), "iter", vec![]);
                Some(match self.n(0, 2) {
                    0 => Expr::Cast(Box::new(m(raw(v), "len", vec![])), "i64".into()),
                    1 => {
                        let body = self.closure_body(&[(&e, Ty::F64, e.clone())], Ty::Bool, d);
                        Expr::Cast(
                            Box::new(m(
                                m(
                                    iter,
                                    "filter",
                                    vec![Expr::Closure(vec![format!("&&{e}")], Box::new(body))],
                                ),
                                "count",
                                vec![],
                            )),
                            "i64".into(),
                        )
                    }
                    _ => {
                        let body = self.closure_body(&[(&e, Ty::F64, e.clone())], Ty::Bool, d);
                        m(
                            m(
                                m(
                                    iter,
                                    "position",
                                    vec![Expr::Closure(vec![format!("&{e}")], Box::new(body))],
                                ),
                                "map",
                                vec![raw("|p| p as i64".into())],
                            ),
                            "unwrap_or",
                            vec![Expr::Lit(Lit::I(-1))],
                        )
                    }
                })
            }
            (Ty::I64, None) => {
                let n = self.rng.random_range(0..=5);
                Some(m(raw(format!("(0..{n}_i64)")), "sum::<i64>", vec![]))
            }
            (Ty::Bool, Some(v)) => {
                let body = self.closure_body(&[(&e, Ty::F64, e.clone())], Ty::Bool, d);
                let name = if self.p(0.5) { "any" } else { "all" };
                Some(m(
                    m(raw(v), "iter", vec![]),
                    name,
                    vec![Expr::Closure(vec![format!("&{e}")], Box::new(body))],
                ))
            }
            (Ty::VecF64, Some(v)) => {
                let iter = m(raw(v.clone()), "iter", vec![]);
                Some(match self.n(0, 2) {
                    0 => {
                        let body = self.closure_body(&[(&e, Ty::F64, e.clone())], Ty::F64, d);
                        m(
                            m(
                                iter,
                                "map",
                                vec![Expr::Closure(vec![format!("&{e}")], Box::new(body))],
                            ),
                            "collect::<Vec<f64>>",
                            vec![],
                        )
                    }
                    1 => m(
                        m(m(iter, "rev", vec![]), "copied", vec![]),
                        "collect::<Vec<f64>>",
                        vec![],
                    ),
                    _ => {
                        let w = self.vec_var().unwrap_or(v.clone());
                        let a = self.name("e");
                        let body = self.closure_body(
                            &[(&e, Ty::F64, e.clone()), (&a, Ty::F64, a.clone())],
                            Ty::F64,
                            d,
                        );
                        m(
                            m(
                                m(iter, "zip", vec![raw(format!("{w}.iter()"))]),
                                "map",
                                vec![Expr::Closure(vec![format!("(&{e}, &{a})")], Box::new(body))],
                            ),
                            "collect::<Vec<f64>>",
                            vec![],
                        )
                    }
                })
            }
            (Ty::VecF64, None) => {
                let k = self.name("k");
                let n = self.rng.random_range(1..=4);
                let body = self.closure_body(&[(&k, Ty::I64, k.clone())], Ty::F64, d);
                Some(m(
                    m(
                        raw(format!("(0..{n}_i64)")),
                        "map",
                        vec![Expr::Closure(vec![k], Box::new(body))],
                    ),
                    "collect::<Vec<f64>>",
                    vec![],
                ))
            }
            (Ty::OptF64, Some(v)) => {
                let iter = m(raw(v.clone()), "iter", vec![]);
                Some(match self.n(0, 4) {
                    0 => m(m(raw(v), "first", vec![]), "copied", vec![]),
                    1 => m(m(raw(v), "last", vec![]), "copied", vec![]),
                    2 => {
                        let i = self.expr(Ty::I64, 1);
                        m(
                            m(raw(v), "get", vec![Expr::Cast(Box::new(i), "usize".into())]),
                            "copied",
                            vec![],
                        )
                    }
                    3 => m(
                        m(iter, "copied", vec![]),
                        "reduce",
                        vec![raw("f64::max".into())],
                    ),
                    _ => {
                        let body = self.closure_body(&[(&e, Ty::F64, e.clone())], Ty::Bool, d);
                        m(
                            m(iter, "copied", vec![]),
                            "find",
                            vec![Expr::Closure(vec![format!("&{e}")], Box::new(body))],
                        )
                    }
                })
            }
            _ => None,
        }
    }

    fn f64_expr(&mut self, d: usize) -> Expr {
        let roll = self.rng.random_range(0..100);
        match roll {
            0..=29 => {
                let op = *self.pick_weighted(&[
                    (BinOp::Add, 4),
                    (BinOp::Sub, 3),
                    (BinOp::Mul, 4),
                    (BinOp::Div, 2),
                    (BinOp::Rem, 1),
                ]);
                let a = self.expr(Ty::F64, d);
                let b = self.operand(op, Ty::F64, d);
                Expr::Binary(op, Box::new(a), Box::new(b))
            }
            30..=33 => Expr::Unary(UnOp::Neg, Box::new(self.expr(Ty::F64, d))),
            34..=47 => {
                let name = self.pick(&[
                    "sin",
                    "cos",
                    "tan",
                    "exp",
                    "ln",
                    "sqrt",
                    "abs",
                    "tanh",
                    "sinh",
                    "cosh",
                    "atan",
                    "floor",
                    "ceil",
                    "round",
                    "trunc",
                    "fract",
                    "signum",
                    "exp2",
                    "ln_1p",
                    "exp_m1",
                    "cbrt",
                    "recip",
                    "log10",
                    "log2",
                    "asin",
                    "acos",
                    "asinh",
                    "to_degrees",
                    "to_radians",
                ]);
                let r = self.expr(Ty::F64, d);
                Expr::Method(Box::new(r), name.into(), vec![])
            }
            48..=55 => {
                let r = self.expr(Ty::F64, d);
                match self.n(0, 7) {
                    0 => {
                        let k = self.rng.random_range(-2..=4);
                        Expr::Method(Box::new(r), "powi".into(), vec![Expr::Lit(Lit::I(k))])
                    }
                    1 => {
                        let n = self.expr(Ty::I64, d.min(1));
                        let n = Expr::Cast(
                            Box::new(Expr::Method(
                                Box::new(n),
                                "rem_euclid".into(),
                                vec![Expr::Lit(Lit::I(5))],
                            )),
                            "i32".into(),
                        );
                        Expr::Method(Box::new(r), "powi".into(), vec![n])
                    }
                    2 => Expr::Method(
                        Box::new(r),
                        "mul_add".into(),
                        vec![self.expr(Ty::F64, d), self.expr(Ty::F64, d)],
                    ),
                    3 => Expr::Method(
                        Box::new(r),
                        "clamp".into(),
                        vec![Expr::Lit(Lit::F(-1.0)), Expr::Lit(Lit::F(2.0))],
                    ),
                    _ => {
                        let name =
                            self.pick(&["max", "min", "powf", "atan2", "hypot", "copysign", "log"]);
                        Expr::Method(Box::new(r), name.into(), vec![self.expr(Ty::F64, d)])
                    }
                }
            }
            56..=59 => {
                let name = self.pick(&["f64::max", "f64::min", "f64::hypot", "f64::powf"]);
                Expr::Call(
                    name.into(),
                    vec![self.expr(Ty::F64, d), self.expr(Ty::F64, d)],
                )
            }
            60..=64 => {
                if self.p(0.8) {
                    Expr::Cast(Box::new(self.expr(Ty::I64, d)), "f64".into())
                } else {
                    let i = self.expr(Ty::I64, d);
                    Expr::Call(
                        "f64::from".into(),
                        vec![Expr::Cast(Box::new(i), "i32".into())],
                    )
                }
            }
            65..=69 => self
                .method_on_struct(Ty::F64, d)
                .unwrap_or_else(|| self.leaf(Ty::F64)),
            70..=73 => {
                if let Some(v) = self.vec_var() {
                    Expr::Index(v, Box::new(self.expr(Ty::I64, d.min(1))))
                } else {
                    self.leaf(Ty::F64)
                }
            }
            74..=81 => self.chain(Ty::F64, d).unwrap_or_else(|| self.leaf(Ty::F64)),
            82..=87 => {
                let o = self.expr(Ty::OptF64, d);
                if self.ctx.can_try && self.p(0.6) {
                    Expr::Try(Box::new(o))
                } else if self.p(0.5) {
                    Expr::Method(
                        Box::new(o),
                        "unwrap_or".into(),
                        vec![self.expr(Ty::F64, d.min(1))],
                    )
                } else {
                    let f = self.expr(Ty::F64, 0);
                    Expr::Method(
                        Box::new(o),
                        "map_or".into(),
                        vec![f, Expr::Raw("f64::sqrt".into())],
                    )
                }
            }
            88..=90 if self.f.bits => {
                let x = self.expr(Ty::F64, d);
                let bits = Expr::Method(Box::new(x), "to_bits".into(), vec![]);
                let changed = match self.n(0, 2) {
                    0 => Expr::Binary(
                        BinOp::BitAnd,
                        Box::new(bits),
                        Box::new(Expr::Raw("(u64::MAX / 2)".into())),
                    ),
                    1 => Expr::Binary(
                        BinOp::BitXor,
                        Box::new(bits),
                        Box::new(Expr::Raw("(1u64 << 63)".into())),
                    ),
                    _ => Expr::Method(
                        Box::new(bits),
                        "wrapping_add".into(),
                        vec![Expr::Raw("1".into())],
                    ),
                };
                Expr::Call("f64::from_bits".into(), vec![changed])
            }
            _ => self
                .common(Ty::F64, d)
                .unwrap_or_else(|| self.leaf(Ty::F64)),
        }
    }

    fn i64_expr(&mut self, d: usize) -> Expr {
        let roll = self.rng.random_range(0..100);
        match roll {
            0..=34 => {
                let op = *self.pick_weighted(&[
                    (BinOp::Add, 4),
                    (BinOp::Sub, 3),
                    (BinOp::Mul, 3),
                    (BinOp::Div, 2),
                    (BinOp::Rem, 2),
                    (BinOp::BitAnd, 1),
                    (BinOp::BitOr, 1),
                    (BinOp::BitXor, 1),
                    (BinOp::Shl, 1),
                    (BinOp::Shr, 1),
                ]);
                let a = self.expr(Ty::I64, d);
                let b = self.operand(op, Ty::I64, d);
                Expr::Binary(op, Box::new(a), Box::new(b))
            }
            35..=38 => Expr::Unary(UnOp::Neg, Box::new(self.expr(Ty::I64, d))),
            39..=50 => {
                let r = self.expr(Ty::I64, d);
                match self.n(0, 6) {
                    0 => Expr::Method(Box::new(r), "abs".into(), vec![]),
                    1 => Expr::Method(Box::new(r), "signum".into(), vec![]),
                    2 => Expr::Method(
                        Box::new(r),
                        "pow".into(),
                        vec![Expr::Lit(Lit::I(self.rng.random_range(0..=3)))],
                    ),
                    3 => Expr::Method(
                        Box::new(r),
                        "rem_euclid".into(),
                        vec![Expr::Lit(Lit::I(self.rng.random_range(1..=7)))],
                    ),
                    4 => Expr::Cast(
                        Box::new(Expr::Method(Box::new(r), "count_ones".into(), vec![])),
                        "i64".into(),
                    ),
                    5 => {
                        let name = self.pick(&["min", "max", "wrapping_mul", "wrapping_sub"]);
                        Expr::Method(Box::new(r), name.into(), vec![self.expr(Ty::I64, d)])
                    }
                    _ => Expr::Call("i64::from".into(), vec![self.expr(Ty::Bool, d)]),
                }
            }
            51..=62 => {
                if self.p(0.75) {
                    Expr::Cast(Box::new(self.expr(Ty::F64, d)), "i64".into())
                } else {
                    Expr::Cast(Box::new(self.expr(Ty::Bool, d)), "i64".into())
                }
            }
            63..=67 => self
                .method_on_struct(Ty::I64, d)
                .unwrap_or_else(|| self.leaf(Ty::I64)),
            68..=75 => self.chain(Ty::I64, d).unwrap_or_else(|| self.leaf(Ty::I64)),
            _ => self
                .common(Ty::I64, d)
                .unwrap_or_else(|| self.leaf(Ty::I64)),
        }
    }

    fn bool_expr(&mut self, d: usize) -> Expr {
        let roll = self.rng.random_range(0..100);
        match roll {
            0..=39 => {
                let op = self.pick(&[
                    BinOp::Lt,
                    BinOp::Le,
                    BinOp::Gt,
                    BinOp::Ge,
                    BinOp::Eq,
                    BinOp::Ne,
                ]);
                let t = if self.p(0.65) { Ty::F64 } else { Ty::I64 };
                Expr::Binary(op, Box::new(self.expr(t, d)), Box::new(self.expr(t, d)))
            }
            40..=54 => {
                let op = self.pick(&[
                    BinOp::And,
                    BinOp::Or,
                    BinOp::BitAnd,
                    BinOp::BitOr,
                    BinOp::BitXor,
                    BinOp::Eq,
                ]);
                Expr::Binary(
                    op,
                    Box::new(self.expr(Ty::Bool, d)),
                    Box::new(self.expr(Ty::Bool, d)),
                )
            }
            55..=61 => Expr::Unary(UnOp::Not, Box::new(self.expr(Ty::Bool, d))),
            62..=69 => {
                let name = self.pick(&[
                    "is_nan",
                    "is_finite",
                    "is_sign_negative",
                    "is_sign_positive",
                ]);
                Expr::Method(Box::new(self.expr(Ty::F64, d)), name.into(), vec![])
            }
            70..=73 => Expr::Method(Box::new(self.expr(Ty::OptF64, d)), "is_some".into(), vec![]),
            74..=79 => self
                .chain(Ty::Bool, d)
                .unwrap_or_else(|| self.leaf(Ty::Bool)),
            80..=84 => self
                .method_on_struct(Ty::Bool, d)
                .unwrap_or_else(|| self.leaf(Ty::Bool)),
            _ => self
                .common(Ty::Bool, d)
                .unwrap_or_else(|| self.leaf(Ty::Bool)),
        }
    }

    fn vec_expr(&mut self, d: usize) -> Expr {
        match self.n(0, 5) {
            0 | 1 => {
                let n = self.n(1, 3);
                Expr::VecLit((0..n).map(|_| self.expr(Ty::F64, d.min(1))).collect())
            }
            2 | 3 => self
                .chain(Ty::VecF64, d)
                .unwrap_or_else(|| self.leaf(Ty::VecF64)),
            4 if self.f.mutation => {
                // `{ let mut w = v; w.push(e); w }`
                let w = self.name("w");
                let init = self.expr(Ty::VecF64, d.min(1));
                let value = self.expr(Ty::F64, d.min(1));
                Expr::Block(Box::new(Block {
                    inner: vec![],
                    stmts: vec![
                        Stmt::Let {
                            name: w.clone(),
                            mutable: true,
                            ty: Some(Ty::VecF64),
                            init: Some(init),
                        },
                        Stmt::Expr(Expr::Method(
                            Box::new(Expr::Var(w.clone())),
                            "push".into(),
                            vec![value],
                        )),
                    ],
                    tail: Some(Box::new(Expr::Var(w))),
                }))
            }
            _ => self
                .common(Ty::VecF64, d)
                .unwrap_or_else(|| self.leaf(Ty::VecF64)),
        }
    }

    fn opt_expr(&mut self, d: usize) -> Expr {
        match self.n(0, 7) {
            0 => Expr::Some(Box::new(self.expr(Ty::F64, d))),
            1 | 2 => self
                .chain(Ty::OptF64, d)
                .unwrap_or_else(|| self.leaf(Ty::OptF64)),
            3 => {
                let c = self.expr(Ty::Bool, d);
                let x = self.expr(Ty::F64, d);
                Expr::Method(Box::new(c), "then_some".into(), vec![x])
            }
            4 => {
                let o = self.expr(Ty::OptF64, d);
                let t = self.name("t");
                let body = self.closure_body(&[(&t, Ty::F64, t.clone())], Ty::F64, d);
                Expr::Method(
                    Box::new(o),
                    "map".into(),
                    vec![Expr::Closure(vec![t], Box::new(body))],
                )
            }
            5 => {
                let o = self.expr(Ty::OptF64, d);
                let t = self.name("t");
                let body = self.closure_body(&[(&t, Ty::F64, t.clone())], Ty::Bool, d);
                Expr::Method(
                    Box::new(o),
                    "filter".into(),
                    vec![Expr::Closure(vec![format!("&{t}")], Box::new(body))],
                )
            }
            _ => self
                .common(Ty::OptF64, d)
                .unwrap_or_else(|| self.leaf(Ty::OptF64)),
        }
    }

    fn struct_expr(&mut self, id: u8, d: usize) -> Expr {
        match self.n(0, 3) {
            0 => self.struct_lit(id, d.min(1)),
            1 => self
                .method_on_struct(Ty::Struct(id), d)
                .unwrap_or_else(|| self.leaf(Ty::Struct(id))),
            _ => self
                .common(Ty::Struct(id), d)
                .unwrap_or_else(|| self.leaf(Ty::Struct(id))),
        }
    }
}

/// `((e) & 7) + 1`: a divisor in 1..=8.
fn safe_divisor(e: Expr) -> Expr {
    Expr::Binary(
        BinOp::Add,
        Box::new(Expr::Binary(
            BinOp::BitAnd,
            Box::new(e),
            Box::new(Expr::Lit(Lit::I(7))),
        )),
        Box::new(Expr::Lit(Lit::I(1))),
    )
}
