//! The [`Runner`] builder and its step loop.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::pin::Pin;
use std::rc::Rc;
use std::time::Duration;

use futures_util::FutureExt;

use super::apply::World;
use super::config::RunConfig;
use super::fast_forward::{Upcoming, idle_steps};
use super::record::{NodeOutcome, NodeReport, Reports, Role, Run, RunRecord};
use crate::Seed;
use crate::fault::{FaultPlan, Hooks, PlanError};
use crate::seed_names;
use crate::sim_time::SimTime;
use crate::trace::Recorder;
use meshsim_trace::{ErrorKind, TraceEvent};

/// What host and client software returns (turmoil's result type).
pub type HostResult = Result<(), Box<dyn Error>>;

type LocalFuture = Pin<Box<dyn Future<Output = HostResult>>>;
type Software = Rc<dyn Fn() -> LocalFuture>;
type Check = Box<dyn FnMut(CheckPoint) -> Result<(), String>>;

/// The phase a run is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Faults are being applied.
    Chaos,
    /// Links repaired, no new faults; clients must finish within the liveness bound.
    Heal,
}

/// When a safety check runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckPoint {
    /// Simulated time since the run started.
    pub elapsed: Duration,
    /// The current phase.
    pub phase: Phase,
}

/// Why a run could not be carried out (a run that merely fails its checks still returns a
/// [`Run`]).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The run configuration is unusable.
    #[error("invalid run configuration: {0}")]
    Config(String),
    /// Two nodes share a name.
    #[error("node name {0:?} is registered twice")]
    DuplicateNode(String),
    /// The plan does not fit the registered nodes or the chaos phase.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The trace file could not be written.
    #[error("trace file {path}: {source}")]
    TraceFile {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// Turmoil stopped the simulation.
    #[error("simulation failed: {0}")]
    Simulation(String),
}

/// Builds and runs one simulation.
///
/// ```no_run
/// # use meshsim_sim::{Runner, RunConfig, Seed, FaultPlan};
/// let mut runner = Runner::new(Seed::new(7), RunConfig::default());
/// runner.plan(FaultPlan::none());
/// runner.host("server", || async { Ok(()) });
/// runner.client("client", async { Ok(()) });
/// let run = runner.run().expect("run");
/// println!("{}", run.record.trace_hash);
/// ```
pub struct Runner {
    seed: Seed,
    config: RunConfig,
    plan: FaultPlan,
    hooks: Hooks,
    hosts: Vec<(String, Software)>,
    clients: Vec<(String, LocalFuture)>,
    check: Option<(Duration, Check)>,
    trace_file: Option<PathBuf>,
}

impl Runner {
    /// A run of `seed` with `config` and no faults yet.
    pub fn new(seed: Seed, config: RunConfig) -> Self {
        Self {
            seed,
            config,
            plan: FaultPlan::none(),
            hooks: Hooks::new(),
            hosts: Vec::new(),
            clients: Vec::new(),
            check: None,
            trace_file: None,
        }
    }

    /// The root seed.
    pub fn seed(&self) -> Seed {
        self.seed
    }

    /// The named hooks of this run: subscribe before registering the hosts that react.
    pub fn hooks(&self) -> Hooks {
        self.hooks.clone()
    }

    /// The faults to apply during the chaos phase.
    pub fn plan(&mut self, plan: FaultPlan) -> &mut Self {
        self.plan = plan;
        self
    }

    /// Registers host `name` running `software()`; called again on every bounce.
    pub fn host<F, Fut>(&mut self, name: impl Into<String>, software: F) -> &mut Self
    where
        F: Fn() -> Fut + 'static,
        Fut: Future<Output = HostResult> + 'static,
    {
        let software: Software = Rc::new(move || Box::pin(software()));
        self.hosts.push((name.into(), software));
        self
    }

    /// Registers client `name` running `future` once; the run lasts until all clients finish
    /// (or the liveness bound passes).
    pub fn client<Fut>(&mut self, name: impl Into<String>, future: Fut) -> &mut Self
    where
        Fut: Future<Output = HostResult> + 'static,
    {
        self.clients.push((name.into(), Box::pin(future)));
        self
    }

    /// Runs `check` every `every` of simulated time in both phases; the first `Err` stops the
    /// run and becomes the record's violation.
    pub fn check(
        &mut self,
        every: Duration,
        check: impl FnMut(CheckPoint) -> Result<(), String> + 'static,
    ) -> &mut Self {
        self.check = Some((every.max(self.config.tick), Box::new(check)));
        self
    }

