//! How the answers to one call are read: the binding's framing (JSON-RPC's envelope, or
//! HTTP+JSON's bare payload) around the dialect's codec. Calls and streams both read
//! through it.

use super::error::ClientError;
use super::http_json;
use meshsim_protocol::{Binding, Codec, Json, Method, RpcResult};

/// How the answers to one call are read: the binding's framing around the dialect's codec.
#[derive(Clone, Copy)]
pub(super) struct Reader {
    pub(super) binding: Binding,
    pub(super) codec: &'static dyn Codec,
    pub(super) method: Method,
}

impl Reader {
    /// An answer body, or one event of a stream, as the result (or A2A error) it carries.
    pub(super) fn read(&self, json: Json<'_>) -> Result<RpcResult, ClientError> {
        let envelope = match self.binding {
            Binding::JsonRpc => json,
            Binding::HttpJson => http_json::as_json_rpc(json)?,
        };
        let response = self
            .codec
            .read_response(&envelope, Some(self.method))
            .map_err(ClientError::Decode)?;
        response.outcome.map_err(ClientError::Rpc)
    }
}
