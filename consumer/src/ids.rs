//! Deterministic ids for tasks (v0.1 makes the client choose them) and messages, drawn from
//! a seeded generator so that a run's ids depend only on its seed.

use meshsim_protocol::digits::push_hex_byte;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::{Mutex, PoisonError};

/// A source of ids, shared by a consumer's jobs.
#[derive(Debug)]
pub struct IdSource {
    rng: Mutex<ChaCha8Rng>,
}

impl IdSource {
    /// Ids drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        IdSource {
            rng: Mutex::new(ChaCha8Rng::seed_from_u64(seed)),
        }
    }

    /// A fresh id such as `task-3f9c0a1b2c3d4e5f`: the prefix, a dash and 16 hex digits,
    /// written without `fmt` (as `format!("{prefix}-{value:016x}")` would).
    pub fn next(&self, prefix: &str) -> String {
        let value: u64 = self
            .rng
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .random();
        let mut id = String::with_capacity(prefix.len() + 17);
        id.push_str(prefix);
        id.push('-');
        for byte in value.to_be_bytes() {
            push_hex_byte(&mut id, byte);
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_ids_other_seed_other_ids() {
        let (a, b, c) = (IdSource::new(7), IdSource::new(7), IdSource::new(8));
        let first: Vec<_> = (0..3).map(|_| a.next("task")).collect();
        assert_eq!(first, (0..3).map(|_| b.next("task")).collect::<Vec<_>>());
        assert_ne!(first[0], c.next("task"));
        assert_ne!(first[0], first[1]);
        assert!(first[0].starts_with("task-"));
        let value: u64 = ChaCha8Rng::seed_from_u64(7).random();
        assert_eq!(first[0], format!("task-{value:016x}"));
    }
}
