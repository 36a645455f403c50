//! What the A2A TCK needs of a runtime, through the router: its messageId prefixes steer the
//! lifecycle, unaccepted media types and unserved methods get the spec's errors, and the
//! a2a-js-1.3 personality answers the two content checks as the real SDK does
//! (docs/conformance.md). In process, on tokio's paused clock.

use crate::support::{Client, Target};
use axum::body::Body;
use http::{Method as HttpMethod, Request as HttpRequest};
use http_body_util::BodyExt;
use meshsim_protocol::clock::Clock;
use meshsim_protocol::{
    Dialect, ErrorCode, FileContent, Message, Part, PartContent, Role, RpcResult,
    SendMessageParams, TaskState,
};
use meshsim_runtimes::{Runtime, builtin};
use serde_json::Value;
use std::time::Duration;
use tower::ServiceExt;

fn runtime(name: &str) -> Runtime {
    Runtime::new(
        builtin(name).unwrap(),
        Dialect::V1_0,
        Clock::fixed(Duration::ZERO),
        7,
    )
}

fn client(name: &str) -> Client {
    Client::new(Target::Router(runtime(name).router()), Dialect::V1_0)
}

fn tck_message(prefix: &str, task_id: Option<&str>) -> SendMessageParams {
    let mut message = Message::text(Role::User, Some(format!("{prefix}-5e1f-jsonrpc")), "TCK");
    message.task_id = task_id.map(str::to_string);
    SendMessageParams {
        message,
        configuration: None,
        metadata: None,
    }
}

#[tokio::test(start_paused = true)]
async fn tck_prefixes_steer_the_lifecycle() {
    let client = client("python-correct");
    let task = client
        .send(tck_message("tck-artifact-file-url", None))
        .await
        .task();
    assert_eq!(task.status.state, TaskState::Completed);
    assert!(matches!(
        &task.artifacts[0].parts[0].content,
        PartContent::File(FileContent { uri: Some(uri), .. }) if uri == "https://example.com/output.txt"
    ));

    let waiting = client
        .send(tck_message("tck-input-required", None))
        .await
        .task();
    assert_eq!(waiting.status.state, TaskState::InputRequired);
    let still = client
        .send(tck_message("tck-input-required", Some(&waiting.id)))
        .await
        .task();
    assert_eq!(still.status.state, TaskState::InputRequired);
    let done = client
        .send(tck_message("tck-complete-task", Some(&waiting.id)))
        .await
        .task();
    assert_eq!(done.status.state, TaskState::Completed);
    assert_eq!(
        done.status.message.unwrap().text_content(),
        "Hello from TCK"
    );

    let reply = client
        .send(tck_message("tck-message-response", None))
        .await
        .json();
    let Ok(RpcResult::Message(message)) = reply.outcome else {
        panic!("expected a Message, got {:?}", reply.outcome)
    };
    assert_eq!(message.role, Role::Agent);
    assert_eq!(message.text_content(), "Direct message response");
}

fn with_unsupported_file() -> SendMessageParams {
    let mut params = tck_message("tck-send-003", None);
    params.message.parts = vec![Part {
        content: PartContent::File(FileContent {
            name: None,
            media_type: Some("application/x-unsupported-tck-type".to_string()),
            bytes: Some("dGNr".to_string()),
            uri: None,
        }),
        metadata: None,
    }];
    params
}

#[tokio::test(start_paused = true)]
async fn an_unaccepted_media_type_is_refused_unless_the_personality_accepts_any() {
    let refused = client("python-correct")
        .send(with_unsupported_file())
        .await
        .error();
    assert_eq!(refused.code, ErrorCode::ContentTypeNotSupported);
    let accepted = client("a2a-js-1.3")
        .send(with_unsupported_file())
        .await
        .task();
    assert_eq!(accepted.status.state, TaskState::Completed);
}

/// The TCK's content-type case: a Python repr (not JSON) posted as `text/plain`.
async fn post_text_plain(name: &str) -> i64 {
    let request = HttpRequest::builder()
        .method(HttpMethod::POST)
        .uri("/")
        .header("host", "agent.test")
        .header("content-type", "text/plain")
        .header("A2A-Version", "1.0")
        .body(Body::from(
            "{'jsonrpc': '2.0', 'id': 1, 'method': 'SendMessage'}",
        ))
        .unwrap();
    let response = runtime(name).router().oneshot(request).await.unwrap();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let json: Value = serde_json::from_slice(&bytes).unwrap();
    json["error"]["code"].as_i64().unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_non_json_content_type_is_refused_before_reading_only_by_a2a_js() {
    assert_eq!(post_text_plain("a2a-js-1.3").await, -32005);
    assert_eq!(post_text_plain("python-correct").await, -32700);
}

#[tokio::test(start_paused = true)]
async fn unserved_methods_get_the_spec_errors() {
    let client = client("python-correct");
    let push = r#"{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"t","url":"https://example.com"}}"#;
    let refused = client
        .post_json(push, Some("1.0"))
        .await
        .outcome
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::PushNotificationNotSupported);
    let extended = r#"{"jsonrpc":"2.0","id":2,"method":"GetExtendedAgentCard","params":{}}"#;
    let refused = client
        .post_json(extended, Some("1.0"))
        .await
        .outcome
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::UnsupportedOperation);
}
