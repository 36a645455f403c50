//! The simulated matrix from fixed seeds: the origin incident reproduced (the naive consumer
//! diverges as the oracle names it, the reconciling one holds) and the reconciling consumer's
//! sweep under swarm faults; a broken consumer per invariant, each caught by the oracle; and
//! the golden trace hashes of a few fixed runs; what the personality swarm found, each
//! reproduced from a personality file, and corners of the swarm's space forced; the
//! reconciling consumer against runtimes serving only HTTP+JSON.

mod divergences;
mod golden_hashes;
mod http_json;
mod oracle_sensitivity;
mod reconciling_sweep;
mod sized_seeds;
mod swarm_corners;
mod swarm_findings;
mod tenant;
