//! v0.1 tasks, their statuses and states (no `rejected`, no `auth-required`), artifacts, and
//! the stream events that carry them (status updates with `final`, artifact chunks).

use super::message::{decode_message, decode_part, encode_message, encode_parts};
use crate::codec::{DecodeError, EncodeError};
use crate::json::{Enc, Obj, Out};
use crate::model::*;
use serde_json::Value;

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

pub(super) fn encode_event(enc: &mut Enc, event: &StreamEvent) -> Result<Value, EncodeError> {
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
        .put_opt("sessionId", task.context_id.clone())
        .put("status", encode_status(enc, &task.status)?)
        .put_list("artifacts", artifacts)
        .put_list("history", history)
        .put_opt("metadata", task.metadata.clone())
        .build())
}

pub(super) fn decode_task(task: &Obj<'_>) -> Result<Task, DecodeError> {
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

pub(super) fn decode_status(status: &Obj<'_>) -> Result<TaskStatus, DecodeError> {
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

pub(super) fn decode_artifact(artifact: &Obj<'_>) -> Result<Artifact, DecodeError> {
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
