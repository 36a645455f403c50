//! The knobs of a run.

use std::time::{Duration, SystemTime};

use crate::clock::epoch;

/// Simulation parameters. `Default` gives a 1 ms tick with idle fast-forward, a 5 s chaos
/// phase, a 30 s liveness bound and 1..=20 ms link latency.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    /// Simulated time per step.
    pub tick: Duration,
    /// Length of the chaos phase; every fault of the plan falls inside it.
    pub chaos: Duration,
    /// After healing, how long the clients get to finish.
    pub liveness: Duration,
    /// Lower bound of a message's latency.
    pub min_latency: Duration,
    /// Upper bound of a message's latency.
    pub max_latency: Duration,
    /// Turmoil's per-socket buffer, which is also the accept backlog (a connection burst
    /// beyond it makes turmoil panic).
    pub tcp_capacity: usize,
    /// Let turmoil shuffle the order hosts run in each step (drawn from the seed). The
    /// shuffle draws from the seed on every step, so it turns idle fast-forward off.
    pub random_node_order: bool,
    /// Take a stretch of steps in which no host has anything to do as one step (idle
    /// fast-forward). The trace is the same either way, byte for byte; off, every step is
    /// taken one by one.
    pub fast_forward: bool,
    /// The simulated start time.
    pub epoch: SystemTime,
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            tick: Duration::from_millis(1),
            chaos: Duration::from_secs(5),
            liveness: Duration::from_secs(30),
            min_latency: Duration::from_millis(1),
            max_latency: Duration::from_millis(20),
            tcp_capacity: 256,
            random_node_order: false,
            fast_forward: true,
            epoch: epoch(),
        }
    }
}

impl RunConfig {
    /// Rejects settings turmoil would panic on or that could never finish.
    pub fn validate(&self) -> Result<(), String> {
        if self.tick.is_zero() {
            return Err("tick must be longer than zero".into());
        }
        if self.min_latency > self.max_latency {
            return Err(format!(
                "min_latency {:?} exceeds max_latency {:?}",
                self.min_latency, self.max_latency
            ));
        }
        if self.tcp_capacity == 0 {
            return Err("tcp_capacity must be at least 1".into());
        }
        if self.epoch < std::time::UNIX_EPOCH {
            return Err("epoch is before the Unix epoch".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_valid_and_bad_settings_are_named() {
        assert_eq!(RunConfig::default().validate(), Ok(()));
        let bad = RunConfig {
            min_latency: Duration::from_millis(5),
            max_latency: Duration::from_millis(1),
            ..RunConfig::default()
        };
        assert_eq!(
            bad.validate(),
            Err("min_latency 5ms exceeds max_latency 1ms".to_string())
        );
        let zero_tick = RunConfig {
            tick: Duration::ZERO,
            ..RunConfig::default()
        };
        assert!(zero_tick.validate().is_err());
        let no_buffer = RunConfig {
            tcp_capacity: 0,
            ..RunConfig::default()
        };
        assert!(no_buffer.validate().is_err());
    }
}
