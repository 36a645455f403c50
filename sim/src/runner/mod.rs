//! The runner: registers hosts and clients on a turmoil simulation pinned to the run's seed
//! and epoch, records the trace, applies the fault plan during the chaos phase, then heals
//! (every link repaired, crashed hosts bounced, no new faults) and waits for the clients to
//! finish within the liveness bound.

mod apply;
mod config;
mod fast_forward;
mod nodes;
mod record;
#[allow(clippy::module_inception)]
mod runner;
mod step_loop;

pub use config::RunConfig;
pub use record::{NodeOutcome, NodeReport, Role, Run, RunRecord};
pub use runner::{CheckPoint, HostResult, Phase, RunError, Runner};
