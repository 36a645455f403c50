//! `probe` over real loopback TCP against each seed runtime served the way `meshsim serve`
//! serves it: the measured profile is the one the origin incident's step table gives that runtime.

use meshsim_consumer::probe::{ProbeConfig, ProbeReport, probe};
use meshsim_consumer::{ClientConfig, FollowupBehaviour, ResubscribeBehaviour, TcpConnector};
use meshsim_protocol::clock::Clock;
use meshsim_protocol::{Binding, Dialect};
use meshsim_runtimes::{Bindings, Personality, Runtime, builtin};
use std::time::Duration;

/// Real-time work steps of the probed runtimes, and the probe's settle time: twenty times
/// the longest step, so a step that runs late on a loaded machine still ends well inside it.
const WORK_MS: (u64, u64) = (10, 20);
const SETTLE: Duration = Duration::from_millis(20 * WORK_MS.1);

/// `name`'s personality with [`WORK_MS`] work steps.
fn quick(name: &str) -> Personality {
    let mut personality = builtin(name).unwrap();
    personality.work.min_ms = WORK_MS.0;
    personality.work.max_ms = WORK_MS.1;
    personality
}

async fn probe_served(name: &str, dialect: Dialect) -> ProbeReport {
    probe_personality(quick(name), dialect).await
}

async fn probe_personality(personality: Personality, dialect: Dialect) -> ProbeReport {
    probe_within(personality, dialect, Duration::from_secs(10)).await
}

/// Serves `personality` in `dialect` on loopback and probes it, each read of a stream
/// bounded by `bound`. The outer minute only turns a hang into a failure.
async fn probe_within(personality: Personality, dialect: Dialect, bound: Duration) -> ProbeReport {
    let runtime = Runtime::new(personality, dialect, Clock::wall(), 7);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let server = tokio::spawn(meshsim_sim::serve(listener, runtime.router()));
    let config = ProbeConfig {
        client: ClientConfig {
            idle_timeout: bound,
            ..ClientConfig::default()
        },
        settle: SETTLE,
        ..ProbeConfig::default()
    };
    let report = meshsim_time::timeout(
        Duration::from_secs(60),
        probe(TcpConnector::default(), &url, &config),
    )
    .await
    .expect("the probe ends")
    .expect("the Card is readable");
    server.abort();
    report
}

#[tokio::test]
async fn probe_measures_each_origin_runtime_as_the_origin_note_describes_it() {
    use FollowupBehaviour as F;
    use ResubscribeBehaviour as R;
    // The last column: what each contradiction observed, from the origin incident's step table. Every
    // seed runtime claims `streaming`; go-replaying also claims `stateTransitionHistory`,
    // which v1.0 Cards cannot, so its two history contradictions exist only up to v0.3.
    const GONE: &str = "the task is gone once its stream closes: it cannot be resumed";
    const REPLAYS: &str = "resubscribe after input-required replays every event from the start";
    const NOT_FOUND: &str = "resubscribe after input-required answers -32001 TaskNotFound";
    const DUPLICATE: &str =
        "a follow-up with the same taskId resumes only after a second `submitted`";
    const NEW_TASK: &str = "a follow-up with the same taskId starts a new task";
    const REPLAYED_HISTORY: &str = "history is replayed as if live, not served as history";
    const HISTORY_RESTARTS: &str = "the transition history goes back to `submitted` mid-task";
    // (runtime, resubscribe, follow-up, survives stream close, streaming and history
    // contradictions)
    type Expected = (
        &'static str,
        R,
        F,
        bool,
        &'static [&'static str],
        &'static [&'static str],
    );
    let expected: [Expected; 3] = [
        ("python-correct", R::Resumes, F::Resumes, true, &[], &[]),
        (
            "go-replaying",
            R::Replays,
            F::ResumesWithDuplicateSubmitted,
            true,
            &[REPLAYS, DUPLICATE],
            &[REPLAYED_HISTORY, HISTORY_RESTARTS],
        ),
        (
            "jvm-reaping",
            R::TaskNotFound,
            F::NewTask,
            false,
            &[GONE, NOT_FOUND, NEW_TASK],
            &[],
        ),
    ];
    for dialect in Dialect::ALL {
        for (name, resubscribe, followup, survives, streaming, history) in expected {
            let report = probe_served(name, dialect).await;
            let context = format!("{name} {dialect}: {report:#?}");
            assert!(report.reached_input_required, "{context}");
            assert_eq!(
                report.stream_closes_on_input_required,
                Some(true),
                "{context}"
            );
            assert_eq!(
                report.task_survives_stream_close,
                Some(survives),
                "{context}"
            );
            assert_eq!(
                report.resubscribe_after_input_required,
                Some(resubscribe),
                "{context}"
            );
            assert_eq!(report.followup_same_task, Some(followup), "{context}");
            assert_eq!(report.card.streaming, Some(true), "{context}");
            let mut contradicted: Vec<(&str, &str)> = streaming
                .iter()
                .map(|observed| ("capabilities.streaming = true", *observed))
                .collect();
            if dialect != Dialect::V1_0 {
                contradicted.extend(
                    history
                        .iter()
                        .map(|observed| ("capabilities.stateTransitionHistory = true", *observed)),
                );
            }
            let found: Vec<(&str, &str)> = report
                .contradictions
                .iter()
                .map(|c| (c.claim.as_str(), c.observed.as_str()))
                .collect();
            assert_eq!(found, contradicted, "{context}");
        }
    }
}

