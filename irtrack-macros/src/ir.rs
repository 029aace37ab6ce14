//! The static IR built while lowering: blocks, SSA variables, statements and branches. It is
//! emitted as a `static ::irtrack::__private::FnIr` (see `FnIr::to_static`) that the recorder
//! indexes by entry number.

use proc_macro2::TokenStream;
use quote::quote;

/// A value used by an entry: an SSA variable, a literal, or nothing.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Var(u32),
    Const(String),
    None,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Slot {
    Var,
    Arg,
    Const,
    Branch,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Argument,
    Constant,
    Call,
    MethodCall,
    Operator,
    Special,
    Jump,
    JumpUnless,
    JumpIfMatches,
    Return,
}

#[derive(Debug)]
pub struct Entry {
    pub block: u32,
    pub slot: Slot,
    /// The SSA variable defined, or the branch number.
    pub number: u32,
    pub kind: Kind,
    pub head: String,
    pub operands: Vec<Operand>,
    pub condition: Operand,
    pub target: u32,
}

/// Index of an entry in [`FnIr::entries`]; the number generated code passes to the recorder.
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

impl quote::ToTokens for EntryId {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(std::iter::once(proc_macro2::TokenTree::Literal(
            num(self.0),
        )));
    }
}

#[derive(Debug, Default)]
pub struct FnIr {
    pub entries: Vec<Entry>,
    pub var_count: u32,
    pub block_count: u32,
}

impl FnIr {
    pub fn new() -> Self {
        FnIr {
            entries: Vec::new(),
            var_count: 0,
            block_count: 1,
        }
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
        let id = self.push(Entry {
            block,
            slot,
            number: var,
            kind,
            head: head.into(),
            operands,
            condition: Operand::None,
            target: 0,
        });
        (id, Operand::Var(var))
    }

    /// A branch out of `block`: numbered after the block's earlier branches.
    pub fn branch(
        &mut self,
        block: u32,
        kind: Kind,
        target: u32,
        operands: Vec<Operand>,
        condition: Operand,
        head: impl Into<String>,
    ) -> EntryId {
        let number = 1 + self
            .entries
            .iter()
            .filter(|e| e.block == block && e.slot == Slot::Branch)
            .count() as u32;
        self.push(Entry {
            block,
            slot: Slot::Branch,
            number,
            kind,
            head: head.into(),
            operands,
            condition,
            target,
        })
    }

    /// The `static` the recorder reads. Entries stay in generation order, which is the order
    /// of the ids in the generated code; the runtime groups them by block when printing.
    pub fn to_static(&self, ident: &syn::Ident, name: &str) -> TokenStream {
        let entries = self.entries.iter().map(entry_tokens);
        let var_count = num(self.var_count);
        // The static sits in a block behind a hygienic local, so the user's code cannot name it.
        quote! {
            let #ident: &'static ::irtrack::__private::FnIr = {
                static IR: ::irtrack::__private::FnIr = ::irtrack::__private::FnIr {
                    name: #name,
                    module: ::core::module_path!(),
                    entries: &[#(#entries),*],
                    var_count: #var_count,
                };
                &IR
            };
        }
    }
}

/// `3`, not `3u32`: the numbers are read by people in `cargo expand` output.
fn num(n: u32) -> proc_macro2::Literal {
    proc_macro2::Literal::u32_unsuffixed(n)
}

fn operand_tokens(o: &Operand) -> TokenStream {
    match o {
        Operand::Var(v) => {
            let v = num(*v);
            quote!(::irtrack::__private::Operand::Var(#v))
        }
        Operand::Const(c) => quote!(::irtrack::__private::Operand::Const(#c)),
        Operand::None => quote!(::irtrack::__private::Operand::None),
    }
}

fn entry_tokens(e: &Entry) -> TokenStream {
    let (block, number, head) = (num(e.block), num(e.number), &e.head);
    let kind = match e.kind {
        Kind::Argument => {
            return quote!(::irtrack::__private::Entry::argument(#block, #number, #head))
        }
        Kind::Constant => {
            return quote!(::irtrack::__private::Entry::constant(#block, #number, #head))
        }
        Kind::Call => quote!(Call),
        Kind::MethodCall => quote!(MethodCall),
        Kind::Operator => quote!(Operator),
        Kind::Special => quote!(Special),
        Kind::Jump => quote!(Jump),
        Kind::JumpUnless => quote!(JumpUnless),
        Kind::JumpIfMatches => quote!(JumpIfMatches),
        Kind::Return => quote!(Return),
    };
    let operands = e.operands.iter().map(operand_tokens);
    if e.slot == Slot::Branch {
        let condition = operand_tokens(&e.condition);
        let target = num(e.target);
        quote! {
            ::irtrack::__private::Entry::branch(
                #block, #number, ::irtrack::__private::EntryKind::#kind, #target,
                &[#(#operands),*], #condition, #head,
            )
        }
    } else {
        quote! {
            ::irtrack::__private::Entry::statement(
                #block, #number, ::irtrack::__private::EntryKind::#kind, #head, &[#(#operands),*],
            )
        }
    }
}
