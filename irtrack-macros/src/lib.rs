//! The `#[tracked]` attribute of [irtrack](https://docs.rs/irtrack), in three phases:
//! `item` parses and checks what the attribute is on, `lower` turns each function body into its
//! static IR and an instrumented copy, `expand` assembles the tracked function. `tracked_fn!`
//! does the same for one closure (`closure`). Use them through the `irtrack` facade.

mod cfg;
mod closure;
mod expand;
mod ir;
mod item;
mod lower;
mod snapshot;

use proc_macro::TokenStream;

/// Records the dynamic computation graph of a function while a trace is being recorded.
/// See the `irtrack` crate documentation.
///
/// `#[tracked]` goes on a function, a method or an `impl` block (then every method in it is
/// tracked, but its `const fn`s and `extern` fns, which are left as written). The function keeps its signature and its original body, which runs when no trace
/// is being recorded, behind one relaxed atomic load; the instrumented copy that records runs
/// only while a trace is recorded.
///
/// # `#[tracked(primitive)]`: opting one function out
///
/// The check costs little, but it is a branch and a load in every call, which is enough to stop
/// the compiler from vectorising a loop over a tiny function (`x * 2.0 + 1.0` mapped over a
/// slice runs about 3× slower tracked than plain). `#[tracked(primitive)]` compiles the function
/// exactly as written, with no check and no instrumented copy, so it costs nothing: tracked
/// callers record each call of it as a primitive call node with its arguments and result, as
/// for any untracked function, and its body is not recorded (so a gradient through it needs a
/// rule for it). In a tracked `impl` block it opts one method out; on a function outside one it
/// says what leaving the attribute off would, where the next reader sees it.
///
/// ```
/// use irtrack::{track, tracked, NodeKind};
///
/// /// Called in a hot loop: compiled as written, recorded as one node.
/// #[tracked(primitive)]
/// #[inline]
/// fn scale(x: f64) -> f64 {
///     x * 2.0 + 1.0
/// }
///
/// #[tracked]
/// fn total(xs: &[f64]) -> f64 {
///     let mut s = 0.0;
///     for &x in xs {
///         s += scale(x);
///     }
///     s
/// }
///
/// let trace = track(total, (&[1.0, 2.0][..],));
/// let call = trace.root().children().find(|c| c.function_name() == Some("scale")).unwrap();
/// assert_eq!(call.kind(), NodeKind::PrimitiveCall);
/// assert_eq!(call.value::<f64>(), Some(&3.0));
/// assert_eq!(call.children().count(), 0);
/// ```
///
/// Any other argument is an error: `#[tracked]` takes `primitive` or nothing.
///
/// # Any valid Rust, computed as written
///
/// The instrumented copy computes exactly what the body does. `#[cfg]`/`#[cfg_attr]` inside the
/// body are evaluated by rustc before the body is lowered (the attribute expands in two stages
/// then), so the IR has entries for the compiled code only. Edition-2024 `let` chains are
/// lowered as nested `if let`s, labelled blocks as blocks with an exit, and a variable declared
/// without a value (`let y;`) as any variable assigned in branches:
///
/// ```edition2024
/// use irtrack::{track_output, tracked};
///
/// #[tracked]
/// fn first_positive(xs: &[f64]) -> f64 {
///     let y: f64;
///     if let Some(&x) = xs.first() && x > 0.0 {
///         y = x * 2.0;
///     } else {
///         y = 0.0;
///     }
///     let z = 'done: {
///         if y > 3.0 {
///             break 'done y - 3.0;
///         }
///         y
///     };
///     #[cfg(any())]
///     let z = 100.0;
///     z + 1.0
/// }
///
/// for xs in [&[2.5][..], &[1.0], &[-1.0], &[]] {
///     let (out, trace) = track_output(first_positive, (xs,));
///     assert_eq!(out, first_positive(xs));
///     trace.verify().unwrap();
/// }
/// let (out, trace) = track_output(first_positive, (&[2.5][..],));
/// assert_eq!(out, 3.0);
/// assert!(!trace.root().to_string().contains("100"));
/// ```
#[proc_macro_attribute]
pub fn tracked(args: TokenStream, item: TokenStream) -> TokenStream {
    tracked_impl(args.into(), item.into()).into()
}

