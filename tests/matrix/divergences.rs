//! The origin incident reproduced from fixed seeds: the naive consumer double-counts
//! against go-replaying and loses the task against jvm-reaping, as the oracle names them;
//! the reconciling consumer holds against the same runtimes.

use meshsim_consumer::{AnomalyKind, JobReport, TaskView, ledger::StateVerdict};
use meshsim_protocol::{Dialect, TaskState};
use meshsim_runtimes::Origin;
use meshsim_scenarios::{
    BuiltinConsumer, ConsumerChoice, DEFAULT_TICK, Faults, Invariant, RunOptions, RunResult,
    RunSpec, RuntimeChoice, Scenario, Verdict, run,
};
use meshsim_sim::Seed;
use meshsim_trace::TraceLine;

pub(crate) fn incident(
    runtime: &str,
    consumer: ConsumerChoice,
    dialect: Dialect,
    seed: u64,
) -> RunSpec {
    RunSpec {
        seed: Seed::new(seed),
        scenario: Scenario::OriginIncident,
        runtime: RuntimeChoice::resolve(runtime).expect("a built-in"),
        consumer,
        dialect,
        faults: Faults::None,
        job_limit: None,
        tick: DEFAULT_TICK,
    }
}

/// The reconciling consumer's run of `scenario` under the seed's swarm faults.
fn reconciling_under_swarm(
    scenario: Scenario,
    runtime: &str,
    dialect: Dialect,
    seed: u64,
) -> RunSpec {
    RunSpec {
        scenario,
        faults: Faults::Swarm,
        ..incident(runtime, ConsumerChoice::Reconciling, dialect, seed)
    }
}

/// Runs `spec` and asserts that it held every invariant (naming its replay command if not).
pub(crate) fn assert_holds(spec: &RunSpec) -> RunResult {
    let result = run(spec, &RunOptions::default()).unwrap();
    assert_eq!(
        result.verdict,
        Verdict::Holds,
        "{}: {:?}",
        spec.replay_command(),
        result.violations
    );
    result
}

fn invariants(spec: &RunSpec) -> Vec<Invariant> {
    let result = run(spec, &RunOptions::default()).expect("the run is carried out");
    result.violations.iter().map(|v| v.invariant).collect()
}

#[test]
fn naive_consumer_double_counts_against_go_replaying() {
    for dialect in Dialect::ALL {
        for seed in [7, 42] {
            let spec = incident("go-replaying", ConsumerChoice::Naive, dialect, seed);
            let found = invariants(&spec);
            assert!(
                found.contains(&Invariant::NoDoubleApply),
                "{}: {found:?}",
                spec.replay_command()
            );
        }
    }
}

#[test]
fn naive_consumer_loses_the_task_against_jvm_reaping() {
    for dialect in Dialect::ALL {
        for seed in [7, 42] {
            let spec = incident("jvm-reaping", ConsumerChoice::Naive, dialect, seed);
            let result = run(&spec, &RunOptions::default()).unwrap();
            let lost = result.violations.iter().find(|v| {
                v.invariant == Invariant::ViewMatchesTruth && v.detail.contains("reaped")
            });
            assert!(
                lost.is_some(),
                "{}: {:?}",
                spec.replay_command(),
                result.violations
            );
        }
    }
}

#[test]
fn naive_consumer_holds_against_the_correct_runtime() {
    for dialect in Dialect::ALL {
        let spec = incident("python-correct", ConsumerChoice::Naive, dialect, 7);
        assert_eq!(invariants(&spec), Vec::<Invariant>::new(), "{dialect}");
    }
}

#[test]
fn reconciling_consumer_holds_where_the_naive_one_diverges() {
    for runtime in ["go-replaying", "jvm-reaping"] {
        for dialect in Dialect::ALL {
            assert_holds(&incident(runtime, ConsumerChoice::Reconciling, dialect, 7));
        }
    }
}

/// The report of `job` in `result`, and the ground-truth states of the task it accepted.
fn accepted<'a>(
    result: &'a RunResult,
    job: &str,
    host: &str,
) -> (&'a JobReport, &'a TaskView, Vec<TaskState>) {
    let report = result
        .reports
        .iter()
        .find(|report| report.job == job)
        .unwrap_or_else(|| panic!("{job} finished"));
    let id = report.outcome.task_id().expect("the job accepted a task");
    let view = report.task(id).expect("the accepted task is in the report");
    let truth = result.truths[host]
        .iter()
        .rfind(|record| record.id == id)
        .expect("the runtime had the accepted task");
    (report, view, truth.states())
}

