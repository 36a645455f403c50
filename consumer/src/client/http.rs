//! One HTTP/1.1 exchange over a fresh connection from a [`Connector`], with a timeout on
//! getting the response head and a size bound on bodies read whole.

use super::connector::Connector;
use super::error::ClientError;
use bytes::Bytes;
use http::header::{ACCEPT, ACCEPT_ENCODING, CONTENT_TYPE, HOST, HeaderName, HeaderValue};
use http::uri::{Parts, PathAndQuery, Scheme};
use http::{Method, Request, Response, Uri};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use meshsim_time::Instant;
use std::future::Future;
use std::pin::{Pin, pin};
use std::time::Duration;

/// A request ready to send.
pub type HttpRequest = Request<Full<Bytes>>;

/// `A2A-Version` as a header name (hyper writes names in lower case).
const A2A_VERSION: HeaderName = HeaderName::from_static("a2a-version");

/// Builds a request to `uri` with a `Host` header (the URL's host and port: credentials
/// written into a URL never leave it, RFC 9110 section 4.2.4), `Accept`, `Accept-Encoding:
/// identity` (the client decodes no content coding, and a request without the header
/// accepts any, section 12.5.3), `body` (its media type and bytes) and, when given,
/// v1.0's `A2A-Version`, in that order.
///
/// The request is put together in place rather than by `http::request::Builder`, which
/// moves its whole head through a `Result` for every header and parses each name.
pub fn request(
    method: Method,
    uri: &Uri,
    accept: &'static str,
    body: Option<(&'static str, Vec<u8>)>,
    a2a_version: Option<&'static str>,
) -> Result<HttpRequest, ClientError> {
    let host = uri
        .authority()
        .ok_or_else(|| no_host(uri))
        .and_then(|authority| {
            let host_and_port = match authority.as_str().rsplit_once('@') {
                Some((_credentials, host_and_port)) => host_and_port,
                None => authority.as_str(),
            };
            HeaderValue::from_str(host_and_port).map_err(|error| ClientError::Url {
                url: uri.to_string(),
                problem: error.to_string(),
            })
        })?;
    let (content_type, bytes) = match body {
        Some((media_type, bytes)) => (Some(media_type), bytes),
        None => (None, Vec::new()),
    };
    let mut request = Request::new(Full::new(Bytes::from(bytes)));
    *request.method_mut() = method;
    *request.uri_mut() = uri.clone();
    let headers = request.headers_mut();
    headers.insert(HOST, host);
    headers.insert(ACCEPT, HeaderValue::from_static(accept));
    headers.insert(ACCEPT_ENCODING, HeaderValue::from_static("identity"));
    if let Some(media_type) = content_type {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(media_type));
    }
    if let Some(version) = a2a_version {
        headers.insert(A2A_VERSION, HeaderValue::from_static(version));
    }
    Ok(request)
}

/// `path` (a path with any query) under `base`: `http://`, `base`'s authority, `base`'s path
/// without its trailing `/`, then `path`.
///
/// Put together from `base`'s parts, the authority shared, rather than written out as a
/// URL and parsed again whole.
pub fn under(base: &Uri, path: &str) -> Result<Uri, ClientError> {
    let authority = base.authority().ok_or_else(|| no_host(base))?;
    let prefix = base.path().trim_end_matches('/');
    let bad = |problem: String| ClientError::Url {
        url: format!("http://{authority}{prefix}{path}"),
        problem,
    };
    let path_and_query = if prefix.is_empty() {
        PathAndQuery::try_from(path)
    } else {
        PathAndQuery::try_from(format!("{prefix}{path}"))
    }
    .map_err(|error| bad(error.to_string()))?;
    let mut parts = Parts::default();
    parts.scheme = Some(Scheme::HTTP);
    parts.authority = Some(authority.clone());
    parts.path_and_query = Some(path_and_query);
    Uri::from_parts(parts).map_err(|error| bad(error.to_string()))
}

fn no_host(uri: &Uri) -> ClientError {
    ClientError::Url {
        url: uri.to_string(),
        problem: "no host".to_string(),
    }
}

