//! One test per bug found, named `repro_<n>` in the order they were found.

use irtrack::{track, track_output, tracked, NodeKind};

mod other {
    // An untracked function of the same name that calls the tracked one.
    pub fn sq(x: f64) -> f64 {
        super::sq(x) + 1.0
    }
}

#[tracked]
fn sq(x: f64) -> f64 {
    x * x
}

#[tracked]
fn calls_other_then_sq(x: f64) -> f64 {
    other::sq(x) + sq(x)
}

/// Bug 1: a tracked callee that declined a call built its frame handle anyway, and dropping
/// it closed the caller's frame: the caller's next record panicked.
#[test]
fn repro_1_declined_claim_keeps_the_callers_frame() {
    let (out, trace) = track_output(calls_other_then_sq, (3.0,));
    assert_eq!(out, 19.0);
    let root = trace.root();
    let other = root.child(2).expect("@2 is the call of other::sq");
    assert_eq!(other.function_name(), Some("other::sq"));
    assert_eq!(other.kind(), NodeKind::PrimitiveCall);
    assert_eq!(other.children().len(), 0);
    let nested = root.child(3).expect("@3 is the call of sq");
    assert_eq!(nested.kind(), NodeKind::NestedCall);
    assert_eq!(nested.value::<f64>(), Some(&9.0));
}

#[tracked]
fn parse_then_add(a: &str) -> Result<i32, std::num::ParseIntError> {
    let x: i32 = a.parse()?;
    Ok(x + 1)
}

/// Bug 2: `a.parse()?` has an open type when recorded, and capture committed to `Snapshot`,
/// which `ParseIntError` lacks: a valid function did not compile.
#[test]
fn repro_2_values_typed_after_recording_compile_and_record() {
    let trace = track(parse_then_add, ("41",));
    assert_eq!(trace.root().value_text(), "Ok(42)");
    let parse = trace.root().child(2).expect("@2 is parse");
    assert_eq!(parse.value_text(), "Ok(41)");
    let trace = track(parse_then_add, ("x",));
    assert!(trace.root().value_text().starts_with("Err(ParseIntError"));
}

#[tracked]
fn consume_then_break(n: usize) -> usize {
    let mut acc = Vec::new();
    let mut total = 0;
    loop {
        acc = grow(acc);
        if acc.len() >= n {
            total += finish(acc);
            break;
        }
    }
    total
}

fn grow(mut v: Vec<usize>) -> Vec<usize> {
    v.push(v.len());
    v
}

fn finish(v: Vec<usize>) -> usize {
    v.into_iter().sum()
}

/// Bug 3: block arguments were recorded by borrowing the variable after the jump, so a
/// variable moved just before `break` made a valid function fail to compile.
#[test]
fn repro_3_variable_moved_before_break() {
    let (out, trace) = track_output(consume_then_break, (3,));
    assert_eq!(out, consume_then_break(3));
    assert_eq!(trace.root().value::<usize>(), Some(&3));
}

#[tracked]
fn scaled(x: f64) -> f64 {
    let a = 2.0;
    let f = |y: f64| a * y;
    f(x)
}

/// Bug 4: in a closure, a captured variable as the left operand of an operator was recorded as
/// a bare block at the start of a statement, which ended it: `* y` parsed as a dereference.
/// (Also a ui pass case, `tests/ui/pass/closure_captured_left_operand.rs`.)
#[test]
fn repro_4_captured_left_operand() {
    let trace = track(scaled, (3.0,));
    assert_eq!(trace.root().value::<f64>(), Some(&6.0));
    // @2 makes the closure (`$(closure)`, its captures' operands), @3 calls it.
    let call = trace.root().child(3).expect("@3 calls the closure");
    assert_eq!(call.kind(), NodeKind::NestedCall);
    let captured = call
        .child(2)
        .expect("@2 in the closure records the capture");
    assert_eq!(captured.kind(), NodeKind::Constant);
    assert_eq!(captured.value::<f64>(), Some(&2.0));
}

