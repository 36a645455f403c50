//! One run: a (seed, scenario, runtime, consumer, dialect, faults) put through the harness
//! and judged by the oracle.

use crate::oracle::{self, Deliveries, Evidence, JobRun, PeerFault, Violation};
use crate::real_profile::real_profile;
use crate::run_spec::{Faults, RunSpec};
use crate::scenario::{AGENT_PORT, CONSUMER_HOST, Layout, SIDECAR_HOST};
use futures_util::future::join_all;
use meshsim_consumer::{Job, JobReport};
use meshsim_runtimes::{Behaviour, GroundTruth, Knobs, Runtime, TaskTruth};
use meshsim_sim::seed_names;
use meshsim_sim::{
    FaultKind, FaultPlan, NodeOutcome, Receipts, RunConfig, RunError, Runner, SimListener, Swarm,
    SwarmSpace, Trace, TurmoilConnector, epoch, receiving_for, serve, sim_clock,
};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;
/// Whether a run held every invariant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Holds,
    Violated,
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub spec: RunSpec,
    pub verdict: Verdict,
    pub violations: Vec<Violation>,
    /// What broke by the peer's doing (a refused cancel, an impossible job), with what the
    /// consumer did about it; not held against the consumer.
    pub peer_faults: Vec<PeerFault>,
    pub trace_hash: String,
    /// The whole plan that was applied (scripted and drawn faults).
    pub plan: FaultPlan,
    /// The swarm's enabled fault kinds, when the swarm drew the plan.
    pub swarm_kinds: Vec<FaultKind>,
    pub elapsed_ms: u64,
    /// How many simulation steps the run took.
    pub steps: u64,
    pub converged: bool,
    pub reports: Vec<JobReport>,
    /// Each runtime host's task records at the end of the run (times on the runtimes'
    /// clock, since the pinned epoch), by host name.
    pub truths: BTreeMap<String, Vec<TaskTruth>>,
    /// The recorded trace, when asked for.
    pub trace: Option<Trace>,
}

/// What to keep of a run beyond its verdict.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub keep_trace: bool,
    pub trace_file: Option<PathBuf>,
    /// Take every step one by one, also where nothing is due (idle fast-forward off). The
    /// trace is the same, byte for byte; only the cost differs. For the sameness test and the
    /// bench's side-by-side figures.
    pub fixed_steps: bool,
}

/// The simulation's timing: steps of `tick`, a 5 s chaos phase, then 30 s for the jobs to
/// finish.
pub fn run_config(tick: Duration) -> RunConfig {
    RunConfig {
        tick,
        chaos: Duration::from_secs(5),
        liveness: Duration::from_secs(30),
        ..RunConfig::default()
    }
}

