//! The seed's five steps inside the deterministic simulation: each seed runtime on a turmoil
//! host, served by the harness, clocked by simulated time; the same seed gives the same
//! trace, runtime events included.

mod support;

use meshsim_protocol::Dialect;
use meshsim_runtimes::{Runtime, builtin};
use meshsim_sim::{RunConfig, Runner, Seed, SimListener, serve, sim_clock};
use support::{Client, Target};

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
        support::seed::play(&client, name, Some(&truth)).await;
        Ok(())
    });
    let run = runner.run().expect("the simulation runs");
    run.trace.lines().to_vec()
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
            let runtime_lines: Vec<&String> = first
                .iter()
                .filter(|line| line.contains("meshsim::runtime"))
                .collect();
            assert!(
                runtime_lines
                    .iter()
                    .any(|line| line.contains("input-required")),
                "{name}"
            );
            if name == "jvm-reaping" {
                assert!(
                    runtime_lines
                        .iter()
                        .any(|line| line.contains("task reaped"))
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
