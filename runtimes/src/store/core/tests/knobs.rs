//! One test per lifecycle knob; each runs every value of its knob's domain. An enum knob's
//! cases sit in an exhaustive `match`, so a new value does not compile until it has one.

use super::{Run, code};
use crate::personality::{
    BusyFollowUp, CancelOutcome, FollowUp, FollowUpOpening, NewTaskOpening, Personality, Reaping,
    Resubscribe, SendReply, StreamClose, TerminalCancel, Timestamps, UnknownTask,
};
use crate::store::core::Effect;
use crate::store::shaping::asserted;
use crate::truth::Origin;
use meshsim_protocol::{Dialect, ErrorCode, StreamEvent, TaskState};

fn with(change: impl FnOnce(&mut Personality)) -> Personality {
    let mut personality = Personality::default();
    change(&mut personality);
    personality
}

#[test]
pub(super) fn resubscribe() {
    use Resubscribe::*;
    for mode in [
        SnapshotThenTail,
        ReplayFromStart,
        NotFoundAfterStreamClose,
        NotFoundUnlessActive,
    ] {
        let mut run = Run::new(with(|p| p.resubscribe = mode));
        let id = run.asking().task.id;
        let answer = run.subscribe(&id);
        match mode {
            SnapshotThenTail => {
                let stream = answer.expect("reattaches");
                assert_eq!(run.delivered_states(stream), [TaskState::InputRequired]);
                assert!(matches!(run.delivered(stream)[0], StreamEvent::Task(_)));
            }
            ReplayFromStart => {
                let stream = answer.expect("replays");
                assert_eq!(
                    run.delivered_states(stream),
                    [
                        TaskState::Submitted,
                        TaskState::Working,
                        TaskState::InputRequired
                    ]
                );
                assert!(
                    run.closed(stream),
                    "a replay ending at a closing state ends"
                );
            }
            NotFoundAfterStreamClose => {
                assert_eq!(code(answer), ErrorCode::TaskNotFound);
                // While the creating stream is attached, it reattaches.
                let mut run = Run::new(with(|p| {
                    p.resubscribe = mode;
                    p.stream_close = StreamClose::TerminalOnly;
                }));
                let id = run.asking().task.id;
                assert!(run.subscribe(&id).is_ok());
            }
            NotFoundUnlessActive => {
                assert_eq!(code(answer), ErrorCode::TaskNotFound);
                // While a turn executes, it reattaches.
                let mut run = Run::new(with(|p| p.resubscribe = mode));
                let id = run.send("do it", None, true).unwrap().task.id;
                assert!(run.subscribe(&id).is_ok());
            }
        }
    }
}

#[test]
pub(super) fn terminal_subscribe_error() {
    for error in [ErrorCode::UnsupportedOperation, ErrorCode::TaskNotFound] {
        let mut run = Run::new(with(|p| p.terminal_subscribe_error = error));
        let id = run.send("#complete", None, true).unwrap().task.id;
        run.run_turns();
        assert_eq!(code(run.subscribe(&id)), error);
    }
}

#[test]
pub(super) fn follow_up() {
    use FollowUp::*;
    for mode in [Resume, ResumeWithDuplicateSubmitted, NewTask, NotFound] {
        let mut run = Run::new(with(|p| p.follow_up = mode));
        let id = run.asking().task.id;
        let answer = run.send("json", Some(&id), false);
        let back_to_submitted = run.count(|effect| {
            matches!(
                effect,
                Effect::Transitioned {
                    from: TaskState::InputRequired,
                    to: TaskState::Submitted,
                    ..
                }
            )
        });
        match mode {
            Resume => {
                assert_eq!(answer.unwrap().task.id, id);
                assert_eq!(back_to_submitted, 0);
                run.run_turns();
                assert_eq!(run.state(&id), Some(TaskState::Completed));
            }
            ResumeWithDuplicateSubmitted => {
                assert_eq!(answer.unwrap().task.id, id);
                assert_eq!(back_to_submitted, 1);
            }
            NewTask => {
                assert_ne!(answer.unwrap().task.id, id);
                assert_eq!(created_by_follow_up(&run), 1);
            }
            NotFound => assert_eq!(code(answer), ErrorCode::TaskNotFound),
        }
    }
}

