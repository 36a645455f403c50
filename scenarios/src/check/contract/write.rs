//! Writing a [`JobReport`] as the contract's lines, as a program would: what `meshsim
//! consume` does for the built-in consumers.

use super::line::{
    AbandonedLine, AppliedLine, Cancel, DeadlineLine, Ending, Line, OutcomeLine, Source, TaskLine,
};
use meshsim_consumer::{CancelResult, JobReport, Outcome};

/// `report` as the contract's lines: per task the task, its applied states, its deadlines
/// and its abandonment, then the outcome.
pub fn report_lines(report: &JobReport) -> Vec<Line> {
    let mut lines = Vec::new();
    for task in &report.tasks {
        let id = || task.task_id.clone();
        lines.push(Line::Task(TaskLine { task: id() }));
        for applied in &task.applied {
            lines.push(Line::Applied(AppliedLine {
                task: id(),
                state: applied.to,
                source: Source {
                    connection: applied.at.connection,
                    index: applied.at.index,
                    via: applied.at.kind.into(),
                },
            }));
        }
        for hit in report
            .deadlines
            .iter()
            .filter(|hit| hit.task_id == task.task_id)
        {
            lines.push(Line::Deadline(DeadlineLine {
                task: id(),
                state: hit.state,
                limit_ms: hit.limit_ms,
            }));
        }
        if let Some(abandoned) = &task.abandoned {
            lines.push(Line::Abandoned(AbandonedLine {
                task: id(),
                reason: abandoned.reason.clone(),
                cancel: match &abandoned.cancel {
                    CancelResult::NotAttempted => Cancel::NotAttempted,
                    CancelResult::Answered(state) => Cancel::Answered { state: *state },
                    CancelResult::TaskGone => Cancel::TaskGone,
                    CancelResult::NotCancelable => Cancel::NotCancelable,
                    CancelResult::Failed(error) => Cancel::Failed {
                        error: error.clone(),
                    },
                },
            }));
        }
    }
    let (outcome, task, artifact, reason) = match &report.outcome {
        Outcome::Completed { task_id, artifact } => {
            (Ending::Completed, Some(task_id), Some(artifact), None)
        }
        Outcome::Failed { task_id, reason } => (Ending::Failed, Some(task_id), None, Some(reason)),
        Outcome::Canceled { task_id } => (Ending::Canceled, Some(task_id), None, None),
        Outcome::GaveUp { reason } => (Ending::GaveUp, None, None, Some(reason)),
    };
    lines.push(Line::Outcome(OutcomeLine {
        outcome,
        task: task.cloned(),
        artifact: artifact.cloned(),
        reason: reason.cloned(),
    }));
    lines
}
