//! The v0.3 Agent Card and its skills.

use super::D;
use crate::codec::{DecodeError, EncodeError, Encoded};
use crate::json::tree::Json;
use crate::json::{Enc, Obj, Out};
use crate::model::*;
use serde_json::Value;

/// The Card as this dialect writes it, with what it cannot carry listed as losses.
pub(super) fn encode(card: &AgentCard) -> Result<Encoded<Value>, EncodeError> {
    let mut enc = Enc::new(D);
    let primary = enc.need(card.interfaces.first(), "interface (the card's `url`)")?;
    let protocol_version = enc.need(
        primary.protocol_version.as_deref(),
        "interfaces[0].protocol_version",
    )?;
    enc.lose_if(
        card.interfaces
            .iter()
            .any(|interface| interface.tenant.is_some()),
        "interfaces.tenant",
    );
    let additional = card.interfaces[1..]
        .iter()
        .map(|interface| {
            enc.lose_if(
                interface.protocol_version != primary.protocol_version,
                "interfaces.protocol_version",
            );
            Out::new()
                .put("url", interface.url.as_str())
                .put("transport", interface.protocol_binding.as_str())
                .build()
        })
        .collect();
    let capabilities = Out::new()
        .put_opt("streaming", card.capabilities.streaming)
        .put_opt("pushNotifications", card.capabilities.push_notifications)
        .put_opt(
            "stateTransitionHistory",
            card.capabilities.state_transition_history,
        )
        .build();
    enc.lose_if(!card.security_schemes.is_empty(), "security_schemes");
    let skills = card
        .skills
        .iter()
        .map(|skill| encode_skill(&enc, skill))
        .collect::<Result<Vec<_>, _>>()?;
    let value = Out::new()
        .put("name", card.name.as_str())
        .put(
            "description",
            enc.need(card.description.as_deref(), "card description")?,
        )
        .put("url", primary.url.as_str())
        .put("preferredTransport", primary.protocol_binding.as_str())
        .put("protocolVersion", protocol_version)
        .put_list("additionalInterfaces", additional)
        .put("version", card.version.as_str())
        .put("capabilities", capabilities)
        .put_opt(
            "supportsAuthenticatedExtendedCard",
            card.capabilities.extended_agent_card,
        )
        .put(
            "defaultInputModes",
            crate::json::strings(&card.default_input_modes),
        )
        .put(
            "defaultOutputModes",
            crate::json::strings(&card.default_output_modes),
        )
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
    let protocol_version = card.opt_str("protocolVersion")?;
    let mut interfaces = vec![AgentInterface {
        url: card.str("url")?,
        protocol_binding: card
            .opt_str("preferredTransport")?
            .unwrap_or_else(|| "JSONRPC".to_string()),
        protocol_version: protocol_version.clone(),
        tenant: None,
    }];
    interfaces.extend(card.opt_array("additionalInterfaces", |value, path| {
        let interface = card.nested(value, path)?;
        Ok(AgentInterface {
            url: interface.str("url")?,
            protocol_binding: interface.str("transport")?,
            protocol_version: protocol_version.clone(),
            tenant: None,
        })
    })?);
    let capabilities = match card.opt_obj("capabilities")? {
        Some(capabilities) => AgentCapabilities {
            streaming: capabilities.opt_bool("streaming")?,
            push_notifications: capabilities.opt_bool("pushNotifications")?,
            state_transition_history: capabilities.opt_bool("stateTransitionHistory")?,
            extended_agent_card: card.opt_bool("supportsAuthenticatedExtendedCard")?,
        },
        None => AgentCapabilities {
            extended_agent_card: card.opt_bool("supportsAuthenticatedExtendedCard")?,
            ..AgentCapabilities::default()
        },
    };
    Ok(AgentCard {
        name: card.str("name")?,
        description: card.opt_str("description")?,
        version: card.str("version")?,
        interfaces,
        capabilities,
        default_input_modes: card.strings("defaultInputModes")?,
        default_output_modes: card.strings("defaultOutputModes")?,
        skills: card.opt_array("skills", |value, path| {
            decode_skill(&card.nested(value, path)?)
        })?,
        security_schemes: card.keys("securitySchemes")?,
    })
}

fn encode_skill(enc: &Enc, skill: &AgentSkill) -> Result<Value, EncodeError> {
    Ok(Out::new()
        .put("id", skill.id.as_str())
        .put("name", skill.name.as_str())
        .put(
            "description",
            enc.need(skill.description.as_deref(), "skill description")?,
        )
        .put("tags", crate::json::strings(&skill.tags))
        .put_strings("examples", &skill.examples)
        .put_strings("inputModes", &skill.input_modes)
        .put_strings("outputModes", &skill.output_modes)
        .build())
}

fn decode_skill(skill: &Obj<'_>) -> Result<AgentSkill, DecodeError> {
    Ok(AgentSkill {
        id: skill.str("id")?,
        name: skill.str("name")?,
        description: skill.opt_str("description")?,
        tags: skill.strings("tags")?,
        examples: skill.strings("examples")?,
        input_modes: skill.strings("inputModes")?,
        output_modes: skill.strings("outputModes")?,
    })
}
