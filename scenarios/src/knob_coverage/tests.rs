//! Tests of the knob coverage a sweep reports.

use super::*;
use crate::runtime_swarm::{DUPLICABLE_STATES, TERMINAL_ERRORS, draw};
use meshsim_sim::Seed;

#[test]
fn the_enumerations_name_exactly_what_the_draw_draws_from() {
    let errors: Vec<String> = TERMINAL_ERRORS.iter().map(label).collect();
    assert_eq!(errors, TERMINAL_ERROR_NAMES);
    let states: Vec<String> = DUPLICABLE_STATES.iter().map(label).collect();
    let Some((_, KnobKind::Enumerated(listed))) =
        KNOBS.iter().find(|(knob, _)| *knob == "duplicate_states")
    else {
        panic!("duplicate_states is not listed as enumerated");
    };
    assert_eq!(states, *listed);
}

#[test]
fn every_value_a_personality_gives_is_a_listed_knob_and_value() {
    for seed in 0..500 {
        for (knob, value) in knob_values(&draw(Seed::new(seed))) {
            match KNOBS.iter().find(|(name, _)| *name == knob) {
                Some((_, KnobKind::Enumerated(values))) => {
                    assert!(values.contains(&value.as_str()), "{knob}={value}")
                }
                Some((_, KnobKind::Numeric)) => {}
                None => panic!("{knob} is not in KNOBS"),
            }
        }
    }
}

#[test]
fn a_thousand_draws_cover_every_enumerated_value_and_thirty_numbers_per_knob() {
    let mut coverage = Coverage::default();
    for seed in 0..1_000 {
        coverage.add(&draw(Seed::new(seed)));
    }
    let summary = coverage.summary();
    assert_eq!(summary.personalities, 1_000);
    assert!(summary.missing.is_empty(), "{:?}", summary.missing);
    assert_eq!(summary.enumerated_drawn, summary.enumerated_values);
    assert!(
        summary.numeric_fewest >= 30,
        "{:?}",
        summary.numeric_distinct
    );
}

#[test]
fn the_default_personality_misses_most_values() {
    let mut coverage = Coverage::default();
    coverage.add(&Personality::default());
    let summary = coverage.summary();
    assert!(summary.missing.contains(&"reaping=ttl".to_string()));
    assert!(
        summary.numeric_fewest <= 1,
        "{:?}",
        summary.numeric_distinct
    );
}
