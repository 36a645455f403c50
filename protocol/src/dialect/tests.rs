//! Round trips of every message kind through each codec, and the dialects' edges: what each
//! cannot express, what tolerant decoding accepts, and what it names when it refuses.

use crate::codec::{Dialect, Loss};
use crate::model::*;
use crate::rpc::*;
use serde_json::{Value, json};

/// A user message as `dialect` can carry it in a send (v0.1: only the task and session).
fn user_message(dialect: Dialect) -> Message {
    let mut message = Message::text(Role::User, Some("m-1".to_string()), "book a flight");
    message.task_id = Some("t-1".to_string());
    message.context_id = Some("c-1".to_string());
    if dialect == Dialect::V0_1 {
        message.message_id = None;
    }
    message
}

/// A message stored in a task (history, status): v0.1 messages carry no ids at all.
fn agent_message(dialect: Dialect) -> Message {
    let mut message = Message::text(Role::Agent, Some("m-2".to_string()), "where to?");
    if dialect != Dialect::V0_1 {
        message.task_id = Some("t-1".to_string());
        message.context_id = Some("c-1".to_string());
    } else {
        message.message_id = None;
    }
    message
}

fn artifact(dialect: Dialect) -> Artifact {
    Artifact {
        artifact_id: (dialect != Dialect::V0_1).then(|| "a-1".to_string()),
        name: Some("itinerary".to_string()),
        description: None,
        parts: vec![
            Part::text("SFO to JFK"),
            Part {
                content: PartContent::Data(json!({"seats": 2})),
                metadata: None,
            },
            Part {
                content: PartContent::File(FileContent {
                    name: Some("ticket.pdf".to_string()),
                    media_type: Some("application/pdf".to_string()),
                    bytes: Some("JVBERi0=".to_string()),
                    uri: None,
                }),
                metadata: Some(json!({"pages": 1})),
            },
        ],
        metadata: None,
    }
}

fn task(dialect: Dialect, state: TaskState) -> Task {
    Task {
        id: "t-1".to_string(),
        context_id: Some("c-1".to_string()),
        status: TaskStatus {
            state,
            message: Some(agent_message(dialect)),
            timestamp: Some("2026-11-13T00:00:00.000Z".to_string()),
            unrecognised_state: None,
        },
        history: vec![agent_message(dialect)],
        artifacts: vec![artifact(dialect)],
        metadata: Some(json!({"k": "v"})),
    }
}

fn status_update(dialect: Dialect, state: TaskState) -> TaskStatusUpdateEvent {
    TaskStatusUpdateEvent {
        task_id: "t-1".to_string(),
        context_id: (dialect != Dialect::V0_1).then(|| "c-1".to_string()),
        status: TaskStatus::new(state, Some("2026-11-13T00:00:01.000Z".to_string())),
        is_final: (dialect != Dialect::V1_0).then_some(state.is_interrupted()),
        metadata: None,
    }
}

fn artifact_update(dialect: Dialect) -> TaskArtifactUpdateEvent {
    TaskArtifactUpdateEvent {
        task_id: "t-1".to_string(),
        context_id: (dialect != Dialect::V0_1).then(|| "c-1".to_string()),
        artifact: artifact(dialect),
        append: Some(false),
        last_chunk: Some(true),
        metadata: None,
    }
}

