//! [`sleep`] and [`sleep_until`]: tokio's sleep with its deadline registered.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::Instant;

use crate::deadlines::Registration;

/// Waits until `duration` has passed (tokio's `sleep`, registered).
pub fn sleep(duration: Duration) -> Sleep {
    sleep_until(Instant::now() + duration)
}

/// Waits until `deadline` (tokio's `sleep_until`, registered).
pub fn sleep_until(deadline: Instant) -> Sleep {
    #[allow(clippy::disallowed_methods)] // This is the door the rule sends timers through.
    let inner = Box::pin(tokio::time::sleep_until(deadline));
    Sleep {
        inner,
        registration: Registration::new(deadline),
    }
}

/// A registered sleep; its deadline leaves the registry when it completes or is dropped.
#[derive(Debug)]
#[must_use = "a sleep does nothing unless awaited"]
pub struct Sleep {
    inner: Pin<Box<tokio::time::Sleep>>,
    registration: Registration,
}

impl Sleep {
    /// When it completes.
    pub fn deadline(&self) -> Instant {
        self.inner.deadline()
    }

    /// Moves the deadline (also when it has already completed).
    pub fn reset(&mut self, deadline: Instant) {
        self.inner.as_mut().reset(deadline);
        self.registration = Registration::new(deadline);
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let polled = self.inner.as_mut().poll(cx);
        if polled.is_ready() {
            self.registration = Registration::none();
        }
        polled
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
    async fn a_sleep_is_registered_until_it_completes_and_a_reset_moves_it() {
        let deadlines = Deadlines::new();
        let _watch = watch(deadlines.clone(), at_zero);
        let mut nap = sleep(Duration::from_millis(40));
        assert_eq!(deadlines.next(), Some(Duration::from_millis(40)));
        nap.reset(Instant::now() + Duration::from_millis(10));
        assert_eq!(deadlines.next(), Some(Duration::from_millis(10)));
        let start = Instant::now();
        (&mut nap).await;
        assert_eq!(start.elapsed(), Duration::from_millis(10));
        assert_eq!(deadlines.next(), None);
        drop(nap);
        assert!(deadlines.is_empty());
    }
}
