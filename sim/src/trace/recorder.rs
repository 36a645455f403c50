//! The recorder: the canonical JSON lines of one run,
//! `{"fields":{..},"host":..,"level":..,"t_us":..,"target":..}`, and their hash, in memory and
//! optionally mirrored to a JSONL file. The `tracing` subscriber that writes into it is in
//! `subscriber.rs` ([`Recorder::install`]).
//!
//! The lines are kept as the JSONL text itself, one buffer with each line followed by `\n`, and
//! where each line starts: the subscriber writes each line straight onto the end of that
//! buffer (copying it there from a buffer of its own cost about 30 instructions a line), so
//! an event costs no allocation of its own, and the hash is taken over the buffer once, when
//! the trace is read, rather than a line at a time.

use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use meshsim_trace::TraceLine;
use sha2::{Digest, Sha256};

use super::TraceHash;
use crate::sim_time::SimTime;

/// Collects the canonical lines of one run (in memory, optionally mirrored to a JSONL file).
#[derive(Clone, Debug)]
pub struct Recorder {
    state: Arc<Mutex<State>>,
    time: SimTime,
}

struct State {
    lines: Lines,
    file: Option<BufWriter<File>>,
    file_error: Option<io::Error>,
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("lines", &self.lines.starts.len())
            .finish()
    }
}

/// Lines as JSONL text: every line followed by `\n`, and the offset where each starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Lines {
    text: String,
    starts: Vec<usize>,
}

/// The room a recorder starts with, in bytes and lines: a fault-free run of the incident
/// scenario records 51 lines in 8.8 kB, swarm faults bring that to 20 to 30 kB and 150 lines
/// or so. Growing the buffer from nothing cost more than the allocation per line it
/// replaces, and growing it from 16 kB copied the first 16 kB of most swarm-faulted runs.
const ROOM: (usize, usize) = (32 * 1024, 256);

impl Lines {
    fn with_room() -> Self {
        Self {
            text: String::with_capacity(ROOM.0),
            starts: Vec::with_capacity(ROOM.1),
        }
    }

    /// The line at `index`, without its `\n`.
    fn get(&self, index: usize) -> &str {
        let end = self
            .starts
            .get(index + 1)
            .map_or(self.text.len(), |next| *next);
        &self.text[self.starts[index]..end - 1]
    }

    fn hash(&self) -> TraceHash {
        let mut hasher = Sha256::new();
        hasher.update(self.text.as_bytes());
        TraceHash::from_digest(hasher)
    }
}

/// A snapshot of a recorded trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    lines: Lines,
    hash: TraceHash,
}

impl Trace {
    /// The canonical JSON lines, in the order the events were recorded. Each step runs the
    /// hosts one after another, each through the step's span of time, so a line may carry
    /// an earlier time than the line before it, when another host ran further into the same
    /// step first (seen from 10 ms steps on; not at the default 1 ms).
    pub fn lines(&self) -> impl ExactSizeIterator<Item = &str> + DoubleEndedIterator + Clone {
        (0..self.lines.starts.len()).map(|index| self.lines.get(index))
    }

    /// The hash of [`Trace::lines`].
    pub fn hash(&self) -> &TraceHash {
        &self.hash
    }

    /// The lines read back as events.
    pub fn events(&self) -> Vec<TraceLine> {
        self.lines().filter_map(TraceLine::parse).collect()
    }

    fn of(lines: Lines) -> Self {
        let hash = lines.hash();
        Self { lines, hash }
    }
}

impl Recorder {
    /// An empty recorder stamping events outside hosts with `time`.
    pub fn new(time: SimTime) -> Self {
        Self {
            state: Arc::new(Mutex::new(State {
                lines: Lines::with_room(),
                file: None,
                file_error: None,
            })),
            time,
        }
    }