fn card(dialect: Dialect) -> AgentCard {
    let mut interfaces = vec![AgentInterface {
        url: "http://agent:8080/".to_string(),
        protocol_binding: "JSONRPC".to_string(),
        protocol_version: dialect.protocol_version().map(str::to_string),
        tenant: None,
    }];
    if dialect != Dialect::V0_1 {
        interfaces.push(AgentInterface {
            url: "http://agent:8081/".to_string(),
            protocol_binding: "HTTP+JSON".to_string(),
            protocol_version: dialect.protocol_version().map(str::to_string),
            // Only v1.0 interfaces name a tenant.
            tenant: (dialect == Dialect::V1_0).then(|| "acme".to_string()),
        });
    }
    AgentCard {
        name: "travel".to_string(),
        description: Some("books travel".to_string()),
        version: "2.1.0".to_string(),
        interfaces,
        capabilities: AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(false),
            state_transition_history: (dialect != Dialect::V1_0).then_some(true),
            extended_agent_card: (dialect != Dialect::V0_1).then_some(false),
        },
        default_input_modes: vec!["text/plain".to_string()],
        default_output_modes: vec!["text/plain".to_string(), "application/json".to_string()],
        skills: vec![AgentSkill {
            id: "book".to_string(),
            name: "Book".to_string(),
            description: Some("books flights".to_string()),
            tags: vec!["travel".to_string()],
            examples: vec!["book me a flight".to_string()],
            input_modes: vec![],
            output_modes: vec!["application/json".to_string()],
        }],
        security_schemes: if dialect == Dialect::V0_1 {
            vec!["bearer".to_string()]
        } else {
            vec![]
        },
    }
}

fn requests(dialect: Dialect) -> Vec<RpcRequest> {
    let send = SendMessageParams {
        message: user_message(dialect),
        configuration: Some(SendConfiguration {
            accepted_output_modes: if dialect == Dialect::V0_1 {
                vec![]
            } else {
                vec!["text/plain".to_string()]
            },
            history_length: Some(3),
            return_immediately: (dialect != Dialect::V0_1).then_some(false),
        }),
        metadata: Some(json!({"trace": "x"})),
    };
    let mut requests = vec![
        Request::SendMessage(send.clone()),
        Request::SendStreamingMessage(send),
        Request::SubscribeToTask {
            id: "t-1".to_string(),
        },
        Request::GetTask(GetTaskParams {
            id: "t-1".to_string(),
            history_length: Some(2),
        }),
        Request::GetTask(GetTaskParams {
            id: "t-1".to_string(),
            history_length: None,
        }),
        Request::CancelTask {
            id: "t-1".to_string(),
        },
    ];
    if dialect == Dialect::V1_0 {
        requests.push(Request::ListTasks(ListTasksParams {
            context_id: Some("c-1".to_string()),
            status: Some(TaskState::Working),
            page_size: Some(10),
            page_token: Some("p".to_string()),
            history_length: Some(0),
            status_timestamp_after: Some("2026-11-07T00:00:01Z".to_string()),
            include_artifacts: Some(true),
        }));
    }
    requests
        .into_iter()
        .enumerate()
        .map(|(n, request)| RpcRequest {
            id: if n % 2 == 0 {
                RequestId::Number(n as i64)
            } else {
                RequestId::String(format!("r{n}"))
            },
            request,
            // Only v1.0 requests carry a tenant; every other one of them does.
            tenant: (dialect == Dialect::V1_0 && n % 2 == 1).then(|| "acme".to_string()),
        })
        .collect()
}

