//! The v1.0 HTTP+JSON (REST) binding, served beside JSON-RPC by every v1.0 runtime on the
//! same task store: the same request reaches the same [`endpoint::dispatch`], so a
//! personality behaves the same over either binding. The routes are the proto's
//! `google.api.http` options (v1.0.1 spec, section 11.3; `docs/http-json.md`):
//!
//! | route | method |
//! |---|---|
//! | `POST /message:send` | `SendMessage` |
//! | `POST /message:stream` | `SendStreamingMessage` (SSE) |
//! | `GET /tasks/{id}` | `GetTask` (`?historyLength=`) |
//! | `GET /tasks` | `ListTasks` (`?contextId=&status=&pageSize=&pageToken=&historyLength=&statusTimestampAfter=&includeArtifacts=`) |
//! | `POST /tasks/{id}:cancel` | `CancelTask` |
//! | `GET` or `POST /tasks/{id}:subscribe` | `SubscribeToTask` (SSE) |
//! | `/tasks/{id}/pushNotificationConfigs[/{configId}]` | refused as over JSON-RPC |
//! | `GET /extendedAgentCard` | refused as over JSON-RPC |
//!
//! A request body is the JSON-RPC call's `params` and a success body the answer's `result`,
//! so the v1.0 codec reads and writes both; an error is its HTTP status with the binding's
//! `google.rpc.Status` body ([`meshsim_protocol::http_json`]), recorded in the trace as a
//! JSON-RPC refusal is (`ErrorAnswered`, with the method's v1.0 name, or `-` for a path that
//! names none). A stream's events are the bare `StreamResponse`s.

use crate::endpoint::{self, Answer};
use crate::headers::Headers;
use crate::json_text::json_text;
use crate::store::Host;
use crate::{media, stream, unserved};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use axum::routing::{get, post};
use meshsim_protocol::{
    Dialect, ErrorCode, Method, RequestId, RpcError, RpcRequest, RpcResponse, RpcResult, http_json,
};
use meshsim_trace::TraceEvent;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The binding's routes, for a v1.0 runtime's router.
pub(crate) fn routes() -> Router<Arc<Host>> {
    Router::new()
        .route("/message:send", post(send))
        .route("/message:stream", post(stream_message))
        .route("/tasks", get(list))
        .route("/tasks/{target}", get(get_task).post(post_task))
        .route("/tasks/{id}/pushNotificationConfigs", get(push).post(push))
        .route(
            "/tasks/{id}/pushNotificationConfigs/{config}",
            get(push).delete(push),
        )
        .route("/extendedAgentCard", get(extended_card))
}

async fn send(
    State(host): State<Arc<Host>>,
    Headers(headers): Headers,
    body: Bytes,
) -> Response<Body> {
    let params = match body_params(&body) {
        Ok(params) => params,
        Err(error) => return refusal(&host, Some(Method::SendMessage), &error),
    };
    call(&host, &headers, Method::SendMessage, params).await
}

async fn stream_message(
    State(host): State<Arc<Host>>,
    Headers(headers): Headers,
    body: Bytes,
) -> Response<Body> {
    let params = match body_params(&body) {
        Ok(params) => params,
        Err(error) => return refusal(&host, Some(Method::SendStreamingMessage), &error),
    };
    call(&host, &headers, Method::SendStreamingMessage, params).await
}

