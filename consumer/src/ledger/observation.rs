//! What the ledger is fed: one reported state of a task, with where it came from (the
//! connection, its position there, what kind of message carried it) and why the connection
//! was opened.

use meshsim_protocol::TaskState;
use serde::Serialize;

/// What kind of message carried a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    /// A whole-task event on a stream (v0.3/v1.0 open streams with one).
    Snapshot,
    /// A status-update event on a stream.
    StatusUpdate,
    /// A task returned as the result of a send, a get or a cancel.
    Result,
    /// A state a user's consumer reported through [`Report`](crate::contract::Report),
    /// which does not say what carried it: the event's index is the job's count of
    /// applied states.
    Reported,
}

/// Where an observed state came from: the consumer numbers its connections per job, and
/// each event by its position on its connection. Two applies with different refs of the
/// same transition are a double count; the report keeps the refs so that it is visible.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EventRef {
    pub connection: u32,
    pub index: u32,
    pub kind: EventKind,
}

/// Why a connection was opened, which decides how a replay is recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConnectionKind {
    /// A send: the first turn, or a follow-up that answers an interruption.
    Turn,
    /// A resubscribe to a task that already exists.
    Resubscribe,
    /// A `tasks/get` or `tasks/cancel`: one task snapshot, a sync point.
    Probe,
}

/// One reported state of a task, with what identifies the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Observation {
    pub at: EventRef,
    pub state: TaskState,
    pub timestamp: Option<String>,
    /// The status message's id, when the status carries a message that has one.
    pub message_id: Option<String>,
    /// How the peer spelled a state outside the spec (`state` is then `unknown`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unrecognised_state: Option<String>,
}
