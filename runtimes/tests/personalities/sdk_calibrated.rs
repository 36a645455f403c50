//! The SDK-calibrated personalities reproduce what docs/real-runtimes.md reports of the real
//! runtimes. Each test quotes the rows it reproduces. In process, on tokio's paused clock.

use crate::support::{Client, EventReader, Target, asserted_states};
use TaskState::*;
use meshsim_protocol::clock::Clock;
use meshsim_protocol::{Dialect, ErrorCode, Role, RpcResult, StreamEvent, TaskState};
use meshsim_runtimes::{GroundTruth, Runtime, builtin};
use std::time::Duration;

fn runtime(name: &str, dialect: Dialect) -> (Client, GroundTruth) {
    let runtime = Runtime::new(
        builtin(name).unwrap(),
        dialect,
        Clock::fixed(Duration::ZERO),
        42,
    );
    let truth = runtime.truth();
    (
        Client::new(Target::Router(runtime.router()), dialect),
        truth,
    )
}

/// Starts a streamed task and reads its first stream to its end; the task id and events.
async fn first_turn(client: &Client) -> (String, Vec<StreamEvent>) {
    let events = client
        .send_streaming(client.message("plan a trip", None))
        .await
        .stream()
        .rest()
        .await;
    (events[0].task_id().unwrap().to_string(), events)
}

/// Reads `count` events of an open stream.
async fn take(reader: &mut EventReader, count: usize) -> Vec<StreamEvent> {
    let mut events = Vec::new();
    for _ in 0..count {
        events.push(reader.next_event().await);
    }
    events
}

// ---- a2a-sdk (Python) 1.3.0 ------------------------------------------------------------

/// "Card only at `/.well-known/agent-card.json` (agent.json -> 404); v1.0 card with
/// `supportedInterfaces[{url, protocolBinding: "JSONRPC", protocolVersion: "1.0"}]`."
#[tokio::test(start_paused = true)]
async fn python_card_only_at_agent_card_json() {
    let (client, _) = runtime("a2a-python-1.3", Dialect::V1_0);
    assert_eq!(client.get_status("/.well-known/agent.json").await, 404);
    let card = client.card().await;
    let interface = &card.interfaces[0];
    assert_eq!(interface.protocol_binding, "JSONRPC");
    assert_eq!(interface.protocol_version.as_deref(), Some("1.0"));
    assert_eq!(interface.url, "http://agent.test/");
}

/// "v1.0 methods need `A2A-Version: 1.0` (missing header means 0.3 -> -32009 with ErrorInfo
/// `VERSION_NOT_SUPPORTED`); only the major version is compared. ... `tasks/send`,
/// `tasks/sendSubscribe` -> -32601. Batches -> -32600. All errors travel as HTTP 200."
#[tokio::test(start_paused = true)]
async fn python_version_header_methods_and_batches() {
    let (client, _) = runtime("a2a-python-1.3", Dialect::V1_0);
    let get = r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"nope"}}"#;
    let missing = client.post_json(get, None).await.outcome.unwrap_err();
    assert_eq!(missing.code, ErrorCode::VersionNotSupported);
    let reason = &missing.data.unwrap()[0]["reason"];
    assert_eq!(reason, "VERSION_NOT_SUPPORTED");
    // Same major version: accepted (and the task is unknown).
    let minor = client
        .post_json(get, Some("1.1"))
        .await
        .outcome
        .unwrap_err();
    assert_eq!(minor.code, ErrorCode::TaskNotFound);
    for old in ["tasks/send", "tasks/sendSubscribe"] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"{old}","params":{{}}}}"#);
        let error = client
            .post_json(&body, Some("1.0"))
            .await
            .outcome
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::MethodNotFound, "{old}");
    }
    let batch = client
        .post_json(&format!("[{get}]"), Some("1.0"))
        .await
        .outcome
        .unwrap_err();
    assert_eq!(batch.code, ErrorCode::InvalidRequest);
    let garbage = client
        .post_json("{not json", Some("1.0"))
        .await
        .outcome
        .unwrap_err();
    assert_eq!(garbage.code, ErrorCode::ParseError);
}

