//! Static questions the lowering asks of a piece of syntax before it lowers it: which variables
//! it assigns, whether it breaks out of a loop, which names a pattern binds, whether it diverges.

use proc_macro2::{TokenStream, TokenTree};
use std::collections::BTreeSet;
use syn::visit::Visit;
use syn::{Expr, Pat};

/// Names of variables assigned (`x = …`, `x += …`) anywhere in `node`, outside closures: the
/// candidates for block arguments of a loop header or a merge block.
pub fn assigned_names<'a>(visit: impl FnOnce(&mut AssignedNames<'a>)) -> BTreeSet<String> {
    let mut v = AssignedNames::default();
    visit(&mut v);
    v.names
}

#[derive(Default)]
pub struct AssignedNames<'a> {
    names: BTreeSet<String>,
    _marker: std::marker::PhantomData<&'a ()>,
}

fn assigned_root(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        Expr::Paren(p) => assigned_root(&p.expr),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for AssignedNames<'_> {
    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        match &*e.left {
            // Destructuring assignment: `(a, b) = (b, a + b)` assigns every name in it.
            Expr::Tuple(_) | Expr::Array(_) | Expr::Struct(_) | Expr::Call(_) => {
                struct Names<'n>(&'n mut BTreeSet<String>);
                impl<'ast> Visit<'ast> for Names<'_> {
                    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
                        if let Some(i) = p.path.get_ident() {
                            self.0.insert(i.to_string());
                        }
                    }
                }
                Names(&mut self.names).visit_expr(&e.left);
            }
            left => {
                if let Some(n) = assigned_root(left) {
                    self.names.insert(n);
                }
            }
        }
        syn::visit::visit_expr_assign(self, e);
    }
    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if is_compound(&e.op) {
            if let Some(n) = assigned_root(&e.left) {
                self.names.insert(n);
            }
        }
        syn::visit::visit_expr_binary(self, e);
    }
    // `f(&mut k);` gives `k` a new version after the call (`Lowerer::stmt`): a merge or a
    // loop header must carry it like an assignment.
    fn visit_expr_reference(&mut self, e: &'ast syn::ExprReference) {
        if e.mutability.is_some() {
            if let Some(n) = assigned_root(&e.expr) {
                self.names.insert(n);
            }
        }
        syn::visit::visit_expr_reference(self, e);
    }
    // `xs.push(x);` gives `xs` a new version too (`Lowerer::mut_borrowed_locals`): a loop that
    // pushes must carry `xs` through its header and exit, or a read after a loop that ran its
    // body zero times refers to a version that was never recorded.
    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        if super::is_std_mutating_method(&e.method.to_string()) {
            if let Some(n) = assigned_root(&e.receiver) {
                self.names.insert(n);
            }
        }
        syn::visit::visit_expr_method_call(self, e);
    }
    // `add_to!(a, x);` may assign what it mentions (`Lowerer::stmt` gives a `mut` one a new
    // version after it): a loop must carry it too.
    fn visit_stmt_macro(&mut self, m: &'ast syn::StmtMacro) {
        self.visit_macro(&m.mac);
    }
    // In expression position too (`let t = bump!(c);`): a `mut` variable it mentions gets a
    // node there (`Lowerer::macro_writes`).
    fn visit_expr_macro(&mut self, m: &'ast syn::ExprMacro) {
        self.visit_macro(&m.mac);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if !user_macro_may_assign(m) {
            return;
        }
        for n in macro_mentions(&m.tokens, &|_| true) {
            self.names.insert(n);
        }
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether a statement macro may assign the variables it mentions: any but the std's (and
/// `log`'s) that only read (`println!`, `assert!`, `write!`).
pub fn user_macro_may_assign(mac: &syn::Macro) -> bool {
    let head = format!("{}!", super::text::text(&mac.path));
    !irtrack_runtime::core::op::macro_only_reads(&head)
}

/// Names bound `mut` anywhere in `params` and `body` (`let mut a`, `mut x: f64`, `ref mut r`):
/// the variables a macro that mentions them may assign.
pub fn mutable_bindings(params: &[Pat], body: &syn::Block) -> BTreeSet<String> {
    #[derive(Default)]
    struct Mutable(BTreeSet<String>);
    impl<'ast> Visit<'ast> for Mutable {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            if p.mutability.is_some() {
                self.0.insert(p.ident.to_string());
            }
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut v = Mutable::default();
    for p in params {
        v.visit_pat(p);
    }
    v.visit_block(body);
    v.0
}

/// Whether `e` has a closure inside it.
pub fn has_closure(e: &Expr) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {
            self.0 = true;
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut f = Finder(false);
    f.visit_expr(e);
    f.0
}

pub fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// Whether `body` contains a `break` that leaves the loop labelled `label` (or, for `None`, the
/// loop whose body it is), and whether any such break carries a value.
pub fn breaks_of(body: &syn::Block, label: Option<&str>) -> (bool, bool) {
    let mut v = Breaks {
        label: label.map(str::to_owned),
        depth: 0,
        unlabelled: true,
        found: false,
        with_value: false,
    };
    v.visit_block(body);
    (v.found, v.with_value)
}

/// Whether `body`, the body of a block labelled `label`, contains a `break 'label` (an
/// unlabelled `break` leaves the enclosing loop, not the block).
pub fn breaks_of_labelled(body: &syn::Block, label: Option<&str>) -> bool {
    let mut v = Breaks {
        label: label.map(str::to_owned),
        depth: 0,
        unlabelled: false,
        found: false,
        with_value: false,
    };
    v.visit_block(body);
    v.found
}

struct Breaks {
    label: Option<String>,
    depth: usize,
    /// Whether an unlabelled `break` at depth 0 leaves the construct (a loop, not a block).
    unlabelled: bool,
    found: bool,
    with_value: bool,
}

impl<'ast> Visit<'ast> for Breaks {
    fn visit_expr_break(&mut self, e: &'ast syn::ExprBreak) {
        let ours = match &e.label {
            Some(l) => Some(l.ident.to_string()) == self.label,
            None => self.unlabelled && self.depth == 0,
        };
        if ours {
            self.found = true;
            self.with_value |= e.expr.is_some();
        }
        syn::visit::visit_expr_break(self, e);
    }
    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.visit_expr(&e.cond);
        self.depth += 1;
        self.visit_block(&e.body);
        self.depth -= 1;
    }
    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        self.visit_expr(&e.expr);
        self.depth += 1;
        self.visit_block(&e.body);
        self.depth -= 1;
    }
    fn visit_expr_loop(&mut self, e: &'ast syn::ExprLoop) {
        self.depth += 1;
        self.visit_block(&e.body);
        self.depth -= 1;
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether a type names a projection: a qualified path (`<F as Float>::Int`) or a path through a
/// type parameter or `Self` (`F::Int`, `Self::Output`).
pub fn mentions_projection(ty: &syn::Type, type_params: &[String]) -> bool {
    struct Find<'a>(&'a [String], bool);
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_type_path(&mut self, t: &'ast syn::TypePath) {
            let first = t.path.segments.first().map(|s| s.ident.to_string());
            if t.qself.is_some()
                || (t.path.segments.len() > 1
                    && first.is_some_and(|f| f == "Self" || self.0.contains(&f)))
            {
                self.1 = true;
            }
            syn::visit::visit_type_path(self, t);
        }
    }
    let mut f = Find(type_params, false);
    f.visit_type(ty);
    f.1
}

