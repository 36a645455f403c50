//! The recorder: the canonical JSON lines of one run,
//! `{"fields":{..},"host":..,"level":..,"t_us":..,"target":..}`, and their hash, in memory and
//! optionally mirrored to a JSONL file. The `tracing` subscriber that writes into it is in
//! `subscriber.rs` ([`Recorder::install`]).

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
    lines: Vec<String>,
    hasher: Sha256,
    file: Option<BufWriter<File>>,
    file_error: Option<io::Error>,
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("lines", &self.lines.len())
            .finish()
    }
}

/// A snapshot of a recorded trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    lines: Vec<String>,
    hash: TraceHash,
}

impl Trace {
    /// The canonical JSON lines, in the order the events happened.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// The hash of [`Trace::lines`].
    pub fn hash(&self) -> &TraceHash {
        &self.hash
    }

    /// The lines read back as events.
    pub fn events(&self) -> Vec<TraceLine> {
        self.lines
            .iter()
            .filter_map(|line| TraceLine::parse(line))
            .collect()
    }
}

impl Recorder {
    /// An empty recorder stamping events outside hosts with `time`.
    pub fn new(time: SimTime) -> Self {
        Self {
            state: Arc::new(Mutex::new(State {
                lines: Vec::new(),
                hasher: Sha256::new(),
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
        let state = self.lock();
        Trace {
            lines: state.lines.clone(),
            hash: TraceHash::from_digest(state.hasher.clone()),
        }
    }

    /// The lines recorded and their hash, leaving the recorder empty: for the end of a run,
    /// when nothing more will be recorded, without copying every line.
    pub fn take_trace(&self) -> Trace {
        let mut state = self.lock();
        Trace {
            lines: std::mem::take(&mut state.lines),
            hash: TraceHash::from_digest(std::mem::replace(&mut state.hasher, Sha256::new())),
        }
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

    /// Appends one canonical line: to the hash, the lines and the file.
    pub(super) fn push(&self, line: String) {
        let mut state = self.lock();
        state.hasher.update(line.as_bytes());
        state.hasher.update(b"\n");
        let State {
            file, file_error, ..
        } = &mut *state;
        if let Some(writer) = file.as_mut()
            && file_error.is_none()
            && let Err(err) = writeln!(writer, "{line}")
        {
            *file_error = Some(err);
        }
        state.lines.push(line);
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
            trace.lines(),
            [
                r#"{"fields":{"label":"x","message":"hello","n":3,"ok":true},"host":"sim","level":"INFO","t_us":7000,"target":"meshsim::test"}"#
            ]
        );
        assert_eq!(
            trace.hash(),
            &TraceHash::of_lines(trace.lines().iter().map(String::as_str))
        );
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
        assert_eq!(lines, recorder.trace().lines());
        assert_eq!(TraceHash::of_lines(lines), *recorder.trace().hash());
    }
}
