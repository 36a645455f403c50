//! The knobs of a run.

use std::time::{Duration, SystemTime};

use crate::clock::epoch;

/// Simulation parameters. `Default` gives a 1 ms tick, a 5 s chaos phase, a 30 s liveness
/// bound and 1..=20 ms link latency.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    /// Simulated time per step.
    pub tick: Duration,
    /// Length of the chaos phase; every fault of the plan falls inside it.
    pub chaos: Duration,
    /// After healing, how long the clients get to finish.
    pub liveness: Duration,
    /// Lower bound of a message's latency.
    pub min_latency: Duration,
    /// Upper bound of a message's latency.
    pub max_latency: Duration,
    /// Turmoil's per-socket buffer, which is also the accept backlog (a connection burst
    /// beyond it makes turmoil panic).
    pub tcp_capacity: usize,
    /// Let turmoil shuffle the order hosts run in each step (drawn from the seed).
    pub random_node_order: bool,
    /// The simulated start time.
    pub epoch: SystemTime,
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            tick: Duration::from_millis(1),
            chaos: Duration::from_secs(5),
            liveness: Duration::from_secs(30),
            min_latency: Duration::from_millis(1),
            max_latency: Duration::from_millis(20),
            tcp_capacity: 256,
            random_node_order: false,
            epoch: epoch(),
        }
    }
}
