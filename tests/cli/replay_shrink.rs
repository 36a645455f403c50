//! `meshsim replay` and `meshsim shrink` as a user runs them: the same arguments print the
//! same trace hash, another seed another; a shrunk naive-consumer failure is no larger than
//! the original and its printed replay still violates the same invariant. Both exit with the
//! verdict of the run they print (0 holds, 1 violated), and `--json` writes only JSON. A swarm
//! seed's personality, printed as a file, replays the same run; shrink sets the knobs that
//! do not matter back to their defaults.

use crate::meshsim::meshsim;
use std::path::PathBuf;

/// A scratch file for this test binary.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_replay_shrink");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir.join(name)
}

fn last_json(stdout: &str) -> serde_json::Value {
    let line = stdout.lines().last().expect("output");
    serde_json::from_str(line).expect("the last line is JSON")
}

/// The naive consumer against go-replaying, seed 7 (index 2 is the seed).
const SEED_7_NAIVE: [&str; 7] = [
    "replay",
    "--seed",
    "7",
    "--runtime",
    "go-replaying",
    "--consumer",
    "naive",
];

#[test]
fn replay_is_deterministic_and_seed_sensitive() {
    let mut args = SEED_7_NAIVE.to_vec();
    args.push("--json");
    let (code, first, stderr) = meshsim(&args);
    assert_eq!(code, 1, "a violated run exits 1: {stderr}");
    assert_eq!(
        first.lines().count(),
        1,
        "--json writes only its JSON line: {first}"
    );
    let (_, second, _) = meshsim(&args);
    let (a, b) = (last_json(&first), last_json(&second));
    assert_eq!(a["trace_hash"], b["trace_hash"]);
    assert_eq!(first, second, "the whole replay is byte for byte the same");
    assert_eq!(a["verdict"], "violated");
    let (code, text, stderr) = meshsim(&SEED_7_NAIVE);
    assert_eq!(code, 1, "{stderr}");
    assert!(text.contains("timeline"), "{text}");
    assert!(
        text.contains(a["trace_hash"].as_str().expect("a hash")),
        "{text}"
    );
    let mut other = args.clone();
    other[2] = "8";
    let (_, third, _) = meshsim(&other);
    assert_ne!(a["trace_hash"], last_json(&third)["trace_hash"]);
}

/// A run at another step length is another run: its printed replay command carries
/// `--tick-ms`, and running that command gives the same trace again.
#[test]
fn the_step_length_is_part_of_the_run_and_of_its_replay_command() {
    let at = |tick: &str| {
        let mut args = SEED_7_NAIVE.to_vec();
        args.extend(["--tick-ms", tick, "--json"]);
        let (code, stdout, stderr) = meshsim(&args);
        assert_eq!(code, 1, "the naive consumer violates: {stderr}");
        last_json(&stdout)
    };
    let coarse = at("10");
    assert_eq!(coarse["tick_ms"], 10);
    let replay = coarse["replay"].as_str().expect("a replay command");
    assert!(replay.ends_with("--tick-ms 10"), "{replay}");
    let mut again: Vec<&str> = replay.split(' ').skip(1).collect();
    again.push("--json");
    let (code, stdout, stderr) = meshsim(&again);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(last_json(&stdout)["trace_hash"], coarse["trace_hash"]);
    let default = at("1");
    assert_eq!(default["tick_ms"], 1);
    assert!(
        !default["replay"]
            .as_str()
            .expect("a replay command")
            .contains("--tick-ms"),
        "the default step is not spelled out"
    );
    assert_ne!(default["trace_hash"], coarse["trace_hash"]);
}

