//! A transport-generic A2A client (hyper 1.x over any [`Connector`]): Card discovery
//! (`agent-card.json`, falling back to `agent.json`), the dialect and the binding (JSON-RPC,
//! or v1.0's HTTP+JSON) chosen from the Card, the v1.0 `A2A-Version` header, request timeouts, SSE streams with an idle timeout per event,
//! and every failure as a typed [`ClientError`].

mod connector;
mod discovery;
mod error;
mod http;
mod http_json;
mod reader;
mod stream;

pub use connector::{BoxError, Connector, TcpConnector};
pub use error::ClientError;
pub use stream::EventStream;

use crate::ids::IdSource;
use crate::profile::ProfileKey;
use ::http::{Method as HttpMethod, StatusCode, Uri};
use meshsim_protocol::{
    AgentCard, Binding, Dialect, GetTaskParams, Json, ListTasksParams, Message, Method, Request,
    RequestId, Role, RpcRequest, RpcResult, SendMessageParams, StreamEvent, Task, sse, version,
};
use meshsim_trace::TraceEvent;
use reader::Reader;
use serde_json::Value;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

/// The client's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientConfig {
    /// From sending a request to the end of a plain answer (or the head of a stream).
    pub request_timeout: Duration,
    /// Longest wait for the next bytes of a stream.
    pub idle_timeout: Duration,
    /// Largest plain answer read.
    pub max_body_bytes: usize,
    /// Largest single SSE event read.
    pub max_event_bytes: usize,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            request_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_body_bytes: 4 << 20,
            max_event_bytes: sse::DEFAULT_MAX_EVENT_BYTES,
        }
    }
}

/// A client bound to one peer, after reading its Card.
pub struct A2aClient<C> {
    connector: C,
    config: ClientConfig,
    card: AgentCard,
    card_url: String,
    dialect: Dialect,
    binding: Binding,
    endpoint: Uri,
    /// The chosen interface's tenant, sent in every request (v1.0).
    tenant: Option<String>,
    next_id: AtomicI64,
}

impl<C: Connector> A2aClient<C> {
    /// A message starting a new task, in a fresh context of the client's choosing (so that
    /// a task whose creation went unanswered can be found by its context), with ids drawn
    /// from `ids`. v0.1 makes the client choose the task id, so one is drawn there; the
    /// other dialects leave it to the peer.
    pub fn new_task_message(&self, ids: &IdSource, text: &str) -> Message {
        let mut message = Message::text(Role::User, Some(ids.next("msg")), text);
        message.context_id = Some(ids.next("ctx"));
        if self.dialect == Dialect::V0_1 {
            message.task_id = Some(ids.next("task"));
        }
        message
    }

    /// A message continuing `task_id` (in `context_id`), e.g. the answer to its question.
    pub fn follow_up_message(
        &self,
        ids: &IdSource,
        task_id: &str,
        context_id: Option<&str>,
        text: &str,
    ) -> Message {
        let mut message = Message::text(Role::User, Some(ids.next("msg")), text);
        message.task_id = Some(task_id.to_string());
        message.context_id = context_id.map(str::to_string);
        message
    }

    /// The peer's Card as read.
    pub fn card(&self) -> &AgentCard {
        &self.card
    }

    /// Where the Card was found.
    pub fn card_url(&self) -> &str {
        &self.card_url
    }

    /// The dialect spoken with the peer.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The binding spoken with the peer: the first of the Card's interfaces the client
    /// speaks.
    pub fn binding(&self) -> Binding {
        self.binding
    }

    /// The chosen interface's URL: the JSON-RPC endpoint, or the base of the HTTP+JSON
    /// routes.
    pub fn endpoint(&self) -> &Uri {
        &self.endpoint
    }

    /// The tenant the chosen interface declares, which every request carries (JSON-RPC in
    /// its params, HTTP+JSON as the first segment of its path).
    pub fn tenant(&self) -> Option<&str> {
        self.tenant.as_deref()
    }

    /// The lifecycle profile key of this peer: the endpoint's host and the Card's version.
    pub fn profile_key(&self) -> ProfileKey {
        ProfileKey {
            host: self
                .endpoint
                .authority()
                .map(ToString::to_string)
                .unwrap_or_default(),
            card_version: self.card.version.clone(),
        }
    }

    /// Calls a non-streaming method.
    pub async fn call(&self, request: Request) -> Result<RpcResult, ClientError> {
        let method = request.method();
        let plain = match self.binding {
            Binding::JsonRpc => "application/json",
            Binding::HttpJson => meshsim_protocol::http_json::MEDIA_TYPE,
        };
        let (response, id) = self.send(request, plain).await?;
        if http::is_event_stream(&response.response) {
            return Err(ClientError::Unexpected {
                method: format!("{method:?}"),
                got: "an event stream".to_string(),
            });
        }
        self.decode_plain(response, method, id).await
    }

    /// Calls a streaming method. A peer that refuses before streaming answers with plain
    /// JSON: an error becomes `Err`, a result a one-event stream.
    pub async fn stream(&self, request: Request) -> Result<EventStream, ClientError> {
        let reader = Reader {
            binding: self.binding,
            codec: self.dialect.codec(),
            method: request.method(),
        };
        let (response, id) = self.send(request, sse::CONTENT_TYPE).await?;
        if http::is_event_stream(&response.response) {
            let config = &self.config;
            return Ok(EventStream::sse(
                response,
                reader,
                config.idle_timeout,
                config.max_event_bytes,
            ));
        }
        let result = self.decode_plain(response, reader.method, id).await?;
        let event = stream::result_as_event(result, reader.method)?;
        Ok(EventStream::single(event, reader))
    }

