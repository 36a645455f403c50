//! What stands between the network and a runtime served on real TCP (`meshsim serve`):
//! bearer tokens (each token has its own task store, so no token reaches another's tasks),
//! the `Host` header's check, the request body limit and deadline, the cap on open
//! streams, the Card's security schemes, and the count of requests in flight that a
//! graceful shutdown waits for.

mod bearer;
mod body;
mod host;
mod limits;
mod stream;
#[cfg(test)]
mod tests;

pub use limits::{BodyDrain, ServeLimits};

use crate::card_cache;
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, Method as HttpMethod, Request, Response, StatusCode, header};
use bearer::{advertise_bearer, holder, unauthenticated};
use body::read_body;
use http_body_util::BodyExt;
use meshsim_protocol::{Dialect, ErrorCode, RequestId, RpcError, RpcResponse};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use stream::{GuardedStream, InFlight};
use tokio::sync::{Semaphore, watch};
use tower::ServiceExt;

/// Who may call: everyone (one task store), or the holders of bearer tokens (a task store
/// per token).
pub enum Tenants {
    Open(Router),
    Tokens(Vec<(String, Router)>),
}

/// The guard's state; [`ServeGuard::router`] turns it into the served router.
pub struct ServeGuard {
    /// Serves the Agent Card, which needs no token.
    card: Router,
    tenants: Tenants,
    dialect: Dialect,
    limits: ServeLimits,
    streams: Arc<Semaphore>,
    in_flight: Arc<AtomicUsize>,
    shutdown: watch::Receiver<bool>,
    /// The `Host` a request without one (HTTP/1.0 may leave it out) is answered for: the
    /// listening address, so that the Card names the port it is served on.
    address: Option<HeaderValue>,
}

impl ServeGuard {
    /// A guard in front of `tenants`, which speak `dialect`, with `card` serving the Agent
    /// Card; open streams end cleanly once `shutdown` turns true.
    pub fn new(
        card: Router,
        tenants: Tenants,
        dialect: Dialect,
        limits: ServeLimits,
        shutdown: watch::Receiver<bool>,
    ) -> Self {
        ServeGuard {
            card,
            tenants,
            dialect,
            streams: Arc::new(Semaphore::new(limits.max_streams)),
            limits,
            in_flight: Arc::new(AtomicUsize::new(0)),
            shutdown,
            address: None,
        }
    }

    /// The guard of a server listening on `address`: a request without a `Host` header
    /// (HTTP/1.0) is answered as one for it (`localhost` and its port when it listens on
    /// every interface), where the Card would otherwise name `localhost` on port 80.
    pub fn listening_on(mut self, address: std::net::SocketAddr) -> Self {
        let host = if address.ip().is_unspecified() {
            format!("localhost:{}", address.port())
        } else {
            address.to_string()
        };
        self.address = HeaderValue::from_str(&host).ok();
        self
    }

    /// How many requests are being answered or streamed right now.
    pub fn in_flight(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.in_flight)
    }

    /// The router that serves every request through the guard.
    pub fn router(self) -> Router {
        Router::new().fallback(handle).with_state(Arc::new(self))
    }

    /// The router a request is for, or `None` when its token is missing or unknown.
    fn tenant(&self, headers: &axum::http::HeaderMap) -> Option<&Router> {
        match &self.tenants {
            Tenants::Open(router) => Some(router),
            Tenants::Tokens(tokens) => holder(tokens, headers),
        }
    }

    /// An error answered with HTTP `status` to a request for `path`, in the served dialect
    /// and binding.
    fn refuse(
        &self,
        path: &str,
        status: StatusCode,
        code: ErrorCode,
        message: String,
    ) -> Response<Body> {
        refusal(self.dialect, path, status, RpcError::new(code, message))
    }
}

