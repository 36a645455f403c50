//! The marks hosts leave on their own lane: the consumer's decisions, anomalies and what it
//! learned of its peer, a runtime reaping a task, a stream cut.

use super::draw::short_id;
use meshsim_trace::{JobOutcome, TraceEvent, TraceLine};

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

/// The mark an event leaves on its host's lane, if it is one worth seeing.
pub(super) fn mark(line: &TraceLine) -> Option<Mark> {
    let (label, alarm) = match &line.event {
        TraceEvent::JobStart { job, .. } => (format!("start {job}"), false),
        TraceEvent::Card { dialect, .. } => (format!("card {dialect}"), false),
        TraceEvent::Decision { decision, .. } => (decision.to_string(), false),
        TraceEvent::Abandoned { task, .. } => (format!("abandon {}", short_id(task)), true),
        TraceEvent::Anomaly { kind, .. } => (format!("⚠ {kind}"), true),
        TraceEvent::ProfileLearned { field, value, .. } => {
            (format!("learned {field}: {value}"), false)
        }
        TraceEvent::Outcome { outcome, .. } => {
            let alarm = !matches!(
                outcome,
                JobOutcome::Completed { .. } | JobOutcome::Canceled { .. }
            );
            (format!("outcome: {}", outcome.name()), alarm)
        }
        TraceEvent::TaskReaped { task, .. } => (format!("reaped {}", short_id(task)), true),
        TraceEvent::TaskStalled { .. } => ("stalled".to_string(), true),
        TraceEvent::FollowUpsDropped { .. } => ("follow-ups dropped".to_string(), true),
        TraceEvent::SidecarCut { .. } => ("cut".to_string(), true),
        TraceEvent::SidecarUpstreamError { .. } => ("upstream error".to_string(), true),
        _ => return None,
    };
    Some(Mark {
        host: line.host.clone(),
        at_ms: line.at_ms(),
        label,
        detail: describe(line),
        alarm,
    })
}

/// The whole event as one line, for tooltips.
fn describe(line: &TraceLine) -> String {
    format!("{} ms {}{}", line.at_ms(), line.host, line.fields_text)
}
