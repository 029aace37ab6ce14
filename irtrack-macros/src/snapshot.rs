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
    // The float fields, readable by name from the recorded value: a field read in a trace is
    // then checked against the value it read from (a struct changed by a method the trace
    // does not see).
    let floats: Vec<(String, TokenStream)> = match &input.data {
        syn::Data::Struct(st) => st
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| is_float_field(&f.ty))
            .map(|(k, f)| match &f.ident {
                Some(ident) => (ident.to_string(), quote!(#ident)),
                None => {
                    let index = syn::Index::from(k);
                    (k.to_string(), quote!(#index))
                }
            })
            .collect(),
        _ => Vec::new(),
    };
    let body = if floats.is_empty() {
        quote!(::irtrack::Value::snapshot(::core::clone::Clone::clone(
            self
        )))
    } else {
        let arms = floats.iter().map(|(n, access)| {
            quote!(#n => ::core::option::Option::Some(::irtrack::Snapshot::snapshot(&s.#access)),)
        });
        quote!(::irtrack::Value::snapshot_with_fields(
            ::core::clone::Clone::clone(self),
            |any: &dyn ::core::any::Any, name: &str| {
                let s = any.downcast_ref::<Self>()?;
                match name {
                    #(#arms)*
                    _ => ::core::option::Option::None,
                }
            },
        ))
    };
    Ok(quote! {
        impl #impl_generics ::irtrack::Owned for #name #ty_generics #where_clause {}
        impl #impl_generics ::irtrack::Snapshot for #name #ty_generics #where_clause {
            fn snapshot(&self) -> ::irtrack::Value {
                #body
            }
        }
    })
}

/// Whether a field's type is written `f64`, `f32`, `Vec<f64>` or `Vec<f32>`.
fn is_float_field(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else {
        return false;
    };
    if p.qself.is_some() {
        return false;
    }
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let float = |id: &syn::Ident| id == "f64" || id == "f32";
    match &last.arguments {
        syn::PathArguments::None => p.path.segments.len() == 1 && float(&last.ident),
        syn::PathArguments::AngleBracketed(a) if last.ident == "Vec" && a.args.len() == 1 => {
            matches!(
                a.args.first(),
                Some(syn::GenericArgument::Type(syn::Type::Path(t)))
                    if t.qself.is_none() && t.path.get_ident().is_some_and(float)
            )
        }
        _ => false,
    }
}
