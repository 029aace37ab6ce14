//! A corpus of `#[tracked]` functions covering the Rust constructs the macro must handle.
//!
//! Every corpus function is checked three ways: the tracked run returns what the untracked run
//! returns, the root of the trace holds that value, and the trace is well formed
//! (`check_trace`, one checker for every node at every level). Where it is easy, a test also
//! checks a fact about how the construct was recorded (a short-circuit jump, an early return,
//! the number of loop iterations).
//!
//! Fixed bugs, once worked around here; the corpus now uses the natural forms and checks them:
//! - fixed: a captured variable as the left operand of an operator in a closure (`|x| k * x`).
//! - fixed: a tracked call with a const/static/fn item/captured argument was a primitive call.
//! - fixed: `?` with a `From` conversion of the error returned the unconverted error.
//! - fixed: an `if` without `else` ending a block or loop body made jumps of unequal arity.
//! - fixed: a field/element read by reference (`v[i] == x`, `&v[0]`, `&C`) was its base's node.
//! - fixed: inline format arguments (`format!("{s}")`) were not operands of the macro's node.
//! - fixed: a value-position deref `*p` (raw pointers too) was not recorded as `$(*)`.
//! - fixed: `NodeRef::position()` of the root was `Some(1)`; it is `None`.
//! - fixed: a method receiver that is a place (`v[1..].iter()`, `p.x.abs()`) was recorded as
//!   its base variable (`repro_15` in tests/regressions.rs).
//!
//! Documented caveats (by design; not asserted as bugs):
//! - a local mutated inside an `FnMut` closure keeps its old node;
//! - values of a generic type without a `Debug` bound are recorded as `_`, even at the root
//!   (`largest` checks this);
//! - in-place mutation creates no node: after `q.x = …`, `v[i] += …` or `*r += …` later uses of
//!   `q`, `v` or `y` reference the node recorded before the mutation;
//! - a nested field in value position (`s.b.x`) is one read of its base `s`, at the path `.b.x`;
//! - a captured variable used as a method receiver in a closure prints as `⟨_⟩`.

// The corpus is deliberately written the long way round, to exercise each construct.
#![allow(
    clippy::needless_return,
    clippy::assign_op_pattern,
    clippy::let_and_return,
    clippy::needless_range_loop,
    clippy::manual_range_contains,
    clippy::redundant_closure,
    clippy::precedence,
    clippy::nonminimal_bool,
    clippy::unnecessary_cast,
    clippy::while_let_on_iterator,
    clippy::explicit_counter_loop,
    clippy::int_plus_one,
    clippy::identity_op,
    clippy::blocks_in_conditions,
    clippy::needless_late_init,
    clippy::unnecessary_operation,
    clippy::no_effect,
    clippy::op_ref,
    clippy::manual_map,
    clippy::question_mark,
    clippy::unnecessary_fold,
    clippy::manual_unwrap_or,
    clippy::manual_range_patterns,
    clippy::manual_find
)]

use irtrack::{track, track_output, tracked, Arg, EntryKind, NodeKind, NodeRef, Trace};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;

// ---------------------------------------------------------------------------------------------
// The well-formedness checker.
// ---------------------------------------------------------------------------------------------

/// Asserts that the trace is well formed (`Trace::verify`), that a return of a literal
/// returns that literal, that the queries agree and that the JSON round trip keeps it.
fn check_trace(trace: &Trace) {
    if let Err(e) = trace.verify() {
        panic!("{e}\n{}", trace.root());
    }
    for c in trace.nodes() {
        if c.kind() == NodeKind::Return {
            if let [Arg::Const(lit)] = c.arguments().as_slice() {
                assert!(
                    literal_matches(lit, &c.value_text()),
                    "return ⟨{lit}⟩ but the value is {}\n{}",
                    c.value_text(),
                    trace.root()
                );
            }
        }
    }
    check_queries(trace);
    check_json_round_trip(trace);
    check_reexecution(trace);
}

/// Every node that says it can be re-executed gives its recorded value when re-executed on its
/// recorded operands: `operation()` never claims an operation the node did not perform.
fn check_reexecution(trace: &Trace) {
    for c in trace.nodes() {
        if c.operation().is_err() {
            continue;
        }
        let again = c
            .reexecute(&c.operand_values())
            .unwrap_or_else(|e| panic!("{e}\n{}", trace.root()));
        let recorded = c.raw_value();
        let same = again.same_scalar(&recorded)
            || (again.floats().is_some() && again.floats() == recorded.floats())
            || again.to_string() == recorded.to_string();
        assert!(
            same,
            "{c:?} re-executed as {:?} gives {again}, recorded {recorded}\n{}",
            c.operation(),
            trace.root()
        );
    }
}

/// The dependency queries agree with each other on every node (issue 3): `c` is a dependent of
/// each node it references and conversely, and `backward`/`forward` stay inside one call.
fn check_queries(trace: &Trace) {
    for c in trace.nodes() {
        for r in c.referenced() {
            assert!(
                r.dependents().contains(&c),
                "{c:?} references {r:?}, which does not list it as a dependent"
            );
        }
        for d in c.dependents() {
            assert!(
                d.referenced().contains(&c),
                "{d:?} is a dependent of {c:?} but does not reference it"
            );
        }
        let parent = c.parent();
        for n in c.backward().into_iter().chain(c.forward()) {
            assert_eq!(n.parent(), parent, "{n:?} is outside the call of {c:?}");
        }
    }
}

/// Export, import and print give the same listing, and the import exports the same JSON.
fn check_json_round_trip(trace: &Trace) {
    let json = trace.to_json();
    let back = Trace::from_json(&json).expect("a trace's own export imports");
    assert_eq!(back.root().to_string(), trace.root().to_string());
    assert_eq!(back.to_json(), json);
}

/// Whether the literal `lit`, as written in the source, denotes the value printed as `text`.
/// Literals it cannot judge (paths such as `None`, the `_` of a value not recorded) pass.
fn literal_matches(lit: &str, text: &str) -> bool {
    if lit == text || lit == "_" {
        return true;
    }
    let digits = lit.replace('_', "");
    let number = if let Some(hex) = digits.strip_prefix("0x") {
        i128::from_str_radix(hex, 16).ok().map(|v| v as f64)
    } else {
        digits.parse::<f64>().ok()
    };
    match number {
        Some(n) => text.parse::<f64>().is_ok_and(|t| t == n),
        // Booleans, chars, strings and `()` print as written; anything else is a path.
        None => {
            !(lit == "true"
                || lit == "false"
                || lit == "()"
                || lit.starts_with('\'')
                || lit.starts_with('"'))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers for the semantic checks.
// ---------------------------------------------------------------------------------------------

/// Every node below `node`, at every level, depth first.
fn descendants<'t>(node: NodeRef<'t>) -> Vec<NodeRef<'t>> {
    let mut out = Vec::new();
    for c in node.children() {
        out.push(c);
        out.extend(descendants(c));
    }
    out
}

/// The direct children of the root that are calls of `name`.
fn calls_of<'t>(trace: &'t Trace, name: &str) -> Vec<NodeRef<'t>> {
    trace
        .root()
        .children()
        .filter(|c| {
            matches!(c.kind(), NodeKind::PrimitiveCall | NodeKind::NestedCall)
                && c.function_name() == Some(name)
        })
        .collect()
}

/// The direct children of the root that are specials `$(head)`.
fn specials_of<'t>(trace: &'t Trace, head: &str) -> Vec<NodeRef<'t>> {
    trace
        .root()
        .children()
        .filter(|c| c.kind() == NodeKind::Special && c.entry().unwrap().head == head)
        .collect()
}

/// How many direct children of the root are block arguments of `block` (one per iteration
/// of a loop header, each defining the first carried variable).
fn header_visits(trace: &Trace, block: u32) -> usize {
    let firsts: Vec<_> = trace
        .root()
        .children()
        .filter(|c| c.kind() == NodeKind::Argument && c.location().unwrap().block == block)
        .collect();
    let Some(first) = firsts.first() else {
        return 0;
    };
    let first_loc = first.location().unwrap();
    firsts
        .iter()
        .filter(|c| c.location().unwrap() == first_loc)
        .count()
}

/// The jumps among the root's children that were taken since a condition was false.
fn false_jumps(trace: &Trace) -> Vec<NodeRef<'_>> {
    trace
        .root()
        .children()
        .filter(|c| c.kind() == NodeKind::Jump && c.entry().unwrap().kind == EntryKind::JumpUnless)
        .collect()
}

