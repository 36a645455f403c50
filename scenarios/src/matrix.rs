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
use crate::expectation::Expect;
use crate::parallel_sweep::{default_threads, sweep_specs};
use crate::run::RunResult;
use crate::run_spec::DEFAULT_TICK;
use crate::run_spec::{Faults, RunSpec, RuntimeChoice};
use crate::scenario::Scenario;
use crate::stall_watch::StallWatch;
use crate::tally::Tally;
use meshsim_protocol::Dialect;
use meshsim_runtimes::BUILTIN_NAMES;
use meshsim_sim::Seed;
use std::ops::Range;
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
        let seed = Seed::new(seed);
        RunSpec {
            seed,
            scenario: self.scenario,
            runtime: self.runtime.for_seed(seed),
            consumer: self.consumer.clone(),
            dialect: self.dialect,
            faults: self.faults.clone(),
            job_limit: None,
            tick,
        }
    }
}

/// A set of cells and seeds to sweep, built with [`Matrix::for_consumer`] (or
/// [`Matrix::default_matrix`]) and narrowed by its methods. Every dimension defaults to
/// everything: every built-in runtime, scenario and dialect, swarm faults on every
/// scenario plus the origin incident without faults, seeds `0..3`.
#[derive(Debug, Clone)]
pub struct Matrix {
    consumers: Vec<ConsumerChoice>,
    runtimes: Vec<RuntimeChoice>,
    scenarios: Vec<Scenario>,
    dialects: Vec<Dialect>,
    faults: FaultModes,
    seeds: Range<u64>,
    threads: usize,
    tick: Duration,
    /// Every step taken one by one (idle fast-forward off).
    fixed_steps: bool,
    /// Runtimes that could not be resolved: reported as harness errors by a sweep.
    problems: Vec<String>,
    /// The one value of a dimension the environment narrowed it to.
    only: CellFilter,
}

/// One value per dimension to keep (`None` keeps them all).
#[derive(Debug, Clone, Default)]
struct CellFilter {
    runtime: Option<String>,
    scenario: Option<Scenario>,
    dialect: Option<Dialect>,
    faults: Option<Faults>,
}

impl CellFilter {
    fn keeps(&self, cell: &Cell) -> bool {
        self.runtime
            .as_ref()
            .is_none_or(|label| *label == cell.runtime.label)
            && self
                .scenario
                .is_none_or(|scenario| scenario == cell.scenario)
            && self.dialect.is_none_or(|dialect| dialect == cell.dialect)
            && self
                .faults
                .as_ref()
                .is_none_or(|faults| *faults == cell.faults)
    }
}

/// Which faults each scenario runs under.
#[derive(Debug, Clone)]
enum FaultModes {
    /// Swarm faults everywhere, and the origin incident once more without faults (where
    /// the naive consumer's divergences are declared).
    SwarmAndQuietIncident,
    /// Exactly these, on every scenario.
    Only(Vec<Faults>),
}

/// How many seeds each cell of the default matrix runs.
pub const DEFAULT_SEEDS: u64 = 3;

/// A runtime for [`Matrix::runtimes`]: a built-in's name, a personality file's path, or a
/// [`RuntimeChoice`] made by hand.
pub trait IntoRuntime {
    /// The runtime, or why there is none.
    fn into_runtime(self) -> Result<RuntimeChoice, String>;
}

impl IntoRuntime for RuntimeChoice {
    fn into_runtime(self) -> Result<RuntimeChoice, String> {
        Ok(self)
    }
}

impl IntoRuntime for &str {
    fn into_runtime(self) -> Result<RuntimeChoice, String> {
        RuntimeChoice::resolve(self)
    }
}

impl IntoRuntime for String {
    fn into_runtime(self) -> Result<RuntimeChoice, String> {
        RuntimeChoice::resolve(&self)
    }
}

impl Matrix {
    /// The embedded matrix `meshsim` runs with no arguments: both built-in consumers
    /// across everything.
    pub fn default_matrix() -> Self {
        Self::for_consumers([ConsumerChoice::Naive, ConsumerChoice::Reconciling])
    }

    /// One consumer (e.g. a user's own) across every built-in runtime, scenario and dialect.
    pub fn for_consumer(consumer: ConsumerChoice) -> Self {
        Self::for_consumers([consumer])
    }

