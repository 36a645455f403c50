//! The contract between `meshsim check` and a consumer program, in any language (the
//! human-readable version is `docs/check.md`, the report's JSON Schema
//! `schemas/check-report.schema.json`).
//!
//! meshsim starts the program with the job in environment variables ([`Order`]); the
//! program does the job against the agent at `MESHSIM_AGENT_URL` with whatever client it
//! likes and writes its report to `MESHSIM_REPORT`: one JSON object per line ([`Line`]), one
//! per state it applied, task it learned of, deadline it enforced or task it abandoned, and
//! last its one outcome. [`parse_report`] turns those lines into the [`JobReport`] the oracle
//! reads, or names the line and field that break the contract; [`report_lines`] writes a
//! [`JobReport`] in the same form (what `meshsim consume` does for the built-in consumers).

use meshsim_consumer::ledger::{EventKind, EventRef};
use meshsim_consumer::{
    Abandonment, AppliedEvent, CancelResult, DeadlineHit, Deadlines, Job, JobReport, Outcome,
    TaskView,
};
use meshsim_protocol::{Dialect, TaskState};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// The agent's base URL: its Agent Card is found from there.
pub const AGENT_URL: &str = "MESHSIM_AGENT_URL";
/// The dialect the agent speaks (`v0.1`, `v0.3` or `v1.0`), for programs that need to know.
pub const DIALECT: &str = "MESHSIM_DIALECT";
/// The job's name, unique within a run.
pub const JOB: &str = "MESHSIM_JOB";
/// The text of the message that starts the task.
pub const REQUEST: &str = "MESHSIM_REQUEST";
/// The text to answer with when the task asks for input.
pub const ANSWER: &str = "MESHSIM_ANSWER";
/// `1`: cancel the task when it asks for input instead of answering; `0` otherwise.
pub const CANCEL_AT_INPUT_REQUIRED: &str = "MESHSIM_CANCEL_AT_INPUT_REQUIRED";
/// Longest time a task may sit in `submitted` before the program acts, in ms.
pub const SUBMITTED_DEADLINE_MS: &str = "MESHSIM_SUBMITTED_DEADLINE_MS";
/// Longest time a task may sit in `working` (one turn) before the program acts, in ms.
pub const WORKING_DEADLINE_MS: &str = "MESHSIM_WORKING_DEADLINE_MS";
/// Longest time for the whole job, in ms; past it the program gives up.
pub const JOB_DEADLINE_MS: &str = "MESHSIM_JOB_DEADLINE_MS";
/// A seed the program may use for its own ids and choices.
pub const SEED: &str = "MESHSIM_SEED";
/// Where the program writes its report (JSON lines).
pub const REPORT: &str = "MESHSIM_REPORT";

/// Every variable of the contract, in the order `docs/check.md` lists them.
pub const VARIABLES: [&str; 11] = [
    AGENT_URL,
    DIALECT,
    JOB,
    REQUEST,
    ANSWER,
    CANCEL_AT_INPUT_REQUIRED,
    SUBMITTED_DEADLINE_MS,
    WORKING_DEADLINE_MS,
    JOB_DEADLINE_MS,
    SEED,
    REPORT,
];

/// One job handed to a consumer program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    /// The job; its `peer` is the agent's base URL.
    pub job: Job,
    pub dialect: Dialect,
    pub seed: u64,
    pub report: PathBuf,
}

