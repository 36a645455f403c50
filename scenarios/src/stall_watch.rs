//! The wall-clock watch a sweep keeps over its runs, for a consumer that blocks its thread.
//!
//! A run takes milliseconds of wall time. Every host of a run is stepped on one thread, so a
//! host that blocks it (`std::thread::sleep`, a synchronous socket or HTTP client, a loop
//! that never reaches an `.await`) stops the whole run, and nothing inside the simulation
//! can interrupt it: the test just hangs. The sweep cannot stop such a run either, but it
//! can say which run it is and why it is likely stuck, once, while the test hangs. The
//! watch only prints: it reads the wall clock outside every run, and nothing a run does or
//! records depends on it.

use crate::run_spec::RunSpec;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a run may take before the sweep says it is likely stuck: a thousand times what
/// a run takes, even in a debug build.
pub(crate) const STALL_AFTER: Duration = Duration::from_secs(10);

/// Names a run for the person reading: its rerun line or replay command.
pub(crate) type NameRun<'a> = &'a (dyn Fn(&RunSpec) -> String + Sync);

/// The runs of a sweep in flight, by index, and which of them were said to be stuck.
pub(crate) struct StallWatch<'a> {
    after: Duration,
    name_run: NameRun<'a>,
    warn: Box<dyn Fn(&str) + Sync + 'a>,
    started: Mutex<BTreeMap<usize, Instant>>,
    warned: Mutex<BTreeSet<usize>>,
}

impl<'a> StallWatch<'a> {
    /// A watch that writes to standard error after [`STALL_AFTER`], past the test harness's
    /// capture (the test has not failed: it hangs).
    pub(crate) fn on_stderr(name_run: NameRun<'a>) -> Self {
        Self::new(STALL_AFTER, name_run, |warning: &str| {
            let _ = std::io::stderr().write_all(warning.as_bytes());
        })
    }

    /// A watch that hands each warning to `warn` once a run has taken `after`.
    pub(crate) fn new(
        after: Duration,
        name_run: NameRun<'a>,
        warn: impl Fn(&str) + Sync + 'a,
    ) -> Self {
        StallWatch {
            after,
            name_run,
            warn: Box::new(warn),
            started: Mutex::new(BTreeMap::new()),
            warned: Mutex::new(BTreeSet::new()),
        }
    }

    /// How often the sweep should [`check`](Self::check) while it waits for results.
    pub(crate) fn check_every(&self) -> Duration {
        self.after.min(Duration::from_secs(1))
    }

    /// The run of `index` started.
    pub(crate) fn started(&self, index: usize) {
        let now = Instant::now(); // wall-clock-ok: read outside every run, only to print
        lock(&self.started).insert(index, now);
    }

    /// The run of `index` ended.
    pub(crate) fn ended(&self, index: usize) {
        lock(&self.started).remove(&index);
    }

    /// Says, once each, which runs in flight have taken the watch's time or more.
    pub(crate) fn check(&self, spec_at: &dyn Fn(usize) -> RunSpec) {
        let stuck: Vec<(usize, Duration)> = lock(&self.started)
            .iter()
            .map(|(index, started)| (*index, started.elapsed()))
            .filter(|(_, taken)| *taken >= self.after)
            .collect();
        for (index, taken) in stuck {
            if !lock(&self.warned).insert(index) {
                continue;
            }
            (self.warn)(&format!(
                "meshsim: a run has taken {} s of wall time, where runs take milliseconds: a \
                 host that blocks its thread (std::thread::sleep, a synchronous socket or HTTP \
                 client, a loop that never reaches an .await) stops the whole simulation, \
                 which cannot interrupt it. The run: {}\n",
                taken.as_secs(),
                (self.name_run)(&spec_at(index))
            ));
        }
    }
}

/// A lock the watch's own panics cannot poison for good.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ConsumerChoice, Faults, Matrix, Scenario};
    use meshsim_protocol::Dialect;
    use std::sync::Arc;
    use std::sync::mpsc;

    #[test]
    fn a_run_that_blocks_its_thread_is_named_while_it_blocks() {
        // The consumer's factory blocks the run's thread, as a blocking call in a consumer
        // does, until the watch has spoken (or a minute has passed, so that a watch that
        // never speaks fails the test rather than hanging it).
        let (release, released) = mpsc::channel::<()>();
        let released = Mutex::new(released);
        let blocking = ConsumerChoice::Custom {
            name: "blocks".to_string(),
            factory: Arc::new(move |connector, seed| {
                let _ = lock(&released).recv_timeout(Duration::from_secs(60));
                ConsumerChoice::Reconciling.build(connector, seed)
            }),
        };
        let warnings = Mutex::new(Vec::new());
        let name_run = |spec: &RunSpec| format!("seed {} of {}", spec.seed.value(), spec.scenario);
        let watch = StallWatch::new(Duration::from_millis(1), &name_run, |warning: &str| {
            lock(&warnings).push(warning.to_string());
            let _ = release.send(());
        });
        let tally = Matrix::for_consumer(blocking)
            .runtimes(["python-correct"])
            .scenarios([Scenario::OriginIncident])
            .dialects([Dialect::V1_0])
            .faults([Faults::None])
            .seeds(4..5)
            .run_watched(&watch, |_, _, _| {});
        assert_eq!(tally.runs, 1, "{tally:?}");
        drop(watch);
        let warnings = warnings.into_inner().unwrap();
        assert_eq!(warnings.len(), 1, "said once: {warnings:?}");
        for expected in [
            "a host that blocks its thread (std::thread::sleep",
            "The run: seed 4 of origin-incident\n",
        ] {
            assert!(warnings[0].contains(expected), "{}", warnings[0]);
        }
    }
}
