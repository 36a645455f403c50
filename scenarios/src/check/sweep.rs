//! Many check runs: every (runtime, scenario, dialect, seed), each `repeat` times, up to
//! `jobs` at once (each run on its own loopback ports), results handed over in order.

use super::faults::Strike;
use super::program::{self, Program};
use super::run::{CheckResult, CheckSpec, CheckVerdict, check};
use crate::run_spec::RuntimeChoice;
use crate::scenario::Scenario;
use futures_util::StreamExt;
use meshsim_protocol::Dialect;
use meshsim_sim::Seed;
use serde::Serialize;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Hears each fault as it strikes, with the run it struck in.
pub type AnnounceRun = Arc<dyn Fn(&CheckSpec, &Strike) + Send + Sync>;

/// What to check.
#[derive(Debug, Clone)]
pub struct CheckSweep {
    pub runtimes: Vec<RuntimeChoice>,
    pub scenarios: Vec<Scenario>,
    pub dialects: Vec<Dialect>,
    pub seeds: Range<u64>,
    /// How often each run is made (2: say when a seed's verdicts differ).
    pub repeat: u32,
    /// Runs at once.
    pub jobs: usize,
    pub program: Program,
    pub name: String,
    pub bound: Duration,
    /// Whether each scenario's faults are struck (false: `--no-faults`).
    pub strike_faults: bool,
    pub workdir: PathBuf,
}

/// Why a sweep ended without its tally.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SweepStopped {
    /// It could not start (its work directory, its async runtime).
    #[error("{0}")]
    Setup(String),
    /// It was stopped (by a signal, named) before its runs ended; every program still
    /// running was killed with its process group.
    #[error("stopped by {0}: every program still running was killed with its process group")]
    Stopped(&'static str),
}

/// The outcome of a sweep.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckTally {
    pub runs: usize,
    pub holds: usize,
    pub violated: usize,
    pub report_invalid: usize,
    pub program_failed: usize,
    /// Runs that could not be set up (no loopback port, no runtime), with why.
    pub errors: Vec<String>,
    /// The runs (by rerun command) whose repetitions gave different verdicts or struck
    /// different faults.
    pub unstable: Vec<String>,
    pub runs_per_sec: f64,
    /// Per (scenario, runtime, dialect): (runs, held, problems by name with counts).
    #[serde(skip)]
    pub cells: BTreeMap<(String, String, String), CheckCell>,
}

/// The verdicts of one (scenario, runtime, dialect) over its seeds.
#[derive(Debug, Clone, Default)]
pub struct CheckCell {
    pub runs: usize,
    pub held: usize,
    /// Invariants violated and contract breaches, with how many runs showed each.
    pub problems: BTreeMap<String, usize>,
}

impl CheckTally {
    /// Whether every run held and no repetition disagreed.
    pub fn all_hold(&self) -> bool {
        self.runs > 0
            && self.holds == self.runs
            && self.errors.is_empty()
            && self.unstable.is_empty()
    }

    fn add(&mut self, result: &CheckResult) {
        self.runs += 1;
        match result.verdict {
            CheckVerdict::Holds => self.holds += 1,
            CheckVerdict::Violated => self.violated += 1,
            CheckVerdict::ReportInvalid => self.report_invalid += 1,
            CheckVerdict::ProgramFailed => self.program_failed += 1,
        }
        let spec = &result.spec;
        let cell = self
            .cells
            .entry((
                spec.scenario.to_string(),
                spec.runtime.label.clone(),
                spec.dialect.to_string(),
            ))
            .or_default();
        cell.runs += 1;
        if result.verdict == CheckVerdict::Holds {
            cell.held += 1;
        }
        let mut names: Vec<String> = result
            .violations
            .iter()
            .map(|violation| violation.invariant.to_string())
            .collect();
        if !matches!(result.verdict, CheckVerdict::Holds | CheckVerdict::Violated) {
            names.push(result.verdict.name().to_string());
        }
        names.sort();
        names.dedup();
        for name in names {
            *cell.problems.entry(name).or_default() += 1;
        }
    }
}

impl CheckSweep {
    /// How many runs [`CheckSweep::specs`] makes.
    pub fn run_count(&self) -> usize {
        let seeds =
            usize::try_from(self.seeds.end.saturating_sub(self.seeds.start)).unwrap_or(usize::MAX);
        [
            self.runtimes.len(),
            self.scenarios.len(),
            self.dialects.len(),
            seeds,
            self.repeat.max(1) as usize,
        ]
        .into_iter()
        .fold(1, usize::saturating_mul)
    }

