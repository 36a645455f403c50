//! The guard on its own: requests go through [`ServeGuard::router`] in process, with tenants
//! that say who they are, on a paused clock (a body that never arrives meets its deadline
//! without waiting for it).

use super::*;
use crate::builtin::builtin;
use crate::card::agent_card;
use axum::body::Bytes;
use axum::http::HeaderMap;
use axum::routing::{get, post};
use futures_util::StreamExt;
use serde_json::json;
use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::time::Duration;

const LIMITS: ServeLimits = ServeLimits {
    max_body_bytes: 128,
    body_timeout: Duration::from_secs(2),
    max_streams: 1,
    drain: BodyDrain {
        bytes: 1024,
        time: Duration::from_millis(100),
    },
};

/// A tenant that answers every POST with its own name, or for a streaming method with an
/// event stream that stays open.
fn tenant(name: &'static str) -> Router {
    Router::new().route(
        "/",
        post(move |body: Bytes| async move {
            if opens_stream("/", &body) {
                let events = futures_util::stream::once(async move {
                    Ok::<_, Infallible>(Bytes::from(format!("data: {name}\n\n")))
                })
                .chain(futures_util::stream::pending());
                let mut response = Response::new(Body::from_stream(events));
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(meshsim_protocol::sse::CONTENT_TYPE),
                );
                response
            } else {
                Response::new(Body::from(name))
            }
        }),
    )
}

/// A Card router serving `dialect`'s Card of a built-in personality at every path.
fn card(dialect: Dialect) -> Router {
    let personality = builtin("python-correct").expect("a built-in personality");
    let encoded = dialect
        .codec()
        .encode_card(&agent_card(&personality, dialect, "http://127.0.0.1/"))
        .expect("the card encodes")
        .value;
    Router::new().fallback(get(move || async move { axum::Json(encoded) }))
}

fn guard(tenants: Tenants, dialect: Dialect) -> (ServeGuard, watch::Sender<bool>) {
    let (stop, stopping) = watch::channel(false);
    let guard = ServeGuard::new(card(dialect), tenants, dialect, LIMITS, stopping);
    (guard, stop)
}

fn tokens() -> Tenants {
    Tenants::Tokens(vec![
        ("alpha-token".to_string(), tenant("alpha")),
        ("beta-token".to_string(), tenant("beta")),
    ])
}

fn post_with(authorization: Option<&str>, body: impl Into<Body>) -> Request<Body> {
    let mut request = Request::post("/").header(header::HOST, "agent.test");
    if let Some(value) = authorization {
        request = request.header(header::AUTHORIZATION, value);
    }
    request.body(body.into()).expect("a request")
}

const SEND: &str = r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}"#;
const STREAM: &str = r#"{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{}}"#;

async fn text(response: Response<Body>) -> String {
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("a body")
        .to_bytes();
    String::from_utf8(bytes.to_vec()).expect("utf-8")
}

/// The JSON-RPC error code and message of a refusal.
async fn error_of(response: Response<Body>) -> (i64, String) {
    let body: Value = serde_json::from_str(&text(response).await).expect("a JSON refusal");
    let error = &body["error"];
    (
        error["code"].as_i64().expect("a code"),
        error["message"].as_str().expect("a message").to_string(),
    )
}

#[tokio::test]
async fn an_open_guard_passes_every_request_to_its_one_tenant() {
    let (guard, _stop) = guard(Tenants::Open(tenant("only")), Dialect::V1_0);
    let response = guard.router().oneshot(post_with(None, SEND)).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(text(response).await, "only");
}

#[tokio::test]
async fn a_request_without_one_good_host_header_gets_400_and_reaches_no_tenant() {
    let (guard, _stop) = guard(Tenants::Open(tenant("only")), Dialect::V1_0);
    let router = guard.router();
    let mut hostless = post_with(None, SEND);
    hostless.headers_mut().remove(header::HOST);
    let mut twice = post_with(None, SEND);
    twice
        .headers_mut()
        .append(header::HOST, HeaderValue::from_static("other.test"));
    let mut card = card_request();
    card.headers_mut()
        .insert(header::HOST, HeaderValue::from_static("a b"));
    for (request, problem) in [
        (hostless, "must carry a Host header"),
        (twice, "not several"),
        (card, "`a b` is not a host and port"),
    ] {
        let response = router.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert_eq!(response.headers()[header::CONNECTION], "close");
        let body = text(response).await;
        assert!(body.contains(problem), "{body}");
    }
}

