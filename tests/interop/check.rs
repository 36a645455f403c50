//! `meshsim check` end to end: consumer programs run against the runtimes on loopback TCP,
//! judged by the oracle. Programs that misbehave get clear verdicts and the sweep goes on;
//! the same seed strikes its faults at the same exchange points; the built-in consumers run
//! as programs (`meshsim consume`) get the simulation's verdicts; and the example consumers
//! on the official Python and JavaScript SDKs (installed by `interop/install.sh`) show the
//! origin incident's divergences, or hold. `--timelines` draws a page for each run that did not hold.

use crate::support::{Sdk, install, install_dir, repo};
use meshsim_protocol::Dialect;
use meshsim_scenarios::{
    ConsumerChoice, DEFAULT_TICK, Faults, RunOptions, RunSpec, RuntimeChoice, Scenario,
};
use meshsim_sim::Seed;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

const ORIGIN_RUNTIMES: [&str; 3] = ["go-replaying", "jvm-reaping", "python-correct"];

/// Runs `meshsim check ARGS -- PROGRAM` with `--json` and a work directory of its own,
/// removed afterwards (check keeps the files of runs that did not hold there); its exit
/// code, the run lines and the summary.
fn check(args: &[&str], program: &[&str]) -> (i32, Vec<Value>, Value) {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let workdir = std::env::temp_dir().join(format!(
        "meshsim-check-workdir-{}-{}",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed)
    ));
    let output = Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .arg("check")
        .args(args)
        .arg("--workdir")
        .arg(&workdir)
        .arg("--json")
        .arg("--")
        .args(program)
        .current_dir(repo())
        // Where examples/consumers/js finds @a2a-js/sdk.
        .env("MESHSIM_INTEROP_NODE", install_dir().join("node"))
        .output()
        .expect("meshsim runs");
    let _ = std::fs::remove_dir_all(&workdir);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut lines: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let summary = lines.pop().expect("a summary line");
    assert!(
        summary.get("summary").is_some(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code().unwrap_or(-1), lines, summary)
}

/// The invariants a run line names, sorted.
fn invariants(run: &Value) -> BTreeSet<String> {
    run["violations"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|violation| violation["invariant"].as_str().unwrap_or("?").to_string())
        .collect()
}

/// (runtime, dialect, seed) -> (verdict, invariants) of every run line.
fn verdicts(runs: &[Value]) -> BTreeMap<(String, String, u64), (String, BTreeSet<String>)> {
    runs.iter()
        .map(|run| {
            (
                (
                    run["runtime"].as_str().unwrap_or("?").to_string(),
                    run["dialect"].as_str().unwrap_or("?").to_string(),
                    run["seed"].as_u64().unwrap_or(u64::MAX),
                ),
                (
                    run["verdict"].as_str().unwrap_or("?").to_string(),
                    invariants(run),
                ),
            )
        })
        .collect()
}

fn meshsim() -> &'static str {
    env!("CARGO_BIN_EXE_meshsim")
}

#[test]
fn a_malformed_report_an_exit_3_and_a_sleeper_each_get_a_clear_verdict_and_the_sweep_goes_on() {
    let dir = std::env::temp_dir().join(format!("meshsim-check-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let counter = dir.join("runs");
    // Run n (counted in a file; --jobs 1 runs them in order) misbehaves in its own way.
    let script = format!(
        r#"n=$(( $(cat {counter} 2>/dev/null || echo 0) + 1 )); echo $n > {counter}
case $n in
  1) printf '{{"kind":"applied","task":"t","state":"wroking","source":{{"connection":1,"index":0,"via":"snapshot"}}}}\n' > "$MESHSIM_REPORT" ;;
  2) exit 3 ;;
  3) sleep 1000 ;;
  *) exec {meshsim} consume --consumer reconciling ;;
