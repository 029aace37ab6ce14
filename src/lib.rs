//! Records what ordinary Rust functions actually did when they ran: dynamic computation
//! graphs in the form of nested "extended Wengert lists", as
//! [IRTracker.jl](https://github.com/phipsgabler/IRTracker.jl) records them for Julia, made by an
//! attribute macro at compile time.
//!
//! Put [`#[tracked]`](tracked) on functions, methods or `impl` blocks and call one through
//! [`track`]. The [`Trace`] you get back is a tape with one node per statement executed, per
//! block argument and per branch taken, in execution order. Each node holds its value, its
//! location in the function's static IR ([`FnIr`]) and references to the nodes whose values it
//! used. A call to another tracked function is a nested node holding that call's own tape; any
//! other call is a primitive node.
//!
//! In a clone of the repository, `cargo run --example geom` prints the traces of a recursive
//! model with stochastic control flow, and `cargo test --workspace` runs the tests.
//!
//! # Tour
//!
//! ## Tracking a function
//!
//! ```
//! use irtrack::{track, tracked};
//!
//! #[tracked]
//! fn f(x: f64) -> f64 {
//!     x.sin() + x
//! }
//!
//! let trace = track(f, (1.0,));
//! assert_eq!(
//!     trace.root().levels(2).to_string(),
//!     "\
//! ⟨f⟩(⟨1.0⟩) → 1.8414709848078965::f64
//!   @1: [Arg:§1:%1] 1.0::f64
//!   @2: [§1:%2] ⟨sin⟩(@1) → 0.8414709848078965::f64
//!   @3: [§1:%3] ⟨+⟩(@2, @1) → 1.8414709848078965::f64
//!   @4: [§1:&1] return @3 → 1.8414709848078965::f64
//! "
//! );
//! ```
//!
//! [`track`] takes the function and a tuple of its arguments, calls it and returns the trace
//! ([`track_output`] also returns the function's result). The first line is the root: the
//! tracked call, its argument values and its result. Below it are its children:
//!
//! - `@i:` is a node's position in its parent's tape, from 1; `@2` in an argument list refers
//!   to that node.
//! - `[§b:%i]` is the statement of block `b` defining SSA variable `%i`; `[Arg:§b:%i]` a
//!   function argument (block 1) or block argument; `[Const:§b:%i]` a named constant or a
//!   variable captured by a closure; `[§b:&k]` the `k`-th branch out of block `b`.
//! - `⟨sin⟩(@1)` is a call, `⟨1.0⟩` a literal from the source, `$(kind)(…)` a construct that is
//!   not a call (struct literal, macro, cast, field access, pattern binding, `?`).
//! - `→ value::Type` is the value's `Debug` text (cut after 60 characters with `…`) and its type
//!   without module paths; a value known only by its type prints as `_`.
//!
//! [`NodeRef::levels`] prints a node and some levels below it; `Display` on a [`NodeRef`] or a
//! [`Trace`] prints every level. Listings are plain text, so they make good snapshot tests
//! (`insta::assert_snapshot!(trace.root().levels(2).to_string())`).
//!
//! A closure is tracked anywhere, outside tracked functions too, by wrapping it in
//! [`tracked_fn!`]: `track(tracked_fn!(|a, b| a * b), (2.0, 3.0))` records a root
//! `⟨{{closure}}⟩` whose children are the closure's body (parameters without a type are `f64`).
//!
//! ## A loop
//!
//! ```
//! use irtrack::{track, tracked};
//!
//! #[tracked]
//! fn h(x: f64, n: i32) -> f64 {
//!     let mut r = 0.0;
//!     let mut i = 0;
//!     while i < n {
//!         r += x.powi(i);
//!         i += 1;
//!     }
//!     r
//! }
//!
//! let trace = track(h, (2.0, 2));
//! let root = trace.root();
//! assert_eq!(
//!     root.levels(2).to_string(),
//!     "\
//! ⟨h⟩(⟨2.0⟩, ⟨2⟩) → 3.0::f64
//!   @1: [Arg:§1:%1] 2.0::f64
//!   @2: [Arg:§1:%2] 2::i32
//!   @3: [§1:&1] goto §2 (⟨0.0⟩, ⟨0⟩)
//!   @4: [Arg:§2:%3] @3#1 → 0.0::f64
//!   @5: [Arg:§2:%4] @3#2 → 0::i32
//!   @6: [§2:%5] ⟨<⟩(@5, @2) → true::bool
//!   @7: [§2:&2] goto §3
//!   @8: [§3:%6] ⟨powi⟩(@1, @5) → 1.0::f64
//!   @9: [§3:%7] ⟨+=⟩(@4, @8) → 1.0::f64
//!   @10: [§3:%8] ⟨+=⟩(@5, ⟨1⟩) → 1::i32
//!   @11: [§3:&1] goto §2 (@9, @10)
//!   @12: [Arg:§2:%3] @11#1 → 1.0::f64
//!   @13: [Arg:§2:%4] @11#2 → 1::i32
//!   @14: [§2:%5] ⟨<⟩(@13, @2) → true::bool
//!   @15: [§2:&2] goto §3
//!   @16: [§3:%6] ⟨powi⟩(@1, @13) → 2.0::f64
//!   @17: [§3:%7] ⟨+=⟩(@12, @16) → 3.0::f64
//!   @18: [§3:%8] ⟨+=⟩(@13, ⟨1⟩) → 2::i32
//!   @19: [§3:&1] goto §2 (@17, @18)
//!   @20: [Arg:§2:%3] @19#1 → 3.0::f64
//!   @21: [Arg:§2:%4] @19#2 → 2::i32
//!   @22: [§2:%5] ⟨<⟩(@21, @2) → false::bool
//!   @23: [§2:&1] goto §4 since @22 == false
//!   @24: [§4:&1] return @20 → 3.0::f64
//! "
//! );
//!
//! // `@12` is the first block argument passed by the jump `@11`.
//! let (jump, n) = root.child(12).unwrap().block_argument_of().unwrap();
//! assert_eq!((jump.position(), n), (Some(11), 1));
//! ```
//!
//! The `while` is three blocks: §2 tests the condition, §3 is the body, §4 follows the loop.
//! `r` and `i` change in the loop, so they are arguments of §2, as phi nodes are in SSA form:
//! each jump into §2 passes their values, and each argument node names the jump that supplied
//! it (`@11#1`). A conditional branch says why it was taken (`since @22 == false`).
//! `let mut r = 0.0` records nothing: `r` is the literal `⟨0.0⟩` until the loop passes it on.
//! References point at the newest node recorded for a variable, so the second `powi` (`@16`)
//! uses `@13`, the second iteration's `i`.
//!
//! ## Navigating nodes
//!
//! A [`NodeRef`] is a copyable handle on one node:
//!
//! ```
//! use irtrack::{track, tracked, Arg, NodeKind};
//! # #[tracked]
//! # fn f(x: f64) -> f64 {
//! #     x.sin() + x
//! # }
//!
//! let trace = track(f, (1.0,));
//! let root = trace.root();
//! assert_eq!(root.children().count(), 4);
//!
//! let sin = root.child(2).unwrap(); // `@2`; positions start at 1
//! let plus = root.child(3).unwrap();
//! assert_eq!(plus.kind(), NodeKind::PrimitiveCall);
//! assert_eq!(plus.parent(), Some(root));
//! assert_eq!(plus.function_name(), Some("+"));
//! assert_eq!(plus.value::<f64>(), Some(&1.8414709848078965));
//! assert!(matches!(plus.arguments()[0], Arg::Node(n) if n == sin));
//!
//! let location = plus.location().unwrap();
//! assert_eq!(location.to_string(), "§1:%3");
//! // The static statement the node executed:
//! assert_eq!(plus.ir().unwrap()[location].to_string(), "%3 = %2 + %1");
//! ```
//!
//! [`NodeRef::value`] gives the recorded value back for scalars and for types implementing
//! [`Snapshot`] (std containers, strings, tuples, arrays, references to those, and your own
//! types with `#[derive(Clone, Debug, irtrack::Snapshot)]`); other `Debug` types keep their text
//! ([`NodeRef::value_text`]), anything else only its type name. [`NodeRef::block_argument_of`]
//! gives the jump that supplied a block argument, and [`Trace::nodes`] iterates over every node
//! at every level.
//!
//! ## The static IR
//!
//! [`NodeRef::callee_ir`] on the root is the IR of the tracked function ([`NodeRef::ir`] is the
//! IR of the function a node was recorded in). It prints in the style of IRTools; every location
//! in a trace indexes it. The repository's `docs/lowering.md` describes how Rust control flow
//! becomes these blocks.
//!
//! ```
//! # use irtrack::{track, tracked};
//! # #[tracked]
//! # fn h(x: f64, n: i32) -> f64 {
//! #     let mut r = 0.0;
//! #     let mut i = 0;
//! #     while i < n {
//! #         r += x.powi(i);
//! #         i += 1;
//! #     }
//! #     r
//! # }
//! let trace = track(h, (2.0, 2));
//! assert_eq!(
//!     trace.root().callee_ir().unwrap().to_string(),
//!     "\
//! 1: (%1, %2)
//!   br 2 (0.0, 0)
//! 2: (%3, %4)
//!   %5 = %4 < %2
//!   br 4 unless %5
//!   br 3
//! 3:
//!   %6 = %1.powi(%4)
//!   %7 = %3 += %6
//!   %8 = %4 += 1
//!   br 2 (%7, %8)
//! 4:
//!   return %3
//! "
//! );
//! ```
//!
//! ## Contexts
//!
//! A context decides, without touching the traced code, which tracked calls are recorded as
//! nested calls and what metadata each node carries (IRTracker's contexts). `track_with(ctx, f,
//! args)` records with one; `track` is `track_with` a context that changes nothing.
//!
//! ```rust
//! use irtrack::{track_with, tracked, DepthLimit, NodeKind};
//!
//! #[tracked]
//! fn fact(n: u64) -> u64 {
//!     if n == 0 { 1 } else { n * fact(n - 1) }
//! }
//!
//! // The root is recorded; every call inside it is a primitive.
//! let trace = track_with(DepthLimit::new(2), fact, (5,));
//! let call = trace.root().children().find(|c| c.function_name() == Some("fact")).unwrap();
//! assert_eq!(call.kind(), NodeKind::PrimitiveCall);
//! ```
//!
//! Implement `Context` to write your own: every method has a default. `can_recur(call)` decides
//! whether a tracked callee's body is recorded; `nested(call)` gives that body its own context
//! value (a depth counter, a path), and `record_nested_call` is the default to fall back on; one
//! hook per node kind (`argument`, `constant`, `primitive_call`, `nested_call`, `special`,
//! `jump`, `ret`, `error`) sees each node before it is stored and can attach metadata with
//! `node.set(key, value)`, which prints after a tab (shown as `⇥`):
//!
//! ```text
//! @4: [§1:%4] ⟨random⟩(@3) → 0.7311134158637046::f64 ⇥ [choice = "/geom/random#1"]
//! ```
//!
//! Shipped contexts: `DepthLimit`, `Only` and `Except` (recurse into, or skip, named
//! functions), and `Timing` (each nested call's wall time as `time_ns`). `cargo run --example
//! contexts` shows `DepthLimit` on `geom` and a context that names random choices by address.
//!
//! A panic in traced code propagates out of `track`. `try_track(f, args)` catches it instead and
//! returns the trace recorded up to it, where every call the panic left ends in an `error` node
//! holding its message, together with the panic's payload.
//!
//! ## Gradients
//!
//! A trace holds every intermediate value and what each node used, which is all a backward pass
//! needs. `gradient(f, args)` records `f` and walks its trace back from the output; integer,
//! `bool` and other non-float arguments get `None`, never a zero:
//!
//! ```rust
//! use irtrack::{gradient, tracked, tracked_fn};
//!
//! #[tracked]
//! fn h(x: f64, n: i32) -> f64 {
//!     let mut r = 0.0;
//!     let mut i = 0;
//!     while i < n {
//!         r += x.powi(i);
//!         i += 1;
//!     }
//!     r
//! }
//!
//! let g = gradient(h, (2.0, 3)).unwrap();
//! assert_eq!(g.value, 7.0);
//! assert_eq!(g.scalars(), [Some(5.0), None]); // 1 + 2x, and nothing for the loop bound
//!
//! // Flux.Tracker's `gradient((a, b) -> a*b, 2, 3)`:
//! let g = gradient(tracked_fn!(|a, b| a * b), (2.0, 3.0)).unwrap();
//! assert_eq!(g.scalars(), [Some(3.0), Some(2.0)]);
//! ```
//!
//! The rest of Flux.Tracker's interface is there too: `pullback(f, args)` returns the value and a
//! backpropagator that takes any sensitivity of the output's shape (callable more than once), and
//! `trace.backward(seed)` writes each node's adjoint into its metadata under `"adjoint"`, adding
//! to what an earlier pass left (`back!`), so the listing shows them (here for
//! `fn f(x: f64) -> f64 { x.sin() * x }` and `track(f, (1.0,)).backward(1.0)`):
//!
//! ```text
//! ⟨f⟩(⟨1.0⟩) → 0.8414709848078965::f64	[adjoint = 1.0]
//!   @1: [Arg:§1:%1] 1.0::f64	[adjoint = 1.3817732906760363]
//!   @2: [§1:%2] ⟨sin⟩(@1) → 0.8414709848078965::f64	[adjoint = 1.0]
//!   @3: [§1:%3] ⟨*⟩(@2, @1) → 0.8414709848078965::f64	[adjoint = 1.0]
//!   @4: [§1:&1] return @3 → 0.8414709848078965::f64	[adjoint = 1.0]
//! ```
//!
//! Gradients flow through nested tracked calls, loops, branches, recursion, `?` exits and the
//! stochastic control flow of the run that was recorded. Differentiable values are `f32`, `f64`,
//! `Vec`s, slices and arrays of them, and, with the `ndarray` feature, ndarray arrays
//! (elementwise arithmetic with broadcasting, the float methods, `dot`, `t()`, `sum`, `mean`,
//! `mapv(f64::tanh)`, indexing). A struct or tuple argument (a model's parameters) gets a
//! `Tangent::Fields` with the gradient of each float field the computation read, by path
//! (`layer.w`). Rules are found by what the callee is — an operator with its
//! operand types, a method with its receiver's type, a path by its full name — so a function of
//! your own called `sin` is never mistaken for `f64::sin`. `grad::register_rule(f, pullback)`
//! gives any function its own rule, like Tracker's `@grad`:
//!
//! ```rust
//! use irtrack::{gradient, grad::register_rule, tracked};
//!
//! #[tracked]
//! fn minus(a: f64, b: f64) -> f64 {
//!     a - b
//! }
//!
//! register_rule(minus, |(_a, _b): (f64, f64), d: f64| (d, -d));
//! assert_eq!(gradient(minus, (5.0, 3.0)).unwrap().scalars(), [Some(1.0), Some(-1.0)]);
//! ```
//!
//! What cannot be differentiated is a `GradError` naming the statement, function and location:
//! a call with no rule on the path from an input to the output (an untracked helper, a closure
//! handed to `map`), a write of an input-dependent value into memory (`v[i] += x`,
//! `v.push(x)`), a closure called inside the computation that uses a captured variable.
//! `cargo run --example gradient` differentiates a model with stochastic control flow and a
//! two-layer ndarray network and prints their annotated traces; `docs/gradients.md` explains
//! the backward pass.
//!
//! ## Seeing the transformed code
//!
//! [cargo-expand](https://github.com/dtolnay/cargo-expand) shows what `#[tracked]` generated. It
//! is not part of the toolchain: install it with `cargo install cargo-expand`, then run, for
//! example, `cargo expand --example sin f` in this repository.
//!
//! # Explanation
//!
//! `#[tracked]` keeps the function's signature and original body, and puts in front of the
//! body a static table of the function's IR and one check. A simplified expansion of `f`
//! (paths into the hidden `::irtrack::__private` module shortened, the value-capture closures
//! written `cap`):
//!
//! ```ignore
//! fn f(x: f64) -> f64 {
//!     let __irtrack_ir: &'static FnIr = {
//!         static IR: FnIr = FnIr {
//!             name: "f",
//!             entries: &[
//!                 Entry::argument(1, 1, "x"),                                   // entry 0: %1
//!                 Entry::statement(1, 2, MethodCall, "sin", &[Var(1)]),         // entry 1: %2 = %1.sin()
//!                 Entry::statement(1, 3, Operator, "+", &[Var(2), Var(1)]),     // entry 2: %3 = %2 + %1
//!                 Entry::branch(1, 1, Return, 0, &[Var(3)], Operand::None, ""), // entry 3: return %3
//!             ],
//!             /* … */
//!         };
//!         &IR
//!     };
//!     // The claim check: is a tracked caller (or `track`) calling this function right now?
//!     if let Some(__irtrack) = claim(__irtrack_ir, Identity {
//!         inner_closure: type_name_of_val(&|| ()),
//!         name: "f",
//!         self_type: None,
//!     }) {
//!         // The instrumented copy, in a closure that `run` calls: never inlined into `f`.
//!         let __irtrack_result: f64 = run(move || {
//!             __irtrack.record_ref(0, &x, cap);
//!             __irtrack.ret(3,
//!                 __irtrack.record(2,
//!                     __irtrack.announce_method(2, "add", true,
//!                         __irtrack.record(1, {
//!                             __irtrack.announce_method(1, "sin", true, ());
//!                             x.sin()
//!                         }, cap))
//!                     + x,
//!                     cap),
//!                 cap)
//!         });
//!         return __irtrack_result;
//!     }
//!     // The original body: what runs when nothing claimed the call.
//!     x.sin() + x
//! }
//! ```
//!
//! - **The claim check.** `claim` first reads a process-wide count of recordings in progress;
//!   when it is zero, that one relaxed atomic load is all an untracked call pays, and the
//!   original body runs. Otherwise it looks in this thread's recorder for a pending call made to
//!   this function; if there is one, it opens a nested node for it and returns the frame the
//!   instrumented copy records into.
//! - **Record calls.** Each recorded expression passes its value through `record(entry, value,
//!   cap)`, which returns it unchanged. The number is the entry's index in the static IR; the
//!   recorder resolves the entry's operands (`%2`, `%1`) to the newest nodes recorded for those
//!   variables in the current call, so the generated code keeps no bookkeeping of its own. Jumps
//!   are `jump(entry)`, returns `ret(entry, value, cap)`. `cap` captures the value as richly as
//!   its type allows (a [`Snapshot`] clone, else `Debug` text, else the type name) by autoref
//!   specialisation, so your types need no extra bounds.
//! - **Announcing and claiming calls.** Before a call runs, the caller announces it with a key
//!   naming the callee: the type name of the function item for `g(x)`, the method name and the
//!   receiver's type for `x.m()` and for operators. The announcement is placed after the last
//!   argument that may itself run tracked code, so a tracked call inside an argument cannot take
//!   it. A tracked callee claims the call only if the key names it (a free function compares the
//!   key with the type name of a closure defined in its own body, which is its own path followed
//!   by `::{{closure}}`), records its body as the children of a nested node, and hands the node
//!   back when it returns; the caller's `record` for the call then fills in the node's arguments
//!   and value. When no tracked function claims the call, the same `record` makes a primitive.
//! - [`track`] announces the root call the same way, so the root is a nested node when the
//!   function is tracked, and a childless primitive otherwise.
//! - Items declared at the top level of the body (`fn`, `struct`, `static`, `use`) are moved in
//!   front of the check, so both copies share them; items in inner blocks are copied with their
//!   block.
//!
//! # Caveats
//!
//! What is not recorded, or recorded coarsely:
//!
//! - **Mutation makes a new version only where the macro can see it.** A call statement that
//!   passes a local by `&mut` (`set(&mut k);`), or a standard container's mutating method
//!   called as a statement on a local (`v.push(x);`), gives the local a new version, a node
//!   `$(&mut v)` referring to the old version and the call:
//!
//!   ```
//!   # use irtrack::{track, tracked};
//!   #[tracked]
//!   fn push_len(x: f64) -> usize {
//!       let mut v: Vec<f64> = Vec::new();
//!       v.push(x);
//!       v.push(x);
//!       v.len()
//!   }
//!
//!   let trace = track(push_len, (1.5,));
//!   assert_eq!(
//!       trace.root().levels(2).to_string(),
//!       "\
//!   ⟨push_len⟩(⟨1.5⟩) → 2::usize
//!     @1: [Arg:§1:%1] 1.5::f64
//!     @2: [§1:%2] ⟨Vec::new⟩() → []::Vec<f64>
//!     @3: [§1:%3] ⟨push⟩(@2, @1) → ()::()
//!     @4: [§1:%4] $(&mut v)(@2, @3) → [1.5]::Vec<f64>
//!     @5: [§1:%5] ⟨push⟩(@4, @1) → ()::()
//!     @6: [§1:%6] $(&mut v)(@4, @5) → [1.5, 1.5]::Vec<f64>
//!     @7: [§1:%7] ⟨len⟩(@6) → 2::usize
//!     @8: [§1:&1] return @7 → 2::usize
//!   "
//!   );
//!   ```
//!
//!   Other mutation makes no node (a method not known to take `&mut self`, a call whose value
//!   is used, a write through a reference bound earlier): later uses refer to the old node,
//!   and a gradient through that stale edge is an error. Likewise `*v += 1.0` on a `&mut f64` is a special node `$(*v +=)(@1, ⟨1.0⟩)` with no
//!   value, and `@1` keeps the value the argument had on entry; reading `*v` afterwards records
//!   a new node, `$(*)(@1)`, with the current value.
//! - **Macros are opaque.** `vec![x, 2.0 * x]` is one special node `$(vec!)(@1)` holding the
//!   result; its references are the local variables the macro's tokens mention (inline format
//!   arguments like `"{v:?}"` included), and nothing the macro evaluates inside is recorded: the
//!   `2.0 * x` above has no node.
//! - **Closures are separate functions.** A closure written in a tracked function is tracked
//!   on its own, and is a nested node when a tracked function calls it directly. Inside it, a
//!   variable captured from the enclosing function is a `[Const:§1:%i]` node holding the
//!   captured value, not a reference into the enclosing tape. A closure called by untracked code
//!   (given to `map`, run inside `collect`) is not recorded, and as a call argument a closure
//!   prints as `⟨_⟩`.
//! - **Values whose type is decided only later are captured as `Debug` text.** Results of
//!   `parse`, `collect`, `into`, `sum`, `from`, `Ok`/`Err`/`Some` and the like, and operands of
//!   `?`, keep their `Debug` text even when their type is a [`Snapshot`] type, except scalars,
//!   `String`s, vectors of scalars and options of floats, which are recognised by their type:
//!
//!   ```
//!   # use irtrack::{track, tracked};
//!   #[tracked]
//!   fn doubled(xs: &[f64]) -> usize {
//!       let v: Vec<f64> = xs.iter().map(|x| x * 2.0).collect();
//!       v.len()
//!   }
//!
//!   let trace = track(doubled, (&[1.0, 2.0][..],));
//!   let collect = trace.root().child(4).unwrap();
//!   assert_eq!(collect.function_name(), Some("collect"));
//!   assert_eq!(collect.value_text(), "[2.0, 4.0]");
//!   assert_eq!(collect.value::<Vec<f64>>(), Some(&vec![2.0, 4.0]));
//!   ```
//!
//!   A value whose type is still open where it is recorded, and is later settled to a type
//!   without [`Snapshot`], does not compile: for `let mut v = Vec::new(); v.push(P(x));` the
//!   error is "irtrack cannot keep a clone of `P` in a trace"; annotate the binding
//!   (`let mut v: Vec<P> = Vec::new();`).
//! - **Functions returning `impl Trait` have no untracked copy.** The two bodies would return
//!   two different opaque types, so the instrumented body is the only one: it always runs,
//!   recording into an inactive frame that ignores everything when the call was not claimed.
//! - **Method calls are claimed by name and receiver type.** A tracked method claims `x.m()`
//!   when its name is `m` and its `Self` type is the receiver's type, after peeling `&`,
//!   `&mut`, `Box`, `Rc` and `Arc`. A `dyn Trait` receiver matches any tracked method of that
//!   name. A receiver whose type cannot be read without running code again (`v[idx(i)].m()`)
//!   is never claimed, so that call is recorded as a primitive. Comparisons and
//!   indexing are never claimed: a tracked `PartialOrd`, `PartialEq` or `Index` impl is recorded
//!   as a primitive.
//! - **Some syntax is rejected with a compile error:** `async fn`, async blocks and closures,
//!   `.await`, `try` blocks, `yield`, a `static` in an inner block of the body (move it to the
//!   top level), `const`, `extern` and variadic functions, and in [`tracked_fn!`] a `#[cfg]`
//!   inside the closure (write the closure in a `#[tracked]` function). `#[tracked]` itself goes
//!   on functions, methods and `impl` blocks (for a trait, on its `impl`s), and takes no
//!   argument but `primitive`. Everything else is lowered: labelled blocks, edition-2024 `let`
//!   chains (as nested `if let`s, each with the chain's `else`), variables declared without a
//!   value, and `#[cfg]`/`#[cfg_attr]` anywhere in the body, which rustc evaluates before the
//!   body is lowered, so that the IR holds entries for the compiled code only.
//! - **A user macro that returns leaves an error node.** `return` (or `?`) inside a macro is
//!   not lowered, so when it fires the call ends in an `error` node saying so instead of a
//!   return (and without the macro's own node); the call's value is what the function
//!   returned, and a gradient through it is an error, since no node computed that value:
//!
//!   ```
//!   # use irtrack::{track, tracked};
//!   macro_rules! bail_if_negative {
//!       ($x:expr) => {
//!           if $x < 0.0 {
//!               return 0.0;
//!           }
//!       };
//!   }
//!
//!   #[tracked]
//!   fn guarded(x: f64) -> f64 {
//!       bail_if_negative!(x);
//!       x.sqrt()
//!   }
//!
//!   assert_eq!(
//!       track(guarded, (-1.0,)).root().levels(2).to_string(),
//!       "\
//!   ⟨guarded⟩(⟨-1.0⟩) → 0.0::f64
//!     @1: [Arg:§1:%1] -1.0::f64
//!     @2: error → \"returned by a `return` irtrack cannot see (inside a macro)\"::String
//!   "
//!   );
//!   assert!(irtrack::gradient(guarded, (-1.0,)).is_err());
//!   assert_eq!(irtrack::gradient(guarded, (4.0,)).unwrap().wrt[0].as_ref().unwrap().as_scalar(), Some(0.25));
//!   ```
//! - **The `disabled` cargo feature turns `#[tracked]` into the identity.** Every tracked
//!   function then compiles exactly as written, and [`track`] records a root with no children
//!   (`⟨f⟩() → _::f64`).
//!
//! - **Reading `v[j][i]` or `s.w[i]` records the inner place each time.** The row `v[j]` or the
//!   field `s.w` is a node of its own, holding a copy of its value, at every read: in a loop over
//!   `i`, bind it once outside the loop (`let row = &v[j];`), and for large constant arrays use
//!   ndarray's `ArcArray`, which a trace shares instead of copying.
//! - **Gradients refuse what the trace cannot vouch for.** Since mutation makes no new node (the
//!   first caveat), a write of an input-dependent value into memory (`v[i] += x`, `v.push(x)`,
//!   `*r = x`) is `GradError::Mutation`: build new values instead (`vec![a, b]`, `r = r + x`);
//!   so is a value a user's macro may have assigned (`add_to!(a, x)` with `a` a `mut`
//!   variable: the macro is opaque, its effect unseen). A
//!   closure handed to untracked code (`v.iter().map(|e| e * x)`, `a.mapv(|v| v * v)`) is not
//!   recorded, so a value computed from it is `GradError::NoRule` (loops over vectors with `zip`,
//!   `enumerate`, `v.iter().sum()` and `a.mapv(f64::tanh)` do work). A closure bound by `let`
//!   that reads a captured variable is followed to it; one that assigns to its capture is
//!   `GradError::Capture`: pass the value as an argument. Gradients follow the branches the
//!   recorded run took; at a kink (`abs`, `max`) they take the recorded side. Traces imported
//!   from JSON keep typed values, and are differentiated as the recording is.
//!
//! # Status
//!
//! Recording, the listing, the static IR, contexts, dependency queries, export (DOT, JSON),
//! reverse-mode gradients, programs built from traces (replay, `switch`, `while_loop`,
//! checkpoints, incremental update: [`program`]), derivatives as graphs of any order with
//! emitted Rust ([`diff`]), and probabilistic programs (`irtrack::ppl`, the `ppl` feature) work
//! today; README.md gives the tour of each and the figures against their targets. Still to
//! come: a gradient as fast as the best Rust AD crates' in one pass (compiled once, it is
//! already faster than theirs), faster recording, smaller generated code.
#![forbid(unsafe_code)]
#![warn(missing_docs)]
// Listings print metadata after a tab, and the docs show listings as they print.
#![allow(clippy::tabs_in_doc_comments)]

