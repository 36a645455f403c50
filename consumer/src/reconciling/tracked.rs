//! One task the reconciling consumer follows: its ledger, context, artifacts, and when its
//! current state was entered (for the local deadlines, and by the peer's stamp).

use crate::job::Deadlines;
use crate::ledger::{EventRef, Ruling, StateVerdict, TaskLedger};
use crate::session;
use meshsim_protocol::{StreamEvent, Task, TaskState};
use std::time::Duration;
use tokio::time::Instant;

/// A followed task.
pub struct Tracked {
    pub task_id: String,
    pub context_id: Option<String>,
    pub ledger: TaskLedger,
    /// Artifacts by id (or position when the dialect has no ids), in arrival order.
    artifacts: Vec<(String, String)>,
    /// The text of the last applied status message.
    pub status_text: Option<String>,
    /// When the current state was applied (or the task dispatched).
    pub entered: Instant,
    /// When the peer entered the current state, on the consumer's clock, where its
    /// status's stamp dates it (read through the
    /// [`PeerClock`](super::peer_clock::PeerClock)). Earlier than `entered` when the report
    /// of it was held on the way; `None` without a readable stamp: neither its arrival nor
    /// the stream's keep-alives date it, since a link may have held it for any time (see
    /// `answer.rs`). `None` too for a state applied from a resubscribe, whose replayed
    /// events a peer may stamp anew.
    pub stamped: Option<Instant>,
    /// Whether a stream created or carried this task (the peer may reap it on close).
    pub streamed: bool,
    /// Whether the peer had ended the last stream that carried it when the consumer stopped
    /// reading: then the peer saw the close before anything the consumer sends next. A
    /// stream the consumer drops while it is open closes on its own connection, which a
    /// call on a new connection can overtake.
    pub ended_by_peer: bool,
    /// Whether its stream broke mid-task and it has not been seen since.
    pub broken: bool,
    /// Whether events of it may have gone unread: it was followed again after its stream
    /// ended while it was live, and no whole task has been read since. A v0.1 resubscribe
    /// carries only the events after it, so an artifact chunk made in between is in no
    /// event read, and only the task as the peer holds it has the whole artifact.
    pub events_unread: bool,
    /// What identifies the current state's status, as last reported live.
    status: StatusMark,
    /// The answer the peer took to the current question, if any.
    pub answered: Option<Answer>,
}

/// What tells two reports of the same state apart. A peer that asks a second question
/// goes `working → input-required` again, and a poll can miss the `working` in between; the
/// second question still has its own timestamp, status-message id (not in v0.1) or text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct StatusMark {
    timestamp: Option<String>,
    message_id: Option<String>,
    text: Option<String>,
}

impl StatusMark {
    /// The mark of the status an event carries (empty when it carries none).
    fn of(event: &StreamEvent) -> Self {
        let (timestamp, message_id) = session::status_of(event)
            .map(|(_, timestamp, message_id)| (timestamp, message_id))
            .unwrap_or_default();
        StatusMark {
            timestamp,
            message_id,
            text: session::status_text(event),
        }
    }

    /// Whether `other` is evidently another status: some evidence both carry differs.
    /// Evidence only one side carries proves nothing either way.
    fn differs_from(&self, other: &StatusMark) -> bool {
        fn differ(one: &Option<String>, other: &Option<String>) -> bool {
            matches!((one, other), (Some(one), Some(other)) if one != other)
        }
        differ(&self.timestamp, &other.timestamp)
            || differ(&self.message_id, &other.message_id)
            || differ(&self.text, &other.text)
    }
}

/// An answer the peer took: to which question, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// How many states were applied when it was taken.
    applied: usize,
    /// The status that asked the question.
    question: StatusMark,
    at: Instant,
}

impl Tracked {
    /// A task known by id, nothing applied yet.
    pub fn new(task_id: String, streamed: bool) -> Self {
        Tracked {
            task_id,
            context_id: None,
            ledger: TaskLedger::new(),
            artifacts: Vec::new(),
            status_text: None,
            entered: Instant::now(),
            stamped: None,
            streamed,
            ended_by_peer: false,
            broken: false,
            events_unread: false,
            status: StatusMark::default(),
            answered: None,
        }
    }

