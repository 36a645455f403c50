//! What the ledger decides: a verdict on each observation, and the states it applied.

use super::observation::Observation;
use meshsim_protocol::TaskState;
use serde::Serialize;

/// A state the consumer applied, and from which state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Applied {
    pub from: Option<TaskState>,
    pub observation: Observation,
}

/// What the ledger decided about one observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StateVerdict {
    /// A legal forward step: now the task's state.
    Applied,
    /// The current state again.
    Repeat,
    /// Same state and timestamp (or status-message id) as a state applied earlier.
    Duplicate,
    /// Part of a replay of the task's history.
    Replayed,
    /// A second `submitted` on a live task, outside any replay.
    DuplicateSubmitted,
    /// A move the state machine forbids.
    Backward,
    /// A change after a terminal state.
    AfterTerminal,
    /// `unknown`, never applied.
    Unrecognised,
}

impl StateVerdict {
    /// Whether the verdict reveals the peer misbehaving (as opposed to a harmless repeat).
    pub fn is_anomaly(self) -> bool {
        !matches!(self, StateVerdict::Applied | StateVerdict::Repeat)
    }
}

/// The decision about one observation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ruling {
    pub observation: Observation,
    pub verdict: StateVerdict,
    /// The state applied before this observation was judged.
    pub from: Option<TaskState>,
}
