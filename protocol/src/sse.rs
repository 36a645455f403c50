//! Server-Sent Events, as A2A streams use them: each event is one `data:` line holding a
//! whole JSON-RPC response, then a blank line; servers may interleave `:` comment lines
//! (keep-alive pings). [`frame`] writes an event; [`SseParser`] reads a byte stream back
//! into events incrementally, whatever the chunking, with a bound on an event's size.

use std::collections::VecDeque;

/// The default bound on one event's size: 1 MiB.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 1 << 20;

/// The `Content-Type` of an SSE response.
pub const CONTENT_TYPE: &str = "text/event-stream";

/// An event carrying `data`: `data: <data>\n\n`. A payload with line breaks becomes one
/// `data:` line per line, which a parser joins back with `\n`.
pub fn frame(data: &str) -> String {
    let mut out = String::with_capacity(data.len() + 8);
    for line in data.split('\n') {
        out.push_str("data: ");
        out.push_str(line.strip_suffix('\r').unwrap_or(line));
        out.push('\n');
    }
    out.push('\n');
    out
}

/// A comment line (`: <text>`), which parsers ignore: the keep-alive ping some runtimes send.
pub fn comment(text: &str) -> String {
    format!(": {}\n\n", text.replace(['\n', '\r'], " "))
}

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field (`error` from some runtimes); `None` for the default `message`.
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
}

/// An event the parser had to drop.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    #[error("SSE event larger than {limit} bytes; dropped")]
    TooLarge { limit: usize },
    #[error("SSE event is not valid UTF-8; dropped")]
    NotUtf8,
}

/// An incremental SSE parser: push bytes as they arrive, take events as they complete.
#[derive(Debug)]
pub struct SseParser {
    max_event_bytes: usize,
    line: Vec<u8>,
    /// Whether the current line has any byte (kept or discarded): a blank line ends an event.
    line_started: bool,
    after_cr: bool,
    data: Option<String>,
    event: Option<String>,
    event_bytes: usize,
    /// After an error, the rest of that event is discarded up to the next blank line.
    discarding: bool,
    ready: VecDeque<Result<SseEvent, SseError>>,
}

impl Default for SseParser {
    fn default() -> Self {
        SseParser::new(DEFAULT_MAX_EVENT_BYTES)
    }
}

impl SseParser {
    /// A parser that drops (and reports) any event larger than `max_event_bytes`.
    pub fn new(max_event_bytes: usize) -> Self {
        SseParser {
            max_event_bytes,
            line: Vec::new(),
            line_started: false,
            after_cr: false,
            data: None,
            event: None,
            event_bytes: 0,
            discarding: false,
            ready: VecDeque::new(),
        }
    }

    /// Feeds bytes; completed events become available from [`SseParser::next_event`].
    pub fn push(&mut self, mut bytes: &[u8]) {
        while let Some((&first, rest)) = bytes.split_first() {
            match first {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' => self.end_line(),
                b'\r' => {
                    self.end_line();
                    self.after_cr = true;
                }
                _ => {
                    let run = bytes
                        .iter()
                        .position(|byte| matches!(byte, b'\n' | b'\r'))
                        .unwrap_or(bytes.len());
                    self.take_run(&bytes[..run]);
                    bytes = &bytes[run..];
                    continue;
                }
            }
            bytes = rest;
        }
    }

    /// A run of bytes inside one line, taken whole rather than byte by byte (a stream event
    /// is one line of a kilobyte or so).
    fn take_run(&mut self, run: &[u8]) {
        self.after_cr = false;
        self.line_started = true;
        if self.discarding {
            return;
        }
        let room = self.max_event_bytes.saturating_sub(self.event_bytes);
        if run.len() > room {
            self.event_bytes += room + 1;
            self.fail(SseError::TooLarge {
                limit: self.max_event_bytes,
            });
        } else {
            self.event_bytes += run.len();
            self.line.extend_from_slice(run);
        }
    }

    /// The next completed event, or an error for one that had to be dropped.
    pub fn next_event(&mut self) -> Option<Result<SseEvent, SseError>> {
        self.ready.pop_front()
    }

