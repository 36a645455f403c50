//! `meshsim probe` as a user runs it, against `meshsim serve` for each of the origin incident's three
//! runtimes: the JSON report carries the profile each really has, and the text report names
//! the Card claims it contradicts. The personality `--personality-out` writes, served in
//! turn, measures the same report.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The served process; killed when dropped so a failing test leaves nothing behind.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `meshsim serve` and returns it with the URL it prints.
fn serve(runtime: &str, dialect: &str) -> (Served, String) {
    serve_with(&["--runtime", runtime, "--dialect", dialect])
}

/// Starts `meshsim serve ARGS` and returns it with the URL it prints.
fn serve_with(args: &[&str]) -> (Served, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .arg("serve")
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("meshsim serve runs");
    let stdout = child.stdout.take().unwrap();
    let served = Served(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .expect(&line);
    (served, url.to_string())
}

fn probe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .arg("probe")
        .args(args)
        .args(["--settle-ms", "300"])
        .output()
        .expect("meshsim probe runs")
}

#[test]
fn probe_reports_each_seed_runtimes_real_profile_as_json() {
    let expected = [
        ("python-correct", "resumes", "resumes", true),
        (
            "go-replaying",
            "replays",
            "resumes-with-duplicate-submitted",
            true,
        ),
        ("jvm-reaping", "task-not-found", "new-task", false),
    ];
    // A probe is a second or so of waiting on real timers and almost no CPU, so the cases,
    // each with a server of its own, run side by side.
    std::thread::scope(|cases| {
        for dialect in ["v0.1", "v0.3", "v1.0"] {
            for (runtime, resubscribe, followup, survives) in expected {
                cases.spawn(move || {
                    let (_served, url) = serve(runtime, dialect);
                    let output = probe(&[&url, "--json"]);
                    let stdout = String::from_utf8_lossy(&output.stdout);
                    assert!(output.status.success(), "{runtime} {dialect}: {output:?}");
                    let report: Value = serde_json::from_str(&stdout).expect("one JSON object");
                    let context = format!("{runtime} {dialect}: {report:#}");
                    assert_eq!(
                        report["resubscribe_after_input_required"], resubscribe,
                        "{context}"
                    );
                    assert_eq!(report["followup_same_task"], followup, "{context}");
                    assert_eq!(report["stream_closes_on_input_required"], true, "{context}");
                    assert_eq!(report["task_survives_stream_close"], survives, "{context}");
                    assert_eq!(report["card"]["streaming"], true, "{context}");
                    assert_eq!(report["card"]["name"], runtime, "{context}");
                    let contradictions = report["contradictions"].as_array().expect("a list");
                    assert_eq!(
                        contradictions.is_empty(),
                        runtime == "python-correct",
                        "{context}"
                    );
                });
            }
        }
    });
}

#[test]
fn the_personality_a_probe_writes_serves_the_profile_it_measured() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_probe_personality_out");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    // Each case, with servers of its own, on its own thread: two probes are a few seconds of
    // waiting on real timers and almost no CPU.
    std::thread::scope(|cases| {
        for runtime in meshsim_runtimes::BUILTIN_NAMES {
            for dialect in ["v0.3", "v1.0"] {
                let file = dir.join(format!("{runtime}-{dialect}.json"));
                cases.spawn(move || {
                    probed_file_serves_the_measured_profile(runtime, dialect, &file)
                });
            }
        }
    });
}

/// A probe sends the tenant of the interface it chose (the agent serves no other request),
/// reports it, and writes it into the personality, which serves the same profile again.
#[test]
fn a_probe_speaks_to_one_tenant_of_a_shared_endpoint_and_its_file_keeps_the_tenant() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_probe_tenant");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let tenant = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/personalities/one-tenant-of-a-shared-endpoint.json"
    );
    let file = dir.join("one-tenant-v1.0.json");
    probed_file_serves_the_measured_profile(tenant, "v1.0", &file);
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(written["tenant"], "acme", "{written:#}");
}

/// Probes `runtime` served in `dialect` into the personality `file`, then serves that file and
/// probes it again: the two reports are the same but for the URL and the task's id.
fn probed_file_serves_the_measured_profile(runtime: &str, dialect: &str, file: &Path) {
    let (served, url) = serve(runtime, dialect);
    let file_arg = file.to_str().unwrap();
    let output = probe(&[&url, "--json", "--personality-out", file_arg]);
    assert!(output.status.success(), "{runtime} {dialect}: {output:?}");
    drop(served);
    let measured: Value = serde_json::from_slice(&output.stdout).unwrap();
    let (_served, again_url) = serve(file_arg, dialect);
    let again = probe(&[&again_url, "--json"]);
    assert!(again.status.success(), "{file_arg}: {again:?}");
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    let behaviour = |report: &Value| {
        let mut report = report.clone();
        let fields = report.as_object_mut().unwrap();
        fields.remove("url");
        fields.remove("task_id");
        report
    };
    assert_eq!(
        behaviour(&again),
        behaviour(&measured),
        "{runtime} {dialect}: the probed file {} serves another profile",
        std::fs::read_to_string(file).unwrap()
    );
}