#[tracked]
fn pick(flag: bool) -> i32 {
    if flag {
        const K: i32 = 1;
        K
    } else {
        const K: i32 = 2;
        K
    }
}

/// Bug 5: items of every block were hoisted to the top of the function, so two inner blocks
/// defining the same name collided. (Also `tests/ui/pass/items_in_sibling_blocks.rs`.)
#[test]
fn repro_5_items_keep_their_block_scope() {
    assert_eq!(track(pick, (true,)).root().value::<i32>(), Some(&1));
    assert_eq!(track(pick, (false,)).root().value::<i32>(), Some(&2));
}

const K: f64 = 2.0;

#[tracked]
fn sq_of_const() -> f64 {
    sq(K)
}

#[tracked]
fn apply<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 {
    f(x)
}

#[tracked]
fn apply_sq(x: f64) -> f64 {
    apply(sq, x)
}

/// Bug 6: a constant argument (a `const`, a fn item, a captured variable) was recorded after
/// the call's announcement and cleared it, so the tracked callee ran as a primitive.
#[test]
fn repro_6_constant_arguments_keep_the_announcement() {
    let trace = track(sq_of_const, ());
    let call = trace
        .root()
        .child(2)
        .expect("@2 is sq(K); @1 is the constant K");
    assert_eq!(call.kind(), NodeKind::NestedCall);
    assert_eq!(call.value::<f64>(), Some(&4.0));
    let trace = track(apply_sq, (3.0,));
    let apply = trace.root().child(3).expect("@3 is apply(sq, x)");
    assert_eq!(apply.kind(), NodeKind::NestedCall);
    let inner = apply.child(3).expect("@3 in apply is f(x)");
    assert_eq!(inner.function_name(), Some("f"));
    assert_eq!(
        inner.kind(),
        NodeKind::NestedCall,
        "sq passed as F is claimed"
    );
}

#[derive(Debug, PartialEq)]
struct BadInput(String);

impl From<std::num::ParseIntError> for BadInput {
    fn from(e: std::num::ParseIntError) -> Self {
        BadInput(e.to_string())
    }
}

#[tracked]
fn parse_converting(s: &str) -> Result<i32, BadInput> {
    let n: i32 = s.parse()?;
    Ok(n)
}

/// Bug 7: the return node of a `?` early exit held the error before its `From` conversion.
#[test]
fn repro_7_question_mark_returns_the_converted_error() {
    let (out, trace) = track_output(parse_converting, ("x",));
    let expected = format!("{out:?}");
    assert!(expected.starts_with("Err(BadInput("), "{expected}");
    assert_eq!(trace.root().value_text(), expected);
    let ret = trace.root().children().last().expect("a return");
    assert_eq!(ret.kind(), NodeKind::Return);
    assert_eq!(ret.value_text(), expected);
    assert_eq!(ret.type_name(), "Result<i32, BadInput>");
}

#[tracked]
fn if_without_else_as_block_tail(b: bool) -> i32 {
    let mut best = 0;
    {
        if b {
            best = 1;
        }
    }
    best
}

/// Bug 8: an `if` without `else` as the tail of a block got a merge argument for its value,
/// which its implicit `else` did not pass: two jumps into one block with different arities.
#[test]
fn repro_8_if_without_else_passes_no_value() {
    for b in [true, false] {
        let trace = track(if_without_else_as_block_tail, (b,));
        let ir = trace.root().callee_ir().expect("tracked");
        for branch in ir
            .entries
            .iter()
            .filter(|e| e.kind.is_branch() && e.target > 0)
        {
            let target_args = ir
                .entries
                .iter()
                .filter(|e| {
                    e.kind == irtrack::EntryKind::Argument && e.location.block == branch.target
                })
                .count();
            assert_eq!(branch.operands.len(), target_args, "{branch}\n{ir}");
        }
        assert_eq!(trace.root().value::<i32>(), Some(&(b as i32)));
    }
}

/// Bug 9: the root reported position `Some(1)`; it has no parent, so no position.
#[test]
fn repro_9_root_has_no_position() {
    let trace = track(sq, (2.0,));
    assert_eq!(trace.root().position(), None);
    assert_eq!(trace.root().child(1).and_then(|c| c.position()), Some(1));
}

