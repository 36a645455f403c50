//! The client side of the v1.0 HTTP+JSON binding (`docs/http-json.md`): a request becomes
//! the proto's route, its JSON-RPC `params` the body (or, for a `GET`, the query string);
//! a success body is what a JSON-RPC answer carries as `result`, and an error travels as
//! its HTTP status with a `google.rpc.Status` body. So the v1.0 codec reads both bindings'
//! answers, and every call goes through the same encode and decode as over JSON-RPC.

use super::error::ClientError;
use super::http::{self, HttpRequest};
use ::http::{Method as HttpMethod, Uri};
use meshsim_protocol::{Dialect, EncodeError, Json, Method, http_json};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value};

/// Everything but RFC 3986's unreserved characters is escaped, in a path segment and in a
/// query value alike.
const ESCAPED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The HTTP request for `method` with the JSON-RPC `params` the v1.0 codec encoded, under
/// the interface URL `base`.
pub(super) fn request(
    base: &Uri,
    method: Method,
    params: Map<String, Value>,
    accept: &'static str,
    a2a_version: Option<&'static str>,
) -> Result<HttpRequest, ClientError> {
    let (verb, route, body) = route(method, params)?;
    let uri = http::under(base, &route)?;
    let body = match body {
        Some(body) => Some((
            http_json::MEDIA_TYPE,
            serde_json::to_vec(&body).map_err(|error| ClientError::Malformed(error.to_string()))?,
        )),
        None => None,
    };
    http::request(verb, &uri, accept, body, a2a_version)
}

/// The proto's `google.api.http` route of each method: its HTTP method, its path and query,
/// and its body (`body: "*"`: the whole request message but the fields the path carries).
/// A request with a `tenant` takes the route under `/{tenant}`, as the proto's bindings
/// give it.
fn route(
    method: Method,
    mut params: Map<String, Value>,
) -> Result<(HttpMethod, String, Option<Value>), ClientError> {
    let tenant = match params.remove("tenant") {
        Some(Value::String(tenant)) => format!("/{}", utf8_percent_encode(&tenant, ESCAPED)),
        _ => String::new(),
    };
    let (verb, path, body) = tenantless_route(method, params)?;
    Ok((verb, format!("{tenant}{path}"), body))
}

/// [`route`] for a request without a tenant.
fn tenantless_route(
    method: Method,
    mut params: Map<String, Value>,
) -> Result<(HttpMethod, String, Option<Value>), ClientError> {
    let task_id = match params.get("id") {
        Some(Value::String(id)) => Ok(utf8_percent_encode(id, ESCAPED).to_string()),
        _ => Err(unsayable(format!("{method:?} without a task id"))),
    };
    Ok(match method {
        Method::SendMessage => (
            HttpMethod::POST,
            "/message:send".into(),
            Some(params.into()),
        ),
        Method::SendStreamingMessage => (
            HttpMethod::POST,
            "/message:stream".into(),
            Some(params.into()),
        ),
        Method::GetTask => {
            let id = task_id?;
            params.remove("id");
            (
                HttpMethod::GET,
                format!("/tasks/{id}{}", query(params)?),
                None,
            )
        }
        Method::ListTasks => (HttpMethod::GET, format!("/tasks{}", query(params)?), None),
        Method::CancelTask => (
            HttpMethod::POST,
            format!("/tasks/{}:cancel", task_id?),
            Some(params.into()),
        ),
        Method::SubscribeToTask => (
            HttpMethod::GET,
            format!("/tasks/{}:subscribe", task_id?),
            None,
        ),
    })
}

/// Request fields as a query string (section 11.5: camelCase names, enums by their string
/// values); empty when there are none.
fn query(params: Map<String, Value>) -> Result<String, ClientError> {
    let mut pairs = Vec::new();
    for (name, value) in params {
        let value = match value {
            Value::String(text) => text,
            Value::Number(number) => number.to_string(),
            Value::Bool(flag) => flag.to_string(),
            Value::Null => continue,
            Value::Array(_) | Value::Object(_) => {
                return Err(unsayable(format!("`{name}` (not a scalar) in a query")));
            }
        };
        pairs.push(format!(
            "{}={}",
            utf8_percent_encode(&name, ESCAPED),
            utf8_percent_encode(&value, ESCAPED)
        ));
    }
    Ok(if pairs.is_empty() {
        String::new()
    } else {
        format!("?{}", pairs.join("&"))
    })
}

fn unsayable(what: String) -> ClientError {
    ClientError::Encode(EncodeError {
        dialect: Dialect::V1_0,
        what: format!("{what} over HTTP+JSON"),
    })
}

