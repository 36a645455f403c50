//! The decisions a runtime makes at each lifecycle point, as a trait.
//!
//! Every method's default reads the [`Personality`]'s knobs, so [`Knobs`] (which overrides
//! nothing) is the behaviour of every built-in. A runtime whose behaviour the knobs cannot
//! express (say, one that replays only on every second resubscribe) implements
//! [`Behaviour`] and overrides the decisions that differ, looking at the task's situation
//! in the [`TaskView`].

use crate::personality::{CancelOutcome, FollowUp, Personality, Resubscribe};
use meshsim_protocol::{StreamEvent, TaskState};

/// What a behaviour may know about a task when it decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskView {
    pub id: String,
    pub state: TaskState,
    /// Turns started so far (1 after the creating message).
    pub turns: u32,
    /// Whether a turn is executing now.
    pub active: bool,
    /// Streams currently attached.
    pub open_streams: usize,
    /// Resubscribes answered so far, this one excluded.
    pub resubscribes: u32,
}

/// A runtime's lifecycle decisions. Defaults follow the personality's knobs.
pub trait Behaviour: Send + Sync + 'static {
    /// How to answer a resubscribe to a live task.
    fn resubscribe(&self, personality: &Personality, _task: &TaskView) -> Resubscribe {
        personality.resubscribe
    }

    /// How to treat a message carrying the id of an interrupted task.
    fn follow_up(&self, personality: &Personality, _task: &TaskView) -> FollowUp {
        personality.follow_up
    }

    /// What a cancel does to a live task.
    fn cancel(&self, personality: &Personality, task: &TaskView) -> CancelOutcome {
        match task.state {
            TaskState::Submitted => personality.cancel.submitted,
            state if state.is_interrupted() => personality.cancel.interrupted,
            _ => personality.cancel.working,
        }
    }

    /// The events actually emitted for one event of the lifecycle: by default the event,
    /// twice for status updates into `duplicate_states`.
    fn deliver(&self, personality: &Personality, event: StreamEvent) -> Vec<StreamEvent> {
        let repeat = match &event {
            StreamEvent::StatusUpdate(update)
                if personality.duplicate_states.contains(&update.status.state) =>
            {
                2
            }
            _ => 1,
        };
        vec![event; repeat]
    }
}

/// The behaviour the knobs describe, with no overrides.
#[derive(Debug, Clone, Copy, Default)]
pub struct Knobs;

impl Behaviour for Knobs {}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_protocol::{TaskStatus, TaskStatusUpdateEvent};

    fn view(state: TaskState) -> TaskView {
        TaskView {
            id: "t".into(),
            state,
            turns: 1,
            active: false,
            open_streams: 0,
            resubscribes: 0,
        }
    }

    fn status(state: TaskState) -> StreamEvent {
        StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "t".into(),
            context_id: None,
            status: TaskStatus::new(state, None),
            is_final: None,
            metadata: None,
        })
    }

    #[test]
    fn cancel_follows_the_policy_per_state() {
        let mut personality = Personality::default();
        personality.cancel.interrupted = CancelOutcome::NotCancelable;
        personality.cancel.working = CancelOutcome::Ignore;
        assert_eq!(
            Knobs.cancel(&personality, &view(TaskState::InputRequired)),
            CancelOutcome::NotCancelable
        );
        assert_eq!(
            Knobs.cancel(&personality, &view(TaskState::Working)),
            CancelOutcome::Ignore
        );
        assert_eq!(
            Knobs.cancel(&personality, &view(TaskState::Submitted)),
            CancelOutcome::Cancel
        );
    }

    #[test]
    fn duplicate_states_are_delivered_twice() {
        let personality = Personality {
            duplicate_states: vec![TaskState::Working],
            ..Personality::default()
        };
        assert_eq!(
            Knobs
                .deliver(&personality, status(TaskState::Working))
                .len(),
            2
        );
        assert_eq!(
            Knobs
                .deliver(&personality, status(TaskState::Completed))
                .len(),
            1
        );
    }
}