    /// Also writes the trace as JSONL to `path`.
    pub fn trace_file(&mut self, path: impl Into<PathBuf>) -> &mut Self {
        self.trace_file = Some(path.into());
        self
    }

    /// Runs the simulation on this thread.
    pub fn run(self) -> Result<Run, RunError> {
        let Runner {
            seed,
            config,
            plan,
            hooks,
            hosts,
            clients,
            mut check,
            trace_file,
        } = self;
        let host_names: BTreeSet<String> = hosts.iter().map(|(n, _)| n.clone()).collect();
        let client_names: BTreeSet<String> = clients.iter().map(|(n, _)| n.clone()).collect();
        let mut seen = BTreeSet::new();
        for name in hosts
            .iter()
            .map(|(n, _)| n)
            .chain(clients.iter().map(|(n, _)| n))
        {
            if !seen.insert(name.clone()) {
                return Err(RunError::DuplicateNode(name.clone()));
            }
        }
        config.validate().map_err(RunError::Config)?;
        plan.validate(&host_names, &client_names, config.chaos)?;

        let time = SimTime::new();
        let recorder = Recorder::new(time.clone());
        if let Some(path) = &trace_file {
            recorder
                .write_to(path)
                .map_err(|source| RunError::TraceFile {
                    path: path.display().to_string(),
                    source,
                })?;
        }
        let guard = recorder.install();
        // Every host timer enters its deadline here, for idle fast-forward.
        let deadlines = meshsim_time::Deadlines::new();
        let timers = meshsim_time::watch(deadlines.clone(), turmoil::sim_elapsed);

        let mut sim = turmoil_builder(seed, &config).build();
        let reports: Reports = Rc::new(RefCell::new(BTreeMap::new()));
        let has_clients = !clients.is_empty();
        let nodes = register_nodes(&mut sim, &reports, hosts, clients);

        let deadline = config.chaos + config.liveness;
        let mut world = World {
            sim: &mut sim,
            config: &config,
            hooks: &hooks,
            reports: &reports,
            touched: Default::default(),
        };
        let mut pending = plan.faults.iter().peekable();
        let mut healed_at = None;
        let mut next_check = Duration::ZERO;
        let mut violation = None;
        let mut clients_done = false;
        let mut steps_taken: u64 = 0;
        loop {
            let now = world.sim.elapsed();
            time.set_elapsed(now);
            // Whether the runner touched the world at this step start: a fault or the heal
            // may hand a host work that no timer or message shows.
            let mut acted = false;
            if healed_at.is_none() && now >= config.chaos {
                world.heal(&nodes);
                healed_at = Some(now);
                acted = true;
            }
            // Turmoil sets a host's clock on the host's first tick: a host crashed before
            // that and then bounced panics ("host instant not set") as soon as its software
            // reads the time. So faults strike from the first step on; one drawn at 0 ms
            // strikes one tick later.
            let started = !now.is_zero();
            while let Some(timed) =
                pending.next_if(|f| started && healed_at.is_none() && f.at() <= now)
            {
                world.apply(timed.at_ms, &timed.fault);
                acted = true;
            }
            if let Some((every, check)) = check.as_mut()
                && now >= next_check
            {
                next_check = now + *every;
                let phase = if healed_at.is_some() {
                    Phase::Heal
                } else {
                    Phase::Chaos
                };
                if let Err(message) = check(CheckPoint {
                    elapsed: now,
                    phase,
                }) {
                    TraceEvent::Violation {
                        message: message.as_str().into(),
                    }
                    .emit();
                    violation = Some(message);
                    break;
                }
            }
            if (has_clients && clients_done) || now >= deadline {
                break;
            }
            let steps = if config.fast_forward && !config.random_node_order && started && !acted {
                let upcoming = Upcoming {
                    inside_hosts: earliest(
                        deadlines.next(),
                        world.sim.next_delivery().map(|delay| now + delay),
                    ),
                    between_steps: [
                        pending
                            .peek()
                            .filter(|_| healed_at.is_none())
                            .map(|f| f.at()),
                        healed_at.is_none().then_some(config.chaos),
                        check.as_ref().map(|_| next_check),
                        Some(deadline),
                    ]
                    .into_iter()
                    .flatten()
                    .min(),
                };
                idle_steps(now, config.tick, upcoming)
            } else {
                1
            };
            let step = config.tick * steps;
            time.set_stepping(true);
            // Turmoil panics on some overloads (e.g. an accept backlog beyond `tcp_capacity`):
            // report that as a failed run instead of unwinding through the caller.
            let stepped = std::panic::catch_unwind(AssertUnwindSafe(|| world.sim.step_by(step)));
            steps_taken += 1;
            time.set_stepping(false);
            clients_done = match stepped {
                Ok(result) => result.map_err(|err| RunError::Simulation(err.to_string()))?,
                Err(panic) => {
                    return Err(RunError::Simulation(format!(
                        "turmoil panicked: {}",
                        panic_message(panic.as_ref())
                    )));
                }
            };
        }
        let elapsed = world.sim.elapsed();
        time.set_elapsed(elapsed);
        TraceEvent::End { clients_done }.emit();
        // Stop recording before tearing the hosts down: the runtime drops `tokio::spawn`ed
        // tasks in an order that depends on process-global task ids.
        drop(guard);
        drop(world);
        drop(sim);
        drop(timers);
        recorder.flush().map_err(|source| RunError::TraceFile {
            path: trace_file
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            source,
        })?;
        let trace = recorder.take_trace();
        let nodes = reports.borrow().clone();
        let converged = violation.is_none() && (!has_clients || clients_done);
        let record = RunRecord {
            seed: seed.value(),
            seed_hex: format!("{:#018x}", seed.value()),
            plan,
            trace_hash: trace.hash().clone(),
            elapsed_ms: millis(elapsed),
            steps: steps_taken,
            healed_at_ms: healed_at.map(millis),
            converged,
            violation,
            nodes,
        };
        Ok(Run { record, trace })
    }
}

