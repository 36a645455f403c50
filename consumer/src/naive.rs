//! The naive consumer: plans the lifecycle from the Agent Card, as the origin incident's failure mode
//! does. The Card says `streaming: true`, so after a stream closes it resubscribes and
//! applies every state change it receives, in arrival order, without dedup or legality
//! checks; it answers a question with a follow-up under the same task id and believes that
//! whatever comes back is that task.

use crate::client::{ClientConfig, ClientError, Connector, EventStream};
use crate::ids::IdSource;
use crate::job::{BoxFuture, Consumer, Job};
use crate::ledger::{EventKind, EventRef};
use crate::recorder::JobRecorder;
use crate::report::{AnomalyKind, JobReport, Outcome};
use crate::session::{self, Session};
use meshsim_protocol::{RpcResult, StreamEvent, TaskState};
use std::time::Duration;

/// The consumer the origin note warns about.
pub struct NaiveConsumer<C> {
    connector: C,
    config: ClientConfig,
    ids: IdSource,
    /// Follow-ups and resubscribes before it gives up.
    max_turns: u32,
    /// Pause between polls of a task when the Card does not offer streaming.
    poll_interval: Duration,
}

impl<C: Connector> NaiveConsumer<C> {
    /// A naive consumer over `connector`, drawing ids from `seed`.
    pub fn new(connector: C, config: ClientConfig, seed: u64) -> Self {
        NaiveConsumer {
            connector,
            config,
            ids: IdSource::new(seed),
            max_turns: 4,
            poll_interval: Duration::from_millis(200),
        }
    }
}

impl<C: Connector> Consumer for NaiveConsumer<C> {
    fn name(&self) -> &str {
        "naive"
    }

    fn run(&self, job: Job) -> BoxFuture<'_, JobReport> {
        Box::pin(async move {
            let mut recorder = JobRecorder::new(&job.name, self.name(), &job.peer);
            let outcome =
                match meshsim_time::timeout(job.deadlines.job, self.run_job(&job, &mut recorder))
                    .await
                {
                    Ok(outcome) => outcome,
                    Err(_) => Outcome::GaveUp {
                        reason: "job deadline passed".to_string(),
                    },
                };
            recorder.finish(outcome, None)
        })
    }
}

/// The naive consumer's belief about its one task.
#[derive(Default)]
struct Belief {
    task_id: Option<String>,
    context_id: Option<String>,
    state: Option<TaskState>,
    artifacts: Vec<String>,
    status_text: Option<String>,
}

impl<C: Connector> NaiveConsumer<C> {
    async fn run_job(&self, job: &Job, recorder: &mut JobRecorder) -> Outcome {
        let client = match crate::client::A2aClient::discover(
            self.connector.clone(),
            &job.peer,
            self.config,
        )
        .await
        {
            Ok(client) => client,
            Err(error) => {
                return Outcome::GaveUp {
                    reason: format!("discovery: {error}"),
                };
            }
        };
        let streaming = client.card().capabilities.streaming == Some(true);
        let mut session = Session::new(client, recorder, job, &self.ids);
        let mut belief = Belief::default();
        let message = session.new_task_message(&job.request);
        belief.task_id = message.task_id.clone();
        let first = if streaming {
            session.client.stream_message(message).await.map(Some)
        } else {
            let result = session.client.send_message(message).await;
            result
                .map(|result| apply_result(&mut session, &mut belief, result))
                .map(|()| None)
        };
        match first {
            Ok(Some(stream)) => read(&mut session, &mut belief, stream, Purpose::Watch).await,
            Ok(None) => {}
            Err(error) => {
                return Outcome::GaveUp {
                    reason: format!("send: {error}"),
                };
            }
        }
        for _ in 0..self.max_turns {
            if let Some(outcome) = outcome_of(&belief) {
                return outcome;
            }
            let Some(task_id) = belief.task_id.clone() else {
                return Outcome::GaveUp {
                    reason: "the peer never named a task".to_string(),
                };
            };
            if streaming {
                // The Card promised streaming, so the stream is where the task lives.
                session
                    .recorder
                    .decision(&task_id, "resubscribe", "the Card says streaming");
                match session.client.subscribe(&task_id).await {
                    Ok(stream) => read(&mut session, &mut belief, stream, Purpose::Watch).await,
                    Err(error) => note_error(&mut session, &task_id, &error),
                }
                if let Some(outcome) = outcome_of(&belief) {
                    return outcome;
                }
            }
            if belief.state.is_some_and(TaskState::is_interrupted) && job.cancel_at_input_required {
                session
                    .recorder
                    .decision(&task_id, "cancel", "the job cancels at input-required");
                match session.client.cancel_task(&task_id).await {
                    Ok(task) => apply_result(&mut session, &mut belief, RpcResult::Task(task)),
                    Err(error) => note_error(&mut session, &task_id, &error),
                }
            } else if belief.state.is_some_and(TaskState::is_interrupted) {
                session
                    .recorder
                    .decision(&task_id, "follow-up", "answer with the same task id");
                let context = belief.context_id.clone();
                let message = session.follow_up_message(&task_id, context.as_deref(), &job.answer);
                if streaming {
                    match session.client.stream_message(message).await {
                        Ok(stream) => {
                            read(&mut session, &mut belief, stream, Purpose::Answer).await
                        }
                        Err(error) => note_error(&mut session, &task_id, &error),
                    }
                } else {
                    match session.client.send_message(message).await {
                        Ok(result) => apply_result(&mut session, &mut belief, result),
                        Err(error) => note_error(&mut session, &task_id, &error),
                    }
                }
            } else if !streaming {
                meshsim_time::sleep(self.poll_interval).await;
                match session.client.get_task(&task_id).await {
                    Ok(task) => {
                        apply_result(&mut session, &mut belief, RpcResult::Task(task));
                    }
                    Err(error) => note_error(&mut session, &task_id, &error),
                }
            }
        }
        outcome_of(&belief).unwrap_or_else(|| Outcome::GaveUp {
            reason: format!("no outcome after {} turns", self.max_turns),
        })
    }
}

