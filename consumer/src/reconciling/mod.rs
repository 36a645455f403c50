//! The reconciling consumer: the seed's operational invariant, done right.
//!
//! - It keeps a per-peer [`PeerLifecycleProfile`] keyed by (resolved host, Card `version`),
//!   learned from what it observes and refreshed on every -32001, duplicate `submitted` or
//!   replay.
//! - Every reported state goes through a [`crate::ledger::TaskLedger`]: replays, repeats and
//!   re-stamped or unstamped duplicates are not applied twice, backward moves and anything
//!   after a terminal state are rejected, and the resumption `input-required → working` is
//!   accepted.
//! - `input-required` ends what it reads from a connection. Before answering it confirms the
//!   task still exists with `tasks/get` unless the profile already says tasks outlive their
//!   stream; the answer goes with the same task id; -32001 there (or a new task in reply)
//!   means re-dispatch from scratch under a new task, after canceling the old one if the
//!   peer still has it. Where tasks do not outlive their stream, it stops streaming to that
//!   peer: the Card's `streaming` says whether SSE works, not whether tasks survive it.
//! - It owns deadlines for `submitted` and `working`: on expiry it cancels and re-dispatches.

mod tracked;

use crate::client::{A2aClient, ClientConfig, ClientError, Connector, EventStream};
use crate::ids::IdSource;
use crate::job::{BoxFuture, Consumer, Job};
use crate::ledger::{ConnectionKind, EventKind, EventRef, Observation, Verdict};
use crate::profile::{
    FollowupBehaviour, Observed, PeerLifecycleProfile, ProfileCache, ProfileKey,
    ResubscribeBehaviour,
};
use crate::recorder::Recorder;
use crate::report::{AnomalyKind, CancelResult, JobReport, Outcome};
use crate::session::{self, Session};
use meshsim_protocol::{
    Dialect, Message, Method, Request, RpcResult, SendConfiguration, SendMessageParams,
    StreamEvent, TaskState,
};
use std::time::Duration;
use tokio::time::Instant;
use tracked::Tracked;

/// The reconciling consumer's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReconcilingConfig {
    pub client: ClientConfig,
    /// Tasks it may start and give up for one job (the first dispatch included). Calls
    /// that start nothing (the Card unreadable, a send that failed) are retried with
    /// backoff until the job's deadline instead.
    pub max_dispatches: u32,
    /// Pause before the second attempt; it doubles with each further attempt (up to 16
    /// times), so that a partition or a restarting peer has time to come back.
    pub retry_backoff: Duration,
    /// Follow-ups it may send to one task.
    pub max_turns: u32,
    /// Pause between polls of a task it cannot stream.
    pub poll_interval: Duration,
}

impl Default for ReconcilingConfig {
    fn default() -> Self {
        ReconcilingConfig {
            client: ClientConfig::default(),
            max_dispatches: 8,
            retry_backoff: Duration::from_millis(250),
            max_turns: 4,
            poll_interval: Duration::from_millis(200),
        }
    }
}

impl ReconcilingConfig {
    /// The pause before attempt `attempt` (counting from 0, which needs none).
    fn backoff(&self, attempt: u32) -> Duration {
        self.retry_backoff * (1u32 << attempt.saturating_sub(1).min(4))
    }
}

/// The consumer that negotiates the lifecycle per peer instead of trusting the Card.
pub struct ReconcilingConsumer<C> {
    connector: C,
    config: ReconcilingConfig,
    ids: IdSource,
    profiles: ProfileCache,
}

impl<C: Connector> ReconcilingConsumer<C> {
    /// A reconciling consumer over `connector`, drawing ids from `seed`, with an empty
    /// profile cache.
    pub fn new(connector: C, config: ReconcilingConfig, seed: u64) -> Self {
        Self::with_profiles(connector, config, seed, ProfileCache::new())
    }

    /// The same, sharing `profiles` (e.g. with other consumers of one orchestrator).
    pub fn with_profiles(
        connector: C,
        config: ReconcilingConfig,
        seed: u64,
        profiles: ProfileCache,
    ) -> Self {
        ReconcilingConsumer {
            connector,
            config,
            ids: IdSource::new(seed),
            profiles,
        }
    }

