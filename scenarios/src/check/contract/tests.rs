//! The contract's unit tests: reading and writing reports, and orders through the environment.

use super::order::{Order, VARIABLES};
use super::parse::{ReportInvalid, parse_report};
use super::write::report_lines;
use meshsim_consumer::{Deadlines, Job};
use meshsim_protocol::{Dialect, TaskState};
use std::path::PathBuf;

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

/// The schema programs are told to validate their reports against.
const SCHEMA: &str = include_str!("../../../../schemas/check-report.schema.json");

#[test]
fn every_line_meshsim_consume_writes_is_valid_against_the_published_schema() {
    let schema: serde_json::Value = serde_json::from_str(SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let abandoned = |task: &str, cancel: &str| {
        format!(r#"{{"kind":"abandoned","task":"{task}","reason":"deadline","cancel":{cancel}}}"#)
    };
    let cancels = [
        r#"{"result":"not-attempted"}"#,
        r#"{"result":"answered","state":"canceled"}"#,
        r#"{"result":"task-gone"}"#,
        r#"{"result":"not-cancelable"}"#,
        r#"{"result":"failed","error":"connection reset"}"#,
    ];
    let outcomes = [
        r#"{"kind":"outcome","outcome":"completed","task":"t0","artifact":"done"}"#,
        r#"{"kind":"outcome","outcome":"failed","task":"t0","reason":"the agent failed it"}"#,
        r#"{"kind":"outcome","outcome":"canceled","task":"t0"}"#,
        r#"{"kind":"outcome","outcome":"gave-up","reason":"deadline passed"}"#,
    ];
    let mut written = 0;
    for outcome in outcomes {
        let mut text: String = GOOD
            .lines()
            .take(3)
            .map(|line| format!("{line}\n"))
            .collect();
        for (index, cancel) in cancels.iter().enumerate() {
            text += &abandoned(&format!("t{index}"), cancel);
            text.push('\n');
        }
        text += outcome;
        let report = parse_report(&text, &job(), "mine").unwrap();
        for line in report_lines(&report) {
            let line = serde_json::to_value(&line).unwrap();
            let problems: Vec<String> = validator
                .iter_errors(&line)
                .map(|error| error.to_string())
                .collect();
            assert!(problems.is_empty(), "{line}: {problems:?}");
            written += 1;
        }
    }
    // Per outcome: 5 tasks, one with 2 states applied and a deadline, then the outcome.
    assert_eq!(written, 4 * (5 + 5 + 2 + 1 + 1));
}
