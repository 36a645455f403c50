//! What a runtime does with a message: when a non-streaming send answers, and what a
//! message naming a task (interrupted, unknown or still running) does.

use serde::{Deserialize, Serialize};

/// When `tasks/send` / `SendMessage` (non-streaming) answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SendReply {
    /// Once the turn reaches an interrupted or terminal state.
    WhenSettled,
    /// At once, with the task as accepted (state `submitted`).
    OnAccept,
}

/// What a message with the `taskId` of an interrupted task does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FollowUp {
    /// Continues the task in place: `working` → ... (the spec).
    Resume,
    /// Continues it, but first moves it back to `submitted` and says so (the origin incident's
    /// go-replaying).
    ResumeWithDuplicateSubmitted,
    /// Ignores the id and starts a new task.
    NewTask,
    /// Answers -32001.
    NotFound,
}

/// What a message with an unknown `taskId` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnknownTask {
    /// -32001 (the spec).
    NotFound,
    /// Starts a new task with a new id (the origin incident's jvm-reaping, after reaping).
    NewTask,
}

/// What a message with the `taskId` of a task whose turn still runs does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BusyFollowUp {
    /// -32004: the task is not waiting for input.
    Refuse,
    /// Waits for the turn to settle, then answers its question (a2a-python 1.3); its
    /// stream sees the rest of the running turn first.
    Queue,
}
