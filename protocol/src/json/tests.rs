//! The path and alias helpers of the JSON reader.

use super::*;
use std::borrow::Cow;

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
    let text = r#"{"contextId": "camel", "context_id": "snake", "task_id": "t"}"#;
    let both = Json::parse(text.as_bytes()).unwrap();
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

/// Documents with every kind of value, escapes, repeated keys, odd numbers and nesting.
const DOCUMENTS: [&str; 6] = [
    r#"{"b": 1, "a": [true, false, null, -7, 18446744073709551615, 1.5e300, "x\"y\u00e9"]}"#,
    r#"{"k": 1, "k": {"deep": [[], {}]}, "\u006b": "escaped key"}"#,
    r#"[{"kind": "text", "text": "hi"}, 0.0, -0, 1e2]"#,
    r#""a bare string""#,
    "null",
    r#"{"metadata": {"z": 1, "a": 2, "m": [3]}}"#,
];

#[test]
fn a_parsed_document_reads_back_as_the_value_of_the_same_text() {
    for text in DOCUMENTS {
        let value: Value = serde_json::from_str(text).unwrap();
        let json = Json::parse(text.as_bytes()).unwrap();
        assert_eq!(json.to_value(), value, "{text}");
        assert_eq!(Json::parse_str(text).unwrap(), json, "{text}");
        assert_eq!(json.to_string(), value.to_string(), "{text}");
        assert_eq!(Json::of(&value).to_value(), value, "{text}");
    }
}

#[test]
fn a_key_sent_twice_reads_as_its_last_value_as_in_a_value() {
    let text = r#"{"k": 1, "k": {"deep": true}, "\u006b": "escaped"}"#;
    let value: Value = serde_json::from_str(text).unwrap();
    let json = Json::parse(text.as_bytes()).unwrap();
    assert_eq!(json.get("k").map(Json::to_value), value.get("k").cloned());
    assert_eq!(json.get("k").and_then(Json::as_str), Some("escaped"));
}

#[test]
fn unescaped_strings_are_borrowed_from_the_text_and_escaped_ones_copied() {
    let text = br#"{"plain": "abc", "escaped": "a\nb"}"#;
    let json = Json::parse(text).unwrap();
    let Json::Object(members) = &json else {
        panic!("an object: {json:?}");
    };
    assert!(matches!(
        members[0],
        (Cow::Borrowed("plain"), Json::String(Cow::Borrowed("abc")))
    ));
    assert!(matches!(&members[1].1, Json::String(Cow::Owned(text)) if text == "a\nb"));
}

#[test]
fn text_that_is_not_json_fails_with_the_error_a_value_gets() {
    for text in ["", "{", "{\"a\" 1}", "[1,]", "nul", "{} {}", "\"\\q\""] {
        let expected = serde_json::from_str::<Value>(text).unwrap_err().to_string();
        let got = Json::parse(text.as_bytes()).unwrap_err().to_string();
        assert_eq!(got, expected, "{text}");
        let got = Json::parse_str(text).unwrap_err().to_string();
        assert_eq!(got, expected, "{text}");
    }
}
