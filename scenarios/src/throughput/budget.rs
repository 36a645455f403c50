//! How much `meshsim bench` measures: seeds, rounds, real runs and repetitions per figure.

/// How much to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Seeds per personality for (a) and (c): every round runs each of them with fast-forward
    /// and with fixed steps, and replays its tape.
    pub seeds: u64,
    /// Rounds of (a) and (c) per personality, each timing the fast-forward batch, the
    /// fixed-step batch and the floor one right after the other; a personality's
    /// `cost_over_floor` is the median of its rounds' ratios.
    pub rounds: u32,
    /// How often each round's floor replays each taped run.
    pub floor_passes: u32,
    /// Real runs per personality for (b) (each takes about a second of real time).
    pub real_runs: u64,
    /// How often the fault-free simulated counterpart of each real run is repeated.
    pub sim_rounds: u32,
    /// Seeds per personality for the `--jobs` scaling sweeps (0: skip them).
    pub scaling_seeds: u64,
}

impl Budget {
    /// Finishes in well under a minute on two cores.
    pub const QUICK: Budget = Budget {
        seeds: 100,
        rounds: 5,
        floor_passes: 10,
        real_runs: 1,
        sim_rounds: 10,
        scaling_seeds: 100,
    };
    /// Larger samples.
    pub const FULL: Budget = Budget {
        seeds: 500,
        rounds: 7,
        floor_passes: 10,
        real_runs: 3,
        sim_rounds: 20,
        scaling_seeds: 400,
    };
}