fn count(states: &[TaskState], state: TaskState) -> usize {
    states.iter().filter(|s| **s == state).count()
}

/// Found by the swarm sweep (seed 1123 when steps were 1 ms; with 10 ms steps seed 62 played
/// it out, and since the pause after a lost task counts from its dispatch, seed 211 does):
/// the host restarts and forgets the task, so the v0.1 answer (same client-chosen
/// id) silently starts a new task that never saw the job's request. The reconciling consumer
/// must notice before accepting.
#[test]
fn reconciling_consumer_rejects_a_task_restarted_under_its_v0_1_id() {
    let spec = reconciling_under_swarm(Scenario::OriginIncident, "jvm-reaping", Dialect::V0_1, 211);
    let result = run(&spec, &RunOptions::default()).unwrap();
    // The situation: a task id the runtime created twice, the second time from a follow-up,
    // and the consumer saw it.
    let restarted = result.truths["agent"].iter().find(|record| {
        matches!(&record.origin, Origin::FollowUpCreated { requested_task_id } if *requested_task_id == record.id)
    });
    let restarted = restarted.unwrap_or_else(|| {
        panic!(
            "{}: no longer restarts a task under its own id: {:#?}",
            spec.replay_command(),
            result.truths
        )
    });
    let report = &result.reports[0];
    assert!(
        report
            .anomalies
            .iter()
            .any(|a| a.kind == AnomalyKind::NewTaskOnFollowup && a.task_id == restarted.id),
        "{report:#?}"
    );
    assert_holds(&spec);
}

/// Found when `one-outcome` began comparing artifacts (12 of the swarm's 21,000 runs over
/// seeds 0..1000, all v0.1, and 5 default runs): the `#long` task's stream is cut twice,
/// a chunk is made while no stream is open, and a v0.1 resubscribe carries only the events
/// after it. The reconciling consumer accepted the artifact without that chunk; it now
/// takes the whole task's artifacts from the fetch that confirms a v0.1 task is the job's.
#[test]
fn reconciling_consumer_reports_the_chunk_made_between_two_v0_1_streams() {
    let spec = reconciling_under_swarm(Scenario::SidecarCut, "python-correct", Dialect::V0_1, 1);
    let result = assert_holds(&spec);
    let whole: String = (1..=10)
        .map(|chunk| format!("chunk {chunk} of 10"))
        .collect();
    assert!(
        matches!(&result.reports[0].outcome, meshsim_consumer::Outcome::Completed { artifact, .. } if *artifact == whole),
        "{:?}",
        result.reports[0].outcome
    );
}

/// The naive consumer appends every artifact event it reads, replayed or not: under the
/// same cuts it accepts chunks twice, and `one-outcome` says so.
#[test]
fn the_naive_consumer_accepts_a_replayed_artifact_twice() {
    let spec = RunSpec {
        consumer: ConsumerChoice::Naive,
        ..reconciling_under_swarm(Scenario::SidecarCut, "go-replaying", Dialect::V1_0, 0)
    };
    let result = run(&spec, &RunOptions::default()).unwrap();
    let accepted = result
        .violations
        .iter()
        .filter(|violation| violation.invariant == Invariant::OneOutcome)
        .find_map(|violation| {
            let (accepted, _) = violation
                .detail
                .strip_prefix("the job accepted the artifact ")?
                .split_once(" but the runtime's task holds ")?;
            Some(accepted.to_string())
        });
    let accepted = accepted.unwrap_or_else(|| panic!("{:#?}", result.violations));
    assert_eq!(accepted.matches("chunk 1 of 10").count(), 2, "{accepted}");
}

/// The reconciling consumer as a user's consumer, whose connections' receipts the oracle
/// reads: a task whose id it was sent is its own, reported or not.
fn reconciling_as_a_users(scenario: Scenario, dialect: Dialect, seed: u64) -> RunSpec {
    let mine = ConsumerChoice::custom("mine", |connector, seed| {
        meshsim_scenarios::builtin_over(BuiltinConsumer::Reconciling, connector, seed)
    });
    RunSpec {
        runtime: RuntimeChoice::swarm().for_seed(Seed::new(seed)),
        consumer: mine,
        ..reconciling_under_swarm(scenario, "python-correct", dialect, seed)
    }
}