/// The nodes `node` references, in operand order (constants and `⟨_⟩` left out).
fn refs_of<'t>(node: NodeRef<'t>) -> Vec<NodeRef<'t>> {
    node.arguments()
        .into_iter()
        .filter_map(|a| match a {
            Arg::Node(n) => Some(n),
            _ => None,
        })
        .collect()
}

/// Whether `node` is a constant node recorded for the path `path`.
fn is_constant(node: NodeRef<'_>, path: &str) -> bool {
    node.kind() == NodeKind::Constant && node.entry().unwrap().head == path
}

fn last_child(trace: &Trace) -> NodeRef<'_> {
    trace
        .root()
        .children()
        .last()
        .expect("a tracked root has children")
}

/// Calls `$f` untracked and tracked with the same argument expressions (evaluated twice),
/// checks that the outputs and the root value agree and that the trace is well formed, and
/// gives back `(direct, trace)`. With `opaque:` the output's type has no `Debug` in `$f` (a
/// generic without the bound), and the root must hold the opaque `_` instead.
macro_rules! same {
    (opaque: $f:expr, ($($a:expr),* $(,)?)) => {
        same!(@ |_| String::from("_"), $f, ($($a),*))
    };
    ($f:expr, ($($a:expr),* $(,)?)) => {
        same!(@ |d| format!("{:?}", d), $f, ($($a),*))
    };
    (@ $text:expr, $f:expr, ($($a:expr),*)) => {{
        let direct = $f($($a),*);
        let (out, trace) = track_output($f, ($($a,)*));
        assert_eq!(out, direct, "tracked and untracked outputs differ");
        assert_eq!(
            trace.root().value_text(),
            ($text)(&direct),
            "the root holds the output\n{}",
            trace
        );
        assert_eq!(trace.root().kind(), NodeKind::NestedCall, "a tracked root is nested");
        check_trace(&trace);
        (direct, trace)
    }};
}

