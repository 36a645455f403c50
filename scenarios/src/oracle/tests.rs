//! Each invariant's edges, on crafted evidence: one host `agent`, one job per report, ground
//! truth written by hand, times in milliseconds since the run started.

use super::*;
use crate::invariant::Invariant;
use TaskState::{AuthRequired, Canceled, Completed, Failed, InputRequired, Submitted, Working};
use meshsim_consumer::{
    Abandonment, AppliedEvent, CancelResult, DeadlineHit, Deadlines, Job, JobReport, Outcome,
    PeerLifecycleProfile, ProfileKey, ResubscribeBehaviour, TaskView,
    ledger::{EventKind, EventRef},
};
use meshsim_protocol::TaskState;
use meshsim_runtimes::{Fate, GroundTruth, Origin, TaskTruth, Transition};
use meshsim_sim::{Recorder, SimTime, Trace};
use meshsim_trace::{Applied, JobOutcome, TraceEvent};
use std::collections::BTreeMap;
use std::time::Duration;

/// The pinned epoch of the crafted runs.
const EPOCH: Duration = Duration::from_secs(1_000);
/// Every crafted run ends here.
const END_MS: u64 = 9_000;
const HOST: &str = "agent";

fn ms(at: u64) -> Duration {
    EPOCH + Duration::from_millis(at)
}

/// A task created `submitted` at `steps[0].1` that then moves through the other steps.
fn record(id: &str, steps: &[(TaskState, u64)]) -> TaskTruth {
    let transitions: Vec<Transition> = steps
        .iter()
        .scan(None, |from, (to, at)| {
            let transition = Transition {
                at: ms(*at),
                from: *from,
                to: *to,
            };
            *from = Some(*to);
            Some(transition)
        })
        .collect();
    TaskTruth {
        id: id.to_string(),
        context_id: "ctx".to_string(),
        instance: 0,
        origin: Origin::New,
        created_at: ms(steps[0].1),
        state: steps.last().map_or(Submitted, |(state, _)| *state),
        transitions,
        fate: None,
        cancel_refused: false,
        // What `completed` reports.
        artifact_text: "done".to_string(),
    }
}

fn truth_of(records: Vec<TaskTruth>) -> BTreeMap<String, GroundTruth> {
    let truth = GroundTruth::new();
    for record in records {
        truth.created(record);
    }
    BTreeMap::from([(HOST.to_string(), truth)])
}

/// A view that applied `states`, each from its own position on connection 1.
fn view(id: &str, states: &[TaskState]) -> TaskView {
    let applied = states
        .iter()
        .enumerate()
        .map(|(index, to)| AppliedEvent {
            from: index.checked_sub(1).map(|before| states[before]),
            to: *to,
            at: EventRef {
                connection: 1,
                index: index as u32,
                kind: EventKind::StatusUpdate,
            },
            timestamp: None,
        })
        .collect();
    TaskView {
        task_id: id.to_string(),
        applied,
        final_state: states.last().copied(),
        abandoned: None,
    }
}

fn completed(id: &str) -> Outcome {
    Outcome::Completed {
        task_id: id.to_string(),
        artifact: "done".to_string(),
    }
}

fn report(name: &str, tasks: Vec<TaskView>, outcome: Outcome) -> JobReport {
    JobReport {
        job: name.to_string(),
        consumer: "crafted".to_string(),
        peer: format!("http://{HOST}:9000"),
        tasks,
        outcome,
        deadlines: Vec::new(),
        anomalies: Vec::new(),
        profile: None,
    }
}

fn job_run(name: &str, report: Option<JobReport>) -> JobRun {
    JobRun {
        job: Job {
            name: name.to_string(),
            peer: format!("http://{HOST}:9000"),
            request: "Summarise the report".to_string(),
            answer: "yes".to_string(),
            deadlines: Deadlines {
                submitted: Duration::from_millis(500),
                working: Duration::from_millis(2_000),
                job: Duration::from_secs(30),
            },
            cancel_at_input_required: false,
        },
        host: HOST.to_string(),
        report,
    }
}

fn empty_trace() -> Trace {
    Recorder::new(SimTime::new()).trace()
}

/// A trace of `events`, each recorded at its time in milliseconds since the start.
fn trace_of(events: Vec<(u64, TraceEvent<'static>)>) -> Trace {
    let time = SimTime::new();
    let recorder = Recorder::new(time.clone());
    {
        let _recording = recorder.install();
        for (at_ms, event) in events {
            time.set_elapsed(Duration::from_millis(at_ms));
            event.emit();
        }
    }
    recorder.trace()
}

/// The `outcome` trace line of `job` (what it accepted does not matter to the oracle).
fn outcome_line(job: &str) -> TraceEvent<'static> {
    TraceEvent::Outcome {
        job: job.to_string().into(),
        outcome: JobOutcome::GaveUp {
            reason: "accepted".into(),
        },
    }
}

/// The oracle's verdict on crafted evidence.
fn judge(
    jobs: &[JobRun],
    truths: &BTreeMap<String, GroundTruth>,
    profiles: &BTreeMap<String, PeerLifecycleProfile>,
    trace: &Trace,
) -> Vec<Violation> {
    judge_delivered(
        jobs,
        truths,
        profiles,
        &Deliveries::new(),
        trace,
        &BTreeMap::new(),
    )
}

/// The oracle's verdict on crafted evidence from a check run whose proxies saw `deliveries`
/// and whose programs ended at `job_ends`.
fn judge_delivered(
    jobs: &[JobRun],
    truths: &BTreeMap<String, GroundTruth>,
    profiles: &BTreeMap<String, PeerLifecycleProfile>,
    deliveries: &Deliveries,
    trace: &Trace,
    job_ends: &BTreeMap<String, Duration>,
) -> Vec<Violation> {
    check(&Evidence {
        jobs,
        truths,
        profiles,
        personalities: &BTreeMap::new(),
        converged: true,
        consumer_failure: None,
        end: Duration::from_millis(END_MS),
        faults_end: Duration::ZERO,
        deliveries,
        trace,
        job_ends,
        epoch: EPOCH,
    })
}

