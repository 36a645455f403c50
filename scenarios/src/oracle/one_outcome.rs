//! `one-outcome`: a job's accepted outcome is its task's real end (a `completed` one with
//! the artifact the task holds), and no other job's, and the end the job asked for (a job
//! that says to cancel when the task asks for input ends `canceled`, not answered; a job
//! that does not say so does not end in a cancel); dated at the acceptance that broke it
//! (the job's `outcome` trace line).

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
    let artifact = match &report.outcome {
        Outcome::Completed { artifact, .. } => Some(artifact.as_str()),
        _ => None,
    };
    let expected = match &report.outcome {
        Outcome::Completed { task_id, .. } => Some((task_id, TaskState::Completed)),
        Outcome::Failed { task_id, .. } => Some((task_id, TaskState::Failed)),
        Outcome::Canceled { task_id } => Some((task_id, TaskState::Canceled)),
        Outcome::GaveUp { .. } => None,
    };
    let Some((task_id, state)) = expected else {
        return;
    };
    let others: Vec<&JobRun> = evidence
        .jobs
        .iter()
        .filter(|other| other.job.name != run.job.name && other.host == run.host)
        .filter(|other| {
            other
                .report
                .as_ref()
                .is_some_and(|report| report.outcome.task_id() == Some(task_id.as_str()))
        })
        .collect();
    let accepted_at = |job: &JobRun| evidence.job_end_ms(&job.job.name);
    let record = evidence
        .truths
        .get(&run.host)
        .and_then(|truth| truth.task(task_id));
    // The act that broke it: this job's acceptance, or, when another job had accepted the
    // same task before, the later of the two, the acceptance that made two outcomes. Dated
    // only once something is wrong: reading the trace back is the costly part of a verdict.
    let first_other = others.iter().map(|other| accepted_at(other)).min();
    let asked = record
        .as_ref()
        .is_some_and(|record| record.states().contains(&TaskState::InputRequired));
    let problem = if first_other.is_some() {
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
            Some(record) if artifact.is_some_and(|artifact| artifact != record.artifact_text) => {
                Some(format!(
                    "the job accepted the artifact {} but the runtime's task holds {}",
                    quoted(artifact.unwrap_or_default()),
                    quoted(&record.artifact_text)
                ))
            }
            Some(_) if run.job.cancel_at_input_required && asked && state != TaskState::Canceled => {
                Some(format!(
                    "the job says to cancel the task when it asks for input, but it accepted `{state}`: the question was answered"
                ))
            }
            Some(_) if !run.job.cancel_at_input_required && state == TaskState::Canceled => Some(
                "the job does not say to cancel, but it accepted `canceled`: a job whose task is canceled re-dispatches or gives up"
                    .to_string(),
            ),
            Some(_) => None,
        }
    };
    let problem = problem.map(|problem| {
        let own = accepted_at(run);
        (first_other.map_or(own, |first| own.max(first)), problem)
    });
    if let Some((at, problem)) = problem {
        found.push(violation(
            Invariant::OneOutcome,
            run,
            Some(task_id),
            at,
            problem,
        ));
    }
}

/// `text` in quotes as JSON writes it (so a line break or a quote reads plainly), cut to
/// its first 120 characters.
fn quoted(text: &str) -> String {
    const SHOWN: usize = 120;
    let shown: String = text.chars().take(SHOWN).collect();
    let cut = if shown.len() < text.len() { "..." } else { "" };
    format!("{}{cut}", serde_json::Value::String(shown))
}
