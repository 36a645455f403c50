//! The oracle catches what it names: for each of the eight invariants a deliberately broken
//! consumer, written through the public test API as a user would write their own, breaks
//! exactly that invariant; the test checks the verdict, the violation's fields and the failure
//! report `assert_expectations` gives the user.
//!
//! Every broken consumer wraps the reconciling consumer (which holds every invariant in these
//! cells: `the_unbroken_wrapper_holds_in_every_cell_used`) and breaks one thing, so the
//! violation is the break's doing and nothing else's.

use meshsim_consumer::{
    A2aClient, Abandonment, AppliedEvent, BoxFuture, CancelResult, Consumer, Deadlines, Job,
    JobReport, Outcome, PeerLifecycleProfile, ProfileKey, ReconcilingConfig, ReconcilingConsumer,
    ResubscribeBehaviour, TaskView, ledger::EventRef,
};
use meshsim_protocol::{Dialect, Message, Role, RpcResult, TaskState};
use meshsim_scenarios::{
    ConsumerChoice, Faults, Invariant, Matrix, RunOptions, RunResult, Scenario, SweepOutcome,
    Verdict, Violation, run, sim_client,
};
use meshsim_sim::{TurmoilConnector, epoch};
use meshsim_trace::{TraceEvent, TraceLine};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

/// The one thing a broken consumer gets wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Break {
    /// Nothing: the wrapper alone, to show the cells hold without a break.
    Nothing,
    /// Applies the question and its answer a second time, as a consumer that does not
    /// recognise the events a resubscribe replays.
    AppliesReplayedEvents,
    /// Applies a late `canceled` after the task completed.
    AppliesAfterTerminal,
    /// Keeps the state before the last event as its view of the task.
    StaleView,
    /// Also sends the request a second time to hedge, and never cancels the copy.
    LeavesHedgeRunning,
    /// Reports the job failed when its task completed.
    WrongOutcome,
    /// Acts on a stuck task only at twice its deadline, and reports neither the deadline
    /// nor the task it walked away from.
    SilentOnDeadline,
    /// Never returns from the job.
    Hangs,
    /// Reports that the peer replays the task's history on resubscribe.
    WrongProfile,
}

impl Break {
    fn name(self) -> &'static str {
        match self {
            Break::Nothing => "unbroken",
            Break::AppliesReplayedEvents => "applies-replayed-events",
            Break::AppliesAfterTerminal => "applies-after-terminal",
            Break::StaleView => "stale-view",
            Break::LeavesHedgeRunning => "leaves-hedge-running",
            Break::WrongOutcome => "wrong-outcome",
            Break::SilentOnDeadline => "silent-on-deadline",
            Break::Hangs => "hangs",
            Break::WrongProfile => "wrong-profile",
        }
    }
}

/// A user's consumer with one bug.
struct BrokenConsumer {
    inner: ReconcilingConsumer<TurmoilConnector>,
    connector: TurmoilConnector,
    bug: Break,
}

impl Consumer for BrokenConsumer {
    fn name(&self) -> &str {
        self.bug.name()
    }

    fn run(&self, job: Job) -> BoxFuture<'_, JobReport> {
        Box::pin(async move {
            let hedge = match self.bug {
                Break::LeavesHedgeRunning => Some(self.hedge(&job).await),
                _ => None,
            };
            let job = match self.bug {
                Break::SilentOnDeadline => Job {
                    deadlines: Deadlines {
                        submitted: job.deadlines.submitted * 2,
                        working: job.deadlines.working * 2,
                        ..job.deadlines
                    },
                    ..job
                },
                _ => job,
            };
            let mut report = self.inner.run(job).await;
            match self.bug {
                Break::Nothing => {}
                Break::AppliesReplayedEvents => apply_question_twice(&mut report),
                Break::AppliesAfterTerminal => apply_cancel_after_completion(&mut report),
                Break::StaleView => {
                    let task = outcome_task(&mut report);
                    task.final_state = task.applied.iter().rev().nth(1).map(|event| event.to);
                }
                Break::LeavesHedgeRunning => report.tasks.extend(hedge),
                Break::WrongOutcome => {
                    let task_id = report.outcome.task_id().unwrap_or_default().to_string();
                    report.outcome = Outcome::Failed {
                        task_id,
                        reason: "misread the answer".to_string(),
                    };
                }
                Break::SilentOnDeadline => {
                    report.deadlines.clear();
                    for task in report.tasks.iter_mut().filter(|t| t.abandoned.is_some()) {
                        task.abandoned = None;
                        task.final_state = None;
                    }
                }
                Break::Hangs => std::future::pending::<()>().await,
                Break::WrongProfile => {
                    let key = ProfileKey {
                        host: report.peer.clone(),
                        card_version: "1".to_string(),
                    };
                    report
                        .profile
                        .get_or_insert_with(|| PeerLifecycleProfile::unknown(key))
                        .resubscribe_after_input_required = Some(ResubscribeBehaviour::Replays);
                }
            }
            report
        })
    }
}