    /// These consumers across every built-in runtime, scenario and dialect.
    pub fn for_consumers(consumers: impl IntoIterator<Item = ConsumerChoice>) -> Self {
        Matrix {
            consumers: without_repeats(consumers, |consumer| consumer.name().to_string()),
            runtimes: builtin_runtimes(),
            scenarios: Scenario::ALL.to_vec(),
            dialects: Dialect::ALL.to_vec(),
            faults: FaultModes::SwarmAndQuietIncident,
            seeds: 0..DEFAULT_SEEDS,
            threads: default_threads(),
            tick: DEFAULT_TICK,
            fixed_steps: false,
            problems: Vec::new(),
            only: CellFilter::default(),
        }
    }

    /// Only these runtimes: built-in names, personality files or [`RuntimeChoice`]s. A
    /// name that resolves to nothing makes the sweep fail with a harness error naming it.
    /// A runtime named twice is swept once.
    pub fn runtimes<R: IntoRuntime>(mut self, runtimes: impl IntoIterator<Item = R>) -> Self {
        let mut resolved = Vec::new();
        for runtime in runtimes {
            match runtime.into_runtime() {
                Ok(runtime) => resolved.push(runtime),
                Err(problem) => self.problems.push(problem),
            }
        }
        self.runtimes = without_repeats(resolved, |runtime| runtime.label.clone());
        self
    }

    /// Only these scenarios (each once, however often it is named).
    pub fn scenarios(mut self, scenarios: impl IntoIterator<Item = Scenario>) -> Self {
        self.scenarios = without_repeats(scenarios, |scenario| *scenario);
        self
    }

    /// Only these dialects (each once, however often it is named).
    pub fn dialects(mut self, dialects: impl IntoIterator<Item = Dialect>) -> Self {
        self.dialects = without_repeats(dialects, |dialect| *dialect);
        self
    }

