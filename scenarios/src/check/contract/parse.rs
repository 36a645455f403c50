//! Reading a program's report into the [`JobReport`] the oracle judges, or naming the line
//! and field that break the contract ([`ReportInvalid`]).

use super::line::{
    AbandonedLine, AppliedLine, Cancel, DeadlineLine, Ending, KINDS, Line, OutcomeLine, TaskLine,
};
use meshsim_consumer::{
    Abandonment, AppliedEvent, CancelResult, DeadlineHit, Job, JobReport, Outcome, TaskView,
    ledger::EventRef,
};
use serde::Serialize;

/// Why a report breaks the contract, naming the line (from 1) and the field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReportInvalid {
    /// The line, when one line is at fault.
    pub line: Option<usize>,
    /// The field (a JSON path such as `source.via`), when one field is at fault.
    pub field: Option<String>,
    pub problem: String,
}

impl std::fmt::Display for ReportInvalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        f.write_str(&self.problem)
    }
}

fn invalid(line: Option<usize>, field: Option<&str>, problem: impl Into<String>) -> ReportInvalid {
    ReportInvalid {
        line,
        field: field.map(str::to_string),
        problem: problem.into(),
    }
}

/// Reads a report written by the program of `job` under the name `consumer`: every line
/// must parse, the outcome must be the last line and come exactly once.
pub fn parse_report(text: &str, job: &Job, consumer: &str) -> Result<JobReport, ReportInvalid> {
    let mut tasks: Vec<TaskView> = Vec::new();
    let mut deadlines = Vec::new();
    let mut outcome = None;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        if raw.trim().is_empty() {
            continue;
        }
        if outcome.is_some() {
            return Err(invalid(
                Some(number),
                None,
                "a line after the outcome (the outcome must be the last line)",
            ));
        }
        let line = parse_line(raw)
            .map_err(|(field, problem)| invalid(Some(number), field.as_deref(), problem))?;
        match line {
            Line::Task(TaskLine { task }) => {
                view(&mut tasks, &task);
            }
            Line::Applied(AppliedLine {
                task,
                state,
                source,
            }) => {
                let view = view(&mut tasks, &task);
                let from = view.applied.last().map(|applied| applied.to);
                view.applied.push(AppliedEvent {
                    from,
                    to: state,
                    at: EventRef {
                        connection: source.connection,
                        index: source.index,
                        kind: source.via.into(),
                    },
                    timestamp: None,
                });
            }
            Line::Deadline(DeadlineLine {
                task,
                state,
                limit_ms,
            }) => {
                view(&mut tasks, &task);
                deadlines.push(DeadlineHit {
                    task_id: task,
                    state,
                    limit_ms,
                });
            }
            Line::Abandoned(AbandonedLine {
                task,
                reason,
                cancel,
            }) => {
                view(&mut tasks, &task).abandoned = Some(Abandonment {
                    reason,
                    cancel: match cancel {
                        Cancel::NotAttempted => CancelResult::NotAttempted,
                        Cancel::Answered { state } => CancelResult::Answered(state),
                        Cancel::TaskGone => CancelResult::TaskGone,
                        Cancel::NotCancelable => CancelResult::NotCancelable,
                        Cancel::Failed { error } => CancelResult::Failed(error),
                    },
                });
            }
            Line::Outcome(line) => {
                outcome = Some(
                    accepted(line)
                        .map_err(|(field, problem)| invalid(Some(number), Some(field), problem))?,
                )
            }
        }
    }
    let outcome = outcome.ok_or_else(|| {
        invalid(
            None,
            None,
            "no outcome line (the report is missing or was cut short)",
        )
    })?;
    for task in &mut tasks {
        task.final_state = task.applied.last().map(|applied| applied.to);
    }
    Ok(JobReport {
        job: job.name.clone(),
        consumer: consumer.to_string(),
        peer: job.peer.clone(),
        tasks,
        outcome,
        deadlines,
        anomalies: Vec::new(),
        profile: None,
    })
}

/// One line parsed, or the field at fault (when one is) and the problem.
fn parse_line(raw: &str) -> Result<Line, (Option<String>, String)> {
    let value: serde_json::Value =
        serde_json::from_str(raw).map_err(|error| (None, format!("not a JSON value: {error}")))?;
    let serde_json::Value::Object(mut fields) = value else {
        return Err((None, "not a JSON object".to_string()));
    };
    let kind = match fields.remove("kind") {
        Some(serde_json::Value::String(kind)) => kind,
        Some(other) => return Err((Some("kind".into()), format!("{other} is not a string"))),
        None => return Err((Some("kind".into()), "missing".to_string())),
    };
    let rest = serde_json::Value::Object(fields);
    match kind.as_str() {
        "task" => typed(rest).map(Line::Task),
        "applied" => typed(rest).map(Line::Applied),
        "deadline" => typed(rest).map(Line::Deadline),
        "abandoned" => typed(rest).map(Line::Abandoned),
        "outcome" => typed(rest).map(Line::Outcome),
        other => Err((
            Some("kind".into()),
            format!(
                "unknown kind `{other}` (expected one of: {})",
                KINDS.join(", ")
            ),
        )),
    }
}

/// The fields of one kind of line, or the field at fault and the problem.
fn typed<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
) -> Result<T, (Option<String>, String)> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let field = (path != ".").then_some(path);
        (field, error.into_inner().to_string())
    })
}

/// The outcome an outcome line stands for, or the field it lacks.
fn accepted(line: OutcomeLine) -> Result<Outcome, (&'static str, String)> {
    let required = |field: &'static str, value: Option<String>| {
        value.ok_or((
            field,
            format!("required when the outcome is `{}`", line.outcome.name()),
        ))
    };
    Ok(match line.outcome {
        Ending::Completed => Outcome::Completed {
            task_id: required("task", line.task.clone())?,
            artifact: required("artifact", line.artifact.clone())?,
        },
        Ending::Failed => Outcome::Failed {
            task_id: required("task", line.task.clone())?,
            reason: line.reason.clone().unwrap_or_else(|| "failed".to_string()),
        },
        Ending::Canceled => Outcome::Canceled {
            task_id: required("task", line.task.clone())?,
        },
        Ending::GaveUp => Outcome::GaveUp {
            reason: required("reason", line.reason.clone())?,
        },
    })
}

fn view<'a>(tasks: &'a mut Vec<TaskView>, task_id: &str) -> &'a mut TaskView {
    let index = match tasks.iter().position(|task| task.task_id == task_id) {
        Some(index) => index,
        None => {
            tasks.push(TaskView {
                task_id: task_id.to_string(),
                applied: Vec::new(),
                final_state: None,
                abandoned: None,
            });
            tasks.len() - 1
        }
    };
    &mut tasks[index]
}
