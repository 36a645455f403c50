//! The JSON-RPC 2.0 envelope every dialect shares: ids, `method`/`params`, `result`/`error`.

use crate::codec::{DecodeError, Dialect};
use crate::json::tree::Json;
use crate::json::{Obj, Out, type_name};
use crate::rpc::{ErrorCode, RequestId, RpcError};
use serde_json::Value;

/// A request envelope taken apart.
pub(crate) struct RawRequest<'a> {
    pub(crate) id: RequestId,
    pub(crate) method: String,
    /// The params object; a missing `params` reads as an empty object.
    pub(crate) params: Obj<'a>,
}

/// A response's outcome before its result is decoded.
pub(crate) enum RawOutcome<'a> {
    Result(&'a Json<'a>),
    Error(RpcError),
}

/// Splits a request envelope. The method's name is returned as sent.
pub(crate) fn split_request<'a>(
    dialect: Dialect,
    json: &'a Json<'a>,
) -> Result<RawRequest<'a>, DecodeError> {
    let root = Obj::new(dialect, json, "")?;
    let id = decode_id(&root)?;
    let method = root.str("method")?;
    let params = match root.get("params") {
        Some(params) => Obj::new(dialect, params, "params")?,
        None => Obj::of_members(dialect, &[], "params".to_string()),
    };
    Ok(RawRequest { id, method, params })
}

/// Splits a response envelope into its id and its result or decoded error.
pub(crate) fn split_response<'a>(
    dialect: Dialect,
    json: &'a Json<'a>,
) -> Result<(RequestId, RawOutcome<'a>), DecodeError> {
    let root = Obj::new(dialect, json, "")?;
    let id = decode_id(&root)?;
    if let Some(error) = root.opt_obj("error")? {
        return Ok((id, RawOutcome::Error(decode_error(&error)?)));
    }
    match root.get("result") {
        Some(result) => Ok((id, RawOutcome::Result(result))),
        None => Err(root.error("result", "a response needs `result` or `error`")),
    }
}

fn decode_id(root: &Obj<'_>) -> Result<RequestId, DecodeError> {
    match root.get("id") {
        None => Ok(RequestId::Null),
        Some(Json::String(text)) => Ok(RequestId::String(text.to_string())),
        Some(value @ Json::Number(number)) => {
            let whole = number
                .as_i64()
                .or_else(|| number.as_f64().and_then(whole_number));
            whole.map(RequestId::Number).ok_or_else(|| {
                let problem = if number.is_f64() {
                    format!("expected an integer id, found {value}")
                } else {
                    format!("the integer id {value} is out of range (-2^63 to 2^63-1)")
                };
                root.error("id", problem)
            })
        }
        Some(other) => Err(root.error(
            "id",
            format!(
                "expected a string or an integer, found {}",
                type_name(other)
            ),
        )),
    }
}

/// An integer written with a fraction or an exponent (`1e3`, `7.0`), as JSON allows: the
/// id it names, where a double holds it exactly (up to 2^53 either way).
fn whole_number(value: f64) -> Option<i64> {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    (value.fract() == 0.0 && value.abs() <= EXACT).then_some(value as i64)
}

fn decode_error(error: &Obj<'_>) -> Result<RpcError, DecodeError> {
    let code = error
        .get("code")
        .ok_or_else(|| error.error("code", "required field is missing"))?;
    let code = code.as_i64().ok_or_else(|| {
        error.error(
            "code",
            format!("expected an integer, found {}", type_name(code)),
        )
    })?;
    Ok(RpcError {
        code: ErrorCode::from_code(code),
        message: error.str("message")?,
        data: error.opt_value("data"),
    })
}

/// The JSON form of an id.
pub(crate) fn encode_id(id: &RequestId) -> Value {
    match id {
        RequestId::Number(number) => Value::from(*number),
        RequestId::String(text) => Value::String(text.clone()),
        RequestId::Null => Value::Null,
    }
}

/// `{"jsonrpc":"2.0","id":..,"method":..,"params":..}`.
pub(crate) fn request(id: &RequestId, method: &str, params: Value) -> Value {
    Out::new()
        .put("jsonrpc", "2.0")
        .put("id", encode_id(id))
        .put("method", method)
        .put("params", params)
        .build()
}

/// `{"jsonrpc":"2.0","id":..,"result":..}`.
pub(crate) fn result(id: &RequestId, result: Value) -> Value {
    Out::new()
        .put("jsonrpc", "2.0")
        .put("id", encode_id(id))
        .put("result", result)
        .build()
}

/// `{"jsonrpc":"2.0","id":..,"error":{code, message, data?}}` with `data` as given.
pub(crate) fn error(id: &RequestId, error: &RpcError, data: Option<Value>) -> Value {
    let body = Out::new()
        .put("code", error.code.code())
        .put("message", error.message.clone())
        .put_opt("data", data)
        .build();
    Out::new()
        .put("jsonrpc", "2.0")
        .put("id", encode_id(id))
        .put("error", body)
        .build()
}