// ---------------------------------------------------------------------------------------------
// The corpus.
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq)]
struct Pair {
    a: f64,
    b: (i32, i32),
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Point {
    x: f64,
    y: f64,
}

#[derive(Debug, Clone, PartialEq)]
struct Config {
    name: String,
    level: u8,
    scale: f64,
    verbose: bool,
}

// 1. `let` with tuple, struct and nested patterns and type ascriptions.
#[tracked]
fn let_patterns(p: (f64, f64), q: Pair) -> f64 {
    let (x, y) = p;
    let Pair { a, b: (m, n) } = q;
    let z: f64 = x * y;
    let ((u, _), w): ((i32, i32), f64) = ((m, n), a);
    let [first, .., last]: [i32; 3] = [u, n, m];
    z + w + (u + n) as f64 + (first * last) as f64
}

// 2. `let ... else` on a `Result`.
#[tracked]
fn let_else_parse(s: &str) -> i32 {
    let Ok(n) = s.parse::<i32>() else {
        return -1;
    };
    n * 2
}

// 3. `let ... else` on an `Option` argument.
#[tracked]
fn let_else_option(v: Option<u32>) -> u32 {
    let Some(x) = v else { return 0 };
    x + 1
}

// 4. Assignment and every compound assignment to a local.
#[tracked]
fn assign_ops(a: i64, b: i64) -> i64 {
    let mut x = a;
    x += b;
    x -= 1;
    x *= 3;
    x /= 2;
    x %= 1000;
    x &= 0xff;
    x |= 1;
    x ^= 3;
    x <<= 2;
    x >>= 1;
    let y;
    y = x + 1;
    x = y * 2;
    x
}

// 5. Assignment and compound assignment to struct fields.
#[tracked]
fn field_assign(p: Point) -> Point {
    let mut q = p;
    q.x = 1.0;
    q.x += p.y;
    q.y *= 2.0;
    q.y -= 0.5;
    q.x /= 4.0;
    q.y %= 3.0;
    q
}

// 6. Assignment and compound assignment to `v[i]`.
#[tracked]
fn index_assign(v: Vec<i32>) -> Vec<i32> {
    let mut w = v;
    w[0] = 5;
    w[1] += 3;
    w[2] -= 1;
    w[0] *= 2;
    w[1] %= 4;
    w[2] |= 8;
    w[0] ^= 1;
    w[1] <<= 1;
    w[2] &= 0xc;
    w[0] >>= 1;
    w[1] /= 2;
    w
}

// 7. Every arithmetic, bitwise and shift operator, and unary `-` and `!` on integers.
#[tracked]
fn int_ops(a: i32, b: i32) -> [i32; 11] {
    [
        a + b,
        a - b,
        a * b,
        a / b,
        a % b,
        a & b,
        a | b,
        a ^ b,
        a << 2,
        a >> 1,
        -a + !b,
    ]
}

// 8. Every comparison, and `!` on a bool.
#[tracked]
fn comparisons(a: f64, b: f64) -> [bool; 7] {
    let lt = a < b;
    [lt, a <= b, a > b, a >= b, a == b, a != b, !lt]
}

// 9. `&&`, whose right side divides by the left: it must not run when the left is false.
#[tracked]
fn and_short(a: i32, b: i32) -> bool {
    a != 0 && b / a > 1
}

// 10. `||`, whose right side divides by the left: it must not run when the left is true.
#[tracked]
fn or_short(a: i32) -> bool {
    a == 0 || 10 / a > 2
}

// 11. Method calls, chained, on a `String` argument.
#[tracked]
fn method_chain(s: String) -> (usize, String, i32) {
    let t = s.trim().to_uppercase();
    let n = t.len().max(3);
    let m = (n as i32).pow(2).min(50);
    (n, t.replace('A', "4"), m)
}

#[tracked]
fn sq(x: f64) -> f64 {
    x * x
}

trait Area {
    fn area(&self) -> f64;
    fn doubled(&self) -> f64 {
        2.0 * self.area()
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Circle {
    r: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Rect {
    w: f64,
    h: f64,
}

#[tracked]
impl Area for Circle {
    fn area(&self) -> f64 {
        std::f64::consts::PI * self.r * self.r
    }
}

#[tracked]
impl Area for Rect {
    fn area(&self) -> f64 {
        self.w * self.h
    }
}

#[tracked]
impl Point {
    fn origin() -> Point {
        Point { x: 0.0, y: 0.0 }
    }
    fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }
    fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
    fn scaled(self, k: f64) -> Point {
        Point {
            x: self.x * k,
            y: self.y * k,
        }
    }
    fn shift(&mut self, dx: f64) -> f64 {
        self.x += dx;
        self.x
    }
}

const HALF: f64 = 0.5;

// 12. Path calls: free fn, `Type::assoc`, `Trait::method(x)`, `<T as Trait>::method`, std fns;
// a tracked fn called with a named constant.
#[tracked]
fn path_calls(x: f64) -> f64 {
    let a = sq(x) + sq(HALF);
    let b = f64::max(x, 1.0);
    let o = Point::origin();
    let c = Circle { r: x };
    let d = Area::area(&c);
    let e = <Rect as Area>::area(&Rect { w: x, h: 2.0 });
    let m = std::cmp::max(3, 4) as f64;
    let z: f64 = Default::default();
    a + b + o.x + d + e + m + z
}

// 13. A generic function with bounds, without `Debug`: values of type `T` are recorded as `_`
// (a documented caveat). The loop body ends in an `if` without `else`.
#[tracked]
fn largest<T: PartialOrd + Copy>(xs: &[T]) -> T {
    let mut best = xs[0];
    for &x in xs {
        if x > best {
            best = x;
        }
    }
    best
}

// 14. A generic function with a where-clause.
#[tracked]
fn sum_all<T>(xs: &[T]) -> T
where
    T: Copy + std::ops::Add<Output = T> + Default + std::fmt::Debug,
{
    let mut total = T::default();
    for x in xs.iter() {
        total = total + *x;
    }
    total
}

// 15. Calls of generic functions at two types.
#[tracked]
fn generic_user(v: Vec<i32>, w: Vec<f64>) -> (i32, f64, i32) {
    let a = largest(&v);
    let b = largest::<f64>(&w);
    let c = sum_all(&v);
    (a, b, c)
}

// 16. Methods with `self`, `&self`, `&mut self` and associated functions of a tracked impl.
#[tracked]
fn point_methods(a: f64) -> (f64, Point) {
    let mut p = Point::new(a, 2.0 * a);
    let moved = p.shift(1.0);
    let q = p.scaled(0.5);
    (q.norm() + moved, q)
}

// 17. Trait methods through a tracked `impl Trait for T`, directly and through `dyn`.
#[tracked]
fn total_area(r: f64, w: f64) -> f64 {
    let c = Circle { r };
    let s = Rect { w, h: 3.0 };
    let shapes: Vec<&dyn Area> = vec![&c, &s];
    let mut total = c.area() + s.area();
    for sh in shapes {
        total += sh.doubled() + sh.area();
    }
    total
}

// 18. Closures: capturing, `move`, with `return` inside. (A `Vec` moved into a closure on
// purpose.)
#[allow(clippy::useless_vec)]
#[tracked]
fn closures(x: f64) -> f64 {
    let k = 3.0;
    let affine = |y: f64| k * y + 1.0;
    let owned = vec![1.0, 2.0];
    let total = move |y: f64| y + owned.iter().sum::<f64>();
    let clamp = |y: f64| {
        if y > 10.0 {
            return 10.0;
        }
        y
    };
    let lift = |y: f64| y + sq(k);
    clamp(affine(x)) + total(x) + lift(x)
}

#[tracked]
fn apply<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 {
    f(x)
}

// 19. Closures and a tracked function passed to a tracked higher-order function.
#[tracked]
fn higher_order(x: f64) -> f64 {
    let k = 2.0;
    let f = sq;
    apply(|y| k * y, x) + apply(sq, x) + apply(f, x)
}

// 20. Closures passed to iterator adaptors.
#[tracked]
fn adaptors(v: Vec<i32>) -> i32 {
    let limit = 2;
    v.iter()
        .map(|x| x * 2)
        .filter(|x| *x > limit)
        .fold(0, |acc, x| acc + x)
}

// 21. `if`/`else` with values.
#[tracked]
fn sign(x: f64) -> f64 {
    let s = if x < 0.0 { -1.0 } else { 1.0 };
    s * x.abs().sqrt()
}

// 22. An `else if` chain.
#[tracked]
fn grade(n: u32) -> char {
    if n >= 90 {
        'A'
    } else if n >= 80 {
        'B'
    } else if n >= 70 {
        'C'
    } else {
        'F'
    }
}

// 23. `if` without `else`, assigning a variable.
#[tracked]
fn clamp_low(x: i32) -> i32 {
    let mut y = x;
    if y < 0 {
        y = 0;
    }
    y + 1
}

// 24. `if let`, with and without `else`.
#[tracked]
fn if_let(o: Option<i32>, r: Result<i32, String>) -> i32 {
    let mut total = 0;
    if let Some(v) = o {
        total += v;
    }
    let from_r = if let Ok(v) = r { v } else { -100 };
    total + from_r
}

#[derive(Debug, Clone, PartialEq)]
enum Shape {
    Circle(f64),
    Rect { w: f64, h: f64 },
    Tri(f64, f64, f64),
    Empty,
}

// 25. `match` on an enum with data: guards, bindings, struct and tuple variants.
#[tracked]
fn shape_area(s: Shape) -> f64 {
    match s {
        Shape::Circle(r) if r < 0.0 => 0.0,
        Shape::Circle(r) => std::f64::consts::PI * r * r,
        Shape::Rect { w, h } => w * h,
        Shape::Tri(a, b, c) => {
            let p = (a + b + c) / 2.0;
            (p * (p - a) * (p - b) * (p - c)).sqrt()
        }
        Shape::Empty => 0.0,
    }
}

// 26. `match` with or-patterns, ranges, `@` bindings and guards on integers.
#[tracked]
fn classify(n: i32) -> String {
    match n {
        0 => "zero".to_string(),
        1 | 2 | 3 => format!("tiny {}", n),
        small @ 4..=9 => format!("small {}", small * 10),
        m if m < 0 => String::from("negative"),
        10..=99 => "medium".to_string(),
        _ => "big".to_string(),
    }
}

// 27. `match` on a tuple of references and on a `char`.
#[tracked]
fn match_tuple(a: Option<i32>, c: char) -> i32 {
    let base = match (a, c) {
        (Some(x), 'a' | 'b') => x,
        (Some(x), d) if d.is_ascii_digit() => x + d.to_digit(10).unwrap() as i32,
        (None, _) => -1,
        (Some(_), _) => 0,
    };
    base * 2
}

// 28. `while`.
#[tracked]
fn collatz(n: u64) -> u32 {
    let mut n = n;
    let mut steps = 0;
    while n != 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

// 29. `while let`, on a `Vec` being popped.
#[tracked]
fn pop_sum(v: Vec<i32>) -> i32 {
    let mut v = v;
    let mut s = 0;
    while let Some(x) = v.pop() {
        s += x;
    }
    s
}

// 30. `loop` with `break value`.
#[tracked]
fn first_square_above(n: u32) -> u32 {
    let mut i = 0;
    let found = loop {
        if i * i > n {
            break i;
        }
        i += 1;
    };
    found * 10
}

// 31. Labelled `break` and `continue` across nested loops.
#[tracked]
fn find_pair(target: u32) -> (u32, u32) {
    let mut result = (0, 0);
    let mut tries = 0;
    'outer: for i in 1..10 {
        let mut j = 0;
        while j < 10 {
            j += 1;
            tries += 1;
            if j > i {
                continue 'outer;
            }
            if i * j == target {
                result = (i, j);
                break 'outer;
            }
        }
    }
    (result.0 * 100 + result.1, tries)
}

// 32. `for` over ranges: exclusive, inclusive, reversed, stepped.
#[tracked]
fn range_loops(n: u32) -> u32 {
    let mut s = 0;
    for i in 0..n {
        s += i;
    }
    for i in (1..=n).rev() {
        s += i * 2;
    }
    for i in (0..n).step_by(3) {
        s += i * 100;
    }
    s
}

// 33. `for` over a slice, a `Vec` by value and by reference, with `.iter().enumerate()`.
#[tracked]
fn collection_loops(xs: &[f64], v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for x in xs {
        s += *x;
    }
    for (i, x) in v.iter().enumerate() {
        s += i as f64 * x;
    }
    for x in &v {
        s -= x / 2.0;
    }
    for x in v {
        s += x;
    }
    s
}

// 34. `for` over a `HashMap` (summed, so the iteration order does not matter).
#[tracked]
fn hashmap_loop(pairs: Vec<(String, i32)>) -> (i32, usize) {
    let mut m = HashMap::new();
    for (k, v) in pairs {
        *m.entry(k).or_insert(0) += v;
    }
    let mut total = 0;
    for (k, v) in &m {
        total += v * k.len() as i32;
    }
    (total, m.len())
}

// 35. Early `return`, from the top and from inside a loop.
#[tracked]
fn find_index(v: &[i32], x: i32) -> Option<usize> {
    if v.is_empty() {
        return None;
    }
    for i in 0..v.len() {
        if v[i] == x {
            return Some(i);
        }
    }
    None
}

#[derive(Debug, PartialEq)]
enum MyErr {
    Parse(std::num::ParseIntError),
    Negative(i64),
}

impl From<std::num::ParseIntError> for MyErr {
    fn from(e: std::num::ParseIntError) -> Self {
        MyErr::Parse(e)
    }
}

// 36. `?` on `Result`, converting the error through `From`.
#[tracked]
fn parse_positive(a: &str, b: &str) -> Result<i64, MyErr> {
    let x: i64 = a.trim().parse()?;
    let y = b.parse::<i64>()?;
    if x + y < 0 {
        return Err(MyErr::Negative(x + y));
    }
    Ok(x + y)
}

// 37. `?` on `Option`.
#[tracked]
fn first_two(v: &[i32]) -> Option<i32> {
    let a = v.first()?;
    let b = v.get(1)?;
    Some(a + b)
}

// 38. Blocks with values and `unsafe` blocks.
#[tracked]
fn blocks(x: i32, xs: &[i32]) -> i32 {
    let y = {
        let t = x * 2;
        t + 1
    };
    let first = unsafe { *xs.get_unchecked(0) };
    let five = x + 2;
    let p: *const i32 = &five;
    let z = unsafe { *p } + 2;
    let mut bonus = 0;
    {
        let _unused = z + first;
        if first > 100 {
            bonus = 1;
        }
    }
    y + z + first + bonus
}

// 39. Tuples, tuple fields, arrays and array repeat expressions.
#[tracked]
fn tuples_arrays(a: f64, n: usize) -> (f64, [f64; 4], (i32, (bool, char))) {
    let t = (a, 2 * n, (true, 'x'));
    let mut arr = [0.0; 4];
    arr[n % 4] = t.0;
    let nested = (t.1 as i32, t.2);
    let lit = [1.0, 2.0, 3.0];
    (arr[0] + lit[2] + (t.2).0 as i32 as f64, arr, nested)
}

// 40. Struct literals with and without `..base`, field access.
#[tracked]
fn struct_update(name: String, level: u8) -> Config {
    let base = Config {
        name: String::from("base"),
        level: 1,
        scale: 1.5,
        verbose: false,
    };
    let c = Config {
        name,
        level: base.level + level,
        ..base.clone()
    };
    let p = Point {
        x: c.scale,
        ..Default::default()
    };
    Config {
        scale: p.x * 2.0,
        verbose: c.level > 3 && p.x == 1.5,
        ..c
    }
}

// 41. `&`, `&mut` and `*` derefs.
#[tracked]
fn refs(x: i32) -> i32 {
    let mut y = x;
    let r = &mut y;
    *r += 1;
    *r *= 2;
    let s = &y;
    let t = &s;
    **t + *s
}

// 42. Casts between numeric types, `char` and `bool`.
#[tracked]
fn casts(x: f64, c: char) -> (i32, u8, i64, u32, f32, i32) {
    let a = x as i32;
    let b = (a as u8).wrapping_add(200);
    let d = -x as i64;
    let e = c as u32;
    let f = x as f32 / 2.0;
    (a, b, d, e, f, true as i32)
}

// 43. Ranges as values, and slicing.
#[tracked]
fn ranges(v: Vec<i32>, lo: usize) -> (usize, bool, i32, Vec<i32>) {
    let r = lo..v.len();
    let len = r.len();
    let inside = (1..=5).contains(&v[0]);
    let rest = &v[1..];
    // The receiver `v[lo..]` is an `index` node of its own (its range prints as `⟨lo..⟩`).
    let tail: i32 = v[lo..].iter().sum();
    let head: Vec<i32> = v.iter().take(lo).copied().collect();
    let from = (lo..).start;
    let upto = (..=lo).end;
    let full: std::ops::RangeFull = ..;
    let _ = full;
    (len + from + upto + rest.len(), inside, tail, head)
}

// 44. Macros: `vec!`, `format!`, `println!`, `assert!`, `assert_eq!`, `matches!`.
#[tracked]
fn macros(n: usize) -> String {
    let v = vec![n; 3];
    let w = vec![1, 2, 3];
    assert!(v.len() == 3, "three copies");
    assert_eq!(w.len(), 3);
    let s = format!("{}-{:?}-{}", n, w, v.iter().sum::<usize>());
    println!("macros: {s}");
    let m = matches!(n, 1..=5);
    format!("{s}:{m}")
}

static OFFSET: i32 = 7;

// 45. A `static` and a nested fn inside the body, and a global static: as operands, as
// arguments of a tracked fn, and read by reference.
#[tracked]
fn statics_and_items(x: i32) -> i32 {
    static LOCAL: i32 = 3;
    const FACTOR: i32 = 2;
    fn helper(y: i32) -> i32 {
        y * FACTOR
    }
    let listed = [3, 7].contains(&OFFSET);
    helper(x) + LOCAL + OFFSET + checked_div(OFFSET, FACTOR) + listed as i32
}

// 46. Recursion.
#[tracked]
fn fib(n: u32) -> u64 {
    if n < 2 {
        n as u64
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

// 47. Recursion with stochastic control flow.
#[tracked]
fn geom(n: i32, beta: f64, rng: &mut StdRng) -> i32 {
    if rng.random::<f64>() < beta {
        n
    } else {
        geom(n + 1, beta, rng)
    }
}

// 48. A function returning `impl Fn(f64) -> f64`.
#[tracked]
fn make_affine(k: f64, b: f64) -> impl Fn(f64) -> f64 {
    let kk = k * 2.0;
    move |x| kk * x + b
}

// 49. A function returning `impl Iterator<Item = u32>`.
#[tracked]
fn evens(n: u32) -> impl Iterator<Item = u32> {
    let end = n * 2;
    (0..end).step_by(2)
}

// 50. A `&mut Vec<f64>` argument, mutated in place.
#[tracked]
fn push_squares(v: &mut Vec<f64>, n: usize) -> usize {
    for i in 0..n {
        v.push((i * i) as f64);
    }
    v[0] = -1.0;
    v.len()
}

// 51. `&str`, `String` and `Option<T>` arguments together.
#[tracked]
fn strings(a: &str, b: String, sep: Option<char>) -> String {
    let mut out = String::new();
    out.push_str(a);
    if let Some(c) = sep {
        out.push(c);
    }
    out += &b;
    out.chars().rev().collect()
}

// 52. A generic `Option<T>` argument.
#[tracked]
fn unwrap_or_default<T: Default + Clone + std::fmt::Debug>(o: Option<T>) -> T {
    match o {
        Some(v) => v.clone(),
        None => T::default(),
    }
}

// 53. Shadowing, and a variable merged after a `match` and carried around a loop.
#[tracked]
fn shadow_merge(x: i32, n: u32) -> i32 {
    let x = x + 1;
    let x = x * 2;
    let mut acc = x;
    let mut i = 0;
    while i < n {
        acc = match i % 3 {
            0 => acc + 1,
            1 => acc * 2,
            _ => acc - 3,
        };
        i += 1;
    }
    acc
}

// 54. A closure called in a loop, with a captured vector read through a method.
#[tracked]
fn closure_in_loop(n: u32) -> u32 {
    let offset = 100;
    let step = |i: u32| i * 2 + offset;
    let mut total = 0;
    for i in 0..n {
        total += step(i);
    }
    total
}

// 55. A tracked caller calling a tracked function through an untracked module function.
mod other {
    pub fn sq(x: f64) -> f64 {
        super::sq(x)
    }
}

#[tracked]
fn uses_other(x: f64) -> f64 {
    other::sq(x) + sq(x)
}

// 56. A tracked function that panics for some inputs, inside a nested call.
#[tracked]
fn checked_div(a: i32, b: i32) -> i32 {
    if b == 0 {
        panic!("division by zero in the corpus");
    }
    a / b
}

#[tracked]
fn ratio_plus_one(a: i32, b: i32) -> i32 {
    let q = checked_div(a, b);
    q + 1
}

fn untracked_twice(x: f64) -> f64 {
    2.0 * x
}

// ---------------------------------------------------------------------------------------------
// Tests of the corpus.
// ---------------------------------------------------------------------------------------------

#[test]
fn let_with_patterns() {
    let q = Pair { a: 0.5, b: (3, 4) };
    let (v, t) = same!(let_patterns, ((2.0, 3.0), q));
    assert_eq!(t.root().value::<f64>(), Some(&v));
    // Each bound name is recorded: the nested pattern binds u and w.
    let specials: Vec<_> = t
        .root()
        .children()
        .filter(|c| c.kind() == NodeKind::Special)
        .collect();
    assert!(specials.len() >= 5, "pattern bindings are recorded\n{t}");
}

#[test]
fn let_else_both_outcomes() {
    let (v, t) = same!(let_else_parse, ("21"));
    assert_eq!(v, 42);
    assert_eq!(last_child(&t).value::<i32>(), Some(&42));
    let (v, t) = same!(let_else_parse, ("x1"));
    assert_eq!(v, -1);
    assert_eq!(t.root().value::<i32>(), Some(&-1));
    // The else branch returns before the multiplication runs.
    assert!(calls_of(&t, "*").is_empty(), "{t}");
    let (_, t) = same!(let_else_option, (Some(4)));
    assert_eq!(t.root().value::<u32>(), Some(&5));
    let (_, t) = same!(let_else_option, (None));
    assert!(calls_of(&t, "+").is_empty(), "{t}");
}

#[test]
fn compound_assignment_to_locals() {
    let (_, t) = same!(assign_ops, (1234, 56));
    for op in ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="] {
        assert_eq!(calls_of(&t, op).len(), 1, "{op} recorded once\n{t}");
    }
    let (_, t) = same!(assign_ops, (-7, 3));
    assert_eq!(t.root().value::<i64>(), Some(&assign_ops(-7, 3)));
}

#[test]
fn compound_assignment_to_fields() {
    let p = Point { x: 3.0, y: 5.0 };
    let (v, t) = same!(field_assign, (p));
    assert_eq!(v, Point { x: 1.5, y: 0.5 });
    for op in ["q.x =", "q.x +=", "q.y *=", "q.y -=", "q.x /=", "q.y %="] {
        assert_eq!(specials_of(&t, op).len(), 1, "{op} recorded once\n{t}");
    }
}

#[test]
fn compound_assignment_to_index() {
    let (v, t) = same!(index_assign, (vec![1, 2, 3]));
    assert_eq!(t.root().value::<Vec<i32>>(), Some(&v));
    for op in [
        "w[0] =", "w[1] +=", "w[2] -=", "w[0] *=", "w[1] %=", "w[2] |=", "w[0] ^=", "w[1] <<=",
        "w[2] &=", "w[0] >>=", "w[1] /=",
    ] {
        assert_eq!(specials_of(&t, op).len(), 1, "{op} recorded once\n{t}");
    }
}

#[test]
fn integer_operators() {
    for (a, b) in [(17, 5), (-9, 4), (0, 1)] {
        let (_, t) = same!(int_ops, (a, b));
        for op in ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "!"] {
            assert!(!calls_of(&t, op).is_empty(), "{op} recorded\n{t}");
        }
    }
}

#[test]
fn comparison_operators() {
    for (a, b) in [(1.0, 2.0), (2.0, 2.0), (3.0, -1.0)] {
        let (_, t) = same!(comparisons, (a, b));
        for op in ["<", "<=", ">", ">=", "==", "!=", "!"] {
            assert_eq!(calls_of(&t, op).len(), 1, "{op} recorded once\n{t}");
        }
    }
}

#[test]
fn and_both_outcomes() {
    let (v, t) = same!(and_short, (0, 5));
    assert!(!v);
    // The right side did not run: no division, and a jump since the left side was false.
    assert!(calls_of(&t, "/").is_empty(), "{t}");
    assert!(
        !false_jumps(&t).is_empty(),
        "a jump since the left side is false\n{t}"
    );
    let (v, t) = same!(and_short, (2, 5));
    assert!(v);
    assert_eq!(calls_of(&t, "/").len(), 1, "{t}");
    let (v, _) = same!(and_short, (2, 1));
    assert!(!v);
}

#[test]
fn or_both_outcomes() {
    let (v, t) = same!(or_short, (0));
    assert!(v);
    assert!(calls_of(&t, "/").is_empty(), "{t}");
    let (v, t) = same!(or_short, (3));
    assert!(v);
    assert_eq!(calls_of(&t, "/").len(), 1, "{t}");
    assert!(
        !false_jumps(&t).is_empty(),
        "a jump since the left side is false\n{t}"
    );
    let (v, _) = same!(or_short, (5));
    assert!(!v);
}

#[test]
fn method_calls() {
    let (_, t) = same!(method_chain, (String::from("  abcab ")));
    for m in [
        "trim",
        "to_uppercase",
        "len",
        "max",
        "pow",
        "min",
        "replace",
    ] {
        let c = calls_of(&t, m);
        assert_eq!(c.len(), 1, "{m} recorded once\n{t}");
        assert_eq!(c[0].kind(), NodeKind::PrimitiveCall);
    }
}

#[test]
fn path_calls_are_nested_when_tracked() {
    let (_, t) = same!(path_calls, (1.5));
    let sq = calls_of(&t, "sq");
    assert_eq!(sq.len(), 2, "{t}");
    assert!(sq.iter().all(|c| c.kind() == NodeKind::NestedCall), "{t}");
    // `sq(HALF)`: a named constant as the argument keeps the call nested.
    assert!(is_constant(refs_of(sq[1])[0], "HALF"), "{t}");
    assert_eq!(sq[1].value::<f64>(), Some(&0.25));
    assert_eq!(
        calls_of(&t, "Point::origin")[0].kind(),
        NodeKind::NestedCall,
        "{t}"
    );
    assert_eq!(
        calls_of(&t, "Area::area")[0].kind(),
        NodeKind::NestedCall,
        "{t}"
    );
    assert_eq!(
        calls_of(&t, "<Rect as Area>::area")[0].kind(),
        NodeKind::NestedCall,
        "{t}"
    );
    assert_eq!(
        calls_of(&t, "f64::max")[0].kind(),
        NodeKind::PrimitiveCall,
        "{t}"
    );
    assert_eq!(
        calls_of(&t, "std::cmp::max")[0].kind(),
        NodeKind::PrimitiveCall,
        "{t}"
    );
}

#[test]
fn generic_functions() {
    // `largest` has no `Debug` bound, yet a `T` that is a scalar is recorded typed (the root
    // included); a slice of `T` is known only by its type.
    let (v, t) = same!(largest, (&[3, 9, 2][..]));
    assert_eq!(v, 9);
    assert_eq!(t.root().value::<i32>(), Some(&9), "{t}");
    assert_eq!(t.root().type_name(), "i32");
    assert_eq!(last_child(&t).value::<i32>(), Some(&9), "{t}");
    assert!(t.root().child(1).unwrap().raw_value().is_opaque(), "{t}");
    let gt: Vec<_> = calls_of(&t, ">").iter().map(|c| c.value_text()).collect();
    assert_eq!(gt, ["false", "true", "false"], "{t}");
    // The loop body ends in an `if` without `else`: the false comparisons jump past it.
    assert_eq!(false_jumps(&t).len(), 2, "{t}");
    let (v, t) = same!(largest::<f64>, (&[0.5, -1.0][..]));
    assert_eq!(v, 0.5);
    assert_eq!(t.root().value::<f64>(), Some(&0.5));
    same!(largest, (&['x'][..]));
    let (_, t) = same!(sum_all, (&[1.5, 2.5][..]));
    assert_eq!(t.root().value::<f64>(), Some(&4.0));
    let (_, t) = same!(generic_user, (vec![4, 1, 7], vec![0.25, 3.5]));
    for name in ["largest", "largest::<f64>", "sum_all"] {
        let c = calls_of(&t, name);
        assert_eq!(c.len(), 1, "{name}\n{t}");
        assert_eq!(c[0].kind(), NodeKind::NestedCall, "{name}\n{t}");
    }
    // The concrete caller records the value of its call of `largest`.
    assert_eq!(calls_of(&t, "largest")[0].value::<i32>(), Some(&7), "{t}");
    assert_eq!(
        calls_of(&t, "largest::<f64>")[0].value::<f64>(),
        Some(&3.5),
        "{t}"
    );
}

#[test]
fn methods_of_a_tracked_impl() {
    let (_, t) = same!(point_methods, (3.0));
    for name in ["Point::new", "shift", "scaled", "norm"] {
        let c = calls_of(&t, name);
        assert_eq!(c.len(), 1, "{name}\n{t}");
        assert_eq!(c[0].kind(), NodeKind::NestedCall, "{name}\n{t}");
    }
    // `&mut self`: the callee's `+=` on a field is recorded inside the nested call.
    let shift = calls_of(&t, "shift")[0];
    assert!(
        shift
            .children()
            .any(|c| c.kind() == NodeKind::Special && c.entry().unwrap().head == "self.x +="),
        "{t}"
    );
}

#[test]
fn trait_impl_methods() {
    let (_, t) = same!(total_area, (1.0, 2.0));
    // Twice directly, twice through `&dyn Area` in the loop: each claimed by the right impl.
    let areas = calls_of(&t, "area");
    assert_eq!(areas.len(), 4, "{t}");
    assert!(
        areas.iter().all(|c| c.kind() == NodeKind::NestedCall),
        "{t}"
    );
    let irs: Vec<_> = areas.iter().map(|c| c.callee_ir().unwrap()).collect();
    assert!(
        std::ptr::eq(irs[0], irs[2]),
        "the circle's area both times\n{t}"
    );
    assert!(
        std::ptr::eq(irs[1], irs[3]),
        "the rectangle's area both times\n{t}"
    );
    assert!(!std::ptr::eq(irs[0], irs[1]));
    // The default method `doubled` is not tracked; the `area` calls it makes are not
    // announced by a tracked caller, so nothing claims them.
    let doubled = calls_of(&t, "doubled");
    assert_eq!(doubled.len(), 2, "{t}");
    assert!(
        doubled.iter().all(|c| c.kind() == NodeKind::PrimitiveCall),
        "{t}"
    );
}

#[test]
fn closures_in_the_body() {
    for x in [1.0, 5.0] {
        let (_, t) = same!(closures, (x));
        for name in ["affine", "total", "clamp", "lift"] {
            let c = calls_of(&t, name);
            assert_eq!(c.len(), 1, "{name}\n{t}");
            assert_eq!(c[0].kind(), NodeKind::NestedCall, "{name}\n{t}");
        }
        // `k * y`: the captured `k` is the left operand.
        let affine = calls_of(&t, "affine")[0];
        let mul = affine
            .children()
            .find(|c| c.function_name() == Some("*"))
            .expect("k * y is recorded");
        assert!(is_constant(refs_of(mul)[0], "k"), "{t}");
        // `sq(k)` with the captured `k` as its argument is a nested call.
        let lift = calls_of(&t, "lift")[0];
        let sq = lift
            .children()
            .find(|c| c.function_name() == Some("sq"))
            .expect("sq(k) is recorded");
        assert_eq!(sq.kind(), NodeKind::NestedCall, "{t}");
        assert!(is_constant(refs_of(sq)[0], "k"), "{t}");
        assert_eq!(sq.value::<f64>(), Some(&9.0));
    }
    // With x = 5 the closure returns early: its return is the constant 10.
    let t = track(closures, (5.0,));
    let clamp = calls_of(&t, "clamp")[0];
    assert_eq!(clamp.value::<f64>(), Some(&10.0));
}

#[test]
fn closures_passed_to_a_tracked_higher_order_fn() {
    let (v, t) = same!(higher_order, (3.0));
    assert_eq!(v, 24.0);
    let applies = calls_of(&t, "apply");
    assert_eq!(applies.len(), 3, "{t}");
    // `apply(sq, x)`: the fn item is a constant node, and the call is still nested.
    assert!(is_constant(refs_of(applies[1])[0], "sq"), "{t}");
    assert!(
        applies.iter().all(|c| c.kind() == NodeKind::NestedCall),
        "{t}"
    );
    // Inside `apply`, `f(x)` calls the closure, then `sq`: both are tracked, both nested.
    for a in &applies {
        let inner: Vec<_> = a
            .children()
            .filter(|c| c.function_name() == Some("f"))
            .collect();
        assert_eq!(inner.len(), 1, "{t}");
        assert_eq!(inner[0].kind(), NodeKind::NestedCall, "{t}");
    }
}

#[test]
fn closures_passed_to_iterator_adaptors() {
    let (v, t) = same!(adaptors, (vec![1, 2, 3, 4]));
    assert_eq!(v, 18);
    for m in ["iter", "map", "filter", "fold"] {
        assert_eq!(calls_of(&t, m).len(), 1, "{m}\n{t}");
    }
    // The adaptors call the closures themselves, unannounced: nothing is nested below them.
    let fold = calls_of(&t, "fold")[0];
    assert_eq!(fold.kind(), NodeKind::PrimitiveCall, "{t}");
    assert_eq!(fold.children().len(), 0);
    assert_eq!(fold.value::<i32>(), Some(&18));
}

#[test]
fn if_else_values() {
    let (_, t) = same!(sign, (-4.0));
    assert_eq!(t.root().value::<f64>(), Some(&-2.0));
    let (_, t) = same!(sign, (9.0));
    assert_eq!(
        false_jumps(&t).len(),
        1,
        "the then-branch was not taken\n{t}"
    );
    for (n, g) in [(95, 'A'), (85, 'B'), (75, 'C'), (10, 'F')] {
        let (v, t) = same!(grade, (n));
        assert_eq!(v, g);
        assert_eq!(t.root().value::<char>(), Some(&g));
    }
    // 10 falls through all three conditions.
    assert_eq!(false_jumps(&track(grade, (10,))).len(), 3);
    let (v, _) = same!(clamp_low, (-5));
    assert_eq!(v, 1);
    let (v, _) = same!(clamp_low, (5));
    assert_eq!(v, 6);
}

#[test]
fn if_let_both_outcomes() {
    same!(if_let, (Some(3), Ok(4)));
    same!(if_let, (None, Err(String::from("no"))));
    let (v, _) = same!(if_let, (Some(-2), Err(String::new())));
    assert_eq!(v, -102);
}

#[test]
fn match_on_enums() {
    for s in [
        Shape::Circle(-1.0),
        Shape::Circle(2.0),
        Shape::Rect { w: 2.0, h: 3.0 },
        Shape::Tri(3.0, 4.0, 5.0),
        Shape::Empty,
    ] {
        let (_, t) = same!(shape_area, (s.clone()));
        let jumps = t
            .root()
            .children()
            .filter(|c| c.kind() == NodeKind::Jump)
            .count();
        assert!(jumps >= 1, "a match arm is a branch taken\n{t}");
    }
    let t = track(shape_area, (Shape::Tri(3.0, 4.0, 5.0),));
    assert_eq!(t.root().value::<f64>(), Some(&6.0));
    assert_eq!(calls_of(&t, "sqrt").len(), 1);
}

#[test]
fn match_with_or_range_binding_guard() {
    for n in [0, 2, 7, -4, 50, 1000] {
        let (v, t) = same!(classify, (n));
        assert_eq!(t.root().value_text(), format!("{v:?}"));
    }
    for (a, c) in [(Some(2), 'b'), (Some(2), '7'), (None, 'x'), (Some(1), 'z')] {
        same!(match_tuple, (a, c));
    }
}

#[test]
fn while_loops() {
    let (v, t) = same!(collatz, (6));
    assert_eq!(v, 8);
    // The header of the loop runs once per iteration and once more to leave.
    assert_eq!(header_visits(&t, 2), 9, "{t}");
    let (_, t) = same!(collatz, (1));
    assert_eq!(header_visits(&t, 2), 1, "{t}");
}

#[test]
fn while_let_loops() {
    let (v, t) = same!(pop_sum, (vec![1, 2, 3]));
    assert_eq!(v, 6);
    assert_eq!(calls_of(&t, "pop").len(), 4, "three hits and the None\n{t}");
    same!(pop_sum, (Vec::new()));
}

#[test]
fn loop_with_break_value() {
    let (v, t) = same!(first_square_above, (10));
    assert_eq!(v, 40);
    assert_eq!(calls_of(&t, "+=").len(), 4, "{t}");
    same!(first_square_above, (0));
}

#[test]
fn labelled_break_and_continue() {
    for target in [6, 12, 81, 97] {
        same!(find_pair, (target));
    }
    // 6 = 3 * 2: `break 'outer` in the third outer iteration leaves both loops at once.
    let t = track(find_pair, (6,));
    assert_eq!(t.root().value_text(), "(302, 7)");
    assert_eq!(calls_of(&t, "next").len(), 3, "{t}");
    // 97 is never found: every outer iteration runs, then the range is exhausted.
    let t = track(find_pair, (97,));
    assert_eq!(calls_of(&t, "next").len(), 10, "{t}");
    // Each `continue 'outer` is a jump from the inner loop's body straight to the outer header.
    let outer_header = calls_of(&t, "next")[0].location().unwrap().block;
    let continues = t
        .root()
        .children()
        .filter(|c| c.kind() == NodeKind::Jump && c.entry().unwrap().target == outer_header)
        .filter(|c| c.entry().unwrap().location.block != 1)
        .count();
    assert_eq!(continues, 9, "{t}");
}

#[test]
fn for_over_ranges() {
    for n in [0, 1, 7] {
        same!(range_loops, (n));
    }
    let t = track(range_loops, (4,));
    // next() is called n + 1 times by each of the first two loops, 3 times by the stepped one.
    assert_eq!(calls_of(&t, "next").len(), 5 + 5 + 3, "{t}");
}

#[test]
fn for_over_collections() {
    let (v, t) = same!(collection_loops, (&[1.0, 2.0][..], vec![3.0, 4.0, 5.0]));
    assert_eq!(t.root().value::<f64>(), Some(&v));
    same!(collection_loops, (&[][..], Vec::new()));
}

#[test]
fn for_over_hashmap() {
    let pairs = || {
        vec![
            ("a".to_string(), 1),
            ("bb".to_string(), 2),
            ("a".to_string(), 3),
        ]
    };
    let (v, t) = same!(hashmap_loop, (pairs()));
    assert_eq!(v, (8, 2));
    // Three pairs and the end of the `Vec`, then two entries and the end of the map.
    assert_eq!(calls_of(&t, "next").len(), 4 + 3, "{t}");
}

#[test]
fn early_returns() {
    let (v, t) = same!(find_index, (&[4, 5, 6][..], 5));
    assert_eq!(v, Some(1));
    // The return inside the loop ends the tape after the second comparison.
    let eqs = calls_of(&t, "==");
    assert_eq!(eqs.len(), 2, "{t}");
    // `v[i] == x` compares the element, recorded as an `index` node of its own.
    for (eq, elem) in eqs.iter().zip([4, 5]) {
        let lhs = refs_of(*eq)[0];
        assert_eq!(lhs.function_name(), Some("index"), "{t}");
        assert_eq!(lhs.value::<i32>(), Some(&elem), "{t}");
    }
    assert_eq!(same!(find_index, (&[][..], 5)).0, None);
    assert_eq!(same!(find_index, (&[1][..], 5)).0, None);
}

#[test]
fn question_mark_on_result() {
    let (v, t) = same!(parse_positive, (" 40", "2"));
    assert_eq!(v, Ok(42));
    assert!(last_child(&t).value_text().starts_with("Ok("), "{t}");
    // A parse error converts through `From` and returns early.
    let (v, t) = same!(parse_positive, ("40", "two"));
    assert!(matches!(v, Err(MyErr::Parse(_))));
    let ret = last_child(&t);
    assert_eq!(ret.kind(), NodeKind::Return);
    assert!(ret.value_text().starts_with("Err(Parse("), "{t}");
    // The early return holds the converted error, of the function's return type.
    assert_eq!(ret.value_text(), format!("{v:?}"), "{t}");
    assert_eq!(ret.type_name(), "Result<i64, MyErr>", "{t}");
    // The first `?` fails: the second parse never runs.
    let (v, t) = same!(parse_positive, ("x", "2"));
    assert_eq!(calls_of(&t, "parse").len(), 1, "{t}");
    assert!(matches!(v, Err(MyErr::Parse(_))));
    assert_eq!(last_child(&t).kind(), NodeKind::Return);
    assert_eq!(last_child(&t).value_text(), format!("{v:?}"), "{t}");
    let (v, _) = same!(parse_positive, ("1", "-5"));
    assert_eq!(v, Err(MyErr::Negative(-4)));
}

#[test]
fn question_mark_on_option() {
    let (v, t) = same!(first_two, (&[1, 2, 3][..]));
    assert_eq!(v, Some(3));
    assert_eq!(last_child(&t).value_text(), "Some(3)");
    let (v, t) = same!(first_two, (&[1][..]));
    assert_eq!(v, None);
    assert_eq!(last_child(&t).kind(), NodeKind::Return);
    assert_eq!(last_child(&t).value_text(), "None", "{t}");
    same!(first_two, (&[][..]));
}

#[test]
fn blocks_and_unsafe() {
    let (v, t) = same!(blocks, (3, &[10, 20][..]));
    assert_eq!(v, 7 + 7 + 10);
    // Both derefs read a value, so both are `$(*)` nodes: of the reference `get_unchecked`
    // returns, and of the raw pointer to `five`, which is the node of `x + 2`.
    let derefs = specials_of(&t, "*");
    assert_eq!(derefs.len(), 2, "{t}");
    assert_eq!(derefs[0].value::<i32>(), Some(&10), "{t}");
    assert_eq!(derefs[1].value::<i32>(), Some(&5), "{t}");
    assert_eq!(refs_of(derefs[1])[0].function_name(), Some("+"), "{t}");
    // The block ending in an `if` without `else`, both ways.
    let (v, _) = same!(blocks, (3, &[200][..]));
    assert_eq!(v, 7 + 7 + 200 + 1);
}

#[test]
fn tuples_and_arrays() {
    for n in [0, 3, 6] {
        same!(tuples_arrays, (1.5, n));
    }
    let t = track(tuples_arrays, (1.5, 1));
    let repeat = t
        .root()
        .children()
        .find(|c| c.kind() == NodeKind::Special && c.raw_value().type_name() == "[f64; 4]")
        .expect("the array repeat is recorded");
    assert_eq!(repeat.value::<[f64; 4]>(), Some(&[0.0; 4]), "{t}");
    // `(t.2).0` in value position: one read of `t` at the path `.2.0` (issue 11, case 2).
    assert!(
        specials_of(&t, ".2.0")
            .iter()
            .any(|c| c.value::<bool>() == Some(&true)),
        "{t}"
    );
}

#[test]
fn struct_literals_with_base() {
    let (v, t) = same!(struct_update, (String::from("mine"), 4));
    assert_eq!(v.level, 5);
    assert_eq!(v.scale, 3.0);
    assert!(v.verbose);
    assert!(
        t.root().children().any(|c| c.kind() == NodeKind::Special),
        "struct literals are specials\n{t}"
    );
    // Fields compared in place are field-read nodes of their own.
    let gt = calls_of(&t, ">")[0];
    assert_eq!(refs_of(gt)[0].entry().unwrap().head, ".level", "{t}");
    assert_eq!(refs_of(gt)[0].value::<u8>(), Some(&5), "{t}");
    let eq = calls_of(&t, "==")[0];
    assert_eq!(refs_of(eq)[0].entry().unwrap().head, ".x", "{t}");
    assert_eq!(refs_of(eq)[0].value::<f64>(), Some(&1.5), "{t}");
    let (v, _) = same!(struct_update, (String::new(), 1));
    assert!(!v.verbose);
}

#[test]
fn references_and_derefs() {
    let (v, t) = same!(refs, (4));
    assert_eq!(v, 20);
    // `**t + *s`: each read is a `$(*)` node with the current value (the mutations through `r`
    // made no node: a documented caveat).
    let derefs = specials_of(&t, "*");
    assert_eq!(derefs.len(), 2, "{t}");
    assert!(derefs.iter().all(|d| d.value::<i32>() == Some(&10)), "{t}");
}

#[test]
fn numeric_casts() {
    let (_, t) = same!(casts, (-2.75, 'é'));
    let as_nodes: Vec<_> = t
        .root()
        .children()
        .filter(|c| c.function_name().is_none() && c.kind() == NodeKind::Special)
        .filter_map(|c| c.entry())
        .filter(|e| e.head.starts_with("as "))
        .collect();
    assert!(as_nodes.len() >= 6, "{t}");
    same!(casts, (300.9, 'a'));
}

#[test]
fn ranges_and_slicing() {
    let (_, t) = same!(ranges, (vec![3, 1, 4, 1, 5], 2));
    // `contains(&v[0])` takes the element, an `index` node of its own.
    let contains = calls_of(&t, "contains")[0];
    let elem = refs_of(contains)[1];
    assert_eq!(elem.function_name(), Some("index"), "{t}");
    assert_eq!(elem.value::<i32>(), Some(&3), "{t}");
    // `&v[1..]` is an `index` node too, the receiver of `rest.len()`.
    let rest = calls_of(&t, "len")
        .into_iter()
        .map(|c| refs_of(c)[0])
        .find(|r| r.function_name() == Some("index"))
        .expect("rest.len() reads the slice");
    assert_eq!(rest.value_text(), "[1, 4, 1, 5]", "{t}");
    same!(ranges, (vec![9], 0));
}

#[test]
fn std_macros() {
    let (v, t) = same!(macros, (2));
    assert_eq!(v, "2-[1, 2, 3]-6:true");
    // Inline format arguments (`{s}`, `{m}`) are operands of the macro's node.
    let formats = specials_of(&t, "format!");
    assert_eq!(formats.len(), 2, "{t}");
    let s = formats[0];
    let printed = specials_of(&t, "println!");
    assert_eq!(printed.len(), 1, "{t}");
    assert!(refs_of(printed[0]) == [s], "{t}");
    // `matches!(n, 1..=5)` is the `match` it expands to: a branch on the pattern, and its
    // value a merge block's argument, the second format's operand.
    assert!(specials_of(&t, "matches!").is_empty(), "{t}");
    let operands = refs_of(formats[1]);
    assert!(operands.len() == 2 && operands[0] == s, "{t}");
    assert_eq!(operands[1].value::<bool>(), Some(&true), "{t}");
    assert_eq!(operands[1].kind(), NodeKind::Argument, "{t}");
    same!(macros, (8));
}

#[test]
fn statics_and_nested_fns() {
    let (v, t) = same!(statics_and_items, (5));
    assert_eq!(v, 10 + 3 + 7 + 3 + 1);
    // A tracked fn called with a static and a constant is a nested call.
    let div = calls_of(&t, "checked_div");
    assert_eq!(div.len(), 1, "{t}");
    assert_eq!(div[0].kind(), NodeKind::NestedCall, "{t}");
    let args = refs_of(div[0]);
    assert!(
        is_constant(args[0], "OFFSET") && is_constant(args[1], "FACTOR"),
        "{t}"
    );
    // `&OFFSET`, read by reference, is a constant node too.
    let contains = calls_of(&t, "contains")[0];
    assert!(is_constant(refs_of(contains)[1], "OFFSET"), "{t}");
    let helper = calls_of(&t, "helper");
    assert_eq!(helper.len(), 1, "{t}");
    assert_eq!(
        helper[0].kind(),
        NodeKind::PrimitiveCall,
        "a nested fn is not tracked"
    );
}

#[test]
fn recursion_fib() {
    let (v, t) = same!(fib, (6));
    assert_eq!(v, 8);
    // fib(6) makes 25 calls in all, the root included.
    let nested = descendants(t.root())
        .into_iter()
        .filter(|n| n.kind() == NodeKind::NestedCall)
        .count();
    assert_eq!(nested + 1, 25, "{t}");
}

#[test]
fn recursion_geom() {
    for seed in [0, 1, 3, 42] {
        let (v, t) = same!(geom, (1, 0.5, &mut StdRng::seed_from_u64(seed)));
        // The depth of the trace is the number of draws made.
        let depth = std::iter::successors(Some(t.root()), |n| {
            n.children().find(|c| c.kind() == NodeKind::NestedCall)
        })
        .count();
        assert_eq!(depth as i32, v, "{t}");
        // The tracked run drew exactly as many numbers as the untracked one.
        let mut a = StdRng::seed_from_u64(seed);
        let mut b = StdRng::seed_from_u64(seed);
        geom(1, 0.5, &mut a);
        track(geom, (1, 0.5, &mut b));
        assert_eq!(a.random::<u64>(), b.random::<u64>());
    }
}

#[test]
fn returns_impl_fn() {
    let direct = make_affine(1.5, 2.0);
    let (out, t) = track_output(make_affine, (1.5, 2.0));
    for x in [0.0, 1.0, -3.5] {
        assert_eq!(out(x), direct(x));
    }
    assert_eq!(t.root().kind(), NodeKind::NestedCall);
    check_trace(&t);
    assert_eq!(calls_of(&t, "*").len(), 1, "{t}");
}

#[test]
fn returns_impl_iterator() {
    let direct = evens(5);
    let text = format!("{:?}", (0..10_u32).step_by(2));
    let (out, t) = track_output(evens, (5,));
    assert_eq!(t.root().value_text(), text);
    assert_eq!(out.collect::<Vec<_>>(), direct.collect::<Vec<_>>());
    check_trace(&t);
}

#[test]
fn mutable_vec_argument() {
    let mut a = vec![9.0];
    let mut b = vec![9.0];
    let direct = push_squares(&mut a, 4);
    let (out, t) = track_output(push_squares, (&mut b, 4));
    assert_eq!(out, direct);
    assert_eq!(a, b);
    assert_eq!(a, vec![-1.0, 0.0, 1.0, 4.0, 9.0]);
    assert_eq!(t.root().value::<usize>(), Some(&5));
    check_trace(&t);
    assert_eq!(calls_of(&t, "push").len(), 4, "{t}");
}

#[test]
fn string_and_option_arguments() {
    let (v, _) = same!(strings, ("ab", String::from("cd"), Some('-')));
    assert_eq!(v, "dc-ba");
    same!(strings, ("", String::new(), None));
    let (v, _) = same!(unwrap_or_default, (Some(String::from("x"))));
    assert_eq!(v, "x");
    let (v, t) = same!(unwrap_or_default::<i32>, (None));
    assert_eq!(v, 0);
    assert_eq!(t.root().value::<i32>(), Some(&0));
}

#[test]
fn shadowing_and_merges_in_loops() {
    for n in [0, 1, 5, 9] {
        let (_, t) = same!(shadow_merge, (3, n));
        assert_eq!(header_visits(&t, 2), n as usize + 1, "{t}");
    }
}

#[test]
fn closure_called_in_a_loop() {
    let (v, t) = same!(closure_in_loop, (4));
    assert_eq!(v, 412);
    let steps = calls_of(&t, "step");
    assert_eq!(steps.len(), 4, "{t}");
    assert!(
        steps.iter().all(|c| c.kind() == NodeKind::NestedCall),
        "{t}"
    );
    // Each call receives the loop variable of its own iteration.
    for (k, c) in steps.iter().enumerate() {
        assert_eq!(c.child(1).unwrap().value::<u32>(), Some(&(k as u32)), "{t}");
    }
    same!(closure_in_loop, (0));
}

// ---------------------------------------------------------------------------------------------
// Specific tests.
// ---------------------------------------------------------------------------------------------

/// (a) A tracked function called through an untracked one is a primitive with no children;
/// called directly it is nested.
#[test]
fn untracked_wrapper_is_primitive() {
    let (v, t) = same!(uses_other, (3.0));
    assert_eq!(v, 18.0);
    let via_other = calls_of(&t, "other::sq");
    assert_eq!(via_other.len(), 1, "{t}");
    assert_eq!(via_other[0].kind(), NodeKind::PrimitiveCall, "{t}");
    assert_eq!(via_other[0].children().len(), 0, "{t}");
    assert_eq!(via_other[0].value::<f64>(), Some(&9.0));
    let direct = calls_of(&t, "sq");
    assert_eq!(direct.len(), 1, "{t}");
    assert_eq!(direct[0].kind(), NodeKind::NestedCall, "{t}");
    assert_eq!(direct[0].value::<f64>(), Some(&9.0));
}

/// (b) `track` on an untracked function gives a primitive root with no children.
#[test]
fn tracking_an_untracked_function() {
    let (out, t) = track_output(untracked_twice, (4.0,));
    assert_eq!(out, 8.0);
    let root = t.root();
    assert_eq!(root.kind(), NodeKind::PrimitiveCall);
    assert_eq!(root.children().len(), 0);
    assert_eq!(t.len(), 1);
    check_trace(&t);
    // A closure calling a tracked function is itself untracked: the root is still primitive.
    let t = track(|x: f64| sq(x) + 1.0, (2.0,));
    assert_eq!(t.root().kind(), NodeKind::PrimitiveCall);
    assert_eq!(t.root().children().len(), 0);
    check_trace(&t);
}

/// (c) A panic propagates out of `track`, and the next `track` on the thread works.
#[test]
fn panic_propagates_and_recorder_recovers() {
    let before = track(ratio_plus_one, (7, 2)).root().to_string();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        track(ratio_plus_one, (7, 0))
    }));
    let payload = caught.expect_err("the panic propagates");
    let msg = payload.downcast_ref::<&str>().copied().unwrap_or_default();
    assert_eq!(msg, "division by zero in the corpus");
    let (v, t) = same!(ratio_plus_one, (7, 2));
    assert_eq!(v, 4);
    assert_eq!(t.root().to_string(), before);
    assert_eq!(calls_of(&t, "checked_div")[0].kind(), NodeKind::NestedCall);
    // Twice in a row, and untracked calls in between.
    let again = std::panic::catch_unwind(|| track(checked_div, (1, 0)));
    assert!(again.is_err());
    assert_eq!(ratio_plus_one(9, 3), 4);
    assert_eq!(track(ratio_plus_one, (7, 2)).root().to_string(), before);
}