#[test]
fn shrink_keeps_the_violation_with_no_larger_plan() {
    let base = [
        "--seed",
        "3",
        "--runtime",
        "jvm-reaping",
        "--consumer",
        "naive",
        "--faults",
        "swarm",
    ];
    let (_, replay, _) = meshsim(&[&["replay", "--json"][..], &base[..]].concat());
    let original = last_json(&replay);
    let invariant = original["violations"][0]["invariant"]
        .as_str()
        .expect("the naive consumer violates something against jvm-reaping")
        .to_string();
    let (_, text, _) = meshsim(&[&["replay"][..], &base[..]].concat());
    let original_plan = text
        .split("fault plan:\n")
        .nth(1)
        .and_then(|rest| rest.split("\n}").next())
        .map(|plan| plan.matches("\"at_ms\"").count())
        .expect("a printed plan");

    let (code, shrunk, stderr) = meshsim(&[&["shrink"][..], &base[..]].concat());
    assert_eq!(code, 1, "the shrunk run still violates: {stderr}");
    let (code, json, stderr) = meshsim(&[&["shrink", "--json"][..], &base[..]].concat());
    assert_eq!(code, 1, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&json).expect("only JSON");
    assert_eq!(report["invariant"], invariant.as_str());
    let plan_line = shrunk
        .lines()
        .find(|l| l.starts_with("plan: "))
        .expect("plan line");
    let plan_json = plan_line.trim_start_matches("plan: ");
    let plan: serde_json::Value = serde_json::from_str(plan_json).unwrap();
    let faults = plan["faults"].as_array().unwrap().len();
    assert!(
        faults <= original_plan,
        "{faults} > {original_plan}: {shrunk}"
    );
    assert!(shrunk.contains(&format!("shrunk {invariant}")), "{shrunk}");

    let replay_line = shrunk.lines().find(|l| l.starts_with("replay: ")).unwrap();
    assert!(replay_line.contains("--plan-json"), "{replay_line}");
    let mut args = vec!["replay", "--json", "--plan-json", plan_json];
    args.extend_from_slice(&base[..6]);
    if let Some(limit) = replay_line.split("--job-limit ").nth(1) {
        args.push("--job-limit");
        args.push(limit.split_whitespace().next().unwrap());
    }
    let (code, replayed, stderr) = meshsim(&args);
    assert_eq!(code, 1, "{stderr}");
    let replayed = last_json(&replayed);
    let kept = replayed["violations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|v| v["invariant"] == invariant.as_str());
    assert!(kept, "{replayed}");
}

/// `--runtime swarm` draws the seed's personality; replay prints it as a file, and that
/// file run by path is the same run.
#[test]
fn a_swarm_seeds_personality_printed_as_a_file_replays_the_same_run() {
    let file = scratch("swarm-seed-11.json");
    let file_arg = file.to_str().expect("a UTF-8 path");
    let swarm = [
        "replay",
        "--seed",
        "11",
        "--runtime",
        "swarm",
        "--consumer",
        "reconciling",
        "--personality-out",
        file_arg,
    ];
    let (code, text, stderr) = meshsim(&swarm);
    assert_ne!(code, 2, "{stderr}");
    assert!(text.contains("personality drawn from the seed"), "{text}");
    let written = std::fs::read_to_string(&file).expect("the personality file");
    assert!(
        text.contains(written.trim()),
        "the printed file is the written one"
    );
    assert!(written.contains(r#""name": "swarm-11""#), "{written}");

    let as_json = |runtime: &str| {
        let (code, stdout, stderr) = meshsim(&[
            "replay",
            "--seed",
            "11",
            "--runtime",
            runtime,
            "--consumer",
            "reconciling",
            "--json",
        ]);
        assert_ne!(code, 2, "{stderr}");
        last_json(&stdout)
    };
    let (drawn, by_file) = (as_json("swarm"), as_json(file_arg));
    assert_eq!(by_file["trace_hash"], drawn["trace_hash"]);
    assert_eq!(drawn["runtime"], "swarm");
    assert!(
        drawn["replay"]
            .as_str()
            .is_some_and(|replay| replay.contains("--runtime swarm"))
    );

    let mut other = swarm.to_vec();
    other[2] = "12";
    other.truncate(7);
    let (_, twelve, _) = meshsim(&other);
    let printed = |text: &str| {
        text.split("personality drawn from the seed")
            .nth(1)
            .and_then(|rest| rest.split("fault plan:").next())
            .map(str::to_string)
    };
    assert_ne!(
        printed(&twelve),
        printed(&text),
        "another seed, another personality"
    );
}

/// A jvm-reaping personality with three knobs that do not matter: shrink sets those back
/// to the defaults and keeps the reaping that makes the naive consumer lose the task.
#[test]
fn shrink_sets_back_the_knobs_the_violation_does_not_need() {
    let file = scratch("padded-jvm.json");
    std::fs::write(
        &file,
        r#"{"name": "padded-jvm", "reaping": "on-stream-close", "unknown_task": "new-task",
            "keep_alive_ms": 5000, "busy_follow_up": "queue", "opening": {"follow_up": "snapshot"}}"#,
    )
    .expect("write the personality");
    let shrunk_file = scratch("padded-jvm-shrunk.json");
    let (code, shrunk, stderr) = meshsim(&[
        "shrink",
        "--seed",
        "1",
        "--runtime",
        file.to_str().expect("a UTF-8 path"),
        "--consumer",
        "naive",
        "--faults",
        "none",
        "--invariant",
        "view-matches-truth",
        "--personality-out",
        shrunk_file.to_str().expect("a UTF-8 path"),
    ]);
    assert_eq!(code, 1, "a shrunk violation exits 1: {stderr}");
    assert!(shrunk.contains("5 knob(s) off default -> "), "{shrunk}");
    let personality: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&shrunk_file).expect("the shrunk file"))
            .expect("JSON");
    assert_eq!(personality["reaping"], "on-stream-close");
    assert_eq!(personality["keep_alive_ms"], serde_json::Value::Null);
    assert_eq!(personality["busy_follow_up"], "refuse");
    assert_eq!(personality["opening"]["follow_up"], "none");
    let replay_line = shrunk.lines().find(|l| l.starts_with("replay: ")).unwrap();
    assert!(
        replay_line.contains(shrunk_file.to_str().expect("a UTF-8 path")),
        "{replay_line}"
    );
}

