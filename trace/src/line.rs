//! Reading a recorded line back: [`TraceLine`], the event as the same [`TraceEvent`] that
//! was emitted, with the host and simulated time the recorder stamped on it.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::event::{Applied, TraceEvent};
use crate::read::Fields;
use crate::target::CONSUMER_TARGET;

/// One recorded line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceLine {
    /// Simulated time since the run started, in microseconds.
    pub t_us: u64,
    /// The host the event happened on (`sim` outside any host).
    pub host: String,
    /// The `tracing` target it was emitted with.
    pub target: String,
    pub event: TraceEvent<'static>,
    /// Every field as ` name=value`, in the line's (bytewise) order: the event as text.
    pub fields_text: String,
}

impl TraceLine {
    /// Parses a recorded line; `None` when it is not a JSON object. An event this crate does
    /// not know reads as [`TraceEvent::Unrecognised`].
    pub fn parse(line: &str) -> Option<TraceLine> {
        let value = Read::of(line)?;
        Some(TraceLine {
            t_us: value.t_us(),
            host: value.host().to_string(),
            target: value.target()?.to_string(),
            event: value.event()?,
            fields_text: value.fields().map(fields_text).unwrap_or_default(),
        })
    }

    /// The consumer's `applied` event on `line` and its time in microseconds, if the line is
    /// one. A textual test comes first, so searching a whole trace parses only candidates.
    pub fn parse_applied(line: &str) -> Option<(u64, Applied<'static>)> {
        if !line.contains(r#""event":"applied""#) {
            return None;
        }
        let value = Read::of(line)?;
        match value.event()? {
            TraceEvent::Applied(applied) => Some((value.t_us(), applied)),
            _ => None,
        }
    }

    /// The line if it records a consumer's event (target `meshsim::consumer`). A textual
    /// test comes first, so searching a whole trace for the consumers' acts parses only
    /// their lines.
    pub fn parse_consumer(line: &str) -> Option<TraceLine> {
        if !line.contains(CONSUMER_TARGET) {
            return None;
        }
        TraceLine::parse(line).filter(|parsed| parsed.target == CONSUMER_TARGET)
    }

    /// Simulated milliseconds since the run started.
    pub fn at_ms(&self) -> f64 {
        self.t_us as f64 / 1000.0
    }
}

/// A line's JSON, read once for the parts a caller wants.
struct Read(Value);

impl Read {
    fn of(line: &str) -> Option<Read> {
        serde_json::from_str(line).ok().map(Read)
    }

    fn target(&self) -> Option<&str> {
        self.0.get("target")?.as_str()
    }

    fn host(&self) -> &str {
        self.0.get("host").and_then(Value::as_str).unwrap_or("?")
    }

    fn t_us(&self) -> u64 {
        self.0.get("t_us").and_then(Value::as_u64).unwrap_or(0)
    }

    fn fields(&self) -> Option<&Map<String, Value>> {
        self.0.get("fields").and_then(Value::as_object)
    }

    /// The event, [`TraceEvent::Unrecognised`] when this crate does not know it (every event
    /// has fields); `None` without a target.
    fn event(&self) -> Option<TraceEvent<'static>> {
        let target = self.target()?;
        Some(
            self.fields()
                .and_then(|fields| Fields(fields).event(target))
                .unwrap_or(TraceEvent::Unrecognised),
        )
    }
}

/// The fields as ` name=value` (strings bare, anything else as JSON), written into one
/// string: the timeline and `replay` print it for every line.
fn fields_text(fields: &Map<String, Value>) -> String {
    let mut text = String::new();
    let mut names: Vec<&String> = fields.keys().collect();
    names.sort();
    for name in names {
        let _ = match &fields[name] {
            Value::String(value) => write!(text, " {name}={value}"),
            other => write!(text, " {name}={other}"),
        };
    }
    text
}
