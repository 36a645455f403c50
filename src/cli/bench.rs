//! `meshsim bench [--quick] [--json] [--memory-seeds N]`: what a sweep costs, measured on the
//! origin incident with the reconciling consumer (see `meshsim_scenarios::throughput`):
//! (a) simulated seeds per second under swarm faults on one thread, (b) the same scenario
//! over real loopback TCP against the simulated run, (c) the protocol floor, timed in rounds
//! beside (a) (each ratio the median of its rounds, shown with their least and greatest),
//! and the `--jobs 2` over `--jobs 1` sweep throughput. Every simulated figure is measured
//! with idle fast-forward and with fixed steps side by side, and their ratio reported, and
//! every figure is timed by the thread's CPU time (the headline: a busy machine does not move
//! it) and by the wall clock, each labelled. With `--memory-seeds N`, also the peak RSS of a
//! child `meshsim sweep` of 1,000 seeds and of N seeds.

use crate::cli::output;
use crate::cli::selection::{DEFAULT_TICK_MS, tick_ms};
use clap::Args;
use meshsim_scenarios::throughput::stopwatch::Clock;
use meshsim_scenarios::throughput::{self, Budget, DIALECT, Figures, Stepping};
use serde_json::json;
use std::io::Write;
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Small samples: finishes in under a minute on two cores.
    #[arg(long)]
    quick: bool,
    /// One JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// Also sweep 1,000 and this many seeds in child processes and compare their peak RSS.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    memory_seeds: Option<u64>,
    /// Simulated milliseconds per step of the simulated runs (1 to 20), to
    /// see what a finer or coarser step costs.
    #[arg(long = "tick-ms", value_name = "MS", value_parser = tick_ms, default_value = DEFAULT_TICK_MS)]
    tick: Duration,
}

/// The targets the figures are held to (release build, one core).
const TARGET_SEEDS_PER_SEC: f64 = 1000.0;
const TARGET_SPEEDUP: f64 = 1000.0;
const TARGET_COST_OVER_FLOOR: f64 = 5.0;