impl BrokenConsumer {
    /// Sends the job's request once more, outside the inner consumer, and reports the task
    /// it started as abandoned without trying to cancel it.
    async fn hedge(&self, job: &Job) -> TaskView {
        let client = A2aClient::discover(self.connector.clone(), &job.peer, sim_client())
            .await
            .expect("the peer's Card is served in a fault-free run");
        let message = Message::text(Role::User, Some("hedge-1".to_string()), &job.request);
        let task_id = match client.send_message(message).await {
            Ok(RpcResult::Task(task)) => task.id,
            other => panic!("the hedge expected a task, got {other:?}"),
        };
        TaskView {
            task_id,
            applied: Vec::new(),
            final_state: None,
            abandoned: Some(Abandonment {
                reason: "the first request answered first".to_string(),
                cancel: CancelResult::NotAttempted,
            }),
        }
    }
}

/// The view of the task the job accepted.
fn outcome_task(report: &mut JobReport) -> &mut TaskView {
    let id = report.outcome.task_id().unwrap_or_default().to_string();
    report
        .tasks
        .iter_mut()
        .find(|task| task.task_id == id)
        .expect("the accepted task is in the report")
}

/// Re-applies `input-required` and the `working` after it, just before the completion.
fn apply_question_twice(report: &mut JobReport) {
    let task = outcome_task(report);
    let question = task
        .applied
        .iter()
        .position(|event| event.to == TaskState::InputRequired)
        .expect("the origin incident asks a question");
    let again: Vec<AppliedEvent> = task.applied[question..question + 2].to_vec();
    let before_last = task.applied.len() - 1;
    task.applied.splice(before_last..before_last, again);
}

/// Appends `completed -> canceled` as the next event of the last connection.
fn apply_cancel_after_completion(report: &mut JobReport) {
    let task = outcome_task(report);
    let last = task.applied.last().expect("the task was applied").clone();
    task.applied.push(AppliedEvent {
        from: Some(last.to),
        to: TaskState::Canceled,
        at: EventRef {
            index: last.at.index + 1,
            ..last.at
        },
        timestamp: None,
    });
}

fn broken(bug: Break) -> ConsumerChoice {
    ConsumerChoice::custom(bug.name(), move |connector, seed| {
        let config = ReconcilingConfig {
            client: sim_client(),
            ..ReconcilingConfig::default()
        };
        Box::new(BrokenConsumer {
            inner: ReconcilingConsumer::new(connector.clone(), config, seed),
            connector,
            bug,
        })
    })
}

/// Runs `bug` once: seed 0 of `scenario` against python-correct in v0.3, without faults.
fn run_one(bug: Break, scenario: Scenario) -> SweepOutcome {
    Matrix::for_consumer(broken(bug))
        .runtimes(["python-correct"])
        .scenarios([scenario])
        .dialects([Dialect::V0_3])
        .faults([Faults::None])
        .seeds(0..1)
        .threads(1)
        .run()
}

/// The one run of `outcome`, which must have violated exactly `invariant`, once.
fn only_violation(outcome: &SweepOutcome, invariant: Invariant) -> (&RunResult, &Violation) {
    assert_eq!(outcome.tally.runs, 1, "{:?}", outcome.tally.errors);
    let (result, _) = &outcome.mismatches[0];
    assert_eq!(result.verdict, Verdict::Violated);
    let names: Vec<Invariant> = result.violations.iter().map(|v| v.invariant).collect();
    assert_eq!(names, vec![invariant], "{:#?}", result.violations);
    (result, &result.violations[0])
}

