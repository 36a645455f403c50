//! [`timeout`] and [`timeout_at`]: tokio's timeout with its deadline registered.

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;
use tokio::time::error::Elapsed;

use crate::deadlines::Registration;

/// Runs `future` for at most `duration` (tokio's `timeout`, registered). The deadline is
/// fixed now, when it is called, as tokio's is.
pub fn timeout<F: Future>(
    duration: Duration,
    future: F,
) -> impl Future<Output = Result<F::Output, Elapsed>> {
    timeout_at(Instant::now() + duration, future)
}

/// Runs `future` until `deadline` at most (tokio's `timeout_at`, registered).
pub fn timeout_at<F: Future>(
    deadline: Instant,
    future: F,
) -> impl Future<Output = Result<F::Output, Elapsed>> {
    let registration = Registration::new(deadline);
    #[allow(clippy::disallowed_methods)] // This is the door the rule sends timers through.
    let bounded = tokio::time::timeout_at(deadline, future);
    async move {
        let outcome = bounded.await;
        drop(registration);
        outcome
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
    async fn a_timeout_is_registered_from_the_call_until_it_ends() {
        let deadlines = Deadlines::new();
        let _watch = watch(deadlines.clone(), at_zero);
        let bounded = timeout(Duration::from_millis(50), std::future::pending::<()>());
        assert_eq!(deadlines.next(), Some(Duration::from_millis(50)));
        assert!(bounded.await.is_err());
        assert!(deadlines.is_empty());
        let quick = timeout(Duration::from_millis(50), async { 7 });
        assert_eq!(quick.await.ok(), Some(7));
        assert!(deadlines.is_empty());
    }
}
