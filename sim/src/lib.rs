//! The deterministic harness of a2a-meshsim, with no A2A logic in it: the seed tree
//! ([`Seed`]), the pinned epoch and simulated clock ([`sim_clock`]), transport glue that runs
//! the same axum router and hyper client in turmoil or on real TCP ([`transport`]), the trace
//! recorder and its hash ([`trace`]), fault plans, hooks and shrinking ([`fault`]), swarm mode
//! ([`swarm`]) and the runner with its chaos and heal phases ([`runner`]).
//!
//! Everything that runs inside a simulation follows the determinism rules: simulated time
//! only, randomness from named sub-seeds, ordered maps, no `Date` header.

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
pub use runner::{NodeReport, Outcome, Role, Run, RunConfig, RunError, RunRecord, Runner};
pub use seed::Seed;
pub use swarm::{FaultKind, Swarm, SwarmSpace};
pub use trace::{Recorder, Trace, TraceHash};
pub use transport::{SimListener, TurmoilConnector, serve};
