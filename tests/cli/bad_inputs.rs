//! Every subcommand given bad arguments, seed ranges, shard specs, personality files or
//! documents: exit status 2 and exactly one line on stderr that says what is wrong, never a
//! panic. The answers are rendered into the `cli-bad-inputs` table of docs/hardening.md,
//! which must match (`MESHSIM_BLESS=1` rewrites it).

use crate::hardening::{cell, check_doc_table, scratch};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Files the cases name, written into the scratch directory the commands run in.
fn write_inputs() {
    let large_document = format!("\"{}\"", "x".repeat(5 << 20));
    let files = [
        ("not-json.json", "{ this is not json"),
        (
            "wrong-type.json",
            r#"{"name": "x", "work": {"min_ms": "fast"}}"#,
        ),
        (
            "unknown-knob.json",
            r#"{"name": "x", "reaping": "sometimes"}"#,
        ),
        (
            "inverted-work.json",
            r#"{"name": "x", "work": {"min_ms": 500, "max_ms": 10}}"#,
        ),
        (
            "endless-work.json",
            r#"{"name": "x", "work": {"long_running_steps": 4294967295}}"#,
        ),
        ("empty.json", ""),
        // Over decode's 4 MiB: a string of 5 MiB.
        ("large.json", &large_document),
        ("plan-not-json.json", "[1, 2"),
    ];
    for (name, content) in files {
        std::fs::write(scratch().join(name), content).expect("write input");
    }
}

/// `args` (split on spaces; `''` is an empty argument) with `stdin`.
fn run(args: &str, stdin: &str) -> (Option<i32>, String) {
    let args: Vec<String> = args
        .split(' ')
        .map(|arg| {
            if arg == "''" {
                String::new()
            } else {
                arg.to_string()
            }
        })
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .args(&args)
        .current_dir(scratch())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("meshsim runs");
    let mut input = child.stdin.take().expect("piped");
    // A bad argument exits before stdin is read: the write may then find the pipe closed.
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    // Bad input is refused at once; a command that starts working instead is a failure,
    // stopped here rather than left to run a sweep.
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("waits").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let output = child.wait_with_output().expect("meshsim exits");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).to_string(),
    )
}

