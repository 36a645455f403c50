//! `cargo bench`: the throughput suite, measured through `meshsim_scenarios::throughput`
//! like `meshsim bench` (which prints the three figures side by side):
//!
//! - `simulated_swarm/<personality>`: one simulated run of the origin incident with the
//!   reconciling consumer under swarm faults (seeds cycle over 0..100), with idle
//!   fast-forward; elements/s is seeds per second on one thread;
//! - `simulated_swarm_fixed_steps/<personality>`: the same runs with every step taken;
//! - `real_vs_simulated/{real,simulated}`: the incident (python-correct, seed 0, no faults)
//!   over real loopback TCP with real timers, and the same run simulated;
//! - `floor/<personality>`: the protocol floor, a run's taped exchange replayed through the
//!   codec, SSE framing and parsing, and the consumer's ledger.
//!
//! Every simulated run steps at the default tick. Samples are small (10 per bench, 3 s
//! each) so the suite takes about a minute.

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use meshsim_scenarios::throughput::{PERSONALITIES, Stepping, floor::Script, real, simulated};
use meshsim_scenarios::{DEFAULT_TICK, Faults};
use std::hint::black_box;
use std::time::Duration;

/// The allocator `meshsim` runs with, so that both measure the same thing.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Seeds the simulated benches cycle over, so each measures the mean of a fixed sample.
const SEEDS: u64 = 100;

fn simulated_swarm(c: &mut Criterion) {
    for (name, stepping) in [
        ("simulated_swarm", Stepping::FastForward),
        ("simulated_swarm_fixed_steps", Stepping::Fixed),
    ] {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(1));
        for personality in PERSONALITIES {
            group.bench_function(personality, |b| {
                let mut seed = 0;
                b.iter(|| {
                    seed = (seed + 1) % SEEDS;
                    black_box(simulated::run_incident(
                        personality,
                        seed,
                        Faults::Swarm,
                        DEFAULT_TICK,
                        stepping,
                    ))
                    .expect("a simulated run")
                });
            });
        }
        group.finish();
    }
}

fn real_vs_simulated(c: &mut Criterion) {
    let mut group = c.benchmark_group("real_vs_simulated");
    group.sampling_mode(SamplingMode::Flat);
    let personality = PERSONALITIES[0];
    group.bench_function("real", |b| {
        b.iter_custom(|iters| {
            let runs: Vec<(String, u64)> = (0..iters).map(|_| (personality.into(), 0)).collect();
            // One after another: each run's wall time is its own.
            runs.iter()
                .map(|run| {
                    let done = real::real_runs(std::slice::from_ref(run)).expect("a real run");
                    Duration::from_secs_f64(done[0].wall_ms / 1000.0)
                })
                .sum()
        });
    });
    group.bench_function("simulated", |b| {
        b.iter(|| {
            black_box(simulated::run_incident(
                personality,
                0,
                Faults::None,
                DEFAULT_TICK,
                Stepping::FastForward,
            ))
            .expect("a simulated run")
        });
    });
    group.finish();
}

fn floor(c: &mut Criterion) {
    let mut group = c.benchmark_group("floor");
    group.throughput(Throughput::Elements(1));
    for personality in PERSONALITIES {
        let scripts: Vec<Script> = (0..SEEDS / 5)
            .map(|seed| {
                simulated::tape_incident(personality, seed, Faults::Swarm, DEFAULT_TICK)
                    .expect("a taped run")
                    .0
            })
            .collect();
        group.bench_function(personality, |b| {
            let mut next = 0;
            b.iter(|| {
                next = (next + 1) % scripts.len();
                black_box(scripts[next].replay()).expect("the tape replays")
            });
        });
    }
    group.finish();
}

criterion_group! {
    name = throughput;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = simulated_swarm, real_vs_simulated, floor
}
criterion_main!(throughput);
