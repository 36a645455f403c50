//! Which dialect a document speaks: from a Card (its well-known path, `protocolVersion`,
//! `supportedInterfaces`) or from a JSON-RPC payload (method names, result shapes, state
//! spellings). Each answer says why, so a tool can tell its user.

use crate::codec::Dialect;
use serde_json::Value;

/// A detected dialect and the clue it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    pub dialect: Dialect,
    pub reason: String,
}

impl Detection {
    fn new(dialect: Dialect, reason: impl Into<String>) -> Self {
        Detection {
            dialect,
            reason: reason.into(),
        }
    }
}

/// The dialect a Card path implies: only v0.1 serves `/.well-known/agent.json`; v0.3 and
/// v1.0 share `/.well-known/agent-card.json`, so that path alone decides nothing.
pub fn from_card_path(path: &str) -> Option<Dialect> {
    path.ends_with("/.well-known/agent.json")
        .then_some(Dialect::V0_1)
}

/// Whether `json` looks like an Agent Card rather than a JSON-RPC message.
pub fn is_card(json: &Value) -> bool {
    let Some(object) = json.as_object() else {
        return false;
    };
    let rpc = ["jsonrpc", "method", "result", "error"]
        .iter()
        .any(|key| object.contains_key(*key));
    !rpc && object.contains_key("name")
        && ["skills", "capabilities", "supportedInterfaces", "url"]
            .iter()
            .any(|key| object.contains_key(*key))
}

/// The dialect of a Card.
pub fn detect_card(card: &Value) -> Option<Detection> {
    if let Some(interfaces) = card.get("supportedInterfaces").and_then(Value::as_array) {
        let versions: Vec<&str> = interfaces
            .iter()
            .filter_map(|interface| interface.get("protocolVersion").and_then(Value::as_str))
            .collect();
        if versions.iter().all(|version| version.starts_with("0.")) && !versions.is_empty() {
            return Some(Detection::new(
                Dialect::V0_3,
                format!(
                    "supportedInterfaces declares protocolVersion {}",
                    versions[0]
                ),
            ));
        }
        return Some(Detection::new(
            Dialect::V1_0,
            "the card has supportedInterfaces",
        ));
    }
    if let Some(version) = card.get("protocolVersion").and_then(Value::as_str) {
        let dialect = if version.starts_with("0.") {
            Dialect::V0_3
        } else {
            Dialect::V1_0
        };
        return Some(Detection::new(
            dialect,
            format!("the card declares protocolVersion {version}"),
        ));
    }
    card.get("url").is_some().then(|| {
        Detection::new(
            Dialect::V0_1,
            "the card has a url but no protocolVersion (the v0.1 shape)",
        )
    })
}

/// The dialect of a JSON-RPC request or response (or one SSE `data:` payload).
pub fn detect_payload(json: &Value) -> Option<Detection> {
    if let Some(method) = json.get("method").and_then(Value::as_str) {
        return detect_method(method);
    }
    if let Some(error) = json.get("error") {
        let typed = error
            .get("data")
            .and_then(Value::as_array)
            .is_some_and(|data| data.iter().any(|detail| detail.get("@type").is_some()));
        return Some(if typed {
            Detection::new(
                Dialect::V1_0,
                "error.data holds typed details (google.rpc.ErrorInfo)",
            )
        } else {
            Detection::new(
                Dialect::V0_3,
                "a plain JSON-RPC error (v0.1 and v0.3 spell these alike)",
            )
        });
    }
    detect_result(json.get("result")?)
}

/// The dialect of a Card or a payload.
pub fn detect(json: &Value) -> Option<Detection> {
    if is_card(json) {
        detect_card(json)
    } else {
        detect_payload(json)
    }
}

fn detect_method(method: &str) -> Option<Detection> {
    let speakers: Vec<Dialect> = Dialect::ALL
        .into_iter()
        .filter(|dialect| dialect.codec().method_from_name(method).is_some())
        .collect();
    match speakers.as_slice() {
        [] => None,
        [only] => Some(Detection::new(
            *only,
            format!("method `{method}` is {only}'s"),
        )),
        [_, newer @ ..] => {
            let newest = *newer.last()?;
            Some(Detection::new(
                newest,
                format!("method `{method}` is shared by v0.1 and v0.3; read as {newest}"),
            ))
        }
    }
}

fn detect_result(result: &Value) -> Option<Detection> {
    let object = result.as_object()?;
    for wrapper in ["task", "message", "statusUpdate", "artifactUpdate", "tasks"] {
        if object.contains_key(wrapper) {
            return Some(Detection::new(
                Dialect::V1_0,
                format!("the result is a `{wrapper}` payload"),
            ));
        }
    }
    if let Some(kind) = object.get("kind").and_then(Value::as_str) {
        return Some(Detection::new(
            Dialect::V0_3,
            format!("the result has kind `{kind}`"),
        ));
    }
    let state = result.pointer("/status/state").and_then(Value::as_str);
    if state.is_some_and(|state| state.starts_with("TASK_STATE_")) {
        return Some(Detection::new(
            Dialect::V1_0,
            "the task state is spelled TASK_STATE_*",
        ));
    }
    if object.contains_key("sessionId") {
        return Some(Detection::new(Dialect::V0_1, "the result has a sessionId"));
    }
    if object.contains_key("id") && (state.is_some() || object.contains_key("artifact")) {
        return Some(Detection::new(
            Dialect::V0_1,
            "the result names its task `id` without a `kind` (the v0.1 shape)",
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cards() {
        let v1 = json!({"name": "a", "supportedInterfaces": [{"url": "http://h/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]});
        let v03 =
            json!({"name": "a", "url": "http://h/", "protocolVersion": "0.3.0", "skills": []});
        let v01 = json!({"name": "a", "url": "http://h/", "version": "1", "skills": []});
        assert_eq!(detect(&v1).unwrap().dialect, Dialect::V1_0);
        assert_eq!(detect(&v03).unwrap().dialect, Dialect::V0_3);
        assert_eq!(detect(&v01).unwrap().dialect, Dialect::V0_1);
        assert_eq!(
            from_card_path("http://h/.well-known/agent.json"),
            Some(Dialect::V0_1)
        );
        assert_eq!(from_card_path("/.well-known/agent-card.json"), None);
    }

    #[test]
    fn payloads() {
        let cases = [
            (json!({"method": "tasks/sendSubscribe"}), Dialect::V0_1),
            (json!({"method": "message/stream"}), Dialect::V0_3),
            (json!({"method": "tasks/get"}), Dialect::V0_3),
            (json!({"method": "SubscribeToTask"}), Dialect::V1_0),
            (json!({"result": {"statusUpdate": {}}}), Dialect::V1_0),
            (
                json!({"result": {"id": "t", "status": {"state": "TASK_STATE_WORKING"}}}),
                Dialect::V1_0,
            ),
            (json!({"result": {"kind": "status-update"}}), Dialect::V0_3),
            (
                json!({"result": {"id": "t", "status": {"state": "working"}, "final": false}}),
                Dialect::V0_1,
            ),
            (
                json!({"error": {"code": -32001, "message": "x", "data": [{"@type": "t"}]}}),
                Dialect::V1_0,
            ),
        ];
        for (payload, dialect) in cases {
            assert_eq!(
                detect(&payload).map(|found| found.dialect),
                Some(dialect),
                "{payload}"
            );
        }
        assert_eq!(detect(&json!({"method": "nope"})), None);
        assert_eq!(detect(&json!([1, 2])), None);
    }
}