/// A runtime serving only HTTP+JSON is probed over HTTP+JSON, and measures what the same
/// runtime serving only JSON-RPC measures: the reports differ in the binding alone.
#[tokio::test]
async fn probing_over_http_json_measures_what_json_rpc_measures() {
    for name in [
        "python-correct",
        "go-replaying",
        "jvm-reaping",
        "a2a-js-1.3",
    ] {
        let only = |bindings| {
            let mut personality = quick(name);
            personality.bindings = bindings;
            personality.v0_3_compat = false;
            personality
        };
        let over_http_json = probe_personality(only(Bindings::HttpJson), Dialect::V1_0).await;
        let mut over_json_rpc = probe_personality(only(Bindings::JsonRpc), Dialect::V1_0).await;
        assert_eq!(over_http_json.binding, Binding::HttpJson, "{name}");
        assert_eq!(over_http_json.card.bindings, [Binding::HttpJson], "{name}");
        assert_eq!(over_json_rpc.binding, Binding::JsonRpc, "{name}");
        assert_eq!(over_json_rpc.card.bindings, [Binding::JsonRpc], "{name}");
        // The URL is the listener's, another port each time.
        over_json_rpc.url.clone_from(&over_http_json.url);
        over_json_rpc.binding = Binding::HttpJson;
        over_json_rpc.card.bindings = vec![Binding::HttpJson];
        assert_eq!(over_http_json, over_json_rpc, "{name}");
    }
}

#[tokio::test]
async fn an_agent_that_never_asks_is_reported_as_such() {
    let mut personality = quick("python-correct");
    personality.name = "asks-nothing".to_string();
    let runtime = Runtime::new(personality, Dialect::V1_0, Clock::wall(), 7);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let server = tokio::spawn(meshsim_sim::serve(listener, runtime.router()));
    // The runtime's script convention: `#complete` completes without asking.
    let config = ProbeConfig {
        request: "#complete the report".to_string(),
        settle: SETTLE,
        ..ProbeConfig::default()
    };
    let report = probe(TcpConnector::default(), &url, &config).await.unwrap();
    server.abort();
    assert!(!report.reached_input_required, "{report:#?}");
    assert_eq!(report.resubscribe_after_input_required, None);
    assert!(
        report
            .notes
            .iter()
            .any(|note| note.contains("never reached input-required")),
        "{report:#?}"
    );
}

#[tokio::test]
async fn no_agent_at_the_url_is_an_error_not_a_panic() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let error = probe(TcpConnector::default(), &url, &ProbeConfig::default())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("connect"), "{error}");
}

#[tokio::test]
async fn a_stuck_task_whose_stream_sends_keep_alives_ends_the_probe_at_its_timeout() {
    // The first task never leaves `submitted`, and its stream sends a keep-alive comment
    // every 50 ms: bytes keep coming, events never do.
    let mut personality = quick("python-correct");
    personality.stalled_first_tasks = 1;
    personality.keep_alive_ms = Some(50);
    let report = probe_within(personality, Dialect::V1_0, Duration::from_millis(500)).await;
    assert!(!report.reached_input_required, "{report:#?}");
    assert!(
        report
            .notes
            .iter()
            .any(|note| note
                .contains("first turn: waiting for a state that ends the turn timed out")),
        "{report:#?}"
    );
}
