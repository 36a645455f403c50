//! The bounded task store (`Runtime::with_max_tasks`) and the unrecorded ground truth that
//! keep a long-running `meshsim serve` within bounded memory. In process, on tokio's
//! paused clock.

use crate::support::{Client, Target};
use meshsim_protocol::clock::Clock;
use meshsim_protocol::{Dialect, ErrorCode, StreamEvent, TaskState};
use meshsim_runtimes::{GroundTruth, Runtime, builtin};
use std::time::Duration;

fn start(max_tasks: usize, truth: GroundTruth) -> Client {
    let runtime = Runtime::new(
        builtin("python-correct").expect("a built-in"),
        Dialect::V1_0,
        Clock::fixed(Duration::from_secs(9)),
        3,
    )
    .with_truth(truth)
    .with_max_tasks(max_tasks);
    Client::new(Target::Router(runtime.router()), Dialect::V1_0)
}

/// A new task run to its first stop (input-required): live, not terminal.
async fn waiting_task(client: &Client) -> String {
    let events = client
        .send_streaming(client.message("plan", None))
        .await
        .stream()
        .rest()
        .await;
    assert_eq!(
        events.last().and_then(StreamEvent::state),
        Some(TaskState::InputRequired)
    );
    events[0].task_id().expect("a task id").to_string()
}

#[tokio::test(start_paused = true)]
async fn a_full_store_evicts_the_oldest_terminal_task_then_refuses() {
    let client = start(3, GroundTruth::new());
    let first = waiting_task(&client).await;
    let second = waiting_task(&client).await;
    let live = waiting_task(&client).await;
    for id in [&first, &second] {
        let canceled = client.cancel(id).await.task();
        assert_eq!(canceled.status.state, TaskState::Canceled);
    }

    // Full: the terminal task whose status changed longest ago goes first.
    let fourth = waiting_task(&client).await;
    let evicted = client.get(&first).await.error();
    assert_eq!(evicted.code, ErrorCode::TaskNotFound, "{evicted:?}");
    assert_eq!(
        client.get(&second).await.task().status.state,
        TaskState::Canceled
    );
    let fifth = waiting_task(&client).await;
    assert_eq!(
        client.get(&second).await.error().code,
        ErrorCode::TaskNotFound
    );

    // Nothing terminal left: a new task is refused, and says why; live tasks are kept.
    let refused = client
        .send_streaming(client.message("plan", None))
        .await
        .json();
    let error = refused.outcome.expect_err("the store is full");
    assert_eq!(error.code, ErrorCode::InternalError);
    assert!(error.message.contains("--max-tasks"), "{}", error.message);
    for id in [&live, &fourth, &fifth] {
        assert_eq!(
            client.get(id).await.task().status.state,
            TaskState::InputRequired
        );
    }
}

#[tokio::test(start_paused = true)]
async fn an_unrecorded_truth_keeps_no_task() {
    let truth = GroundTruth::unrecorded();
    let client = start(100, truth.clone());
    let id = waiting_task(&client).await;
    client.cancel(&id).await.task();
    assert!(truth.tasks().is_empty());
    assert_eq!(truth.task(&id), None);
    assert_eq!(truth.instances(), 1);
}
