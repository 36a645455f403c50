//! The bytes every built-in personality serves, method by method, are the official shape of
//! that method's response: v1.0 against the proto's return message of each rpc
//! (`GetTask` and `CancelTask` return a bare `Task`, `SendMessage` a `SendMessageResponse`,
//! streams `StreamResponse`, `ListTasks` a `ListTasksResponse`), v0.1 and v0.3 against the
//! official JSON Schema definition of each method's response. A lifecycle drives every
//! method: a streamed first turn with a subscriber beside it, a follow-up, get, list, cancel
//! of the finished task and of a waiting one, and a get of an unknown task.

use crate::support::{Answer, Client, EventReader, Target};
use crate::{proto, spec};
use meshsim_protocol::clock::Clock;
use meshsim_protocol::{Dialect, ListTasksParams, Method, Request, RpcResult};
use meshsim_runtimes::{BUILTIN_NAMES, Runtime, builtin};
use serde_json::Value;
use std::time::Duration;

/// One served answer: the method called and the JSON document (a body or an SSE payload).
type Served = (Method, Value);

/// Reads a stream until it closes, or for at most a minute of (paused, simulated) time when
/// the personality keeps it open.
async fn drain(reader: &mut EventReader) {
    let bound = Duration::from_secs(60);
    while let Ok(Ok(Some(_))) = meshsim_time::timeout(bound, reader.next_or_broken()).await {}
}

fn record(served: &mut Vec<Served>, method: Method, answer: Answer) -> Option<RpcResult> {
    match answer {
        Answer::Json { response, body } => {
            served.push((method, body));
            response.outcome.ok()
        }
        Answer::Stream(_) => panic!("{method:?} answered a stream"),
    }
}

/// v0.1 clients name their tasks; later dialects leave it to the agent.
fn new_task_id(dialect: Dialect, n: u32) -> Option<String> {
    (dialect == Dialect::V0_1).then(|| format!("task-{n}"))
}

/// Drives one lifecycle through every method the dialect has and returns what was served.
async fn lifecycle(personality: &str, dialect: Dialect) -> Vec<Served> {
    let runtime = Runtime::new(
        builtin(personality).unwrap(),
        dialect,
        Clock::fixed(Duration::ZERO),
        7,
    );
    let client = Client::new(Target::Router(runtime.router()), dialect);
    let mut served = Vec::new();

    let first = client.message("plan a trip", new_task_id(dialect, 1).as_deref());
    let mut creator = client.send_streaming(first).await.stream();
    let id = creator.next_event().await.task_id().unwrap().to_string();
    let subscriber = client.resubscribe(&id).await;
    drain(&mut creator).await;
    served.extend(
        creator
            .payloads
            .into_iter()
            .map(|payload| (Method::SendStreamingMessage, payload)),
    );
    match subscriber {
        Answer::Stream(mut reader) => {
            drain(&mut reader).await;
            let payloads = reader.payloads.into_iter();
            served.extend(payloads.map(|payload| (Method::SubscribeToTask, payload)));
        }
        Answer::Json { body, .. } => served.push((Method::SubscribeToTask, body)),
    }

    let follow_up = client.send(client.message("yes", Some(&id))).await;
    record(&mut served, Method::SendMessage, follow_up);
    record(&mut served, Method::GetTask, client.get(&id).await);
    if dialect == Dialect::V1_0 {
        let list = client.call(Request::ListTasks(ListTasksParams::default()));
        record(&mut served, Method::ListTasks, list.await);
    }
    record(&mut served, Method::CancelTask, client.cancel(&id).await);

    let second = client.message("book a table", new_task_id(dialect, 2).as_deref());
    let waiting = match record(&mut served, Method::SendMessage, client.send(second).await) {
        Some(RpcResult::Task(task)) => task.id,
        other => panic!("{personality} {dialect}: the second send answered {other:?}"),
    };
    record(
        &mut served,
        Method::CancelTask,
        client.cancel(&waiting).await,
    );
    record(
        &mut served,
        Method::GetTask,
        client.get("no-such-task").await,
    );
    served
}

