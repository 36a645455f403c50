//! Three hosts under a fault plan: `alpha`, `beta` and `gamma` answer `GET /` over the
//! harness's `serve`; a client pings them round-robin through `TurmoilConnector` while the
//! plan partitions, slows, crashes and restarts them. Prints the plan, each node's fate, the
//! fault and unreachable-host lines of the trace, and the trace hash (run it twice: same hash).
//!
//! `cargo run -p meshsim-sim --example three_hosts -- [seed]`

use meshsim_trace::{TraceEvent, TraceLine};
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use bytes::Bytes;
use http_body_util::Empty;
use hyper_util::rt::TokioIo;
use meshsim_sim::HostResult;
use meshsim_sim::{Fault, FaultPlan, TimedFault};
use meshsim_sim::{RunConfig, Runner, Seed, SimListener, TurmoilConnector, serve};
use tower::ServiceExt;

const HOSTS: [&str; 3] = ["alpha", "beta", "gamma"];

async fn server(name: &'static str) -> HostResult {
    let router = Router::new().route("/", get(move || async move { format!("pong from {name}") }));
    match serve(SimListener::bind(80).await?, router).await {}
}

async fn ping(
    connector: &TurmoilConnector,
    host: &str,
) -> Result<u16, Box<dyn std::error::Error + Send + Sync>> {
    let uri: http::Uri = format!("http://{host}:80/").parse()?;
    let io = connector.clone().oneshot(uri).await?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io)).await?;
    tokio::task::spawn_local(connection);
    let request = http::Request::get("/")
        .header("host", host)
        .body(Empty::<Bytes>::new())?;
    let response =
        meshsim_time::timeout(Duration::from_millis(300), sender.send_request(request)).await??;
    Ok(response.status().as_u16())
}

async fn caller() -> HostResult {
    let connector = TurmoilConnector::new(Duration::from_millis(200));
    for round in 0..30u64 {
        let host = HOSTS[round as usize % HOSTS.len()];
        match ping(&connector, host).await {
            Ok(status) => TraceEvent::Note {
                note: format!("{host} answered").into(),
                value: Some(u64::from(status)),
            }
            .emit(),
            Err(_) => TraceEvent::Note {
                note: format!("{host} unreachable").into(),
                value: None,
            }
            .emit(),
        }
        meshsim_time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("three_hosts: {err}");
            std::process::ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let seed: Seed = std::env::args().nth(1).as_deref().unwrap_or("42").parse()?;
    let plan = FaultPlan::new(vec![
        TimedFault::new(
            200,
            Fault::Partition {
                a: "caller".into(),
                b: "alpha".into(),
            },
        ),
        TimedFault::new(
            300,
            Fault::Latency {
                a: "caller".into(),
                b: "beta".into(),
                ms: 250,
            },
        ),
        TimedFault::new(
            500,
            Fault::Crash {
                host: "gamma".into(),
            },
        ),
        TimedFault::new(
            900,
            Fault::Repair {
                a: "caller".into(),
                b: "alpha".into(),
            },
        ),
    ]);
    println!("seed {seed}\nplan {}", plan.to_json());

    let config = RunConfig {
        chaos: Duration::from_secs(1),
        liveness: Duration::from_secs(10),
        ..RunConfig::default()
    };
    let mut runner = Runner::new(seed, config);
    runner.plan(plan);
    for host in HOSTS {
        runner.host(host, move || server(host));
    }
    runner.client("caller", caller());
    let run = runner.run()?;

    for line in run
        .trace
        .lines()
        .filter(|line| TraceLine::parse(line).is_some_and(|read| shown(&read.event)))
    {
        println!("{line}");
    }
    for (name, report) in &run.record.nodes {
        println!(
            "{name}: {:?}, started {} times, crashed {} times",
            report.outcome, report.starts, report.crashes
        );
    }
    println!(
        "converged {} after {} ms; trace hash {}",
        run.record.converged, run.record.elapsed_ms, run.record.trace_hash
    );
    Ok(())
}

/// The events worth printing: faults, the heal and the pings that went unanswered.
fn shown(event: &TraceEvent) -> bool {
    match event {
        TraceEvent::Fault { .. } | TraceEvent::Heal { .. } => true,
        TraceEvent::Note { note, .. } => note.ends_with("unreachable"),
        _ => false,
    }
}
