//! The A2A client against a real SDK: the origin incident's script played call by call, every event
//! and error the SDK sends decoded and checked, and the reconciling consumer completing a
//! task through `input-required` with a follow-up.

use super::Sdk;
use meshsim_consumer::{
    A2aClient, ClientConfig, ClientError, Consumer, Deadlines, EventStream, Job, Outcome,
    ReconcilingConfig, ReconcilingConsumer, TcpConnector,
};
use meshsim_protocol::{
    Dialect, ErrorCode, Message, Method, Role, RpcError, StreamEvent, Task, TaskState,
};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// What the agents are asked, and answer.
pub const REQUEST: &str = "Summarise the attached report";
pub const ANSWER: &str = "Plain text, please";
/// The agents' question at `input-required` (interop/python/agent.py, interop/js/agent.mjs).
pub const QUESTION: &str = "Which format should the summary use?";

/// The artifact the agents produce for `answer`.
pub fn summary(answer: &str) -> String {
    format!("Summary (format: {answer})")
}

const CONFIG: ClientConfig = ClientConfig {
    request_timeout: Duration::from_secs(10),
    idle_timeout: Duration::from_secs(10),
    max_body_bytes: 1 << 20,
    max_event_bytes: 1 << 20,
};

fn connector() -> TcpConnector {
    TcpConnector::new(Duration::from_secs(5))
}

/// What a stream carried: one short label per event, for assertions that show the whole
/// sequence when they fail.
fn label(event: &StreamEvent) -> String {
    match event {
        StreamEvent::Task(task) => format!("task({})", task.status.state),
        StreamEvent::StatusUpdate(update) => format!("status({})", update.status.state),
        StreamEvent::ArtifactUpdate(update) => {
            format!(
                "artifact({})",
                meshsim_consumer::artifact_text(&update.artifact)
            )
        }
        StreamEvent::Message(message) => format!("message({})", message.text_content()),
    }
}

/// Reads a stream to its end; every event must decode.
async fn read_all(what: &str, mut stream: EventStream) -> Vec<StreamEvent> {
    let mut events = Vec::new();
    while let Some(next) = stream.next().await {
        match next {
            Ok(event) => events.push(event),
            Err(error) => panic!(
                "{what}: event {} did not decode: {error}; before it: {:?}",
                events.len() + 1,
                events.iter().map(label).collect::<Vec<_>>()
            ),
        }
    }
    events
}

/// The error a call must have failed with.
fn rpc_error<T: std::fmt::Debug>(what: &str, result: Result<T, ClientError>) -> RpcError {
    match result {
        Err(ClientError::Rpc(error)) => error,
        other => panic!("{what}: expected a JSON-RPC error, got {other:?}"),
    }
}

/// The error a streaming call must have failed with: as a plain JSON answer, or as the
/// stream's first event (a2a-js's v0.3 layer opens the SSE stream of `tasks/resubscribe`
/// before it knows the outcome).
async fn stream_error(what: &str, result: Result<EventStream, ClientError>) -> RpcError {
    match result {
        Ok(mut stream) => match stream.next().await {
            Some(Err(ClientError::Rpc(error))) => error,
            other => {
                panic!("{what}: expected a JSON-RPC error, got a stream opening with {other:?}")
            }
        },
        Err(error) => rpc_error(what, Err::<(), _>(error)),
    }
}

