//! What `tasks/cancel` does, per kind of state the task is in.

use serde::{Deserialize, Serialize};

/// What `tasks/cancel` does to a task in each kind of state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CancelPolicy {
    pub submitted: CancelOutcome,
    pub working: CancelOutcome,
    /// `input-required` and `auth-required`.
    pub interrupted: CancelOutcome,
    pub terminal: TerminalCancel,
}

impl Default for CancelPolicy {
    fn default() -> Self {
        CancelPolicy {
            submitted: CancelOutcome::Cancel,
            working: CancelOutcome::Cancel,
            interrupted: CancelOutcome::Cancel,
            terminal: TerminalCancel::NotCancelable,
        }
    }
}

/// Cancel of a live task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CancelOutcome {
    /// The task becomes `canceled`.
    Cancel,
    /// -32002 TaskNotCancelable.
    NotCancelable,
    /// Answers with the task unchanged and keeps working (a2a-js#132).
    Ignore,
}

/// Cancel of a terminal task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TerminalCancel {
    /// -32002 (the spec; a2a-python).
    NotCancelable,
    /// Answers with the task (a2a-go).
    ReturnTask,
    /// Answers with the task if it is `canceled`, -32002 for the other terminal states
    /// (a2a-js 1.3: a repeated cancel returns the task, a completed one is not cancelable).
    ReturnCanceled,
}
