//! The pinned epoch and the simulated clock. Turmoil's epoch defaults to the wall clock, so
//! the runner pins it to [`epoch()`]; [`sim_clock`] hands runtimes and consumers a protocol
//! [`Clock`] that reads simulated time since that epoch.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use meshsim_protocol::clock::Clock;

/// Seconds from the Unix epoch to 2026-11-07T00:00:00Z, where every simulation starts.
pub const EPOCH_SECS: u64 = 1_794_009_600;

/// The pinned start of every simulation (2026-11-07T00:00:00Z).
pub fn epoch() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(EPOCH_SECS)
}

/// A clock reading `turmoil::since_epoch()` of the host that reads it.
///
/// Read outside a running host (e.g. by an oracle between steps) it returns the last
/// simulated time it observed, starting at [`epoch()`], so it never consults the wall clock and
/// never goes backwards.
pub fn sim_clock() -> Clock {
    let last_micros = Arc::new(AtomicU64::new(EPOCH_SECS * 1_000_000));
    Clock::from_fn(move || match turmoil::since_epoch() {
        Some(now) => {
            let micros = u64::try_from(now.as_micros()).unwrap_or(u64::MAX);
            last_micros.fetch_max(micros, Ordering::Relaxed);
            Duration::from_micros(last_micros.load(Ordering::Relaxed))
        }
        None => Duration::from_micros(last_micros.load(Ordering::Relaxed)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_protocol::clock::rfc3339;

    #[test]
    fn epoch_is_the_pinned_date() {
        let since = epoch().duration_since(UNIX_EPOCH).unwrap();
        assert_eq!(rfc3339(since), "2026-11-07T00:00:00.000Z");
    }

    #[test]
    fn reads_simulated_time_inside_a_host() {
        let mut sim = turmoil::Builder::new().epoch(epoch()).build();
        sim.client("reader", async {
            let clock = sim_clock();
            meshsim_time::sleep(Duration::from_millis(1500)).await;
            let stamp = clock.now_rfc3339();
            if stamp != "2026-11-07T00:00:01.500Z" {
                return Err(format!("unexpected simulated time {stamp}").into());
            }
            Ok(())
        });
        sim.run().unwrap();
    }

    #[test]
    fn outside_a_host_it_keeps_the_last_reading() {
        let clock = sim_clock();
        assert_eq!(clock.now(), Duration::from_secs(EPOCH_SECS));
    }

    /// A crash drops the host's tasks between steps, outside any runtime, where tokio's
    /// `Instant::now` is the wall clock. What they read then is the host's simulated time,
    /// however long the process stood still before the crash (a loaded machine, a paused
    /// job): the test stands still 50 ms, longer than the 3 ms the host has run.
    #[test]
    fn a_task_dropped_by_a_crash_reads_simulated_time_whatever_the_wall_clock_did() {
        use std::sync::Mutex;
        struct ReadsOnDrop(Clock, Arc<Mutex<Option<String>>>);
        impl Drop for ReadsOnDrop {
            fn drop(&mut self) {
                *self.1.lock().unwrap() = Some(self.0.now_rfc3339());
            }
        }
        let read = Arc::new(Mutex::new(None));
        let mut sim = turmoil::Builder::new().epoch(epoch()).build();
        let slot = read.clone();
        sim.host("host", move || {
            let slot = slot.clone();
            async move {
                let _reads = ReadsOnDrop(sim_clock(), slot);
                std::future::pending::<()>().await;
                Ok(())
            }
        });
        for _ in 0..3 {
            sim.step().unwrap();
        }
        std::thread::sleep(Duration::from_millis(50)); // wall-clock-ok: stands still on purpose
        sim.crash("host");
        assert_eq!(
            read.lock().unwrap().as_deref(),
            Some("2026-11-07T00:00:00.003Z")
        );
    }
}
