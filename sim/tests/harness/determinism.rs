//! The determinism check: the SSE mesh (two hosts, three concurrent streaming clients, a
//! partition, a latency change, a hold and a bounce) run with the same seed in two separate
//! processes gives the same trace hash; two seeds give different hashes.
//!
//! The parent test re-executes this test binary, filtered to `determinism::sse_mesh_run`, with the seed
//! in `MESHSIM_CHILD_SEED`; the child prints its hash on a `TRACE_HASH` line.

use std::process::{Command, Output};

use crate::sse_mesh;
use meshsim_sim::{NodeOutcome, Seed};
use meshsim_trace::TraceEvent;

const CHILD_SEED: &str = "MESHSIM_CHILD_SEED";

#[test]
fn sse_mesh_run() {
    let seed = match std::env::var(CHILD_SEED) {
        Ok(text) => text.parse::<Seed>().expect("MESHSIM_CHILD_SEED is a seed"),
        Err(_) => Seed::new(1),
    };
    let run = sse_mesh::run(seed, sse_mesh::plan());
    let record = &run.record;
    assert!(record.converged, "clients did not finish: {record:#?}");
    for client in sse_mesh::CLIENTS {
        assert_eq!(
            record.nodes[client].outcome,
            NodeOutcome::Ok,
            "{client}: {record:#?}"
        );
    }
    assert_eq!(
        record.nodes["agent-b"].starts, 2,
        "the bounce restarted agent-b"
    );
    let events = run.trace.events();
    let count = |wanted: &dyn Fn(&TraceEvent) -> bool| {
        events.iter().filter(|line| wanted(&line.event)).count()
    };
    let note = |name: &'static str| move |event: &TraceEvent| matches!(event, TraceEvent::Note { note, .. } if note == name);
    assert_eq!(
        count(&|event| matches!(event, TraceEvent::Fault { .. })),
        sse_mesh::plan().faults.len()
    );
    assert!(
        count(&|event| matches!(event, TraceEvent::StreamFrame { .. })) as u64
            >= 3 * sse_mesh::EVENTS
    );
    assert_eq!(
        count(&note("received")) as u64,
        3 * sse_mesh::EVENTS,
        "every event reaches its client exactly once"
    );
    assert!(
        count(&note("retry")) > 0,
        "the faults must break some streams"
    );
    println!("TRACE_HASH {}", record.trace_hash);
}

fn spawn_child(seed: Seed) -> std::process::Child {
    Command::new(std::env::current_exe().expect("test binary path"))
        .args([
            "--exact",
            "determinism::sse_mesh_run",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_SEED, seed.to_string())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("re-executing the test binary")
}

fn hash_of(output: Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .find_map(|line| line.split_once("TRACE_HASH ").map(|(_, hash)| hash.trim()))
        .unwrap_or_else(|| panic!("no TRACE_HASH line in:\n{stdout}"))
        .to_string()
}

#[test]
fn same_seed_same_hash_across_processes_and_seeds_differ() {
    let children = [Seed::new(7), Seed::new(7), Seed::new(8)].map(spawn_child);
    let [first, second, other] = children.map(|child| hash_of(child.wait_with_output().unwrap()));
    println!("seed 7: {first}\nseed 7: {second}\nseed 8: {other}");
    assert_eq!(
        first, second,
        "same seed, different processes, different traces"
    );
    assert_ne!(first, other, "two seeds produced the same trace");
}