/// The verdict with no profiles and an empty trace.
fn judge_plain(jobs: &[JobRun], truths: &BTreeMap<String, GroundTruth>) -> Vec<Violation> {
    judge(jobs, truths, &BTreeMap::new(), &empty_trace())
}

fn invariants(violations: &[Violation]) -> Vec<Invariant> {
    violations.iter().map(|v| v.invariant).collect()
}

/// The origin incident's path on a correct runtime.
const ASKED: [(TaskState, u64); 5] = [
    (Submitted, 10),
    (Working, 20),
    (InputRequired, 30),
    (Working, 40),
    (Completed, 50),
];

fn asked_states() -> Vec<TaskState> {
    ASKED.iter().map(|(state, _)| *state).collect()
}

#[test]
fn a_faithful_report_holds_every_invariant() {
    let truths = truth_of(vec![record("t", &ASKED)]);
    let jobs = [job_run(
        "j",
        Some(report(
            "j",
            vec![view("t", &asked_states())],
            completed("t"),
        )),
    )];
    assert_eq!(judge_plain(&jobs, &truths), Vec::new());
}

#[test]
fn no_double_apply_allows_a_state_as_often_as_the_runtime_entered_it() {
    // `working` applied twice and entered twice is no double apply.
    let truths = truth_of(vec![record("t", &ASKED)]);
    let jobs = [job_run(
        "j",
        Some(report(
            "j",
            vec![view("t", &asked_states())],
            completed("t"),
        )),
    )];
    let found = judge_plain(&jobs, &truths);
    assert!(!invariants(&found).contains(&Invariant::NoDoubleApply));
}

#[test]
fn no_double_apply_fires_once_per_task_dated_when_the_consumer_applied_the_state_again() {
    let truths = truth_of(vec![record("t", &[(Submitted, 10), (Working, 25)])]);
    let jobs = [job_run(
        "j",
        Some(report(
            "j",
            vec![view("t", &[Submitted, Working, Submitted, Working])],
            completed("t"),
        )),
    )];
    let double_applies = |trace: &Trace| -> Vec<Violation> {
        judge(&jobs, &truths, &BTreeMap::new(), trace)
            .into_iter()
            .filter(|v| v.invariant == Invariant::NoDoubleApply)
            .collect()
    };
    let undated = double_applies(&empty_trace());
    assert_eq!(undated.len(), 1, "{undated:#?}");
    assert_eq!(undated[0].task.as_deref(), Some("t"));
    assert_eq!(
        undated[0].at_ms, END_MS,
        "without the consumer's applied lines: the run's end"
    );
    assert_eq!(
        undated[0].detail,
        "applied `submitted` 2 times (event on connection 1 at position 2) but the runtime entered it 1 time(s)"
    );

    // The consumer traced when it applied each event: the second `submitted` came at 330 ms,
    // long after the runtime's one entry into it at 10 ms.
    let trace = applied_trace(&[
        (None, Submitted, 100),
        (Some(Submitted), Working, 200),
        (Some(Working), Submitted, 330),
        (Some(Submitted), Working, 400),
    ]);
    let dated = double_applies(&trace);
    assert_eq!(dated.len(), 1, "{dated:#?}");
    assert_eq!(
        dated[0].at_ms, 330,
        "when the consumer applied `submitted` the second time"
    );
}

/// The trace of job `j`'s consumer applying `(from, state, at_ms)` to task `t`, each from its
/// own position on connection 1.
fn applied_trace(applied: &[(Option<TaskState>, TaskState, u64)]) -> Trace {
    trace_of(
        (0u32..)
            .zip(applied)
            .map(|(index, &(from, state, at_ms))| {
                let event = TraceEvent::Applied(Applied {
                    job: "j".into(),
                    task: "t".into(),
                    from,
                    state,
                    connection: 1,
                    index,
                });
                (at_ms, event)
            })
            .collect(),
    )
}

#[test]
fn no_double_apply_names_a_replayed_state_the_runtime_entered_again_later() {
    // The runtime works, asks, and works again at 500 ms once answered. The consumer
    // resubscribed at 300 ms and applied the replayed `working` and `input-required`: the
    // second `input-required` is past the run's count, but the replayed `working` before it
    // broke the invariant already, though the runtime entered `working` again later.
    let truths = truth_of(vec![record(
        "t",
        &[
            (Submitted, 10),
            (Working, 20),
            (InputRequired, 30),
            (Working, 500),
            (Completed, 600),
        ],
    )]);
    let replaying = [
        Submitted,
        Working,
        InputRequired,
        Working,
        InputRequired,
        Working,
        Completed,
    ];
    let jobs = [job_run(
        "j",
        Some(report("j", vec![view("t", &replaying)], completed("t"))),
    )];
    let trace = applied_trace(
        &(0..)
            .zip(replaying)
            .zip([15, 25, 35, 300, 310, 505, 605])
            .map(|((position, state), at_ms)| {
                let from = (position > 0).then(|| replaying[position - 1]);
                (from, state, at_ms)
            })
            .collect::<Vec<_>>(),
    );
    let double_applies = |trace: &Trace| -> Vec<Violation> {
        judge(&jobs, &truths, &BTreeMap::new(), trace)
            .into_iter()
            .filter(|v| v.invariant == Invariant::NoDoubleApply)
            .collect()
    };
    let dated = double_applies(&trace);
    assert_eq!(dated.len(), 1, "{dated:#?}");
    assert_eq!(dated[0].at_ms, 300);
    assert_eq!(
        dated[0].detail,
        "applied `working` 2 times (event on connection 1 at position 3) but the runtime had entered it 1 time(s) when it was applied (2 by the end)"
    );
    // Without the consumer's applied lines nothing dates the replay: the first apply past
    // the run's count is named.
    let undated = double_applies(&empty_trace());
    assert_eq!(
        undated[0].detail,
        "applied `input-required` 2 times (event on connection 1 at position 4) but the runtime entered it 1 time(s)"
    );
}

