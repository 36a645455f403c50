//! One HTTP/1.1 exchange over a fresh connection from a [`Connector`], with a timeout on
//! getting the response head and a size bound on bodies read whole.

use super::connector::Connector;
use super::error::ClientError;
use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE, HOST};
use http::{Method, Request, Response, Uri};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use std::time::Duration;

/// A request ready to send.
pub type HttpRequest = Request<Full<Bytes>>;

/// Builds a request to `uri` with a `Host` header and the given extra headers.
pub fn request(
    method: Method,
    uri: &Uri,
    accept: &str,
    body: Option<Vec<u8>>,
    headers: &[(&'static str, &'static str)],
) -> Result<HttpRequest, ClientError> {
    let authority = authority(uri)?;
    let mut builder = Request::builder()
        .method(method)
        .uri(uri.clone())
        .header(HOST, authority)
        .header(ACCEPT, accept);
    if body.is_some() {
        builder = builder.header(CONTENT_TYPE, "application/json");
    }
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    builder
        .body(Full::new(Bytes::from(body.unwrap_or_default())))
        .map_err(|error| ClientError::Url {
            url: uri.to_string(),
            problem: error.to_string(),
        })
}

/// The `host:port` of `uri`, or an error naming the URL.
pub fn authority(uri: &Uri) -> Result<String, ClientError> {
    uri.authority()
        .map(|authority| authority.to_string())
        .ok_or_else(|| ClientError::Url {
            url: uri.to_string(),
            problem: "no host".to_string(),
        })
}

/// Connects, sends `request` and waits for the response head, all within `timeout`. The
/// body is left to the caller; the connection lives as long as the body is read.
pub async fn exchange<C: Connector>(
    connector: &C,
    request: HttpRequest,
    timeout: Duration,
) -> Result<Response<Incoming>, ClientError> {
    let uri = request.uri().clone();
    let authority = authority(&uri)?;
    let attempt = async {
        let stream = connector
            .connect(uri)
            .await
            .map_err(|error| ClientError::Connect {
                authority,
                problem: error.to_string(),
            })?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(transport)?;
        // The connection's own failures reach us through the response and its body.
        tokio::spawn(async move {
            let _closed = connection.await;
        });
        sender.send_request(request).await.map_err(transport)
    };
    tokio::time::timeout(timeout, attempt)
        .await
        .map_err(|_| ClientError::Timeout {
            what: "HTTP request",
            after: timeout,
        })?
}

/// Reads a whole body of at most `limit` bytes within `timeout`.
pub async fn read_body(
    body: Incoming,
    limit: usize,
    timeout: Duration,
) -> Result<Bytes, ClientError> {
    let collected = tokio::time::timeout(timeout, Limited::new(body, limit).collect())
        .await
        .map_err(|_| ClientError::Timeout {
            what: "HTTP body",
            after: timeout,
        })?
        .map_err(|error| ClientError::Transport(error.to_string()))?;
    Ok(collected.to_bytes())
}

/// Whether a response is an SSE stream.
pub fn is_event_stream(response: &Response<Incoming>) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            value
                .trim_start()
                .starts_with(meshsim_protocol::sse::CONTENT_TYPE)
        })
}

fn transport(error: hyper::Error) -> ClientError {
    ClientError::Transport(error.to_string())
}
