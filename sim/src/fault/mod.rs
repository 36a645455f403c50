//! Faults as data: a [`FaultPlan`] is a list of timed faults (partitions, holds, latency and
//! loss changes, crashes, bounces, named hooks) that the runner applies at their simulated
//! times; [`Hooks`] lets host code react to named hooks without knowing about turmoil;
//! [`shrink_plan`] reduces a failing plan to the faults the failure needs.

mod hooks;
mod plan;
mod shrink;

pub use hooks::Hooks;
pub use plan::{Fault, FaultPlan, PlanError, TimedFault};
pub use shrink::shrink_plan;
