//! Idle fast-forward changes nothing: every run of the default matrix (every scenario,
//! runtime personality, consumer and dialect, 3 seeds, swarm faults and the incident without
//! faults) has the same trace hash with fast-forward on as with every step taken one by one,
//! and so does every run of sixty seeds each drawing its personality from the swarm.

use meshsim_protocol::Dialect;
use meshsim_scenarios::{
    ConsumerChoice, DEFAULT_TICK, Faults, Matrix, RunOptions, RunSpec, RuntimeChoice, Scenario, run,
};
use meshsim_sim::Seed;

/// Both runs of one spec: whether their hashes differ (and how), and their step counts.
struct Pair {
    divergence: Option<String>,
    fast_steps: u64,
    fixed_steps: u64,
}

/// Runs `spec` with fast-forward on and off.
fn both_ways(spec: &RunSpec) -> Pair {
    let fast = run(spec, &RunOptions::default()).expect("fast-forward run");
    let fixed_steps = RunOptions {
        fixed_steps: true,
        ..RunOptions::default()
    };
    let fixed = run(spec, &fixed_steps).expect("fixed-step run");
    let divergence = (fast.trace_hash != fixed.trace_hash).then(|| {
        format!(
            "{}: fast-forward {} ({} ms), fixed steps {} ({} ms)",
            spec.replay_command(),
            fast.trace_hash,
            fast.elapsed_ms,
            fixed.trace_hash,
            fixed.elapsed_ms
        )
    });
    Pair {
        divergence,
        fast_steps: fast.steps,
        fixed_steps: fixed.steps,
    }
}

/// Runs every spec both ways on all cores and fails naming each run whose hashes differ;
/// returns the steps taken with fast-forward and without, summed over the runs.
fn assert_same_both_ways(specs: &[RunSpec]) -> (u64, u64) {
    let threads = meshsim_scenarios::default_threads().clamp(1, specs.len());
    let chunk = specs.len().div_ceil(threads);
    let pairs: Vec<Pair> = std::thread::scope(|scope| {
        let workers: Vec<_> = specs
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(both_ways).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().expect("worker"))
            .collect()
    });
    let divergences: Vec<&str> = pairs
        .iter()
        .filter_map(|pair| pair.divergence.as_deref())
        .collect();
    assert!(
        divergences.is_empty(),
        "{} of {} runs diverge:\n{}",
        divergences.len(),
        specs.len(),
        divergences.join("\n")
    );
    (
        pairs.iter().map(|pair| pair.fast_steps).sum(),
        pairs.iter().map(|pair| pair.fixed_steps).sum(),
    )
}

#[test]
fn every_run_of_the_default_matrix_hashes_the_same_with_fast_forward_on_and_off() {
    let matrix = Matrix::default_matrix();
    let specs: Vec<RunSpec> = matrix.specs().collect();
    assert!(
        specs.len() > 900,
        "the default matrix has {} runs",
        specs.len()
    );
    let (fast, fixed) = assert_same_both_ways(&specs);
    // And fast-forward did skip: the matrix took far fewer steps.
    assert!(
        fast * 2 < fixed,
        "{fast} steps with fast-forward, {fixed} without"
    );
}

/// Beyond the seven built-in personalities: each seed draws its own from the swarm, and the
/// swarm's faults strike, in every scenario and dialect (the `meshsim sweep --runtime swarm
/// --faults swarm` of docs/throughput.md's sameness checks, on fewer seeds). Seed 1008 is
/// among them, which a catch-up tried at afa02b4 changed (below).
#[test]
fn swarm_drawn_runtimes_hash_the_same_with_fast_forward_on_and_off() {
    let matrix = Matrix::for_consumers([ConsumerChoice::Reconciling])
        .runtimes([RuntimeChoice::swarm()])
        .faults([Faults::Swarm])
        .seeds(1000..1060);
    let specs: Vec<RunSpec> = matrix.specs().collect();
    assert_eq!(specs.len(), 60 * Scenario::ALL.len() * Dialect::ALL.len());
    assert_same_both_ways(&specs);
}

/// Swarm seeds 1008, 2306 and 2349 of the heterogeneous mesh in v0.1, under swarm faults:
/// a host left out of steps that paid its time by advancing its clock alone, leaving its time
/// driver to the next tick's first park (tried at afa02b4), ran some of the consumer's
/// timer-woken tasks in another order than with every step taken (in seed 1008, two jobs'
/// calls at 273 ms). The default matrix never met it.
#[test]
fn a_host_left_out_of_steps_brings_its_time_driver_up_to_date_before_it_runs() {
    for seed in [1008, 2306, 2349] {
        let spec = RunSpec {
            seed: Seed::new(seed),
            scenario: Scenario::HeterogeneousMesh,
            runtime: RuntimeChoice::swarm().for_seed(Seed::new(seed)),
            consumer: ConsumerChoice::Reconciling,
            dialect: Dialect::V0_1,
            faults: Faults::Swarm,
            job_limit: None,
            tick: DEFAULT_TICK,
        };
        let pair = both_ways(&spec);
        assert_eq!(pair.divergence, None);
    }
}
