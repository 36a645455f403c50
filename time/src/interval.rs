//! [`Interval`]: a periodic timer whose next deadline is always registered.

use std::time::Duration;

use tokio::time::Instant;

use crate::sleep::{Sleep, sleep_until};

/// How late a tick may be observed and still keep the schedule (tokio's own tolerance).
const LATE_TOLERANCE: Duration = Duration::from_millis(5);

/// Ticks every `period` from `start`; a tick observed late delays the ones after it. This is
/// tokio's `interval_at` with `MissedTickBehavior::Delay`, built on a registered [`Sleep`]
/// so that the next tick's deadline is known (tokio's `Interval` does not tell it).
#[derive(Debug)]
pub struct Interval {
    next: Sleep,
    period: Duration,
}

impl Interval {
    /// First tick at `start`, then every `period` (at least 1 ms, as tokio requires).
    pub fn delayed_at(start: Instant, period: Duration) -> Self {
        Self {
            next: sleep_until(start),
            period: period.max(Duration::from_millis(1)),
        }
    }

    /// Waits for the next tick and returns its scheduled instant. Cancel-safe: dropping the
    /// future keeps the tick pending.
    pub async fn tick(&mut self) -> Instant {
        (&mut self.next).await;
        let due = self.next.deadline();
        let now = Instant::now();
        let following = if now > due + LATE_TOLERANCE {
            now + self.period
        } else {
            due + self.period
        };
        self.next.reset(following);
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Deadlines, watch};

    fn at_zero() -> Option<(std::net::IpAddr, Duration)> {
        Some((std::net::Ipv4Addr::LOCALHOST.into(), Duration::ZERO))
    }

    #[tokio::test(start_paused = true)]
    async fn ticks_keep_their_schedule_and_a_late_one_delays_the_rest() {
        let deadlines = Deadlines::new();
        let _watch = watch(deadlines.clone(), at_zero);
        let start = Instant::now();
        let period = Duration::from_millis(100);
        let mut interval = Interval::delayed_at(start + period, period);
        assert_eq!(interval.tick().await, start + period);
        // The next tick is registered, 100 ms ahead (the test's simulated clock stands still).
        assert_eq!(deadlines.next(), Some(Duration::from_millis(100)));
        assert_eq!(interval.tick().await, start + 2 * period);
        crate::sleep(Duration::from_millis(150)).await;
        // Due at 300 ms, observed at 350 ms: the next is at 450 ms.
        assert_eq!(interval.tick().await, start + 3 * period);
        assert_eq!(interval.tick().await, start + Duration::from_millis(450));
        assert_eq!(deadlines.len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn it_ticks_like_tokios_delayed_interval() {
        let start = Instant::now() + Duration::from_millis(30);
        let period = Duration::from_millis(70);
        let mut ours = Interval::delayed_at(start, period);
        #[allow(clippy::disallowed_methods)] // The reference behaviour.
        let mut tokios = tokio::time::interval_at(start, period);
        tokios.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        for late in [0, 3, 40, 0, 200, 5, 6] {
            assert_eq!(ours.tick().await, tokios.tick().await);
            crate::sleep(Duration::from_millis(late)).await;
        }
    }
}