/// "New streamed task: `{task}` (SUBMITTED, history=[user msg]), `{statusUpdate}` WORKING,
/// `{statusUpdate}` INPUT_REQUIRED with the question in `status.message`; then the server
/// CLOSES the stream."
#[tokio::test(start_paused = true)]
async fn python_new_streamed_task() {
    let (client, _) = runtime("a2a-python-1.3", Dialect::V1_0);
    let (_, events) = first_turn(&client).await;
    let StreamEvent::Task(snapshot) = &events[0] else {
        panic!("a Task snapshot first")
    };
    assert_eq!(snapshot.status.state, Submitted);
    assert_eq!(snapshot.history.len(), 1);
    assert_eq!(snapshot.history[0].role, Role::User);
    assert_eq!(
        asserted_states(&events),
        [Submitted, Working, InputRequired]
    );
    let StreamEvent::StatusUpdate(last) = &events[2] else {
        panic!("status updates follow")
    };
    assert!(
        last.status.message.is_some(),
        "the question is in status.message"
    );
}

/// "SubscribeToTask at input-required: a stream whose first event is the Task snapshot, no
/// replay, stays OPEN (comment pings `: ping - <ts>` every 15 s). During a follow-up sent
/// elsewhere, the subscriber gets WORKING, artifact, COMPLETED, then close."
/// "Follow-up with same taskId: resumes in place: WORKING, artifactUpdate, COMPLETED, close;
/// no second submitted, no snapshot. taskId without contextId works."
#[tokio::test(start_paused = true)]
async fn python_subscribe_stays_open_with_pings_and_follow_up_resumes() {
    let (client, truth) = runtime("a2a-python-1.3", Dialect::V1_0);
    let (id, _) = first_turn(&client).await;
    let mut subscriber = client.resubscribe(&id).await.stream();
    let snapshot = subscriber.next_event().await;
    assert!(matches!(&snapshot, StreamEvent::Task(task) if task.status.state == InputRequired));
    // Nothing happens for 16 s: the stream stays open and pings.
    let quiet = meshsim_time::timeout(Duration::from_secs(16), subscriber.next()).await;
    assert!(quiet.is_err(), "no event while the task waits");
    assert!(subscriber.comments_seen, "a keep-alive comment within 15 s");
    // The follow-up (taskId, no contextId) resumes in place on its own stream...
    let follow_up = client.message("by train", Some(&id));
    assert!(follow_up.message.context_id.is_none());
    let own = client.send_streaming(follow_up).await.stream().rest().await;
    let kinds: Vec<_> = own
        .iter()
        .map(|event| {
            (
                event.state(),
                matches!(event, StreamEvent::ArtifactUpdate(_)),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            (Some(Working), false),
            (None, true),
            (Some(Completed), false)
        ]
    );
    // ...and the subscriber sees the same, then the close.
    let seen = subscriber.rest().await;
    assert_eq!(seen, own);
    assert_eq!(
        truth.task(&id).unwrap().states(),
        [Submitted, Working, InputRequired, Working, Completed]
    );
}

/// "Follow-up while the first turn still works is queued; the second stream also sees turn
/// 1's INPUT_REQUIRED."
#[tokio::test(start_paused = true)]
async fn python_follow_up_while_working_is_queued() {
    let (client, truth) = runtime("a2a-python-1.3", Dialect::V1_0);
    let mut first = client
        .send_streaming(client.message("plan", None))
        .await
        .stream();
    let id = first.next_event().await.task_id().unwrap().to_string();
    // The answer arrives before the question was asked.
    let early = client.message("by train", Some(&id));
    let second = client.send_streaming(early).await.stream().rest().await;
    assert_eq!(
        asserted_states(&second),
        [Working, InputRequired],
        "{second:?}"
    );
    assert_eq!(
        asserted_states(&first.rest().await),
        [Working, InputRequired]
    );
    // The queued answer then resumes the task with nobody watching.
    meshsim_time::sleep(Duration::from_secs(5)).await;
    let done = client.get(&id).await.task();
    assert_eq!(done.status.state, Completed);
    assert_eq!(
        truth.task(&id).unwrap().states(),
        [Submitted, Working, InputRequired, Working, Completed]
    );
    // The spec-correct default refuses instead.
    let (strict, _) = runtime("python-correct", Dialect::V1_0);
    let mut stream = strict
        .send_streaming(strict.message("plan", None))
        .await
        .stream();
    let busy = stream.next_event().await.task_id().unwrap().to_string();
    let refused = strict
        .send(strict.message("early", Some(&busy)))
        .await
        .error();
    assert_eq!(refused.code, ErrorCode::UnsupportedOperation);
}

/// "wrong contextId -> -32602."
#[tokio::test(start_paused = true)]
async fn python_wrong_context_is_invalid_params() {
    let (client, _) = runtime("a2a-python-1.3", Dialect::V1_0);
    let (id, _) = first_turn(&client).await;
    let mut follow_up = client.message("by train", Some(&id));
    follow_up.message.context_id = Some("another-context".to_string());
    assert_eq!(
        client.send(follow_up).await.error().code,
        ErrorCode::InvalidParams
    );
}

/// "Terminal task: SubscribeToTask and SendMessage -> -32004 "...in terminal state" as plain
/// JSON (not SSE). GetTask keeps full history; `historyLength` n keeps the last n; -1 ->
/// -32602."
#[tokio::test(start_paused = true)]
async fn python_terminal_task_errors_and_history() {
    let (client, _) = runtime("a2a-python-1.3", Dialect::V1_0);
    let (id, _) = first_turn(&client).await;
    let done = client
        .send(client.message("by train", Some(&id)))
        .await
        .task();
    assert_eq!(done.status.state, Completed);
    let subscribe = client.resubscribe(&id).await.error();
    assert_eq!(subscribe.code, ErrorCode::UnsupportedOperation);
    assert!(
        subscribe.message.contains("terminal state"),
        "{}",
        subscribe.message
    );
    let send = client
        .send(client.message("again", Some(&id)))
        .await
        .error();
    assert_eq!(send.code, ErrorCode::UnsupportedOperation);
    let full = client.get(&id).await.task();
    assert_eq!(full.history.len(), 3, "question and both user messages");
    let params = |length| meshsim_protocol::GetTaskParams {
        id: id.clone(),
        history_length: Some(length),
    };
    let last_one = client
        .call(meshsim_protocol::Request::GetTask(params(1)))
        .await
        .task();
    assert_eq!(last_one.history, full.history[2..]);
    let negative = client
        .call(meshsim_protocol::Request::GetTask(params(-1)))
        .await
        .error();
    assert_eq!(negative.code, ErrorCode::InvalidParams);
}

/// "Unknown id (Get/Cancel/Subscribe) -> -32001. Cancel while working -> task CANCELED, open
/// stream gets CANCELED and closes; second cancel -> -32002. Cancel at input-required ->
/// CANCELED."
#[tokio::test(start_paused = true)]
async fn python_cancel_and_unknown_ids() {
    let (client, truth) = runtime("a2a-python-1.3", Dialect::V1_0);
    assert_eq!(
        client.get("ghost").await.error().code,
        ErrorCode::TaskNotFound
    );
    assert_eq!(
        client.cancel("ghost").await.error().code,
        ErrorCode::TaskNotFound
    );
    assert_eq!(
        client.resubscribe("ghost").await.error().code,
        ErrorCode::TaskNotFound
    );

    let mut stream = client
        .send_streaming(client.message("#long job", None))
        .await
        .stream();
    let opened = take(&mut stream, 2).await;
    assert_eq!(asserted_states(&opened), [Submitted, Working]);
    let id = opened[0].task_id().unwrap().to_string();
    assert_eq!(client.cancel(&id).await.task().status.state, Canceled);
    let rest = stream.rest().await;
    assert_eq!(rest.last().and_then(StreamEvent::state), Some(Canceled));
    assert_eq!(
        client.cancel(&id).await.error().code,
        ErrorCode::TaskNotCancelable
    );
    // The executor stopped: no later transition.
    meshsim_time::sleep(Duration::from_secs(60)).await;
    assert_eq!(
        truth.task(&id).unwrap().states(),
        [Submitted, Working, Canceled]
    );

    let (waiting, _) = first_turn(&client).await;
    assert_eq!(client.cancel(&waiting).await.task().status.state, Canceled);
}

/// "Client disconnect mid-stream: the task keeps running to completion. Input-required
/// tasks stay in memory forever unless `interrupted_task_timeout` is set."
#[tokio::test(start_paused = true)]
async fn python_disconnect_does_not_stop_the_task_and_nothing_is_reaped() {
    let (client, truth) = runtime("a2a-python-1.3", Dialect::V1_0);
    let mut stream = client
        .send_streaming(client.message("#complete now", None))
        .await
        .stream();
    let id = stream.next_event().await.task_id().unwrap().to_string();
    drop(stream);
    meshsim_time::sleep(Duration::from_secs(5)).await;
    assert_eq!(truth.task(&id).unwrap().state, Completed);
    let (waiting, _) = first_turn(&client).await;
    meshsim_time::sleep(Duration::from_secs(24 * 3600)).await;
    assert_eq!(
        client.get(&waiting).await.task().status.state,
        InputRequired
    );
}

// ---- @a2a-js/sdk 1.3.0 -----------------------------------------------------------------

/// "Every turn starts with a Task snapshot event (also on follow-up). Stored history already
/// includes the agent's question at input-required."
#[tokio::test(start_paused = true)]
async fn js_every_turn_starts_with_a_snapshot() {
    let (client, _) = runtime("a2a-js-1.3", Dialect::V1_0);
    let (id, events) = first_turn(&client).await;
    assert!(matches!(events[0], StreamEvent::Task(_)));
    let stored = client.get(&id).await.task();
    let last = stored.history.last().unwrap();
    assert_eq!(last.role, Role::Agent, "the question is in the history");
    let follow_up = client
        .send_streaming(client.message("by boat", Some(&id)))
        .await
        .stream()
        .rest()
        .await;
    let StreamEvent::Task(opening) = &follow_up[0] else {
        panic!("the follow-up opens with a snapshot")
    };
    assert_eq!(opening.id, id);
    assert_eq!(asserted_states(&follow_up[1..]), [Working, Completed]);
}

/// "Resubscribe while working closes at INPUT_REQUIRED; no pings."
///
/// Each work step takes 20 s here, so the resubscribed stream stays open longer than
/// python's 15 s ping period; the same personality given that period does ping on the same
/// stream, so a missing comment is the personality's doing, not a stream too short to ping.
#[tokio::test(start_paused = true)]
async fn js_resubscribe_while_working_closes_at_input_required() {
    async fn resubscribed_while_working(keep_alive_ms: Option<u64>) -> (Vec<StreamEvent>, bool) {
        let mut personality = builtin("a2a-js-1.3").unwrap();
        personality.work.min_ms = 20_000;
        personality.work.max_ms = 20_000;
        personality.keep_alive_ms = keep_alive_ms;
        let runtime = Runtime::new(personality, Dialect::V1_0, Clock::fixed(Duration::ZERO), 42);
        let client = Client::new(Target::Router(runtime.router()), Dialect::V1_0);
        let mut stream = client
            .send_streaming(client.message("plan", None))
            .await
            .stream();
        let id = stream.next_event().await.task_id().unwrap().to_string();
        let mut subscriber = client.resubscribe(&id).await.stream();
        let events = subscriber.rest().await;
        (events, subscriber.comments_seen)
    }
    let (events, pinged) = resubscribed_while_working(None).await;
    assert_eq!(
        events.last().and_then(StreamEvent::state),
        Some(InputRequired)
    );
    assert!(!pinged, "js sends no keep-alive comments");
    let (_, pinged) = resubscribed_while_working(Some(15_000)).await;
    assert!(pinged, "the stream is long enough for a 15 s ping");
}

/// "Version must match exactly (`1.1` rejected)."
#[tokio::test(start_paused = true)]
async fn js_version_must_match_exactly() {
    let (client, _) = runtime("a2a-js-1.3", Dialect::V1_0);
    let get = r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"nope"}}"#;
    let newer = client
        .post_json(get, Some("1.1"))
        .await
        .outcome
        .unwrap_err();
    assert_eq!(newer.code, ErrorCode::VersionNotSupported);
    assert_eq!(newer.data.unwrap()[0]["reason"], "VERSION_NOT_SUPPORTED");
    let exact = client
        .post_json(get, Some("1.0"))
        .await
        .outcome
        .unwrap_err();
    assert_eq!(exact.code, ErrorCode::TaskNotFound);
}