/// The identifiers a pattern binds, in source order.
pub fn pattern_bindings(pat: &Pat) -> Vec<syn::Ident> {
    struct Bindings(Vec<syn::Ident>);
    impl<'ast> Visit<'ast> for Bindings {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            // A lone uppercase identifier in a pattern is usually a unit struct, variant or
            // constant, not a binding; Rust's own lint makes the same guess.
            let name = p.ident.to_string();
            let looks_like_const = p.by_ref.is_none()
                && p.mutability.is_none()
                && p.subpat.is_none()
                && name.chars().next().is_some_and(char::is_uppercase);
            if !looks_like_const && !self.0.contains(&p.ident) {
                self.0.push(p.ident.clone());
            }
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_expr(&mut self, _: &'ast Expr) {}
    }
    let mut b = Bindings(Vec::new());
    b.visit_pat(pat);
    b.0
}

/// Where `ident` sits in `pat`, as the path of tuple positions from the scrutinee (`""` for the
/// whole, `"1"` for `b` in `(a, b)`, `"0.1"` in `((_, x), _)`), through `&`, parentheses and
/// type ascriptions; `None` when it sits elsewhere (a struct or enum pattern, a slice).
pub fn binding_path(pat: &Pat, ident: &syn::Ident) -> Option<String> {
    match pat {
        Pat::Ident(p) if p.ident == *ident => Some(String::new()),
        Pat::Ident(p) => p
            .subpat
            .as_ref()
            .and_then(|(_, sub)| binding_path(sub, ident)),
        Pat::Paren(p) => binding_path(&p.pat, ident),
        Pat::Type(t) => binding_path(&t.pat, ident),
        Pat::Reference(r) => binding_path(&r.pat, ident),
        // After `..` the positions count from the end, which the pattern does not say.
        Pat::Tuple(t) if t.elems.iter().any(|e| matches!(e, Pat::Rest(_))) => None,
        Pat::Tuple(t) => t.elems.iter().enumerate().find_map(|(k, e)| {
            binding_path(e, ident).map(|rest| match rest.is_empty() {
                true => k.to_string(),
                false => format!("{k}.{rest}"),
            })
        }),
        // A struct's field by its name (`let P { x, y: w } = p`), as a read `p.x` names it.
        Pat::Struct(s) if s.qself.is_none() => s.fields.iter().find_map(|f| {
            let member = match &f.member {
                syn::Member::Named(i) => i.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            binding_path(&f.pat, ident).map(|rest| match rest.is_empty() {
                true => member.clone(),
                false => format!("{member}.{rest}"),
            })
        }),
        _ => None,
    }
}

/// The path to `ident` in the left side of a destructuring assignment (`(a, (b, c)) = …`),
/// as [`binding_path`] gives it for a pattern: `None` where the place is not a tuple part
/// (an element of an array, a field of a struct literal) or follows a `..`.
pub fn assigned_path(e: &Expr, ident: &syn::Ident) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() && p.path.is_ident(ident) => Some(String::new()),
        Expr::Paren(p) => assigned_path(&p.expr, ident),
        Expr::Tuple(t) if t.elems.iter().any(|e| matches!(e, Expr::Range(_))) => None,
        Expr::Tuple(t) => t.elems.iter().enumerate().find_map(|(k, e)| {
            assigned_path(e, ident).map(|rest| match rest.is_empty() {
                true => k.to_string(),
                false => format!("{k}.{rest}"),
            })
        }),
        _ => None,
    }
}

