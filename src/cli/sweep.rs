//! `meshsim sweep` (and `meshsim` with no arguments): runs the matrix of runtime ×
//! consumer × dialect × scenario over a range of seeds on several threads, with a progress
//! bar, and prints the verdict table, or with `--json` one JSON line per run and a summary
//! line, each carrying the sweep's identity (see `identity`); with `--runtime swarm` the
//! summary also says which knob values the drawn personalities covered. `--shard I/N|auto`
//! runs one slice of the seeds, for `meshsim merge` to join with the others. Exit status 0
//! exactly when every run met its declared expectation. With `--timelines DIR`, every run
//! that violated an invariant or missed its expectation is run again with its trace kept
//! and drawn as an HTML timeline in DIR. Under the table, the runs that missed their
//! expectation are listed by their replay lines.

use crate::cli::cautions::{self, Cautions};
use crate::cli::identity::SweepIdentity;
use crate::cli::output;
use crate::cli::progress;
use crate::cli::replay::write_timeline;
use crate::cli::scheduler::ShardChoice;
use crate::cli::selection::{FaultMode, SeedRange, tick_ms};
use crate::cli::shard::Shard;
use crate::cli::swarm_coverage::SwarmCoverage;
use crate::cli::sweep_output::{finish, run_line};
use clap::Args;
use meshsim_protocol::Dialect;
use meshsim_scenarios::{
    ConsumerChoice, DEFAULT_TICK, Matrix, RunOptions, RunResult, RuntimeChoice, Scenario, Verdict,
};
use meshsim_scenarios::{
    DEFAULT_SEEDS, builtin_runtimes, default_threads, file_safe, label_in_file_name,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, Args, Default)]
pub struct SweepArgs {
    /// Only these scenarios (repeat the flag; default: all).
    #[arg(long)]
    scenario: Vec<Scenario>,
    /// Only these runtimes: built-in names, personality files, or `swarm` (each seed draws
    /// a whole personality from the knob space) (default: every built-in).
    #[arg(long)]
    runtime: Vec<String>,
    /// Only these consumers: naive, reconciling (default: both).
    #[arg(long)]
    consumer: Vec<String>,
    /// Only these dialects (default: all three).
    #[arg(long)]
    dialect: Vec<Dialect>,
    /// Seeds 0..N for every cell.
    #[arg(long, conflicts_with = "seed_range")]
    seeds: Option<u64>,
    /// Seeds A..B (A inclusive, B exclusive) for every cell.
    #[arg(long)]
    seed_range: Option<SeedRange>,
    /// `none` or `swarm`; default: swarm everywhere, and the origin incident once more
    /// without faults (where the naive consumer's divergences are declared).
    #[arg(long)]
    faults: Option<FaultMode>,
    /// Threads, one simulation each (default: the machine's cores).
    #[arg(long, value_parser = at_least_one)]
    jobs: Option<usize>,
    /// Run only shard I of N (counting from 0): a contiguous slice of the seed range, so
    /// that the shards' `--json` outputs concatenate into the full sweep, and `meshsim
    /// merge` joins them into its verdict. `auto` takes I and N from a scheduler's
    /// environment: a Slurm job array (SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN/MAX
    /// or SLURM_ARRAY_TASK_COUNT), a Kubernetes Indexed Job (JOB_COMPLETION_INDEX with
    /// JOB_COMPLETIONS, which the manifest sets to the Job's completions), GitLab CI's
    /// `parallel` (CI_NODE_INDEX from 1, CI_NODE_TOTAL), or MESHSIM_SHARD_INDEX with
    /// MESHSIM_SHARD_COUNT (any other CI matrix).
    #[arg(long)]
    shard: Option<ShardChoice>,
    /// Simulated milliseconds per step (1 to 20; default 1). Shorter steps deliver messages
    /// closer to their latency; longer ones cost less but coarsen the network.
    #[arg(long = "tick-ms", value_name = "MS", value_parser = tick_ms)]
    tick: Option<Duration>,
    /// Take every step one by one, also where nothing is due (idle fast-forward off). The
    /// traces are the same, byte for byte, at several times the cost: compare the
    /// `trace_hash` of each `--json` line with and without it (`steps` counts the steps).
    #[arg(long)]
    fixed_steps: bool,
    /// One JSON line per run, then a summary line, instead of the table.
    #[arg(long)]
    json: bool,
    /// Draw the timeline of every run that violated an invariant or missed its
    /// expectation as an HTML page in this directory (created if missing).
    #[arg(long, value_name = "DIR")]
    timelines: Option<PathBuf>,
}

