//! `meshsim replay`: runs one seed again and prints its timeline (simulated time, host,
//! event), the personality the seed drew (with `--runtime swarm`), the fault plan, the
//! verdict with each violation, and the trace hash; with `--json`, only one JSON object
//! with the fields of a sweep line instead; with `--timeline FILE.html` it also draws the
//! run as a self-contained HTML page. Exits 1 when the run violates an invariant, so
//! `git bisect run meshsim replay ...` finds the commit that broke a run.

use crate::cli::cautions;
use crate::cli::output;
use crate::cli::run_json::run_json;
use crate::cli::selection::RunArgs;
use clap::Args;
use meshsim_runtimes::Personality;
use meshsim_scenarios::{RunOptions, RunResult, Verdict, rule_for};
use meshsim_sim::RunError;
use meshsim_trace::TraceLine;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Also write the trace as JSON lines to this file.
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Write only one JSON object describing the run (the fields of a `sweep --json` line)
    /// instead of the text.
    #[arg(long)]
    json: bool,
    /// Also write the run's personality (the one the seed drew, with `--runtime swarm`)
    /// to this file, ready for `--runtime FILE`.
    #[arg(long, value_name = "FILE")]
    personality_out: Option<PathBuf>,
    /// Also draw the run (lanes, arrows, fault windows, view vs truth, violations) as a
    /// self-contained HTML page in this file.
    #[arg(long, value_name = "FILE.html")]
    timeline: Option<PathBuf>,
}

pub fn run(args: ReplayArgs) -> ExitCode {
    let spec = match args.run.spec() {
        Ok(spec) => spec,
        Err(problem) => {
            eprintln!("meshsim replay: {problem}");
            return ExitCode::from(2);
        }
    };
    let cautions = cautions::say("replay", [&spec.runtime]);
    let options = RunOptions {
        keep_trace: true,
        trace_file: args.trace.clone(),
        ..RunOptions::default()
    };
    let result = match meshsim_scenarios::run(&spec, &options) {
        Ok(result) => result,
        // An output path that cannot be written is a bad argument, as for --timeline; the
        // run itself was fine.
        Err(error @ RunError::TraceFile { .. }) => {
            eprintln!("meshsim replay: cannot write the trace: {error}");
            return ExitCode::from(2);
        }
        Err(error) => {
            // The plan or the configuration did not fit: bad input.
            eprintln!("meshsim replay: the run could not be carried out: {error}");
            return ExitCode::from(2);
        }
    };
    if args.json {
        let rule = rule_for(&result.spec);
        let matched = rule.expect.is_met_by(&result);
        let mut line = run_json(&result, rule.expect, matched);
        cautions::add_to(&mut line, &cautions);
        output::print_line(&line.to_string());
    } else {
        output::print(&render(&result));
    }
    if let Some(path) = &args.personality_out
        && let Err(error) = std::fs::write(path, personality_file(&spec.runtime.personality) + "\n")
    {
        eprintln!(
            "meshsim replay: cannot write the personality to {}: {error}",
            path.display()
        );
        return ExitCode::from(2);
    }
    if let Some(path) = &args.timeline
        && let Err(problem) = write_timeline(&result, path)
    {
        eprintln!("meshsim replay: {problem}");
        return ExitCode::from(2);
    }
    verdict_status(result.verdict)
}

/// The exit status of a run's verdict: 0 when it holds, 1 when it violates an invariant.
pub fn verdict_status(verdict: Verdict) -> ExitCode {
    match verdict {
        Verdict::Holds => ExitCode::SUCCESS,
        Verdict::Violated => ExitCode::FAILURE,
    }
}

/// Writes the timeline page of `result` (which kept its trace) to `path`.
pub fn write_timeline(result: &RunResult, path: &Path) -> Result<(), String> {
    let html = meshsim_scenarios::timeline::render(result)
        .map_err(|error| format!("cannot draw the timeline: {error}"))?;
    std::fs::write(path, html)
        .map_err(|error| format!("cannot write the timeline to {}: {error}", path.display()))
}

/// The replay as text: timeline, plan, verdict, hash.
pub fn render(result: &RunResult) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "replay: {}\n\ntimeline (simulated time, host, event):\n",
        result.spec.replay_command()
    ));
    if let Some(trace) = &result.trace {
        for event in trace.events() {
            out.push_str(&timeline_line(&event));
        }
    }
    if result.spec.runtime.drawn {
        out.push_str(&format!(
            "\npersonality drawn from the seed (save it as a file and pass it to --runtime to run it again):\n{}\n",
            personality_file(&result.spec.runtime.personality)
        ));
    }
    out.push_str("\nfault plan:\n");
    out.push_str(&result.plan.to_json());
    out.push('\n');
    if !result.swarm_kinds.is_empty() {
        let kinds: Vec<&str> = result.swarm_kinds.iter().map(|kind| kind.name()).collect();
        out.push_str(&format!("swarm enabled: {}\n", kinds.join(", ")));
    }
    out.push_str(&format!(
        "\nverdict: {} ({} simulated ms, {})\n",
        match result.verdict {
            Verdict::Holds => "holds",
            Verdict::Violated => "VIOLATED",
        },
        result.elapsed_ms,
        if result.converged {
            "converged"
        } else {
            "did not converge"
        }
    ));
    for violation in &result.violations {
        out.push_str(&format!(
            "  {} at {} ms (job {}, task {}): {}\n",
            violation.invariant,
            violation.at_ms,
            violation.job,
            violation.task.as_deref().unwrap_or("-"),
            violation.detail
        ));
    }
    for fault in &result.peer_faults {
        out.push_str(&format!(
            "  the peer's doing, not held against the consumer: {} (job {}, task {}): the peer {}; the consumer {}\n",
            fault.invariant,
            fault.job,
            fault.task.as_deref().unwrap_or("-"),
            fault.peer,
            fault.consumer
        ));
    }
    out.push_str(&format!("trace_hash: {}\n", result.trace_hash));
    out
}

/// A personality as the file that reproduces it.
pub fn personality_file(personality: &Personality) -> String {
    serde_json::to_string_pretty(personality)
        .unwrap_or_else(|error| format!("(the personality cannot be written: {error})"))
}

fn timeline_line(line: &TraceLine) -> String {
    let micros = line.t_us;
    let host = &line.host;
    let kind = line.target.rsplit("::").next().unwrap_or(&line.target);
    format!(
        "{:>6}.{:03} ms  {host:<9} {kind:<8}{}\n",
        micros / 1000,
        micros % 1000,
        line.fields_text
    )
}
