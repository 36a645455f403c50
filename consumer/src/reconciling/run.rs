//! One job of the reconciling consumer: dispatching a task, following it to an outcome,
//! answering its questions, and starting over when the peer loses it.

use super::config::ReconcilingConfig;
use super::peer_clock::PeerClock;
use super::read_report::{ReadEnd, ReadReport};
use super::tracked::{Tracked, slot_id};
use crate::client::ClientError;
use crate::client::Connector;
use crate::ledger::ConnectionKind;
use crate::profile::{
    FollowupBehaviour, Observed, PeerLifecycleProfile, ProfileCache, ProfileKey,
    ResubscribeBehaviour,
};
use crate::report::{AnomalyKind, CancelResult, Outcome};
use crate::session::{self, Session};
use meshsim_protocol::{
    Dialect, Message, Method, Request, Role, RpcResult, SendConfiguration, SendMessageParams, Task,
    TaskState,
};
use std::time::Duration;
use tokio::time::Instant;

/// How soon after the peer asked its question (by the question's stamp) a task must be
/// found missing for the loss to be put down to its stream closing. A question ends its
/// stream (where streams close at `input-required`) and the consumer asks about the task at
/// once, a transit and a round trip (tens of milliseconds) later; a timer reaper of a few
/// hundred milliseconds, a partition, or a link that held the question makes the task go
/// missing later than this.
const RIGHT_AT_CLOSE: Duration = Duration::from_millis(250);

