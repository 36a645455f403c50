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
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_value(item, out);
            }
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
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
}
