//! [`Binding`]: the protocol bindings meshsim speaks, JSON-RPC 2.0 (every dialect) and, in
//! v1.0 only, HTTP+JSON (REST, [`crate::http_json`]); named as a Card's
//! `supportedInterfaces[].protocolBinding` spells them.

use crate::codec::Dialect;
use crate::http_json;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A protocol binding: how requests and answers travel over HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Binding {
    /// JSON-RPC 2.0 requests POSTed to the interface URL.
    #[serde(rename = "JSONRPC")]
    JsonRpc,
    /// The v1.0 HTTP+JSON (REST) routes under the interface URL.
    #[serde(rename = "HTTP+JSON")]
    HttpJson,
}

impl Binding {
    /// Every binding, in the order a Card lists them when it offers both.
    pub const ALL: [Binding; 2] = [Binding::JsonRpc, Binding::HttpJson];

    /// The Card's spelling (`protocolBinding`).
    pub fn name(self) -> &'static str {
        match self {
            Binding::JsonRpc => "JSONRPC",
            Binding::HttpJson => http_json::BINDING,
        }
    }

    /// The binding a Card's `protocolBinding` names (compared without case, as Cards in
    /// the wild vary), or `None` for one meshsim does not speak (e.g. `GRPC`).
    pub fn from_name(name: &str) -> Option<Binding> {
        Binding::ALL
            .into_iter()
            .find(|binding| binding.name().eq_ignore_ascii_case(name))
    }

    /// Whether the dialect has this binding: HTTP+JSON is v1.0's (v0.3's REST routes and
    /// shapes differ, and meshsim does not speak them).
    pub fn exists_in(self, dialect: Dialect) -> bool {
        match self {
            Binding::JsonRpc => true,
            Binding::HttpJson => dialect == Dialect::V1_0,
        }
    }
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_without_case_and_unknown_ones_are_none() {
        for binding in Binding::ALL {
            assert_eq!(Binding::from_name(binding.name()), Some(binding));
            assert_eq!(
                serde_json::to_value(binding).unwrap(),
                serde_json::json!(binding.name())
            );
        }
        assert_eq!(Binding::from_name("jsonrpc"), Some(Binding::JsonRpc));
        assert_eq!(Binding::from_name("http+json"), Some(Binding::HttpJson));
        assert_eq!(Binding::from_name("GRPC"), None);
        assert!(!Binding::HttpJson.exists_in(Dialect::V0_3));
        assert!(Binding::HttpJson.exists_in(Dialect::V1_0));
    }
}
