//! `meshsim sweep --fixed-steps` takes every step one by one (idle fast-forward off) and
//! records the same traces: anyone can check fast-forward's sameness on any sweep by
//! comparing the `trace_hash` of its `--json` lines, and `steps` shows the steps it took.

use std::collections::BTreeMap;
use std::process::Command;

/// (replay command) -> (trace hash, steps) of every run of a small sweep.
fn sweep(fixed_steps: bool) -> BTreeMap<String, (String, u64)> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_meshsim"));
    command.args([
        "sweep",
        "--scenario",
        "origin-incident",
        "--runtime",
        "jvm-reaping",
    ]);
    command.args(["--consumer", "reconciling", "--seeds", "3", "--json"]);
    if fixed_steps {
        command.arg("--fixed-steps");
    }
    let output = command.output().expect("meshsim runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).expect("JSON"))
        .filter(|line| line.get("summary").is_none())
        .map(|run| {
            (
                run["replay"]
                    .as_str()
                    .expect("a replay command")
                    .to_string(),
                (
                    run["trace_hash"]
                        .as_str()
                        .expect("a trace hash")
                        .to_string(),
                    run["steps"].as_u64().expect("a step count"),
                ),
            )
        })
        .collect()
}

#[test]
fn every_run_has_the_same_trace_with_every_step_taken_and_takes_more_steps() {
    let fast = sweep(false);
    let fixed = sweep(true);
    assert_eq!(
        fast.len(),
        18,
        "3 dialects, 3 seeds, with and without faults"
    );
    assert_eq!(
        fast.keys().collect::<Vec<_>>(),
        fixed.keys().collect::<Vec<_>>()
    );
    for (run, (hash, steps)) in &fast {
        let (fixed_hash, fixed_steps) = &fixed[run];
        assert_eq!(hash, fixed_hash, "{run}");
        assert!(
            steps < fixed_steps,
            "{run}: {steps} steps, fixed {fixed_steps}"
        );
    }
}
