//! Runs one consumer job against one runtime personality inside a turmoil simulation, and
//! compares a job report with the runtime's ground truth.

#![allow(dead_code)] // each test binary uses a different part of this module

use meshsim_consumer::lifecycle::{Step, step};
use meshsim_consumer::report::TaskView;
use meshsim_consumer::{
    Consumer, Deadlines, Job, JobReport, NaiveConsumer, ReconcilingConfig, ReconcilingConsumer,
};
use meshsim_protocol::{Dialect, TaskState};
use meshsim_runtimes::{GroundTruth, Personality, Runtime, Sidecar, builtin};
use meshsim_sim::{SimListener, TurmoilConnector, epoch, serve, sim_clock};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

/// The seed's three runtimes.
pub const SEED_PERSONALITIES: [&str; 3] = ["python-correct", "go-replaying", "jvm-reaping"];

/// The text the consumer answers the runtime's question with.
pub const ANSWER: &str = "as plain text";

/// Which consumer to run.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Naive,
    Reconciling,
}

/// The seed's incident as a job against host `agent`.
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
    let runtime = Runtime::new(personality, dialect, sim_clock(), seed);
    let truth = runtime.truth();
    let mut sim = turmoil::Builder::new()
        .epoch(epoch())
        .rng_seed(seed)
        .simulation_duration(Duration::from_secs(300))
        .build();
    sim.host("agent", move || {
        let router = runtime.router();
        async move {
            let listener = SimListener::bind(9000).await?;
            match serve(listener, router).await {}
        }
    });
    let slot: Rc<RefCell<Option<JobReport>>> = Rc::default();
    let out = Rc::clone(&slot);
    sim.client("consumer", async move {
        let connector = TurmoilConnector::new(Duration::from_secs(1));
        let consumer: Box<dyn Consumer> = match kind {
            Kind::Naive => Box::new(NaiveConsumer::new(connector, Default::default(), seed)),
            Kind::Reconciling => Box::new(ReconcilingConsumer::new(
                connector,
                ReconcilingConfig::default(),
                seed,
            )),
        };
        let report = consumer.run(job).await;
        *out.borrow_mut() = Some(report);
        Ok(())
    });
    sim.run().expect("the simulation runs");
    let report = slot.borrow_mut().take().expect("the consumer reported");
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
    let runtime = Runtime::new(personality, dialect, sim_clock(), seed);
    let truth = runtime.truth();
    let mut sim = turmoil::Builder::new()
        .epoch(epoch())
        .rng_seed(seed)
        .simulation_duration(Duration::from_secs(300))
        .build();
    sim.host("agent", move || {
        let router = runtime.router();
        async move {
            let listener = SimListener::bind(9000).await?;
            match serve(listener, router).await {}
        }
    });
    sim.host("edge", move || {
        let backend = "http://agent:9000/".parse().expect("a URI");
        let router = sidecar.router(backend, TurmoilConnector::new(Duration::from_secs(1)));
        async move {
            let listener = SimListener::bind(9000).await?;
            match serve(listener, router).await {}
        }
    });
    let slot: Rc<RefCell<Option<JobReport>>> = Rc::default();
    let out = Rc::clone(&slot);
    sim.client("consumer", async move {
        let connector = TurmoilConnector::new(Duration::from_secs(1));
        let consumer = ReconcilingConsumer::new(connector, ReconcilingConfig::default(), seed);
        *out.borrow_mut() = Some(consumer.run(job).await);
        Ok(())
    });
    sim.run().expect("the simulation runs");
    let report = slot.borrow_mut().take().expect("the consumer reported");
    (report, truth)
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
            if step(current, state) != Step::Forward {
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
