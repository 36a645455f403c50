//! The rounds that set (a) against (c). In each round a personality's fast-forward batch, its
//! fixed-step batch and the floor's replays of the same seeds are timed one right after the
//! other, so that the round's ratios compare times taken moments apart, under the same load;
//! a personality's figures are the medians over its rounds, with the spread of the rounds'
//! ratios beside them (see the module above for why).

use super::figures::{FloorCost, RoundCost};
use super::stopwatch::{Clock, Elapsed};

/// What one round timed, by both clocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Round {
    /// Every seed run once with fast-forward.
    pub fast: Elapsed,
    /// Every seed run once with fixed steps.
    pub fixed: Elapsed,
    /// Every seed's tape replayed `replays / runs` times.
    pub floor: Elapsed,
}

/// How many runs each part of a round times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundSize {
    /// Simulated runs of each batch (one per seed).
    pub runs: u64,
    /// Floor replays (every seed's tape, some passes over).
    pub replays: u64,
}

impl Round {
    /// The round's figures by `clock`: time per run of each part, and the simulated batches'
    /// over the floor's.
    pub fn cost(&self, clock: Clock, size: RoundSize) -> RoundCost {
        let us_per_run = |elapsed: Elapsed, runs: u64| {
            elapsed.by(clock).as_secs_f64() * 1e6 / runs.max(1) as f64
        };
        let floor_us = us_per_run(self.floor, size.replays);
        let [simulated_us, fixed_us] =
            [self.fast, self.fixed].map(|batch| us_per_run(batch, size.runs));
        RoundCost {
            floor_us_per_run: floor_us,
            simulated_us_per_run: simulated_us,
            cost_over_floor: simulated_us / floor_us.max(f64::MIN_POSITIVE),
            fixed_us_per_run: fixed_us,
            fixed_cost_over_floor: fixed_us / floor_us.max(f64::MIN_POSITIVE),
        }
    }
}

/// A personality's figures by one clock from its rounds': each the median over the rounds,
/// each ratio with the least and the greatest round's.
pub fn floor_cost(rounds: Vec<RoundCost>) -> FloorCost {
    let median_of = |figure: fn(&RoundCost) -> f64| median(rounds.iter().map(figure));
    let spread_of = |figure: fn(&RoundCost) -> f64| spread(rounds.iter().map(figure));
    let (least, greatest) = spread_of(|round| round.cost_over_floor);
    let (fixed_least, fixed_greatest) = spread_of(|round| round.fixed_cost_over_floor);
    FloorCost {
        floor_us_per_run: median_of(|round| round.floor_us_per_run),
        simulated_us_per_run: median_of(|round| round.simulated_us_per_run),
        cost_over_floor: median_of(|round| round.cost_over_floor),
        cost_over_floor_min: least,
        cost_over_floor_max: greatest,
        fixed_us_per_run: median_of(|round| round.fixed_us_per_run),
        fixed_cost_over_floor: median_of(|round| round.fixed_cost_over_floor),
        fixed_cost_over_floor_min: fixed_least,
        fixed_cost_over_floor_max: fixed_greatest,
        rounds,
    }
}

/// The middle value, or the mean of the two middle values of an even count; 0 for none.
pub fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut values: Vec<f64> = values.into_iter().collect();
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    match values.len() {
        0 => 0.0,
        len if len % 2 == 1 => values[middle],
        _ => (values[middle - 1] + values[middle]) / 2.0,
    }
}

/// The least and the greatest of `values`; zeros for none.
fn spread(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    values
        .into_iter()
        .fold(None, |range, value| match range {
            None => Some((value, value)),
            Some((least, greatest)) => Some((value.min(least), value.max(greatest))),
        })
        .unwrap_or((0.0, 0.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn elapsed(thread_cpu_us: u64, wall_us: u64) -> Elapsed {
        Elapsed {
            wall: Duration::from_micros(wall_us),
            thread_cpu: Duration::from_micros(thread_cpu_us),
        }
    }

    fn round_cost(floor_us: f64, simulated_us: f64, fixed_us: f64) -> RoundCost {
        RoundCost {
            floor_us_per_run: floor_us,
            simulated_us_per_run: simulated_us,
            cost_over_floor: simulated_us / floor_us,
            fixed_us_per_run: fixed_us,
            fixed_cost_over_floor: fixed_us / floor_us,
        }
    }

    #[test]
    fn the_median_of_an_odd_count_is_its_middle_value() {
        assert_eq!(median([9.0, 1.0, 5.0]), 5.0);
        assert_eq!(median([7.5]), 7.5);
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_its_two_middle_values() {
        assert_eq!(median([4.0, 1.0, 3.0, 100.0]), 3.5);
        assert_eq!(median([2.0, 6.0]), 4.0);
    }

    #[test]
    fn the_median_of_nothing_is_zero() {
        assert_eq!(median(std::iter::empty()), 0.0);
    }

    #[test]
    fn the_spread_is_the_least_and_the_greatest_value_and_zeros_for_none() {
        assert_eq!(spread([8.0, 5.25, 10.0]), (5.25, 10.0));
        assert_eq!(spread([7.5]), (7.5, 7.5));
        assert_eq!(spread(std::iter::empty()), (0.0, 0.0));
    }

    #[test]
    fn a_round_divides_each_part_by_its_own_runs_by_the_clock_asked() {
        let round = Round {
            fast: elapsed(40_000, 80_000),
            fixed: elapsed(60_000, 90_000),
            floor: elapsed(50_000, 100_000),
        };
        let size = RoundSize {
            runs: 100,
            replays: 1_000,
        };
        assert_eq!(
            round.cost(Clock::ThreadCpu, size),
            round_cost(50.0, 400.0, 600.0)
        );
        assert_eq!(
            round.cost(Clock::Wall, size),
            round_cost(100.0, 800.0, 900.0)
        );
    }

    #[test]
    fn a_personality_reports_its_median_round_and_the_spread_of_the_ratios() {
        // The floor reads slow in the second round and the simulated runs in the third: a
        // median round's ratio, not a ratio of medians.
        let rounds = vec![
            round_cost(50.0, 400.0, 600.0),
            round_cost(80.0, 420.0, 640.0),
            round_cost(50.0, 500.0, 550.0),
        ];
        let cost = floor_cost(rounds.clone());
        assert_eq!(cost.floor_us_per_run, 50.0);
        assert_eq!(cost.simulated_us_per_run, 420.0);
        assert_eq!(cost.fixed_us_per_run, 600.0);
        assert_eq!(cost.cost_over_floor, 8.0);
        assert_eq!(
            (cost.cost_over_floor_min, cost.cost_over_floor_max),
            (5.25, 10.0)
        );
        assert_eq!(cost.fixed_cost_over_floor, 11.0);
        assert_eq!(
            (
                cost.fixed_cost_over_floor_min,
                cost.fixed_cost_over_floor_max
            ),
            (8.0, 12.0)
        );
        assert_eq!(cost.rounds, rounds);
    }
}
