//! The v1.0 HTTP+JSON (REST) binding's own spellings: its media type, its URL patterns, and
//! how an A2A error travels (an HTTP status and a `google.rpc.Status` body), as the v1.0.1
//! specification's section 11 and section 5.4 give them (quoted in `docs/http-json.md`).
//! Request and response bodies are the proto messages in ProtoJSON, which the v1.0 codec
//! already reads and writes: a request body is a JSON-RPC call's `params`, and a success
//! body is a JSON-RPC answer's `result`.

use crate::rpc::{ErrorCode, RpcError};
use serde_json::{Value, json};

/// "application/a2a+json SHOULD be used for requests and responses" (section 11.1).
pub const MEDIA_TYPE: &str = "application/a2a+json";

/// The binding's name in a Card's `supportedInterfaces[].protocolBinding`.
pub const BINDING: &str = "HTTP+JSON";

/// The HTTP status and `google.rpc.Code` name an error travels with: the A2A errors as the
/// table of section 5.4 maps them; the JSON-RPC protocol errors as the real a2a-sdk 1.3.0
/// maps them (a malformed request or bad params is 400 INVALID_ARGUMENT, an unknown method
/// 404 NOT_FOUND), and anything else 500 INTERNAL.
pub fn status_of(code: ErrorCode) -> (u16, &'static str) {
    match code {
        ErrorCode::TaskNotFound | ErrorCode::MethodNotFound => (404, "NOT_FOUND"),
        ErrorCode::TaskNotCancelable
        | ErrorCode::PushNotificationNotSupported
        | ErrorCode::UnsupportedOperation
        | ErrorCode::ExtendedAgentCardNotConfigured
        | ErrorCode::ExtensionSupportRequired
        | ErrorCode::VersionNotSupported => (400, "FAILED_PRECONDITION"),
        ErrorCode::ContentTypeNotSupported
        | ErrorCode::ParseError
        | ErrorCode::InvalidRequest
        | ErrorCode::InvalidParams => (400, "INVALID_ARGUMENT"),
        ErrorCode::InvalidAgentResponse | ErrorCode::InternalError | ErrorCode::Other(_) => {
            (500, "INTERNAL")
        }
    }
}

/// The body of an error answer: `{"error": {code, status, message, details}}`, the details
/// carrying the `google.rpc.ErrorInfo` that names the A2A error (section 11.6: "MUST
/// include a google.rpc.ErrorInfo object in the details array for A2A-specific errors").
pub fn error_body(error: &RpcError) -> Value {
    let (code, status) = status_of(error.code);
    json!({"error": {
        "code": code,
        "status": status,
        "message": error.message,
        "details": [error.code.error_info()],
    }})
}

/// The body of a refusal made before a request was read (a missing token, a body over the
/// limit or late, too many streams open): `{"error": {code, status, message}}` with the
/// HTTP status and its `google.rpc.Code` name, and no ErrorInfo, since no A2A error is at
/// stake.
pub fn refusal_body(http_status: u16, message: &str) -> Value {
    let status = match http_status {
        400 | 413 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        408 => "DEADLINE_EXCEEDED",
        503 => "UNAVAILABLE",
        _ => "INTERNAL",
    };
    json!({"error": {"code": http_status, "status": status, "message": message}})
}

/// The A2A error an HTTP+JSON error body names: the ErrorInfo `reason` of its details, or
/// failing that its HTTP status's nearest code. `None` when the body is not an error.
pub fn error_from(body: &Value) -> Option<RpcError> {
    let error = body.get("error")?;
    let reason = error
        .get("details")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find_map(|detail| detail.get("reason").and_then(Value::as_str));
    let code = match reason {
        Some(reason) => ErrorCode::NAMED
            .into_iter()
            .find(|code| code.reason() == reason)
            .unwrap_or(ErrorCode::Other(0)),
        None => match error.get("code").and_then(Value::as_i64) {
            Some(404) => ErrorCode::TaskNotFound,
            Some(400) => ErrorCode::InvalidParams,
            _ => ErrorCode::InternalError,
        },
    };
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Some(RpcError::new(code, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a2a_errors_map_as_the_spec_table_says() {
        // Section 5.4, the HTTP Status column.
        let table = [
            (ErrorCode::TaskNotFound, 404),
            (ErrorCode::TaskNotCancelable, 400),
            (ErrorCode::PushNotificationNotSupported, 400),
            (ErrorCode::UnsupportedOperation, 400),
            (ErrorCode::ContentTypeNotSupported, 400),
            (ErrorCode::InvalidAgentResponse, 500),
            (ErrorCode::ExtendedAgentCardNotConfigured, 400),
            (ErrorCode::ExtensionSupportRequired, 400),
            (ErrorCode::VersionNotSupported, 400),
        ];
        for (code, http) in table {
            assert_eq!(status_of(code).0, http, "{code:?}");
        }
    }

    #[test]
    fn the_error_body_names_the_a2a_error_and_reads_back() {
        let error = RpcError::new(ErrorCode::TaskNotFound, "no task t-9");
        let body = error_body(&error);
        assert_eq!(
            body,
            json!({"error": {"code": 404, "status": "NOT_FOUND", "message": "no task t-9",
                "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}]}})
        );
        assert_eq!(error_from(&body), Some(error));
        assert_eq!(error_from(&json!({"id": "t"})), None);
    }
}