fn created_by_follow_up(run: &Run) -> usize {
    run.count(|effect| {
        matches!(effect, Effect::Created { truth } if matches!(truth.origin, Origin::FollowUpCreated { .. }))
    })
}

#[test]
pub(super) fn unknown_task() {
    use UnknownTask::*;
    for mode in [NotFound, NewTask] {
        let mut run = Run::new(with(|p| p.unknown_task = mode));
        let answer = run.send("hello", Some("gone"), false);
        match mode {
            NotFound => assert_eq!(code(answer), ErrorCode::TaskNotFound),
            NewTask => {
                assert_ne!(answer.unwrap().task.id, "gone");
                assert_eq!(created_by_follow_up(&run), 1);
            }
        }
        // v0.1 clients choose ids: the unknown id names a new task, whatever the knob.
        let mut run = Run::speaking(with(|p| p.unknown_task = mode), Dialect::V0_1);
        assert_eq!(
            run.send("hello", Some("mine"), false).unwrap().task.id,
            "mine"
        );
    }
}

#[test]
pub(super) fn busy_follow_up() {
    use BusyFollowUp::*;
    for mode in [Refuse, Queue] {
        let mut run = Run::new(with(|p| p.busy_follow_up = mode));
        let id = run.send("do it", None, true).unwrap().task.id;
        // The first turn has not run: the task is busy.
        let answer = run.send("json", Some(&id), false);
        match mode {
            Refuse => assert_eq!(code(answer), ErrorCode::UnsupportedOperation),
            Queue => {
                assert_eq!(answer.unwrap().task.id, id);
                run.run_turns();
                // The queued message answered the question.
                assert_eq!(run.state(&id), Some(TaskState::Completed));
            }
        }
    }
}

#[test]
pub(super) fn terminal_send_error() {
    for error in [ErrorCode::UnsupportedOperation, ErrorCode::InvalidParams] {
        let mut run = Run::new(with(|p| p.terminal_send_error = error));
        let id = run.send("#fail", None, false).unwrap().task.id;
        run.run_turns();
        assert_eq!(code(run.send("again", Some(&id), false)), error);
    }
}

#[test]
pub(super) fn reaping() {
    for mode in [
        Reaping::OnStreamClose,
        Reaping::Ttl { after_ms: 500 },
        Reaping::InputRequiredTimeout { after_ms: 300 },
        Reaping::Never,
    ] {
        let mut run = Run::new(with(|p| p.reaping = mode));
        let id = run.asking().task.id;
        let timers: Vec<u64> = run
            .effects
            .iter()
            .filter_map(|effect| match effect {
                Effect::ReapTimer { after, .. } => Some(after.as_millis() as u64),
                _ => None,
            })
            .collect();
        match mode {
            Reaping::OnStreamClose => {
                // The stream closed at input-required, and the task went with it.
                assert!(run.reaped(&id));
                assert!(timers.is_empty());
                // A stream that stays open keeps the task until its client leaves.
                let mut run = Run::new(with(|p| {
                    p.reaping = mode;
                    p.stream_close = StreamClose::TerminalOnly;
                }));
                let accepted = run.asking();
                assert!(!run.reaped(&accepted.task.id));
                run.drop_stream(&accepted.task.id, accepted.stream.unwrap());
                assert!(run.reaped(&accepted.task.id));
            }
            Reaping::Ttl { after_ms } => {
                assert_eq!(timers, [after_ms; 3], "one per transition");
                assert!(!run.reaped(&id));
                run.fire_timers();
                // Only the timer set after the last transition finds the task idle.
                assert_eq!(run.count(|e| matches!(e, Effect::Reaped { .. })), 1);
            }
            Reaping::InputRequiredTimeout { after_ms } => {
                assert_eq!(timers, [after_ms], "only on entering input-required");
                run.fire_timers();
                assert!(run.reaped(&id));
            }
            Reaping::Never => {
                run.fire_timers();
                assert!(!run.reaped(&id) && timers.is_empty());
                assert_eq!(run.state(&id), Some(TaskState::InputRequired));
            }
        }
    }
}

