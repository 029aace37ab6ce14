//! Addresses of random choices: paths of keys, like Gen's hierarchical addresses.
//!
//! A model names each choice (`"x"`, `("x", i)`); a choice made inside a call of a `#[tracked]`
//! function is nested under that call's key: the function's name, followed by `[k]` for the
//! `k`-th call (from 0) of that function by the same caller when `k > 0`. So a choice `"stop"`
//! in the third level of a recursion `geom → geom → geom` is `geom/geom/stop`, and `"x"` in the
//! second of two calls of `component` from the same body is `component[1]/x`. Nothing else
//! enters an address: adding a statement, a `let` or an untracked call does not change any.
//!
//! An unnamed draw ([`draw`](super::draw)) gets the key `dist#k`: the `k`-th unnamed draw from
//! a distribution named `dist` in the same call (`normal#0`).

use std::borrow::Cow;
use std::fmt;

/// One key of an [`Address`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// A name: `x`, or a tracked function's name for a call.
    Name(Cow<'static, str>),
    /// An index: `[3]`.
    Index(i64),
    /// The `index`-th unnamed draw from the distribution named `dist` in its call: `normal#0`.
    Unnamed {
        /// The distribution's name.
        dist: Cow<'static, str>,
        /// How many unnamed draws from that distribution its call made before it.
        index: u32,
    },
}

/// Where a random choice is in a model: a path of [`Key`]s, printed `geom/geom/stop`,
/// `x[3]`, `component[1]/x`, `normal#0`.
///
/// ```
/// use irtrack::ppl::Address;
/// let a = Address::from(("x", 3));
/// assert_eq!(a.to_string(), "x[3]");
/// assert_eq!(Address::parse("geom/geom/stop").unwrap().len(), 3);
/// assert_eq!(Address::parse(&a.to_string()), Some(a));
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Address(pub(crate) Vec<Key>);

impl Address {
    /// The empty address: the model itself.
    pub fn root() -> Address {
        Address(Vec::new())
    }

    /// The keys, outermost first.
    pub fn keys(&self) -> &[Key] {
        &self.0
    }

    /// How many keys the address has.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the address has no key (the model itself).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `prefix`'s keys start this address (every address starts with the root).
    ///
    /// ```
    /// use irtrack::ppl::Address;
    /// let a = Address::parse("geom/geom/stop").unwrap();
    /// assert!(a.starts_with(&Address::parse("geom").unwrap()));
    /// assert!(!a.starts_with(&Address::parse("stop").unwrap()));
    /// ```
    pub fn starts_with(&self, prefix: &Address) -> bool {
        self.0.starts_with(&prefix.0)
    }

    /// This address followed by `other`'s keys.
    ///
    /// ```
    /// use irtrack::ppl::Address;
    /// let a = Address::from("geom").join(&Address::from(("x", 1)));
    /// assert_eq!(a.to_string(), "geom/x[1]");
    /// ```
    pub fn join(&self, other: &Address) -> Address {
        let mut keys = Vec::with_capacity(self.0.len() + other.0.len());
        keys.extend_from_slice(&self.0);
        keys.extend_from_slice(&other.0);
        Address(keys)
    }

    /// A single name that is an address's printed form (`"geom/stop"`, which no name can
    /// be) as that address; any other address as it is.
    pub(crate) fn printed_path(self) -> Address {
        match &self.0[..] {
            [Key::Name(n)] if !valid_name(n) => Address::parse(n).unwrap_or(self),
            _ => self,
        }
    }