    /// The profiles learned so far.
    pub fn profiles(&self) -> &ProfileCache {
        &self.profiles
    }
}

impl<C: Connector> Consumer for ReconcilingConsumer<C> {
    fn name(&self) -> &str {
        "reconciling"
    }

    fn run(&self, job: Job) -> BoxFuture<'_, JobReport> {
        Box::pin(async move {
            let mut recorder = Recorder::new(&job.name, self.name(), &job.peer);
            let mut key = None;
            let run = self.run_job(&job, &mut recorder, &mut key);
            let outcome = match tokio::time::timeout(job.deadlines.job, run).await {
                Ok(outcome) => outcome,
                Err(_) => {
                    self.cancel_leftovers(&job, &mut recorder).await;
                    Outcome::GaveUp {
                        reason: "job deadline passed".to_string(),
                    }
                }
            };
            let profile = key.map(|key| self.profiles.get(&key));
            recorder.finish(outcome, profile)
        })
    }
}

/// How one dispatch ended.
enum DispatchEnd {
    Done(Outcome),
    /// A task was started and is given up (canceled where the peer still has it).
    Redispatch(String),
    /// No task came of it (the send failed and nothing was found): try again later.
    Retry(String),
}

/// Why reading a connection stopped.
enum ReadEnd {
    /// The peer closed it.
    Closed,
    /// The task reached a state that waits for the client or ends it.
    Settled,
    /// A local deadline expired.
    Deadline(TaskState, Duration),
    /// The connection failed.
    Failed(ClientError),
    /// An event about another task than the one followed.
    ForeignTask(String),
}

/// What happened on one connection.
struct ReadReport {
    end: ReadEnd,
    applied: usize,
    duplicate_submitted: bool,
    replayed: bool,
}

impl ReadReport {
    /// A connection that ended as `end` with nothing judged.
    fn ended(end: ReadEnd) -> Self {
        ReadReport {
            end,
            applied: 0,
            duplicate_submitted: false,
            replayed: false,
        }
    }
}

/// One job's state: the session and the peer's profile key.
struct Run<'a, C> {
    session: Session<'a, C>,
    profiles: &'a ProfileCache,
    key: ProfileKey,
    config: ReconcilingConfig,
}

impl<C: Connector> ReconcilingConsumer<C> {
    /// The job's deadline passed mid-task: cancel what it left running, within one more
    /// request timeout per call, so that no abandoned task keeps working.
    async fn cancel_leftovers(&self, job: &Job, recorder: &mut Recorder) {
        let leftovers = recorder.unsettled_tasks();
        if leftovers.is_empty() {
            return;
        }
        let config = self.config.client;
        let discovered = A2aClient::discover(self.connector.clone(), &job.peer, config);
        let client = match tokio::time::timeout(config.request_timeout, discovered).await {
            Ok(Ok(client)) => client,
            Ok(Err(error)) => return recorder.decision("", "leave", &error.to_string()),
            Err(_) => return recorder.decision("", "leave", "the peer is unreachable"),
        };
        for task_id in leftovers {
            let cancel = match client.cancel_task(&task_id).await {
                Ok(task) => CancelResult::Answered(task.status.state),
                Err(error) if error.is_task_not_found() => CancelResult::TaskGone,
                Err(error) => CancelResult::Failed(error.to_string()),
            };
            recorder.abandoned(&task_id, "job deadline passed", cancel);
        }
    }

