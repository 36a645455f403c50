//! A personality file that sets knob values outside the space the swarm draws from gets a
//! caution on standard error, naming each such value, before `sweep`, `replay`, `shrink` or
//! `check` judges runs against it; the runs still go ahead and the output on standard output
//! is unchanged. A file inside the space, a built-in and a swarm draw get none.

use std::path::PathBuf;
use std::process::Command;

/// A personality file in this test binary's scratch directory.
fn personality(name: &str, knobs: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_cautions");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, format!(r#"{{"name": "{name}", {knobs}}}"#)).expect("written");
    path
}

/// `meshsim COMMAND --runtime RUNTIME` on one origin-incident run: exit code, stdout, stderr.
fn judged(command: &str, runtime: &str) -> (i32, String, String) {
    let mut args = vec![
        command,
        "--runtime",
        runtime,
        "--scenario",
        "origin-incident",
    ];
    args.extend(["--consumer", "reconciling", "--dialect", "v1.0", "--json"]);
    args.extend(if command == "sweep" {
        ["--seeds", "1"]
    } else {
        ["--seed", "0"]
    });
    let output = Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .args(&args)
        .output()
        .expect("meshsim runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_reaping_timer_faster_than_a_consumer_can_ask_is_named_before_the_runs_and_they_go_ahead() {
    let fast = personality(
        "reaps-in-150-ms",
        r#""reaping": {"ttl": {"after_ms": 150}}"#,
    );
    let fast = fast.to_str().unwrap();
    for command in ["sweep", "replay"] {
        let (code, stdout, stderr) = judged(command, fast);
        assert!(
            stderr.contains(&format!(
                "meshsim {command}: caution: runtime {fast} sets knobs outside the space"
            )),
            "{command}: {stderr}"
        );
        assert!(
            stderr.contains("  - reaping.ttl.after_ms is 150, under 300 ms"),
            "{command}: {stderr}"
        );
        assert!(
            stderr.contains("  - work.max_ms is 250, more than half of reaping.ttl.after_ms"),
            "{command}: {stderr}"
        );
        assert!(
            matches!(code, 0 | 1),
            "{command} judged the run: {code} {stderr}"
        );
        let last = stdout.lines().last().expect("output");
        serde_json::from_str::<serde_json::Value>(last).expect("stdout is still JSON");
    }
}

#[test]
fn a_file_inside_the_swarms_space_a_built_in_and_a_swarm_draw_get_no_caution() {
    let slow = personality("reaps-in-3-s", r#""reaping": {"ttl": {"after_ms": 3000}}"#);
    for runtime in [slow.to_str().unwrap(), "jvm-reaping", "swarm"] {
        let (code, _, stderr) = judged("replay", runtime);
        assert!(matches!(code, 0 | 1), "{runtime}: {code} {stderr}");
        assert!(!stderr.contains("caution"), "{runtime}: {stderr}");
    }
}
