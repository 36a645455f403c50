//! The lifecycle a behaviour really has, learned by probing the task store's state machine
//! the way a consumer learns a runtime: run a task to `input-required` over a stream, then
//! resubscribe, or send the follow-up. What the oracle expects of a runtime is this, so the
//! state machine (with the behaviour it asks) is the one model of a runtime.

mod memo;

use super::core::{Core, Effect, Outcome};
use super::shaping::asserted;
use crate::behaviour::Behaviour;
use crate::personality::Personality;
use crate::step::TurnStep;
use crate::thread_memo::{ThreadMemo, recall_or};
use crate::truth::Origin;
use memo::ProbedPair;
use meshsim_protocol::{Dialect, ErrorCode, Message, Role, TaskState};
use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;

/// What a resubscribe to a task waiting at `input-required` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResubscribeAnswer {
    /// The task's current state, then live events.
    Resumes,
    /// Events from before the current state (the task's history), then live events.
    Replays,
    /// -32001.
    TaskNotFound,
    /// Another error code.
    Error(i64),
}

/// What a follow-up carrying the id of a task waiting at `input-required` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowUpAnswer {
    /// The task continues in place.
    Resumes,
    /// The task continues, after moving back to `submitted`.
    ResumesWithDuplicateSubmitted,
    /// A new task answers it.
    NewTask,
    /// -32001.
    TaskNotFound,
}

/// A runtime's lifecycle as a consumer can observe it; `None` where the probe could not
/// tell (no task reached `input-required`, or an answer of no known kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Lifecycle {
    pub resubscribe_after_input_required: Option<ResubscribeAnswer>,
    pub follow_up_after_input_required: Option<FollowUpAnswer>,
    pub stream_closes_on_input_required: Option<bool>,
    /// Whether the task is still there once the stream that created it has closed.
    pub task_survives_stream_close: Option<bool>,
}

/// The lifecycle `personality` has under `behaviour`. A consumer stops reading a stream
/// once it reads `input-required`: where its leaving loses the task (a runtime that reaps
/// with the last stream), the task is lost; otherwise the runtime answers as it does with
/// the stream still attached. Reaping timers do not fire (a consumer answers at once), and
/// the dialect is v0.3: in v0.1 clients choose task ids, so a follow-up to a lost task
/// cannot be told from a new one.
///
/// The answer depends on nothing else, so each thread probes a pair once and then
/// remembers it (`memo`).
pub fn lifecycle(personality: &Personality, behaviour: Arc<dyn Behaviour>) -> Lifecycle {
    recall_or(
        &REMEMBERED,
        |pair| pair.is(personality, &behaviour),
        || ProbedPair::of(personality, &behaviour),
        || probed(personality, Arc::clone(&behaviour)),
    )
}

thread_local! {
    /// The lifecycles this thread probed, under the pair each was probed for.
    static REMEMBERED: RefCell<ThreadMemo<ProbedPair, Lifecycle>> =
        const { RefCell::new(ThreadMemo::new(memo::CAPACITY)) };
}

/// [`lifecycle`], probed afresh.
fn probed(personality: &Personality, behaviour: Arc<dyn Behaviour>) -> Lifecycle {
    let probe = |client_leaves| Probe::asking(personality, Arc::clone(&behaviour), client_leaves);
    let (Some(staying), Some(leaving)) = (probe(false), probe(true)) else {
        return Lifecycle::default();
    };
    let lost = leaving.lost;
    Lifecycle {
        resubscribe_after_input_required: probe(lost).map(|mut probe| probe.resubscribe()),
        follow_up_after_input_required: probe(lost).and_then(|mut probe| probe.follow_up()),
        stream_closes_on_input_required: Some(staying.peer_closed),
        task_survives_stream_close: Some(!lost),
    }
}

/// Tasks the probe creates at most while looking for one the executor picks up.
const MAX_STALLED: u64 = 10_000;