    async fn run_job(
        &self,
        job: &Job,
        recorder: &mut Recorder,
        key_out: &mut Option<ProfileKey>,
    ) -> Outcome {
        let mut attempt = 0;
        let client = loop {
            match A2aClient::discover(self.connector.clone(), &job.peer, self.config.client).await {
                Ok(client) => break client,
                // A URL that cannot work will not start working; anything else may.
                Err(error @ ClientError::Url { .. }) => {
                    return Outcome::GaveUp {
                        reason: format!("discovery: {error}"),
                    };
                }
                Err(error) => {
                    recorder.decision("", "retry-discovery", &error.to_string());
                    attempt += 1;
                    tokio::time::sleep(self.config.backoff(attempt)).await;
                }
            }
        };
        let key = client.profile_key();
        *key_out = Some(key.clone());
        let mut run = Run {
            session: Session::new(client, recorder, job, &self.ids),
            profiles: &self.profiles,
            key,
            config: self.config,
        };
        // Tasks started and given up count against `max_dispatches`; sends that started
        // nothing are retried with backoff until the job's deadline.
        let (mut started, mut failed) = (0, 0);
        loop {
            match run.dispatch().await {
                DispatchEnd::Done(outcome) => return outcome,
                DispatchEnd::Redispatch(reason) => {
                    started += 1;
                    failed = 0;
                    if started == self.config.max_dispatches {
                        let dispatches = self.config.max_dispatches;
                        let reason = format!("no outcome after {dispatches} dispatches: {reason}");
                        return Outcome::GaveUp { reason };
                    }
                    run.session.recorder.decision("", "re-dispatch", &reason);
                    // A peer that loses tasks may be restarting: give it time.
                    tokio::time::sleep(self.config.backoff(started)).await;
                }
                DispatchEnd::Retry(reason) => {
                    failed += 1;
                    run.session.recorder.decision("", "retry", &reason);
                    tokio::time::sleep(self.config.backoff(failed)).await;
                }
            }
        }
    }
}

