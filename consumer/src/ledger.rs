//! Reconciliation of one task's reported states into the sequence a consumer applies.
//!
//! A peer may replay a task's whole history on a resubscribe (with the original timestamps,
//! re-stamped, or with none), open a stream with a snapshot that repeats the next live
//! event, or emit a second `submitted` when a follow-up resumes the task. Timestamps alone
//! cannot tell these apart, so the ledger keys on position and content:
//!
//! - a state equal to the current one is a repeat, never applied twice;
//! - a state that matches an applied one by timestamp or status-message id is a duplicate;
//! - a `submitted` on a stream after the task has moved on opens an *alignment*: the next events
//!   are held while they match the applied sequence from its start (a further `submitted`
//!   among them is the duplicate a follow-up left in the peer's history, and is held without
//!   consuming anything of the applied sequence). When the whole applied
//!   sequence has been matched the held events were a replay (on a resubscribe at once, on a
//!   turn once something new follows); when an event breaks the match, the held events were
//!   live after all and are judged one by one (the `submitted` as a duplicate);
//! - otherwise the event is judged by [`TaskState::move_from`]: forward steps are applied,
//!   backward moves and anything after a terminal state are rejected.
//!
//! Everything here is a pure function of the observations: no I/O, no clock.

use meshsim_protocol::{TaskMove, TaskState};
use serde::Serialize;

/// What kind of message carried a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    /// A whole-task event on a stream (v0.3/v1.0 open streams with one).
    Snapshot,
    /// A status-update event on a stream.
    StatusUpdate,
    /// A task returned as the result of a send, a get or a cancel.
    Result,
    /// A state a user's consumer reported through [`Report`](crate::contract::Report),
    /// which does not say what carried it: the event's index is the job's count of
    /// applied states.
    Reported,
}

/// Where an observed state came from: the consumer numbers its connections per job, and
/// each event by its position on its connection. Two applies with different refs of the
/// same transition are a double count; the report keeps the refs so that it is visible.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EventRef {
    pub connection: u32,
    pub index: u32,
    pub kind: EventKind,
}

/// Why a connection was opened, which decides how a replay is recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConnectionKind {
    /// A send: the first turn, or a follow-up that answers an interruption.
    Turn,
    /// A resubscribe to a task that already exists.
    Resubscribe,
    /// A `tasks/get` or `tasks/cancel`: one task snapshot, a sync point.
    Probe,
}

/// One reported state of a task, with what identifies the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Observation {
    pub at: EventRef,
    pub state: TaskState,
    pub timestamp: Option<String>,
    /// The status message's id, when the status carries a message that has one.
    pub message_id: Option<String>,
    /// How the peer spelled a state outside the spec (`state` is then `unknown`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unrecognised_state: Option<String>,
}

/// A state the consumer applied, and from which state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Applied {
    pub from: Option<TaskState>,
    pub observation: Observation,
}

/// What the ledger decided about one observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StateVerdict {
    /// A legal forward step: now the task's state.
    Applied,
    /// The current state again.
    Repeat,
    /// Same state and timestamp (or status-message id) as a state applied earlier.
    Duplicate,
    /// Part of a replay of the task's history.
    Replayed,
    /// A second `submitted` on a live task, outside any replay.
    DuplicateSubmitted,
    /// A move the state machine forbids.
    Backward,
    /// A change after a terminal state.
    AfterTerminal,
    /// `unknown`, never applied.
    Unrecognised,
}

impl StateVerdict {
    /// Whether the verdict reveals the peer misbehaving (as opposed to a harmless repeat).
    pub fn is_anomaly(self) -> bool {
        !matches!(self, StateVerdict::Applied | StateVerdict::Repeat)
    }
}

/// The decision about one observation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ruling {
    pub observation: Observation,
    pub verdict: StateVerdict,
    /// The state applied before this observation was judged.
    pub from: Option<TaskState>,
}

/// Held observations of a possible replay on one connection.
#[derive(Debug, Clone)]
struct Alignment {
    connection: u32,
    kind: ConnectionKind,
    /// How much of the applied sequence the held events have matched.
    cursor: usize,
    held: Vec<Observation>,
}

