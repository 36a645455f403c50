//! The reconciling consumer: the origin note's operational invariant, done right.
//!
//! - It keeps a per-peer [`PeerLifecycleProfile`](crate::PeerLifecycleProfile) keyed by (resolved host, Card `version`),
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
//!   A task found alive teaches that tasks outlive their streams only if the peer ended
//!   the stream itself (while learning, the consumer waits briefly for that end): a stream
//!   the consumer drops closes on its own connection, and the question, on a new one, can
//!   overtake the close. Likewise a resubscribe's replay is learned as what resubscribes do
//!   only if the peer ended the stream before it, or tasks are known to outlive streams.
//! - It owns deadlines for `submitted` and `working`: on expiry it cancels and re-dispatches
//!   at once (it backs off only after the peer lost a task, which may mean a restart, and
//!   counts the lost task's life as part of the pause).

mod answer;
mod config;
mod ours;
mod peer_clock;
mod read;
mod read_report;
mod reattach;
mod run;
mod tracked;

pub use config::ReconcilingConfig;

use crate::client::{A2aClient, ClientError, Connector};
use crate::ids::IdSource;
use crate::job::{BoxFuture, Consumer, Job};
use crate::profile::{ProfileCache, ProfileKey};
use crate::recorder::JobRecorder;
use crate::report::{CancelResult, JobReport, Outcome};
use crate::session::Session;
use peer_clock::PeerClock;
use run::{DispatchEnd, Run};
use std::time::Duration;
use tokio::time::Instant;

