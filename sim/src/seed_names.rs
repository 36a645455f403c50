//! Well-known sub-seed names, so that every crate asks for the same source of the
//! [`Seed`](crate::Seed) tree by the same name.

/// Turmoil's own RNG (message latency, random link failures, node order).
pub const TURMOIL: &str = "turmoil";
/// The workload a scenario drives (which tasks, when).
pub const WORKLOAD: &str = "workload";
/// The fault plan drawn by swarm mode.
pub const FAULTS: &str = "faults";
/// The personality `--runtime swarm` draws for a run.
pub const PERSONALITY: &str = "personality";
/// Per-host sources hang below this one: `seed.derive(HOSTS).derive("agent-a")`.
pub const HOSTS: &str = "hosts";