/// (d) Four threads tracking at once get independent, correct traces.
#[test]
fn tracking_on_four_threads() {
    let inputs = [(0_u32, 3.0_f64), (5, 1.0), (9, -2.0), (12, 0.5)];
    let expected: Vec<(String, String)> = inputs
        .iter()
        .map(|&(n, x)| {
            (
                track(shadow_merge, (n as i32, n)).root().to_string(),
                track(closures, (x,)).root().to_string(),
            )
        })
        .collect();
    let got: Vec<(String, String)> = std::thread::scope(|s| {
        let handles: Vec<_> = inputs
            .iter()
            .map(|&(n, x)| {
                s.spawn(move || {
                    let mut last = (String::new(), String::new());
                    for _ in 0..20 {
                        let a = track(shadow_merge, (n as i32, n));
                        let b = track(closures, (x,));
                        check_trace(&a);
                        check_trace(&b);
                        last = (a.root().to_string(), b.root().to_string());
                    }
                    last
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(got, expected);
    // The inputs really differ, so equal listings are not a coincidence.
    assert_ne!(expected[0], expected[1]);
}

fn plain_collatz(n: u64) -> u32 {
    let mut n = n;
    let mut steps = 0;
    while n != 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

fn plain_shadow_merge(x: i32, n: u32) -> i32 {
    let x = (x + 1) * 2;
    let mut acc = x;
    for i in 0..n {
        acc = match i % 3 {
            0 => acc + 1,
            1 => acc * 2,
            _ => acc - 3,
        };
    }
    acc
}

/// (e) Called while not tracking, a tracked function behaves as the untracked one.
#[test]
fn untracked_calls_behave_as_written() {
    for n in 1..300_u64 {
        assert_eq!(collatz(n), plain_collatz(n));
    }
    for x in -20..20 {
        for n in 0..12 {
            assert_eq!(shadow_merge(x, n), plain_shadow_merge(x, n));
        }
    }
    let fibs: Vec<u64> = (0..20).map(fib).collect();
    assert_eq!(fibs[19], 4181);
    assert!(fibs.windows(3).all(|w| w[2] == w[0] + w[1]));
    for s in ["1", "-3", "x", " 7"] {
        let direct = s.trim().parse::<i64>().map_err(MyErr::from);
        assert_eq!(
            parse_positive(s, "0"),
            direct.and_then(|v| {
                if v < 0 {
                    Err(MyErr::Negative(v))
                } else {
                    Ok(v)
                }
            })
        );
    }
    // A tracked call made after tracking finished still behaves as untracked.
    let _ = track(fib, (5,));
    assert_eq!(fib(10), 55);
    assert_eq!(classify(5), "small 50");
    let mut v = vec![];
    assert_eq!(push_squares(&mut v, 3), 3);
    assert_eq!(v, vec![-1.0, 1.0, 4.0]);
}
