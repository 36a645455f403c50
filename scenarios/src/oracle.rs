//! The oracle: checks what consumers report against the runtimes' ground truth, which only
//! the simulation can see, and names every violation.
//!
//! Some breaks are the peer's doing, not the consumer's: a cancel the peer refused as the
//! protocol lets it (-32002, or the task answered unchanged) leaves a task live, and a job
//! [`crate::impossible`] says no consumer can finish ends in a give-up. There the oracle
//! judges the consumer on what it did about it (asked to cancel and reported the refusal;
//! gave up with a reason) and names the peer's part as a [`PeerFault`] instead of a
//! violation.

use crate::impossible::impossible;
use crate::invariant::Invariant;
use meshsim_consumer::{
    CancelResult, Job, JobReport, Outcome, PeerLifecycleProfile, ledger::EventRef,
};
use meshsim_protocol::TaskState;
use meshsim_runtimes::{Fate, GroundTruth, Personality, TaskTruth};
use meshsim_sim::Trace;
use meshsim_trace::TraceLine;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// One broken invariant, with where and when it broke.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub invariant: Invariant,
    pub job: String,
    pub task: Option<String>,
    /// Simulated time since the run started, in milliseconds.
    pub at_ms: u64,
    pub detail: String,
}

/// An invariant that broke because of what the peer did within its rights, with what the
/// consumer did about it (which held).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PeerFault {
    /// The invariant that would otherwise be a violation.
    pub invariant: Invariant,
    pub job: String,
    pub task: Option<String>,
    /// What the peer did.
    pub peer: String,
    /// What the consumer did about it.
    pub consumer: String,
}

/// The oracle's judgement of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    /// The consumer's violations, in [`Invariant::ALL`] order, then job order.
    pub violations: Vec<Violation>,
    /// What broke by the peer's doing, in the order found.
    pub peer_faults: Vec<PeerFault>,
}

/// One job of a run: what was asked, of which host, and what the consumer reported
/// (`None` when it never finished).
#[derive(Debug, Clone)]
pub struct JobRun {
    pub job: Job,
    pub host: String,
    pub report: Option<JobReport>,
}

/// What the oracle is given after a run.
pub struct Evidence<'a> {
    pub jobs: &'a [JobRun],
    /// Each runtime host's ground truth, by host name.
    pub truths: &'a BTreeMap<String, GroundTruth>,
    /// Each host's real lifecycle profile, where the scenario makes it well defined.
    pub profiles: &'a BTreeMap<String, PeerLifecycleProfile>,
    /// Each runtime host's personality (what makes a job impossible).
    pub personalities: &'a BTreeMap<String, Personality>,
    /// Whether every client finished within the liveness bound.
    pub converged: bool,
    /// Simulated time at the end of the run.
    pub end: Duration,
    /// When the run's faults were over (the heal at the chaos phase's end), zero for a run
    /// without faults: before it the peer may have been unreachable or restarting.
    pub faults_end: Duration,
    /// The run's trace: when the consumer applied what (where it traced it).
    pub trace: &'a Trace,
    /// The pinned epoch as a duration since the Unix epoch: ground-truth times minus this
    /// are times since the run started.
    pub epoch: Duration,
}

/// Checks every invariant; violations come in [`Invariant::ALL`] order, then job order.
pub fn check(evidence: &Evidence<'_>) -> Vec<Violation> {
    judge(evidence).violations
}

/// Checks every invariant, telling the consumer's violations from the peer's faults.
pub fn judge(evidence: &Evidence<'_>) -> Judgement {
    let mut peer_faults = Vec::new();
    let mut found = Vec::new();
    for run in evidence.jobs {
        let Some(report) = &run.report else { continue };
        let truth = evidence.truths.get(&run.host);
        no_double_apply(evidence, run, report, truth, &mut found);
        legal_path(evidence, run, report, &mut found);
        view_matches_truth(evidence, run, report, truth, &mut found);
    }
    no_orphaned_task(evidence, &mut found, &mut peer_faults);
    for run in evidence.jobs {
        let Some(report) = &run.report else { continue };
        one_outcome(evidence, run, report, &mut found);
        deadlines_honoured(evidence, run, report, &mut found);
    }
    liveness(evidence, &mut found, &mut peer_faults);
    for run in evidence.jobs {
        let Some(report) = &run.report else { continue };
        profile_matches_runtime(evidence, run, report, &mut found);
    }
    found.sort_by_key(|violation| {
        Invariant::ALL
            .iter()
            .position(|invariant| *invariant == violation.invariant)
    });
    Judgement {
        violations: found,
        peer_faults,
    }
}

