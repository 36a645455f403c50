//! `one-outcome`: a job's accepted outcome is its task's real end, and no other job's.

use super::evidence::{Evidence, JobRun};
use super::verdict::{Violation, violation};
use crate::invariant::Invariant;
use meshsim_consumer::{JobReport, Outcome};
use meshsim_protocol::TaskState;

pub(super) fn one_outcome(
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
