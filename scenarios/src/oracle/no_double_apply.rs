//! `no-double-apply`: the consumer applies a state no more often than the runtime entered it.
//! A state the runtime's task never entered is applied too often once applied at all, where
//! no other invariant names it: a made-up state reached by a legal step and left again (an
//! illegal step is `legal-path`'s, a made-up final state `view-matches-truth`'s). A task the
//! runtime has no record of is left to the other invariants.

use super::evidence::{Evidence, JobRun};
use super::verdict::{Violation, violation};
use crate::invariant::Invariant;
use meshsim_consumer::JobReport;
use meshsim_protocol::TaskState;
use meshsim_runtimes::GroundTruth;
use std::collections::BTreeMap;

pub(super) fn no_double_apply(
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
        let mut current = None;
        for (position, event) in view.applied.iter().enumerate() {
            let count = applied.entry(event.to).or_default();
            *count += 1;
            let real = entered.get(&event.to).copied().unwrap_or(0);
            let named_elsewhere = real == 0
                && (records.is_empty()
                    || !event.to.move_from(current).is_legal()
                    || position + 1 == view.applied.len());
            current = Some(event.to);
            if *count > real && !named_elsewhere {
                // The act that broke it: the consumer applying the state once too often.
                let at = evidence
                    .applied_at(&run.job.name, &view.task_id, &event.at)
                    .unwrap_or_else(|| evidence.job_end_ms(&run.job.name));
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
