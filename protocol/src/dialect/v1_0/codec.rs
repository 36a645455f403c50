//! The v1.0 codec: PascalCase method names, and requests in the JSON-RPC envelope (snake_case
//! aliases accepted); results are written and read by `result`.

use super::D;
use super::card;
use super::enums::{decode_state, state_name};
use super::message::{decode_message, encode_message};
use super::result::{decode_result, encode_response};
use crate::codec::{Codec, DecodeError, Dialect, EncodeError, Encoded};
use crate::dialect::envelope::{self, RawOutcome};
use crate::json::tree::Json;
use crate::json::{Enc, Obj, Out};
use crate::model::*;
use crate::rpc::*;
use serde_json::Value;

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
                .put_opt(
                    "statusTimestampAfter",
                    params.status_timestamp_after.clone(),
                )
                .put_opt("includeArtifacts", params.include_artifacts)
                .build(),
        };
        let params = with_tenant(params, request.tenant.as_deref());
        let method = method_name(request.request.method());
        Ok(Encoded {
            value: envelope::request(&request.id, method, params),
            losses: enc.losses,
        })
    }

    fn read_request(&self, json: &Json<'_>) -> Result<RpcRequest, DecodeError> {
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
                status_timestamp_after: params.opt_str("statusTimestampAfter")?,
                include_artifacts: params.opt_bool("includeArtifacts")?,
            }),
            Method::CancelTask => Request::CancelTask {
                id: params.str("id")?,
            },
        };
        Ok(RpcRequest {
            id: raw.id,
            request,
            tenant: params
                .opt_str("tenant")?
                .filter(|tenant| !tenant.is_empty()),
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

/// `params` with the request's `tenant` (the same field of every v1.0 request message).
fn with_tenant(mut params: Value, tenant: Option<&str>) -> Value {
    if let (Value::Object(fields), Some(tenant)) = (&mut params, tenant) {
        fields.insert("tenant".to_string(), Value::from(tenant));
    }
    params
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
