//! Closures tracked on their own. A closure written in a tracked function and a closure given
//! to `tracked_fn!` go through the same phases as `#[tracked]`: checked here (`check`, and for
//! `tracked_fn!` also `parse`, which completes the closure), lowered by
//! `Lowerer::lower_closure`, and put behind their claim by `expand`.

use crate::lower::frame;
use proc_macro2::{Span, TokenStream};

use quote::quote;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::Expr;

/// The input of `tracked_fn!` after `parse`: the closure, with default parameter types.
pub struct TrackedClosure {
    pub closure: syn::ExprClosure,
    /// Names the closure may capture: the free variable-like names of its body (see
    /// `free_names`). A use of one that no parameter or local shadows records a constant.
    pub captured: Vec<String>,
}

const NOT_A_CLOSURE: &str = "tracked_fn! takes one closure expression, as in `tracked_fn!(|x: f64| x * x)`; to track a named function, put #[tracked] on the function instead";

/// Parses and checks the input of `tracked_fn!`: one closure expression (an optional trailing
/// comma allowed), not `async`. Parameters written without a type get `f64`.
pub fn parse(input: TokenStream) -> Result<TrackedClosure, syn::Error> {
    let mut closure = parse_closure(input)?;
    check(&closure)?;
    default_parameter_types(&mut closure);
    let captured = free_names(&closure.body);
    Ok(TrackedClosure { closure, captured })
}

/// The closure of the input, or the error saying what to write instead, at the whole input.
fn parse_closure(input: TokenStream) -> Result<syn::ExprClosure, syn::Error> {
    let one_expr = |stream: syn::parse::ParseStream| {
        let e: syn::Expr = stream.parse()?;
        let _: Option<syn::Token![,]> = stream.parse()?;
        Ok(e)
    };
    let error = || {
        if input.is_empty() {
            syn::Error::new(Span::call_site(), NOT_A_CLOSURE)
        } else {
            syn::Error::new_spanned(&input, NOT_A_CLOSURE)
        }
    };
    match one_expr.parse2(input.clone()) {
        Ok(syn::Expr::Closure(c)) => Ok(c),
        _ => Err(error()),
    }
}

/// Rejects closures whose calls cannot be recorded as they run (the check is shared with
/// closures written in a tracked function).
pub fn check(c: &syn::ExprClosure) -> Result<(), syn::Error> {
    match &c.asyncness {
        Some(a) => Err(syn::Error::new(
            a.span(),
            "#[tracked] cannot record async closures: their body runs later, when polled; make the closure synchronous or define it outside the tracked function",
        )),
        None => Ok(()),
    }
}

/// Gives each parameter written without a type the type `f64` (a tuple pattern, a tuple of
/// `f64`s): a closure passed to a generic function such as `track` gets no parameter types
/// from the generic bound. Other patterns without a type (`&x`, `S { .. }`, `[a, b]`) are left
/// to inference.
///
/// Before: `|a, (b, c), k: usize| …`
/// After:  `|a: f64, (b, c): (f64, f64), k: usize| …`
pub fn default_parameter_types(c: &mut syn::ExprClosure) {
    for input in c.inputs.iter_mut() {
        if matches!(input, syn::Pat::Type(_)) {
            continue;
        }
        let Some(ty) = default_type(input) else {
            continue;
        };
        let span = input.span();
        let pat = std::mem::replace(input, syn::Pat::Verbatim(TokenStream::new()));
        *input = syn::Pat::Type(syn::PatType {
            attrs: Vec::new(),
            pat: Box::new(pat),
            colon_token: syn::Token![:](span),
            ty: Box::new(ty),
        });
    }
}

