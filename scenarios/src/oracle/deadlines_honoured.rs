//! `deadlines-honoured`: a task stuck in `submitted` or `working` past the job's deadline got
//! the consumer's attention.

use super::evidence::{Evidence, JobRun, millis};
use super::verdict::{Violation, violation};
use crate::invariant::Invariant;
use meshsim_consumer::JobReport;
use meshsim_protocol::TaskState;
use meshsim_runtimes::Fate;

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
                if !acted {
                    found.push(violation(
                        Invariant::DeadlinesHonoured,
                        run,
                        Some(&view.task_id),
                        evidence.since_start(transition.at + *limit),
                        format!(
                            "the task sat in `{}` for {} ms, past the {} ms deadline, and the consumer neither reported the deadline nor abandoned the task",
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
