//! What stands between the network and the runtime in `meshsim serve`: bearer tokens (each
//! token has its own task store, so no token reaches another's tasks), the request body
//! limit and deadline, the cap on open streams, the Card's security schemes, and the count
//! of requests in flight that a graceful shutdown waits for.

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method as HttpMethod, Request, Response, StatusCode};
use http::header;
use http_body_util::BodyExt;
use meshsim_protocol::{Dialect, ErrorCode, RequestId, RpcError, RpcResponse, detect};
use serde_json::{Value, json};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use subtle::ConstantTimeEq;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tower::ServiceExt;

/// The limits a [`Guard`] enforces.
#[derive(Debug, Clone)]
pub struct Limits {
    /// A larger request body is refused with 413 before it is read whole.
    pub max_body_bytes: usize,
    /// The whole body must arrive within this time (a slow-body client gets 408).
    pub body_timeout: Duration,
    /// Streams open at once; one more is refused with 503.
    pub max_streams: usize,
    /// How much of a refused body (413, 408) is read and dropped before the refusal is
    /// sent, so a client still sending reads the refusal rather than a reset connection.
    pub drain: Drain,
}

/// The bound on draining a refused body: at most `bytes`, for at most `time`.
#[derive(Debug, Clone, Copy)]
pub struct Drain {
    pub bytes: u64,
    pub time: Duration,
}

/// Who may call: everyone (one task store), or the holders of bearer tokens (a task store
/// per token).
pub enum Tenants {
    Open(Router),
    Tokens(Vec<(String, Router)>),
}

/// The guard's state; [`Guard::router`] turns it into the served router.
pub struct Guard {
    /// Serves the Agent Card, which needs no token.
    card: Router,
    tenants: Tenants,
    dialect: Dialect,
    limits: Limits,
    streams: Arc<Semaphore>,
    in_flight: Arc<AtomicUsize>,
    shutdown: watch::Receiver<bool>,
}

impl Guard {
    /// A guard in front of `tenants`, which speak `dialect`, with `card` serving the Agent
    /// Card; open streams end cleanly once `shutdown` turns true.
    pub fn new(
        card: Router,
        tenants: Tenants,
        dialect: Dialect,
        limits: Limits,
        shutdown: watch::Receiver<bool>,
    ) -> Self {
        Guard {
            card,
            tenants,
            dialect,
            streams: Arc::new(Semaphore::new(limits.max_streams)),
            limits,
            in_flight: Arc::new(AtomicUsize::new(0)),
            shutdown,
        }
    }

    /// How many requests are being answered or streamed right now.
    pub fn in_flight(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.in_flight)
    }

    pub fn router(self) -> Router {
        Router::new().fallback(handle).with_state(Arc::new(self))
    }

    /// The router a request is for, or `None` when its token is missing or unknown.
    fn tenant(&self, headers: &HeaderMap) -> Option<&Router> {
        match &self.tenants {
            Tenants::Open(router) => Some(router),
            Tenants::Tokens(tokens) => {
                // The scheme's name is case-insensitive (RFC 9110 §11.1).
                let (scheme, presented) = headers
                    .get(header::AUTHORIZATION)
                    .and_then(|value| value.to_str().ok())?
                    .trim()
                    .split_once(' ')?;
                if !scheme.eq_ignore_ascii_case("bearer") {
                    return None;
                }
                let presented = presented.trim().as_bytes();
                // Every token is compared, each in constant time (`subtle`), so the time
                // taken says neither how much of a token matched nor which one did.
                let mut tenant = None;
                for (token, router) in tokens {
                    if bool::from(token.as_bytes().ct_eq(presented)) {
                        tenant = Some(router);
                    }
                }
                tenant
            }
        }
    }

    /// A JSON-RPC error answered with HTTP `status`, in the served dialect.
    fn refuse(&self, status: StatusCode, code: ErrorCode, message: String) -> Response<Body> {
        refusal(self.dialect, status, RpcError::new(code, message))
    }
}

