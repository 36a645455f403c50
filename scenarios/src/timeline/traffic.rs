//! The traffic of a run, read from its trace: the hosts that take part, every request,
//! response, stream event and stream close between them as an arrow, and the marks hosts
//! leave on their own lane (the consumer's decisions and anomalies, a runtime reaping).
//!
//! The simulated network records connections on the serving side only, so the client
//! end of a connection is found by pairing the i-th successful `connect` to a host with
//! that host's i-th `accept`; a request's arrow leaves the client when it connected (or
//! when the previous answer on the connection was sent) and reaches the server when the
//! server read it. Arrival times of answers are not traced: answers are drawn at the
//! server's send time.

use super::connections::{pair_connections, target_host};
use super::handling::{emission, handling};
use super::marks::{Mark, mark};
use crate::scenario::{CONSUMER_HOST, SIDECAR_HOST};
use meshsim_sim::SIM_HOST;
use meshsim_trace::{ConnectOutcome, StreamEnd, TraceEvent, TraceLine};
use std::collections::{BTreeMap, VecDeque};

/// What an arrow carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrowKind {
    Request,
    Response,
    StreamEvent,
    StreamClose,
    /// A connection attempt that failed (the arrow stops short of the server).
    ConnectFailed,
}

impl ArrowKind {
    /// The CSS class of the arrow.
    pub fn class(self) -> &'static str {
        match self {
            ArrowKind::Request => "request",
            ArrowKind::Response => "response",
            ArrowKind::StreamEvent => "stream-event",
            ArrowKind::StreamClose => "stream-close",
            ArrowKind::ConnectFailed => "connect-failed",
        }
    }
}

/// One message between two hosts.
#[derive(Debug, Clone)]
pub struct Arrow {
    pub kind: ArrowKind,
    pub from: String,
    pub to: String,
    pub from_ms: f64,
    pub to_ms: f64,
    /// The short label: a method, a state, a status.
    pub label: String,
    /// Everything known about it, for the tooltip.
    pub detail: String,
}

/// The arrows and marks of a run, and its hosts in lane order.
#[derive(Debug, Clone, Default)]
pub struct Traffic {
    pub hosts: Vec<String>,
    pub arrows: Vec<Arrow>,
    pub marks: Vec<Mark>,
    /// The last moment of the trace.
    pub end_ms: f64,
}

/// Lane order: the consumer, the sidecar, then every other host by name.
pub fn lane_order(hosts: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut others: Vec<String> = hosts.into_iter().collect();
    let sidecar = others.iter().any(|host| host == SIDECAR_HOST);
    others.retain(|host| host != SIM_HOST && host != CONSUMER_HOST && host != SIDECAR_HOST);
    others.sort();
    others.dedup();
    let mut lanes = vec![CONSUMER_HOST.to_string()];
    if sidecar {
        lanes.push(SIDECAR_HOST.to_string());
    }
    lanes.extend(others);
    lanes
}

/// One served connection while it is open.
struct Served {
    client: Option<String>,
    /// When the next request's arrow leaves the client.
    ready_ms: f64,
    /// The trace index and arrow index of the request awaiting its response.
    pending: Option<(usize, usize)>,
}

