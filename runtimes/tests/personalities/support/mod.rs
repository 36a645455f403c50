//! A plain A2A test client for the runtime tests: requests encoded with the dialect's
//! codec, sent either in-process to a router (`tower::ServiceExt::oneshot`) or over real
//! TCP with a bare hyper HTTP/1.1 connection; SSE bodies read event by event.

#![allow(dead_code)] // shared with the root crate's `cli` tests, which use only its client

use axum::Router;
use axum::body::Body;
use bytes::Bytes;
use http::{Method as HttpMethod, Request as HttpRequest, Response as HttpResponse};
use http_body_util::BodyExt;
use meshsim_protocol::sse::{DEFAULT_MAX_EVENT_BYTES, SseParser};
use meshsim_protocol::{
    AgentCard, Dialect, GetTaskParams, Message, Method, Part, Request, RequestId, Role, RpcError,
    RpcRequest, RpcResponse, RpcResult, SendMessageParams, StreamEvent, Task, TaskState, version,
};
use serde_json::Value;
use std::net::SocketAddr;
use tower::ServiceExt;

/// Where requests go.
#[derive(Clone)]
pub enum Target {
    Router(Router),
    Tcp(SocketAddr),
    /// A host of a turmoil simulation, `name:port`, reached with `TurmoilConnector`.
    Turmoil(String),
}

/// A client speaking one dialect.
#[derive(Clone)]
pub struct Client {
    pub target: Target,
    pub dialect: Dialect,
    next_id: std::sync::Arc<std::sync::atomic::AtomicI64>,
}

/// What a JSON-RPC call answered: a JSON body (decoded, and as served) or an SSE stream.
pub enum Answer {
    Json { response: RpcResponse, body: Value },
    Stream(EventReader),
}

impl Answer {
    pub fn json(self) -> RpcResponse {
        match self {
            Answer::Json { response, .. } => response,
            Answer::Stream(_) => panic!("expected a JSON answer, got a stream"),
        }
    }

    pub fn stream(self) -> EventReader {
        match self {
            Answer::Stream(reader) => reader,
            Answer::Json { response, .. } => panic!("expected a stream, got {response:?}"),
        }
    }

    pub fn task(self) -> Task {
        match self.json().outcome {
            Ok(RpcResult::Task(task)) => task,
            other => panic!("expected a task, got {other:?}"),
        }
    }

    pub fn error(self) -> RpcError {
        match self.json().outcome {
            Err(error) => error,
            other => panic!("expected an error, got {other:?}"),
        }
    }
}

/// Reads an SSE body one event at a time.
pub struct EventReader {
    body: Body,
    parser: SseParser,
    dialect: Dialect,
    method: Method,
    pending: std::collections::VecDeque<RpcResponse>,
    pub comments_seen: bool,
    /// Every `data:` payload read so far, as served.
    pub payloads: Vec<Value>,
}

impl EventReader {
    /// The next event, or `None` once the server closed the stream.
    pub async fn next(&mut self) -> Option<RpcResponse> {
        // A stream that should have delivered or closed long ago fails the test, not hangs.
        meshsim_time::timeout(std::time::Duration::from_secs(120), self.next_unbounded())
            .await
            .expect("no event and no close within 120 s")
    }

    async fn next_unbounded(&mut self) -> Option<RpcResponse> {
        self.next_or_broken().await.expect("stream body broke")
    }

    /// The next event, `Ok(None)` on a clean close, `Err` when the body broke off.
    pub async fn next_or_broken(&mut self) -> Result<Option<RpcResponse>, String> {
        loop {
            if let Some(response) = self.pending.pop_front() {
                return Ok(Some(response));
            }
            let Some(frame) = self.body.frame().await else {
                return Ok(None);
            };
            let frame = frame.map_err(|problem| problem.to_string())?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            if data.starts_with(b":") {
                self.comments_seen = true;
            }
            for event in self.parser.feed(&data) {
                let event = event.expect("bad SSE event");
                let json: Value = serde_json::from_str(&event.data).expect("event is not JSON");
                self.payloads.push(json.clone());
                let response = self
                    .dialect
                    .codec()
                    .decode_response(&json, Some(self.method))
                    .expect("event does not decode");
                self.pending.push_back(response);
            }
        }
    }

