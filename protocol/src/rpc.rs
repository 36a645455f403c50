//! JSON-RPC 2.0 in the model's terms: requests by method, responses, and A2A errors with
//! every code the specs define.

use crate::model::{Message, StreamEvent, Task, TaskState};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// A JSON-RPC id: a string or a number (or null on errors about unreadable requests).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(i64),
    String(String),
    Null,
}

/// The operations every dialect has, under the v1.0 names. Each dialect names them on the
/// wire its own way (`tasks/sendSubscribe`, `message/stream`, `SendStreamingMessage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Method {
    SendMessage,
    SendStreamingMessage,
    SubscribeToTask,
    GetTask,
    ListTasks,
    CancelTask,
}

impl Method {
    /// All methods, in declaration order.
    pub const ALL: [Method; 6] = [
        Method::SendMessage,
        Method::SendStreamingMessage,
        Method::SubscribeToTask,
        Method::GetTask,
        Method::ListTasks,
        Method::CancelTask,
    ];

    /// Whether the answer is an SSE stream.
    pub fn is_streaming(self) -> bool {
        matches!(self, Method::SendStreamingMessage | Method::SubscribeToTask)
    }
}

/// How a send should behave.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SendConfiguration {
    pub accepted_output_modes: Vec<String>,
    pub history_length: Option<i32>,
    /// v1.0 `returnImmediately`; v0.3 `blocking` is its negation.
    pub return_immediately: Option<bool>,
}

/// Params of `SendMessage` and `SendStreamingMessage`. The task to continue, if any, is
/// `message.task_id` (v0.1 carries it as `params.id`, and always carries one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SendMessageParams {
    pub message: Message,
    pub configuration: Option<SendConfiguration>,
    pub metadata: Option<Value>,
}

/// Params of `GetTask`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetTaskParams {
    pub id: String,
    pub history_length: Option<i32>,
}

/// Params of `ListTasks` (v1.0 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListTasksParams {
    pub context_id: Option<String>,
    pub status: Option<TaskState>,
    pub page_size: Option<i32>,
    pub page_token: Option<String>,
    pub history_length: Option<i32>,
    /// Only tasks whose status changed at or after this RFC 3339 instant.
    pub status_timestamp_after: Option<String>,
    /// Whether listed tasks carry their artifacts (v1.0: omitted unless asked for).
    pub include_artifacts: Option<bool>,
}

/// The result of `ListTasks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskList {
    pub tasks: Vec<Task>,
    pub next_page_token: String,
    pub page_size: i32,
    pub total_size: i32,
}

/// A request, by method, with its params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    SendMessage(SendMessageParams),
    SendStreamingMessage(SendMessageParams),
    SubscribeToTask { id: String },
    GetTask(GetTaskParams),
    ListTasks(ListTasksParams),
    CancelTask { id: String },
}

impl Request {
    /// The method this request calls.
    pub fn method(&self) -> Method {
        match self {
            Request::SendMessage(_) => Method::SendMessage,
            Request::SendStreamingMessage(_) => Method::SendStreamingMessage,
            Request::SubscribeToTask { .. } => Method::SubscribeToTask,
            Request::GetTask(_) => Method::GetTask,
            Request::ListTasks(_) => Method::ListTasks,
            Request::CancelTask { .. } => Method::CancelTask,
        }
    }
}

/// A JSON-RPC request envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcRequest {
    pub id: RequestId,
    pub request: Request,
    /// v1.0's `tenant`, sent in every request's params: the routing identifier of the Card
    /// interface the client chose, which it must send exactly when that interface declares
    /// one. v0.1 and v0.3 have no such field (their codecs list it as a loss).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
}

/// What a successful call returns. A streaming call returns one `Event` per SSE line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RpcResult {
    /// `SendMessage`, `GetTask` and `CancelTask` answer with a task.
    Task(Task),
    /// `SendMessage` may answer with a message instead of a task.
    Message(Message),
    /// One event of `SendStreamingMessage` or `SubscribeToTask`.
    Event(StreamEvent),
    TaskList(TaskList),
}

/// A JSON-RPC response envelope: a result or an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcResponse {
    pub id: RequestId,
    pub outcome: Result<RpcResult, RpcError>,
}

