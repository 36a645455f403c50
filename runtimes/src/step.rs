//! The [`TurnStep`]s a turn is made of, which the executor carries out in order.

use meshsim_protocol::{Part, TaskState};

/// One step of a turn, done in order by the executor.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnStep {
    /// Wait one work duration drawn from the personality.
    Work,
    /// Move to `state`; `question` becomes the status message (and joins the history).
    Status {
        state: TaskState,
        question: Option<String>,
    },
    /// Emit an artifact chunk. `chunk` counts from 0; `last` closes the artifact.
    Artifact { part: Part, chunk: u32, last: bool },
}

impl TurnStep {
    /// A move to `state`, with `question` as the status message.
    pub fn status(state: TaskState, question: Option<String>) -> TurnStep {
        TurnStep::Status { state, question }
    }

    /// Artifact chunk `chunk`; `last` closes the artifact.
    pub fn artifact(part: Part, chunk: u32, last: bool) -> TurnStep {
        TurnStep::Artifact { part, chunk, last }
    }
}