/// Counts a request in flight until dropped.
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn new(count: &Arc<AtomicUsize>) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        InFlight(Arc::clone(count))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn handle(State(guard): State<Arc<Guard>>, request: Request<Body>) -> Response<Body> {
    let in_flight = InFlight::new(&guard.in_flight);
    if request.method() != HttpMethod::POST {
        return public(&guard, request).await;
    }
    let Some(tenant) = guard.tenant(request.headers()).cloned() else {
        let mut response = refusal(guard.dialect, StatusCode::UNAUTHORIZED, unauthenticated());
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"meshsim\""),
        );
        return response;
    };
    let (parts, mut body) = request.into_parts();
    let body = match read_body(&guard, &parts.headers, &mut body).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let permit = if opens_stream(&body) {
        match Arc::clone(&guard.streams).try_acquire_owned() {
            Ok(permit) => Some(permit),
            Err(_) => {
                let mut response = guard.refuse(
                    StatusCode::SERVICE_UNAVAILABLE,
                    ErrorCode::InternalError,
                    format!(
                        "too many open streams: {} (--max-streams); retry later",
                        guard.limits.max_streams
                    ),
                );
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                return response;
            }
        }
    } else {
        None
    };
    let request = Request::from_parts(parts, Body::from(body));
    let Ok(response) = tenant.oneshot(request).await;
    let streaming = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with(meshsim_protocol::sse::CONTENT_TYPE));
    if !streaming {
        return response;
    }
    let mut shutdown = guard.shutdown.clone();
    let shutdown = Box::pin(async move {
        let _ = shutdown.wait_for(|stopping| *stopping).await;
    });
    response.map(|body| {
        Body::new(GuardedStream {
            body,
            shutdown,
            _permit: permit,
            _in_flight: in_flight,
        })
    })
}

/// The error a request without a valid bearer token gets.
fn unauthenticated() -> RpcError {
    RpcError {
        code: ErrorCode::InvalidRequest,
        message: "unauthenticated: send `Authorization: Bearer <token>` with a token this \
                  server accepts (see the Card's securitySchemes)"
            .to_string(),
        data: Some(json!([{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "UNAUTHENTICATED",
            "domain": "a2a-protocol.org",
        }])),
    }
}

/// A JSON-RPC error body (id null: the request was not read) with an HTTP status.
fn refusal(dialect: Dialect, status: StatusCode, error: RpcError) -> Response<Body> {
    let response = RpcResponse {
        id: RequestId::Null,
        outcome: Err(error),
    };
    let body = match dialect.codec().encode_response(&response) {
        Ok(encoded) => encoded.value.to_string(),
        Err(problem) => json!({"jsonrpc": "2.0", "id": null,
            "error": {"code": -32603, "message": problem.to_string()}})
        .to_string(),
    };
    let mut answer = Response::new(Body::from(body));
    *answer.status_mut() = status;
    answer.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    answer
}

/// Reads a request body within the size limit and the deadline, or refuses it: a declared
/// length over the limit before a byte is read, a longer body as soon as it passes the limit,
/// a late one at the deadline. A refused body is drained (within [`Limits::drain`]) before
/// the refusal is answered: a client that sends its whole body before reading (most do,
/// without `Expect: 100-continue`) would otherwise find the connection reset under it and
/// never read the 413 or 408.
async fn read_body(
    guard: &Guard,
    headers: &HeaderMap,
    body: &mut Body,
) -> Result<Bytes, Response<Body>> {
    let limit = guard.limits.max_body_bytes;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    let timeout = guard.limits.body_timeout;
    let refused = match declared {
        Some(size) if size > limit as u64 => Unread::TooLarge(Some(size)),
        _ => match meshsim_time::timeout(timeout, collect_within(body, limit)).await {
            Ok(Ok(bytes)) => return Ok(bytes),
            Ok(Err(unread)) => unread,
            Err(_) => Unread::Late,
        },
    };
    // A client that waits for `100 Continue` sends nothing more unless the body is read.
    let waits_to_continue = headers
        .get(header::EXPECT)
        .is_some_and(|value| value.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    if !matches!(refused, Unread::Broken(_)) && !waits_to_continue {
        drain(body, guard.limits.drain).await;
    }
    let (status, message) = match refused {
        Unread::TooLarge(declared) => {
            let size = declared.map_or(String::new(), |size| format!(" ({size} bytes)"));
            (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the request body{size} is over the limit of {limit} bytes (--max-body-bytes)"
                ),
            )
        }
        Unread::Late => (
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {} ms (--body-timeout-ms)",
                timeout.as_millis()
            ),
        ),
        Unread::Broken(error) => (
            StatusCode::BAD_REQUEST,
            format!("the request body could not be read: {error}"),
        ),
    };
    let mut response = guard.refuse(status, ErrorCode::InvalidRequest, message);
    // What is left of the body is not read: the connection cannot carry another request.
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    Err(response)
}

