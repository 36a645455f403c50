//! Builds a [`JobReport`] as a job runs, and emits one consumer trace event per applied
//! state, decision, anomaly and change to what it learned of its peer.

use crate::ledger::EventRef;
use crate::profile::{PeerLifecycleProfile, ProfileKey};
use crate::report::{
    Abandonment, Anomaly, AnomalyKind, AppliedEvent, CancelResult, DeadlineHit, JobReport, Outcome,
    TaskView,
};
use meshsim_protocol::TaskState;
use meshsim_trace::{Applied, TraceEvent};
use std::time::Duration;

/// The report of one job, in the making.
#[derive(Debug)]
pub struct JobRecorder {
    job: String,
    consumer: String,
    peer: String,
    tasks: Vec<TaskView>,
    deadlines: Vec<DeadlineHit>,
    anomalies: Vec<Anomaly>,
    /// The id the latest new task's send chose (v0.1, where the client chooses it): the
    /// task may exist though no answer said so.
    sending: Option<String>,
}

impl JobRecorder {
    /// Starts the report of `job` by `consumer` against `peer`.
    pub fn new(job: &str, consumer: &str, peer: &str) -> Self {
        TraceEvent::JobStart {
            job: job.into(),
            consumer: consumer.into(),
            peer: peer.into(),
        }
        .emit();
        JobRecorder {
            job: job.to_string(),
            consumer: consumer.to_string(),
            peer: peer.to_string(),
            tasks: Vec::new(),
            deadlines: Vec::new(),
            anomalies: Vec::new(),
            sending: None,
        }
    }

    /// The job's name.
    pub fn job(&self) -> &str {
        &self.job
    }

    /// Records that the consumer applied `to` to its view of `task_id`.
    pub fn applied(
        &mut self,
        task_id: &str,
        from: Option<TaskState>,
        to: TaskState,
        at: EventRef,
        timestamp: Option<String>,
    ) {
        TraceEvent::Applied(Applied {
            job: self.job.as_str().into(),
            task: task_id.into(),
            from,
            state: to,
            connection: at.connection,
            index: at.index,
        })
        .emit();
        self.view(task_id).applied.push(AppliedEvent {
            from,
            to,
            at,
            timestamp,
        });
    }

    /// Records that the consumer knows of `task_id`, before anything is applied to it.
    pub fn touched(&mut self, task_id: &str) {
        self.view(task_id);
    }

    /// Records an anomaly.
    pub fn anomaly(&mut self, task_id: &str, kind: AnomalyKind, detail: impl Into<String>) {
        let detail = detail.into();
        TraceEvent::Anomaly {
            job: self.job.as_str().into(),
            task: task_id.into(),
            kind: format!("{kind:?}").into(),
            detail: detail.as_str().into(),
        }
        .emit();
        self.anomalies.push(Anomaly {
            task_id: task_id.to_string(),
            kind,
            detail,
        });
    }

    /// Traces a decision (what the consumer does next and why).
    pub fn decision(&self, task_id: &str, decision: &str, reason: &str) {
        TraceEvent::Decision {
            job: self.job.as_str().into(),
            task: task_id.into(),
            decision: decision.into(),
            reason: reason.into(),
        }
        .emit();
    }

    /// Traces that what the consumer learned of `peer`'s lifecycle changed: `field` now
    /// holds `value`, from what this job observed.
    pub fn learned(&self, peer: &ProfileKey, field: &str, value: &str) {
        TraceEvent::ProfileLearned {
            job: self.job.as_str().into(),
            peer: peer.host.as_str().into(),
            card_version: peer.card_version.as_str().into(),
            field: field.into(),
            value: value.into(),
        }
        .emit();
    }

    /// Records that a local deadline expired.
    pub fn deadline(&mut self, task_id: &str, state: TaskState, limit: Duration) {
        let limit_ms = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
        TraceEvent::Deadline {
            job: self.job.as_str().into(),
            task: task_id.into(),
            state,
            limit_ms,
        }
        .emit();
        self.deadlines.push(DeadlineHit {
            task_id: task_id.to_string(),
            state,
            limit_ms,
        });
    }

    /// Records that the consumer stopped following `task_id`, and what its cancel did.
    pub fn abandoned(&mut self, task_id: &str, reason: &str, cancel: CancelResult) {
        TraceEvent::Abandoned {
            job: self.job.as_str().into(),
            task: task_id.into(),
            reason: reason.into(),
            cancel: format!("{cancel:?}").into(),
        }
        .emit();
        self.view(task_id).abandoned = Some(Abandonment {
            reason: reason.to_string(),
            cancel,
        });
    }

    /// A task the peer named that the job must finish or cancel (one it started in place of
    /// a follow-up): in the report from now on, so that a job its deadline cuts short still
    /// cancels it.
    pub fn noticed(&mut self, task_id: &str) {
        self.view(task_id);
    }

    /// The latest send that starts a task names `task_id`, the id the client chose (v0.1;
    /// `None` where the peer chooses).
    pub fn sending(&mut self, task_id: Option<&str>) {
        self.sending = task_id.map(str::to_string);
    }

    /// The id the latest new task's send chose, unless the report already has the task:
    /// the peer may have started it though no answer said so (the send still on its way,
    /// or its answer lost).
    pub fn sent_unanswered(&self) -> Option<String> {
        self.sending
            .clone()
            .filter(|id| self.tasks.iter().all(|task| task.task_id != *id))
    }

    /// The tasks touched that are neither settled (terminal) nor abandoned.
    pub fn unsettled_tasks(&self) -> Vec<String> {
        self.tasks
            .iter()
            .filter(|task| task.abandoned.is_none())
            .filter(|task| {
                !task
                    .applied
                    .last()
                    .is_some_and(|applied| applied.to.is_terminal())
            })
            .map(|task| task.task_id.clone())
            .collect()
    }

    /// The tasks abandoned whose cancel failed on the way (the peer unreachable, the answer
    /// lost), with why each was abandoned: the peer may still have them live, and only
    /// this consumer knows of them, so it still owes each a cancel.
    pub fn cancels_owed(&self) -> Vec<(String, String)> {
        self.tasks
            .iter()
            .filter_map(|task| {
                let abandoned = task.abandoned.as_ref()?;
                matches!(abandoned.cancel, CancelResult::Failed(_))
                    .then(|| (task.task_id.clone(), abandoned.reason.clone()))
            })
            .collect()
    }

    /// Finishes the report with the accepted outcome.
    pub fn finish(self, outcome: Outcome, profile: Option<PeerLifecycleProfile>) -> JobReport {
        TraceEvent::Outcome {
            job: self.job.as_str().into(),
            outcome: outcome.traced(),
        }
        .emit();
        let tasks = self
            .tasks
            .into_iter()
            .map(|mut task| {
                task.final_state = task.applied.last().map(|applied| applied.to);
                task
            })
            .collect();
        JobReport {
            job: self.job,
            consumer: self.consumer,
            peer: self.peer,
            tasks,
            outcome,
            deadlines: self.deadlines,
            anomalies: self.anomalies,
            profile,
        }
    }

    fn view(&mut self, task_id: &str) -> &mut TaskView {
        let index = match self.tasks.iter().position(|task| task.task_id == task_id) {
            Some(index) => index,
            None => {
                self.tasks.push(TaskView {
                    task_id: task_id.to_string(),
                    applied: Vec::new(),
                    final_state: None,
                    abandoned: None,
                });
                self.tasks.len() - 1
            }
        };
        &mut self.tasks[index]
    }
}