async fn handle(
    State(guard): State<Arc<ServeGuard>>,
    mut request: Request<Body>,
) -> Response<Body> {
    let in_flight = InFlight::new(&guard.in_flight);
    if let Some(problem) = host::host_problem(request.version(), request.headers()) {
        let path = request.uri().path();
        let mut response = guard.refuse(
            path,
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidRequest,
            problem,
        );
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        return response;
    }
    if let Some(address) = &guard.address
        && !request.headers().contains_key(header::HOST)
    {
        request.headers_mut().insert(header::HOST, address.clone());
    }
    if request.method() != HttpMethod::POST && !is_task_resource(request.uri().path()) {
        return public(&guard, request).await;
    }
    let Some(tenant) = guard.tenant(request.headers()).cloned() else {
        let path = request.uri().path();
        let mut response = refusal(
            guard.dialect,
            path,
            StatusCode::UNAUTHORIZED,
            unauthenticated(guard.dialect),
        );
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"meshsim\""),
        );
        return response;
    };
    let (parts, mut body) = request.into_parts();
    let body = match read_body(&guard.limits, &parts.headers, &mut body).await {
        Ok(body) => body,
        Err(refused) => {
            let mut response = guard.refuse(
                parts.uri.path(),
                refused.status,
                ErrorCode::InvalidRequest,
                refused.message,
            );
            // What is left of the body is not read: the connection cannot carry another
            // request.
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return response;
        }
    };
    let permit = if opens_stream(parts.uri.path(), &body) {
        match Arc::clone(&guard.streams).try_acquire_owned() {
            Ok(permit) => Some(permit),
            Err(_) => {
                let mut response = guard.refuse(
                    parts.uri.path(),
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

/// An error answered with an HTTP status before the request was read: to the v1.0
/// HTTP+JSON binding's routes (any path but the JSON-RPC endpoint's `/`) in that binding's
/// `google.rpc.Status` shape, otherwise as a JSON-RPC error (id null) encoded as the
/// endpoint encodes its own answers.
fn refusal(dialect: Dialect, path: &str, status: StatusCode, error: RpcError) -> Response<Body> {
    if dialect == Dialect::V1_0 && path != "/" {
        return crate::http_json::refusal_answer(status, &error.message);
    }
    let response = RpcResponse {
        id: RequestId::Null,
        outcome: Err(error),
    };
    let mut answer = crate::endpoint::json(dialect, None, response);
    *answer.status_mut() = status;
    answer
}

/// Whether a request is for the v1.0 HTTP+JSON binding's resources, which GET and DELETE
/// reach as well as POST (and which need a token like any call); any other GET is the
/// Card's.
fn is_task_resource(path: &str) -> bool {
    path == "/tasks" || path.starts_with("/tasks/") || path == "/extendedAgentCard"
}

/// Whether a request answers with a stream: an HTTP+JSON streaming route
/// (`/message:stream`, `/tasks/{id}:subscribe`), or a body naming a streaming method in any
/// dialect (a v1.0 runtime with the v0.3 compatibility layer serves v0.3 names too).
fn opens_stream(path: &str, body: &[u8]) -> bool {
    if path.ends_with(":stream") || path.ends_with(":subscribe") {
        return true;
    }
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

/// A request that needs no token (the Agent Card), the Card carrying the bearer scheme
/// when tokens are required. That Card is another representation than the one the Card
/// route tags, so it gets its own `ETag` and `Content-Length`, for `HEAD` as for `GET`, and
/// a held copy (`If-None-Match`) is compared with it.
async fn public(guard: &ServeGuard, request: Request<Body>) -> Response<Body> {
    if !matches!(guard.tenants, Tenants::Tokens(_)) {
        let Ok(response) = guard.card.clone().oneshot(request).await;
        return response;
    }
    let (mut asked, body) = request.into_parts();
    let head = asked.method == HttpMethod::HEAD;
    let held = asked.headers.remove(header::IF_NONE_MATCH);
    if head {
        asked.method = HttpMethod::GET;
    }
    let Ok(response) = guard
        .card
        .clone()
        .oneshot(Request::from_parts(asked, body))
        .await;
    if response.status() != StatusCode::OK {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(collected) = body.collect().await else {
        return guard.refuse(
            "/",
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
    let text = card.to_string();
    let tag = card_cache::etag(text.as_bytes());
    if let Ok(value) = HeaderValue::from_str(&tag) {
        parts.headers.insert(header::ETAG, value);
    }
    let held = held
        .as_ref()
        .and_then(|value| value.to_str().ok())
        .is_some_and(|tags| card_cache::matches(tags, &tag));
    if held {
        parts.status = StatusCode::NOT_MODIFIED;
        parts.headers.remove(header::CONTENT_TYPE);
        parts.headers.remove(header::CONTENT_LENGTH);
        return Response::from_parts(parts, Body::empty());
    }
    parts
        .headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(text.len()));
    let body = if head {
        Body::empty()
    } else {
        Body::from(text)
    };
    Response::from_parts(parts, body)
}
