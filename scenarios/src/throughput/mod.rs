//! Throughput: what a sweep costs, measured three ways on the origin incident with the
//! reconciling consumer, per origin-incident personality. `meshsim bench` and the criterion benches
//! (`cargo bench`) both measure through this module, so they measure the same thing.
//!
//! - [`simulated`]: seeds per second of simulated runs under swarm faults, one thread;
//! - [`real`]: the same scenario over real loopback TCP with real timers, against the
//!   simulated run of the same seeds (without faults, which real TCP cannot inject):
//!   `speedup_vs_real` is real wall time per run over simulated wall time per run;
//! - [`floor`]: the run's own wire exchange, taped, replayed through codec, SSE and ledger
//!   with no network: `cost_over_floor` is simulated time per run over floor time per run.
//!
//! (a) and (c) are measured side by side ([`side_by_side`]), in rounds: each round times a
//! personality's fast-forward batch, its fixed-step batch and the floor's replays of the same
//! seeds one right after the other, and a personality's `cost_over_floor` is the median of
//! its rounds' ratios (`rounds.rs`), reported with their least and greatest. Each side timed
//! once, the floor after the simulated batches, the two met different moments of a shared
//! VM: three back-to-back `--quick` runs on an idle 2-core machine read 9.55, 8.73 and 7.14,
//! python-correct's floor 67.0 against 43.5 us per run and its simulated runs 483 against 370.
//!
//! Every simulated figure is measured twice, side by side in one process: with idle
//! fast-forward (the default) and with every step taken one by one ([`Stepping`]). And every
//! figure is timed by two clocks ([`stopwatch`]): the thread's CPU time, which a busy
//! machine does not move, and the wall clock; each figure says which.

mod budget;
mod figures;
pub mod floor;
pub mod http_message;
pub mod real;
mod rounds;
pub mod simulated;
pub mod stopwatch;
pub mod tape;
mod workload;

pub use budget::Budget;
pub use figures::{
    ByClock, Figures, FloorCost, FloorSample, Headline, RealVsSimulated, RoundCost, Scaling,
    SimulatedBeside,
};
pub use workload::{DIALECT, PERSONALITIES, Stepping, incident};

use crate::consumer_choice::ConsumerChoice;
use crate::matrix::Matrix;
use crate::run_spec::{Faults, RuntimeChoice};
use crate::scenario::Scenario;
use floor::Script;
use rounds::{Round, RoundSize, floor_cost};
use simulated::SimulatedSample;
use std::ops::Range;
use std::time::{Duration, Instant};
use stopwatch::{Clock, Elapsed, Stopwatch};

/// Measures (a), (b) and (c) for every origin-incident personality, and the `--jobs` scaling, with
/// simulated runs stepped every `tick`. `progress` hears what is being measured.
pub fn measure(
    budget: Budget,
    tick: Duration,
    mut progress: impl FnMut(&str),
) -> Result<Figures, String> {
    let seeds = 0..budget.seeds.max(1);
    let mut simulated = Vec::new();
    let mut floor = Vec::new();
    for personality in PERSONALITIES {
        progress(&format!(
            "(a) and (c) {personality}: {} rounds of {} simulated seeds each way and their floor",
            budget.rounds.max(1),
            budget.seeds
        ));
        let (samples, floor_sample) = side_by_side(personality, seeds.clone(), budget, tick)?;
        simulated.extend(samples);
        floor.push(floor_sample);
    }
    progress(&format!(
        "(b) {} real runs over loopback TCP",
        budget.real_runs * PERSONALITIES.len() as u64
    ));
    let real = real_vs_simulated(0..budget.real_runs.max(1), budget.sim_rounds, tick)?;
    let scaling = if budget.scaling_seeds > 0 {
        progress("--jobs 1 and --jobs 2 sweeps");
        Some(scaling(0..budget.scaling_seeds, tick))
    } else {
        None
    };
    let [thread_cpu, wall] = Clock::BOTH.map(|clock| by_clock(clock, &simulated, &real, &floor));
    Ok(Figures {
        tick_ms: u64::try_from(tick.as_millis()).unwrap_or(u64::MAX),
        thread_cpu,
        wall,
        cores: crate::parallel_sweep::default_threads(),
        simulated,
        real,
        floor,
        scaling,
    })
}