async fn list(
    State(host): State<Arc<Host>>,
    Headers(headers): Headers,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response<Body> {
    call(&host, &headers, Method::ListTasks, query_params(query)).await
}

/// `GET /tasks/{id}` and `GET /tasks/{id}:subscribe`.
async fn get_task(
    State(host): State<Arc<Host>>,
    Headers(headers): Headers,
    Target(target): Target,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response<Body> {
    match target.rsplit_once(':') {
        Some((id, "subscribe")) => subscribe(&host, &headers, id).await,
        Some(_) => not_found(&host, &target),
        None => {
            let mut params = query_params(query);
            params.insert("id".into(), json!(target));
            call(&host, &headers, Method::GetTask, params).await
        }
    }
}

/// `POST /tasks/{id}:cancel` and `POST /tasks/{id}:subscribe`.
async fn post_task(
    State(host): State<Arc<Host>>,
    Headers(headers): Headers,
    Target(target): Target,
) -> Response<Body> {
    match target.rsplit_once(':') {
        Some((id, "cancel")) => {
            let params = Map::from_iter([("id".to_string(), json!(id))]);
            call(&host, &headers, Method::CancelTask, params).await
        }
        Some((id, "subscribe")) => subscribe(&host, &headers, id).await,
        _ => not_found(&host, &target),
    }
}

/// The `{target}` of a task route, percent-decoded. A path that does not decode (not
/// UTF-8) is refused in the binding's error shape, not axum's plain text.
struct Target(String);

impl<S: Send + Sync> FromRequestParts<S> for Target {
    type Rejection = Response<Body>;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<String>::from_request_parts(parts, state)
            .await
            .map(|Path(target)| Target(target))
            .map_err(|rejection| bad_request(&rejection.body_text()))
    }
}

fn bad_request(problem: &str) -> Response<Body> {
    error_answer(&RpcError::new(
        ErrorCode::InvalidRequest,
        problem.to_string(),
    ))
}

async fn subscribe(host: &Arc<Host>, headers: &HeaderMap, id: &str) -> Response<Body> {
    let params = Map::from_iter([("id".to_string(), json!(id))]);
    call(host, headers, Method::SubscribeToTask, params).await
}

async fn push(State(host): State<Arc<Host>>) -> Response<Body> {
    unserved_answer(&host, "CreateTaskPushNotificationConfig")
}

async fn extended_card(State(host): State<Arc<Host>>) -> Response<Body> {
    unserved_answer(&host, "GetExtendedAgentCard")
}

/// The refusal JSON-RPC gives the method of the same operation.
fn unserved_answer(host: &Host, method: &str) -> Response<Body> {
    let error = unserved::refusal(Dialect::V1_0, method, &host.personality).unwrap_or_else(|| {
        RpcError::new(
            ErrorCode::UnsupportedOperation,
            format!("{method} is not served"),
        )
    });
    traced_refusal(host, method, &error)
}

fn not_found(host: &Host, target: &str) -> Response<Body> {
    let error = RpcError::new(
        ErrorCode::MethodNotFound,
        format!("no operation at /tasks/{target}"),
    );
    traced_refusal(host, "-", &error)
}

/// A refusal of a call to `method` (`None`: it was not told), recorded as over JSON-RPC.
fn refusal(host: &Host, method: Option<Method>, error: &RpcError) -> Response<Body> {
    let name = method
        .and_then(|method| Dialect::V1_0.codec().method_name(method))
        .unwrap_or("-");
    traced_refusal(host, name, error)
}

fn traced_refusal(host: &Host, method: &str, error: &RpcError) -> Response<Body> {
    TraceEvent::ErrorAnswered {
        runtime: host.personality.name.as_str().into(),
        method: method.into(),
        code: error.code.code(),
    }
    .emit();
    error_answer(error)
}

/// A request body: a JSON object, the method's request message.
fn body_params(body: &[u8]) -> Result<Map<String, Value>, RpcError> {
    match serde_json::from_slice(body) {
        Ok(Value::Object(params)) => Ok(params),
        Ok(_) => Err(RpcError::new(
            ErrorCode::InvalidRequest,
            "the body must be a JSON object",
        )),
        Err(problem) => Err(RpcError::new(
            ErrorCode::ParseError,
            format!("invalid JSON: {problem}"),
        )),
    }
}

/// Query parameters as request fields: each value a string, which the v1.0 codec reads for
/// strings, enum names and (as ProtoJSON allows) numbers alike (section 11.5).
fn query_params(query: BTreeMap<String, String>) -> Map<String, Value> {
    query
        .into_iter()
        .map(|(key, value)| {
            // A query carries text; the one boolean parameter is read as the binding's
            // `true` and `false` (anything else stays text, which the codec refuses).
            let value = match (key.as_str(), value.as_str()) {
                ("includeArtifacts", "true") => Value::Bool(true),
                ("includeArtifacts", "false") => Value::Bool(false),
                _ => Value::String(value),
            };
            (key, value)
        })
        .collect()
}

/// Checks the headers as JSON-RPC requests are checked (the personality's Content-Type rule,
/// `A2A-Version`), reads `params` as the `method` call the v1.0 codec knows, and
/// answers from the task store.
async fn call(
    host: &Arc<Host>,
    headers: &HeaderMap,
    method: Method,
    params: Map<String, Value>,
) -> Response<Body> {
    let content_type = if host.personality.check_content_type {
        media::check_content_type(headers)
    } else {
        Ok(())
    };
    if let Err(error) =
        content_type.and_then(|()| endpoint::check_version(host, Dialect::V1_0, headers))
    {
        return refusal(host, Some(method), &error);
    }
    let codec = Dialect::V1_0.codec();
    let envelope = json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": codec.method_name(method),
        "params": params,
    });
    let request: RpcRequest = match codec.decode_request(&envelope) {
        Ok(request) => request,
        Err(problem) => return refusal(host, Some(method), &endpoint::invalid(problem)),
    };
    match endpoint::dispatch(host, request.request).await {
        Ok(Answer::Result(result)) => result_answer(method, *result),
        Ok(Answer::Stream(subscription)) => stream::response(
            subscription,
            stream::Framing::Bare,
            Dialect::V1_0,
            &host.personality,
        ),
        Err(error) => refusal(host, Some(method), &error),
    }
}

/// A success: the method's response message, as the JSON-RPC answer's `result`.
fn result_answer(method: Method, result: RpcResult) -> Response<Body> {
    let response = RpcResponse {
        id: RequestId::Null,
        outcome: Ok(result),
    };
    match Dialect::V1_0.codec().encode_response_to(method, &response) {
        Ok(mut encoded) => json_answer(StatusCode::OK, &encoded.value["result"].take()),
        Err(problem) => error_answer(&RpcError::new(
            ErrorCode::InternalError,
            problem.to_string(),
        )),
    }
}

/// An error: its HTTP status and the binding's error body.
fn error_answer(error: &RpcError) -> Response<Body> {
    let (status, _) = http_json::status_of(error.code);
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    json_answer(status, &http_json::error_body(error))
}

/// A refusal of a request the binding's route was not given (the guard of `meshsim serve`
/// refused it first), in the binding's error shape.
pub(crate) fn refusal_answer(status: StatusCode, message: &str) -> Response<Body> {
    json_answer(status, &http_json::refusal_body(status.as_u16(), message))
}

fn json_answer(status: StatusCode, body: &Value) -> Response<Body> {
    let mut answer = Response::new(Body::from(json_text(body)));
    *answer.status_mut() = status;
    answer.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(http_json::MEDIA_TYPE),
    );
    answer
}
