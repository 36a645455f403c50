//! `deadlines-honoured`: a task stuck in `submitted` or `working` past the job's deadline got
//! the consumer's attention, and in time: within a second of the deadline's expiry as the
//! consumer knew the state (from when it applied it, or from the runtime's entry into it
//! anew after that), where the run's trace says when it acted. A task that moved on within
//! that second of its deadline may have gone unnoticed.

use super::evidence::{Evidence, JobRun, millis};
use super::verdict::{Violation, violation};
use crate::invariant::Invariant;
use meshsim_consumer::{JobReport, TaskView};
use meshsim_protocol::TaskState;
use meshsim_runtimes::Fate;
use std::time::Duration;

pub(super) fn deadlines_honoured(
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
                if acted {
                    late_deadline(evidence, run, view, transition.to, *limit, found);
                } else if stuck > *limit + LATE_AFTER {
                    // A consumer that looks at its deadlines once a second may see the task
                    // move on first, within that second; later, it had to have acted.
                    found.push(violation(
                        Invariant::DeadlinesHonoured,
                        run,
                        Some(&view.task_id),
                        evidence.since_start(transition.at + *limit),
                        format!(
                            "the task sat in `{}` for {} ms, more than a second past the {} ms deadline, and the consumer neither reported the deadline nor abandoned the task",
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

/// How long after a deadline expired, by the consumer's own knowledge of the state, it may
/// still act on it: a consumer that looks at its deadlines once a second honours them. (The
/// reference consumer acts on the millisecond: none of 21,000 swarm-faulted runs, seeds
/// 0..1000, and none of the default matrix's runs, 20 seeds, acted a millisecond late.)
const LATE_AFTER: Duration = Duration::from_secs(1);

/// A deadline the consumer acted on, but late: its `deadline` trace line came more than
/// [`LATE_AFTER`] after its limit had passed since it applied the state (its own knowledge,
/// not the runtime's, so a fault that hid the state does not count against it), or since
/// the runtime entered the state anew after that apply: a v0.1 task the peer starts afresh
/// under its id says `submitted` again, which a consumer may hold as a possible replay and
/// act on without applying, and nothing could know of that entry before it happened. Only
/// a simulated run traces the consumer; a `meshsim check` run is not judged on this.
fn late_deadline(
    evidence: &Evidence<'_>,
    run: &JobRun,
    view: &TaskView,
    state: TaskState,
    limit: Duration,
    found: &mut Vec<Violation>,
) {
    let entered: Vec<u64> = evidence
        .records(&run.host, &view.task_id)
        .iter()
        .flat_map(|record| &record.transitions)
        .filter(|transition| transition.to == state)
        .map(|transition| evidence.since_start(transition.at))
        .collect();
    for acted_at in evidence.deadlines_at(&run.job.name, &view.task_id, state) {
        let applied_at = view
            .applied
            .iter()
            .filter(|event| event.to == state)
            .filter_map(|event| evidence.applied_at(&run.job.name, &view.task_id, &event.at))
            .filter(|applied_at| *applied_at <= acted_at)
            .max();
        let Some(applied_at) = applied_at else {
            continue;
        };
        let entered_anew = entered
            .iter()
            .copied()
            .filter(|at| *at > applied_at && *at <= acted_at)
            .max();
        let learned_at = entered_anew.unwrap_or(applied_at);
        let due = learned_at + millis(limit);
        if acted_at > due + millis(LATE_AFTER) {
            let learned = match entered_anew {
                None => format!("the consumer applied `{state}` at {applied_at} ms and"),
                Some(at) => format!(
                    "the runtime entered `{state}` anew at {at} ms, after the consumer applied it at {applied_at} ms, and the consumer"
                ),
            };
            found.push(violation(
                Invariant::DeadlinesHonoured,
                run,
                Some(&view.task_id),
                acted_at,
                format!(
                    "{learned} acted on its {} ms deadline only at {acted_at} ms, {} ms late",
                    millis(limit),
                    acted_at - due
                ),
            ));
            return;
        }
    }
}
