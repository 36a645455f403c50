//! The [`Tally`] of a sweep: runs, verdicts and expectations met, overall and per cell.

use crate::expectation::Expect;
use crate::run::{RunResult, Verdict};
use crate::scenario::Scenario;
use meshsim_protocol::Dialect;
use std::collections::BTreeMap;

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
    pub(crate) fn add(&mut self, result: &RunResult, expect: Expect, matched: bool) {
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

    /// Adds `other`'s counts to these.
    pub(crate) fn merge(&mut self, other: Tally) {
        self.runs += other.runs;
        self.holds += other.holds;
        self.violated += other.violated;
        self.mismatched += other.mismatched;
        self.errors.extend(other.errors);
        for (key, cell) in other.cells {
            let mine = self.cells.entry(key).or_default();
            mine.holds += cell.holds;
            mine.violated += cell.violated;
            mine.mismatched += cell.mismatched;
            mine.expect = cell.expect.or(mine.expect);
        }
    }

    /// Whether every run met its expectation and every run could be carried out.
    pub fn all_expected(&self) -> bool {
        self.mismatched == 0 && self.errors.is_empty()
    }
}