/// Why a body was not read whole.
enum Unread {
    /// Over the limit: declared so (`Content-Length`), or found so while reading.
    TooLarge(Option<u64>),
    /// Not whole by the deadline.
    Late,
    /// The connection broke or the framing was invalid.
    Broken(String),
}

/// Reads a body whole, or stops as soon as it passes `limit` bytes.
async fn collect_within(body: &mut Body, limit: usize) -> Result<Bytes, Unread> {
    let mut collected = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|error| Unread::Broken(error.to_string()))?;
        if let Ok(data) = frame.into_data() {
            if collected.len() + data.len() > limit {
                return Err(Unread::TooLarge(None));
            }
            collected.extend_from_slice(&data);
        }
    }
    Ok(Bytes::from(collected))
}

/// Reads and drops the rest of a refused body, until it ends, `bound.bytes` have been
/// dropped, or `bound.time` has passed, whichever is first.
async fn drain(body: &mut Body, bound: Drain) {
    let dropping = async {
        let mut left = bound.bytes;
        while let Some(Ok(frame)) = body.frame().await {
            let Ok(data) = frame.into_data() else {
                continue;
            };
            match left.checked_sub(data.len() as u64) {
                Some(rest) => left = rest,
                None => return,
            }
        }
    };
    let _ = meshsim_time::timeout(bound.time, dropping).await;
}

/// Whether a request body names a method that answers with a stream, in any dialect (a
/// v1.0 runtime with the v0.3 compatibility layer serves v0.3 names too).
fn opens_stream(body: &[u8]) -> bool {
    let Ok(json) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    let Some(name) = json.get("method").and_then(Value::as_str) else {
        return false;
    };
    Dialect::ALL.into_iter().any(|dialect| {
        dialect
            .codec()
            .method_from_name(name)
            .is_some_and(|method| method.is_streaming())
    })
}

/// A request that needs no token (the Agent Card), the Card carrying the bearer scheme when tokens are required.
async fn public(guard: &Guard, request: Request<Body>) -> Response<Body> {
    let secured = matches!(guard.tenants, Tenants::Tokens(_));
    let Ok(response) = guard.card.clone().oneshot(request).await;
    if !secured || response.status() != StatusCode::OK {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(collected) = body.collect().await else {
        return guard.refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::InternalError,
            "the Agent Card could not be read".to_string(),
        );
    };
    let bytes = collected.to_bytes();
    let Ok(mut card) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    advertise_bearer(&mut card);
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(card.to_string()))
}

/// Adds the bearer scheme to a Card, as its dialect declares security: v1.0
/// `securitySchemes` + `securityRequirements`, v0.3 `securitySchemes` + `security`, v0.1
/// `authentication.schemes`.
fn advertise_bearer(card: &mut Value) {
    let dialect = detect::detect_card(card).map(|detection| detection.dialect);
    let Some(object) = card.as_object_mut() else {
        return;
    };
    match dialect {
        Some(Dialect::V1_0) => {
            object.insert(
                "securitySchemes".into(),
                json!({"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}}),
            );
            object.insert(
                "securityRequirements".into(),
                json!([{"schemes": {"bearer": {"list": []}}}]),
            );
        }
        Some(Dialect::V0_3) => {
            object.insert(
                "securitySchemes".into(),
                json!({"bearer": {"type": "http", "scheme": "bearer"}}),
            );
            object.insert("security".into(), json!([{"bearer": []}]));
        }
        Some(Dialect::V0_1) | None => {
            object.insert("authentication".into(), json!({"schemes": ["Bearer"]}));
        }
    }
}

/// A stream body that holds its slot under `--max-streams` and ends cleanly (the final
/// empty chunk) when the server shuts down.
struct GuardedStream {
    body: Body,
    shutdown: Pin<Box<dyn Future<Output = ()> + Send>>,
    _permit: Option<OwnedSemaphorePermit>,
    _in_flight: InFlight,
}

impl HttpBody for GuardedStream {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        if self.shutdown.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Pin::new(&mut self.body).poll_frame(cx)
    }
}
