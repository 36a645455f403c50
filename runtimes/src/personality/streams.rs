//! Streams: which states end one, and what a resubscribe to a task's stream does.

use meshsim_protocol::TaskState;
use serde::{Deserialize, Serialize};

/// What a resubscribe does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Resubscribe {
    /// The current Task snapshot, then live events (the spec; a2a-python, a2a-java).
    SnapshotThenTail,
    /// Every event the task ever emitted, from `submitted` on, then live events
    /// (the origin incident's go-replaying).
    ReplayFromStart,
    /// -32001 once the stream that created the task has closed, though the task lives.
    NotFoundAfterStreamClose,
    /// -32001 unless a turn is executing (a2a-go v2: "no active execution").
    NotFoundUnlessActive,
}

/// Which states end a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StreamClose {
    /// Only terminal states (v1.0 specification, section 3.1.2; a2a-java).
    TerminalOnly,
    /// Terminal and interrupted states (v1.0 specification, section 11.7; a2a-python).
    TerminalAndInterrupted,
    /// Terminal states and `input-required`, not `auth-required` (a2a-go).
    TerminalAndInputRequired,
}

impl StreamClose {
    /// Whether an event asserting `state` is the last of a stream.
    pub fn closes_on(self, state: TaskState) -> bool {
        match self {
            StreamClose::TerminalOnly => state.is_terminal(),
            StreamClose::TerminalAndInterrupted => state.is_terminal() || state.is_interrupted(),
            StreamClose::TerminalAndInputRequired => {
                state.is_terminal() || state == TaskState::InputRequired
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_close_rules() {
        use TaskState::*;
        assert!(!StreamClose::TerminalOnly.closes_on(InputRequired));
        assert!(StreamClose::TerminalAndInterrupted.closes_on(AuthRequired));
        assert!(!StreamClose::TerminalAndInputRequired.closes_on(AuthRequired));
        assert!(StreamClose::TerminalAndInputRequired.closes_on(InputRequired));
        assert!(StreamClose::TerminalOnly.closes_on(Canceled));
        assert!(!StreamClose::TerminalAndInterrupted.closes_on(Working));
    }
}
