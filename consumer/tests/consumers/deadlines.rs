//! The reconciling consumer owns deadlines for `submitted` and `working`: a task that sits
//! too long is canceled and the work re-dispatched, and nothing is left running.

use crate::support::{Kind, assert_no_divergences, assert_runtime_state, incident_job, run_job};
use meshsim_consumer::{CancelResult, JobReport, Outcome, ReconcilingConfig};
use meshsim_protocol::{Dialect, TaskState};
use meshsim_runtimes::{GroundTruth, builtin};

/// The job was dispatched again after each cancel: every task after the first was created
/// by the runtime after the one before it was canceled.
fn assert_redispatched_after_each_cancel(report: &JobReport, truth: &GroundTruth, context: &str) {
    assert!(report.tasks.len() >= 2, "no re-dispatch: {context}");
    for pair in report.tasks.windows(2) {
        let before = truth.task(&pair[0].task_id).expect("the runtime had it");
        let canceled_at = before
            .transitions
            .iter()
            .find(|transition| transition.to == TaskState::Canceled)
            .map(|transition| transition.at)
            .unwrap_or_else(|| panic!("{} was not canceled: {context}", before.id));
        let after = truth.task(&pair[1].task_id).expect("the runtime had it");
        assert!(
            after.created_at >= canceled_at,
            "{} created at {:?}, before {} was canceled at {canceled_at:?}: {context}",
            after.id,
            after.created_at,
            before.id
        );
    }
}

#[test]
fn a_task_stuck_in_submitted_is_canceled_and_redispatched() {
    for dialect in Dialect::ALL {
        let mut personality = builtin("python-correct").unwrap();
        // Every step of the script takes a minute: the task sits in `submitted` that long.
        personality.work.min_ms = 60_000;
        personality.work.max_ms = 60_000;
        let (report, truth) = run_job(personality, dialect, Kind::Reconciling, 3, incident_job());
        let context = format!("{dialect}: {report:#?}");
        assert!(
            matches!(report.outcome, Outcome::GaveUp { .. }),
            "{context}"
        );
        // One deadline per dispatch, each for `submitted`, each task canceled.
        let dispatches = ReconcilingConfig::default().max_tasks_given_up as usize;
        assert_eq!(report.deadlines.len(), dispatches, "{context}");
        assert!(
            report
                .deadlines
                .iter()
                .all(|hit| hit.state == TaskState::Submitted),
            "{context}"
        );
        assert_eq!(report.tasks.len(), dispatches, "{context}");
        for view in &report.tasks {
            let abandoned = view.abandoned.as_ref().expect("abandoned");
            assert_eq!(
                abandoned.cancel,
                CancelResult::Answered(TaskState::Canceled),
                "{context}"
            );
            assert_runtime_state(&truth, &view.task_id, TaskState::Canceled, &context);
        }
        assert_redispatched_after_each_cancel(&report, &truth, &context);
        assert_no_divergences(&report, &truth, &context);
    }
}

#[test]
fn a_task_working_past_its_deadline_is_canceled_and_redispatched() {
    let mut personality = builtin("go-replaying").unwrap();
    // The long-running script works in 100 one-second steps: 100 s in `working`.
    personality.work.min_ms = 1_000;
    personality.work.max_ms = 1_000;
    personality.work.long_running_steps = 100;
    let mut job = incident_job();
    job.request = "#long quarterly report".to_string();
    let (report, truth) = run_job(personality, Dialect::V1_0, Kind::Reconciling, 5, job);
    let context = format!("{report:#?}");
    assert!(!report.deadlines.is_empty(), "{context}");
    assert!(
        report
            .deadlines
            .iter()
            .all(|hit| hit.state == TaskState::Working),
        "{context}"
    );
    assert!(
        report.deadlines.iter().all(|hit| hit.limit_ms == 20_000),
        "the job's working deadline: {context}"
    );
    for view in &report.tasks {
        assert_runtime_state(&truth, &view.task_id, TaskState::Canceled, &context);
    }
    assert_redispatched_after_each_cancel(&report, &truth, &context);
    assert_no_divergences(&report, &truth, &context);
}