/// A core with one task that reached `input-required`.
struct Probe {
    core: Core,
    now: Duration,
    task: String,
    /// Whether the runtime closed the creating stream at `input-required`.
    peer_closed: bool,
    /// Whether the task left the store (with its stream).
    lost: bool,
}

impl Probe {
    /// Creates tasks over a stream until the executor picks one up, runs its first turn,
    /// and, if `client_leaves`, drops the stream there; `None` if no task is picked up or
    /// the turn does not stop at `input-required`.
    fn asking(
        personality: &Personality,
        behaviour: Arc<dyn Behaviour>,
        client_leaves: bool,
    ) -> Option<Probe> {
        let mut core = Core::new(personality.clone(), Dialect::V0_3, behaviour, 0, 0, None);
        let mut now = Duration::ZERO;
        for _ in 0..MAX_STALLED {
            let message = Message::text(Role::User, Some("probe".into()), "probe");
            let Outcome { reply, effects } = core.send(now, message, true, false);
            let accepted = reply.ok()?;
            let stream = accepted.stream?;
            let Some((epoch, steps)) = effects.iter().find_map(|effect| match effect {
                Effect::TurnStarted { epoch, steps, .. } => Some((*epoch, steps.clone())),
                _ => None,
            }) else {
                continue;
            };
            let task = accepted.task.id;
            let mut effects = Vec::new();
            for step in steps.into_iter().filter(|step| *step != TurnStep::Work) {
                now += Duration::from_millis(1);
                effects.extend(core.step(now, &task, epoch, step).effects);
            }
            let closed = |effects: &[Effect]| {
                effects.iter().any(
                    |effect| matches!(effect, Effect::StreamClosed { stream: closed, .. } if *closed == stream),
                )
            };
            let peer_closed = closed(&effects);
            let state = core.get(&task, None).ok().map(|task| task.status.state);
            if state.is_some_and(|state| state != TaskState::InputRequired) {
                return None;
            }
            if client_leaves && !peer_closed {
                core.stream_gone(now, &task, stream, "client left");
            }
            let lost = core.get(&task, None).is_err();
            return Some(Probe {
                core,
                now,
                task,
                peer_closed,
                lost,
            });
        }
        None
    }

    fn resubscribe(&mut self) -> ResubscribeAnswer {
        let Outcome { reply, effects } = self.core.subscribe(self.now, &self.task);
        let stream = match reply {
            Ok(stream) => stream,
            Err(error) if error.code == ErrorCode::TaskNotFound => {
                return ResubscribeAnswer::TaskNotFound;
            }
            Err(error) => return ResubscribeAnswer::Error(error.code.code()),
        };
        let first = effects.iter().find_map(|effect| match effect {
            Effect::Delivered { stream: to, event } if *to == stream => asserted(event),
            _ => None,
        });
        match first {
            Some(state) if state != TaskState::InputRequired => ResubscribeAnswer::Replays,
            _ => ResubscribeAnswer::Resumes,
        }
    }

    fn follow_up(&mut self) -> Option<FollowUpAnswer> {
        let mut message = Message::text(Role::User, Some("answer".into()), "json");
        message.task_id = Some(self.task.clone());
        let Outcome { reply, effects } = self.core.send(self.now, message, true, true);
        let accepted = match reply {
            Ok(accepted) => accepted,
            Err(error) if error.code == ErrorCode::TaskNotFound => {
                return Some(FollowUpAnswer::TaskNotFound);
            }
            Err(_) => return None,
        };
        let created_anew = effects.iter().any(|effect| {
            matches!(effect, Effect::Created { truth }
                if matches!(truth.origin, Origin::FollowUpCreated { .. }))
        });
        let back_to_submitted = effects.iter().any(|effect| {
            matches!(effect, Effect::Transitioned { task, to: TaskState::Submitted, .. }
                if *task == accepted.task.id)
        });
        Some(match (created_anew, back_to_submitted) {
            (true, _) => FollowUpAnswer::NewTask,
            (false, true) => FollowUpAnswer::ResumesWithDuplicateSubmitted,
            (false, false) => FollowUpAnswer::Resumes,
        })
    }
}
