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
    let report = ProbeReport::unmeasured(
        without_credentials(url),
        CardClaims::of(client.card(), client.dialect(), client.tenant()),
        client.binding(),
    );
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
    /// Whether the peer ended the stream (`Some(true)`) or left it open past the watch
    /// (`Some(false)`); `None` when the read ended otherwise (a cut connection, a malformed
    /// or error event, the bound), which says nothing of how the peer closes streams.
    closed: Option<bool>,
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
            Ok(task) if task.id != task_id => self.report.notes.push(format!(
                "get after the follow-up: asked for {task_id}, answered with {}",
                task.id
            )),
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
            self.report.stream_closes_on_input_required = seen.closed;
        }
        if let Some(error) = seen.error {
            self.report.notes.push(format!("first turn: {error}"));
        }
        let task_id = chosen.or_else(|| seen.task_ids.first().cloned())?;
        let others = other_tasks(&seen.task_ids, &task_id);
        if !others.is_empty() {
            self.report.notes.push(format!(
                "the first turn of {task_id} also carried events of another task: {others}; the \
                 probe follows {task_id}"
            ));
        }
        Some(task_id)
    }

    async fn survival(&mut self, task_id: &str) {
        meshsim_time::sleep(self.config.settle).await;
        match self.client.get_task(task_id).await {
            Ok(task) if task.id != task_id => self.report.notes.push(format!(
                "get after the stream closed: asked for {task_id}, answered with {}",
                task.id
            )),
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
                let others = other_tasks(&seen.task_ids, task_id);
                match &seen.error {
                    Some(error) if seen.states.is_empty() => self.failed_resubscribe(error),
                    // Neither is a way of resuming a subscription the profile knows.
                    Some(error) => {
                        self.report.notes.push(format!(
                            "resubscribe: the stream carried {} and then failed: {error}",
                            states_seen(&seen.states)
                        ));
                        None
                    }
                    _ if !others.is_empty() => {
                        self.report.notes.push(format!(
                            "resubscribe to {task_id} carried events of another task: {others}"
                        ));
                        None
                    }
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

    /// Reads a stream, for at most the client's idle timeout in all (an agent's keep-alive
    /// comments, a progress heartbeat or a body dripping a byte at a time never end a read
    /// by themselves). `patient`: wait for a state that ends a turn (the task waits for the
    /// client, or is over) carried by an update (a snapshot opening a turn shows the old
    /// state), then watch for the settle time whether the stream closes by itself. Not
    /// `patient`: read until the stream closes or stays quiet for the settle time.
    async fn read_stream(&self, mut stream: EventStream, patient: bool) -> Seen {
        let mut seen = Seen::default();
        let mut reached = false;
        let bound = self.config.client.idle_timeout;
        let started = meshsim_time::Instant::now(); // wall-clock-ok: tokio's, simulated in a run
        let over = started + bound;
        loop {
            let watching = reached || !patient;
            let now = meshsim_time::Instant::now(); // wall-clock-ok: tokio's, simulated in a run
            let quiet_enough = now + self.config.settle;
            let until = if watching {
                over.min(quiet_enough)
            } else {
                over
            };
            let next = match meshsim_time::timeout_at(until, stream.next()).await {
                Ok(next) => next,
                Err(_) if watching => {
                    seen.closed = Some(false);
                    return seen;
                }
                Err(_) => {
                    seen.error = Some(ClientError::Timeout {
                        what: "waiting for a state that ends the turn",
                        after: bound,
                    });
                    return seen;
                }
            };
            let event = match next {
                None => {
                    seen.closed = Some(true);
                    return seen;
                }
                Some(Err(error)) => {
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

/// `url` with any credentials (`user:password@`) in its authority left out: the report and
/// the personality written from it are shared, and the client never sends them either.
fn without_credentials(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((_credentials, host)) => format!("{scheme}://{host}{path}"),
        None => url.to_string(),
    }
}

/// The ids among `ids` other than `task_id`, for a note; empty when there are none.
fn other_tasks(ids: &[String], task_id: &str) -> String {
    ids.iter()
        .filter(|id| *id != task_id)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A turn's states for a note.
fn states_seen(states: &[TaskState]) -> String {
    states
        .iter()
        .map(|state| state.name())
        .collect::<Vec<_>>()
        .join(" -> ")
}

fn describe(error: &ClientError) -> String {
    match error.code() {
        Some(code) => format!("error:{}", code.code()),
        None => format!("failed: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::without_credentials;

    #[test]
    fn credentials_are_left_out_of_the_reported_url() {
        for (typed, reported) in [
            ("http://alice:pw@agent:9000/a2a", "http://agent:9000/a2a"),
            ("http://bob@agent/", "http://agent/"),
            ("http://agent:9000/a@b", "http://agent:9000/a@b"),
            ("http://agent:9000", "http://agent:9000"),
            ("not a url", "not a url"),
        ] {
            assert_eq!(without_credentials(typed), reported, "{typed}");
        }
    }
}
