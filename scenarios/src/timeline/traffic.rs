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

use crate::scenario::{CONSUMER_HOST, SIDECAR_HOST};
use meshsim_sim::trace::SIM_HOST;
use meshsim_trace::{FAULT_TARGET, NET_TARGET};
use serde_json::Value;
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

/// Something that happened on one host.
#[derive(Debug, Clone)]
pub struct Mark {
    pub host: String,
    pub at_ms: f64,
    pub label: String,
    pub detail: String,
    /// Whether it reports trouble (an anomaly, a reaped task, a cut stream).
    pub alarm: bool,
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

/// The time of a trace event in simulated milliseconds.
pub fn at_ms(event: &Value) -> f64 {
    event["t_us"].as_u64().unwrap_or(0) as f64 / 1000.0
}

/// A field of a trace event as text (strings bare, anything else as JSON).
pub fn field(event: &Value, name: &str) -> Option<String> {
    match &event["fields"][name] {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}

fn host(event: &Value) -> &str {
    event["host"].as_str().unwrap_or("?")
}

fn target(event: &Value) -> &str {
    event["target"].as_str().unwrap_or("")
}

fn net_event(event: &Value) -> Option<String> {
    (target(event) == NET_TARGET)
        .then(|| field(event, "event"))
        .flatten()
}

/// The host part of a `host:port` connect target.
fn target_host(to: &str) -> &str {
    to.rsplit_once(':').map_or(to, |(host, _)| host)
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
pub fn read(events: &[Value]) -> Traffic {
    let clients = pair_connections(events);
    let mut traffic = Traffic::default();
    let mut hosts: Vec<String> = Vec::new();
    let mut served: BTreeMap<(String, String), Served> = BTreeMap::new();
    // What each runtime last emitted on a task, to name the stream events it sends.
    let mut emitted: BTreeMap<String, VecDeque<(f64, String)>> = BTreeMap::new();
    for (index, event) in events.iter().enumerate() {
        let t = at_ms(event);
        traffic.end_ms = traffic.end_ms.max(t);
        let on = host(event).to_string();
        if on != SIM_HOST && !hosts.contains(&on) {
            hosts.push(on.clone());
        }
        if target(event) == FAULT_TARGET {
            continue;
        }
        let conn = field(event, "conn").unwrap_or_default();
        let key = (on.clone(), conn.clone());
        match net_event(event).as_deref() {
            Some("accept") => {
                let client = clients.get(&index).cloned();
                let ready_ms = client.as_ref().map_or(t, |(_, at)| *at);
                served.insert(
                    key,
                    Served {
                        client: client.map(|(host, _)| host),
                        ready_ms,
                        pending: None,
                    },
                );
            }
            Some("connect") if field(event, "outcome").as_deref() != Some("ok") => {
                let to = field(event, "to").unwrap_or_default();
                let outcome = field(event, "outcome").unwrap_or_default();
                traffic.arrows.push(Arrow {
                    kind: ArrowKind::ConnectFailed,
                    from: on.clone(),
                    to: target_host(&to).to_string(),
                    from_ms: t,
                    to_ms: t,
                    label: format!("connect {outcome}"),
                    detail: format!(
                        "{t} ms: {on} could not connect to {to} ({outcome}{})",
                        field(event, "error").map_or(String::new(), |e| format!(": {e}"))
                    ),
                });
            }
            Some("request") => {
                let Some(conn_state) = served.get_mut(&key) else {
                    continue;
                };
                let Some(client) = conn_state.client.clone() else {
                    continue;
                };
                let method = field(event, "method").unwrap_or_default();
                let path = field(event, "path").unwrap_or_default();
                conn_state.pending = Some((index, traffic.arrows.len()));
                traffic.arrows.push(Arrow {
                    kind: ArrowKind::Request,
                    from: client.clone(),
                    to: on.clone(),
                    from_ms: conn_state.ready_ms,
                    to_ms: t,
                    label: plain_request(&method, &path),
                    detail: format!(
                        "{t} ms: {on} read {method} {path} from {client} (connection {conn})"
                    ),
                });
            }
            Some("response") => {
                let Some(conn_state) = served.get_mut(&key) else {
                    continue;
                };
                let Some(client) = conn_state.client.clone() else {
                    continue;
                };
                conn_state.ready_ms = t;
                let streaming = field(event, "streaming").as_deref() == Some("true");
                let status = field(event, "status").unwrap_or_default();
                let mut label = if streaming {
                    "stream".to_string()
                } else {
                    status.clone()
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
                        if streaming { ", event stream" } else { "" }
                    ),
                });
            }
            Some("stream_event") => {
                let Some(client) = served.get(&key).and_then(|s| s.client.clone()) else {
                    continue;
                };
                let seq = field(event, "seq").unwrap_or_default();
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
                        "{t} ms: {on} sent stream event #{seq} ({label}, {} bytes) to {client} (connection {conn})",
                        field(event, "bytes").unwrap_or_default()
                    ),
                    label,
                });
            }
            Some("stream_close") => {
                let Some(client) = served.get(&key).and_then(|s| s.client.clone()) else {
                    continue;
                };
                let outcome = field(event, "outcome").unwrap_or_default();
                traffic.arrows.push(Arrow {
                    kind: ArrowKind::StreamClose,
                    from: on.clone(),
                    to: client.clone(),
                    from_ms: t,
                    to_ms: t,
                    label: format!("close ({outcome})"),
                    detail: format!(
                        "{t} ms: {on} closed the stream to {client} after {} events: {outcome}{} (connection {conn})",
                        field(event, "frames").unwrap_or_default(),
                        field(event, "error").map_or(String::new(), |e| format!(", {e}"))
                    ),
                });
            }
            Some("conn_close") => {
                served.remove(&key);
            }
            _ => {}
        }
        if target(event) == "meshsim::runtime"
            && let Some(what) = emission(event)
        {
            emitted.entry(on.clone()).or_default().push_back((t, what));
        }
        if let Some(mark) = mark(event) {
            traffic.marks.push(mark);
        }
    }
    traffic.hosts = lane_order(hosts);
    traffic
}

