//! `view-matches-truth`: the state the consumer ends up believing is the runtime's, for a task
//! the runtime still has under that id.
//!
//! Dated when the view went wrong for good: at the consumer's final belief (its `applied`
//! trace line) when the belief was already wrong as it formed it, or at the runtime's move
//! away from it (a transition, a reap, a crash, the id reused) when it came after.

use super::evidence::{Evidence, JobRun};
use super::verdict::{Violation, violation};
use crate::invariant::Invariant;
use meshsim_consumer::{JobReport, TaskView};
use meshsim_protocol::TaskState;
use meshsim_runtimes::{Fate, GroundTruth, TaskTruth};
use std::time::Duration;

pub(super) fn view_matches_truth(
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
        // What is wrong, and since when the runtime's truth has differed from the belief
        // (`None`: as long as the task has been there, or it never was).
        let problem = match &record {
            None => Some((None, "the runtime never had this task".to_string())),
            Some(record) => match &record.fate {
                Some(Fate::Reaped { at, reason }) => Some((
                    gone_since(evidence, record, believed, *at),
                    format!("the runtime reaped it ({reason})"),
                )),
                Some(Fate::Lost { at }) => Some((
                    gone_since(evidence, record, believed, *at),
                    "the runtime lost it in a crash".to_string(),
                )),
                None if record.state != believed => Some((
                    left_belief(evidence, record, believed),
                    format!("the runtime has it `{}`", record.state),
                )),
                None if records_reused(evidence, &run.host, &view.task_id) => Some((
                    Some(evidence.since_start(record.created_at)),
                    "the id now names a different task the runtime started afresh".to_string(),
                )),
                None => None,
            },
        };
        if let Some((truth_left, why)) = problem {
            let at = match (belief_at(evidence, run, view), truth_left) {
                (Some(believed_at), Some(left)) => believed_at.max(left),
                (Some(believed_at), None) => believed_at,
                (None, Some(left)) => left,
                (None, None) => evidence.job_end_ms(&run.job.name),
            };
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

/// When the consumer formed its final belief: its `applied` line for the last event that
/// put the view in the believed state; `None` when it traced none.
fn belief_at(evidence: &Evidence<'_>, run: &JobRun, view: &TaskView) -> Option<u64> {
    let event = view
        .applied
        .iter()
        .rev()
        .find(|event| Some(event.to) == view.final_state)?;
    evidence.applied_at(&run.job.name, &view.task_id, &event.at)
}

/// Since when a task that left the store at `gone` has differed from `believed`: from then,
/// if it was in that state to the last, else from when its state left it.
fn gone_since(
    evidence: &Evidence<'_>,
    record: &TaskTruth,
    believed: TaskState,
    gone: Duration,
) -> Option<u64> {
    if record.state == believed {
        Some(evidence.since_start(gone))
    } else {
        left_belief(evidence, record, believed)
    }
}

/// The runtime's transition out of `believed` after which the task never entered it again;
/// `None` when the task was never in it.
fn left_belief(evidence: &Evidence<'_>, record: &TaskTruth, believed: TaskState) -> Option<u64> {
    let last_in = record
        .transitions
        .iter()
        .rposition(|transition| transition.to == believed)?;
    record
        .transitions
        .get(last_in + 1)
        .map(|transition| evidence.since_start(transition.at))
}

/// Whether the runtime created more than one task under this id (v0.1 clients choose ids,
/// so a follow-up to a reaped task silently starts a new one under the old id).
fn records_reused(evidence: &Evidence<'_>, host: &str, task: &str) -> bool {
    evidence.records(host, task).len() > 1
}
