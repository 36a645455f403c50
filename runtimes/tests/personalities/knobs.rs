//! Each knob the built-ins do not already exercise, the Behaviour trait, restarts and
//! determinism. In process, on tokio's paused clock.

use crate::support::{Client, Target, asserted_states};
use TaskState::*;
use meshsim_protocol::clock::Clock;
use meshsim_protocol::{
    Dialect, ErrorCode, ListTasksParams, Request, RpcResult, StreamEvent, TaskState,
};
use meshsim_runtimes::{
    Behaviour, CancelOutcome, CancelPolicy, Fate, FollowUp, Origin, Personality, Reaping,
    Resubscribe, Runtime, TaskFacts, Timestamps, WorkDurations,
};
use std::time::Duration;

fn start(personality: Personality, dialect: Dialect) -> (Client, Runtime) {
    let runtime = Runtime::new(
        personality,
        dialect,
        Clock::fixed(Duration::from_secs(9)),
        3,
    );
    (
        Client::new(Target::Router(runtime.router()), dialect),
        runtime,
    )
}

async fn first_turn(client: &Client) -> String {
    let events = client
        .send_streaming(client.message("plan", None))
        .await
        .stream()
        .rest()
        .await;
    assert_eq!(
        events.last().and_then(StreamEvent::state),
        Some(InputRequired)
    );
    events[0].task_id().unwrap().to_string()
}

#[tokio::test(start_paused = true)]
async fn ttl_reaps_live_tasks_and_evicts_finished_ones() {
    let personality = Personality {
        reaping: Reaping::Ttl { after_ms: 1_000 },
        ..Personality::default()
    };
    let (client, runtime) = start(personality, Dialect::V0_3);
    let waiting = first_turn(&client).await;
    meshsim_time::sleep(Duration::from_millis(999)).await;
    assert_eq!(
        client.get(&waiting).await.task().status.state,
        InputRequired
    );
    meshsim_time::sleep(Duration::from_millis(2)).await;
    assert_eq!(
        client.get(&waiting).await.error().code,
        ErrorCode::TaskNotFound
    );
    let done = client
        .send(client.message("#complete", None))
        .await
        .task()
        .id;
    assert_eq!(client.get(&done).await.task().status.state, Completed);
    meshsim_time::sleep(Duration::from_millis(1_001)).await;
    assert_eq!(
        client.get(&done).await.error().code,
        ErrorCode::TaskNotFound
    );
    let truth = runtime.truth();
    assert!(
        matches!(truth.task(&waiting).unwrap().fate, Some(Fate::Reaped { ref reason, .. }) if reason == "ttl expired")
    );
    assert_eq!(
        truth.task(&done).unwrap().fate,
        None,
        "a finished task is evicted, not lost"
    );
}

#[tokio::test(start_paused = true)]
async fn an_input_required_timeout_spares_a_task_answered_in_time() {
    // Swarm seed 48's runtime reaped tasks answered well within the timeout: the answer's
    // turn works before its first transition, and that work outlasted the timer.
    let personality = Personality {
        reaping: Reaping::InputRequiredTimeout { after_ms: 500 },
        work: WorkDurations {
            min_ms: 400,
            max_ms: 400,
            long_running_steps: 1,
        },
        ..Personality::default()
    };
    let (client, runtime) = start(personality, Dialect::V0_3);
    let answered = first_turn(&client).await;
    meshsim_time::sleep(Duration::from_millis(300)).await;
    let done = client.send(client.message("json", Some(&answered))).await;
    assert_eq!(done.task().status.state, Completed);
    assert_eq!(runtime.truth().task(&answered).unwrap().fate, None);

    let left = first_turn(&client).await;
    meshsim_time::sleep(Duration::from_millis(501)).await;
    assert_eq!(
        client.get(&left).await.error().code,
        ErrorCode::TaskNotFound
    );
    assert!(matches!(
        runtime.truth().task(&left).unwrap().fate,
        Some(Fate::Reaped { ref reason, .. }) if reason == "input-required timeout"
    ));
}