/// Why a stream was opened.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Purpose {
    /// To follow the task (first send, resubscribe).
    Watch,
    /// To see the task resume after an answer: an event repeating the pending question
    /// (some runtimes open every turn with the task as it stands) does not end the read.
    Answer,
}

/// Reads a stream until it ends or reaches a state that waits for the client or ends the
/// task, applying every event.
async fn read<C: Connector>(
    session: &mut Session<'_, C>,
    belief: &mut Belief,
    mut stream: EventStream,
    purpose: Purpose,
) {
    let connection = session.next_connection();
    let mut index = 0;
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => {
                let at = EventRef {
                    connection,
                    index,
                    kind: kind_of(&event),
                };
                index += 1;
                let before = belief.state;
                let settles = apply(session, belief, &event, at);
                let repeat = purpose == Purpose::Answer && belief.state == before;
                if settles && !repeat {
                    break;
                }
            }
            Err(error) => {
                let task = belief.task_id.clone().unwrap_or_default();
                note_error(session, &task, &error);
                break;
            }
        }
    }
}

/// Applies an event to the belief; returns whether it ends what the consumer reads.
fn apply<C: Connector>(
    session: &mut Session<'_, C>,
    belief: &mut Belief,
    event: &StreamEvent,
    at: EventRef,
) -> bool {
    // Whatever task the event names, the naive consumer takes it for its own.
    if belief.task_id.is_none() {
        belief.task_id = event.task_id().map(str::to_string);
    }
    if let Some(context) = session::context_of(event) {
        belief.context_id = Some(context.to_string());
    }
    let task_id = belief.task_id.clone().unwrap_or_default();
    for artifact in session::artifacts_of(event) {
        belief.artifacts.push(session::artifact_text(artifact));
    }
    let Some((state, timestamp, _)) = session::status_of(event) else {
        return false;
    };
    if let Some(text) = session::status_text(event) {
        belief.status_text = Some(text);
    }
    if belief.state != Some(state) {
        session
            .recorder
            .applied(&task_id, belief.state, state, at, timestamp);
        belief.state = Some(state);
    }
    state.is_interrupted() || state.is_terminal()
}

fn apply_result<C: Connector>(
    session: &mut Session<'_, C>,
    belief: &mut Belief,
    result: RpcResult,
) {
    let connection = session.next_connection();
    let at = EventRef {
        connection,
        index: 0,
        kind: EventKind::Result,
    };
    match result {
        RpcResult::Task(task) => {
            apply(session, belief, &StreamEvent::Task(task), at);
        }
        RpcResult::Event(event) => {
            apply(session, belief, &event, at);
        }
        RpcResult::Message(_) | RpcResult::TaskList(_) => {
            let task = belief.task_id.clone().unwrap_or_default();
            session.recorder.anomaly(
                &task,
                AnomalyKind::Protocol,
                "a send answered without a task",
            );
        }
    }
}

fn note_error<C: Connector>(session: &mut Session<'_, C>, task_id: &str, error: &ClientError) {
    let kind = if error.is_task_not_found() {
        AnomalyKind::TaskNotFound
    } else {
        AnomalyKind::Protocol
    };
    session.recorder.anomaly(task_id, kind, error.to_string());
}

fn kind_of(event: &StreamEvent) -> EventKind {
    match event {
        StreamEvent::Task(_) => EventKind::Snapshot,
        _ => EventKind::StatusUpdate,
    }
}

fn outcome_of(belief: &Belief) -> Option<Outcome> {
    session::terminal_outcome(
        belief.task_id.as_deref().unwrap_or_default(),
        belief.state?,
        belief.artifacts.concat(),
        belief.status_text.clone(),
    )
}