/// Found by reading the reconciling consumer's receipts (2 of the swarm's 21,000 runs over
/// seeds 0..1000): against a peer that stalls every task, it re-dispatched 28 ms before the
/// job's deadline; the send's answer came as the deadline dropped it, and the task it had
/// started was left in `submitted`. It now starts no task with less than 250 ms left.
#[test]
fn reconciling_consumer_starts_no_task_it_has_no_time_to_follow() {
    for dialect in [Dialect::V0_3, Dialect::V1_0] {
        let result = assert_holds(&reconciling_as_a_users(Scenario::SidecarCut, dialect, 739));
        let outcome = &result.reports[0].outcome;
        assert!(
            matches!(outcome, meshsim_consumer::Outcome::GaveUp { reason } if reason.contains("too little to start a task")),
            "{outcome:?}"
        );
    }
}

/// Found the same way (2 of 63,000 runs over seeds 10000..13000): a follow-up 8 ms before
/// the job's deadline was answered by a new task (a peer whose follow-ups start new
/// tasks); the consumer named it in an anomaly, and the deadline dropped the job before
/// it canceled it. The task it is told of is now in its report at once, and the job's
/// deadline cancels it with the rest.
#[test]
fn reconciling_consumer_cancels_a_task_started_in_place_of_its_follow_up_at_the_deadline() {
    let result = assert_holds(&reconciling_as_a_users(
        Scenario::OriginIncident,
        Dialect::V1_0,
        11502,
    ));
    let stray = result.reports[0]
        .anomalies
        .iter()
        .find(|anomaly| anomaly.kind == AnomalyKind::NewTaskOnFollowup)
        .expect("the peer started a task in place of the follow-up");
    let started = stray
        .detail
        .trim_start_matches("the peer answered about task ");
    let view = result.reports[0]
        .task(started)
        .expect("the stray is reported");
    assert!(view.abandoned.is_some(), "{view:?}");
}

/// Found the same way (2 of 63,000 runs over seeds 10000..13000, v0.1): the job's deadline
/// struck while a send that names its own task id was on its way to a peer that stalls
/// every task; the peer had started the task, and the consumer, which had chosen its id,
/// left it live. The deadline's cleanup now cancels the task the latest send named.
#[test]
fn reconciling_consumer_cancels_the_v0_1_task_its_send_named_when_the_deadline_strikes() {
    for seed in [12092, 12097] {
        let result = assert_holds(&reconciling_as_a_users(
            Scenario::CrashBounce,
            Dialect::V0_1,
            seed,
        ));
        let last = result.reports[0].tasks.last().expect("a task");
        assert!(
            last.applied.is_empty()
                && last
                    .abandoned
                    .as_ref()
                    .is_some_and(|abandoned| abandoned.reason == "job deadline passed"),
            "seed {seed}: {last:?}"
        );
    }
}

/// Found by the swarm sweep (seed 606, 9 of 102,900 runs): after a re-dispatch the
/// reconciling consumer polls go-replaying's "#ask-twice" job (agent-2), answers the first
/// question, and the poll misses the `working` between it and the second question. The
/// second `input-required` repeats the state but not the status (its own timestamp,
/// message id and text): the consumer must answer it instead of waiting out the job.
#[test]
fn reconciling_consumer_answers_a_second_question_its_poll_saw_without_working() {
    let spec = reconciling_under_swarm(
        Scenario::HeterogeneousMesh,
        "python-correct",
        Dialect::V1_0,
        606,
    );
    let result = run(&spec, &RunOptions::default()).unwrap();
    // The situation: a re-dispatched job whose accepted task asked twice, with `working`
    // between, while the consumer applied one question and no `working` at all.
    let (report, view, truth) = accepted(&result, "job-2", "agent-2");
    let applied: Vec<TaskState> = view.applied.iter().map(|event| event.to).collect();
    let context = format!(
        "{}: truth {truth:?}, applied {applied:?}",
        spec.replay_command()
    );
    assert!(report.tasks.len() >= 2, "no re-dispatch: {context}");
    assert_eq!(count(&truth, TaskState::InputRequired), 2, "{context}");
    assert_eq!(count(&applied, TaskState::InputRequired), 1, "{context}");
    assert_eq!(count(&applied, TaskState::Working), 0, "{context}");
    assert_holds(&spec);
}

