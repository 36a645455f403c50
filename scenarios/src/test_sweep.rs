//! [`Matrix::run`]: the sweep as a test runs it, narrowed by the environment, with the
//! runs remembered from earlier failures first.

use crate::matrix::Matrix;
use crate::parallel_sweep::sweep_specs;
use crate::regressions::Regressions;
use crate::sweep_outcome::SweepOutcome;
use crate::test_caller::TestCaller;
use crate::test_env::TestEnv;

impl Matrix {
    /// Runs the sweep as a test does, and keeps the results that did not meet their
    /// expectation. The environment narrows or widens it ([`TestEnv`]: `MESHSIM_SEED`,
    /// `MESHSIM_SEEDS`, `MESHSIM_RUNTIME`, `MESHSIM_SCENARIO`, `MESHSIM_DIALECT`,
    /// `MESHSIM_FAULTS`); the runs remembered in the regressions file beside the calling
    /// test run first, and a failing run is added to it (`crate::regressions`).
    #[track_caller]
    pub fn run(&self) -> SweepOutcome {
        let caller = TestCaller::here(std::panic::Location::caller());
        let narrowed = match TestEnv::from_env().and_then(|env| env.apply(self.clone())) {
            Ok(narrowed) => narrowed,
            Err(problem) => return SweepOutcome::refused(problem, caller),
        };
        let remembered = Regressions::load(&caller).specs_in(&caller, &narrowed);
        let mut mismatches = Vec::new();
        let mut tally = sweep_specs(
            remembered.len(),
            |index| remembered[index].clone(),
            narrowed.thread_count(),
            narrowed.takes_fixed_steps(),
            |result, expect, matched| {
                if !matched {
                    mismatches.push((result.clone(), expect));
                }
            },
        );
        let swept = narrowed.run_with(|result, expect, matched| {
            if !matched {
                mismatches.push((result.clone(), expect));
            }
        });
        tally.merge(swept);
        SweepOutcome::new(tally, mismatches, caller)
    }
}
