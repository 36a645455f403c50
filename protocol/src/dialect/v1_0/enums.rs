//! The proto's enums in ProtoJSON: task states (`TASK_STATE_*`) and roles (`ROLE_*`) by name or
//! number, with a spelling outside the proto kept beside `unknown` and sent back as it came.

use crate::codec::DecodeError;
use crate::json::Obj;
use crate::json::tree::Json;
use crate::model::*;
use serde_json::Value;

/// The `TASK_STATE_*` name of a state; `unknown` is the proto's `TASK_STATE_UNSPECIFIED`.
pub(super) fn state_name(state: TaskState) -> &'static str {
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
pub(crate) fn state_from(value: &Json<'_>) -> Option<TaskState> {
    match value {
        Json::String(name) => TaskState::ALL
            .into_iter()
            .find(|state| state_name(*state) == name),
        Json::Number(number) => TaskState::ALL
            .into_iter()
            .find(|state| number.as_i64() == Some(state_number(*state))),
        _ => None,
    }
}

/// A state outside the proto (`UNRECOGNIZED`, a number past the last) reads as `unknown`,
/// with its spelling beside it.
pub(super) fn decode_state(
    object: &Obj<'_>,
    key: &str,
) -> Result<(TaskState, Option<String>), DecodeError> {
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

/// An enum value as sent: a name as itself, a number as its digits.
fn spelling(value: &Json<'_>) -> String {
    match value {
        Json::String(name) => name.to_string(),
        other => other.to_string(),
    }
}

/// A kept spelling goes back out as it came: a number as a number, a name as a string.
pub(super) fn respelled(spelling: &str) -> Value {
    spelling
        .parse::<i64>()
        .map_or_else(|_| Value::from(spelling), Value::from)
}

pub(super) fn role_name(role: &Role) -> &str {
    match role {
        Role::User => "ROLE_USER",
        Role::Agent => "ROLE_AGENT",
        Role::Unknown(name) => name,
    }
}

/// The role a `ROLE_*` name or enum number spells, if the proto defines one
/// (`ROLE_UNSPECIFIED` defines none).
pub(crate) fn role_from(value: &Json<'_>) -> Option<Role> {
    match value {
        Json::String(name) if name == "ROLE_USER" => Some(Role::User),
        Json::String(name) if name == "ROLE_AGENT" => Some(Role::Agent),
        Json::Number(number) if number.as_i64() == Some(1) => Some(Role::User),
        Json::Number(number) if number.as_i64() == Some(2) => Some(Role::Agent),
        _ => None,
    }
}

/// A role outside the proto is kept as [`Role::Unknown`].
pub(super) fn decode_role(message: &Obj<'_>) -> Result<Role, DecodeError> {
    let value = message
        .get("role")
        .ok_or_else(|| message.error("role", "required field is missing"))?;
    if !(value.is_string() || value.is_number()) {
        return Err(message.error("role", format!("expected a role, found {value}")));
    }
    Ok(role_from(value).unwrap_or_else(|| Role::Unknown(spelling(value))))
}
