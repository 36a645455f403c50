//! The v1.0 HTTP+JSON binding: every built-in personality answers every method the same
//! over HTTP+JSON as over JSON-RPC. Two instances of the same runtime (same seed, a fixed
//! clock, paused time) get the same calls, one through each binding, and each answer
//! decodes to the same model: results, stream events and error codes. An HTTP+JSON error
//! must carry the HTTP status the spec's table gives its code, and the Card lists both
//! interfaces.

use axum::Router;
use axum::body::Body;
use http::{Method as HttpMethod, Request as HttpRequest};
use http_body_util::BodyExt;
use meshsim_protocol::clock::Clock;
use meshsim_protocol::sse::{DEFAULT_MAX_EVENT_BYTES, SseParser};
use meshsim_protocol::{
    Dialect, ErrorCode, GetTaskParams, ListTasksParams, Message, Method, Part, Request, RequestId,
    Role, RpcRequest, RpcResult, SendMessageParams, StreamEvent, http_json,
};
use meshsim_runtimes::{BUILTIN_NAMES, Runtime, builtin};
use serde_json::{Value, json};
use std::time::Duration;
use tower::ServiceExt;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Binding {
    JsonRpc,
    HttpJson,
}

/// What a call answered, as the model.
#[derive(Debug, PartialEq)]
enum Outcome {
    Result(Box<RpcResult>),
    Events(Vec<StreamEvent>),
    Error(ErrorCode),
}

/// The HTTP request for `request` over `binding`, with `headers` in place of the defaults.
fn http_request(
    binding: Binding,
    request: &Request,
    headers: &[(&'static str, &'static str)],
) -> HttpRequest<Body> {
    let codec = Dialect::V1_0.codec();
    let encoded = codec
        .encode_request(&RpcRequest {
            id: RequestId::Number(1),
            request: request.clone(),
            tenant: None,
        })
        .expect("encodes")
        .value;
    let (method, path, body) = match binding {
        Binding::JsonRpc => (HttpMethod::POST, "/".to_string(), Some(encoded)),
        Binding::HttpJson => {
            let params = encoded["params"].clone();
            match request {
                Request::SendMessage(_) => (HttpMethod::POST, "/message:send".into(), Some(params)),
                Request::SendStreamingMessage(_) => {
                    (HttpMethod::POST, "/message:stream".into(), Some(params))
                }
                Request::GetTask(get) => {
                    let query = get
                        .history_length
                        .map(|n| format!("?historyLength={n}"))
                        .unwrap_or_default();
                    (HttpMethod::GET, format!("/tasks/{}{query}", get.id), None)
                }
                Request::ListTasks(list) => {
                    let size = list.page_size.unwrap_or(50);
                    (HttpMethod::GET, format!("/tasks?pageSize={size}"), None)
                }
                Request::CancelTask { id } => (
                    HttpMethod::POST,
                    format!("/tasks/{id}:cancel"),
                    Some(json!({})),
                ),
                Request::SubscribeToTask { id } => {
                    (HttpMethod::GET, format!("/tasks/{id}:subscribe"), None)
                }
            }
        }
    };
    let mut http = HttpRequest::builder()
        .method(method)
        .uri(path)
        .header("host", "agent.test")
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(body.map_or_else(Body::empty, |body| Body::from(body.to_string())))
        .unwrap();
    for (name, value) in headers {
        http.headers_mut()
            .insert(*name, http::HeaderValue::from_static(value));
    }
    http
}

/// A body of `binding` as the JSON-RPC response the v1.0 codec reads (HTTP+JSON sends the
/// `result` alone).
fn as_response(binding: Binding, body: Value) -> Value {
    match binding {
        Binding::JsonRpc => body,
        Binding::HttpJson => json!({"jsonrpc": "2.0", "id": 1, "result": body}),
    }
}

async fn call(router: &Router, binding: Binding, request: Request) -> Outcome {
    call_with_headers(router, binding, request, &[]).await
}

