//! Lowering of expressions that do not change control flow: calls, operators, literals, places,
//! constructors, casts, macros and closures.

use super::{frame, private_ident, scan, text::text, Ctx, Lowered, LoweredFn, Lowerer};
use crate::ir::{EntryId, Kind, Operand, Slot};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, UnOp};

/// One operand of a call (receiver or argument) after lowering, and whether the announcement
/// may be wrapped around it (a value, not a place, closure or variable).
struct Part {
    lowered: Lowered,
    wrappable: bool,
}

/// How the call being lowered announces itself to a tracked callee.
enum Announce {
    /// A path or local callable: the key of the callee value, held in this local, and the
    /// closures written in the call's arguments (position, static of their IR).
    Fn(syn::Ident, Vec<(usize, syn::Ident)>),
    /// A method call; `exact` when the receiver operand is a recorded variable, whose recorded
    /// type is the receiver's.
    Method { exact: bool },
    /// A method whose receiver is a place without side effects: what the caller knows of the
    /// receiver is read from it, into this local, before the call.
    MethodOf(syn::Ident),
    /// An operator, whose left operand's type must be the impl's `Self`; `exact` when that
    /// operand is a recorded variable.
    Operator { exact: bool },
    /// Never claimed (comparisons, indexing, computed callees): announced so that a context
    /// sees the call before it runs.
    None,
    /// Announced by the callee expression itself (a path call with no argument that runs
    /// tracked code: see `Lowerer::call`).
    InCallee,
}

/// Whether a place is a chain of fields and indexing on a path: reading it through a reference
/// borrows no temporary whose lifetime the recording could shorten.
/// The elements of `vec![a, b, c]`; `None` for `vec![x; n]` or tokens that are not expressions.
fn vec_elements(mac: &syn::Macro) -> Option<Vec<Expr>> {
    use syn::parse::Parser;
    let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
    parser
        .parse2(mac.tokens.clone())
        .ok()
        .map(|p| p.into_iter().collect())
}

/// The variable `e` names, when it is a plain path of one identifier (`a`, `(a)`).
pub(super) fn local_ident(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        Expr::Paren(p) => local_ident(&p.expr),
        _ => None,
    }
}

/// The variable a place is rooted in (`v` in `v[i].s`, `*r`, `(a)`).
fn place_root(e: &Expr) -> Option<&syn::Ident> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        Expr::Field(f) => place_root(&f.base),
        Expr::Index(i) => place_root(&i.expr),
        Expr::Paren(p) => place_root(&p.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => place_root(&u.expr),
        _ => None,
    }
}

fn rooted_in_path(e: &Expr) -> bool {
    match e {
        Expr::Path(_) => true,
        Expr::Field(f) => rooted_in_path(&f.base),
        Expr::Index(i) => rooted_in_path(&i.expr),
        Expr::Paren(p) => rooted_in_path(&p.expr),
        _ => false,
    }
}

/// Whether evaluating a place runs no code: a variable or path, with fields and indexing by
/// variables or literals.
fn pure_place(e: &Expr, is_local: &dyn Fn(&str) -> bool) -> bool {
    match e {
        Expr::Path(_) => true,
        Expr::Field(f) => pure_place(&f.base, is_local),
        Expr::Paren(p) => pure_place(&p.expr, is_local),
        // What a variable refers to (`(*r).sin()`, the README's advice for a float method on a
        // reference): read through the reference, no code runs.
        Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => {
            matches!(&*u.expr, Expr::Path(p) if p.path.get_ident().is_some_and(|i| is_local(&i.to_string())))
        }
        Expr::Index(i) => pure_place(&i.expr, is_local) && pure_index(&i.index, is_local),
        _ => false,
    }
}

/// An index that evaluates without running code: a literal, a variable, or a range of those.
fn pure_index(e: &Expr, is_local: &dyn Fn(&str) -> bool) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Path(p) => p.path.get_ident().is_some_and(|n| is_local(&n.to_string())),
        Expr::Range(r) => r
            .start
            .iter()
            .chain(r.end.iter())
            .all(|x| pure_index(x, is_local)),
        Expr::Paren(p) => pure_index(&p.expr, is_local),
        _ => false,
    }
}

/// `.a.b.c` for `x.a.b.c`: the members of a chain of field accesses, down to the first base
/// that is not one.
fn field_path(f: &syn::ExprField) -> String {
    let mut members = vec![text(&f.member)];
    let mut base = &*f.base;
    while let Expr::Field(g) = unparen(base) {
        members.push(text(&g.member));
        base = &g.base;
    }
    members.reverse();
    format!(".{}", members.join("."))
}

