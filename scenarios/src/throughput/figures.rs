//! What `meshsim bench` reports: the headline figures by each clock, fast-forward beside
//! fixed steps, and the samples behind them (simulated, real against simulated, the floor,
//! the `--jobs` scaling).

use super::real::RealRun;
use super::simulated::SimulatedSample;
use super::stopwatch::Clock;
use serde::Serialize;

/// The protocol floor of one personality's runs.
#[derive(Debug, Clone, Serialize)]
pub struct FloorSample {
    pub personality: String,
    pub runs: u64,
    /// Exchanges (Card fetches and calls) per run, on average.
    pub exchanges_per_run: f64,
    /// Timed by the thread's CPU time.
    pub thread_cpu: FloorCost,
    /// Timed by the wall clock.
    pub wall: FloorCost,
}

impl FloorSample {
    pub fn by(&self, clock: Clock) -> &FloorCost {
        match clock {
            Clock::ThreadCpu => &self.thread_cpu,
            Clock::Wall => &self.wall,
        }
    }
}

/// The floor against the simulated runs, by one clock, over a personality's interleaved
/// rounds: each figure is the median over the rounds. `cost_over_floor` is the median of the
/// rounds' own ratios, so it need not equal the ratio of the two medians beside it.
#[derive(Debug, Clone, Serialize)]
pub struct FloorCost {
    pub floor_us_per_run: f64,
    /// With fast-forward.
    pub simulated_us_per_run: f64,
    pub cost_over_floor: f64,
    /// The least and the greatest of the rounds' `cost_over_floor`: the noise around it.
    pub cost_over_floor_min: f64,
    pub cost_over_floor_max: f64,
    /// With every step taken.
    pub fixed_us_per_run: f64,
    pub fixed_cost_over_floor: f64,
    pub fixed_cost_over_floor_min: f64,
    pub fixed_cost_over_floor_max: f64,
    /// Every round's own figures, in the order they were timed.
    pub rounds: Vec<RoundCost>,
}

/// One round's floor against the simulated runs timed right before it, by one clock.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RoundCost {
    pub floor_us_per_run: f64,
    /// With fast-forward.
    pub simulated_us_per_run: f64,
    pub cost_over_floor: f64,
    /// With every step taken.
    pub fixed_us_per_run: f64,
    pub fixed_cost_over_floor: f64,
}

/// One real run beside its simulated counterpart.
#[derive(Debug, Clone, Serialize)]
pub struct RealVsSimulated {
    /// The real run, timed by the wall clock (it mostly waits on real timers).
    #[serde(flatten)]
    pub real: RealRun,
    /// Simulated time of that run: what the real run should take.
    pub simulated_time_ms: f64,
    /// The same seed simulated without faults, timed by the thread's CPU time.
    pub thread_cpu: SimulatedBeside,
    /// The same, timed by the wall clock.
    pub wall: SimulatedBeside,
}

impl RealVsSimulated {
    pub fn by(&self, clock: Clock) -> &SimulatedBeside {
        match clock {
            Clock::ThreadCpu => &self.thread_cpu,
            Clock::Wall => &self.wall,
        }
    }
}

/// A simulated run beside the real one, by one clock.
#[derive(Debug, Clone, Serialize)]
pub struct SimulatedBeside {
    /// Time per run with fast-forward.
    pub simulated_ms: f64,
    /// The real run's wall time over that.
    pub speedup: f64,
    /// Time per run with every step taken.
    pub fixed_ms: f64,
    pub fixed_speedup: f64,
}

/// Sweep throughput on one and on two threads, by the wall clock (the point is how much
/// sooner a sweep ends, so it is the one figure the thread's CPU time cannot give).
#[derive(Debug, Clone, Serialize)]
pub struct Scaling {
    pub runs: usize,
    pub jobs_1_seeds_per_sec: f64,
    pub jobs_2_seeds_per_sec: f64,
    /// `jobs_2 / jobs_1`: 2.0 would be perfect on two free cores.
    pub ratio: f64,
}

/// The three headline figures of one way of stepping.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Headline {
    /// Simulated runs per second under swarm faults, one thread, all personalities.
    pub seeds_per_sec: f64,
    /// Real wall time per run over simulated wall time per run (geometric mean).
    pub speedup_vs_real: f64,
    /// Simulated time per run over the protocol floor's: the geometric mean over the
    /// personalities of each one's median round.
    pub cost_over_floor: f64,
}

/// The headline figures by one clock, fast-forward and fixed steps side by side.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ByClock {
    /// The clock every figure here was timed by.
    pub clock: Clock,
    /// With idle fast-forward (the default): the figures the targets apply to.
    #[serde(flatten)]
    pub fast_forward: Headline,
    /// The same runs with every step taken, measured beside them.
    pub fixed_steps: Headline,
    /// `seeds_per_sec` with fast-forward over with fixed steps.
    pub fast_forward_over_fixed: f64,
}

/// Everything `meshsim bench` reports.
#[derive(Debug, Clone, Serialize)]
pub struct Figures {
    /// The simulated time per step of every simulated run.
    pub tick_ms: u64,
    /// The headline, timed by the thread's CPU time: what a run costs, whatever else the
    /// machine runs. (`speedup_vs_real` sets the real run's wall time against it.)
    #[serde(flatten)]
    pub thread_cpu: ByClock,
    /// The same figures timed by the wall clock, which a busy machine depresses.
    pub wall: ByClock,
    pub cores: usize,
    pub simulated: Vec<SimulatedSample>,
    pub real: Vec<RealVsSimulated>,
    pub floor: Vec<FloorSample>,
    pub scaling: Option<Scaling>,
}