esac"#,
        counter = counter.display(),
        meshsim = meshsim(),
    );
    let (code, runs, summary) = check(
        &[
            "--runtime",
            "python-correct",
            "--scenario",
            "origin-incident",
            "--seeds",
            "4",
            "--jobs",
            "1",
            "--timeout-secs",
            "3",
        ],
        &["sh", "-c", &script],
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 1, "{runs:#?}");
    assert_eq!(
        runs.len(),
        4,
        "the sweep went on after each failure: {runs:#?}"
    );
    let verdict = |index: usize| runs[index]["verdict"].as_str().unwrap().to_string();
    let program = |index: usize| runs[index]["programs"][0].clone();

    assert_eq!(verdict(0), "report-invalid");
    let invalid = &program(0)["report_invalid"];
    assert_eq!(invalid["line"], 1, "{invalid}");
    assert_eq!(invalid["field"], "state", "{invalid}");
    assert!(
        invalid["problem"].as_str().unwrap().contains("wroking"),
        "{invalid}"
    );

    assert_eq!(verdict(1), "program-failed");
    assert_eq!(program(1)["ended"], "failed");
    assert_eq!(program(1)["code"], 3);

    assert_eq!(verdict(2), "program-failed");
    assert_eq!(program(2)["ended"], "timed-out");
    assert_eq!(program(2)["bound_ms"], 3000);
    // Each of the three already has its verdict: none is also said to have run out of time.
    for run in &runs[..3] {
        assert_eq!(run["violations"], serde_json::json!([]), "{run:#}");
    }

    assert_eq!(verdict(3), "holds", "{:#}", runs[3]);
    assert_eq!(summary["summary"]["holds"], 1);
    assert_eq!(summary["summary"]["report_invalid"], 1);
    assert_eq!(summary["summary"]["program_failed"], 2);
}

#[test]
fn the_same_seed_strikes_its_faults_at_the_same_exchange_points() {
    let consume = [meshsim(), "consume", "--consumer", "reconciling"];
    let (_, runs, summary) = check(
        &[
            "--runtime",
            "python-correct",
            "--runtime",
            "go-replaying",
            "--scenario",
            "crash-bounce",
            "--scenario",
            "sidecar-cut",
            "--scenario",
            "partition-during-resubscribe",
            // Named twice, checked once (twin runs would also share their report files).
            "--runtime",
            "python-correct",
            "--scenario",
            "crash-bounce",
            "--seeds",
            "2",
            "--repeat",
            "2",
            // The 24 runs mostly wait on their scenarios' real timers (under a second of CPU
            // in all): more at once than the machine's cores, so they wait side by side.
            "--jobs",
            "8",
        ],
        &consume,
    );
    assert_eq!(runs.len(), 2 * 3 * 2 * 2, "{summary}");
    for pair in runs.chunks(2) {
        let (first, second) = (&pair[0], &pair[1]);
        assert_eq!(first["rerun"], second["rerun"]);
        assert_eq!(
            (first["repetition"].as_u64(), second["repetition"].as_u64()),
            (Some(0), Some(1))
        );
        let faults = first["faults"].as_array().unwrap();
        assert!(!faults.is_empty(), "a fault struck in {}", first["rerun"]);
        assert_eq!(first["faults"], second["faults"], "{}", first["rerun"]);
    }
}

#[test]
fn the_built_in_consumers_as_programs_get_the_simulations_verdicts_on_the_incident() {
    for consumer in ["naive", "reconciling"] {
        let mut args = vec!["--scenario", "origin-incident", "--seeds", "1"];
        for runtime in ORIGIN_RUNTIMES {
            args.extend(["--runtime", runtime]);
        }
        for dialect in Dialect::ALL {
            args.extend(["--dialect", dialect.name()]);
        }
        let (_, runs, _) = check(&args, &[meshsim(), "consume", "--consumer", consumer]);
        let checked = verdicts(&runs);
        assert_eq!(checked.len(), ORIGIN_RUNTIMES.len() * Dialect::ALL.len());
        for runtime in ORIGIN_RUNTIMES {
            for dialect in Dialect::ALL {
                let spec = RunSpec {
                    seed: Seed::new(0),
                    scenario: Scenario::OriginIncident,
                    runtime: RuntimeChoice::resolve(runtime).unwrap(),
                    consumer: ConsumerChoice::builtin(consumer).unwrap(),
                    dialect,
                    faults: Faults::None,
                    job_limit: None,
                    tick: DEFAULT_TICK,
                };
                let simulated = meshsim_scenarios::run(&spec, &RunOptions::default()).unwrap();
                let expected: BTreeSet<String> = simulated
                    .violations
                    .iter()
                    .map(|violation| violation.invariant.to_string())
                    .collect();
                let key = (runtime.to_string(), dialect.name().to_string(), 0);
                assert_eq!(
                    checked[&key].1, expected,
                    "{consumer} against {runtime} in {dialect}: check {:?}, simulation {:?}",
                    checked[&key], simulated.violations
                );
            }
        }
    }
}

