//! `#[cfg]` and `#[cfg_attr]` inside a tracked function, resolved by rustc before lowering.
//!
//! A proc macro cannot evaluate a `cfg` predicate, and an attribute macro sees the item before
//! rustc strips what is configured out of it. So `#[tracked]` expands in two stages when the
//! body (or a parameter) carries `cfg`/`cfg_attr` attributes: the first re-emits the item under
//! one probe per predicate, `#[cfg_attr(P, doc = "__irtrack_cfg N")]`, which rustc expands
//! before it calls the attribute after them, `#[::irtrack::tracked(__irtrack_cfg_resolved)]`;
//! the second stage reads which probes survived, removes what is configured out, expands the
//! `cfg_attr`s that apply, and lowers the function that will really be compiled. The IR thus
//! holds entries for the compiled code only.
//!
//! Before:
//! ```ignore
//! #[tracked]
//! fn f(x: f64) -> f64 { let mut a = x; #[cfg(feature = "big")] { a = 100.0; } a }
//! ```
//! After the first stage:
//! ```ignore
//! #[cfg_attr(feature = "big", doc = "__irtrack_cfg 0")]
//! #[doc = "__irtrack_cfg_count 1"]
//! #[::irtrack::tracked(__irtrack_cfg_resolved)]
//! fn f(x: f64) -> f64 { let mut a = x; #[cfg(feature = "big")] { a = 100.0; } a }
//! ```
//! and the second stage lowers `fn f(x: f64) -> f64 { let mut a = x; a }` when `big` is off.

