//! A finished sweep and the failure report a person can act on: a tally of the failing
//! runs by cell and invariant, then for the first few a line that reruns exactly that run
//! (with its trace and timeline page written under `target/meshsim/`), "and N more", and
//! where the failing runs were remembered.

use crate::expectation::Expect;
use crate::regressions::Regressions;
use crate::run::{RunOptions, RunResult, Verdict, run};
use crate::tally::Tally;
use crate::test_caller::TestCaller;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How many failing runs the report gives a rerun line (and files, and a regressions line).
pub const FIRST_FEW: usize = 5;

/// Whether rendering the report writes the runs' files and the regressions file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Files {
    Write,
    Leave,
}

/// A finished sweep: the tally and every run that did not meet its expectation.
#[derive(Debug)]
pub struct SweepOutcome {
    pub tally: Tally,
    pub mismatches: Vec<(RunResult, Expect)>,
    caller: TestCaller,
    /// Why the sweep did not run at all (a bad environment variable).
    refused: Option<String>,
}

impl SweepOutcome {
    pub(crate) fn new(
        tally: Tally,
        mismatches: Vec<(RunResult, Expect)>,
        caller: TestCaller,
    ) -> Self {
        SweepOutcome {
            tally,
            mismatches,
            caller,
            refused: None,
        }
    }

    pub(crate) fn refused(problem: String, caller: TestCaller) -> Self {
        SweepOutcome {
            tally: Tally::default(),
            mismatches: Vec::new(),
            caller,
            refused: Some(problem),
        }
    }

    /// Whether every run met its expectation (and the sweep could run at all).
    pub fn passed(&self) -> bool {
        self.refused.is_none() && self.tally.all_expected()
    }

    /// Unless every run met its expectation: writes the trace and timeline of the first
    /// few failing runs, remembers them in the regressions file beside the test, and
    /// panics with the failure report, which names those files.
    pub fn assert_expectations(&self) {
        if !self.passed() {
            panic!("{}", self.render(Files::Write));
        }
    }

    /// The failure report, with nothing written: the tally by cell and invariant, and the
    /// rerun line, violations and trace hash of the first few failing runs.
    pub fn report(&self) -> String {
        self.render(Files::Leave)
    }

    fn render(&self, files: Files) -> String {
        let mut out = String::new();
        let test = self.caller.test.as_deref().unwrap_or("the sweep");
        if let Some(problem) = &self.refused {
            let _ = writeln!(out, "{test}: not run: {problem}");
            return out;
        }
        let _ = writeln!(
            out,
            "{test}: {} of {} runs did not meet their expectation",
            self.mismatches.len(),
            self.tally.runs
        );
        if !self.mismatches.is_empty() {
            out.push_str("by cell (scenario / faults / runtime / dialect) and invariant:\n");
            for (cell, (runs, invariants)) in tally_by_cell(&self.mismatches) {
                let counts: Vec<String> = invariants
                    .iter()
                    .map(|(invariant, count)| format!("{invariant} {count}"))
                    .collect();
                let _ = writeln!(out, "  {cell}: {runs} runs: {}", counts.join(", "));
            }
            let _ = writeln!(
                out,
                "the first {}; each line reruns exactly that run:",
                self.mismatches.len().min(FIRST_FEW)
            );
        }
        for (result, expect) in self.mismatches.iter().take(FIRST_FEW) {
            let _ = writeln!(out, "  {}", self.caller.rerun_line(&result.spec));
            let _ = writeln!(
                out,
                "    expected {}, got {}",
                expected(*expect),
                got(result)
            );
            for violation in &result.violations {
                let _ = writeln!(
                    out,
                    "    {} (job {}, task {}, at {} ms): {}",
                    violation.invariant,
                    violation.job,
                    violation.task.as_deref().unwrap_or("-"),
                    violation.at_ms,
                    violation.detail
                );
            }
            let trace = match files {
                Files::Write => self.write_files(result),
                Files::Leave => format!("trace hash {}", result.trace_hash),
            };
            let _ = writeln!(out, "    {trace}");
        }
        if self.mismatches.len() > FIRST_FEW {
            let _ = writeln!(out, "  ... and {} more", self.mismatches.len() - FIRST_FEW);
        }
        if files == Files::Write && !self.mismatches.is_empty() {
            let mut regressions = Regressions::load(&self.caller);
            let first = self.mismatches.iter().take(FIRST_FEW);
            match regressions.remember(&self.caller, first.map(|(result, _)| &result.spec)) {
                Ok(added) => {
                    if let Some(path) = regressions.path() {
                        let _ = writeln!(
                            out,
                            "remembered {added} new run(s) in {}; they run first next time: commit the file",
                            path.display()
                        );
                    }
                }
                Err(problem) => {
                    let _ = writeln!(out, "could not remember the runs: {problem}");
                }
            }
        }
        for error in &self.tally.errors {
            let _ = writeln!(out, "harness error: {error}");
        }
        out
    }

