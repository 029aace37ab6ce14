//! The generated programs: types, expressions, statements, functions and units, and their
//! printing as Rust source.
//!
//! A [`Unit`] is one test case: an entry function `f`, its helpers, a recursive helper and the
//! structs (with methods) they use. The emitter prints each unit twice, once plain and once
//! with `#[irtrack::tracked]` on every function and `impl` block, from the same tree.
//!
//! Printing puts every compound sub-expression in parentheses, so the tree's shape is the
//! program's, whatever Rust's precedence rules say. Numeric literals get a type suffix only
//! where Rust could not infer their type otherwise (method receivers, unannotated `let`s,
//! `match` scrutinees).

use std::fmt::Write;

/// The type of a generated value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    F64,
    I64,
    Bool,
    VecF64,
    OptF64,
    /// The unit's struct number `k`, `S{k}`.
    Struct(u8),
}

impl Ty {
    pub fn rust(self) -> String {
        match self {
            Ty::F64 => "f64".into(),
            Ty::I64 => "i64".into(),
            Ty::Bool => "bool".into(),
            Ty::VecF64 => "Vec<f64>".into(),
            Ty::OptF64 => "Option<f64>".into(),
            Ty::Struct(k) => format!("S{k}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    And,
    Or,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinOp {
    pub fn text(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::And => "&&",
            BinOp::Or => "||",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    F(f64),
    I(i64),
    B(bool),
}

/// A `match` arm: its pattern as text, the variables the pattern binds, an optional guard and
/// the arm's body.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    pub pat: String,
    pub binds: Vec<(String, Ty)>,
    pub guard: Option<Expr>,
    pub body: Block,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// An expression the generator made for the type `Ty`: printed as the expression alone.
    /// The minimiser replaces these by simpler expressions of the same type.
    T(Ty, Box<Expr>),
    Lit(Lit),
    /// A variable of a `Copy` type, read by name (also `self`).
    Var(String),
    /// A `Vec` variable, read as `v.clone()`.
    CloneOf(String),
    /// Text standing for itself: a constant (`f64::NEG_INFINITY`), a path (`f64::max`).
    Raw(String),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `(e as T)`, `T` a scalar type (or `u32`/`i32`/`usize`, as text).
    Cast(Box<Expr>, String),
    /// `name(args)`: a helper, the recursive helper, a closure or a path (`f64::max`).
    Call(String, Vec<Expr>),
    /// `recv.name(args)`; `name` may carry a turbofish (`sum::<f64>`).
    Method(Box<Expr>, String, Vec<Expr>),
    /// `recv.field`.
    Field(Box<Expr>, String),
    /// `v[((i) as usize) % v.len()]`, `v` a `Vec` variable.
    Index(String, Box<Expr>),
    StructLit(u8, Vec<(String, Expr)>),
    /// `vec![…]` (never empty).
    VecLit(Vec<Expr>),
    If(Box<Expr>, Box<Block>, Box<Block>),
    Match(Box<Expr>, Vec<Arm>),
    Block(Box<Block>),
    /// `{ let mut c: i64 = 0; loop { if c >= bound { break default; } c += 1; body } }`:
    /// a value loop, bounded by its counter; the body may `break value` early.
    Loop {
        counter: String,
        bound: Box<Expr>,
        default: Box<Expr>,
        body: Box<Block>,
    },
    Some(Box<Expr>),
    None,
    Try(Box<Expr>),
    /// A closure literal handed to an iterator adaptor: `|params| body`, params as text
    /// (`&e`, `(k, &e)`, `acc`).
    Closure(Vec<String>, Box<Expr>),
    /// `(a, b)` (match scrutinees only).
    Tuple(Vec<Expr>),
}

/// Where an assignment writes.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    Var(String),
    /// `s.a.b`
    Field(String, Vec<String>),
    /// `v[ix]`, the index computed into a local first (`v[v.len() - 1] = …` does not borrow
    /// check).
    Index(String, Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `let [mut] name[: ty] [= init];` (no init: deferred initialisation).
    Let {
        name: String,
        mutable: bool,
        ty: Option<Ty>,
        init: Option<Expr>,
    },
    /// `let pat = init;` with a tuple or struct pattern (binding `binds`).
    LetPat {
        pat: String,
        binds: Vec<String>,
        init: Expr,
    },
    /// `let Some(bind) = init else { els };`
    LetElse {
        bind: String,
        init: Expr,
        els: Block,
    },
    /// `place = value;` or `place op= value;`
    Assign {
        place: Place,
        op: Option<BinOp>,
        value: Expr,
    },
    /// An expression statement `e;` (a method call with effects, a block, …).
    Expr(Expr),
    If {
        cond: Expr,
        then: Block,
        els: Option<Block>,
    },
    Match {
        scrutinee: Expr,
        arms: Vec<Arm>,
    },
    /// `let mut c: i64 = 0; while c < bound [&& cond] { c += 1; body }`
    While {
        counter: String,
        bound: Expr,
        cond: Option<Expr>,
        body: Block,
    },
    /// `for pat in iter { body }`
    For {
        pat: String,
        iter: Expr,
        body: Block,
    },
    /// `let mut c: i64 = 0; loop { if c >= bound { break; } c += 1; body }`
    Loop {
        counter: String,
        bound: Expr,
        body: Block,
    },
    Return(Expr),
    Break(Option<Expr>),
    Continue,
    /// A statement under an outer attribute (`#[cfg(…)]`, `#[allow(…)]`).
    Attr(String, Box<Stmt>),
    /// `let name = |params| -> ret { body };`
    Closure {
        name: String,
        params: Vec<(String, Ty)>,
        ret: Ty,
        body: Block,
    },
    Block(Block),
    /// `;`
    Empty,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    /// Inner attributes, `#![…]`, as text without the brackets (`allow(unused_variables)`).
    pub inner: Vec<String>,
    pub stmts: Vec<Stmt>,
    pub tail: Option<Box<Expr>>,
}

/// How a method takes its receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receiver {
    Ref,
    Value,
    Mut,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Func {
    pub name: String,
    /// For a method: how it takes `self`.
    pub receiver: Option<Receiver>,
    pub params: Vec<(String, Ty)>,
    /// `None`: returns `()` (methods taking `&mut self`).
    pub ret: Option<Ty>,
    pub body: Block,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    pub id: u8,
    pub fields: Vec<(String, Ty)>,
    /// Derive `irtrack::Snapshot` too (values kept as clones, not as text).
    pub snapshot: bool,
    pub methods: Vec<Func>,
}

/// One test case: the entry `f`, helpers, and structs with methods.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    pub structs: Vec<StructDef>,
    /// Helpers and the recursive helper, in the order printed; the entry is `entry`.
    pub helpers: Vec<Func>,
    pub entry: Func,
}

impl Unit {
    /// The unit's items as Rust source; `tracked` puts `#[irtrack::tracked]` on every function
    /// and `impl` block.
    pub fn print(&self, tracked: bool) -> String {
        let mut p = Printer::default();
        let attr = if tracked { "#[irtrack::tracked]\n" } else { "" };
        for s in &self.structs {
            let derive = if s.snapshot {
                "#[derive(Clone, Copy, Debug, PartialEq, irtrack::Snapshot)]"
            } else {
                "#[derive(Clone, Copy, Debug, PartialEq)]"
            };
            p.line(derive);
            p.line(&format!("pub struct S{} {{", s.id));
            for (name, ty) in &s.fields {
                p.line(&format!("    pub {name}: {},", ty.rust()));
            }
            p.line("}");
            if !s.methods.is_empty() {
                p.out.push_str(attr);
                p.line(&format!("impl S{} {{", s.id));
                p.indent += 1;
                for m in &s.methods {
                    p.func(m);
                }
                p.indent -= 1;
                p.line("}");
            }
        }
        for f in self.helpers.iter().chain(std::iter::once(&self.entry)) {
            p.out.push_str(attr);
            p.func(f);
        }
        p.out
    }

    /// Size of the unit, for choosing the smallest failing program while minimising.
    pub fn size(&self) -> usize {
        self.print(false).len()
    }
}

#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn func(&mut self, f: &Func) {
        let mut params = Vec::new();
        match f.receiver {
            Some(Receiver::Ref) => params.push("&self".to_string()),
            Some(Receiver::Value) => params.push("self".to_string()),
            Some(Receiver::Mut) => params.push("&mut self".to_string()),
            None => {}
        }
        for (name, ty) in &f.params {
            params.push(format!("{name}: {}", ty.rust()));
        }
        let ret = match f.ret {
            Some(t) => format!(" -> {}", t.rust()),
            None => String::new(),
        };
        let head = format!("pub fn {}({}){ret} ", f.name, params.join(", "));
        let body = self.block(&f.body);
        self.line(&format!("{head}{body}"));
    }

    /// A block as text, indented one level deeper than the current line.
    fn block(&mut self, b: &Block) -> String {
        let mut s = String::from("{\n");
        self.indent += 1;
        let pad = "    ".repeat(self.indent);
        for a in &b.inner {
            let _ = writeln!(s, "{pad}#![{a}]");
        }
        for st in &b.stmts {
            let text = self.stmt(st);
            for l in text.lines() {
                let _ = writeln!(s, "{pad}{l}");
            }
        }
        if let Some(t) = &b.tail {
            let text = expr(t, false);
            for l in text.lines() {
                let _ = writeln!(s, "{pad}{l}");
            }
        }
        self.indent -= 1;
        s.push_str(&"    ".repeat(self.indent));
        s.push('}');
        s
    }

    fn stmt(&mut self, st: &Stmt) -> String {
        let saved = self.indent;
        self.indent = 0;
        let s = self.stmt_at0(st);
        self.indent = saved;
        s
    }

    fn stmt_at0(&mut self, st: &Stmt) -> String {
        match st {
            Stmt::Let {
                name,
                mutable,
                ty,
                init,
            } => {
                let m = if *mutable { "mut " } else { "" };
                let t = ty.map(|t| format!(": {}", t.rust())).unwrap_or_default();
                match init {
                    Some(e) => format!("let {m}{name}{t} = {};", expr(e, ty.is_none())),
                    None => format!("let {m}{name}{t};"),
                }
            }
            Stmt::LetPat { pat, init, .. } => format!("let {pat} = {};", expr(init, true)),
            Stmt::LetElse { bind, init, els } => {
                let mut i = expr(init, true);
                if i.ends_with('}') {
                    i = format!("({i})");
                }
                format!("let Some({bind}) = {i} else {};", self.block(els))
            }
            Stmt::Assign { place, op, value } => {
                let o = op.map(|o| o.text()).unwrap_or("");
                let v = expr(value, false);
                match place {
                    Place::Var(n) => format!("{n} {o}= {v};"),
                    Place::Field(n, path) => format!("{n}.{} {o}= {v};", path.join(".")),
                    Place::Index(n, i) => format!(
                        "{{\n    let ix = ({} as usize) % {n}.len();\n    {n}[ix] {o}= {v};\n}}",
                        expr(i, !is_typed(i))
                    ),
                }
            }
            Stmt::Expr(e) => format!("{};", expr_in(e, false, self.indent)),
            Stmt::If { cond, then, els } => {
                let mut s = format!("if {} {}", expr(cond, false), self.block(then));
                if let Some(e) = els {
                    let _ = write!(s, " else {}", self.block(e));
                }
                s
            }
            Stmt::Match { scrutinee, arms } => {
                let mut s = format!("match {} {{\n", expr(scrutinee, true));
                self.indent += 1;
                for a in arms {
                    let guard = a
                        .guard
                        .as_ref()
                        .map(|g| format!(" if {}", expr(g, false)))
                        .unwrap_or_default();
                    let body = self.block(&a.body);
                    let _ = writeln!(s, "    {}{guard} => {body}", a.pat);
                }
                self.indent -= 1;
                s.push('}');
                s
            }
            Stmt::While {
                counter,
                bound,
                cond,
                body,
            } => {
                let extra = cond
                    .as_ref()
                    .map(|c| format!(" && {}", expr(c, false)))
                    .unwrap_or_default();
                let mut b = body.clone();
                b.stmts.insert(0, counter_step(counter));
                format!(
                    "let mut {counter}: i64 = 0;\nwhile {counter} < {}{extra} {}",
                    expr(bound, false),
                    self.block(&b)
                )
            }
            Stmt::For { pat, iter, body } => {
                format!("for {pat} in {} {}", expr(iter, false), self.block(body))
            }
            Stmt::Loop {
                counter,
                bound,
                body,
            } => {
                let mut b = body.clone();
                b.stmts.insert(0, counter_step(counter));
                b.stmts.insert(0, counter_exit(counter, bound, None));
                format!("let mut {counter}: i64 = 0;\nloop {}", self.block(&b))
            }
            Stmt::Return(e) => format!("return {};", expr(e, false)),
            Stmt::Break(None) => "break;".into(),
            Stmt::Break(Some(e)) => format!("break {};", expr(e, false)),
            Stmt::Continue => "continue;".into(),
            Stmt::Attr(a, s) => match base(s) {
                // Declarations take attributes as they are.
                Stmt::Let { .. }
                | Stmt::LetPat { .. }
                | Stmt::LetElse { .. }
                | Stmt::Closure { .. } => {
                    format!("#[{a}]\n{}", self.stmt_at0(s))
                }
                // A block-like statement ending a block would be its tail expression, where
                // attributes are not allowed: end it with `;`.
                Stmt::If { .. } | Stmt::Match { .. } | Stmt::For { .. } | Stmt::Block(_) => {
                    let inner = self.stmt_at0(s);
                    let semi = if inner.ends_with(';') { "" } else { ";" };
                    format!("#[{a}]\n{inner}{semi}")
                }
                // Loops print as two statements (the counter, the loop), and other expressions
                // cannot take attributes: a block around them.
                _ => {
                    let b = Block {
                        stmts: vec![(**s).clone()],
                        ..Block::default()
                    };
                    format!("#[{a}]\n{};", self.block(&b))
                }
            },
            Stmt::Closure {
                name,
                params,
                ret,
                body,
            } => {
                let ps: Vec<String> = params
                    .iter()
                    .map(|(n, t)| format!("{n}: {}", t.rust()))
                    .collect();
                format!(
                    "let {name} = |{}| -> {} {};",
                    ps.join(", "),
                    ret.rust(),
                    self.block(body)
                )
            }
            Stmt::Block(b) => self.block(b),
            Stmt::Empty => ";".into(),
        }
    }
}

fn counter_step(counter: &str) -> Stmt {
    Stmt::Assign {
        place: Place::Var(counter.to_string()),
        op: Some(BinOp::Add),
        value: Expr::Lit(Lit::I(1)),
    }
}

fn counter_exit(counter: &str, bound: &Expr, default: Option<&Expr>) -> Stmt {
    Stmt::If {
        cond: Expr::Binary(
            BinOp::Ge,
            Box::new(Expr::Var(counter.to_string())),
            Box::new(bound.clone()),
        ),
        then: Block {
            stmts: vec![Stmt::Break(default.cloned())],
            ..Block::default()
        },
        els: None,
    }
}

/// An expression as text. `suffix`: give numeric literals a type suffix (the expression's type
/// must not depend on inference from its context).
pub fn expr(e: &Expr, suffix: bool) -> String {
    expr_in(e, suffix, 0)
}

fn expr_in(e: &Expr, suffix: bool, indent: usize) -> String {
    let mut p = Printer {
        out: String::new(),
        indent,
    };
    p.expr(e, suffix)
}

impl Printer {
    fn expr(&mut self, e: &Expr, suffix: bool) -> String {
        match e {
            Expr::T(_, e) => self.expr(e, suffix),
            Expr::Lit(l) => lit(l, suffix),
            Expr::Var(n) => n.clone(),
            Expr::CloneOf(n) => format!("{n}.clone()"),
            Expr::Raw(s) => s.clone(),
            Expr::Unary(op, a) => {
                let o = match op {
                    UnOp::Neg => "-",
                    UnOp::Not => "!",
                };
                format!("({o}{})", self.expr(a, suffix))
            }
            Expr::Binary(op, a, b) => {
                // Shift operands are typed independently; the rest share one type.
                let (sa, sb) = match op {
                    BinOp::Shl | BinOp::Shr => (suffix, false),
                    _ => (suffix, suffix),
                };
                format!("({} {} {})", self.expr(a, sa), op.text(), self.expr(b, sb))
            }
            Expr::Cast(a, t) => format!("({} as {t})", self.atom(a, !is_typed(a))),
            Expr::Call(name, args) => {
                let a: Vec<String> = args.iter().map(|x| self.expr(x, false)).collect();
                format!("{name}({})", a.join(", "))
            }
            Expr::Method(recv, name, args) => {
                let r = self.atom(recv, !is_typed(recv));
                // `c.then_some(x)` has the type of `x`.
                let sa = suffix && name == "then_some";
                let a: Vec<String> = args.iter().map(|x| self.expr(x, sa)).collect();
                format!("{r}.{name}({})", a.join(", "))
            }
            Expr::Field(recv, name) => format!("{}.{name}", self.atom(recv, false)),
            Expr::Index(v, i) => {
                format!("{v}[({} as usize) % {v}.len()]", self.atom(i, !is_typed(i)))
            }
            Expr::StructLit(id, fields) => {
                let fs: Vec<String> = fields
                    .iter()
                    .map(|(n, x)| format!("{n}: {}", self.expr(x, false)))
                    .collect();
                format!("S{id} {{ {} }}", fs.join(", "))
            }
            Expr::VecLit(xs) => {
                let a: Vec<String> = xs.iter().map(|x| self.expr(x, suffix)).collect();
                format!("vec![{}]", a.join(", "))
            }
            Expr::If(c, t, f) => {
                let c = self.expr(c, false);
                let t = self.block_suffix(t, suffix);
                let f = self.block_suffix(f, suffix);
                format!("if {c} {t} else {f}")
            }
            Expr::Match(s, arms) => {
                let mut out = format!("match {} {{\n", self.expr(s, true));
                self.indent += 1;
                for a in arms {
                    let guard = a
                        .guard
                        .as_ref()
                        .map(|g| format!(" if {}", self.expr(g, false)))
                        .unwrap_or_default();
                    let body = self.block_suffix(&a.body, suffix);
                    let pad = "    ".repeat(self.indent);
                    let _ = writeln!(out, "{pad}{}{guard} => {body}", a.pat);
                }
                self.indent -= 1;
                out.push_str(&"    ".repeat(self.indent));
                out.push('}');
                out
            }
            Expr::Block(b) => self.block_suffix(b, suffix),
            Expr::Loop {
                counter,
                bound,
                default,
                body,
            } => {
                let default = Expr::Raw(self.expr(default, suffix));
                let mut b = (**body).clone();
                b.stmts.insert(0, counter_step(counter));
                b.stmts
                    .insert(0, counter_exit(counter, bound, Some(&default)));
                let inner = self.block(&b);
                self.block(&Block {
                    inner: vec![],
                    stmts: vec![Stmt::Let {
                        name: counter.clone(),
                        mutable: true,
                        ty: Some(Ty::I64),
                        init: Some(Expr::Lit(Lit::I(0))),
                    }],
                    tail: Some(Box::new(Expr::Raw(format!("loop {inner}")))),
                })
            }
            Expr::Some(a) => format!("Some({})", self.expr(a, suffix)),
            Expr::None if suffix => "None::<f64>".into(),
            Expr::None => "None".into(),
            Expr::Try(a) => format!("{}?", self.atom(a, !is_typed(a))),
            // Closure bodies are typed on their own: a binder of an untyped float could not
            // take a method call.
            Expr::Closure(ps, body) => format!("|{}| {}", ps.join(", "), self.expr(body, true)),
            Expr::Tuple(xs) => {
                let a: Vec<String> = xs.iter().map(|x| self.expr(x, suffix)).collect();
                format!("({})", a.join(", "))
            }
        }
    }

