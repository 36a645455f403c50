//! v1.0 tasks, their statuses and artifacts, and the stream events that carry them (no `final`
//! flag: a stream ends where its state says so).

use super::enums::{decode_state, respelled, state_name};
use super::message::{decode_message, decode_part, encode_message, encode_parts};
use crate::codec::{DecodeError, EncodeError};
use crate::json::{Enc, Obj, Out};
use crate::model::*;
use serde_json::Value;

pub(super) fn encode_event(enc: &mut Enc, event: &StreamEvent) -> Result<Value, EncodeError> {
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

pub(super) fn encode_task(enc: &mut Enc, task: &Task) -> Result<Value, EncodeError> {
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

pub(super) fn decode_task(task: &Obj<'_>) -> Result<Task, DecodeError> {
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

pub(super) fn decode_status(status: &Obj<'_>) -> Result<TaskStatus, DecodeError> {
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

pub(super) fn decode_artifact(artifact: &Obj<'_>) -> Result<Artifact, DecodeError> {
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

/// `{key: value}`: a payload wrapped by its kind, as v1.0 results and stream events are.
pub(super) fn wrap(key: &str, value: Value) -> Value {
    Out::new().put(key, value).build()
}