    /// Also writes every future line to `path` (created or truncated).
    pub fn write_to(&self, path: &Path) -> io::Result<()> {
        let file = File::create(path)?;
        self.lock().file = Some(BufWriter::new(file));
        Ok(())
    }

    /// The lines recorded so far and their hash.
    pub fn trace(&self) -> Trace {
        Trace::of(self.lock().lines.clone())
    }

    /// The lines recorded and their hash, leaving the recorder empty: for the end of a run,
    /// when nothing more will be recorded, without copying every line.
    pub fn take_trace(&self) -> Trace {
        Trace::of(std::mem::take(&mut self.lock().lines))
    }

    /// Flushes the JSONL file, reporting the first write error if any occurred.
    pub fn flush(&self) -> io::Result<()> {
        let mut state = self.lock();
        if let Some(err) = state.file_error.take() {
            return Err(err);
        }
        match state.file.as_mut() {
            Some(file) => file.flush(),
            None => Ok(()),
        }
    }

    /// The published simulated time, for events outside a host's step.
    pub(super) fn time(&self) -> &SimTime {
        &self.time
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Appends the canonical line that `write` appends to the text it is given (without its
    /// `\n`): to the lines and the file. The recorder is locked meanwhile, so `write` must not
    /// read the trace (nor can it record: tracing dispatches no event raised while another
    /// is dispatched).
    pub(super) fn push_line(&self, write: impl FnOnce(&mut String)) {
        let mut state = self.lock();
        let State {
            lines,
            file,
            file_error,
        } = &mut *state;
        let start = lines.text.len();
        write(&mut lines.text);
        lines.text.push('\n');
        lines.starts.push(start);
        if let Some(writer) = file.as_mut()
            && file_error.is_none()
            && let Err(err) = writer.write_all(&lines.text.as_bytes()[start..])
        {
            *file_error = Some(err);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn records_meshsim_events_only_with_host_and_time() {
        let time = SimTime::new();
        let recorder = Recorder::new(time.clone());
        let _guard = recorder.install();
        time.set_elapsed(Duration::from_millis(7));
        tracing::info!(target: "meshsim::test", n = 3u64, ok = true, label = "x", "hello");
        tracing::info!(target: "other", "ignored");
        let trace = recorder.trace();
        assert_eq!(
            trace.lines().collect::<Vec<_>>(),
            [
                r#"{"fields":{"label":"x","message":"hello","n":3,"ok":true},"host":"sim","level":"INFO","t_us":7000,"target":"meshsim::test"}"#
            ]
        );
        assert_eq!(trace.hash(), &TraceHash::of_lines(trace.lines()));
    }

    #[test]
    fn stamps_events_with_the_turmoil_host_and_its_simulated_time() {
        let time = SimTime::new();
        let recorder = Recorder::new(time.clone());
        let _guard = recorder.install();
        let mut sim = turmoil::Builder::new().build();
        sim.client("alpha", async {
            meshsim_time::sleep(Duration::from_millis(25)).await;
            tracing::info!(target: "meshsim::test", "inside");
            Ok(())
        });
        time.set_stepping(true);
        sim.run().unwrap();
        let events = recorder.trace().events();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].host, "alpha");
        assert_eq!(events[0].t_us, 25_000);
    }

    #[test]
    fn mirrors_lines_to_a_jsonl_file() {
        let path =
            std::env::temp_dir().join(format!("meshsim-recorder-{}.jsonl", std::process::id()));
        let recorder = Recorder::new(SimTime::new());
        recorder.write_to(&path).unwrap();
        {
            let _guard = recorder.install();
            tracing::warn!(target: "meshsim::test", a = 1i64);
            tracing::warn!(target: "meshsim::test", a = 2i64);
        }
        recorder.flush().unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let lines: Vec<&str> = written.lines().collect();
        assert_eq!(lines, recorder.trace().lines().collect::<Vec<_>>());
        assert_eq!(TraceHash::of_lines(lines), *recorder.trace().hash());
    }
}
