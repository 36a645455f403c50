//! The JSON-RPC endpoint: reads a request in the runtime's dialect, checks v1.0's
//! `A2A-Version`, dispatches to the task store and answers in the same dialect: a JSON
//! body, or an SSE stream for streaming methods. Errors travel as HTTP 200 JSON-RPC error
//! bodies; a request that fails before its stream starts gets plain JSON.

use crate::headers::Headers;
use crate::json_text::json_text;
use crate::store::{Host, trimmed};
use crate::{card, media, stream, tck, unserved};
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Response, header};
use meshsim_protocol::{
    DecodeError, Dialect, ErrorCode, Json, Message, Method, PartContent, Request, RequestId, Role,
    RpcError, RpcRequest, RpcResponse, RpcResult, version,
};
use meshsim_trace::TraceEvent;
use serde_json::Value;
use std::sync::Arc;

/// POST handler of the interface URL.
pub(crate) async fn handle(
    State(host): State<Arc<Host>>,
    Headers(headers): Headers,
    body: Bytes,
) -> Response<Body> {
    let dialect = serving_dialect(&host, &headers);
    let request = match read(&host, dialect, &headers, &body) {
        Ok(request) => request,
        Err((id, method, error)) => return answer_error(&host, dialect, id, method, error),
    };
    let method = request.request.method();
    match dispatch(&host, request.request).await {
        Ok(Answer::Result(result)) => json(
            dialect,
            Some(method),
            RpcResponse {
                id: request.id,
                outcome: Ok(*result),
            },
        ),
        Ok(Answer::Stream(subscription)) => stream::response(
            subscription,
            stream::Framing::JsonRpc(request.id),
            dialect,
            &host.personality,
        ),
        Err(error) => answer_error(&host, dialect, request.id, Some(method), error),
    }
}

/// The dialect a request is served in: the runtime's, or v0.3 when a v1.0 runtime with the
/// v0.3 compatibility layer (a2a-js 1.3) gets no `A2A-Version` header or a `0.x` one.
pub(crate) fn serving_dialect(host: &Host, headers: &HeaderMap) -> Dialect {
    let requested = headers
        .get(version::HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::trim)
        .filter(|value| !value.is_empty());
    let legacy = requested.is_none_or(|value| value.starts_with("0."));
    if host.dialect == Dialect::V1_0 && host.personality.v0_3_compat && legacy {
        Dialect::V0_3
    } else {
        host.dialect
    }
}

type Refusal = (RequestId, Option<Method>, RpcError);

