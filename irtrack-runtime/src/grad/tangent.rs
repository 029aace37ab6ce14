//! Tangents: the sensitivities (adjoints) a backward pass propagates and returns.

use std::fmt;

/// A sensitivity of a differentiable value: of a float, of a `Vec`/slice of floats, or (with the
/// `ndarray` feature) of an array. `f32` values have `f64` tangents.
///
/// ```
/// use irtrack::Tangent;
/// let t = Tangent::from(vec![1.0, 2.0]);
/// assert_eq!(t.as_slice(), Some(&[1.0, 2.0][..]));
/// assert_eq!(t.to_string(), "[1.0, 2.0]");
/// assert_eq!(Tangent::from(3.0).as_scalar(), Some(3.0));
/// ```
#[derive(Clone, PartialEq)]
pub enum Tangent {
    /// The sensitivity of an `f64` or `f32`.
    Scalar(f64),
    /// The sensitivity of a `Vec`, slice or array of floats, element by element.
    Vector(Vec<f64>),
    /// The sensitivity of an `ndarray` array of floats, of the array's shape.
    #[cfg(feature = "ndarray")]
    Array(Box<ndarray::ArrayD<f64>>),
    /// The sensitivity of a struct (or tuple) argument: one entry per field the computation
    /// read, by its path from the argument (`w`, `layer.b`, `0`), in the order first read.
    Fields(Vec<(String, Tangent)>),
}

impl Tangent {
    /// The sensitivity of a float.
    pub fn as_scalar(&self) -> Option<f64> {
        match self {
            Tangent::Scalar(v) => Some(*v),
            _ => None,
        }
    }

    /// The sensitivity of a vector, element by element.
    pub fn as_slice(&self) -> Option<&[f64]> {
        match self {
            Tangent::Vector(v) => Some(v),
            _ => None,
        }
    }

    /// The sensitivity of an array.
    #[cfg(feature = "ndarray")]
    pub fn as_array(&self) -> Option<ndarray::ArrayViewD<'_, f64>> {
        match self {
            Tangent::Array(a) => Some(a.view()),
            _ => None,
        }
    }

    /// The sensitivity of the field at `path` of a struct argument (`"w"`, `"layer.b"`).
    ///
    /// ```
    /// use irtrack::Tangent;
    /// let t = Tangent::Fields(vec![("b".into(), Tangent::Scalar(2.0))]);
    /// assert_eq!(t.field("b"), Some(&Tangent::Scalar(2.0)));
    /// assert_eq!(t.field("w"), None);
    /// ```
    pub fn field(&self, path: &str) -> Option<&Tangent> {
        match self {
            Tangent::Fields(fields) => fields.iter().find(|(p, _)| p == path).map(|(_, t)| t),
            _ => None,
        }
    }

    /// A tangent of the same shape with every element zero.
    pub fn zeros_like(&self) -> Tangent {
        match self {
            Tangent::Scalar(_) => Tangent::Scalar(0.0),
            Tangent::Vector(v) => Tangent::Vector(vec![0.0; v.len()]),
            #[cfg(feature = "ndarray")]
            Tangent::Array(a) => Tangent::Array(Box::new(ndarray::ArrayD::zeros(a.raw_dim()))),
            Tangent::Fields(fields) => Tangent::Fields(
                fields
                    .iter()
                    .map(|(p, t)| (p.clone(), t.zeros_like()))
                    .collect(),
            ),
        }
    }

    /// Every element multiplied by `k`.
    pub fn scaled(&self, k: f64) -> Tangent {
        match self {
            Tangent::Scalar(v) => Tangent::Scalar(v * k),
            Tangent::Vector(v) => Tangent::Vector(v.iter().map(|x| x * k).collect()),
            #[cfg(feature = "ndarray")]
            Tangent::Array(a) => Tangent::Array(Box::new(&**a * k)),
            Tangent::Fields(fields) => Tangent::Fields(
                fields
                    .iter()
                    .map(|(p, t)| (p.clone(), t.scaled(k)))
                    .collect(),
            ),
        }
    }

    /// The shape as text, for errors: `scalar`, `vector of 3`, `array [2, 2]`.
    pub fn shape(&self) -> String {
        match self {
            Tangent::Scalar(_) => "scalar".into(),
            Tangent::Vector(v) => format!("vector of {}", v.len()),
            #[cfg(feature = "ndarray")]
            Tangent::Array(a) => format!("array {:?}", a.shape()),
            Tangent::Fields(fields) => format!("struct of {} fields", fields.len()),
        }
    }

    /// Adds `other` element by element; `Err` (with both shapes) when the shapes differ.
    pub fn add_assign(&mut self, other: &Tangent) -> Result<(), (String, String)> {
        match (&mut *self, other) {
            (Tangent::Scalar(a), Tangent::Scalar(b)) => *a += b,
            (Tangent::Vector(a), Tangent::Vector(b)) if a.len() == b.len() => {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y)
            }
            #[cfg(feature = "ndarray")]
            (Tangent::Array(a), Tangent::Array(b)) if a.shape() == b.shape() => **a += &**b,
            #[cfg(feature = "ndarray")]
            (Tangent::Array(a), Tangent::Vector(b)) if a.ndim() == 1 && a.len() == b.len() => {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y)
            }
            #[cfg(feature = "ndarray")]
            (Tangent::Vector(a), Tangent::Array(b)) if b.ndim() == 1 && a.len() == b.len() => {
                a.iter_mut().zip(b.iter()).for_each(|(x, y)| *x += y)
            }
            (Tangent::Fields(a), Tangent::Fields(b)) => {
                for (path, t) in b {
                    match a.iter_mut().find(|(p, _)| p == path) {
                        Some((_, mine)) => mine.add_assign(t)?,
                        None => a.push((path.clone(), t.clone())),
                    }
                }
            }
            (a, b) => return Err((a.shape(), b.shape())),
        }
        Ok(())
    }
}

