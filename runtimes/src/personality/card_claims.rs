//! What a personality's Agent Card claims about the agent.

use serde::{Deserialize, Serialize};

/// What the Card says about the agent. The Card never says how the lifecycle behaves:
/// that is the point of the origin incident.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CardClaims {
    pub name: String,
    /// The agent's own version (what lifecycle profiles are keyed on).
    pub version: String,
    pub description: String,
    pub streaming: bool,
    pub push_notifications: bool,
    /// Only v0.1 and v0.3 Cards can carry it.
    pub state_transition_history: bool,
}

impl Default for CardClaims {
    fn default() -> Self {
        CardClaims {
            name: "meshsim agent".to_string(),
            version: "1.0.0".to_string(),
            description: "A mock A2A runtime".to_string(),
            streaming: true,
            push_notifications: false,
            state_transition_history: true,
        }
    }
}
