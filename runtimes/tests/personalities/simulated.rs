//! The origin incident's five steps inside the deterministic simulation: each seed runtime on a turmoil
//! host, served by the harness, clocked by simulated time; the same seed gives the same
//! trace, runtime events included.

use crate::support;
use crate::support::{Client, Target};
use meshsim_protocol::{Dialect, TaskState};
use meshsim_runtimes::{Runtime, builtin};
use meshsim_sim::{RunConfig, Runner, Seed, SimListener, serve, sim_clock};
use meshsim_trace::{TraceEvent, TraceLine};

/// Plays the steps against `name` in the simulation; the trace's lines.
fn simulate(name: &'static str, dialect: Dialect, seed: u64) -> Vec<String> {
    let seed = Seed::new(seed);
    let runtime = Runtime::new(
        builtin(name).unwrap(),
        dialect,
        sim_clock(),
        seed.derive(name).value(),
    );
    let truth = runtime.truth();
    let mut runner = Runner::new(seed, RunConfig::default());
    runner.host("agent", move || {
        let router = runtime.router();
        async move { match serve(SimListener::bind(9000).await?, router).await {} }
    });
    runner.client("consumer", async move {
        let client = Client::new(Target::Turmoil("agent:9000".to_string()), dialect);
        support::incident::play(&client, name, Some(&truth)).await;
        Ok(())
    });
    let run = runner.run().expect("the simulation runs");
    run.trace.lines().map(String::from).collect()
}

#[test]
fn seed_steps_in_the_simulation_are_reproducible() {
    for name in ["python-correct", "go-replaying", "jvm-reaping"] {
        for dialect in Dialect::ALL {
            let first = simulate(name, dialect, 42);
            assert_eq!(
                first,
                simulate(name, dialect, 42),
                "{name} {dialect}: same seed, same trace"
            );
            let events: Vec<TraceEvent> = first
                .iter()
                .filter_map(|line| TraceLine::parse(line))
                .map(|line| line.event)
                .collect();
            assert!(
                events.iter().any(|event| matches!(
                    event,
                    TraceEvent::Transition {
                        to: TaskState::InputRequired,
                        ..
                    }
                )),
                "{name}"
            );
            if name == "jvm-reaping" {
                assert!(
                    events
                        .iter()
                        .any(|event| matches!(event, TraceEvent::TaskReaped { .. }))
                );
            }
        }
    }
}

#[test]
fn another_seed_changes_the_work_durations() {
    let a = simulate("python-correct", Dialect::V1_0, 1);
    let b = simulate("python-correct", Dialect::V1_0, 2);
    assert_ne!(a, b);
}

/// Several long streams through a sidecar, the sidecar crashing mid-stream and the agent
/// bouncing: the trace (teardown order included) is the same for the same seed, and the
/// bounced agent's live tasks are lost in its ground truth.
fn crash_through_sidecar(seed: u64) -> (Vec<String>, Vec<meshsim_runtimes::TaskTruth>) {
    use meshsim_runtimes::Sidecar;
    use meshsim_sim::{Fault, FaultPlan, TimedFault};
    let seed = Seed::new(seed);
    let runtime = Runtime::new(
        builtin("python-correct").unwrap(),
        Dialect::V0_3,
        sim_clock(),
        9,
    );
    let truth = runtime.truth();
    let mut runner = Runner::new(seed, RunConfig::default());
    runner.plan(FaultPlan::new(vec![
        TimedFault::new(
            700,
            Fault::Crash {
                host: "edge".into(),
            },
        ),
        TimedFault::new(
            900,
            Fault::Bounce {
                host: "agent".into(),
            },
        ),
    ]));
    runner.host("agent", move || {
        let router = runtime.router();
        async move { match serve(SimListener::bind(9000).await?, router).await {} }
    });
    runner.host("edge", || {
        let sidecar = Sidecar {
            route_timeout_ms: Some(60_000),
            idle_timeout_ms: None,
        };
        let connector = meshsim_sim::TurmoilConnector::new(std::time::Duration::from_secs(1));
        let router = sidecar.router("http://agent:9000/".parse().unwrap(), connector);
        async move { match serve(SimListener::bind(9000).await?, router).await {} }
    });
    runner.client("consumer", async move {
        let client = Client::new(Target::Turmoil("edge:9000".to_string()), Dialect::V0_3);
        let mut streams = Vec::new();
        for job in 0..3 {
            let params = client.message(&format!("#long job {job}"), None);
            streams.push(client.send_streaming(params).await.stream());
        }
        for mut stream in streams {
            while let Ok(Some(_)) = stream.next_or_broken().await {}
        }
        // Stay until the agent has bounced.
        meshsim_time::sleep(std::time::Duration::from_secs(1)).await;
        Ok(())
    });
    let run = runner.run().expect("the simulation runs");
    (run.trace.lines().map(String::from).collect(), truth.tasks())
}

#[test]
fn a_crashing_sidecar_and_a_bouncing_agent_replay_identically() {
    let (trace, tasks) = crash_through_sidecar(5);
    assert_eq!(trace, crash_through_sidecar(5).0);
    assert_eq!(tasks.len(), 3);
    for task in &tasks {
        assert!(
            matches!(task.fate, Some(meshsim_runtimes::Fate::Lost { .. })),
            "the bounce loses a task the crash left running: {task:?}"
        );
    }
}
