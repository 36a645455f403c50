//! What a consumer did in a job, for the oracle to check against the runtimes' ground truth:
//! per task the states it applied (with where each came from, so double applies show), its
//! final view, what it abandoned and canceled, the deadlines it enforced, the anomalies it
//! saw, the one outcome it accepted and the lifecycle profile it learned.

use crate::client::ClientError;
use crate::ledger::{EventRef, StateVerdict};
use crate::profile::PeerLifecycleProfile;
use meshsim_protocol::{ErrorCode, Task, TaskState};
use meshsim_trace::JobOutcome;
use serde::Serialize;

/// One state a consumer applied to its view of a task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AppliedEvent {
    pub from: Option<TaskState>,
    pub to: TaskState,
    /// The event applied: connection, position, kind.
    pub at: EventRef,
    pub timestamp: Option<String>,
}

/// What happened when a consumer gave up on a task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "result", content = "detail")]
pub enum CancelResult {
    /// The consumer did not try to cancel it.
    NotAttempted,
    /// The peer answered with the task in `state`.
    Answered(TaskState),
    /// The peer no longer knows the task (-32001): nothing left to cancel.
    TaskGone,
    /// The peer refused: -32002 TaskNotCancelable.
    NotCancelable,
    /// Any other failure, described.
    Failed(String),
}

impl CancelResult {
    /// What a `tasks/cancel` answer means for the task.
    pub fn of(answer: &Result<Task, ClientError>) -> CancelResult {
        match answer {
            Ok(task) => CancelResult::Answered(task.status.state),
            Err(error) if error.is_task_not_found() => CancelResult::TaskGone,
            Err(error) if error.code() == Some(ErrorCode::TaskNotCancelable) => {
                CancelResult::NotCancelable
            }
            Err(error) => CancelResult::Failed(error.to_string()),
        }
    }

    /// Whether the peer refused the cancel, as the protocol lets it: -32002, or an answer
    /// with the task still live (the cancel ignored).
    pub fn is_refusal(&self) -> bool {
        match self {
            CancelResult::NotCancelable => true,
            CancelResult::Answered(state) => !state.is_terminal(),
            CancelResult::NotAttempted | CancelResult::TaskGone | CancelResult::Failed(_) => false,
        }
    }
}

/// A task the consumer stopped following before it ended, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Abandonment {
    pub reason: String,
    pub cancel: CancelResult,
}

/// The consumer's view of one task it touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskView {
    pub task_id: String,
    /// Every state applied, in order.
    pub applied: Vec<AppliedEvent>,
    /// The state the consumer believes the task is in at the end.
    pub final_state: Option<TaskState>,
    pub abandoned: Option<Abandonment>,
}

/// The one outcome a job accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "outcome")]
pub enum Outcome {
    Completed { task_id: String, artifact: String },
    Failed { task_id: String, reason: String },
    Canceled { task_id: String },
    GaveUp { reason: String },
}

impl Outcome {
    /// The accepted task, if the outcome has one.
    pub fn task_id(&self) -> Option<&str> {
        match self {
            Outcome::Completed { task_id, .. }
            | Outcome::Failed { task_id, .. }
            | Outcome::Canceled { task_id } => Some(task_id),
            Outcome::GaveUp { .. } => None,
        }
    }

    /// The outcome as the trace records it, borrowing its strings.
    pub(crate) fn traced(&self) -> JobOutcome<'_> {
        match self {
            Outcome::Completed { task_id, artifact } => JobOutcome::Completed {
                task: task_id.into(),
                artifact: artifact.into(),
            },
            Outcome::Failed { task_id, reason } => JobOutcome::Failed {
                task: task_id.into(),
                reason: reason.into(),
            },
            Outcome::Canceled { task_id } => JobOutcome::Canceled {
                task: task_id.into(),
            },
            Outcome::GaveUp { reason } => JobOutcome::GaveUp {
                reason: reason.into(),
            },
        }
    }
}

/// A local deadline the consumer enforced: the task sat in `state` for longer than
/// `limit_ms`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeadlineHit {
    pub task_id: String,
    pub state: TaskState,
    pub limit_ms: u64,
}

/// Something a peer did that contradicts a correct lifecycle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Anomaly {
    pub task_id: String,
    pub kind: AnomalyKind,
    pub detail: String,
}

/// The kinds of [`Anomaly`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AnomalyKind {
    /// An event the ledger would not apply (replay, duplicate, backward, after terminal).
    Event(StateVerdict),
    /// -32001 for a task the consumer had been following.
    TaskNotFound,
    /// A follow-up answered with another task than the one it continued.
    NewTaskOnFollowup,
    /// The peer answered with something the consumer could not use.
    Protocol,
}

/// Everything a consumer reports about one job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JobReport {
    pub job: String,
    pub consumer: String,
    pub peer: String,
    /// The tasks touched, in the order first touched.
    pub tasks: Vec<TaskView>,
    pub outcome: Outcome,
    pub deadlines: Vec<DeadlineHit>,
    pub anomalies: Vec<Anomaly>,
    /// The profile of the peer at the end of the job (reconciling consumers only).
    pub profile: Option<PeerLifecycleProfile>,
}

impl JobReport {
    /// The view of `task_id`, if the job touched it.
    pub fn task(&self, task_id: &str) -> Option<&TaskView> {
        self.tasks.iter().find(|task| task.task_id == task_id)
    }
}