    /// Reruns `result`'s run with its trace kept, writes the trace and the timeline page,
    /// and says where (and the trace hash, which the rerun line reproduces).
    fn write_files(&self, result: &RunResult) -> String {
        let hash = &result.trace_hash;
        let Some((trace, timeline)) = self.caller.run_files(&result.spec) else {
            return format!("trace hash {hash}");
        };
        if let Some(dir) = trace.parent()
            && let Err(error) = std::fs::create_dir_all(dir)
        {
            return format!(
                "trace hash {hash} (cannot create {}: {error})",
                dir.display()
            );
        }
        let options = RunOptions {
            keep_trace: true,
            trace_file: Some(trace.clone()),
            ..RunOptions::default()
        };
        let rerun = match run(&result.spec, &options) {
            Ok(rerun) => rerun,
            Err(error) => return format!("trace hash {hash} (the rerun failed: {error})"),
        };
        if rerun.trace_hash != *hash {
            return format!(
                "trace hash {hash}, but its rerun hashed {}: the run is not deterministic",
                rerun.trace_hash
            );
        }
        let page = crate::timeline::render(&rerun)
            .map_err(|error| error.to_string())
            .and_then(|html| std::fs::write(&timeline, html).map_err(|error| error.to_string()));
        match page {
            Ok(()) => format!(
                "trace hash {hash}; trace {}; timeline {}",
                trace.display(),
                timeline.display()
            ),
            Err(problem) => format!(
                "trace hash {hash}; trace {}; no timeline: {problem}",
                trace.display()
            ),
        }
    }
}

/// Per cell: the failing runs and, per invariant, how many of them broke it.
fn tally_by_cell(
    mismatches: &[(RunResult, Expect)],
) -> BTreeMap<String, (usize, BTreeMap<String, usize>)> {
    let mut cells: BTreeMap<String, (usize, BTreeMap<String, usize>)> = BTreeMap::new();
    for (result, expect) in mismatches {
        let spec = &result.spec;
        let key = format!(
            "{} / {} / {} / {}",
            spec.scenario,
            spec.faults.name(),
            spec.runtime.label,
            spec.dialect
        );
        let (runs, invariants) = cells.entry(key).or_default();
        *runs += 1;
        if result.violations.is_empty() {
            *invariants
                .entry(format!("held (expected {})", expected(*expect)))
                .or_default() += 1;
        }
        let mut broken: Vec<String> = result
            .violations
            .iter()
            .map(|violation| violation.invariant.to_string())
            .collect();
        broken.dedup();
        for invariant in broken {
            *invariants.entry(invariant).or_default() += 1;
        }
    }
    cells
}

fn expected(expect: Expect) -> String {
    match expect {
        Expect::Holds => "every invariant to hold".to_string(),
        Expect::Violates(invariant) => format!("a violation of {invariant}"),
        Expect::Unspecified => "anything".to_string(),
    }
}

fn got(result: &RunResult) -> &'static str {
    match result.verdict {
        Verdict::Holds => "every invariant held",
        Verdict::Violated => "violations",
    }
}