/// Makes a closure tracked, anywhere: `irtrack::track` records it as it records a
/// `#[tracked]` function, and a tracked function calling it records a nested call.
///
/// ```
/// use irtrack::{track, tracked_fn};
///
/// let trace = track(tracked_fn!(|a, b| a * b), (2.0, 3.0));
/// assert_eq!(
///     trace.root().levels(2).to_string(),
///     "\
/// ⟨{{closure}}⟩(⟨2.0⟩, ⟨3.0⟩) → 6.0::f64
///   @1: [Arg:§1:%1] 2.0::f64
///   @2: [Arg:§1:%2] 3.0::f64
///   @3: [§1:%3] ⟨*⟩(@1, @2) → 6.0::f64
///   @4: [§1:&1] return @3 → 6.0::f64
/// "
/// );
///
/// // Called untracked, it is the closure as written.
/// let scale = 10.0;
/// let affine = tracked_fn!(|x: f64| x * scale + 1.0);
/// assert_eq!(affine(2.0), 21.0);
/// ```
///
/// The input is one closure expression, `move` or not; it is lowered exactly as a closure
/// written inside a `#[tracked]` function is (see `docs/lowering.md`, "Closures"), with its
/// own static IR named `{{closure}}`.
///
/// - **Parameters without a type are `f64`.** Rust cannot infer a closure's parameter types
///   through a generic bound such as `track`'s `F: Callable<A>`, so `|a, b| a * b` is
///   `|a: f64, b: f64| a * b` (an untyped tuple pattern `|(a, b)|` is `(f64, f64)`). Write
///   the type for anything else: `|v: Vec<f64>, k: usize|`, `|(a, n): (f64, i32)|`.
/// - **Captured variables are constants.** A name used in the body that is not a parameter
///   or a local of the closure, and is written like a variable (starting with a lowercase
///   letter or `_`), is taken to be a captured variable: each use records a `[Const:§b:%i]`
///   node holding its value, as a closure written in a tracked function records the
///   variables of the enclosing function. Other free names (`PI`, `None`) are constants as
///   in any tracked function; a lowercase function item used as a value (`xs.map(square)`)
///   is a constant holding the function.
/// - **The root is the closure.** `track(closure, args)` announces the call with the
///   closure's type name, which the closure claims; pass the closure itself, not a reference
///   to it. All closures written in one function share that type name, so an untracked
///   closure of the same function, called by a tracked function, would have its call claimed
///   by a tracked closure it calls.
/// - With the `disabled` feature of `irtrack`, the macro returns the closure as written, with
///   only the `f64` types of untyped parameters added.
/// - `async` closures are rejected, as in tracked functions.
#[proc_macro]
pub fn tracked_fn(input: TokenStream) -> TokenStream {
    tracked_fn_impl(input.into()).into()
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
    let resolved = matches!(
        &args.clone().into_iter().collect::<Vec<_>>()[..],
        [proc_macro2::TokenTree::Ident(i)] if i == cfg::RESOLVED
    );
    let (args, item) = if resolved {
        // The second stage: rustc has evaluated the predicates of the `cfg`s in the body.
        match cfg::resolve(item.clone()) {
            Ok(item) => (proc_macro2::TokenStream::new(), item),
            Err(e) => {
                let errors = e.into_compile_error();
                return quote::quote!(#errors #item);
            }
        }
    } else if item::parse_args(args.clone()).is_ok_and(|a| !a.primitive) {
        match cfg::probe(&item) {
            Some(probed) => return probed,
            None => (args, item),
        }
    } else {
        (args, item)
    };
    match try_tracked(args, item.clone()) {
        Ok(tokens) => tokens,
        Err(e) => {
            let errors = e.into_compile_error();
            let item = without_method_attributes(item);
            quote::quote!(#errors #item)
        }
    }
}

/// The item as written, but for the `#[tracked…]` attributes of the methods of an `impl`, which
/// the attribute on the `impl` has read (and reported, if wrong): left in, they would be
/// expanded again on their own.
fn without_method_attributes(item: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Impl(mut imp)) => {
            for i in &mut imp.items {
                if let syn::ImplItem::Fn(m) = i {
                    m.attrs.retain(|a| {
                        !a.path()
                            .segments
                            .last()
                            .is_some_and(|s| s.ident == "tracked")
                    });
                }
            }
            quote::quote!(#imp)
        }
        _ => item,
    }
}

/// The whole expansion of `tracked_fn!`, as a function of tokens (tests call it directly).
fn tracked_fn_impl(input: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    closure_unless_disabled(cfg!(feature = "disabled"), input)
}

/// With the `disabled` feature, `tracked_fn!` returns its closure untracked.
fn closure_unless_disabled(
    disabled: bool,
    input: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    if disabled {
        return closure::disabled(input);
    }
    // On error only the errors are emitted: in expression position `compile_error!` is an
    // expression of any type, so the caller sees no second wave.
    try_tracked_fn(input).unwrap_or_else(|e| {
        let errors = e.into_compile_error();
        quote::quote!({ #errors })
    })
}

fn try_tracked_fn(input: proc_macro2::TokenStream) -> Result<proc_macro2::TokenStream, syn::Error> {
    let tracked = closure::parse(input)?;
    if let Some(span) = cfg::closure_has_cfg(&tracked.closure) {
        return Err(syn::Error::new(
            span,
            "tracked_fn! cannot see which `#[cfg]` inside its closure is on; write the closure in a #[tracked] function, which can",
        ));
    }
    let closures = std::rc::Rc::<std::cell::RefCell<lower::Closures>>::default();
    let mut lowered = lower::Lowerer::lower_closure(
        &tracked.closure,
        tracked.captured,
        closures.clone(),
        false,
        Vec::new(),
        Vec::new(),
    )?;
    // The closure may sit in generic code the macro does not see: its receivers' types are
    // not known to be the types they have at run time.
    lowered.ir.generic = true;
    let ident = syn::Ident::new("__IRTRACK_CLOSURE_0", proc_macro2::Span::mixed_site());
    let own = lowered
        .ir
        .closure_static(&ident, syn::spanned::Spanned::span(&tracked.closure))?;
    let mut statics = vec![own];
    statics.append(&mut closures.borrow_mut().statics);
    Ok(closure::expand_tracked_fn(
        &tracked.closure,
        &ident,
        lowered.body,
        statics,
    ))
}

fn try_tracked(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> Result<proc_macro2::TokenStream, syn::Error> {
    let mut tracked = item::parse(args, item)?;
    let mut errors: Option<syn::Error> = None;
    let fns: Vec<&mut item::TrackedFn> = match &mut tracked {
        item::Tracked::Fn(f) => vec![&mut **f],
        item::Tracked::Impl(_, fns, _) => fns.iter_mut().collect(),
        item::Tracked::Primitive(_) => Vec::new(),
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
#[cfg(test)]
mod fuzz_tests;