/// Reads the traffic out of `events` (a trace, in order).
pub fn read(events: &[TraceLine]) -> Traffic {
    let clients = pair_connections(events);
    let mut traffic = Traffic::default();
    let mut hosts: Vec<String> = Vec::new();
    let mut served: BTreeMap<(String, u64), Served> = BTreeMap::new();
    // What each runtime last emitted on a task, to name the stream events it sends.
    let mut emitted: BTreeMap<String, VecDeque<(f64, String)>> = BTreeMap::new();
    for (index, line) in events.iter().enumerate() {
        let t = line.at_ms();
        traffic.end_ms = traffic.end_ms.max(t);
        let on = line.host.clone();
        if on != SIM_HOST && !hosts.contains(&on) {
            hosts.push(on.clone());
        }
        match &line.event {
            TraceEvent::Accept { conn } => {
                let client = clients.get(&index).cloned();
                let ready_ms = client.as_ref().map_or(t, |(_, at)| *at);
                served.insert(
                    (on.clone(), *conn),
                    Served {
                        client: client.map(|(host, _)| host),
                        ready_ms,
                        pending: None,
                    },
                );
            }
            TraceEvent::Connect { to, outcome } if *outcome != ConnectOutcome::Ok => {
                let (name, error) = match outcome {
                    ConnectOutcome::Error(error) => ("error", format!(": {error}")),
                    _ => ("timeout", String::new()),
                };
                traffic.arrows.push(Arrow {
                    kind: ArrowKind::ConnectFailed,
                    from: on.clone(),
                    to: target_host(to).to_string(),
                    from_ms: t,
                    to_ms: t,
                    label: format!("connect {name}"),
                    detail: format!("{t} ms: {on} could not connect to {to} ({name}{error})"),
                });
            }
            TraceEvent::Request { conn, method, path } => {
                let Some(conn_state) = served.get_mut(&(on.clone(), *conn)) else {
                    continue;
                };
                let Some(client) = conn_state.client.clone() else {
                    continue;
                };
                conn_state.pending = Some((index, traffic.arrows.len()));
                traffic.arrows.push(Arrow {
                    kind: ArrowKind::Request,
                    from: client.clone(),
                    to: on.clone(),
                    from_ms: conn_state.ready_ms,
                    to_ms: t,
                    label: plain_request(method, path),
                    detail: format!(
                        "{t} ms: {on} read {method} {path} from {client} (connection {conn})"
                    ),
                });
            }
            TraceEvent::Response {
                conn,
                status,
                streaming,
                ..
            } => {
                let Some(conn_state) = served.get_mut(&(on.clone(), *conn)) else {
                    continue;
                };
                let Some(client) = conn_state.client.clone() else {
                    continue;
                };
                conn_state.ready_ms = t;
                let mut label = if *streaming {
                    "stream".to_string()
                } else {
                    status.to_string()
                };
                if let Some((request_at, arrow)) = conn_state.pending.take() {
                    let handled = handling(events, request_at, index, &on);
                    if let Some(handled) = handled {
                        traffic.arrows[arrow].label = handled.method;
                        traffic.arrows[arrow]
                            .detail
                            .push_str(&format!("; {}", handled.detail));
                        if let Some(answer) = handled.answer {
                            label = answer;
                        }
                    }
                }
                traffic.arrows.push(Arrow {
                    kind: ArrowKind::Response,
                    from: on.clone(),
                    to: client.clone(),
                    from_ms: t,
                    to_ms: t,
                    label,
                    detail: format!(
                        "{t} ms: {on} answered {client}: status {status}{} (connection {conn})",
                        if *streaming { ", event stream" } else { "" }
                    ),
                });
            }
            TraceEvent::StreamFrame { conn, seq, bytes } => {
                let Some(client) = served
                    .get(&(on.clone(), *conn))
                    .and_then(|s| s.client.clone())
                else {
                    continue;
                };
                let queue = emitted.entry(on.clone()).or_default();
                while queue.front().is_some_and(|(at, _)| *at < t) {
                    queue.pop_front();
                }
                let label = match queue.front() {
                    Some((at, _)) if *at == t => queue.pop_front().map(|(_, what)| what),
                    _ => None,
                }
                .unwrap_or_else(|| format!("#{seq}"));
                traffic.arrows.push(Arrow {
                    kind: ArrowKind::StreamEvent,
                    from: on.clone(),
                    to: client.clone(),
                    from_ms: t,
                    to_ms: t,
                    detail: format!(
                        "{t} ms: {on} sent stream event #{seq} ({label}, {bytes} bytes) to {client} (connection {conn})"
                    ),
                    label,
                });
            }
            TraceEvent::StreamClose { conn, frames, end } => {
                let Some(client) = served
                    .get(&(on.clone(), *conn))
                    .and_then(|s| s.client.clone())
                else {
                    continue;
                };
                let (outcome, error) = match end {
                    StreamEnd::End => ("end", String::new()),
                    StreamEnd::Dropped => ("dropped", String::new()),
                    StreamEnd::Error(error) => ("error", format!(", {error}")),
                };
                traffic.arrows.push(Arrow {
                    kind: ArrowKind::StreamClose,
                    from: on.clone(),
                    to: client.clone(),
                    from_ms: t,
                    to_ms: t,
                    label: format!("close ({outcome})"),
                    detail: format!(
                        "{t} ms: {on} closed the stream to {client} after {frames} events: {outcome}{error} (connection {conn})"
                    ),
                });
            }
            TraceEvent::ConnClose { conn, .. } => {
                served.remove(&(on.clone(), *conn));
            }
            _ => {}
        }
        if let Some(what) = emission(&line.event) {
            emitted.entry(on.clone()).or_default().push_back((t, what));
        }
        if let Some(mark) = mark(line) {
            traffic.marks.push(mark);
        }
    }
    traffic.hosts = lane_order(hosts);
    traffic
}

fn plain_request(method: &str, path: &str) -> String {
    if path.contains("agent-card") || path.contains("agent.json") {
        format!("{method} card")
    } else {
        format!("{method} {path}")
    }
}