/// Responses with the method they answer.
fn responses(dialect: Dialect) -> Vec<(Method, RpcResponse)> {
    let id = RequestId::Number(7);
    let ok = |result| RpcResponse {
        id: id.clone(),
        outcome: Ok(result),
    };
    let mut responses = vec![
        (
            Method::SendMessage,
            ok(RpcResult::Task(task(dialect, TaskState::Completed))),
        ),
        (
            Method::GetTask,
            ok(RpcResult::Task(task(dialect, TaskState::InputRequired))),
        ),
        (
            Method::CancelTask,
            ok(RpcResult::Task(task(dialect, TaskState::Canceled))),
        ),
        (
            Method::SendStreamingMessage,
            ok(RpcResult::Event(StreamEvent::StatusUpdate(status_update(
                dialect,
                TaskState::InputRequired,
            )))),
        ),
        (
            Method::SubscribeToTask,
            ok(RpcResult::Event(StreamEvent::ArtifactUpdate(
                artifact_update(dialect),
            ))),
        ),
        (
            Method::GetTask,
            RpcResponse {
                id: RequestId::String("x".to_string()),
                outcome: Err(RpcError {
                    code: ErrorCode::TaskNotFound,
                    message: "Task not found".to_string(),
                    data: match dialect {
                        Dialect::V1_0 => Some(json!([ErrorCode::TaskNotFound.error_info()])),
                        _ => Some(json!({"taskId": "t-9"})),
                    },
                }),
            },
        ),
    ];
    if dialect != Dialect::V0_1 {
        responses.push((
            Method::SendMessage,
            ok(RpcResult::Message(agent_message(dialect))),
        ));
        responses.push((
            Method::SendStreamingMessage,
            ok(RpcResult::Event(StreamEvent::Task(task(
                dialect,
                TaskState::Submitted,
            )))),
        ));
        responses.push((
            Method::SendStreamingMessage,
            ok(RpcResult::Event(StreamEvent::Message(agent_message(
                dialect,
            )))),
        ));
    }
    if dialect == Dialect::V1_0 {
        responses.push((
            Method::ListTasks,
            ok(RpcResult::TaskList(TaskList {
                tasks: vec![task(dialect, TaskState::Working)],
                next_page_token: String::new(),
                page_size: 10,
                total_size: 1,
            })),
        ));
    }
    responses
}

#[test]
fn a_tenant_is_a_field_of_every_v1_0_request_and_a_loss_before_it() {
    let get = RpcRequest {
        id: RequestId::Number(7),
        request: Request::GetTask(GetTaskParams {
            id: "t-1".to_string(),
            history_length: None,
        }),
        tenant: Some("acme".to_string()),
    };
    let encoded = Dialect::V1_0.codec().encode_request(&get).unwrap();
    assert_eq!(
        encoded.value["params"],
        serde_json::json!({"id": "t-1", "tenant": "acme"})
    );
    // An empty tenant is the proto's default: none.
    let mut unset = encoded.value.clone();
    unset["params"]["tenant"] = "".into();
    assert_eq!(
        Dialect::V1_0.codec().decode_request(&unset).unwrap().tenant,
        None
    );
    for dialect in [Dialect::V0_1, Dialect::V0_3] {
        let encoded = dialect.codec().encode_request(&get).unwrap();
        let lost: Vec<&str> = encoded
            .losses
            .iter()
            .map(|loss| loss.field.as_str())
            .collect();
        assert_eq!(lost, ["tenant"], "{dialect}");
        assert_eq!(encoded.value["params"].get("tenant"), None, "{dialect}");
    }
}

#[test]
fn every_request_round_trips_in_every_dialect() {
    for dialect in Dialect::ALL {
        let codec = dialect.codec();
        for request in requests(dialect) {
            let encoded = codec.encode_request(&request).unwrap();
            assert_eq!(encoded.losses, vec![], "{dialect} {request:?}");
            let method = encoded.value["method"].as_str().unwrap();
            assert_eq!(
                codec.method_from_name(method),
                Some(request.request.method())
            );
            assert_eq!(
                codec.decode_request(&encoded.value).unwrap(),
                request,
                "{dialect}"
            );
        }
    }
}

#[test]
fn every_response_round_trips_in_every_dialect_with_and_without_the_method() {
    for dialect in Dialect::ALL {
        let codec = dialect.codec();
        for (method, response) in responses(dialect) {
            let encoded = codec.encode_response_to(method, &response).unwrap();
            assert_eq!(encoded.losses, vec![], "{dialect} {response:?}");
            let decoded = codec.decode_response(&encoded.value, Some(method)).unwrap();
            assert_eq!(decoded, response, "{dialect} {method:?}\n{}", encoded.value);
            // Without the method, only a stream's task or message snapshot reads differently.
            let by_shape = codec.decode_response(&encoded.value, None).unwrap();
            match (&response.outcome, by_shape.outcome) {
                (Ok(RpcResult::Event(StreamEvent::Task(task))), Ok(RpcResult::Task(shaped))) => {
                    assert_eq!(&shaped, task)
                }
                (
                    Ok(RpcResult::Event(StreamEvent::Message(message))),
                    Ok(RpcResult::Message(shaped)),
                ) => {
                    assert_eq!(&shaped, message)
                }
                (expected, shaped) => assert_eq!(&shaped, expected, "{dialect} by shape"),
            }
        }
    }
}

