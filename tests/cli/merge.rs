//! `meshsim merge` and `sweep --shard auto`: the merge of four shards' outputs is the whole
//! sweep's output byte for byte (lines, table and exit status), shards of another sweep or
//! a missing or doubled shard are refused in one line with exit status 2, and `--shard auto`
//! takes its shard from each scheduler's variables.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// A small sweep with a divergence in it: two runtimes, both consumers, the incident with
/// and without faults, eight seeds (64 runs).
const SWEEP: &[&str] = &[
    "--scenario",
    "origin-incident",
    "--runtime",
    "go-replaying",
    "--runtime",
    "python-correct",
    "--dialect",
    "v1.0",
    "--seed-range",
    "10..18",
    "--jobs",
    "2",
];

/// Every variable `--shard auto` reads: removed from each command, so that a test run
/// under a scheduler sees only what the test sets.
const SCHEDULER_VARIABLES: &[&str] = &[
    "MESHSIM_SHARD_INDEX",
    "MESHSIM_SHARD_COUNT",
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_COUNT",
    "JOB_COMPLETION_INDEX",
    "JOB_COMPLETIONS",
    "CI_NODE_INDEX",
    "CI_NODE_TOTAL",
];

fn meshsim(args: &[&str], env: &[(&str, &str)], stdin: Option<&[u8]>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_meshsim"));
    command.args(args);
    for name in SCHEDULER_VARIABLES {
        command.env_remove(name);
    }
    command.envs(env.iter().copied());
    command.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().expect("meshsim runs");
    if let Some(input) = stdin {
        use std::io::Write;
        let mut pipe = child.stdin.take().expect("piped");
        pipe.write_all(input).expect("write stdin");
    }
    child.wait_with_output().expect("meshsim finishes")
}

fn sweep(extra: &[&str], env: &[(&str, &str)]) -> Output {
    let args: Vec<&str> = ["sweep"]
        .iter()
        .chain(SWEEP)
        .chain(extra)
        .copied()
        .collect();
    meshsim(&args, env, None)
}

fn scratch() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_merge");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// The whole sweep's `--json` output and the four shards' output files, made once.
struct Sweeps {
    whole: Output,
    shards: Vec<String>,
}

fn sweeps() -> &'static Sweeps {
    static SWEEPS: OnceLock<Sweeps> = OnceLock::new();
    SWEEPS.get_or_init(|| {
        let whole = sweep(&["--json"], &[]);
        let shards = (0..4)
            .map(|index| {
                let output = sweep(&["--json", "--shard", &format!("{index}/4")], &[]);
                assert_eq!(output.status.code(), whole.status.code(), "shard {index}");
                let path = scratch().join(format!("shard-{index}.jsonl"));
                std::fs::write(&path, &output.stdout).expect("write shard");
                path.display().to_string()
            })
            .collect();
        Sweeps { whole, shards }
    })
}

fn merge(files: &[&str], json: bool) -> Output {
    let mut args = vec!["merge"];
    if json {
        args.push("--json");
    }
    args.extend(files);
    meshsim(&args, &[], None)
}

