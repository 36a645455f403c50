//! The v1.0 Agent Card: `supportedInterfaces`, capabilities, skills and security schemes.

use super::D;
use crate::codec::{DecodeError, EncodeError, Encoded};
use crate::json::tree::Json;
use crate::json::{Enc, Obj, Out, strings};
use crate::model::*;
use serde_json::Value;

/// The Card as this dialect writes it, with what it cannot carry listed as losses.
pub(super) fn encode(card: &AgentCard) -> Result<Encoded<Value>, EncodeError> {
    let mut enc = Enc::new(D);
    if card.interfaces.is_empty() {
        return Err(enc.fail("a card with no interface (supportedInterfaces is required)"));
    }
    let interfaces = card
        .interfaces
        .iter()
        .map(|interface| {
            Out::new()
                .put("url", interface.url.as_str())
                .put("protocolBinding", interface.protocol_binding.as_str())
                .put_opt("protocolVersion", interface.protocol_version.clone())
                .put_opt("tenant", interface.tenant.clone())
                .build()
        })
        .collect::<Vec<_>>();
    enc.lose_if(
        card.capabilities.state_transition_history.is_some(),
        "capabilities.state_transition_history",
    );
    enc.lose_if(!card.security_schemes.is_empty(), "security_schemes");
    let capabilities = Out::new()
        .put_opt("streaming", card.capabilities.streaming)
        .put_opt("pushNotifications", card.capabilities.push_notifications)
        .put_opt("extendedAgentCard", card.capabilities.extended_agent_card)
        .build();
    let skills = card
        .skills
        .iter()
        .map(|skill| {
            Out::new()
                .put("id", skill.id.as_str())
                .put("name", skill.name.as_str())
                .put_opt("description", skill.description.clone())
                .put("tags", strings(&skill.tags))
                .put_strings("examples", &skill.examples)
                .put_strings("inputModes", &skill.input_modes)
                .put_strings("outputModes", &skill.output_modes)
                .build()
        })
        .collect::<Vec<_>>();
    let value = Out::new()
        .put("name", card.name.as_str())
        .put_opt("description", card.description.clone())
        .put("supportedInterfaces", interfaces)
        .put("version", card.version.as_str())
        .put("capabilities", capabilities)
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
    let card = Obj::new(D, json, "")?.with_snake_aliases();
    let capabilities = match card.opt_obj("capabilities")? {
        Some(capabilities) => AgentCapabilities {
            streaming: capabilities.opt_bool("streaming")?,
            push_notifications: capabilities.opt_bool("pushNotifications")?,
            state_transition_history: None,
            extended_agent_card: capabilities.opt_bool("extendedAgentCard")?,
        },
        None => AgentCapabilities::default(),
    };
    Ok(AgentCard {
        name: card.str("name")?,
        description: card.opt_str("description")?,
        version: card.str("version")?,
        interfaces: card.array("supportedInterfaces", |value, path| {
            let interface = card.nested(value, path)?;
            Ok(AgentInterface {
                url: interface.str("url")?,
                protocol_binding: interface.str("protocolBinding")?,
                protocol_version: interface.opt_str("protocolVersion")?,
                tenant: interface
                    .opt_str("tenant")?
                    .filter(|tenant| !tenant.is_empty()),
            })
        })?,
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
        security_schemes: card.keys("securitySchemes")?,
    })
}