    /// Reads an address from its printed form; `None` when the text is not one.
    ///
    /// ```
    /// use irtrack::ppl::{Address, Key};
    /// let a = Address::parse("component[1]/normal#0").unwrap();
    /// assert_eq!(a.keys()[1], Key::Index(1));
    /// assert!(matches!(&a.keys()[2], Key::Unnamed { index: 0, .. }));
    /// assert_eq!(Address::parse("x[y]"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Address> {
        let mut keys = Vec::new();
        if text.is_empty() {
            return Some(Address(keys));
        }
        for segment in text.split('/') {
            let (name, mut rest) = match segment.find('[') {
                Some(i) => (&segment[..i], &segment[i..]),
                None => (segment, ""),
            };
            match name.split_once('#') {
                Some((dist, k)) if !dist.is_empty() && valid_name(dist) => {
                    keys.push(Key::Unnamed {
                        dist: Cow::Owned(dist.to_string()),
                        index: k.parse().ok()?,
                    })
                }
                Some(_) => return None,
                // A leading index (`[2]/x`) has no name before it.
                None if name.is_empty() && !rest.is_empty() && keys.is_empty() => {}
                None if valid_name(name) => keys.push(Key::Name(Cow::Owned(name.to_string()))),
                None => return None,
            }
            while !rest.is_empty() {
                let close = rest.find(']')?;
                keys.push(Key::Index(rest.get(1..close)?.parse().ok()?));
                rest = &rest[close + 1..];
                if !rest.is_empty() && !rest.starts_with('[') {
                    return None;
                }
            }
        }
        Some(Address(keys))
    }

    /// `Err` naming the key when a name is empty or holds `/`, `[`, `]` or `#`, which would
    /// print ambiguously.
    pub(crate) fn check(&self) -> Result<(), String> {
        for k in &self.0 {
            if let Key::Name(n) = k {
                if !valid_name(n) {
                    return Err(format!(
                        "the name {n:?} is empty or holds one of `/`, `[`, `]`, `#`, which \
                         addresses print with"
                    ));
                }
            }
        }
        Ok(())
    }
}

fn valid_name(n: &str) -> bool {
    !n.is_empty() && !n.contains(['/', '[', ']', '#'])
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, k) in self.0.iter().enumerate() {
            match k {
                Key::Index(n) => write!(f, "[{n}]")?,
                Key::Name(n) => {
                    if i > 0 {
                        f.write_str("/")?;
                    }
                    f.write_str(n)?;
                }
                Key::Unnamed { dist, index } => {
                    if i > 0 {
                        f.write_str("/")?;
                    }
                    write!(f, "{dist}#{index}")?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_string())
    }
}

impl From<&'static str> for Address {
    fn from(name: &'static str) -> Address {
        Address(vec![Key::Name(Cow::Borrowed(name))])
    }
}

impl From<String> for Address {
    fn from(name: String) -> Address {
        Address(vec![Key::Name(Cow::Owned(name))])
    }
}

impl From<&Address> for Address {
    fn from(a: &Address) -> Address {
        a.clone()
    }
}

impl From<Key> for Address {
    fn from(k: Key) -> Address {
        Address(vec![k])
    }
}

impl From<Vec<Key>> for Address {
    fn from(keys: Vec<Key>) -> Address {
        Address(keys)
    }
}

macro_rules! indexed {
    ($($i:ty),*) => {$(
        impl From<(&'static str, $i)> for Address {
            fn from((name, i): (&'static str, $i)) -> Address {
                Address(vec![Key::Name(Cow::Borrowed(name)), Key::Index(i as i64)])
            }
        }
        impl From<(&'static str, $i, $i)> for Address {
            fn from((name, i, j): (&'static str, $i, $i)) -> Address {
                Address(vec![
                    Key::Name(Cow::Borrowed(name)),
                    Key::Index(i as i64),
                    Key::Index(j as i64),
                ])
            }
        }
        impl From<(String, $i)> for Address {
            fn from((name, i): (String, $i)) -> Address {
                Address(vec![Key::Name(Cow::Owned(name)), Key::Index(i as i64)])
            }
        }
    )*};
}
// Indices past i64::MAX wrap; no model makes that many choices.
indexed!(i32, i64, u32, u64, usize);

/// A map keyed by address, hashed with [`KeyHasher`].
pub(crate) type AddressMap<V> =
    std::collections::HashMap<Address, V, std::hash::BuildHasherDefault<KeyHasher>>;

/// The hasher of the maps keyed by address: rustc's Fx hash (a rotate, a xor and a multiply
/// per word). Every choice a run makes is looked up and inserted by address, and SipHash was
/// a third of a choice's bookkeeping (`benches/ppl.rs`). Addresses are chosen by the model's
/// author, not by an adversary, so SipHash's resistance to collisions chosen on purpose buys
/// nothing here.
#[derive(Clone, Copy, Default)]
pub(crate) struct KeyHasher(u64);

impl KeyHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl std::hash::Hasher for KeyHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn write_i64(&mut self, n: i64) {
        self.add(n as u64);
    }

    #[inline]
    fn write_isize(&mut self, n: isize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}