async fn call_with_headers(
    router: &Router,
    binding: Binding,
    request: Request,
    headers: &[(&'static str, &'static str)],
) -> Outcome {
    let method = request.method();
    let response = router
        .clone()
        .oneshot(http_request(binding, &request, headers))
        .await
        .unwrap();
    let status = response.status().as_u16();
    let streamed = response
        .headers()
        .get("content-type")
        .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
    let mut body = response.into_body();
    let codec = Dialect::V1_0.codec();
    if streamed {
        let mut parser = SseParser::new(DEFAULT_MAX_EVENT_BYTES);
        let mut events = Vec::new();
        // A personality that keeps its stream open (and pings on it) is read for a minute
        // of paused time.
        let deadline = meshsim_time::Instant::now() + Duration::from_secs(60); // wall-clock-ok: paused tokio time in a test
        while let Ok(Some(frame)) = meshsim_time::timeout_at(deadline, body.frame()).await {
            let Ok(data) = frame.unwrap().into_data() else {
                continue;
            };
            for event in parser.feed(&data) {
                let json: Value = serde_json::from_str(&event.unwrap().data).unwrap();
                let decoded = codec
                    .decode_response(&as_response(binding, json), Some(method))
                    .expect("event decodes");
                match decoded.outcome {
                    Ok(RpcResult::Event(event)) => events.push(event),
                    other => panic!("{binding:?}: expected an event, got {other:?}"),
                }
            }
        }
        return Outcome::Events(events);
    }
    let bytes = body.collect().await.unwrap().to_bytes();
    let json: Value = serde_json::from_slice(&bytes).unwrap();
    if binding == Binding::HttpJson && status != 200 {
        let error = http_json::error_from(&json).expect("an error body");
        assert_eq!(
            (status, json["error"]["status"].as_str().unwrap()),
            http_json::status_of(error.code),
            "{json}"
        );
        return Outcome::Error(error.code);
    }
    assert_eq!(status, 200, "{binding:?}: {json}");
    let decoded = codec
        .decode_response(&as_response(binding, json), Some(method))
        .expect("decodes");
    match decoded.outcome {
        Ok(result) => Outcome::Result(Box::new(result)),
        Err(error) => Outcome::Error(error.code),
    }
}

fn send(text: &str, message_id: &str, task_id: Option<&str>) -> SendMessageParams {
    let mut message = Message::text(Role::User, Some(message_id.to_string()), text);
    message.task_id = task_id.map(str::to_string);
    message.parts = vec![Part::text(text)];
    SendMessageParams {
        message,
        configuration: None,
        metadata: None,
    }
}

fn task_id(outcome: &Outcome) -> Option<String> {
    match outcome {
        Outcome::Result(result) => match result.as_ref() {
            RpcResult::Task(task) => Some(task.id.clone()),
            _ => None,
        },
        Outcome::Events(events) => events
            .first()
            .and_then(|event| event.task_id())
            .map(str::to_string),
        Outcome::Error(_) => None,
    }
}

/// Every method through `binding` against a fresh instance of `personality`: a send that
/// completes, a streamed first turn, a subscribe to it, get, list, cancel of it and of the
/// completed task, a get of an unknown task, and a message from an unknown role.
async fn lifecycle(personality: &str, binding: Binding) -> Vec<(Method, Outcome)> {
    let runtime = Runtime::new(
        builtin(personality).unwrap(),
        Dialect::V1_0,
        Clock::fixed(Duration::ZERO),
        7,
    );
    let router = runtime.router();
    let mut answers = Vec::new();
    let mut step = async |request: Request| {
        let method = request.method();
        let outcome = call(&router, binding, request).await;
        let id = task_id(&outcome);
        answers.push((method, outcome));
        id
    };
    let done = step(Request::SendMessage(send(
        "hello",
        "tck-complete-task-1",
        None,
    )))
    .await;
    let waiting = step(Request::SendStreamingMessage(send(
        "plan a trip",
        "m-2",
        None,
    )))
    .await
    .expect("the first turn names its task");
    step(Request::SubscribeToTask {
        id: waiting.clone(),
    })
    .await;
    step(Request::GetTask(GetTaskParams {
        id: waiting.clone(),
        history_length: Some(1),
    }))
    .await;
    step(Request::ListTasks(ListTasksParams {
        page_size: Some(10),
        ..Default::default()
    }))
    .await;
    step(Request::CancelTask { id: waiting }).await;
    if let Some(done) = done {
        step(Request::CancelTask { id: done }).await;
    }
    step(Request::GetTask(GetTaskParams {
        id: "no-such-task".to_string(),
        history_length: None,
    }))
    .await;
    let mut unknown_role = send("hello", "m-3", None);
    unknown_role.message.role = Role::Unknown("UNRECOGNIZED".to_string());
    step(Request::SendMessage(unknown_role)).await;
    answers
}

#[tokio::test(start_paused = true)]
async fn every_personality_answers_the_same_over_http_json_as_over_json_rpc() {
    for personality in BUILTIN_NAMES {
        let json_rpc = lifecycle(personality, Binding::JsonRpc).await;
        let rest = lifecycle(personality, Binding::HttpJson).await;
        assert_eq!(json_rpc.len(), rest.len(), "{personality}");
        for (n, (over_rpc, over_rest)) in json_rpc.iter().zip(&rest).enumerate() {
            assert_eq!(over_rpc, over_rest, "{personality}, call {n}");
        }
        let errors: Vec<ErrorCode> = rest
            .iter()
            .filter_map(|(_, outcome)| match outcome {
                Outcome::Error(code) => Some(*code),
                _ => None,
            })
            .collect();
        assert!(
            errors.contains(&ErrorCode::InvalidParams),
            "{personality}: the unknown role is refused: {errors:?}"
        );
        let unknown = &rest[rest.len() - 2];
        assert_eq!(
            unknown.1,
            Outcome::Error(ErrorCode::TaskNotFound),
            "{personality}"
        );
    }
}

