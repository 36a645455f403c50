//! The report contract for a consumer written from scratch: what it applied, to which task,
//! and the one outcome it accepted. That is all the oracle needs to judge it; the richer
//! [`JobRecorder`] (event positions, anomalies, deadlines, learned profiles) is what the
//! built-in consumers use.
//!
//! ```
//! use meshsim_consumer::Report;
//! use meshsim_consumer::{Deadlines, Job, Outcome};
//! use meshsim_protocol::TaskState;
//!
//! let job = Job {
//!     name: "job-1".into(),
//!     peer: "http://agent:9000".into(),
//!     request: "summarise the incident".into(),
//!     answer: "yes".into(),
//!     deadlines: Deadlines::default(),
//!     cancel_at_input_required: false,
//! };
//! let mut report = Report::new(&job, "mine");
//! report.applied("task-1", TaskState::Submitted);
//! report.applied("task-1", TaskState::Completed);
//! let finished = report.finish(Outcome::Completed {
//!     task_id: "task-1".into(),
//!     artifact: "done".into(),
//! });
//! assert_eq!(finished.tasks[0].final_state, Some(TaskState::Completed));
//! assert_eq!(finished.tasks[0].applied[1].from, Some(TaskState::Submitted));
//! ```

use crate::job::Job;
use crate::ledger::{EventKind, EventRef};
use crate::recorder::JobRecorder;
use crate::report::{CancelResult, JobReport, Outcome};
use meshsim_protocol::TaskState;
use std::collections::BTreeMap;

/// The report of one job by a user's consumer, in the making.
#[derive(Debug)]
pub struct Report {
    recorder: JobRecorder,
    /// Each task's last applied state, for the `from` of the next.
    views: BTreeMap<String, TaskState>,
    applied: u32,
}

impl Report {
    /// Starts the report of `job` by the consumer called `consumer`.
    pub fn new(job: &Job, consumer: &str) -> Self {
        Report {
            recorder: JobRecorder::new(&job.name, consumer, &job.peer),
            views: BTreeMap::new(),
            applied: 0,
        }
    }

    /// The consumer applied `state` to its view of `task_id`: it now believes the task is
    /// in `state`, and acted on it. Call it once per change of belief; applying the same
    /// transition twice is what the oracle calls a double apply.
    pub fn applied(&mut self, task_id: &str, state: TaskState) {
        let from = self.views.insert(task_id.to_string(), state);
        self.applied += 1;
        let at = EventRef {
            connection: 0,
            index: self.applied,
            kind: EventKind::Reported,
        };
        self.recorder.applied(task_id, from, state, at, None);
    }

    /// The consumer stopped following `task_id` before it ended, without canceling it.
    pub fn abandoned(&mut self, task_id: &str, reason: &str) {
        self.recorder
            .abandoned(task_id, reason, CancelResult::NotAttempted);
    }

    /// The consumer canceled `task_id`, and the peer answered with the task in `state`.
    pub fn canceled(&mut self, task_id: &str, reason: &str, state: TaskState) {
        self.recorder
            .abandoned(task_id, reason, CancelResult::Answered(state));
    }

    /// Finishes the report with the one outcome the job accepted.
    pub fn finish(self, outcome: Outcome) -> JobReport {
        self.recorder.finish(outcome, None)
    }
}