    /// Keeps the artifacts and context an event carries; a whole-task snapshot replaces
    /// artifacts by id (and accounts for every event before it), an appending update
    /// extends one.
    pub fn absorb(&mut self, event: &StreamEvent) {
        if matches!(event, StreamEvent::Task(_)) {
            self.events_unread = false;
        }
        if let Some(context) = session::context_of(event) {
            self.context_id = Some(context.to_string());
        }
        let append =
            matches!(event, StreamEvent::ArtifactUpdate(update) if update.append == Some(true));
        for (position, artifact) in session::artifacts_of(event).into_iter().enumerate() {
            let key = artifact
                .artifact_id
                .clone()
                .unwrap_or_else(|| format!("#{position}"));
            let text = session::artifact_text(artifact);
            match self.artifacts.iter_mut().find(|(known, _)| *known == key) {
                Some((_, existing)) if append => existing.push_str(&text),
                Some((_, existing)) => *existing = text,
                None => self.artifacts.push((key, text)),
            }
        }
    }

    /// Whether `whole`, the task as the peer holds it, has exactly the artifacts read so
    /// far: nothing was made that went unread.
    pub fn has_read_all_of(&self, whole: &Task) -> bool {
        let mut held = Tracked::new(self.task_id.clone(), false);
        held.absorb(&StreamEvent::Task(whole.clone()));
        held.artifact_text() == self.artifact_text()
    }

    /// The artifacts' text, in order.
    pub fn artifact_text(&self) -> String {
        self.artifacts
            .iter()
            .map(|(_, text)| text.as_str())
            .collect()
    }

    /// Keeps the mark of the status `event` reported when the ledger judged that report
    /// (at `at`) live: applied, or a repeat of the current state. Replays and duplicates
    /// describe the past, so they never stand for the current status.
    pub fn note_status(&mut self, event: &StreamEvent, at: EventRef, rulings: &[Ruling]) {
        let live = rulings.iter().any(|ruling| {
            ruling.observation.at == at
                && matches!(ruling.verdict, StateVerdict::Applied | StateVerdict::Repeat)
        });
        if live {
            self.status = StatusMark::of(event);
        }
    }

    /// The peer took an answer to the current question.
    pub fn answer_taken(&mut self) {
        self.answered = Some(Answer {
            applied: self.ledger.applied().len(),
            question: self.status.clone(),
            at: Instant::now(),
        });
    }

    /// Whether the peer took an answer to the current question less than `patience` ago:
    /// then the task is polled, not answered again. The question is still the one answered
    /// while nothing was applied since and the peer reports the same status; a repeat of
    /// the state with another status is a new question (the move through `working` was
    /// missed), which needs its own answer.
    pub fn answer_pending(&self, patience: Duration) -> bool {
        self.answered.as_ref().is_some_and(|answer| {
            answer.applied == self.ledger.applied().len()
                && !self.status.differs_from(&answer.question)
                && Instant::now() < answer.at + patience
        })
    }

    /// The task was sent at `sent`: while it is still submitted, it has been since then,
    /// not since the consumer first heard of it (a send whose answer was lost, such as a
    /// blocking v0.1 send that timed out, took that long to learn nothing).
    pub fn submitted_since(&mut self, sent: Instant) {
        if matches!(self.ledger.current(), None | Some(TaskState::Submitted)) {
            self.entered = self.entered.min(sent);
        }
    }

    /// The `submitted` deadline of a turn the peer started afresh on `connection` (see
    /// [`TaskLedger::holds_start`](crate::ledger::TaskLedger::holds_start)), counted from
    /// the answer that began it (or from when the current state was applied): the ledger
    /// holds the `submitted` as a possible replay, so the state the consumer applied is
    /// still the question, which has no deadline, while the peer says the task is waiting
    /// to start.
    pub fn start_deadline(
        &self,
        connection: u32,
        deadlines: &Deadlines,
    ) -> Option<(Instant, TaskState, Duration)> {
        if !self.ledger.holds_start(connection) {
            return None;
        }
        let since = self
            .answered
            .as_ref()
            .map_or(self.entered, |answer| answer.at);
        let limit = deadlines.submitted;
        Some((since + limit, TaskState::Submitted, limit))
    }

    /// The deadline of the current state, with its limit, if the state has one.
    pub fn deadline(&self, deadlines: &Deadlines) -> Option<(Instant, TaskState, Duration)> {
        let (state, limit) = match self.ledger.current() {
            None | Some(TaskState::Submitted) => (TaskState::Submitted, deadlines.submitted),
            Some(TaskState::Working) => (TaskState::Working, deadlines.working),
            Some(_) => return None,
        };
        Some((self.entered + limit, state, limit))
    }
}

/// The id of the task in `slot`, or the empty string when there is none.
pub(super) fn slot_id(slot: &Option<Tracked>) -> String {
    slot.as_ref()
        .map(|task| task.task_id.clone())
        .unwrap_or_default()
}
