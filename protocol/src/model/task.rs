//! Tasks, their status and their artifacts.

use super::message::{Message, Part};
use super::state::TaskState;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A task's current state, the agent's message for it (the question at
/// `input-required`), and when it was set. Real runtimes sometimes omit the timestamp.
///
/// A state outside the spec reads as [`TaskState::Unknown`] and its spelling is kept in
/// `unrecognised_state` beside it, rather than inside the enum: `TaskState` stays a `Copy`
/// set of meanings that every crate matches on and compares, and only the few readers that
/// report what a peer sent (`decode`, the consumer's ledger) look at the spelling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStatus {
    pub state: TaskState,
    pub message: Option<Message>,
    /// RFC 3339, as on the wire.
    pub timestamp: Option<String>,
    /// The state as the peer spelled it (`"UNRECOGNIZED"`, `"99"`), when `state` is
    /// `Unknown` because the spelling is outside the spec; `None` for every spec value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrecognised_state: Option<String>,
}

impl TaskStatus {
    /// A status with no message.
    pub fn new(state: TaskState, timestamp: Option<String>) -> Self {
        TaskStatus {
            state,
            message: None,
            timestamp,
            unrecognised_state: None,
        }
    }
}

/// An output of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Artifact {
    /// Absent only in v0.1, which has no artifact ids.
    pub artifact_id: Option<String>,
    pub name: Option<String>,
    pub description: Option<String>,
    pub parts: Vec<Part>,
    pub metadata: Option<Value>,
}

/// A unit of work on a remote agent. `context_id` is v0.1's `sessionId`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub id: String,
    pub context_id: Option<String>,
    pub status: TaskStatus,
    pub history: Vec<Message>,
    pub artifacts: Vec<Artifact>,
    pub metadata: Option<Value>,
}
