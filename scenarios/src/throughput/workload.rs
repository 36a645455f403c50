//! What every throughput figure runs: the origin incident with the reconciling consumer, in
//! one dialect, against each of the origin incident's personalities, stepped one way or the other.

use crate::consumer_choice::ConsumerChoice;
use crate::run::RunOptions;
use crate::run_spec::{Faults, RunSpec, RuntimeChoice};
use crate::scenario::Scenario;
use meshsim_protocol::Dialect;
use meshsim_sim::Seed;
use serde::Serialize;
use std::time::Duration;

/// How simulated runs take their steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stepping {
    /// Idle stretches taken as one step (the default).
    FastForward,
    /// Every step one by one.
    Fixed,
}

impl Stepping {
    /// Both, fast-forward first.
    pub const BOTH: [Stepping; 2] = [Stepping::FastForward, Stepping::Fixed];

    /// The run options that step this way.
    pub fn options(self) -> RunOptions {
        RunOptions {
            fixed_steps: self == Stepping::Fixed,
            ..RunOptions::default()
        }
    }
}

/// The origin incident's three personalities.
pub const PERSONALITIES: [&str; 3] = ["python-correct", "go-replaying", "jvm-reaping"];

/// The dialect every throughput run speaks.
pub const DIALECT: Dialect = Dialect::V1_0;

/// The run of the origin incident against `personality` with the reconciling consumer,
/// stepped every `tick`.
pub fn incident(
    personality: &str,
    seed: u64,
    faults: Faults,
    tick: Duration,
) -> Result<RunSpec, String> {
    let seed = Seed::new(seed);
    Ok(RunSpec {
        seed,
        scenario: Scenario::OriginIncident,
        runtime: RuntimeChoice::resolve(personality)?.for_seed(seed),
        consumer: ConsumerChoice::Reconciling,
        dialect: DIALECT,
        faults,
        job_limit: None,
        tick,
    })
}