impl<C: Connector> Run<'_, C> {
    fn profile(&self) -> PeerLifecycleProfile {
        self.profiles.get(&self.key)
    }

    fn learn(&mut self, observed: Observed) {
        let profile = self.profiles.record(&self.key, observed);
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
    fn use_streams(&self) -> bool {
        self.session.client.card().capabilities.streaming == Some(true)
            && self.profile().streams_keep_tasks() != Some(false)
    }

    /// Sends without a stream, asking the peer to answer at once (v0.3 `blocking: false`,
    /// v1.0 `returnImmediately`; v0.1 cannot ask) so that a proxy's route timeout does not
    /// cut the answer that names the task; the task is then polled.
    async fn send_without_stream(&self, message: Message) -> Result<RpcResult, ClientError> {
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
    async fn dispatch(&mut self) -> DispatchEnd {
        let streamed = self.use_streams();
        let message = self.session.new_task_message(&self.session.job.request);
        let context = message.context_id.clone();
        let mut task = message.task_id.clone().map(|id| Tracked::new(id, streamed));
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
            let chosen = task.map(|task| task.task_id);
            match self.find_unanswered(chosen, context, streamed, &why).await {
                Some(found) => task = Some(found),
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
        for attempt in 0..self.config.max_dispatches {
            if attempt > 0 {
                tokio::time::sleep(self.config.backoff(attempt)).await;
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
            if let Some(outcome) = current.and_then(|state| outcome(task, state)) {
                return DispatchEnd::Done(outcome);
            }
            if let Some((at, state, limit)) = task.deadline(&self.session.job.deadlines)
                && Instant::now() >= at
            {
                let id = task.task_id.clone();
                return self.deadline(&id, state, limit).await;
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
                let before = task.answered;
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
            // The peer is unreachable or cut us off: give it time before the next call.
            failures = if broke { failures + 1 } else { 0 };
            if failures > 0 {
                tokio::time::sleep(self.config.backoff(failures)).await;
            }
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
            ReadEnd::Deadline(state, limit) => Some(self.deadline(&id, state, limit).await),
            ReadEnd::ForeignTask(other) => {
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
    fn task_lost(&mut self, task_id: &str, error: &ClientError) -> DispatchEnd {
        self.session
            .recorder
            .anomaly(task_id, AnomalyKind::TaskNotFound, error.to_string());
        self.session
            .recorder
            .abandoned(task_id, "the peer lost the task", CancelResult::TaskGone);
        DispatchEnd::Redispatch(format!("task {task_id} lost by the peer"))
    }

    async fn deadline(&mut self, task_id: &str, state: TaskState, limit: Duration) -> DispatchEnd {
        self.session.recorder.deadline(task_id, state, limit);
        // Before the peer names the task there is nothing to cancel by id.
        if !task_id.is_empty() {
            self.session
                .abandon(task_id, &format!("{state} deadline passed"))
                .await;
        }
        DispatchEnd::Redispatch(format!("task {task_id} sat in {state} past {limit:?}"))
    }

    /// Answers the task's question with the same task id, after confirming with
    /// `tasks/get` that it still waits: when the profile does not yet say that tasks
    /// outlive their streams, and before any repeated answer (the last one may have
    /// arrived though its reply did not).
    async fn answer(
        &mut self,
        slot: &mut Option<Tracked>,
        again: bool,
    ) -> Result<ReadReport, DispatchEnd> {
        let id = slot_id(slot);
        let streamed_before = slot.as_ref().is_some_and(|task| task.streamed);
        let unknown = streamed_before && self.profile().streams_keep_tasks() != Some(true);
        if unknown || again {
            let why = if again {
                "answering again"
            } else {
                "lifecycle profile unknown"
            };
            self.session.recorder.decision(&id, "probe", why);
            match self.session.client.get_task(&id).await {
                Ok(found) => {
                    if streamed_before {
                        self.learn(Observed::TaskSurvivedStreamClose(true));
                    }
                    let report =
                        self.observe_result(RpcResult::Task(found), ConnectionKind::Probe, slot);
                    let waiting = slot
                        .as_ref()
                        .and_then(|task| task.ledger.current())
                        .is_some_and(TaskState::is_interrupted);
                    if !waiting || !matches!(report.end, ReadEnd::Closed | ReadEnd::Settled) {
                        return Ok(report);
                    }
                }
                Err(error) if error.is_task_not_found() => {
                    if streamed_before {
                        self.learn(Observed::TaskSurvivedStreamClose(false));
                    }
                    return Err(self.task_lost(&id, &error));
                }
                // Unconfirmed, an answer could start a new task under a reaped id (v0.1):
                // ask again later instead.
                Err(error) => return Ok(ReadReport::ended(ReadEnd::Failed(error))),
            }
        }
        if self.session.job.cancel_at_input_required {
            return self.cancel_waiting(&id, slot).await;
        }
        self.session
            .recorder
            .decision(&id, "follow-up", "answer with the same task id");
        let context = slot.as_ref().and_then(|task| task.context_id.clone());
        let message =
            self.session
                .follow_up_message(&id, context.as_deref(), &self.session.job.answer);
        let streamed = self.use_streams();
        let sent = if streamed {
            match self.session.client.stream_message(message).await {
                Ok(stream) => {
                    mark_answered(slot);
                    Ok(self.read(stream, ConnectionKind::Turn, slot, true).await)
                }
                Err(error) => Err(error),
            }
        } else {
            match self.send_without_stream(message).await {
                Ok(result) => {
                    mark_answered(slot);
                    Ok(self.observe_result(result, ConnectionKind::Turn, slot))
                }
                Err(error) => Err(error),
            }
        };
        if let Some(task) = slot.as_mut() {
            task.streamed |= streamed;
        }
        match sent {
            // The profile describes follow-ups to a task whose stream closed; an answer to
            // a task that never streamed says nothing about that.
            Ok(report) => {
                let behaviour = if matches!(report.end, ReadEnd::ForeignTask(_)) {
                    Some(FollowupBehaviour::NewTask)
                } else if report.duplicate_submitted {
                    Some(FollowupBehaviour::ResumesWithDuplicateSubmitted)
                } else {
                    (report.applied > 0).then_some(FollowupBehaviour::Resumes)
                };
                if let Some(behaviour) = behaviour.filter(|_| streamed_before) {
                    self.learn(Observed::Followup(behaviour));
                }
                Ok(report)
            }
            Err(error) if error.is_task_not_found() => {
                if streamed_before {
                    self.learn(Observed::Followup(FollowupBehaviour::TaskNotFound));
                }
                Err(self.task_lost(&id, &error))
            }
            Err(error) => Ok(ReadReport::ended(ReadEnd::Failed(error))),
        }
    }

    /// Cancels the waiting task, as the job asks, and judges the task the peer returns.
    async fn cancel_waiting(
        &mut self,
        id: &str,
        slot: &mut Option<Tracked>,
    ) -> Result<ReadReport, DispatchEnd> {
        self.session
            .recorder
            .decision(id, "cancel", "the job cancels at input-required");
        match self.session.client.cancel_task(id).await {
            Ok(task) => Ok(self.observe_result(RpcResult::Task(task), ConnectionKind::Probe, slot)),
            Err(error) if error.is_task_not_found() => Err(self.task_lost(id, &error)),
            Err(error) => Ok(ReadReport::ended(ReadEnd::Failed(error))),
        }
    }

    /// The task is live but nothing is being read: resubscribe where that works, else
    /// poll it with `tasks/get`.
    async fn reattach(&mut self, slot: &mut Option<Tracked>) -> ReadReport {
        let id = slot_id(slot);
        let resubscribe_works = self.profile().resubscribe_after_input_required
            != Some(ResubscribeBehaviour::TaskNotFound);
        if !(self.use_streams() && resubscribe_works) {
            return self.poll(slot).await;
        }
        self.session
            .recorder
            .decision(&id, "resubscribe", "stream ended while live");
        match self.session.client.subscribe(&id).await {
            Ok(stream) => {
                self.found_again(slot);
                let report = self
                    .read(stream, ConnectionKind::Resubscribe, slot, true)
                    .await;
                if report.replayed {
                    self.learn(Observed::Resubscribe(ResubscribeBehaviour::Replays));
                }
                report
            }
            // Whether the task is gone, `tasks/get` tells; a -32001 here may also mean
            // only that no execution is active (a2a-go).
            Err(_) => self.poll(slot).await,
        }
    }

    /// Waits a poll interval (or until the state's deadline) and reads the task.
    async fn poll(&mut self, slot: &mut Option<Tracked>) -> ReadReport {
        let deadline = slot
            .as_ref()
            .and_then(|task| task.deadline(&self.session.job.deadlines));
        let wake = Instant::now() + self.config.poll_interval;
        match deadline {
            Some((at, state, limit)) if at <= wake => {
                tokio::time::sleep_until(at).await;
                return ReadReport::ended(ReadEnd::Deadline(state, limit));
            }
            _ => tokio::time::sleep_until(wake).await,
        }
        match self.session.client.get_task(&slot_id(slot)).await {
            Ok(found) => {
                self.found_again(slot);
                self.observe_result(RpcResult::Task(found), ConnectionKind::Probe, slot)
            }
            Err(error) => ReadReport::ended(ReadEnd::Failed(error)),
        }
    }

    /// The task is there after its stream broke: the peer keeps tasks across cuts.
    fn found_again(&mut self, slot: &mut Option<Tracked>) {
        if let Some(task) = slot.as_mut()
            && std::mem::take(&mut task.broken)
        {
            self.learn(Observed::TaskSurvivedBrokenStream(true));
        }
    }

    /// Reads a stream until it closes or the task settles, judging every state.
    async fn read(
        &mut self,
        mut stream: EventStream,
        kind: ConnectionKind,
        slot: &mut Option<Tracked>,
        streamed: bool,
    ) -> ReadReport {
        let connection = self.session.next_connection();
        let mut report = ReadReport::ended(ReadEnd::Closed);
        let mut index = 0;
        loop {
            let deadline = slot
                .as_ref()
                .and_then(|task| task.deadline(&self.session.job.deadlines));
            let next = match deadline {
                Some((at, state, limit)) => {
                    match tokio::time::timeout_at(at, stream.next()).await {
                        Ok(next) => next,
                        Err(_) => {
                            report.end = ReadEnd::Deadline(state, limit);
                            break;
                        }
                    }
                }
                None => stream.next().await,
            };
            let event = match next {
                None => break,
                Some(Err(error)) => {
                    report.end = ReadEnd::Failed(error);
                    break;
                }
                Some(Ok(event)) => event,
            };
            let at = EventRef {
                connection,
                index,
                kind: event_kind(&event, EventKind::StatusUpdate),
            };
            index += 1;
            if let Some(end) = self.take_event(&event, at, kind, slot, streamed, &mut report) {
                report.end = end;
                return report;
            }
        }
        if let Some(task) = slot.as_mut() {
            let rulings = task.ledger.close(connection);
            self.record_rulings(task, rulings, &mut report);
        }
        report
    }

    /// Judges one event; `Some` when reading should stop.
    fn take_event(
        &mut self,
        event: &StreamEvent,
        at: EventRef,
        kind: ConnectionKind,
        slot: &mut Option<Tracked>,
        streamed: bool,
        report: &mut ReadReport,
    ) -> Option<ReadEnd> {
        let event_task = event.task_id().map(str::to_string);
        let task = match (slot.as_mut(), event_task) {
            (Some(task), Some(id)) if id != task.task_id => return Some(ReadEnd::ForeignTask(id)),
            (Some(task), _) => task,
            (None, Some(id)) => slot.insert(Tracked::new(id, streamed)),
            (None, None) => {
                self.session
                    .recorder
                    .anomaly("", AnomalyKind::Protocol, "an event names no task");
                return None;
            }
        };
        task.absorb(event);
        let (state, timestamp, message_id) = session::status_of(event)?;
        self.session.recorder.touched(&task.task_id);
        let observation = Observation {
            at,
            state,
            timestamp,
            message_id,
        };
        let rulings = task.ledger.observe(at.connection, kind, observation);
        if rulings
            .iter()
            .any(|ruling| ruling.verdict == Verdict::Applied)
        {
            task.status_text = session::status_text(event).or(task.status_text.take());
        }
        self.record_rulings(task, rulings, report);
        let settled = task
            .ledger
            .current()
            .is_some_and(|state| state.is_interrupted() || state.is_terminal());
        let counts = kind != ConnectionKind::Turn || report.applied > 0;
        (settled && counts && !task.ledger.is_aligning()).then_some(ReadEnd::Settled)
    }

    fn record_rulings(
        &mut self,
        task: &mut Tracked,
        rulings: Vec<crate::ledger::Ruling>,
        report: &mut ReadReport,
    ) {
        for ruling in rulings {
            let observation = ruling.observation;
            match ruling.verdict {
                Verdict::Applied => {
                    report.applied += 1;
                    task.entered = Instant::now();
                    self.session.recorder.applied(
                        &task.task_id,
                        ruling.from,
                        observation.state,
                        observation.at,
                        observation.timestamp,
                    );
                }
                Verdict::Repeat => {}
                verdict => {
                    report.duplicate_submitted |= verdict == Verdict::DuplicateSubmitted;
                    report.replayed |= verdict == Verdict::Replayed;
                    self.session.recorder.anomaly(
                        &task.task_id,
                        AnomalyKind::Event(verdict),
                        format!(
                            "{} reported while in {} (connection {}, event {})",
                            observation.state,
                            ruling.from.map(TaskState::name).unwrap_or("nothing"),
                            observation.at.connection,
                            observation.at.index
                        ),
                    );
                }
            }
        }
    }

    /// Judges the task a send, get or cancel returned.
    fn observe_result(
        &mut self,
        result: RpcResult,
        kind: ConnectionKind,
        slot: &mut Option<Tracked>,
    ) -> ReadReport {
        let connection = self.session.next_connection();
        let mut report = ReadReport::ended(ReadEnd::Closed);
        let event = match result {
            RpcResult::Task(task) => StreamEvent::Task(task),
            RpcResult::Event(event) => event,
            RpcResult::Message(_) | RpcResult::TaskList(_) => {
                self.session.recorder.anomaly(
                    &slot_id(slot),
                    AnomalyKind::Protocol,
                    "an answer without a task",
                );
                return report;
            }
        };
        let at = EventRef {
            connection,
            index: 0,
            kind: EventKind::Result,
        };
        if let Some(end) = self.take_event(&event, at, kind, slot, false, &mut report) {
            report.end = end;
        }
        if let Some(task) = slot.as_mut() {
            let rulings = task.ledger.close(connection);
            self.record_rulings(task, rulings, &mut report);
        }
        report
    }
}

/// The peer took an answer to the task's current question.
fn mark_answered(slot: &mut Option<Tracked>) {
    if let Some(task) = slot.as_mut() {
        task.answered = Some((task.ledger.applied().len(), Instant::now()));
    }
}

fn slot_id(slot: &Option<Tracked>) -> String {
    slot.as_ref()
        .map(|task| task.task_id.clone())
        .unwrap_or_default()
}

fn event_kind(event: &StreamEvent, otherwise: EventKind) -> EventKind {
    match event {
        StreamEvent::Task(_) => EventKind::Snapshot,
        _ => otherwise,
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