#[tokio::test]
async fn an_http_1_0_request_without_host_is_answered_for_the_listening_address() {
    // A Card route that answers with the Host it was asked for, as the real one builds its
    // URL from it.
    let echo_host = Router::new().fallback(get(|headers: HeaderMap| async move {
        headers
            .get(header::HOST)
            .and_then(|host| host.to_str().ok())
            .unwrap_or("(none)")
            .to_string()
    }));
    let (stop, stopping) = watch::channel(false);
    let listening = |address: &str| {
        ServeGuard::new(
            echo_host.clone(),
            Tenants::Open(tenant("only")),
            Dialect::V1_0,
            LIMITS,
            stopping.clone(),
        )
        .listening_on(address.parse().unwrap())
        .router()
    };
    let hostless = || {
        let mut request = card_request();
        request.headers_mut().remove(header::HOST);
        *request.version_mut() = axum::http::Version::HTTP_10;
        request
    };
    for (address, host) in [
        ("127.0.0.1:9123", "127.0.0.1:9123"),
        ("0.0.0.0:9123", "localhost:9123"),
    ] {
        let answer = listening(address).oneshot(hostless()).await.unwrap();
        assert_eq!(text(answer).await, host, "{address}");
    }
    // A request with a Host keeps its own.
    let answer = listening("127.0.0.1:9123")
        .oneshot(card_request())
        .await
        .unwrap();
    assert_eq!(text(answer).await, "agent.test");
    drop(stop);
}

#[tokio::test]
async fn each_token_reaches_its_own_tenant_and_the_scheme_is_case_insensitive() {
    let (guard, _stop) = guard(tokens(), Dialect::V1_0);
    let router = guard.router();
    for (authorization, expected) in [
        ("Bearer alpha-token", "alpha"),
        ("bearer beta-token", "beta"),
        ("BEARER  alpha-token ", "alpha"),
    ] {
        let response = router
            .clone()
            .oneshot(post_with(Some(authorization), SEND))
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{authorization}");
        assert_eq!(text(response).await, expected, "{authorization}");
    }
}

#[tokio::test]
async fn a_missing_wrong_or_partial_token_gets_401_with_the_bearer_challenge() {
    let (guard, _stop) = guard(tokens(), Dialect::V1_0);
    let router = guard.router();
    for authorization in [
        None,
        Some("Bearer gamma-token"),
        Some("Bearer alpha"),
        Some("Bearer alpha-token-and-more"),
        Some("Basic alpha-token"),
        Some("alpha-token"),
    ] {
        let response = router
            .clone()
            .oneshot(post_with(authorization, SEND))
            .await
            .unwrap();
        assert_eq!(
            response.status(),
            StatusCode::UNAUTHORIZED,
            "{authorization:?}"
        );
        assert_eq!(
            response.headers()[header::WWW_AUTHENTICATE],
            "Bearer realm=\"meshsim\""
        );
        let (code, message) = error_of(response).await;
        assert_eq!(code, -32600, "{authorization:?}");
        assert!(message.starts_with("unauthenticated"), "{message}");
    }
}

#[tokio::test]
async fn a_body_declared_over_the_limit_gets_413_and_the_connection_closes() {
    let (guard, _stop) = guard(Tenants::Open(tenant("only")), Dialect::V1_0);
    let mut request = post_with(None, "x".repeat(200));
    request
        .headers_mut()
        .insert(header::CONTENT_LENGTH, HeaderValue::from_static("200"));
    let response = guard.router().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(response.headers()[header::CONNECTION], "close");
    let (code, message) = error_of(response).await;
    assert_eq!(code, -32600);
    assert!(
        message.contains("(200 bytes) is over the limit of 128 bytes"),
        "{message}"
    );
}

