//! The built-in gradient rules: float arithmetic, the float math methods, casts, `?` and
//! constructors, indexing into vectors, `vec!` and array literals.
//!
//! A rule is found by what the callee is: an operator with the types of its operands, a method
//! with its receiver's type (`f64::sin` whether written `x.sin()` or `f64::sin(x)`), a path by
//! its full type name. A bare name never selects a rule: a user's own `fn sin` gets none.

use super::primal::Primal;
use super::site::Site;
use super::tangent::Tangent;
use crate::ir::EntryKind;

/// What a rule gives one operand.
pub(crate) enum Contribution {
    /// A sensitivity of the operand's full shape.
    Whole(Tangent),
    /// A sensitivity for element `index` of a vector of `len` elements, zero elsewhere.
    At {
        len: usize,
        index: usize,
        value: f64,
    },
    /// Sensitivities for elements `start..start + values.len()` of a vector of `len` elements.
    Range {
        len: usize,
        start: usize,
        values: Vec<f64>,
    },
}

/// The sensitivities a rule gives its operands, by operand number.
pub(crate) type Out = Vec<(usize, Contribution)>;

/// How a node is differentiated.
#[derive(Clone)]
pub(crate) enum Rule {
    /// `y = f(x)` on floats: `dy/dx` from `x` and `y`.
    Unary(fn(f64, f64) -> f64),
    /// `y = f(a, b)` on floats: `(dy/da, dy/db)` from `a`, `b` and `y`.
    Binary(BinaryDerivative),
    /// `y = f(a, b, c)` on floats.
    Ternary(TernaryDerivative),
    /// `x.powi(n)`: the exponent is an integer.
    PowI,
    /// The value is operand 0's (casts between floats, `?`, `Ok`, `Some`, `*r`, bindings).
    PassThrough,
    /// `v[i]` or `v[a..b]` on a vector of floats.
    Index,
    /// `vec![a, b, c]` of recorded floats, or an array `[a, b, 1.0]`.
    VecOf,
    /// Anything else: arrays.
    #[cfg_attr(not(feature = "ndarray"), allow(dead_code))]
    General(fn(&Site<'_>, &Tangent, &mut Out) -> Result<(), String>),
}

/// The derivative of the float methods of one argument, by name.
fn unary(name: &str) -> Option<fn(f64, f64) -> f64> {
    Some(match name {
        "neg" => |_, _| -1.0,
        "sin" => |x, _| x.cos(),
        "cos" => |x, _| -x.sin(),
        "tan" => |x, _| 1.0 / (x.cos() * x.cos()),
        "asin" => |x, _| 1.0 / (1.0 - x * x).sqrt(),
        "acos" => |x, _| -1.0 / (1.0 - x * x).sqrt(),
        "atan" => |x, _| 1.0 / (1.0 + x * x),
        "sinh" => |x, _| x.cosh(),
        "cosh" => |x, _| x.sinh(),
        "tanh" => |_, y| 1.0 - y * y,
        "asinh" => |x, _| 1.0 / (x * x + 1.0).sqrt(),
        "acosh" => |x, _| 1.0 / (x * x - 1.0).sqrt(),
        "atanh" => |x, _| 1.0 / (1.0 - x * x),
        "exp" => |_, y| y,
        "exp2" => |_, y| y * std::f64::consts::LN_2,
        "exp_m1" => |_, y| y + 1.0,
        "ln" => |x, _| 1.0 / x,
        "ln_1p" => |x, _| 1.0 / (1.0 + x),
        "log10" => |x, _| 1.0 / (x * std::f64::consts::LN_10),
        "log2" => |x, _| 1.0 / (x * std::f64::consts::LN_2),
        "sqrt" => |_, y| 0.5 / y,
        "cbrt" => |_, y| 1.0 / (3.0 * y * y),
        "abs" => |x, _| if x < 0.0 { -1.0 } else { 1.0 },
        "recip" => |x, _| -1.0 / (x * x),
        "to_degrees" => |_, _| 180.0 / std::f64::consts::PI,
        "to_radians" => |_, _| std::f64::consts::PI / 180.0,
        // Piecewise constant: zero almost everywhere.
        "signum" | "floor" | "ceil" | "round" | "round_ties_even" | "trunc" => |_, _| 0.0,
        "fract" => |_, _| 1.0,
        "clone" | "to_owned" => |_, _| 1.0,
        _ => return None,
    })
}

/// The derivative of the float method `name` of one argument, from `x` and `y = f(x)`.
#[cfg(feature = "ndarray")]
pub(crate) fn unary_derivative(name: &str) -> Option<fn(f64, f64) -> f64> {
    unary(name).filter(|_| !matches!(name, "clone" | "to_owned" | "neg"))
}

/// Whether `name` is a float method of one argument with a rule.
#[cfg(feature = "ndarray")]
pub(crate) fn has_unary(name: &str) -> bool {
    unary_derivative(name).is_some()
}

/// `(dy/da, dy/db)` from `a`, `b` and `y`.
type BinaryDerivative = fn(f64, f64, f64) -> (f64, f64);

/// `(dy/da, dy/db, dy/dc)` from `a`, `b`, `c` and `y`.
type TernaryDerivative = fn(f64, f64, f64, f64) -> (f64, f64, f64);

/// The derivatives of the float methods of two arguments (`a.f(b)`), by name.
fn binary(name: &str) -> Option<BinaryDerivative> {
    Some(match name {
        "add" => |_, _, _| (1.0, 1.0),
        "sub" => |_, _, _| (1.0, -1.0),
        "mul" => |a, b, _| (b, a),
        "div" => |a, b, _| (1.0 / b, -a / (b * b)),
        "rem" => |a, b, _| (1.0, -(a / b).trunc()),
        "powf" => |a, b, y| {
            let db = if a > 0.0 { y * a.ln() } else { 0.0 };
            (b * a.powf(b - 1.0), db)
        },
        // Ties go to the first operand, as `max`/`min` return it.
        "max" => |a, b, _| {
            if a >= b || b.is_nan() {
                (1.0, 0.0)
            } else {
                (0.0, 1.0)
            }
        },
        "min" => |a, b, _| {
            if a <= b || b.is_nan() {
                (1.0, 0.0)
            } else {
                (0.0, 1.0)
            }
        },
        "atan2" => |a, b, _| {
            let r = a * a + b * b;
            (b / r, -a / r)
        },
        "hypot" => |a, b, y| (a / y, b / y),
        "log" => |a, b, _| {
            let lb = b.ln();
            (1.0 / (a * lb), -a.ln() / (b * lb * lb))
        },
        "copysign" => |a, b, _| {
            let same = (a < 0.0) == (b.is_sign_negative());
            (if same { 1.0 } else { -1.0 }, 0.0)
        },
        _ => return None,
    })
}

fn ternary(name: &str) -> Option<TernaryDerivative> {
    Some(match name {
        "mul_add" => |a, b, _, _| (b, a, 1.0),
        "clamp" => |x, lo, hi, _| {
            if x < lo {
                (0.0, 1.0, 0.0)
            } else if x > hi {
                (0.0, 0.0, 1.0)
            } else {
                (1.0, 0.0, 0.0)
            }
        },
        _ => return None,
    })
}

/// The method behind an arithmetic operator (`+` and `+=` are both `add`).
fn operator_method(op: &str, arity: usize) -> Option<&'static str> {
    Some(match (op, arity) {
        ("-", 1) => "neg",
        ("+" | "+=", 2) => "add",
        ("-" | "-=", 2) => "sub",
        ("*" | "*=", 2) => "mul",
        ("/" | "/=", 2) => "div",
        ("%" | "%=", 2) => "rem",
        _ => return None,
    })
}

/// The float method rule for `name` with `arity` operands (the receiver included).
fn float_method(name: &str, arity: usize) -> Option<Rule> {
    match arity {
        1 => unary(name).map(Rule::Unary),
        2 if name == "powi" => Some(Rule::PowI),
        2 => binary(name).map(Rule::Binary),
        3 => ternary(name).map(Rule::Ternary),
        _ => None,
    }
}

fn is_float_type(t: &str) -> bool {
    t == "f64" || t == "f32"
}

/// The built-in rule for a site, if there is one.
pub(crate) fn builtin(site: &Site<'_>) -> Option<Rule> {
    let head = site.head();
    match site.kind() {
        EntryKind::Operator => {
            let method = operator_method(head, site.len())?;
            if (0..site.len()).all(|i| site.is_float(i)) {
                return float_method(method, site.len());
            }
            array_rule(site)
        }
        EntryKind::MethodCall => {
            let receiver = site.receiver_type()?;
            if is_float_type(receiver) {
                return float_method(head, site.len());
            }
            if head == "index" {
                return Some(Rule::Index);
            }
            if matches!(
                head,
                "clone" | "to_owned" | "to_vec" | "into_owned" | "as_slice"
            ) {
                return Some(Rule::PassThrough);
            }
            array_rule(site)
        }
        EntryKind::Call => {
            // `v[i]` is lowered to `index(v, i)`: the `Index` operation on the receiver's type.
            if head == "index" && site.store.callee(site.node).is_none() {
                return match site.primal(0) {
                    Some(Primal::Vector(_)) => Some(Rule::Index),
                    _ => array_rule(site),
                };
            }
            let callee = site.store.callee(site.node)?;
            let canonical = super::site::canonical(callee);
            if let Some(name) = canonical
                .strip_prefix("f64::")
                .or_else(|| canonical.strip_prefix("f32::"))
            {
                return float_method(name, site.len());
            }
            if is_constructor(callee) {
                return Some(Rule::PassThrough);
            }
            array_rule(site)
        }
        EntryKind::Special => {
            if head == "?" || head == "*" || head.starts_with("bind ") {
                return Some(Rule::PassThrough);
            }
            if let Some(to) = head.strip_prefix("as ") {
                return is_float_type(to.trim()).then_some(Rule::PassThrough);
            }
            if head == "vec!" || head == "array" {
                return Some(Rule::VecOf);
            }
            None
        }
        _ => None,
    }
}

/// `Ok(x)`, `Some(x)`, `Box::new(x)`: the sensitivity of the wrapper is its content's. The
/// type name of a tuple variant's constructor ends in `::{{constructor}}` on recent compilers
/// (`core::option::Option<f64>::Some::{{constructor}}`) and without it on older ones.
fn is_constructor(callee: &str) -> bool {
    let callee = callee.strip_suffix("::{{constructor}}").unwrap_or(callee);
    (callee.starts_with("core::result::Result<") && callee.ends_with(">::Ok"))
        || (callee.starts_with("core::option::Option<") && callee.ends_with(">::Some"))
        || callee.starts_with("core::ops::control_flow::ControlFlow<")
            && callee.ends_with(">::Continue")
        || (callee.starts_with("alloc::boxed::Box<") && callee.ends_with(">::new"))
}

#[cfg(feature = "ndarray")]
fn array_rule(site: &Site<'_>) -> Option<Rule> {
    super::ndarray::rule(site)
}

#[cfg(not(feature = "ndarray"))]
fn array_rule(_: &Site<'_>) -> Option<Rule> {
    None
}

/// Applies `rule` to `site` with the output's sensitivity `dy`.
pub(crate) fn apply(
    rule: &Rule,
    site: &Site<'_>,
    dy: &Tangent,
    out: &mut Out,
) -> Result<(), String> {
    let scalar = |i: usize| {
        site.scalar(i)
            .ok_or_else(|| format!("operand {} is not a float", i + 1))
    };
    let dy_scalar = || {
        dy.as_scalar()
            .ok_or_else(|| format!("a float's sensitivity is a {}", dy.shape()))
    };
    match rule {
        Rule::Unary(d) => {
            let y = site.output().as_f64().unwrap_or(f64::NAN);
            let g = dy_scalar()? * d(scalar(0)?, y);
            out.push((0, Contribution::Whole(Tangent::Scalar(g))));
        }
        Rule::Binary(d) => {
            let y = site.output().as_f64().unwrap_or(f64::NAN);
            let (da, db) = d(scalar(0)?, scalar(1)?, y);
            let g = dy_scalar()?;
            out.push((0, Contribution::Whole(Tangent::Scalar(g * da))));
            out.push((1, Contribution::Whole(Tangent::Scalar(g * db))));
        }
        Rule::Ternary(d) => {
            let y = site.output().as_f64().unwrap_or(f64::NAN);
            let (da, db, dc) = d(scalar(0)?, scalar(1)?, scalar(2)?, y);
            let g = dy_scalar()?;
            for (i, d) in [da, db, dc].into_iter().enumerate() {
                out.push((i, Contribution::Whole(Tangent::Scalar(g * d))));
            }
        }
        Rule::PowI => {
            let x = scalar(0)?;
            let n = site
                .integer(1)
                .ok_or("the exponent of `powi` is not an integer")?;
            let d = if n == 0 {
                0.0
            } else {
                n as f64 * x.powi(n as i32 - 1)
            };
            out.push((0, Contribution::Whole(Tangent::Scalar(dy_scalar()? * d))));
        }
        Rule::PassThrough => {
            // A wrapper (`Some(x)`, `Ok(x)`, a reference) has its content's sensitivity; a value
            // of another shape is not the whole operand: a pattern binding one element of an
            // array (`let [a, b] = v`) must not give the element's sensitivity to all of `v`.
            if let Some(p) = site.primal(0) {
                if !p.fits(dy) {
                    return Err(format!(
                        "its sensitivity is a {}, but its operand is a {}: the value is a part \
                         of the operand, and the trace does not record which part; index the \
                         operand instead (`v[0]`, `v[1..]`)",
                        dy.shape(),
                        p.shape()
                    ));
                }
            }
            out.push((0, Contribution::Whole(dy.clone())))
        }
        Rule::Index => index(site, dy, out)?,
        Rule::VecOf => {
            let d = dy
                .as_slice()
                .ok_or_else(|| format!("a vector's sensitivity is a {}", dy.shape()))?;
            // The macro stays opaque: its operands are the variables it mentions, once each, in
            // order, not its elements. They are its elements only if there are as many as the
            // vector's and each holds its element's value (`vec![a, b * 2.0]` mentions `a`
            // and `b` but its second element is not `b`).
            let elements = super::primal::primal(site.output());
            let literal_elements = site.len() == d.len()
                && matches!(&elements, Some(Primal::Vector(e)) if e.len() == d.len())
                && (0..site.len()).all(|i| {
                    let element = match &elements {
                        Some(Primal::Vector(e)) => e[i],
                        _ => f64::NAN,
                    };
                    let operand = match site.value(i) {
                        Some(v) => v.as_f64(),
                        None => site.literal(i).and_then(super::primal::literal_f64),
                    };
                    operand.is_some_and(|v| v.to_bits() == element.to_bits())
                });
            if !literal_elements {
                return Err(
                    "`vec!` is differentiated only when its elements are different variables \
                     (`vec![a, b, c]`): bind each element to a variable of its own first"
                        .into(),
                );
            }
            for (i, g) in d.iter().enumerate() {
                out.push((i, Contribution::Whole(Tangent::Scalar(*g))));
            }
        }
        Rule::General(f) => f(site, dy, out)?,
    }
    Ok(())
}

/// `v[i]` and `v[a..b]` on vectors of floats.
fn index(site: &Site<'_>, dy: &Tangent, out: &mut Out) -> Result<(), String> {
    let len = match site.primal(0) {
        Some(Primal::Vector(v)) => v.len(),
        #[cfg(feature = "ndarray")]
        Some(p @ Primal::Array(_)) => p.len(),
        _ => return Err("indexing is differentiated on vectors of floats".into()),
    };
    if let Some(i) = site.integer(1) {
        let g = dy
            .as_scalar()
            .ok_or_else(|| format!("an element's sensitivity is a {}", dy.shape()))?;
        out.push((
            0,
            Contribution::At {
                len,
                index: i as usize,
                value: g,
            },
        ));
        return Ok(());
    }
    let values = dy
        .as_slice()
        .ok_or_else(|| format!("a slice's sensitivity is a {}", dy.shape()))?
        .to_vec();
    let start = slice_start(site, len, values.len())?;
    if start + values.len() > len {
        return Err("the slice's sensitivity has the wrong length".into());
    }
    out.push((0, Contribution::Range { len, start, values }));
    Ok(())
}

/// Where the slice `v[range]` of `taken` elements starts in `v` (of `len` elements). A range
/// the trace recorded is read; a range written with variables in the index (`v[k..]`,
/// `v[..k]`, `v[a..b]`) is kept as text, so a bound that is a variable is found from the other
/// bound and the slice's length, and when both are variables, from where the slice's values
/// occur in `v` (an error when they occur at more than one place).
fn slice_start(site: &Site<'_>, len: usize, taken: usize) -> Result<usize, String> {
    if let Some(v) = site.value(1) {
        let (start, end) =
            recorded_range(v).ok_or("the index is neither an integer nor a range")?;
        let end = end.unwrap_or(len);
        if end.saturating_sub(start) != taken {
            return Err("the slice's sensitivity has the wrong length".into());
        }
        return Ok(start);
    }
    let text = site
        .literal(1)
        .ok_or("the index is neither an integer nor a range")?;
    let (start, end) = range_bounds(text).ok_or("the index is neither an integer nor a range")?;
    let end = match end {
        Bound::Open => Some(len),
        Bound::At(e) => Some(e),
        Bound::Variable => None,
    };
    let start = match (start, end) {
        (Bound::Open, _) => 0,
        (Bound::At(s), _) => s,
        (Bound::Variable, Some(e)) => e
            .checked_sub(taken)
            .ok_or("the slice's sensitivity has the wrong length")?,
        (Bound::Variable, None) => find_slice(site, text, len, taken)?,
    };
    if end.is_some_and(|e| e != start + taken) {
        return Err("the slice's sensitivity has the wrong length".into());
    }
    Ok(start)
}

/// Where the slice a node holds occurs in the vector it was taken from, when that is one place.
fn find_slice(site: &Site<'_>, text: &str, len: usize, taken: usize) -> Result<usize, String> {
    let v = match site.primal(0) {
        Some(Primal::Vector(v)) => v,
        _ => return Err("slicing is differentiated on vectors of floats".into()),
    };
    let part = match super::primal::primal(site.output()) {
        Some(Primal::Vector(part)) if part.len() == taken => part,
        _ => {
            return Err(format!(
                "the bounds of `{text}` were not recorded, nor the slice's values; bind the \
                 range to a variable first (`let r = a..b;`)"
            ))
        }
    };
    let mut at = (0..=len.saturating_sub(taken)).filter(|&s| {
        v[s..s + taken]
            .iter()
            .zip(part.iter())
            .all(|(a, b)| a.to_bits() == b.to_bits())
    });
    match (at.next(), at.next()) {
        (Some(s), None) => Ok(s),
        _ => Err(format!(
            "the bounds of `{text}` were not recorded, and the slice's values occur at more \
             than one place in the vector; bind the range to a variable first (`let r = a..b;`)"
        )),
    }
}

/// The bounds of a recorded range value (`a..b`, `a..=b`).
fn recorded_range(v: &crate::value::Value) -> Option<(usize, Option<usize>)> {
    if let Some(r) = v.downcast_ref::<std::ops::Range<usize>>() {
        return Some((r.start, Some(r.end)));
    }
    if let Some(r) = v.downcast_ref::<std::ops::RangeInclusive<usize>>() {
        return Some((*r.start(), Some(r.end() + 1)));
    }
    parse_range(&v.to_string())
}

/// One bound of a range written in an index.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Bound {
    /// Left out: the start or the end of the vector.
    Open,
    /// A literal (an inclusive end already plus one).
    At(usize),
    /// A variable: its value is not in the text.
    Variable,
}

