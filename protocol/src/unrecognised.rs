//! Enum values outside the spec, found in a document the codecs read tolerantly.
//!
//! Real peers send values their dialect does not define: @a2a-js/sdk 1.3 writes
//! `"role": "UNRECOGNIZED"` and `"state": "UNRECOGNIZED"` (its generated `roleToJSON` and
//! `taskStateToJSON` spell any value outside the proto that way). As proto3 JSON readers
//! do, the codecs keep such values instead of refusing the document: an unknown role stays
//! [`Role::Unknown`](crate::Role::Unknown) with its spelling, an unknown task state reads as
//! [`TaskState::Unknown`](crate::TaskState::Unknown) (never as a known state) with its
//! spelling in [`TaskStatus::unrecognised_state`](crate::TaskStatus::unrecognised_state), a
//! part of an unknown kind stays [`PartContent::Unknown`](crate::PartContent::Unknown) as
//! sent, and an unknown protocol binding stays the string it was. [`scan`] names each such value, so a
//! reader can warn about what it kept.

use crate::codec::Dialect;
use crate::dialect;
use crate::json::tree::Json;
use serde_json::Value;
use std::fmt;

/// The protocol bindings the specs define (`protocolBinding` in v1.0, `transport` and
/// `preferredTransport` in v0.3).
pub const KNOWN_BINDINGS: [&str; 3] = ["JSONRPC", "GRPC", "HTTP+JSON"];

/// One value outside the spec, where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrecognised {
    /// A JSON path to the value, e.g. `result.history[1].role`.
    pub path: String,
    /// What the field holds: `role`, `task state`, `part kind` or `protocol binding`.
    pub what: &'static str,
    /// The value as sent, in JSON.
    pub value: String,
}

impl fmt::Display for Unrecognised {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} is not a {} the spec defines; kept as unknown",
            self.path, self.value, self.what
        )
    }
}

/// Every role, task state, part kind and protocol binding in `json` that `dialect` does not define,
/// keys in the order `serde_json` holds them (sorted), array items in order.
pub fn scan(dialect: Dialect, json: &Value) -> Vec<Unrecognised> {
    let mut found = Vec::new();
    walk(dialect, json, "", &mut found);
    found
}

fn walk(dialect: Dialect, value: &Value, path: &str, found: &mut Vec<Unrecognised>) {
    match value {
        Value::Object(map) => {
            for (key, element) in map {
                let here = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                let what = match key.as_str() {
                    "role" if !known_role(dialect, element) => Some("role"),
                    "state" if !known_state(dialect, element) => Some("task state"),
                    "protocolBinding" | "transport" | "preferredTransport"
                        if element
                            .as_str()
                            .is_some_and(|binding| !KNOWN_BINDINGS.contains(&binding)) =>
                    {
                        Some("protocol binding")
                    }
                    _ => None,
                };
                match what {
                    Some(what) => found.push(Unrecognised {
                        path: here,
                        what,
                        value: element.to_string(),
                    }),
                    None if key == "parts" => walk_parts(dialect, element, &here, found),
                    None => walk(dialect, element, &here, found),
                }
            }
        }
        Value::Array(items) => {
            for (n, item) in items.iter().enumerate() {
                walk(dialect, item, &format!("{path}[{n}]"), found);
            }
        }
        _ => {}
    }
}

/// A `parts` array: a part of a kind outside the spec is reported (at the part's path) and
/// not looked into; the others are walked like any value.
fn walk_parts(dialect: Dialect, parts: &Value, path: &str, found: &mut Vec<Unrecognised>) {
    let Value::Array(items) = parts else {
        return walk(dialect, parts, path, found);
    };
    for (n, item) in items.iter().enumerate() {
        let here = format!("{path}[{n}]");
        match unknown_part_kind(dialect, item) {
            Some(kind) => found.push(Unrecognised {
                path: here,
                what: "part kind",
                value: Value::from(kind).to_string(),
            }),
            None => walk(dialect, item, &here, found),
        }
    }
}

fn unknown_part_kind(dialect: Dialect, part: &Value) -> Option<String> {
    match (dialect, part) {
        (Dialect::V1_0, part) => match Json::of(part) {
            Json::Object(members) => dialect::v1_0::unknown_part_kind(&members).map(str::to_string),
            _ => None,
        },
        (Dialect::V0_3, Value::Object(part)) => {
            dialect::v0_3::unknown_part_kind(part).map(str::to_string)
        }
        (Dialect::V0_1, Value::Object(part)) => {
            dialect::v0_1::unknown_part_kind(part).map(str::to_string)
        }
        _ => None,
    }
}

/// Whether a `role` value is one the dialect defines (a value of the wrong JSON type is the
/// decoder's to refuse, not an unknown value).
fn known_role(dialect: Dialect, value: &Value) -> bool {
    match dialect {
        Dialect::V1_0 => {
            !(value.is_string() || value.is_number())
                || value == "ROLE_UNSPECIFIED"
                || value == 0
                || dialect::v1_0::role_from(&Json::of(value)).is_some()
        }
        Dialect::V0_3 => value
            .as_str()
            .is_none_or(|name| dialect::lowercase_role::role_from(name).is_some()),
        Dialect::V0_1 => value
            .as_str()
            .is_none_or(|name| dialect::lowercase_role::role_from(name).is_some()),
    }
}

/// Whether a `state` value is one the dialect defines.
fn known_state(dialect: Dialect, value: &Value) -> bool {
    match dialect {
        Dialect::V1_0 => {
            !(value.is_string() || value.is_number())
                || dialect::v1_0::state_from(&Json::of(value)).is_some()
        }
        Dialect::V0_3 => value
            .as_str()
            .is_none_or(|name| dialect::v0_3::state_from(name).is_some()),
        Dialect::V0_1 => value
            .as_str()
            .is_none_or(|name| dialect::v0_1::state_from(name).is_some()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_each_value_outside_the_spec_with_its_path() {
        let task = json!({"result": {"id": "t", "status": {"state": "UNRECOGNIZED"},
            "history": [{"role": "ROLE_USER", "parts": []}, {"role": "UNRECOGNIZED", "parts": []}]}});
        let found = scan(Dialect::V1_0, &task);
        assert_eq!(
            found.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "result.history[1].role: \"UNRECOGNIZED\" is not a role the spec defines; kept as unknown",
                "result.status.state: \"UNRECOGNIZED\" is not a task state the spec defines; kept as unknown",
            ]
        );
    }

    #[test]
    fn spec_values_are_not_reported_in_any_dialect() {
        let v1 = json!({"status": {"state": 3}, "role": "ROLE_UNSPECIFIED",
            "supportedInterfaces": [{"protocolBinding": "HTTP+JSON"}]});
        assert_eq!(scan(Dialect::V1_0, &v1), []);
        let v03 =
            json!({"status": {"state": "unknown"}, "role": "agent", "preferredTransport": "GRPC"});
        assert_eq!(scan(Dialect::V0_3, &v03), []);
        let v01 = json!({"status": {"state": "input-required"}, "role": "user"});
        assert_eq!(scan(Dialect::V0_1, &v01), []);
    }

    #[test]
    fn values_another_dialect_defines_are_unknown_here() {
        let v01 = json!({"status": {"state": "rejected"}});
        assert_eq!(scan(Dialect::V0_1, &v01)[0].what, "task state");
        let v03 = json!({"role": "ROLE_USER", "transport": "SOAP"});
        let found = scan(Dialect::V0_3, &v03);
        assert_eq!(
            found.iter().map(|value| value.what).collect::<Vec<_>>(),
            ["role", "protocol binding"]
        );
    }
}