#[tokio::test(start_paused = true)]
async fn absent_timestamps_are_absent() {
    let personality = Personality {
        timestamps: Timestamps::Absent,
        ..Personality::default()
    };
    let (client, _) = start(personality, Dialect::V1_0);
    let events = client
        .send_streaming(client.message("#complete", None))
        .await
        .stream()
        .rest()
        .await;
    for event in &events {
        if let StreamEvent::StatusUpdate(update) = event {
            assert_eq!(update.status.timestamp, None);
        }
    }
}

#[tokio::test(start_paused = true)]
async fn not_found_after_stream_close_keeps_the_task_but_refuses_subscribe() {
    let personality = Personality {
        resubscribe: Resubscribe::NotFoundAfterStreamClose,
        ..Personality::default()
    };
    let (client, _) = start(personality, Dialect::V0_3);
    let mut creator = client
        .send_streaming(client.message("plan", None))
        .await
        .stream();
    let id = creator.next_event().await.task_id().unwrap().to_string();
    // While the creating stream is open, a second subscriber is welcome.
    let mut second = client.resubscribe(&id).await.stream();
    assert_eq!(second.next_event().await.state(), Some(Submitted));
    creator.rest().await;
    assert_eq!(
        client.resubscribe(&id).await.error().code,
        ErrorCode::TaskNotFound
    );
    assert_eq!(client.get(&id).await.task().status.state, InputRequired);
}

#[tokio::test(start_paused = true)]
async fn follow_up_new_task_and_not_found() {
    let personality = Personality {
        follow_up: FollowUp::NewTask,
        ..Personality::default()
    };
    let (client, runtime) = start(personality, Dialect::V1_0);
    let id = first_turn(&client).await;
    let answer = client.send(client.message("json", Some(&id))).await.task();
    assert_ne!(answer.id, id);
    assert_eq!(
        answer.status.state, InputRequired,
        "the new task asks again"
    );
    let truth = runtime.truth();
    assert_eq!(
        truth.task(&answer.id).unwrap().origin,
        Origin::FollowUpCreated {
            requested_task_id: id.clone()
        }
    );
    assert_eq!(
        truth.state(&id),
        Some(InputRequired),
        "the original waits on"
    );

    let personality = Personality {
        follow_up: FollowUp::NotFound,
        ..Personality::default()
    };
    let (client, _) = start(personality, Dialect::V1_0);
    let id = first_turn(&client).await;
    assert_eq!(
        client
            .send(client.message("json", Some(&id)))
            .await
            .error()
            .code,
        ErrorCode::TaskNotFound
    );
}

#[tokio::test(start_paused = true)]
async fn ignored_and_refused_cancels() {
    let cancel = CancelPolicy {
        working: CancelOutcome::Ignore,
        interrupted: CancelOutcome::NotCancelable,
        ..CancelPolicy::default()
    };
    let (client, _) = start(
        Personality {
            cancel,
            ..Personality::default()
        },
        Dialect::V0_3,
    );
    let mut stream = client
        .send_streaming(client.message("#complete", None))
        .await
        .stream();
    let id = stream.next_event().await.task_id().unwrap().to_string();
    assert_eq!(stream.next_event().await.state(), Some(Working));
    assert_eq!(
        client.cancel(&id).await.task().status.state,
        Working,
        "answered, not honoured"
    );
    assert_eq!(asserted_states(&stream.rest().await), [Completed]);
    let waiting = first_turn(&client).await;
    assert_eq!(
        client.cancel(&waiting).await.error().code,
        ErrorCode::TaskNotCancelable
    );
}

