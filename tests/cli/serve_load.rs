//! `meshsim serve` under load on loopback: N tasks run the origin incident's script at once (stream a
//! request, stop at input-required, stream the answer, read to completed, confirm with
//! GetTask), each over its own connections; every task holds its first stream open until all
//! N are open together. Every task must reach `completed`; the figures (streams held at
//! once, tasks completed, the server's peak RSS, p50/p99 latencies) are printed, not
//! asserted against a clock.
//!
//! Always on: 200 streams. The full run (2,000 streams):
//! `cargo test --test cli serve_load -- --ignored --nocapture`.

use crate::hardening;
use crate::support;
use crate::support::{Client, Target};
use meshsim_protocol::{Dialect, RpcResult, StreamEvent, TaskState};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::Barrier;

/// What one task's run measured.
struct Lifecycle {
    /// From the first request to the first event.
    first_event: Duration,
    /// From the first request to `completed` confirmed by GetTask.
    whole: Duration,
}

/// Streams open right now and the most seen at once.
#[derive(Default)]
struct Gauge {
    open: AtomicUsize,
    peak: AtomicUsize,
}

impl Gauge {
    fn opened(&self) {
        let open = self.open.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(open, Ordering::SeqCst);
    }

    fn closed(&self) {
        self.open.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Reads a stream until it reports `state` (or closes); the states seen.
async fn read_until(stream: &mut support::EventReader, state: TaskState) -> Vec<TaskState> {
    let mut seen = Vec::new();
    while let Some(response) = stream.next().await {
        if let Ok(RpcResult::Event(event)) = response.outcome
            && let Some(now) = StreamEvent::state(&event)
        {
            seen.push(now);
            if now == state {
                break;
            }
        }
    }
    seen
}

/// The origin incident's script for one task: question, answer, completion. Every task holds its first
/// stream open at `all_open` until every other task has its own open too, so the server
/// carries all of them at once however the machine schedules the clients.
async fn lifecycle(
    client: Client,
    n: usize,
    gauge: Arc<Gauge>,
    all_open: Arc<Barrier>,
) -> Lifecycle {
    let started = Instant::now();
    let mut stream = client
        .send_streaming(client.message(&format!("plan {n}"), None))
        .await
        .stream();
    gauge.opened();
    let first = stream.next_event().await;
    let first_event = started.elapsed();
    let id = first
        .task_id()
        .expect("the first event names the task")
        .to_string();
    all_open.wait().await;
    let states = read_until(&mut stream, TaskState::InputRequired).await;
    drop(stream);
    gauge.closed();
    assert_eq!(
        states.last(),
        Some(&TaskState::InputRequired),
        "task {n}: {states:?}"
    );

    let mut stream = client
        .send_streaming(client.message(&format!("answer {n}"), Some(&id)))
        .await
        .stream();
    gauge.opened();
    let states = read_until(&mut stream, TaskState::Completed).await;
    drop(stream);
    gauge.closed();
    assert_eq!(
        states.last(),
        Some(&TaskState::Completed),
        "task {n}: {states:?}"
    );
    let task = client.get(&id).await.task();
    assert_eq!(task.status.state, TaskState::Completed, "task {n}");
    Lifecycle {
        first_event,
        whole: started.elapsed(),
    }
}

/// The soft limit on open files, from /proc (Linux); `None` elsewhere.
fn open_file_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// A process's peak resident set (VmHWM), in KiB.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// Runs `tasks` lifecycles at once against a fresh server whose work steps take
/// `work_ms`, and prints the figures.
fn load(tasks: usize, work_ms: (u64, u64)) {
    // Each task holds one client and one server socket at a time, plus slack.
    if let Some(limit) = open_file_limit() {
        assert!(
            limit > tasks + 256,
            "ulimit -n is {limit}: raise it above {} for {tasks} streams",
            tasks + 256
        );
    }
    std::fs::write(
        hardening::scratch().join("load.json"),
        format!(
            r#"{{"name": "load", "work": {{"min_ms": {}, "max_ms": {}}}}}"#,
            work_ms.0, work_ms.1
        ),
    )
    .expect("write personality");
    let served = hardening::serve(&[
        "--runtime",
        "load.json",
        "--max-streams",
        &(tasks + 16).to_string(),
        "--max-tasks",
        &(tasks * 2).to_string(),
    ]);
    let addr = served.addr;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let gauge = Arc::new(Gauge::default());
    let all_open = Arc::new(Barrier::new(tasks));
    let started = Instant::now();
    let results = runtime.block_on(async {
        let mut running = Vec::new();
        for n in 0..tasks {
            let client = Client::new(Target::Tcp(addr), Dialect::V1_0);
            running.push(tokio::spawn(meshsim_time::timeout(
                Duration::from_secs(120),
                lifecycle(client, n, Arc::clone(&gauge), Arc::clone(&all_open)),
            )));
            // A ramp of 100 connections per 20 ms stays under the listen backlog.
            if n % 100 == 99 {
                meshsim_time::sleep(Duration::from_millis(20)).await;
            }
        }
        let mut results = Vec::new();
        for task in running {
            results.push(task.await);
        }
        results
    });
    let elapsed = started.elapsed();
    let rss = peak_rss_kib(served.child.id());
    let mut lost = Vec::new();
    let mut first_events = Vec::new();
    let mut wholes = Vec::new();
    for (n, result) in results.into_iter().enumerate() {
        match result {
            Ok(Ok(lifecycle)) => {
                first_events.push(lifecycle.first_event);
                wholes.push(lifecycle.whole);
            }
            Ok(Err(_)) => lost.push(format!("task {n}: no completion within 120 s")),
            Err(panic) => lost.push(format!("task {n}: {panic}")),
        }
    }
    first_events.sort();
    wholes.sort();
    println!(
        "serve load: {tasks} tasks, {} completed, {} lost, {} streams held at once, \
         server peak RSS {} KiB, first event p50 {:?} p99 {:?}, whole task p50 {:?} p99 {:?} \
         ({}-{} ms work steps), wall {:?}",
        wholes.len(),
        lost.len(),
        gauge.peak.load(Ordering::SeqCst),
        rss.map_or("?".to_string(), |kib| kib.to_string()),
        percentile(&first_events, 0.5),
        percentile(&first_events, 0.99),
        percentile(&wholes, 0.5),
        percentile(&wholes, 0.99),
        work_ms.0,
        work_ms.1,
        elapsed,
    );
    assert!(
        lost.is_empty(),
        "{} tasks lost: {:?}",
        lost.len(),
        &lost[..lost.len().min(5)]
    );
    // Every stream was open at the same time: each task held its first one at the barrier.
    assert_eq!(gauge.peak.load(Ordering::SeqCst), tasks);
}

#[test]
fn two_hundred_concurrent_streams_all_complete() {
    load(200, (1000, 1500));
}

/// `MESHSIM_LOAD_STREAMS` sets the count (default 2,000).
#[test]
#[ignore = "2,000 streams, about 15 s: cargo test --test cli serve_load -- --ignored --nocapture"]
fn two_thousand_concurrent_streams_all_complete() {
    let streams = std::env::var("MESHSIM_LOAD_STREAMS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(2000);
    load(streams, (1500, 2500));
}
