//! What the proxy saw: each call as it relayed it ([`Exchange`]), which program was sent
//! each task's id, and each fault as it struck, told to an [`Announce`] hook as it happens.

use super::super::faults::{Strike, Trigger};
use crate::lock::lock;
use crate::oracle::{self, Deliveries};
use serde::Serialize;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// Hears each fault as it strikes (the CLI prints it).
pub type Announce = Arc<dyn Fn(&Strike) + Send + Sync>;

/// One call as the proxy relayed it, for the run's timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Exchange {
    pub agent: String,
    /// The job whose program made the call (each job's program has a door of its own).
    pub job: String,
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
    /// The error the answer carried, in words: a plain answer's JSON-RPC error or HTTP
    /// status other than 200, or the first error a stream's events carried; none for a
    /// success.
    pub refusal: Option<String>,
    /// Milliseconds since the run started, when the relay ended (for reading, not
    /// comparing: it depends on the machine).
    pub at_ms: u64,
}

impl Exchange {
    /// The call as a reader finds it: `job J call N: POST /` (`call -` for a Card fetch).
    pub fn call_line(&self) -> String {
        let call = self
            .call
            .map_or_else(|| "-".to_string(), |call| call.to_string());
        format!(
            "job {} call {call}: {} {}",
            self.job, self.method, self.path
        )
    }
}

/// The error a plain answer carried, in words: a JSON-RPC error's code and message, or an
/// HTTP status that is not 200 with what its body says (HTTP+JSON's `google.rpc.Status`
/// names its status and message); `None` for a success.
pub(super) fn refusal_of(status: u16, body: &[u8]) -> Option<String> {
    let json: Option<serde_json::Value> = serde_json::from_slice(body).ok();
    let error = json.as_ref().and_then(|json| json.get("error"));
    let message = error
        .and_then(|error| error.get("message"))
        .and_then(serde_json::Value::as_str);
    if status != 200 {
        let named = error
            .and_then(|error| error.get("status"))
            .and_then(serde_json::Value::as_str);
        return Some(match (named, message) {
            (Some(named), Some(message)) => format!("HTTP {status} {named}: {message}"),
            (None, Some(message)) => format!("HTTP {status}: {message}"),
            _ => format!("HTTP {status}"),
        });
    }
    let code = error?.get("code")?;
    Some(format!("{code} {}", message.unwrap_or("(no message)")))
}

/// What the proxies saw in one run: the strikes, announced as they happen, and every call.
#[derive(Clone, Default)]
pub struct ProxyLog {
    strikes: Arc<Mutex<Vec<Strike>>>,
    /// When the last fault was over, in milliseconds since the run started: a strike's
    /// time, or a held answer's release.
    faults_end_ms: Arc<Mutex<u64>>,
    exchanges: Arc<Mutex<Vec<Exchange>>>,
    /// The job each task's id was first relayed to.
    deliveries: Arc<Mutex<Deliveries>>,
    announce: Option<Announce>,
    /// How many streams are being relayed now: each holds the runtime's stream open.
    open_streams: Arc<watch::Sender<usize>>,
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

    /// A stream is being relayed until the returned guard is dropped.
    pub(super) fn stream_opened(&self) -> OpenStream {
        self.open_streams.send_modify(|open| *open += 1);
        OpenStream {
            open_streams: Arc::clone(&self.open_streams),
        }
    }

    /// Waits, up to `bound`, until no stream is being relayed: a program that exited has
    /// closed its connections, but the proxy drops the runtime's side of a stream only
    /// when its connection's task has read the close, and a runtime that ends a task with
    /// its stream must have done so before the run is judged. Whether every stream closed.
    pub async fn streams_closed(&self, bound: Duration) -> bool {
        let mut open = self.open_streams.subscribe();
        meshsim_time::timeout(bound, open.wait_for(|open| *open == 0))
            .await
            .is_ok_and(|closed| closed.is_ok())
    }

    pub(super) fn exchanged(&self, mut exchange: Exchange) {
        exchange.at_ms = self.since_started_ms();
        lock(&self.exchanges).push(exchange);
    }

    /// Milliseconds since the run started (0 for a log that keeps no time).
    fn since_started_ms(&self) -> u64 {
        self.started
            .map(|started| u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0)
    }

