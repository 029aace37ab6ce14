//! Parsing: what `#[tracked]` was put on, checked for the constructs it cannot record, with
//! every error collected before any is reported.

use proc_macro2::TokenStream;
use syn::spanned::Spanned;

/// The attribute's arguments: `#[tracked]` or `#[tracked(primitive)]`. darling gives the error
/// for anything else.
#[derive(Debug, Default, darling::FromMeta)]
pub struct TrackedArgs {
    /// Opt out: the function is compiled as written, with no claim check and no instrumented
    /// copy, and tracked code records its calls as primitives.
    #[darling(default)]
    pub primitive: bool,
}

/// What `#[tracked]` and `#[tracked(primitive)]` accept, for error messages.
const ARGUMENTS: &str = "write `#[tracked]`, or `#[tracked(primitive)]` to compile the function as written and record its calls as primitives";

/// Parses the attribute's arguments; an error points at the first argument.
pub fn parse_args(args: TokenStream) -> Result<TrackedArgs, syn::Error> {
    let args_span = args.clone().into_iter().next().map(|t| t.span());
    let meta = darling::ast::NestedMeta::parse_meta_list(args)?;
    <TrackedArgs as darling::FromMeta>::from_list(&meta).map_err(|e| {
        syn::Error::new(
            args_span.unwrap_or_else(proc_macro2::Span::call_site),
            format!("#[tracked] takes no argument but `primitive` ({e}); {ARGUMENTS}"),
        )
    })
}

/// The arguments of a `#[tracked(…)]` attribute on a method of a tracked `impl`, if it is one.
fn method_attribute(attr: &syn::Attribute) -> Option<Result<TrackedArgs, syn::Error>> {
    if !attr
        .path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "tracked")
    {
        return None;
    }
    Some(match &attr.meta {
        syn::Meta::Path(_) => Ok(TrackedArgs::default()),
        syn::Meta::List(list) => parse_args(list.tokens.clone()),
        syn::Meta::NameValue(nv) => Err(syn::Error::new_spanned(
            &nv.value,
            format!("#[tracked] takes no value; {ARGUMENTS}"),
        )),
    })
}

/// Where a tracked function is defined, as far as the attribute can see: what names it.
pub enum ImplContext {
    /// A free function: its own name.
    Free,
    /// A method of an inherent `impl` marked `#[tracked]`: `Self::name`.
    Inherent,
    /// A method of a trait `impl` marked `#[tracked]`: `<Self as Trait>::name`.
    Trait(syn::Path),
    /// A function marked on its own that takes `self` or mentions `Self`: a method or
    /// associated function of an `impl` or trait the attribute cannot see.
    Unknown,
}

/// A function (free, or a method in an impl) about to be tracked, and its expansion.
pub struct TrackedFn {
    pub context: ImplContext,
    pub attrs: Vec<syn::Attribute>,
    pub vis: syn::Visibility,
    pub defaultness: Option<syn::Token![default]>,
    pub sig: syn::Signature,
    pub block: syn::Block,
    /// The type parameters of the tracked `impl` the function is in.
    pub impl_type_params: Vec<String>,
    pub output: TokenStream,
}

/// What the attribute was put on.
pub enum Tracked {
    Fn(Box<TrackedFn>),
    /// An impl block: every method with a body is tracked, but those marked
    /// `#[tracked(primitive)]` and the `const` and `extern` ones not marked `#[tracked]`; with
    /// the positions of the tracked ones among the impl's items.
    Impl(Box<syn::ItemImpl>, Vec<TrackedFn>, Vec<usize>),
    /// `#[tracked(primitive)]`: the item, emitted as written.
    Primitive(Box<syn::Item>),
}