/// The `reason`s of the `google.rpc.ErrorInfo` details of a v1.0 error.
pub fn reasons(error: &RpcError) -> Vec<String> {
    error
        .data
        .as_ref()
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|detail| detail.get("reason").and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

/// Plays the origin incident's script against the agent at `base` in `dialect` with the A2A client and
/// checks every event and error the SDK sends.
pub async fn play_script(sdk: Sdk, base: &str, dialect: Dialect) {
    let at = format!("{} agent at {base} ({dialect})", sdk.name());
    let client = A2aClient::discover(connector(), base, CONFIG)
        .await
        .unwrap_or_else(|error| panic!("{at}: Card: {error}"));
    assert_eq!(client.dialect(), dialect, "{at}: the Card's dialect");
    assert_eq!(client.card().capabilities.streaming, Some(true), "{at}");

    // A new task: the Task in `submitted`, `working`, then the question; the stream closes.
    let first = Message::text(Role::User, Some(format!("interop-{dialect}-1")), REQUEST);
    let stream = client.stream_message(first).await.unwrap_or_else(|error| {
        panic!("{at}: streaming send: {error}");
    });
    let events = read_all(&format!("{at}: first turn"), stream).await;
    let labels: Vec<String> = events.iter().map(label).collect();
    assert_eq!(
        labels,
        [
            "task(submitted)",
            "status(working)",
            "status(input-required)"
        ],
        "{at}: first turn"
    );
    let StreamEvent::Task(task) = &events[0] else {
        unreachable!()
    };
    assert!(
        task.history.iter().any(|m| m.text_content() == REQUEST),
        "{at}: the Task's history holds the request: {task:?}"
    );
    assert_eq!(
        meshsim_consumer::status_text(&events[2]).as_deref(),
        Some(QUESTION),
        "{at}: the question travels in the input-required status"
    );
    let task_id = task.id.clone();
    let context_id = task.context_id.clone();

    // Resubscribe at input-required: the Task snapshot first.
    let mut resubscribed = client
        .subscribe(&task_id)
        .await
        .unwrap_or_else(|error| panic!("{at}: resubscribe: {error}"));
    match resubscribed.next().await {
        Some(Ok(StreamEvent::Task(snapshot))) => {
            assert_eq!(snapshot.status.state, TaskState::InputRequired, "{at}");
        }
        other => panic!("{at}: resubscribe opened with {other:?}"),
    }
    drop(resubscribed);

    // The answer, under the same task: working, the artifact, completed; the stream closes.
    let mut answer = Message::text(Role::User, Some(format!("interop-{dialect}-2")), ANSWER);
    answer.task_id = Some(task_id.clone());
    answer.context_id = context_id;
    let stream = client
        .stream_message(answer)
        .await
        .unwrap_or_else(|error| panic!("{at}: follow-up: {error}"));
    let events = read_all(&format!("{at}: follow-up"), stream).await;
    let artifact = format!("artifact({})", summary(ANSWER));
    let mut expected = vec!["status(working)", artifact.as_str(), "status(completed)"];
    if sdk == Sdk::Js {
        // a2a-js opens every turn with the Task, still in input-required.
        expected.insert(0, "task(input-required)");
    }
    let labels: Vec<String> = events.iter().map(label).collect();
    assert_eq!(labels, expected, "{at}: follow-up turn");
    assert!(
        events
            .iter()
            .all(|event| event.task_id() == Some(task_id.as_str())),
        "{at}: the follow-up continued the same task"
    );

    // The finished task, then the errors the SDK sends.
    let done: Task = client
        .get_task(&task_id)
        .await
        .unwrap_or_else(|error| panic!("{at}: get: {error}"));
    assert_eq!(done.status.state, TaskState::Completed, "{at}");
    assert_eq!(
        done.artifacts
            .iter()
            .map(meshsim_consumer::artifact_text)
            .collect::<Vec<_>>(),
        [summary(ANSWER)],
        "{at}: the stored artifact"
    );
    check_errors(&at, &client, &task_id, dialect).await;
}

/// The SDK's errors, decoded: unknown task, cancel / subscribe / send to a finished task.
async fn check_errors(at: &str, client: &A2aClient<TcpConnector>, done: &str, dialect: Dialect) {
    let unknown = rpc_error(
        &format!("{at}: get of an unknown task"),
        client.get_task("interop-no-such-task").await,
    );
    assert_eq!(unknown.code, ErrorCode::TaskNotFound, "{at}: {unknown:?}");
    if dialect == Dialect::V1_0 {
        assert_eq!(reasons(&unknown), ["TASK_NOT_FOUND"], "{at}: {unknown:?}");
    }
    let cancel = rpc_error(
        &format!("{at}: cancel of a completed task"),
        client.cancel_task(done).await,
    );
    assert_eq!(
        cancel.code,
        ErrorCode::TaskNotCancelable,
        "{at}: {cancel:?}"
    );
    let subscribe = stream_error(
        &format!("{at}: subscribe to a completed task"),
        client.subscribe(done).await,
    )
    .await;
    assert_eq!(
        subscribe.code,
        ErrorCode::UnsupportedOperation,
        "{at}: {subscribe:?}"
    );
    let mut late = Message::text(Role::User, Some(format!("interop-{dialect}-3")), ANSWER);
    late.task_id = Some(done.to_string());
    let send = stream_error(
        &format!("{at}: message to a completed task"),
        client.stream_message(late).await,
    )
    .await;
    assert_eq!(send.code, ErrorCode::UnsupportedOperation, "{at}: {send:?}");
}

/// POSTs `body` to `base` over HTTP/1.0 with `headers` and decodes the answer as a
/// `method` response of `dialect`; the error it must be.
pub fn raw_error(
    base: &str,
    headers: &[(&str, &str)],
    body: &Value,
    dialect: Dialect,
    method: Method,
) -> RpcError {
    let json = raw_post(base, headers, body);
    let response = dialect
        .codec()
        .decode_response(&json, Some(method))
        .unwrap_or_else(|error| panic!("{dialect} does not decode {json}: {error}"));
    match response.outcome {
        Err(error) => error,
        Ok(result) => panic!("expected an error, got {result:?}"),
    }
}

/// POSTs `body` to `base` over HTTP/1.0 with `headers`; the JSON answer as served.
pub fn raw_post(base: &str, headers: &[(&str, &str)], body: &Value) -> Value {
    let authority = base.trim_start_matches("http://");
    let body = body.to_string();
    let mut request = format!(
        "POST / HTTP/1.0\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = TcpStream::connect(authority).expect("the agent accepts a connection");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("the agent answers");
    let answer = String::from_utf8_lossy(&answer);
    let (head, body) = answer
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("not an HTTP answer: {answer}"));
    assert!(head.contains(" 200 "), "errors travel as HTTP 200: {head}");
    serde_json::from_str(body).unwrap_or_else(|error| {
        panic!("the answer is not JSON ({error}): {body}");
    })
}

/// The reconciling consumer runs the origin incident's job against the agent at `base`: it completes
/// through `input-required` with one follow-up on the same task, nothing re-dispatched.
pub async fn reconciling_completes(sdk: Sdk, base: &str) {
    let at = format!(
        "reconciling consumer against the {} agent at {base}",
        sdk.name()
    );
    let config = ReconcilingConfig {
        client: CONFIG,
        ..ReconcilingConfig::default()
    };
    let consumer = ReconcilingConsumer::new(connector(), config, 7);
    let job = Job {
        name: format!("interop-{}", sdk.name()),
        peer: base.to_string(),
        request: REQUEST.to_string(),
        answer: ANSWER.to_string(),
        deadlines: Deadlines {
            submitted: Duration::from_secs(10),
            working: Duration::from_secs(20),
            job: Duration::from_secs(60),
        },
        cancel_at_input_required: false,
    };
    let report = consumer.run(job).await;
    let Outcome::Completed { task_id, artifact } = &report.outcome else {
        panic!("{at}: outcome {:?}\n{report:#?}", report.outcome);
    };
    assert_eq!(artifact, &summary(ANSWER), "{at}");
    assert_eq!(
        report.tasks.len(),
        1,
        "{at}: one task, none re-dispatched\n{report:#?}"
    );
    let view = report
        .task(task_id)
        .expect("the completed task is reported");
    assert_eq!(view.final_state, Some(TaskState::Completed), "{at}");
    let applied: Vec<TaskState> = view.applied.iter().map(|event| event.to).collect();
    let asked = applied
        .iter()
        .position(|state| *state == TaskState::InputRequired);
    let resumed = applied
        .iter()
        .rposition(|state| *state == TaskState::Working);
    assert!(
        matches!((asked, resumed), (Some(asked), Some(resumed)) if asked < resumed),
        "{at}: applied {applied:?}: input-required, then working again, then completed"
    );
    assert_eq!(applied.last(), Some(&TaskState::Completed), "{at}");
}
