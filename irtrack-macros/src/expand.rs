//! Expansion: the tracked function keeps its signature and original body (the path taken when
//! nothing is recorded), behind one claim check that hands the call to the instrumented copy.

use crate::item::{Tracked, TrackedFn};
use crate::lower::{frame, Lowerer};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::visit_mut::VisitMut;

/// Expands a checked item. Cannot fail: every error was found by `item` or `lower`.
pub fn expand(tracked: Tracked) -> TokenStream {
    match tracked {
        Tracked::Fn(f) => f.output,
        Tracked::Impl(mut imp, fns) => {
            let mut fns = fns.into_iter();
            for item in &mut imp.items {
                if let syn::ImplItem::Fn(m) = item {
                    if let Some(f) = fns.next() {
                        *item = syn::ImplItem::Verbatim(f.output);
                    } else {
                        let _ = m;
                    }
                }
            }
            quote!(#imp)
        }
    }
}

/// Builds the tracked function from its parts.
///
/// Before:
/// ```ignore
/// fn h(x: f64, n: i32) -> f64 { /* body */ }
/// ```
/// After:
/// ```ignore
/// fn h(x: f64, n: i32) -> f64 {
///     use ::irtrack::__private::{ViaSnapshot as _, ViaDebug as _, ViaTypeName as _, LateViaDebug as _, LateViaTypeName as _};
///     let __irtrack_ir: &'static FnIr = { static IR: FnIr = /* static IR */; &IR };
///     if let Some(__irtrack) = ::irtrack::__private::claim(__irtrack_ir, /* identity */) {
///         let __irtrack_result = ::irtrack::__private::run(move || { /* instrumented copy */ });
///         return __irtrack_result;
///     }
///     /* body */
/// }
/// ```
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
    let ret_ty = match &f.sig.output {
        syn::ReturnType::Default => Some(syn::parse_quote!(())),
        syn::ReturnType::Type(_, ty) if !returns_impl_trait(&f.sig) => Some((**ty).clone()),
        syn::ReturnType::Type(..) => None,
    };
    let lowered = Lowerer::new(Vec::new())
        .with_return_type(ret_ty)
        .lower_fn(&params, &f.block)?;

    let name = f.sig.ident.to_string();
    let ir_ident = syn::Ident::new("__irtrack_ir", Span::mixed_site());
    let ir_static = lowered.ir.to_static(&ir_ident, &name);
    let self_type = if f.sig.receiver().is_some() {
        quote!(::core::option::Option::Some(
            ::irtrack::__private::type_name::<Self>()
        ))
    } else {
        quote!(::core::option::Option::None)
    };
    let identity = quote! {
        || ::irtrack::__private::Identity {
            inner_closure: ::irtrack::__private::type_name_of_val(&|| ()),
            name: #name,
            self_type: #self_type,
        }
    };
    let fr = frame();
    let result = syn::Ident::new("__irtrack_result", Span::mixed_site());
    let instrumented = lowered.body;
    let allow = quote! {
        #[allow(unreachable_code, unused_variables, unused_mut, unused_assignments, unused_braces,
                unused_parens, clippy::all, clippy::pedantic, clippy::nursery)]
    };
    let original = &f.block.stmts;
    // The return type, so the expected type reaches the instrumented body's last expression
    // (`Ok(x)` learns its error type from it before its value is captured).
    let result_ty = match &f.sig.output {
        syn::ReturnType::Default => quote!(: ()),
        syn::ReturnType::Type(_, ty) => quote!(: #ty),
    };
    let body = if returns_impl_trait(&f.sig) {
        // The tracked and untracked paths would return two different opaque types (each
        // closure in them is its own type), so the instrumented copy is the only body and
        // records into an inactive frame when nothing claims the call.
        quote! {
            #(#items)*
            #[allow(unused_imports)]
            use ::irtrack::__private::{ViaSnapshot as _, ViaDebug as _, ViaTypeName as _, LateViaDebug as _, LateViaTypeName as _};
            #ir_static
            let #fr = ::irtrack::__private::claim(#ir_ident, #identity)
                .unwrap_or_else(::irtrack::__private::Frame::inactive);
            #allow
            let #result = { #instrumented };
            #result
        }
    } else {
        quote! {
            #(#items)*
            #[allow(unused_imports)]
            use ::irtrack::__private::{ViaSnapshot as _, ViaDebug as _, ViaTypeName as _, LateViaDebug as _, LateViaTypeName as _};
            #ir_static
            if let ::core::option::Option::Some(#fr) = ::irtrack::__private::claim(#ir_ident, #identity) {
                #allow
                let #result #result_ty = ::irtrack::__private::run(move || { #instrumented });
                return #result;
            }
            #(#original)*
        }
    };
    let (attrs, vis, sig) = (&f.attrs, &f.vis, &f.sig);
    let defaultness = &f.defaultness;
    f.output = quote! {
        #(#attrs)* #vis #defaultness #sig { #body }
    };
    Ok(())
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
            for stmt in stmts {
                match stmt {
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
