//! The golden vectors decode, and encoding what was decoded reproduces each one (compared
//! as JSON values); together they cover every message kind of every dialect. Real peers'
//! documents with enum values outside the spec decode too, keeping those values as unknown.

use crate::support::{Kind, Vector, vectors};
use meshsim_protocol::unrecognised::scan;
use meshsim_protocol::{Dialect, Method, Role, RpcResult, StreamEvent, TaskState};
use std::collections::BTreeSet;

/// What a vector is an example of, e.g. `request SendMessage`, `event status-update`.
fn example_of(vector: &Vector) -> String {
    let codec = vector.dialect.codec();
    match vector.kind {
        Kind::Card => "card".to_string(),
        Kind::Request => {
            let request = codec.decode_request(&vector.document).expect("decodes");
            format!("request {:?}", request.request.method())
        }
        Kind::Response => {
            let response = codec
                .decode_response(&vector.document, vector.method)
                .expect("decodes");
            match response.outcome {
                Err(_) => "error".to_string(),
                Ok(RpcResult::Task(_)) => "result task".to_string(),
                Ok(RpcResult::Message(_)) => "result message".to_string(),
                Ok(RpcResult::TaskList(_)) => "result task-list".to_string(),
                Ok(RpcResult::Event(StreamEvent::Task(_))) => "event task".to_string(),
                Ok(RpcResult::Event(StreamEvent::Message(_))) => "event message".to_string(),
                Ok(RpcResult::Event(StreamEvent::StatusUpdate(_))) => {
                    "event status-update".to_string()
                }
                Ok(RpcResult::Event(StreamEvent::ArtifactUpdate(_))) => {
                    "event artifact-update".to_string()
                }
            }
        }
    }
}

#[test]
fn decode_then_encode_reproduces_every_vector() {
    for dialect in Dialect::ALL {
        let codec = dialect.codec();
        let ours = vectors(dialect)
            .into_iter()
            .filter(|vector| vector.unrecognised.is_empty());
        for vector in ours {
            let encoded = match vector.kind {
                Kind::Card => {
                    let card = codec
                        .decode_card(&vector.document)
                        .unwrap_or_else(|e| panic!("{}: {e}", vector.name()));
                    codec.encode_card(&card)
                }
                Kind::Request => {
                    let request = codec
                        .decode_request(&vector.document)
                        .unwrap_or_else(|e| panic!("{}: {e}", vector.name()));
                    codec.encode_request(&request)
                }
                Kind::Response => {
                    let method = vector.method.unwrap_or_else(|| {
                        panic!("{}: a response vector names its method", vector.name())
                    });
                    let response = codec
                        .decode_response(&vector.document, Some(method))
                        .unwrap_or_else(|e| panic!("{}: {e}", vector.name()));
                    codec.encode_response_to(method, &response)
                }
            }
            .unwrap_or_else(|e| panic!("{}: {e}", vector.name()));
            assert_eq!(encoded.losses, vec![], "{}", vector.name());
            assert_eq!(
                encoded.value,
                vector.document,
                "{}: re-encoded\n{}\nexpected\n{}",
                vector.name(),
                serde_json::to_string_pretty(&encoded.value).unwrap(),
                serde_json::to_string_pretty(&vector.document).unwrap()
            );
        }
    }
}

#[test]
fn vectors_cover_every_message_kind_of_every_dialect() {
    for dialect in Dialect::ALL {
        let covered: BTreeSet<String> = vectors(dialect).iter().map(example_of).collect();
        let mut required: Vec<String> = vec!["card".into(), "error".into(), "result task".into()];
        required.extend([
            "event status-update".to_string(),
            "event artifact-update".to_string(),
        ]);
        for method in Method::ALL {
            if dialect.codec().method_name(method).is_some() {
                required.push(format!("request {method:?}"));
            }
        }
        if dialect != Dialect::V0_1 {
            required.extend(["result message".to_string(), "event task".to_string()]);
        }
        if dialect == Dialect::V1_0 {
            required.extend(["result task-list".to_string(), "event message".to_string()]);
        }
        for kind in required {
            assert!(
                covered.contains(&kind),
                "{dialect} has no vector for {kind}; has {covered:?}"
            );
        }
    }
}

/// The vectors whose dialect detection cannot tell from the document alone, and why, in the
/// order of the index files. Every other vector, of every kind, must be detected as its own
/// dialect.
const AMBIGUOUS: &[(&str, &str)] = &[
    (
        "v0.1/tasks-resubscribe.request.json",
        "`tasks/resubscribe` is v0.1's and v0.3's; read as v0.3",
    ),
    (
        "v0.1/tasks-get.request.json",
        "`tasks/get` is v0.1's and v0.3's; read as v0.3",
    ),
    (
        "v0.1/tasks-cancel.request.json",
        "`tasks/cancel` is v0.1's and v0.3's; read as v0.3",
    ),
    (
        "v0.1/error-task-not-found.json",
        "v0.1 and v0.3 spell plain JSON-RPC errors alike; read as v0.3",
    ),
];

#[test]
fn vectors_decode_by_shape_and_detect_as_their_dialect() {
    let mut undetected = Vec::new();
    for dialect in Dialect::ALL {
        for vector in vectors(dialect) {
            let detected = meshsim_protocol::detect::detect(&vector.document);
            if detected.as_ref().map(|detection| detection.dialect) != Some(dialect) {
                undetected.push(vector.name());
            }
            if vector.kind == Kind::Response {
                let by_shape = dialect.codec().decode_response(&vector.document, None);
                assert!(by_shape.is_ok(), "{}: {:?}", vector.name(), by_shape);
            }
        }
    }
    let listed: Vec<String> = AMBIGUOUS.iter().map(|(name, _)| name.to_string()).collect();
    assert_eq!(
        undetected, listed,
        "vectors detected as another dialect or none, against the list of ambiguous ones"
    );
}

/// The @a2a-js/sdk documents with `UNRECOGNIZED` decode; the scan names exactly the values
/// the index lists; an unknown role keeps its spelling and an unknown state reads as
/// `unknown`, never as a known state, its spelling kept beside it.
#[test]
fn peer_documents_with_values_outside_the_spec_decode_as_unknown() {
    let peers: Vec<Vector> = Dialect::ALL
        .into_iter()
        .flat_map(vectors)
        .filter(|vector| !vector.unrecognised.is_empty())
        .collect();
    assert_eq!(peers.len(), 2, "the two @a2a-js/sdk payloads");
    for vector in peers {
        let found: Vec<String> = scan(vector.dialect, &vector.document)
            .into_iter()
            .map(|value| value.path)
            .collect();
        assert_eq!(found, vector.unrecognised, "{}", vector.name());
        let response = vector
            .dialect
            .codec()
            .decode_response(&vector.document, vector.method)
            .unwrap_or_else(|e| panic!("{}: {e}", vector.name()));
        match response.outcome {
            Ok(RpcResult::Task(task)) => {
                assert_eq!(task.history[0].role, Role::Unknown("UNRECOGNIZED".into()));
                assert_eq!(task.history[1].role, Role::Agent);
                assert_eq!(task.status.state, TaskState::Completed);
            }
            Ok(RpcResult::Event(StreamEvent::StatusUpdate(update))) => {
                assert_eq!(update.status.state, TaskState::Unknown);
                assert_eq!(
                    update.status.unrecognised_state.as_deref(),
                    Some("UNRECOGNIZED")
                );
            }
            other => panic!("{}: {other:?}", vector.name()),
        }
    }
}