#[test]
pub(super) fn stream_close() {
    use StreamClose::*;
    for mode in [
        TerminalOnly,
        TerminalAndInterrupted,
        TerminalAndInputRequired,
    ] {
        let mut run = Run::new(with(|p| p.stream_close = mode));
        let accepted = run.asking();
        let stream = accepted.stream.expect("a streaming send opens a stream");
        let closed_at_question = run.closed(stream);
        match mode {
            TerminalOnly => assert!(!closed_at_question),
            TerminalAndInterrupted | TerminalAndInputRequired => assert!(closed_at_question),
        }
        run.send("json", Some(&accepted.task.id), false).unwrap();
        run.run_turns();
        assert!(run.closed(stream), "every mode closes on a terminal state");
    }
}

#[test]
pub(super) fn cancel_of_live_tasks() {
    use CancelOutcome::*;
    for outcome in [Cancel, NotCancelable, Ignore] {
        // submitted (its turn not yet run), working (mid-turn), input-required.
        for (stage, state) in [
            ("submitted", TaskState::Submitted),
            ("working", TaskState::Working),
            ("interrupted", TaskState::InputRequired),
        ] {
            let mut run = Run::new(with(|p| match stage {
                "submitted" => p.cancel.submitted = outcome,
                "working" => p.cancel.working = outcome,
                _ => p.cancel.interrupted = outcome,
            }));
            let id = run.send("do it", None, true).unwrap().task.id;
            match state {
                TaskState::Submitted => {}
                TaskState::Working => run_until(&mut run, TaskState::Working),
                _ => run.run_turns(),
            }
            assert_eq!(run.state(&id), Some(state));
            let answer = run.cancel(&id);
            match outcome {
                Cancel => assert_eq!(answer.unwrap().status.state, TaskState::Canceled),
                NotCancelable => assert_eq!(code(answer), ErrorCode::TaskNotCancelable),
                Ignore => {
                    assert_eq!(answer.unwrap().status.state, state);
                    assert_eq!(run.state(&id), Some(state), "{stage}");
                }
            }
        }
    }
}

/// Runs the next turn's steps until the task reaches `state`, leaving the rest due.
fn run_until(run: &mut Run, state: TaskState) {
    let (task, epoch, steps) = run.turns.pop_front().expect("a turn started");
    for step in steps {
        if step == crate::step::TurnStep::Work {
            continue;
        }
        let outcome = run.core.step(run.now, &task, epoch, step);
        run.keep(outcome);
        if run.state(&task) == Some(state) {
            return;
        }
    }
}

#[test]
pub(super) fn cancel_of_terminal_tasks() {
    use TerminalCancel::*;
    for mode in [NotCancelable, ReturnTask, ReturnCanceled] {
        let mut run = Run::new(with(|p| p.cancel.terminal = mode));
        let done = run.send("#complete", None, false).unwrap().task.id;
        run.run_turns();
        let canceled = run.send("do it", None, false).unwrap().task.id;
        run.cancel(&canceled).unwrap();
        let (completed, repeated) = (run.cancel(&done), run.cancel(&canceled));
        match mode {
            NotCancelable => {
                assert_eq!(code(completed), ErrorCode::TaskNotCancelable);
                assert_eq!(code(repeated), ErrorCode::TaskNotCancelable);
            }
            ReturnTask => {
                assert_eq!(completed.unwrap().status.state, TaskState::Completed);
                assert_eq!(repeated.unwrap().status.state, TaskState::Canceled);
            }
            ReturnCanceled => {
                assert_eq!(code(completed), ErrorCode::TaskNotCancelable);
                assert_eq!(repeated.unwrap().status.state, TaskState::Canceled);
            }
        }
    }
}

#[test]
pub(super) fn timestamps() {
    use Timestamps::*;
    for mode in [Present, Absent, RestampedOnReplay] {
        let mut run = Run::new(with(|p| {
            p.timestamps = mode;
            p.resubscribe = Resubscribe::ReplayFromStart;
        }));
        let accepted = run.asking();
        let stamps = |events: Vec<StreamEvent>| -> Vec<Option<String>> {
            events
                .into_iter()
                .filter_map(|event| match event {
                    StreamEvent::StatusUpdate(update) => Some(update.status.timestamp),
                    StreamEvent::Task(task) => Some(task.status.timestamp),
                    _ => None,
                })
                .collect()
        };
        let live = stamps(run.delivered(accepted.stream.unwrap()));
        run.now += std::time::Duration::from_secs(60);
        let replay = run.subscribe(&accepted.task.id).unwrap();
        let replayed = stamps(run.delivered(replay));
        match mode {
            Present => {
                assert!(live.iter().all(Option::is_some));
                assert_eq!(replayed, live, "a replay keeps the original stamps");
            }
            Absent => assert!(live.iter().chain(&replayed).all(Option::is_none)),
            RestampedOnReplay => {
                assert!(live.iter().all(Option::is_some));
                let now = Some(meshsim_protocol::clock::rfc3339(run.now));
                assert!(replayed.iter().all(|stamp| *stamp == now), "{replayed:?}");
            }
        }
    }
}

