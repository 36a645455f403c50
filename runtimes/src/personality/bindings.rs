//! [`Bindings`]: the knob choosing which protocol bindings a v1.0 runtime serves. Its Card's
//! `supportedInterfaces` lists exactly those, JSON-RPC first when both are served. The
//! routes of a binding it does not serve are not routes at all, so they answer as any
//! unknown path does: `404 Not Found`. So does the real a2a-sdk 1.3.0, whose app mounts the
//! routes of the bindings it is built with (`create_jsonrpc_routes`, `create_rest_routes`)
//! and leaves every other path to Starlette's plain 404 (meshsim's 404 has an empty body,
//! Starlette's says `Not Found`). v0.1 and v0.3 have JSON-RPC only, which a runtime serves
//! in them whatever the knob says.

use meshsim_protocol::{Binding, Dialect};
use serde::{Deserialize, Serialize};

/// Which bindings a v1.0 runtime serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Bindings {
    /// JSON-RPC only (an a2a-sdk app with `create_jsonrpc_routes` alone).
    #[serde(rename = "jsonrpc")]
    JsonRpc,
    /// HTTP+JSON only (an a2a-sdk app with `create_rest_routes` alone).
    #[serde(rename = "http-json")]
    HttpJson,
    /// Both, on the same task store, JSON-RPC listed first.
    #[default]
    #[serde(rename = "both")]
    Both,
}

impl Bindings {
    /// Every value, for documentation and the swarm's draw.
    pub const ALL: [Bindings; 3] = [Bindings::JsonRpc, Bindings::HttpJson, Bindings::Both];

    /// The bindings served in `dialect`, in the order the Card lists them.
    pub fn served(self, dialect: Dialect) -> Vec<Binding> {
        if !Binding::HttpJson.exists_in(dialect) {
            return vec![Binding::JsonRpc];
        }
        match self {
            Bindings::JsonRpc => vec![Binding::JsonRpc],
            Bindings::HttpJson => vec![Binding::HttpJson],
            Bindings::Both => vec![Binding::JsonRpc, Binding::HttpJson],
        }
    }

    /// Whether `binding` is served in `dialect`.
    pub fn serves(self, binding: Binding, dialect: Dialect) -> bool {
        self.served(dialect).contains(&binding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_v1_0_has_a_choice() {
        for bindings in Bindings::ALL {
            for dialect in [Dialect::V0_1, Dialect::V0_3] {
                assert_eq!(bindings.served(dialect), [Binding::JsonRpc]);
            }
        }
        assert_eq!(
            Bindings::Both.served(Dialect::V1_0),
            [Binding::JsonRpc, Binding::HttpJson]
        );
        assert_eq!(
            Bindings::HttpJson.served(Dialect::V1_0),
            [Binding::HttpJson]
        );
        assert!(!Bindings::HttpJson.serves(Binding::JsonRpc, Dialect::V1_0));
        assert_eq!(
            serde_json::to_value(Bindings::ALL).unwrap(),
            serde_json::json!(["jsonrpc", "http-json", "both"])
        );
    }
}
