//! Canonical JSON: object keys sorted bytewise, no insignificant whitespace, serde_json's
//! number and string escaping. Independent of whether serde_json keeps insertion order (its
//! `preserve_order` feature can be switched on by any crate in the build).

use std::fmt::{self, Write as _};

use meshsim_protocol::digits::push_hex_byte;
#[cfg(test)]
use serde_json::Value;

/// Serialises `value` canonically: the reference the tests hold the writers of trace lines
/// to (a fault's line, an event's fields), which write the same text without a `Value`.
#[cfg(test)]
pub fn to_canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

/// Appends `value` canonically to `out`.
#[cfg(test)]
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
/// allocating. The runs between escapes are found a word at a time and copied whole: the
/// recorder writes every string of every trace line through here.
pub(crate) fn write_str(text: &str, out: &mut String) {
    out.reserve(text.len() + 2);
    out.push('"');
    push_escaped(text, out);
    out.push('"');
}

/// Appends `value`'s `Debug` text as a JSON string, as [`write_str`] of its `format!("{value:?}")`
/// would, without building that string first.
pub(crate) fn write_debug_str(value: &dyn fmt::Debug, out: &mut String) {
    out.push('"');
    let _ = write!(Escaping(out), "{value:?}");
    out.push('"');
}

/// A `fmt::Write` that appends what it is given escaped for the inside of a JSON string.
struct Escaping<'a>(&'a mut String);

impl fmt::Write for Escaping<'_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        push_escaped(text, self.0);
        Ok(())
    }
}

/// Appends `text` escaped for the inside of a JSON string, without the quotes.
fn push_escaped(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let mut clean = 0;
    while let Some(found) = first_to_escape(&bytes[clean..]) {
        let at = clean + found;
        let byte = bytes[at];
        // The bytes to escape are all ASCII, so `at` is a character boundary and the run
        // before it is copied as it is.
        out.push_str(&text[clean..at]);
        clean = at + 1;
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                out.push_str("\\u00");
                push_hex_byte(out, byte);
            }
        }
    }
    out.push_str(&text[clean..]);
}

/// Whether JSON needs `byte` escaped inside a string: `"`, `\\` and the control characters.
fn needs_escape(byte: u8) -> bool {
    byte == b'"' || byte == b'\\' || byte < 0x20
}

/// The index of the first byte of `bytes` that [needs escaping](needs_escape), looking at eight
/// bytes at once.
///
/// For a word `w` of eight bytes, `(w - 0x0101..01 * n) & !w & 0x8080..80` sets the top bit of
/// the lowest byte below `n` (a borrow can only run upwards from such a byte, so higher flags
/// may be spurious, the lowest never is). Bytes below 0x20 are tested that way directly; `"` and
/// `\\` as the bytes that are zero (below 1) after an exclusive or with them. The lowest flag of
/// the three tests is the first byte to escape; without a flag there is none in the word.
///
/// The bytes after the last whole word are tested as the last eight bytes of `bytes` when
/// there are eight, a word overlapping the one before: its first bytes are known to need no
/// escape, so none of them is flagged, and the lowest flag is still the first byte to escape.
fn first_to_escape(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const TOPS: u64 = u64::from_le_bytes([0x80; 8]);
    const QUOTES: u64 = u64::from_le_bytes([b'"'; 8]);
    const BACKSLASHES: u64 = u64::from_le_bytes([b'\\'; 8]);
    fn below(word: u64, n: u64) -> u64 {
        word.wrapping_sub(ONES * n) & !word & TOPS
    }
    // Little-endian: the lowest flagged byte of a word is the first in the text.
    fn first_in(word: &[u8]) -> Option<usize> {
        let word = u64::from_le_bytes(word.try_into().expect("a word of eight bytes"));
        let flags = below(word, 0x20) | below(word ^ QUOTES, 1) | below(word ^ BACKSLASHES, 1);
        (flags != 0).then(|| (flags.trailing_zeros() / 8) as usize)
    }
    let mut words = bytes.chunks_exact(8);
    let mut start = 0;
    for word in &mut words {
        if let Some(found) = first_in(word) {
            return Some(start + found);
        }
        start += 8;
    }
    if words.remainder().is_empty() {
        return None;
    }
    match bytes.len().checked_sub(8) {
        Some(last) => first_in(&bytes[last..]).map(|found| last + found),
        None => bytes.iter().position(|byte| needs_escape(*byte)),
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

    #[test]
    fn debug_text_is_escaped_as_its_formatted_string_would_be() {
        let values: [&dyn fmt::Debug; 4] = [
            &"q\"\n\\",
            &vec![Some(1), None],
            &'\u{1}',
            &format_args!("a\tb"),
        ];
        for value in values {
            let (mut direct, mut formatted) = (String::new(), String::new());
            write_debug_str(value, &mut direct);
            write_str(&format!("{value:?}"), &mut formatted);
            assert_eq!(direct, formatted);
        }
    }

    #[test]
    fn every_ascii_byte_is_found_at_every_place_in_a_word() {
        // Each ASCII character, alone and between neighbours that need escaping or not, at
        // every offset of the eight-byte words and of the tail after them; and a multi-byte
        // character before it, whose bytes are all at or above 0x80.
        for byte in 0u8..0x80 {
            let probe = char::from(byte);
            for before in 0..20 {
                for (left, right) in [("a", "b"), ("\"", "\n"), ("é", "\\"), ("🦀", "\u{1f}")] {
                    let text = format!("{}{probe}{right}{left}", left.repeat(before));
                    let mut out = String::new();
                    write_str(&text, &mut out);
                    assert_eq!(out, serde_json::to_string(&text).unwrap(), "{text:?}");
                }
            }
        }
    }
}