/// The headline figures of the samples, timed by `clock`.
fn by_clock(
    clock: Clock,
    simulated: &[SimulatedSample],
    real: &[RealVsSimulated],
    floor: &[FloorSample],
) -> ByClock {
    let seeds_per_sec = |stepping: Stepping| {
        let of = || {
            simulated
                .iter()
                .filter(|sample| sample.stepping == stepping)
        };
        let runs: u64 = of().map(|sample| sample.runs).sum();
        let ms: f64 = of().map(|sample| sample.ms(clock)).sum();
        runs as f64 * 1000.0 / ms.max(f64::MIN_POSITIVE)
    };
    let fast_forward = Headline {
        seeds_per_sec: seeds_per_sec(Stepping::FastForward),
        speedup_vs_real: geometric_mean(real.iter().map(|run| run.by(clock).speedup)),
        cost_over_floor: geometric_mean(
            floor.iter().map(|sample| sample.by(clock).cost_over_floor),
        ),
    };
    let fixed_steps = Headline {
        seeds_per_sec: seeds_per_sec(Stepping::Fixed),
        speedup_vs_real: geometric_mean(real.iter().map(|run| run.by(clock).fixed_speedup)),
        cost_over_floor: geometric_mean(
            floor
                .iter()
                .map(|sample| sample.by(clock).fixed_cost_over_floor),
        ),
    };
    ByClock {
        clock,
        fast_forward,
        fixed_steps,
        fast_forward_over_fixed: fast_forward.seeds_per_sec
            / fixed_steps.seeds_per_sec.max(f64::MIN_POSITIVE),
    }
}

/// (a) and (c) of one personality, side by side: tapes each seed's run and warms up both
/// ways of stepping and the floor once, then in each of `budget.rounds` rounds times the
/// fast-forward batch of `seeds`, the fixed-step batch and `budget.floor_passes` replays of
/// their tapes, one right after the other. Returns the two simulated samples, every round's
/// runs in each, and the floor against them, the medians of the rounds.
pub fn side_by_side(
    personality: &str,
    seeds: Range<u64>,
    budget: Budget,
    tick: Duration,
) -> Result<([SimulatedSample; 2], FloorSample), String> {
    let [fast, fixed] = Stepping::BOTH.map(|stepping| {
        simulated::Batch::new(personality, seeds.clone(), Faults::Swarm, tick, stepping)
    });
    let (mut fast, mut fixed) = (fast?, fixed?);
    let scripts = tape(personality, seeds, tick)?;
    fast.warm_up()?;
    fixed.warm_up()?;
    // One untimed pass first, as the simulated batches have their warm-up runs.
    replay(&scripts, 1)?;
    let rounds = (0..budget.rounds.max(1))
        .map(|_| {
            Ok(Round {
                fast: fast.time()?,
                fixed: fixed.time()?,
                floor: replay(&scripts, budget.floor_passes)?,
            })
        })
        .collect::<Result<Vec<Round>, String>>()?;
    let size = RoundSize {
        runs: scripts.len() as u64,
        replays: scripts.len() as u64 * u64::from(budget.floor_passes.max(1)),
    };
    let cost =
        |clock: Clock| floor_cost(rounds.iter().map(|round| round.cost(clock, size)).collect());
    let exchanges: usize = scripts.iter().map(Script::len).sum();
    let floor = FloorSample {
        personality: personality.to_string(),
        runs: scripts.len() as u64,
        exchanges_per_run: exchanges as f64 / scripts.len().max(1) as f64,
        thread_cpu: cost(Clock::ThreadCpu),
        wall: cost(Clock::Wall),
    };
    Ok(([fast.into_sample(), fixed.into_sample()], floor))
}

/// Each seed's run under swarm faults, taped and decoded for the floor.
fn tape(personality: &str, seeds: Range<u64>, tick: Duration) -> Result<Vec<Script>, String> {
    seeds
        .map(|seed| {
            simulated::tape_incident(personality, seed, Faults::Swarm, tick).map(|(s, _)| s)
        })
        .collect()
}

/// Replays every script `passes` times over, timed by both clocks.
fn replay(scripts: &[Script], passes: u32) -> Result<Elapsed, String> {
    let stopwatch = Stopwatch::start();
    for _ in 0..passes.max(1) {
        for script in scripts {
            std::hint::black_box(script.replay()?);
        }
    }
    Ok(stopwatch.elapsed())
}

/// Real runs of `seeds` for every personality, each beside the same seed simulated
/// without faults (`rounds` times, for a stable time).
pub fn real_vs_simulated(
    seeds: Range<u64>,
    rounds: u32,
    tick: Duration,
) -> Result<Vec<RealVsSimulated>, String> {
    let runs: Vec<(String, u64)> = PERSONALITIES
        .iter()
        .flat_map(|personality| seeds.clone().map(|seed| (personality.to_string(), seed)))
        .collect();
    let real = real::real_runs(&runs)?;
    real.into_iter()
        .map(|real| {
            let [fast, fixed] = Stepping::BOTH.map(|stepping| {
                let seed = real.seed..real.seed + 1;
                simulated::simulate(
                    &real.personality,
                    seed,
                    Faults::None,
                    rounds,
                    tick,
                    stepping,
                )
            });
            let (fast, fixed) = (fast?, fixed?);
            let beside = |clock: Clock| {
                let [simulated_ms, fixed_ms] =
                    [&fast, &fixed].map(|sample| sample.ms(clock) / sample.runs.max(1) as f64);
                SimulatedBeside {
                    simulated_ms,
                    speedup: real.wall_ms / simulated_ms.max(f64::MIN_POSITIVE),
                    fixed_ms,
                    fixed_speedup: real.wall_ms / fixed_ms.max(f64::MIN_POSITIVE),
                }
            };
            Ok(RealVsSimulated {
                simulated_time_ms: fast.simulated_ms as f64 / fast.runs.max(1) as f64,
                thread_cpu: beside(Clock::ThreadCpu),
                wall: beside(Clock::Wall),
                real,
            })
        })
        .collect()
}