/// Checks the failure report names the violation, field by field, and the line that reruns
/// exactly that run.
fn assert_reported(outcome: &SweepOutcome, violation: &Violation, result: &RunResult) {
    let report = outcome.report();
    assert!(
        report.contains("1 of 1 runs did not meet their expectation"),
        "{report}"
    );
    let line = format!(
        "    {} (job {}, task {}, at {} ms): {}",
        violation.invariant,
        violation.job,
        violation.task.as_deref().unwrap_or("-"),
        violation.at_ms,
        violation.detail
    );
    assert!(report.contains(&line), "{line}\nmissing from\n{report}");
    let rerun = format!(
        "MESHSIM_SEED=0 MESHSIM_RUNTIME=python-correct MESHSIM_SCENARIO={} MESHSIM_DIALECT=v0.3 MESHSIM_FAULTS=none cargo test",
        result.spec.scenario
    );
    assert!(report.contains(&rerun), "{rerun}\nmissing from\n{report}");
    // This test's target, as `cargo test` selects it (tests/matrix/main.rs).
    assert!(
        report.contains("cargo test -p a2a-meshsim --test matrix "),
        "{report}"
    );
}

/// What a user's test does with the outcome: `assert_expectations` panics with the report.
/// It also remembers the run in the regressions file beside this source, which the test
/// removes again so that later runs start clean.
fn assert_expectations_panics_with(outcome: &SweepOutcome, invariant: Invariant) {
    let panic = catch_unwind(AssertUnwindSafe(|| outcome.assert_expectations()))
        .expect_err("assert_expectations panics on a violated run");
    let message = panic
        .downcast_ref::<String>()
        .cloned()
        .expect("the report is a formatted message");
    let regressions = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/matrix/oracle_sensitivity.meshsim-regressions");
    let _ = std::fs::remove_file(regressions);
    assert!(message.contains(invariant.name()), "{message}");
    assert!(message.contains("MESHSIM_SEED=0 "), "{message}");
}

/// Milliseconds since the run started of a ground-truth time (the runtimes' clock starts at
/// the pinned epoch).
fn since_start(at: Duration) -> u64 {
    let start = epoch()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    at.saturating_sub(start).as_millis() as u64
}

/// The accepted task's id and its ground-truth transitions `(state, ms since start)`.
fn accepted_truth(result: &RunResult) -> (String, Vec<(TaskState, u64)>) {
    let id = result.reports[0]
        .outcome
        .task_id()
        .expect("the job accepted a task")
        .to_string();
    let record = result.truths["agent"]
        .iter()
        .rfind(|record| record.id == id)
        .expect("the runtime had the accepted task");
    let transitions = record
        .transitions
        .iter()
        .map(|transition| (transition.to, since_start(transition.at)))
        .collect();
    (id, transitions)
}

/// The trace of `result`'s run, read back from a rerun with its trace kept.
fn rerun_trace(result: &RunResult) -> Vec<TraceLine> {
    let options = RunOptions {
        keep_trace: true,
        ..RunOptions::default()
    };
    let rerun = run(&result.spec, &options).expect("the run reruns");
    rerun.trace.expect("kept").events()
}

/// When the inner consumer traced `job`'s outcome, in ms since the start: the consumer's
/// act of ending the job.
fn outcome_traced_at(result: &RunResult, job: &str) -> u64 {
    rerun_trace(result)
        .into_iter()
        .find_map(|line| match line.event {
            TraceEvent::Outcome { job: traced, .. } if traced == job => Some(line.t_us / 1000),
            _ => None,
        })
        .expect("the consumer traced the job's outcome")
}

/// When the inner consumer last applied `state` to `task`, in ms since the start.
fn last_applied_at(result: &RunResult, task: &str, state: TaskState) -> u64 {
    rerun_trace(result)
        .into_iter()
        .filter_map(|line| match line.event {
            TraceEvent::Applied(applied) if applied.task == task && applied.state == state => {
                Some(line.t_us / 1000)
            }
            _ => None,
        })
        .next_back()
        .expect("the consumer traced applying the state")
}