/// For every `accept` (by trace index), the client host and when it connected.
fn pair_connections(events: &[Value]) -> BTreeMap<usize, (String, f64)> {
    let mut connects: BTreeMap<String, VecDeque<(String, f64)>> = BTreeMap::new();
    let mut accepts: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (index, event) in events.iter().enumerate() {
        match net_event(event).as_deref() {
            Some("connect") if field(event, "outcome").as_deref() == Some("ok") => {
                let to = field(event, "to").unwrap_or_default();
                connects
                    .entry(target_host(&to).to_string())
                    .or_default()
                    .push_back((host(event).to_string(), at_ms(event)));
            }
            Some("accept") => accepts
                .entry(host(event).to_string())
                .or_default()
                .push(index),
            _ => {}
        }
    }
    let mut paired = BTreeMap::new();
    for (server, indices) in accepts {
        let Some(queue) = connects.get_mut(&server) else {
            continue;
        };
        for index in indices {
            let Some(client) = queue.pop_front() else {
                break;
            };
            paired.insert(index, client);
        }
    }
    paired
}

fn plain_request(method: &str, path: &str) -> String {
    if path.contains("agent-card") || path.contains("agent.json") {
        format!("{method} card")
    } else {
        format!("{method} {path}")
    }
}

/// What a server did with one request, from its own events.
struct Handled {
    method: String,
    answer: Option<String>,
    detail: String,
}

