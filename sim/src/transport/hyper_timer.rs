//! [`HyperTimer`]: hyper's timers (header read timeout, keep-alive) through `meshsim_time`,
//! so that the simulation knows their deadlines too.

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