/// One task's applied state sequence and the pending replay check.
#[derive(Debug, Clone, Default)]
pub struct TaskLedger {
    applied: Vec<Applied>,
    alignment: Option<Alignment>,
}

impl TaskLedger {
    /// An empty ledger: nothing applied yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The state applied last.
    pub fn current(&self) -> Option<TaskState> {
        self.applied.last().map(|applied| applied.observation.state)
    }

    /// Whether events are being held to tell a replay from live events.
    pub fn is_aligning(&self) -> bool {
        self.alignment.is_some()
    }

    /// Every state applied, in order.
    pub fn applied(&self) -> &[Applied] {
        &self.applied
    }

    /// Judges one observation made on connection `connection` of kind `kind`. Returns the
    /// final rulings this observation settles: none while it is held, several when it
    /// settles held ones.
    pub fn observe(
        &mut self,
        connection: u32,
        kind: ConnectionKind,
        observation: Observation,
    ) -> Vec<Ruling> {
        let mut rulings = Vec::new();
        let other = self
            .alignment
            .as_ref()
            .map(|alignment| alignment.connection);
        if let Some(other) = other.filter(|other| *other != connection) {
            rulings.extend(self.close(other));
        }
        if let Some(alignment) = self.alignment.as_mut() {
            let cursor = alignment.cursor;
            // A `submitted` is applied only first, so one past the start of the alignment
            // never matches the applied sequence: it is the duplicate `submitted` a follow-up
            // left in the peer's history (seen live or not). It is held, never applied, and
            // the applied sequence is matched on after it.
            if observation.state == TaskState::Submitted && cursor > 0 {
                alignment.held.push(observation);
                return rulings;
            }
            if cursor < self.applied.len()
                && self.applied[cursor].observation.state == observation.state
            {
                alignment.held.push(observation);
                alignment.cursor += 1;
                if alignment.cursor == self.applied.len()
                    && alignment.kind == ConnectionKind::Resubscribe
                {
                    rulings.extend(self.settle_as_replay());
                }
                return rulings;
            }
            if cursor == self.applied.len() {
                rulings.extend(self.settle_as_replay());
            } else {
                rulings.extend(self.settle_as_live());
            }
        }
        if kind != ConnectionKind::Probe && self.opens_alignment(&observation) {
            self.alignment = Some(Alignment {
                connection,
                kind,
                cursor: 1,
                held: vec![observation],
            });
            return rulings;
        }
        rulings.push(self.judge_live(observation));
        rulings
    }

    /// The connection ended: settles what it left held. On a resubscribe a
    /// partial match counts as replay (applying a stale state cannot be undone; a missed
    /// one is caught at the next sync point); on a turn the held events were live.
    pub fn close(&mut self, connection: u32) -> Vec<Ruling> {
        match &self.alignment {
            Some(alignment) if alignment.connection == connection => {
                if alignment.kind == ConnectionKind::Turn {
                    self.settle_as_live()
                } else {
                    self.settle_as_replay()
                }
            }
            _ => Vec::new(),
        }
    }

    fn opens_alignment(&self, observation: &Observation) -> bool {
        observation.state == TaskState::Submitted
            && self.applied.len() >= 2
            && self.applied[0].observation.state == TaskState::Submitted
            && !self.current().is_some_and(TaskState::is_terminal)
    }

    fn settle_as_replay(&mut self) -> Vec<Ruling> {
        let from = self.current();
        let held = self
            .alignment
            .take()
            .map(|alignment| alignment.held)
            .unwrap_or_default();
        held.into_iter()
            .map(|observation| Ruling {
                observation,
                verdict: StateVerdict::Replayed,
                from,
            })
            .collect()
    }

    fn settle_as_live(&mut self) -> Vec<Ruling> {
        let held = self
            .alignment
            .take()
            .map(|alignment| alignment.held)
            .unwrap_or_default();
        held.into_iter()
            .map(|observation| self.judge_live(observation))
            .collect()
    }