const CASES: &[(&str, &str)] = &[
    ("bogus", ""),
    ("--bogus", ""),
    ("sweep --bogus", ""),
    ("sweep --seeds x", ""),
    ("sweep --seeds 0", ""),
    ("sweep --seeds -3", ""),
    ("sweep --seeds 99999999999999999999", ""),
    ("sweep --seed-range x", ""),
    ("sweep --seed-range 5..2", ""),
    ("sweep --seed-range 3..3", ""),
    ("sweep --seed-range 0..99999999999999999999", ""),
    ("sweep --seed-range ..5", ""),
    ("sweep --seeds 3 --seed-range 0..3", ""),
    ("sweep --shard x", ""),
    ("sweep --shard 3/2", ""),
    ("sweep --shard 0/0", ""),
    ("sweep --shard 1/2/3", ""),
    ("sweep --shard -1/2", ""),
    ("sweep --jobs 0", ""),
    ("sweep --tick-ms 0", ""),
    ("sweep --runtime nope", ""),
    ("sweep --runtime not-json.json", ""),
    ("sweep --runtime wrong-type.json", ""),
    ("sweep --runtime unknown-knob.json", ""),
    ("sweep --runtime inverted-work.json", ""),
    (
        "replay --seed 1 --runtime endless-work.json --consumer reconciling",
        "",
    ),
    (
        "replay --seed 1 --runtime python-correct --consumer naive --job-limit 0",
        "",
    ),
    ("sweep --tick-ms 21", ""),
    ("sweep --runtime empty.json", ""),
    ("sweep --consumer nope", ""),
    ("sweep --dialect v9", ""),
    ("sweep --scenario nope", ""),
    ("sweep --faults nope", ""),
    ("replay", ""),
    (
        "replay --seed x --runtime python-correct --consumer naive",
        "",
    ),
    (
        "replay --seed 0x --runtime python-correct --consumer naive",
        "",
    ),
    (
        "replay --seed 0xZZ --runtime python-correct --consumer naive",
        "",
    ),
    (
        "replay --seed -1 --runtime python-correct --consumer naive",
        "",
    ),
    ("replay --seed 1 --runtime nope --consumer naive", ""),
    (
        "replay --seed 1 --runtime not-json.json --consumer naive",
        "",
    ),
    (
        "replay --seed 1 --runtime python-correct --consumer nope",
        "",
    ),
    (
        "replay --seed 1 --runtime python-correct --consumer naive --scenario nope",
        "",
    ),
    (
        "replay --seed 1 --runtime python-correct --consumer naive --plan missing.json",
        "",
    ),
    (
        "replay --seed 1 --runtime python-correct --consumer naive --plan plan-not-json.json",
        "",
    ),
    (
        "replay --seed 1 --runtime python-correct --consumer naive --plan-json {",
        "",
    ),
    (
        "replay --seed 1 --runtime python-correct --consumer naive --plan-json [{\"at_ms\":\"soon\"}]",
        "",
    ),
    (
        "replay --seed 1 --runtime python-correct --consumer naive --job-limit x",
        "",
    ),
    (
        "replay --seed 1 --runtime python-correct --consumer naive --tick-ms 5000",
        "",
    ),
    ("shrink --seed 1", ""),
    ("shrink --seed 1 --runtime nope --consumer naive", ""),
    (
        "shrink --seed 1 --runtime python-correct --consumer nope",
        "",
    ),
    ("serve", ""),
    ("serve --runtime nope", ""),
    ("serve --runtime not-json.json", ""),
    ("serve --runtime wrong-type.json", ""),
    ("serve --runtime python-correct --dialect v2", ""),
    ("serve --runtime python-correct --addr nope", ""),
    ("serve --runtime python-correct --addr 0.0.0.0:0", ""),
    ("serve --runtime python-correct --addr 127.0.0.1:99999", ""),
    ("serve --runtime python-correct --seed x", ""),
    ("serve --runtime python-correct --max-body-bytes 0", ""),
    ("serve --runtime python-correct --max-streams 0", ""),
    ("serve --runtime python-correct --max-tasks 0", ""),
    ("serve --runtime python-correct --header-timeout-ms 0", ""),
    ("serve --runtime python-correct --token ''", ""),
    ("serve --runtime python-correct --token tök", ""),
    ("probe", ""),
    ("probe nope", ""),
    ("probe ftp://agent.test/", ""),
    ("probe http://", ""),
    ("probe http://127.0.0.1:1/ --timeout-s x", ""),
    ("probe http://127.0.0.1:1/ --timeout-s 0", ""),
    (
        "probe http://127.0.0.1:1/ --timeout-s 18446744073709551615",
        "",
    ),
    (
        "probe http://127.0.0.1:1/ --settle-ms 18446744073709551615",
        "",
    ),
    ("decode missing.json", ""),
    ("decode large.json", ""),
    ("decode --dialect v2", "{}"),
    ("decode", ""),
    ("decode", "{bad"),
    ("decode", "[1,2,3]"),
    ("decode", "data: {\"jsonrpc\":\"2.0\""),
    (
        "decode --dialect v1.0",
        r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{}}"#,
    ),
    (
        "decode --dialect v0.3",
        r#"{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":5}}"#,
    ),
    ("decode", r#"{"name":"agent"}"#),
    ("decode not-json.json", ""),
];

#[test]
fn every_bad_input_exits_2_with_one_clear_line() {
    write_inputs();
    let mut table = String::from("| Command | stdin | Exit | stderr |\n|---|---|---|---|\n");
    let mut wrong = Vec::new();
    for (args, stdin) in CASES {
        let (status, stderr) = run(args, stdin);
        let line = stderr.trim_end_matches('\n');
        if status != Some(2) || line.is_empty() || line.contains('\n') || line.contains("panicked")
        {
            wrong.push(format!(
                "meshsim {args}: exit {status:?}, stderr {stderr:?}"
            ));
            continue;
        }
        let stdin = if stdin.is_empty() {
            String::new()
        } else {
            format!("`{}`", cell(stdin))
        };
        table.push_str(&format!(
            "| `meshsim {}` | {stdin} | 2 | {} |\n",
            cell(args),
            cell(line)
        ));
    }
    assert!(
        wrong.is_empty(),
        "not one line with status 2:\n{}",
        wrong.join("\n")
    );
    check_doc_table("cli-bad-inputs", &table);
}
