//! Runs one consumer job against one runtime personality inside a turmoil simulation, and
//! compares a job report with the runtime's ground truth.

use axum::Router;
use meshsim_consumer::{
    Consumer, Deadlines, Job, JobReport, NaiveConsumer, Outcome, ReconcilingConfig,
    ReconcilingConsumer, TaskView,
};
use meshsim_protocol::{Dialect, TaskState};
use meshsim_runtimes::{GroundTruth, Personality, Runtime, Sidecar, builtin};
use meshsim_sim::{SimListener, TurmoilConnector, epoch, serve, sim_clock};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

/// The origin incident's three runtimes.
pub const SEED_PERSONALITIES: [&str; 3] = ["python-correct", "go-replaying", "jvm-reaping"];

/// The text the consumer answers the runtime's question with.
pub const ANSWER: &str = "as plain text";

/// Which consumer to run.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Naive,
    Reconciling,
}

/// The origin incident as a job against host `agent`.
pub fn incident_job() -> Job {
    Job {
        name: "incident".to_string(),
        peer: "http://agent:9000".to_string(),
        request: "Summarise the quarterly report".to_string(),
        answer: ANSWER.to_string(),
        deadlines: Deadlines {
            submitted: Duration::from_secs(5),
            working: Duration::from_secs(20),
            job: Duration::from_secs(120),
        },
        cancel_at_input_required: false,
    }
}

/// Runs the incident job with `kind` against `personality` speaking `dialect`.
pub fn run_incident(
    personality: &str,
    dialect: Dialect,
    kind: Kind,
    seed: u64,
) -> (JobReport, GroundTruth) {
    let personality = builtin(personality).expect("a built-in personality");
    run_job(personality, dialect, kind, seed, incident_job())
}

/// Runs `job` with `kind` against `personality` speaking `dialect` on host `agent`.
pub fn run_job(
    personality: Personality,
    dialect: Dialect,
    kind: Kind,
    seed: u64,
    job: Job,
) -> (JobReport, GroundTruth) {
    let (sim, truth) = simulation_with_agent(personality, dialect, seed);
    let report = run_consumer(sim, kind, seed, job);
    (report, truth)
}

/// Runs `job` (whose peer must be `http://edge:9000`) with the reconciling consumer against
/// `personality` on host `agent`, behind `sidecar` on host `edge`.
pub fn run_behind_sidecar(
    personality: Personality,
    dialect: Dialect,
    sidecar: Sidecar,
    seed: u64,
    job: Job,
) -> (JobReport, GroundTruth) {
    let (mut sim, truth) = simulation_with_agent(personality, dialect, seed);
    serve_on(&mut sim, "edge", move || {
        let backend = "http://agent:9000/".parse().expect("a URI");
        sidecar.router(backend, TurmoilConnector::new(Duration::from_secs(1)))
    });
    let report = run_consumer(sim, Kind::Reconciling, seed, job);
    (report, truth)
}

/// A simulation seeded with `seed` whose host `agent` serves `personality` speaking
/// `dialect` on port 9000, with the runtime's ground truth.
fn simulation_with_agent<'a>(
    personality: Personality,
    dialect: Dialect,
    seed: u64,
) -> (turmoil::Sim<'a>, GroundTruth) {
    let runtime = Runtime::new(personality, dialect, sim_clock(), seed);
    let truth = runtime.truth();
    let mut sim = simulation(seed);
    serve_on(&mut sim, "agent", move || runtime.router());
    (sim, truth)
}

/// A turmoil simulation seeded with `seed`, starting at the shared epoch, that may run for
/// 300 simulated seconds.
fn simulation<'a>(seed: u64) -> turmoil::Sim<'a> {
    turmoil::Builder::new()
        .epoch(epoch())
        .rng_seed(seed)
        .simulation_duration(Duration::from_secs(300))
        .build()
}

/// Adds host `host` to `sim`, serving the router `router` makes on port 9000 (made afresh
/// each time the host starts).
fn serve_on(sim: &mut turmoil::Sim<'_>, host: &str, router: impl Fn() -> Router + 'static) {
    sim.host(host, move || {
        let router = router();
        async move {
            let listener = SimListener::bind(9000).await?;
            match serve(listener, router).await {}
        }
    });
}

