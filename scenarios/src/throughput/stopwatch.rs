//! Timing a stretch of work on the calling thread by two clocks at once: the wall clock,
//! which other processes on a busy machine slow down, and the thread's own CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`), which counts only what this thread ran. Simulated runs and
//! the floor's replays run entirely on the calling thread, so its CPU time is their cost.

use serde::Serialize;
use std::time::{Duration, Instant};

/// Which clock a figure was timed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    /// The calling thread's CPU time: what the work cost, whatever else the machine runs.
    ThreadCpu,
    /// Elapsed real time: what a user waits, depressed by load.
    Wall,
}

impl Clock {
    /// Both, thread CPU first.
    pub const BOTH: [Clock; 2] = [Clock::ThreadCpu, Clock::Wall];

    /// The name the JSON and the table use.
    pub fn name(self) -> &'static str {
        match self {
            Clock::ThreadCpu => "thread_cpu",
            Clock::Wall => "wall",
        }
    }
}

/// The time a stretch of work took by each clock.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Elapsed {
    pub wall: Duration,
    pub thread_cpu: Duration,
}

impl Elapsed {
    /// The time by `clock`.
    pub fn by(self, clock: Clock) -> Duration {
        match clock {
            Clock::ThreadCpu => self.thread_cpu,
            Clock::Wall => self.wall,
        }
    }
}

/// Started on a thread, read on the same thread.
pub struct Stopwatch {
    wall: Instant,
    thread_cpu: Duration,
}

impl Stopwatch {
    pub fn start() -> Stopwatch {
        Stopwatch {
            wall: Instant::now(), // wall-clock-ok: the benchmark times runs from outside them
            thread_cpu: thread_cpu_time(),
        }
    }

    /// The time since [`Stopwatch::start`] by both clocks.
    pub fn elapsed(&self) -> Elapsed {
        Elapsed {
            wall: self.wall.elapsed(),
            thread_cpu: thread_cpu_time().saturating_sub(self.thread_cpu),
        }
    }
}

/// The CPU time the calling thread has used so far.
fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec it is given, which lives for the call.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    // Every Linux since 2.6.12 has this clock; should one not, the figures read zero
    // (reported as such), never a panic.
    if status != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        u64::try_from(now.tv_sec).unwrap_or(0),
        u32::try_from(now.tv_nsec).unwrap_or(0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_cpu_time_counts_work_and_not_sleep() {
        let watch = Stopwatch::start();
        std::thread::sleep(Duration::from_millis(30));
        let slept = watch.elapsed();
        // Sleeping costs the thread (almost) nothing; spinning costs it what it spins.
        let watch = Stopwatch::start();
        let mut spun = 0u64;
        while watch.elapsed().thread_cpu < Duration::from_millis(5) {
            spun = std::hint::black_box(spun + 1);
        }
        assert!(slept.thread_cpu < watch.elapsed().thread_cpu, "{slept:?}");
    }
}
