//! `meshsim check ... -- COMMAND [ARGS...]`: runs a consumer program written in any
//! language once per (runtime, scenario, dialect, seed) against the scenario's runtimes on
//! real loopback TCP, with the scenario's faults struck by a proxy at points of the
//! exchange, and judges each run with the simulation's oracle (docs/check.md). Prints a
//! verdict table, or with `--json` one JSON line per run and a summary line; exit 0
//! exactly when every run held, 1 when one did not, 2 on bad usage.

use crate::cli::cautions::{self, Cautions};
use crate::cli::check_table;
use crate::cli::output;
use crate::cli::progress;
use crate::cli::replay::personality_file;
use crate::cli::selection::SeedRange;
use crate::cli::stop_signal;
use crate::cli::swarm_coverage::{SwarmCoverage, coverage_line};
use clap::Args;
use meshsim_protocol::Dialect;
use meshsim_scenarios::check::AnnounceRun;
use meshsim_scenarios::check::{
    CheckResult, CheckSweep, CheckTally, CheckVerdict, Exchange, Program, SweepStopped, timeline,
};
use meshsim_scenarios::{CoverageSummary, RuntimeChoice, Scenario, without_repeats};
use meshsim_scenarios::{DEFAULT_SEEDS, default_threads};
use serde_json::json;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// The runtimes checked when none is named: the origin incident's three.
const ORIGIN_RUNTIMES: [&str; 3] = ["python-correct", "go-replaying", "jvm-reaping"];

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Runtimes to check against: built-in names, personality files, or `swarm` (each seed
    /// draws a whole personality, the one `meshsim sweep --runtime swarm` draws for that
    /// seed; a run that does not hold keeps it as a file). Repeat the flag; default:
    /// python-correct, go-replaying, jvm-reaping.
    #[arg(long)]
    runtime: Vec<String>,
    /// Scenarios (repeat the flag; default: all). Their faults are struck by the proxy
    /// as triggers on the exchange (docs/check.md).
    #[arg(long)]
    scenario: Vec<Scenario>,
    /// Dialects the runtimes speak (repeat the flag; default: v1.0).
    #[arg(long)]
    dialect: Vec<Dialect>,
    /// Seeds 0..N for every (runtime, scenario, dialect).
    #[arg(long, conflicts_with = "seed_range")]
    seeds: Option<u64>,
    /// Seeds A..B (A inclusive, B exclusive).
    #[arg(long)]
    seed_range: Option<SeedRange>,
    /// Strike none of the scenarios' faults: each scenario's jobs against a runtime that
    /// nothing disturbs (a first look at a consumer, before its faults).
    #[arg(long)]
    no_faults: bool,
    /// Run each seed this many times; with 2, say when its verdicts or faults differ.
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u32).range(1..=10))]
    repeat: u32,
    /// Runs at once, each on its own loopback ports (default: the machine's cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    jobs: Option<u32>,
    /// Kill a program (and its process group) still running after this many seconds.
    #[arg(long, default_value = "60", value_parser = clap::value_parser!(u64).range(1..=3600))]
    timeout_secs: u64,
    /// The consumer's name in reports (default: the program's script or command name).
    #[arg(long)]
    name: Option<String>,
    /// Where programs write reports and logs (default: a directory under the system's
    /// temporary directory, removed at the end when every run held). Files of runs that
    /// held are removed; a run that did not hold names its files.
    #[arg(long, value_name = "DIR")]
    workdir: Option<PathBuf>,
    /// One JSON line per run, then a summary line, instead of the table.
    #[arg(long)]
    json: bool,
    /// Draw every run that did not hold as an HTML page in this directory (created if
    /// missing): the faults, every call the proxy relayed, and per task the runtime's
    /// record beside what the program reported.
    #[arg(long, value_name = "DIR")]
    timelines: Option<PathBuf>,
    /// The consumer program and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<String>,
}