#[test]
fn a_state_the_runtime_never_entered_is_applied_too_often_once_applied() {
    // `auth-required` between real states: a legal step, and the final view is right, so
    // only the count of what the runtime entered catches it.
    let truths = truth_of(vec![record(
        "t",
        &[(Submitted, 10), (InputRequired, 20), (Working, 30)],
    )]);
    let jobs = [job_run(
        "j",
        Some(report(
            "j",
            vec![view(
                "t",
                &[Submitted, InputRequired, AuthRequired, Working],
            )],
            Outcome::GaveUp {
                reason: "x".to_string(),
            },
        )),
    )];
    let judged = judge_plain(&jobs, &truths);
    let double: Vec<_> = judged
        .iter()
        .filter(|v| v.invariant == Invariant::NoDoubleApply)
        .collect();
    assert_eq!(double.len(), 1, "{judged:#?}");
    assert!(
        double[0]
            .detail
            .starts_with("applied `auth-required` 1 times"),
        "{}",
        double[0].detail
    );
    // A task the runtime has no record of is not counted here.
    let unknown = [job_run(
        "j",
        Some(report(
            "j",
            vec![view("nobody", &[Submitted, Working])],
            Outcome::GaveUp {
                reason: "x".to_string(),
            },
        )),
    )];
    assert!(!invariants(&judge_plain(&unknown, &truths)).contains(&Invariant::NoDoubleApply));
}

#[test]
fn legal_path_is_dated_by_the_consumers_applied_line_and_else_at_the_end() {
    let truths = truth_of(vec![record("t", &[(Submitted, 10), (Completed, 20)])]);
    let jobs = [job_run(
        "j",
        Some(report(
            "j",
            vec![view("t", &[Submitted, Completed, Working])],
            completed("t"),
        )),
    )];
    let undated = judge_plain(&jobs, &truths);
    let legal: Vec<_> = undated
        .iter()
        .filter(|v| v.invariant == Invariant::LegalPath)
        .collect();
    assert_eq!(legal.len(), 1, "one violation per task: {undated:#?}");
    assert_eq!(legal[0].at_ms, END_MS);
    assert_eq!(
        legal[0].detail,
        "applied `completed -> working` (connection 1, position 2), which the task state machine forbids"
    );

    let time = SimTime::new();
    let recorder = Recorder::new(time.clone());
    time.set_elapsed(Duration::from_millis(1_234));
    {
        let _recording = recorder.install();
        TraceEvent::Applied(Applied {
            job: "j".into(),
            task: "t".into(),
            from: Some(Completed),
            state: Working,
            connection: 1,
            index: 2,
        })
        .emit();
    }
    let dated = judge(&jobs, &truths, &BTreeMap::new(), &recorder.trace());
    let legal = dated
        .iter()
        .find(|v| v.invariant == Invariant::LegalPath)
        .expect("still violated");
    assert_eq!(legal.at_ms, 1_234);
}

#[test]
fn view_matches_truth_names_each_way_a_view_can_be_wrong() {
    let mut reaped = record("reaped", &[(Submitted, 10), (InputRequired, 20)]);
    reaped.fate = Some(Fate::Reaped {
        at: ms(300),
        reason: "ttl".to_string(),
    });
    let mut lost = record("lost", &[(Submitted, 10), (Working, 20)]);
    lost.fate = Some(Fate::Lost { at: ms(400) });
    let truths = truth_of(vec![
        record("behind", &[(Submitted, 10), (Working, 20), (Completed, 70)]),
        reaped,
        lost,
        record("reused", &[(Submitted, 10), (Completed, 20)]),
        record("reused", &[(Submitted, 500), (Completed, 600)]),
    ]);
    let views = vec![
        view("behind", &[Submitted, Working]),
        view("reaped", &[Submitted, InputRequired]),
        view("lost", &[Submitted, Working]),
        view("never", &[Submitted]),
        view("reused", &[Submitted, Completed]),
    ];
    let jobs = [job_run(
        "j",
        Some(report(
            "j",
            views,
            Outcome::GaveUp {
                reason: "x".to_string(),
            },
        )),
    )];
    let views_wrong = |trace: &Trace| -> Vec<(String, u64, String)> {
        judge(&jobs, &truths, &BTreeMap::new(), trace)
            .into_iter()
            .filter(|v| v.invariant == Invariant::ViewMatchesTruth)
            .map(|v| (v.task.unwrap_or_default(), v.at_ms, v.detail))
            .collect()
    };
    let believes =
        |state: &str, why: &str| format!("the consumer believes the task is `{state}` but {why}");
    let found = |at: [u64; 5]| {
        let tasks = [
            (
                "behind",
                believes("working", "the runtime has it `completed`"),
            ),
            (
                "reaped",
                believes("input-required", "the runtime reaped it (ttl)"),
            ),
            (
                "lost",
                believes("working", "the runtime lost it in a crash"),
            ),
            (
                "never",
                believes("submitted", "the runtime never had this task"),
            ),
            (
                "reused",
                believes(
                    "completed",
                    "the id now names a different task the runtime started afresh",
                ),
            ),
        ];
        tasks
            .into_iter()
            .zip(at)
            .map(|((task, detail), at)| (task.to_string(), at, detail))
            .collect::<Vec<_>>()
    };
    // Without the consumer's applied lines: when the runtime's truth left the belief, and the
    // run's end for a task that never was.
    assert_eq!(
        views_wrong(&empty_trace()),
        found([70, 300, 400, END_MS, 500])
    );

    // The consumer traced when it formed each final belief (the last applied event, at
    // position `states - 1` on connection 1). A belief wrong as it formed it is dated there:
    // `working` read at 100 ms of a task completed at 70, `working` at 450 ms of a task lost
    // at 400, `submitted` at 120 ms of a task that never was. A belief right when formed is
    // dated when the runtime moved away from it: `input-required` at 250 ms, reaped at 300;
    // `completed` at 30 ms, the id reused at 500.
    let belief = |task: &str, state: TaskState, index: u32, at_ms: u64| {
        (
            at_ms,
            TraceEvent::Applied(Applied {
                job: "j".into(),
                task: task.to_string().into(),
                from: None,
                state,
                connection: 1,
                index,
            }),
        )
    };
    let trace = trace_of(vec![
        belief("reused", Completed, 1, 30),
        belief("behind", Working, 1, 100),
        belief("never", Submitted, 0, 120),
        belief("reaped", InputRequired, 1, 250),
        belief("lost", Working, 1, 450),
    ]);
    assert_eq!(views_wrong(&trace), found([100, 300, 450, 120, 500]));
}