/// "Card shape depends on the `A2A-Version` request header (no header -> 0.3-shaped card);
/// `Vary: A2A-Version`." and, measured by tests/interop/js.rs, requests without the header
/// go to the SDK's v0.3 layer.
#[tokio::test(start_paused = true)]
async fn js_serves_v0_3_to_clients_without_the_header() {
    let runtime = Runtime::new(
        builtin("a2a-js-1.3").unwrap(),
        Dialect::V1_0,
        Clock::fixed(Duration::ZERO),
        42,
    );
    let router = runtime.router();
    let modern = Client::new(Target::Router(router.clone()), Dialect::V1_0);
    let legacy = Client::new(Target::Router(router), Dialect::V0_3);
    let (card, headers) = modern.card_with_headers().await;
    assert_eq!(card.interfaces[0].protocol_version.as_deref(), Some("1.0"));
    assert_eq!(headers["vary"], "A2A-Version");
    let (old_card, _) = legacy.card_with_headers().await;
    assert_eq!(
        old_card.interfaces[0].protocol_version.as_deref(),
        Some("0.3.0")
    );
    // A v0.3 client (no header) runs the whole lifecycle in v0.3: `final` flags included.
    let events = legacy
        .send_streaming(legacy.message("plan", None))
        .await
        .stream()
        .rest()
        .await;
    assert_eq!(
        asserted_states(&events),
        [Submitted, Working, InputRequired]
    );
    let StreamEvent::StatusUpdate(question) = events.last().unwrap() else {
        panic!()
    };
    assert_eq!(question.is_final, Some(true));
    let id = events[0].task_id().unwrap().to_string();
    let done = legacy.send(legacy.message("fine", Some(&id))).await.task();
    assert_eq!(done.status.state, Completed);
    // The same task, seen by a v1.0 client.
    assert_eq!(modern.get(&id).await.task().status.state, Completed);
    // v0.3 method names with a v1.0 header are not v1.0 methods.
    let body = r#"{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"id":"x"}}"#;
    let error = modern
        .post_json(body, Some("1.0"))
        .await
        .outcome
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::MethodNotFound);
}