/// The one line of stderr of a refused merge, checking its exit status and empty stdout.
fn refusal(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(output.stdout.is_empty(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    stderr
}

#[test]
fn merging_four_shards_prints_the_whole_sweep_byte_for_byte() {
    let sweeps = sweeps();
    let whole = String::from_utf8_lossy(&sweeps.whole.stdout);
    assert_eq!(whole.lines().count(), 64 + 1, "64 runs and the summary");
    assert!(whole.contains(r#""violated":"#), "the sweep has a summary");
    // Given in any order: the merge puts the shards back in sweep order.
    let shuffled: Vec<&str> = [3, 0, 2, 1]
        .iter()
        .map(|i| sweeps.shards[*i].as_str())
        .collect();
    let merged = merge(&shuffled, true);
    assert_eq!(
        String::from_utf8_lossy(&merged.stdout),
        whole,
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    assert_eq!(merged.status.code(), sweeps.whole.status.code());

    // The table and its exit status are the whole sweep's too.
    let table = sweep(&[], &[]);
    let merged_table = merge(&shuffled, false);
    assert_eq!(merged_table.stdout, table.stdout);
    assert!(String::from_utf8_lossy(&table.stdout).contains("DIVERGED"));
    assert_eq!(merged_table.status.code(), table.status.code());

    // All four from standard input, one after another.
    let mut piped = Vec::new();
    for shard in &sweeps.shards {
        piped.extend(std::fs::read(shard).expect("read shard"));
    }
    let from_stdin = meshsim(&["merge", "--json", "-"], &[], Some(&piped));
    assert_eq!(from_stdin.stdout, sweeps.whole.stdout);
}

/// A swarm sweep's summary says what the drawn personalities covered; merged, its shards
/// say the same (the merge draws each seed's personality again), in the table too.
#[test]
fn a_merged_swarm_sweep_keeps_its_coverage() {
    let swarm = |extra: &[&str]| {
        let mut args = vec![
            "sweep",
            "--runtime",
            "swarm",
            "--scenario",
            "origin-incident",
            "--consumer",
            "reconciling",
            "--dialect",
            "v1.0",
            "--seeds",
            "6",
        ];
        args.extend(extra);
        meshsim(&args, &[], None)
    };
    let shards: Vec<String> = (0..2)
        .map(|index| {
            let output = swarm(&["--json", "--shard", &format!("{index}/2")]);
            let path = scratch().join(format!("swarm-shard-{index}.jsonl"));
            std::fs::write(&path, &output.stdout).expect("write shard");
            path.display().to_string()
        })
        .collect();
    let shards: Vec<&str> = shards.iter().map(String::as_str).collect();
    let whole = swarm(&["--json"]);
    assert!(
        String::from_utf8_lossy(&whole.stdout).contains(r#""coverage":{"#),
        "the summary has the coverage"
    );
    assert_eq!(merge(&shards, true).stdout, whole.stdout);
    let table = swarm(&[]);
    assert!(String::from_utf8_lossy(&table.stdout).contains("swarm coverage: 6 personalities"));
    assert_eq!(merge(&shards, false).stdout, table.stdout);
}

#[test]
fn every_line_names_the_sweep_and_its_shard() {
    let shard = std::fs::read_to_string(&sweeps().shards[2]).expect("read shard");
    for line in shard.lines() {
        let value: serde_json::Value = serde_json::from_str(line).expect("JSON");
        let identity = value
            .get("sweep")
            .or_else(|| value["summary"].get("sweep"))
            .unwrap_or_else(|| panic!("no identity in {line}"));
        assert_eq!(identity["shard"], "2/4");
        assert_eq!(identity["seeds"], serde_json::json!([10, 18]));
        assert_eq!(identity["tick_ms"], 1);
        assert_eq!(identity["cells"]["count"], 8);
        assert_eq!(identity["meshsim"], env!("CARGO_PKG_VERSION"));
        assert!(
            identity["commit"]
                .as_str()
                .is_some_and(|commit| !commit.is_empty())
        );
    }
}

#[test]
fn a_missing_shard_is_refused_by_name() {
    let shards = &sweeps().shards;
    let error = refusal(&merge(&[&shards[0], &shards[1], &shards[3]], true));
    assert!(
        error.contains("shard 2/4 of the sweep is missing"),
        "{error}"
    );
}

#[test]
fn a_doubled_shard_is_refused_naming_both_files() {
    let shards = &sweeps().shards;
    let copy = scratch().join("copy-of-shard-1.jsonl");
    std::fs::copy(&shards[1], &copy).expect("copy shard");
    let copy = copy.display().to_string();
    let error = refusal(&merge(
        &[&shards[0], &shards[1], &copy, &shards[2], &shards[3]],
        true,
    ));
    assert!(error.contains("shard 1/4 is doubled"), "{error}");
    assert!(
        error.contains(&shards[1]) && error.contains(&copy),
        "{error}"
    );
    let twice = [&shards[0], &shards[1], &shards[1], &shards[2], &shards[3]].map(String::as_str);
    let error = refusal(&merge(&twice, true));
    assert!(error.contains("shard 1/4 is doubled"), "{error}");
    assert!(error.contains("is given twice"), "{error}");
}

#[test]
fn a_shard_from_another_tick_is_refused_naming_the_file() {
    let shards = &sweeps().shards;
    let other = sweep(&["--json", "--shard", "3/4", "--tick-ms", "20"], &[]);
    let path = scratch().join("shard-3-at-20ms.jsonl");
    std::fs::write(&path, &other.stdout).expect("write shard");
    let path = path.display().to_string();
    let error = refusal(&merge(&[&shards[0], &shards[1], &shards[2], &path], true));
    assert!(error.contains(&path), "{error}");
    assert!(error.contains("another tick (20 ms, not 1 ms)"), "{error}");
}

#[test]
fn a_cut_short_shard_is_refused() {
    let shards = &sweeps().shards;
    let text = std::fs::read_to_string(&shards[2]).expect("read shard");
    let lines: Vec<&str> = text.lines().collect();
    let path = scratch().join("shard-2-cut.jsonl");
    std::fs::write(&path, lines[..lines.len() - 1].join("\n")).expect("write");
    let path = path.display().to_string();
    let error = refusal(&merge(&[&shards[0], &shards[1], &path, &shards[3]], true));
    assert!(error.contains("no summary line"), "{error}");
}

#[test]
fn shard_auto_takes_the_shard_from_each_schedulers_variables() {
    let explicit = sweep(&["--json", "--shard", "2/4"], &[]);
    assert!(explicit.status.code().is_some_and(|code| code < 2));
    let schedulers: &[(&str, &[(&str, &str)])] = &[
        (
            "a Slurm array 1-4",
            &[
                ("SLURM_ARRAY_TASK_ID", "3"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_MAX", "4"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
        ),
        (
            "a Slurm array by count",
            &[
                ("SLURM_ARRAY_TASK_ID", "2"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
        ),
        (
            "a Kubernetes Indexed Job",
            &[("JOB_COMPLETION_INDEX", "2"), ("JOB_COMPLETIONS", "4")],
        ),
        (
            "GitLab's parallel jobs",
            &[("CI_NODE_INDEX", "3"), ("CI_NODE_TOTAL", "4")],
        ),
        (
            "a GitHub Actions matrix",
            &[("MESHSIM_SHARD_INDEX", "2"), ("MESHSIM_SHARD_COUNT", "4")],
        ),
    ];
    for (scheduler, variables) in schedulers {
        let auto = sweep(&["--json", "--shard", "auto"], variables);
        assert_eq!(
            String::from_utf8_lossy(&auto.stdout),
            String::from_utf8_lossy(&explicit.stdout),
            "{scheduler}: {}",
            String::from_utf8_lossy(&auto.stderr)
        );
    }
}

#[test]
fn shard_auto_without_a_scheduler_is_a_one_line_error() {
    let output = sweep(&["--json", "--shard", "auto"], &[]);
    let error = refusal(&output);
    assert!(
        error.contains("no scheduler's shard variables are set"),
        "{error}"
    );
    let half = sweep(&["--shard", "auto"], &[("JOB_COMPLETION_INDEX", "1")]);
    assert!(refusal(&half).contains("JOB_COMPLETIONS is not"));
}
