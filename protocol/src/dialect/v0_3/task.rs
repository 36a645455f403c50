//! v0.3 tasks, their statuses and lowercase states, artifacts, and the stream events that
//! carry them (status updates with `final`, artifact updates).

use super::message::{decode_message, decode_part, encode_message, encode_parts};
use crate::codec::{DecodeError, EncodeError};
use crate::json::{Enc, Obj, Out};
use crate::model::*;
use serde_json::Value;

pub(super) fn encode_event(enc: &mut Enc, event: &StreamEvent) -> Result<Value, EncodeError> {
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

pub(super) fn decode_status_update(event: &Obj<'_>) -> Result<TaskStatusUpdateEvent, DecodeError> {
    Ok(TaskStatusUpdateEvent {
        task_id: event.str("taskId")?,
        context_id: event.opt_str("contextId")?,
        status: decode_status(&event.obj("status")?)?,
        is_final: event.opt_bool("final")?,
        metadata: event.opt_value("metadata"),
    })
}

pub(super) fn decode_artifact_update(
    event: &Obj<'_>,
) -> Result<TaskArtifactUpdateEvent, DecodeError> {
    Ok(TaskArtifactUpdateEvent {
        task_id: event.str("taskId")?,
        context_id: event.opt_str("contextId")?,
        artifact: decode_artifact(&event.obj("artifact")?)?,
        append: event.opt_bool("append")?,
        last_chunk: event.opt_bool("lastChunk")?,
        metadata: event.opt_value("metadata"),
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
