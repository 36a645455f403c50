//! How long the steps of a personality's executor scripts take.

use serde::{Deserialize, Serialize};

/// Each step of a script waits a duration drawn uniformly from `min_ms..=max_ms` with the
/// runtime's seeded generator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WorkDurations {
    pub min_ms: u64,
    pub max_ms: u64,
    /// Work steps (each producing an artifact chunk) of the long-running script.
    pub long_running_steps: u32,
}

impl Default for WorkDurations {
    fn default() -> Self {
        WorkDurations {
            min_ms: 50,
            max_ms: 250,
            long_running_steps: 10,
        }
    }
}
