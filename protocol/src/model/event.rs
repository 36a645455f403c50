//! What a streaming method (or a resubscribe) delivers, one event per SSE `data:` line.

use super::message::Message;
use super::task::{Artifact, Task, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A task's status changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStatusUpdateEvent {
    pub task_id: String,
    pub context_id: Option<String>,
    pub status: TaskStatus,
    /// v0.1 and v0.3 mark the last event of a stream; v1.0 removed the flag (the stream's
    /// close marks the end), so `Some` here is a loss when encoding v1.0.
    pub is_final: Option<bool>,
    pub metadata: Option<Value>,
}

/// A task produced (a chunk of) an artifact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskArtifactUpdateEvent {
    pub task_id: String,
    pub context_id: Option<String>,
    pub artifact: Artifact,
    pub append: Option<bool>,
    pub last_chunk: Option<bool>,
    pub metadata: Option<Value>,
}

/// One event of a stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamEvent {
    /// A snapshot of the whole task (v0.3 and v1.0 open a stream with one).
    Task(Task),
    /// A direct reply that creates no task.
    Message(Message),
    StatusUpdate(TaskStatusUpdateEvent),
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

impl StreamEvent {
    /// The task this event is about, if any.
    pub fn task_id(&self) -> Option<&str> {
        match self {
            StreamEvent::Task(task) => Some(&task.id),
            StreamEvent::Message(message) => message.task_id.as_deref(),
            StreamEvent::StatusUpdate(update) => Some(&update.task_id),
            StreamEvent::ArtifactUpdate(update) => Some(&update.task_id),
        }
    }

    /// The task state this event asserts, if it asserts one.
    pub fn state(&self) -> Option<super::TaskState> {
        match self {
            StreamEvent::Task(task) => Some(task.status.state),
            StreamEvent::StatusUpdate(update) => Some(update.status.state),
            StreamEvent::Message(_) | StreamEvent::ArtifactUpdate(_) => None,
        }
    }
}