impl Evidence<'_> {
    fn since_start(&self, at: Duration) -> u64 {
        millis(at.saturating_sub(self.epoch))
    }

    fn end_ms(&self) -> u64 {
        millis(self.end)
    }

    /// When the consumer applied `event` to `task` in `job`, from its `applied` trace line,
    /// in milliseconds since the start; `None` when it traced none (a user's consumer need
    /// not). Only read when a violation needs it, so a passing run pays nothing.
    fn applied_at(&self, job: &str, task: &str, event: &EventRef) -> Option<u64> {
        self.trace
            .lines()
            .iter()
            .filter_map(|line| TraceLine::parse_applied(line))
            .find(|(_, applied)| {
                applied.job == job
                    && applied.task == task
                    && applied.connection == event.connection
                    && applied.index == event.index
            })
            .map(|(micros, _)| micros / 1000)
    }

    fn records(&self, host: &str, task: &str) -> Vec<TaskTruth> {
        self.truths
            .get(host)
            .map(|truth| truth.records(task))
            .unwrap_or_default()
    }
}

fn violation(
    invariant: Invariant,
    run: &JobRun,
    task: Option<&str>,
    at_ms: u64,
    detail: String,
) -> Violation {
    Violation {
        invariant,
        job: run.job.name.clone(),
        task: task.map(str::to_string),
        at_ms,
        detail,
    }
}

fn no_double_apply(
    evidence: &Evidence<'_>,
    run: &JobRun,
    report: &JobReport,
    truth: Option<&GroundTruth>,
    found: &mut Vec<Violation>,
) {
    for view in &report.tasks {
        let records = truth.map(|t| t.records(&view.task_id)).unwrap_or_default();
        let mut entered: BTreeMap<TaskState, usize> = BTreeMap::new();
        for record in &records {
            for transition in &record.transitions {
                *entered.entry(transition.to).or_default() += 1;
            }
        }
        let mut applied: BTreeMap<TaskState, usize> = BTreeMap::new();
        for event in &view.applied {
            let count = applied.entry(event.to).or_default();
            *count += 1;
            let real = entered.get(&event.to).copied().unwrap_or(0);
            if *count > real && real > 0 {
                // The act that broke it: the consumer applying the state once too often.
                let at = evidence
                    .applied_at(&run.job.name, &view.task_id, &event.at)
                    .unwrap_or_else(|| evidence.end_ms());
                found.push(violation(
                    Invariant::NoDoubleApply,
                    run,
                    Some(&view.task_id),
                    at,
                    format!(
                        "applied `{}` {} times (event on connection {} at position {}) but the runtime entered it {} time(s)",
                        event.to, count, event.at.connection, event.at.index, real
                    ),
                ));
                break;
            }
        }
    }
}

fn legal_path(
    evidence: &Evidence<'_>,
    run: &JobRun,
    report: &JobReport,
    found: &mut Vec<Violation>,
) {
    for view in &report.tasks {
        let mut current = None;
        for event in &view.applied {
            if !event.to.move_from(current).is_legal() {
                let from = current.map_or("nothing".to_string(), |s: TaskState| s.to_string());
                let at_ms = evidence
                    .applied_at(&run.job.name, &view.task_id, &event.at)
                    .unwrap_or_else(|| evidence.end_ms());
                found.push(violation(
                    Invariant::LegalPath,
                    run,
                    Some(&view.task_id),
                    at_ms,
                    format!(
                        "applied `{from} -> {}` (connection {}, position {}), which the task state machine forbids",
                        event.to, event.at.connection, event.at.index
                    ),
                ));
                break;
            }
            current = Some(event.to);
        }
    }
}

fn view_matches_truth(
    evidence: &Evidence<'_>,
    run: &JobRun,
    report: &JobReport,
    truth: Option<&GroundTruth>,
    found: &mut Vec<Violation>,
) {
    for view in &report.tasks {
        if view.abandoned.is_some() {
            continue;
        }
        let Some(believed) = view.final_state else {
            continue;
        };
        let record = truth.and_then(|t| t.task(&view.task_id));
        let problem = match &record {
            None => Some((
                evidence.end_ms(),
                "the runtime never had this task".to_string(),
            )),
            Some(record) => match &record.fate {
                Some(Fate::Reaped { at, reason }) => Some((
                    evidence.since_start(*at),
                    format!("the runtime reaped it ({reason})"),
                )),
                Some(Fate::Lost { at }) => Some((
                    evidence.since_start(*at),
                    "the runtime lost it in a crash".to_string(),
                )),
                None if record.state != believed => Some((
                    record
                        .transitions
                        .last()
                        .map(|t| evidence.since_start(t.at))
                        .unwrap_or_else(|| evidence.end_ms()),
                    format!("the runtime has it `{}`", record.state),
                )),
                None if records_reused(evidence, &run.host, &view.task_id) => Some((
                    record_time(evidence, record),
                    "the id now names a different task the runtime started afresh".to_string(),
                )),
                None => None,
            },
        };
        if let Some((at, why)) = problem {
            found.push(violation(
                Invariant::ViewMatchesTruth,
                run,
                Some(&view.task_id),
                at,
                format!("the consumer believes the task is `{believed}` but {why}"),
            ));
        }
    }
}