pub use irtrack_macros::{tracked, tracked_fn, Snapshot};
pub use irtrack_runtime::diff::{self, differentiate, DiffError};
pub use irtrack_runtime::program::{switch, while_loop, BranchArgs, Branches, MaxItersExceeded};
pub use irtrack_runtime::{
    core, export, program, program::Retracking, program::Updatable, record, register_operation,
    track, track_output, track_with, track_within, track_within_with, try_track, try_track_with,
    view, Action, Arg, Axis, BinOp, Budget, Builtin, Call, CallSite, Callable, CmpOp, Context,
    DepthLimit, Draft, Entry, EntryKind, EvalError, Everything, Except, FloatFn, FnIr, IrError,
    IrRef, Listing, Location, NodeId, NodeKind, NodeMut, NodeRef, Only, Operand, Operation,
    OverBudget, Owned, Program, Reason, ReexecError, ScalarType, Slot, Timing, Trace, UnOp, Value,
    VerifyError,
};
pub use irtrack_runtime::{grad, gradient, pullback, GradError, Gradient, Pullback, Tangent};

/// The IR of tracked functions (`irtrack::core::ir`).
pub use irtrack_runtime::core::ir;
/// Recorded values and how they are captured (`irtrack::core::value`).
pub use irtrack_runtime::core::value;
/// Contexts (`irtrack::record::context`).
pub use irtrack_runtime::record::context;
/// The contexts irtrack ships (`irtrack::record::contexts`).
pub use irtrack_runtime::record::contexts;
/// The listing (`irtrack::view::listing`).
pub use irtrack_runtime::view::listing as print;

// `JsonError` and `SCHEMA` when the runtime has its `serde` feature (`irtrack_runtime::features`);
// without it the glob is empty.
#[allow(unused_imports)]
pub use irtrack_runtime::features::*;

// The derive and the trait share the name, as serde's do: one is a macro, one a type.
pub use irtrack_runtime::Snapshot;

#[doc(hidden)]
pub use irtrack_runtime::__private;

/// The README's examples, compiled and run as doc tests so that the tour stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExamples;
