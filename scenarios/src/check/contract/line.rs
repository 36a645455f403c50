//! One line of a report ([`Line`]), told apart by its `kind`: a task learned of, a state
//! applied (with the message that carried it), a deadline enforced, a task abandoned, the
//! outcome.

use meshsim_consumer::ledger::EventKind;
use meshsim_protocol::TaskState;
use serde::{Deserialize, Serialize};

/// Which message carried an applied state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Via {
    /// A whole Task as an event on a stream.
    Snapshot,
    /// A status-update event on a stream.
    StatusUpdate,
    /// A Task returned as the answer of a send, a get (a poll) or a cancel.
    Result,
}

impl From<Via> for EventKind {
    fn from(via: Via) -> Self {
        match via {
            Via::Snapshot => EventKind::Snapshot,
            Via::StatusUpdate => EventKind::StatusUpdate,
            Via::Result => EventKind::Result,
        }
    }
}

impl From<EventKind> for Via {
    fn from(kind: EventKind) -> Self {
        match kind {
            EventKind::Snapshot => Via::Snapshot,
            EventKind::StatusUpdate => Via::StatusUpdate,
            EventKind::Result => Via::Result,
            // Only a Rust consumer's `Report` makes these, and it never becomes a program's
            // report; a state reported without its carrier is closest to an answer's task.
            EventKind::Reported => Via::Result,
        }
    }
}

/// Where an applied state came from: the program numbers its connections (requests) from
/// 1 within the job, and each event by its position (from 0) on its connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub connection: u32,
    pub index: u32,
    pub via: Via,
}

/// What a program that gave up on a task got when it tried to cancel it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "result", deny_unknown_fields)]
pub enum Cancel {
    /// It did not try.
    NotAttempted,
    /// The agent answered with the task in `state`.
    Answered { state: TaskState },
    /// The agent no longer knows the task.
    TaskGone,
    /// The agent refused: -32002 TaskNotCancelable.
    NotCancelable,
    /// Any other failure.
    Failed { error: String },
}

/// How a job ended, as the outcome line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    /// The task completed; `task` and `artifact` (its text) are required.
    Completed,
    /// The task failed or was rejected; `task` is required, `reason` optional.
    Failed,
    /// The task was canceled; `task` is required.
    Canceled,
    /// The program gave up without an accepted task; `reason` is required.
    GaveUp,
}

impl Ending {
    /// The name on the outcome line.
    pub fn name(self) -> &'static str {
        match self {
            Ending::Completed => "completed",
            Ending::Failed => "failed",
            Ending::Canceled => "canceled",
            Ending::GaveUp => "gave-up",
        }
    }
}

/// The job's one outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutcomeLine {
    pub outcome: Ending,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A task the program learned of (before applying any state to it, e.g. from an answer
/// that named it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskLine {
    pub task: String,
}

/// A state the program applied to its view of `task`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppliedLine {
    pub task: String,
    pub state: TaskState,
    pub source: Source,
}

/// A local deadline that expired: the task sat in `state` longer than `limit_ms`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeadlineLine {
    pub task: String,
    pub state: TaskState,
    pub limit_ms: u64,
}

/// A task the program stopped following before it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AbandonedLine {
    pub task: String,
    pub reason: String,
    pub cancel: Cancel,
}

/// One line of a report, told apart by its `kind` field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Line {
    Task(TaskLine),
    Applied(AppliedLine),
    Deadline(DeadlineLine),
    Abandoned(AbandonedLine),
    /// The last line.
    Outcome(OutcomeLine),
}

/// The values of `kind`.
pub const KINDS: [&str; 5] = ["task", "applied", "deadline", "abandoned", "outcome"];
