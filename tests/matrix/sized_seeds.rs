//! Which of the swarm's seeds a test-sized sweep takes, from an environment variable:
//! the test command's default, `.ci/run`'s larger range, or a researcher's own.

use meshsim_scenarios::parse_seed_range;
use std::ops::Range;

/// The seeds a sweep of drawn personalities takes: those the environment variable `name`
/// gives, as a count `N` (seeds `0..N`) or a range `A..B`, or `0..default`.
pub fn seeds_from_env(name: &str, default: u64) -> Range<u64> {
    let Ok(value) = std::env::var(name) else {
        return 0..default;
    };
    if value.contains("..") {
        return parse_seed_range(&value).unwrap_or_else(|error| panic!("{name}: {error}"));
    }
    match value.parse::<u64>() {
        Ok(count) if count > 0 => 0..count,
        _ => panic!("{name} must be a number of seeds N (seeds 0..N) or a range A..B: {value:?}"),
    }
}