/// A personality's header rules hold over either binding: `exact_version` (a2a-js 1.3
/// refuses `A2A-Version: 1.1`) and `check_content_type` (a body declared as anything but JSON).
#[tokio::test(start_paused = true)]
async fn every_personality_checks_request_headers_the_same_over_both_bindings() {
    let mut refusals = Vec::new();
    for personality in BUILTIN_NAMES {
        for headers in [[("A2A-Version", "1.1")], [("content-type", "text/plain")]] {
            let mut outcomes = Vec::new();
            for binding in [Binding::JsonRpc, Binding::HttpJson] {
                let runtime = Runtime::new(
                    builtin(personality).unwrap(),
                    Dialect::V1_0,
                    Clock::fixed(Duration::ZERO),
                    7,
                );
                let request = Request::SendMessage(send("hello", "m-1", None));
                outcomes
                    .push(call_with_headers(&runtime.router(), binding, request, &headers).await);
            }
            assert_eq!(outcomes[0], outcomes[1], "{personality}, {headers:?}");
            if let Outcome::Error(code) = &outcomes[0] {
                refusals.push((*personality, headers[0].0, *code));
            }
        }
    }
    // The rules are on somewhere, so the comparison above saw refusals, not only answers.
    assert!(
        refusals.contains(&("a2a-js-1.3", "A2A-Version", ErrorCode::VersionNotSupported)),
        "{refusals:?}"
    );
    assert!(
        refusals
            .iter()
            .any(|(_, header, code)| *header == "content-type"
                && *code == ErrorCode::ContentTypeNotSupported),
        "{refusals:?}"
    );
}

#[tokio::test]
async fn the_card_lists_both_bindings_and_unserved_routes_refuse_as_json_rpc_does() {
    let runtime = Runtime::new(
        builtin("python-correct").unwrap(),
        Dialect::V1_0,
        Clock::fixed(Duration::ZERO),
        7,
    );
    let router = runtime.router();
    let get = |path: &str| {
        HttpRequest::builder()
            .uri(path)
            .header("host", "agent.test")
            .header("A2A-Version", "1.0")
            .body(Body::empty())
            .unwrap()
    };
    let card = router
        .clone()
        .oneshot(get("/.well-known/agent-card.json"))
        .await
        .unwrap();
    let card: Value =
        serde_json::from_slice(&card.into_body().collect().await.unwrap().to_bytes()).unwrap();
    assert_eq!(
        card["supportedInterfaces"],
        json!([
            {"url": "http://agent.test/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "http://agent.test", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
        ])
    );
    for (path, status, reason) in [
        (
            "/tasks/t-1/pushNotificationConfigs",
            400,
            "PUSH_NOTIFICATION_NOT_SUPPORTED",
        ),
        ("/extendedAgentCard", 400, "UNSUPPORTED_OPERATION"),
        ("/tasks/t-1:frobnicate", 404, "METHOD_NOT_FOUND"),
        // A path that does not decode: refused in the binding's shape, not as plain text.
        ("/tasks/%ff%fe", 400, "INVALID_REQUEST"),
    ] {
        let answer = router.clone().oneshot(get(path)).await.unwrap();
        assert_eq!(answer.status().as_u16(), status, "{path}");
        assert_eq!(answer.headers()["content-type"], http_json::MEDIA_TYPE);
        let body: Value =
            serde_json::from_slice(&answer.into_body().collect().await.unwrap().to_bytes())
                .unwrap();
        assert_eq!(body["error"]["details"][0]["reason"], reason, "{path}");
    }
    // The query's one boolean reads as the binding's `true` and `false`, and nothing else.
    for (path, status) in [
        ("/tasks?includeArtifacts=true", 200),
        ("/tasks?includeArtifacts=false", 200),
        ("/tasks?includeArtifacts=maybe", 400),
    ] {
        let answer = router.clone().oneshot(get(path)).await.unwrap();
        assert_eq!(answer.status().as_u16(), status, "{path}");
    }
    // The version may come as a request parameter instead of the header (v1.0, section
    // 3.6.1); without either, a v1.0 server reads 0.3 and refuses.
    for (path, status) in [
        ("/tasks?A2A-Version=1.0", 200),
        ("/tasks/no-such-task?A2A-Version=1.0", 404),
        ("/tasks", 400),
    ] {
        let mut request = get(path);
        request.headers_mut().remove("A2A-Version");
        let answer = router.clone().oneshot(request).await.unwrap();
        assert_eq!(answer.status().as_u16(), status, "{path}");
    }
    // A2A-Version is checked as over JSON-RPC.
    let mut old = get("/tasks");
    old.headers_mut()
        .insert("A2A-Version", http::HeaderValue::from_static("0.3"));
    let answer = router.clone().oneshot(old).await.unwrap();
    assert_eq!(answer.status().as_u16(), 400);
}
