//! `probe` over real loopback TCP against each seed runtime served the way `meshsim serve`
//! serves it: the measured profile is the one the seed's step table gives that runtime.

use meshsim_consumer::probe::{ProbeConfig, ProbeReport, probe};
use meshsim_consumer::{ClientConfig, FollowupBehaviour, ResubscribeBehaviour, TcpConnector};
use meshsim_protocol::Dialect;
use meshsim_protocol::clock::Clock;
use meshsim_runtimes::{Runtime, builtin};
use std::time::Duration;

async fn probe_served(name: &str, dialect: Dialect) -> ProbeReport {
    let runtime = Runtime::new(builtin(name).unwrap(), dialect, Clock::wall(), 7);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let server = tokio::spawn(meshsim_sim::serve(listener, runtime.router()));
    let config = ProbeConfig {
        client: ClientConfig {
            idle_timeout: Duration::from_secs(10),
            ..ClientConfig::default()
        },
        settle: Duration::from_millis(400),
        ..ProbeConfig::default()
    };
    let report = probe(TcpConnector::default(), &url, &config)
        .await
        .expect("the Card is readable");
    server.abort();
    report
}

#[tokio::test]
async fn probe_measures_each_seed_runtime_as_the_seed_describes_it() {
    use FollowupBehaviour as F;
    use ResubscribeBehaviour as R;
    // The last column: how many Card claims the profile contradicts, in v0.1/v0.3 and in
    // v1.0 (whose Cards cannot claim stateTransitionHistory, so go-replaying's two history
    // contradictions exist only up to v0.3).
    let expected = [
        ("python-correct", R::Resumes, F::Resumes, true, (0, 0)),
        (
            "go-replaying",
            R::Replays,
            F::ResumesWithDuplicateSubmitted,
            true,
            (4, 2),
        ),
        ("jvm-reaping", R::TaskNotFound, F::NewTask, false, (3, 3)),
    ];
    for dialect in Dialect::ALL {
        for (name, resubscribe, followup, survives, contradictions) in expected {
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
            let (older, v1) = contradictions;
            let expected_count = if dialect == Dialect::V1_0 { v1 } else { older };
            assert_eq!(report.contradictions.len(), expected_count, "{context}");
        }
    }
}

#[tokio::test]
async fn an_agent_that_never_asks_is_reported_as_such() {
    let mut personality = builtin("python-correct").unwrap();
    personality.name = "asks-nothing".to_string();
    let runtime = Runtime::new(personality, Dialect::V1_0, Clock::wall(), 7);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let server = tokio::spawn(meshsim_sim::serve(listener, runtime.router()));
    // The runtime's script convention: `#complete` completes without asking.
    let config = ProbeConfig {
        request: "#complete the report".to_string(),
        settle: Duration::from_millis(200),
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
