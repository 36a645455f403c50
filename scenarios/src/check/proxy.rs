//! The fault proxy: what a consumer program talks to on real loopback TCP. It serves one
//! agent of the scenario, hands each request to the runtime's router and relays the answer,
//! counting the calls, streams and stream events of the exchange, and fires the run's
//! [`Trigger`]s at their exchange points, logging each [`Strike`] as it happens.
//!
//! Each runtime instance runs its tasks on a tokio runtime of its own, so a restart is a
//! crash: the instance's runtime is shut down with every task on it (turns in progress,
//! reaping timers), the streams it served are cut, and a new instance with an empty store
//! takes over, writing to the same ground truth (which marks the old tasks lost).

use super::faults::{Strike, Trigger};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::response::Response;
use futures_util::StreamExt;
use http::Method;
use http::header::CONTENT_TYPE;
use meshsim_runtimes::Runtime;
use serde::Serialize;
use std::io;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;
use tower::ServiceExt;

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

    fn exchanged(&self, mut exchange: Exchange) {
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

    fn push(&self, strike: Strike) {
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

/// One agent behind the proxy.
pub struct Agent {
    host: String,
    runtime: Runtime,
    /// `None` once stopped.
    instance: Mutex<Option<Instance>>,
    triggers: Vec<Trigger>,
    counters: Mutex<Counters>,
    log: ProxyLog,
    /// Bumped on every restart: the streams of earlier instances watch it and end.
    generation: watch::Sender<u64>,
}

/// A runtime instance: its router and the tokio runtime its tasks run on.
struct Instance {
    router: Router,
    executor: tokio::runtime::Runtime,
}

impl Instance {
    fn start(runtime: &Runtime) -> io::Result<Instance> {
        let executor = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("meshsim-check-runtime")
            .enable_all()
            .build()?;
        // The router's Host starts its instance (and may start timers) when built.
        let router = {
            let _entered = executor.enter();
            runtime.router()
        };
        Ok(Instance { router, executor })
    }
}

#[derive(Debug, Default)]
struct Counters {
    requests: u32,
    streams: u32,
    events: u32,
}

impl Agent {
    /// Starts the first instance of `runtime` (named `host` in strikes) behind a proxy
    /// that fires `triggers` and logs their strikes and every call to `log`.
    pub fn start(
        host: &str,
        runtime: Runtime,
        triggers: Vec<Trigger>,
        log: ProxyLog,
    ) -> io::Result<Arc<Agent>> {
        let instance = Instance::start(&runtime)?;
        Ok(Arc::new(Agent {
            host: host.to_string(),
            runtime,
            instance: Mutex::new(Some(instance)),
            triggers,
            counters: Mutex::default(),
            log,
            generation: watch::Sender::new(0),
        }))
    }

    /// The proxy as a router, to serve on a listener.
    pub fn router(self: &Arc<Self>) -> Router {
        Router::new().fallback(relay).with_state(Arc::clone(self))
    }

    /// Shuts the current instance down, once the run is judged: its streams end and
    /// later requests are cut short.
    pub fn stop(&self) {
        self.generation.send_modify(|generation| *generation += 1);
        if let Some(old) = lock(&self.instance).take() {
            old.executor.shutdown_background();
        }
    }

    fn strike(&self, trigger: Trigger, request: u32, event: Option<u32>) {
        self.log.push(Strike {
            agent: self.host.clone(),
            trigger,
            request,
            event,
        });
    }

    /// A crash and a restart with an empty store: every stream of the old instance ends.
    fn restart(&self) {
        self.generation.send_modify(|generation| *generation += 1);
        match Instance::start(&self.runtime) {
            Ok(instance) => {
                let old = lock(&self.instance).replace(instance);
                if let Some(old) = old {
                    old.executor.shutdown_background();
                }
            }
            Err(error) => tracing::warn!(
                target: "meshsim::check",
                host = %self.host,
                %error,
                "the runtime could not be restarted"
            ),
        }
    }

    fn fires(&self, wanted: impl Fn(&Trigger) -> bool) -> Option<Trigger> {
        self.triggers
            .iter()
            .copied()
            .find(|trigger| wanted(trigger))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Handles one request: counts it, lets the current instance answer it, and applies the
/// triggers aimed at its answer.
async fn relay(State(agent): State<Arc<Agent>>, request: Request) -> Response {
    let method = request.method().to_string();
    let path = request.uri().path().to_string();
    let call = if request.method() == Method::POST {
        let mut counters = lock(&agent.counters);
        counters.requests += 1;
        Some(counters.requests)
    } else {
        None
    };
    let current = lock(&agent.instance)
        .as_ref()
        .map(|instance| (instance.router.clone(), instance.executor.handle().clone()));
    let exchange = |end: &str, streamed: bool| Exchange {
        agent: agent.host.clone(),
        call,
        method: method.clone(),
        path: path.clone(),
        events: 0,
        streamed,
        end: end.to_string(),
        at_ms: 0,
    };
    let Some((router, executor)) = current else {
        agent.log.exchanged(exchange("no instance", false));
        return cut_short(Body::empty());
    };
    let generation = agent.generation.subscribe();
    let answered = executor.spawn(router.oneshot(request)).await;
    let Ok(Ok(response)) = answered else {
        // The instance was shut down under the request: as a crash would, close the
        // connection without an answer.
        agent.log.exchanged(exchange("runtime restarted", false));
        return cut_short(Body::empty());
    };
    let streaming = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    let Some(call) = call else {
        agent.log.exchanged(exchange("answered", streaming));
        return response;
    };
    if let Some(trigger @ Trigger::HoldAnswer { hold_ms, .. }) = agent
        .fires(|trigger| matches!(trigger, Trigger::HoldAnswer { request, .. } if *request == call))
    {
        agent.strike(trigger, call, None);
        meshsim_time::sleep(Duration::from_millis(hold_ms)).await;
    }
    if let Some(trigger) = agent
        .fires(|trigger| matches!(trigger, Trigger::ResetAnswer { request } if *request == call))
    {
        agent.strike(trigger, call, None);
        agent.log.exchanged(exchange("reset", streaming));
        let (_, body) = response.into_parts();
        return cut_short(body);
    }
    if !streaming {
        agent.log.exchanged(exchange("answered", false));
        return response;
    }
    let stream = {
        let mut counters = lock(&agent.counters);
        counters.streams += 1;
        counters.streams
    };
    let (parts, body) = response.into_parts();
    let relay = StreamRelay {
        exchange: exchange("dropped by the program", true),
        agent,
        call,
        stream,
        events: 0,
        after_newline: false,
        generation,
        body: body.into_data_stream(),
        state: RelayState::Open,
    };
    let events = futures_util::stream::unfold(relay, |mut relay| async move {
        relay.next().await.map(|item| (item, relay))
    });
    Response::from_parts(parts, Body::from_stream(events))
}

/// A response whose body fails at once: hyper closes the connection without completing
/// the answer. `dropped` (the runtime's answer) is dropped first, as a reset drops it.
fn cut_short(dropped: Body) -> Response {
    drop(dropped);
    let failing = futures_util::stream::once(async {
        Err::<Bytes, io::Error>(io::Error::new(
            io::ErrorKind::ConnectionReset,
            "meshsim check: connection reset by a fault",
        ))
    });
    Response::new(Body::from_stream(failing))
}

enum RelayState {
    Open,
    /// The next poll fails the body (the connection is cut), then the relay ends.
    Cut,
    Done,
}

/// Relays one stream's bytes, counting its events (an SSE event ends with a blank line).
/// When dropped it logs its exchange, with how it ended.
struct StreamRelay {
    exchange: Exchange,
    agent: Arc<Agent>,
    call: u32,
    stream: u32,
    events: u32,
    after_newline: bool,
    generation: watch::Receiver<u64>,
    body: axum::body::BodyDataStream,
    state: RelayState,
}

impl StreamRelay {
    async fn next(&mut self) -> Option<Result<Bytes, io::Error>> {
        match self.state {
            RelayState::Done => return None,
            RelayState::Cut => {
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
            Some(Ok(bytes)) => Some(Ok(self.count(bytes))),
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
