//! Which knob values a sweep's personalities drew: every value of every enumerated knob
//! should appear, and every numeric knob should take many distinct values, or the swarm
//! is not exploring the space it claims to.

use meshsim_runtimes::{
    CancelPolicy, CardClaims, Personality, Reaping, TurnOpening, WorkDurations,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// What kind of values a knob takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnobKind {
    /// One of these values (as written in a personality file).
    Enumerated(&'static [&'static str]),
    /// A number (or `absent`).
    Numeric,
}

const BOOL: &[&str] = &["false", "true"];
const CANCEL: &[&str] = &["cancel", "not-cancelable", "ignore"];
const TERMINAL_ERROR_NAMES: &[&str] = &[
    "UnsupportedOperation",
    "InvalidParams",
    "TaskNotFound",
    "InvalidRequest",
    "InternalError",
];

/// Every knob of the personality file, by its path in the file (names and descriptions
/// aside: they are labels, not behaviour).
pub const KNOBS: &[(&str, KnobKind)] = &[
    ("card.version", KnobKind::Numeric),
    ("card.streaming", KnobKind::Enumerated(BOOL)),
    ("card.push_notifications", KnobKind::Enumerated(BOOL)),
    ("card.state_transition_history", KnobKind::Enumerated(BOOL)),
    ("work.min_ms", KnobKind::Numeric),
    ("work.max_ms", KnobKind::Numeric),
    ("work.long_running_steps", KnobKind::Numeric),
    (
        "opening.new_task",
        KnobKind::Enumerated(&["snapshot", "status-update"]),
    ),
    (
        "opening.follow_up",
        KnobKind::Enumerated(&["none", "snapshot"]),
    ),
    (
        "send_reply",
        KnobKind::Enumerated(&["when-settled", "on-accept"]),
    ),
    (
        "resubscribe",
        KnobKind::Enumerated(&[
            "snapshot-then-tail",
            "replay-from-start",
            "not-found-after-stream-close",
            "not-found-unless-active",
        ]),
    ),
    (
        "follow_up",
        KnobKind::Enumerated(&[
            "resume",
            "resume-with-duplicate-submitted",
            "new-task",
            "not-found",
        ]),
    ),
    (
        "unknown_task",
        KnobKind::Enumerated(&["not-found", "new-task"]),
    ),
    ("busy_follow_up", KnobKind::Enumerated(&["refuse", "queue"])),
    (
        "reaping",
        KnobKind::Enumerated(&["never", "on-stream-close", "ttl", "input-required-timeout"]),
    ),
    ("reaping.after_ms", KnobKind::Numeric),
    (
        "stream_close",
        KnobKind::Enumerated(&[
            "terminal-only",
            "terminal-and-interrupted",
            "terminal-and-input-required",
        ]),
    ),
    ("cancel.submitted", KnobKind::Enumerated(CANCEL)),
    ("cancel.working", KnobKind::Enumerated(CANCEL)),
    ("cancel.interrupted", KnobKind::Enumerated(CANCEL)),
    (
        "cancel.terminal",
        KnobKind::Enumerated(&["not-cancelable", "return-task", "return-canceled"]),
    ),
    (
        "terminal_send_error",
        KnobKind::Enumerated(TERMINAL_ERROR_NAMES),
    ),
    (
        "terminal_subscribe_error",
        KnobKind::Enumerated(TERMINAL_ERROR_NAMES),
    ),
    (
        "timestamps",
        KnobKind::Enumerated(&["present", "absent", "restamped-on-replay"]),
    ),
    (
        "duplicate_states",
        KnobKind::Enumerated(&[
            "submitted",
            "working",
            "input-required",
            "completed",
            "failed",
            "canceled",
        ]),
    ),
    ("keep_alive_ms", KnobKind::Numeric),
    ("card_delay_ms", KnobKind::Numeric),
    ("stalled_first_tasks", KnobKind::Numeric),
    ("exact_version", KnobKind::Enumerated(BOOL)),
    ("v0_3_compat", KnobKind::Enumerated(BOOL)),
    ("check_input_modes", KnobKind::Enumerated(BOOL)),
    ("check_content_type", KnobKind::Enumerated(BOOL)),
    (
        "bindings",
        KnobKind::Enumerated(&["jsonrpc", "http-json", "both"]),
    ),
    ("sidecar", KnobKind::Enumerated(&["absent", "present"])),
    ("sidecar.route_timeout_ms", KnobKind::Numeric),
    ("sidecar.idle_timeout_ms", KnobKind::Numeric),
    ("tenant", KnobKind::Enumerated(&["absent", "present"])),
];