#[test]
fn cards_round_trip_in_every_dialect() {
    for dialect in Dialect::ALL {
        let codec = dialect.codec();
        let encoded = codec.encode_card(&card(dialect)).unwrap();
        assert_eq!(encoded.losses, vec![], "{dialect}");
        assert_eq!(
            codec.decode_card(&encoded.value).unwrap(),
            card(dialect),
            "{dialect}"
        );
    }
}

#[test]
fn wire_spellings_are_each_dialects_own() {
    let event = RpcResponse {
        id: RequestId::Number(1),
        outcome: Ok(RpcResult::Event(StreamEvent::StatusUpdate(status_update(
            Dialect::V0_3,
            TaskState::InputRequired,
        )))),
    };
    let v03 = Dialect::V0_3.codec().encode_response(&event).unwrap().value;
    assert_eq!(v03["result"]["kind"], "status-update");
    assert_eq!(v03["result"]["status"]["state"], "input-required");
    assert_eq!(v03["result"]["final"], true);
    let v10 = Dialect::V1_0.codec().encode_response(&event).unwrap();
    assert_eq!(
        v10.value["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    assert_eq!(
        v10.losses,
        vec![Loss {
            dialect: Dialect::V1_0,
            field: "is_final".to_string()
        }]
    );
    let v01 = Dialect::V0_1.codec().encode_response(&event).unwrap();
    assert_eq!(v01.value["result"]["id"], "t-1");
    assert_eq!(v01.value["result"]["final"], true);
    assert_eq!(
        v01.losses,
        vec![Loss {
            dialect: Dialect::V0_1,
            field: "context_id".to_string()
        }]
    );
    let task = RpcResponse {
        id: RequestId::Null,
        outcome: Ok(RpcResult::Task(task(Dialect::V1_0, TaskState::Working))),
    };
    let v10 = Dialect::V1_0.codec();
    assert_eq!(
        v10.encode_response(&task).unwrap().value["result"]["task"]["id"],
        "t-1"
    );
    assert_eq!(
        v10.encode_response_to(Method::SendMessage, &task)
            .unwrap()
            .value["result"]["task"]["id"],
        "t-1"
    );
    assert_eq!(
        v10.encode_response_to(Method::GetTask, &task)
            .unwrap()
            .value["result"]["id"],
        "t-1"
    );
    assert_eq!(v10.encode_response(&task).unwrap().value["id"], Value::Null);
}

#[test]
fn what_a_dialect_cannot_say_is_an_error_or_a_named_loss() {
    let v01 = Dialect::V0_1.codec();
    for state in [TaskState::Rejected, TaskState::AuthRequired] {
        let response = RpcResponse {
            id: RequestId::Number(1),
            outcome: Ok(RpcResult::Task(task(Dialect::V0_1, state))),
        };
        let error = v01.encode_response(&response).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("v0.1 cannot express task state `{}`", state.name())
        );
    }
    let list = RpcRequest {
        id: RequestId::Number(1),
        request: Request::ListTasks(ListTasksParams::default()),
        tenant: None,
    };
    assert!(v01.encode_request(&list).is_err());
    assert!(Dialect::V0_3.codec().encode_request(&list).is_err());
    let mut no_task_id = user_message(Dialect::V0_1);
    no_task_id.task_id = None;
    let send = RpcRequest {
        id: RequestId::Number(1),
        request: Request::SendMessage(SendMessageParams {
            message: no_task_id,
            configuration: None,
            metadata: None,
        }),
        tenant: None,
    };
    assert!(
        v01.encode_request(&send)
            .unwrap_err()
            .what
            .contains("task id")
    );

    let v10_card = Dialect::V1_0
        .codec()
        .encode_card(&card(Dialect::V0_3))
        .unwrap();
    assert_eq!(
        v10_card.losses,
        vec![Loss {
            dialect: Dialect::V1_0,
            field: "capabilities.state_transition_history".to_string()
        }]
    );
    let v01_card = v01.encode_card(&card(Dialect::V0_3)).unwrap();
    let lost: Vec<&str> = v01_card
        .losses
        .iter()
        .map(|loss| loss.field.as_str())
        .collect();
    assert_eq!(
        lost,
        [
            "interfaces",
            "interfaces.protocol_version",
            "capabilities.extended_agent_card"
        ]
    );

    let mut unfinal = status_update(Dialect::V0_3, TaskState::Working);
    unfinal.is_final = None;
    let response = RpcResponse {
        id: RequestId::Number(1),
        outcome: Ok(RpcResult::Event(StreamEvent::StatusUpdate(unfinal))),
    };
    assert!(
        Dialect::V0_3
            .codec()
            .encode_response(&response)
            .unwrap_err()
            .what
            .contains("final")
    );
}

