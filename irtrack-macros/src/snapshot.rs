//! `#[derive(Snapshot)]`: the type's recorded value is a clone of it.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

pub fn derive(input: &syn::DeriveInput) -> Result<TokenStream, syn::Error> {
    if let Some(lt) = input.generics.lifetimes().next() {
        return Err(syn::Error::new(
            lt.span(),
            "Snapshot keeps an owned clone of the value, which a type with lifetime parameters cannot have; without the derive, irtrack records this type's Debug text",
        ));
    }
    let name = &input.ident;
    let mut generics = input.generics.clone();
    for param in generics.type_params_mut() {
        param.bounds.push(syn::parse_quote!(::irtrack::Owned));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics ::irtrack::Owned for #name #ty_generics #where_clause {}
        impl #impl_generics ::irtrack::Snapshot for #name #ty_generics #where_clause {
            fn snapshot(&self) -> ::irtrack::Value {
                ::irtrack::Value::snapshot(::core::clone::Clone::clone(self))
            }
        }
    })
}
