//! A stream of A2A events read from an SSE body: one answer per `data:` payload (a JSON-RPC
//! response, or over HTTP+JSON a bare `StreamResponse` or error body), keep-alive comments
//! ignored, each wait for bytes bounded by an idle timeout.

use super::error::ClientError;
use super::http::{Connection, Exchange};
use super::reader::Reader;
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use meshsim_protocol::sse::{SseError, SseEvent, SseParser};
use meshsim_protocol::{Json, Method, RpcResult, StreamEvent};
use std::collections::VecDeque;
use std::time::Duration;

/// The events of one streaming call. `next` yields `None` once the peer closed the stream.
pub struct EventStream {
    body: Option<Incoming>,
    connection: Option<Connection>,
    parser: SseParser,
    /// How each event's data is read.
    reader: Reader,
    idle_timeout: Duration,
    ready: VecDeque<Result<StreamEvent, ClientError>>,
}

impl EventStream {
    /// Reads `body` as SSE.
    pub(super) fn sse(
        exchange: Exchange,
        reader: Reader,
        idle_timeout: Duration,
        max_event_bytes: usize,
    ) -> Self {
        EventStream {
            body: Some(exchange.response.into_body()),
            connection: Some(exchange.connection),
            parser: SseParser::new(max_event_bytes),
            reader,
            idle_timeout,
            ready: VecDeque::new(),
        }
    }

    /// A stream that was answered with a single plain JSON result instead of SSE.
    pub(super) fn single(event: StreamEvent, reader: Reader) -> Self {
        EventStream {
            body: None,
            connection: None,
            parser: SseParser::default(),
            reader,
            idle_timeout: Duration::ZERO,
            ready: VecDeque::from([Ok(event)]),
        }
    }

    /// The next event, an error (an A2A error event, a malformed event, a cut connection,
    /// or no bytes within the idle timeout), or `None` once the stream has ended. After a
    /// transport failure or timeout the stream is over.
    pub async fn next(&mut self) -> Option<Result<StreamEvent, ClientError>> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(item);
            }
            let body = self.body.as_mut()?;
            let frame = meshsim_time::timeout(self.idle_timeout, body.frame());
            let next = match self.connection.as_mut() {
                Some(connection) => connection.run(frame).await,
                None => frame.await,
            };
            match next {
                Err(_) => {
                    self.finish();
                    let after = self.idle_timeout;
                    return Some(Err(ClientError::Timeout {
                        what: "stream event",
                        after,
                    }));
                }
                Ok(None) => {
                    self.finish();
                    if self.parser.has_partial_event() {
                        let problem = "stream ended in the middle of an event".to_string();
                        return Some(Err(ClientError::Malformed(problem)));
                    }
                    return None;
                }
                Ok(Some(Err(error))) => {
                    self.finish();
                    return Some(Err(ClientError::Transport(error.to_string())));
                }
                Ok(Some(Ok(frame))) => {
                    if let Ok(data) = frame.into_data() {
                        self.push(&data);
                    }
                }
            }
        }
    }

    /// Whether the peer ends the stream within `grace`: no event left unread and the body
    /// at its end by then. An event that arrives meanwhile stays for `next`, and ends the
    /// wait.
    pub async fn ends_within(&mut self, grace: Duration) -> bool {
        if !self.ready.is_empty() {
            return false;
        }
        match meshsim_time::timeout(grace, self.next()).await {
            Ok(None) => true,
            Ok(Some(item)) => {
                self.ready.push_front(item);
                false
            }
            Err(_) => false,
        }
    }

    /// The stream is over: drop the body and its connection.
    fn finish(&mut self) {
        self.body = None;
        self.connection = None;
    }

    fn push(&mut self, data: &Bytes) {
        let events = self.parser.feed(data);
        for event in events {
            self.ready.push_back(decode(self.reader, event));
        }
    }
}

fn decode(reader: Reader, event: Result<SseEvent, SseError>) -> Result<StreamEvent, ClientError> {
    let event = event.map_err(|error| ClientError::Malformed(error.to_string()))?;
    let json = Json::parse_str(&event.data)
        .map_err(|error| ClientError::Malformed(format!("SSE data is not JSON: {error}")))?;
    result_as_event(reader.read(json)?, reader.method)
}

/// The event a result stands for on a stream.
pub(crate) fn result_as_event(
    result: RpcResult,
    method: Method,
) -> Result<StreamEvent, ClientError> {
    match result {
        RpcResult::Event(event) => Ok(event),
        RpcResult::Task(task) => Ok(StreamEvent::Task(task)),
        RpcResult::Message(message) => Ok(StreamEvent::Message(message)),
        RpcResult::TaskList(_) => Err(ClientError::Unexpected {
            method: format!("{method:?}"),
            got: "a task list".to_string(),
        }),
    }
}