impl From<f64> for Tangent {
    fn from(v: f64) -> Tangent {
        Tangent::Scalar(v)
    }
}

impl From<f32> for Tangent {
    fn from(v: f32) -> Tangent {
        Tangent::Scalar(v as f64)
    }
}

impl From<Vec<f64>> for Tangent {
    fn from(v: Vec<f64>) -> Tangent {
        Tangent::Vector(v)
    }
}

impl From<&[f64]> for Tangent {
    fn from(v: &[f64]) -> Tangent {
        Tangent::Vector(v.to_vec())
    }
}

impl<const N: usize> From<[f64; N]> for Tangent {
    fn from(v: [f64; N]) -> Tangent {
        Tangent::Vector(v.to_vec())
    }
}

#[cfg(feature = "ndarray")]
impl<S, D> From<ndarray::ArrayBase<S, D>> for Tangent
where
    S: ndarray::Data<Elem = f64>,
    D: ndarray::Dimension,
{
    fn from(a: ndarray::ArrayBase<S, D>) -> Tangent {
        Tangent::Array(Box::new(a.into_owned().into_dyn()))
    }
}

/// `items` between `open` and `close`, separated by commas, each written by `each`.
fn write_list<T>(
    f: &mut fmt::Formatter<'_>,
    (open, close): (&str, &str),
    items: impl IntoIterator<Item = T>,
    each: impl Fn(&mut fmt::Formatter<'_>, T) -> fmt::Result,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, x) in items.into_iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        each(f, x)?;
    }
    f.write_str(close)
}

/// Prints like the value it is the sensitivity of, on one line: `3.0`, `[1.0, 2.0]`,
/// `[[5.0, 6.0], [-5.0, -6.0]]`.
impl fmt::Display for Tangent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tangent::Scalar(v) => write!(f, "{v:?}"),
            Tangent::Vector(v) => write_list(f, ("[", "]"), v, |f, x| write!(f, "{x:?}")),
            #[cfg(feature = "ndarray")]
            Tangent::Array(a) => crate::core::arrays::nested(a.view(), f),
            Tangent::Fields(fields) => write_list(f, ("{", "}"), fields, |f, (path, t)| {
                write!(f, "{path}: {t}")
            }),
        }
    }
}

impl fmt::Debug for Tangent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl crate::core::value::Owned for Tangent {}
impl crate::core::value::Snapshot for Tangent {
    fn snapshot(&self) -> crate::core::value::Value {
        crate::core::value::Value::snapshot(self.clone())
    }
}