/// A hyper connection's driver. Nothing is spawned: whoever reads a response drives its
/// connection through [`Connection::run`], so the client works on any runtime (and inside
/// a simulation, where spawning would tie teardown order to global task ids).
pub struct Connection {
    driver: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    /// Kept so that the connection stays up while a body is read.
    _sender: SendRequest<Full<Bytes>>,
}

impl Connection {
    /// Runs `work` while driving the connection.
    pub async fn run<T>(&mut self, work: impl Future<Output = T>) -> T {
        let mut work = pin!(work);
        if let Some(driver) = self.driver.as_mut() {
            tokio::select! {
                biased;
                out = &mut work => return out,
                () = driver => {}
            }
            // The connection ended; what it delivered can still be read.
            self.driver = None;
        }
        work.await
    }
}

/// A response head and the connection its body arrives on.
pub struct Exchange {
    pub response: Response<Incoming>,
    pub connection: Connection,
    /// When the exchange's timeout runs out: a plain body must be read by then too.
    deadline: Instant,
    timeout: Duration,
}

/// Connects, sends `request` and waits for the response head, all within `timeout`, which
/// also bounds reading a plain body ([`read_body`]): the whole answer.
pub async fn exchange<C: Connector>(
    connector: &C,
    request: HttpRequest,
    timeout: Duration,
) -> Result<Exchange, ClientError> {
    let (mut head, body) = request.into_parts();
    let Some(authority) = head.uri.authority().cloned() else {
        return Err(no_host(&head.uri));
    };
    // The request line carries the origin-form (`/path?query`): absolute-form is for
    // proxies (RFC 9112, section 3.2.2), and uvicorn (a2a-sdk) answers it with 404.
    let origin = head
        .uri
        .path_and_query()
        .map_or_else(|| Uri::from_static("/"), |target| Uri::from(target.clone()));
    let uri = std::mem::replace(&mut head.uri, origin);
    let request = Request::from_parts(head, body);
    let now = Instant::now(); // wall-clock-ok: meshsim_time's (tokio's), simulated in a run
    let deadline = now + timeout;
    let attempt = async {
        let stream = connector
            .connect(uri)
            .await
            .map_err(|error| ClientError::Connect {
                authority: authority.to_string(),
                problem: error.to_string(),
            })?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(transport)?;
        let driver: Pin<Box<dyn Future<Output = ()> + Send>> = Box::pin(async move {
            // Its failures reach the reader through the response and its body.
            let _closed = connection.await;
        });
        let pending = sender.send_request(request);
        let mut connection = Connection {
            driver: Some(driver),
            _sender: sender,
        };
        let response = connection.run(pending).await.map_err(transport)?;
        Ok(Exchange {
            response,
            connection,
            deadline,
            timeout,
        })
    };
    // Boxed: the connection's state (about 1 KB) would otherwise sit inline in every future
    // that awaits a call, up to the consumer's job, and be copied each time one is moved.
    meshsim_time::timeout_at(deadline, Box::pin(attempt))
        .await
        .map_err(|_| ClientError::Timeout {
            what: "HTTP request",
            after: timeout,
        })?
}

/// Reads a whole body of at most `limit` bytes by the exchange's deadline.
pub async fn read_body(exchange: Exchange, limit: usize) -> Result<Bytes, ClientError> {
    let Exchange {
        response,
        mut connection,
        deadline,
        timeout,
    } = exchange;
    let collect = Limited::new(response.into_body(), limit).collect();
    let collected = meshsim_time::timeout_at(deadline, connection.run(collect))
        .await
        .map_err(|_| ClientError::Timeout {
            what: "HTTP answer",
            after: timeout,
        })?
        .map_err(|error| ClientError::Transport(error.to_string()))?;
    Ok(collected.to_bytes())
}

/// Whether a response is an SSE stream (media types are case-insensitive, RFC 9110
/// section 8.3.1).
pub fn is_event_stream(response: &Response<Incoming>) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|value| names_event_stream(value.as_bytes()))
}

fn names_event_stream(content_type: &[u8]) -> bool {
    let media_type = meshsim_protocol::sse::CONTENT_TYPE.as_bytes();
    content_type
        .trim_ascii_start()
        .get(..media_type.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(media_type))
}