#[derive(Debug, Clone, Copy)]
struct Pt {
    x: f64,
    y: f64,
}

const LIMIT: f64 = 10.0;

#[tracked]
fn compares_places(p: Pt, v: Vec<i32>) -> bool {
    let near = p.x == 1.0;
    let five = v[1] == 5;
    let small = (1..=5).contains(&v[0]);
    let under = p.y < LIMIT;
    near && five && small && under
}

/// Bug 10: a field or element read by reference (a comparison operand, `&v[0]`) was recorded
/// as its base variable: `⟨==⟩(@1, ⟨5⟩)` where @1 was the whole vector.
#[test]
fn repro_10_places_read_by_reference_are_nodes() {
    let trace = track(compares_places, (Pt { x: 1.0, y: 2.0 }, vec![3, 5]));
    assert_eq!(trace.root().value::<bool>(), Some(&true));
    let listing = trace.root().levels(2).to_string();
    for expected in [
        "$(.x)(@1) → 1.0::f64",
        "⟨==⟩(@3, ⟨1.0⟩) → true::bool",
        "⟨index⟩(@2, ⟨1⟩) → 5::i32",
        "⟨index⟩(@2, ⟨0⟩) → 3::i32",
        "[Const:§1:%",
        "10.0::f64",
    ] {
        assert!(
            listing.contains(expected),
            "missing {expected:?} in\n{listing}"
        );
    }
}

mod shapes {
    use irtrack::tracked;

    #[derive(Debug, Clone, Copy)]
    pub struct Point {
        pub x: f64,
        pub y: f64,
    }

    #[tracked]
    impl Point {
        pub fn norm(&self) -> f64 {
            (self.x * self.x + self.y * self.y).sqrt()
        }
    }

    /// Untracked, with a method of the same name that calls the tracked one.
    #[derive(Debug, Clone, Copy)]
    pub struct Wrapper {
        pub p: Point,
    }

    impl Wrapper {
        pub fn norm(&self) -> f64 {
            self.p.norm() * 2.0
        }
    }

    #[derive(Debug, Clone, Copy)]
    pub struct Outer {
        pub w: Wrapper,
        pub q: Point,
    }
}

#[tracked]
fn via_fields(o: shapes::Outer) -> f64 {
    o.w.norm() + o.q.norm()
}

/// Bug 11: a method call on a field sent no receiver type, and a tracked method of the same
/// name on another type (`Point::norm`) claimed a call made to `Wrapper::norm`.
#[test]
fn repro_11_methods_are_claimed_only_by_their_receiver_type() {
    let o = shapes::Outer {
        w: shapes::Wrapper {
            p: shapes::Point { x: 3.0, y: 4.0 },
        },
        q: shapes::Point { x: 6.0, y: 8.0 },
    };
    let trace = track(via_fields, (o,));
    assert_eq!(trace.root().value::<f64>(), Some(&20.0));
    let calls: Vec<_> = trace
        .root()
        .children()
        .filter(|c| c.function_name() == Some("norm"))
        .collect();
    assert_eq!(calls.len(), 2, "o.w.norm() and o.q.norm()");
    let (wrapper, point) = (calls[0], calls[1]);
    assert_eq!(wrapper.kind(), NodeKind::PrimitiveCall);
    assert_eq!(wrapper.value::<f64>(), Some(&10.0));
    assert_eq!(
        point.kind(),
        NodeKind::NestedCall,
        "a field receiver of the right type is claimed"
    );
    assert_eq!(point.value::<f64>(), Some(&10.0));
}

#[tracked]
fn fib(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    let mut i = 0;
    while i < n {
        (a, b) = (b, a + b);
        i += 1;
    }
    a
}

