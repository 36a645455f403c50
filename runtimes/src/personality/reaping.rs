//! When a runtime drops a task that is not terminal from its store.

use serde::{Deserialize, Serialize};

/// When a live task is dropped from the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Reaping {
    /// When the last stream attached to it closes (the origin incident's jvm-reaping: the store is
    /// keyed on the SSE connection's lifetime).
    OnStreamClose,
    /// `after_ms` after its last transition (or follow-up taken), whatever its state: a
    /// long stretch of work in one state outlasts it.
    Ttl { after_ms: u64 },
    /// `after_ms` after it entered `input-required`, unless a follow-up was taken by then.
    InputRequiredTimeout { after_ms: u64 },
    /// Never.
    Never,
}
