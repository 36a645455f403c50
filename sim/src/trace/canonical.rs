//! Canonical JSON: object keys sorted bytewise, no insignificant whitespace, serde_json's
//! number and string escaping. Independent of whether serde_json keeps insertion order (its
//! `preserve_order` feature can be switched on by any crate in the build).

use serde_json::Value;

/// Serialises `value` canonically.
pub fn to_canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

/// Appends `value` canonically to `out`.
fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(key, out);
                out.push(':');
                write_value(item, out);
            }
            out.push('}');
        }
        Value::String(text) => write_str(text, out),
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Appends `text` as a JSON string, escaped byte for byte as serde_json escapes it (`"`,
/// `\\` and control characters; `\b \f \n \r \t` short, others as `\u00XX`), without
/// allocating.
pub(crate) fn write_str(text: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let mut clean = 0;
    for (at, byte) in text.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&text[clean..at]);
        clean = at + 1;
        if escape.is_empty() {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        } else {
            out.push_str(escape);
        }
    }
    out.push_str(&text[clean..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sorts_keys_at_every_level_and_escapes() {
        let value = json!({"b": 1, "a": {"z": [true, null], "y": "q\"\n"}, "c": -2.5});
        assert_eq!(
            to_canonical_json(&value),
            r#"{"a":{"y":"q\"\n","z":[true,null]},"b":1,"c":-2.5}"#
        );
    }

    #[test]
    fn strings_are_escaped_exactly_as_serde_json_escapes_them() {
        let mut every_control: String = (0u8..0x20).map(char::from).collect();
        every_control.push_str("\"\\/ é ✓ \u{7f} \u{2028} 🦀 end");
        for text in [every_control.as_str(), "", "plain", "\"", "a\\b"] {
            let mut out = String::new();
            write_str(text, &mut out);
            assert_eq!(out, serde_json::to_string(text).unwrap(), "{text:?}");
        }
    }
}
