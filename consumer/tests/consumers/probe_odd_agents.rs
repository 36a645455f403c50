//! `probe` against scripted agents that do what no personality does: each read of a stream
//! ends within the probe's bound, and what the probe could not tell apart is left unmeasured
//! with a note, never classified as the nearest behaviour it knows.

use crate::scripted_agent::{Answer, Piece, opening, serve, snapshot, status, task};
use meshsim_consumer::probe::{ProbeConfig, ProbeReport, probe};
use meshsim_consumer::{ClientConfig, TcpConnector};
use serde_json::Value;
use std::time::Duration;

const ID: &str = "t-1";

/// Probes the agent at `base` with a half-second bound on each read; the outer minute only
/// turns a hang into a failure.
async fn probed(base: &str) -> ProbeReport {
    let config = ProbeConfig {
        client: ClientConfig {
            idle_timeout: Duration::from_millis(500),
            ..ClientConfig::default()
        },
        settle: Duration::from_millis(200),
        ..ProbeConfig::default()
    };
    meshsim_time::timeout(
        Duration::from_secs(60),
        probe(TcpConnector::default(), base, &config),
    )
    .await
    .expect("the probe ends")
    .expect("the Card is readable")
}

/// A first turn that asks for input and closes its stream.
fn asks() -> Answer {
    let mut pieces = opening(ID);
    pieces.push(Piece::Event(status(ID, "TASK_STATE_INPUT_REQUIRED")));
    Answer::Stream(pieces)
}

/// What a well-behaved agent answers to everything but the first turn.
fn otherwise(method: &str) -> Answer {
    match method {
        "GetTask" => Answer::Result(task(ID, "TASK_STATE_INPUT_REQUIRED")),
        "SubscribeToTask" => Answer::Stream(vec![Piece::Event(snapshot(
            ID,
            "TASK_STATE_INPUT_REQUIRED",
        ))]),
        "CancelTask" => Answer::Result(task(ID, "TASK_STATE_CANCELED")),
        _ => Answer::Stream(vec![
            Piece::Event(status(ID, "TASK_STATE_WORKING")),
            Piece::Event(status(ID, "TASK_STATE_COMPLETED")),
        ]),
    }
}

/// Whether the call starts the first turn: a streamed message for no task yet.
fn first_turn(method: &str, params: &Value) -> bool {
    method == "SendStreamingMessage" && params["message"]["taskId"].is_null()
}

fn noted(report: &ProbeReport, words: &str) -> bool {
    report.notes.iter().any(|note| note.contains(words))
}

#[tokio::test]
async fn a_heartbeat_that_never_ends_the_turn_ends_the_read_at_the_bound() {
    let base = serve(|method: &str, params: &Value| {
        if first_turn(method, params) {
            let mut pieces = opening(ID);
            let working = status(ID, "TASK_STATE_WORKING");
            pieces.push(Piece::Every(Duration::from_millis(50), working));
            Answer::Stream(pieces)
        } else {
            otherwise(method)
        }
    })
    .await;
    let report = probed(&base).await;
    assert!(!report.reached_input_required, "{report:#?}");
    assert!(
        noted(
            &report,
            "first turn: waiting for a state that ends the turn timed out after 500ms"
        ),
        "{report:#?}"
    );
}

#[tokio::test]
async fn a_malformed_event_after_input_required_says_nothing_of_how_streams_close() {
    let base = serve(|method: &str, params: &Value| {
        if first_turn(method, params) {
            let mut pieces = opening(ID);
            pieces.push(Piece::Event(status(ID, "TASK_STATE_INPUT_REQUIRED")));
            pieces.push(Piece::Raw("data: {not json\n\n"));
            pieces.push(Piece::Hold);
            Answer::Stream(pieces)
        } else {
            otherwise(method)
        }
    })
    .await;
    let report = probed(&base).await;
    assert!(report.reached_input_required, "{report:#?}");
    assert_eq!(report.stream_closes_on_input_required, None, "{report:#?}");
    assert!(noted(&report, "first turn: malformed"), "{report:#?}");
}

#[tokio::test]
async fn a_resubscribe_that_fails_after_its_snapshot_is_not_taken_for_resuming() {
    let base = serve(|method: &str, params: &Value| match method {
        _ if first_turn(method, params) => asks(),
        "SubscribeToTask" => Answer::Stream(vec![
            Piece::Event(snapshot(ID, "TASK_STATE_INPUT_REQUIRED")),
            Piece::Raw(
                "data: {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"gone\"}}\n\n",
            ),
        ]),
        other => otherwise(other),
    })
    .await;
    let report = probed(&base).await;
    assert_eq!(report.resubscribe_after_input_required, None, "{report:#?}");
    assert!(
        noted(
            &report,
            "resubscribe: the stream carried input-required and then failed"
        ),
        "{report:#?}"
    );
}

#[tokio::test]
async fn a_task_answered_under_another_id_is_not_the_task_asked_after() {
    let base = serve(|method: &str, params: &Value| match method {
        _ if first_turn(method, params) => asks(),
        "GetTask" => Answer::Result(task("someone-else", "TASK_STATE_FAILED")),
        other => otherwise(other),
    })
    .await;
    let report = probed(&base).await;
    assert_eq!(report.task_survives_stream_close, None, "{report:#?}");
    assert_eq!(report.get_after_followup, None, "{report:#?}");
    assert!(
        noted(
            &report,
            "get after the stream closed: asked for t-1, answered with someone-else"
        ),
        "{report:#?}"
    );
}

#[tokio::test]
async fn an_answer_to_another_request_id_is_refused_as_malformed() {
    let base = serve(|method: &str, _: &Value| match method {
        "GetTask" => Answer::Body(serde_json::json!({
            "jsonrpc": "2.0", "id": 999, "result": task(ID, "TASK_STATE_WORKING")
        })),
        other => otherwise(other),
    })
    .await;
    let client = meshsim_consumer::A2aClient::discover(
        TcpConnector::default(),
        &base,
        ClientConfig::default(),
    )
    .await
    .unwrap();
    let error = client.get_task(ID).await.unwrap_err().to_string();
    assert!(
        error.contains("the answer's id 999 is not the request's"),
        "{error}"
    );
}