/// Every error code JSON-RPC and A2A define. Unknown codes are kept as `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ErrorCode {
    ParseError,
    InvalidRequest,
    MethodNotFound,
    InvalidParams,
    InternalError,
    TaskNotFound,
    TaskNotCancelable,
    PushNotificationNotSupported,
    UnsupportedOperation,
    ContentTypeNotSupported,
    InvalidAgentResponse,
    ExtendedAgentCardNotConfigured,
    ExtensionSupportRequired,
    VersionNotSupported,
    Other(i64),
}

impl ErrorCode {
    /// Every named code, in declaration order.
    pub const NAMED: [ErrorCode; 14] = [
        ErrorCode::ParseError,
        ErrorCode::InvalidRequest,
        ErrorCode::MethodNotFound,
        ErrorCode::InvalidParams,
        ErrorCode::InternalError,
        ErrorCode::TaskNotFound,
        ErrorCode::TaskNotCancelable,
        ErrorCode::PushNotificationNotSupported,
        ErrorCode::UnsupportedOperation,
        ErrorCode::ContentTypeNotSupported,
        ErrorCode::InvalidAgentResponse,
        ErrorCode::ExtendedAgentCardNotConfigured,
        ErrorCode::ExtensionSupportRequired,
        ErrorCode::VersionNotSupported,
    ];

    /// The numeric code on the wire.
    pub fn code(self) -> i64 {
        match self {
            ErrorCode::ParseError => -32700,
            ErrorCode::InvalidRequest => -32600,
            ErrorCode::MethodNotFound => -32601,
            ErrorCode::InvalidParams => -32602,
            ErrorCode::InternalError => -32603,
            ErrorCode::TaskNotFound => -32001,
            ErrorCode::TaskNotCancelable => -32002,
            ErrorCode::PushNotificationNotSupported => -32003,
            ErrorCode::UnsupportedOperation => -32004,
            ErrorCode::ContentTypeNotSupported => -32005,
            ErrorCode::InvalidAgentResponse => -32006,
            ErrorCode::ExtendedAgentCardNotConfigured => -32007,
            ErrorCode::ExtensionSupportRequired => -32008,
            ErrorCode::VersionNotSupported => -32009,
            ErrorCode::Other(code) => code,
        }
    }

    /// The code for a number; unknown numbers become `Other`.
    pub fn from_code(code: i64) -> Self {
        ErrorCode::NAMED
            .into_iter()
            .find(|named| named.code() == code)
            .unwrap_or(ErrorCode::Other(code))
    }

    /// v1.0's `google.rpc.ErrorInfo` reason, e.g. `TASK_NOT_FOUND`.
    pub fn reason(self) -> &'static str {
        match self {
            ErrorCode::ParseError => "PARSE_ERROR",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::MethodNotFound => "METHOD_NOT_FOUND",
            ErrorCode::InvalidParams => "INVALID_PARAMS",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::TaskNotFound => "TASK_NOT_FOUND",
            ErrorCode::TaskNotCancelable => "TASK_NOT_CANCELABLE",
            ErrorCode::PushNotificationNotSupported => "PUSH_NOTIFICATION_NOT_SUPPORTED",
            ErrorCode::UnsupportedOperation => "UNSUPPORTED_OPERATION",
            ErrorCode::ContentTypeNotSupported => "CONTENT_TYPE_NOT_SUPPORTED",
            ErrorCode::InvalidAgentResponse => "INVALID_AGENT_RESPONSE",
            ErrorCode::ExtendedAgentCardNotConfigured => "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
            ErrorCode::ExtensionSupportRequired => "EXTENSION_SUPPORT_REQUIRED",
            ErrorCode::VersionNotSupported => "VERSION_NOT_SUPPORTED",
            ErrorCode::Other(_) => "UNKNOWN",
        }
    }
}

impl ErrorCode {
    /// The `google.rpc.ErrorInfo` object v1.0 puts in `error.data` for this code.
    pub fn error_info(self) -> Value {
        serde_json::json!({
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": self.reason(),
            "domain": "a2a-protocol.org",
        })
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.code(), self.reason())
    }
}

/// A JSON-RPC error object. `data` is kept as sent (v1.0 puts a list of
/// `google.rpc.ErrorInfo` there).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    pub code: ErrorCode,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with no data.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for RpcError {}