#[test]
pub(super) fn duplicate_states() {
    for duplicated in [vec![], vec![TaskState::Working]] {
        let mut run = Run::new(with(|p| p.duplicate_states = duplicated.clone()));
        let stream = run.asking().stream.unwrap();
        let working = run
            .delivered_states(stream)
            .into_iter()
            .filter(|state| *state == TaskState::Working)
            .count();
        assert_eq!(working, 1 + duplicated.len());
    }
}

#[test]
pub(super) fn stalled_first_tasks() {
    for stalled in [0, 2] {
        let mut run = Run::new(with(|p| p.stalled_first_tasks = stalled));
        let ids: Vec<String> = (0..3)
            .map(|_| run.send("#complete", None, false).unwrap().task.id)
            .collect();
        run.run_turns();
        let states: Vec<_> = ids.iter().map(|id| run.state(id).unwrap()).collect();
        let expected: Vec<_> = (0..3)
            .map(|n| match n < stalled {
                true => TaskState::Submitted,
                false => TaskState::Completed,
            })
            .collect();
        assert_eq!(states, expected);
    }
}

#[test]
pub(super) fn opening_new_task() {
    use NewTaskOpening::*;
    for mode in [Snapshot, StatusUpdate] {
        let mut run = Run::new(with(|p| p.opening.new_task = mode));
        let stream = run.send("do it", None, true).unwrap().stream.unwrap();
        let first = run.delivered(stream)[0].clone();
        assert_eq!(asserted(&first), Some(TaskState::Submitted));
        match mode {
            Snapshot => assert!(matches!(first, StreamEvent::Task(_))),
            StatusUpdate => assert!(matches!(first, StreamEvent::StatusUpdate(_))),
        }
    }
}

#[test]
pub(super) fn opening_follow_up() {
    use FollowUpOpening::*;
    for mode in [None, Snapshot] {
        let mut run = Run::new(with(|p| p.opening.follow_up = mode));
        let id = run.asking().task.id;
        let stream = run.send("json", Some(&id), true).unwrap().stream.unwrap();
        let events = run.delivered(stream);
        match mode {
            None => assert!(events.is_empty(), "nothing before the turn's updates"),
            Snapshot => assert!(matches!(events[..], [StreamEvent::Task(_)])),
        }
    }
}

#[test]
pub(super) fn send_reply() {
    use SendReply::*;
    for mode in [WhenSettled, OnAccept] {
        let mut run = Run::new(with(|p| p.send_reply = mode));
        let accepted = run.send("do it", None, false).unwrap();
        run.run_turns();
        let settled = run.count(|effect| {
            matches!(effect, Effect::Settled { task } if task.status.state == TaskState::InputRequired)
        });
        match mode {
            WhenSettled => assert!(accepted.waits && settled == 1),
            OnAccept => assert!(!accepted.waits && settled == 0),
        }
    }
}

#[test]
pub(super) fn work() {
    for (min_ms, max_ms, long_running_steps) in [(0, 0, 1), (20, 40, 3)] {
        let mut run = Run::new(with(|p| {
            p.work.min_ms = min_ms;
            p.work.max_ms = max_ms;
            p.work.long_running_steps = long_running_steps;
        }));
        run.send("#long", None, false).unwrap();
        let durations: Vec<u64> = run
            .effects
            .iter()
            .filter_map(|effect| match effect {
                Effect::TurnStarted { durations, .. } => Some(durations.clone()),
                _ => None,
            })
            .flatten()
            .map(|duration| duration.as_millis() as u64)
            .collect();
        assert!(durations.iter().all(|ms| (min_ms..=max_ms).contains(ms)));
        run.run_turns();
        let chunks = run.count(|effect| matches!(effect, Effect::ArtifactChunk { .. }));
        assert_eq!(chunks, long_running_steps as usize);
    }
}
