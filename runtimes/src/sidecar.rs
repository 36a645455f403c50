//! A sidecar proxy to put in front of any runtime, cutting responses the way an Envoy
//! route timeout or stream idle timeout does.
//!
//! Every request is forwarded unchanged (its `Host` header too, so the backend's Card points
//! at the sidecar) over a fresh HTTP/1.1 connection made by a connector (real TCP or
//! turmoil). A response still running when the route timeout (counted from the request's
//! arrival) expires, or that sends nothing for the idle timeout, is cut: before its head
//! the client gets 504 (route) or 408 (idle), after it the body breaks off mid-stream and
//! the upstream connection is dropped, which the backend sees as its client going away.
//! Nobody tells the task.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{Response, StatusCode, Uri};
use http_body_util::BodyExt;
use hyper::body::{Frame, Incoming};
use meshsim_trace::{ErrorKind, TraceEvent};
use serde::{Deserialize, Serialize};
use std::error::Error;
use std::fmt;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::time::Instant;
use tower::{Service, ServiceExt};

type BoxError = Box<dyn Error + Send + Sync>;

/// The sidecar's timeouts; `None` disables one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Sidecar {
    /// Longest a response may take, head and whole body, from the request's arrival.
    pub route_timeout_ms: Option<u64>,
    /// Longest a response may stay silent (no head, no body bytes).
    pub idle_timeout_ms: Option<u64>,
}

impl Default for Sidecar {
    /// Envoy's defaults: a 15 s route timeout and a 5 min stream idle timeout.
    fn default() -> Self {
        Sidecar {
            route_timeout_ms: Some(15_000),
            idle_timeout_ms: Some(300_000),
        }
    }
}

/// Why the sidecar cut a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    Route,
    Idle,
}

impl Cut {
    fn name(self) -> &'static str {
        match self {
            Cut::Route => "route timeout",
            Cut::Idle => "idle timeout",
        }
    }
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sidecar {} cut the stream", self.name())
    }
}

impl Error for Cut {}

/// Forwards to one backend through a connector.
struct Proxy<C> {
    config: Sidecar,
    backend: Uri,
    connector: C,
}

impl Sidecar {
    /// A router that forwards every request to `backend` (e.g. `http://jvm:8080/`), reached
    /// with `connector`.
    pub fn router<C>(self, backend: Uri, connector: C) -> Router
    where
        C: Service<Uri> + Clone + Send + Sync + 'static,
        C::Response: AsyncRead + AsyncWrite + Unpin + Send + 'static,
        C::Error: Into<BoxError>,
        C::Future: Send,
    {
        Router::new()
            .fallback(forward::<C>)
            .with_state(Arc::new(Proxy {
                config: self,
                backend,
                connector,
            }))
    }

    fn route_timeout(&self) -> Option<Duration> {
        self.route_timeout_ms.map(Duration::from_millis)
    }

    fn idle_timeout(&self) -> Option<Duration> {
        self.idle_timeout_ms.map(Duration::from_millis)
    }
}

/// The earliest of the route deadline and `now + idle`, and which one it is.
fn next_deadline(config: &Sidecar, route_deadline: Option<Instant>) -> Option<(Instant, Cut)> {
    let idle = config
        .idle_timeout()
        .map(|idle| (Instant::now() + idle, Cut::Idle));
    let route = route_deadline.map(|deadline| (deadline, Cut::Route));
    match (route, idle) {
        (Some(route), Some(idle)) => Some(if route.0 <= idle.0 { route } else { idle }),
        (one, other) => one.or(other),
    }
}

/// Runs `work` until the next deadline; `Err(cut)` if it expires first.
async fn bounded<T>(
    deadline: Option<(Instant, Cut)>,
    work: impl Future<Output = T>,
) -> Result<T, Cut> {
    match deadline {
        Some((at, cut)) => meshsim_time::timeout_at(at, work).await.map_err(|_| cut),
        None => Ok(work.await),
    }
}