#[test]
fn view_matches_truth_skips_abandoned_tasks_and_views_without_a_belief() {
    let truths = truth_of(vec![
        record(
            "dropped",
            &[(Submitted, 10), (Working, 20), (Completed, 90)],
        ),
        record("unsure", &[(Submitted, 10), (Completed, 20)]),
    ]);
    let mut dropped = view("dropped", &[Submitted]);
    dropped.abandoned = Some(Abandonment {
        reason: "deadline".to_string(),
        cancel: CancelResult::TaskGone,
    });
    let mut unsure = view("unsure", &[Submitted]);
    unsure.final_state = None;
    let jobs = [job_run(
        "j",
        Some(report(
            "j",
            vec![dropped, unsure],
            Outcome::GaveUp {
                reason: "x".to_string(),
            },
        )),
    )];
    assert!(!invariants(&judge_plain(&jobs, &truths)).contains(&Invariant::ViewMatchesTruth));
}

#[test]
fn no_orphaned_task_blames_the_job_that_knew_the_live_task_and_only_it() {
    let mut reaped = record("reaped", &[(Submitted, 10)]);
    reaped.fate = Some(Fate::Reaped {
        at: ms(50),
        reason: "ttl".to_string(),
    });
    let truths = truth_of(vec![
        record("done", &[(Submitted, 10), (Completed, 20)]),
        record("left", &[(Submitted, 10), (InputRequired, 20)]),
        record("unknown", &[(Submitted, 10), (Working, 20)]),
        reaped,
    ]);
    let mut left = view("left", &[Submitted, InputRequired]);
    left.abandoned = Some(Abandonment {
        reason: "walked away".to_string(),
        cancel: CancelResult::NotAttempted,
    });
    let mut gone = view("reaped", &[Submitted]);
    gone.abandoned = left.abandoned.clone();
    let jobs = [
        job_run(
            "a",
            Some(report(
                "a",
                vec![view("done", &[Submitted, Completed])],
                completed("done"),
            )),
        ),
        job_run(
            "b",
            Some(report(
                "b",
                vec![left, gone],
                Outcome::GaveUp {
                    reason: "x".to_string(),
                },
            )),
        ),
    ];
    let orphans = |trace: &Trace| -> Vec<Violation> {
        judge(&jobs, &truths, &BTreeMap::new(), trace)
            .into_iter()
            .filter(|v| v.invariant == Invariant::NoOrphanedTask)
            .collect()
    };
    let found = orphans(&empty_trace());
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].job, "b");
    assert_eq!(found[0].task.as_deref(), Some("left"));
    assert_eq!(
        found[0].at_ms, END_MS,
        "without the consumer's outcome lines: the run's end"
    );
    assert_eq!(
        found[0].detail,
        "task is still `input-required` on agent after the job ended; nobody will finish or cancel it"
    );

    // Job `b` ended at 2,500 ms with `left` live: the act that orphaned it.
    let trace = trace_of(vec![(1_000, outcome_line("a")), (2_500, outcome_line("b"))]);
    let dated = orphans(&trace);
    assert_eq!(dated.len(), 1, "{dated:#?}");
    assert_eq!(dated[0].at_ms, 2_500);
}

#[test]
fn a_live_task_whose_id_a_program_was_sent_is_its_own_though_its_report_never_names_it() {
    let truths = truth_of(vec![
        record("forgotten", &[(Submitted, 10), (InputRequired, 20)]),
        record("done", &[(Submitted, 10), (Completed, 20)]),
    ]);
    let gave_up = Outcome::GaveUp {
        reason: "lost track".to_string(),
    };
    let jobs = [
        job_run("a", Some(report("a", Vec::new(), gave_up.clone()))),
        job_run("b", Some(report("b", Vec::new(), gave_up))),
    ];
    let sent = |host: &str, task: &str, job: &str| {
        Deliveries::from([(
            (host.to_string(), task.to_string()),
            Delivery {
                job: Some(job.to_string()),
                call: Some(2),
            },
        )])
    };
    let orphans_ending =
        |deliveries: &Deliveries, job_ends: &BTreeMap<String, Duration>| -> Vec<Violation> {
            judge_delivered(
                &jobs,
                &truths,
                &BTreeMap::new(),
                deliveries,
                &empty_trace(),
                job_ends,
            )
            .into_iter()
            .filter(|v| v.invariant == Invariant::NoOrphanedTask)
            .collect()
        };
    let orphans = |deliveries: &Deliveries| orphans_ending(deliveries, &BTreeMap::new());
    assert_eq!(
        orphans(&Deliveries::new()),
        [],
        "nobody was sent its id: nobody could find it"
    );
    let found = orphans(&sent(HOST, "forgotten", "b"));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].job, "b");
    assert_eq!(found[0].task.as_deref(), Some("forgotten"));
    assert_eq!(
        found[0].at_ms, END_MS,
        "no program end known: the run's end"
    );
    let ended = BTreeMap::from([("b".to_string(), Duration::from_millis(700))]);
    assert_eq!(
        orphans_ending(&sent(HOST, "forgotten", "b"), &ended)[0].at_ms,
        700,
        "dated at the exit of job b's program"
    );
    assert_eq!(
        found[0].detail,
        "task is still `input-required` on agent after the job ended; nobody will finish or cancel it (the consumer was sent its id in the answer to call 2 and its report never names it)"
    );
    assert_eq!(
        orphans(&sent(HOST, "done", "b")),
        [],
        "a task that finished is nobody's orphan"
    );
    assert_eq!(
        orphans(&sent("another-agent", "forgotten", "b")),
        [],
        "the same id sent by another host names another task"
    );
    let mut to_no_job = sent(HOST, "forgotten", "b");
    to_no_job
        .values_mut()
        .for_each(|delivery| delivery.job = None);
    let found = orphans(&to_no_job);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(
        found[0].job, "a",
        "the first job on the task's host answers"
    );
    assert_eq!(
        found[0].detail,
        "task is still `input-required` on agent after the job ended; nobody will finish or cancel it (the consumer was sent its id on a connection none of its jobs opened in its own task, and no report names it)"
    );
}