/// Runs `spec` and judges it.
pub fn run(spec: &RunSpec, options: &RunOptions) -> Result<RunResult, RunError> {
    let config = RunConfig {
        fast_forward: !options.fixed_steps,
        ..run_config(spec.tick)
    };
    let mut layout = spec.scenario.layout(
        &spec.runtime.personality,
        spec.seed.derive(seed_names::WORKLOAD),
    );
    if let Some(limit) = spec.job_limit {
        layout.jobs.truncate(limit.max(1));
    }
    let (plan, swarm_kinds) = fault_plan(spec, &layout, &config);

    let mut runner = Runner::new(spec.seed, config.clone());
    runner.plan(plan);
    if let Some(path) = &options.trace_file {
        runner.trace_file(path);
    }
    let truths = register_agents(&mut runner, spec, &layout);
    let jobs: Vec<(Job, String)> = layout
        .jobs
        .iter()
        .map(|job| {
            let job_spec = Job {
                name: job.name.clone(),
                peer: format!("http://{}:{AGENT_PORT}", layout.entry_host(job)),
                request: job.request.clone(),
                answer: job.answer.clone(),
                deadlines: job.deadlines,
                cancel_at_input_required: job.cancel_at_input_required,
            };
            (job_spec, layout.agents[job.agent].host.clone())
        })
        .collect();
    let reports: Rc<RefCell<Option<Vec<JobReport>>>> = Rc::default();
    let slot = Rc::clone(&reports);
    let consumer = spec.consumer.clone();
    let consumer_seed = spec.seed.derive("consumer").value();
    let to_run: Vec<Job> = jobs.iter().map(|(job, _)| job.clone()).collect();
    // What a user's consumer is sent, per job, so that a task it was told of and left out of
    // its report is still its own. The built-in consumers are judged by their reports, and
    // keep sweeps and the bench free of the cost (with receipts, none of the reconciling
    // consumer's 90,300 swarm runs over seeds 0..1000, 1000..1300 and 10000..13000 is
    // flagged, nor a default run over seeds 0..30).
    let receipts = spec.consumer.builtin_name().is_none().then(Receipts::new);
    let kept = receipts.clone();
    runner.client(CONSUMER_HOST, async move {
        let connector = TurmoilConnector::new(Duration::from_secs(1));
        let connector = match kept {
            Some(receipts) => connector.with_receipts(receipts),
            None => connector,
        };
        let consumer = consumer.build(connector, consumer_seed);
        let done = join_all(to_run.into_iter().map(|job| {
            let name = job.name.clone();
            let consumer = &consumer;
            async move { receiving_for(&name, consumer.run(job)).await }
        }))
        .await;
        *slot.borrow_mut() = Some(done);
        Ok(())
    });
    let mut run = runner.run()?;
    // The plan applied, handed back by the runner.
    let plan = std::mem::take(&mut run.record.plan);

    let mut finished = reports.borrow_mut().take().unwrap_or_default().into_iter();
    let job_runs: Vec<JobRun> = jobs
        .into_iter()
        .map(|(job, host)| JobRun {
            report: finished.next(),
            job,
            host,
        })
        .collect();
    let profiles = expected_profiles(spec, &layout, &plan);
    let personalities = layout
        .agents
        .iter()
        .map(|agent| (agent.host.clone(), agent.personality.clone()))
        .collect();
    let consumer_failure = match run
        .record
        .nodes
        .get(CONSUMER_HOST)
        .map(|node| &node.outcome)
    {
        Some(NodeOutcome::Err { error }) => Some(error.as_str()),
        _ => None,
    };
    let judgement = oracle::judge(&Evidence {
        jobs: &job_runs,
        truths: &truths,
        profiles: &profiles,
        personalities: &personalities,
        converged: run.record.converged,
        consumer_failure,
        end: Duration::from_millis(run.record.elapsed_ms),
        faults_end: if plan.faults.is_empty() {
            Duration::ZERO
        } else {
            run.record
                .healed_at_ms
                .map_or(config.chaos, Duration::from_millis)
        },
        deliveries: &receipts
            .map(|receipts| deliveries(&receipts, &truths))
            .unwrap_or_default(),
        trace: &run.trace,
        job_ends: &BTreeMap::new(),
        epoch: epoch()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default(),
    });
    Ok(RunResult {
        spec: spec.clone(),
        verdict: if judgement.violations.is_empty() {
            Verdict::Holds
        } else {
            Verdict::Violated
        },
        violations: judgement.violations,
        peer_faults: judgement.peer_faults,
        trace_hash: run.record.trace_hash.to_string(),
        plan,
        swarm_kinds,
        elapsed_ms: run.record.elapsed_ms,
        steps: run.record.steps,
        converged: run.record.converged,
        reports: job_runs.into_iter().filter_map(|run| run.report).collect(),
        truths: truths
            .iter()
            .map(|(host, truth)| (host.clone(), truth.tasks()))
            .collect(),
        trace: options.keep_trace.then_some(run.trace),
    })
}