pub fn run(args: SweepArgs) -> ExitCode {
    if let Some(dir) = &args.timelines
        && let Err(error) = std::fs::create_dir_all(dir)
    {
        eprintln!(
            "meshsim sweep: cannot create the timelines directory {}: {error}",
            dir.display()
        );
        return ExitCode::from(2);
    }
    match matrix(&args) {
        Ok((matrix, identity, cautions)) => sweep(
            &matrix,
            &identity,
            &cautions,
            args.json,
            args.timelines.as_deref(),
        ),
        Err(problem) => {
            eprintln!("meshsim sweep: {problem}");
            ExitCode::from(2)
        }
    }
}

/// The sweep the arguments name (its shard's slice of the seeds), its identity, and the
/// cautions said of its runtimes.
fn matrix(args: &SweepArgs) -> Result<(Matrix, SweepIdentity, Cautions), String> {
    let runtimes = if args.runtime.is_empty() {
        builtin_runtimes()
    } else {
        args.runtime
            .iter()
            .map(|name| RuntimeChoice::resolve(name))
            .collect::<Result<_, _>>()?
    };
    let cautions = cautions::say("sweep", &runtimes);
    let consumers = if args.consumer.is_empty() {
        vec![ConsumerChoice::Naive, ConsumerChoice::Reconciling]
    } else {
        args.consumer
            .iter()
            .map(|name| ConsumerChoice::builtin(name))
            .collect::<Result<_, _>>()?
    };
    let scenarios = if args.scenario.is_empty() {
        Scenario::ALL.to_vec()
    } else {
        args.scenario.clone()
    };
    let dialects = if args.dialect.is_empty() {
        Dialect::ALL.to_vec()
    } else {
        args.dialect.clone()
    };
    let mut matrix = Matrix::for_consumers(consumers)
        .runtimes(runtimes)
        .scenarios(scenarios)
        .dialects(dialects);
    if let Some(mode) = args.faults {
        matrix = matrix.faults([mode.faults()]);
    }
    let seeds = match (&args.seed_range, args.seeds) {
        (Some(SeedRange(range)), _) => range.clone(),
        (None, Some(0)) => return Err("--seeds must be at least 1".to_string()),
        (None, Some(count)) => 0..count,
        (None, None) => 0..DEFAULT_SEEDS,
    };
    let shard = match args.shard {
        Some(choice) => choice.resolve(|name| std::env::var(name).ok())?,
        None => Shard::WHOLE,
    };
    let tick = args.tick.unwrap_or(DEFAULT_TICK);
    let identity = SweepIdentity::of(&matrix.cells(), tick, seeds.clone(), shard);
    let matrix = matrix
        .seeds(shard.slice(seeds))
        .tick(tick)
        .fixed_steps(args.fixed_steps)
        .threads(args.jobs.unwrap_or_else(default_threads));
    Ok((matrix, identity, cautions))
}

