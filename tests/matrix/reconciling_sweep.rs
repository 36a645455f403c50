//! The reconciling consumer under swarm faults: 200 seeds of the origin incident for every
//! built-in personality and dialect, a few seeds of every other scenario, each holding
//! every invariant, and 200 personalities drawn by the swarm (`--runtime swarm`; others with
//! `MESHSIM_SWARM_SEEDS`) in every scenario and dialect, each meeting its declared
//! expectation.

use crate::sized_seeds::seeds_from_env;
use meshsim_protocol::Dialect;
use meshsim_scenarios::builtin_runtimes;
use meshsim_scenarios::{ConsumerChoice, Faults, Matrix, RuntimeChoice, Scenario};

#[test]
fn reconciling_consumer_holds_over_200_swarm_seeds_per_personality_and_dialect() {
    let matrix = Matrix::for_consumer(ConsumerChoice::Reconciling)
        .scenarios([Scenario::OriginIncident])
        .faults([Faults::Swarm])
        .seeds(1000..1200);
    assert_eq!(
        matrix.len(),
        200 * builtin_runtimes().len() * Dialect::ALL.len()
    );
    let outcome = matrix.run();
    assert_eq!(outcome.tally.runs, matrix.len());
    outcome.assert_expectations();
    assert_eq!(outcome.tally.violated, 0);
}

#[test]
fn reconciling_consumer_holds_in_every_scenario_under_swarm_faults() {
    let scenarios: Vec<Scenario> = Scenario::ALL
        .into_iter()
        .filter(|scenario| *scenario != Scenario::OriginIncident)
        .collect();
    let matrix = Matrix::for_consumer(ConsumerChoice::Reconciling)
        .scenarios(scenarios)
        .faults([Faults::Swarm])
        .seeds(0..8);
    let outcome = matrix.run();
    outcome.assert_expectations();
    assert_eq!(outcome.tally.violated, 0);
}

/// The swarm's seeds `0..200`, or those `MESHSIM_SWARM_SEEDS` names (`.ci/run` adds
/// `200..2000`), at the default step, the start of what `meshsim sweep --runtime swarm
/// --consumer reconciling --seed-range 0..30000 --faults swarm` checks (about 15 minutes in a release build on two
/// cores; docs/throughput.md, "The step"): a race the default step shows breaks this before
/// it reaches a longer sweep (seed 153 missed `liveness` here before f1e50c5).
#[test]
fn reconciling_consumer_meets_every_expectation_of_swarm_drawn_personalities() {
    let seeds = seeds_from_env("MESHSIM_SWARM_SEEDS", 200);
    let matrix = Matrix::for_consumer(ConsumerChoice::Reconciling)
        .runtimes([RuntimeChoice::swarm()])
        .faults([Faults::Swarm])
        .seeds(seeds.clone());
    let per_seed = Scenario::ALL.len() * Dialect::ALL.len();
    assert_eq!(
        matrix.len() as u64,
        (seeds.end - seeds.start) * per_seed as u64
    );
    let outcome = matrix.run();
    assert_eq!(outcome.tally.runs, matrix.len());
    outcome.assert_expectations();
}