/// Bug 12: variables assigned by destructuring assignment in a loop were not carried around
/// it, so every iteration referred to their first values.
#[test]
fn repro_12_destructuring_assignment_is_carried() {
    let trace = track(fib, (5,));
    assert_eq!(trace.root().value::<u64>(), Some(&5));
    let header_args = trace
        .root()
        .children()
        .filter(|c| c.kind() == NodeKind::Argument && c.location().is_some_and(|l| l.block == 2))
        .count();
    assert_eq!(
        header_args,
        3 * 6,
        "a, b and i at each of 6 visits of the header"
    );
    let last_sum = trace
        .root()
        .children()
        .rev()
        .find(|c| c.function_name() == Some("+"))
        .expect("a + b");
    assert_eq!(last_sum.value::<u64>(), Some(&8));
}

#[tracked]
fn both_positive(a: f64, b: f64) -> f64 {
    if a > 0.0 && b > 0.0 {
        a * b
    } else {
        0.0
    }
}

/// Bug 13: the branches of `if a && b` were put on the block before the `&&`, not on the block
/// holding its result.
#[test]
fn repro_13_condition_blocks_end_in_their_branches() {
    let trace = track(both_positive, (2.0, 3.0));
    let ir = trace.root().callee_ir().expect("tracked");
    let result_block = ir
        .entries
        .iter()
        .find(|e| e.kind == irtrack::EntryKind::Argument && e.head == "value")
        .expect("the && result block")
        .location
        .block;
    let branches_out = ir
        .entries
        .iter()
        .filter(|e| e.location.block == result_block && e.kind.is_branch())
        .count();
    assert_eq!(branches_out, 2, "br else unless, br then\n{ir}");
    assert_eq!(trace.root().value::<f64>(), Some(&6.0));
}

#[tracked]
fn first_or_zero(v: Vec<i32>) -> i32 {
    let Some(x) = v.first() else {
        return 0;
    };
    *x
}

/// Bug 14: `let … else` listed its two branches out of order (&2 above &1).
#[test]
fn repro_14_let_else_branches_in_order() {
    let trace = track(first_or_zero, (vec![4],));
    let ir = trace.root().callee_ir().expect("tracked").to_string();
    let matches = ir.find("matches Some(x)").expect("the matching branch");
    let plain = ir.find("  br 3").expect("the else branch");
    assert!(matches < plain, "{ir}");
    assert_eq!(trace.root().value::<i32>(), Some(&4));
}

#[derive(Debug, Clone, Copy)]
struct Scalar {
    x: f64,
}

#[tracked]
fn receivers_in_place(p: Scalar, v: Vec<i32>) -> f64 {
    let tail: i32 = v[1..].iter().sum();
    p.x.abs() + f64::from(v[0].pow(2)) + f64::from(tail)
}

/// Bug 15: a method receiver that is a field or element (`p.x.abs()`, `v[0].pow(2)`,
/// `v[1..].iter()`) was recorded as its base variable.
#[test]
fn repro_15_place_receivers_are_nodes() {
    let trace = track(receivers_in_place, (Scalar { x: -2.0 }, vec![3, 4, 5]));
    assert_eq!(trace.root().value::<f64>(), Some(&20.0));
    let listing = trace.root().levels(2).to_string();
    for expected in [
        "⟨index⟩(@2, ⟨1..⟩) → [4, 5]::[i32]",
        "$(.x)(@1) → -2.0::f64",
        "⟨index⟩(@2, ⟨0⟩) → 3::i32",
    ] {
        assert!(
            listing.contains(expected),
            "missing {expected:?} in\n{listing}"
        );
    }
    let abs = trace
        .root()
        .children()
        .find(|c| c.function_name() == Some("abs"))
        .expect("abs");
    match abs.arguments().first() {
        Some(irtrack::Arg::Node(n)) => assert_eq!(n.value::<f64>(), Some(&-2.0)),
        other => panic!("abs's receiver should be the .x node, got {other:?}"),
    }
}

#[tracked]
fn first_plus(x: f64, v: Vec<f64>) -> f64 {
    add_to(sq(x), &v[0])
}

#[tracked]
fn add_to(a: f64, b: &f64) -> f64 {
    a + b
}

