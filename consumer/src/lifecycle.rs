//! The task state machine as a consumer must read it: which moves are legal forward steps,
//! which are repeats, which go backward, and which come after a terminal state.
//!
//! Unlike the seed's sketch, which ranks states on one line (`submitted, working,
//! input-required, completed`) and so calls the legal resumption `input-required → working`
//! backward, legality here is a relation between pairs of states: an interrupted task
//! (`input-required`, `auth-required`) resumes by going back to `working`.

use meshsim_protocol::TaskState;
use serde::Serialize;

/// How a reported state relates to the state a consumer has applied so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
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

/// Classifies the move from `from` (what has been applied; `None` before anything was) to
/// `to` (what a peer now reports).
pub fn step(from: Option<TaskState>, to: TaskState) -> Step {
    use TaskState::*;
    if to == Unknown {
        return Step::Unrecognised;
    }
    let Some(from) = from else {
        return Step::Forward;
    };
    if from == to {
        return Step::Repeat;
    }
    if from.is_terminal() {
        return Step::AfterTerminal;
    }
    // From a live state every other state is reachable except `submitted`, which only ever
    // begins a task: `working → input-required`, the resumption `input-required → working`,
    // and any live state to a terminal one are all forward.
    let legal = to != Submitted;
    if legal { Step::Forward } else { Step::Backward }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TaskState::*;

    #[test]
    fn resumption_from_input_required_is_forward_not_backward() {
        // The seed's FORWARD list ranks input-required above working; that is its flaw.
        assert_eq!(step(Some(InputRequired), Working), Step::Forward);
        assert_eq!(step(Some(AuthRequired), Working), Step::Forward);
    }

    #[test]
    fn the_seed_path_is_forward_at_every_step() {
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
                step(current, state),
                Step::Forward,
                "{current:?} -> {state}"
            );
            current = Some(state);
        }
    }

    #[test]
    fn going_back_to_submitted_is_backward_from_anywhere() {
        for from in [Working, InputRequired, AuthRequired] {
            assert_eq!(step(Some(from), Submitted), Step::Backward);
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
                    Step::Repeat
                } else {
                    Step::AfterTerminal
                };
                assert_eq!(step(Some(terminal), to), expected, "{terminal} -> {to}");
            }
        }
    }

    #[test]
    fn interrupted_tasks_may_end_without_resuming() {
        assert_eq!(step(Some(InputRequired), Canceled), Step::Forward);
        assert_eq!(step(Some(InputRequired), Failed), Step::Forward);
    }

    #[test]
    fn unknown_is_never_applied_and_anything_goes_first() {
        assert_eq!(step(Some(Working), Unknown), Step::Unrecognised);
        assert_eq!(step(None, Unknown), Step::Unrecognised);
        assert_eq!(step(None, InputRequired), Step::Forward);
    }
}
