//! What a run is: a (seed, scenario, runtime, consumer, dialect, faults) as a [`RunSpec`],
//! with the runtime under test ([`RuntimeChoice`]) and the faults it runs under ([`Faults`]).

use crate::consumer_choice::ConsumerChoice;
use crate::runtime_swarm::{self, SWARM_RUNTIME};
use crate::scenario::Scenario;
use crate::shell_word;
use meshsim_protocol::Dialect;
use meshsim_runtimes::{Behaviour, Knobs, Personality, PersonalityError};
use meshsim_sim::{FaultPlan, Seed};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// The runtime under test: a name (built-in, the file it came from, or `swarm`), its
/// personality, and the behaviour that decides its lifecycle.
#[derive(Clone)]
pub struct RuntimeChoice {
    pub label: String,
    /// For a `swarm` choice not yet given a seed ([`RuntimeChoice::for_seed`]), the
    /// default personality; in a [`RunSpec`], always the personality that runs.
    pub personality: Personality,
    /// Whether each run draws its personality from its seed (`--runtime swarm`).
    pub drawn: bool,
    /// Every lifecycle decision of the runtime under test, and so the profile the oracle
    /// expects of it: [`Knobs`] (the personality's knobs) unless
    /// [`RuntimeChoice::with_behaviour`] registered another.
    pub behaviour: Arc<dyn Behaviour>,
}

impl fmt::Debug for RuntimeChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RuntimeChoice")
            .field("label", &self.label)
            .field("personality", &self.personality.name)
            .field("drawn", &self.drawn)
            .finish_non_exhaustive()
    }
}

impl RuntimeChoice {
    /// `swarm`, a built-in personality, or a personality file.
    pub fn resolve(name_or_path: &str) -> Result<Self, String> {
        if name_or_path == SWARM_RUNTIME {
            return Ok(RuntimeChoice::swarm());
        }
        meshsim_runtimes::resolve(name_or_path)
            .map(|personality| RuntimeChoice::named(name_or_path, personality))
            .map_err(|error| match error {
                PersonalityError::Unknown { .. } => {
                    format!("{error}; or `{SWARM_RUNTIME}`, a personality each seed draws")
                }
                error => error.to_string(),
            })
    }

    /// `personality` under `label` (what replay commands name it by).
    pub fn named(label: &str, personality: Personality) -> Self {
        RuntimeChoice {
            label: label.to_string(),
            personality,
            drawn: false,
            behaviour: Arc::new(Knobs),
        }
    }

    /// The swarm: every run draws its own personality (`runtime_swarm::draw`).
    pub fn swarm() -> Self {
        RuntimeChoice {
            label: SWARM_RUNTIME.to_string(),
            personality: Personality::default(),
            drawn: true,
            behaviour: Arc::new(Knobs),
        }
    }

    /// Decides the runtime's lifecycle with `behaviour` (a [`Behaviour`] written in Rust)
    /// instead of the knobs alone: the runtime under test runs it in every cell, and the
    /// oracle expects the lifecycle it really has.
    pub fn with_behaviour(mut self, behaviour: impl Behaviour) -> Self {
        self.behaviour = Arc::new(behaviour);
        self
    }

    /// The runtime of the run with root seed `seed`: the swarm's draw, or this one.
    pub fn for_seed(&self, seed: Seed) -> RuntimeChoice {
        if !self.drawn {
            return self.clone();
        }
        RuntimeChoice {
            personality: runtime_swarm::draw(seed),
            ..self.clone()
        }
    }
}

/// Where a run's faults come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Faults {
    /// Only the scenario's own scripted faults.
    None,
    /// The scenario's faults plus a swarm draw from the seed.
    Swarm,
    /// Exactly this plan (as printed by a previous run, or shrunk).
    Plan(FaultPlan),
}

impl Faults {
    /// `none` or `swarm`, for tables and JSON; an explicit plan is `plan`.
    pub fn name(&self) -> &'static str {
        match self {
            Faults::None => "none",
            Faults::Swarm => "swarm",
            Faults::Plan(_) => "plan",
        }
    }
}

/// Everything that identifies a run.
#[derive(Debug, Clone)]
pub struct RunSpec {
    pub seed: Seed,
    pub scenario: Scenario,
    pub runtime: RuntimeChoice,
    pub consumer: ConsumerChoice,
    pub dialect: Dialect,
    pub faults: Faults,
    /// Run only the first this many jobs of the scenario (shrinking the workload).
    pub job_limit: Option<usize>,
    /// Simulated time per step ([`DEFAULT_TICK`] unless asked otherwise).
    pub tick: Duration,
}

impl RunSpec {
    /// The `meshsim replay` command that reproduces this run, quoted for a shell. An
    /// explicit plan is given inline (`--plan-json`).
    pub fn replay_command(&self) -> String {
        let mut command = format!(
            "meshsim replay --seed {} --scenario {} --runtime {} --consumer {} --dialect {}",
            self.seed.value(),
            self.scenario,
            shell_word::quote(&self.runtime.label),
            self.consumer.name(),
            self.dialect
        );
        match &self.faults {
            Faults::Plan(plan) => {
                let json = serde_json::to_string(plan).unwrap_or_default();
                command.push_str(&format!(" --plan-json {}", shell_word::quote(&json)));
            }
            faults => command.push_str(&format!(" --faults {}", faults.name())),
        }
        if let Some(limit) = self.job_limit {
            command.push_str(&format!(" --job-limit {limit}"));
        }
        if self.tick != DEFAULT_TICK {
            command.push_str(&format!(" --tick-ms {}", self.tick.as_millis()));
        }
        command
    }
}

/// The step runs take unless asked otherwise (`--tick-ms`).
///
/// Inside a host timers fire on the exact millisecond whatever the tick; what the tick
/// coarsens is the network, where a message is delivered at the first step after its latency
/// has passed, so at 10 ms two messages sent milliseconds apart often land together, and
/// races a real network has are hidden (two consumer bugs were found only at 1 ms). With idle
/// fast-forward, 1 ms costs about 1.2 times the CPU of 10 ms, and less than half of what
/// 10 ms cost before fast-forward; the 21,000 swarm runs over seeds 0..1000 meet their
/// expectations at both (docs/throughput.md, "The step"). It is also the step of
/// [`meshsim_sim::RunConfig`]'s default, which runs a mesh built by hand.
pub const DEFAULT_TICK: Duration = Duration::from_millis(1);