/// The v1.0 proto message each method returns (the `rpc` lines of `a2a-v1.0.1.proto`).
fn v1_return_message(method: Method) -> &'static str {
    match method {
        Method::SendMessage => "SendMessageResponse",
        Method::SendStreamingMessage | Method::SubscribeToTask => "StreamResponse",
        Method::GetTask | Method::CancelTask => "Task",
        Method::ListTasks => "ListTasksResponse",
    }
}

/// The JSON Schema definition of each method's response in v0.1 and v0.3.
fn schema_response(dialect: Dialect, method: Method) -> &'static str {
    match (dialect, method) {
        (Dialect::V0_1, Method::SendMessage) => "SendTaskResponse",
        (Dialect::V0_1, Method::SendStreamingMessage | Method::SubscribeToTask) => {
            "SendTaskStreamingResponse"
        }
        (Dialect::V0_3, Method::SendMessage) => "SendMessageResponse",
        (Dialect::V0_3, Method::SendStreamingMessage | Method::SubscribeToTask) => {
            "SendStreamingMessageResponse"
        }
        (_, Method::GetTask) => "GetTaskResponse",
        (_, Method::CancelTask) => "CancelTaskResponse",
        (dialect, method) => panic!("{dialect} has no {method:?}"),
    }
}

/// Every problem of every personality's served answers in `dialect`, one line each.
async fn problems(dialect: Dialect) -> Vec<String> {
    let mut problems = Vec::new();
    let proto = proto::Proto::parse(&spec::spec_text("a2a-v1.0.1.proto"));
    let schema = match dialect {
        Dialect::V0_1 => Some((spec::spec_json("a2a-v0.1.0.schema.json"), "$defs")),
        Dialect::V0_3 => Some((spec::spec_json("a2a-v0.3.0.schema.json"), "definitions")),
        Dialect::V1_0 => None,
    };
    for personality in BUILTIN_NAMES {
        let served = lifecycle(personality, dialect).await;
        let methods: std::collections::BTreeSet<Method> =
            served.iter().map(|(method, _)| *method).collect();
        let expected = Method::ALL
            .into_iter()
            .filter(|method| dialect.codec().method_name(*method).is_some());
        for method in expected.filter(|method| !methods.contains(method)) {
            problems.push(format!(
                "{personality} {dialect}: nothing served for {method:?}"
            ));
        }
        for (method, document) in &served {
            let found = match &schema {
                None => proto::response_problems(&proto, v1_return_message(*method), document),
                Some((schema, definitions)) => {
                    let name = schema_response(dialect, *method);
                    let validator = spec::schema_validator(schema, definitions, name);
                    validator
                        .iter_errors(document)
                        .map(|error| format!("{name}: {error} at {}", error.instance_path))
                        .collect()
                }
            };
            problems.extend(
                found
                    .into_iter()
                    .map(|problem| format!("{personality} {dialect} {method:?}: {problem}")),
            );
        }
    }
    problems
}

#[tokio::test(start_paused = true)]
async fn v1_0_answers_are_each_methods_proto_message() {
    let problems = problems(Dialect::V1_0).await;
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[tokio::test(start_paused = true)]
async fn v0_3_answers_satisfy_each_methods_response_schema() {
    let problems = problems(Dialect::V0_3).await;
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[tokio::test(start_paused = true)]
async fn v0_1_answers_satisfy_each_methods_response_schema() {
    let problems = problems(Dialect::V0_1).await;
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The checker this file relies on tells the two v1.0 task shapes apart: the wrapped form
/// `SendMessage` answers is not a `Task`, the bare form is.
#[test]
fn the_proto_check_refuses_a_wrapped_task_where_a_bare_one_is_due() {
    let proto = proto::Proto::parse(&spec::spec_text("a2a-v1.0.1.proto"));
    let task = serde_json::json!({"id": "t", "status": {"state": "TASK_STATE_COMPLETED"}});
    let bare = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": task});
    let wrapped = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"task": task}});
    assert_eq!(
        proto::response_problems(&proto, "Task", &bare),
        Vec::<String>::new()
    );
    assert_eq!(
        proto::response_problems(&proto, "Task", &wrapped),
        ["result.task: Task has no field `task`"]
    );
    assert!(proto::response_problems(&proto, "SendMessageResponse", &wrapped).is_empty());
}
