//! Fuzzing of the macro's entry: random functions, built from the constructs the lowering
//! handles (and mutated token streams of them), are expanded by [`crate::tracked_impl`]. The
//! expansion must never panic; it must parse as Rust items; an error must be a
//! `compile_error!` that re-emits the item, and a syntactically valid function must never
//! produce IR the runtime rejects (an "irtrack bug" error).
//!
//! CI runs it for a few seconds. For a long run:
//!
//! ```text
//! IRTRACK_FUZZ_SECS=600 cargo test -p irtrack-macros --release fuzz -- --nocapture
//! ```
//!
//! `IRTRACK_FUZZ_SEED` replays a run; a failure prints the seed and the input.

use proc_macro2::{TokenStream, TokenTree};
use std::time::{Duration, Instant};

/// xorshift64*: deterministic from the seed, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// A random function body over the variables `vars`, `depth` levels of nesting deep.
struct Gen<'r> {
    rng: &'r mut Rng,
    vars: Vec<String>,
    fresh: usize,
    labels: Vec<String>,
    in_loop: usize,
}

const CFGS: &[&str] = &[
    "#[cfg(any())]",
    "#[cfg(all())]",
    "#[cfg(not(any()))]",
    "#[cfg_attr(all(), allow(unused))]",
    "#[cfg_attr(any(), cfg(any()))]",
    "#[allow(unused_mut)]",
];

impl Gen<'_> {
    fn var(&mut self) -> String {
        if self.vars.is_empty() || self.rng.chance(10) {
            return format!("{}.5", self.rng.below(9));
        }
        self.vars[self.rng.below(self.vars.len())].clone()
    }

    fn expr(&mut self, depth: usize) -> String {
        if depth == 0 {
            return self.var();
        }
        let d = depth - 1;
        match self.rng.below(16) {
            0 => format!("{} + {}", self.expr(d), self.expr(d)),
            1 => format!("({} * {})", self.expr(d), self.expr(d)),
            2 => format!("-{}", self.expr(d)),
            3 => format!("{}.sin()", self.var()),
            4 => format!("f64::max({}, {})", self.expr(d), self.expr(d)),
            5 => format!(
                "if {} > {} {{ {} }} else {{ {} }}",
                self.expr(d),
                self.expr(d),
                self.expr(d),
                self.expr(d)
            ),
            6 => format!(
                "match {} as i64 {{ 0 => ({}), n if n > 2 => ({}) * n as f64, _ => ({}) }}",
                self.expr(d),
                self.expr(d),
                self.expr(d),
                self.expr(d)
            ),
            7 => format!("{{ let t = {}; t * t }}", self.expr(d)),
            8 => format!("(|v: f64| v + {})({})", self.var(), self.expr(d)),
            9 => {
                let l = format!("'b{}", self.fresh);
                self.fresh += 1;
                format!(
                    "{l}: {{ if {} < 0.0 {{ break {l} {}; }} {} }}",
                    self.expr(d),
                    self.expr(d),
                    self.expr(d)
                )
            }
            10 => format!("[{}, {}][1]", self.expr(d), self.expr(d)),
            11 => format!("({}, {}).0", self.expr(d), self.expr(d)),
            12 => format!("Some({}).map_or(0.0, |q| q * 2.0)", self.expr(d)),
            13 => format!(
                "loop {{ if {} > 0.0 {{ break {}; }} break 1.0; }}",
                self.expr(d),
                self.expr(d)
            ),
            14 => format!("{} as f32 as f64", self.expr(d)),
            _ => self.var(),
        }
    }

    fn stmt(&mut self, depth: usize) -> String {
        let d = depth.saturating_sub(1);
        let attr = if self.rng.chance(8) {
            self.rng.pick(CFGS).to_string()
        } else {
            String::new()
        };
        let body = match self.rng.below(if depth == 0 { 4 } else { 14 }) {
            0 | 1 => {
                let v = format!("v{}", self.fresh);
                self.fresh += 1;
                let s = format!("let mut {v} = {};", self.expr(2));
                self.vars.push(v);
                // A `cfg`'d-out `let` may leave later uses unbound: the macro must still expand.
                s
            }
            2 => {
                let v = self.var();
                if v.contains('.') {
                    String::new()
                } else {
                    format!("{v} = {};", self.expr(2))
                }
            }
            3 => {
                let v = self.var();
                if v.contains('.') {
                    String::new()
                } else {
                    format!("{v} += {};", self.expr(1))
                }
            }
            4 => {
                let v = format!("d{}", self.fresh);
                self.fresh += 1;
                let s = format!(
                    "let {v}: f64; if {} > 0.0 {{ {v} = {}; }} else {{ {v} = {}; }}",
                    self.expr(1),
                    self.expr(1),
                    self.expr(1)
                );
                self.vars.push(v);
                s
            }
            5 => format!(
                "if {} < {} {{ {} }}",
                self.expr(1),
                self.expr(1),
                self.block(d)
            ),
            6 => {
                self.in_loop += 1;
                let s = format!(
                    "{{ let mut k = 0; while k < 3 {{ k += 1; {} }} }}",
                    self.block(d)
                );
                self.in_loop -= 1;
                s
            }
            7 => {
                let l = format!("'l{}", self.fresh);
                self.fresh += 1;
                self.labels.push(l.clone());
                self.in_loop += 1;
                let s = format!("{l}: for i in 0..3 {{ let _ = i; {} }}", self.block(d));
                self.in_loop -= 1;
                self.labels.pop();
                s
            }
            8 if self.in_loop > 0 => {
                let target = match self.labels.last() {
                    Some(l) if self.rng.chance(50) => format!(" {l}"),
                    _ => String::new(),
                };
                let kw = if self.rng.chance(50) {
                    "break"
                } else {
                    "continue"
                };
                format!("if {} > 1.0 {{ {kw}{target}; }}", self.expr(1))
            }
            9 => format!("if {} > 2.0 {{ return {}; }}", self.expr(1), self.expr(1)),
            10 => format!(
                "if let Some(w) = Some({}) {{ {} }}",
                self.expr(1),
                self.block(d)
            ),
            11 => format!("let _ = vec![{}, {}];", self.expr(1), self.expr(1)),
            12 => format!("assert!({} == {} || true);", self.expr(1), self.expr(1)),
            _ => format!("let _ = {};", self.expr(2)),
        };
        format!("{attr} {body}")
    }

    fn block(&mut self, depth: usize) -> String {
        let n = self.rng.below(4);
        let saved = self.vars.len();
        let stmts: Vec<String> = (0..n).map(|_| self.stmt(depth)).collect();
        self.vars.truncate(saved);
        stmts.join("\n")
    }

    fn function(&mut self) -> String {
        let n = 1 + self.rng.below(4);
        let stmts: Vec<String> = (0..n).map(|_| self.stmt(3)).collect();
        let tail = if self.rng.chance(15) {
            format!(
                "#[cfg(all())] {{ {} }} #[cfg(any())] {{ {} }}",
                self.expr(2),
                self.expr(2)
            )
        } else {
            self.expr(3)
        };
        let generics = if self.rng.chance(20) { "<T: Copy>" } else { "" };
        format!(
            "fn fuzzed{generics}(x: f64, y: f64) -> f64 {{ let mut acc = x; {} acc += y; {} }}",
            stmts.join("\n"),
            tail
        )
    }
}