/// "Second cancel returns the canceled task with 200."
#[tokio::test(start_paused = true)]
async fn js_second_cancel_returns_the_task() {
    let (client, _) = runtime("a2a-js-1.3", Dialect::V1_0);
    let (id, _) = first_turn(&client).await;
    assert_eq!(client.cancel(&id).await.task().status.state, Canceled);
    assert_eq!(client.cancel(&id).await.task().status.state, Canceled);
}

// ---- a2a-go v2.x -----------------------------------------------------------------------

/// "SubscribeToTask works only while an execution is active in memory: at input-required or
/// terminal it returns TaskNotFound "no active execution" (a2a-go#439, #438)."
/// "Sends the stored snapshot, then skips queued events whose version is not newer."
/// "Stream ends on terminal and INPUT_REQUIRED."
#[tokio::test(start_paused = true)]
async fn go_subscribe_only_while_executing() {
    let (client, _) = runtime("a2a-go-2", Dialect::V1_0);
    let mut stream = client
        .send_streaming(client.message("plan", None))
        .await
        .stream();
    let id = stream.next_event().await.task_id().unwrap().to_string();
    let live = client.resubscribe(&id).await.stream().rest().await;
    assert!(
        matches!(live[0], StreamEvent::Task(_)),
        "the stored snapshot first"
    );
    assert_eq!(asserted_states(&live), [Submitted, Working, InputRequired]);
    let at_input = client.resubscribe(&id).await.error();
    assert_eq!(at_input.code, ErrorCode::TaskNotFound);
    assert!(at_input.message.contains("no active execution"));
    client.send(client.message("ok", Some(&id))).await.task();
    assert_eq!(
        client.resubscribe(&id).await.error().code,
        ErrorCode::TaskNotFound
    );
}

