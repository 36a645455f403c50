//! The reconciling consumer against a runtime that is one tenant of a shared endpoint
//! (`"tenant"` in its file): it takes the tenant from the interface it chose and sends it in
//! every request, so every matrix scenario ends as it does against the same runtime without a
//! tenant, the oracle holding, and the runtime refuses none of its requests for a missing
//! tenant. Over HTTP+JSON every route it takes is under `/{tenant}/`.

use super::divergences::{assert_holds, personality_file};
use super::http_json;
use meshsim_consumer::Outcome;
use meshsim_runtimes::Bindings;
use meshsim_scenarios::{Faults, RunOptions, RunResult, RunSpec, RuntimeChoice, Scenario, run};
use meshsim_trace::{TraceEvent, TraceLine};

const FILES: [&str; 2] = [
    "one-tenant-of-a-shared-endpoint",
    "one-tenant-over-http-json-only",
];

/// The reconciling consumer's v1.0 run of `scenario` against `runtime`, under the seed's
/// swarm faults.
fn spec(runtime: RuntimeChoice, scenario: Scenario, seed: u64) -> RunSpec {
    RunSpec {
        faults: Faults::Swarm,
        ..http_json::spec(runtime, scenario, seed)
    }
}

/// The paths of the calls any runtime read (not Card fetches), and the codes of the
/// refusals the runtime under test answered.
fn calls_and_refusals(result: &RunResult, runtime: &str) -> (Vec<String>, Vec<i64>) {
    let trace = result.trace.as_ref().expect("kept");
    let mut paths = Vec::new();
    let mut refusals = Vec::new();
    for line in trace.lines().filter_map(TraceLine::parse) {
        match line.event {
            TraceEvent::Request { path, .. } if !path.starts_with("/.well-known/") => {
                paths.push(path.into_owned())
            }
            TraceEvent::ErrorAnswered {
                code, runtime: by, ..
            } if by == runtime => refusals.push(code),
            _ => {}
        }
    }
    (paths, refusals)
}

#[test]
fn the_reconciling_consumer_sends_the_tenant_its_interface_declares_in_every_request() {
    let options = RunOptions {
        keep_trace: true,
        ..RunOptions::default()
    };
    for file in FILES {
        let tenanted = RuntimeChoice::resolve(&personality_file(file)).expect("a file");
        let tenant = tenanted
            .personality
            .tenant
            .clone()
            .expect("the file has one");
        let mut untenanted = tenanted.clone();
        untenanted.personality.tenant = None;
        for scenario in Scenario::ALL {
            for seed in [1, 2] {
                let spec = spec(tenanted.clone(), scenario, seed);
                let context = spec.replay_command();
                assert_holds(&spec);
                let result = run(&spec, &options).expect("the run is carried out");
                let (paths, refusals) = calls_and_refusals(&result, file);
                assert!(
                    !refusals.contains(&-32602),
                    "{context}: a request refused for its params (the tenant): {refusals:?}"
                );
                // The runtime under test is the only one serving HTTP+JSON (the mesh's
                // others take JSON-RPC at `/`).
                if tenanted.personality.bindings == Bindings::HttpJson {
                    let prefix = format!("/{tenant}/");
                    let http_json: Vec<&String> =
                        paths.iter().filter(|path| *path != "/").collect();
                    assert!(
                        !http_json.is_empty()
                            && http_json.iter().all(|path| path.starts_with(&prefix)),
                        "{context}: a route outside {prefix}: {paths:?}"
                    );
                }
                let without =
                    run(&http_json::spec_with(&spec, untenanted.clone()), &options).unwrap();
                assert_eq!(
                    outcome_names(&result),
                    outcome_names(&without),
                    "{context}: the same jobs end the same way with the tenant and without"
                );
            }
        }
    }
}

/// Each job's outcome, by kind (completed, gave up, ...).
fn outcome_names(result: &RunResult) -> Vec<std::mem::Discriminant<Outcome>> {
    result
        .reports
        .iter()
        .map(|report| std::mem::discriminant(&report.outcome))
        .collect()
}