#[test]
fn v1_errors_without_data_carry_error_info() {
    let response = RpcResponse {
        id: RequestId::Number(3),
        outcome: Err(RpcError::new(ErrorCode::TaskNotCancelable, "no")),
    };
    let encoded = Dialect::V1_0
        .codec()
        .encode_response(&response)
        .unwrap()
        .value;
    assert_eq!(
        encoded["error"],
        json!({"code": -32002, "message": "no", "data": [{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "TASK_NOT_CANCELABLE",
            "domain": "a2a-protocol.org"}]})
    );
    let plain = Dialect::V0_3
        .codec()
        .encode_response(&response)
        .unwrap()
        .value;
    assert_eq!(plain["error"], json!({"code": -32002, "message": "no"}));
}

#[test]
fn decoders_are_tolerant_readers() {
    let v03 = Dialect::V0_3.codec();
    let request = json!({
        "jsonrpc": "2.0", "id": "abc", "method": "tasks/get",
        "params": {"id": "t-1", "historyLength": null, "somethingNew": [1, 2]},
        "extra": true
    });
    let decoded = v03.decode_request(&request).unwrap();
    assert_eq!(decoded.id, RequestId::String("abc".to_string()));
    assert_eq!(
        decoded.request,
        Request::GetTask(GetTaskParams {
            id: "t-1".to_string(),
            history_length: None
        })
    );

    let v10 = Dialect::V1_0.codec();
    let snake = json!({
        "jsonrpc": "2.0", "id": 9, "method": "SendMessage",
        "params": {"message": {"message_id": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}], "task_id": "t"},
                   "configuration": {"history_length": "4", "return_immediately": true}}
    });
    let Request::SendMessage(params) = v10.decode_request(&snake).unwrap().request else {
        panic!("not a send")
    };
    assert_eq!(params.message.message_id.as_deref(), Some("m"));
    assert_eq!(params.message.task_id.as_deref(), Some("t"));
    assert_eq!(params.configuration.unwrap().history_length, Some(4));

    let spec_example = json!({"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": {"taskId": "task-uuid", "status": {"state": "TASK_STATE_COMPLETED"}}}});
    let decoded = v10.decode_response(&spec_example, None).unwrap();
    assert_eq!(
        decoded.outcome.unwrap(),
        RpcResult::Event(StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "task-uuid".to_string(),
            context_id: None,
            status: TaskStatus::new(TaskState::Completed, None),
            is_final: None,
            metadata: None,
        }))
    );
}

