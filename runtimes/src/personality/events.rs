//! The shape of the events a turn emits: what a streamed turn starts with, and whether
//! status updates carry timestamps.

use serde::{Deserialize, Serialize};

/// The first event of each streamed turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TurnOpening {
    /// What a stream that creates a task starts with.
    pub new_task: NewTaskOpening,
    /// What a stream that continues a task starts with (before its status updates).
    pub follow_up: FollowUpOpening,
}

impl Default for TurnOpening {
    fn default() -> Self {
        TurnOpening {
            new_task: NewTaskOpening::StatusUpdate,
            follow_up: FollowUpOpening::None,
        }
    }
}

/// See [`TurnOpening::new_task`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NewTaskOpening {
    /// A Task snapshot in `submitted` (a2a-python, a2a-js). v0.1 has no snapshot event,
    /// so it gets a status update there.
    Snapshot,
    /// A status update to `submitted`.
    StatusUpdate,
}

/// See [`TurnOpening::follow_up`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FollowUpOpening {
    /// Straight to the status updates (a2a-python).
    None,
    /// A Task snapshot first (a2a-js starts every turn with one).
    Snapshot,
}

/// Timestamps on status updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Timestamps {
    /// Stamped once, when the transition happens.
    Present,
    /// Never stamped (a2a-rs#274).
    Absent,
    /// Stamped, and stamped again with the current time when an event is replayed.
    RestampedOnReplay,
}