#[tokio::test(start_paused = true)]
async fn list_tasks_pages_and_filters() {
    let (client, _) = start(Personality::default(), Dialect::V1_0);
    let waiting = first_turn(&client).await;
    let done_a = client
        .send(client.message("#complete a", None))
        .await
        .task()
        .id;
    let done_b = client
        .send(client.message("#complete b", None))
        .await
        .task()
        .id;
    let list = |params: ListTasksParams| async {
        match client.call(Request::ListTasks(params)).await.json().outcome {
            Ok(RpcResult::TaskList(list)) => list,
            other => panic!("{other:?}"),
        }
    };
    let page = list(ListTasksParams {
        page_size: Some(2),
        ..Default::default()
    })
    .await;
    let ids: Vec<_> = page.tasks.iter().map(|task| task.id.clone()).collect();
    assert_eq!(
        ids,
        [done_b.clone(), done_a.clone()],
        "most recently updated first"
    );
    assert_eq!(page.total_size, 3);
    let rest = list(ListTasksParams {
        page_size: Some(2),
        page_token: Some(page.next_page_token),
        ..Default::default()
    })
    .await;
    assert_eq!(rest.tasks.len(), 1);
    assert_eq!(rest.tasks[0].id, waiting);
    assert_eq!(rest.next_page_token, "");
    let completed = list(ListTasksParams {
        status: Some(Completed),
        ..Default::default()
    })
    .await;
    assert_eq!(completed.tasks.len(), 2);
    let bad = client
        .call(Request::ListTasks(ListTasksParams {
            page_size: Some(0),
            ..Default::default()
        }))
        .await;
    assert_eq!(bad.error().code, ErrorCode::InvalidParams);
    // A cursor before every update is an empty page, not a crash.
    let beyond = list(ListTasksParams {
        page_token: Some("0".to_string()),
        ..Default::default()
    })
    .await;
    assert!(beyond.tasks.is_empty());
    let garbage = client
        .call(Request::ListTasks(ListTasksParams {
            page_token: Some("x".into()),
            ..Default::default()
        }))
        .await;
    assert_eq!(garbage.error().code, ErrorCode::InvalidParams);
    // Artifacts only when asked for (the v1.0 spec's MUST); an empty context is no filter
    // (proto3's default value).
    let listed = list(ListTasksParams::default()).await;
    assert!(listed.tasks.iter().all(|task| task.artifacts.is_empty()));
    let whole = list(ListTasksParams {
        include_artifacts: Some(true),
        ..Default::default()
    })
    .await;
    assert!(whole.tasks.iter().any(|task| !task.artifacts.is_empty()));
    let any_context = list(ListTasksParams {
        context_id: Some(String::new()),
        ..Default::default()
    })
    .await;
    assert_eq!(any_context.total_size, 3);
    // Statuses stamped at or after the instant: all of them since the epoch, none in 2099;
    // text that is no timestamp is refused.
    let stamped_after = |instant: &str| ListTasksParams {
        status_timestamp_after: Some(instant.to_string()),
        ..Default::default()
    };
    assert_eq!(
        list(stamped_after("1970-01-01T00:00:00Z")).await.total_size,
        3
    );
    assert_eq!(
        list(stamped_after("2099-01-01T00:00:00Z")).await.total_size,
        0
    );
    let not_a_time = client
        .call(Request::ListTasks(stamped_after("yesterday")))
        .await;
    assert_eq!(not_a_time.error().code, ErrorCode::InvalidParams);
}

#[tokio::test(start_paused = true)]
async fn a_restart_loses_live_tasks_and_hands_out_new_ids() {
    let runtime = Runtime::new(
        Personality::default(),
        Dialect::V0_3,
        Clock::fixed(Duration::from_secs(5)),
        3,
    );
    let truth = runtime.truth();
    let before = Client::new(Target::Router(runtime.router()), Dialect::V0_3);
    let id = first_turn(&before).await;
    // The host comes back: a new instance with an empty store, same seed, same truth.
    let after = Client::new(Target::Router(runtime.router()), Dialect::V0_3);
    assert_eq!(after.get(&id).await.error().code, ErrorCode::TaskNotFound);
    assert_eq!(
        truth.task(&id).unwrap().fate,
        Some(Fate::Lost {
            at: Duration::from_secs(5)
        })
    );
    let next = first_turn(&after).await;
    assert_ne!(next, id, "a restarted instance does not reuse ids");
    assert_eq!(truth.instances(), 2);
    assert_eq!(truth.task(&next).unwrap().instance, 1);
}

#[tokio::test(start_paused = true)]
async fn the_seed_fixes_ids_and_timings() {
    async fn run(seed: u64) -> (String, Vec<Duration>) {
        let start = tokio::time::Instant::now();
        let clock = Clock::from_fn(move || start.elapsed());
        let runtime = Runtime::new(Personality::default(), Dialect::V0_3, clock, seed);
        let client = Client::new(Target::Router(runtime.router()), Dialect::V0_3);
        let id = first_turn(&client).await;
        let times = runtime
            .truth()
            .task(&id)
            .unwrap()
            .transitions
            .iter()
            .map(|t| t.at)
            .collect();
        (id, times)
    }
    let (id_a, times_a) = run(17).await;
    let (id_b, times_b) = run(17).await;
    let (id_c, times_c) = run(18).await;
    assert_eq!((&id_a, &times_a), (&id_b, &times_b));
    assert_ne!(id_a, id_c);
    assert_ne!(times_a, times_c);
}