/// The bounds of a range as written in an index: `1..3`, `k..`, `..=n`, `a..b`.
fn range_bounds(text: &str) -> Option<(Bound, Bound)> {
    let (a, b) = text.split_once("..")?;
    let bound = |t: &str| {
        let t = t.trim();
        if t.is_empty() {
            Some(Bound::Open)
        } else if let Some(n) = super::primal::literal_i64(t) {
            usize::try_from(n).ok().map(Bound::At)
        } else if t.chars().all(|c| c.is_alphanumeric() || c == '_') {
            Some(Bound::Variable)
        } else {
            None
        }
    };
    let start = bound(a)?;
    let end = match b.trim().strip_prefix('=') {
        Some(inclusive) => match bound(inclusive)? {
            Bound::At(e) => Bound::At(e + 1),
            Bound::Open => return None,
            Bound::Variable => Bound::Variable,
        },
        None => bound(b)?,
    };
    Some((start, end))
}

fn parse_range(text: &str) -> Option<(usize, Option<usize>)> {
    let (a, b) = text.split_once("..")?;
    let start = if a.trim().is_empty() {
        0
    } else {
        a.trim().parse().ok()?
    };
    let b = b.trim();
    let end = if b.is_empty() {
        None
    } else if let Some(inclusive) = b.strip_prefix('=') {
        Some(inclusive.trim().parse::<usize>().ok()? + 1)
    } else {
        Some(b.parse().ok()?)
    };
    Some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("1..3"), Some((1, Some(3))));
        assert_eq!(parse_range("..=2"), Some((0, Some(3))));
        assert_eq!(parse_range("2.."), Some((2, None)));
        assert_eq!(parse_range("RangeFull"), None);
    }

    #[test]
    fn ranges_with_variables() {
        use Bound::*;
        assert_eq!(range_bounds("1..3"), Some((At(1), At(3))));
        assert_eq!(range_bounds("k.."), Some((Variable, Open)));
        assert_eq!(range_bounds("..=n"), Some((Open, Variable)));
        assert_eq!(range_bounds("a..b"), Some((Variable, Variable)));
        assert_eq!(range_bounds("2..=4usize"), Some((At(2), At(5))));
        assert_eq!(range_bounds("k + 1.."), None);
        assert_eq!(range_bounds("k"), None);
    }

    #[test]
    fn constructors_with_and_without_the_suffix() {
        assert!(is_constructor(
            "core::option::Option<f64>::Some::{{constructor}}"
        ));
        assert!(is_constructor("core::option::Option<f64>::Some"));
        assert!(is_constructor(
            "core::result::Result<f64, alloc::string::String>::Ok::{{constructor}}"
        ));
        assert!(!is_constructor("core::option::Option<f64>::None"));
        assert!(!is_constructor("my::Some::{{constructor}}"));
    }
}
