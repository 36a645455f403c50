//! Which consumer a run drives: the two built in, or a user's own through a factory.

use meshsim_consumer::{
    ClientConfig, Connector, Consumer, NaiveConsumer, ReconcilingConfig, ReconcilingConsumer,
};
use meshsim_sim::TurmoilConnector;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// Builds a consumer for one run from the simulation's connector and a seed for its ids.
pub type ConsumerFactory = Arc<dyn Fn(TurmoilConnector, u64) -> Box<dyn Consumer> + Send + Sync>;

/// A consumer to put through the matrix.
#[derive(Clone)]
pub enum ConsumerChoice {
    /// Plans the lifecycle from the Card (the origin incident's failure mode).
    Naive,
    /// The origin note's operational invariant, done right.
    Reconciling,
    /// A user's consumer, under a name of its own. The name is for tables and messages
    /// only: expectations bind to the consumer, so a user's consumer named `naive` is still
    /// expected to hold every invariant.
    Custom {
        name: String,
        factory: ConsumerFactory,
    },
}

/// The built-in consumers' names.
pub const BUILTIN_CONSUMERS: [&str; 2] = ["naive", "reconciling"];

impl ConsumerChoice {
    /// A user's consumer, made for each run by `factory` from the simulation's connector
    /// and a seed for its ids.
    pub fn custom<C: Consumer + 'static>(
        name: impl Into<String>,
        factory: impl Fn(TurmoilConnector, u64) -> C + Send + Sync + 'static,
    ) -> Self {
        ConsumerChoice::Custom {
            name: name.into(),
            factory: Arc::new(move |connector, seed| Box::new(factory(connector, seed))),
        }
    }

    /// A built-in consumer by name.
    pub fn builtin(name: &str) -> Result<Self, String> {
        match name {
            "naive" => Ok(ConsumerChoice::Naive),
            "reconciling" => Ok(ConsumerChoice::Reconciling),
            other => Err(format!(
                "unknown consumer `{other}` (expected one of: {})",
                BUILTIN_CONSUMERS.join(", ")
            )),
        }
    }

    /// The built-in consumer's name; `None` for a user's consumer, whatever it is called.
    pub fn builtin_name(&self) -> Option<&'static str> {
        match self {
            ConsumerChoice::Naive => Some("naive"),
            ConsumerChoice::Reconciling => Some("reconciling"),
            ConsumerChoice::Custom { .. } => None,
        }
    }

    /// The name shown in tables, messages and rerun lines.
    pub fn name(&self) -> &str {
        match self {
            ConsumerChoice::Naive => "naive",
            ConsumerChoice::Reconciling => "reconciling",
            ConsumerChoice::Custom { name, .. } => name,
        }
    }

    /// The consumer for one run.
    pub fn build(&self, connector: TurmoilConnector, seed: u64) -> Box<dyn Consumer> {
        match self {
            ConsumerChoice::Naive => builtin_over(BuiltinConsumer::Naive, connector, seed),
            ConsumerChoice::Reconciling => {
                builtin_over(BuiltinConsumer::Reconciling, connector, seed)
            }
            ConsumerChoice::Custom { factory, .. } => factory(connector, seed),
        }
    }
}

/// A built-in consumer, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltinConsumer {
    Naive,
    Reconciling,
}

/// A built-in consumer over any connector, with [`sim_client`]'s limits: the simulation's
/// turmoil connector, or real TCP (`meshsim consume`).
pub fn builtin_over<C: Connector>(
    kind: BuiltinConsumer,
    connector: C,
    seed: u64,
) -> Box<dyn Consumer> {
    match kind {
        BuiltinConsumer::Naive => Box::new(NaiveConsumer::new(connector, sim_client(), seed)),
        BuiltinConsumer::Reconciling => Box::new(ReconcilingConsumer::new(
            connector,
            ReconcilingConfig {
                client: sim_client(),
                ..ReconcilingConfig::default()
            },
            seed,
        )),
    }
}

/// Client limits suited to a simulation whose liveness bound is 30 s, as the built-in
/// consumers use them: turmoil has no retransmission, so a lost or held segment shows up only
/// as silence, and a consumer that waits out `ClientConfig::default()`'s 60 s idle timeout
/// on a silent stream misses the bound.
pub fn sim_client() -> ClientConfig {
    ClientConfig {
        request_timeout: Duration::from_secs(3),
        idle_timeout: Duration::from_secs(5),
        ..ClientConfig::default()
    }
}

impl fmt::Debug for ConsumerChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
