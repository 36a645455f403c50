//! [`Matrix::run`]: the sweep as a test runs it, narrowed by the environment, with the
//! runs remembered from earlier failures first.

use crate::matrix::Matrix;
use crate::parallel_sweep::sweep_specs;
use crate::regressions::Regressions;
use crate::run_spec::RunSpec;
use crate::stall_watch::StallWatch;
use crate::sweep_outcome::SweepOutcome;
use crate::test_caller::TestCaller;
use crate::test_env::TestEnv;

impl Matrix {
    /// Runs the sweep as a test does, and keeps the results that did not meet their
    /// expectation. The environment narrows or widens it ([`TestEnv`]: `MESHSIM_SEED`,
    /// `MESHSIM_SEEDS`, `MESHSIM_RUNTIME`, `MESHSIM_SCENARIO`, `MESHSIM_DIALECT`,
    /// `MESHSIM_FAULTS`); the runs remembered in the regressions file beside the calling
    /// test run first, unless the environment names a single seed (a rerun line runs its
    /// one run and nothing else), and a failing run is added to it (`crate::regressions`).
    #[track_caller]
    pub fn run(&self) -> SweepOutcome {
        let caller = TestCaller::here(std::panic::Location::caller());
        let env = match TestEnv::from_env() {
            Ok(env) => env,
            Err(problem) => return SweepOutcome::refused(problem, caller),
        };
        let runs_remembered = runs_remembered(&env);
        let narrowed = match env.apply(self.clone()) {
            Ok(narrowed) => narrowed,
            Err(problem) => return SweepOutcome::refused(problem, caller),
        };
        let remembered = if runs_remembered {
            Regressions::load(&caller).specs_in(&caller, &narrowed)
        } else {
            Vec::new()
        };
        let mut mismatches = Vec::new();
        let name_run = |spec: &RunSpec| caller.rerun_line(spec);
        let watch = StallWatch::on_stderr(&name_run);
        let mut tally = sweep_specs(
            remembered.len(),
            |index| remembered[index].clone(),
            narrowed.thread_count(),
            narrowed.takes_fixed_steps(),
            &watch,
            |result, expect, matched| {
                if !matched {
                    mismatches.push((result.clone(), expect));
                }
            },
        );
        let swept = narrowed.run_watched(&watch, |result, expect, matched| {
            if !matched {
                mismatches.push((result.clone(), expect));
            }
        });
        tally.merge(swept);
        drop(watch);
        SweepOutcome::new(tally, mismatches, caller)
    }
}

/// Whether the runs remembered in the regressions file run too: not when the environment
/// names a single seed, as a rerun line does, which asks for its one run.
fn runs_remembered(env: &TestEnv) -> bool {
    env.seeds
        .as_ref()
        .is_none_or(|seeds| seeds.end.saturating_sub(seeds.start) != 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rerun_lines_single_seed_runs_alone_and_a_range_keeps_the_remembered_runs() {
        let env = |name: &str, value: &str| {
            TestEnv::from_lookup(|asked| (asked == name).then(|| value.to_string())).unwrap()
        };
        assert!(!runs_remembered(&env("MESHSIM_SEED", "7")));
        assert!(!runs_remembered(&env("MESHSIM_SEEDS", "7..8")));
        assert!(runs_remembered(&env("MESHSIM_SEEDS", "0..50")));
        assert!(runs_remembered(&env("MESHSIM_RUNTIME", "go-replaying")));
    }
}