fn transport(error: hyper::Error) -> ClientError {
    ClientError::Transport(error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_header_is_the_protocols() {
        let parsed = HeaderName::from_bytes(meshsim_protocol::version::HEADER.as_bytes());
        assert_eq!(parsed.ok(), Some(A2A_VERSION));
    }

    #[test]
    fn a_path_under_a_base_is_the_url_written_out_and_parsed() {
        for (base, path) in [
            ("http://agent:9000/a2a/", "/.well-known/agent.json"),
            ("http://agent:9000", "/tasks/t-1?historyLength=2"),
            ("http://user@agent/a2a//", "/message:send"),
        ] {
            let base: Uri = base.parse().unwrap();
            let prefix = base.path().trim_end_matches('/');
            let authority = base.authority().unwrap();
            let parsed: Uri = format!("http://{authority}{prefix}{path}").parse().unwrap();
            let joined = under(&base, path).unwrap();
            assert_eq!(joined, parsed);
            assert_eq!(joined.to_string(), parsed.to_string());
        }
        assert!(matches!(
            under(&"http://agent/".parse().unwrap(), "/a b"),
            Err(ClientError::Url { .. })
        ));
    }

    #[test]
    fn a_request_carries_its_headers_in_order_and_the_origin_form_is_the_uris() {
        let uri: Uri = "http://agent:80/a2a?x=1".parse().unwrap();
        let body = Some(("application/json", b"{}".to_vec()));
        let request = request(Method::POST, &uri, "text/event-stream", body, Some("1.0"));
        let request = request.unwrap();
        let headers: Vec<_> = request
            .headers()
            .iter()
            .map(|(name, value)| (name.as_str(), value.to_str().unwrap()))
            .collect();
        assert_eq!(
            headers,
            [
                ("host", "agent:80"),
                ("accept", "text/event-stream"),
                ("accept-encoding", "identity"),
                ("content-type", "application/json"),
                ("a2a-version", "1.0"),
            ]
        );
        assert_eq!(request.uri(), &uri);
    }

    #[test]
    fn credentials_in_a_url_stay_out_of_the_host_header() {
        for (url, host) in [
            ("http://alice:pw@agent:9000/", "agent:9000"),
            ("http://bob@[::1]:8080/a2a", "[::1]:8080"),
            ("http://agent/", "agent"),
        ] {
            let request = request(Method::GET, &url.parse().unwrap(), "*/*", None, None);
            assert_eq!(request.unwrap().headers()[HOST], host, "{url}");
        }
    }

    #[test]
    fn an_event_stream_is_named_in_any_case_with_any_parameters() {
        for named in [
            "text/event-stream",
            "Text/Event-Stream",
            " TEXT/EVENT-STREAM; charset=utf-8",
        ] {
            assert!(names_event_stream(named.as_bytes()), "{named}");
        }
        for other in ["application/json", "text/event", ""] {
            assert!(!names_event_stream(other.as_bytes()), "{other}");
        }
    }

    /// The request timeout bounds the whole plain answer: a head in time and a body that
    /// comes after the timeout is a timeout, not a wait of the timeout twice over.
    #[tokio::test(start_paused = true)]
    async fn the_timeout_bounds_the_head_and_the_body_together() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let connector = tower::service_fn(|_: Uri| async {
            let (client, mut server) = tokio::io::duplex(1 << 16);
            tokio::spawn(async move {
                let mut request = [0; 1024];
                let _ = server.read(&mut request).await;
                meshsim_time::sleep(Duration::from_millis(300)).await;
                let head = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n";
                server.write_all(head.as_bytes()).await.unwrap();
                meshsim_time::sleep(Duration::from_millis(300)).await;
                let _ = server.write_all(b"{}").await;
                std::future::pending::<()>().await;
            });
            Ok::<_, std::io::Error>(client)
        });
        let uri: Uri = "http://agent/".parse().unwrap();
        let timeout = Duration::from_millis(500);
        let request = request(Method::GET, &uri, "*/*", None, None).unwrap();
        let exchange = exchange(&connector, request, timeout).await.unwrap();
        match read_body(exchange, 1024).await {
            Err(ClientError::Timeout { what, after }) => {
                assert_eq!((what, after), ("HTTP answer", timeout));
            }
            other => panic!("expected the answer to time out, got {other:?}"),
        }
    }
}