/// Bug 16: an element read after a call's announcement (`add_to(sq(x), &v[0])`) is recorded
/// as an `index` call, and its record ended the outer call's announcement: `add_to` ran as a
/// primitive.
#[test]
fn repro_16_reads_after_an_announcement_keep_it() {
    let trace = track(first_plus, (2.0, vec![0.5]));
    assert_eq!(trace.root().value::<f64>(), Some(&4.5));
    let call = trace
        .root()
        .children()
        .find(|c| c.function_name() == Some("add_to"))
        .expect("the call of add_to");
    assert_eq!(call.kind(), NodeKind::NestedCall);
}

#[tracked]
fn nested_index(w: Vec<Vec<f64>>, j: usize, i: usize) -> f64 {
    w[j][i] * 2.0
}

/// Bug 17: `w[j][i]` was recorded as one `index(w, i)`: the inner place `w[j]` was lowered as a
/// place with `w`'s operand, so the trace claimed the element was `w[i]` and dropped `j`.
#[test]
fn repro_17_nested_indexing_records_the_inner_place() {
    let trace = track(nested_index, (vec![vec![1.0, 2.0], vec![3.0, 4.0]], 1, 0));
    let root = trace.root();
    assert_eq!(root.value::<f64>(), Some(&6.0));
    let row = root.child(4).expect("the row read");
    assert_eq!(row.function_name(), Some("index"));
    assert_eq!(row.value::<Vec<f64>>(), Some(&vec![3.0, 4.0]));
    assert_eq!(
        row.referenced(),
        vec![root.child(1).unwrap(), root.child(2).unwrap()]
    );
    let element = root.child(5).expect("the element read");
    assert_eq!(element.value::<f64>(), Some(&3.0));
    assert_eq!(element.referenced(), vec![row, root.child(3).unwrap()]);
}

#[tracked]
fn vec_elements(a: f64, b: f64) -> Vec<f64> {
    vec![a, b * 2.0]
}

/// Bug 18: `vec![a, b * 2.0]` recorded the variables it mentions (`a`, `b`) as its operands,
/// not its elements, and `b * 2.0` had no node: the trace said the second element was `b`.
#[test]
fn repro_18_vec_records_its_elements() {
    let trace = track(vec_elements, (1.0, 3.0));
    let root = trace.root();
    let times = root.child(3).expect("b * 2.0");
    assert_eq!(times.value::<f64>(), Some(&6.0));
    let vec = root.child(4).expect("the vec!");
    assert_eq!(vec.referenced(), vec![root.child(1).unwrap(), times]);
}

/// Bug 19: a captured variable used as a method receiver in a closure (`w.iter()` below) was
/// recorded with the Debug-first capture meant for constants whose type may be open, so its
/// value was only text: gradient rules could not read an array captured this way.
#[test]
fn repro_19_captured_receivers_are_snapshots() {
    let w = vec![1.5, 2.5];
    let f = irtrack::tracked_fn!(move |x: f64| w.iter().sum::<f64>() * x);
    let trace = track(f, (2.0,));
    let captured = trace
        .root()
        .children()
        .find(|c| c.kind() == NodeKind::Constant)
        .expect("the captured w");
    assert_eq!(captured.value::<Vec<f64>>(), Some(&vec![1.5, 2.5]));
}

#[tracked]
fn pair_of(v: &[f64]) -> (f64, usize) {
    (v[0], v.len())
}

#[tracked]
fn iter_of(v: &[f64]) -> core::slice::Iter<'_, f64> {
    v.iter()
}

#[tracked]
fn second_of_pair<D: AsRef<[f64]>>(d: &D) -> usize {
    pair_of(d.as_ref()).1
}

#[tracked]
fn count_of_iter<D: AsRef<[f64]>>(d: &D) -> usize {
    iter_of(d.as_ref()).count()
}

