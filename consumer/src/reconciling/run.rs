//! One job of the reconciling consumer: dispatching a task, following it to an outcome, and
//! starting over when the peer loses it. Answering its questions is in `answer`, following
//! it when no stream carries it in `reattach`, and v0.1's same-id checks in `ours`.

use super::config::ReconcilingConfig;
use super::peer_clock::PeerClock;
use super::read_report::{ReadEnd, ReadReport};
use super::tracked::{Tracked, slot_id};
use crate::client::ClientError;
use crate::client::Connector;
use crate::ledger::ConnectionKind;
use crate::profile::{Observed, PeerLifecycleProfile, ProfileCache, ProfileKey};
use crate::report::{AnomalyKind, CancelResult, Outcome};
use crate::session::{self, Session};
use meshsim_protocol::{
    Dialect, Message, Method, Request, RpcResult, SendConfiguration, SendMessageParams,
    StreamEvent, TaskState,
};
use std::time::Duration;
use tokio::time::Instant;

/// How one dispatch ended.
pub(super) enum DispatchEnd {
    Done(Outcome),
    /// A task was started and the peer lost it (it answered -32001 for it): nothing of it
    /// runs on. The peer may be restarting: start over after a pause.
    Lost(String),
    /// A task was started and is given up while the peer may still have it (canceled
    /// where it does): the peer replaced it or refused its follow-up.
    Redispatch(String),
    /// A task sat in a state past the job's deadline for it and is given up (canceled where
    /// the peer still has it). The deadline was the wait: start over at once.
    Stuck(String),
    /// No task came of it (the send failed and nothing was found): try again later.
    Retry(String),
}

/// How many times a send whose answer was lost is looked for (by id or context), the pause
/// before each growing as between dispatches, before the task is taken for unfindable.
const SEARCHES: u32 = 8;

/// One job's state: the session and the peer's profile key.
pub(super) struct Run<'a, C> {
    pub(super) session: Session<'a, C>,
    pub(super) profiles: &'a ProfileCache,
    pub(super) key: ProfileKey,
    pub(super) config: ReconcilingConfig,
    /// The peer's stamps on the consumer's clock, learned from this job's arrivals.
    pub(super) peer_clock: PeerClock,
}

