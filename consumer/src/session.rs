//! What both consumers need while running one job: the peer's client, the report in the
//! making, connection numbering, messages with deterministic ids, artifacts gathered, and
//! canceling a task it gives up on.

use crate::client::{A2aClient, Connector};
use crate::ids::IdSource;
use crate::job::Job;
use crate::recorder::JobRecorder;
use crate::report::CancelResult;
use meshsim_protocol::{Artifact, Message, PartContent, StreamEvent, TaskState, TaskStatus};
use std::time::Duration;

/// One job in progress.
pub struct Session<'a, C> {
    pub client: A2aClient<C>,
    pub recorder: &'a mut JobRecorder,
    pub job: &'a Job,
    ids: &'a IdSource,
    connections: u32,
}

impl<'a, C: Connector> Session<'a, C> {
    /// A session over a discovered client.
    pub fn new(
        client: A2aClient<C>,
        recorder: &'a mut JobRecorder,
        job: &'a Job,
        ids: &'a IdSource,
    ) -> Self {
        Session {
            client,
            recorder,
            job,
            ids,
            connections: 0,
        }
    }

    /// Numbers a new connection.
    pub fn next_connection(&mut self) -> u32 {
        self.connections += 1;
        self.connections
    }

    /// A message starting a new task ([`A2aClient::new_task_message`]).
    pub fn new_task_message(&self, text: &str) -> Message {
        self.client.new_task_message(self.ids, text)
    }

    /// A message continuing `task_id` ([`A2aClient::follow_up_message`]).
    pub fn follow_up_message(
        &self,
        task_id: &str,
        context_id: Option<&str>,
        text: &str,
    ) -> Message {
        self.client
            .follow_up_message(self.ids, task_id, context_id, text)
    }

    /// Cancels a task the consumer is giving up on and records the abandonment.
    /// A cancel that fails on the way (not with an A2A error) is tried again, after 0.5,
    /// 1 and 2 s, so that a brief partition does not leave the task running. Returns what
    /// the cancel found.
    pub async fn abandon(&mut self, task_id: &str, reason: &str) -> CancelResult {
        let cancel = self.cancel(task_id, LAST_CANCEL_PAUSE).await;
        self.recorder.abandoned(task_id, reason, cancel.clone());
        cancel
    }

    /// Asks once more to cancel each task abandoned while its cancel failed on the way
    /// ([`JobRecorder::cancels_owed`]), without waiting: before starting another task, a
    /// peer still unreachable is asked again next time.
    pub async fn cancel_owed_once(&mut self) {
        self.cancel_owed(Duration::ZERO).await;
    }

    /// The same, each cancel tried as patiently as [`Session::abandon`] tries one: before
    /// the job ends, when nobody else can.
    pub async fn cancel_owed_patiently(&mut self) {
        self.cancel_owed(LAST_CANCEL_PAUSE).await;
    }

    /// A cancel that got an answer is recorded with the task's abandonment; one that
    /// failed on the way again leaves it owed.
    async fn cancel_owed(&mut self, last_pause: Duration) {
        for (task_id, reason) in self.recorder.cancels_owed() {
            let cancel = self.cancel(&task_id, last_pause).await;
            if !matches!(cancel, CancelResult::Failed(_)) {
                self.recorder.abandoned(&task_id, &reason, cancel);
            }
        }
    }

    /// Cancels `task_id`; a cancel that fails on the way is tried again after pauses of
    /// 0.5 s, doubling, up to `last_pause`.
    async fn cancel(&mut self, task_id: &str, last_pause: Duration) -> CancelResult {
        let mut pause = Duration::from_millis(500);
        loop {
            let answer = self.client.cancel_task(task_id).await;
            match &answer {
                // Unreachable for now: try again a few times before leaving it.
                Err(error) if error.code().is_none() && pause <= last_pause => {
                    meshsim_time::sleep(pause).await;
                    pause *= 2;
                }
                _ => break CancelResult::of(&answer),
            }
        }
    }
}

/// The longest pause before a cancel that failed on the way is tried again.
const LAST_CANCEL_PAUSE: Duration = Duration::from_secs(2);

/// The state an event asserts and its status details: (state, timestamp, message id).
pub fn status_of(event: &StreamEvent) -> Option<(TaskState, Option<String>, Option<String>)> {
    let status = status(event)?;
    let message_id = status
        .message
        .as_ref()
        .and_then(|message| message.message_id.clone());
    Some((status.state, status.timestamp.clone(), message_id))
}

/// How the peer spelled the state an event asserts, when that state is outside the spec.
pub fn unrecognised_state_of(event: &StreamEvent) -> Option<String> {
    status(event)?.unrecognised_state.clone()
}

fn status(event: &StreamEvent) -> Option<&TaskStatus> {
    match event {
        StreamEvent::Task(task) => Some(&task.status),
        StreamEvent::StatusUpdate(update) => Some(&update.status),
        StreamEvent::Message(_) | StreamEvent::ArtifactUpdate(_) => None,
    }
}

/// The context an event carries, if any.
pub fn context_of(event: &StreamEvent) -> Option<&str> {
    match event {
        StreamEvent::Task(task) => task.context_id.as_deref(),
        StreamEvent::StatusUpdate(update) => update.context_id.as_deref(),
        StreamEvent::ArtifactUpdate(update) => update.context_id.as_deref(),
        StreamEvent::Message(message) => message.context_id.as_deref(),
    }
}

/// The text of a status message (the question at `input-required`, the reason of a
/// failure), if the event carries one.
pub fn status_text(event: &StreamEvent) -> Option<String> {
    let status = match event {
        StreamEvent::Task(task) => &task.status,
        StreamEvent::StatusUpdate(update) => &update.status,
        _ => return None,
    };
    status.message.as_ref().map(Message::text_content)
}

/// The text of an artifact's text parts.
pub fn artifact_text(artifact: &Artifact) -> String {
    artifact
        .parts
        .iter()
        .filter_map(|part| match &part.content {
            PartContent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The artifacts an event carries: a snapshot's list or one update's artifact.
pub fn artifacts_of(event: &StreamEvent) -> Vec<&Artifact> {
    match event {
        StreamEvent::Task(task) => task.artifacts.iter().collect(),
        StreamEvent::ArtifactUpdate(update) => vec![&update.artifact],
        StreamEvent::StatusUpdate(_) | StreamEvent::Message(_) => Vec::new(),
    }
}

/// The outcome a terminal state stands for.
pub fn terminal_outcome(
    task_id: &str,
    state: TaskState,
    artifact: String,
    reason: Option<String>,
) -> Option<crate::report::Outcome> {
    use crate::report::Outcome;
    let task_id = task_id.to_string();
    let reason = || {
        reason
            .clone()
            .unwrap_or_else(|| format!("task ended {state}"))
    };
    match state {
        TaskState::Completed => Some(Outcome::Completed { task_id, artifact }),
        TaskState::Failed | TaskState::Rejected => Some(Outcome::Failed {
            task_id,
            reason: reason(),
        }),
        TaskState::Canceled => Some(Outcome::Canceled { task_id }),
        _ => None,
    }
}
