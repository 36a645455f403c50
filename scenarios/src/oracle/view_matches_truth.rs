//! `view-matches-truth`: the state the consumer ends up believing is the runtime's, for a task
//! the runtime still has under that id.

use super::evidence::{Evidence, JobRun};
use super::verdict::{Violation, violation};
use crate::invariant::Invariant;
use meshsim_consumer::JobReport;
use meshsim_runtimes::{Fate, GroundTruth, TaskTruth};

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
