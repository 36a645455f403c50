//! Values outside the spec that real peers send, read tolerantly in every dialect: a part of
//! an unknown kind is kept as sent (and written back unchanged), an unknown task state keeps
//! its spelling beside `unknown`, and `ListTasks`' status filter reads as the real a2a-sdk
//! 1.3.0 reads it.

use meshsim_protocol::unrecognised::scan;
use meshsim_protocol::{
    Dialect, Method, PartContent, Request, RpcResult, StreamEvent, TaskState, UnknownPart,
};
use serde_json::{Value, json};

/// A task result in `dialect` whose only artifact has a text part and a `video` part.
fn task_with_a_video_part(dialect: Dialect) -> (Value, Value) {
    let (video, text) = match dialect {
        Dialect::V1_0 => (
            json!({"video": {"uri": "https://example.com/v.mp4"}, "mediaType": "video/mp4"}),
            json!({"text": "caption"}),
        ),
        Dialect::V0_3 => (
            json!({"kind": "video", "video": {"uri": "https://example.com/v.mp4"}}),
            json!({"kind": "text", "text": "caption"}),
        ),
        Dialect::V0_1 => (
            json!({"type": "video", "video": {"uri": "https://example.com/v.mp4"}}),
            json!({"type": "text", "text": "caption"}),
        ),
    };
    let state = match dialect {
        Dialect::V1_0 => "TASK_STATE_COMPLETED",
        _ => "completed",
    };
    let mut task = json!({"id": "t-1", "status": {"state": state},
        "artifacts": [{"artifactId": "a-1", "parts": [text, video.clone()]}]});
    if dialect == Dialect::V0_3 {
        task["kind"] = json!("task");
        task["contextId"] = json!("c-1");
    }
    (json!({"jsonrpc": "2.0", "id": 1, "result": task}), video)
}

#[test]
fn a_part_of_an_unknown_kind_is_kept_as_sent_in_every_dialect() {
    for dialect in Dialect::ALL {
        let (document, video) = task_with_a_video_part(dialect);
        let codec = dialect.codec();
        let response = codec
            .decode_response(&document, None)
            .unwrap_or_else(|e| panic!("{dialect}: {e}"));
        let Ok(RpcResult::Task(task)) = &response.outcome else {
            panic!("{dialect}: {response:?}")
        };
        let parts = &task.artifacts[0].parts;
        assert_eq!(parts[0].content, PartContent::Text("caption".into()));
        assert_eq!(
            parts[1].content,
            PartContent::Unknown(UnknownPart {
                kind: "video".into(),
                as_sent: video.clone()
            }),
            "{dialect}"
        );
        let encoded = codec
            .encode_response_to(Method::GetTask, &response)
            .unwrap();
        assert_eq!(
            encoded.value["result"]["artifacts"][0]["parts"][1], video,
            "{dialect}: written back as sent"
        );
        let found = scan(dialect, &document);
        assert_eq!(
            found.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "result.artifacts[0].parts[1]: \"video\" is not a part kind the spec defines; kept as unknown"
            ],
            "{dialect}"
        );
    }
}

#[test]
fn a_part_with_no_content_at_all_is_still_refused() {
    let empty = json!({"jsonrpc": "2.0", "id": 1, "result": {"id": "t", "status": {"state": "TASK_STATE_WORKING"},
        "history": [{"role": "ROLE_AGENT", "parts": [{"mediaType": "text/plain"}]}]}});
    let error = Dialect::V1_0
        .codec()
        .decode_response(&empty, None)
        .unwrap_err();
    assert_eq!(error.field, "result.history[0].parts[0].text");
}

#[test]
fn an_unknown_state_keeps_its_spelling_and_is_written_back() {
    for (dialect, state) in [
        (Dialect::V1_0, json!("UNRECOGNIZED")),
        (Dialect::V1_0, json!(42)),
        (Dialect::V0_3, json!("paused")),
        (Dialect::V0_1, json!("rejected")),
    ] {
        let mut update = json!({"taskId": "t-1", "contextId": "c-1", "status": {"state": state}});
        let document = match dialect {
            Dialect::V1_0 => json!({"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": update}}),
            Dialect::V0_1 => {
                update["id"] = update["taskId"].take();
                update["final"] = json!(false);
                json!({"jsonrpc": "2.0", "id": 1, "result": update})
            }
            Dialect::V0_3 => {
                update["kind"] = json!("status-update");
                update["final"] = json!(false);
                json!({"jsonrpc": "2.0", "id": 1, "result": update})
            }
        };
        let codec = dialect.codec();
        let response = codec
            .decode_response(&document, None)
            .unwrap_or_else(|e| panic!("{dialect} {state}: {e}"));
        let Ok(RpcResult::Event(StreamEvent::StatusUpdate(decoded))) = &response.outcome else {
            panic!("{dialect}: {response:?}")
        };
        assert_eq!(
            decoded.status.state,
            TaskState::Unknown,
            "{dialect} {state}"
        );
        let spelling = match &state {
            Value::String(name) => name.clone(),
            number => number.to_string(),
        };
        assert_eq!(decoded.status.unrecognised_state, Some(spelling));
        let encoded = codec.encode_response(&response).unwrap().value;
        let written = match dialect {
            Dialect::V1_0 => &encoded["result"]["statusUpdate"]["status"]["state"],
            _ => &encoded["result"]["status"]["state"],
        };
        assert_eq!(*written, state, "{dialect}: written back as sent");
    }
}

/// What the real a2a-sdk 1.3.0 does with each `status` (its JSON-RPC dispatcher reads params
/// with `ParseDict(..., ignore_unknown_fields=True)`; checked against it by
/// `tests/interop/python.rs`): a name outside the proto is dropped, the default is no
/// filter, a number outside the proto filters on a state no task is in.
#[test]
fn list_tasks_status_filter_reads_as_a_proto3_reader_that_ignores_unknown_fields() {
    for (status, filter) in [
        (json!("UNRECOGNIZED"), None),
        (json!("TASK_STATE_UNSPECIFIED"), None),
        (json!(0), None),
        (json!("TASK_STATE_WORKING"), Some(TaskState::Working)),
        (json!(2), Some(TaskState::Working)),
        (json!(99), Some(TaskState::Unknown)),
    ] {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks",
            "params": {"status": status}});
        let decoded = Dialect::V1_0.codec().decode_request(&request).unwrap();
        let Request::ListTasks(params) = decoded.request else {
            panic!("not a list")
        };
        assert_eq!(params.status, filter, "status {status}");
    }
    // Written out, a filter on `unknown` has no spelling that keeps its meaning.
    let unknown = meshsim_protocol::RpcRequest {
        id: meshsim_protocol::RequestId::Number(1),
        request: Request::ListTasks(meshsim_protocol::ListTasksParams {
            status: Some(TaskState::Unknown),
            ..Default::default()
        }),
        tenant: None,
    };
    assert!(Dialect::V1_0.codec().encode_request(&unknown).is_err());
}
