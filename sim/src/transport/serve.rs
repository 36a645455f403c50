//! Serving an `axum::Router` over hyper HTTP/1.1 on any `axum::serve::Listener`.
//!
//! Unlike `axum::serve`, this disables hyper's `Date` header (it reads the wall clock), bounds
//! header reads and blocked writes, and reports each connection's requests, responses and
//! streams as `meshsim::net` events.

use std::convert::Infallible;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::serve::Listener;
use http::header::CONTENT_TYPE;
use http::{Request, Response};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tower::ServiceExt;

use super::observed_body::ObservedBody;
use super::{HyperTimer, TimeoutIo};
use meshsim_trace::{ErrorKind, TraceEvent};

/// Connection limits of [`serve_with`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServeOptions {
    /// Close a connection whose next request head does not arrive within this time (this is
    /// also the keep-alive idle timeout).
    pub header_read_timeout: Duration,
    /// Close a connection whose writes stay blocked this long (a peer that vanished behind a
    /// partition never acknowledges, so its stream would otherwise block forever).
    pub write_stall_timeout: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(30),
            write_stall_timeout: Duration::from_secs(30),
        }
    }
}

/// Serves `router` on `listener` with [`ServeOptions::default`]. Never returns.
pub async fn serve<L: Listener>(listener: L, router: Router) -> Infallible {
    serve_with(listener, router, ServeOptions::default()).await
}

/// Serves `router` on `listener`, one spawned task per connection. Never returns.
pub async fn serve_with<L: Listener>(
    mut listener: L,
    router: Router,
    options: ServeOptions,
) -> Infallible {
    let mut next_conn: u64 = 0;
    loop {
        let (io, _peer) = listener.accept().await;
        let conn = next_conn;
        next_conn += 1;
        TraceEvent::Accept { conn }.emit();
        let io = TimeoutIo::new(io).with_write_stall(Some(options.write_stall_timeout));
        let router = router.clone();
        let mut builder = http1::Builder::new();
        builder
            .timer(HyperTimer)
            .auto_date_header(false)
            .header_read_timeout(options.header_read_timeout);
        let connection = async move {
            let service = service_fn(move |request| handle(router.clone(), conn, request));
            match builder.serve_connection(TokioIo::new(io), service).await {
                Ok(()) => TraceEvent::ConnClose { conn, error: None }.emit(),
                Err(err) => TraceEvent::ConnClose {
                    conn,
                    error: Some(ErrorKind::of(&err)),
                }
                .emit(),
            }
        };
        if turmoil::in_simulation() {
            // Turmoil hosts run in a LocalSet, which drops its tasks in spawn order when the
            // host crashes. `tokio::spawn`ed tasks would be dropped in an order that depends on
            // process-global task ids, so parallel simulations would diverge.
            tokio::task::spawn_local(connection);
        } else {
            tokio::spawn(connection);
        }
    }
}

async fn handle(
    router: Router,
    conn: u64,
    request: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    // Kept for the response's event: a standard method is a tag, a URI shares its bytes.
    let method = request.method().clone();
    let uri = request.uri().clone();
    TraceEvent::Request {
        conn,
        method: method.as_str().into(),
        path: uri.path().into(),
    }
    .emit();
    let response = router.oneshot(request).await?;
    let status = response.status().as_u16();
    let streaming = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    TraceEvent::Response {
        conn,
        method: method.as_str().into(),
        path: uri.path().into(),
        status,
        streaming,
    }
    .emit();
    if streaming {
        Ok(response.map(|body| Body::new(ObservedBody::new(body, conn))))
    } else {
        Ok(response)
    }
}
