//! Task states, the lifecycle's shape (terminal, interrupted), and the one rule of which
//! moves between states are legal ([`TaskState::move_from`]).
//!
//! Legality is a relation between pairs of states, not a rank on one line: the origin
//! note's sketch ranked `submitted, working, input-required, completed` and so called the
//! legal resumption `input-required → working` backward. An interrupted task
//! (`input-required`, `auth-required`) resumes by going back to `working`.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Every state a task can be in, across all dialects. Serialises as the origin note's names
/// (`input-required`, ...), which is also how the CLI prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskState {
    Submitted,
    Working,
    InputRequired,
    AuthRequired,
    Completed,
    Failed,
    Canceled,
    Rejected,
    Unknown,
}

impl TaskState {
    /// All states, in declaration order.
    pub const ALL: [TaskState; 9] = [
        TaskState::Submitted,
        TaskState::Working,
        TaskState::InputRequired,
        TaskState::AuthRequired,
        TaskState::Completed,
        TaskState::Failed,
        TaskState::Canceled,
        TaskState::Rejected,
        TaskState::Unknown,
    ];

    /// The origin incident's (and v0.1/v0.3's) lowercase name, e.g. `input-required`.
    pub fn name(self) -> &'static str {
        match self {
            TaskState::Submitted => "submitted",
            TaskState::Working => "working",
            TaskState::InputRequired => "input-required",
            TaskState::AuthRequired => "auth-required",
            TaskState::Completed => "completed",
            TaskState::Failed => "failed",
            TaskState::Canceled => "canceled",
            TaskState::Rejected => "rejected",
            TaskState::Unknown => "unknown",
        }
    }

    /// No transition leaves a terminal state.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Failed | TaskState::Canceled | TaskState::Rejected
        )
    }

    /// The task waits for the client (`input-required`, `auth-required`); it is alive and
    /// resumes with a follow-up message.
    pub fn is_interrupted(self) -> bool {
        matches!(self, TaskState::InputRequired | TaskState::AuthRequired)
    }

    /// How reaching `self` relates to `from`, the state applied so far (`None` before any
    /// was): the task state machine's one rule, which consumers judge reports by and the
    /// oracle judges consumers by.
    pub fn move_from(self, from: Option<TaskState>) -> TaskMove {
        if self == TaskState::Unknown {
            return TaskMove::Unrecognised;
        }
        let Some(from) = from else {
            return TaskMove::Forward;
        };
        if from == self {
            return TaskMove::Repeat;
        }
        if from.is_terminal() {
            return TaskMove::AfterTerminal;
        }
        // From a live state every other state is reachable except `submitted`, which only
        // ever begins a task: `working → input-required`, the resumption
        // `input-required → working`, and any live state to a terminal one are all forward.
        if self == TaskState::Submitted {
            TaskMove::Backward
        } else {
            TaskMove::Forward
        }
    }
}

/// How a reported state relates to the state applied so far ([`TaskState::move_from`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskMove {
    /// A legal move: apply it.
    Forward,
    /// The same state again: nothing to apply.
    Repeat,
    /// A move the state machine does not allow (e.g. `working → submitted`).
    Backward,
    /// Any change after a terminal state.
    AfterTerminal,
    /// A state no dialect defines a meaning for (`unknown`); never applied.
    Unrecognised,
}

impl TaskMove {
    /// Whether the state machine allows the move (only a forward one).
    pub fn is_legal(self) -> bool {
        self == TaskMove::Forward
    }
}

impl fmt::Display for TaskState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TaskState {
    type Err = String;

    /// Parses the origin note's lowercase names.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TaskState::ALL
            .into_iter()
            .find(|state| state.name() == s)
            .ok_or_else(|| format!("unknown task state `{s}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::TaskState::*;
    use super::*;

    #[test]
    fn resumption_from_input_required_is_forward_not_backward() {
        // The origin note's FORWARD list ranks input-required above working; that is its
        // flaw.
        assert_eq!(Working.move_from(Some(InputRequired)), TaskMove::Forward);
        assert_eq!(Working.move_from(Some(AuthRequired)), TaskMove::Forward);
    }

    #[test]
    fn the_origin_incidents_path_is_forward_at_every_step() {
        let path = [
            Submitted,
            Working,
            InputRequired,
            Working,
            InputRequired,
            Working,
            Completed,
        ];
        let mut current = None;
        for state in path {
            assert_eq!(
                state.move_from(current),
                TaskMove::Forward,
                "{current:?} -> {state}"
            );
            current = Some(state);
        }
    }

    #[test]
    fn going_back_to_submitted_is_backward_from_anywhere_live() {
        for from in [Working, InputRequired, AuthRequired] {
            assert_eq!(Submitted.move_from(Some(from)), TaskMove::Backward);
        }
    }

    #[test]
    fn nothing_leaves_a_terminal_state() {
        for terminal in [Completed, Failed, Canceled, Rejected] {
            for to in [
                Submitted,
                Working,
                InputRequired,
                Completed,
                Failed,
                Canceled,
            ] {
                let expected = if to == terminal {
                    TaskMove::Repeat
                } else {
                    TaskMove::AfterTerminal
                };
                assert_eq!(to.move_from(Some(terminal)), expected, "{terminal} -> {to}");
            }
        }
    }

    #[test]
    fn interrupted_tasks_may_end_without_resuming() {
        assert_eq!(Canceled.move_from(Some(InputRequired)), TaskMove::Forward);
        assert_eq!(Failed.move_from(Some(InputRequired)), TaskMove::Forward);
    }

    #[test]
    fn unknown_is_never_applied_and_anything_known_goes_first() {
        assert_eq!(Unknown.move_from(Some(Working)), TaskMove::Unrecognised);
        assert_eq!(Unknown.move_from(None), TaskMove::Unrecognised);
        assert_eq!(InputRequired.move_from(None), TaskMove::Forward);
    }

    #[test]
    fn only_forward_moves_are_legal() {
        for from in TaskState::ALL.map(Some).into_iter().chain([None]) {
            for to in TaskState::ALL {
                let step = to.move_from(from);
                assert_eq!(
                    step.is_legal(),
                    step == TaskMove::Forward,
                    "{from:?} -> {to}"
                );
            }
        }
        assert!(
            !Working.move_from(Some(Working)).is_legal(),
            "no move to itself"
        );
    }
}