/// Bug 20 (found by copying statrs under `#[tracked]`): a generic function captures the
/// values it computes by their type alone (`_`), so its call of a tracked function returning
/// a tuple held `_` while the callee's return held `(1.0, 2)`: `verify` said "a call's value is
/// not its return's" (and reading the trace panicked with `verify-traces`). The call now holds
/// the value returned.
#[test]
fn repro_20_generic_caller_holds_the_returned_value() {
    let d = vec![1.0, 2.0];
    let (out, trace) = track_output(second_of_pair::<Vec<f64>>, (&d,));
    assert_eq!(out, 2);
    assert_eq!(trace.verify(), Ok(()));
    let call = trace
        .root()
        .children()
        .find(|c| c.kind() == NodeKind::NestedCall)
        .expect("the call of pair_of");
    assert_eq!(call.value::<(f64, usize)>(), Some(&(1.0, 2)));
    let last = call.children().last().expect("pair_of's return");
    assert_eq!(last.kind(), NodeKind::Return);
    assert_eq!(call.raw_value().to_string(), last.raw_value().to_string());
    // An iterator, kept as its `Debug` text by the callee, verifies too.
    let (n, trace) = track_output(count_of_iter::<Vec<f64>>, (&d,));
    assert_eq!(n, 2);
    assert_eq!(trace.verify(), Ok(()));
}

pub struct Complex<T> {
    pub re: T,
    pub im: T,
}

#[tracked]
impl<T> Complex<T> {
    pub const fn new(re: T, im: T) -> Self {
        Complex { re, im }
    }
}

#[tracked]
impl Complex<f64> {
    pub fn norm_sqr(&self) -> f64 {
        self.re * self.re + self.im * self.im
    }

    pub const fn conj(self) -> Self {
        Complex::new(self.re, -self.im)
    }
}

const I: Complex<f64> = Complex::new(0.0, 1.0);

#[tracked]
fn norm_of_conj(re: f64, im: f64) -> f64 {
    Complex::new(re, im).conj().norm_sqr()
}

/// Bug 21 (found copying num-complex): a `const fn` in a tracked `impl` block rejected the
/// whole block. It is left as written (a primitive for its callers), the others are tracked.
#[test]
fn repro_21_const_fn_in_a_tracked_impl_is_left_as_written() {
    assert_eq!(I.norm_sqr(), 1.0);
    assert_eq!(Complex::new(3.0, 4.0).conj().im, -4.0);
    let (out, trace) = track_output(norm_of_conj, (3.0, 4.0));
    assert_eq!(out, 25.0);
    let kinds: Vec<(Option<&str>, NodeKind)> = trace
        .root()
        .children()
        .filter(|c| matches!(c.kind(), NodeKind::PrimitiveCall | NodeKind::NestedCall))
        .map(|c| (c.function_name(), c.kind()))
        .collect();
    assert_eq!(
        kinds,
        [
            (Some("Complex::new"), NodeKind::PrimitiveCall),
            (Some("conj"), NodeKind::PrimitiveCall),
            (Some("norm_sqr"), NodeKind::NestedCall),
        ]
    );
}

pub trait GcdLike {
    fn signed_only(&self) -> i32
    where
        Self: Copy;
    fn plain(&self) -> i32;
}

pub struct NotCopy(i32);

#[tracked]
impl GcdLike for NotCopy {
    // Declared `where Self: Copy`, which `NotCopy` misses: never callable here, and named by
    // its trait's path it does not compile tracked (tests/ui/item).
    #[tracked(primitive)]
    fn signed_only(&self) -> i32 {
        self.0
    }
    fn plain(&self) -> i32 {
        self.0 + 1
    }
}

#[tracked]
fn plain_of(n: i32) -> i32 {
    NotCopy(n).plain()
}

/// Bug 22 (found copying num-integer): a trait method declared with `where Self: …` that the
/// impl's type misses cannot be tracked (its identity names it by the trait's path, which
/// needs the bound); marked `#[tracked(primitive)]`, the rest of the impl is tracked.
#[test]
fn repro_22_unmet_where_self_method_opts_out() {
    let (out, trace) = track_output(plain_of, (1,));
    assert_eq!(out, 2);
    let call = trace
        .root()
        .children()
        .find(|c| c.function_name() == Some("plain"));
    assert_eq!(call.map(|c| c.kind()), Some(NodeKind::NestedCall));
}