use proc_macro2::{TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;
use syn::{Attribute, Expr, Meta};

/// The argument of the second stage's attribute.
pub const RESOLVED: &str = "__irtrack_cfg_resolved";
const PROBE: &str = "__irtrack_cfg ";
const COUNT: &str = "__irtrack_cfg_count ";

/// The distinct predicates of the `cfg`/`cfg_attr` attributes inside the item's functions
/// (parameters and bodies, not nested items or macro tokens but `vec!`'s elements), in a fixed
/// order.
fn predicates(item: &syn::Item) -> Vec<TokenStream> {
    let mut c = Strip {
        mode: Mode::Collect(Vec::new()),
    };
    // Collecting reads the attributes `cfg_attr`s stand for by expanding them: on a copy.
    c.visit_fns(&mut item.clone());
    match c.mode {
        Mode::Collect(p) => p,
        Mode::Apply(_) => unreachable!(),
    }
}

/// The first stage: the item under one probe per predicate, or `None` when it has none.
pub fn probe(item: &TokenStream) -> Option<TokenStream> {
    let parsed: syn::Item = syn::parse2(item.clone()).ok()?;
    let preds = predicates(&parsed);
    if preds.is_empty() {
        return None;
    }
    let probes = preds.iter().enumerate().map(|(k, p)| {
        let marker = format!("{PROBE}{k}");
        // The predicate keeps its spans: rustc's `unexpected_cfgs` lint points at the user's
        // `cfg`, once.
        quote!(#[cfg_attr(#p, doc = #marker)])
    });
    let count = format!("{COUNT}{}", preds.len());
    let resolved = syn::Ident::new(RESOLVED, proc_macro2::Span::call_site());
    Some(quote! {
        #(#probes)*
        #[doc = #count]
        #[::irtrack::tracked(#resolved)]
        #item
    })
}

/// The second stage: removes the probes' markers from the item, then everything configured
/// out, and expands the `cfg_attr`s that apply.
pub fn resolve(item: TokenStream) -> Result<TokenStream, syn::Error> {
    let mut parsed: syn::Item = syn::parse2(item)?;
    let attrs = match &mut parsed {
        syn::Item::Fn(f) => &mut f.attrs,
        syn::Item::Impl(i) => &mut i.attrs,
        other => {
            return Err(syn::Error::new_spanned(
                other,
                "#[tracked] goes on a function, a method, or an `impl` block",
            ))
        }
    };
    let mut on = Vec::new();
    let mut count = None;
    attrs.retain(|a| {
        let Some(text) = doc_text(a) else {
            return true;
        };
        if let Some(k) = text.strip_prefix(PROBE) {
            on.extend(k.parse::<usize>().ok());
            false
        } else if let Some(n) = text.strip_prefix(COUNT) {
            count = n.parse::<usize>().ok();
            false
        } else {
            true
        }
    });
    let preds = predicates(&parsed);
    let span = proc_macro2::Span::call_site();
    if count != Some(preds.len()) {
        return Err(syn::Error::new(
            span,
            "irtrack bug: the `#[cfg]` predicates of this item changed between the two stages of `#[tracked]`; please report it",
        ));
    }
    let truth: Vec<(String, bool)> = preds
        .iter()
        .enumerate()
        .map(|(k, p)| (p.to_string(), on.contains(&k)))
        .collect();
    let mut s = Strip {
        mode: Mode::Apply(truth),
    };
    s.visit_fns(&mut parsed);
    Ok(parsed.into_token_stream())
}

fn doc_text(a: &Attribute) -> Option<String> {
    match &a.meta {
        Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

/// Where a closure given to `tracked_fn!` carries a `cfg` or `cfg_attr` that a tracked
/// function would resolve: `tracked_fn!` rejects it (a function-like macro has no second stage
/// to learn the predicates' values from).
pub fn closure_has_cfg(c: &syn::ExprClosure) -> Option<proc_macro2::Span> {
    let mut s = Strip {
        mode: Mode::Collect(Vec::new()),
    };
    let mut c = c.clone();
    s.visit_expr_closure_mut(&mut c);
    match s.mode {
        Mode::Collect(p) => p.first().map(|p| {
            p.clone()
                .into_iter()
                .next()
                .map_or_else(proc_macro2::Span::call_site, |t| t.span())
        }),
        Mode::Apply(_) => None,
    }
}

enum Mode {
    Collect(Vec<TokenStream>),
    /// Each predicate's text and whether rustc found it true.
    Apply(Vec<(String, bool)>),
}

struct Strip {
    mode: Mode,
}

/// The parts of `#[cfg_attr(P, a, b)]`: `P` and the attributes' tokens.
fn cfg_attr_parts(list: &syn::MetaList) -> Option<(TokenStream, Vec<TokenStream>)> {
    let mut parts: Vec<TokenStream> = vec![TokenStream::new()];
    for tt in list.tokens.clone() {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => parts.push(TokenStream::new()),
            _ => parts.last_mut().expect("a part").extend([tt]),
        }
    }
    parts.retain(|p| !p.is_empty());
    let mut it = parts.into_iter();
    let pred = it.next()?;
    Some((pred, it.collect()))
}

impl Strip {
    fn visit_fns(&mut self, item: &mut syn::Item) {
        match item {
            syn::Item::Fn(f) => {
                self.fn_inputs(&mut f.sig.inputs);
                self.visit_block_mut(&mut f.block);
            }
            syn::Item::Impl(i) => {
                for it in &mut i.items {
                    if let syn::ImplItem::Fn(m) = it {
                        self.fn_inputs(&mut m.sig.inputs);
                        self.visit_block_mut(&mut m.block);
                    }
                }
            }
            _ => {}
        }
    }

    fn fn_inputs(&mut self, inputs: &mut Punctuated<syn::FnArg, syn::Token![,]>) {
        let mut kept = Punctuated::new();
        for mut arg in std::mem::take(inputs) {
            let attrs = match &mut arg {
                syn::FnArg::Receiver(r) => &mut r.attrs,
                syn::FnArg::Typed(t) => &mut t.attrs,
            };
            if self.keep(attrs) {
                if let syn::FnArg::Typed(t) = &mut arg {
                    self.visit_pat_mut(&mut t.pat);
                }
                kept.push(arg);
            }
        }
        *inputs = kept;
    }

    fn predicate(&mut self, pred: &TokenStream) -> bool {
        match &mut self.mode {
            Mode::Collect(all) => {
                if !all.iter().any(|p| p.to_string() == pred.to_string()) {
                    all.push(pred.clone());
                }
                true
            }
            Mode::Apply(truth) => {
                let text = pred.to_string();
                truth.iter().any(|(p, on)| *on && *p == text)
            }
        }
    }

    /// Evaluates the `cfg`s of a node and expands its `cfg_attr`s; whether it is kept. In
    /// collect mode every predicate is recorded and everything is kept.
    fn keep(&mut self, attrs: &mut Vec<Attribute>) -> bool {
        let mut out = Vec::new();
        let mut keep = true;
        let mut queue: std::collections::VecDeque<Attribute> =
            std::mem::take(attrs).into_iter().collect();
        while let Some(a) = queue.pop_front() {
            match &a.meta {
                Meta::List(list) if list.path.is_ident("cfg") => {
                    let pred = list.tokens.clone();
                    keep &= self.predicate(&pred);
                    if let Mode::Collect(_) = self.mode {
                        out.push(a);
                    }
                }
                Meta::List(list) if list.path.is_ident("cfg_attr") => {
                    let Some((pred, rest)) = cfg_attr_parts(list) else {
                        out.push(a);
                        continue;
                    };
                    let on = self.predicate(&pred);
                    let collect = matches!(self.mode, Mode::Collect(_));
                    if on || collect {
                        // The attributes it stands for, in order, before the rest.
                        let pound = a.pound_token;
                        let new: Vec<Attribute> = rest
                            .iter()
                            .filter_map(|r| {
                                let span = r.clone().into_iter().next().map(|t| t.span());
                                let span = span.unwrap_or_else(proc_macro2::Span::call_site);
                                let tokens = quote_spanned!(span=> #pound [#r]);
                                syn::parse::Parser::parse2(Attribute::parse_outer, tokens).ok()
                            })
                            .flatten()
                            .collect();
                        for n in new.into_iter().rev() {
                            queue.push_front(n);
                        }
                    }
                    if collect {
                        out.push(a);
                    }
                }
                _ => out.push(a),
            }
        }
        *attrs = out;
        keep
    }

    fn filter_exprs(&mut self, list: &mut Punctuated<Expr, syn::Token![,]>) {
        let mut kept = Punctuated::new();
        for mut e in std::mem::take(list) {
            if self.keep_expr(&mut e) {
                self.visit_expr_mut(&mut e);
                kept.push(e);
            }
        }
        *list = kept;
    }

    fn keep_expr(&mut self, e: &mut Expr) -> bool {
        match expr_attrs(e) {
            Some(attrs) => self.keep(attrs),
            None => true,
        }
    }
}

/// The outer attributes of an expression.
fn expr_attrs(e: &mut Expr) -> Option<&mut Vec<Attribute>> {
    macro_rules! attrs {
        ($($v:ident),*) => {
            match e {
                $(Expr::$v(x) => Some(&mut x.attrs),)*
                _ => None,
            }
        };
    }
    attrs!(
        Array, Assign, Async, Await, Binary, Block, Break, Call, Cast, Closure, Const, Continue,
        Field, ForLoop, Group, If, Index, Infer, Let, Lit, Loop, Macro, Match, MethodCall, Paren,
        Path, Range, RawAddr, Reference, Repeat, Return, Struct, Try, TryBlock, Tuple, Unary,
        Unsafe, While, Yield
    )
}

impl VisitMut for Strip {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mut kept = Vec::new();
        for mut stmt in std::mem::take(&mut b.stmts) {
            let keep = match &mut stmt {
                syn::Stmt::Local(l) => self.keep(&mut l.attrs),
                syn::Stmt::Macro(m) => self.keep(&mut m.attrs),
                syn::Stmt::Expr(e, _) => self.keep_expr(e),
                // Items keep their attributes: rustc configures them where they are emitted.
                syn::Stmt::Item(_) => true,
            };
            if keep {
                self.visit_stmt_mut(&mut stmt);
                kept.push(stmt);
            }
        }
        b.stmts = kept;
    }
    fn visit_expr_array_mut(&mut self, e: &mut syn::ExprArray) {
        self.filter_exprs(&mut e.elems);
    }
    fn visit_expr_tuple_mut(&mut self, e: &mut syn::ExprTuple) {
        self.filter_exprs(&mut e.elems);
    }
    fn visit_expr_call_mut(&mut self, e: &mut syn::ExprCall) {
        self.visit_expr_mut(&mut e.func);
        self.filter_exprs(&mut e.args);
    }
    fn visit_expr_method_call_mut(&mut self, e: &mut syn::ExprMethodCall) {
        self.visit_expr_mut(&mut e.receiver);
        self.filter_exprs(&mut e.args);
    }
    fn visit_expr_struct_mut(&mut self, e: &mut syn::ExprStruct) {
        let mut kept = Punctuated::new();
        for mut f in std::mem::take(&mut e.fields) {
            if self.keep(&mut f.attrs) {
                self.visit_expr_mut(&mut f.expr);
                kept.push(f);
            }
        }
        e.fields = kept;
        if let Some(rest) = &mut e.rest {
            self.visit_expr_mut(rest);
        }
    }
    fn visit_expr_match_mut(&mut self, e: &mut syn::ExprMatch) {
        self.visit_expr_mut(&mut e.expr);
        let mut kept = Vec::new();
        for mut arm in std::mem::take(&mut e.arms) {
            if self.keep(&mut arm.attrs) {
                self.visit_arm_mut(&mut arm);
                kept.push(arm);
            }
        }
        e.arms = kept;
    }
    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        let mut kept = Punctuated::new();
        for mut p in std::mem::take(&mut c.inputs) {
            let keep = match pat_attrs(&mut p) {
                Some(attrs) => self.keep(attrs),
                None => true,
            };
            if keep {
                self.visit_pat_mut(&mut p);
                kept.push(p);
            }
        }
        c.inputs = kept;
        self.visit_expr_mut(&mut c.body);
    }
    fn visit_pat_struct_mut(&mut self, p: &mut syn::PatStruct) {
        let mut kept = Punctuated::new();
        for mut f in std::mem::take(&mut p.fields) {
            if self.keep(&mut f.attrs) {
                self.visit_pat_mut(&mut f.pat);
                kept.push(f);
            }
        }
        p.fields = kept;
    }
    fn visit_field_value_mut(&mut self, f: &mut syn::FieldValue) {
        self.visit_expr_mut(&mut f.expr);
    }
    fn visit_attribute_mut(&mut self, _: &mut Attribute) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    /// Macro tokens are left as they are, but for `vec![a, b, …]`, whose elements the lowering
    /// lowers (`lower::expr`): what is configured out inside them must be out of the IR too
    /// (a block `{ let a = x; #[cfg(…)] let a = 2.0 * x; a }` as an element referred to the
    /// binding configured out; seed 15 of the differential tester, unit 732).
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        use syn::parse::Parser;
        if !m.path.is_ident("vec") {
            return;
        }
        let parser = Punctuated::<Expr, syn::Token![,]>::parse_terminated;
        let Ok(mut elems) = parser.parse2(m.tokens.clone()) else {
            return;
        };
        self.filter_exprs(&mut elems);
        m.tokens = elems.into_token_stream();
    }
}

fn pat_attrs(p: &mut syn::Pat) -> Option<&mut Vec<Attribute>> {
    use syn::Pat;
    Some(match p {
        Pat::Const(x) => &mut x.attrs,
        Pat::Ident(x) => &mut x.attrs,
        Pat::Lit(x) => &mut x.attrs,
        Pat::Macro(x) => &mut x.attrs,
        Pat::Or(x) => &mut x.attrs,
        Pat::Paren(x) => &mut x.attrs,
        Pat::Path(x) => &mut x.attrs,
        Pat::Range(x) => &mut x.attrs,
        Pat::Reference(x) => &mut x.attrs,
        Pat::Rest(x) => &mut x.attrs,
        Pat::Slice(x) => &mut x.attrs,
        Pat::Struct(x) => &mut x.attrs,
        Pat::Tuple(x) => &mut x.attrs,
        Pat::TupleStruct(x) => &mut x.attrs,
        Pat::Type(x) => &mut x.attrs,
        Pat::Wild(x) => &mut x.attrs,
        _ => return None,
    })
}
