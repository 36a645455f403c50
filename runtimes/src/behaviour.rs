//! The decisions a runtime makes at each lifecycle point, as a trait.
//!
//! Every method's default reads the [`Personality`]'s knobs, so [`Knobs`] (which overrides
//! nothing) is the behaviour of every built-in. The task store's state machine asks the
//! behaviour at every decision it makes and reads no lifecycle knob itself, and the
//! lifecycle profile the oracle expects is learned by probing that same state machine
//! ([`lifecycle`](crate::lifecycle)): a behaviour is the one model of a runtime. A runtime whose
//! behaviour the knobs cannot express (say, one that replays only on every second
//! resubscribe) implements [`Behaviour`] and overrides the decisions that differ, looking
//! at the task's situation in the [`TaskFacts`].

use crate::personality::{
    BusyFollowUp, CancelOutcome, FollowUp, FollowUpOpening, NewTaskOpening, Personality, Reaping,
    Resubscribe, SendReply, TerminalCancel, Timestamps, UnknownTask,
};
use meshsim_protocol::{ErrorCode, StreamEvent, TaskState};
use std::any::Any;

/// What a behaviour may know about a task when it decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskFacts {
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

/// A runtime's lifecycle decisions. Defaults follow the personality's knobs; the knob each
/// one reads is named in its documentation. A behaviour decides from its own fields and
/// what it is asked, nothing else: the lifecycle probed from it is remembered
/// ([`lifecycle`](crate::lifecycle)), by its type for one without fields (`Any` names it).
pub trait Behaviour: Any + Send + Sync {
    /// How to answer a resubscribe to a live task (`resubscribe`).
    fn resubscribe(&self, personality: &Personality, _task: &TaskFacts) -> Resubscribe {
        personality.resubscribe
    }

    /// The error for a resubscribe to a terminal task (`terminal_subscribe_error`).
    fn terminal_subscribe_error(&self, personality: &Personality, _task: &TaskFacts) -> ErrorCode {
        personality.terminal_subscribe_error
    }

    /// How to treat a message carrying the id of an interrupted task (`follow_up`).
    fn follow_up(&self, personality: &Personality, _task: &TaskFacts) -> FollowUp {
        personality.follow_up
    }

    /// How to treat a message carrying the id of a task whose turn still runs, when the
    /// follow-up would resume it (`busy_follow_up`).
    fn busy_follow_up(&self, personality: &Personality, _task: &TaskFacts) -> BusyFollowUp {
        personality.busy_follow_up
    }

    /// How to treat a message carrying an id the store does not hold (`unknown_task`).
    /// v0.1 is not asked: there clients choose task ids, so an unknown id names a new task.
    fn unknown_task(&self, personality: &Personality, _task_id: &str) -> UnknownTask {
        personality.unknown_task
    }

    /// The error for a message sent to a terminal task (`terminal_send_error`).
    fn terminal_send_error(&self, personality: &Personality, _task: &TaskFacts) -> ErrorCode {
        personality.terminal_send_error
    }

    /// Whether the executor never picks up the task created `created_before` tasks after
    /// the instance started (`stalled_first_tasks`).
    fn stalls(&self, personality: &Personality, created_before: u64) -> bool {
        created_before < u64::from(personality.stalled_first_tasks)
    }

    /// What a stream that creates a task starts with (`opening.new_task`).
    fn new_task_opening(&self, personality: &Personality) -> NewTaskOpening {
        personality.opening.new_task
    }

    /// What a stream that continues a task starts with (`opening.follow_up`).
    fn follow_up_opening(&self, personality: &Personality, _task: &TaskFacts) -> FollowUpOpening {
        personality.opening.follow_up
    }

    /// When a non-streaming send answers (`send_reply`).
    fn send_reply(&self, personality: &Personality) -> SendReply {
        personality.send_reply
    }

    /// Whether an event asserting `state` ends the task's streams (`stream_close`).
    fn closes_stream(&self, personality: &Personality, state: TaskState) -> bool {
        personality.stream_close.closes_on(state)
    }

    /// When the task is dropped from the store while not terminal (`reaping`); asked after
    /// each of its transitions and when its last stream closes.
    fn reaping(&self, personality: &Personality, _task: &TaskFacts) -> Reaping {
        personality.reaping
    }

    /// What a cancel does to a live task (`cancel.submitted`, `.working`, `.interrupted`).
    fn cancel(&self, personality: &Personality, task: &TaskFacts) -> CancelOutcome {
        match task.state {
            TaskState::Submitted => personality.cancel.submitted,
            state if state.is_interrupted() => personality.cancel.interrupted,
            _ => personality.cancel.working,
        }
    }

    /// What a cancel does to a terminal task (`cancel.terminal`).
    fn terminal_cancel(&self, personality: &Personality, _task: &TaskFacts) -> TerminalCancel {
        personality.cancel.terminal
    }

    /// Whether status updates carry timestamps, and whether replays restamp them
    /// (`timestamps`).
    fn timestamps(&self, personality: &Personality) -> Timestamps {
        personality.timestamps
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

    fn view(state: TaskState) -> TaskFacts {
        TaskFacts {
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
