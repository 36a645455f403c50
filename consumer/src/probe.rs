//! The fixed lifecycle probe behind `meshsim probe`: measures what a real agent does with a
//! task's lifecycle and sets it beside what its Card claims.
//!
//! Steps: fetch the Card (and choose the binding from it, as every client does: the first
//! of its interfaces the client speaks); start a streamed task and read it to `input-required` (where the
//! agent gets there); watch whether the stream closes on its own (closing it from this side
//! if not); `tasks/get` to see whether the task outlived its stream; resubscribe; follow up
//! with the same `taskId`; get; cancel whatever is left.

use crate::client::{A2aClient, ClientConfig, ClientError, Connector, EventStream};
use crate::ids::IdSource;
use crate::profile::{FollowupBehaviour, ResubscribeBehaviour};
use crate::session;
use meshsim_protocol::{AgentCard, Binding, Dialect, Message, Role, StreamEvent, TaskState};
use serde::Serialize;
use std::time::Duration;

/// The states that end a turn: the task waits for the client, or is over.
const SETTLED: [TaskState; 6] = [
    TaskState::InputRequired,
    TaskState::AuthRequired,
    TaskState::Completed,
    TaskState::Failed,
    TaskState::Canceled,
    TaskState::Rejected,
];

/// What the probe sends and how long it watches.
#[derive(Debug, Clone)]
pub struct ProbeConfig {
    pub client: ClientConfig,
    /// The text of the task the probe starts.
    pub request: String,
    /// The answer it sends when asked for input.
    pub answer: String,
    /// How long a quiet stream is watched before the probe decides it stays open.
    pub settle: Duration,
    /// Seed of the probe's ids.
    pub seed: u64,
}

impl Default for ProbeConfig {
    fn default() -> Self {
        ProbeConfig {
            client: ClientConfig {
                idle_timeout: Duration::from_secs(30),
                ..ClientConfig::default()
            },
            request: "Summarise the attached report".to_string(),
            answer: "Plain text, please".to_string(),
            settle: Duration::from_secs(2),
            seed: 0,
        }
    }
}

/// What the Card claims, in the origin note's terms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CardClaims {
    pub name: String,
    pub version: String,
    pub dialect: Dialect,
    /// The bindings of the Card's interfaces that meshsim speaks, in the Card's order.
    pub bindings: Vec<Binding>,
    pub streaming: Option<bool>,
    pub push_notifications: Option<bool>,
    pub state_transition_history: Option<bool>,
}

impl CardClaims {
    fn of(card: &AgentCard, dialect: Dialect) -> Self {
        CardClaims {
            name: card.name.clone(),
            version: card.version.clone(),
            dialect,
            bindings: offered_bindings(card, dialect),
            streaming: card.capabilities.streaming,
            push_notifications: card.capabilities.push_notifications,
            state_transition_history: card.capabilities.state_transition_history,
        }
    }
}

/// Each binding of the Card's interfaces that meshsim speaks in `dialect`, once, in the
/// Card's order.
fn offered_bindings(card: &AgentCard, dialect: Dialect) -> Vec<Binding> {
    let mut bindings = Vec::new();
    for interface in &card.interfaces {
        if let Some(binding) = Binding::from_name(&interface.protocol_binding)
            && binding.exists_in(dialect)
            && !bindings.contains(&binding)
        {
            bindings.push(binding);
        }
    }
    bindings
}

/// A claim of the Card that the measured lifecycle contradicts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Contradiction {
    /// The claim, e.g. `capabilities.streaming = true`.
    pub claim: String,
    /// What the probe saw instead.
    pub observed: String,
}

