//! [`HyperTimer`]: hyper's timers (header read timeout, keep-alive) through `meshsim_time`,
//! so that the simulation knows their deadlines too.
//!
//! hyper dates its deadlines with [`hyper::rt::Timer::now`], whose default reads the wall
//! clock. Under a simulation that clock and tokio's (simulated) one drift apart, so a header
//! read timeout would fire at a simulated instant that depends on how fast the host machine
//! ran: [`HyperTimer`] answers `now` from tokio's clock.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// A `hyper::rt::Timer` whose sleeps are registered [`meshsim_time::Sleep`]s.
#[derive(Clone, Copy, Debug, Default)]
pub struct HyperTimer;

impl hyper::rt::Timer for HyperTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(HyperSleep(meshsim_time::sleep(duration)))
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(HyperSleep(meshsim_time::sleep_until(deadline.into())))
    }

    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }
}

/// A registered sleep as hyper's `Sleep`.
struct HyperSleep(meshsim_time::Sleep);

impl Future for HyperSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.0).poll(cx)
    }
}

impl hyper::rt::Sleep for HyperSleep {}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::rt::Timer;

    #[tokio::test(start_paused = true)]
    async fn now_follows_the_runtime_clock_not_the_wall_clock() {
        let before = HyperTimer.now();
        tokio::time::advance(Duration::from_secs(3600)).await;
        // Only a clock that moved with the paused runtime can be an hour later.
        assert!(HyperTimer.now() >= before + Duration::from_secs(3600));
    }
}
