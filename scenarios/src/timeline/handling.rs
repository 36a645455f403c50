//! What a server did with one request, read from the runtime events it logged while handling
//! it (the method, the answer, a one-line detail), and what a runtime event puts on its
//! task's streams.

use super::draw::short_id;
use meshsim_trace::{TraceEvent, TraceLine};

/// What a server did with one request, from its own events.
pub(super) struct Handled {
    pub(super) method: String,
    pub(super) answer: Option<String>,
    pub(super) detail: String,
}

/// The runtime events `server` logged between reading a request (trace index `from`)
/// and answering it (`to`), when no other request arrived in between to confuse them.
pub(super) fn handling(
    events: &[TraceLine],
    from: usize,
    to: usize,
    server: &str,
) -> Option<Handled> {
    let between = events.get(from + 1..to)?;
    let mine = |line: &&TraceLine| line.host == server;
    if between
        .iter()
        .filter(mine)
        .any(|line| matches!(line.event, TraceEvent::Request { .. }))
    {
        return None;
    }
    between
        .iter()
        .filter(mine)
        .find_map(|line| handled(&line.event))
}

/// What a runtime event says about how its request was handled, if anything.
fn handled(event: &TraceEvent<'_>) -> Option<Handled> {
    let on_task = |task: &str| format!(" {}", short_id(task));
    Some(match event {
        TraceEvent::TaskStreamOpen { task, kind, .. } => {
            let on_task = on_task(task);
            Handled {
                method: format!("{kind} (stream){on_task}"),
                answer: None,
                detail: format!("opened a {kind} stream on task{on_task}"),
            }
        }
        TraceEvent::ErrorAnswered { method, code, .. } => Handled {
            method: method.to_string(),
            answer: Some(format!("error {code}")),
            detail: format!("answered {method} with error {code}"),
        },
        TraceEvent::StreamErrorAnswered { code, .. } => Handled {
            method: "request".to_string(),
            answer: Some(format!("error {code}")),
            detail: format!("answered request with error {code}"),
        },
        TraceEvent::DirectReply { .. } => Handled {
            method: "message".to_string(),
            answer: Some("reply".to_string()),
            detail: "answered with a direct message".to_string(),
        },
        TraceEvent::TaskCreated { task, .. } => {
            let on_task = on_task(task);
            Handled {
                method: format!("message → task{on_task}"),
                answer: None,
                detail: format!("created task{on_task}"),
            }
        }
        TraceEvent::FollowUpQueued { task, .. } => {
            let on_task = on_task(task);
            Handled {
                method: format!("follow-up (queued){on_task}"),
                answer: None,
                detail: format!("queued a follow-up on task{on_task}"),
            }
        }
        TraceEvent::SidecarCut { .. } => relayed("sidecar cut"),
        TraceEvent::SidecarUpstreamError { .. } => relayed("sidecar upstream error"),
        _ => return None,
    })
}

fn relayed(what: &str) -> Handled {
    Handled {
        method: "relay".to_string(),
        answer: Some(what.to_string()),
        detail: what.to_string(),
    }
}

/// What a runtime event puts on the streams of its task, if anything.
pub(super) fn emission(event: &TraceEvent<'_>) -> Option<String> {
    match event {
        TraceEvent::TaskCreated { to, .. } | TraceEvent::Transition { to, .. } => {
            Some(to.name().to_string())
        }
        TraceEvent::Artifact { .. } => Some("artifact".to_string()),
        _ => None,
    }
}
