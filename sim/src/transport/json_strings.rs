//! The JSON strings of what passes on a connection, read as it passes (a string may be
//! split between two chunks): what an oracle matches against the ids of the tasks a runtime
//! has, to know which consumer was told of which task.

/// Longer strings are no task id and are not kept.
const LONGEST_ID: usize = 256;

/// The JSON strings of a byte stream, fed a chunk at a time. A raw line break ends any
/// string (JSON text has none inside strings), so an event stream's comments and field
/// names cannot leave it reading the rest as one string.
#[derive(Debug, Default)]
pub struct JsonStrings {
    in_string: bool,
    escaped: bool,
    current: Vec<u8>,
}

impl JsonStrings {
    /// Reads `bytes` and adds each string that ends in them to `found` (as written: an
    /// escaped string is kept with its escapes, and matches no id).
    pub fn feed(&mut self, bytes: &[u8], found: &mut Vec<String>) {
        for &byte in bytes {
            if byte == b'\n' || byte == b'\r' {
                self.in_string = false;
                self.escaped = false;
                self.current.clear();
            } else if !self.in_string {
                self.in_string = byte == b'"';
            } else if self.escaped {
                self.escaped = false;
                self.keep(byte);
            } else if byte == b'\\' {
                self.escaped = true;
                self.keep(byte);
            } else if byte == b'"' {
                self.in_string = false;
                if self.current.len() <= LONGEST_ID
                    && let Ok(text) = std::str::from_utf8(&self.current)
                {
                    found.push(text.to_string());
                }
                self.current.clear();
            } else {
                self.keep(byte);
            }
        }
    }

    fn keep(&mut self, byte: u8) {
        // One byte past the longest id marks the string as too long, without growing.
        if self.current.len() <= LONGEST_ID {
            self.current.push(byte);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(chunks: &[&str]) -> Vec<String> {
        let mut reader = JsonStrings::default();
        let mut found = Vec::new();
        for chunk in chunks {
            reader.feed(chunk.as_bytes(), &mut found);
        }
        found
    }

    #[test]
    fn every_string_of_an_answer_is_found_whole_even_when_split_between_chunks() {
        let answer = r#"{"id":"t-1","status":{"state":"working"},"note":"say \"hi\""}"#;
        let whole = strings(&[answer]);
        assert_eq!(
            whole,
            [
                "id",
                "t-1",
                "status",
                "state",
                "working",
                "note",
                r#"say \"hi\""#
            ]
        );
        for split in 1..answer.len() {
            assert_eq!(strings(&[&answer[..split], &answer[split..]]), whole);
        }
    }

    #[test]
    fn a_line_break_ends_a_string_and_a_long_one_is_left_out() {
        // An event stream's comment with an odd quote does not swallow the next event.
        let stream = ": it's \"open\ndata: {\"taskId\":\"t-2\"}\n\n";
        assert_eq!(strings(&[stream]), ["taskId", "t-2"]);
        let long = format!(
            "{{\"text\":\"{}\",\"id\":\"t-3\"}}",
            "x".repeat(LONGEST_ID + 1)
        );
        assert_eq!(strings(&[&long]), ["text", "id", "t-3"]);
    }
}