/// The measured lifecycle profile beside the Card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProbeReport {
    pub url: String,
    pub card: CardClaims,
    /// The binding the probe spoke: the first of the Card's that the client speaks.
    pub binding: Binding,
    /// The task the probe started, if the agent named one.
    pub task_id: Option<String>,
    /// The states the first turn went through, in order.
    pub first_turn: Vec<TaskState>,
    pub reached_input_required: bool,
    pub stream_closes_on_input_required: Option<bool>,
    pub task_survives_stream_close: Option<bool>,
    pub resubscribe_after_input_required: Option<ResubscribeBehaviour>,
    pub followup_same_task: Option<FollowupBehaviour>,
    /// The states the follow-up's answer went through.
    pub followup_turn: Vec<TaskState>,
    /// `tasks/get` after the follow-up: the state, or the error.
    pub get_after_followup: Option<String>,
    /// `tasks/cancel` at the end: the state, or the error.
    pub cancel: Option<String>,
    pub contradictions: Vec<Contradiction>,
    /// Anything else worth telling: failures of single steps, why a step was skipped.
    pub notes: Vec<String>,
}

/// Runs the probe against the agent at `url`. Fails only when no Card can be read; every
/// later failure is part of the report.
pub async fn probe<C: Connector>(
    connector: C,
    url: &str,
    config: &ProbeConfig,
) -> Result<ProbeReport, ClientError> {
    let client = A2aClient::discover(connector, url, config.client).await?;
    let ids = IdSource::new(config.seed);
    let report = ProbeReport {
        url: url.to_string(),
        card: CardClaims::of(client.card(), client.dialect()),
        binding: client.binding(),
        task_id: None,
        first_turn: Vec::new(),
        reached_input_required: false,
        stream_closes_on_input_required: None,
        task_survives_stream_close: None,
        resubscribe_after_input_required: None,
        followup_same_task: None,
        followup_turn: Vec::new(),
        get_after_followup: None,
        cancel: None,
        contradictions: Vec::new(),
        notes: Vec::new(),
    };
    let mut run = Probe {
        client,
        ids,
        config,
        report,
    };
    run.steps().await;
    run.report.contradictions = contradictions(&run.report);
    Ok(run.report)
}

struct Probe<'a, C> {
    client: A2aClient<C>,
    ids: IdSource,
    config: &'a ProbeConfig,
    report: ProbeReport,
}

/// What reading a stream saw.
#[derive(Default)]
struct Seen {
    states: Vec<TaskState>,
    task_ids: Vec<String>,
    /// Whether the stream ended (closed by the peer) rather than being left open.
    closed: bool,
    error: Option<ClientError>,
}