fn default_type(pat: &syn::Pat) -> Option<syn::Type> {
    let span = pat.span();
    match pat {
        syn::Pat::Ident(p) if p.subpat.is_none() => Some(syn::parse_quote_spanned!(span=> f64)),
        syn::Pat::Wild(_) => Some(syn::parse_quote_spanned!(span=> f64)),
        syn::Pat::Paren(p) => default_type(&p.pat),
        syn::Pat::Tuple(t) => {
            let elems = t
                .elems
                .iter()
                .map(default_type)
                .collect::<Option<Vec<syn::Type>>>()?;
            Some(syn::parse_quote_spanned!(span=> (#(#elems,)*)))
        }
        _ => None,
    }
}

/// The free names of a body that may be captured variables: single identifiers used as
/// expressions that start with a lowercase letter or `_` (variables by Rust's naming
/// convention; `PI`, `None` and `Unit` are constants, variants and unit structs, recorded as
/// constants without being captures). Parameters and locals are not excluded here: the
/// lowering resolves a name to a parameter or local first, wherever one is in scope.
fn free_names(body: &syn::Expr) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'ast> syn::visit::Visit<'ast> for Names {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if let Some(ident) = p.path.get_ident().filter(|_| p.qself.is_none()) {
                let name = ident.to_string();
                let variable_like = name.starts_with(|c: char| c.is_lowercase() || c == '_');
                if variable_like && !self.0.contains(&name) {
                    self.0.push(name);
                }
            }
            syn::visit::visit_expr_path(self, p);
        }
    }
    let mut names = Names(Vec::new());
    syn::visit::Visit::visit_expr(&mut names, body);
    names.0
}

/// Whether the closure's value may be of a type that differs between two copies of its body:
/// a closure literal (`|a| move |t| a * t`), one boxed, or an adapter that keeps one
/// (`v.iter().map(|x| x * a)`), as the value its body ends with, and no return type written.
/// `expand` puts the instrumented body and the body as written in two arms of a `match`, whose
/// values must have one type, and no two closures do: such a closure is left as written
/// (recorded as an untracked callee where it is called).
pub fn value_type_differs_per_copy(c: &syn::ExprClosure) -> bool {
    fn tail(e: &Expr) -> &Expr {
        match e {
            Expr::Block(b) if b.label.is_none() => match b.block.stmts.last() {
                Some(syn::Stmt::Expr(e, None)) => tail(e),
                _ => e,
            },
            Expr::Paren(p) => tail(&p.expr),
            Expr::Group(g) => tail(&g.expr),
            e => e,
        }
    }
    fn holds_closure(e: &Expr) -> bool {
        match tail(e) {
            Expr::Closure(_) => true,
            Expr::Call(call) => {
                let boxed = matches!(&*call.func, Expr::Path(p)
                    if p.path.segments.last().is_some_and(|s| s.ident == "new"));
                boxed && call.args.iter().any(holds_closure)
            }
            Expr::MethodCall(m) => {
                let adapter = matches!(
                    m.method.to_string().as_str(),
                    "map"
                        | "filter"
                        | "filter_map"
                        | "flat_map"
                        | "take_while"
                        | "skip_while"
                        | "map_while"
                        | "scan"
                        | "inspect"
                        | "chain"
                        | "zip"
                        | "rev"
                        | "skip"
                        | "take"
                        | "step_by"
                        | "enumerate"
                        | "peekable"
                        | "cloned"
                        | "copied"
                );
                adapter
                    && (m.args.iter().any(|a| matches!(tail(a), Expr::Closure(_)))
                        || holds_closure(&m.receiver))
            }
            _ => false,
        }
    }
    matches!(c.output, syn::ReturnType::Default) && holds_closure(&c.body)
}

/// The closure behind its claim: recorded as a nested call when a tracked caller (or `track`)
/// calls it, run as written otherwise. Closures written in a tracked function and
/// `tracked_fn!` share this expansion; the static holding the closure's IR, `ir`, is put where
/// the code around the closure can name it (to register the closure's type, see
/// `Lowerer::closure_static`).
///
/// Before: `|y| y * x`
/// After:
/// ```ignore
/// |y| match claim(&__IRTRACK_CLOSURE_1, || Identity::closure(&__IRTRACK_CLOSURE_1)) {
///     Some(__irtrack) => { /* instrumented body */ }
///     None => y * x,
/// }
/// ```
pub fn expand(c: &syn::ExprClosure, ir: &syn::Ident, instrumented: TokenStream) -> TokenStream {
    let f = frame();
    let original = &c.body;
    let (attrs, lifetimes, constness, movability, capture, inputs, output) = (
        &c.attrs,
        &c.lifetimes,
        &c.constness,
        &c.movability,
        &c.capture,
        &c.inputs,
        &c.output,
    );
    quote! {
        #(#attrs)* #lifetimes #constness #movability #capture |#inputs| #output {
            match ::irtrack::__private::claim(&#ir, || ::irtrack::__private::Identity::closure(&#ir)) {
                #[allow(unused, clippy::all, clippy::pedantic, clippy::nursery)]
                ::core::option::Option::Some(#f) => { #instrumented }
                ::core::option::Option::None => #original,
            }
        }
    }
}

/// `tracked_fn!`'s output: the expanded closure, registered as tracked when it is made, in a
/// block that holds the IR statics and brings the probe traits into scope (inside a tracked
/// function, the enclosing expansion does).
///
/// ```ignore
/// {
///     use ::irtrack::__private::{RecordSnapshot as _, …};
///     static __IRTRACK_CLOSURE_1: StaticIr = …;
///     ::irtrack::__private::tracked_closure(&__IRTRACK_CLOSURE_1, |a: f64, b: f64| { /* `expand` */ })
/// }
/// ```
pub fn expand_tracked_fn(
    closure: &syn::ExprClosure,
    ir: &syn::Ident,
    instrumented: TokenStream,
    statics: Vec<TokenStream>,
) -> TokenStream {
    let closure = expand(closure, ir, instrumented);
    let traits = crate::expand::probe_traits();
    quote! {{
        #traits
        #(#statics)*
        ::irtrack::__private::tracked_closure(&#ir, #closure)
    }}
}

/// With the `disabled` feature: the closure as written, with only the default parameter types
/// added, so that a closure that compiles tracked compiles untracked too. Anything else is
/// passed through unchanged.
pub fn disabled(input: TokenStream) -> TokenStream {
    match parse_closure(input.clone()) {
        Ok(mut c) => {
            default_parameter_types(&mut c);
            quote!(#c)
        }
        Err(_) => input,
    }
}