/// Found by the swarm sweep (seed 2076, 1 of 220,500 runs; since a retry's pause counts from
/// the try, seed 327 plays it out): go-replaying's "#ask-twice" job
/// (agent-2) resumes after the first answer with a duplicate `submitted`, its stream breaks
/// after `working`, and every resubscribe replays the whole task: the first turn, the
/// duplicate `submitted`, `working` and the second question. The replay extends what was
/// applied; the consumer must apply the second question (and answer it), not judge it
/// part of the replay and resubscribe until the job deadline.
#[test]
fn reconciling_consumer_applies_a_second_question_a_replay_brings_after_a_duplicate_submitted() {
    let spec = reconciling_under_swarm(
        Scenario::HeterogeneousMesh,
        "jvm-reaping",
        Dialect::V0_1,
        327,
    );
    let result = run(&spec, &RunOptions::default()).unwrap();
    // The situation: the task entered `submitted` again after the first answer, and the
    // second question was applied from a connection that replayed that duplicate.
    let (report, view, truth) = accepted(&result, "job-2", "agent-2");
    let context = format!("{}: truth {truth:?}, {report:#?}", spec.replay_command());
    assert!(count(&truth, TaskState::Submitted) >= 2, "{context}");
    let second_question = view
        .applied
        .iter()
        .filter(|event| event.to == TaskState::InputRequired)
        .nth(1)
        .unwrap_or_else(|| panic!("one question applied: {context}"));
    let replayed_duplicate = format!(
        "submitted reported while in working (connection {},",
        second_question.at.connection
    );
    assert!(
        report.anomalies.iter().any(|anomaly| {
            anomaly.kind == AnomalyKind::Event(StateVerdict::Replayed)
                && anomaly.detail.starts_with(&replayed_duplicate)
        }),
        "the second question did not come with a replayed duplicate: {context}"
    );
    assert_holds(&spec);
}

/// The oracle dates a forbidden step when the consumer applied it (its `applied` trace
/// line), not at the run's end.
#[test]
fn an_illegal_step_is_dated_when_the_consumer_applied_it() {
    let spec = incident("go-replaying", ConsumerChoice::Naive, Dialect::V0_1, 0);
    let options = RunOptions {
        keep_trace: true,
        ..RunOptions::default()
    };
    let result = run(&spec, &options).unwrap();
    let illegal = result
        .violations
        .iter()
        .find(|v| v.invariant == Invariant::LegalPath)
        .expect("the naive consumer applies `input-required -> submitted`");
    assert!(illegal.at_ms < result.elapsed_ms, "{illegal:?}");
    let trace = result.trace.as_ref().expect("kept");
    let applied_at: Vec<u64> = trace
        .lines()
        .filter_map(TraceLine::parse_applied)
        .filter(|(_, applied)| Some(applied.task.as_ref()) == illegal.task.as_deref())
        .map(|(micros, _)| micros / 1000)
        .collect();
    assert!(
        applied_at.contains(&illegal.at_ms),
        "{illegal:?} not in {applied_at:?}"
    );
}

/// The oracle dates a double apply when the consumer applied the state once more than the
/// runtime entered it (its `applied` trace line), not when the runtime last entered it.
#[test]
fn a_double_apply_is_dated_when_the_consumer_applied_the_state_again() {
    let spec = incident("go-replaying", ConsumerChoice::Naive, Dialect::V0_1, 0);
    let options = RunOptions {
        keep_trace: true,
        ..RunOptions::default()
    };
    let result = run(&spec, &options).unwrap();
    let double = result
        .violations
        .iter()
        .find(|v| v.invariant == Invariant::NoDoubleApply)
        .expect("the naive consumer applies a replayed state again");
    let task = double.task.as_deref().expect("a task");
    let epoch = meshsim_sim::epoch()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    let entered: Vec<(TaskState, u64)> = result
        .truths
        .values()
        .flatten()
        .filter(|record| record.id == task)
        .flat_map(|record| &record.transitions)
        .map(|t| (t.to, t.at.saturating_sub(epoch).as_millis() as u64))
        .collect();
    // Replay the count the oracle keeps: the first application beyond the runtime's entries.
    let mut applied: Vec<TaskState> = Vec::new();
    let (state, at_ms) = result
        .trace
        .as_ref()
        .expect("kept")
        .lines()
        .filter_map(TraceLine::parse_applied)
        .filter(|(_, applied)| applied.task == task)
        .find_map(|(micros, event)| {
            applied.push(event.state);
            let times = applied.iter().filter(|s| **s == event.state).count();
            let real = entered.iter().filter(|(s, _)| *s == event.state).count();
            (real > 0 && times > real).then_some((event.state, micros / 1000))
        })
        .expect("an application beyond the runtime's entries");
    assert_eq!(double.at_ms, at_ms, "{double:?}");
    let last_entry = entered
        .iter()
        .filter(|(s, _)| *s == state)
        .map(|(_, at)| *at)
        .max()
        .expect("entered");
    assert!(
        last_entry < double.at_ms,
        "the runtime last entered `{state}` at {last_entry} ms, the consumer applied it again at {} ms",
        double.at_ms
    );
}

