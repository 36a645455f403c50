//! Scenarios, the invariant oracle and the run matrix: what ties runtimes, consumers and
//! the harness together into seeded runs with verdicts.
//!
//! A [`Scenario`] says which runtimes stand where, what jobs the consumer runs and which
//! faults always strike; [`run()`] executes one (seed, scenario, runtime, consumer,
//! dialect, faults) under the harness, and the [`oracle`] checks the consumer's reports
//! against the runtimes' ground truth, naming each broken [`Invariant`].

pub mod check;
pub mod consumer_choice;
pub mod expectation;
pub mod impossible;
pub mod invariant;
pub mod knob_coverage;
pub mod matrix;
pub mod oracle;
mod parallel_sweep;
pub mod personality_shrink;
pub mod probed_personality;
pub mod real_profile;
pub mod regressions;
pub mod run;
pub mod runtime_swarm;
pub mod scenario;
pub mod sweep_outcome;
mod tally;
pub mod test_caller;
pub mod test_env;
mod test_sweep;
pub mod throughput;
pub mod timeline;

pub use consumer_choice::{BUILTIN_CONSUMERS, ConsumerChoice, ConsumerFactory, sim_client};
pub use expectation::{Expect, RULES, Rule, rule_for};
pub use invariant::Invariant;
pub use knob_coverage::{Coverage, CoverageSummary};
pub use matrix::{Cell, DEFAULT_SEEDS, IntoRuntime, Matrix, builtin_runtimes};
pub use oracle::{Evidence, JobRun, Judgement, PeerFault, Violation, check, judge};
pub use parallel_sweep::default_threads;
pub use real_profile::real_profile;
pub use run::{DEFAULT_TICK, Faults, RunOptions, RunResult, RunSpec, RuntimeChoice, Verdict, run};
pub use runtime_swarm::SWARM_RUNTIME;
pub use scenario::{Layout, Scenario};
pub use sweep_outcome::SweepOutcome;
pub use tally::{CellKey, CellTally, Tally};
pub use test_caller::TestCaller;
pub use test_env::TestEnv;
