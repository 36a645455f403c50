//! A job that cancels its task when asked for input: the reconciling consumer ends it
//! `canceled` on every seed runtime (against jvm-reaping, whose streamed task is already
//! gone, on a re-dispatched task that does not stream), nothing applied twice.

use crate::support::{
    Kind, SEED_PERSONALITIES, assert_no_divergences, assert_runtime_state, incident_job, run_job,
};
use meshsim_consumer::Outcome;
use meshsim_protocol::{Dialect, TaskState};
use meshsim_runtimes::builtin;

#[test]
fn reconciling_consumer_cancels_at_input_required_on_every_seed_runtime() {
    for personality in SEED_PERSONALITIES {
        for dialect in Dialect::ALL {
            let mut job = incident_job();
            job.cancel_at_input_required = true;
            let runtime = builtin(personality).unwrap();
            let (report, truth) = run_job(runtime, dialect, Kind::Reconciling, 13, job);
            let context = format!("{personality} {dialect}: {report:#?}");
            let Outcome::Canceled { task_id } = &report.outcome else {
                panic!("not canceled; {context}");
            };
            assert_runtime_state(&truth, task_id, TaskState::Canceled, &context);
            let applied: Vec<_> = report
                .task(task_id)
                .unwrap()
                .applied
                .iter()
                .map(|a| a.to)
                .collect();
            assert_eq!(applied.last(), Some(&TaskState::Canceled), "{context}");
            assert!(applied.contains(&TaskState::InputRequired), "{context}");
            assert_no_divergences(&report, &truth, &context);
        }
    }
}

#[test]
fn naive_consumer_cancels_where_the_task_survives() {
    let mut job = incident_job();
    job.cancel_at_input_required = true;
    let runtime = builtin("python-correct").unwrap();
    let (report, truth) = run_job(runtime, Dialect::V1_0, Kind::Naive, 13, job);
    let Outcome::Canceled { task_id } = &report.outcome else {
        panic!("not canceled: {report:#?}");
    };
    assert_eq!(truth.state(task_id), Some(TaskState::Canceled));
}
