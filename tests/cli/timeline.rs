//! `meshsim replay --timeline` and `meshsim sweep --timelines`: the pages are written
//! where asked, only for runs that violated an invariant or missed their expectation, the
//! same run writes the same bytes, and a place that cannot be written is a clear error.

use std::path::PathBuf;
use std::process::{Command, Output};

fn meshsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .args(args)
        .output()
        .expect("meshsim runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

#[test]
fn replay_draws_the_run_and_the_same_run_draws_the_same_bytes() {
    let dir = scratch("timeline-replay");
    let mut pages = Vec::new();
    for name in ["a.html", "b.html"] {
        let file = dir.join(name);
        let out = meshsim(&[
            "replay",
            "--seed",
            "7",
            "--runtime",
            "jvm-reaping",
            "--consumer",
            "naive",
            "--faults",
            "none",
            "--timeline",
            file.to_str().expect("utf-8 path"),
        ]);
        // The naive consumer diverges against jvm-reaping: replay draws the page and exits 1,
        // the status of a violated run.
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let hash = stdout
            .lines()
            .find_map(|line| line.strip_prefix("trace_hash: "))
            .expect("the replay prints its trace hash")
            .to_string();
        let page = std::fs::read_to_string(&file).expect("the timeline was written");
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.contains(&hash), "the page names the run's trace hash");
        assert!(page.contains(r#"data-invariant="view-matches-truth""#));
        pages.push(page);
    }
    assert!(pages[0] == pages[1], "the same run drew different pages");
}

#[test]
fn sweep_draws_only_the_runs_that_violated_an_invariant() {
    let dir = scratch("timeline-sweep");
    let out = meshsim(&[
        "sweep",
        "--scenario",
        "origin-incident",
        "--runtime",
        "jvm-reaping",
        "--runtime",
        "python-correct",
        "--consumer",
        "naive",
        "--dialect",
        "v1.0",
        "--seeds",
        "2",
        "--faults",
        "none",
        "--timelines",
        dir.to_str().expect("utf-8 path"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut written: Vec<String> = std::fs::read_dir(&dir)
        .expect("the directory exists")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .to_string()
        })
        .collect();
    written.sort();
    assert_eq!(
        written,
        [
            "origin-incident-none-jvm-reaping-naive-v1.0-seed0.html",
            "origin-incident-none-jvm-reaping-naive-v1.0-seed1.html",
        ],
        "python-correct holds for the naive consumer: nothing to draw"
    );
}

#[test]
fn a_timeline_that_cannot_be_written_is_a_clear_error() {
    let dir = scratch("timeline-errors");
    let missing = dir.join("no-such-dir").join("x.html");
    let out = meshsim(&[
        "replay",
        "--seed",
        "7",
        "--runtime",
        "go-replaying",
        "--consumer",
        "naive",
        "--faults",
        "none",
        "--timeline",
        missing.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unwritable output path is bad input"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write the timeline"));

    let file = dir.join("a-file");
    std::fs::write(&file, "").expect("a plain file");
    let out = meshsim(&[
        "sweep",
        "--seeds",
        "1",
        "--timelines",
        file.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(2), "bad arguments exit 2");
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot create the timelines directory"));
}
