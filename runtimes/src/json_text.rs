//! The JSON text of an answer the runtime sends.

use serde_json::Value;

/// `value` as JSON text: the bytes `Value`'s `Display` writes, serialised straight into a
/// byte buffer instead of through a `fmt::Formatter` call per token.
pub(crate) fn json_text(value: &Value) -> String {
    // A `Value`'s keys are strings and its numbers finite, so serialising it cannot fail.
    serde_json::to_string(value).unwrap_or_default()
}
