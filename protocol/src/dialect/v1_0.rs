//! The v1.0 dialect: the ProtoJSON form of `spec/a2a-v1.0.1.proto` over JSON-RPC.
//! PascalCase methods (`SendMessage`, `SubscribeToTask`, `ListTasks`, ...), `TASK_STATE_*`
//! and `ROLE_*` enums, flattened parts (`text` | `raw` | `url` | `data`), results wrapped by
//! payload (`{"task": ..}`, `{"statusUpdate": ..}`), `supportedInterfaces` on the Card, and
//! `google.rpc.ErrorInfo` objects in `error.data`. There is no `final` flag and no
//! `stateTransitionHistory` capability. Decoders accept the proto's snake_case field names
//! as well as camelCase, and enum numbers as well as names, as ProtoJSON parsers do.

use super::envelope::{self, RawOutcome};
use crate::codec::{Codec, DecodeError, Dialect, EncodeError, Encoded};
use crate::json::{Enc, Obj, Out, strings};
use crate::model::*;
use crate::rpc::*;
use serde_json::{Map, Value};

const D: Dialect = Dialect::V1_0;

/// The v1.0 codec.
pub(crate) struct V1_0;

impl Codec for V1_0 {
    fn dialect(&self) -> Dialect {
        D
    }

    fn method_name(&self, method: Method) -> Option<&'static str> {
        Some(method_name(method))
    }

    fn encode_request(&self, request: &RpcRequest) -> Result<Encoded<Value>, EncodeError> {
        let mut enc = Enc::new(D);
        let params = match &request.request {
            Request::SendMessage(params) | Request::SendStreamingMessage(params) => {
                let configuration = params.configuration.as_ref().map(|configuration| {
                    Out::new()
                        .put_strings("acceptedOutputModes", &configuration.accepted_output_modes)
                        .put_opt("historyLength", configuration.history_length)
                        .put_opt("returnImmediately", configuration.return_immediately)
                        .build()
                });
                Out::new()
                    .put("message", encode_message(&mut enc, &params.message)?)
                    .put_opt("configuration", configuration)
                    .put_opt("metadata", params.metadata.clone())
                    .build()
            }
            Request::SubscribeToTask { id } | Request::CancelTask { id } => {
                Out::new().put("id", id.as_str()).build()
            }
            Request::GetTask(params) => Out::new()
                .put("id", params.id.as_str())
                .put_opt("historyLength", params.history_length)
                .build(),
            // No spelling of a filter means "a state no task is in": UNSPECIFIED is no filter.
            Request::ListTasks(params) if params.status == Some(TaskState::Unknown) => {
                return Err(enc.fail("a ListTasks filter on the unknown state"));
            }
            Request::ListTasks(params) => Out::new()
                .put_opt("contextId", params.context_id.clone())
                .put_opt("status", params.status.map(state_name))
                .put_opt("pageSize", params.page_size)
                .put_opt("pageToken", params.page_token.clone())
                .put_opt("historyLength", params.history_length)
                .build(),
        };
        let method = method_name(request.request.method());
        Ok(Encoded {
            value: envelope::request(&request.id, method, params),
            losses: enc.losses,
        })
    }

    fn decode_request(&self, json: &Value) -> Result<RpcRequest, DecodeError> {
        let raw = envelope::split_request(D, json)?;
        let method = self
            .method_from_name(&raw.method)
            .ok_or_else(|| DecodeError {
                dialect: D,
                field: "method".to_string(),
                problem: format!("`{}` is not a v1.0 method", raw.method),
            })?;
        let params = raw.params.with_snake_aliases();
        let request = match method {
            Method::SendMessage => Request::SendMessage(decode_send_params(&params)?),
            Method::SendStreamingMessage => {
                Request::SendStreamingMessage(decode_send_params(&params)?)
            }
            Method::SubscribeToTask => Request::SubscribeToTask {
                id: params.str("id")?,
            },
            Method::GetTask => Request::GetTask(GetTaskParams {
                id: params.str("id")?,
                history_length: params.opt_i32("historyLength")?,
            }),
            Method::ListTasks => Request::ListTasks(ListTasksParams {
                context_id: params.opt_str("contextId")?,
                status: decode_status_filter(&params)?,
                page_size: params.opt_i32("pageSize")?,
                page_token: params.opt_str("pageToken")?,
                history_length: params.opt_i32("historyLength")?,
            }),
            Method::CancelTask => Request::CancelTask {
                id: params.str("id")?,
            },
        };
        Ok(RpcRequest {
            id: raw.id,
            request,
        })
    }

    /// Writes a task result in `SendMessage`'s wrapped form; see [`Codec::encode_response_to`].
    fn encode_response(&self, response: &RpcResponse) -> Result<Encoded<Value>, EncodeError> {
        encode_response(response, None)
    }

    fn encode_response_to(
        &self,
        method: Method,
        response: &RpcResponse,
    ) -> Result<Encoded<Value>, EncodeError> {
        encode_response(response, Some(method))
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

    fn decode_card(&self, json: &Value) -> Result<AgentCard, DecodeError> {
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
}

/// Every method has a v1.0 name.
fn method_name(method: Method) -> &'static str {
    match method {
        Method::SendMessage => "SendMessage",
        Method::SendStreamingMessage => "SendStreamingMessage",
        Method::SubscribeToTask => "SubscribeToTask",
        Method::GetTask => "GetTask",
        Method::ListTasks => "ListTasks",
        Method::CancelTask => "CancelTask",
    }
}