/// "Message to terminal task -> InvalidParams. Cancel of canceled returns the task."
/// "Executions survive client disconnect." A completed task is not cancelable (a2a-go's
/// canceler: only a canceled task is returned as it is).
#[tokio::test(start_paused = true)]
async fn go_terminal_send_and_repeat_cancel() {
    let (client, truth) = runtime("a2a-go-2", Dialect::V0_3);
    let (id, _) = first_turn(&client).await;
    assert_eq!(client.cancel(&id).await.task().status.state, Canceled);
    assert_eq!(client.cancel(&id).await.task().status.state, Canceled);
    assert_eq!(
        client
            .send(client.message("x", Some(&id)))
            .await
            .error()
            .code,
        ErrorCode::InvalidParams
    );
    let mut stream = client
        .send_streaming(client.message("#complete", None))
        .await
        .stream();
    let running = stream.next_event().await.task_id().unwrap().to_string();
    drop(stream);
    meshsim_time::sleep(Duration::from_secs(5)).await;
    assert_eq!(truth.task(&running).unwrap().state, Completed);
    assert_eq!(
        client.cancel(&running).await.error().code,
        ErrorCode::TaskNotCancelable
    );
}

// ---- a2a-java 1.2 ----------------------------------------------------------------------

/// "Streams stay OPEN on interrupted states (a2a-java#756, #975), unlike Python."
/// "Subscribe without a live queue makes a new queue: future events only, snapshot
/// prepended."
#[tokio::test(start_paused = true)]
async fn java_streams_stay_open_at_input_required() {
    let (client, _) = runtime("a2a-java-1.2", Dialect::V0_3);
    let mut stream = client
        .send_streaming(client.message("plan", None))
        .await
        .stream();
    let first = take(&mut stream, 3).await;
    assert_eq!(asserted_states(&first), [Submitted, Working, InputRequired]);
    let StreamEvent::StatusUpdate(question) = &first[2] else {
        panic!()
    };
    assert_eq!(
        question.is_final,
        Some(false),
        "not the last event: the stream stays open"
    );
    let id = first[0].task_id().unwrap().to_string();
    let mut subscriber = client.resubscribe(&id).await.stream();
    let snapshot = subscriber.next_event().await;
    assert!(matches!(&snapshot, StreamEvent::Task(task) if task.status.state == InputRequired));
    client.send(client.message("fine", Some(&id))).await.task();
    for reader in [&mut stream, &mut subscriber] {
        let rest = reader.rest().await;
        assert_eq!(asserted_states(&rest), [Working, Completed]);
    }
}

/// "Terminal send and terminal subscribe -> -32004." "In-memory store never evicts."
#[tokio::test(start_paused = true)]
async fn java_terminal_errors_and_no_eviction() {
    let (client, _) = runtime("a2a-java-1.2", Dialect::V0_3);
    let answer = client.send(client.message("#complete x", None)).await;
    let Ok(RpcResult::Task(task)) = answer.json().outcome else {
        panic!()
    };
    assert_eq!(task.status.state, Completed);
    meshsim_time::sleep(Duration::from_secs(7 * 24 * 3600)).await;
    assert_eq!(
        client.resubscribe(&task.id).await.error().code,
        ErrorCode::UnsupportedOperation
    );
    assert_eq!(
        client
            .send(client.message("more", Some(&task.id)))
            .await
            .error()
            .code,
        ErrorCode::UnsupportedOperation
    );
}