    /// Every scenario under each of these fault modes (instead of the default: swarm
    /// faults everywhere plus the origin incident without faults), each once.
    pub fn faults(mut self, faults: impl IntoIterator<Item = Faults>) -> Self {
        self.faults = FaultModes::Only(without_repeats(faults, Faults::clone));
        self
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

    /// Takes every step one by one, also where nothing is due (idle fast-forward off): the
    /// same traces, byte for byte, at several times the cost. For checking exactly that.
    pub fn fixed_steps(mut self, fixed_steps: bool) -> Self {
        self.fixed_steps = fixed_steps;
        self
    }

    /// On this many threads (one simulation per thread).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Whether every step is taken one by one.
    pub(crate) fn takes_fixed_steps(&self) -> bool {
        self.fixed_steps
    }

    /// How many threads the sweep runs on.
    pub(crate) fn thread_count(&self) -> usize {
        self.threads
    }

    /// The seeds swept.
    pub fn seed_range(&self) -> Range<u64> {
        self.seeds.clone()
    }

    /// The simulated time per step of every run.
    pub fn step(&self) -> Duration {
        self.tick
    }

    /// The labels of the runtimes swept.
    pub fn runtime_labels(&self) -> Vec<String> {
        self.runtimes
            .iter()
            .map(|runtime| runtime.label.clone())
            .collect()
    }

    /// Only the cells of the runtime labelled `label`.
    pub(crate) fn only_runtime(mut self, label: &str) -> Self {
        self.only.runtime = Some(label.to_string());
        self
    }

    /// Only the cells of `scenario`.
    pub(crate) fn only_scenario(mut self, scenario: Scenario) -> Self {
        self.only.scenario = Some(scenario);
        self
    }

    /// Only the cells of `dialect`.
    pub(crate) fn only_dialect(mut self, dialect: Dialect) -> Self {
        self.only.dialect = Some(dialect);
        self
    }

    /// Only the cells under `faults`.
    pub(crate) fn only_faults(mut self, faults: &Faults) -> Self {
        self.only.faults = Some(faults.clone());
        self
    }

    /// Every cell: scenario-major, then fault mode, runtime, consumer, dialect.
    pub fn cells(&self) -> Vec<Cell> {
        let mut cells = Vec::new();
        for scenario in &self.scenarios {
            let modes = match &self.faults {
                FaultModes::SwarmAndQuietIncident if *scenario == Scenario::OriginIncident => {
                    vec![Faults::None, Faults::Swarm]
                }
                FaultModes::SwarmAndQuietIncident => vec![Faults::Swarm],
                FaultModes::Only(modes) => modes.clone(),
            };
            for faults in modes {
                for runtime in &self.runtimes {
                    for consumer in &self.consumers {
                        for dialect in &self.dialects {
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
        cells.retain(|cell| self.only.keeps(cell));
        cells
    }

    /// Every run, seed-major (all cells of one seed, then the next), so that a shard of
    /// the seed range is a contiguous block of the full sweep.
    pub fn specs(&self) -> impl Iterator<Item = RunSpec> + '_ {
        let cells = self.cells();
        self.seeds.clone().flat_map(move |seed| {
            cells
                .clone()
                .into_iter()
                .map(move |cell| cell.spec(seed, self.tick))
        })
    }

    /// How many runs the sweep makes.
    pub fn len(&self) -> usize {
        let seeds =
            usize::try_from(self.seeds.end.saturating_sub(self.seeds.start)).unwrap_or(usize::MAX);
        seeds.saturating_mul(self.cells().len())
    }

    /// Whether the sweep makes no run at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs the sweep, calling `each` with every result in sweep order (whatever the
    /// number of threads), and returns the tally. Passing runs are not kept.
    pub fn run_with(&self, each: impl FnMut(&RunResult, Expect, bool)) -> Tally {
        self.run_watched(&StallWatch::on_stderr(&RunSpec::replay_command), each)
    }

    /// [`Matrix::run_with`], with `watch` saying which runs seem stuck.
    pub(crate) fn run_watched(
        &self,
        watch: &StallWatch,
        each: impl FnMut(&RunResult, Expect, bool),
    ) -> Tally {
        // Each run's spec is made when a thread takes it (a spec holds a whole personality:
        // collecting 100,000 of them up front took 75 MB), in the order of `specs()`.
        let cells = self.cells();
        let total = if cells.is_empty() { 0 } else { self.len() };
        let spec_at = |index: usize| {
            let seed = self.seeds.start + (index / cells.len()) as u64;
            cells[index % cells.len()].spec(seed, self.tick)
        };
        let mut tally = sweep_specs(total, spec_at, self.threads, self.fixed_steps, watch, each);
        tally.errors.splice(0..0, self.problems.iter().cloned());
        tally
    }
}

/// Every built-in runtime.
pub fn builtin_runtimes() -> Vec<RuntimeChoice> {
    BUILTIN_NAMES
        .iter()
        .filter_map(|name| RuntimeChoice::resolve(name).ok())
        .collect()
}

/// `items` in their order, each kept only the first time its `key` is seen: a filter named
/// twice (`--scenario crash-bounce --scenario crash-bounce`) sweeps its cells once, in a
/// matrix and in `meshsim check`.
pub fn without_repeats<T, K: PartialEq>(
    items: impl IntoIterator<Item = T>,
    key: impl Fn(&T) -> K,
) -> Vec<T> {
    let mut kept: Vec<T> = Vec::new();
    for item in items {
        let item_key = key(&item);
        if !kept.iter().any(|seen| key(seen) == item_key) {
            kept.push(item);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_named_twice_sweeps_its_cells_once() {
        let once = Matrix::for_consumer(ConsumerChoice::Naive)
            .runtimes(["python-correct", "go-replaying"])
            .scenarios([Scenario::CrashBounce])
            .dialects([Dialect::V1_0])
            .faults([Faults::Swarm])
            .seeds(0..1);
        let twice = Matrix::for_consumers([ConsumerChoice::Naive, ConsumerChoice::Naive])
            .runtimes(["python-correct", "go-replaying", "python-correct"])
            .scenarios([Scenario::CrashBounce, Scenario::CrashBounce])
            .dialects([Dialect::V1_0, Dialect::V1_0])
            .faults([Faults::Swarm, Faults::Swarm])
            .seeds(0..1);
        assert_eq!(once.len(), 2);
        assert_eq!(twice.len(), once.len());
        assert_eq!(twice.runtime_labels(), ["python-correct", "go-replaying"]);
    }
}
