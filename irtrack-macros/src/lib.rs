//! The `#[tracked]` attribute of [irtrack](https://docs.rs/irtrack), in three phases:
//! `item` parses and checks what the attribute is on, `lower` turns each function body into its
//! static IR and an instrumented copy, `expand` assembles the tracked function. Use it through
//! the `irtrack` facade.

mod expand;
mod ir;
mod item;
mod lower;
mod snapshot;

use proc_macro::TokenStream;

/// Records the dynamic computation graph of a function while a trace is being recorded.
/// See the `irtrack` crate documentation.
#[proc_macro_attribute]
pub fn tracked(args: TokenStream, item: TokenStream) -> TokenStream {
    tracked_impl(args.into(), item.into()).into()
}

/// Derives `irtrack::Snapshot`: traces keep a clone of the value that can be downcast.
#[proc_macro_derive(Snapshot)]
pub fn derive_snapshot(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    snapshot::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The whole expansion of `#[tracked]`, as a function of tokens (tests call it directly).
/// On error the item is emitted unchanged after the errors, so its callers see no second wave.
fn tracked_impl(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    expand_unless_disabled(cfg!(feature = "disabled"), args, item)
}

/// With the `disabled` feature, `#[tracked]` is the identity: the item compiles as written.
fn expand_unless_disabled(
    disabled: bool,
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    if disabled {
        return item;
    }
    match try_tracked(args, item.clone()) {
        Ok(tokens) => tokens,
        Err(e) => {
            let errors = e.into_compile_error();
            quote::quote!(#errors #item)
        }
    }
}

fn try_tracked(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> Result<proc_macro2::TokenStream, syn::Error> {
    let mut tracked = item::parse(args, item)?;
    let mut errors: Option<syn::Error> = None;
    let fns: Vec<&mut item::TrackedFn> = match &mut tracked {
        item::Tracked::Fn(f) => vec![f],
        item::Tracked::Impl(_, fns) => fns.iter_mut().collect(),
    };
    for f in fns {
        if let Err(e) = expand::tracked_fn(f) {
            match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            }
        }
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(expand::expand(tracked)),
    }
}

#[cfg(test)]
mod expansion_tests;