#[test]
fn a_run_that_holds_exits_0_and_has_nothing_to_shrink() {
    let holds = [
        "--seed",
        "7",
        "--runtime",
        "python-correct",
        "--consumer",
        "naive",
        "--faults",
        "none",
    ];
    let (code, _, stderr) = meshsim(&[&["replay"][..], &holds[..]].concat());
    assert_eq!(code, 0, "{stderr}");
    let (code, json, stderr) = meshsim(&[&["shrink", "--json"][..], &holds[..]].concat());
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("nothing to shrink"), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&json).expect("only JSON");
    assert_eq!(report["verdict"], "holds");
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    for args in [
        &[
            "replay",
            "--seed",
            "x",
            "--runtime",
            "go-replaying",
            "--consumer",
            "naive",
        ][..],
        &[
            "replay",
            "--seed",
            "1",
            "--runtime",
            "no-such",
            "--consumer",
            "naive",
        ][..],
        &[
            "replay",
            "--seed",
            "1",
            "--runtime",
            "go-replaying",
            "--consumer",
            "nobody",
        ][..],
        &["sweep", "--shard", "3/3"][..],
        &["sweep", "--seed-range", "9..2"][..],
    ] {
        let (code, _, stderr) = meshsim(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(!stderr.trim().is_empty(), "{args:?}");
    }
}

/// The replay line a run prints is a shell command that reruns it: a personality file whose
/// path has a space is quoted, and a plan given as a file is printed inline.
#[test]
fn a_printed_replay_line_pasted_into_a_shell_runs_the_same_run() {
    let personality = scratch("a personality.json");
    std::fs::write(
        &personality,
        include_str!("../../runtimes/personalities/go-replaying.json"),
    )
    .expect("write the personality");
    let plan = scratch("plan.json");
    std::fs::write(
        &plan,
        r#"{"faults": [{"at_ms": 700, "kind": "crash", "host": "agent"}]}"#,
    )
    .expect("write the plan");
    let (personality, plan) = (personality.to_str().unwrap(), plan.to_str().unwrap());
    let (code, stdout, stderr) = meshsim(&[
        "replay",
        "--seed",
        "7",
        "--runtime",
        personality,
        "--consumer",
        "naive",
        "--plan",
        plan,
        "--json",
    ]);
    assert_eq!(code, 1, "the naive consumer violates: {stderr}");
    let run = last_json(&stdout);
    let replay = run["replay"].as_str().expect("a replay command");
    assert!(replay.contains("--plan-json '{"), "{replay}");
    let command = replay.replacen("meshsim", env!("CARGO_BIN_EXE_meshsim"), 1) + " --json";
    let output = std::process::Command::new("sh")
        .args(["-c", &command])
        .output()
        .expect("sh runs");
    let again = last_json(&String::from_utf8_lossy(&output.stdout));
    assert_eq!(again["trace_hash"], run["trace_hash"], "{command}");
}

/// A built-in personality is not shrunk, but `--personality-out` still writes it (as
/// `replay --personality-out` does), and a path that cannot be written is an error.
#[test]
fn shrink_writes_a_built_in_personality_when_asked_and_says_it_is_unchanged() {
    let out = scratch("shrunk-built-in.json");
    let _ = std::fs::remove_file(&out);
    let mut args = SEED_7_NAIVE.to_vec();
    args[0] = "shrink";
    let out_text = out.to_str().unwrap();
    args.extend(["--personality-out", out_text]);
    let (code, _, stderr) = meshsim(&args);
    assert_eq!(code, 1, "the shrunk run still violates: {stderr}");
    assert!(stderr.contains("go-replaying is built in"), "{stderr}");
    let written = std::fs::read_to_string(&out).expect("the personality is written");
    assert!(written.contains(r#""name": "go-replaying""#), "{written}");
    args.pop();
    args.push("/nonexistent-directory/p.json");
    let (code, _, stderr) = meshsim(&args);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot write the personality"), "{stderr}");
}
