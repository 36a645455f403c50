//! The arguments `sweep`, `replay` and `shrink` share: which scenario, runtime, consumer,
//! dialect, seeds, shard, faults and step length, parsed into the scenarios crate's types
//! with one clear line for anything wrong.

use clap::Args;
use meshsim_protocol::Dialect;
use meshsim_scenarios::{ConsumerChoice, Faults, RunSpec, RuntimeChoice, Scenario};
use meshsim_sim::{FaultPlan, Seed};
use std::ops::Range;
use std::str::FromStr;
use std::time::Duration;

/// One run, named on the command line.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The root seed (decimal or 0x-prefixed hex).
    #[arg(long)]
    pub seed: Seed,
    /// The scenario (see `meshsim list`).
    #[arg(long, default_value = "origin-incident")]
    pub scenario: Scenario,
    /// A built-in runtime personality, the path of a personality file, or `swarm` (the
    /// personality the seed draws from the knob space, printed as a file).
    #[arg(long)]
    pub runtime: String,
    /// `naive` or `reconciling`.
    #[arg(long)]
    pub consumer: String,
    /// The wire dialect: v0.1, v0.3 or v1.0.
    #[arg(long, default_value = "v1.0")]
    pub dialect: Dialect,
    /// `none` (only the scenario's own faults) or `swarm` (plus a draw from the seed).
    #[arg(long, default_value = "swarm", conflicts_with_all = ["plan", "plan_json"])]
    pub faults: FaultMode,
    /// Replay exactly this fault plan (a JSON file, as `replay` and `shrink` print).
    #[arg(long)]
    pub plan: Option<String>,
    /// Replay exactly this fault plan, given inline as JSON.
    #[arg(long, conflicts_with = "plan")]
    pub plan_json: Option<String>,
    /// Run only the first N jobs of the scenario (N at least 1).
    #[arg(long, value_parser = at_least_one_job)]
    pub job_limit: Option<usize>,
    /// Simulated milliseconds per step (1 to 20). Shorter steps deliver messages closer to
    /// their latency; longer ones cost less but coarsen the network.
    #[arg(long = "tick-ms", value_name = "MS", value_parser = tick_ms, default_value = DEFAULT_TICK_MS)]
    pub tick: Duration,
}

impl RunArgs {
    /// The run these arguments name, or one line saying what is wrong.
    pub fn spec(&self) -> Result<RunSpec, String> {
        let faults = match (&self.plan, &self.plan_json) {
            (Some(path), _) => {
                let json = std::fs::read_to_string(path)
                    .map_err(|error| format!("cannot read fault plan {path}: {error}"))?;
                Faults::Plan(
                    FaultPlan::from_json(&json).map_err(|error| format!("{path}: {error}"))?,
                )
            }
            (None, Some(json)) => Faults::Plan(
                FaultPlan::from_json(json).map_err(|error| format!("--plan-json: {error}"))?,
            ),
            (None, None) => self.faults.faults(),
        };
        Ok(RunSpec {
            seed: self.seed,
            scenario: self.scenario,
            runtime: RuntimeChoice::resolve(&self.runtime)?.for_seed(self.seed),
            consumer: ConsumerChoice::builtin(&self.consumer)?,
            dialect: self.dialect,
            faults,
            job_limit: self.job_limit,
            tick: self.tick,
        })
    }
}

/// `--job-limit`: a run does at least one job.
fn at_least_one_job(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("a run does at least one job".to_string()),
        Ok(jobs) => Ok(jobs),
        Err(error) => Err(error.to_string()),
    }
}

/// `--tick-ms`: whole milliseconds from 1 to [`LONGEST_TICK_MS`].
pub fn tick_ms(text: &str) -> Result<Duration, String> {
    match text.parse::<u64>() {
        Ok(ms @ 1..=LONGEST_TICK_MS) => Ok(Duration::from_millis(ms)),
        Ok(_) => Err(format!(
            "a step is 1 to {LONGEST_TICK_MS} milliseconds: a longer one delays each hop of \
             an exchange so far that the runs' timers, not the consumer, decide verdicts"
        )),
        Err(error) => Err(error.to_string()),
    }
}

/// The longest step: at 20 ms the default sweep and 1,000 swarm seeds meet every declared
/// expectation; at 30 ms 4 swarm runs miss theirs (a reaper of about 300 ms outruns
/// exchanges whose hops each wait for a step), and the default sweep misses 2 at 75 ms and
/// 90 at 100 ms (3 s timeouts start to fire).
const LONGEST_TICK_MS: u64 = 20;

/// `--tick-ms`'s default as clap takes it: [`meshsim_scenarios::DEFAULT_TICK`] (a test
/// keeps them equal).
pub const DEFAULT_TICK_MS: &str = "1";

/// `--faults none|swarm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultMode {
    None,
    Swarm,
}

impl FaultMode {
    pub fn faults(self) -> Faults {
        match self {
            FaultMode::None => Faults::None,
            FaultMode::Swarm => Faults::Swarm,
        }
    }
}

impl FromStr for FaultMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" => Ok(FaultMode::None),
            "swarm" => Ok(FaultMode::Swarm),
            other => Err(format!(
                "unknown fault mode `{other}` (expected none or swarm)"
            )),
        }
    }
}

/// `--seed-range A..B`: seeds A (inclusive) to B (exclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedRange(pub Range<u64>);

impl FromStr for SeedRange {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        meshsim_scenarios::parse_seed_range(s).map(SeedRange)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_scenarios::DEFAULT_TICK;

    #[test]
    fn the_tick_default_is_the_scenarios_default_and_bad_ticks_are_named() {
        assert_eq!(tick_ms(DEFAULT_TICK_MS), Ok(DEFAULT_TICK));
        assert_eq!(tick_ms("1"), Ok(Duration::from_millis(1)));
        assert!(tick_ms("0").unwrap_err().contains("1 to 20"));
        assert_eq!(tick_ms("20"), Ok(Duration::from_millis(20)));
        assert!(tick_ms("21").unwrap_err().contains("1 to 20"));
        assert!(tick_ms("ten").is_err());
    }

    #[test]
    fn bad_ranges_are_named() {
        assert!("5..5".parse::<SeedRange>().unwrap_err().contains("empty"));
        assert!("5-9".parse::<SeedRange>().unwrap_err().contains("A..B"));
        assert_eq!("0x10..20".parse::<SeedRange>().unwrap(), SeedRange(16..20));
    }
}
