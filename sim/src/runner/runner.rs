//! The [`Runner`] builder: what a run is made of (seed, configuration, fault plan, hosts,
//! clients, safety check, trace file) and the errors that keep it from running.

use std::error::Error;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::rc::Rc;
use std::time::Duration;

use super::config::RunConfig;
use crate::Seed;
use crate::fault::{FaultPlan, Hooks, PlanError};

/// What host and client software returns (turmoil's result type).
pub type HostResult = Result<(), Box<dyn Error>>;

pub(super) type LocalFuture = Pin<Box<dyn Future<Output = HostResult>>>;
pub(super) type Software = Rc<dyn Fn() -> LocalFuture>;
pub(super) type Check = Box<dyn FnMut(CheckPoint) -> Result<(), String>>;

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
/// [`Run`](crate::Run)).
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
    pub(super) seed: Seed,
    pub(super) config: RunConfig,
    pub(super) plan: FaultPlan,
    pub(super) hooks: Hooks,
    pub(super) hosts: Vec<(String, Software)>,
    pub(super) clients: Vec<(String, LocalFuture)>,
    pub(super) check: Option<(Duration, Check)>,
    pub(super) trace_file: Option<PathBuf>,
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
}
