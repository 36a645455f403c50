//! What the oracle finds: violations (the consumer's), peer faults (what the peer did within
//! its rights), and the judgement that holds both.

use super::evidence::JobRun;
use crate::invariant::Invariant;
use serde::Serialize;

/// One broken invariant, with where and when it broke.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub invariant: Invariant,
    pub job: String,
    pub task: Option<String>,
    /// When it broke, in milliseconds since the run started: simulated time, dated by the
    /// run's trace. A `meshsim check` run has no trace of the program's acts, so there it is
    /// the ground truth's time of the state the verdict is about where it has one (a
    /// deadline's expiry), else the exit of the job's program (the run's end for a job that
    /// did not end), on the wall clock.
    pub at_ms: u64,
    pub detail: String,
}

/// An invariant that broke because of what the peer did within its rights, with what the
/// consumer did about it (which held).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PeerFault {
    /// The invariant that would otherwise be a violation.
    pub invariant: Invariant,
    pub job: String,
    pub task: Option<String>,
    /// What the peer did.
    pub peer: String,
    /// What the consumer did about it.
    pub consumer: String,
}

/// The oracle's judgement of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    /// The consumer's violations, in [`Invariant::ALL`] order, then job order.
    pub violations: Vec<Violation>,
    /// What broke by the peer's doing, in the order found.
    pub peer_faults: Vec<PeerFault>,
}

pub(super) fn violation(
    invariant: Invariant,
    run: &JobRun,
    task: Option<&str>,
    at_ms: u64,
    detail: String,
) -> Violation {
    Violation {
        invariant,
        job: run.job.name.clone(),
        task: task.map(str::to_string),
        at_ms,
        detail,
    }
}
