//! A recorder records every event of its thread even when another thread, with no
//! subscriber, was the first to reach the event's callsite. tracing caches whether anybody
//! wants a callsite at its first event, and while one subscriber is alive it asks only the
//! thread that got there first; the recorder keeps that cache from ruling a recorded
//! callsite out (`sim/src/trace/interest.rs`). Before it, a parallel test serving a runtime
//! on real TCP could cost another test's run its `artifact` lines, and the same seed gave
//! another trace.

use meshsim_sim::{Recorder, SimTime};
use std::process::Command;

/// Set in the child process that runs the scenario alone.
const CHILD: &str = "MESHSIM_CALLSITE_INTEREST_CHILD";

/// The callsite both threads reach.
fn shared_callsite(round: u32) {
    tracing::info!(target: "meshsim::test", round, "reached");
}

/// One thread records; another, with no subscriber, reaches the callsite first.
fn scenario() {
    let recorder = Recorder::new(SimTime::new());
    let guard = recorder.install();
    std::thread::spawn(|| shared_callsite(0))
        .join()
        .expect("the other thread runs");
    shared_callsite(1);
    drop(guard);
    let lines: Vec<String> = recorder.take_trace().lines().map(String::from).collect();
    assert_eq!(lines.len(), 1, "the recording thread's event: {lines:?}");
    assert!(lines[0].contains("\"round\":1"), "{lines:?}");
}

#[test]
fn a_callsite_first_reached_on_a_thread_without_a_recorder_is_still_recorded() {
    if std::env::var_os(CHILD).is_some() {
        scenario();
        return;
    }
    // In a process of its own: the other tests' recorders, alive in this one, would hide
    // what happens where one thread records.
    let output = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "--exact",
            "callsite_interest::a_callsite_first_reached_on_a_thread_without_a_recorder_is_still_recorded",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
