//! `meshsim decode` run as a binary: the same input-required status update in all three
//! dialects reads as `state: "input-required"`, and malformed input exits 2 naming the
//! dialect and the field.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn decode(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .arg("decode")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("meshsim runs");
    // A bad argument exits before stdin is read: the write may then find the pipe closed.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn decoded(args: &[&str], stdin: &str) -> Value {
    let output = decode(args, stdin);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("prints JSON")
}

const V1_0: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t-1","contextId":"c-1",
    "status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"q","role":"ROLE_AGENT","parts":[{"text":"Which city?"}]}}}}}"#;
const V0_3: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t-1","contextId":"c-1",
    "status":{"state":"input-required"},"final":true}}"#;
const V0_1: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"id":"t-1","status":{"state":"input-required",
    "message":{"role":"agent","parts":[{"type":"text","text":"Which city?"}]}},"final":true}}"#;

#[test]
fn the_input_required_update_reads_alike_in_every_dialect() {
    for (dialect, document) in [("v1.0", V1_0), ("v0.3", V0_3), ("v0.1", V0_1)] {
        for args in [vec![], vec!["--dialect", dialect]] {
            let report = decoded(&args, document);
            assert_eq!(report["dialect"], dialect, "{args:?}");
            assert_eq!(report["kind"], "event");
            assert_eq!(report["event"], "status-update");
            assert_eq!(report["state"], "input-required");
            assert_eq!(report["task_id"], "t-1");
            assert_eq!(report["detected_from"].is_string(), args.is_empty());
        }
    }
}

#[test]
fn an_sse_line_decodes_like_its_payload() {
    let report = decoded(&[], &format!("data: {}\n\n", V1_0.replace('\n', "")));
    assert_eq!(report["state"], "input-required");
}

#[test]
fn cards_requests_and_errors_say_what_they_are() {
    let card = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/protocol/tests/vectors/v0.3/card.json"
    );
    let report = decoded(&[card], "");
    assert_eq!(
        (report["kind"].as_str(), report["dialect"].as_str()),
        (Some("card"), Some("v0.3"))
    );

    let request = r#"{"jsonrpc":"2.0","id":"r","method":"tasks/sendSubscribe","params":{"id":"t-1","message":{"role":"user","parts":[{"type":"text","text":"hi"}]}}}"#;
    let report = decoded(&[], request);
    assert_eq!(
        (report["kind"].as_str(), report["dialect"].as_str()),
        (Some("request"), Some("v0.1"))
    );
    assert_eq!(report["method"], "SendStreamingMessage");

    let error = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Task not found","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}"#;
    let report = decoded(&[], error);
    assert_eq!(report["kind"], "error");
    assert_eq!(report["code"], -32001);
    assert_eq!(report["dialect"], "v1.0");

    let task = r#"{"jsonrpc":"2.0","id":2,"result":{"id":"t","status":{"state":"TASK_STATE_AUTH_REQUIRED"}}}"#;
    let report = decoded(&[], task);
    assert_eq!(
        (report["kind"].as_str(), report["state"].as_str()),
        (Some("result"), Some("auth-required"))
    );
}

#[test]
fn malformed_documents_exit_2_naming_dialect_and_field() {
    let missing_status = r#"{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t-1"}}}"#;
    let output = decode(&[], missing_status);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("v1.0") && stderr.contains("result.statusUpdate.status"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());

    let output = decode(&["--dialect", "v0.1"], V0_3);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("v0.1") && stderr.contains("result.id"),
        "{stderr}"
    );

    for garbage in ["{\"jsonrpc\": ", "[1, 2]", ""] {
        let output = decode(&[], garbage);
        assert_eq!(output.status.code(), Some(2), "{garbage}");
        assert!(!output.stderr.is_empty());
    }
    assert_eq!(decode(&["--dialect", "v2.0"], V1_0).status.code(), Some(2));
}

/// Both @a2a-js/sdk payloads with `UNRECOGNIZED` (protocol/tests/vectors/v1.0/js-*) decode,
/// and stderr and the report's `warnings` name the unknown value and where it was.
#[test]
fn unrecognized_js_payloads_decode_with_a_warning_naming_the_value() {
    let vectors = concat!(env!("CARGO_MANIFEST_DIR"), "/protocol/tests/vectors/v1.0");
    for (file, path, what, state) in [
        (
            "js-unrecognized-role.GetTask.result.json",
            "result.history[0].role",
            "role",
            "completed",
        ),
        (
            "js-unrecognized-state.stream-status-update.event.json",
            "result.statusUpdate.status.state",
            "task state",
            "unknown",
        ),
    ] {
        let output = decode(&[&format!("{vectors}/{file}")], "");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{file}: {stderr}");
        let warning = format!(
            "warning: {path}: \"UNRECOGNIZED\" is not a {what} the spec defines; kept as unknown"
        );
        assert!(stderr.contains(&warning), "{file}: {stderr}");
        let report: Value = serde_json::from_slice(&output.stdout).expect("prints JSON");
        assert_eq!(report["dialect"], "v1.0", "{file}");
        assert_eq!(report["state"], state, "{file}");
        assert_eq!(
            report["warnings"].as_array().map(Vec::len),
            Some(1),
            "{file}"
        );
    }
}

/// A part of a kind no dialect defines decodes, kept as sent, and the warning names the kind.
#[test]
fn an_unknown_part_kind_decodes_with_a_warning_naming_it() {
    let document = r#"{"jsonrpc": "2.0", "id": 1, "result": {"kind": "task", "id": "t", "contextId": "c",
        "status": {"state": "completed"},
        "artifacts": [{"artifactId": "a", "parts": [{"kind": "video", "video": {"uri": "v.mp4"}}]}]}}"#;
    let output = decode(&["--dialect", "v0.3", "-"], document);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "warning: result.artifacts[0].parts[0]: \"video\" is not a part kind the spec defines; kept as unknown"
        ),
        "{stderr}"
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("prints JSON");
    let part = &report["model"]["outcome"]["Ok"]["task"]["artifacts"][0]["parts"][0];
    assert_eq!(part["content"]["unknown"]["kind"], "video", "{report}");
}
