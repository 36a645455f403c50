//! The proxy on its own: calls through one job's door, against a v1.0 runtime serving both
//! bindings.

use super::Agent;
use super::exchange_log::{Exchange, ProxyLog};
use super::stream_relay::{RelayState, StreamRelay};
use crate::lock::lock;
use axum::body::{Body, Bytes};
use http::Request;
use meshsim_protocol::Dialect;
use meshsim_protocol::clock::Clock;
use meshsim_protocol::sse::SseParser;
use meshsim_runtimes::{Runtime, builtin};
use meshsim_sim::JsonStrings;
use serde_json::{Value, json};
use std::sync::Arc;
use tower::ServiceExt;

fn request(method: &str, path: &str, body: Option<Value>) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(path)
        .header("host", "agent.test")
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(body.map_or_else(Body::empty, |body| Body::from(body.to_string())))
        .unwrap()
}

/// Starts a task on the agent's current instance without the proxy (as another client
/// would), and returns its id.
async fn task_behind_the_proxys_back(agent: &Arc<Agent>) -> String {
    let (router, executor) = {
        let instance = lock(&agent.instance);
        let instance = instance.as_ref().expect("running");
        (instance.router.clone(), instance.handle().unwrap().clone())
    };
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
        "message": {"messageId": "m-1", "role": "ROLE_USER",
            "parts": [{"text": "book a table for two"}]},
        "configuration": {"returnImmediately": true}}});
    let answer = executor
        .spawn(router.oneshot(request("POST", "/", Some(send))))
        .await
        .unwrap()
        .unwrap();
    let bytes = axum::body::to_bytes(answer.into_body(), usize::MAX);
    let body: Value = serde_json::from_slice(&bytes.await.unwrap()).unwrap();
    body["result"]["task"]["id"]
        .as_str()
        .expect("a task")
        .to_string()
}

/// A v1.0 python-correct agent behind the proxy, with no triggers, and its log.
fn python_correct_agent() -> (Arc<Agent>, ProxyLog) {
    let runtime = Runtime::new(
        builtin("python-correct").unwrap(),
        Dialect::V1_0,
        Clock::wall(),
        7,
    );
    let log = ProxyLog::announced(None);
    let agent = Agent::start("agent", runtime, Vec::new(), log.clone()).unwrap();
    (agent, log)
}

/// HTTP+JSON reads a task with a GET: the GET is a numbered call like any other, and the
/// task id its answer carries is delivered to the job whose door it came through, as a
/// POST's would be. A Card fetch is not numbered.
#[tokio::test]
async fn an_http_json_get_is_a_call_and_delivers_the_task_ids_it_answers_with() {
    let (agent, log) = python_correct_agent();
    let task = task_behind_the_proxys_back(&agent).await;
    let door = agent.router("reader");
    let card = request("GET", Dialect::V1_0.card_path(), None);
    assert_eq!(door.clone().oneshot(card).await.unwrap().status(), 200);
    let get = request("GET", &format!("/tasks/{task}"), None);
    let answer = door.oneshot(get).await.unwrap();
    assert_eq!(answer.status(), 200);
    axum::body::to_bytes(answer.into_body(), usize::MAX)
        .await
        .unwrap();
    let calls: Vec<Option<u32>> = log
        .exchanges()
        .iter()
        .map(|exchange| exchange.call)
        .collect();
    assert_eq!(calls, [None, Some(1)], "the Card fetch, then call 1");
    let delivery = log.deliveries().remove(&("agent".to_string(), task));
    let delivery = delivery.expect("the id was delivered");
    assert_eq!(
        (delivery.job.as_deref(), delivery.call),
        (Some("reader"), Some(1))
    );
    agent.stop();
}

/// An error inside a stream (a runtime that cannot express an event in its dialect answers
/// it as an error event) is the exchange's refusal, as a plain answer's error is, wherever
/// the relayed chunks split its event; a stream of results has none.
#[tokio::test]
async fn the_first_error_a_stream_carries_is_its_refusal() {
    let (agent, log) = python_correct_agent();
    let relay_of = |chunks: Vec<&'static str>| StreamRelay {
        exchange: Exchange {
            agent: "agent".into(),
            job: "reader".into(),
            call: Some(1),
            method: "POST".into(),
            path: "/".into(),
            events: 0,
            streamed: true,
            end: "dropped by the program".into(),
            refusal: None,
            at_ms: 0,
        },
        strings: JsonStrings::default(),
        agent: Arc::clone(&agent),
        call: 1,
        stream: 1,
        events: 0,
        after_newline: false,
        parsed: SseParser::default(),
        generation: agent.generation.subscribe(),
        body: Body::from_stream(futures_util::stream::iter(
            chunks
                .into_iter()
                .map(|chunk| Ok::<_, std::io::Error>(Bytes::from_static(chunk.as_bytes()))),
        ))
        .into_data_stream(),
        state: RelayState::Open,
        _open: log.stream_opened(),
    };
    let result = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"id\":\"t-1\"}}}\n\n";
    let mut relay = relay_of(vec![
        result,
        "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,",
        "\"message\":\"cannot say it in v0.1\"}}\n",
        "\n",
        "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32001,\"message\":\"later\"}}\n\n",
    ]);
    while relay.next().await.is_some() {}
    assert_eq!(relay.exchange.events, 3);
    assert_eq!(
        relay.exchange.refusal.as_deref(),
        Some("-32603 cannot say it in v0.1"),
        "the first error, though split across chunks"
    );
    let mut results = relay_of(vec![result, result]);
    while results.next().await.is_some() {}
    assert_eq!(
        (results.exchange.events, results.exchange.refusal.as_deref()),
        (2, None)
    );
    agent.stop();
}