    /// Every run, in order: runtime, scenario, dialect, seed, repetition. A `swarm` runtime
    /// draws each seed's personality here, as the simulation's sweep does, so seed N of a
    /// check meets the runtime seed N of `meshsim sweep --runtime swarm` meets.
    pub fn specs(&self) -> Vec<CheckSpec> {
        let mut specs = Vec::new();
        for runtime in &self.runtimes {
            for scenario in &self.scenarios {
                for dialect in &self.dialects {
                    for seed in self.seeds.clone() {
                        for repetition in 0..self.repeat.max(1) {
                            specs.push(CheckSpec {
                                seed: Seed::new(seed),
                                scenario: *scenario,
                                runtime: runtime.for_seed(Seed::new(seed)),
                                dialect: *dialect,
                                program: self.program.clone(),
                                name: self.name.clone(),
                                bound: self.bound,
                                strike_faults: self.strike_faults,
                                repetition,
                                repeat: self.repeat.max(1),
                                workdir: self.workdir.clone(),
                            });
                        }
                    }
                }
            }
        }
        specs
    }

    /// Runs every check, `jobs` at once, handing each result to `each` in order;
    /// `announce` hears faults as they strike. If `stop` resolves first (with why: a
    /// signal's name), every program still running is killed with its process group and
    /// the sweep ends with an error saying so.
    pub fn run(
        &self,
        announce: Option<AnnounceRun>,
        stop: impl Future<Output = &'static str>,
        mut each: impl FnMut(&CheckResult),
    ) -> Result<CheckTally, SweepStopped> {
        std::fs::create_dir_all(&self.workdir).map_err(|error| {
            SweepStopped::Setup(format!("cannot create {}: {error}", self.workdir.display()))
        })?;
        let executor = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|error| {
                SweepStopped::Setup(format!("cannot start the async runtime: {error}"))
            })?;
        let specs = self.specs();
        let started = Instant::now(); // wall-clock-ok: runs per second of real runs
        let mut tally = CheckTally::default();
        let mut previous: Option<CheckResult> = None;
        let stopped = executor.block_on(async {
            let mut results = futures_util::stream::iter(specs.iter())
                .map(|spec| {
                    let announce = announce.clone().map(|announce| {
                        let run = spec.clone();
                        Arc::new(move |strike: &Strike| announce(&run, strike))
                            as super::proxy::Announce
                    });
                    async move { (spec, check(spec, announce).await) }
                })
                .buffered(self.jobs.max(1));
            let mut stop = std::pin::pin!(stop);
            while let Some((spec, result)) = tokio::select! {
                biased;
                why = &mut stop => return Some(why),
                next = results.next() => next,
            } {
                let result = match result {
                    Ok(result) => result,
                    Err(error) => {
                        tally
                            .errors
                            .push(format!("{}: {error}", spec.rerun_command()));
                        continue;
                    }
                };
                tally.add(&result);
                each(&result);
                if let Some(earlier) = &previous
                    && result.spec.repetition > 0
                    && (earlier.verdict != result.verdict || earlier.strikes != result.strikes)
                {
                    let rerun = result.spec.rerun_command();
                    if !tally.unstable.contains(&rerun) {
                        tally.unstable.push(rerun);
                    }
                }
                if result.verdict == CheckVerdict::Holds {
                    result.forget_files();
                }
                previous = Some(result);
            }
            None
        });
        if let Some(why) = stopped {
            program::kill_every_program();
            executor.shutdown_background();
            return Err(SweepStopped::Stopped(why));
        }
        executor.shutdown_background();
        tally.runs_per_sec = tally.runs as f64 / started.elapsed().as_secs_f64().max(1e-9);
        Ok(tally)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_count_is_the_number_of_runs_specs_makes() {
        let runtime = |name| RuntimeChoice::resolve(name).expect("a built-in");
        let sweep = CheckSweep {
            runtimes: vec![runtime("python-correct"), runtime("swarm")],
            scenarios: vec![Scenario::OriginIncident, Scenario::SidecarCut],
            dialects: vec![Dialect::V1_0, Dialect::V0_3, Dialect::V0_1],
            seeds: 5..9,
            repeat: 2,
            jobs: 1,
            program: Program {
                command: "true".into(),
                args: Vec::new(),
            },
            name: "true".into(),
            bound: Duration::from_secs(1),
            strike_faults: true,
            workdir: PathBuf::from("/nonexistent"),
        };
        assert_eq!(sweep.run_count(), 2 * 2 * 3 * 4 * 2);
        assert_eq!(sweep.run_count(), sweep.specs().len());
    }
}