#[test]
fn a_reported_refusal_excuses_a_live_task_only_when_the_runtime_refused_a_cancel() {
    let mut refused = view("left", &[Submitted, InputRequired]);
    refused.abandoned = Some(Abandonment {
        reason: "the peer would not cancel".to_string(),
        cancel: CancelResult::NotCancelable,
    });
    let jobs = [job_run(
        "b",
        Some(report(
            "b",
            vec![refused],
            Outcome::GaveUp {
                reason: "x".to_string(),
            },
        )),
    )];
    let orphans = |cancel_refused: bool| {
        let mut left = record("left", &[(Submitted, 10), (InputRequired, 20)]);
        left.cancel_refused = cancel_refused;
        let truths = truth_of(vec![left]);
        judge(&jobs, &truths, &BTreeMap::new(), &empty_trace())
            .into_iter()
            .filter(|v| v.invariant == Invariant::NoOrphanedTask)
            .count()
    };
    assert_eq!(orphans(true), 0, "the peer's refusal, named as the peer's");
    assert_eq!(orphans(false), 1, "a refusal the runtime never made");
}

#[test]
fn one_outcome_is_the_end_the_job_asked_for() {
    let truths = truth_of(vec![
        record(
            "answered",
            &[
                (Submitted, 10),
                (InputRequired, 20),
                (Working, 30),
                (Completed, 40),
            ],
        ),
        record(
            "canceled",
            &[(Submitted, 10), (InputRequired, 20), (Canceled, 30)],
        ),
    ]);
    let judged = |cancel_at_input_required: bool, outcome: Outcome| {
        let mut run = job_run("j", Some(report("j", Vec::new(), outcome)));
        run.job.cancel_at_input_required = cancel_at_input_required;
        judge_plain(&[run], &truths)
            .into_iter()
            .filter(|v| v.invariant == Invariant::OneOutcome)
            .map(|v| v.detail)
            .collect::<Vec<_>>()
    };
    let canceled = || Outcome::Canceled {
        task_id: "canceled".to_string(),
    };
    // What each job asked for holds.
    assert_eq!(judged(true, canceled()), Vec::<String>::new());
    assert_eq!(judged(false, completed("answered")), Vec::<String>::new());
    // Answered where the job said to cancel; canceled where it did not.
    let answered = judged(true, completed("answered"));
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert!(answered[0].contains("says to cancel the task when it asks for input"));
    let uncalled = judged(false, canceled());
    assert_eq!(uncalled.len(), 1, "{uncalled:?}");
    assert!(uncalled[0].contains("does not say to cancel"));
}