/// Parses and checks a request, or says which error answers it.
fn read(
    host: &Host,
    dialect: Dialect,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<RpcRequest, Refusal> {
    if host.personality.check_content_type {
        media::check_content_type(headers).map_err(|error| (RequestId::Null, None, error))?;
    }
    let codec = dialect.codec();
    let json = Json::parse(body).map_err(|problem| {
        let error = RpcError::new(ErrorCode::ParseError, format!("invalid JSON: {problem}"));
        (RequestId::Null, None, error)
    })?;
    let id = envelope_id(&json);
    if !json.is_object() {
        let error = RpcError::new(
            ErrorCode::InvalidRequest,
            "a request must be a JSON object (batches are not supported)",
        );
        return Err((id, None, error));
    }
    if json.get("jsonrpc").and_then(Json::as_str) != Some("2.0") {
        let error = RpcError::new(
            ErrorCode::InvalidRequest,
            "not a JSON-RPC 2.0 request: `jsonrpc` must be \"2.0\"",
        );
        return Err((id, None, error));
    }
    check_version(host, dialect, headers).map_err(|error| (id.clone(), None, error))?;
    let Some(name) = json.get("method").and_then(Json::as_str) else {
        let error = RpcError::new(ErrorCode::InvalidRequest, "`method` must be a string");
        return Err((id, None, error));
    };
    if let Some(error) = unserved::refusal(dialect, name, &host.personality) {
        return Err((id, None, error));
    }
    let Some(method) = codec.method_from_name(name) else {
        let error = RpcError::new(
            ErrorCode::MethodNotFound,
            format!("method `{name}` is not part of A2A {dialect}"),
        );
        return Err((id, None, error));
    };
    let request = codec
        .read_request(&json)
        .map_err(|problem| (id, Some(method), invalid(problem)))?;
    check_tenant(host, dialect, &request)
        .map_err(|error| (request.id.clone(), Some(method), error))?;
    Ok(request)
}

/// A v1.0 runtime with a tenant serves only requests that carry it (its Card's interfaces
/// declare it, and clients must send it in every request); any other reaches no agent here.
fn check_tenant(host: &Host, dialect: Dialect, request: &RpcRequest) -> Result<(), RpcError> {
    let Some(tenant) = card::tenant(&host.personality, dialect) else {
        return Ok(());
    };
    if request.tenant.as_deref() == Some(tenant) {
        return Ok(());
    }
    let named = match &request.tenant {
        Some(other) => format!("named tenant `{other}`"),
        None => "named no tenant".to_string(),
    };
    Err(RpcError::new(
        ErrorCode::InvalidParams,
        format!(
            "params.tenant: this agent is tenant `{tenant}`, as its Card's interfaces say, \
             and the request {named}"
        ),
    ))
}

/// The `A2A-Version` rules a request meets over either binding: the major-version rule every
/// server applies, then the personality's [`exact_version`].
pub(crate) fn check_version(
    host: &Host,
    dialect: Dialect,
    headers: &HeaderMap,
) -> Result<(), RpcError> {
    let header = headers
        .get(version::HEADER)
        .and_then(|value| value.to_str().ok());
    version::check_request_version(dialect, header)?;
    exact_version(host, dialect, header)
}

/// A personality that compares the whole `A2A-Version` (a2a-js 1.3 refuses `1.1`) on top of
/// the major-version rule every v1.0 server applies.
fn exact_version(host: &Host, dialect: Dialect, header: Option<&str>) -> Result<(), RpcError> {
    let served = dialect.protocol_version();
    let requested = header.map(str::trim);
    if dialect != Dialect::V1_0 || !host.personality.exact_version || requested == served {
        return Ok(());
    }
    Err(RpcError {
        code: ErrorCode::VersionNotSupported,
        message: format!(
            "A2A protocol version {} is not supported; this agent speaks exactly 1.0",
            requested.unwrap_or("(none)")
        ),
        data: Some(Value::Array(vec![
            ErrorCode::VersionNotSupported.error_info(),
        ])),
    })
}

/// The envelope's id if it has a usable one, for answering errors.
fn envelope_id(json: &Json<'_>) -> RequestId {
    match json.get("id") {
        Some(Json::String(text)) => RequestId::String(text.to_string()),
        Some(Json::Number(number)) => number.as_i64().map_or(RequestId::Null, RequestId::Number),
        _ => RequestId::Null,
    }
}

/// A request the codec refused: a broken envelope is an invalid request, anything in
/// `params` is invalid params.
pub(crate) fn invalid(problem: DecodeError) -> RpcError {
    let code = match problem.field.as_str() {
        "" | "jsonrpc" | "id" | "method" => ErrorCode::InvalidRequest,
        _ => ErrorCode::InvalidParams,
    };
    RpcError::new(code, problem.to_string())
}

pub(crate) enum Answer {
    Result(Box<RpcResult>),
    Stream(crate::store::Subscription),
}

pub(crate) async fn dispatch(host: &Arc<Host>, request: Request) -> Result<Answer, RpcError> {
    match request {
        Request::SendMessage(params) => {
            accepts(host, &params.message)?;
            if let Some(reply) = tck::direct_reply(&params.message) {
                TraceEvent::DirectReply {
                    runtime: host.personality.name.as_str().into(),
                }
                .emit();
                return Ok(Answer::Result(Box::new(RpcResult::Message(reply))));
            }
            let configuration = params.configuration.clone().unwrap_or_default();
            let sent = host.send(params, false)?;
            // v1.0 `returnImmediately` (v0.3 `blocking: false`) asks for the accepted task.
            let settled = sent
                .settled
                .filter(|_| configuration.return_immediately != Some(true));
            let task = match settled {
                Some(settled) => settled.await.map_err(|_| {
                    RpcError::new(
                        ErrorCode::TaskNotFound,
                        "the task was dropped before its turn settled",
                    )
                })?,
                None => sent.accepted,
            };
            let task = trimmed(task, configuration.history_length)?;
            Ok(Answer::Result(Box::new(RpcResult::Task(task))))
        }
        Request::SendStreamingMessage(params) => {
            accepts(host, &params.message)?;
            let sent = host.send(params, true)?;
            match sent.stream {
                Some(subscription) => Ok(Answer::Stream(subscription)),
                None => Ok(Answer::Result(Box::new(RpcResult::Task(sent.accepted)))),
            }
        }
        Request::SubscribeToTask { id } => host.subscribe(&id).map(Answer::Stream),
        Request::GetTask(params) => host
            .get(&params.id, params.history_length)
            .map(|task| Answer::Result(Box::new(RpcResult::Task(task)))),
        Request::ListTasks(params) => host
            .list(&params)
            .map(|list| Answer::Result(Box::new(RpcResult::TaskList(list)))),
        Request::CancelTask { id } => host
            .cancel(&id)
            .map(|task| Answer::Result(Box::new(RpcResult::Task(task)))),
    }
}

/// Refuses a message from an unknown role or with a part of an unknown kind (the codecs keep
/// them, reading tolerantly, but a runtime cannot act on them) and one with a part the
/// Card's input modes do not cover.
fn accepts(host: &Host, message: &Message) -> Result<(), RpcError> {
    if let Role::Unknown(role) = &message.role {
        return Err(RpcError::new(
            ErrorCode::InvalidParams,
            format!("params.message.role: unknown role `{role}`"),
        ));
    }
    for (n, part) in message.parts.iter().enumerate() {
        if let PartContent::Unknown(unknown) = &part.content {
            return Err(RpcError::new(
                ErrorCode::InvalidParams,
                format!(
                    "params.message.parts[{n}]: unknown part kind `{}`",
                    unknown.kind
                ),
            ));
        }
    }
    if !host.personality.check_input_modes {
        return Ok(());
    }
    // The Card's `defaultInputModes`, without writing the Card for every request.
    media::check(message, &card::MODES)
}

fn answer_error(
    host: &Host,
    dialect: Dialect,
    id: RequestId,
    method: Option<Method>,
    error: RpcError,
) -> Response<Body> {
    let method_name = method
        .and_then(|method| dialect.codec().method_name(method))
        .unwrap_or("-");
    TraceEvent::ErrorAnswered {
        runtime: host.personality.name.as_str().into(),
        method: method_name.into(),
        code: error.code.code(),
    }
    .emit();
    json(
        dialect,
        method,
        RpcResponse {
            id,
            outcome: Err(error),
        },
    )
}

/// A JSON-RPC response as an HTTP 200 JSON body, shaped as the answer to `method` (v1.0's
/// `GetTask` and `CancelTask` return the bare `Task`, `SendMessage` a `SendMessageResponse`).
pub(crate) fn json(
    dialect: Dialect,
    method: Option<Method>,
    response: RpcResponse,
) -> Response<Body> {
    let codec = dialect.codec();
    let encoded = match method {
        Some(method) => codec.encode_response_to(method, &response),
        None => codec.encode_response(&response),
    };
    let body = match encoded {
        Ok(encoded) => json_text(&encoded.value),
        Err(problem) => {
            let error = RpcError::new(ErrorCode::InternalError, problem.to_string());
            let fallback = RpcResponse {
                id: response.id,
                outcome: Err(error),
            };
            match codec.encode_response(&fallback) {
                Ok(encoded) => json_text(&encoded.value),
                Err(_) => json_text(&serde_json::json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32603, "message": problem.to_string()}})),
            }
        }
    };
    let mut answer = Response::new(Body::from(body));
    answer.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    answer
}
