//! Building the IR while lowering. The entries are the runtime's own [`Entry`] type (one
//! definition of the IR for the macro and the runtime); the finished function is checked by
//! [`FnIr::new`] and emitted as its encoded text, which the runtime decodes once.

use irtrack_runtime::core::ir::{Entry, FnIr, Location};
pub use irtrack_runtime::core::ir::{EntryKind as Kind, Operand};
use proc_macro2::TokenStream;
use quote::quote;

/// Which kind of slot an entry defines; its number is assigned by the builder.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Slot {
    Var,
    Arg,
    Const,
}

/// Index of an entry in [`IrBuilder::entries`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EntryId(u32);

impl EntryId {
    pub fn index(self) -> usize {
        self.0 as usize
    }

    pub fn from_index(i: usize) -> EntryId {
        EntryId(i as u32)
    }
}

/// A point of an [`IrBuilder`] to go back to.
pub struct IrMark {
    entries: usize,
    var_count: u32,
    block_count: u32,
    notes: [usize; 6],
}

#[derive(Debug)]
pub struct IrBuilder {
    pub entries: Vec<Entry>,
    pub var_count: u32,
    pub block_count: u32,
    /// The function has type parameters (its own or its impl's), or is a closure whose
    /// enclosing code is unknown: see [`FnIr::is_generic`].
    pub generic: bool,
    /// The (entry, operand) pairs passed by `&mut`: see [`FnIr::borrows_mut`].
    pub mut_borrows: Vec<(usize, usize)>,
    /// The pattern bindings that bind a part of a tuple, with its path: see
    /// [`FnIr::bind_path`].
    pub bind_paths: Vec<(usize, String)>,
    /// Struct literals' fields' names in operand order: see [`FnIr::struct_fields`].
    pub struct_fields: Vec<(usize, String)>,
    /// A closure's constant entries reading a captured variable, with its capture index: see
    /// [`FnIr::capture_index`].
    pub captures: Vec<(usize, usize)>,
    /// Calls of a local variable, with the variable: see [`FnIr::callee_var`].
    pub callee_vars: Vec<(usize, u32)>,
    /// A closure's calls of a closure it captured, with the capture's index: see
    /// [`FnIr::callee_capture`].
    pub callee_captures: Vec<(usize, usize)>,
}

impl IrBuilder {
    pub fn new() -> Self {
        IrBuilder {
            entries: Vec::new(),
            var_count: 0,
            block_count: 1,
            generic: false,
            mut_borrows: Vec::new(),
            bind_paths: Vec::new(),
            struct_fields: Vec::new(),
            captures: Vec::new(),
            callee_vars: Vec::new(),
            callee_captures: Vec::new(),
        }
    }

    /// How far the builder has got: a dry run of the lowering undoes back to it
    /// ([`rollback`](Self::rollback)).
    pub fn mark(&self) -> IrMark {
        IrMark {
            entries: self.entries.len(),
            var_count: self.var_count,
            block_count: self.block_count,
            notes: [
                self.mut_borrows.len(),
                self.bind_paths.len(),
                self.struct_fields.len(),
                self.captures.len(),
                self.callee_vars.len(),
                self.callee_captures.len(),
            ],
        }
    }

    /// Drops what was built after `mark`: the entries and the notes about them. A note kept
    /// past its entry names whatever entry takes its number later (a `&mut` mark of a dry
    /// run's `v.ln()` landed on an entry without operands, which the runtime refused).
    pub fn rollback(&mut self, mark: &IrMark) {
        self.entries.truncate(mark.entries);
        self.var_count = mark.var_count;
        self.block_count = mark.block_count;
        let [a, b, c, d, e, f] = mark.notes;
        self.mut_borrows.truncate(a);
        self.bind_paths.truncate(b);
        self.struct_fields.truncate(c);
        self.captures.truncate(d);
        self.callee_vars.truncate(e);
        self.callee_captures.truncate(f);
    }

    pub fn new_block(&mut self) -> u32 {
        self.block_count += 1;
        self.block_count
    }

    fn push(&mut self, entry: Entry) -> EntryId {
        self.entries.push(entry);
        EntryId((self.entries.len() - 1) as u32)
    }

    /// A statement or argument defining a new SSA variable; returns the entry and the variable.
    pub fn define(
        &mut self,
        block: u32,
        slot: Slot,
        kind: Kind,
        head: impl Into<String>,
        operands: Vec<Operand>,
    ) -> (EntryId, Operand) {
        self.var_count += 1;
        let var = self.var_count;
        let entry = match slot {
            Slot::Arg => Entry::argument(block, var, head),
            Slot::Const => Entry::constant(block, var, head),
            Slot::Var => Entry::statement(block, var, kind, head, operands),
        };
        (self.push(entry), Operand::Var(var))
    }

