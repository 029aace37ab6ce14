//! Choice maps (values by address) and selections (sets of addresses).

use super::address::{Address, AddressMap};
use crate::core::ids::NodeId;
use crate::core::value::{Snapshot, Value};
use std::collections::HashMap;
use std::fmt;

/// Values of random choices by address, in the order inserted: constraints for
/// [`generate`](super::generate) and [`update`](super::update), a trace's choices, what an
/// update discarded.
///
/// ```
/// use irtrack::ppl::ChoiceMap;
/// let c = ChoiceMap::new().with("x", 1.5).with(("flip", 2), true);
/// assert_eq!(c.get::<f64>("x"), Some(1.5));
/// assert_eq!(c.get::<bool>(("flip", 2)), Some(true));
/// assert_eq!(c.get::<bool>("x"), None);
/// assert_eq!(c.to_string(), "{x = 1.5, flip[2] = true}");
/// ```
#[derive(Clone, Default)]
pub struct ChoiceMap {
    entries: Vec<(Address, Value)>,
    index: AddressMap<usize>,
}

impl ChoiceMap {
    /// An empty choice map.
    pub fn new() -> ChoiceMap {
        ChoiceMap::default()
    }

    /// This map with `value` at `address` (replacing a value there).
    pub fn with(mut self, address: impl Into<Address>, value: impl Snapshot) -> ChoiceMap {
        self.insert(address, value);
        self
    }

    /// Sets `value` at `address`; returns the value that was there.
    ///
    /// ```
    /// use irtrack::ppl::ChoiceMap;
    /// let mut c = ChoiceMap::new();
    /// assert!(c.insert("x", 1.0).is_none());
    /// assert_eq!(c.insert("x", 2.0).and_then(|v| v.as_f64()), Some(1.0));
    /// ```
    pub fn insert(&mut self, address: impl Into<Address>, value: impl Snapshot) -> Option<Value> {
        self.insert_value(address.into().printed_path(), value.snapshot())
    }

    /// Sets a [`Value`] at `address`; returns the value that was there.
    ///
    /// ```
    /// use irtrack::{ppl::ChoiceMap, Value};
    /// let mut c = ChoiceMap::new();
    /// c.insert_value("k".into(), Value::snapshot(3u64));
    /// assert_eq!(c.get::<u64>("k"), Some(3));
    /// ```
    pub fn insert_value(&mut self, address: Address, value: Value) -> Option<Value> {
        match self.index.get(&address) {
            Some(&i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            None => {
                self.index.insert(address.clone(), self.entries.len());
                self.entries.push((address, value));
                None
            }
        }
    }

    /// The value at `address`.
    ///
    /// ```
    /// use irtrack::ppl::ChoiceMap;
    /// let c = ChoiceMap::new().with("x", 2.0);
    /// assert_eq!(c.value("x").and_then(|v| v.as_f64()), Some(2.0));
    /// ```
    pub fn value(&self, address: impl Into<Address>) -> Option<&Value> {
        self.value_at(&address.into().printed_path())
    }

    pub(crate) fn value_at(&self, address: &Address) -> Option<&Value> {
        self.index.get(address).map(|&i| &self.entries[i].1)
    }

    /// The value at `address` as a `T`, if there is one of that type.
    pub fn get<T: Clone + 'static>(&self, address: impl Into<Address>) -> Option<T> {
        self.value(address)?.downcast_ref::<T>().cloned()
    }

    /// Whether there is a value at `address`.
    ///
    /// ```
    /// use irtrack::ppl::ChoiceMap;
    /// assert!(ChoiceMap::new().with("x", 1.0).contains("x"));
    /// ```
    pub fn contains(&self, address: impl Into<Address>) -> bool {
        self.index.contains_key(&address.into().printed_path())
    }

    /// How many values the map holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map holds no value.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The addresses and values, in the order inserted.
    ///
    /// ```
    /// use irtrack::ppl::ChoiceMap;
    /// let c = ChoiceMap::new().with("b", 1.0).with("a", 2.0);
    /// let order: Vec<String> = c.iter().map(|(a, _)| a.to_string()).collect();
    /// assert_eq!(order, ["b", "a"]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Address, &Value)> + '_ {
        self.entries.iter().map(|(a, v)| (a, v))
    }

    /// The addresses, in the order inserted.
    pub fn addresses(&self) -> impl ExactSizeIterator<Item = &Address> + '_ {
        self.entries.iter().map(|(a, _)| a)
    }
}