    /// An operand of a postfix operator (`.m()`, `.f`, `?`, `as`): blocks, `if`s, `match`es
    /// and loops in parentheses.
    fn atom(&mut self, e: &Expr, suffix: bool) -> String {
        let text = self.expr(e, suffix);
        match strip(e) {
            Expr::If(..)
            | Expr::Match(..)
            | Expr::Block(_)
            | Expr::Loop { .. }
            | Expr::Closure(..)
            | Expr::StructLit(..) => {
                format!("({text})")
            }
            _ => text,
        }
    }

    fn block_suffix(&mut self, b: &Block, suffix: bool) -> String {
        if suffix {
            let mut b = b.clone();
            if let Some(t) = &b.tail {
                if !is_typed(t) {
                    b.tail = Some(Box::new(Expr::Raw(self.expr(t, true))));
                }
            }
            self.block(&b)
        } else {
            self.block(b)
        }
    }
}

fn lit(l: &Lit, suffix: bool) -> String {
    let s = match l {
        Lit::F(x) => {
            let t = format!("{x:?}");
            if suffix {
                format!("{t}_f64")
            } else {
                t
            }
        }
        Lit::I(i) => {
            if suffix {
                format!("{i}_i64")
            } else {
                format!("{i}")
            }
        }
        Lit::B(b) => return b.to_string(),
    };
    if s.starts_with('-') {
        format!("({s})")
    } else {
        s
    }
}

/// Whether an expression's type is known without looking at its context (so it can be a method
/// receiver or an unannotated `let`'s initialiser as printed, without literal suffixes).
pub fn is_typed(e: &Expr) -> bool {
    match e {
        Expr::T(_, e) => is_typed(e),
        Expr::Lit(Lit::B(_)) => true,
        Expr::Lit(_) => false,
        Expr::Var(_) | Expr::CloneOf(_) | Expr::Call(..) | Expr::Field(..) | Expr::Index(..) => {
            true
        }
        Expr::Raw(_) => true,
        Expr::Cast(..) | Expr::StructLit(..) => true,
        Expr::Method(_, name, args) if name == "then_some" => is_typed(&args[0]),
        Expr::Method(r, _, _) => is_typed(r),
        Expr::Unary(UnOp::Not, _) => true,
        Expr::Unary(UnOp::Neg, a) => is_typed(a),
        Expr::Binary(op, a, b) => match op {
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => true,
            BinOp::And | BinOp::Or => true,
            BinOp::Shl | BinOp::Shr => is_typed(a),
            _ => is_typed(a) || is_typed(b),
        },
        Expr::VecLit(xs) => xs.iter().any(is_typed),
        Expr::If(_, t, f) => block_typed(t) || block_typed(f),
        Expr::Match(_, arms) => arms.iter().any(|a| block_typed(&a.body)),
        Expr::Block(b) => block_typed(b),
        Expr::Loop { default, .. } => is_typed(default),
        Expr::Some(a) => is_typed(a),
        Expr::None => false,
        Expr::Try(a) => is_typed(a),
        Expr::Closure(..) | Expr::Tuple(_) => false,
    }
}

fn block_typed(b: &Block) -> bool {
    b.tail.as_ref().is_some_and(|t| is_typed(t))
}

/// The expression under its type wrappers.
pub fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::T(_, e) => strip(e),
        e => e,
    }
}

/// The statement under its attributes.
fn base(s: &Stmt) -> &Stmt {
    match s {
        Stmt::Attr(_, s) => base(s),
        s => s,
    }
}

/// A function printed alone (a method as a free function).
pub fn print_fn(f: &Func) -> String {
    Unit {
        structs: vec![],
        helpers: vec![],
        entry: Func {
            receiver: None,
            ..f.clone()
        },
    }
    .print(false)
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `name` occurs in `text` as a whole word.
pub fn uses_word(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// Occurrences of `name(` as a whole word (calls, and the definition).
pub fn count_calls(text: &str, name: &str) -> usize {
    let pat = format!("{name}(");
    text.match_indices(&pat)
        .filter(|(i, _)| !text[..*i].chars().next_back().is_some_and(is_ident))
        .count()
}

/// Occurrences of `.name(` (method calls).
pub fn method_calls(text: &str, name: &str) -> usize {
    text.matches(&format!(".{name}(")).count()
}
