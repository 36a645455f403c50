//! The probe's walk through one task's lifecycle against a real agent: the streamed first turn
//! to a settled state, whether the task outlives its stream, resubscribe, the same-id
//! follow-up, and the cancel of whatever is left.

use super::contradictions::contradictions;
use super::report::{CardClaims, ProbeConfig, ProbeReport};
use crate::client::{A2aClient, ClientError, Connector, EventStream};
use crate::ids::IdSource;
use crate::profile::{FollowupBehaviour, ResubscribeBehaviour};
use crate::session;
use meshsim_protocol::{Dialect, Message, Role, StreamEvent, TaskState};

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
        endpoint_answered: false,
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
                self.report.endpoint_answered = !matches!(
                    error,
                    ClientError::Connect { .. }
                        | ClientError::Transport(_)
                        | ClientError::Timeout { .. }
                );
                self.report
                    .notes
                    .push(format!("streaming send failed: {error}"));
                return None;
            }
        };
        self.report.endpoint_answered = true;
        let seen = self.read_stream(stream, true).await;
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
                let seen = self.read_stream(stream, false).await;
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
        let seen = self.read_stream(stream, true).await;
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

    /// Reads a stream. `patient`: wait (up to the client's idle timeout for each event,
    /// keep-alive comments or not) for a state that
    /// ends a turn (the task waits for the client, or is over) carried by an update (a
    /// snapshot opening a turn shows the old state), then watch for the settle time whether
    /// the stream closes by itself. Not `patient`: read until the stream closes or stays
    /// quiet for the settle time.
    async fn read_stream(&self, mut stream: EventStream, patient: bool) -> Seen {
        let mut seen = Seen::default();
        let mut reached = false;
        loop {
            // The stream's own idle timeout counts bytes, and an agent's keep-alive comments
            // are bytes: the probe bounds its wait for the next event itself.
            let watching = reached || !patient;
            let wait = if watching {
                self.config.settle
            } else {
                self.config.client.idle_timeout
            };
            let next = match meshsim_time::timeout(wait, stream.next()).await {
                Ok(next) => next,
                Err(_) if watching => return seen,
                Err(_) => {
                    seen.error = Some(ClientError::Timeout {
                        what: "stream event",
                        after: wait,
                    });
                    return seen;
                }
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
                reached |= (state.is_interrupted() || state.is_terminal())
                    && !matches!(event, StreamEvent::Task(_));
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
