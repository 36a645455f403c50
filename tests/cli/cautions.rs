//! A personality file that sets knob values outside the space the swarm draws from gets a
//! caution on standard error, naming each such value, before `sweep`, `replay`, `shrink` or
//! `check` judges runs against it; the runs still go ahead, and with `--json` the output
//! carries the same cautions under `"cautions"` (a sweep's in its summary, and a merge of
//! its shards' too). A file inside the space, a built-in and a swarm draw get none.

use crate::meshsim::meshsim;
use std::path::PathBuf;

/// A personality file in this test binary's scratch directory, by its path.
fn personality(name: &str, knobs: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_cautions");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, format!(r#"{{"name": "{name}", {knobs}}}"#)).expect("written");
    path.to_str().expect("a UTF-8 path").to_string()
}

/// `meshsim COMMAND --runtime RUNTIME` on one origin-incident run: exit code, stdout, stderr.
fn judged(command: &str, runtime: &str) -> (i32, String, String) {
    judged_with(command, runtime, &[])
}

/// [`judged`] with more arguments.
fn judged_with(command: &str, runtime: &str, more: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        command,
        "--runtime",
        runtime,
        "--scenario",
        "origin-incident",
    ];
    args.extend(["--consumer", "reconciling", "--dialect", "v1.0", "--json"]);
    args.extend(if command == "sweep" {
        ["--seeds", "2"]
    } else {
        ["--seed", "0"]
    });
    args.extend(more);
    meshsim(&args)
}

/// The JSON object of the last line of `stdout`, or of its `summary` if it has one.
fn last_object(stdout: &str) -> serde_json::Value {
    let last = stdout.lines().last().expect("output");
    let line: serde_json::Value = serde_json::from_str(last).expect("stdout is JSON");
    line.get("summary").cloned().unwrap_or(line)
}

#[test]
fn a_reaping_timer_faster_than_a_consumer_can_ask_is_named_before_the_runs_and_they_go_ahead() {
    let fast = &personality(
        "reaps-in-150-ms",
        r#""reaping": {"ttl": {"after_ms": 150}}"#,
    );
    for command in ["sweep", "replay", "shrink"] {
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
        let cautions = &last_object(&stdout)["cautions"][fast];
        let said: Vec<&str> = cautions
            .as_array()
            .unwrap_or_else(|| panic!("{command}: no cautions in the JSON: {stdout}"))
            .iter()
            .filter_map(|caution| caution.as_str())
            .collect();
        assert_eq!(said.len(), 2, "{command}: {said:?}");
        assert!(said[0].starts_with("reaping.ttl.after_ms is 150, under 300 ms"));
        assert!(said[1].starts_with("work.max_ms is 250, more than half"));
        assert!(stderr.contains(said[0]) && stderr.contains(said[1]));
    }
}

#[test]
fn a_merge_of_a_cautioned_sweeps_shards_carries_its_cautions_as_the_whole_sweep_does() {
    let fast = &personality(
        "reaps-in-200-ms",
        r#""reaping": {"ttl": {"after_ms": 200}}"#,
    );
    let (_, whole, _) = judged("sweep", fast);
    let mut shards = Vec::new();
    for (index, shard) in ["0/2", "1/2"].into_iter().enumerate() {
        let (_, output, _) = judged_with("sweep", fast, &["--shard", shard]);
        let path = fast.replace(".json", &format!("-shard-{index}.jsonl"));
        std::fs::write(&path, output).expect("written");
        shards.push(path);
    }
    let mut merge = vec!["merge", "--json"];
    merge.extend(shards.iter().map(String::as_str));
    let (code, merged, stderr) = meshsim(&merge);
    assert!(matches!(code, 0 | 1), "merge: {code} {stderr}");
    assert!(
        last_object(&whole)["cautions"][fast].is_array(),
        "the whole sweep has cautions: {whole}"
    );
    assert_eq!(merged, whole, "a merge prints what the whole sweep does");
}

#[test]
fn a_file_inside_the_swarms_space_a_built_in_and_a_swarm_draw_get_no_caution() {
    let slow = personality("reaps-in-3-s", r#""reaping": {"ttl": {"after_ms": 3000}}"#);
    for runtime in [slow.as_str(), "jvm-reaping", "swarm"] {
        for command in ["replay", "sweep"] {
            let (code, stdout, stderr) = judged(command, runtime);
            assert!(matches!(code, 0 | 1), "{runtime}: {code} {stderr}");
            assert!(!stderr.contains("caution"), "{runtime}: {stderr}");
            assert_eq!(last_object(&stdout).get("cautions"), None, "{stdout}");
        }
    }
}

/// `meshsim check` says it too, in its summary, of a consumer program (the built-in one as
/// `meshsim consume`) run over loopback TCP.
#[test]
fn check_carries_the_cautions_in_its_summary() {
    let long = &personality(
        "works-20-s-on-long",
        r#""work": {"long_running_steps": 80}"#,
    );
    let workdir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_cautions_check");
    let meshsim_bin = env!("CARGO_BIN_EXE_meshsim");
    let (code, stdout, stderr) = meshsim(&[
        "check",
        "--runtime",
        long,
        "--scenario",
        "origin-incident",
        "--seed-range",
        "0..1",
        "--workdir",
        workdir.to_str().unwrap(),
        "--json",
        "--",
        meshsim_bin,
        "consume",
        "--consumer",
        "reconciling",
    ]);
    let _ = std::fs::remove_dir_all(&workdir);
    assert!(matches!(code, 0 | 1), "check: {code} {stderr}");
    let said = &last_object(&stdout)["cautions"][long][0];
    let said = said
        .as_str()
        .unwrap_or_else(|| panic!("no caution in the summary: {stdout}"));
    assert!(
        said.starts_with("the #long script's work may last 20000 ms"),
        "{said}"
    );
    assert!(stderr.contains(said), "{stderr}");
}