    /// A branch out of `block`: numbered after the block's earlier branches. A branch without
    /// a condition that follows a conditional one in its block is taken because that one was
    /// not: it keeps that condition as its control condition.
    pub fn branch(
        &mut self,
        block: u32,
        kind: Kind,
        target: u32,
        operands: Vec<Operand>,
        condition: Operand,
        head: impl Into<String>,
    ) -> EntryId {
        let earlier = self.entries.iter().filter(|e| {
            e.location.block == block
                && matches!(e.location.slot, irtrack_runtime::core::ir::Slot::Branch(_))
        });
        let mut number = 1;
        let mut control = Operand::None;
        for e in earlier {
            number += 1;
            if !e.condition.is_none() {
                control = e.condition.clone();
            }
        }
        let mut entry = Entry::branch(block, number, kind, target, operands, condition, head);
        if entry.condition.is_none() && kind != Kind::Return {
            entry.control = control;
        }
        self.push(entry)
    }

    /// The numbers generated code names entry `id` by: `%var` for a statement or argument,
    /// `block, k` for a branch — the numbers the listing prints.
    pub fn site(&self, id: EntryId) -> TokenStream {
        let Location { block, slot } = self.entries[id.index()].location;
        match slot.var() {
            Some(var) => {
                let var = num(var);
                quote!(#var)
            }
            None => {
                let k = match slot {
                    irtrack_runtime::core::ir::Slot::Branch(k) => k,
                    _ => 0,
                };
                let (b, k) = (num(block), num(k));
                quote!(#b, #k)
            }
        }
    }

    /// Notes that the binding `id` binds the part of its operand at `path` (`"1"` for `b` in
    /// `let (a, b) = t`).
    pub fn bind_path(&mut self, id: EntryId, path: String) {
        self.bind_paths.push((id.index(), path));
    }

    /// Notes the fields' names, in operand order, of the struct literal `id`.
    pub fn struct_fields(&mut self, id: EntryId, names: String) {
        self.struct_fields.push((id.index(), names));
    }

    /// Notes that call `id` passes its operand `k` by `&mut` as written.
    pub fn borrow_mut(&mut self, id: EntryId, k: usize) {
        self.mut_borrows.push((id.index(), k));
    }

    /// The variable entry `id` defines.
    pub fn var(&self, id: EntryId) -> u32 {
        self.entries[id.index()].location.slot.var().unwrap_or(0)
    }

    /// The checked IR of the function `name`, encoded for the runtime: a `static` the
    /// generated code keeps behind `ident`. A lowering that produced IR the runtime would reject
    /// is a bug in irtrack, reported at the function.
    pub fn to_static(
        &self,
        ident: &syn::Ident,
        name: &str,
        span: proc_macro2::Span,
    ) -> Result<TokenStream, syn::Error> {
        let mut ir = FnIr::new(name, "", self.entries.clone()).map_err(|e| {
            syn::Error::new(
                span,
                format!("irtrack bug: the IR lowered for `{name}` is not well formed ({e}); please report it"),
            )
        })?;
        ir.set_generic(self.generic);
        self.notes(&mut ir);
        let text = ir.encode();
        // The static sits in a block behind a hygienic local, so the user's code cannot name it.
        Ok(quote! {
            let #ident = {
                static IR: ::irtrack::__private::StaticIr =
                    ::irtrack::__private::StaticIr::new(#name, ::core::module_path!(), #text);
                &IR
            };
        })
    }

    /// The static holding a closure's IR, named `ident` (hoisted to where the closure's
    /// enclosing function can reach it).
    pub fn closure_static(
        &self,
        ident: &syn::Ident,
        span: proc_macro2::Span,
    ) -> Result<TokenStream, syn::Error> {
        let name = "{{closure}}";
        let mut ir = FnIr::new(name, "", self.entries.clone()).map_err(|e| {
            syn::Error::new(
                span,
                format!("irtrack bug: the IR lowered for a closure is not well formed ({e}); please report it"),
            )
        })?;
        ir.set_generic(self.generic);
        self.notes(&mut ir);
        let text = ir.encode();
        Ok(quote! {
            static #ident: ::irtrack::__private::StaticIr =
                ::irtrack::__private::StaticIr::new(#name, ::core::module_path!(), #text);
        })
    }

    /// What the IR notes besides its entries (`&mut` operands, tuple parts, captures, callee
    /// variables).
    fn notes(&self, ir: &mut FnIr) {
        for &(e, k) in &self.mut_borrows {
            ir.set_borrows_mut(e, k);
        }
        for (e, path) in &self.bind_paths {
            ir.set_bind_path(*e, path.clone());
        }
        for (e, names) in &self.struct_fields {
            ir.set_struct_fields(*e, names.clone());
        }
        for &(e, k) in &self.captures {
            ir.set_capture_index(e, k);
        }
        for &(e, v) in &self.callee_vars {
            ir.set_callee_var(e, v);
        }
        for &(e, k) in &self.callee_captures {
            ir.set_callee_capture(e, k);
        }
    }

    /// The IR as the runtime reads it, for tests and snapshots.
    #[cfg(test)]
    pub fn finish(&self, name: &str) -> FnIr {
        FnIr::new(name, "", self.entries.clone()).expect("well-formed IR")
    }
}

/// `3`, not `3u32`: the numbers are read by people in `cargo expand` output.
pub fn num(n: u32) -> proc_macro2::Literal {
    proc_macro2::Literal::u32_unsuffixed(n)
}
