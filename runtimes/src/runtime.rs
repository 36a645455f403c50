//! A runtime: a personality speaking one dialect, as an `axum::Router`.
//!
//! The router serves the Agent Card at the dialect's well-known path, and the routes of the
//! bindings the personality serves ([`crate::Bindings`]): JSON-RPC at `/`, and in v1.0 the
//! HTTP+JSON binding's routes ([`crate::http_json`]); [`crate::routes`] builds them.
//! It does no I/O of its own: the simulation serves it over turmoil, `meshsim serve` over
//! real TCP.

use crate::behaviour::{Behaviour, Knobs};
use crate::card;
use crate::personality::Personality;
use crate::routes::routes;
use crate::store::Host;
use crate::truth::GroundTruth;
use axum::Router;
use meshsim_protocol::Dialect;
use meshsim_protocol::clock::Clock;
use std::sync::Arc;

/// Everything a runtime instance is made of. Build one, keep its [`GroundTruth`] (or hand
/// one in to outlive restarts), then turn it into a router.
#[derive(Clone)]
pub struct Runtime {
    /// Shared with every instance's store: an instance starts without copying it.
    personality: Arc<Personality>,
    dialect: Dialect,
    clock: Clock,
    seed: u64,
    truth: GroundTruth,
    behaviour: Arc<dyn Behaviour>,
    max_tasks: Option<usize>,
}

impl Runtime {
    /// A runtime with the knob-driven behaviour and a fresh ground truth. `seed` drives its
    /// work durations and its task, context and message ids.
    pub fn new(personality: Personality, dialect: Dialect, clock: Clock, seed: u64) -> Self {
        Runtime {
            personality: Arc::new(personality),
            dialect,
            clock,
            seed,
            truth: GroundTruth::new(),
            behaviour: Arc::new(Knobs),
            max_tasks: None,
        }
    }

    /// Writes to `truth` instead (e.g. the same handle across a host's restarts).
    pub fn with_truth(mut self, truth: GroundTruth) -> Self {
        self.truth = truth;
        self
    }

    /// Decides with `behaviour` instead of the plain knobs.
    pub fn with_behaviour(self, behaviour: impl Behaviour) -> Self {
        self.with_shared_behaviour(Arc::new(behaviour))
    }

    /// Decides with `behaviour`, shared (one behaviour for several runtimes).
    pub fn with_shared_behaviour(mut self, behaviour: Arc<dyn Behaviour>) -> Self {
        self.behaviour = behaviour;
        self
    }

    /// Keeps at most `max` tasks in the store: when full, the terminal task whose status
    /// changed longest ago is evicted; with none terminal, a new task is refused with an
    /// internal error (-32603) saying so. Unbounded by default.
    pub fn with_max_tasks(mut self, max: usize) -> Self {
        self.max_tasks = Some(max);
        self
    }

    /// The ground truth this runtime writes.
    pub fn truth(&self) -> GroundTruth {
        self.truth.clone()
    }

    pub fn personality(&self) -> &Personality {
        &self.personality
    }

    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Starts an instance (an empty task store) and returns its router. Each call is a new
    /// instance, as after a restart: tasks the previous one held are lost.
    pub fn router(&self) -> Router {
        let host = Host::new(
            Arc::clone(&self.personality),
            self.dialect,
            self.clock.clone(),
            self.seed,
            self.truth.clone(),
            Arc::clone(&self.behaviour),
            self.max_tasks,
        );
        let served = self.personality.bindings.served(self.dialect);
        let tenant = card::tenant(&self.personality, self.dialect).map(str::to_string);
        routes(self.dialect, served, tenant).with_state(host)
    }
}
