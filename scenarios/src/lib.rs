//! Scenarios, the invariant oracle and the run matrix: what ties runtimes, consumers and
//! the harness together into seeded runs with verdicts.
//!
//! A [`scenario`] says which runtimes stand where, what jobs the consumer runs and which
//! faults the chaos phase may bring; a run executes one (seed, scenario, runtime, consumer,
//! dialect) under the harness, and the [`oracle`] checks the consumer's reports against the
//! runtimes' ground truth, naming each broken [`Invariant`].

pub mod invariant;
pub mod oracle;

pub use invariant::Invariant;
pub use oracle::{Evidence, JobRun, Violation, check};
