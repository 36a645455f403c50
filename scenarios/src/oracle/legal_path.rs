//! `legal-path`: every state the consumer applies is a legal move from the one before.

use super::evidence::{Evidence, JobRun};
use super::verdict::{Violation, violation};
use crate::invariant::Invariant;
use meshsim_consumer::JobReport;
use meshsim_protocol::TaskState;

pub(super) fn legal_path(
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
                    .unwrap_or_else(|| evidence.job_end_ms(&run.job.name));
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