    /// `SendMessage` (`tasks/send`): the task (or a direct message) once the peer answers.
    pub async fn send_message(&self, message: Message) -> Result<RpcResult, ClientError> {
        self.call(Request::SendMessage(send_params(message))).await
    }

    /// `SendStreamingMessage` (`tasks/sendSubscribe`).
    pub async fn stream_message(&self, message: Message) -> Result<EventStream, ClientError> {
        self.stream(Request::SendStreamingMessage(send_params(message)))
            .await
    }

    /// `SubscribeToTask` (`tasks/resubscribe`).
    pub async fn subscribe(&self, task_id: &str) -> Result<EventStream, ClientError> {
        self.stream(Request::SubscribeToTask {
            id: task_id.to_string(),
        })
        .await
    }

    /// `GetTask` (`tasks/get`).
    pub async fn get_task(&self, task_id: &str) -> Result<Task, ClientError> {
        let request = Request::GetTask(GetTaskParams {
            id: task_id.to_string(),
            history_length: None,
        });
        expect_task(self.call(request).await?, Method::GetTask)
    }

    /// Whether the peer's dialect has `method` (`ListTasks` exists only in v1.0).
    pub fn supports(&self, method: Method) -> bool {
        self.dialect.codec().method_name(method).is_some()
    }

    /// `ListTasks` (v1.0 only): the tasks of one context, whole (artifacts included).
    pub async fn list_tasks(&self, context_id: &str) -> Result<Vec<Task>, ClientError> {
        let params = ListTasksParams {
            context_id: Some(context_id.to_string()),
            include_artifacts: Some(true),
            ..Default::default()
        };
        match self.call(Request::ListTasks(params)).await? {
            RpcResult::TaskList(list) => Ok(list.tasks),
            other => Err(ClientError::Unexpected {
                method: "ListTasks".to_string(),
                got: format!("{other:?}").chars().take(120).collect(),
            }),
        }
    }

    /// `CancelTask` (`tasks/cancel`).
    pub async fn cancel_task(&self, task_id: &str) -> Result<Task, ClientError> {
        let request = Request::CancelTask {
            id: task_id.to_string(),
        };
        expect_task(self.call(request).await?, Method::CancelTask)
    }

    /// Encodes `request` in the dialect and sends it over the binding; the answer's head
    /// once it is a 200, with the request's id, else the error the peer answered with.
    async fn send(
        &self,
        request: Request,
        accept: &'static str,
    ) -> Result<(http::Exchange, i64), ClientError> {
        let number = self.next_id.fetch_add(1, Ordering::Relaxed);
        let id = RequestId::Number(number);
        let method = request.method();
        let encoded = self
            .dialect
            .codec()
            .encode_request(&RpcRequest {
                id,
                request,
                tenant: self.tenant.clone(),
            })
            .map_err(ClientError::Encode)?;
        for loss in &encoded.losses {
            TraceEvent::EncodeLoss {
                method: format!("{method:?}").into(),
                loss: loss.to_string().into(),
            }
            .emit();
        }
        let a2a_version = version::request_header_value(self.dialect);
        let request = match self.binding {
            Binding::JsonRpc => {
                let body = serde_json::to_vec(&encoded.value)
                    .map_err(|error| ClientError::Malformed(error.to_string()))?;
                let body = Some(("application/json", body));
                http::request(HttpMethod::POST, &self.endpoint, accept, body, a2a_version)?
            }
            Binding::HttpJson => {
                let mut envelope = encoded.value;
                let params = match envelope.get_mut("params").map(Value::take) {
                    Some(Value::Object(params)) => params,
                    _ => serde_json::Map::new(),
                };
                http_json::request(&self.endpoint, method, params, accept, a2a_version)?
            }
        };
        let url = request.uri().clone();
        let config = &self.config;
        let exchange = http::exchange(&self.connector, request, config.request_timeout).await?;
        let status = exchange.response.status();
        if status == StatusCode::OK {
            return Ok((exchange, number));
        }
        Err(match self.binding {
            Binding::JsonRpc => ClientError::Http {
                status: status.as_u16(),
                url: url.to_string(),
            },
            Binding::HttpJson => http_json::refusal(exchange, &url, config.max_body_bytes).await,
        })
    }

    /// A plain answer to the request of `id`: over JSON-RPC its `id` must be the request's
    /// (JSON-RPC 2.0, section 5), or null (a server that could not read the request).
    async fn decode_plain(
        &self,
        exchange: http::Exchange,
        method: Method,
        id: i64,
    ) -> Result<RpcResult, ClientError> {
        let config = &self.config;
        let bytes = http::read_body(exchange, config.max_body_bytes).await?;
        let json = Json::parse(&bytes)
            .map_err(|error| ClientError::Malformed(format!("answer is not JSON: {error}")))?;
        if self.binding == Binding::JsonRpc
            && let Some(answered) = json.get("id")
            && !answered.is_null()
            && answered.as_i64() != Some(id)
        {
            return Err(ClientError::Malformed(format!(
                "the answer's id {} is not the request's {id}",
                answered.to_value()
            )));
        }
        let reader = Reader {
            binding: self.binding,
            codec: self.dialect.codec(),
            method,
        };
        reader.read(json)
    }
}

fn expect_task(result: RpcResult, method: Method) -> Result<Task, ClientError> {
    match result {
        RpcResult::Task(task) | RpcResult::Event(StreamEvent::Task(task)) => Ok(task),
        other => Err(ClientError::Unexpected {
            method: format!("{method:?}"),
            got: format!("{other:?}").chars().take(120).collect(),
        }),
    }
}

fn send_params(message: Message) -> SendMessageParams {
    SendMessageParams {
        message,
        configuration: None,
        metadata: None,
    }
}