    fn judge_live(&mut self, observation: Observation) -> Ruling {
        let from = self.current();
        let verdict = match observation.state.move_from(from) {
            TaskMove::Repeat => StateVerdict::Repeat,
            TaskMove::Unrecognised => StateVerdict::Unrecognised,
            TaskMove::AfterTerminal => StateVerdict::AfterTerminal,
            TaskMove::Backward if observation.state == TaskState::Submitted => {
                StateVerdict::DuplicateSubmitted
            }
            TaskMove::Backward => StateVerdict::Backward,
            TaskMove::Forward if self.matches_applied(&observation) => StateVerdict::Duplicate,
            TaskMove::Forward => StateVerdict::Applied,
        };
        if verdict == StateVerdict::Applied {
            self.applied.push(Applied {
                from,
                observation: observation.clone(),
            });
        }
        Ruling {
            observation,
            verdict,
            from,
        }
    }

    /// Same state as an applied one, and the same timestamp or status-message id.
    fn matches_applied(&self, observation: &Observation) -> bool {
        self.applied.iter().any(|applied| {
            let earlier = &applied.observation;
            earlier.state == observation.state
                && ((observation.timestamp.is_some() && earlier.timestamp == observation.timestamp)
                    || (observation.message_id.is_some()
                        && earlier.message_id == observation.message_id))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConnectionKind::{Probe, Resubscribe, Turn};
    use TaskState::*;

    /// Feeds states to a ledger, numbering events per connection.
    struct Feed {
        ledger: TaskLedger,
        rulings: Vec<Ruling>,
        next_index: u32,
        connection: u32,
    }

    impl Feed {
        fn new() -> Self {
            Feed {
                ledger: TaskLedger::new(),
                rulings: Vec::new(),
                next_index: 0,
                connection: 0,
            }
        }

        fn connect(&mut self) {
            let closed = self.ledger.close(self.connection);
            self.rulings.extend(closed);
            self.connection += 1;
            self.next_index = 0;
        }

        fn event(&mut self, kind: ConnectionKind, state: TaskState, timestamp: Option<&str>) {
            self.event_kind(kind, EventKind::StatusUpdate, state, timestamp);
        }

        fn event_kind(
            &mut self,
            kind: ConnectionKind,
            event: EventKind,
            state: TaskState,
            timestamp: Option<&str>,
        ) {
            let observation = Observation {
                at: EventRef {
                    connection: self.connection,
                    index: self.next_index,
                    kind: event,
                },
                state,
                timestamp: timestamp.map(str::to_string),
                message_id: None,
                unrecognised_state: None,
            };
            self.next_index += 1;
            let rulings = self.ledger.observe(self.connection, kind, observation);
            self.rulings.extend(rulings);
        }

        fn applied_states(&self) -> Vec<TaskState> {
            self.ledger
                .applied()
                .iter()
                .map(|applied| applied.observation.state)
                .collect()
        }

        fn verdicts(&self) -> Vec<(TaskState, StateVerdict)> {
            self.rulings
                .iter()
                .map(|ruling| (ruling.observation.state, ruling.verdict))
                .collect()
        }

        fn first_turn(&mut self, stamps: [Option<&str>; 3]) {
            self.connect();
            self.event(Turn, Submitted, stamps[0]);
            self.event(Turn, Working, stamps[1]);
            self.event(Turn, InputRequired, stamps[2]);
        }
    }

    const T: [Option<&str>; 3] = [
        Some("2026-11-07T00:00:00.000Z"),
        Some("2026-11-07T00:00:00.010Z"),
        Some("2026-11-07T00:00:00.020Z"),
    ];

    #[test]
    fn replay_from_the_start_on_resubscribe_applies_nothing_again() {
        let mut feed = Feed::new();
        feed.first_turn(T);
        feed.connect();
        feed.event(Resubscribe, Submitted, T[0]);
        feed.event(Resubscribe, Working, T[1]);
        feed.event(Resubscribe, InputRequired, T[2]);
        assert_eq!(feed.applied_states(), [Submitted, Working, InputRequired]);
        assert_eq!(
            feed.verdicts()[3..],
            [
                (Submitted, StateVerdict::Replayed),
                (Working, StateVerdict::Replayed),
                (InputRequired, StateVerdict::Replayed)
            ]
        );
        // The answer then resumes the task as usual.
        feed.connect();
        feed.event(Turn, Working, None);
        feed.event(Turn, Completed, None);
        assert_eq!(
            feed.applied_states(),
            [Submitted, Working, InputRequired, Working, Completed]
        );
    }

    #[test]
    fn re_stamped_replay_is_still_a_replay() {
        let mut feed = Feed::new();
        feed.first_turn(T);
        feed.connect();
        feed.event(Resubscribe, Submitted, Some("2026-11-07T00:01:00.000Z"));
        feed.event(Resubscribe, Working, Some("2026-11-07T00:01:00.000Z"));
        feed.event(Resubscribe, InputRequired, Some("2026-11-07T00:01:00.000Z"));
        assert_eq!(feed.applied_states(), [Submitted, Working, InputRequired]);
        assert!(
            feed.verdicts()[3..]
                .iter()
                .all(|(_, verdict)| *verdict == StateVerdict::Replayed)
        );
    }

    #[test]
    fn replay_without_timestamps_is_still_a_replay() {
        let mut feed = Feed::new();
        feed.first_turn([None; 3]);
        feed.connect();
        feed.event(Resubscribe, Submitted, None);
        feed.event(Resubscribe, Working, None);
        feed.event(Resubscribe, InputRequired, None);
        feed.connect();
        feed.event(Turn, Working, None);
        feed.event(Turn, InputRequired, None);
        feed.event(Turn, Working, None);
        feed.event(Turn, Completed, None);
        assert_eq!(
            feed.applied_states(),
            [
                Submitted,
                Working,
                InputRequired,
                Working,
                InputRequired,
                Working,
                Completed
            ]
        );
    }

    #[test]
    fn replay_cut_short_on_resubscribe_is_not_applied() {
        let mut feed = Feed::new();
        feed.first_turn(T);
        feed.connect();
        feed.event(Resubscribe, Submitted, None);
        feed.event(Resubscribe, Working, None);
        feed.connect();
        assert_eq!(feed.applied_states(), [Submitted, Working, InputRequired]);
        assert_eq!(
            feed.verdicts()[3..],
            [
                (Submitted, StateVerdict::Replayed),
                (Working, StateVerdict::Replayed)
            ]
        );
    }

    #[test]
    fn snapshot_plus_tail_repeating_a_live_event_applies_it_once() {
        let mut feed = Feed::new();
        feed.connect();
        feed.event_kind(Turn, EventKind::Snapshot, Submitted, T[0]);
        feed.event(Turn, Working, T[1]);
        // The stream was cut; the resubscribe's snapshot already shows the next update,
        // which then also arrives live.
        feed.connect();
        feed.event_kind(Resubscribe, EventKind::Snapshot, InputRequired, T[2]);
        feed.event(Resubscribe, InputRequired, T[2]);
        assert_eq!(feed.applied_states(), [Submitted, Working, InputRequired]);
        assert_eq!(
            feed.verdicts()[2..],
            [
                (InputRequired, StateVerdict::Applied),
                (InputRequired, StateVerdict::Repeat)
            ]
        );
    }

    #[test]
    fn duplicate_submitted_on_a_follow_up_is_rejected_and_the_resumption_applied() {
        let mut feed = Feed::new();
        feed.first_turn(T);
        feed.connect();
        feed.event(Turn, Submitted, Some("2026-11-07T00:00:05.000Z"));
        feed.event(Turn, Working, Some("2026-11-07T00:00:05.010Z"));
        feed.event(Turn, Completed, Some("2026-11-07T00:00:05.020Z"));
        assert_eq!(
            feed.applied_states(),
            [Submitted, Working, InputRequired, Working, Completed]
        );
        assert_eq!(
            feed.verdicts()[3..],
            [
                (Submitted, StateVerdict::DuplicateSubmitted),
                (Working, StateVerdict::Applied),
                (Completed, StateVerdict::Applied)
            ]
        );
    }

    #[test]
    fn duplicate_submitted_without_timestamps_when_the_turn_ends_in_a_new_question() {
        let mut feed = Feed::new();
        feed.first_turn([None; 3]);
        feed.connect();
        feed.event(Turn, Submitted, None);
        feed.event(Turn, Working, None);
        feed.event(Turn, InputRequired, None);
        feed.connect();
        // The whole history was matched, but the turn brought nothing new before it closed:
        // those were the turn's own events.
        assert_eq!(
            feed.applied_states(),
            [Submitted, Working, InputRequired, Working, InputRequired]
        );
        assert_eq!(
            feed.verdicts()[3],
            (Submitted, StateVerdict::DuplicateSubmitted)
        );
    }

    #[test]
    fn turn_that_replays_everything_then_continues_applies_only_the_continuation() {
        let mut feed = Feed::new();
        feed.first_turn(T);
        feed.connect();
        for (state, stamp) in [(Submitted, T[0]), (Working, T[1]), (InputRequired, T[2])] {
            feed.event(Turn, state, stamp);
        }
        feed.event(Turn, Working, None);
        feed.event(Turn, Completed, None);
        assert_eq!(
            feed.applied_states(),
            [Submitted, Working, InputRequired, Working, Completed]
        );
    }

    #[test]
    fn the_resumption_cycle_is_applied_in_full() {
        let mut feed = Feed::new();
        feed.first_turn([None; 3]);
        for last in [InputRequired, Completed] {
            feed.connect();
            feed.event(Turn, Working, None);
            feed.event(Turn, last, None);
        }
        assert_eq!(
            feed.applied_states(),
            [
                Submitted,
                Working,
                InputRequired,
                Working,
                InputRequired,
                Working,
                Completed
            ]
        );
        assert!(
            feed.verdicts()
                .iter()
                .all(|(_, verdict)| *verdict == StateVerdict::Applied)
        );
    }

    /// go-replaying's "#ask-twice" job: the answer to the first question resumes the task
    /// with a duplicate `submitted`, the stream breaks after `working`, and the resubscribe
    /// replays every event of the task, the duplicate `submitted` included, then the second
    /// question. Only the second question is new.
    fn replay_through_a_second_turn(stamps: [Option<&str>; 6]) -> Feed {
        let mut feed = Feed::new();
        feed.first_turn([stamps[0], stamps[1], stamps[2]]);
        feed.connect();
        feed.event(Turn, Submitted, stamps[3]);
        feed.event(Turn, Working, stamps[4]);
        feed.connect();
        assert_eq!(
            feed.applied_states(),
            [Submitted, Working, InputRequired, Working]
        );
        assert_eq!(
            feed.verdicts()[3],
            (Submitted, StateVerdict::DuplicateSubmitted)
        );
        feed.connect();
        let replay = [Submitted, Working, InputRequired, Submitted, Working];
        for (state, stamp) in replay.into_iter().zip(stamps) {
            feed.event(Resubscribe, state, stamp);
        }
        feed.event(Resubscribe, InputRequired, stamps[5]);
        feed
    }

    #[test]
    fn replay_extending_the_history_through_a_second_turn_applies_only_the_new_question() {
        let stamped = [
            T[0],
            T[1],
            T[2],
            Some("2026-11-07T00:00:05.000Z"),
            Some("2026-11-07T00:00:05.010Z"),
            Some("2026-11-07T00:00:05.020Z"),
        ];
        for stamps in [[None; 6], stamped] {
            let mut feed = replay_through_a_second_turn(stamps);
            assert_eq!(
                feed.applied_states(),
                [Submitted, Working, InputRequired, Working, InputRequired]
            );
            assert_eq!(
                feed.verdicts()[5..],
                [
                    (Submitted, StateVerdict::Replayed),
                    (Working, StateVerdict::Replayed),
                    (InputRequired, StateVerdict::Replayed),
                    (Submitted, StateVerdict::Replayed),
                    (Working, StateVerdict::Replayed),
                    (InputRequired, StateVerdict::Applied),
                ]
            );
            // The answer to the second question then completes the task.
            feed.connect();
            feed.event(Turn, Submitted, None);
            feed.event(Turn, Working, None);
            feed.event(Turn, Completed, None);
            assert_eq!(
                feed.applied_states(),
                [
                    Submitted,
                    Working,
                    InputRequired,
                    Working,
                    InputRequired,
                    Working,
                    Completed
                ]
            );
        }
    }

    #[test]
    fn replay_of_a_second_turn_that_brings_nothing_new_applies_nothing() {
        let mut feed = Feed::new();
        feed.first_turn([None; 3]);
        feed.connect();
        feed.event(Turn, Submitted, None);
        feed.event(Turn, Working, None);
        feed.connect();
        for state in [Submitted, Working, InputRequired, Submitted, Working] {
            feed.event(Resubscribe, state, None);
        }
        feed.connect();
        assert_eq!(
            feed.applied_states(),
            [Submitted, Working, InputRequired, Working]
        );
        assert!(
            feed.verdicts()[5..]
                .iter()
                .all(|(_, verdict)| *verdict == StateVerdict::Replayed)
        );
    }

    #[test]
    fn replay_with_a_duplicate_submitted_never_seen_live_still_aligns() {
        // The follow-up's stream began after the duplicate `submitted` (or lost it); the
        // replay still has it.
        let mut feed = Feed::new();
        feed.first_turn([None; 3]);
        feed.connect();
        feed.event(Turn, Working, None);
        feed.connect();
        let replay = [Submitted, Working, InputRequired, Submitted, Working];
        for state in replay.into_iter().chain([InputRequired]) {
            feed.event(Resubscribe, state, None);
        }
        assert_eq!(
            feed.applied_states(),
            [Submitted, Working, InputRequired, Working, InputRequired]
        );
        assert_eq!(feed.verdicts()[9], (InputRequired, StateVerdict::Applied));
    }

    #[test]
    fn a_true_backward_move_is_rejected() {
        let mut feed = Feed::new();
        feed.connect();
        feed.event_kind(Turn, EventKind::Snapshot, Working, None);
        feed.event(Turn, InputRequired, None);
        // A stale get says the task is back in submitted: nothing to align with, so it is
        // judged as a move, and it goes backward.
        feed.connect();
        feed.event_kind(Probe, EventKind::Result, Submitted, None);
        assert_eq!(feed.applied_states(), [Working, InputRequired]);
        assert_eq!(
            feed.verdicts()[2],
            (Submitted, StateVerdict::DuplicateSubmitted)
        );
        assert_eq!(feed.ledger.current(), Some(InputRequired));
    }

    #[test]
    fn a_stale_snapshot_from_a_get_is_judged_not_aligned() {
        let mut feed = Feed::new();
        feed.first_turn(T);
        feed.connect();
        feed.event_kind(Probe, EventKind::Result, Submitted, T[0]);
        feed.connect();
        assert_eq!(feed.applied_states(), [Submitted, Working, InputRequired]);
        assert_eq!(
            feed.verdicts()[3],
            (Submitted, StateVerdict::DuplicateSubmitted)
        );
    }

    #[test]
    fn a_stale_replayed_working_is_caught_by_its_timestamp() {
        let mut feed = Feed::new();
        feed.first_turn(T);
        feed.connect();
        feed.event(Resubscribe, Working, T[1]);
        assert_eq!(feed.applied_states(), [Submitted, Working, InputRequired]);
        assert_eq!(feed.verdicts()[3], (Working, StateVerdict::Duplicate));
    }

    #[test]
    fn nothing_after_a_terminal_state_is_applied() {
        let mut feed = Feed::new();
        feed.connect();
        feed.event(Turn, Submitted, None);
        feed.event(Turn, Working, None);
        feed.event(Turn, Completed, None);
        feed.event(Turn, Working, None);
        feed.event(Turn, Submitted, None);
        feed.event(Turn, Canceled, None);
        feed.event(Turn, Completed, None);
        assert_eq!(feed.applied_states(), [Submitted, Working, Completed]);
        assert_eq!(
            feed.verdicts()[3..],
            [
                (Working, StateVerdict::AfterTerminal),
                (Submitted, StateVerdict::AfterTerminal),
                (Canceled, StateVerdict::AfterTerminal),
                (Completed, StateVerdict::Repeat)
            ]
        );
    }
}