#[test]
fn the_unbroken_wrapper_holds_in_every_cell_used() {
    for scenario in [Scenario::OriginIncident, Scenario::StuckInSubmitted] {
        let outcome = run_one(Break::Nothing, scenario);
        assert_eq!(
            outcome.tally.holds, 1,
            "{scenario}: {:#?}",
            outcome.mismatches
        );
        outcome.assert_expectations();
    }
}

#[test]
fn applying_replayed_events_breaks_no_double_apply() {
    let outcome = run_one(Break::AppliesReplayedEvents, Scenario::OriginIncident);
    let (result, violation) = only_violation(&outcome, Invariant::NoDoubleApply);
    let (task, truth) = accepted_truth(result);
    let asked_at = truth
        .iter()
        .find(|(state, _)| *state == TaskState::InputRequired)
        .map(|(_, at)| *at)
        .expect("the runtime asked");
    assert_eq!(violation.job, "incident");
    assert_eq!(violation.task.as_deref(), Some(task.as_str()));
    // Dated when the consumer applied the replayed question, which arrives after the runtime
    // asked it (tests/matrix/divergences.rs pins the exact instant against the trace).
    assert!(
        (asked_at..=result.elapsed_ms).contains(&violation.at_ms),
        "dated at {} ms, the runtime asked at {asked_at} ms, the run ended at {} ms",
        violation.at_ms,
        result.elapsed_ms
    );
    assert!(
        violation
            .detail
            .starts_with("applied `input-required` 2 times")
            && violation
                .detail
                .ends_with("but the runtime entered it 1 time(s)"),
        "{}",
        violation.detail
    );
    assert_reported(&outcome, violation, result);
}

#[test]
fn applying_a_step_after_completion_breaks_legal_path() {
    let outcome = run_one(Break::AppliesAfterTerminal, Scenario::OriginIncident);
    let (result, violation) = only_violation(&outcome, Invariant::LegalPath);
    let (task, _) = accepted_truth(result);
    assert_eq!(violation.job, "incident");
    assert_eq!(violation.task.as_deref(), Some(task.as_str()));
    // The consumer traced no `applied` line for the made-up step, so it is dated at its last
    // act for the job: the outcome it traced, not the run's end.
    assert_eq!(violation.at_ms, outcome_traced_at(result, "incident"));
    assert!(
        violation
            .detail
            .starts_with("applied `completed -> canceled`"),
        "{}",
        violation.detail
    );
    assert_reported(&outcome, violation, result);
}

#[test]
fn a_stale_view_breaks_view_matches_truth() {
    let outcome = run_one(Break::StaleView, Scenario::OriginIncident);
    let (result, violation) = only_violation(&outcome, Invariant::ViewMatchesTruth);
    let (task, truth) = accepted_truth(result);
    assert_eq!(violation.job, "incident");
    assert_eq!(violation.task.as_deref(), Some(task.as_str()));
    // The view went wrong for good when both had happened: the consumer read `working`
    // (the stale belief it reports) and the runtime completed the task.
    let (completed, completed_at) = *truth.last().expect("transitions");
    assert_eq!(completed, TaskState::Completed);
    let believed_at = last_applied_at(result, &task, TaskState::Working);
    assert_eq!(
        violation.at_ms,
        believed_at.max(completed_at),
        "{violation:?}"
    );
    assert_eq!(
        violation.detail,
        "the consumer believes the task is `working` but the runtime has it `completed`"
    );
    assert_reported(&outcome, violation, result);
}