    /// When the run's faults were over: the last strike, or the release of the last held
    /// answer, whichever is later; zero when none struck. Before it the program may have
    /// met a runtime that was restarting or unreachable (the oracle's `faults_end`).
    pub fn faults_end(&self) -> std::time::Duration {
        std::time::Duration::from_millis(*lock(&self.faults_end_ms))
    }

    /// `task`'s id, a task of `host`, went out to `job`'s program in the answer to `call`;
    /// only its first delivery is kept.
    pub(super) fn delivered(&self, host: &str, task: String, job: &str, call: Option<u32>) {
        oracle::delivered(&mut lock(&self.deliveries), host, task, Some(job), call);
    }

    /// The job each task's id was first relayed to (the oracle's `deliveries`).
    pub fn deliveries(&self) -> Deliveries {
        lock(&self.deliveries).clone()
    }

    /// Every call relayed so far, in the order their relays ended.
    pub fn exchanges(&self) -> Vec<Exchange> {
        lock(&self.exchanges).clone()
    }

    pub(super) fn push(&self, strike: Strike) {
        if let Some(announce) = &self.announce {
            announce(&strike);
        }
        let held_ms = match strike.trigger {
            Trigger::HoldAnswer { hold_ms, .. } => hold_ms,
            _ => 0,
        };
        let over = self.since_started_ms().saturating_add(held_ms);
        let mut faults_end = lock(&self.faults_end_ms);
        *faults_end = (*faults_end).max(over);
        drop(faults_end);
        lock(&self.strikes).push(strike);
    }

    /// The strikes so far.
    pub fn strikes(&self) -> Vec<Strike> {
        lock(&self.strikes).clone()
    }
}

/// A stream the proxy is relaying; dropped after the runtime's side of it.
pub(super) struct OpenStream {
    open_streams: Arc<watch::Sender<usize>>,
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.open_streams
            .send_modify(|open| *open = open.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_run_is_judged_once_the_streams_it_relayed_are_closed() {
        let log = ProxyLog::announced(None);
        assert!(log.streams_closed(Duration::ZERO).await, "none opened");
        let open = log.stream_opened();
        assert!(
            !log.streams_closed(Duration::from_millis(10)).await,
            "one still open at the bound"
        );
        // Closed by another task while the run waits for it.
        let closing = tokio::spawn(async move { drop(open) });
        assert!(log.streams_closed(Duration::from_secs(60)).await);
        closing.await.expect("the stream closes");
    }

    #[test]
    fn the_faults_end_at_the_last_strike_or_held_answers_release() {
        let log = ProxyLog::announced(None);
        assert_eq!(log.faults_end(), Duration::ZERO, "nothing struck");
        let strike = |trigger| Strike {
            agent: "agent".to_string(),
            trigger,
            request: 1,
            event: None,
        };
        log.push(strike(Trigger::HoldAnswer {
            request: 1,
            hold_ms: 60_000,
        }));
        let held = log.faults_end();
        assert!(held >= Duration::from_secs(60), "{held:?}");
        // A later restart struck before the held answer's release does not end them sooner.
        log.push(strike(Trigger::Restart { after_event: 2 }));
        assert_eq!(log.faults_end(), held);
    }

    #[test]
    fn a_refusal_is_a_json_rpc_error_or_a_status_that_is_not_200() {
        let rpc = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"no task t-1"}}"#;
        assert_eq!(refusal_of(200, rpc).as_deref(), Some("-32001 no task t-1"));
        let rest = br#"{"error":{"code":404,"status":"NOT_FOUND","message":"no task t-1"}}"#;
        assert_eq!(
            refusal_of(404, rest).as_deref(),
            Some("HTTP 404 NOT_FOUND: no task t-1")
        );
        assert_eq!(refusal_of(404, b"").as_deref(), Some("HTTP 404"));
        assert_eq!(
            refusal_of(502, b"upstream reset").as_deref(),
            Some("HTTP 502")
        );
        let task = br#"{"jsonrpc":"2.0","id":1,"result":{"id":"t-1"}}"#;
        assert_eq!(refusal_of(200, task), None);
        assert_eq!(refusal_of(200, b"not json"), None);
    }
}
