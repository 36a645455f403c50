//! The fault proxy: what a consumer program talks to on real loopback TCP. It serves one
//! agent of the scenario, hands each request to the runtime's router and relays the answer,
//! counting the calls, streams and stream events of the exchange, and fires the run's
//! [`Trigger`]s at their exchange points, logging each [`Strike`](super::faults::Strike) as it happens.
//!
//! Each runtime instance runs its tasks on a tokio runtime of its own, so a restart is a
//! crash: the instance's runtime is shut down with every task on it (turns in progress,
//! reaping timers), the streams it served are cut, and a new instance with an empty store
//! takes over, writing to the same ground truth (which marks the old tasks lost).

mod agent;
mod exchange_log;
mod stream_relay;
#[cfg(test)]
mod tests;

pub use agent::Agent;
use exchange_log::refusal_of;
pub use exchange_log::{Announce, Exchange, ProxyLog};

use super::faults::Trigger;
use crate::lock::lock;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::response::Response;
use http::header::CONTENT_TYPE;
use meshsim_protocol::sse::SseParser;
use meshsim_sim::JsonStrings;
use std::io;
use std::sync::Arc;
use std::time::Duration;
use stream_relay::{RelayState, StreamRelay};
use tower::ServiceExt;

impl Agent {
    /// The proxy as `job`'s program meets it, a router to serve on a listener of its own:
    /// every job has its door, so the proxy knows whose call each one is.
    pub fn router(self: &Arc<Self>, job: &str) -> Router {
        let door = Door {
            agent: Arc::clone(self),
            job: job.into(),
        };
        Router::new().fallback(relay).with_state(door)
    }
}

/// One job's way in to an agent.
#[derive(Clone)]
struct Door {
    agent: Arc<Agent>,
    job: Arc<str>,
}

/// Handles one request: counts it, lets the current instance answer it, and applies the
/// triggers aimed at its answer.
async fn relay(State(Door { agent, job }): State<Door>, request: Request) -> Response {
    let method = request.method().to_string();
    let path = request.uri().path().to_string();
    // Every A2A call counts, over either binding (HTTP+JSON reads tasks with GETs); a Card
    // fetch does not.
    let call = if path.starts_with("/.well-known/") {
        None
    } else {
        let mut counters = lock(&agent.counters);
        counters.requests += 1;
        Some(counters.requests)
    };
    let current = lock(&agent.instance)
        .as_ref()
        .and_then(|instance| Some((instance.router.clone(), instance.handle()?.clone())));
    let exchange = |end: &str, streamed: bool| Exchange {
        agent: agent.host.clone(),
        job: job.to_string(),
        call,
        method: method.clone(),
        path: path.clone(),
        events: 0,
        streamed,
        end: end.to_string(),
        refusal: None,
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
        // A Card fetch is not numbered; one that fails still says why.
        if streaming || response.status().is_success() {
            agent.log.exchanged(exchange("answered", streaming));
            return response;
        }
        let (parts, body) = response.into_parts();
        let bytes = axum::body::to_bytes(body, usize::MAX)
            .await
            .unwrap_or_default();
        agent.log.exchanged(Exchange {
            refusal: refusal_of(parts.status.as_u16(), &bytes),
            ..exchange("answered", false)
        });
        return Response::from_parts(parts, Body::from(bytes));
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
        // A plain answer is read whole (the runtime has written it all already) to see
        // which task ids go to the program.
        let (parts, body) = response.into_parts();
        let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
            agent.log.exchanged(exchange("runtime error", false));
            return cut_short(Body::empty());
        };
        agent.relayed(&mut JsonStrings::default(), &bytes, &job, call);
        agent.log.exchanged(Exchange {
            refusal: refusal_of(parts.status.as_u16(), &bytes),
            ..exchange("answered", false)
        });
        return Response::from_parts(parts, Body::from(bytes));
    }
    let stream = {
        let mut counters = lock(&agent.counters);
        counters.streams += 1;
        counters.streams
    };
    let (parts, body) = response.into_parts();
    let open = agent.log.stream_opened();
    let relay = StreamRelay {
        exchange: exchange("dropped by the program", true),
        strings: JsonStrings::default(),
        agent,
        call,
        stream,
        events: 0,
        after_newline: false,
        parsed: SseParser::default(),
        generation,
        body: body.into_data_stream(),
        state: RelayState::Open,
        _open: open,
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