#[test]
fn timelines_draws_one_page_per_run_that_did_not_hold_and_none_for_a_run_that_held() {
    let dir = std::env::temp_dir().join(format!("meshsim-check-timelines-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let timelines = dir.join("pages");
    let timelines_arg = timelines.display().to_string();
    let mut args = vec!["--scenario", "origin-incident", "--seeds", "1"];
    for runtime in ORIGIN_RUNTIMES {
        args.extend(["--runtime", runtime]);
    }
    args.extend(["--timelines", &timelines_arg]);
    let (code, runs, _) = check(&args, &[meshsim(), "consume", "--consumer", "naive"]);
    assert_eq!(code, 1, "{runs:#?}");
    for run in &runs {
        assert!(run["timers_late_ms"].is_u64(), "{run:#}");
    }
    let mut pages: Vec<String> = std::fs::read_dir(&timelines)
        .expect("the timelines directory was created")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    pages.sort();
    // The naive consumer diverges against go-replaying and jvm-reaping, and holds against
    // python-correct: two pages, each named after its run and naming what broke.
    assert_eq!(
        pages,
        [
            "origin-incident-go-replaying-v1.0-seed0-r0.html",
            "origin-incident-jvm-reaping-v1.0-seed0-r0.html"
        ],
        "{runs:#?}"
    );
    for (page, invariant) in pages.iter().zip(["no-double-apply", "view-matches-truth"]) {
        let html = std::fs::read_to_string(timelines.join(page)).unwrap();
        assert!(html.starts_with("<!doctype html>"), "{page}");
        assert!(html.contains(invariant), "{page} names {invariant}: {html}");
        assert!(
            html.contains("meshsim check"),
            "{page} says how to rerun: {html}"
        );
        assert!(
            html.contains("machine: the check&#39;s timers fired up to "),
            "{page} says how busy the machine was: {html}"
        );
        for side in ["runtime", "consumer"] {
            let header = format!("<th colspan=\"2\">{side}</th>");
            assert!(
                html.contains(&header),
                "{page} has the {side}'s record: {html}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_workdir_check_names_the_files_it_keeps_and_leaves_nothing_when_every_run_held() {
    let tmp = std::env::temp_dir().join(format!("meshsim-check-tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let run = |runtimes: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_meshsim"));
        command.args(["check", "--scenario", "origin-incident", "--seeds", "1"]);
        for runtime in runtimes {
            command.args(["--runtime", runtime]);
        }
        let output = command
            .args(["--", meshsim(), "consume", "--consumer", "naive"])
            .env("TMPDIR", &tmp)
            .output()
            .expect("meshsim runs");
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        (
            output.status.code(),
            text(&output.stdout),
            text(&output.stderr),
        )
    };
    // The naive consumer diverges against go-replaying and holds against python-correct.
    let (code, stdout, stderr) = run(&["go-replaying", "python-correct"]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    let kept: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 1, "one work directory: {kept:?}");
    let workdir = &kept[0];
    assert!(stderr.contains(&workdir.display().to_string()), "{stderr}");
    let stem = "origin-incident-go-replaying-v1.0-seed0-r0";
    let named = format!("{}-*", workdir.join(stem).display());
    assert!(stdout.contains(&named), "the run names {named}: {stdout}");
    let mut files: Vec<String> = std::fs::read_dir(workdir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "the diverging run's files are kept");
    for file in &files {
        assert!(
            file.starts_with(stem),
            "only the diverging run's files: {files:?}"
        );
    }
    std::fs::remove_dir_all(workdir).unwrap();
    let (code, stdout, stderr) = run(&["python-correct"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "nothing left behind: {left:?}");
    assert!(!stderr.contains("did not hold"), "{stderr}");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn against_the_swarm_each_seed_meets_the_personality_the_sweep_draws_for_it_and_keeps_it_when_the_run_fails_and_the_summary_says_what_they_covered()
 {
    let workdir = std::env::temp_dir().join(format!("meshsim-check-swarm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&workdir);
    let output = Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .args([
            "check",
            "--runtime",
            "swarm",
            "--scenario",
            "origin-incident",
        ])
        .args(["--seed-range", "4..7", "--json", "--workdir"])
        .arg(&workdir)
        .args(["--", "sh", "-c", "exit 3"])
        .output()
        .expect("meshsim runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let mut runs: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let summary = runs.pop().expect("a summary line");
    assert_eq!(runs.len(), 3, "{stdout}");
    assert_eq!(
        summary["summary"]["coverage"]["personalities"], 3,
        "the knob values the three draws covered: {summary}"
    );
    let mut drawn = BTreeSet::new();
    for run in &runs {
        let seed = run["seed"].as_u64().unwrap();
        assert_eq!(run["verdict"], "program-failed", "{run}");
        assert_eq!(run["runtime"], "swarm", "{run}");
        assert_eq!(run["personality"], format!("swarm-{seed}"), "{run}");
        let rerun = run["rerun"].as_str().unwrap();
        assert!(
            rerun.contains(&format!(
                "--runtime swarm --scenario origin-incident --dialect v1.0 --seed-range {seed}..{}",
                seed + 1
            )),
            "{rerun}"
        );
        let file = run["personality_file"]
            .as_str()
            .expect("a failed run keeps its personality");
        let kept: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let expected = RuntimeChoice::swarm().for_seed(Seed::new(seed)).personality;
        assert_eq!(
            kept,
            serde_json::to_value(&expected).unwrap(),
            "seed {seed}"
        );
        drawn.insert(kept.to_string());
    }
    assert_eq!(drawn.len(), 3, "each seed draws its own personality");
    let _ = std::fs::remove_dir_all(&workdir);
}

/// A program that sends its job's message, is told the task's id, and gives up without
/// naming the task in its report (a consumer that lost track of a task it started): the
/// task it leaves at `input-required` is its orphan, though its report never names it. In
/// the heterogeneous mesh only `job-0` forgets; `job-4`, which meets the same agent, runs
/// the reconciling consumer, and is not blamed for job-0's task.
const FORGETFUL: &str = r#"
import json, os, sys, urllib.request
if os.environ['MESHSIM_JOB'] not in ('incident', 'job-0'):
    os.execv(sys.argv[1], [sys.argv[1], 'consume', '--consumer', 'reconciling'])
base = os.environ['MESHSIM_AGENT_URL']
card = json.load(urllib.request.urlopen(base + '/.well-known/agent-card.json'))
send = {'jsonrpc': '2.0', 'id': 1, 'method': 'message/send', 'params': {'message': {
    'kind': 'message', 'messageId': 'm-1', 'role': 'user',
    'parts': [{'kind': 'text', 'text': os.environ['MESHSIM_REQUEST']}]}}}
request = urllib.request.Request(
    card['url'], json.dumps(send).encode(), {'Content-Type': 'application/json'})
print(json.load(urllib.request.urlopen(request)))
with open(os.environ['MESHSIM_REPORT'], 'w') as report:
    report.write(json.dumps({'kind': 'outcome', 'outcome': 'gave-up', 'reason': 'lost track'}) + '\n')
"#;

#[test]
fn a_task_a_program_was_told_of_and_left_out_of_its_report_is_its_orphan() {
    let Some(()) = install(&[Sdk::Python]) else {
        return;
    };
    let (code, runs, _) = check(
        &[
            "--runtime",
            "python-correct",
            "--scenario",
            "origin-incident",
            "--scenario",
            "heterogeneous-mesh",
            "--dialect",
            "v0.3",
            "--seeds",
            "1",
        ],
        &[&python(), "-c", FORGETFUL, meshsim()],
    );
    assert_eq!(code, 1, "{runs:#?}");
    assert_eq!(runs.len(), 2, "{runs:#?}");
    for run in &runs {
        let orphans: Vec<&Value> = run["violations"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|violation| violation["invariant"] == "no-orphaned-task")
            .collect();
        assert_eq!(orphans.len(), 1, "{run:#}");
        let expected_job = match run["scenario"].as_str().unwrap() {
            "origin-incident" => "incident",
            _ => "job-0",
        };
        assert_eq!(orphans[0]["job"], expected_job, "{run:#}");
        let detail = orphans[0]["detail"].as_str().unwrap();
        assert!(
            detail.starts_with("task is still `input-required` on agent")
                && detail.contains("the consumer was sent its id in the answer to call")
                && detail.ends_with("and its report never names it)"),
            "{detail}"
        );
    }
}

/// A program that reads the answer to its streaming send line by line and gives up saying
/// how many events it read before the connection ended.
const EVENT_COUNTER: &str = r#"
import http.client, json, os, urllib.parse
base = urllib.parse.urlparse(os.environ['MESHSIM_AGENT_URL'])
card_connection = http.client.HTTPConnection(base.hostname, base.port)
card_connection.request('GET', '/.well-known/agent-card.json')
url = urllib.parse.urlparse(json.loads(card_connection.getresponse().read())['url'])
send = {'jsonrpc': '2.0', 'id': 1, 'method': 'message/stream', 'params': {'message': {
    'kind': 'message', 'messageId': 'm-1', 'role': 'user',
    'parts': [{'kind': 'text', 'text': os.environ['MESHSIM_REQUEST']}]}}}
events = 0
try:
    connection = http.client.HTTPConnection(url.hostname, url.port)
    connection.request('POST', url.path or '/', json.dumps(send),
                       {'Content-Type': 'application/json', 'Accept': 'text/event-stream'})
    answer = connection.getresponse()
    while line := answer.readline():
        events += line.startswith(b'data:')
except Exception as error:
    print(repr(error))
with open(os.environ['MESHSIM_REPORT'], 'w') as report:
    report.write(json.dumps({'kind': 'outcome', 'outcome': 'gave-up',
                             'reason': f'read {events} events'}) + '\n')
"#;

#[test]
fn a_stream_cut_after_its_event_k_reaches_the_program_with_k_events() {
    let Some(()) = install(&[Sdk::Python]) else {
        return;
    };
    let (_, runs, _) = check(
        &[
            "--runtime",
            "python-correct",
            "--scenario",
            "sidecar-cut",
            "--dialect",
            "v0.3",
            "--seeds",
            "3",
        ],
        &[&python(), "-c", EVENT_COUNTER],
    );
    assert_eq!(runs.len(), 3, "{runs:#?}");
    for run in &runs {
        let cut = &run["faults"][0];
        assert_eq!(cut["fault"], "cut-stream", "{run:#}");
        let read = format!("the job gave up: read {} events", cut["after_event"]);
        assert!(
            run["violations"]
                .as_array()
                .unwrap()
                .iter()
                .any(|violation| violation["detail"] == read.as_str()),
            "{read}: {run:#}"
        );
    }
}

/// The must-show command's arguments: the origin incident's three runtimes on its incident, 3 seeds.
fn incident_args() -> Vec<&'static str> {
    let mut args = vec!["--scenario", "origin-incident", "--seeds", "3"];
    for runtime in ORIGIN_RUNTIMES {
        args.extend(["--runtime", runtime]);
    }
    args
}

/// The origin incident's divergences: the naive consumer double-applies against go-replaying, believes
/// in a reaped task against jvm-reaping, and holds against python-correct.
fn assert_naive_divergences(runs: &[Value]) {
    assert_eq!(runs.len(), 9, "{runs:#?}");
    for run in runs {
        let found = invariants(run);
        match run["runtime"].as_str().unwrap() {
            "go-replaying" => assert!(found.contains("no-double-apply"), "{run:#}"),
            "jvm-reaping" => assert!(found.contains("view-matches-truth"), "{run:#}"),
            _ => assert_eq!(run["verdict"], "holds", "{run:#}"),
        }
    }
}

fn python() -> String {
    install_dir().join("venv/bin/python").display().to_string()
}

/// `meshsim check` of the Python naive example on the incident: its exit code and run lines.
/// Both tests below read it, so it runs once per test binary (nine runs, each starting a
/// Python interpreter); the second test to ask waits for the first one's.
fn python_naive_check() -> &'static (i32, Vec<Value>) {
    static CHECKED: OnceLock<(i32, Vec<Value>)> = OnceLock::new();
    CHECKED.get_or_init(|| {
        let (code, runs, _) = check(
            &incident_args(),
            &[&python(), "examples/consumers/python/naive.py"],
        );
        (code, runs)
    })
}

#[test]
fn the_python_naive_example_shows_the_origin_divergences_and_the_reconciling_one_holds() {
    let Some(()) = install(&[Sdk::Python]) else {
        return;
    };
    let (code, runs) = python_naive_check();
    assert_eq!(*code, 1);
    assert_naive_divergences(runs);

    let (code, runs, summary) = check(
        &incident_args(),
        &[&python(), "examples/consumers/python/reconciling.py"],
    );
    assert_eq!(code, 0, "{runs:#?}");
    assert_eq!(summary["summary"]["holds"], 9);
}

/// The Python reconciling example against runtimes that each broke it once, one for each
/// of its rules beyond the origin incident: a task that stalls on a stream kept open by
/// keep-alives (the submitted deadline holds on a stream too), an agent serving only
/// HTTP+JSON (either binding the Card offers), a send answered only when a slow turn
/// settles (`polling`: the task at once), a follow-up that starts a new task (the old one is
/// canceled, not taken for gone), a cancel at input-required that is ignored or refused
/// (the refusal recorded and the job given up, where it used to retry until the deadline),
/// a cancel the agent would refuse whose connection is reset (tried again until the
/// agent answers, where it was tried once and the task left behind), and an agent whose
/// Card comes 2.5 s late and whose tasks all stall (the task in hand canceled before the
/// job's deadline, counted from when the job began, where it was counted from after the
/// Card and left the task submitted).
#[test]
fn the_python_reconciling_example_holds_against_runtimes_that_each_broke_it_once() {
    let Some(()) = install(&[Sdk::Python]) else {
        return;
    };
    assert_holds_against_runtimes_that_each_broke_a_reconciling_example(&[
        &python(),
        "examples/consumers/python/reconciling.py",
    ]);
}

/// `program` holds against the runtimes that each broke the Python reconciling example once.
fn assert_holds_against_runtimes_that_each_broke_a_reconciling_example(program: &[&str]) {
    let runs = [
        (
            "origin-incident",
            "0..1",
            &[
                "tests/personalities/stalls-two-tasks-keeps-pinging.json",
                "tests/personalities/http-json-only.json",
                "tests/personalities/settles-slowly-without-streaming.json",
                "tests/personalities/new-task-per-follow-up.json",
                // Its Card comes 2.5 s late: the cleanup before the job's deadline counts
                // from when the job began.
                "tests/personalities/stalls-every-task-behind-a-late-card.json",
            ][..],
        ),
        (
            "cancel-at-input-required",
            "0..1",
            &[
                "tests/personalities/ignores-cancel-at-input-required.json",
                "tests/personalities/refuses-cancel-at-input-required.json",
            ][..],
        ),
        // Seed 31 resets the connection of the first cancel, which the agent would refuse.
        (
            "partition-during-resubscribe",
            "31..32",
            &["tests/personalities/stalls-every-task-and-will-not-cancel-it.json"][..],
        ),
    ];
    // Most of these runs wait out their runtime's stalls (the late Card's and the
    // partitioned cancel's take about 30 s each, on under a second of CPU), so every run
    // starts at once: two at a time, the three checks one after another, they took 83 s;
    // all at once, 30 s.
    std::thread::scope(|scope| {
        for (scenario, seeds, runtimes) in runs {
            scope.spawn(move || {
                let jobs = runtimes.len().to_string();
                let mut args = vec!["--scenario", scenario, "--seed-range", seeds];
                args.extend(["--jobs", &jobs]);
                for runtime in runtimes {
                    args.extend(["--runtime", runtime]);
                }
                let (code, runs, summary) = check(&args, program);
                assert_eq!(code, 0, "{scenario}: {runs:#?}");
                assert_eq!(summary["summary"]["holds"], runtimes.len(), "{scenario}");
            });
        }
    });
}

/// The JavaScript reconciling example, the Python one's port to @a2a-js/sdk, holds where the
/// Python one does: on the origin incident (where the naive examples diverge), in v1.0 and
/// in v0.3 (through the SDK's compatibility layer, which the examples turn on), against the
/// runtimes that each broke the Python one once, and with nothing struck, where a long task
/// streams to its end and its artifact must be taken whole.
#[test]
fn the_js_reconciling_example_holds_where_the_python_one_does() {
    let Some(()) = install(&[Sdk::Js]) else {
        return;
    };
    let program = ["node", "examples/consumers/js/reconciling.mjs"];
    let mut both_dialects = incident_args();
    both_dialects.extend(["--dialect", "v1.0", "--dialect", "v0.3"]);
    let (code, runs, summary) = check(&both_dialects, &program);
    assert_eq!(code, 0, "{runs:#?}");
    assert_eq!(summary["summary"]["holds"], 18);
    assert_holds_against_runtimes_that_each_broke_a_reconciling_example(&program);
    let (code, runs, _) = check(
        &[
            "--no-faults",
            "--scenario",
            "crash-bounce",
            "--runtime",
            "jvm-reaping",
            "--seeds",
            "1",
        ],
        &program,
    );
    assert_eq!(code, 0, "{runs:#?}");
}

/// `--no-faults` runs a scenario's jobs with nothing struck: the long task the crash would
/// have cut streams to its end, and the Python reconciling example must take its artifact
/// whole (it kept only the last chunk, "chunk 10 of 10", until it appended them).
#[test]
fn with_no_faults_the_python_reconciling_example_takes_a_long_streamed_artifact_whole() {
    let Some(()) = install(&[Sdk::Python]) else {
        return;
    };
    let (code, runs, summary) = check(
        &[
            "--no-faults",
            "--scenario",
            "crash-bounce",
            "--runtime",
            "jvm-reaping",
            "--seeds",
            "1",
        ],
        &[&python(), "examples/consumers/python/reconciling.py"],
    );
    assert_eq!(code, 0, "{runs:#?}");
    assert_eq!(summary["summary"]["no_faults"], true);
    let [run] = &runs[..] else {
        panic!("one run: {runs:#?}")
    };
    assert_eq!(run["no_faults"], true);
    assert_eq!(run["faults"], serde_json::json!([]), "{run:#}");
    assert!(
        run["rerun"].as_str().unwrap().contains(" --no-faults "),
        "{run:#}"
    );
}

#[test]
fn the_js_naive_example_gets_the_python_examples_verdicts() {
    let Some(()) = install(&[Sdk::Python, Sdk::Js]) else {
        return;
    };
    let (js_code, js_runs, _) = check(
        &incident_args(),
        &["node", "examples/consumers/js/naive.mjs"],
    );
    let (py_code, py_runs) = python_naive_check();
    assert_naive_divergences(&js_runs);
    assert_eq!(js_code, *py_code);
    assert_eq!(verdicts(&js_runs), verdicts(py_runs));
}

/// A check stopped by SIGTERM takes its programs with it: the program still running (a
/// sleeper) is killed, not left behind, and check exits 1 saying why.
#[test]
fn a_check_stopped_by_a_signal_kills_the_programs_it_started() {
    let dir = std::env::temp_dir().join(format!("meshsim-check-stopped-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let pid_file = dir.join("program.pid");
    let mut check = Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .args([
            "check",
            "--scenario",
            "origin-incident",
            "--runtime",
            "python-correct",
        ])
        .args(["--seeds", "1", "--workdir"])
        .arg(dir.join("work"))
        .args([
            "--",
            "sh",
            "-c",
            "echo $$ > \"$0.part\" && mv \"$0.part\" \"$0\" && exec sleep 300",
        ])
        .arg(&pid_file)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("meshsim check starts");
    // The program says it runs by writing its pid; it then sleeps far beyond this test.
    let program = loop {
        if let Ok(pid) = std::fs::read_to_string(&pid_file) {
            break pid.trim().to_string();
        }
        assert!(
            check.try_wait().expect("check runs").is_none(),
            "check ended first"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let signalled = Command::new("kill")
        .args(["-TERM", &check.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(signalled.success());
    let output = check.wait_with_output().expect("check ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("stopped by SIGTERM"), "{stderr}");
    // Killed with its group before check exited: at most a zombie until init reaps it.
    let alive = std::fs::read_to_string(format!("/proc/{program}/stat")).is_ok_and(|stat| {
        !stat
            .split(") ")
            .nth(1)
            .is_some_and(|rest| rest.starts_with('Z'))
    });
    assert!(!alive, "the program {program} outlived check");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The two personalities that are one tenant of a shared endpoint (over both bindings, and
/// over HTTP+JSON alone), on the origin incident.
fn tenant_args() -> Vec<&'static str> {
    vec![
        "--scenario",
        "origin-incident",
        "--seeds",
        "1",
        "--runtime",
        "tests/personalities/one-tenant-of-a-shared-endpoint.json",
        "--runtime",
        "tests/personalities/one-tenant-over-http-json-only.json",
    ]
}

/// A client must send the tenant of the Card interface it chose in every request. Both
/// SDKs' clients do (the reconciling examples hold against runtimes that refuse any other
/// request), and a program whose client drops it is told: its calls reach no agent, and the
/// job's give-up breaks `liveness`.
#[test]
fn the_sdk_clients_send_the_cards_tenant_and_a_program_that_drops_it_is_told() {
    let Some(()) = install(&[Sdk::Python, Sdk::Js]) else {
        return;
    };
    let reconciling_python = [python(), "examples/consumers/python/reconciling.py".into()];
    let reconciling_js = [
        "node".into(),
        "examples/consumers/js/reconciling.mjs".into(),
    ];
    for program in [reconciling_python, reconciling_js] {
        let program: Vec<&str> = program.iter().map(String::as_str).collect();
        let (code, runs, summary) = check(&tenant_args(), &program);
        assert_eq!(code, 0, "{program:?}: {runs:#?}");
        assert_eq!(summary["summary"]["holds"], 2, "{program:?}");
    }
    let (code, runs, _) = check(
        &tenant_args(),
        &[&python(), "tests/interop/programs/drops_the_tenant.py"],
    );
    assert_eq!(code, 1, "{runs:#?}");
    assert_eq!(runs.len(), 2, "{runs:#?}");
    // The calls' refusals say why: JSON-RPC's names the tenant, HTTP+JSON's unprefixed
    // routes are no routes.
    for run in &runs {
        assert!(invariants(run).contains("liveness"), "{run:#}");
        let refusals = run["refusals"].as_array().expect("a list");
        let expected = match run["runtime"].as_str().unwrap() {
            "tests/personalities/one-tenant-of-a-shared-endpoint.json" => {
                "-32602 params.tenant: this agent is tenant `acme`"
            }
            _ => "HTTP 404",
        };
        assert!(
            !refusals.is_empty()
                && refusals
                    .iter()
                    .all(|refusal| refusal["error"].as_str().unwrap().contains(expected)),
            "{run:#}"
        );
    }
}
