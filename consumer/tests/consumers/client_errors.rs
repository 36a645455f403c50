//! The client against misbehaving peers over loopback TCP: every failure is a typed error,
//! never a panic; keep-alive comments are ignored; a silent stream hits the idle timeout;
//! Card discovery falls back to `agent.json`.

use axum::Router;
use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::stream;
use meshsim_consumer::{A2aClient, ClientConfig, ClientError, TcpConnector};
use meshsim_protocol::clock::Clock;
use meshsim_protocol::{Dialect, ErrorCode, Message, Role, StreamEvent, TaskState};
use meshsim_runtimes::{Runtime, agent_card, builtin};
use std::convert::Infallible;
use std::time::Duration;

const CONFIG: ClientConfig = ClientConfig {
    request_timeout: Duration::from_secs(5),
    idle_timeout: Duration::from_millis(300),
    max_body_bytes: 1 << 20,
    max_event_bytes: 1 << 16,
};

/// Serves `router` on a loopback port; returns the base URL.
async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(meshsim_sim::serve(listener, router));
    url
}

/// A client for the peer at `url` (over loopback TCP, with [`CONFIG`]), whose Card it read.
async fn discover(url: &str) -> A2aClient<TcpConnector> {
    A2aClient::discover(TcpConnector::default(), url, CONFIG)
        .await
        .unwrap()
}

/// A v1.0 Card pointing at `url`, as JSON text.
fn card_json(url: &str) -> String {
    let card = agent_card(
        &builtin("python-correct").unwrap(),
        Dialect::V1_0,
        &format!("{url}/"),
    );
    Dialect::V1_0
        .codec()
        .encode_card(&card)
        .unwrap()
        .value
        .to_string()
}

/// A peer with a good Card whose JSON-RPC endpoint answers with `answer`.
async fn peer(answer: fn() -> Response) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let card = card_json(&url);
    let router = Router::new()
        .route(
            "/.well-known/agent-card.json",
            get(move || async move { card }),
        )
        .route("/", post(move || async move { answer() }));
    tokio::spawn(meshsim_sim::serve(listener, router));
    url
}

fn sse(chunks: Vec<&'static str>, then_silence: bool) -> Response {
    let body = stream::iter(
        chunks
            .into_iter()
            .map(|chunk| Ok::<_, Infallible>(Bytes::from(chunk))),
    );
    let body = if then_silence {
        Body::from_stream(body.chain(stream::pending()))
    } else {
        Body::from_stream(body)
    };
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(body)
        .unwrap()
}

fn message() -> Message {
    Message::text(Role::User, Some("m-1".to_string()), "hello")
}

#[tokio::test]
async fn discovery_falls_back_to_agent_json_and_speaks_v0_1() {
    let runtime = Runtime::new(
        builtin("python-correct").unwrap(),
        Dialect::V0_1,
        Clock::wall(),
        1,
    );
    let url = serve(runtime.router()).await;
    let client = discover(&url).await;
    assert_eq!(client.dialect(), Dialect::V0_1);
    assert!(
        client.card_url().ends_with("/.well-known/agent.json"),
        "{}",
        client.card_url()
    );
    assert_eq!(client.profile_key().card_version, "0.2.5");
}

#[tokio::test]
async fn a_peer_without_a_card_is_a_typed_error() {
    let url = serve(Router::new()).await;
    let error = A2aClient::discover(TcpConnector::default(), &url, CONFIG)
        .await
        .err()
        .unwrap();
    assert!(matches!(error, ClientError::NoCard { .. }), "{error}");
    assert!(error.to_string().contains("HTTP 404"), "{error}");
}

#[tokio::test]
async fn an_a2a_error_keeps_its_code() {
    let url = peer(|| {
        let body = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"no such task"}}"#;
        Response::new(Body::from(body))
    })
    .await;
    let client = discover(&url).await;
    let error = client.get_task("t-1").await.unwrap_err();
    assert_eq!(error.code(), Some(ErrorCode::TaskNotFound), "{error}");
    assert!(error.is_task_not_found());
    // The same error before a stream starts: plain JSON answers a streaming call. (A fresh
    // client, whose first request is id 1 again: the peer answers every request as id 1.)
    let client = discover(&url).await;
    let error = client.subscribe("t-1").await.err().unwrap();
    assert!(error.is_task_not_found(), "{error}");
}

#[tokio::test]
async fn garbage_and_http_failures_are_typed_errors() {
    let url = peer(|| Response::new(Body::from("<html>oops</html>"))).await;
    let client = discover(&url).await;
    let error = client.get_task("t-1").await.unwrap_err();
    assert!(matches!(error, ClientError::Malformed(_)), "{error}");

    let url = peer(|| {
        let mut response = Response::new(Body::from("down"));
        *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
        response
    })
    .await;
    let client = discover(&url).await;
    let error = client.cancel_task("t-1").await.unwrap_err();
    assert!(
        matches!(error, ClientError::Http { status: 500, .. }),
        "{error}"
    );

    let url =
        peer(|| Response::new(Body::from(r#"{"jsonrpc":"2.0","id":1,"result":{"id":7}}"#))).await;
    let client = discover(&url).await;
    let error = client.get_task("t-1").await.unwrap_err();
    assert!(matches!(error, ClientError::Decode(_)), "{error}");
}

const WORKING: &str = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":{\"taskId\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}}\n\n";

#[tokio::test]
async fn comments_are_skipped_and_bad_events_do_not_end_the_stream() {
    let url = peer(|| {
        sse(
            vec![
                ": ping\n\n",
                "data: {not json\n\n",
                ": ping - 2026\n\n",
                WORKING,
            ],
            false,
        )
    })
    .await;
    let client = discover(&url).await;
    let mut stream = client.stream_message(message()).await.unwrap();
    let first = stream.next().await.unwrap();
    assert!(matches!(first, Err(ClientError::Malformed(_))), "{first:?}");
    match stream.next().await {
        Some(Ok(StreamEvent::StatusUpdate(update))) => {
            assert_eq!(update.status.state, TaskState::Working)
        }
        other => panic!("expected the working update, got {other:?}"),
    }
    assert!(stream.next().await.is_none(), "the peer closed the stream");
}

#[tokio::test]
async fn a_silent_stream_hits_the_idle_timeout() {
    let url = peer(|| sse(vec![WORKING], true)).await;
    let client = discover(&url).await;
    let mut stream = client.stream_message(message()).await.unwrap();
    assert!(matches!(
        stream.next().await,
        Some(Ok(StreamEvent::StatusUpdate(_)))
    ));
    let silence = stream.next().await;
    assert!(
        matches!(silence, Some(Err(ClientError::Timeout { .. }))),
        "{silence:?}"
    );
    assert!(stream.next().await.is_none(), "a timed-out stream is over");
}

/// One event far larger than the client's `max_event_bytes`.
static HUGE: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| format!("data: {}\n\n", "x".repeat(100_000)));

#[tokio::test]
async fn an_oversized_event_is_refused() {
    let url = peer(|| sse(vec![HUGE.as_str(), WORKING], false)).await;
    let client = discover(&url).await;
    let mut stream = client.stream_message(message()).await.unwrap();
    let first = stream.next().await.unwrap();
    assert!(matches!(first, Err(ClientError::Malformed(_))), "{first:?}");
    assert!(matches!(
        stream.next().await,
        Some(Ok(StreamEvent::StatusUpdate(_)))
    ));
}
