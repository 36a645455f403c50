//! How late the check's own timers fired during a run: a measure of how busy the machine
//! was. A check run is real time, and on a machine whose cores are all taken (by `--jobs`
//! runs at once, each a program beside its runtimes, or by anything else) every timer fires
//! late: the runtimes' work takes longer than its personality says and a program acts on its
//! deadlines later than it meant to. A run that missed a deadline while the timers ran this
//! late may have missed it for the machine, not for the program; its rerun line runs it alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::task::JoinHandle;

/// How often the probe's timer is set.
const PERIOD: Duration = Duration::from_millis(20);

/// How late (in milliseconds) the timers must have fired for a run's machine to count as
/// busy: on a machine with a core to spare they fire within a few.
const BUSY_MS: u64 = 50;

/// A run's timers fired up to `late_ms` late, in words for its reader.
pub(super) fn described(late_ms: u64) -> String {
    let busy = if late_ms < BUSY_MS {
        "quiet"
    } else {
        "busy: the runtimes' work took longer than their personalities say and the program's \
         timers fired late too, so a deadline missed by a little may be the machine's; the \
         rerun line runs the run alone"
    };
    format!("machine: the check's timers fired up to {late_ms} ms late during the run ({busy})")
}

/// A timer set every [`PERIOD`] on the current tokio runtime, noting the most any one fired
/// late, until [`TimerLateness::stop`] or until dropped.
pub(super) struct TimerLateness {
    worst_ms: Arc<AtomicU64>,
    probe: JoinHandle<()>,
}

impl TimerLateness {
    /// Starts probing on the current tokio runtime.
    pub(super) fn start() -> Self {
        let worst_ms = Arc::new(AtomicU64::new(0));
        let noted = Arc::clone(&worst_ms);
        let probe = tokio::spawn(async move {
            loop {
                let set = std::time::Instant::now(); // wall-clock-ok: meshsim check runs in real time; this measures how late its timers fire
                meshsim_time::sleep(PERIOD).await;
                let late = set.elapsed().saturating_sub(PERIOD);
                noted.fetch_max(
                    u64::try_from(late.as_millis()).unwrap_or(u64::MAX),
                    Ordering::Relaxed,
                );
            }
        });
        TimerLateness { worst_ms, probe }
    }

    /// Stops probing; the most a timer fired late, in milliseconds.
    pub(super) fn stop(self) -> u64 {
        self.worst_ms.load(Ordering::Relaxed)
    }
}

/// A run that ends early (a runtime that cannot start) stops its probe too.
impl Drop for TimerLateness {
    fn drop(&mut self) {
        self.probe.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A runtime whose only thread is kept busy cannot fire the probe's timer on time: the
    /// probe reports at least the time it was kept from it, less one period.
    #[test]
    fn a_thread_kept_busy_makes_the_timer_fire_late_by_as_long() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let worst = runtime.block_on(async {
            let lateness = TimerLateness::start();
            // The probe sets its first timer.
            tokio::task::yield_now().await;
            std::thread::sleep(Duration::from_millis(300)); // wall-clock-ok: blocks the runtime's thread, which is what the probe measures
            // The probe's timer fires first, and the probe notes it before this one ends.
            meshsim_time::sleep(PERIOD * 2).await;
            lateness.stop()
        });
        assert!(worst >= 280, "{worst} ms");
        assert!(described(worst).ends_with("late during the run (busy: the runtimes' work took longer than their personalities say and the program's timers fired late too, so a deadline missed by a little may be the machine's; the rerun line runs the run alone)"));
        assert_eq!(
            described(49),
            "machine: the check's timers fired up to 49 ms late during the run (quiet)"
        );
    }
}