#[test]
fn decode_errors_name_the_dialect_and_the_field() {
    let cases = [
        (
            Dialect::V0_3,
            json!({"id": 1, "method": "message/send", "params": {"message": {"kind": "message", "role": "user", "parts": [{"kind": "text"}], "messageId": "m"}}}),
            "params.message.parts[0].text",
        ),
        (
            Dialect::V0_3,
            json!({"id": 1, "method": "message/send", "params": {"message": {"role": "user", "parts": []}}}),
            "params.message.messageId",
        ),
        (
            Dialect::V0_1,
            json!({"id": 1, "method": "tasks/send", "params": {"message": {"role": "user", "parts": []}}}),
            "params.id",
        ),
        (
            Dialect::V1_0,
            json!({"id": 1, "method": "tasks/send", "params": {}}),
            "method",
        ),
        (
            Dialect::V1_0,
            json!({"id": 1.5, "method": "GetTask", "params": {"id": "t"}}),
            "id",
        ),
        (Dialect::V1_0, json!("text"), "(document)"),
    ];
    for (dialect, json, field) in cases {
        let error = dialect.codec().decode_request(&json).unwrap_err();
        assert_eq!(
            (error.dialect, error.field.as_str()),
            (dialect, field),
            "{error}"
        );
    }
    let bad_state = json!({"id": 1, "result": {"kind": "task", "id": "t", "contextId": "c", "status": {"state": "rejected"}}});
    assert!(
        Dialect::V0_3
            .codec()
            .decode_response(&bad_state, None)
            .is_ok()
    );
    // A state v0.1 does not define reads as unknown (see `unrecognised`); a state that is
    // not a string at all is still refused.
    let v01_rejected = json!({"id": 1, "result": {"id": "t", "status": {"state": "rejected"}}});
    let response = Dialect::V0_1
        .codec()
        .decode_response(&v01_rejected, None)
        .unwrap();
    assert!(
        matches!(&response.outcome, Ok(RpcResult::Task(task)) if task.status.state == TaskState::Unknown),
        "{response:?}"
    );
    let v01_bad = json!({"id": 1, "result": {"id": "t", "status": {"state": 7}}});
    let error = Dialect::V0_1
        .codec()
        .decode_response(&v01_bad, None)
        .unwrap_err();
    assert_eq!(error.field, "result.status.state");
    let error = Dialect::V1_0
        .codec()
        .decode_request(&json!({"id": 1, "method": "Nope"}))
        .unwrap_err();
    assert_eq!(error.to_rpc_error().code, ErrorCode::MethodNotFound);
}

#[test]
fn an_id_beyond_64_bits_is_named_out_of_range_and_a_fraction_not_an_integer() {
    let codec = Dialect::V1_0.codec();
    let with_id = |id: &str| {
        let text =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"GetTask","params":{{"id":"t"}}}}"#);
        codec
            .decode_request(&serde_json::from_str(&text).unwrap())
            .unwrap_err()
            .to_string()
    };
    let huge = with_id("18446744073709551615");
    assert!(huge.contains("out of range"), "{huge}");
    let fraction = with_id("1.5");
    assert!(fraction.contains("expected an integer id"), "{fraction}");
    let beyond_a_double = with_id("1e300");
    assert!(
        beyond_a_double.contains("expected an integer id"),
        "{beyond_a_double}"
    );
}

#[test]
fn an_integer_id_written_with_an_exponent_or_a_zero_fraction_is_that_integer() {
    let codec = Dialect::V1_0.codec();
    for (written, id) in [("1e3", 1000), ("7.0", 7), ("-2E1", -20)] {
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":{written},"method":"GetTask","params":{{"id":"t"}}}}"#
        );
        let request = codec
            .decode_request(&serde_json::from_str(&text).unwrap())
            .unwrap();
        assert_eq!(request.id, RequestId::Number(id), "{written}");
    }
}
