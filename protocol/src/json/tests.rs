//! The path and alias helpers of the JSON reader.

use super::*;

#[test]
fn an_elements_path_carries_its_index_in_decimal() {
    assert_eq!(
        element("params.message.parts", 0),
        "params.message.parts[0]"
    );
    assert_eq!(element("history", 7), "history[7]");
    assert_eq!(element("history", 10), "history[10]");
    assert_eq!(element("tasks", 1_234_567), "tasks[1234567]");
    assert_eq!(element("", usize::MAX), format!("[{}]", usize::MAX));
}

#[test]
fn a_snake_case_alias_is_matched_exactly() {
    assert!(is_snake_case_of("history_length", "historyLength"));
    assert!(is_snake_case_of("default_input_modes", "defaultInputModes"));
    assert!(is_snake_case_of("id", "id"));
    assert!(!is_snake_case_of("historylength", "historyLength"));
    assert!(!is_snake_case_of("history_lengths", "historyLength"));
    assert!(!is_snake_case_of("history_", "historyLength"));
    assert!(!is_snake_case_of("history_Length", "historyLength"));
}

#[test]
fn an_object_with_aliases_reads_the_snake_case_spelling_and_prefers_the_camel_case_one() {
    let both = serde_json::json!({"contextId": "camel", "context_id": "snake", "task_id": "t"});
    let object = Obj::new(Dialect::V1_0, &both, "")
        .unwrap()
        .with_snake_aliases();
    assert_eq!(
        object.opt_str("contextId").unwrap().as_deref(),
        Some("camel")
    );
    assert_eq!(object.opt_str("taskId").unwrap().as_deref(), Some("t"));
    assert_eq!(object.opt_str("messageId").unwrap(), None);
    let strict = Obj::new(Dialect::V1_0, &both, "").unwrap();
    assert_eq!(strict.opt_str("taskId").unwrap(), None);
}
