//! (b) The origin incident outside the simulation: the runtime's axum router served on
//! real loopback TCP (`meshsim_sim::serve` on a tokio listener, wall clock, real timers)
//! and the reconciling consumer over `TcpConnector`. Same seed, same work durations, same
//! job as the simulated run without faults; only the network and the clock are real.

use super::workload::DIALECT;
use crate::consumer_choice::sim_client;
use crate::scenario::Scenario;
use futures_util::future::join_all;
use meshsim_consumer::{
    Consumer, Job, Outcome, ReconcilingConfig, ReconcilingConsumer, TcpConnector,
};
use meshsim_protocol::clock::Clock;
use meshsim_runtimes::{Runtime, resolve};
use meshsim_sim::Seed;
use meshsim_sim::seed_names;
use serde::Serialize;
use std::time::{Duration, Instant};

/// One real run of the incident.
#[derive(Debug, Clone, Serialize)]
pub struct RealRun {
    pub personality: String,
    pub seed: u64,
    pub wall_ms: f64,
    /// Whether the job completed (it does without faults).
    pub completed: bool,
}

/// The longest a real run may take before it counts as failed: the job's own deadline
/// plus a margin.
const REAL_RUN_BOUND: Duration = Duration::from_secs(40);

/// Runs the incident over real loopback TCP for every (personality, seed), all at once on
/// one current-thread runtime (each run mostly waits on its work durations), and times
/// each run on its own.
pub fn real_runs(runs: &[(String, u64)]) -> Result<Vec<RealRun>, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    runtime.block_on(async {
        let all = runs
            .iter()
            .map(|(personality, seed)| real_run(personality, *seed));
        join_all(all).await.into_iter().collect()
    })
}

async fn real_run(personality_name: &str, seed: u64) -> Result<RealRun, String> {
    let personality = resolve(personality_name).map_err(|error| error.to_string())?;
    let seed_tree = Seed::new(seed);
    let layout =
        Scenario::OriginIncident.layout(&personality, seed_tree.derive(seed_names::WORKLOAD));
    let agent = &layout.agents[0];
    let host_seed = seed_tree
        .derive(seed_names::HOSTS)
        .derive(&agent.host)
        .value();
    let runtime = Runtime::new(agent.personality.clone(), DIALECT, Clock::wall(), host_seed);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|error| format!("cannot listen on loopback: {error}"))?;
    let addr = listener.local_addr().map_err(|error| error.to_string())?;
    let server = tokio::spawn(meshsim_sim::serve(listener, runtime.router()));
    let spec = &layout.jobs[0];
    let job = Job {
        name: spec.name.clone(),
        peer: format!("http://{addr}"),
        request: spec.request.clone(),
        answer: spec.answer.clone(),
        deadlines: spec.deadlines,
        cancel_at_input_required: spec.cancel_at_input_required,
    };
    let config = ReconcilingConfig {
        client: sim_client(),
        ..ReconcilingConfig::default()
    };
    let consumer = ReconcilingConsumer::new(
        TcpConnector::new(Duration::from_secs(1)),
        config,
        seed_tree.derive("consumer").value(),
    );
    let start = Instant::now(); // wall-clock-ok: the benchmark times a real run from outside
    let report = meshsim_time::timeout(REAL_RUN_BOUND, consumer.run(job)).await;
    let wall = start.elapsed();
    server.abort();
    let report = report.map_err(|_| {
        format!("the real run of {personality_name} seed {seed} took over {REAL_RUN_BOUND:?}")
    })?;
    Ok(RealRun {
        personality: personality_name.to_string(),
        seed,
        wall_ms: wall.as_secs_f64() * 1000.0,
        completed: matches!(report.outcome, Outcome::Completed { .. }),
    })
}