impl Order {
    /// The environment variables that hand this order to a program.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let millis = |duration: Duration| duration.as_millis().to_string();
        let deadlines = &self.job.deadlines;
        vec![
            (AGENT_URL, self.job.peer.clone()),
            (DIALECT, self.dialect.to_string()),
            (JOB, self.job.name.clone()),
            (REQUEST, self.job.request.clone()),
            (ANSWER, self.job.answer.clone()),
            (
                CANCEL_AT_INPUT_REQUIRED,
                u8::from(self.job.cancel_at_input_required).to_string(),
            ),
            (SUBMITTED_DEADLINE_MS, millis(deadlines.submitted)),
            (WORKING_DEADLINE_MS, millis(deadlines.working)),
            (JOB_DEADLINE_MS, millis(deadlines.job)),
            (SEED, self.seed.to_string()),
            (REPORT, self.report.display().to_string()),
        ]
    }

    /// The order a program was started with, read through `lookup` (the process
    /// environment, in a program); one line naming the variable when one is missing or bad.
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Order, String> {
        let get = |name: &str| {
            lookup(name).ok_or_else(|| {
                format!("{name} is not set: run this under `meshsim check` (see docs/check.md)")
            })
        };
        let number = |name: &str| -> Result<u64, String> {
            let text = get(name)?;
            text.parse()
                .map_err(|_| format!("{name}={text:?} is not a whole number"))
        };
        let millis = |name: &str| number(name).map(Duration::from_millis);
        let dialect: Dialect = get(DIALECT)?
            .parse()
            .map_err(|error| format!("{DIALECT}: {error}"))?;
        let cancel = match get(CANCEL_AT_INPUT_REQUIRED)?.as_str() {
            "1" => true,
            "0" => false,
            other => {
                return Err(format!(
                    "{CANCEL_AT_INPUT_REQUIRED}={other:?} is not 0 or 1"
                ));
            }
        };
        Ok(Order {
            job: Job {
                name: get(JOB)?,
                peer: get(AGENT_URL)?,
                request: get(REQUEST)?,
                answer: get(ANSWER)?,
                deadlines: Deadlines {
                    submitted: millis(SUBMITTED_DEADLINE_MS)?,
                    working: millis(WORKING_DEADLINE_MS)?,
                    job: millis(JOB_DEADLINE_MS)?,
                },
                cancel_at_input_required: cancel,
            },
            dialect,
            seed: number(SEED)?,
            report: PathBuf::from(get(REPORT)?),
        })
    }
}

/// Which message carried an applied state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Via {
    /// A whole Task as an event on a stream.
    Snapshot,
    /// A status-update event on a stream.
    StatusUpdate,
    /// A Task returned as the answer of a send, a get (a poll) or a cancel.
    Result,
}

impl From<Via> for EventKind {
    fn from(via: Via) -> Self {
        match via {
            Via::Snapshot => EventKind::Snapshot,
            Via::StatusUpdate => EventKind::StatusUpdate,
            Via::Result => EventKind::Result,
        }
    }
}

impl From<EventKind> for Via {
    fn from(kind: EventKind) -> Self {
        match kind {
            EventKind::Snapshot => Via::Snapshot,
            EventKind::StatusUpdate => Via::StatusUpdate,
            EventKind::Result => Via::Result,
            // Only a Rust consumer's `Report` makes these, and it never becomes a program's
            // report; a state reported without its carrier is closest to an answer's task.
            EventKind::Reported => Via::Result,
        }
    }
}

/// Where an applied state came from: the program numbers its connections (requests) from
/// 1 within the job, and each event by its position (from 0) on its connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub connection: u32,
    pub index: u32,
    pub via: Via,
}

/// What a program that gave up on a task got when it tried to cancel it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "result", deny_unknown_fields)]
pub enum Cancel {
    /// It did not try.
    NotAttempted,
    /// The agent answered with the task in `state`.
    Answered { state: TaskState },
    /// The agent no longer knows the task.
    TaskGone,
    /// The agent refused: -32002 TaskNotCancelable.
    NotCancelable,
    /// Any other failure.
    Failed { error: String },
}

/// How a job ended, as the outcome line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    /// The task completed; `task` and `artifact` (its text) are required.
    Completed,
    /// The task failed or was rejected; `task` is required, `reason` optional.
    Failed,
    /// The task was canceled; `task` is required.
    Canceled,
    /// The program gave up without an accepted task; `reason` is required.
    GaveUp,
}

impl Ending {
    /// The name on the outcome line.
    pub fn name(self) -> &'static str {
        match self {
            Ending::Completed => "completed",
            Ending::Failed => "failed",
            Ending::Canceled => "canceled",
            Ending::GaveUp => "gave-up",
        }
    }
}

/// The job's one outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutcomeLine {
    pub outcome: Ending,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A task the program learned of (before applying any state to it, e.g. from an answer
/// that named it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskLine {
    pub task: String,
}

/// A state the program applied to its view of `task`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppliedLine {
    pub task: String,
    pub state: TaskState,
    pub source: Source,
}

/// A local deadline that expired: the task sat in `state` longer than `limit_ms`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeadlineLine {
    pub task: String,
    pub state: TaskState,
    pub limit_ms: u64,
}

/// A task the program stopped following before it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AbandonedLine {
    pub task: String,
    pub reason: String,
    pub cancel: Cancel,
}