/// Sweeps the incident for every personality under swarm faults on one, then two threads,
/// after one untimed sweep to warm up.
pub fn scaling(seeds: Range<u64>, tick: Duration) -> Scaling {
    let runtimes: Vec<RuntimeChoice> = PERSONALITIES
        .iter()
        .filter_map(|name| RuntimeChoice::resolve(name).ok())
        .collect();
    let matrix = Matrix::for_consumer(ConsumerChoice::Reconciling)
        .runtimes(runtimes)
        .scenarios([Scenario::OriginIncident])
        .dialects([DIALECT])
        .faults([Faults::Swarm])
        .seeds(seeds)
        .tick(tick);
    let rate = |threads: usize| {
        let start = Instant::now(); // wall-clock-ok: the benchmark times a sweep from outside it
        let tally = matrix.clone().threads(threads).run_with(|_, _, _| {});
        tally.runs as f64 / start.elapsed().as_secs_f64().max(f64::MIN_POSITIVE)
    };
    // Warm up first (allocator, lazily built statics, caches), so that `--jobs 1`, timed
    // first, does not pay for what `--jobs 2` then gets for free.
    rate(2);
    let one = rate(1);
    let two = rate(2);
    Scaling {
        runs: matrix.len(),
        jobs_1_seeds_per_sec: one,
        jobs_2_seeds_per_sec: two,
        ratio: two / one.max(f64::MIN_POSITIVE),
    }
}

fn geometric_mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, count) = values.fold((0.0, 0u32), |(sum, count), value| {
        (sum + value.max(f64::MIN_POSITIVE).ln(), count + 1)
    });
    if count == 0 {
        0.0
    } else {
        (sum / f64::from(count)).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_spec::DEFAULT_TICK;

    #[test]
    fn taping_a_run_changes_nothing_and_its_floor_replays_the_whole_incident() {
        let (script, taped_hash) =
            simulated::tape_incident("jvm-reaping", 3, Faults::None, DEFAULT_TICK)
                .expect("taped run");
        let plain = simulated::run_incident(
            "jvm-reaping",
            3,
            Faults::None,
            DEFAULT_TICK,
            Stepping::FastForward,
        )
        .expect("run");
        assert_eq!(taped_hash, plain.trace_hash);
        let count = script.replay().expect("the tape replays");
        // The Card, the streaming send, the probe after input-required, the follow-up...
        assert!(count.cards >= 1, "{count:?}");
        assert!(count.requests >= 3, "{count:?}");
        // submitted, working, input-required and completed at the least.
        assert!(count.applied >= 4, "{count:?}");
    }

    #[test]
    fn side_by_side_adds_every_round_to_the_samples_and_reports_each_round() {
        let budget = Budget {
            seeds: 2,
            rounds: 3,
            floor_passes: 2,
            ..Budget::QUICK
        };
        let ([fast, fixed], floor) =
            side_by_side("go-replaying", 0..budget.seeds, budget, DEFAULT_TICK).expect("measured");
        assert_eq!((fast.stepping, fast.runs), (Stepping::FastForward, 6));
        assert_eq!((fixed.stepping, fixed.runs), (Stepping::Fixed, 6));
        // Fast-forward takes the idle stretches as one step each.
        assert!(
            0 < fast.steps && fast.steps < fixed.steps,
            "{fast:?} {fixed:?}"
        );
        assert_eq!(floor.runs, 2);
        for clock in Clock::BOTH {
            let cost = floor.by(clock);
            assert_eq!(cost.rounds.len(), 3);
            assert!(cost.cost_over_floor_min <= cost.cost_over_floor, "{cost:?}");
            assert!(cost.cost_over_floor <= cost.cost_over_floor_max, "{cost:?}");
            assert!(
                cost.fixed_cost_over_floor_min <= cost.fixed_cost_over_floor,
                "{cost:?}"
            );
            assert!(
                cost.fixed_cost_over_floor <= cost.fixed_cost_over_floor_max,
                "{cost:?}"
            );
        }
    }

    #[test]
    fn the_geometric_mean_of_ratios() {
        assert!((geometric_mean([2.0, 8.0].into_iter()) - 4.0).abs() < 1e-9);
        assert_eq!(geometric_mean(std::iter::empty()), 0.0);
    }
}