fn sweep(
    matrix: &Matrix,
    identity: &SweepIdentity,
    cautions: &Cautions,
    json: bool,
    timelines: Option<&Path>,
) -> ExitCode {
    let progress = progress::runs_bar(matrix.len());
    let mut out = output::stdout();
    let mut missed = Vec::new();
    let mut coverage = SwarmCoverage::default();
    let tally = matrix.run_with(|result, expect, matched| {
        progress.inc(1);
        coverage.add(&result.spec.runtime, result.spec.seed);
        if !matched {
            missed.push(result.spec.replay_command());
            progress.set_message(format!("{} mismatched", missed.len()));
        }
        if json {
            let _ = writeln!(out, "{}", run_line(result, expect, matched, identity));
        }
        if let Some(dir) = timelines
            && (!matched || result.verdict == Verdict::Violated)
            && let Err(problem) = draw_again(result, dir)
        {
            progress.suspend(|| eprintln!("meshsim sweep: {problem}"));
        }
    });
    progress.finish_and_clear();
    let status = finish(
        &mut out,
        &tally,
        json,
        identity,
        coverage.summary(),
        cautions.clone(),
    );
    if !json && !missed.is_empty() {
        let _ = write!(out, "{}", missed_list(&missed));
    }
    status
}

/// How many runs that missed their expectation the table lists (`--json` has every one).
const LISTED_MISSES: usize = 20;

/// The replay lines of the runs that missed their expectation, VOPR style: each names
/// every option of its run, and a swarm seed draws its personality and faults again.
fn missed_list(missed: &[String]) -> String {
    let mut out = String::from(
        "runs that missed their expectation (each line replays one exactly; a swarm seed \
         draws its personality and faults again):\n",
    );
    for command in missed.iter().take(LISTED_MISSES) {
        out.push_str(&format!("  {command}\n"));
    }
    if missed.len() > LISTED_MISSES {
        out.push_str(&format!(
            "  and {} more (`--json` gives every one)\n",
            missed.len() - LISTED_MISSES
        ));
    }
    out
}

/// Runs `result`'s spec again keeping the trace (sweeps keep none) and writes its
/// timeline into `dir`, named after the run.
fn draw_again(result: &RunResult, dir: &Path) -> Result<(), String> {
    let options = RunOptions {
        keep_trace: true,
        ..RunOptions::default()
    };
    let again = meshsim_scenarios::run(&result.spec, &options).map_err(|error| {
        format!(
            "{}: the run could not be repeated for its timeline: {error}",
            result.spec.replay_command()
        )
    })?;
    if again.trace_hash != result.trace_hash {
        return Err(format!(
            "{}: the repeated run's trace hash differs ({} vs {}); no timeline drawn",
            result.spec.replay_command(),
            again.trace_hash,
            result.trace_hash
        ));
    }
    write_timeline(&again, &dir.join(timeline_name(result)))
}

/// `<scenario>-<faults>-<runtime>-<consumer>-<dialect>-seed<N>.html`, file-safe, the
/// runtime's label as [`label_in_file_name`] writes it (two paths written alike do not
/// share a page).
fn timeline_name(result: &RunResult) -> String {
    let spec = &result.spec;
    let name = format!(
        "{}-{}-{}-{}-{}-seed{}",
        spec.scenario,
        spec.faults.name(),
        label_in_file_name(&spec.runtime.label),
        spec.consumer.name(),
        spec.dialect,
        spec.seed.value()
    );
    format!("{}.html", file_safe(&name))
}

/// `meshsim` with no arguments: the default sweep of the embedded matrix.
pub fn run_default() -> ExitCode {
    run(SweepArgs::default())
}

/// `--jobs`: a thread count, at least 1.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("at least one thread is needed".to_string()),
        Ok(jobs) => Ok(jobs),
        Err(error) => Err(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `meshsim` with no arguments builds its arguments with `Default`, not clap, so clap's
    /// defaults do not apply there.
    #[test]
    fn the_default_sweep_steps_at_the_default_tick() {
        let (matrix, identity, _) = matrix(&SweepArgs::default()).expect("the default matrix");
        assert_eq!(matrix.step(), DEFAULT_TICK);
        assert_eq!(identity.shard, Shard::WHOLE);
        assert_eq!(matrix.seed_range(), 0..DEFAULT_SEEDS);
    }
}
