//! A tiny generic SSE mesh: two hosts serve a numbered event stream over the harness's
//! `serve`, three clients stream from them concurrently over `TurmoilConnector`, resuming
//! after every failure from the last event they received, until each has all events.

use std::convert::Infallible;
use std::error::Error;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Query;
use axum::response::Response;
use axum::routing::get;
use bytes::Bytes;
use http::Request;
use http::header::{CONTENT_TYPE, HOST};
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;
use meshsim_sim::HostResult;
use meshsim_sim::{Fault, FaultPlan, TimedFault};
use meshsim_sim::{Run, RunConfig, Runner, Seed, SimListener, SwarmSpace, TurmoilConnector, serve};
use meshsim_trace::TraceEvent;
use serde::Deserialize;
use tower::ServiceExt;

pub const HOSTS: [&str; 2] = ["agent-a", "agent-b"];
pub const CLIENTS: [&str; 3] = ["client-0", "client-1", "client-2"];
const PORT: u16 = 8080;
/// Events per stream.
pub const EVENTS: u64 = 30;
const CHAOS_MS: u64 = 1_500;

#[derive(Deserialize)]
struct From {
    from: u64,
}

fn router(host: &'static str) -> Router {
    Router::new().route(
        "/events",
        get(move |Query(query): Query<From>| events(host, query.from)),
    )
}

async fn events(host: &'static str, from: u64) -> Response {
    let stream = futures_util::stream::unfold(from, move |seq| async move {
        if seq >= EVENTS {
            return None;
        }
        meshsim_time::sleep(Duration::from_millis(50)).await;
        TraceEvent::Note {
            note: "emit".into(),
            value: Some(seq),
        }
        .emit();
        let frame = Bytes::from(format!("data: {host}:{seq}\n\n"));
        Some((Ok::<_, Infallible>(frame), seq + 1))
    });
    let mut response = Response::new(Body::from_stream(stream));
    response.headers_mut().insert(
        CONTENT_TYPE,
        "text/event-stream".parse().expect("static header"),
    );
    response
}

async fn host_software(host: &'static str) -> HostResult {
    let listener = SimListener::bind(PORT).await?;
    match serve(listener, router(host)).await {}
}

/// Streams events `next..` once; returns when the stream ends or fails.
async fn stream_once(
    connector: &TurmoilConnector,
    target: &str,
    next: &mut u64,
) -> Result<(), Box<dyn Error + Send + Sync>> {
    let uri: http::Uri = format!("http://{target}:{PORT}/events?from={next}").parse()?;
    let io = connector.clone().oneshot(uri.clone()).await?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io)).await?;
    tokio::spawn(connection);
    let request = Request::get(uri.path_and_query().map_or("/", |p| p.as_str()))
        .header(HOST, format!("{target}:{PORT}"))
        .body(Empty::<Bytes>::new())?;
    let response = sender.send_request(request).await?;
    if response.status() != 200 {
        return Err(format!("status {}", response.status()).into());
    }
    let mut body = response.into_body();
    let mut pending = String::new();
    while let Some(frame) = body.frame().await {
        if let Some(data) = frame?.data_ref() {
            pending.push_str(std::str::from_utf8(data)?);
            while let Some(end) = pending.find("\n\n") {
                let event: String = pending.drain(..end + 2).collect();
                let payload = event.trim().trim_start_matches("data: ");
                let (_sender, seq) = payload.split_once(':').ok_or("malformed event")?;
                let seq: u64 = seq.parse()?;
                if seq != *next {
                    return Err(format!("expected event {next}, got {seq}").into());
                }
                TraceEvent::Note {
                    note: "received".into(),
                    value: Some(seq),
                }
                .emit();
                *next += 1;
            }
        }
    }
    Ok(())
}

async fn client_software(target: &'static str) -> HostResult {
    let connector = TurmoilConnector::new(Duration::from_millis(300))
        .with_read_idle_timeout(Duration::from_millis(250));
    let mut next = 0;
    let mut attempts = 0;
    while next < EVENTS {
        attempts += 1;
        if attempts > 100 {
            return Err(format!("gave up at event {next}").into());
        }
        if stream_once(&connector, target, &mut next).await.is_err() {
            TraceEvent::Note {
                note: "retry".into(),
                value: Some(next),
            }
            .emit();
            meshsim_time::sleep(Duration::from_millis(50)).await;
        }
    }
    TraceEvent::Note {
        note: "done".into(),
        value: Some(attempts),
    }
    .emit();
    Ok(())
}

/// Partition, latency, hold and a bounce, all hitting live streams.
pub fn plan() -> FaultPlan {
    let link = |a: &str, b: &str| (a.to_string(), b.to_string());
    let (c0, a) = link(CLIENTS[0], HOSTS[0]);
    let (c1, b) = link(CLIENTS[1], HOSTS[1]);
    let c2 = CLIENTS[2].to_string();
    FaultPlan::new(vec![
        TimedFault::new(
            150,
            Fault::Partition {
                a: c0.clone(),
                b: a.clone(),
            },
        ),
        TimedFault::new(
            300,
            Fault::Latency {
                a: b.clone(),
                b: c1.clone(),
                ms: 120,
            },
        ),
        TimedFault::new(
            600,
            Fault::Repair {
                a: c0,
                b: a.clone(),
            },
        ),
        TimedFault::new(700, Fault::Bounce { host: b.clone() }),
        TimedFault::new(800, Fault::LatencyReset { a: b, b: c1 }),
        TimedFault::new(
            1_000,
            Fault::Hold {
                a: c2.clone(),
                b: a.clone(),
            },
        ),
        TimedFault::new(1_100, Fault::Release { a: c2, b: a }),
    ])
}

/// What swarm mode may touch in this mesh.
pub fn space() -> SwarmSpace {
    SwarmSpace {
        links: CLIENTS
            .iter()
            .flat_map(|client| HOSTS.map(|host| (client.to_string(), host.to_string())))
            .collect(),
        hosts: HOSTS.iter().map(|s| s.to_string()).collect(),
        hooks: vec![],
        chaos_ms: CHAOS_MS,
    }
}

/// Runs the mesh under `plan`.
pub fn run(seed: Seed, plan: FaultPlan) -> Run {
    let config = RunConfig {
        chaos: Duration::from_millis(CHAOS_MS),
        liveness: Duration::from_secs(20),
        ..RunConfig::default()
    };
    let mut runner = Runner::new(seed, config);
    runner.plan(plan);
    for host in HOSTS {
        runner.host(host, move || host_software(host));
    }
    for (i, client) in CLIENTS.into_iter().enumerate() {
        runner.client(client, client_software(HOSTS[i % HOSTS.len()]));
    }
    runner.run().expect("the mesh runs")
}