impl<C: Connector> Probe<'_, C> {
    async fn steps(&mut self) {
        let Some(task_id) = self.first_turn().await else {
            return;
        };
        self.report.task_id = Some(task_id.clone());
        if !self.report.reached_input_required {
            let last = self
                .report
                .first_turn
                .last()
                .map_or("no state".to_string(), |s| s.to_string());
            self.report.notes.push(format!(
                "the agent never reached input-required (its first turn ended in {last}); the \
                 resumption steps were skipped"
            ));
            self.cancel(&task_id).await;
            return;
        }
        self.survival(&task_id).await;
        self.resubscribe(&task_id).await;
        self.follow_up(&task_id).await;
        match self.client.get_task(&task_id).await {
            Ok(task) => self.report.get_after_followup = Some(task.status.state.to_string()),
            Err(error) => self.report.get_after_followup = Some(describe(&error)),
        }
        self.cancel(&task_id).await;
    }

    /// Starts the task and reads it to input-required; returns its id.
    async fn first_turn(&mut self) -> Option<String> {
        let mut message =
            Message::text(Role::User, Some(self.ids.next("msg")), &self.config.request);
        if self.client.dialect() == Dialect::V0_1 {
            message.task_id = Some(self.ids.next("task"));
        }
        let chosen = message.task_id.clone();
        if self.report.card.streaming != Some(true) {
            self.report
                .notes
                .push("the Card does not offer streaming; the probe streams anyway".to_string());
        }
        let stream = match self.client.stream_message(message).await {
            Ok(stream) => stream,
            Err(error) => {
                self.report
                    .notes
                    .push(format!("streaming send failed: {error}"));
                return None;
            }
        };
        let seen = self.read_stream(stream, &SETTLED, true).await;
        self.report.first_turn = seen.states.clone();
        self.report.reached_input_required = seen.states.last() == Some(&TaskState::InputRequired);
        if self.report.reached_input_required {
            self.report.stream_closes_on_input_required = Some(seen.closed);
        }
        if let Some(error) = seen.error {
            self.report.notes.push(format!("first turn: {error}"));
        }
        chosen.or_else(|| seen.task_ids.first().cloned())
    }

    async fn survival(&mut self, task_id: &str) {
        meshsim_time::sleep(self.config.settle).await;
        match self.client.get_task(task_id).await {
            Ok(_) => self.report.task_survives_stream_close = Some(true),
            Err(error) if error.is_task_not_found() => {
                self.report.task_survives_stream_close = Some(false);
            }
            Err(error) => self
                .report
                .notes
                .push(format!("get after the stream closed: {error}")),
        }
    }

    async fn resubscribe(&mut self, task_id: &str) {
        let behaviour = match self.client.subscribe(task_id).await {
            Ok(stream) => {
                let seen = self.read_stream(stream, &SETTLED, false).await;
                match &seen.error {
                    Some(error) if seen.states.is_empty() => self.failed_resubscribe(error),
                    _ if seen.states.first() == Some(&TaskState::Submitted) => {
                        Some(ResubscribeBehaviour::Replays)
                    }
                    _ if seen.states.is_empty() => {
                        self.report
                            .notes
                            .push("resubscribe: the stream carried no state".to_string());
                        None
                    }
                    _ => Some(ResubscribeBehaviour::Resumes),
                }
            }
            Err(error) => self.failed_resubscribe(&error),
        };
        self.report.resubscribe_after_input_required = behaviour;
    }

    fn failed_resubscribe(&mut self, error: &ClientError) -> Option<ResubscribeBehaviour> {
        match error.code() {
            Some(_) if error.is_task_not_found() => Some(ResubscribeBehaviour::TaskNotFound),
            Some(code) => Some(ResubscribeBehaviour::Error(code.code())),
            None => {
                self.report.notes.push(format!("resubscribe: {error}"));
                None
            }
        }
    }

    async fn follow_up(&mut self, task_id: &str) {
        let mut message =
            Message::text(Role::User, Some(self.ids.next("msg")), &self.config.answer);
        message.task_id = Some(task_id.to_string());
        let stream = match self.client.stream_message(message).await {
            Ok(stream) => stream,
            Err(error) if error.is_task_not_found() => {
                self.report.followup_same_task = Some(FollowupBehaviour::TaskNotFound);
                return;
            }
            Err(error) => {
                self.report.notes.push(format!("follow-up: {error}"));
                return;
            }
        };
        let seen = self.read_stream(stream, &SETTLED, true).await;
        self.report.followup_turn = seen.states.clone();
        if let Some(error) = &seen.error {
            if error.is_task_not_found() && seen.states.is_empty() {
                self.report.followup_same_task = Some(FollowupBehaviour::TaskNotFound);
                return;
            }
            self.report.notes.push(format!("follow-up: {error}"));
        }
        let other_id = seen.task_ids.iter().find(|id| *id != task_id).cloned();
        let restarted = seen.states.contains(&TaskState::Submitted);
        let behaviour = if let Some(other) = other_id {
            self.report.notes.push(format!(
                "the follow-up was answered by another task, {other}"
            ));
            self.cancel_quietly(&other).await;
            Some(FollowupBehaviour::NewTask)
        } else if restarted && self.report.task_survives_stream_close == Some(false) {
            // The task was gone, so a `submitted` under its id is a new task reusing it.
            Some(FollowupBehaviour::NewTask)
        } else if restarted {
            Some(FollowupBehaviour::ResumesWithDuplicateSubmitted)
        } else if seen.states.is_empty() {
            self.report
                .notes
                .push("the follow-up produced no state".to_string());
            None
        } else {
            Some(FollowupBehaviour::Resumes)
        };
        self.report.followup_same_task = behaviour;
    }

    async fn cancel(&mut self, task_id: &str) {
        self.report.cancel = Some(match self.client.cancel_task(task_id).await {
            Ok(task) => task.status.state.to_string(),
            Err(error) => describe(&error),
        });
    }

    /// Cancels a task the probe did not mean to start; one already gone is fine.
    async fn cancel_quietly(&mut self, task_id: &str) {
        match self.client.cancel_task(task_id).await {
            Ok(_) => {}
            Err(error) if error.is_task_not_found() => {}
            Err(error) => self
                .report
                .notes
                .push(format!("cancel of {task_id}: {error}")),
        }
    }

    /// Reads a stream. `patient`: wait (up to the client's idle timeout) for a state in
    /// `ends` carried by an update (a snapshot opening a turn shows the old state), then
    /// watch for the settle time whether the stream closes by itself. Not `patient`: read
    /// until the stream closes or stays quiet for the settle time.
    async fn read_stream(
        &self,
        mut stream: EventStream,
        ends: &[TaskState],
        patient: bool,
    ) -> Seen {
        let mut seen = Seen::default();
        let mut reached = false;
        loop {
            let next = if reached || !patient {
                match meshsim_time::timeout(self.config.settle, stream.next()).await {
                    Ok(next) => next,
                    Err(_) => return seen,
                }
            } else {
                stream.next().await
            };
            let event = match next {
                None => {
                    seen.closed = true;
                    return seen;
                }
                Some(Err(error)) => {
                    seen.closed = !matches!(error, ClientError::Timeout { .. });
                    seen.error = Some(error);
                    return seen;
                }
                Some(Ok(event)) => event,
            };
            if let Some(id) = event.task_id()
                && !seen.task_ids.iter().any(|known| known == id)
            {
                seen.task_ids.push(id.to_string());
            }
            if let Some((state, _, _)) = session::status_of(&event) {
                seen.states.push(state);
                reached |= ends.contains(&state) && !matches!(event, StreamEvent::Task(_));
            }
        }
    }
}