#[allow(unused_mut, unused_variables, unused_assignments, clippy::never_loop)]
#[tracked]
fn shadowed_in_a_loop(v: Vec<f64>, x: f64) -> f64 {
    let mut count: i64 = {
        let mut i: i64 = 0;
        loop {
            if i >= 3 {
                break 1;
            }
            i += 1;
            // A `let` of the name of a variable the loop carries (it assigns `x` below, the
            // inner one): the exit must get the outer `x`.
            let mut x: i64 = 1;
            x = 1;
            break 1;
        }
    };
    x
}

#[allow(unused_assignments)]
#[tracked]
fn shadowed_after_an_assignment(x: f64) -> f64 {
    let mut y = x;
    let mut i = 0;
    while i < 2 {
        y = 3.0 * x;
        let y = 9.0;
        i += 1;
        if y > 100.0 {
            break;
        }
    }
    y * x
}

/// Bug 23 (the random-program tester, seed 32, unit 1848): a loop's exit passed, for a
/// variable it carries, the operand of a `let` of the same name in its body (the loop's scan
/// takes `x = 1` for an assignment of the outer `x`): the trace returned the inner `1` for
/// `x`, and the gradient was 0 for 1. The jumps of a loop now pass the bindings visible where
/// it began.
#[test]
fn repro_23_a_name_shadowed_in_a_loop_body() {
    let g = irtrack::gradient(shadowed_in_a_loop, (vec![-0.37], -2.65)).unwrap();
    assert_eq!(g.scalars()[1], Some(1.0));
    let g = irtrack::gradient(shadowed_after_an_assignment, (1.5,)).unwrap();
    assert_eq!(g.scalars(), [Some(6.0 * 1.5)]);
    track_output(shadowed_in_a_loop, (vec![1.0], 2.0))
        .1
        .verify()
        .unwrap();
}

#[tracked]
fn bug24_h0(x1: f64) -> f64 {
    let mut i8: i64 = 0;
    while i8 < 1 && (x1 <= bug24_h1(vec![1.0])) {
        i8 += 1;
    }
    x1
}

#[tracked]
#[allow(unreachable_code)]
fn bug24_h1(v1: Vec<f64>) -> f64 {
    let c6 = |_p4: bool| -> f64 { v1[1 % v1.len()] };
    return c6(true);
    1.0
}

#[tracked]
fn bug24_f(x2: f64, x3: f64) -> f64 {
    let _: f64 = bug24_h0(x3);
    x2
}

/// Bug 24 (the random-program tester, seed 35, unit 1508): naming a comparison's side through
/// a tracked helper's return, then an element read (added on 2026-11-27), looked up the node of
/// an unrecorded operand: the gradient panicked (index out of a chunked vector).
#[test]
fn repro_24_a_side_through_a_helper_and_an_unrecorded_operand() {
    let g = irtrack::gradient(bug24_f, (-2.3, 2.5)).unwrap();
    assert_eq!(g.scalars(), [Some(1.0), Some(0.0)]);
}

#[tracked]
fn bug25_h0(o2: Option<f64>) -> f64 {
    let c6 = |_p5: i64| -> f64 { o2.unwrap_or(4.0) };
    c6(1)
}

#[tracked]
fn bug25_f(x3: f64) -> f64 {
    bug25_h0(Some(x3))
}

#[tracked]
fn bug25_receiver(x: f64) -> f64 {
    // A capture read as a float method's receiver.
    let c = || x.sin() * 2.0;
    c()
}

/// Bug 25 (the random-program tester, seed 37, unit 1911): a captured variable read through a
/// reference in a closure (the receiver of `o2.unwrap_or(4.0)`) was a constant node whose uses
/// did not link to the enclosing function's value: the gradient was 0 (finite differences: 1),
/// with no error.
#[test]
fn repro_25_a_capture_read_as_a_receiver_links() {
    let g = irtrack::gradient(bug25_f, (-0.82,)).unwrap();
    assert_eq!(g.scalars(), [Some(1.0)]);
    let g = irtrack::gradient(bug25_receiver, (0.5,)).unwrap();
    assert_eq!(g.scalars(), [Some(2.0 * 0.5f64.cos())]);
}
