//! How much `meshsim bench` measures: seeds, real runs and repetitions per figure.

/// How much to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Seeds per personality for (a) and (c).
    pub seeds: u64,
    /// Real runs per personality for (b) (each takes about a second of real time).
    pub real_runs: u64,
    /// How often the fault-free simulated counterpart of each real run is repeated.
    pub sim_rounds: u32,
    /// How often the floor replays each taped run.
    pub floor_rounds: u32,
    /// Seeds per personality for the `--jobs` scaling sweeps (0: skip them).
    pub scaling_seeds: u64,
}

impl Budget {
    /// Finishes in well under a minute on two cores.
    pub const QUICK: Budget = Budget {
        seeds: 100,
        real_runs: 1,
        sim_rounds: 10,
        floor_rounds: 20,
        scaling_seeds: 100,
    };
    /// Larger samples.
    pub const FULL: Budget = Budget {
        seeds: 500,
        real_runs: 3,
        sim_rounds: 20,
        floor_rounds: 50,
        scaling_seeds: 400,
    };
}
