//! The `tracing` targets of the harness's events: the recorder keeps every event whose
//! target starts with `meshsim`, and the target tells which part of the harness spoke.

/// Network events: connect, accept, request, response, stream frames and closes.
pub const NET_TARGET: &str = "meshsim::net";

/// Applied faults and the heal at the end of the fault phase.
pub const FAULT_TARGET: &str = "meshsim::fault";

/// The runner: hosts exiting, a violation found while running, the end of the run.
pub const RUNNER_TARGET: &str = "meshsim::runner";

/// The mock runtimes: what their task stores, endpoints and sidecars did.
pub const RUNTIME_TARGET: &str = "meshsim::runtime";

/// The consumers: jobs started, states applied, decisions, anomalies, outcomes.
pub const CONSUMER_TARGET: &str = "meshsim::consumer";

/// Notes of a program run inside the simulation (tests and examples of the simulator).
pub const NOTE_TARGET: &str = "meshsim::note";
