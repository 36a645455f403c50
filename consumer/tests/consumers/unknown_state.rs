//! A peer that reports a task state outside the spec: the reconciling consumer reads it as
//! unknown, never applies it, names the value in an anomaly, and goes on to the known states
//! that follow. The unknown state is the recorded @a2a-js/sdk 1.3.0 payload (a golden vector
//! of the protocol crate), `"state": "UNRECOGNIZED"`.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::Response;
use axum::routing::{get, post};
use meshsim_consumer::ledger::StateVerdict;
use meshsim_consumer::{
    AnomalyKind, Consumer, Deadlines, Job, Outcome, ReconcilingConfig, ReconcilingConsumer,
    TcpConnector,
};
use meshsim_protocol::{Dialect, TaskState};
use meshsim_runtimes::{agent_card, builtin};
use serde_json::{Value, json};
use std::time::Duration;

/// @a2a-js/sdk 1.3.0's status update with a state outside the proto.
const UNRECOGNIZED: &str = include_str!(
    "../../../protocol/tests/vectors/v1.0/js-unrecognized-state.stream-status-update.event.json"
);

/// The task the recorded payload is about.
fn task_id() -> String {
    let event: Value = serde_json::from_str(UNRECOGNIZED).unwrap();
    event["result"]["statusUpdate"]["taskId"]
        .as_str()
        .unwrap()
        .to_string()
}

fn status_update(state: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": {
        "taskId": task_id(), "contextId": "c-1", "status": {"state": state}}}})
}

/// The completed task, with its artifact, as a `GetTask` answer or a stream's last word.
fn completed_task() -> Value {
    json!({"id": task_id(), "contextId": "c-1",
        "status": {"state": "TASK_STATE_COMPLETED"},
        "artifacts": [{"artifactId": "a-1", "name": "summary",
            "parts": [{"text": "Summary in markdown"}]}]})
}

/// One streamed turn: the task submitted, working, the recorded UNRECOGNIZED update, its
/// artifact, then completed.
fn stream() -> Response {
    let submitted = json!({"jsonrpc": "2.0", "id": 1, "result": {"task": {
        "id": task_id(), "contextId": "c-1", "status": {"state": "TASK_STATE_SUBMITTED"}}}});
    let artifact = json!({"jsonrpc": "2.0", "id": 1, "result": {"artifactUpdate": {
        "taskId": task_id(), "contextId": "c-1",
        "artifact": completed_task()["artifacts"][0].clone()}}});
    let unrecognized: Value = serde_json::from_str(UNRECOGNIZED).unwrap();
    let events = [
        submitted,
        status_update("TASK_STATE_WORKING"),
        unrecognized,
        artifact,
        status_update("TASK_STATE_COMPLETED"),
    ];
    let body: String = events
        .iter()
        .map(|event| format!("data: {event}\n\n"))
        .collect();
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(Body::from(body))
        .unwrap()
}

/// Answers the methods a reconciling consumer calls on a streaming peer.
async fn rpc(body: Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap();
    match request["method"].as_str() {
        Some("SendStreamingMessage") => stream(),
        Some("GetTask") => Response::new(Body::from(
            json!({"jsonrpc": "2.0", "id": request["id"], "result": completed_task()}).to_string(),
        )),
        other => panic!("unexpected call {other:?}"),
    }
}

#[tokio::test]
async fn an_unrecognized_state_is_never_applied_and_is_named() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let card = agent_card(
        &builtin("python-correct").unwrap(),
        Dialect::V1_0,
        &format!("{url}/"),
    );
    let card = Dialect::V1_0
        .codec()
        .encode_card(&card)
        .unwrap()
        .value
        .to_string();
    let router = Router::new()
        .route(
            "/.well-known/agent-card.json",
            get(move || async move { card }),
        )
        .route("/", post(rpc));
    tokio::spawn(meshsim_sim::serve(listener, router));

    let consumer =
        ReconcilingConsumer::new(TcpConnector::default(), ReconcilingConfig::default(), 1);
    let report = consumer
        .run(Job {
            name: "unknown-state".to_string(),
            peer: url,
            request: "Summarise".to_string(),
            answer: "as plain text".to_string(),
            deadlines: Deadlines {
                submitted: Duration::from_secs(5),
                working: Duration::from_secs(5),
                job: Duration::from_secs(20),
            },
            cancel_at_input_required: false,
        })
        .await;

    assert!(
        matches!(&report.outcome, Outcome::Completed { task_id: id, .. } if *id == task_id()),
        "{:?}",
        report.outcome
    );
    let task = report.task(&task_id()).unwrap();
    let applied: Vec<TaskState> = task.applied.iter().map(|applied| applied.to).collect();
    assert_eq!(
        applied,
        [
            TaskState::Submitted,
            TaskState::Working,
            TaskState::Completed
        ],
        "the unknown state is never applied"
    );
    let unrecognised: Vec<&str> = report
        .anomalies
        .iter()
        .filter(|anomaly| anomaly.kind == AnomalyKind::Event(StateVerdict::Unrecognised))
        .map(|anomaly| anomaly.detail.as_str())
        .collect();
    assert_eq!(
        unrecognised,
        ["unknown (sent as \"UNRECOGNIZED\") reported while in working (connection 1, event 2)"]
    );
}