impl fmt::Display for ChoiceMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, (a, v)) in self.entries.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{a} = {v}")?;
        }
        f.write_str("}")
    }
}

impl fmt::Debug for ChoiceMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A set of addresses, each standing for itself and every address below it (selecting
/// `geom` selects `geom/stop` and `geom/geom/stop`): what [`regenerate`](super::regenerate)
/// and [`mh`](super::mh) resample.
///
/// ```
/// use irtrack::ppl::{Address, Selection};
/// let s = Selection::of(["mu", "geom"]);
/// assert!(s.contains(&Address::from("mu")));
/// assert!(s.contains(&Address::parse("geom/geom/stop").unwrap()));
/// assert!(!s.contains(&Address::from("sigma")));
/// assert!(s.complement().contains(&Address::from("sigma")));
/// assert!(Selection::all().contains(&Address::from("anything")));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Selection {
    /// Every address.
    All,
    /// These addresses and everything below them.
    Of(Vec<Address>),
    /// Every address the inner selection does not hold.
    Complement(Box<Selection>),
}

impl Selection {
    /// Every address.
    pub fn all() -> Selection {
        Selection::All
    }

    /// These addresses and everything below them. A name as an address prints
    /// (`"geom/stop"`, `"component[1]/x"`) is read as that address: no choice can have a name
    /// holding `/`, `[`, `]` or `#`, so taken as one name it would select nothing.
    ///
    /// ```
    /// use irtrack::ppl::{Address, Selection};
    /// let s = Selection::of(["geom/stop"]);
    /// assert!(s.contains(&Address::parse("geom/stop").unwrap()));
    /// ```
    pub fn of<A: Into<Address>>(addresses: impl IntoIterator<Item = A>) -> Selection {
        Selection::Of(
            addresses
                .into_iter()
                .map(|a| a.into().printed_path())
                .collect(),
        )
    }

    /// One address and everything below it.
    ///
    /// ```
    /// use irtrack::ppl::{Address, Selection};
    /// assert!(Selection::address(("x", 2)).contains(&Address::from(("x", 2))));
    /// ```
    pub fn address(address: impl Into<Address>) -> Selection {
        Selection::Of(vec![address.into().printed_path()])
    }

    /// Every address this selection does not hold.
    pub fn complement(self) -> Selection {
        match self {
            Selection::Complement(inner) => *inner,
            s => Selection::Complement(Box::new(s)),
        }
    }

    /// Whether `address` is selected.
    pub fn contains(&self, address: &Address) -> bool {
        match self {
            Selection::All => true,
            Selection::Of(v) => v.iter().any(|p| address.starts_with(p)),
            Selection::Complement(s) => !s.contains(address),
        }
    }
}

/// Whether a choice is latent or data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Latent: drawn, or given a new value by an update (a proposal's).
    Latent,
    /// Data given as a constraint of `generate`.
    Constrained,
    /// Given by the model (`observe`).
    Observed,
}

/// One choice of a trace.
#[derive(Clone, Debug)]
pub(crate) struct Choice {
    pub address: Address,
    pub value: Value,
    pub log_density: f64,
    pub dist: &'static str,
    pub parameters: Vec<f64>,
    pub origin: Origin,
    pub continuous: bool,
    /// Of one of the built-in distributions (by type): a graph's `distribution` and
    /// `parameters` metadata then rebuild it (`score_graph`); a node of another is flagged
    /// `user_distribution`.
    pub builtin: bool,
}

/// A trace's choices in execution order, indexed by address.
#[derive(Clone, Debug, Default)]
pub(crate) struct Choices {
    pub list: Vec<Choice>,
    /// Shared between a trace and the traces updates in place make from it (which change
    /// values, never addresses): copying it was a third of an in-place update's copy of the
    /// choices.
    pub index: std::sync::Arc<AddressMap<usize>>,
}

impl Choices {
    pub(crate) fn get(&self, address: &Address) -> Option<(usize, &Choice)> {
        self.index.get(address).map(|&i| (i, &self.list[i]))
    }

    pub(crate) fn to_map(&self) -> ChoiceMap {
        let mut m = ChoiceMap::new();
        for c in &self.list {
            m.insert_value(c.address.clone(), c.value.clone());
        }
        m
    }
}

/// Where each choice is in a trace's graph, found once per recording.
#[derive(Clone, Debug, Default)]
pub(crate) struct Nodes {
    /// The node of each choice (by index), when the choice was made by its own call.
    pub of_choice: Vec<Option<NodeId>>,
    /// The choice of each choice node.
    pub choice_of: HashMap<NodeId, usize>,
}