async fn forward<C>(State(proxy): State<Arc<Proxy<C>>>, request: Request) -> Response<Body>
where
    C: Service<Uri> + Clone + Send + Sync + 'static,
    C::Response: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    C::Error: Into<BoxError>,
    C::Future: Send,
{
    let route_deadline = proxy
        .config
        .route_timeout()
        .map(|timeout| Instant::now() + timeout);
    let path = request.uri().path().to_string();
    let head = bounded(
        next_deadline(&proxy.config, route_deadline),
        upstream(&proxy, request),
    );
    let response = match head.await {
        Ok(Ok(response)) => response,
        Ok(Err(problem)) => {
            TraceEvent::SidecarUpstreamError {
                path: path.as_str().into(),
                problem: ErrorKind::of(&*problem),
            }
            .emit();
            return plain(
                StatusCode::BAD_GATEWAY,
                "upstream connect error or disconnect",
            );
        }
        Err(cut) => {
            TraceEvent::SidecarCut {
                path: path.as_str().into(),
                reason: cut.name().into(),
            }
            .emit();
            let status = match cut {
                Cut::Route => StatusCode::GATEWAY_TIMEOUT,
                Cut::Idle => StatusCode::REQUEST_TIMEOUT,
            };
            return plain(status, "upstream request timeout");
        }
    };
    let (response, connection) = response;
    let (parts, body) = response.into_parts();
    let config = proxy.config;
    let relay = Relay {
        body,
        connection: Some(connection),
        cut: false,
        path,
    };
    let frames = futures_util::stream::unfold(relay, move |mut relay| async move {
        if relay.cut {
            return None;
        }
        loop {
            let frame = bounded(next_deadline(&config, route_deadline), relay.next_frame()).await;
            match frame {
                Ok(None) => return None,
                Ok(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => return Some((Ok::<Bytes, BoxError>(data), relay)),
                    Err(_) => continue,
                },
                Ok(Some(Err(problem))) => {
                    relay.cut = true;
                    return Some((Err(problem.into()), relay));
                }
                Err(cut) => {
                    TraceEvent::SidecarCut {
                        path: relay.path.as_str().into(),
                        reason: cut.name().into(),
                    }
                    .emit();
                    relay.cut = true;
                    // A timeout, as the I/O error kind says: the trace names the kind.
                    let timeout = io::Error::new(io::ErrorKind::TimedOut, cut);
                    return Some((Err(Box::new(timeout) as BoxError), relay));
                }
            }
        }
    });
    Response::from_parts(parts, Body::from_stream(frames))
}

/// The upstream HTTP/1.1 connection, driven by whoever reads its response (never spawned, so
/// it goes away with the response in a deterministic order when a simulated host crashes).
type Connection = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A response body being relayed, with the connection it arrives on.
struct Relay {
    body: Incoming,
    /// `None` once the connection finished (the body then yields what it still holds).
    connection: Option<Connection>,
    /// Set once the relay broke off; the stream ends after the error.
    cut: bool,
    path: String,
}

impl Relay {
    /// The next frame of the body, driving the connection meanwhile.
    async fn next_frame(&mut self) -> Option<Result<Frame<Bytes>, hyper::Error>> {
        loop {
            let Some(connection) = self.connection.as_mut() else {
                return self.body.frame().await;
            };
            tokio::select! {
                biased;
                frame = self.body.frame() => return frame,
                () = connection.as_mut() => self.connection = None,
            }
        }
    }
}

/// Sends the request to the backend over a new connection; the response's head and the
/// connection, which must be driven until the body is read.
async fn upstream<C>(
    proxy: &Proxy<C>,
    request: Request,
) -> Result<(Response<Incoming>, Connection), BoxError>
where
    C: Service<Uri> + Clone + Send + Sync + 'static,
    C::Response: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    C::Error: Into<BoxError>,
    C::Future: Send,
{
    let io = proxy
        .connector
        .clone()
        .oneshot(proxy.backend.clone())
        .await
        .map_err(Into::into)?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(io)).await?;
    let mut connection: Connection = Box::pin(async move {
        // Its end (clean or not) shows in the body.
        let _ = connection.await;
    });
    let (mut parts, body) = request.into_parts();
    // Origin form on the upstream connection; the Host header travels unchanged.
    parts.uri = parts
        .uri
        .path_and_query()
        .map_or_else(|| Uri::from_static("/"), |path| Uri::from(path.clone()));
    let request = Request::from_parts(parts, body);
    tokio::select! {
        biased;
        response = sender.send_request(request) => Ok((response?, connection)),
        () = connection.as_mut() => Err(Box::new(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the upstream connection closed before answering",
        ))),
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response
}