#[test]
fn one_outcome_holds_a_completed_job_to_the_artifact_its_task_holds() {
    let mut long = record("long", &[(Submitted, 10), (Working, 20), (Completed, 40)]);
    long.artifact_text = "chunk 1 of 2chunk 2 of 2".to_string();
    let truths = truth_of(vec![long]);
    let judged = |artifact: &str| {
        let outcome = Outcome::Completed {
            task_id: "long".to_string(),
            artifact: artifact.to_string(),
        };
        judge_plain(
            &[job_run("j", Some(report("j", Vec::new(), outcome)))],
            &truths,
        )
        .into_iter()
        .filter(|v| v.invariant == Invariant::OneOutcome)
        .map(|v| v.detail)
        .collect::<Vec<_>>()
    };
    assert_eq!(judged("chunk 1 of 2chunk 2 of 2"), Vec::<String>::new());
    assert_eq!(
        judged("chunk 2 of 2"),
        [
            "the job accepted the artifact \"chunk 2 of 2\" but the runtime's task holds \"chunk 1 of 2chunk 2 of 2\""
        ]
    );
    // A long text is cut, a line break written as JSON writes it.
    let long = format!("{}\nend", "x".repeat(200));
    let detail = &judged(&long)[0];
    assert!(
        detail.starts_with(&format!(
            "the job accepted the artifact \"{}\"...",
            "x".repeat(120)
        )),
        "{detail}"
    );
    assert!(judged("line\nbreak")[0].contains(r#""line\nbreak""#));
}

#[test]
fn one_outcome_checks_the_accepted_task_against_the_runtime_and_other_jobs() {
    let mut gone = record("gone", &[(Submitted, 10), (Completed, 20)]);
    gone.fate = Some(Fate::Lost { at: ms(30) });
    let truths = truth_of(vec![
        record("shared", &[(Submitted, 10), (Completed, 20)]),
        record("failed", &[(Submitted, 10), (Failed, 20)]),
        gone,
    ]);
    let job = |name: &str, id: &str, outcome: Outcome| {
        job_run(
            name,
            Some(report(name, vec![view(id, &[Submitted])], outcome)),
        )
    };
    let jobs = [
        job("first", "shared", completed("shared")),
        job("second", "shared", completed("shared")),
        job(
            "wrong",
            "failed",
            Outcome::Canceled {
                task_id: "failed".to_string(),
            },
        ),
        job("lost", "gone", completed("gone")),
        job("phantom", "never", completed("never")),
        job(
            "gave-up",
            "failed",
            Outcome::GaveUp {
                reason: "x".to_string(),
            },
        ),
    ];
    let one_outcomes = |trace: &Trace| -> Vec<(String, u64, String)> {
        judge(&jobs, &truths, &BTreeMap::new(), trace)
            .into_iter()
            .filter(|v| v.invariant == Invariant::OneOutcome)
            .map(|v| (v.job, v.at_ms, v.detail))
            .collect()
    };
    let found = |at: [u64; 5]| {
        let details = [
            ("first", "another job accepted the same task"),
            ("second", "another job accepted the same task"),
            (
                "wrong",
                "the job accepted `canceled` but the runtime's task is `failed`",
            ),
            (
                "lost",
                "the job accepted `completed` but the runtime's task is `completed` and gone",
            ),
            ("phantom", "the runtime never had the accepted task"),
        ];
        details
            .into_iter()
            .zip(at)
            .map(|((job, detail), at)| (job.to_string(), at, detail.to_string()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        one_outcomes(&empty_trace()),
        found([END_MS; 5]),
        "without the consumer's outcome lines: the run's end"
    );

    // The consumer traced each acceptance. Two outcomes for `shared` exist from the second
    // one on (700 ms), for both jobs; each other job broke it when it accepted.
    let trace = trace_of(vec![
        (400, outcome_line("first")),
        (500, outcome_line("wrong")),
        (600, outcome_line("lost")),
        (700, outcome_line("second")),
        (800, outcome_line("phantom")),
        (900, outcome_line("gave-up")),
    ]);
    assert_eq!(one_outcomes(&trace), found([700, 700, 500, 600, 800]));
}

/// The `deadlines-honoured` violations of a job whose consumer applied `submitted` (limit
/// 500 ms) for task `stuck` at 100 ms and traced its deadline at `acted_ms`, against
/// `truths`.
fn deadline_acted_at(truths: &BTreeMap<String, GroundTruth>, acted_ms: u64) -> Vec<(u64, String)> {
    let mut job_report = report(
        "j",
        vec![view("stuck", &[Submitted])],
        Outcome::GaveUp {
            reason: "x".to_string(),
        },
    );
    job_report.deadlines.push(DeadlineHit {
        task_id: "stuck".to_string(),
        state: Submitted,
        limit_ms: 500,
    });
    let jobs = [job_run("j", Some(job_report))];
    let trace = trace_of(vec![
        (
            100,
            TraceEvent::Applied(Applied {
                job: "j".into(),
                task: "stuck".into(),
                from: None,
                state: Submitted,
                connection: 1,
                index: 0,
            }),
        ),
        (
            acted_ms,
            TraceEvent::Deadline {
                job: "j".into(),
                task: "stuck".into(),
                state: Submitted,
                limit_ms: 500,
            },
        ),
    ]);
    judge(&jobs, truths, &BTreeMap::new(), &trace)
        .into_iter()
        .filter(|v| v.invariant == Invariant::DeadlinesHonoured)
        .map(|v| (v.at_ms, v.detail))
        .collect()
}

#[test]
fn a_deadline_acted_on_more_than_a_second_late_is_not_honoured() {
    // The task sat in `submitted` from 0 to 9,000 ms.
    let truths = truth_of(vec![record("stuck", &[(Submitted, 0), (Canceled, 9_000)])]);
    // Due at 600 ms: a second's grace covers 1,600.
    assert_eq!(deadline_acted_at(&truths, 1_600), []);
    assert_eq!(
        deadline_acted_at(&truths, 1_601),
        [(
            1_601,
            "the consumer applied `submitted` at 100 ms and acted on its 500 ms deadline only at 1601 ms, 1001 ms late".to_string()
        )]
    );
}

#[test]
fn a_deadline_is_due_from_the_runtimes_new_entry_into_the_state_after_the_apply() {
    // The task went on to `input-required` and was lost at 1,000 ms; the peer started it
    // afresh under its id at 2,000 ms, and it sat in `submitted` until 9,000 ms. The
    // consumer applied only the first `submitted` (a second may be held as a replay), yet
    // could not act on the new one before it happened.
    let mut first = record(
        "stuck",
        &[(Submitted, 0), (Working, 200), (InputRequired, 400)],
    );
    first.fate = Some(Fate::Lost { at: ms(1_000) });
    let again = record("stuck", &[(Submitted, 2_000), (Canceled, 9_000)]);
    let truths = truth_of(vec![first, again]);
    // Due at 2,500 ms: a second's grace covers 3,500.
    assert_eq!(deadline_acted_at(&truths, 3_500), []);
    assert_eq!(
        deadline_acted_at(&truths, 3_501),
        [(
            3_501,
            "the runtime entered `submitted` anew at 2000 ms, after the consumer applied it at 100 ms, and the consumer acted on its 500 ms deadline only at 3501 ms, 1001 ms late".to_string()
        )]
    );
}

#[test]
fn deadlines_honoured_measures_each_stay_against_its_limit() {
    // Limits: 500 ms in submitted, 2,000 ms in working.
    let mut reaped = record("reaped", &[(Submitted, 0)]);
    reaped.fate = Some(Fate::Reaped {
        at: ms(400),
        reason: "ttl".to_string(),
    });
    let truths = truth_of(vec![
        // In time: 500 ms exactly in submitted, 1,000 ms per working turn.
        record(
            "quick",
            &[
                (Submitted, 0),
                (Working, 500),
                (InputRequired, 1_500),
                (Working, 8_000),
                (Completed, 9_000),
            ],
        ),
        // Stuck in submitted for 1,500 ms, moving on within a second of its deadline (a
        // consumer that looks once a second may not have seen it), then 3,001 ms in its
        // second working turn, more than a second past that deadline.
        record(
            "slow",
            &[
                (Submitted, 0),
                (Working, 1_500),
                (InputRequired, 1_600),
                (Working, 2_000),
                (Completed, 5_001),
            ],
        ),
        // Still working at the end (9,000 ms): stuck from 5,000.
        record("open", &[(Submitted, 4_900), (Working, 5_000)]),
        // Left the store before its deadline.
        reaped,
        // Stuck, but the consumer acted.
        record(
            "acted",
            &[(Submitted, 0), (Working, 3_000), (Completed, 3_500)],
        ),
        record("dropped", &[(Submitted, 0), (Canceled, 3_000)]),
    ]);
    let mut dropped = view("dropped", &[Submitted]);
    dropped.abandoned = Some(Abandonment {
        reason: "deadline".to_string(),
        cancel: CancelResult::Answered(Canceled),
    });
    let mut job_report = report(
        "j",
        vec![
            view("quick", &[Submitted]),
            view("slow", &[Submitted]),
            view("open", &[Submitted]),
            view("reaped", &[Submitted]),
            view("acted", &[Submitted]),
            dropped,
        ],
        Outcome::GaveUp {
            reason: "x".to_string(),
        },
    );
    job_report.deadlines.push(DeadlineHit {
        task_id: "acted".to_string(),
        state: Submitted,
        limit_ms: 500,
    });
    let jobs = [job_run("j", Some(job_report))];
    let found: Vec<(String, u64, String)> = judge_plain(&jobs, &truths)
        .into_iter()
        .filter(|v| v.invariant == Invariant::DeadlinesHonoured)
        .map(|v| (v.task.unwrap_or_default(), v.at_ms, v.detail))
        .collect();
    let sat = |state: &str, stuck: u64, limit: u64| {
        format!(
            "the task sat in `{state}` for {stuck} ms, more than a second past the {limit} ms deadline, and the consumer neither reported the deadline nor abandoned the task"
        )
    };
    assert_eq!(
        found,
        vec![
            ("slow".to_string(), 4_000, sat("working", 3_001, 2_000)),
            ("open".to_string(), 7_000, sat("working", 4_000, 2_000)),
        ]
    );
}

#[test]
fn liveness_fails_jobs_that_never_finished_or_gave_up() {
    let truths = truth_of(vec![record("t", &[(Submitted, 10), (Completed, 20)])]);
    let jobs = [
        job_run(
            "fine",
            Some(report(
                "fine",
                vec![view("t", &[Submitted, Completed])],
                completed("t"),
            )),
        ),
        job_run("hung", None),
        job_run(
            "quit",
            Some(report(
                "quit",
                Vec::new(),
                Outcome::GaveUp {
                    reason: "the peer vanished".to_string(),
                },
            )),
        ),
    ];
    let found: Vec<(String, Option<String>, u64, String)> = judge_plain(&jobs, &truths)
        .into_iter()
        .filter(|v| v.invariant == Invariant::Liveness)
        .map(|v| (v.job, v.task, v.at_ms, v.detail))
        .collect();
    assert_eq!(
        found,
        vec![
            (
                "hung".to_string(),
                None,
                END_MS,
                "the job did not finish within the liveness bound".to_string()
            ),
            (
                "quit".to_string(),
                None,
                END_MS,
                "the job gave up: the peer vanished".to_string()
            ),
        ]
    );
}

#[test]
fn liveness_excuses_a_give_up_only_where_the_stalls_outlast_the_job_after_a_lost_call() {
    // 30 stalls × 500 ms + 4 work steps × 1 s + 63 exchanges × 80 ms = 24.04 s after the
    // faults end at 5 s: 29.04 s fits the 30 s job, but the call the faults may have
    // swallowed is known lost only at 8 s.
    let peer = meshsim_runtimes::Personality {
        stalled_first_tasks: 30,
        work: meshsim_runtimes::WorkDurations {
            min_ms: 0,
            max_ms: 1_000,
            long_running_steps: 1,
        },
        ..meshsim_runtimes::Personality::default()
    };
    let personalities = BTreeMap::from([(HOST.to_string(), peer)]);
    let gave_up = Outcome::GaveUp {
        reason: "job deadline passed".to_string(),
    };
    // The consumer canceled the task that stalled, and gave up.
    let truths = truth_of(vec![record("stalled", &[(Submitted, 10), (Canceled, 400)])]);
    let stalled = view("stalled", &[Submitted, Canceled]);
    let jobs = [job_run(
        "j",
        Some(report("j", vec![stalled], gave_up.clone())),
    )];
    let trace = empty_trace();
    let judged_on = |jobs: &[JobRun], truths: &BTreeMap<String, GroundTruth>, faults_end| {
        super::judge(&Evidence {
            jobs,
            truths,
            profiles: &BTreeMap::new(),
            personalities: &personalities,
            converged: true,
            consumer_failure: None,
            end: Duration::from_millis(END_MS),
            faults_end,
            deliveries: &Deliveries::new(),
            trace: &trace,
            job_ends: &BTreeMap::new(),
            epoch: EPOCH,
        })
    };
    let judged = |faults_end| judged_on(&jobs, &truths, faults_end);
    let after_faults = judged(Duration::from_secs(5));
    assert_eq!(invariants(&after_faults.violations), []);
    let named = &after_faults.peer_faults[0].peer;
    assert!(
        named.contains("every-task-stalls") && named.contains("= 32040 ms"),
        "{named}"
    );
    // Without faults no call was lost, and 24.04 s fits: the give-up is the consumer's.
    let without_faults = judged(Duration::ZERO);
    assert_eq!(
        invariants(&without_faults.violations),
        [Invariant::Liveness]
    );
    assert!(without_faults.peer_faults.is_empty());
    // A task the runtime started that the consumer never saw a state of (a v0.1 blocking
    // send that never answered): the consumer tried.
    let unseen = [job_run("j", Some(report("j", Vec::new(), gave_up.clone())))];
    let tried = judged_on(&unseen, &truths, Duration::from_secs(5));
    assert_eq!(invariants(&tried.violations), []);
    assert_eq!(tried.peer_faults.len(), 1);
    // A consumer that gave up without ever starting a task did not find the job impossible.
    let lazy = judged_on(&unseen, &BTreeMap::new(), Duration::from_secs(5));
    assert!(lazy.peer_faults.is_empty(), "{:#?}", lazy.peer_faults);
    assert_eq!(lazy.violations.len(), 1, "{:#?}", lazy.violations);
    assert_eq!(
        lazy.violations[0].detail,
        "the job gave up: job deadline passed (the peer makes it impossible (every-task-stalls), but no task was ever started there to find that out)"
    );
}

#[test]
fn profile_matches_runtime_compares_only_what_both_sides_know() {
    let key = ProfileKey {
        host: format!("{HOST}:9000"),
        card_version: "1".to_string(),
    };
    let mut real = PeerLifecycleProfile::unknown(key.clone());
    real.resubscribe_after_input_required = Some(ResubscribeBehaviour::Replays);
    real.stream_closes_on_input_required = Some(true);
    real.task_survives_stream_close = None;
    let profiles = BTreeMap::from([(HOST.to_string(), real)]);
    let truths = truth_of(vec![record("t", &[(Submitted, 10), (Completed, 20)])]);
    let judged_on = |learned: PeerLifecycleProfile, trace: &Trace| {
        let mut job_report = report(
            "j",
            vec![view("t", &[Submitted, Completed])],
            completed("t"),
        );
        job_report.profile = Some(learned);
        let jobs = [job_run("j", Some(job_report))];
        judge(&jobs, &truths, &profiles, trace)
    };
    let judged = |learned: PeerLifecycleProfile| judged_on(learned, &empty_trace());

    let mut agrees = PeerLifecycleProfile::unknown(key.clone());
    agrees.stream_closes_on_input_required = Some(true);
    agrees.task_survives_stream_close = Some(false);
    assert_eq!(
        judged(agrees),
        Vec::new(),
        "unknown fields on either side are not compared"
    );

    let mut wrong = PeerLifecycleProfile::unknown(key.clone());
    wrong.resubscribe_after_input_required = Some(ResubscribeBehaviour::Resumes);
    wrong.stream_closes_on_input_required = Some(false);
    let found = judged(wrong.clone());
    assert_eq!(invariants(&found), vec![Invariant::ProfileMatchesRuntime]);
    assert_eq!(found[0].task, None);
    assert_eq!(
        found[0].at_ms, END_MS,
        "without the consumer's lines: the run's end"
    );
    assert_eq!(
        found[0].detail,
        format!(
            "resubscribe_after_input_required: learned {}, really {}; stream_closes_on_input_required: learned false, really true",
            ResubscribeBehaviour::Resumes.label(),
            ResubscribeBehaviour::Replays.label()
        )
    );

    // The consumer traced what it learned. `stream_closes_on_input_required` went wrong at
    // 250 ms (right at 100 ms, then `false`), `resubscribe_after_input_required` at 400 ms:
    // the profile has been wrong since 250. Another peer's learning (50 ms), another
    // consumer host's (260 ms) and what came after the job's outcome (700 ms) are not this
    // profile's.
    let learned = |peer: &ProfileKey, field: &str, value: &str| TraceEvent::ProfileLearned {
        job: "j".into(),
        peer: peer.host.clone().into(),
        card_version: peer.card_version.clone().into(),
        field: field.to_string().into(),
        value: value.to_string().into(),
    };
    let other_version = ProfileKey {
        card_version: "2".to_string(),
        ..key.clone()
    };
    let stream_closes = "stream_closes_on_input_required";
    let resubscribe = "resubscribe_after_input_required";
    let time = SimTime::new();
    let recorder = Recorder::new(time.clone());
    {
        let _recording = recorder.install();
        let at = |at_ms: u64, event: TraceEvent<'_>| {
            time.set_elapsed(Duration::from_millis(at_ms));
            event.emit();
        };
        at(
            0,
            TraceEvent::JobStart {
                job: "j".into(),
                consumer: "crafted".into(),
                peer: "agent".into(),
            },
        );
        at(50, learned(&other_version, stream_closes, "false"));
        at(100, learned(&key, stream_closes, "true"));
        at(250, learned(&key, stream_closes, "false"));
        // A line on another host, as turmoil names it.
        // Were it this consumer's, the profile would be right from 260 ms to 400 ms.
        let on_other_host = learned(&key, stream_closes, "true");
        let mut sim = turmoil::Builder::new().build();
        let elapsed = time.clone();
        sim.client("other-consumer", async move {
            elapsed.set_elapsed(Duration::from_millis(260));
            on_other_host.emit();
            Ok(())
        });
        sim.run().expect("the other consumer's host runs");
        at(400, learned(&key, resubscribe, "resumes"));
        at(600, outcome_line("j"));
        at(700, learned(&key, stream_closes, "true"));
    }
    let dated = judged_on(wrong.clone(), &recorder.trace());
    assert_eq!(invariants(&dated), vec![Invariant::ProfileMatchesRuntime]);
    assert_eq!(dated[0].at_ms, 250, "{dated:#?}");

    // A wrong value the consumer never traced learning is dated at the job's outcome, which
    // reported it.
    let reported_only = trace_of(vec![(600, outcome_line("j"))]);
    assert_eq!(judged_on(wrong, &reported_only)[0].at_ms, 600);
}

#[test]
fn violations_come_in_invariant_order() {
    let truths = truth_of(vec![record("t", &[(Submitted, 10), (Working, 20)])]);
    let jobs = [
        job_run("hung", None),
        job_run(
            "j",
            Some(report(
                "j",
                vec![view("t", &[Submitted, Completed, Working])],
                completed("t"),
            )),
        ),
    ];
    let order = invariants(&judge_plain(&jobs, &truths));
    let mut sorted = order.clone();
    sorted.sort_by_key(|invariant| Invariant::ALL.iter().position(|i| i == invariant));
    assert_eq!(order, sorted);
    // `completed` was never entered: applied too often (first), and an illegal step after it.
    assert_eq!(order.first(), Some(&Invariant::NoDoubleApply));
    assert!(order.contains(&Invariant::LegalPath), "{order:?}");
    assert_eq!(order.last(), Some(&Invariant::Liveness));
}
