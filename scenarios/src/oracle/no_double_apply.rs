//! `no-double-apply`: the consumer applies a state no more often than the runtime entered it
//! over the whole run. The violation names the first apply that broke it: the first past the
//! run's count, or an earlier one of a state the runtime entered again later that came (where
//! the trace dates it) before that entry, a replayed event.
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
        // When the runtime entered each state, in milliseconds since the start.
        let mut entered: BTreeMap<TaskState, Vec<u64>> = BTreeMap::new();
        for record in &records {
            for transition in &record.transitions {
                entered
                    .entry(transition.to)
                    .or_default()
                    .push(evidence.since_start(transition.at));
            }
        }
        let entries = |state: TaskState| entered.get(&state).map_or(&[][..], Vec::as_slice);
        // Each apply with how often the consumer had applied its state so far.
        let mut applied: BTreeMap<TaskState, usize> = BTreeMap::new();
        let counted: Vec<usize> = view
            .applied
            .iter()
            .map(|event| {
                let count = applied.entry(event.to).or_default();
                *count += 1;
                *count
            })
            .collect();
        // The first apply past how often the runtime entered the state over the whole run.
        let mut current = None;
        let Some(too_often) = view
            .applied
            .iter()
            .enumerate()
            .position(|(position, event)| {
                let real = entries(event.to).len();
                let named_elsewhere = real == 0
                    && (records.is_empty()
                        || !event.to.move_from(current).is_legal()
                        || position + 1 == view.applied.len());
                current = Some(event.to);
                counted[position] > real && !named_elsewhere
            })
        else {
            continue;
        };
        let applied_at = |position: usize| {
            evidence.applied_at(&run.job.name, &view.task_id, &view.applied[position].at)
        };
        // An earlier apply of a state the runtime entered again later may have come before
        // that entry (where the trace dates it): a replayed event, which the later entry
        // does not excuse; it is the act that broke the invariant. Only a task that broke it
        // is dated so, so that a run that holds reads nothing of its trace.
        let replayed = (0..too_often).find_map(|position| {
            let count = counted[position];
            if count < 2 {
                return None;
            }
            let at = applied_at(position)?;
            let then = entries(view.applied[position].to)
                .iter()
                .filter(|time| **time <= at)
                .count();
            (count > then).then_some((position, at, then))
        });
        let (position, at, entered_then) = match replayed {
            Some((position, at, then)) => (position, Some(at), Some(then)),
            None => (too_often, applied_at(too_often), None),
        };
        let event = &view.applied[position];
        let real = entries(event.to).len();
        let entered = match entered_then {
            None => format!("the runtime entered it {real} time(s)"),
            Some(then) => format!(
                "the runtime had entered it {then} time(s) when it was applied ({real} by the end)"
            ),
        };
        found.push(violation(
            Invariant::NoDoubleApply,
            run,
            Some(&view.task_id),
            // The act that broke it: the consumer applying the state once too often.
            at.unwrap_or_else(|| evidence.job_end_ms(&run.job.name)),
            format!(
                "applied `{}` {} times (event on connection {} at position {}) but {entered}",
                event.to, counted[position], event.at.connection, event.at.index
            ),
        ));
    }
}