fn describe(error: &ClientError) -> String {
    match error.code() {
        Some(code) => format!("error:{}", code.code()),
        None => format!("failed: {error}"),
    }
}

/// The Card's claims that the measured profile contradicts.
pub fn contradictions(report: &ProbeReport) -> Vec<Contradiction> {
    let mut found = Vec::new();
    let streaming = report.card.streaming == Some(true);
    let history = report.card.state_transition_history == Some(true);
    let claim_streaming = "capabilities.streaming = true".to_string();
    if streaming && report.task_survives_stream_close == Some(false) {
        found.push(Contradiction {
            claim: claim_streaming.clone(),
            observed: "the task is gone once its stream closes: it cannot be resumed".to_string(),
        });
    }
    if streaming
        && let Some(behaviour) = report.resubscribe_after_input_required
        && behaviour != ResubscribeBehaviour::Resumes
    {
        found.push(Contradiction {
            claim: claim_streaming.clone(),
            observed: format!(
                "resubscribe after input-required {}",
                match behaviour {
                    ResubscribeBehaviour::Replays =>
                        "replays every event from the start".to_string(),
                    ResubscribeBehaviour::TaskNotFound => "answers -32001 TaskNotFound".to_string(),
                    other => format!("fails ({other})"),
                }
            ),
        });
    }
    if streaming
        && let Some(behaviour) = report.followup_same_task
        && behaviour != FollowupBehaviour::Resumes
    {
        found.push(Contradiction {
            claim: claim_streaming,
            observed: format!(
                "a follow-up with the same taskId {}",
                match behaviour {
                    FollowupBehaviour::ResumesWithDuplicateSubmitted =>
                        "resumes only after a second `submitted`",
                    FollowupBehaviour::NewTask => "starts a new task",
                    _ => "answers -32001 TaskNotFound",
                }
            ),
        });
    }
    if history {
        let claim = "capabilities.stateTransitionHistory = true".to_string();
        if report.resubscribe_after_input_required == Some(ResubscribeBehaviour::Replays) {
            found.push(Contradiction {
                claim: claim.clone(),
                observed: "history is replayed as if live, not served as history".to_string(),
            });
        }
        if report.followup_same_task == Some(FollowupBehaviour::ResumesWithDuplicateSubmitted) {
            found.push(Contradiction {
                claim,
                observed: "the transition history goes back to `submitted` mid-task".to_string(),
            });
        }
    }
    found
}
