//! Graceful shutdown of `meshsim serve`: SIGINT or SIGTERM stops accepting connections,
//! ends open streams cleanly (their final chunk is sent, so clients see the stream close,
//! not a reset) and waits, up to a grace period, for the answers still in flight.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Waits until nothing is in flight or `grace` has passed; how many were still in flight.
pub async fn drain(in_flight: &AtomicUsize, grace: Duration) -> usize {
    let deadline = tokio::time::Instant::now() + grace;
    while in_flight.load(Ordering::SeqCst) > 0 && tokio::time::Instant::now() < deadline {
        meshsim_time::sleep(Duration::from_millis(10)).await;
    }
    in_flight.load(Ordering::SeqCst)
}
