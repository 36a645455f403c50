//! The deterministic harness of a2a-meshsim, with no A2A logic in it: the seed tree
//! ([`Seed`]), the pinned epoch and simulated clock ([`sim_clock`]), transport glue that runs
//! the same axum router and hyper client in turmoil or on real TCP ([`transport`]), the trace
//! recorder and its hash ([`trace`]), fault plans, hooks and shrinking ([`fault`]), swarm mode
//! ([`swarm`]) and the runner with its chaos and heal phases ([`runner`]).
//!
//! Everything that runs inside a simulation follows the determinism rules: simulated time
//! only, randomness from named sub-seeds, ordered maps, no `Date` header.
//!
//! # Turmoil facts host code must respect
//!
//! - No TCP retransmission: a segment lost to a partition or to `loss` stalls its connection
//!   for good, so every read needs an idle timeout and every write a stall bound
//!   ([`transport::TimeoutIo`]).
//! - A connect completes only when the server *accepts*; a partitioned SYN fails the connect
//!   at once, a held one hangs until the connect timeout.
//! - On a crash the host's tokio runtime drops its `tokio::spawn`ed tasks in an order that
//!   depends on process-global task ids: tasks that own sockets or emit trace events on drop
//!   must be spawned with `tokio::task::spawn_local` inside a simulation (turmoil hosts run in
//!   a `LocalSet`), or simulations running in parallel threads diverge. [`serve`] does this.
//! - `tcp_capacity` is also the accept backlog; overflowing it panics inside turmoil, which
//!   the runner reports as [`RunError::Simulation`].

pub mod clock;
pub mod fault;
pub mod runner;
pub mod seed;
pub mod sim_time;
pub mod swarm;
pub mod trace;
pub mod transport;

pub use clock::{epoch, sim_clock};
pub use fault::{Fault, FaultPlan, Hooks, TimedFault};
pub use runner::{NodeOutcome, NodeReport, Role, Run, RunConfig, RunError, RunRecord, Runner};
pub use seed::Seed;
pub use swarm::{FaultKind, Swarm, SwarmSpace};
pub use trace::{Recorder, Trace, TraceHash};
pub use transport::{SimListener, TurmoilConnector, serve};
