//! Lowering of control flow: each construct keeps its Rust shape in the instrumented copy, and
//! in the IR becomes blocks, numbered branches and block arguments for the variables that flow
//! across them (docs/lowering.md).

use super::{private_ident, scan, text::text, Ctx, LoopCtx, Lowered, Lowerer, Tail};
use crate::ir::{EntryId, Kind, Operand, Slot};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Block, Expr};

/// The end of one arm of a branch: where control left it and with which values.
struct ArmEnd {
    tokens: TokenStream,
    block: u32,
    vars: Vec<Operand>,
    /// For each candidate argument, whether the arm leaves it initialised.
    init: Vec<bool>,
    value: Operand,
    diverges: bool,
}

impl Lowerer {
    fn define_args(
        &mut self,
        block: u32,
        vars: &[syn::Ident],
    ) -> Vec<(syn::Ident, EntryId, Operand)> {
        vars.iter()
            .map(|v| {
                let (id, op) =
                    self.ir
                        .define(block, Slot::Arg, Kind::Argument, v.to_string(), vec![]);
                (v.clone(), id, op)
            })
            .collect()
    }

    /// Lowers one arm body (a block, or a bare expression as in `match` arms) in `block`.
    fn arm(
        &mut self,
        body: &Block,
        block: u32,
        tail: Tail,
        merged: &[syn::Ident],
        prefix: TokenStream,
    ) -> ArmEnd {
        self.block = block;
        let (inner, value) = self.block_inner(body, tail);
        ArmEnd {
            tokens: quote!(#prefix #inner),
            block: self.block,
            vars: self.ops_of(merged),
            init: self.initialised(merged),
            value,
            diverges: tail == Tail::Return || scan::block_diverges(body),
        }
    }

    /// Joins the arms of a branch at a new merge block whose arguments are the variables the
    /// arms assigned (and the branch's value, for `Tail::Value`). A candidate declared without a
    /// value (`let y;`) is an argument only when every arm that reaches the merge block (and
    /// `implicit`, the start state of an `if` without `else`) initialised it, as Rust requires
    /// before it can be read; otherwise it stays unreadable after the merge. Returns the arms'
    /// tokens with their closing jumps, the value's operand, the merge block, and which
    /// candidates became arguments.
    ///
    /// Before: `let y; if c { y = x * 2.0 } else { y = -x } y + 1.0`
    /// After (IR): `2: %3 = %1 * 2.0; br 4 (%3)`, `3: %4 = -%1; br 4 (%4)`, `4: (%5) %6 = %5 + 1.0`
    fn merge(
        &mut self,
        arms: Vec<ArmEnd>,
        candidates: &[syn::Ident],
        tail: Tail,
        implicit: Option<&[bool]>,
    ) -> (Vec<TokenStream>, Operand, Option<u32>, Vec<bool>) {
        if tail == Tail::Return || arms.iter().all(|a| a.diverges) {
            let toks = arms.into_iter().map(|a| a.tokens).collect();
            if tail != Tail::Return {
                self.block = self.ir.new_block();
            }
            return (
                toks,
                Operand::Const("()".into()),
                None,
                vec![false; candidates.len()],
            );
        }
        let keep: Vec<bool> = (0..candidates.len())
            .map(|k| {
                arms.iter().filter(|a| !a.diverges).all(|a| a.init[k])
                    && implicit.map_or(true, |i| i[k])
            })
            .collect();
        let merged: Vec<syn::Ident> = candidates
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(i, _)| i.clone())
            .collect();
        let merge = self.ir.new_block();
        let args = self.define_args(merge, &merged);
        let value_arg = (tail == Tail::Value).then(|| {
            self.ir
                .define(merge, Slot::Arg, Kind::Argument, "value", vec![])
        });
        if let Some((id, _)) = value_arg {
            let late = arms
                .iter()
                .any(|a| matches!(a.value, Operand::Var(v) if self.late_vars.contains(&v)));
            if late {
                self.late_vars.insert(self.ir.var(id));
            }
        }
        let value_ident = private_ident("__irtrack_value");
        let declared = self.value_type.take().map(|t| quote!(: #t));
        let mut out = Vec::new();
        for arm in arms {
            if arm.diverges {
                out.push(arm.tokens);
                continue;
            }
            let mut ops: Vec<Operand> = arm
                .vars
                .iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(o, _)| o.clone())
                .collect();
            if value_arg.is_some() {
                ops.push(arm.value.clone());
            }
            let j = self
                .ir
                .branch(arm.block, Kind::Jump, merge, ops, Operand::None, "");
            let pairs: Vec<(syn::Ident, EntryId)> =
                args.iter().map(|(i, e, _)| (i.clone(), *e)).collect();
            let inner = arm.tokens;
            out.push(match value_arg {
                Some((vid, _)) => {
                    let jump =
                        self.jump_with_args(j, &pairs, Some((vid, &value_ident.to_token_stream())));
                    quote!(let #value_ident #declared = { #inner }; #jump #value_ident)
                }
                None => {
                    let jump = self.jump_with_args(j, &pairs, None);
                    quote!({ #inner }; #jump)
                }
            });
        }
        for (ident, _, op) in &args {
            self.set(&ident.to_string(), op.clone());
        }
        self.block = merge;
        let value = value_arg
            .map(|(_, op)| op)
            .unwrap_or(Operand::Const("()".into()));
        (out, value, Some(merge), keep)
    }

    /// `if c { A } else { B }` and `if let P = s { A } else { B }`.
    ///
    /// Before: `if c { r = 1.0 } r`
    /// After (IR): `br 3 (%r) unless %c`, `br 2`; `2: br 3 (1.0)`; `3: (%r')`
    /// ```ignore
    /// if __irtrack.record(4, c, …) {
    ///     __irtrack.jump(6);                       // goto §2
    ///     { r = 1.0 }; __irtrack.jump(7); __irtrack.record_ref(8, &r, …);
    /// } else {
    ///     __irtrack.jump(5); __irtrack.record_ref(8, &r, …);   // goto §3 (@r) since @c == false
    /// }
    /// ```
    pub(super) fn if_expr(&mut self, i: &syn::ExprIf, tail: Tail) -> Lowered {
        if let Some(nested) = nest_let_chain(i) {
            return self.if_expr(&nested, tail);
        }
        // The declared type is this expression's alone: arms lower other expressions first.
        let declared = self.value_type.take();
        // Without `else` the value is `()`: no merge argument for it.
        let tail = if tail == Tail::Value && i.else_branch.is_none() {
            Tail::Discard
        } else {
            tail
        };
        if tail == Tail::Return && i.else_branch.is_none() {
            // In return position the missing `else` returns `()` too.
            let mut with_else = i.clone();
            with_else.else_branch = Some((Default::default(), Box::new(syn::parse_quote!({}))));
            return self.if_expr(&with_else, tail);
        }
        // The condition first: a `&&` in it ends in a block of its own, where the branches go.
        let cond = match &*i.cond {
            Expr::Let(l) => Err((self.scrutinee(&l.expr), l)),
            cond => Ok(self.expr(cond, Ctx::Value)),
        };
        let start = self.block;
        let mut assigned = scan::assigned_names(|v| v.visit_block(&i.then_branch));
        if let Some((_, e)) = &i.else_branch {
            assigned.extend(scan::assigned_names(|v| v.visit_expr(e)));
        }
        let merged = if tail == Tail::Return {
            Vec::new()
        } else {
            self.flowing_or_deferred(&assigned)
        };
        let then_b = self.ir.new_block();
        let else_b = i.else_branch.as_ref().map(|_| self.ir.new_block());
        let before = self.ops_of(&merged);
        let before_init = self.initialised(&merged);
        // Branches of the start block; the merge block is not numbered yet, so an `if` without
        // `else` patches its branch's target afterwards.
        let (cond_tokens, then_jump, else_jump, let_pat) = match cond {
            Err((s, l)) => {
                let pat_text = text(&*l.pat);
                let jt = self.ir.branch(
                    start,
                    Kind::JumpIfMatches,
                    then_b,
                    vec![],
                    s.op.clone(),
                    pat_text,
                );
                let je = self.ir.branch(
                    start,
                    Kind::Jump,
                    else_b.unwrap_or(0),
                    vec![],
                    Operand::None,
                    "",
                );
                let pat = &l.pat;
                let st = s.tokens;
                (
                    quote!(let #pat = #st),
                    jt,
                    je,
                    Some(((*l.pat).clone(), s.op)),
                )
            }
            Ok(c) => {
                let je = self.ir.branch(
                    start,
                    Kind::JumpUnless,
                    else_b.unwrap_or(0),
                    vec![],
                    c.op.clone(),
                    "",
                );
                let jt = self
                    .ir
                    .branch(start, Kind::Jump, then_b, vec![], Operand::None, "");
                (c.tokens, jt, je, None)
            }
        };
        let saved = self.save();
        self.scopes.push(Vec::new());
        self.block = then_b;
        let binds = match &let_pat {
            Some((pat, s)) => self.bind_pattern(pat, s, true),
            None => TokenStream::new(),
        };
        let jt = self.jump(then_jump);
        let then_end = self.arm(&i.then_branch, then_b, tail, &merged, quote!(#jt #binds));
        self.scopes.pop();
        self.restore(&saved);
        let mut arms = vec![then_end];
        match (&i.else_branch, else_b) {
            (Some((_, e)), Some(b)) => {
                let body: Block = match &**e {
                    Expr::Block(b) if b.label.is_none() => b.block.clone(),
                    other => syn::parse_quote!({ #other }),
                };
                let je = self.jump(else_jump);
                arms.push(self.arm(&body, b, tail, &merged, je));
                self.restore(&saved);
            }
            _ => arms.push(ArmEnd {
                tokens: TokenStream::new(),
                block: start,
                vars: before.clone(),
                init: before_init.clone(),
                value: Operand::Const("()".into()),
                diverges: tail == Tail::Return,
            }),
        }
        if i.else_branch.is_none() {
            // The implicit `else` is the start block's own branch to the merge block.
            let implicit = arms.pop().expect("implicit else arm");
            let (toks, value, merge, keep) = self.merge(arms, &merged, tail, Some(&implicit.init));
            let merged: Vec<syn::Ident> = merged
                .iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(i, _)| i.clone())
                .collect();
            let implicit_vars: Vec<Operand> = implicit
                .vars
                .into_iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(o, _)| o)
                .collect();
            // When the `then` arm diverges, the continuation is reached only from here, and
            // the variables keep their values: it needs no arguments.
            let (merge, vars) = match merge {
                Some(m) => (m, implicit_vars),
                None => (self.block, Vec::new()),
            };
            let entry = &mut self.ir.entries[else_jump.index()];
            entry.target = merge;
            entry.operands = vars;
            let args: Vec<(syn::Ident, EntryId)> = self
                .ir
                .entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.location.block == merge && e.kind == Kind::Argument)
                .zip(&merged)
                .map(|((id, _), ident)| (ident.clone(), crate::ir::EntryId::from_index(id)))
                .collect();
            let else_tokens = self.jump_with_args(else_jump, &args, None);
            let then_tokens = &toks[0];
            return Lowered {
                tokens: quote!(if #cond_tokens { #then_tokens } else { #else_tokens }),
                op: value,
                loud: true,
            };
        }
        self.value_type = declared;
        let (toks, value, _, _) = self.merge(arms, &merged, tail, None);
        let (t, e) = (&toks[0], &toks[1]);
        Lowered {
            tokens: quote!(if #cond_tokens { #t } else { #e }),
            op: value,
            loud: true,
        }
    }

    /// A scrutinee (`match`, `if let`, `while let`) stays a place when it is one: patterns may
    /// bind by reference into it.
    fn scrutinee(&mut self, e: &Expr) -> Lowered {
        let place = matches!(e, Expr::Path(_) | Expr::Field(_) | Expr::Index(_))
            || matches!(e, Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)));
        self.expr(e, if place { Ctx::Place } else { Ctx::Value })
    }

    /// `match s { P1 => A, P2 if g => B, _ => C }`: one branch per arm out of the scrutinee's
    /// block, in arm order; a guard's statements sit before its arm's branch.
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch, tail: Tail) -> Lowered {
        // `match a { ref mut r => *r = c }` on a variable bound to a literal: a node for it
        // first, so that the write through `r` has one to change.
        let version = match super::expr::local_ident(&m.expr) {
            Some(name) if m.arms.iter().any(|a| scan::binds_ref_mut(&a.pat)) => {
                self.materialize(&name)
            }
            _ => TokenStream::new(),
        };
        let mut l = self.match_arms(m, tail);
        if !version.is_empty() {
            let t = l.tokens;
            l.tokens = quote!({ #version #t });
        }
        l
    }

    fn match_arms(&mut self, m: &syn::ExprMatch, tail: Tail) -> Lowered {
        // The declared type is this expression's alone: arms lower other expressions first.
        let declared = self.value_type.take();
        let s = self.scrutinee(&m.expr);
        let start = self.block;
        let mut assigned = std::collections::BTreeSet::new();
        for arm in &m.arms {
            assigned.extend(scan::assigned_names(|v| v.visit_expr(&arm.body)));
        }
        let merged = if tail == Tail::Return {
            Vec::new()
        } else {
            self.flowing_or_deferred(&assigned)
        };
        let saved = self.save();
        let n = m.arms.len();
        let mut ends = Vec::new();
        let mut heads = Vec::new();
        for (k, arm) in m.arms.iter().enumerate() {
            let block = self.ir.new_block();
            self.scopes.push(Vec::new());
            self.block = start;
            // A guard with control flow binds nothing the trace sees: the arm binds its
            // pattern after its branch, as an arm without a guard does (its uses were
            // recorded as constants: slopes of 0).
            let control_flow = arm
                .guard
                .as_ref()
                .is_some_and(|(_, g)| scan::has_control_flow(g));
            // `&&` and `||` only (`t if t > 1.0 && t < 3.0`): its operands are recorded as
            // they run, in the scrutinee's block, and the guard names them.
            let flat = control_flow
                && arm
                    .guard
                    .as_ref()
                    .is_some_and(|(_, g)| scan::short_circuits_only(g));
            let unseen_guard = control_flow && !flat;
            let guard = arm.guard.as_ref().map(|(if_token, g)| {
                if flat {
                    let first = self.ir.var_count + 1;
                    let binds = self.bind_pattern(&arm.pat, &s.op, true);
                    let span = g.span();
                    let before = std::mem::replace(&mut self.flat_logic, true);
                    let leaves = std::mem::take(&mut self.flat_leaves);
                    let lowered = self.expr(g, Ctx::Value);
                    self.flat_logic = before;
                    let leaves = std::mem::replace(&mut self.flat_leaves, leaves);
                    let last = self.ir.var_count;
                    // Its value is no node (the first operand, unrecorded: what replays a
                    // path cannot check it); the conditions it combined are its other
                    // operands. Those that did not run this time are forgotten first, so that
                    // it does not name their values from an earlier run (a loop's previous
                    // iteration).
                    let operands: Vec<Operand> =
                        std::iter::once(Operand::None).chain(leaves).collect();
                    let g = self.special("guard".into(), operands, lowered.tokens, span);
                    let gt = g.tokens;
                    let frame = super::frame();
                    return quote!(#if_token {
                        #frame.forget(#first, #last);
                        #binds
                        #gt
                    });
                }
                if unseen_guard {
                    // Its blocks would sit between the scrutinee's block and the arm's branch:
                    // the guard runs as written, unrecorded (the arm's branch still is). A jump
                    // out of it would be missing from the trace (differential tester, seed 17,
                    // unit 92: a `break` in a guard left a loop whose value the trace lacked).
                    if let Some((span, what)) = scan::escape(g) {
                        self.error(
                            span,
                            format!(
                                "`#[tracked]` cannot record this `{what}`: it leaves a match \
                                 guard with control flow, which runs unrecorded; move it into \
                                 the arm's body (decide in the guard, jump in the arm)"
                            ),
                        );
                    }
                    // Its value is still a node, with an operand the trace did not record:
                    // what replays the path cannot check it, and says so.
                    let span = g.span();
                    let g = self.special("guard".into(), vec![Operand::None], quote!(#g), span);
                    let gt = g.tokens;
                    return quote!(#if_token #gt);
                }
                let binds = self.bind_pattern(&arm.pat, &s.op, true);
                let span = g.span();
                let g = self.expr(g, Ctx::Value);
                let (gt, op) = (g.tokens, g.op);
                // The guard's value as a node of its own: the arm's branch records only the
                // pattern, and the condition may be a value used elsewhere too.
                let g = self.special("guard".into(), vec![op], gt, span);
                let gt = g.tokens;
                quote!(#if_token { #binds #gt })
            });
            let unconditional = k + 1 == n && guard.is_none() && scan::is_irrefutable(&arm.pat);
            let j = if unconditional {
                self.ir
                    .branch(start, Kind::Jump, block, vec![], Operand::None, "")
            } else {
                self.ir.branch(
                    start,
                    Kind::JumpIfMatches,
                    block,
                    vec![],
                    s.op.clone(),
                    text(&arm.pat),
                )
            };
            self.block = block;
            let binds = if guard.is_none() || unseen_guard {
                self.bind_pattern(&arm.pat, &s.op, true)
            } else {
                TokenStream::new()
            };
            let jt = self.jump(j);
            let body: Block = match &*arm.body {
                Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.clone(),
                other => syn::parse_quote!({ #other }),
            };
            ends.push(self.arm(&body, block, tail, &merged, quote!(#jt #binds)));
            self.scopes.pop();
            self.restore(&saved);
            let (attrs, pat) = (&arm.attrs, &arm.pat);
            heads.push(quote!(#(#attrs)* #pat #guard));
        }
        self.value_type = declared;
        let (toks, value, _, _) = self.merge(ends, &merged, tail, None);
        let st = s.tokens;
        let arms = heads.iter().zip(&toks).map(|(h, t)| quote!(#h => { #t }));
        Lowered {
            tokens: quote!(match #st { #(#arms)* }),
            op: value,
            loud: true,
        }
    }

    /// Opens a loop: the entering jump, the header block with an argument per carried
    /// variable, and the exit block (with arguments when the body breaks out).
    fn open_loop(
        &mut self,
        label: Option<&syn::Label>,
        body: &Block,
        cond: Option<&Expr>,
    ) -> (TokenStream, u32, bool) {
        let mut assigned = scan::assigned_names(|v| v.visit_block(body));
        if let Some(c) = cond {
            assigned.extend(scan::assigned_names(|v| v.visit_expr(c)));
        }
        let carried = self.flowing(&assigned);
        let label_name = label.map(|l| l.name.ident.to_string());
        let (has_break, _) = scan::breaks_of(body, label_name.as_deref());
        let header = self.ir.new_block();
        let enter = self.ir.branch(
            self.block,
            Kind::Jump,
            header,
            self.ops_of(&carried),
            Operand::None,
            "",
        );
        let header_args = self.block_args(header, &carried);
        let enter_tokens = self.jump_with_args(enter, &header_args, None);
        let deferred = self.deferred_in(body);
        let depth = self.scopes.len();
        self.loops.push(LoopCtx {
            depth,
            label: label_name,
            header,
            exit: 0,
            carried: header_args,
            exit_args: Vec::new(),
            exit_value: None,
            block: false,
            deferred_init: vec![true; deferred.len()],
            deferred,
            exit_deferred: std::mem::take(&mut self.exit_deferred),
        });
        (enter_tokens, header, has_break)
    }

    /// Numbers the exit block once the header's own blocks exist, and defines its arguments.
    fn open_exit(
        &mut self,
        has_break: bool,
        with_value: bool,
    ) -> (u32, Vec<(syn::Ident, EntryId, Operand)>) {
        let exit = self.ir.new_block();
        let ctx = self.loops.last().expect("open loop");
        let mut carried: Vec<syn::Ident> = ctx.carried.iter().map(|(i, _)| i.clone()).collect();
        carried.extend(ctx.exit_deferred.iter().cloned());
        let args = if has_break {
            self.define_args(exit, &carried)
        } else {
            Vec::new()
        };
        let value = with_value.then(|| {
            self.ir
                .define(exit, Slot::Arg, Kind::Argument, "value", vec![])
        });
        let ctx = self.loops.last_mut().expect("open loop");
        ctx.exit = exit;
        ctx.exit_args = args.iter().map(|(i, e, _)| (i.clone(), *e)).collect();
        ctx.exit_value = value.clone();
        (exit, args)
    }

    /// What the header's exit branch passes to the exit block: the carried variables, when the
    /// body also breaks out (the exit block then has arguments), else nothing.
    fn exit_operands(&self, has_break: bool) -> Vec<Operand> {
        if !has_break {
            return Vec::new();
        }
        let ctx = self.loops.last().expect("open loop");
        let vars: Vec<syn::Ident> = ctx.carried.iter().map(|(i, _)| i.clone()).collect();
        self.ops_of(&vars)
    }

    /// At a way out of loop `k` (a `break`, the end of a labelled block): which of its
    /// deferred variables are initialised there.
    fn note_deferred_exit(&mut self, k: usize) {
        let init = self.initialised(&self.loops[k].deferred);
        for (all, now) in self.loops[k].deferred_init.iter_mut().zip(init) {
            *all &= now;
        }
    }

    /// The back edge at the end of a loop body: jump to the header with the carried values.
    fn back_edge(&mut self, body: &Block) -> TokenStream {
        if scan::block_diverges(body) {
            return TokenStream::new();
        }
        let ctx = self.loops.last().expect("open loop");
        let (header, carried) = (ctx.header, ctx.carried.clone());
        let vars: Vec<syn::Ident> = carried.iter().map(|(i, _)| i.clone()).collect();
        let k = self.loops.len() - 1;
        let ops = self.ops_for_loop(k, &vars);
        let j = self
            .ir
            .branch(self.block, Kind::Jump, header, ops, Operand::None, "");
        self.jump_with_args_in(j, &carried, None, Some(self.loops[k].depth))
    }

    /// After the loop, variables hold the exit block's arguments (or the header's, when the
    /// only way out is the header's test).
    fn close_loop(&mut self, exit: u32, exit_args: &[(syn::Ident, EntryId, Operand)]) -> Operand {
        let ctx = self.loops.pop().expect("open loop");
        for (ident, id) in &ctx.carried {
            let var = self.ir.var(*id);
            self.set(&ident.to_string(), Operand::Var(var));
        }
        // A variable the body initialises is readable after the loop only if it is an exit
        // argument: every way out initialised it.
        for ident in &ctx.deferred {
            self.set_uninit(&ident.to_string());
        }
        for (ident, _, op) in exit_args {
            self.set(&ident.to_string(), op.clone());
        }
        self.deferred_seen = ctx.deferred_init;
        self.block = exit;
        ctx.exit_value
            .map(|(_, op)| op)
            .unwrap_or(Operand::Const("()".into()))
    }

    /// `while c { body }` and `while let P = s { body }`.
    ///
    /// IR: `1: br 2 (%r, %i)`; `2: (%3, %4) … br 4 unless %5; br 3`; `3: body; br 2 (…)`; `4:`
    /// ```ignore
    /// __irtrack.jump(2); __irtrack.record_ref(3, &r, …); __irtrack.record_ref(4, &i, …);
    /// loop {
    ///     if __irtrack.record(5, i < n, …) { __irtrack.jump(7); { body } __irtrack.jump(10); … }
    ///     else { __irtrack.jump(6); break; }
    /// }
    /// ```
    pub(super) fn while_expr(&mut self, w: &syn::ExprWhile) -> Lowered {
        if chain_links(&w.cond).len() > 1 {
            // `while let P = e && c { B }` is `loop { if let P = e && c { B } else { break } }`.
            let (cond, body, label) = (&w.cond, &w.body, &w.label);
            let lifetime = label.as_ref().map(|l| &l.name);
            let as_loop: syn::ExprLoop = syn::parse_quote!(
                #label loop { if #cond #body else { break #lifetime; } }
            );
            return self.loop_expr(&as_loop);
        }
        let (enter, header, has_break) = self.open_loop(w.label.as_ref(), &w.body, Some(&w.cond));
        self.block = header;
        let body_b;
        let (exit, exit_args);
        let (test, into_body, out, let_pat);
        match &*w.cond {
            Expr::Let(l) => {
                let s = self.scrutinee(&l.expr);
                let test_block = self.block;
                body_b = self.ir.new_block();
                (exit, exit_args) = self.open_exit(has_break, false);
                let jb = self.ir.branch(
                    test_block,
                    Kind::JumpIfMatches,
                    body_b,
                    vec![],
                    s.op.clone(),
                    text(&*l.pat),
                );
                let exit_ops = self.exit_operands(has_break);
                let jx = self
                    .ir
                    .branch(test_block, Kind::Jump, exit, exit_ops, Operand::None, "");
                let pat = &l.pat;
                let st = s.tokens;
                test = quote!(let #pat = #st);
                into_body = jb;
                out = jx;
                let_pat = Some(((*l.pat).clone(), s.op));
            }
            cond => {
                let c = self.expr(cond, Ctx::Value);
                let test_block = self.block;
                body_b = self.ir.new_block();
                (exit, exit_args) = self.open_exit(has_break, false);
                let exit_ops = self.exit_operands(has_break);
                let jx = self.ir.branch(
                    test_block,
                    Kind::JumpUnless,
                    exit,
                    exit_ops,
                    c.op.clone(),
                    "",
                );
                let jb = self
                    .ir
                    .branch(test_block, Kind::Jump, body_b, vec![], Operand::None, "");
                test = c.tokens;
                into_body = jb;
                out = jx;
                let_pat = None;
            }
        }
        let pairs: Vec<(syn::Ident, EntryId)> =
            exit_args.iter().map(|(i, e, _)| (i.clone(), *e)).collect();
        let out_tokens = self.jump_with_args(out, &pairs, None);
        self.block = body_b;
        self.scopes.push(Vec::new());
        let binds = match &let_pat {
            Some((pat, s)) => self.bind_pattern(pat, s, true),
            None => TokenStream::new(),
        };
        let jb = self.jump(into_body);
        let body = self.block_contents(&w.body, Tail::Discard);
        let back = self.back_edge(&w.body);
        self.scopes.pop();
        self.close_loop(exit, &exit_args);
        let label = &w.label;
        Lowered {
            tokens: quote!({
                #enter
                #label loop {
                    if #test { #jb #binds { #body } #back } else { #out_tokens break; }
                }
            }),
            op: Operand::Const("()".into()),
            loud: true,
        }
    }

    /// `loop { body }`: the body is the header block; breaks pass the carried variables and
    /// the break value to the exit block.
    pub(super) fn loop_expr(&mut self, l: &syn::ExprLoop) -> Lowered {
        let deferred = self.deferred_in(&l.body);
        let label_name = l.label.as_ref().map(|l| l.name.ident.to_string());
        if !deferred.is_empty() && scan::breaks_of(&l.body, label_name.as_deref()).0 {
            let init = self.dry_run(|this| {
                this.loop_inner(l);
                std::mem::take(&mut this.deferred_seen)
            });
            self.exit_deferred = deferred
                .into_iter()
                .zip(init)
                .filter(|(_, i)| *i)
                .map(|(d, _)| d)
                .collect();
        }
        self.loop_inner(l)
    }

    fn loop_inner(&mut self, l: &syn::ExprLoop) -> Lowered {
        let label_name = l.label.as_ref().map(|l| l.name.ident.to_string());
        let (_, with_value) = scan::breaks_of(&l.body, label_name.as_deref());
        let (enter, header, has_break) = self.open_loop(l.label.as_ref(), &l.body, None);
        let (exit, exit_args) = if has_break {
            self.open_exit(true, with_value)
        } else {
            (self.ir.new_block(), Vec::new())
        };
        self.block = header;
        let body = self.block_contents(&l.body, Tail::Discard);
        let back = self.back_edge(&l.body);
        let value = self.close_loop(exit, &exit_args);
        let label = &l.label;
        Lowered {
            tokens: quote!({ #enter #label loop { { #body } #back } }),
            op: value,
            loud: true,
        }
    }

    /// `'a: { … break 'a v; … }`: the body continues in the current block; its end and every
    /// `break 'a` jump to an exit block whose arguments are the variables the body assigns (and
    /// the block's value when it is used), as a loop's exit. Without a `break 'a` it is an
    /// ordinary block.
    ///
    /// Before: `let r = 'a: { if x < 0.0 { break 'a 0.0; } x * 2.0 };`
    /// After (IR): `1: br 3 unless %2; br 2`, `2: br 4 (0.0)`, `3: %3 = %1 * 2.0; br 4 (%3)`,
    /// `4: (%4)`; the code keeps the label:
    /// ```ignore
    /// 'a: { let __irtrack_value = { …; { __irtrack.jump(2, 1); …; break 'a __irtrack_value } … };
    ///       __irtrack.jump(3, 1); …; __irtrack_value }
    /// ```
    pub(super) fn labelled_block(&mut self, b: &syn::ExprBlock, tail: Tail) -> Lowered {
        let Some(label) = &b.label else {
            let (inner, op) = self.block_inner(&b.block, tail);
            return Lowered {
                tokens: quote!({ #inner }),
                op,
                loud: true,
            };
        };
        let name = label.name.ident.to_string();
        let attrs = &b.attrs;
        if !scan::breaks_of_labelled(&b.block, Some(&name)) {
            let (inner, op) = self.block_inner(&b.block, tail);
            return Lowered {
                tokens: quote!(#(#attrs)* #label { #inner }),
                op,
                loud: true,
            };
        }
        let deferred = self.deferred_in(&b.block);
        if !deferred.is_empty() {
            let init = self.dry_run(|this| {
                this.labelled_inner(b, tail, &deferred, Vec::new());
                std::mem::take(&mut this.deferred_seen)
            });
            let keep = deferred
                .iter()
                .zip(init)
                .filter(|(_, i)| *i)
                .map(|(d, _)| d.clone())
                .collect();
            return self.labelled_inner(b, tail, &deferred, keep);
        }
        self.labelled_inner(b, tail, &deferred, Vec::new())
    }

    fn labelled_inner(
        &mut self,
        b: &syn::ExprBlock,
        tail: Tail,
        deferred: &[syn::Ident],
        exit_deferred: Vec<syn::Ident>,
    ) -> Lowered {
        let label = b.label.as_ref().expect("a labelled block");
        let attrs = &b.attrs;
        let assigned = scan::assigned_names(|v| v.visit_block(&b.block));
        let mut vars = self.flowing(&assigned);
        vars.extend(exit_deferred.iter().cloned());
        let exit = self.ir.new_block();
        let args = self.define_args(exit, &vars);
        let pairs: Vec<(syn::Ident, EntryId)> =
            args.iter().map(|(i, e, _)| (i.clone(), *e)).collect();
        let with_value = tail == Tail::Value;
        let value_arg = with_value.then(|| {
            self.ir
                .define(exit, Slot::Arg, Kind::Argument, "value", vec![])
        });
        let depth = self.scopes.len();
        self.loops.push(super::LoopCtx {
            depth,
            label: Some(label.name.ident.to_string()),
            header: 0,
            exit,
            carried: Vec::new(),
            exit_args: pairs.clone(),
            exit_value: value_arg.clone(),
            block: true,
            deferred: deferred.to_vec(),
            deferred_init: vec![true; deferred.len()],
            exit_deferred,
        });
        let inner_tail = if with_value {
            Tail::Value
        } else {
            Tail::Discard
        };
        let (inner, op) = self.block_inner(&b.block, inner_tail);
        let k = self.loops.len() - 1;
        let tokens = if scan::block_diverges(&b.block) {
            quote!(#(#attrs)* #label { #inner })
        } else {
            self.note_deferred_exit(k);
            let mut ops = self.ops_for_loop(k, &vars);
            if with_value {
                ops.push(op);
            }
            let j = self
                .ir
                .branch(self.block, Kind::Jump, exit, ops, Operand::None, "");
            let v = private_ident("__irtrack_value");
            match value_arg {
                Some((vid, _)) => {
                    let depth = Some(self.loops[k].depth);
                    let v_tokens = v.to_token_stream();
                    let jump = self.jump_with_args_in(j, &pairs, Some((vid, &v_tokens)), depth);
                    quote!(#(#attrs)* #label { let #v = { #inner }; #jump #v })
                }
                None => {
                    let jump = self.jump_with_args(j, &pairs, None);
                    quote!(#(#attrs)* #label { { #inner }; #jump })
                }
            }
        };
        let ctx = self.loops.pop().expect("the labelled block");
        for ident in &ctx.deferred {
            self.set_uninit(&ident.to_string());
        }
        for (ident, _, op) in &args {
            self.set(&ident.to_string(), op.clone());
        }
        self.deferred_seen = ctx.deferred_init;
        self.block = exit;
        Lowered {
            tokens,
            op: value_arg
                .map(|(_, op)| op)
                .unwrap_or(Operand::Const("()".into())),
            loud: true,
        }
    }

    /// `for p in it { body }`, lowered as Rust desugars it: `into_iter`, then a header that
    /// calls `next` and branches on `Some(p)`.
    pub(super) fn for_expr(&mut self, f: &syn::ExprForLoop) -> Lowered {
        let it = self.expr(&f.expr, Ctx::Value);
        let (into_id, iter_op) = self.ir.define(
            self.block,
            Slot::Var,
            Kind::Call,
            "into_iter",
            vec![it.op.clone()],
        );
        let (enter, header, has_break) = self.open_loop(f.label.as_ref(), &f.body, None);
        self.block = header;
        let (next_id, next_op) =
            self.ir
                .define(header, Slot::Var, Kind::MethodCall, "next", vec![iter_op]);
        let body_b = self.ir.new_block();
        let (exit, exit_args) = self.open_exit(has_break, false);
        let pat = &f.pat;
        let jb = self.ir.branch(
            header,
            Kind::JumpIfMatches,
            body_b,
            vec![],
            next_op.clone(),
            format!("Some({})", text(&**pat)),
        );
        let exit_ops = self.exit_operands(has_break);
        let jx = self
            .ir
            .branch(header, Kind::Jump, exit, exit_ops, Operand::None, "");
        let pairs: Vec<(syn::Ident, EntryId)> =
            exit_args.iter().map(|(i, e, _)| (i.clone(), *e)).collect();
        let out_tokens = self.jump_with_args(jx, &pairs, None);
        self.block = body_b;
        self.scopes.push(Vec::new());
        let binds = self.bind_pattern(pat, &next_op, false);
        let jbt = self.jump(jb);
        let body = self.block_contents(&f.body, Tail::Discard);
        let back = self.back_edge(&f.body);
        self.scopes.pop();
        self.close_loop(exit, &exit_args);
        let iter = private_ident("__irtrack_iter");
        let itt = it.tokens;
        let into = self.record(
            into_id,
            quote!(::core::iter::IntoIterator::into_iter(#itt)),
            f.expr.span(),
        );
        let next = self.record(
            next_id,
            quote!(::core::iter::Iterator::next(&mut #iter)),
            f.span(),
        );
        let label = &f.label;
        Lowered {
            tokens: quote!(
                match #into {
                    mut #iter => {
                        #enter
                        #label loop {
                            match #next {
                                ::core::option::Option::Some(#pat) => { #jbt #binds { #body } #back }
                                ::core::option::Option::None => { #out_tokens break; }
                            }
                        }
                    }
                }
            ),
            op: Operand::Const("()".into()),
            loud: true,
        }
    }

    fn target_loop(
        &mut self,
        label: Option<&syn::Lifetime>,
        span: proc_macro2::Span,
    ) -> Option<usize> {
        let found = match label {
            Some(l) => self
                .loops
                .iter()
                .rposition(|c| c.label.as_deref() == Some(&l.ident.to_string())),
            None => self.loops.iter().rposition(|c| !c.block),
        };
        let _ = span;
        found
    }

    /// `break 'l v`: a jump to the loop's exit block with the carried variables and `v`.
    pub(super) fn break_expr(&mut self, b: &syn::ExprBreak) -> Lowered {
        let value = b.expr.as_ref().map(|v| self.expr(v, Ctx::Value));
        let Some(k) = self.target_loop(b.label.as_ref(), b.span()) else {
            return Lowered::quiet(no_target(), Operand::None);
        };
        self.note_deferred_exit(k);
        let (exit, exit_args, exit_value) = {
            let ctx = &self.loops[k];
            (ctx.exit, ctx.exit_args.clone(), ctx.exit_value.clone())
        };
        let vars: Vec<syn::Ident> = exit_args.iter().map(|(i, _)| i.clone()).collect();
        let mut ops = self.ops_for_loop(k, &vars);
        if let (Some(v), Some(_)) = (&value, &exit_value) {
            ops.push(v.op.clone());
        }
        let j = self
            .ir
            .branch(self.block, Kind::Jump, exit, ops, Operand::None, "");
        let label = &b.label;
        let tokens = match (value, exit_value) {
            (Some(v), Some((vid, _))) => {
                let vi = private_ident("__irtrack_value");
                let vt = v.tokens;
                let depth = Some(self.loops[k].depth);
                let vi_tokens = vi.to_token_stream();
                let jump = self.jump_with_args_in(j, &exit_args, Some((vid, &vi_tokens)), depth);
                quote!({ let #vi = #vt; #jump break #label #vi })
            }
            (Some(v), None) => {
                let jump = self.jump_with_args_in(j, &exit_args, None, Some(self.loops[k].depth));
                let vt = v.tokens;
                quote!({ #jump break #label #vt })
            }
            (None, _) => {
                let jump = self.jump_with_args_in(j, &exit_args, None, Some(self.loops[k].depth));
                quote!({ #jump break #label })
            }
        };
        Lowered {
            tokens,
            op: Operand::None,
            loud: true,
        }
    }

    /// `continue 'l`: a jump back to the loop's header with the carried variables.
    pub(super) fn continue_expr(&mut self, c: &syn::ExprContinue) -> Lowered {
        let Some(k) = self
            .target_loop(c.label.as_ref(), c.span())
            .filter(|&k| !self.loops[k].block)
        else {
            return Lowered::quiet(no_target(), Operand::None);
        };
        let (header, carried) = (self.loops[k].header, self.loops[k].carried.clone());
        let vars: Vec<syn::Ident> = carried.iter().map(|(i, _)| i.clone()).collect();
        let ops = self.ops_for_loop(k, &vars);
        let j = self
            .ir
            .branch(self.block, Kind::Jump, header, ops, Operand::None, "");
        let jump = self.jump_with_args_in(j, &carried, None, Some(self.loops[k].depth));
        let label = &c.label;
        Lowered {
            tokens: quote!({ #jump continue #label }),
            op: Operand::None,
            loud: true,
        }
    }

    pub(super) fn return_expr(&mut self, r: &syn::ExprReturn) -> Lowered {
        // `return if c { A } else { B }` returns from each arm, as the body's last expression
        // does: the arms' values are captured with the declared return type, not merged first
        // into a value whose type may still be open (`Ok(0.0)` has no error type yet).
        if let Some(e) = &r.expr {
            if matches!(
                strip_parens(e),
                Expr::If(_) | Expr::Match(_) | Expr::Unsafe(_)
            ) || matches!(strip_parens(e), Expr::Block(b) if b.label.is_none())
            {
                let ret = self.tail_return(strip_parens(e));
                return Lowered {
                    tokens: quote!(return #ret),
                    op: Operand::None,
                    loud: true,
                };
            }
        }
        let (value, op) = match &r.expr {
            Some(e) => {
                let l = self.expr(e, Ctx::Value);
                (l.tokens, l.op)
            }
            None => (quote!(()), Operand::Const("()".into())),
        };
        let ret = self.ret(&value, op, r.span());
        Lowered {
            tokens: quote!(return #ret),
            op: Operand::None,
            loud: true,
        }
    }

    /// `e?`: a branch to a block that returns `e` when it is the residual (`Err`/`None`),
    /// otherwise a branch on, and a `$(?)` special unwrapping it.
    pub(super) fn try_expr(&mut self, t: &syn::ExprTry) -> Lowered {
        self.late = true;
        let v = self.expr(&t.expr, Ctx::Value);
        self.late = false;
        let start = self.block;
        let returns = self.ir.new_block();
        let cont = self.ir.new_block();
        let jr = self.ir.branch(
            start,
            Kind::JumpIfMatches,
            returns,
            vec![],
            v.op.clone(),
            "Err(_) | None",
        );
        let jc = self
            .ir
            .branch(start, Kind::Jump, cont, vec![], Operand::None, "");
        let ret = self.ir.branch(
            returns,
            Kind::Return,
            0,
            vec![v.op.clone()],
            Operand::None,
            "",
        );
        self.block = cont;
        let (q, op) = self
            .ir
            .define(cont, Slot::Var, Kind::Special, "?", vec![v.op]);
        let tmp = private_ident("__irtrack_try");
        let (jr_t, jc_t) = (self.jump(jr), self.jump(jc));
        let vt = v.tokens;
        let question = &t.question_token;
        let unwrap = self.record(
            q,
            quote::quote_spanned!(question.span=> #tmp #question),
            t.span(),
        );
        let is_residual = quote::quote_spanned! {question.span=>
            ::irtrack::__private::Residual::is_residual(&#tmp)
        };
        let early = self.ret_probe(
            ret,
            &quote!((move || { let _ = #tmp #question; ::core::unreachable!() })()),
            t.span(),
        );
        Lowered {
            tokens: quote!({
                let #tmp = #vt;
                if #is_residual {
                    #jr_t
                    // `?` itself builds the early return (with its `From` conversion), inside
                    // a closure whose result is the function's return value.
                    return #early;
                } else {
                    #jc_t
                }
                #unwrap
            }),
            op,
            loud: true,
        }
    }

    /// `a && b`, `a || b`: short-circuit evaluation recorded as branches into a block whose
    /// argument is the result.
    pub(super) fn short_circuit(&mut self, b: &syn::ExprBinary) -> Lowered {
        let and = matches!(b.op, syn::BinOp::And(_));
        // In a match guard of `&&` and `||` only: no blocks (they would sit between the
        // scrutinee's block and the arm's branch); each operand that runs is recorded where it
        // runs, and the result is no node (the guard names its operands).
        if self.flat_logic {
            let l = self.expr(&b.left, Ctx::Value);
            let r = self.expr(&b.right, Ctx::Value);
            // The operands that are conditions of their own (not `&&` or `||` lowered so,
            // whose operands are already named); one the lowering does not record stays
            // `Operand::None`, and the guard is then as unseen as before.
            let nested = |e: &Expr| {
                let mut e = e;
                while let Expr::Paren(p) = e {
                    e = &p.expr;
                }
                matches!(e, Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)))
            };
            for (e, op) in [(&*b.left, &l.op), (&*b.right, &r.op)] {
                if !nested(e) {
                    self.flat_leaves.push(op.clone());
                }
            }
            let (lt, rt) = (l.tokens, r.tokens);
            let tokens = if and {
                quote!((#lt) && (#rt))
            } else {
                quote!((#lt) || (#rt))
            };
            return Lowered {
                tokens,
                op: Operand::None,
                loud: true,
            };
        }
        // A right operand that assigns a variable of the enclosing code runs only on one way
        // into the result: lowered as the `if` it means, whose merge carries the variable
        // (`b || { a -= 1.0; c }` must not pass `a`'s new version when `b` held).
        let assigned = scan::assigned_names(|v| v.visit_expr(&b.right));
        if !self.flowing_or_deferred(&assigned).is_empty() {
            let (l, r) = (&b.left, &b.right);
            let desugared: syn::ExprIf = if and {
                syn::parse_quote!(if #l { #r } else { false })
            } else {
                syn::parse_quote!(if #l { true } else { #r })
            };
            return self.if_expr(&desugared, Tail::Value);
        }
        let l = self.expr(&b.left, Ctx::Value);
        let start = self.block;
        let rhs_b = self.ir.new_block();
        let (j1, j2) = if and {
            let j1 = self.ir.branch(
                start,
                Kind::JumpUnless,
                0,
                vec![l.op.clone()],
                l.op.clone(),
                "",
            );
            let j2 = self
                .ir
                .branch(start, Kind::Jump, rhs_b, vec![], Operand::None, "");
            (j1, j2)
        } else {
            let j1 = self
                .ir
                .branch(start, Kind::JumpUnless, rhs_b, vec![], l.op.clone(), "");
            let j2 = self
                .ir
                .branch(start, Kind::Jump, 0, vec![l.op.clone()], Operand::None, "");
            (j1, j2)
        };
        self.block = rhs_b;
        let r = self.expr(&b.right, Ctx::Value);
        let rhs_end = self.block;
        let result = self.ir.new_block();
        let jr = self.ir.branch(
            rhs_end,
            Kind::Jump,
            result,
            vec![r.op.clone()],
            Operand::None,
            "",
        );
        let (arg, op) = self
            .ir
            .define(result, Slot::Arg, Kind::Argument, "value", vec![]);
        let short = if and { j1 } else { j2 };
        self.ir.entries[short.index()].target = result;
        self.block = result;
        let v = private_ident("__irtrack_value");
        let into_rhs = self.jump(if and { j2 } else { j1 });
        let rhs_jump = self.jump_with_args(jr, &[], Some((arg, &v.to_token_stream())));
        let constant = if and { quote!(false) } else { quote!(true) };
        let short_jump = self.jump_with_args(short, &[], Some((arg, &constant)));
        let (lt, rt) = (l.tokens, r.tokens);
        let eval_rhs = quote!({ #into_rhs let #v: bool = #rt; #rhs_jump #v });
        let short_circuit = quote!({ #short_jump #constant });
        let tokens = if and {
            quote!(if #lt #eval_rhs else #short_circuit)
        } else {
            quote!(if #lt #short_circuit else #eval_rhs)
        };
        Lowered {
            tokens,
            op,
            loud: true,
        }
    }
}

/// A `break` or `continue` with no loop to jump to is invalid Rust, which rustc reports on the
/// original body; the instrumented copy replaces it so the error is not reported twice (once
/// more, confusingly, as a jump out of the closure holding the copy).
fn no_target() -> TokenStream {
    quote!(::core::unreachable!())
}

/// The links of a `&&` chain, left to right (one link for anything else).
fn chain_links(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
            let mut links = chain_links(&b.left);
            links.extend(chain_links(&b.right));
            links
        }
        e => vec![e],
    }
}

/// A `let` chain (`if let P = e && c { A } else { B }`, edition 2024) as nested `if`s, each
/// with the `else` of the whole chain: `if let P = e { if c { A } else { B } } else { B }`. The
/// bindings of each link are in scope in the links after it and in `A`, as in the chain. `None`
/// when the condition has no `let` in a chain.
fn nest_let_chain(i: &syn::ExprIf) -> Option<syn::ExprIf> {
    let links = chain_links(&i.cond);
    if links.len() < 2 || !links.iter().any(|l| matches!(l, Expr::Let(_))) {
        return None;
    }
    let mut then_branch = i.then_branch.clone();
    for link in links[1..].iter().rev() {
        let inner = syn::ExprIf {
            attrs: Vec::new(),
            if_token: i.if_token,
            cond: Box::new((*link).clone()),
            then_branch,
            else_branch: i.else_branch.clone(),
        };
        then_branch = syn::parse_quote!({ #inner });
    }
    Some(syn::ExprIf {
        attrs: i.attrs.clone(),
        if_token: i.if_token,
        cond: Box::new(links[0].clone()),
        then_branch,
        else_branch: i.else_branch.clone(),
    })
}

fn strip_parens(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip_parens(&p.expr),
        e => e,
    }
}
