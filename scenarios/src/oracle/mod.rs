//! The oracle: checks what consumers report against the runtimes' ground truth, which only
//! the simulation can see, and names every violation.
//!
//! Some breaks are the peer's doing, not the consumer's: a cancel the peer refused as the
//! protocol lets it (-32002, or the task answered unchanged) leaves a task live, and a job
//! [`crate::impossible`] says no consumer can finish ends in a give-up. There the oracle
//! judges the consumer on what it did about it (asked to cancel and reported the refusal;
//! gave up with a reason) and names the peer's part as a [`PeerFault`] instead of a
//! violation.

mod deadlines_honoured;
mod evidence;
mod judge;
mod legal_path;
mod liveness;
mod no_double_apply;
mod no_orphaned_task;
mod one_outcome;
mod profile_matches_runtime;
mod verdict;
mod view_matches_truth;

pub(crate) use evidence::delivered;
pub use evidence::{Deliveries, Delivery, Evidence, JobRun};
pub use judge::{check, judge};
pub use verdict::{Judgement, PeerFault, Violation};

#[cfg(test)]
mod tests;
