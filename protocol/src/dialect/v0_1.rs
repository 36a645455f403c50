//! The v0.1 dialect, the origin note's vocabulary: `tasks/send`, `tasks/sendSubscribe`,
//! `tasks/resubscribe`, `tasks/get`, `tasks/cancel`, the Card at `/.well-known/agent.json`.
//! The client chooses the task id (`params.id`) and the session (`sessionId`); messages have
//! no ids; parts are discriminated by `type`; stream events name their task `id`, status
//! events carry `final`, and artifact chunks carry `append`/`lastChunk` inside the artifact.
//! There is no `rejected` or `auth-required` state, no ListTasks, no task snapshot on a
//! stream. Shapes follow `spec/a2a-v0.1.0.schema.json`.

use super::envelope::{self, RawOutcome};
use super::lowercase_role::{decode_role, role_name};
use crate::codec::{Codec, DecodeError, Dialect, EncodeError, Encoded};
use crate::json::{Enc, Obj, Out, strings};
use crate::model::*;
use crate::rpc::*;
use serde_json::{Map, Value};

const D: Dialect = Dialect::V0_1;

/// The v0.1 codec.
pub(crate) struct V0_1;

impl Codec for V0_1 {
    fn dialect(&self) -> Dialect {
        D
    }

    fn method_name(&self, method: Method) -> Option<&'static str> {
        match method {
            Method::SendMessage => Some("tasks/send"),
            Method::SendStreamingMessage => Some("tasks/sendSubscribe"),
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
                    RpcResult::Message(_) => {
                        return Err(enc.fail("a message result (v0.1 answers with a task)"));
                    }
                    RpcResult::Event(event) => encode_event(&mut enc, event)?,
                    RpcResult::TaskList(_) => return Err(enc.fail("a ListTasks result")),
                };
                envelope::result(&response.id, result)
            }
            Err(error) => {
                let data = match &error.data {
                    Some(data @ Value::Object(_)) => Some(data.clone()),
                    Some(_) => {
                        enc.lose("error.data");
                        None
                    }
                    None => None,
                };
                envelope::error(&response.id, error, data)
            }
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
        enc.lose_if(card.interfaces.len() > 1, "interfaces");
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

    fn decode_card(&self, json: &Value) -> Result<AgentCard, DecodeError> {
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
}

fn unknown_method(name: &str) -> DecodeError {
    DecodeError {
        dialect: D,
        field: "method".to_string(),
        problem: format!("`{name}` is not a v0.1 method"),
    }
}

/// v0.1 has no `rejected` and no `auth-required`.
fn state_name(enc: &Enc, state: TaskState) -> Result<&'static str, EncodeError> {
    match state {
        TaskState::Rejected | TaskState::AuthRequired => {
            Err(enc.fail(format!("task state `{}`", state.name())))
        }
        other => Ok(other.name()),
    }
}

/// The state a v0.1 name spells, if its schema defines it (it has no `rejected` and no
/// `auth-required`).
pub(crate) fn state_from(name: &str) -> Option<TaskState> {
    match name.parse::<TaskState>() {
        Ok(TaskState::Rejected | TaskState::AuthRequired) | Err(_) => None,
        Ok(state) => Some(state),
    }
}

/// A state outside the schema reads as `unknown`, with its spelling.
fn decode_state(status: &Obj<'_>) -> Result<(TaskState, Option<String>), DecodeError> {
    let name = status.str("state")?;
    Ok(match state_from(&name) {
        Some(state) => (state, None),
        None => (TaskState::Unknown, Some(name)),
    })
}

