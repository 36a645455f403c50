//! The v1.0 golden vectors use only the field and enum names of `a2a-v1.0.1.proto` in its
//! ProtoJSON form, inside a JSON-RPC envelope whose errors carry typed details.

use crate::support::proto::Proto;
use crate::support::{Kind, spec_dir, vectors};
use meshsim_protocol::Dialect;
use serde_json::Value;

fn proto() -> Proto {
    let path = spec_dir().join("a2a-v1.0.1.proto");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Proto::parse(&text)
}

fn envelope_problems(document: &Value, allowed: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    for key in document
        .as_object()
        .into_iter()
        .flat_map(|object| object.keys())
    {
        if !allowed.contains(&key.as_str()) {
            problems.push(format!("envelope has `{key}`"));
        }
    }
    if document["jsonrpc"] != "2.0" {
        problems.push("jsonrpc is not 2.0".to_string());
    }
    problems
}

fn error_problems(error: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if !error["code"].is_i64() || !error["message"].is_string() {
        problems.push("error needs an integer code and a message".to_string());
    }
    match error["data"].as_array() {
        Some(details) => {
            for detail in details {
                if !detail["@type"].is_string() {
                    problems.push(format!("error detail without @type: {detail}"));
                }
                if detail["@type"] == "type.googleapis.com/google.rpc.ErrorInfo" {
                    for key in detail.as_object().unwrap().keys() {
                        if !["@type", "reason", "domain", "metadata"].contains(&key.as_str()) {
                            problems.push(format!("ErrorInfo has no field `{key}`"));
                        }
                    }
                }
            }
        }
        None => problems.push("error.data must be a list of typed details".to_string()),
    }
    problems
}

#[test]
fn v1_vectors_use_only_proto_names() {
    let proto = proto();
    assert!(proto.messages.contains_key("Task") && proto.enums.contains_key("TaskState"));
    let mut failures = Vec::new();
    for vector in vectors(Dialect::V1_0) {
        let document = &vector.document;
        let problems = match vector.kind {
            Kind::Card => proto.check("AgentCard", document, "card"),
            Kind::Request => {
                let mut problems =
                    envelope_problems(document, &["jsonrpc", "id", "method", "params"]);
                let message = vector
                    .proto
                    .as_deref()
                    .expect("request vectors name their params message");
                problems.extend(proto.check(message, &document["params"], "params"));
                problems
            }
            Kind::Response => {
                let mut problems =
                    envelope_problems(document, &["jsonrpc", "id", "result", "error"]);
                match (&document.get("result"), &document.get("error")) {
                    (Some(result), None) => {
                        let message = vector
                            .proto
                            .as_deref()
                            .expect("result vectors name their message");
                        problems.extend(proto.check(message, result, "result"));
                    }
                    (None, Some(error)) => problems.extend(error_problems(error)),
                    _ => {
                        problems.push("a response has exactly one of result and error".to_string())
                    }
                }
                problems
            }
        };
        failures.extend(
            problems
                .into_iter()
                .map(|problem| format!("{}: {problem}", vector.name())),
        );
    }
    assert!(
        failures.is_empty(),
        "proto violations:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_proto_checker_rejects_names_the_proto_lacks() {
    let proto = proto();
    let stale = serde_json::json!({"id": "t", "status": {"state": "completed"}, "kind": "task"});
    let problems = proto.check("Task", &stale, "result");
    assert_eq!(
        problems,
        vec![
            "result.kind: Task has no field `kind`".to_string(),
            "result.status.state: \"completed\" is not a value of enum TaskState".to_string(),
        ]
    );
    let update = serde_json::json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}, "final": true}});
    assert_eq!(
        proto.check("StreamResponse", &update, "result"),
        vec!["result.statusUpdate.final: TaskStatusUpdateEvent has no field `final`".to_string()]
    );
}
