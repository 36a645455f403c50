//! (a) Simulated runs of the origin incident, one after another on the calling thread, and
//! the same runs taped for the protocol floor.

use super::floor::Script;
use super::stopwatch::{Clock, Elapsed, Stopwatch};
use super::tape::{Tapes, TapingConnector};
use super::workload::{DIALECT, Stepping, incident};
use crate::consumer_choice::{ConsumerChoice, sim_client};
use crate::run::{RunOptions, RunResult, Verdict, run};
use crate::run_spec::{Faults, RunSpec};
use meshsim_consumer::{ReconcilingConfig, ReconcilingConsumer};
use serde::Serialize;
use std::ops::Range;
use std::time::Duration;

/// A batch of simulated runs of one personality.
#[derive(Debug, Clone, Serialize)]
pub struct SimulatedSample {
    pub personality: String,
    pub faults: &'static str,
    pub stepping: Stepping,
    pub runs: u64,
    /// Runs whose every invariant held.
    pub holds: u64,
    pub wall_ms: f64,
    /// The calling thread's CPU time over the runs (they run entirely on it).
    pub thread_cpu_ms: f64,
    /// Simulated time summed over the runs.
    pub simulated_ms: u64,
    /// Simulation steps summed over the runs: fast-forward takes a stretch of idle steps as
    /// one, so this is where the two ways of stepping differ.
    pub steps: u64,
}

impl SimulatedSample {
    /// The time the runs took by `clock`, in milliseconds.
    pub fn ms(&self, clock: Clock) -> f64 {
        match clock {
            Clock::ThreadCpu => self.thread_cpu_ms,
            Clock::Wall => self.wall_ms,
        }
    }

    /// Runs per second of `clock`.
    pub fn seeds_per_sec(&self, clock: Clock) -> f64 {
        let ms = self.ms(clock);
        if ms > 0.0 {
            self.runs as f64 * 1000.0 / ms
        } else {
            0.0
        }
    }

    /// Time per run by `clock`.
    pub fn per_run(&self, clock: Clock) -> Duration {
        Duration::from_secs_f64(self.ms(clock) / 1000.0 / self.runs.max(1) as f64)
    }
}

/// One simulated run of the incident (untimed): its result.
pub fn run_incident(
    personality: &str,
    seed: u64,
    faults: Faults,
    tick: Duration,
    stepping: Stepping,
) -> Result<RunResult, String> {
    let spec = incident(personality, seed, faults, tick)?;
    run(&spec, &stepping.options()).map_err(|error| error.to_string())
}

/// Untimed runs before each timed batch: the first runs on a thread pay for what the rest
/// reuse (each personality's routes are built once per thread, the allocator's pages, the
/// caches), and a batch measured right after the real runs of (b) starts from caches that
/// a second of sleeping left cold. Without them the first batch measured reads slow.
const WARM_UP_RUNS: usize = 20;

/// Runs the incident for every seed of `seeds`, `rounds` times over, and times it all by
/// both clocks, after 20 untimed runs of the same seeds (`WARM_UP_RUNS`).
pub fn simulate(
    personality: &str,
    seeds: Range<u64>,
    faults: Faults,
    rounds: u32,
    tick: Duration,
    stepping: Stepping,
) -> Result<SimulatedSample, String> {
    let mut batch = Batch::new(personality, seeds, faults, tick, stepping)?;
    batch.warm_up()?;
    for _ in 0..rounds.max(1) {
        batch.time()?;
    }
    Ok(batch.into_sample())
}

/// The runs of one personality's seeds, stepped one way, timed batch after batch into one
/// sample: every timed batch adds its runs and its time to it.
pub struct Batch {
    specs: Vec<RunSpec>,
    options: RunOptions,
    sample: SimulatedSample,
}

impl Batch {
    /// The runs of the incident for every seed of `seeds`, none timed yet.
    pub fn new(
        personality: &str,
        seeds: Range<u64>,
        faults: Faults,
        tick: Duration,
        stepping: Stepping,
    ) -> Result<Batch, String> {
        let specs = seeds
            .map(|seed| incident(personality, seed, faults.clone(), tick))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Batch {
            specs,
            options: stepping.options(),
            sample: SimulatedSample {
                personality: personality.to_string(),
                faults: faults.name(),
                stepping,
                runs: 0,
                holds: 0,
                wall_ms: 0.0,
                thread_cpu_ms: 0.0,
                simulated_ms: 0,
                steps: 0,
            },
        })
    }

    /// The untimed runs (`WARM_UP_RUNS`) a timed batch wants before it.
    pub fn warm_up(&self) -> Result<(), String> {
        for spec in self.specs.iter().cycle().take(WARM_UP_RUNS) {
            run(spec, &self.options).map_err(|error| error.to_string())?;
        }
        Ok(())
    }

    /// Runs every seed once, timed by both clocks, adds it all to the sample, and returns
    /// the time it took.
    pub fn time(&mut self) -> Result<Elapsed, String> {
        let stopwatch = Stopwatch::start();
        for spec in &self.specs {
            let result = run(spec, &self.options).map_err(|error| error.to_string())?;
            self.sample.runs += 1;
            self.sample.holds += u64::from(result.verdict == Verdict::Holds);
            self.sample.simulated_ms += result.elapsed_ms;
            self.sample.steps += result.steps;
        }
        let elapsed = stopwatch.elapsed();
        self.sample.wall_ms += elapsed.wall.as_secs_f64() * 1000.0;
        self.sample.thread_cpu_ms += elapsed.thread_cpu.as_secs_f64() * 1000.0;
        Ok(elapsed)
    }

    /// Every batch timed so far, as one sample.
    pub fn into_sample(self) -> SimulatedSample {
        self.sample
    }
}

/// Runs the incident for `seed` with the reconciling consumer's connections taped, and
/// decodes what they carried. Also returns the run's trace hash (taping changes nothing,
/// so it equals the untaped run's).
pub fn tape_incident(
    personality: &str,
    seed: u64,
    faults: Faults,
    tick: Duration,
) -> Result<(Script, String), String> {
    let tapes = Tapes::default();
    let mut spec = incident(personality, seed, faults, tick)?;
    let shared = tapes.clone();
    spec.consumer = ConsumerChoice::custom("reconciling", move |connector, seed| {
        let config = ReconcilingConfig {
            client: sim_client(),
            ..ReconcilingConfig::default()
        };
        let connector = TapingConnector::new(connector, shared.clone());
        Box::new(ReconcilingConsumer::new(connector, config, seed))
    });
    let result = run(&spec, &RunOptions::default()).map_err(|error| error.to_string())?;
    Ok((
        Script::from_tapes(DIALECT, &tapes.snapshot()),
        result.trace_hash,
    ))
}
