//! The run matrix: runtime × consumer × dialect × scenario × seed, swept on several threads.
//! This is the public test API too: a user's `#[test]` puts its own consumer through the
//! matrix in a few lines.
//!
//! ```no_run
//! use meshsim_scenarios::{ConsumerChoice, Matrix};
//! # fn my_consumer(connector: meshsim_sim::TurmoilConnector, seed: u64)
//! #     -> Box<dyn meshsim_consumer::Consumer> {
//! #     Box::new(meshsim_consumer::ReconcilingConsumer::new(connector, Default::default(), seed))
//! # }
//! let consumer = ConsumerChoice::custom("mine", my_consumer);
//! Matrix::for_consumer(consumer).seeds(0..20).run().assert_expectations();
//! ```

use crate::consumer_choice::ConsumerChoice;
use crate::expectation::{Expect, meets, rule_for};
use crate::run::{
    DEFAULT_TICK, Faults, RunOptions, RunResult, RunSpec, RuntimeChoice, Verdict, run,
};
use crate::scenario::Scenario;
use meshsim_protocol::Dialect;
use meshsim_runtimes::BUILTIN_NAMES;
use meshsim_sim::Seed;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// One combination of the matrix, run over every seed.
#[derive(Debug, Clone)]
pub struct Cell {
    pub scenario: Scenario,
    pub runtime: RuntimeChoice,
    pub consumer: ConsumerChoice,
    pub dialect: Dialect,
    pub faults: Faults,
}

impl Cell {
    /// The run of this cell for `seed`, stepped every `tick`.
    pub fn spec(&self, seed: u64, tick: Duration) -> RunSpec {
        RunSpec {
            seed: Seed::new(seed),
            scenario: self.scenario,
            runtime: self.runtime.clone(),
            consumer: self.consumer.clone(),
            dialect: self.dialect,
            faults: self.faults.clone(),
            job_limit: None,
            tick,
        }
    }
}

/// A set of cells and seeds to sweep.
#[derive(Debug, Clone)]
pub struct Matrix {
    pub cells: Vec<Cell>,
    pub seeds: Range<u64>,
    pub threads: usize,
    /// Simulated time per step of every run.
    pub tick: Duration,
}

/// How many seeds each cell of the default matrix runs.
pub const DEFAULT_SEEDS: u64 = 3;

impl Matrix {
    /// The embedded matrix `meshsim` runs with no arguments: every built-in runtime,
    /// both built-in consumers, every dialect and scenario under swarm faults, and the
    /// seed's incident without faults (where the naive consumer's divergences are declared).
    pub fn default_matrix() -> Self {
        Self::of(
            &[ConsumerChoice::Naive, ConsumerChoice::Reconciling],
            &builtin_runtimes(),
            &Scenario::ALL,
            &Dialect::ALL,
            true,
        )
    }

    /// Every built-in runtime, dialect and scenario for one consumer (e.g. a user's own).
    pub fn for_consumer(consumer: ConsumerChoice) -> Self {
        Self::of(
            &[consumer],
            &builtin_runtimes(),
            &Scenario::ALL,
            &Dialect::ALL,
            true,
        )
    }

    /// The cross product, with swarm faults (and, when `incident_without_faults`, the
    /// seed's incident once more without them).
    pub fn of(
        consumers: &[ConsumerChoice],
        runtimes: &[RuntimeChoice],
        scenarios: &[Scenario],
        dialects: &[Dialect],
        incident_without_faults: bool,
    ) -> Self {
        let mut cells = Vec::new();
        for scenario in scenarios {
            let mut modes = Vec::new();
            if incident_without_faults && *scenario == Scenario::SeedIncident {
                modes.push(Faults::None);
            }
            modes.push(Faults::Swarm);
            for faults in modes {
                for runtime in runtimes {
                    for consumer in consumers {
                        for dialect in dialects {
                            cells.push(Cell {
                                scenario: *scenario,
                                runtime: runtime.clone(),
                                consumer: consumer.clone(),
                                dialect: *dialect,
                                faults: faults.clone(),
                            });
                        }
                    }
                }
            }
        }
        Matrix {
            cells,
            seeds: 0..DEFAULT_SEEDS,
            threads: default_threads(),
            tick: DEFAULT_TICK,
        }
    }

    /// Sweeps these seeds.
    pub fn seeds(mut self, seeds: Range<u64>) -> Self {
        self.seeds = seeds;
        self
    }

    /// With every run stepped every `tick` (default [`DEFAULT_TICK`]).
    pub fn tick(mut self, tick: Duration) -> Self {
        self.tick = tick;
        self
    }