impl<C: Connector> Run<'_, C> {
    pub(super) fn profile(&self) -> PeerLifecycleProfile {
        self.profiles.get(&self.key)
    }

    pub(super) fn learn(&mut self, observed: Observed) {
        let before = self.profile();
        let profile = self.profiles.record(&self.key, observed);
        for (field, value) in profile.changed_since(&before) {
            self.session.recorder.learned(&self.key, field, &value);
        }
        if observed.is_anomaly() {
            self.session.recorder.decision(
                "",
                "profile-refresh",
                &format!("{observed:?} ({} refreshes)", profile.refreshes),
            );
        }
    }

    /// Whether to open SSE streams: the Card must offer them, and the peer must not be
    /// known to lose tasks when a stream closes.
    pub(super) fn use_streams(&self) -> bool {
        self.session.client.card().capabilities.streaming == Some(true)
            && self.profile().streams_keep_tasks() != Some(false)
    }

    /// Sends without a stream, asking the peer to answer at once (v0.3 `blocking: false`,
    /// v1.0 `returnImmediately`; v0.1 cannot ask) so that a proxy's route timeout does not
    /// cut the answer that names the task; the task is then polled.
    pub(super) async fn send_without_stream(
        &self,
        message: Message,
    ) -> Result<RpcResult, ClientError> {
        let configuration =
            (self.session.client.dialect() != Dialect::V0_1).then(|| SendConfiguration {
                return_immediately: Some(true),
                ..SendConfiguration::default()
            });
        let params = SendMessageParams {
            message,
            configuration,
            metadata: None,
        };
        self.session.client.call(Request::SendMessage(params)).await
    }

    /// Starts a new task and drives it to an outcome or to a reason to start over.
    pub(super) async fn dispatch(&mut self) -> DispatchEnd {
        let streamed = self.use_streams();
        let message = self.session.new_task_message(&self.session.job.request);
        let context = message.context_id.clone();
        let mut task = message.task_id.clone().map(|id| Tracked::new(id, streamed));
        self.session.recorder.sending(message.task_id.as_deref());
        let sent = Instant::now();
        let first = if streamed {
            match self.session.client.stream_message(message).await {
                Ok(stream) => Ok(self
                    .read(stream, ConnectionKind::Turn, &mut task, streamed)
                    .await),
                Err(error) => Err(error),
            }
        } else {
            match self.send_without_stream(message).await {
                Ok(result) => Ok(self.observe_result(result, ConnectionKind::Turn, &mut task)),
                Err(error) => Err(error),
            }
        };
        let report = match first {
            Ok(report) => report,
            Err(error) => ReadReport::ended(ReadEnd::Failed(error)),
        };
        let unanswered = matches!(report.end, ReadEnd::Failed(_) | ReadEnd::Closed);
        if unanswered
            && task
                .as_ref()
                .is_none_or(|task| task.ledger.current().is_none())
        {
            // The send got no usable answer: the peer may have created the task anyway.
            let why = match &report.end {
                ReadEnd::Failed(error) => format!("send failed: {error}"),
                _ => "the peer answered without naming a task".to_string(),
            };
            // Unless the send never left: no connection, no request, no task to look for.
            if matches!(report.end, ReadEnd::Failed(ClientError::Connect { .. })) {
                return DispatchEnd::Retry(why);
            }
            let chosen = task.map(|task| task.task_id);
            match self.find_unanswered(chosen, context, streamed, &why).await {
                Some(mut found) => {
                    found.submitted_since(sent);
                    task = Some(found);
                }
                None => return DispatchEnd::Retry(why),
            }
        } else if let Some(end) = self.after_read(&mut task, report).await {
            return end;
        }
        self.drive(task).await
    }

    /// Looks for the task a send created though its answer was lost: by the id the client
    /// chose (v0.1), or by the context it chose (v1.0's `ListTasks`). Transport failures are
    /// retried with backoff; a peer that does not know the task has none to find.
    async fn find_unanswered(
        &mut self,
        chosen: Option<String>,
        context: Option<String>,
        streamed: bool,
        why: &str,
    ) -> Option<Tracked> {
        let listable = self.session.client.supports(Method::ListTasks);
        for attempt in 0..SEARCHES {
            if attempt > 0 {
                meshsim_time::sleep(self.config.backoff(attempt)).await;
            }
            let found = match (&chosen, &context) {
                (Some(id), _) => self
                    .session
                    .client
                    .get_task(id)
                    .await
                    .map(|task| vec![task]),
                (None, Some(context)) if listable => self.session.client.list_tasks(context).await,
                _ => return None,
            };
            let tasks = match found {
                Ok(tasks) => tasks,
                Err(error) if error.code().is_some() => return None,
                Err(_) => continue,
            };
            let mut tasks = tasks.into_iter();
            let task = tasks.next()?;
            self.session.recorder.decision(&task.id, "recover", why);
            for extra in tasks {
                self.session.recorder.touched(&extra.id);
                self.session
                    .abandon(&extra.id, "a duplicate of the recovered task")
                    .await;
            }
            let mut slot = Some(Tracked::new(task.id.clone(), streamed));
            let report =
                self.observe_result(RpcResult::Task(task), ConnectionKind::Probe, &mut slot);
            return match self.after_read(&mut slot, report).await {
                Some(_) => None,
                None => slot,
            };
        }
        if let Some(id) = chosen {
            self.session.recorder.touched(&id);
            self.session.abandon(&id, why).await;
        }
        None
    }

    /// Follows the task until it ends, asking it to resume where it waits for input.
    async fn drive(&mut self, mut slot: Option<Tracked>) -> DispatchEnd {
        let (mut turns, mut tried, mut failures) = (0, false, 0);
        loop {
            let Some(task) = slot.as_ref() else {
                return DispatchEnd::Redispatch("no task to follow".to_string());
            };
            let current = task.ledger.current();
            if let Some(state) = current.filter(|state| state.is_terminal()) {
                return self.finish(&mut slot, state).await;
            }
            if let Some((at, state, limit)) = task.deadline(&self.session.job.deadlines)
                && Instant::now() >= at
            {
                return self.deadline(&slot, state, limit).await;
            }
            let waiting = current.is_some_and(TaskState::is_interrupted);
            let report = if waiting && task.answer_pending(self.session.job.deadlines.working) {
                // The answer was taken; the peer has not moved on yet.
                self.poll(&mut slot).await
            } else if waiting {
                if turns == self.config.max_turns {
                    let id = task.task_id.clone();
                    self.session.abandon(&id, "too many questions").await;
                    let reason = format!("still asking after {turns} answers");
                    return DispatchEnd::Done(Outcome::GaveUp { reason });
                }
                let before = task.answered.clone();
                let report = match self.answer(&mut slot, tried).await {
                    Ok(report) => report,
                    Err(end) => return end,
                };
                tried = true;
                // Only answers the peer took count as turns.
                if slot.as_ref().is_some_and(|task| task.answered != before) {
                    turns += 1;
                }
                report
            } else {
                self.reattach(&mut slot).await
            };
            let broke = matches!(&report.end, ReadEnd::Failed(error) if error.code().is_none());
            if let Some(end) = self.after_read(&mut slot, report).await {
                return end;
            }
            // The peer is unreachable or cut us off: give it time before the next call, but
            // no longer than the task's deadline, which the loop's top then acts on.
            failures = if broke { failures + 1 } else { 0 };
            if failures > 0 {
                let wake = Instant::now() + self.config.backoff(failures);
                let deadline = slot
                    .as_ref()
                    .and_then(|task| task.deadline(&self.session.job.deadlines));
                meshsim_time::sleep_until(deadline.map_or(wake, |(at, ..)| at.min(wake))).await;
            }
        }
    }

    /// The task ended in `state`: the job's outcome, once the task is confirmed the job's.
    async fn finish(&mut self, slot: &mut Option<Tracked>, state: TaskState) -> DispatchEnd {
        let id = slot_id(slot);
        let events_unread = slot.as_ref().is_some_and(|task| task.events_unread);
        let fetched = match self.confirm_ours(&id, events_unread).await {
            Ok(fetched) => fetched,
            Err(end) => return end,
        };
        let Some(task) = slot.as_mut() else {
            return DispatchEnd::Redispatch("no task to follow".to_string());
        };
        // The whole task has every artifact chunk: a v0.1 resubscribe carries only the
        // events after it, so a chunk made while no stream was open is in no event read.
        if let Some(fetched) = fetched {
            task.absorb(&StreamEvent::Task(fetched));
        }
        match outcome(task, state) {
            Some(outcome) => DispatchEnd::Done(outcome),
            None => DispatchEnd::Redispatch(format!("task {id} ended {state} with no outcome")),
        }
    }

    /// Acts on how a connection ended; `None` to go on following the task.
    async fn after_read(
        &mut self,
        slot: &mut Option<Tracked>,
        report: ReadReport,
    ) -> Option<DispatchEnd> {
        let id = slot_id(slot);
        match report.end {
            ReadEnd::Deadline(state, limit) => Some(self.deadline(slot, state, limit).await),
            ReadEnd::ForeignTask(other) => {
                self.session.recorder.noticed(&other);
                self.session.recorder.anomaly(
                    &id,
                    AnomalyKind::NewTaskOnFollowup,
                    format!("the peer answered about task {other}"),
                );
                self.session
                    .abandon(&other, "started by the peer in place of a follow-up")
                    .await;
                self.session
                    .abandon(&id, "the peer replaced it with another task")
                    .await;
                Some(DispatchEnd::Redispatch(
                    "the peer started a new task".to_string(),
                ))
            }
            ReadEnd::Replaced => Some(self.replaced(&id).await),
            ReadEnd::Failed(error) if error.is_task_not_found() => {
                if slot.as_ref().is_some_and(|task| task.broken) {
                    self.learn(Observed::TaskSurvivedBrokenStream(false));
                }
                Some(self.task_lost(&id, &error))
            }
            ReadEnd::Failed(error) => {
                self.session
                    .recorder
                    .anomaly(&id, AnomalyKind::Protocol, error.to_string());
                if let Some(task) = slot.as_mut() {
                    task.broken |= task.streamed;
                }
                None
            }
            ReadEnd::Closed | ReadEnd::Settled => None,
        }
    }

    /// The peer no longer knows the task: nothing left to cancel; start over.
    pub(super) fn task_lost(&mut self, task_id: &str, error: &ClientError) -> DispatchEnd {
        self.session
            .recorder
            .anomaly(task_id, AnomalyKind::TaskNotFound, error.to_string());
        self.session
            .recorder
            .abandoned(task_id, "the peer lost the task", CancelResult::TaskGone);
        DispatchEnd::Lost(format!("task {task_id} lost by the peer"))
    }

    /// The task in `slot` sat in `state` past its `limit`: cancel it and start over. A
    /// streamed task the cancel finds gone was lost with its stream, broken on the way or
    /// dropped by the consumer at the deadline (a peer that reaps on close reaps it then),
    /// or by a crash or a timer, which look the same: as when a read finds it gone, the
    /// next dispatch polls instead of streaming.
    pub(super) async fn deadline(
        &mut self,
        slot: &Option<Tracked>,
        state: TaskState,
        limit: Duration,
    ) -> DispatchEnd {
        let task_id = slot_id(slot);
        self.session.recorder.deadline(&task_id, state, limit);
        // Before the peer names the task there is nothing to cancel by id.
        if !task_id.is_empty() {
            let cancel = self
                .session
                .abandon(&task_id, &format!("{state} deadline passed"))
                .await;
            if cancel == CancelResult::TaskGone && slot.as_ref().is_some_and(|task| task.streamed) {
                self.learn(Observed::TaskSurvivedBrokenStream(false));
            }
        }
        DispatchEnd::Stuck(format!("task {task_id} sat in {state} past {limit:?}"))
    }
}

fn outcome(task: &Tracked, state: TaskState) -> Option<Outcome> {
    session::terminal_outcome(
        &task.task_id,
        state,
        task.artifact_text(),
        task.status_text.clone(),
    )
}
