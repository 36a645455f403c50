//! With `--runtime swarm`, which knob values the drawn personalities covered over a sweep,
//! a merge of its shards or a check (each seed's personality counted once), as a line of
//! the table and a field of the `--json` summary.

use meshsim_scenarios::{Coverage, CoverageSummary, RuntimeChoice, SWARM_RUNTIME};
use meshsim_sim::Seed;
use std::collections::BTreeSet;

/// The knob values the swarm's personalities drew, each seed's once.
#[derive(Default)]
pub struct SwarmCoverage {
    counted: BTreeSet<u64>,
    coverage: Coverage,
}

impl SwarmCoverage {
    /// Counts the personality of the run with seed `seed` against `runtime`, if drawn.
    pub fn add(&mut self, runtime: &RuntimeChoice, seed: Seed) {
        if runtime.drawn && self.counted.insert(seed.value()) {
            self.coverage.add(&runtime.personality);
        }
    }

    /// Counts the personality the swarm draws for seed `seed` if `label` is the swarm's,
    /// for a run read back from its `--json` line (`meshsim merge`): the draw depends on the
    /// seed alone, so it is the personality the sweep counted.
    pub fn add_line(&mut self, label: &str, seed: u64) {
        // A seed's runs share its personality: it is drawn once, for the first of them.
        if label == SWARM_RUNTIME && !self.counted.contains(&seed) {
            let seed = Seed::new(seed);
            self.add(&RuntimeChoice::swarm().for_seed(seed), seed);
        }
    }

    /// `None` when no run drew its personality.
    pub fn summary(&self) -> Option<CoverageSummary> {
        (!self.coverage.is_empty()).then(|| self.coverage.summary())
    }
}

/// The coverage as one line of the table.
pub fn coverage_line(summary: &CoverageSummary) -> String {
    let fewest = summary
        .numeric_distinct
        .iter()
        .min_by_key(|(_, distinct)| **distinct)
        .map_or("-", |(knob, _)| knob.as_str());
    let mut line = format!(
        "swarm coverage: {} personalities; {}/{} enumerated knob values drawn; every numeric knob took >= {} distinct values (fewest: {fewest})",
        summary.personalities,
        summary.enumerated_drawn,
        summary.enumerated_values,
        summary.numeric_fewest,
    );
    if !summary.missing.is_empty() {
        line.push_str(&format!("; never drawn: {}", summary.missing.join(", ")));
    }
    line
}
