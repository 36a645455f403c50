//! One task the reconciling consumer follows: its ledger, context, artifacts, and when its
//! current state was entered (for the local deadlines).

use crate::job::Deadlines;
use crate::ledger::TaskLedger;
use crate::session;
use meshsim_protocol::{StreamEvent, TaskState};
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
    /// Whether a stream created or carried this task (the peer may reap it on close).
    pub streamed: bool,
    /// Whether its stream broke mid-task and it has not been seen since.
    pub broken: bool,
    /// When the peer took an answer, and how many states were applied then.
    pub answered: Option<(usize, Instant)>,
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
            streamed,
            broken: false,
            answered: None,
        }
    }

    /// Keeps the artifacts and context an event carries; a whole-task snapshot replaces
    /// artifacts by id, an appending update extends one.
    pub fn absorb(&mut self, event: &StreamEvent) {
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

    /// The artifacts' text, in order.
    pub fn artifact_text(&self) -> String {
        self.artifacts
            .iter()
            .map(|(_, text)| text.as_str())
            .collect()
    }

    /// Whether the peer took an answer to the current question (nothing was applied
    /// since) less than `patience` ago: then the task is polled, not answered again.
    pub fn answer_pending(&self, patience: Duration) -> bool {
        self.answered.is_some_and(|(applied, at)| {
            applied == self.ledger.applied().len() && Instant::now() < at + patience
        })
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