/// The runtime events `server` logged between reading a request (trace index `from`)
/// and answering it (`to`), when no other request arrived in between to confuse them.
fn handling(events: &[Value], from: usize, to: usize, server: &str) -> Option<Handled> {
    let between = events.get(from + 1..to)?;
    let mine = |event: &&Value| host(event) == server;
    if between
        .iter()
        .filter(mine)
        .any(|event| net_event(event).as_deref() == Some("request"))
    {
        return None;
    }
    between
        .iter()
        .filter(mine)
        .filter(|event| target(event) == "meshsim::runtime")
        .find_map(|event| {
            let message = field(event, "message")?;
            let task = field(event, "task").map(|id| short_id(&id));
            let on_task = task.as_ref().map_or(String::new(), |id| format!(" {id}"));
            let handled = match message.as_str() {
                "stream open" => {
                    let kind = field(event, "kind").unwrap_or_default();
                    Handled {
                        method: format!("{kind} (stream){on_task}"),
                        answer: None,
                        detail: format!("opened a {kind} stream on task{on_task}"),
                    }
                }
                "error answered" => {
                    let code = field(event, "code").unwrap_or_default();
                    let method = field(event, "method").unwrap_or_else(|| "request".into());
                    Handled {
                        method: method.clone(),
                        answer: Some(format!("error {code}")),
                        detail: format!("answered {method} with error {code}"),
                    }
                }
                "direct reply" => Handled {
                    method: "message".to_string(),
                    answer: Some("reply".to_string()),
                    detail: "answered with a direct message".to_string(),
                },
                "task created" => Handled {
                    method: format!("message → task{on_task}"),
                    answer: None,
                    detail: format!("created task{on_task}"),
                },
                "follow-up queued" => Handled {
                    method: format!("follow-up (queued){on_task}"),
                    answer: None,
                    detail: format!("queued a follow-up on task{on_task}"),
                },
                "sidecar cut" | "sidecar upstream error" => Handled {
                    method: "relay".to_string(),
                    answer: Some(message.clone()),
                    detail: message.clone(),
                },
                _ => return None,
            };
            Some(handled)
        })
}

/// What a runtime event puts on the streams of its task, if anything.
fn emission(event: &Value) -> Option<String> {
    match field(event, "message")?.as_str() {
        "task created" | "transition" => field(event, "to"),
        "artifact" => Some("artifact".to_string()),
        _ => None,
    }
}

/// The first block of a task id, enough to tell tasks apart in a label.
pub fn short_id(id: &str) -> String {
    id.split('-').next().unwrap_or(id).to_string()
}

/// The mark an event leaves on its host's lane, if it is one worth seeing.
fn mark(event: &Value) -> Option<Mark> {
    let on = host(event).to_string();
    let t = at_ms(event);
    let full = describe(event);
    let (label, alarm) = match target(event) {
        "meshsim::consumer" => match field(event, "event")?.as_str() {
            "job-start" => (format!("start {}", field(event, "job")?), false),
            "card" => (
                format!("card {}", field(event, "dialect").unwrap_or_default()),
                false,
            ),
            "decision" => (field(event, "decision")?, false),
            "abandoned" => (
                format!("abandon {}", short_id(&field(event, "task")?)),
                true,
            ),
            "anomaly" => (format!("⚠ {}", field(event, "kind")?), true),
            "outcome" => {
                let outcome = field(event, "outcome")?;
                let head = outcome
                    .split([' ', '{', '('])
                    .next()
                    .unwrap_or(&outcome)
                    .to_string();
                let alarm = head != "Completed" && head != "Canceled";
                (format!("outcome: {head}"), alarm)
            }
            _ => return None,
        },
        "meshsim::runtime" => match field(event, "message")?.as_str() {
            "task reaped" => (
                format!(
                    "reaped {}",
                    short_id(&field(event, "task").unwrap_or_default())
                ),
                true,
            ),
            "task stalled" => ("stalled".to_string(), true),
            "queued follow-ups dropped" => ("follow-ups dropped".to_string(), true),
            "sidecar cut" => ("cut".to_string(), true),
            "sidecar upstream error" => ("upstream error".to_string(), true),
            _ => return None,
        },
        _ => return None,
    };
    Some(Mark {
        host: on,
        at_ms: t,
        label,
        detail: full,
        alarm,
    })
}

/// The whole event as one line, for tooltips.
fn describe(event: &Value) -> String {
    let mut text = format!("{} ms {}", at_ms(event), host(event));
    if let Some(fields) = event["fields"].as_object() {
        for (key, value) in fields {
            match value {
                Value::String(s) => text.push_str(&format!(" {key}={s}")),
                other => text.push_str(&format!(" {key}={other}")),
            }
        }
    }
    text
}
