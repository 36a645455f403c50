//! The v0.1 codec: method names, requests and responses in the JSON-RPC envelope.

use super::D;
use super::card;
use super::message::{decode_message, encode_message_body};
use super::task::{decode_artifact, decode_status, decode_task, encode_event, encode_task};
use crate::codec::{Codec, DecodeError, Dialect, EncodeError, Encoded};
use crate::dialect::envelope::{self, RawOutcome};
use crate::json::tree::Json;
use crate::json::{Enc, Obj, Out};
use crate::model::*;
use crate::rpc::*;
use serde_json::Value;

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
        enc.lose_if(request.tenant.is_some(), "tenant");
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

    fn read_request(&self, json: &Json<'_>) -> Result<RpcRequest, DecodeError> {
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
            tenant: None,
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

    fn read_response(
        &self,
        json: &Json<'_>,
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
        card::encode(card)
    }

    fn read_card(&self, json: &Json<'_>) -> Result<AgentCard, DecodeError> {
        card::decode(json)
    }
}

fn unknown_method(name: &str) -> DecodeError {
    DecodeError {
        dialect: D,
        field: "method".to_string(),
        problem: format!("`{name}` is not a v0.1 method"),
    }
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

fn decode_result(value: &Json<'_>, method: Option<Method>) -> Result<RpcResult, DecodeError> {
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