    /// On this many threads (one simulation per thread).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Every run, seed-major (all cells of one seed, then the next), so that a shard of
    /// the seed range is a contiguous block of the full sweep.
    pub fn specs(&self) -> impl Iterator<Item = RunSpec> + '_ {
        self.seeds.clone().flat_map(move |seed| {
            self.cells
                .iter()
                .map(move |cell| cell.spec(seed, self.tick))
        })
    }

    /// How many runs the sweep makes.
    pub fn len(&self) -> usize {
        let seeds =
            usize::try_from(self.seeds.end.saturating_sub(self.seeds.start)).unwrap_or(usize::MAX);
        seeds.saturating_mul(self.cells.len())
    }

    /// Whether the sweep makes no run at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs the sweep, calling `each` with every result in sweep order (whatever the
    /// number of threads), and returns the tally. Passing runs are not kept.
    pub fn run_with(&self, mut each: impl FnMut(&RunResult, Expect, bool)) -> Tally {
        // Each run's spec is made when a thread takes it (a spec holds a whole personality:
        // collecting 100,000 of them up front took 75 MB), in the order of `specs()`.
        let total = self.len();
        let spec_at = |index: usize| {
            let seed = self.seeds.start + (index / self.cells.len()) as u64;
            self.cells[index % self.cells.len()].spec(seed, self.tick)
        };
        let next = AtomicUsize::new(0);
        let (sender, receiver) = mpsc::channel::<(usize, Result<RunResult, String>)>();
        let mut tally = Tally::default();
        let errors = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..self.threads.min(total).max(1) {
                let sender = sender.clone();
                let (spec_at, next) = (&spec_at, &next);
                scope.spawn(move || {
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= total {
                            break;
                        }
                        let result = run_caught(&spec_at(index));
                        if sender.send((index, result)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(sender);
            let mut pending = BTreeMap::new();
            let mut expected_index = 0;
            for (index, result) in receiver {
                pending.insert(index, result);
                while let Some(result) = pending.remove(&expected_index) {
                    match result {
                        Ok(result) => {
                            let rule = rule_for(&result.spec);
                            let matched = meets(rule.expect, &result);
                            tally.add(&result, rule.expect, matched);
                            each(&result, rule.expect, matched);
                        }
                        Err(error) => errors
                            .lock()
                            .unwrap_or_else(|poisoned| poisoned.into_inner())
                            .push(format!(
                                "{}: {error}",
                                spec_at(expected_index).replay_command(None)
                            )),
                    }
                    expected_index += 1;
                }
            }
        });
        tally.errors = errors
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        tally
    }

    /// Runs the sweep and keeps the results that did not meet their expectation.
    pub fn run(&self) -> SweepOutcome {
        let mut mismatches = Vec::new();
        let tally = self.run_with(|result, expect, matched| {
            if !matched {
                mismatches.push((result.clone(), expect));
            }
        });
        SweepOutcome { tally, mismatches }
    }
}

/// Counts per cell and overall.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub runs: usize,
    pub holds: usize,
    pub violated: usize,
    pub mismatched: usize,
    /// Runs the harness could not carry out (not verdicts).
    pub errors: Vec<String>,
    /// Per cell: (holds, violated, mismatched, expectation).
    pub cells: BTreeMap<CellKey, CellTally>,
}

/// What identifies a cell in a tally.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CellKey {
    pub scenario: Scenario,
    pub faults: &'static str,
    pub runtime: String,
    pub consumer: String,
    pub dialect: Dialect,
}

/// One cell's counts.
#[derive(Debug, Clone, Copy, Default)]
pub struct CellTally {
    pub holds: usize,
    pub violated: usize,
    pub mismatched: usize,
    pub expect: Option<Expect>,
}

impl Tally {
    fn add(&mut self, result: &RunResult, expect: Expect, matched: bool) {
        let key = CellKey {
            scenario: result.spec.scenario,
            faults: result.spec.faults.name(),
            runtime: result.spec.runtime.label.clone(),
            consumer: result.spec.consumer.name().to_string(),
            dialect: result.spec.dialect,
        };
        self.count(key, result.verdict, expect, matched);
    }

    /// Counts one run of the cell `key` (how `meshsim merge` tallies runs it reads back
    /// from shard outputs instead of running them).
    pub fn count(&mut self, key: CellKey, verdict: Verdict, expect: Expect, matched: bool) {
        self.runs += 1;
        let cell = self.cells.entry(key).or_default();
        cell.expect = Some(expect);
        match verdict {
            Verdict::Holds => {
                self.holds += 1;
                cell.holds += 1;
            }
            Verdict::Violated => {
                self.violated += 1;
                cell.violated += 1;
            }
        }
        if !matched {
            self.mismatched += 1;
            cell.mismatched += 1;
        }
    }

    /// Whether every run met its expectation and every run could be carried out.
    pub fn all_expected(&self) -> bool {
        self.mismatched == 0 && self.errors.is_empty()
    }
}

/// A finished sweep: the tally and every run that did not meet its expectation.
#[derive(Debug)]
pub struct SweepOutcome {
    pub tally: Tally,
    pub mismatches: Vec<(RunResult, Expect)>,
}

impl SweepOutcome {
    /// Panics, listing each mismatch with its violations and replay command, unless every
    /// run met its expectation.
    pub fn assert_expectations(&self) {
        if self.tally.all_expected() {
            return;
        }
        let mut message = format!(
            "{} of {} runs did not meet their expectation\n",
            self.mismatches.len(),
            self.tally.runs
        );
        for (result, expect) in self.mismatches.iter().take(20) {
            message.push_str(&format!("- expected {expect:?}, got {:?}", result.verdict));
            for violation in &result.violations {
                message.push_str(&format!(
                    "\n    {} (job {}, task {}, at {} ms): {}",
                    violation.invariant,
                    violation.job,
                    violation.task.as_deref().unwrap_or("-"),
                    violation.at_ms,
                    violation.detail
                ));
            }
            message.push_str(&format!(
                "\n    replay: {}\n",
                result.spec.replay_command(None)
            ));
        }
        for error in &self.tally.errors {
            message.push_str(&format!("- harness error: {error}\n"));
        }
        panic!("{message}");
    }
}

/// Every built-in runtime.
pub fn builtin_runtimes() -> Vec<RuntimeChoice> {
    BUILTIN_NAMES
        .iter()
        .filter_map(|name| RuntimeChoice::resolve(name).ok())
        .collect()
}

/// The machine's parallelism, or one thread.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs one spec; a run that panics (a bug in a runtime, a consumer or the harness) becomes
/// that run's error instead of taking the whole sweep down with it.
fn run_caught(spec: &RunSpec) -> Result<RunResult, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run(spec, &RunOptions::default())
    }))
    .map_err(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|text| text.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a non-string panic".to_string());
        format!("the run panicked: {message}")
    })?
    .map_err(|error| error.to_string())
}