/// Whether a pattern always matches (a binding, `_`, or a tuple of those).
pub fn is_irrefutable(pat: &Pat) -> bool {
    match pat {
        Pat::Wild(_) => true,
        Pat::Ident(p) => p.subpat.is_none() && !pattern_bindings(pat).is_empty(),
        Pat::Tuple(t) => t.elems.iter().all(is_irrefutable),
        Pat::Paren(p) => is_irrefutable(&p.pat),
        Pat::Type(t) => is_irrefutable(&t.pat),
        Pat::Reference(r) => is_irrefutable(&r.pat),
        _ => false,
    }
}

/// Whether control never reaches the end of `block`: a statement in it diverges (`return`,
/// `break`, `continue`, a panicking macro, or an `if`/`match`/block all of whose ways out do).
/// The instrumented copy must not bind the value of such a block: its type would be `!`, which
/// falls back to `()` (a hard error in edition 2024, and a lint before).
pub fn block_diverges(block: &syn::Block) -> bool {
    block.stmts.iter().any(|s| match s {
        syn::Stmt::Expr(e, _) => expr_diverges(e),
        syn::Stmt::Macro(m) => macro_diverges(&m.mac),
        _ => false,
    })
}

pub fn expr_diverges(e: &Expr) -> bool {
    match e {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Macro(m) => macro_diverges(&m.mac),
        Expr::Block(b) if b.label.is_none() => block_diverges(&b.block),
        Expr::Block(b) => {
            let label = b.label.as_ref().map(|l| l.name.ident.to_string());
            block_diverges(&b.block) && !breaks_of_labelled(&b.block, label.as_deref())
        }
        Expr::Unsafe(u) => block_diverges(&u.block),
        Expr::Paren(p) => expr_diverges(&p.expr),
        Expr::Group(g) => expr_diverges(&g.expr),
        Expr::If(i) => match &i.else_branch {
            Some((_, e)) => block_diverges(&i.then_branch) && expr_diverges(e),
            None => false,
        },
        Expr::Match(m) => m.arms.iter().all(|a| expr_diverges(&a.body)),
        Expr::Loop(l) => {
            !breaks_of(
                &l.body,
                l.label
                    .as_ref()
                    .map(|l| l.name.ident.to_string())
                    .as_deref(),
            )
            .0
        }
        _ => false,
    }
}