pub fn run(args: CheckArgs) -> ExitCode {
    let (sweep, cautions) = match sweep(&args) {
        Ok(sweep) => sweep,
        Err(problem) => {
            eprintln!("meshsim check: {problem}");
            return ExitCode::from(2);
        }
    };
    if let Some(dir) = &args.timelines
        && let Err(error) = std::fs::create_dir_all(dir)
    {
        eprintln!(
            "meshsim check: cannot create the timelines directory {}: {error}",
            dir.display()
        );
        return ExitCode::from(2);
    }
    let json = args.json;
    let progress = progress::runs_bar(sweep.run_count());
    let bar = progress.clone();
    let announce: AnnounceRun = Arc::new(move |spec, strike| {
        bar.suspend(|| {
            eprintln!(
                "fault struck: {} seed {} {} ({}): {strike}",
                spec.scenario,
                spec.seed.value(),
                spec.runtime.label,
                spec.dialect
            )
        });
    });
    let mut out = output::stdout();
    let mut coverage = SwarmCoverage::default();
    let mut not_held = 0;
    let tally = sweep.run(Some(announce), stop_signal::signal(), |result| {
        progress.inc(1);
        if result.verdict != CheckVerdict::Holds {
            not_held += 1;
            progress.set_message(format!("{not_held} did not hold"));
        }
        coverage.add(&result.spec.runtime, result.spec.seed);
        progress.suspend(|| {
            let personality_file = keep_drawn_personality(result);
            if json {
                let _ = writeln!(out, "{}", run_json(result, personality_file.as_deref()));
            } else if result.verdict != CheckVerdict::Holds {
                let _ = write!(out, "{}", run_text(result, personality_file.as_deref()));
            }
            if let Some(dir) = &args.timelines
                && result.verdict != CheckVerdict::Holds
            {
                let path = dir.join(format!("{}.html", result.spec.stem()));
                if let Err(error) = std::fs::write(&path, timeline::render(result)) {
                    eprintln!("meshsim check: cannot write {}: {error}", path.display());
                }
            }
        });
    });
    progress.finish_and_clear();
    let tally = match tally {
        Ok(tally) => tally,
        Err(stopped) => {
            eprintln!("meshsim check: {stopped}");
            return match stopped {
                SweepStopped::Setup(_) => ExitCode::from(2),
                SweepStopped::Stopped(_) => ExitCode::FAILURE,
            };
        }
    };
    let coverage = coverage.summary();
    if json {
        let _ = writeln!(out, "{}", summary_json(&tally, &sweep, coverage, &cautions));
    } else {
        let _ = write!(out, "{}", check_table::render(&tally, &sweep.dialects));
        if let Some(summary) = &coverage {
            let _ = writeln!(out, "{}", coverage_line(summary));
        }
        if !sweep.strike_faults {
            let _ = writeln!(out, "no faults were struck (--no-faults)");
        }
    }
    // A work directory check chose itself goes when it holds nothing; when it keeps the
    // files of runs that did not hold, say where.
    if args.workdir.is_none()
        && sweep.workdir.exists()
        && std::fs::remove_dir(&sweep.workdir).is_err()
    {
        eprintln!(
            "meshsim check: the reports and output of the runs that did not hold are in {}",
            sweep.workdir.display()
        );
    }
    if tally.all_hold() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// A directory of check's own under `temp` (the system's temporary directory), made here:
/// one that exists already (another run's, or a link someone left at the name) is never
/// used.
fn fresh_workdir(temp: &Path) -> Result<PathBuf, String> {
    for attempt in 0..100 {
        let dir = temp.join(format!("meshsim-check-{}-{attempt}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(format!("cannot create {}: {error}", dir.display())),
        }
    }
    Err(format!(
        "no fresh work directory under {}: meshsim-check-{}-0 to -99 all exist",
        temp.display(),
        std::process::id()
    ))
}

/// The check the arguments name, and the cautions said of its runtimes.
fn sweep(args: &CheckArgs) -> Result<(CheckSweep, Cautions), String> {
    let runtimes = if args.runtime.is_empty() {
        ORIGIN_RUNTIMES
            .iter()
            .map(|name| RuntimeChoice::resolve(name))
            .collect()
    } else {
        args.runtime
            .iter()
            .map(|name| RuntimeChoice::resolve(name))
            .collect::<Result<Vec<_>, _>>()
    }?;
    // A runtime, scenario or dialect named twice is checked once: twin runs would also
    // share their report files.
    let runtimes = without_repeats(runtimes, |runtime| runtime.label.clone());
    let cautions = cautions::say("check", &runtimes);
    let scenarios = if args.scenario.is_empty() {
        Scenario::ALL.to_vec()
    } else {
        without_repeats(args.scenario.clone(), |scenario| *scenario)
    };
    let dialects = if args.dialect.is_empty() {
        vec![Dialect::V1_0]
    } else {
        without_repeats(args.dialect.clone(), |dialect| *dialect)
    };
    let seeds = match (&args.seed_range, args.seeds) {
        (Some(SeedRange(range)), _) => range.clone(),
        (None, Some(0)) => return Err("--seeds must be at least 1".to_string()),
        (None, Some(count)) => 0..count,
        (None, None) => 0..DEFAULT_SEEDS,
    };
    let (command, rest) = args
        .command
        .split_first()
        .ok_or("no program to check: put it after `--`")?;
    let program = Program {
        command: command.clone(),
        args: rest.to_vec(),
    };
    let workdir = match &args.workdir {
        Some(workdir) => workdir.clone(),
        None => fresh_workdir(&std::env::temp_dir())?,
    };
    let sweep = CheckSweep {
        runtimes,
        scenarios,
        dialects,
        seeds,
        repeat: args.repeat,
        jobs: args.jobs.map_or_else(default_threads, |jobs| jobs as usize),
        name: args.name.clone().unwrap_or_else(|| program.name()),
        program,
        bound: Duration::from_secs(args.timeout_secs),
        strike_faults: !args.no_faults,
        workdir,
    };
    Ok((sweep, cautions))
}

/// Writes the personality a `swarm` run drew beside its programs' files when the run did
/// not hold: the file `--runtime FILE` checks again, and the first thing a reader looks at.
fn keep_drawn_personality(result: &CheckResult) -> Option<PathBuf> {
    let spec = &result.spec;
    if !spec.runtime.drawn || result.verdict == CheckVerdict::Holds {
        return None;
    }
    let path = spec
        .workdir
        .join(format!("{}-personality.json", spec.stem()));
    match std::fs::write(&path, personality_file(&spec.runtime.personality) + "\n") {
        Ok(()) => Some(path),
        Err(error) => {
            eprintln!("meshsim check: cannot write {}: {error}", path.display());
            None
        }
    }
}

/// One run as a JSON object.
fn run_json(result: &CheckResult, personality_file: Option<&Path>) -> serde_json::Value {
    let spec = &result.spec;
    json!({
        "seed": spec.seed.value(),
        "scenario": spec.scenario,
        "runtime": spec.runtime.label,
        "personality": spec.runtime.personality.name,
        "personality_file": personality_file,
        "dialect": spec.dialect,
        "consumer": spec.name,
        "repetition": spec.repetition,
        "verdict": result.verdict.name(),
        "violations": result.violations,
        "refusals": result
            .refused()
            .map(|exchange| json!({"call": exchange.call_line(), "error": exchange.refusal}))
            .collect::<Vec<_>>(),
        "programs": result.jobs,
        "no_faults": !spec.strike_faults,
        "faults": result.strikes,
        "elapsed_ms": result.elapsed_ms,
        "timers_late_ms": result.timers_late_ms,
        "rerun": spec.rerun_command(),
    })
}

/// A run's refused calls, each with how many later ones met the same refusal of the same
/// route in the same job, in the order each first was.
fn refusals_grouped(result: &CheckResult) -> Vec<(&Exchange, usize)> {
    let mut groups: Vec<(&Exchange, usize)> = Vec::new();
    for exchange in result.refused() {
        let same = |first: &&Exchange| {
            (&first.job, &first.method, &first.path, &first.refusal)
                == (
                    &exchange.job,
                    &exchange.method,
                    &exchange.path,
                    &exchange.refusal,
                )
        };
        match groups.iter_mut().find(|(first, _)| same(first)) {
            Some((_, alike)) => *alike += 1,
            None => groups.push((exchange, 0)),
        }
    }
    groups
}

/// A run that did not hold, in words.
fn run_text(result: &CheckResult, personality_file: Option<&Path>) -> String {
    let spec = &result.spec;
    let mut text = format!(
        "{} seed {} {} {} ({}): {}\n",
        spec.name,
        spec.seed.value(),
        spec.scenario,
        spec.runtime.label,
        spec.dialect,
        result.verdict.name().to_uppercase()
    );
    for strike in &result.strikes {
        let _ = writeln!(text, "   fault: {strike}");
    }
    for problem in result.problems() {
        let _ = writeln!(text, "   {problem}");
    }
    for (first, alike) in refusals_grouped(result) {
        let more = match alike {
            0 => String::new(),
            n => format!(" (and {n} more alike)"),
        };
        let error = first.refusal.as_deref().unwrap_or_default();
        let _ = writeln!(text, "   refused: {}{more}: {error}", first.call_line());
    }
    let _ = writeln!(text, "   {}", result.machine_line());
    if let Some(path) = personality_file {
        let _ = writeln!(
            text,
            "   its personality, drawn from the seed: {} (`--runtime` takes the file)",
            path.display()
        );
    }
    let _ = writeln!(
        text,
        "   its programs' reports and output: {}",
        spec.workdir.join(format!("{}-*", spec.stem())).display()
    );
    let _ = writeln!(text, "   rerun: {}", spec.rerun_command());
    text
}

/// The summary line; with `--runtime swarm`, the knob values the drawn personalities covered,
/// and the cautions said of the runtimes (as `sweep --json` gives them).
fn summary_json(
    tally: &CheckTally,
    sweep: &CheckSweep,
    coverage: Option<CoverageSummary>,
    cautions: &Cautions,
) -> serde_json::Value {
    let mut summary = json!({
        "runs": tally.runs,
        "holds": tally.holds,
        "violated": tally.violated,
        "report_invalid": tally.report_invalid,
        "program_failed": tally.program_failed,
        "errors": tally.errors,
        "unstable": tally.unstable,
        "runs_per_sec": (tally.runs_per_sec * 100.0).round() / 100.0,
        "seeds": [sweep.seeds.start, sweep.seeds.end],
        "repeat": sweep.repeat,
        "no_faults": !sweep.strike_faults,
    });
    if let Some(coverage) = coverage {
        summary["coverage"] = json!(coverage);
    }
    cautions::add_to(&mut summary, cautions);
    json!({ "summary": summary })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_work_directory_is_made_fresh_never_one_that_exists_or_a_link() {
        let temp = std::env::temp_dir().join(format!("meshsim-fresh-{}", std::process::id()));
        let elsewhere = temp.join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let first = temp.join(format!("meshsim-check-{}-0", std::process::id()));
        std::os::unix::fs::symlink(&elsewhere, &first).unwrap();
        let made = fresh_workdir(&temp).unwrap();
        assert_eq!(
            made,
            temp.join(format!("meshsim-check-{}-1", std::process::id()))
        );
        assert!(made.is_dir() && !made.is_symlink());
        std::fs::remove_dir_all(&temp).unwrap();
    }
}