/// A runtime the knobs cannot describe: it resumes on the first resubscribe of a task and
/// replays from the start on every later one.
struct ReplaysFromSecondResubscribe;

impl Behaviour for ReplaysFromSecondResubscribe {
    fn resubscribe(&self, _personality: &Personality, task: &TaskFacts) -> Resubscribe {
        if task.resubscribes == 0 {
            Resubscribe::SnapshotThenTail
        } else {
            Resubscribe::ReplayFromStart
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_behaviour_overrides_one_decision() {
    let runtime = Runtime::new(
        Personality::default(),
        Dialect::V0_3,
        Clock::fixed(Duration::ZERO),
        1,
    )
    .with_behaviour(ReplaysFromSecondResubscribe);
    let client = Client::new(Target::Router(runtime.router()), Dialect::V0_3);
    let id = first_turn(&client).await;
    let mut first = client.resubscribe(&id).await.stream();
    assert!(matches!(first.next_event().await, StreamEvent::Task(_)));
    drop(first);
    let second = client.resubscribe(&id).await.stream().rest().await;
    assert_eq!(
        asserted_states(&second),
        [Submitted, Working, InputRequired]
    );
    // Everything else still follows the knobs: the follow-up resumes.
    assert_eq!(
        client
            .send(client.message("ok", Some(&id)))
            .await
            .task()
            .status
            .state,
        Completed
    );
}

#[tokio::test(start_paused = true)]
async fn return_immediately_and_history_length_shape_the_send_answer() {
    let (client, _) = start(Personality::default(), Dialect::V1_0);
    let mut params = client.message("#complete now", None);
    params.configuration = Some(meshsim_protocol::SendConfiguration {
        return_immediately: Some(true),
        history_length: Some(0),
        ..Default::default()
    });
    let accepted = client.send(params).await.task();
    assert_eq!(accepted.status.state, Submitted);
    assert!(accepted.history.is_empty());
    let settled = client
        .send(client.message("#complete later", None))
        .await
        .task();
    assert_eq!(settled.status.state, Completed);
}

#[tokio::test(start_paused = true)]
async fn stalled_tasks_stay_submitted() {
    let personality = Personality {
        stalled_first_tasks: 1,
        ..Personality::default()
    };
    let (client, runtime) = start(personality, Dialect::V0_3);
    let mut params = client.message("#complete", None);
    params.configuration = Some(meshsim_protocol::SendConfiguration {
        return_immediately: Some(true),
        ..Default::default()
    });
    let stuck = client.send(params).await.task().id;
    let fine = client.send(client.message("#complete", None)).await.task();
    assert_eq!(fine.status.state, Completed, "only the first task stalls");
    meshsim_time::sleep(Duration::from_secs(3600)).await;
    assert_eq!(client.get(&stuck).await.task().status.state, Submitted);
    assert_eq!(runtime.truth().task(&stuck).unwrap().states(), [Submitted]);
}

#[tokio::test(start_paused = true)]
async fn a_late_card_is_answered_after_its_delay_and_nothing_else_waits() {
    let personality = Personality {
        card_delay_ms: Some(1_500),
        ..Personality::default()
    };
    for dialect in Dialect::ALL {
        let (client, _runtime) = start(personality.clone(), dialect);
        let asked = meshsim_time::Instant::now(); // wall-clock-ok: tokio's paused clock
        let card = client.card().await;
        assert_eq!(card.capabilities.streaming, Some(true), "{dialect:?}");
        assert_eq!(asked.elapsed(), Duration::from_millis(1_500), "{dialect:?}");
        let asked = meshsim_time::Instant::now(); // wall-clock-ok: tokio's paused clock
        let unknown = client.get("no-such-task").await.error();
        assert_eq!(unknown.code, ErrorCode::TaskNotFound, "{dialect:?}");
        assert_eq!(
            asked.elapsed(),
            Duration::ZERO,
            "{dialect:?}: only the Card is late"
        );
    }
}
