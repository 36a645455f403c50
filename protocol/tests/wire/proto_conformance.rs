//! The v1.0 golden vectors use only the field and enum names of `a2a-v1.0.1.proto` in its
//! ProtoJSON form, inside a JSON-RPC envelope whose errors carry typed details.

use crate::support::proto::{Proto, envelope_problems, response_problems};
use crate::support::spec::spec_text;
use crate::support::{Kind, vectors};
use meshsim_protocol::Dialect;

fn proto() -> Proto {
    Proto::parse(&spec_text("a2a-v1.0.1.proto"))
}

#[test]
fn v1_vectors_use_only_proto_names() {
    let proto = proto();
    assert!(proto.messages.contains_key("Task") && proto.enums.contains_key("TaskState"));
    let mut failures = Vec::new();
    // A peer's document with values outside the spec is not the spec's shape by definition.
    let ours = vectors(Dialect::V1_0)
        .into_iter()
        .filter(|vector| vector.unrecognised.is_empty());
    for vector in ours {
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
                let message = vector.proto.as_deref().unwrap_or("(no proto named)");
                response_problems(&proto, message, document)
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