/// An answer body (or a stream event's data) as the JSON-RPC answer the v1.0 codec reads:
/// an error body becomes the A2A error it names, anything else the `result`.
pub(super) fn as_json_rpc(body: Json<'_>) -> Result<Json<'_>, ClientError> {
    // Only a body with an `error` member can be an error body: the others are not copied
    // into a `Value` to be asked.
    if body.get("error").is_some()
        && let Some(error) = http_json::error_from(&body.to_value())
    {
        return Err(ClientError::Rpc(error));
    }
    Ok(Json::Object(vec![
        ("jsonrpc".into(), Json::String("2.0".into())),
        ("id".into(), Json::Number(0.into())),
        ("result".into(), body),
    ]))
}

/// A refusal (a status other than 200): the A2A error its body names, or, when the body is
/// not the binding's error body, the bare status.
pub(super) async fn refusal(
    exchange: http::Exchange,
    url: &Uri,
    max_body_bytes: usize,
) -> ClientError {
    let status = exchange.response.status().as_u16();
    let bare = ClientError::Http {
        status,
        url: url.to_string(),
    };
    let Ok(bytes) = http::read_body(exchange, max_body_bytes).await else {
        return bare;
    };
    serde_json::from_slice::<Value>(&bytes)
        .ok()
        .and_then(|body| http_json::error_from(&body))
        .map_or(bare, ClientError::Rpc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("test params are objects"),
        }
    }

    #[test]
    fn each_method_takes_the_protos_route() {
        let routed = |method, value| {
            let (verb, path, body) = route(method, params(value)).unwrap();
            (verb.to_string(), path, body.is_some())
        };
        let message = json!({"message": {"messageId": "m"}});
        assert_eq!(
            routed(Method::SendMessage, message.clone()),
            ("POST".into(), "/message:send".into(), true)
        );
        assert_eq!(
            routed(Method::SendStreamingMessage, message),
            ("POST".into(), "/message:stream".into(), true)
        );
        assert_eq!(
            routed(Method::GetTask, json!({"id": "t 1/2", "historyLength": 3})),
            (
                "GET".into(),
                "/tasks/t%201%2F2?historyLength=3".into(),
                false
            )
        );
        assert_eq!(
            routed(
                Method::ListTasks,
                json!({"contextId": "c&d", "status": "TASK_STATE_WORKING"})
            ),
            (
                "GET".into(),
                "/tasks?contextId=c%26d&status=TASK_STATE_WORKING".into(),
                false
            )
        );
        assert_eq!(
            routed(Method::CancelTask, json!({"id": "t-1"})),
            ("POST".into(), "/tasks/t-1:cancel".into(), true)
        );
        assert_eq!(
            routed(Method::SubscribeToTask, json!({"id": "t-1"})),
            ("GET".into(), "/tasks/t-1:subscribe".into(), false)
        );
    }

    #[test]
    fn a_tenant_is_the_first_segment_of_the_path_and_nowhere_else() {
        let (verb, path, body) = route(
            Method::SendMessage,
            params(json!({"tenant": "acme", "message": {"messageId": "m"}})),
        )
        .unwrap();
        assert_eq!(
            (verb, path.as_str()),
            (HttpMethod::POST, "/acme/message:send")
        );
        assert_eq!(body, Some(json!({"message": {"messageId": "m"}})));
        let (_, path, _) = route(
            Method::GetTask,
            params(json!({"tenant": "a b", "id": "t-1", "historyLength": 2})),
        )
        .unwrap();
        assert_eq!(path, "/a%20b/tasks/t-1?historyLength=2");
    }

    #[test]
    fn what_a_url_cannot_carry_is_an_encode_error_not_a_panic() {
        let nested = route(Method::ListTasks, params(json!({"metadata": {"a": 1}})));
        assert!(matches!(nested, Err(ClientError::Encode(_))), "{nested:?}");
        let no_id = route(Method::GetTask, params(json!({})));
        assert!(matches!(no_id, Err(ClientError::Encode(_))), "{no_id:?}");
    }

    #[test]
    fn an_error_body_is_the_a2a_error_and_anything_else_the_result() {
        let error = meshsim_protocol::RpcError::new(
            meshsim_protocol::ErrorCode::TaskNotFound,
            "no task t-9",
        );
        assert_eq!(
            as_json_rpc(Json::of(&http_json::error_body(&error))),
            Err(ClientError::Rpc(error))
        );
        assert_eq!(
            as_json_rpc(Json::of(&json!({"id": "t"})))
                .unwrap()
                .to_value()["result"],
            json!({"id": "t"})
        );
    }
}
