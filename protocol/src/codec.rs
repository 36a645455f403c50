//! The dialect codecs: one [`Codec`] per wire dialect, all over the same model.
//!
//! Encoding reports what the dialect cannot express as [`Loss`]es (a dropped field) or an
//! [`EncodeError`] (a value with no spelling at all, e.g. `rejected` in v0.1). Decoding is
//! a tolerant reader: unknown fields are ignored, ids may be strings or numbers, optional
//! fields may be absent or null, and a missing required field is a [`DecodeError`] naming it.

use crate::json::tree::Json;
use crate::model::AgentCard;
use crate::rpc::{ErrorCode, Method, RpcError, RpcRequest, RpcResponse};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::str::FromStr;

/// A wire dialect of A2A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Dialect {
    /// The origin note's vocabulary: `tasks/send`, `tasks/sendSubscribe`, `/.well-known/agent.json`.
    #[serde(rename = "v0.1")]
    V0_1,
    /// `message/send`, `message/stream`, `kind` discriminators, `final` on status events.
    #[serde(rename = "v0.3")]
    V0_3,
    /// `SendMessage`, `TASK_STATE_*`, `supportedInterfaces`, the `A2A-Version` header.
    #[serde(rename = "v1.0")]
    V1_0,
}

impl Dialect {
    /// All dialects, oldest first.
    pub const ALL: [Dialect; 3] = [Dialect::V0_1, Dialect::V0_3, Dialect::V1_0];

    /// `v0.1`, `v0.3` or `v1.0`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::V0_1 => "v0.1",
            Dialect::V0_3 => "v0.3",
            Dialect::V1_0 => "v1.0",
        }
    }

    /// The protocol version a Card of this dialect declares for its interfaces
    /// (`protocolVersion`), or `None` for v0.1, whose Cards declare none.
    pub fn protocol_version(self) -> Option<&'static str> {
        match self {
            Dialect::V0_1 => None,
            Dialect::V0_3 => Some("0.3.0"),
            Dialect::V1_0 => Some("1.0"),
        }
    }

    /// Where this dialect serves its Agent Card.
    pub fn card_path(self) -> &'static str {
        match self {
            Dialect::V0_1 => "/.well-known/agent.json",
            Dialect::V0_3 | Dialect::V1_0 => "/.well-known/agent-card.json",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Dialect {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "v0.1" | "0.1" => Ok(Dialect::V0_1),
            "v0.3" | "0.3" => Ok(Dialect::V0_3),
            "v1.0" | "1.0" => Ok(Dialect::V1_0),
            other => Err(format!(
                "unknown dialect `{other}` (expected v0.1, v0.3 or v1.0)"
            )),
        }
    }
}

/// Something the model held that the dialect has no field for, dropped on encoding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Loss {
    pub dialect: Dialect,
    /// The model's name for it, e.g. `capabilities.state_transition_history`, `is_final`.
    pub field: String,
}

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} cannot express `{}`; it was dropped",
            self.dialect, self.field
        )
    }
}

/// An encoded value with the losses it took on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Encoded<T> {
    pub value: T,
    pub losses: Vec<Loss>,
}

/// A value the dialect cannot spell at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{dialect} cannot express {what}")]
pub struct EncodeError {
    pub dialect: Dialect,
    /// What could not be expressed, e.g. "task state `rejected`".
    pub what: String,
}

/// Input that is not a valid document of the dialect.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{dialect}: {field}: {problem}")]
pub struct DecodeError {
    pub dialect: Dialect,
    /// A JSON path to the field at fault, e.g. `params.message.parts[0].kind`.
    pub field: String,
    pub problem: String,
}

impl DecodeError {
    /// The JSON-RPC error a server answers this with: an unknown `method` is -32601, a
    /// document that is not an object is -32600, anything else in it is -32602.
    pub fn to_rpc_error(&self) -> RpcError {
        let code = match self.field.as_str() {
            "method" => ErrorCode::MethodNotFound,
            "(document)" => ErrorCode::InvalidRequest,
            _ => ErrorCode::InvalidParams,
        };
        RpcError::new(code, self.to_string())
    }
}

/// One dialect's encoder and decoder. Obtain one with [`Dialect::codec`].
///
/// The decoders read a [`Json`] parsed from the message's text (`read_*`); the `decode_*`
/// forms take a `serde_json::Value` already in hand and read it through the same decoder.
pub trait Codec: Send + Sync {
    /// The dialect this codec speaks.
    fn dialect(&self) -> Dialect;

    /// The wire name of `method`, or `None` when the dialect lacks it (ListTasks before v1.0).
    fn method_name(&self, method: Method) -> Option<&'static str>;

    /// The method a wire name calls, if it is one of this dialect's.
    fn method_from_name(&self, name: &str) -> Option<Method> {
        Method::ALL
            .into_iter()
            .find(|method| self.method_name(*method) == Some(name))
    }

    fn encode_request(&self, request: &RpcRequest) -> Result<Encoded<Value>, EncodeError>;
    fn read_request(&self, json: &Json<'_>) -> Result<RpcRequest, DecodeError>;
    fn decode_request(&self, json: &Value) -> Result<RpcRequest, DecodeError> {
        self.read_request(&Json::of(json))
    }

    /// A whole response envelope (result or error), or one SSE `data:` payload.
    fn encode_response(&self, response: &RpcResponse) -> Result<Encoded<Value>, EncodeError>;
    /// Encodes the answer to a call of `method`. Only v1.0 needs the method: there
    /// `SendMessage` wraps its task as `{"task": ..}` while `GetTask` and `CancelTask` return
    /// the task bare. [`Codec::encode_response`] alone writes the `SendMessage` form.
    fn encode_response_to(
        &self,
        method: Method,
        response: &RpcResponse,
    ) -> Result<Encoded<Value>, EncodeError> {
        let _ = method;
        self.encode_response(response)
    }

    /// Reads a response envelope. `method` says what was called, where the shape alone
    /// is ambiguous; `None` reads by shape.
    fn read_response(
        &self,
        json: &Json<'_>,
        method: Option<Method>,
    ) -> Result<RpcResponse, DecodeError>;
    fn decode_response(
        &self,
        json: &Value,
        method: Option<Method>,
    ) -> Result<RpcResponse, DecodeError> {
        self.read_response(&Json::of(json), method)
    }

    fn encode_card(&self, card: &AgentCard) -> Result<Encoded<Value>, EncodeError>;
    fn read_card(&self, json: &Json<'_>) -> Result<AgentCard, DecodeError>;
    fn decode_card(&self, json: &Value) -> Result<AgentCard, DecodeError> {
        self.read_card(&Json::of(json))
    }
}
