//! The v0.1 Agent Card: one `url`, `authentication.schemes`, skills.

use super::D;
use crate::codec::{DecodeError, EncodeError, Encoded};
use crate::json::tree::Json;
use crate::json::{Enc, Obj, Out, strings};
use crate::model::*;
use serde_json::Value;

/// The Card as this dialect writes it, with what it cannot carry listed as losses.
pub(super) fn encode(card: &AgentCard) -> Result<Encoded<Value>, EncodeError> {
    let mut enc = Enc::new(D);
    let primary = enc.need(card.interfaces.first(), "interface (the card's `url`)")?;
    enc.lose_if(card.interfaces.len() > 1, "interfaces");
    enc.lose_if(primary.tenant.is_some(), "interfaces.tenant");
    enc.lose_if(
        primary.protocol_version.is_some(),
        "interfaces.protocol_version",
    );
    enc.lose_if(
        primary.protocol_binding != "JSONRPC",
        "interfaces.protocol_binding",
    );
    enc.lose_if(
        card.capabilities.extended_agent_card.is_some(),
        "capabilities.extended_agent_card",
    );
    let capabilities = Out::new()
        .put_opt("streaming", card.capabilities.streaming)
        .put_opt("pushNotifications", card.capabilities.push_notifications)
        .put_opt(
            "stateTransitionHistory",
            card.capabilities.state_transition_history,
        )
        .build();
    let authentication = (!card.security_schemes.is_empty()).then(|| {
        Out::new()
            .put("schemes", strings(&card.security_schemes))
            .build()
    });
    let skills = card
        .skills
        .iter()
        .map(|skill| {
            Out::new()
                .put("id", skill.id.as_str())
                .put("name", skill.name.as_str())
                .put_opt("description", skill.description.clone())
                .put_strings("tags", &skill.tags)
                .put_strings("examples", &skill.examples)
                .put_strings("inputModes", &skill.input_modes)
                .put_strings("outputModes", &skill.output_modes)
                .build()
        })
        .collect::<Vec<_>>();
    let value = Out::new()
        .put("name", card.name.as_str())
        .put_opt("description", card.description.clone())
        .put("url", primary.url.as_str())
        .put("version", card.version.as_str())
        .put("capabilities", capabilities)
        .put_opt("authentication", authentication)
        .put("defaultInputModes", strings(&card.default_input_modes))
        .put("defaultOutputModes", strings(&card.default_output_modes))
        .put("skills", skills)
        .build();
    Ok(Encoded {
        value,
        losses: enc.losses,
    })
}

/// A Card in this dialect's shape, read into the model.
pub(super) fn decode(json: &Json<'_>) -> Result<AgentCard, DecodeError> {
    let card = Obj::new(D, json, "")?;
    let capabilities = match card.opt_obj("capabilities")? {
        Some(capabilities) => AgentCapabilities {
            streaming: capabilities.opt_bool("streaming")?,
            push_notifications: capabilities.opt_bool("pushNotifications")?,
            state_transition_history: capabilities.opt_bool("stateTransitionHistory")?,
            extended_agent_card: None,
        },
        None => AgentCapabilities::default(),
    };
    let security_schemes = match card.opt_obj("authentication")? {
        Some(authentication) => authentication.strings("schemes")?,
        None => Vec::new(),
    };
    Ok(AgentCard {
        name: card.str("name")?,
        description: card.opt_str("description")?,
        version: card.str("version")?,
        interfaces: vec![AgentInterface {
            url: card.str("url")?,
            protocol_binding: "JSONRPC".to_string(),
            protocol_version: None,
            tenant: None,
        }],
        capabilities,
        default_input_modes: card.strings("defaultInputModes")?,
        default_output_modes: card.strings("defaultOutputModes")?,
        skills: card.opt_array("skills", |value, path| {
            let skill = card.nested(value, path)?;
            Ok(AgentSkill {
                id: skill.str("id")?,
                name: skill.str("name")?,
                description: skill.opt_str("description")?,
                tags: skill.strings("tags")?,
                examples: skill.strings("examples")?,
                input_modes: skill.strings("inputModes")?,
                output_modes: skill.strings("outputModes")?,
            })
        })?,
        security_schemes,
    })
}
