//! `meshsim` in pipes and scripts: a reader that closes stdout early gets no panic and the
//! command keeps its exit status, while output that cannot be written is an error; `--json`
//! writes nothing but JSON; every `--help` ends with
//! the one exit-status table; decode's unreadable input is bad input (2) wherever it comes
//! from.

use std::process::{Command, Output, Stdio};

const MESHSIM: &str = env!("CARGO_BIN_EXE_meshsim");

/// A v1.0 Agent Card, for decode.
const CARD: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/protocol/tests/vectors/v1.0/card.json"
);

/// The naive consumer against go-replaying, seed 7: it violates, so replay exits 1.
const VIOLATED: [&str; 7] = [
    "--seed",
    "7",
    "--runtime",
    "go-replaying",
    "--consumer",
    "naive",
    "--json",
];

/// One run of a sweep, as `--json`.
pub(crate) const ONE_SWEEP_JSON: [&str; 12] = [
    "sweep",
    "--seeds",
    "1",
    "--scenario",
    "origin-incident",
    "--runtime",
    "python-correct",
    "--consumer",
    "naive",
    "--dialect",
    "v1.0",
    "--json",
];

/// Runs `meshsim args` with its stdout a pipe whose reading end is already closed, as after
/// `| head -1` has read its line: every write fails with a broken pipe.
fn with_closed_stdout(args: &[&str]) -> Output {
    let mut child = Command::new(MESHSIM)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("meshsim starts");
    drop(child.stdout.take());
    child.wait_with_output().expect("meshsim ends")
}

#[test]
fn a_closed_stdout_is_no_panic_and_keeps_the_exit_status() {
    let cases: [(&[&str], i32); 5] = [
        (
            &[
                "replay",
                "--seed",
                "7",
                "--runtime",
                "go-replaying",
                "--consumer",
                "naive",
            ],
            1,
        ),
        (
            &[
                "replay",
                "--seed",
                "7",
                "--runtime",
                "python-correct",
                "--consumer",
                "naive",
                "--faults",
                "none",
            ],
            0,
        ),
        (&["list"], 0),
        (&["list", "--json"], 0),
        (&["decode", CARD], 0),
    ];
    for (args, status) in cases {
        let output = with_closed_stdout(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(output.status.code(), Some(status), "{args:?}: {stderr}");
    }
}

/// Output that cannot be written (a full disk) is not success: the command says so and
/// exits 1, where a reader that left (above) keeps the command's own status.
#[test]
fn stdout_on_a_full_disk_is_an_error_not_a_success() {
    let cases: [&[&str]; 3] = [&ONE_SWEEP_JSON, &["list"], &["decode", CARD]];
    for args in cases {
        let full = std::fs::File::create("/dev/full").expect("/dev/full opens");
        let output = Command::new(MESHSIM)
            .args(args)
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .expect("meshsim runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("cannot write to standard output"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn json_output_is_only_json() {
    let replay = [&["replay"][..], &VIOLATED[..]].concat();
    let shrink = [&["shrink"][..], &VIOLATED[..]].concat();
    let sweep = ONE_SWEEP_JSON;
    let cases: [&[&str]; 4] = [&replay, &shrink, &["list", "--json"], &sweep];
    for args in cases {
        let output = Command::new(MESHSIM)
            .args(args)
            .output()
            .expect("meshsim runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(!stdout.trim().is_empty(), "{args:?} printed nothing");
        for line in stdout.lines() {
            let parsed: Result<serde_json::Value, _> = serde_json::from_str(line);
            assert!(parsed.is_ok(), "{args:?}: not JSON: {line}");
        }
    }
}

#[test]
fn every_help_ends_with_the_exit_statuses() {
    let subcommands = [
        "decode", "probe", "serve", "list", "sweep", "merge", "replay", "shrink", "bench", "check",
        "consume",
    ];
    let mut helps = vec![vec!["--help"]];
    helps.extend(subcommands.iter().map(|name| vec![*name, "--help"]));
    for args in helps {
        let output = Command::new(MESHSIM)
            .args(&args)
            .output()
            .expect("meshsim runs");
        let help = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        for line in [
            "Exit status",
            "0  success",
            "1  a failing verdict",
            "2  bad usage or input",
        ] {
            assert!(help.contains(line), "{args:?} lacks {line:?}:\n{help}");
        }
    }
}

#[test]
fn unreadable_input_to_decode_exits_2_from_a_file_and_from_stdin() {
    let missing = Command::new(MESHSIM)
        .args(["decode", "no-such-file.json"])
        .output()
        .expect("meshsim runs");
    assert_eq!(missing.status.code(), Some(2));
    // A directory as standard input: reading it fails (EISDIR).
    let directory = std::fs::File::open(env!("CARGO_MANIFEST_DIR")).expect("open a directory");
    let unreadable = Command::new(MESHSIM)
        .arg("decode")
        .stdin(directory)
        .output()
        .expect("meshsim runs");
    let stderr = String::from_utf8_lossy(&unreadable.stderr);
    assert_eq!(unreadable.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot read stdin"), "{stderr}");
}