#[tokio::test]
async fn an_undeclared_body_is_refused_as_soon_as_it_passes_the_limit() {
    let (guard, _stop) = guard(Tenants::Open(tenant("only")), Dialect::V1_0);
    // Two chunks, the second taking it past 128 bytes, then a stream that never ends: the
    // refusal must not wait for the rest.
    let chunks = futures_util::stream::iter([
        Ok::<_, Infallible>(Bytes::from("x".repeat(100))),
        Ok(Bytes::from("y".repeat(100))),
    ])
    .chain(futures_util::stream::pending());
    let request = post_with(None, Body::from_stream(chunks));
    let response = guard.router().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let (_, message) = error_of(response).await;
    assert!(
        message.contains("body is over the limit of 128 bytes"),
        "{message}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_body_that_does_not_arrive_within_the_deadline_gets_408() {
    let (guard, _stop) = guard(Tenants::Open(tenant("only")), Dialect::V1_0);
    let slow = futures_util::stream::once(async { Ok::<_, Infallible>(Bytes::from("{")) })
        .chain(futures_util::stream::pending());
    let sent = tokio::time::Instant::now();
    let response = guard
        .router()
        .oneshot(post_with(None, Body::from_stream(slow)))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::REQUEST_TIMEOUT);
    // At the deadline, not after waiting (the drain's 100 ms) for a body that is not coming.
    assert_eq!(sent.elapsed(), Duration::from_secs(2));
    let (_, message) = error_of(response).await;
    assert!(message.contains("within 2000 ms"), "{message}");
}

#[tokio::test]
async fn a_stream_over_the_cap_gets_503_until_an_open_one_ends() {
    let (guard, _stop) = guard(Tenants::Open(tenant("only")), Dialect::V1_0);
    let in_flight = guard.in_flight();
    let router = guard.router();
    let first = router
        .clone()
        .oneshot(post_with(None, STREAM))
        .await
        .unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(
        in_flight.load(Ordering::SeqCst),
        1,
        "the open stream counts"
    );

    let refused = router
        .clone()
        .oneshot(post_with(None, STREAM))
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.headers()[header::RETRY_AFTER], "1");
    assert!(
        error_of(refused)
            .await
            .1
            .contains("too many open streams: 1")
    );
    let answered = router.clone().oneshot(post_with(None, SEND)).await.unwrap();
    assert_eq!(
        answered.status(),
        StatusCode::OK,
        "a plain call is not capped"
    );

    drop(first);
    assert_eq!(in_flight.load(Ordering::SeqCst), 0);
    let again = router.oneshot(post_with(None, STREAM)).await.unwrap();
    assert_eq!(again.status(), StatusCode::OK, "the slot came back");
}

#[tokio::test]
async fn open_streams_end_cleanly_at_shutdown() {
    let (guard, stop) = guard(Tenants::Open(tenant("only")), Dialect::V1_0);
    let response = guard
        .router()
        .oneshot(post_with(None, STREAM))
        .await
        .unwrap();
    let mut body = response.into_body();
    let first = body.frame().await.expect("a frame").expect("data");
    assert_eq!(first.into_data().unwrap(), Bytes::from("data: only\n\n"));
    stop.send(true).unwrap();
    assert!(
        body.frame().await.is_none(),
        "the stream ends, without error"
    );
}

#[test]
fn streaming_methods_are_recognised_in_every_dialect() {
    for method in [
        "tasks/sendSubscribe",
        "tasks/resubscribe",
        "message/stream",
        "SendStreamingMessage",
        "SubscribeToTask",
    ] {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method}).to_string();
        assert!(opens_stream("/", body.as_bytes()), "{method}");
    }
    for body in [SEND, "not json", r#"{"id":1}"#, r#"{"method":"tasks/get"}"#] {
        assert!(!opens_stream("/", body.as_bytes()), "{body}");
    }
    // HTTP+JSON names the method in its route.
    for path in ["/message:stream", "/tasks/t-1:subscribe"] {
        assert!(opens_stream(path, b""), "{path}");
    }
    for path in ["/message:send", "/tasks/t-1", "/tasks/t-1:cancel"] {
        assert!(!opens_stream(path, b"{}"), "{path}");
    }
}

