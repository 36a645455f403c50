//! Scenarios, the invariant oracle and the run matrix: what ties runtimes, consumers and
//! the harness together into seeded runs with verdicts.
//!
//! A [`Scenario`] says which runtimes stand where, what jobs the consumer runs and which
//! faults always strike; [`run()`] executes one (seed, scenario, runtime, consumer,
//! dialect, faults) under the harness, and the oracle ([`judge`]) checks the consumer's reports
//! against the runtimes' ground truth, naming each broken [`Invariant`].

// Modules are private and the root re-exports what users name; `check` (the `meshsim check`
// command), `throughput` and `timeline` are namespaces whose items are not re-exported. A type
// that a public signature shows must be re-exported too, or users could hold it but not name it.
#![warn(unnameable_types)]

pub mod check;
mod consumer_choice;
mod expectation;
mod file_name;
mod impossible;
mod invariant;
pub mod judgeable;
mod knob_coverage;
mod lock;
mod matrix;
mod oracle;
mod parallel_sweep;
mod personality_shrink;
mod probed_personality;
mod real_profile;
mod regressions;
mod run;
mod run_spec;
mod runtime_swarm;
mod scenario;
mod shell_word;
mod stall_watch;
mod sweep_outcome;
mod tally;
mod test_caller;
mod test_env;
mod test_sweep;
pub mod throughput;
pub mod timeline;

pub use consumer_choice::{
    BUILTIN_CONSUMERS, BuiltinConsumer, ConsumerChoice, ConsumerFactory, builtin_over, sim_client,
};
pub use expectation::{Expect, RULES, Rule, rule_for};
pub use file_name::{file_safe, label_in_file_name};
pub use impossible::{IMPOSSIBLE_RULES, ImpossibleRule};
pub use invariant::Invariant;
pub use knob_coverage::{Coverage, CoverageSummary, knob_values};
pub use matrix::{Cell, DEFAULT_SEEDS, IntoRuntime, Matrix, builtin_runtimes, without_repeats};
pub use oracle::{Deliveries, Delivery, Evidence, JobRun, Judgement, PeerFault, Violation, judge};
pub use parallel_sweep::default_threads;
pub use personality_shrink::shrink_personality;
pub use probed_personality::{probed_personality, unmeasured_knobs};
pub use real_profile::real_profile;
pub use run::{RunOptions, RunResult, Verdict, run};
pub use run_spec::{DEFAULT_TICK, Faults, RunSpec, RuntimeChoice};
pub use runtime_swarm::{DUPLICABLE_STATES, SWARM_RUNTIME};
pub use scenario::{AgentSpec, JobSpec, Layout, Scenario};
pub use sweep_outcome::SweepOutcome;
pub use tally::{CellKey, CellTally, Tally};
pub use test_caller::{TestCaller, TestTarget};
pub use test_env::{TestEnv, parse_seed_range};