/// One line of a report, told apart by its `kind` field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Line {
    Task(TaskLine),
    Applied(AppliedLine),
    Deadline(DeadlineLine),
    Abandoned(AbandonedLine),
    /// The last line.
    Outcome(OutcomeLine),
}

/// The values of `kind`.
pub const KINDS: [&str; 5] = ["task", "applied", "deadline", "abandoned", "outcome"];

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

#[cfg(test)]
mod tests {
    use super::*;

    fn job() -> Job {
        Job {
            name: "incident".into(),
            peer: "http://127.0.0.1:1".into(),
            request: "Summarise the report".into(),
            answer: "as plain text, please".into(),
            deadlines: Deadlines::default(),
            cancel_at_input_required: false,
        }
    }

    const GOOD: &str = r#"{"kind":"applied","task":"t1","state":"submitted","source":{"connection":1,"index":0,"via":"snapshot"}}
{"kind":"applied","task":"t1","state":"input-required","source":{"connection":1,"index":2,"via":"status-update"}}
{"kind":"deadline","task":"t1","state":"working","limit_ms":20000}
{"kind":"abandoned","task":"t1","reason":"deadline","cancel":{"result":"answered","state":"canceled"}}
{"kind":"outcome","outcome":"gave-up","reason":"deadline passed"}
"#;

    #[test]
    fn a_report_reads_back_as_the_lines_it_was_written_from() {
        let report = parse_report(GOOD, &job(), "mine").unwrap();
        assert_eq!(report.tasks.len(), 1);
        assert_eq!(report.tasks[0].applied.len(), 2);
        assert_eq!(report.tasks[0].final_state, Some(TaskState::InputRequired));
        assert_eq!(report.deadlines[0].limit_ms, 20_000);
        let text: String = report_lines(&report)
            .iter()
            .map(|line| serde_json::to_string(line).unwrap() + "\n")
            .collect();
        assert_eq!(parse_report(&text, &job(), "mine").unwrap(), report);
    }

    fn problem(text: &str) -> ReportInvalid {
        parse_report(text, &job(), "mine").unwrap_err()
    }

    #[test]
    fn a_bad_line_is_named_with_its_field() {
        let bad_state = problem(
            r#"{"kind":"applied","task":"t","state":"wroking","source":{"connection":1,"index":0,"via":"snapshot"}}"#,
        );
        assert_eq!(
            (bad_state.line, bad_state.field.as_deref()),
            (Some(1), Some("state"))
        );
        let bad_via = problem(
            "\n{\"kind\":\"applied\",\"task\":\"t\",\"state\":\"working\",\"source\":{\"connection\":1,\"index\":0,\"via\":\"carrier pigeon\"}}",
        );
        assert_eq!(
            (bad_via.line, bad_via.field.as_deref()),
            (Some(2), Some("source.via"))
        );
        let no_kind = problem(r#"{"task":"t"}"#);
        assert_eq!(no_kind.field.as_deref(), Some("kind"));
        let extra = problem(r#"{"kind":"task","task":"t","colour":"red"}"#);
        assert!(extra.problem.contains("colour"), "{extra}");
        let no_artifact = problem(r#"{"kind":"outcome","outcome":"completed","task":"t"}"#);
        assert_eq!(no_artifact.field.as_deref(), Some("artifact"));
        let garbage = problem("Traceback (most recent call last):");
        assert_eq!(garbage.line, Some(1));
    }

    #[test]
    fn a_report_without_its_outcome_or_with_lines_after_it_is_invalid() {
        let cut_short = problem(GOOD.lines().next().unwrap());
        assert_eq!(cut_short.line, None);
        assert!(cut_short.problem.contains("no outcome"), "{cut_short}");
        let after = problem(&format!("{GOOD}{{\"kind\":\"task\",\"task\":\"t2\"}}\n"));
        assert_eq!(after.line, Some(6));
    }

    #[test]
    fn an_order_survives_the_environment() {
        let order = Order {
            job: job(),
            dialect: Dialect::V0_3,
            seed: 42,
            report: PathBuf::from("/tmp/report.jsonl"),
        };
        let env: std::collections::BTreeMap<&str, String> = order.env().into_iter().collect();
        assert_eq!(env.len(), VARIABLES.len());
        let read = Order::from_env(|name| env.get(name).cloned()).unwrap();
        assert_eq!(read, order);
        let missing = Order::from_env(|_| None).unwrap_err();
        assert!(missing.contains("MESHSIM_"), "{missing}");
    }
}
