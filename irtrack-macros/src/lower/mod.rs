//! Lowering: a function body → its static IR (blocks, SSA variables, branches) and the
//! instrumented copy of the body that records into a frame as it runs.
//!
//! The instrumented copy keeps the body's structured control flow. Each recorded statement
//! passes its value through a frame call that names the static entry it executed; the recorder
//! resolves the entry's operands (`%i`) to the newest node recorded for each, so the generated
//! code carries no bookkeeping of its own. See `docs/lowering.md`.

mod control;
mod expr;
pub(crate) mod scan;
pub mod text;

use crate::ir::{EntryId, IrBuilder, Kind, Operand, Slot};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use std::cell::RefCell;
use std::rc::Rc;
use syn::spanned::Spanned;
use syn::{Block, Expr, Pat, Stmt};

/// A variable in scope while lowering, and the SSA operand that holds its value right now.
#[derive(Clone)]
struct Local {
    ident: syn::Ident,
    op: Operand,
    /// Declared with `let x;`: not yet readable, so never a block argument.
    uninit: bool,
}

/// A `macro_rules!` written in the body: its rules' tokens (metavariables taken out: `$x` names
/// no variable), and where the variables they mention were bound when it was defined (scope,
/// position): its rules read those bindings, which a later `let` of the same name does not
/// change (hygiene).
#[derive(Clone)]
pub(crate) struct LocalMacro {
    name: String,
    /// The scope it was defined in (its block's).
    scope: usize,
    rules: TokenStream,
    sites: Vec<(String, usize, usize)>,
}

/// A loop (or `while`/`for`, or a labelled block) being lowered: where `continue` and `break`
/// go.
#[derive(Clone)]
struct LoopCtx {
    label: Option<String>,
    header: u32,
    exit: u32,
    /// Variables carried around the loop, with the header's argument entries for them.
    carried: Vec<(syn::Ident, EntryId)>,
    /// Exit-block arguments (carried variables, when the body breaks), then the break value.
    exit_args: Vec<(syn::Ident, EntryId)>,
    exit_value: Option<(EntryId, Operand)>,
    /// A labelled block, not a loop: no `continue`, and an unlabelled `break` passes it by.
    block: bool,
    /// Variables declared without a value that the body assigns, and whether every `break`
    /// lowered so far leaves each initialised (so that it may be an exit argument).
    deferred: Vec<syn::Ident>,
    deferred_init: Vec<bool>,
    /// The deferred variables every way out initialises: exit arguments after the carried ones.
    exit_deferred: Vec<syn::Ident>,
    /// How many scopes were open when the loop began: its carried variables are bound in
    /// them, whatever the body declares later under the same names.
    depth: usize,
}

/// What a dry run of the lowering changes, to undo it (see [`Lowerer::dry_run`]).
struct State {
    ir: crate::ir::IrMark,
    block: u32,
    scopes: Vec<Vec<Local>>,
    loops: Vec<LoopCtx>,
    errors: usize,
    statics: usize,
    closure_idents: usize,
    late: bool,
    late_vars: std::collections::BTreeSet<u32>,
}

/// Where the value of a block goes.
#[derive(Clone, Copy, PartialEq)]
pub enum Tail {
    /// The block's value is used.
    Value,
    /// The block's value is discarded (statement position).
    Discard,
    /// The block is the function body (or is in tail position of it): its value is returned.
    Return,
}

/// An expression after lowering: its instrumented tokens, the operand holding its value, and
/// whether evaluating it may call tracked code (then a call's announcement must follow it).
pub struct Lowered {
    pub tokens: TokenStream,
    pub op: Operand,
    pub loud: bool,
}

impl Lowered {
    fn quiet(tokens: TokenStream, op: Operand) -> Lowered {
        Lowered {
            tokens,
            op,
            loud: false,
        }
    }
}

/// Whether an expression is used for its value or as a place (operand of `&`, a method
/// receiver, the left of an assignment), where it must stay a place.
#[derive(Clone, Copy, PartialEq)]
pub enum Ctx {
    Value,
    /// A place that may be borrowed mutably or moved from: left as written.
    Place,
    /// A place only read through a shared reference (`&e`, comparison operands): recorded
    /// through that reference when it is rooted in a variable or path.
    Ref,
}

/// A lowered function or closure: its static IR and instrumented body.
pub struct LoweredFn {
    pub ir: IrBuilder,
    /// Statements recording the arguments, then the instrumented body.
    pub body: TokenStream,
    /// For a closure: the captured variables its uses link to, in capture-index order
    /// ([`FnIr::capture_index`](irtrack_runtime::core::ir::FnIr::capture_index)).
    pub captures: Vec<String>,
}

/// The closures lowered while lowering one item: their IR statics, and the static of each
/// closure expression (by the expression's address in the syntax tree, which stays put while
/// lowering).
#[derive(Default)]
pub struct Closures {
    pub statics: Vec<TokenStream>,
    pub idents: Vec<(*const syn::ExprClosure, syn::Ident)>,
    /// The captures of each closure its uses link to (see [`LoweredFn::captures`]).
    pub captures: Vec<(*const syn::ExprClosure, Vec<String>)>,
}

pub struct Lowerer {
    pub ir: IrBuilder,
    /// Shared with the lowerers of the closures in the body.
    closures: Rc<RefCell<Closures>>,
    block: u32,
    scopes: Vec<Vec<Local>>,
    loops: Vec<LoopCtx>,
    /// Names of the enclosing function's variables, for a closure (uses record a constant).
    captured: Vec<String>,
    errors: Vec<syn::Error>,
    /// The next call lowered is the operand of `?`: its type is decided later.
    late: bool,
    /// The declared return type, which types the capture of returned values (their type may
    /// otherwise be decided only by the return itself).
    ret_ty: Option<syn::Type>,
    /// The function is generic: a value's type may be an inference variable that resolves to a
    /// type parameter or a projection only after it is recorded (`ix << 1`, `.cast()`, an untyped
    /// closure parameter), and the autoref probe would commit to a capture the final type does
    /// not allow. Values are then captured by type alone (scalars are still typed), except
    /// arguments and returns, whose types are written in the signature.
    generic: bool,
    /// The type parameters in scope, whose paths (`F::Int`) are projections.
    type_params: Vec<String>,
    /// Lowering a closure: its parameters may have no written type.
    closure: bool,
    /// The deferred variables every way out of the next loop or labelled block initialises,
    /// learnt by a dry run (see [`Lowerer::dry_run`]).
    exit_deferred: Vec<syn::Ident>,
    /// Which deferred variables every way out of the construct just closed initialised.
    deferred_seen: Vec<bool>,
    /// The variables recorded with a late capture (their type may be decided after the
    /// recording): a block argument merging one is captured late too.
    late_vars: std::collections::BTreeSet<u32>,
    /// The base of the place a `let` borrows (`v.as_slice()` in `let s = &v.as_slice()[1..];`),
    /// lowered into the hidden local named here, declared before the `let`, so that the place
    /// is read through a reference without shortening the base's temporary (which the `let`
    /// extends): see [`Lowerer::local`].
    hoist: Option<(*const Expr, syn::Ident)>,
    /// The type a `let` declares for the `if` or `match` that initialises it (`let f:
    /// Option<Box<dyn Fn(f64) -> f64>> = if c { Some(Box::new(…)) } else { None }`), taken
    /// by that expression for the local its arms pass their value through: an arm's value
    /// is coerced there, as Rust coerces it at the `let` (a `Box` of a closure to a `Box<dyn
    /// Fn>`), and its recording knows the type it records.
    value_type: Option<syn::Type>,
    /// The `macro_rules!` the body defines, by name: their rules' tokens. A call of one reads
    /// (and may write) the variables those mention, which the call's own tokens need not
    /// (`macro_rules! twice { () => { x * 2.0 } }` then `twice!()`).
    local_macros: Vec<LocalMacro>,
    /// The hidden local of the hoisted base and the base's lowered tokens, once lowered.
    hoisted: Option<(syn::Ident, TokenStream)>,
    /// Borrows of a place whose base is a temporary that a `let` extends, other than the
    /// whole initialiser (`let t = (&f(x)[0], 1);`): left as written, with no node.
    unextended: Vec<*const syn::ExprReference>,
    /// Locals bound to a `&mut` borrow of a local (`let r = &mut y;`): passing one on
    /// (`f(r)`) passes the borrow, which `FnIr::borrows_mut` notes like `f(&mut y)`.
    mut_refs: std::collections::BTreeSet<String>,
    /// For a closure bound by `let`: the captured variables whose uses link to the enclosing
    /// function's node (those it does not assign to), in the order first used; `None` when
    /// uses do not link.
    capture_order: Option<Vec<String>>,
    /// The captured variables the closure assigns to (`k += 1.0`, `&mut k`, `k.push(…)`): its
    /// reads of them may be of values it wrote.
    capture_assigned: std::collections::BTreeSet<String>,
    /// Lowering a match guard made of `&&` and `||` only (`scan::short_circuits_only`): they
    /// open no blocks, and the operands that run are recorded in the current block.
    flat_logic: bool,
    /// The operands of the `&&` and `||` lowered so (the conditions the guard decided by).
    flat_leaves: Vec<Operand>,
    /// The operands of the indices of the place being lowered as a place (`w[i][j]` in
    /// `w[i][j] = x`), pushed by `index` and taken by the assignment that writes the place: which
    /// element it wrote depends on them, so its node refers to them.
    place_indices: Vec<Operand>,
    /// The names bound `mut` in the function (`scan::mutable_bindings`): a user's macro that
    /// mentions one may assign it.
    mutable_names: std::collections::BTreeSet<String>,
    /// The variables a statement's `&mut` call gives new versions after it (`f(&mut k);`):
    /// their borrows in it need no node before.
    versioned_after: Vec<String>,
    /// Names a user's macro mentioned that were no variables: perhaps variables it declared
    /// (`Lowerer::macro_writes`).
    macro_declared: std::collections::BTreeSet<String>,
    /// Whether the function takes `&mut self` or `mut self`: its methods' receivers rooted in
    /// `self` may be written (`Lowerer::may_write_receiver`).
    mut_self: bool,
}