/// Starts every agent (and the sidecar) of `layout`, each with a ground truth that
/// outlives its restarts.
fn register_agents(
    runner: &mut Runner,
    spec: &RunSpec,
    layout: &Layout,
) -> BTreeMap<String, GroundTruth> {
    let mut truths = BTreeMap::new();
    for (index, agent) in layout.agents.iter().enumerate() {
        let host_seed = spec
            .seed
            .derive(seed_names::HOSTS)
            .derive(&agent.host)
            .value();
        let runtime = Runtime::new(
            agent.personality.clone(),
            spec.dialect,
            sim_clock(),
            host_seed,
        )
        .with_shared_behaviour(behaviour_of(spec, index));
        truths.insert(agent.host.clone(), runtime.truth());
        runner.host(agent.host.as_str(), move || {
            let router = runtime.router();
            async move {
                let listener = SimListener::bind(AGENT_PORT).await?;
                match serve(listener, router).await {}
            }
        });
    }
    if let Some(sidecar) = layout.sidecar {
        let backend: http::Uri = format!("http://{}:{AGENT_PORT}/", layout.agents[0].host)
            .parse()
            .expect("host names make valid URIs");
        runner.host(SIDECAR_HOST, move || {
            let router = sidecar.router(
                backend.clone(),
                TurmoilConnector::new(Duration::from_secs(1)),
            );
            async move {
                let listener = SimListener::bind(AGENT_PORT).await?;
                match serve(listener, router).await {}
            }
        });
    }
    truths
}

/// The plan a run applies: the scenario's scripted faults, plus a swarm draw, or exactly
/// the plan given.
fn fault_plan(spec: &RunSpec, layout: &Layout, config: &RunConfig) -> (FaultPlan, Vec<FaultKind>) {
    match &spec.faults {
        Faults::Plan(plan) => (plan.clone(), Vec::new()),
        Faults::None => (FaultPlan::new(layout.scripted.clone()), Vec::new()),
        Faults::Swarm => {
            let mut links = Vec::new();
            for job in &layout.jobs {
                let link = (
                    CONSUMER_HOST.to_string(),
                    layout.entry_host(job).to_string(),
                );
                if !links.contains(&link) {
                    links.push(link);
                }
            }
            if layout.sidecar.is_some() {
                links.push((SIDECAR_HOST.to_string(), layout.agents[0].host.clone()));
            }
            let space = SwarmSpace {
                links,
                hosts: layout
                    .agents
                    .iter()
                    .map(|agent| agent.host.clone())
                    .collect(),
                hooks: Vec::new(),
                chaos_ms: millis(config.chaos),
            };
            let swarm = Swarm::draw(spec.seed.derive(seed_names::FAULTS), &space);
            let mut faults = layout.scripted.clone();
            faults.extend(swarm.plan.faults);
            (
                FaultPlan::new(faults),
                swarm.kinds.keys().copied().collect(),
            )
        }
    }
}

/// The real lifecycle profile of each agent, where the run leaves it well defined: a
/// sidecar cuts streams the runtime would keep, and a host that crashed lost tasks, which
/// from outside is indistinguishable from reaping.
fn expected_profiles(
    spec: &RunSpec,
    layout: &Layout,
    plan: &FaultPlan,
) -> BTreeMap<String, meshsim_consumer::PeerLifecycleProfile> {
    if layout.sidecar.is_some() {
        return BTreeMap::new();
    }
    let restarted = |host: &str| {
        plan.faults
            .iter()
            .any(|timed| timed.fault.host() == Some(host))
    };
    layout
        .agents
        .iter()
        .enumerate()
        .filter(|(_, agent)| !restarted(&agent.host))
        .map(|(index, agent)| {
            let address = format!("{}:{AGENT_PORT}", agent.host);
            let behaviour = behaviour_of(spec, index);
            (
                agent.host.clone(),
                real_profile(&agent.personality, behaviour, &address),
            )
        })
        .collect()
}

/// The behaviour of the layout's agent `index`: the first agent is the runtime under
/// test, which runs the run's behaviour; the others (a mesh's peers) run their knobs.
fn behaviour_of(spec: &RunSpec, index: usize) -> Arc<dyn Behaviour> {
    match index {
        0 => Arc::clone(&spec.runtime.behaviour),
        _ => Arc::new(Knobs),
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Which job was first sent each task's id, from what the consumer's connections received.
fn deliveries(receipts: &Receipts, truths: &BTreeMap<String, GroundTruth>) -> Deliveries {
    let mut deliveries = Deliveries::new();
    for (job, text) in receipts.received() {
        for (host, truth) in truths {
            if truth.knows(&text) {
                oracle::delivered(&mut deliveries, host, text.clone(), job.as_deref(), None);
            }
        }
    }
    deliveries
}