/// The expression inside any parentheses and invisible groups.
/// `matches!(e, P if g)` as `match e { P if g => true, _ => false }`; `None` when its tokens do
/// not parse so (left to the macro, as written).
fn matches_as_match(mac: &syn::Macro) -> Option<syn::ExprMatch> {
    use syn::parse::{ParseStream, Parser};
    let parse = |input: ParseStream<'_>| -> syn::Result<syn::ExprMatch> {
        let scrutinee: Expr = input.parse()?;
        input.parse::<syn::Token![,]>()?;
        let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
        let guard = if input.peek(syn::Token![if]) {
            let if_token: syn::Token![if] = input.parse()?;
            let g: Expr = input.parse()?;
            Some(quote!(#if_token #g))
        } else {
            None
        };
        if input.peek(syn::Token![,]) {
            input.parse::<syn::Token![,]>()?;
        }
        if !input.is_empty() {
            return Err(input.error("more than a matches! takes"));
        }
        Ok(syn::parse_quote!(match #scrutinee { #pat #guard => true, _ => false }))
    };
    parse.parse2(mac.tokens.clone()).ok()
}

pub(super) fn unparen(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => unparen(&p.expr),
        Expr::Group(g) => unparen(&g.expr),
        e => e,
    }
}

/// Whether a chain of fields and indexing indexes somewhere (`a[i].b`, `a.b[i]`).
fn indexes(e: &Expr) -> bool {
    match unparen(e) {
        Expr::Index(_) => true,
        Expr::Field(f) => indexes(&f.base),
        _ => false,
    }
}

fn is_place(e: &Expr) -> bool {
    match e {
        Expr::Path(_) | Expr::Field(_) | Expr::Index(_) => true,
        Expr::Unary(u) => matches!(u.op, UnOp::Deref(_)),
        Expr::Paren(p) => is_place(&p.expr),
        Expr::Group(g) => is_place(&g.expr),
        _ => false,
    }
}

impl Lowerer {
    pub(super) fn expr(&mut self, e: &Expr, ctx: Ctx) -> Lowered {
        match e {
            _ if self
                .hoist
                .as_ref()
                .is_some_and(|(base, _)| std::ptr::eq(*base, e)) =>
            {
                self.hoisted_base(e)
            }
            // A place read through a shared reference stays a place, read through a reference
            // (never copied or moved out: `&v.as_slice()[i]` is a borrow of `v`'s element).
            Expr::Field(_) | Expr::Index(_) | Expr::Path(_) if ctx == Ctx::Ref => {
                self.shared_place(e)
            }
            Expr::Lit(l) => Lowered::quiet(l.to_token_stream(), Operand::Const(text(l))),
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) && matches!(&*u.expr, Expr::Lit(_)) => {
                Lowered::quiet(e.to_token_stream(), Operand::Const(text(e)))
            }
            Expr::Path(p) => self.path(p, ctx),
            Expr::Paren(p) => {
                let inner = self.expr(&p.expr, ctx);
                Lowered {
                    tokens: {
                        let t = inner.tokens;
                        quote!((#t))
                    },
                    ..inner
                }
            }
            Expr::Group(g) => self.expr(&g.expr, ctx),
            Expr::Reference(r) => {
                // `&e` is transparent: it refers to the node of `e`, which stays a place.
                // A borrow whose temporaries a `let` extends, and which cannot be read through
                // a reference without shortening them, is left as written, with no node.
                let unextended = self.unextended.contains(&(r as *const syn::ExprReference));
                let inner_ctx = if r.mutability.is_some() || unextended {
                    Ctx::Place
                } else {
                    Ctx::Ref
                };
                // `&mut a` of a variable bound to a literal: a node for it first, so that a
                // write through the borrow has one to change (`*r = 10.0` then `a * x`).
                let version = match (&r.mutability, local_ident(&r.expr)) {
                    (Some(_), Some(name)) => self.materialize(&name),
                    _ => TokenStream::new(),
                };
                let mark = self.place_indices.len();
                let inner = self.expr(&r.expr, inner_ctx);
                let indices = self.place_indices.split_off(mark);
                let (and, m) = (&r.and_token, &r.mutability);
                let t = inner.tokens;
                // `&mut w[i]`: which element may be written through it depends on `i`, which
                // the borrow (transparent, `w`'s node) does not show: a node of no value
                // beside it refers to the place and its indices, so a program or an update
                // sees the write's dependence on them.
                let lent = r.mutability.is_some()
                    && !unextended
                    && rooted_in_path(&r.expr)
                    && indices.iter().any(|i| matches!(i, Operand::Var(_)));
                if lent {
                    let head = format!("&mut {}", text(&r.expr));
                    let mut ops = vec![inner.op.clone()];
                    ops.extend(indices);
                    let (id, _) = self
                        .ir
                        .define(self.block, Slot::Var, Kind::Special, head, ops);
                    let rec = self.record_ref(id, &quote!(()));
                    // Recorded after the borrow: its index (`w[i + 1]`) is computed, and
                    // recorded, while the place is.
                    let lent = super::private_ident("lent");
                    return Lowered {
                        tokens: quote!({ #version let #lent = #and #m #t; #rec #lent }),
                        op: inner.op,
                        loud: true,
                    };
                }
                if !version.is_empty() {
                    return Lowered {
                        tokens: quote!(({ #version #and #m #t })),
                        op: inner.op,
                        loud: true,
                    };
                }
                Lowered {
                    tokens: quote!(#and #m #t),
                    op: if unextended { Operand::None } else { inner.op },
                    loud: inner.loud,
                }
            }
            Expr::RawAddr(_) => Lowered::quiet(e.to_token_stream(), Operand::None),
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) && ctx != Ctx::Value => {
                // A place stays a place (`*r += 1`, `&*r`); its node is the reference's.
                let inner = self.expr(&u.expr, Ctx::Place);
                let t = inner.tokens;
                Lowered {
                    tokens: quote!(*#t),
                    ..inner
                }
            }
            Expr::Unary(u) => self.unary(u),
            Expr::Binary(b) => self.binary(b),
            Expr::Assign(a) => self.assign(a),
            Expr::Call(c) => self.call(c),
            Expr::MethodCall(m) => self.method_call(m),
            Expr::Field(f) => self.field(f, ctx),
            Expr::Index(i) => self.index(i, ctx),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => match vec_elements(&m.mac) {
                // `vec![a, b * 2.0]`: each element is lowered, so the node's operands are the
                // elements' values (gradients need them), not the variables mentioned.
                Some(elems) => {
                    let parts: Vec<Lowered> =
                        elems.iter().map(|x| self.expr(x, Ctx::Value)).collect();
                    let loud = parts.iter().any(|p| p.loud);
                    let ops = parts.iter().map(|p| p.op.clone()).collect();
                    let toks: Vec<TokenStream> = parts.into_iter().map(|p| p.tokens).collect();
                    let path = &m.mac.path;
                    let mut l =
                        self.special("vec!".into(), ops, quote!(#path![#(#toks),*]), e.span());
                    l.loud |= loud;
                    l
                }
                None => self.macro_mentions(m, e),
            },
            // `matches!(e, P if g)` is the match it expands to, so its pattern's test is
            // recorded like any `match` arm's (a float matched against `0.0` pins the point).
            Expr::Macro(m) if m.mac.path.is_ident("matches") => match matches_as_match(&m.mac) {
                Some(written) => self.expr(&Expr::Match(written), ctx),
                None => self.macro_mentions(m, e),
            },
            Expr::Macro(m) => self.macro_mentions(m, e),
            Expr::Cast(c) => {
                let inner = self.expr(&c.expr, Ctx::Value);
                let ty = &c.ty;
                let t = inner.tokens;
                let head = format!("as {}", text(ty));
                let mut l = self.special(head, vec![inner.op], quote!(#t as #ty), e.span());
                l.loud |= inner.loud;
                l
            }
            Expr::Tuple(t) if t.elems.is_empty() => {
                Lowered::quiet(quote!(()), Operand::Const("()".into()))
            }
            Expr::Tuple(t) => {
                let parts: Vec<Lowered> =
                    t.elems.iter().map(|x| self.expr(x, Ctx::Value)).collect();
                let loud = parts.iter().any(|p| p.loud);
                let ops = parts.iter().map(|p| p.op.clone()).collect();
                let toks: Vec<TokenStream> = parts.into_iter().map(|p| p.tokens).collect();
                let comma = (toks.len() == 1).then(|| quote!(,));
                let mut l =
                    self.special("tuple".into(), ops, quote!((#(#toks),* #comma)), e.span());
                l.loud |= loud;
                l
            }
            Expr::Array(a) => {
                let parts: Vec<Lowered> =
                    a.elems.iter().map(|x| self.expr(x, Ctx::Value)).collect();
                let loud = parts.iter().any(|p| p.loud);
                let ops = parts.iter().map(|p| p.op.clone()).collect();
                let toks: Vec<TokenStream> = parts.into_iter().map(|p| p.tokens).collect();
                let mut l = self.special("array".into(), ops, quote!([#(#toks),*]), e.span());
                l.loud |= loud;
                l
            }
            Expr::Repeat(r) => {
                let inner = self.expr(&r.expr, Ctx::Value);
                let len = &r.len;
                let t = inner.tokens;
                let mut l = self.special(
                    "array repeat".into(),
                    vec![inner.op],
                    quote!([#t; #len]),
                    e.span(),
                );
                l.loud |= inner.loud;
                l
            }
            Expr::Range(r) => {
                let start = r.start.as_ref().map(|s| self.expr(s, Ctx::Value));
                let end = r.end.as_ref().map(|s| self.expr(s, Ctx::Value));
                let limits = &r.limits;
                let loud = start.iter().chain(end.iter()).any(|p| p.loud);
                let ops = start
                    .iter()
                    .chain(end.iter())
                    .map(|p| p.op.clone())
                    .collect();
                let st = start.map(|s| s.tokens);
                let en = end.map(|s| s.tokens);
                let mut l = self.special(text(limits), ops, quote!(#st #limits #en), e.span());
                l.loud |= loud;
                l
            }
            Expr::Struct(s) => self.struct_literal(s),
            Expr::Block(b) if b.label.is_none() => {
                let (inner, op) = self.block_inner(&b.block, super::Tail::Value);
                Lowered {
                    tokens: quote!({ #inner }),
                    op,
                    loud: true,
                }
            }
            Expr::Block(b) => self.labelled_block(b, super::Tail::Value),
            Expr::Unsafe(u) => {
                let (inner, op) = self.block_inner(&u.block, super::Tail::Value);
                Lowered {
                    tokens: quote!(unsafe { #inner }),
                    op,
                    loud: true,
                }
            }
            Expr::If(i) => self.if_expr(i, super::Tail::Value),
            Expr::Match(m) => self.match_expr(m, super::Tail::Value),
            Expr::While(w) => self.while_expr(w),
            Expr::ForLoop(f) => self.for_expr(f),
            Expr::Loop(l) => self.loop_expr(l),
            Expr::Break(b) => self.break_expr(b),
            Expr::Continue(c) => self.continue_expr(c),
            Expr::Return(r) => self.return_expr(r),
            Expr::Try(t) => self.try_expr(t),
            Expr::Closure(c) => self.closure(c),
            Expr::Let(l) => {
                self.error(l.span(), "#[tracked] supports `let` in conditions only as a whole `if let` or `while let` condition, not in `&&` chains; nest the conditions instead");
                Lowered::quiet(e.to_token_stream(), Operand::None)
            }
            Expr::Async(a) => {
                self.error(a.span(), "#[tracked] cannot record async blocks: a trace is recorded as the code runs, and an async block runs later; move the async code into a function that is not tracked");
                Lowered::quiet(e.to_token_stream(), Operand::None)
            }
            Expr::Await(a) => {
                self.error(
                    a.span(),
                    "#[tracked] cannot record `.await`: tracked functions must be synchronous",
                );
                Lowered::quiet(e.to_token_stream(), Operand::None)
            }
            Expr::Yield(y) => {
                self.error(y.span(), "#[tracked] cannot record `yield`: coroutines are not recorded; move the coroutine out of the tracked function");
                Lowered::quiet(e.to_token_stream(), Operand::None)
            }
            Expr::TryBlock(t) => {
                self.error(t.span(), "#[tracked] cannot record `try` blocks; use a closure returning `Result` instead");
                Lowered::quiet(e.to_token_stream(), Operand::None)
            }
            Expr::Const(_) | Expr::Infer(_) => Lowered::quiet(e.to_token_stream(), Operand::None),
            // An empty statement (`;;`) parses as empty verbatim tokens.
            Expr::Verbatim(tokens) if tokens.is_empty() => {
                Lowered::quiet(TokenStream::new(), Operand::Const("()".into()))
            }
            _ => {
                self.error(e.span(), "#[tracked] does not know how to record this expression; move it into a function that is not tracked");
                Lowered::quiet(e.to_token_stream(), Operand::None)
            }
        }
    }

    /// The base a `let` hoisted into a hidden local (see `Lowerer::local`): lowered for its
    /// value, whose tokens initialise that local; the place reads the local instead.
    fn hoisted_base(&mut self, e: &Expr) -> Lowered {
        let (_, ident) = self.hoist.take().expect("a hoisted base");
        let value = self.expr(e, Ctx::Value);
        self.hoisted = Some((ident.clone(), value.tokens));
        Lowered::quiet(quote!(#ident), value.op)
    }

    /// A field, element or named constant read through a shared reference: recorded through
    /// that reference, and still a place.
    ///
    /// Before: `p.x == 1.0`
    /// After:  `*__irtrack.record_place(4, &p.x, …) == 1.0`
    fn shared_place(&mut self, e: &Expr) -> Lowered {
        let Some((id, op, place)) = self.shared_place_parts(e) else {
            let local = e.to_token_stream();
            let op = match e {
                Expr::Path(p) => self.local_op(p).unwrap_or(Operand::None),
                _ => Operand::None,
            };
            return Lowered::quiet(local, op);
        };
        let pt = place.tokens;
        let peek = self.peek_place(e, id, &pt);
        Lowered {
            tokens: quote!((*#peek)),
            op,
            loud: place.loud,
        }
    }

    /// Records a place read through a shared reference and passes the reference through:
    /// `(&&&__irtrack.peek(4, &p.x)).rec()`.
    fn peek_place(&self, e: &Expr, id: EntryId, place: &TokenStream) -> TokenStream {
        let capture = match e {
            Expr::Path(p) => self.is_capture(p),
            _ => false,
        };
        let f = frame();
        let site = self.ir.site(id);
        let span = e.span();
        // A captured variable's type is settled (it is a variable of the enclosing code): its
        // value can be a snapshot, as a receiver (`w.dot(&x)` in a closure) needs.
        if matches!(e, Expr::Path(_)) && !capture {
            // `None`, `Default::default`: a constant's type may still be open here.
            let late = if self.generic {
                TokenStream::new()
            } else {
                quote_spanned!(span=> &&)
            };
            quote_spanned! {span=> (#late #f.late_peek(#site, &#place)).rec() }
        } else {
            let rich = self.rich(span);
            quote_spanned! {span=> (#rich #f.peek(#site, &#place)).rec() }
        }
    }

    /// The entry and place tokens of a place read through a shared reference; `None` for a
    /// local variable, which has its node already.
    fn shared_place_parts(&mut self, e: &Expr) -> Option<(EntryId, Operand, Lowered)> {
        Some(match e {
            Expr::Path(p) => {
                if p.path
                    .get_ident()
                    .and_then(|i| self.lookup(&i.to_string()))
                    .is_some()
                {
                    return None;
                }
                let (id, op) =
                    self.ir
                        .define(self.block, Slot::Const, Kind::Constant, text(p), vec![]);
                // A captured variable read through a reference (a method's receiver:
                // `o.unwrap_or(4.0)` in a closure) links like one read by value: it was a
                // constant to the sweep (slope 0 for 1; differential tester, seed 37).
                if self.is_capture(p) {
                    if let Some(k) = self.capture_slot(&text(p)) {
                        self.ir.captures.push((id.index(), k));
                    }
                }
                (id, op, Lowered::quiet(p.to_token_stream(), Operand::None))
            }
            Expr::Field(f) => {
                let base = self.expr(&f.base, Ctx::Ref);
                let member = &f.member;
                let bt = base.tokens;
                let (id, op) = self.ir.define(
                    self.block,
                    Slot::Var,
                    Kind::Special,
                    format!(".{}", text(member)),
                    vec![base.op],
                );
                (
                    id,
                    op,
                    Lowered {
                        tokens: quote!(#bt.#member),
                        op: Operand::None,
                        loud: base.loud,
                    },
                )
            }
            Expr::Index(i) => {
                let base = self.expr(&i.expr, Ctx::Ref);
                let index = if pure_index(&i.index, &|n| self.is_local(n)) {
                    // Evaluated as written: the place may be read twice (for a receiver).
                    let op = match &*i.index {
                        Expr::Lit(l) => Operand::Const(text(l)),
                        Expr::Path(p) => self.local_op(p).unwrap_or(Operand::None),
                        range => Operand::Const(text(range)),
                    };
                    Lowered::quiet(i.index.to_token_stream(), op)
                } else {
                    self.expr(&i.index, Ctx::Value)
                };
                let (bt, xt) = (base.tokens, index.tokens);
                let loud = base.loud || index.loud;
                let (id, op) = self.ir.define(
                    self.block,
                    Slot::Var,
                    Kind::Call,
                    "index",
                    vec![base.op, index.op],
                );
                (
                    id,
                    op,
                    Lowered {
                        tokens: quote!(#bt[#xt]),
                        op: Operand::None,
                        loud,
                    },
                )
            }
            Expr::Paren(p) => return self.shared_place_parts(&p.expr),
            // `*r` of a variable `r`: a node `$(*)(r)` holding what it refers to.
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => {
                let inner = self.expr(&u.expr, Ctx::Place);
                let t = inner.tokens;
                let (id, op) =
                    self.ir
                        .define(self.block, Slot::Var, Kind::Special, "*", vec![inner.op]);
                (
                    id,
                    op,
                    Lowered {
                        tokens: quote!((*#t)),
                        op: Operand::None,
                        loud: inner.loud,
                    },
                )
            }
            _ => unreachable!("shared_place is called on paths, fields, indexing and derefs"),
        })
    }

    /// The operand of a path naming a variable in scope.
    fn local_op(&self, p: &syn::ExprPath) -> Option<Operand> {
        let ident = p.path.get_ident().filter(|_| p.qself.is_none())?;
        self.lookup(&ident.to_string()).map(|l| l.op.clone())
    }

    /// A special node (`$(kind)(ops)`) passing `value` through.
    pub(super) fn special(
        &mut self,
        head: String,
        ops: Vec<Operand>,
        value: TokenStream,
        span: Span,
    ) -> Lowered {
        // Collections and macros take the expected type inside (element coercions).
        let expected = matches!(head.as_str(), "vec!" | "array" | "tuple" | "array repeat")
            || head.ends_with('!');
        let (id, op) = self
            .ir
            .define(self.block, Slot::Var, Kind::Special, head, ops);
        let tokens = if expected {
            self.record_expected(id, value, span)
        } else {
            self.record(id, value, span)
        };
        Lowered {
            tokens,
            op,
            loud: true,
        }
    }

    fn path(&mut self, p: &syn::ExprPath, ctx: Ctx) -> Lowered {
        let tokens = p.to_token_stream();
        if let Some(op) = self.local_op(p) {
            return Lowered::quiet(tokens, op);
        }
        if ctx == Ctx::Place {
            return Lowered::quiet(tokens, Operand::None);
        }
        // A name an earlier user's macro mentioned may be a variable it declared (`decl!(b,
        // x * 2.0)` expanding to `let b = …`), whose value depends on what the macro read:
        // no constant node (a gradient took it for one: 6 for 12), an operand the trace did
        // not record, which gradients and programs refuse where it matters.
        if p.qself.is_none()
            && p.path
                .get_ident()
                .is_some_and(|i| self.macro_declared.contains(&i.to_string()))
        {
            return Lowered::quiet(tokens, Operand::None);
        }
        // A named constant, static, unit struct or variant, fn item, or (in a closure) a
        // captured variable: a constant node holding its current value.
        let head = text(p);
        let is_capture = self.is_capture(p);
        let slot = if is_capture {
            self.capture_slot(&head)
        } else {
            None
        };
        let (id, op) = self
            .ir
            .define(self.block, Slot::Const, Kind::Constant, head, vec![]);
        if let Some(k) = slot {
            self.ir.captures.push((id.index(), k));
        }
        let value = if is_capture {
            // Record through a reference, so recording does not move or copy the capture.
            let rec = self.record_ref(id, &tokens);
            // Parenthesised: a block at the start of a statement would end the expression.
            quote!(({ #rec #tokens }))
        } else {
            // `None`, `Default::default` and friends may still have open types here.
            self.record_late(id, tokens, p.span())
        };
        Lowered {
            tokens: value,
            op,
            loud: false,
        }
    }

    /// A read of `name` where it is a variable the closure being lowered captured: the tokens
    /// recording it (through a reference: nothing is moved) as a constant node, as a use of
    /// it in the closure's body is, and that node's operand.
    pub(super) fn capture_read(&mut self, name: &str) -> Option<(TokenStream, Operand)> {
        let p: syn::ExprPath = syn::parse_str(name).ok()?;
        if !self.is_capture(&p) {
            return None;
        }
        let head = text(&p);
        let slot = self.capture_slot(&head);
        let (id, op) = self
            .ir
            .define(self.block, Slot::Const, Kind::Constant, head, vec![]);
        if let Some(k) = slot {
            self.ir.captures.push((id.index(), k));
        }
        Some((self.record_ref(id, &p.to_token_stream()), op))
    }

    /// Whether `p` names a variable a closure captured.
    fn is_capture(&self, p: &syn::ExprPath) -> bool {
        p.path
            .get_ident()
            .is_some_and(|i| self.captured.contains(&i.to_string()))
    }

    /// Whether `e` names a constant or static (a path that is no variable in scope and no
    /// capture): read in place through a reference, it is recorded as a constant node, so an
    /// element or field of it (`TABLE[0]`, `ORIGIN.x`) has a recorded operand.
    fn is_global(&self, e: &Expr) -> bool {
        matches!(unparen(e), Expr::Path(p) if self.local_op(p).is_none() && !self.is_capture(p))
    }

    fn field(&mut self, f: &syn::ExprField, ctx: Ctx) -> Lowered {
        // `layers[i].w` read for a value records the element `layers[i]` (by reference), so the
        // field refers to it and not to `layers`: which element was read is part of the trace
        // (also below other fields: `net.layers[i].w.re`).
        let element = indexes(&f.base) && rooted_in_path(&f.base);
        let base_ctx = if ctx != Ctx::Place && (element || self.is_global(&f.base)) {
            Ctx::Ref
        } else if is_place(&f.base) {
            Ctx::Place
        } else {
            Ctx::Value
        };
        let base = self.expr(&f.base, base_ctx);
        let member = &f.member;
        let t = base.tokens;
        let tokens = quote!(#t.#member);
        if ctx == Ctx::Place {
            return Lowered {
                tokens,
                op: base.op,
                loud: base.loud,
            };
        }
        // A place base (`net.l1` in `net.l1.w`) was lowered to its root's operand: the head
        // carries the whole path from there, so `net.l1.w` and `net.l2.w` stay apart.
        let head = if base_ctx == Ctx::Place {
            field_path(f)
        } else {
            format!(".{}", text(member))
        };
        let mut l = self.special(head, vec![base.op], tokens, f.span());
        l.loud |= base.loud;
        l
    }

    /// The operands of the local variables a macro call mentions, in order.
    /// `mac` with the rules of the body's own `macro_rules!` it calls appended to its tokens
    /// (its path's, and those of the local macros its tokens call, and theirs): what such a
    /// call reads and writes is what their rules mention. A local macro reading `x` through
    /// its rules (`twice!()`) was a node of no operand, a constant that programs folded and
    /// updates kept (4.0 for 7.0; a tester, 2026-11-28).
    pub(super) fn with_definitions(
        &self,
        mac: &syn::Macro,
    ) -> (syn::Macro, Vec<(String, usize, usize)>) {
        let mut out = mac.clone();
        let mut sites = Vec::new();
        if self.local_macros.is_empty() {
            return (out, sites);
        }
        let mut seen: Vec<&str> = Vec::new();
        let mut pending: Vec<String> = mac
            .path
            .get_ident()
            .map(|i| i.to_string())
            .into_iter()
            .collect();
        let mut scan = vec![mac.tokens.clone()];
        while let Some(tokens) = scan.pop() {
            pending.extend(super::scan::idents_in(&tokens));
            while let Some(name) = pending.pop() {
                let Some(m) = self.local_macros.iter().rev().find(|m| m.name == name) else {
                    continue;
                };
                if seen.contains(&m.name.as_str()) {
                    continue;
                }
                seen.push(&m.name);
                let rules = &m.rules;
                out.tokens.extend(quote!(; #rules));
                sites.extend(m.sites.iter().cloned());
                scan.push(m.rules.clone());
            }
        }
        (out, sites)
    }

    /// The operands of a macro call's node: the variables `mac` mentions (the call's tokens,
    /// then its local macros' rules: [`Lowerer::with_definitions`]), each at its binding now;
    /// one only the rules mention, at the binding it had where the macro was defined
    /// (`sites`), which a `let` of the same name after the definition does not shadow.
    pub(super) fn mentioned_operands(
        &self,
        mac: &syn::Macro,
        own: &syn::Macro,
        sites: &[(String, usize, usize)],
    ) -> Vec<Operand> {
        let mentions = scan::macro_mentions(&mac.tokens, &|n| self.is_local(n));
        let called = scan::macro_mentions(&own.tokens, &|n| self.is_local(n));
        mentions
            .iter()
            .map(|n| {
                let defined = (!called.contains(n))
                    .then(|| sites.iter().find(|(s, _, _)| s == n))
                    .flatten()
                    .and_then(|&(_, i, j)| self.at_site(n, (i, j)));
                defined.unwrap_or_else(|| {
                    self.lookup(n)
                        .map(|l| l.op.clone())
                        .unwrap_or(Operand::None)
                })
            })
            .collect()
    }

    /// A macro call recorded as a special whose operands are the local variables it mentions.
    fn macro_mentions(&mut self, m: &syn::ExprMacro, e: &Expr) -> Lowered {
        // `panic!()`, `unreachable!()`: no value to record (the recorder ends the call in an
        // error node), and a node of it would take its type from inference, which had not
        // settled the type of a `match` arm's `_ => unreachable!()` when the probe asked
        // (a compile error for an enum without `Snapshot`).
        if super::scan::macro_diverges(&m.mac) {
            return Lowered::quiet(e.to_token_stream(), Operand::None);
        }
        let (mac, sites) = self.with_definitions(&m.mac);
        let (versions, lent) = self.macro_writes(&mac);
        let mut ops = self.mentioned_operands(&mac, &m.mac, &sites);
        let (reads, captured) = self.macro_capture_reads(&mac);
        ops.extend(captured);
        let head = format!("{}!", text(&m.mac.path));
        let mut l = self.special(head, ops, e.to_token_stream(), e.span());
        if !lent.is_empty() {
            let id = EntryId::from_index(self.ir.entries.len() - 1);
            for k in lent {
                self.ir.borrow_mut(id, k);
            }
        }
        if !versions.is_empty() || !reads.is_empty() {
            let t = l.tokens;
            l.tokens = quote!(({ #versions #reads #t }));
        }
        l
    }

    /// In a closure, the captured variables a macro call mentions (in its tokens or its local
    /// macro's rules: [`Lowerer::with_definitions`]), which no variable of the closure
    /// shadows: each read as a use of the capture, recorded before the call, and its operand
    /// (after those of the locals it mentions, whose positions `macro_writes` gave). Without
    /// them a macro in a closure reading a capture (`|p| twice!() + p`, `twice!` reading `x`)
    /// was a node of no operand: a constant, gradient 0 for 2 (an audit, 2026-11-28).
    pub(super) fn macro_capture_reads(&mut self, mac: &syn::Macro) -> (TokenStream, Vec<Operand>) {
        let names = scan::macro_mentions(&mac.tokens, &|n| {
            self.captured.iter().any(|c| c == n) && !self.is_local(n)
        });
        let mut reads = TokenStream::new();
        let mut ops = Vec::new();
        for name in names {
            if let Some((tokens, op)) = self.capture_read(&name) {
                reads.extend(tokens);
                ops.push(op);
            }
        }
        (reads, ops)
    }

    /// What a user's macro may write (`add_to!(a, x)` may assign `a`): the positions, among
    /// its mentioned operands, of the `mut` variables it mentions, which its node notes as
    /// lent by `&mut` (`FnIr::borrows_mut`: programs, updates and gradients then refuse reads
    /// of them that mix in what may have changed), and the nodes recorded first for those
    /// bound to a literal, which have none. Nothing is recorded after the macro: it may move
    /// what it mentions (`emit!(rows, row)`), and a variable it mentions may be uninitialised
    /// or partly moved before it. The std's printing, assertion and value-making macros only
    /// read.
    pub(super) fn macro_writes(&mut self, mac: &syn::Macro) -> (TokenStream, Vec<usize>) {
        if !super::scan::user_macro_may_assign(mac) {
            return self.macro_receivers_written(mac);
        }
        // Lower-case names it mentions that are no variables here, other than callees
        // (`f(…)`) and paths (`m::c`): perhaps variables it declares.
        for name in super::scan::declared_candidates(&mac.tokens) {
            if !self.is_local(&name) {
                self.macro_declared.insert(name);
            }
        }
        let mutable = self.mutable_names.clone();
        self.lend_mentioned(mac, |name| mutable.contains(name))
    }

    /// The positions, among the locals `mac` mentions, of those `written` says it may write,
    /// each noted as lent by `&mut`, with the nodes recorded first for those bound to a literal
    /// ([`Lowerer::materialize`]).
    fn lend_mentioned(
        &mut self,
        mac: &syn::Macro,
        written: impl Fn(&str) -> bool,
    ) -> (TokenStream, Vec<usize>) {
        let names = super::scan::macro_mentions(&mac.tokens, &|n| self.is_local(n));
        let mut versions = TokenStream::new();
        let mut lent = Vec::new();
        for (k, name) in names.iter().enumerate() {
            if written(name) {
                versions.extend(self.materialize(name));
                lent.push(k);
            }
        }
        (versions, lent)
    }

    /// A macro that only reads what it mentions (`println!`) still runs the expressions it is
    /// given: a method among them may change its receiver (`println!("{}", acc.add(x))`,
    /// `c.replace(v)` on a `Cell`, `v.pop()`), which its node notes as lent by `&mut`, as for a
    /// call outside a macro ([`Lowerer::may_write_receiver`], any local here: a `Cell` needs
    /// no `mut`).
    fn macro_receivers_written(&mut self, mac: &syn::Macro) -> (TokenStream, Vec<usize>) {
        let receivers = super::scan::macro_method_receivers(&mac.tokens);
        if receivers.is_empty() {
            return (TokenStream::new(), Vec::new());
        }
        self.lend_mentioned(mac, |name| {
            receivers
                .iter()
                .any(|(r, m)| r == name && super::method_may_write(m))
        })
    }

    /// A node now for the `mut` local `name` where it has none (a variable bound to a literal is
    /// that literal, `⟨1.0⟩`): a version `&mut name` recording its value, which later reads
    /// refer to, so that a write through a `&mut` borrow or a macro has a node to change.
    pub(super) fn materialize(&mut self, name: &str) -> TokenStream {
        if !self.mutable_names.contains(name) || self.versioned_after.iter().any(|n| n == name) {
            return TokenStream::new();
        }
        if !matches!(self.lookup(name).map(|l| &l.op), Some(Operand::Const(_))) {
            return TokenStream::new();
        }
        self.new_version(&syn::Ident::new(name, Span::call_site()), Vec::new())
    }

    fn index(&mut self, i: &syn::ExprIndex, ctx: Ctx) -> Lowered {
        // A read of `w[j][i]` or `s.v[i]` records the inner place (by reference) so the outer
        // index refers to it, not to `w` or `s`; a written place (`w[j][i] = x`) stays a place.
        let nested = matches!(&*i.expr, Expr::Index(_) | Expr::Field(_));
        let base_ctx = if (nested && rooted_in_path(&i.expr) || self.is_global(&i.expr))
            && ctx != Ctx::Place
        {
            Ctx::Ref
        } else if is_place(&i.expr) {
            Ctx::Place
        } else {
            Ctx::Value
        };
        let base = self.expr(&i.expr, base_ctx);
        let index = self.expr(&i.index, Ctx::Value);
        let (b, x) = (base.tokens, index.tokens);
        let tokens = quote!(#b[#x]);
        let loud = base.loud || index.loud;
        if ctx == Ctx::Place {
            self.place_indices.push(index.op);
            return Lowered {
                tokens,
                op: base.op,
                loud,
            };
        }
        let (id, op) = self.ir.define(
            self.block,
            Slot::Var,
            Kind::Call,
            "index",
            vec![base.op, index.op],
        );
        Lowered {
            tokens: self.record(id, tokens, i.span()),
            op,
            loud: true,
        }
    }

    fn struct_literal(&mut self, s: &syn::ExprStruct) -> Lowered {
        let path = &s.path;
        let mut ops = Vec::new();
        let mut fields = Vec::new();
        let mut lent = Vec::new();
        for fv in &s.fields {
            let member = &fv.member;
            if self.passes_mut_borrow(&fv.expr) {
                lent.push(ops.len());
            }
            let v = self.expr(&fv.expr, Ctx::Value);
            ops.push(v.op);
            let t = v.tokens;
            fields.push(quote!(#member: #t));
        }
        let rest = s.rest.as_ref().map(|r| {
            let base = self.expr(r, Ctx::Place);
            ops.push(base.op);
            let t = base.tokens;
            quote!(.. #t)
        });
        let dot2 = (s.rest.is_none() && s.dot2_token.is_some()).then(|| quote!(..));
        let qself = s.qself.as_ref().map(|q| {
            let ty = &q.ty;
            quote!(<#ty>::)
        });
        let tokens = quote!(#qself #path { #(#fields,)* #rest #dot2 });
        let head = format!("{} {{}}", text(path));
        let lowered = self.special(head, ops, tokens, s.span());
        // The fields' names in operand order (`FnIr::struct_fields`): a read of one is followed
        // to the operand that made it.
        if let Operand::Var(_) = &lowered.op {
            let id = EntryId::from_index(self.ir.entries.len() - 1);
            let names: Vec<String> = s
                .fields
                .iter()
                .map(|fv| match &fv.member {
                    syn::Member::Named(i) => i.to_string(),
                    syn::Member::Unnamed(k) => k.index.to_string(),
                })
                .collect();
            if !names.is_empty() {
                self.ir.struct_fields(id, names.join(","));
            }
        }
        // A field holding `&mut y` (`Holder { r: &mut y }`): whoever gets the struct may
        // change `y` through it.
        if let (false, Operand::Var(_)) = (lent.is_empty(), &lowered.op) {
            let id = EntryId::from_index(self.ir.entries.len() - 1);
            for k in lent {
                self.ir.borrow_mut(id, k);
            }
        }
        lowered
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Lowered {
        match u.op {
            UnOp::Deref(_) => {
                let inner = self.expr(&u.expr, Ctx::Place);
                let t = inner.tokens;
                // Read for its value, `*e` is a node of its own (a raw pointer's target is not
                // the pointer); as a place (`*r += 1`, `&*r`) it stays a place.
                let mut l = self.special("*".into(), vec![inner.op], quote!(*#t), u.span());
                l.loud |= inner.loud;
                l
            }
            _ => {
                let (head, method) = match u.op {
                    UnOp::Neg(_) => ("-", "neg"),
                    _ => ("!", "not"),
                };
                let inner = self.expr(&u.expr, Ctx::Value);
                let (id, op) = self.ir.define(
                    self.block,
                    Slot::Var,
                    Kind::Operator,
                    head,
                    vec![inner.op.clone()],
                );
                let _ = method;
                let exact = matches!(inner.op, Operand::Var(_));
                let op_tok = &u.op;
                let f = frame();
                let var = self.ir.site(id);
                let t = inner.tokens;
                let expr = if inner.loud {
                    quote!(#op_tok #f.operator_on(#var, #t))
                } else if exact {
                    quote!({ #f.method_of_recorded(#var, true, ()); #op_tok #t })
                } else {
                    quote!({ #f.announce(#var, ()); #op_tok #t })
                };
                Lowered {
                    tokens: self.record(id, expr, u.span()),
                    op,
                    loud: true,
                }
            }
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Lowered {
        if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) {
            return self.short_circuit(b);
        }
        if scan::is_compound(&b.op) {
            return self.compound_assign(b);
        }
        let comparison = matches!(
            b.op,
            BinOp::Eq(_) | BinOp::Ne(_) | BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_)
        );
        // Comparisons take their operands by reference: places stay places, read in place.
        let ctx = if comparison { Ctx::Ref } else { Ctx::Value };
        let lhs = self.expr(
            &b.left,
            if comparison && is_place(&b.left) {
                ctx
            } else {
                Ctx::Value
            },
        );
        let rhs = self.expr(
            &b.right,
            if comparison && is_place(&b.right) {
                ctx
            } else {
                Ctx::Value
            },
        );
        let head = text(&b.op);
        let (id, op) = self.ir.define(
            self.block,
            Slot::Var,
            Kind::Operator,
            head,
            vec![lhs.op.clone(), rhs.op.clone()],
        );
        let announce = match binop_method(&b.op) {
            Some(_) => Announce::Operator {
                exact: matches!(lhs.op, Operand::Var(_)),
            },
            None => Announce::None,
        };
        let op_tok = &b.op;
        let parts = vec![
            Part {
                wrappable: !comparison,
                lowered: lhs,
            },
            Part {
                wrappable: !comparison,
                lowered: rhs,
            },
        ];
        let tokens = self.announced(id, &announce, parts, |toks| {
            let (l, r) = (&toks[0], &toks[1]);
            quote!(#l #op_tok #r)
        });
        Lowered {
            tokens: self.record(id, tokens, b.span()),
            op,
            loud: true,
        }
    }

    /// `x op= rhs`: on a variable, an operator node defining its new value; on another place,
    /// a special node (`$(v[i] +=)(…)`) with no value.
    fn compound_assign(&mut self, b: &syn::ExprBinary) -> Lowered {
        let rhs = self.expr(&b.right, Ctx::Value);
        let op_tok = &b.op;
        let local = match &*b.left {
            Expr::Path(p) if p.qself.is_none() => p
                .path
                .get_ident()
                .filter(|i| self.is_local(&i.to_string()))
                .cloned(),
            _ => None,
        };
        let f = frame();
        if let Some(ident) = local {
            let old = self
                .lookup(&ident.to_string())
                .map(|l| l.op.clone())
                .unwrap_or(Operand::None);
            let exact = matches!(old, Operand::Var(_));
            let (id, op) = self.ir.define(
                self.block,
                Slot::Var,
                Kind::Operator,
                text(op_tok),
                vec![old, rhs.op.clone()],
            );
            let var = self.ir.site(id);
            let r = rhs.tokens;
            let announce = |pass: TokenStream| match exact {
                true => quote!(#f.method_of_recorded(#var, true, #pass)),
                false => quote!(#f.announce(#var, #pass)),
            };
            let assign = if rhs.loud {
                let a = announce(r);
                quote!(#ident #op_tok #a;)
            } else {
                let a = announce(quote!(()));
                quote!(#a; #ident #op_tok #r;)
            };
            let rec = self.record_ref(id, &ident.to_token_stream());
            self.set(&ident.to_string(), op);
            return Lowered {
                tokens: quote!({ #assign #rec }),
                op: Operand::Const("()".into()),
                loud: true,
            };
        }
        let (lhs, indices) = self.written_place(&b.left);
        let head = format!("{} {}", text(&b.left), text(op_tok));
        let mut ops = vec![lhs.op, rhs.op];
        ops.extend(indices);
        let (id, _) = self
            .ir
            .define(self.block, Slot::Var, Kind::Special, head, ops);
        let (l, r) = (lhs.tokens, rhs.tokens);
        let rec = self.record_ref(id, &quote!(()));
        Lowered {
            tokens: quote!({ #l #op_tok #r; #rec }),
            op: Operand::Const("()".into()),
            loud: true,
        }
    }

    /// A place an assignment writes (`w[i][j]`, `s.v[k]`, `*r`), and the operands of its
    /// indices: the written element depends on them as much as on the value (`w[i] = 1.0` at
    /// another `i` writes another element), so the write's node refers to them after its place
    /// and value.
    fn written_place(&mut self, place: &Expr) -> (Lowered, Vec<Operand>) {
        let mark = self.place_indices.len();
        let lhs = self.expr(place, Ctx::Place);
        let indices = self.place_indices.split_off(mark);
        (lhs, indices)
    }

    /// `x = rhs` renames: `x` takes `rhs`'s operand and no node is recorded. Assigning to another
    /// place records a special node; destructuring records a `bind` node per variable.
    fn assign(&mut self, a: &syn::ExprAssign) -> Lowered {
        let rhs = self.expr(&a.right, Ctx::Value);
        let r = rhs.tokens.clone();
        match &*a.left {
            Expr::Path(p)
                if p.qself.is_none()
                    && p.path
                        .get_ident()
                        .is_some_and(|i| self.is_local(&i.to_string())) =>
            {
                let ident = p.path.get_ident().expect("checked").to_string();
                self.set(&ident, rhs.op);
                let left = &a.left;
                Lowered {
                    tokens: quote!(#left = #r),
                    op: Operand::Const("()".into()),
                    loud: rhs.loud,
                }
            }
            Expr::Infer(_) => Lowered {
                tokens: quote!(_ = #r),
                op: Operand::Const("()".into()),
                loud: rhs.loud,
            },
            Expr::Tuple(_) | Expr::Array(_) | Expr::Struct(_) | Expr::Call(_) => {
                let left = &a.left;
                let mut names = Vec::new();
                collect_local_paths(left, &mut names, &|n| self.is_local(n));
                let mut rec = TokenStream::new();
                for ident in names {
                    let (id, op) = self.ir.define(
                        self.block,
                        Slot::Var,
                        Kind::Special,
                        format!("bind {ident}"),
                        vec![rhs.op.clone()],
                    );
                    if let Some(path) = scan::assigned_path(left, &ident).filter(|p| !p.is_empty())
                    {
                        self.ir.bind_path(id, path);
                    }
                    rec.extend(self.record_ref(id, &ident.to_token_stream()));
                    self.set(&ident.to_string(), op);
                }
                Lowered {
                    tokens: quote!({ #left = #r; #rec }),
                    op: Operand::Const("()".into()),
                    loud: true,
                }
            }
            _ => {
                let (lhs, indices) = self.written_place(&a.left);
                let head = format!("{} =", text(&a.left));
                let mut ops = vec![lhs.op, rhs.op];
                ops.extend(indices);
                let (id, _) = self
                    .ir
                    .define(self.block, Slot::Var, Kind::Special, head, ops);
                let l = lhs.tokens;
                let rec = self.record_ref(id, &quote!(()));
                Lowered {
                    tokens: quote!({ #l = #r; #rec }),
                    op: Operand::Const("()".into()),
                    loud: true,
                }
            }
        }
    }

    /// Emits the call built by `build` from the parts' tokens, announcing it to a tracked callee
    /// after the last part that may run tracked code (so no nested call overwrites the
    /// announcement), or before the whole call when no part does. A call that no tracked
    /// function can be the callee of is announced only where its arguments are all evaluated.
    fn announced(
        &self,
        id: EntryId,
        announce: &Announce,
        parts: Vec<Part>,
        build: impl FnOnce(&[TokenStream]) -> TokenStream,
    ) -> TokenStream {
        self.announced_with(id, announce, &[], parts, build)
    }

    /// [`announced`](Self::announced) for a method call passing `closures` written in its
    /// arguments (position among the operands, the receiver 0; static of their IR).
    fn announced_with(
        &self,
        id: EntryId,
        announce: &Announce,
        closures: &[(usize, syn::Ident)],
        mut parts: Vec<Part>,
        build: impl FnOnce(&[TokenStream]) -> TokenStream,
    ) -> TokenStream {
        let f = frame();
        let var = self.ir.site(id);
        let with_closures = |a: TokenStream| {
            if closures.is_empty() {
                return a;
            }
            let list = closures.iter().map(|(k, ident)| {
                let k = proc_macro2::Literal::usize_unsuffixed(*k);
                quote!((#k, &#ident))
            });
            quote!(#f.closure_arguments(#var, &[#(#list),*], #a))
        };
        // `at` is the part the announcement wraps (its value passes through), if any.
        let announcement = |pass: TokenStream, at: Option<usize>| {
            with_closures(match announce {
                Announce::Fn(key, closures) if closures.is_empty() => {
                    quote!(#f.call(#var, #key, #pass))
                }
                Announce::Fn(key, closures) => {
                    let list = closures.iter().map(|(k, ident)| {
                        let k = proc_macro2::Literal::usize_unsuffixed(*k);
                        quote!((#k, &#ident))
                    });
                    quote!(#f.call_with_closures(#var, #key, &[#(#list),*], #pass))
                }
                Announce::Method { .. } if at == Some(0) => quote!(#f.method_on(#var, #pass)),
                Announce::Method { exact: true } => {
                    quote!(#f.method_of_recorded(#var, false, #pass))
                }
                Announce::MethodOf(recv) => quote!(#f.method(#var, #recv, #pass)),
                Announce::Operator { .. } if at == Some(0) => quote!(#f.operator_on(#var, #pass)),
                Announce::Operator { exact: true } => {
                    quote!(#f.method_of_recorded(#var, true, #pass))
                }
                Announce::Method { exact: false }
                | Announce::Operator { exact: false }
                | Announce::None => quote!(#f.announce(#var, #pass)),
                Announce::InCallee => pass,
            })
        };
        let last_loud = parts.iter().rposition(|p| p.lowered.loud);
        match last_loud {
            Some(k) if parts[k].wrappable => {
                let t = std::mem::take(&mut parts[k].lowered.tokens);
                parts[k].lowered.tokens = announcement(t, Some(k));
                let toks: Vec<TokenStream> = parts.into_iter().map(|p| p.lowered.tokens).collect();
                build(&toks)
            }
            Some(_) if matches!(announce, Announce::None) => {
                let toks: Vec<TokenStream> = parts.into_iter().map(|p| p.lowered.tokens).collect();
                build(&toks)
            }
            _ if matches!(announce, Announce::InCallee) => {
                let toks: Vec<TokenStream> = parts.into_iter().map(|p| p.lowered.tokens).collect();
                build(&toks)
            }
            _ => {
                let toks: Vec<TokenStream> = parts.into_iter().map(|p| p.lowered.tokens).collect();
                let call = build(&toks);
                let a = announcement(quote!(()), None);
                quote!({ #a; #call })
            }
        }
    }

    /// Notes the arguments of call `id` written `&mut e` (operand `first + k` for argument
    /// `k`): see `FnIr::borrows_mut`.
    fn mark_mut_borrows(
        &mut self,
        id: EntryId,
        args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
        first: usize,
    ) {
        for (k, a) in args.iter().enumerate() {
            if self.passes_mut_borrow(a) {
                self.ir.borrow_mut(id, first + k);
            }
        }
    }

    /// Whether `e` passes a `&mut` borrow on: `&mut place` as written, or a local bound to one
    /// (`let r = &mut y;` then `f(r)`).
    pub(super) fn passes_mut_borrow(&self, e: &Expr) -> bool {
        match unparen(e) {
            Expr::Reference(r) => r.mutability.is_some(),
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| p.qself.is_none() && self.mut_refs.contains(&i.to_string())),
            _ => false,
        }
    }

    /// Whether calling `method` on `receiver` may change it in place without the call's operand
    /// showing it: a method whose `self` is `&mut self` (`acc.add(x)` with `fn add(&mut self, x:
    /// f64) -> f64`) changes what its receiver names, and the macro cannot see a method's `self`.
    /// Taken to be so for std's mutating methods on any local, and for a receiver rooted in a
    /// place the function may change (a `mut`
    /// binding, a local holding a `&mut`, `self` in a `&mut self` method), unless the method is
    /// a std read-only one on which code nearly always calls it. The runtime ignores the note
    /// for a tracked callee, whose body shows its writes, and for a float method of a float
    /// receiver (`Store::lent_mut`): a user's `max(&mut self, v)` on a struct is noted.
    fn may_write_receiver(&self, receiver: &Expr, method: &syn::Ident) -> bool {
        let name = method.to_string();
        // A std container's mutating method on any local (`let a = v.swap_remove(0)`): its
        // receiver is borrowed `&mut` by autoref, which the call's operand does not show. Also
        // `iter_mut`, `as_mut_slice`, `last_mut`, `split_at_mut`, `as_mut`: std's names for the
        // methods that lend out `&mut` access to the receiver.
        if let Expr::Path(p) = unparen(receiver) {
            let local = p.qself.is_none()
                && p.path
                    .get_ident()
                    .is_some_and(|i| self.is_local(&i.to_string()));
            let lends = name.ends_with("_mut") || name == "as_mut" || name.starts_with("as_mut_");
            if local
                && (super::is_std_mutating_method(&name)
                    || super::is_interior_mutating_method(&name)
                    || lends)
            {
                return true;
            }
        }
        let Some(root) = place_root(receiver) else {
            return false;
        };
        let root = root.to_string();
        let mutable = if root == "self" {
            self.mut_self
        } else {
            self.is_local(&root)
                && (self.mutable_names.contains(&root) || self.mut_refs.contains(&root))
        };
        mutable && super::method_may_write(&name)
    }

    fn call_args(&mut self, args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>) -> Vec<Part> {
        args.iter()
            .map(|a| {
                let mut lowered = self.expr(a, Ctx::Value);
                let wrappable = !matches!(a, Expr::Closure(_) | Expr::Path(_)) && lowered.loud;
                // A closure written here that captures variables: a node `$(closure)` whose
                // operands are those variables (as for a closure bound by `let`), recorded
                // just before it, so that its calls in the callee link its captures' uses to
                // them (`simpson(|t| (k * t).sin(), …)`). The block keeps the closure where
                // its parameters take their types from the callee's bounds.
                let captures = self
                    .closure_static(a)
                    .and_then(|_| self.closure_captures(a))
                    .filter(|c| !c.is_empty());
                if let Some(captures) = captures {
                    let (id, op, reads) = self.closure_node(&captures);
                    let (f, site) = (frame(), self.ir.site(id));
                    let t = lowered.tokens;
                    lowered.tokens = quote!({ #reads #f.closure_argument(#site); #t });
                    lowered.op = op;
                }
                Part { lowered, wrappable }
            })
            .collect()
    }

    /// `f(args)`.
    ///
    /// Before: `sq(x + 1.0)`
    /// After:
    /// ```ignore
    /// (&&&__irtrack.at(5, {
    ///     let mut __irtrack_key = ::irtrack::__private::unkeyed();
    ///     keyed(&mut __irtrack_key, sq)(__irtrack.call(5, __irtrack_key, (&&&__irtrack.at(4, x + 1.0)).rec()))
    /// })).rec()
    /// // and with no argument that runs tracked code, `sq(2.0)`:
    /// keyed_then(&mut __irtrack_key, sq, |__irtrack_key| { __irtrack.call(5, __irtrack_key, ()); })(2.0)
    /// ```
    fn call(&mut self, c: &syn::ExprCall) -> Lowered {
        let late = std::mem::take(&mut self.late)
            || matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| is_late_name(&s.ident) && s.arguments.is_none()));
        let callee_ty = private_ident("__irtrack_key");
        // `Some(path)` when the callee is a path called in place through `keyed`.
        let mut keyed = None;
        let (head, binding, callee_tokens) = match &*c.func {
            Expr::Path(p) => {
                // A local callable, or one a closure captured (`|i| f(i as f64)` in a
                // function taking `f: F`): its key is read through a reference, and it is
                // called in place (passed by value to `keyed`, a captured `f` would be moved
                // out of an `FnMut` closure: E0507).
                let local = p.qself.is_none()
                    && p.path
                        .get_ident()
                        .is_some_and(|i| self.is_local(&i.to_string()))
                    || self.is_capture(p);
                if local {
                    let func = &c.func;
                    (
                        text(p),
                        quote!(let #callee_ty = ::irtrack::__private::key_of(&#func);),
                        func.to_token_stream(),
                    )
                } else {
                    // The path stays in call position (see `keyed`): a closure argument
                    // takes its parameter types from the callee's bounds.
                    keyed = Some(p);
                    (
                        text(p),
                        quote!(let mut #callee_ty = ::irtrack::__private::unkeyed();),
                        quote!(::irtrack::__private::keyed(&mut #callee_ty, #p)),
                    )
                }
            }
            // A place (`(self.f)(x)`, `v[0](x)`, `(*b)(x)`): called where it is, as written —
            // recording its value would move it out of the borrow it is read through (E0507).
            other if is_callless_place(other) => {
                (text(other), TokenStream::new(), quote!((#other)))
            }
            other => {
                // A computed callee (`make()(x)`): recorded, never claimed.
                let l = self.expr(other, Ctx::Value);
                let t = l.tokens;
                (text(other), TokenStream::new(), quote!((#t)))
            }
        };
        let parts = self.call_args(&c.args);
        let ops = parts.iter().map(|p| p.lowered.op.clone()).collect();
        let (id, op) = self.ir.define(self.block, Slot::Var, Kind::Call, head, ops);
        self.mark_mut_borrows(id, &c.args, 0);
        // A call of a local variable (a closure bound by `let`): the call's node links to the
        // node the variable holds (`FnIr::callee_var`).
        // A computed callee (`(f)(t)`, `mk(x)(t)`, `(p.0)(t)`): held, linked to nothing.
        if !matches!(&*c.func, Expr::Path(_)) {
            self.ir.callee_vars.push((id.index(), u32::MAX));
        }
        if let Expr::Path(p) = &*c.func {
            if let Some(op) = self.local_op(p) {
                // A local the IR holds no node for (a closure made in a block's tail) is
                // still a callee held in a variable: `u32::MAX`, linked to nothing.
                let v = match op {
                    Operand::Var(v) => v,
                    _ => u32::MAX,
                };
                self.ir.callee_vars.push((id.index(), v));
            } else if self.is_capture(p) {
                // A closure's call of a closure it captured: through the capture.
                if let Some(k) = self.capture_slot(&text(p)) {
                    self.ir.callee_captures.push((id.index(), k));
                }
            }
        }
        let closures = self.closure_arguments(&c.args);
        let wrapped = parts
            .iter()
            .rposition(|p| p.lowered.loud)
            .is_some_and(|k| parts[k].wrappable);
        let (announce, callee_tokens) = if binding.is_empty() {
            (Announce::None, callee_tokens)
        } else if let (Some(p), false) = (keyed, wrapped) {
            // No argument runs tracked code that could take the announcement: the callee
            // expression makes it as soon as the key is known.
            let (f, var) = (frame(), self.ir.site(id));
            let a = if closures.is_empty() {
                quote!(#f.call(#var, #callee_ty, ()))
            } else {
                let list = closures.iter().map(|(k, ident)| {
                    let k = proc_macro2::Literal::usize_unsuffixed(*k);
                    quote!((#k, &#ident))
                });
                quote!(#f.call_with_closures(#var, #callee_ty, &[#(#list),*], ()))
            };
            (
                Announce::InCallee,
                quote!(::irtrack::__private::keyed_then(&mut #callee_ty, #p, |#callee_ty| { #a; })),
            )
        } else {
            (Announce::Fn(callee_ty, closures), callee_tokens)
        };
        let call = self.announced(
            id,
            &announce,
            parts,
            |toks| quote!(#callee_tokens(#(#toks),*)),
        );
        let tokens = if binding.is_empty() {
            call
        } else {
            quote!({ #binding #call })
        };
        let tokens = if late {
            self.record_late(id, tokens, c.span())
        } else {
            self.record_expected(id, tokens, c.span())
        };
        Lowered {
            tokens,
            op,
            loud: true,
        }
    }

    /// `recv.m(args)`: the receiver is the first operand, and the announcement names the
    /// method and, when the receiver is a recorded value, its type.
    fn method_call(&mut self, m: &syn::ExprMethodCall) -> Lowered {
        let late =
            std::mem::take(&mut self.late) || (is_late_name(&m.method) && m.turbofish.is_none());
        let recv_is_place = is_place(&m.receiver);
        let pure = recv_is_place && pure_place(&m.receiver, &|n| self.is_local(n));
        // A pure place other than a variable (`p.x`, `self.w`, `v[0]`) is read once before the
        // call, by shared reference, into a node of its own: the receiver operand.
        let mut read_receiver = TokenStream::new();
        let recv = match pure.then(|| self.shared_place_parts(&m.receiver)).flatten() {
            Some((id, op, place)) => {
                let peek = self.peek_place(&m.receiver, id, &place.tokens);
                read_receiver = quote!(#peek;);
                Lowered {
                    tokens: place.tokens,
                    op,
                    loud: false,
                }
            }
            None if recv_is_place && !rooted_in_path(&m.receiver) => {
                // A place in a temporary (`opts(x)[1].unwrap()`): lowered as a place it has its
                // root's operand, the temporary, which is not the receiver; the receiver is
                // not recorded, and the operand says so.
                let mut l = self.expr(&m.receiver, Ctx::Place);
                l.op = Operand::None;
                l
            }
            None => self.expr(
                &m.receiver,
                if recv_is_place {
                    Ctx::Place
                } else {
                    Ctx::Value
                },
            ),
        };
        let exact = match &*m.receiver {
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.is_local(&i.to_string())),
            _ => !recv_is_place,
        } && matches!(recv.op, Operand::Var(_));
        let mut parts = vec![Part {
            wrappable: !recv_is_place && recv.loud,
            lowered: recv,
        }];
        parts.extend(self.call_args(&m.args));
        let ops = parts.iter().map(|p| p.lowered.op.clone()).collect();
        let method = &m.method;
        let (id, op) = self.ir.define(
            self.block,
            Slot::Var,
            Kind::MethodCall,
            method.to_string(),
            ops,
        );
        self.mark_mut_borrows(id, &m.args, 1);
        if self.may_write_receiver(&m.receiver, &m.method) {
            self.ir.borrow_mut(id, 0);
        }
        let turbofish = &m.turbofish;
        let recv_ty = private_ident("__irtrack_recv");
        // `(&x).m()`: the operand is `x`'s node, but the receiver is a reference, and a method
        // of the reference type (a trait implemented for `&f64`) is found before `x`'s own.
        // The receiver's type is probed instead of taken from `x`'s recorded value.
        let reference_to_place = matches!(
            unparen(&m.receiver),
            Expr::Reference(r) if is_place(&r.expr) && pure_place(&r.expr, &|n| self.is_local(n))
        );
        let probe = pure || reference_to_place;
        let announce = if probe {
            Announce::MethodOf(recv_ty.clone())
        } else {
            Announce::Method { exact }
        };
        let dot = &m.dot_token;
        let receiver = &m.receiver;
        // The closures written in the arguments, by their positions among the callee's
        // parameters (`self` first).
        let closures: Vec<(usize, syn::Ident)> = self
            .closure_arguments(&m.args)
            .into_iter()
            .map(|(k, ident)| (k + 1, ident))
            .collect();
        let call = self.announced_with(id, &announce, &closures, parts, |toks| {
            let (r, args) = toks.split_first().expect("receiver");
            quote!(#r #dot #method #turbofish (#(#args),*))
        });
        // A place receiver is read once more, for its type only, before the call: it has no
        // side effects (`pure_place`), and the borrow ends before the call borrows it.
        // In generic code a method named as a float method of one operand may be a trait's
        // own (`sin` of `T: Angle`, in degrees): it is run near the point to tell
        // (`Receiver::unless_float_method`).
        let float_named = matches!(
            method.to_string().as_str(),
            "sin"
                | "cos"
                | "tan"
                | "asin"
                | "acos"
                | "atan"
                | "sinh"
                | "cosh"
                | "tanh"
                | "asinh"
                | "acosh"
                | "atanh"
                | "exp"
                | "exp2"
                | "exp_m1"
                | "ln"
                | "ln_1p"
                | "log10"
                | "log2"
                | "sqrt"
                | "cbrt"
                | "abs"
                | "recip"
                | "to_degrees"
                | "to_radians"
                | "signum"
                | "floor"
                | "ceil"
                | "round"
                | "round_ties_even"
                | "trunc"
                | "fract"
        );
        // And one of two operands (`atan2` of a trait taking `(y, x)`), where the operand can
        // be read once more without running code (a variable, a field, a literal).
        let float_named_of_two = matches!(
            method.to_string().as_str(),
            "powf"
                | "max"
                | "min"
                | "atan2"
                | "hypot"
                | "log"
                | "copysign"
                | "rem_euclid"
                | "div_euclid"
        );
        let arg_readable = m.args.len() == 1
            && (matches!(unparen(&m.args[0]), Expr::Lit(_))
                || pure_place(&m.args[0], &|n| self.is_local(n)));
        let tell_apart = if !self.generic || turbofish.is_some() {
            quote!()
        } else if float_named && m.args.is_empty() {
            let r = private_ident("__irtrack_r");
            quote!(
                let #recv_ty = #recv_ty.unless_float_method(
                    ::core::stringify!(#method), &#receiver,
                    |mut #r| ::irtrack::__private::float_of(&#r #dot #method ()),
                );
            )
        } else if float_named_of_two && arg_readable {
            let (r, a) = (private_ident("__irtrack_r"), private_ident("__irtrack_a"));
            let arg = &m.args[0];
            quote!(
                let #recv_ty = #recv_ty.unless_float_method_of_two(
                    ::core::stringify!(#method), &#receiver, &#arg,
                    |mut #r, #a| ::irtrack::__private::float_of(&#r #dot #method (#a)),
                );
            )
        } else {
            quote!()
        };
        let call = if probe {
            quote!({
                let #recv_ty = (&&&&::irtrack::__private::ReceiverProbe(&#receiver)).receiver();
                #tell_apart
                #read_receiver
                #call
            })
        } else {
            call
        };
        let tokens = if late {
            self.record_late(id, call, m.span())
        } else {
            self.record(id, call, m.span())
        };
        Lowered {
            tokens,
            op,
            loud: true,
        }
    }

    /// A closure written in a tracked function. Its body is lowered as a function of its own,
    /// recorded as a nested call when a tracked caller calls it, and run as written otherwise.
    ///
    /// Before: `|y| y * x`
    /// After:
    /// ```ignore
    /// |y| match claim(&__IRTRACK_CLOSURE_1, || Identity::closure(&__IRTRACK_CLOSURE_1)) {
    ///     Some(__irtrack) => { /* instrumented body */ }
    ///     None => y * x,
    /// }
    /// // and, with the enclosing function's statics:
    /// static __IRTRACK_CLOSURE_1: StaticIr = StaticIr::new("{{closure}}", module_path!(), "…");
    /// ```
    fn closure(&mut self, original: &syn::ExprClosure) -> Lowered {
        if crate::closure::value_type_differs_per_copy(original) {
            return Lowered::quiet(original.to_token_stream(), Operand::None);
        }
        // Keyed by the closure as written (a call site finds its static by that address).
        let key = original as *const syn::ExprClosure;
        let named = name_typed_pattern_parameters(original);
        let c = named.as_ref().unwrap_or(original);
        let captured: Vec<String> = self
            .scopes
            .iter()
            .flat_map(|s| s.iter().map(|l| l.ident.to_string()))
            .chain(self.captured.iter().cloned())
            .collect();
        let closures = self.closures();
        let lowered = crate::closure::check(c).and_then(|()| {
            Lowerer::lower_closure(
                c,
                captured,
                closures.clone(),
                self.generic,
                self.type_params.clone(),
                self.local_macros.clone(),
            )
        });
        let stat = lowered.and_then(|lowered| {
            let n = closures.borrow().idents.len() + 1;
            let ident = syn::Ident::new(&format!("__IRTRACK_CLOSURE_{n}"), Span::mixed_site());
            let stat = lowered.ir.closure_static(&ident, c.span())?;
            let mut all = closures.borrow_mut();
            all.statics.push(stat);
            all.idents.push((key, ident.clone()));
            all.captures.push((key, lowered.captures));
            Ok((ident, lowered.body))
        });
        match stat {
            Ok((ident, body)) => {
                Lowered::quiet(crate::closure::expand(c, &ident, body), Operand::None)
            }
            Err(e) => {
                self.errors.push(e);
                Lowered::quiet(c.to_token_stream(), Operand::None)
            }
        }
    }

    /// Lowers a closure's body as a function of its own: its parameters are the arguments of
    /// block 1, and each use of a name in `captured` that no parameter or local shadows is a
    /// constant entry recording the captured value. Shared by closures written in a tracked
    /// function (`captured` is the enclosing function's variables) and `tracked_fn!` (the
    /// body's free variable names); `crate::closure::expand` puts the result behind its claim.
    pub fn lower_closure(
        c: &syn::ExprClosure,
        captured: Vec<String>,
        closures: std::rc::Rc<std::cell::RefCell<super::Closures>>,
        generic: bool,
        type_params: Vec<String>,
        macros: Vec<super::LocalMacro>,
    ) -> Result<LoweredFn, syn::Error> {
        let params: Vec<syn::Pat> = c.inputs.iter().cloned().collect();
        let body_block: syn::Block = match &*c.body {
            Expr::Block(b) if b.label.is_none() => b.block.clone(),
            other => syn::parse_quote!({ #other }),
        };
        let ret_ty = match &c.output {
            syn::ReturnType::Type(_, ty) => Some((**ty).clone()),
            syn::ReturnType::Default => None,
        };
        // Uses of a captured variable link to the enclosing function's node for it, except of
        // those the closure assigns to, and of all where a closure inside it might.
        let assigned = super::scan::assigned_names(|v| {
            use syn::visit::Visit;
            v.visit_expr(&c.body)
        });
        let outer = captured.clone();
        let lowerer = Lowerer::new(captured)
            .generic(generic, type_params)
            .for_closure()
            .with_closures(closures)
            .with_local_macros(macros)
            .with_return_type(ret_ty);
        let linking = !super::scan::has_closure(&c.body);
        let lowerer = if linking {
            lowerer.linking_captures(assigned)
        } else {
            lowerer
        };
        let mut lowered = lowerer.lower_fn(&params, &body_block)?;
        // The `$(closure)` node made of the captures stands for everything the closure reads
        // of the enclosing function: a capture read only as a place (`x[0]`, `v.len()`, `p.a`),
        // which makes no node of its own, is one of its operands too. Without it, a closure
        // `|_| x[0] * k` given to `map` depended on `k` alone, and a gradient through the
        // `collect` was 0 for 2 (a tester, 2026-11-28).
        if linking {
            let own: Vec<String> = params
                .iter()
                .flat_map(super::scan::pattern_bindings)
                .map(|i| i.to_string())
                .collect();
            let read = super::scan::macro_mentions(&c.body.to_token_stream(), &|n| {
                outer.iter().any(|o| o == n) && !own.iter().any(|o| o == n)
            });
            for name in read {
                if !lowered.captures.contains(&name) {
                    lowered.captures.push(name);
                }
            }
        }
        Ok(lowered)
    }
}

/// The closure `c` with each parameter written as a typed pattern other than a name (`|(a, b):
/// (f64, f64)|`) given a name of its own and the pattern bound to it by a `let` at the top of the
/// body, as `#[tracked]` does for a function's: one argument node per parameter (a pattern's
/// bindings each made one, and a call of one argument met a closure of two: a malformed trace).
/// `None` when no parameter needs it. An untyped pattern (`|(a, b)|`) stays: its type may be
/// known only from the pattern, which a `let` of an untyped name would not tell.
fn name_typed_pattern_parameters(c: &syn::ExprClosure) -> Option<syn::ExprClosure> {
    let mut c = c.clone();
    let mut lets: Vec<syn::Stmt> = Vec::new();
    for (k, input) in c.inputs.iter_mut().enumerate() {
        let syn::Pat::Type(t) = input else { continue };
        lets.extend(super::name_pattern_parameter(t, k));
    }
    if lets.is_empty() {
        return None;
    }
    let body = &c.body;
    c.body = Box::new(syn::parse_quote!({ #(#lets)* #body }));
    Some(c)
}

/// Functions and methods whose return type is usually decided by how the result is used:
/// their values are captured with `LateProbe`.
fn is_late_name(name: &syn::Ident) -> bool {
    matches!(
        name.to_string().as_str(),
        "parse"
            | "collect"
            | "into"
            | "try_into"
            | "sum"
            | "product"
            | "default"
            | "from"
            | "try_from"
            | "from_str"
            | "from_iter"
            | "unwrap_or_default"
            | "into_iter"
            | "fold"
            | "Ok"
            | "Err"
            | "Some"
    )
}

/// The trait method an operator calls, for claiming by a tracked operator impl.
fn binop_method(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add(_) => "add",
        BinOp::Sub(_) => "sub",
        BinOp::Mul(_) => "mul",
        BinOp::Div(_) => "div",
        BinOp::Rem(_) => "rem",
        BinOp::BitXor(_) => "bitxor",
        BinOp::BitAnd(_) => "bitand",
        BinOp::BitOr(_) => "bitor",
        BinOp::Shl(_) => "shl",
        BinOp::Shr(_) => "shr",
        BinOp::AddAssign(_) => "add_assign",
        BinOp::SubAssign(_) => "sub_assign",
        BinOp::MulAssign(_) => "mul_assign",
        BinOp::DivAssign(_) => "div_assign",
        BinOp::RemAssign(_) => "rem_assign",
        BinOp::BitXorAssign(_) => "bitxor_assign",
        BinOp::BitAndAssign(_) => "bitand_assign",
        BinOp::BitOrAssign(_) => "bitor_assign",
        BinOp::ShlAssign(_) => "shl_assign",
        BinOp::ShrAssign(_) => "shr_assign",
        _ => return None,
    })
}

fn collect_local_paths(e: &Expr, out: &mut Vec<syn::Ident>, is_local: &dyn Fn(&str) -> bool) {
    use syn::visit::Visit;
    struct V<'a>(&'a mut Vec<syn::Ident>, &'a dyn Fn(&str) -> bool);
    impl<'ast> Visit<'ast> for V<'_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if let Some(i) = p.path.get_ident() {
                if (self.1)(&i.to_string()) && !self.0.contains(i) {
                    self.0.push(i.clone());
                }
            }
        }
    }
    V(out, is_local).visit_expr(e);
}

/// Whether `e` is a place read without a call in it: a field, an element at a literal or a
/// variable index, a dereference, in parentheses, of a variable.
fn is_callless_place(e: &Expr) -> bool {
    let base = |b: &Expr| is_callless_place(b) || matches!(b, Expr::Path(_));
    match e {
        Expr::Paren(p) => is_callless_place(&p.expr),
        Expr::Field(f) => base(&f.base),
        Expr::Index(i) => base(&i.expr) && matches!(&*i.index, Expr::Lit(_) | Expr::Path(_)),
        Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => base(&u.expr),
        _ => false,
    }
}
