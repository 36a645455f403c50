//! Following a live task no stream carries: resubscribing where that works, polling with
//! `tasks/get` where it does not, and what finding the task again after a cut says.

use super::read_report::{ReadEnd, ReadReport};
use super::run::Run;
use super::tracked::{Tracked, slot_id};
use crate::client::Connector;
use crate::ledger::ConnectionKind;
use crate::profile::{Observed, ResubscribeBehaviour};
use meshsim_protocol::{Dialect, RpcResult};
use tokio::time::Instant;

impl<C: Connector> Run<'_, C> {
    /// The task is live but nothing is being read: resubscribe where that works, else
    /// poll it with `tasks/get`, as also after a resubscribe the peer closed with nothing
    /// new in it. No call waits past the task's deadline.
    pub(super) async fn reattach(&mut self, slot: &mut Option<Tracked>) -> ReadReport {
        let id = slot_id(slot);
        // Nothing was read while the task was live: events may have gone by unread.
        if let Some(task) = slot.as_mut() {
            task.events_unread = true;
        }
        let resubscribe_works = self.profile().resubscribe_after_input_required
            != Some(ResubscribeBehaviour::TaskNotFound);
        if !(self.use_streams() && resubscribe_works) {
            return self.poll(slot).await;
        }
        self.session
            .recorder
            .decision(&id, "resubscribe", "stream ended while live");
        // A replay says what a resubscribe does once the task's stream has closed only if
        // the peer had seen that close, or if a close changes nothing there (tasks are known
        // to outlive their streams). A stream the consumer dropped itself (its events timed
        // out) closes on its own connection, and the resubscribe, on a new one, can overtake
        // the close and find the task still alive where the close would have reaped it.
        let close_seen = slot.as_ref().is_some_and(|task| task.ended_by_peer)
            || self.profile().streams_keep_tasks() == Some(true);
        let subscribed = self.session.client.subscribe(&id);
        match self.before_deadline(slot, subscribed).await {
            Err(deadline) => deadline,
            Ok(Ok(stream)) => {
                self.found_again(slot);
                self.read_whole_while_live(slot).await;
                let report = self
                    .read(stream, ConnectionKind::Resubscribe, slot, true)
                    .await;
                if report.replayed && close_seen {
                    self.learn(Observed::Resubscribe(ResubscribeBehaviour::Replays));
                }
                // Nothing in the closed stream was new: a replay that matched only part of
                // what was applied is settled as a replay whole, its last state included
                // (the peer may have started the task afresh under its id). Resubscribing
                // again would read the same stream; the task as the peer holds it says
                // where it is.
                if report.applied == 0 && matches!(report.end, ReadEnd::Closed) {
                    return self.poll(slot).await;
                }
                report
            }
            // Whether the task is gone, `tasks/get` tells; a -32001 here may also mean
            // only that no execution is active (a2a-go).
            Ok(Err(_)) => self.poll(slot).await,
        }
    }

    /// A v0.1 resubscribe carries only the events after it, so an artifact chunk made
    /// between the cut and the resubscribe is in no event read, and only the task as the
    /// peer holds it has it. Where the peer may reap a task when its stream closes, that
    /// task is gone once it ends, so it is read whole now, while it is live and the new
    /// stream, open already, holds the place from which it carries events: if its artifacts
    /// are the ones already read, nothing was made in between, and the stream has the rest.
    /// Otherwise (or without an answer) the events stay unread, for the fetch at the end.
    async fn read_whole_while_live(&mut self, slot: &mut Option<Tracked>) {
        let needed = slot.as_ref().is_some_and(|task| task.events_unread)
            && self.session.client.dialect() == Dialect::V0_1
            && self.profile().streams_keep_tasks() != Some(true);
        if !needed {
            return;
        }
        let id = slot_id(slot);
        self.session.recorder.decision(
            &id,
            "read-whole",
            "a v0.1 resubscribe carries only the events after it, and the peer may reap the task when it ends",
        );
        let fetched = self
            .before_deadline(slot, self.session.client.get_task(&id))
            .await;
        if let (Ok(Ok(whole)), Some(task)) = (fetched, slot.as_mut())
            && !self.began_elsewhere(&whole)
            && task.has_read_all_of(&whole)
        {
            task.events_unread = false;
        }
    }

    /// Waits a poll interval (or until the state's deadline) and reads the task, within
    /// that deadline.
    pub(super) async fn poll(&mut self, slot: &mut Option<Tracked>) -> ReadReport {
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
        let id = slot_id(slot);
        match self
            .before_deadline(slot, self.session.client.get_task(&id))
            .await
        {
            Err(deadline) => deadline,
            Ok(Ok(found)) => {
                self.found_again(slot);
                self.observe_result(RpcResult::Task(found), ConnectionKind::Probe, slot)
            }
            Ok(Err(error)) => ReadReport::ended(ReadEnd::Failed(error)),
        }
    }

    /// Runs `call` about the task in `slot` until its current state's deadline at most: a
    /// call still unanswered then (its answer lost, the peer gone) ends in that deadline,
    /// not in the client's own timeout, which would run past it.
    async fn before_deadline<T>(
        &self,
        slot: &Option<Tracked>,
        call: impl Future<Output = T>,
    ) -> Result<T, ReadReport> {
        match slot
            .as_ref()
            .and_then(|task| task.deadline(&self.session.job.deadlines))
        {
            Some((at, state, limit)) => meshsim_time::timeout_at(at, call)
                .await
                .map_err(|_| ReadReport::ended(ReadEnd::Deadline(state, limit))),
            None => Ok(call.await),
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