fn send_params(enc: &mut Enc, params: &SendMessageParams) -> Result<Value, EncodeError> {
    let message = &params.message;
    let task_id = enc.need(
        message.task_id.as_deref(),
        "task id (v0.1's client-chosen params.id)",
    )?;
    enc.lose_if(message.message_id.is_some(), "message.message_id");
    let history_length = match &params.configuration {
        Some(configuration) => {
            enc.lose_if(
                !configuration.accepted_output_modes.is_empty(),
                "configuration.accepted_output_modes",
            );
            enc.lose_if(
                configuration.return_immediately.is_some(),
                "configuration.return_immediately",
            );
            configuration.history_length
        }
        None => None,
    };
    Ok(Out::new()
        .put("id", task_id)
        .put_opt("sessionId", message.context_id.clone())
        .put("message", encode_message_body(enc, message)?)
        .put_opt("historyLength", history_length)
        .put_opt("metadata", params.metadata.clone())
        .build())
}

fn decode_send_params(params: &Obj<'_>) -> Result<SendMessageParams, DecodeError> {
    let mut message = decode_message(&params.obj("message")?)?;
    message.task_id = Some(params.str("id")?);
    message.context_id = params.opt_str("sessionId")?;
    let configuration = params
        .opt_i32("historyLength")?
        .map(|history_length| SendConfiguration {
            history_length: Some(history_length),
            ..SendConfiguration::default()
        });
    Ok(SendMessageParams {
        message,
        configuration,
        metadata: params.opt_value("metadata"),
    })
}

fn decode_result(value: &Value, method: Option<Method>) -> Result<RpcResult, DecodeError> {
    let result = Obj::new(D, value, "result")?;
    let is_event = match method {
        Some(method) => method.is_streaming(),
        None => result.has("artifact") || value.get("final").is_some(),
    };
    if !is_event {
        return Ok(RpcResult::Task(decode_task(&result)?));
    }
    let event = if result.has("artifact") {
        let artifact = result.obj("artifact")?;
        StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: result.str("id")?,
            context_id: None,
            artifact: decode_artifact(&artifact)?,
            append: artifact.opt_bool("append")?,
            last_chunk: artifact.opt_bool("lastChunk")?,
            metadata: result.opt_value("metadata"),
        })
    } else {
        StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
            task_id: result.str("id")?,
            context_id: None,
            status: decode_status(&result.obj("status")?)?,
            is_final: result.opt_bool("final")?,
            metadata: result.opt_value("metadata"),
        })
    };
    Ok(RpcResult::Event(event))
}

fn encode_event(enc: &mut Enc, event: &StreamEvent) -> Result<Value, EncodeError> {
    match event {
        StreamEvent::Task(_) => Err(enc
            .fail("a task snapshot on a stream (v0.1 streams carry status and artifact updates)")),
        StreamEvent::Message(_) => Err(enc.fail("a message on a stream")),
        StreamEvent::StatusUpdate(update) => {
            enc.lose_if(update.context_id.is_some(), "context_id");
            Ok(Out::new()
                .put("id", update.task_id.as_str())
                .put("status", encode_status(enc, &update.status)?)
                .put_opt("final", update.is_final)
                .put_opt("metadata", update.metadata.clone())
                .build())
        }
        StreamEvent::ArtifactUpdate(update) => {
            enc.lose_if(update.context_id.is_some(), "context_id");
            let mut artifact = encode_artifact(enc, &update.artifact)?;
            if let Value::Object(fields) = &mut artifact {
                if let Some(append) = update.append {
                    fields.insert("append".to_string(), Value::Bool(append));
                }
                if let Some(last_chunk) = update.last_chunk {
                    fields.insert("lastChunk".to_string(), Value::Bool(last_chunk));
                }
            }
            Ok(Out::new()
                .put("id", update.task_id.as_str())
                .put("artifact", artifact)
                .put_opt("metadata", update.metadata.clone())
                .build())
        }
    }
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
        .put("id", task.id.as_str())
        .put_opt("sessionId", task.context_id.clone())
        .put("status", encode_status(enc, &task.status)?)
        .put_list("artifacts", artifacts)
        .put_list("history", history)
        .put_opt("metadata", task.metadata.clone())
        .build())
}

