//! What the proxy saw: each call as it relayed it ([`Exchange`]) and each fault as it struck,
//! told to an [`Announce`] hook as it happens.

use super::super::faults::Strike;
use crate::lock::lock;
use serde::Serialize;
use std::sync::{Arc, Mutex};

/// Hears each fault as it strikes (the CLI prints it).
pub type Announce = Arc<dyn Fn(&Strike) + Send + Sync>;

/// One call as the proxy relayed it, for the run's timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Exchange {
    pub agent: String,
    /// The call's number (Card fetches are not numbered).
    pub call: Option<u32>,
    pub method: String,
    pub path: String,
    /// Stream events relayed (0 for a plain answer).
    pub events: u32,
    /// Whether the answer was a stream.
    pub streamed: bool,
    /// How the relay ended: `answered`, `stream ended`, `cut`, `reset`, `dropped by the
    /// program`, `runtime restarted`, or `no instance`.
    pub end: String,
    /// Milliseconds since the run started, when the relay ended (for reading, not
    /// comparing: it depends on the machine).
    pub at_ms: u64,
}

/// What the proxies saw in one run: the strikes, announced as they happen, and every call.
#[derive(Clone, Default)]
pub struct ProxyLog {
    strikes: Arc<Mutex<Vec<Strike>>>,
    exchanges: Arc<Mutex<Vec<Exchange>>>,
    announce: Option<Announce>,
    /// When the run started, on the wall clock (only to date exchanges for a reader).
    started: Option<std::time::Instant>, // wall-clock-ok: meshsim check runs on real TCP, never in a simulation; dates exchanges for reading only
}

impl ProxyLog {
    /// A log that also tells `announce` of each strike.
    pub fn announced(announce: Option<Announce>) -> Self {
        ProxyLog {
            announce,
            started: Some(std::time::Instant::now()), // wall-clock-ok: dates the timeline only
            ..ProxyLog::default()
        }
    }

    pub(super) fn exchanged(&self, mut exchange: Exchange) {
        exchange.at_ms = self
            .started
            .map(|started| u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        lock(&self.exchanges).push(exchange);
    }

    /// Every call relayed so far, in the order their relays ended.
    pub fn exchanges(&self) -> Vec<Exchange> {
        lock(&self.exchanges).clone()
    }

    pub(super) fn push(&self, strike: Strike) {
        if let Some(announce) = &self.announce {
            announce(&strike);
        }
        lock(&self.strikes).push(strike);
    }

    /// The strikes so far.
    pub fn strikes(&self) -> Vec<Strike> {
        lock(&self.strikes).clone()
    }
}