/// Gives parameter `k`, written as a pattern other than a name (`(a, b): (f64, f64)`, `_: f64`,
/// `&x: &f64`), a name of its own (`__irtrack_arg{k}`) and returns the `let` binding the pattern
/// to it, for the top of the body: one argument node per parameter, at the position the caller
/// passes it. `None` for a parameter written as a name. Shared by functions and closures.
pub fn name_pattern_parameter(t: &mut syn::PatType, k: usize) -> Option<Stmt> {
    if matches!(&*t.pat, Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none()) {
        return None;
    }
    let name = syn::Ident::new(&format!("__irtrack_arg{k}"), Span::mixed_site());
    // A `ref mut` binding borrows the parameter mutably (`fn f(ref mut r: f64)`).
    let replacement: Pat = if scan::binds_ref_mut(&t.pat) {
        syn::parse_quote!(mut #name)
    } else {
        syn::parse_quote!(#name)
    };
    let pat = std::mem::replace(&mut *t.pat, replacement);
    Some(syn::parse_quote!(let #pat = #name;))
}

/// The frame ident in generated code; hygienic, so user code cannot name it.
pub fn frame() -> syn::Ident {
    syn::Ident::new("__irtrack", Span::mixed_site())
}

/// Whether `e` is a `&mut` borrow, or a tuple or array holding one (`(&mut a, &mut b)`).
fn holds_mut_borrow(e: &Expr) -> bool {
    match e {
        Expr::Reference(r) => r.mutability.is_some(),
        Expr::Paren(p) => holds_mut_borrow(&p.expr),
        Expr::Tuple(t) => t.elems.iter().any(holds_mut_borrow),
        Expr::Array(a) => a.elems.iter().any(holds_mut_borrow),
        _ => false,
    }
}

fn private_ident(name: &str) -> syn::Ident {
    syn::Ident::new(name, Span::mixed_site())
}

impl Lowerer {
    pub fn new(captured: Vec<String>) -> Self {
        Lowerer {
            ir: IrBuilder::new(),
            closures: Rc::default(),
            block: 1,
            scopes: vec![Vec::new()],
            loops: Vec::new(),
            captured,
            errors: Vec::new(),
            late: false,
            ret_ty: None,
            generic: false,
            type_params: Vec::new(),
            closure: false,
            exit_deferred: Vec::new(),
            deferred_seen: Vec::new(),
            late_vars: Default::default(),
            hoist: None,
            value_type: None,
            local_macros: Vec::new(),
            hoisted: None,
            unextended: Vec::new(),
            mut_refs: Default::default(),
            capture_order: None,
            capture_assigned: Default::default(),
            flat_logic: false,
            flat_leaves: Vec::new(),
            place_indices: Vec::new(),
            mutable_names: Default::default(),
            versioned_after: Vec::new(),
            macro_declared: Default::default(),
            mut_self: false,
        }
    }

    /// Links a closure's uses of captured variables to the enclosing function's nodes, except
    /// those of the variables in `assigned`.
    pub fn linking_captures(mut self, assigned: std::collections::BTreeSet<String>) -> Self {
        self.capture_order = Some(Vec::new());
        self.capture_assigned = assigned;
        self
    }

    /// The capture index of a use of the captured variable `name`, when uses of it link.
    fn capture_slot(&mut self, name: &str) -> Option<usize> {
        if self.capture_assigned.contains(name) {
            return None;
        }
        let order = self.capture_order.as_mut()?;
        Some(match order.iter().position(|n| n == name) {
            Some(k) => k,
            None => {
                order.push(name.to_string());
                order.len() - 1
            }
        })
    }

    /// Shares the closure statics of an enclosing lowerer.
    pub fn with_closures(mut self, closures: Rc<RefCell<Closures>>) -> Self {
        self.closures = closures;
        self
    }

    /// The statics of the closures lowered so far (and, once lowering is done, all of them).
    pub fn closures(&self) -> Rc<RefCell<Closures>> {
        self.closures.clone()
    }

    /// Captures values by type alone (see [`Lowerer::generic`]), with the names of the type
    /// parameters in scope.
    pub fn generic(mut self, generic: bool, type_params: Vec<String>) -> Self {
        self.generic = generic;
        self.ir.generic |= generic;
        self.type_params = type_params;
        self
    }

    /// Notes that the function takes `&mut self` (or `mut self`).
    pub fn with_mut_self(mut self, mut_self: bool) -> Self {
        self.mut_self = mut_self;
        self
    }

    /// Lowers a closure, whose parameters may have no written type.
    pub fn for_closure(mut self) -> Self {
        self.closure = true;
        self
    }

    /// The autoref prefix that makes a probe pick the richest capture; none in generic code,
    /// where the probe's only method is the capture by type.
    /// The prefix has the value's span: an error about the capture points at the user's
    /// expression, not at the attribute.
    fn rich(&self, span: Span) -> TokenStream {
        if self.generic {
            TokenStream::new()
        } else {
            quote_spanned!(span=> &&&)
        }
    }

    /// The `macro_rules!` of the enclosing function a closure's body may call: their rules'
    /// variables are the closure's captures there (no binding sites of its own).
    pub(crate) fn with_local_macros(mut self, macros: Vec<LocalMacro>) -> Self {
        self.local_macros = macros
            .into_iter()
            .map(|m| LocalMacro {
                scope: 0,
                sites: Vec::new(),
                ..m
            })
            .collect();
        self
    }

    /// Sets the declared return type (`None` when it cannot be named, as for `impl Trait`).
    pub fn with_return_type(mut self, ty: Option<syn::Type>) -> Self {
        self.ret_ty = ty;
        self
    }

    /// Lowers a function (or closure) with the given parameters and body.
    ///
    /// Before:
    /// ```ignore
    /// fn f(x: f64) -> f64 { x.sin() + x }
    /// ```
    /// After (the instrumented copy; `expand` puts it behind the claim):
    /// ```ignore
    /// __irtrack.record_ref(0, &x, capture);                  // @1 [Arg:§1:%1]
    /// __irtrack.ret(3, __irtrack.record(2, x.sin() + ..., capture), capture)
    /// ```
    pub fn lower_fn(mut self, params: &[Pat], body: &Block) -> Result<LoweredFn, syn::Error> {
        self.mutable_names = scan::mutable_bindings(params, body);
        let mut prologue = TokenStream::new();
        for (k, pat) in params.iter().enumerate() {
            let typed = !self.closure
                || matches!(pat, Pat::Type(t) if !matches!(&*t.ty, syn::Type::Infer(_)));
            for ident in scan::pattern_bindings(pat) {
                let (id, op) =
                    self.ir
                        .define(1, Slot::Arg, Kind::Argument, ident.to_string(), vec![]);
                prologue.extend(self.record_param(id, k, &ident, typed));
                self.bind(ident, op);
            }
        }
        let body_tokens = self.block_contents(body, Tail::Return);
        let mut errors = self.errors.drain(..);
        if let Some(mut first) = errors.next() {
            for e in errors {
                first.combine(e);
            }
            return Err(first);
        }
        Ok(LoweredFn {
            ir: self.ir,
            body: quote! { #prologue #body_tokens },
            captures: self.capture_order.unwrap_or_default(),
        })
    }

    fn error(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(span, msg));
    }

    // ----- variables -----

    fn bind(&mut self, ident: syn::Ident, op: Operand) {
        let scope = self.scopes.last_mut().expect("a scope is always open");
        scope.push(Local {
            ident,
            op,
            uninit: false,
        });
    }

    /// Where the binding `name` refers to now is: its scope and position there.
    fn binding_site(&self, name: &str) -> Option<(usize, usize)> {
        self.scopes.iter().enumerate().rev().find_map(|(i, scope)| {
            let j = scope.iter().rposition(|l| l.ident == name)?;
            Some((i, j))
        })
    }

    /// The operand of the binding at `site` now, if it is still `name`'s.
    fn at_site(&self, name: &str, (i, j): (usize, usize)) -> Option<Operand> {
        let l = self.scopes.get(i)?.get(j)?;
        (l.ident == name).then(|| l.op.clone())
    }

    fn lookup(&self, name: &str) -> Option<&Local> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|l| l.ident == name)
    }

    fn lookup_mut(&mut self, name: &str) -> Option<&mut Local> {
        self.scopes
            .iter_mut()
            .rev()
            .flat_map(|s| s.iter_mut().rev())
            .find(|l| l.ident == name)
    }

    fn is_local(&self, name: &str) -> bool {
        self.lookup(name).is_some()
    }

    /// Sets the operand of variable `name` (an assignment or a block argument).
    fn set(&mut self, name: &str, op: Operand) {
        if let Some(l) = self.lookup_mut(name) {
            l.op = op;
            l.uninit = false;
        }
    }

    /// The variables among `names` that are in scope and initialised, in declaration order:
    /// the block arguments of a loop header.
    fn flowing(&self, names: &std::collections::BTreeSet<String>) -> Vec<syn::Ident> {
        self.in_scope(names, false)
    }

    /// The variables among `names` in scope, initialised or declared without a value (`let y;`):
    /// the candidate arguments of a merge block. One declared without a value becomes an
    /// argument only if every way into the merge block assigned it (see [`Lowerer::merge`]).
    fn flowing_or_deferred(&self, names: &std::collections::BTreeSet<String>) -> Vec<syn::Ident> {
        self.in_scope(names, true)
    }

    fn in_scope(
        &self,
        names: &std::collections::BTreeSet<String>,
        deferred: bool,
    ) -> Vec<syn::Ident> {
        let mut out: Vec<syn::Ident> = Vec::new();
        for scope in &self.scopes {
            for l in scope {
                if names.contains(&l.ident.to_string()) {
                    out.retain(|i| *i != l.ident);
                    if deferred || !l.uninit {
                        out.push(l.ident.clone());
                    }
                }
            }
        }
        out
    }

    /// Whether each of `vars` holds a value (was initialised on the path being lowered).
    fn initialised(&self, vars: &[syn::Ident]) -> Vec<bool> {
        vars.iter()
            .map(|v| self.lookup(&v.to_string()).is_some_and(|l| !l.uninit))
            .collect()
    }

    /// Marks `name` as holding no value (assigned on some ways into a merge, not on others).
    fn set_uninit(&mut self, name: &str) {
        if let Some(l) = self.lookup_mut(name) {
            l.op = Operand::None;
            l.uninit = true;
        }
    }

    /// Whether the innermost binding of `name` is in a scope from `depth` on while one in the
    /// first `depth` scopes has the name too.
    fn shadowed_below(&self, name: &str, depth: usize) -> bool {
        let depth = depth.min(self.scopes.len());
        let has = |s: &Vec<Local>| s.iter().any(|l| l.ident == name);
        self.scopes[depth..].iter().any(has) && self.scopes[..depth].iter().any(has)
    }

    /// The operands of `vars` as loop `k` carries them: the bindings visible where the loop
    /// began, not a `let` of the same name in its body (`loop { let mut x = 1; break; }`
    /// passes the outer `x` to the exit).
    fn ops_for_loop(&self, k: usize, vars: &[syn::Ident]) -> Vec<Operand> {
        let depth = self.loops[k].depth.min(self.scopes.len());
        vars.iter()
            .map(|v| {
                let name = v.to_string();
                self.scopes[..depth]
                    .iter()
                    .rev()
                    .flat_map(|s| s.iter().rev())
                    .find(|l| l.ident == name)
                    .map(|l| l.op.clone())
                    .unwrap_or(Operand::None)
            })
            .collect()
    }

    fn ops_of(&self, vars: &[syn::Ident]) -> Vec<Operand> {
        vars.iter()
            .map(|v| {
                self.lookup(&v.to_string())
                    .map(|l| l.op.clone())
                    .unwrap_or(Operand::None)
            })
            .collect()
    }

    /// A snapshot of every variable's operand and whether it is initialised, to restore between
    /// the arms of a branch.
    fn save(&self) -> Vec<Vec<(Operand, bool)>> {
        self.scopes
            .iter()
            .map(|s| s.iter().map(|l| (l.op.clone(), l.uninit)).collect())
            .collect()
    }

    fn restore(&mut self, saved: &[Vec<(Operand, bool)>]) {
        for (scope, ops) in self.scopes.iter_mut().zip(saved) {
            for (l, (op, uninit)) in scope.iter_mut().zip(ops) {
                l.op = op.clone();
                l.uninit = *uninit;
            }
        }
    }

    /// Lowers with `f` and undoes everything it did to the lowering, keeping what `f` returns:
    /// a loop or labelled block is lowered once to learn which variables declared without a
    /// value every way out of it initialises, before its exit block's arguments are numbered.
    fn dry_run<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let state = State {
            ir: self.ir.mark(),
            block: self.block,
            scopes: self.scopes.clone(),
            loops: self.loops.clone(),
            errors: self.errors.len(),
            statics: self.closures.borrow().statics.len(),
            closure_idents: self.closures.borrow().idents.len(),
            late: self.late,
            late_vars: self.late_vars.clone(),
        };
        let out = f(self);
        self.ir.rollback(&state.ir);
        self.block = state.block;
        self.scopes = state.scopes;
        self.loops = state.loops;
        self.errors.truncate(state.errors);
        let mut closures = self.closures.borrow_mut();
        closures.statics.truncate(state.statics);
        closures.idents.truncate(state.closure_idents);
        self.late = state.late;
        self.late_vars = state.late_vars;
        out
    }

    /// The variables in scope declared without a value that `body` assigns.
    fn deferred_in(&self, body: &Block) -> Vec<syn::Ident> {
        use syn::visit::Visit;
        let assigned = scan::assigned_names(|v| v.visit_block(body));
        self.in_scope(&assigned, true)
            .into_iter()
            .filter(|i| self.lookup(&i.to_string()).is_some_and(|l| l.uninit))
            .collect()
    }

    // ----- generated calls -----

    /// Records statement `id` with `value`, passed through:
    /// `(&&&__irtrack.at(5, value)).rec()` (the probe picks the richest capture).
    fn record(&self, id: EntryId, value: TokenStream, span: Span) -> TokenStream {
        let f = frame();
        let site = self.ir.site(id);
        let rich = self.rich(span);
        quote_spanned! {span=> (#rich #f.at(#site, #value)).rec() }
    }

    /// Records a value whose type may only be decided after this point: `Debug` first (see
    /// `LateProbe` in the runtime). Checked with the type the code around expects.
    fn record_late(&mut self, id: EntryId, value: TokenStream, span: Span) -> TokenStream {
        self.late_vars.insert(self.ir.var(id));
        let f = frame();
        let site = self.ir.site(id);
        let v = private_ident("v");
        let late = if self.generic {
            TokenStream::new()
        } else {
            quote_spanned!(span=> &&)
        };
        quote_spanned! {span=>
            #f.record(#site, #value, |#v| (#late ::irtrack::__private::LateProbe(#v)).__irtrack_capture())
        }
    }

    /// Records statement `id` with `value`, checked with the type the code around expects (so
    /// coercions inside it happen): for calls of paths and collection literals.
    fn record_expected(&self, id: EntryId, value: TokenStream, span: Span) -> TokenStream {
        let f = frame();
        let site = self.ir.site(id);
        let v = private_ident("v");
        let rich = self.rich(span);
        quote_spanned! {span=>
            #f.record(#site, #value, |#v| (#rich ::irtrack::__private::Probe(#v)).__irtrack_capture())
        }
    }

    /// Records statement `id` from a reference to a place: `(&&&__irtrack.peek(5, &p)).rec();`
    fn record_ref(&self, id: EntryId, place: &TokenStream) -> TokenStream {
        let f = frame();
        let site = self.ir.site(id);
        let span = place.span();
        let rich = self.rich(span);
        quote_spanned! {span=> (#rich #f.peek(#site, &#place)).rec(); }
    }

    /// Records parameter number `k`, bound to `ident` by argument entry `id`.
    /// A parameter's type is written in the signature (a function's, or a closure parameter
    /// with its type), so its capture can be the richest one even in generic code.
    fn record_param(&self, id: EntryId, k: usize, ident: &syn::Ident, typed: bool) -> TokenStream {
        let f = frame();
        let site = self.ir.site(id);
        let k = proc_macro2::Literal::usize_unsuffixed(k);
        let rich = if typed {
            quote_spanned!(ident.span()=> &&&)
        } else {
            self.rich(ident.span())
        };
        quote_spanned! {ident.span()=> (#rich #f.param(#site, #k, &#ident)).rec(); }
    }

    fn jump(&self, id: EntryId) -> TokenStream {
        let f = frame();
        let site = self.ir.site(id);
        quote! { #f.jump(#site); }
    }

    /// A jump passing `vars` (and a value), and the target block's argument nodes recorded
    /// right after it: the arguments belong to the block the jump enters. An argument takes
    /// the value of the node the jump passed, so the variable is read only when the jump
    /// passed a literal (always `Copy`): a variable moved before the jump stays untouched.
    fn jump_with_args(
        &self,
        id: EntryId,
        args: &[(syn::Ident, EntryId)],
        value: Option<(EntryId, &TokenStream)>,
    ) -> TokenStream {
        self.jump_with_args_in(id, args, value, None)
    }

    /// [`Lowerer::jump_with_args`] for a jump of a loop whose carried variables were bound in
    /// the first `depth` scopes: a `let` of the same name in the body shadows one where the
    /// jump is, and the value the jump passes for it is its operand, not what the name reads.
    fn jump_with_args_in(
        &self,
        id: EntryId,
        args: &[(syn::Ident, EntryId)],
        value: Option<(EntryId, &TokenStream)>,
        depth: Option<usize>,
    ) -> TokenStream {
        let f = frame();
        let passed = &self.ir.entries[id.index()].operands;
        let literal = |n: usize| matches!(passed.get(n), Some(Operand::Const(_)));
        // The arguments that take the value of a node, up to the first literal, are recorded
        // by the jump's own call.
        let nodes = (0..args.len()).take_while(|&n| !literal(n)).count();
        let mut out = if nodes == 0 {
            self.jump(id)
        } else {
            let site = self.ir.site(id);
            let vars = args[..nodes]
                .iter()
                .map(|(_, arg)| crate::ir::num(self.ir.var(*arg)));
            quote! { #f.jump_args(#site, &[#(#vars),*]); }
        };
        for (n, (ident, arg)) in args.iter().enumerate().skip(nodes) {
            let site = self.ir.site(*arg);
            if literal(n) {
                let rich = self.rich(ident.span());
                // The name may be shadowed where the jump is (a loop's variable, and a `let` of
                // the same name in its body): the value passed is the literal the jump's
                // operand is, not what the name reads here.
                let shadowed = depth.is_some_and(|d| self.shadowed_below(&ident.to_string(), d));
                let value = match (shadowed, passed.get(n)) {
                    (true, Some(Operand::Const(text))) => syn::parse_str::<Expr>(text)
                        .map_or_else(|_| quote!(#ident), |e| quote!((#e))),
                    _ => quote!(#ident),
                };
                out.extend(
                    quote_spanned! {ident.span()=> (#rich #f.block_value(#site, &#value)).rec(); },
                );
            } else {
                let n = proc_macro2::Literal::usize_unsuffixed(n);
                out.extend(quote! { #f.block_arg(#site, #n); })
            }
        }
        if let Some((arg, v)) = value {
            let site = self.ir.site(arg);
            if matches!(passed.get(args.len()), Some(Operand::Var(_))) {
                // The value is a node's: the argument takes that node's value, as the other
                // arguments do (after an untracked mutation, `v.push(x)`, the node and a fresh
                // read would disagree, and the trace would not verify).
                let n = proc_macro2::Literal::usize_unsuffixed(args.len());
                out.extend(quote! { #f.block_arg(#site, #n); });
            } else if self.late_vars.contains(&self.ir.var(arg)) && !self.generic {
                // `Debug` first: an `Ok(…)` merged before its error type is known must not
                // commit to a clone of it.
                out.extend(quote! { (&&#f.late_block_value(#site, &#v)).rec(); });
            } else {
                let rich = self.rich(Span::call_site());
                out.extend(quote! { (#rich #f.block_value(#site, &#v)).rec(); });
            }
        }
        out
    }

    /// Defines the arguments of `block` for `vars`; returns their entries and sets the
    /// variables' operands to them.
    fn block_args(&mut self, block: u32, vars: &[syn::Ident]) -> Vec<(syn::Ident, EntryId)> {
        let mut out = Vec::new();
        for v in vars {
            let (id, op) = self
                .ir
                .define(block, Slot::Arg, Kind::Argument, v.to_string(), vec![]);
            self.set(&v.to_string(), op);
            out.push((v.clone(), id));
        }
        out
    }

    // ----- blocks and statements -----

    /// Lowers the statements of `block` in a new scope, without the braces.
    fn block_contents(&mut self, block: &Block, tail: Tail) -> TokenStream {
        self.block_inner(block, tail).0
    }

    /// Lowers `block`; returns its tokens (without braces) and its value's operand.
    fn block_inner(&mut self, block: &Block, tail: Tail) -> (TokenStream, Operand) {
        self.scopes.push(Vec::new());
        let mut out = TokenStream::new();
        let mut value = Operand::Const("()".into());
        let n = block.stmts.len();
        let mut ended = false;
        for (i, stmt) in block.stmts.iter().enumerate() {
            let last = i + 1 == n;
            match stmt {
                Stmt::Expr(e, None) if last => {
                    match tail {
                        Tail::Return => out.extend(self.tail_return(e)),
                        // A discarded value needs no merge argument (and a diverging one must
                        // not get one: its type would be `!`).
                        Tail::Discard => out.extend(self.expr_stmt(e)),
                        Tail::Value => {
                            let l = self.expr(e, Ctx::Value);
                            out.extend(l.tokens);
                            value = l.op;
                        }
                    }
                    ended = true;
                }
                _ => {
                    out.extend(self.stmt(stmt));
                    if last && scan::block_diverges(block) {
                        ended = true;
                    }
                }
            }
        }
        if tail == Tail::Return && !ended {
            out.extend(self.ret(&quote!(()), Operand::Const("()".into()), block.span()));
        }
        self.scopes.pop();
        // A `macro_rules!` is visible in its block only: an outer one of the same name is the
        // one called after it (an inner block's was taken, reading its variables).
        let depth = self.scopes.len();
        self.local_macros.retain(|m| m.scope < depth);
        (out, value)
    }

    /// The function's result: lowered in return position, so `if`/`match`/blocks return from
    /// each arm instead of merging first.
    fn tail_return(&mut self, e: &Expr) -> TokenStream {
        match e {
            Expr::If(i) => self.if_expr(i, Tail::Return).tokens,
            Expr::Match(m) => self.match_expr(m, Tail::Return).tokens,
            Expr::Block(b) if b.label.is_none() => {
                let inner = self.block_contents(&b.block, Tail::Return);
                quote!({ #inner })
            }
            Expr::Unsafe(u) => {
                let inner = self.block_contents(&u.block, Tail::Return);
                quote!(unsafe { #inner })
            }
            Expr::Paren(p) => self.tail_return(&p.expr),
            _ if scan::expr_diverges(e) => self.expr(e, Ctx::Value).tokens,
            _ => {
                let l = self.expr(e, Ctx::Value);
                self.ret(&l.tokens, l.op, e.span())
            }
        }
    }

    /// Records a return of `value` (with operand `op`) and passes the value through; the
    /// declared return type, when it can be named, types the probe (an `Ok(x)` learns its
    /// error type from it before it is captured).
    fn ret(&mut self, value: &TokenStream, op: Operand, span: Span) -> TokenStream {
        let id = self
            .ir
            .branch(self.block, Kind::Return, 0, vec![op], Operand::None, "");
        self.ret_probe(id, value, span)
    }

    fn ret_probe(&self, id: EntryId, value: &TokenStream, span: Span) -> TokenStream {
        let f = frame();
        let site = self.ir.site(id);
        // A projection (`F::Int`) in generic code may not be normalised where the probe is
        // resolved: the return is captured by type, like other values there.
        let projection = self.generic
            && self
                .ret_ty
                .as_ref()
                .is_some_and(|ty| scan::mentions_projection(ty, &self.type_params));
        let turbofish = self.ret_ty.as_ref().map(|ty| quote!(::<#ty>));
        let rich = if projection || (self.generic && self.ret_ty.is_none()) {
            TokenStream::new()
        } else {
            quote_spanned!(span=> &&&)
        };
        quote_spanned! {span=> (#rich #f.ret #turbofish (#site, #value)).rec() }
    }

    fn stmt(&mut self, stmt: &Stmt) -> TokenStream {
        match stmt {
            Stmt::Local(local) => self.local(local),
            // Items of the function's own block were hoisted by `expand`; an item in an inner
            // block stays there, in both copies (a `static` in an inner block is rejected).
            Stmt::Item(item) => {
                if let syn::Item::Macro(m) = item {
                    if let Some(name) = &m.ident {
                        let rules = scan::without_metavariables(&m.mac.tokens);
                        let sites = scan::macro_mentions(&rules, &|n| self.is_local(n))
                            .into_iter()
                            .filter_map(|n| {
                                let (i, j) = self.binding_site(&n)?;
                                Some((n, i, j))
                            })
                            .collect();
                        self.local_macros.push(LocalMacro {
                            name: name.to_string(),
                            scope: self.scopes.len().saturating_sub(1),
                            rules,
                            sites,
                        });
                    }
                }
                quote!(#item)
            }
            Stmt::Expr(e, Some(semi)) if !self.mut_borrowed_locals(e).is_empty() => {
                self.call_statement_with_mut_locals(e, semi)
            }
            Stmt::Expr(Expr::Macro(m), semi) if Assertion::parse(&m.mac).is_some() => {
                let tokens = self.assertion(&m.mac);
                quote!(#tokens #semi)
            }
            Stmt::Expr(e, semi) => {
                let l = self.expr_stmt(e);
                quote!(#l #semi)
            }
            Stmt::Macro(m) if Assertion::parse(&m.mac).is_some() => {
                let tokens = self.assertion(&m.mac);
                let semi = &m.semi_token;
                quote!(#tokens #semi)
            }
            Stmt::Macro(m) => {
                // A statement macro may expand to statements (`let`s, items): keep it as a
                // statement and record its special node after it.
                let (mac, sites) = self.with_definitions(&m.mac);
                let (versions, lent) = self.macro_writes(&mac);
                let mut ops = self.mentioned_operands(&mac, &m.mac, &sites);
                let (reads, captured) = self.macro_capture_reads(&mac);
                ops.extend(captured);
                let head = format!("{}!", text::text(&m.mac.path));
                let (id, _) = self
                    .ir
                    .define(self.block, Slot::Var, Kind::Special, head, ops);
                for k in lent {
                    self.ir.borrow_mut(id, k);
                }
                let rec = self.record_ref(id, &quote!(()));
                quote!(#versions #reads #m #rec)
            }
        }
    }

    /// `assert!(c, …)`, `assert_eq!(a, b, …)` and their `debug_` and `_ne` forms: the condition
    /// is recorded (`%c = %a == %b`) and a match guard's node of it (`$(guard)(%c)`), which
    /// replay, `update` and gradients check like a branch's condition: where it would fail, the
    /// function panics and has no value, so a program must not give one. `None` for another
    /// macro as written, for an assertion whose arguments do not parse as expressions.
    fn assertion(&mut self, mac: &syn::Macro) -> TokenStream {
        let Some(Assertion {
            debug,
            kind,
            args,
            rest,
        }) = Assertion::parse(mac)
        else {
            return quote!(#mac);
        };
        let arity = args.len();
        let span = mac.span();
        let rest = quote!(#(, #rest)*);
        let ok = private_ident("ok");
        let path = &mac.path;
        let body = if arity == 1 {
            let c = self.expr(&args[0], Ctx::Value);
            let (ct, cop) = (c.tokens, c.op);
            let g = self.special("guard".into(), vec![cop], ct, span).tokens;
            quote!({
                let #ok: bool = #g;
                #path!(#ok #rest)
            })
        } else {
            let (l, r) = (private_ident("left"), private_ident("right"));
            let a = self.expr(&args[0], Ctx::Value);
            let b = self.expr(&args[1], Ctx::Value);
            let (at, bt) = (a.tokens, b.tokens);
            let symbol = if kind == "assert_eq" { "==" } else { "!=" };
            let (id, cop) = self.ir.define(
                self.block,
                Slot::Var,
                Kind::Operator,
                symbol,
                vec![a.op, b.op],
            );
            let compare = if kind == "assert_eq" {
                quote!(*#l == *#r)
            } else {
                quote!(*#l != *#r)
            };
            let c = self.record(id, compare, span);
            let g = self.special("guard".into(), vec![cop], c, span).tokens;
            quote!(match (&(#at), &(#bt)) {
                (#l, #r) => {
                    let _: bool = #g;
                    #path!(*#l, *#r #rest)
                }
            })
        };
        if debug {
            quote!(if ::core::cfg!(debug_assertions) { #body })
        } else {
            body
        }
    }

    /// The local variables a call statement passes by `&mut` (`set(&mut k)`,
    /// `rng.fill(&mut buf)`), in order, once each.
    fn mut_borrowed_locals(&self, e: &Expr) -> Vec<syn::Ident> {
        let mut out: Vec<syn::Ident> = Vec::new();
        let args = match e {
            Expr::Call(c) => &c.args,
            Expr::MethodCall(m) => {
                // The receiver of a standard container's mutating method (`xs.push(x);`): the
                // macro cannot see a method's `self`, so only these names, whose `self` is
                // `&mut self` on every std type, give the receiver a new version.
                if let Expr::Path(p) = &*m.receiver {
                    if let Some(ident) = p.path.get_ident().filter(|_| p.qself.is_none()) {
                        if self.is_local(&ident.to_string())
                            && is_std_mutating_method(&m.method.to_string())
                        {
                            out.push(ident.clone());
                        }
                    }
                }
                &m.args
            }
            _ => return Vec::new(),
        };
        for a in args {
            let Expr::Reference(r) = a else { continue };
            if r.mutability.is_none() {
                continue;
            }
            let Expr::Path(p) = &*r.expr else { continue };
            let Some(ident) = p.path.get_ident().filter(|_| p.qself.is_none()) else {
                continue;
            };
            if self.is_local(&ident.to_string()) && !out.contains(ident) {
                out.push(ident.clone());
            }
        }
        out
    }

    /// A new version of the local `ident` after something that may have changed it in place:
    /// a special node `&mut ident` whose operands are the old version and then `what` (the
    /// call or macro, and what it used), recording the variable's value then. Later reads
    /// refer to it.
    pub(super) fn new_version(&mut self, ident: &syn::Ident, what: Vec<Operand>) -> TokenStream {
        let name = ident.to_string();
        let old = self
            .lookup(&name)
            .map(|l| l.op.clone())
            .unwrap_or(Operand::None);
        let mut ops = vec![old];
        ops.extend(what);
        let (id, op) = self.ir.define(
            self.block,
            Slot::Var,
            Kind::Special,
            format!("&mut {name}"),
            ops,
        );
        let rec = self.record_ref(id, &ident.to_token_stream());
        self.set(&name, op);
        rec
    }

    /// `set(&mut k);`: the call may change `k`, so `k` gets a new version after it, a special
    /// node `&mut k` whose operands are the old version and the call and whose value is `k`'s
    /// value then; later reads refer to it, not to the stale old version. Only for a call in
    /// statement position: its value is dropped at the `;`, so no borrow of `k` it returned
    /// outlives it and `k` can be read.
    ///
    /// Before: `set(&mut k);`
    /// After:  `<the recorded call>; (&&&__irtrack.peek(9, &k)).rec();`
    fn call_statement_with_mut_locals(&mut self, e: &Expr, semi: &syn::Token![;]) -> TokenStream {
        let names = self.mut_borrowed_locals(e);
        let before = self.versioned_after.len();
        self.versioned_after
            .extend(names.iter().map(|i| i.to_string()));
        let call = self.expr(e, Ctx::Value);
        self.versioned_after.truncate(before);
        let tokens = call.tokens;
        let mut rec = TokenStream::new();
        for ident in names {
            rec.extend(self.new_version(&ident, vec![call.op.clone()]));
        }
        quote!(#tokens #semi #rec)
    }

    /// An expression statement: a control-flow expression discards its value, so it needs no
    /// merge argument for it.
    fn expr_stmt(&mut self, e: &Expr) -> TokenStream {
        match e {
            Expr::If(i) => self.if_expr(i, Tail::Discard).tokens,
            Expr::Match(m) => self.match_expr(m, Tail::Discard).tokens,
            Expr::Block(b) if b.label.is_none() => {
                let inner = self.block_contents(&b.block, Tail::Discard);
                quote!({ #inner })
            }
            Expr::Block(b) => self.labelled_block(b, Tail::Discard).tokens,
            _ => self.expr(e, Ctx::Value).tokens,
        }
    }

    /// `let PAT (: T) = init (else { … });`
    ///
    /// Before: `let (q, r) = divmod(a, b);`
    /// After:  `let (q, r) = <init>; __irtrack.record_ref(7, &q, …); __irtrack.record_ref(8, &r, …);`
    /// A single identifier takes the initialiser's operand and records nothing.
    fn local(&mut self, local: &syn::Local) -> TokenStream {
        let Some(init) = &local.init else {
            return self.local_inner(local);
        };
        // `let ref mut r = a;` of a variable bound to a literal: a node for it first, so that a
        // write through `r` has one to change.
        if scan::binds_ref_mut(&local.pat) {
            if let Some(name) = expr::local_ident(&init.expr) {
                let version = self.materialize(&name);
                if !version.is_empty() {
                    let rest = self.local_after_checks(local, init);
                    return quote!(#version #rest);
                }
            }
        }
        self.local_after_checks(local, init)
    }

    fn local_after_checks(&mut self, local: &syn::Local, init: &syn::LocalInit) -> TokenStream {
        // The names bound to a `&mut` (`let r = &mut y;`, `let (r, s) = (&mut a, &mut b);`):
        // passed to a call, they lend what they borrow (`Lowerer::passes_mut_borrow`).
        let lends = holds_mut_borrow(&init.expr);
        for ident in scan::pattern_bindings(&local.pat) {
            let name = ident.to_string();
            match lends {
                true => self.mut_refs.insert(name),
                false => self.mut_refs.remove(&name),
            };
        }
        // `let s = &v.as_slice()[1..];` extends the temporaries of the place it borrows to the
        // end of the block; read through a reference (`peek(…, &place)`), a temporary base would
        // die with the statement. So the base goes to a hidden local first, and the place is
        // read through a reference from there. Other borrows the `let` extends (inside a
        // tuple, a block's tail, …) cannot be moved out of order: they are left as written.
        let (top, others) = scan::extending_borrows(&init.expr);
        self.unextended.extend(others);
        self.hoist = top.map(|base| (base as *const Expr, private_ident("__irtrack_base")));
        let out = self.local_inner(local);
        self.hoist = None;
        let before = self.hoisted.take().map(|(ident, base)| {
            let attrs = &local.attrs;
            quote!(#(#attrs)* let #ident = #base;)
        });
        quote!(#before #out)
    }

    fn local_inner(&mut self, local: &syn::Local) -> TokenStream {
        let attrs = &local.attrs;
        let pat = &local.pat;
        let Some(init) = &local.init else {
            for ident in scan::pattern_bindings(pat) {
                let scope = self.scopes.last_mut().expect("scope");
                scope.push(Local {
                    ident,
                    op: Operand::None,
                    uninit: true,
                });
            }
            return quote!(#(#attrs)* let #pat;);
        };
        self.value_type = match (pat, expr::unparen(&init.expr)) {
            (Pat::Type(t), Expr::If(_) | Expr::Match(_)) => Some((*t.ty).clone()),
            _ => None,
        };
        let value = self.expr(&init.expr, Ctx::Value);
        self.value_type = None;
        let init_tokens = value.tokens;
        if let Some((_, diverge)) = &init.diverge {
            // `let … else`: the else block runs when the pattern does not match, and diverges.
            let saved = self.save();
            let matched = self.ir.new_block();
            let otherwise = self.ir.new_block();
            let pat_text = text::text(&strip_type(pat));
            let j_match = self.ir.branch(
                self.block,
                Kind::JumpIfMatches,
                matched,
                vec![],
                value.op.clone(),
                pat_text,
            );
            let j_else =
                self.ir
                    .branch(self.block, Kind::Jump, otherwise, vec![], Operand::None, "");
            self.block = otherwise;
            let j = self.jump(j_else);
            let body = self.expr(diverge, Ctx::Value).tokens;
            let else_tokens = quote!(else { #j #body });
            self.restore(&saved);
            self.block = matched;
            let jm = self.jump(j_match);
            let bindings = scan::pattern_bindings(pat);
            let mut rec = TokenStream::new();
            for ident in bindings {
                let (id, op) = self.ir.define(
                    self.block,
                    Slot::Var,
                    Kind::Special,
                    format!("bind {ident}"),
                    vec![value.op.clone()],
                );
                self.note_bind_path(id, pat, &ident);
                rec.extend(self.record_ref(id, &ident.to_token_stream()));
                self.bind(ident, op);
            }
            let after = cfg_gated(attrs, quote!(#jm #rec));
            return quote!(#(#attrs)* let #pat = #init_tokens #else_tokens; #after);
        }
        let plain_ident = match strip_type(pat) {
            Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => Some(p.ident.clone()),
            _ => None,
        };
        if let Some(ident) = plain_ident {
            // A closure bound by `let` is registered, so that calling it claims; one that
            // captures variables it links its uses of is made by a node `$(closure)` whose
            // operands are those variables, so that a captured value's uses in a call of it
            // reach the node the enclosing function had for it.
            let stat = self.closure_static(&init.expr);
            let captures = stat
                .as_ref()
                .and_then(|_| self.closure_captures(&init.expr))
                .filter(|c| !c.is_empty());
            let f = frame();
            // The reads of what the closure captured from an enclosing closure are recorded
            // before the `let`, which may move them into the closure (`move || s.len()`).
            let (reads, register, op) = match (stat, captures) {
                (Some(stat), Some(captures)) => {
                    let (id, op, reads) = self.closure_node(&captures);
                    let site = self.ir.site(id);
                    (
                        reads,
                        Some(quote!(#f.closure_made(#site, &#ident, &#stat);)),
                        op,
                    )
                }
                (Some(stat), None) => (
                    TokenStream::new(),
                    Some(quote!(#f.closure(&#ident, &#stat);)),
                    value.op,
                ),
                (None, _) => (TokenStream::new(), None, value.op),
            };
            self.bind(ident.clone(), op);
            let before = cfg_gated(attrs, reads);
            let after = cfg_gated(attrs, quote!(#register));
            return quote!(#before #(#attrs)* let #pat = #init_tokens; #after);
        }
        let mut rec = TokenStream::new();
        for ident in scan::pattern_bindings(pat) {
            let (id, op) = self.ir.define(
                self.block,
                Slot::Var,
                Kind::Special,
                format!("bind {ident}"),
                vec![value.op.clone()],
            );
            self.note_bind_path(id, pat, &ident);
            rec.extend(self.record_ref(id, &ident.to_token_stream()));
            self.bind(ident, op);
        }
        let after = cfg_gated(attrs, rec);
        quote!(#(#attrs)* let #pat = #init_tokens; #after)
    }

    /// Defines the entry `$(closure)` whose operands are the variables `captures` a closure
    /// captured (those its uses link to), and the tokens that record, before it, a read of
    /// each that is itself a capture of the closure being lowered (a closure written inside a
    /// closure, `|p| (0..4).map(|k| x).sum()` with `x` the outer one's capture): as an operand
    /// of no node, the inner closure's use of `x` was no use at all, and a gradient through the
    /// `sum` gave 0 for 4 (the random-program tester, seed 70). Such a read is a capture node
    /// like any use of `x` in the closure, which gradients follow or refuse.
    fn closure_node(&mut self, captures: &[String]) -> (EntryId, Operand, TokenStream) {
        let mut reads = TokenStream::new();
        let mut ops = Vec::with_capacity(captures.len());
        for name in captures {
            let op = match self.lookup(name) {
                Some(l) => l.op.clone(),
                None => match self.capture_read(name) {
                    Some((tokens, op)) => {
                        reads.extend(tokens);
                        op
                    }
                    None => Operand::None,
                },
            };
            ops.push(op);
        }
        let (id, op) = self
            .ir
            .define(self.block, Slot::Var, Kind::Special, "closure", ops);
        (id, op, reads)
    }

    /// The closure expression `e` is (through parentheses), by its address in the syntax tree.
    fn closure_key(e: &Expr) -> Option<*const syn::ExprClosure> {
        match e {
            Expr::Closure(c) => Some(c as *const syn::ExprClosure),
            Expr::Paren(p) => Self::closure_key(&p.expr),
            _ => None,
        }
    }

    /// The static of the closure `e` is, if it is a closure lowered here.
    fn closure_static(&self, e: &Expr) -> Option<syn::Ident> {
        let key = Self::closure_key(e)?;
        let all = self.closures.borrow();
        all.idents
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, i)| i.clone())
    }

    /// The captures whose uses link of the closure `e` is, if it is a closure lowered here.
    fn closure_captures(&self, e: &Expr) -> Option<Vec<String>> {
        let key = Self::closure_key(e)?;
        let all = self.closures.borrow();
        all.captures
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, c)| c.clone())
    }

    /// The closures written as arguments of a call: their positions and statics.
    fn closure_arguments(
        &self,
        args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
    ) -> Vec<(usize, syn::Ident)> {
        args.iter()
            .enumerate()
            .filter_map(|(k, a)| self.closure_static(a).map(|s| (k, s)))
            .collect()
    }

    /// Notes, for the binding `id` of `ident` in `pat`, which part of a tuple it binds
    /// (`FnIr::bind_path`), when it binds one.
    fn note_bind_path(&mut self, id: EntryId, pat: &Pat, ident: &syn::Ident) {
        if let Some(path) = scan::binding_path(pat, ident).filter(|p| !p.is_empty()) {
            self.ir.bind_path(id, path);
        }
    }

    /// Records one `bind x` node per variable a pattern bound from `scrutinee`; `matches_whole`:
    /// the pattern is matched against the scrutinee itself (not a `for` loop's pattern, which
    /// matches what `Some` holds in the `next()` it binds from), so a tuple pattern's paths
    /// are the scrutinee's parts.
    fn bind_pattern(&mut self, pat: &Pat, scrutinee: &Operand, matches_whole: bool) -> TokenStream {
        let mut rec = TokenStream::new();
        for ident in scan::pattern_bindings(pat) {
            let (id, op) = self.ir.define(
                self.block,
                Slot::Var,
                Kind::Special,
                format!("bind {ident}"),
                vec![scrutinee.clone()],
            );
            if matches_whole {
                self.note_bind_path(id, pat, &ident);
            }
            rec.extend(self.record_ref(id, &ident.to_token_stream()));
            self.bind(ident, op);
        }
        rec
    }
}

/// An assertion macro's parts (see `Lowerer::assertion`).
struct Assertion {
    /// `debug_assert…!`.
    debug: bool,
    /// `assert`, `assert_eq` or `assert_ne`.
    kind: String,
    /// The condition, or the two compared values.
    args: Vec<Expr>,
    /// The message and its arguments.
    rest: Vec<Expr>,
}

impl Assertion {
    fn parse(mac: &syn::Macro) -> Option<Assertion> {
        use syn::parse::Parser;
        let name = mac.path.get_ident()?.to_string();
        let (debug, kind) = match name.strip_prefix("debug_") {
            Some(rest) => (true, rest.to_string()),
            None => (false, name.clone()),
        };
        let arity = match kind.as_str() {
            "assert" => 1,
            "assert_eq" | "assert_ne" => 2,
            _ => return None,
        };
        let parsed = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated
            .parse2(mac.tokens.clone())
            .ok()?;
        let mut args: Vec<Expr> = parsed.into_iter().collect();
        if args.len() < arity {
            return None;
        }
        let rest = args.split_off(arity);
        Some(Assertion {
            debug,
            kind,
            args,
            rest,
        })
    }
}

fn strip_type(pat: &Pat) -> Pat {
    match pat {
        Pat::Type(t) => (*t.pat).clone(),
        other => other.clone(),
    }
}

/// `tokens` under the `#[cfg]` attributes among `attrs`, as a block, so that what records a
/// `let`'s bindings goes where the `let` goes. Their `cfg`s are resolved before lowering
/// (`crate::cfg`), except inside macro arguments the lowering parses (`vec![…]`), where a
/// `#[cfg(any())] let (a, b) = …;` left its recording behind, naming `a` and `b` that no longer
/// existed (the differential tester, seed 3, unit 784).
fn cfg_gated(attrs: &[syn::Attribute], tokens: TokenStream) -> TokenStream {
    let cfgs: Vec<&syn::Attribute> = attrs.iter().filter(|a| a.path().is_ident("cfg")).collect();
    if cfgs.is_empty() || tokens.is_empty() {
        return tokens;
    }
    quote!(#(#cfgs)* { #tokens })
}

/// Methods that take `&mut self` on every standard collection that has them, and whose
/// receiver is still there after the call (not a consuming `into_*`).
/// Methods of std's containers, iterators' sources, `Option` and ndarray's arrays that read
/// their receiver (`&self` or by value on a `Copy` type), called so often on `mut` bindings
/// that taking them for writes (`Lowerer::may_write_receiver`) would refuse ordinary code. A
/// user's `&mut self` method of one of these names on a `mut` binding is not seen as a write.
pub(super) fn is_std_reading_method(name: &str) -> bool {
    matches!(
        name,
        "len"
            | "is_empty"
            | "iter"
            | "clone"
            | "to_vec"
            | "to_owned"
            | "to_string"
            | "capacity"
            | "as_slice"
            | "as_ref"
            | "first"
            | "last"
            | "contains"
            | "starts_with"
            | "ends_with"
            | "windows"
            | "chunks"
            | "keys"
            | "values"
            | "is_some"
            | "is_none"
            | "is_ok"
            | "is_err"
            | "unwrap"
            | "expect"
            | "unwrap_or"
            | "copied"
            | "cloned"
            | "as_str"
            | "chars"
            | "dot"
            | "sum"
            | "mean"
            | "t"
            | "view"
            | "shape"
            | "dim"
            | "ndim"
            | "mapv"
            | "map"
            | "fold"
            | "into_iter"
            | "clamp"
            | "abs_diff"
            | "pow"
            | "count_ones"
            | "eq"
            | "ne"
            | "partial_cmp"
            | "cmp"
            | "lt"
            | "le"
            | "gt"
            | "ge"
            | "fmt"
            | "get"
            | "contains_key"
            | "total_cmp"
            | "rem_euclid"
            | "div_euclid"
            | "sin_cos"
            | "unwrap_or_else"
            | "unwrap_or_default"
            | "split_at"
            | "product"
            | "var"
            | "std"
            | "slice"
            | "nrows"
            | "ncols"
            | "len_of"
            | "saturating_sub"
            | "saturating_add"
            | "checked_add"
            | "checked_sub"
            | "checked_mul"
            | "checked_div"
            | "wrapping_add"
            | "wrapping_sub"
            | "wrapping_mul"
            | "to_degrees"
            | "to_radians"
            | "is_finite"
            | "is_nan"
            | "to_bits"
            | "trim"
            | "as_bytes"
    )
}

/// Whether a method of this name may take `&mut self` and change its receiver, as far as
/// its name tells: not one of std's reading methods nor an iterator's step.
pub(super) fn method_may_write(name: &str) -> bool {
    !is_std_reading_method(name) && !is_iterator_step(name)
}

/// An iterator's steps (`it.next()`): they change the iterator, but the runtime follows
/// what each step read (the element of the collection behind it), and a write would be taken
/// back through `it`'s source to the collection iterated over, which a step does not change.
pub(super) fn is_iterator_step(name: &str) -> bool {
    matches!(name, "next" | "nth" | "next_back" | "nth_back" | "peek")
}

pub(super) fn is_std_mutating_method(name: &str) -> bool {
    matches!(
        name,
        "push"
            | "push_back"
            | "push_front"
            | "push_str"
            | "insert"
            | "extend"
            | "extend_from_slice"
            | "append"
            | "clear"
            | "truncate"
            | "resize"
            | "retain"
            | "sort"
            | "sort_by"
            | "sort_by_key"
            | "sort_unstable"
            | "sort_unstable_by"
            | "sort_unstable_by_key"
            | "reverse"
            | "swap"
            | "fill"
            | "dedup"
            | "rotate_left"
            | "rotate_right"
            | "pop"
            | "pop_back"
            | "pop_front"
            | "remove"
            | "swap_remove"
            // Value-returning ones too: what they leave behind is not the vector recorded
            // (`q.drain(..1)` then a loop over `q` gave each slope to the element before).
            | "drain"
            | "split_off"
            | "splice"
            | "insert_str"
            | "extend_from_within"
            | "dedup_by"
            | "dedup_by_key"
            | "retain_mut"
            | "resize_with"
            | "fill_with"
            | "copy_from_slice"
            | "clone_from_slice"
            | "copy_within"
            | "sort_by_cached_key"
            | "select_nth_unstable"
            | "select_nth_unstable_by"
            | "select_nth_unstable_by_key"
    )
}

/// Whether std's method `name` may change its receiver behind a `&self`: `Cell`, `RefCell`,
/// `OnceCell`, atomics and locks (`c.replace(x)` then `c.get()`; the writes a guard or a
/// `RefMut` makes go to the receiver's memory). The receiver is noted as lent by `&mut`
/// (`Lowerer::may_write_receiver`), which adds no code after the call (a user's method of
/// that name may take `self` by value). Names common in users' APIs that only read (`set` and
/// `store` of a builder, `write`) are left out: `Cell::set` and `AtomicU64::store` give `()`,
/// a write already (`core::writes`).
pub(super) fn is_interior_mutating_method(name: &str) -> bool {
    matches!(
        name,
        "replace"
            | "take"
            | "get_or_init"
            | "borrow_mut"
            | "try_borrow_mut"
            | "lock"
            | "try_lock"
            | "fetch_add"
            | "fetch_sub"
            | "fetch_and"
            | "fetch_nand"
            | "fetch_or"
            | "fetch_xor"
            | "fetch_max"
            | "fetch_min"
            | "fetch_update"
            | "compare_exchange"
            | "compare_exchange_weak"
    )
}