/// The consumer of `kind`, seeded with `seed`, connecting over turmoil's network.
fn consumer(kind: Kind, seed: u64) -> Box<dyn Consumer> {
    let connector = TurmoilConnector::new(Duration::from_secs(1));
    match kind {
        Kind::Naive => Box::new(NaiveConsumer::new(connector, Default::default(), seed)),
        Kind::Reconciling => Box::new(ReconcilingConsumer::new(
            connector,
            ReconcilingConfig::default(),
            seed,
        )),
    }
}

/// Runs `job` with `kind` on client host `consumer` in `sim`, runs the simulation to its
/// end, and returns the consumer's report.
fn run_consumer(mut sim: turmoil::Sim<'_>, kind: Kind, seed: u64, job: Job) -> JobReport {
    let slot: Rc<RefCell<Option<JobReport>>> = Rc::default();
    let out = Rc::clone(&slot);
    sim.client("consumer", async move {
        let report = consumer(kind, seed).run(job).await;
        *out.borrow_mut() = Some(report);
        Ok(())
    });
    sim.run().expect("the simulation runs");
    slot.borrow_mut().take().expect("the consumer reported")
}

/// The id and artifact of the task the job completed; panics with `context` if the job's
/// outcome is not a completion.
#[track_caller]
pub fn completion<'a>(report: &'a JobReport, context: &str) -> (&'a str, &'a str) {
    let Outcome::Completed { task_id, artifact } = &report.outcome else {
        panic!("no completion; {context}");
    };
    (task_id, artifact)
}

/// Asserts that the runtime's ground truth has task `task_id` in `state`.
#[track_caller]
pub fn assert_runtime_state(truth: &GroundTruth, task_id: &str, state: TaskState, context: &str) {
    assert_eq!(truth.state(task_id), Some(state), "{context}");
}

/// Asserts that `report` has no [`divergences`] from the runtime's ground truth.
#[track_caller]
pub fn assert_no_divergences(report: &JobReport, truth: &GroundTruth, context: &str) {
    assert_eq!(
        divergences(report, truth),
        Vec::<String>::new(),
        "{context}"
    );
}

/// How many times each state appears.
pub fn counts(states: impl IntoIterator<Item = TaskState>) -> Vec<(TaskState, usize)> {
    let mut counts: Vec<(TaskState, usize)> = Vec::new();
    for state in states {
        match counts.iter_mut().find(|(known, _)| *known == state) {
            Some((_, count)) => *count += 1,
            None => counts.push((state, 1)),
        }
    }
    counts
}

/// The states a consumer applied to a task.
pub fn applied(view: &TaskView) -> Vec<TaskState> {
    view.applied.iter().map(|event| event.to).collect()
}

/// Every state the runtime's records under this id entered, in order.
pub fn entered(truth: &GroundTruth, task_id: &str) -> Vec<TaskState> {
    truth
        .records(task_id)
        .iter()
        .flat_map(|record| record.states())
        .collect()
}

/// Problems of a report against the truth: double applies, illegal paths, a final view
/// that differs from the runtime's, live tasks left behind.
pub fn divergences(report: &JobReport, truth: &GroundTruth) -> Vec<String> {
    let mut problems = Vec::new();
    for view in &report.tasks {
        let real = counts(entered(truth, &view.task_id));
        for (state, count) in counts(applied(view)) {
            let times = real
                .iter()
                .find(|(known, _)| *known == state)
                .map_or(0, |(_, n)| *n);
            if count > times {
                problems.push(format!(
                    "{}: applied {state} {count} times, the runtime entered it {times} times",
                    view.task_id
                ));
            }
        }
        let mut current = None;
        for state in applied(view) {
            if !state.move_from(current).is_legal() {
                problems.push(format!("{}: illegal {current:?} -> {state}", view.task_id));
            }
            current = Some(state);
        }
        if view.abandoned.is_none() {
            let record = truth.task(&view.task_id);
            let real_state = record
                .as_ref()
                .filter(|record| record.fate.is_none())
                .map(|r| r.state);
            if real_state != view.final_state {
                problems.push(format!(
                    "{}: believed {:?}, the runtime has {:?}",
                    view.task_id,
                    view.final_state,
                    record.map(|r| (r.state, r.fate))
                ));
            }
        }
    }
    for record in truth.tasks() {
        if record.is_live() {
            problems.push(format!(
                "{} left {} on the runtime",
                record.id, record.state
            ));
        }
    }
    problems
}