/// The `TASK_STATE_*` name of a state; `unknown` is the proto's `TASK_STATE_UNSPECIFIED`.
pub(crate) fn state_name(state: TaskState) -> &'static str {
    match state {
        TaskState::Submitted => "TASK_STATE_SUBMITTED",
        TaskState::Working => "TASK_STATE_WORKING",
        TaskState::InputRequired => "TASK_STATE_INPUT_REQUIRED",
        TaskState::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
        TaskState::Completed => "TASK_STATE_COMPLETED",
        TaskState::Failed => "TASK_STATE_FAILED",
        TaskState::Canceled => "TASK_STATE_CANCELED",
        TaskState::Rejected => "TASK_STATE_REJECTED",
        TaskState::Unknown => "TASK_STATE_UNSPECIFIED",
    }
}

/// The proto's enum number of a state.
fn state_number(state: TaskState) -> i64 {
    match state {
        TaskState::Unknown => 0,
        TaskState::Submitted => 1,
        TaskState::Working => 2,
        TaskState::Completed => 3,
        TaskState::Failed => 4,
        TaskState::Canceled => 5,
        TaskState::InputRequired => 6,
        TaskState::Rejected => 7,
        TaskState::AuthRequired => 8,
    }
}

/// The state a `TASK_STATE_*` name or enum number spells, if the proto defines it.
pub(crate) fn state_from(value: &Value) -> Option<TaskState> {
    match value {
        Value::String(name) => TaskState::ALL
            .into_iter()
            .find(|state| state_name(*state) == name),
        Value::Number(number) => TaskState::ALL
            .into_iter()
            .find(|state| number.as_i64() == Some(state_number(*state))),
        _ => None,
    }
}

/// A state outside the proto (`UNRECOGNIZED`, a number past the last) reads as `unknown`,
/// with its spelling beside it.
fn decode_state(object: &Obj<'_>, key: &str) -> Result<(TaskState, Option<String>), DecodeError> {
    let value = object
        .get(key)
        .ok_or_else(|| object.error(key, "required field is missing"))?;
    if !(value.is_string() || value.is_number()) {
        return Err(object.error(key, format!("expected a task state, found {value}")));
    }
    Ok(match state_from(value) {
        Some(state) => (state, None),
        None => (TaskState::Unknown, Some(spelling(value))),
    })
}

