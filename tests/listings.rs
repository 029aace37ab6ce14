//! Snapshot tests of trace listings, each reviewed by hand against DESIGN.md's format.
//! Bless changes with `cargo insta review` (see DEVELOPMENT.md) and read every line.

mod common;
use common::{f, geom, h};

use irtrack::{track, tracked};
use rand::rngs::StdRng;
use rand::SeedableRng;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    Circle(f64),
    Rect { w: f64, h: f64 },
    Empty,
}

#[tracked]
fn area(s: Shape) -> f64 {
    match s {
        Shape::Circle(r) if r < 0.0 => 0.0,
        Shape::Circle(r) => std::f64::consts::PI * r * r,
        Shape::Rect { w, h } => w * h,
        Shape::Empty => 0.0,
    }
}

#[tracked]
fn weighted_sum(xs: &[f64]) -> f64 {
    let mut total = 0.0;
    for (i, x) in xs.iter().enumerate() {
        total += (i as f64 + 1.0) * x;
    }
    total
}

#[tracked]
fn parse_sum(a: &str, b: &str) -> Result<i64, std::num::ParseIntError> {
    let x = a.parse::<i64>()?;
    let y = b.parse::<i64>()?;
    Ok(x + y)
}

#[tracked]
fn with_closure(x: f64) -> f64 {
    let scale = 2.0;
    let affine = |y: f64| y * scale + 1.0;
    affine(x) + affine(x * x)
}

#[derive(Debug, Clone, Copy)]
struct Point {
    x: f64,
    y: f64,
}

#[tracked]
impl Point {
    fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
}

#[tracked]
fn distance(a: f64, b: f64) -> f64 {
    let p = Point { x: a, y: b };
    p.norm()
}

fn listing<F, A>(f: F, args: A, levels: usize) -> String
where
    F: irtrack::Callable<A>,
{
    track(f, args).root().levels(levels).to_string()
}

#[test]
fn sin_plus_x() {
    insta::assert_snapshot!(listing(f, (1.0,), 2));
}

#[test]
fn loop_two_iterations() {
    insta::assert_snapshot!(listing(h, (2.0, 2), 2));
}

#[test]
fn loop_no_iteration() {
    insta::assert_snapshot!(listing(h, (2.0, 0), 2));
}

#[test]
fn geom_stops_at_once() {
    // Seed 3 draws 0.095 first, below beta.
    let mut rng = StdRng::seed_from_u64(3);
    insta::assert_snapshot!(listing(geom, (1, 0.5, &mut rng), 3));
}

#[test]
fn geom_recurses() {
    // Seed 0 draws 0.73, 0.77, then 0.026: two recursive calls.
    let mut rng = StdRng::seed_from_u64(0);
    insta::assert_snapshot!(listing(geom, (1, 0.5, &mut rng), 4));
}

#[test]
fn match_with_guard_and_struct_pattern() {
    insta::assert_snapshot!(listing(area, (Shape::Rect { w: 2.0, h: 3.0 },), 2));
    insta::assert_snapshot!(listing(area, (Shape::Circle(-1.0),), 2));
    insta::assert_snapshot!(listing(area, (Shape::Empty,), 2));
}

#[test]
fn for_loop_over_enumerate() {
    insta::assert_snapshot!(listing(weighted_sum, (&[0.5, 0.25][..],), 2));
}

#[test]
fn question_mark_early_return() {
    insta::assert_snapshot!(listing(parse_sum, ("40", "2"), 2));
    insta::assert_snapshot!(listing(parse_sum, ("40", "two"), 2));
}

#[test]
fn closure_calls_are_nested() {
    insta::assert_snapshot!(listing(with_closure, (3.0,), 3));
}

#[test]
fn method_call_is_nested() {
    insta::assert_snapshot!(listing(distance, (3.0, 4.0), 3));
}

#[test]
fn static_ir_of_h() {
    let trace = track(h, (2.0, 2));
    insta::assert_snapshot!(trace.root().callee_ir().expect("h is tracked").to_string());
}
