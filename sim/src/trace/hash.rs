//! The trace hash: hex SHA-256 over the canonical lines, each followed by `\n` (that is, over
//! the JSONL file's bytes).

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use meshsim_protocol::digits::push_hex_byte;

/// Identifies a run: equal hashes mean byte-identical traces.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TraceHash(String);

impl TraceHash {
    /// The hash of the given lines (each without its trailing newline).
    pub fn of_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> Self {
        let mut hasher = Sha256::new();
        for line in lines {
            hasher.update(line.as_bytes());
            hasher.update(b"\n");
        }
        Self::from_digest(hasher)
    }

    pub(crate) fn from_digest(hasher: Sha256) -> Self {
        let digest = hasher.finalize();
        let mut hex = String::with_capacity(2 * digest.len());
        for byte in digest {
            push_hex_byte(&mut hex, byte);
        }
        Self(hex)
    }

    /// The lowercase hex digest.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TraceHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_the_jsonl_bytes() {
        // sha256("a\nb\n")
        assert_eq!(
            TraceHash::of_lines(["a", "b"]).as_str(),
            "911169ddaaf146aff539f58c26c489af3b892dff0fe283c1c264c65ae5aa59a2"
        );
        assert_ne!(TraceHash::of_lines(["a", "b"]), TraceHash::of_lines(["ab"]));
    }
}