/// A turmoil builder pinned to the run's seed, epoch and network settings.
fn turmoil_builder(seed: Seed, config: &RunConfig) -> turmoil::Builder {
    let mut builder = turmoil::Builder::new();
    builder
        .epoch(config.epoch)
        .rng_seed(seed.derive(seed_names::TURMOIL).value())
        .tick_duration(config.tick)
        // Past the runner's own bound, so the runner always decides when a run ends.
        .simulation_duration(config.chaos + config.liveness + Duration::from_secs(1))
        .min_message_latency(config.min_latency)
        .max_message_latency(config.max_latency)
        .tcp_capacity(config.tcp_capacity);
    if config.random_node_order {
        builder.enable_random_order();
    }
    builder
}

/// Registers every node under supervision; returns the names in registration order.
fn register_nodes(
    sim: &mut turmoil::Sim<'_>,
    reports: &Reports,
    hosts: Vec<(String, Software)>,
    clients: Vec<(String, LocalFuture)>,
) -> Vec<String> {
    let mut nodes = Vec::new();
    for (name, software) in hosts {
        register(reports, &name, Role::Host);
        let (reports, node) = (reports.clone(), name.clone());
        sim.host(name.as_str(), move || {
            supervise(software(), reports.clone(), node.clone())
        });
        nodes.push(name);
    }
    for (name, future) in clients {
        register(reports, &name, Role::Client);
        sim.client(
            name.as_str(),
            supervise(future, reports.clone(), name.clone()),
        );
        nodes.push(name);
    }
    nodes
}

/// The earlier of two optional moments.
fn earliest(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn register(reports: &Reports, name: &str, role: Role) {
    reports.borrow_mut().insert(
        name.to_string(),
        NodeReport {
            role,
            outcome: NodeOutcome::Unfinished,
            starts: 0,
            crashes: 0,
        },
    );
}

/// Runs `software`, recording how it ends; always `Ok` to turmoil so that one failing node
/// does not stop the simulation.
async fn supervise(software: LocalFuture, reports: Reports, name: String) -> HostResult {
    if let Some(report) = reports.borrow_mut().get_mut(&name) {
        report.starts += 1;
        report.outcome = NodeOutcome::Unfinished;
    }
    // The report keeps the error's text; the trace names only its kind.
    let (outcome, kind) = match AssertUnwindSafe(software).catch_unwind().await {
        Ok(Ok(())) => (NodeOutcome::Ok, None),
        Ok(Err(err)) => (
            NodeOutcome::Err {
                error: err.to_string(),
            },
            Some(ErrorKind::of(err.as_ref())),
        ),
        Err(panic) => (
            NodeOutcome::Err {
                error: format!("panicked: {}", panic_message(panic.as_ref())),
            },
            Some(ErrorKind::Panicked),
        ),
    };
    TraceEvent::Exit {
        node: name.as_str().into(),
        error: kind,
    }
    .emit();
    if let Some(report) = reports.borrow_mut().get_mut(&name) {
        report.outcome = outcome;
    }
    Ok(())
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(message) = panic.downcast_ref::<&str>() {
        (*message).to_string()
    } else if let Some(message) = panic.downcast_ref::<String>() {
        message.clone()
    } else {
        "non-string panic payload".to_string()
    }
}