pub fn run(args: BenchArgs) -> ExitCode {
    let budget = if args.quick {
        Budget::QUICK
    } else {
        Budget::FULL
    };
    let figures =
        match throughput::measure(budget, args.tick, |step| eprintln!("meshsim bench: {step}")) {
            Ok(figures) => figures,
            Err(error) => {
                eprintln!("meshsim bench: {error}");
                return ExitCode::FAILURE;
            }
        };
    let memory = match args.memory_seeds.map(|seeds| memory(seeds, args.tick)) {
        None => None,
        Some(Ok(memory)) => Some(memory),
        Some(Err(error)) => {
            eprintln!("meshsim bench: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = output::stdout();
    if args.json {
        let mut value = serde_json::to_value(&figures).unwrap_or_default();
        value["targets"] = json!({
            "seeds_per_sec": TARGET_SEEDS_PER_SEC,
            "speedup_vs_real": TARGET_SPEEDUP,
            "cost_over_floor": TARGET_COST_OVER_FLOOR,
        });
        if let Some(memory) = &memory {
            value["memory"] = json!({
                "seeds_small": memory.small.0,
                "peak_rss_kb_small": memory.small.1,
                "seeds_large": memory.large.0,
                "peak_rss_kb_large": memory.large.1,
                "ratio": memory.ratio(),
            });
        }
        let _ = writeln!(out, "{value}");
    } else {
        let _ = write!(out, "{}", table(&figures, args.quick));
        if let Some(memory) = &memory {
            let _ = writeln!(
                out,
                "memory: peak RSS {} KB sweeping {} seeds, {} KB sweeping {} seeds (x{:.2})",
                memory.small.1,
                memory.small.0,
                memory.large.1,
                memory.large.0,
                memory.ratio()
            );
        }
    }
    ExitCode::SUCCESS
}

fn table(figures: &Figures, quick: bool) -> String {
    let mut out = format!(
        "meshsim bench{}: the origin incident, reconciling consumer, {DIALECT}, {} ms steps, {} cores\n\n",
        if quick { " --quick" } else { "" },
        figures.tick_ms,
        figures.cores
    );
    out.push_str("(a) simulated, swarm faults, one thread; cpu = the thread's CPU time\n");
    out.push_str(
        "    personality      stepping        runs  holds  seeds/s cpu  seeds/s wall  simulated ms/run  steps/run  cpu ms/run  wall ms/run\n",
    );
    for sample in &figures.simulated {
        let per_run = |clock| sample.ms(clock) / sample.runs.max(1) as f64;
        out.push_str(&format!(
            "    {:<16} {:<12} {:>7} {:>6} {:>12.1} {:>13.1} {:>17.0} {:>10.1} {:>11.2} {:>12.2}\n",
            sample.personality,
            stepping_name(sample.stepping),
            sample.runs,
            sample.holds,
            sample.seeds_per_sec(Clock::ThreadCpu),
            sample.seeds_per_sec(Clock::Wall),
            sample.simulated_ms as f64 / sample.runs.max(1) as f64,
            sample.steps as f64 / sample.runs.max(1) as f64,
            per_run(Clock::ThreadCpu),
            per_run(Clock::Wall),
        ));
    }
    out.push_str(
        "\n(b) real loopback TCP (wall clock) vs the same seed simulated (no faults), per clock\n",
    );
    out.push_str(
        "    personality      seed  completed  real ms  simulated ms  clock       sim ms  speedup  fixed ms  fixed speedup\n",
    );
    for run in &figures.real {
        for clock in Clock::BOTH {
            let beside = run.by(clock);
            out.push_str(&format!(
                "    {:<16} {:>4} {:>10} {:>8.0} {:>13.0}  {:<10} {:>7.2} {:>8.0} {:>9.2} {:>14.0}\n",
                run.real.personality,
                run.real.seed,
                run.real.completed,
                run.real.wall_ms,
                run.simulated_time_ms,
                clock.name(),
                beside.simulated_ms,
                beside.speedup,
                beside.fixed_ms,
                beside.fixed_speedup,
            ));
        }
    }
    let rounds = figures
        .floor
        .first()
        .map_or(0, |sample| sample.thread_cpu.rounds.len());
    out.push_str(&format!(
        "\n(c) protocol floor: the run's taped exchange through codec, SSE and ledger, per clock;\n    \
         medians of {rounds} rounds, each timed right after the same seeds' (a) batches; a ratio with its rounds' (least-greatest)\n"
    ));
    out.push_str(
        "    personality        runs  exchanges/run  clock       floor us/run  simulated us/run         cost/floor  fixed us/run   fixed cost/floor\n",
    );
    for sample in &figures.floor {
        for clock in Clock::BOTH {
            let cost = sample.by(clock);
            out.push_str(&format!(
                "    {:<16} {:>6} {:>14.1}  {:<10} {:>13.1} {:>17.0} {:>18} {:>13.0} {:>18}\n",
                sample.personality,
                sample.runs,
                sample.exchanges_per_run,
                clock.name(),
                cost.floor_us_per_run,
                cost.simulated_us_per_run,
                with_spread(
                    cost.cost_over_floor,
                    cost.cost_over_floor_min,
                    cost.cost_over_floor_max
                ),
                cost.fixed_us_per_run,
                with_spread(
                    cost.fixed_cost_over_floor,
                    cost.fixed_cost_over_floor_min,
                    cost.fixed_cost_over_floor_max
                ),
            ));
        }
    }
    if let Some(scaling) = &figures.scaling {
        out.push_str(&format!(
            "\nsweep of {} runs (wall clock): --jobs 1 {:.1} seeds/s, --jobs 2 {:.1} seeds/s: x{:.2}\n",
            scaling.runs, scaling.jobs_1_seeds_per_sec, scaling.jobs_2_seeds_per_sec, scaling.ratio
        ));
    }
    let (cpu, wall) = (&figures.thread_cpu, &figures.wall);
    let row = |name: &str, of: fn(&throughput::Headline) -> f64, digits: usize, target: &str| {
        format!(
            "{name:<16}{:>12.digits$} {:>12.digits$} {:>12.digits$} {:>12.digits$}  ({target})\n",
            of(&cpu.fast_forward),
            of(&cpu.fixed_steps),
            of(&wall.fast_forward),
            of(&wall.fixed_steps),
        )
    };
    out.push_str("\n                 thread CPU time           wall clock\n");
    out.push_str("                fast-forward  fixed steps fast-forward  fixed steps\n");
    out.push_str(&row(
        "seeds_per_sec",
        |h| h.seeds_per_sec,
        1,
        &format!("target >= {TARGET_SEEDS_PER_SEC}"),
    ));
    out.push_str(&row(
        "speedup_vs_real",
        |h| h.speedup_vs_real,
        0,
        &format!("target >= {TARGET_SPEEDUP}"),
    ));
    out.push_str(&row(
        "cost_over_floor",
        |h| h.cost_over_floor,
        1,
        &format!("target <= {TARGET_COST_OVER_FLOOR}"),
    ));
    out.push_str(&format!(
        "fast-forward / fixed steps: x{:.2} seeds per second of CPU time, x{:.2} of wall time\n",
        cpu.fast_forward_over_fixed, wall.fast_forward_over_fixed,
    ));
    out
}

/// A ratio with the least and the greatest of the rounds it is the median of: `8.1 (7.4-8.9)`.
fn with_spread(median: f64, least: f64, greatest: f64) -> String {
    format!("{median:.1} ({least:.1}-{greatest:.1})")
}

fn stepping_name(stepping: Stepping) -> &'static str {
    match stepping {
        Stepping::FastForward => "fast-forward",
        Stepping::Fixed => "fixed",
    }
}

/// Peak RSS of two child sweeps: (seeds, KB).
struct Memory {
    small: (u64, u64),
    large: (u64, u64),
}

impl Memory {
    fn ratio(&self) -> f64 {
        self.large.1 as f64 / self.small.1.max(1) as f64
    }
}

const MEMORY_BASELINE_SEEDS: u64 = 1000;

fn memory(seeds: u64, tick: Duration) -> Result<Memory, String> {
    Ok(Memory {
        small: (
            MEMORY_BASELINE_SEEDS,
            peak_rss_of_sweep(MEMORY_BASELINE_SEEDS, tick)?,
        ),
        large: (seeds, peak_rss_of_sweep(seeds, tick)?),
    })
}

/// Runs `meshsim sweep` of the incident (go-replaying, swarm faults, steps of `tick`) over
/// `seeds` seeds in a child process, its JSON lines discarded, and samples the child's `VmHWM` (peak resident
/// set) from /proc until it exits.
fn peak_rss_of_sweep(seeds: u64, tick: Duration) -> Result<u64, String> {
    let exe = std::env::current_exe().map_err(|error| format!("cannot find meshsim: {error}"))?;
    eprintln!("meshsim bench: peak RSS of a {seeds}-seed sweep");
    let mut child = Command::new(exe)
        .args([
            "sweep",
            "--scenario",
            "origin-incident",
            "--consumer",
            "reconciling",
        ])
        .args([
            "--runtime",
            "go-replaying",
            "--faults",
            "swarm",
            "--dialect",
        ])
        .arg(DIALECT.name())
        .args(["--seeds", &seeds.to_string(), "--json"])
        .args(["--tick-ms", &tick.as_millis().to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| format!("cannot start meshsim sweep: {error}"))?;
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Some(kb) = std::fs::read_to_string(&status_file)
            .ok()
            .and_then(|status| vm_hwm_kb(&status))
        {
            peak = peak.max(kb);
        }
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(error) => return Err(format!("waiting for meshsim sweep: {error}")),
        }
    }
    if peak == 0 {
        return Err("could not read the child's VmHWM from /proc".to_string());
    }
    Ok(peak)
}

/// The `VmHWM:` line of a /proc status file, in KB.
fn vm_hwm_kb(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::{vm_hwm_kb, with_spread};

    #[test]
    fn reads_the_peak_resident_set_from_a_status_file() {
        let status = "Name:\tmeshsim\nVmPeak:\t  20000 kB\nVmHWM:\t    7496 kB\nVmRSS:\t 7000 kB\n";
        assert_eq!(vm_hwm_kb(status), Some(7496));
        assert_eq!(vm_hwm_kb("Name:\tmeshsim\n"), None);
    }

    #[test]
    fn a_ratio_is_shown_with_the_spread_of_its_rounds() {
        assert_eq!(with_spread(8.04, 7.391, 8.55), "8.0 (7.4-8.6)");
    }
}
