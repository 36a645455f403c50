//! What an instance draws from its seeded generator: task, context, message and artifact
//! ids, and the durations of work steps. Draws happen in decision order, so the same seed
//! gives the same ids and durations whatever the interleaving of concurrent turns.

use crate::personality::WorkDurations;
use meshsim_protocol::digits::push_hex_byte;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

/// One instance's seeded generator.
pub(crate) struct Draws {
    rng: ChaCha8Rng,
}

impl Draws {
    /// The generator of instance `instance` of a runtime seeded with `seed`: a restarted
    /// instance must not hand out the ids of its predecessor.
    pub(crate) fn new(seed: u64, instance: u32) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(u64::from(instance));
        Draws { rng }
    }

    /// A UUID-shaped id, its hex digits written without `fmt` (a run draws a dozen or more).
    pub(crate) fn id(&mut self) -> String {
        let bytes: [u8; 16] = self.rng.random();
        let mut id = String::with_capacity(36);
        for (at, byte) in bytes.iter().enumerate() {
            // Dashes after the 4th, 6th, 8th and 10th bytes: 8-4-4-4-12 hex digits.
            if matches!(at, 4 | 6 | 8 | 10) {
                id.push('-');
            }
            push_hex_byte(&mut id, *byte);
        }
        id
    }

    /// One work step's duration, uniform in `work.min_ms..=work.max_ms`.
    pub(crate) fn work(&mut self, work: &WorkDurations) -> Duration {
        Duration::from_millis(self.rng.random_range(work.min_ms..=work.max_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_uuid_shaped_and_differ_per_instance() {
        let first = Draws::new(7, 0).id();
        let groups: Vec<usize> = first.split('-').map(str::len).collect();
        assert_eq!(groups, [8, 4, 4, 4, 12], "{first}");
        assert!(
            first.chars().all(|c| c == '-' || c.is_ascii_hexdigit()),
            "{first}"
        );
        assert_eq!(Draws::new(7, 0).id(), first);
        assert_ne!(Draws::new(7, 1).id(), first);
    }

    #[test]
    fn work_durations_stay_in_range() {
        let mut draws = Draws::new(1, 0);
        let work = WorkDurations {
            min_ms: 5,
            max_ms: 9,
            long_running_steps: 1,
        };
        for _ in 0..100 {
            let drawn = draws.work(&work);
            assert!((5..=9).contains(&drawn.as_millis()), "{drawn:?}");
        }
    }
}
