//! Reading probabilistic traces as a model debugger does: scoring a graph (one reloaded from
//! JSON) and drawing it with random choices and observations highlighted.

use super::address::Address;
use super::choices::ChoiceMap;
use super::dist::Builtin;
use super::error::PplError;
use crate::export::dot::DotStyle;
use crate::view::trace::{NodeRef, Trace};

/// The choices of a graph and its score, computed again from each choice node's
/// `distribution`, `parameters` and value: what [`score_graph`] returns.
#[derive(Clone, Debug)]
pub struct GraphScore {
    /// The joint log-density of the choices (without factors, which a graph does not show).
    pub score: f64,
    /// The choices by address, in recording order.
    pub choices: ChoiceMap,
    /// Each choice's log-density, in the same order.
    pub log_densities: Vec<f64>,
}

/// Scores a graph recorded by a PPL run (or read back with `Trace::from_json`): every node
/// with `address` metadata is a choice of the built-in distribution its `distribution` and
/// `parameters` metadata name, at the node's value (a `user_distribution` flag marks a choice
/// of a user's distribution, which may have a built-in one's name).
///
/// ```
/// use irtrack::ppl::{sample, score_graph, simulate, Normal, Poisson, PplRng};
/// use irtrack::tracked;
/// use rand::SeedableRng;
///
/// #[tracked]
/// fn model() -> u64 {
///     let rate = sample("rate", Normal::new(3.0, 0.1));
///     sample("count", Poisson::new(rate))
/// }
///
/// let mut t = simulate(model, (), &mut PplRng::seed_from_u64(1)).unwrap();
/// let scored = score_graph(t.graph().unwrap()).unwrap();
/// assert_eq!(scored.choices.len(), 2);
/// assert!((scored.score - t.score()).abs() < 1e-12);
/// ```
///
/// # Errors
/// [`PplError::Unscorable`] for a choice whose distribution is not built in, or whose value
/// or parameters do not fit it, and for a graph that lacks a choice's node (one made in an
/// untracked helper, or by a model that is not `#[tracked]`); [`PplError::UndefinedWeight`]
/// for a score of `∞ - ∞`.
pub fn score_graph(graph: &Trace) -> Result<GraphScore, PplError> {
    let mut sum = super::handler::LogSum::default();
    let mut choices = ChoiceMap::new();
    let mut log_densities = Vec::new();
    // Choices the graph names but holds no distribution for: made inside a call irtrack did
    // not record (an untracked helper, whose node lists them), or by a model it did not
    // record at all (a closure: the root lists them).
    for (node, key) in graph
        .nodes()
        .flat_map(|n| [(n, "choices"), (n, "choices_unrecorded")])
    {
        if let Some(first) = node.metadata::<Vec<String>>(key).and_then(|a| a.first()) {
            return Err(PplError::Unscorable {
                address: first.clone(),
                reason: "it was made where the graph records no node for it (in an untracked \
                         helper, or a model that is not `#[tracked]`): its distribution is not in \
                         the graph; make the helper `#[tracked]`"
                    .into(),
            });
        }
    }
    for node in graph.nodes() {
        let Some(address) = node.metadata::<String>("address") else {
            continue;
        };
        let unscorable = |reason: String| PplError::Unscorable {
            address: address.clone(),
            reason,
        };
        let name = node
            .metadata::<String>("distribution")
            .ok_or_else(|| unscorable("no `distribution` metadata".into()))?;
        // A user's distribution may share a built-in one's name (`"normal"` for a precision
        // parametrisation): only a choice of a built-in type is rebuilt from its name.
        if node.metadata::<bool>("user_distribution") == Some(&true) {
            return Err(unscorable(format!(
                "its distribution (`{name}`) is not one of the built-in ones, whose density the \
                 graph's name and parameters would give"
            )));
        }
        let parameters = node
            .metadata::<Vec<f64>>("parameters")
            .ok_or_else(|| unscorable("no `parameters` metadata".into()))?;
        let dist = Builtin::from_parameters(name, parameters).ok_or_else(|| {
            unscorable(format!(
                "`{name}` with {} parameters is not a built-in distribution",
                parameters.len()
            ))
        })?;
        dist.check().map_err(unscorable)?;
        let observed = node.metadata::<bool>("observed") == Some(&true);
        // An observation's node holds `()`: its value is the call's last argument.
        let value = match node.raw_value() {
            v if v.is_unit() && observed => node
                .operand_values()
                .last()
                .cloned()
                .ok_or_else(|| unscorable("no observed value".into()))?,
            v => v,
        };
        let lp = dist
            .log_density(&value)
            .ok_or_else(|| unscorable(format!("{value} is not a {name} value")))?;
        if lp.is_nan() {
            return Err(unscorable("its log-density is NaN".into()));
        }
        sum.add(lp);
        let parsed = Address::parse(address)
            .ok_or_else(|| unscorable("the address does not parse".into()))?;
        choices.insert_value(parsed, value);
        log_densities.push(lp);
    }
    Ok(GraphScore {
        score: sum.value()?,
        choices,
        log_densities,
    })
}

/// The styling hook for [`Trace::to_dot_styled`] that highlights random choices (light blue)
/// and observed or constrained values (salmon).
///
/// ```
/// use irtrack::ppl::{choice_style, observe, sample, simulate, Normal, PplRng};
/// use irtrack::export::dot::DotStyle;
/// use irtrack::tracked;
/// use rand::SeedableRng;
///
/// #[tracked]
/// fn model(y: f64) {
///     let mu = sample("mu", Normal::new(0.0, 1.0));
///     observe("y", Normal::new(mu, 1.0), y);
/// }
///
/// let mut t = simulate(model, (0.5,), &mut PplRng::seed_from_u64(1)).unwrap();
/// let dot = t.graph().unwrap().to_dot_styled(&DotStyle { metadata: true, node: Some(&choice_style) });
/// assert!(dot.contains("fillcolor=lightblue"));
/// assert!(dot.contains("fillcolor=salmon"));
/// assert!(dot.contains("address = \\\"mu\\\""));
/// ```
pub fn choice_style(node: NodeRef<'_>) -> Option<String> {
    node.metadata::<String>("address")?;
    Some(if node.metadata::<bool>("observed") == Some(&true) {
        "style=\"rounded,filled\", fillcolor=salmon".into()
    } else {
        "style=\"rounded,filled\", fillcolor=lightblue".into()
    })
}

/// The graph as Graphviz DOT with metadata in the labels and [`choice_style`]'s highlights.
///
/// ```
/// use irtrack::ppl::{dot, sample, simulate, Normal, PplRng};
/// use rand::SeedableRng;
///
/// let mut t = simulate(|| sample("x", Normal::new(0.0, 1.0)), (), &mut PplRng::seed_from_u64(1)).unwrap();
/// assert!(dot(t.graph().unwrap()).starts_with("digraph irtrack {"));
/// ```
pub fn dot(graph: &Trace) -> String {
    graph.to_dot_styled(&DotStyle {
        metadata: true,
        node: Some(&choice_style),
    })
}