/// Whether the runtime created more than one task under this id (v0.1 clients choose ids,
/// so a follow-up to a reaped task silently starts a new one under the old id).
fn records_reused(evidence: &Evidence<'_>, host: &str, task: &str) -> bool {
    evidence.records(host, task).len() > 1
}

fn record_time(evidence: &Evidence<'_>, record: &TaskTruth) -> u64 {
    evidence.since_start(record.created_at)
}

fn no_orphaned_task(
    evidence: &Evidence<'_>,
    found: &mut Vec<Violation>,
    peer_faults: &mut Vec<PeerFault>,
) {
    for (host, truth) in evidence.truths {
        for record in truth.tasks() {
            if !record.is_live() {
                continue;
            }
            let owner = evidence.jobs.iter().find(|run| {
                run.host == *host
                    && run
                        .report
                        .as_ref()
                        .is_some_and(|report| report.task(&record.id).is_some())
            });
            // A task no job ever learned of (its creating response was lost to a fault)
            // cannot be finished or canceled by anyone: A2A has no idempotency key to
            // find it by. Only tasks a consumer knew of and left behind are its doing.
            let Some(owner) = owner else { continue };
            let abandoned = owner
                .report
                .as_ref()
                .and_then(|report| report.task(&record.id))
                .and_then(|view| view.abandoned.as_ref());
            if let Some(abandoned) = abandoned.filter(|abandoned| abandoned.cancel.is_refusal()) {
                peer_faults.push(PeerFault {
                    invariant: Invariant::NoOrphanedTask,
                    job: owner.job.name.clone(),
                    task: Some(record.id.clone()),
                    peer: format!(
                        "refused to cancel the task ({}); it is still `{}` on {host}",
                        refusal(&abandoned.cancel),
                        record.state
                    ),
                    consumer: format!(
                        "asked to cancel it and reported the refusal (abandoned: {})",
                        abandoned.reason
                    ),
                });
                continue;
            }
            found.push(violation(
                Invariant::NoOrphanedTask,
                owner,
                Some(&record.id),
                evidence.end_ms(),
                format!(
                    "task is still `{}` on {host} after the job ended; nobody will finish or cancel it",
                    record.state
                ),
            ));
        }
    }
}

fn one_outcome(
    evidence: &Evidence<'_>,
    run: &JobRun,
    report: &JobReport,
    found: &mut Vec<Violation>,
) {
    let expected = match &report.outcome {
        Outcome::Completed { task_id, .. } => Some((task_id, TaskState::Completed)),
        Outcome::Failed { task_id, .. } => Some((task_id, TaskState::Failed)),
        Outcome::Canceled { task_id } => Some((task_id, TaskState::Canceled)),
        Outcome::GaveUp { .. } => None,
    };
    let Some((task_id, state)) = expected else {
        return;
    };
    let others = evidence
        .jobs
        .iter()
        .filter(|other| other.job.name != run.job.name && other.host == run.host)
        .filter_map(|other| other.report.as_ref())
        .any(|other| other.outcome.task_id() == Some(task_id.as_str()));
    let record = evidence
        .truths
        .get(&run.host)
        .and_then(|truth| truth.task(task_id));
    let problem = if others {
        Some("another job accepted the same task".to_string())
    } else {
        match record {
            None => Some("the runtime never had the accepted task".to_string()),
            Some(record) if record.state != state || record.fate.is_some() => Some(format!(
                "the job accepted `{state}` but the runtime's task is `{}`{}",
                record.state,
                if record.fate.is_some() {
                    " and gone"
                } else {
                    ""
                }
            )),
            Some(_) => None,
        }
    };
    if let Some(problem) = problem {
        found.push(violation(
            Invariant::OneOutcome,
            run,
            Some(task_id),
            evidence.end_ms(),
            problem,
        ));
    }
}