/// The least of a job's time a new task is started with: a send answered at the network's
/// slowest, and a cancel after it, take about this long.
const LAST_DISPATCH_MARGIN: Duration = Duration::from_millis(250);

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
            let mut recorder = JobRecorder::new(&job.name, self.name(), &job.peer);
            let mut key = None;
            let ends = Instant::now() + job.deadlines.job; // wall-clock-ok: tokio's clock, simulated under turmoil
            // Boxed: the job's future holds every call's state (18 KB), and moving it into
            // the timeout and awaiting it copied it whole each time (1.7% of a run). It is
            // written into room allocated first, which lets it be made there in place:
            // `Box::pin` made it on the stack and copied all of it into the box.
            let run = Box::into_pin(Box::write(
                Box::new_uninit(),
                self.run_job(&job, ends, &mut recorder, &mut key),
            ));
            let outcome = match meshsim_time::timeout(job.deadlines.job, run).await {
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

impl<C: Connector> ReconcilingConsumer<C> {
    /// The job's deadline passed mid-task: cancel what it left running (and what it
    /// abandoned while the peer was unreachable, and a v0.1 task whose send was on its
    /// way), within one more request timeout per call, so that no abandoned task keeps
    /// working.
    async fn cancel_leftovers(&self, job: &Job, recorder: &mut JobRecorder) {
        let unsettled = recorder.unsettled_tasks().into_iter();
        let leftovers: Vec<(String, String)> = unsettled
            .chain(recorder.sent_unanswered())
            .map(|task_id| (task_id, "job deadline passed".to_string()))
            .chain(recorder.cancels_owed())
            .collect();
        if leftovers.is_empty() {
            return;
        }
        let config = self.config.client;
        let discovered = A2aClient::discover(self.connector.clone(), &job.peer, config);
        let client = match meshsim_time::timeout(config.request_timeout, discovered).await {
            Ok(Ok(client)) => client,
            Ok(Err(error)) => return recorder.decision("", "leave", &error.to_string()),
            Err(_) => return recorder.decision("", "leave", "the peer is unreachable"),
        };
        for (task_id, reason) in leftovers {
            let cancel = CancelResult::of(&client.cancel_task(&task_id).await);
            recorder.abandoned(&task_id, &reason, cancel);
        }
    }

    async fn run_job(
        &self,
        job: &Job,
        ends: Instant,
        recorder: &mut JobRecorder,
        key_out: &mut Option<ProfileKey>,
    ) -> Outcome {
        let mut attempt = 0;
        let client = loop {
            // As with sends, the pause counts from the try: one that timed out was the wait.
            let tried = Instant::now();
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
                    meshsim_time::sleep_until(tried + self.config.backoff(attempt)).await;
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
            peer_clock: PeerClock::default(),
        };
        // A task abandoned while the peer was unreachable may still be live: its cancel is
        // asked again before every further dispatch and, patiently, before the job ends.
        let outcome = self.dispatch_until_done(&mut run, ends).await;
        run.session.cancel_owed_patiently().await;
        outcome
    }

    /// Dispatches until a task reaches an outcome or the job gives up. Tasks the consumer
    /// gives up while the peer may still have them count against `max_tasks_given_up`;
    /// tasks the peer lost do not (nothing of them runs on, and a peer that loses every task
    /// is bounded by the job's deadline, as it is by the growing pause). Sends that started
    /// nothing are retried with backoff until the job's deadline, the pause counted from
    /// the send: a send that timed out has waited its part, and the peer may have been
    /// back for a while. The pause after a lost task grows with the tasks lost, not with
    /// every task started: a stalled task says nothing about restarts, and after several
    /// stalls a pause that counted them would eat the time the job has left.
    ///
    /// The pause spaces the dispatches to a peer that may be restarting again and again,
    /// so it counts from the lost task's dispatch, not from the loss. A restart and a timer
    /// that reaps the task look alike (a prompt -32001, the peer up): against a peer that
    /// restarts every few hundred milliseconds, tasks are lost young and the pause still
    /// keeps the dispatches from running out before the restarts end; a task the peer kept
    /// longer than the pause has already spaced the dispatches, and pausing again would
    /// only eat the job's time (a timer reaping each stalled task just before its submitted
    /// deadline, with a pause after each, left too little time for the task that works).
    ///
    /// No task is started with less than [`LAST_DISPATCH_MARGIN`] of the job's time (`ends`)
    /// left: its send's answer would come as the job ends, and the task, never followed or
    /// canceled, would be left running.
    async fn dispatch_until_done(&self, run: &mut Run<'_, C>, ends: Instant) -> Outcome {
        let (mut given_up, mut lost, mut failed) = (0, 0, 0);
        loop {
            run.session.cancel_owed_once().await;
            let left = ends.saturating_duration_since(Instant::now()); // wall-clock-ok: tokio's clock, simulated under turmoil
            if left < LAST_DISPATCH_MARGIN {
                let reason = format!(
                    "{} ms of the job's time left: too little to start a task and follow it",
                    left.as_millis()
                );
                return Outcome::GaveUp { reason };
            }
            // A peer that loses tasks may be restarting: give it time. One that let a task
            // sit past its deadline answered all along, and the deadline was the wait.
            let dispatched = Instant::now();
            let (reason, counts, pause) = match run.dispatch().await {
                DispatchEnd::Done(outcome) => return outcome,
                DispatchEnd::Lost(reason) => (reason, false, true),
                DispatchEnd::Redispatch(reason) => (reason, true, true),
                DispatchEnd::Stuck(reason) => (reason, true, false),
                DispatchEnd::Retry(reason) => {
                    failed += 1;
                    run.session.recorder.decision("", "retry", &reason);
                    meshsim_time::sleep_until(dispatched + self.config.backoff(failed)).await;
                    continue;
                }
            };
            failed = 0;
            given_up += u32::from(counts);
            if counts && given_up == self.config.max_tasks_given_up {
                let reason = format!("no outcome after giving up {given_up} tasks: {reason}");
                return Outcome::GaveUp { reason };
            }
            run.session.recorder.decision("", "re-dispatch", &reason);
            if pause {
                lost += 1;
                meshsim_time::sleep_until(dispatched + self.config.backoff(lost)).await;
            }
        }
    }
}
