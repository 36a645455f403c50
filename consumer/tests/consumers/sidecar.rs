//! A sidecar proxy (Envoy's route timeout) cuts every stream mid-task. The reconciling
//! consumer reattaches, recovers tasks whose answer was cut, stops streaming to a peer that
//! reaps tasks on a cut, and still completes, with nothing applied twice and nothing left
//! running.

use crate::support::{
    assert_no_divergences, assert_runtime_state, completion, incident_job, run_behind_sidecar,
};
use meshsim_protocol::{Dialect, TaskState};
use meshsim_runtimes::{Sidecar, builtin};

fn cutting_sidecar() -> Sidecar {
    Sidecar {
        route_timeout_ms: Some(2_000),
        idle_timeout_ms: None,
    }
}

fn long_job() -> meshsim_consumer::Job {
    let mut job = incident_job();
    job.peer = "http://edge:9000".to_string();
    // Thirty 200 ms work steps: six seconds in `working`, three route timeouts long.
    job.request = "#long quarterly report".to_string();
    job
}

fn check(personality: &str, dialect: Dialect) {
    let mut runtime = builtin(personality).unwrap();
    runtime.work.min_ms = 200;
    runtime.work.max_ms = 200;
    runtime.work.long_running_steps = 30;
    let (report, truth) = run_behind_sidecar(runtime, dialect, cutting_sidecar(), 9, long_job());
    let context = format!("{personality} {dialect}: {report:#?}");
    let (task_id, artifact) = completion(&report, &context);
    assert!(artifact.contains("chunk 30 of 30"), "{artifact}; {context}");
    assert_runtime_state(&truth, task_id, TaskState::Completed, &context);
    assert_no_divergences(&report, &truth, &context);
}

#[test]
fn streams_cut_mid_task_are_reattached() {
    for personality in ["python-correct", "go-replaying"] {
        for dialect in Dialect::ALL {
            check(personality, dialect);
        }
    }
}

#[test]
fn a_peer_that_reaps_on_cut_is_polled_instead() {
    // v0.1 (client-chosen ids) and v1.0 (ListTasks by context) can find a task whose
    // creating call was cut; v0.3 has neither.
    for dialect in [Dialect::V0_1, Dialect::V1_0] {
        check("jvm-reaping", dialect);
    }
}