pub fn parse(args: TokenStream, item: TokenStream) -> Result<Tracked, syn::Error> {
    let args = parse_args(args)?;
    let parsed: syn::Item = syn::parse2(item)?;
    if args.primitive {
        return primitive(parsed);
    }
    match parsed {
        syn::Item::Verbatim(tokens) => match syn::parse2::<syn::TraitItemFn>(tokens.clone()) {
            // A method declaration without a body (in a trait) parses as verbatim tokens.
            Ok(f) if f.default.is_none() => Err(syn::Error::new(
                f.sig.ident.span(),
                "#[tracked] needs a function body to record: put it on the methods of an `impl` of this trait instead",
            )),
            _ => Err(syn::Error::new_spanned(
                tokens,
                "#[tracked] goes on a function, a method, or an `impl` block",
            )),
        },
        syn::Item::Fn(f) => {
            check_signature(&f.sig)?;
            let context = if f.sig.receiver().is_some() || mentions_self(&f.sig, &f.block) {
                ImplContext::Unknown
            } else {
                ImplContext::Free
            };
            Ok(Tracked::Fn(Box::new(TrackedFn {
                context,
                attrs: f.attrs,
                vis: f.vis,
                defaultness: None,
                sig: f.sig,
                block: *f.block,
                impl_type_params: Vec::new(),
                output: TokenStream::new(),
            })))
        }
        syn::Item::Impl(mut imp) => {
            let mut fns = Vec::new();
            let trait_path = imp.trait_.as_ref().map(|(_, path, _)| path.clone());
            let context = || match &trait_path {
                Some(path) => ImplContext::Trait(path.clone()),
                None => ImplContext::Inherent,
            };
            let mut errors: Option<syn::Error> = None;
            let mut positions = Vec::new();
            let impl_type_params: Vec<String> = imp
                .generics
                .type_params()
                .map(|t| t.ident.to_string())
                .collect();
            for (position, item) in imp.items.iter_mut().enumerate() {
                if let syn::ImplItem::Fn(m) = item {
                    // A method also marked `#[tracked]` is tracked once, by the impl; one marked
                    // `#[tracked(primitive)]` is left as written.
                    let mut primitive = false;
                    let mut marked = false;
                    let mut attrs = Vec::new();
                    for attr in std::mem::take(&mut m.attrs) {
                        match method_attribute(&attr) {
                            None => attrs.push(attr),
                            Some(Ok(args)) => {
                                marked = true;
                                primitive |= args.primitive;
                            }
                            Some(Err(e)) => match &mut errors {
                                Some(all) => all.combine(e),
                                None => errors = Some(e),
                            },
                        }
                    }
                    m.attrs = attrs;
                    // A `const fn` or an `extern` fn keeps the signature its callers need (a
                    // constant, foreign code), which a tracked function cannot have: unless
                    // marked `#[tracked]` itself (an error below), it is left as written.
                    let untrackable = m.sig.constness.is_some() || m.sig.abi.is_some();
                    if primitive || (untrackable && !marked) {
                        continue;
                    }
                    if let Err(e) = check_signature(&m.sig) {
                        match &mut errors {
                            Some(all) => all.combine(e),
                            None => errors = Some(e),
                        }
                        continue;
                    }
                    positions.push(position);
                    fns.push(TrackedFn {
                        context: context(),
                        attrs: m.attrs.clone(),
                        vis: m.vis.clone(),
                        defaultness: m.defaultness,
                        sig: m.sig.clone(),
                        block: m.block.clone(),
                        impl_type_params: impl_type_params.clone(),
                        output: TokenStream::new(),
                    });
                }
            }
            match errors {
                Some(e) => Err(e),
                None => Ok(Tracked::Impl(Box::new(imp), fns, positions)),
            }
        }
        syn::Item::Trait(t) => Err(syn::Error::new(
            t.ident.span(),
            "#[tracked] cannot go on a trait definition: put it on an `impl` block of the trait, or on its methods there",
        )),
        other => Err(syn::Error::new(
            item_span(&other),
            "#[tracked] goes on a function, a method, or an `impl` block",
        )),
    }
}

/// `#[tracked(primitive)]`: the item as written, if it is one `#[tracked]` goes on. Its
/// signature is not checked (nothing of it is recorded), and the methods of an `impl` keep
/// their own attributes (a method marked `#[tracked]` there is tracked on its own).
fn primitive(item: syn::Item) -> Result<Tracked, syn::Error> {
    match item {
        syn::Item::Fn(_) | syn::Item::Impl(_) => Ok(Tracked::Primitive(Box::new(item))),
        syn::Item::Verbatim(tokens) => match syn::parse2::<syn::TraitItemFn>(tokens.clone()) {
            // A method of a trait or an impl the attribute cannot see.
            Ok(f) if f.default.is_some() => Ok(Tracked::Primitive(Box::new(
                syn::Item::Verbatim(tokens),
            ))),
            _ => Err(syn::Error::new_spanned(
                tokens,
                "#[tracked] goes on a function, a method, or an `impl` block",
            )),
        },
        syn::Item::Trait(t) => Err(syn::Error::new(
            t.ident.span(),
            "#[tracked] cannot go on a trait definition: put it on an `impl` block of the trait, or on its methods there",
        )),
        other => Err(syn::Error::new(
            item_span(&other),
            "#[tracked] goes on a function, a method, or an `impl` block",
        )),
    }
}

/// Whether the signature or the body names `Self`: the function is in an `impl` or a trait.
fn mentions_self(sig: &syn::Signature, body: &syn::Block) -> bool {
    use quote::ToTokens;
    fn has_self(ts: proc_macro2::TokenStream) -> bool {
        ts.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == "Self",
            proc_macro2::TokenTree::Group(g) => has_self(g.stream()),
            _ => false,
        })
    }
    has_self(sig.to_token_stream()) || has_self(body.to_token_stream())
}

/// The item's name where it has one, so every rejection points at the same kind of place.
fn item_span(item: &syn::Item) -> proc_macro2::Span {
    match item {
        syn::Item::Struct(s) => s.ident.span(),
        syn::Item::Enum(e) => e.ident.span(),
        syn::Item::Union(u) => u.ident.span(),
        syn::Item::Mod(m) => m.ident.span(),
        syn::Item::Static(s) => s.ident.span(),
        syn::Item::Const(c) => c.ident.span(),
        syn::Item::Type(t) => t.ident.span(),
        syn::Item::TraitAlias(t) => t.ident.span(),
        other => other.span(),
    }
}

/// Rejects signatures whose calls cannot be recorded as they run.
fn check_signature(sig: &syn::Signature) -> Result<(), syn::Error> {
    let mut errors: Vec<syn::Error> = Vec::new();
    if let Some(a) = &sig.asyncness {
        errors.push(syn::Error::new(
            a.span(),
            "#[tracked] cannot record an `async fn`: its body runs later, when polled, not when called; track a synchronous function that the async code calls",
        ));
    }
    if let Some(c) = &sig.constness {
        errors.push(syn::Error::new(
            c.span(),
            "#[tracked] cannot record a `const fn`: recording is a run-time side effect; remove `const` or leave this function untracked",
        ));
    }
    if let Some(abi) = &sig.abi {
        errors.push(syn::Error::new(
            abi.span(),
            "#[tracked] cannot record an `extern` function: foreign callers bypass the recorder; wrap it in a Rust function and track that",
        ));
    }
    if let Some(v) = &sig.variadic {
        errors.push(syn::Error::new(
            v.span(),
            "#[tracked] cannot record variadic functions",
        ));
    }
    match errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
