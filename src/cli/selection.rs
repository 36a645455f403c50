//! The arguments `sweep`, `replay` and `shrink` share: which scenario, runtime, consumer,
//! dialect, seeds, shard, faults and step length, parsed into the scenarios crate's types
//! with one clear line for anything wrong.

use crate::cli::scheduler::shard_from_env;
use clap::Args;
use meshsim_protocol::Dialect;
use meshsim_scenarios::{ConsumerChoice, Faults, RunSpec, RuntimeChoice, Scenario};
use meshsim_sim::{FaultPlan, Seed};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
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
    #[arg(long, default_value = "seed-incident")]
    pub scenario: Scenario,
    /// A built-in runtime personality, the path of a personality file, or `swarm` (the
    /// personality the seed draws from the knob space; replay prints it as a file).
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
    /// Run only the first N jobs of the scenario.
    #[arg(long)]
    pub job_limit: Option<usize>,
    /// Simulated milliseconds per step (1 to 1000; default 10). Shorter steps deliver
    /// messages closer to their latency and cost proportionally more wall time.
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

/// `--tick-ms`: whole milliseconds from 1 to 1000.
pub fn tick_ms(text: &str) -> Result<Duration, String> {
    match text.parse::<u64>() {
        Ok(ms @ 1..=1000) => Ok(Duration::from_millis(ms)),
        Ok(_) => Err("a step is 1 to 1000 milliseconds".to_string()),
        Err(error) => Err(error.to_string()),
    }
}

/// `--tick-ms`'s default as clap takes it: [`meshsim_scenarios::DEFAULT_TICK`] (a test
/// keeps them equal).
pub const DEFAULT_TICK_MS: &str = "10";

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
        meshsim_scenarios::test_env::parse_seed_range(s).map(SeedRange)
    }
}

/// `--shard I/N`: the I-th (from 0) of N contiguous slices of the seed range. Written
/// `I/N` in JSON too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// The whole range: an unsharded sweep.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// This shard's slice of `seeds`; the slices of shards 0..N concatenate to `seeds`.
    pub fn slice(self, seeds: Range<u64>) -> Range<u64> {
        let len = u128::from(seeds.end - seeds.start);
        let at = |i: u64| {
            seeds.start + u64::try_from(len * u128::from(i) / u128::from(self.count)).unwrap_or(0)
        };
        at(self.index)..at(self.index + 1)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (index, count) = s
            .split_once('/')
            .ok_or_else(|| format!("shard `{s}` is not of the form I/N"))?;
        let index: u64 = index
            .parse()
            .map_err(|_| format!("shard `{s}`: `{index}` is not a whole number"))?;
        let count: u64 = count
            .parse()
            .map_err(|_| format!("shard `{s}`: `{count}` is not a whole number"))?;
        if count == 0 || index >= count {
            return Err(format!(
                "shard `{s}`: I must be below N and N above 0 (I counts from 0)"
            ));
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Serialize for Shard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// `--shard I/N` or `--shard auto` (the shard a fleet scheduler's environment names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardChoice {
    Given(Shard),
    Auto,
}

impl ShardChoice {
    /// The shard, looking `auto` up in the environment (`var`, as `std::env::var`).
    pub fn resolve(self, var: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
        match self {
            ShardChoice::Given(shard) => Ok(shard),
            ShardChoice::Auto => shard_from_env(var),
        }
    }
}

impl FromStr for ShardChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "auto" {
            return Ok(ShardChoice::Auto);
        }
        s.parse().map(ShardChoice::Given)
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
        assert!(tick_ms("0").unwrap_err().contains("1 to 1000"));
        assert!(tick_ms("1001").unwrap_err().contains("1 to 1000"));
        assert!(tick_ms("ten").is_err());
    }

    #[test]
    fn shards_concatenate_to_the_whole_range() {
        for count in 1..=7 {
            let mut seeds = Vec::new();
            for index in 0..count {
                seeds.extend(Shard { index, count }.slice(10..33));
            }
            assert_eq!(seeds, (10..33).collect::<Vec<_>>(), "{count} shards");
        }
    }

    #[test]
    fn bad_shards_and_ranges_are_named() {
        assert!(
            "2/2"
                .parse::<Shard>()
                .unwrap_err()
                .contains("I must be below N")
        );
        assert!("x/2".parse::<Shard>().unwrap_err().contains("`x`"));
        assert!("5..5".parse::<SeedRange>().unwrap_err().contains("empty"));
        assert!("5-9".parse::<SeedRange>().unwrap_err().contains("A..B"));
        assert_eq!("0x10..20".parse::<SeedRange>().unwrap(), SeedRange(16..20));
    }
}
