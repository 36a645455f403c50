//! The recorder: a `tracing` subscriber that turns every `meshsim*` event into one
//! canonical JSON line `{"fields":{..},"host":..,"level":..,"t_us":..,"target":..}`.
//!
//! The host is the `name` of the enclosing turmoil `node` span (turmoil enters one per host on
//! every step), or [`SIM_HOST`](super::SIM_HOST) outside any host. Time is the host's simulated
//! elapsed time while hosts are being stepped, and the runner's published time otherwise.
//! Install it on the thread that runs the simulation (turmoil runs every host there).

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use meshsim_trace::TraceLine;
use serde_json::{Number, Value};
use sha2::{Digest, Sha256};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::{DefaultGuard, Interest};
use tracing::{Event, Metadata, Subscriber};
use tracing_core::span::Current;

use super::canonical::{write_str, write_value};
use super::user_log::UserLog;
use super::{SIM_HOST, TraceHash};
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

    /// The subscriber that records into this recorder.
    pub fn subscriber(&self) -> RecorderSubscriber {
        RecorderSubscriber {
            recorder: self.clone(),
            spans: Mutex::default(),
        }
    }

    /// Makes this recorder's subscriber the current thread's default until the guard drops.
    pub fn install(&self) -> DefaultGuard {
        tracing::subscriber::set_default(self.subscriber())
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

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn push(&self, line: String) {
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

/// The subscriber a [`Recorder`] installs. It tracks only what the trace needs, which spans
/// are entered and which of them are turmoil's `node` spans, because turmoil opens and
/// closes one of those per host on every step, and a general-purpose span registry made
/// that a measurable share of a run's cost.
pub struct RecorderSubscriber {
    recorder: Recorder,
    spans: Mutex<Spans>,
}

/// The live spans, and the stack of those entered on the simulation's thread.
#[derive(Default)]
struct Spans {
    last_id: u64,
    live: BTreeMap<u64, LiveSpan>,
    entered: Vec<u64>,
}

struct LiveSpan {
    handles: usize,
    metadata: &'static Metadata<'static>,
    /// The host, for turmoil's `node` spans.
    host: Option<Arc<str>>,
}

impl Spans {
    /// The host of the innermost entered `node` span.
    fn current_host(&self) -> Option<Arc<str>> {
        self.entered
            .iter()
            .rev()
            .find_map(|id| self.live.get(id).and_then(|span| span.host.clone()))
    }
}

fn is_node_span(meta: &Metadata<'_>) -> bool {
    meta.is_span() && meta.name() == "node" && meta.target().starts_with("turmoil")
}

fn is_recorded(meta: &Metadata<'_>) -> bool {
    meta.target().starts_with("meshsim") || is_node_span(meta)
}

/// A user's event that [`UserLog`] prints (never recorded).
fn is_user_logged(meta: &Metadata<'_>) -> bool {
    meta.is_event() && !meta.target().starts_with("meshsim") && UserLog::from_env().enables(meta)
}

impl RecorderSubscriber {
    fn spans(&self) -> MutexGuard<'_, Spans> {
        self.spans
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The simulated time of an event on `host`.
    fn elapsed(&self, host: Option<&str>) -> std::time::Duration {
        let time = &self.recorder.time;
        match (host, time.is_stepping()) {
            (Some(_), true) => turmoil::sim_elapsed().unwrap_or_else(|| time.elapsed()),
            _ => time.elapsed(),
        }
    }

    /// A user's event as a log line: `[  330.000 ms consumer] INFO target: message k=v`.
    fn user_line(&self, event: &Event<'_>, host: Option<&str>) -> String {
        let meta = event.metadata();
        let mut fields = FieldMap::default();
        event.record(&mut fields);
        let millis = self.elapsed(host).as_secs_f64() * 1000.0;
        let mut line = format!(
            "[{millis:>10.3} ms {}] {:>5} {}:",
            host.unwrap_or(SIM_HOST),
            meta.level(),
            meta.target()
        );
        if let Some(Value::String(message)) = fields.0.remove("message") {
            let _ = write!(line, " {message}");
        }
        for (name, value) in &fields.0 {
            match value {
                Value::String(text) => {
                    let _ = write!(line, " {name}={text}");
                }
                other => {
                    let _ = write!(line, " {name}={other}");
                }
            }
        }
        line
    }

    fn line(&self, event: &Event<'_>, host: Option<&str>) -> String {
        let meta = event.metadata();
        let elapsed = self.elapsed(host);
        let mut fields = FieldMap::default();
        event.record(&mut fields);
        // The canonical line, written directly: keys in bytewise order at both levels.
        let mut line = String::with_capacity(256);
        line.push_str("{\"fields\":{");
        for (index, (name, value)) in fields.0.iter().enumerate() {
            if index > 0 {
                line.push(',');
            }
            write_str(name, &mut line);
            line.push(':');
            write_value(value, &mut line);
        }
        line.push_str("},\"host\":");
        write_str(host.unwrap_or(SIM_HOST), &mut line);
        line.push_str(",\"level\":");
        write_str(meta.level().as_str(), &mut line);
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        let _ = write!(line, ",\"t_us\":{micros},\"target\":");
        write_str(meta.target(), &mut line);
        line.push('}');
        line
    }
}

impl Subscriber for RecorderSubscriber {
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        if is_recorded(meta) || is_user_logged(meta) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, meta: &Metadata<'_>) -> bool {
        is_recorded(meta) || is_user_logged(meta)
    }

    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let host = is_node_span(attrs.metadata())
            .then(|| {
                let mut name = NameField(None);
                attrs.record(&mut name);
                name.0.map(Arc::from)
            })
            .flatten();
        let mut spans = self.spans();
        spans.last_id += 1;
        let id = spans.last_id;
        spans.live.insert(
            id,
            LiveSpan {
                handles: 1,
                metadata: attrs.metadata(),
                host,
            },
        );
        Id::from_u64(id)
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let recorded = event.metadata().target().starts_with("meshsim");
        if !recorded && !is_user_logged(event.metadata()) {
            return;
        }
        let host = {
            let spans = self.spans();
            match event.parent() {
                Some(parent) => spans
                    .live
                    .get(&parent.into_u64())
                    .and_then(|span| span.host.clone()),
                None if event.is_contextual() => spans.current_host(),
                None => None,
            }
        };
        if recorded {
            let line = self.line(event, host.as_deref());
            self.recorder.push(line);
        } else {
            eprintln!("{}", self.user_line(event, host.as_deref()));
        }
    }

    fn enter(&self, span: &Id) {
        self.spans().entered.push(span.into_u64());
    }

    fn exit(&self, span: &Id) {
        let mut spans = self.spans();
        if let Some(position) = spans.entered.iter().rposition(|id| *id == span.into_u64()) {
            spans.entered.remove(position);
        }
    }

    fn clone_span(&self, span: &Id) -> Id {
        if let Some(live) = self.spans().live.get_mut(&span.into_u64()) {
            live.handles += 1;
        }
        span.clone()
    }

    fn try_close(&self, span: Id) -> bool {
        let mut spans = self.spans();
        let id = span.into_u64();
        let Some(live) = spans.live.get_mut(&id) else {
            return false;
        };
        live.handles -= 1;
        if live.handles > 0 {
            return false;
        }
        spans.live.remove(&id);
        true
    }

    fn current_span(&self) -> Current {
        let spans = self.spans();
        spans
            .entered
            .last()
            .and_then(|id| spans.live.get(id).map(|span| (*id, span.metadata)))
            .map_or_else(Current::none, |(id, metadata)| {
                Current::new(Id::from_u64(id), metadata)
            })
    }
}

/// Collects an event's fields as JSON values, by name (bytewise order, as canonical JSON
/// wants them).
#[derive(Default)]
struct FieldMap(BTreeMap<&'static str, Value>);

/// Reads the `name` field of a span.
struct NameField(Option<String>);

impl Visit for NameField {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "name" {
            self.0 = Some(value.to_string());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "name" {
            self.0 = Some(format!("{value:?}"));
        }
    }
}

impl Visit for FieldMap {
    fn record_f64(&mut self, field: &Field, value: f64) {
        let json =
            Number::from_f64(value).map_or_else(|| Value::String(value.to_string()), Value::Number);
        self.0.insert(field.name(), json);
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name(), value.into());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name(), value.into());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name(), value.into());
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name(), value.into());
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.0.insert(field.name(), value.to_string().into());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name(), format!("{value:?}").into());
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