/// Mutates a token stream: drops, duplicates or swaps tokens, or flattens a group.
fn mutate(rng: &mut Rng, ts: TokenStream) -> TokenStream {
    let mut tokens: Vec<TokenTree> = ts.into_iter().collect();
    if tokens.is_empty() {
        return TokenStream::new();
    }
    for _ in 0..1 + rng.below(3) {
        let i = rng.below(tokens.len().max(1));
        match rng.below(5) {
            0 if tokens.len() > 1 => {
                tokens.remove(i);
            }
            1 => {
                let t = tokens[i].clone();
                tokens.insert(i, t);
            }
            2 => {
                let j = rng.below(tokens.len());
                tokens.swap(i, j);
            }
            _ => {
                if let TokenTree::Group(g) = &tokens[i] {
                    let inner = mutate(rng, g.stream());
                    let mut ng = proc_macro2::Group::new(g.delimiter(), inner);
                    ng.set_span(g.span());
                    tokens[i] = TokenTree::Group(ng);
                }
            }
        }
        if tokens.is_empty() {
            break;
        }
    }
    tokens.into_iter().collect()
}

/// Plays rustc's part between the two stages of a function with `cfg`s: evaluates the probes
/// (the fuzzer's predicates are `any()`, `all()` and `not(any())`) and keeps the markers of the
/// true ones.
fn second_stage(first: TokenStream) -> Option<TokenStream> {
    let mut item: syn::Item = syn::parse2(first).ok()?;
    let attrs = match &mut item {
        syn::Item::Fn(f) => &mut f.attrs,
        _ => return None,
    };
    let mut resolved = false;
    let mut kept = Vec::new();
    for a in std::mem::take(attrs) {
        match &a.meta {
            syn::Meta::List(l) if l.path.is_ident("cfg_attr") => {
                let text = l.tokens.to_string();
                let (pred, rest) = text.split_once(',')?;
                let on = matches!(pred.trim(), "all ()" | "not (any ())");
                if on {
                    let rest: TokenStream = rest.parse().ok()?;
                    kept.push(syn::parse_quote!(#[#rest]));
                }
            }
            _ if a
                .path()
                .segments
                .last()
                .is_some_and(|s| s.ident == "tracked") =>
            {
                resolved = true;
            }
            _ => kept.push(a),
        }
    }
    *attrs = kept;
    resolved.then(|| quote::quote!(#item))
}

/// Expands one input, and the second stage when the first asked for it; whether the
/// expansion is an error. `valid` when the input is a syntactically valid function.
fn check(item: TokenStream, valid: bool) -> Result<bool, String> {
    let expand = |args: TokenStream, item: TokenStream| {
        std::panic::catch_unwind(|| crate::tracked_impl(args, item))
            .map_err(|_| "the expansion panicked".to_string())
    };
    let mut out = expand(TokenStream::new(), item)?;
    if let Some(second) = second_stage(out.clone()) {
        let args: TokenStream = crate::cfg::RESOLVED.parse().expect("an ident");
        out = expand(args, second)?;
    }
    let text = out.to_string();
    // An invalid input is re-emitted as written after the errors: only a valid one must give
    // items.
    if let Err(e) = syn::parse2::<syn::File>(out) {
        if valid {
            return Err(format!(
                "the expansion does not parse as items ({e}): {text}"
            ));
        }
    }
    if text.contains("irtrack bug") && valid {
        return Err(format!("a valid function produced an irtrack bug: {text}"));
    }
    let error = text.contains("compile_error");
    if error && valid && !text.contains("fn fuzzed") {
        return Err("an error did not re-emit the item".into());
    }
    // The generator writes only constructs the lowering supports: a valid function it
    // rejects is a gap in the lowering (an empty statement `;;` was one).
    if error && valid && text.contains("does not know how to record") {
        return Err(format!("a valid function was rejected: {text}"));
    }
    if error && valid && std::env::var_os("IRTRACK_FUZZ_SHOW").is_some() {
        println!("error for a valid function: {text}");
    }
    Ok(error)
}

#[test]
fn fuzz_the_macro_entry() {
    let secs: u64 = std::env::var("IRTRACK_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let seed: u64 = std::env::var("IRTRACK_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x1d2c_3b4a_5968_7788);
    // A panic inside is caught and reported with its input; keep the default hook quiet.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let mut rng = Rng(seed);
    let (mut inputs, mut valid_inputs, mut errors) = (0u64, 0u64, 0u64);
    let mut failure = None;
    while start.elapsed() < Duration::from_secs(secs) {
        let case_seed = rng.next() | 1;
        let mut case = Rng(case_seed);
        let mut g = Gen {
            rng: &mut case,
            vars: vec!["x".into(), "y".into(), "acc".into()],
            fresh: 0,
            labels: Vec::new(),
            in_loop: 0,
        };
        let src = g.function();
        let Ok(tokens) = src.parse::<TokenStream>() else {
            continue;
        };
        let valid = syn::parse2::<syn::ItemFn>(tokens.clone()).is_ok();
        let tokens = if case.chance(25) {
            mutate(&mut case, tokens)
        } else {
            tokens
        };
        let still_valid = valid && syn::parse2::<syn::ItemFn>(tokens.clone()).is_ok();
        inputs += 1;
        valid_inputs += u64::from(still_valid);
        match check(tokens.clone(), still_valid) {
            Ok(error) => errors += u64::from(error),
            Err(e) => {
                failure = Some(format!("case seed {case_seed}: {e}\ninput: {tokens}"));
                break;
            }
        }
    }
    std::panic::set_hook(hook);
    println!(
        "fuzz: {inputs} inputs ({valid_inputs} valid functions, {errors} expanded to errors) in {:.1} s, seed {seed}",
        start.elapsed().as_secs_f64()
    );
    if let Some(f) = failure {
        panic!("{f}");
    }
    assert!(inputs > 0);
}