    /// The next event, which must be a stream event.
    pub async fn next_event(&mut self) -> StreamEvent {
        match self.next().await.map(|response| response.outcome) {
            Some(Ok(RpcResult::Event(event))) => event,
            other => panic!("expected a stream event, got {other:?}"),
        }
    }

    /// Every remaining event until the server closes the stream.
    pub async fn rest(&mut self) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        while let Some(response) = self.next().await {
            match response.outcome {
                Ok(RpcResult::Event(event)) => events.push(event),
                other => panic!("expected a stream event, got {other:?}"),
            }
        }
        events
    }
}

/// The state each event asserts (snapshots included), artifacts as `None`.
pub fn states(events: &[StreamEvent]) -> Vec<Option<TaskState>> {
    events.iter().map(StreamEvent::state).collect()
}

/// The states of status updates and snapshots only.
pub fn asserted_states(events: &[StreamEvent]) -> Vec<TaskState> {
    events.iter().filter_map(StreamEvent::state).collect()
}

impl Client {
    pub fn new(target: Target, dialect: Dialect) -> Self {
        Client {
            target,
            dialect,
            next_id: Default::default(),
        }
    }

    async fn exchange(&self, request: HttpRequest<Body>) -> HttpResponse<Body> {
        match &self.target {
            Target::Router(router) => router.clone().oneshot(request).await.unwrap(),
            Target::Tcp(addr) => {
                let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
                let (mut sender, connection) =
                    hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                        .await
                        .expect("handshake");
                tokio::spawn(connection);
                let response = sender.send_request(request).await.expect("request");
                response.map(Body::new)
            }
            Target::Turmoil(authority) => {
                let uri: http::Uri = format!("http://{authority}/").parse().unwrap();
                let connector =
                    meshsim_sim::TurmoilConnector::new(std::time::Duration::from_secs(1));
                let io = connector.oneshot(uri).await.expect("connect");
                let (mut sender, connection) =
                    hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(io))
                        .await
                        .expect("handshake");
                tokio::task::spawn_local(connection);
                let response = sender.send_request(request).await.expect("request");
                response.map(Body::new)
            }
        }
    }

    fn authority(&self) -> String {
        match &self.target {
            Target::Router(_) => "agent.test".to_string(),
            Target::Tcp(addr) => addr.to_string(),
            Target::Turmoil(authority) => authority.clone(),
        }
    }

    /// The HTTP status of a GET of `path`.
    pub async fn get_status(&self, path: &str) -> u16 {
        let request = HttpRequest::builder()
            .method(HttpMethod::GET)
            .uri(path)
            .header("host", self.authority())
            .body(Body::empty())
            .unwrap();
        self.exchange(request).await.status().as_u16()
    }

    /// Posts raw bytes and decodes the JSON-RPC answer, which must be plain JSON.
    pub async fn post_json(&self, body: &str, version_header: Option<&str>) -> RpcResponse {
        let response = self.post_versioned(body.to_string(), version_header).await;
        assert_eq!(response.status(), 200, "errors travel as HTTP 200");
        let content_type = response.headers().get("content-type").cloned();
        assert_eq!(content_type.unwrap(), "application/json");
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let json: Value = serde_json::from_slice(&bytes).unwrap();
        self.dialect
            .codec()
            .decode_response(&json, None)
            .expect("decodes")
    }

    /// GET the Card at the dialect's well-known path (with the dialect's version header,
    /// as a client of that dialect asks).
    pub async fn card(&self) -> AgentCard {
        let (card, _) = self.card_with_headers().await;
        card
    }

    /// The Card and the response's headers.
    pub async fn card_with_headers(&self) -> (AgentCard, http::HeaderMap) {
        let mut builder = HttpRequest::builder()
            .method(HttpMethod::GET)
            .uri(self.dialect.card_path())
            .header("host", self.authority());
        if let Some(value) = version::request_header_value(self.dialect) {
            builder = builder.header(version::HEADER, value);
        }
        let response = self.exchange(builder.body(Body::empty()).unwrap()).await;
        assert_eq!(
            response.status(),
            200,
            "card at {}",
            self.dialect.card_path()
        );
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let json: Value = serde_json::from_slice(&bytes).unwrap();
        let card = self
            .dialect
            .codec()
            .decode_card(&json)
            .expect("card decodes");
        (card, headers)
    }

    /// Posts raw bytes to `/` with the dialect's version header.
    pub async fn post_raw(&self, body: impl Into<Bytes>) -> HttpResponse<Body> {
        self.post_versioned(body, version::request_header_value(self.dialect))
            .await
    }

    /// Posts raw bytes to `/` with the given `A2A-Version` header (or none).
    pub async fn post_versioned(
        &self,
        body: impl Into<Bytes>,
        version_header: Option<&str>,
    ) -> HttpResponse<Body> {
        let mut builder = HttpRequest::builder()
            .method(HttpMethod::POST)
            .uri("/")
            .header("host", self.authority())
            .header("content-type", "application/json");
        if let Some(value) = version_header {
            builder = builder.header(version::HEADER, value);
        }
        self.exchange(builder.body(Body::from(body.into())).unwrap())
            .await
    }

    /// Calls a method and returns its answer, decoded.
    pub async fn call(&self, request: Request) -> Answer {
        let method = request.method();
        let id = RequestId::Number(
            self.next_id
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        );
        let encoded = self
            .dialect
            .codec()
            .encode_request(&RpcRequest {
                id,
                request,
                tenant: None,
            })
            .expect("request encodes");
        let response = self.post_raw(encoded.value.to_string()).await;
        assert_eq!(response.status(), 200);
        let is_stream = response
            .headers()
            .get("content-type")
            .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
        if is_stream {
            return Answer::Stream(EventReader {
                body: response.into_body(),
                parser: SseParser::new(DEFAULT_MAX_EVENT_BYTES),
                dialect: self.dialect,
                method,
                pending: Default::default(),
                comments_seen: false,
                payloads: Vec::new(),
            });
        }
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        let response = self
            .dialect
            .codec()
            .decode_response(&body, Some(method))
            .expect("decodes");
        Answer::Json { response, body }
    }

    /// A user message; v0.1 clients choose the task id, so `task_id` is required there.
    pub fn message(&self, text: &str, task_id: Option<&str>) -> SendMessageParams {
        let mut message = Message::text(Role::User, None, text);
        if self.dialect != Dialect::V0_1 {
            message.message_id = Some(format!("msg-{text}"));
        }
        message.task_id = task_id.map(str::to_string);
        message.parts = vec![Part::text(text)];
        SendMessageParams {
            message,
            configuration: None,
            metadata: None,
        }
    }

    pub async fn send(&self, params: SendMessageParams) -> Answer {
        self.call(Request::SendMessage(params)).await
    }

    pub async fn send_streaming(&self, params: SendMessageParams) -> Answer {
        self.call(Request::SendStreamingMessage(params)).await
    }

    pub async fn resubscribe(&self, id: &str) -> Answer {
        self.call(Request::SubscribeToTask { id: id.to_string() })
            .await
    }

    pub async fn get(&self, id: &str) -> Answer {
        self.call(Request::GetTask(GetTaskParams {
            id: id.to_string(),
            history_length: None,
        }))
        .await
    }

    pub async fn cancel(&self, id: &str) -> Answer {
        self.call(Request::CancelTask { id: id.to_string() }).await
    }
}
pub mod incident;

/// One v1.0 request to `router` in process (`A2A-Version: 1.0`, a JSON body): the answer's
/// status and its body as JSON (`null` when it is none).
pub async fn v1_0_answer(
    router: &Router,
    method: HttpMethod,
    path: &str,
    body: Value,
) -> (u16, Value) {
    let (status, text) = v1_0_text_answer(router, method, path, body).await;
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// [`v1_0_answer`] with the body as text, for an answer that is not JSON.
pub async fn v1_0_text_answer(
    router: &Router,
    method: HttpMethod,
    path: &str,
    body: Value,
) -> (u16, String) {
    let request = HttpRequest::builder()
        .method(method)
        .uri(path)
        .header("host", "agent.test")
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(Body::from(body.to_string()))
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}
