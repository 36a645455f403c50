//! The reconciling consumer against runtimes that serve only the v1.0 HTTP+JSON binding
//! (`"bindings": "http-json"`): it reads the Card, finds no JSON-RPC interface, speaks
//! HTTP+JSON, and completes every matrix scenario with the oracle holding, as it does over
//! JSON-RPC against the same runtime. The trace shows the binding's routes, not `/`.

use super::divergences::{assert_holds, personality_file};
use meshsim_consumer::Outcome;
use meshsim_protocol::Dialect;
use meshsim_runtimes::Bindings;
use meshsim_scenarios::{
    ConsumerChoice, DEFAULT_TICK, Faults, RunOptions, RunResult, RunSpec, RuntimeChoice, Scenario,
    run,
};
use meshsim_sim::Seed;
use meshsim_trace::{TraceEvent, TraceLine};

const FILES: [&str; 2] = ["http-json-only", "jvm-reaping-over-http-json"];

/// The reconciling consumer's v1.0 run of `scenario` against `runtime`, without faults.
pub(crate) fn spec(runtime: RuntimeChoice, scenario: Scenario, seed: u64) -> RunSpec {
    RunSpec {
        seed: Seed::new(seed),
        scenario,
        runtime,
        consumer: ConsumerChoice::Reconciling,
        dialect: Dialect::V1_0,
        faults: Faults::None,
        job_limit: None,
        tick: DEFAULT_TICK,
    }
}

/// The paths of the HTTP requests the runtimes read.
fn request_paths(result: &RunResult) -> Vec<String> {
    let trace = result.trace.as_ref().expect("kept");
    trace
        .lines()
        .filter_map(TraceLine::parse)
        .filter_map(|line| match line.event {
            TraceEvent::Request { path, .. } => Some(path.into_owned()),
            _ => None,
        })
        .collect()
}

/// Each job's outcome, by kind (completed, gave up, ...).
fn outcome_kinds(result: &RunResult) -> Vec<String> {
    result
        .reports
        .iter()
        .map(|report| {
            let outcome = format!("{:?}", report.outcome);
            outcome
                .split([' ', '{', '('])
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

#[test]
fn the_reconciling_consumer_completes_every_scenario_over_http_json_alone() {
    let options = RunOptions {
        keep_trace: true,
        ..RunOptions::default()
    };
    for file in FILES {
        let over_http_json = RuntimeChoice::resolve(&personality_file(file)).expect("a file");
        assert_eq!(over_http_json.personality.bindings, Bindings::HttpJson);
        let mut over_json_rpc = over_http_json.clone();
        over_json_rpc.personality.bindings = Bindings::JsonRpc;
        for scenario in Scenario::ALL {
            for seed in [1, 2] {
                let spec = spec(over_http_json.clone(), scenario, seed);
                let context = spec.replay_command();
                assert_holds(&spec);
                let result = run(&spec, &options).expect("the run is carried out");
                let paths = request_paths(&result);
                assert!(
                    paths.iter().any(|path| path.starts_with("/message:")),
                    "{context}: no HTTP+JSON send in {paths:?}"
                );
                // The mesh puts the origin incident's three runtimes (JSON-RPC first in
                // their Cards) beside the one under test.
                if scenario != Scenario::HeterogeneousMesh {
                    assert!(
                        !paths.iter().any(|path| path == "/"),
                        "{context}: a JSON-RPC call in {paths:?}"
                    );
                }
                let json_rpc = assert_holds(&spec_with(&spec, over_json_rpc.clone()));
                assert_eq!(
                    outcome_kinds(&result),
                    outcome_kinds(&json_rpc),
                    "{context}: the same jobs end the same way over either binding"
                );
            }
        }
    }
}

/// `spec` against `runtime` instead.
pub(crate) fn spec_with(spec: &RunSpec, runtime: RuntimeChoice) -> RunSpec {
    RunSpec {
        runtime,
        ..spec.clone()
    }
}

/// The spec-correct runtime over HTTP+JSON completes the origin incident's job, and the
/// refusals it answers over HTTP+JSON reach the trace as JSON-RPC ones do.
#[test]
fn over_http_json_the_incident_completes_and_refusals_are_traced() {
    let options = RunOptions {
        keep_trace: true,
        ..RunOptions::default()
    };
    let runtime = RuntimeChoice::resolve(&personality_file("http-json-only")).expect("a file");
    let result = run(&spec(runtime, Scenario::OriginIncident, 7), &options).unwrap();
    assert!(
        matches!(result.reports[0].outcome, Outcome::Completed { .. }),
        "{:?}",
        result.reports[0].outcome
    );
    let reaping =
        RuntimeChoice::resolve(&personality_file("jvm-reaping-over-http-json")).expect("a file");
    let result = run(&spec(reaping, Scenario::OriginIncident, 7), &options).unwrap();
    let trace = result.trace.as_ref().expect("kept");
    let refusals: Vec<(String, i64)> = trace
        .lines()
        .filter_map(TraceLine::parse)
        .filter_map(|line| match line.event {
            TraceEvent::ErrorAnswered { method, code, .. } => Some((method.into_owned(), code)),
            _ => None,
        })
        .collect();
    assert!(
        refusals.contains(&("GetTask".to_string(), -32001)),
        "the reaped task's get is refused over HTTP+JSON and traced: {refusals:?}"
    );
}