/// `ListTasks`' `status` filter, read as a ProtoJSON reader that ignores unknown fields
/// reads it (as the real a2a-sdk 1.3.0 does, `ParseDict(..., ignore_unknown_fields=True)`):
/// `TASK_STATE_UNSPECIFIED` (0) is the field's default, so no filter; a name outside the
/// proto (`UNRECOGNIZED`, which @a2a-js/sdk 1.3 sends for an unset filter) is dropped, so
/// no filter either; a number outside it is kept as `unknown`, a state no task is in.
fn decode_status_filter(params: &Obj<'_>) -> Result<Option<TaskState>, DecodeError> {
    if !params.has("status") {
        return Ok(None);
    }
    Ok(match decode_state(params, "status")? {
        (TaskState::Unknown, Some(spelling)) if spelling.parse::<i64>().is_err() => None,
        (TaskState::Unknown, None) => None,
        (state, _) => Some(state),
    })
}

/// An enum value as sent: a name as itself, a number as its digits.
fn spelling(value: &Value) -> String {
    match value {
        Value::String(name) => name.clone(),
        other => other.to_string(),
    }
}

/// A kept spelling goes back out as it came: a number as a number, a name as a string.
fn respelled(spelling: &str) -> Value {
    spelling
        .parse::<i64>()
        .map_or_else(|_| Value::from(spelling), Value::from)
}

fn role_name(role: &Role) -> &str {
    match role {
        Role::User => "ROLE_USER",
        Role::Agent => "ROLE_AGENT",
        Role::Unknown(name) => name,
    }
}

/// The role a `ROLE_*` name or enum number spells, if the proto defines one
/// (`ROLE_UNSPECIFIED` defines none).
pub(crate) fn role_from(value: &Value) -> Option<Role> {
    match value {
        Value::String(name) if name == "ROLE_USER" => Some(Role::User),
        Value::String(name) if name == "ROLE_AGENT" => Some(Role::Agent),
        Value::Number(number) if number.as_i64() == Some(1) => Some(Role::User),
        Value::Number(number) if number.as_i64() == Some(2) => Some(Role::Agent),
        _ => None,
    }
}

/// A role outside the proto is kept as [`Role::Unknown`].
fn decode_role(message: &Obj<'_>) -> Result<Role, DecodeError> {
    let value = message
        .get("role")
        .ok_or_else(|| message.error("role", "required field is missing"))?;
    if !(value.is_string() || value.is_number()) {
        return Err(message.error("role", format!("expected a role, found {value}")));
    }
    Ok(role_from(value).unwrap_or_else(|| Role::Unknown(spelling(value))))
}

fn decode_send_params(params: &Obj<'_>) -> Result<SendMessageParams, DecodeError> {
    let configuration = params
        .opt_obj("configuration")?
        .map(|configuration| {
            Ok::<_, DecodeError>(SendConfiguration {
                accepted_output_modes: configuration.strings("acceptedOutputModes")?,
                history_length: configuration.opt_i32("historyLength")?,
                return_immediately: configuration.opt_bool("returnImmediately")?,
            })
        })
        .transpose()?;
    Ok(SendMessageParams {
        message: decode_message(&params.obj("message")?)?,
        configuration,
        metadata: params.opt_value("metadata"),
    })
}

fn encode_response(
    response: &RpcResponse,
    method: Option<Method>,
) -> Result<Encoded<Value>, EncodeError> {
    let mut enc = Enc::new(D);
    let value = match &response.outcome {
        Ok(result) => {
            let result = match result {
                RpcResult::Task(task)
                    if matches!(method, Some(Method::GetTask | Method::CancelTask)) =>
                {
                    encode_task(&mut enc, task)?
                }
                RpcResult::Task(task) => wrap("task", encode_task(&mut enc, task)?),
                RpcResult::Message(message) => wrap("message", encode_message(&mut enc, message)?),
                RpcResult::Event(event) => encode_event(&mut enc, event)?,
                RpcResult::TaskList(list) => {
                    let tasks = list
                        .tasks
                        .iter()
                        .map(|task| encode_task(&mut enc, task))
                        .collect::<Result<Vec<_>, _>>()?;
                    Out::new()
                        .put("tasks", tasks)
                        .put("nextPageToken", list.next_page_token.as_str())
                        .put("pageSize", list.page_size)
                        .put("totalSize", list.total_size)
                        .build()
                }
            };
            envelope::result(&response.id, result)
        }
        Err(error) => {
            let data = match &error.data {
                Some(data @ Value::Array(_)) => data.clone(),
                Some(_) => {
                    enc.lose("error.data");
                    Value::Array(vec![error.code.error_info()])
                }
                None => Value::Array(vec![error.code.error_info()]),
            };
            envelope::error(&response.id, error, Some(data))
        }
    };
    Ok(Encoded {
        value,
        losses: enc.losses,
    })
}

