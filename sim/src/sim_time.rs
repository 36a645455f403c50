//! Simulated time as seen from outside the hosts. The runner publishes the simulation's
//! elapsed time here before every step and every fault it applies; the trace recorder reads it
//! to stamp events that happen outside a host's tick (faults, crash teardown), where asking
//! turmoil would be meaningless.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// A shared cell with the simulation's elapsed time and whether hosts are being stepped.
#[derive(Clone, Debug, Default)]
pub struct SimTime {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    elapsed_micros: AtomicU64,
    stepping: AtomicBool,
}

impl SimTime {
    /// A cell at time zero, not stepping.
    pub fn new() -> Self {
        Self::default()
    }

    /// Publishes the simulation's elapsed time (the start of the next step).
    pub fn set_elapsed(&self, elapsed: Duration) {
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        self.inner.elapsed_micros.store(micros, Ordering::Relaxed);
    }

    /// The last published elapsed time.
    pub fn elapsed(&self) -> Duration {
        Duration::from_micros(self.inner.elapsed_micros.load(Ordering::Relaxed))
    }

    /// Marks whether hosts are being ticked right now: only then may a host's own simulated
    /// clock (`turmoil::sim_elapsed`) be read.
    pub fn set_stepping(&self, stepping: bool) {
        self.inner.stepping.store(stepping, Ordering::Relaxed);
    }

    /// Whether hosts are being ticked right now.
    pub fn is_stepping(&self) -> bool {
        self.inner.stepping.load(Ordering::Relaxed)
    }
}
