//! v1.0 responses: results wrapped by payload (`{"task": ..}`, `{"statusUpdate": ..}`), bare
//! tasks for `GetTask` and `CancelTask`, task lists, and errors with `google.rpc.ErrorInfo` data.

use super::D;
use super::message::{decode_message, encode_message};
use super::task::{decode_artifact, decode_status, decode_task, encode_event, encode_task, wrap};
use crate::codec::{DecodeError, EncodeError, Encoded};
use crate::dialect::envelope;
use crate::json::tree::Json;
use crate::json::{Enc, Obj, Out};
use crate::model::*;
use crate::rpc::*;
use serde_json::Value;

pub(super) fn encode_response(
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

pub(super) fn decode_result(
    value: &Json<'_>,
    method: Option<Method>,
) -> Result<RpcResult, DecodeError> {
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