/// Each knob's value(s) in `personality`, as (knob, value) pairs; `duplicate_states` gives
/// one pair per state, knobs that do not apply (a TTL without a TTL reaper) none.
pub fn knob_values(personality: &Personality) -> Vec<(&'static str, String)> {
    // Destructured in full, so that a new field does not compile until it is listed here.
    let Personality {
        name: _,
        description: _,
        card:
            CardClaims {
                name: _,
                version,
                description: _,
                streaming,
                push_notifications,
                state_transition_history,
            },
        work:
            WorkDurations {
                min_ms,
                max_ms,
                long_running_steps,
            },
        opening:
            TurnOpening {
                new_task,
                follow_up: opening_follow_up,
            },
        send_reply,
        resubscribe,
        follow_up,
        unknown_task,
        busy_follow_up,
        reaping,
        stream_close,
        cancel:
            CancelPolicy {
                submitted,
                working,
                interrupted,
                terminal,
            },
        terminal_send_error,
        terminal_subscribe_error,
        timestamps,
        duplicate_states,
        keep_alive_ms,
        card_delay_ms,
        stalled_first_tasks,
        exact_version,
        v0_3_compat,
        check_input_modes,
        check_content_type,
        bindings,
        sidecar,
        tenant,
    } = personality;
    let mut values = vec![
        ("card.version", version.clone()),
        ("card.streaming", label(streaming)),
        ("card.push_notifications", label(push_notifications)),
        (
            "card.state_transition_history",
            label(state_transition_history),
        ),
        ("work.min_ms", label(min_ms)),
        ("work.max_ms", label(max_ms)),
        ("work.long_running_steps", label(long_running_steps)),
        ("opening.new_task", label(new_task)),
        ("opening.follow_up", label(opening_follow_up)),
        ("send_reply", label(send_reply)),
        ("resubscribe", label(resubscribe)),
        ("follow_up", label(follow_up)),
        ("unknown_task", label(unknown_task)),
        ("busy_follow_up", label(busy_follow_up)),
        ("stream_close", label(stream_close)),
        ("cancel.submitted", label(submitted)),
        ("cancel.working", label(working)),
        ("cancel.interrupted", label(interrupted)),
        ("cancel.terminal", label(terminal)),
        ("terminal_send_error", label(terminal_send_error)),
        ("terminal_subscribe_error", label(terminal_subscribe_error)),
        ("timestamps", label(timestamps)),
        ("keep_alive_ms", optional(keep_alive_ms)),
        ("card_delay_ms", optional(card_delay_ms)),
        ("stalled_first_tasks", label(stalled_first_tasks)),
        ("exact_version", label(exact_version)),
        ("v0_3_compat", label(v0_3_compat)),
        ("check_input_modes", label(check_input_modes)),
        ("check_content_type", label(check_content_type)),
        ("bindings", label(bindings)),
        (
            "tenant",
            if tenant.is_some() {
                "present"
            } else {
                "absent"
            }
            .to_string(),
        ),
    ];
    let (mode, after_ms) = match reaping {
        Reaping::Never => ("never", None),
        Reaping::OnStreamClose => ("on-stream-close", None),
        Reaping::Ttl { after_ms } => ("ttl", Some(after_ms)),
        Reaping::InputRequiredTimeout { after_ms } => ("input-required-timeout", Some(after_ms)),
    };
    values.push(("reaping", mode.to_string()));
    if let Some(after_ms) = after_ms {
        values.push(("reaping.after_ms", label(after_ms)));
    }
    values.extend(
        duplicate_states
            .iter()
            .map(|state| ("duplicate_states", label(state))),
    );
    match sidecar {
        None => values.push(("sidecar", "absent".to_string())),
        Some(sidecar) => {
            values.push(("sidecar", "present".to_string()));
            values.push((
                "sidecar.route_timeout_ms",
                optional(&sidecar.route_timeout_ms),
            ));
            values.push((
                "sidecar.idle_timeout_ms",
                optional(&sidecar.idle_timeout_ms),
            ));
        }
    }
    values
}

/// A value as a personality file writes it (strings without their quotes).
fn label<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(text)) => text,
        Ok(other) => other.to_string(),
        Err(error) => format!("({error})"),
    }
}

fn optional(value: &Option<u64>) -> String {
    value.map_or_else(|| "absent".to_string(), |value| value.to_string())
}

/// The knob values drawn over a sweep.
#[derive(Debug, Clone, Default)]
pub struct Coverage {
    seen: BTreeMap<&'static str, BTreeSet<String>>,
    personalities: usize,
}

/// What a sweep covered, for its summary line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoverageSummary {
    /// Personalities counted.
    pub personalities: usize,
    /// Values of enumerated knobs drawn at least once, of all there are.
    pub enumerated_drawn: usize,
    pub enumerated_values: usize,
    /// Enumerated values never drawn, as `knob=value`.
    pub missing: Vec<String>,
    /// Distinct values drawn per numeric knob.
    pub numeric_distinct: BTreeMap<String, usize>,
    /// The fewest distinct values any numeric knob took.
    pub numeric_fewest: usize,
}

impl Coverage {
    /// Counts one run's personality.
    pub fn add(&mut self, personality: &Personality) {
        for (knob, value) in knob_values(personality) {
            self.seen.entry(knob).or_default().insert(value);
        }
        self.personalities += 1;
    }

    /// Whether any personality was counted.
    pub fn is_empty(&self) -> bool {
        self.personalities == 0
    }

    /// The summary over every knob of `KNOBS`.
    pub fn summary(&self) -> CoverageSummary {
        let empty = BTreeSet::new();
        let mut summary = CoverageSummary {
            personalities: self.personalities,
            enumerated_drawn: 0,
            enumerated_values: 0,
            missing: Vec::new(),
            numeric_distinct: BTreeMap::new(),
            numeric_fewest: usize::MAX,
        };
        for (knob, kind) in KNOBS {
            let seen = self.seen.get(knob).unwrap_or(&empty);
            match kind {
                KnobKind::Enumerated(values) => {
                    for value in *values {
                        summary.enumerated_values += 1;
                        if seen.contains(*value) {
                            summary.enumerated_drawn += 1;
                        } else {
                            summary.missing.push(format!("{knob}={value}"));
                        }
                    }
                }
                KnobKind::Numeric => {
                    summary
                        .numeric_distinct
                        .insert(knob.to_string(), seen.len());
                    summary.numeric_fewest = summary.numeric_fewest.min(seen.len());
                }
            }
        }
        summary
    }
}

#[cfg(test)]
mod tests;
