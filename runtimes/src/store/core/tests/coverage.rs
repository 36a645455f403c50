//! Every knob of a personality has its case: the knobs are read off a serialized
//! [`Personality`], so a new field fails here until it is listed, with the test that runs
//! each of its values or the place that serves it outside the store, and each listed test
//! runs.

use super::knobs;
use crate::personality::Personality;
use std::collections::BTreeSet;

/// Who covers a knob.
enum Case {
    /// A test in [`knobs`] that runs every value of the knob's domain.
    Store(fn()),
    /// Not a decision of the task store: what serves it, and where it is tested.
    Elsewhere(&'static str),
}

/// Every knob, by its path in a personality document.
fn cases() -> Vec<(&'static str, Case)> {
    use Case::{Elsewhere, Store};
    vec![
        ("name", Elsewhere("a label: trace events, `meshsim list`")),
        ("description", Elsewhere("a label: `meshsim list`")),
        (
            "card.name",
            Elsewhere("the Agent Card (runtime.rs; tests/personalities/served_shapes.rs)"),
        ),
        ("card.version", Elsewhere("the Agent Card (runtime.rs)")),
        ("card.description", Elsewhere("the Agent Card (runtime.rs)")),
        ("card.streaming", Elsewhere("the Agent Card (runtime.rs)")),
        (
            "card.push_notifications",
            Elsewhere("the Agent Card (runtime.rs)"),
        ),
        (
            "card.state_transition_history",
            Elsewhere("the Agent Card (runtime.rs)"),
        ),
        ("work.min_ms", Store(knobs::work)),
        ("work.max_ms", Store(knobs::work)),
        ("work.long_running_steps", Store(knobs::work)),
        ("opening.new_task", Store(knobs::opening_new_task)),
        ("opening.follow_up", Store(knobs::opening_follow_up)),
        ("send_reply", Store(knobs::send_reply)),
        ("resubscribe", Store(knobs::resubscribe)),
        ("follow_up", Store(knobs::follow_up)),
        ("unknown_task", Store(knobs::unknown_task)),
        ("busy_follow_up", Store(knobs::busy_follow_up)),
        ("reaping", Store(knobs::reaping)),
        ("stream_close", Store(knobs::stream_close)),
        ("cancel.submitted", Store(knobs::cancel_of_live_tasks)),
        ("cancel.working", Store(knobs::cancel_of_live_tasks)),
        ("cancel.interrupted", Store(knobs::cancel_of_live_tasks)),
        ("cancel.terminal", Store(knobs::cancel_of_terminal_tasks)),
        ("terminal_send_error", Store(knobs::terminal_send_error)),
        (
            "terminal_subscribe_error",
            Store(knobs::terminal_subscribe_error),
        ),
        ("timestamps", Store(knobs::timestamps)),
        ("duplicate_states", Store(knobs::duplicate_states)),
        (
            "keep_alive_ms",
            Elsewhere("SSE pings (stream.rs; tests/personalities/sdk_calibrated.rs)"),
        ),
        (
            "card_delay_ms",
            Elsewhere("the Card's route (card_route.rs; tests/personalities/knobs.rs)"),
        ),
        ("stalled_first_tasks", Store(knobs::stalled_first_tasks)),
        (
            "exact_version",
            Elsewhere("the endpoint's version check (endpoint.rs; tests/personalities/knobs.rs)"),
        ),
        (
            "v0_3_compat",
            Elsewhere(
                "the endpoint's dialect choice (endpoint.rs; tests/personalities/sdk_calibrated.rs)",
            ),
        ),
        (
            "check_input_modes",
            Elsewhere("the endpoint (endpoint.rs; tests/personalities/sdk_calibrated.rs)"),
        ),
        (
            "check_content_type",
            Elsewhere("the endpoint (endpoint.rs; tests/personalities/sdk_calibrated.rs)"),
        ),
        (
            "bindings",
            Elsewhere(
                "the router and the Card (runtime.rs, card.rs; tests/personalities/http_json.rs)",
            ),
        ),
        (
            "sidecar",
            Elsewhere(
                "the sidecar in front of the runtime (sidecar.rs; tests/personalities/sidecar.rs)",
            ),
        ),
        (
            "tenant",
            Elsewhere(
                "the Card, the endpoint's check and the HTTP+JSON routes' prefix (card.rs, \
                 endpoint.rs, routes.rs; tests/personalities/tenant_knob.rs)",
            ),
        ),
    ]
}

/// The knobs of a personality document: its fields, with those of nested objects as
/// `outer.inner`.
fn knob_paths() -> BTreeSet<String> {
    let document = serde_json::to_value(Personality::default()).expect("a personality serializes");
    let mut paths = BTreeSet::new();
    for (field, value) in document.as_object().expect("an object") {
        match value.as_object() {
            Some(nested) => {
                for inner in nested.keys() {
                    paths.insert(format!("{field}.{inner}"));
                }
            }
            None => {
                paths.insert(field.clone());
            }
        }
    }
    paths
}

#[test]
fn every_knob_has_a_case() {
    let listed: BTreeSet<String> = cases().iter().map(|(path, _)| path.to_string()).collect();
    let knobs = knob_paths();
    let missing: Vec<_> = knobs.difference(&listed).collect();
    let unknown: Vec<_> = listed.difference(&knobs).collect();
    assert!(missing.is_empty(), "knobs without a case: {missing:?}");
    assert!(unknown.is_empty(), "cases of no knob: {unknown:?}");
    assert_eq!(listed.len(), cases().len(), "a knob listed twice");
    // Each store case also runs as its own test; here it runs for the knob it covers.
    for (path, case) in cases() {
        match case {
            Case::Store(test) => test(),
            Case::Elsewhere(place) => assert!(!place.is_empty(), "{path}: say what serves it"),
        }
    }
}