#[test]
fn probe_prints_claims_beside_measurements_and_names_contradictions() {
    let (_served, url) = serve("jvm-reaping", "v1.0");
    let output = probe(&[&url]);
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    for expected in [
        "Card claims",
        "measured",
        "task survives stream close",
        "task-not-found",
        "new-task",
        "contradictions (3):",
        "capabilities.streaming = true, but the task is gone once its stream closes",
    ] {
        assert!(
            text.contains(expected),
            "`{expected}` missing from:\n{text}"
        );
    }
}

#[test]
fn a_bad_url_exits_2_and_an_absent_agent_exits_1() {
    let output = probe(&["ftp://example.org/"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("ftp"),
        "{output:?}"
    );
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let output = probe(&[&url]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("cannot connect"),
        "{output:?}"
    );
}

/// An agent whose Card is served but whose endpoint does not answer measured nothing: the
/// report says why in its notes, and the exit status is 1, not success.
#[test]
fn a_card_whose_endpoint_does_not_answer_exits_1_after_the_report() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    let card = include_str!("../../protocol/tests/vectors/v1.0/card.json")
        .replace("https://georoute-agent.example.com/a2a/v1", &endpoint);
    let cards = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", cards.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in cards.incoming() {
            let mut stream = stream.unwrap();
            let mut head = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            while reader.read_line(&mut head).is_ok_and(|read| read > 2) {}
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{card}",
                card.len()
            );
            std::io::Write::write_all(&mut stream, answer.as_bytes()).unwrap();
        }
    });
    let output = probe(&[&url, "--timeout-s", "2"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stdout.contains("streaming send failed"), "{stdout}");
    assert!(stderr.contains("did not answer"), "{stderr}");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
}

/// `meshsim serve` of a personality file serving only HTTP+JSON says so, and `meshsim probe`
/// speaks HTTP+JSON to it (the only binding its Card offers), says so, and measures the
/// spec-correct profile; the personality it writes serves HTTP+JSON alone again.
#[test]
fn probe_speaks_http_json_to_a_runtime_that_serves_nothing_else() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/personalities/http-json-only.json"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .args(["serve", "--runtime", file, "--dialect", "v1.0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("meshsim serve runs");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let _served = Served(child);
    let lines: Vec<String> = (0..3)
        .map(|_| {
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            line
        })
        .collect();
    assert_eq!(lines[2], "bindings: HTTP+JSON\n", "{lines:?}");
    let url = lines[0]
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .expect("the URL");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_probe_http_json");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let written = dir.join("probed.json");
    let output = probe(&[
        url,
        "--json",
        "--personality-out",
        written.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{output:?}");
    let report: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!(report["binding"], "HTTP+JSON", "{report:#}");
    assert_eq!(report["card"]["bindings"], serde_json::json!(["HTTP+JSON"]));
    assert_eq!(report["resubscribe_after_input_required"], "resumes");
    assert_eq!(report["followup_same_task"], "resumes");
    assert_eq!(report["get_after_followup"], "completed", "{report:#}");
    let probed: Value = serde_json::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap();
    assert_eq!(probed["bindings"], "http-json");
    let text = probe(&[url]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("probed over HTTP+JSON"), "{text}");
}

/// An agent whose first task never leaves `submitted` while its stream sends keep-alive
/// comments: the probe ends at its `--timeout-s` (the comments are bytes, not events), and
/// the personality it writes names, in its description and in a note, the lifecycle knobs
/// it could not measure and so left at their defaults.
#[test]
fn a_stuck_agent_sending_keep_alives_is_probed_within_the_timeout_and_its_gaps_named() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_probe_stuck");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let stuck = dir.join("stuck.json");
    std::fs::write(
        &stuck,
        r#"{"name": "stuck", "stalled_first_tasks": 1, "keep_alive_ms": 100}"#,
    )
    .unwrap();
    let (_served, url) = serve(stuck.to_str().unwrap(), "v1.0");
    let written = dir.join("probed.json");
    // Without the probe's own bound this never returns.
    let output = probe(&[
        &url,
        "--timeout-s",
        "1",
        "--personality-out",
        written.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{output:?}");
    assert!(
        stdout.contains("first turn: waiting for a state that ends the turn timed out after 1s"),
        "{stdout}"
    );
    let gaps = "stream_close, reaping, resubscribe, follow_up";
    assert!(
        stderr.contains(&format!("leaves {gaps} at their defaults")),
        "{stderr}"
    );
    let probed: Value = serde_json::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap();
    let description = probed["description"].as_str().unwrap();
    assert!(
        description.ends_with(&format!("not measured, so at their defaults: {gaps}")),
        "{description}"
    );
}

/// An endpoint that answers without a task state (here 401: the probe holds no token)
/// measured nothing: exit 1, and no personality is written to claim otherwise.
#[test]
fn an_endpoint_that_answers_no_state_exits_1_and_writes_no_personality() {
    let (_served, url) = serve_with(&["--runtime", "python-correct", "--token", "alpha"]);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_probe_refused");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let unwritten = dir.join("probed.json");
    let _ = std::fs::remove_file(&unwritten);
    let output = probe(&[&url, "--personality-out", unwritten.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(stdout.contains("HTTP 401"), "{stdout}");
    assert!(
        stderr.contains(
            "its first turn reported no task state (see the notes): nothing was measured, and"
        ),
        "{stderr}"
    );
    assert!(!unwritten.exists(), "a personality was written");
}
