//! The sidecar in front of a runtime, over real loopback TCP: it forwards everything, and
//! its route and idle timeouts cut SSE streams mid-task without telling the task.

use crate::support;
use crate::support::{Client, Target};
use axum::http::Uri;
use meshsim_protocol::clock::Clock;
use meshsim_protocol::{Dialect, RpcResult, StreamEvent, TaskState};
use meshsim_runtimes::{Fate, GroundTruth, Personality, Runtime, Sidecar, WorkDurations, builtin};
use std::net::SocketAddr;
use std::time::Duration;

/// Serves `router` on a loopback port.
async fn serve(router: axum::Router) -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        meshsim_sim::serve(listener, router).await;
    });
    (addr, task)
}

/// A runtime behind a sidecar; the client talks to the sidecar.
async fn behind_sidecar(
    personality: Personality,
    sidecar: Sidecar,
) -> (
    Client,
    GroundTruth,
    SocketAddr,
    Vec<tokio::task::JoinHandle<()>>,
) {
    let runtime = Runtime::new(personality, Dialect::V0_3, Clock::wall(), 5);
    let truth = runtime.truth();
    let (backend, backend_task) = serve(runtime.router()).await;
    let connector = tower::service_fn(|uri: Uri| async move {
        let host = uri.host().unwrap_or("127.0.0.1").to_string();
        tokio::net::TcpStream::connect((host, uri.port_u16().unwrap_or(80))).await
    });
    let backend_uri: Uri = format!("http://{backend}/").parse().unwrap();
    let (front, front_task) = serve(sidecar.router(backend_uri, connector)).await;
    (
        Client::new(Target::Tcp(front), Dialect::V0_3),
        truth,
        front,
        vec![backend_task, front_task],
    )
}

fn with_work(name: &str, min_ms: u64, max_ms: u64) -> Personality {
    Personality {
        work: WorkDurations {
            min_ms,
            max_ms,
            long_running_steps: 8,
        },
        ..builtin(name).unwrap()
    }
}

/// Reads a stream until it ends; the events and whether it broke off.
async fn read_until_end(reader: &mut support::EventReader) -> (Vec<StreamEvent>, bool) {
    let mut events = Vec::new();
    loop {
        match reader.next_or_broken().await {
            Ok(Some(response)) => match response.outcome {
                Ok(RpcResult::Event(event)) => events.push(event),
                other => panic!("unexpected {other:?}"),
            },
            Ok(None) => return (events, false),
            Err(_) => return (events, true),
        }
    }
}

/// The sidecar's timeouts in these tests: long enough that the first event (sent at once)
/// always beats them on a loaded machine. A step of [`STEP_MS`] outlasts them ten times, so
/// the cut always lands while the task still works.
const CUT_MS: u64 = 1_000;
const STEP_MS: u64 = 10 * CUT_MS;

/// Polls the ground truth every 10 ms until `done`, for at most a minute (a bound no passing
/// run comes near: it returns as soon as the task gets there).
async fn wait_until(
    truth: &GroundTruth,
    id: &str,
    done: impl Fn(&meshsim_runtimes::TaskTruth) -> bool,
) {
    for _ in 0..6_000 {
        if truth.task(id).as_ref().is_some_and(&done) {
            return;
        }
        meshsim_time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} never got there: {:?}", truth.task(id));
}

#[tokio::test]
async fn the_card_through_the_sidecar_points_at_the_sidecar() {
    let sidecar = Sidecar::default();
    let (client, _truth, front, tasks) =
        behind_sidecar(builtin("python-correct").unwrap(), sidecar).await;
    let card = client.card().await;
    assert_eq!(
        card.primary_url(),
        Some(format!("http://{front}/").as_str())
    );
    tasks.iter().for_each(|task| task.abort());
}

#[tokio::test]
async fn route_timeout_cuts_a_long_stream_and_the_task_runs_on() {
    // The `#long` script's ten steps of half the cut each: the task needs five cuts' time.
    let sidecar = Sidecar {
        route_timeout_ms: Some(CUT_MS),
        idle_timeout_ms: None,
    };
    let (client, truth, _, tasks) =
        behind_sidecar(with_work("python-correct", CUT_MS / 2, CUT_MS / 2), sidecar).await;
    let mut reader = client
        .send_streaming(client.message("#long report", None))
        .await
        .stream();
    let (events, broke) = read_until_end(&mut reader).await;
    assert!(
        broke,
        "the stream must break off, not end cleanly: {events:?}"
    );
    assert_eq!(events[0].state(), Some(TaskState::Submitted));
    assert!(
        !events
            .iter()
            .any(|event| event.state() == Some(TaskState::Completed))
    );
    let id = events[0].task_id().unwrap().to_string();
    // Nobody told the task: python-correct keeps it and it completes.
    wait_until(&truth, &id, |task| task.state == TaskState::Completed).await;
    assert_eq!(truth.task(&id).unwrap().fate, None);
    tasks.iter().for_each(|task| task.abort());
}

#[tokio::test]
async fn idle_timeout_cut_makes_jvm_reaping_lose_the_task() {
    // The origin incident's JVM runtime behind Envoy: the cut closes its stream, so it reaps the task.
    let sidecar = Sidecar {
        route_timeout_ms: None,
        idle_timeout_ms: Some(CUT_MS),
    };
    let (client, truth, _, tasks) =
        behind_sidecar(with_work("jvm-reaping", STEP_MS, STEP_MS), sidecar).await;
    let mut reader = client
        .send_streaming(client.message("book a table", None))
        .await
        .stream();
    let (events, broke) = read_until_end(&mut reader).await;
    assert!(broke);
    assert_eq!(
        events
            .iter()
            .filter_map(StreamEvent::state)
            .collect::<Vec<_>>(),
        [TaskState::Submitted]
    );
    let id = events[0].task_id().unwrap().to_string();
    wait_until(&truth, &id, |task| {
        matches!(&task.fate, Some(Fate::Reaped { .. }))
    })
    .await;
    assert_eq!(truth.task(&id).unwrap().state, TaskState::Submitted);
    tasks.iter().for_each(|task| task.abort());
}

#[tokio::test]
async fn route_timeout_before_the_answer_is_a_504() {
    let sidecar = Sidecar {
        route_timeout_ms: Some(CUT_MS),
        idle_timeout_ms: None,
    };
    let (client, _truth, _, tasks) =
        behind_sidecar(with_work("python-correct", STEP_MS, STEP_MS), sidecar).await;
    let encoded = Dialect::V0_3
        .codec()
        .encode_request(&meshsim_protocol::RpcRequest {
            id: meshsim_protocol::RequestId::Number(1),
            request: meshsim_protocol::Request::SendMessage(client.message("slow", None)),
            tenant: None,
        })
        .unwrap();
    let response = client.post_raw(encoded.value.to_string()).await;
    assert_eq!(response.status(), 504);
    tasks.iter().for_each(|task| task.abort());
}
