//! Expansion: the tracked function keeps its signature and original body (the path taken when
//! nothing is recorded), behind one claim check that hands the call to the instrumented copy.

use crate::item::{ImplContext, Tracked, TrackedFn};
use crate::lower::{frame, Lowerer};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// Expands a checked item. Cannot fail: every error was found by `item` or `lower`.
pub fn expand(tracked: Tracked) -> TokenStream {
    match tracked {
        Tracked::Fn(f) => f.output,
        Tracked::Impl(mut imp, fns, positions) => {
            for (f, position) in fns.into_iter().zip(positions) {
                imp.items[position] = syn::ImplItem::Verbatim(f.output);
            }
            quote!(#imp)
        }
        Tracked::Primitive(item) => quote!(#item),
    }
}

/// The traits whose methods the generated code calls on irtrack's own probes, brought into
/// scope anonymously.
pub fn probe_traits() -> TokenStream {
    quote! {
        #[allow(unused_imports)]
        use ::irtrack::__private::{
            RecordSnapshot as _, RecordDebug as _, RecordType as _, RestoreOwned as _,
            RestoreNone as _, ViaRef as _, ViaRefRef as _, ViaValue as _, ViaSnapshot as _, ViaDebug as _,
            ViaType as _, LateViaDebug as _, LateViaType as _,
        };
    }
}

/// Builds the tracked function from its parts. Everything but the check stays out of the
/// function: the claim, the identity and the instrumented copy are in [`run`], never inlined,
/// so the original body is optimised as if the attribute were not there (inlined, vectorised,
/// tail calls made loops).
///
/// Before:
/// ```ignore
/// fn h(x: f64, n: i32) -> f64 { /* body */ }
/// ```
/// After:
/// ```ignore
/// fn h(x: f64, n: i32) -> f64 {
///     use ::irtrack::__private::{RecordSnapshot as _, …};
///     let __irtrack_ir = { static IR: StaticIr = StaticIr::new("h", module_path!(), "…"); &IR };
///     if ::irtrack::__private::Frame::recording() {
///         return ::irtrack::__private::run(
///             __irtrack_ir,
///             (&&&Restore::<f64>::new()).restorer(), // how a context's value becomes an f64
///             || Identity::function(&h),
///             move |__irtrack| { /* instrumented copy */ },
///         );
///     }
///     /* body */
/// }
/// ```
///
/// [`run`]: irtrack_runtime::record::session::run
pub fn tracked_fn(f: &mut TrackedFn) -> Result<(), syn::Error> {
    let mut hoist = HoistItems::default();
    hoist.visit_block_mut(&mut f.block);
    if let Some(mut e) = hoist.errors.pop() {
        for other in hoist.errors {
            e.combine(other);
        }
        return Err(e);
    }
    let items = hoist.items;
    let impl_generics = name_impl_trait_arguments(&mut f.sig);
    bind_pattern_parameters(f);

    let params: Vec<syn::Pat> = f
        .sig
        .inputs
        .iter()
        .map(|arg| match arg {
            syn::FnArg::Receiver(r) => {
                let self_token = &r.self_token;
                syn::parse_quote!(#self_token)
            }
            syn::FnArg::Typed(t) => (*t.pat).clone(),
        })
        .collect();
    let ret_ty: Option<syn::Type> = match &f.sig.output {
        syn::ReturnType::Default => Some(syn::parse_quote!(())),
        syn::ReturnType::Type(_, ty) if !returns_impl_trait(&f.sig) => Some((**ty).clone()),
        syn::ReturnType::Type(..) => None,
    };
    let mut type_params = f.impl_type_params.clone();
    type_params.extend(f.sig.generics.type_params().map(|t| t.ident.to_string()));
    let mut_self = f.sig.inputs.iter().any(|a| {
        matches!(a, syn::FnArg::Receiver(r)
            if r.mutability.is_some() || matches!(&*r.ty, syn::Type::Reference(t) if t.mutability.is_some()))
    });
    let lowerer = Lowerer::new(Vec::new())
        .generic(!type_params.is_empty(), type_params)
        .with_return_type(ret_ty.clone())
        .with_mut_self(mut_self);
    let closures = lowerer.closures();
    let lowered = lowerer.lower_fn(&params, &f.block)?;
    let closure_statics = std::mem::take(&mut closures.borrow_mut().statics);

    let name = f.sig.ident.to_string();
    let ir_ident = syn::Ident::new("__irtrack_ir", Span::mixed_site());
    let ir_static = lowered.ir.to_static(&ir_ident, &name, f.sig.ident.span())?;
    let identity = identity(f, &impl_generics);
    let fr = frame();
    let result = syn::Ident::new("__irtrack_result", Span::mixed_site());
    let instrumented = lowered.body;
    let allow = quote! {
        #[allow(unused, clippy::all, clippy::pedantic, clippy::nursery)]
    };
    let original = match untracked_recursion(f, &impl_generics) {
        Some(tokens) => tokens,
        None => {
            let stmts = &f.block.stmts;
            quote!(#(#stmts)*)
        }
    };
    let traits = probe_traits();
    let body = match &ret_ty {
        None => {
            let identity_closure = identity.closure();
            // The tracked and untracked paths would return two different opaque types (each
            // closure in them is its own type), so the instrumented copy is the only body and
            // records into an inactive frame when nothing claims the call.
            quote! {
                #(#items)*
                #traits
                #ir_static
                #(#closure_statics)*
                let #fr = ::irtrack::__private::claim(#ir_ident, #identity_closure)
                    .unwrap_or_else(::irtrack::__private::Frame::inactive);
                #allow
                let #result = { #instrumented };
                #result
            }
        }
        Some(ty) => {
            let restorer = quote!((&&&::irtrack::__private::Restore::<#ty>::new()).restorer());
            // A method's identity refers to the object `self` refers to, which the instrumented
            // copy takes: it is made first, and only when a trace is being recorded.
            let (setup, identity) = match identity {
                Identity::Lazy(closure) => (TokenStream::new(), closure),
                Identity::Eager(value) => {
                    let id = syn::Ident::new("__irtrack_identity", Span::mixed_site());
                    (quote!(let #id = #value;), quote!(move || #id))
                }
            };
            quote! {
                #(#items)*
                #traits
                #ir_static
                if ::irtrack::__private::Frame::recording() {
                    #setup
                    #allow
                    return ::irtrack::__private::run(#ir_ident, #restorer, #identity, move |#fr| {
                        #(#closure_statics)*
                        #instrumented
                    });
                }
                #original
            }
        }
    };
    let (vis, sig) = (&f.vis, &f.sig);
    let defaultness = &f.defaultness;
    // The body's inner attributes (`#![allow(…)]`), which syn keeps with the outer ones, stay
    // at the start of the body.
    let (outer, inner) = split_attributes(&f.attrs);
    let mut output = quote! { #(#outer)* #vis #defaultness #sig };
    // The body's braces are the user's: an item whose span ends in a token of the macro's own
    // is taken for macro-generated, and rustc's `dead_code` lint skips it.
    f.block.brace_token.surround(&mut output, |out| {
        out.extend(quote! { #(#inner)* #body });
    });
    f.output = output;
    Ok(())
}

/// The original body of a free function that calls itself by name, as an inner function whose
/// calls of itself skip the check: a call made by the original body can never be recorded (a
/// recording running on this thread would have been active when the body was entered), so the
/// recursion runs as written, and a tail call is a loop again. `None` when the function does
/// not call itself, or cannot be moved into an inner function simply (a parameter pattern that
/// is not a name, an `unsafe` function, a local of the same name).
///
/// Before: `fn geom(n: i32, …) -> i32 { … geom(n + 1, …) }`
/// After (the body after the check):
/// ```ignore
/// fn __irtrack_original(n: i32, …) -> i32 { … __irtrack_original(n + 1, …) }
/// __irtrack_original(n, …)
/// ```
fn untracked_recursion(f: &TrackedFn, generics: &[TokenStream]) -> Option<TokenStream> {
    use syn::visit::Visit;
    if !matches!(f.context, ImplContext::Free) || f.sig.unsafety.is_some() {
        return None;
    }
    let ident = &f.sig.ident;
    let mut args = Vec::new();
    for input in &f.sig.inputs {
        match input {
            syn::FnArg::Typed(t) => match &*t.pat {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    args.push(p.ident.clone())
                }
                _ => return None,
            },
            syn::FnArg::Receiver(_) => return None,
        }
    }
    /// Whether the body calls the function by its name, and whether it binds the name itself.
    struct Scan<'a> {
        ident: &'a syn::Ident,
        calls: bool,
        shadowed: bool,
    }
    impl<'ast> Visit<'ast> for Scan<'_> {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func {
                if p.qself.is_none()
                    && p.path.leading_colon.is_none()
                    && p.path.segments.len() == 1
                    && p.path.segments[0].ident == *self.ident
                {
                    self.calls = true;
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            if p.ident == *self.ident {
                self.shadowed = true;
            }
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_item(&mut self, i: &'ast syn::Item) {
            // An item of the same name in an inner block shadows the function there.
            let named = match i {
                syn::Item::Fn(f) => Some(&f.sig.ident),
                syn::Item::Const(c) => Some(&c.ident),
                syn::Item::Static(s) => Some(&s.ident),
                _ => None,
            };
            if named == Some(self.ident) {
                self.shadowed = true;
            }
        }
    }
    let mut scan = Scan {
        ident,
        calls: false,
        shadowed: false,
    };
    scan.visit_block(&f.block);
    if !scan.calls || scan.shadowed {
        return None;
    }
    struct Rename<'a> {
        from: &'a syn::Ident,
        to: &'a syn::Ident,
    }
    impl VisitMut for Rename<'_> {
        fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
            if let syn::Expr::Path(p) = &mut *c.func {
                if p.qself.is_none()
                    && p.path.leading_colon.is_none()
                    && p.path.segments.len() == 1
                    && p.path.segments[0].ident == *self.from
                {
                    p.path.segments[0].ident = self.to.clone();
                }
            }
            syn::visit_mut::visit_expr_call_mut(self, c);
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let inner = syn::Ident::new("__irtrack_original", Span::mixed_site());
    let mut block = f.block.clone();
    Rename {
        from: ident,
        to: &inner,
    }
    .visit_block_mut(&mut block);
    let stmts = &block.stmts;
    // What the body was compiled with: how it is inlined and which lints it allows (the
    // function's inner attributes stay at the start of the outer body, and apply here too).
    let (outer, _) = split_attributes(&f.attrs);
    let attrs = outer.into_iter().filter(|a| {
        ["inline", "allow", "warn", "deny", "forbid", "expect"]
            .iter()
            .any(|name| a.path().is_ident(name))
    });
    let mut sig = f.sig.clone();
    sig.ident = inner.clone();
    let turbofish = (!generics.is_empty()).then(|| quote!(::<#(#generics),*>));
    Some(quote! {
        #(#attrs)*
        #sig { #(#stmts)* }
        #inner #turbofish (#(#args),*)
    })
}

/// A function's outer attributes and the inner ones of its body (syn keeps both in one list).
fn split_attributes(attrs: &[syn::Attribute]) -> (Vec<&syn::Attribute>, Vec<&syn::Attribute>) {
    attrs
        .iter()
        .partition(|a| matches!(a.style, syn::AttrStyle::Outer))
}

/// How the generated code makes the function's
/// [`Identity`](irtrack_runtime::record::claim::Identity): a closure called only when a trace is
/// being recorded, or, for a method taking `&self`/`&mut self` (whose identity holds the address
/// of the object), an expression evaluated before the instrumented copy takes `self`.
enum Identity {
    Lazy(TokenStream),
    Eager(TokenStream),
}

impl Identity {
    /// The identity as a closure.
    fn closure(&self) -> TokenStream {
        match self {
            Identity::Lazy(closure) => closure.clone(),
            Identity::Eager(value) => quote!(|| #value),
        }
    }
}

/// The function's identity: its fn item, named with all its generic arguments (so `h::<f64>`
/// is not `h::<f32>`), and for a method its name, `Self` and the object `self` refers to.
fn identity(f: &TrackedFn, generics: &[TokenStream]) -> Identity {
    let ident = &f.sig.ident;
    let name = ident.to_string();
    let turbofish = (!generics.is_empty()).then(|| quote!(::<#(#generics),*>));
    let span = ident.span();
    // A parameter named like the function (`fn net(net: Net)`) hides the fn item from the
    // body's own names; with mixed-site hygiene the name skips the caller's local variables
    // (as a `macro_rules!` body's would) and still finds the item.
    let mut item = ident.clone();
    item.set_span(Span::mixed_site().located_at(span));
    match &f.context {
        ImplContext::Free => Identity::Lazy(quote_spanned! {span=>
            || ::irtrack::__private::Identity::function(&#item #turbofish)
        }),
        context => {
            let item = match context {
                ImplContext::Trait(path) => {
                    Some(quote_spanned! {span=> &<Self as #path>::#ident #turbofish })
                }
                ImplContext::Inherent => Some(quote_spanned! {span=> &Self::#ident #turbofish }),
                // On its own, a method does not know its impl: `Self::m` names it unless
                // several traits in scope have a method of that name for `Self`, as for the
                // methods of the std traits, which are left unnamed (calls of their paths are
                // then primitives; method calls still claim).
                ImplContext::Unknown if !is_std_trait_method(&name) => {
                    Some(quote_spanned! {span=> &Self::#ident #turbofish })
                }
                _ => None,
            };
            let item = match item {
                Some(i) => quote_spanned!(span=> ::core::option::Option::Some(#i)),
                None => quote_spanned!(span=> ::core::option::Option::None::<&()>),
            };
            let this = match f.sig.receiver() {
                Some(r) if r.reference.is_some() && r.colon_token.is_none() => {
                    Some(quote!(::core::option::Option::Some(&*self)))
                }
                _ => None,
            };
            let trait_impl = matches!(context, ImplContext::Trait(_));
            // Spanned at the method's name, like its path: naming a trait's method needs the
            // bounds of the trait's declaration (`where Self: Signed`), and when the impl's
            // type misses them the one error points at the method (README, Caveats).
            if f.sig.receiver().is_some() {
                match this {
                    Some(this) => Identity::Eager(quote_spanned! {span=>
                        ::irtrack::__private::Identity::method::<Self, _>(#item, #name, #this, #trait_impl)
                    }),
                    None => Identity::Lazy(quote_spanned! {span=>
                        || ::irtrack::__private::Identity::method::<Self, _>(#item, #name, ::core::option::Option::None, #trait_impl)
                    }),
                }
            } else {
                match context {
                    ImplContext::Unknown if is_std_trait_method(&name) => Identity::Lazy(quote! {
                        || ::irtrack::__private::Identity::default()
                    }),
                    _ => {
                        let item = match context {
                            ImplContext::Trait(path) => {
                                quote_spanned! {span=> &<Self as #path>::#ident #turbofish }
                            }
                            _ => quote_spanned! {span=> &Self::#ident #turbofish },
                        };
                        Identity::Lazy(
                            quote_spanned!(span=> || ::irtrack::__private::Identity::function(#item)),
                        )
                    }
                }
            }
        }
    }
}

/// Methods of the standard library's traits, which a type often implements several of
/// (`fmt` for `Debug` and `Display`, `from` for several `From`s).
fn is_std_trait_method(name: &str) -> bool {
    matches!(
        name,
        "fmt"
            | "from"
            | "try_from"
            | "into"
            | "try_into"
            | "eq"
            | "ne"
            | "partial_cmp"
            | "cmp"
            | "lt"
            | "le"
            | "gt"
            | "ge"
            | "hash"
            | "clone"
            | "clone_from"
            | "default"
            | "drop"
            | "deref"
            | "deref_mut"
            | "index"
            | "index_mut"
            | "next"
            | "into_iter"
            | "from_iter"
            | "extend"
            | "as_ref"
            | "as_mut"
            | "borrow"
            | "borrow_mut"
            | "from_str"
            | "add"
            | "sub"
            | "mul"
            | "div"
            | "rem"
            | "neg"
            | "not"
            | "add_assign"
            | "sub_assign"
            | "mul_assign"
            | "div_assign"
            | "rem_assign"
            | "sum"
            | "product"
    )
}

/// Gives every `impl Trait` argument type a generic parameter of its own (`x: impl Fn(f64) ->
/// f64` becomes `x: __IrtrackImpl0` with `__IrtrackImpl0: Fn(f64) -> f64`), so that the
/// function can name itself with all its generic arguments. Callers are unaffected: they could
/// not name the anonymous parameters before. Returns the generic arguments, in order.
///
/// Before: `fn apply<T>(f: impl Fn(T) -> T, x: T) -> T`
/// After:  `fn apply<T, __IrtrackImpl0: Fn(T) -> T>(f: __IrtrackImpl0, x: T) -> T`
fn name_impl_trait_arguments(sig: &mut syn::Signature) -> Vec<TokenStream> {
    struct Namer {
        params: Vec<(syn::Ident, syn::TypeImplTrait)>,
    }
    impl VisitMut for Namer {
        fn visit_type_mut(&mut self, ty: &mut syn::Type) {
            if let syn::Type::ImplTrait(it) = ty {
                let ident =
                    syn::Ident::new(&format!("__IrtrackImpl{}", self.params.len()), it.span());
                self.params.push((ident.clone(), it.clone()));
                *ty = syn::parse_quote!(#ident);
                return;
            }
            syn::visit_mut::visit_type_mut(self, ty);
        }
    }
    let mut namer = Namer { params: Vec::new() };
    for input in sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(t) = input {
            namer.visit_type_mut(&mut t.ty);
        }
    }
    for (ident, it) in &namer.params {
        let bounds = &it.bounds;
        sig.generics.params.push(syn::parse_quote!(#ident: #bounds));
    }
    sig.generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect()
}

fn returns_impl_trait(sig: &syn::Signature) -> bool {
    struct FindImpl(bool);
    impl<'ast> syn::visit::Visit<'ast> for FindImpl {
        fn visit_type_impl_trait(&mut self, _: &'ast syn::TypeImplTrait) {
            self.0 = true;
        }
    }
    let mut v = FindImpl(false);
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        syn::visit::Visit::visit_type(&mut v, ty);
    }
    v.0
}

/// Takes the items (`static`, `fn`, `use`, `struct`, …) out of the function's own block, so
/// the original body and the instrumented copy share one of each: two copies of a `static`
/// would be two statics. Items in inner blocks keep their block scope and are copied with it,
/// which is harmless for everything but a `static`: those are rejected.
#[derive(Default)]
struct HoistItems {
    items: Vec<syn::Item>,
    errors: Vec<syn::Error>,
    depth: usize,
}

impl VisitMut for HoistItems {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        if self.depth == 0 {
            let stmts = std::mem::take(&mut block.stmts);
            // A `macro_rules!` stays where it is written, in both copies: its rules see the
            // variables bound before it (hoisted, a `let` before it was out of its reach:
            // E0425), and two definitions are no two of anything. Unless an item the body
            // defines calls it (`fn helper(t: f64) -> f64 { sq!(t) }`): hoisted with the items,
            // it stays defined before them.
            let called_by_items: Vec<String> = stmts
                .iter()
                .filter_map(|s| match s {
                    syn::Stmt::Item(syn::Item::Macro(_)) => None,
                    syn::Stmt::Item(item) => Some(item.to_token_stream()),
                    _ => None,
                })
                .flat_map(|t| crate::lower::scan::idents_in(&t))
                .collect();
            for stmt in stmts {
                match stmt {
                    syn::Stmt::Item(syn::Item::Macro(m))
                        if m.ident
                            .as_ref()
                            .is_some_and(|i| !called_by_items.contains(&i.to_string())) =>
                    {
                        block.stmts.push(syn::Stmt::Item(syn::Item::Macro(m)))
                    }
                    syn::Stmt::Item(item) => self.items.push(item),
                    other => block.stmts.push(other),
                }
            }
        } else {
            for stmt in &block.stmts {
                if let syn::Stmt::Item(syn::Item::Static(s)) = stmt {
                    self.errors.push(syn::Error::new(
                        s.ident.span(),
                        "#[tracked] keeps one copy of the body for recording and one for running: a `static` in an inner block would be two statics; move it to the top level of the function body",
                    ));
                }
            }
        }
        self.depth += 1;
        syn::visit_mut::visit_block_mut(self, block);
        self.depth -= 1;
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Gives each parameter written as a pattern other than a name (`(a, b): (f64, f64)`, `_: f64`,
/// `&x: &f64`) a name of its own, and binds the pattern to it in a `let` at the top of the
/// body: one argument node per parameter, at the position the caller passes it (a pattern's
/// bindings each made an argument, so a call of two arguments met a function of three, and an
/// argument's source was read at the wrong position).
fn bind_pattern_parameters(f: &mut TrackedFn) {
    let mut lets: Vec<syn::Stmt> = Vec::new();
    for (k, arg) in f.sig.inputs.iter_mut().enumerate() {
        let syn::FnArg::Typed(t) = arg else { continue };
        lets.extend(crate::lower::name_pattern_parameter(t, k));
    }
    if !lets.is_empty() {
        lets.append(&mut f.block.stmts);
        f.block.stmts = lets;
    }
}
