//! The simulated matrix from fixed seeds: the seed's incident reproduced (the naive consumer
//! diverges as the oracle names it, the reconciling one holds) and the reconciling consumer's
//! sweep under swarm faults.

mod divergences;
mod reconciling_sweep;