fn wrap(key: &str, value: Value) -> Value {
    Out::new().put(key, value).build()
}

fn decode_result(value: &Value, method: Option<Method>) -> Result<RpcResult, DecodeError> {
    let result = Obj::new(D, value, "result")?.with_snake_aliases();
    let streaming = method.is_some_and(Method::is_streaming);
    if let Some(update) = result.opt_obj("statusUpdate")? {
        let event = TaskStatusUpdateEvent {
            task_id: update.str("taskId")?,
            context_id: update.opt_str("contextId")?,
            status: decode_status(&update.obj("status")?)?,
            is_final: None,
            metadata: update.opt_value("metadata"),
        };
        return Ok(RpcResult::Event(StreamEvent::StatusUpdate(event)));
    }
    if let Some(update) = result.opt_obj("artifactUpdate")? {
        let event = TaskArtifactUpdateEvent {
            task_id: update.str("taskId")?,
            context_id: update.opt_str("contextId")?,
            artifact: decode_artifact(&update.obj("artifact")?)?,
            append: update.opt_bool("append")?,
            last_chunk: update.opt_bool("lastChunk")?,
            metadata: update.opt_value("metadata"),
        };
        return Ok(RpcResult::Event(StreamEvent::ArtifactUpdate(event)));
    }
    if let Some(task) = result.opt_obj("task")? {
        let task = decode_task(&task)?;
        return Ok(if streaming {
            RpcResult::Event(StreamEvent::Task(task))
        } else {
            RpcResult::Task(task)
        });
    }
    if let Some(message) = result.opt_obj("message")? {
        let message = decode_message(&message)?;
        return Ok(if streaming {
            RpcResult::Event(StreamEvent::Message(message))
        } else {
            RpcResult::Message(message)
        });
    }
    if result.has("tasks") || method == Some(Method::ListTasks) {
        return Ok(RpcResult::TaskList(TaskList {
            tasks: result.array("tasks", |value, path| {
                decode_task(&result.nested(value, path)?)
            })?,
            next_page_token: result.opt_str("nextPageToken")?.unwrap_or_default(),
            page_size: result.opt_i32("pageSize")?.unwrap_or_default(),
            total_size: result.opt_i32("totalSize")?.unwrap_or_default(),
        }));
    }
    if !result.has("id") && !result.has("status") {
        return Err(result.error(
            "task",
            "expected one of task, message, statusUpdate, artifactUpdate, tasks, or a bare task",
        ));
    }
    Ok(RpcResult::Task(decode_task(&result)?))
}

fn encode_event(enc: &mut Enc, event: &StreamEvent) -> Result<Value, EncodeError> {
    Ok(match event {
        StreamEvent::Task(task) => wrap("task", encode_task(enc, task)?),
        StreamEvent::Message(message) => wrap("message", encode_message(enc, message)?),
        StreamEvent::StatusUpdate(update) => {
            enc.lose_if(update.is_final.is_some(), "is_final");
            let update = Out::new()
                .put("taskId", update.task_id.as_str())
                .put_opt("contextId", update.context_id.clone())
                .put("status", encode_status(enc, &update.status)?)
                .put_opt("metadata", update.metadata.clone())
                .build();
            wrap("statusUpdate", update)
        }
        StreamEvent::ArtifactUpdate(update) => {
            let update = Out::new()
                .put("taskId", update.task_id.as_str())
                .put_opt("contextId", update.context_id.clone())
                .put("artifact", encode_artifact(enc, &update.artifact)?)
                .put_opt("append", update.append)
                .put_opt("lastChunk", update.last_chunk)
                .put_opt("metadata", update.metadata.clone())
                .build();
            wrap("artifactUpdate", update)
        }
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
        .put("id", task.id.as_str())
        .put_opt("contextId", task.context_id.clone())
        .put("status", encode_status(enc, &task.status)?)
        .put_list("artifacts", artifacts)
        .put_list("history", history)
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
        Some(spelling) if status.state == TaskState::Unknown => respelled(spelling),
        _ => Value::from(state_name(status.state)),
    };
    Ok(Out::new()
        .put("state", state)
        .put_opt("message", message)
        .put_opt("timestamp", status.timestamp.clone())
        .build())
}

fn decode_status(status: &Obj<'_>) -> Result<TaskStatus, DecodeError> {
    let (state, unrecognised_state) = decode_state(status, "state")?;
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
        .put_opt("artifactId", artifact.artifact_id.clone())
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
        .put_opt("messageId", message.message_id.clone())
        .put_opt("contextId", message.context_id.clone())
        .put_opt("taskId", message.task_id.clone())
        .put("role", role_name(&message.role))
        .put("parts", encode_parts(enc, &message.parts)?)
        .put_opt("metadata", message.metadata.clone())
        .build())
}