#[test]
fn a_hedge_left_running_breaks_no_orphaned_task() {
    let outcome = run_one(Break::LeavesHedgeRunning, Scenario::OriginIncident);
    let (result, violation) = only_violation(&outcome, Invariant::NoOrphanedTask);
    let (accepted, _) = accepted_truth(result);
    let hedge = result.reports[0]
        .tasks
        .iter()
        .find(|task| task.abandoned.is_some())
        .expect("the hedge is reported");
    assert_ne!(hedge.task_id, accepted);
    let left = result.truths["agent"]
        .iter()
        .find(|record| record.id == hedge.task_id)
        .expect("the runtime has the hedge");
    assert!(left.is_live(), "{left:?}");
    assert_eq!(violation.job, "incident");
    assert_eq!(violation.task.as_deref(), Some(hedge.task_id.as_str()));
    // Dated when the job ended with the hedge live: the consumer's traced outcome.
    assert_eq!(violation.at_ms, outcome_traced_at(result, "incident"));
    assert!(violation.at_ms < result.elapsed_ms, "{violation:?}");
    assert_eq!(
        violation.detail,
        format!(
            "task is still `{}` on agent after the job ended; nobody will finish or cancel it",
            left.state
        )
    );
    assert_reported(&outcome, violation, result);
}

#[test]
fn reporting_failure_for_a_completed_task_breaks_one_outcome() {
    let outcome = run_one(Break::WrongOutcome, Scenario::OriginIncident);
    let (result, violation) = only_violation(&outcome, Invariant::OneOutcome);
    let (task, _) = accepted_truth(result);
    assert_eq!(violation.job, "incident");
    assert_eq!(violation.task.as_deref(), Some(task.as_str()));
    // Dated at the acceptance: when the consumer traced the job's outcome, before the end.
    assert_eq!(violation.at_ms, outcome_traced_at(result, "incident"));
    assert!(violation.at_ms < result.elapsed_ms, "{violation:?}");
    assert_eq!(
        violation.detail,
        "the job accepted `failed` but the runtime's task is `completed`"
    );
    assert_reported(&outcome, violation, result);
    assert_expectations_panics_with(&outcome, Invariant::OneOutcome);
}

#[test]
fn walking_away_from_a_stuck_task_silently_breaks_deadlines_honoured() {
    let outcome = run_one(Break::SilentOnDeadline, Scenario::StuckInSubmitted);
    let (result, violation) = only_violation(&outcome, Invariant::DeadlinesHonoured);
    let stuck = result.truths["agent"]
        .first()
        .expect("the stalled task is the first");
    let created = since_start(stuck.created_at);
    let left = since_start(stuck.transitions[1].at);
    assert_eq!(stuck.transitions[1].to, TaskState::Canceled);
    assert_eq!(violation.job, "stuck");
    assert_eq!(violation.task.as_deref(), Some(stuck.id.as_str()));
    assert_eq!(
        violation.at_ms,
        created + 2000,
        "dated when the deadline passed"
    );
    assert_eq!(
        violation.detail,
        format!(
            "the task sat in `submitted` for {} ms, more than a second past the 2000 ms deadline, and the consumer neither reported the deadline nor abandoned the task",
            left - created
        )
    );
    assert_reported(&outcome, violation, result);
}

#[test]
fn a_consumer_that_never_returns_breaks_liveness() {
    let outcome = run_one(Break::Hangs, Scenario::OriginIncident);
    let (result, violation) = only_violation(&outcome, Invariant::Liveness);
    assert!(!result.converged);
    assert!(result.reports.is_empty());
    assert_eq!(violation.job, "incident");
    assert_eq!(violation.task, None);
    // The run lasts the 5 s chaos phase plus the 30 s liveness bound.
    assert!(result.elapsed_ms >= 35_000, "{}", result.elapsed_ms);
    assert_eq!(violation.at_ms, result.elapsed_ms);
    assert_eq!(
        violation.detail,
        "the job did not finish within the liveness bound"
    );
    assert_reported(&outcome, violation, result);
}

#[test]
fn a_wrong_lifecycle_profile_breaks_profile_matches_runtime() {
    let outcome = run_one(Break::WrongProfile, Scenario::OriginIncident);
    let (result, violation) = only_violation(&outcome, Invariant::ProfileMatchesRuntime);
    assert_eq!(violation.job, "incident");
    assert_eq!(violation.task, None);
    // The inner consumer never learned `replays` (the wrapper wrote it into the report), so
    // it is dated when the job reported it: its traced outcome.
    assert_eq!(violation.at_ms, outcome_traced_at(result, "incident"));
    assert_eq!(
        violation.detail,
        "resubscribe_after_input_required: learned replays, really resumes"
    );
    assert_reported(&outcome, violation, result);
}
