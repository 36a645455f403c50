//! Answering a waiting task's question: confirming first with `tasks/get` where the profile
//! leaves doubt, the follow-up with the same task id (or the cancel the job asks for
//! instead), and what a -32001 in reply says about the peer.

use super::read_report::{ReadEnd, ReadReport};
use super::run::{DispatchEnd, Run};
use super::tracked::{Tracked, slot_id};
use crate::client::{ClientError, Connector};
use crate::ledger::ConnectionKind;
use crate::profile::{FollowupBehaviour, Observed};
use crate::report::{AnomalyKind, CancelResult, Outcome};
use meshsim_protocol::{RpcResult, TaskState};
use std::time::Duration;
use tokio::time::Instant;

/// How soon after the peer asked its question (by the question's stamp) a task must be
/// found missing for the loss to be put down to its stream closing. A question ends its
/// stream (where streams close at `input-required`) and the consumer asks about the task at
/// once, a transit and a round trip (tens of milliseconds) later; a timer reaper of a few
/// hundred milliseconds, a partition, or a link that held the question makes the task go
/// missing later than this.
const RIGHT_AT_CLOSE: Duration = Duration::from_millis(250);

/// The peer took an answer to the task's current question.
fn mark_answered(slot: &mut Option<Tracked>) {
    if let Some(task) = slot.as_mut() {
        task.answer_taken();
    }
}

impl<C: Connector> Run<'_, C> {
    /// Answers the task's question with the same task id, after confirming with
    /// `tasks/get` that it still waits (and, in v0.1, is still ours): when the profile does
    /// not yet say that tasks outlive their streams, and before any repeated answer (the
    /// last one may have arrived though its reply did not, or the question is a new one).
    pub(super) async fn answer(
        &mut self,
        slot: &mut Option<Tracked>,
        again: bool,
    ) -> Result<ReadReport, DispatchEnd> {
        let id = slot_id(slot);
        let streamed_before = slot.as_ref().is_some_and(|task| task.streamed);
        // A task found alive, or any answer to the follow-up, says what the peer does after
        // a close only if the peer had seen the close first: if the consumer dropped the
        // stream itself, the call may have overtaken the close on the way (another
        // connection) and met the task still attached to its stream (a peer that answers
        // follow-ups with new tasks, or refuses them, answers that one so, though the close
        // then loses the task and a follow-up after it meets its rule for unknown ids).
        // Found gone by `tasks/get`, it was lost with the close either way.
        let close_seen = slot.as_ref().is_some_and(|task| task.ended_by_peer);
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
        let asked_at = slot.as_ref().and_then(|task| task.stamped);
        let arrived_at = slot.as_ref().map(|task| task.entered);
        let soon_after = |since: Option<Instant>, at: Instant| {
            first_try
                && since.is_some_and(|since| at.saturating_duration_since(since) <= RIGHT_AT_CLOSE)
        };
        let soon_after_asked = |at: Instant| soon_after(asked_at, at);
        let right_at_close = || soon_after_asked(Instant::now());
        // A question without a readable stamp may have been held for any time, and the end
        // the peer sent behind it with it: a task missing right after it arrived may have
        // been reaped by a timer meanwhile. That still steers the consumer off streams, but
        // teaches nothing of closes. The stream's keep-alives cannot date it: they say how
        // late the peer sent bytes at the latest, never how early, and a link that held a
        // keep-alive with the question leaves the question a whole period to have been
        // asked in.
        let lost_at_close = || {
            if right_at_close() {
                Some(Observed::TaskSurvivedStreamClose(false))
            } else {
                (asked_at.is_none() && soon_after(arrived_at, Instant::now()))
                    .then_some(Observed::TaskGoneAfterUndatedQuestion)
            }
        };
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
                    if streamed_before && first_try && close_seen {
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
                    if streamed_before && let Some(observed) = lost_at_close() {
                        self.learn(observed);
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
        let first_call_lost_at_close =
            || (streamed_before && !probed).then(lost_at_close).flatten();
        if self.session.job.cancel_at_input_required {
            return self
                .cancel_waiting(&id, slot, first_call_lost_at_close)
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
            // also be the peer's answer to an id its timer reaped meanwhile, and so may a
            // second `submitted` under the same id (v0.1, a peer that starts unknown ids
            // afresh): that counts only when the peer sent it soon after it asked. Judged
            // by when it was sent, not when it was judged: the ledger holds a `submitted`
            // after others until the connection shows whether a replay follows.
            Ok(report) => {
                let behaviour = if matches!(report.end, ReadEnd::ForeignTask(_)) {
                    right_at_close().then_some(FollowupBehaviour::NewTask)
                } else if report.duplicate_submitted {
                    (report.resubmitted_at.is_some_and(soon_after_asked))
                        .then_some(FollowupBehaviour::ResumesWithDuplicateSubmitted)
                } else {
                    (report.applied > 0).then_some(FollowupBehaviour::Resumes)
                };
                if let Some(behaviour) =
                    behaviour.filter(|_| streamed_before && first_try && close_seen)
                {
                    self.learn(Observed::Followup(behaviour));
                }
                Ok(report)
            }
            Err(error) if error.is_task_not_found() => {
                if streamed_before && close_seen && right_at_close() {
                    self.learn(Observed::Followup(FollowupBehaviour::TaskNotFound));
                }
                Err(self
                    .answer_refused(&id, &error, first_call_lost_at_close)
                    .await)
            }
            Err(error) => Ok(ReadReport::ended(ReadEnd::Failed(error))),
        }
    }

    /// The peer answered the follow-up with -32001. That need not mean the task is gone: a
    /// peer may refuse every follow-up while the task waits on. Cancel it (the cancel says
    /// whether it is gone) before starting over, so that nothing is left waiting. A task
    /// still there is one the consumer gives up; one gone the peer lost.
    ///
    /// If the cancel finds the task gone while `first_call_lost_at_close` still says so when
    /// its answer comes (the follow-up was the first call after the stream closed, and the
    /// cancel's answer too came right after), it went with the close, as one that
    /// `tasks/get` finds missing there did. A cancel that got through only after a
    /// partition or a lossy link let it (its retries take seconds) finds a task a timer may
    /// have reaped meanwhile: that says nothing about closes.
    async fn answer_refused(
        &mut self,
        task_id: &str,
        error: &ClientError,
        first_call_lost_at_close: impl Fn() -> Option<Observed>,
    ) -> DispatchEnd {
        self.session
            .recorder
            .anomaly(task_id, AnomalyKind::TaskNotFound, error.to_string());
        let cancel = self
            .session
            .abandon(task_id, "the peer answered the follow-up with -32001")
            .await;
        let reason = format!("the follow-up to task {task_id} got -32001");
        if cancel != CancelResult::TaskGone {
            return DispatchEnd::Redispatch(reason);
        }
        if let Some(observed) = first_call_lost_at_close() {
            self.learn(observed);
        }
        DispatchEnd::Lost(reason)
    }

    /// Cancels the waiting task, as the job asks, and judges the task the peer returns. A
    /// task the cancel finds gone went with its stream's close if
    /// `first_call_lost_at_close` says so when the cancel's answer came.
    async fn cancel_waiting(
        &mut self,
        id: &str,
        slot: &mut Option<Tracked>,
        first_call_lost_at_close: impl Fn() -> Option<Observed>,
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
                if let Some(observed) = first_call_lost_at_close() {
                    self.learn(observed);
                }
                Err(self.task_lost(id, &error))
            }
            Err(error) => Ok(ReadReport::ended(ReadEnd::Failed(error))),
        }
    }
}
