//! Everything that can go wrong talking to a peer, typed, so that a consumer can tell an
//! A2A error (-32001 above all) from a cut connection, a timeout or a malformed answer.

use meshsim_protocol::{DecodeError, EncodeError, ErrorCode, RpcError};
use std::time::Duration;

/// A failed client call. A misbehaving peer produces one of these, never a panic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClientError {
    /// The peer answered with a JSON-RPC error.
    #[error("peer answered with error {0}")]
    Rpc(RpcError),
    /// No connection could be made.
    #[error("cannot connect to {authority}: {problem}")]
    Connect { authority: String, problem: String },
    /// The connection failed after it was made (reset, closed mid-answer, HTTP framing).
    #[error("transport failure: {0}")]
    Transport(String),
    /// A step took longer than the client allows.
    #[error("{what} timed out after {after:?}")]
    Timeout { what: &'static str, after: Duration },
    /// The peer answered with an HTTP status other than 200.
    #[error("HTTP {status} from {url}")]
    Http { status: u16, url: String },
    /// The answer is not JSON, or an SSE event could not be read.
    #[error("malformed answer: {0}")]
    Malformed(String),
    /// The answer is JSON but not a valid document of the dialect.
    #[error("undecodable answer: {0}")]
    Decode(DecodeError),
    /// The request cannot be written in the peer's dialect.
    #[error("cannot encode request: {0}")]
    Encode(EncodeError),
    /// A URL the client was given or found is unusable.
    #[error("bad URL `{url}`: {problem}")]
    Url { url: String, problem: String },
    /// The peer serves no usable Agent Card.
    #[error("no usable Agent Card at {base}: {problem}")]
    NoCard { base: String, problem: String },
    /// The peer answered with a result of the wrong kind for the call.
    #[error("unexpected answer to {method}: {got}")]
    Unexpected { method: String, got: String },
}

impl ClientError {
    /// The A2A / JSON-RPC error code, when the peer sent one.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            ClientError::Rpc(error) => Some(error.code),
            _ => None,
        }
    }

    /// Whether the peer said it does not know the task (-32001).
    pub fn is_task_not_found(&self) -> bool {
        self.code() == Some(ErrorCode::TaskNotFound)
    }
}
