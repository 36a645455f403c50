//! The identity of a sweep, carried by every `sweep --json` line and by its summary: which
//! build ran it (meshsim version and commit), which matrix (a fingerprint of its cells), at
//! which step, over which seed range, and which shard of that range this output is.
//! `meshsim merge` joins only outputs whose identities agree on everything but the shard.

use crate::cli::shard::Shard;
use meshsim_scenarios::Cell;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::ops::Range;
use std::time::Duration;

/// The commit meshsim was built from (see `build.rs`), or `unknown`.
pub const BUILD_COMMIT: &str = env!("MESHSIM_COMMIT");

/// What a sweep's output says about the sweep it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepIdentity {
    /// The meshsim version (Cargo's package version).
    pub meshsim: String,
    /// The git commit of the build, or `unknown`.
    pub commit: String,
    /// Simulated milliseconds per step.
    pub tick_ms: u64,
    /// Which cells every seed runs.
    pub cells: CellsFingerprint,
    /// The whole sweep's seeds `[A, B)`, not only this shard's.
    pub seeds: [u64; 2],
    /// This output's shard of `seeds`, `I/N`; `0/1` for an unsharded sweep.
    pub shard: Shard,
}

/// The matrix a sweep runs for every seed: how many cells and a digest of them in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellsFingerprint {
    pub count: usize,
    /// The first 16 hex digits of the SHA-256 of every cell (scenario, faults, runtime
    /// label and personality, consumer, dialect) as a JSON line, in matrix order.
    pub sha256: String,
}

impl SweepIdentity {
    /// The identity of shard `shard` of a sweep of `cells` over `seeds`, stepped every `tick`,
    /// by this build.
    pub fn of(cells: &[Cell], tick: Duration, seeds: Range<u64>, shard: Shard) -> Self {
        SweepIdentity {
            meshsim: env!("CARGO_PKG_VERSION").to_string(),
            commit: BUILD_COMMIT.to_string(),
            tick_ms: u64::try_from(tick.as_millis()).unwrap_or(u64::MAX),
            cells: CellsFingerprint::of(cells),
            seeds: [seeds.start, seeds.end],
            shard,
        }
    }

    /// The identity of the single unsharded sweep this shard is part of.
    pub fn whole(&self) -> Self {
        SweepIdentity {
            shard: Shard::WHOLE,
            ..self.clone()
        }
    }

    /// This shard's seeds.
    pub fn slice(&self) -> Range<u64> {
        self.shard.slice(self.seeds[0]..self.seeds[1])
    }

    /// How `other` belongs to another sweep than `self` (ignoring which shard each is), in
    /// words naming `other`'s value first; `None` when both are shards of one sweep.
    pub fn difference(&self, other: &SweepIdentity) -> Option<String> {
        if other.meshsim != self.meshsim {
            return Some(format!(
                "another meshsim version ({}, not {})",
                other.meshsim, self.meshsim
            ));
        }
        if other.commit != self.commit {
            return Some(format!(
                "another build (commit {}, not {})",
                other.commit, self.commit
            ));
        }
        if other.tick_ms != self.tick_ms {
            return Some(format!(
                "another tick ({} ms, not {} ms)",
                other.tick_ms, self.tick_ms
            ));
        }
        if other.cells != self.cells {
            return Some(format!(
                "another matrix ({} cells {}, not {} cells {})",
                other.cells.count, other.cells.sha256, self.cells.count, self.cells.sha256
            ));
        }
        if other.seeds != self.seeds {
            return Some(format!(
                "another seed range ({}..{}, not {}..{})",
                other.seeds[0], other.seeds[1], self.seeds[0], self.seeds[1]
            ));
        }
        if other.shard.count != self.shard.count {
            return Some(format!(
                "another shard count ({}, not {})",
                other.shard.count, self.shard.count
            ));
        }
        None
    }
}

impl CellsFingerprint {
    /// The fingerprint of `cells`, in their order.
    pub fn of(cells: &[Cell]) -> Self {
        let mut hasher = Sha256::new();
        for cell in cells {
            let line = json!({
                "scenario": cell.scenario,
                "faults": cell.faults.name(),
                "runtime": cell.runtime.label,
                "personality": cell.runtime.personality,
                "consumer": cell.consumer.name(),
                "dialect": cell.dialect,
            });
            hasher.update(line.to_string().as_bytes());
            hasher.update(b"\n");
        }
        let digest = hasher.finalize();
        let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
        CellsFingerprint {
            count: cells.len(),
            sha256: hex[..16].to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_scenarios::Matrix;

    fn identity_of(matrix: &Matrix, shard: Shard) -> SweepIdentity {
        SweepIdentity::of(&matrix.cells(), matrix.step(), 0..8, shard)
    }

    #[test]
    fn shards_of_one_sweep_agree_and_other_matrices_or_ticks_do_not() {
        let matrix = Matrix::default_matrix();
        let first = identity_of(&matrix, Shard { index: 0, count: 4 });
        let third = identity_of(&matrix, Shard { index: 2, count: 4 });
        assert_eq!(first.difference(&third), None);
        assert_eq!(third.whole(), identity_of(&matrix, Shard::WHOLE));
        assert_eq!(third.slice(), 4..6);

        let fewer = matrix.clone().dialects([meshsim_protocol::Dialect::V1_0]);
        let other = identity_of(&fewer, Shard { index: 1, count: 4 });
        assert!(
            first
                .difference(&other)
                .unwrap()
                .starts_with("another matrix")
        );

        let slower = identity_of(&matrix.clone().tick(Duration::from_millis(20)), third.shard);
        assert_eq!(
            first.difference(&slower).unwrap(),
            "another tick (20 ms, not 1 ms)"
        );
    }

    #[test]
    fn the_identity_reads_back_as_written() {
        let identity = identity_of(&Matrix::default_matrix(), Shard { index: 1, count: 3 });
        let text = serde_json::to_string(&identity).unwrap();
        assert!(text.contains(r#""shard":"1/3""#), "{text}");
        let back: SweepIdentity = serde_json::from_str(&text).unwrap();
        assert_eq!(back, identity);
    }
}
