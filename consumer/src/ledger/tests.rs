//! The ledger's cases: replays on resubscribes and turns (with and without timestamps),
//! snapshots repeating live events, duplicate `submitted`s, and the moves it rejects.

use super::*;
use ConnectionKind::{Probe, Resubscribe, Turn};
use TaskState::*;
use meshsim_protocol::TaskState;

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

    /// Unstamped events of `kind`, in order.
    fn events(&mut self, kind: ConnectionKind, states: &[TaskState]) {
        for &state in states {
            self.event(kind, state, None);
        }
    }

    fn first_turn(&mut self, stamps: [Option<&str>; 3]) {
        self.connect();
        self.event(Turn, Submitted, stamps[0]);
        self.event(Turn, Working, stamps[1]);
        self.event(Turn, InputRequired, stamps[2]);
    }
}

/// What a consumer applies of a task that asks twice, then completes.
const ASKED_TWICE_THEN_COMPLETED: [TaskState; 7] = [
    Submitted,
    Working,
    InputRequired,
    Working,
    InputRequired,
    Working,
    Completed,
];

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
    feed.events(Turn, &[Working, Completed]);
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
    feed.events(Resubscribe, &[Submitted, Working, InputRequired]);
    feed.connect();
    feed.events(Turn, &[Working, InputRequired, Working, Completed]);
    assert_eq!(feed.applied_states(), ASKED_TWICE_THEN_COMPLETED);
}

#[test]
fn replay_cut_short_on_resubscribe_is_not_applied() {
    let mut feed = Feed::new();
    feed.first_turn(T);
    feed.connect();
    feed.events(Resubscribe, &[Submitted, Working]);
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
    feed.events(Turn, &[Submitted, Working, InputRequired]);
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
fn a_question_held_on_a_turn_is_one_the_peer_may_wait_on() {
    let mut feed = Feed::new();
    feed.first_turn([None; 3]);
    feed.connect();
    feed.events(Turn, &[Submitted, Working]);
    assert!(!feed.ledger.holds_question(feed.connection));
    feed.event(Turn, InputRequired, None);
    assert!(feed.ledger.holds_question(feed.connection));
    assert!(!feed.ledger.holds_question(feed.connection + 1));
    // Settled when the reader stops waiting, as at the turn's close: the turn's own events.
    feed.connect();
    assert!(!feed.ledger.holds_question(feed.connection - 1));
    assert_eq!(
        feed.applied_states(),
        [Submitted, Working, InputRequired, Working, InputRequired]
    );
}

#[test]
fn a_turn_held_at_submitted_is_a_start_the_peer_has_yet_to_move_on_from() {
    let mut feed = Feed::new();
    feed.first_turn([None; 3]);
    feed.connect();
    assert!(!feed.ledger.holds_start(feed.connection));
    feed.event(Turn, Submitted, None);
    assert!(feed.ledger.holds_start(feed.connection));
    assert!(!feed.ledger.holds_start(feed.connection + 1));
    assert!(!feed.ledger.holds_question(feed.connection));
    // The turn moves on: no longer a start.
    feed.event(Turn, Working, None);
    assert!(!feed.ledger.holds_start(feed.connection));
}

#[test]
fn a_question_said_twice_on_a_turn_is_still_a_question_the_peer_may_wait_on() {
    let mut feed = Feed::new();
    feed.first_turn([None; 3]);
    feed.connect();
    feed.events(Turn, &[Submitted, Working, InputRequired, InputRequired]);
    assert!(feed.ledger.holds_question(feed.connection));
    // Settled when the reader stops waiting: the turn's own events, the repeat a repeat.
    feed.connect();
    assert_eq!(
        feed.applied_states(),
        [Submitted, Working, InputRequired, Working, InputRequired]
    );
}

#[test]
fn a_replay_that_repeats_a_state_is_still_a_replay() {
    let mut feed = Feed::new();
    feed.first_turn([None; 3]);
    feed.connect();
    feed.events(Turn, &[Submitted, Working, Working, InputRequired, Working]);
    assert!(!feed.ledger.is_aligning());
    assert_eq!(
        feed.applied_states(),
        [Submitted, Working, InputRequired, Working]
    );
}

#[test]
fn a_question_held_on_a_resubscribe_is_a_replay_cut_short_not_a_question() {
    let mut feed = Feed::new();
    feed.first_turn([None; 3]);
    feed.connect();
    feed.events(Turn, &[Working, InputRequired]);
    feed.connect();
    feed.events(Resubscribe, &[Submitted, Working, InputRequired]);
    assert!(!feed.ledger.holds_question(feed.connection));
}

#[test]
fn turn_that_replays_everything_then_continues_applies_only_the_continuation() {
    let mut feed = Feed::new();
    feed.first_turn(T);
    feed.connect();
    for (state, stamp) in [(Submitted, T[0]), (Working, T[1]), (InputRequired, T[2])] {
        feed.event(Turn, state, stamp);
    }
    feed.events(Turn, &[Working, Completed]);
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
        feed.events(Turn, &[Working, last]);
    }
    assert_eq!(feed.applied_states(), ASKED_TWICE_THEN_COMPLETED);
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
        feed.events(Turn, &[Submitted, Working, Completed]);
        assert_eq!(feed.applied_states(), ASKED_TWICE_THEN_COMPLETED);
    }
}

#[test]
fn replay_of_a_second_turn_that_brings_nothing_new_applies_nothing() {
    let mut feed = Feed::new();
    feed.first_turn([None; 3]);
    feed.connect();
    feed.events(Turn, &[Submitted, Working]);
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
fn the_answers_turn_is_live_though_stamped_as_the_first_turn_was() {
    // A peer stamping whole seconds: both turns within one second read alike.
    const SECOND: Option<&str> = Some("2026-01-01T00:00:00Z");
    let mut feed = Feed::new();
    feed.first_turn([SECOND, SECOND, SECOND]);
    feed.connect();
    feed.event(Turn, Working, SECOND);
    feed.event(Turn, Completed, SECOND);
    assert_eq!(
        feed.applied_states(),
        [Submitted, Working, InputRequired, Working, Completed]
    );
}

#[test]
fn nothing_after_a_terminal_state_is_applied() {
    let mut feed = Feed::new();
    feed.connect();
    feed.events(
        Turn,
        &[
            Submitted, Working, Completed, Working, Submitted, Canceled, Completed,
        ],
    );
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