#[tokio::test]
async fn with_tokens_the_card_declares_the_bearer_scheme_in_its_dialects_words() {
    let expected: [(Dialect, &str, Value); 3] = [
        (
            Dialect::V1_0,
            "securityRequirements",
            json!([{"schemes": {"bearer": {"list": []}}}]),
        ),
        (Dialect::V0_3, "security", json!([{"bearer": []}])),
        (
            Dialect::V0_1,
            "authentication",
            json!({"schemes": ["Bearer"]}),
        ),
    ];
    for (dialect, field, value) in expected {
        let (open, _stop) = guard(Tenants::Open(tenant("only")), dialect);
        let plain: Value =
            serde_json::from_str(&text(open.router().oneshot(card_request()).await.unwrap()).await)
                .unwrap();
        assert!(plain.get(field).is_none(), "{dialect}: no scheme when open");

        let (secured, _stop) = guard(tokens(), dialect);
        let card: Value = serde_json::from_str(
            &text(secured.router().oneshot(card_request()).await.unwrap()).await,
        )
        .unwrap();
        assert_eq!(card[field], value, "{dialect}");
        assert_eq!(card["name"], plain["name"], "{dialect}: the rest is kept");
    }
}

#[tokio::test]
async fn with_tokens_head_and_get_of_the_card_agree_and_a_held_copy_gets_304() {
    let (secured, _stop) = guard(tokens(), Dialect::V1_0);
    let router = secured.router();
    let got = router.clone().oneshot(card_request()).await.unwrap();
    let etag = got.headers()[header::ETAG].clone();
    let length = got.headers()[header::CONTENT_LENGTH].clone();
    let body = text(got).await;
    assert_eq!(length.to_str().unwrap(), body.len().to_string());
    let mut head = card_request();
    *head.method_mut() = HttpMethod::HEAD;
    let headed = router.clone().oneshot(head).await.unwrap();
    assert_eq!(headed.status(), StatusCode::OK);
    assert_eq!(headed.headers()[header::ETAG], etag);
    assert_eq!(headed.headers()[header::CONTENT_LENGTH], length);
    assert_eq!(text(headed).await, "");
    let mut held = card_request();
    held.headers_mut().insert(header::IF_NONE_MATCH, etag);
    let unchanged = router.oneshot(held).await.unwrap();
    assert_eq!(unchanged.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(text(unchanged).await, "");
}

fn card_request() -> Request<Body> {
    Request::get("/.well-known/agent-card.json")
        .header(header::HOST, "agent.test")
        .body(Body::empty())
        .expect("a request")
}

#[test]
fn the_holder_of_a_token_is_found_among_several() {
    let tokens = [("one".to_string(), 1), ("two".to_string(), 2)];
    let with = |value: &'static str| {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static(value));
        headers
    };
    assert_eq!(holder(&tokens, &with("Bearer two")), Some(&2));
    assert_eq!(holder(&tokens, &with("Bearer three")), None);
    assert_eq!(holder(&tokens, &with("Bearer")), None);
    assert_eq!(holder(&tokens, &HeaderMap::new()), None);
}

/// A refusal on an HTTP+JSON route is in that binding's error shape (`google.rpc.Status`),
/// on the JSON-RPC endpoint a JSON-RPC error: a client reads it as it reads every other
/// error of the binding it speaks.
#[tokio::test]
async fn a_refusal_takes_the_shape_of_the_binding_the_request_was_for() {
    let (rest_guard, _stop) = guard(tokens(), Dialect::V1_0);
    let rest = Request::post("/message:send")
        .header(header::HOST, "agent.test")
        .body(Body::from(SEND))
        .expect("a request");
    let response = rest_guard.router().oneshot(rest).await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let body: Value = serde_json::from_str(&text(response).await).expect("JSON");
    assert_eq!(body["error"]["code"], 401, "{body}");
    assert_eq!(body["error"]["status"], "UNAUTHENTICATED", "{body}");
    assert!(body.get("jsonrpc").is_none(), "{body}");

    let (rpc_guard, _stop) = guard(tokens(), Dialect::V1_0);
    let response = rpc_guard
        .router()
        .oneshot(post_with(None, SEND))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let body: Value = serde_json::from_str(&text(response).await).expect("JSON");
    assert_eq!(body["jsonrpc"], "2.0", "{body}");
}

#[test]
fn the_refusal_of_a_missing_token_points_at_where_the_dialects_card_declares_it() {
    for (dialect, declared) in [
        (Dialect::V0_1, "see the Card's authentication.schemes"),
        (Dialect::V0_3, "see the Card's securitySchemes"),
        (Dialect::V1_0, "see the Card's securitySchemes"),
    ] {
        let message = bearer::unauthenticated(dialect).message;
        assert!(message.contains(declared), "{dialect}: {message}");
    }
}
