//! The v0.3 codec: method names, requests and responses in the JSON-RPC envelope, and the
//! `kind` of a result that omits it.

use super::D;
use super::card;
use super::message::{decode_message, encode_message};
use super::task::{
    decode_artifact_update, decode_status_update, decode_task, encode_event, encode_task,
};
use crate::codec::{Codec, DecodeError, Dialect, EncodeError, Encoded};
use crate::dialect::envelope::{self, RawOutcome};
use crate::json::tree::Json;
use crate::json::{Enc, Obj, Out};
use crate::model::*;
use crate::rpc::*;
use serde_json::Value;

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
        problem: format!("`{name}` is not a v0.3 method"),
    }
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

fn decode_result(value: &Json<'_>, method: Option<Method>) -> Result<RpcResult, DecodeError> {
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
