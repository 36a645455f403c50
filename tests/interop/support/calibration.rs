//! Calibration: a personality is calibrated against a real SDK when `meshsim probe` measures
//! the same profile on both. Every field of the probe's JSON report is compared except the
//! ones that name the agent rather than describe its behaviour.

use serde_json::Value;

/// Report fields that identify the agent or the run, not its lifecycle: the URL probed, the
/// id the agent gave the task, and the Card's `name` and `version` (the agent's own).
const IDENTITY: [&str; 4] = ["url", "task_id", "card.name", "card.version"];

/// Every field where the personality's report differs from the real SDK's, as
/// `field: real SDK <value>, personality <value>`.
pub fn differences(real: &Value, personality: &Value) -> Vec<String> {
    let mut found = Vec::new();
    compare("", real, personality, &mut found);
    found
}

fn compare(path: &str, real: &Value, personality: &Value, found: &mut Vec<String>) {
    if IDENTITY.contains(&path) {
        return;
    }
    match (real, personality) {
        (Value::Object(real), Value::Object(personality)) => {
            let mut keys: Vec<&String> = real.keys().chain(personality.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let field = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                compare(
                    &field,
                    real.get(key).unwrap_or(&Value::Null),
                    personality.get(key).unwrap_or(&Value::Null),
                    found,
                );
            }
        }
        _ if real != personality => found.push(format!(
            "{path}: real SDK {real}, personality {personality}"
        )),
        _ => {}
    }
}

/// The lifecycle docs/real-runtimes.md records for both SDKs, as the probe measures it:
/// the stream closes at `input-required`, the task outlives it, resubscribe reattaches,
/// a follow-up with the same id resumes, and the Card's claims are not contradicted.
pub fn assert_documented_lifecycle(what: &str, real: &Value) {
    let expected = [
        ("reached_input_required", Value::Bool(true)),
        ("stream_closes_on_input_required", Value::Bool(true)),
        ("task_survives_stream_close", Value::Bool(true)),
        ("resubscribe_after_input_required", Value::from("resumes")),
        ("followup_same_task", Value::from("resumes")),
        ("get_after_followup", Value::from("completed")),
        ("contradictions", Value::Array(Vec::new())),
    ];
    for (field, value) in expected {
        assert_eq!(
            real.get(field),
            Some(&value),
            "{what}: `{field}` in {real:#}"
        );
    }
}

/// Fails the test naming every differing field, unless there is none.
pub fn assert_calibrated(what: &str, real: &Value, personality: &Value) {
    let found = differences(real, personality);
    assert!(
        found.is_empty(),
        "{what}: the personality's profile differs from the real SDK's in {} field(s):\n  {}\n\
         real SDK report: {real:#}\npersonality report: {personality:#}",
        found.len(),
        found.join("\n  ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn identity_fields_are_ignored_and_behaviour_fields_named() {
        let real = json!({"url": "a", "task_id": "1", "card": {"name": "x", "version": "1",
            "streaming": true}, "cancel": "error:-32002", "first_turn": ["submitted"]});
        let mock = json!({"url": "b", "task_id": "2", "card": {"name": "y", "version": "2",
            "streaming": true}, "cancel": "completed", "first_turn": ["submitted", "working"]});
        assert_eq!(
            differences(&real, &mock),
            vec![
                r#"cancel: real SDK "error:-32002", personality "completed""#.to_string(),
                r#"first_turn: real SDK ["submitted"], personality ["submitted","working"]"#
                    .to_string(),
            ]
        );
    }

    #[test]
    fn a_field_only_one_side_has_is_a_difference() {
        let real = json!({"card": {"state_transition_history": null}});
        let mock = json!({"card": {"state_transition_history": false}});
        assert_eq!(
            differences(&real, &mock),
            vec!["card.state_transition_history: real SDK null, personality false".to_string()]
        );
        assert!(differences(&real, &real).is_empty());
    }
}