fn deadlines_honoured(
    evidence: &Evidence<'_>,
    run: &JobRun,
    report: &JobReport,
    found: &mut Vec<Violation>,
) {
    let limits = [
        (TaskState::Submitted, run.job.deadlines.submitted),
        (TaskState::Working, run.job.deadlines.working),
    ];
    let end = evidence.epoch + evidence.end;
    for view in &report.tasks {
        for record in evidence.records(&run.host, &view.task_id) {
            let left_store = match &record.fate {
                Some(Fate::Reaped { at, .. }) | Some(Fate::Lost { at }) => *at,
                None => end,
            };
            for (index, transition) in record.transitions.iter().enumerate() {
                let Some((_, limit)) = limits.iter().find(|(state, _)| *state == transition.to)
                else {
                    continue;
                };
                let until = record
                    .transitions
                    .get(index + 1)
                    .map_or(left_store, |next| next.at);
                let stuck = until.saturating_sub(transition.at);
                if stuck <= *limit {
                    continue;
                }
                let acted = report
                    .deadlines
                    .iter()
                    .any(|hit| hit.task_id == view.task_id && hit.state == transition.to)
                    || view.abandoned.is_some();
                if !acted {
                    found.push(violation(
                        Invariant::DeadlinesHonoured,
                        run,
                        Some(&view.task_id),
                        evidence.since_start(transition.at + *limit),
                        format!(
                            "the task sat in `{}` for {} ms, past the {} ms deadline, and the consumer did nothing",
                            transition.to,
                            millis(stuck),
                            millis(*limit)
                        ),
                    ));
                }
            }
        }
    }
}

/// How the peer refused a cancel, in words.
fn refusal(cancel: &CancelResult) -> String {
    match cancel {
        CancelResult::NotCancelable => "answered -32002 TaskNotCancelable".to_string(),
        CancelResult::Answered(state) => {
            format!("answered with the task still `{state}`: the cancel was ignored")
        }
        other => format!("{other:?}"),
    }
}

fn liveness(evidence: &Evidence<'_>, found: &mut Vec<Violation>, peer_faults: &mut Vec<PeerFault>) {
    for run in evidence.jobs {
        let problem = match &run.report {
            None => Some("the job did not finish within the liveness bound".to_string()),
            Some(report) => match &report.outcome {
                Outcome::GaveUp { reason } => {
                    let found = evidence
                        .personalities
                        .get(&run.host)
                        .and_then(|personality| {
                            impossible(personality, &run.job, evidence.faults_end)
                        });
                    if let Some(found) = found.filter(|_| !reason.is_empty()) {
                        peer_faults.push(PeerFault {
                            invariant: Invariant::Liveness,
                            job: run.job.name.clone(),
                            task: None,
                            peer: format!(
                                "made the job impossible ({}: {})",
                                found.rule.name, found.why
                            ),
                            consumer: format!("gave up cleanly: {reason}"),
                        });
                        continue;
                    }
                    Some(format!("the job gave up: {reason}"))
                }
                _ => None,
            },
        };
        if let Some(problem) = problem {
            found.push(violation(
                Invariant::Liveness,
                run,
                None,
                evidence.end_ms(),
                problem,
            ));
        }
    }
}

fn profile_matches_runtime(
    evidence: &Evidence<'_>,
    run: &JobRun,
    report: &JobReport,
    found: &mut Vec<Violation>,
) {
    let (Some(learned), Some(real)) = (&report.profile, evidence.profiles.get(&run.host)) else {
        return;
    };
    let fields = [
        (
            "resubscribe_after_input_required",
            learned.resubscribe_after_input_required.map(|b| b.label()),
            real.resubscribe_after_input_required.map(|b| b.label()),
        ),
        (
            "followup_same_task",
            learned.followup_same_task.map(|b| b.label().to_string()),
            real.followup_same_task.map(|b| b.label().to_string()),
        ),
        (
            "stream_closes_on_input_required",
            learned
                .stream_closes_on_input_required
                .map(|b| b.to_string()),
            real.stream_closes_on_input_required.map(|b| b.to_string()),
        ),
        (
            "task_survives_stream_close",
            learned.task_survives_stream_close.map(|b| b.to_string()),
            real.task_survives_stream_close.map(|b| b.to_string()),
        ),
    ];
    let wrong: Vec<String> = fields
        .into_iter()
        .filter_map(|(field, learned, real)| match (learned, real) {
            (Some(learned), Some(real)) if learned != real => {
                Some(format!("{field}: learned {learned}, really {real}"))
            }
            _ => None,
        })
        .collect();
    if !wrong.is_empty() {
        found.push(violation(
            Invariant::ProfileMatchesRuntime,
            run,
            None,
            evidence.end_ms(),
            wrong.join("; "),
        ));
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;
