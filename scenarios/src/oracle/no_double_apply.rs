//! `no-double-apply`: the consumer applies a state no more often than the runtime entered it.

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