/// How one dispatch ended.
pub(super) enum DispatchEnd {
    Done(Outcome),
    /// A task was started and is given up (canceled where the peer still has it).
    Redispatch(String),
    /// A task sat in a state past the job's deadline for it and is given up (canceled where
    /// the peer still has it). The deadline was the wait: start over at once.
    Stuck(String),
    /// No task came of it (the send failed and nothing was found): try again later.
    Retry(String),
}

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
    pub(super) async fn dispatch(&mut self) -> DispatchEnd {
        let streamed = self.use_streams();
        let message = self.session.new_task_message(&self.session.job.request);
        let context = message.context_id.clone();
        let mut task = message.task_id.clone().map(|id| Tracked::new(id, streamed));
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
        for attempt in 0..self.config.max_dispatches {
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
            if let Some(outcome) = current.and_then(|state| outcome(task, state)) {
                let id = task.task_id.clone();
                if let Some(end) = self.confirm_ours(&id).await {
                    return end;
                }
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
            // The peer is unreachable or cut us off: give it time before the next call.
            failures = if broke { failures + 1 } else { 0 };
            if failures > 0 {
                meshsim_time::sleep(self.config.backoff(failures)).await;
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

    /// In v0.1 the client names tasks, so an answer to a task the peer lost in the meantime
    /// (reaped, or gone with a restart) silently starts a new task under the same id, and
    /// its outcome answers the answer, not the job. Before accepting an outcome there, the
    /// task's history must begin with the job's request; `Some` to start over when it does
    /// not. Elsewhere a lost id is -32001 or a new id, which the reads already catch.
    async fn confirm_ours(&mut self, task_id: &str) -> Option<DispatchEnd> {
        if self.session.client.dialect() != Dialect::V0_1 {
            return None;
        }
        let task = self.session.client.get_task(task_id).await.ok()?;
        self.check_ours(&task).await
    }

    /// `Some` to start over when `task`, fetched under the job's v0.1 task id, is one the
    /// peer started afresh from a later message: its history begins with another request.
    /// Such a task asks its first question again, which looks like a new question; an
    /// answer to it would complete a task that never saw the job.
    async fn check_ours(&mut self, task: &Task) -> Option<DispatchEnd> {
        if self.session.client.dialect() != Dialect::V0_1 {
            return None;
        }
        let first = task
            .history
            .iter()
            .find(|message| message.role == Role::User)?;
        if first.text_content() == self.session.job.request {
            return None;
        }
        let task_id = &task.id;
        self.session.recorder.anomaly(
            task_id,
            AnomalyKind::NewTaskOnFollowup,
            "the task under this id began with another request: the peer lost ours and started afresh",
        );
        self.session
            .abandon(
                task_id,
                "the peer replaced it with a task of its own under the same id",
            )
            .await;
        Some(DispatchEnd::Redispatch(format!(
            "task {task_id} was restarted by the peer under the same id"
        )))
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

    /// The peer answered the follow-up with -32001. That need not mean the task is gone: a
    /// peer may refuse every follow-up while the task waits on. Cancel it (the cancel says
    /// whether it is gone) before starting over, so that nothing is left waiting.
    ///
    /// If the task is gone and `gone_with_the_close` (the follow-up was the first call,
    /// right after the stream closed), it went with the close, as one that `tasks/get`
    /// finds missing there did.
    async fn answer_refused(
        &mut self,
        task_id: &str,
        error: &ClientError,
        gone_with_the_close: bool,
    ) -> DispatchEnd {
        self.session
            .recorder
            .anomaly(task_id, AnomalyKind::TaskNotFound, error.to_string());
        let cancel = self
            .session
            .abandon(task_id, "the peer answered the follow-up with -32001")
            .await;
        if gone_with_the_close && cancel == CancelResult::TaskGone {
            self.learn(Observed::TaskSurvivedStreamClose(false));
        }
        DispatchEnd::Redispatch(format!("the follow-up to task {task_id} got -32001"))
    }

    async fn deadline(&mut self, task_id: &str, state: TaskState, limit: Duration) -> DispatchEnd {
        self.session.recorder.deadline(task_id, state, limit);
        // Before the peer names the task there is nothing to cancel by id.
        if !task_id.is_empty() {
            self.session
                .abandon(task_id, &format!("{state} deadline passed"))
                .await;
        }
        DispatchEnd::Stuck(format!("task {task_id} sat in {state} past {limit:?}"))
    }

    /// Answers the task's question with the same task id, after confirming with
    /// `tasks/get` that it still waits (and, in v0.1, is still ours): when the profile does
    /// not yet say that tasks outlive their streams, and before any repeated answer (the
    /// last one may have arrived though its reply did not, or the question is a new one).
    async fn answer(
        &mut self,
        slot: &mut Option<Tracked>,
        again: bool,
    ) -> Result<ReadReport, DispatchEnd> {
        let id = slot_id(slot);
        let streamed_before = slot.as_ref().is_some_and(|task| task.streamed);
        // What follows a stream's close says how the peer treats closes only on the first
        // try: a second one follows a call that failed or went unconfirmed, and the close
        // itself may not have reached the peer then (a one-way partition drops it while
        // the stream's events still arrive), so a task found alive says nothing.
        let first_try = !again;
        // A task found missing (or replaced by a new task) by the first call after its
        // stream closed, and soon after, was lost with the stream; one found missing later
        // (the call slowed by latency or a partition) may have been reaped by a timer or
        // lost in a restart meanwhile: that says nothing about stream closes. Judged when
        // the answer arrives, not when the call leaves, and counted from when the peer
        // asked (the question's stamp), not from when the question arrived: a link that
        // held the question gave a timer all that time to reap the task.
        let asked_at = slot.as_ref().map(|task| task.stamped);
        let right_at_close =
            || first_try && asked_at.is_some_and(|at| at.elapsed() <= RIGHT_AT_CLOSE);
        let unknown = streamed_before && self.profile().streams_keep_tasks() != Some(true);
        let probed = unknown || again;
        if probed {
            let why = if again {
                "answering again"
            } else {
                "lifecycle profile unknown"
            };
            self.session.recorder.decision(&id, "probe", why);
            match self.session.client.get_task(&id).await {
                Ok(found) => {
                    if let Some(end) = self.check_ours(&found).await {
                        return Err(end);
                    }
                    if streamed_before && first_try {
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
                    if streamed_before && right_at_close() {
                        self.learn(Observed::TaskSurvivedStreamClose(false));
                    }
                    return Err(self.task_lost(&id, &error));
                }
                // Unconfirmed, an answer could start a new task under a reaped id (v0.1):
                // ask again later instead.
                Err(error) => return Ok(ReadReport::ended(ReadEnd::Failed(error))),
            }
        }
        // Unprobed, the cancel or the answer is the first call after the close: a task it
        // finds gone right then went with the close, whatever the profile said (a close
        // that once seemed to leave a task alive may never have reached the peer, lost on
        // a lossy link; believing that tasks survive closes let this call go unconfirmed).
        let first_call_right_at_close = || streamed_before && !probed && right_at_close();
        if self.session.job.cancel_at_input_required {
            return self
                .cancel_waiting(&id, slot, first_call_right_at_close)
                .await;
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
            // a task that never streamed says nothing about that. A new task in reply may
            // also be the peer's answer to an id its timer reaped meanwhile.
            Ok(report) => {
                let behaviour = if matches!(report.end, ReadEnd::ForeignTask(_)) {
                    right_at_close().then_some(FollowupBehaviour::NewTask)
                } else if report.duplicate_submitted {
                    Some(FollowupBehaviour::ResumesWithDuplicateSubmitted)
                } else {
                    (report.applied > 0).then_some(FollowupBehaviour::Resumes)
                };
                if let Some(behaviour) = behaviour.filter(|_| streamed_before && first_try) {
                    self.learn(Observed::Followup(behaviour));
                }
                Ok(report)
            }
            Err(error) if error.is_task_not_found() => {
                if streamed_before && right_at_close() {
                    self.learn(Observed::Followup(FollowupBehaviour::TaskNotFound));
                }
                let gone_with_the_close = first_call_right_at_close();
                Err(self.answer_refused(&id, &error, gone_with_the_close).await)
            }
            Err(error) => Ok(ReadReport::ended(ReadEnd::Failed(error))),
        }
    }

    /// Cancels the waiting task, as the job asks, and judges the task the peer returns. A
    /// task the cancel finds gone went with its stream's close if the cancel was
    /// `first_call_right_at_close` when its answer came.
    async fn cancel_waiting(
        &mut self,
        id: &str,
        slot: &mut Option<Tracked>,
        first_call_right_at_close: impl Fn() -> bool,
    ) -> Result<ReadReport, DispatchEnd> {
        self.session
            .recorder
            .decision(id, "cancel", "the job cancels at input-required");
        let answer = self.session.client.cancel_task(id).await;
        let cancel = CancelResult::of(&answer);
        if cancel.is_refusal() {
            // The peer may refuse: asking again will not change its mind. Say so and stop.
            let reason = format!("the peer refused to cancel task {id}: {cancel:?}");
            self.session
                .recorder
                .abandoned(id, "the job cancels it; the peer refused", cancel);
            return Err(DispatchEnd::Done(Outcome::GaveUp { reason }));
        }
        match answer {
            Ok(task) => Ok(self.observe_result(RpcResult::Task(task), ConnectionKind::Probe, slot)),
            Err(error) if error.is_task_not_found() => {
                if first_call_right_at_close() {
                    self.learn(Observed::TaskSurvivedStreamClose(false));
                }
                Err(self.task_lost(id, &error))
            }
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
                meshsim_time::sleep_until(at).await;
                return ReadReport::ended(ReadEnd::Deadline(state, limit));
            }
            _ => meshsim_time::sleep_until(wake).await,
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
}

/// The peer took an answer to the task's current question.
fn mark_answered(slot: &mut Option<Tracked>) {
    if let Some(task) = slot.as_mut() {
        task.answer_taken();
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