/// A personality file from `tests/personalities/`.
pub(crate) fn personality_file(name: &str) -> String {
    format!(
        "{}/tests/personalities/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The peer's part of `result` that broke `invariant`, as the verdict names it.
pub(crate) fn peer_fault(result: &RunResult, invariant: Invariant) -> String {
    let fault = result
        .peer_faults
        .iter()
        .find(|fault| fault.invariant == invariant)
        .unwrap_or_else(|| panic!("no {invariant} peer fault in {:?}", result.peer_faults));
    format!("{}; {}", fault.peer, fault.consumer)
}

/// Issue 17: against a peer that starts a new task for every follow-up, a job that needs
/// an answer can never finish. The oracle used to call the reconciling consumer's give-up
/// `liveness`; it now knows the job is impossible, and a clean give-up holds.
#[test]
fn a_new_task_per_follow_up_makes_the_job_impossible_and_a_clean_give_up_holds() {
    for dialect in Dialect::ALL {
        let spec = incident(
            &personality_file("new-task-per-follow-up"),
            ConsumerChoice::Reconciling,
            dialect,
            7,
        );
        let result = assert_holds(&spec);
        assert!(
            matches!(
                result.reports[0].outcome,
                meshsim_consumer::Outcome::GaveUp { .. }
            ),
            "{dialect}: {:?}",
            result.reports[0].outcome
        );
        let named = peer_fault(&result, Invariant::Liveness);
        assert!(named.contains("new-task-per-follow-up"), "{named}");
    }
}

/// Issue 17: a cancel the peer refuses as the protocol lets it (the task answered
/// unchanged, or -32002) leaves the task live. The verdict names the peer's refusal instead
/// of a `no-orphaned-task` violation, since the consumer asked and reported it.
#[test]
fn a_refused_cancel_is_named_as_the_peers_refusal() {
    for (file, refusal) in [
        ("ignores-cancel-at-input-required", "ignored"),
        ("refuses-cancel-at-input-required", "-32002"),
    ] {
        for dialect in Dialect::ALL {
            let spec = RunSpec {
                scenario: Scenario::CancelAtInputRequired,
                ..incident(
                    &personality_file(file),
                    ConsumerChoice::Reconciling,
                    dialect,
                    7,
                )
            };
            let result = assert_holds(&spec);
            let named = peer_fault(&result, Invariant::NoOrphanedTask);
            assert!(named.contains(refusal), "{file} {dialect}: {named}");
            assert!(named.contains("asked to cancel it"), "{named}");
        }
    }
}

/// Issue 17: when the peer refuses to cancel the waiting task the job cancels, the
/// reconciling consumer gives up at once saying so, instead of asking again until the job's
/// deadline and giving up with "job deadline passed".
#[test]
fn reconciling_consumer_gives_up_at_once_saying_the_peer_refused_the_cancel() {
    for file in [
        "ignores-cancel-at-input-required",
        "refuses-cancel-at-input-required",
    ] {
        let spec = RunSpec {
            scenario: Scenario::CancelAtInputRequired,
            ..incident(
                &personality_file(file),
                ConsumerChoice::Reconciling,
                Dialect::V1_0,
                7,
            )
        };
        let result = assert_holds(&spec);
        let meshsim_consumer::Outcome::GaveUp { reason } = &result.reports[0].outcome else {
            panic!("{file}: {:?}", result.reports[0].outcome);
        };
        assert!(reason.contains("refused to cancel"), "{file}: {reason}");
        assert!(
            result.elapsed_ms < 10_000,
            "{file}: the job ran {} simulated ms, well into its 30 s deadline",
            result.elapsed_ms
        );
    }
}

/// The control: where a drawn personality's Card claims streaming but the runtime drops a
/// task when its stream closes at input-required (the origin note's lie), the naive consumer,
/// which trusts the Card, still diverges; the reconciling one holds on the same runs.
#[test]
fn the_naive_consumer_diverges_where_a_swarm_cards_claims_lie() {
    let lying: Vec<RunSpec> = (0..500)
        .map(|seed| RunSpec {
            runtime: RuntimeChoice::swarm().for_seed(Seed::new(seed)),
            ..incident("python-correct", ConsumerChoice::Naive, Dialect::V1_0, seed)
        })
        .filter(|spec| {
            let drawn = &spec.runtime.personality;
            drawn.card.streaming
                && drawn.reaping == meshsim_runtimes::Reaping::OnStreamClose
                && drawn
                    .stream_close
                    .closes_on(meshsim_protocol::TaskState::InputRequired)
                && drawn.sidecar.is_none()
                && drawn.stalled_first_tasks == 0
        })
        .take(4)
        .collect();
    assert_eq!(lying.len(), 4, "seeds 0..500 draw four lying Cards");
    for spec in &lying {
        assert!(
            !invariants(spec).is_empty(),
            "{}: the naive consumer held",
            spec.replay_command()
        );
        assert_holds(&RunSpec {
            consumer: ConsumerChoice::Reconciling,
            ..spec.clone()
        });
    }
}

/// Found by the swarm (seed 22): a peer whose `follow_up` is `not-found` answers every
/// answer with -32001 while the task waits on at input-required. The reconciling consumer
/// took -32001 for "gone" and left seven tasks waiting; it now cancels each before starting
/// over, and its give-up on the impossible job holds.
#[test]
fn reconciling_consumer_cancels_a_task_whose_answer_the_peer_refused_with_not_found() {
    let spec = RunSpec {
        runtime: RuntimeChoice::swarm().for_seed(Seed::new(22)),
        ..incident(
            "python-correct",
            ConsumerChoice::Reconciling,
            Dialect::V1_0,
            22,
        )
    };
    assert_eq!(
        spec.runtime.personality.follow_up,
        meshsim_runtimes::FollowUp::NotFound
    );
    let result = assert_holds(&spec);
    let named = peer_fault(&result, Invariant::Liveness);
    assert!(named.contains("follow-up-refused"), "{named}");
}

/// Issue 17: a peer whose timer reaps a task left at input-required, while the consumer's
/// check that the task outlived its stream is still travelling (here slowed by 300 ms of
/// latency each way), answers it -32001. The reconciling consumer put that loss down to the
/// stream's close: it learned that tasks die with their streams (`profile-matches-runtime`)
/// and stopped streaming to the peer. A loss is the close's only when the check's answer
/// comes right after the close; this one came 900 ms later.
#[test]
fn a_task_reaped_by_a_timer_while_the_check_travels_is_not_put_down_to_the_streams_close() {
    let plan = meshsim_sim::FaultPlan::from_json(
        r#"{"faults": [
            {"at_ms": 0, "kind": "latency", "a": "consumer", "b": "agent", "ms": 300},
            {"at_ms": 3000, "kind": "latency_reset", "a": "consumer", "b": "agent"}
        ]}"#,
    )
    .expect("a fault plan");
    for dialect in Dialect::ALL {
        let spec = RunSpec {
            faults: Faults::Plan(plan.clone()),
            ..incident(
                &personality_file("reaps-unanswered-questions-by-timer"),
                ConsumerChoice::Reconciling,
                dialect,
                1,
            )
        };
        let result = assert_holds(&spec);
        let reaped_by_the_timer = result.truths["agent"].iter().any(|task| {
            matches!(&task.fate, Some(meshsim_runtimes::Fate::Reaped { reason, .. })
                if reason == "input-required timeout")
        });
        assert!(
            reaped_by_the_timer,
            "{dialect}: the run no longer reaps a task by its timer"
        );
        let learned = result.reports[0].profile.as_ref().expect("a profile");
        assert_ne!(
            learned.task_survives_stream_close,
            Some(false),
            "{dialect}: {learned:?}"
        );
    }
}
