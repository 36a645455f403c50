//! The public test API: put your own consumer through the matrix in a few lines. Here the
//! "user's consumer" wraps the reconciling consumer, as an orchestrator would wrap its own
//! client code behind the `Consumer` trait. `MESHSIM_SEEDS=0..50 cargo test --test
//! own_consumer` sweeps 50 seeds per cell, `MESHSIM_SEED=7` one.

use a2a_meshsim::prelude::*;

/// A user's consumer: anything that implements `Consumer`.
struct MyOrchestrator {
    inner: ReconcilingConsumer<SimConnector>,
}

impl Consumer for MyOrchestrator {
    fn name(&self) -> &str {
        "my-orchestrator"
    }

    fn run(&self, job: Job) -> BoxFuture<'_, JobReport> {
        self.inner.run(job)
    }
}

fn my_orchestrator(name: &str) -> ConsumerChoice {
    ConsumerChoice::custom(name, |connector, seed| {
        // Timeouts that fit the 30 s liveness bound: with the real-network defaults (60 s
        // idle) a stream held silent by a fault outlives the bound, and the oracle says so.
        let config = ReconcilingConfig {
            client: sim_client(),
            ..ReconcilingConfig::default()
        };
        MyOrchestrator {
            inner: ReconcilingConsumer::new(connector, config, seed),
        }
    })
}

#[test]
fn my_consumer_holds_across_the_matrix() {
    Matrix::for_consumer(my_orchestrator("my-orchestrator"))
        .seeds(0..2)
        .run()
        .assert_expectations();
}

/// Expectations bind to the consumer under test: one of the user's called `naive` is held
/// to every invariant, not to the built-in naive consumer's declared divergences. The
/// naive consumer itself, under a user's name, fails where the built-in is expected to.
#[test]
fn a_users_consumer_is_judged_as_itself_whatever_its_name() {
    let naive_as_mine = ConsumerChoice::custom("naive", |connector, seed| {
        NaiveConsumer::new(connector, sim_client(), seed)
    });
    let outcome = Matrix::for_consumer(naive_as_mine)
        .runtimes(["go-replaying"])
        .scenarios([Scenario::SeedIncident])
        .dialects([Dialect::V1_0])
        .faults([Faults::None])
        .seeds(0..1)
        .threads(1)
        .run();
    assert!(!outcome.passed(), "{}", outcome.report());
    let report = outcome.report();
    assert!(
        report.contains("expected every invariant to hold"),
        "{report}"
    );
    assert!(report.contains("no-double-apply"), "{report}");
}

/// A runtime behaviour written in Rust: its knobs (the spec-correct default personality)
/// say a resubscribe resumes and a follow-up resumes in place, but, as the origin
/// incident's go-replaying did, it replays the task's whole history on a resubscribe and
/// moves a task back to `submitted` when its follow-up arrives.
struct ReplaysAnyway;

impl Behaviour for ReplaysAnyway {
    fn resubscribe(&self, _personality: &Personality, _task: &TaskView) -> Resubscribe {
        Resubscribe::ReplayFromStart
    }

    fn follow_up(&self, _personality: &Personality, _task: &TaskView) -> FollowUp {
        FollowUp::ResumeWithDuplicateSubmitted
    }
}

fn replays_anyway() -> RuntimeChoice {
    RuntimeChoice::named("replays-anyway", Personality::default()).with_behaviour(ReplaysAnyway)
}

/// The verdicts of the naive consumer on the seed's incident against `runtime`.
fn naive_verdicts(runtime: RuntimeChoice) -> Vec<Verdict> {
    let mut verdicts = Vec::new();
    Matrix::for_consumer(ConsumerChoice::Naive)
        .runtimes([runtime])
        .scenarios([Scenario::SeedIncident])
        .dialects([Dialect::V1_0])
        .faults([Faults::None])
        .seeds(0..3)
        .threads(1)
        .run_with(|result, _, _| verdicts.push(result.verdict));
    verdicts
}

/// The behaviour runs in the matrix: the naive consumer, which holds against the knobs
/// alone, diverges against the behaviour. And the oracle judges by the behaviour: the
/// reconciling consumer learns that a follow-up here resumes with a duplicate `submitted`,
/// which the oracle expects (by the knobs it would expect "resumes" and report
/// `profile-matches-runtime`).
#[test]
fn a_rust_behaviour_runs_in_the_matrix_and_the_oracle_judges_by_it() {
    let knobs_alone = RuntimeChoice::named("replays-anyway", Personality::default());
    assert!(
        naive_verdicts(knobs_alone)
            .iter()
            .all(|verdict| *verdict == Verdict::Holds)
    );
    assert!(
        naive_verdicts(replays_anyway())
            .iter()
            .all(|verdict| *verdict == Verdict::Violated)
    );
    Matrix::for_consumer(my_orchestrator("my-orchestrator"))
        .runtimes([replays_anyway()])
        .scenarios([Scenario::SeedIncident])
        .dialects([Dialect::V1_0])
        .seeds(0..3)
        .run()
        .assert_expectations();
}