fn decode_task(task: &Obj<'_>) -> Result<Task, DecodeError> {
    Ok(Task {
        id: task.str("id")?,
        context_id: task.opt_str("sessionId")?,
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
        _ => state_name(enc, status.state)?,
    };
    Ok(Out::new()
        .put("state", state)
        .put_opt("message", message)
        .put_opt("timestamp", status.timestamp.clone())
        .build())
}

fn decode_status(status: &Obj<'_>) -> Result<TaskStatus, DecodeError> {
    let (state, unrecognised_state) = decode_state(status)?;
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
    enc.lose_if(artifact.artifact_id.is_some(), "artifact.artifact_id");
    Ok(Out::new()
        .put_opt("name", artifact.name.clone())
        .put_opt("description", artifact.description.clone())
        .put("parts", encode_parts(enc, &artifact.parts)?)
        .put_opt("metadata", artifact.metadata.clone())
        .build())
}

fn decode_artifact(artifact: &Obj<'_>) -> Result<Artifact, DecodeError> {
    Ok(Artifact {
        artifact_id: None,
        name: artifact.opt_str("name")?,
        description: artifact.opt_str("description")?,
        parts: artifact.array("parts", |value, path| {
            decode_part(&artifact.nested(value, path)?)
        })?,
        metadata: artifact.opt_value("metadata"),
    })
}

/// A message outside a send (history, status): its ids have nowhere to go.
fn encode_message(enc: &mut Enc, message: &Message) -> Result<Value, EncodeError> {
    enc.lose_if(message.message_id.is_some(), "message.message_id");
    enc.lose_if(message.task_id.is_some(), "message.task_id");
    enc.lose_if(message.context_id.is_some(), "message.context_id");
    encode_message_body(enc, message)
}

fn encode_message_body(enc: &mut Enc, message: &Message) -> Result<Value, EncodeError> {
    Ok(Out::new()
        .put("role", role_name(&message.role))
        .put("parts", encode_parts(enc, &message.parts)?)
        .put_opt("metadata", message.metadata.clone())
        .build())
}

fn decode_message(message: &Obj<'_>) -> Result<Message, DecodeError> {
    Ok(Message {
        message_id: None,
        role: decode_role(message)?,
        parts: message.array("parts", |value, path| {
            decode_part(&message.nested(value, path)?)
        })?,
        task_id: None,
        context_id: None,
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
        PartContent::Text(text) => out.put("type", "text").put("text", text.as_str()),
        PartContent::Data(data) => {
            if !data.is_object() {
                return Err(enc.fail("a data part whose data is not a JSON object"));
            }
            out.put("type", "data").put("data", data.clone())
        }
        PartContent::File(file) => {
            let file = Out::new()
                .put_opt("name", file.name.clone())
                .put_opt("mimeType", file.media_type.clone())
                .put_opt("bytes", file.bytes.clone())
                .put_opt("uri", file.uri.clone())
                .build();
            out.put("type", "file").put("file", file)
        }
    };
    Ok(out.put_opt("metadata", part.metadata.clone()).build())
}

/// The part kinds the schema defines.
const PART_KINDS: [&str; 3] = ["text", "file", "data"];

/// The kind of a part outside the schema (`"type": "video"`), if it is one.
pub(crate) fn unknown_part_kind(part: &Map<String, Value>) -> Option<&str> {
    part.get("type")
        .and_then(Value::as_str)
        .filter(|kind| !PART_KINDS.contains(kind))
}

/// A part of a kind outside the schema is kept as [`PartContent::Unknown`].
fn decode_part(part: &Obj<'_>) -> Result<Part, DecodeError> {
    let kind = match part.opt_str("type")? {
        Some(kind) => kind,
        None => PART_KINDS
            .into_iter()
            .find(|key| part.has(key))
            .ok_or_else(|| part.error("type", "required field is missing"))?
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
