//! The deterministic harness of a2a-meshsim, with no A2A logic in it: the seed tree
//! ([`Seed`], [`seed_names`]), the pinned epoch and simulated clock ([`sim_clock`]), transport
//! glue that runs the same axum router and hyper client in turmoil or on real TCP ([`serve`],
//! [`TurmoilConnector`]), the trace recorder and its hash ([`Recorder`], [`TraceHash`]), fault
//! plans, hooks and shrinking ([`FaultPlan`], [`Hooks`], [`shrink_plan`]), swarm mode
//! ([`Swarm`]) and the runner with its chaos and heal phases ([`Runner`]).
//!
//! Everything that runs inside a simulation follows the determinism rules: simulated time
//! only, randomness from named sub-seeds, ordered maps, no `Date` header.
//!
//! # Turmoil facts host code must respect
//!
//! - No TCP retransmission: a segment lost to a partition or to `loss` stalls its connection
//!   for good, so every read needs an idle timeout and every write a stall bound
//!   ([`TimeoutIo`]).
//! - A connect completes only when the server *accepts*; a partitioned SYN fails the connect
//!   at once, a held one hangs until the connect timeout.
//! - On a crash the host's tokio runtime drops its `tokio::spawn`ed tasks in an order that
//!   depends on process-global task ids: tasks that own sockets or emit trace events on drop
//!   must be spawned with `tokio::task::spawn_local` inside a simulation (turmoil hosts run in
//!   a `LocalSet`), or simulations running in parallel threads diverge. [`serve`] does this.
//! - `tcp_capacity` is also the accept backlog; overflowing it panics inside turmoil, which
//!   the runner reports as [`RunError::Simulation`].

// Modules are private and the root re-exports what users name: a type that a public
// signature shows must be re-exported too, or users could hold it but not name it.
#![warn(unnameable_types)]

mod clock;
mod fault;
mod runner;
mod seed;
pub mod seed_names;
mod sim_time;
mod swarm;
mod trace;
mod transport;

pub use clock::{epoch, sim_clock};
pub use fault::{Fault, FaultPlan, Hooks, PlanError, TimedFault, shrink_plan};
pub use runner::{
    CheckPoint, HostResult, NodeOutcome, NodeReport, Phase, Role, Run, RunConfig, RunError,
    RunRecord, Runner,
};
pub use seed::{ParseSeedError, Seed};
pub use sim_time::SimTime;
pub use swarm::{FaultKind, KindRate, Swarm, SwarmSpace};
pub use trace::{Installed, Recorder, SIM_HOST, Trace, TraceHash};
pub use transport::{
    ConnectError, JsonStrings, Receipts, ServeOptions, SimListener, TimeoutIo, TurmoilConnector,
    receiving_for, serve, serve_with,
};
