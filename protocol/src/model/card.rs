//! The Agent Card: what an agent says about itself at its well-known path.

use serde::{Deserialize, Serialize};

/// What the Card claims the agent can do. Each flag is optional because Cards omit them;
/// `state_transition_history` exists only up to v0.3 and `extended_agent_card` from v0.3.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentCapabilities {
    pub streaming: Option<bool>,
    pub push_notifications: Option<bool>,
    pub state_transition_history: Option<bool>,
    pub extended_agent_card: Option<bool>,
}

/// One way to reach the agent: v1.0's `supportedInterfaces` entries, v0.3's
/// `url`/`preferredTransport` plus `additionalInterfaces`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentInterface {
    pub url: String,
    /// `JSONRPC`, `GRPC`, `HTTP+JSON`.
    pub protocol_binding: String,
    /// The A2A protocol version served there, e.g. `1.0` or `0.3.0`; absent in v0.1.
    pub protocol_version: Option<String>,
    /// v1.0's routing identifier for an agent behind a shared endpoint: a client that
    /// chooses this interface sends it in every request (absent when empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
}

/// A capability the agent offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentSkill {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub tags: Vec<String>,
    pub examples: Vec<String>,
    pub input_modes: Vec<String>,
    pub output_modes: Vec<String>,
}

/// The Agent Card. `version` is the agent's own version (what the origin note keys lifecycle
/// profiles on), not the protocol's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentCard {
    pub name: String,
    pub description: Option<String>,
    pub version: String,
    pub interfaces: Vec<AgentInterface>,
    pub capabilities: AgentCapabilities,
    pub default_input_modes: Vec<String>,
    pub default_output_modes: Vec<String>,
    pub skills: Vec<AgentSkill>,
    /// Names of the security schemes the Card declares (e.g. `bearer`), in order.
    pub security_schemes: Vec<String>,
}

impl AgentCard {
    /// The first interface's URL: where JSON-RPC requests go.
    pub fn primary_url(&self) -> Option<&str> {
        self.interfaces
            .first()
            .map(|interface| interface.url.as_str())
    }
}