    /// Feeds bytes and returns every event they completed.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Result<SseEvent, SseError>> {
        self.push(bytes);
        self.ready.drain(..).collect()
    }

    /// Whether part of an event is buffered: a stream that ends now was cut mid-event
    /// (the partial event is never dispatched).
    pub fn has_partial_event(&self) -> bool {
        !self.line.is_empty() || self.data.is_some() || self.event.is_some()
    }

    fn fail(&mut self, error: SseError) {
        self.ready.push_back(Err(error));
        self.discarding = true;
        self.line.clear();
        self.data = None;
        self.event = None;
    }

    fn end_line(&mut self) {
        let line = std::mem::take(&mut self.line);
        if !std::mem::take(&mut self.line_started) {
            self.dispatch();
            return;
        }
        if self.discarding {
            return;
        }
        let Ok(line) = String::from_utf8(line) else {
            self.fail(SseError::NotUtf8);
            return;
        };
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_str(), ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            "event" => self.event = Some(value.to_string()),
            // `id`, `retry` and unknown fields carry nothing A2A uses.
            _ => {}
        }
    }

    fn dispatch(&mut self) {
        self.event_bytes = 0;
        if std::mem::take(&mut self.discarding) {
            return;
        }
        let event = self.event.take();
        if let Some(data) = self.data.take() {
            self.ready.push_back(Ok(SseEvent { event, data }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data_of(events: Vec<Result<SseEvent, SseError>>) -> Vec<String> {
        events
            .into_iter()
            .map(|event| event.unwrap().data)
            .collect()
    }

    #[test]
    fn frames_parse_back_whatever_the_chunking() {
        let payloads = ["{\"a\":1}", "{\"b\":\"two\"}", "line one\nline two"];
        let stream: String = payloads.iter().map(|payload| frame(payload)).collect();
        let stream = format!(": ping - 2026-01-01\n\n{stream}");
        for chunk in 1..=stream.len() {
            let mut parser = SseParser::default();
            let mut events = Vec::new();
            for piece in stream.as_bytes().chunks(chunk) {
                events.extend(parser.feed(piece));
            }
            assert_eq!(data_of(events), payloads, "chunk size {chunk}");
            assert!(!parser.has_partial_event());
        }
    }

    #[test]
    fn comments_are_ignored_and_event_names_kept() {
        let mut parser = SseParser::default();
        let events =
            parser.feed(b": keepalive\r\n\r\nevent: error\r\ndata: x\r\n: mid\r\ndata:y\r\n\r\n");
        assert_eq!(
            events,
            vec![Ok(SseEvent {
                event: Some("error".to_string()),
                data: "x\ny".to_string()
            })]
        );
    }

    #[test]
    fn an_oversized_event_is_reported_and_the_next_one_still_parses() {
        let mut parser = SseParser::new(16);
        let big = frame(&"x".repeat(40));
        let mut input = big
            .replace("\n\n", "\ndata: more of the same event\n\n")
            .into_bytes();
        input.extend_from_slice(frame("ok").as_bytes());
        let events = parser.feed(&input);
        assert_eq!(events[0], Err(SseError::TooLarge { limit: 16 }));
        assert_eq!(events[1].as_ref().unwrap().data, "ok");
        assert_eq!(events.len(), 2);
    }

    #[test]
    fn the_size_limit_counts_every_byte_of_a_line_whatever_the_chunking() {
        // `data: ` and ten bytes fill a 16-byte limit; one more byte is over it.
        let at_limit = frame(&"x".repeat(10));
        let over = frame(&"y".repeat(11));
        let stream = format!("{at_limit}{over}{at_limit}");
        for chunk in 1..=stream.len() {
            let mut parser = SseParser::new(16);
            let mut events = Vec::new();
            for piece in stream.as_bytes().chunks(chunk) {
                events.extend(parser.feed(piece));
            }
            let ten = "x".repeat(10);
            let expected = [
                Ok(ten.as_str()),
                Err(SseError::TooLarge { limit: 16 }),
                Ok(&ten),
            ];
            let found: Vec<_> = events
                .iter()
                .map(|event| event.as_ref().map(|event| event.data.as_str()))
                .map(|event| event.map_err(Clone::clone))
                .collect();
            assert_eq!(found, expected, "chunk size {chunk}");
        }
    }

    #[test]
    fn invalid_utf8_drops_only_that_event() {
        let mut parser = SseParser::default();
        let events = parser.feed(b"data: \xff\xfe\n\ndata: fine\n\n");
        assert_eq!(events[0], Err(SseError::NotUtf8));
        assert_eq!(events[1].as_ref().unwrap().data, "fine");
    }

    #[test]
    fn a_cut_stream_leaves_a_partial_event() {
        let mut parser = SseParser::default();
        assert!(parser.feed(b"data: {\"half\":").is_empty());
        assert!(parser.has_partial_event());
        assert!(parser.feed(b"1}\n").is_empty());
        assert!(parser.has_partial_event());
        assert_eq!(data_of(parser.feed(b"\n")), vec!["{\"half\":1}"]);
    }

    #[test]
    fn comment_frames_carry_no_line_breaks() {
        assert_eq!(comment("ping\n1"), ": ping 1\n\n");
        assert!(
            SseParser::default()
                .feed(comment("a\r\nb").as_bytes())
                .is_empty()
        );
    }
}
