//! Relaying one event stream: its bytes go out as they come, its events are counted (an SSE
//! event ends with a blank line), and a trigger aimed at an event cuts the stream after it.
//! The first error an event carries is the exchange's refusal, as a plain answer's is.

use super::super::faults::Trigger;
use super::agent::Agent;
use super::exchange_log::{Exchange, OpenStream, refusal_of};
use crate::lock::lock;
use axum::body::Bytes;
use futures_util::StreamExt;
use meshsim_protocol::sse::SseParser;
use meshsim_sim::JsonStrings;
use std::io;
use std::sync::Arc;
use tokio::sync::watch;

pub(super) enum RelayState {
    Open,
    /// The next poll fails the body (the connection is cut), then the relay ends.
    Cut,
    Done,
}

/// Relays one stream's bytes, counting its events (an SSE event ends with a blank line).
/// When dropped it logs its exchange, with how it ended.
pub(super) struct StreamRelay {
    pub(super) exchange: Exchange,
    /// The JSON strings of the events relayed so far, for the task ids they carry.
    pub(super) strings: JsonStrings,
    pub(super) agent: Arc<Agent>,
    pub(super) call: u32,
    pub(super) stream: u32,
    pub(super) events: u32,
    pub(super) after_newline: bool,
    /// The events relayed so far, parsed, for the first error one carries.
    pub(super) parsed: SseParser,
    pub(super) generation: watch::Receiver<u64>,
    pub(super) body: axum::body::BodyDataStream,
    pub(super) state: RelayState,
    /// Declared after `body`, so dropped after the runtime's stream it holds.
    pub(super) _open: OpenStream,
}

impl StreamRelay {
    pub(super) async fn next(&mut self) -> Option<Result<Bytes, io::Error>> {
        match self.state {
            RelayState::Done => return None,
            RelayState::Cut => {
                // What went out before the cut reaches the program first. hyper's
                // connection writes what it holds to the socket after a body that has
                // nothing ready, and closes at once on a body's error, dropping what it
                // holds: failing right after the last event (and, for a first event, the
                // answer's head) would cut before it. One wait lets it write them.
                tokio::task::yield_now().await;
                self.state = RelayState::Done;
                self.exchange.end = "cut".to_string();
                return Some(Err(io::Error::new(
                    io::ErrorKind::ConnectionAborted,
                    "meshsim check: stream cut by a fault",
                )));
            }
            RelayState::Open => {}
        }
        let chunk = tokio::select! {
            chunk = self.body.next() => chunk,
            _ = self.generation.changed() => {
                // The instance that served this stream restarted: the stream dies with it.
                self.state = RelayState::Done;
                self.exchange.end = "runtime restarted".to_string();
                return Some(Err(io::Error::new(
                    io::ErrorKind::ConnectionAborted,
                    "meshsim check: the runtime restarted",
                )));
            }
        };
        match chunk {
            None => {
                self.state = RelayState::Done;
                self.exchange.end = "stream ended".to_string();
                None
            }
            Some(Err(error)) => {
                self.state = RelayState::Done;
                self.exchange.end = format!("runtime error: {error}");
                Some(Err(io::Error::other(error)))
            }
            Some(Ok(bytes)) => {
                let relayed = self.count(bytes);
                self.read_refusal(&relayed);
                let job = &self.exchange.job;
                self.agent
                    .relayed(&mut self.strings, &relayed, job, self.call);
                Some(Ok(relayed))
            }
        }
    }

    /// Counts the events that end in `bytes`; when a trigger fires after one, keeps the
    /// bytes up to that event's end and cuts the stream after them.
    fn count(&mut self, bytes: Bytes) -> Bytes {
        for (position, byte) in bytes.iter().enumerate() {
            match byte {
                b'\n' if self.after_newline => {
                    self.after_newline = false;
                    if self.event_ended() {
                        self.state = RelayState::Cut;
                        return bytes.slice(..=position);
                    }
                }
                b'\n' => self.after_newline = true,
                b'\r' => {}
                _ => self.after_newline = false,
            }
        }
        bytes
    }

    /// Parses the events in `relayed`; the first that carries an error (a JSON-RPC error
    /// response, or HTTP+JSON's error body) is the exchange's refusal.
    fn read_refusal(&mut self, relayed: &[u8]) {
        self.parsed.push(relayed);
        while let Some(event) = self.parsed.next_event() {
            if self.exchange.refusal.is_none()
                && let Ok(event) = event
            {
                self.exchange.refusal = refusal_of(200, event.data.as_bytes());
            }
        }
    }

    /// One more event went out; whether a trigger fires now.
    fn event_ended(&mut self) -> bool {
        self.events += 1;
        self.exchange.events = self.events;
        let total = {
            let mut counters = lock(&self.agent.counters);
            counters.events += 1;
            counters.events
        };
        let (stream, events) = (self.stream, self.events);
        let cut = self.agent.fires(|trigger| {
            matches!(trigger, Trigger::CutStream { stream: s, after_event } if *s == stream && *after_event == events)
        });
        if let Some(trigger) = cut {
            self.agent.strike(trigger, self.call, Some(events));
            return true;
        }
        let restart = self.agent.fires(
            |trigger| matches!(trigger, Trigger::Restart { after_event } if *after_event == total),
        );
        if let Some(trigger) = restart {
            self.agent.strike(trigger, self.call, Some(events));
            self.agent.restart();
            return true;
        }
        false
    }
}

impl Drop for StreamRelay {
    fn drop(&mut self) {
        let exchange = self.exchange.clone();
        self.agent.log.exchanged(exchange);
    }
}
