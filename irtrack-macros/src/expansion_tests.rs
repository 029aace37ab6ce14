//! Snapshots of whole expansions, pretty-printed: what `cargo expand` shows a user. Each
//! rewrite function's Before/After comment is kept in sync with these.

use quote::quote;

/// `tracked_fn!`'s expansion, shown as the body of a function so that it pretty-prints.
fn expand_closure(closure: proc_macro2::TokenStream) -> String {
    let tokens = crate::tracked_fn_impl(closure);
    let file: syn::File = syn::parse2(quote! { fn expansion() { #tokens } })
        .expect("the expansion parses as an expression");
    prettyplease::unparse(&file)
}

fn expand(item: proc_macro2::TokenStream) -> String {
    let tokens = crate::tracked_impl(proc_macro2::TokenStream::new(), item);
    let file: syn::File = syn::parse2(tokens).expect("the expansion parses as items");
    prettyplease::unparse(&file)
}

#[test]
fn free_function() {
    insta::assert_snapshot!(expand(quote! {
        fn f(x: f64) -> f64 {
            x.sin() + x
        }
    }));
}

#[test]
fn while_loop() {
    insta::assert_snapshot!(expand(quote! {
        fn h(x: f64, n: i32) -> f64 {
            let mut r = 0.0;
            let mut i = 0;
            while i < n {
                r += x.powi(i);
                i += 1;
            }
            r
        }
    }));
}

#[test]
fn recursion_with_branch() {
    insta::assert_snapshot!(expand(quote! {
        fn geom(n: i32, beta: f64, rng: &mut StdRng) -> i32 {
            if rng.random::<f64>() < beta { n } else { geom(n + 1, beta, rng) }
        }
    }));
}

#[test]
fn impl_trait_return_has_one_body() {
    insta::assert_snapshot!(expand(quote! {
        fn adder(a: f64) -> impl Fn(f64) -> f64 {
            move |x| x + a
        }
    }));
}

#[test]
fn errors_keep_the_item() {
    let out = crate::tracked_impl(
        proc_macro2::TokenStream::new(),
        quote! { async fn f() -> u8 { 1 } },
    )
    .to_string();
    assert!(out.contains("compile_error"), "{out}");
    assert!(
        out.contains("async fn f"),
        "the item is emitted unchanged: {out}"
    );
}

#[test]
fn disabled_feature_is_the_identity() {
    let item = quote! { fn f(x: f64) -> f64 { x.sin() + x } };
    let out = crate::expand_unless_disabled(true, proc_macro2::TokenStream::new(), item.clone());
    assert_eq!(out.to_string(), item.to_string());
    let on = crate::expand_unless_disabled(false, proc_macro2::TokenStream::new(), item.clone());
    assert_ne!(on.to_string(), item.to_string());
}

#[test]
fn primitive_is_the_item() {
    let item = quote! {
        #[inline]
        fn tiny(x: f64) -> f64 { x * 2.0 + 1.0 }
    };
    let out = crate::tracked_impl(quote!(primitive), item.clone());
    assert_eq!(out.to_string(), item.to_string());
}

#[test]
fn primitive_method_of_a_tracked_impl_is_left_as_written() {
    let out = crate::tracked_impl(
        proc_macro2::TokenStream::new(),
        quote! {
            impl P {
                fn norm(&self) -> f64 { self.x.hypot(self.y) }
                #[tracked(primitive)]
                #[inline]
                fn twice(&self) -> f64 { self.x * 2.0 }
                fn last(&self) -> f64 { self.y }
            }
        },
    );
    let file: syn::File = syn::parse2(out).expect("the expansion parses as items");
    let syn::Item::Impl(imp) = &file.items[0] else {
        panic!("an impl");
    };
    let methods: Vec<String> = imp.items.iter().map(|i| quote!(#i).to_string()).collect();
    assert_eq!(methods.len(), 3);
    assert!(methods[0].contains("recording"), "{}", methods[0]);
    assert_eq!(
        methods[1],
        quote! { #[inline] fn twice(&self) -> f64 { self.x * 2.0 } }.to_string()
    );
    assert!(methods[2].contains("recording"), "{}", methods[2]);
}

#[test]
fn bad_arguments_are_errors() {
    for args in [quote!(name = "sq"), quote!("sq"), quote!(primitive = 1)] {
        let out = crate::tracked_impl(args.clone(), quote! { fn f() {} }).to_string();
        assert!(out.contains("compile_error"), "{args}: {out}");
        assert!(
            out.contains("takes no argument but `primitive`"),
            "{args}: {out}"
        );
    }
}

#[test]
fn tracked_fn_closure() {
    insta::assert_snapshot!(expand_closure(quote! { |a, b| a * b * scale }));
}

#[test]
fn tracked_fn_rejects_other_input() {
    for input in [quote! { square }, quote! {}, quote! { |x| x, |y| y }] {
        let out = crate::tracked_fn_impl(input.clone()).to_string();
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("takes one closure expression"), "{out}");
        // Only the errors: no second wave from the input.
        assert!(!out.contains("claim"), "{out}");
    }
    // A trailing comma is fine.
    let out = crate::tracked_fn_impl(quote! { |x: f64| x, }).to_string();
    assert!(!out.contains("compile_error"), "{out}");
}

#[test]
fn tracked_fn_rejects_async_closures() {
    let out = crate::tracked_fn_impl(quote! { async |x: f64| x }).to_string();
    assert!(out.contains("cannot record async closures"), "{out}");
}

#[test]
fn tracked_fn_default_parameter_types() {
    let out = crate::closure_unless_disabled(
        true,
        quote! { |a, mut b, _, (c, d), &e, v: Vec<f64>, (f, g): (f64, i32)| a },
    );
    let expected = quote! {
        |a: f64, mut b: f64, _: f64, (c, d): (f64, f64,), &e, v: Vec<f64>, (f, g): (f64, i32)| a
    };
    assert_eq!(out.to_string(), expected.to_string());
}

#[test]
fn tracked_fn_disabled_is_the_closure() {
    let closure = quote! { move |x: f64, n: i32| x.powi(n) };
    let out = crate::closure_unless_disabled(true, closure.clone());
    assert_eq!(out.to_string(), closure.to_string());
    let on = crate::closure_unless_disabled(false, closure.clone());
    assert_ne!(on.to_string(), closure.to_string());
    // Anything else is passed through, as `#[tracked]` passes items through.
    let other = quote! { square };
    let out = crate::closure_unless_disabled(true, other.clone());
    assert_eq!(out.to_string(), other.to_string());
}

/// The lowering alone: the IR of `h`, as the runtime prints it, with the fall-through branch
/// out of the loop header keeping the header's condition as its control condition.
#[test]
fn lowering_of_h_alone() {
    let f: syn::ItemFn = syn::parse_quote! {
        fn h(x: f64, n: i32) -> f64 {
            let mut r = 0.0;
            let mut i = 0;
            while i < n {
                r += x.powi(i);
                i += 1;
            }
            r
        }
    };
    let params: Vec<syn::Pat> = f
        .sig
        .inputs
        .iter()
        .map(|a| match a {
            syn::FnArg::Typed(t) => (*t.pat).clone(),
            syn::FnArg::Receiver(_) => unreachable!(),
        })
        .collect();
    let lowered = crate::lower::Lowerer::new(Vec::new())
        .lower_fn(&params, &f.block)
        .expect("h lowers");
    let ir = lowered.ir.finish("h");
    assert_eq!(
        ir.to_string(),
        "\
1: (%1, %2)
  br 2 (0.0, 0)
2: (%3, %4)
  %5 = %4 < %2
  br 4 unless %5
  br 3
3:
  %6 = %1.powi(%4)
  %7 = %3 += %6
  %8 = %4 += 1
  br 2 (%7, %8)
4:
  return %3
"
    );
    let fall_through = ir.get(irtrack_runtime::Location {
        block: 2,
        slot: irtrack_runtime::Slot::Branch(2),
    });
    assert_eq!(
        fall_through.map(|e| e.control.clone()),
        Some(irtrack_runtime::Operand::Var(5))
    );
}

/// Issue 11, case 8: `y` is declared without a value and assigned in both arms; the merge
/// block takes it as an argument, recorded from the value each arm's jump passed.
#[test]
fn deferred_initialisation() {
    insta::assert_snapshot!(expand(quote! {
        fn deferred(x: f64) -> f64 {
            let y: f64;
            if x > 0.0 { y = x * 2.0 } else { y = -x }
            y + 1.0
        }
    }));
}

/// Issue 11, case 13: a labelled block's breaks and end jump to its exit block with its value.
#[test]
fn labelled_block() {
    insta::assert_snapshot!(expand(quote! {
        fn clamp(x: f64) -> f64 {
            let y = 'done: {
                if x < 0.0 {
                    break 'done 0.0;
                }
                x
            };
            y
        }
    }));
}

/// Issue 11, case 10: a body with `cfg`s is re-emitted under one probe per predicate, for
/// rustc to evaluate before the second stage lowers what is compiled.
#[test]
fn cfg_first_stage() {
    insta::assert_snapshot!(expand(quote! {
        fn f(x: f64) -> f64 {
            let mut a = x;
            #[cfg(feature = "big")]
            {
                a = 100.0;
            }
            #[cfg_attr(test, allow(unused))]
            let b = a;
            b
        }
    }));
}

/// The second stage, with the probe of `feature = "big"` gone (off): the block is not lowered.
#[test]
fn cfg_second_stage() {
    let first = crate::tracked_impl(
        proc_macro2::TokenStream::new(),
        quote! {
            fn f(x: f64) -> f64 {
                let mut a = x;
                #[cfg(feature = "big")]
                {
                    a = 100.0;
                }
                a
            }
        },
    );
    // rustc keeps the probes whose predicate holds: none here.
    let mut item: syn::ItemFn = syn::parse2(first).expect("the first stage is an item");
    item.attrs.retain(|a| {
        !a.path().is_ident("cfg_attr")
            && !a
                .path()
                .segments
                .last()
                .is_some_and(|s| s.ident == "tracked")
    });
    let args: proc_macro2::TokenStream = crate::cfg::RESOLVED.parse().unwrap();
    let out = crate::tracked_impl(args, quote!(#item));
    let file: syn::File = syn::parse2(out).expect("the second stage is an item");
    insta::assert_snapshot!(prettyplease::unparse(&file));
}

/// Issue 11, cases 11 and 12b: in generic code values are captured by type (no autoref
/// probe), arguments and the return by their written types.
#[test]
fn generic_capture() {
    insta::assert_snapshot!(expand(quote! {
        fn shifted<F: Float>(x: F) -> F {
            let ix = x.to_bits();
            F::from_bits(ix << 1)
        }
    }));
}
