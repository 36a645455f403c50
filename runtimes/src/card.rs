//! The Agent Card a personality serves: its claims, spelled for one dialect.

use crate::personality::Personality;
use meshsim_protocol::{
    AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Binding, Dialect,
};

/// The media types every runtime's Card declares for input and output, its skill's too.
pub(crate) const MODES: [&str; 1] = ["text/plain"];

/// The Card a personality serves in a dialect at `url`.
pub fn agent_card(personality: &Personality, dialect: Dialect, url: &str) -> AgentCard {
    let claims = &personality.card;
    let text: Vec<String> = MODES.iter().map(|mode| mode.to_string()).collect();
    AgentCard {
        name: claims.name.clone(),
        description: Some(claims.description.clone()),
        version: claims.version.clone(),
        interfaces: interfaces(personality, dialect, url),
        capabilities: AgentCapabilities {
            streaming: Some(claims.streaming),
            push_notifications: Some(claims.push_notifications),
            // v1.0 removed the placeholder (A2A #1396); a runtime that does not claim it
            // leaves the field out, as a2a-sdk and a2a-js 1.3 do in their v0.3 Cards
            // (tests/interop_*.rs).
            state_transition_history: (dialect != Dialect::V1_0 && claims.state_transition_history)
                .then_some(true),
            extended_agent_card: None,
        },
        default_input_modes: text.clone(),
        default_output_modes: text.clone(),
        skills: vec![AgentSkill {
            id: "lifecycle".to_string(),
            name: "Lifecycle".to_string(),
            description: Some(
                "Asks a clarifying question, then completes; see docs/personalities.md".to_string(),
            ),
            tags: vec!["meshsim".to_string()],
            examples: vec!["book a table for two".to_string()],
            input_modes: text.clone(),
            output_modes: text,
        }],
        security_schemes: Vec::new(),
    }
}

/// An interface per binding served ([`Bindings::served`](crate::personality::Bindings::served)), JSON-RPC first (clients take the
/// first they speak): JSON-RPC at `url`, HTTP+JSON at the base its routes hang off (`url`
/// without its trailing slash, as clients append `/message:send` and the like), each with
/// the personality's tenant in v1.0.
fn interfaces(personality: &Personality, dialect: Dialect, url: &str) -> Vec<AgentInterface> {
    personality
        .bindings
        .served(dialect)
        .into_iter()
        .map(|binding| AgentInterface {
            url: match binding {
                Binding::JsonRpc => url.to_string(),
                Binding::HttpJson => url.trim_end_matches('/').to_string(),
            },
            protocol_binding: binding.name().to_string(),
            protocol_version: dialect.protocol_version().map(str::to_string),
            tenant: tenant(personality, dialect).map(str::to_string),
        })
        .collect()
}

/// The tenant requests must carry: the personality's, in v1.0 (the only dialect with one).
pub(crate) fn tenant(personality: &Personality, dialect: Dialect) -> Option<&str> {
    personality
        .tenant
        .as_deref()
        .filter(|_| dialect == Dialect::V1_0)
}