fn decode_message(message: &Obj<'_>) -> Result<Message, DecodeError> {
    Ok(Message {
        message_id: message.opt_str("messageId")?,
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
        PartContent::Text(text) => out.put("text", text.as_str()),
        PartContent::Data(Value::Null) => {
            return Err(enc.fail("a data part holding null (it reads as no content)"));
        }
        PartContent::Data(data) => out.put("data", data.clone()),
        PartContent::File(file) => {
            match (&file.bytes, &file.uri) {
                (Some(bytes), None) => out.put("raw", bytes.as_str()),
                (None, Some(uri)) => out.put("url", uri.as_str()),
                (Some(_), Some(_)) => {
                    return Err(enc.fail("a file part with both bytes and uri (one of raw | url)"));
                }
                (None, None) => return Err(enc.fail("a file part with neither bytes nor uri")),
            };
            out.put_opt("filename", file.name.clone())
                .put_opt("mediaType", file.media_type.clone())
        }
    };
    Ok(out.put_opt("metadata", part.metadata.clone()).build())
}

/// The members of `Part`'s `content` oneof.
const PART_CONTENT: [&str; 4] = ["text", "raw", "url", "data"];

/// `Part`'s other members (and their snake_case aliases).
const PART_FIELDS: [&str; 4] = ["metadata", "filename", "mediaType", "media_type"];

/// The kind of a part outside the proto: none of the `content` members is set, but another
/// member is, and it names the kind (`"video": {...}` is a `video` part).
pub(crate) fn unknown_part_kind(part: &Map<String, Value>) -> Option<&str> {
    let set = |key: &str| part.get(key).is_some_and(|value| !value.is_null());
    if PART_CONTENT.into_iter().any(set) {
        return None;
    }
    part.keys()
        .map(String::as_str)
        .find(|key| set(key) && !PART_FIELDS.contains(key))
}

fn decode_part(part: &Obj<'_>) -> Result<Part, DecodeError> {
    if let Some(kind) = unknown_part_kind(part.map()) {
        return Ok(Part {
            content: PartContent::Unknown(UnknownPart {
                kind: kind.to_string(),
                as_sent: part.as_sent(),
            }),
            metadata: part.opt_value("metadata"),
        });
    }
    let present: Vec<&str> = PART_CONTENT
        .into_iter()
        .filter(|key| part.has(key))
        .collect();
    let content = match present.as_slice() {
        [] => return Err(part.error("text", "a part needs one of text, raw, url or data")),
        [first, second, ..] => {
            return Err(part.error(
                second,
                format!(
                    "a part holds one of text, raw, url or data, found `{first}` and `{second}`"
                ),
            ));
        }
        ["data"] => PartContent::Data(part.opt_value("data").unwrap_or_default()),
        ["text"] => PartContent::Text(part.str("text")?),
        [file] => PartContent::File(FileContent {
            name: part.opt_str("filename")?,
            media_type: part.opt_str("mediaType")?,
            bytes: if *file == "raw" {
                Some(part.str("raw")?)
            } else {
                None
            },
            uri: if *file == "url" {
                Some(part.str("url")?)
            } else {
                None
            },
        }),
    };
    Ok(Part {
        content,
        metadata: part.opt_value("metadata"),
    })
}