/// `panic!`, `unreachable!`, `todo!`, `unimplemented!`: macros that never give a value.
pub(crate) fn macro_diverges(m: &syn::Macro) -> bool {
    m.path.get_ident().is_some_and(|i| {
        matches!(
            i.to_string().as_str(),
            "panic" | "unreachable" | "todo" | "unimplemented"
        )
    })
}

/// Local names a macro's tokens mention (not after a `.`, so field names do not count): the
/// references of its special node. The macro itself stays opaque.
pub fn macro_mentions(tokens: &TokenStream, is_local: &dyn Fn(&str) -> bool) -> Vec<String> {
    fn walk(ts: &TokenStream, is_local: &dyn Fn(&str) -> bool, out: &mut Vec<String>) {
        let mut after_dot = false;
        for tt in ts.clone() {
            match &tt {
                TokenTree::Ident(i) => {
                    let n = i.to_string();
                    if !after_dot && is_local(&n) && !out.contains(&n) {
                        out.push(n);
                    }
                    after_dot = false;
                }
                TokenTree::Punct(p) => after_dot = p.as_char() == '.',
                TokenTree::Group(g) => {
                    walk(&g.stream(), is_local, out);
                    after_dot = false;
                }
                TokenTree::Literal(lit) => {
                    // Format strings name their arguments inline: `format!("{n} {x:.2}")`.
                    for name in inline_format_args(&lit.to_string()) {
                        if is_local(&name) && !out.contains(&name) {
                            out.push(name);
                        }
                    }
                    after_dot = false;
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(tokens, is_local, &mut out);
    out
}

/// The method calls written `name.method(` in a macro's tokens, as (receiver, method): the
/// receivers the expressions it runs may change.
pub fn macro_method_receivers(tokens: &TokenStream) -> Vec<(String, String)> {
    fn walk(ts: &TokenStream, out: &mut Vec<(String, String)>) {
        let tts: Vec<TokenTree> = ts.clone().into_iter().collect();
        for (k, tt) in tts.iter().enumerate() {
            if let TokenTree::Group(g) = tt {
                walk(&g.stream(), out);
                continue;
            }
            let (Some(TokenTree::Ident(r)), Some(TokenTree::Punct(dot))) =
                (Some(tt), tts.get(k + 1))
            else {
                continue;
            };
            // Not a field or method of a path (`a.b.c(`): only the first name is a variable.
            let after_dot =
                k > 0 && matches!(&tts[k - 1], TokenTree::Punct(p) if p.as_char() == '.');
            if after_dot || dot.as_char() != '.' {
                continue;
            }
            if let (Some(TokenTree::Ident(m)), Some(TokenTree::Group(args))) =
                (tts.get(k + 2), tts.get(k + 3))
            {
                if args.delimiter() == proc_macro2::Delimiter::Parenthesis {
                    out.push((r.to_string(), m.to_string()));
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(tokens, &mut out);
    out
}

/// Whether `pat` binds anything by `ref mut` (`ref mut r`, `Some(ref mut r)`): a borrow of the
/// scrutinee's place, through which the arm may write it.
pub fn binds_ref_mut(pat: &Pat) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0 |= p.by_ref.is_some() && p.mutability.is_some();
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut f = Finder(false);
    f.visit_pat(pat);
    f.0
}

/// The identifiers a macro's tokens mention that could be variables it declares: lower-case
/// (snake case, not a constant's `SCREAMING_CASE` or a type's `CamelCase`), not a keyword,
/// not called (`f(…)`), not a path's segment (`m::c`, `x.f`) and not a macro (`m!`).
pub fn declared_candidates(tokens: &TokenStream) -> Vec<String> {
    fn walk(ts: &TokenStream, out: &mut Vec<String>) {
        let trees: Vec<TokenTree> = ts.clone().into_iter().collect();
        for (k, tt) in trees.iter().enumerate() {
            match tt {
                TokenTree::Ident(i) => {
                    let n = i.to_string();
                    let prev = k.checked_sub(1).map(|j| &trees[j]);
                    let next = trees.get(k + 1);
                    let punct = |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
                    let called = matches!(next, Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
                    let lower = n
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
                        && n.chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
                    let keyword = syn::parse_str::<syn::Ident>(&n).is_err();
                    if lower
                        && !keyword
                        && !called
                        && !punct(prev, '.')
                        && !punct(prev, ':')
                        && !punct(next, ':')
                        && !punct(next, '!')
                        && !out.contains(&n)
                    {
                        out.push(n);
                    }
                }
                TokenTree::Group(g) => walk(&g.stream(), out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(tokens, &mut out);
    out
}

/// The identifiers a string literal names as inline format arguments (`{x}`, `{x:?}`), in order.
fn inline_format_args(literal: &str) -> Vec<String> {
    if !literal.starts_with('"') && !literal.starts_with('r') {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut rest = literal;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if rest.starts_with('{') {
            rest = &rest[1..];
            continue;
        }
        let end = rest.find(['}', ':']).unwrap_or(rest.len());
        let name = &rest[..end];
        if !name.is_empty()
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
        {
            out.push(name.to_owned());
        }
    }
    out
}

/// Whether lowering `e` would open blocks of its own: an `if`, `match`, loop, `&&`/`||`, `?`,
/// labelled block or `return`/`break` anywhere in it outside closures. A match guard that does
/// cannot be lowered in place, since the arm's branch leaves the scrutinee's block.
pub fn has_control_flow(e: &Expr) -> bool {
    struct Found(bool);
    impl<'ast> Visit<'ast> for Found {
        fn visit_expr(&mut self, e: &'ast Expr) {
            if branches(e) {
                self.0 = true;
            } else {
                syn::visit::visit_expr(self, e);
            }
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut f = Found(false);
    f.visit_expr(e);
    f.0
}

/// Whether `e` is a condition whose only control flow is `&&` and `||` (with `!` and
/// parentheses between them) over operands with none of their own, no closure, block, macro,
/// assignment or `let`: a match guard of this form is lowered without blocks of its own, each
/// operand recorded in the scrutinee's block when it runs (`Lowerer::match_expr`).
pub fn short_circuits_only(e: &Expr) -> bool {
    match e {
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
            short_circuits_only(&b.left) && short_circuits_only(&b.right)
        }
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => short_circuits_only(&u.expr),
        Expr::Paren(p) => short_circuits_only(&p.expr),
        leaf => plain_operand(leaf),
    }
}

/// Whether `e` itself (not what it contains) branches or jumps: `if`, `match`, a loop, `?`,
/// `return`, `break`, `continue`, a labelled block, `&&`, `||`.
fn branches(e: &Expr) -> bool {
    match e {
        Expr::If(_)
        | Expr::Match(_)
        | Expr::Loop(_)
        | Expr::While(_)
        | Expr::ForLoop(_)
        | Expr::Try(_)
        | Expr::Return(_)
        | Expr::Break(_)
        | Expr::Continue(_) => true,
        Expr::Block(b) => b.label.is_some(),
        Expr::Binary(b) => matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)),
        _ => false,
    }
}

/// An operand with no control flow, closure, block, macro, assignment or `let` inside.
fn plain_operand(e: &Expr) -> bool {
    struct Plain(bool);
    impl<'ast> Visit<'ast> for Plain {
        fn visit_expr(&mut self, e: &'ast Expr) {
            let other = matches!(
                e,
                Expr::Block(_)
                    | Expr::Unsafe(_)
                    | Expr::Async(_)
                    | Expr::Closure(_)
                    | Expr::Macro(_)
                    | Expr::Assign(_)
                    | Expr::Let(_)
            ) || matches!(e, Expr::Binary(b) if is_compound(&b.op));
            if branches(e) || other {
                self.0 = false;
            } else {
                syn::visit::visit_expr(self, e);
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {
            self.0 = false;
        }
    }
    let mut p = Plain(true);
    p.visit_expr(e);
    p.0
}

/// The first `break`, `continue`, `return` or `?` in `e` that leaves `e` (outside closures,
/// async blocks and items; a `break` or `continue` of a loop inside `e` stays), with what it
/// is: code that runs unrecorded (a match guard with control flow) must not jump out, or the
/// trace would miss the jump.
pub fn escape(e: &Expr) -> Option<(proc_macro2::Span, &'static str)> {
    struct Escape {
        loops: usize,
        labels: Vec<String>,
        found: Option<(proc_macro2::Span, &'static str)>,
    }
    impl Escape {
        fn leaves(&self, label: &Option<syn::Lifetime>) -> bool {
            match label {
                Some(l) => !self.labels.contains(&l.ident.to_string()),
                None => self.loops == 0,
            }
        }
        fn inside(&mut self, label: &Option<syn::Label>, is_loop: bool, f: impl FnOnce(&mut Self)) {
            self.loops += usize::from(is_loop);
            let pushed = label
                .as_ref()
                .map(|l| self.labels.push(l.name.ident.to_string()));
            f(self);
            if pushed.is_some() {
                self.labels.pop();
            }
            self.loops -= usize::from(is_loop);
        }
    }
    impl<'ast> Visit<'ast> for Escape {
        fn visit_expr(&mut self, e: &'ast Expr) {
            if self.found.is_some() {
                return;
            }
            use syn::spanned::Spanned;
            match e {
                Expr::Break(b) if self.leaves(&b.label) => self.found = Some((b.span(), "break")),
                Expr::Continue(c) if self.leaves(&c.label) => {
                    self.found = Some((c.span(), "continue"))
                }
                Expr::Return(r) => self.found = Some((r.span(), "return")),
                Expr::Try(t) => self.found = Some((t.question_token.span(), "?")),
                Expr::Loop(l) => self.inside(&l.label, true, |s| s.visit_block(&l.body)),
                Expr::While(w) => {
                    self.visit_expr(&w.cond);
                    self.inside(&w.label, true, |s| s.visit_block(&w.body));
                }
                Expr::ForLoop(f) => {
                    self.visit_expr(&f.expr);
                    self.inside(&f.label, true, |s| s.visit_block(&f.body));
                }
                Expr::Block(b) => self.inside(&b.label, false, |s| s.visit_block(&b.block)),
                Expr::Closure(_) | Expr::Async(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut v = Escape {
        loops: 0,
        labels: Vec::new(),
        found: None,
    };
    v.visit_expr(e);
    v.found
}

/// The base of a place read through `&` whose value is a temporary: `v.as_slice()` in
/// `&v.as_slice()[1..]`, `f(x)` in `&(*f(x)).y`; `None` when the place is not a field or an
/// element, or is rooted in a path (`&v[i]`, `&(*r).x`), which borrows no temporary.
pub fn temporary_base(place: &Expr) -> Option<&Expr> {
    fn base(e: &Expr) -> Option<&Expr> {
        match e {
            Expr::Path(_) => None,
            Expr::Field(f) => base(&f.base),
            Expr::Index(i) => base(&i.expr),
            Expr::Paren(p) => base(&p.expr),
            Expr::Group(g) => base(&g.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => base(&u.expr),
            other => Some(other),
        }
    }
    match place {
        Expr::Field(f) => base(&f.base),
        Expr::Index(i) => base(&i.expr),
        Expr::Paren(p) => temporary_base(&p.expr),
        Expr::Group(g) => temporary_base(&g.expr),
        _ => None,
    }
}

/// The shared borrows of places with a temporary base (see [`temporary_base`]) whose
/// temporaries a `let` with initialiser `init` extends to the end of the block: the temporary
/// base of `init` itself when it is such a borrow, and the other such borrows in extending
/// positions the instrumented copy keeps (operands of `&`, the tail of a block).
pub fn extending_borrows(init: &Expr) -> (Option<&Expr>, Vec<*const syn::ExprReference>) {
    fn walk(e: &Expr, out: &mut Vec<*const syn::ExprReference>) {
        let tail = |b: &syn::Block, out: &mut Vec<_>| {
            if let Some(syn::Stmt::Expr(e, None)) = b.stmts.last() {
                walk(e, out);
            }
        };
        match e {
            Expr::Reference(r) => {
                if r.mutability.is_none() && temporary_base(&r.expr).is_some() {
                    out.push(r as *const syn::ExprReference);
                }
                walk(&r.expr, out);
            }
            Expr::Paren(p) => walk(&p.expr, out),
            Expr::Group(g) => walk(&g.expr, out),
            Expr::Block(b) => tail(&b.block, out),
            Expr::Unsafe(u) => tail(&u.block, out),
            // The other extending positions are not extending in the instrumented copy: a
            // tuple, array, struct literal or cast is recorded through a call, and the arms
            // of an `if` or `match` pass their value through a local (`__irtrack_value`).
            _ => {}
        }
    }
    let mut out = Vec::new();
    let mut top = init;
    while let Expr::Paren(syn::ExprParen { expr, .. }) | Expr::Group(syn::ExprGroup { expr, .. }) =
        top
    {
        top = expr;
    }
    match top {
        Expr::Reference(r) if r.mutability.is_none() => match temporary_base(&r.expr) {
            Some(base) => {
                walk(&r.expr, &mut out);
                (Some(base), out)
            }
            None => {
                walk(init, &mut out);
                (None, out)
            }
        },
        _ => {
            walk(init, &mut out);
            (None, out)
        }
    }
}

/// `tokens` without its metavariables (`$x`, `$crate`) and repetitions' `$`: in a
/// `macro_rules!`'s rules, `$x` names what a call passes, no variable in scope.
pub fn without_metavariables(tokens: &TokenStream) -> TokenStream {
    let mut out = Vec::new();
    let mut dollar = false;
    for t in tokens.clone() {
        match t {
            TokenTree::Punct(p) if p.as_char() == '$' => dollar = true,
            TokenTree::Ident(_) if dollar => dollar = false,
            TokenTree::Group(g) => {
                dollar = false;
                let mut inner =
                    proc_macro2::Group::new(g.delimiter(), without_metavariables(&g.stream()));
                inner.set_span(g.span());
                out.push(TokenTree::Group(inner));
            }
            other => {
                dollar = false;
                out.push(other);
            }
        }
    }
    out.into_iter().collect()
}

/// Every identifier in `tokens`, groups included (a local macro's name, to find the rules of
/// the local macros a macro call's tokens call).
pub fn idents_in(tokens: &TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    for t in tokens.clone() {
        match t {
            proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
            proc_macro2::TokenTree::Group(g) => out.extend(idents_in(&g.stream())),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::inline_format_args;

    #[test]
    fn format_strings_name_their_inline_arguments() {
        assert_eq!(
            inline_format_args(r#""{n} and {x:.2} {{not}} {0} {}""#),
            ["n", "x"]
        );
        assert!(inline_format_args("12").is_empty());
    }
}
