//! Runs many specs on several threads and hands back their results in spec order, so that a
//! sweep's output does not depend on the number of threads.

use crate::expectation::{Expect, rule_for};
use crate::run::{RunOptions, RunResult, run};
use crate::run_spec::RunSpec;
use crate::stall_watch::StallWatch;
use crate::tally::Tally;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};

/// The machine's parallelism, or one thread.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `total` specs (the `index`th made by `spec_at` when a thread takes it) on
/// `threads` threads, every step one by one if `fixed_steps` (see
/// [`RunOptions::fixed_steps`]), calling `each` in index order, and tallies them; `watch`
/// says which runs seem stuck while they are.
pub(crate) fn sweep_specs(
    total: usize,
    spec_at: impl Fn(usize) -> RunSpec + Sync,
    threads: usize,
    fixed_steps: bool,
    watch: &StallWatch,
    mut each: impl FnMut(&RunResult, Expect, bool),
) -> Tally {
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel::<(usize, Result<RunResult, String>)>();
    let mut tally = Tally::default();
    let errors = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.min(total).max(1) {
            let sender = sender.clone();
            let (spec_at, next) = (&spec_at, &next);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= total {
                        break;
                    }
                    watch.started(index);
                    let result = run_caught(&spec_at(index), fixed_steps);
                    watch.ended(index);
                    if sender.send((index, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut pending = BTreeMap::new();
        let mut expected_index = 0;
        loop {
            let (index, result) = match receiver.recv_timeout(watch.check_every()) {
                Ok(received) => received,
                Err(RecvTimeoutError::Timeout) => {
                    watch.check(&spec_at);
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            };
            pending.insert(index, result);
            while let Some(result) = pending.remove(&expected_index) {
                match result {
                    Ok(result) => {
                        let rule = rule_for(&result.spec);
                        let matched = rule.expect.is_met_by(&result);
                        tally.add(&result, rule.expect, matched);
                        each(&result, rule.expect, matched);
                    }
                    Err(error) => errors
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner())
                        .push(format!(
                            "{}: {error}",
                            spec_at(expected_index).replay_command()
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

/// Runs one spec; a run that panics (a bug in a runtime, a consumer or the harness) becomes
/// that run's error instead of taking the whole sweep down with it.
fn run_caught(spec: &RunSpec, fixed_steps: bool) -> Result<RunResult, String> {
    let options = RunOptions {
        fixed_steps,
        ..RunOptions::default()
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(spec, &options)))
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
