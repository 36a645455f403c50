//! The v0.3 dialect: `message/send`, `message/stream`, `tasks/resubscribe`, `tasks/get`,
//! `tasks/cancel`; objects carry a `kind` discriminator, status events a `final` flag,
//! states are lowercase. Shapes follow `spec/a2a-v0.3.0.schema.json`.

use super::envelope::{self, RawOutcome};
use super::lowercase_role::{decode_role, role_name};
use crate::codec::{Codec, DecodeError, Dialect, EncodeError, Encoded};
use crate::json::{Enc, Obj, Out};
use crate::model::*;
use crate::rpc::*;
use serde_json::{Map, Value};

const D: Dialect = Dialect::V0_3;

/// The v0.3 codec.
pub(crate) struct V0_3;

impl Codec for V0_3 {
    fn dialect(&self) -> Dialect {
        D
    }

    fn method_name(&self, method: Method) -> Option<&'static str> {
        match method {
            Method::SendMessage => Some("message/send"),
            Method::SendStreamingMessage => Some("message/stream"),
            Method::SubscribeToTask => Some("tasks/resubscribe"),
            Method::GetTask => Some("tasks/get"),
            Method::CancelTask => Some("tasks/cancel"),
            Method::ListTasks => None,
        }
    }

    fn encode_request(&self, request: &RpcRequest) -> Result<Encoded<Value>, EncodeError> {
        let mut enc = Enc::new(D);
        let params = match &request.request {
            Request::SendMessage(params) | Request::SendStreamingMessage(params) => {
                send_params(&mut enc, params)?
            }
            Request::SubscribeToTask { id } | Request::CancelTask { id } => {
                Out::new().put("id", id.as_str()).build()
            }
            Request::GetTask(params) => Out::new()
                .put("id", params.id.as_str())
                .put_opt("historyLength", params.history_length)
                .build(),
            Request::ListTasks(_) => return Err(enc.fail("the ListTasks method")),
        };
        let method = self
            .method_name(request.request.method())
            .ok_or_else(|| enc.fail("the method"))?;
        Ok(Encoded {
            value: envelope::request(&request.id, method, params),
            losses: enc.losses,
        })
    }

    fn decode_request(&self, json: &Value) -> Result<RpcRequest, DecodeError> {
        let raw = envelope::split_request(D, json)?;
        let method = self
            .method_from_name(&raw.method)
            .ok_or_else(|| unknown_method(&raw.method))?;
        let params = &raw.params;
        let request = match method {
            Method::SendMessage => Request::SendMessage(decode_send_params(params)?),
            Method::SendStreamingMessage => {
                Request::SendStreamingMessage(decode_send_params(params)?)
            }
            Method::SubscribeToTask => Request::SubscribeToTask {
                id: params.str("id")?,
            },
            Method::GetTask => Request::GetTask(GetTaskParams {
                id: params.str("id")?,
                history_length: params.opt_i32("historyLength")?,
            }),
            Method::CancelTask => Request::CancelTask {
                id: params.str("id")?,
            },
            Method::ListTasks => return Err(unknown_method(&raw.method)),
        };
        Ok(RpcRequest {
            id: raw.id,
            request,
        })
    }

    fn encode_response(&self, response: &RpcResponse) -> Result<Encoded<Value>, EncodeError> {
        let mut enc = Enc::new(D);
        let value = match &response.outcome {
            Ok(result) => {
                let result = match result {
                    RpcResult::Task(task) => encode_task(&mut enc, task)?,
                    RpcResult::Message(message) => encode_message(&mut enc, message)?,
                    RpcResult::Event(event) => encode_event(&mut enc, event)?,
                    RpcResult::TaskList(_) => return Err(enc.fail("a ListTasks result")),
                };
                envelope::result(&response.id, result)
            }
            Err(error) => envelope::error(&response.id, error, error.data.clone()),
        };
        Ok(Encoded {
            value,
            losses: enc.losses,
        })
    }

    fn decode_response(
        &self,
        json: &Value,
        method: Option<Method>,
    ) -> Result<RpcResponse, DecodeError> {
        let (id, outcome) = envelope::split_response(D, json)?;
        let outcome = match outcome {
            RawOutcome::Error(error) => Err(error),
            RawOutcome::Result(result) => Ok(decode_result(result, method)?),
        };
        Ok(RpcResponse { id, outcome })
    }

    fn encode_card(&self, card: &AgentCard) -> Result<Encoded<Value>, EncodeError> {
        let mut enc = Enc::new(D);
        let primary = enc.need(card.interfaces.first(), "interface (the card's `url`)")?;
        let protocol_version = enc.need(
            primary.protocol_version.as_deref(),
            "interfaces[0].protocol_version",
        )?;
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

    fn decode_card(&self, json: &Value) -> Result<AgentCard, DecodeError> {
        let card = Obj::new(D, json, "")?;
        let protocol_version = card.opt_str("protocolVersion")?;
        let mut interfaces = vec![AgentInterface {
            url: card.str("url")?,
            protocol_binding: card
                .opt_str("preferredTransport")?
                .unwrap_or_else(|| "JSONRPC".to_string()),
            protocol_version: protocol_version.clone(),
        }];
        interfaces.extend(card.opt_array("additionalInterfaces", |value, path| {
            let interface = card.nested(value, path)?;
            Ok(AgentInterface {
                url: interface.str("url")?,
                protocol_binding: interface.str("transport")?,
                protocol_version: protocol_version.clone(),
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
}

fn unknown_method(name: &str) -> DecodeError {
    DecodeError {
        dialect: D,
        field: "method".to_string(),
        problem: format!("`{name}` is not a v0.3 method"),
    }
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

fn send_params(enc: &mut Enc, params: &SendMessageParams) -> Result<Value, EncodeError> {
    let configuration = params.configuration.as_ref().map(|configuration| {
        Out::new()
            .put_strings("acceptedOutputModes", &configuration.accepted_output_modes)
            .put_opt(
                "blocking",
                configuration
                    .return_immediately
                    .map(|immediately| !immediately),
            )
            .put_opt("historyLength", configuration.history_length)
            .build()
    });
    Ok(Out::new()
        .put("message", encode_message(enc, &params.message)?)
        .put_opt("configuration", configuration)
        .put_opt("metadata", params.metadata.clone())
        .build())
}

fn decode_send_params(params: &Obj<'_>) -> Result<SendMessageParams, DecodeError> {
    let configuration = params
        .opt_obj("configuration")?
        .map(|configuration| {
            Ok::<_, DecodeError>(SendConfiguration {
                accepted_output_modes: configuration.strings("acceptedOutputModes")?,
                history_length: configuration.opt_i32("historyLength")?,
                return_immediately: configuration
                    .opt_bool("blocking")?
                    .map(|blocking| !blocking),
            })
        })
        .transpose()?;
    Ok(SendMessageParams {
        message: decode_message(&params.obj("message")?)?,
        configuration,
        metadata: params.opt_value("metadata"),
    })
}

fn decode_result(value: &Value, method: Option<Method>) -> Result<RpcResult, DecodeError> {
    let result = Obj::new(D, value, "result")?;
    let kind = match result.opt_str("kind")? {
        Some(kind) => kind,
        None => infer_kind(&result)
            .ok_or_else(|| result.error("kind", "required field is missing"))?
            .to_string(),
    };
    let streaming = method.is_some_and(Method::is_streaming);
    Ok(match kind.as_str() {
        "task" if streaming => RpcResult::Event(StreamEvent::Task(decode_task(&result)?)),
        "task" => RpcResult::Task(decode_task(&result)?),
        "message" if streaming => RpcResult::Event(StreamEvent::Message(decode_message(&result)?)),
        "message" => RpcResult::Message(decode_message(&result)?),
        "status-update" => {
            RpcResult::Event(StreamEvent::StatusUpdate(decode_status_update(&result)?))
        }
        "artifact-update" => RpcResult::Event(StreamEvent::ArtifactUpdate(decode_artifact_update(
            &result,
        )?)),
        other => return Err(result.error("kind", format!("unknown result kind `{other}`"))),
    })
}

/// The kind of a result that omits `kind`, from the fields it has.
fn infer_kind(result: &Obj<'_>) -> Option<&'static str> {
    if result.has("artifact") {
        Some("artifact-update")
    } else if result.has("status") && result.has("taskId") {
        Some("status-update")
    } else if result.has("status") {
        Some("task")
    } else if result.has("messageId") || result.has("role") {
        Some("message")
    } else {
        None
    }
}

fn encode_event(enc: &mut Enc, event: &StreamEvent) -> Result<Value, EncodeError> {
    match event {
        StreamEvent::Task(task) => encode_task(enc, task),
        StreamEvent::Message(message) => encode_message(enc, message),
        StreamEvent::StatusUpdate(update) => {
            let is_final = enc.need(update.is_final.as_ref(), "status-update `final` flag")?;
            Ok(Out::new()
                .put("kind", "status-update")
                .put("taskId", update.task_id.as_str())
                .put(
                    "contextId",
                    enc.need(update.context_id.as_deref(), "status-update contextId")?,
                )
                .put("status", encode_status(enc, &update.status)?)
                .put("final", *is_final)
                .put_opt("metadata", update.metadata.clone())
                .build())
        }
        StreamEvent::ArtifactUpdate(update) => Ok(Out::new()
            .put("kind", "artifact-update")
            .put("taskId", update.task_id.as_str())
            .put(
                "contextId",
                enc.need(update.context_id.as_deref(), "artifact-update contextId")?,
            )
            .put("artifact", encode_artifact(enc, &update.artifact)?)
            .put_opt("append", update.append)
            .put_opt("lastChunk", update.last_chunk)
            .put_opt("metadata", update.metadata.clone())
            .build()),
    }
}

fn decode_status_update(event: &Obj<'_>) -> Result<TaskStatusUpdateEvent, DecodeError> {
    Ok(TaskStatusUpdateEvent {
        task_id: event.str("taskId")?,
        context_id: event.opt_str("contextId")?,
        status: decode_status(&event.obj("status")?)?,
        is_final: event.opt_bool("final")?,
        metadata: event.opt_value("metadata"),
    })
}

fn decode_artifact_update(event: &Obj<'_>) -> Result<TaskArtifactUpdateEvent, DecodeError> {
    Ok(TaskArtifactUpdateEvent {
        task_id: event.str("taskId")?,
        context_id: event.opt_str("contextId")?,
        artifact: decode_artifact(&event.obj("artifact")?)?,
        append: event.opt_bool("append")?,
        last_chunk: event.opt_bool("lastChunk")?,
        metadata: event.opt_value("metadata"),
    })
}

fn encode_task(enc: &mut Enc, task: &Task) -> Result<Value, EncodeError> {
    let history = task
        .history
        .iter()
        .map(|message| encode_message(enc, message))
        .collect::<Result<Vec<_>, _>>()?;
    let artifacts = task
        .artifacts
        .iter()
        .map(|artifact| encode_artifact(enc, artifact))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Out::new()
        .put("kind", "task")
        .put("id", task.id.as_str())
        .put(
            "contextId",
            enc.need(task.context_id.as_deref(), "task contextId")?,
        )
        .put("status", encode_status(enc, &task.status)?)
        .put_list("history", history)
        .put_list("artifacts", artifacts)
        .put_opt("metadata", task.metadata.clone())
        .build())
}

fn decode_task(task: &Obj<'_>) -> Result<Task, DecodeError> {
    Ok(Task {
        id: task.str("id")?,
        context_id: task.opt_str("contextId")?,
        status: decode_status(&task.obj("status")?)?,
        history: task.opt_array("history", |value, path| {
            decode_message(&task.nested(value, path)?)
        })?,
        artifacts: task.opt_array("artifacts", |value, path| {
            decode_artifact(&task.nested(value, path)?)
        })?,
        metadata: task.opt_value("metadata"),
    })
}

fn encode_status(enc: &mut Enc, status: &TaskStatus) -> Result<Value, EncodeError> {
    let message = status
        .message
        .as_ref()
        .map(|message| encode_message(enc, message))
        .transpose()?;
    let state = match &status.unrecognised_state {
        Some(spelling) if status.state == TaskState::Unknown => spelling.as_str(),
        _ => status.state.name(),
    };
    Ok(Out::new()
        .put("state", state)
        .put_opt("message", message)
        .put_opt("timestamp", status.timestamp.clone())
        .build())
}

/// The state a v0.3 name spells, if its schema defines it (all of the model's do).
pub(crate) fn state_from(name: &str) -> Option<TaskState> {
    name.parse().ok()
}

/// A state outside the schema reads as `unknown`, its spelling kept beside it.
fn decode_status(status: &Obj<'_>) -> Result<TaskStatus, DecodeError> {
    let name = status.str("state")?;
    let (state, unrecognised_state) = match state_from(&name) {
        Some(state) => (state, None),
        None => (TaskState::Unknown, Some(name)),
    };
    Ok(TaskStatus {
        state,
        message: status
            .opt_obj("message")?
            .map(|message| decode_message(&message))
            .transpose()?,
        timestamp: status.opt_str("timestamp")?,
        unrecognised_state,
    })
}

fn encode_artifact(enc: &mut Enc, artifact: &Artifact) -> Result<Value, EncodeError> {
    Ok(Out::new()
        .put(
            "artifactId",
            enc.need(artifact.artifact_id.as_deref(), "artifactId")?,
        )
        .put_opt("name", artifact.name.clone())
        .put_opt("description", artifact.description.clone())
        .put("parts", encode_parts(enc, &artifact.parts)?)
        .put_opt("metadata", artifact.metadata.clone())
        .build())
}

fn decode_artifact(artifact: &Obj<'_>) -> Result<Artifact, DecodeError> {
    Ok(Artifact {
        artifact_id: artifact.opt_str("artifactId")?,
        name: artifact.opt_str("name")?,
        description: artifact.opt_str("description")?,
        parts: artifact.array("parts", |value, path| {
            decode_part(&artifact.nested(value, path)?)
        })?,
        metadata: artifact.opt_value("metadata"),
    })
}

fn encode_message(enc: &mut Enc, message: &Message) -> Result<Value, EncodeError> {
    Ok(Out::new()
        .put("kind", "message")
        .put(
            "messageId",
            enc.need(message.message_id.as_deref(), "messageId")?,
        )
        .put("role", role_name(&message.role))
        .put("parts", encode_parts(enc, &message.parts)?)
        .put_opt("taskId", message.task_id.clone())
        .put_opt("contextId", message.context_id.clone())
        .put_opt("metadata", message.metadata.clone())
        .build())
}

fn decode_message(message: &Obj<'_>) -> Result<Message, DecodeError> {
    if let Some(kind) = message.opt_str("kind")?
        && kind != "message"
    {
        return Err(message.error("kind", format!("expected `message`, found `{kind}`")));
    }
    Ok(Message {
        message_id: Some(message.str("messageId")?),
        role: decode_role(message)?,
        parts: message.array("parts", |value, path| {
            decode_part(&message.nested(value, path)?)
        })?,
        task_id: message.opt_str("taskId")?,
        context_id: message.opt_str("contextId")?,
        metadata: message.opt_value("metadata"),
    })
}

fn encode_parts(enc: &mut Enc, parts: &[Part]) -> Result<Value, EncodeError> {
    Ok(Value::Array(
        parts
            .iter()
            .map(|part| encode_part(enc, part))
            .collect::<Result<_, _>>()?,
    ))
}

fn encode_part(enc: &mut Enc, part: &Part) -> Result<Value, EncodeError> {
    let mut out = Out::new();
    match &part.content {
        PartContent::Unknown(unknown) => return Ok(unknown.as_sent.clone()),
        PartContent::Text(text) => out.put("kind", "text").put("text", text.as_str()),
        PartContent::Data(data) => {
            if !data.is_object() {
                return Err(enc.fail("a data part whose data is not a JSON object"));
            }
            out.put("kind", "data").put("data", data.clone())
        }
        PartContent::File(file) => {
            if file.bytes.is_none() && file.uri.is_none() {
                return Err(enc.fail("a file part with neither bytes nor uri"));
            }
            let file = Out::new()
                .put_opt("name", file.name.clone())
                .put_opt("mimeType", file.media_type.clone())
                .put_opt("bytes", file.bytes.clone())
                .put_opt("uri", file.uri.clone())
                .build();
            out.put("kind", "file").put("file", file)
        }
    };
    Ok(out.put_opt("metadata", part.metadata.clone()).build())
}

/// The part kinds the schema defines.
const PART_KINDS: [&str; 3] = ["text", "file", "data"];

/// The kind of a part outside the schema (`"kind": "video"`), if it is one.
pub(crate) fn unknown_part_kind(part: &Map<String, Value>) -> Option<&str> {
    part.get("kind")
        .and_then(Value::as_str)
        .filter(|kind| !PART_KINDS.contains(kind))
}

/// A part of a kind outside the schema is kept as [`PartContent::Unknown`].
fn decode_part(part: &Obj<'_>) -> Result<Part, DecodeError> {
    let kind = match part.opt_str("kind")? {
        Some(kind) => kind,
        None => PART_KINDS
            .into_iter()
            .find(|key| part.has(key))
            .ok_or_else(|| part.error("kind", "required field is missing"))?
            .to_string(),
    };
    let content = match kind.as_str() {
        "text" => PartContent::Text(part.str("text")?),
        "data" => PartContent::Data(
            part.opt_value("data")
                .ok_or_else(|| part.error("data", "required field is missing"))?,
        ),
        "file" => {
            let file = part.obj("file")?;
            PartContent::File(FileContent {
                name: file.opt_str("name")?,
                media_type: file.opt_str("mimeType")?,
                bytes: file.opt_str("bytes")?,
                uri: file.opt_str("uri")?,
            })
        }
        _ => PartContent::Unknown(UnknownPart {
            kind,
            as_sent: part.as_sent(),
        }),
    };
    Ok(Part {
        content,
        metadata: part.opt_value("metadata"),
    })
}
