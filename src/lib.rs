//! Deterministic mesh simulation for A2A consumers: put your own consumer through every
//! runtime personality, wire dialect, scenario and network fault, from a `#[test]`, and get
//! a line that reruns any failing run from its seed.
//!
//! Add the crate as a dev-dependency; everything a test needs is one `use`:
//!
//! ```
//! use a2a_meshsim::prelude::*;
//!
//! // Your consumer, behind the `Consumer` trait (here the built-in reconciling one).
//! let mine = ConsumerChoice::custom("my-orchestrator", |connector, seed| {
//!     let config = ReconcilingConfig { client: sim_client(), ..ReconcilingConfig::default() };
//!     ReconcilingConsumer::new(connector, config, seed)
//! });
//! Matrix::for_consumer(mine)
//!     .runtimes(["go-replaying", "jvm-reaping"])
//!     .scenarios([Scenario::OriginIncident])
//!     .dialects([Dialect::V1_0])
//!     .seeds(0..2)
//!     .run()
//!     .assert_expectations();
//! ```
//!
//! Each run is one seed of one cell (scenario, faults, runtime, dialect) in a simulated
//! network and clock; an oracle judges what the consumer reported against the runtimes'
//! ground truth. By default a matrix is every built-in runtime, scenario and dialect under
//! swarm faults, plus the origin incident without faults, seeds `0..3`. The environment
//! changes that without touching the test: `MESHSIM_SEEDS=0..50` sweeps 50 seeds,
//! `MESHSIM_SEED=7` one; `MESHSIM_RUNTIME`, `MESHSIM_SCENARIO`, `MESHSIM_DIALECT` and
//! `MESHSIM_FAULTS` narrow the cells. A failing test prints a tally by cell and invariant
//! and, for the first few failing runs, a line that reruns exactly that run, with its trace
//! and timeline page written under `target/meshsim/`; the failing runs are remembered in
//! `NAME.meshsim-regressions` beside the test, and run first next time.
//!
//! # A consumer from scratch
//!
//! A consumer runs a [`Job`](prelude::Job) against a peer and reports, through a
//! [`Report`](prelude::Report), the states it applied to which task and the one outcome it
//! accepted. A task whose id its connections received is its own to finish or cancel, named
//! in its report or not. This one polls the task it starts and answers its question:
//!
//! ```
//! use a2a_meshsim::prelude::*;
//!
//! struct Poller {
//!     connector: SimConnector,
//!     ids: IdSource,
//! }
//!
//! impl Consumer for Poller {
//!     fn name(&self) -> &str {
//!         "poller"
//!     }
//!
//!     fn run(&self, job: Job) -> BoxFuture<'_, JobReport> {
//!         Box::pin(async move {
//!             let mut report = Report::new(&job, self.name());
//!             let outcome = match self.follow(&job, &mut report).await {
//!                 Ok(outcome) => outcome,
//!                 Err(error) => Outcome::GaveUp { reason: error.to_string() },
//!             };
//!             report.finish(outcome)
//!         })
//!     }
//! }
//!
//! impl Poller {
//!     async fn follow(&self, job: &Job, report: &mut Report) -> Result<Outcome, ClientError> {
//!         let client = A2aClient::discover(self.connector.clone(), &job.peer, sim_client()).await?;
//!         let request = client.new_task_message(&self.ids, &job.request);
//!         let RpcResult::Task(mut task) = client.send_message(request).await? else {
//!             return Ok(Outcome::GaveUp { reason: "no task".into() });
//!         };
//!         let mut believed = None;
//!         loop {
//!             let state = task.status.state;
//!             if believed != Some(state) {
//!                 report.applied(&task.id, state);
//!                 believed = Some(state);
//!             }
//!             match state {
//!                 TaskState::Completed => {
//!                     let artifact = task.artifacts.iter().map(artifact_text).collect();
//!                     return Ok(Outcome::Completed { task_id: task.id, artifact });
//!                 }
//!                 TaskState::Canceled => return Ok(Outcome::Canceled { task_id: task.id }),
//!                 state if state.is_terminal() => {
//!                     let reason = state.to_string();
//!                     return Ok(Outcome::Failed { task_id: task.id, reason });
//!                 }
//!                 TaskState::InputRequired => {
//!                     let context = task.context_id.as_deref();
//!                     let answer = client.follow_up_message(&self.ids, &task.id, context, &job.answer);
//!                     client.send_message(answer).await?;
//!                 }
//!                 _ => sleep(Duration::from_millis(100)).await,
//!             }
//!             task = client.get_task(&task.id).await?;
//!         }
//!     }
//! }
//!
//! let poller = ConsumerChoice::custom("poller", |connector, seed| Poller {
//!     connector,
//!     ids: IdSource::new(seed),
//! });
//! Matrix::for_consumer(poller)
//!     .runtimes(["python-correct"])
//!     .scenarios([Scenario::OriginIncident])
//!     .faults([Faults::None])
//!     .seeds(0..2)
//!     .run()
//!     .assert_expectations();
//! ```
//!
//! The connector a factory gets is the simulation's; a client built on it (this crate's
//! [`A2aClient`](prelude::A2aClient), hyper-util's client, anything that connects through a
//! `tower::Service<http::Uri>`) runs unchanged in the simulation; hyper-util's pooled client
//! takes it as `connector.map_response(hyper_util::rt::TokioIo::new)`.

/// Everything a test needs, in one `use`.
pub mod prelude {
    pub use meshsim_consumer::artifact_text;
    pub use meshsim_consumer::{
        A2aClient, BoxFuture, ClientConfig, ClientError, Connector, Consumer, Deadlines,
        EventStream, IdSource, Job, JobReport, NaiveConsumer, Outcome, ReconcilingConfig,
        ReconcilingConsumer, Report, TcpConnector,
    };
    pub use meshsim_protocol::{
        AgentCard, Dialect, Message, Method, RpcResult, StreamEvent, Task, TaskState,
    };
    /// A runtime behaviour in Rust: implement [`Behaviour`] (each decision defaults to the
    /// [`Personality`]'s knobs) and register it with [`RuntimeChoice::with_behaviour`].
    pub use meshsim_runtimes::{
        Behaviour, BusyFollowUp, CancelOutcome, FollowUp, Knobs, Personality, Reaping, Resubscribe,
        TaskFacts, UnknownTask,
    };
    /// What a sweep returns: [`SweepOutcome`] holds the [`Tally`] by cell and each
    /// [`RunResult`] that missed its [`Expect`]ation.
    pub use meshsim_scenarios::{
        ConsumerChoice, Expect, Faults, Invariant, Matrix, RunResult, RuntimeChoice, Scenario,
        SweepOutcome, Tally, Verdict, sim_client,
    };
    /// The simulation's connector, which every consumer factory is given.
    pub use meshsim_sim::TurmoilConnector as SimConnector;
    /// Timers whose deadlines the simulation knows, so that idle fast-forward never skips
    /// past them (tokio's own would be unseen: use these in a consumer).
    pub use meshsim_time::{sleep, sleep_until, timeout, timeout_at};
    pub use std::time::Duration;
}

// The README's Rust snippets compile and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
